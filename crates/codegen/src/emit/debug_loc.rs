//! Source locations on ops for dxc's line information (`-fspv-debug=line`, `-Zi`).
//!
//! The emitter keeps the location ops get now (`Emitter::loc`); expressions and
//! statements set it around what they emit, at the place dxc (clang) gives the
//! construct: an operator's token for unary, binary and assignment operators, the
//! member's name for member accesses and method calls, the `(` of a constructor,
//! the start of the rest. The serializer turns the locations into `OpLine`s
//! (`SerializeOptions::dxc_debug_lines`). Without `debug_lines` nothing is looked up
//! and every op keeps `Location::Unknown`.

use super::Emitter;
use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_hlsl::ast::{ExprId, ExprKind, UnaryOp};
use spirvkit_hlsl::source::{FileId, SourceMap, Span};
use spirvkit_ir::ir::{Location, OpId};
use std::sync::Arc;

/// The files of the compilation and one shared name per file as locations use it.
pub(crate) struct LineTable<'t> {
    sources: &'t SourceMap,
    names: FxHashMap<String, Arc<str>>,
}

impl<'t> LineTable<'t> {
    pub fn new(sources: &'t SourceMap) -> LineTable<'t> {
        LineTable { sources, names: FxHashMap::default() }
    }

    /// `file:line:col` of a byte offset, as clang presumes it (honouring `#line`).
    fn at(&mut self, file: FileId, offset: u32) -> Location {
        let Some(f) = self.sources.file(file) else { return Location::Unknown };
        let (name, lc) = f.presumed(offset);
        let file = match self.names.get(name) {
            Some(shared) => shared.clone(),
            None => {
                let shared: Arc<str> = name.into();
                self.names.insert(name.to_string(), shared.clone());
                shared
            }
        };
        Location::FileLineCol { file, line: lc.line, column: lc.col }
    }

    fn text(&self, file: FileId) -> &'t [u8] {
        self.sources.text(file).as_bytes()
    }
}

/// `location` under the name location `name`, keeping a file location it has.
pub(crate) fn renamed(location: Location, name: String) -> Location {
    let child = match location {
        Location::Name { child, .. } => child.map_or(Location::Unknown, |c| *c),
        other => other,
    };
    Location::named_at(name, child)
}

/// The offset of the first token at or after `at` (whitespace and comments skipped).
pub(crate) fn token_after(text: &[u8], mut at: usize) -> usize {
    loop {
        while text.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
            at += 1;
        }
        match (text.get(at), text.get(at + 1)) {
            (Some(b'/'), Some(b'/')) => {
                while text.get(at).is_some_and(|&b| b != b'\n') {
                    at += 1;
                }
            }
            (Some(b'/'), Some(b'*')) => {
                at += 2;
                while at < text.len() && !(text[at] == b'*' && text.get(at + 1) == Some(&b'/')) {
                    at += 1;
                }
                at = (at + 2).min(text.len());
            }
            _ => return at,
        }
    }
}

/// The offset where the last token of `span` starts (clang's end location).
pub(crate) fn last_token_start(text: &[u8], span: Span) -> usize {
    let (start, end) = (span.start as usize, (span.end as usize).min(text.len()));
    if end <= start {
        return start;
    }
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
    let mut at = end - 1;
    if word(text[at]) {
        while at > start && word(text[at - 1]) {
            at -= 1;
        }
    } else if at > start && matches!((text[at - 1], text[at]), (b'+', b'+') | (b'-', b'-')) {
        at -= 1;
    }
    at
}

