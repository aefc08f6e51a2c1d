//! `Offset` image operands made `ConstOffset` once legalization made them constant.
//!
//! HLSL lets a texture method take its offset from a variable (a parameter, a loop
//! counter); dxc emits the `Offset` operand and relies on legalization to make it a
//! constant. Vulkan allows `Offset` on the gather instructions only
//! (VUID-RuntimeSpirv-Offset-10213), so after inlining and mem2reg an offset that is a
//! constant becomes `ConstOffset`, and one that is still not a constant on any other
//! image instruction is refused rather than written.

use super::{util, LegalizeError};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{Ir, OpId, Value};
use spirvkit_ir::types::TypeKind;

const OFFSET: u32 = 0x10;
/// The fallback form's attribute names (`spirvkit_translate::fallback`'s; passes does
/// not depend on translate, and the serializer reads them by these names).
const FALLBACK_LAYOUT: &str = "operand_layout";
const FALLBACK_LITERALS: &str = "literals";
const CONST_OFFSET: u32 = 0x8;

/// Rewrites constant `Offset` operands of `func`'s image instructions as
/// `ConstOffset`; a variable one outside a gather is an error.
pub fn run(ir: &mut Ir, func: OpId) -> Result<(), LegalizeError> {
    for (_, op) in ir.ops_under(func) {
        let name = ir.op(op).name.as_str();
        if !name.starts_with("spirv.Image") || name.contains("Gather") {
            continue;
        }
        let Some(operands) = image_operands(ir, op) else { continue };
        if operands.mask & OFFSET == 0 {
            continue;
        }
        // The operands after the mask come in mask-bit order: Bias, Lod, Grad (two),
        // then the offset.
        let before = [(0x1, 1), (0x2, 1), (0x4, 2), (CONST_OFFSET, 1)]
            .iter()
            .filter(|(bit, _)| operands.mask & bit != 0)
            .map(|(_, n)| n)
            .sum::<usize>();
        let offset = ir.op(op).operands.get(operands.first_value + before).copied();
        if let Some(v) = offset.filter(|&v| !is_constant(ir, v)) {
            fold_integer_constant(ir, v);
        }
        if !offset.is_some_and(|v| is_constant(ir, v)) {
            return Err(LegalizeError::at(
                ir,
                op,
                "not supported yet: a texture offset that is not a constant after legalization \
                 (Vulkan takes a variable offset in Gather only; unroll the loop by hand or pass \
                 a literal offset)",
            ));
        }
        set_mask(ir, op, &operands, operands.mask & !OFFSET | CONST_OFFSET);
    }
    Ok(())
}

/// Whether an image instruction of `func` other than a gather takes an `Offset`
/// operand (which Vulkan allows only once legalization made it `ConstOffset`).
pub fn has_offsets_to_fold(ir: &Ir, func: OpId) -> bool {
    ir.ops_under(func).into_iter().any(|(_, op)| {
        let name = ir.op(op).name.as_str();
        name.starts_with("spirv.Image")
            && !name.contains("Gather")
            && image_operands(ir, op).is_some_and(|o| o.mask & OFFSET != 0)
    })
}

/// Where an image instruction keeps its operand mask.
enum MaskForm {
    /// A dialect op's `image_operands` property (`Lod|Offset`).
    Property(usize),
    /// A fallback op's literal at this index of its literals.
    Literal(usize),
}

struct ImageOperandsOf {
    mask: u32,
    /// The index of the first operand value after the mask.
    first_value: usize,
    form: MaskForm,
}

/// Bit of each image operand name, as the grammar numbers them.
const NAMES: &[(&str, u32)] = &[
    ("None", 0),
    ("Bias", 0x1),
    ("Lod", 0x2),
    ("Grad", 0x4),
    ("ConstOffset", 0x8),
    ("Offset", 0x10),
    ("ConstOffsets", 0x20),
    ("Sample", 0x40),
    ("MinLod", 0x80),
    ("MakeTexelAvailable", 0x100),
    ("MakeTexelVisible", 0x200),
    ("NonPrivateTexel", 0x400),
    ("VolatileTexel", 0x800),
    ("SignExtend", 0x1000),
    ("ZeroExtend", 0x2000),
    ("Nontemporal", 0x4000),
    ("Offsets", 0x10000),
];

/// Counted operands each mask bit brings (Grad two, the rest at most one).
fn values_of(mask: u32) -> usize {
    NAMES
        .iter()
        .filter(|(_, bit)| *bit != 0 && mask & bit != 0)
        .map(|(n, _)| if *n == "Grad" { 2 } else { 1 })
        .sum()
}

fn image_operands(ir: &Ir, op: OpId) -> Option<ImageOperandsOf> {
    let o = ir.op(op);
    if let Some(index) = o.properties.iter().position(|p| p.name == "image_operands") {
        let Attribute::Dialect { body: Some(body), .. } = &o.properties[index].value else { return None };
        let mut mask = 0;
        for part in body.split('|').map(str::trim) {
            mask |= NAMES.iter().find(|(n, _)| *n == part)?.1;
        }
        let first_value = o.operands.len().checked_sub(values_of(mask))?;
        return Some(ImageOperandsOf { mask, first_value, form: MaskForm::Property(index) });
    }
    let Some(Attribute::String(layout)) = o.attr(FALLBACK_LAYOUT) else { return None };
    let Some(Attribute::Array(literals)) = o.attr(FALLBACK_LITERALS) else { return None };
    // Image instructions take ids, then the mask literal, then the operands' ids.
    let at = layout.find('l')?;
    if layout[..at].contains('l') || !layout[at + 1..].chars().all(|c| c == 'i') {
        return None;
    }
    let Some(Attribute::Integer { value, .. }) = literals.first() else { return None };
    let mask = u32::try_from(*value).ok()?;
    Some(ImageOperandsOf { mask, first_value: at, form: MaskForm::Literal(0) })
}

