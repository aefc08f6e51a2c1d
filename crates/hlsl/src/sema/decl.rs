//! Declarations: variables, functions, structs, enums, typedefs, namespaces,
//! cbuffers, templates and their instantiation.

use super::clone::Cloner;
use super::lookup::{Entity, Found, Scope, ScopeKind};
use super::tree::{
    ConstValue, GlobalStorage, Instantiation, ParamDirection, Resolution, Stage, TemplateValue,
};
use super::types::{EnumInfo, Field, Scalar, StructId, StructInfo, Ty, TypeData, TypeTable};
use super::{FunctionContext, Sema, TemplateInfo, MAX_INSTANTIATION_DEPTH};
use crate::ast::{
    DeclId, DeclKind, ExprId, ExprKind, Ident, Modifiers, TemplateArg, TemplateParamKind, VarDecl,
};
use crate::source::Span;
use std::collections::{HashMap, HashSet};

/// Template parameters bound to their arguments.
pub(super) type Bindings = Vec<(crate::lexer::Symbol, Entity)>;

/// A function template instance whose declaration is known but whose body waits
/// until overload resolution chooses it.
#[derive(Clone, Debug)]
pub(super) struct PendingInstance {
    template: DeclId,
    values: Vec<TemplateValue>,
    bindings: Bindings,
    owner: Option<Ty>,
}

/// What a `[[vk::...]]` attribute is attached to (clang's attribute subjects).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AttrSubject {
    GlobalVar(Ty),
    /// `cbuffer` (constant) or `tbuffer`.
    Buffer {
        constant: bool,
    },
    Field,
    Param,
    Function,
}

/// Where a variable is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarContext {
    Global,
    /// A member of a `cbuffer`/`tbuffer`.
    Buffer(DeclId),
    Local,
    Param,
}

