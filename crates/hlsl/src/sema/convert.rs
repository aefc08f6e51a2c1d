//! Conversions: which implicit conversions HLSL allows, what they cost for overload
//! ranking, and the usual arithmetic conversions of binary operators.

use super::tree::CastKind;
use super::types::{Scalar, Shape, Ty, TypeData, TypeTable};

/// Cost of an implicit conversion; lower is better. Shape changes weigh more than
/// component changes, truncation most (dxc ranks them in that order).
pub type Cost = u32;

pub const COST_SPLAT: Cost = 20;
pub const COST_VEC1: Cost = 2;
pub const COST_RESHAPE: Cost = 30;
pub const COST_TRUNCATE: Cost = 50;

/// Cost of converting one scalar component type to another.
pub fn scalar_cost(from: Scalar, to: Scalar) -> Cost {
    use Scalar::*;
    if from == to {
        return 0;
    }
    match (from, to) {
        (LiteralInt, Int) => 1,
        (LiteralInt, UInt) => 2,
        (LiteralInt, t) if t.is_integer() => 3,
        (LiteralInt, Float) => 4,
        (LiteralInt, t) if t.is_float() => 5,
        (LiteralFloat, Float) => 1,
        (LiteralFloat, Double) => 2,
        (LiteralFloat, t) if t.is_float() => 3,
        (LiteralFloat, _) => 8,
        (_, LiteralInt | LiteralFloat) => 8,
        (Bool, _) | (_, Bool) => 7,
        (f, t) if f.is_float() && t.is_float() => {
            if t.rank() > f.rank() {
                2
            } else {
                5
            }
        }
        (f, t) if f.is_integer() && t.is_integer() => {
            if f.is_signed() == t.is_signed() && t.rank() > f.rank() {
                2
            } else {
                4
            }
        }
        (f, _) if f.is_integer() => 5,
        _ => 6,
    }
}

/// An implicit conversion of a whole value: its cost and kind, or `None` when HLSL
/// has no implicit conversion. `truncates` says whether dxc warns about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Implicit {
    pub cost: Cost,
    pub kind: CastKind,
    pub truncates: bool,
}

fn implicit(cost: Cost, kind: CastKind) -> Option<Implicit> {
    Some(Implicit { cost, kind, truncates: false })
}

