//! `cargo host postgres` against a real server: `check` on an unmigrated database names what to
//! run and exits 1, `migrate` applies the stores' migrations once, `check` then passes, `grants`
//! prints statements a role without schema rights runs a server with; and the errors a person
//! meets (no database named, one that cannot be reached).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output};

fn cargo_host(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-host"))
        .args(args)
        .env_remove("HOST_DATABASE_URL")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn migrate_check_and_grants_as_a_deploy_step() {
    let Some(server) = host_test_support::PostgresServer::start_or_skip() else {
        return;
    };
    let url = server.url();
    let out = cargo_host(&["postgres", "check", "--database-url", &url]);
    assert_eq!(out.status.code(), Some(1), "{:?}", text(&out));
    assert!(
        text(&out).1.contains("cargo host postgres migrate"),
        "{:?}",
        text(&out)
    );

    let out = cargo_host(&["postgres", "migrate", "--database-url", &url]);
    assert!(out.status.success(), "{:?}", text(&out));
    assert!(
        text(&out).0.contains("applied migrations 1, 2, 3"),
        "{:?}",
        text(&out)
    );
    let out = cargo_host(&["postgres", "migrate", "--database-url", &url]);
    assert!(
        text(&out).0.contains("up to date: nothing to apply"),
        "{:?}",
        text(&out)
    );
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-host"))
        .args(["postgres", "check"])
        .env("HOST_DATABASE_URL", &url)
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", text(&out));

    let out = cargo_host(&["postgres", "grants", "--role", "tracker_app"]);
    let (grants, _) = text(&out);
    assert!(out.status.success());
    assert!(
        grants.contains(
            r#"GRANT SELECT, INSERT, UPDATE, DELETE ON host_dedupe, host_outbox TO "tracker_app";"#
        ),
        "{grants}"
    );
    assert!(!grants.contains("CREATE"), "{grants}");
}

#[test]
fn a_database_not_named_or_not_reached_is_said() {
    let out = cargo_host(&["postgres", "check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).1.contains("--database-url or HOST_DATABASE_URL"),
        "{:?}",
        text(&out)
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = cargo_host(&[
        "postgres",
        "migrate",
        "--database-url",
        &format!("postgres://app:s3cret-pass@127.0.0.1:{port}/app"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains(&format!("cannot connect to 127.0.0.1:{port}/app")),
        "{stderr}"
    );
    assert!(
        !stderr.contains("s3cret-pass"),
        "the password was printed: {stderr}"
    );
}
