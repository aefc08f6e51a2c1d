//! Diagnostics and their rendering as `mlir-opt` prints them.
//!
//! A [`Diagnostic`] is located by a byte offset into the buffer being processed (the
//! whole input file, also under `--split-input-file`). [`render`] prints it the way
//! MLIR's `SourceMgrDiagnosticHandler` does through LLVM's `SMDiagnostic::print`:
//!
//! ```text
//! FILE:LINE:COL: error: MESSAGE
//! <the source line, tabs expanded to 8 columns>
//! <a caret line: `^` under the column, `~` under an optional range>
//! ```
//!
//! followed by the notes (`FILE:LINE:COL: note: ...`, with the source line only when a
//! note's location differs from the previous one). A diagnostic without a location
//! prints as `<unknown>:0: error: MESSAGE`. A source line with non-ASCII bytes is
//! printed without a caret line, as LLVM does.

mod ere;
pub mod expected;

use std::fmt::Write;
use std::ops::Range;

/// How severe a diagnostic is (MLIR's `DiagnosticSeverity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
    Remark,
    Note,
}

impl Severity {
    /// The label MLIR prints (`error`, `warning`, `remark`, `note`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Remark => "remark",
            Severity::Note => "note",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One diagnostic with its attached notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Byte offset into the buffer being processed; `None` for an unknown location.
    pub offset: Option<usize>,
    pub message: String,
    /// Attached notes (normally of severity [`Severity::Note`]).
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    pub fn new(severity: Severity, offset: Option<usize>, message: impl Into<String>) -> Self {
        Diagnostic { severity, offset, message: message.into(), notes: Vec::new() }
    }

    pub fn error(offset: Option<usize>, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Error, offset, message)
    }

    pub fn warning(offset: Option<usize>, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Warning, offset, message)
    }

    pub fn remark(offset: Option<usize>, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Remark, offset, message)
    }

    pub fn note(offset: Option<usize>, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Note, offset, message)
    }

    /// Attaches a note (builder style).
    pub fn with_note(mut self, offset: Option<usize>, message: impl Into<String>) -> Self {
        self.notes.push(Diagnostic::note(offset, message));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl From<crate::text::parser::ParseError> for Diagnostic {
    fn from(e: crate::text::parser::ParseError) -> Self {
        let mut d = Diagnostic::error(Some(e.offset), e.message);
        d.notes = e.notes.into_iter().map(|(o, m)| Diagnostic::new(Severity::Note, Some(o), m)).collect();
        d
    }
}

/// Line starts of a buffer, for byte offset <-> 1-based (line, column) conversion.
/// Lines end at `\n`, as in LLVM's `SourceMgr`; columns count bytes.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(source: &str) -> Self {
        let mut starts = vec![0];
        // `match_indices` on a char searches with memchr, several times faster than a
        // byte loop on large modules.
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts, len: source.len() }
    }

    /// Number of lines (a trailing newline starts a last, empty line).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// 1-based (line, column) of a byte offset (clamped to the buffer's end).
    pub fn line_col(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.len);
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        (line as u32, (offset - start + 1) as u32)
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> u32 {
        self.line_col(offset).0
    }

    /// Byte offset of the start of a 1-based line.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.starts.get((line as usize).checked_sub(1)?).copied()
    }

    /// Byte offset of an op's location in this buffer, for `file:line:col` locations.
    pub fn location_offset(&self, location: &crate::ir::Location) -> Option<usize> {
        // As MLIR's source manager handler, through name locations to the
        // `file:line:col` they qualify.
        let (_, line, column) = location.file_line_col()?;
        self.offset(line, column)
    }

    /// Byte offset of a 1-based (line, column), if the line exists; a column past the
    /// line's end is clamped to the buffer's end, as LLVM's `FindLocForLineAndColumn`.
    pub fn offset(&self, line: u32, column: u32) -> Option<usize> {
        if column == 0 {
            return None;
        }
        let start = self.line_start(line)?;
        Some((start + column as usize - 1).min(self.len))
    }
}