/// The implicit conversion from `from` to `to`, if HLSL allows one.
pub fn implicit_conversion(types: &TypeTable, from: Ty, to: Ty) -> Option<Implicit> {
    if from == to {
        return implicit(0, CastKind::NoOp);
    }
    let (fd, td) = (types.get(from), types.get(to));
    match (fd, td) {
        (TypeData::Error | TypeData::Opaque(_), _) | (_, TypeData::Error | TypeData::Opaque(_)) => {
            return implicit(0, CastKind::Other)
        }
        (TypeData::Enum(a), TypeData::Enum(b)) => {
            return (a == b).then_some(Implicit { cost: 0, kind: CastKind::NoOp, truncates: false })
        }
        (TypeData::Enum(e), _) => {
            // Scoped enums do not convert implicitly.
            let scoped = types.enums.get(e.0 as usize).is_some_and(|i| i.scoped);
            if scoped || !types.is_numeric(to) {
                return None;
            }
        }
        (_, TypeData::Enum(e)) => {
            // dxc lets integers initialize and assign unscoped enums.
            let scoped = types.enums.get(e.0 as usize).is_some_and(|i| i.scoped);
            let integer = types.is_scalar(from) && types.component(from).is_some_and(|c| c.is_integer());
            return (!scoped && integer).then_some(Implicit {
                cost: 6,
                kind: CastKind::Enum,
                truncates: false,
            });
        }
        (TypeData::Object { kind, args }, _)
            if matches!(
                kind.family(),
                super::types::Family::ConstantBuffer | super::types::Family::TextureBuffer
            ) =>
        {
            // `ConstantBuffer<S>` is usable as an `S` value.
            let elem = args.iter().find_map(|a| match a {
                super::types::ObjectArg::Type(t) => Some(*t),
                _ => None,
            });
            return (elem == Some(to)).then_some(Implicit {
                cost: 1,
                kind: CastKind::Other,
                truncates: false,
            });
        }
        (TypeData::Array { elem: a, len: la }, TypeData::Array { elem: b, len: lb }) => {
            if la != lb && lb.is_some() {
                return None;
            }
            let inner = implicit_conversion(types, *a, *b)?;
            return (inner.kind == CastKind::NoOp).then_some(Implicit {
                cost: 0,
                kind: CastKind::NoOp,
                truncates: false,
            });
        }
        (TypeData::Object { kind: ka, args: aa }, TypeData::Object { kind: kb, args: ab }) => {
            return (ka == kb && (aa == ab || aa.is_empty() || ab.is_empty())).then_some(Implicit {
                cost: 0,
                kind: CastKind::NoOp,
                truncates: false,
            });
        }
        (TypeData::Struct(a), TypeData::Struct(b)) => {
            // A derived struct converts to its base.
            if a == b || is_base_of(types, to, from, 0) {
                return implicit(1, CastKind::NoOp);
            }
            // Structs of the same flattened shape convert element-wise.
            let same_size =
                types.flat_count(from).is_some() && types.flat_count(from) == types.flat_count(to);
            if same_size && !types.contains_object(from) && !types.contains_object(to) {
                return implicit(40, CastKind::Flat);
            }
            return None;
        }
        _ => {}
    }
    let (Some(fs), Some(ts)) = (types.component(from), types.component(to)) else { return None };
    let (Some(fshape), Some(tshape)) = (types.shape(from), types.shape(to)) else { return None };
    let comp = scalar_cost(fs, ts);
    let numeric = if comp == 0 { CastKind::NoOp } else { CastKind::Numeric };
    let shape_change =
        |cost: Cost, kind: CastKind, truncates: bool| Some(Implicit { cost: cost + comp, kind, truncates });
    match (fshape, tshape) {
        (a, b) if a == b => {
            let kind = if matches!(fd, TypeData::Enum(_)) { CastKind::Enum } else { numeric };
            Some(Implicit { cost: comp, kind, truncates: false })
        }
        (Shape::Scalar, Shape::Vector(1)) | (Shape::Vector(1), Shape::Scalar) => {
            shape_change(COST_VEC1, CastKind::Reshape, false)
        }
        (Shape::Scalar, Shape::Matrix(1, 1)) | (Shape::Matrix(1, 1), Shape::Scalar) => {
            shape_change(COST_VEC1, CastKind::Reshape, false)
        }
        (Shape::Scalar, _) => shape_change(COST_SPLAT, CastKind::Splat, false),
        (Shape::Vector(1), Shape::Vector(_) | Shape::Matrix(..)) => {
            shape_change(COST_SPLAT, CastKind::Splat, false)
        }
        (Shape::Vector(n), Shape::Scalar) if n > 1 => shape_change(COST_TRUNCATE, CastKind::Truncate, true),
        (Shape::Vector(n), Shape::Vector(m)) if m < n => {
            shape_change(COST_TRUNCATE, CastKind::Truncate, true)
        }
        (Shape::Matrix(r, c), Shape::Matrix(r2, c2)) if r2 <= r && c2 <= c => {
            shape_change(COST_TRUNCATE, CastKind::Truncate, true)
        }
        (Shape::Matrix(..), Shape::Scalar) => shape_change(COST_TRUNCATE, CastKind::Truncate, true),
        // A 1xN or Nx1 matrix and an N-vector are interchangeable; so are vectors and
        // matrices of the same component count.
        (Shape::Matrix(r, c), Shape::Vector(n)) | (Shape::Vector(n), Shape::Matrix(r, c)) => {
            let count = u32::from(r) * u32::from(c);
            if count == u32::from(n) {
                shape_change(COST_RESHAPE, CastKind::Reshape, false)
            } else if (r == 1 || c == 1) && u32::from(n) < count && matches!(fshape, Shape::Matrix(..)) {
                shape_change(COST_TRUNCATE, CastKind::Truncate, true)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether `base` is a (transitive) base class of `derived`.
pub fn is_base_of(types: &TypeTable, base: Ty, derived: Ty, depth: u32) -> bool {
    if depth > 32 {
        return false;
    }
    let TypeData::Struct(d) = types.get(derived) else { return false };
    let Some(info) = types.struct_info(*d) else { return false };
    info.bases.iter().any(|&b| b == base || is_base_of(types, base, b, depth + 1))
}

/// Whether an explicit cast `(to)from` is allowed: every implicit conversion, plus
/// narrowing vector/matrix casts, enum<->int, and element-wise (flattened) casts
/// between structs, arrays and numerics of compatible sizes.
pub fn explicit_conversion(types: &TypeTable, from: Ty, to: Ty) -> Option<CastKind> {
    if let Some(i) = implicit_conversion(types, from, to) {
        return Some(i.kind);
    }
    let (fd, td) = (types.get(from), types.get(to));
    match (fd, td) {
        (TypeData::Void, _) | (_, TypeData::Void) => Some(CastKind::Other),
        (TypeData::Enum(_), _) if types.is_numeric(to) => Some(CastKind::Enum),
        (_, TypeData::Enum(_)) if types.is_numeric(from) => Some(CastKind::Enum),
        (TypeData::Struct(_), TypeData::Struct(_)) if is_base_of(types, from, to, 0) => Some(CastKind::NoOp),
        // `vk::BufferPointer<T>(address)` and back.
        (TypeData::Scalar(s), TypeData::Object { kind: super::types::ObjectKind::BufferPointer, .. })
        | (TypeData::Object { kind: super::types::ObjectKind::BufferPointer, .. }, TypeData::Scalar(s))
            if s.is_integer() =>
        {
            Some(CastKind::Other)
        }
        _ => {
            let fc = types.flat_count(from)?;
            let tc = types.flat_count(to)?;
            if types.contains_object(from) || types.contains_object(to) {
                return None;
            }
            // A scalar splats into anything; otherwise the source must be at least as
            // large as the destination.
            if fc == 1 || fc >= tc {
                Some(CastKind::Flat)
            } else {
                None
            }
        }
    }
}

/// The common component type of two operands (the usual arithmetic conversions),
/// with literal types giving way to concrete ones.
pub fn common_scalar(a: Scalar, b: Scalar) -> Scalar {
    use Scalar::*;
    if a == b {
        return a;
    }
    match (a, b) {
        (LiteralInt, t) | (t, LiteralInt) => {
            if t == Bool {
                Int
            } else {
                t
            }
        }
        (LiteralFloat, t) | (t, LiteralFloat) => {
            if t.is_float() {
                t
            } else {
                Float
            }
        }
        (Bool, t) | (t, Bool) => t,
        _ => {
            if a.is_float() != b.is_float() {
                return if a.is_float() { a } else { b };
            }
            if a.is_float() {
                return if a.rank() >= b.rank() { a } else { b };
            }
            // Integers: the wider wins; on equal width the unsigned one.
            let (wa, wb) = (int_width(a), int_width(b));
            if wa != wb {
                return if wa > wb { a } else { b };
            }
            if !a.is_signed() {
                a
            } else {
                b
            }
        }
    }
}

fn int_width(s: Scalar) -> u32 {
    match s {
        Scalar::Min12Int | Scalar::Min16Int | Scalar::Min16UInt => 12,
        Scalar::Int16 | Scalar::UInt16 => 16,
        Scalar::Int64 | Scalar::UInt64 => 64,
        _ => 32,
    }
}

/// The common shape of two operands of a component-wise operator: a scalar (or a
/// 1-vector) splats; otherwise the smaller wins and `truncated` reports dxc's warning.
pub fn common_shape(a: Shape, b: Shape) -> Option<(Shape, bool)> {
    match (a, b) {
        (x, y) if x == y => Some((x, false)),
        (Shape::Scalar | Shape::Vector(1) | Shape::Matrix(1, 1), y) => Some((y, false)),
        (x, Shape::Scalar | Shape::Vector(1) | Shape::Matrix(1, 1)) => Some((x, false)),
        (Shape::Vector(n), Shape::Vector(m)) => Some((Shape::Vector(n.min(m)), true)),
        (Shape::Matrix(r, c), Shape::Matrix(r2, c2)) => {
            if (r <= r2 && c <= c2) || (r >= r2 && c >= c2) {
                Some((Shape::Matrix(r.min(r2), c.min(c2)), true))
            } else {
                None
            }
        }
        (Shape::Matrix(r, c), Shape::Vector(n)) | (Shape::Vector(n), Shape::Matrix(r, c)) => {
            if u32::from(r) * u32::from(c) == u32::from(n) || r == 1 || c == 1 {
                let count = (u32::from(r) * u32::from(c)).min(u32::from(n)) as u8;
                Some((Shape::Vector(count), u32::from(r) * u32::from(c) != u32::from(n)))
            } else {
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_arithmetic_conversions() {
        assert_eq!(common_scalar(Scalar::Int, Scalar::UInt), Scalar::UInt);
        assert_eq!(common_scalar(Scalar::Int, Scalar::Float), Scalar::Float);
        assert_eq!(common_scalar(Scalar::LiteralInt, Scalar::Half), Scalar::Half);
        assert_eq!(common_scalar(Scalar::LiteralFloat, Scalar::Int), Scalar::Float);
        assert_eq!(common_scalar(Scalar::LiteralFloat, Scalar::Half), Scalar::Half);
        assert_eq!(common_scalar(Scalar::Float, Scalar::Double), Scalar::Double);
        assert_eq!(common_scalar(Scalar::Int64, Scalar::UInt), Scalar::Int64);
        assert_eq!(common_scalar(Scalar::Bool, Scalar::Bool), Scalar::Bool);
        assert_eq!(common_scalar(Scalar::LiteralInt, Scalar::LiteralFloat), Scalar::LiteralFloat);
    }

    #[test]
    fn shapes_splat_and_truncate() {
        assert_eq!(common_shape(Shape::Scalar, Shape::Vector(3)), Some((Shape::Vector(3), false)));
        assert_eq!(common_shape(Shape::Vector(4), Shape::Vector(2)), Some((Shape::Vector(2), true)));
        assert_eq!(common_shape(Shape::Matrix(2, 3), Shape::Matrix(3, 2)), None);
    }

    #[test]
    fn implicit_conversions_and_costs() {
        let mut t = TypeTable::new();
        let f4 = t.vector(Scalar::Float, 4);
        let f3 = t.vector(Scalar::Float, 3);
        let i4 = t.vector(Scalar::Int, 4);
        let trunc = implicit_conversion(&t, f4, f3).unwrap();
        assert!(trunc.truncates && trunc.kind == CastKind::Truncate);
        assert!(implicit_conversion(&t, f3, f4).is_none());
        assert_eq!(implicit_conversion(&t, TypeTable::FLOAT, f4).unwrap().kind, CastKind::Splat);
        assert_eq!(implicit_conversion(&t, i4, f4).unwrap().kind, CastKind::Numeric);
        let exact = implicit_conversion(&t, TypeTable::INT, TypeTable::INT).unwrap().cost;
        let lit = implicit_conversion(&t, TypeTable::LITERAL_INT, TypeTable::INT).unwrap().cost;
        let conv = implicit_conversion(&t, TypeTable::FLOAT, TypeTable::INT).unwrap().cost;
        assert!(exact < lit && lit < conv);
        let m22 = t.matrix(Scalar::Float, 2, 2);
        assert_eq!(implicit_conversion(&t, f4, m22).unwrap().kind, CastKind::Reshape);
        assert_eq!(explicit_conversion(&t, f3, f4), None);
        assert_eq!(explicit_conversion(&t, f4, TypeTable::FLOAT), Some(CastKind::Truncate));
    }
}
