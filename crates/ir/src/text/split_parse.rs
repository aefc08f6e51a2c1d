//! Parsing one large `spirv.module` on two threads.
//!
//! The functions of a `spirv.module` are isolated from above, so the text can be cut
//! between two of them: one thread parses the text with the module body's second
//! half blanked out, the other the text with the first half blanked out, and the
//! second IR's body ops are appended to the first's module. Blanking keeps every
//! line break, so every location (line and column) is the one a whole parse gives.
//! The blanking is the lexer's ([`Lexer::with_gap`]): it skips the lines as blank
//! ones, so the text is never copied.
//! Any parse failure, or text this cut does not understand, falls back to one parse
//! of the whole text, so errors are always exactly those of [`crate::parse`].

use crate::ir::{Ir, OpId};
use crate::text::lexer::Lexer;
use crate::text::parser::{ParseError, Parser};
use std::ops::Range;

/// Texts smaller than this parse on one thread: a thread and a merge cost more than
/// they save.
const MIN_SPLIT_BYTES: usize = 1 << 20;

/// Parses as [`crate::parse`] does, on two threads when `source` is one large
/// `spirv.module` (and two cores are there).
pub fn parse(source: &str, file_name: &str) -> Result<(Ir, OpId), ParseError> {
    if source.len() < MIN_SPLIT_BYTES || !crate::parallel::two_cores() {
        return crate::parse(source, file_name);
    }
    match Cut::find(source) {
        Some(cut) => parse_cut(source, file_name, &cut).map_or_else(|| crate::parse(source, file_name), Ok),
        None => crate::parse(source, file_name),
    }
}

/// The two-thread parse of a text of at least `min_bytes` (whatever the cores);
/// `None` when it is not cut or the halves do not merge. For tests that cut small
/// texts.
#[doc(hidden)]
pub fn parse_with_min_size(source: &str, file_name: &str, min_bytes: usize) -> Option<(Ir, OpId)> {
    if source.len() < min_bytes {
        return None;
    }
    parse_cut(source, file_name, &Cut::find(source)?)
}

/// A large module's text parsed on two threads and left in two IRs: `first` holds
/// the module body up to the cut, `second` the module-level ops before the first
/// function again (the text from the module's opening line to the first function,
/// parsed by both), then the rest of the body. `prefix`: how many ops of each body
/// come before its first function (the same ops in both). For a consumer that can
/// take the module in two pieces, which saves merging them.
pub struct Halves {
    pub first: (Ir, OpId),
    pub second: (Ir, OpId),
    pub prefix: usize,
}

/// [`Halves`] of `source` when it is one large `spirv.module` (and two cores are
/// there); `None` otherwise, or when a half fails to parse (the caller then parses
/// as usual, which reports exactly).
pub fn parse_halves(source: &str, file_name: &str) -> Option<Halves> {
    if source.len() < MIN_SPLIT_BYTES || !crate::parallel::two_cores() {
        return None;
    }
    parse_halves_of(source, file_name, &Cut::find(source)?)
}

/// [`parse_halves`] of a text of any size (tests and fuzzing compare it with one
/// parse).
#[doc(hidden)]
pub fn parse_halves_at_any_size(source: &str, file_name: &str) -> Option<Halves> {
    parse_halves_of(source, file_name, &Cut::find(source)?)
}

fn parse_halves_of(source: &str, file_name: &str, cut: &Cut) -> Option<Halves> {
    // The second half keeps the module-level lines before the first function.
    let first_function = function_line(source, cut.body_start, cut.body_start)?.min(cut.split);
    let (first, second) = parse_both(source, file_name, cut, first_function..cut.split)?;
    let prefix_of = |(ir, top): &(Ir, OpId)| -> Option<usize> {
        let module = crate::parallel::spirv_module(ir, *top)?;
        let ops = &ir.block(ir.entry_block(module)?).ops;
        Some(ops.iter().position(|&op| ir.op(op).name == "spirv.func").unwrap_or(ops.len()))
    };
    let prefix = prefix_of(&first)?;
    (prefix_of(&second)? == prefix).then_some(Halves { first, second, prefix })
}

/// Where the module body is cut: byte offsets of line starts.
#[derive(Debug, PartialEq)]
struct Cut {
    /// Just after the line that opens the `spirv.module` body.
    body_start: usize,
    /// The line where the second half starts (a `spirv.func` at body level).
    split: usize,
    /// The line of the `}` that closes the module body.
    body_end: usize,
}

