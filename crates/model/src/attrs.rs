//! [`Attrs`]: the flat string attributes of a node or edge.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// Flat string attributes, kept sorted by key: a map with the parts of `BTreeMap`'s API the
/// graph uses, the same serde form (a JSON object) and the same `Hash`/`Ord`, stored as one
/// small vector. A standard-library graph has several hundred thousand of them, and an
/// empty-or-tiny `BTreeMap` costs a whole B-tree leaf (~0.5 KB) each.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Attrs(Vec<(String, String)>);

/// Printed as a map, like `BTreeMap` (snapshot tests read it).
impl std::fmt::Debug for Attrs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Attrs {
    pub fn new() -> Self {
        Attrs(Vec::new())
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    /// Set `key` to `value`; the previous value, if any.
    pub fn insert(&mut self, key: String, value: String) -> Option<String> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            Err(i) => {
                self.0.insert(i, (key, value));
                None
            }
        }
    }

    pub fn get(&self, key: &str) -> Option<&String> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    pub fn remove(&mut self, key: &str) -> Option<String> {
        self.find(key).ok().map(|i| self.0.remove(i).1)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&String, &String)> + ExactSizeIterator {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(_, v)| v)
    }

    /// The same entries as a `BTreeMap` (for types outside the graph model).
    pub fn to_map(&self) -> BTreeMap<String, String> {
        self.0.iter().cloned().collect()
    }
}

impl std::ops::Index<&str> for Attrs {
    type Output = String;
    fn index(&self, key: &str) -> &String {
        self.get(key).unwrap_or_else(|| panic!("no attribute {key:?}"))
    }
}

impl FromIterator<(String, String)> for Attrs {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        let map: BTreeMap<String, String> = iter.into_iter().collect();
        Attrs(map.into_iter().collect())
    }
}

impl From<BTreeMap<String, String>> for Attrs {
    fn from(map: BTreeMap<String, String>) -> Self {
        Attrs(map.into_iter().collect())
    }
}

impl Extend<(String, String)> for Attrs {
    fn extend<I: IntoIterator<Item = (String, String)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<'a> IntoIterator for &'a Attrs {
    type Item = (&'a String, &'a String);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, String)>,
        fn(&'a (String, String)) -> (&'a String, &'a String),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl Serialize for Attrs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Attrs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        BTreeMap::<String, String>::deserialize(d).map(Attrs::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_like_a_sorted_map() {
        let mut a = Attrs::new();
        let mut m = BTreeMap::new();
        for (k, v) in [("b", "1"), ("a", "2"), ("c", "3"), ("a", "4")] {
            assert_eq!(a.insert(k.into(), v.into()), m.insert(k.to_string(), v.to_string()));
        }
        assert_eq!(a.to_map(), m);
        assert_eq!(a["a"], "4");
        assert_eq!(a.get("z"), None);
        assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&m).unwrap());
        let back: Attrs = serde_json::from_str(r#"{"z":"1","y":"2"}"#).unwrap();
        assert_eq!(back.keys().collect::<Vec<_>>(), ["y", "z"]);
        assert_eq!(a.remove("b"), Some("1".into()));
        assert_eq!(a.len(), 2);
        // The same hash as the map (digests over fragments must not change).
        use std::hash::{DefaultHasher, Hash, Hasher};
        let h = |x: &dyn Fn(&mut DefaultHasher)| {
            let mut s = DefaultHasher::new();
            x(&mut s);
            s.finish()
        };
        m.remove("b");
        assert_eq!(h(&|s| a.hash(s)), h(&|s| m.hash(s)));
    }
}
