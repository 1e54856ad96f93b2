//! Test support for this repository's own tests: throwaway PostgreSQL and Redis servers (and a
//! PgBouncer in front of PostgreSQL) and a DynamoDB emulator, started from the programs on the
//! machine for one test and removed with it; certificates from a CA made on the spot for tests of
//! TLS; and [`http::serve`], the accept loop of the tests' stand-in HTTP servers. Not published: a
//! vendor's tests use `host_runtime::testing` (a stand-in host and the store contracts), and start
//! their databases their own way.
//!
//! Every service has one shape, [`Launched`] (its process, port, folder and log; stopped and
//! removed when dropped): each launcher's file says only what is particular to its program, as a
//! [`Service`]. Where a program is not installed, a developer's machine skips the test that asked
//! (said on stderr); where the environment variable `CI` is set, the test fails instead, so CI
//! never passes by skipping. The repository's `.ci/install` installs every one.

mod dynamodb;
pub mod http;
mod launched;
mod pgbouncer;
mod postgres;
mod redis;
mod run_as;
mod tls;

pub use dynamodb::{DynamoDbEmulator, Moto};
pub use launched::{Launched, Service};
pub use pgbouncer::{PgBouncer, Pooler};
pub use postgres::{Postgres, PostgresServer};
pub use redis::{Redis, RedisServer};
pub use tls::Certificates;
