//! Scopes and name lookup; resolving written types to interned ones.

use super::tree::{ConstValue, TemplateValue};
use super::types::{builtin_numeric, Majorness, ObjectArg, ObjectKind, Scalar, Ty, TypeData, TypeTable};
use super::Sema;
use crate::ast::{DeclId, DeclKind, ExprId, Modifiers, QualifiedName, TemplateArg, TypeId, TypeKind};
use crate::lexer::Symbol;
use std::collections::HashMap;

/// What a name denotes.
#[derive(Clone, Debug, PartialEq)]
pub enum Entity {
    Var(DeclId),
    /// An overload set: function declarations and function templates.
    Functions(Vec<DeclId>),
    Type(Ty),
    /// A struct template (its `Template` declaration).
    StructTemplate(DeclId),
    /// An alias template (`template<class T> using V = vector<T, 4>;`).
    AliasTemplate(DeclId),
    Namespace(usize),
    EnumConstant(DeclId),
    /// A non-type template parameter bound to a value.
    Value(ConstValue, Ty),
}

#[derive(Clone, Debug, Default)]
pub struct Namespace {
    pub names: HashMap<Symbol, Entity>,
    /// `using namespace` directives inside it.
    pub using: Vec<usize>,
    /// Its qualified name (`A::B`; empty for the global namespace).
    pub path: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ScopeKind {
    /// Names live in the namespace table.
    Namespace(usize),
    Block,
    /// Inside a struct's members or methods: the struct's members are visible.
    Struct(Ty),
}

#[derive(Clone, Debug)]
pub struct Scope {
    pub kind: ScopeKind,
    pub names: HashMap<Symbol, Entity>,
    pub using: Vec<usize>,
}

impl Scope {
    pub fn new(kind: ScopeKind) -> Scope {
        Scope { kind, names: HashMap::new(), using: Vec::new() }
    }
}

/// The result of an unqualified lookup.
#[derive(Clone, Debug, PartialEq)]
pub enum Found {
    Entity(Entity),
    /// A field of the enclosing struct (through the implicit `this`).
    Field {
        owner: Ty,
        decl: DeclId,
        ty: Ty,
        index: u32,
    },
    /// Methods of the enclosing struct (and its bases).
    Methods {
        owner: Ty,
        set: Vec<DeclId>,
    },
}

impl Sema<'_> {
    pub(super) fn push_scope(&mut self, kind: ScopeKind) {
        self.scopes.push(Scope::new(kind));
    }

    pub(super) fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    /// Declares a name in the innermost scope; functions join an overload set.
    pub(super) fn declare(&mut self, name: Symbol, entity: Entity) {
        let Some(scope) = self.scopes.last_mut() else { return };
        let map = match scope.kind {
            ScopeKind::Namespace(ns) => match self.namespaces.get_mut(ns) {
                Some(n) => &mut n.names,
                None => return,
            },
            _ => &mut scope.names,
        };
        if let Entity::Functions(new) = &entity {
            if let Some(Entity::Functions(set)) = map.get_mut(&name) {
                for d in new {
                    if !set.contains(d) {
                        set.push(*d);
                    }
                }
                return;
            }
        }
        map.insert(name, entity);
    }

