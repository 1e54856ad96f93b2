//! [`PostgresServer`]: a throwaway PostgreSQL server for tests of the PostgreSQL stores.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::Certificates;
use crate::launched::{Launched, Scratch, Service, free_port, or_skip};
use crate::run_as::RunAs;

/// A PostgreSQL server of its own: a fresh cluster in a temporary folder, on a free loopback port,
/// stopped and deleted when dropped. For tests of
/// host-runtime's `PostgresDedupe`, `PostgresOutbox` or a store of your own,
/// against a real server.
///
/// It runs the `initdb` and `postgres` found on `PATH`, or else the newest under
/// `/usr/lib/postgresql/*/bin` (Debian's and Ubuntu's `postgresql` package). PostgreSQL refuses to
/// run as root: started by root, the server runs as the `postgres` user (or `nobody`). `fsync` is
/// off (a killed server loses nothing: only a crash of the machine would), everything else is
/// PostgreSQL's default; [`start_with`](Self::start_with) sets more.
///
/// ```no_run
/// # async fn test() {
/// use host_test_support::PostgresServer;
/// let Some(postgres) = PostgresServer::start_or_skip() else { return };
/// let url = postgres.url(); // postgres://postgres@127.0.0.1:<port>/postgres
/// # let _ = url;
/// # }
/// ```
pub type PostgresServer = Launched<Postgres>;

/// What is particular to a [`PostgresServer`]: the installation it runs, its settings, and who
/// runs it.
#[derive(Debug)]
pub struct Postgres {
    bin: PathBuf,
    settings: Vec<(String, String)>,
    run_as: RunAs,
}

impl Service for Postgres {
    const NAME: &'static str = "postgres";
    const STARTUP: Duration = Duration::from_secs(30);

    fn command(&self, port: u16, dir: &Path) -> io::Result<Command> {
        let mut postgres = self.run_as.command(&self.bin.join("postgres"));
        postgres
            .arg("-D")
            .arg(dir.join("data"))
            .args(["-p", &port.to_string()])
            .args(["-c", "listen_addresses=127.0.0.1"])
            .args(["-c", "unix_socket_directories="])
            .args(["-c", "fsync=off"]);
        for (name, value) in &self.settings {
            postgres.args(["-c", &format!("{name}={value}")]);
        }
        Ok(postgres)
    }

    /// Once `pg_isready` says it accepts connections: PostgreSQL listens before it has
    /// recovered.
    fn ready(&self, port: u16) -> io::Result<bool> {
        let port = port.to_string();
        let ready = run(Command::new(self.bin.join("pg_isready")).args([
            "-q",
            "-h",
            "127.0.0.1",
            "-p",
            &port,
        ]))?;
        Ok(ready.status.success())
    }

    /// An immediate shutdown (`SIGQUIT`), as a crash would stop it; `SIGKILL` when that fails.
    fn kill(&self, child: &mut Child) {
        let quit = Command::new("kill")
            .args(["-QUIT", &child.id().to_string()])
            .status();
        if !quit.is_ok_and(|s| s.success()) {
            let _ = child.kill();
        }
    }
}

impl PostgresServer {
    /// Makes a cluster and starts it on a free loopback port; waits until it accepts connections.
    /// Fails when PostgreSQL is not installed or does not come up within 30 s.
    pub fn start() -> io::Result<Self> {
        Self::start_with(&[])
    }

    /// [`start`](Self::start), with more settings (`("max_connections", "200")`, `("fsync",
    /// "on")`), each passed as `-c name=value`.
    pub fn start_with(settings: &[(&str, &str)]) -> io::Result<Self> {
        Self::make(settings, None, false)
    }

    /// [`start_with`](Self::start_with) with TLS on (`ssl=on`), serving `certificate_pem` (the
    /// chain, leaf first) with `key_pem`. With `tls_only`, connections without TLS are refused, as
    /// managed databases that force TLS refuse them (`hostnossl ... reject`).
    pub fn start_with_tls(
        settings: &[(&str, &str)],
        certificate_pem: &str,
        key_pem: &str,
        tls_only: bool,
    ) -> io::Result<Self> {
        let tls = Tls {
            certificate_pem,
            key_pem,
            tls_only,
        };
        Self::make(settings, Some(tls), false)
    }

    /// A server as a managed database runs it: TLS only, with a certificate for `localhost` from
    /// a CA made here (written to `dir/ca.pem`), and the URL a client verifying it uses
    /// (`sslmode=verify-full`, `sslrootcert`).
    pub fn start_verified_tls(
        settings: &[(&str, &str)],
        dir: &Path,
    ) -> io::Result<(PostgresServer, String)> {
        let certificates = Certificates::for_names(&["localhost"])?;
        let ca_file = dir.join("ca.pem");
        std::fs::write(&ca_file, &certificates.ca_pem)?;
        let server = PostgresServer::start_with_tls(
            settings,
            &certificates.server_pem,
            &certificates.server_key_pem,
            true,
        )?;
        let url = format!(
            "postgres://postgres@localhost:{}/postgres?sslmode=verify-full&sslrootcert={}",
            server.port(),
            ca_file.display()
        );
        Ok((server, url))
    }

