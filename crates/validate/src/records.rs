//! The snapshot's node and edge records, decoded without copying: their strings borrow from
//! the snapshot's bytes (a string with JSON escapes is the only one copied). A validation
//! reads, hashes and strictly decodes the whole `graph.json`; with one allocation per string
//! and a map per record, decoding the standard library's snapshot touched ~4× the memory of
//! its bytes, and fresh memory is what that decode spent most of its time on.
//!
//! `attrs` are a JSON object of strings whose keys must be unique and in ascending byte order
//! (`gograph build` writes them so): a duplicate key is refused instead of silently taking
//! the last value, and lookups are binary searches.

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

/// A string of a decoded snapshot: borrowed from its bytes, or owned (built in memory).
/// (Record fields spell out `Cow<'a, str>`: serde borrows only for that literal type.)
pub type Text<'a> = Cow<'a, str>;

/// A source position, as `docforge_model::Location` writes it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapLocation<'a> {
    #[serde(borrow)]
    pub path: Cow<'a, str>,
    pub line: u32,
    pub column: u32,
}

impl SnapLocation<'_> {
    pub fn of(l: &docforge_model::Location) -> SnapLocation<'static> {
        SnapLocation { path: Cow::Owned(l.path.clone()), line: l.line, column: l.column }
    }
    pub fn into_owned(self) -> SnapLocation<'static> {
        SnapLocation { path: Cow::Owned(self.path.into_owned()), ..self }
    }
}

/// String attributes in ascending key order, keys unique.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attrs<'a>(Vec<(Text<'a>, Text<'a>)>);

impl<'a> Attrs<'a> {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.binary_search_by(|(k, _)| k.as_ref().cmp(key)).ok().map(|i| self.0[i].1.as_ref())
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Attributes from pairs whose keys are unique and ascending (`None` otherwise).
    pub(crate) fn from_sorted(pairs: Vec<(Text<'a>, Text<'a>)>) -> Option<Self> {
        pairs.windows(2).all(|w| w[0].0 < w[1].0).then_some(Attrs(pairs))
    }
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v.as_ref()))
    }
    pub fn into_owned(self) -> Attrs<'static> {
        Attrs(
            self.0
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), Cow::Owned(v.into_owned())))
                .collect(),
        )
    }
}

impl From<BTreeMap<String, String>> for Attrs<'static> {
    fn from(map: BTreeMap<String, String>) -> Self {
        Attrs(map.into_iter().map(|(k, v)| (Cow::Owned(k), Cow::Owned(v))).collect())
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Attrs<'static> {
    /// Sorted by key; a later value for the same key wins (as in a map).
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let map: BTreeMap<String, String> = iter.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        map.into()
    }
}

impl Serialize for Attrs<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k.as_ref(), v.as_ref())?;
        }
        m.end()
    }
}

/// A string that borrows from the input when it can.
struct Borrowed<'a>(Text<'a>);

impl<'de> Deserialize<'de> for Borrowed<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Borrowed<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Borrowed(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Borrowed(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Borrowed(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Attrs<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Attrs<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of string attributes")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut pairs: Vec<(Text<'de>, Text<'de>)> = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(Borrowed(k)) = map.next_key::<Borrowed<'de>>()? {
                    if let Some((last, _)) = pairs.last() {
                        if k.as_ref() <= last.as_ref() {
                            return Err(de::Error::custom(format!(
                                "attribute {k:?} is duplicated or out of order (keys must be unique and ascending)"
                            )));
                        }
                    }
                    let Borrowed(v) = map.next_value::<Borrowed<'de>>()?;
                    pairs.push((k, v));
                }
                pairs.shrink_to_fit();
                Ok(Attrs(pairs))
            }
        }
        d.deserialize_map(V)
    }
}

