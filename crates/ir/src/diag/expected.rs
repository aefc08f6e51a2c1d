//! `--verify-diagnostics`: MLIR's `SourceMgrDiagnosticVerifierHandler`.
//!
//! Expectations are comments anywhere on a line, matched (after trimming trailing
//! whitespace) by MLIR's pattern
//!
//! ```text
//! expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *{{(.*)}}$
//! ```
//!
//! - the text between the first `{{` and the final `}}` must be a substring of the
//!   diagnostic's message; in the `-re` variants, `{{re}}` parts inside it are POSIX
//!   extended regular expressions and the rest is literal;
//! - `@+N`/`@-N` are relative to the comment's line, `@above` is the closest line
//!   above that is not itself an expectation, `@below` the closest such line below,
//!   `@unknown` matches diagnostics without a location; without a designator, the
//!   comment's own line;
//! - MLIR has no absolute-line (`@N`) or any-line (`*`) forms; such comments do not
//!   match the pattern and are ordinary comments.
//!
//! Every diagnostic (and every note, separately) must match an expectation of the same
//! kind at its line; otherwise `unexpected KIND: MESSAGE` is reported at the
//! diagnostic (or `'KIND' diagnostic emitted when expecting a 'OTHER'` at the
//! expectation when only the kind differs). After processing, each expectation never
//! matched is reported as `expected KIND "TEXT" was not produced`. An expectation may
//! match any number of diagnostics.

use super::ere::Regex;
use crate::diag::{render_message, Diagnostic, LineIndex, Severity};

#[derive(Debug)]
struct Expected {
    kind: Severity,
    /// 1-based line the diagnostic must be on (may be out of range: never matches).
    line: i64,
    /// Offset of `expected-` in the buffer; `None` for `@unknown`.
    start: Option<usize>,
    /// The text between `{{` and `}}`.
    substring: String,
    /// For `-re`: the compiled expression (`None` if the combination is invalid,
    /// which, as with `llvm::Regex`, never matches).
    regex: Option<Option<Regex>>,
    matched: bool,
}

impl Expected {
    fn matches(&self, message: &str) -> bool {
        match &self.regex {
            Some(Some(re)) => re.is_match(message),
            Some(None) => false,
            None => message.contains(self.substring.as_str()),
        }
    }
}

/// One `expected-*` comment as found on a line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Designator<'a> {
    pub kind: Severity,
    pub regex: bool,
    /// The text after `@`, if any: `+N`, `-N`, `above`, `below` or `unknown`.
    pub location: Option<&'a str>,
    /// Byte offset of `expected-` in the line.
    pub start: usize,
    pub substring: &'a str,
}

/// Matches MLIR's expectation pattern against one (right-trimmed) line; the leftmost
/// `expected-` where the whole pattern matches wins.
pub(crate) fn parse_designator(line: &str) -> Option<Designator<'_>> {
    let mut from = 0;
    while let Some(found) = line[from..].find("expected-") {
        let start = from + found;
        if let Some(d) = designator_at(line, start) {
            return Some(d);
        }
        from = start + 1;
    }
    None
}

fn designator_at(line: &str, start: usize) -> Option<Designator<'_>> {
    let mut rest = &line[start + "expected-".len()..];
    let (kind, word) = [
        (Severity::Error, "error"),
        (Severity::Note, "note"),
        (Severity::Remark, "remark"),
        (Severity::Warning, "warning"),
    ]
    .into_iter()
    .find(|(_, w)| rest.starts_with(w))?;
    rest = &rest[word.len()..];
    let regex = rest.starts_with("-re");
    if regex {
        rest = &rest[3..];
    }
    rest = rest.trim_start_matches(' ');
    let mut location = None;
    if let Some(after) = rest.strip_prefix('@') {
        let len = if after.starts_with(['+', '-']) {
            let digits = after[1..].bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return None;
            }
            1 + digits
        } else {
            ["above", "below", "unknown"].into_iter().find(|w| after.starts_with(w))?.len()
        };
        location = Some(&after[..len]);
        rest = &after[len..];
    }
    rest = rest.trim_start_matches(' ');
    let body = rest.strip_prefix("{{")?;
    let substring = body.strip_suffix("}}")?;
    Some(Designator { kind, regex, location, start, substring })
}

