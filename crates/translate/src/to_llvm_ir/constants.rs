//! Constants: attribute values and the constant ops of the LLVM dialect as LLVM IR
//! constant text, and the folding of a global's initializer region into one constant.

use super::types::{quoted, TypePrinter};
use super::Fail;
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::types::{FloatKind, Type, TypeKind};

/// A constant value, typed by the context it is printed in.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Const {
    /// The literal text of a scalar, a pointer or a constant expression (`42`,
    /// `0x3FF0000000000000`, `@g`, `getelementptr (...)`).
    Literal(String),
    /// Struct members, array or vector elements.
    Aggregate(Vec<Const>),
    Undef,
    Poison,
    Zero,
}

impl<'a> TypePrinter<'a> {
    /// `value` printed as a constant of type `ty` (the value only, without the type).
    pub fn const_text(&self, value: &Const, ty: Type) -> Result<String, Fail> {
        self.const_text_at(value, ty, 0)
    }

    fn const_text_at(&self, value: &Const, ty: Type, depth: usize) -> Result<String, Fail> {
        if depth > 256 {
            return Err(Fail::new("constant nesting deeper than 256 levels"));
        }
        Ok(match value {
            Const::Literal(text) => text.clone(),
            Const::Undef => "undef".into(),
            Const::Poison => "poison".into(),
            Const::Zero if self.is_pointer(ty) => "null".into(),
            Const::Zero => "zeroinitializer".into(),
            Const::Aggregate(items) => {
                let element_types = self.element_types(ty, items.len())?;
                let (open, close) = match self.kind(ty) {
                    TypeKind::LlvmStruct { packed: true, .. } => ("<{", "}>"),
                    TypeKind::LlvmStruct { .. } => ("{", "}"),
                    TypeKind::LlvmArray { .. } => ("[", "]"),
                    _ => ("<", ">"),
                };
                let mut out = String::from(open);
                for (i, (item, item_ty)) in items.iter().zip(&element_types).enumerate() {
                    out.push_str(if i > 0 {
                        ", "
                    } else if open == "{" || open == "<{" {
                        " "
                    } else {
                        ""
                    });
                    out.push_str(&self.print(*item_ty)?);
                    out.push(' ');
                    out.push_str(&self.const_text_at(item, *item_ty, depth + 1)?);
                }
                if (open == "{" || open == "<{") && !items.is_empty() {
                    out.push(' ');
                }
                out.push_str(close);
                out
            }
        })
    }

    /// The types of the `count` members or elements of an aggregate type.
    pub fn element_types(&self, ty: Type, count: usize) -> Result<Vec<Type>, Fail> {
        let types = match self.kind(ty) {
            TypeKind::LlvmStruct { members, .. } => members.clone(),
            TypeKind::LlvmArray { count: n, element } => {
                vec![*element; usize::try_from(*n).unwrap_or(0).min(count)]
            }
            TypeKind::Vector { shape, element, .. } if shape.len() == 1 => {
                vec![*element; usize::try_from(shape[0]).unwrap_or(0).min(count)]
            }
            _ => return Err(Fail::new(format!("an aggregate constant of type {}", self.print(ty)?))),
        };
        if types.len() != count {
            return Err(Fail::new(format!(
                "aggregate constant with {count} elements for type {}",
                self.print(ty)?
            )));
        }
        Ok(types)
    }

    /// The number of members or elements of an aggregate type (bounded, for inputs
    /// that declare huge arrays: an undef of one is expanded only when indexed).
    fn aggregate_len(&self, ty: Type) -> Option<u64> {
        match self.kind(ty) {
            TypeKind::LlvmStruct { members, .. } => Some(members.len() as u64),
            TypeKind::LlvmArray { count, .. } => Some(*count),
            TypeKind::Vector { shape, .. } if shape.len() == 1 => Some(shape[0]),
            _ => None,
        }
    }

