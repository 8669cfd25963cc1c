//! A small HTTP-date parser (RFC 9110 §5.6.7) for `Retry-After` and `Date`.
//!
//! Pure and total: any input yields `Some(unix seconds)` or `None`, never a
//! panic, so it is safe on hostile headers. All three historic forms are
//! accepted — IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850
//! (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37
//! 1994`) — because RFC 9110 requires recipients to read all three.

/// Longer values are not dates; refusing them early keeps the work bounded.
const MAX_LEN: usize = 64;

const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const SHORT_DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const LONG_DAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/// Parse an HTTP-date into seconds since the Unix epoch (negative before
/// 1970).
///
/// The weekday must be a valid name but is not checked against the date:
/// senders get it wrong, and the date itself is what matters.
///
/// ```
/// use golem_providers::http_date::parse;
///
/// assert_eq!(parse("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777));
/// assert_eq!(parse("Sunday, 06-Nov-94 08:49:37 GMT"), Some(784_111_777));
/// assert_eq!(parse("Sun Nov  6 08:49:37 1994"), Some(784_111_777));
/// assert_eq!(parse("soon"), None);
/// ```
pub fn parse(text: &str) -> Option<i64> {
    let text = text.trim();
    if text.len() > MAX_LEN || !text.is_ascii() {
        return None;
    }
    let mut tokens = [""; 6];
    let mut count = 0;
    for token in text.split_ascii_whitespace() {
        *tokens.get_mut(count)? = token;
        count += 1;
    }
    match &tokens[..count] {
        [weekday, day, month, year, time, "GMT"] => {
            let weekday = weekday.strip_suffix(',')?;
            SHORT_DAYS.contains(&weekday).then_some(())?;
            let year = digits(year, 4, 4)?;
            build(year, month_number(month)?, digits(day, 1, 2)?, time)
        }
        [weekday, date, time, "GMT"] => {
            let weekday = weekday.strip_suffix(',')?;
            LONG_DAYS.contains(&weekday).then_some(())?;
            let mut parts = date.split('-');
            let (day, month, year) = (parts.next()?, parts.next()?, parts.next()?);
            if parts.next().is_some() {
                return None;
            }
            // RFC 850 years have two digits; read them in a 1970–2069 window
            // rather than relative to a clock, which a pure parser lacks.
            let yy = digits(year, 2, 2)?;
            let year = if yy < 70 { 2000 + yy } else { 1900 + yy };
            build(year, month_number(month)?, digits(day, 1, 2)?, time)
        }
        [weekday, month, day, time, year] => {
            SHORT_DAYS.contains(weekday).then_some(())?;
            build(digits(year, 4, 4)?, month_number(month)?, digits(day, 1, 2)?, time)
        }
        _ => None,
    }
}

/// Format Unix seconds as an IMF-fixdate — the inverse of [`parse`], used by
/// tests and loopback servers that need a `Date` header.
///
/// ```
/// assert_eq!(golem_providers::http_date::format(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT");
/// ```
pub fn format(unix: i64) -> String {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    // 1970-01-01 was a Thursday (index 3 in SHORT_DAYS).
    let weekday = SHORT_DAYS[usize::try_from((days + 3).rem_euclid(7)).unwrap_or(0)];
    let month = MONTHS[usize::try_from(month - 1).unwrap_or(0)];
    format!("{weekday}, {day:02} {month} {year:04} {:02}:{:02}:{:02} GMT", secs / 3600, secs / 60 % 60, secs % 60)
}

/// Unix seconds as UTC (year, month, day, hour, minute, second), for
/// other timestamp formats (SigV4's `x-amz-date`).
#[cfg(feature = "bedrock")]
pub(crate) fn civil_utc(unix: i64) -> (i64, i64, i64, i64, i64, i64) {
    let (year, month, day) = civil_from_days(unix.div_euclid(86_400));
    let secs = unix.rem_euclid(86_400);
    (year, month, day, secs / 3600, secs / 60 % 60, secs % 60)
}

fn month_number(name: &str) -> Option<i64> {
    MONTHS.iter().position(|m| *m == name).and_then(|i| i64::try_from(i + 1).ok())
}

/// An unsigned decimal of `min..=max` ASCII digits.
fn digits(text: &str, min: usize, max: usize) -> Option<i64> {
    if text.len() < min || text.len() > max || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn build(year: i64, month: i64, day: i64, time: &str) -> Option<i64> {
    let mut parts = time.split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (h, m, s) = (digits(h, 2, 2)?, digits(m, 2, 2)?, digits(s, 2, 2)?);
    // 60 admits a leap second, which Unix time folds into the next second.
    if h > 23 || m > 59 || s > 60 || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + s)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The inverse of [`days_from_civil`].
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}
