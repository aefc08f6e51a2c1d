//! Tokens of MLIR's textual syntax.

/// A token kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// A bare identifier or keyword (`spirv.IAdd`, `i32`, `func.func`, `x`).
    Ident,
    /// `%name`, `%0`, `%arg0#1`.
    ValueId,
    /// `^bb0`.
    CaretId,
    /// `@name` or `@"quoted"`.
    AtId,
    /// `#name` (attribute alias or dialect attribute start).
    HashId,
    /// `!name` (type alias or dialect type start).
    BangId,
    /// `"..."` (escapes kept raw; see [`unescape`]).
    String,
    Integer,
    Float,
    Punct,
    Eof,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'s> {
    pub kind: Tok,
    pub text: &'s str,
    /// Byte offset in the source.
    pub offset: usize,
}

/// Splits MLIR text into tokens on demand. `//` comments are skipped.
///
/// It counts the line breaks it passes, so the line of a token is known without
/// searching the source: line breaks only occur in whitespace and (rarely) in
/// string literals.
///
/// A lexer may skip a gap of whole lines ([`Lexer::with_gap`]): it reads the text as
/// if the gap were blank lines, so offsets, lines and columns stay the source's.
#[derive(Clone)]
pub struct Lexer<'s> {
    /// The text read: the source up to the gap until the gap is crossed, then all of it.
    src: &'s str,
    full: &'s str,
    /// The lines skipped (empty, at the source's end, when there are none).
    gap: (usize, usize),
    /// A string literal ran into the gap (where blank lines would have continued it).
    gap_split_string: bool,
    pos: usize,
    /// Line breaks before `pos`, and where the line holding `pos` starts.
    line: usize,
    line_start: usize,
}

/// Byte classes, as bits of [`CLASSES`].
const SPACE: u8 = 1;
const IDENT_START: u8 = 2;
/// Continues an identifier: letters, digits, `_ $ .`.
const IDENT: u8 = 4;
/// Continues a `%`/`^`/`@`/`#`/`!` name: identifier bytes and `-`.
const SUFFIX: u8 = 8;
const DIGIT: u8 = 16;

/// The class bits of every byte value (one table load per byte scanned).
static CLASSES: [u8; 256] = classes();

const fn classes() -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let mut bits = 0;
        if b.is_ascii_whitespace() {
            bits |= SPACE;
        }
        if b.is_ascii_alphabetic() || b == b'_' {
            bits |= IDENT_START;
        }
        if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.') {
            bits |= IDENT | SUFFIX;
        }
        if b == b'-' {
            bits |= SUFFIX;
        }
        if b.is_ascii_digit() {
            bits |= DIGIT;
        }
        table[i] = bits;
        i += 1;
    }
    table
}

fn is(b: u8, class: u8) -> bool {
    CLASSES[usize::from(b)] & class != 0
}

/// The end of the run of bytes of `class` starting at `at`.
fn scan(bytes: &[u8], mut at: usize, class: u8) -> usize {
    while at < bytes.len() && is(bytes[at], class) {
        at += 1;
    }
    at
}

impl<'s> Lexer<'s> {
    pub fn new(src: &'s str) -> Self {
        let gap = (src.len(), src.len());
        Lexer { src, full: src, gap, gap_split_string: false, pos: 0, line: 0, line_start: 0 }
    }

    /// A lexer that reads `src` with the lines of `gap` (from a line start to a line
    /// start) taken as blank: the tokens a copy of the text with those lines blanked
    /// gives, without the copy. `None` unless `gap` starts and ends at line starts.
    pub fn with_gap(src: &'s str, gap: std::ops::Range<usize>) -> Option<Self> {
        let b = src.as_bytes();
        let line_start = |at: usize| at == 0 || b.get(at - 1) == Some(&b'\n');
        if gap.start > gap.end || gap.end > b.len() || !line_start(gap.start) || !line_start(gap.end) {
            return None;
        }
        let mut lexer = Lexer::new(src);
        lexer.src = src.get(..gap.start)?;
        lexer.gap = (gap.start, gap.end);
        Some(lexer)
    }

