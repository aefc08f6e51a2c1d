//! Expressions: places (pointers, vector components, texels) and values.
//!
//! A value is always in its plain form: the type lowered without a layout. Loading from
//! a buffer converts the laid-out form to the plain one, and storing converts back
//! (`convert.rs`), as dxc does with member-wise copies.

use super::{Emitter, Local, R};
use crate::layout::{BitField, LayoutRule};
use spirvkit_hlsl::ast::{BinaryOp, ExprId, ExprKind, UnaryOp};
use spirvkit_hlsl::sema::tree::{CastKind, ConstValue, Conversion, Resolution};
use spirvkit_hlsl::sema::types::{Family, Scalar, Ty, TypeData, TypeTable};
use spirvkit_ir::ir::Value;

/// Storage an expression designates.
#[derive(Clone, Debug)]
pub(crate) enum Place {
    /// A pointer to the whole value; `rule` is the layout of the pointee.
    Ptr { ptr: Value, ty: Ty, rule: Option<LayoutRule> },
    /// Components of the vector (or scalar, component 0) behind `ptr`.
    Components { ptr: Value, vector: Ty, rule: Option<LayoutRule>, components: Vec<u32>, ty: Ty },
    /// A texel of a storage image or texel buffer (`RWTexture2D[uv]`).
    Texel { image: Value, coord: Value, ty: Ty, object: Ty },
    /// Components of a storage image's or texel buffer's texel (`rw[uv].zx`): read,
    /// merged and written back whole.
    TexelComponents { image: Value, coord: Value, texel: Ty, object: Ty, components: Vec<u32>, ty: Ty },
    /// Elements of the matrix behind `ptr` (`m._m01_m10`), each by its index path
    /// (row and column, or one index for a 1xN/Nx1 matrix); `elem` is their scalar type.
    MatrixElements { ptr: Value, rule: Option<LayoutRule>, paths: Vec<Vec<u32>>, elem: Ty, ty: Ty },
    /// A bit-field: `bits` of the integer member behind `ptr` (of the field's type).
    BitField { ptr: Value, ty: Ty, rule: Option<LayoutRule>, bits: BitField },
}

impl Place {
    pub fn ty(&self) -> Ty {
        match self {
            Place::Ptr { ty, .. }
            | Place::Components { ty, .. }
            | Place::Texel { ty, .. }
            | Place::TexelComponents { ty, .. }
            | Place::MatrixElements { ty, .. }
            | Place::BitField { ty, .. } => *ty,
        }
    }
}

/// An expression's result before its implicit conversion.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    R(Value, Ty),
    P(Place),
}

impl<'t> Emitter<'t> {
    /// The value of `e` after its implicit conversion.
    pub fn rvalue(&mut self, e: ExprId) -> R<Value> {
        // The load of an lvalue and an implicit conversion are at the expression.
        if !self.has_lines() {
            return self.rvalue_here(e);
        }
        self.at_expr(e, |s| s.rvalue_here(e))
    }

    fn rvalue_here(&mut self, e: ExprId) -> R<Value> {
        let info = self.tree.expr(e).cloned().unwrap_or_default();
        let target = info.conversion.map_or(info.ty, |c| c.to);
        if let Some(c) = info.constant {
            // dxc folds a conversion whose operand evaluates to a constant (clang's
            // evaluator handles a swizzled constant there: `float4 v = (1).xxxx`);
            // a swizzle used unconverted is emitted as written.
            let converted = info.conversion.is_some_and(|conv| conv.to != info.ty);
            if self.scalar_shape(target).is_some()
                && !self.has_side_effects(e)
                && (converted || !self.has_swizzle(e))
            {
                let t = self.ty(target)?;
                return Ok(self.splat_constant(c, t));
            }
        }
        if let (ExprKind::Conditional { .. }, Some(c)) = (&self.ast.expr(e).kind, info.conversion) {
            if self.literal_result_type(info.ty, c.to) != self.concrete(info.ty) {
                return self.retyped_literal_conditional(e, c.to);
            }
        }
        let value = self.expr_value(e)?;
        match info.conversion {
            Some(c) if c.kind != CastKind::NoOp || c.to != info.ty => self.convert(value, info.ty, c.to),
            _ => Ok(value),
        }
    }

    /// The value of an initializer or constructor element: as `rvalue`, except that
    /// a swizzled constant stays constructed (`float4(x, y, 0.0.xx)`): dxc fits each
    /// element into the aggregate and folds no conversion there.
    pub fn element_rvalue(&mut self, e: ExprId) -> R<Value> {
        let info = self.tree.expr(e).cloned().unwrap_or_default();
        if info.constant.is_none()
            || !matches!(info.resolution, Resolution::Swizzle(_))
            || self.scalar_shape(info.ty).is_none_or(|(_, n)| n < 2)
        {
            return self.rvalue(e);
        }
        let value = self.expr_value(e)?;
        match info.conversion {
            Some(c) if c.to != info.ty => self.convert(value, info.ty, c.to),
            _ => Ok(value),
        }
    }

    /// A literal-typed `?:` whose result took its width from its target: converted
    /// from that type. dxc casts even when the types already agree (the cast is chosen
    /// before the literal's type is), so a same-type target still gets an OpBitcast.
    fn retyped_literal_conditional(&mut self, e: ExprId, to: Ty) -> R<Value> {
        let (value, from) = match self.expr(e)? {
            Val::R(v, t) => (v, t),
            Val::P(p) => {
                let t = p.ty();
                (self.load_place(&p)?, t)
            }
        };
        if from == to && self.scalar_shape(to).is_some_and(|(s, _)| s.is_integer()) {
            let t = self.ty(to)?;
            return Ok(self.val("spirv.Bitcast", vec![value], t));
        }
        self.convert(value, from, to)
    }

    /// The value of `e` before its implicit conversion.
    pub fn expr_value(&mut self, e: ExprId) -> R<Value> {
        match self.expr(e)? {
            Val::R(v, _) => Ok(v),
            Val::P(Place::Ptr { ptr, .. })
                if self.is_pointer_valued(
                    self.concrete(self.tree.expr(e).map_or(TypeTable::ERROR, |i| i.ty)),
                ) && !self.holds_pointer(ptr) =>
            {
                // A `ConstantBuffer`/`TextureBuffer` global's place reads as its
                // contents, but the object itself (a local or parameter initialized
                // from it) is the pointer to its block, as for every buffer.
                Ok(ptr)
            }
            Val::P(p) => self.load_place(&p),
        }
    }

    /// The value of `e` converted to `to`.
    pub fn rvalue_as(&mut self, e: ExprId, to: Ty) -> R<Value> {
        // A descriptor heap's element takes the type it is converted to.
        if let Some((heap, index)) = self.heap_element(e) {
            return self.heap_value(heap, index, to);
        }
        let from = self.tree.converted_type(e);
        // A literal constant is made in the type it goes to (dxc's literal typing),
        // not in its default type and then converted.
        if let (Some(c), Some((fs, _)), Some((ts, _))) =
            (self.tree.expr(e).and_then(|i| i.constant), self.literal_scalar(from), self.scalar_shape(to))
        {
            let same_kind = (fs == Scalar::LiteralInt && ts.is_integer() && ts != Scalar::Bool)
                || (fs == Scalar::LiteralFloat && ts.is_float());
            if same_kind && !self.has_side_effects(e) {
                let t = self.ty(to)?;
                return Ok(self.splat_constant(c, t));
            }
        }
        let v = self.rvalue(e)?;
        if from == to {
            return Ok(v);
        }
        self.convert(v, from, to)
    }

    pub fn place(&mut self, e: ExprId) -> R<Place> {
        match self.expr(e)? {
            Val::P(p) => Ok(p),
            Val::R(v, ty) => {
                // An rvalue used as storage (a method called on a temporary): a temporary.
                let t = self.value_type_of(ty)?;
                let name = self.temp_var_name(ty);
                let ptr = self.function_variable(t, &name);
                self.store_to(ptr, v);
                Ok(Place::Ptr { ptr, ty, rule: None })
            }
        }
    }

    /// Whether `e` swizzles a value somewhere: dxc does not evaluate such an
    /// expression as a constant (clang's evaluator stops at vector element access).
    pub fn has_swizzle(&self, e: ExprId) -> bool {
        self.has_swizzle_at(e, 0)
    }

    fn has_swizzle_at(&self, e: ExprId, depth: u32) -> bool {
        if depth > 256 {
            return true;
        }
        if matches!(self.tree.expr(e).map(|i| &i.resolution), Some(Resolution::Swizzle(_))) {
            return true;
        }
        spirvkit_hlsl::ast::expr_children(&self.ast.expr(e).kind)
            .into_iter()
            .any(|c| self.has_swizzle_at(c, depth + 1))
    }

    /// Whether evaluating `e` may change state (assignments, calls, increments).
    pub fn has_side_effects(&self, e: ExprId) -> bool {
        let expr = self.ast.expr(e);
        match &expr.kind {
            ExprKind::Assign { .. } | ExprKind::Call { .. } => true,
            // An overloaded operator is a call.
            ExprKind::Binary { .. } | ExprKind::Index { .. } if self.tree.calls.contains_key(&e) => true,
            ExprKind::Unary {
                op: UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec,
                ..
            } => true,
            kind => spirvkit_hlsl::ast::expr_children(kind).into_iter().any(|c| self.has_side_effects(c)),
        }
    }

    pub fn expr(&mut self, e: ExprId) -> R<Val> {
        let expr = self.ast.expr(e);
        let saved = self.span;
        self.span = Some(expr.span);
        let saved_loc = if self.has_lines() {
            let loc = self.expr_location(e);
            Some(std::mem::replace(&mut self.loc, loc))
        } else {
            None
        };
        let result = self.expr_inner(e);
        self.span = saved;
        if let Some(loc) = saved_loc {
            self.loc = loc;
        }
        result
    }

