//! File texts as lines, read once per [`crate::Ide`].

use docforge_db::{Analysis, Cancellable, Mention};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A file's text with the byte offset of each line's start (split once, no copy per line).
/// Lines are numbered as `text.split('\n')` numbers them, from 0, without their `\n` (a
/// trailing `\r` is kept: it is a byte of the line).
#[derive(Clone, Debug)]
pub struct Lines {
    text: String,
    starts: Vec<usize>,
}

impl Lines {
    pub fn new(text: String) -> Lines {
        let starts =
            std::iter::once(0).chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1)).collect();
        Lines { text, starts }
    }

    /// Line `i` (0-based).
    pub fn get(&self, i: usize) -> Option<&str> {
        let start = *self.starts.get(i)?;
        let end = self.starts.get(i + 1).map_or(self.text.len(), |next| next - 1);
        Some(&self.text[start..end])
    }

    /// Line `n` as the graph counts them (1-based; `0` is no line).
    pub fn line(&self, n: u32) -> Option<&str> {
        self.get((n as usize).checked_sub(1)?)
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// An empty text: one empty line, as `"".split('\n')` has.
impl Default for Lines {
    fn default() -> Self {
        Lines::new(String::new())
    }
}

/// What one request read: lines and declaration mentions per file.
#[derive(Default)]
pub(crate) struct Files {
    lines: RefCell<HashMap<String, Option<Rc<Lines>>>>,
    mentions: RefCell<HashMap<String, Rc<Vec<Mention>>>>,
}

impl Files {
    pub fn loaded(&self, analysis: &Analysis, path: &str) -> Cancellable<Option<Rc<Lines>>> {
        if let Some(l) = self.lines.borrow().get(path) {
            return Ok(l.clone());
        }
        let lines =
            analysis.file_text(path)?.map(|b| Rc::new(Lines::new(String::from_utf8_lossy(&b).into_owned())));
        self.lines.borrow_mut().insert(path.to_string(), lines.clone());
        Ok(lines)
    }

    /// Every node mention in a file ([`Analysis::mentions`]), computed once per request.
    pub fn mentions(&self, analysis: &Analysis, path: &str) -> Cancellable<Rc<Vec<Mention>>> {
        if let Some(m) = self.mentions.borrow().get(path) {
            return Ok(m.clone());
        }
        let mentions = Rc::new(analysis.mentions(path)?);
        self.mentions.borrow_mut().insert(path.to_string(), mentions.clone());
        Ok(mentions)
    }
}

#[cfg(test)]
mod tests {
    use super::Lines;

    #[test]
    fn lines_are_numbered_as_split_numbers_them() {
        for text in ["", "a", "a\n", "a\r\nb\n\nc", "\n\n"] {
            let lines = Lines::new(text.to_string());
            let split: Vec<&str> = text.split('\n').collect();
            let got: Vec<&str> = (0..).map_while(|i| lines.get(i)).collect();
            assert_eq!(got, split, "{text:?}");
        }
        assert_eq!(Lines::default().get(0), Some(""));
    }
}
