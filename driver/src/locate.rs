//! Where each system puts the browsers and their WebDriver servers. Browsers are looked
//! for where their installers put them (Windows' Program Files and the user's AppData,
//! macOS's Applications folders) and on PATH; WebDriver servers on PATH, as their
//! documentation asks. The places are data, so a test can lay out a made-up machine of
//! any system and look in it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::Browser;

/// An operating system, for where it installs programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Os {
    Linux,
    Windows,
    MacOs,
}

impl Os {
    /// The system this program was built for.
    pub const THIS: Os = if cfg!(windows) {
        Os::Windows
    } else if cfg!(target_os = "macos") {
        Os::MacOs
    } else {
        Os::Linux
    };

    /// A program's file name on this system (`chromedriver.exe` on Windows).
    pub fn program(self, name: &str) -> String {
        match self {
            Os::Windows => format!("{name}.exe"),
            Os::Linux | Os::MacOs => name.to_string(),
        }
    }
}

/// A browser's binary inside an install folder, as path components.
type Install = &'static [&'static str];

/// Where the installers put each browser, under the system's install folders ([`Places`]'
/// `roots`), in the order they are preferred.
fn installs(os: Os, b: Browser) -> &'static [Install] {
    match (os, b) {
        // Google's installer: per machine in Program Files, per user in LOCALAPPDATA; the
        // Chromium snapshots' mini_installer into LOCALAPPDATA\Chromium.
        (Os::Windows, Browser::Chromium) => &[
            &["Google", "Chrome", "Application", "chrome.exe"],
            &["Chromium", "Application", "chrome.exe"],
        ],
        // Edge comes with Windows, in Program Files (x86) even on 64-bit Windows.
        (Os::Windows, Browser::Edge) => &[&["Microsoft", "Edge", "Application", "msedge.exe"]],
        (Os::Windows, Browser::Firefox) => &[&["Mozilla Firefox", "firefox.exe"]],
        (Os::MacOs, Browser::Chromium) => &[
            &["Google Chrome.app", "Contents", "MacOS", "Google Chrome"],
            &["Chromium.app", "Contents", "MacOS", "Chromium"],
        ],
        (Os::MacOs, Browser::Edge) => {
            &[&["Microsoft Edge.app", "Contents", "MacOS", "Microsoft Edge"]]
        }
        (Os::MacOs, Browser::Firefox) => &[&["Firefox.app", "Contents", "MacOS", "firefox"]],
        (Os::MacOs, Browser::Safari) => &[&["Safari.app", "Contents", "MacOS", "Safari"]],
        _ => &[],
    }
}

/// The browser's programs on PATH, where a system's packages put them there.
fn on_path(os: Os, b: Browser) -> &'static [&'static str] {
    match (os, b) {
        (Os::Linux, Browser::Chromium) => &[
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
        ],
        (Os::Linux, Browser::Firefox) => &["firefox", "firefox-esr"],
        (Os::Linux, Browser::Edge) => &["microsoft-edge", "microsoft-edge-stable"],
        // Homebrew's and MacPorts' shims, or a build of one's own.
        (Os::MacOs, Browser::Firefox) => &["firefox"],
        _ => &[],
    }
}

/// The places one machine's programs are looked for.
#[derive(Clone, Debug)]
pub struct Places {
    /// Its system.
    pub os: Os,
    /// The folders of PATH, in order.
    pub path: Vec<PathBuf>,
    /// The folders installers put browsers in: on Windows %ProgramFiles%,
    /// %ProgramFiles(x86)% and %LOCALAPPDATA%; on macOS /Applications and ~/Applications;
    /// on Linux the library folders where WebKitGTK keeps its MiniBrowser.
    pub roots: Vec<PathBuf>,
}

impl Places {
    /// This machine's places, from its environment.
    pub fn this_machine() -> Places {
        let var = |v: &str| {
            std::env::var_os(v)
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
        };
        let path = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        let roots = match Os::THIS {
            Os::Windows => ["ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA"]
                .iter()
                .filter_map(|v| var(v))
                .collect(),
            Os::MacOs => std::iter::once(PathBuf::from("/Applications"))
                .chain(var("HOME").map(|h| h.join("Applications")))
                .collect(),
            Os::Linux => vec![PathBuf::from("/usr/lib")],
        };
        Places {
            os: Os::THIS,
            path,
            roots,
        }
    }

    /// A program on PATH (`name.exe` on Windows).
    pub fn program(&self, name: &str) -> Option<PathBuf> {
        let file = OsString::from(self.os.program(name));
        self.path
            .iter()
            .map(|d| d.join(&file))
            .find(|p| p.is_file())
    }