    fn expr_inner(&mut self, e: ExprId) -> R<Val> {
        if let Some((at, place)) = &self.stage.mesh_place {
            if *at == e {
                return Ok(Val::P(place.clone()));
            }
        }
        let info = self.tree.expr(e).cloned().unwrap_or_default();
        let ty = info.ty;
        if let Some(v) = self.overloaded_operator(e)? {
            return Ok(Val::R(v, ty));
        }
        match &self.ast.expr(e).kind {
            ExprKind::IntLiteral { .. } | ExprKind::FloatLiteral { .. } | ExprKind::BoolLiteral(_) => {
                let c = info.constant.unwrap_or(ConstValue::Int(0));
                let concrete = self.concrete(ty);
                let t = self.ty(concrete)?;
                Ok(Val::R(self.splat_constant(c, t), concrete))
            }
            ExprKind::SizeOfType(_) | ExprKind::SizeOfExpr(_) => {
                let c = info.constant.unwrap_or(ConstValue::Int(0));
                let t = self.u32_type();
                Ok(Val::R(self.scalar_constant(c, t), TypeTable::UINT))
            }
            ExprKind::Paren(inner) => {
                let inner = *inner;
                let v = self.expr(inner)?;
                // A conversion recorded on the parenthesized expression applies inside.
                match self.tree.expr(inner).and_then(|i| i.conversion) {
                    Some(c) => Ok(Val::R(self.converted_value(v, inner, Some(c))?, c.to)),
                    None => Ok(v),
                }
            }
            ExprKind::Name { .. } | ExprKind::TypeMember { .. } => self.name_expr(e, &info),
            ExprKind::This => match self.f.as_ref().and_then(|f| f.this) {
                Some(Local { ptr, ty }) => Ok(Val::P(Place::Ptr { ptr, ty, rule: None })),
                None => self.unsupported("'this' outside a method"),
            },
            ExprKind::Member { base, .. } => {
                let base = *base;
                self.member_expr(e, base, &info)
            }
            ExprKind::Index { base, index } => {
                let (base, index) = (*base, *index);
                self.index_expr(base, index, ty)
            }
            ExprKind::Unary { op, operand } => {
                let (op, operand) = (*op, *operand);
                self.unary(op, operand, ty)
            }
            ExprKind::Binary { op: BinaryOp::Comma, lhs, rhs } => {
                let (lhs, rhs) = (*lhs, *rhs);
                self.discard_value(lhs)?;
                self.expr(rhs)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (op, lhs, rhs) = (*op, *lhs, *rhs);
                Ok(Val::R(self.binary(op, lhs, rhs, ty)?, ty))
            }
            ExprKind::Assign { op, lhs, rhs } => {
                let (op, lhs, rhs) = (*op, *lhs, *rhs);
                self.assign(op, lhs, rhs)
            }
            ExprKind::Conditional { condition, then_value, else_value } => {
                let (c, a, b) = (*condition, *then_value, *else_value);
                let target = info.conversion.map_or(ty, |conv| conv.to);
                let result_ty = self.literal_result_type(ty, target);
                Ok(Val::R(self.conditional(c, a, b, ty, target)?, result_ty))
            }
            ExprKind::Call { .. } | ExprKind::Construct { .. } => {
                let v = self.call_expr(e)?;
                Ok(Val::R(v, ty))
            }
            ExprKind::Cast { operand, .. } => {
                let operand = *operand;
                // dxc: a constant zero cast to a struct or array (a flat conversion)
                // is that type's OpConstantNull rather than a splat.
                let aggregate =
                    matches!(self.data(self.concrete(ty)), TypeData::Struct(_) | TypeData::Array { .. });
                let zero = self.tree.expr(operand).and_then(|i| i.constant).is_some_and(|c| match c {
                    ConstValue::Int(v) => v == 0,
                    ConstValue::Float(f) => f == 0.0,
                    ConstValue::Bool(b) => !b,
                });
                if aggregate && zero && !self.contains_object(ty, 0) && !self.has_side_effects(operand) {
                    let t = self.ty(ty)?;
                    let null = self.constant_attr(spirvkit_ir::attr::Attribute::null_constant(), t);
                    return Ok(Val::R(null, ty));
                }
                let v = self.rvalue(operand)?;
                let from = self.tree.converted_type(operand);
                Ok(Val::R(self.convert(v, from, ty)?, ty))
            }
            ExprKind::InitList(_) => self.unsupported("an initializer list outside an initialization"),
            ExprKind::StringLiteral(_) => self.unsupported("a string outside printf"),
            ExprKind::DeclCondition(d) => {
                let d = *d;
                self.local_declaration(d)?;
                let local = self.f.as_ref().and_then(|f| f.locals.get(&d).copied());
                match local {
                    Some(l) => Ok(Val::P(Place::Ptr { ptr: l.ptr, ty: l.ty, rule: None })),
                    None => self.unsupported("this condition declaration"),
                }
            }
            ExprKind::Error => self.unsupported("an erroneous expression"),
        }
    }

    /// The literal scalar of a literal scalar or vector type.
    fn literal_scalar(&self, ty: Ty) -> Option<(Scalar, u32)> {
        match self.data(ty) {
            TypeData::Scalar(s) if s.is_literal() => Some((*s, 1)),
            TypeData::Vector(s, n) if s.is_literal() => Some((*s, u32::from(*n))),
            _ => None,
        }
    }

    /// A binary or subscript operator sema resolved to a struct's `operator*`,
    /// `operator[]`, ...: a call of that method on the left operand.
    fn overloaded_operator(&mut self, e: ExprId) -> R<Option<Value>> {
        let Some(call) = self.tree.calls.get(&e).cloned() else { return Ok(None) };
        let spirvkit_hlsl::sema::tree::Callee::Function(f) = call.callee else { return Ok(None) };
        let (object, arg) = match &self.ast.expr(e).kind {
            ExprKind::Binary { lhs, rhs, .. } => (*lhs, *rhs),
            ExprKind::Index { base, index } => (*base, *index),
            _ => return Ok(None),
        };
        self.user_call(f, Some(object), &[arg], &call).map(Some)
    }

    /// The concrete type of a literal's type.
    pub fn concrete(&self, ty: Ty) -> Ty {
        match self.data(ty) {
            TypeData::Scalar(s) if s.is_literal() => self.scalar_ty(s.concrete()),
            TypeData::Vector(s, n) if s.is_literal() => self.vector_ty(s.concrete(), u32::from(*n)),
            _ => ty,
        }
    }

    /// Evaluates `e` for its effects only.
    pub fn discard_value(&mut self, e: ExprId) -> R<()> {
        match self.expr(e)? {
            Val::R(..) => Ok(()),
            Val::P(p) => {
                // Loading may be needed for effects only through texels; plain
                // places have none.
                let _ = p;
                Ok(())
            }
        }
    }

    fn name_expr(&mut self, e: ExprId, info: &spirvkit_hlsl::sema::tree::ExprInfo) -> R<Val> {
        match &info.resolution {
            Resolution::Decl(d) => self.decl_ref(*d),
            Resolution::EnumConstant(_) => {
                let c = info.constant.unwrap_or(ConstValue::Int(0));
                let t = self.ty(info.ty)?;
                Ok(Val::R(self.scalar_constant(c, t), info.ty))
            }
            Resolution::Field { decl, .. } => {
                // A member named inside a method: through `this`.
                let Some(this) = self.f.as_ref().and_then(|f| f.this) else {
                    return self.unsupported("a field outside a method");
                };
                let base = Place::Ptr { ptr: this.ptr, ty: this.ty, rule: None };
                self.field_place(base, *decl, info.ty)
            }
            _ => {
                // dxc's `vk::*Scope` constants (SPIR-V scope values).
                if let ExprKind::Name { name, .. } = &self.ast.expr(e).kind {
                    let text = self.ast.qualified_name_text(name);
                    let scope = match text.trim_start_matches("::") {
                        "vk::CrossDeviceScope" => Some(0),
                        "vk::DeviceScope" => Some(1),
                        "vk::WorkgroupScope" => Some(2),
                        "vk::SubgroupScope" => Some(3),
                        "vk::InvocationScope" => Some(4),
                        "vk::QueueFamilyScope" => Some(5),
                        "vk::ShaderCallScope" => Some(6),
                        _ => None,
                    };
                    if let Some(v) = scope {
                        return Ok(Val::R(self.u32_constant(v), TypeTable::UINT));
                    }
                }
                if let Some(c) = info.constant {
                    let concrete = self.concrete(info.ty);
                    let t = self.ty(concrete)?;
                    return Ok(Val::R(self.splat_constant(c, t), concrete));
                }
                let _ = e;
                self.unsupported("this name")
            }
        }
    }

    /// A variable by its declaration: a local, a parameter or a global.
    pub fn decl_ref(&mut self, d: spirvkit_hlsl::ast::DeclId) -> R<Val> {
        // A static data member is the variable its out-of-line definition declares.
        let d = self.tree.decl(d).and_then(|i| i.definition).unwrap_or(d);
        if self.stage.mesh_outputs.contains_key(&d) {
            // Only assignments reach a mesh output (straight to its stage variables).
            return self.unsupported(
                "reading a mesh shader output or passing it on (only assignments to its elements)",
            );
        }
        if let Some(l) = self.f.as_ref().and_then(|f| f.locals.get(&d).copied()) {
            return Ok(Val::P(Place::Ptr { ptr: l.ptr, ty: l.ty, rule: None }));
        }
        if let Some(g) = self.globals.get(&d).cloned() {
            let place = self.global_place(&g)?;
            // A ConstantBuffer/TextureBuffer view: dxc addresses each of its fields by
            // a chain of its own, which later indices chain from.
            let decl_ty = self.tree.decl(d).map_or(TypeTable::ERROR, |i| i.ty);
            if let (Place::Ptr { ptr, .. }, TypeData::Object { kind, .. }) = (&place, self.data(decl_ty)) {
                if matches!(kind.family(), Family::ConstantBuffer | Family::TextureBuffer) {
                    self.view_base(*ptr);
                }
            }
            return Ok(Val::P(place));
        }
        if let Some(v) = self.spec_constant_ref(d) {
            return Ok(v);
        }
        let info = self.tree.decl(d).cloned().unwrap_or_default();
        if let Some(c) = info.constant {
            if self.scalar_shape(info.ty).is_some() {
                let t = self.ty(info.ty)?;
                return Ok(Val::R(self.splat_constant(c, t), info.ty));
            }
        }
        let name = self.decl_name(d);
        self.unsupported(format!("a reference to '{name}' here"))
    }

    /// The place of a global variable.
    pub fn global_place(&mut self, g: &super::Global) -> R<Place> {
        match g.member_of {
            Some((buffer, index)) => {
                let Some(block) = self.globals.get(&buffer).cloned() else {
                    return self.unsupported("a member of an unknown buffer");
                };
                let base = self.addressof(&block.symbol, block.ptr_type);
                // A cbuffer member is its own chain; indices into it chain from it.
                self.view_base(base);
                let idx = self.i32_constant(index as i32);
                let member = self.ty_in(g.ty, g.rule)?;
                let ptr = self.access_chain(base, vec![idx], member);
                Ok(Place::Ptr { ptr, ty: g.ty, rule: g.rule })
            }
            None => {
                let ptr = self.addressof(&g.symbol, g.ptr_type);
                Ok(Place::Ptr { ptr, ty: g.ty, rule: g.rule })
            }
        }
    }

    fn member_expr(&mut self, e: ExprId, base: ExprId, info: &spirvkit_hlsl::sema::tree::ExprInfo) -> R<Val> {
        match &info.resolution {
            Resolution::Field { decl, .. } => {
                let base = self.expr(base)?;
                match base {
                    Val::P(p) => self.field_place(p, *decl, info.ty),
                    Val::R(v, bty) => {
                        let Some((path, bits)) = self.field_path(bty, *decl) else {
                            return self.unsupported("this member access");
                        };
                        // dxc reaches a member of a value through a temporary: stored,
                        // addressed by an access chain and loaded.
                        let bt = self.value_type_of(bty)?;
                        let name = self.temp_var_name(bty);
                        let tmp = self.function_variable(bt, &name);
                        self.store_to(tmp, v);
                        if bits.is_some() {
                            return self.field_place(
                                Place::Ptr { ptr: tmp, ty: bty, rule: None },
                                *decl,
                                info.ty,
                            );
                        }
                        let t = self.ty(info.ty)?;
                        let indices: Vec<Value> = path.iter().map(|&i| self.i32_constant(i as i32)).collect();
                        let p = self.access_chain(tmp, indices, t);
                        Ok(Val::R(self.load(p), info.ty))
                    }
                }
            }
            Resolution::Swizzle(components) => {
                let components: Vec<u32> = components.iter().map(|&c| u32::from(c)).collect();
                let base_ty = self.tree.converted_type(base);
                self.swizzle(base, base_ty, &components, info.ty)
            }
            Resolution::Decl(d) => self.decl_ref(*d),
            Resolution::EnumConstant(_) => self.name_expr(e, info),
            Resolution::BuiltinMember(m) => {
                let m = *m;
                if m == "Length" {
                    let bty = self.expr_ty(base);
                    if let TypeData::Array { len: Some(n), .. } = self.data(bty) {
                        let n = *n;
                        return Ok(Val::R(self.u32_constant(n), TypeTable::UINT));
                    }
                }
                self.unsupported(format!("the '{m}' member"))
            }
            _ => self.unsupported("this member access"),
        }
    }

    /// The IR member index path of field `decl` in struct `ty` (bases are the first
    /// members, merged bit-fields share one), and the field's bits when it is a
    /// bit-field.
    pub fn field_path(
        &self,
        ty: Ty,
        decl: spirvkit_hlsl::ast::DeclId,
    ) -> Option<(Vec<u32>, Option<BitField>)> {
        self.field_path_at(ty, decl, 0)
    }