/// `StringRef::getAsInteger(0, ..)` on decimal digits: a leading `0` means octal.
/// Values it rejects leave MLIR's offset uninitialized; 0 is used here.
fn line_offset(digits: &str) -> i64 {
    let radix = if digits.len() > 1 && digits.starts_with('0') { 8 } else { 10 };
    i32::from_str_radix(digits, radix).map_or(0, i64::from)
}

/// Builds the `-re` expression: literal text escaped, `{{re}}` parts grouped.
fn compute_regex(substring: &str) -> Result<Option<Regex>, String> {
    let mut pattern = String::new();
    let mut rest = substring;
    while !rest.is_empty() {
        let Some(open) = rest.find("{{") else {
            pattern.push_str(&Regex::escape(rest));
            break;
        };
        pattern.push_str(&Regex::escape(&rest[..open]));
        rest = &rest[open + 2..];
        let Some(close) = rest.find("}}") else {
            return Err("found start of regex with no end '}}'".to_string());
        };
        let part = &rest[..close];
        if let Err(e) = Regex::new(part) {
            return Err(format!("invalid regex: {e}"));
        }
        pattern.push('(');
        pattern.push_str(part);
        pattern.push(')');
        rest = &rest[close + 2..];
    }
    Ok(Regex::new(&pattern).ok())
}

/// Checks produced diagnostics against a buffer's expectations.
pub struct Verifier<'a> {
    file_name: &'a str,
    source: &'a str,
    /// Built when first needed: most runs have no diagnostics to place.
    index: std::cell::OnceCell<LineIndex>,
    expected: Vec<Expected>,
    unknown: Vec<Expected>,
    only_expected: bool,
    ok: bool,
}

impl<'a> Verifier<'a> {
    /// Scans `source` for expectations; malformed `-re` expectations are reported to
    /// `out` (and make the run fail), as MLIR does when the handler is created.
    pub fn new(file_name: &'a str, source: &'a str, only_expected: bool, out: &mut String) -> Self {
        let mut v = Verifier {
            file_name,
            source,
            index: std::cell::OnceCell::new(),
            expected: Vec::new(),
            unknown: Vec::new(),
            only_expected,
            ok: true,
        };
        if !source.contains("expected-") {
            // No designators anywhere: nothing to scan line by line.
            return v;
        }
        let lines: Vec<&str> = source.split('\n').collect();
        let line_count = lines.len() as i64;
        let mut line_offset_in_buffer = 0;
        let mut last_plain_line = 0i64; // 0-based, as MLIR's `lastNonDesignatorLine`
        let mut pending_below: Vec<usize> = Vec::new();
        for (line_no, raw) in lines.iter().enumerate() {
            let base = line_offset_in_buffer;
            line_offset_in_buffer += raw.len() + 1;
            let line = raw.trim_end_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
            let Some(d) = parse_designator(line) else {
                for &i in &pending_below {
                    v.expected[i].line = line_no as i64 + 1;
                }
                pending_below.clear();
                last_plain_line = line_no as i64;
                continue;
            };
            let start = base + d.start;
            let mut record = Expected {
                kind: d.kind,
                line: line_no as i64 + 1,
                start: Some(start),
                substring: d.substring.to_string(),
                regex: None,
                matched: false,
            };
            if d.regex {
                match compute_regex(d.substring) {
                    Ok(re) => record.regex = Some(re),
                    Err(message) => {
                        out.push_str(&render_message(
                            file_name,
                            source,
                            Some(start),
                            Severity::Error,
                            &message,
                            Some(start..start + d.substring.len()),
                            true,
                        ));
                        v.ok = false;
                        continue;
                    }
                }
            }
            match d.location {
                None => {}
                Some("unknown") => {
                    record.start = None;
                    v.unknown.push(record);
                    continue;
                }
                Some("above") => record.line = last_plain_line + 1,
                Some("below") => {
                    pending_below.push(v.expected.len());
                    // Dangling: stays at the last line.
                    record.line = line_count;
                }
                Some(rel) => {
                    let n = line_offset(&rel[1..]);
                    record.line += if rel.starts_with('+') { n } else { -n };
                }
            }
            v.expected.push(record);
        }
        v
    }