    /// The browser's own binary (for WebKit, the MiniBrowser WebKitWebDriver starts).
    pub fn browser(&self, b: Browser) -> Option<PathBuf> {
        if b == Browser::WebKit {
            return self.minibrowser();
        }
        let installed = self.roots.iter().find_map(|root| {
            installs(self.os, b)
                .iter()
                .map(|parts| parts.iter().fold(root.clone(), |p, c| p.join(c)))
                .find(|p| p.is_file())
        });
        installed.or_else(|| on_path(self.os, b).iter().find_map(|n| self.program(n)))
    }

    /// The engine's WebDriver server.
    pub fn driver(&self, b: Browser) -> Option<PathBuf> {
        self.program(b.driver_program())
    }

    /// WebKitGTK's MiniBrowser, beside the engine's libraries in the folder of its API
    /// version (the newest: webkit2gtk-4.1 over 4.0). Linux only.
    fn minibrowser(&self) -> Option<PathBuf> {
        if self.os != Os::Linux {
            return None;
        }
        let mut found: Vec<PathBuf> = self
            .roots
            .iter()
            .flat_map(|root| std::fs::read_dir(root).into_iter().flatten().flatten())
            .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
            .map(|d| d.path().join("MiniBrowser"))
            .filter(|p| p.is_file() && in_webkitgtk(p))
            .collect();
        found.sort();
        found.pop()
    }

    /// Where `b` would be looked for, said when it is missing.
    pub fn where_looked(&self, b: Browser) -> String {
        let mut places: Vec<String> = Vec::new();
        for root in &self.roots {
            for parts in installs(self.os, b) {
                let p = parts.iter().fold(root.clone(), |p, c| p.join(c));
                places.push(p.display().to_string());
            }
        }
        let names: Vec<String> = on_path(self.os, b)
            .iter()
            .map(|n| self.os.program(n))
            .collect();
        if !names.is_empty() {
            places.push(format!("{} on PATH", names.join(" or ")));
        }
        places.join(", ")
    }
}

