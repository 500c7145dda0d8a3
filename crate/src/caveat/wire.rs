//! A caveat as a report holds it, `{"caveat": kind, ...figures}`: each field through the
//! writer and reader of its type ([`Wire`]), as the table in the caveat module lists them.
//! Not derived: a derived enum (or one flat record of every field) costs the page's module
//! a copy of serde's code per variant or per field, over 60 KB; this costs one per type. An
//! older report's sentence reads as [`Caveat::Text`].

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Cadence, Caveat, FIELDS};
use crate::unit::Unit;

/// A figure of a caveat, as a report holds it.
pub(super) enum Figure {
    Count(u64),
    Number(f64),
    Digits(i32),
    Words(String),
    Numbers(Vec<f64>),
    Cadence(Cadence),
    Unit(Option<Unit>),
    Caveat(Box<Caveat>),
}

/// The type of a caveat's field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    Count,
    Number,
    Digits,
    Words,
    Numbers,
    Cadence,
    Unit,
    Caveat,
}

/// Whether two names are the same (in a constant: `==` on `str` is not `const`).
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `fields[i]`'s name came before it.
const fn seen(fields: &[(&str, Ty)], i: usize) -> bool {
    let mut j = 0;
    while j < i {
        if same(fields[j].0, fields[i].0) {
            return true;
        }
        j += 1;
    }
    false
}