    fn field_path_at(
        &self,
        ty: Ty,
        decl: spirvkit_hlsl::ast::DeclId,
        depth: u32,
    ) -> Option<(Vec<u32>, Option<BitField>)> {
        if depth > 32 {
            return None;
        }
        let TypeData::Struct(id) = self.data(ty) else { return None };
        let info = self.table.struct_info(*id)?;
        let bases = info.bases.len();
        let field = info.fields.iter().position(|f| f.decl == decl);
        if field.is_none() && !info.bases.iter().any(|&b| self.field_path_at(b, decl, depth + 1).is_some()) {
            return None;
        }
        let storage = crate::layout::struct_storage(self.table, *id, &self.lower.options()).ok()?;
        if let Some(i) = field {
            let slot = storage.slots.get(bases + i)?;
            return Some((vec![slot.member], slot.bit_field));
        }
        for (bi, &b) in info.bases.iter().enumerate() {
            if let Some((mut rest, bits)) = self.field_path_at(b, decl, depth + 1) {
                rest.insert(0, storage.slots.get(bi)?.member);
                return Some((rest, bits));
            }
        }
        None
    }

    pub fn field_place(&mut self, base: Place, decl: spirvkit_hlsl::ast::DeclId, field_ty: Ty) -> R<Val> {
        let Place::Ptr { ptr, ty, rule } = base else {
            return self.unsupported("a member of this kind of place");
        };
        let Some((path, bits)) = self.field_path(ty, decl) else {
            // A static member: a global.
            return self.decl_ref(decl);
        };
        let member = self.ty_in(field_ty, rule)?;
        let indices: Vec<Value> = path.iter().map(|&i| self.i32_constant(i as i32)).collect();
        let p = self.element_chain(ptr, indices, member);
        Ok(Val::P(match bits {
            Some(bits) => Place::BitField { ptr: p, ty: field_ty, rule, bits },
            None => Place::Ptr { ptr: p, ty: field_ty, rule },
        }))
    }

    /// A bit-field's value, read through `ptr` to its member.
    fn read_bit_field(&mut self, ptr: Value, ty: Ty, rule: Option<LayoutRule>, bits: BitField) -> R<Value> {
        let raw = self.load(ptr);
        self.extract_bits(raw, ty, rule, bits)
    }

    /// The bits of a bit-field out of its member's value: dxc extracts 32-bit ones with
    /// `OpBitField[SU]Extract`, others (which Vulkan's bit-field instructions do not
    /// take) by shifting the field to the top and back down.
    pub fn extract_bits(&mut self, raw: Value, ty: Ty, rule: Option<LayoutRule>, bits: BitField) -> R<Value> {
        let Some((scalar, _)) = self.scalar_shape(ty) else { return self.unsupported("this bit-field") };
        let t = self.ty_in(ty, rule)?;
        let width = self.int_width(t);
        if width == 32 {
            let offset = self.u32_constant(bits.offset);
            let count = self.u32_constant(bits.width);
            let op = if scalar.is_signed() { "spirv.BitFieldSExtract" } else { "spirv.BitFieldUExtract" };
            return Ok(self.val(op, vec![raw, offset, count], t));
        }
        let up = self.u32_constant(width.saturating_sub(bits.offset + bits.width));
        let down = self.u32_constant(width.saturating_sub(bits.width));
        let top = self.val("spirv.ShiftLeftLogical", vec![raw, up], t);
        let op = if scalar.is_signed() { "spirv.ShiftRightArithmetic" } else { "spirv.ShiftRightLogical" };
        Ok(self.val(op, vec![top, down], t))
    }

    /// Writes a bit-field through `ptr` to its member (read, insert, write back).
    fn write_bit_field(
        &mut self,
        ptr: Value,
        ty: Ty,
        rule: Option<LayoutRule>,
        bits: BitField,
        v: Value,
    ) -> R<()> {
        let old = self.load(ptr);
        let new = self.insert_bits(old, v, ty, rule, bits)?;
        self.store_to(ptr, new);
        Ok(())
    }

    /// `old` with a bit-field's bits replaced by `v`'s low bits: `OpBitFieldInsert` at
    /// 32 bits, masks and shifts otherwise (as dxc).
    pub fn insert_bits(
        &mut self,
        old: Value,
        v: Value,
        ty: Ty,
        rule: Option<LayoutRule>,
        bits: BitField,
    ) -> R<Value> {
        let t = self.ty_in(ty, rule)?;
        let width = self.int_width(t);
        if width == 32 {
            let offset = self.u32_constant(bits.offset);
            let count = self.u32_constant(bits.width);
            return Ok(self.val("spirv.BitFieldInsert", vec![old, v, offset, count], t));
        }
        let field_mask = if bits.width >= 64 { u64::MAX } else { (1u64 << bits.width) - 1 };
        let mask = field_mask.checked_shl(bits.offset).unwrap_or(0);
        // The masks are constants of the member's own type: the IR's bitwise ops take
        // one type for operands and result (dxc writes unsigned masks for signed
        // members too).
        let keep = self.scalar_constant(ConstValue::Int(!mask as i64), t);
        let place = self.scalar_constant(ConstValue::Int(mask as i64), t);
        let kept = self.val("spirv.BitwiseAnd", vec![old, keep], t);
        let value = self.val("spirv.Bitcast", vec![v], t);
        let offset = self.u32_constant(bits.offset);
        let shifted = self.val("spirv.ShiftLeftLogical", vec![value, offset], t);
        let placed = self.val("spirv.BitwiseAnd", vec![shifted, place], t);
        Ok(self.val("spirv.BitwiseOr", vec![kept, placed], t))
    }

    /// The HLSL members of struct `id`: its bases, then its fields.
    pub(super) fn hlsl_members(&self, id: spirvkit_hlsl::sema::types::StructId) -> R<Vec<Ty>> {
        match self.table.struct_info(id) {
            Some(info) => Ok(info.bases.iter().copied().chain(info.fields.iter().map(|f| f.ty)).collect()),
            None => self.unsupported("this struct"),
        }
    }

    /// The width of an integer IR type (32 for anything else).
    fn int_width(&self, t: spirvkit_ir::types::Type) -> u32 {
        match self.lower.store().kind(t) {
            spirvkit_ir::types::TypeKind::Integer { width, .. } => *width,
            _ => 32,
        }
    }

    fn swizzle(&mut self, base: ExprId, base_ty: Ty, components: &[u32], ty: Ty) -> R<Val> {
        if let TypeData::Matrix { elem, rows, cols, .. } = self.data(base_ty).clone() {
            if u32::from(rows) * u32::from(cols) > 1 {
                return self.matrix_swizzle(base, components, ty, (elem, rows.into(), cols.into()));
            }
            if components.len() > 1 {
                // `m._11_11` of a 1x1 matrix: its one element read (or written) once
                // per component, as dxc does for every matrix swizzle.
                if self.tree.expr(base).and_then(|i| i.conversion).is_none() {
                    let v = match self.expr(base)? {
                        Val::P(Place::Ptr { ptr, rule, .. }) => {
                            let paths = vec![Vec::new(); components.len()];
                            let elem = self.scalar_ty(elem.concrete());
                            return Ok(Val::P(Place::MatrixElements { ptr, rule, paths, elem, ty }));
                        }
                        Val::P(p) => self.load_place(&p)?,
                        Val::R(v, _) => v,
                    };
                    return Ok(Val::R(self.select_components(v, base_ty, components, ty)?, ty));
                }
            }
        }
        let (base, composed, load_base) = self.condensed_swizzle(base, components);
        let base_ty = self.tree.converted_type(base);
        let components = composed.as_slice();
        if let TypeData::Vector(_, n) = self.data(base_ty) {
            let n = u32::from(*n);
            if n > 1
                && components.len() as u32 == n
                && components.iter().enumerate().all(|(i, &c)| c == i as u32)
            {
                // `v.xyzw`: every component in order is the vector itself (dxc emits
                // no shuffle, and writes the whole vector).
                let base_conv =
                    self.tree.expr(base).and_then(|i| i.conversion).filter(|c| c.to != self.expr_ty(base));
                return match (base_conv, self.expr(base)?) {
                    (None, Val::P(p)) if !load_base => Ok(Val::P(p)),
                    (conv, other) => Ok(Val::R(self.converted_value(other, base, conv)?, ty)),
                };
            }
        }
        let base_val = match self.expr(base)? {
            Val::P(p) if load_base => {
                let t = p.ty();
                Val::R(self.load_place(&p)?, t)
            }
            v => v,
        };
        let base_conv = self.tree.expr(base).and_then(|i| i.conversion);
        match base_val {
            Val::P(Place::Ptr { ptr, ty: vty, rule })
                if base_conv.is_none()
                    && components.len() == 1
                    && self.scalar_shape(vty).is_some_and(|(_, n)| n > 1) =>
            {
                // One component of a vector in memory: a pointer to it, by an access
                // chain of its own (dxc does not fold a swizzle into its base's chain).
                let t = self.ty_in(ty, rule)?;
                let i = self.i32_constant(components[0] as i32);
                let p = self.access_chain(ptr, vec![i], t);
                Ok(Val::P(Place::Ptr { ptr: p, ty, rule }))
            }
            Val::P(Place::Ptr { ptr, ty: vty, rule })
                if base_conv.is_none() && self.scalar_shape(vty).is_some() =>
            {
                Ok(Val::P(Place::Components { ptr, vector: vty, rule, components: components.to_vec(), ty }))
            }
            // `.r`/`.x` of a scalar texel stays the texel (an atomic's destination).
            Val::P(Place::Texel { image, coord, ty: texel_ty, object })
                if base_conv.is_none()
                    && components == [0]
                    && self.scalar_shape(texel_ty).is_some_and(|(_, n)| n == 1) =>
            {
                Ok(Val::P(Place::Texel { image, coord, ty, object }))
            }
            Val::P(Place::Texel { image, coord, ty: texel, object }) if base_conv.is_none() => {
                Ok(Val::P(Place::TexelComponents {
                    image,
                    coord,
                    texel,
                    object,
                    components: components.to_vec(),
                    ty,
                }))
            }
            // A swizzle repeating a component reads its swizzled base as a value
            // (clang loads it there), so dxc shuffles twice: `v.yx.yxy`.
            Val::P(Place::Components { ptr, vector, rule, components: inner, .. })
                if base_conv.is_none() && !has_duplicates(components) =>
            {
                let composed: Vec<u32> =
                    components.iter().map(|&c| inner.get(c as usize).copied().unwrap_or(0)).collect();
                Ok(Val::P(Place::Components { ptr, vector, rule, components: composed, ty }))
            }
            other => {
                let v = self.converted_value(other, base, base_conv)?;
                Ok(Val::R(self.select_components(v, base_ty, components, ty)?, ty))
            }
        }
    }

    /// dxc condenses a chain of swizzles (`v.wzyx.xy`) into one over the vector
    /// under it, except where clang reads a swizzled lvalue as a value: the first
    /// swizzle repeating a component (`v.gr.yxy`) takes its base loaded. Returns the
    /// chain's base expression, the composed components over it, and whether that
    /// base is read as a value.
    fn condensed_swizzle(&self, base: ExprId, components: &[u32]) -> (ExprId, Vec<u32>, bool) {
        // The levels from the outermost in: each one's components and base.
        let mut levels: Vec<(Vec<u32>, ExprId)> = vec![(components.to_vec(), base)];
        let mut cur = base;
        for _ in 0..64 {
            let mut e = cur;
            while let ExprKind::Paren(inner) = &self.ast.expr(e).kind {
                e = *inner;
            }
            let Some(info) = self.tree.expr(e) else { break };
            let (ExprKind::Member { base: inner, .. }, Resolution::Swizzle(comps)) =
                (&self.ast.expr(e).kind, &info.resolution)
            else {
                break;
            };
            if info.conversion.is_some_and(|c| c.to != info.ty)
                || self.tree.expr(cur).and_then(|i| i.conversion).is_some_and(|c| c.to != info.ty)
            {
                break;
            }
            let inner = *inner;
            let inner_ty = self.tree.converted_type(inner);
            if !matches!(self.data(inner_ty), TypeData::Vector(..) | TypeData::Scalar(_)) {
                break;
            }
            levels.push((comps.iter().map(|&c| u32::from(c)).collect(), inner));
            cur = inner;
        }
        // Innermost first: the first repeating swizzle over an lvalue cuts the chain.
        levels.reverse();
        let root_is_lvalue = !self.is_rvalue_expr(levels[0].1);
        let cut = if root_is_lvalue { levels.iter().position(|(c, _)| has_duplicates(c)) } else { None };
        let start = cut.unwrap_or(0);
        let root = levels[start].1;
        let mut composed: Vec<u32> = levels[start].0.clone();
        for (outer, _) in &levels[start + 1..] {
            composed = outer.iter().map(|&c| composed.get(c as usize).copied().unwrap_or(0)).collect();
        }
        (root, composed, cut.is_some())
    }

