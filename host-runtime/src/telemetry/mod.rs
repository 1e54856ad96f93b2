//! The runtime's metrics: their names ([`names`]) and where each is recorded from ([`record`]),
//! below every group that records them. The public face is `host_runtime::observe`.

pub mod names;
mod record;

pub(crate) use self::record::*;