impl Emitter<'_> {
    /// Whether ops carry source locations.
    pub fn has_lines(&self) -> bool {
        self.lines.is_some()
    }

    /// Gives `op` the current location.
    pub fn locate(&mut self, op: OpId) {
        if self.lines.is_some() && self.loc != Location::Unknown {
            let at = &mut self.ir.op_mut(op).location;
            *at = match std::mem::take(at) {
                Location::Name { name, .. } => Location::named_at(name, self.loc.clone()),
                _ => self.loc.clone(),
            };
        }
    }

    /// The location of byte `offset` of `file` (unknown without `debug_lines`).
    pub fn location_at(&mut self, file: FileId, offset: usize) -> Location {
        match self.lines.as_mut() {
            Some(lines) => lines.at(file, offset as u32),
            None => Location::Unknown,
        }
    }

    /// Makes the start of `span` the current location; returns the one before.
    pub fn locate_at_start(&mut self, span: Span) -> Location {
        let loc = self.location_at(span.file, span.start as usize);
        std::mem::replace(&mut self.loc, loc)
    }

    /// Makes the last character of `span` (a block's `}`) the current location.
    pub fn locate_at_last_char(&mut self, span: Span) -> Location {
        let loc = self.location_at(span.file, span.end.saturating_sub(1).max(span.start) as usize);
        std::mem::replace(&mut self.loc, loc)
    }

    /// Makes the start of the last token of `span` the current location.
    pub fn locate_at_last_token(&mut self, span: Span) -> Location {
        let Some(lines) = self.lines.as_ref() else { return std::mem::take(&mut self.loc) };
        let at = last_token_start(lines.text(span.file), span);
        let loc = self.location_at(span.file, at);
        std::mem::replace(&mut self.loc, loc)
    }

    /// Makes the first token after `span` (skipping whitespace and comments) the
    /// current location (a `do`-`while`'s `)`).
    pub fn locate_after(&mut self, span: Span) -> Location {
        let Some(lines) = self.lines.as_ref() else { return std::mem::take(&mut self.loc) };
        let at = token_after(lines.text(span.file), span.end as usize);
        let loc = self.location_at(span.file, at);
        std::mem::replace(&mut self.loc, loc)
    }

    /// Runs `f` at the location of expression `e` (what it emits after evaluating
    /// `e`, such as the load of an object, is at `e`).
    pub fn at_expr<T>(&mut self, e: ExprId, f: impl FnOnce(&mut Self) -> T) -> T {
        if self.lines.is_none() {
            return f(self);
        }
        let loc = self.expr_location(e);
        let saved = std::mem::replace(&mut self.loc, loc);
        let result = f(self);
        self.loc = saved;
        result
    }

    /// Where clang puts expression `e` (`Expr::getExprLoc`): an operator's token, a
    /// member's name, a constructor's `(`, else the expression's start.
    pub fn expr_location(&mut self, e: ExprId) -> Location {
        let Some(lines) = self.lines.as_ref() else { return Location::Unknown };
        let expr = self.ast.expr(e);
        let file = expr.span.file;
        let text = lines.text(file);
        let after = |operand: ExprId| token_after(text, self.ast.expr(operand).span.end as usize);
        let offset = match &expr.kind {
            ExprKind::Binary { lhs, .. } | ExprKind::Assign { lhs, .. } => after(*lhs),
            ExprKind::Conditional { condition, .. } => after(*condition),
            ExprKind::Unary { op: UnaryOp::PostInc | UnaryOp::PostDec, operand } => after(*operand),
            ExprKind::Member { member, .. } => member.span.start as usize,
            ExprKind::Call { callee, .. } => match &self.ast.expr(*callee).kind {
                ExprKind::Member { member, .. } => member.span.start as usize,
                _ => self.ast.expr(*callee).span.start as usize,
            },
            ExprKind::Construct { .. } => {
                // The `(` after the type's name (clang's init list location).
                let start = expr.span.start as usize;
                let end = (expr.span.end as usize).min(text.len());
                text.get(start..end)
                    .and_then(|t| t.iter().position(|&b| b == b'('))
                    .map_or(start, |i| start + i)
            }
            _ => expr.span.start as usize,
        };
        self.location_at(file, offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_found_past_whitespace_and_comments() {
        let text = b"a /* x */ + // y\n b";
        assert_eq!(token_after(text, 1), 10);
        assert_eq!(token_after(text, 11), 18);
        assert_eq!(token_after(b"a /* open", 1), 9);
        let file = FileId(0);
        assert_eq!(last_token_start(b"i < 2.7", Span::new(file, 0, 7)), 4);
        assert_eq!(last_token_start(b"f(a)", Span::new(file, 0, 4)), 3);
        assert_eq!(last_token_start(b"i++", Span::new(file, 0, 3)), 1);
        assert_eq!(last_token_start(b"", Span::new(file, 0, 0)), 0);
    }

    #[test]
    fn a_name_keeps_the_file_location_it_qualifies() {
        let at = Location::FileLineCol { file: "a.hlsl".into(), line: 2, column: 3 };
        let named = renamed(at.clone(), "x".into());
        assert_eq!(named.file_line_col(), Some(("a.hlsl", 2, 3)));
        assert_eq!(renamed(named, "y".into()).debug_name(), Some("y"));
        assert_eq!(renamed(Location::named("z"), "w".into()), Location::named("w"));
    }
}
