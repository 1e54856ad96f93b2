//! Bringing a database's schema up to date ([`migrate`]), or only checking that it is
//! ([`check`]), and the rights an application role needs when something else migrates
//! ([`grants`]).
//!
//! Both read `host_migrations` first, with reads alone: a database whose every migration is
//! recorded, each with the checksum of this build's SQL, is up to date, and [`migrate`] then
//! changes nothing and needs no right beyond `SELECT`. Only when a migration is missing does it
//! take the migration lock and change the schema, in one transaction.

use sqlx::{PgPool, Row as _};

use super::database::failed;
use super::migrations::{COMPONENT, HISTORY, MIGRATIONS, Migration};
use super::statement::{Send, Statement};
use crate::stores::store::{StoreError, StoreErrorKind};

/// The advisory lock [`migrate`] holds, so that instances starting together migrate one at a time.
const MIGRATION_LOCK: i64 = 0x686f_7374_5f73_646b; // "host_sdk"

/// What `host_migrations` records of a component: each version's checksum (`None`: recorded by a
/// release that kept none).
type Recorded = Vec<(i32, Option<String>)>;

/// Brings the database's schema up to date: applies the [`MIGRATIONS`](super::MIGRATIONS) it
/// lacks, each once, in one transaction, while holding a lock so that instances starting together
/// take turns. Returns the versions it applied (none when the schema was up to date).
///
/// An up-to-date database is found with reads alone, and nothing is changed: an application role
/// with rights on the data only (see [`grants`]) starts against a database its owner migrated.
/// Refuses when a migration the database applied differs from this build's (its checksum), naming
/// it: an edited migration would otherwise go unnoticed.
pub async fn migrate(pool: &PgPool) -> Result<Vec<i32>, StoreError> {
    Ok(run(pool, COMPONENT, &[]).await?.0)
}

/// [`migrate`], then `migrations`, an application's own (its tables beside the stores'), recorded
/// under `component` (the application's name; not `host`): all under the same lock and in the same
/// transaction, so that instances starting at the same moment never create a table twice. Returns
/// the versions of `migrations` it applied.
///
/// ```no_run
/// # #[cfg(feature = "postgres")]
/// # async fn start(pool: host_runtime::postgres::sqlx::PgPool) -> Result<(), Box<dyn std::error::Error>> {
/// use host_runtime::postgres::{self, Migration};
/// const MINE: &[Migration] = &[Migration {
///     version: 1,
///     name: "alerts",
///     sql: "CREATE TABLE alerts (id bigserial PRIMARY KEY, install text NOT NULL)",
/// }];
/// postgres::migrate_with(&pool, "keyword-tracker", MINE).await?;
/// # Ok(())
/// # }
/// ```
pub async fn migrate_with(
    pool: &PgPool,
    component: &str,
    migrations: &[Migration],
) -> Result<Vec<i32>, StoreError> {
    Ok(run(pool, component, migrations).await?.1)
}

/// Checks, with reads alone, that the database has every one of the SDK's migrations, each as this
/// build has it; changes nothing. For a server that starts as a role without the right to change
/// the schema, migrated by a separate step (`cargo host postgres migrate`, or [`migrate`] as the
/// schema's owner). Refuses a missing migration and an edited one, naming it and the fix.
/// Migrations the database has beyond this build's (a newer release applied them, as in a rolling
/// deploy) are allowed.
pub async fn check(pool: &PgPool) -> Result<(), StoreError> {
    check_with(pool, COMPONENT, &[]).await
}

/// [`check`], and `migrations` of `component` too.
pub async fn check_with(
    pool: &PgPool,
    component: &str,
    migrations: &[Migration],
) -> Result<(), StoreError> {
    match state(pool, component, migrations).await? {
        State::UpToDate => Ok(()),
        State::Missing(why) => Err(StoreError::new(
            "postgres",
            StoreErrorKind::Refused,
            format!(
                "{why}: migrate it first as a role that may change the schema (`cargo host postgres \
                 migrate --database-url <url>`, or `postgres::migrate`), or let the server apply \
                 migrations at start"
            ),
        )),
    }
}

