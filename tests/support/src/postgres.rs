//! A throwaway PostgreSQL cluster for a test: `initdb` into a temporary directory, the
//! server on 127.0.0.1 at a free port (its socket in that directory), run as `nobody`
//! when the test runs as root (PostgreSQL refuses root). Never the machine's own cluster;
//! stopped and deleted when dropped. Debian's `postgresql` package provides the programs
//! (`cargo xtask test` installs it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The user the cluster runs as when the tests run as root.
const NOBODY: u32 = 65534;

/// A running cluster.
pub struct Cluster {
    bin: PathBuf,
    dir: tempfile::TempDir,
    /// Its port on 127.0.0.1.
    pub port: u16,
}

/// Where PostgreSQL's server programs are: `TICKLAB_PG_BIN`, Debian's newest
/// /usr/lib/postgresql/N/bin, or the PATH.
fn bin_dir() -> Result<PathBuf, String> {
    if let Some(d) = std::env::var_os("TICKLAB_PG_BIN") {
        return Ok(PathBuf::from(d));
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    found.sort();
    if let Some((_, bin)) = found.pop() {
        return Ok(bin);
    }
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .find(|d| d.join("initdb").exists());
    on_path.ok_or_else(|| {
        "no PostgreSQL server programs (initdb) in /usr/lib/postgresql/*/bin or on the PATH: \
         `cargo xtask test` installs Debian's postgresql package (apt-get install postgresql)"
            .into()
    })
}

fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(l.local_addr().map_err(|e| e.to_string())?.port())
}

fn as_root() -> bool {
    // Safe: no arguments, no failure.
    unsafe { libc::geteuid() == 0 }
}

impl Cluster {
    /// Makes and starts a cluster.
    pub fn start() -> Result<Self, String> {
        let bin = bin_dir()?;
        let dir = tempfile::Builder::new()
            .prefix("ticklab-pg-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        if as_root() {
            let c = std::ffi::CString::new(dir.path().as_os_str().as_encoded_bytes())
                .map_err(|e| e.to_string())?;
            // Safe: a valid path; the directory is ours.
            if unsafe { libc::chown(c.as_ptr(), NOBODY, NOBODY) } != 0 {
                return Err(format!(
                    "cannot give {} to nobody: {}",
                    dir.path().display(),
                    std::io::Error::last_os_error()
                ));
            }
        }
        let cluster = Cluster {
            bin,
            dir,
            port: free_port()?,
        };
        let data = cluster.data();
        cluster.run(
            "initdb",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-U".as_ref(),
                "ticklab".as_ref(),
                "--auth=trust".as_ref(),
                "-E".as_ref(),
                "UTF8".as_ref(),
                "--locale=C".as_ref(),
                // The cluster is thrown away: its files need not reach the disk at initdb.
                "--no-sync".as_ref(),
            ],
        )?;
        cluster.up()?;
        Ok(cluster)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The directory the cluster lives in.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Its URL, for `ticklab hub --database-url`.
    pub fn url(&self) -> String {
        format!("postgres://ticklab@127.0.0.1:{}/postgres", self.port)
    }

    fn run(&self, program: &str, args: &[&std::ffi::OsStr]) -> Result<Output, String> {
        let mut c = Command::new(self.bin.join(program));
        c.args(args).env("LC_ALL", "C").current_dir(self.dir.path());
        if as_root() {
            use std::os::unix::process::CommandExt;
            c.uid(NOBODY).gid(NOBODY);
        }
        let out = c
            .output()
            .map_err(|e| format!("cannot run {program}: {e}"))?;
        if out.status.success() {
            Ok(out)
        } else {
            Err(format!(
                "{program} failed ({}): {}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    }

    /// Starts the server (again), waiting until it takes connections.
    pub fn up(&self) -> Result<(), String> {
        let data = self.data();
        let log = self.dir.path().join("server.log");
        let options = format!(
            "-c listen_addresses=127.0.0.1 -p {} -c unix_socket_directories={} \
             -c max_connections=300 -c shared_buffers=64MB",
            self.port,
            self.dir.path().display()
        );
        self.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-l".as_ref(),
                log.as_os_str(),
                "-o".as_ref(),
                options.as_ref(),
                "-w".as_ref(),
                "-t".as_ref(),
                "60".as_ref(),
                "start".as_ref(),
            ],
        )
        .map(|_| ())
        .map_err(|e| format!("{e}\nserver log:\n{}", self.log()))
    }

    /// Stops the server at once, as a crash would (`pg_ctl stop -m immediate`: no
    /// checkpoint; the next start recovers from the WAL).
    pub fn crash(&self) -> Result<(), String> {
        let data = self.data();
        self.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-m".as_ref(),
                "immediate".as_ref(),
                "-w".as_ref(),
                "stop".as_ref(),
            ],
        )
        .map(|_| ())
    }

    /// What the server logged.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    /// Runs `sql` through psql; what it printed (unaligned, tuples only).
    pub fn psql(&self, sql: &str) -> Result<String, String> {
        let psql = {
            let beside = self.bin.join("psql");
            if beside.exists() {
                beside
            } else {
                PathBuf::from("psql")
            }
        };
        let out = Command::new(psql)
            .args([
                "-X",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                &self.url(),
                "-c",
                sql,
            ])
            .output()
            .map_err(|e| format!("cannot run psql: {e}"))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.crash();
    }
}
