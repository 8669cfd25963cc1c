//! Spreadsheet cell values as text: references (`B7`), numbers as Excel
//! shows them (15 significant digits), and serial dates and times in ISO
//! form when the cell's number format is a date or time format.

/// Where Excel's date formats put a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DateKind {
    Date,
    Time,
    DateTime,
}

/// The most columns (`XFD`) and rows a sheet can have.
pub(crate) const MAX_COLUMN: u32 = 16_384;
pub(crate) const MAX_ROW: u32 = 1_048_576;

/// A reference such as `AB12` as (column, row), both 1-based.
pub(crate) fn parse_ref(reference: &str) -> Option<(u32, u32)> {
    let split = reference.find(|c: char| c.is_ascii_digit())?;
    let (letters, digits) = reference.split_at(split);
    if letters.is_empty() || letters.len() > 3 {
        return None;
    }
    let mut column = 0u32;
    for c in letters.chars() {
        if !c.is_ascii_alphabetic() {
            return None;
        }
        column = column * 26 + (c.to_ascii_uppercase() as u32 - 'A' as u32 + 1);
    }
    let row = digits.parse::<u32>().ok()?;
    ((1..=MAX_COLUMN).contains(&column) && (1..=MAX_ROW).contains(&row)).then_some((column, row))
}

/// Column `n` (1-based) in letters.
pub(crate) fn column_name(mut n: u32) -> String {
    let mut letters = Vec::new();
    while n > 0 {
        let rem = (n - 1) % 26;
        letters.push(b'A' + rem as u8);
        n = (n - 1) / 26;
    }
    letters.reverse();
    String::from_utf8(letters).unwrap_or_default()
}

/// What a built-in number format id shows (ECMA-376 §18.8.30).
pub(crate) fn builtin_date(id: u32) -> Option<DateKind> {
    match id {
        14..=17 | 27..=31 | 34..=36 | 50..=58 => Some(DateKind::Date),
        18..=21 | 32 | 33 | 45..=47 => Some(DateKind::Time),
        22 => Some(DateKind::DateTime),
        _ => None,
    }
}

/// What a custom format code shows: a date, a time, both, or a plain
/// number (quoted text, escapes, colours and conditions ignored).
pub(crate) fn format_date(code: &str) -> Option<DateKind> {
    // Only the first section (positive numbers) decides.
    let mut plain = String::new();
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        match c {
            ';' => break,
            '"' => {
                for c in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                }
            }
            '\\' | '_' | '*' => {
                chars.next();
            }
            '[' => {
                let inner: String = chars.by_ref().take_while(|c| *c != ']').collect();
                // `[h]`, `[mm]`, `[ss]`: elapsed time.
                if inner.chars().all(|c| matches!(c.to_ascii_lowercase(), 'h' | 'm' | 's')) && !inner.is_empty() {
                    plain.push('h');
                }
            }
            c => plain.push(c.to_ascii_lowercase()),
        }
    }
    let date = plain.contains('y') || plain.contains('d');
    let time = plain.contains('h') || plain.contains('s');
    match (date, time) {
        (true, true) => Some(DateKind::DateTime),
        (true, false) => Some(DateKind::Date),
        (false, true) => Some(DateKind::Time),
        // `mmm` alone is a month name.
        (false, false) if plain.contains("mmm") => Some(DateKind::Date),
        (false, false) => None,
    }
}

/// A number as Excel shows it by default: at most 15 significant digits,
/// no trailing zeros.
pub(crate) fn number(value: f64) -> String {
    let rounded: f64 = format!("{value:.14e}").parse().unwrap_or(value);
    format!("{rounded}")
}

/// Serial `value` as an ISO date, time or both (`date1904` for workbooks
/// counting from 1904); `None` outside years 1900–9999.
pub(crate) fn date(value: f64, kind: DateKind, date1904: bool) -> Option<String> {
    if !value.is_finite() || !(0.0..2_958_466.0).contains(&value) {
        return None;
    }
    let mut days = value.floor() as i64;
    let mut seconds = ((value - value.floor()) * 86_400.0).round() as i64;
    if seconds >= 86_400 {
        days += 1;
        seconds -= 86_400;
    }
    let time = if seconds % 60 == 0 {
        format!("{:02}:{:02}", seconds / 3600, seconds / 60 % 60)
    } else {
        format!("{:02}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60)
    };
    if kind == DateKind::Time {
        return Some(time);
    }
    let day = if date1904 {
        ymd(days - 24_107)
    } else if days == 60 {
        // Excel's 29 February 1900, a day that never was.
        (1900, 2, 29)
    } else if days < 60 {
        if days == 0 {
            return None;
        }
        ymd(days - 25_568)
    } else {
        ymd(days - 25_569)
    };
    let day = format!("{:04}-{:02}-{:02}", day.0, day.1, day.2);
    Some(if kind == DateKind::DateTime { format!("{day} {time}") } else { day })
}

/// Days since 1970-01-01 as (year, month, day), proleptic Gregorian.
fn ymd(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_column_names() {
        assert_eq!(parse_ref("A1"), Some((1, 1)));
        assert_eq!(parse_ref("ab12"), Some((28, 12)));
        assert_eq!(parse_ref("XFD1048576"), Some((16_384, 1_048_576)));
        for bad in ["", "A", "12", "XFE1", "A0", "A1048577", "AAAA1", "A1B", "É1"] {
            assert_eq!(parse_ref(bad), None, "{bad}");
        }
        assert_eq!(column_name(1), "A");
        assert_eq!(column_name(28), "AB");
        assert_eq!(column_name(16_384), "XFD");
    }

    #[test]
    fn numbers_show_fifteen_digits() {
        assert_eq!(number(42.0), "42");
        assert_eq!(number(0.1 + 0.2), "0.3");
        assert_eq!(number(-1.5), "-1.5");
        assert_eq!(number(1234567.125), "1234567.125");
    }

    #[test]
    fn formats_and_serial_dates() {
        assert_eq!(format_date("yyyy-mm-dd"), Some(DateKind::Date));
        assert_eq!(format_date("h:mm AM/PM"), Some(DateKind::Time));
        assert_eq!(format_date("[h]:mm"), Some(DateKind::Time));
        assert_eq!(format_date("dd/mm/yyyy hh:mm"), Some(DateKind::DateTime));
        assert_eq!(format_date("0.00\"days\""), None);
        assert_eq!(format_date("#,##0;[Red]-#,##0"), None);
        assert_eq!(format_date("[$-409]mmm"), Some(DateKind::Date));
        assert_eq!(date(45_292.0, DateKind::Date, false).as_deref(), Some("2024-01-01"));
        assert_eq!(date(1.0, DateKind::Date, false).as_deref(), Some("1900-01-01"));
        assert_eq!(date(59.0, DateKind::Date, false).as_deref(), Some("1900-02-28"));
        assert_eq!(date(60.0, DateKind::Date, false).as_deref(), Some("1900-02-29"));
        assert_eq!(date(61.0, DateKind::Date, false).as_deref(), Some("1900-03-01"));
        assert_eq!(date(0.0, DateKind::Date, true).as_deref(), Some("1904-01-01"));
        assert_eq!(date(45_292.75, DateKind::DateTime, false).as_deref(), Some("2024-01-01 18:00"));
        assert_eq!(date(0.5000115740740741, DateKind::Time, false).as_deref(), Some("12:00:01"));
        assert_eq!(date(-1.0, DateKind::Date, false), None);
        assert_eq!(date(1e300, DateKind::Date, false), None);
        assert_eq!(date(f64::NAN, DateKind::Date, false), None);
    }
}
