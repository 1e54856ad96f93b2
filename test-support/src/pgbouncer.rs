//! [`PgBouncer`]: a connection pooler in transaction mode in front of a [`PostgresServer`], as
//! Supabase, Neon and RDS Proxy put one in front of the database.

use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::PostgresServer;
use crate::launched::{Launched, Scratch, Service, free_port, or_skip};
use crate::run_as::RunAs;

/// Debian's `pgbouncer`, in `pool_mode = transaction`, on a free loopback port, in front of one
/// server: each client's statements run on whichever server connection is free when its
/// transaction (or its lone statement) begins. Stopped and its folder deleted when dropped.
///
/// Users sign in as they would at the server: the pooler asks the server for each user's secret
/// (`auth_query`, as `postgres`), so a role with a password (SCRAM,
/// [`PostgresServer::start_with_passwords`]) keeps it, and a changed password holds at once.
pub type PgBouncer = Launched<Pooler>;

/// What is particular to a [`PgBouncer`]: its program and who runs it (PgBouncer refuses root);
/// its configuration is in its folder.
#[derive(Debug)]
pub struct Pooler {
    binary: PathBuf,
    run_as: RunAs,
}

impl Service for Pooler {
    const NAME: &'static str = "pgbouncer";
    const STARTUP: Duration = Duration::from_secs(20);

    /// It logs to stderr, which is its log.
    fn command(&self, _port: u16, dir: &Path) -> io::Result<Command> {
        let mut pgbouncer = self.run_as.command(&self.binary);
        pgbouncer.arg(dir.join("pgbouncer.ini"));
        Ok(pgbouncer)
    }
}

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
        let run_as = RunAs::unprivileged()?;
        let dir = Scratch::new(Pooler::NAME)?;
        let port = free_port()?;
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
             pidfile = {dir}/pgbouncer.pid\n",
            server_port = server.port(),
            dir = dir.path().display(),
        );
        let files = [
            ("pgbouncer.ini", config.as_str()),
            // `postgres` (trusted by the server) signs in here without a password, and runs the
            // query that fetches the other users' secrets.
            ("users.txt", "\"postgres\" \"\"\n"),
            (
                "hba.conf",
                "host all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n",
            ),
        ];
        run_as.own(dir.path())?;
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text)?;
            run_as.own(&dir.path().join(name))?;
        }
        Self::launch(Pooler { binary, run_as }, port, dir)
    }

    /// [`start`](Self::start), or skipped where PgBouncer is not installed (see [`Launched`]).
    ///
    /// # Panics
    ///
    /// When the environment variable `CI` is set and the pooler cannot be started.
    pub fn start_or_skip(server: &PostgresServer, pool_size: u32) -> Option<Self> {
        or_skip(Self::start(server, pool_size))
    }

    /// `postgres://postgres@127.0.0.1:<port>/postgres`, through the pooler.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port())
    }
}
