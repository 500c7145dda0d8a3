//! Text as numbers: its encoding, each value as written (to how many places), and the
//! errors that say which line is wrong.

use super::*;

pub(super) fn usage(m: impl Into<String>) -> Error {
    Error::Input(m.into())
}

/// One value: a finite non-negative number, or an error naming the line.
pub fn parse_value(token: &str, line: usize) -> Result<f64> {
    let t = token.trim();
    let v: f64 = t.parse().map_err(|_| {
        let why = separator_hint(t).map_or(String::new(), |h| format!(": {h}"));
        usage(format!(
            "line {line}: '{}' is not a number{why}",
            shorten(t)
        ))
    })?;
    if !v.is_finite() {
        return Err(usage(format!(
            "line {line}: '{}' is not a finite number",
            shorten(t)
        )));
    }
    if v < 0.0 {
        return Err(usage(format!(
            "line {line}: {v} is negative; durations cannot be"
        )));
    }
    Ok(v)
}

/// Text as people save it, as UTF-8: UTF-8 with or without a byte-order mark (what
/// spreadsheets write as "CSV UTF-8"), or UTF-16 in either byte order (what they write as
/// "Unicode text"), with its mark or, without one, when every other byte of its start is
/// zero. Anything else is passed on as it is, for the readers to judge line by line.
pub(super) fn decode_text(bytes: &[u8]) -> Result<Cow<'_, [u8]>> {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return Ok(Cow::Borrowed(rest));
    }
    let (little, body) = match bytes {
        [0xFF, 0xFE, rest @ ..] => (true, rest),
        [0xFE, 0xFF, rest @ ..] => (false, rest),
        _ => match unmarked_utf16(bytes) {
            Some(little) => (little, bytes),
            None => return Ok(Cow::Borrowed(bytes)),
        },
    };
    let bad = |why: &str| {
        usage(format!(
            "UTF-16 text ({}-endian) {why}: save it again, or as UTF-8",
            if little { "little" } else { "big" }
        ))
    };
    if body.len() % 2 != 0 {
        return Err(bad("with an odd number of bytes, cut short"));
    }
    let units = body.chunks_exact(2).map(|p| {
        let pair = [p[0], p[1]];
        if little {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    let mut text = String::with_capacity(body.len() / 2);
    for c in char::decode_utf16(units) {
        text.push(c.map_err(|_| bad("that is not valid UTF-16 (a lone surrogate)"))?);
    }
    Ok(Cow::Owned(text.into_bytes()))
}

/// Whether `bytes` look like UTF-16 without a byte-order mark, and in which order: in their
/// first 64 pairs (two at least), one byte of every pair zero and the other not, as in text
/// of ASCII characters (timings are); the zero byte second in little-endian.
pub(super) fn unmarked_utf16(bytes: &[u8]) -> Option<bool> {
    let pairs = || bytes.chunks_exact(2).take(64);
    if bytes.len() < 4 {
        None
    } else if pairs().all(|p| p[0] != 0 && p[1] == 0) {
        Some(true)
    } else if pairs().all(|p| p[0] == 0 && p[1] != 0) {
        Some(false)
    } else {
        None
    }
}

/// Why `t`, which did not parse, is not read as a number, when it is written with a
/// decimal comma (0,25) or with separators between groups of thousands (1,234 / 1 234 567 /
/// 1.234,5 / 1'234.5).
pub(super) fn separator_hint(t: &str) -> Option<&'static str> {
    let t = t.trim_start_matches(['-', '+']);
    // Digit groups and the separators between them.
    let (mut groups, mut seps) = (vec![0usize], Vec::new());
    for c in t.chars() {
        match c {
            '0'..='9' => *groups.last_mut()? += 1,
            ',' | '.' | '\'' | ' ' | '_' | '\u{a0}' | '\u{202f}' => {
                seps.push(c);
                groups.push(0);
            }
            _ => return None,
        }
    }
    if groups.len() < 2 || groups.contains(&0) {
        return None;
    }
    if seps == [','] && groups[1] != 3 {
        return Some("it has a decimal comma: ticklab reads a point as the decimal mark");
    }
    // Grouped: 1 to 3 digits, then groups of three after one separator, and perhaps a
    // decimal part after another.
    let grouping = seps[0];
    let whole = seps.iter().take_while(|&&c| c == grouping).count();
    let decimals = seps.len() - whole;
    let grouped = groups[0] <= 3
        && groups[1..=whole].iter().all(|&g| g == 3)
        && (decimals == 0 || (decimals == 1 && matches!(seps[whole], '.' | ',')));
    match (grouped, seps.as_slice()) {
        (true, [',']) => Some(
            "it has a separator between groups of thousands (or a decimal comma): write the \
             digits alone, with a point as the decimal mark",
        ),
        (true, _) => Some(
            "it has a separator between groups of thousands: write the digits alone, with a \
             point as the decimal mark",
        ),
        _ => None,
    }
}

pub(super) fn shorten(s: &str) -> String {
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Decimals as kept beside a value (a double has no more than 340 of them either way).
pub(super) fn places_of(p: i32) -> i16 {
    p.clamp(-400, 400) as i16
}

/// A value written to a double's full precision: its digits say nothing of how finely it
/// was measured (float arithmetic made them), only the data's grid does.
pub const FULL_PRECISION: i16 = i16::MAX;

/// The decimals kept for a value of `places` decimals and `digits` significant digits.
pub(super) fn printed(places: i32, digits: u32) -> i16 {
    if digits >= 15 {
        FULL_PRECISION
    } else {
        places_of(places)
    }
}

/// Values as written, and what their digits say of their precision.
pub(super) struct Written {
    pub(super) values: Vec<f64>,
    pub(super) places: Vec<i16>,
    pub(super) max_places: i32,
    pub(super) full_precision: bool,
    /// Every token so far as its digits and decimals, while each was a plain decimal.
    pub(super) exact: Option<Vec<(u64, i32)>>,
}

impl Written {
    pub(super) fn new() -> Self {
        Self {
            values: Vec::new(),
            places: Vec::new(),
            max_places: 0,
            full_precision: false,
            exact: Some(Vec::new()),
        }
    }

    pub(super) fn push(&mut self, token: &str, line: usize) -> Result<()> {
        if self.values.len() >= MAX_VALUES {
            return Err(usage(format!(
                "more than {MAX_VALUES} values; analyze a sample of them"
            )));
        }
        self.values.push(parse_value(token, line)?);
        if let Some(e) = &mut self.exact {
            match plain_decimal(token) {
                Some(d) => e.push(d),
                None => self.exact = None,
            }
        }
        let (places, digits) = written_digits(token);
        self.places.push(printed(places, digits));
        self.max_places = self.max_places.max(places);
        self.full_precision |= digits >= 15;
        Ok(())
    }

    pub(super) fn into_series(self, name: &str, format: Format, unit: Option<Unit>) -> Series {
        let (quantum, finer) =
            Quantum::from_text_with_finer(&self.values, self.max_places, self.full_precision);
        Series {
            name: name.to_string(),
            format,
            unit,
            values: self.values,
            quantum,
            finer,
            averages: false,
            notes: Vec::new(),
            // Some value written to a double's full precision: none was written to a step.
            places: if self.full_precision {
                vec![FULL_PRECISION; self.places.len()]
            } else {
                self.places
            },
            exact: self.exact.and_then(exact_at_common_places),
            refused: None,
        }
    }
}

/// A token of digits with perhaps a point and more digits ("1732550000.123456789"): its
/// digits as one number and its decimals; none for anything else, or too many digits.
pub(super) fn plain_decimal(token: &str) -> Option<(u64, i32)> {
    let t = token.trim();
    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
    let digits = || int.bytes().chain(frac.bytes());
    if int.is_empty() || !digits().all(|b| b.is_ascii_digit()) || int.len() + frac.len() > 19 {
        return None;
    }
    let mut v = 0u64;
    for b in digits() {
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some((v, frac.len() as i32))
}

/// Decimals printed to one fixed number of places (`%.9f`, `date +%s.%N`, whole numbers),
/// as numbers of that place. A double's shortest form ("1732550000.0025835") has as
/// many decimals as it needs, some fewer than others: its digits are the double's, which
/// the values already are.
pub(super) fn exact_at_common_places(values: Vec<(u64, i32)>) -> Option<(Vec<u64>, i32)> {
    let places = values.first()?.1;
    values
        .iter()
        .all(|v| v.1 == places)
        .then(|| (values.iter().map(|v| v.0).collect(), places))
}
