//! The recursive-descent parser: preprocessed tokens -> [`Ast`].
//!
//! HLSL, like C++, needs to know which names are types to tell a declaration from an
//! expression (`T(x)` constructs, `A<B>(c)` may be a template call). The parser keeps
//! a scoped table of the type and template names declared so far, on top of the
//! built-in ones. Errors are reported clang-style and the parser resynchronizes on `;`
//! and `}`. Recursion is bounded by [`MAX_NESTING`]: deeper input is an error.

mod decl;
mod expr;
mod names;
mod stmt;

use crate::ast::{Ast, Decl, DeclId, DeclKind, Modifiers};
use crate::diag::{Diagnostic, Diagnostics};
use crate::lexer::{Interner, Punct, Symbol, Token, TokenKind};
use crate::preprocessor::{Pragma, Preprocessed};
use crate::source::Span;
use std::collections::HashMap;

pub use names::{builtin_type_kind, NameKind};

/// How deeply brackets, statements and types may nest.
pub const MAX_NESTING: usize = 256;
/// The tallest expression tree the parser builds (see [`crate::ast::Expr::height`]).
pub const MAX_EXPR_HEIGHT: u16 = 1024;

#[derive(Clone, Copy, Debug)]
pub struct ParseOptions {
    /// 2016, 2018 or 2021 (`-HV`).
    pub hlsl_version: u32,
}

