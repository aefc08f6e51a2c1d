//! Semantic analysis: the syntax tree to a typed, resolved tree.
//!
//! [`analyze`] walks the declarations in source order (as C++ does: a name is visible
//! after its declaration; struct members see each other), resolves every type
//! reference to an interned [`types::Ty`], types every expression, resolves every
//! name to its declaration and every call to its overload (user functions, the
//! intrinsic table in [`intrinsics`], object methods), evaluates constants, and
//! checks the entry point. The results are side tables of the tree ([`tree`]).
//!
//! Errors follow dxc's wording where its tests check it. An erroneous expression gets
//! the error type, which converts to anything silently, so one mistake is reported
//! once.

mod clone;
pub mod convert;
mod decl;
mod entry;
mod expr;
pub mod intrinsics;
mod lookup;
mod stmt;
pub mod tree;
pub mod types;

use crate::ast::{
    Ast, Decl, DeclId, DeclKind, ExprId, ExprKind, Ident, Modifiers, QualifiedName, TypeKind, TypeRef,
    VarDecl,
};
use crate::diag::{Diagnostic, Diagnostics};
use crate::source::Span;
use lookup::{Entity, Scope, ScopeKind};
use std::collections::HashMap;
use tree::{CallInfo, ConstValue, DeclInfo, ExprInfo, Instantiation, Stage, TemplateValue, TypedTree};
use types::{Ty, TypeTable};

/// How deep template instantiations may nest.
pub const MAX_INSTANTIATION_DEPTH: u32 = 64;
/// How deep expression checking may recurse (the parser bounds trees lower).
pub const MAX_EXPR_DEPTH: u32 = 1100;

/// What sema needs from the command line.
#[derive(Clone, Debug)]
pub struct SemaOptions {
    /// 2016, 2018, 2021 (`-HV`).
    pub hlsl_version: u32,
    pub enable_16bit_types: bool,
    /// `-enable-payload-qualifiers` (`Some(true)`) or `-disable-payload-qualifiers`
    /// (`Some(false)`); `None`: on for `lib_6_7` and later, as dxc does.
    pub payload_access_qualifiers: Option<bool>,
    /// The stage of the `-T` profile (`Library` for `lib_*`); `None` skips the entry
    /// point checks.
    pub stage: Option<Stage>,
    /// The `-T` profile's shader model.
    pub shader_model: (u32, u32),
    /// `-E`; `main` when not given.
    pub entry: Option<String>,
    /// `-fvk-stage-io-order`: how stage variables without `[[vk::location]]` are
    /// numbered.
    pub stage_io_order: StageIoOrder,
}

/// The order in which stage variables get their locations (`-fvk-stage-io-order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StageIoOrder {
    /// Declaration order (dxc's default).
    #[default]
    Decl,
    /// Alphabetical order of the semantic strings.
    Alpha,
}

impl Default for SemaOptions {
    fn default() -> SemaOptions {
        SemaOptions {
            hlsl_version: 2021,
            enable_16bit_types: false,
            payload_access_qualifiers: None,
            stage: None,
            shader_model: (6, 0),
            entry: None,
            stage_io_order: StageIoOrder::Decl,
        }
    }
}

/// Runs semantic analysis over a parsed translation unit.
pub fn analyze(ast: Ast, diags: &mut Diagnostics, options: &SemaOptions) -> TypedTree {
    let mut sema = Sema::new(ast, diags, options.clone());
    sema.run();
    sema.finish()
}

/// A template declaration and where it was declared (for lookups in instantiations).
#[derive(Clone, Debug)]
struct TemplateInfo {
    /// The scopes at its declaration (namespaces and enclosing structs).
    context: Vec<Scope>,
    /// Explicit specializations: their template arguments and declaration.
    specializations: Vec<(Vec<TemplateValue>, DeclId)>,
    /// Partial specializations (their `Template` declarations).
    partials: Vec<DeclId>,
}

/// The function whose body is being checked.
#[derive(Clone, Debug)]
struct FunctionContext {
    decl: DeclId,
    ret: Ty,
    this_ty: Option<Ty>,
    is_const_method: bool,
}

