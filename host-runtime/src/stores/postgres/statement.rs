//! The stores' statements, and the two ways they reach PostgreSQL.
//!
//! - **Prepared** (the default): sqlx's named prepared statements, cached on each connection,
//!   the values bound. The server plans each statement once per connection.
//! - **Inline**, for a pool behind a pooler in transaction mode (PgBouncer, Supavisor, RDS Proxy:
//!   how Supabase, Neon and RDS are reached): there one client connection's statements run on
//!   whichever server connection is free, so a statement prepared on one (`sqlx_s_1`) is missing
//!   on the next or clashes with another client's of the same name, and even an unnamed one is
//!   lost between sqlx's two round trips (parse, then bind). Each statement is then one message of
//!   the simple query protocol with its values written into its text: no state on the server, one
//!   round trip. The server plans it every time, which costs about a third of the transactional
//!   path's rate (BENCHMARKS.md), so it is used only where it must be: for a pool
//!   [`connect_with`](super::connect_with) found (or was told) is behind such a pooler, or one
//!   given to [`behind_pooler`](super::behind_pooler). A prepared statement such a pooler refuses
//!   (SQLSTATE `26000`, `42P05`) marks its pool too, and is sent again inline when no transaction
//!   it ended holds the connection.
//!
//! Inline values cannot change the statement: text and bytes are written as hexadecimal digits
//! (`convert_from(decode('68656c6c6f', 'hex'), 'UTF8')`), integers quoted with their type, so
//! nothing a value holds (a quote, a backslash, a `--`) reaches the SQL as anything but
//! hexadecimal digits, whatever the server's `standard_conforming_strings`. Results then come back
//! as text, which sqlx decodes for the types the stores read (`bytea` in the default
//! `bytea_output = hex`).

use std::collections::HashSet;
use std::sync::{Mutex, PoisonError};

use sqlx::postgres::{PgArguments, PgQueryResult, PgRow};
use sqlx::{Executor as _, PgConnection, PgPool, Postgres};

use crate::platform::BoxFuture;

/// How a statement reaches the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Send {
    /// Prepared, cached on the connection, its values bound; the pool's identity
    /// ([`pool_of`](super::pool_of)), marked if a pooler refuses the statement.
    Prepared(usize),
    /// One simple-protocol message, its values written in.
    Inline,
}

/// The pools marked as behind a pooler in transaction mode, by identity
/// ([`pool_of`](super::pool_of)). Only that mark is kept: a pool of your own made later at the
/// address of a dropped one could inherit it, which costs it speed, never correctness; one made by
/// [`connect_with`](super::connect_with) is marked or cleared as it finds.
static POOLED: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

impl Send {
    /// How statements reach `pool`'s server.
    pub(crate) fn of(pool: &PgPool) -> Send {
        let pooled = POOLED.lock().unwrap_or_else(PoisonError::into_inner);
        let id = super::pool_of(pool);
        if pooled.as_ref().is_some_and(|set| set.contains(&id)) {
            Send::Inline
        } else {
            Send::Prepared(id)
        }
    }

    /// Marks `pool` as behind a pooler in transaction mode.
    pub(crate) fn mark_pooled(pool: &PgPool) {
        mark(super::pool_of(pool));
    }

    /// Clears a mark `pool` inherited from a dropped pool that lived at its address: for a pool
    /// [`connect_with`](super::connect_with) just found reaches the database directly.
    pub(crate) fn clear_mark(pool: &PgPool) {
        if let Some(set) = POOLED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            set.remove(&super::pool_of(pool));
        }
    }

    /// After `failed`, sent this way: whether a pooler in transaction mode refused a prepared
    /// statement (one prepared on another server connection, or another client's of the same
    /// name). The pool is then marked, so that its statements are sent unprepared from now on, and
    /// the change is logged once.
    fn refused_by_pooler(self, failed: &sqlx::Error) -> bool {
        let Send::Prepared(id) = self else {
            return false;
        };
        let sqlx::Error::Database(db) = failed else {
            return false;
        };
        let refused = match db.code().as_deref() {
            // invalid_sql_statement_name, duplicate_prepared_statement
            Some("26000" | "42P05") => true,
            // protocol_violation: "bind message supplies 2 parameters, but prepared statement ..."
            Some("08P01") => db.message().contains("prepared statement"),
            _ => false,
        };
        if refused && mark(id) {
            tracing::warn!(
                error = %db.message(),
                "a pooler in transaction mode refused a prepared statement: this pool's statements \
                 are sent unprepared from now on (connect_with finds most poolers at start; \
                 Settings::with_transaction_pooler(true) says so for one it misses)"
            );
        }
        refused
    }
}

