//! `cargo xtask guide`: the guide (docs/, an mdBook) built into target/guide, and every
//! link in it checked: each relative link and image names a file the build made, each
//! `#fragment` an id in its page. Links to other sites are counted, not fetched (no
//! network is promised). mdBook is installed, pinned, when missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::web::tool;

/// The mdBook the guide is built with.
const MDBOOK: &str = "0.5.2";

/// mdBook at [`MDBOOK`], installed with cargo when missing or another version (without
/// its server and file watcher, which the build does not use).
pub fn ensure_mdbook() -> Result<PathBuf, String> {
    let bin = tool("mdbook");
    let have = Command::new(&bin)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if have.as_deref() != Some(&format!("mdbook v{MDBOOK}")) {
        crate::web::cargo_install(
            "install mdBook",
            &[
                "mdbook",
                // The guide is thirty pages: built unoptimised, in half the time.
                "--debug",
                "--locked",
                "--version",
                MDBOOK,
                "--no-default-features",
                "--features",
                "search",
            ],
        )?;
    }
    Ok(tool("mdbook"))
}

/// Builds the guide and checks its links; where it is.
pub fn build() -> Result<PathBuf, String> {
    let root = crate::workspace_root();
    let mdbook = ensure_mdbook()?;
    let docs = root.join("docs");
    let out = crate::web::target_dir(&root).join("guide");
    crate::step(
        "build the guide (mdBook)",
        &mdbook.to_string_lossy(),
        &[
            "build",
            &docs.to_string_lossy(),
            "--dest-dir",
            &out.to_string_lossy(),
        ],
    )?;
    let (checked, external, broken) = check_links(&out)?;
    if !broken.is_empty() {
        return Err(format!(
            "the guide has {} broken links:\n  {}",
            broken.len(),
            broken.join("\n  ")
        ));
    }
    println!(
        "the guide: {checked} links to its own pages and files checked, none broken; \
         {external} links to other sites not fetched; in {}",
        out.display()
    );
    Ok(out)
}

/// Every `.html` file under `dir`.
fn pages(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let p = e.map_err(|e| e.to_string())?.path();
        if p.is_dir() {
            pages(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "html") {
            out.push(p);
        }
    }
    Ok(())
}

/// The values of every `href="…"` and `src="…"` in `html`.
pub fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in [" href=\"", " src=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            rest = &rest[i + attr.len()..];
            if let Some(j) = rest.find('"') {
                out.push(rest[..j].replace("&amp;", "&"));
                rest = &rest[j..];
            }
        }
    }
    out
}

/// `%20` and the like, decoded.
fn decoded(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Checks every link of every page under `site`: (links checked, links elsewhere, the
/// broken ones, each with its page).
pub fn check_links(site: &Path) -> Result<(usize, usize, Vec<String>), String> {
    let mut all = Vec::new();
    pages(site, &mut all)?;
    let (mut checked, mut external, mut broken) = (0, 0, Vec::new());
    for page in &all {
        // mdBook's page for a missing address links from the site's root, which a file
        // on disk has not.
        if page.file_name().is_some_and(|n| n == "404.html") {
            continue;
        }
        let html = std::fs::read_to_string(page).map_err(|e| format!("{}: {e}", page.display()))?;
        let here = page.parent().unwrap_or(site);
        for link in links(&html) {
            let l = link.as_str();
            if l.starts_with("http://") || l.starts_with("https://") || l.starts_with("//") {
                external += 1;
                continue;
            }
            if l.starts_with("mailto:")
                || l.starts_with("data:")
                || l.starts_with("javascript:")
                || l.is_empty()
            {
                continue;
            }
            checked += 1;
            let (path, fragment) = l.split_once('#').unwrap_or((l, ""));
            let path = path.split('?').next().unwrap_or("");
            let target = if path.is_empty() {
                page.clone()
            } else {
                let t = here.join(decoded(path));
                if path.ends_with('/') {
                    t.join("index.html")
                } else {
                    t
                }
            };
            let name = page
                .strip_prefix(site)
                .unwrap_or(page)
                .display()
                .to_string();
            if !target.is_file() {
                broken.push(format!("{name}: {link} (no such file)"));
                continue;
            }
            if !fragment.is_empty() && target.extension().is_some_and(|x| x == "html") {
                let text = std::fs::read_to_string(&target).unwrap_or_default();
                let id = decoded(fragment);
                if !text.contains(&format!("id=\"{id}\"")) {
                    broken.push(format!("{name}: {link} (no id '{id}' there)"));
                }
            }
        }
    }
    Ok((checked, external, broken))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_page_and_a_missing_anchor_are_caught() {
        let dir = tempfile_dir();
        std::fs::write(dir.join("a.html"), r#"<a href="b.html#there">b</a> <a href="c.html">c</a> <img src="x%20y.png"> <a href="https://example.org/">e</a>"#).unwrap();
        std::fs::write(dir.join("b.html"), r#"<h1 id="here">b</h1>"#).unwrap();
        std::fs::write(dir.join("x y.png"), "").unwrap();
        let (checked, external, broken) = check_links(&dir).unwrap();
        assert_eq!((checked, external), (3, 1));
        assert_eq!(broken.len(), 2, "{broken:?}");
        assert!(
            broken[0].contains("no id 'there'") && broken[1].contains("c.html"),
            "{broken:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("ticklab-guide-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}
