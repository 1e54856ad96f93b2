//! The stored form of an [`Entry`] and the dispatcher holding its claim, shared by the file and
//! Redis stores: a version byte, fixed-width numbers, then length-prefixed strings and the body as
//! it is. A record that does not read back whole is reported as damaged, never guessed at.

use super::Entry;

const VERSION: u8 = 1;
/// The length written for an absent `last_error`.
const NONE: u32 = u32::MAX;

/// Encodes `entry`, claimed by `owner` (empty: unclaimed).
pub(crate) fn encode(entry: &Entry, owner: &str) -> Vec<u8> {
    let error = entry.last_error.as_deref();
    let mut out = Vec::with_capacity(
        1 + 4
            + 8
            + 8
            + 12
            + owner.len()
            + entry.id.len()
            + error.map_or(0, str::len)
            + entry.body.len(),
    );
    out.push(VERSION);
    out.extend_from_slice(&entry.attempts.to_le_bytes());
    out.extend_from_slice(&entry.due.to_le_bytes());
    out.extend_from_slice(&entry.accepted.to_le_bytes());
    put_str(&mut out, Some(owner));
    put_str(&mut out, error);
    put_str(&mut out, Some(&entry.id));
    out.extend_from_slice(&entry.body);
    out
}

fn put_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        // Ids, owners and errors are far below 4 GiB; a longer one is cut at the limit.
        Some(s) => {
            let len = u32::try_from(s.len()).unwrap_or(NONE - 1);
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&s.as_bytes()[..len as usize]);
        }
        None => out.extend_from_slice(&NONE.to_le_bytes()),
    }
}

/// Why a stored record cannot be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DecodeError {
    /// Written by another version of the format.
    #[error("a record of format {0} (this build reads format {VERSION})")]
    Version(u8),
    /// Shorter than its lengths say.
    #[error("a record cut short at byte {0}")]
    CutShort(usize),
    /// A string that is not UTF-8.
    #[error("a record with a string that is not UTF-8 at byte {0}")]
    NotUtf8(usize),
    /// No event id.
    #[error("a record without an id")]
    NoId,
}

/// Decodes a record into the entry and the owner of its claim (empty: unclaimed).
pub(crate) fn decode(bytes: &[u8]) -> Result<(Entry, String), DecodeError> {
    let mut r = Reader { bytes, at: 0 };
    let version = r.take(1)?[0];
    if version != VERSION {
        return Err(DecodeError::Version(version));
    }
    let attempts = u32::from_le_bytes(r.array()?);
    let due = i64::from_le_bytes(r.array()?);
    let accepted = i64::from_le_bytes(r.array()?);
    let owner = r.string()?.unwrap_or_default();
    let last_error = r.string()?;
    let id = r.string()?.ok_or(DecodeError::NoId)?;
    let body = bytes[r.at..].to_vec();
    Ok((
        Entry {
            id,
            body,
            attempts,
            due,
            accepted,
            last_error,
        },
        owner,
    ))
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or(DecodeError::CutShort(self.at))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn string(&mut self) -> Result<Option<String>, DecodeError> {
        let len = u32::from_le_bytes(self.array()?);
        if len == NONE {
            return Ok(None);
        }
        let raw = self.take(len as usize)?;
        String::from_utf8(raw.to_vec())
            .map(Some)
            .map_err(|_| DecodeError::NotUtf8(self.at))
    }
}

/// The dead letter an unreadable pending record becomes, its bytes kept as the body: `list` and
/// `cargo host outbox` show it and it can be dropped, where it would otherwise stay pending out of
/// every view and never be posted.
#[cfg(any(feature = "redb", feature = "redis"))]
pub(crate) fn unreadable(id: &str, raw: Vec<u8>, why: &DecodeError, now: i64) -> Entry {
    tracing::error!(event_id = %id, error = %why, "an unreadable outbox record is moved to the dead letters");
    Entry {
        id: id.to_owned(),
        body: raw,
        attempts: 0,
        due: now,
        accepted: now,
        last_error: Some(format!(
            "the stored record cannot be read ({why}); it is kept here byte for byte: drop it, or \
             recover its event from the bytes"
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn entry() -> Entry {
        Entry {
            id: "rank.dropped-ins_1-2026-11-20".into(),
            body: br#"{"event":"rank.dropped"}"#.to_vec(),
            attempts: 3,
            due: 1_764_000_000_123,
            accepted: -5,
            last_error: Some("status 503".into()),
        }
    }

    #[test]
    fn records_read_back_whole() {
        let e = entry();
        assert_eq!(
            decode(&encode(&e, "owner-1")).unwrap(),
            (e.clone(), "owner-1".into())
        );
        let plain = Entry {
            last_error: None,
            body: Vec::new(),
            ..e
        };
        assert_eq!(decode(&encode(&plain, "")).unwrap(), (plain, String::new()));
    }

    #[test]
    fn every_truncation_and_a_foreign_version_are_errors_not_panics() {
        let bytes = encode(&entry(), "o");
        // Cut anywhere before the body starts: an error naming where.
        let body_at = bytes.len() - entry().body.len();
        for cut in 0..body_at {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut foreign = bytes.clone();
        foreign[0] = 9;
        assert!(
            decode(&foreign)
                .unwrap_err()
                .to_string()
                .contains("format 9")
        );
        // A length that points past the end.
        let mut long = bytes;
        long[21..25].copy_from_slice(&u32::MAX.wrapping_sub(7).to_le_bytes());
        assert!(decode(&long).is_err());
    }
}