    /// The text the lexer reads from (up to the gap until it is crossed).
    pub fn source(&self) -> &'s str {
        self.src
    }

    /// The whole source, gap included.
    pub fn full_source(&self) -> &'s str {
        self.full
    }

    /// Whether a string literal ran into the gap: the tokens then differ from those
    /// of the blanked text.
    pub fn gap_split_string(&self) -> bool {
        self.gap_split_string
    }

    /// The start, kind and end of the token at the end of the text read: after a gap
    /// still to cross, the first one past it (the gap's line breaks counted as blank
    /// lines'); otherwise `Eof`. (Out of line: the hot path only pays the end check
    /// it always had.)
    #[cold]
    #[inline(never)]
    fn at_end(&mut self, start: usize) -> (Tok, usize, usize) {
        if self.src.len() < self.full.len() {
            let (gap_start, gap_end) = self.gap;
            self.line += count_newlines(self.full.as_bytes().get(gap_start..gap_end).unwrap_or_default());
            self.line_start = gap_end;
            self.src = self.full;
            let start = self.skip_trivia(gap_end);
            return self.scan_token(start);
        }
        (Tok::Eof, start, start)
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    /// Moves to `pos` (which must be at a token boundary), keeping the line count.
    pub fn reset_to(&mut self, pos: usize) {
        let pos = pos.min(self.src.len());
        // Line breaks are counted in the whole source: a gap has as many as the blank
        // lines it stands for.
        let b = self.full.as_bytes();
        if pos >= self.line_start && pos <= self.pos {
            // Back within the current line: no line break is unread.
        } else if pos >= self.pos {
            let passed = &b[self.pos..pos];
            // (A type skipped by the type cache rarely spans lines.)
            let breaks = if passed.contains(&b'\n') { count_newlines(passed) } else { 0 };
            if breaks > 0 {
                self.line += breaks;
                self.line_start = self.pos + passed.iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
            }
        } else {
            let unread = count_newlines(&b[pos..self.pos]);
            if unread > 0 {
                self.line -= unread;
                self.line_start = b[..pos].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
            }
        }
        if pos < self.gap.0 && self.src.len() > self.gap.0 {
            // Back before a crossed gap.
            self.src = self.full.get(..self.gap.0).unwrap_or(self.full);
        }
        self.pos = pos;
    }

    /// The 0-based line of `offset` and where that line starts, if `offset` is on
    /// the line the lexer is at (as the current token of a parser mostly is).
    pub fn line_of(&self, offset: usize) -> Option<(usize, usize)> {
        (offset >= self.line_start && offset <= self.pos).then_some((self.line, self.line_start))
    }

    /// Skips blanks and `//` comments from `pos`, counting line breaks; returns
    /// where the next token starts. (A local position: the loops keep it in a
    /// register rather than storing it byte by byte.)
    fn skip_trivia(&mut self, mut pos: usize) -> usize {
        let b = self.src.as_bytes();
        while let Some(&c) = b.get(pos) {
            if !is(c, SPACE) {
                if c == b'/' && b.get(pos + 1) == Some(&b'/') {
                    pos = b[pos..].iter().position(|&c| c == b'\n').map_or(b.len(), |n| pos + n);
                    continue;
                }
                break;
            }
            pos += 1;
            if c == b'\n' {
                self.line += 1;
                self.line_start = pos;
            }
        }
        pos
    }

    /// The next token; a lexing problem becomes a one-byte `Punct` the parser rejects.
    /// (Inlined into the parser's one hot caller, so the token is built in place.)
    #[inline(always)]
    pub fn next_token(&mut self) -> Token<'s> {
        let start = self.skip_trivia(self.pos);
        let (kind, start, end) = self.scan_token(start);
        self.pos = end;
        // Token boundaries are at ASCII bytes or whole characters. (Two splits check
        // a boundary each: cheaper than a range's checks.)
        let text = self.src.get(start..end).unwrap_or("");
        Token { kind, text, offset: start }
    }

    /// The kind and end of the token starting at `start` (after trivia).
    #[inline(always)]
    fn scan_token(&mut self, start: usize) -> (Tok, usize, usize) {
        if start >= self.src.len() {
            return self.at_end(start);
        }
        let (kind, end) = self.scan_from(start);
        (kind, start, end)
    }

    /// The kind and end of the token starting at `start`, which is in the text.
    #[inline(always)]
    fn scan_from(&mut self, start: usize) -> (Tok, usize) {
        let b = self.src.as_bytes();
        let c = b[start];
        match c {
            b'%' | b'^' | b'@' | b'#' | b'!' => {
                let kind = match c {
                    b'%' => Tok::ValueId,
                    b'^' => Tok::CaretId,
                    b'@' => Tok::AtId,
                    b'#' => Tok::HashId,
                    _ => Tok::BangId,
                };
                let mut end = start + 1;
                if c == b'@' && b.get(end) == Some(&b'"') {
                    end = self.scan_string(end);
                    return (kind, end);
                }
                end = scan(b, end, SUFFIX);
                // `%x#0` result-group syntax belongs to the value id.
                if c == b'%' && b.get(end) == Some(&b'#') {
                    let e = scan(b, end + 1, DIGIT);
                    if e > end + 1 {
                        end = e;
                    }
                }
                if end == start + 1 {
                    return (Tok::Punct, start + 1);
                }
                (kind, end)
            }
            b'"' => {
                let end = self.scan_string(start);
                (Tok::String, end)
            }
            b'0'..=b'9' => {
                let mut end = start;
                if c == b'0'
                    && matches!(b.get(start + 1), Some(b'x') | Some(b'X'))
                    && b.get(start + 2).is_some_and(|d| d.is_ascii_hexdigit())
                {
                    end = start + 2;
                    while end < b.len() && b[end].is_ascii_hexdigit() {
                        end += 1;
                    }
                    return (Tok::Integer, end);
                }
                end = scan(b, end, DIGIT);
                let mut kind = Tok::Integer;
                if b.get(end) == Some(&b'.') {
                    kind = Tok::Float;
                    end = scan(b, end + 1, DIGIT);
                    if matches!(b.get(end), Some(b'e') | Some(b'E')) {
                        let mut e = end + 1;
                        if matches!(b.get(e), Some(b'+') | Some(b'-')) {
                            e += 1;
                        }
                        if b.get(e).is_some_and(|d| d.is_ascii_digit()) {
                            end = scan(b, e, DIGIT);
                        }
                    }
                }
                (kind, end)
            }
            _ if is(c, IDENT_START) => (Tok::Ident, scan(b, start + 1, IDENT)),
            // Multi-character punctuation: `->`, `::`, `...`.
            b'-' if b.get(start + 1) == Some(&b'>') => (Tok::Punct, start + 2),
            b':' if b.get(start + 1) == Some(&b':') => (Tok::Punct, start + 2),
            b'.' if b.get(start + 1) == Some(&b'.') && b.get(start + 2) == Some(&b'.') => {
                (Tok::Punct, start + 3)
            }
            _ if c.is_ascii() => (Tok::Punct, start + 1),
            _ => {
                let len = self.src[start..].chars().next().map_or(1, char::len_utf8);
                (Tok::Punct, start + len)
            }
        }
    }

    /// The end of a string literal starting at `start` (which is `"`), counting the
    /// line breaks in it.
    fn scan_string(&mut self, start: usize) -> usize {
        let b = self.src.as_bytes();
        let mut end = start + 1;
        while end < b.len() && b[end] != b'"' {
            match b[end] {
                b'\\' => end += 1,
                b'\n' => {
                    self.line += 1;
                    self.line_start = end + 1;
                }
                _ => {}
            }
            end += 1;
        }
        if end >= b.len() && self.src.len() < self.full.len() {
            self.gap_split_string = true;
        }
        (end + 1).min(b.len())
    }
}

