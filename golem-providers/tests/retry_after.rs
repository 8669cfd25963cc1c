//! Retry-After hints and HTTP-dates (SPEC RETRY-03).

use golem_providers::http::HttpResponseHead;
use golem_providers::http_date;
use golem_providers::retry_after::MAX_HINT;
use proptest::prelude::*;
use std::time::Duration;

const DATE: &str = "Wed, 21 Oct 2015 07:28:00 GMT";
const DATE_UNIX: u64 = 1_445_412_480;

fn hint(headers: &[(&str, &str)], now_unix: Option<u64>) -> Option<Duration> {
    let mut head = HttpResponseHead::new(429, headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect());
    head.now_unix = now_unix;
    head.retry_after()
}

#[test]
fn the_retry_after_table() {
    let s = Duration::from_secs;
    let ms = Duration::from_millis;
    type Row = (Vec<(&'static str, &'static str)>, Option<u64>, Option<Duration>);
    let table: Vec<Row> = vec![
        // delta-seconds
        (vec![("retry-after", "120")], None, Some(s(120))),
        (vec![("Retry-After", " 0 ")], None, Some(s(0))),
        (vec![("retry-after", "1.5")], None, Some(ms(1500))),
        // milliseconds win over seconds
        (vec![("retry-after-ms", "250"), ("retry-after", "9")], None, Some(ms(250))),
        (vec![("retry-after-ms", "12.5")], None, Some(Duration::from_micros(12_500))),
        // HTTP-date relative to the response's Date header…
        (vec![("retry-after", "Wed, 21 Oct 2015 07:28:30 GMT"), ("date", DATE)], None, Some(s(30))),
        (vec![("retry-after", "Wednesday, 21-Oct-15 07:29:00 GMT"), ("date", DATE)], None, Some(s(60))),
        (vec![("retry-after", "Wed Oct 21 07:28:10 2015"), ("date", DATE)], None, Some(s(10))),
        // …even when the caller's clock disagrees (server clocks on both sides)…
        (vec![("retry-after", "Wed, 21 Oct 2015 07:28:30 GMT"), ("date", DATE)], Some(0), Some(s(30))),
        // …else relative to the caller's clock…
        (vec![("retry-after", "Wed, 21 Oct 2015 07:28:45 GMT")], Some(DATE_UNIX), Some(s(45))),
        (vec![("retry-after", "Wed, 21 Oct 2015 07:28:45 GMT"), ("date", "garbage")], Some(DATE_UNIX), Some(s(45))),
        // …and without either it cannot be resolved.
        (vec![("retry-after", "Wed, 21 Oct 2015 07:28:45 GMT")], None, None),
        // A past date means now.
        (vec![("retry-after", "Wed, 21 Oct 2015 07:00:00 GMT"), ("date", DATE)], None, Some(s(0))),
        (vec![("retry-after", "Thu, 01 Jan 1970 00:00:00 GMT")], Some(DATE_UNIX), Some(s(0))),
        // Garbage is ignored.
        (vec![("retry-after", "soon")], Some(DATE_UNIX), None),
        (vec![("retry-after", "-5")], None, None),
        (vec![("retry-after", "1e3")], None, None),
        (vec![("retry-after", "")], None, None),
        (vec![("retry-after", "1.2.3")], None, None),
        (vec![("retry-after-ms", "NaN"), ("retry-after", "2")], None, Some(s(2))),
        (vec![("retry-after", "Wed, 32 Oct 2015 07:28:00 GMT"), ("date", DATE)], None, None),
        (vec![], Some(DATE_UNIX), None),
        // Absurdly large values are capped, not overflowed.
        (vec![("retry-after", "99999999999999999999999999")], None, Some(MAX_HINT)),
    ];
    for (headers, now, expected) in table {
        assert_eq!(hint(&headers, now), expected, "{headers:?} now={now:?}");
    }
}

#[test]
fn http_dates_in_all_three_forms() {
    assert_eq!(http_date::parse(DATE), Some(DATE_UNIX as i64));
    assert_eq!(http_date::parse("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777));
    assert_eq!(http_date::parse("Sunday, 06-Nov-94 08:49:37 GMT"), Some(784_111_777));
    assert_eq!(http_date::parse("Sun Nov  6 08:49:37 1994"), Some(784_111_777));
    assert_eq!(http_date::parse("Thu, 29 Feb 2024 23:59:60 GMT"), Some(1_709_251_200));
    assert_eq!(http_date::parse("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
    assert_eq!(http_date::parse("Wed, 31 Dec 1969 23:59:59 GMT"), Some(-1));
    for bad in [
        "",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 29 Feb 2023 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT",
        "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 94 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49 GMT",
        "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT extra",
        "Sün, 06 Nov 1994 08:49:37 GMT",
    ] {
        assert_eq!(http_date::parse(bad), None, "{bad:?}");
    }
}

proptest! {
    #[test]
    fn format_and_parse_round_trip(unix in -62_135_596_800i64..253_402_300_799) {
        prop_assert_eq!(http_date::parse(&http_date::format(unix)), Some(unix));
    }

    #[test]
    fn parsing_garbage_never_panics(text in "\\PC{0,80}") {
        let _ = http_date::parse(&text);
        let _ = hint(&[("retry-after", &text), ("date", &text), ("retry-after-ms", &text)], Some(u64::MAX));
    }
}
