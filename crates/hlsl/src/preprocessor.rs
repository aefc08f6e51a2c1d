//! The C preprocessor as dxc runs it over HLSL: includes, conditionals, macros with
//! `#`/`##` and `__VA_ARGS__`, `#line`, `#error`, `#pragma`, predefined macros.
//!
//! Expansion works on a stack of pending tokens. Expanding a macro pushes its
//! replacement followed by an end marker; while the marker is on the stack the macro is
//! disabled, and its name met inside its own replacement is painted `NO_EXPAND` for good.
//! Arguments are pre-expanded in isolation behind a `Stop` marker. Every recursion
//! (argument pre-expansion, `#if` expressions, includes) and the total amount of
//! expansion are bounded, so no input can overflow the stack or run forever.

use crate::diag::{Diagnostic, Diagnostics};
use crate::lexer::{
    Interner, Lexer, Punct, Symbol, Token, TokenKind, AT_LINE_START, NO_EXPAND, SPACE_BEFORE,
};
use crate::source::{FileId, SourceMap, Span};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// How deep `#include`s may nest.
pub const MAX_INCLUDE_DEPTH: usize = 200;
/// How deep macro argument pre-expansion and `#if` expressions may nest.
pub const MAX_EXPANSION_DEPTH: usize = 200;
/// How many macro expansions one translation unit may perform.
pub const MAX_EXPANSIONS: usize = 1_000_000;
/// How many tokens the preprocessor may produce.
pub const MAX_OUTPUT_TOKENS: usize = 8_000_000;
/// Largest source file read from disk.
pub const MAX_FILE_SIZE: u64 = 64 << 20;

/// Reads included files. The driver reads from disk; tests and the fuzzer use memory.
pub trait FileLoader {
    fn load(&self, path: &Path) -> std::io::Result<String>;
    /// A key that is the same for two paths naming one file (for `#pragma once`).
    fn identity(&self, path: &Path) -> PathBuf {
        path.to_path_buf()
    }
}

/// Reads regular files from disk, refusing devices, directories and huge files.
pub struct FsLoader;

impl FileLoader for FsLoader {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        let meta = std::fs::metadata(path)?;
        if !meta.is_file() {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"));
        }
        if meta.len() > MAX_FILE_SIZE {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "file too large"));
        }
        let bytes = std::fs::read(path)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn identity(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

/// Files kept in memory, by path.
#[derive(Default)]
pub struct MemoryLoader {
    pub files: HashMap<PathBuf, String>,
}

impl FileLoader for MemoryLoader {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        self.files.get(path).cloned().ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }
}

#[derive(Clone, Debug, Default)]
pub struct PreprocessOptions {
    /// Macros the compiler defines (`__HLSL_VERSION`, ...), as `(name, value)`.
    pub predefined: Vec<(String, String)>,
    /// `-D NAME[=VALUE]`, in command-line order.
    pub defines: Vec<(String, Option<String>)>,
    /// `-I DIR`, in order.
    pub include_dirs: Vec<PathBuf>,
}

/// A `#pragma` other than `once`, kept for the parser (`pack_matrix`, `warning`, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct Pragma {
    pub span: Span,
    /// The text after `pragma`, trimmed.
    pub text: String,
    /// Index of the first output token after the pragma.
    pub token_index: usize,
}

/// The preprocessor's result: the token stream (ending in `Eof`) and the pragmas.
#[derive(Debug, Default)]
pub struct Preprocessed {
    pub tokens: Vec<Token>,
    pub pragmas: Vec<Pragma>,
}

#[derive(Debug, PartialEq)]
struct Macro {
    /// `None` for object-like macros.
    params: Option<Vec<Symbol>>,
    variadic: bool,
    body: Vec<Token>,
}

#[derive(Clone, Copy)]
enum Pending {
    Tok(Token),
    /// The replacement of this macro ends here: it may expand again.
    EndMacro(Symbol),
    /// The end of an isolated expansion (macro argument, `#if` line).
    Stop,
}

#[derive(Clone, Copy)]
struct Conditional {
    /// Tokens in the current branch are kept.
    active: bool,
    /// Some branch was (or is) taken, so later `#elif`/`#else` are skipped.
    taken: bool,
    seen_else: bool,
    /// Whether the enclosing region was active.
    parent_active: bool,
    span: Span,
}

struct Frame {
    file: FileId,
    text: Rc<str>,
    pos: usize,
    at_line_start: bool,
    conds: Vec<Conditional>,
}

/// Fixed symbols the preprocessor compares against.
struct Names {
    defined: Symbol,
    va_args: Symbol,
    line: Symbol,
    file: Symbol,
    counter: Symbol,
    true_: Symbol,
    false_: Symbol,
}

pub struct Preprocessor<'a> {
    sources: &'a mut SourceMap,
    interner: &'a mut Interner,
    diags: &'a mut Diagnostics,
    loader: &'a dyn FileLoader,
    include_dirs: Vec<PathBuf>,
    frames: Vec<Frame>,
    pending: Vec<Pending>,
    active: Vec<Symbol>,
    macros: HashMap<Symbol, Rc<Macro>>,
    once_files: HashSet<PathBuf>,
    pragmas: Vec<Pragma>,
    output_len: usize,
    expansions: usize,
    depth: usize,
    counter: u64,
    /// Set after a fatal error: everything reads as end of input.
    fatal: bool,
    names: Names,
}

/// Preprocesses `main` (already in `sources`).
pub fn preprocess(
    main: FileId,
    sources: &mut SourceMap,
    interner: &mut Interner,
    diags: &mut Diagnostics,
    options: &PreprocessOptions,
    loader: &dyn FileLoader,
) -> Preprocessed {
    let mut pp = Preprocessor::new(sources, interner, diags, loader, options.include_dirs.clone());
    pp.push_file(main);
    // Predefined and command-line macros are `#define`s in a file read before the main one.
    let mut builtin = String::new();
    for (name, value) in &options.predefined {
        builtin.push_str(&format!("#define {name} {value}\n"));
    }
    for (name, value) in &options.defines {
        builtin.push_str(&format!("#define {name} {}\n", value.as_deref().unwrap_or("1")));
    }
    let builtin_id = pp.sources.add("<built-in>", None, builtin);
    pp.push_file(builtin_id);
    pp.run()
}

