//! The syntax tree: arenas of declarations, statements, expressions and type
//! references, linked by small typed ids. Nothing is resolved here: type names are
//! kept as spelled (`float4`, `vector<float, 4>`, `Texture2D<float4>`), and sema maps
//! them to types later. Everything codegen needs from the source is kept: modifiers,
//! semantics, `register`/`packoffset`, every attribute with its arguments, pragmas.

use crate::lexer::{Interner, Symbol};
use crate::source::Span;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A declaration in [`Ast::decls`].
    DeclId
);
id_type!(
    /// A statement in [`Ast::stmts`].
    StmtId
);
id_type!(
    /// An expression in [`Ast::exprs`].
    ExprId
);
id_type!(
    /// A type reference in [`Ast::types`].
    TypeId
);

/// Declaration and type modifiers, as a bit set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers(pub u64);

macro_rules! modifiers {
    ($($name:ident = $bit:expr, $text:expr;)*) => {
        impl Modifiers {
            $(pub const $name: Modifiers = Modifiers(1 << $bit);)*
            /// Every modifier with its keyword, in bit order.
            pub const ALL: &'static [(Modifiers, &'static str)] = &[$((Modifiers::$name, $text)),*];
        }
    };
}

modifiers! {
    STATIC = 0, "static";
    CONST = 1, "const";
    UNIFORM = 2, "uniform";
    EXTERN = 3, "extern";
    GROUPSHARED = 4, "groupshared";
    PRECISE = 5, "precise";
    NOINTERPOLATION = 6, "nointerpolation";
    LINEAR = 7, "linear";
    CENTROID = 8, "centroid";
    NOPERSPECTIVE = 9, "noperspective";
    SAMPLE = 10, "sample";
    ROW_MAJOR = 11, "row_major";
    COLUMN_MAJOR = 12, "column_major";
    IN = 13, "in";
    OUT = 14, "out";
    INOUT = 15, "inout";
    SNORM = 16, "snorm";
    UNORM = 17, "unorm";
    VOLATILE = 18, "volatile";
    INLINE = 19, "inline";
    SHARED = 20, "shared";
    EXPORT = 21, "export";
    GLOBALLYCOHERENT = 22, "globallycoherent";
    REORDERCOHERENT = 23, "reordercoherent";
    POINT = 24, "point";
    LINE = 25, "line";
    TRIANGLE = 26, "triangle";
    LINEADJ = 27, "lineadj";
    TRIANGLEADJ = 28, "triangleadj";
    VERTICES = 29, "vertices";
    INDICES = 30, "indices";
    PRIMITIVES = 31, "primitives";
    PAYLOAD = 32, "payload";
    CENTER = 33, "center";
    UNSIGNED = 34, "unsigned";
    SIGNED = 35, "signed";
    NODE_INPUT = 36, "nodeinput";
}