impl Cut {
    /// The cut of a text holding one `spirv.module` (at the top level or in a
    /// `module { }`) with a `spirv.func` line past the middle of the text; `None` for
    /// anything else.
    ///
    /// Only the text before the module is scanned; the cut itself is found by line
    /// shape. That is enough: if the `spirv.func` line or the closing `}` were not
    /// at the module body's level, neither half would be balanced and both would
    /// fail to parse, and a half that parses ends (or starts) exactly where the
    /// whole text's module body has an op boundary.
    fn find(source: &str) -> Option<Cut> {
        // The module's opening line, and how deeply it is nested.
        let mut scan = Scanner::default();
        let mut header = None;
        let mut offset = 0;
        for line in source.split_inclusive('\n') {
            let depth = scan.depth;
            let in_string = scan.in_string;
            scan.line(line);
            offset += line.len();
            let text = line.trim();
            if !in_string && depth <= 1 && text.starts_with("spirv.module ") {
                if !text.ends_with('{') || scan.depth != depth + 1 || scan.in_string {
                    return None;
                }
                header = Some((offset, depth));
                break;
            }
            if offset >= source.len() / 2 {
                return None;
            }
        }
        let (body_start, module_depth) = header?;
        // The first `spirv.func` line from the middle on.
        let split = function_line(source, body_start, (source.len() / 2).max(body_start))?;
        // The module's closing line: the last `}` line of a top-level module, the one
        // before the last in a `module { }`. Only blank, comment and alias lines
        // (`#loc1 = loc(...)`) may follow it.
        let mut closers = 0;
        let mut end = source.len();
        let body_end = loop {
            let line_start = source[..end].trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
            if line_start < split || line_start >= end {
                return None;
            }
            let text = source[line_start..end].trim();
            if text == "}" {
                closers += 1;
                if closers == module_depth + 1 {
                    break line_start;
                }
            } else if !(text.is_empty() || text.starts_with('#') || text.starts_with("//")) {
                return None;
            }
            end = line_start;
        };
        Some(Cut { body_start, split, body_end })
    }

    /// The lines the first half's parse skips: the second half of the module body.
    fn first_gap(&self) -> Range<usize> {
        self.split..self.body_end
    }

    /// The lines the second half's parse skips: the first half of the module body.
    fn second_gap(&self) -> Range<usize> {
        self.body_start..self.split
    }

    /// The text with the second half of the module body blanked out.
    #[cfg(test)]
    fn first_half(&self, source: &str) -> String {
        let mut text = String::with_capacity(source.len());
        text.push_str(&source[..self.split]);
        text.extend(std::iter::repeat_n('\n', line_count(&source[self.split..self.body_end])));
        text.push_str(&source[self.body_end..]);
        text
    }

    /// The text with the first half of the module body blanked out.
    #[cfg(test)]
    fn second_half(&self, source: &str) -> String {
        let mut text = String::with_capacity(source.len() - (self.split - self.body_start));
        text.push_str(&source[..self.body_start]);
        text.extend(std::iter::repeat_n('\n', line_count(&source[self.body_start..self.split])));
        text.push_str(&source[self.split..]);
        text
    }
}

#[cfg(test)]
fn line_count(text: &str) -> usize {
    crate::text::lexer::count_newlines(text.as_bytes())
}

/// Bracket depth and string state across lines (`//` comments skipped).
#[derive(Default)]
struct Scanner {
    depth: u32,
    in_string: bool,
}