impl<'a> Preprocessor<'a> {
    fn new(
        sources: &'a mut SourceMap,
        interner: &'a mut Interner,
        diags: &'a mut Diagnostics,
        loader: &'a dyn FileLoader,
        include_dirs: Vec<PathBuf>,
    ) -> Preprocessor<'a> {
        let names = Names {
            defined: interner.intern("defined"),
            va_args: interner.intern("__VA_ARGS__"),
            line: interner.intern("__LINE__"),
            file: interner.intern("__FILE__"),
            counter: interner.intern("__COUNTER__"),
            true_: interner.intern("true"),
            false_: interner.intern("false"),
        };
        Preprocessor {
            sources,
            interner,
            diags,
            loader,
            include_dirs,
            frames: Vec::new(),
            pending: Vec::new(),
            active: Vec::new(),
            macros: HashMap::new(),
            once_files: HashSet::new(),
            pragmas: Vec::new(),
            output_len: 0,
            expansions: 0,
            depth: 0,
            counter: 0,
            fatal: false,
            names,
        }
    }

    fn push_file(&mut self, file: FileId) {
        let text: Rc<str> = Rc::from(self.sources.text(file));
        self.frames.push(Frame { file, text, pos: 0, at_line_start: true, conds: Vec::new() });
    }

    fn run(mut self) -> Preprocessed {
        let mut tokens = Vec::new();
        loop {
            let tok = self.next_expanded();
            if tok.kind == TokenKind::Eof {
                tokens.push(tok);
                break;
            }
            tokens.push(tok);
            self.output_len = tokens.len();
            if tokens.len() > MAX_OUTPUT_TOKENS {
                self.fatal_error(tok.origin, "preprocessed output is too large");
            }
        }
        Preprocessed { tokens, pragmas: self.pragmas }
    }

    fn fatal_error(&mut self, span: Span, message: &str) {
        if !self.fatal {
            self.diags.error(span, message);
        }
        self.fatal = true;
        self.pending.clear();
        self.frames.clear();
    }

    fn eof_token(&mut self) -> Token {
        let span = self.frames.last().map_or(Span::default(), |f| {
            let end = f.text.len() as u32;
            Span::new(f.file, end, end)
        });
        Token {
            kind: TokenKind::Eof,
            sym: self.interner.intern(""),
            span,
            origin: span,
            flags: AT_LINE_START,
        }
    }

    // ---- reading tokens ----

    /// The next token before macro expansion: from the pending stack, else the files.
    fn next_raw(&mut self) -> Token {
        loop {
            if self.fatal {
                return self.eof_token();
            }
            match self.pending.pop() {
                Some(Pending::Tok(tok)) => return tok,
                Some(Pending::EndMacro(sym)) => {
                    if let Some(i) = self.active.iter().rposition(|&s| s == sym) {
                        self.active.remove(i);
                    }
                }
                Some(Pending::Stop) => {
                    self.pending.push(Pending::Stop);
                    return self.eof_token();
                }
                None => return self.next_file_token(),
            }
        }
    }

    /// Puts a token back (end-of-input tokens are never pushed back: they recur).
    fn unread(&mut self, tok: Token) {
        if tok.kind != TokenKind::Eof {
            self.pending.push(Pending::Tok(tok));
        }
    }

    /// Lexes one token of the innermost file, and the position before it.
    fn lex_in_frame(&mut self) -> Option<(Token, usize, bool)> {
        let frame = self.frames.last_mut()?;
        let (pos, at_start) = (frame.pos, frame.at_line_start);
        let text = Rc::clone(&frame.text);
        let mut lexer = Lexer::at(&text, frame.file, frame.pos, frame.at_line_start);
        let tok = lexer.next_token(self.interner);
        frame.pos = lexer.position();
        frame.at_line_start = lexer.at_line_start();
        Some((tok, pos, at_start))
    }

    fn rewind_frame(&mut self, pos: usize, at_line_start: bool) {
        if let Some(frame) = self.frames.last_mut() {
            frame.pos = pos;
            frame.at_line_start = at_line_start;
        }
    }

    fn skipping(&self) -> bool {
        self.frames.last().and_then(|f| f.conds.last()).is_some_and(|c| !c.active)
    }

    /// The next token of the files, running directives and skipping inactive regions.
    fn next_file_token(&mut self) -> Token {
        loop {
            let Some((tok, _, _)) = self.lex_in_frame() else { return self.eof_token() };
            if tok.kind == TokenKind::Eof {
                let Some(frame) = self.frames.pop() else { return tok };
                for cond in &frame.conds {
                    self.diags.error(cond.span, "unterminated conditional directive");
                }
                if self.frames.is_empty() {
                    // Keep an empty frame's worth of position for the end token.
                    self.frames.push(frame);
                    if let Some(f) = self.frames.last_mut() {
                        f.conds.clear();
                        f.pos = f.text.len();
                    }
                    return tok;
                }
                continue;
            }
            if tok.is_punct(Punct::Hash) && tok.at_line_start() {
                self.directive(tok);
                continue;
            }
            if self.skipping() {
                continue;
            }
            match tok.kind {
                TokenKind::Unterminated => {
                    let what = if self.interner.get(tok.sym).starts_with('"') { '"' } else { '\'' };
                    self.diags.error(tok.span, format!("missing terminating {what} character"));
                }
                TokenKind::Unknown => {} // reported by the parser where it matters
                _ => {}
            }
            return tok;
        }
    }

    /// The rest of the directive line's tokens (stops before the next line's first token).
    fn line_tokens(&mut self) -> Vec<Token> {
        let mut out = Vec::new();
        loop {
            let Some((tok, pos, at_start)) = self.lex_in_frame() else { return out };
            if tok.kind == TokenKind::Eof || tok.at_line_start() {
                self.rewind_frame(pos, at_start);
                return out;
            }
            out.push(tok);
        }
    }

    /// The raw text of the rest of the directive line.
    fn line_text(&mut self) -> String {
        let Some(frame) = self.frames.last_mut() else { return String::new() };
        let text = Rc::clone(&frame.text);
        let mut lexer = Lexer::at(&text, frame.file, frame.pos, false);
        let (start, end) = lexer.rest_of_line();
        frame.pos = end;
        text.get(start..end).unwrap_or("").trim().to_string()
    }

    // ---- macro expansion ----

    /// The next token after macro expansion.
    fn next_expanded(&mut self) -> Token {
        loop {
            let mut tok = self.next_raw();
            if tok.kind != TokenKind::Ident || tok.flags & NO_EXPAND != 0 {
                return tok;
            }
            if let Some(builtin) = self.builtin_macro(tok) {
                return builtin;
            }
            let Some(mac) = self.macros.get(&tok.sym).cloned() else { return tok };
            if self.active.contains(&tok.sym) {
                tok.flags |= NO_EXPAND;
                return tok;
            }
            let args = if mac.params.is_some() {
                let next = self.next_raw();
                if !next.is_punct(Punct::LParen) {
                    self.unread(next);
                    return tok;
                }
                match self.collect_args(tok, &mac) {
                    Some(args) => args,
                    None => continue,
                }
            } else {
                Vec::new()
            };
            self.expansions += 1;
            if self.expansions > MAX_EXPANSIONS {
                self.fatal_error(tok.origin, "macro expansion limit exceeded");
                return self.eof_token();
            }
            let replacement = self.substitute(&mac, &args, tok);
            if self.pending.len() + replacement.len() > MAX_OUTPUT_TOKENS {
                self.fatal_error(tok.origin, "macro expansion is too large");
                return self.eof_token();
            }
            self.pending.push(Pending::EndMacro(tok.sym));
            self.pending.extend(replacement.into_iter().rev().map(Pending::Tok));
            self.active.push(tok.sym);
        }
    }

    fn builtin_macro(&mut self, tok: Token) -> Option<Token> {
        let text = if tok.sym == self.names.line {
            if self.macros.contains_key(&tok.sym) {
                return None;
            }
            self.sources.line_col(tok.origin).line.to_string()
        } else if tok.sym == self.names.file {
            if self.macros.contains_key(&tok.sym) {
                return None;
            }
            let name = self.sources.file(tok.origin.file).map_or("", |f| f.name.as_str());
            format!("\"{}\"", name.replace('\\', "\\\\"))
        } else if tok.sym == self.names.counter {
            self.counter += 1;
            (self.counter - 1).to_string()
        } else {
            return None;
        };
        let kind = if text.starts_with('"') { TokenKind::String } else { TokenKind::Number };
        Some(Token { kind, sym: self.interner.intern(&text), ..tok })
    }

    /// Reads a macro call's arguments (after the `(`). `None` after reporting an error.
    fn collect_args(&mut self, name: Token, mac: &Macro) -> Option<Vec<Vec<Token>>> {
        let param_count = mac.params.as_ref().map_or(0, |p| p.len());
        let mut args: Vec<Vec<Token>> = vec![Vec::new()];
        let mut nesting = 0usize;
        loop {
            let tok = self.next_raw();
            match tok.kind {
                TokenKind::Eof => {
                    self.diags.error(name.origin, "unterminated function-like macro invocation");
                    return None;
                }
                TokenKind::Punct(Punct::LParen) => nesting += 1,
                TokenKind::Punct(Punct::RParen) if nesting == 0 => break,
                TokenKind::Punct(Punct::RParen) => nesting -= 1,
                TokenKind::Punct(Punct::Comma)
                    if nesting == 0 && !(mac.variadic && args.len() > param_count) =>
                {
                    args.push(Vec::new());
                    continue;
                }
                _ => {}
            }
            if let Some(last) = args.last_mut() {
                last.push(tok);
            }
        }
        let spelled = self.interner.get(name.sym).to_string();
        if param_count == 0 && !mac.variadic && args.len() == 1 && args[0].is_empty() {
            return Some(Vec::new());
        }
        let expected = param_count + usize::from(mac.variadic);
        if mac.variadic && args.len() == param_count {
            args.push(Vec::new()); // `__VA_ARGS__` may be empty
        }
        if args.len() > expected {
            self.diags.error(
                name.origin,
                format!("too many arguments provided to function-like macro invocation '{spelled}'"),
            );
            return None;
        }
        if args.len() < expected {
            if args.len() + 1 == expected && param_count > 0 && !mac.variadic {
                // `F()` for a one-parameter macro passes one empty argument; more are missing.
            }
            self.diags.error(
                name.origin,
                format!("too few arguments provided to function-like macro invocation '{spelled}'"),
            );
            return None;
        }
        Some(args)
    }

    fn param_index(&self, mac: &Macro, sym: Symbol) -> Option<usize> {
        let params = mac.params.as_ref()?;
        if let Some(i) = params.iter().position(|&p| p == sym) {
            return Some(i);
        }
        (mac.variadic && sym == self.names.va_args).then_some(params.len())
    }

    /// Fully expands a token list in isolation (a macro argument, an `#if` line).
    fn expand_list(&mut self, tokens: &[Token]) -> Vec<Token> {
        self.depth += 1;
        if self.depth > MAX_EXPANSION_DEPTH {
            let span = tokens.first().map_or(Span::default(), |t| t.origin);
            self.fatal_error(span, "macro expansion nested too deeply");
            self.depth -= 1;
            return Vec::new();
        }
        self.pending.push(Pending::Stop);
        self.pending.extend(tokens.iter().rev().copied().map(Pending::Tok));
        let mut out = Vec::new();
        loop {
            let tok = self.next_expanded();
            if tok.kind == TokenKind::Eof {
                break;
            }
            out.push(tok);
        }
        // Drop everything up to and including our Stop marker.
        while let Some(p) = self.pending.pop() {
            match p {
                Pending::Stop => break,
                Pending::EndMacro(sym) => {
                    if let Some(i) = self.active.iter().rposition(|&s| s == sym) {
                        self.active.remove(i);
                    }
                }
                Pending::Tok(_) => {}
            }
        }
        self.depth -= 1;
        out
    }

    /// The replacement list with parameters substituted, `#` and `##` applied.
    fn substitute(&mut self, mac: &Macro, args: &[Vec<Token>], call: Token) -> Vec<Token> {
        let mut out: Vec<Token> = Vec::new();
        let mut expanded_args: Vec<Option<Vec<Token>>> = vec![None; args.len()];
        let body = &mac.body;
        let mut paste_next = false;
        let mut i = 0;
        while i < body.len() {
            let tok = body[i];
            // `#param`: stringify the unexpanded argument.
            if mac.params.is_some() && tok.is_punct(Punct::Hash) {
                if let Some(p) = body.get(i + 1).and_then(|t| self.param_index(mac, t.sym)) {
                    let text = stringify(self.interner, args.get(p).map_or(&[][..], |a| a));
                    let sym = self.interner.intern(&text);
                    let piece = [Token { kind: TokenKind::String, sym, ..tok }];
                    self.append(&mut out, &piece, &mut paste_next, tok.space_before());
                    i += 2;
                    continue;
                }
            }
            if tok.is_punct(Punct::HashHash) && i > 0 && i + 1 < body.len() {
                paste_next = true;
                i += 1;
                continue;
            }
            if let Some(p) = self.param_index(mac, tok.sym).filter(|_| tok.kind == TokenKind::Ident) {
                let next_is_paste = body.get(i + 1).is_some_and(|t| t.is_punct(Punct::HashHash));
                let raw = args.get(p).map_or(&[][..], |a| a.as_slice());
                if paste_next || next_is_paste {
                    let raw = raw.to_vec();
                    self.append(&mut out, &raw, &mut paste_next, tok.space_before());
                } else {
                    if expanded_args.get(p).is_some_and(|e| e.is_none()) {
                        let expanded = self.expand_list(raw);
                        expanded_args[p] = Some(expanded);
                    }
                    let piece = expanded_args.get(p).cloned().flatten().unwrap_or_default();
                    self.append(&mut out, &piece, &mut paste_next, tok.space_before());
                }
                i += 1;
                continue;
            }
            self.append(&mut out, &[tok], &mut paste_next, tok.space_before());
            i += 1;
        }
        for (n, t) in out.iter_mut().enumerate() {
            t.origin = call.origin;
            t.flags &= !AT_LINE_START;
            if n == 0 {
                t.flags = (t.flags & !SPACE_BEFORE) | (call.flags & SPACE_BEFORE);
            }
        }
        out
    }

    /// Appends a piece of the replacement, pasting its first token onto the last one
    /// when a `##` came before it.
    fn append(&mut self, out: &mut Vec<Token>, piece: &[Token], paste_next: &mut bool, space: bool) {
        let mut piece = piece.iter().copied();
        if std::mem::take(paste_next) {
            if let (Some(left), Some(right)) = (out.last().copied(), piece.clone().next()) {
                piece.next();
                out.pop();
                let text = format!("{}{}", self.interner.get(left.sym), self.interner.get(right.sym));
                let lexed = crate::lexer::tokenize(&text, left.span.file, self.interner);
                for (n, mut t) in lexed.into_iter().enumerate() {
                    t.span = left.span;
                    t.origin = left.origin;
                    t.flags = if n == 0 { left.flags } else { 0 };
                    out.push(t);
                }
            }
        }
        for (n, mut t) in piece.enumerate() {
            if n == 0 {
                t.flags = (t.flags & !SPACE_BEFORE) | if space { SPACE_BEFORE } else { 0 };
            }
            out.push(t);
        }
    }

    // ---- directives ----

    fn directive(&mut self, hash: Token) {
        let Some((name, pos, at_start)) = self.lex_in_frame() else { return };
        if name.kind == TokenKind::Eof || name.at_line_start() {
            self.rewind_frame(pos, at_start);
            return; // the null directive
        }
        let directive = self.interner.get(name.sym).to_string();
        if self.skipping() {
            match directive.as_str() {
                "if" | "ifdef" | "ifndef" => {
                    self.line_tokens();
                    self.push_conditional(name.span, false);
                }
                "elif" => self.elif(name),
                "else" => self.else_(name),
                "endif" => self.endif(name),
                _ => {
                    self.line_text();
                }
            }
            return;
        }
        match directive.as_str() {
            "define" => self.define(),
            "undef" => {
                let toks = self.line_tokens();
                match toks.first() {
                    Some(t) if t.kind == TokenKind::Ident => {
                        self.macros.remove(&t.sym);
                    }
                    _ => self.diags.error(name.span, "macro name missing"),
                }
            }
            "include" => self.include(name),
            "if" => {
                let toks = self.line_tokens();
                let value = self.eval_condition(name, &toks);
                self.push_conditional(name.span, value);
            }
            "ifdef" | "ifndef" => {
                let toks = self.line_tokens();
                let defined = match toks.first() {
                    Some(t) if t.kind == TokenKind::Ident => self.macros.contains_key(&t.sym),
                    _ => {
                        self.diags.error(name.span, "macro name missing");
                        false
                    }
                };
                self.push_conditional(name.span, defined == (directive == "ifdef"));
            }
            "elif" => self.elif(name),
            "else" => self.else_(name),
            "endif" => self.endif(name),
            "line" => self.line_directive(name),
            "error" => {
                let text = self.line_text();
                self.diags.report(Diagnostic::error(Some(hash.span.to(name.span)), text));
            }
            "warning" => {
                let text = self.line_text();
                self.diags.report(Diagnostic::warning(Some(hash.span.to(name.span)), "#warnings", text));
            }
            "pragma" => self.pragma(hash),
            _ => {
                self.line_text();
                self.diags.error(name.span, "invalid preprocessing directive");
            }
        }
    }

    fn push_conditional(&mut self, span: Span, value: bool) {
        let parent_active = !self.skipping();
        let Some(frame) = self.frames.last_mut() else { return };
        let active = parent_active && value;
        frame.conds.push(Conditional { active, taken: value, seen_else: false, parent_active, span });
    }

    fn elif(&mut self, name: Token) {
        let toks = self.line_tokens();
        let Some(cond) = self.frames.last().and_then(|f| f.conds.last()).copied() else {
            self.diags.error(name.span, "#elif without #if");
            return;
        };
        if cond.seen_else {
            self.diags.error(name.span, "#elif after #else");
        }
        // Only evaluated when no earlier branch was taken (and the region is live).
        let value = !cond.taken && cond.parent_active && self.eval_condition(name, &toks);
        if let Some(c) = self.frames.last_mut().and_then(|f| f.conds.last_mut()) {
            c.active = value;
            c.taken |= value;
        }
    }

    fn else_(&mut self, name: Token) {
        self.line_tokens();
        let Some(c) = self.frames.last_mut().and_then(|f| f.conds.last_mut()) else {
            self.diags.error(name.span, "#else without #if");
            return;
        };
        let repeated = c.seen_else;
        c.seen_else = true;
        c.active = c.parent_active && !c.taken;
        c.taken = true;
        if repeated {
            self.diags.error(name.span, "#else after #else");
        }
    }

    fn endif(&mut self, name: Token) {
        self.line_tokens();
        if self.frames.last_mut().and_then(|f| f.conds.pop()).is_none() {
            self.diags.error(name.span, "#endif without #if");
        }
    }

    fn define(&mut self) {
        let toks = self.line_tokens();
        let Some(&name) = toks.first() else {
            let span = self.eof_token().span;
            self.diags.error(span, "macro name missing");
            return;
        };
        if name.kind != TokenKind::Ident {
            self.diags.error(name.span, "macro name must be an identifier");
            return;
        }
        if name.sym == self.names.defined {
            self.diags.error(name.span, "'defined' cannot be used as a macro name");
            return;
        }
        let mut rest = &toks[1..];
        let mut params = None;
        let mut variadic = false;
        // A function-like macro has its `(` right after the name.
        if rest.first().is_some_and(|t| t.is_punct(Punct::LParen) && !t.space_before()) {
            let mut list = Vec::new();
            let mut i = 1;
            let mut closed = false;
            while let Some(t) = rest.get(i) {
                i += 1;
                match t.kind {
                    TokenKind::Ident => list.push(t.sym),
                    TokenKind::Punct(Punct::Ellipsis) => variadic = true,
                    TokenKind::Punct(Punct::Comma) => {}
                    TokenKind::Punct(Punct::RParen) => {
                        closed = true;
                        break;
                    }
                    _ => {
                        self.diags.error(t.span, "invalid token in macro parameter list");
                        return;
                    }
                }
            }
            if !closed {
                self.diags.error(name.span, "missing ')' in macro parameter list");
                return;
            }
            rest = &rest[i..];
            params = Some(list);
        }
        let mut body = rest.to_vec();
        if let Some(first) = body.first_mut() {
            first.flags &= !SPACE_BEFORE;
        }
        let mac = Macro { params, variadic, body };
        if let Some(old) = self.macros.get(&name.sym) {
            if !same_definition(old, &mac) {
                let spelled = self.interner.get(name.sym).to_string();
                self.diags.warning(name.span, "macro-redefined", format!("'{spelled}' macro redefined"));
            }
        }
        self.macros.insert(name.sym, Rc::new(mac));
    }

    fn include(&mut self, directive: Token) {
        let (line_start, at_start) = self.frames.last().map_or((0, false), |f| (f.pos, f.at_line_start));
        let toks = self.line_tokens();
        // `<name>` is spelled from the raw text between the angle brackets.
        let (target, angled) = match toks.first() {
            Some(t) if t.kind == TokenKind::String => {
                let s = self.interner.get(t.sym);
                (s[1..s.len() - 1].to_string(), false)
            }
            Some(t) if t.is_punct(Punct::Lt) => {
                let Some(close) = toks.iter().position(|t| t.is_punct(Punct::Gt)) else {
                    self.diags.error(t.span, "expected '>'");
                    return;
                };
                let text = self.sources.text(t.span.file);
                let inner = text.get(t.span.end as usize..toks[close].span.start as usize).unwrap_or("");
                (inner.trim().to_string(), true)
            }
            Some(_) => {
                // A macro that expands to the file name.
                let expanded = self.expand_list(&toks);
                match expanded.first() {
                    Some(t) if t.kind == TokenKind::String => {
                        let s = self.interner.get(t.sym);
                        (s[1..s.len() - 1].to_string(), false)
                    }
                    _ => {
                        self.diags.error(directive.span, "expected \"FILENAME\" or <FILENAME>");
                        return;
                    }
                }
            }
            None => {
                self.diags.error(directive.span, "expected \"FILENAME\" or <FILENAME>");
                return;
            }
        };
        let _ = (line_start, at_start);
        let span = toks.first().map_or(directive.span, |f| f.span.to(toks.last().map_or(f.span, |l| l.span)));
        if self.frames.len() > MAX_INCLUDE_DEPTH {
            self.fatal_error(span, "#include nested too deeply");
            return;
        }
        let Some((path, text)) = self.find_include(&target, angled) else {
            // clang's fatal error: nothing is reported after it.
            self.diags.fatal(span, format!("'{target}' file not found"));
            return;
        };
        let identity = self.loader.identity(&path);
        if self.once_files.contains(&identity) {
            return;
        }
        let name = path.display().to_string();
        let id = self.sources.add(name, Some(path), text);
        self.push_file(id);
    }

    fn find_include(&mut self, target: &str, angled: bool) -> Option<(PathBuf, String)> {
        let current_dir = self
            .frames
            .last()
            .and_then(|f| self.sources.path(f.file))
            .and_then(|p| p.parent())
            .map(|p| p.to_path_buf());
        // dxc hands include names to its file system in the host's separator style, so
        // `#include "util\\Compat.h"`, written on Windows, resolves on other hosts too.
        let native =
            if std::path::MAIN_SEPARATOR == '/' { target.replace('\\', "/") } else { target.to_string() };
        let target_path = Path::new(&native);
        let mut candidates = Vec::new();
        if target_path.is_absolute() {
            candidates.push(target_path.to_path_buf());
        } else {
            if !angled {
                candidates.push(current_dir.clone().unwrap_or_default().join(target_path));
            }
            for dir in &self.include_dirs {
                candidates.push(dir.join(target_path));
            }
            if angled {
                candidates.push(current_dir.unwrap_or_default().join(target_path));
            }
        }
        candidates.into_iter().find_map(|p| self.loader.load(&p).ok().map(|text| (p, text)))
    }

    fn line_directive(&mut self, name: Token) {
        let toks = self.line_tokens();
        let Some(number) = toks.first().filter(|t| t.kind == TokenKind::Number) else {
            self.diags.error(name.span, "#line directive requires a positive integer argument");
            return;
        };
        let Ok(line) = self.interner.get(number.sym).parse::<u32>() else {
            self.diags.error(number.span, "#line directive requires a simple digit sequence");
            return;
        };
        let file_name = toks.get(1).filter(|t| t.kind == TokenKind::String).map(|t| {
            let s = self.interner.get(t.sym);
            s[1..s.len() - 1].to_string()
        });
        if let Some(frame) = self.frames.last() {
            let (file, pos) = (frame.file, frame.pos as u32);
            // The override starts at the next line.
            let text = self.sources.text(file);
            let next_line = text[pos as usize..].find('\n').map_or(text.len(), |i| pos as usize + i + 1);
            self.sources.add_line_override(file, next_line as u32, line, file_name);
        }
    }

    fn pragma(&mut self, hash: Token) {
        let span = hash.span;
        let text = self.line_text();
        if text == "once" {
            if let Some(path) =
                self.frames.last().and_then(|f| self.sources.path(f.file)).map(|p| p.to_path_buf())
            {
                let identity = self.loader.identity(&path);
                self.once_files.insert(identity);
            }
            return;
        }
        self.pragmas.push(Pragma { span, text, token_index: self.output_len });
    }

    // ---- #if expressions ----

    fn eval_condition(&mut self, directive: Token, toks: &[Token]) -> bool {
        // `defined X` / `defined(X)` are resolved before expansion.
        let mut replaced = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            let t = toks[i];
            if t.kind == TokenKind::Ident && t.sym == self.names.defined {
                let (name, consumed) = match (toks.get(i + 1), toks.get(i + 2), toks.get(i + 3)) {
                    (Some(open), Some(n), Some(close))
                        if open.is_punct(Punct::LParen) && close.is_punct(Punct::RParen) =>
                    {
                        (Some(*n), 4)
                    }
                    (Some(n), _, _) if n.kind == TokenKind::Ident => (Some(*n), 2),
                    _ => (None, 1),
                };
                let Some(name) = name.filter(|n| n.kind == TokenKind::Ident) else {
                    self.diags.error(t.span, "macro name missing");
                    return false;
                };
                let value = if self.macros.contains_key(&name.sym)
                    || [self.names.line, self.names.file, self.names.counter].contains(&name.sym)
                {
                    "1"
                } else {
                    "0"
                };
                replaced.push(Token { kind: TokenKind::Number, sym: self.interner.intern(value), ..t });
                i += consumed;
                continue;
            }
            replaced.push(t);
            i += 1;
        }
        let expanded = self.expand_list(&replaced);
        if self.fatal {
            return false;
        }
        if expanded.is_empty() {
            self.diags.error(directive.span, "expected value in expression");
            return false;
        }
        let mut eval = CondEval { toks: &expanded, pos: 0, pp: self, depth: 0, end_span: directive.span };
        match eval.ternary() {
            Ok(v) => {
                if let Some(t) = eval.toks.get(eval.pos) {
                    let span = t.origin;
                    self.diags
                        .error(span, "token is not a valid binary operator in a preprocessor subexpression");
                    return false;
                }
                v.value != 0
            }
            Err((span, message)) => {
                self.diags.error(span, message);
                false
            }
        }
    }
}

