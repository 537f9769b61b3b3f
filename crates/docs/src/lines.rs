//! Byte offsets to 1-based line/column locations.

use docforge_model::Location;

/// Line starts of one file, for mapping byte offsets to [`Location`]s.
pub(crate) struct LineIndex<'a> {
    path: &'a str,
    starts: Vec<usize>,
    len: usize,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(path: &'a str, text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1));
        LineIndex { path, starts, len: text.len() }
    }

    /// 1-based line and byte column of `offset` (clamped to the file).
    pub(crate) fn location(&self, offset: usize) -> Location {
        let offset = offset.min(self.len);
        let line = self.starts.partition_point(|&s| s <= offset);
        let column = offset - self.starts[line - 1] + 1;
        Location::new(self.path, to_u32(line), to_u32(column))
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::LineIndex;

    #[test]
    fn offsets_map_to_lines_and_byte_columns() {
        let text = "ab\r\ncd\n\nxé\n";
        let idx = LineIndex::new("f.md", text);
        let cases =
            [(0, 1, 1), (1, 1, 2), (3, 1, 4), (4, 2, 1), (7, 3, 1), (8, 4, 1), (9, 4, 2), (100, 5, 1)];
        for (offset, line, column) in cases {
            let loc = idx.location(offset);
            assert_eq!((loc.line, loc.column), (line, column), "offset {offset}");
            assert_eq!(loc.path, "f.md");
        }
    }
}
