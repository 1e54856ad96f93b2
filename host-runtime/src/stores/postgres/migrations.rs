//! The schema of the PostgreSQL stores, as numbered migrations: applied at start-up by
//! [`migrate`](super::migrate), or printed by `cargo host postgres-schema` for teams that run their
//! own migrations.

/// One step of the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migration {
    /// Its number: migrations apply in this order, each once.
    pub version: i32,
    /// What it does, in a few words.
    pub name: &'static str,
    /// The SQL, several statements.
    pub sql: &'static str,
}

/// Every migration, oldest first.
pub const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "deduplication keys and the outbox",
    sql: include_str!("migrations/0001_stores.sql"),
}];

/// The table that records which migrations a database has.
pub(crate) const HISTORY: &str = "CREATE TABLE IF NOT EXISTS host_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)";

/// The whole schema as one script, for teams that run their own migrations: every migration in
/// order, each in a transaction with the row that tells [`migrate`](super::migrate) it is there, so
/// a server started later applies only what is newer. Running it twice fails on the first table
/// that exists; apply only the migrations a database lacks (`host_migrations` lists them).
pub fn schema() -> String {
    let mut out =
        String::from("-- The host SDK's PostgreSQL stores (deduplication keys, the outbox).\n");
    out += HISTORY;
    out += ";\n";
    for m in MIGRATIONS {
        out += &format!("\n-- Migration {}: {}\nBEGIN;\n", m.version, m.name);
        out += m.sql.trim_end();
        out += &format!(
            "\nINSERT INTO host_migrations (version, name) VALUES ({}, '{}');\nCOMMIT;\n",
            m.version,
            m.name.replace('\'', "''")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_numbered_in_order_from_one() {
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(usize::try_from(m.version).ok(), Some(i + 1), "{}", m.name);
        }
    }

    #[test]
    fn the_script_records_every_migration() {
        let script = schema();
        for m in MIGRATIONS {
            assert!(script.contains(m.sql.trim_end()));
            assert!(script.contains(&format!("VALUES ({}, ", m.version)));
        }
    }
}