    /// `m._m01_m10`: of a matrix in memory, a place of its elements (one access chain
    /// each, as dxc); of a value, the elements extracted.
    fn matrix_swizzle(
        &mut self,
        base: ExprId,
        components: &[u32],
        ty: Ty,
        (elem, rows, cols): (Scalar, u32, u32),
    ) -> R<Val> {
        let base_conv = self.tree.expr(base).and_then(|i| i.conversion);
        let base_val = self.expr(base)?;
        if let (None, Val::P(Place::Ptr { ptr, rule, .. })) = (base_conv, &base_val) {
            let paths: Vec<Vec<u32>> = components
                .iter()
                .map(|&c| if rows > 1 && cols > 1 { vec![c / cols, c % cols] } else { vec![c] })
                .collect();
            let elem = self.scalar_ty(elem.concrete());
            if let [path] = paths.as_slice() {
                let t = self.ty_in(elem, *rule)?;
                let indices: Vec<Value> = path.iter().map(|&i| self.i32_constant(i as i32)).collect();
                let p = self.access_chain(*ptr, indices, t);
                return Ok(Val::P(Place::Ptr { ptr: p, ty, rule: *rule }));
            }
            return Ok(Val::P(Place::MatrixElements { ptr: *ptr, rule: *rule, paths, elem, ty }));
        }
        let v = match base_val {
            Val::R(v, _) => v,
            Val::P(p) => self.load_place(&p)?,
        };
        let v = match base_conv {
            Some(c) => {
                let from = self.expr_ty(base);
                self.convert(v, from, c.to)?
            }
            None => v,
        };
        // `._m01_m10`: row-major linear indices, one extract each (a 1xN or Nx1 matrix
        // is a vector: one index).
        let et = self.ty(self.scalar_ty(elem.concrete()))?;
        let parts: Vec<Value> = components
            .iter()
            .map(|&c| {
                let path = if rows == 1 || cols == 1 { vec![c] } else { vec![c / cols, c % cols] };
                self.extract(v, &path, et)
            })
            .collect();
        let t = self.ty(ty)?;
        let v = if parts.len() == 1 { parts[0] } else { self.construct(parts, t) };
        Ok(Val::R(v, ty))
    }

    /// Components of a vector (or scalar) value.
    pub fn select_components(&mut self, v: Value, from: Ty, components: &[u32], ty: Ty) -> R<Value> {
        let (_, n) = self.scalar_shape(from).unwrap_or((Scalar::Float, 1));
        let t = self.ty(ty)?;
        if n == 1 {
            if components.len() == 1 {
                return Ok(v);
            }
            // dxc constructs a swizzled scalar even when it is a constant.
            return Ok(self.composite(vec![v; components.len()], t));
        }
        if components.len() == 1 {
            return Ok(self.extract(v, &[components[0]], t));
        }
        Ok(self.shuffle(v, v, components, t))
    }

    /// An index's value as an integer (a float index is converted to uint, as dxc).
    pub fn index_value(&mut self, index: ExprId) -> R<Value> {
        let ity = self.tree.converted_type(index);
        // A literal index is a uint, as dxc makes it.
        if matches!(self.data(ity), TypeData::Scalar(Scalar::LiteralInt)) {
            if let Some(c) = self.tree.expr(index).and_then(|i| i.constant) {
                let t = self.u32_type();
                return Ok(self.scalar_constant(c, t));
            }
        }
        let v = self.rvalue(index)?;
        match self.scalar_shape(ity) {
            Some((s, 1)) if s.is_integer() => Ok(v),
            _ => self.convert(v, ity, TypeTable::UINT),
        }
    }

    fn index_expr(&mut self, base: ExprId, index: ExprId, ty: Ty) -> R<Val> {
        let base_ty = self.tree.converted_type(base);
        if let TypeData::Object { kind, .. } = self.data(base_ty) {
            let kind = *kind;
            return self.object_index(base, base_ty, kind, index, ty);
        }
        if let Some(v) = self.rvalue_matrix_element(base, index, ty)? {
            return Ok(v);
        }
        if self.is_rvalue_expr(base) && self.indexes_components(base_ty) {
            return self.rvalue_component(base, base_ty, index, ty);
        }
        let base_val = self.expr(base)?;
        let base_conv =
            self.tree.expr(base).and_then(|i| i.conversion).filter(|c| c.to != self.expr_ty(base));
        let constant = self.tree.expr(index).and_then(|i| i.constant).and_then(|c| c.as_int());
        match base_val {
            Val::P(place) if base_conv.is_none() => {
                // An index of a vector place (`v[0] = x`, `v[i]`) is a pointer to the
                // component, its index typed as written (a literal as uint), as dxc.
                if self.scalar_shape(base_ty).is_some_and(|(_, n)| n == 1)
                    || matches!(self.data(base_ty), TypeData::Matrix { rows: 1, .. })
                {
                    // Indexing a size-1 vector or the row of a 1xN matrix: the index
                    // is ignored (SPIR-V.rst).
                    return Ok(Val::P(place));
                }
                if let (TypeData::Matrix { rows: 1, .. }, Place::Ptr { ptr, rule, .. }) =
                    (self.data(self.concrete(base_ty)), &place)
                {
                    // A 1xN matrix is a vector: its one row is the whole of it.
                    return Ok(Val::P(Place::Ptr { ptr: *ptr, ty, rule: *rule }));
                }
                let Place::Ptr { mut ptr, rule, .. } = place else {
                    let v = self.load_place(&place)?;
                    let i = self.index_value(index)?;
                    let t = self.ty(ty)?;
                    return Ok(Val::R(self.val("spirv.VectorExtractDynamic", vec![v, i], t), ty));
                };
                if self.is_pointer_valued(self.concrete(base_ty)) && self.holds_pointer(ptr) {
                    // A parameter or local holding the pointer to an unsized array of
                    // resources: index the array it points to.
                    ptr = self.load(ptr);
                }
                // dxc indexes vectors and matrices through their `operator[](uint)`: a
                // literal index is a uint there, and the component folds into the
                // chain of the base; an array's element is a chain of its own.
                let vector_or_matrix =
                    matches!(self.data(base_ty), TypeData::Vector(..) | TypeData::Matrix { .. });
                let i = match constant {
                    Some(c) if vector_or_matrix => self.u32_constant(c.max(0) as u32),
                    _ => self.index_value(index)?,
                };
                let buffer_element = self.is_buffer_object(ty) && self.storage_class_of(ptr) != "Function";
                let element = if buffer_element {
                    // An element of an array of buffers: the block itself.
                    let TypeData::Object { kind, .. } = self.data(ty).clone() else { unreachable!() };
                    self.resource_block(ty, kind)?
                } else {
                    self.ty_in(ty, rule)?
                };
                let p = if vector_or_matrix {
                    self.element_chain(ptr, vec![i], element)
                } else {
                    self.access_chain(ptr, vec![i], element)
                };
                if buffer_element {
                    if let TypeData::Object { kind, .. } = self.data(ty).clone() {
                        if matches!(kind.family(), Family::ConstantBuffer | Family::TextureBuffer) {
                            // An element of an array of views is a view: it reads as its
                            // element type, each field a chain of its own over the
                            // element's (as a view global's).
                            self.view_base(p);
                            let bk = if kind.family() == Family::ConstantBuffer {
                                crate::layout::BufferKind::ConstantBuffer
                            } else {
                                crate::layout::BufferKind::TextureBuffer
                            };
                            let rule = LayoutRule::for_buffer(bk, self.options.layout);
                            let elem = self.object_element(ty);
                            return Ok(Val::P(Place::Ptr { ptr: p, ty: elem, rule: Some(rule) }));
                        }
                    }
                    // dxc indexes the buffer from the element's pointer, not the array.
                    self.chain_root(p);
                }
                Ok(Val::P(Place::Ptr { ptr: p, ty, rule }))
            }
            other => {
                let v = self.converted_value(other, base, base_conv)?;
                let t = self.ty(ty)?;
                if self.scalar_shape(base_ty).is_some_and(|(_, n)| n == 1) {
                    return Ok(Val::R(v, ty));
                }
                // An element of an array value goes through a temporary, as any index
                // into it (dxc's access chain on a stored copy).
                let array = matches!(self.data(base_ty), TypeData::Array { .. });
                if let Some(c) = constant.filter(|_| !array) {
                    return Ok(Val::R(self.extract(v, &[c.max(0) as u32], t), ty));
                }
                if matches!(self.data(base_ty), TypeData::Vector(..)) {
                    let i = self.index_value(index)?;
                    return Ok(Val::R(self.val("spirv.VectorExtractDynamic", vec![v, i], t), ty));
                }
                // A dynamic index into an array or matrix value: through a temporary.
                let bt = self.ty(base_ty)?;
                let name = self.temp_var_name(base_ty);
                let tmp = self.function_variable(bt, &name);
                self.store_to(tmp, v);
                let i = self.index_value(index)?;
                let p = self.access_chain(tmp, vec![i], t);
                if array {
                    // The element is read at once (dxc loads it where it makes the chain).
                    return Ok(Val::R(self.load(p), ty));
                }
                Ok(Val::P(Place::Ptr { ptr: p, ty, rule: None }))
            }
        }
    }

    /// dxc's name for a temporary holding a value of `ty`: `temp.var.` and clang's
    /// type name (`S`, `v4float`, `mat2v3float`, `RWBuffer`; empty for arrays).
    pub fn temp_var_name(&self, ty: Ty) -> String {
        let scalar_name = |s: Scalar| match s {
            Scalar::Bool => "bool",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Float => "float",
            Scalar::Double => "double",
            Scalar::Int64 => "int64",
            Scalar::UInt64 => "uint64",
            Scalar::Int16 => "short",
            Scalar::UInt16 => "ushort",
            Scalar::Half => "half",
            Scalar::Min12Int => "min12int",
            Scalar::Min16Int => "min16int",
            Scalar::Min16UInt => "min16uint",
            Scalar::Min16Float => "min16float",
            Scalar::Min10Float => "min10float",
            Scalar::LiteralInt | Scalar::LiteralFloat => "",
        };
        let name = match self.data(ty) {
            TypeData::Scalar(s) | TypeData::Vector(s, 1) => scalar_name(*s).to_string(),
            TypeData::Matrix { elem, rows: 1, cols: 1, .. } => scalar_name(*elem).to_string(),
            TypeData::Vector(s, n) => format!("v{n}{}", scalar_name(*s)),
            TypeData::Matrix { elem, rows, cols, .. } if *rows == 1 || *cols == 1 => {
                format!("v{}{}", u32::from(*rows) * u32::from(*cols), scalar_name(*elem))
            }
            TypeData::Matrix { elem, rows, cols, .. } => format!("mat{rows}v{cols}{}", scalar_name(*elem)),
            TypeData::Struct(id) => self.table.struct_info(*id).map_or_else(String::new, |s| s.name.clone()),
            TypeData::Object { .. } => {
                let shown = self.table.display(ty);
                shown.split('<').next().unwrap_or_default().trim().to_string()
            }
            _ => String::new(),
        };
        format!("temp.var.{name}")
    }

    /// Whether `e` computes a value rather than naming storage (an operation or a
    /// call, not a variable, member or element).
    fn is_rvalue_expr(&self, mut e: ExprId) -> bool {
        // Parentheses are looked through (bounded against hostile nesting).
        for _ in 0..256 {
            match &self.ast.expr(e).kind {
                ExprKind::Paren(inner) => e = *inner,
                // A field of a value is a value (dxc loads it from a temporary).
                ExprKind::Member { base, .. }
                    if matches!(self.tree.expr(e).map(|i| &i.resolution), Some(Resolution::Field { .. })) =>
                {
                    e = *base
                }
                // A read-only texture's or buffer's element is a fetched value.
                ExprKind::Index { base, .. }
                    if matches!(self.data(self.tree.converted_type(*base)), TypeData::Object { kind, .. }
                        if matches!(kind.family(), Family::Texture | Family::Buffer)) =>
                {
                    return true
                }
                // An element of an array value is a value.
                ExprKind::Index { base, .. }
                    if matches!(self.data(self.tree.converted_type(*base)), TypeData::Array { .. }) =>
                {
                    e = *base
                }
                ExprKind::Name { .. }
                | ExprKind::TypeMember { .. }
                | ExprKind::Member { .. }
                | ExprKind::Index { .. }
                | ExprKind::This
                | ExprKind::DeclCondition(_)
                | ExprKind::Assign { .. } => return false,
                _ => return true,
            }
        }
        false
    }