impl Modifiers {
    pub fn contains(self, other: Modifiers) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }

    pub fn insert(&mut self, other: Modifiers) {
        self.0 |= other.0;
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The keywords of the set, space-separated.
    pub fn spelling(self) -> String {
        let words: Vec<&str> =
            Modifiers::ALL.iter().filter(|(m, _)| self.contains(*m)).map(|(_, s)| *s).collect();
        words.join(" ")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: Symbol,
    pub span: Span,
}

/// `a::b::c`, or `::c` when `global`.
#[derive(Clone, Debug, PartialEq)]
pub struct QualifiedName {
    pub global: bool,
    pub segments: Vec<Ident>,
}

impl QualifiedName {
    pub fn last(&self) -> Option<Ident> {
        self.segments.last().copied()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TemplateArg {
    Type(TypeId),
    Expr(ExprId),
}

/// A type as written.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeRef {
    pub kind: TypeKind,
    /// Modifiers written inside the type (`unorm float4` in a template argument).
    pub modifiers: Modifiers,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    /// A named type with optional template arguments: `float4`, `vector<float, 4>`,
    /// `Texture2D<float4>`, `ns::S`, `vk::SpirvType<...>`, `unsigned int`.
    Named { name: QualifiedName, args: Option<Vec<TemplateArg>> },
    /// A struct defined where it is used (`struct { float a; } v;`).
    Struct(DeclId),
    /// `T[N]` in a template argument or typedef.
    Array { element: TypeId, size: Option<ExprId> },
    /// A member type of a template instantiation: `Traits<T>::type`,
    /// `Traits<int>::Rebind<half>` (the owner carries its arguments).
    Member { owner: TypeId, name: Ident, args: Option<Vec<TemplateArg>> },
}

/// `[name(args)]` or `[[ns::name(args)]]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub namespace: Option<Ident>,
    pub name: Ident,
    pub args: Vec<ExprId>,
    /// Written with C++11 double brackets.
    pub double_bracket: bool,
    pub span: Span,
}

/// What follows a declarator after `:`.
#[derive(Clone, Debug, PartialEq)]
pub enum Annotation {
    /// `: SV_Target0`, `: TEXCOORD`.
    Semantic(Ident),
    /// `: register([profile,] slot[subcomponent] [, space])`.
    Register {
        profile: Option<Ident>,
        slot: Ident,
        subcomponent: Option<ExprId>,
        space: Option<Ident>,
        span: Span,
    },
    /// `: packoffset(c0.y)`.
    PackOffset { register: Ident, component: Option<Ident>, span: Span },
    /// A ray payload field's access qualifier, `: read(caller, closesthit)` or
    /// `: write(miss)`: the stages that may read or write the field.
    PayloadAccess { write: bool, stages: Vec<Ident>, span: Span },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    pub kind: DeclKind,
    pub attrs: Vec<Attribute>,
    /// Storage classes and modifiers written before the type.
    pub modifiers: Modifiers,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StructKeyword {
    Struct,
    Class,
    Interface,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferKind {
    CBuffer,
    TBuffer,
}

/// A variable, field or parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub ty: TypeId,
    pub name: Option<Ident>,
    /// The `S::` of an out-of-line static member definition (`float S::x = 1;`).
    pub qualifier: Vec<Ident>,
    /// `[N]` per dimension; `None` for `[]`.
    pub array_dims: Vec<Option<ExprId>>,
    pub annotations: Vec<Annotation>,
    pub init: Option<ExprId>,
    /// Bit-field width (`uint a : 4;`).
    pub bit_width: Option<ExprId>,
    /// Effect-style `<...>` annotations were present (skipped).
    pub has_effect_annotations: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDecl {
    pub ret: TypeId,
    /// The name; `S::f` for out-of-line methods, `operator+` for operators.
    pub name: QualifiedName,
    pub params: Vec<DeclId>,
    /// Annotations of the return value (`: SV_Target`).
    pub annotations: Vec<Annotation>,
    pub body: Option<StmtId>,
    /// A `const` method.
    pub is_const: bool,
    /// Explicit template arguments of a specialization (`f<int>`).
    pub template_args: Option<Vec<TemplateArg>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TemplateParam {
    pub kind: TemplateParamKind,
    pub name: Option<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TemplateParamKind {
    Type { default: Option<TypeId> },
    Value { ty: TypeId, default: Option<ExprId> },
}

#[derive(Clone, Debug, PartialEq)]
pub enum DeclKind {
    Var(VarDecl),
    Function(FunctionDecl),
    Struct {
        keyword: StructKeyword,
        name: Option<Ident>,
        /// Template arguments of an explicit specialization.
        template_args: Option<Vec<TemplateArg>>,
        bases: Vec<TypeId>,
        /// `None` for a forward declaration.
        members: Option<Vec<DeclId>>,
    },
    Typedef {
        ty: TypeId,
        name: Ident,
        array_dims: Vec<Option<ExprId>>,
    },
    /// `using Name = Type;`
    TypeAlias {
        name: Ident,
        ty: TypeId,
    },
    /// `using namespace a::b;`
    UsingNamespace(QualifiedName),
    /// `using a::b;`
    UsingDecl(QualifiedName),
    Enum {
        name: Option<Ident>,
        scoped: bool,
        underlying: Option<TypeId>,
        constants: Vec<DeclId>,
    },
    EnumConstant {
        name: Ident,
        value: Option<ExprId>,
    },
    Namespace {
        name: Option<Ident>,
        decls: Vec<DeclId>,
    },
    /// `cbuffer`/`tbuffer`.
    Buffer {
        kind: BufferKind,
        name: Ident,
        annotations: Vec<Annotation>,
        decls: Vec<DeclId>,
    },
    Template {
        params: Vec<TemplateParam>,
        decl: DeclId,
    },
    StaticAssert {
        condition: ExprId,
        message: Option<ExprId>,
    },
    /// A `#pragma` at this point of the declarations (`pack_matrix(row_major)`).
    Pragma(String),
    /// A stray `;` or effect-framework construct that was skipped.
    Empty,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub attrs: Vec<Attribute>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Expr(ExprId),
    Decl(Vec<DeclId>),
    Block(Vec<StmtId>),
    If {
        condition: ExprId,
        then_branch: StmtId,
        else_branch: Option<StmtId>,
    },
    For {
        init: Option<StmtId>,
        condition: Option<ExprId>,
        step: Option<ExprId>,
        body: StmtId,
    },
    While {
        condition: ExprId,
        body: StmtId,
    },
    DoWhile {
        body: StmtId,
        condition: ExprId,
    },
    Switch {
        condition: ExprId,
        body: StmtId,
    },
    Case {
        value: ExprId,
        body: StmtId,
    },
    Default {
        body: StmtId,
    },
    Break,
    Continue,
    Return(Option<ExprId>),
    Discard,
    Empty,
    /// What was left after a syntax error.
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Plus,
    Minus,
    Not,
    BitNot,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

impl UnaryOp {
    pub fn spelling(self) -> &'static str {
        match self {
            UnaryOp::Plus => "+",
            UnaryOp::Minus => "-",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
            UnaryOp::PreInc | UnaryOp::PostInc => "++",
            UnaryOp::PreDec | UnaryOp::PostDec => "--",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogicalAnd,
    LogicalOr,
    Comma,
}

impl BinaryOp {
    pub fn spelling(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Gt => ">",
            BinaryOp::Le => "<=",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::LogicalAnd => "&&",
            BinaryOp::LogicalOr => "||",
            BinaryOp::Comma => ",",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// Height of the subtree (leaves are 1). The parser bounds it, so recursive
    /// walkers of the tree cannot overflow the stack.
    pub height: u16,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal; `suffix` is `u`, `l`, `ul`, ... as written (lowercased).
    IntLiteral {
        value: u64,
        suffix: Symbol,
    },
    /// A floating literal as written (sema decides its type from the suffix).
    FloatLiteral {
        value: f64,
        text: Symbol,
    },
    BoolLiteral(bool),
    /// Adjacent string literals, each with its quotes.
    StringLiteral(Vec<Symbol>),
    Name {
        name: QualifiedName,
        template_args: Option<Vec<TemplateArg>>,
    },
    This,
    Unary {
        op: UnaryOp,
        operand: ExprId,
    },
    Binary {
        op: BinaryOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    /// `=` (op `None`) or a compound assignment.
    Assign {
        op: Option<BinaryOp>,
        lhs: ExprId,
        rhs: ExprId,
    },
    Conditional {
        condition: ExprId,
        then_value: ExprId,
        else_value: ExprId,
    },
    Call {
        callee: ExprId,
        args: Vec<ExprId>,
    },
    /// `.name` (member, method or swizzle), with template arguments for `Load<T>`.
    Member {
        base: ExprId,
        member: Ident,
        template_args: Option<Vec<TemplateArg>>,
    },
    Index {
        base: ExprId,
        index: ExprId,
    },
    /// `(T)x`
    Cast {
        ty: TypeId,
        operand: ExprId,
    },
    /// `T(args)`: a constructor or functional cast.
    Construct {
        ty: TypeId,
        args: Vec<ExprId>,
    },
    /// `{ a, b, { c } }`
    InitList(Vec<ExprId>),
    SizeOfType(TypeId),
    SizeOfExpr(ExprId),
    Paren(ExprId),
    /// A member named through a type: `Trait<half>::size`, `S<T>::f`.
    TypeMember {
        ty: TypeId,
        member: Ident,
        template_args: Option<Vec<TemplateArg>>,
    },
    /// A declaration used as a condition: `if (int x = f())`.
    DeclCondition(DeclId),
    /// What was left after a syntax error.
    Error,
}

/// One translation unit's syntax tree. Owns the string table its symbols refer to.
#[derive(Debug, Default)]
pub struct Ast {
    pub interner: Interner,
    pub decls: Vec<Decl>,
    pub stmts: Vec<Stmt>,
    pub exprs: Vec<Expr>,
    pub types: Vec<TypeRef>,
    /// Top-level declarations in source order.
    pub items: Vec<DeclId>,
}

impl Ast {
    pub fn decl(&self, id: DeclId) -> &Decl {
        &self.decls[id.index()]
    }

    pub fn stmt(&self, id: StmtId) -> &Stmt {
        &self.stmts[id.index()]
    }

    pub fn expr(&self, id: ExprId) -> &Expr {
        &self.exprs[id.index()]
    }

    pub fn ty(&self, id: TypeId) -> &TypeRef {
        &self.types[id.index()]
    }

    pub fn name(&self, sym: Symbol) -> &str {
        self.interner.get(sym)
    }

    pub fn add_decl(&mut self, decl: Decl) -> DeclId {
        self.decls.push(decl);
        DeclId(self.decls.len() as u32 - 1)
    }

    pub fn add_stmt(&mut self, stmt: Stmt) -> StmtId {
        self.stmts.push(stmt);
        StmtId(self.stmts.len() as u32 - 1)
    }

    pub fn add_type(&mut self, ty: TypeRef) -> TypeId {
        self.types.push(ty);
        TypeId(self.types.len() as u32 - 1)
    }

    /// Adds an expression, computing its height from its children's.
    pub fn add_expr(&mut self, kind: ExprKind, span: Span) -> ExprId {
        let mut height = 0u16;
        for child in expr_children(&kind) {
            height = height.max(self.exprs.get(child.index()).map_or(0, |e| e.height));
        }
        self.exprs.push(Expr { kind, span, height: height.saturating_add(1) });
        ExprId(self.exprs.len() as u32 - 1)
    }

    pub fn qualified_name_text(&self, name: &QualifiedName) -> String {
        let mut s = String::new();
        if name.global {
            s.push_str("::");
        }
        for (n, seg) in name.segments.iter().enumerate() {
            if n > 0 {
                s.push_str("::");
            }
            s.push_str(self.name(seg.name));
        }
        s
    }

    /// The type as it would be written: `const float4`, `Texture2D<vector<float, 4> >`.
    pub fn type_spelling(&self, id: TypeId) -> String {
        let mut out = String::new();
        self.write_type(&mut out, id, 0);
        out
    }

    /// `<T, 3>` of a written type, each argument at `depth + 1`.
    fn write_template_args(&self, out: &mut String, args: &[TemplateArg], depth: usize) {
        out.push('<');
        for (n, arg) in args.iter().enumerate() {
            if n > 0 {
                out.push_str(", ");
            }
            match arg {
                TemplateArg::Type(t) => self.write_type(out, *t, depth + 1),
                TemplateArg::Expr(e) => out.push_str(&self.expr_spelling(*e)),
            }
        }
        out.push('>');
    }

    fn write_type(&self, out: &mut String, id: TypeId, depth: usize) {
        let Some(ty) = self.types.get(id.index()) else { return };
        if depth > 64 {
            out.push_str("...");
            return;
        }
        if !ty.modifiers.is_empty() {
            out.push_str(&ty.modifiers.spelling());
            out.push(' ');
        }
        match &ty.kind {
            TypeKind::Named { name, args } => {
                out.push_str(&self.qualified_name_text(name));
                if let Some(args) = args {
                    self.write_template_args(out, args, depth);
                }
            }
            TypeKind::Struct(decl) => {
                let name = match &self.decl(*decl).kind {
                    DeclKind::Struct { name: Some(n), .. } => self.name(n.name).to_string(),
                    _ => "(anonymous)".to_string(),
                };
                out.push_str("struct ");
                out.push_str(&name);
            }
            TypeKind::Member { owner, name, args } => {
                self.write_type(out, *owner, depth + 1);
                out.push_str("::");
                out.push_str(self.name(name.name));
                if let Some(args) = args {
                    self.write_template_args(out, args, depth);
                }
            }
            TypeKind::Array { element, size } => {
                self.write_type(out, *element, depth + 1);
                out.push('[');
                if let Some(size) = size {
                    out.push_str(&self.expr_spelling(*size));
                }
                out.push(']');
            }
        }
    }

    /// A short spelling of simple expressions (literals and names), for type spellings.
    pub fn expr_spelling(&self, id: ExprId) -> String {
        match &self.expr(id).kind {
            ExprKind::IntLiteral { value, .. } => value.to_string(),
            ExprKind::FloatLiteral { text, .. } => self.name(*text).to_string(),
            ExprKind::BoolLiteral(b) => b.to_string(),
            ExprKind::StringLiteral(parts) => {
                parts.iter().map(|p| self.name(*p)).collect::<Vec<_>>().join(" ")
            }
            ExprKind::Name { name, .. } => self.qualified_name_text(name),
            _ => "<expr>".to_string(),
        }
    }
}

/// The direct sub-expressions of an expression (not those inside types).
pub fn expr_children(kind: &ExprKind) -> Vec<ExprId> {
    match kind {
        ExprKind::IntLiteral { .. }
        | ExprKind::FloatLiteral { .. }
        | ExprKind::BoolLiteral(_)
        | ExprKind::StringLiteral(_)
        | ExprKind::Name { .. }
        | ExprKind::This
        | ExprKind::SizeOfType(_)
        | ExprKind::TypeMember { .. }
        | ExprKind::DeclCondition(_)
        | ExprKind::Error => Vec::new(),
        ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => vec![*operand],
        ExprKind::SizeOfExpr(e) | ExprKind::Paren(e) => vec![*e],
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Assign { lhs, rhs, .. } => vec![*lhs, *rhs],
        ExprKind::Conditional { condition, then_value, else_value } => {
            vec![*condition, *then_value, *else_value]
        }
        ExprKind::Call { callee, args } => std::iter::once(*callee).chain(args.iter().copied()).collect(),
        ExprKind::Member { base, .. } => vec![*base],
        ExprKind::Index { base, index } => vec![*base, *index],
        ExprKind::Construct { args, .. } | ExprKind::InitList(args) => args.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, Span};

    #[test]
    fn heights_grow_with_nesting() {
        let mut ast = Ast::default();
        let sym = ast.interner.intern("");
        let span = Span::new(FileId(0), 0, 0);
        let a = ast.add_expr(ExprKind::IntLiteral { value: 1, suffix: sym }, span);
        let b = ast.add_expr(ExprKind::Unary { op: UnaryOp::Minus, operand: a }, span);
        let c = ast.add_expr(ExprKind::Binary { op: BinaryOp::Add, lhs: a, rhs: b }, span);
        assert_eq!((ast.expr(a).height, ast.expr(b).height, ast.expr(c).height), (1, 2, 3));
    }

    #[test]
    fn modifiers_spell_in_order() {
        let mut m = Modifiers::default();
        m.insert(Modifiers::ROW_MAJOR);
        m.insert(Modifiers::STATIC);
        assert_eq!(m.spelling(), "static row_major");
        assert!(m.contains(Modifiers::STATIC) && !m.contains(Modifiers::CONST));
    }
}
