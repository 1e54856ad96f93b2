//! Test support for this repository's own tests: throwaway PostgreSQL and Redis servers (and a
//! PgBouncer in front of PostgreSQL) and a
//! DynamoDB emulator, started from the programs on the machine for one test and removed with it;
//! certificates from a CA made on the spot for tests of TLS; and [`http::serve`], the accept loop
//! of the tests' stand-in HTTP servers. Not published: a vendor's tests use `host_runtime::testing`
//! (a stand-in host and the store contracts), and start their databases their own way.
//!
//! Where a service is not installed, a developer's machine skips the test that asked (said on
//! stderr); where the environment variable `CI` is set, the test fails instead, so CI never passes
//! by skipping. The repository's `.ci/install` installs every one.

mod dynamodb;
pub mod http;
mod pgbouncer;
mod postgres;
mod redis;
mod tls;

pub use dynamodb::DynamoDbEmulator;
pub use pgbouncer::PgBouncer;
pub use postgres::PostgresServer;
pub use redis::RedisServer;
pub use tls::Certificates;

/// A throwaway server's start for a test: the server, or `None` (said on stderr) where the service
/// is not installed, so a developer's machine without it skips the test; where the environment
/// variable `CI` is set, a panic instead, so CI fails rather than pass by skipping.
#[allow(clippy::panic)] // A test helper: failing the test that asked is its job.
fn started_or_skipped<T>(started: std::io::Result<T>) -> Option<T> {
    match started {
        Ok(server) => Some(server),
        Err(e) if std::env::var_os("CI").is_some() => {
            panic!("{e}; it is required where CI is set (.ci/run installs it)")
        }
        Err(e) => {
            eprintln!("skipped: {e}");
            None
        }
    }
}
