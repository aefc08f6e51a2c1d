//! `-verify`: the diagnostics a test expects are written in its comments
//! (`expected-error {{text}}`, `expected-warning@+1 {{text}}`, `expected-note 2 {{text}}`,
//! `expected-no-diagnostics`), and the compilation passes when the front end reports
//! exactly those: each expected diagnostic on its line with the text as a substring,
//! and no other error or warning. Notes are only compared when the file expects some.

use crate::diag::{Diagnostics, Severity};
use crate::source::{FileId, SourceMap, Span};
use std::fmt::Write as _;

/// One `expected-*` directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    pub severity: Severity,
    pub file: FileId,
    /// The line the diagnostic is expected on (1-based).
    pub line: u32,
    pub text: String,
    /// How many diagnostics it matches: at least `min`, at most `max` (`None`: any number).
    pub min: u32,
    pub max: Option<u32>,
}

/// The directives of one or more files.
#[derive(Clone, Debug, Default)]
pub struct Expectations {
    pub list: Vec<Expectation>,
    /// Some file said `expected-no-diagnostics`.
    pub no_diagnostics: bool,
    /// Malformed directives, as (file, line, message).
    pub errors: Vec<(FileId, u32, String)>,
}

/// The outcome of a `-verify` run: the report to print (empty on success).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyResult {
    pub passed: bool,
    pub report: String,
}

/// Comment bodies of `text` with their byte offsets (string and character literals skipped).
fn comments(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => {
                let quote = bytes[i];
                i += 1;
                while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let start = i + 2;
                let end = text[start..].find('\n').map_or(text.len(), |n| start + n);
                out.push((start, &text[start..end]));
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let start = i + 2;
                let end = text[start..].find("*/").map_or(text.len(), |n| start + n);
                out.push((start, &text[start..end]));
                i = end + 2;
            }
            _ => i += 1,
        }
    }
    out
}

fn line_of(text: &str, offset: usize) -> u32 {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset].iter().filter(|&&b| b == b'\n').count() as u32 + 1
}

/// Reads a decimal number at the start of `s`.
fn number(s: &str) -> Option<(u32, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let n = s[..digits].parse().ok()?;
    Some((n, &s[digits..]))
}

/// Parses the directives in the comments of `file`.
pub fn parse_expectations(sources: &SourceMap, file: FileId, out: &mut Expectations) {
    let Some(source) = sources.file(file) else { return };
    let text = source.text.as_str();
    for (base, body) in comments(text) {
        let mut pos = 0;
        while let Some(found) = body[pos..].find("expected-") {
            let at = pos + found;
            let rest = &body[at + "expected-".len()..];
            pos = at + "expected-".len();
            let directive_line = line_of(text, base + at);
            if rest.starts_with("no-diagnostics") {
                out.no_diagnostics = true;
                continue;
            }
            let (severity, rest) = if let Some(r) = rest.strip_prefix("error") {
                (Severity::Error, r)
            } else if let Some(r) = rest.strip_prefix("warning") {
                (Severity::Warning, r)
            } else if let Some(r) = rest.strip_prefix("note") {
                (Severity::Note, r)
            } else {
                continue;
            };
            if rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                continue;
            }
            match parse_directive(rest, directive_line) {
                Ok((line, min, max, text, consumed)) => {
                    pos = body.len() - rest.len() + consumed;
                    out.list.push(Expectation { severity, file, line, text, min, max });
                }
                Err(message) => out.errors.push((file, directive_line, message)),
            }
        }
    }
}

/// After the severity: `[@(+N|-N|N)] [N|N+|N-M] {{text}}`. Returns the line, the count
/// range, the text and how many bytes of `s` it used.
#[allow(clippy::type_complexity)]
fn parse_directive(s: &str, directive_line: u32) -> Result<(u32, u32, Option<u32>, String, usize), String> {
    let mut rest = s;
    let mut line = directive_line;
    if let Some(r) = rest.strip_prefix('@') {
        let (sign, r) = match r.as_bytes().first() {
            Some(b'+') => (1i64, &r[1..]),
            Some(b'-') => (-1, &r[1..]),
            _ => (0, r),
        };
        let Some((n, r)) = number(r) else { return Err("invalid line number in directive".into()) };
        let target = if sign == 0 { i64::from(n) } else { i64::from(directive_line) + sign * i64::from(n) };
        line = u32::try_from(target).ok().filter(|&l| l > 0).ok_or("invalid line number in directive")?;
        rest = r;
    }
    rest = rest.trim_start();
    let (mut min, mut max) = (1, Some(1));
    if let Some((n, r)) = number(rest) {
        min = n;
        max = Some(n);
        rest = r;
        if let Some(r) = rest.strip_prefix('+') {
            max = None;
            rest = r;
        } else if let Some(r) = rest.strip_prefix('-') {
            let Some((m, r)) = number(r) else { return Err("invalid count in directive".into()) };
            if m < n {
                return Err("invalid count range in directive".into());
            }
            max = Some(m);
            rest = r;
        }
        rest = rest.trim_start();
    }
    let Some(r) = rest.strip_prefix("{{") else {
        return Err("cannot find start ('{{') of expected string".into());
    };
    let Some(end) = r.find("}}") else { return Err("cannot find end ('}}') of expected string".into()) };
    let text = r[..end].to_string();
    let consumed = s.len() - r.len() + end + 2;
    Ok((line, min, max, text, consumed))
}