/// The note MLIR attaches to diagnostics emitted while a pass runs: the op in the
/// generic form (on its own lines when it spans several).
pub fn current_operation_note(ir: &crate::ir::Ir, op: crate::ir::OpId) -> String {
    use crate::text::printer::{Names, PrintOptions, Printer};
    // Values are named as in the enclosing op that is isolated from above.
    let mut scope = op;
    while !crate::opdef::op_has_trait(&ir.op(scope).name, "IsolatedFromAbove") {
        match ir.parent_op(scope) {
            Some(parent) => scope = parent,
            None => break,
        }
    }
    let options = PrintOptions { generic: true, ..Default::default() };
    let mut printer = Printer::new(ir, Names::new(ir, scope, true), options);
    printer.operation(op);
    let printed = printer.out.trim_end_matches('\n');
    let separator = if printed.contains('\n') { "\n" } else { "" };
    format!("see current operation: {separator}{printed}")
}

/// LLVM's tab stop for source lines in diagnostics.
const TAB_STOP: usize = 8;

/// Renders one message as LLVM's `SMDiagnostic::print` does (no notes).
///
/// - `offset: None` prints `<unknown>:0: KIND: MESSAGE`;
/// - `show_source: false` prints only `FILE:LINE:COL: KIND: MESSAGE`;
/// - `range` (byte offsets) is underlined with `~` where it lies on the caret's line.
pub fn render_message(
    file_name: &str,
    source: &str,
    offset: Option<usize>,
    severity: Severity,
    message: &str,
    range: Option<Range<usize>>,
    show_source: bool,
) -> String {
    let mut out = String::new();
    let Some(offset) = offset.map(|o| o.min(source.len())) else {
        let _ = writeln!(out, "<unknown>:0: {severity}: {message}");
        return out;
    };
    let bytes = source.as_bytes();
    // The line holding the offset: `\n` and `\r` both end it, as in `SourceMgr::GetMessage`.
    let mut line_start = offset;
    while line_start > 0 && bytes[line_start - 1] != b'\n' && bytes[line_start - 1] != b'\r' {
        line_start -= 1;
    }
    let mut line_end = offset;
    while line_end < bytes.len() && bytes[line_end] != b'\n' && bytes[line_end] != b'\r' {
        line_end += 1;
    }
    let line_no = bytes[..offset].iter().filter(|&&b| b == b'\n').count() + 1;
    let column = offset - line_start;
    let _ = writeln!(out, "{file_name}:{line_no}:{}: {severity}: {message}", column + 1);
    if !show_source {
        return out;
    }
    let line = &bytes[line_start..line_end];
    if line.iter().any(|&b| b >= 0x80) {
        print_source_line(&mut out, line);
        return out;
    }
    let mut caret = vec![b' '; line.len() + 1];
    if let Some(r) = range {
        let start = r.start.clamp(line_start, line_end) - line_start;
        let end = r.end.clamp(line_start, line_end) - line_start;
        for c in caret.iter_mut().take(end.min(line.len() + 1)).skip(start) {
            *c = b'~';
        }
    }
    caret[column.min(line.len())] = b'^';
    while caret.last() == Some(&b' ') {
        caret.pop();
    }
    print_source_line(&mut out, line);
    let mut col = 0;
    for (i, &c) in caret.iter().enumerate() {
        if line.get(i) != Some(&b'\t') {
            out.push(c as char);
            col += 1;
            continue;
        }
        loop {
            out.push(c as char);
            col += 1;
            if col % TAB_STOP == 0 {
                break;
            }
        }
    }
    out.push('\n');
    out
}

/// Prints a source line with tabs expanded to the next tab stop.
fn print_source_line(out: &mut String, line: &[u8]) {
    let mut col = 0;
    let mut rest = line;
    while let Some(tab) = rest.iter().position(|&b| b == b'\t') {
        out.push_str(&String::from_utf8_lossy(&rest[..tab]));
        col += tab;
        loop {
            out.push(' ');
            col += 1;
            if col % TAB_STOP == 0 {
                break;
            }
        }
        rest = &rest[tab + 1..];
    }
    out.push_str(&String::from_utf8_lossy(rest));
    out.push('\n');
}

