//! A compact text form of a function's logic, for tests, debugging and plain-text fronts.

use super::{EdgeLabel, FunctionLogic};
use std::fmt::Write;

impl FunctionLogic {
    /// One header line, then one line per step with its outgoing edges:
    ///
    /// ```text
    /// func F @3:6
    ///   0 entry @3:1 -> 1
    ///   1 condition `x > 0` @4:5 -> 2 true, 4 false
    ///   2 then @4:11 -> 3
    ///   3 return `x` @5:3 -> 4 exit
    ///   4 exit @7:1
    /// ```
    ///
    /// Methods read `method (*T).M`; `[partial]` / `[truncated]` follow the header when set;
    /// the `next` label is left out.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let kind = match &self.receiver {
            Some(r) => format!("method ({}{}).", if r.pointer { "*" } else { "" }, r.type_name),
            None => "func ".to_string(),
        };
        let _ = write!(out, "{kind}{} @{}:{}", self.name, self.pos.line, self.pos.column);
        if self.partial {
            out.push_str(" [partial]");
        }
        if self.truncated {
            out.push_str(" [truncated]");
        }
        out.push('\n');
        let mut edges = self.edges.iter().peekable();
        for (id, step) in self.steps.iter().enumerate() {
            let _ = write!(out, "  {id} {}", step.kind.as_str());
            if !step.text.is_empty() {
                let _ = write!(out, " `{}`", step.text);
            }
            let _ = write!(out, " @{}:{}", step.pos.line, step.pos.column);
            let mut sep = " -> ";
            while let Some(e) = edges.next_if(|e| e.from as usize == id) {
                out.push_str(sep);
                let _ = write!(out, "{}", e.to);
                if e.label != EdgeLabel::Next {
                    let _ = write!(out, " {}", e.label.as_str());
                }
                sep = ", ";
            }
            out.push('\n');
        }
        out
    }
}
