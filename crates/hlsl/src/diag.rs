//! Diagnostics: errors, warnings and notes with source spans, rendered the way clang
//! and dxc print them (`FILE:LINE:COL: error: message`, the source line, a caret).

use crate::source::{SourceMap, Span};
use std::collections::HashSet;
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    fn label(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A related location shown under a diagnostic (`note: to match this '('`).
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    pub span: Option<Span>,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub span: Option<Span>,
    /// The warning group (`-Wflag`) a warning belongs to.
    pub flag: Option<&'static str>,
    pub notes: Vec<Note>,
    /// An error clang calls fatal (`fatal error:`): it ends the compilation.
    pub fatal: bool,
}

impl Diagnostic {
    pub fn error(span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            flag: None,
            notes: Vec::new(),
            fatal: false,
        }
    }

    /// An error printed as `fatal error:` (an include not found, a state dxc's
    /// backend cannot go on from).
    pub fn fatal(span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        Diagnostic { fatal: true, ..Diagnostic::error(span, message) }
    }

    pub fn warning(span: Option<Span>, flag: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            message: message.into(),
            span,
            flag: Some(flag),
            notes: Vec::new(),
            fatal: false,
        }
    }

    pub fn with_note(mut self, span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        self.notes.push(Note { span, message: message.into() });
        self
    }
}

/// How warnings are treated (`-Werror`, `-Wno-flag`, `-no-warnings`) and when to stop.
#[derive(Clone, Debug)]
pub struct DiagOptions {
    pub warnings_as_errors: bool,
    pub no_warnings: bool,
    pub disabled_warnings: HashSet<String>,
    /// After this many errors, further ones are dropped and a fatal note is added.
    pub error_limit: usize,
}

impl Default for DiagOptions {
    fn default() -> DiagOptions {
        DiagOptions {
            warnings_as_errors: false,
            no_warnings: false,
            disabled_warnings: HashSet::new(),
            error_limit: 20,
        }
    }
}

/// A point in the diagnostics to roll back to ([`Diagnostics::rollback`]).
#[derive(Clone, Copy, Debug)]
pub struct DiagCheckpoint {
    len: usize,
    errors: usize,
    warnings: usize,
    limit_reached: bool,
}

/// The diagnostics of one compilation, in the order they were reported.
#[derive(Debug, Default)]
pub struct Diagnostics {
    pub options: DiagOptions,
    list: Vec<Diagnostic>,
    errors: usize,
    warnings: usize,
    limit_reached: bool,
    /// A fatal error was reported: clang reports nothing after one.
    fatal_reached: bool,
}

impl Diagnostics {
    pub fn new(options: DiagOptions) -> Diagnostics {
        Diagnostics { options, ..Diagnostics::default() }
    }