pub(crate) struct Sema<'d> {
    ast: Ast,
    diags: &'d mut Diagnostics,
    opts: SemaOptions,
    types: TypeTable,
    exprs: Vec<ExprInfo>,
    decls: Vec<DeclInfo>,
    calls: HashMap<ExprId, CallInfo>,
    instantiations: Vec<Instantiation>,
    /// Namespaces' names (0 is the global namespace).
    namespaces: Vec<lookup::Namespace>,
    scopes: Vec<Scope>,
    templates: HashMap<DeclId, TemplateInfo>,
    /// Instantiation cache: (template declaration, arguments) -> entity.
    instances: Vec<(DeclId, Vec<TemplateValue>, Entity)>,
    /// Function template instances whose bodies are not checked yet.
    pending_instances: HashMap<DeclId, decl::PendingInstance>,
    /// Function template arguments whose substitution failed (not viable).
    failed_substitutions: Vec<(DeclId, Vec<TemplateValue>)>,
    instantiation_depth: u32,
    function: Option<FunctionContext>,
    /// The struct type of each struct declaration.
    struct_types: HashMap<DeclId, Ty>,
    /// Built-in structs (`RayDesc`, ...) by name.
    builtin_structs: HashMap<&'static str, Ty>,
    expr_depth: u32,
    /// Functions with bodies, for the entry point search.
    functions: Vec<DeclId>,
    /// The current `#pragma pack_matrix` default.
    pack_matrix_row_major: Option<bool>,
    entry_points: Vec<tree::EntryPoint>,
    /// The `[[vk::push_constant]]` attribute of the first push constant block.
    push_constant_seen: Option<Span>,
    /// Whether "payload access qualifiers ignored" was reported (dxc says it once).
    payload_access_warned: bool,
    /// `register(cN)` ranges of `$Globals` members and their names.
    constant_registers: Vec<((u32, u32), String)>,
    /// Calls between functions (caller's body, chosen callee), for reachability.
    call_edges: Vec<(DeclId, DeclId)>,
    /// Errors dxc's SPIR-V emitter gives, which it meets only in the functions it
    /// emits (those the entry point reaches), with the function they are in.
    codegen_errors: Vec<(DeclId, Span, String)>,
    /// Function prototypes in function bodies: (namespace, name, declaration), for
    /// the namespace-scope definition that follows them.
    block_prototypes: Vec<(usize, crate::lexer::Symbol, DeclId)>,
}

