//! Expressions: precedence climbing for binary operators, casts and constructors
//! told apart from calls and parentheses by the type-name table.

use super::{Kw, NameKind, Parser};
use crate::ast::{BinaryOp, ExprId, ExprKind, Ident, QualifiedName, TemplateArg, UnaryOp};
use crate::lexer::{Punct, TokenKind};
use crate::source::Span;

fn binary_op(p: Punct) -> Option<(BinaryOp, u8)> {
    Some(match p {
        Punct::PipePipe => (BinaryOp::LogicalOr, 1),
        Punct::AmpAmp => (BinaryOp::LogicalAnd, 2),
        Punct::Pipe => (BinaryOp::BitOr, 3),
        Punct::Caret => (BinaryOp::BitXor, 4),
        Punct::Amp => (BinaryOp::BitAnd, 5),
        Punct::EqEq => (BinaryOp::Eq, 6),
        Punct::Ne => (BinaryOp::Ne, 6),
        Punct::Lt => (BinaryOp::Lt, 7),
        Punct::Gt => (BinaryOp::Gt, 7),
        Punct::Le => (BinaryOp::Le, 7),
        Punct::Ge => (BinaryOp::Ge, 7),
        Punct::Shl => (BinaryOp::Shl, 8),
        Punct::Shr => (BinaryOp::Shr, 8),
        Punct::Plus => (BinaryOp::Add, 9),
        Punct::Minus => (BinaryOp::Sub, 9),
        Punct::Star => (BinaryOp::Mul, 10),
        Punct::Slash => (BinaryOp::Div, 10),
        Punct::Percent => (BinaryOp::Rem, 10),
        _ => return None,
    })
}

fn assign_op(p: Punct) -> Option<Option<BinaryOp>> {
    Some(match p {
        Punct::Eq => None,
        Punct::PlusEq => Some(BinaryOp::Add),
        Punct::MinusEq => Some(BinaryOp::Sub),
        Punct::StarEq => Some(BinaryOp::Mul),
        Punct::SlashEq => Some(BinaryOp::Div),
        Punct::PercentEq => Some(BinaryOp::Rem),
        Punct::AmpEq => Some(BinaryOp::BitAnd),
        Punct::PipeEq => Some(BinaryOp::BitOr),
        Punct::CaretEq => Some(BinaryOp::BitXor),
        Punct::ShlEq => Some(BinaryOp::Shl),
        Punct::ShrEq => Some(BinaryOp::Shr),
        _ => return None,
    })
}

