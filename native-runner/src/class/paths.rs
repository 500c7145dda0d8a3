//! The class's routes, named once: the router serves these, and a test holds the pages'
//! scripts (class.js, teacher.js) to them.

/// `POST`: a student's run.
pub const RUNS: &str = "/class/runs";
/// `GET`: the teacher's live view, as Server-Sent Events.
pub const EVENTS: &str = "/class/events";
/// `GET`: the class and every row, as JSON.
pub const ROWS_JSON: &str = "/class/rows.json";
/// `GET`: the Compare matrix of the class's rows, as CSV.
pub const ROWS_CSV: &str = "/class/rows.csv";
/// `GET`: the class's performance.now ticks by engine, as SVG.
pub const PLOT_SVG: &str = "/class/plot.svg";
/// `GET`: the join URL's QR code, as SVG.
pub const JOIN_SVG: &str = "/class/join.svg";
/// `POST`: no more runs.
pub const CLOSE: &str = "/class/close";
/// `POST` `{"student": ID}`: that student's row goes.
pub const REMOVE: &str = "/class/remove";

/// The header of `PLOT_SVG`'s answer that says the plot in words (percent-encoded), the
/// image's text alternative.
pub const ALT_HEADER: &str = "x-ticklab-alt";
/// `GET`: a hub's terms (how long a class is open, how long kept); only a hub answers,
/// which is how the page knows to offer "Start a class".
pub const HUB_TERMS: &str = "/hub/terms";
/// `POST`: a new class on a hub; its code, key and URLs.
pub const HUB_CLASSES: &str = "/hub/classes";
/// `GET`: the atlas's page, its cells as a table (a hub's only).
pub const ATLAS: &str = "/atlas";
/// `GET`: the atlas's shown cells as JSON.
pub const ATLAS_JSON: &str = "/atlas/cells.json";
/// `GET`: the atlas's shown cells as CSV.
pub const ATLAS_CSV: &str = "/atlas/cells.csv";
/// `POST`: a run added to the atlas by whoever made it.
pub const ATLAS_RUNS: &str = "/atlas/runs";
/// `POST`: a closed class's rows added to the atlas by its teacher.
pub const CLASS_ATLAS: &str = "/class/atlas";
/// `GET`: 200 while the process runs (a load balancer's liveness probe).
pub const HEALTHZ: &str = "/healthz";
/// `GET`: 200 when the database answers and the instance is not stopping; 503 otherwise.
pub const READYZ: &str = "/readyz";

#[cfg(test)]
mod tests {
    use super::*;

    /// Every route of a class (the router serves each: tests/class.rs asks for them all).
    /// And a hub's one more, which its teacher's view offers only on a hub.
    const ALL: [&str; 9] = [
        RUNS,
        EVENTS,
        ROWS_JSON,
        ROWS_CSV,
        PLOT_SVG,
        JOIN_SVG,
        CLOSE,
        REMOVE,
        CLASS_ATLAS,
    ];

    /// The paths a script spells: every string literal that starts `class/`, `hub/` or
    /// `atlas/` (the pages ask relative to where they were served).
    fn spelled(script: &str) -> Vec<String> {
        let mut out = Vec::new();
        for quote in ['"', '\'', '`'] {
            for piece in script.split(quote).skip(1).step_by(2) {
                if ["class/", "hub/", "atlas/"]
                    .iter()
                    .any(|p| piece.starts_with(p))
                {
                    out.push(format!("/{piece}"));
                }
            }
        }
        out
    }

    #[test]
    fn the_pages_ask_only_for_routes_the_router_has() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut asked = Vec::new();
        for file in ["www/class.js", "www/teacher.js"] {
            let text = std::fs::read_to_string(root.join(file)).unwrap();
            let found = spelled(&text);
            assert!(!found.is_empty(), "{file} asks for no class route");
            for path in found {
                assert!(
                    ALL.contains(&path.as_str()),
                    "{file} asks for {path}, which no route serves"
                );
                asked.push(path);
            }
        }
        // The runs, the live view, the export, the plot, the QR code, close and remove.
        for used in [RUNS, EVENTS, CLOSE, REMOVE, CLASS_ATLAS] {
            assert!(asked.iter().any(|p| p == used), "no page asks for {used}");
        }
        // The hub's page: its terms, a new class, a run for the atlas.
        let hub = spelled(&std::fs::read_to_string(root.join("www/hub.js")).unwrap());
        for path in &hub {
            assert!(
                [HUB_TERMS, HUB_CLASSES, ATLAS_RUNS].contains(&path.as_str()),
                "www/hub.js asks for {path}, which no route serves"
            );
        }
        for used in [HUB_TERMS, HUB_CLASSES, ATLAS_RUNS] {
            assert!(
                hub.iter().any(|p| p == used),
                "www/hub.js asks not for {used}"
            );
        }
    }

    #[test]
    fn a_misspelt_path_is_caught() {
        let found = spelled(r#"call("class/event", {}); fetch('class/runs')"#);
        assert_eq!(found, ["/class/event", "/class/runs"]);
        assert!(!ALL.contains(&found[0].as_str()));
    }
}