    /// Checks one diagnostic and each of its notes.
    pub fn process(&mut self, diag: &Diagnostic, out: &mut String) {
        self.process_one(diag.offset, &diag.message, diag.severity, out);
        for note in &diag.notes {
            self.process_one(note.offset, &note.message, note.severity, out);
        }
    }

    fn process_one(&mut self, offset: Option<usize>, message: &str, kind: Severity, out: &mut String) {
        let line = offset.map(|o| i64::from(self.index.get_or_init(|| LineIndex::new(self.source)).line(o)));
        let candidates = if line.is_some() { &mut self.expected } else { &mut self.unknown };
        let mut near_miss = None;
        for (i, e) in candidates.iter_mut().enumerate() {
            if line.is_some_and(|l| l != e.line) {
                continue;
            }
            if e.matches(message) {
                if e.kind == kind {
                    e.matched = true;
                    return;
                }
                near_miss = Some(i);
            }
        }
        if self.only_expected {
            return;
        }
        let text = match near_miss {
            Some(i) => {
                let e = &candidates[i];
                let message = format!("'{kind}' diagnostic emitted when expecting a '{}'", e.kind);
                render_message(self.file_name, self.source, e.start, Severity::Error, &message, None, true)
            }
            None => render_message(
                self.file_name,
                self.source,
                offset,
                Severity::Error,
                &format!("unexpected {kind}: {message}"),
                None,
                true,
            ),
        };
        out.push_str(&text);
        self.ok = false;
    }

