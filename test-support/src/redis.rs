//! [`RedisServer`]: a throwaway `redis-server` for tests of the Redis stores.

use std::io;
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
#[derive(Debug)]
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
}

/// How long a new server may take to accept connections.
const STARTUP: Duration = Duration::from_secs(10);

impl RedisServer {
    /// Starts `redis-server` (from `PATH`) on a free loopback port and waits until it accepts
    /// connections. Fails when the binary is missing or the server does not come up within 10 s.
    pub fn start() -> io::Result<Self> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        Self::start_on(port)
    }

    /// [`start`](Self::start), asking every client for `password` (`requirepass`): reach it at
    /// `redis://:<password>@127.0.0.1:<port>`.
    pub fn start_with_password(password: &str) -> io::Result<Self> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        Self::launch(port, Some(password))
    }

    /// Starts it on `port`: to bring a server back where a test stopped one.
    pub fn start_on(port: u16) -> io::Result<Self> {
        Self::launch(port, None)
    }

    fn launch(port: u16, password: Option<&str>) -> io::Result<Self> {
        let mut command = Command::new("redis-server");
        if let Some(password) = password {
            command.args(["--requirepass", password]);
        }
        let child = command
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                io::Error::new(e.kind(), format!("redis-server cannot be started: {e}"))
            })?;
        let server = RedisServer {
            child: Some(child),
            port,
        };
        let until = Instant::now() + STARTUP;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > until {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("redis-server did not accept connections on port {port} within 10 s"),
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(server)
    }

    /// [`start`](Self::start), or `None` (said on stderr) when `redis-server` is not installed, so
    /// a developer's machine without it skips the test.
    ///
    /// # Panics
    ///
    /// When the environment variable `CI` is set and the server cannot be started: in CI a missing
    /// service fails the run rather than pass it by skipping.
    pub fn start_or_skip() -> Option<Self> {
        super::started_or_skipped(Self::start())
    }

    /// `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's process id, for signals (`kill -STOP`), or `None` once stopped.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills the server at once (`SIGKILL`, nothing saved) and waits for it to go.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}
