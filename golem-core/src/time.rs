//! Time as a value: the machine never reads a clock.
//!
//! A [`Moment`] is a point on the run's monotonic timeline, measured from an
//! arbitrary epoch chosen by the driver (usually the instant the driver's
//! clock was created). Because it is plain data it serialises into event logs
//! and tests can move it by hand.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// A point in time on a driver-chosen monotonic timeline (nanoseconds since
/// the driver's epoch).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Moment(u64);

impl Moment {
    /// The epoch of the timeline.
    pub const ZERO: Moment = Moment(0);

    /// A moment `nanos` nanoseconds after the epoch.
    pub const fn from_nanos(nanos: u64) -> Self {
        Moment(nanos)
    }

    /// A moment `millis` milliseconds after the epoch.
    pub const fn from_millis(millis: u64) -> Self {
        Moment(millis.saturating_mul(1_000_000))
    }

    /// Nanoseconds since the epoch.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    /// The time elapsed since the epoch.
    pub const fn since_epoch(self) -> Duration {
        Duration::from_nanos(self.0)
    }

    /// `self + d`, saturating at the end of the timeline.
    pub fn saturating_add(self, d: Duration) -> Moment {
        let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        Moment(self.0.saturating_add(nanos))
    }

    /// The duration from `earlier` to `self`, zero if `earlier` is later.
    pub fn saturating_duration_since(self, earlier: Moment) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }
}

impl std::ops::Add<Duration> for Moment {
    type Output = Moment;
    fn add(self, rhs: Duration) -> Moment {
        self.saturating_add(rhs)
    }
}

/// Serde helpers that store a [`Duration`] as whole milliseconds, the unit
/// used in configuration and event logs.
pub mod duration_ms {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    /// Serialise as milliseconds.
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    /// Deserialise from milliseconds.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }

    /// The same for `Option<Duration>`.
    pub mod option {
        use serde::{Deserialize, Deserializer, Serializer};
        use std::time::Duration;

        /// Serialise as optional milliseconds.
        pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
            match d {
                Some(d) => s.serialize_some(&u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
                None => s.serialize_none(),
            }
        }

        /// Deserialise from optional milliseconds.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
            Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
        }
    }

    /// The same for `Vec<Duration>`.
    pub mod vec {
        use serde::{Deserialize, Deserializer, Serializer};
        use std::time::Duration;

        /// Serialise as a list of milliseconds.
        pub fn serialize<S: Serializer>(d: &[Duration], s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(d.iter().map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)))
        }

        /// Deserialise from a list of milliseconds.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Duration>, D::Error> {
            Ok(Vec::<u64>::deserialize(d)?.into_iter().map(Duration::from_millis).collect())
        }
    }
}
