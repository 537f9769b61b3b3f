//! Clocks: the system clock for the binaries, a fixed clock for tests.

use crate::validator::Clock;
use std::time::{SystemTime, UNIX_EPOCH};

/// The system time as RFC 3339 UTC, whole seconds.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> String {
        let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        rfc3339(secs as i64)
    }
}

/// Always the same instant.
pub struct FixedClock(pub String);

impl Clock for FixedClock {
    fn now(&self) -> String {
        self.0.clone()
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the Unix epoch (proleptic Gregorian calendar).
pub fn rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc3339_dates() {
        let cases = [
            (0, "1970-01-01T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_787_257_800, "2026-08-20T20:30:00Z"),
            (4_107_542_399, "2100-02-28T23:59:59Z"),
        ];
        for (secs, want) in cases {
            assert_eq!(super::rfc3339(secs), want);
        }
    }
}
