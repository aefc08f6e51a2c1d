//! The source map: every file the front end read (the main file and each `#include`d
//! one), byte spans into them, and line/column lookup for diagnostics and dumps.

use std::path::{Path, PathBuf};

/// Index of a file in the [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: u32, end: u32) -> Span {
        Span { file, start, end }
    }

    /// The smallest span covering both, when they are in the same file; else `self`.
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span { file: self.file, start: self.start.min(other.start), end: self.end.max(other.end) }
    }

    /// The empty span at this span's end.
    pub fn end_point(self) -> Span {
        Span { file: self.file, start: self.end, end: self.end }
    }
}

/// A 1-based line and column (columns count bytes, as clang's do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// A `#line` directive: from `offset` on, the next line is `line` of `name`.
#[derive(Clone, Debug)]
struct LineOverride {
    offset: u32,
    /// The physical line the override takes effect on.
    physical_line: u32,
    line: u32,
    name: Option<String>,
}

/// One file's text and line table.
#[derive(Debug)]
pub struct SourceFile {
    /// The name diagnostics use (the path as written on the command line or resolved).
    pub name: String,
    /// Where it was read from, when it came from disk (for `""` includes).
    pub path: Option<PathBuf>,
    pub text: String,
    line_starts: Vec<u32>,
    line_overrides: Vec<LineOverride>,
}

impl SourceFile {
    fn new(name: String, path: Option<PathBuf>, text: String) -> SourceFile {
        let mut line_starts = vec![0];
        line_starts.extend(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i as u32 + 1));
        SourceFile { name, path, text, line_starts, line_overrides: Vec::new() }
    }

    /// The physical line and column of a byte offset.
    pub fn line_col(&self, offset: u32) -> LineCol {
        let line = self.line_starts.partition_point(|&start| start <= offset).max(1);
        let col = offset.saturating_sub(self.line_starts[line - 1]) + 1;
        LineCol { line: line as u32, col }
    }

    /// The text of a 1-based physical line, without its line terminator.
    pub fn line_text(&self, line: u32) -> &str {
        let index = (line as usize).saturating_sub(1);
        let Some(&start) = self.line_starts.get(index) else { return "" };
        let end = self.line_starts.get(index + 1).map_or(self.text.len(), |&e| e as usize);
        let text = self.text.get(start as usize..end).unwrap_or("");
        text.trim_end_matches(['\n', '\r'])
    }

    /// The text a span covers (empty when it is out of range).
    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.start as usize..span.end as usize).unwrap_or("")
    }

    /// The name and line a diagnostic should show for `offset`, honouring `#line`.
    pub fn presumed(&self, offset: u32) -> (&str, LineCol) {
        let physical = self.line_col(offset);
        let applicable = self.line_overrides.iter().rev().find(|o| o.offset <= offset);
        match applicable {
            None => (&self.name, physical),
            Some(o) => {
                let name = o.name.as_deref().unwrap_or(&self.name);
                let line = o.line.saturating_add(physical.line.saturating_sub(o.physical_line));
                (name, LineCol { line, col: physical.col })
            }
        }
    }
}

/// Every file read during one compilation.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and returns its id.
    pub fn add(&mut self, name: impl Into<String>, path: Option<PathBuf>, text: String) -> FileId {
        self.files.push(SourceFile::new(name.into(), path, text));
        FileId(self.files.len() as u32 - 1)
    }

    pub fn file(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files.iter().enumerate().map(|(i, f)| (FileId(i as u32), f))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The file's text (empty for an unknown id).
    pub fn text(&self, id: FileId) -> &str {
        self.file(id).map_or("", |f| f.text.as_str())
    }

    pub fn slice(&self, span: Span) -> &str {
        self.file(span.file).map_or("", |f| f.slice(span))
    }

    /// The physical line and column of a span's start.
    pub fn line_col(&self, span: Span) -> LineCol {
        self.file(span.file).map_or(LineCol { line: 0, col: 0 }, |f| f.line_col(span.start))
    }

    /// The path a file was read from, if any.
    pub fn path(&self, id: FileId) -> Option<&Path> {
        self.file(id).and_then(|f| f.path.as_deref())
    }

    /// Records a `#line LINE ["NAME"]` directive whose next line starts at `offset`.
    pub fn add_line_override(&mut self, id: FileId, offset: u32, line: u32, name: Option<String>) {
        if let Some(file) = self.files.get_mut(id.0 as usize) {
            let physical_line = file.line_col(offset).line;
            file.line_overrides.push(LineOverride { offset, physical_line, line, name });
        }
    }

    /// `name:line:col` as diagnostics print it (honours `#line`).
    pub fn location_string(&self, span: Span) -> String {
        match self.file(span.file) {
            None => "<unknown>".to_string(),
            Some(f) => {
                let (name, lc) = f.presumed(span.start);
                format!("{name}:{}:{}", lc.line, lc.col)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_lookup() {
        let mut map = SourceMap::new();
        let id = map.add("a.hlsl", None, "ab\ncd\r\n\nxyz".to_string());
        let f = map.file(id).unwrap();
        assert_eq!(f.line_col(0), LineCol { line: 1, col: 1 });
        assert_eq!(f.line_col(4), LineCol { line: 2, col: 2 });
        assert_eq!(f.line_col(8), LineCol { line: 4, col: 1 });
        assert_eq!(f.line_text(2), "cd");
        assert_eq!(f.line_text(3), "");
        assert_eq!(f.line_text(4), "xyz");
        assert_eq!(f.line_text(99), "");
        assert_eq!(map.slice(Span::new(id, 8, 11)), "xyz");
        assert_eq!(map.slice(Span::new(id, 8, 100)), "");
    }

    #[test]
    fn line_directive_renames_and_renumbers() {
        let mut map = SourceMap::new();
        let id = map.add("a.hlsl", None, "x\n#line 40 \"b.h\"\ny\nz\n".to_string());
        map.add_line_override(id, 17, 40, Some("b.h".into()));
        assert_eq!(map.location_string(Span::new(id, 0, 1)), "a.hlsl:1:1");
        assert_eq!(map.location_string(Span::new(id, 17, 18)), "b.h:40:1");
        assert_eq!(map.location_string(Span::new(id, 19, 20)), "b.h:41:1");
    }
}
