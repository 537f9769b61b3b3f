//! The version-1 relation alias vocabulary of the DocForge MCP contract.

use serde::{Deserialize, Serialize};

/// The semantic class of a relation name. Anything outside the version-1 alias map is
/// `Unclassified` and keeps its raw name: DocForge never infers meaning from spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelationClass {
    Structure,
    Implementation,
    Dependency,
    Execution,
    Data,
    Evidence,
    Context,
    Unclassified,
}

impl RelationClass {
    pub fn as_str(self) -> &'static str {
        match self {
            RelationClass::Structure => "structure",
            RelationClass::Implementation => "implementation",
            RelationClass::Dependency => "dependency",
            RelationClass::Execution => "execution",
            RelationClass::Data => "data",
            RelationClass::Evidence => "evidence",
            RelationClass::Context => "context",
            RelationClass::Unclassified => "unclassified",
        }
    }
}

/// The exact version-1 aliases, in contract order.
pub const RELATION_ALIASES_V1: &[(&str, RelationClass)] = &[
    ("contains", RelationClass::Structure),
    ("defined_in", RelationClass::Structure),
    ("defines", RelationClass::Structure),
    ("owns", RelationClass::Structure),
    ("implemented_by", RelationClass::Implementation),
    ("implements", RelationClass::Implementation),
    ("inherits", RelationClass::Implementation),
    ("inherits_from", RelationClass::Implementation),
    ("depends_on", RelationClass::Dependency),
    ("imports", RelationClass::Dependency),
    ("activates", RelationClass::Execution),
    ("calls", RelationClass::Execution),
    ("dispatches_to", RelationClass::Execution),
    ("launches", RelationClass::Execution),
    ("reads", RelationClass::Data),
    ("writes", RelationClass::Data),
    ("documents", RelationClass::Evidence),
    ("governs", RelationClass::Evidence),
    ("proves", RelationClass::Evidence),
    ("tested_by", RelationClass::Evidence),
    ("verifies", RelationClass::Evidence),
    ("relates_to", RelationClass::Context),
];

/// True for the relations the engine derives for the graph's tree: a package `contains` its
/// files, a document `contains` its sections, a Go file `defines` its declarations. Such an
/// edge places a node rather than refers to it from somewhere, so navigation never counts it
/// as a reference. Narrower than [`RelationClass::Structure`]: `owns` and `defined_in` are
/// only ever written by authors, and a written relation refers to its target like any other.
pub fn is_tree_relation(name: &str) -> bool {
    TREE_RELATIONS.contains(&name)
}

/// The tree relations (see [`is_tree_relation`]).
pub const TREE_RELATIONS: [&str; 2] = ["contains", "defines"];

/// Classify a relation by exact, case-sensitive lookup in the version-1 alias map.
pub fn classify_relation(name: &str) -> RelationClass {
    RELATION_ALIASES_V1
        .iter()
        .find(|(alias, _)| *alias == name)
        .map(|(_, class)| *class)
        .unwrap_or(RelationClass::Unclassified)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_v1_alias_classifies_and_others_stay_unclassified() {
        let cases = [
            ("contains", RelationClass::Structure),
            ("owns", RelationClass::Structure),
            ("inherits_from", RelationClass::Implementation),
            ("imports", RelationClass::Dependency),
            ("launches", RelationClass::Execution),
            ("writes", RelationClass::Data),
            ("tested_by", RelationClass::Evidence),
            ("relates_to", RelationClass::Context),
            ("Contains", RelationClass::Unclassified),
            ("supersedes", RelationClass::Unclassified),
            ("", RelationClass::Unclassified),
        ];
        for (name, want) in cases {
            assert_eq!(classify_relation(name), want, "{name}");
        }
        assert_eq!(RELATION_ALIASES_V1.len(), 22);
    }

    #[test]
    fn tree_relations_are_the_derived_structure_only() {
        let tree: Vec<&str> =
            RELATION_ALIASES_V1.iter().map(|(name, _)| *name).filter(|name| is_tree_relation(name)).collect();
        assert_eq!(tree, ["contains", "defines"]);
        assert!(tree.iter().all(|name| classify_relation(name) == RelationClass::Structure));
        for written in ["owns", "defined_in", "Contains", "governs", ""] {
            assert!(!is_tree_relation(written), "{written}");
        }
    }
}
