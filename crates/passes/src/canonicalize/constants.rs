//! Constant values as the folds see them: the attribute of a constant op (MLIR's
//! `m_Constant`), integer and boolean scalars and vectors viewed element by element,
//! and the attributes folds produce.

use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{Ir, OpId, Value, ValueDef};
use spirvkit_ir::types::{FloatKind, Type, TypeKind};

/// `#ub.poison`, the value of `ub.poison` and what folds of poison operands give.
pub(crate) fn poison() -> Attribute {
    Attribute::Dialect { name: "ub.poison".into(), body: None }
}

pub(crate) fn is_poison(a: &Attribute) -> bool {
    matches!(a, Attribute::Dialect { name, .. } if name == "ub.poison")
}

/// The value of a constant op that folds to its attribute (`spirv.Constant`,
/// `arith.constant`, `ub.poison`), as the greedy driver uniques and folds with.
pub(crate) fn constant_value(ir: &Ir, op: OpId) -> Option<Attribute> {
    let o = ir.op(op);
    if o.results.len() != 1 || !o.regions.is_empty() {
        return None;
    }
    match o.name.as_str() {
        "spirv.Constant" | "arith.constant" => o.attr("value").cloned(),
        "ub.poison" => Some(o.attr("value").cloned().unwrap_or_else(poison)),
        _ => None,
    }
}

/// The constant `v` holds, if a constant op defines it.
pub(crate) fn value_constant(ir: &Ir, v: Value) -> Option<Attribute> {
    let ValueDef::Result { op, .. } = ir.value(v).def else { return None };
    constant_value(ir, op)
}

/// Whether two constant attributes are the same MLIR attribute: dense elements
/// compare by value whether or not they are spelled as a splat, floats bit for bit.
pub(crate) fn same_attribute(a: &Attribute, b: &Attribute) -> bool {
    match (a, b) {
        (Attribute::Float { value: x, ty: s }, Attribute::Float { value: y, ty: t }) => {
            s == t && x.to_bits() == y.to_bits()
        }
        (Attribute::Dense { elements: x, ty: s }, Attribute::Dense { elements: y, ty: t }) => {
            if s != t || x.is_empty() != y.is_empty() {
                return false;
            }
            let n = x.len().max(y.len());
            // A one-element list is a splat; otherwise both list every element.
            let at = |list: &[Attribute], i: usize| if list.len() == 1 { 0 } else { i };
            (x.len() == 1 || x.len() == n)
                && (y.len() == 1 || y.len() == n)
                && (0..n).all(|i| same_attribute(&x[at(x, i)], &y[at(y, i)]))
        }
        (Attribute::Array(x), Attribute::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_attribute(p, q))
        }
        _ => a == b,
    }
}

/// A hash consistent with [`same_attribute`] (splats hash like their spelled-out form).
pub(crate) fn hash_attribute(a: &Attribute, h: &mut impl std::hash::Hasher) {
    use std::hash::Hash;
    match a {
        Attribute::Integer { value, ty } => (0u8, value, ty).hash(h),
        Attribute::Float { value, ty } => (1u8, value.to_bits(), ty).hash(h),
        Attribute::Dense { elements, ty } => {
            (2u8, ty).hash(h);
            let splat = elements.iter().all(|e| elements.first().is_some_and(|f| same_attribute(e, f)));
            let hashed = if splat { elements.get(..1).unwrap_or(&[]) } else { elements.as_slice() };
            for e in hashed {
                hash_attribute(e, h);
            }
        }
        Attribute::Array(items) => {
            (3u8, items.len()).hash(h);
            for e in items {
                hash_attribute(e, h);
            }
        }
        other => (4u8, format!("{other:?}")).hash(h),
    }
}

/// Integer (or boolean) constant elements: a scalar, a splat, or one value per
/// vector element, as bit patterns of `width` bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ints {
    pub width: u32,
    pub bits: Vec<u128>,
    /// The attribute's type (scalar or vector), which both operands of a fold share.
    pub ty: Type,
}

impl Ints {
    /// The element at `i`, a splat giving the same one everywhere.
    pub fn at(&self, i: usize) -> u128 {
        if self.bits.len() == 1 {
            self.bits[0]
        } else {
            self.bits.get(i).copied().unwrap_or(0)
        }
    }

    pub fn all(&self, f: impl Fn(u128) -> bool) -> bool {
        !self.bits.is_empty() && self.bits.iter().all(|&b| f(b))
    }

    pub fn is_zero(&self) -> bool {
        self.all(|b| b == 0)
    }

    pub fn is_one(&self) -> bool {
        self.all(|b| b == 1)
    }

    pub fn is_all_ones(&self) -> bool {
        let m = mask(self.width);
        self.all(|b| b == m)
    }
}

/// The low `width` bits set.
pub(crate) fn mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// `bits` of a `width`-bit integer read as signed.
pub(crate) fn signed(bits: u128, width: u32) -> i128 {
    if width == 0 || width >= 128 {
        return bits as i128;
    }
    let shift = 128 - width;
    ((bits << shift) as i128) >> shift
}

fn integer_width(ir: &Ir, ty: Type) -> Option<u32> {
    match ir.types.kind(ty) {
        TypeKind::Integer { width, .. } if *width > 0 && *width <= 128 => Some(*width),
        _ => None,
    }
}

