//! Tokens and the lexer. Every token's spelling is interned (a [`Symbol`]), so tokens
//! are small `Copy` values that macro expansion can duplicate freely.

use crate::source::{FileId, Span};
use std::collections::HashMap;

/// An interned string: identifiers, literals and punctuator spellings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symbol(pub u32);

/// The string table. Symbols are never freed; the front end of one compilation owns it.
#[derive(Debug, Default, Clone)]
pub struct Interner {
    map: HashMap<Box<str>, Symbol>,
    strings: Vec<Box<str>>,
}

impl Interner {
    pub fn new() -> Interner {
        Interner::default()
    }

    pub fn intern(&mut self, text: &str) -> Symbol {
        if let Some(&sym) = self.map.get(text) {
            return sym;
        }
        let sym = Symbol(self.strings.len() as u32);
        self.strings.push(text.into());
        self.map.insert(text.into(), sym);
        sym
    }

    /// The symbol of `text` if it was ever interned.
    pub fn lookup(&self, text: &str) -> Option<Symbol> {
        self.map.get(text).copied()
    }

    pub fn get(&self, sym: Symbol) -> &str {
        self.strings.get(sym.0 as usize).map_or("", |s| s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Punct {
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Semi,
    Comma,
    Dot,
    Ellipsis,
    Question,
    Colon,
    ColonColon,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    PlusPlus,
    MinusMinus,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Bang,
    AmpAmp,
    PipePipe,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    Ne,
    Eq,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    PercentEq,
    AmpEq,
    PipeEq,
    CaretEq,
    ShlEq,
    ShrEq,
    Arrow,
    Hash,
    HashHash,
}

/// Punctuators longest first, so the lexer's first match is the maximal munch.
const PUNCTUATORS: &[(&str, Punct)] = &[
    ("<<=", Punct::ShlEq),
    (">>=", Punct::ShrEq),
    ("...", Punct::Ellipsis),
    ("::", Punct::ColonColon),
    ("++", Punct::PlusPlus),
    ("--", Punct::MinusMinus),
    ("&&", Punct::AmpAmp),
    ("||", Punct::PipePipe),
    ("<<", Punct::Shl),
    (">>", Punct::Shr),
    ("<=", Punct::Le),
    (">=", Punct::Ge),
    ("==", Punct::EqEq),
    ("!=", Punct::Ne),
    ("+=", Punct::PlusEq),
    ("-=", Punct::MinusEq),
    ("*=", Punct::StarEq),
    ("/=", Punct::SlashEq),
    ("%=", Punct::PercentEq),
    ("&=", Punct::AmpEq),
    ("|=", Punct::PipeEq),
    ("^=", Punct::CaretEq),
    ("->", Punct::Arrow),
    ("##", Punct::HashHash),
    ("(", Punct::LParen),
    (")", Punct::RParen),
    ("[", Punct::LBracket),
    ("]", Punct::RBracket),
    ("{", Punct::LBrace),
    ("}", Punct::RBrace),
    (";", Punct::Semi),
    (",", Punct::Comma),
    (".", Punct::Dot),
    ("?", Punct::Question),
    (":", Punct::Colon),
    ("+", Punct::Plus),
    ("-", Punct::Minus),
    ("*", Punct::Star),
    ("/", Punct::Slash),
    ("%", Punct::Percent),
    ("&", Punct::Amp),
    ("|", Punct::Pipe),
    ("^", Punct::Caret),
    ("~", Punct::Tilde),
    ("!", Punct::Bang),
    ("<", Punct::Lt),
    (">", Punct::Gt),
    ("=", Punct::Eq),
    ("#", Punct::Hash),
];

impl Punct {
    pub fn spelling(self) -> &'static str {
        PUNCTUATORS.iter().find(|(_, p)| *p == self).map_or("?", |(s, _)| s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    Ident,
    /// A preprocessing number (`12`, `0x1F`, `1.5f`, `2e-3h`); the parser classifies it.
    Number,
    String,
    Char,
    Punct(Punct),
    /// A character that starts no token (reported when it reaches the parser).
    Unknown,
    /// A string or character literal missing its closing quote.
    Unterminated,
    Eof,
}

/// The token is the first on its line.
pub const AT_LINE_START: u8 = 1;
/// Whitespace precedes the token.
pub const SPACE_BEFORE: u8 = 2;
/// A macro name that must not be expanded again (it was seen inside its own expansion).
pub const NO_EXPAND: u8 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    /// The exact spelling.
    pub sym: Symbol,
    /// Where the spelling is: the file, or the `#define` body it came from.
    pub span: Span,
    /// Where the token appears in the file being compiled: the outermost macro
    /// invocation for expanded tokens, else `span`. Diagnostics point here.
    pub origin: Span,
    pub flags: u8,
}

impl Token {
    pub fn is_punct(&self, p: Punct) -> bool {
        self.kind == TokenKind::Punct(p)
    }

    pub fn at_line_start(&self) -> bool {
        self.flags & AT_LINE_START != 0
    }

    pub fn space_before(&self) -> bool {
        self.flags & SPACE_BEFORE != 0
    }

    pub fn is_expanded(&self) -> bool {
        self.span != self.origin
    }
}

/// Splits one file's text into tokens. Never fails: bad input becomes `Unknown` or
/// `Unterminated` tokens for the caller to diagnose.
pub struct Lexer<'a> {
    text: &'a [u8],
    file: FileId,
    pos: usize,
    at_line_start: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(text: &'a str, file: FileId) -> Lexer<'a> {
        Lexer { text: text.as_bytes(), file, pos: 0, at_line_start: true }
    }

    /// Resumes lexing at a byte offset (used by the preprocessor's include stack).
    pub fn at(text: &'a str, file: FileId, pos: usize, at_line_start: bool) -> Lexer<'a> {
        Lexer { text: text.as_bytes(), file, pos: pos.min(text.len()), at_line_start }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn at_line_start(&self) -> bool {
        self.at_line_start
    }

    fn peek_byte(&self, ahead: usize) -> u8 {
        self.text.get(self.pos + ahead).copied().unwrap_or(0)
    }

    /// Skips whitespace and comments; returns whether any was skipped.
    fn skip_trivia(&mut self) -> bool {
        let start = self.pos;
        loop {
            match self.peek_byte(0) {
                b'\n' => {
                    self.at_line_start = true;
                    self.pos += 1;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                // A line splice outside a token is just whitespace.
                b'\\' if self.peek_byte(1) == b'\n' => self.pos += 2,
                b'\\' if self.peek_byte(1) == b'\r' && self.peek_byte(2) == b'\n' => self.pos += 3,
                b'/' if self.peek_byte(1) == b'/' => {
                    // A `//` comment continues over spliced lines.
                    while self.pos < self.text.len() && self.text[self.pos] != b'\n' {
                        if self.text[self.pos] == b'\\' && self.peek_byte(1) == b'\n' {
                            self.pos += 1;
                        } else if self.text[self.pos] == b'\\'
                            && self.peek_byte(1) == b'\r'
                            && self.peek_byte(2) == b'\n'
                        {
                            self.pos += 2;
                        }
                        self.pos += 1;
                    }
                }
                b'/' if self.peek_byte(1) == b'*' => {
                    self.pos += 2;
                    while self.pos < self.text.len()
                        && !(self.text[self.pos] == b'*' && self.peek_byte(1) == b'/')
                    {
                        if self.text[self.pos] == b'\n' {
                            self.at_line_start = true;
                        }
                        self.pos += 1;
                    }
                    self.pos = (self.pos + 2).min(self.text.len());
                }
                _ => break,
            }
        }
        self.pos != start
    }

    /// The next token's kind and byte range, or `None` at the end of the text.
    /// `flags` gets `AT_LINE_START`/`SPACE_BEFORE`.
    pub fn next_raw(&mut self) -> (TokenKind, usize, usize, u8) {
        let spaced = self.skip_trivia();
        let mut flags = if spaced { SPACE_BEFORE } else { 0 };
        if self.at_line_start {
            flags |= AT_LINE_START;
        }
        self.at_line_start = false;
        let start = self.pos;
        let Some(&c) = self.text.get(self.pos) else {
            return (TokenKind::Eof, start, start, flags | AT_LINE_START);
        };
        let kind = if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            self.pos += 1;
            while self.pos < self.text.len() {
                let b = self.text[self.pos];
                if b.is_ascii_alphanumeric() || b == b'_' {
                    self.pos += 1;
                } else if b >= 0x80 {
                    // Keep identifiers on character boundaries (UTF-8 continuation bytes).
                    self.pos += 1;
                } else {
                    break;
                }
            }
            TokenKind::Ident
        } else if c.is_ascii_digit() || (c == b'.' && self.peek_byte(1).is_ascii_digit()) {
            self.lex_number();
            TokenKind::Number
        } else if c == b'"' || c == b'\'' {
            self.lex_quoted(c)
        } else {
            let rest = &self.text[self.pos..];
            match PUNCTUATORS.iter().find(|(s, _)| rest.starts_with(s.as_bytes())) {
                Some((s, p)) => {
                    self.pos += s.len();
                    TokenKind::Punct(*p)
                }
                None => {
                    // One whole UTF-8 character, so spans stay on character boundaries.
                    let len = match c {
                        0xC0..=0xDF => 2,
                        0xE0..=0xEF => 3,
                        0xF0..=0xF7 => 4,
                        _ => 1,
                    };
                    self.pos = (self.pos + len).min(self.text.len());
                    TokenKind::Unknown
                }
            }
        };
        (kind, start, self.pos, flags)
    }

    fn lex_number(&mut self) {
        // A preprocessing number: digits, letters, `_`, `.`, and signs after an exponent letter.
        self.pos += 1;
        while self.pos < self.text.len() {
            let b = self.text[self.pos];
            let prev = self.text[self.pos - 1];
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' {
                self.pos += 1;
            } else if (b == b'+' || b == b'-') && matches!(prev, b'e' | b'E' | b'p' | b'P') {
                // Only an exponent sign when the number is not hexadecimal with `e` as a digit.
                let text = &self.text[..self.pos];
                let start =
                    text.iter().rposition(|c| !(c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.'));
                let number = &text[start.map_or(0, |s| s + 1)..];
                let is_hex = number.len() > 1 && number[0] == b'0' && (number[1] | 0x20) == b'x';
                if is_hex && matches!(prev, b'e' | b'E') {
                    break;
                }
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn lex_quoted(&mut self, quote: u8) -> TokenKind {
        self.pos += 1;
        while self.pos < self.text.len() {
            match self.text[self.pos] {
                b'\\' => self.pos = (self.pos + 2).min(self.text.len()),
                b'\n' => return TokenKind::Unterminated,
                b if b == quote => {
                    self.pos += 1;
                    return if quote == b'"' { TokenKind::String } else { TokenKind::Char };
                }
                _ => self.pos += 1,
            }
        }
        TokenKind::Unterminated
    }

    /// The rest of the current line (after a directive name), for `#error` and friends.
    pub fn rest_of_line(&mut self) -> (usize, usize) {
        let start = self.pos;
        while self.pos < self.text.len() && self.text[self.pos] != b'\n' {
            if self.text[self.pos] == b'\\' && self.peek_byte(1) == b'\n' {
                self.pos += 1;
            }
            self.pos += 1;
        }
        (start, self.pos)
    }

    /// Lexes the next token, interning its spelling.
    pub fn next_token(&mut self, interner: &mut Interner) -> Token {
        let (kind, start, end, flags) = self.next_raw();
        let text = std::str::from_utf8(&self.text[start..end]).unwrap_or("\u{fffd}");
        let sym = interner.intern(text);
        let span = Span::new(self.file, start as u32, end as u32);
        Token { kind, sym, span, origin: span, flags }
    }

    pub fn file(&self) -> FileId {
        self.file
    }
}

/// Lexes a whole string (used for pasted tokens and tests).
pub fn tokenize(text: &str, file: FileId, interner: &mut Interner) -> Vec<Token> {
    let mut lexer = Lexer::new(text, file);
    let mut out = Vec::new();
    loop {
        let tok = lexer.next_token(interner);
        if tok.kind == TokenKind::Eof {
            return out;
        }
        out.push(tok);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds_and_text(text: &str) -> Vec<(TokenKind, String)> {
        let mut interner = Interner::new();
        tokenize(text, FileId(0), &mut interner)
            .iter()
            .map(|t| (t.kind, interner.get(t.sym).to_string()))
            .collect()
    }

    #[test]
    fn lexes_identifiers_numbers_and_punctuators() {
        let toks = kinds_and_text("float4 x=1.5e-3f+0x1Fu>>=a.xyz; // c\n/* b */ 2.h");
        let text: Vec<&str> = toks.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(text, ["float4", "x", "=", "1.5e-3f", "+", "0x1Fu", ">>=", "a", ".", "xyz", ";", "2.h"]);
        assert_eq!(toks[3].0, TokenKind::Number);
        assert_eq!(toks[6].0, TokenKind::Punct(Punct::ShrEq));
    }

    #[test]
    fn hex_e_is_a_digit_not_an_exponent() {
        let text: Vec<String> = kinds_and_text("0x1e+1").into_iter().map(|(_, t)| t).collect();
        assert_eq!(text, ["0x1e", "+", "1"]);
    }

    #[test]
    fn flags_mark_line_starts_and_spaces() {
        let mut interner = Interner::new();
        let toks = tokenize("a b\n  #c", FileId(0), &mut interner);
        assert!(toks[0].at_line_start());
        assert!(!toks[1].at_line_start() && toks[1].space_before());
        assert!(toks[2].at_line_start() && toks[2].is_punct(Punct::Hash));
        assert!(!toks[3].space_before());
    }

    #[test]
    fn bad_input_becomes_tokens_not_errors() {
        let toks = kinds_and_text("\"abc\n'x\n@ é");
        assert_eq!(toks[0].0, TokenKind::Unterminated);
        assert_eq!(toks[1].0, TokenKind::Unterminated);
        assert_eq!(toks.last().unwrap().0, TokenKind::Ident);
        assert!(toks.iter().any(|(k, t)| *k == TokenKind::Unknown && t == "@"));
    }

    #[test]
    fn unterminated_block_comment_ends_at_eof() {
        assert!(kinds_and_text("a /* never closed").len() == 1);
    }
}