/// Marks the pool `id`; whether it was not marked before.
fn mark(id: usize) -> bool {
    POOLED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(HashSet::new)
        .insert(id)
}

/// One value of a statement.
#[derive(Debug, Clone)]
enum Value<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
    Int(i64),
    Bool(bool),
    Texts(Vec<&'a str>),
    Null,
}

/// A statement of the stores and its values, for `$1`, `$2`, ... in its text.
#[derive(Debug, Clone)]
pub(crate) struct Statement<'a> {
    sql: &'static str,
    values: Vec<Value<'a>>,
}

impl<'a> Statement<'a> {
    /// `sql`, whose `$n` are the values given next, in order.
    pub(crate) fn new(sql: &'static str) -> Self {
        Statement {
            sql,
            values: Vec::new(),
        }
    }

    /// A `text` value.
    pub(crate) fn text(mut self, value: &'a str) -> Self {
        self.values.push(Value::Text(value));
        self
    }

    /// A `text` value or `NULL`.
    pub(crate) fn text_or_null(mut self, value: Option<&'a str>) -> Self {
        self.values.push(value.map_or(Value::Null, Value::Text));
        self
    }

    /// A `bytea` value.
    pub(crate) fn bytes(mut self, value: &'a [u8]) -> Self {
        self.values.push(Value::Bytes(value));
        self
    }

    /// A `bigint` value (an `integer` column takes it as long as it fits).
    pub(crate) fn int(mut self, value: i64) -> Self {
        self.values.push(Value::Int(value));
        self
    }

    /// A `boolean` value.
    pub(crate) fn bool(mut self, value: bool) -> Self {
        self.values.push(Value::Bool(value));
        self
    }

    /// A `text[]` value.
    pub(crate) fn texts(mut self, values: impl IntoIterator<Item = &'a str>) -> Self {
        self.values.push(Value::Texts(values.into_iter().collect()));
        self
    }