fn set_mask(ir: &mut Ir, op: OpId, operands: &ImageOperandsOf, mask: u32) {
    match operands.form {
        MaskForm::Property(index) => {
            let names: Vec<&str> =
                NAMES.iter().filter(|(_, bit)| *bit != 0 && mask & bit != 0).map(|(n, _)| *n).collect();
            if let Some(Attribute::Dialect { body, .. }) =
                ir.op_mut(op).properties.get_mut(index).map(|p| &mut p.value)
            {
                *body = Some(names.join("|"));
            }
        }
        MaskForm::Literal(index) => {
            let o = ir.op_mut(op);
            for attr in o.properties.iter_mut().chain(o.attributes.iter_mut()) {
                if attr.name != FALLBACK_LITERALS {
                    continue;
                }
                if let Attribute::Array(literals) = &mut attr.value {
                    if let Some(Attribute::Integer { value, .. }) = literals.get_mut(index) {
                        *value = i128::from(mask as i32);
                    }
                }
            }
        }
    }
}

/// Whether `v` is a constant instruction's result (a scalar or a constant composite).
fn is_constant(ir: &Ir, v: Value) -> bool {
    util::defining_op(ir, v).is_some_and(|op| ir.op(op).name == "spirv.Constant")
}

/// Arithmetic on constants deeper than this is left alone.
const MAX_FOLD_DEPTH: u32 = 16;

/// Makes `v` a constant when integer arithmetic on constants computes it: clang folds
/// an offset such as `2 * int2(-1, 1)` to a constant, while the raw IR keeps the
/// multiplication. The defining op becomes the `spirv.Constant` of its value in place.
fn fold_integer_constant(ir: &mut Ir, v: Value) {
    let Some(values) = integer_components(ir, v, 0) else { return };
    let Some(op) = util::defining_op(ir, v) else { return };
    let ty = ir.value_type(v);
    let value = match ir.types.kind(ty) {
        TypeKind::Vector { element, .. } => {
            let element = *element;
            Attribute::Dense {
                elements: values.into_iter().map(|value| Attribute::Integer { value, ty: element }).collect(),
                ty,
            }
        }
        _ => match values[..] {
            [value] => Attribute::Integer { value, ty },
            _ => return,
        },
    };
    util::become_constant(ir, op, value);
}

/// The components of a 32-bit integer scalar or vector computed from constants by
/// `IAdd`, `ISub`, `IMul`, `SNegate` and `CompositeConstruct` (wrapping as SPIR-V does;
/// two's complement makes the signed and unsigned results the same bits).
fn integer_components(ir: &Ir, v: Value, depth: u32) -> Option<Vec<i128>> {
    if depth > MAX_FOLD_DEPTH {
        return None;
    }
    let ty = ir.value_type(v);
    let (element, count) = match ir.types.kind(ty) {
        TypeKind::Vector { element, shape, .. } => (*element, *shape.first()? as usize),
        _ => (ty, 1),
    };
    if !matches!(ir.types.kind(element), TypeKind::Integer { width: 32, .. }) {
        return None;
    }
    let op = util::defining_op(ir, v)?;
    let o = ir.op(op);
    let wrap = |x: i128| ir.types.normalize_integer(x, element);
    let int = |a: &Attribute| match a {
        Attribute::Integer { value, .. } => Some(wrap(*value)),
        _ => None,
    };
    let values = match o.name.as_str() {
        "spirv.Constant" => match o.attr("value")? {
            Attribute::Dense { elements, .. } if elements.len() == 1 => vec![int(&elements[0])?; count],
            Attribute::Dense { elements, .. } => elements.iter().map(int).collect::<Option<Vec<_>>>()?,
            a => vec![int(a)?],
        },
        "spirv.IAdd" | "spirv.ISub" | "spirv.IMul" => {
            let [a, b] = o.operands[..] else { return None };
            let a = integer_components(ir, a, depth + 1)?;
            let b = integer_components(ir, b, depth + 1)?;
            if a.len() != b.len() {
                return None;
            }
            a.iter()
                .zip(&b)
                .map(|(&x, &y)| {
                    wrap(match o.name.as_str() {
                        "spirv.IAdd" => x.wrapping_add(y),
                        "spirv.ISub" => x.wrapping_sub(y),
                        _ => x.wrapping_mul(y),
                    })
                })
                .collect()
        }
        "spirv.SNegate" => {
            let [a] = o.operands[..] else { return None };
            integer_components(ir, a, depth + 1)?.into_iter().map(|x| wrap(x.wrapping_neg())).collect()
        }
        "spirv.CompositeConstruct" => {
            let mut all = Vec::with_capacity(count);
            for &part in &o.operands {
                all.extend(integer_components(ir, part, depth + 1)?);
            }
            all
        }
        _ => return None,
    };
    (values.len() == count).then_some(values)
}