/// One reported diagnostic (or note) as `-verify` sees it.
struct Seen {
    severity: Severity,
    location: Option<(FileId, u32)>,
    text: String,
    matched: bool,
}

fn location(sources: &SourceMap, span: Option<Span>) -> Option<(FileId, u32)> {
    let span = span?;
    sources.file(span.file)?;
    Some((span.file, sources.line_col(span).line))
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

fn describe(sources: &SourceMap, location: Option<(FileId, u32)>, text: &str) -> String {
    match location.and_then(|(f, line)| Some((sources.file(f)?, line))) {
        Some((file, line)) => format!("  File {} Line {line}: {text}", file.name),
        None => format!("  (frontend): {text}"),
    }
}

/// Compares what was reported with what the comments of `files` expect.
pub fn verify(sources: &SourceMap, diags: &Diagnostics, files: &[FileId]) -> VerifyResult {
    let mut expected = Expectations::default();
    for &f in files {
        parse_expectations(sources, f, &mut expected);
    }
    let check_notes = expected.list.iter().any(|e| e.severity == Severity::Note);
    let mut seen: Vec<Seen> = Vec::new();
    for d in diags.iter() {
        seen.push(Seen {
            severity: d.severity,
            location: location(sources, d.span),
            text: d.message.clone(),
            matched: false,
        });
        if check_notes {
            for n in &d.notes {
                seen.push(Seen {
                    severity: Severity::Note,
                    location: location(sources, n.span),
                    text: n.message.clone(),
                    matched: false,
                });
            }
        }
    }
    let mut errors = 0usize;
    let mut report = String::new();
    for (file, line, message) in &expected.errors {
        let name = sources.file(*file).map_or("", |f| f.name.as_str());
        let _ = writeln!(report, "{name}:{line}: error: {message}");
        errors += 1;
    }
    if expected.no_diagnostics && !expected.list.is_empty() {
        let _ = writeln!(
            report,
            "error: expected-no-diagnostics directive cannot follow other expected directives"
        );
        errors += 1;
    }
    if expected.list.is_empty() && !expected.no_diagnostics && expected.errors.is_empty() {
        let _ = writeln!(
            report,
            "error: no expected directives found: consider use of 'expected-no-diagnostics'"
        );
        errors += 1;
    }
    let mut missing: Vec<&Expectation> = Vec::new();
    for e in &expected.list {
        let mut count = 0u32;
        for s in seen.iter_mut().filter(|s| !s.matched) {
            if e.max.is_some_and(|m| count >= m) {
                break;
            }
            if s.severity == e.severity && s.location == Some((e.file, e.line)) && s.text.contains(&e.text) {
                s.matched = true;
                count += 1;
            }
        }
        if count < e.min {
            missing.push(e);
        }
    }
    for severity in [Severity::Error, Severity::Warning, Severity::Note] {
        let name = severity_name(severity);
        let lines: Vec<String> = missing
            .iter()
            .filter(|e| e.severity == severity)
            .map(|e| describe(sources, Some((e.file, e.line)), &e.text))
            .collect();
        if !lines.is_empty() {
            let _ = writeln!(report, "error: '{name}' diagnostics expected but not seen: ");
            for l in &lines {
                let _ = writeln!(report, "{l}");
            }
            errors += 1;
        }
        let lines: Vec<String> = seen
            .iter()
            .filter(|s| !s.matched && s.severity == severity)
            .map(|s| describe(sources, s.location, &s.text))
            .collect();
        if !lines.is_empty() {
            let _ = writeln!(report, "error: '{name}' diagnostics seen but not expected: ");
            for l in &lines {
                let _ = writeln!(report, "{l}");
            }
            errors += 1;
        }
    }
    if errors > 0 {
        let _ = writeln!(report, "{errors} error{} generated.", if errors == 1 { "" } else { "s" });
    }
    VerifyResult { passed: errors == 0, report }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{DiagOptions, Diagnostic};

    fn setup(text: &str) -> (SourceMap, FileId) {
        let mut sources = SourceMap::new();
        let id = sources.add("t.hlsl", None, text.to_string());
        (sources, id)
    }

    fn span_at_line(sources: &SourceMap, file: FileId, line: u32) -> Span {
        let text = sources.text(file);
        let offset: usize = text.split_inclusive('\n').take(line as usize - 1).map(str::len).sum();
        Span::new(file, offset as u32, offset as u32 + 1)
    }

    #[test]
    fn parses_offsets_counts_and_texts() {
        let (sources, f) = setup(
            "int a; // expected-error {{first}}\n\
             /* expected-warning@+1 2 {{second}} */\n\
             int b;\n\
             // expected-note@-1 {{third}} expected-error@7 1+ {{fourth}}\n",
        );
        let mut e = Expectations::default();
        parse_expectations(&sources, f, &mut e);
        let got: Vec<_> =
            e.list.iter().map(|x| (x.severity, x.line, x.text.as_str(), x.min, x.max)).collect();
        assert_eq!(
            got,
            vec![
                (Severity::Error, 1, "first", 1, Some(1)),
                (Severity::Warning, 3, "second", 2, Some(2)),
                (Severity::Note, 3, "third", 1, Some(1)),
                (Severity::Error, 7, "fourth", 1, None),
            ]
        );
        assert!(e.errors.is_empty());
    }

    #[test]
    fn ignores_strings_and_reports_malformed() {
        let (sources, f) = setup("string s = \"expected-error {{x}}\";\n// expected-error {{unterminated\n");
        let mut e = Expectations::default();
        parse_expectations(&sources, f, &mut e);
        assert!(e.list.is_empty());
        assert_eq!(e.errors.len(), 1);
    }

    #[test]
    fn matches_and_mismatches() {
        let (sources, f) = setup("int a; // expected-error {{bad thing}}\nint b;\n");
        let mut diags = Diagnostics::new(DiagOptions::default());
        diags.report(Diagnostic::error(Some(span_at_line(&sources, f, 1)), "a bad thing happened"));
        let r = verify(&sources, &diags, &[f]);
        assert!(r.passed, "{}", r.report);
        assert!(r.report.is_empty());

        // On the wrong line: both missing and unexpected.
        let mut diags = Diagnostics::new(DiagOptions::default());
        diags.report(Diagnostic::error(Some(span_at_line(&sources, f, 2)), "a bad thing happened"));
        let r = verify(&sources, &diags, &[f]);
        assert!(!r.passed);
        assert!(r.report.contains(
            "error: 'error' diagnostics expected but not seen: \n  File t.hlsl Line 1: bad thing\n"
        ));
        assert!(r.report.contains("error: 'error' diagnostics seen but not expected: \n  File t.hlsl Line 2: a bad thing happened\n"));
        assert!(r.report.ends_with("2 errors generated.\n"));
    }

    #[test]
    fn no_diagnostics_and_counts() {
        let (sources, f) = setup("// expected-no-diagnostics\n");
        let diags = Diagnostics::new(DiagOptions::default());
        assert!(verify(&sources, &diags, &[f]).passed);
        let mut diags = Diagnostics::new(DiagOptions::default());
        diags.report(Diagnostic::warning(None, "w", "something"));
        let r = verify(&sources, &diags, &[f]);
        assert!(!r.passed);
        assert!(r
            .report
            .contains("'warning' diagnostics seen but not expected: \n  (frontend): something\n"));

        let (sources, f) = setup("x; // expected-error 2 {{twice}}\n");
        let mut diags = Diagnostics::new(DiagOptions::default());
        diags.report(Diagnostic::error(Some(span_at_line(&sources, f, 1)), "twice"));
        assert!(!verify(&sources, &diags, &[f]).passed);
        diags.report(Diagnostic::error(Some(span_at_line(&sources, f, 1)), "twice"));
        assert!(verify(&sources, &diags, &[f]).passed);
        diags.report(Diagnostic::error(Some(span_at_line(&sources, f, 1)), "twice"));
        assert!(!verify(&sources, &diags, &[f]).passed);
    }

    #[test]
    fn malformed_input_does_not_panic() {
        let inputs = [
            "// expected-error@",
            "// expected-error@+",
            "// expected-error@-9 {{x}}",
            "/* expected-note 3-",
            "/* expected-note 3-1 {{x}} */",
            "\"unterminated",
            "'\\",
            "/* expected-warning {{é}} ",
            "// expected-errorx {{x}} expected-error 99999999999 {{y}}",
        ];
        for text in inputs {
            let (sources, f) = setup(text);
            let r = verify(&sources, &Diagnostics::new(DiagOptions::default()), &[f]);
            assert!(!r.passed, "{text}");
        }
    }

    #[test]
    fn no_directives_is_an_error() {
        let (sources, f) = setup("int a;\n");
        let r = verify(&sources, &Diagnostics::new(DiagOptions::default()), &[f]);
        assert!(!r.passed);
        assert!(r.report.contains("no expected directives found"));
    }
}