impl Scanner {
    fn line(&mut self, line: &str) {
        let mut bytes = line.bytes().peekable();
        while let Some(b) = bytes.next() {
            if self.in_string {
                match b {
                    b'\\' => {
                        bytes.next();
                    }
                    b'"' => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'/' if bytes.peek() == Some(&b'/') => return,
                b'(' | b'[' | b'{' => self.depth += 1,
                // Unbalanced text makes `find` give up (the depth never returns to 0).
                b')' | b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
    }
}

/// The start of the first line from `from` on that holds a `spirv.func` at the
/// module body's level (by line shape: only blanks before it), past `body_start`.
fn function_line(source: &str, body_start: usize, mut from: usize) -> Option<usize> {
    loop {
        let found = from + source.get(from..)?.find("spirv.func ")?;
        let line_start = source[..found].rfind('\n').map_or(0, |i| i + 1);
        if line_start >= body_start && source[line_start..found].bytes().all(|b| b == b' ' || b == b'\t') {
            return Some(line_start);
        }
        from = found + 1;
    }
}

/// The first half (the body after the cut skipped) and the second (the lines of
/// `second_gap` skipped), parsed on two threads; `None` if either fails.
fn parse_both(
    source: &str,
    file_name: &str,
    cut: &Cut,
    second_gap: Range<usize>,
) -> Option<((Ir, OpId), (Ir, OpId))> {
    let (first, second) = crate::parallel::both(
        // The first half's arenas are sized for the whole text: the second half's
        // entities can be appended to them without copying the arenas.
        || parse_half(source, file_name, cut.first_gap(), source.len()),
        || parse_half(source, file_name, second_gap.clone(), source.len() - second_gap.len()),
    );
    Some((first?, second.flatten()?))
}

/// Parses the two halves on two threads and merges them; `None` if either half
/// fails or the IRs do not have the expected shape.
fn parse_cut(source: &str, file_name: &str, cut: &Cut) -> Option<(Ir, OpId)> {
    let ((mut ir, top), (other, other_top)) = parse_both(source, file_name, cut, cut.second_gap())?;
    let module = crate::parallel::spirv_module(&ir, top)?;
    let other_module = crate::parallel::spirv_module(&other, other_top)?;
    let body = ir.entry_block(module)?;
    let other_body = other.entry_block(other_module)?;
    let moved = other.block(other_body).ops.clone();
    let at = ir.absorb(other).ok()?;
    for op in moved {
        ir.append_op(body, at.op(op));
    }
    Some((ir, top))
}

/// Parses `source` with the lines of `gap` taken as blank, into arenas sized for
/// `reserve` bytes of text; `None` if it fails or a string literal runs into the gap
/// (the blanked text would continue it).
fn parse_half(source: &str, file_name: &str, gap: Range<usize>, reserve: usize) -> Option<(Ir, OpId)> {
    let lexer = Lexer::with_gap(source, gap)?;
    let mut ir = Ir::new();
    ir.reserve_for_text(reserve);
    let mut parser = Parser::with_lexer(lexer, &mut ir, file_name);
    let top = parser.parse_top_level().ok()?;
    if parser.gap_split_string() {
        return None;
    }
    Some((ir, top))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module of `count` functions, big enough to be cut.
    fn module_text(count: usize, wrapped: bool) -> String {
        let mut text = String::from("!alias = f32\n");
        if wrapped {
            text.push_str("module {\n");
        }
        text.push_str("spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n");
        for i in 0..count {
            text.push_str(&format!(
                "  spirv.func @f{i}(%arg0: !alias) -> !alias \"None\" {{\n    // a comment {{ (\n    \
                 %0 = spirv.FAdd %arg0, %arg0 : f32\n    %1 = spirv.Constant dense<[{i}, 2]> : vector<2xi32>\n    \
                 spirv.ReturnValue %0 : f32\n  }}\n"
            ));
        }
        text.push_str("  spirv.GlobalVariable @g : !spirv.ptr<!spirv.struct<S, (f32)>, Private>\n}\n");
        if wrapped {
            text.push_str("}\n");
        }
        text
    }

    #[test]
    fn a_cut_parse_is_the_whole_parse() {
        for wrapped in [false, true] {
            let text = module_text(9000, wrapped);
            assert!(text.len() >= MIN_SPLIT_BYTES);
            let cut = Cut::find(&text).expect("a cut");
            assert!(cut.split >= text.len() / 2 && text[cut.split..].starts_with("  spirv.func @f"));
            assert_eq!(cut.first_half(&text).lines().count(), text.lines().count());
            assert_eq!(cut.second_half(&text).lines().count(), text.lines().count());
            let (whole, whole_top) = crate::parse(&text, "t.mlir").unwrap();
            let (ir, top) = parse_cut(&text, "t.mlir", &cut).expect("merged");
            let options = || crate::PrintOptions { debug_info: true, ..Default::default() };
            assert_eq!(crate::print(&ir, top, options()), crate::print(&whole, whole_top, options()));
            assert!(crate::verify::first_failure(&ir, top, &text).is_none());
        }
    }

    #[test]
    fn two_pieces_hold_the_whole_body() {
        let text = module_text(9000, true);
        let halves = parse_halves(&text, "t.mlir").expect("two pieces");
        let (whole, whole_top) = crate::parse(&text, "t.mlir").unwrap();
        let body = |ir: &Ir, top: OpId| {
            let module = crate::parallel::spirv_module(ir, top).unwrap();
            ir.block(ir.entry_block(module).unwrap()).ops.clone()
        };
        let print = |ir: &Ir, ops: &[OpId]| {
            ops.iter()
                .map(|&op| crate::text::printer::print_op(ir, op, Default::default()))
                .collect::<Vec<_>>()
        };
        let (first, second) = (&halves.first, &halves.second);
        let (first_body, second_body) = (body(&first.0, first.1), body(&second.0, second.1));
        // No module-level op before the first function here; both pieces would
        // repeat them.
        assert_eq!(halves.prefix, 0);
        let mut pieces = print(&first.0, &first_body);
        pieces.extend(print(&second.0, &second_body[halves.prefix..]));
        assert_eq!(pieces, print(&whole, &body(&whole, whole_top)));
        // With module-level ops before the functions, both pieces hold them.
        let with_globals = text.replacen(
            "  spirv.func @f0(",
            "  spirv.GlobalVariable @h : !spirv.ptr<f32, Private>\n  spirv.func @f0(",
            1,
        );
        let halves = parse_halves(&with_globals, "t.mlir").expect("two pieces");
        assert_eq!(halves.prefix, 1);
        let second = body(&halves.second.0, halves.second.1);
        assert_eq!(halves.second.0.op(second[0]).name, "spirv.GlobalVariable");
    }

    /// A type read across the gap (here a dialect type whose `<...>` holds the module's
    /// opening line) ends past the text before the gap; found by the `mlir_text`
    /// fuzz target, where the type cache sliced that text with its end.
    #[test]
    fn a_type_across_the_gap_is_parsed_without_a_panic() {
        let text = "//o\nGlobalVariable@vr: !r<ed-\nspirv.module \u{1e}\u{0}{\n  spirv.func >\n}";
        let cut = Cut::find(text).expect("a cut by line shape");
        let whole = crate::parse(text, "t.mlir").map(|(ir, top)| crate::print(&ir, top, Default::default()));
        if let Some((ir, top)) = parse_cut(text, "t.mlir", &cut) {
            assert_eq!(Ok(crate::print(&ir, top, Default::default())), whole.map_err(|_| ()));
        }
        let _ = parse_halves_at_any_size(text, "t.mlir");
    }

    type LineCol = (usize, usize);

    /// Kind, text, line and column of each token (those of a token spanning lines
    /// are not known).
    fn tokens(mut lexer: Lexer) -> Vec<(crate::text::lexer::Tok, String, Option<LineCol>)> {
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token();
            let at = lexer.line_of(t.offset).map(|(line, start)| (line, t.offset - start));
            out.push((t.kind, t.text.to_string(), at));
            if t.kind == crate::text::lexer::Tok::Eof {
                return out;
            }
        }
    }

    #[test]
    fn a_gap_reads_as_the_blanked_text() {
        let text = module_text(9000, true);
        let cut = Cut::find(&text).expect("a cut");
        for (gap, blanked) in
            [(cut.first_gap(), cut.first_half(&text)), (cut.second_gap(), cut.second_half(&text))]
        {
            let skipping = Lexer::with_gap(&text, gap).expect("line starts");
            assert_eq!(tokens(skipping), tokens(Lexer::new(&blanked)));
        }
        assert!(Lexer::with_gap(&text, 1..cut.split).is_none());
        // A string running into the gap would be continued by the blank lines.
        let mut split_string = text.clone();
        split_string.insert(cut.split - 1, '"');
        let cut = Cut::find(&split_string).expect("a cut");
        let lexer = Lexer::with_gap(&split_string, cut.first_gap()).expect("line starts");
        assert!(tokens(lexer).iter().any(|t| t.1 == "\"\n"));
        assert!(parse_half(&split_string, "t.mlir", cut.first_gap(), 0).is_none());
    }

    #[test]
    fn texts_that_are_not_one_module_are_not_cut() {
        let text = module_text(9000, false);
        // Two modules: a cut is found, but the halves are not one module each.
        let two = format!("{text}{text}");
        let cut = Cut::find(&two).expect("a cut by line shape");
        assert!(parse_cut(&two, "t.mlir", &cut).is_none());
        let (ir, top) = parse(&two, "t.mlir").unwrap();
        let (whole, whole_top) = crate::parse(&two, "t.mlir").unwrap();
        assert_eq!(
            crate::print(&ir, top, Default::default()),
            crate::print(&whole, whole_top, Default::default())
        );
        let unbalanced = text.replacen("{\n", "{{\n", 1);
        assert_eq!(Cut::find(&unbalanced), None);
        assert_eq!(Cut::find("spirv.module Logical GLSL450 {\n}\n"), None);
        // Errors are the whole parse's, whichever half holds them.
        let broken = text.replace("@f8999(", "@f8999(%");
        let error = parse(&broken, "t.mlir").unwrap_err();
        assert_eq!(error.to_string(), crate::parse(&broken, "t.mlir").unwrap_err().to_string());
    }
}
