//! [`PostgresServer`]: a throwaway PostgreSQL server for tests of the PostgreSQL stores.

use std::io;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

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
#[derive(Debug)]
pub struct PostgresServer {
    child: Option<Child>,
    port: u16,
    bin: PathBuf,
    /// The cluster's folder, holding `data/`.
    dir: PathBuf,
    settings: Vec<(String, String)>,
    /// Who the server runs as, when started by root.
    user: Option<(u32, u32)>,
}

/// How long a new server may take to accept connections.
const STARTUP: Duration = Duration::from_secs(30);

impl PostgresServer {
    /// Makes a cluster and starts it on a free loopback port; waits until it accepts connections.
    /// Fails when PostgreSQL is not installed or does not come up within 30 s.
    pub fn start() -> io::Result<Self> {
        Self::start_with(&[])
    }

    /// [`start`](Self::start), with more settings (`("max_connections", "200")`, `("fsync",
    /// "on")`), each passed as `-c name=value`.
    pub fn start_with(settings: &[(&str, &str)]) -> io::Result<Self> {
        Self::make(settings, None)
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
        Self::make(
            settings,
            Some(Tls {
                certificate_pem,
                key_pem,
                tls_only,
            }),
        )
    }

    /// [`start_with`](Self::start_with), where every role but `postgres` signs in with its
    /// password (SCRAM), as managed databases ask: for tests of credentials that change.
    /// `postgres` still connects without one.
    pub fn start_with_passwords(settings: &[(&str, &str)]) -> io::Result<Self> {
        Self::make_with(settings, None, true)
    }

    fn make(settings: &[(&str, &str)], tls: Option<Tls<'_>>) -> io::Result<Self> {
        Self::make_with(settings, tls, false)
    }

    fn make_with(
        settings: &[(&str, &str)],
        tls: Option<Tls<'_>>,
        passwords: bool,
    ) -> io::Result<Self> {
        let bin = binaries()?;
        let user = run_as()?;
        let dir = scratch_dir()
            .map_err(|e| io::Error::new(e.kind(), format!("no folder for the cluster: {e}")))?;
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid))?;
        }
        let initdb = run(command(user, &bin.join("initdb"))
            .arg("-D")
            .arg(dir.join("data"))
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
            settings.extend(tls.install(&dir.join("data"), user)?);
        }
        if passwords {
            let hba = dir.join("data").join("pg_hba.conf");
            std::fs::write(
                &hba,
                "host all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n",
            )?;
            if let Some((uid, gid)) = user {
                std::os::unix::fs::chown(&hba, Some(uid), Some(gid))?;
            }
            settings.push(("password_encryption".to_owned(), "scram-sha-256".to_owned()));
        }
        let mut server = PostgresServer {
            child: None,
            port: TcpListener::bind("127.0.0.1:0")?.local_addr()?.port(),
            bin,
            dir,
            settings,
            user,
        };
        server.restart()?;
        Ok(server)
    }

    /// [`start`](Self::start), or `None` (said on stderr) when PostgreSQL is not installed, so a
    /// developer's machine without it skips the test.
    ///
    /// # Panics
    ///
    /// When the environment variable `CI` is set and the server cannot be started: in CI a missing
    /// service fails the run rather than pass it by skipping.
    pub fn start_or_skip() -> Option<Self> {
        super::started_or_skipped(Self::start())
    }

    /// `postgres://postgres@127.0.0.1:<port>/postgres`.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A client program of the same PostgreSQL installation as the server (`pgbench`, `psql`):
    /// its path, to run against [`url`](Self::url).
    pub fn tool(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }

    /// What the server logged so far (its errors among them).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }

    /// The server's process id, for signals (`kill -STOP`), or `None` once stopped.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Stops the server at once, as a crash would (an immediate shutdown: no checkpoint; the next
    /// start recovers from the write-ahead log), and waits for it to go.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let quit = Command::new("kill")
                .args(["-QUIT", &child.id().to_string()])
                .status();
            if !quit.is_ok_and(|s| s.success()) {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same data and port (after [`stop`](Self::stop)), and waits
    /// until it accepts connections.
    pub fn restart(&mut self) -> io::Result<()> {
        self.stop();
        let mut postgres = command(self.user, &self.bin.join("postgres"));
        postgres
            .arg("-D")
            .arg(self.dir.join("data"))
            .args(["-p", &self.port.to_string()])
            .args(["-c", "listen_addresses=127.0.0.1"])
            .args(["-c", "unix_socket_directories="])
            .args(["-c", "fsync=off"]);
        for (name, value) in &self.settings {
            postgres.args(["-c", &format!("{name}={value}")]);
        }
        let log = std::fs::File::create(self.dir.join("server.log"))?;
        let child = postgres
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("postgres cannot be started: {e}")))?;
        self.child = Some(child);
        let until = Instant::now() + STARTUP;
        loop {
            let ready = run(Command::new(self.bin.join("pg_isready")).args([
                "-q",
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
            ]))?;
            if ready.status.success() {
                return Ok(());
            }
            if let Some(child) = &mut self.child
                && let Some(status) = child.try_wait()?
            {
                self.child = None;
                let log = std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default();
                return Err(io::Error::other(format!(
                    "postgres exited ({status}): {}",
                    log.trim()
                )));
            }
            if Instant::now() > until {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "postgres did not accept connections on port {} within 30 s",
                        self.port
                    ),
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
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
    fn install(&self, data: &Path, user: Option<(u32, u32)>) -> io::Result<Vec<(String, String)>> {
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
        if let Some((uid, gid)) = user {
            for file in [&certificate, &key, &data.join("pg_hba.conf")] {
                std::os::unix::fs::chown(file, Some(uid), Some(gid))?;
            }
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

impl Drop for PostgresServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
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

/// The user and group the server runs as when this process is root (PostgreSQL refuses root).
pub(crate) fn run_as() -> io::Result<Option<(u32, u32)>> {
    let id = |args: &[&str]| -> Option<u32> {
        let out = Command::new("id").args(args).output().ok()?;
        String::from_utf8(out.stdout).ok()?.trim().parse().ok()
    };
    if id(&["-u"]) != Some(0) {
        return Ok(None);
    }
    for user in ["postgres", "nobody"] {
        if let (Some(uid), Some(gid)) = (id(&["-u", user]), id(&["-g", user])) {
            return Ok(Some((uid, gid)));
        }
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        "running as root, and there is no `postgres` or `nobody` user to run PostgreSQL as",
    ))
}

/// A new, empty folder for one cluster.
pub(crate) fn scratch_dir() -> io::Result<PathBuf> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "host-sdk-postgres-{}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.subsec_nanos())
    ));
    std::fs::create_dir(&dir)?;
    Ok(dir)
}

/// `program`, run as `user` when there is one (through `setpriv`, which leaves no process of its
/// own between this one and the program, so the child's id is the program's).
pub(crate) fn command(user: Option<(u32, u32)>, program: &Path) -> Command {
    match user {
        Some((uid, gid)) => {
            let mut c = Command::new("setpriv");
            c.arg(format!("--reuid={uid}"))
                .arg(format!("--regid={gid}"))
                .arg("--clear-groups")
                .arg(program);
            c
        }
        None => Command::new(program),
    }
}

/// Runs `command` to its end; an error names the program.
fn run(command: &mut Command) -> io::Result<std::process::Output> {
    command.stdin(Stdio::null()).output().map_err(|e| {
        let program = command.get_program().to_string_lossy().into_owned();
        io::Error::new(e.kind(), format!("{program} cannot be run: {e}"))
    })
}