/// Where a database stands against this build's migrations.
enum State {
    UpToDate,
    /// Something is to be applied: what, in words.
    Missing(String),
}

/// Reads where the database stands; an error for an edited migration (which no migration fixes).
async fn state(
    pool: &PgPool,
    component: &str,
    migrations: &[Migration],
) -> Result<State, StoreError> {
    refuse_reserved(component, migrations)?;
    let mut conn = pool
        .acquire()
        .await
        .map_err(|e| failed("cannot check the migrations: no connection", e))?;
    for (component, migrations) in [(COMPONENT, MIGRATIONS), (component, migrations)] {
        let Some(recorded) = recorded(&mut conn, Send::of(pool), component).await? else {
            return Ok(State::Missing(
                "the database has no migration history of this release (table host_migrations is \
                 missing or of an older shape)"
                    .to_owned(),
            ));
        };
        for m in migrations {
            edited(component, m, &recorded)?;
        }
        if let Some(missing) = migrations
            .iter()
            .find(|m| !recorded.iter().any(|(v, _)| *v == m.version))
        {
            return Ok(State::Missing(format!(
                "migration {} of `{component}` ({}) is not applied to this database",
                missing.version, missing.name
            )));
        }
    }
    Ok(State::UpToDate)
}

/// The statements that give `role` what a server needs of the SDK's tables when another role
/// migrates them: reading the history and reading and writing the stores' rows, nothing on the
/// schema. Run it as the tables' owner, with the `search_path` the server uses; give the role the
/// same on your own tables. `role` is quoted as an identifier.
///
/// ```
/// let script = host_runtime::postgres::grants("tracker_app");
/// assert!(script.contains(r#"GRANT SELECT ON host_migrations TO "tracker_app";"#));
/// ```
pub fn grants(role: &str) -> String {
    let role = format!("\"{}\"", role.replace('"', "\"\""));
    format!(
        "-- What the host SDK's stores need of an application role that does not migrate.\n\
         GRANT USAGE ON SCHEMA public TO {role};\n\
         GRANT SELECT ON host_migrations TO {role};\n\
         GRANT SELECT, INSERT, UPDATE, DELETE ON host_dedupe, host_outbox TO {role};\n"
    )
}

/// A component of an application must not be the SDK's own.
fn refuse_reserved(component: &str, migrations: &[Migration]) -> Result<(), StoreError> {
    if component == COMPONENT && !migrations.is_empty() {
        return Err(StoreError::new(
            "postgres",
            StoreErrorKind::Refused,
            format!(
                "`{COMPONENT}` names the SDK's own migrations: record yours under your application's name"
            ),
        ));
    }
    Ok(())
}

/// What `host_migrations` records of `component`; `None` when the table is missing or of an
/// earlier release's shape (only a migration brings it up to date).
async fn recorded(
    conn: &mut sqlx::PgConnection,
    send: Send,
    component: &str,
) -> Result<Option<Recorded>, StoreError> {
    // Asked first, so that a database without the table logs no error.
    let shape = Statement::new(
        "SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass('host_migrations') \
         AND attname IN ('component', 'checksum') AND NOT attisdropped",
    )
    .fetch_optional(conn, send)
    .await
    .and_then(|row| row.map_or(Ok(0), |row| row.try_get::<i64, _>(0)))
    .map_err(|e| failed("cannot read host_migrations", e))?;
    if shape != 2 {
        return Ok(None);
    }
    let rows = Statement::new("SELECT version, checksum FROM host_migrations WHERE component = $1")
        .text(component)
        .fetch_all(conn, send)
        .await
        .map_err(|e| failed("cannot read host_migrations", e))?;
    rows.iter()
        .map(|row| {
            Ok((
                row.try_get::<i32, _>(0)?,
                row.try_get::<Option<String>, _>(1)?,
            ))
        })
        .collect::<Result<_, sqlx::Error>>()
        .map(Some)
        .map_err(|e| failed("cannot read host_migrations", e))
}