fn same_definition(a: &Macro, b: &Macro) -> bool {
    a.params == b.params
        && a.variadic == b.variadic
        && a.body.len() == b.body.len()
        && a.body.iter().zip(&b.body).all(|(x, y)| x.sym == y.sym && x.space_before() == y.space_before())
}

/// `#arg`: the argument's spelling as a string literal.
fn stringify(interner: &Interner, toks: &[Token]) -> String {
    let mut s = String::from("\"");
    for (n, t) in toks.iter().enumerate() {
        if n > 0 && t.space_before() {
            s.push(' ');
        }
        let text = interner.get(t.sym);
        if matches!(t.kind, TokenKind::String | TokenKind::Char) {
            for c in text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(text);
        }
    }
    s.push('"');
    s
}

/// An `#if` value: 64-bit, signed unless a `u` suffix or unsigned operand made it so.
#[derive(Clone, Copy, Debug)]
struct PpValue {
    value: i64,
    unsigned: bool,
}

type EvalResult = Result<PpValue, (Span, String)>;

struct CondEval<'t, 'p, 'a> {
    toks: &'t [Token],
    pos: usize,
    pp: &'p mut Preprocessor<'a>,
    depth: usize,
    end_span: Span,
}

impl CondEval<'_, '_, '_> {
    fn peek_punct(&self) -> Option<Punct> {
        match self.toks.get(self.pos)?.kind {
            TokenKind::Punct(p) => Some(p),
            _ => None,
        }
    }

    fn span(&self) -> Span {
        self.toks.get(self.pos).map_or(self.end_span, |t| t.origin)
    }

    fn ternary(&mut self) -> EvalResult {
        self.depth += 1;
        if self.depth > MAX_EXPANSION_DEPTH {
            return Err((self.span(), "preprocessor expression nested too deeply".into()));
        }
        let cond = self.binary(0)?;
        let result = if self.peek_punct() == Some(Punct::Question) {
            self.pos += 1;
            let a = self.ternary()?;
            if self.peek_punct() != Some(Punct::Colon) {
                return Err((self.span(), "expected ':' in preprocessor expression".into()));
            }
            self.pos += 1;
            let b = self.ternary()?;
            let unsigned = a.unsigned || b.unsigned;
            PpValue { value: if cond.value != 0 { a.value } else { b.value }, unsigned }
        } else {
            cond
        };
        self.depth -= 1;
        Ok(result)
    }

    fn binary(&mut self, min_prec: u8) -> EvalResult {
        let mut lhs = self.unary()?;
        loop {
            let Some(op) = self.peek_punct() else { return Ok(lhs) };
            let Some(prec) = binary_precedence(op) else { return Ok(lhs) };
            if prec < min_prec {
                return Ok(lhs);
            }
            let op_span = self.span();
            self.pos += 1;
            let rhs = self.binary(prec + 1)?;
            lhs = apply_binary(op, lhs, rhs)
                .ok_or((op_span, "division by zero in preprocessor expression".into()))?;
        }
    }

    fn unary(&mut self) -> EvalResult {
        let Some(&tok) = self.toks.get(self.pos) else {
            return Err((self.end_span, "expected value in expression".into()));
        };
        self.pos += 1;
        match tok.kind {
            TokenKind::Number => parse_pp_number(self.pp.interner.get(tok.sym))
                .ok_or((tok.origin, "invalid integer constant in preprocessor expression".into())),
            TokenKind::Char => {
                let text = self.pp.interner.get(tok.sym);
                let value = text.chars().nth(1).map_or(0, |c| c as i64);
                Ok(PpValue { value, unsigned: false })
            }
            TokenKind::Ident => {
                let value = i64::from(tok.sym == self.pp.names.true_);
                let _ = self.pp.names.false_;
                Ok(PpValue { value, unsigned: false })
            }
            TokenKind::Punct(Punct::LParen) => {
                let v = self.ternary()?;
                if self.peek_punct() != Some(Punct::RParen) {
                    return Err((self.span(), "missing ')' in expression".into()));
                }
                self.pos += 1;
                Ok(v)
            }
            TokenKind::Punct(p @ (Punct::Minus | Punct::Plus | Punct::Tilde | Punct::Bang)) => {
                self.depth += 1;
                if self.depth > MAX_EXPANSION_DEPTH {
                    return Err((tok.origin, "preprocessor expression nested too deeply".into()));
                }
                let v = self.unary()?;
                self.depth -= 1;
                Ok(match p {
                    Punct::Minus => PpValue { value: v.value.wrapping_neg(), ..v },
                    Punct::Tilde => PpValue { value: !v.value, ..v },
                    Punct::Bang => PpValue { value: i64::from(v.value == 0), unsigned: false },
                    _ => v,
                })
            }
            _ => Err((tok.origin, "invalid token at start of a preprocessor expression".into())),
        }
    }
}