    /// Whether indexing a value of `ty` selects a component: a vector of two or more,
    /// or a matrix of two or more rows.
    fn indexes_components(&self, ty: Ty) -> bool {
        match self.data(ty) {
            TypeData::Vector(_, n) => *n > 1,
            TypeData::Matrix { rows, .. } => *rows > 1,
            _ => false,
        }
    }

    /// `(m + n)[r][c]` of a matrix value: dxc indexes it in one step, both indices
    /// evaluated first, then the matrix into a `temp.var.vector` variable, read by one
    /// access chain. None for other shapes.
    fn rvalue_matrix_element(&mut self, base: ExprId, index: ExprId, ty: Ty) -> R<Option<Val>> {
        let mut row_expr = base;
        while let ExprKind::Paren(inner) = &self.ast.expr(row_expr).kind {
            row_expr = *inner;
        }
        let ExprKind::Index { base: matrix, index: row } = self.ast.expr(row_expr).kind else {
            return Ok(None);
        };
        let matrix_ty = self.tree.converted_type(matrix);
        let Some((_, rows, cols)) = self.matrix_shape(matrix_ty) else { return Ok(None) };
        if rows < 2 || cols < 2 || !self.is_rvalue_expr(matrix) || self.tree.calls.contains_key(&row_expr) {
            return Ok(None);
        }
        let mut indices = Vec::with_capacity(2);
        for i in [row, index] {
            indices.push(match self.tree.expr(i).and_then(|info| info.constant).and_then(|c| c.as_int()) {
                Some(c) => self.u32_constant(c.max(0) as u32),
                None => self.index_value(i)?,
            });
        }
        let v = self.rvalue_as(matrix, matrix_ty)?;
        let mt = self.ty(matrix_ty)?;
        let tmp = self.function_variable(mt, "temp.var.vector");
        self.store_to(tmp, v);
        let t = self.ty(ty)?;
        let p = self.access_chain(tmp, indices, t);
        Ok(Some(Val::P(Place::Ptr { ptr: p, ty, rule: None })))
    }

    /// `(a + b)[i]`: dxc evaluates the index, then the value into a `temp.var.vector`
    /// variable, and reads the component through an access chain.
    fn rvalue_component(&mut self, base: ExprId, base_ty: Ty, index: ExprId, ty: Ty) -> R<Val> {
        let i = match self.tree.expr(index).and_then(|i| i.constant).and_then(|c| c.as_int()) {
            Some(c) => self.u32_constant(c.max(0) as u32),
            None => self.index_value(index)?,
        };
        let v = self.rvalue_as(base, base_ty)?;
        let bt = self.ty(base_ty)?;
        let tmp = self.function_variable(bt, "temp.var.vector");
        self.store_to(tmp, v);
        let t = self.ty(ty)?;
        let p = self.access_chain(tmp, vec![i], t);
        Ok(Val::P(Place::Ptr { ptr: p, ty, rule: None }))
    }

    // ---- loads and stores ------------------------------------------------------------

    /// The plain value at a place.
    pub fn load_place(&mut self, p: &Place) -> R<Value> {
        match p {
            Place::Ptr { ptr, ty, rule } => {
                if self.is_pointer_valued(*ty) && !self.holds_pointer(*ptr) {
                    // A buffer's value is the pointer to its block (an unsized array
                    // of resources', the pointer to the array).
                    return Ok(*ptr);
                }
                let v = self.load(*ptr);
                match rule {
                    Some(rule) => self.plain_of_laid_out(v, *ty, *rule),
                    None => Ok(v),
                }
            }
            Place::Components { ptr, vector, rule, components, ty } => {
                let whole = Place::Ptr { ptr: *ptr, ty: *vector, rule: *rule };
                if components.len() == 1 && self.scalar_shape(*vector).is_some_and(|(_, n)| n > 1) {
                    // One component: through an access chain, as dxc does.
                    let t = self.ty_in(*ty, *rule)?;
                    let i = self.i32_constant(components[0] as i32);
                    let cp = self.access_chain(*ptr, vec![i], t);
                    let v = self.load(cp);
                    return match rule {
                        Some(rule) => self.plain_of_laid_out(v, *ty, *rule),
                        None => Ok(v),
                    };
                }
                let v = self.load_place(&whole)?;
                self.select_components(v, *vector, components, *ty)
            }
            Place::Texel { image, coord, ty, object } => self.read_texel(*image, *coord, *ty, *object),
            Place::BitField { ptr, ty, rule, bits } => self.read_bit_field(*ptr, *ty, *rule, *bits),
            Place::TexelComponents { image, coord, texel, object, components, ty } => {
                let v = self.read_texel(*image, *coord, *texel, *object)?;
                self.select_components(v, *texel, components, *ty)
            }
            Place::MatrixElements { ptr, rule, paths, elem, ty } => {
                // The elements as stored, gathered, then converted once (a laid-out
                // bool matrix's `uint`s become one `uint` vector, as dxc).
                let t = self.ty_in(*elem, *rule)?;
                let mut parts = Vec::with_capacity(paths.len());
                for path in paths {
                    let p = if path.is_empty() {
                        *ptr
                    } else {
                        let indices: Vec<Value> = path.iter().map(|&i| self.i32_constant(i as i32)).collect();
                        self.access_chain(*ptr, indices, t)
                    };
                    parts.push(self.load(p));
                }
                let (v, vty) = if parts.len() == 1 {
                    (parts[0], *elem)
                } else {
                    let vt = self.ty_in(*ty, *rule)?;
                    (self.construct(parts, vt), *ty)
                };
                match rule {
                    Some(rule) => self.plain_of_laid_out(v, vty, *rule),
                    None => Ok(v),
                }
            }
        }
    }

    /// The value of `v`, the result of expression `e` (a place is loaded), converted by
    /// the conversion sema recorded on `e`, if any.
    fn converted_value(&mut self, v: Val, e: ExprId, conversion: Option<Conversion>) -> R<Value> {
        let v = match v {
            Val::R(v, _) => v,
            Val::P(p) => self.load_place(&p)?,
        };
        match conversion {
            Some(c) => {
                let from = self.expr_ty(e);
                self.convert(v, from, c.to)
            }
            None => Ok(v),
        }
    }

    /// Stores a plain value of the place's type.
    pub fn store_place(&mut self, p: &Place, v: Value) -> R<()> {
        match p {
            Place::Ptr { ptr, ty, rule } => {
                let v = match rule {
                    Some(rule) => self.laid_out_of_plain(v, *ty, *rule)?,
                    None => v,
                };
                self.store_to(*ptr, v);
                Ok(())
            }
            Place::Components { ptr, vector, rule, components, ty } => {
                let (_, n) = self.scalar_shape(*vector).unwrap_or((Scalar::Float, 1));
                if n == 1 {
                    let last = if components.len() == 1 {
                        v
                    } else {
                        let t = self.ty(*vector)?;
                        self.extract(v, &[components.len() as u32 - 1], t)
                    };
                    return self.store_place(&Place::Ptr { ptr: *ptr, ty: *vector, rule: *rule }, last);
                }
                if components.len() == 1 {
                    let t = self.ty_in(*ty, *rule)?;
                    let i = self.i32_constant(components[0] as i32);
                    let cp = self.access_chain(*ptr, vec![i], t);
                    return self.store_place(&Place::Ptr { ptr: cp, ty: *ty, rule: *rule }, v);
                }
                let whole = Place::Ptr { ptr: *ptr, ty: *vector, rule: *rule };
                let old = self.load_place(&whole)?;
                // Shuffle: component i of the result comes from the new value where
                // written, else from the old one.
                let mut selector: Vec<u32> = (0..n).collect();
                for (k, &c) in components.iter().enumerate() {
                    if let Some(slot) = selector.get_mut(c as usize) {
                        *slot = n + k as u32;
                    }
                }
                let vt = self.ty(*vector)?;
                let merged = self.shuffle(old, v, &selector, vt);
                self.store_place(&whole, merged)
            }
            Place::Texel { image, coord, ty, object } => self.write_texel(*image, *coord, v, *ty, *object),
            Place::BitField { ptr, ty, rule, bits } => self.write_bit_field(*ptr, *ty, *rule, *bits, v),
            Place::TexelComponents { image, coord, texel, object, components, .. } => {
                // dxc reads the texel, inserts the one component or shuffles in
                // several, and writes the texel back.
                let old = self.read_texel(*image, *coord, *texel, *object)?;
                let merged = self.merge_texel_components(old, v, *texel, components)?;
                self.write_texel(*image, *coord, merged, *texel, *object)
            }
            Place::MatrixElements { ptr, rule, paths, elem, .. } => {
                // Element by element, each extracted then stored through its own chain.
                let st = self.ty(*elem)?;
                let t = self.ty_in(*elem, *rule)?;
                for (k, path) in paths.iter().enumerate() {
                    let x = if paths.len() == 1 { v } else { self.extract(v, &[k as u32], st) };
                    let p = if path.is_empty() {
                        *ptr
                    } else {
                        let indices: Vec<Value> = path.iter().map(|&i| self.i32_constant(i as i32)).collect();
                        self.access_chain(*ptr, indices, t)
                    };
                    self.store_place(&Place::Ptr { ptr: p, ty: *elem, rule: *rule }, x)?;
                }
                Ok(())
            }
        }
    }

    /// A texel `old` with `components` replaced by those of `v`: one inserted, or
    /// several shuffled in (the last of repeated writes to a scalar texel wins).
    fn merge_texel_components(&mut self, old: Value, v: Value, texel: Ty, components: &[u32]) -> R<Value> {
        let vt = self.ty(texel)?;
        let (_, n) = self.scalar_shape(texel).unwrap_or((Scalar::Float, 1));
        Ok(match components {
            _ if n == 1 => self.extract(v, &[components.len().saturating_sub(1) as u32], vt),
            [c] => self.insert(v, old, &[*c]),
            _ => {
                let mut selector: Vec<u32> = (0..n).collect();
                for (k, &c) in components.iter().enumerate() {
                    if let Some(slot) = selector.get_mut(c as usize) {
                        *slot = n + k as u32;
                    }
                }
                self.shuffle(old, v, &selector, vt)
            }
        })
    }

    // ---- operators -----------------------------------------------------------------

