//! [`DynamoDbEmulator`]: moto's DynamoDB emulator, for tests of the DynamoDB store.

use std::io;
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::time::Duration;

use crate::launched::{Launched, Scratch, Service, free_port, or_skip};

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
pub type DynamoDbEmulator = Launched<Moto>;

/// What is particular to a [`DynamoDbEmulator`]: the Python that has moto.
#[derive(Debug)]
pub struct Moto {
    python: String,
}

impl Service for Moto {
    const NAME: &'static str = "moto";
    /// It imports all of moto first.
    const STARTUP: Duration = Duration::from_secs(30);

    fn command(&self, port: u16, _dir: &Path) -> io::Result<Command> {
        let mut python = Command::new(&self.python);
        python.args(["-c", ONE_AT_A_TIME, &port.to_string()]);
        Ok(python)
    }

    /// Python ran but could not start moto: it is not installed there, most likely.
    fn exited(&self, status: ExitStatus, log: &str) -> io::Error {
        let last = log.lines().last().unwrap_or("");
        io::Error::new(
            io::ErrorKind::NotFound,
            format!(
                "`{}` could not start moto's DynamoDB emulator ({status}): {last}; \
                 `pip install 'moto[dynamodb]==5.1.18' 'flask==3.1.2' 'flask-cors==6.0.1'` \
                 installs it",
                self.python
            ),
        )
    }
}

impl DynamoDbEmulator {
    /// The region of [`env`](Self::env).
    pub const REGION: &str = "us-east-1";

    /// Starts the emulator with the Python that has moto (`MOTO_PYTHON`, default `python3`;
    /// installed with `pip install 'moto[dynamodb]' flask flask-cors`) and waits until it listens.
    pub fn start() -> io::Result<Self> {
        let python = std::env::var("MOTO_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        Self::launch(Moto { python }, free_port()?, Scratch::new(Moto::NAME)?)
    }

    /// [`start`](Self::start), or skipped where moto is not installed (see [`Launched`]).
    ///
    /// # Panics
    ///
    /// When the environment variable `CI` is set and the emulator cannot be started.
    pub fn start_or_skip() -> Option<Self> {
        or_skip(Self::start())
    }

    /// `http://127.0.0.1:<port>`, its endpoint.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port())
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