    /// The constant an attribute denotes as a value of `ty`.
    pub fn attribute_const(&self, attr: &Attribute, ty: Type) -> Result<Const, Fail> {
        match attr {
            Attribute::Integer { value, .. } => self.integer_const(*value, ty),
            Attribute::Bool(b) => self.integer_const(i128::from(*b), ty),
            Attribute::Float { value, .. } => self.float_const(*value, ty),
            Attribute::Dense { elements, .. } => {
                let total = self.scalar_count(ty)?;
                if total > 1 << 20 {
                    return Err(Fail::unsupported("a dense constant of more than 2^20 elements"));
                }
                if elements.len() != 1 && elements.len() as u64 != total {
                    return Err(Fail::new(format!(
                        "dense constant with {} elements for type {}",
                        elements.len(),
                        self.print(ty)?
                    )));
                }
                let mut next = 0usize;
                self.dense_const(elements, ty, &mut next, 0)
            }
            Attribute::String(text) => match self.kind(ty) {
                TypeKind::LlvmArray { count, element }
                    if *count == text.len() as u64
                        && matches!(self.kind(*element), TypeKind::Integer { width: 8, .. }) =>
                {
                    Ok(Const::Literal(format!("c{}", quoted(text))))
                }
                _ => Err(Fail::new(format!("a string constant of type {}", self.print(ty)?))),
            },
            Attribute::Array(items) => {
                let element_types = self.element_types(ty, items.len())?;
                let members = items
                    .iter()
                    .zip(element_types)
                    .map(|(item, item_ty)| self.attribute_const(item, item_ty))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Const::Aggregate(members))
            }
            Attribute::Dialect { name, .. } if name == "llvm.zero" => Ok(Const::Zero),
            Attribute::Dialect { name, .. } if name == "llvm.undef" => Ok(Const::Undef),
            Attribute::Dialect { name, .. } if name == "llvm.poison" => Ok(Const::Poison),
            other => Err(Fail::unsupported(format!("constant attribute {other:?}"))),
        }
    }

    /// How many scalars a (nested) array/vector type holds.
    fn scalar_count(&self, ty: Type) -> Result<u64, Fail> {
        let mut count = 1u64;
        let mut at = ty;
        for _ in 0..256 {
            match self.kind(at) {
                TypeKind::LlvmArray { count: n, element } => {
                    count = count.saturating_mul(*n);
                    at = *element;
                }
                TypeKind::Vector { shape, element, .. } if shape.len() == 1 => {
                    count = count.saturating_mul(shape[0]);
                    at = *element;
                }
                TypeKind::Integer { .. } | TypeKind::Float(_) => return Ok(count),
                _ => break,
            }
        }
        Err(Fail::new(format!("a dense constant of type {}", self.print(ty)?)))
    }

    fn dense_const(
        &self,
        elements: &[Attribute],
        ty: Type,
        next: &mut usize,
        depth: usize,
    ) -> Result<Const, Fail> {
        if depth > 256 {
            return Err(Fail::new("constant nesting deeper than 256 levels"));
        }
        let element = match self.kind(ty) {
            TypeKind::LlvmArray { element, .. } => Some(*element),
            TypeKind::Vector { shape, element, .. } if shape.len() == 1 => Some(*element),
            _ => None,
        };
        match element {
            Some(element) => {
                let len = self.aggregate_len(ty).unwrap_or(0);
                // Bounded: the caller checked the scalar count against the attribute.
                let mut items = Vec::with_capacity(usize::try_from(len).unwrap_or(0).min(1 << 16));
                for _ in 0..len {
                    items.push(self.dense_const(elements, element, next, depth + 1)?);
                }
                Ok(Const::Aggregate(items))
            }
            None => {
                let attr = if elements.len() == 1 {
                    &elements[0]
                } else {
                    elements.get(*next).ok_or_else(|| Fail::new("dense constant too short"))?
                };
                *next += 1;
                self.attribute_const(attr, ty)
            }
        }
    }

    fn integer_const(&self, value: i128, ty: Type) -> Result<Const, Fail> {
        if let Some((element, count)) = self.vector(ty) {
            let scalar = self.integer_const(value, element)?;
            return splat(scalar, count);
        }
        match self.kind(ty) {
            TypeKind::Integer { width: 1, .. } => {
                Ok(Const::Literal(if value & 1 == 1 { "true" } else { "false" }.into()))
            }
            TypeKind::Integer { width, .. } => Ok(Const::Literal(signed_in_width(value, *width).to_string())),
            TypeKind::Float(_) => self.float_const(value as f64, ty),
            _ => Err(Fail::new(format!("an integer constant of type {}", self.print(ty)?))),
        }
    }

    fn float_const(&self, value: f64, ty: Type) -> Result<Const, Fail> {
        if let Some((element, count)) = self.vector(ty) {
            let scalar = self.float_const(value, element)?;
            return splat(scalar, count);
        }
        match self.kind(ty) {
            TypeKind::Float(kind) => Ok(Const::Literal(float_literal(value, *kind)?)),
            _ => Err(Fail::new(format!("a float constant of type {}", self.print(ty)?))),
        }
    }

    /// `base` with the member at `position` replaced by `value` (undef, poison and
    /// zero aggregates are expanded first).
    pub fn insert_value(&self, base: Const, ty: Type, position: &[i64], value: Const) -> Result<Const, Fail> {
        if position.len() > 256 {
            return Err(Fail::unsupported("insertvalue positions deeper than 256 levels"));
        }
        let Some((&first, rest)) = position.split_first() else {
            return Ok(value);
        };
        let len = self.aggregate_len(ty).ok_or_else(|| Fail::new("insertvalue into a non-aggregate"))?;
        if first < 0 || first as u64 >= len {
            return Err(Fail::new(format!("insertvalue position {first} out of range")));
        }
        if len > 1 << 16 {
            return Err(Fail::unsupported("insertvalue into an aggregate of more than 65536 elements"));
        }
        let element_types = self.element_types(ty, len as usize)?;
        let mut items = match base {
            Const::Aggregate(items) => items,
            Const::Literal(text) => return Err(Fail::new(format!("insertvalue into constant {text}"))),
            fill => vec![fill; len as usize],
        };
        let index = first as usize;
        let old = std::mem::replace(&mut items[index], Const::Undef);
        items[index] = self.insert_value(old, element_types[index], rest, value)?;
        Ok(Const::Aggregate(items))
    }
}

