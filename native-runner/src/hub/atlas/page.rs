//! The atlas's page, made by the hub as HTML: no script, so it is whole on a phone's first
//! bytes and to a screen reader; filters are links; every plot has its words beside it.

use std::fmt::Write;

use plotters::prelude::*;
use ticklab::atlas::{self, Cell, CellKey, Submission, NATIVE};
use ticklab::digest::PAGE_NOW;
use ticklab::present::{duration, DASH};

use super::{Filters, LICENCE_NAME, LICENCE_URL};

/// Most plots of versions on the page: one per OS and isolation of the engine chosen.
const MOST_PLOTS: usize = 4;
/// Most rows of a table: the page stays a few tens of KB on a phone's network (a row is
/// about 400 bytes); the filters narrow it, the JSON and the CSV hold every cell.
const MOST_ROWS: usize = 60;
/// Most machines' cells (a row each of their clocks), those with the most senders.
const MOST_MACHINES: usize = 6;

/// `s` written safely into HTML text or an attribute.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A query's value percent-encoded.
fn enc(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// The atlas's page with run `s`'s cell marked (and its performance.now tick, when it has
/// one), relative to the hub's page.
pub fn link(s: &Submission) -> String {
    let mut l = format!("atlas?engine={}&os={}", enc(&s.engine), enc(&s.os));
    if let Some(i) = s.isolated {
        let _ = write!(l, "&isolated={i}");
    }
    if let Some(v) = s.version {
        let _ = write!(l, "&version={v}");
    }
    if let Some(t) = s
        .clocks
        .iter()
        .find(|c| c.clock == PAGE_NOW)
        .and_then(|c| c.tick_ns)
    {
        let _ = write!(l, "&tick={t}");
    }
    l
}

/// A filter's link, `key=value` set (or cleared with no value) and the others kept.
fn filter_link(f: &Filters, key: &str, value: Option<&str>) -> String {
    let mut parts = Vec::new();
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            parts.push(format!("{k}={}", enc(&v)));
        }
    };
    let own = |k: &str, v: Option<String>| {
        if k == key {
            value.map(str::to_string)
        } else {
            v
        }
    };
    put("engine", own("engine", f.engine.clone()));
    put("os", own("os", f.os.clone()));
    put(
        "isolated",
        own("isolated", f.isolated.map(|i| i.to_string())),
    );
    format!("atlas?{}", parts.join("&"))
}

/// One row of filter links: "All" and each value present.
fn filter_row(out: &mut String, f: &Filters, key: &str, label: &str, values: &[(String, String)]) {
    let chosen = match key {
        "engine" => f.engine.clone(),
        "os" => f.os.clone(),
        _ => f.isolated.map(|i| i.to_string()),
    };
    let _ = write!(out, "<li>{label}: ");
    let mut items = vec![(None, "all".to_string())];
    items.extend(
        values
            .iter()
            .map(|(v, text)| (Some(v.as_str()), text.clone())),
    );
    let links: Vec<String> = items
        .into_iter()
        .map(|(v, text)| {
            let current = v.map(str::to_string) == chosen;
            format!(
                "<a href=\"{}\"{}>{}</a>",
                esc(&filter_link(f, key, v)),
                if current {
                    " aria-current=\"true\""
                } else {
                    ""
                },
                esc(&text)
            )
        })
        .collect();
    let _ = write!(out, "{}</li>", links.join(" · "));
}

fn matches(f: &Filters, k: &CellKey) -> bool {
    f.engine.as_ref().is_none_or(|e| *e == k.engine)
        && f.os.as_ref().is_none_or(|o| *o == k.os)
        && f.isolated.is_none_or(|i| k.isolated == Some(i))
}

/// Whether `k` is the visitor's cell.
fn is_mine(f: &Filters, k: &CellKey) -> bool {
    f.version.is_some()
        && f.engine.as_deref() == Some(k.engine.as_str())
        && f.os.as_deref() == Some(k.os.as_str())
        && f.version == k.version
        && f.isolated == k.isolated
}

/// The sentence about the visitor's run: only from a cell that is shown.
fn yours(cells: &[Cell], f: &Filters, k: i64) -> Option<String> {
    // A tick no clock has is no figure to say.
    let tick = f
        .tick
        .filter(|t| (atlas::MIN_TICK_NS..=atlas::MAX_TICK_NS).contains(t))?;
    f.version?;
    let said = format!("Your browser's performance.now ticked {}", duration(tick));
    Some(match cells.iter().find(|c| is_mine(f, &c.key)) {
        Some(c) => match c.likeness(PAGE_NOW, tick) {
            Some(like) => format!("{said}: {like}."),
            None => format!("{said}; its cell has no performance.now figures yet."),
        },
        None => format!(
            "{said}. Its cell is not shown yet: a cell is shown once runs from {k} different senders are in it."
        ),
    })
}

