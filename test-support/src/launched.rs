//! [`Launched`]: the one shape of every throwaway service here (a process on a free loopback port,
//! its folder and its log, stopped and removed when dropped), the [`Service`] trait through which
//! each launcher says what is particular to its program, and [`or_skip`], the rule for a service
//! that is not installed. Each program's own start (its command, its files, its readiness) lives
//! in its launcher's file.

use std::fmt;
use std::fs::File;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// What is particular to one program launched for tests: its name, the command that runs it,
/// when it is ready, how it is stopped. Implemented by the launchers of this crate ([`Redis`],
/// [`Postgres`], [`Pooler`], [`Moto`]); a test uses [`Launched`] through their names
/// ([`RedisServer`], ...).
///
/// [`Redis`]: crate::Redis
/// [`Postgres`]: crate::Postgres
/// [`Pooler`]: crate::Pooler
/// [`Moto`]: crate::Moto
/// [`RedisServer`]: crate::RedisServer
pub trait Service: fmt::Debug {
    /// The program's name in messages, in its folder's name and in its log's (`<NAME>.log`).
    const NAME: &'static str;

    /// How long a start may take before it is given up.
    const STARTUP: Duration;

    /// The command that runs the program on `port`, with `dir` its folder. Its output (stdout and
    /// stderr) goes to its log.
    fn command(&self, port: u16, dir: &Path) -> io::Result<Command>;

    /// Whether a started program is ready for the test: by default, once it accepts connections
    /// on `port`.
    fn ready(&self, port: u16) -> io::Result<bool> {
        Ok(TcpStream::connect(("127.0.0.1", port)).is_ok())
    }

    /// Stops the program at once: by default with `SIGKILL`.
    fn kill(&self, child: &mut Child) {
        let _ = child.kill();
    }

    /// The error of a start the program exited from (`status`), given its log.
    fn exited(&self, status: ExitStatus, log: &str) -> io::Error {
        io::Error::other(format!("{} exited ({status}): {}", Self::NAME, log.trim()))
    }
}

/// A service a test launched: one process of `S` on a loopback port, with a folder of its own
/// that holds its files and its log; stopped at once and the folder deleted when dropped.
///
/// A launcher's `start_or_skip` starts one for a test, or answers `None` (said on stderr) where
/// the program is not installed, so a developer's machine without it skips the test. Where the
/// environment variable `CI` is set it panics instead: CI never passes by skipping.
#[derive(Debug)]
pub struct Launched<S: Service> {
    service: S,
    port: u16,
    /// `None` once stopped, or when the last start failed.
    child: Option<Child>,
    /// Dropped after the process was stopped (fields drop after [`Drop::drop`]).
    dir: Scratch,
}

impl<S: Service> Launched<S> {
    /// Starts `service` on `port`, working in `dir`, and waits until it is ready.
    pub(crate) fn launch(service: S, port: u16, dir: Scratch) -> io::Result<Self> {
        let mut launched = Launched {
            service,
            port,
            child: None,
            dir,
        };
        launched.restart()?;
        Ok(launched)
    }

    /// What is particular to the service.
    pub(crate) fn service(&self) -> &S {
        &self.service
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The process id, for signals (`kill -STOP`), or `None` once stopped.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// What the service logged since it last started (its errors among them).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    /// Stops the service at once, as a crash would ([`Service::kill`]: `SIGKILL`, or for
    /// PostgreSQL an immediate shutdown, whose next start recovers from the write-ahead log), and
    /// waits for it to go.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            self.service.kill(&mut child);
            let _ = child.wait();
        }
    }

    /// Starts the service again on the same files and port (after [`stop`](Self::stop); a
    /// running one is stopped first), and waits until it is ready.
    pub fn restart(&mut self) -> io::Result<()> {
        self.stop();
        let mut command = self.service.command(self.port, &self.dir.0)?;
        let log = File::create(self.log_path())?;
        let child = command
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .map_err(|e| {
                let program = command.get_program().to_string_lossy().into_owned();
                io::Error::new(
                    e.kind(),
                    format!("{} cannot be started (`{program}`): {e}", S::NAME),
                )
            })?;
        self.child = Some(child);
        self.wait_until_ready()
    }

    /// Waits until the service is ready, it exited, or [`Service::STARTUP`] passed.
    fn wait_until_ready(&mut self) -> io::Result<()> {
        let until = Instant::now() + S::STARTUP;
        let mut pause = Duration::from_millis(10);
        loop {
            if self.service.ready(self.port)? {
                return Ok(());
            }
            if let Some(child) = &mut self.child
                && let Some(status) = child.try_wait()?
            {
                self.child = None;
                return Err(self.service.exited(status, &self.log()));
            }
            if Instant::now() > until {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "{} did not accept connections on port {} within {} s",
                        S::NAME,
                        self.port,
                        S::STARTUP.as_secs()
                    ),
                ));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    fn log_path(&self) -> PathBuf {
        self.dir.0.join(format!("{}.log", S::NAME))
    }
}

