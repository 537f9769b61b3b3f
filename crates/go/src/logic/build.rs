//! Building one function's graph: a recursive walk over statements that keeps a *frontier*
//! of dangling edges (`(from, label)`), connected to the next step created. Jumps park their
//! edges with their target (`break`/`continue` with the enclosing construct, `return`/`panic`
//! with the exit, `goto` until labels are known) and leave the frontier empty.

mod branches;

use super::expr::Kinds;
use super::{Edge, EdgeLabel, FunctionLogic, Step, StepKind, MAX_LOGIC_DEPTH, MAX_LOGIC_STEPS};
use crate::extract::text::pos;
use crate::{Decl, Pos};
use tree_sitter::Node;

type Dangling = Vec<(u32, EdgeLabel)>;

/// An enclosing `for`/`switch`/`select`: where `break` and `continue` go.
struct Target<'s> {
    label: Option<&'s [u8]>,
    is_loop: bool,
    breaks: Dangling,
    continues: Dangling,
}

pub(super) struct Builder<'s> {
    pub(super) k: &'static Kinds,
    pub(super) src: &'s [u8],
    pub(super) truncated: bool,
    steps: Vec<Step>,
    edges: Vec<Edge>,
    frontier: Dangling,
    /// Edges to the exit (created last).
    exits: Dangling,
    targets: Vec<Target<'s>>,
    /// `fallthrough` edges of the clause just built, for the next clause of the switch.
    fallthrough: Dangling,
    labels: Vec<(&'s [u8], u32)>,
    gotos: Vec<(u32, &'s [u8])>,
    depth: u32,
    /// No `(` in `src[paren_from..paren_at]`, and `paren_at` is one (or `usize::MAX`).
    pub(super) paren_from: usize,
    pub(super) paren_at: usize,
}

/// The logic of the func/method declaration `node`.
pub(super) fn function(idx: u32, decl: Decl, node: Node<'_>, src: &[u8]) -> FunctionLogic {
    let mut b = Builder {
        k: Kinds::get(node.language()),
        src,
        truncated: false,
        steps: Vec::new(),
        edges: Vec::new(),
        frontier: Vec::new(),
        exits: Vec::new(),
        targets: Vec::new(),
        fallthrough: Vec::new(),
        labels: Vec::new(),
        gotos: Vec::new(),
        depth: 0,
        paren_from: usize::MAX,
        paren_at: 0,
    };
    b.step(StepKind::Entry, String::new(), pos(node));
    let body = node.child_by_field_id(b.k.f.body);
    let exit_pos = match body {
        Some(body) => {
            b.block(body);
            let end = body.end_position();
            Pos { line: end.row as u32 + 1, column: end.column as u32 }
        }
        None => {
            b.frontier.clear();
            pos(node)
        }
    };
    let (steps, edges, truncated) = b.finish(exit_pos);
    FunctionLogic {
        decl: idx,
        name: decl.name,
        receiver: decl.receiver,
        pos: decl.pos,
        steps,
        edges,
        truncated,
        partial: node.has_error(),
    }
}

impl<'s> Builder<'s> {
    /// A new step, reached by the frontier; the frontier becomes the step. `None` once the
    /// step bound is reached (one step stays reserved for the exit).
    pub(super) fn step(&mut self, kind: StepKind, text: String, pos: Pos) -> Option<u32> {
        if self.truncated || self.steps.len() + 1 >= MAX_LOGIC_STEPS {
            self.truncated = true;
            self.frontier.clear();
            return None;
        }
        let id = self.steps.len() as u32;
        self.steps.push(Step { kind, text, pos });
        for (from, label) in self.frontier.drain(..) {
            self.edges.push(Edge { from, to: id, label });
        }
        self.frontier.push((id, EdgeLabel::Next));
        Some(id)
    }

    /// The frontier, relabelled, taken away.
    fn take(&mut self, label: EdgeLabel) -> Dangling {
        let mut out = std::mem::take(&mut self.frontier);
        for e in &mut out {
            e.1 = label;
        }
        out
    }

    /// The frontier ends the function (after `return` or `panic`).
    pub(super) fn end_path(&mut self) {
        let ends = self.take(EdgeLabel::Exit);
        self.exits.extend(ends);
    }

    /// Connect the frontier to `to`, with `label` instead of `next`.
    fn close(&mut self, to: u32, label: EdgeLabel) {
        for (from, l) in self.frontier.drain(..) {
            let label = if l == EdgeLabel::Next { label } else { l };
            self.edges.push(Edge { from, to, label });
        }
    }

    fn finish(mut self, exit_pos: Pos) -> (Vec<Step>, Vec<Edge>, bool) {
        let exit = self.steps.len() as u32;
        self.steps.push(Step { kind: StepKind::Exit, text: String::new(), pos: exit_pos });
        let mut ends = std::mem::take(&mut self.exits);
        ends.append(&mut self.frontier);
        for (from, label) in ends {
            self.edges.push(Edge { from, to: exit, label });
        }
        for (from, name) in &self.gotos {
            if let Some((_, to)) = self.labels.iter().find(|(l, _)| l == name) {
                self.edges.push(Edge { from: *from, to: *to, label: EdgeLabel::Goto });
            }
        }
        self.edges.sort_unstable();
        self.edges.dedup();
        (self.steps, self.edges, self.truncated)
    }

    /// The statements of a block (or of a case clause's statement list).
    fn block(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        if !cursor.goto_first_child() {
            return;
        }
        loop {
            let child = cursor.node();
            if child.kind() == "statement_list" {
                self.block(child);
            } else if child.is_named() {
                self.stmt(child);
            }
            if self.truncated || !cursor.goto_next_sibling() {
                return;
            }
        }
    }

    fn stmt(&mut self, node: Node<'_>) {
        if self.truncated {
            return;
        }
        match node.kind() {
            "comment" | "empty_statement" | "type_declaration" => {}
            "return_statement" => {
                let mut cursor = node.walk();
                let list = node.named_children(&mut cursor).find(|n| n.kind_id() != self.k.comment);
                let text = list.map(|l| self.text(l)).unwrap_or_default();
                if let Some(list) = list {
                    self.calls_in(list);
                }
                self.step(StepKind::Return, text, pos(node));
                self.end_path();
            }
            "defer_statement" => self.go_defer(StepKind::Defer, node),
            "go_statement" => self.go_defer(StepKind::Go, node),
            "break_statement" => self.jump(node, StepKind::Break),
            "continue_statement" => self.jump(node, StepKind::Continue),
            "goto_statement" => {
                let label = self.label_of(node);
                let id = self.step(StepKind::Goto, self.label_text(label), pos(node));
                self.frontier.clear();
                if let (Some(id), Some(label)) = (id, label) {
                    self.gotos.push((id, label));
                }
            }
            "fallthrough_statement" => {
                self.step(StepKind::Fallthrough, String::new(), pos(node));
                let ends = self.take(EdgeLabel::Fallthrough);
                self.fallthrough.extend(ends);
            }
            "block"
            | "if_statement"
            | "for_statement"
            | "expression_switch_statement"
            | "type_switch_statement"
            | "select_statement"
            | "labeled_statement" => {
                if self.depth >= MAX_LOGIC_DEPTH {
                    self.truncated = true;
                    self.frontier.clear();
                    return;
                }
                self.depth += 1;
                self.compound(node, None);
                self.depth -= 1;
            }
            // Simple statements, declarations, and `ERROR` nodes: their calls.
            _ => self.calls_in(node),
        }
    }

    fn compound(&mut self, node: Node<'_>, label: Option<&'s [u8]>) {
        match node.kind() {
            "block" => self.block(node),
            "if_statement" => self.if_stmt(node),
            "for_statement" => self.for_stmt(node, label),
            "expression_switch_statement" | "type_switch_statement" => self.switch(node, label),
            "select_statement" => self.select(node, label),
            "labeled_statement" => {
                let name = node.child_by_field_id(self.k.f.label).map(|l| &self.src[l.byte_range()]);
                let id = self.step(StepKind::Label, self.label_text(name), pos(node));
                if let (Some(id), Some(name)) = (id, name) {
                    self.labels.push((name, id));
                }
                let mut cursor = node.walk();
                let inner = node.named_children(&mut cursor).skip(1).find(|n| n.kind_id() != self.k.comment);
                match inner {
                    Some(inner)
                        if matches!(inner.kind(), "for_statement" | "select_statement")
                            || inner.kind().ends_with("switch_statement") =>
                    {
                        self.compound(inner, name)
                    }
                    Some(inner) => self.stmt(inner),
                    None => {}
                }
            }
            _ => self.calls_in(node),
        }
    }

    fn label_of(&self, node: Node<'_>) -> Option<&'s [u8]> {
        let mut cursor = node.walk();
        let label = node.named_children(&mut cursor).find(|n| n.kind() == "label_name");
        label.map(|l| &self.src[l.byte_range()])
    }

    fn label_text(&self, label: Option<&[u8]>) -> String {
        label.map(|l| String::from_utf8_lossy(l).into_owned()).unwrap_or_default()
    }

    /// `break` / `continue`, to the innermost or the labelled enclosing construct (a loop for
    /// `continue`). Without one (invalid code) the path just ends.
    fn jump(&mut self, node: Node<'_>, kind: StepKind) {
        let label = self.label_of(node);
        self.step(kind, self.label_text(label), pos(node));
        let is_break = kind == StepKind::Break;
        let ends = self.take(if is_break { EdgeLabel::Break } else { EdgeLabel::Continue });
        let target = self.targets.iter_mut().rev().find(|t| match label {
            Some(l) => t.label == Some(l),
            None => is_break || t.is_loop,
        });
        match target {
            Some(t) if is_break => t.breaks.extend(ends),
            Some(t) if t.is_loop => t.continues.extend(ends),
            _ => {}
        }
    }

    fn if_stmt(&mut self, mut node: Node<'_>) {
        let mut joins = Dangling::new();
        loop {
            if let Some(init) = node.child_by_field_id(self.k.f.initializer) {
                self.calls_in(init);
            }
            let cond = node.child_by_field_id(self.k.f.condition);
            let text = cond.map(|c| self.text(c)).unwrap_or_default();
            if let Some(cond) = cond {
                self.calls_in(cond);
            }
            let Some(cond_id) = self.step(StepKind::Condition, text, pos(cond.unwrap_or(node))) else {
                return;
            };
            self.frontier[0].1 = EdgeLabel::True;
            if let Some(then) = node.child_by_field_id(self.k.f.consequence) {
                self.step(StepKind::Then, String::new(), pos(then));
                self.block(then);
            }
            joins.append(&mut self.frontier);
            self.frontier.push((cond_id, EdgeLabel::False));
            let Some(alt) = node.child_by_field_id(self.k.f.alternative) else { break };
            self.step(StepKind::Else, String::new(), pos(alt));
            if alt.kind() == "if_statement" {
                node = alt;
            } else {
                self.block(alt);
                break;
            }
        }
        self.frontier.append(&mut joins);
    }
}