/// The plot of `v` as inline SVG, with its words as its text alternative.
fn versions_figure(out: &mut String, v: &atlas::Versions) {
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, (900, 420)).into_drawing_area();
        if ticklab_plot::atlas_versions(&area, v).is_err() || area.present().is_err() {
            return;
        }
    }
    let words = v.words();
    // Hidden from assistive technology (the words say it all), and as wide as the page.
    let svg = svg
        .replacen("width=\"900\" height=\"420\"", "width=\"100%\"", 1)
        .replacen("<svg ", "<svg aria-hidden=\"true\" focusable=\"false\" ", 1);
    let _ = write!(
        out,
        "<figure class=\"atlas-plot\"><div class=\"plot-wrap\">{svg}</div><figcaption>{}</figcaption></figure>",
        esc(&words)
    );
}

/// The browsers' table: a row per cell shown, performance.now's figures.
fn browsers_table(out: &mut String, cells: &[&Cell], f: &Filters) {
    out.push_str(
        "<div class=\"table-wrap\" tabindex=\"0\" role=\"region\" aria-labelledby=\"browsers-h\"><table id=\"atlas-cells\"><caption>performance.now in each cell \
         (engine, major version, OS family, isolation)</caption><thead><tr><th scope=\"col\">cell</th>\
         <th scope=\"col\">senders</th><th scope=\"col\">runs</th><th scope=\"col\">tick (modes)</th>\
         <th scope=\"col\">read cost (median)</th><th scope=\"col\">documented</th>\
         <th scope=\"col\">for a person to look at</th></tr></thead><tbody>",
    );
    for c in cells {
        let now = c.page_now();
        let claim = c.key.claim();
        let mine = is_mine(f, &c.key);
        let _ = write!(
            out,
            "<tr{}><th scope=\"row\">{}{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if mine { " class=\"mine\"" } else { "" },
            esc(&c.key.name()),
            if mine { " (yours)" } else { "" },
            c.senders,
            c.runs,
            esc(&now.map_or(DASH.into(), |n| n.modes_text())),
            esc(&now.and_then(|n| n.read_median()).map_or(DASH.into(), duration)),
            esc(&claim.map_or(DASH.into(), |(ns, _)| atlas::short_duration(ns))),
            esc(&c.flag().unwrap_or_else(|| if claim.is_some() { "agrees".into() } else { DASH.into() })),
        );
    }
    out.push_str("</tbody></table></div>");
    // Where each documented figure comes from, once, not in every row.
    let mut sources: Vec<&str> = cells
        .iter()
        .filter_map(|c| c.key.claim())
        .map(|c| c.1)
        .collect();
    sources.sort_unstable();
    sources.dedup();
    if !sources.is_empty() {
        let _ = write!(
            out,
            "<p class=\"note\">Documented: {}.</p>",
            esc(&sources.join("; "))
        );
    }
}

/// The machines' table: a row per native cell and clock.
fn native_table(out: &mut String, cells: &[&Cell]) {
    out.push_str(
        "<div class=\"table-wrap\" tabindex=\"0\" role=\"region\" aria-labelledby=\"native-h\"><table id=\"atlas-native\"><caption>Native clocks by CPU family \
         and OS</caption><thead><tr><th scope=\"col\">CPU family, OS</th><th scope=\"col\">clock</th>\
         <th scope=\"col\">runs</th><th scope=\"col\">tick (modes)</th><th scope=\"col\">read cost (median)</th>\
         </tr></thead><tbody>",
    );
    for c in cells {
        let who = format!(
            "{} on {} ({} senders)",
            c.key.cpu_family.as_deref().unwrap_or("an unnamed CPU"),
            c.key.os,
            c.senders
        );
        for clock in &c.clocks {
            let _ = write!(
                out,
                "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&who),
                esc(&clock.clock),
                clock.runs(),
                esc(&clock.modes_text()),
                esc(&clock.read_median().map_or(DASH.into(), duration)),
            );
        }
    }
    out.push_str("</tbody></table></div>");
}

/// Says how many cells a table left out, when it did.
fn more(out: &mut String, all: usize, most: usize) {
    if all > most {
        let _ = write!(
            out,
            "<p>{most} of {all} cells shown here; the JSON and the CSV hold every cell.</p>"
        );
    }
}