impl Default for ParseOptions {
    fn default() -> ParseOptions {
        ParseOptions { hlsl_version: 2021 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kw {
    Struct,
    Class,
    Interface,
    Typedef,
    Using,
    Namespace,
    Enum,
    Template,
    Typename,
    CBuffer,
    TBuffer,
    If,
    Else,
    For,
    While,
    Do,
    Switch,
    Case,
    Default,
    Break,
    Continue,
    Return,
    Discard,
    True,
    False,
    Sizeof,
    Operator,
    This,
    StaticAssert,
}

const KEYWORDS: &[(&str, Kw)] = &[
    ("struct", Kw::Struct),
    ("class", Kw::Class),
    ("interface", Kw::Interface),
    ("typedef", Kw::Typedef),
    ("using", Kw::Using),
    ("namespace", Kw::Namespace),
    ("enum", Kw::Enum),
    ("template", Kw::Template),
    ("typename", Kw::Typename),
    ("cbuffer", Kw::CBuffer),
    ("tbuffer", Kw::TBuffer),
    ("if", Kw::If),
    ("else", Kw::Else),
    ("for", Kw::For),
    ("while", Kw::While),
    ("do", Kw::Do),
    ("switch", Kw::Switch),
    ("case", Kw::Case),
    ("default", Kw::Default),
    ("break", Kw::Break),
    ("continue", Kw::Continue),
    ("return", Kw::Return),
    ("discard", Kw::Discard),
    ("true", Kw::True),
    ("false", Kw::False),
    ("sizeof", Kw::Sizeof),
    ("operator", Kw::Operator),
    ("this", Kw::This),
    ("static_assert", Kw::StaticAssert),
    ("_Static_assert", Kw::StaticAssert),
];

/// Modifiers that are also ordinary identifiers elsewhere (`float line;`): they only
/// count as modifiers when another identifier follows.
const CONTEXTUAL_MODIFIERS: Modifiers = Modifiers(
    Modifiers::LINEAR.0
        | Modifiers::CENTROID.0
        | Modifiers::NOPERSPECTIVE.0
        | Modifiers::SAMPLE.0
        | Modifiers::POINT.0
        | Modifiers::LINE.0
        | Modifiers::TRIANGLE.0
        | Modifiers::LINEADJ.0
        | Modifiers::TRIANGLEADJ.0
        | Modifiers::VERTICES.0
        | Modifiers::INDICES.0
        | Modifiers::PRIMITIVES.0
        | Modifiers::PAYLOAD.0
        | Modifiers::CENTER.0
        | Modifiers::SNORM.0
        | Modifiers::UNORM.0
        | Modifiers::PRECISE.0
        | Modifiers::GLOBALLYCOHERENT.0
        | Modifiers::REORDERCOHERENT.0
        | Modifiers::SHARED.0
        | Modifiers::EXPORT.0
        | Modifiers::NODE_INPUT.0,
);

/// Parses a preprocessed translation unit. The interner (shared with the
/// preprocessor) moves into the returned tree.
pub fn parse(pre: Preprocessed, interner: Interner, diags: &mut Diagnostics, options: ParseOptions) -> Ast {
    let mut parser = Parser::new(pre, interner, diags, options);
    let items = parser.parse_translation_unit();
    parser.ast.items = items;
    parser.ast
}

pub(crate) struct Parser<'d> {
    toks: Vec<Token>,
    pos: usize,
    pragmas: Vec<Pragma>,
    next_pragma: usize,
    pub(crate) ast: Ast,
    diags: &'d mut Diagnostics,
    #[allow(dead_code)]
    options: ParseOptions,
    keywords: HashMap<Symbol, Kw>,
    modifiers: HashMap<Symbol, Modifiers>,
    /// Innermost scope last: names declared as types, templates or values.
    scopes: Vec<HashMap<Symbol, NameKind>>,
    builtin_cache: HashMap<Symbol, Option<NameKind>>,
    /// Types declared inside structs, found through qualified names (`S::Inner`).
    member_types: HashMap<Symbol, NameKind>,
    depth: usize,
    /// After a fatal error (nesting limit, error limit) every read is end of input.
    fatal: bool,
    /// Nesting of speculative parses; errors inside are not reported.
    speculating: usize,
    speculation_failed: bool,
    speculation_budget: usize,
    /// `>>` tokens split into `>` `>` while parsing template arguments, to undo on rewind.
    split_log: Vec<(usize, Token)>,
    /// Inside template arguments, `>` ends the argument instead of comparing.
    no_greater: bool,
    eof: Token,
}

impl<'d> Parser<'d> {
    fn new(
        pre: Preprocessed,
        mut interner: Interner,
        diags: &'d mut Diagnostics,
        options: ParseOptions,
    ) -> Parser<'d> {
        let keywords = KEYWORDS.iter().map(|(s, k)| (interner.intern(s), *k)).collect();
        let modifiers = Modifiers::ALL.iter().map(|(m, s)| (interner.intern(s), *m)).collect();
        let mut toks = pre.tokens;
        let eof = match toks.last() {
            Some(t) if t.kind == TokenKind::Eof => *t,
            _ => {
                let sym = interner.intern("");
                let span = toks.last().map_or(Span::default(), |t| t.span.end_point());
                let t = Token { kind: TokenKind::Eof, sym, span, origin: span, flags: 0 };
                toks.push(t);
                t
            }
        };
        let speculation_budget = toks.len().saturating_mul(16).saturating_add(100_000);
        Parser {
            toks,
            pos: 0,
            pragmas: pre.pragmas,
            next_pragma: 0,
            ast: Ast { interner, ..Ast::default() },
            diags,
            options,
            keywords,
            modifiers,
            scopes: vec![HashMap::new()],
            builtin_cache: HashMap::new(),
            member_types: HashMap::new(),
            depth: 0,
            fatal: false,
            speculating: 0,
            speculation_failed: false,
            speculation_budget,
            split_log: Vec::new(),
            no_greater: false,
            eof,
        }
    }

    // ---- tokens ----

    pub(crate) fn peek(&self) -> Token {
        if self.fatal {
            return self.eof;
        }
        self.toks.get(self.pos).copied().unwrap_or(self.eof)
    }

    pub(crate) fn peek_at(&self, ahead: usize) -> Token {
        if self.fatal {
            return self.eof;
        }
        self.toks.get(self.pos + ahead).copied().unwrap_or(self.eof)
    }

    pub(crate) fn bump(&mut self) -> Token {
        let tok = self.peek();
        if tok.kind != TokenKind::Eof {
            self.pos += 1;
        }
        tok
    }

    /// The span of the previous token (for the end of a node's range).
    pub(crate) fn prev_span(&self) -> Span {
        self.pos.checked_sub(1).and_then(|i| self.toks.get(i)).map_or(self.eof.origin, |t| t.origin)
    }

    pub(crate) fn span_from(&self, start: Span) -> Span {
        start.to(self.prev_span())
    }

    pub(crate) fn at_eof(&self) -> bool {
        self.peek().kind == TokenKind::Eof
    }

    pub(crate) fn at(&self, p: Punct) -> bool {
        self.peek().is_punct(p)
    }

    pub(crate) fn eat(&mut self, p: Punct) -> bool {
        if self.at(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn kw_of(&self, tok: Token) -> Option<Kw> {
        if tok.kind != TokenKind::Ident {
            return None;
        }
        self.keywords.get(&tok.sym).copied()
    }

    fn at_kw(&self, kw: Kw) -> bool {
        self.kw_of(self.peek()) == Some(kw)
    }

    fn eat_kw(&mut self, kw: Kw) -> bool {
        if self.at_kw(kw) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(crate) fn text(&self, tok: Token) -> &str {
        self.ast.interner.get(tok.sym)
    }

    /// An identifier usable as a name (not a keyword).
    pub(crate) fn is_name(&self, tok: Token) -> bool {
        tok.kind == TokenKind::Ident && self.kw_of(tok).is_none()
    }

    /// Expects a punctuator; on failure reports `expected 'X'` (or `message`).
    pub(crate) fn expect(&mut self, p: Punct, message: Option<&str>) -> bool {
        if self.eat(p) {
            return true;
        }
        let msg = message.map_or_else(|| format!("expected '{}'", p.spelling()), str::to_string);
        let span = self.error_span();
        self.error(span, msg);
        false
    }

    /// Expects the closing bracket of `open`, with a note at the opening one.
    pub(crate) fn expect_closing(&mut self, close: Punct, open: Token) -> bool {
        if self.eat(close) {
            return true;
        }
        let span = self.error_span();
        let message = format!("expected '{}'", close.spelling());
        let note = format!("to match this '{}'", self.text(open));
        self.report(Diagnostic::error(Some(span), message).with_note(Some(open.origin), note));
        false
    }

    /// Where a "expected X" error points: the current token, or just after the previous
    /// one when the current one starts a new line (as clang does for a missing `;`).
    pub(crate) fn error_span(&self) -> Span {
        let tok = self.peek();
        if (tok.at_line_start() || tok.kind == TokenKind::Eof) && self.pos > 0 {
            return self.prev_span().end_point();
        }
        tok.origin
    }

    // ---- diagnostics ----

    pub(crate) fn report(&mut self, diag: Diagnostic) {
        if self.speculating > 0 {
            self.speculation_failed = true;
            return;
        }
        self.diags.report(diag);
        if self.diags.limit_reached() {
            self.fatal = true;
        }
    }

    pub(crate) fn error(&mut self, span: Span, message: impl Into<String>) {
        self.report(Diagnostic::error(Some(span), message));
    }

    /// Enters one nesting level; false (after reporting, once) beyond the limit.
    pub(crate) fn enter(&mut self) -> bool {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            if !self.fatal {
                let span = self.peek().origin;
                // Reported even while speculating: the parse cannot go on.
                self.diags.error(span, format!("bracket nesting level exceeded maximum of {MAX_NESTING}"));
                self.fatal = true;
            }
            return false;
        }
        true
    }

    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Stops the parse when an expression tree grows too tall.
    pub(crate) fn check_height(&mut self, height: u16, span: Span) {
        if height > MAX_EXPR_HEIGHT && !self.fatal {
            self.diags.error(span, "expression is too complex");
            self.fatal = true;
        }
    }

    // ---- speculation ----

    /// Runs `f`; if it fails or reports an error, rewinds and returns `None`.
    pub(crate) fn speculate<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.speculation_budget == 0 {
            return None;
        }
        self.speculation_budget -= 1;
        let (pos, log_len, outer_failed) = (self.pos, self.split_log.len(), self.speculation_failed);
        let (saved_greater, saved_depth) = (self.no_greater, self.depth);
        self.speculating += 1;
        self.speculation_failed = false;
        let result = f(self);
        let failed = self.speculation_failed || result.is_none();
        self.speculating -= 1;
        self.speculation_failed = outer_failed;
        self.no_greater = saved_greater;
        self.depth = saved_depth;
        if failed {
            self.rewind(pos, log_len);
            return None;
        }
        result
    }

    /// Runs `f` and always rewinds: a pure lookahead.
    pub(crate) fn lookahead<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        let (pos, log_len) = (self.pos, self.split_log.len());
        let result = self.speculate(f);
        self.rewind(pos, log_len);
        result
    }

    fn rewind(&mut self, pos: usize, log_len: usize) {
        while self.split_log.len() > log_len {
            if let Some((i, tok)) = self.split_log.pop() {
                self.toks[i] = tok;
            }
        }
        self.pos = pos;
    }

    /// Consumes a `>` closing template arguments, splitting `>>`, `>=` and `>>=`.
    pub(crate) fn eat_closing_angle(&mut self) -> bool {
        let tok = self.peek();
        match tok.kind {
            TokenKind::Punct(Punct::Gt) => {
                self.bump();
                true
            }
            TokenKind::Punct(p @ (Punct::Shr | Punct::Ge | Punct::ShrEq)) => {
                let rest = match p {
                    Punct::Shr => Punct::Gt,
                    Punct::Ge => Punct::Eq,
                    _ => Punct::Ge,
                };
                self.split_log.push((self.pos, tok));
                let sym = self.ast.interner.intern(rest.spelling());
                let mut second = tok;
                second.kind = TokenKind::Punct(rest);
                second.sym = sym;
                second.span.start = (tok.span.start + 1).min(tok.span.end);
                if tok.origin == tok.span {
                    second.origin = second.span;
                }
                second.flags = 0;
                self.toks[self.pos] = second;
                true
            }
            _ => false,
        }
    }

    // ---- names ----

    pub(crate) fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    pub(crate) fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    /// Leaves a struct body: its type names stay reachable as `S::Name`.
    pub(crate) fn pop_member_scope(&mut self) {
        if self.scopes.len() > 1 {
            if let Some(scope) = self.scopes.pop() {
                for (name, kind) in scope {
                    if matches!(kind, NameKind::Type | NameKind::TypeTemplate | NameKind::FunctionTemplate) {
                        self.member_types.insert(name, kind);
                    }
                }
            }
        }
    }

    /// What the last segment of a qualified name denotes.
    pub(crate) fn lookup_qualified(&mut self, name: Symbol, qualified: bool) -> Option<NameKind> {
        match self.lookup(name) {
            Some(kind) => Some(kind),
            None if qualified => self.member_types.get(&name).copied(),
            None => None,
        }
    }

    pub(crate) fn declare(&mut self, name: Symbol, kind: NameKind) {
        if self.speculating > 0 {
            return;
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name, kind);
        }
    }