/// How many distinct names `fields` has.
pub(super) const fn distinct(fields: &[(&'static str, Ty)]) -> usize {
    let (mut n, mut i) = (0, 0);
    while i < fields.len() {
        if !seen(fields, i) {
            n += 1;
        }
        i += 1;
    }
    n
}

/// `fields` with each name once, at its first place; `N` is [`distinct`]'s count.
pub(super) const fn once_each<const N: usize>(
    fields: &[(&'static str, Ty)],
) -> [(&'static str, Ty); N] {
    let mut out = [("", Ty::Count); N];
    let (mut n, mut i) = (0, 0);
    while i < fields.len() {
        if !seen(fields, i) {
            out[n] = fields[i];
            n += 1;
        }
        i += 1;
    }
    out
}

/// Fields of older schemas, read into today's: schema 4's `why` of a two-sizes fit.
const LEGACY: &[(&str, Ty)] = &[("why", Ty::Words)];

/// A caveat's fields as read, before they are checked against its kind.
pub(super) struct Read {
    kind: String,
    fields: Vec<(&'static str, Figure)>,
}

impl Read {
    fn take(&mut self, name: &str) -> Result<Figure, String> {
        let at = self.fields.iter().position(|(n, _)| *n == name);
        match at {
            Some(i) => Ok(self.fields.swap_remove(i).1),
            None => Err(format!(
                "a caveat \"{}\" without its field `{name}`",
                self.kind
            )),
        }
    }

    /// The field `name`, of the type its kind gives it.
    pub(super) fn field<T: Wire>(&mut self, name: &str) -> Result<T, String> {
        match self.take(name) {
            Ok(figure) => T::from_figure(figure).ok_or_else(|| {
                format!(
                    "a caveat \"{}\" whose `{name}` is of the wrong type",
                    self.kind
                )
            }),
            Err(missing) => T::missing().ok_or(missing),
        }
    }

    fn caveat(mut self) -> Result<Caveat, String> {
        // Schema 4 held a two-sizes fit's failure as its message, `why`.
        let has_because = self.fields.iter().any(|(n, _)| *n == "because");
        if self.kind == "two_sizes_only" && !has_because {
            if let Ok(Figure::Words(text)) = self.take("why") {
                let text = Box::new(Caveat::Text { text });
                self.fields.push(("because", Figure::Caveat(text)));
            }
        }
        let kind = self.kind.clone();
        let c = Caveat::read_fields(&kind, &mut self)?;
        match self.fields.first() {
            Some((name, _)) => Err(format!(
                "a caveat \"{}\" with a field `{name}` it does not have",
                self.kind
            )),
            None => Ok(c),
        }
    }
}

/// A type a caveat's field may have: how it is written, and read from what was read.
pub(super) trait Wire: Sized {
    /// What the reader reads a field of this type as.
    const TY: Ty;
    /// The value, when `f` is of this type.
    fn from_figure(f: Figure) -> Option<Self>;
    /// Writes the field `name`.
    fn write<M: SerializeMap>(&self, name: &str, m: &mut M) -> Result<(), M::Error>;
    /// What a missing field reads as, when it may be missing.
    fn missing() -> Option<Self> {
        None
    }
}

/// The [`Wire`] of a type that is written as serde writes it.
macro_rules! wire {
    ($ty:ty, $variant:ident) => {
        impl Wire for $ty {
            const TY: Ty = Ty::$variant;
            fn from_figure(f: Figure) -> Option<Self> {
                match f {
                    Figure::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn write<M: SerializeMap>(&self, name: &str, m: &mut M) -> Result<(), M::Error> {
                m.serialize_entry(name, self)
            }
        }
    };
}

wire!(u64, Count);
wire!(f64, Number);
wire!(i32, Digits);
wire!(String, Words);
wire!(Vec<f64>, Numbers);
wire!(Cadence, Cadence);
wire!(Box<Caveat>, Caveat);

/// A unit is written even when unknown (`null`), and a report without one reads as unknown.
impl Wire for Option<Unit> {
    const TY: Ty = Ty::Unit;
    fn from_figure(f: Figure) -> Option<Self> {
        match f {
            Figure::Unit(u) => Some(u),
            _ => None,
        }
    }
    fn write<M: SerializeMap>(&self, name: &str, m: &mut M) -> Result<(), M::Error> {
        m.serialize_entry(name, self)
    }
    fn missing() -> Option<Self> {
        Some(None)
    }
}

impl Serialize for Caveat {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("caveat", self.kind())?;
        self.write_fields(&mut m)?;
        m.end()
    }
}

/// Reads a caveat: an object of this schema, or an older report's sentence.
struct Written;

impl<'de> Visitor<'de> for Written {
    type Value = Caveat;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a caveat: an object named by its `caveat` field, or a sentence")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Caveat, E> {
        Ok(Caveat::Text { text: text.into() })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Caveat, A::Error> {
        let mut kind = None;
        let mut fields: Vec<(&'static str, Figure)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "caveat" {
                kind = Some(map.next_value::<String>()?);
                continue;
            }
            let Some((name, ty)) = FIELDS.iter().chain(LEGACY).find(|(n, _)| *n == key) else {
                return Err(de::Error::custom(format!(
                    "unknown field `{key}` in a caveat"
                )));
            };
            if fields.iter().any(|(n, _)| n == name) {
                return Err(de::Error::custom(format!(
                    "duplicate field `{key}` in a caveat"
                )));
            }
            let figure = match ty {
                Ty::Count => Figure::Count(map.next_value()?),
                Ty::Number => Figure::Number(map.next_value()?),
                Ty::Digits => Figure::Digits(map.next_value()?),
                Ty::Words => Figure::Words(map.next_value()?),
                Ty::Numbers => Figure::Numbers(map.next_value()?),
                Ty::Cadence => Figure::Cadence(map.next_value()?),
                Ty::Unit => Figure::Unit(map.next_value()?),
                Ty::Caveat => Figure::Caveat(map.next_value()?),
            };
            fields.push((name, figure));
        }
        let kind = kind.ok_or_else(|| de::Error::custom("a caveat without its `caveat` field"))?;
        Read { kind, fields }.caveat().map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Caveat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reader takes a field's type from its name: a name is of one type in every kind,
    /// and the reader's table holds each name once.
    #[test]
    fn a_field_s_name_has_one_type_in_every_kind() {
        for (name, ty) in super::super::EVERY_FIELD {
            let first = FIELDS.iter().find(|(n, _)| n == name).map(|(_, t)| t);
            assert_eq!(first, Some(ty), "`{name}`");
        }
        let names: std::collections::BTreeSet<&str> = FIELDS.iter().map(|f| f.0).collect();
        assert_eq!(names.len(), FIELDS.len());
    }
}
