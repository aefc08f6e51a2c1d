//! Statements, with attributes (`[unroll]`, `[branch]`, ...) kept on them.

use super::decl::DeclContext;
use super::{Kw, NameKind, Parser};
use crate::ast::{Attribute, Stmt, StmtId, StmtKind};
use crate::lexer::{Punct, TokenKind};
use crate::source::Span;

impl Parser<'_> {
    fn add_stmt(&mut self, kind: StmtKind, attrs: Vec<Attribute>, span: Span) -> StmtId {
        self.ast.add_stmt(Stmt { kind, attrs, span })
    }

    /// `{ statements }`, the current token being `{`.
    pub(crate) fn parse_block(&mut self) -> StmtId {
        let open = self.bump();
        if !self.enter() {
            return self.add_stmt(StmtKind::Error, Vec::new(), open.origin);
        }
        self.push_scope();
        let mut stmts = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() {
            let before = self.pos;
            stmts.push(self.parse_stmt());
            if self.pos == before {
                self.bump();
            }
        }
        self.pop_scope();
        self.expect_closing(Punct::RBrace, open);
        self.leave();
        self.add_stmt(StmtKind::Block(stmts), Vec::new(), self.span_from(open.origin))
    }

    pub(crate) fn parse_stmt(&mut self) -> StmtId {
        let start = self.peek().origin;
        if !self.enter() {
            return self.add_stmt(StmtKind::Error, Vec::new(), start);
        }
        let attrs = if self.at(Punct::LBracket) { self.parse_attributes() } else { Vec::new() };
        let stmt = self.parse_stmt_inner(attrs, start);
        self.leave();
        stmt
    }

    fn parse_stmt_inner(&mut self, attrs: Vec<Attribute>, start: Span) -> StmtId {
        let tok = self.peek();
        if tok.is_punct(Punct::LBrace) {
            let block = self.parse_block();
            if let Some(s) = self.ast.stmts.get_mut(block.index()) {
                s.attrs = attrs;
            }
            return block;
        }
        if tok.is_punct(Punct::Semi) {
            self.bump();
            return self.add_stmt(StmtKind::Empty, attrs, tok.origin);
        }
        match self.kw_of(tok) {
            Some(Kw::If) => {
                self.bump();
                let condition = self.parse_paren_condition();
                let then_branch = self.parse_stmt();
                let else_branch = if self.eat_kw(Kw::Else) { Some(self.parse_stmt()) } else { None };
                let kind = StmtKind::If { condition, then_branch, else_branch };
                return self.add_stmt(kind, attrs, self.span_from(start));
            }
            Some(Kw::While) => {
                self.bump();
                let condition = self.parse_paren_condition();
                let body = self.parse_stmt();
                return self.add_stmt(StmtKind::While { condition, body }, attrs, self.span_from(start));
            }
            Some(Kw::Do) => {
                self.bump();
                let body = self.parse_stmt();
                if !self.eat_kw(Kw::While) {
                    let span = self.error_span();
                    self.error(span, "expected 'while' in do/while loop");
                    self.skip_to_statement_end();
                    return self.add_stmt(StmtKind::Error, attrs, self.span_from(start));
                }
                let condition = self.parse_paren_condition();
                self.expect_semi("expected ';' after do/while statement");
                return self.add_stmt(StmtKind::DoWhile { body, condition }, attrs, self.span_from(start));
            }
            Some(Kw::For) => return self.parse_for(attrs, start),
            Some(Kw::Switch) => {
                self.bump();
                let condition = self.parse_paren_condition();
                let body = self.parse_stmt();
                return self.add_stmt(StmtKind::Switch { condition, body }, attrs, self.span_from(start));
            }
            Some(Kw::Case) => {
                self.bump();
                let value = self.parse_expr();
                self.expect(Punct::Colon, Some("expected ':' after 'case'"));
                let body = self.parse_case_body();
                return self.add_stmt(StmtKind::Case { value, body }, attrs, self.span_from(start));
            }
            Some(Kw::Default) => {
                self.bump();
                self.expect(Punct::Colon, Some("expected ':' after 'default'"));
                let body = self.parse_case_body();
                return self.add_stmt(StmtKind::Default { body }, attrs, self.span_from(start));
            }
            Some(Kw::Break) => {
                self.bump();
                self.expect_semi("expected ';' after break statement");
                return self.add_stmt(StmtKind::Break, attrs, self.span_from(start));
            }
            Some(Kw::Continue) => {
                self.bump();
                self.expect_semi("expected ';' after continue statement");
                return self.add_stmt(StmtKind::Continue, attrs, self.span_from(start));
            }
            Some(Kw::Discard) => {
                self.bump();
                self.expect_semi("expected ';' after discard statement");
                return self.add_stmt(StmtKind::Discard, attrs, self.span_from(start));
            }
            Some(Kw::Return) => {
                self.bump();
                let value = if self.at(Punct::Semi) {
                    None
                } else if self.at(Punct::LBrace) {
                    Some(self.parse_init_list())
                } else {
                    Some(self.parse_expr())
                };
                self.expect_semi("expected ';' after return statement");
                return self.add_stmt(StmtKind::Return(value), attrs, self.span_from(start));
            }
            Some(Kw::Else) => {
                self.bump();
                self.error(tok.origin, "expected expression");
                return self.add_stmt(StmtKind::Error, attrs, tok.origin);
            }
            _ => {}
        }
        if self.starts_declaration() {
            let mut decls = self.parse_declaration(DeclContext::Block);
            if !attrs.is_empty() {
                for d in &decls {
                    if let Some(decl) = self.ast.decls.get_mut(d.index()) {
                        decl.attrs.splice(0..0, attrs.iter().cloned());
                    }
                }
            }
            decls.retain(|_| true);
            return self.add_stmt(StmtKind::Decl(decls), Vec::new(), self.span_from(start));
        }
        let errors_before = self.diags.error_count();
        let expr = self.parse_expr();
        if self.diags.error_count() > errors_before && !self.at(Punct::Semi) {
            self.skip_to_statement_end();
        } else {
            self.expect_semi("expected ';' after expression");
        }
        self.add_stmt(StmtKind::Expr(expr), attrs, self.span_from(start))
    }

    fn expect_semi(&mut self, message: &str) {
        if !self.eat(Punct::Semi) {
            let span = self.error_span();
            self.error(span, message);
            if !self.at(Punct::RBrace) {
                self.skip_to_statement_end();
            }
        }
    }

    /// The statements after `case X:` up to the next label or the end of the switch.
    fn parse_case_body(&mut self) -> StmtId {
        let start = self.peek().origin;
        let mut stmts = Vec::new();
        while !self.at(Punct::RBrace) && !self.at_eof() && !self.at_kw(Kw::Case) && !self.at_kw(Kw::Default) {
            let before = self.pos;
            stmts.push(self.parse_stmt());
            if self.pos == before {
                self.bump();
            }
        }
        self.add_stmt(StmtKind::Block(stmts), Vec::new(), self.span_from(start))
    }

    fn parse_paren_condition(&mut self) -> crate::ast::ExprId {
        let open = self.peek();
        if !self.expect(Punct::LParen, None) {
            return self.error_expr(open.origin);
        }
        let condition = if self.starts_declaration() {
            let start = self.peek().origin;
            let decls = self.parse_declaration(DeclContext::ForInit);
            match decls.first() {
                Some(&d) => self.make_expr(crate::ast::ExprKind::DeclCondition(d), self.span_from(start)),
                None => self.error_expr(start),
            }
        } else {
            self.parse_expr()
        };
        self.expect_closing(Punct::RParen, open);
        condition
    }

    fn parse_for(&mut self, attrs: Vec<Attribute>, start: Span) -> StmtId {
        self.bump();
        let open = self.peek();
        if !self.expect(Punct::LParen, None) {
            self.skip_to_statement_end();
            return self.add_stmt(StmtKind::Error, attrs, self.span_from(start));
        }
        // HLSL scopes `for` variables to the enclosing block; keep them in a scope anyway.
        let init_start = self.peek().origin;
        let init = if self.at(Punct::Semi) {
            None
        } else if self.starts_declaration() {
            let decls = self.parse_declaration(DeclContext::ForInit);
            Some(self.add_stmt(StmtKind::Decl(decls), Vec::new(), self.span_from(init_start)))
        } else {
            let e = self.parse_expr();
            Some(self.add_stmt(StmtKind::Expr(e), Vec::new(), self.span_from(init_start)))
        };
        self.expect(Punct::Semi, Some("expected ';' in 'for' statement specifier"));
        let condition = if self.at(Punct::Semi) { None } else { Some(self.parse_expr()) };
        self.expect(Punct::Semi, Some("expected ';' in 'for' statement specifier"));
        let step = if self.at(Punct::RParen) { None } else { Some(self.parse_expr()) };
        self.expect_closing(Punct::RParen, open);
        let body = self.parse_stmt();
        self.add_stmt(StmtKind::For { init, condition, step, body }, attrs, self.span_from(start))
    }

    /// Whether the statement starting here is a declaration.
    pub(crate) fn starts_declaration(&mut self) -> bool {
        let tok = self.peek();
        if tok.kind != TokenKind::Ident && !tok.is_punct(Punct::ColonColon) {
            return false;
        }
        match self.kw_of(tok) {
            Some(
                Kw::Typedef
                | Kw::Using
                | Kw::Struct
                | Kw::Class
                | Kw::Interface
                | Kw::Enum
                | Kw::StaticAssert
                | Kw::Template
                | Kw::Namespace,
            ) => return true,
            Some(Kw::Typename) => {}
            Some(_) => return false,
            None => {}
        }
        if tok.kind == TokenKind::Ident {
            if let Some(&m) = self.modifiers.get(&tok.sym) {
                let next = self.peek_at(1);
                let contextual = m.0 & super::CONTEXTUAL_MODIFIERS.0 != 0;
                if !contextual
                    || (next.kind == TokenKind::Ident && self.lookup(tok.sym) != Some(NameKind::Value))
                {
                    return true;
                }
            }
        }
        // An unknown name followed by a name: a declaration with an unknown type.
        if self.is_name(tok) && self.lookup(tok.sym).is_none() && self.is_name(self.peek_at(1)) {
            return true;
        }
        if !self.at_type_name() {
            return false;
        }
        self.lookahead(|p| {
            p.parse_type()?;
            let next = p.peek();
            (p.is_name(next) || p.kw_of(next) == Some(Kw::Operator)).then_some(())
        })
        .is_some()
    }
}
