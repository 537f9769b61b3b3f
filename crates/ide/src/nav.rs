//! What a name denotes, where it is declared, what refers to it, what implements it. Every
//! answer comes from the engine's nodes and edges (`IdeIndex`), the mention spans it
//! computes, and its identifier uses of Go names (package-level, local, fields and methods).

use crate::target::{FilePosition, FileRange, NavigationTarget};
use crate::Ide;
use docforge_db::{Cancellable, ExternalNode, FieldRef, Mention, Span};
use docforge_model::{Edge, Node};

/// The `classification` of a call edge to one of CHA's possible targets of an interface
/// method call: a target the call may take, not what the selector denotes.
const DYNAMIC: &str = "cha_possible_target";

/// Whether an edge is a call that only may be taken (see [`DYNAMIC`]).
fn is_dynamic_call(e: &Edge) -> bool {
    e.relation == "calls" && e.attrs.get("classification").map(String::as_str) == Some(DYNAMIC)
}

/// What the name under the cursor denotes: a node of the project, or a declaration outside
/// it (a mention whose target the project does not declare, read from the Go installation
/// or the module cache).
pub(crate) enum Denoted {
    Node(Node),
    External(ExternalNode),
}

impl Ide<'_> {
    /// The 1-based line and byte column of a position in a loaded file (`None`: the file is
    /// not loaded or has no such line).
    pub(crate) fn at(&self, pos: &FilePosition) -> Cancellable<Option<(u32, u32)>> {
        let Some(lines) = self.loaded(&pos.path)? else { return Ok(None) };
        let Some(line) = lines.get(pos.line as usize) else { return Ok(None) };
        Ok(Some((pos.line + 1, pos.column.min(line.len() as u32) + 1)))
    }

    /// The innermost node mention at a position ([`docforge_db::Analysis::mention_at`]).
    pub(crate) fn mention_at(&self, pos: &FilePosition) -> Cancellable<Option<Mention>> {
        let Some((line, col)) = self.at(pos)? else { return Ok(None) };
        self.analysis.mention_at(&pos.path, line, col)
    }

    /// The node declared or referenced at a position (a call site's possible targets too).
    pub(crate) fn node_at(&self, pos: &FilePosition) -> Cancellable<Option<Node>> {
        let m = self.mention_at(pos)?;
        self.node_of(m.as_ref())
    }

    /// The node a mention declares or references.
    pub(crate) fn node_of(&self, m: Option<&Mention>) -> Cancellable<Option<Node>> {
        let Some(m) = m else { return Ok(None) };
        Ok(self.analysis.ide()?.node(&m.target).cloned())
    }

    /// The mention at a position that names what a name denotes there (definition,
    /// references, hover): every mention but a call site's edge to one of CHA's possible
    /// targets, which is not what the selector denotes (the interface method is:
    /// [`Ide::field_at`]).
    pub(crate) fn denoting_mention_at(&self, pos: &FilePosition) -> Cancellable<Option<Mention>> {
        let m = self.mention_at(pos)?;
        Ok(m.filter(|m| !m.edge.as_ref().is_some_and(is_dynamic_call)))
    }

    /// The node or outside declaration [`Ide::denoting_mention_at`] names.
    pub(crate) fn denoted_at(&self, pos: &FilePosition) -> Cancellable<Option<Denoted>> {
        let Some(m) = self.denoting_mention_at(pos)? else { return Ok(None) };
        if let Some(n) = self.analysis.ide()?.node(&m.target) {
            return Ok(Some(Denoted::Node(n.clone())));
        }
        Ok(self.analysis.go_external_node(&m.target)?.map(Denoted::External))
    }

    /// The 1-based line and byte column of a position in a Go file.
    fn go_at(&self, pos: &FilePosition) -> Cancellable<Option<(u32, u32)>> {
        if !pos.path.ends_with(".go") {
            return Ok(None);
        }
        self.at(pos)
    }

    /// A Go identifier at a position that a local declaration binds: its use and the
    /// declaring identifier.
    pub(crate) fn local_at(&self, pos: &FilePosition) -> Cancellable<Option<(Span, Span)>> {
        let Some((line, col)) = self.go_at(pos)? else { return Ok(None) };
        self.analysis.go_local_at(&pos.path, line, col)
    }

    /// A struct field or interface method at a position: a selector of it (precise
    /// analysis) or its declaration.
    pub(crate) fn field_at(&self, pos: &FilePosition) -> Cancellable<Option<FieldRef>> {
        let Some((line, col)) = self.go_at(pos)? else { return Ok(None) };
        self.analysis.go_field_at(&pos.path, line, col)
    }

    /// Where a struct field or interface method spec is declared: in the project, else (a
    /// type of the standard library or a required module) outside it.
    fn field_decl(&self, f: &FieldRef) -> Cancellable<Option<FileRange>> {
        if let Some(d) = self.analysis.go_field_decl(&f.owner, &f.field)? {
            return Ok(Some(FileRange::of_span(&d)));
        }
        Ok(self.analysis.go_external_field(&f.owner, &f.field)?.map(|e| FileRange::of_external(&e)))
    }

    /// Where the name at a position is declared: a node, a declaration outside the project,
    /// a Go local name, a struct field or an interface method.
    pub fn definition(&self, pos: &FilePosition) -> Cancellable<Option<NavigationTarget>> {
        match self.denoted_at(pos)? {
            Some(Denoted::Node(node)) => return self.node_target(&node),
            Some(Denoted::External(ext)) => return Ok(Some(NavigationTarget::external(&ext))),
            None => {}
        }
        if let Some((_, decl)) = self.local_at(pos)? {
            return Ok(Some(NavigationTarget::place(FileRange::of_span(&decl))));
        }
        let Some(f) = self.field_at(pos)? else { return Ok(None) };
        Ok(self.field_decl(&f)?.map(NavigationTarget::place))
    }

    /// Every place that refers to the name at a position, its declaration first when asked:
    /// for a node or a declaration outside the project, [`Ide::references_to`]; for a local
    /// name its uses in the file; for a struct field or interface method its selectors.
    /// `None` when nothing is named there.
    pub fn references(
        &self,
        pos: &FilePosition,
        with_declaration: bool,
    ) -> Cancellable<Option<Vec<FileRange>>> {
        let mut out = Vec::new();
        match self.denoted_at(pos)? {
            Some(Denoted::Node(node)) => {
                if with_declaration {
                    out.extend(self.decl_span(&node)?.map(|s| FileRange::of_span(&s)));
                }
                out.extend(self.references_to(&node.id)?);
                return Ok(Some(out));
            }
            Some(Denoted::External(ext)) => {
                if with_declaration {
                    out.push(FileRange::of_external(&ext));
                }
                out.extend(self.references_to(&ext.node.id)?);
                return Ok(Some(out));
            }
            None => {}
        }
        let (decl, uses) = if let Some((_, decl)) = self.local_at(pos)? {
            let uses = self.analysis.go_local_uses(&decl.path, &decl)?;
            (Some(FileRange::of_span(&decl)), uses)
        } else if let Some(f) = self.field_at(pos)? {
            (self.field_decl(&f)?, self.analysis.go_field_uses(&f.owner, &f.field)?)
        } else {
            return Ok(None);
        };
        if with_declaration {
            out.extend(decl);
        }
        out.extend(uses.iter().map(FileRange::of_span));
        Ok(Some(out))
    }

    /// Every place that refers to node `id` — links, relation targets, call sites,
    /// identifier uses of a Go name — sorted by file, line and column, each once. The tree's
    /// edges are not references; a call edge stated on a line where a use of the same name
    /// is recorded is that use (the use's span is the name), so it is listed once.
    pub fn references_to(&self, id: &str) -> Cancellable<Vec<FileRange>> {
        let ide = self.analysis.ide()?;
        let uses = self.analysis.go_use_spans(id)?;
        let covered = |s: &Span| uses.iter().any(|u| u.path == s.path && u.line == s.line);
        let mut out = Vec::new();
        for e in ide.incoming(id).filter(|e| !e.is_tree()) {
            if let Some(span) = self.edge_span(e)? {
                if !(e.relation == "calls" && covered(&span)) {
                    out.push(FileRange::of_span(&span));
                }
            }
        }
        out.extend(uses.iter().map(FileRange::of_span));
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// For an interface, the types implementing it; for a type, the interfaces it implements,
    /// those of the standard library and required modules too (read as navigation reads
    /// them); for an interface outside the project, the project's types implementing it.
    /// `None` when no node or outside declaration is named there.
    pub fn implementations(&self, pos: &FilePosition) -> Cancellable<Option<Vec<NavigationTarget>>> {
        let ide = self.analysis.ide()?;
        let mut out = Vec::new();
        let Some(node) = self.node_at(pos)? else {
            let Some(Denoted::External(ext)) = self.denoted_at(pos)? else { return Ok(None) };
            for id in self.analysis.go_external_implements(&ext.node.id)? {
                if let Some(n) = ide.node(&id) {
                    out.extend(self.node_target(n)?);
                }
            }
            return Ok(Some(out));
        };
        let ids: Vec<&str> = if node.kind == "interface" {
            ide.incoming(&node.id).filter(|e| e.relation == "implements").map(|e| e.source.as_str()).collect()
        } else {
            ide.outgoing(&node.id).filter(|e| e.relation == "implements").map(|e| e.target.as_str()).collect()
        };
        for id in ids {
            if let Some(n) = ide.node(id) {
                out.extend(self.node_target(n)?);
            }
        }
        if node.kind != "interface" && node.id.starts_with("go:") {
            for id in self.analysis.go_external_implements(&node.id)? {
                if let Some(e) = self.analysis.go_external_node(&id)? {
                    out.push(NavigationTarget::external(&e));
                }
            }
        }
        Ok(Some(out))
    }
}
