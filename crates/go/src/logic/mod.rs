//! Logic: a per-function projection of the possible static control paths of Go code.
//!
//! [`extract_logic`] gives one [`FunctionLogic`] per package-level func and method declaration
//! (with a body or not), in source order, identified by its index into
//! [`FileFacts::decls`](crate::FileFacts::decls) — the same numbering
//! [`extract_tree`](crate::extract_tree) gives — plus name and receiver, so a caller maps it
//! to the Gograph symbol ID with [`symbol_id`](crate::symbol_id).
//!
//! Each function is a small graph of [`Step`]s and labelled [`Edge`]s:
//!
//! - Step 0 is the entry (at `func`) and the last step is the exit (at the body's closing
//!   brace). Steps are numbered in evaluation order, which is source order except that the
//!   calls of a three-clause `for`'s post statement come after its body.
//! - Straight-line statements without calls make no step; every call makes a `call` step, in
//!   evaluation order (the callee expression, then the arguments, then the call). Calls of
//!   the builtin `panic` make a `panic` step with an edge to the exit and nothing after.
//!   Conversions whose type is syntactically a type (`[]byte(s)`, `map[K]V(m)`) or a
//!   predeclared type name (`string(b)`, `int(x)`) make no step.
//! - A function literal is one `closure` step where it is evaluated; its body is not part of
//!   the enclosing paths (nor of any other graph here).
//! - `if`: `condition` (`true` to a `then` step, `false` to an `else` step or past the `if`).
//! - `for`: a `loop` step (the head: the target of `loop` back edges and `continue`), then
//!   for a condition a `condition` step (`true` into the body, `false` past the loop); a
//!   `range` step is the head of a `for … range` (`true` into the body, `false` past the
//!   loop). A loop without condition has no edge past it except from `break`s.
//! - `switch` / type switch: the `switch` / `type_switch` step has a `case` edge to each
//!   `case` step (through the calls in that case's expressions) and a `default` edge to the
//!   `default` step — or, without a default clause, past the switch. `fallthrough` goes to
//!   the next clause's step (skipping the calls in that clause's expressions). `select`:
//!   the calls in every case's channel and value come first, then `case` edges to each
//!   communication clause and a `default` edge to its default clause; without one there is
//!   no edge past the select.
//! - Jumps: `return` and `panic` have an `exit` edge to the exit; `break` a `break` edge past
//!   the innermost (or labelled) `for`/`switch`/`select`; `continue` a `continue` edge to the
//!   innermost (or labelled) loop's head (through the post statement's calls); `goto` a
//!   `goto` edge to its `label` step. Code after a jump has no incoming edge unless
//!   something jumps to it.
//! - The fall-through end of a loop body goes back to the head with a `loop` edge; a
//!   `condition` whose `false` branch ends the body keeps its `false` label.
//! - `defer` and `go` steps are recorded where they appear, after the calls evaluated there
//!   (arguments, the callee expression); the deferred/started call itself makes no `call`.
//! - There is no generic "statement" step: the `then`/`else`/`case`/`default` steps keep
//!   branches apart, so straight-line code without calls never needs one to stay connected.
//!
//! [`FunctionLogic::render`] gives a compact text form (one line per step and its edges).
//!
//! Not modelled: the short-circuit of `&&`/`||` (calls in a condition are one sequence),
//! deferred calls running at the exit, `os.Exit`/`log.Fatal` and other non-returning calls,
//! a shadowed `panic`, panics raised by the runtime.
//!
//! Bounds: at most [`MAX_LOGIC_STEPS`] steps (exit included) and [`MAX_LOGIC_DEPTH`] nested
//! statements per function; beyond either the logic is `truncated` and holds the steps built
//! so far. A declaration containing syntax errors (`ERROR`/`MISSING` nodes) is `partial`.
//! A declaration without a body (implemented elsewhere) has an entry, an exit, and no edge.

mod build;
mod expr;
mod render;

use crate::{Pos, Receiver};
use docforge_syntax::tree_sitter::Tree;
use docforge_syntax::GoSyntax;
use serde::{Deserialize, Serialize};

/// At most this many steps (the exit included) per function.
pub const MAX_LOGIC_STEPS: usize = 2_000;
/// At most this many nested compound statements per function.
pub const MAX_LOGIC_DEPTH: u32 = 200;
/// Step text is cut to at most this many bytes (on a character boundary, `…` included).
pub const MAX_STEP_TEXT: usize = 120;