impl Parser<'_> {
    pub(crate) fn make_expr(&mut self, kind: ExprKind, span: Span) -> ExprId {
        let id = self.ast.add_expr(kind, span);
        let height = self.ast.expr(id).height;
        self.check_height(height, span);
        id
    }

    pub(crate) fn error_expr(&mut self, span: Span) -> ExprId {
        self.make_expr(ExprKind::Error, span)
    }

    /// `expression`: assignments separated by commas.
    pub(crate) fn parse_expr(&mut self) -> ExprId {
        let start = self.peek().origin;
        let mut lhs = self.parse_assign();
        while self.at(Punct::Comma) {
            self.bump();
            let rhs = self.parse_assign();
            lhs = self.make_expr(ExprKind::Binary { op: BinaryOp::Comma, lhs, rhs }, self.span_from(start));
        }
        lhs
    }

    /// `assignment-expression`.
    pub(crate) fn parse_assign(&mut self) -> ExprId {
        let start = self.peek().origin;
        if !self.enter() {
            return self.error_expr(start);
        }
        let lhs = self.parse_conditional();
        let result = match self.peek().kind {
            TokenKind::Punct(p) if !(self.no_greater && p == Punct::ShrEq) => match assign_op(p) {
                Some(op) => {
                    self.bump();
                    let rhs = self.parse_assign();
                    self.make_expr(ExprKind::Assign { op, lhs, rhs }, self.span_from(start))
                }
                None => lhs,
            },
            _ => lhs,
        };
        self.leave();
        result
    }

    fn parse_conditional(&mut self) -> ExprId {
        let start = self.peek().origin;
        let condition = self.parse_binary(1);
        if !self.at(Punct::Question) {
            return condition;
        }
        self.bump();
        let saved = std::mem::replace(&mut self.no_greater, false);
        let then_value = self.parse_expr();
        self.no_greater = saved;
        if !self.expect(Punct::Colon, Some("expected ':'")) {
            return self.error_expr(self.span_from(start));
        }
        let else_value = self.parse_assign();
        self.make_expr(ExprKind::Conditional { condition, then_value, else_value }, self.span_from(start))
    }

    fn parse_binary(&mut self, min_prec: u8) -> ExprId {
        let start = self.peek().origin;
        let mut lhs = self.parse_unary();
        loop {
            let TokenKind::Punct(p) = self.peek().kind else { return lhs };
            if self.no_greater && matches!(p, Punct::Gt | Punct::Shr) {
                return lhs;
            }
            let Some((op, prec)) = binary_op(p) else { return lhs };
            if prec < min_prec {
                return lhs;
            }
            self.bump();
            if !self.enter() {
                return lhs;
            }
            let rhs = self.parse_binary(prec + 1);
            self.leave();
            lhs = self.make_expr(ExprKind::Binary { op, lhs, rhs }, self.span_from(start));
        }
    }

    fn parse_unary(&mut self) -> ExprId {
        let tok = self.peek();
        let op = match tok.kind {
            TokenKind::Punct(Punct::Plus) => Some(UnaryOp::Plus),
            TokenKind::Punct(Punct::Minus) => Some(UnaryOp::Minus),
            TokenKind::Punct(Punct::Bang) => Some(UnaryOp::Not),
            TokenKind::Punct(Punct::Tilde) => Some(UnaryOp::BitNot),
            TokenKind::Punct(Punct::PlusPlus) => Some(UnaryOp::PreInc),
            TokenKind::Punct(Punct::MinusMinus) => Some(UnaryOp::PreDec),
            _ => None,
        };
        if let Some(op) = op {
            self.bump();
            if !self.enter() {
                return self.error_expr(tok.origin);
            }
            let operand = self.parse_unary();
            self.leave();
            return self.make_expr(ExprKind::Unary { op, operand }, self.span_from(tok.origin));
        }
        if tok.is_punct(Punct::LParen) {
            if let Some(ty) = self.speculate(|p| {
                p.bump();
                let ty = p.parse_type()?;
                let ty = p.parse_abstract_array_suffix(ty);
                p.eat(Punct::RParen).then_some(ty)
            }) {
                if self.starts_unary_operand() {
                    if !self.enter() {
                        return self.error_expr(tok.origin);
                    }
                    let operand = self.parse_unary();
                    self.leave();
                    return self.make_expr(ExprKind::Cast { ty, operand }, self.span_from(tok.origin));
                }
                let span = self.error_span();
                self.error(span, "expected expression");
                return self.error_expr(self.span_from(tok.origin));
            }
        }
        if self.kw_of(tok) == Some(Kw::Sizeof) {
            self.bump();
            if self.at(Punct::LParen) {
                if let Some(ty) = self.speculate(|p| {
                    p.bump();
                    let ty = p.parse_type()?;
                    let ty = p.parse_abstract_array_suffix(ty);
                    p.eat(Punct::RParen).then_some(ty)
                }) {
                    return self.make_expr(ExprKind::SizeOfType(ty), self.span_from(tok.origin));
                }
            }
            if !self.enter() {
                return self.error_expr(tok.origin);
            }
            let operand = self.parse_unary();
            self.leave();
            return self.make_expr(ExprKind::SizeOfExpr(operand), self.span_from(tok.origin));
        }
        let primary = self.parse_primary();
        self.parse_postfix(primary, tok.origin)
    }

    /// Whether the current token can start the operand of a cast.
    fn starts_unary_operand(&self) -> bool {
        let tok = self.peek();
        match tok.kind {
            TokenKind::Ident | TokenKind::Number | TokenKind::String | TokenKind::Char => true,
            TokenKind::Punct(p) => matches!(
                p,
                Punct::LParen
                    | Punct::Plus
                    | Punct::Minus
                    | Punct::Bang
                    | Punct::Tilde
                    | Punct::PlusPlus
                    | Punct::MinusMinus
                    | Punct::ColonColon
                    | Punct::LBrace
            ),
            _ => false,
        }
    }

    fn parse_postfix(&mut self, mut expr: ExprId, start: Span) -> ExprId {
        loop {
            let tok = self.peek();
            match tok.kind {
                TokenKind::Punct(Punct::LBracket) => {
                    self.bump();
                    let saved = std::mem::replace(&mut self.no_greater, false);
                    let index = self.parse_expr();
                    self.no_greater = saved;
                    self.expect_closing(Punct::RBracket, tok);
                    expr = self.make_expr(ExprKind::Index { base: expr, index }, self.span_from(start));
                }
                TokenKind::Punct(Punct::LParen) => {
                    let args = self.parse_call_args();
                    expr = self.make_expr(ExprKind::Call { callee: expr, args }, self.span_from(start));
                }
                TokenKind::Punct(Punct::Dot | Punct::Arrow) => {
                    self.bump();
                    let name = self.peek();
                    if name.kind != TokenKind::Ident {
                        let span = self.error_span();
                        self.error(span, "expected unqualified-id");
                        return self.error_expr(self.span_from(start));
                    }
                    self.bump();
                    let member = Ident { name: name.sym, span: name.origin };
                    let template_args =
                        if self.at(Punct::Lt) { self.try_call_template_args(false) } else { None };
                    expr = self.make_expr(
                        ExprKind::Member { base: expr, member, template_args },
                        self.span_from(start),
                    );
                }
                TokenKind::Punct(Punct::PlusPlus) => {
                    self.bump();
                    expr = self.make_expr(
                        ExprKind::Unary { op: UnaryOp::PostInc, operand: expr },
                        self.span_from(start),
                    );
                }
                TokenKind::Punct(Punct::MinusMinus) => {
                    self.bump();
                    expr = self.make_expr(
                        ExprKind::Unary { op: UnaryOp::PostDec, operand: expr },
                        self.span_from(start),
                    );
                }
                _ => return expr,
            }
            if self.fatal {
                return expr;
            }
        }
    }

    /// `( args )`, the current token being the `(`.
    pub(crate) fn parse_call_args(&mut self) -> Vec<crate::ast::ExprId> {
        let open = self.bump();
        let saved = std::mem::replace(&mut self.no_greater, false);
        let mut args = Vec::new();
        if !self.at(Punct::RParen) {
            loop {
                args.push(self.parse_assign());
                if !self.eat(Punct::Comma) || self.fatal {
                    break;
                }
            }
        }
        self.no_greater = saved;
        self.expect_closing(Punct::RParen, open);
        args
    }

    /// Template arguments after a function or method name, kept only when they are
    /// followed by `(` and (unless the name is a known template) start with a type.
    fn try_call_template_args(&mut self, known_template: bool) -> Option<Vec<TemplateArg>> {
        self.speculate(|p| {
            let args = p.parse_template_args()?;
            if known_template {
                // Function templates are called; variable templates are not.
                return Some(args);
            }
            if !matches!(args.first(), Some(TemplateArg::Type(_))) {
                return None;
            }
            p.at(Punct::LParen).then_some(args)
        })
    }

    /// Template arguments after `Type::member`, kept when a call follows.
    fn try_member_template_args(&mut self) -> Option<Vec<TemplateArg>> {
        self.speculate(|p| {
            let args = p.parse_template_args()?;
            p.at(Punct::LParen).then_some(args)
        })
    }

    fn parse_primary(&mut self) -> ExprId {
        let tok = self.peek();
        match tok.kind {
            TokenKind::Number => {
                self.bump();
                self.number_literal(tok.sym, tok.origin)
            }
            TokenKind::String => {
                let mut parts = vec![self.bump().sym];
                while self.peek().kind == TokenKind::String {
                    parts.push(self.bump().sym);
                }
                self.make_expr(ExprKind::StringLiteral(parts), self.span_from(tok.origin))
            }
            TokenKind::Char => {
                self.bump();
                let value = char_literal_value(self.text(tok));
                let suffix = self.ast.interner.intern("");
                self.make_expr(ExprKind::IntLiteral { value, suffix }, tok.origin)
            }
            TokenKind::Punct(Punct::LParen) => {
                self.bump();
                let saved = std::mem::replace(&mut self.no_greater, false);
                let inner = self.parse_expr();
                self.no_greater = saved;
                self.expect_closing(Punct::RParen, tok);
                self.make_expr(ExprKind::Paren(inner), self.span_from(tok.origin))
            }
            TokenKind::Punct(Punct::LBrace) => self.parse_init_list(),
            TokenKind::Punct(Punct::ColonColon) => self.parse_name_expr(),
            TokenKind::Ident => match self.kw_of(tok) {
                Some(Kw::True) | Some(Kw::False) => {
                    self.bump();
                    self.make_expr(ExprKind::BoolLiteral(self.kw_of(tok) == Some(Kw::True)), tok.origin)
                }
                Some(Kw::This) => {
                    self.bump();
                    self.make_expr(ExprKind::This, tok.origin)
                }
                Some(Kw::Typename) | None => self.parse_name_expr(),
                Some(_) => {
                    self.error(tok.origin, "expected expression");
                    self.error_expr(tok.origin)
                }
            },
            _ => {
                let span = self.error_span();
                self.error(span, "expected expression");
                self.error_expr(tok.origin)
            }
        }
    }

    /// `{ a, b, { c } }` (the current token being `{`).
    pub(crate) fn parse_init_list(&mut self) -> ExprId {
        let open = self.bump();
        if !self.enter() {
            return self.error_expr(open.origin);
        }
        let saved = std::mem::replace(&mut self.no_greater, false);
        let mut items = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() {
            let item = if self.at(Punct::LBrace) { self.parse_init_list() } else { self.parse_assign() };
            items.push(item);
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        self.no_greater = saved;
        self.expect_closing(Punct::RBrace, open);
        self.leave();
        self.make_expr(ExprKind::InitList(items), self.span_from(open.origin))
    }

    /// A name, a qualified name, a template call or a type used as a constructor.
    fn parse_name_expr(&mut self) -> ExprId {
        let start = self.peek().origin;
        // A type in expression position: `float4(...)`, `S(...)`, `vector<float, 2>(...)`.
        if self.at_type_name() {
            if let Some(ty) = self.speculate(|p| {
                let ty = p.parse_type()?;
                (p.at(Punct::LParen) || (p.at(Punct::ColonColon) && p.peek_at(1).kind == TokenKind::Ident))
                    .then_some(ty)
            }) {
                if self.eat(Punct::ColonColon) {
                    let tok = self.bump();
                    let member = Ident { name: tok.sym, span: tok.origin };
                    // `T::f<1>(x)`: a static member of a type followed by `<...>(` is a
                    // member template called (comparisons would not chain that way).
                    let template_args =
                        if self.at(Punct::Lt) { self.try_member_template_args() } else { None };
                    let kind = ExprKind::TypeMember { ty, member, template_args };
                    return self.make_expr(kind, self.span_from(start));
                }
                let args = self.parse_call_args();
                return self.make_expr(ExprKind::Construct { ty, args }, self.span_from(start));
            }
        }
        self.eat_kw(Kw::Typename);
        let Some(name) = self.parse_qualified_name() else {
            let span = self.error_span();
            self.error(span, "expected expression");
            return self.error_expr(start);
        };
        let last = name.last().map(|i| i.name);
        let kind = last.and_then(|s| self.lookup(s));
        let template_args = if self.at(Punct::Lt) {
            match kind {
                Some(NameKind::FunctionTemplate) => self.try_call_template_args(true),
                Some(NameKind::Value) => None,
                // `T::f<1>(x)` with `T` a type the parser does not track (a local alias,
                // a template parameter): a qualified name followed by `<...>(`.
                _ if name.segments.len() > 1 => self.try_member_template_args(),
                _ => self.try_call_template_args(false),
            }
        } else {
            None
        };
        if matches!(kind, Some(NameKind::Type | NameKind::TypeTemplate))
            && template_args.is_none()
            && !self.at(Punct::LParen)
            && !self.at(Punct::ColonColon)
        {
            let span = self.error_span();
            self.error(span, "expected '(' for function-style cast or type construction");
        }
        self.make_expr(ExprKind::Name { name, template_args }, self.span_from(start))
    }

    /// `[::] a :: b :: c`
    pub(crate) fn parse_qualified_name(&mut self) -> Option<QualifiedName> {
        let global = self.eat(Punct::ColonColon);
        let mut segments = Vec::new();
        loop {
            let tok = self.peek();
            if !self.is_name(tok) && self.kw_of(tok) != Some(Kw::Template) {
                break;
            }
            if self.kw_of(tok) == Some(Kw::Template) {
                // `T::template f<...>`
                self.bump();
                continue;
            }
            self.bump();
            segments.push(Ident { name: tok.sym, span: tok.origin });
            if self.at(Punct::ColonColon) && self.peek_at(1).kind == TokenKind::Ident {
                self.bump();
                continue;
            }
            break;
        }
        if segments.is_empty() {
            return None;
        }
        Some(QualifiedName { global, segments })
    }

    fn number_literal(&mut self, sym: crate::lexer::Symbol, span: Span) -> ExprId {
        let text = self.ast.interner.get(sym).to_string();
        match classify_number(&text) {
            Some(NumberLiteral::Int { value, suffix }) => {
                let suffix = self.ast.interner.intern(&suffix);
                self.make_expr(ExprKind::IntLiteral { value, suffix }, span)
            }
            Some(NumberLiteral::Float(value)) => {
                self.make_expr(ExprKind::FloatLiteral { value, text: sym }, span)
            }
            None => {
                // `0.xxx`, `1.0.xy`: a literal followed by a swizzle, which HLSL allows.
                if let Some((number, swizzle)) = split_literal_swizzle(&text) {
                    let number_span = Span { end: span.start + number.len() as u32, ..span };
                    let number_sym = self.ast.interner.intern(number);
                    let base = self.number_literal(number_sym, number_span);
                    let member = Ident { name: self.ast.interner.intern(swizzle), span };
                    return self.make_expr(ExprKind::Member { base, member, template_args: None }, span);
                }
                self.error(span, format!("invalid numeric literal '{text}'"));
                self.error_expr(span)
            }
        }
    }
}

