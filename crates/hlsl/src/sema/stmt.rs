//! Statements: blocks and their scopes, control flow conditions, returns, switch
//! labels, `discard`.

use super::lookup::ScopeKind;
use super::tree::{ConstValue, Stage};
use super::types::{Scalar, TypeTable};
use super::Sema;
use crate::ast::{DeclKind, ExprId, StmtId, StmtKind};

impl Sema<'_> {
    pub(super) fn check_function_body(&mut self, body: StmtId) {
        // The body block shares the parameters' scope (as in C++).
        match self.ast.stmt(body).kind.clone() {
            StmtKind::Block(stmts) => {
                for s in stmts {
                    if self.diags.limit_reached() {
                        break;
                    }
                    self.check_stmt(s, 0);
                }
            }
            _ => self.check_stmt(body, 0),
        }
    }

    fn check_stmt(&mut self, id: StmtId, depth: u32) {
        if depth > 512 {
            return;
        }
        let stmt = self.ast.stmt(id).clone();
        for a in &stmt.attrs {
            for &arg in &a.args {
                self.check_expr(arg);
            }
        }
        let d = depth + 1;
        match stmt.kind {
            StmtKind::Expr(e) => {
                let t = self.check_expr(e);
                self.settle_expr(e, t);
            }
            StmtKind::Decl(decls) => {
                for decl in decls {
                    match &self.ast.decl(decl).kind {
                        DeclKind::Var(_) => self.var_decl(decl, super::decl::VarContext::Local),
                        _ => self.local_or_global_other(decl),
                    }
                }
            }
            StmtKind::Block(stmts) => {
                self.push_scope(ScopeKind::Block);
                for s in stmts {
                    if self.diags.limit_reached() {
                        break;
                    }
                    self.check_stmt(s, d);
                }
                self.pop_scope();
            }
            StmtKind::If { condition, then_branch, else_branch } => {
                self.push_scope(ScopeKind::Block);
                self.check_condition(condition);
                self.scoped_stmt(then_branch, d);
                if let Some(e) = else_branch {
                    self.scoped_stmt(e, d);
                }
                self.pop_scope();
            }
            StmtKind::For { init, condition, step, body } => {
                self.push_scope(ScopeKind::Block);
                if let Some(i) = init {
                    self.check_stmt(i, d);
                }
                if let Some(c) = condition {
                    self.check_condition(c);
                }
                if let Some(s) = step {
                    let t = self.check_expr(s);
                    self.settle_expr(s, t);
                }
                self.scoped_stmt(body, d);
                self.pop_scope();
            }
            StmtKind::While { condition, body } => {
                self.push_scope(ScopeKind::Block);
                self.check_condition(condition);
                self.scoped_stmt(body, d);
                self.pop_scope();
            }
            StmtKind::DoWhile { body, condition } => {
                self.scoped_stmt(body, d);
                self.check_condition(condition);
            }
            StmtKind::Switch { condition, body } => {
                self.push_scope(ScopeKind::Block);
                let t = self.check_expr(condition);
                if !self.types.is_error(t) {
                    let ok = self.types.is_scalar(t);
                    if ok {
                        // dxc converts other scalar types to int.
                        let c = self.types.component(t).unwrap_or(Scalar::Int);
                        let target = if c.is_integer() { self.types.concrete(t) } else { TypeTable::INT };
                        self.convert_implicit(condition, t, target);
                    } else {
                        let span = self.ast.expr(condition).span;
                        self.error(
                            span,
                            format!(
                                "statement requires expression of integer type ({} invalid)",
                                self.quoted(t)
                            ),
                        );
                    }
                }
                self.scoped_stmt(body, d);
                self.pop_scope();
            }
            StmtKind::Case { value, body } => {
                if let Some(v) = self.const_int(value, "case value") {
                    let _ = v;
                }
                self.check_stmt(body, d);
            }
            StmtKind::Default { body } => self.check_stmt(body, d),
            StmtKind::Return(value) => self.check_return(value, stmt.span),
            StmtKind::Discard => {
                let stage = self.opts.stage;
                if let Some(s) = stage {
                    if !matches!(s, Stage::Pixel | Stage::Library) {
                        self.error(stmt.span, "discard statement may only be used in pixel shaders");
                    }
                }
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Empty | StmtKind::Error => {}
        }
    }

    /// A sub-statement with its own scope (`if (c) int x;`).
    fn scoped_stmt(&mut self, id: StmtId, depth: u32) {
        self.push_scope(ScopeKind::Block);
        self.check_stmt(id, depth);
        self.pop_scope();
    }

    /// An expression whose value is unused: literals settle to concrete types.
    fn settle_expr(&mut self, e: ExprId, t: crate::sema::types::Ty) {
        let c = self.types.concrete(t);
        if c != t {
            self.convert_implicit(e, t, c);
        }
    }

    /// `if`/`while`/`for` conditions convert to bool (scalars; dxc accepts a vector
    /// only through its first component with a warning, so vectors are an error here
    /// only when they cannot convert).
    fn check_condition(&mut self, e: ExprId) {
        let t = self.check_expr(e);
        if self.types.is_error(t) {
            return;
        }
        if !self.types.is_numeric(t) {
            let span = self.ast.expr(e).span;
            self.error(
                span,
                format!("value of type {} is not contextually convertible to 'bool'", self.quoted(t)),
            );
            return;
        }
        self.convert_implicit(e, t, TypeTable::BOOL);
    }

    fn check_return(&mut self, value: Option<ExprId>, span: crate::source::Span) {
        let Some(ctx) = self.function.clone() else { return };
        let name = match &self.ast.decl(ctx.decl).kind {
            DeclKind::Function(f) => self.ast.qualified_name_text(&f.name),
            _ => String::new(),
        };
        let ret = ctx.ret;
        match value {
            Some(v) => {
                let t = self.check_expr(v);
                if self.types.is_void(ret) {
                    if !self.types.is_void(t) && !self.types.is_error(t) {
                        self.error(span, format!("void function '{name}' should not return a value"));
                    }
                    return;
                }
                if self.types.is_error(ret) || self.types.is_error(t) {
                    return;
                }
                if self.convert_implicit(v, t, ret).is_none() {
                    let vspan = self.ast.expr(v).span;
                    let category = if self.is_lvalue(v) { "lvalue" } else { "rvalue" };
                    self.error(
                        vspan,
                        format!(
                            "cannot initialize return object of type {} with an {category} of type {}",
                            self.quoted(ret),
                            self.quoted(t)
                        ),
                    );
                }
            }
            None => {
                if !self.types.is_void(ret) && !self.types.is_error(ret) {
                    self.error(span, format!("non-void function '{name}' should return a value"));
                }
            }
        }
        let _ = ConstValue::Int(0);
    }
}
