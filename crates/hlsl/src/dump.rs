//! `-ast-dump`: an indented tree of every node with its kind, name, type spelling
//! and source range, in the manner of clang's dump.

use crate::ast::{
    Annotation, Ast, Attribute, DeclId, DeclKind, ExprId, ExprKind, StmtId, StmtKind, TemplateArg,
    TemplateParamKind, TypeId, TypeKind,
};
use crate::sema::tree::{Callee, Resolution, TypedTree, ValueCategory};
use crate::source::{SourceMap, Span};

#[derive(Clone)]
enum Node<'a> {
    Decl(DeclId),
    Stmt(StmtId),
    Expr(ExprId),
    Type(TypeId),
    Attr(&'a Attribute),
    Annotation(&'a Annotation),
    /// A labelled child (`cond:`, `init:`), or a leaf line.
    Label(String, Option<Box<Node<'a>>>),
}

/// The whole tree as text.
pub fn dump(ast: &Ast, sources: &SourceMap) -> String {
    let mut d = Dumper { ast, sources, typed: None, out: String::new(), prefix: String::new() };
    d.out.push_str("TranslationUnitDecl\n");
    let items: Vec<Node> = ast.items.iter().map(|&i| Node::Decl(i)).collect();
    d.children(&items);
    d.out
}

/// The typed tree: every expression with its type (`: 'float4' lvalue`), resolved
/// declaration (`-> Var #12 'x'`), implicit conversion (`<Splat 'float4'>`), constant
/// value and chosen overload (`call 'dot(float3, float3) -> float'`); every
/// declaration with its resolved type; template instantiations under their template.
pub fn dump_typed(tree: &TypedTree, sources: &SourceMap) -> String {
    let ast = &tree.ast;
    let mut d = Dumper { ast, sources, typed: Some(tree), out: String::new(), prefix: String::new() };
    d.out.push_str("TranslationUnitDecl\n");
    let items: Vec<Node> = ast.items.iter().map(|&i| Node::Decl(i)).collect();
    d.children(&items);
    for e in &tree.entry_points {
        let threads =
            e.numthreads.map(|t| format!(" numthreads({}, {}, {})", t[0], t[1], t[2])).unwrap_or_default();
        d.out.push_str(&format!("EntryPoint {} {:?} #{}{threads}\n", e.name, e.stage, e.function.0));
    }
    d.out
}

struct Dumper<'a> {
    ast: &'a Ast,
    sources: &'a SourceMap,
    typed: Option<&'a TypedTree>,
    out: String,
    prefix: String,
}

impl<'a> Dumper<'a> {
    fn children(&mut self, nodes: &[Node<'a>]) {
        for (i, node) in nodes.iter().enumerate() {
            let last = i + 1 == nodes.len();
            self.out.push_str(&self.prefix);
            self.out.push_str(if last { "`-" } else { "|-" });
            let saved = self.prefix.len();
            self.prefix.push_str(if last { "  " } else { "| " });
            self.node(node);
            self.prefix.truncate(saved);
        }
    }

    fn range(&self, span: Span) -> String {
        let Some(file) = self.sources.file(span.file) else { return "<invalid sloc>".into() };
        let a = file.line_col(span.start);
        let b = file.line_col(span.end.saturating_sub(1).max(span.start));
        let name = if span.file.0 == 0 { String::new() } else { format!("{}:", file.name) };
        if a == b {
            format!("<{name}{}:{}>", a.line, a.col)
        } else {
            format!("<{name}{}:{}, {}:{}>", a.line, a.col, b.line, b.col)
        }
    }

    fn name(&self, sym: crate::lexer::Symbol) -> &str {
        self.ast.name(sym)
    }

    fn node(&mut self, node: &Node<'a>) {
        match node {
            Node::Decl(id) => self.decl(*id),
            Node::Stmt(id) => self.stmt(*id),
            Node::Expr(id) => self.expr(*id),
            Node::Type(id) => self.type_node(*id),
            Node::Attr(a) => self.attr(a),
            Node::Annotation(a) => self.annotation(a),
            Node::Label(text, child) => {
                self.out.push_str(text);
                self.out.push('\n');
                if let Some(child) = child {
                    self.children(std::slice::from_ref(child));
                }
            }
        }
    }

    fn line(&mut self, text: String) {
        self.out.push_str(&text);
        self.out.push('\n');
    }

    fn attr(&mut self, a: &'a Attribute) {
        let ns = a.namespace.map(|n| format!("{}::", self.name(n.name))).unwrap_or_default();
        let style = if a.double_bracket { "[[...]]" } else { "[...]" };
        self.line(format!("Attribute {} {ns}{} {style}", self.range(a.span), self.name(a.name.name)));
        let args: Vec<Node> = a.args.iter().map(|&e| Node::Expr(e)).collect();
        self.children(&args);
    }

    fn annotation(&mut self, a: &Annotation) {
        let text = match a {
            Annotation::Semantic(s) => format!("Semantic {} {}", self.range(s.span), self.name(s.name)),
            Annotation::Register { profile, slot, space, span, subcomponent } => {
                let mut t = format!("Register {}", self.range(*span));
                if let Some(p) = profile {
                    t.push_str(&format!(" profile={}", self.name(p.name)));
                }
                t.push_str(&format!(" {}", self.name(slot.name)));
                if subcomponent.is_some() {
                    t.push_str("[...]");
                }
                if let Some(s) = space {
                    t.push_str(&format!(" {}", self.name(s.name)));
                }
                t
            }
            Annotation::PackOffset { register, component, span } => {
                let c = component.map(|c| format!(".{}", self.name(c.name))).unwrap_or_default();
                format!("PackOffset {} {}{c}", self.range(*span), self.name(register.name))
            }
            Annotation::PayloadAccess { write, stages, span } => {
                let stages: Vec<&str> = stages.iter().map(|s| self.name(s.name)).collect();
                let access = if *write { "write" } else { "read" };
                format!("PayloadAccess {} {access}({})", self.range(*span), stages.join(", "))
            }
        };
        self.line(text);
    }

    fn type_node(&mut self, id: TypeId) {
        let ty = self.ast.ty(id);
        self.line(format!("Type {} '{}'", self.range(ty.span), self.ast.type_spelling(id)));
        let mut kids = Vec::new();
        match &ty.kind {
            TypeKind::Struct(d) => kids.push(Node::Decl(*d)),
            TypeKind::Named { args: Some(args), .. } => {
                for arg in args {
                    if let TemplateArg::Expr(e) = arg {
                        if !matches!(self.ast.expr(*e).kind, ExprKind::IntLiteral { .. }) {
                            kids.push(Node::Expr(*e));
                        }
                    }
                }
            }
            TypeKind::Array { size: Some(e), .. } => kids.push(Node::Expr(*e)),
            _ => {}
        }
        self.children(&kids);
    }

    /// The type spelling with array dimensions appended.
    fn var_type(&self, ty: TypeId, dims: &[Option<ExprId>]) -> String {
        let mut s = self.ast.type_spelling(ty);
        for d in dims {
            match d {
                Some(e) => s.push_str(&format!("[{}]", self.ast.expr_spelling(*e))),
                None => s.push_str("[]"),
            }
        }
        s
    }

    fn decl(&mut self, id: DeclId) {
        let decl = self.ast.decl(id);
        let range = self.range(decl.span);
        let mods =
            if decl.modifiers.is_empty() { String::new() } else { format!(" {}", decl.modifiers.spelling()) };
        let mut kids: Vec<Node<'a>> = decl.attrs.iter().map(Node::Attr).collect();
        let header = match &decl.kind {
            DeclKind::Var(v) => {
                let name = v.name.map_or(String::new(), |n| format!(" {}", self.name(n.name)));
                kids.extend(v.annotations.iter().map(Node::Annotation));
                if let Some(b) = v.bit_width {
                    kids.push(Node::Label("bit-width:".into(), Some(Box::new(Node::Expr(b)))));
                }
                if let TypeKind::Struct(d) = self.ast.ty(v.ty).kind {
                    kids.push(Node::Decl(d));
                }
                for e in v.array_dims.iter().flatten() {
                    if !matches!(self.ast.expr(*e).kind, ExprKind::IntLiteral { .. } | ExprKind::Name { .. })
                    {
                        kids.push(Node::Label("array-size:".into(), Some(Box::new(Node::Expr(*e)))));
                    }
                }
                if let Some(init) = v.init {
                    kids.push(Node::Expr(init));
                }
                format!("VarDecl {range}{name} '{}'{mods}", self.var_type(v.ty, &v.array_dims))
            }
            DeclKind::Function(f) => {
                let params: Vec<String> = f
                    .params
                    .iter()
                    .map(|p| match &self.ast.decl(*p).kind {
                        DeclKind::Var(v) => self.var_type(v.ty, &v.array_dims),
                        _ => "?".into(),
                    })
                    .collect();
                kids.extend(f.params.iter().map(|&p| Node::Decl(p)));
                kids.extend(f.annotations.iter().map(Node::Annotation));
                if let Some(b) = f.body {
                    kids.push(Node::Stmt(b));
                }
                let konst = if f.is_const { " const" } else { "" };
                format!(
                    "FunctionDecl {range} {} '{} ({})'{konst}{mods}",
                    self.ast.qualified_name_text(&f.name),
                    self.ast.type_spelling(f.ret),
                    params.join(", ")
                )
            }
            DeclKind::Struct { keyword, name, bases, members, template_args } => {
                let name = name.map_or(String::new(), |n| format!(" {}", self.name(n.name)));
                kids.extend(bases.iter().map(|&b| Node::Type(b)));
                if let Some(args) = template_args {
                    for a in args {
                        match a {
                            TemplateArg::Type(t) => kids.push(Node::Type(*t)),
                            TemplateArg::Expr(e) => kids.push(Node::Expr(*e)),
                        }
                    }
                }
                let definition = if let Some(members) = members {
                    kids.extend(members.iter().map(|&m| Node::Decl(m)));
                    " definition"
                } else {
                    ""
                };
                let kw = match keyword {
                    crate::ast::StructKeyword::Struct => "struct",
                    crate::ast::StructKeyword::Class => "class",
                    crate::ast::StructKeyword::Interface => "interface",
                };
                format!("RecordDecl {range} {kw}{name}{definition}")
            }
            DeclKind::Typedef { ty, name, array_dims } => {
                if let TypeKind::Struct(_) = self.ast.ty(*ty).kind {
                    kids.push(Node::Type(*ty));
                }
                format!("TypedefDecl {range} {} '{}'", self.name(name.name), self.var_type(*ty, array_dims))
            }
            DeclKind::TypeAlias { name, ty } => {
                format!("TypeAliasDecl {range} {} '{}'", self.name(name.name), self.ast.type_spelling(*ty))
            }
            DeclKind::UsingNamespace(n) => {
                format!("UsingDirectiveDecl {range} {}", self.ast.qualified_name_text(n))
            }
            DeclKind::UsingDecl(n) => format!("UsingDecl {range} {}", self.ast.qualified_name_text(n)),
            DeclKind::Enum { name, scoped, underlying, constants } => {
                let name = name.map_or(String::new(), |n| format!(" {}", self.name(n.name)));
                let class = if *scoped { " class" } else { "" };
                let under = underlying.map_or(String::new(), |u| format!(" '{}'", self.ast.type_spelling(u)));
                kids.extend(constants.iter().map(|&c| Node::Decl(c)));
                format!("EnumDecl {range}{class}{name}{under}")
            }
            DeclKind::EnumConstant { name, value } => {
                if let Some(v) = value {
                    kids.push(Node::Expr(*v));
                }
                format!("EnumConstantDecl {range} {}", self.name(name.name))
            }
            DeclKind::Namespace { name, decls } => {
                kids.extend(decls.iter().map(|&d| Node::Decl(d)));
                let name = name.map_or(String::new(), |n| format!(" {}", self.name(n.name)));
                format!("NamespaceDecl {range}{name}")
            }
            DeclKind::Buffer { kind, name, annotations, decls } => {
                kids.extend(annotations.iter().map(Node::Annotation));
                kids.extend(decls.iter().map(|&d| Node::Decl(d)));
                let kw = match kind {
                    crate::ast::BufferKind::CBuffer => "cbuffer",
                    crate::ast::BufferKind::TBuffer => "tbuffer",
                };
                format!("HLSLBufferDecl {range} {kw} {}", self.name(name.name))
            }
            DeclKind::Template { params, decl } => {
                for p in params {
                    let name = p.name.map_or(String::new(), |n| format!(" {}", self.name(n.name)));
                    let text = match &p.kind {
                        TemplateParamKind::Type { default } => {
                            let d = default
                                .map_or(String::new(), |t| format!(" = '{}'", self.ast.type_spelling(t)));
                            format!("TemplateTypeParmDecl {}{name}{d}", self.range(p.span))
                        }
                        TemplateParamKind::Value { ty, .. } => {
                            format!(
                                "NonTypeTemplateParmDecl {}{name} '{}'",
                                self.range(p.span),
                                self.ast.type_spelling(*ty)
                            )
                        }
                    };
                    let default = match &p.kind {
                        TemplateParamKind::Value { default: Some(e), .. } => Some(Box::new(Node::Expr(*e))),
                        _ => None,
                    };
                    kids.push(Node::Label(text, default));
                }
                kids.push(Node::Decl(*decl));
                format!("TemplateDecl {range}")
            }
            DeclKind::StaticAssert { condition, message } => {
                kids.push(Node::Expr(*condition));
                if let Some(m) = message {
                    kids.push(Node::Expr(*m));
                }
                format!("StaticAssertDecl {range}")
            }
            DeclKind::Pragma(text) => format!("PragmaDecl {range} '{text}'"),
            DeclKind::Empty => format!("EmptyDecl {range}"),
        };
        let annotation = match &decl.kind {
            DeclKind::Var(_) | DeclKind::Function(_) | DeclKind::Typedef { .. } | DeclKind::Struct { .. } => {
                self.decl_annotation(id)
            }
            _ => String::new(),
        };
        if let (Some(tree), DeclKind::Template { .. }) = (self.typed, &decl.kind) {
            for inst in tree.instantiations.iter().filter(|i| i.template == id) {
                let args: Vec<String> = inst
                    .args
                    .iter()
                    .map(|a| match a {
                        crate::sema::tree::TemplateValue::Type(t) => tree.types.display(*t),
                        crate::sema::tree::TemplateValue::Value(v) => format!("{v:?}"),
                    })
                    .collect();
                kids.push(Node::Label(
                    format!("Instantiation <{}>", args.join(", ")),
                    Some(Box::new(Node::Decl(inst.decl))),
                ));
            }
        }
        self.line(header + &annotation);
        self.children(&kids);
    }

    fn stmt(&mut self, id: StmtId) {
        let stmt = self.ast.stmt(id);
        let range = self.range(stmt.span);
        let mut kids: Vec<Node<'a>> = stmt.attrs.iter().map(Node::Attr).collect();
        let name = match &stmt.kind {
            StmtKind::Expr(e) => {
                // An expression statement is just its expression, as in clang.
                if stmt.attrs.is_empty() {
                    return self.expr(*e);
                }
                kids.push(Node::Expr(*e));
                "AttributedStmt"
            }
            StmtKind::Decl(decls) => {
                kids.extend(decls.iter().map(|&d| Node::Decl(d)));
                "DeclStmt"
            }
            StmtKind::Block(stmts) => {
                kids.extend(stmts.iter().map(|&s| Node::Stmt(s)));
                "CompoundStmt"
            }
            StmtKind::If { condition, then_branch, else_branch } => {
                kids.push(Node::Expr(*condition));
                kids.push(Node::Stmt(*then_branch));
                if let Some(e) = else_branch {
                    kids.push(Node::Label("else:".into(), Some(Box::new(Node::Stmt(*e)))));
                }
                "IfStmt"
            }
            StmtKind::For { init, condition, step, body } => {
                let opt = |label: &str, n: Option<Node<'a>>| Node::Label(label.into(), n.map(Box::new));
                kids.push(opt("init:", init.map(Node::Stmt)));
                kids.push(opt("cond:", condition.map(Node::Expr)));
                kids.push(opt("inc:", step.map(Node::Expr)));
                kids.push(Node::Stmt(*body));
                "ForStmt"
            }
            StmtKind::While { condition, body } => {
                kids.push(Node::Expr(*condition));
                kids.push(Node::Stmt(*body));
                "WhileStmt"
            }
            StmtKind::DoWhile { body, condition } => {
                kids.push(Node::Stmt(*body));
                kids.push(Node::Expr(*condition));
                "DoStmt"
            }
            StmtKind::Switch { condition, body } => {
                kids.push(Node::Expr(*condition));
                kids.push(Node::Stmt(*body));
                "SwitchStmt"
            }
            StmtKind::Case { value, body } => {
                kids.push(Node::Expr(*value));
                kids.push(Node::Stmt(*body));
                "CaseStmt"
            }
            StmtKind::Default { body } => {
                kids.push(Node::Stmt(*body));
                "DefaultStmt"
            }
            StmtKind::Break => "BreakStmt",
            StmtKind::Continue => "ContinueStmt",
            StmtKind::Return(v) => {
                kids.extend(v.map(Node::Expr));
                "ReturnStmt"
            }
            StmtKind::Discard => "DiscardStmt",
            StmtKind::Empty => "NullStmt",
            StmtKind::Error => "ErrorStmt",
        };
        self.line(format!("{name} {range}"));
        self.children(&kids);
    }

    fn expr(&mut self, id: ExprId) {
        let expr = self.ast.expr(id);
        let range = self.range(expr.span);
        let mut kids: Vec<Node<'a>> = Vec::new();
        let targs = |d: &Self, args: &Option<Vec<TemplateArg>>, kids: &mut Vec<Node<'a>>| -> String {
            let Some(args) = args else { return String::new() };
            let parts: Vec<String> = args
                .iter()
                .map(|a| match a {
                    TemplateArg::Type(t) => d.ast.type_spelling(*t),
                    TemplateArg::Expr(e) => {
                        kids.push(Node::Expr(*e));
                        d.ast.expr_spelling(*e)
                    }
                })
                .collect();
            format!("<{}>", parts.join(", "))
        };
        let header = match &expr.kind {
            ExprKind::IntLiteral { value, suffix } => {
                format!("IntegerLiteral {range} {value}{}", self.name(*suffix))
            }
            ExprKind::FloatLiteral { text, .. } => format!("FloatingLiteral {range} {}", self.name(*text)),
            ExprKind::BoolLiteral(b) => format!("CXXBoolLiteralExpr {range} {b}"),
            ExprKind::StringLiteral(parts) => {
                let text: Vec<&str> = parts.iter().map(|p| self.name(*p)).collect();
                format!("StringLiteral {range} {}", text.join(" "))
            }
            ExprKind::Name { name, template_args } => {
                let t = targs(self, template_args, &mut kids);
                format!("DeclRefExpr {range} '{}{t}'", self.ast.qualified_name_text(name))
            }
            ExprKind::This => format!("CXXThisExpr {range}"),
            ExprKind::Unary { op, operand } => {
                kids.push(Node::Expr(*operand));
                let fix = match op {
                    crate::ast::UnaryOp::PostInc | crate::ast::UnaryOp::PostDec => "postfix",
                    _ => "prefix",
                };
                format!("UnaryOperator {range} {fix} '{}'", op.spelling())
            }
            ExprKind::Binary { op, lhs, rhs } => {
                kids.push(Node::Expr(*lhs));
                kids.push(Node::Expr(*rhs));
                format!("BinaryOperator {range} '{}'", op.spelling())
            }
            ExprKind::Assign { op, lhs, rhs } => {
                kids.push(Node::Expr(*lhs));
                kids.push(Node::Expr(*rhs));
                match op {
                    None => format!("BinaryOperator {range} '='"),
                    Some(op) => format!("CompoundAssignOperator {range} '{}='", op.spelling()),
                }
            }
            ExprKind::Conditional { condition, then_value, else_value } => {
                kids.extend([Node::Expr(*condition), Node::Expr(*then_value), Node::Expr(*else_value)]);
                format!("ConditionalOperator {range}")
            }
            ExprKind::Call { callee, args } => {
                kids.push(Node::Expr(*callee));
                kids.extend(args.iter().map(|&a| Node::Expr(a)));
                format!("CallExpr {range}")
            }
            ExprKind::Member { base, member, template_args } => {
                let t = targs(self, template_args, &mut kids);
                kids.insert(0, Node::Expr(*base));
                format!("MemberExpr {range} .{}{t}", self.name(member.name))
            }
            ExprKind::Index { base, index } => {
                kids.extend([Node::Expr(*base), Node::Expr(*index)]);
                format!("ArraySubscriptExpr {range}")
            }
            ExprKind::Cast { ty, operand } => {
                kids.push(Node::Expr(*operand));
                format!("CStyleCastExpr {range} '{}'", self.ast.type_spelling(*ty))
            }
            ExprKind::Construct { ty, args } => {
                kids.extend(args.iter().map(|&a| Node::Expr(a)));
                format!("CXXFunctionalCastExpr {range} '{}'", self.ast.type_spelling(*ty))
            }
            ExprKind::InitList(items) => {
                kids.extend(items.iter().map(|&a| Node::Expr(a)));
                format!("InitListExpr {range}")
            }
            ExprKind::SizeOfType(t) => {
                format!("UnaryExprOrTypeTraitExpr {range} sizeof '{}'", self.ast.type_spelling(*t))
            }
            ExprKind::SizeOfExpr(e) => {
                kids.push(Node::Expr(*e));
                format!("UnaryExprOrTypeTraitExpr {range} sizeof")
            }
            ExprKind::Paren(e) => {
                kids.push(Node::Expr(*e));
                format!("ParenExpr {range}")
            }
            ExprKind::TypeMember { ty, member, template_args } => {
                let t = targs(self, template_args, &mut kids);
                format!(
                    "DependentScopeDeclRefExpr {range} '{}::{}{t}'",
                    self.ast.type_spelling(*ty),
                    self.name(member.name)
                )
            }
            ExprKind::DeclCondition(d) => {
                kids.push(Node::Decl(*d));
                format!("ConditionDecl {range}")
            }
            ExprKind::Error => format!("RecoveryExpr {range}"),
        };
        let typed = self.expr_annotation(id);
        self.line(header + &typed);
        self.children(&kids);
    }

    /// ` : 'type' lvalue -> target <Conversion 'to'> = value call 'overload'`.
    fn expr_annotation(&self, id: ExprId) -> String {
        let Some(tree) = self.typed else { return String::new() };
        let Some(info) = tree.expr(id) else { return String::new() };
        let types = &tree.types;
        let mut t = format!(" : '{}'", types.display(info.ty));
        match info.category {
            ValueCategory::LValue => t.push_str(" lvalue"),
            ValueCategory::ConstLValue => t.push_str(" const lvalue"),
            ValueCategory::RValue => {}
        }
        match &info.resolution {
            Resolution::None => {}
            Resolution::Decl(d) | Resolution::Method(d) => t.push_str(&format!(" -> {}", self.decl_ref(*d))),
            Resolution::EnumConstant(d) => t.push_str(&format!(" -> {}", self.decl_ref(*d))),
            Resolution::Field { decl, index } => {
                t.push_str(&format!(" -> field {index} {}", self.decl_ref(*decl)))
            }
            Resolution::Swizzle(ix) => {
                let parts: Vec<String> = ix.iter().map(|i| i.to_string()).collect();
                t.push_str(&format!(" swizzle({})", parts.join(",")));
            }
            Resolution::Intrinsic(_) | Resolution::ObjectMethod(_) => {}
            Resolution::BuiltinMember(m) => t.push_str(&format!(" builtin .{m}")),
            Resolution::Type(ty) => t.push_str(&format!(" type '{}'", types.display(*ty))),
        }
        if let Some(c) = &info.conversion {
            t.push_str(&format!(" <{:?} '{}'>", c.kind, types.display(c.to)));
        }
        if let Some(v) = info.constant {
            t.push_str(&format!(" = {v:?}"));
        }
        if let Some(call) = tree.calls.get(&id) {
            let params: Vec<String> = call
                .params
                .iter()
                .map(|(p, d)| {
                    let dir = match d {
                        crate::sema::tree::ParamDirection::In => "",
                        crate::sema::tree::ParamDirection::Out => "out ",
                        crate::sema::tree::ParamDirection::InOut => "inout ",
                    };
                    format!("{dir}{}", types.display(*p))
                })
                .collect();
            let callee = match &call.callee {
                Callee::Function(d) => self.decl_ref(*d),
                Callee::Intrinsic { name, .. } => format!("intrinsic {name}"),
                Callee::ObjectMethod { name, .. } => format!("method {name}"),
                Callee::Constructor => "constructor".to_string(),
            };
            t.push_str(&format!(" call {callee} '({}) -> {}'", params.join(", "), types.display(call.ret)));
        }
        t
    }

    /// `Var #12 'x'`: a declaration by kind, id and name.
    fn decl_ref(&self, id: DeclId) -> String {
        let decl = self.ast.decl(id);
        let (kind, name) = match &decl.kind {
            DeclKind::Var(v) => ("Var", v.name.map(|n| self.name(n.name).to_string()).unwrap_or_default()),
            DeclKind::Function(f) => ("Function", self.ast.qualified_name_text(&f.name)),
            DeclKind::EnumConstant { name, .. } => ("EnumConstant", self.name(name.name).to_string()),
            _ => ("Decl", String::new()),
        };
        format!("{kind} #{} '{name}'", id.0)
    }

    /// ` : 'resolved type'` and storage for declarations.
    fn decl_annotation(&self, id: DeclId) -> String {
        let Some(tree) = self.typed else { return String::new() };
        let Some(info) = tree.decl(id) else { return String::new() };
        let mut t = format!(" #{} : '{}'", id.0, tree.types.display(info.ty));
        if let Some(s) = info.storage {
            t.push_str(&format!(" storage={s:?}"));
        }
        if let Some(c) = info.constant {
            t.push_str(&format!(" = {c:?}"));
        }
        if let Some(d) = info.definition {
            t.push_str(&format!(" definition=#{}", d.0));
        }
        t
    }
}