fn binary_precedence(op: Punct) -> Option<u8> {
    Some(match op {
        Punct::PipePipe => 1,
        Punct::AmpAmp => 2,
        Punct::Pipe => 3,
        Punct::Caret => 4,
        Punct::Amp => 5,
        Punct::EqEq | Punct::Ne => 6,
        Punct::Lt | Punct::Gt | Punct::Le | Punct::Ge => 7,
        Punct::Shl | Punct::Shr => 8,
        Punct::Plus | Punct::Minus => 9,
        Punct::Star | Punct::Slash | Punct::Percent => 10,
        _ => return None,
    })
}

/// `None` on division by zero.
fn apply_binary(op: Punct, a: PpValue, b: PpValue) -> Option<PpValue> {
    let unsigned = a.unsigned || b.unsigned;
    let (x, y) = (a.value, b.value);
    let (ux, uy) = (x as u64, y as u64);
    let bool_value = |v: bool| PpValue { value: i64::from(v), unsigned: false };
    let arith = |v: i64| PpValue { value: v, unsigned };
    Some(match op {
        Punct::PipePipe => bool_value(x != 0 || y != 0),
        Punct::AmpAmp => bool_value(x != 0 && y != 0),
        Punct::Pipe => arith(x | y),
        Punct::Caret => arith(x ^ y),
        Punct::Amp => arith(x & y),
        Punct::EqEq => bool_value(x == y),
        Punct::Ne => bool_value(x != y),
        Punct::Lt => bool_value(if unsigned { ux < uy } else { x < y }),
        Punct::Gt => bool_value(if unsigned { ux > uy } else { x > y }),
        Punct::Le => bool_value(if unsigned { ux <= uy } else { x <= y }),
        Punct::Ge => bool_value(if unsigned { ux >= uy } else { x >= y }),
        Punct::Shl => PpValue { value: x.wrapping_shl((y & 63) as u32), unsigned: a.unsigned },
        Punct::Shr if a.unsigned => PpValue { value: (ux >> (y & 63)) as i64, unsigned: true },
        Punct::Shr => PpValue { value: x.wrapping_shr((y & 63) as u32), unsigned: false },
        Punct::Plus => arith(x.wrapping_add(y)),
        Punct::Minus => arith(x.wrapping_sub(y)),
        Punct::Star => arith(x.wrapping_mul(y)),
        Punct::Slash | Punct::Percent if y == 0 => return None,
        Punct::Slash if unsigned => arith((ux / uy) as i64),
        Punct::Slash => arith(x.wrapping_div(y)),
        Punct::Percent if unsigned => arith((ux % uy) as i64),
        Punct::Percent => arith(x.wrapping_rem(y)),
        _ => return None,
    })
}

