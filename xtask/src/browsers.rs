//! Headless browsers and their WebDriver servers for the page's tests: found, or installed
//! where this machine allows (apt as root, cargo install), or a message saying how.

use std::path::PathBuf;
use std::process::Command;

/// The WebDriver servers the tests talk to.
pub struct Drivers {
    /// ChromeDriver, for Chromium.
    pub chromedriver: PathBuf,
    /// geckodriver, for Firefox.
    pub geckodriver: PathBuf,
    /// WebKitWebDriver, for WebKitGTK's MiniBrowser (on an Xvfb display).
    pub webkitdriver: PathBuf,
}

impl Drivers {
    /// The driver of `browser`: the tests drive Chromium, Firefox and WebKit.
    pub fn of(&self, browser: ticklab_browser::Browser) -> Result<&PathBuf, String> {
        match browser {
            ticklab_browser::Browser::Chromium => Ok(&self.chromedriver),
            ticklab_browser::Browser::Firefox => Ok(&self.geckodriver),
            ticklab_browser::Browser::WebKit => Ok(&self.webkitdriver),
            other => Err(format!("the tests do not drive {}", other.name())),
        }
    }
}

pub use ticklab_browser::which;

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

const APT: [(&str, &[&str]); 5] = [
    ("chromium", &["chromium", "chromium-browser"]),
    ("chromium-driver", &["chromedriver"]),
    ("firefox-esr", &["firefox", "firefox-esr"]),
    // WebKitGTK's WebDriver brings the engine and its MiniBrowser; GTK needs a display.
    ("webkit2gtk-driver", &["WebKitWebDriver"]),
    ("xvfb", &["Xvfb"]),
];

/// Installs Debian `packages` with apt-get (as root), for `what`; a message saying how when
/// this machine cannot.
pub fn install(what: &str, packages: &[&str]) -> Result<(), String> {
    if packages.is_empty() {
        return Ok(());
    }
    if !(is_root() && which("apt-get").is_some()) {
        return Err(format!(
            "missing for {what}: {}; install them with `sudo apt-get install {}`",
            packages.join(", "),
            packages.join(" ")
        ));
    }
    let apt = |args: &[&str]| -> Result<(), String> {
        eprintln!(
            "\n== [{}] install for {what}: apt-get {}",
            crate::at(),
            args.join(" ")
        );
        let ok = Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .map_err(|e| format!("cannot run apt-get: {e}"))?
            .success();
        if ok {
            Ok(())
        } else {
            Err(format!("apt-get {} failed", args.join(" ")))
        }
    };
    apt(&["update", "-q"])?;
    let mut args = vec!["install", "-y", "-q"];
    args.extend(packages);
    apt(&args)
}

/// The browsers' Debian packages this machine lacks.
pub fn missing() -> Vec<&'static str> {
    APT.iter()
        .filter(|(_, bins)| bins.iter().all(|b| which(b).is_none()))
        .map(|(pkg, _)| *pkg)
        .collect()
}

/// Finds Chromium, Firefox and WebKit and their drivers, installing what is missing.
pub fn ensure() -> Result<Drivers, String> {
    install("the browser tests", &missing())?;
    let chromedriver = which("chromedriver").ok_or("chromedriver is still missing after apt")?;
    let webkitdriver =
        which("WebKitWebDriver").ok_or("WebKitWebDriver is still missing after apt")?;
    ticklab_browser::minibrowser().ok_or("WebKitGTK's MiniBrowser is missing after apt")?;
    let geckodriver = match which("geckodriver") {
        Some(g) => g,
        None => {
            let local = crate::web::tool("geckodriver");
            if !local.is_file() {
                // A relay of WebDriver's commands: built unoptimised, in half the time.
                crate::web::cargo_install("install geckodriver", &["geckodriver", "--debug"])?;
            }
            crate::web::tool("geckodriver")
        }
    };
    Ok(Drivers {
        chromedriver,
        geckodriver,
        webkitdriver,
    })
}