/// Refuses migration `m` when the database recorded another checksum for its version.
fn edited(component: &str, m: &Migration, recorded: &Recorded) -> Result<(), StoreError> {
    let checksum = m.checksum();
    match recorded.iter().find(|(version, _)| *version == m.version) {
        Some((_, Some(was))) if *was != checksum => Err(StoreError::new(
            "postgres",
            StoreErrorKind::Refused,
            format!(
                "migration {} of `{component}` ({}) is not the one this database applied: its SQL \
                 changed since (checksum {was} recorded, {checksum} now). Put the migration back as \
                 it was and make the change a new migration",
                m.version, m.name
            ),
        )),
        _ => Ok(()),
    }
}

/// Applies the SDK's migrations, then `component`'s; gives the versions applied of each. Reads
/// first, and changes the schema (under the lock) only when something is missing.
async fn run(
    pool: &PgPool,
    component: &str,
    migrations: &[Migration],
) -> Result<(Vec<i32>, Vec<i32>), StoreError> {
    if let State::UpToDate = state(pool, component, migrations).await? {
        return Ok((Vec::new(), Vec::new()));
    }
    let step = |what: &'static str| move |e| failed(format!("cannot migrate: {what}"), e);
    let send = Send::of(pool);
    let mut tx = pool.begin().await.map_err(step("no connection"))?;
    Statement::new("SELECT pg_advisory_xact_lock($1)")
        .int(MIGRATION_LOCK)
        .execute(&mut tx, send)
        .await
        .map_err(step("the migration lock"))?;
    sqlx::raw_sql(HISTORY)
        .execute(&mut *tx)
        .await
        .map_err(step("the table host_migrations"))?;
    let host = apply(&mut tx, send, COMPONENT, MIGRATIONS).await?;
    let mine = apply(&mut tx, send, component, migrations).await?;
    tx.commit().await.map_err(step("the commit"))?;
    if !host.is_empty() {
        tracing::info!(versions = ?host, "PostgreSQL stores migrated");
    }
    if !mine.is_empty() {
        tracing::info!(component, versions = ?mine, "PostgreSQL migrations applied");
    }
    Ok((host, mine))
}

/// Applies `component`'s migrations the database lacks in `tx`, after checking the ones it has
/// against their checksums. Gives the versions applied.
async fn apply(
    tx: &mut sqlx::Transaction<'static, sqlx::Postgres>,
    send: Send,
    component: &str,
    migrations: &[Migration],
) -> Result<Vec<i32>, StoreError> {
    let have = recorded(tx, send, component).await?.unwrap_or_default();
    let mut applied = Vec::new();
    for m in migrations {
        edited(component, m, &have)?;
        let checksum = m.checksum();
        match have.iter().find(|(version, _)| *version == m.version) {
            // Recorded by a release that kept no checksums: it is taken as applied.
            Some((_, None)) => {
                Statement::new(
                    "UPDATE host_migrations SET checksum = $3 WHERE component = $1 AND version = $2",
                )
                .text(component)
                .int(m.version.into())
                .text(&checksum)
                .execute(tx, send)
                .await
                .map_err(|e| failed("cannot migrate: recording a checksum", e))?;
            }
            Some(_) => {}
            None => {
                sqlx::raw_sql(m.sql).execute(&mut **tx).await.map_err(|e| {
                    failed(
                        format!(
                            "migration {} of `{component}` ({}) failed",
                            m.version, m.name
                        ),
                        e,
                    )
                })?;
                Statement::new(
                    "INSERT INTO host_migrations (component, version, name, checksum) VALUES ($1, $2, $3, $4)",
                )
                .text(component)
                .int(m.version.into())
                .text(m.name)
                .text(&checksum)
                .execute(tx, send)
                .await
                .map_err(|e| failed("cannot migrate: recording a migration", e))?;
                applied.push(m.version);
            }
        }
    }
    Ok(applied)
}
