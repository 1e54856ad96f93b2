//! [`DynamoDbEmulator`]: moto's DynamoDB emulator, for tests of the DynamoDB store.

use std::io;
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// moto's server app, served one request at a time. moto checks a condition and writes the item in
/// two steps without a lock, so two conditional writes served at once on its threaded server
/// (`moto_server`) could both pass, where DynamoDB makes each conditional write atomic on its item.
/// Served in turn, the emulator keeps that guarantee, which the store relies on.
const ONE_AT_A_TIME: &str = "import os, sys
os.environ.setdefault('MOTO_PORT', sys.argv[1])
from werkzeug.serving import run_simple
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
run_simple('127.0.0.1', int(sys.argv[1]), DomainDispatcherApplication(create_backend_app), threaded=False)
";

/// How long the emulator may take to listen (it imports all of moto first).
const STARTUP: Duration = Duration::from_secs(30);

/// moto's DynamoDB emulator (a real process we did not write) on a free loopback port, killed when
/// dropped. It does not check signatures; it reads the region and service from the request.
///
/// ```no_run
/// use host_test_support::DynamoDbEmulator;
/// let Some(dynamodb) = DynamoDbEmulator::start_or_skip() else { return };
/// // What a process needs to reach it: region, fake credentials, endpoint.
/// let env = dynamodb.env();
/// # let _ = env;
/// ```
#[derive(Debug)]
pub struct DynamoDbEmulator {
    child: Child,
    port: u16,
}

impl DynamoDbEmulator {
    /// The region of [`env`](Self::env).
    pub const REGION: &str = "us-east-1";

    /// Starts the emulator with the Python that has moto (`MOTO_PYTHON`, default `python3`;
    /// installed with `pip install 'moto[dynamodb]' flask flask-cors`) and waits until it listens.
    pub fn start() -> io::Result<Self> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let python = std::env::var("MOTO_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        // Its log (a line per request) goes to a file, read only when it fails to start.
        let log_path = log_path(port);
        let log = std::fs::File::create(&log_path)?;
        let child = Command::new(&python)
            .args(["-c", ONE_AT_A_TIME, &port.to_string()])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("`{python}` cannot be run: {e}")))?;
        let mut emulator = DynamoDbEmulator { child, port };
        let until = Instant::now() + STARTUP;
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = emulator.child.try_wait() {
                let said = std::fs::read_to_string(&log_path).unwrap_or_default();
                let last = said.lines().last().unwrap_or("");
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!(
                        "`{python}` could not start moto's DynamoDB emulator ({status}): {last}; \
                         `pip install 'moto[dynamodb]==5.1.18' 'flask==3.1.2' 'flask-cors==6.0.1'` \
                         installs it"
                    ),
                ));
            }
            if Instant::now() > until {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("moto did not listen on port {port} within 30 s"),
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(emulator)
    }

    /// [`start`](Self::start), or `None` (said on stderr) when moto is not installed, so a
    /// developer's machine without it skips the test.
    ///
    /// # Panics
    ///
    /// When the environment variable `CI` is set and the emulator cannot be started: in CI a
    /// missing service fails the run rather than pass it by skipping.
    pub fn start_or_skip() -> Option<Self> {
        super::started_or_skipped(Self::start())
    }

    /// `http://127.0.0.1:<port>`, its endpoint.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The environment a process needs to reach the emulator as DynamoDB: the region, fake
    /// credentials and `AWS_ENDPOINT_URL_DYNAMODB`.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_REGION", Self::REGION.to_owned()),
            ("AWS_ACCESS_KEY_ID", "testing".to_owned()),
            ("AWS_SECRET_ACCESS_KEY", "testing".to_owned()),
            ("AWS_SESSION_TOKEN", "testing".to_owned()),
            ("AWS_ENDPOINT_URL_DYNAMODB", self.url()),
        ]
    }

    /// One variable of [`env`](Self::env), as a store's `from_vars` reads it.
    pub fn var(&self, name: &str) -> Option<String> {
        self.env()
            .into_iter()
            .find_map(|(k, v)| (k == name).then_some(v))
    }
}

impl Drop for DynamoDbEmulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(log_path(self.port));
    }
}

fn log_path(port: u16) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("moto-{port}.log"))
}