    /// What a simple name denotes, innermost declaration first, then built-ins.
    pub(crate) fn lookup(&mut self, name: Symbol) -> Option<NameKind> {
        for scope in self.scopes.iter().rev() {
            if let Some(&kind) = scope.get(&name) {
                return Some(kind);
            }
        }
        if let Some(&cached) = self.builtin_cache.get(&name) {
            return cached;
        }
        let kind = builtin_type_kind(self.ast.interner.get(name));
        self.builtin_cache.insert(name, kind);
        kind
    }

    // ---- the translation unit ----

    fn parse_translation_unit(&mut self) -> Vec<DeclId> {
        let mut items = Vec::new();
        loop {
            self.flush_pragmas(&mut items);
            if self.at_eof() {
                break;
            }
            let start = self.pos;
            let decls = self.parse_declaration(decl::DeclContext::TopLevel);
            items.extend(decls);
            if self.pos == start && !self.at_eof() {
                // No progress: drop the token so the loop always advances.
                let tok = self.bump();
                if tok.is_punct(Punct::RBrace) {
                    self.error(tok.origin, "extraneous closing brace ('}')");
                }
            }
        }
        self.flush_pragmas(&mut items);
        items
    }

    /// Turns the `#pragma`s that came before the current token into declarations.
    pub(crate) fn flush_pragmas(&mut self, items: &mut Vec<DeclId>) {
        while let Some(pragma) = self.pragmas.get(self.next_pragma) {
            if pragma.token_index > self.pos && !self.at_eof() {
                break;
            }
            let decl = Decl {
                kind: DeclKind::Pragma(pragma.text.clone()),
                attrs: Vec::new(),
                modifiers: Modifiers::default(),
                span: pragma.span,
            };
            items.push(self.ast.add_decl(decl));
            self.next_pragma += 1;
        }
    }

    /// Skips to the end of the current statement or declaration: past a `;` at this
    /// bracket level, or up to a `}` closing the enclosing block.
    pub(crate) fn skip_to_statement_end(&mut self) {
        let mut depth = 0usize;
        loop {
            let tok = self.peek();
            match tok.kind {
                TokenKind::Eof => return,
                TokenKind::Punct(Punct::Semi) if depth == 0 => {
                    self.bump();
                    return;
                }
                TokenKind::Punct(Punct::LParen | Punct::LBracket | Punct::LBrace) => depth += 1,
                TokenKind::Punct(Punct::RBrace) if depth == 0 => return,
                TokenKind::Punct(Punct::RBrace) => {
                    depth -= 1;
                    if depth == 0 {
                        // A `{...}` group at this level ends a declaration (a function body).
                        self.bump();
                        if self.at(Punct::Semi) {
                            self.bump();
                        }
                        return;
                    }
                }
                TokenKind::Punct(Punct::RParen | Punct::RBracket) => depth = depth.saturating_sub(1),
                _ => {}
            }
            self.bump();
        }
    }
}

#[cfg(test)]
mod tests;