thread_local! {
    /// An upper bound on the records of the snapshot being decoded on this thread (from its
    /// size), so that the record vectors are allocated once instead of growing by doubling:
    /// every growth copied the records into fresh memory, and fresh memory is what decoding
    /// spent most of its time on. Reserved but untouched capacity costs no memory.
    static RECORD_BOUND: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Decode with `f` while the record vectors reserve `bound` records.
pub(crate) fn with_record_bound<T>(bound: usize, f: impl FnOnce() -> T) -> T {
    let old = RECORD_BOUND.replace(bound);
    let out = f();
    RECORD_BOUND.set(old);
    out
}

/// A JSON array of records, allocated once for the current record bound.
pub(crate) fn records<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array of records")
        }
        fn visit_seq<S: de::SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
            let mut out = Vec::with_capacity(RECORD_BOUND.get());
            while let Some(x) = seq.next_element()? {
                out.push(x);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(V(std::marker::PhantomData))
}

/// A Go package or symbol node (bare ID, without `go:`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapNode<'a> {
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    #[serde(borrow)]
    pub kind: Cow<'a, str>,
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    pub location: Option<SnapLocation<'a>>,
    #[serde(default, borrow, skip_serializing_if = "Attrs::is_empty")]
    pub attrs: Attrs<'a>,
}

impl SnapNode<'_> {
    pub fn into_owned(self) -> SnapNode<'static> {
        SnapNode {
            id: Cow::Owned(self.id.into_owned()),
            kind: Cow::Owned(self.kind.into_owned()),
            location: self.location.map(SnapLocation::into_owned),
            attrs: self.attrs.into_owned(),
        }
    }
}

/// An `imports`, `calls`, `implements` or `implements_unknown` edge between bare IDs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapEdge<'a> {
    #[serde(borrow)]
    pub source: Cow<'a, str>,
    #[serde(borrow)]
    pub relation: Cow<'a, str>,
    #[serde(borrow)]
    pub target: Cow<'a, str>,
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    pub location: Option<SnapLocation<'a>>,
    #[serde(default, borrow, skip_serializing_if = "Attrs::is_empty")]
    pub attrs: Attrs<'a>,
}

impl SnapEdge<'_> {
    pub fn into_owned(self) -> SnapEdge<'static> {
        SnapEdge {
            source: Cow::Owned(self.source.into_owned()),
            relation: Cow::Owned(self.relation.into_owned()),
            target: Cow::Owned(self.target.into_owned()),
            location: self.location.map(SnapLocation::into_owned),
            attrs: self.attrs.into_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_without_escapes_borrow_from_the_bytes() {
        let bytes = br#"{"id":"p::T","kind":"struct","location":{"path":"a\/b.go","line":3,"column":6},"attrs":{"generic":"true","package":"p"}}"#;
        let n: SnapNode = serde_json::from_slice(bytes).unwrap();
        assert!(matches!(n.id, Cow::Borrowed("p::T")));
        let path = &n.location.as_ref().unwrap().path;
        assert!(matches!(path, Cow::Owned(p) if p == "a/b.go"), "an escaped string is decoded: {path:?}");
        assert_eq!(
            (n.attrs.get("generic"), n.attrs.get("package"), n.attrs.get("x")),
            (Some("true"), Some("p"), None)
        );
        assert_eq!(serde_json::to_vec(&n.clone().into_owned()).unwrap(), serde_json::to_vec(&n).unwrap());
    }

    #[test]
    fn attributes_must_be_unique_strings_in_ascending_order() {
        let decode = |attrs: &str| {
            let doc = format!(r#"{{"id":"p","kind":"package","attrs":{attrs}}}"#);
            serde_json::from_str::<SnapNode>(&doc).map(|n| n.attrs.into_owned()).map_err(|e| e.to_string())
        };
        assert_eq!(decode(r#"{"a":"1","b":"2"}"#).unwrap(), [("a", "1"), ("b", "2")].into_iter().collect());
        for bad in [r#"{"a":"1","a":"2"}"#, r#"{"b":"1","a":"2"}"#, r#"{"a":1}"#, r#"["a"]"#] {
            assert!(decode(bad).is_err(), "{bad} was accepted");
        }
        assert!(decode(r#"{"a":"1","a":"2"}"#).unwrap_err().contains("duplicated or out of order"));
    }
}
