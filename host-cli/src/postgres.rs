//! `cargo host postgres`: the runtime's PostgreSQL schema as a deploy step. `migrate` applies what
//! the database lacks, `check` only reads, `grants` prints what an application role needs when it
//! may not change the schema.

use std::process::ExitCode;

use host_runtime::postgres;

use crate::output::{Term, line};

/// `cargo host postgres` arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct PostgresArgs {
    /// The database: `postgres://user:password@host:port/database` (TLS as its `sslmode` says).
    /// Default: `HOST_DATABASE_URL`.
    #[arg(long, global = true, value_name = "URL")]
    database_url: Option<String>,
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Apply the stores' migrations the database lacks, under the migration lock (as the schema's
    /// owner). Nothing changes when it is up to date.
    Migrate,
    /// Check, with reads alone, that every migration is applied as this release has it.
    Check,
    /// Print the statements that give ROLE what a server needs of the stores' tables, nothing on
    /// the schema. Run them as the tables' owner.
    Grants {
        /// The application role.
        #[arg(long)]
        role: String,
    },
}

/// Runs `cargo host postgres`.
pub(crate) async fn run(args: PostgresArgs, term: Term) -> ExitCode {
    if let Action::Grants { role } = &args.action {
        if role.trim().is_empty() || role.contains('\0') {
            term.error("--role names the application role, such as `tracker_app`");
            return ExitCode::from(2);
        }
        print!("{}", postgres::grants(role));
        return ExitCode::SUCCESS;
    }
    let Some(url) = args.database_url.or_else(|| {
        std::env::var("HOST_DATABASE_URL")
            .ok()
            .filter(|v| !v.trim().is_empty())
    }) else {
        term.error("name the database with --database-url or HOST_DATABASE_URL");
        return ExitCode::from(2);
    };
    let settings = postgres::Settings::default().with_start_timeout(std::time::Duration::ZERO);
    let pool = match postgres::connect_with(url.trim(), &settings).await {
        Ok(pool) => pool,
        Err(e) => {
            term.error(&chain(&e));
            return ExitCode::from(2);
        }
    };
    match args.action {
        Action::Migrate => match postgres::migrate(&pool).await {
            Ok(applied) if applied.is_empty() => {
                line(&format!("{} up to date: nothing to apply", term.ok()));
                ExitCode::SUCCESS
            }
            Ok(applied) => {
                let versions: Vec<String> = applied.iter().map(i32::to_string).collect();
                line(&format!(
                    "{} applied migration{} {}",
                    term.ok(),
                    if applied.len() == 1 { "" } else { "s" },
                    versions.join(", ")
                ));
                ExitCode::SUCCESS
            }
            Err(e) => {
                term.error(&chain(&e));
                ExitCode::from(2)
            }
        },
        Action::Check => match postgres::check(&pool).await {
            Ok(()) => {
                line(&format!(
                    "{} up to date: every migration of this release is applied",
                    term.ok()
                ));
                ExitCode::SUCCESS
            }
            Err(e) if e.kind() == host_runtime::outbox::StoreErrorKind::Refused => {
                term.error(&chain(&e));
                ExitCode::from(1)
            }
            Err(e) => {
                term.error(&chain(&e));
                ExitCode::from(2)
            }
        },
        Action::Grants { .. } => ExitCode::SUCCESS,
    }
}

/// `e` and its causes, `: `-separated (a store error's cause is the driver's own words).
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let said = c.to_string();
        if !out.contains(&said) {
            out += &format!(": {said}");
        }
        cause = c.source();
    }
    out
}