    /// The innermost namespace of the scope stack.
    pub(super) fn current_namespace(&self) -> usize {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| match s.kind {
                ScopeKind::Namespace(n) => Some(n),
                _ => None,
            })
            .unwrap_or(0)
    }

    fn lookup_in_namespace(&self, ns: usize, name: Symbol, depth: u32) -> Option<Entity> {
        let n = self.namespaces.get(ns)?;
        if let Some(e) = n.names.get(&name) {
            return Some(e.clone());
        }
        if depth > 16 {
            return None;
        }
        n.using.iter().find_map(|&u| self.lookup_in_namespace(u, name, depth + 1))
    }

    /// Unqualified lookup from the innermost scope out.
    pub(super) fn lookup(&mut self, name: Symbol) -> Option<Found> {
        for i in (0..self.scopes.len()).rev() {
            match self.scopes[i].kind.clone() {
                ScopeKind::Namespace(ns) => {
                    if let Some(e) = self.lookup_in_namespace(ns, name, 0) {
                        return Some(Found::Entity(e));
                    }
                }
                ScopeKind::Struct(ty) => {
                    if let Some(e) = self.scopes[i].names.get(&name) {
                        return Some(Found::Entity(e.clone()));
                    }
                    if let Some(found) = self.lookup_member(ty, name, 0) {
                        return Some(found);
                    }
                }
                ScopeKind::Block => {
                    if let Some(e) = self.scopes[i].names.get(&name) {
                        return Some(Found::Entity(e.clone()));
                    }
                }
            }
            let usings = self.scopes[i].using.clone();
            if let Some(e) = usings.iter().find_map(|&u| self.lookup_in_namespace(u, name, 0)) {
                return Some(Found::Entity(e));
            }
        }
        None
    }

    /// A member of a struct type (fields, methods, statics, nested types), bases included.
    pub(super) fn lookup_member(&self, ty: Ty, name: Symbol, depth: u32) -> Option<Found> {
        if depth > 32 {
            return None;
        }
        let TypeData::Struct(id) = self.types.get(ty) else { return None };
        let info = self.types.struct_info(*id)?;
        if let Some(index) = info.fields.iter().position(|f| f.name == name) {
            let f = &info.fields[index];
            return Some(Found::Field { owner: ty, decl: f.decl, ty: f.ty, index: index as u32 });
        }
        if let Some(set) = info.methods.get(&name) {
            // A derived class's methods hide its bases' of the same name.
            return Some(Found::Methods { owner: ty, set: set.clone() });
        }
        if let Some(&d) = info.statics.get(&name) {
            return Some(Found::Entity(Entity::Var(d)));
        }
        if let Some(&t) = info.types.get(&name) {
            return Some(Found::Entity(Entity::Type(t)));
        }
        if let Some(&template) = info.member_templates.get(&name) {
            let inner = self.template_inner(template).map(|(_, inner)| inner)?;
            return match self.ast.decl(inner).kind {
                DeclKind::TypeAlias { .. } => Some(Found::Entity(Entity::AliasTemplate(template))),
                _ => Some(Found::Entity(Entity::StructTemplate(template))),
            };
        }
        // Enumerators of unscoped enums nested in the struct.
        for &t in info.types.values() {
            if let TypeData::Enum(e) = self.types.get(t) {
                if let Some(e) = self.types.enums.get(e.0 as usize).filter(|e| !e.scoped) {
                    if let Some(&(decl, _)) = e.constants.get(&name) {
                        return Some(Found::Entity(Entity::EnumConstant(decl)));
                    }
                }
            }
        }
        for &b in &info.bases {
            if let Some(f) = self.lookup_member(b, name, depth + 1) {
                return Some(f);
            }
        }
        None
    }

    /// Lookup of a possibly qualified name (`a::b::c`, `::c`, `S::member`).
    pub(super) fn lookup_qualified(&mut self, name: &QualifiedName) -> Option<Found> {
        let segments = &name.segments;
        let (last, prefix) = segments.split_last()?;
        if prefix.is_empty() {
            if name.global {
                return self.lookup_in_namespace(0, last.name, 0).map(Found::Entity);
            }
            return self.lookup(last.name);
        }
        // Resolve the prefix to a namespace or a type.
        let mut current: Option<Entity> = None;
        for (i, seg) in prefix.iter().enumerate() {
            let next = match (&current, i) {
                (None, 0) if name.global => self.lookup_in_namespace(0, seg.name, 0),
                (None, 0) => match self.lookup(seg.name) {
                    Some(Found::Entity(e)) => Some(e),
                    _ => None,
                },
                (Some(Entity::Namespace(ns)), _) => self.lookup_in_namespace(*ns, seg.name, 0),
                (Some(Entity::Type(t)), _) => match self.lookup_member(*t, seg.name, 0) {
                    Some(Found::Entity(e)) => Some(e),
                    _ => None,
                },
                _ => None,
            };
            current = Some(next?);
        }
        match current? {
            Entity::Namespace(ns) => self.lookup_in_namespace(ns, last.name, 0).map(Found::Entity),
            Entity::Type(t) => self.lookup_member(t, last.name, 0),
            _ => None,
        }
    }

    /// The namespace a qualified name's prefix names, when it names one.
    pub(super) fn is_vk_namespace(&self, name: &QualifiedName) -> bool {
        name.segments.len() == 2 && self.name(name.segments[0].name) == "vk"
    }

    /// Resolves a written type (without declarator array dimensions).
    pub(super) fn resolve_type(&mut self, id: TypeId) -> Ty {
        let tref = self.ast.ty(id).clone();
        let ty = match &tref.kind {
            TypeKind::Named { name, args } => self.resolve_named_type(name, args.as_deref(), tref.span),
            TypeKind::Struct(decl) => self.struct_decl(*decl, None),
            TypeKind::Member { owner, name, args } => {
                let owner_ty = self.resolve_type(*owner);
                self.resolve_member_type(owner_ty, *name, args.as_deref(), tref.span)
            }
            TypeKind::Array { element, size } => {
                let elem = self.resolve_type(*element);
                let len = size.and_then(|s| self.array_length(s));
                self.types.array(elem, len)
            }
        };
        let ty = if tref.modifiers.contains(Modifiers::UNSIGNED) { self.unsigned_of(ty) } else { ty };
        self.apply_type_modifiers(ty, tref.modifiers)
    }

    /// `unsigned T`: the unsigned integer of T's width (`unsigned int` is `uint`).
    fn unsigned_of(&mut self, ty: Ty) -> Ty {
        let unsigned = |s: Scalar| match s {
            Scalar::Int => Scalar::UInt,
            Scalar::Int16 => Scalar::UInt16,
            Scalar::Int64 => Scalar::UInt64,
            Scalar::Min16Int | Scalar::Min12Int => Scalar::Min16UInt,
            other => other,
        };
        match self.types.get(ty).clone() {
            TypeData::Scalar(s) => self.types.scalar(unsigned(s)),
            _ => ty,
        }
    }

    /// `row_major`/`column_major` on a matrix (or an array of them).
    pub(super) fn apply_type_modifiers(&mut self, ty: Ty, modifiers: Modifiers) -> Ty {
        let major = if modifiers.contains(Modifiers::ROW_MAJOR) {
            Majorness::RowMajor
        } else if modifiers.contains(Modifiers::COLUMN_MAJOR) {
            Majorness::ColumnMajor
        } else {
            return ty;
        };
        self.with_majorness(ty, major, 0)
    }

    fn with_majorness(&mut self, ty: Ty, major: Majorness, depth: u32) -> Ty {
        match self.types.get(ty).clone() {
            TypeData::Matrix { elem, rows, cols, .. } => {
                self.types.intern(TypeData::Matrix { elem, rows, cols, major })
            }
            TypeData::Array { elem, len } if depth < 16 => {
                let e = self.with_majorness(elem, major, depth + 1);
                self.types.array(e, len)
            }
            _ => ty,
        }
    }

    /// An array dimension: a positive integer constant.
    pub(super) fn array_length(&mut self, e: ExprId) -> Option<u32> {
        let v = self.const_int(e, "array size")?;
        if v < 0 {
            let span = self.ast.expr(e).span;
            self.error(span, "array size is negative");
            return None;
        }
        if v == 0 {
            let span = self.ast.expr(e).span;
            self.error(span, "array dimension must be between 1 and 65536");
            return None;
        }
        Some(u32::try_from(v).unwrap_or(u32::MAX))
    }

    fn resolve_named_type(
        &mut self,
        name: &QualifiedName,
        args: Option<&[TemplateArg]>,
        span: crate::source::Span,
    ) -> Ty {
        let Some(last) = name.last() else { return TypeTable::ERROR };
        let text = self.name(last.name).to_string();
        let is_vk = self.is_vk_namespace(name);
        if name.segments.len() == 1 || is_vk {
            if let Some(ty) = self.builtin_type(&text, args, span, is_vk) {
                return ty;
            }
        }
        match self.lookup_qualified(name) {
            Some(Found::Entity(Entity::Type(t))) => {
                // Inside a class template, its name is the current instantiation;
                // with arguments it names another instantiation
                // (`CooperativeMatrix<NewType, ...>` in a member of `CooperativeMatrix`).
                // Arguments on a plain struct (an explicit specialization's) are harmless.
                match (args, self.template_of_instance(t)) {
                    (Some(args), Some(template)) => self.instantiate_struct(template, args, span),
                    _ => t,
                }
            }
            Some(Found::Entity(Entity::StructTemplate(t))) => {
                let args = args.map(|a| a.to_vec()).unwrap_or_default();
                self.instantiate_struct(t, &args, span)
            }
            Some(Found::Entity(Entity::AliasTemplate(t))) => {
                let Some(args) = args else {
                    let what = self.template_description(t);
                    self.error(span, format!("use of {what} requires template arguments"));
                    return TypeTable::ERROR;
                };
                self.instantiate_alias(t, args, span)
            }
            _ => {
                if name.segments.len() > 1 && !is_vk {
                    // `T::U` of a dependent or unknown type: accept as opaque.
                    let qualifier = self.name(name.segments[0].name).to_string();
                    if self.lookup(name.segments[0].name).is_none() {
                        self.unknown_name_error(
                            span,
                            &text,
                            format!("use of undeclared identifier '{qualifier}'"),
                        );
                        return TypeTable::ERROR;
                    }
                    self.error(span, format!("no type named '{text}' in '{qualifier}'"));
                    return TypeTable::ERROR;
                }
                self.unknown_name_error(span, &text, format!("unknown type name '{text}'"));
                TypeTable::ERROR
            }
        }
    }

    /// Built-in type names: numerics, `vector`/`matrix`, objects, `vk::` types.
    fn builtin_type(
        &mut self,
        text: &str,
        args: Option<&[TemplateArg]>,
        span: crate::source::Span,
        is_vk: bool,
    ) -> Option<Ty> {
        if !is_vk {
            // A user type of the same name wins over object names (not over keywords).
            if let Some((s, shape)) = builtin_numeric(text) {
                let s = self.adjust_scalar(s, text, span);
                return Some(self.types.with_shape(s, shape));
            }
            match text {
                "void" => return Some(TypeTable::VOID),
                "string" => return Some(TypeTable::STRING),
                "vector" => return Some(self.vector_template(args, span)),
                "matrix" => return Some(self.matrix_template(args, span)),
                _ => {}
            }
            if self.user_type_shadows(text) {
                return None;
            }
        }
        if let Some(s) = self.builtin_structs.get(text) {
            return Some(*s);
        }
        let kind = match ObjectKind::from_name(text) {
            Some(k) => k,
            None if is_vk => {
                // `vk::ext_type`, `vk::Literal`, ...: inline SPIR-V helpers.
                let sym = self.ast.interner.intern(text);
                return Some(self.types.intern(TypeData::Opaque(sym)));
            }
            None => {
                return match text {
                    "auto" => Some(TypeTable::ERROR),
                    "integral_constant" | "Literal" | "ext_type" | "ext_result_id" => {
                        let sym = self.ast.interner.intern(text);
                        Some(self.types.intern(TypeData::Opaque(sym)))
                    }
                    _ => None,
                }
            }
        };
        let args = self.object_args(kind, args.unwrap_or(&[]), span);
        Some(self.types.object(kind, args))
    }

    /// Whether a user declaration named `text` is visible (user types may reuse
    /// object type names).
    fn user_type_shadows(&mut self, text: &str) -> bool {
        let Some(sym) = self.ast.interner.lookup(text) else { return false };
        matches!(
            self.lookup(sym),
            Some(Found::Entity(Entity::Type(_) | Entity::StructTemplate(_) | Entity::AliasTemplate(_)))
        )
    }

    /// 16-bit spellings need `-enable-16bit-types`; `half` is 32-bit without it.
    fn adjust_scalar(&mut self, s: Scalar, text: &str, span: crate::source::Span) -> Scalar {
        let sixteen =
            text.starts_with("int16_t") || text.starts_with("uint16_t") || text.starts_with("float16_t");
        if sixteen && !self.opts.enable_16bit_types {
            let base = text.trim_end_matches(|c: char| c.is_ascii_digit() || c == 'x');
            let base = if base.ends_with("_t") { base } else { text };
            self.error(span, format!("unknown type name '{base}'"));
        }
        // dxc names the type a min-precision spelling really gets (-Wconversion).
        let promoted = match (s, self.opts.enable_16bit_types) {
            (Scalar::Min16Float | Scalar::Min10Float, true) => Some("half"),
            (Scalar::Min16Int | Scalar::Min12Int, true) => Some("int16_t"),
            (Scalar::Min16UInt, true) => Some("uint16_t"),
            (Scalar::Min10Float, false) => Some("min16float"),
            (Scalar::Min12Int, false) => Some("min16int"),
            _ => None,
        };
        if let Some(promoted) = promoted {
            let message = format!("'{}' is promoted to '{promoted}'", s.name());
            self.warning(span, "conversion", message);
        }
        if self.opts.enable_16bit_types {
            // Min-precision types are real 16-bit types then.
            return match s {
                Scalar::Min16Float | Scalar::Min10Float => Scalar::Half,
                Scalar::Min16Int | Scalar::Min12Int => Scalar::Int16,
                Scalar::Min16UInt => Scalar::UInt16,
                s => s,
            };
        }
        s
    }

    fn template_type_arg(&mut self, arg: Option<&TemplateArg>, default: Ty) -> Ty {
        match arg {
            Some(TemplateArg::Type(t)) => self.resolve_type(*t),
            Some(TemplateArg::Expr(e)) => {
                // A name parsed as an expression may still be a type.
                if let crate::ast::ExprKind::Name { name, template_args } = self.ast.expr(*e).kind.clone() {
                    let span = self.ast.expr(*e).span;
                    return self.resolve_named_type(&name, template_args.as_deref(), span);
                }
                default
            }
            None => default,
        }
    }

    fn template_int_arg(&mut self, arg: Option<&TemplateArg>, default: i64) -> i64 {
        match arg {
            Some(TemplateArg::Expr(e)) => self.const_int(*e, "template argument").unwrap_or(default),
            Some(TemplateArg::Type(t)) => {
                // `vector<float, N>` where `N` parsed as a type name.
                let tref = self.ast.ty(*t).clone();
                if let TypeKind::Named { name, .. } = &tref.kind {
                    if let Some(Found::Entity(Entity::Value(v, _))) = self.lookup_qualified(name) {
                        return v.as_int().unwrap_or(default);
                    }
                }
                default
            }
            None => default,
        }
    }

    fn vector_template(&mut self, args: Option<&[TemplateArg]>, span: crate::source::Span) -> Ty {
        let args = args.unwrap_or(&[]);
        let elem = self.template_type_arg(args.first(), TypeTable::FLOAT);
        let n = self.template_int_arg(args.get(1), 4);
        if self.types.is_error(elem) {
            return TypeTable::ERROR;
        }
        let Some(s) = self.types.component(elem).filter(|_| self.types.is_scalar(elem)) else {
            self.error(
                span,
                format!(
                    "'{}' cannot be used as a type parameter where a scalar is required",
                    self.display(elem)
                ),
            );
            return TypeTable::ERROR;
        };
        if !(1..=4).contains(&n) {
            self.error(span, "invalid value, valid range is between 1 and 4 inclusive");
            return TypeTable::ERROR;
        }
        self.types.vector(s, n as u8)
    }

    fn matrix_template(&mut self, args: Option<&[TemplateArg]>, span: crate::source::Span) -> Ty {
        let args = args.unwrap_or(&[]);
        let elem = self.template_type_arg(args.first(), TypeTable::FLOAT);
        let r = self.template_int_arg(args.get(1), 4);
        let c = self.template_int_arg(args.get(2), 4);
        if self.types.is_error(elem) {
            return TypeTable::ERROR;
        }
        let Some(s) = self.types.component(elem).filter(|_| self.types.is_scalar(elem)) else {
            self.error(
                span,
                format!(
                    "'{}' cannot be used as a type parameter where a scalar is required",
                    self.display(elem)
                ),
            );
            return TypeTable::ERROR;
        };
        if !(1..=4).contains(&r) || !(1..=4).contains(&c) {
            self.error(span, "invalid value, valid range is between 1 and 4 inclusive");
            return TypeTable::ERROR;
        }
        self.types.matrix(s, r as u8, c as u8)
    }

    /// An object's template arguments with dxc's defaults (`float4` elements).
    fn object_args(
        &mut self,
        kind: ObjectKind,
        args: &[TemplateArg],
        span: crate::source::Span,
    ) -> Vec<ObjectArg> {
        use super::types::Family;
        let float4 = self.types.vector(Scalar::Float, 4);
        match kind.family() {
            Family::Texture
            | Family::RWTexture
            | Family::Buffer
            | Family::RWBuffer
            | Family::SubpassInput => {
                let elem = self.template_type_arg(args.first(), float4);
                self.check_typed_element(elem, span);
                let mut out = vec![ObjectArg::Type(elem)];
                if let Some(a) = args.get(1) {
                    out.push(ObjectArg::Int(self.template_int_arg(Some(a), 0)));
                }
                out
            }
            Family::Sampler
            | Family::ComparisonSampler
            | Family::AccelerationStructure
            | Family::ByteAddressBuffer
            | Family::RWByteAddressBuffer => Vec::new(),
            Family::RayQuery => vec![ObjectArg::Int(self.template_int_arg(args.first(), 0))],
            Family::InputPatch | Family::OutputPatch => {
                let elem = self.template_type_arg(args.first(), TypeTable::ERROR);
                let n = self.template_int_arg(args.get(1), 1);
                vec![ObjectArg::Type(elem), ObjectArg::Int(n)]
            }
            Family::Other if matches!(kind, ObjectKind::SpirvType | ObjectKind::SpirvOpaqueType) => {
                args.iter().map(|_| ObjectArg::Opaque).collect()
            }
            Family::Other if kind == ObjectKind::BufferPointer => {
                let elem = self.template_type_arg(args.first(), TypeTable::ERROR);
                let align = args.get(1).map_or(0, |a| self.template_int_arg(Some(a), 0));
                vec![ObjectArg::Type(elem), ObjectArg::Int(align)]
            }
            Family::Node if args.is_empty() => Vec::new(),
            _ => match args.first() {
                Some(a) => {
                    let elem = self.template_type_arg(Some(a), TypeTable::ERROR);
                    vec![ObjectArg::Type(elem)]
                }
                None => Vec::new(),
            },
        }
    }

    /// Typed buffers and textures hold scalars or vectors (dxc also allows small structs
    /// for some, which codegen rejects later).
    fn check_typed_element(&mut self, elem: Ty, span: crate::source::Span) {
        match self.types.get(elem) {
            TypeData::Scalar(_)
            | TypeData::Vector(..)
            | TypeData::Error
            | TypeData::Opaque(_)
            | TypeData::Enum(_) => {}

            _ => self.error(span, "elements of typed buffers and textures must be scalars or vectors"),
        }
    }

    /// Evaluates template arguments to types and values.
    pub(super) fn template_values(&mut self, args: &[TemplateArg]) -> Vec<TemplateValue> {
        let mut out = Vec::new();
        for a in args {
            match a {
                TemplateArg::Type(t) => {
                    // A plain name may be a value parameter in scope.
                    let tref = self.ast.ty(*t).clone();
                    if let TypeKind::Named { name, args: None } = &tref.kind {
                        if name.segments.len() == 1 {
                            if let Some(Found::Entity(Entity::Value(v, _))) =
                                self.lookup(name.segments[0].name)
                            {
                                out.push(TemplateValue::Value(v));
                                continue;
                            }
                            if let Some(Found::Entity(Entity::Var(d))) = self.lookup(name.segments[0].name) {
                                if let Some(v) = self.decls.get(d.index()).and_then(|i| i.constant) {
                                    out.push(TemplateValue::Value(v));
                                    continue;
                                }
                            }
                        }
                    }
                    let ty = self.resolve_type(*t);
                    out.push(TemplateValue::Type(ty));
                }
                TemplateArg::Expr(e) => {
                    if let crate::ast::ExprKind::Name { name, template_args } = self.ast.expr(*e).kind.clone()
                    {
                        let is_type =
                            matches!(
                                self.lookup_qualified(&name),
                                Some(Found::Entity(Entity::Type(_) | Entity::StructTemplate(_)))
                            ) || crate::parser::builtin_type_kind(&self.ast.qualified_name_text(&name))
                                .is_some();
                        if is_type {
                            let span = self.ast.expr(*e).span;
                            let ty = self.resolve_named_type(&name, template_args.as_deref(), span);
                            out.push(TemplateValue::Type(ty));
                            continue;
                        }
                    }
                    self.check_expr(*e);
                    let v = self.constant_of(*e).unwrap_or(ConstValue::Int(0));
                    out.push(TemplateValue::Value(v));
                }
            }
        }
        out
    }

    /// The declaration kind of a `Template` declaration's inner declaration.
    /// `Owner::name[<args>]`: a nested type, alias template or class template of a
    /// resolved struct.
    fn resolve_member_type(
        &mut self,
        owner: Ty,
        name: crate::ast::Ident,
        args: Option<&[TemplateArg]>,
        span: crate::source::Span,
    ) -> Ty {
        if self.types.is_error(owner) {
            return owner;
        }
        match (self.lookup_member(owner, name.name, 0), args) {
            (Some(Found::Entity(Entity::Type(t))), None) => t,
            (Some(Found::Entity(Entity::AliasTemplate(t))), Some(args)) => {
                self.instantiate_alias(t, args, span)
            }
            (Some(Found::Entity(Entity::StructTemplate(t))), Some(args)) => {
                self.instantiate_struct(t, args, span)
            }
            (Some(Found::Entity(Entity::AliasTemplate(t) | Entity::StructTemplate(t))), None) => {
                let what = self.template_description(t);
                self.error(span, format!("use of {what} requires template arguments"));
                TypeTable::ERROR
            }
            _ => {
                let text = self.name(name.name).to_string();
                let owner = self.display(owner);
                self.error(span, format!("no type named '{text}' in '{owner}'"));
                TypeTable::ERROR
            }
        }
    }

    /// The class template a struct type was instantiated from.
    pub(super) fn template_of_instance(&self, ty: Ty) -> Option<DeclId> {
        let TypeData::Struct(sid) = self.types.get(ty) else { return None };
        let info = self.types.struct_info(*sid)?;
        if info.template_args.is_empty() {
            return None;
        }
        let template = self.instantiations.iter().find(|i| i.decl == info.decl)?.template;
        // Only a primary template (a partial specialization's parameters differ).
        let (_, inner) = self.template_inner(template)?;
        matches!(self.ast.decl(inner).kind, DeclKind::Struct { template_args: None, .. }).then_some(template)
    }

    pub(super) fn template_inner(
        &self,
        template: DeclId,
    ) -> Option<(Vec<crate::ast::TemplateParam>, DeclId)> {
        match &self.ast.decl(template).kind {
            DeclKind::Template { params, decl } => Some((params.clone(), *decl)),
            _ => None,
        }
    }
}