/// How many `\n` bytes there are, sixteen at a time (in a form the compiler turns
/// into vector compares).
pub fn count_newlines(bytes: &[u8]) -> usize {
    let mut chunks = bytes.chunks_exact(16);
    let mut count = 0;
    for chunk in &mut chunks {
        let in_chunk = chunk.iter().fold(0u8, |n, &b| n + u8::from(b == b'\n'));
        count += usize::from(in_chunk);
    }
    count + chunks.remainder().iter().filter(|&&b| b == b'\n').count()
}

/// Decodes an MLIR string literal token (with quotes) into bytes: `\"`, `\\`, `\n`,
/// `\t`, and two-digit hex escapes `\0A`.
pub fn unescape(token: &str) -> Vec<u8> {
    let inner = token.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(token);
    let b = inner.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            let n = b[i + 1];
            match n {
                b'"' | b'\\' => {
                    out.push(n);
                    i += 2;
                }
                b'n' => {
                    out.push(b'\n');
                    i += 2;
                }
                b't' => {
                    out.push(b'\t');
                    i += 2;
                }
                _ if i + 2 < b.len() && n.is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit() => {
                    let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("00");
                    out.push(u8::from_str_radix(hex, 16).unwrap_or(0));
                    i += 3;
                }
                _ => {
                    out.push(b'\\');
                    i += 1;
                }
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// [`unescape`] as text (invalid UTF-8 replaced); a literal without escapes is
/// copied as it is.
pub fn unescape_to_string(token: &str) -> String {
    let inner = token.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(token);
    if !inner.contains('\\') {
        return inner.to_string();
    }
    String::from_utf8_lossy(&unescape(token)).into_owned()
}

/// Encodes bytes as an MLIR string literal, escaping as MLIR's printer does.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    write_escaped(bytes, &mut out);
    out
}

/// Appends bytes as an MLIR string literal (see [`escape`]).
pub fn write_escaped(bytes: &[u8], out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('"');
    for &c in bytes {
        match c {
            b'"' => out.push_str("\\22"),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\0A"),
            b'\t' => out.push_str("\\09"),
            0x20..=0x7e => out.push(c as char),
            _ => {
                out.push('\\');
                out.push(char::from(HEX[usize::from(c >> 4)]));
                out.push(char::from(HEX[usize::from(c & 15)]));
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Tok, &str)> {
        let mut lexer = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token();
            if t.kind == Tok::Eof {
                return out;
            }
            out.push((t.kind, t.text));
        }
    }

    #[test]
    fn lexes_mlir() {
        let toks = kinds(
            "%0 = spirv.IAdd %arg0, %1#2 : i32 // comment\n^bb1 @f !spirv.ptr<f32, Function> -> 1.5e3 0x1F",
        );
        assert_eq!(
            toks,
            vec![
                (Tok::ValueId, "%0"),
                (Tok::Punct, "="),
                (Tok::Ident, "spirv.IAdd"),
                (Tok::ValueId, "%arg0"),
                (Tok::Punct, ","),
                (Tok::ValueId, "%1#2"),
                (Tok::Punct, ":"),
                (Tok::Ident, "i32"),
                (Tok::CaretId, "^bb1"),
                (Tok::AtId, "@f"),
                (Tok::BangId, "!spirv.ptr"),
                (Tok::Punct, "<"),
                (Tok::Ident, "f32"),
                (Tok::Punct, ","),
                (Tok::Ident, "Function"),
                (Tok::Punct, ">"),
                (Tok::Punct, "->"),
                (Tok::Float, "1.5e3"),
                (Tok::Integer, "0x1F"),
            ]
        );
    }

    #[test]
    fn strings_without_escapes_are_copied() {
        for token in [r#""abc""#, r#""a\"b""#, r#""a\0Ab""#, "\"unterminated", r#""""#, r#""é\E9""#] {
            assert_eq!(unescape_to_string(token), String::from_utf8_lossy(&unescape(token)), "{token}");
        }
    }

    #[test]
    fn strings_round_trip() {
        assert_eq!(unescape(r#""a\"b\\c\0A""#), b"a\"b\\c\n");
        assert_eq!(escape(b"a\"b\n"), r#""a\22b\0A""#);
    }
}