    /// MLIR's `verify()`: reports every expectation never matched and returns whether
    /// everything matched so far. Like MLIR, it then forgets the located expectations
    /// but not the `@unknown` ones, so a second call reports those again.
    pub fn verify(&mut self, out: &mut String) -> bool {
        for e in self.expected.iter().chain(&self.unknown) {
            if e.matched {
                continue;
            }
            let message = format!("expected {} \"{}\" was not produced", e.kind, e.substring);
            let range = e.start.map(|s| s..s + e.substring.len());
            out.push_str(&render_message(
                self.file_name,
                self.source,
                e.start,
                Severity::Error,
                &message,
                range,
                true,
            ));
            self.ok = false;
        }
        self.expected.clear();
        self.ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(source: &str, diags: &[Diagnostic]) -> (bool, String) {
        let mut out = String::new();
        let mut v = Verifier::new("t.mlir", source, false, &mut out);
        for d in diags {
            v.process(d, &mut out);
        }
        let ok = v.verify(&mut out);
        (ok, out)
    }

    fn at_line(source: &str, line: usize) -> usize {
        source.split_inclusive('\n').take(line - 1).map(str::len).sum()
    }

    #[test]
    fn designator_syntax() {
        let d = parse_designator("  // expected-error @+1 {{foo {{bar}} baz}}").unwrap();
        assert_eq!(d.kind, Severity::Error);
        assert_eq!(d.location, Some("+1"));
        assert_eq!(d.substring, "foo {{bar}} baz");
        assert_eq!(d.start, 5);
        let d = parse_designator("x // expected-warning-re@below{{a{{.*}}}}").unwrap();
        assert!(d.regex);
        assert_eq!(d.location, Some("below"));
        assert_eq!(d.substring, "a{{.*}}");
        assert_eq!(parse_designator("// expected-note {{}}").unwrap().substring, "");
        assert_eq!(parse_designator("// expected-remark@unknown {{r}}").unwrap().location, Some("unknown"));
        // Not MLIR syntax: absolute lines, `*`, missing braces, unknown kinds.
        assert!(parse_designator("// expected-error@5 {{x}}").is_none());
        assert!(parse_designator("// expected-error * {{x}}").is_none());
        assert!(parse_designator("// expected-error @+1 {{x}} trailing").is_none());
        assert!(parse_designator("// expected-errors {{x}}").is_none());
        // The leftmost match wins; a failed `expected-` does not hide a later one.
        let d = parse_designator("expected-bogus expected-error {{y}}").unwrap();
        assert_eq!(d.start, 15);
    }

    #[test]
    fn all_matched() {
        let src = "a\n// expected-error @+1 {{bad thing}}\nb\nc // expected-warning {{careful}}\n";
        let diags = [
            Diagnostic::error(Some(at_line(src, 3)), "a bad thing happened"),
            Diagnostic::warning(Some(at_line(src, 4) + 2), "be careful"),
        ];
        assert_eq!(check(src, &diags), (true, String::new()));
    }

    #[test]
    fn unexpected_and_missing() {
        let src = "a\n// expected-error @+1 {{other}}\nb\n";
        let diags = [Diagnostic::error(Some(at_line(src, 3)), "bad")];
        let (ok, out) = check(src, &diags);
        assert!(!ok);
        assert_eq!(
            out,
            "t.mlir:3:1: error: unexpected error: bad\nb\n^\n\
             t.mlir:2:4: error: expected error \"other\" was not produced\n\
             // expected-error @+1 {{other}}\n   ^~~~~\n"
        );
    }

    #[test]
    fn wrong_kind_is_a_near_miss() {
        let src = "x // expected-error {{msg}}\n";
        let (ok, out) = check(src, &[Diagnostic::warning(Some(0), "the msg")]);
        assert!(!ok);
        assert!(out.starts_with(
            "t.mlir:1:6: error: 'warning' diagnostic emitted when expecting a 'error'\n\
             x // expected-error {{msg}}\n     ^\n"
        ));
        assert!(out.contains("expected error \"msg\" was not produced"));
    }

    #[test]
    fn above_below_and_relative() {
        let src = "l1\n\
                   // expected-error @below {{one}}\n\
                   // expected-error @below {{two}}\n\
                   l4\n\
                   // expected-note @above {{three}}\n\
                   // expected-remark @-4 {{four}}\n";
        let diags = [
            Diagnostic::error(Some(at_line(src, 4)), "one"),
            Diagnostic::error(Some(at_line(src, 4)), "two"),
            Diagnostic::note(Some(at_line(src, 4)), "three"),
            Diagnostic::remark(Some(at_line(src, 2)), "four"),
        ];
        assert_eq!(check(src, &diags), (true, String::new()));
    }

    #[test]
    fn notes_are_checked_separately() {
        let src = "op\n// expected-error @-1 {{main}}\n";
        let d = Diagnostic::error(Some(0), "main").with_note(Some(0), "see here");
        let (ok, out) = check(src, &[d]);
        assert!(!ok);
        assert_eq!(out, "t.mlir:1:1: error: unexpected note: see here\nop\n^\n");
    }

    #[test]
    fn unknown_locations() {
        let src = "// expected-error @unknown {{lost}}\n";
        assert_eq!(check(src, &[Diagnostic::error(None, "lost it")]), (true, String::new()));
        let (ok, out) = check(src, &[]);
        assert!(!ok);
        assert_eq!(out, "<unknown>:0: error: expected error \"lost\" was not produced\n");
        let (ok, out) = check("", &[Diagnostic::error(None, "x")]);
        assert!(!ok);
        assert_eq!(out, "<unknown>:0: error: unexpected error: x\n");
    }

    #[test]
    fn regex_expectations() {
        let src = "m // expected-warning-re {{client '{{.*}}' not implemented}}\n";
        let d = Diagnostic::warning(Some(0), "address space mapping for client 'x' not implemented");
        assert_eq!(check(src, &[d]), (true, String::new()));
        // Outside `-re`, braces are literal text.
        let src = "m // expected-warning {{client '{{.*}}'}}\n";
        assert!(!check(src, &[Diagnostic::warning(Some(0), "client 'x'")]).0);
        assert!(check(src, &[Diagnostic::warning(Some(0), "client '{{.*}}'")]).0);
        // A malformed expression is reported up front.
        let src = "// expected-error-re {{un{{[a-z}}ed}}\n";
        let (ok, out) = check(src, &[]);
        assert!(!ok);
        assert_eq!(
            out,
            "t.mlir:1:4: error: invalid regex: brackets ([ ]) not balanced\n\
             // expected-error-re {{un{{[a-z}}ed}}\n   ^~~~~~~~~~~~\n"
        );
    }

    #[test]
    fn only_expected_ignores_extras() {
        let src = "a // expected-error {{x}}\n";
        let mut out = String::new();
        let mut v = Verifier::new("t.mlir", src, true, &mut out);
        v.process(&Diagnostic::error(Some(0), "x"), &mut out);
        v.process(&Diagnostic::error(Some(0), "y"), &mut out);
        assert!(v.verify(&mut out));
        assert_eq!(out, "");
    }
}