    fn unary(&mut self, op: UnaryOp, operand: ExprId, ty: Ty) -> R<Val> {
        match op {
            UnaryOp::Plus => Ok(Val::R(self.rvalue(operand)?, ty)),
            UnaryOp::Minus => {
                let v = self.rvalue(operand)?;
                let oty = self.tree.converted_type(operand);
                Ok(Val::R(self.negate(v, oty)?, oty))
            }
            UnaryOp::Not => {
                let v = self.rvalue(operand)?;
                let oty = self.tree.converted_type(operand);
                let b = self.truth_value(v, oty)?;
                let t = self.ty(ty)?;
                Ok(Val::R(self.val("spirv.LogicalNot", vec![b], t), ty))
            }
            UnaryOp::BitNot => {
                let v = self.rvalue(operand)?;
                let t = self.ty(ty)?;
                Ok(Val::R(self.val("spirv.Not", vec![v], t), ty))
            }
            UnaryOp::PreInc | UnaryOp::PreDec | UnaryOp::PostInc | UnaryOp::PostDec => {
                let place = self.place(operand)?;
                let pty = place.ty();
                // The operand's load at the operand, the arithmetic at the operator.
                let old = self.at_expr(operand, |s| s.load_place(&place))?;
                let t = self.ty(pty)?;
                let one = if self.is_float_ty(pty) { ConstValue::Float(1.0) } else { ConstValue::Int(1) };
                let add = matches!(op, UnaryOp::PreInc | UnaryOp::PostInc);
                let bop = if add { BinaryOp::Add } else { BinaryOp::Sub };
                let new = if let Some((elem, rows, _)) = self.matrix_shape(pty) {
                    // Row by row with a constant row of ones, as dxc does.
                    let row_ty = self.store_row_type(t);
                    let one_row = self.splat_constant(one, row_ty);
                    let Some(name) = arith_op(bop, elem) else {
                        return self.unsupported(format!("'{}' on this matrix", op_spelling(op)));
                    };
                    let mut out = Vec::new();
                    for r in 0..rows {
                        let row = self.extract(old, &[r], row_ty);
                        out.push(self.val(name, vec![row, one_row], row_ty));
                    }
                    self.composite(out, t)
                } else {
                    let one = self.splat_constant(one, t);
                    self.arith(bop, old, one, pty)?
                };
                let place = self.refresh_texel(place, operand)?;
                self.store_place(&place, new)?;
                if matches!(place, Place::Texel { .. } | Place::TexelComponents { .. }) {
                    // A texel is no storage to read back: the value written.
                    Ok(Val::R(if matches!(op, UnaryOp::PreInc | UnaryOp::PreDec) { new } else { old }, pty))
                } else if matches!(op, UnaryOp::PreInc | UnaryOp::PreDec) {
                    Ok(Val::P(place))
                } else {
                    Ok(Val::R(old, pty))
                }
            }
        }
    }

    /// Whether `ty` is a buffer object (handled through the pointer to its block).
    pub fn is_buffer_object(&self, ty: Ty) -> bool {
        matches!(self.data(ty), TypeData::Object { kind, .. } if matches!(kind.family(),
            Family::StructuredBuffer | Family::RWStructuredBuffer | Family::AppendBuffer | Family::ConsumeBuffer
            | Family::ByteAddressBuffer | Family::RWByteAddressBuffer | Family::ConstantBuffer | Family::TextureBuffer))
    }

    pub fn is_float_ty(&self, ty: Ty) -> bool {
        self.table.component(ty).is_some_and(|s| s.is_float())
    }

    pub fn negate(&mut self, v: Value, ty: Ty) -> R<Value> {
        let t = self.ty(ty)?;
        if let Some((elem, rows, _)) = self.matrix_shape(ty) {
            let row_ty = self.store_row_type(t);
            let mut rows_v = Vec::new();
            for r in 0..rows {
                let row = self.extract(v, &[r], row_ty);
                let name = if elem.is_float() { "spirv.FNegate" } else { "spirv.SNegate" };
                rows_v.push(self.val(name, vec![row], row_ty));
            }
            return Ok(self.construct(rows_v, t));
        }
        let name = if self.is_float_ty(ty) { "spirv.FNegate" } else { "spirv.SNegate" };
        Ok(self.val(name, vec![v], t))
    }

    /// The row vector type of a matrix or array-of-vectors type.
    pub fn store_row_type(&self, t: spirvkit_ir::types::Type) -> spirvkit_ir::types::Type {
        match self.lower.store().kind(t) {
            spirvkit_ir::types::TypeKind::Matrix { column, .. } => *column,
            spirvkit_ir::types::TypeKind::Array { element, .. } => *element,
            _ => t,
        }
    }

    fn binary(&mut self, op: BinaryOp, lhs: ExprId, rhs: ExprId, ty: Ty) -> R<Value> {
        if matches!(op, BinaryOp::LogicalAnd | BinaryOp::LogicalOr) {
            return self.logical(op, lhs, rhs, ty);
        }
        // `float * floatN`: OpVectorTimesScalar, as dxc, when one side is a splat scalar.
        if op == BinaryOp::Mul && self.is_float_ty(ty) && matches!(self.data(ty), TypeData::Vector(..)) {
            for (vec_side, scalar_side) in [(lhs, rhs), (rhs, lhs)] {
                let splat = self
                    .tree
                    .expr(scalar_side)
                    .and_then(|i| i.conversion)
                    .is_some_and(|c| c.kind == CastKind::Splat);
                let scalar_ty = self.expr_ty(scalar_side);
                if splat
                    && self.scalar_shape(scalar_ty).is_some_and(|(s, n)| n == 1 && s.is_float())
                    && self.tree.converted_type(vec_side) == ty
                {
                    // dxc evaluates the vector operand first, on either side.
                    let v = self.rvalue(vec_side)?;
                    let s = self.scalar_operand(scalar_side, ty)?;
                    let t = self.ty(ty)?;
                    return Ok(self.val("spirv.VectorTimesScalar", vec![v, s], t));
                }
            }
        }
        if op == BinaryOp::Mul && self.is_float_ty(ty) && self.matrix_shape(ty).is_some() {
            for (mat_side, scalar_side) in [(lhs, rhs), (rhs, lhs)] {
                let splat = self
                    .tree
                    .expr(scalar_side)
                    .and_then(|i| i.conversion)
                    .is_some_and(|c| c.kind == CastKind::Splat);
                if splat && self.tree.converted_type(mat_side) == ty {
                    // The matrix operand first, on either side (as dxc).
                    let m = self.rvalue(mat_side)?;
                    let s = self.scalar_operand(scalar_side, ty)?;
                    let t = self.ty(ty)?;
                    return Ok(self.val("spirv.MatrixTimesScalar", vec![m, s], t));
                }
            }
        }
        let a = self.rvalue(lhs)?;
        let b = self.rvalue(rhs)?;
        let operand_ty = self.tree.converted_type(lhs);
        let rhs_ty = self.tree.converted_type(rhs);
        match op {
            BinaryOp::Lt | BinaryOp::Gt | BinaryOp::Le | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne => {
                self.compare(op, a, b, operand_ty, ty)
            }
            BinaryOp::Shl | BinaryOp::Shr => self.shift(op, a, b, operand_ty, rhs_ty),
            _ => self.arith(op, a, b, operand_ty),
        }
    }

    /// The scalar before a splat conversion, converted to the component of `vec_ty`.
    fn scalar_operand(&mut self, e: ExprId, vec_ty: Ty) -> R<Value> {
        let from = self.expr_ty(e);
        let v = self.expr_value(e)?;
        let (s, _) = self
            .scalar_shape(vec_ty)
            .or_else(|| self.matrix_shape(vec_ty).map(|(s, _, _)| (s, 1)))
            .unwrap_or((Scalar::Float, 1));
        let to = self.scalar_ty(s);
        if from == to {
            return Ok(v);
        }
        self.convert(v, from, to)
    }

    /// `+ - * / % & | ^` on values of type `ty`.
    pub fn arith(&mut self, op: BinaryOp, a: Value, b: Value, ty: Ty) -> R<Value> {
        let t = self.ty(ty)?;
        if let Some((elem, rows, _)) = self.matrix_shape(ty) {
            let row_ty = self.store_row_type(t);
            let name = arith_op(op, elem)
                .ok_or(())
                .or_else(|_| self.unsupported(format!("operator '{}' on matrices", op.spelling())))?;
            let mut out = Vec::new();
            for r in 0..rows {
                let x = self.extract(a, &[r], row_ty);
                let y = self.extract(b, &[r], row_ty);
                out.push(self.val(name, vec![x, y], row_ty));
            }
            return Ok(self.construct(out, t));
        }
        let elem = self.table.component(ty).map(Scalar::concrete).unwrap_or(Scalar::Int);
        if elem == Scalar::Bool {
            let name = match op {
                BinaryOp::BitAnd => "spirv.LogicalAnd",
                BinaryOp::BitOr => "spirv.LogicalOr",
                BinaryOp::BitXor => "spirv.LogicalNotEqual",
                _ => return self.unsupported(format!("operator '{}' on bool", op.spelling())),
            };
            return Ok(self.val(name, vec![a, b], t));
        }
        let Some(name) = arith_op(op, elem) else {
            return self.unsupported(format!("operator '{}' on {}", op.spelling(), elem.name()));
        };
        Ok(self.val(name, vec![a, b], t))
    }

    fn shift(&mut self, op: BinaryOp, a: Value, b: Value, ty: Ty, rhs_ty: Ty) -> R<Value> {
        let t = self.ty(ty)?;
        let elem = self.table.component(ty).map(Scalar::concrete).unwrap_or(Scalar::Int);
        // HLSL masks the shift amount to the bit width (dxc: OpBitwiseAnd with width-1).
        let bits = elem.bits(self.options.lower.sixteen_bit_types);
        let rt = self.ty(rhs_ty)?;
        let mask = self.splat_constant(ConstValue::Int(i64::from(bits) - 1), rt);
        let amount = self.val("spirv.BitwiseAnd", vec![b, mask], rt);
        let name = match op {
            BinaryOp::Shl => "spirv.ShiftLeftLogical",
            _ if elem.is_signed() => "spirv.ShiftRightArithmetic",
            _ => "spirv.ShiftRightLogical",
        };
        Ok(self.val(name, vec![a, amount], t))
    }

    fn compare(&mut self, op: BinaryOp, a: Value, b: Value, operand_ty: Ty, ty: Ty) -> R<Value> {
        let t = self.ty(ty)?;
        let elem = self.table.component(operand_ty).map(Scalar::concrete).unwrap_or(Scalar::Int);
        if self.matrix_shape(operand_ty).is_some() {
            return self.unsupported("comparison of matrices");
        }
        let name = if elem == Scalar::Bool {
            match op {
                BinaryOp::Eq => "spirv.LogicalEqual",
                BinaryOp::Ne => "spirv.LogicalNotEqual",
                _ => return self.unsupported("ordering comparison of bools"),
            }
        } else if elem.is_float() {
            match op {
                BinaryOp::Lt => "spirv.FOrdLessThan",
                BinaryOp::Gt => "spirv.FOrdGreaterThan",
                BinaryOp::Le => "spirv.FOrdLessThanEqual",
                BinaryOp::Ge => "spirv.FOrdGreaterThanEqual",
                BinaryOp::Eq => "spirv.FOrdEqual",
                _ => "spirv.FOrdNotEqual",
            }
        } else if elem.is_signed() {
            match op {
                BinaryOp::Lt => "spirv.SLessThan",
                BinaryOp::Gt => "spirv.SGreaterThan",
                BinaryOp::Le => "spirv.SLessThanEqual",
                BinaryOp::Ge => "spirv.SGreaterThanEqual",
                BinaryOp::Eq => "spirv.IEqual",
                _ => "spirv.INotEqual",
            }
        } else {
            match op {
                BinaryOp::Lt => "spirv.ULessThan",
                BinaryOp::Gt => "spirv.UGreaterThan",
                BinaryOp::Le => "spirv.ULessThanEqual",
                BinaryOp::Ge => "spirv.UGreaterThanEqual",
                BinaryOp::Eq => "spirv.IEqual",
                _ => "spirv.INotEqual",
            }
        };
        Ok(self.val(name, vec![a, b], t))
    }

    /// `&&`/`||`: short-circuit on scalars from HLSL 2021 (dxc: a bool temporary set
    /// to the left side's deciding value, the right side evaluated only when needed);
    /// component-wise, both sides evaluated, before 2021 and on vectors.
    fn logical(&mut self, op: BinaryOp, lhs: ExprId, rhs: ExprId, ty: Ty) -> R<Value> {
        let t = self.ty(ty)?;
        let scalar = self.scalar_shape(ty).is_some_and(|(_, n)| n == 1);
        if scalar && self.options.short_circuit {
            let and = op == BinaryOp::LogicalAnd;
            let tmp = self.function_variable(t, "temp.var.logical");
            let a = self.rvalue(lhs)?;
            let lty = self.tree.converted_type(lhs);
            let a = self.truth_value(a, lty)?;
            let decided = self.bool_constant(!and);
            self.store_to(tmp, decided);
            let cond = if and { a } else { self.val("spirv.LogicalNot", vec![a], t) };
            let rhs_block = self.new_block("logical.lhs.cond");
            let merge = self.new_block("logical.merge");
            self.selection_header(merge, 0);
            self.branch_conditional(cond, rhs_block, merge);
            self.start_block(rhs_block);
            let b = self.rvalue(rhs)?;
            let rty = self.tree.converted_type(rhs);
            let b = self.truth_value(b, rty)?;
            self.store_to(tmp, b);
            self.branch(merge);
            self.start_block(merge);
            return Ok(self.load(tmp));
        }
        let a = self.rvalue(lhs)?;
        let lty = self.tree.converted_type(lhs);
        let a = self.truth_value(a, lty)?;
        let b = self.rvalue(rhs)?;
        let rty = self.tree.converted_type(rhs);
        let b = self.truth_value(b, rty)?;
        let name = if op == BinaryOp::LogicalAnd { "spirv.LogicalAnd" } else { "spirv.LogicalOr" };
        Ok(self.val(name, vec![a, b], t))
    }