    /// The statement's text, each `$n` outside a quoted string replaced by its value. A `$n`
    /// with no value is left as it is (PostgreSQL then refuses the statement, naming it).
    pub(crate) fn render(&self) -> String {
        let sql = self.sql;
        let mut out = String::with_capacity(sql.len() + 64 * self.values.len());
        let mut chars = sql.char_indices().peekable();
        let mut quoted = false;
        while let Some((i, c)) = chars.next() {
            if c == '\'' {
                quoted = !quoted;
                out.push(c);
                continue;
            }
            if c != '$' || quoted {
                out.push(c);
                continue;
            }
            let start = i + 1;
            let mut end = start;
            while let Some(&(j, d)) = chars.peek() {
                if !d.is_ascii_digit() {
                    break;
                }
                end = j + 1;
                chars.next();
            }
            let value = sql[start..end]
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|n| self.values.get(n));
            match value {
                Some(value) => write_value(&mut out, value),
                None => out.push_str(&sql[i..end]),
            }
        }
        out
    }

    /// The statement prepared, with its values bound.
    fn bound(&self) -> sqlx::query::Query<'a, Postgres, PgArguments> {
        let mut query = sqlx::query(self.sql);
        for value in &self.values {
            query = match value {
                Value::Text(text) => query.bind(*text),
                Value::Bytes(bytes) => query.bind(*bytes),
                Value::Int(n) => query.bind(*n),
                Value::Bool(b) => query.bind(*b),
                Value::Texts(texts) => query.bind(texts.clone()),
                Value::Null => query.bind(None::<&str>),
            };
        }
        query
    }

    /// Runs it on `conn`, sent as `send` says: every row it returns. (Boxed, as the stores' other
    /// statements: a sqlx call awaited in an `async fn` would make a handler's future not `Send`
    /// for every lifetime.)
    pub(crate) fn fetch_all<'c>(
        self,
        conn: &'c mut PgConnection,
        send: Send,
    ) -> BoxFuture<'c, Result<Vec<PgRow>, sqlx::Error>>
    where
        'a: 'c,
    {
        Box::pin(async move {
            let done = match send {
                Send::Prepared(_) => self.bound().fetch_all(&mut *conn).await,
                Send::Inline => return conn.fetch_all(sqlx::raw_sql(&self.render())).await,
            };
            match done {
                // Sent again unprepared, unless a transaction the refusal ended holds it.
                Err(e)
                    if send.refused_by_pooler(&e)
                        && !sqlx::Connection::is_in_transaction(&*conn) =>
                {
                    conn.fetch_all(sqlx::raw_sql(&self.render())).await
                }
                done => done,
            }
        })
    }

    /// Runs it on `conn`: its first row, if any.
    pub(crate) fn fetch_optional<'c>(
        self,
        conn: &'c mut PgConnection,
        send: Send,
    ) -> BoxFuture<'c, Result<Option<PgRow>, sqlx::Error>>
    where
        'a: 'c,
    {
        Box::pin(async move {
            let done = match send {
                Send::Prepared(_) => self.bound().fetch_optional(&mut *conn).await,
                Send::Inline => return conn.fetch_optional(sqlx::raw_sql(&self.render())).await,
            };
            match done {
                // Sent again unprepared, unless a transaction the refusal ended holds it.
                Err(e)
                    if send.refused_by_pooler(&e)
                        && !sqlx::Connection::is_in_transaction(&*conn) =>
                {
                    conn.fetch_optional(sqlx::raw_sql(&self.render())).await
                }
                done => done,
            }
        })
    }

    /// Runs it on `conn`: what it did.
    pub(crate) fn execute<'c>(
        self,
        conn: &'c mut PgConnection,
        send: Send,
    ) -> BoxFuture<'c, Result<PgQueryResult, sqlx::Error>>
    where
        'a: 'c,
    {
        Box::pin(async move {
            let done = match send {
                Send::Prepared(_) => self.bound().execute(&mut *conn).await,
                Send::Inline => return conn.execute(sqlx::raw_sql(&self.render())).await,
            };
            match done {
                // Sent again unprepared, unless a transaction the refusal ended holds it.
                Err(e)
                    if send.refused_by_pooler(&e)
                        && !sqlx::Connection::is_in_transaction(&*conn) =>
                {
                    conn.execute(sqlx::raw_sql(&self.render())).await
                }
                done => done,
            }
        })
    }

    /// [`fetch_all`](Self::fetch_all) on a connection of `pool`, sent as the pool needs.
    pub(crate) fn fetch_all_in<'p>(
        self,
        pool: &'p PgPool,
    ) -> BoxFuture<'p, Result<Vec<PgRow>, sqlx::Error>>
    where
        'a: 'p,
    {
        Box::pin(async move {
            let mut conn = pool.acquire().await?;
            self.fetch_all(&mut conn, Send::of(pool)).await
        })
    }

    /// [`fetch_optional`](Self::fetch_optional) on a connection of `pool`.
    pub(crate) fn fetch_optional_in<'p>(
        self,
        pool: &'p PgPool,
    ) -> BoxFuture<'p, Result<Option<PgRow>, sqlx::Error>>
    where
        'a: 'p,
    {
        Box::pin(async move {
            let mut conn = pool.acquire().await?;
            self.fetch_optional(&mut conn, Send::of(pool)).await
        })
    }

    /// [`execute`](Self::execute) on a connection of `pool`.
    pub(crate) fn execute_in<'p>(
        self,
        pool: &'p PgPool,
    ) -> BoxFuture<'p, Result<PgQueryResult, sqlx::Error>>
    where
        'a: 'p,
    {
        Box::pin(async move {
            let mut conn = pool.acquire().await?;
            self.execute(&mut conn, Send::of(pool)).await
        })
    }
}

