//! [`RedisServer`]: a throwaway `redis-server` for tests of the Redis stores.

use std::io;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::launched::{Launched, Scratch, Service, free_port, or_skip};

/// A `redis-server` of its own on a free loopback port, with no persistence, killed when dropped:
/// for tests of host-runtime's `RedisDedupe`, `RedisOutbox` or a store of your own, against a real
/// server.
///
/// ```no_run
/// # async fn test() {
/// use host_test_support::RedisServer;
/// let Some(redis) = RedisServer::start_or_skip() else { return };
/// let url = redis.url(); // redis://127.0.0.1:<port>/
/// # let _ = url;
/// # }
/// ```
pub type RedisServer = Launched<Redis>;

/// What is particular to a [`RedisServer`]: `redis-server` from `PATH`, and the password it asks
/// for, if any.
#[derive(Debug)]
pub struct Redis {
    password: Option<String>,
}

impl Service for Redis {
    const NAME: &'static str = "redis-server";
    const STARTUP: Duration = Duration::from_secs(10);

    fn command(&self, port: u16, _dir: &Path) -> io::Result<Command> {
        let mut command = Command::new("redis-server");
        if let Some(password) = &self.password {
            command.args(["--requirepass", password]);
        }
        command
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"]);
        Ok(command)
    }
}

impl RedisServer {
    /// Starts `redis-server` (from `PATH`) on a free loopback port and waits until it accepts
    /// connections. Fails when the binary is missing or the server does not come up within 10 s.
    pub fn start() -> io::Result<Self> {
        Self::start_on(free_port()?)
    }

    /// [`start`](Self::start), asking every client for `password` (`requirepass`): reach it at
    /// `redis://:<password>@127.0.0.1:<port>`.
    pub fn start_with_password(password: &str) -> io::Result<Self> {
        let password = Some(password.to_owned());
        Self::launch(Redis { password }, free_port()?, Scratch::new(Redis::NAME)?)
    }

    /// Starts it on `port`: to bring a server back where a test stopped one.
    pub fn start_on(port: u16) -> io::Result<Self> {
        Self::launch(Redis { password: None }, port, Scratch::new(Redis::NAME)?)
    }

    /// [`start`](Self::start), or skipped where `redis-server` is not installed (see
    /// [`Launched`]).
    ///
    /// # Panics
    ///
    /// When the environment variable `CI` is set and the server cannot be started.
    pub fn start_or_skip() -> Option<Self> {
        or_skip(Self::start())
    }

    /// `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port())
    }
}