/// The whole page.
pub fn render(cells: &[Cell], f: &Filters, k: i64) -> String {
    let mut out = String::from(HEAD);
    let _ = write!(
        out,
        "<p>Runs their owners chose to add, from the page on this hub, from <code>ticklab run \
         --share</code> and from closed classes. A cell is shown once runs from {} are in it; \
         an address counts once a cell a day. Open data under <a href=\"{LICENCE_URL}\">\
         {LICENCE_NAME}</a>: <a href=\"atlas/cells.json\">JSON</a>, \
         <a href=\"atlas/cells.csv\">CSV</a>.</p>",
        if k == 1 {
            "one sender".to_string()
        } else {
            format!("at least {k} different senders")
        }
    );
    if let Some(y) = yours(cells, f, k) {
        let _ = write!(
            out,
            "<p id=\"atlas-yours\" class=\"headline\">{}</p>",
            esc(&y)
        );
    }
    let (browsers, native): (Vec<&Cell>, Vec<&Cell>) =
        cells.iter().partition(|c| c.key.engine != NATIVE);
    let values = |pick: &dyn Fn(&CellKey) -> Option<(String, String)>| {
        let mut v: Vec<(String, String)> = browsers.iter().filter_map(|c| pick(&c.key)).collect();
        v.sort();
        v.dedup();
        v
    };
    let engines = values(&|k| Some((k.engine.clone(), k.engine.clone())));
    let oses = values(&|k| Some((k.os.clone(), k.os.clone())));
    let iso = values(&|k| {
        k.isolated.map(|i| {
            (
                i.to_string(),
                if i { "isolated" } else { "not isolated" }.to_string(),
            )
        })
    });
    out.push_str("<nav aria-label=\"filters\"><ul class=\"atlas-filters\">");
    filter_row(&mut out, f, "engine", "Engine", &engines);
    filter_row(&mut out, f, "os", "OS", &oses);
    filter_row(&mut out, f, "isolated", "Isolation", &iso);
    out.push_str("</ul></nav>");
    let mut shown: Vec<&Cell> = browsers
        .iter()
        .copied()
        .filter(|c| matches(f, &c.key))
        .collect();
    // The visitor's cell first, then by engine, the newest versions first.
    shown.sort_by(|a, b| {
        (
            !is_mine(f, &a.key),
            &a.key.engine,
            std::cmp::Reverse(a.key.version),
            &a.key.os,
            a.key.isolated,
        )
            .cmp(&(
                !is_mine(f, &b.key),
                &b.key.engine,
                std::cmp::Reverse(b.key.version),
                &b.key.os,
                b.key.isolated,
            ))
    });
    out.push_str("<h2 id=\"browsers-h\">Browsers</h2>");
    if shown.is_empty() {
        out.push_str("<p>No cell is shown here yet.</p>");
    } else {
        browsers_table(&mut out, &shown[..shown.len().min(MOST_ROWS)], f);
        more(&mut out, shown.len(), MOST_ROWS);
    }
    out.push_str("<h2 id=\"versions-h\">performance.now across versions</h2>");
    let mut plotted = 0;
    let mut groups: Vec<(String, String, bool)> = shown
        .iter()
        .filter_map(|c| Some((c.key.engine.clone(), c.key.os.clone(), c.key.isolated?)))
        .collect();
    groups.sort();
    groups.dedup();
    for (engine, os, isolated) in groups.iter().take(MOST_PLOTS) {
        versions_figure(
            &mut out,
            &atlas::versions(&shown, engine, os, *isolated, PAGE_NOW),
        );
        plotted += 1;
    }
    if plotted == 0 {
        out.push_str("<p>No cell is shown here yet.</p>");
    } else if groups.len() > MOST_PLOTS {
        out.push_str("<p>Choose an engine, an OS or an isolation above for the other plots.</p>");
    }
    out.push_str("<h2 id=\"native-h\">Machines</h2>");
    if native.is_empty() {
        out.push_str("<p>No machine's cell is shown yet.</p>");
    } else {
        let mut native = native;
        native.sort_by_key(|c| std::cmp::Reverse(c.senders));
        native_table(&mut out, &native[..native.len().min(MOST_MACHINES)]);
        more(&mut out, native.len(), MOST_MACHINES);
    }
    out.push_str(FOOT);
    out
}

const HEAD: &str = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>ticklab atlas: what browsers and machines resolve</title>\
<link rel=\"stylesheet\" href=\"www/style.css\"><link rel=\"icon\" href=\"data:,\"></head>\
<body data-state=\"atlas\"><header><h1>ticklab atlas</h1><p class=\"lede\">What the \
world's browsers and machines resolve, measured, not claimed.</p></header><main>";

const FOOT: &str = "</main><footer><p><a href=\"./\">Run the lab</a> · \
<a href=\"atlas/cells.json\">JSON</a> · <a href=\"atlas/cells.csv\">CSV</a></p></footer></body></html>\n";