/// The control paths of one func/method declaration.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FunctionLogic {
    /// Index into [`FileFacts::decls`](crate::FileFacts::decls) of the declaration.
    pub decl: u32,
    pub name: String,
    /// Methods only.
    pub receiver: Option<Receiver>,
    /// Position of the declared name.
    pub pos: Pos,
    /// Step 0 is the entry, the last step the exit.
    pub steps: Vec<Step>,
    /// Sorted by `(from, to, label)`, without duplicates.
    pub edges: Vec<Edge>,
    /// A bound ([`MAX_LOGIC_STEPS`], [`MAX_LOGIC_DEPTH`]) was reached: paths are cut short.
    pub truncated: bool,
    /// The declaration contains syntax errors: paths follow the tree-sitter recovery.
    pub partial: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Step {
    pub kind: StepKind,
    /// Bounded source text ([`MAX_STEP_TEXT`]), whitespace runs and comments collapsed to one
    /// space: the condition, loop header, switch tag, case list, callee, label, returned
    /// expressions; empty where there is nothing to say.
    pub text: String,
    pub pos: Pos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    Entry,
    Exit,
    /// An `if` or `for` condition.
    Condition,
    /// The start of an `if`'s consequence.
    Then,
    /// The start of an `if`'s alternative (a block or the next `if`).
    Else,
    /// The head of a `for` without `range`; text: the three-clause header, or empty.
    Loop,
    /// The head of a `for … range`; text: the range clause.
    Range,
    /// An expression switch; text: the tag (empty for `switch {`).
    Switch,
    /// A type switch; text: `x := v.(type)`.
    TypeSwitch,
    Select,
    /// A `case` clause; text: its expressions, types or communication.
    Case,
    /// A `default` clause.
    Default,
    Fallthrough,
    /// Text: the label, if any.
    Break,
    /// Text: the label, if any.
    Continue,
    /// Text: the label.
    Goto,
    /// A labelled statement; text: the label.
    Label,
    /// Text: the callee expression.
    Call,
    /// A function literal; text: its signature.
    Closure,
    /// Text: the deferred callee.
    Defer,
    /// Text: the started callee.
    Go,
    /// Text: the returned expressions.
    Return,
    /// A call of the builtin `panic`; text: its argument.
    Panic,
}

impl StepKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Entry => "entry",
            StepKind::Exit => "exit",
            StepKind::Condition => "condition",
            StepKind::Then => "then",
            StepKind::Else => "else",
            StepKind::Loop => "loop",
            StepKind::Range => "range",
            StepKind::Switch => "switch",
            StepKind::TypeSwitch => "type_switch",
            StepKind::Select => "select",
            StepKind::Case => "case",
            StepKind::Default => "default",
            StepKind::Fallthrough => "fallthrough",
            StepKind::Break => "break",
            StepKind::Continue => "continue",
            StepKind::Goto => "goto",
            StepKind::Label => "label",
            StepKind::Call => "call",
            StepKind::Closure => "closure",
            StepKind::Defer => "defer",
            StepKind::Go => "go",
            StepKind::Return => "return",
            StepKind::Panic => "panic",
        }
    }
}

/// A possible transfer of control from step `from` to step `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Edge {
    pub from: u32,
    pub to: u32,
    pub label: EdgeLabel,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeLabel {
    /// Sequential flow.
    Next,
    /// A condition holds / a range has another element.
    True,
    /// A condition fails / a range is done.
    False,
    /// A switch/select to one of its case clauses.
    Case,
    /// A switch/select to its default clause; for a switch without one, past the switch.
    Default,
    /// The end of a loop body back to its head.
    Loop,
    Break,
    Continue,
    Fallthrough,
    Goto,
    /// `return` or `panic` to the exit.
    Exit,
}

impl EdgeLabel {
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeLabel::Next => "next",
            EdgeLabel::True => "true",
            EdgeLabel::False => "false",
            EdgeLabel::Case => "case",
            EdgeLabel::Default => "default",
            EdgeLabel::Loop => "loop",
            EdgeLabel::Break => "break",
            EdgeLabel::Continue => "continue",
            EdgeLabel::Fallthrough => "fallthrough",
            EdgeLabel::Goto => "goto",
            EdgeLabel::Exit => "exit",
        }
    }
}

/// The logic of every package-level func/method of one Go file, in source order. `tree`
/// must be the parse of `source` obtained through the same gate. Never panics.
pub fn extract_logic(go: GoSyntax<'_>, tree: &Tree, source: &[u8]) -> Vec<FunctionLogic> {
    let mut out = Vec::new();
    crate::extract::func_decls(go, tree.root_node(), source, |idx, decl, node| {
        out.push(build::function(idx, decl, node, source));
    });
    out
}

/// [`extract_logic`] of a fresh parse of `source`.
pub fn extract_file_logic(go: GoSyntax<'_>, source: &[u8]) -> Vec<FunctionLogic> {
    extract_logic(go, &go.parse(source), source)
}