fn in_webkitgtk(p: &Path) -> bool {
    p.parent()
        .and_then(|d| d.file_name())
        .is_some_and(|n| n.to_string_lossy().starts_with("webkit2gtk-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A made-up machine: `files` (relative to a fresh folder) are created; the places'
    /// folders are given relative to it too.
    struct Made {
        dir: PathBuf,
    }

    impl Made {
        fn new(tag: &str, files: &[&str]) -> Made {
            let dir =
                std::env::temp_dir().join(format!("ticklab-locate-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            for f in files {
                let p = f.split('/').fold(dir.clone(), |p, c| p.join(c));
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, b"").unwrap();
            }
            Made { dir }
        }

        fn places(&self, os: Os, path: &[&str], roots: &[&str]) -> Places {
            let at = |s: &&str| s.split('/').fold(self.dir.clone(), |p, c| p.join(c));
            Places {
                os,
                path: path.iter().map(at).collect(),
                roots: roots.iter().map(at).collect(),
            }
        }

        fn at(&self, f: &str) -> PathBuf {
            f.split('/').fold(self.dir.clone(), |p, c| p.join(c))
        }
    }

    impl Drop for Made {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    const PROGRAM_FILES: &str = "Program Files";
    const PROGRAM_FILES_X86: &str = "Program Files (x86)";
    const LOCAL: &str = "Users/ada/AppData/Local";

    /// Windows: Chrome per machine, Edge in Program Files (x86), Firefox per user; the
    /// drivers as .exe on PATH. Safari and WebKitGTK are not Windows programs.
    #[test]
    fn windows_finds_chrome_edge_and_firefox_where_their_installers_put_them() {
        let m = Made::new(
            "windows",
            &[
                "Program Files/Google/Chrome/Application/chrome.exe",
                "Program Files (x86)/Microsoft/Edge/Application/msedge.exe",
                "Users/ada/AppData/Local/Mozilla Firefox/firefox.exe",
                "tools/chromedriver.exe",
                "tools/msedgedriver.exe",
                "cargo/bin/geckodriver.exe",
                // Without .exe, a Windows PATH lookup does not take it.
                "tools/safaridriver",
            ],
        );
        let p = m.places(
            Os::Windows,
            &["Windows/System32", "tools", "cargo/bin"],
            &[PROGRAM_FILES, PROGRAM_FILES_X86, LOCAL],
        );
        let want = |b, f: &str| assert_eq!(p.browser(b), Some(m.at(f)), "{b:?}");
        want(
            Browser::Chromium,
            "Program Files/Google/Chrome/Application/chrome.exe",
        );
        want(
            Browser::Edge,
            "Program Files (x86)/Microsoft/Edge/Application/msedge.exe",
        );
        want(
            Browser::Firefox,
            "Users/ada/AppData/Local/Mozilla Firefox/firefox.exe",
        );
        assert_eq!(p.browser(Browser::Safari), None);
        assert_eq!(p.browser(Browser::WebKit), None);
        assert_eq!(
            p.driver(Browser::Chromium),
            Some(m.at("tools/chromedriver.exe"))
        );
        assert_eq!(
            p.driver(Browser::Edge),
            Some(m.at("tools/msedgedriver.exe"))
        );
        assert_eq!(
            p.driver(Browser::Firefox),
            Some(m.at("cargo/bin/geckodriver.exe"))
        );
        assert_eq!(p.driver(Browser::Safari), None);
    }

    /// A per-user Chrome (LOCALAPPDATA) is found too; the per-machine one is preferred
    /// when both are there; a missing one says where it was looked for.
    #[test]
    fn windows_prefers_the_machine_wide_install_and_says_where_it_looked() {
        let m = Made::new(
            "windows-user",
            &["Users/ada/AppData/Local/Google/Chrome/Application/chrome.exe"],
        );
        let p = m.places(Os::Windows, &[], &[PROGRAM_FILES, PROGRAM_FILES_X86, LOCAL]);
        assert_eq!(
            p.browser(Browser::Chromium),
            Some(m.at("Users/ada/AppData/Local/Google/Chrome/Application/chrome.exe"))
        );
        let both = Made::new(
            "windows-both",
            &[
                "Users/ada/AppData/Local/Google/Chrome/Application/chrome.exe",
                "Program Files/Google/Chrome/Application/chrome.exe",
            ],
        );
        let p = both.places(Os::Windows, &[], &[PROGRAM_FILES, PROGRAM_FILES_X86, LOCAL]);
        assert_eq!(
            p.browser(Browser::Chromium),
            Some(both.at("Program Files/Google/Chrome/Application/chrome.exe"))
        );
        let looked = p.where_looked(Browser::Firefox);
        assert!(looked.contains("Mozilla Firefox"), "{looked}");
        assert_eq!(p.browser(Browser::Firefox), None);
    }

    /// macOS: Safari in /Applications with safaridriver in /usr/bin (both come with the
    /// system), Chrome in the user's own Applications, chromedriver from Homebrew.
    #[test]
    fn macos_finds_safari_and_chrome_in_the_applications_folders() {
        let m = Made::new(
            "macos",
            &[
                "Applications/Safari.app/Contents/MacOS/Safari",
                "usr/bin/safaridriver",
                "Users/ada/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
                "opt/homebrew/bin/chromedriver",
                "Applications/Firefox.app/Contents/MacOS/firefox",
            ],
        );
        let p = m.places(
            Os::MacOs,
            &["opt/homebrew/bin", "usr/bin", "bin"],
            &["Applications", "Users/ada/Applications"],
        );
        assert_eq!(
            p.browser(Browser::Safari),
            Some(m.at("Applications/Safari.app/Contents/MacOS/Safari"))
        );
        assert_eq!(
            p.driver(Browser::Safari),
            Some(m.at("usr/bin/safaridriver"))
        );
        assert_eq!(
            p.browser(Browser::Chromium),
            Some(m.at("Users/ada/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"))
        );
        assert_eq!(
            p.driver(Browser::Chromium),
            Some(m.at("opt/homebrew/bin/chromedriver"))
        );
        assert_eq!(
            p.browser(Browser::Firefox),
            Some(m.at("Applications/Firefox.app/Contents/MacOS/firefox"))
        );
        // Firefox is there, geckodriver is not; Edge is not installed.
        assert_eq!(p.driver(Browser::Firefox), None);
        assert_eq!(p.browser(Browser::Edge), None);
        assert_eq!(p.browser(Browser::WebKit), None);
    }

    /// Linux: the packages' names on PATH, and the newest WebKitGTK's MiniBrowser.
    #[test]
    fn linux_finds_packaged_browsers_on_path_and_the_newest_minibrowser() {
        let m = Made::new(
            "linux",
            &[
                "usr/bin/chromium",
                "usr/bin/firefox-esr",
                "usr/bin/chromedriver",
                "usr/lib/x86_64-linux-gnu/webkit2gtk-4.0/MiniBrowser",
                "usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
                "usr/lib/x86_64-linux-gnu/other/MiniBrowser",
            ],
        );
        let p = m.places(Os::Linux, &["usr/bin"], &["usr/lib"]);
        assert_eq!(p.browser(Browser::Chromium), Some(m.at("usr/bin/chromium")));
        assert_eq!(
            p.browser(Browser::Firefox),
            Some(m.at("usr/bin/firefox-esr"))
        );
        assert_eq!(
            p.browser(Browser::WebKit),
            Some(m.at("usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"))
        );
        assert_eq!(p.browser(Browser::Safari), None);
        assert_eq!(
            p.driver(Browser::Chromium),
            Some(m.at("usr/bin/chromedriver"))
        );
        // A Windows program's name is not taken on Linux.
        assert_eq!(Os::Linux.program("chromedriver"), "chromedriver");
        assert_eq!(Os::Windows.program("chromedriver"), "chromedriver.exe");
    }
}