enum NumberLiteral {
    Int { value: u64, suffix: String },
    Float(f64),
}

fn classify_number(text: &str) -> Option<NumberLiteral> {
    let lower = text.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    let is_float = lower.contains('.')
        || (!is_hex && lower.contains('e'))
        || (is_hex && lower.contains('p'))
        || (!is_hex && lower.trim_end_matches(['f', 'h', 'l']).len() < lower.len() && !lower.ends_with('l'));
    if is_float && !is_hex {
        let digits = lower.trim_end_matches(['f', 'h', 'l']);
        let digits = digits.strip_suffix('.').map_or(digits.to_string(), |d| format!("{d}.0"));
        return digits.parse::<f64>().ok().map(NumberLiteral::Float);
    }
    if is_float {
        return Some(NumberLiteral::Float(0.0)); // hexadecimal floating literal: value for sema
    }
    let digits_end = lower.trim_end_matches(['u', 'l']).len();
    let (digits, suffix) = lower.split_at(digits_end);
    let value = if let Some(hex) = digits.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).ok()?
    } else if let Some(bin) = digits.strip_prefix("0b") {
        u64::from_str_radix(bin, 2).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    Some(NumberLiteral::Int { value, suffix: suffix.to_string() })
}

/// Splits `1.0.xyz` / `0.xxx` into the number and the swizzle.
fn split_literal_swizzle(text: &str) -> Option<(&str, &str)> {
    let dot = text.rfind('.')?;
    let (number, swizzle) = (&text[..dot], &text[dot + 1..]);
    let is_swizzle =
        !swizzle.is_empty() && swizzle.len() <= 4 && swizzle.chars().all(|c| "xyzwrgba".contains(c));
    if !is_swizzle {
        return None;
    }
    if classify_number(number).is_some() && !number.is_empty() {
        return Some((number, swizzle));
    }
    // `0.xxx`: the dot belongs to the number.
    let with_dot = &text[..dot + 1];
    classify_number(with_dot).is_some().then_some((with_dot, swizzle))
}

