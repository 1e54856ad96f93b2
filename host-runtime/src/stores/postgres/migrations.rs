//! The schema of the PostgreSQL stores, as numbered migrations: applied at start-up by
//! [`migrate`](super::migrate), or printed by `cargo host postgres-schema` for teams that run their
//! own migrations. An application's own tables are migrations too, applied by
//! [`migrate_with`](super::migrate_with) under the same lock and recorded in the same history,
//! each with the checksum of its SQL, so that one edited after it was applied is refused at start.

use sha2::{Digest, Sha256};

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

impl Migration {
    /// The SHA-256 of its SQL, in hex: what the history records, so that a migration edited after
    /// a database applied it is told from the one applied.
    pub fn checksum(&self) -> String {
        Sha256::digest(self.sql.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// The name under which the SDK's own migrations are recorded; an application names its own.
pub const COMPONENT: &str = "host";

/// Every migration of the SDK's stores, oldest first.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "deduplication keys and the outbox",
        sql: include_str!("migrations/0001_stores.sql"),
    },
    Migration {
        version: 2,
        name: "one id, one event: digests and delivered ids in the outbox",
        sql: include_str!("migrations/0002_outbox_ids.sql"),
    },
    Migration {
        version: 3,
        name: "no NOTIFY in the commits that add events",
        sql: include_str!("migrations/0003_outbox_no_notify_on_commit.sql"),
    },
];

/// The table that records which migrations a database has, of the SDK (`component` `host`) and of
/// the application, with each one's checksum. A table of an earlier release (no `component`, no
/// `checksum`, keyed by `version`) is brought to this shape; its rows are the SDK's, and their
/// checksums are filled in on the next start.
pub(crate) const HISTORY: &str = "CREATE TABLE IF NOT EXISTS host_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    component text NOT NULL DEFAULT 'host',
    checksum text,
    PRIMARY KEY (component, version)
);
ALTER TABLE host_migrations ADD COLUMN IF NOT EXISTS component text NOT NULL DEFAULT 'host';
ALTER TABLE host_migrations ADD COLUMN IF NOT EXISTS checksum text;
DO $$
BEGIN
    IF (SELECT count(*) FROM pg_index i, unnest(i.indkey) AS k
        WHERE i.indrelid = 'host_migrations'::regclass AND i.indisprimary) = 1 THEN
        ALTER TABLE host_migrations DROP CONSTRAINT host_migrations_pkey;
        ALTER TABLE host_migrations ADD PRIMARY KEY (component, version);
    END IF;
END
$$";

/// The whole schema as one script, for teams that run their own migrations: every migration in
/// order, each in a transaction with the row (and checksum) that tells [`migrate`](super::migrate)
/// it is there, so a server started later applies only what is newer. Running it twice fails on
/// the first table that exists; apply only the migrations a database lacks (`host_migrations`
/// lists them).
pub fn schema() -> String {
    let mut out =
        String::from("-- The host SDK's PostgreSQL stores (deduplication keys, the outbox).\n");
    out += HISTORY;
    out += ";\n";
    for m in MIGRATIONS {
        out += &format!("\n-- Migration {}: {}\nBEGIN;\n", m.version, m.name);
        out += m.sql.trim_end();
        out += &format!(
            "\nINSERT INTO host_migrations (component, version, name, checksum) VALUES ('{COMPONENT}', {}, '{}', '{}');\nCOMMIT;\n",
            m.version,
            m.name.replace('\'', "''"),
            m.checksum()
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
    fn a_checksum_is_the_sha256_of_the_sql() {
        let m = Migration {
            version: 1,
            name: "n",
            sql: "",
        };
        assert_eq!(
            m.checksum(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(MIGRATIONS[0].checksum().len(), 64);
    }

    #[test]
    fn the_script_records_every_migration() {
        let script = schema();
        for m in MIGRATIONS {
            assert!(script.contains(m.sql.trim_end()));
            assert!(script.contains(&format!("VALUES ('host', {}, ", m.version)));
            assert!(script.contains(&m.checksum()));
        }
    }
}