    pub fn report(&mut self, mut diag: Diagnostic) {
        if self.fatal_reached {
            return;
        }
        if diag.severity == Severity::Warning {
            let flag = diag.flag.unwrap_or("");
            if self.options.no_warnings || self.options.disabled_warnings.contains(flag) {
                return;
            }
            if self.options.warnings_as_errors {
                diag.severity = Severity::Error;
            }
        }
        match diag.severity {
            Severity::Error => {
                if self.limit_reached {
                    return;
                }
                self.errors += 1;
                if self.errors > self.options.error_limit.max(1) {
                    self.limit_reached = true;
                    self.errors -= 1;
                    self.list.push(Diagnostic::error(None, "too many errors emitted, stopping now"));
                    self.errors += 1;
                    return;
                }
            }
            Severity::Warning => self.warnings += 1,
            Severity::Note => {}
        }
        self.fatal_reached = diag.fatal;
        self.list.push(diag);
    }

    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.report(Diagnostic::error(Some(span), message));
    }

    pub fn warning(&mut self, span: Span, flag: &'static str, message: impl Into<String>) {
        self.report(Diagnostic::warning(Some(span), flag, message));
    }

    /// A fatal error: reported, and nothing after it is.
    pub fn fatal(&mut self, span: Span, message: impl Into<String>) {
        self.report(Diagnostic::fatal(Some(span), message));
    }

    pub fn error_count(&self) -> usize {
        self.errors
    }

    pub fn warning_count(&self) -> usize {
        self.warnings
    }

    pub fn has_errors(&self) -> bool {
        self.errors > 0
    }

    /// True once the error limit stopped recording: callers may stop early.
    pub fn limit_reached(&self) -> bool {
        self.limit_reached
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Drops diagnostics recorded after `len` (speculative parsing that was undone).
    pub fn truncate(&mut self, len: usize, errors: usize, warnings: usize) {
        self.list.truncate(len);
        self.errors = errors;
        self.warnings = warnings;
        self.fatal_reached = self.list.iter().any(|d| d.fatal);
    }

    /// Where the diagnostics stand, to drop what a speculative check reports.
    pub fn checkpoint(&self) -> DiagCheckpoint {
        DiagCheckpoint {
            len: self.list.len(),
            errors: self.errors,
            warnings: self.warnings,
            limit_reached: self.limit_reached,
        }
    }

    /// Whether errors were reported since `checkpoint`.
    pub fn errors_since(&self, checkpoint: &DiagCheckpoint) -> bool {
        self.errors > checkpoint.errors || self.limit_reached && !checkpoint.limit_reached
    }

    /// Drops everything reported since `checkpoint` (the error limit included).
    pub fn rollback(&mut self, checkpoint: DiagCheckpoint) {
        self.list.truncate(checkpoint.len);
        self.errors = checkpoint.errors;
        self.warnings = checkpoint.warnings;
        self.limit_reached = checkpoint.limit_reached;
        self.fatal_reached = self.list.iter().any(|d| d.fatal);
    }

    /// Every diagnostic rendered, then a count line as clang prints it.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = String::new();
        for diag in &self.list {
            let label = if diag.fatal && diag.severity == Severity::Error {
                "fatal error"
            } else {
                diag.severity.label()
            };
            render_one(&mut out, sources, label, diag.span, &diag.message, diag.flag);
            for note in &diag.notes {
                render_one(&mut out, sources, Severity::Note.label(), note.span, &note.message, None);
            }
        }
        let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        match (self.warnings, self.errors) {
            (0, 0) => {}
            (w, 0) => {
                let _ = writeln!(out, "{} generated.", plural(w, "warning"));
            }
            (0, e) => {
                let _ = writeln!(out, "{} generated.", plural(e, "error"));
            }
            (w, e) => {
                let _ = writeln!(out, "{} and {} generated.", plural(w, "warning"), plural(e, "error"));
            }
        }
        out
    }
}