impl<'d> Sema<'d> {
    fn new(ast: Ast, diags: &'d mut Diagnostics, opts: SemaOptions) -> Sema<'d> {
        let mut s = Sema {
            ast,
            diags,
            opts,
            types: TypeTable::new(),
            exprs: Vec::new(),
            decls: Vec::new(),
            calls: HashMap::new(),
            instantiations: Vec::new(),
            namespaces: vec![lookup::Namespace::default()],
            scopes: vec![Scope::new(ScopeKind::Namespace(0))],
            templates: HashMap::new(),
            instances: Vec::new(),
            pending_instances: HashMap::new(),
            failed_substitutions: Vec::new(),
            instantiation_depth: 0,
            function: None,
            struct_types: HashMap::new(),
            builtin_structs: HashMap::new(),
            expr_depth: 0,
            functions: Vec::new(),
            pack_matrix_row_major: None,
            entry_points: Vec::new(),
            push_constant_seen: None,
            payload_access_warned: false,
            constant_registers: Vec::new(),
            call_edges: Vec::new(),
            codegen_errors: Vec::new(),
            block_prototypes: Vec::new(),
        };
        s.declare_builtin_structs();
        s.declare_builtin_namespaces();
        s
    }

    /// dxc's shader model 6.9 `namespace dx`: present (so `using namespace dx;` holds)
    /// but empty, its Shader Execution Reordering members reported as not supported.
    fn declare_builtin_namespaces(&mut self) {
        if self.opts.shader_model >= (6, 9) {
            let name = self.ast.interner.intern("dx");
            self.namespaces.push(lookup::Namespace { path: "dx".into(), ..Default::default() });
            let ns = self.namespaces.len() - 1;
            self.declare(name, Entity::Namespace(ns));
        }
    }

    fn run(&mut self) {
        let items = self.ast.items.clone();
        for item in items {
            if self.diags.limit_reached() {
                break;
            }
            self.global_decl(item);
        }
        self.check_entry_points();
        self.report_codegen_errors();
        if !self.diags.limit_reached() {
            self.check_undefined_statics();
            self.check_combined_image_samplers();
        }
    }

    fn finish(mut self) -> TypedTree {
        self.grow_tables();
        TypedTree {
            ast: self.ast,
            types: self.types,
            exprs: self.exprs,
            decls: self.decls,
            calls: self.calls,
            entry_points: self.entry_points,
            instantiations: self.instantiations,
        }
    }

    /// Keeps the side tables as long as the arenas (instantiation adds nodes).
    fn grow_tables(&mut self) {
        if self.exprs.len() < self.ast.exprs.len() {
            self.exprs.resize(self.ast.exprs.len(), ExprInfo::default());
        }
        if self.decls.len() < self.ast.decls.len() {
            self.decls.resize(self.ast.decls.len(), DeclInfo::default());
        }
    }

    fn expr_info(&mut self, id: ExprId) -> &mut ExprInfo {
        let i = id.index();
        if i >= self.exprs.len() {
            self.grow_tables();
            if i >= self.exprs.len() {
                self.exprs.resize(i + 1, ExprInfo::default());
            }
        }
        &mut self.exprs[i]
    }

    fn decl_info(&mut self, id: DeclId) -> &mut DeclInfo {
        let i = id.index();
        if i >= self.decls.len() {
            self.grow_tables();
            if i >= self.decls.len() {
                self.decls.resize(i + 1, DeclInfo::default());
            }
        }
        &mut self.decls[i]
    }

    fn decl_ty(&self, id: DeclId) -> Ty {
        self.decls.get(id.index()).map_or(TypeTable::ERROR, |d| d.ty)
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.error(span, message);
    }

    /// An error dxc gives while emitting SPIR-V: reported at once outside a function,
    /// else kept until the entry point is known (see `report_codegen_errors`).
    fn codegen_error(&mut self, span: Span, message: impl Into<String>) {
        match &self.function {
            Some(f) => self.codegen_errors.push((f.decl, span, message.into())),
            None => self.error(span, message),
        }
    }

    /// dxc emits only the functions its entry points reach, so an error its emitter
    /// gives in a function nothing calls is never reported. Without an entry point
    /// (no `-T`, or none found) every function counts as reached.
    fn report_codegen_errors(&mut self) {
        let errors = std::mem::take(&mut self.codegen_errors);
        if errors.is_empty() {
            return;
        }
        let definition = |s: &Self, d: DeclId| s.decls.get(d.index()).and_then(|i| i.definition).unwrap_or(d);
        let mut callees: HashMap<DeclId, Vec<DeclId>> = HashMap::new();
        for &(caller, callee) in &self.call_edges {
            callees.entry(definition(self, caller)).or_default().push(definition(self, callee));
        }
        let mut reached: std::collections::HashSet<DeclId> = std::collections::HashSet::new();
        let mut work: Vec<DeclId> = self.entry_points.iter().map(|e| definition(self, e.function)).collect();
        let everything = work.is_empty();
        while let Some(f) = work.pop() {
            if reached.insert(f) {
                work.extend(callees.get(&f).into_iter().flatten().copied());
            }
        }
        for (function, span, message) in errors {
            if everything || reached.contains(&definition(self, function)) {
                self.error(span, message);
            }
        }
    }

    /// An unknown name: "not supported yet" when it is one of dxc's shader model 6.9
    /// Shader Execution Reordering built-ins (`dx::HitObject`, `dx::MaybeReorderThread`,
    /// the `dx` namespace), which this front end does not model; `otherwise` else.
    fn unknown_name_error(&mut self, span: Span, name: &str, otherwise: String) {
        if name == "dx::IsDebuggingEnabled" && self.opts.shader_model >= (6, 10) {
            // A shader model 6.10 intrinsic whose answer only a DXIL debugger knows.
            self.codegen_error(span, "no equivalent for IsDebuggingEnabled intrinsic function in Vulkan");
            return;
        }
        let first = name.split("::").next().unwrap_or(name);
        let ser = matches!(first, "dx" | "HitObject" | "MaybeReorderThread");
        if ser && self.opts.shader_model >= (6, 9) {
            self.error(
                span,
                format!("not supported yet: '{name}' (Shader Execution Reordering, dx::HitObject and dx::MaybeReorderThread)"),
            );
        } else {
            self.error(span, otherwise);
        }
    }

    fn warning(&mut self, span: Span, flag: &'static str, message: impl Into<String>) {
        self.diags.warning(span, flag, message);
    }

    fn report(&mut self, diag: Diagnostic) {
        self.diags.report(diag);
    }

    fn name(&self, sym: crate::lexer::Symbol) -> &str {
        self.ast.name(sym)
    }

    fn display(&self, ty: Ty) -> String {
        self.types.display(ty)
    }

    /// `'float4'`, or `'const float4'` for a const lvalue, as clang quotes types.
    fn quoted(&self, ty: Ty) -> String {
        format!("'{}'", self.display(ty))
    }

    /// `RayDesc` and `BuiltInTriangleIntersectionAttributes` are structs the language
    /// defines; they get synthesized declarations so fields resolve like any other.
    /// The sampler feedback kinds (`FeedbackTexture2D<SAMPLER_FEEDBACK_MIN_MIP>`) are
    /// empty structs, as in dxc.
    fn declare_builtin_structs(&mut self) {
        let defs: [(&'static str, &[(&str, &str)]); 4] = [
            (
                "RayDesc",
                &[("float3", "Origin"), ("float", "TMin"), ("float3", "Direction"), ("float", "TMax")],
            ),
            ("BuiltInTriangleIntersectionAttributes", &[("float2", "barycentrics")]),
            ("SAMPLER_FEEDBACK_MIN_MIP", &[]),
            ("SAMPLER_FEEDBACK_MIP_REGION_USED", &[]),
        ];
        for (name, fields) in defs {
            let span = Span::default();
            let mut members = Vec::new();
            for (ty_name, field) in fields {
                let ty = self.named_type_ref(ty_name);
                let ident = Ident { name: self.ast.interner.intern(field), span };
                let var = VarDecl {
                    ty,
                    name: Some(ident),
                    qualifier: Vec::new(),
                    array_dims: Vec::new(),
                    annotations: Vec::new(),
                    init: None,
                    bit_width: None,
                    has_effect_annotations: false,
                };
                members.push(self.ast.add_decl(Decl {
                    kind: DeclKind::Var(var),
                    attrs: Vec::new(),
                    modifiers: Modifiers::default(),
                    span,
                }));
            }
            let ident = Ident { name: self.ast.interner.intern(name), span };
            let decl = self.ast.add_decl(Decl {
                kind: DeclKind::Struct {
                    keyword: crate::ast::StructKeyword::Struct,
                    name: Some(ident),
                    template_args: None,
                    bases: Vec::new(),
                    members: Some(members),
                },
                attrs: Vec::new(),
                modifiers: Modifiers::default(),
                span,
            });
            let ty = self.struct_decl(decl, None);
            self.builtin_structs.insert(name, ty);
        }
    }

    fn named_type_ref(&mut self, name: &str) -> crate::ast::TypeId {
        let ident = Ident { name: self.ast.interner.intern(name), span: Span::default() };
        self.ast.add_type(TypeRef {
            kind: TypeKind::Named {
                name: QualifiedName { global: false, segments: vec![ident] },
                args: None,
            },
            modifiers: Modifiers::default(),
            span: Span::default(),
        })
    }

    /// Evaluates an expression that must be an integer constant.
    fn const_int(&mut self, e: ExprId, what: &str) -> Option<i64> {
        let ty = self.check_expr(e);
        if self.types.is_error(ty) {
            return None;
        }
        match self.exprs.get(e.index()).and_then(|i| i.constant) {
            Some(v) => v.as_int(),
            None => {
                let span = self.ast.expr(e).span;
                self.error(span, format!("{what} is not an integral constant expression"));
                None
            }
        }
    }

    /// Whether an expression is a string literal (for `printf` and attributes).
    fn is_string_literal(&self, e: ExprId) -> bool {
        matches!(self.ast.expr(e).kind, ExprKind::StringLiteral(_))
    }

    fn constant_of(&self, e: ExprId) -> Option<ConstValue> {
        self.exprs.get(e.index()).and_then(|i| i.constant)
    }
}