impl Sema<'_> {
    pub(super) fn global_decl(&mut self, id: DeclId) {
        let decl = self.ast.decl(id).clone();
        match &decl.kind {
            DeclKind::Var(_) => {
                self.var_decl(id, VarContext::Global);
                let ty = self.decl_ty(id);
                self.check_vk_attribute_subjects(id, AttrSubject::GlobalVar(ty));
            }
            DeclKind::Function(f) => {
                // clang checks the parameters' attributes before the function's.
                for &p in &f.params {
                    self.check_vk_attribute_subjects(p, AttrSubject::Param);
                }
                self.check_vk_attribute_subjects(id, AttrSubject::Function);
                self.function_decl(id, None)
            }
            DeclKind::Struct { .. } => {
                self.struct_decl(id, None);
            }
            DeclKind::Namespace { name, decls } => {
                let ns = match name {
                    Some(n) => {
                        let existing = self.lookup_in_current_namespace(n.name);
                        match existing {
                            Some(ns) => ns,
                            None => {
                                let parent = self
                                    .namespaces
                                    .get(self.current_namespace())
                                    .map_or(String::new(), |p| p.path.clone());
                                let own = self.name(n.name);
                                let path = if parent.is_empty() {
                                    own.to_string()
                                } else {
                                    format!("{parent}::{own}")
                                };
                                self.namespaces.push(super::lookup::Namespace { path, ..Default::default() });
                                let ns = self.namespaces.len() - 1;
                                self.declare(n.name, Entity::Namespace(ns));
                                ns
                            }
                        }
                    }
                    None => self.current_namespace(),
                };
                self.push_scope(ScopeKind::Namespace(ns));
                for d in decls {
                    if self.diags.limit_reached() {
                        break;
                    }
                    self.global_decl(*d);
                }
                self.pop_scope();
            }
            DeclKind::Buffer { decls, kind, .. } => {
                let constant = matches!(kind, crate::ast::BufferKind::CBuffer);
                self.check_vk_attribute_subjects(id, AttrSubject::Buffer { constant });
                for d in decls {
                    match &self.ast.decl(*d).kind {
                        DeclKind::Var(_) => self.var_decl(*d, VarContext::Buffer(id)),
                        _ => self.global_decl(*d),
                    }
                }
            }
            DeclKind::Pragma(text) => {
                let t = text.replace(' ', "");
                if t.contains("pack_matrix(row_major)") {
                    self.pack_matrix_row_major = Some(true);
                } else if t.contains("pack_matrix(column_major)") {
                    self.pack_matrix_row_major = Some(false);
                }
            }
            _ => self.local_or_global_other(id),
        }
    }

    fn lookup_in_current_namespace(&self, name: crate::lexer::Symbol) -> Option<usize> {
        let ns = self.current_namespace();
        match self.namespaces.get(ns)?.names.get(&name) {
            Some(Entity::Namespace(n)) => Some(*n),
            _ => None,
        }
    }

    /// Declarations allowed both globally and in blocks: typedefs, enums, usings,
    /// templates, static_assert.
    pub(super) fn local_or_global_other(&mut self, id: DeclId) {
        let decl = self.ast.decl(id).clone();
        match decl.kind {
            DeclKind::Typedef { ty, name, array_dims } => {
                self.forward_declare_elaborated(ty);
                let mut t = self.resolve_type(ty);
                t = self.apply_type_modifiers(t, decl.modifiers);
                for d in array_dims.iter().rev() {
                    let len = d.and_then(|e| self.array_length(e));
                    t = self.types.array(t, len);
                }
                self.decl_info(id).ty = t;
                self.declare(name.name, Entity::Type(t));
            }
            DeclKind::TypeAlias { name, ty } => {
                let t = self.resolve_type(ty);
                self.decl_info(id).ty = t;
                self.declare(name.name, Entity::Type(t));
            }
            DeclKind::UsingNamespace(name) => match self.lookup_qualified(&name) {
                Some(Found::Entity(Entity::Namespace(ns))) => {
                    if let Some(scope) = self.scopes.last_mut() {
                        match scope.kind {
                            ScopeKind::Namespace(cur) => {
                                if let Some(n) = self.namespaces.get_mut(cur) {
                                    n.using.push(ns);
                                }
                            }
                            _ => scope.using.push(ns),
                        }
                    }
                }
                _ => {
                    let span = self.ast.decl(id).span;
                    let text = self.ast.qualified_name_text(&name);
                    self.unknown_name_error(span, &text, format!("expected namespace name '{text}'"));
                }
            },
            DeclKind::UsingDecl(name) => {
                if let (Some(Found::Entity(e)), Some(last)) = (self.lookup_qualified(&name), name.last()) {
                    self.declare(last.name, e);
                }
            }
            DeclKind::Enum { .. } => {
                self.enum_decl(id);
            }
            DeclKind::Template { params, decl: inner } => self.template_decl(id, &params, inner),
            DeclKind::StaticAssert { condition, message } => {
                self.check_expr(condition);
                if let Some(m) = message {
                    self.check_expr(m);
                }
                match self.constant_of(condition) {
                    Some(v) if !v.as_bool() => {
                        let span = self.ast.expr(condition).span;
                        let text = message
                            .and_then(|m| match &self.ast.expr(m).kind {
                                ExprKind::StringLiteral(parts) => Some(
                                    parts
                                        .iter()
                                        .map(|p| self.ast.name(*p).trim_matches('"').to_string())
                                        .collect::<String>(),
                                ),
                                _ => None,
                            })
                            .map(|t| format!(" \"{t}\""))
                            .unwrap_or_default();
                        self.error(span, format!("static_assert failed{text}"));
                    }
                    Some(_) => {}
                    None => {
                        let ty = self.exprs.get(condition.index()).map_or(TypeTable::ERROR, |i| i.ty);
                        if !self.types.is_error(ty) {
                            let span = self.ast.expr(condition).span;
                            self.error(
                                span,
                                "static_assert expression is not an integral constant expression",
                            );
                        }
                    }
                }
            }
            DeclKind::Struct { .. } => {
                self.struct_decl(id, None);
            }
            DeclKind::Var(_) => self.var_decl(id, VarContext::Local),
            DeclKind::Function(_) => self.function_decl(id, None),
            DeclKind::Namespace { .. } | DeclKind::Buffer { .. } | DeclKind::Pragma(_) => {
                self.global_decl(id)
            }
            DeclKind::EnumConstant { .. } | DeclKind::Empty => {}
        }
    }

    /// `typedef struct S T;` names a struct not declared yet: declare it incomplete.
    fn forward_declare_elaborated(&mut self, ty: crate::ast::TypeId) {
        let crate::ast::TypeKind::Named { name, args: None } = self.ast.ty(ty).kind.clone() else { return };
        let [ident] = name.segments.as_slice() else { return };
        let text = self.name(ident.name).to_string();
        if crate::parser::builtin_type_kind(&text).is_some() || self.lookup(ident.name).is_some() {
            return;
        }
        let sid = StructId(self.types.structs.len() as u32);
        self.types.structs.push(StructInfo {
            name: text,
            decl: DeclId(0),
            bases: Vec::new(),
            fields: Vec::new(),
            methods: HashMap::new(),
            statics: HashMap::new(),
            types: HashMap::new(),
            member_templates: HashMap::new(),
            complete: false,
            template_args: Vec::new(),
        });
        let t = self.types.intern(TypeData::Struct(sid));
        self.declare(ident.name, Entity::Type(t));
    }

    fn enum_decl(&mut self, id: DeclId) -> Ty {
        let DeclKind::Enum { name, scoped, underlying, constants } = self.ast.decl(id).kind.clone() else {
            return TypeTable::ERROR;
        };
        let under = underlying
            .map(|u| self.resolve_type(u))
            .and_then(|t| self.types.component(t))
            .unwrap_or(Scalar::Int);
        let enum_name = name.map_or("(anonymous)".to_string(), |n| self.name(n.name).to_string());
        let eid = super::types::EnumId(self.types.enums.len() as u32);
        self.types.enums.push(EnumInfo {
            name: enum_name,
            decl: id,
            scoped,
            underlying: under,
            constants: HashMap::new(),
        });
        let ty = self.types.intern(TypeData::Enum(eid));
        self.decl_info(id).ty = ty;
        if let Some(n) = name {
            self.declare(n.name, Entity::Type(ty));
        }
        let mut next = 0i64;
        for c in constants {
            let DeclKind::EnumConstant { name: cname, value } = self.ast.decl(c).kind.clone() else {
                continue;
            };
            if let Some(v) = value {
                if let Some(v) = self.const_int(v, "enumerator value") {
                    next = v;
                }
            }
            let info = self.decl_info(c);
            info.ty = ty;
            info.constant = Some(ConstValue::Int(next));
            if let Some(e) = self.types.enums.get_mut(eid.0 as usize) {
                e.constants.insert(cname.name, (c, next));
            }
            if !scoped {
                self.declare(cname.name, Entity::EnumConstant(c));
            }
            next = next.wrapping_add(1);
        }
        ty
    }

    /// A variable's full type: the written type, its modifiers, and declarator arrays
    /// (an unsized array takes its length from an initializer list).
    fn var_type(&mut self, id: DeclId, v: &VarDecl, modifiers: Modifiers) -> Ty {
        let mut t = self.resolve_type(v.ty);
        t = self.apply_type_modifiers(t, modifiers);
        if let TypeData::Matrix { elem, rows, cols, major: super::types::Majorness::Default } =
            self.types.get(t).clone()
        {
            if let Some(row) = self.pack_matrix_row_major {
                let major = if row {
                    super::types::Majorness::RowMajor
                } else {
                    super::types::Majorness::ColumnMajor
                };
                let _ = (elem, rows, cols);
                t = self.apply_type_modifiers(
                    t,
                    if major == super::types::Majorness::RowMajor {
                        Modifiers::ROW_MAJOR
                    } else {
                        Modifiers::COLUMN_MAJOR
                    },
                );
            }
        }
        // Inner dimensions first: an unsized outer one is counted in elements of
        // the rest (`float a[][2] = {1, 2, 3, 4}` has two).
        let mut dims: Vec<Option<u32>> =
            v.array_dims.iter().map(|d| d.and_then(|e| self.array_length(e))).collect();
        let mut inner = t;
        for &len in dims.iter().skip(1).rev() {
            inner = self.types.array(inner, len);
        }
        if let (Some(None), Some(init)) = (v.array_dims.first(), v.init) {
            dims[0] = self.init_list_length(init, inner);
        }
        for len in dims.into_iter().rev() {
            t = self.types.array(t, len);
        }
        let _ = id;
        t
    }

    /// The outer length an initializer list gives an unsized array of `elem`: HLSL
    /// flattens initializer lists (braces only group), so it is the list's scalar
    /// count over the element's, rounded up.
    fn init_list_length(&mut self, init: crate::ast::ExprId, elem: Ty) -> Option<u32> {
        let ExprKind::InitList(items) = self.ast.expr(init).kind.clone() else { return None };
        let per = self.types.flat_count(elem).unwrap_or(1).max(1);
        let mut total = 0u32;
        for item in items {
            let t = if let ExprKind::InitList(_) = self.ast.expr(item).kind {
                self.check_nested_init_list(item)
            } else {
                self.check_expr(item)
            };
            total = total.saturating_add(self.flat_count_of_value(item, t));
        }
        Some(total.div_ceil(per))
    }

    pub(super) fn var_decl(&mut self, id: DeclId, context: VarContext) {
        let decl = self.ast.decl(id).clone();
        let DeclKind::Var(v) = &decl.kind else { return };
        // `auto x = e;` takes the type of its initializer (checked here, once).
        let deduced = self.deduce_auto(v, decl.modifiers);
        let ty = match deduced {
            Some((ty, _)) => ty,
            None => self.var_type(id, v, decl.modifiers),
        };
        {
            let info = self.decl_info(id);
            info.ty = ty;
        }
        // `float S::x = 1;`: the definition of a static data member, a static
        // global the member's references use.
        let member = if context == VarContext::Global { self.static_member_defined_by(id, v) } else { None };
        if let Some(member) = member {
            self.decl_info(member).definition = Some(id);
        }
        let storage = match context {
            VarContext::Global if member.is_some() => Some(GlobalStorage::Static),
            VarContext::Global => Some(self.global_storage(id, ty, decl.modifiers, &decl.attrs)),
            VarContext::Buffer(b) => Some(GlobalStorage::Buffer(b)),
            _ => None,
        };
        self.decl_info(id).storage = storage;
        if context == VarContext::Param {
            let dir = if decl.modifiers.contains(Modifiers::INOUT)
                || decl.modifiers.contains(Modifiers::IN) && decl.modifiers.contains(Modifiers::OUT)
            {
                ParamDirection::InOut
            } else if decl.modifiers.contains(Modifiers::OUT) {
                ParamDirection::Out
            } else {
                ParamDirection::In
            };
            self.decl_info(id).direction = Some(dir);
        }
        // The name is visible in its own initializer (as in C++).
        if let Some(name) = v.name {
            if context != VarContext::Param && member.is_none() {
                self.declare(name.name, Entity::Var(id));
            }
        }
        if let Some(init) = v.init {
            if context == VarContext::Param {
                // A default argument.
                self.check_initializer(init, ty, decl.span);
            } else {
                match deduced {
                    Some((_, from)) => self.coerce_init(init, from, ty),
                    None => self.check_initializer(init, ty, decl.span),
                }
                let is_const = decl.modifiers.contains(Modifiers::CONST);
                if is_const {
                    let c = self.constant_of(init);
                    self.decl_info(id).constant = c;
                }
            }
        } else if self.types.get(ty) == &TypeData::String && context == VarContext::Global {
            let span = v.name.map_or(decl.span, |n| n.span);
            self.error(span, "Found uninitialized string variable.");
        }
        if matches!(context, VarContext::Global) {
            if decl.modifiers.contains(Modifiers::CONST) && !decl.modifiers.contains(Modifiers::STATIC) {
                // `const` globals are uniforms; their initializers count only for constants.
            }
            self.check_global_var(id, ty);
        }
        if let Some(name) = v.name {
            if context == VarContext::Param {
                self.declare(name.name, Entity::Var(id));
            }
        }
    }

    /// `auto x = e;` (no array dimensions, an expression initializer): the type of
    /// `e` with literals made `int`/`float` (as clang deduces it), and `e`'s type.
    fn deduce_auto(&mut self, v: &VarDecl, modifiers: Modifiers) -> Option<(Ty, Ty)> {
        let crate::ast::TypeKind::Named { name, args: None } = &self.ast.ty(v.ty).kind else { return None };
        let [ident] = name.segments.as_slice() else { return None };
        if self.name(ident.name) != "auto" || !v.array_dims.is_empty() {
            return None;
        }
        let init = v.init?;
        if matches!(self.ast.expr(init).kind, ExprKind::InitList(_)) {
            return None;
        }
        let from = self.check_expr(init);
        let ty = self.types.concrete(from);
        Some((self.apply_type_modifiers(ty, modifiers), from))
    }

    /// The static data member an out-of-line definition (`float S::x = 1;`) defines.
    fn static_member_defined_by(&mut self, id: DeclId, v: &VarDecl) -> Option<DeclId> {
        let name = v.name?;
        if v.qualifier.is_empty() {
            return None;
        }
        let qualified = crate::ast::QualifiedName { global: false, segments: v.qualifier.clone() };
        let Some(Found::Entity(Entity::Type(owner))) = self.lookup_qualified(&qualified) else { return None };
        match self.lookup_member(owner, name.name, 0) {
            Some(Found::Entity(Entity::Var(member))) if member != id => Some(member),
            _ => None,
        }
    }

    /// Storage of a global variable.
    fn global_storage(
        &self,
        _id: DeclId,
        ty: Ty,
        modifiers: Modifiers,
        attrs: &[crate::ast::Attribute],
    ) -> GlobalStorage {
        let has_attr = |n: &str| attrs.iter().any(|a| self.name(a.name.name) == n);
        // `static groupshared` is groupshared: dxc ignores the `static`.
        if modifiers.contains(Modifiers::GROUPSHARED) {
            GlobalStorage::GroupShared
        } else if modifiers.contains(Modifiers::STATIC) {
            GlobalStorage::Static
        } else if has_attr("push_constant") {
            GlobalStorage::PushConstant
        } else if has_attr("constant_id") {
            GlobalStorage::SpecConstant
        } else if self.types.contains_object(ty) {
            GlobalStorage::Resource
        } else {
            GlobalStorage::Globals
        }
    }

    /// Checks an initializer against the declared type.
    pub(super) fn check_initializer(&mut self, init: crate::ast::ExprId, ty: Ty, _span: Span) {
        if let ExprKind::InitList(_) = self.ast.expr(init).kind {
            self.check_init_list(init, ty);
            return;
        }
        let from = self.check_expr(init);
        self.coerce_init(init, from, ty);
    }

    /// `cannot initialize a variable of type 'X' with an lvalue of type 'Y'`.
    fn coerce_init(&mut self, e: crate::ast::ExprId, from: Ty, to: Ty) {
        if self.convert_implicit(e, from, to).is_none() {
            let span = self.ast.expr(e).span;
            let value = if self.is_lvalue(e) { "lvalue" } else { "rvalue" };
            self.error(
                span,
                format!(
                    "cannot initialize a variable of type {} with an {value} of type {}",
                    self.quoted(to),
                    self.quoted(from)
                ),
            );
        }
    }

    /// `{ ... }` for a type: the flattened scalar count must match (braces only group).
    pub(super) fn check_init_list(&mut self, init: crate::ast::ExprId, ty: Ty) {
        let ExprKind::InitList(items) = self.ast.expr(init).kind.clone() else { return };
        let mut total = 0u32;
        let mut any_error = false;
        for item in &items {
            let t = if let ExprKind::InitList(_) = self.ast.expr(*item).kind {
                self.check_nested_init_list(*item)
            } else {
                self.check_expr(*item)
            };
            if self.types.is_error(t) {
                any_error = true;
            }
            total += self.flat_count_of_value(*item, t);
        }
        *self.expr_info(init) = super::tree::ExprInfo { ty, ..Default::default() };
        if any_error || self.types.is_error(ty) || self.types.contains_object(ty) {
            return;
        }
        let Some(expected) = self.types.flat_count(ty) else { return };
        if total != expected && !(total == 1 && items.len() == 1 && self.types.is_numeric(ty)) {
            let span = self.ast.expr(init).span;
            let which = if total < expected { "too few" } else { "too many" };
            self.error(
                span,
                format!(
                    "{which} initializers in list for type {} (expected {expected} but has {total})",
                    self.quoted(ty)
                ),
            );
        }
    }

    fn check_nested_init_list(&mut self, init: crate::ast::ExprId) -> Ty {
        let ExprKind::InitList(items) = self.ast.expr(init).kind.clone() else { return TypeTable::ERROR };
        let mut total = 0;
        for item in items {
            let t = if let ExprKind::InitList(_) = self.ast.expr(item).kind {
                self.check_nested_init_list(item)
            } else {
                self.check_expr(item)
            };
            total += self.flat_count_of_value(item, t);
        }
        // Nested lists count as their flattened scalars.
        let ty = self.types.array(TypeTable::FLOAT, Some(total));
        *self.expr_info(init) = super::tree::ExprInfo { ty, ..Default::default() };
        ty
    }

    /// How many scalars a value contributes to an initializer list (objects count 1).
    pub(super) fn flat_count_of_value(&self, _e: crate::ast::ExprId, ty: Ty) -> u32 {
        self.types.flat_count(ty).unwrap_or(1)
    }

    /// The `[[vk::...]]` attributes that only apply to some declarations, with clang's
    /// "'X' attribute only applies to ..." for the others, and the attributes that take
    /// no arguments.
    pub(super) fn check_vk_attribute_subjects(&mut self, id: DeclId, subject: AttrSubject) {
        let attrs = self.ast.decl(id).attrs.clone();
        for a in &attrs {
            if a.namespace.is_none_or(|n| self.name(n.name) != "vk") {
                continue;
            }
            let span = a.namespace.map_or(a.name.span, |n| n.span);
            let name = self.name(a.name.name).to_string();
            let object_family = |s: &Self, ty: Ty| {
                let mut t = ty;
                while let TypeData::Array { elem, .. } = s.types.get(t) {
                    t = *elem;
                }
                match s.types.get(t) {
                    TypeData::Object { kind, .. } => Some(kind.family()),
                    _ => None,
                }
            };
            use super::types::Family;
            let (allowed, subjects) = match name.as_str() {
                "binding" => (
                    matches!(subject, AttrSubject::GlobalVar(_) | AttrSubject::Buffer { .. }),
                    "global variables, cbuffers, and tbuffers",
                ),
                "counter_binding" => (
                    matches!(subject, AttrSubject::GlobalVar(ty) if matches!(object_family(self, ty),
                        Some(Family::RWStructuredBuffer | Family::AppendBuffer | Family::ConsumeBuffer))),
                    "RWStructuredBuffers, AppendStructuredBuffers, and ConsumeStructuredBuffers",
                ),
                "location" => (
                    matches!(subject, AttrSubject::Function | AttrSubject::Param | AttrSubject::Field),
                    "functions, parameters, and fields",
                ),
                "push_constant" => (
                    matches!(subject, AttrSubject::GlobalVar(ty)
                        if matches!(self.types.get(ty), TypeData::Struct(_))
                            || object_family(self, ty) == Some(Family::ConstantBuffer)),
                    "global variables of struct type",
                ),
                "shader_record_nv" | "shader_record_ext" => (
                    match subject {
                        AttrSubject::Buffer { constant } => constant,
                        AttrSubject::GlobalVar(ty) => {
                            matches!(self.types.get(ty), TypeData::Struct(_))
                                || object_family(self, ty) == Some(Family::ConstantBuffer)
                                    && !matches!(self.types.get(ty), TypeData::Array { .. })
                        }
                        _ => false,
                    },
                    "cbuffer or ConstantBuffer",
                ),
                _ => continue,
            };
            if !allowed {
                self.error(span, format!("'{name}' attribute only applies to {subjects}"));
            } else if !a.args.is_empty()
                && matches!(name.as_str(), "push_constant" | "shader_record_nv" | "shader_record_ext")
            {
                self.error(span, format!("'{name}' attribute takes no arguments"));
            } else if matches!(name.as_str(), "push_constant" | "shader_record_nv" | "shader_record_ext")
                && attrs.iter().any(|b| self.name(b.name.name) == "binding")
            {
                // Such a block has no descriptor binding (dxc's backend).
                self.error(
                    span,
                    format!("vk::{name} attribute cannot be used together with vk::binding attribute"),
                );
            }
        }
    }

    fn check_global_var(&mut self, id: DeclId, ty: Ty) {
        let decl = self.ast.decl(id).clone();
        if decl.attrs.iter().any(|a| self.name(a.name.name) == "constant_id") {
            self.check_spec_constant(id, ty);
        }
        for a in &decl.attrs {
            let attr_span = a.namespace.map_or(a.name.span, |n| n.span);
            match self.name(a.name.name) {
                "push_constant" => match self.push_constant_seen {
                    Some(first) => self.report(
                        crate::diag::Diagnostic::error(
                            Some(attr_span),
                            "cannot have more than one push constant block",
                        )
                        .with_note(Some(first), "push constant block previously defined here"),
                    ),
                    None => self.push_constant_seen = Some(attr_span),
                },
                "image_format" => {
                    // dxc reports at the variable (its line shown), not the attribute.
                    let at = match &decl.kind {
                        DeclKind::Var(v) => v.name.map_or(decl.span, |n| n.span),
                        _ => decl.span,
                    };
                    self.check_image_format(a, ty, at)
                }
                _ => {}
            }
        }
        self.check_register_overlap(id, ty);
        if let TypeData::Object { kind, .. } = self.types.get(ty).clone() {
            if matches!(
                kind,
                super::types::ObjectKind::SubpassInput | super::types::ObjectKind::SubpassInputMS
            ) && decl.modifiers.contains(Modifiers::STATIC)
            {
                let DeclKind::Var(v) = &decl.kind else { return };
                let span = v.name.map_or(decl.span, |n| n.span);
                self.error(span, "SubpassInput(MS) must be externally visible");
            }
        }
    }

    /// `[[vk::constant_id(N)]]`: an externally visible scalar (bool or a 16/32-bit
    /// number) whose default value is a literal, possibly negated, parenthesized or
    /// converted, as dxc requires. Its value is recorded as the declaration's constant
    /// (the default codegen writes in `OpSpecConstant*`); uses do not fold it.
    /// The width of a bit-field member, with clang's checks: an integral type, a
    /// constant width that is neither negative nor zero (for a named field) nor wider
    /// than the type.
    fn bit_field_width(&mut self, width: ExprId, ty: Ty, name: Option<Ident>) -> Option<u32> {
        let span = self.ast.expr(width).span;
        let scalar = match self.types.get(ty) {
            TypeData::Scalar(s) if s.is_integer() || *s == Scalar::Bool => Some(*s),
            TypeData::Enum(id) => self.types.enums.get(id.0 as usize).map(|e| e.underlying),
            _ => None,
        };
        let value = self.const_int(width, "bit-field width")?;
        let field = name.map_or_else(String::new, |n| format!(" '{}'", self.ast.name(n.name)));
        let Some(scalar) = scalar else {
            self.error(span, format!("bit-field{field} has non-integral type {}", self.quoted(ty)));
            return None;
        };
        let bits = scalar.bits(self.opts.enable_16bit_types);
        if value < 0 {
            self.error(span, format!("bit-field{field} has negative width ({value})"));
            return None;
        }
        if value == 0 && name.is_some() {
            self.error(span, format!("named bit-field{field} has zero width"));
            return None;
        }
        if value > i64::from(bits) {
            self.error(
                span,
                format!("width of bit-field{field} ({value} bits) exceeds width of its type ({bits} bits)"),
            );
            return None;
        }
        u32::try_from(value).ok()
    }

    fn check_spec_constant(&mut self, id: DeclId, ty: Ty) {
        let decl = self.ast.decl(id).clone();
        let DeclKind::Var(v) = &decl.kind else { return };
        let name_span = v.name.map_or(decl.span, |n| n.span);
        if decl.modifiers.contains(Modifiers::STATIC) {
            self.error(name_span, "specialization constant must be externally visible");
            return;
        }
        let Some(init) = v.init else {
            self.error(name_span, "missing default value for specialization constant");
            return;
        };
        if !self.is_spec_constant_literal(init) {
            let span = self.ast.expr(init).span;
            self.error(span, "unsupported specialization constant initializer");
            return;
        }
        let supported = matches!(self.types.get(ty), TypeData::Scalar(s) if matches!(
            s,
            Scalar::Bool | Scalar::Int | Scalar::UInt | Scalar::Float
                | Scalar::Int16 | Scalar::UInt16 | Scalar::Half
        ));
        if !supported {
            if !self.types.is_error(ty) {
                // dxc points at the first specifier (`const`); the type is the closest
                // position the tree keeps after the attributes.
                let span = self.ast.ty(v.ty).span;
                self.error(span, "unsupported specialization constant type");
            }
            return;
        }
        let value = self.constant_of(init).map(|c| super::expr::convert_constant(c, ty, &self.types));
        self.decl_info(id).constant = value;
    }

    /// A literal (bool, integer or float), under parentheses, casts and unary minus.
    fn is_spec_constant_literal(&self, e: crate::ast::ExprId) -> bool {
        let mut e = e;
        // Bounded by the expression tree's height limit.
        loop {
            match &self.ast.expr(e).kind {
                ExprKind::BoolLiteral(_) | ExprKind::IntLiteral { .. } | ExprKind::FloatLiteral { .. } => {
                    return true
                }
                ExprKind::Paren(inner) | ExprKind::Cast { operand: inner, .. } => e = *inner,
                ExprKind::Construct { args, .. } if args.len() == 1 => e = args[0],
                ExprKind::Unary { op: crate::ast::UnaryOp::Minus, operand } => e = *operand,
                _ => return false,
            }
        }
    }

    /// `[[vk::image_format("...")]]` must agree with the element's component kind.
    fn check_image_format(&mut self, attr: &crate::ast::Attribute, ty: Ty, at: Span) {
        let Some(&arg) = attr.args.first() else { return };
        let ExprKind::StringLiteral(parts) = &self.ast.expr(arg).kind else { return };
        let format: String = parts.iter().map(|p| self.ast.name(*p).trim_matches('"').to_string()).collect();
        let Some(elem) = self.types.object_element(ty) else { return };
        let Some(comp) = self.types.component(elem) else { return };
        if format == "unknown" {
            return;
        }
        let wants = if format.ends_with("ui") {
            if format.contains("64") {
                Scalar::UInt64
            } else {
                Scalar::UInt
            }
        } else if format.ends_with('i') {
            if format.contains("64") {
                Scalar::Int64
            } else {
                Scalar::Int
            }
        } else {
            Scalar::Float
        };
        let ok = match wants {
            Scalar::Float => comp.is_float(),
            Scalar::Int | Scalar::UInt => {
                comp.is_integer() && comp.bits(false) == 32 && comp.is_signed() == (wants == Scalar::Int)
            }
            w => comp == w,
        };
        if !ok {
            self.error(
                at,
                "The image format and the sampled type are not compatible.\nFor the table of compatible types, see https://docs.vulkan.org/spec/latest/appendices/spirvenv.html#spirvenv-format-type-matching.",
            );
        }
    }

    /// `register(cN)` on `$Globals` members: overlapping constant registers.
    fn check_register_overlap(&mut self, id: DeclId, ty: Ty) {
        let DeclKind::Var(v) = self.ast.decl(id).kind.clone() else { return };
        for a in &v.annotations {
            let crate::ast::Annotation::Register { slot, .. } = a else { continue };
            let text = self.name(slot.name).to_string();
            let Some(n) = text.strip_prefix(['c', 'C']).and_then(|d| d.parse::<u32>().ok()) else { continue };
            let size = self.types.flat_count(ty).unwrap_or(4).div_ceil(4).max(1);
            let name = v.name.map(|n| self.name(n.name).to_string()).unwrap_or_default();
            let range = (n, n + size);
            if let Some((_, other)) =
                self.constant_registers.iter().find(|(r, _)| r.0 < range.1 && range.0 < r.1)
            {
                let other = other.clone();
                let span = v.name.map_or(self.ast.decl(id).span, |x| x.span);
                self.error(
                    span,
                    format!("field \"{other}\" at register(c{n}) overlaps with previous members"),
                );
            }
            self.constant_registers.push((range, name));
        }
    }

    /// A struct or class definition (or forward declaration): its type.
    /// A field's payload access qualifiers (`: read(caller) : write(closesthit)`): the
    /// stages must be ray tracing ones; below `lib_6_7` (without `-enable-payload-qualifiers`)
    /// or with `-disable-payload-qualifiers` dxc parses and ignores them, once warned. Which stage reads or writes which field is not checked yet.
    fn check_payload_access(&mut self, annotations: &[crate::ast::Annotation]) {
        for a in annotations {
            let crate::ast::Annotation::PayloadAccess { stages, span, .. } = a else { continue };
            for stage in stages {
                let name = self.name(stage.name).to_string();
                if !matches!(name.as_str(), "caller" | "closesthit" | "anyhit" | "miss") {
                    self.error(
                        stage.span,
                        format!("invalid shader stage '{name}' in payload access qualifier (expected caller, closesthit, anyhit or miss)"),
                    );
                }
            }
            let by_profile = self.opts.stage == Some(Stage::Library) && self.opts.shader_model >= (6, 7);
            let supported = self.opts.payload_access_qualifiers.unwrap_or(by_profile);
            if !supported && !self.payload_access_warned {
                self.payload_access_warned = true;
                self.warning(
                    *span,
                    "payload-access-qualifier",
                    "payload access qualifiers ignored. These are only supported for lib_6_7+ targets and lib_6_6 with with the -enable-payload-qualifiers flag.",
                );
            }
        }
    }

    pub(super) fn struct_decl(&mut self, id: DeclId, template_args: Option<Vec<TemplateValue>>) -> Ty {
        if let Some(&ty) = self.struct_types.get(&id) {
            return ty;
        }
        let decl = self.ast.decl(id).clone();
        let DeclKind::Struct { name, bases, members, template_args: spec_args, .. } = &decl.kind else {
            return TypeTable::ERROR;
        };
        // A definition completes an earlier forward declaration of the same name.
        let existing = name.and_then(|n| match self.scopes.last().map(|s| &s.kind) {
            Some(ScopeKind::Namespace(ns)) => {
                match self.namespaces.get(*ns).and_then(|x| x.names.get(&n.name)) {
                    Some(Entity::Type(t)) => Some(*t),
                    _ => None,
                }
            }
            _ => match self.scopes.last().and_then(|s| s.names.get(&n.name)) {
                Some(Entity::Type(t)) => Some(*t),
                _ => None,
            },
        });
        let existing = existing.filter(|t| match self.types.get(*t) {
            TypeData::Struct(s) => self.types.struct_info(*s).is_some_and(|i| !i.complete),
            _ => false,
        });
        if spec_args.is_some() && template_args.is_none() {
            // An explicit specialization outside an instantiation: recorded with its template.
            self.record_specialization(id);
            return TypeTable::ERROR;
        }
        let display_name = name.map_or("(anonymous struct)".to_string(), |n| self.name(n.name).to_string());
        let display_name = match &template_args {
            Some(args) if !args.is_empty() => format!("{display_name}<{}>", self.template_args_text(args)),
            _ => display_name,
        };
        let ty = match existing {
            Some(t) => t,
            None => {
                let sid = StructId(self.types.structs.len() as u32);
                self.types.structs.push(StructInfo {
                    name: display_name,
                    decl: id,
                    bases: Vec::new(),
                    fields: Vec::new(),
                    methods: HashMap::new(),
                    statics: HashMap::new(),
                    types: HashMap::new(),
                    member_templates: HashMap::new(),
                    complete: false,
                    template_args: template_args.clone().unwrap_or_default(),
                });
                self.types.intern(TypeData::Struct(sid))
            }
        };
        self.struct_types.insert(id, ty);
        self.decl_info(id).ty = ty;
        if let Some(n) = name {
            if template_args.is_none() {
                self.declare(n.name, Entity::Type(ty));
            }
        }
        let Some(members) = members else { return ty };
        let TypeData::Struct(sid) = *self.types.get(ty) else { return ty };
        if let Some(info) = self.types.structs.get_mut(sid.0 as usize) {
            info.decl = id;
        }
        let base_tys: Vec<Ty> = bases.iter().map(|&b| self.resolve_type(b)).collect();
        for (b, &bt) in bases.iter().zip(&base_tys) {
            if !matches!(self.types.get(bt), TypeData::Struct(_) | TypeData::Error) {
                let span = self.ast.ty(*b).span;
                self.error(span, format!("base type {} is not a struct or class", self.quoted(bt)));
            }
        }
        if let Some(info) = self.types.structs.get_mut(sid.0 as usize) {
            info.bases = base_tys;
        }
        self.push_scope(ScopeKind::Struct(ty));
        let mut methods: Vec<DeclId> = Vec::new();
        for &m in members {
            let mdecl = self.ast.decl(m).clone();
            match &mdecl.kind {
                DeclKind::Var(v) => {
                    if mdecl.modifiers.contains(Modifiers::STATIC) {
                        self.var_decl(m, VarContext::Global);
                        if let (Some(n), Some(info)) = (v.name, self.types.structs.get_mut(sid.0 as usize)) {
                            info.statics.insert(n.name, m);
                        }
                        continue;
                    }
                    let fty = self.var_type(m, v, mdecl.modifiers);
                    self.decl_info(m).ty = fty;
                    self.check_vk_attribute_subjects(m, AttrSubject::Field);
                    self.check_payload_access(&v.annotations);
                    if let Some(init) = v.init {
                        self.check_initializer(init, fty, mdecl.span);
                    }
                    let bit_width = v.bit_width.and_then(|w| self.bit_field_width(w, fty, v.name));
                    if let (Some(n), Some(info)) = (v.name, self.types.structs.get_mut(sid.0 as usize)) {
                        info.fields.push(Field { name: n.name, ty: fty, decl: m, bit_width });
                    }
                }
                DeclKind::Function(f) => {
                    self.function_signature(m, Some(ty));
                    if let (Some(n), Some(info)) = (f.name.last(), self.types.structs.get_mut(sid.0 as usize))
                    {
                        info.methods.entry(n.name).or_default().push(m);
                    }
                    methods.push(m);
                }
                DeclKind::Struct { name: Some(n), .. } => {
                    let nested = self.struct_decl(m, None);
                    if let Some(info) = self.types.structs.get_mut(sid.0 as usize) {
                        info.types.insert(n.name, nested);
                    }
                }
                DeclKind::Typedef { name, .. } | DeclKind::TypeAlias { name, .. } => {
                    let name = *name;
                    self.local_or_global_other(m);
                    let t = self.decl_ty(m);
                    if let Some(info) = self.types.structs.get_mut(sid.0 as usize) {
                        info.types.insert(name.name, t);
                    }
                }
                DeclKind::Enum { name, .. } => {
                    let name = *name;
                    let t = self.enum_decl(m);
                    if let (Some(n), Some(info)) = (name, self.types.structs.get_mut(sid.0 as usize)) {
                        info.types.insert(n.name, t);
                    }
                }
                DeclKind::Template { decl: inner, .. } => {
                    // Member templates: methods join the method set as templates.
                    let inner = *inner;
                    self.local_or_global_other(m);
                    match &self.ast.decl(inner).kind {
                        DeclKind::Function(f) => {
                            if let (Some(n), Some(info)) =
                                (f.name.last(), self.types.structs.get_mut(sid.0 as usize))
                            {
                                info.methods.entry(n.name).or_default().push(m);
                            }
                        }
                        // Alias and struct templates, found through `S::Name<...>`.
                        DeclKind::TypeAlias { name, .. } | DeclKind::Struct { name: Some(name), .. } => {
                            let name = name.name;
                            if let Some(info) = self.types.structs.get_mut(sid.0 as usize) {
                                info.member_templates.insert(name, m);
                            }
                        }
                        _ => {}
                    }
                }
                _ => self.local_or_global_other(m),
            }
        }
        if let Some(info) = self.types.structs.get_mut(sid.0 as usize) {
            info.complete = true;
        }
        // Method bodies see the complete struct.
        for m in methods {
            if self.diags.limit_reached() {
                break;
            }
            self.function_body(m, Some(ty));
        }
        self.pop_scope();
        ty
    }

    fn template_args_text(&self, args: &[TemplateValue]) -> String {
        args.iter()
            .map(|a| match a {
                TemplateValue::Type(t) => self.display(*t),
                TemplateValue::Value(ConstValue::Int(v)) => v.to_string(),
                TemplateValue::Value(ConstValue::Bool(b)) => b.to_string(),
                TemplateValue::Value(ConstValue::Float(f)) => f.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A function's parameter and return types, recorded before its body is checked.
    pub(super) fn function_signature(&mut self, id: DeclId, _owner: Option<Ty>) {
        self.record_namespace(id);
        let DeclKind::Function(f) = self.ast.decl(id).kind.clone() else { return };
        let ret = self.resolve_type(f.ret);
        let mut params = Vec::new();
        for &p in &f.params {
            self.var_decl_param_signature(p);
            let info = self.decls.get(p.index()).cloned().unwrap_or_default();
            if let TypeData::Opaque(sym) = self.types.get(info.ty) {
                if matches!(self.name(*sym), "ResourceDescriptorHeap" | "SamplerDescriptorHeap") {
                    let span = self.ast.decl(p).span;
                    self.error(span, "Resource/sampler heaps are not allowed as function parameters.");
                }
            }
            params.push((info.ty, info.direction.unwrap_or(ParamDirection::In)));
        }
        let info = self.decl_info(id);
        info.ty = ret;
        info.params = params;
    }

    fn var_decl_param_signature(&mut self, p: crate::ast::DeclId) {
        let decl = self.ast.decl(p).clone();
        let DeclKind::Var(v) = &decl.kind else { return };
        let ty = self.var_type(p, v, decl.modifiers);
        let dir = if decl.modifiers.contains(Modifiers::INOUT)
            || decl.modifiers.contains(Modifiers::IN) && decl.modifiers.contains(Modifiers::OUT)
        {
            ParamDirection::InOut
        } else if decl.modifiers.contains(Modifiers::OUT) {
            ParamDirection::Out
        } else {
            ParamDirection::In
        };
        let info = self.decl_info(p);
        info.ty = ty;
        info.direction = Some(dir);
    }

    /// A function declaration at namespace or block scope (or an out-of-line method).
    pub(super) fn function_decl(&mut self, id: DeclId, owner: Option<Ty>) {
        let DeclKind::Function(f) = self.ast.decl(id).kind.clone() else { return };
        // `S::f() { ... }`: an out-of-line member definition.
        if f.name.segments.len() > 1 {
            let mut prefix = f.name.clone();
            prefix.segments.pop();
            let owner_ty = match self.lookup_qualified(&prefix) {
                Some(Found::Entity(Entity::Type(t))) => Some(t),
                _ => None,
            };
            if let Some(t) = owner_ty {
                self.push_scope(ScopeKind::Struct(t));
                self.function_signature(id, Some(t));
                self.link_to_prototype(id, t);
                self.function_body(id, Some(t));
                self.pop_scope();
                return;
            }
            // `float3 A::B::f() { ... }`: the definition of a function the namespace
            // declared; its body looks names up in that namespace.
            if let Some(Found::Entity(Entity::Namespace(ns))) = self.lookup_qualified(&prefix) {
                self.push_scope(ScopeKind::Namespace(ns));
                self.unqualified_function_decl(id, owner);
                self.pop_scope();
                return;
            }
        }
        self.unqualified_function_decl(id, owner);
    }

    /// Records the namespace a function is declared in (dxc prefixes its name).
    pub(super) fn record_namespace(&mut self, id: DeclId) {
        let path = self.namespaces.get(self.current_namespace()).map_or(String::new(), |n| n.path.clone());
        self.decl_info(id).namespace = path;
    }

    /// A function declared by its unqualified name in the innermost scope.
    fn unqualified_function_decl(&mut self, id: DeclId, owner: Option<Ty>) {
        let DeclKind::Function(f) = self.ast.decl(id).kind.clone() else { return };
        self.function_signature(id, owner);
        let Some(name) = f.name.last() else { return };
        // Declarations of one function (same parameter types) share its definition,
        // whichever comes first: a definition after prototypes completes them, a
        // prototype after the definition (FidelityFX headers redeclare what the
        // including shader defined) refers to it.
        let params = self.decls.get(id.index()).map(|i| i.params.clone()).unwrap_or_default();
        let has_body =
            |s: &Self, d: DeclId| matches!(&s.ast.decl(d).kind, DeclKind::Function(f) if f.body.is_some());
        // A prototype in a function body declares the enclosing namespace's function
        // (as in C++), though its name is visible in that block only.
        let namespace = self.current_namespace();
        let in_block = self.scopes.last().is_some_and(|s| s.kind == ScopeKind::Block);
        if in_block && f.body.is_none() {
            self.block_prototypes.push((namespace, name.name, id));
        }
        let mut others = match self.lookup(name.name) {
            Some(Found::Entity(Entity::Functions(set))) => set,
            _ => Vec::new(),
        };
        if !in_block {
            others.extend(
                self.block_prototypes.iter().filter(|p| p.0 == namespace && p.1 == name.name).map(|p| p.2),
            );
        }
        // Only declarations of the same namespace are this function (`A::f` is not
        // the `f` of an enclosing namespace).
        let own_namespace = self.decls.get(id.index()).map(|i| i.namespace.clone()).unwrap_or_default();
        others.retain(|&other| self.decls.get(other.index()).is_some_and(|i| i.namespace == own_namespace));
        let mut redefined = false;
        {
            for other in others {
                let same = self.decls.get(other.index()).is_some_and(|i| {
                    i.params.len() == params.len() && i.params.iter().zip(&params).all(|(a, b)| a.0 == b.0)
                });
                if !same || other == id {
                    continue;
                }
                if f.body.is_some() && has_body(self, other) {
                    // Two bodies of one function: clang's error (the second would
                    // otherwise silently replace the first, or both become entries).
                    let previous = self.ast.decl(other).span;
                    let text = format!("redefinition of '{}'", self.name(name.name));
                    self.report(
                        crate::diag::Diagnostic::error(Some(name.span), text)
                            .with_note(Some(previous), "previous definition is here"),
                    );
                    redefined = true;
                    continue;
                }
                if f.body.is_some() {
                    self.decl_info(other).definition = Some(id);
                } else {
                    let earlier = if has_body(self, other) {
                        Some(other)
                    } else {
                        self.decls.get(other.index()).and_then(|i| i.definition)
                    };
                    match earlier {
                        Some(_) => self.decl_info(id).definition = earlier,
                        // Two prototypes: the same function (a later definition
                        // completes both).
                        None => self.decl_info(other).definition = Some(id),
                    }
                }
            }
        }
        // A redefinition stays out of lookup (calls see the first), as in clang.
        if !redefined {
            self.declare(name.name, Entity::Functions(vec![id]));
        }
        self.function_body(id, owner);
    }

    fn link_to_prototype(&mut self, id: DeclId, owner: Ty) {
        let DeclKind::Function(f) = self.ast.decl(id).kind.clone() else { return };
        let Some(name) = f.name.last() else { return };
        let params = self.decls.get(id.index()).map(|i| i.params.clone()).unwrap_or_default();
        if let Some(Found::Methods { set, .. }) = self.lookup_member(owner, name.name, 0) {
            for other in set {
                let same = self.decls.get(other.index()).is_some_and(|i| {
                    i.params.len() == params.len() && i.params.iter().zip(&params).all(|(a, b)| a.0 == b.0)
                });
                if same {
                    self.decl_info(other).definition = Some(id);
                }
            }
        }
    }

    /// Checks a function's body with its parameters in scope.
    pub(super) fn function_body(&mut self, id: DeclId, owner: Option<Ty>) {
        let decl = self.ast.decl(id).clone();
        let DeclKind::Function(f) = &decl.kind else { return };
        let Some(body) = f.body else { return };
        let ret = self.decl_ty(id);
        let saved = self.function.replace(FunctionContext {
            decl: id,
            ret,
            this_ty: owner,
            is_const_method: f.is_const,
        });
        self.push_scope(ScopeKind::Block);
        for &p in &f.params {
            let pdecl = self.ast.decl(p).clone();
            if let DeclKind::Var(v) = &pdecl.kind {
                if let Some(init) = v.init {
                    let ty = self.decl_ty(p);
                    self.check_initializer(init, ty, pdecl.span);
                }
                if let Some(n) = v.name {
                    self.declare(n.name, Entity::Var(p));
                }
            }
        }
        if owner.is_none() {
            self.functions.push(id);
        }
        self.check_function_body(body);
        self.pop_scope();
        self.function = saved;
    }

    /// Records a template; its body is checked per instantiation.
    fn template_decl(&mut self, id: DeclId, _params: &[crate::ast::TemplateParam], inner: DeclId) {
        // Outside function bodies every scope is kept: a member template of an
        // instantiated class needs the class's template bindings (block scopes).
        let in_function = self.function.is_some();
        let context: Vec<Scope> = self
            .scopes
            .iter()
            .filter(|s| !in_function || !matches!(s.kind, ScopeKind::Block))
            .map(|s| Scope { kind: s.kind.clone(), names: s.names.clone(), using: s.using.clone() })
            .collect();
        self.templates
            .insert(id, TemplateInfo { context, specializations: Vec::new(), partials: Vec::new() });
        match &self.ast.decl(inner).kind {
            DeclKind::Function(f) => {
                if let Some(n) = f.name.last() {
                    if f.template_args.is_some() {
                        // An explicit function specialization: overloads like a template.
                    }
                    self.declare(n.name, Entity::Functions(vec![id]));
                }
            }
            DeclKind::Struct { name: Some(n), template_args: None, .. } => {
                let n = *n;
                self.declare(n.name, Entity::StructTemplate(id));
            }
            DeclKind::Struct { template_args: Some(_), name: Some(n), .. } if !_params.is_empty() => {
                // A partial specialization: matched against arguments at instantiation.
                let n = *n;
                if let Some(Found::Entity(Entity::StructTemplate(primary))) = self.lookup(n.name) {
                    if let Some(t) = self.templates.get_mut(&primary) {
                        t.partials.push(id);
                    }
                }
            }
            DeclKind::Struct { template_args: Some(_), .. } => self.record_specialization(inner),
            DeclKind::TypeAlias { name, .. } => {
                let n = *name;
                self.declare(n.name, Entity::AliasTemplate(id));
            }
            DeclKind::Var(v) => {
                // Variable templates are rare; declare the variable itself.
                if let Some(n) = v.name {
                    self.declare(n.name, Entity::Var(inner));
                }
            }
            _ => {}
        }
    }

    /// `template<> struct S<int> { ... }`: remembered with its primary template.
    fn record_specialization(&mut self, inner: DeclId) {
        let DeclKind::Struct { name: Some(n), template_args: Some(args), .. } =
            self.ast.decl(inner).kind.clone()
        else {
            return;
        };
        let Some(Found::Entity(Entity::StructTemplate(primary))) = self.lookup(n.name) else { return };
        let values = self.template_values(&args);
        if let Some(t) = self.templates.get_mut(&primary) {
            t.specializations.push((values, inner));
        }
    }

    /// `class template 'S'`, `alias template 'A'`, `function template 'f'` (clang's
    /// wording in arity errors).
    pub(super) fn template_description(&self, template: DeclId) -> String {
        let Some((_, inner)) = self.template_inner(template) else { return "template".to_string() };
        let (kind, name) = match &self.ast.decl(inner).kind {
            DeclKind::TypeAlias { name, .. } => ("alias template", Some(name.name)),
            DeclKind::Struct { name, .. } => ("class template", name.map(|n| n.name)),
            DeclKind::Function(f) => ("function template", f.name.last().map(|n| n.name)),
            _ => ("template", None),
        };
        match name {
            Some(n) => format!("{kind} '{}'", self.name(n)),
            None => kind.to_string(),
        }
    }

    /// Binds template parameters to values, with defaults; `None` on arity errors.
    fn bind_template_params(
        &mut self,
        template: DeclId,
        mut values: Vec<TemplateValue>,
        span: Span,
    ) -> Option<(Bindings, Vec<TemplateValue>)> {
        let (params, _) = self.template_inner(template)?;
        let mut bindings = Vec::new();
        for (i, p) in params.iter().enumerate() {
            if i >= values.len() {
                // Defaults may refer to earlier parameters: evaluate with those bound.
                self.push_scope(ScopeKind::Block);
                for (name, e) in &bindings {
                    self.declare(*name, Entity::clone(e));
                }
                let v = match &p.kind {
                    TemplateParamKind::Type { default: Some(t) } => {
                        Some(TemplateValue::Type(self.resolve_type(*t)))
                    }
                    TemplateParamKind::Value { default: Some(e), .. } => {
                        self.check_expr(*e);
                        Some(TemplateValue::Value(self.constant_of(*e).unwrap_or(ConstValue::Int(0))))
                    }
                    _ => None,
                };
                self.pop_scope();
                match v {
                    Some(v) => values.push(v),
                    None => {
                        let what = self.template_description(template);
                        self.error(span, format!("too few template arguments for {what}"));
                        return None;
                    }
                }
            }
            let Some(name) = p.name else { continue };
            let entity = match (&p.kind, &values[i]) {
                (TemplateParamKind::Type { .. }, TemplateValue::Type(t)) => Entity::Type(*t),
                (TemplateParamKind::Value { ty, .. }, TemplateValue::Value(v)) => {
                    let t = self.resolve_type(*ty);
                    Entity::Value(*v, t)
                }
                (TemplateParamKind::Type { .. }, TemplateValue::Value(_)) => {
                    self.error(span, "template argument for template type parameter must be a type");
                    return None;
                }
                (TemplateParamKind::Value { ty, .. }, TemplateValue::Type(_)) => {
                    let _ = ty;
                    self.error(
                        span,
                        "template argument for non-type template parameter must be an expression",
                    );
                    return None;
                }
            };
            bindings.push((name.name, entity));
        }
        if values.len() > params.len() {
            let what = self.template_description(template);
            self.error(span, format!("too many template arguments for {what}"));
            return None;
        }
        Some((bindings, values))
    }

    /// Runs `f` in the template's declaration context with its parameters bound.
    fn in_template_context<T>(
        &mut self,
        template: DeclId,
        bindings: Vec<(crate::lexer::Symbol, Entity)>,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let context = self.templates.get(&template).map(|t| t.context.clone()).unwrap_or_default();
        let saved_scopes = std::mem::replace(&mut self.scopes, context);
        if self.scopes.is_empty() {
            self.scopes.push(Scope::new(ScopeKind::Namespace(0)));
        }
        let saved_function = self.function.take();
        self.push_scope(ScopeKind::Block);
        for (name, e) in bindings {
            if let Some(s) = self.scopes.last_mut() {
                s.names.insert(name, e);
            }
        }
        self.instantiation_depth += 1;
        let out = f(self);
        self.instantiation_depth -= 1;
        self.scopes = saved_scopes;
        self.function = saved_function;
        out
    }

    fn cached_instance(&self, template: DeclId, values: &[TemplateValue]) -> Option<Entity> {
        self.instances.iter().find(|(t, v, _)| *t == template && v == values).map(|(_, _, e)| e.clone())
    }

    fn instantiation_allowed(&mut self, span: Span) -> bool {
        if self.instantiation_depth >= MAX_INSTANTIATION_DEPTH {
            self.error(
                span,
                format!(
                    "recursive template instantiation exceeded maximum depth of {MAX_INSTANTIATION_DEPTH}"
                ),
            );
            return false;
        }
        true
    }

    /// `S<args>` for a struct template.
    pub(super) fn instantiate_struct(&mut self, template: DeclId, args: &[TemplateArg], span: Span) -> Ty {
        let values = self.template_values(args);
        let Some((bindings, values)) = self.bind_template_params(template, values, span) else {
            return TypeTable::ERROR;
        };
        if let Some(Entity::Type(t)) = self.cached_instance(template, &values) {
            return t;
        }
        if !self.instantiation_allowed(span) {
            return TypeTable::ERROR;
        }
        let specialization = self
            .templates
            .get(&template)
            .and_then(|t| t.specializations.iter().find(|(v, _)| *v == values).map(|(_, d)| *d));
        if specialization.is_none() {
            if let Some(ty) = self.instantiate_partial(template, &values, span) {
                return ty;
            }
        }
        let source = match specialization {
            Some(d) => d,
            None => match self.template_inner(template) {
                Some((_, inner)) => inner,
                None => return TypeTable::ERROR,
            },
        };
        let copy = {
            let mut cloner = Cloner { ast: &mut self.ast, truncated: false };
            cloner.decl(source, 0)
        };
        self.grow_tables();
        // Cache a placeholder first so self-references (`S<T>` inside S) resolve.
        let values_for_cache = values.clone();
        let ty = self.in_template_context(template, bindings, |s| {
            s.struct_decl_for_instance(copy, values_for_cache.clone(), template)
        });
        self.instantiations.push(Instantiation { template, args: values, decl: copy });
        ty
    }

    fn struct_decl_for_instance(&mut self, copy: DeclId, values: Vec<TemplateValue>, template: DeclId) -> Ty {
        // Pre-create the struct so the cache can hold it before members are checked.
        let decl = self.ast.decl(copy).clone();
        let DeclKind::Struct { name, .. } = &decl.kind else { return TypeTable::ERROR };
        let display_name = name.map_or("(anonymous struct)".to_string(), |n| self.name(n.name).to_string());
        let display_name = format!("{display_name}<{}>", self.template_args_text(&values));
        let sid = StructId(self.types.structs.len() as u32);
        self.types.structs.push(StructInfo {
            name: display_name,
            decl: copy,
            bases: Vec::new(),
            fields: Vec::new(),
            methods: HashMap::new(),
            statics: HashMap::new(),
            types: HashMap::new(),
            member_templates: HashMap::new(),
            complete: false,
            template_args: values.clone(),
        });
        let ty = self.types.intern(TypeData::Struct(sid));
        self.instances.push((template, values.clone(), Entity::Type(ty)));
        // The injected class name refers to the instantiation.
        if let Some(n) = name {
            if let Some(s) = self.scopes.last_mut() {
                s.names.insert(n.name, Entity::Type(ty));
            }
        }
        // Reuse struct_decl's member handling through a temporary forward entry.
        self.struct_types.remove(&copy);
        if let Some(s) = self.scopes.last_mut() {
            if let Some(n) = name {
                s.names.insert(n.name, Entity::Type(ty));
            }
        }
        self.struct_decl_into(copy, ty)
    }

    /// Fills an already created (incomplete) struct type from a declaration.
    fn struct_decl_into(&mut self, id: DeclId, ty: Ty) -> Ty {
        // struct_decl completes an existing incomplete struct of the same name found in
        // the innermost scope, which the instantiation context just set up.
        let r = self.struct_decl(id, Some(Vec::new()));
        if r != ty {
            // The declaration was anonymous or differently named: fall back to its own type.
            return r;
        }
        ty
    }

    /// The first partial specialization of `template` whose pattern matches `values`.
    fn instantiate_partial(&mut self, template: DeclId, values: &[TemplateValue], span: Span) -> Option<Ty> {
        let partials = self.templates.get(&template).map(|t| t.partials.clone()).unwrap_or_default();
        for partial in partials {
            let Some((params, inner)) = self.template_inner(partial) else { continue };
            let DeclKind::Struct { template_args: Some(pattern), .. } = self.ast.decl(inner).kind.clone()
            else {
                continue;
            };
            if pattern.len() != values.len() {
                continue;
            }
            let mut deduced: Vec<Option<TemplateValue>> = vec![None; params.len()];
            for (p, v) in pattern.iter().zip(values) {
                match (p, v) {
                    (TemplateArg::Type(t), TemplateValue::Type(actual)) => {
                        self.deduce_from_type_ref(*t, *actual, &params, &mut deduced, 0)
                    }
                    (TemplateArg::Expr(e), TemplateValue::Value(val)) => {
                        if let ExprKind::Name { name, .. } = &self.ast.expr(*e).kind {
                            let pos = name.last().and_then(|n| {
                                params.iter().position(|p| p.name.is_some_and(|pn| pn.name == n.name))
                            });
                            if let Some(i) = pos {
                                deduced[i] = Some(TemplateValue::Value(*val));
                            }
                        }
                    }
                    _ => {}
                }
            }
            let Some(deduced) = deduced.into_iter().collect::<Option<Vec<_>>>() else { continue };
            let (bindings, deduced) = self.bind_template_params(partial, deduced, span)?;
            if let Some(Entity::Type(t)) = self.cached_instance(partial, &deduced) {
                return Some(t);
            }
            let copy = {
                let mut cloner = Cloner { ast: &mut self.ast, truncated: false };
                cloner.decl(inner, 0)
            };
            self.grow_tables();
            let key = deduced.clone();
            let shown = values.to_vec();
            let ty = self.in_template_context(partial, bindings, |s| {
                let ty = s.struct_decl_for_instance(copy, shown, partial);
                s.instances.push((partial, key, Entity::Type(ty)));
                ty
            });
            self.instances.push((template, values.to_vec(), Entity::Type(ty)));
            self.instantiations.push(Instantiation { template: partial, args: deduced, decl: copy });
            return Some(ty);
        }
        None
    }

    /// `A<args>` for an alias template.
    pub(super) fn instantiate_alias(&mut self, template: DeclId, args: &[TemplateArg], span: Span) -> Ty {
        let values = self.template_values(args);
        let Some((bindings, values)) = self.bind_template_params(template, values, span) else {
            return TypeTable::ERROR;
        };
        if let Some(Entity::Type(t)) = self.cached_instance(template, &values) {
            return t;
        }
        if !self.instantiation_allowed(span) {
            return TypeTable::ERROR;
        }
        let Some((_, inner)) = self.template_inner(template) else { return TypeTable::ERROR };
        let DeclKind::TypeAlias { ty, .. } = self.ast.decl(inner).kind.clone() else {
            return TypeTable::ERROR;
        };
        let t = self.in_template_context(template, bindings, |s| s.resolve_type(ty));
        self.instances.push((template, values, Entity::Type(t)));
        t
    }

    /// Instantiates a function template's declaration (its parameter and return
    /// types) with full arguments: the copy's declaration, its body not yet checked.
    /// Types that fail to resolve make the candidate not viable, their errors
    /// dropped, as clang and dxc do (SFINAE); [`Self::complete_function_instance`] checks the body
    /// once overload resolution chose the copy.
    pub(super) fn instantiate_function_signature(
        &mut self,
        template: DeclId,
        values: Vec<TemplateValue>,
        owner: Option<Ty>,
        span: Span,
    ) -> Option<DeclId> {
        let before_binding = self.diags.checkpoint();
        let Some((bindings, values)) = self.bind_template_params(template, values, span) else {
            self.diags.rollback(before_binding);
            return None;
        };
        if let Some(Entity::Var(d)) = self.cached_instance(template, &values) {
            return Some(d);
        }
        if self.failed_substitutions.iter().any(|(t, v)| *t == template && *v == values) {
            return None;
        }
        if !self.instantiation_allowed(span) {
            return None;
        }
        let (_, inner) = self.template_inner(template)?;
        let copy = {
            let mut cloner = Cloner { ast: &mut self.ast, truncated: false };
            cloner.decl(inner, 0)
        };
        self.grow_tables();
        let before = self.diags.checkpoint();
        self.in_template_context(template, bindings.clone(), |s| {
            if let Some(t) = owner {
                s.push_scope(ScopeKind::Struct(t));
            }
            s.function_signature(copy, owner);
        });
        // A parameter or return type that does not resolve is a substitution
        // failure: not viable, silently. Other errors about the declaration (a
        // descriptor heap parameter, ...) stand, as in dxc.
        let info = self.decls.get(copy.index()).cloned().unwrap_or_default();
        let failed = |s: &Self, mut t: Ty| {
            while let TypeData::Array { elem, .. } = s.types.get(t) {
                t = *elem;
            }
            matches!(s.types.get(t), TypeData::Error)
        };
        let unresolved = failed(self, info.ty) || info.params.iter().any(|&(t, _)| failed(self, t));
        if unresolved && self.diags.errors_since(&before) {
            self.diags.rollback(before);
            self.failed_substitutions.push((template, values));
            return None;
        }
        self.instances.push((template, values.clone(), Entity::Var(copy)));
        self.decl_info(copy).method_of = owner;
        self.pending_instances.insert(copy, PendingInstance { template, values, bindings, owner });
        Some(copy)
    }

    /// Checks the body of a function template instance overload resolution chose
    /// (once; later calls find it done).
    pub(super) fn complete_function_instance(&mut self, copy: DeclId) {
        let Some(pending) = self.pending_instances.remove(&copy) else { return };
        let PendingInstance { template, values, bindings, owner } = pending;
        self.instantiations.push(Instantiation { template, args: values, decl: copy });
        self.in_template_context(template, bindings, |s| {
            if let Some(t) = owner {
                s.push_scope(ScopeKind::Struct(t));
            }
            s.function_body(copy, owner);
        });
    }

    /// Deduces a function template's arguments from call arguments (explicit ones
    /// first); `None` when deduction fails.
    pub(super) fn deduce_template_args(
        &mut self,
        template: DeclId,
        explicit: &[TemplateValue],
        arg_types: &[Ty],
    ) -> Option<Vec<TemplateValue>> {
        let (params, inner) = self.template_inner(template)?;
        let DeclKind::Function(f) = self.ast.decl(inner).kind.clone() else { return None };
        // Explicit arguments that do not fit the parameters (too many, a value for a
        // type parameter or the reverse) make the candidate non-viable rather than an
        // error, so overloads told apart by their template parameters can coexist
        // (`Load<layout>(...)` beside `Load<memoryOperands, layout>(...)`).
        if explicit.len() > params.len() {
            return None;
        }
        let fits = explicit.iter().zip(&params).all(|(v, p)| {
            matches!(
                (v, &p.kind),
                (TemplateValue::Type(_), TemplateParamKind::Type { .. })
                    | (TemplateValue::Value(_), TemplateParamKind::Value { .. })
            )
        });
        if !fits {
            return None;
        }
        let mut deduced: Vec<Option<TemplateValue>> = vec![None; params.len()];
        for (slot, v) in deduced.iter_mut().zip(explicit) {
            *slot = Some(v.clone());
        }
        let index_of = |s: &Self, sym: crate::lexer::Symbol| {
            params.iter().position(|p| p.name.is_some_and(|n| n.name == sym)).filter(|_| {
                let _ = s;
                true
            })
        };
        for (pi, &p) in f.params.iter().enumerate() {
            let Some(&arg) = arg_types.get(pi) else { break };
            let arg = self.types.concrete(arg);
            let DeclKind::Var(v) = self.ast.decl(p).kind.clone() else { continue };
            let mut arg_ty = arg;
            // `T x[N]`: peel declarator arrays.
            for d in &v.array_dims {
                if let TypeData::Array { elem, len } = self.types.get(arg_ty).clone() {
                    if let Some(e) = d {
                        if let ExprKind::Name { name, .. } = &self.ast.expr(*e).kind {
                            if let Some(i) = name.last().and_then(|n| index_of(self, n.name)) {
                                if deduced[i].is_none() {
                                    deduced[i] =
                                        len.map(|l| TemplateValue::Value(ConstValue::Int(i64::from(l))));
                                }
                            }
                        }
                    }
                    arg_ty = elem;
                }
            }
            self.deduce_from_type_ref(v.ty, arg_ty, &params, &mut deduced, 0);
        }
        let mut out = Vec::new();
        for (i, d) in deduced.into_iter().enumerate() {
            match d {
                Some(v) => out.push(v),
                None => {
                    // A default completes deduction (bound later); otherwise fail.
                    let has_default = matches!(
                        params[i].kind,
                        TemplateParamKind::Type { default: Some(_) }
                            | TemplateParamKind::Value { default: Some(_), .. }
                    );
                    if !has_default {
                        return None;
                    }
                    break;
                }
            }
        }
        Some(out)
    }

    /// `A<args>` naming an alias template, against `arg`: the alias's own parameters
    /// are deduced from its target type, then each written argument is matched with
    /// what its alias parameter received (`Vec<T>` for `vector<T, 3>` gives T).
    fn deduce_through_alias(
        &mut self,
        alias: DeclId,
        args: &[TemplateArg],
        arg: Ty,
        params: &[crate::ast::TemplateParam],
        deduced: &mut [Option<TemplateValue>],
        depth: u32,
    ) {
        let Some((alias_params, inner)) = self.template_inner(alias) else { return };
        let DeclKind::TypeAlias { ty, .. } = self.ast.decl(inner).kind.clone() else { return };
        let mut through: Vec<Option<TemplateValue>> = vec![None; alias_params.len()];
        self.deduce_from_type_ref(ty, arg, &alias_params, &mut through, depth + 1);
        let position =
            |sym: crate::lexer::Symbol| params.iter().position(|p| p.name.is_some_and(|n| n.name == sym));
        for (written, value) in args.iter().zip(through) {
            let Some(value) = value else { continue };
            match (written, value) {
                (TemplateArg::Type(t), TemplateValue::Type(v)) => {
                    self.deduce_from_type_ref(*t, v, params, deduced, depth + 1)
                }
                (written, TemplateValue::Value(v)) => {
                    // A value parameter written as a bare name (parsed as a type or an
                    // expression).
                    let sym = self.bare_template_arg_name(written);
                    if let Some(i) = sym.and_then(position) {
                        if deduced[i].is_none() {
                            deduced[i] = Some(TemplateValue::Value(v));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// A template argument written as a bare name, which may name a value parameter
    /// (the parser reads it as a type or as an expression).
    fn bare_template_arg_name(&self, arg: &TemplateArg) -> Option<crate::lexer::Symbol> {
        match arg {
            TemplateArg::Expr(e) => match &self.ast.expr(*e).kind {
                ExprKind::Name { name, .. } => name.last().map(|n| n.name),
                _ => None,
            },
            TemplateArg::Type(t) => match &self.ast.ty(*t).kind {
                crate::ast::TypeKind::Named { name, args: None } => name.last().map(|n| n.name),
                _ => None,
            },
        }
    }

    fn deduce_from_type_ref(
        &mut self,
        tref: crate::ast::TypeId,
        arg: Ty,
        params: &[crate::ast::TemplateParam],
        deduced: &mut [Option<TemplateValue>],
        depth: u32,
    ) {
        if depth > 16 {
            return;
        }
        let t = self.ast.ty(tref).clone();
        let position =
            |sym: crate::lexer::Symbol| params.iter().position(|p| p.name.is_some_and(|n| n.name == sym));
        match &t.kind {
            crate::ast::TypeKind::Named { name, args } => {
                let Some(last) = name.last() else { return };
                let sym = last.name;
                if args.is_none() {
                    if name.segments.len() != 1 {
                        return;
                    }
                    if let Some(i) = position(sym) {
                        if deduced[i].is_none() {
                            deduced[i] = Some(TemplateValue::Type(arg));
                        }
                    }
                    return;
                }
                let Some(args) = args else { return };
                if let Some(Found::Entity(Entity::AliasTemplate(alias))) = self.lookup_qualified(name) {
                    self.deduce_through_alias(alias, args, arg, params, deduced, depth);
                    return;
                }
                let text = self.name(sym).to_string();
                let (comp, dims): (Option<Ty>, Vec<i64>) = match self.types.get(arg).clone() {
                    TypeData::Vector(s, n) if text == "vector" => {
                        (Some(self.types.scalar(s)), vec![i64::from(n)])
                    }
                    TypeData::Matrix { elem, rows, cols, .. } if text == "matrix" => {
                        (Some(self.types.scalar(elem)), vec![i64::from(rows), i64::from(cols)])
                    }
                    TypeData::Struct(sid) => {
                        // `S<T>` against an instantiation of S.
                        let targs =
                            self.types.struct_info(sid).map(|i| i.template_args.clone()).unwrap_or_default();
                        for (a, v) in args.iter().zip(targs) {
                            match (a, v) {
                                (TemplateArg::Type(at), TemplateValue::Type(vt)) => {
                                    self.deduce_from_type_ref(*at, vt, params, deduced, depth + 1)
                                }
                                (TemplateArg::Expr(e), TemplateValue::Value(val)) => {
                                    if let ExprKind::Name { name, .. } = &self.ast.expr(*e).kind {
                                        if let Some(i) = name.last().and_then(|n| position(n.name)) {
                                            if deduced[i].is_none() {
                                                deduced[i] = Some(TemplateValue::Value(val));
                                            }
                                        }
                                    }
                                }
                                (TemplateArg::Type(at), TemplateValue::Value(val)) => {
                                    if let crate::ast::TypeKind::Named { name, .. } = &self.ast.ty(*at).kind {
                                        if let Some(i) = name.last().and_then(|n| position(n.name)) {
                                            if deduced[i].is_none() {
                                                deduced[i] = Some(TemplateValue::Value(val));
                                            }
                                        }
                                    }
                                }
                                _ => {}
                            }
                        }
                        return;
                    }
                    TypeData::Object { args: oargs, .. } => {
                        if let (Some(TemplateArg::Type(at)), Some(super::types::ObjectArg::Type(ot))) =
                            (args.first(), oargs.first())
                        {
                            let ot = *ot;
                            self.deduce_from_type_ref(*at, ot, params, deduced, depth + 1);
                        }
                        return;
                    }
                    _ => return,
                };
                if let (Some(TemplateArg::Type(at)), Some(c)) = (args.first(), comp) {
                    self.deduce_from_type_ref(*at, c, params, deduced, depth + 1);
                }
                for (a, d) in args.iter().skip(1).zip(dims) {
                    let sym = self.bare_template_arg_name(a);
                    if let Some(i) = sym.and_then(position) {
                        if deduced[i].is_none() {
                            deduced[i] = Some(TemplateValue::Value(ConstValue::Int(d)));
                        }
                    }
                }
            }
            crate::ast::TypeKind::Array { element, .. } => {
                if let TypeData::Array { elem, .. } = self.types.get(arg).clone() {
                    self.deduce_from_type_ref(*element, elem, params, deduced, depth + 1);
                }
            }
            crate::ast::TypeKind::Struct(_) | crate::ast::TypeKind::Member { .. } => {}
        }
    }
}

impl Sema<'_> {
    /// Static data members that are used but never defined (no initializer in the
    /// struct and no namespace-scope definition): dxc warns (`-Wundefined-internal`)
    /// and then cannot lower the variable.
    pub(super) fn check_undefined_statics(&mut self) {
        // Out-of-line definitions (`float S::x = 1;`) are namespace-scope variables of
        // the member's name.
        let mut defined: HashSet<crate::lexer::Symbol> = HashSet::new();
        let mut stack: Vec<DeclId> = self.ast.items.clone();
        while let Some(d) = stack.pop() {
            match &self.ast.decl(d).kind {
                DeclKind::Var(v) => defined.extend(v.name.map(|n| n.name)),
                DeclKind::Template { decl, .. } => stack.push(*decl),
                DeclKind::Namespace { decls, .. } => stack.extend(decls.iter().copied()),
                _ => {}
            }
        }
        let mut undefined: HashMap<DeclId, (StructId, crate::lexer::Symbol)> = HashMap::new();
        for (i, info) in self.types.structs.iter().enumerate() {
            for (&name, &d) in &info.statics {
                let DeclKind::Var(v) = &self.ast.decl(d).kind else { continue };
                if v.init.is_none() && !defined.contains(&name) {
                    undefined.insert(d, (StructId(i as u32), name));
                }
            }
        }
        if undefined.is_empty() {
            return;
        }
        let mut uses: Vec<(DeclId, Span)> = Vec::new();
        for (i, info) in self.exprs.iter().enumerate() {
            let Resolution::Decl(d) = info.resolution else { continue };
            if !undefined.contains_key(&d) || uses.iter().any(|(u, _)| *u == d) {
                continue;
            }
            let e = ExprId(i as u32);
            let span = match &self.ast.expr(e).kind {
                ExprKind::Name { name, .. } => name.last().map_or(self.ast.expr(e).span, |n| n.span),
                ExprKind::TypeMember { member, .. } | ExprKind::Member { member, .. } => member.span,
                _ => self.ast.expr(e).span,
            };
            uses.push((d, span));
        }
        uses.sort_by_key(|(d, _)| *d);
        for (d, use_span) in uses {
            let Some(&(sid, name)) = undefined.get(&d) else { continue };
            let owner = self.types.intern(TypeData::Struct(sid));
            let member_span = match &self.ast.decl(d).kind {
                DeclKind::Var(v) => v.name.map_or(self.ast.decl(d).span, |n| n.span),
                _ => self.ast.decl(d).span,
            };
            let message = format!(
                "variable '{}::{}' has internal linkage but is not defined",
                self.display(owner),
                self.name(name)
            );
            self.report(
                crate::diag::Diagnostic::warning(Some(member_span), "undefined-internal", message)
                    .with_note(Some(use_span), "used here"),
            );
            // dxc's backend stops at it (a fatal error).
            self.diags.fatal(member_span, "found unregistered decl");
        }
    }
}

impl Sema<'_> {
    /// The descriptor (set, binding) a global resource names itself: `[[vk::binding(b, s)]]`,
    /// else `register(xN, spaceM)` as (M, N); without `-fvk-*-shift`s.
    fn written_binding(&mut self, d: DeclId) -> Option<(i64, i64)> {
        let decl = self.ast.decl(d).clone();
        let DeclKind::Var(v) = &decl.kind else { return None };
        let vk_binding = decl.attrs.iter().find(|a| {
            a.namespace.is_some_and(|n| self.name(n.name) == "vk") && self.name(a.name.name) == "binding"
        });
        if let Some(a) = vk_binding {
            let binding = self.const_int(*a.args.first()?, "binding number")?;
            let set = match a.args.get(1) {
                Some(&e) => self.const_int(e, "descriptor set")?,
                None => 0,
            };
            return Some((set, binding));
        }
        v.annotations.iter().find_map(|a| match a {
            crate::ast::Annotation::Register { slot, space, .. } => {
                let slot = self.name(slot.name);
                let binding = slot.get(1..)?.parse().ok()?;
                let set = match space {
                    Some(s) => self.name(s.name).to_ascii_lowercase().strip_prefix("space")?.parse().ok()?,
                    None => 0,
                };
                Some((set, binding))
            }
            _ => None,
        })
    }

    /// `[[vk::combinedImageSampler]]` pairs a texture and a sampler at one binding: a
    /// partner at that binding without the attribute is an error.
    pub(super) fn check_combined_image_samplers(&mut self) {
        // (decl, is texture, marked, binding)
        let mut resources: Vec<(DeclId, bool, bool, (i64, i64))> = Vec::new();
        for d in self.ast.items.clone() {
            let decl = self.ast.decl(d).clone();
            if !matches!(decl.kind, DeclKind::Var(_)) {
                continue;
            }
            let is_texture = match self.types.get(self.decl_ty(d)) {
                TypeData::Object { kind, .. } => match kind.family() {
                    super::types::Family::Texture => true,
                    super::types::Family::Sampler | super::types::Family::ComparisonSampler => false,
                    _ => continue,
                },
                _ => continue,
            };
            let marked = decl.attrs.iter().any(|a| {
                a.namespace.is_some_and(|n| self.name(n.name) == "vk")
                    && self.name(a.name.name) == "combinedImageSampler"
            });
            let Some(binding) = self.written_binding(d) else { continue };
            resources.push((d, is_texture, marked, binding));
        }
        let mut reported = Vec::new();
        for &(_, texture, marked, binding) in &resources {
            // Without the `-fvk-*-shift`s sema cannot tell resources apart that only
            // shifts separate: a binding holding a complete marked pair is accepted.
            let pair_complete = resources.iter().any(|r| r.3 == binding && r.1 != texture && r.2);
            if !marked || pair_complete {
                continue;
            }
            for &(other, other_texture, other_marked, other_binding) in &resources {
                if other_binding == binding
                    && other_texture != texture
                    && !other_marked
                    && !reported.contains(&other)
                {
                    reported.push(other);
                    let span = match &self.ast.decl(other).kind {
                        DeclKind::Var(v) => v.name.map_or(self.ast.decl(other).span, |n| n.span),
                        _ => self.ast.decl(other).span,
                    };
                    // A fatal error in dxc's backend.
                    self.diags.fatal(
                        span,
                        format!(
                            "Texture or Sampler with vk::combinedImageSampler attribute is missing for descriptor set and binding: {}, {}",
                            binding.0, binding.1
                        ),
                    );
                }
            }
        }
    }
}
