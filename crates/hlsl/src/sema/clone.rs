//! Deep copies of syntax subtrees, for template instantiation: each instantiation is
//! a fresh copy of the template's declaration with ids of its own, so the typed
//! tree's side tables can hold a different typing per instantiation.
//!
//! Recursion follows the tree, whose depth the parser bounds; `MAX_DEPTH` guards
//! against anything else.

use crate::ast::{
    Annotation, Ast, Decl, DeclId, DeclKind, ExprId, ExprKind, FunctionDecl, Stmt, StmtId, StmtKind,
    TemplateArg, TemplateParam, TemplateParamKind, TypeId, TypeKind, TypeRef, VarDecl,
};

const MAX_DEPTH: u32 = 2048;

pub struct Cloner<'a> {
    pub ast: &'a mut Ast,
    /// Set when the depth limit stopped the copy (the copy is then incomplete).
    pub truncated: bool,
}

impl Cloner<'_> {
    pub fn decl(&mut self, id: DeclId, depth: u32) -> DeclId {
        if depth > MAX_DEPTH {
            self.truncated = true;
            return id;
        }
        let d = depth + 1;
        let old = self.ast.decl(id).clone();
        let kind = match old.kind {
            DeclKind::Var(v) => DeclKind::Var(self.var(v, d)),
            DeclKind::Function(f) => DeclKind::Function(FunctionDecl {
                ret: self.ty(f.ret, d),
                name: f.name,
                params: f.params.iter().map(|&p| self.decl(p, d)).collect(),
                annotations: f.annotations.iter().map(|a| self.annotation(a, d)).collect(),
                body: f.body.map(|b| self.stmt(b, d)),
                is_const: f.is_const,
                template_args: f.template_args.map(|a| self.targs(&a, d)),
            }),
            DeclKind::Struct { keyword, name, template_args, bases, members } => DeclKind::Struct {
                keyword,
                name,
                template_args: template_args.map(|a| self.targs(&a, d)),
                bases: bases.iter().map(|&b| self.ty(b, d)).collect(),
                members: members.map(|m| m.iter().map(|&x| self.decl(x, d)).collect()),
            },
            DeclKind::Typedef { ty, name, array_dims } => DeclKind::Typedef {
                ty: self.ty(ty, d),
                name,
                array_dims: array_dims.iter().map(|e| e.map(|e| self.expr(e, d))).collect(),
            },
            DeclKind::TypeAlias { name, ty } => DeclKind::TypeAlias { name, ty: self.ty(ty, d) },
            DeclKind::Enum { name, scoped, underlying, constants } => DeclKind::Enum {
                name,
                scoped,
                underlying: underlying.map(|u| self.ty(u, d)),
                constants: constants.iter().map(|&c| self.decl(c, d)).collect(),
            },
            DeclKind::EnumConstant { name, value } => {
                DeclKind::EnumConstant { name, value: value.map(|v| self.expr(v, d)) }
            }
            DeclKind::Template { params, decl } => DeclKind::Template {
                params: params.iter().map(|p| self.template_param(p, d)).collect(),
                decl: self.decl(decl, d),
            },
            DeclKind::StaticAssert { condition, message } => DeclKind::StaticAssert {
                condition: self.expr(condition, d),
                message: message.map(|m| self.expr(m, d)),
            },
            DeclKind::Namespace { name, decls } => {
                DeclKind::Namespace { name, decls: decls.iter().map(|&x| self.decl(x, d)).collect() }
            }
            DeclKind::Buffer { kind, name, annotations, decls } => DeclKind::Buffer {
                kind,
                name,
                annotations: annotations.iter().map(|a| self.annotation(a, d)).collect(),
                decls: decls.iter().map(|&x| self.decl(x, d)).collect(),
            },
            other @ (DeclKind::UsingNamespace(_)
            | DeclKind::UsingDecl(_)
            | DeclKind::Pragma(_)
            | DeclKind::Empty) => other,
        };
        let attrs = old
            .attrs
            .into_iter()
            .map(|mut a| {
                a.args = a.args.iter().map(|&e| self.expr(e, d)).collect();
                a
            })
            .collect();
        self.ast.add_decl(Decl { kind, attrs, modifiers: old.modifiers, span: old.span })
    }

    fn var(&mut self, v: VarDecl, d: u32) -> VarDecl {
        VarDecl {
            ty: self.ty(v.ty, d),
            name: v.name,
            qualifier: v.qualifier,
            array_dims: v.array_dims.iter().map(|e| e.map(|e| self.expr(e, d))).collect(),
            annotations: v.annotations.iter().map(|a| self.annotation(a, d)).collect(),
            init: v.init.map(|e| self.expr(e, d)),
            bit_width: v.bit_width.map(|e| self.expr(e, d)),
            has_effect_annotations: v.has_effect_annotations,
        }
    }

    fn annotation(&mut self, a: &Annotation, d: u32) -> Annotation {
        match a {
            Annotation::Register { profile, slot, subcomponent, space, span } => Annotation::Register {
                profile: *profile,
                slot: *slot,
                subcomponent: subcomponent.map(|e| self.expr(e, d)),
                space: *space,
                span: *span,
            },
            other => other.clone(),
        }
    }

    fn template_param(&mut self, p: &TemplateParam, d: u32) -> TemplateParam {
        let kind = match &p.kind {
            TemplateParamKind::Type { default } => {
                TemplateParamKind::Type { default: default.map(|t| self.ty(t, d)) }
            }
            TemplateParamKind::Value { ty, default } => {
                TemplateParamKind::Value { ty: self.ty(*ty, d), default: default.map(|e| self.expr(e, d)) }
            }
        };
        TemplateParam { kind, name: p.name, span: p.span }
    }

    fn targs(&mut self, args: &[TemplateArg], d: u32) -> Vec<TemplateArg> {
        args.iter()
            .map(|a| match a {
                TemplateArg::Type(t) => TemplateArg::Type(self.ty(*t, d)),
                TemplateArg::Expr(e) => TemplateArg::Expr(self.expr(*e, d)),
            })
            .collect()
    }

    pub fn ty(&mut self, id: TypeId, depth: u32) -> TypeId {
        if depth > MAX_DEPTH {
            self.truncated = true;
            return id;
        }
        let d = depth + 1;
        let old = self.ast.ty(id).clone();
        let kind = match old.kind {
            TypeKind::Named { name, args } => TypeKind::Named { name, args: args.map(|a| self.targs(&a, d)) },
            TypeKind::Struct(decl) => TypeKind::Struct(self.decl(decl, d)),
            TypeKind::Member { owner, name, args } => {
                TypeKind::Member { owner: self.ty(owner, d), name, args: args.map(|a| self.targs(&a, d)) }
            }
            TypeKind::Array { element, size } => {
                TypeKind::Array { element: self.ty(element, d), size: size.map(|e| self.expr(e, d)) }
            }
        };
        self.ast.add_type(TypeRef { kind, modifiers: old.modifiers, span: old.span })
    }

    pub fn stmt(&mut self, id: StmtId, depth: u32) -> StmtId {
        if depth > MAX_DEPTH {
            self.truncated = true;
            return id;
        }
        let d = depth + 1;
        let old = self.ast.stmt(id).clone();
        let kind = match old.kind {
            StmtKind::Expr(e) => StmtKind::Expr(self.expr(e, d)),
            StmtKind::Decl(decls) => StmtKind::Decl(decls.iter().map(|&x| self.decl(x, d)).collect()),
            StmtKind::Block(stmts) => StmtKind::Block(stmts.iter().map(|&s| self.stmt(s, d)).collect()),
            StmtKind::If { condition, then_branch, else_branch } => StmtKind::If {
                condition: self.expr(condition, d),
                then_branch: self.stmt(then_branch, d),
                else_branch: else_branch.map(|s| self.stmt(s, d)),
            },
            StmtKind::For { init, condition, step, body } => StmtKind::For {
                init: init.map(|s| self.stmt(s, d)),
                condition: condition.map(|e| self.expr(e, d)),
                step: step.map(|e| self.expr(e, d)),
                body: self.stmt(body, d),
            },
            StmtKind::While { condition, body } => {
                StmtKind::While { condition: self.expr(condition, d), body: self.stmt(body, d) }
            }
            StmtKind::DoWhile { body, condition } => {
                StmtKind::DoWhile { body: self.stmt(body, d), condition: self.expr(condition, d) }
            }
            StmtKind::Switch { condition, body } => {
                StmtKind::Switch { condition: self.expr(condition, d), body: self.stmt(body, d) }
            }
            StmtKind::Case { value, body } => {
                StmtKind::Case { value: self.expr(value, d), body: self.stmt(body, d) }
            }
            StmtKind::Default { body } => StmtKind::Default { body: self.stmt(body, d) },
            StmtKind::Return(v) => StmtKind::Return(v.map(|e| self.expr(e, d))),
            other @ (StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Discard
            | StmtKind::Empty
            | StmtKind::Error) => other,
        };
        let attrs = old
            .attrs
            .into_iter()
            .map(|mut a| {
                a.args = a.args.iter().map(|&e| self.expr(e, d)).collect();
                a
            })
            .collect();
        self.ast.add_stmt(Stmt { kind, attrs, span: old.span })
    }

    pub fn expr(&mut self, id: ExprId, depth: u32) -> ExprId {
        if depth > MAX_DEPTH {
            self.truncated = true;
            return id;
        }
        let d = depth + 1;
        let old = self.ast.expr(id).clone();
        let kind = match old.kind {
            k @ (ExprKind::IntLiteral { .. }
            | ExprKind::FloatLiteral { .. }
            | ExprKind::BoolLiteral(_)
            | ExprKind::StringLiteral(_)
            | ExprKind::This
            | ExprKind::Error) => k,
            ExprKind::Name { name, template_args } => {
                ExprKind::Name { name, template_args: template_args.map(|a| self.targs(&a, d)) }
            }
            ExprKind::Unary { op, operand } => ExprKind::Unary { op, operand: self.expr(operand, d) },
            ExprKind::Binary { op, lhs, rhs } => {
                ExprKind::Binary { op, lhs: self.expr(lhs, d), rhs: self.expr(rhs, d) }
            }
            ExprKind::Assign { op, lhs, rhs } => {
                ExprKind::Assign { op, lhs: self.expr(lhs, d), rhs: self.expr(rhs, d) }
            }
            ExprKind::Conditional { condition, then_value, else_value } => ExprKind::Conditional {
                condition: self.expr(condition, d),
                then_value: self.expr(then_value, d),
                else_value: self.expr(else_value, d),
            },
            ExprKind::Call { callee, args } => ExprKind::Call {
                callee: self.expr(callee, d),
                args: args.iter().map(|&a| self.expr(a, d)).collect(),
            },
            ExprKind::Member { base, member, template_args } => ExprKind::Member {
                base: self.expr(base, d),
                member,
                template_args: template_args.map(|a| self.targs(&a, d)),
            },
            ExprKind::Index { base, index } => {
                ExprKind::Index { base: self.expr(base, d), index: self.expr(index, d) }
            }
            ExprKind::Cast { ty, operand } => {
                ExprKind::Cast { ty: self.ty(ty, d), operand: self.expr(operand, d) }
            }
            ExprKind::Construct { ty, args } => ExprKind::Construct {
                ty: self.ty(ty, d),
                args: args.iter().map(|&a| self.expr(a, d)).collect(),
            },
            ExprKind::InitList(items) => ExprKind::InitList(items.iter().map(|&a| self.expr(a, d)).collect()),
            ExprKind::SizeOfType(t) => ExprKind::SizeOfType(self.ty(t, d)),
            ExprKind::SizeOfExpr(e) => ExprKind::SizeOfExpr(self.expr(e, d)),
            ExprKind::Paren(e) => ExprKind::Paren(self.expr(e, d)),
            ExprKind::TypeMember { ty, member, template_args } => ExprKind::TypeMember {
                ty: self.ty(ty, d),
                member,
                template_args: template_args.map(|a| self.targs(&a, d)),
            },
            ExprKind::DeclCondition(decl) => ExprKind::DeclCondition(self.decl(decl, d)),
        };
        self.ast.add_expr(kind, old.span)
    }
}