    /// [`start_with`](Self::start_with), where every role but `postgres` signs in with its
    /// password (SCRAM), as managed databases ask: for tests of credentials that change.
    /// `postgres` still connects without one.
    pub fn start_with_passwords(settings: &[(&str, &str)]) -> io::Result<Self> {
        Self::make(settings, None, true)
    }

    fn make(settings: &[(&str, &str)], tls: Option<Tls<'_>>, passwords: bool) -> io::Result<Self> {
        let bin = binaries()?;
        let run_as = RunAs::unprivileged()?;
        let dir = Scratch::new(Postgres::NAME)?;
        run_as.own(dir.path())?;
        let data = dir.path().join("data");
        let initdb = run(run_as
            .command(&bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args(["-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"])
            .args(["--locale", "C"]))?;
        if !initdb.status.success() {
            return Err(io::Error::other(format!(
                "initdb failed: {}",
                String::from_utf8_lossy(&initdb.stderr).trim()
            )));
        }
        let mut settings: Vec<(String, String)> = settings
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        if let Some(tls) = tls {
            settings.extend(tls.install(&data, run_as)?);
        }
        if passwords {
            let hba = data.join("pg_hba.conf");
            std::fs::write(
                &hba,
                "host all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n",
            )?;
            run_as.own(&hba)?;
            settings.push(("password_encryption".to_owned(), "scram-sha-256".to_owned()));
        }
        let postgres = Postgres {
            bin,
            settings,
            run_as,
        };
        Self::launch(postgres, free_port()?, dir)
    }

    /// [`start`](Self::start), or skipped where PostgreSQL is not installed (see [`Launched`]).
    ///
    /// # Panics
    ///
    /// When the environment variable `CI` is set and the server cannot be started.
    pub fn start_or_skip() -> Option<Self> {
        or_skip(Self::start())
    }

    /// `postgres://postgres@127.0.0.1:<port>/postgres`.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port())
    }

    /// A client program of the same PostgreSQL installation as the server (`pgbench`, `psql`):
    /// its path, to run against [`url`](Self::url).
    pub fn tool(&self, name: &str) -> PathBuf {
        self.service().bin.join(name)
    }
}

/// What a server with TLS serves.
struct Tls<'a> {
    certificate_pem: &'a str,
    key_pem: &'a str,
    tls_only: bool,
}

impl Tls<'_> {
    /// Writes the certificate and key into the cluster's `data` folder, readable by the server
    /// alone (PostgreSQL refuses a key others can read), and, with `tls_only`, a `pg_hba.conf`
    /// that refuses connections without TLS. Gives the settings that turn TLS on.
    fn install(&self, data: &Path, run_as: RunAs) -> io::Result<Vec<(String, String)>> {
        use std::os::unix::fs::PermissionsExt;
        let certificate = data.join("server.crt");
        let key = data.join("server.key");
        std::fs::write(&certificate, self.certificate_pem)?;
        std::fs::write(&key, self.key_pem)?;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))?;
        if self.tls_only {
            std::fs::write(
                data.join("pg_hba.conf"),
                "hostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n",
            )?;
        }
        for file in [&certificate, &key, &data.join("pg_hba.conf")] {
            run_as.own(file)?;
        }
        Ok(vec![
            ("ssl".to_owned(), "on".to_owned()),
            (
                "ssl_cert_file".to_owned(),
                certificate.display().to_string(),
            ),
            ("ssl_key_file".to_owned(), key.display().to_string()),
        ])
    }
}

/// The folder holding `initdb`, `postgres` and `pg_isready`: the one `initdb` on `PATH` really is in
/// (a link on `PATH` may stand for it alone), or the newest installed.
fn binaries() -> io::Result<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("initdb"))
            .find(|initdb| initdb.is_file())
            .and_then(|initdb| std::fs::canonicalize(initdb).ok())
            .and_then(|initdb| initdb.parent().map(Path::to_path_buf))
    });
    if let Some(dir) = on_path {
        return Ok(dir);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            "PostgreSQL is not installed (no initdb on PATH or under /usr/lib/postgresql/*/bin)",
        )
    })
}

/// Runs `command` to its end; an error names the program.
fn run(command: &mut Command) -> io::Result<std::process::Output> {
    command.stdin(Stdio::null()).output().map_err(|e| {
        let program = command.get_program().to_string_lossy().into_owned();
        io::Error::new(e.kind(), format!("{program} cannot be run: {e}"))
    })
}