/// An integer literal in an `#if`: decimal, `0x`, `0b` or octal, with `u`/`l` suffixes.
fn parse_pp_number(text: &str) -> Option<PpValue> {
    let lower = text.to_ascii_lowercase();
    let digits_end = lower.trim_end_matches(['u', 'l']).len();
    let (digits, suffix) = lower.split_at(digits_end);
    let value = if let Some(hex) = digits.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).ok()?
    } else if let Some(bin) = digits.strip_prefix("0b") {
        u64::from_str_radix(bin, 2).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse::<u64>().ok()?
    };
    Some(PpValue { value: value as i64, unsigned: suffix.contains('u') || value > i64::MAX as u64 })
}

/// The preprocessed tokens as text (`-P`): one output line per source line.
pub fn render_tokens(tokens: &[Token], interner: &Interner, sources: &SourceMap) -> String {
    let mut out = String::new();
    let mut last_line: Option<(FileId, u32)> = None;
    for tok in tokens.iter().filter(|t| t.kind != TokenKind::Eof) {
        let line = (tok.origin.file, sources.line_col(tok.origin).line);
        match last_line {
            Some(prev) if prev == line && tok.space_before() => out.push(' '),
            Some(prev) if prev == line => {}
            Some(_) => out.push('\n'),
            None => {}
        }
        last_line = Some(line);
        out.push_str(interner.get(tok.sym));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(text: &str, files: &[(&str, &str)], options: &PreprocessOptions) -> (String, String) {
        let mut sources = SourceMap::new();
        let mut interner = Interner::new();
        let mut diags = Diagnostics::default();
        let main = sources.add("main.hlsl", Some(PathBuf::from("/src/main.hlsl")), text.to_string());
        let mut loader = MemoryLoader::default();
        for (path, body) in files {
            loader.files.insert(PathBuf::from(path), body.to_string());
        }
        let out = preprocess(main, &mut sources, &mut interner, &mut diags, options, &loader);
        let spelled: Vec<&str> =
            out.tokens.iter().filter(|t| t.kind != TokenKind::Eof).map(|t| interner.get(t.sym)).collect();
        (spelled.join(" "), diags.render(&sources))
    }

    fn run(text: &str) -> String {
        let (out, diags) = run_with(text, &[], &PreprocessOptions::default());
        assert!(diags.is_empty(), "unexpected diagnostics:\n{diags}");
        out
    }

    fn run_err(text: &str) -> String {
        run_with(text, &[], &PreprocessOptions::default()).1
    }

    #[test]
    fn object_and_function_like_macros() {
        assert_eq!(run("#define N 4\nfloat a[N];"), "float a [ 4 ] ;");
        assert_eq!(
            run("#define MAX(a, b) ((a) > (b) ? (a) : (b))\nMAX(1, f(2,3))"),
            "( ( 1 ) > ( f ( 2 , 3 ) ) ? ( 1 ) : ( f ( 2 , 3 ) ) )"
        );
        assert_eq!(run("#define F(x) x\nF"), "F");
        assert_eq!(run("#define F() 7\nF()"), "7");
    }

    #[test]
    fn stringify_and_paste() {
        assert_eq!(run("#define S(x) #x\nS(a  +  \"b\")"), r#""a + \"b\"""#);
        assert_eq!(run("#define CAT(a, b) a ## b\nCAT(float, 4) CAT(x, ) CAT(,y)"), "float4 x y");
        assert_eq!(run("#define V(n) float##n\nV(3)"), "float3");
    }

    #[test]
    fn variadic_macros() {
        assert_eq!(run("#define CALL(f, ...) f(__VA_ARGS__)\nCALL(g, 1, 2) CALL(h)"), "g ( 1 , 2 ) h ( )");
    }

    #[test]
    fn recursion_is_painted_blue() {
        assert_eq!(run("#define A A B\nA"), "A B");
        assert_eq!(run("#define f(x) g(x)\n#define g(x) f(x)\nf(1)"), "f ( 1 )");
    }

    #[test]
    fn arguments_are_pre_expanded() {
        assert_eq!(run("#define ONE 1\n#define ID(x) x\n#define S(x) #x\nID(ONE) S(ONE)"), "1 \"ONE\"");
    }

    #[test]
    fn conditionals() {
        let text = "#if 1 + 2 * 3 == 7 && defined(X) == 0\na\n#elif 1\nb\n#else\nc\n#endif\n\
                    #ifdef X\nd\n#else\ne\n#endif\n#ifndef X\nf\n#endif";
        assert_eq!(run(text), "a e f");
        assert_eq!(run("#if 0\n#if 1\nx\n#else\ny\n#endif\n#elif -1 < 0u\nz\n#else\nw\n#endif"), "w");
        assert_eq!(
            run("#define V 2\n#if V >= 2 ? 1 : 0\nok\n#endif\n#if (1 << 3) % 5 == 3\nok2\n#endif"),
            "ok ok2"
        );
        assert_eq!(run("#if 0\n don't ' stop\n#endif\nx"), "x");
    }

    #[test]
    fn conditional_errors() {
        assert!(run_err("#if 1 / 0\n#endif").contains("division by zero"));
        assert!(run_err("#if 1\nx").contains("unterminated conditional directive"));
        assert!(run_err("#endif").contains("#endif without #if"));
        assert!(run_err("#if (1\n#endif").contains("missing ')'"));
        assert!(run_err("#if\n#endif").contains("expected value in expression"));
    }

    #[test]
    fn includes_with_guards_and_pragma_once() {
        let files = [
            ("/src/a.hlsli", "#pragma once\nint a;\n"),
            ("/src/b.hlsli", "#ifndef B\n#define B\nint b;\n#endif\n"),
            ("/inc/c.hlsli", "int c;"),
        ];
        let options = PreprocessOptions { include_dirs: vec![PathBuf::from("/inc")], ..Default::default() };
        let text = "#include \"a.hlsli\"\n#include \"a.hlsli\"\n#include \"b.hlsli\"\n#include \"b.hlsli\"\n#include <c.hlsli>\n";
        let (out, diags) = run_with(text, &files, &options);
        assert_eq!(diags, "");
        assert_eq!(out, "int a ; int b ; int c ;");
        let (_, diags) = run_with("#include \"missing.h\"\n", &files, &options);
        assert!(diags.contains("main.hlsl:1:10: fatal error: 'missing.h' file not found"), "{diags}");
    }

    #[test]
    fn recursive_include_is_bounded() {
        let files = [("/src/self.h", "#include \"self.h\"\n")];
        let (_, diags) = run_with("#include \"self.h\"\n", &files, &PreprocessOptions::default());
        assert!(diags.contains("#include nested too deeply"), "{diags}");
    }

    #[test]
    fn predefined_and_command_line_macros() {
        let options = PreprocessOptions {
            predefined: vec![("__HLSL_VERSION".into(), "2021".into())],
            defines: vec![("FOO".into(), None), ("BAR".into(), Some("x+1".into()))],
            ..Default::default()
        };
        let (out, _) = run_with("__HLSL_VERSION FOO BAR", &[], &options);
        assert_eq!(out, "2021 1 x + 1");
    }

    #[test]
    fn error_warning_and_pragmas() {
        let diags = run_err("#error stop here\n#warning careful\n");
        assert!(diags.contains("main.hlsl:1:1: error: stop here"), "{diags}");
        assert!(diags.contains("warning: careful [-W#warnings]"), "{diags}");
        let mut sources = SourceMap::new();
        let mut interner = Interner::new();
        let mut d = Diagnostics::default();
        let main = sources.add("m", None, "int a;\n#pragma pack_matrix(row_major)\nint b;".into());
        let out = preprocess(
            main,
            &mut sources,
            &mut interner,
            &mut d,
            &PreprocessOptions::default(),
            &MemoryLoader::default(),
        );
        assert_eq!(out.pragmas.len(), 1);
        assert_eq!(out.pragmas[0].text, "pack_matrix(row_major)");
        assert_eq!(out.pragmas[0].token_index, 3);
    }

    #[test]
    fn expansion_bombs_are_stopped() {
        let mut text = String::from("#define A0 x x\n");
        for i in 1..40 {
            text.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
        }
        text.push_str("A39\n");
        assert!(run_err(&text).contains("limit exceeded") || run_err(&text).contains("too large"));
        let deep = format!("#define F(x) x\n{}1{}", "F(".repeat(1000), ")".repeat(1000));
        assert!(run_err(&deep).contains("nested too deeply"));
        let deep_if = format!("#if {}1{}\n#endif", "(".repeat(5000), ")".repeat(5000));
        assert!(run_err(&deep_if).contains("nested too deeply"));
    }

    #[test]
    fn line_and_file_macros_and_line_directive() {
        assert_eq!(run("a\n__LINE__"), "a 2");
        let diags = run_err("#line 100 \"other.hlsl\"\n#error here");
        assert!(diags.contains("other.hlsl:100:1: error: here"), "{diags}");
    }

    #[test]
    fn renders_preprocessed_text() {
        let mut sources = SourceMap::new();
        let mut interner = Interner::new();
        let mut d = Diagnostics::default();
        let main = sources.add("m", None, "#define VER 1 0\nSPIR-V version VER\nnext  line".into());
        let out = preprocess(
            main,
            &mut sources,
            &mut interner,
            &mut d,
            &PreprocessOptions::default(),
            &MemoryLoader::default(),
        );
        assert_eq!(render_tokens(&out.tokens, &interner, &sources), "SPIR-V version 1 0\nnext line\n");
    }
}
