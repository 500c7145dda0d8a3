//! Headless browsers and their WebDriver servers for the page's tests: found, or installed
//! where this machine allows (apt as root, cargo install), or a message saying how.

use std::path::PathBuf;
use std::process::Command;

use crate::step;

/// The WebDriver servers the tests talk to.
pub struct Drivers {
    /// ChromeDriver, for Chromium.
    pub chromedriver: PathBuf,
    /// geckodriver, for Firefox.
    pub geckodriver: PathBuf,
}

pub use ticklab_browser::which;

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

const APT: [(&str, &[&str]); 3] = [
    ("chromium", &["chromium", "chromium-browser"]),
    ("chromium-driver", &["chromedriver"]),
    ("firefox-esr", &["firefox", "firefox-esr"]),
];

/// Finds Chromium, ChromeDriver, Firefox and geckodriver, installing what is missing.
pub fn ensure() -> Result<Drivers, String> {
    let missing: Vec<&str> = APT
        .iter()
        .filter(|(_, bins)| bins.iter().all(|b| which(b).is_none()))
        .map(|(pkg, _)| *pkg)
        .collect();
    if !missing.is_empty() {
        if !(is_root() && which("apt-get").is_some()) {
            return Err(format!(
                "missing for the browser tests: {}; install them with \
                 `sudo apt-get install {}` (or your system's Chromium, ChromeDriver and Firefox)",
                missing.join(", "),
                missing.join(" ")
            ));
        }
        let apt = |args: &[&str]| -> Result<(), String> {
            eprintln!("\n== install browsers: apt-get {}", args.join(" "));
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
        args.extend(&missing);
        apt(&args)?;
    }
    let chromedriver = which("chromedriver").ok_or("chromedriver is still missing after apt")?;
    let geckodriver = match which("geckodriver") {
        Some(g) => g,
        None => {
            let local = crate::web::tool("geckodriver");
            if !local.is_file() {
                let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
                step("install geckodriver", &cargo, &["install", "geckodriver"])?;
            }
            crate::web::tool("geckodriver")
        }
    };
    Ok(Drivers {
        chromedriver,
        geckodriver,
    })
}