fn char_literal_value(text: &str) -> u64 {
    let inner = text.trim_start_matches('\'').trim_end_matches('\'');
    let mut chars = inner.chars();
    match (chars.next(), chars.next()) {
        (Some('\\'), Some(c)) => match c {
            'n' => 10,
            't' => 9,
            'r' => 13,
            '0' => 0,
            other => other as u64,
        },
        (Some(c), _) => c as u64,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_classification() {
        assert!(matches!(classify_number("12"), Some(NumberLiteral::Int { value: 12, .. })));
        assert!(matches!(classify_number("0x1Fu"), Some(NumberLiteral::Int { value: 31, .. })));
        assert!(matches!(classify_number("010"), Some(NumberLiteral::Int { value: 8, .. })));
        assert!(matches!(classify_number("1.5f"), Some(NumberLiteral::Float(v)) if v == 1.5));
        assert!(matches!(classify_number("2.h"), Some(NumberLiteral::Float(v)) if v == 2.0));
        assert!(matches!(classify_number("1e3"), Some(NumberLiteral::Float(v)) if v == 1000.0));
        assert!(matches!(classify_number(".5"), Some(NumberLiteral::Float(v)) if v == 0.5));
        assert!(matches!(classify_number("3ull"), Some(NumberLiteral::Int { value: 3, .. })));
        assert!(classify_number("12abc").is_none());
        assert!(classify_number("99999999999999999999999").is_none());
    }
}
