//! [`PgBouncer`]: a connection pooler in transaction mode in front of a [`PostgresServer`], as
//! Supabase, Neon and RDS Proxy put one in front of the database.

use std::io;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::PostgresServer;
use crate::postgres::{command, run_as, scratch_dir};

/// Debian's `pgbouncer`, in `pool_mode = transaction`, on a free loopback port, in front of one
/// server: each client's statements run on whichever server connection is free when its
/// transaction (or its lone statement) begins. Stopped and its folder deleted when dropped.
///
/// Users sign in as they would at the server: the pooler asks the server for each user's secret
/// (`auth_query`, as `postgres`), so a role with a password (SCRAM,
/// [`PostgresServer::start_with_passwords`]) keeps it, and a changed password holds at once.
#[derive(Debug)]
pub struct PgBouncer {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
}

/// How long the pooler may take to accept connections.
const STARTUP: Duration = Duration::from_secs(20);

impl PgBouncer {
    /// Starts a pooler in front of `server`, with `pool_size` server connections per user and
    /// database.
    pub fn start(server: &PostgresServer, pool_size: u32) -> io::Result<Self> {
        let binary = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"]
            .into_iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::NotFound,
                    "PgBouncer is not installed (no /usr/sbin/pgbouncer; Debian's package `pgbouncer`)",
                )
            })?;
        let user = run_as()?;
        let dir = scratch_dir()?;
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let config = format!(
            "[databases]\n\
             * = host=127.0.0.1 port={server_port}\n\
             [pgbouncer]\n\
             listen_addr = 127.0.0.1\n\
             listen_port = {port}\n\
             unix_socket_dir =\n\
             pool_mode = transaction\n\
             default_pool_size = {pool_size}\n\
             max_client_conn = 500\n\
             auth_type = hba\n\
             auth_hba_file = {dir}/hba.conf\n\
             auth_file = {dir}/users.txt\n\
             auth_user = postgres\n\
             auth_query = SELECT usename, passwd FROM pg_shadow WHERE usename = $1\n\
             logfile = {dir}/pgbouncer.log\n\
             pidfile = {dir}/pgbouncer.pid\n",
            server_port = server.port(),
            dir = dir.display(),
        );
        std::fs::write(dir.join("pgbouncer.ini"), config)?;
        // `postgres` (trusted by the server) signs in here without a password, and runs the
        // query that fetches the other users' secrets.
        std::fs::write(dir.join("users.txt"), "\"postgres\" \"\"\n")?;
        std::fs::write(
            dir.join("hba.conf"),
            "host all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n",
        )?;
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid))?;
            for file in ["pgbouncer.ini", "users.txt", "hba.conf"] {
                std::os::unix::fs::chown(dir.join(file), Some(uid), Some(gid))?;
            }
        }
        let child = command(user, &binary)
            .arg(dir.join("pgbouncer.ini"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("pgbouncer cannot be started: {e}")))?;
        let mut bouncer = PgBouncer {
            child: Some(child),
            port,
            dir,
        };
        let until = Instant::now() + STARTUP;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(child) = &mut bouncer.child
                && let Some(status) = child.try_wait()?
            {
                bouncer.child = None;
                return Err(io::Error::other(format!(
                    "pgbouncer exited ({status}): {}",
                    bouncer.log().trim()
                )));
            }
            if Instant::now() > until {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("pgbouncer did not listen on port {port} within 20 s"),
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(bouncer)
    }

    /// [`start`](Self::start), or `None` (said on stderr) when PgBouncer is not installed; a
    /// panic instead where `CI` is set.
    pub fn start_or_skip(server: &PostgresServer, pool_size: u32) -> Option<Self> {
        super::started_or_skipped(Self::start(server, pool_size))
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `postgres://postgres@127.0.0.1:<port>/postgres`, through the pooler.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// What the pooler logged.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("pgbouncer.log")).unwrap_or_default()
    }
}

impl Drop for PgBouncer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