/// `value` as a literal: nothing but digits, hexadecimal digits, a sign, and fixed words.
fn write_value(out: &mut String, value: &Value<'_>) {
    use std::fmt::Write as _;
    match value {
        Value::Text(text) => {
            out.push_str("convert_from(decode('");
            hex(out, text.as_bytes());
            out.push_str("', 'hex'), 'UTF8')");
        }
        Value::Bytes(bytes) => {
            out.push_str("decode('");
            hex(out, bytes);
            out.push_str("', 'hex')");
        }
        // Quoted, so that the least bigint (whose digits alone are out of range) is one too.
        Value::Int(n) => {
            let _ = write!(out, "'{n}'::bigint");
        }
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Texts(texts) => {
            out.push_str("ARRAY[");
            for (i, text) in texts.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, &Value::Text(text));
            }
            out.push_str("]::text[]");
        }
        Value::Null => out.push_str("NULL"),
    }
}

fn hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn values_become_hexadecimal_digits_and_numbers_only() {
        let rendered = Statement::new("SELECT $1, $2, $3, $4, $5, $6, '$1', $7")
            .text("it's -- a \\ quote'; DROP TABLE x; --")
            .bytes(&[0, 255, b'\''])
            .int(-5)
            .bool(true)
            .text_or_null(None)
            .texts(["a'", "b"])
            .render();
        assert_eq!(
            rendered,
            "SELECT convert_from(decode('69742773202d2d2061205c2071756f7465273b2044524f50205441424c4520783b202d2d', 'hex'), 'UTF8'), \
             decode('00ff27', 'hex'), '-5'::bigint, true, NULL, \
             ARRAY[convert_from(decode('6127', 'hex'), 'UTF8'), convert_from(decode('62', 'hex'), 'UTF8')]::text[], \
             '$1', $7"
        );
    }

    #[test]
    fn a_placeholder_without_a_value_is_left_for_the_server_to_refuse() {
        let rendered = Statement::new("SELECT $1, $2, $10").int(1).render();
        assert_eq!(rendered, "SELECT '1'::bigint, $2, $10");
        assert_eq!(Statement::new("SELECT $").render(), "SELECT $");
    }

    /// Behind a pooler in transaction mode with one server connection, two client connections of a
    /// pool nobody marked prepare different statements under sqlx's first name, `sqlx_s_1`, on
    /// that one server connection: the second is refused ("already exists"), sent again
    /// unprepared with the right answer, and the pool's statements are unprepared from then on.
    #[tokio::test]
    async fn a_statement_a_pooler_refuses_is_sent_again_unprepared() {
        use sqlx::Row as _;
        let Some(server) = host_test_support::PostgresServer::start_or_skip() else {
            return;
        };
        let Some(bouncer) = host_test_support::PgBouncer::start_or_skip(&server, 1) else {
            return;
        };
        let options = super::super::database::options_of(&bouncer.url()).unwrap();
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(2)
            .connect_with(options)
            .await
            .unwrap();
        let (mut a, mut b) = (pool.acquire().await.unwrap(), pool.acquire().await.unwrap());
        assert!(matches!(Send::of(&pool), Send::Prepared(_)));
        let first = Statement::new("SELECT $1::text AS t")
            .text("first")
            .fetch_optional(&mut a, Send::of(&pool))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(first.try_get::<String, _>("t").unwrap(), "first");
        let second = Statement::new("SELECT $1::bigint AS n, $2::text AS t")
            .int(7)
            .text("second")
            .fetch_optional(&mut b, Send::of(&pool))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(second.try_get::<i64, _>("n").unwrap(), 7);
        assert_eq!(second.try_get::<String, _>("t").unwrap(), "second");
        assert_eq!(Send::of(&pool), Send::Inline);
        // The first connection's statement too goes unprepared now, its cached name unused.
        let again = Statement::new("SELECT $1::text AS t")
            .text("again")
            .fetch_optional(&mut a, Send::of(&pool))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(again.try_get::<String, _>("t").unwrap(), "again");
    }

    /// Values of every kind go to a real server and come back as they were: text with quotes,
    /// backslashes, comments and any Unicode, any bytes, the extreme integers.
    #[tokio::test]
    async fn values_come_back_from_the_server_as_they_were() {
        use sqlx::{Connection as _, Row as _};
        let Some(server) = host_test_support::PostgresServer::start_or_skip() else {
            return;
        };
        let mut conn = sqlx::PgConnection::connect(&server.url()).await.unwrap();
        let texts = [
            "",
            "it's",
            "\\x41 \\' -- /* */ $1 $$ $tag$",
            "ünïcödé 日本 🦀",
            "'; DROP TABLE host_outbox; --",
        ];
        for (text, send) in texts
            .iter()
            .flat_map(|t| [(*t, Send::Inline), (*t, Send::Prepared(0))])
        {
            for n in [i64::MIN, -1, 0, 1, i64::MAX] {
                let bytes: Vec<u8> = (0..=255).collect();
                let row =
                    Statement::new("SELECT $1 AS t, $2 AS b, $3 AS n, $4 AS y, $5 AS z, $6 AS a")
                        .text(text)
                        .bytes(&bytes)
                        .int(n)
                        .bool(n > 0)
                        .text_or_null(None)
                        .texts([text, "b"])
                        .fetch_optional(&mut conn, send)
                        .await
                        .unwrap()
                        .unwrap();
                assert_eq!(row.try_get::<String, _>("t").unwrap(), text);
                assert_eq!(row.try_get::<Vec<u8>, _>("b").unwrap(), bytes);
                assert_eq!(row.try_get::<i64, _>("n").unwrap(), n);
                assert_eq!(row.try_get::<bool, _>("y").unwrap(), n > 0);
                assert_eq!(row.try_get::<Option<String>, _>("z").unwrap(), None);
                let a: String = Statement::new("SELECT array_to_string($1, '|')")
                    .texts([text, "b"])
                    .fetch_optional(&mut conn, send)
                    .await
                    .unwrap()
                    .unwrap()
                    .try_get(0)
                    .unwrap();
                assert_eq!(a, format!("{text}|b"));
            }
        }
        // Off, the old escaping rules would read backslashes in a plain literal: nothing changes.
        sqlx::raw_sql("SET standard_conforming_strings = off")
            .execute(&mut conn)
            .await
            .unwrap();
        let row = Statement::new("SELECT $1")
            .text(texts[2])
            .fetch_optional(&mut conn, Send::Inline)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(row.try_get::<String, _>(0).unwrap(), texts[2]);
    }

    proptest! {
        /// Whatever a value holds, what reaches the SQL is the template's text with hexadecimal
        /// digits in the value's place.
        #[test]
        fn no_value_reaches_the_sql_as_anything_but_hex(text in any::<String>(), bytes in any::<Vec<u8>>(), n in any::<i64>()) {
            let rendered = Statement::new("SELECT $1 || 'x', $2, $3").text(&text).bytes(&bytes).int(n).render();
            let hex_text: String = text.bytes().map(|b| format!("{b:02x}")).collect();
            let hex_bytes: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            prop_assert_eq!(
                rendered,
                format!("SELECT convert_from(decode('{hex_text}', 'hex'), 'UTF8') || 'x', decode('{hex_bytes}', 'hex'), '{n}'::bigint")
            );
        }
    }
}
