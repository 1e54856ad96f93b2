//! [`RunAs`]: who runs a program that refuses root (PostgreSQL, PgBouncer) when the tests run as
//! root, as they do in containers.

use std::io;
use std::path::Path;
use std::process::Command;

/// The user and group a program runs as when this process is root, or nobody in particular.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunAs(Option<(u32, u32)>);

impl RunAs {
    /// As root, the `postgres` user (or `nobody`); else this process's own user.
    pub(crate) fn unprivileged() -> io::Result<Self> {
        let id = |args: &[&str]| -> Option<u32> {
            let out = Command::new("id").args(args).output().ok()?;
            String::from_utf8(out.stdout).ok()?.trim().parse().ok()
        };
        if id(&["-u"]) != Some(0) {
            return Ok(RunAs(None));
        }
        for user in ["postgres", "nobody"] {
            if let (Some(uid), Some(gid)) = (id(&["-u", user]), id(&["-g", user])) {
                return Ok(RunAs(Some((uid, gid))));
            }
        }
        Err(io::Error::new(
            io::ErrorKind::NotFound,
            "running as root, and there is no `postgres` or `nobody` user to run PostgreSQL as",
        ))
    }

    /// Gives `path` to the user, when there is one.
    pub(crate) fn own(&self, path: &Path) -> io::Result<()> {
        match self.0 {
            Some((uid, gid)) => std::os::unix::fs::chown(path, Some(uid), Some(gid)),
            None => Ok(()),
        }
    }

    /// `program`, run as the user when there is one (through `setpriv`, which leaves no process
    /// of its own between this one and the program, so the child's id is the program's).
    pub(crate) fn command(&self, program: &Path) -> Command {
        match self.0 {
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
}