/// `count` copies of `scalar` (bounded: a vector type may claim any length).
fn splat(scalar: Const, count: u64) -> Result<Const, Fail> {
    if count > 1 << 20 {
        return Err(Fail::unsupported("a splat constant of more than 2^20 elements"));
    }
    Ok(Const::Aggregate(vec![scalar; count as usize]))
}

/// `value` as a signed number of `width` bits (MLIR keeps some as unsigned).
pub(super) fn signed_in_width(value: i128, width: u32) -> i128 {
    if width == 0 || width >= 128 {
        return value;
    }
    let shift = 128 - width;
    (value << shift) >> shift
}

/// LLVM's exact spelling of a float: the f64 bits in hex for `float` and `double`
/// (LLVM's form for both), `0xH`/`0xR` with the 16 bits for `half`/`bfloat`.
pub(super) fn float_literal(value: f64, kind: FloatKind) -> Result<String, Fail> {
    Ok(match kind {
        FloatKind::F64 => format!("0x{:016X}", value.to_bits()),
        FloatKind::F32 => format!("0x{:016X}", f64::from(value as f32).to_bits()),
        FloatKind::F16 => format!("0xH{:04X}", f32_to_f16_bits(value as f32)),
        FloatKind::BF16 => format!("0xR{:04X}", f32_to_bf16_bits(value as f32)),
        other => return Err(Fail::unsupported(format!("type {}", other.keyword()))),
    })
}

/// IEEE half bits of `value`, rounded to nearest even.
pub(super) fn f32_to_f16_bits(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32;
    let mantissa = bits & 0x7f_ffff;
    if exponent == 0xff {
        // Infinity or NaN (kept quiet, with the top payload bits).
        let nan = if mantissa != 0 { 0x200 | (mantissa >> 13) as u16 } else { 0 };
        return sign | 0x7c00 | nan;
    }
    let unbiased = exponent - 127;
    if unbiased > 15 {
        return sign | 0x7c00;
    }
    if unbiased >= -14 {
        let half_exponent = ((unbiased + 15) as u32) << 10;
        let half_mantissa = mantissa >> 13;
        let rest = mantissa & 0x1fff;
        let mut result = half_exponent | half_mantissa;
        if rest > 0x1000 || (rest == 0x1000 && (half_mantissa & 1) == 1) {
            result += 1; // may carry into the exponent, up to infinity: correct
        }
        return sign | result as u16;
    }
    if unbiased < -25 {
        return sign;
    }
    // Subnormal half.
    let full = mantissa | 0x80_0000;
    let shift = (-14 - unbiased + 13) as u32;
    let half_mantissa = full >> shift;
    let rest = full & ((1 << shift) - 1);
    let halfway = 1 << (shift - 1);
    let mut result = half_mantissa;
    if rest > halfway || (rest == halfway && (half_mantissa & 1) == 1) {
        result += 1;
    }
    sign | result as u16
}

/// bfloat16 bits of `value`, rounded to nearest even.
pub(super) fn f32_to_bf16_bits(value: f32) -> u16 {
    let bits = value.to_bits();
    if value.is_nan() {
        return ((bits >> 16) | 0x40) as u16;
    }
    let rounding = 0x7fff + ((bits >> 16) & 1);
    (bits.wrapping_add(rounding) >> 16) as u16
}
