//! The deployment files (deploy/compose.yaml and its Caddyfile) run the hub with flags it
//! takes, and docker compose reads them where it is installed.

use super::common;
use super::common::BIN;

/// The deployment (Dockerfile, deploy/compose.yaml, deploy/Caddyfile) runs what the hub
/// takes: `docker compose config` passes where Docker's compose is installed; either way,
/// read here, the compose file has the database, two hubs sharing it and nothing else, and
/// the proxy in front; every variable it gives a hub is one `ticklab hub` reads; the proxy
/// balances both on /readyz; the image is multi-stage, of the pinned toolchain, not root.
#[test]
fn the_deployment_files_run_what_the_hub_takes() {
    use yaml_rust2::{Yaml, YamlLoader};
    let root = common::workspace();
    let compose_path = root.join("deploy/compose.yaml");
    let compose_text = std::fs::read_to_string(&compose_path).unwrap();
    let docker = std::process::Command::new("docker")
        .args(["compose", "version"])
        .output();
    if docker.is_ok_and(|o| o.status.success()) {
        let out = std::process::Command::new("docker")
            .args(["compose", "-f"])
            .arg(&compose_path)
            .args(["config", "--quiet"])
            .env("TICKLAB_DOMAIN", "hub.example.org")
            .env("POSTGRES_PASSWORD", "x")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    } else {
        eprintln!("no `docker compose` here: the compose file is checked by reading it");
    }
    let doc = YamlLoader::load_from_str(&compose_text).unwrap().remove(0);
    let services = &doc["services"];
    let names: Vec<&str> = services
        .as_hash()
        .unwrap()
        .keys()
        .filter_map(Yaml::as_str)
        .collect();
    assert_eq!(names, ["db", "hub-a", "hub-b", "proxy"]);
    let help = std::process::Command::new(BIN)
        .args(["hub", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout).to_string();
    for hub in ["hub-a", "hub-b"] {
        let s = &services[hub];
        let env = s["environment"]
            .as_hash()
            .unwrap_or_else(|| panic!("{hub}: no environment"));
        assert!(env.len() >= 3, "{hub}");
        for (k, v) in env {
            let k = k.as_str().unwrap();
            if k != "RUST_LOG" {
                assert!(
                    help.contains(&format!("[env: {k}")),
                    "{hub}: `ticklab hub` reads no {k}"
                );
            }
            if k == "DATABASE_URL" {
                assert!(v.as_str().unwrap().contains("@db:5432/"), "{hub}: {v:?}");
            }
        }
        assert!(
            !s["depends_on"]["db"].is_badvalue(),
            "{hub} waits for no database"
        );
        assert!(
            s["ports"].is_badvalue(),
            "{hub} is reached only through the proxy"
        );
        assert!(
            s["volumes"].is_badvalue(),
            "{hub} keeps nothing but in the database"
        );
    }
    let proxy_ports: Vec<&str> = services["proxy"]["ports"]
        .as_vec()
        .unwrap()
        .iter()
        .filter_map(Yaml::as_str)
        .collect();
    assert!(proxy_ports.contains(&"443:443"), "{proxy_ports:?}");
    let caddy = std::fs::read_to_string(root.join("deploy/Caddyfile")).unwrap();
    let balanced = caddy
        .lines()
        .find(|l| l.trim_start().starts_with("reverse_proxy"))
        .unwrap();
    assert!(
        balanced.contains("hub-a:8080") && balanced.contains("hub-b:8080"),
        "{balanced}"
    );
    assert!(caddy.contains("health_uri /readyz"), "{caddy}");
    assert!(
        !caddy.lines().any(|l| l.trim_start().starts_with("encode")),
        "the page is served uncompressed"
    );
    let dockerfile = std::fs::read_to_string(root.join("Dockerfile")).unwrap();
    let stages = dockerfile
        .lines()
        .filter(|l| l.starts_with("FROM "))
        .count();
    assert!(stages >= 2, "one stage");
    let toolchain = std::fs::read_to_string(root.join("rust-toolchain.toml")).unwrap();
    let channel = toolchain
        .lines()
        .find_map(|l| l.strip_prefix("channel = "))
        .unwrap()
        .trim_matches('"');
    assert!(
        dockerfile.contains(&format!("FROM rust:{channel}-")),
        "the image's Rust is not {channel}"
    );
    let user = dockerfile
        .lines()
        .rfind(|l| l.starts_with("USER "))
        .expect("no USER");
    assert!(!user.contains("root") && !user.contains(" 0"), "{user}");
    assert!(
        dockerfile.contains("cargo xtask web"),
        "the image's binary would carry no page"
    );
    assert!(dockerfile.contains(r#"ENTRYPOINT ["/usr/local/bin/ticklab", "hub"]"#));
}
