//! `for`, `switch` (expression and type) and `select`: the constructs `break` leaves.

use super::{Builder, Dangling, Target};
use crate::extract::text::pos;
use crate::logic::expr::short;
use crate::logic::{EdgeLabel, StepKind};
use tree_sitter::Node;

impl<'s> Builder<'s> {
    pub(super) fn for_stmt(&mut self, node: Node<'_>, label: Option<&'s [u8]>) {
        let body = node.child_by_field_id(self.k.f.body);
        let mut cursor = node.walk();
        let header =
            node.named_children(&mut cursor).find(|n| Some(*n) != body && n.kind_id() != self.k.comment);
        let (mut cond, mut post, mut breaks) = (None, None, Dangling::new());
        let head = match header {
            Some(h) if h.kind() == "range_clause" => {
                // The range expression is evaluated once, before the loop.
                if let Some(right) = h.child_by_field_id(self.k.f.right) {
                    self.calls_in(right);
                }
                let Some(head) = self.step(StepKind::Range, self.text(h), pos(node)) else { return };
                self.frontier[0].1 = EdgeLabel::True;
                breaks.push((head, EdgeLabel::False));
                head
            }
            Some(h) if h.kind() == "for_clause" => {
                if let Some(init) = h.child_by_field_id(self.k.f.initializer) {
                    self.calls_in(init);
                }
                cond = h.child_by_field_id(self.k.f.condition);
                post = h.child_by_field_id(self.k.f.update);
                let Some(head) = self.step(StepKind::Loop, self.text(h), pos(node)) else { return };
                head
            }
            // `for cond {`: the condition step shows the header.
            Some(h) => {
                cond = Some(h);
                let Some(head) = self.step(StepKind::Loop, String::new(), pos(node)) else { return };
                head
            }
            None => {
                let Some(head) = self.step(StepKind::Loop, String::new(), pos(node)) else { return };
                head
            }
        };
        if let Some(c) = cond {
            self.calls_in(c);
            let Some(id) = self.step(StepKind::Condition, self.text(c), pos(c)) else { return };
            self.frontier[0].1 = EdgeLabel::True;
            breaks.push((id, EdgeLabel::False));
        }
        self.targets.push(Target { label, is_loop: true, breaks, continues: Dangling::new() });
        if let Some(body) = body {
            self.block(body);
        }
        let target = self.targets.pop().expect("pushed above");
        self.frontier.extend(target.continues);
        if let Some(post) = post {
            self.calls_in(post);
        }
        self.close(head, EdgeLabel::Loop);
        self.frontier = target.breaks;
    }

    /// An expression or type switch.
    pub(super) fn switch(&mut self, node: Node<'_>, label: Option<&'s [u8]>) {
        let typed = node.kind() == "type_switch_statement";
        if let Some(init) = node.child_by_field_id(self.k.f.initializer) {
            self.calls_in(init);
        }
        let value = node.child_by_field_id(self.k.f.value);
        if let Some(value) = value {
            self.calls_in(value);
        }
        // The tag: from the alias (type switch) or the value to the `{`.
        let start = node.child_by_field_id(self.k.f.alias).or(value).map(|n| n.start_byte());
        let text = match (start, token(node, "{")) {
            (Some(start), Some(brace)) => short(self.src, start, brace.start_byte()),
            _ => String::new(),
        };
        let kind = if typed { StepKind::TypeSwitch } else { StepKind::Switch };
        let Some(switch) = self.step(kind, text, pos(node)) else { return };
        self.frontier.clear();
        let outer_fallthrough = std::mem::take(&mut self.fallthrough);
        self.targets.push(Target {
            label,
            is_loop: false,
            breaks: Dangling::new(),
            continues: Dangling::new(),
        });
        let (mut ends, mut has_default) = (Dangling::new(), false);
        let mut cursor = node.walk();
        for clause in node.named_children(&mut cursor) {
            let default = match clause.kind() {
                "expression_case" | "type_case" => false,
                "default_case" => true,
                _ => continue,
            };
            has_default |= default;
            self.frontier.push((switch, if default { EdgeLabel::Default } else { EdgeLabel::Case }));
            if let Some(value) = clause.child_by_field_id(self.k.f.value) {
                self.calls_in(value);
            }
            // `fallthrough` skips the evaluation of this clause's expressions.
            self.frontier.append(&mut self.fallthrough);
            self.clause(clause, default);
            ends.append(&mut self.frontier);
        }
        self.fallthrough = outer_fallthrough;
        let target = self.targets.pop().expect("pushed above");
        self.frontier = ends;
        self.frontier.extend(target.breaks);
        if !has_default {
            self.frontier.push((switch, EdgeLabel::Default));
        }
    }

    pub(super) fn select(&mut self, node: Node<'_>, label: Option<&'s [u8]>) {
        // Every case's channel operand and sent value is evaluated on entering the select,
        // in source order.
        let mut cursor = node.walk();
        let clauses: Vec<Node<'_>> = node
            .named_children(&mut cursor)
            .filter(|c| matches!(c.kind(), "communication_case" | "default_case"))
            .collect();
        for comm in clauses.iter().filter_map(|c| c.child_by_field_id(self.k.f.communication)) {
            match comm.kind() {
                "receive_statement" => {
                    if let Some(right) = comm.child_by_field_id(self.k.f.right) {
                        self.calls_in(right);
                    }
                }
                _ => self.calls_in(comm),
            }
        }
        let Some(select) = self.step(StepKind::Select, String::new(), pos(node)) else { return };
        self.frontier.clear();
        self.targets.push(Target {
            label,
            is_loop: false,
            breaks: Dangling::new(),
            continues: Dangling::new(),
        });
        let mut ends = Dangling::new();
        for clause in clauses {
            let default = clause.kind() == "default_case";
            self.frontier.push((select, if default { EdgeLabel::Default } else { EdgeLabel::Case }));
            self.clause(clause, default);
            ends.append(&mut self.frontier);
        }
        let target = self.targets.pop().expect("pushed above");
        self.frontier = ends;
        self.frontier.extend(target.breaks);
    }

    /// A `case`/`default` step (text: what stands between `case` and `:`), then the clause's
    /// statements.
    fn clause(&mut self, clause: Node<'_>, default: bool) {
        let colon = token(clause, ":");
        let text = match colon {
            Some(colon) if !default => {
                short(self.src, clause.start_byte() + "case".len(), colon.start_byte())
            }
            _ => String::new(),
        };
        let kind = if default { StepKind::Default } else { StepKind::Case };
        self.step(kind, text, pos(clause));
        let Some(colon) = colon else { return };
        let mut cursor = clause.walk();
        for child in clause.children(&mut cursor).filter(|c| c.start_byte() >= colon.end_byte()) {
            if self.truncated {
                return;
            }
            if child.kind() == "statement_list" {
                self.block(child);
            } else if child.is_named() {
                self.stmt(child);
            }
        }
    }
}

/// The first direct child token of `node` of kind `kind`.
fn token<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).find(|c| !c.is_named() && c.kind() == kind);
    found
}