/// Renders a diagnostic and its notes as `mlir-opt` prints them to standard error.
pub fn render(file_name: &str, source: &str, diag: &Diagnostic) -> String {
    let mut out = render_message(file_name, source, diag.offset, diag.severity, &diag.message, None, true);
    let mut previous = diag.offset;
    for note in &diag.notes {
        // MLIR shows a note's source line only when its location differs from the
        // previous one; an unknown location always prints as `<unknown>:0:`.
        let show = note.offset != previous;
        out.push_str(&render_message(
            file_name,
            source,
            note.offset,
            note.severity,
            &note.message,
            None,
            show,
        ));
        previous = note.offset;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected texts below are mlir-opt-22's output for the same input.

    #[test]
    fn error_with_caret() {
        let src = "func.func @g(%a: i32) {\n    \"foo.bar\"() : () -> ()\n  return\n}\n";
        let offset = src.find("() :").unwrap();
        let d = Diagnostic::error(Some(offset), "operation being parsed with an unregistered dialect");
        assert_eq!(
            render("b.mlir", src, &d),
            "b.mlir:2:14: error: operation being parsed with an unregistered dialect\n    \"foo.bar\"() : () -> ()\n             ^\n"
        );
    }

    #[test]
    fn tabs_are_expanded() {
        let src = "func.func @f() {\n\t\"x.y\"() : () -> ()\n";
        let offset = src.find("\"() :").unwrap() + 1;
        let text = render_message("<stdin>", src, Some(offset), Severity::Error, "m", None, true);
        assert_eq!(text, "<stdin>:2:7: error: m\n        \"x.y\"() : () -> ()\n             ^\n");
    }

    #[test]
    fn range_is_underlined() {
        let src = "x\n// expected-note@-2 {{unregistered}}\n";
        let start = src.find("expected").unwrap();
        let text = render_message(
            "<stdin>",
            src,
            Some(start),
            Severity::Error,
            "expected note \"unregistered\" was not produced",
            Some(start..start + "unregistered".len()),
            true,
        );
        assert_eq!(
            text,
            "<stdin>:2:4: error: expected note \"unregistered\" was not produced\n\
             // expected-note@-2 {{unregistered}}\n   ^~~~~~~~~~~~\n"
        );
    }

    #[test]
    fn non_ascii_line_has_no_caret() {
        let src = "a\n  \"x.y\"() : () -> () // é\n";
        let offset = src.find("()").unwrap();
        let text = render_message("<stdin>", src, Some(offset), Severity::Error, "m", None, true);
        assert_eq!(text, "<stdin>:2:8: error: m\n  \"x.y\"() : () -> () // é\n");
    }

    #[test]
    fn unknown_location_and_notes() {
        let src = "a b\nc\n";
        let d = Diagnostic::error(Some(2), "bad")
            .with_note(Some(2), "same place")
            .with_note(Some(4), "elsewhere");
        assert_eq!(
            render("f.mlir", src, &d),
            "f.mlir:1:3: error: bad\na b\n  ^\nf.mlir:1:3: note: same place\nf.mlir:2:1: note: elsewhere\nc\n^\n"
        );
        let d = Diagnostic::error(None, "nowhere");
        assert_eq!(render("f.mlir", src, &d), "<unknown>:0: error: nowhere\n");
    }

    #[test]
    fn end_of_buffer() {
        let src = "abc\n";
        let text = render_message("f", src, Some(4), Severity::Warning, "eof", None, true);
        assert_eq!(text, "f:2:1: warning: eof\n\n^\n");
    }

    #[test]
    fn line_index() {
        let idx = LineIndex::new("ab\ncd\n");
        assert_eq!(idx.line_col(0), (1, 1));
        assert_eq!(idx.line_col(4), (2, 2));
        assert_eq!(idx.line_col(6), (3, 1));
        assert_eq!(idx.offset(2, 2), Some(4));
        assert_eq!(idx.offset(4, 1), None);
        assert_eq!(idx.line_count(), 3);
    }
}