    /// Whether evaluating `e` branches: a short-circuiting `&&`, `||` or `?:` (HLSL
    /// 2021) not folded to a constant. A loop whose condition branches gets a separate
    /// header block, as dxc builds it.
    pub fn condition_branches(&self, e: ExprId) -> bool {
        if !self.options.short_circuit {
            return false;
        }
        self.branches_at(e, 0)
    }

    fn branches_at(&self, e: ExprId, depth: u32) -> bool {
        if depth > 256 {
            return false;
        }
        let info = self.tree.expr(e);
        if info.is_some_and(|i| i.constant.is_some()) && !self.has_side_effects(e) {
            return false;
        }
        let scalar = |ty: Ty| self.scalar_shape(ty).is_some_and(|(_, n)| n == 1);
        match &self.ast.expr(e).kind {
            ExprKind::Binary { op: BinaryOp::LogicalAnd | BinaryOp::LogicalOr, .. }
                if info.is_some_and(|i| scalar(i.ty)) =>
            {
                true
            }
            ExprKind::Conditional { condition, .. } if scalar(self.tree.converted_type(*condition)) => true,
            kind => {
                spirvkit_hlsl::ast::expr_children(kind).into_iter().any(|c| self.branches_at(c, depth + 1))
            }
        }
    }

    /// `c ? a : b`. From HLSL 2021 a scalar condition short-circuits: only the chosen
    /// side is evaluated, into a temporary (`ternary.lhs`/`ternary.rhs`). Before 2021
    /// (and with a vector condition) both sides are evaluated first; scalars and
    /// vectors are then selected, other types stored to the temporary by an if/else.
    fn conditional(&mut self, c: ExprId, a: ExprId, b: ExprId, ty: Ty, target: Ty) -> R<Value> {
        let cty = self.tree.converted_type(c);
        let scalar_condition = self.scalar_shape(cty).is_some_and(|(_, n)| n == 1);
        // A literal result takes its width from where it goes (dxc's literal typing):
        // `uint64_t v = c ? 1 : 0` selects 64-bit integers.
        let ty = self.literal_result_type(ty, target);
        let t = self.value_type_of(ty)?;
        if scalar_condition && self.options.short_circuit {
            let tmp = self.function_variable(t, "temp.var.ternary");
            let cond = self.rvalue(c)?;
            let cond = self.truth_value(cond, cty)?;
            let then_block = self.new_block("ternary.lhs");
            let else_block = self.new_block("ternary.rhs");
            let merge = self.new_block("ternary.merge");
            self.selection_header(merge, 0);
            self.branch_conditional(cond, then_block, else_block);
            self.start_block(then_block);
            let x = self.rvalue_as(a, ty)?;
            self.store_to(tmp, x);
            self.branch(merge);
            self.start_block(else_block);
            let y = self.rvalue_as(b, ty)?;
            self.store_to(tmp, y);
            self.branch(merge);
            self.start_block(merge);
            return Ok(self.load(tmp));
        }
        let cond = self.rvalue(c)?;
        let cond = self.truth_value(cond, cty)?;
        let x = self.rvalue_as(a, ty)?;
        let y = self.rvalue_as(b, ty)?;
        if self.scalar_shape(ty).is_none() {
            let tmp = self.function_variable(t, "temp.var.ternary");
            let then_block = self.new_block("if.true");
            let else_block = self.new_block("if.false");
            let merge = self.new_block("if.merge");
            self.selection_header(merge, 0);
            self.branch_conditional(cond, then_block, else_block);
            self.start_block(then_block);
            self.store_to(tmp, x);
            self.branch(merge);
            self.start_block(else_block);
            self.store_to(tmp, y);
            self.branch(merge);
            self.start_block(merge);
            return Ok(self.load(tmp));
        }
        // A scalar condition selecting vectors is splat (SPIR-V 1.4 allows scalar).
        let cond = match (self.scalar_shape(ty), self.scalar_shape(cty)) {
            (Some((_, n)), Some((_, 1))) if n > 1 => {
                let bt = self.bool_type();
                let bv = self.vec_type(bt, n);
                self.construct(vec![cond; n as usize], bv)
            }
            _ => cond,
        };
        Ok(self.val("spirv.Select", vec![cond, x, y], t))
    }

    /// The type a literal-typed result takes where it is converted to `target`: a
    /// 64-bit integer (signed) for a 64-bit integer target, a double for a double one;
    /// else the literal's default concrete type.
    fn literal_result_type(&self, ty: Ty, target: Ty) -> Ty {
        let (s, n) = match self.data(ty) {
            TypeData::Scalar(s) => (*s, 1),
            TypeData::Vector(s, n) => (*s, u32::from(*n)),
            _ => return ty,
        };
        let target_scalar = self.scalar_shape(target).map(|(t, _)| t);
        match (s, target_scalar) {
            (Scalar::LiteralInt, Some(Scalar::Int64 | Scalar::UInt64)) => self.vector_ty(Scalar::Int64, n),
            (Scalar::LiteralFloat, Some(Scalar::Double)) => self.vector_ty(Scalar::Double, n),
            _ => self.concrete(ty),
        }
    }