impl<S: Service> Drop for Launched<S> {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A service's start for a test: the service, or `None` (said on stderr) where it could not be
/// started, so a developer's machine without the program skips the test; where the environment
/// variable `CI` is set, a panic instead, so CI fails rather than pass by skipping.
#[allow(clippy::panic)] // A test helper: failing the test that asked is its job.
pub(crate) fn or_skip<T>(started: io::Result<T>) -> Option<T> {
    match started {
        Ok(service) => Some(service),
        Err(e) if std::env::var_os("CI").is_some() => {
            panic!("{e}; it is required where CI is set (.ci/run installs it)")
        }
        Err(e) => {
            eprintln!("skipped: {e}");
            None
        }
    }
}

/// A free loopback port, for a service to listen on.
pub(crate) fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A new, empty folder of one service, deleted with everything in it when dropped.
#[derive(Debug)]
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    /// A folder `host-sdk-<name>-...` in the temporary folder.
    pub(crate) fn new(name: &str) -> io::Result<Self> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "host-sdk-{name}-{}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.subsec_nanos())
        ));
        std::fs::create_dir(&dir)
            .map_err(|e| io::Error::new(e.kind(), format!("no folder for {name}: {e}")))?;
        Ok(Scratch(dir))
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sh` running `script` (with `$PORT` its port): a service of the test's making.
    #[derive(Debug)]
    struct Shell {
        script: &'static str,
    }

    impl Service for Shell {
        const NAME: &'static str = "shell";
        const STARTUP: Duration = Duration::from_secs(1);

        fn command(&self, port: u16, _dir: &Path) -> io::Result<Command> {
            let mut sh = Command::new("sh");
            sh.args(["-c", self.script]).env("PORT", port.to_string());
            Ok(sh)
        }

        fn ready(&self, _port: u16) -> io::Result<bool> {
            Ok(false)
        }
    }

    fn launch(script: &'static str) -> io::Result<Launched<Shell>> {
        Launched::launch(Shell { script }, free_port()?, Scratch::new(Shell::NAME)?)
    }

    #[test]
    fn a_service_that_exits_says_so_with_its_log() {
        let e = launch("echo listening on $PORT; echo no such table >&2; exit 3").unwrap_err();
        let said = e.to_string();
        assert!(
            said.starts_with("shell exited (exit status: 3): listening on "),
            "{said}"
        );
        assert!(said.ends_with("\nno such table"), "{said}");
    }

    #[test]
    fn a_service_never_ready_is_given_up_and_killed() {
        let started = Instant::now();
        let e = launch("sleep 30").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert!(
            e.to_string()
                .starts_with("shell did not accept connections on port "),
            "{e}"
        );
        assert!(e.to_string().ends_with(" within 1 s"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_program_that_is_missing_is_named() {
        let dir = Scratch::new("missing").unwrap();
        #[derive(Debug)]
        struct Missing;
        impl Service for Missing {
            const NAME: &'static str = "missing";
            const STARTUP: Duration = Duration::from_secs(1);
            fn command(&self, _: u16, _: &Path) -> io::Result<Command> {
                Ok(Command::new("host-sdk-no-such-program"))
            }
        }
        let e = Launched::launch(Missing, free_port().unwrap(), dir).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert!(
            e.to_string()
                .starts_with("missing cannot be started (`host-sdk-no-such-program`): "),
            "{e}"
        );
    }

    #[test]
    fn a_dropped_service_leaves_no_folder() {
        let dir = Scratch::new(Shell::NAME).unwrap();
        let path = dir.path().to_path_buf();
        assert!(path.is_dir());
        let _ = Launched::launch(Shell { script: "exit 1" }, free_port().unwrap(), dir);
        assert!(!path.exists());
    }

    #[test]
    fn a_missing_service_is_skipped_outside_ci() {
        if std::env::var_os("CI").is_some() {
            return;
        }
        let missing: io::Result<()> = Err(io::Error::other("not installed"));
        assert_eq!(or_skip(missing), None);
        assert_eq!(or_skip(Ok::<_, io::Error>(7)), Some(7));
    }
}