/// The integer elements of a scalar or dense constant.
pub(crate) fn ints(ir: &Ir, a: &Attribute) -> Option<Ints> {
    match a {
        Attribute::Integer { value, ty } => {
            let width = integer_width(ir, *ty)?;
            Some(Ints { width, bits: vec![(*value as u128) & mask(width)], ty: *ty })
        }
        Attribute::Dense { elements, ty } if !elements.is_empty() => {
            let width = integer_width(ir, ir.types.scalar_of(*ty))?;
            let bits = elements
                .iter()
                .map(|e| match e {
                    Attribute::Integer { value, .. } => Some((*value as u128) & mask(width)),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Ints { width, bits, ty: *ty })
        }
        _ => None,
    }
}

/// The constant of type `ty` (a scalar integer type or a vector of one) with these
/// element bits; equal elements make a splat, as MLIR's dense attributes do.
pub(crate) fn int_attribute(ir: &Ir, ty: Type, bits: &[u128]) -> Option<Attribute> {
    let element = ir.types.scalar_of(ty);
    let width = integer_width(ir, element)?;
    // Booleans hold 0 or 1, as `true`/`false` parse.
    let make = |b: u128| {
        let value = if width == 1 { (b & 1) as i128 } else { ir.types.normalize_integer(b as i128, element) };
        Attribute::Integer { value, ty: element }
    };
    if element == ty {
        return bits.first().map(|&b| make(b));
    }
    if bits.is_empty() {
        return None;
    }
    let elements = if bits.iter().all(|&b| b == bits[0]) {
        vec![make(bits[0])]
    } else {
        bits.iter().map(|&b| make(b)).collect()
    };
    Some(Attribute::Dense { elements, ty })
}

/// A boolean constant of type `ty` (`i1` or a vector of `i1`) with one value everywhere.
pub(crate) fn splat_bool(ir: &Ir, ty: Type, value: bool) -> Option<Attribute> {
    int_attribute(ir, ty, &[value as u128])
}

/// Element-wise `f` over two integer constants of the same type, into a constant of
/// `result_ty`; `None` when the types differ or `f` declines an element.
pub(crate) fn fold_ints(
    ir: &Ir,
    lhs: &Attribute,
    rhs: &Attribute,
    result_ty: Type,
    f: impl Fn(u128, u128, u32) -> Option<u128>,
) -> Option<Attribute> {
    let (a, b) = (ints(ir, lhs)?, ints(ir, rhs)?);
    if a.ty != b.ty {
        return None;
    }
    let n = a.bits.len().max(b.bits.len());
    if (a.bits.len() != 1 && a.bits.len() != n) || (b.bits.len() != 1 && b.bits.len() != n) {
        return None;
    }
    let bits = (0..n).map(|i| f(a.at(i), b.at(i), a.width)).collect::<Option<Vec<_>>>()?;
    let out_width = integer_width(ir, ir.types.scalar_of(result_ty))?;
    let bits: Vec<u128> = bits.into_iter().map(|v| v & mask(out_width)).collect();
    int_attribute(ir, result_ty, &bits)
}

/// Element-wise `f` over one integer constant.
pub(crate) fn fold_ints_unary(
    ir: &Ir,
    operand: &Attribute,
    result_ty: Type,
    f: impl Fn(u128, u32) -> u128,
) -> Option<Attribute> {
    let a = ints(ir, operand)?;
    let bits: Vec<u128> = a.bits.iter().map(|&b| f(b, a.width) & mask(a.width)).collect();
    int_attribute(ir, result_ty, &bits)
}

/// Member `i` of a constant composite: an array's member, or a dense vector's
/// element (a splat's one value) as a scalar attribute of the element type.
fn member(ir: &Ir, a: &Attribute, i: usize) -> Option<Attribute> {
    match a {
        Attribute::Array(items) => items.get(i).cloned(),
        Attribute::Dense { elements, ty } => {
            let (count, element) = match ir.types.kind(*ty) {
                TypeKind::Vector { shape, element, .. } if shape.len() == 1 => (shape[0], *element),
                _ => return None,
            };
            if i as u64 >= count || (elements.len() != 1 && elements.len() as u64 != count) {
                return None;
            }
            let e = elements.get(if elements.len() == 1 { 0 } else { i })?;
            Some(as_scalar(ir, e, element))
        }
        _ => None,
    }
}

/// A dense element as the scalar attribute MLIR gives it (floats rounded to their type).
fn as_scalar(ir: &Ir, e: &Attribute, element: Type) -> Attribute {
    match e {
        Attribute::Float { value, .. } => {
            let value = match ir.types.kind(element) {
                TypeKind::Float(FloatKind::F32) => *value as f32 as f64,
                _ => *value,
            };
            Attribute::Float { value, ty: element }
        }
        Attribute::Integer { value, .. } => Attribute::Integer { value: *value, ty: element },
        other => other.clone(),
    }
}

/// The member of a constant composite at `indices`.
pub(crate) fn extract(ir: &Ir, composite: &Attribute, indices: &[usize]) -> Option<Attribute> {
    let mut current = composite.clone();
    for &i in indices {
        current = member(ir, &current, i)?;
    }
    Some(current)
}

/// Whether `spirv.Constant` can hold a value of type `ty` (MLIR's `isBuildableWith`:
/// builtin scalar and vector types, and arrays among the dialect's own types).
pub(crate) fn is_buildable_with(ir: &Ir, ty: Type) -> bool {
    matches!(
        ir.types.kind(ty),
        TypeKind::Integer { .. } | TypeKind::Float(_) | TypeKind::Vector { .. } | TypeKind::Array { .. }
    )
}