    fn assign(&mut self, op: Option<BinaryOp>, lhs: ExprId, rhs: ExprId) -> R<Val> {
        if let Some(assigned) = self.mesh_output_assign(op, lhs, rhs)? {
            return Ok(assigned);
        }
        let lty = self.expr_ty(lhs);
        match op {
            None => {
                let init_list = matches!(self.ast.expr(rhs).kind, ExprKind::InitList(_));
                let v = if init_list { self.init_value(rhs, lty)? } else { self.rvalue_as(rhs, lty)? };
                let place = self.place(lhs)?;
                // dxc: the store of `a = b` at the assignment's start.
                if self.has_lines() {
                    self.locate_at_start(self.ast.expr(lhs).span);
                }
                if let Place::TexelComponents { image, coord, texel, object, components, .. } = &place {
                    // The texel is read, merged, and written with its coordinate
                    // evaluated anew (dxc evaluates the texel expression for each).
                    let old = self.read_texel(*image, *coord, *texel, *object)?;
                    let merged = self.merge_texel_components(old, v, *texel, components)?;
                    let (texel, object) = (*texel, *object);
                    if let Place::TexelComponents { image, coord, .. } = self.refresh_texel(place, lhs)? {
                        self.write_texel(image, coord, merged, texel, object)?;
                    }
                    return Ok(Val::R(v, lty));
                }
                self.store_place(&place, v)?;
                // dxc: a plain assignment's value is the stored value (`a = b = c`
                // stores `c` twice), a compound assignment's is its left side.
                if self.is_pointer_valued(self.concrete(lty)) {
                    return Ok(Val::P(place));
                }
                Ok(Val::R(v, lty))
            }
            Some(op) => {
                // The operation's type is the rhs's converted type (sema converts both
                // sides to the common type; the result converts back to the lhs's).
                let op_ty = self.tree.converted_type(rhs);
                // dxc evaluates the right-hand side first.
                let r = self.rvalue(rhs)?;
                let place = self.place(lhs)?;
                if let Some(new) = self.vector_op_assign_scalar(op, &place, r, lty, op_ty)? {
                    let place = self.refresh_texel(place, lhs)?;
                    self.store_place(&place, new)?;
                    return Ok(Self::assigned(place, new, lty));
                }
                let old = self.at_expr(lhs, |s| s.load_place(&place))?;
                let old = if op_ty != lty && !matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
                    self.convert(old, lty, op_ty)?
                } else {
                    old
                };
                let new = match op {
                    BinaryOp::Shl | BinaryOp::Shr => self.shift(op, old, r, lty, op_ty)?,
                    BinaryOp::Mul
                        if self.matrix_shape(op_ty).is_some()
                            && self.scalar_shape(self.expr_ty(rhs)).is_some() =>
                    {
                        self.arith(op, old, r, op_ty)?
                    }
                    _ => self.arith(op, old, r, op_ty)?,
                };
                let new = if op_ty != lty && !matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
                    self.convert(new, op_ty, lty)?
                } else {
                    new
                };
                let place = self.refresh_texel(place, lhs)?;
                self.store_place(&place, new)?;
                Ok(Self::assigned(place, new, lty))
            }
        }
    }

    /// A compound assignment's result: its left side, or the value written to a texel.
    fn assigned(place: Place, new: Value, ty: Ty) -> Val {
        match place {
            Place::Texel { .. } | Place::TexelComponents { .. } => Val::R(new, ty),
            place => Val::P(place),
        }
    }

    /// A texel read for a read-modify-write (`++rw[i]`, `rw[i] += x`) is written with
    /// its coordinate evaluated again, as dxc evaluates the destination anew for the
    /// write; a coordinate with side effects is kept (evaluated once).
    fn refresh_texel(&mut self, place: Place, target: ExprId) -> R<Place> {
        if !matches!(place, Place::Texel { .. } | Place::TexelComponents { .. }) {
            return Ok(place);
        }
        let mut e = target;
        let mut index = None;
        for _ in 0..64 {
            match &self.ast.expr(e).kind {
                ExprKind::Paren(inner) => e = *inner,
                ExprKind::Member { base, .. } => e = *base,
                ExprKind::Index { index: i, .. } => {
                    index = Some(*i);
                    break;
                }
                _ => break,
            }
        }
        let Some(index) = index.filter(|&i| !self.has_side_effects(i)) else { return Ok(place) };
        let fresh = self.rvalue(index)?;
        Ok(match place {
            Place::Texel { image, ty, object, .. } => Place::Texel { image, coord: fresh, ty, object },
            Place::TexelComponents { image, texel, object, components, ty, .. } => {
                Place::TexelComponents { image, coord: fresh, texel, object, components, ty }
            }
            other => other,
        })
    }

    /// `vector op= scalar` (the right side converted to a scalar): the scalar applies
    /// to every component. A float `*=` is OpVectorTimesScalar, as dxc writes it; other
    /// operators take the scalar splat to the vector. None for other shapes.
    fn vector_op_assign_scalar(
        &mut self,
        op: BinaryOp,
        place: &Place,
        r: Value,
        lty: Ty,
        op_ty: Ty,
    ) -> R<Option<Value>> {
        if matches!(op, BinaryOp::Shl | BinaryOp::Shr) || !matches!(self.data(lty), TypeData::Vector(..)) {
            return Ok(None);
        }
        let (Some((elem, n)), Some((_, 1))) = (self.scalar_shape(lty), self.scalar_shape(op_ty)) else {
            return Ok(None);
        };
        if n < 2 {
            return Ok(None);
        }
        let elem_ty = self.scalar_ty(elem);
        let scalar = if op_ty == elem_ty { r } else { self.convert(r, op_ty, elem_ty)? };
        if op == BinaryOp::Mul && elem.is_float() {
            let old = self.load_place(place)?;
            let t = self.ty(lty)?;
            return Ok(Some(self.val("spirv.VectorTimesScalar", vec![old, scalar], t)));
        }
        // The scalar is splat before the left side is read (dxc converts the right
        // side first).
        let splat = self.convert(scalar, elem_ty, lty)?;
        let old = self.load_place(place)?;
        Ok(Some(self.arith(op, old, splat, lty)?))
    }

    /// A value of type `ty` from an initializer (an init list or an expression).
    pub fn init_value(&mut self, init: ExprId, ty: Ty) -> R<Value> {
        if let ExprKind::InitList(_) = &self.ast.expr(init).kind {
            if let Some(v) = self.constant_initializer(ty, &[init])? {
                return Ok(v);
            }
            let items = self.evaluate_init_items(ty, &[init])?;
            return self.init_from_items(items, ty);
        }
        self.rvalue_as(init, ty)
    }

    /// An initializer list or vector constructor of a scalar or vector type whose
    /// scalars are all constants, as one constant (dxc evaluates such initializers,
    /// and only those: matrices, arrays and structs are constructed).
    pub fn constant_initializer(&mut self, ty: Ty, items: &[ExprId]) -> R<Option<Value>> {
        let (s, n) = match self.data(ty) {
            TypeData::Scalar(s) => (s.concrete(), 1),
            TypeData::Vector(s, n) => (s.concrete(), u32::from(*n)),
            _ => return Ok(None),
        };
        let mut scalars = Vec::new();
        for &item in items {
            if !self.constant_leaves(item, &mut scalars, 0) {
                return Ok(None);
            }
        }
        if scalars.len() != n as usize {
            return Ok(None);
        }
        let t = self.ty(ty)?;
        let et = self.ty(self.scalar_ty(s))?;
        let mut elements: Vec<_> = scalars.into_iter().map(|c| self.scalar_attr(c, et)).collect();
        if n == 1 {
            let attr = elements.remove(0);
            return Ok(Some(self.constant_attr(attr, t)));
        }
        Ok(Some(self.constant_attr(spirvkit_ir::attr::Attribute::Dense { elements, ty: t }, t)))
    }

    /// Collects the constant scalars of an initializer item (nested lists and vector
    /// constructors included); false when one is not a constant scalar.
    fn constant_leaves(&self, e: ExprId, out: &mut Vec<ConstValue>, depth: u32) -> bool {
        if depth > 64 || out.len() > 64 {
            return false;
        }
        match &self.ast.expr(e).kind {
            ExprKind::InitList(items) => items.iter().all(|&i| self.constant_leaves(i, out, depth + 1)),
            ExprKind::Construct { args, .. }
                if matches!(self.data(self.expr_ty(e)), TypeData::Vector(..)) =>
            {
                args.iter().all(|&a| self.constant_leaves(a, out, depth + 1))
            }
            ExprKind::Paren(inner) => self.constant_leaves(*inner, out, depth + 1),
            _ => {
                let ty = self.tree.converted_type(e);
                let scalar = matches!(self.data(ty), TypeData::Scalar(_));
                match self.tree.expr(e).and_then(|i| i.constant) {
                    Some(c) if scalar && !self.has_side_effects(e) => {
                        out.push(c);
                        true
                    }
                    _ => false,
                }
            }
        }
    }

    /// A composite built from parts, never folded to a constant (dxc constructs
    /// initializer lists, swizzled scalars and matrices even from constants).
    pub fn composite(&mut self, parts: Vec<Value>, ty: spirvkit_ir::types::Type) -> Value {
        self.val("spirv.CompositeConstruct", parts, ty)
    }

    /// The scalars (and opaque leaves) of a value, in HLSL's flattening order.
    pub fn flatten_value(&mut self, v: Value, ty: Ty, out: &mut Vec<(Value, Ty)>, depth: u32) -> R<()> {
        if depth > 64 {
            return self.unsupported("types nested this deep");
        }
        match self.data(ty).clone() {
            TypeData::Scalar(_) | TypeData::Enum(_) => out.push((v, self.concrete(ty))),
            TypeData::Vector(s, n) => {
                let et = self.ty(self.scalar_ty(s))?;
                if n == 1 {
                    out.push((v, self.scalar_ty(s)));
                } else {
                    for i in 0..u32::from(n) {
                        let x = self.extract(v, &[i], et);
                        out.push((x, self.scalar_ty(s)));
                    }
                }
            }
            TypeData::Matrix { elem, rows, cols, .. } => {
                let st = self.scalar_ty(elem);
                let et = self.ty(st)?;
                let (rows, cols) = (u32::from(rows), u32::from(cols));
                for r in 0..rows {
                    for c in 0..cols {
                        let path: Vec<u32> = if rows == 1 || cols == 1 {
                            if rows * cols == 1 {
                                vec![]
                            } else {
                                vec![r * cols + c]
                            }
                        } else {
                            vec![r, c]
                        };
                        let x = if path.is_empty() { v } else { self.extract(v, &path, et) };
                        out.push((x, st));
                    }
                }
            }
            TypeData::Array { elem, len: Some(n) } => {
                let et = self.value_type_of(elem)?;
                for i in 0..n {
                    let x = self.extract(v, &[i], et);
                    self.flatten_value(x, elem, out, depth + 1)?;
                }
            }
            TypeData::Struct(id) => {
                let storage =
                    self.lift(crate::layout::struct_storage(self.table, id, &self.lower.options()))?;
                let members =
                    self.lift(crate::layout::struct_members(self.table, id, &self.lower.options()))?;
                let hlsl_members = self.hlsl_members(id)?;
                for (slot, m) in storage.slots.into_iter().zip(hlsl_members) {
                    let mt = self.value_type_of(m)?;
                    let stored = members.get(slot.member as usize).copied().unwrap_or(m);
                    let st = self.value_type_of(stored)?;
                    let x = self.extract(v, &[slot.member], if slot.bit_field.is_some() { st } else { mt });
                    match slot.bit_field {
                        Some(bits) => {
                            let field = self.extract_bits(x, m, None, bits)?;
                            out.push((field, m));
                        }
                        None => self.flatten_value(x, m, out, depth + 1)?,
                    }
                }
            }
            _ => out.push((v, ty)),
        }
        Ok(())
    }

    /// Builds a value of `ty` from flattened leaves, converting each scalar.
    pub fn build_from_flat(
        &mut self,
        ty: Ty,
        leaves: &mut impl Iterator<Item = (Value, Ty)>,
        depth: u32,
    ) -> R<Value> {
        if depth > 64 {
            return self.unsupported("types nested this deep");
        }
        let t = self.value_type_of(ty)?;
        match self.data(ty).clone() {
            TypeData::Scalar(_) | TypeData::Enum(_) => self.next_leaf(leaves, ty),
            TypeData::Vector(s, n) => {
                let st = self.scalar_ty(s);
                let mut parts = Vec::new();
                for _ in 0..n {
                    parts.push(self.next_leaf(leaves, st)?);
                }
                Ok(if n == 1 { parts[0] } else { self.composite(parts, t) })
            }
            TypeData::Matrix { elem, rows, cols, .. } => {
                let st = self.scalar_ty(elem);
                let (rows, cols) = (u32::from(rows), u32::from(cols));
                let mut scalars = Vec::new();
                for _ in 0..rows * cols {
                    scalars.push(self.next_leaf(leaves, st)?);
                }
                if rows == 1 || cols == 1 {
                    return Ok(if scalars.len() == 1 { scalars[0] } else { self.composite(scalars, t) });
                }
                let row_ty = self.store_row_type(t);
                let mut row_values = Vec::new();
                for r in 0..rows as usize {
                    let part = scalars[r * cols as usize..(r + 1) * cols as usize].to_vec();
                    row_values.push(self.composite(part, row_ty));
                }
                Ok(self.composite(row_values, t))
            }
            TypeData::Array { elem, len: Some(n) } => {
                let mut parts = Vec::new();
                for _ in 0..n {
                    parts.push(self.build_from_flat(elem, leaves, depth + 1)?);
                }
                Ok(self.composite(parts, t))
            }
            TypeData::Struct(id) => {
                let storage =
                    self.lift(crate::layout::struct_storage(self.table, id, &self.lower.options()))?;
                let hlsl_members = self.hlsl_members(id)?;
                let mut parts: Vec<Value> = Vec::new();
                for (slot, m) in storage.slots.into_iter().zip(hlsl_members) {
                    let part = self.build_from_flat(m, leaves, depth + 1)?;
                    match slot.bit_field {
                        // Bit-fields sharing a member are inserted into it one by one,
                        // the first into zero.
                        Some(bits) => {
                            let base = match parts.get(slot.member as usize) {
                                Some(&merged) => merged,
                                None => {
                                    let mt = self.ty(m)?;
                                    self.scalar_constant(ConstValue::Int(0), mt)
                                }
                            };
                            let merged = self.insert_bits(base, part, m, None, bits)?;
                            match parts.get_mut(slot.member as usize) {
                                Some(p) => *p = merged,
                                None => parts.push(merged),
                            }
                        }
                        None => parts.push(part),
                    }
                }
                Ok(self.composite(parts, t))
            }
            _ => match leaves.next() {
                Some((v, _)) => Ok(v),
                None => self.unsupported("an initializer with too few elements"),
            },
        }
    }

    fn next_leaf(&mut self, leaves: &mut impl Iterator<Item = (Value, Ty)>, to: Ty) -> R<Value> {
        match leaves.next() {
            Some((v, from)) => self.convert_leaf(v, from, to),
            None => self.unsupported("an initializer with too few elements"),
        }
    }

    /// An initializer's scalar converted to its target's type.
    pub(super) fn convert_leaf(&mut self, v: Value, from: Ty, to: Ty) -> R<Value> {
        match (v, from) {
            (v, from) if from == to => Ok(v),
            // A literal constant is made in its target type, not converted (dxc
            // evaluates the literal's implicit cast).
            (v, from) if self.literal_scalar(from).is_some() && self.scalar_shape(to).is_some() => {
                let value = match self.constant_value(v) {
                    Some(spirvkit_ir::attr::Attribute::Integer { value, .. }) => {
                        i64::try_from(value).ok().map(ConstValue::Int)
                    }
                    Some(spirvkit_ir::attr::Attribute::Float { value, .. }) => Some(ConstValue::Float(value)),
                    Some(spirvkit_ir::attr::Attribute::Bool(b)) => Some(ConstValue::Bool(b)),
                    _ => None,
                };
                match value {
                    Some(c) => {
                        let t = self.ty(to)?;
                        Ok(self.scalar_constant(c, t))
                    }
                    None => self.convert(v, from, to),
                }
            }
            (v, from) => self.convert(v, from, to),
        }
    }

    /// `v != 0` for a numeric value (bools unchanged).
    pub fn truth_value(&mut self, v: Value, ty: Ty) -> R<Value> {
        let Some((s, n)) = self.scalar_shape(ty) else {
            return self.unsupported(format!("a condition of type '{}'", self.table.display(ty)));
        };
        if s == Scalar::Bool {
            return Ok(v);
        }
        let b = self.bool_ty_of(n);
        self.convert(v, ty, b)
    }

    pub fn bool_ty_of(&self, n: u32) -> Ty {
        self.vector_ty(Scalar::Bool, n)
    }
}

fn has_duplicates(components: &[u32]) -> bool {
    components.iter().enumerate().any(|(i, c)| components[..i].contains(c))
}

fn op_spelling(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::PreInc | UnaryOp::PostInc => "++",
        UnaryOp::PreDec | UnaryOp::PostDec => "--",
        _ => "unary operator",
    }
}

fn arith_op(op: BinaryOp, elem: Scalar) -> Option<&'static str> {
    let float = elem.is_float();
    let signed = elem.is_signed();
    Some(match op {
        BinaryOp::Add if float => "spirv.FAdd",
        BinaryOp::Add => "spirv.IAdd",
        BinaryOp::Sub if float => "spirv.FSub",
        BinaryOp::Sub => "spirv.ISub",
        BinaryOp::Mul if float => "spirv.FMul",
        BinaryOp::Mul => "spirv.IMul",
        BinaryOp::Div if float => "spirv.FDiv",
        BinaryOp::Div if signed => "spirv.SDiv",
        BinaryOp::Div => "spirv.UDiv",
        BinaryOp::Rem if float => "spirv.FRem",
        BinaryOp::Rem if signed => "spirv.SRem",
        BinaryOp::Rem => "spirv.UMod",
        BinaryOp::BitAnd if !float => "spirv.BitwiseAnd",
        BinaryOp::BitOr if !float => "spirv.BitwiseOr",
        BinaryOp::BitXor if !float => "spirv.BitwiseXor",
        _ => return None,
    })
}