fn render_one(
    out: &mut String,
    sources: &SourceMap,
    label: &str,
    span: Option<Span>,
    message: &str,
    flag: Option<&str>,
) {
    let flag_text = match (label, flag) {
        ("warning", Some(f)) if !f.is_empty() => format!(" [-W{f}]"),
        ("error", Some(f)) if !f.is_empty() => format!(" [-Werror,-W{f}]"),
        _ => String::new(),
    };
    let Some(span) = span.filter(|s| sources.file(s.file).is_some()) else {
        let _ = writeln!(out, "{label}: {message}{flag_text}");
        return;
    };
    let _ = writeln!(out, "{}: {label}: {message}{flag_text}", sources.location_string(span));
    let Some(file) = sources.file(span.file) else { return };
    let start = file.line_col(span.start);
    let line = file.line_text(start.line);
    let _ = writeln!(out, "{line}");
    // The caret line keeps the source line's tabs so the caret lines up.
    let mut caret: String =
        line.bytes().take(start.col as usize - 1).map(|b| if b == b'\t' { '\t' } else { ' ' }).collect();
    caret.push('^');
    let end = file.line_col(span.end.max(span.start));
    if end.line == start.line && end.col > start.col + 1 {
        caret.extend(std::iter::repeat_n('~', (end.col - start.col - 1) as usize));
    }
    let _ = writeln!(out, "{caret}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceMap;

    #[test]
    fn renders_clang_style_with_caret_and_range() {
        let mut map = SourceMap::new();
        let id = map.add("t.hlsl", None, "float4 x = foo(1)\nint y;\n".to_string());
        let mut diags = Diagnostics::default();
        diags.report(
            Diagnostic::error(Some(Span::new(id, 11, 17)), "expected ';' after top level declarator")
                .with_note(Some(Span::new(id, 14, 15)), "to match this '('"),
        );
        let text = diags.render(&map);
        assert_eq!(
            text,
            "t.hlsl:1:12: error: expected ';' after top level declarator\nfloat4 x = foo(1)\n           ^~~~~~\n\
             t.hlsl:1:15: note: to match this '('\nfloat4 x = foo(1)\n              ^\n1 error generated.\n"
        );
    }

    #[test]
    fn werror_and_disabled_warnings() {
        let mut map = SourceMap::new();
        let id = map.add("t.hlsl", None, "x\n".to_string());
        let mut diags = Diagnostics::default();
        diags.options.disabled_warnings.insert("quiet".into());
        diags.warning(Span::new(id, 0, 1), "quiet", "not shown");
        diags.warning(Span::new(id, 0, 1), "loud", "shown");
        assert_eq!(diags.warning_count(), 1);
        assert!(diags.render(&map).contains("warning: shown [-Wloud]"));

        let mut strict = Diagnostics::new(DiagOptions { warnings_as_errors: true, ..DiagOptions::default() });
        strict.warning(Span::new(id, 0, 1), "loud", "now an error");
        assert!(strict.has_errors());
        assert!(strict.render(&map).contains("error: now an error [-Werror,-Wloud]"));
    }

    #[test]
    fn fatal_errors_are_labelled_and_end_the_reporting() {
        let mut map = SourceMap::new();
        let id = map.add("t.hlsl", None, "#include \"x.h\"\n".to_string());
        let mut diags = Diagnostics::default();
        diags.fatal(Span::new(id, 9, 14), "'x.h' file not found");
        diags.error(Span::new(id, 0, 1), "not shown after a fatal error");
        assert_eq!(diags.error_count(), 1);
        let text = diags.render(&map);
        assert!(text.starts_with("t.hlsl:1:10: fatal error: 'x.h' file not found\n"), "{text}");
        assert!(!text.contains("not shown"), "{text}");
    }

    #[test]
    fn error_limit_stops_floods() {
        let mut diags = Diagnostics::new(DiagOptions { error_limit: 3, ..DiagOptions::default() });
        for _ in 0..100 {
            diags.report(Diagnostic::error(None, "again"));
        }
        assert!(diags.limit_reached());
        assert_eq!(diags.len(), 4);
        assert!(diags.iter().last().unwrap().message.contains("too many errors"));
    }

    #[test]
    fn rollback_drops_a_speculative_check_and_its_error_limit() {
        let mut diags = Diagnostics::new(DiagOptions { error_limit: 2, ..DiagOptions::default() });
        diags.report(Diagnostic::error(None, "kept"));
        let checkpoint = diags.checkpoint();
        assert!(!diags.errors_since(&checkpoint));
        for _ in 0..5 {
            diags.report(Diagnostic::error(None, "speculative"));
        }
        assert!(diags.limit_reached() && diags.errors_since(&checkpoint));
        diags.rollback(checkpoint);
        assert!(!diags.limit_reached());
        assert_eq!((diags.len(), diags.error_count()), (1, 1));
        diags.report(Diagnostic::error(None, "after"));
        assert_eq!(diags.iter().map(|d| d.message.as_str()).collect::<Vec<_>>(), ["kept", "after"]);
    }
}
