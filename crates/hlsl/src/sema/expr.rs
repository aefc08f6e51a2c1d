//! Expressions: typing, value categories, implicit conversions, constant folding,
//! member access and swizzles, indexing, and calls with overload resolution.

use super::convert::{common_scalar, common_shape, explicit_conversion, implicit_conversion, Cost};
use super::intrinsics::{self, Arg, Env, Signature};
use super::lookup::{Entity, Found};
use super::tree::{
    CallInfo, Callee, CastKind, ConstValue, Conversion, ExprInfo, ParamDirection, Resolution, TemplateValue,
    ValueCategory,
};
use super::types::{Family, ObjectArg, ObjectKind, Scalar, Shape, Ty, TypeData, TypeTable};
use super::{Sema, MAX_EXPR_DEPTH};
use crate::ast::{BinaryOp, DeclId, DeclKind, ExprId, ExprKind, Ident, Modifiers, TemplateArg, UnaryOp};
use crate::source::Span;

/// A candidate of overload resolution after matching.
struct Viable {
    decl: DeclId,
    params: Vec<(Ty, ParamDirection)>,
    ret: Ty,
    cost: Cost,
    /// An instance of a function template (loses ties to plain functions).
    from_template: bool,
}

impl Sema<'_> {
    /// Types an expression (once) and returns its type.
    pub(super) fn check_expr(&mut self, id: ExprId) -> Ty {
        if self.expr_depth > MAX_EXPR_DEPTH {
            let span = self.ast.expr(id).span;
            self.error(span, "expression nesting too deep");
            return TypeTable::ERROR;
        }
        self.expr_depth += 1;
        let info = self.check_expr_inner(id);
        self.expr_depth -= 1;
        let ty = info.ty;
        *self.expr_info(id) = info;
        ty
    }

    fn rvalue(ty: Ty) -> ExprInfo {
        ExprInfo { ty, ..ExprInfo::default() }
    }

    fn constant(ty: Ty, value: Option<ConstValue>) -> ExprInfo {
        ExprInfo { ty, constant: value, ..ExprInfo::default() }
    }

    fn check_expr_inner(&mut self, id: ExprId) -> ExprInfo {
        let expr = self.ast.expr(id).clone();
        let span = expr.span;
        match expr.kind {
            ExprKind::IntLiteral { value, suffix } => {
                let s = self.name(suffix).to_ascii_lowercase();
                let scalar = match s.as_str() {
                    "" => Scalar::LiteralInt,
                    "u" => Scalar::UInt,
                    "l" => Scalar::Int64,
                    "ul" | "lu" | "ull" | "llu" => Scalar::UInt64,
                    "ll" => Scalar::Int64,
                    _ => Scalar::LiteralInt,
                };
                let ty = self.types.scalar(scalar);
                Self::constant(ty, Some(ConstValue::Int(value as i64)))
            }
            ExprKind::FloatLiteral { value, text } => {
                let t = self.name(text).to_ascii_lowercase();
                let scalar = if t.ends_with('h') {
                    Scalar::Half
                } else if t.ends_with('f') && !t.starts_with("0x") {
                    Scalar::Float
                } else if t.ends_with('l') {
                    Scalar::Double
                } else {
                    Scalar::LiteralFloat
                };
                let ty = self.types.scalar(scalar);
                Self::constant(ty, Some(ConstValue::Float(value)))
            }
            ExprKind::BoolLiteral(b) => Self::constant(TypeTable::BOOL, Some(ConstValue::Bool(b))),
            ExprKind::StringLiteral(_) => Self::rvalue(TypeTable::STRING),
            ExprKind::Name { name, template_args } => {
                self.check_name(id, &name, template_args.as_deref(), span)
            }
            ExprKind::This => match self.function.as_ref().and_then(|f| f.this_ty) {
                Some(t) => ExprInfo { ty: t, category: ValueCategory::LValue, ..ExprInfo::default() },
                None => {
                    self.error(span, "invalid use of 'this' outside of a non-static member function");
                    Self::rvalue(TypeTable::ERROR)
                }
            },
            ExprKind::Paren(inner) => {
                let ty = self.check_expr(inner);
                let i = self.exprs.get(inner.index()).cloned().unwrap_or_default();
                ExprInfo {
                    ty,
                    category: i.category,
                    constant: i.constant,
                    resolution: Resolution::None,
                    conversion: None,
                }
            }
            ExprKind::Unary { op, operand } => self.check_unary(op, operand, span),
            ExprKind::Binary { op, lhs, rhs } => self.check_binary(id, op, lhs, rhs, span),
            ExprKind::Assign { op, lhs, rhs } => self.check_assign(op, lhs, rhs, span),
            ExprKind::Conditional { condition, then_value, else_value } => {
                self.check_conditional(condition, then_value, else_value, span)
            }
            ExprKind::Call { callee, args } => self.check_call(id, callee, &args, span),
            ExprKind::Member { base, member, template_args } => {
                self.check_member(base, member, template_args.as_deref(), span)
            }
            ExprKind::Index { base, index } => self.check_index(id, base, index, span),
            ExprKind::Cast { ty, operand } => {
                let to = self.resolve_type(ty);
                self.check_cast(operand, to, span)
            }
            ExprKind::Construct { ty, args } => {
                let to = self.resolve_type(ty);
                self.check_construct(id, to, &args, span)
            }
            ExprKind::InitList(items) => {
                for item in items {
                    self.check_expr(item);
                }
                Self::rvalue(TypeTable::ERROR)
            }
            ExprKind::SizeOfType(t) => {
                let ty = self.resolve_type(t);
                let size = self.size_of(ty);
                Self::constant(TypeTable::UINT, size.map(|s| ConstValue::Int(i64::from(s))))
            }
            ExprKind::SizeOfExpr(e) => {
                let ty = self.check_expr(e);
                let size = self.size_of(ty);
                Self::constant(TypeTable::UINT, size.map(|s| ConstValue::Int(i64::from(s))))
            }
            ExprKind::TypeMember { ty, member, template_args } => {
                let owner = self.resolve_type(ty);
                self.check_type_member(owner, member, template_args.as_deref(), span)
            }
            ExprKind::DeclCondition(d) => {
                self.var_decl(d, super::decl::VarContext::Local);
                let ty = self.decl_ty(d);
                ExprInfo {
                    ty,
                    category: ValueCategory::LValue,
                    resolution: Resolution::Decl(d),
                    ..ExprInfo::default()
                }
            }
            ExprKind::Error => Self::rvalue(TypeTable::ERROR),
        }
    }

    /// The byte size `sizeof` gives (32-bit scalars unless 16/64-bit types).
    fn size_of(&self, ty: Ty) -> Option<u32> {
        self.size_and_alignment(ty, 0).map(|(size, _)| size)
    }

    /// Size and alignment in clang's C layout, which dxc's `sizeof` follows: a vector
    /// or matrix is aligned as its scalar, a struct member at its own alignment and the
    /// struct rounded up to its largest; an empty struct has size 0. An enum is its
    /// underlying type.
    fn size_and_alignment(&self, ty: Ty, depth: u32) -> Option<(u32, u32)> {
        if depth > 64 {
            return None;
        }
        let sixteen = self.opts.enable_16bit_types;
        let scalar_size = |s: Scalar| s.concrete().bits(sixteen) / 8;
        match self.types.get(ty) {
            TypeData::Scalar(s) | TypeData::Vector(s, _) | TypeData::Matrix { elem: s, .. } => {
                let size = scalar_size(*s);
                Some((size.checked_mul(self.types.flat_count(ty)?)?, size))
            }
            TypeData::Enum(_) => {
                let size = scalar_size(self.types.component(ty)?);
                Some((size, size))
            }
            TypeData::Array { elem, len: Some(n) } => {
                let (size, align) = self.size_and_alignment(*elem, depth + 1)?;
                Some((size.checked_mul(*n)?, align))
            }
            TypeData::Struct(sid) => {
                let info = self.types.struct_info(*sid)?;
                let (mut offset, mut max_align) = (0u32, 1u32);
                for member in info.bases.iter().copied().chain(info.fields.iter().map(|f| f.ty)) {
                    let (size, align) = self.size_and_alignment(member, depth + 1)?;
                    let align = align.max(1);
                    offset = offset.checked_next_multiple_of(align)?.checked_add(size)?;
                    max_align = max_align.max(align);
                }
                Some((offset.checked_next_multiple_of(max_align)?, max_align))
            }
            _ => None,
        }
    }

    pub(super) fn is_lvalue(&self, e: ExprId) -> bool {
        self.exprs.get(e.index()).is_some_and(|i| i.category != ValueCategory::RValue)
    }

    /// Records the conversion of `e` from `from` to `to` if HLSL allows it implicitly;
    /// warns on truncation. `None` when not convertible.
    pub(super) fn convert_implicit(&mut self, e: ExprId, from: Ty, to: Ty) -> Option<CastKind> {
        self.convert_implicit_warning(e, from, to, Narrowing::Warn)
    }

    /// `convert_implicit` for the elements of a constructor (`half2(f, f)`): dxc fits
    /// them as an initializer list, which converts without the narrowing warning.
    fn convert_constructor_element(&mut self, e: ExprId, from: Ty, to: Ty) -> Option<CastKind> {
        self.convert_implicit_warning(e, from, to, Narrowing::Silent)
    }

    fn convert_implicit_warning(
        &mut self,
        e: ExprId,
        from: Ty,
        to: Ty,
        narrowing: Narrowing,
    ) -> Option<CastKind> {
        let conv = implicit_conversion(&self.types, from, to)?;
        if let (true, Some(source), Some(target)) =
            (narrowing != Narrowing::Silent, self.types.component(from), self.types.component(to))
        {
            // dxc's narrowing warning: a (non-literal) number into a narrower one.
            let sixteen = self.opts.enable_16bit_types;
            let numeric = |s: Scalar| s != Scalar::Bool;
            if numeric(source)
                && numeric(target)
                && !source.is_literal()
                && target.bits(sixteen) < source.bits(sixteen)
            {
                let span = self.ast.expr(e).span;
                let message = format!(
                    "conversion from larger type '{}' to smaller type '{}', possible loss of data",
                    self.types.display(from),
                    if narrowing == Narrowing::WarnIntrinsic {
                        self.types.display_template(to)
                    } else {
                        self.types.display(to)
                    }
                );
                self.warning(span, "conversion", message);
            }
        }
        if conv.truncates {
            let span = self.ast.expr(e).span;
            let vector = matches!(self.types.get(from), TypeData::Vector(..));
            let what = if vector { "vector" } else { "matrix" };
            self.warning(span, "conversion", format!("implicit truncation of {what} type"));
        }
        if conv.kind != CastKind::NoOp || from != to {
            let constant = self.exprs.get(e.index()).and_then(|i| i.constant);
            // A converted constant keeps its value in the new type.
            let constant = constant.map(|c| convert_constant(c, to, &self.types));
            let info = self.expr_info(e);
            info.conversion = Some(Conversion { to, kind: conv.kind });
            if constant.is_some() {
                info.constant = constant;
            }
        }
        Some(conv.kind)
    }

    /// Converts or reports `message(from, to)`.
    fn coerce(&mut self, e: ExprId, to: Ty, message: impl FnOnce(&Self, Ty, bool) -> String) -> bool {
        let from = self.exprs.get(e.index()).map_or(TypeTable::ERROR, |i| i.ty);
        if self.convert_implicit(e, from, to).is_some() {
            return true;
        }
        let span = self.ast.expr(e).span;
        let lvalue = self.is_lvalue(e);
        let text = message(self, from, lvalue);
        self.error(span, text);
        false
    }

    /// A literal's type made concrete where nothing gives it one.
    fn settle_literal(&mut self, e: ExprId, ty: Ty) -> Ty {
        let concrete = self.types.concrete(ty);
        if concrete != ty {
            self.convert_implicit(e, ty, concrete);
        }
        concrete
    }

    fn check_name(
        &mut self,
        id: ExprId,
        name: &crate::ast::QualifiedName,
        targs: Option<&[TemplateArg]>,
        span: Span,
    ) -> ExprInfo {
        let _ = id;
        let found = self.lookup_qualified(name);
        match found {
            Some(Found::Entity(Entity::Var(d))) => self.var_ref(d),
            Some(Found::Entity(Entity::EnumConstant(d))) => {
                let info = self.decls.get(d.index()).cloned().unwrap_or_default();
                ExprInfo {
                    ty: info.ty,
                    constant: info.constant,
                    resolution: Resolution::EnumConstant(d),
                    ..ExprInfo::default()
                }
            }
            Some(Found::Entity(Entity::Value(v, t))) => {
                let t = if self.types.is_error(t) { TypeTable::LITERAL_INT } else { t };
                Self::constant(t, Some(v))
            }
            Some(Found::Entity(Entity::Type(t))) => {
                // A type named where a value is expected is only valid as a callee; the
                // call handles it.
                ExprInfo { ty: t, resolution: Resolution::Type(t), ..ExprInfo::default() }
            }
            Some(Found::Field { owner: _, decl, ty, index }) => {
                let category = if self.function.as_ref().is_some_and(|f| f.is_const_method) {
                    ValueCategory::ConstLValue
                } else {
                    ValueCategory::LValue
                };
                ExprInfo {
                    ty,
                    category,
                    resolution: Resolution::Field { decl, index },
                    ..ExprInfo::default()
                }
            }
            Some(Found::Methods { .. }) | Some(Found::Entity(Entity::Functions(_))) => {
                // Only meaningful as a callee.
                ExprInfo { ty: TypeTable::ERROR, ..ExprInfo::default() }
            }
            Some(Found::Entity(Entity::Namespace(_))) => {
                let text = self.ast.qualified_name_text(name);
                self.error(span, format!("unexpected namespace name '{text}': expected expression"));
                Self::rvalue(TypeTable::ERROR)
            }
            Some(Found::Entity(Entity::StructTemplate(t))) => {
                let args = targs.map(|a| a.to_vec()).unwrap_or_default();
                let ty = self.instantiate_struct(t, &args, span);
                ExprInfo { ty, resolution: Resolution::Type(ty), ..ExprInfo::default() }
            }
            Some(Found::Entity(Entity::AliasTemplate(t))) => {
                let args = targs.map(|a| a.to_vec()).unwrap_or_default();
                let ty = self.instantiate_alias(t, &args, span);
                ExprInfo { ty, resolution: Resolution::Type(ty), ..ExprInfo::default() }
            }
            None => {
                let text = self.ast.qualified_name_text(name);
                let last = name.last().map(|l| self.name(l.name).to_string()).unwrap_or_default();
                // Intrinsic names are only callees; scoped enumerators `E::A`.
                if name.segments.len() == 2 {
                    if let Some(info) = self.scoped_enumerator(name) {
                        return info;
                    }
                }
                if name.segments.len() == 1 {
                    if let Some(info) = self.builtin_value(&last) {
                        return info;
                    }
                }
                if intrinsics::tables().by_name.contains_key(last.as_str()) && name.segments.len() == 1 {
                    return ExprInfo { ty: TypeTable::ERROR, ..ExprInfo::default() };
                }
                if self.is_vk_namespace(name) {
                    // SPIR-V.rst: the scope constants `vk` predefines (`const uint`).
                    if let Some((_, value)) = VK_SCOPE_CONSTANTS.iter().find(|(n, _)| *n == last) {
                        return Self::constant(TypeTable::UINT, Some(ConstValue::Int(*value)));
                    }
                    return ExprInfo { ty: TypeTable::ERROR, ..ExprInfo::default() };
                }
                if crate::parser::builtin_type_kind(&last).is_some() {
                    let ty = self.resolve_named_type_public(name, targs, span);
                    return ExprInfo { ty, resolution: Resolution::Type(ty), ..ExprInfo::default() };
                }
                self.unknown_name_error(span, &text, format!("use of undeclared identifier '{text}'"));
                Self::rvalue(TypeTable::ERROR)
            }
        }
    }

    /// Names the language predefines: ray flags and other enumerations, and the
    /// descriptor heaps.
    fn builtin_value(&mut self, name: &str) -> Option<ExprInfo> {
        if let Some((_, value)) = BUILTIN_CONSTANTS.iter().find(|(n, _)| *n == name) {
            return Some(Self::constant(TypeTable::UINT, Some(ConstValue::Int(*value))));
        }
        let heap = match name {
            "ResourceDescriptorHeap" => "ResourceDescriptorHeap",
            "SamplerDescriptorHeap" => "SamplerDescriptorHeap",
            _ => return None,
        };
        let sym = self.ast.interner.intern(heap);
        let ty = self.types.intern(TypeData::Opaque(sym));
        Some(ExprInfo {
            ty,
            category: ValueCategory::ConstLValue,
            resolution: Resolution::BuiltinMember(heap),
            ..ExprInfo::default()
        })
    }

    fn resolve_named_type_public(
        &mut self,
        name: &crate::ast::QualifiedName,
        targs: Option<&[TemplateArg]>,
        span: Span,
    ) -> Ty {
        let tref = crate::ast::TypeRef {
            kind: crate::ast::TypeKind::Named { name: name.clone(), args: targs.map(|a| a.to_vec()) },
            modifiers: Modifiers::default(),
            span,
        };
        let id = self.ast.add_type(tref);
        self.resolve_type(id)
    }

    /// `E::A` for an enum `E` (scoped or not).
    fn scoped_enumerator(&mut self, name: &crate::ast::QualifiedName) -> Option<ExprInfo> {
        let Some(Found::Entity(Entity::Type(t))) = self.lookup(name.segments[0].name) else { return None };
        let TypeData::Enum(e) = self.types.get(t).clone() else { return None };
        let info = self.types.enums.get(e.0 as usize)?;
        let (decl, value) = *info.constants.get(&name.segments[1].name)?;
        Some(ExprInfo {
            ty: t,
            constant: Some(ConstValue::Int(value)),
            resolution: Resolution::EnumConstant(decl),
            ..ExprInfo::default()
        })
    }

    fn var_ref(&mut self, d: DeclId) -> ExprInfo {
        let decl = self.ast.decl(d).clone();
        let info = self.decls.get(d.index()).cloned().unwrap_or_default();
        let is_global = info.storage.is_some();
        let writable_global = matches!(
            info.storage,
            Some(super::tree::GlobalStorage::Static | super::tree::GlobalStorage::GroupShared)
        );
        let constant_var = decl.modifiers.contains(Modifiers::CONST);
        // A specialization constant's value is only its default: uses must not fold it.
        let spec_constant = info.storage == Some(super::tree::GlobalStorage::SpecConstant);
        let category =
            if constant_var || (is_global && !writable_global && !self.types.contains_object(info.ty)) {
                ValueCategory::ConstLValue
            } else {
                ValueCategory::LValue
            };
        ExprInfo {
            ty: info.ty,
            category,
            resolution: Resolution::Decl(d),
            conversion: None,
            constant: if constant_var && !spec_constant { info.constant } else { None },
        }
    }

    fn check_type_member(
        &mut self,
        owner: Ty,
        member: Ident,
        _targs: Option<&[TemplateArg]>,
        span: Span,
    ) -> ExprInfo {
        if self.types.is_error(owner) {
            return Self::rvalue(TypeTable::ERROR);
        }
        match self.lookup_member(owner, member.name, 0) {
            Some(Found::Entity(Entity::Var(d))) => self.var_ref(d),
            Some(Found::Entity(Entity::Type(t))) => {
                ExprInfo { ty: t, resolution: Resolution::Type(t), ..ExprInfo::default() }
            }
            Some(Found::Methods { .. }) => ExprInfo { ty: TypeTable::ERROR, ..ExprInfo::default() },
            Some(Found::Field { decl, ty, index, .. }) => ExprInfo {
                ty,
                category: ValueCategory::LValue,
                resolution: Resolution::Field { decl, index },
                ..ExprInfo::default()
            },
            _ => {
                if let TypeData::Enum(e) = self.types.get(owner).clone() {
                    if let Some(&(decl, value)) =
                        self.types.enums.get(e.0 as usize).and_then(|i| i.constants.get(&member.name))
                    {
                        return ExprInfo {
                            ty: owner,
                            constant: Some(ConstValue::Int(value)),
                            resolution: Resolution::EnumConstant(decl),
                            ..ExprInfo::default()
                        };
                    }
                }
                let text = self.name(member.name).to_string();
                self.error(span, format!("no member named '{text}' in {}", self.quoted(owner)));
                Self::rvalue(TypeTable::ERROR)
            }
        }
    }

    fn check_unary(&mut self, op: UnaryOp, operand: ExprId, span: Span) -> ExprInfo {
        let ty = self.check_expr(operand);
        if self.types.is_error(ty) {
            return Self::rvalue(ty);
        }
        let c = self.constant_of(operand);
        match op {
            UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec => {
                self.require_modifiable(operand, span);
                if !self.types.is_numeric(ty) {
                    self.error(span, format!("cannot increment value of type {}", self.quoted(ty)));
                    return Self::rvalue(TypeTable::ERROR);
                }
                let category = if matches!(op, UnaryOp::PreInc | UnaryOp::PreDec) {
                    ValueCategory::LValue
                } else {
                    ValueCategory::RValue
                };
                ExprInfo { ty, category, ..ExprInfo::default() }
            }
            UnaryOp::Not => {
                let Some(shape) = self.types.shape(ty) else {
                    self.error(
                        span,
                        format!("invalid argument type {} to unary expression", self.quoted(ty)),
                    );
                    return Self::rvalue(TypeTable::ERROR);
                };
                let bty = self.types.with_shape(Scalar::Bool, shape);
                self.convert_implicit(operand, ty, bty);
                Self::constant(bty, c.map(|v| ConstValue::Bool(!v.as_bool())))
            }
            UnaryOp::Plus | UnaryOp::Minus => {
                if !self.types.is_numeric(ty) {
                    self.error(
                        span,
                        format!("invalid argument type {} to unary expression", self.quoted(ty)),
                    );
                    return Self::rvalue(TypeTable::ERROR);
                }
                // Bool promotes to int.
                let ty = if self.types.component(ty) == Some(Scalar::Bool) {
                    let t = self.types.with_component(ty, Scalar::Int);
                    self.convert_implicit(operand, ty, t);
                    t
                } else {
                    ty
                };
                let value = c.map(|v| match (op, v) {
                    (UnaryOp::Minus, ConstValue::Int(i)) => ConstValue::Int(i.wrapping_neg()),
                    (UnaryOp::Minus, ConstValue::Float(f)) => ConstValue::Float(-f),
                    (UnaryOp::Minus, ConstValue::Bool(b)) => ConstValue::Int(-i64::from(b)),
                    (_, v) => v,
                });
                let value = value.map(|v| wrap_constant(v, ty, &self.types));
                Self::constant(ty, value)
            }
            UnaryOp::BitNot => {
                let comp = self.types.component(ty);
                if !comp.is_some_and(|s| s.is_integer() || s == Scalar::Bool) {
                    self.error(span, "int or unsigned int type required");
                    return Self::rvalue(TypeTable::ERROR);
                }
                let value =
                    c.and_then(|v| v.as_int()).map(|i| wrap_constant(ConstValue::Int(!i), ty, &self.types));
                Self::constant(ty, value)
            }
        }
    }

    /// Reports assignments to non-lvalues and const storage.
    fn require_modifiable(&mut self, e: ExprId, span: Span) -> bool {
        let info = self.exprs.get(e.index()).cloned().unwrap_or_default();
        if self.types.is_error(info.ty) {
            return true;
        }
        match info.category {
            ValueCategory::LValue => true,
            ValueCategory::RValue => {
                self.error(span, "expression is not assignable");
                false
            }
            ValueCategory::ConstLValue => {
                if let Resolution::Swizzle(_) = info.resolution {
                    self.error(span, "vector is not assignable (contains duplicate components)");
                    return false;
                }
                match self.root_decl(e) {
                    Some(d) => {
                        let name = match &self.ast.decl(d).kind {
                            DeclKind::Var(v) => {
                                v.name.map(|n| self.name(n.name).to_string()).unwrap_or_default()
                            }
                            _ => String::new(),
                        };
                        let ty = self.decl_ty(d);
                        let explicit_const = self.ast.decl(d).modifiers.contains(Modifiers::CONST);
                        if self.types.get(ty) == &TypeData::String && !explicit_const {
                            // dxc's front end lets a global string be assigned; its SPIR-V
                            // backend refuses (an OpString cannot change).
                            self.codegen_error(span, "string variables are immutable in SPIR-V.");
                            return false;
                        }
                        self.error(
                            span,
                            format!(
                                "cannot assign to variable '{name}' with const-qualified type 'const {}'",
                                self.display(ty)
                            ),
                        );
                    }
                    None => self.error(span, "read-only variable is not assignable"),
                }
                false
            }
        }
    }

    /// The variable an lvalue expression is part of (`a` of `a.b[1].x`).
    fn root_decl(&self, e: ExprId) -> Option<DeclId> {
        let mut cur = e;
        for _ in 0..1100 {
            match &self.ast.expr(cur).kind {
                ExprKind::Name { .. } => {
                    return match self.exprs.get(cur.index())?.resolution {
                        Resolution::Decl(d) => Some(d),
                        _ => None,
                    }
                }
                ExprKind::Member { base, .. } | ExprKind::Index { base, .. } | ExprKind::Paren(base) => {
                    cur = *base
                }
                _ => return None,
            }
        }
        None
    }

    fn check_binary(&mut self, id: ExprId, op: BinaryOp, lhs: ExprId, rhs: ExprId, span: Span) -> ExprInfo {
        let lt = self.check_expr(lhs);
        let rt = self.check_expr(rhs);
        if op == BinaryOp::Comma {
            self.settle_literal(lhs, lt);
            let c = self.constant_of(rhs);
            return Self::constant(rt, c);
        }
        if self.types.is_error(lt) || self.types.is_error(rt) {
            return Self::rvalue(TypeTable::ERROR);
        }
        if matches!(self.types.get(lt), TypeData::Struct(_)) {
            let name = format!("operator{}", op.spelling());
            if let Some(info) = self.call_operator(id, lt, &name, &[rhs], &[rt], span) {
                return info;
            }
        }
        let (Some(ls), Some(rs), Some(lshape), Some(rshape)) =
            (self.types.component(lt), self.types.component(rt), self.types.shape(lt), self.types.shape(rt))
        else {
            // Comparisons of enums/structs/objects are not defined.
            self.error(
                span,
                format!(
                    "invalid operands to binary expression ({} and {})",
                    self.quoted(lt),
                    self.quoted(rt)
                ),
            );
            return Self::rvalue(TypeTable::ERROR);
        };
        let logical = matches!(op, BinaryOp::LogicalAnd | BinaryOp::LogicalOr);
        if logical
            && self.opts.hlsl_version >= 2021
            && (!matches!(lshape, Shape::Scalar) || !matches!(rshape, Shape::Scalar))
        {
            self.error(span, "operands for short-circuiting logical binary operator must be scalar");
            return Self::rvalue(TypeTable::ERROR);
        }
        let Some((shape, truncated)) = common_shape(lshape, rshape) else {
            self.error(span, format!("cannot convert from {} to {}", self.quoted(rt), self.quoted(lt)));
            return Self::rvalue(TypeTable::ERROR);
        };
        let _ = truncated;
        let shifts = matches!(op, BinaryOp::Shl | BinaryOp::Shr);
        let bitwise =
            matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor | BinaryOp::Rem) || shifts;
        let mut comp = if shifts { ls } else { common_scalar(ls, rs) };
        if logical {
            comp = Scalar::Bool;
        } else if matches!(op, BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor) || shifts {
            let ok = |s: Scalar| s.is_integer() || s == Scalar::Bool;
            if !ok(ls) || !ok(rs) {
                self.error(span, "int or unsigned int type required");
                return Self::rvalue(TypeTable::ERROR);
            }
        } else if comp == Scalar::Bool && !matches!(op, BinaryOp::Eq | BinaryOp::Ne) {
            // Arithmetic on bools happens in int.
            comp = Scalar::Int;
        }
        let _ = bitwise;
        // Constants fold in the literal types; anything else settles them.
        let lc = self.constant_of(lhs);
        let rc = self.constant_of(rhs);
        let operand_ty = self.types.with_shape(comp, shape);
        let (lto, rto) = if shifts {
            let rcomp = if rs == Scalar::Bool { Scalar::UInt } else { rs };
            let r = self.types.with_shape(rcomp, shape);
            (operand_ty, r)
        } else {
            (operand_ty, operand_ty)
        };
        self.convert_implicit(lhs, lt, lto);
        self.convert_implicit(rhs, rt, rto);
        let comparison = matches!(
            op,
            BinaryOp::Lt | BinaryOp::Gt | BinaryOp::Le | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
        );
        let result =
            if comparison || logical { self.types.with_shape(Scalar::Bool, shape) } else { operand_ty };
        let value = match (lc, rc, shape) {
            (Some(a), Some(b), Shape::Scalar) => {
                fold_binary(op, a, b, comp).map(|v| wrap_constant(v, result, &self.types))
            }
            _ => None,
        };
        Self::constant(result, value)
    }

    fn check_assign(&mut self, op: Option<BinaryOp>, lhs: ExprId, rhs: ExprId, span: Span) -> ExprInfo {
        let lt = self.check_expr(lhs);
        let rt = self.check_expr(rhs);
        self.require_modifiable(lhs, span);
        if self.types.is_error(lt) || self.types.is_error(rt) {
            return ExprInfo { ty: lt, category: ValueCategory::LValue, ..ExprInfo::default() };
        }
        match op {
            None => {
                let lhs_ty = lt;
                self.coerce(rhs, lhs_ty, |s, from, _| {
                    format!("cannot convert from {} to {}", s.quoted(from), s.quoted(lhs_ty))
                });
            }
            Some(op) => {
                // The operation in the common type, converted back to the left side's.
                let (Some(ls), Some(rs), Some(lshape), Some(rshape)) = (
                    self.types.component(lt),
                    self.types.component(rt),
                    self.types.shape(lt),
                    self.types.shape(rt),
                ) else {
                    self.error(
                        span,
                        format!(
                            "invalid operands to binary expression ({} and {})",
                            self.quoted(lt),
                            self.quoted(rt)
                        ),
                    );
                    return Self::rvalue(TypeTable::ERROR);
                };
                if matches!(
                    op,
                    BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor | BinaryOp::Shl | BinaryOp::Shr
                ) && (!(ls.is_integer() || ls == Scalar::Bool) || !(rs.is_integer() || rs == Scalar::Bool))
                {
                    self.error(span, "int or unsigned int type required");
                    return Self::rvalue(TypeTable::ERROR);
                }
                let comp =
                    if matches!(op, BinaryOp::Shl | BinaryOp::Shr) { ls } else { common_scalar(ls, rs) };
                let shape = match common_shape(lshape, rshape) {
                    Some((s, _)) => s,
                    None => {
                        self.error(
                            span,
                            format!("cannot convert from {} to {}", self.quoted(rt), self.quoted(lt)),
                        );
                        return Self::rvalue(TypeTable::ERROR);
                    }
                };
                let _ = shape;
                let rtarget = self.types.with_shape(comp, rshape);
                let rtarget = if matches!(rshape, Shape::Scalar) {
                    rtarget
                } else {
                    self.types.with_shape(comp, lshape)
                };
                if self.convert_implicit(rhs, rt, rtarget).is_none() {
                    self.error(
                        span,
                        format!("cannot convert from {} to {}", self.quoted(rt), self.quoted(lt)),
                    );
                }
            }
        }
        ExprInfo { ty: lt, category: ValueCategory::LValue, ..ExprInfo::default() }
    }

    fn check_conditional(&mut self, cond: ExprId, a: ExprId, b: ExprId, span: Span) -> ExprInfo {
        let ct = self.check_expr(cond);
        let at = self.check_expr(a);
        let bt = self.check_expr(b);
        if self.types.is_error(ct) || self.types.is_error(at) || self.types.is_error(bt) {
            return Self::rvalue(TypeTable::ERROR);
        }
        let Some(cshape) = self.types.shape(ct) else {
            self.error(
                span,
                format!("value of type {} is not contextually convertible to 'bool'", self.quoted(ct)),
            );
            return Self::rvalue(TypeTable::ERROR);
        };
        let cc = self.constant_of(cond);
        if at == bt && !self.types.is_numeric(at) {
            let bt_cond = self.types.with_shape(Scalar::Bool, cshape);
            self.convert_implicit(cond, ct, bt_cond);
            return Self::rvalue(at);
        }
        let (Some(asc), Some(bsc), Some(ashape), Some(bshape)) =
            (self.types.component(at), self.types.component(bt), self.types.shape(at), self.types.shape(bt))
        else {
            self.error(
                span,
                format!("incompatible operand types ({} and {})", self.quoted(at), self.quoted(bt)),
            );
            return Self::rvalue(TypeTable::ERROR);
        };
        let mut shape = match common_shape(ashape, bshape) {
            Some((s, _)) => s,
            None => {
                self.error(
                    span,
                    format!("incompatible operand types ({} and {})", self.quoted(at), self.quoted(bt)),
                );
                return Self::rvalue(TypeTable::ERROR);
            }
        };
        if !matches!(cshape, Shape::Scalar) {
            // A vector condition selects per component.
            shape = match common_shape(shape, cshape) {
                Some((s, _)) => s,
                None => shape,
            };
        }
        let comp = common_scalar(asc, bsc);
        let result = self.types.with_shape(comp, shape);
        let cond_ty = if matches!(cshape, Shape::Scalar) {
            TypeTable::BOOL
        } else {
            self.types.with_shape(Scalar::Bool, shape)
        };
        self.convert_implicit(cond, ct, cond_ty);
        self.convert_implicit(a, at, result);
        self.convert_implicit(b, bt, result);
        let value = match cc {
            Some(c) if matches!(cshape, Shape::Scalar) => {
                if c.as_bool() {
                    self.constant_of(a)
                } else {
                    self.constant_of(b)
                }
            }
            _ => None,
        };
        Self::constant(result, value)
    }

    fn check_cast(&mut self, operand: ExprId, to: Ty, span: Span) -> ExprInfo {
        let from = self.check_expr(operand);
        if self.types.is_error(from) || self.types.is_error(to) {
            return Self::rvalue(to);
        }
        match explicit_conversion(&self.types, from, to) {
            Some(kind) => {
                let c = self.constant_of(operand).map(|v| convert_constant(v, to, &self.types));
                let category = self.exprs.get(operand.index()).map_or(ValueCategory::RValue, |i| i.category);
                self.expr_info(operand).conversion = Some(Conversion { to, kind });
                // A cast of a struct lvalue to itself or a base designates the same storage.
                let keeps_storage =
                    kind == CastKind::NoOp && matches!(self.types.get(to), TypeData::Struct(_));
                ExprInfo {
                    ty: to,
                    constant: c,
                    category: if keeps_storage { category } else { ValueCategory::RValue },
                    ..ExprInfo::default()
                }
            }
            None => {
                self.error(span, format!("cannot convert from {} to {}", self.quoted(from), self.quoted(to)));
                Self::rvalue(TypeTable::ERROR)
            }
        }
    }

    /// `T(args)`: vector/matrix constructors flatten their arguments; one argument is
    /// a functional cast.
    fn check_construct(&mut self, id: ExprId, to: Ty, args: &[ExprId], span: Span) -> ExprInfo {
        let arg_tys: Vec<Ty> = args.iter().map(|&a| self.check_expr(a)).collect();
        if self.types.is_error(to) || arg_tys.iter().any(|&t| self.types.is_error(t)) {
            return Self::rvalue(to);
        }
        if args.len() == 1 {
            if let Some(kind) = explicit_conversion(&self.types, arg_tys[0], to) {
                let c = self.constant_of(args[0]).map(|v| convert_constant(v, to, &self.types));
                self.expr_info(args[0]).conversion = Some(Conversion { to, kind });
                self.calls.insert(
                    id,
                    CallInfo { callee: Callee::Constructor, params: vec![(to, ParamDirection::In)], ret: to },
                );
                return Self::constant(to, c);
            }
        }
        let Some(expected) = self.types.flat_count(to) else {
            if args.is_empty() {
                return Self::rvalue(to);
            }
            self.error(
                span,
                format!("cannot convert from {} to {}", self.quoted(arg_tys[0]), self.quoted(to)),
            );
            return Self::rvalue(TypeTable::ERROR);
        };
        let mut total = 0u32;
        let mut params = Vec::new();
        let comp = self.types.component(to);
        for (&a, &t) in args.iter().zip(&arg_tys) {
            let n = self.types.flat_count(t);
            match (n, self.types.shape(t), comp) {
                (Some(n), Some(shape), Some(c)) => {
                    total += n;
                    let target = self.types.with_shape(c, shape);
                    self.convert_constructor_element(a, t, target);
                    params.push((target, ParamDirection::In));
                }
                (Some(n), _, _) => {
                    total += n;
                    params.push((t, ParamDirection::In));
                }
                _ => {
                    self.error(
                        span,
                        format!("cannot convert from {} to {}", self.quoted(t), self.quoted(to)),
                    );
                    return Self::rvalue(TypeTable::ERROR);
                }
            }
        }
        if total != expected {
            let what = match self.types.get(to) {
                TypeData::Matrix { .. } => "matrix",
                TypeData::Vector(..) => "vector",
                _ => "struct",
            };
            let which = if total < expected { "too few" } else { "too many" };
            self.error(
                span,
                format!(
                    "{which} elements in {what} initialization (expected {expected} elements, have {total})"
                ),
            );
            return Self::rvalue(TypeTable::ERROR);
        }
        self.calls.insert(id, CallInfo { callee: Callee::Constructor, params, ret: to });
        Self::rvalue(to)
    }

    fn check_member(
        &mut self,
        base: ExprId,
        member: Ident,
        _targs: Option<&[TemplateArg]>,
        span: Span,
    ) -> ExprInfo {
        let bt = self.check_expr(base);
        let binfo = self.exprs.get(base.index()).cloned().unwrap_or_default();
        let text = self.name(member.name).to_string();
        if self.types.is_error(bt) {
            return Self::rvalue(bt);
        }
        match self.types.get(bt).clone() {
            TypeData::Scalar(s) | TypeData::Vector(s, _) => {
                let n = match self.types.get(bt) {
                    TypeData::Vector(_, n) => *n,
                    _ => 1,
                };
                match parse_vector_swizzle(&text, n) {
                    Ok(indices) => {
                        let ty = if indices.len() == 1 {
                            self.types.scalar(s)
                        } else {
                            self.types.vector(s, indices.len() as u8)
                        };
                        let duplicates = has_duplicates(&indices);
                        let category = match binfo.category {
                            ValueCategory::LValue if duplicates => ValueCategory::ConstLValue,
                            c => c,
                        };
                        // A swizzled scalar constant (`(1).xxxx`) is that constant in
                        // every component (clang evaluates the splat).
                        let constant = if matches!(self.types.get(bt), TypeData::Scalar(_)) {
                            binfo.constant
                        } else {
                            None
                        };
                        ExprInfo {
                            ty,
                            category,
                            resolution: Resolution::Swizzle(indices),
                            conversion: None,
                            constant,
                        }
                    }
                    Err(SwizzleError::OutOfBounds) => {
                        self.error(member.span, format!("vector swizzle '{text}' is out of bounds"));
                        Self::rvalue(TypeTable::ERROR)
                    }
                    Err(SwizzleError::Invalid) => {
                        self.error(member.span, format!("invalid swizzle '{text}' on vector"));
                        Self::rvalue(TypeTable::ERROR)
                    }
                }
            }
            TypeData::Matrix { elem, rows, cols, .. } => match parse_matrix_swizzle(&text, rows, cols) {
                Ok(indices) => {
                    let ty = if indices.len() == 1 {
                        self.types.scalar(elem)
                    } else {
                        self.types.vector(elem, indices.len() as u8)
                    };
                    let duplicates = has_duplicates(&indices);
                    let category = match binfo.category {
                        ValueCategory::LValue if duplicates => ValueCategory::ConstLValue,
                        c => c,
                    };
                    ExprInfo { ty, category, resolution: Resolution::Swizzle(indices), ..ExprInfo::default() }
                }
                Err(SwizzleError::OutOfBounds) => {
                    self.error(member.span, format!("matrix subscript '{text}' is out of bounds"));
                    Self::rvalue(TypeTable::ERROR)
                }
                Err(SwizzleError::Invalid) => {
                    self.error(member.span, format!("invalid subscript '{text}' on matrix"));
                    Self::rvalue(TypeTable::ERROR)
                }
            },
            TypeData::Struct(_) => match self.lookup_member(bt, member.name, 0) {
                Some(Found::Field { decl, ty, index, .. }) => ExprInfo {
                    ty,
                    category: binfo.category,
                    resolution: Resolution::Field { decl, index },
                    ..ExprInfo::default()
                },
                Some(Found::Entity(Entity::Var(d))) => self.var_ref(d),
                Some(Found::Methods { .. }) => ExprInfo { ty: TypeTable::ERROR, ..ExprInfo::default() },
                _ => {
                    self.error(member.span, format!("no member named '{text}' in {}", self.quoted(bt)));
                    Self::rvalue(TypeTable::ERROR)
                }
            },
            TypeData::Object { kind, args } => self.object_member(bt, kind, &args, &binfo, member, span),
            TypeData::Array { .. } if text == "Length" => Self::rvalue(TypeTable::UINT),
            _ => {
                self.error(
                    member.span,
                    format!("member reference base type {} is not a structure or union", self.quoted(bt)),
                );
                Self::rvalue(TypeTable::ERROR)
            }
        }
    }

    /// Members of objects: `ConstantBuffer<S>` fields, `.mips`, `.sample`, node
    /// records' fields.
    fn object_member(
        &mut self,
        bt: Ty,
        kind: ObjectKind,
        args: &[ObjectArg],
        binfo: &ExprInfo,
        member: Ident,
        _span: Span,
    ) -> ExprInfo {
        let text = self.name(member.name).to_string();
        let elem = args.iter().find_map(|a| match a {
            ObjectArg::Type(t) => Some(*t),
            _ => None,
        });
        match kind.family() {
            Family::ConstantBuffer | Family::TextureBuffer | Family::Node => {
                if let Some(e) = elem {
                    if let Some(Found::Field { decl, ty, index, .. }) = self.lookup_member(e, member.name, 0)
                    {
                        let category = if kind.family() == Family::Node
                            && !matches!(
                                kind,
                                ObjectKind::DispatchNodeInputRecord
                                    | ObjectKind::GroupNodeInputRecords
                                    | ObjectKind::ThreadNodeInputRecord
                            ) {
                            ValueCategory::LValue
                        } else {
                            ValueCategory::ConstLValue
                        };
                        return ExprInfo {
                            ty,
                            category,
                            resolution: Resolution::Field { decl, index },
                            ..ExprInfo::default()
                        };
                    }
                    if self.types.is_error(e) {
                        return Self::rvalue(TypeTable::ERROR);
                    }
                }
            }
            Family::Texture if text == "mips" && !kind.shape().is_some_and(|s| s.multisampled) => {
                return ExprInfo {
                    ty: bt,
                    category: ValueCategory::ConstLValue,
                    resolution: Resolution::BuiltinMember("mips"),
                    ..ExprInfo::default()
                };
            }
            Family::Texture if text == "sample" && kind.shape().is_some_and(|s| s.multisampled) => {
                return ExprInfo {
                    ty: bt,
                    category: ValueCategory::ConstLValue,
                    resolution: Resolution::BuiltinMember("sample"),
                    ..ExprInfo::default()
                };
            }
            Family::RWTexture if text == "sample" => {
                return ExprInfo {
                    ty: bt,
                    category: ValueCategory::LValue,
                    resolution: Resolution::BuiltinMember("sample"),
                    ..ExprInfo::default()
                };
            }
            Family::Other => return Self::rvalue(TypeTable::ERROR),
            _ => {}
        }
        let _ = binfo;
        self.error(member.span, format!("no member named '{text}' in {}", self.quoted(bt)));
        Self::rvalue(TypeTable::ERROR)
    }

    fn check_index(&mut self, id: ExprId, base: ExprId, index: ExprId, span: Span) -> ExprInfo {
        let bt = self.check_expr(base);
        let it = self.check_expr(index);
        let binfo = self.exprs.get(base.index()).cloned().unwrap_or_default();
        if self.types.is_error(bt) {
            return Self::rvalue(bt);
        }
        // `array_cast`: dxc casts a floating-point array index to `uint` silently;
        // vectors and matrices take a `uint` index as an argument would.
        let integer_index = |s: &mut Self, array_cast: bool| {
            if s.types.is_error(it) {
                return;
            }
            match s.types.component(it) {
                Some(c) if s.types.is_scalar(it) || matches!(s.types.get(it), TypeData::Vector(_, 1)) => {
                    if c.is_float() && array_cast {
                        if let Some(conv) = implicit_conversion(&s.types, it, TypeTable::UINT) {
                            s.expr_info(index).conversion =
                                Some(Conversion { to: TypeTable::UINT, kind: conv.kind });
                        }
                        return;
                    }
                    let target = if c.is_float() { TypeTable::UINT } else { s.types.scalar(c.concrete()) };
                    s.convert_implicit(index, it, target);
                }
                _ => s.error(span, "array subscript is not an integer"),
            }
        };
        match self.types.get(bt).clone() {
            TypeData::Array { elem, len } => {
                integer_index(self, true);
                if let (Some(ConstValue::Int(i)), Some(n)) = (self.constant_of(index), len) {
                    if i < 0 || i >= i64::from(n) {
                        // dxc reports this as a warning-free error only in constant contexts;
                        // keep it silent like clang does for HLSL arrays.
                    }
                }
                ExprInfo { ty: elem, category: binfo.category, ..ExprInfo::default() }
            }
            TypeData::Vector(s, _) => {
                integer_index(self, false);
                let ty = self.types.scalar(s);
                ExprInfo { ty, category: binfo.category, ..ExprInfo::default() }
            }
            TypeData::Matrix { elem, cols, .. } => {
                integer_index(self, false);
                let ty = self.types.vector(elem, cols);
                ExprInfo { ty, category: binfo.category, ..ExprInfo::default() }
            }
            TypeData::Object { kind, args } => self.object_index(bt, kind, &args, &binfo, index, it, span),
            TypeData::Struct(_) => match self.call_operator(id, bt, "operator[]", &[index], &[it], span) {
                Some(info) => info,
                None => {
                    self.error(
                        span,
                        format!("type {} does not provide a subscript operator", self.quoted(bt)),
                    );
                    Self::rvalue(TypeTable::ERROR)
                }
            },
            _ => {
                self.error(span, "subscripted value is not an array, matrix, or vector");
                Self::rvalue(TypeTable::ERROR)
            }
        }
    }

    /// `buf[i]`, `tex[uint2]`, `tex.mips[level][uint2]`, `patch[i]`, node arrays.
    #[allow(clippy::too_many_arguments)]
    fn object_index(
        &mut self,
        bt: Ty,
        kind: ObjectKind,
        args: &[ObjectArg],
        binfo: &ExprInfo,
        index: ExprId,
        it: Ty,
        span: Span,
    ) -> ExprInfo {
        let elem = args.iter().find_map(|a| match a {
            ObjectArg::Type(t) => Some(*t),
            _ => None,
        });
        let writable = kind.is_writable();
        let category = if writable { ValueCategory::LValue } else { ValueCategory::ConstLValue };
        // `.mips[level]` / `.sample[index]` select, then the next `[]` addresses.
        if let Resolution::BuiltinMember(m @ ("mips" | "sample")) = binfo.resolution {
            self.convert_implicit(index, it, TypeTable::UINT);
            let which = if m == "mips" { "mips[]" } else { "sample[]" };
            return ExprInfo {
                ty: bt,
                category: binfo.category,
                resolution: Resolution::BuiltinMember(which),
                ..ExprInfo::default()
            };
        }
        let coord = |s: &mut Self, n: u8| {
            let target = if n <= 1 { TypeTable::UINT } else { s.types.vector(Scalar::UInt, n) };
            // operator[] takes its coordinate shape: a component conversion (`int2` for
            // `uint2`) or a truncation of the same component type (`uint3` from
            // `DispatchRaysIndex()` for `uint2`, dxc warns), never both at once, never a
            // splat (`tex2d[0]`), never a struct.
            let same_component =
                s.types.component(it).is_some() && s.types.component(it) == s.types.component(target);
            let fits = implicit_conversion(&s.types, it, target).is_some_and(|c| {
                (!c.truncates || same_component)
                    && !matches!(c.kind, CastKind::Flat | CastKind::Reshape | CastKind::Splat)
            });
            if !s.types.is_error(it) && (!fits || s.convert_implicit(index, it, target).is_none()) {
                s.error(span, format!("no viable overloaded operator[] for type {}", s.quoted(bt)));
                return false;
            }
            true
        };
        match kind.family() {
            Family::Texture | Family::RWTexture => {
                let Some(shape) = kind.shape() else { return Self::rvalue(TypeTable::ERROR) };
                if shape.cube && kind.family() == Family::Texture {
                    self.error(span, format!("no viable overloaded operator[] for type {}", self.quoted(bt)));
                    return Self::rvalue(TypeTable::ERROR);
                }
                if !coord(self, shape.texel_coords()) {
                    return Self::rvalue(TypeTable::ERROR);
                }
                ExprInfo { ty: elem.unwrap_or(TypeTable::ERROR), category, ..ExprInfo::default() }
            }
            Family::Buffer
            | Family::RWBuffer
            | Family::StructuredBuffer
            | Family::RWStructuredBuffer
            | Family::InputPatch
            | Family::OutputPatch
            | Family::FeedbackTexture => {
                if !coord(self, 1) {
                    return Self::rvalue(TypeTable::ERROR);
                }
                let category = if matches!(kind.family(), Family::OutputPatch | Family::InputPatch) {
                    binfo.category
                } else {
                    category
                };
                ExprInfo { ty: elem.unwrap_or(TypeTable::ERROR), category, ..ExprInfo::default() }
            }
            Family::Node => {
                self.convert_implicit(index, it, TypeTable::UINT);
                let ty = match kind {
                    ObjectKind::NodeOutputArray => {
                        let e = elem.unwrap_or(TypeTable::ERROR);
                        self.types.object(ObjectKind::NodeOutput, vec![ObjectArg::Type(e)])
                    }
                    ObjectKind::EmptyNodeOutputArray => {
                        self.types.object(ObjectKind::EmptyNodeOutput, Vec::new())
                    }
                    _ => elem.unwrap_or(TypeTable::ERROR),
                };
                let category = if matches!(kind, ObjectKind::GroupNodeInputRecords) {
                    ValueCategory::ConstLValue
                } else {
                    ValueCategory::LValue
                };
                ExprInfo { ty, category, ..ExprInfo::default() }
            }
            Family::Other => Self::rvalue(TypeTable::ERROR),
            _ => {
                self.error(span, format!("type {} does not provide a subscript operator", self.quoted(bt)));
                Self::rvalue(TypeTable::ERROR)
            }
        }
    }

    // ----- calls -----

    fn check_call(&mut self, id: ExprId, callee: ExprId, args: &[ExprId], span: Span) -> ExprInfo {
        let callee_expr = self.ast.expr(callee).clone();
        match callee_expr.kind {
            ExprKind::Name { name, template_args } => {
                let found = self.lookup_qualified(&name);
                let last = name.last().map(|l| self.name(l.name).to_string()).unwrap_or_default();
                match found {
                    Some(Found::Entity(Entity::Functions(set))) => {
                        let targs = template_args.as_deref().map(|a| self.template_values(a));
                        let arg_tys = self.check_args(args);
                        *self.expr_info(callee) = ExprInfo::default();
                        self.call_user(id, callee, &last, set, args, &arg_tys, targs, None, span)
                    }
                    Some(Found::Methods { owner, set }) => {
                        let targs = template_args.as_deref().map(|a| self.template_values(a));
                        let arg_tys = self.check_args(args);
                        *self.expr_info(callee) = ExprInfo::default();
                        self.call_user(id, callee, &last, set, args, &arg_tys, targs, Some(owner), span)
                    }
                    Some(Found::Entity(Entity::Type(t))) => {
                        *self.expr_info(callee) =
                            ExprInfo { ty: t, resolution: Resolution::Type(t), ..ExprInfo::default() };
                        self.check_construct(id, t, args, span)
                    }
                    Some(
                        Found::Entity(Entity::StructTemplate(_)) | Found::Entity(Entity::AliasTemplate(_)),
                    ) => {
                        let t = self.check_expr(callee);
                        self.check_construct(id, t, args, span)
                    }
                    Some(_) => {
                        let t = self.check_expr(callee);
                        let arg_tys = self.check_args(args);
                        if matches!(self.types.get(t), TypeData::Struct(_)) {
                            if let Some(info) = self.call_operator(id, t, "operator()", args, &arg_tys, span)
                            {
                                return info;
                            }
                        }
                        if !self.types.is_error(t) {
                            self.error(
                                span,
                                format!(
                                    "called object type {} is not a function or function pointer",
                                    self.quoted(t)
                                ),
                            );
                        }
                        Self::rvalue(TypeTable::ERROR)
                    }
                    None => {
                        let arg_tys = self.check_args(args);
                        *self.expr_info(callee) = ExprInfo::default();
                        let vk = self.is_vk_namespace(&name);
                        if name.segments.len() == 1 || vk {
                            let template_arg = match template_args.as_deref() {
                                Some([first, ..]) => {
                                    let v = self.template_values(std::slice::from_ref(first));
                                    match v.first() {
                                        Some(TemplateValue::Type(t)) => Some(*t),
                                        _ => None,
                                    }
                                }
                                _ => None,
                            };
                            if let Some(info) =
                                self.call_intrinsic(id, &last, vk, args, &arg_tys, template_arg, span)
                            {
                                if vk
                                    && matches!(
                                        last.as_str(),
                                        "static_pointer_cast" | "reinterpret_pointer_cast"
                                    )
                                {
                                    return self.pointer_cast(
                                        id,
                                        &last,
                                        template_args.as_deref(),
                                        &arg_tys,
                                        span,
                                        info,
                                    );
                                }
                                return info;
                            }
                            if crate::parser::builtin_type_kind(&last).is_some() {
                                let t = self.check_expr(callee);
                                return self.check_construct(id, t, args, span);
                            }
                        }
                        let text = self.ast.qualified_name_text(&name);
                        self.unknown_name_error(
                            callee_expr.span,
                            &text,
                            format!("use of undeclared identifier '{text}'"),
                        );
                        Self::rvalue(TypeTable::ERROR)
                    }
                }
            }
            ExprKind::Member { base, member, template_args } => {
                let bt = self.check_expr(base);
                let arg_tys = self.check_args(args);
                let text = self.name(member.name).to_string();
                *self.expr_info(callee) = ExprInfo { ty: TypeTable::ERROR, ..ExprInfo::default() };
                if self.types.is_error(bt) {
                    return Self::rvalue(TypeTable::ERROR);
                }
                let template_arg = match template_args.as_deref() {
                    Some([first, ..]) => match self.template_values(std::slice::from_ref(first)).first() {
                        Some(TemplateValue::Type(t)) => Some(*t),
                        _ => None,
                    },
                    _ => None,
                };
                let base_struct = match self.types.get(bt).clone() {
                    TypeData::Object { kind, .. }
                        if matches!(kind.family(), Family::ConstantBuffer | Family::TextureBuffer) =>
                    {
                        self.types.object_element(bt)
                    }
                    TypeData::Struct(_) => Some(bt),
                    _ => None,
                };
                if let Some(st) = base_struct {
                    match self.lookup_member(st, member.name, 0) {
                        Some(Found::Methods { owner, set }) => {
                            let targs = template_args.as_deref().map(|a| self.template_values(a));
                            return self.call_user(
                                id,
                                callee,
                                &text,
                                set,
                                args,
                                &arg_tys,
                                targs,
                                Some(owner),
                                span,
                            );
                        }
                        _ => {
                            self.error(
                                member.span,
                                format!("no member named '{text}' in {}", self.quoted(st)),
                            );
                            return Self::rvalue(TypeTable::ERROR);
                        }
                    }
                }
                if let TypeData::Object { kind, .. } = self.types.get(bt).clone() {
                    self.check_counter_access(base, kind, &text);
                    return self.call_method(
                        id,
                        bt,
                        kind,
                        &text,
                        args,
                        &arg_tys,
                        template_arg,
                        member.span,
                        span,
                    );
                }
                self.error(
                    member.span,
                    format!("member reference base type {} is not a structure or union", self.quoted(bt)),
                );
                Self::rvalue(TypeTable::ERROR)
            }
            ExprKind::TypeMember { ty, member, template_args } => {
                let owner = self.resolve_type(ty);
                let arg_tys = self.check_args(args);
                *self.expr_info(callee) = ExprInfo::default();
                if self.types.is_error(owner) {
                    return Self::rvalue(TypeTable::ERROR);
                }
                let text = self.name(member.name).to_string();
                match self.lookup_member(owner, member.name, 0) {
                    Some(Found::Methods { owner, set }) => {
                        let targs = template_args.as_deref().map(|a| self.template_values(a));
                        self.call_user(id, callee, &text, set, args, &arg_tys, targs, Some(owner), span)
                    }
                    Some(Found::Entity(Entity::Type(t))) => self.check_construct(id, t, args, span),
                    _ => {
                        self.error(
                            member.span,
                            format!("no member named '{text}' in {}", self.quoted(owner)),
                        );
                        Self::rvalue(TypeTable::ERROR)
                    }
                }
            }
            _ => {
                let t = self.check_expr(callee);
                self.check_args(args);
                if !self.types.is_error(t) {
                    self.error(
                        span,
                        format!(
                            "called object type {} is not a function or function pointer",
                            self.quoted(t)
                        ),
                    );
                }
                Self::rvalue(TypeTable::ERROR)
            }
        }
    }

    /// An overloaded operator of a struct (`operator+`, `operator[]`, `operator()`):
    /// `None` when the struct has none of that name.
    fn call_operator(
        &mut self,
        id: ExprId,
        owner: Ty,
        name: &str,
        args: &[ExprId],
        arg_tys: &[Ty],
        span: Span,
    ) -> Option<ExprInfo> {
        let sym = self.ast.interner.lookup(name)?;
        let Some(Found::Methods { owner, set }) = self.lookup_member(owner, sym, 0) else { return None };
        let info = self.call_user(id, id, name, set, args, arg_tys, None, Some(owner), span);
        let resolution = match self.calls.get(&id).map(|c| &c.callee) {
            Some(Callee::Function(d)) => Resolution::Method(*d),
            _ => Resolution::None,
        };
        Some(ExprInfo { resolution, ..info })
    }

    fn check_args(&mut self, args: &[ExprId]) -> Vec<Ty> {
        args.iter().map(|&a| self.check_expr(a)).collect()
    }

    /// Overload resolution among user functions (and function templates).
    #[allow(clippy::too_many_arguments)]
    fn call_user(
        &mut self,
        id: ExprId,
        callee: ExprId,
        name: &str,
        set: Vec<DeclId>,
        args: &[ExprId],
        arg_tys: &[Ty],
        explicit: Option<Vec<TemplateValue>>,
        owner: Option<Ty>,
        span: Span,
    ) -> ExprInfo {
        if arg_tys.contains(&TypeTable::ERROR) {
            return Self::rvalue(TypeTable::ERROR);
        }
        let mut viable: Vec<Viable> = Vec::new();
        for &cand in &set {
            let decl = match &self.ast.decl(cand).kind {
                DeclKind::Template { .. } => {
                    let explicit = explicit.clone().unwrap_or_default();
                    let Some(values) = self.deduce_template_args(cand, &explicit, arg_tys) else { continue };
                    let Some(inst) = self.instantiate_function_signature(cand, values, owner, span) else {
                        continue;
                    };
                    inst
                }
                // `f<T>(x)` names only templates.
                DeclKind::Function(_) if explicit.is_none() => cand,
                _ => continue,
            };
            if let Some(mut v) = self.match_user(decl, arg_tys) {
                v.from_template = decl != cand;
                viable.push(v);
            }
        }
        if viable.is_empty() {
            // An intrinsic of the same name may still match (user functions can
            // overload intrinsics).
            if owner.is_none() {
                if let Some(info) = self.call_intrinsic(id, name, false, args, arg_tys, None, span) {
                    return info;
                }
            }
            self.error(span, format!("no matching function for call to '{name}'"));
            return Self::rvalue(TypeTable::ERROR);
        }
        let best_cost = viable.iter().map(|v| v.cost).min().unwrap_or(0);
        let mut best: Vec<&Viable> = viable.iter().filter(|v| v.cost == best_cost).collect();
        // Between equally good candidates a function beats a template instance (C++).
        if best.iter().any(|v| !v.from_template) {
            best.retain(|v| !v.from_template);
        }
        // Prototypes and their definitions are the same function.
        let distinct: Vec<DeclId> = {
            let mut d: Vec<DeclId> = best
                .iter()
                .map(|v| self.decls.get(v.decl.index()).and_then(|i| i.definition).unwrap_or(v.decl))
                .collect();
            d.sort();
            d.dedup();
            d
        };
        if distinct.len() > 1 {
            self.error(span, format!("call to '{name}' is ambiguous"));
            return Self::rvalue(TypeTable::ERROR);
        }
        let chosen = best[0];
        let target = self.decls.get(chosen.decl.index()).and_then(|i| i.definition).unwrap_or(chosen.decl);
        let (params, ret) = (chosen.params.clone(), chosen.ret);
        self.complete_function_instance(chosen.decl);
        self.apply_params(args, arg_tys, &params, name, span, Narrowing::Warn);
        self.check_nointerpolation_args(target, args, name);
        self.expr_info(callee).resolution = Resolution::Decl(target);
        self.calls.insert(id, CallInfo { callee: Callee::Function(target), params, ret });
        if let Some(caller) = self.function.as_ref().map(|f| f.decl) {
            self.call_edges.push((caller, chosen.decl));
        }
        Self::rvalue(ret)
    }

    /// The counter of a buffer in an array that is a struct field cannot be reached
    /// (`s.buffers[0].Consume()`).
    fn check_counter_access(&mut self, base: ExprId, kind: ObjectKind, method: &str) {
        let uses_counter = match kind.family() {
            Family::AppendBuffer => method == "Append",
            Family::ConsumeBuffer => method == "Consume",
            Family::RWStructuredBuffer => matches!(method, "IncrementCounter" | "DecrementCounter"),
            _ => false,
        };
        if !uses_counter {
            return;
        }
        let strip = |s: &Self, mut e: ExprId| {
            while let ExprKind::Paren(inner) = s.ast.expr(e).kind {
                e = inner;
            }
            e
        };
        let ExprKind::Index { base: array, .. } = self.ast.expr(strip(self, base)).kind else { return };
        let array = strip(self, array);
        let ExprKind::Member { base: owner, .. } = self.ast.expr(array).kind else { return };
        let is_array = self
            .exprs
            .get(array.index())
            .is_some_and(|i| matches!(self.types.get(i.ty), TypeData::Array { .. }));
        let in_struct = self
            .exprs
            .get(owner.index())
            .is_some_and(|i| matches!(self.types.get(i.ty), TypeData::Struct(_)));
        if is_array && in_struct {
            let span = self.ast.expr(base).span;
            // dxc's backend stops here (a fatal error).
            self.diags.fatal(
                span,
                "Cannot access associated counter variable for an array of buffers in a struct.",
            );
        }
    }

    /// A `nointerpolation` parameter (one `GetAttributeAtVertex` may read) cannot take
    /// a parameter of the caller that is interpolated.
    fn check_nointerpolation_args(&mut self, target: DeclId, args: &[ExprId], name: &str) {
        let DeclKind::Function(f) = &self.ast.decl(target).kind else { return };
        let mut bad = Vec::new();
        for (i, (&p, &a)) in f.params.iter().zip(args).enumerate() {
            if !self.ast.decl(p).modifiers.contains(Modifiers::NOINTERPOLATION) {
                continue;
            }
            let mut e = a;
            while let ExprKind::Paren(inner) = self.ast.expr(e).kind {
                e = inner;
            }
            let Some(Resolution::Decl(d)) = self.exprs.get(e.index()).map(|info| info.resolution.clone())
            else {
                continue;
            };
            let is_param = self.decls.get(d.index()).is_some_and(|info| info.direction.is_some());
            if is_param && !self.ast.decl(d).modifiers.contains(Modifiers::NOINTERPOLATION) {
                bad.push((i, self.ast.expr(a).span));
            }
        }
        for (i, span) in bad {
            self.error(span, format!("parameter {i} of {name} must have a 'nointerpolation' attribute"));
        }
    }

    /// Whether a user function accepts these argument types, and at what cost.
    fn match_user(&mut self, decl: DeclId, arg_tys: &[Ty]) -> Option<Viable> {
        let DeclKind::Function(f) = self.ast.decl(decl).kind.clone() else { return None };
        let info = self.decls.get(decl.index()).cloned().unwrap_or_default();
        if arg_tys.len() > info.params.len() {
            return None;
        }
        for &p in &f.params[arg_tys.len().min(f.params.len())..] {
            let has_default = matches!(&self.ast.decl(p).kind, DeclKind::Var(v) if v.init.is_some());
            if !has_default {
                return None;
            }
        }
        let mut cost = 0;
        for (&a, &(p, dir)) in arg_tys.iter().zip(&info.params) {
            let conv = if dir == ParamDirection::Out {
                implicit_conversion(&self.types, p, a).or_else(|| implicit_conversion(&self.types, a, p))
            } else {
                implicit_conversion(&self.types, a, p)
            }?;
            cost += conv.cost;
        }
        Some(Viable {
            decl,
            params: info.params[..arg_tys.len()].to_vec(),
            ret: info.ty,
            cost,
            from_template: false,
        })
    }

    /// Converts arguments to the chosen parameters; `out`/`inout` need lvalues.
    fn apply_params(
        &mut self,
        args: &[ExprId],
        arg_tys: &[Ty],
        params: &[(Ty, ParamDirection)],
        name: &str,
        span: Span,
        narrowing: Narrowing,
    ) {
        for ((&a, &at), &(pt, dir)) in args.iter().zip(arg_tys).zip(params) {
            match dir {
                ParamDirection::In => {
                    self.convert_implicit_warning(a, at, pt, narrowing);
                }
                ParamDirection::Out | ParamDirection::InOut => {
                    if !self.types.is_error(at) && !self.is_lvalue(a) {
                        let aspan = self.ast.expr(a).span;
                        self.error(
                            aspan,
                            format!(
                                "cannot bind non-lvalue argument to {} parameter of '{name}'",
                                dir.spelling()
                            ),
                        );
                    } else if self
                        .exprs
                        .get(a.index())
                        .is_some_and(|i| i.category == ValueCategory::ConstLValue)
                        && !self.types.is_error(at)
                        && !self.types.contains_object(at)
                    {
                        let aspan = self.ast.expr(a).span;
                        self.require_modifiable(a, aspan);
                    }
                    if at != pt {
                        if let Some(c) = implicit_conversion(&self.types, at, pt) {
                            self.expr_info(a).conversion = Some(Conversion { to: pt, kind: c.kind });
                        }
                    }
                }
            }
        }
        let _ = span;
    }

    /// An intrinsic call; `None` when no intrinsic has this name.
    /// `vk::static_pointer_cast<T[, A]>(p)` / `vk::reinterpret_pointer_cast<T[, A]>(p)`:
    /// a `vk::BufferPointer<T, A>` from another buffer pointer. Neither may raise the
    /// alignment; the static cast only goes from a struct to one of its bases.
    fn pointer_cast(
        &mut self,
        id: ExprId,
        name: &str,
        template_args: Option<&[TemplateArg]>,
        arg_tys: &[Ty],
        span: Span,
        info: ExprInfo,
    ) -> ExprInfo {
        if self.types.is_error(info.ty) {
            return info;
        }
        let values = template_args.map(|a| self.template_values(a)).unwrap_or_default();
        let Some(TemplateValue::Type(target)) = values.first().cloned() else { return info };
        let align = match values.get(1) {
            Some(TemplateValue::Value(v)) => v.as_int().unwrap_or(0),
            _ => 0,
        };
        let Some(&source) = arg_tys.first() else { return info };
        let (source_elem, source_align) = match self.types.get(source) {
            TypeData::Object { kind: ObjectKind::BufferPointer, args } => match args.as_slice() {
                [ObjectArg::Type(t), ObjectArg::Int(a)] => (*t, *a),
                _ => return info,
            },
            _ => {
                self.error(span, format!("vk::{name}() argument must be a vk::BufferPointer"));
                return Self::rvalue(TypeTable::ERROR);
            }
        };
        let effective =
            |sema: &Self, t: Ty, a: i64| if a > 0 { Some(a) } else { sema.natural_alignment(t, 0) };
        if let (Some(to), Some(from)) =
            (effective(self, target, align), effective(self, source_elem, source_align))
        {
            if to > from {
                self.error(span, "Vulkan buffer pointer cannot be cast to greater alignment");
            }
        }
        if name == "static_pointer_cast" && !self.is_same_or_base(target, source_elem, 0) {
            self.error(
                span,
                "vk::static_pointer_cast() content type must be base class of argument's content type",
            );
        }
        let ty = self
            .types
            .object(ObjectKind::BufferPointer, vec![ObjectArg::Type(target), ObjectArg::Int(align)]);
        if let Some(call) = self.calls.get_mut(&id) {
            call.ret = ty;
        }
        ExprInfo { ty, ..info }
    }

    /// Whether `base` is `derived` or one of its (transitive) bases.
    fn is_same_or_base(&self, base: Ty, derived: Ty, depth: u32) -> bool {
        if base == derived {
            return true;
        }
        let TypeData::Struct(sid) = self.types.get(derived) else { return false };
        depth < 64
            && self
                .types
                .struct_info(*sid)
                .is_some_and(|info| info.bases.iter().any(|&b| self.is_same_or_base(base, b, depth + 1)))
    }

    /// The alignment a buffer pointer to `ty` has without an explicit one: its largest
    /// scalar's size.
    fn natural_alignment(&self, ty: Ty, depth: u32) -> Option<i64> {
        if depth > 64 {
            return None;
        }
        match self.types.get(ty) {
            TypeData::Scalar(_) | TypeData::Vector(..) | TypeData::Matrix { .. } => {
                let c = self.types.component(ty)?;
                Some(i64::from(c.bits(true).max(8) / 8).max(if c == Scalar::Bool { 4 } else { 1 }))
            }
            TypeData::Array { elem, .. } => self.natural_alignment(*elem, depth + 1),
            TypeData::Struct(sid) => {
                let info = self.types.struct_info(*sid)?;
                let fields = info.fields.iter().map(|f| f.ty);
                let all: Vec<Ty> = fields.chain(info.bases.iter().copied()).collect();
                let mut best = 1;
                for t in all {
                    best = best.max(self.natural_alignment(t, depth + 1)?);
                }
                Some(best)
            }
            // Buffer pointers inside are 64-bit addresses.
            TypeData::Object { kind: ObjectKind::BufferPointer, .. } => Some(8),
            _ => None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn call_intrinsic(
        &mut self,
        id: ExprId,
        name: &str,
        vk: bool,
        args: &[ExprId],
        arg_tys: &[Ty],
        template_arg: Option<Ty>,
        span: Span,
    ) -> Option<ExprInfo> {
        let tables = intrinsics::tables();
        let (sigs, indices) = if vk {
            (&tables.vk, tables.vk_by_name.get(name)?)
        } else {
            (&tables.intrinsics, tables.by_name.get(name)?)
        };
        let candidates: Vec<(u16, &'static Signature)> =
            indices.iter().map(|&i| (i, &sigs[usize::from(i)])).collect();
        let info = self.resolve_builtin(
            id,
            name,
            &candidates,
            args,
            arg_tys,
            None,
            template_arg,
            span,
            |index, name| Callee::Intrinsic { index, name },
        );
        self.check_intrinsic_rules(name, args, span);
        Some(info)
    }

    /// Picks the best builtin overload and applies it.
    #[allow(clippy::too_many_arguments)]
    fn resolve_builtin(
        &mut self,
        id: ExprId,
        name: &str,
        candidates: &[(u16, &'static Signature)],
        args: &[ExprId],
        arg_tys: &[Ty],
        object: Option<Ty>,
        template_arg: Option<Ty>,
        span: Span,
        callee: impl Fn(u16, &'static str) -> Callee,
    ) -> ExprInfo {
        self.resolve_builtin_with(
            id,
            name,
            candidates,
            args,
            arg_tys,
            object,
            template_arg,
            false,
            span,
            callee,
        )
    }

    /// As [`Self::resolve_builtin`]; `implicit_sampler` matches signatures whose first
    /// parameter is a sampler without it (`vk::SampledTexture*` carry their sampler).
    #[allow(clippy::too_many_arguments)]
    fn resolve_builtin_with(
        &mut self,
        id: ExprId,
        name: &str,
        candidates: &[(u16, &'static Signature)],
        args: &[ExprId],
        arg_tys: &[Ty],
        object: Option<Ty>,
        template_arg: Option<Ty>,
        implicit_sampler: bool,
        span: Span,
        callee: impl Fn(u16, &'static str) -> Callee,
    ) -> ExprInfo {
        if arg_tys.iter().any(|&t| self.types.is_error(t)) {
            return Self::rvalue(TypeTable::ERROR);
        }
        let margs: Vec<Arg> =
            args.iter().zip(arg_tys).map(|(&a, &ty)| Arg { ty, lvalue: self.is_lvalue(a) }).collect();
        // With an implicit sampler, the error type stands for it (it matches at no cost).
        let mut with_sampler = margs.clone();
        with_sampler.insert(0, Arg { ty: TypeTable::ERROR, lvalue: false });
        let takes_sampler = |sig: &Signature| {
            matches!(
                sig.params.first().map(|p| &p.pattern),
                Some(intrinsics::Pattern::Concrete("SamplerState" | "SamplerComparisonState"))
            )
        };
        let builtin_structs = self.builtin_structs.clone();
        let named = move |n: &str| builtin_structs.get(n).copied();
        let env = Env { object, template_arg, named: &named };
        let mut best: Option<(u16, &'static Signature, intrinsics::Match)> = None;
        for &(index, sig) in candidates {
            let skip = implicit_sampler && takes_sampler(sig);
            let margs = if skip { &with_sampler } else { &margs };
            if let Some(m) = intrinsics::match_signature(&mut self.types, sig, margs, &env) {
                if best.as_ref().is_none_or(|(_, _, b)| m.cost < b.cost) {
                    best = Some((index, sig, m));
                }
            }
        }
        let Some((index, sig, mut m)) = best else {
            self.error(span, format!("no matching function for call to '{name}'"));
            return Self::rvalue(TypeTable::ERROR);
        };
        let skipped = implicit_sampler && takes_sampler(sig);
        if skipped && !m.params.is_empty() {
            m.params.remove(0);
        }
        self.apply_params(args, arg_tys, &m.params, name, span, Narrowing::WarnIntrinsic);
        if name == "Load" && object.is_some() {
            self.check_load_offset(sig, args, skipped);
        }
        let ret = m.ret;
        self.calls.insert(id, CallInfo { callee: callee(index, sig.name), params: m.params, ret });
        let resolution = match callee(index, sig.name) {
            Callee::Intrinsic { index, .. } => Resolution::Intrinsic(index),
            Callee::ObjectMethod { index, .. } => Resolution::ObjectMethod(index),
            _ => Resolution::None,
        };
        ExprInfo { ty: ret, resolution, ..ExprInfo::default() }
    }

    /// A method of a built-in object (`tex.Sample(...)`).
    #[allow(clippy::too_many_arguments)]
    fn call_method(
        &mut self,
        id: ExprId,
        bt: Ty,
        kind: ObjectKind,
        name: &str,
        args: &[ExprId],
        arg_tys: &[Ty],
        template_arg: Option<Ty>,
        member_span: Span,
        span: Span,
    ) -> ExprInfo {
        if kind.family() == Family::Other {
            return Self::rvalue(TypeTable::ERROR);
        }
        let tables = intrinsics::tables();
        let codes = intrinsics::family_codes(kind);
        let mut candidates: Vec<(u16, &'static Signature)> = Vec::new();
        if name == "GetDimensions" {
            for (i, sig) in intrinsics::get_dimensions(kind).iter().enumerate() {
                candidates.push((u16::MAX - i as u16, sig));
            }
        } else if let Some(indices) = tables.methods_by_name.get(name) {
            for &i in indices {
                let entry = &tables.methods[usize::from(i)];
                if entry.families.iter().any(|f| codes.contains(f)) {
                    candidates.push((i, &entry.sig));
                }
            }
        }
        if candidates.is_empty() {
            self.error(member_span, format!("no member named '{name}' in {}", self.quoted(bt)));
            return Self::rvalue(TypeTable::ERROR);
        }
        let implicit_sampler = kind.name().starts_with("SampledTexture");
        let mut info = self.resolve_builtin_with(
            id,
            name,
            &candidates,
            args,
            arg_tys,
            Some(bt),
            template_arg,
            implicit_sampler,
            span,
            |index, name| Callee::ObjectMethod { index, name },
        );
        if name == "SubpassLoad" && self.in_entry_function() {
            if let Some(stage) = self.opts.stage {
                if !matches!(stage, super::tree::Stage::Pixel | super::tree::Stage::Library) {
                    self.error(span, "SubpassInput(MS) only allowed in pixel shader");
                }
            }
        }
        if name == "Get" && !self.types.is_error(info.ty) {
            // Records and buffer pointers give access to their storage.
            let read_only = matches!(
                kind,
                ObjectKind::DispatchNodeInputRecord
                    | ObjectKind::GroupNodeInputRecords
                    | ObjectKind::ThreadNodeInputRecord
            );
            info.category = if read_only { ValueCategory::ConstLValue } else { ValueCategory::LValue };
        }
        info
    }

    /// Rules of particular intrinsics that dxc checks in its front end.
    fn check_intrinsic_rules(&mut self, name: &str, args: &[ExprId], span: Span) {
        match name {
            "RawBufferLoad" | "RawBufferStore" => {
                let align = if name == "RawBufferLoad" { args.get(1) } else { args.get(2) };
                if let Some(&a) = align {
                    let negative =
                        matches!(self.ast.expr(a).kind, ExprKind::Unary { op: UnaryOp::Minus, .. });
                    if negative || self.constant_of(a).and_then(|c| c.as_int()).is_none_or(|v| v < 0) {
                        let aspan = self.ast.expr(a).span;
                        self.error(aspan, "alignment argument must be a constant unsigned integer");
                    }
                }
            }
            "GetAttributeAtVertex" => {
                if let Some(stage) = self.opts.stage {
                    if !matches!(stage, super::tree::Stage::Pixel | super::tree::Stage::Library) {
                        self.error(span, "GetAttributeAtVertex only allowed in pixel shader");
                        return;
                    }
                }
                if let Some(&a) = args.first() {
                    let ty = self.exprs.get(a.index()).map_or(TypeTable::ERROR, |i| i.ty);
                    if self.types.component(ty) == Some(Scalar::Bool) {
                        let aspan = self.ast.expr(a).span;
                        self.error(
                            aspan,
                            "attribute evaluation can only be done on values taken directly from inputs.",
                        );
                    }
                }
            }
            "DispatchMesh" => {
                if let Some(&a) = args.get(3) {
                    let groupshared = self
                        .root_decl(a)
                        .is_some_and(|d| self.ast.decl(d).modifiers.contains(Modifiers::GROUPSHARED));
                    let ty = self.exprs.get(a.index()).map_or(TypeTable::ERROR, |i| i.ty);
                    if !groupshared && !self.types.is_error(ty) {
                        let aspan = self.ast.expr(a).span;
                        self.error(aspan, "expected groupshared object as argument to DispatchMesh()");
                    }
                }
            }
            n if n.starts_with("Interlocked") => {
                // A component of a texel of a vector-typed (RW) texture or typed
                // buffer: dxc reaches texels through an image texel pointer, which
                // has no components. Structured buffer elements live in memory,
                // so `buf[i].member` and `buf[i].x` are fine there.
                if let Some(&dest) = args.first() {
                    if let ExprKind::Member { base, .. } = self.ast.expr(dest).kind.clone() {
                        if let ExprKind::Index { base: object, .. } = self.ast.expr(base).kind.clone() {
                            let oty = self.exprs.get(object.index()).map_or(TypeTable::ERROR, |i| i.ty);
                            let texel = match self.types.get(oty) {
                                TypeData::Object { kind, .. } => matches!(
                                    kind.family(),
                                    Family::Texture | Family::RWTexture | Family::Buffer | Family::RWBuffer
                                ),
                                _ => false,
                            };
                            let elem = self.types.object_element(oty);
                            if texel && elem.is_some_and(|e| !self.types.is_scalar(e)) {
                                let dspan = self.ast.expr(dest).span;
                                self.error(
                                    dspan,
                                    "Interlocked operation for texture buffer whose result type is non-scalar type is not allowed",
                                );
                            }
                        }
                    }
                }
                if matches!(name, "InterlockedCompareExchange" | "InterlockedCompareExchangeFloatBitwise") {
                    if let Some(&out) = args.get(3) {
                        let ty = self.exprs.get(out.index()).map_or(TypeTable::ERROR, |i| i.ty);
                        if !self.is_lvalue(out) && !self.types.is_error(ty) {
                            self.error(span, format!("{name} requires a reference as output parameter"));
                        }
                    }
                }
            }
            "printf" | "errorf" => {
                if let Some(&first) = args.first() {
                    let ty = self.exprs.get(first.index()).map_or(TypeTable::ERROR, |i| i.ty);
                    if !self.is_string_literal(first) && ty != TypeTable::STRING && !self.types.is_error(ty) {
                        let fspan = self.ast.expr(first).span;
                        self.error(fspan, "format string must be a string literal");
                    }
                }
            }
            _ => {}
        }
        let _ = span;
    }

    /// Whether the function being checked is the `-E` entry point.
    fn in_entry_function(&self) -> bool {
        let Some(f) = &self.function else { return false };
        let entry = self.opts.entry.as_deref().unwrap_or("main");
        match &self.ast.decl(f.decl).kind {
            DeclKind::Function(func) => {
                func.name.segments.len() == 1 && func.name.last().is_some_and(|n| self.name(n.name) == entry)
            }
            _ => false,
        }
    }

    /// Texel fetches take their offset as an immediate (sampling may use a variable
    /// offset, which legalization handles).
    fn check_load_offset(&mut self, sig: &Signature, args: &[ExprId], implicit_sampler: bool) {
        let skip = usize::from(implicit_sampler);
        for (i, p) in sig.params.iter().enumerate().skip(skip) {
            if p.pattern != intrinsics::Pattern::Offset {
                continue;
            }
            let Some(&a) = args.get(i - skip) else { continue };
            if !self.is_constant_expr(a) {
                let aspan = self.ast.expr(a).span;
                self.codegen_error(aspan, "Offsets to texture access operations must be immediate values.");
            }
        }
    }

    /// Whether an expression is built from literals and constants only (for offsets,
    /// which may also be vector constructors of literals).
    fn is_constant_expr(&self, e: ExprId) -> bool {
        if self.constant_of(e).is_some() {
            return true;
        }
        match &self.ast.expr(e).kind {
            ExprKind::Construct { args, .. } | ExprKind::InitList(args) => {
                args.iter().all(|&a| self.is_constant_expr(a))
            }
            ExprKind::Paren(inner) => self.is_constant_expr(*inner),
            ExprKind::Unary { operand, .. } => self.is_constant_expr(*operand),
            ExprKind::Binary { lhs, rhs, .. } => self.is_constant_expr(*lhs) && self.is_constant_expr(*rhs),
            ExprKind::Name { .. } => matches!(
                self.exprs.get(e.index()).map(|i| &i.resolution),
                Some(Resolution::Decl(d)) if self.ast.decl(*d).modifiers.contains(Modifiers::CONST)
            ),
            _ => false,
        }
    }
}

/// Predefined enumerators: ray flags, committed/candidate statuses, hit kinds,
/// barrier flags (values from the DXR and shader model 6.8 specifications).
const BUILTIN_CONSTANTS: &[(&str, i64)] = &[
    ("RAY_FLAG_NONE", 0x00),
    ("RAY_FLAG_FORCE_OPAQUE", 0x01),
    ("RAY_FLAG_FORCE_NON_OPAQUE", 0x02),
    ("RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH", 0x04),
    ("RAY_FLAG_SKIP_CLOSEST_HIT_SHADER", 0x08),
    ("RAY_FLAG_CULL_BACK_FACING_TRIANGLES", 0x10),
    ("RAY_FLAG_CULL_FRONT_FACING_TRIANGLES", 0x20),
    ("RAY_FLAG_CULL_OPAQUE", 0x40),
    ("RAY_FLAG_CULL_NON_OPAQUE", 0x80),
    ("RAY_FLAG_SKIP_TRIANGLES", 0x100),
    ("RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES", 0x200),
    ("RAY_FLAG_FORCE_OMM_2_STATE", 0x400),
    ("COMMITTED_NOTHING", 0),
    ("COMMITTED_TRIANGLE_HIT", 1),
    ("COMMITTED_PROCEDURAL_PRIMITIVE_HIT", 2),
    ("CANDIDATE_NON_OPAQUE_TRIANGLE", 0),
    ("CANDIDATE_PROCEDURAL_PRIMITIVE", 1),
    ("HIT_KIND_NONE", 0),
    ("HIT_KIND_TRIANGLE_FRONT_FACE", 0xFE),
    ("HIT_KIND_TRIANGLE_BACK_FACE", 0xFF),
    ("UAV_MEMORY", 0x1),
    ("GROUP_SHARED_MEMORY", 0x2),
    ("NODE_INPUT_MEMORY", 0x4),
    ("NODE_OUTPUT_MEMORY", 0x8),
    ("ALL_MEMORY", 0xF),
    ("GROUP_SYNC", 0x1),
    ("GROUP_SCOPE", 0x2),
    ("DEVICE_SCOPE", 0x4),
];

#[derive(Debug, PartialEq, Eq)]
enum SwizzleError {
    Invalid,
    OutOfBounds,
}

/// `xyzw`/`rgba` swizzles of an `n`-vector (a scalar is a 1-vector).
fn parse_vector_swizzle(text: &str, n: u8) -> Result<Vec<u8>, SwizzleError> {
    if text.is_empty() || text.len() > 4 {
        return Err(SwizzleError::Invalid);
    }
    let xyzw = text.bytes().all(|b| b"xyzw".contains(&b));
    let rgba = text.bytes().all(|b| b"rgba".contains(&b));
    if !xyzw && !rgba {
        return Err(SwizzleError::Invalid);
    }
    let set: &[u8] = if xyzw { b"xyzw" } else { b"rgba" };
    let mut out = Vec::new();
    for b in text.bytes() {
        let i = set.iter().position(|&c| c == b).unwrap_or(0) as u8;
        if i >= n {
            return Err(SwizzleError::OutOfBounds);
        }
        out.push(i);
    }
    Ok(out)
}

/// `_m01_m10` (zero-based) or `_12_21` (one-based) matrix element swizzles; indices
/// are row-major linear (`row * cols + col`).
fn parse_matrix_swizzle(text: &str, rows: u8, cols: u8) -> Result<Vec<u8>, SwizzleError> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < bytes.len() {
        if bytes[i] != b'_' {
            return Err(SwizzleError::Invalid);
        }
        let zero_based = bytes.get(i + 1) == Some(&b'm');
        let start = i + 1 + usize::from(zero_based);
        let (Some(&r), Some(&c)) = (bytes.get(start), bytes.get(start + 1)) else {
            return Err(SwizzleError::Invalid);
        };
        if !r.is_ascii_digit() || !c.is_ascii_digit() {
            return Err(SwizzleError::Invalid);
        }
        let (mut r, mut c) = (r - b'0', c - b'0');
        if !zero_based {
            if r == 0 || c == 0 {
                return Err(SwizzleError::Invalid);
            }
            r -= 1;
            c -= 1;
        }
        if r >= rows || c >= cols {
            return Err(SwizzleError::OutOfBounds);
        }
        out.push(r * cols + c);
        i = start + 2;
    }
    if out.is_empty() || out.len() > 4 {
        return Err(SwizzleError::Invalid);
    }
    Ok(out)
}

fn has_duplicates(indices: &[u8]) -> bool {
    indices.iter().enumerate().any(|(i, a)| indices[..i].contains(a))
}

/// A constant converted to a type's component kind.
pub(super) fn convert_constant(v: ConstValue, to: Ty, types: &TypeTable) -> ConstValue {
    let Some(s) = types.component(to) else { return v };
    let converted = if s == Scalar::Bool {
        ConstValue::Bool(v.as_bool())
    } else if s.is_float() {
        ConstValue::Float(v.as_float())
    } else {
        match v.as_int() {
            Some(i) => ConstValue::Int(i),
            None => v,
        }
    };
    wrap_constant(converted, to, types)
}

/// Integer constants wrapped to their type's width.
fn wrap_constant(v: ConstValue, ty: Ty, types: &TypeTable) -> ConstValue {
    let ConstValue::Int(i) = v else { return v };
    match types.component(ty) {
        Some(Scalar::UInt | Scalar::Min16UInt) => ConstValue::Int(i64::from(i as u32)),
        Some(Scalar::Int | Scalar::Min16Int | Scalar::Min12Int) => ConstValue::Int(i64::from(i as i32)),
        Some(Scalar::UInt16) => ConstValue::Int(i64::from(i as u16)),
        Some(Scalar::Int16) => ConstValue::Int(i64::from(i as i16)),
        _ => v,
    }
}

/// Folds a binary operator over constants (`None` for division by zero and the like).
fn fold_binary(op: BinaryOp, a: ConstValue, b: ConstValue, comp: Scalar) -> Option<ConstValue> {
    use BinaryOp::*;
    let comparison = |r: bool| Some(ConstValue::Bool(r));
    if comp.is_float() {
        let (x, y) = (a.as_float(), b.as_float());
        return match op {
            Add => Some(ConstValue::Float(x + y)),
            Sub => Some(ConstValue::Float(x - y)),
            Mul => Some(ConstValue::Float(x * y)),
            Div => Some(ConstValue::Float(x / y)),
            Rem => Some(ConstValue::Float(x % y)),
            Lt => comparison(x < y),
            Gt => comparison(x > y),
            Le => comparison(x <= y),
            Ge => comparison(x >= y),
            Eq => comparison(x == y),
            Ne => comparison(x != y),
            LogicalAnd => comparison(x != 0.0 && y != 0.0),
            LogicalOr => comparison(x != 0.0 || y != 0.0),
            _ => None,
        };
    }
    if comp == Scalar::Bool {
        let (x, y) = (a.as_bool(), b.as_bool());
        return match op {
            Eq => comparison(x == y),
            Ne => comparison(x != y),
            LogicalAnd => comparison(x && y),
            LogicalOr => comparison(x || y),
            BitAnd => comparison(x & y),
            BitOr => comparison(x | y),
            BitXor => comparison(x ^ y),
            _ => None,
        };
    }
    let (x, y) = (a.as_int()?, b.as_int()?);
    let unsigned = !comp.is_signed();
    let int = |v: i64| Some(ConstValue::Int(v));
    match op {
        Add => int(x.wrapping_add(y)),
        Sub => int(x.wrapping_sub(y)),
        Mul => int(x.wrapping_mul(y)),
        Div if y == 0 => None,
        Rem if y == 0 => None,
        Div if unsigned => int(((x as u64) / (y as u64)) as i64),
        Rem if unsigned => int(((x as u64) % (y as u64)) as i64),
        Div => int(x.wrapping_div(y)),
        Rem => int(x.wrapping_rem(y)),
        Shl => int(x.wrapping_shl((y & 63) as u32)),
        Shr if unsigned => int(((x as u64) >> (y & 63)) as i64),
        Shr => int(x.wrapping_shr((y & 63) as u32)),
        BitAnd => int(x & y),
        BitOr => int(x | y),
        BitXor => int(x ^ y),
        Lt => comparison(if unsigned { (x as u64) < (y as u64) } else { x < y }),
        Gt => comparison(if unsigned { (x as u64) > (y as u64) } else { x > y }),
        Le => comparison(if unsigned { (x as u64) <= (y as u64) } else { x <= y }),
        Ge => comparison(if unsigned { (x as u64) >= (y as u64) } else { x >= y }),
        Eq => comparison(x == y),
        Ne => comparison(x != y),
        LogicalAnd => comparison(x != 0 && y != 0),
        LogicalOr => comparison(x != 0 || y != 0),
        Comma => int(y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_swizzles() {
        assert_eq!(parse_vector_swizzle("xyz", 4), Ok(vec![0, 1, 2]));
        assert_eq!(parse_vector_swizzle("rgba", 4), Ok(vec![0, 1, 2, 3]));
        assert_eq!(parse_vector_swizzle("xxx", 1), Ok(vec![0, 0, 0]));
        assert_eq!(parse_vector_swizzle("xr", 4), Err(SwizzleError::Invalid));
        assert_eq!(parse_vector_swizzle("z", 2), Err(SwizzleError::OutOfBounds));
        assert_eq!(parse_vector_swizzle("xyzwx", 4), Err(SwizzleError::Invalid));
    }

    #[test]
    fn matrix_swizzles() {
        assert_eq!(parse_matrix_swizzle("_m00_m11", 2, 2), Ok(vec![0, 3]));
        assert_eq!(parse_matrix_swizzle("_11_22", 2, 3), Ok(vec![0, 4]));
        assert_eq!(parse_matrix_swizzle("_m22", 2, 2), Err(SwizzleError::OutOfBounds));
        assert_eq!(parse_matrix_swizzle("_00", 2, 2), Err(SwizzleError::Invalid));
        assert_eq!(parse_matrix_swizzle("m00", 2, 2), Err(SwizzleError::Invalid));
    }

    #[test]
    fn constant_folding() {
        assert_eq!(
            fold_binary(BinaryOp::Add, ConstValue::Int(2), ConstValue::Int(3), Scalar::Int),
            Some(ConstValue::Int(5))
        );
        assert_eq!(fold_binary(BinaryOp::Div, ConstValue::Int(1), ConstValue::Int(0), Scalar::Int), None);
        assert_eq!(
            fold_binary(BinaryOp::Lt, ConstValue::Int(-1), ConstValue::Int(0), Scalar::UInt),
            Some(ConstValue::Bool(false))
        );
        assert_eq!(
            fold_binary(BinaryOp::Mul, ConstValue::Float(1.5), ConstValue::Int(2), Scalar::Float),
            Some(ConstValue::Float(3.0))
        );
    }
}

/// Whether an implicit conversion warns when it narrows, and how it names the target.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Narrowing {
    Warn,
    /// An intrinsic's parameter: dxc names it as a template instance (`vector<float, 2>`).
    WarnIntrinsic,
    Silent,
}

/// The constants of the implicit `vk` namespace: SPIR-V's scope values.
const VK_SCOPE_CONSTANTS: &[(&str, i64)] = &[
    ("CrossDeviceScope", 0),
    ("DeviceScope", 1),
    ("WorkgroupScope", 2),
    ("SubgroupScope", 3),
    ("InvocationScope", 4),
    ("QueueFamilyScope", 5),
];
