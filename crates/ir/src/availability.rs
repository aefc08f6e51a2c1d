//! Version, extension and capability requirements of ops: the op's own (from
//! MLIR's definitions) combined with those of the enum values it carries (from the
//! Khronos grammar), the way MLIR's availability interfaces combine them.

use crate::attr::Attribute;
use crate::ir::{Ir, OpId};
use crate::types::{FloatKind, Type, TypeKind};
use std::fmt::Write;

/// What an op needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirements {
    pub min_version: (u8, u8),
    pub max_version: (u8, u8),
    /// All of these groups, each satisfied by any one member.
    pub extensions: Vec<Vec<String>>,
    pub capabilities: Vec<Vec<String>>,
}

/// The requirements of a SPIR-V op, or `None` for ops of other dialects.
pub fn of_op(ir: &Ir, op: OpId) -> Option<Requirements> {
    let o = ir.op(op);
    let def = o.name.def()?;
    let mut r =
        Requirements { min_version: (1, 0), max_version: (1, 6), extensions: vec![], capabilities: vec![] };
    for a in def.availability {
        add_availability(&mut r, a);
    }
    // A scalar condition selecting between composites is a SPIR-V 1.4 addition.
    if o.name == "spirv.Select" && o.operands.len() == 3 {
        let scalar_condition =
            !matches!(ir.types.kind(ir.value_type(o.operands[0])), TypeKind::Vector { .. });
        let composite = !matches!(
            ir.types.kind(ir.value_type(o.operands[1])),
            TypeKind::Integer { .. } | TypeKind::Float(_) | TypeKind::Pointer { .. }
        );
        if scalar_condition && composite {
            r.min_version = r.min_version.max((1, 4));
        }
    }
    if def.availability.is_empty() {
        // Hand-written in MLIR (the dot products): only what that code says.
        integer_dot_product(ir, op, &mut r);
        return Some(r);
    }
    // The enum values the op carries, in argument order; bit enums bit by bit. Their
    // requirements are MLIR's own (its ODS), which differ from the Khronos grammar
    // for some values.
    for ad in def.attributes {
        let Some(enum_def) = ad.constraint().enum_attr() else { continue };
        let Some(Attribute::Dialect { body: Some(body), .. }) = o.attr(ad.name) else { continue };
        for case in body.split('|').map(str::trim) {
            let Some(c) = enum_def.cases.iter().find(|c| c.str == case) else { continue };
            add_availability(&mut r, &c.availability);
        }
    }
    Some(r)
}

/// The integer dot product ops' requirements depend on their operand type (MLIR
/// writes them by hand): the extension, `DotProduct`, and the input capability.
fn integer_dot_product(ir: &Ir, op: OpId, r: &mut Requirements) {
    let o = ir.op(op);
    if !matches!(
        o.name.as_str(),
        "spirv.SDot"
            | "spirv.SUDot"
            | "spirv.UDot"
            | "spirv.SDotAccSat"
            | "spirv.SUDotAccSat"
            | "spirv.UDotAccSat"
    ) {
        return;
    }
    let Some(&a) = o.operands.first() else { return };
    let input = match ir.types.kind(ir.value_type(a)) {
        TypeKind::Integer { width: 32, .. } => "DotProductInput4x8BitPacked",
        TypeKind::Vector { shape, element, .. }
            if shape.iter().product::<u64>() == 4
                && matches!(ir.types.kind(*element), TypeKind::Integer { width: 8, .. }) =>
        {
            "DotProductInput4x8Bit"
        }
        _ => "DotProductInputAll",
    };
    r.extensions.push(vec!["SPV_KHR_integer_dot_product".into()]);
    r.capabilities.push(vec!["DotProduct".into()]);
    r.capabilities.push(vec![input.into()]);
}

fn groups(list: &[Vec<String>]) -> String {
    let mut s = String::from("[ ");
    for g in list {
        let _ = write!(s, "[{}] ", g.join(", "));
    }
    s.push(']');
    s
}

/// The report of MLIR's `-test-spirv-op-availability` pass: for each top-level
/// function, its name and then, for every SPIR-V op in it (inner ops first), its
/// requirements.
pub fn report(ir: &Ir, top: OpId) -> String {
    let mut out = String::new();
    let module = ir.op(top);
    for &r in &module.regions {
        for &b in &ir.region(r).blocks {
            for &f in &ir.block(b).ops {
                let func = ir.op(f);
                if func.name != "func.func" {
                    continue;
                }
                if let Some(Attribute::String(name)) = func.attr("sym_name") {
                    let _ = writeln!(out, "{name}");
                }
                for op in post_order(ir, f) {
                    let Some(req) = of_op(ir, op) else { continue };
                    let n = &ir.op(op).name;
                    let _ = writeln!(out, "{n} min version: v{}.{}", req.min_version.0, req.min_version.1);
                    let _ = writeln!(out, "{n} max version: v{}.{}", req.max_version.0, req.max_version.1);
                    let _ = writeln!(out, "{n} extensions: {}", groups(&req.extensions));
                    let _ = writeln!(out, "{n} capabilities: {}", groups(&req.capabilities));
                }
            }
        }
    }
    out
}

/// The ops nested in `op` (not `op` itself), children before parents.
pub fn post_order(ir: &Ir, op: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    fn visit(ir: &Ir, op: OpId, out: &mut Vec<OpId>) {
        for &r in &ir.op(op).regions {
            for &b in &ir.region(r).blocks {
                for &inner in &ir.block(b).ops {
                    visit(ir, inner, out);
                    out.push(inner);
                }
            }
        }
    }
    visit(ir, op, &mut out);
    out
}

/// Adds the requirements of one availability record (an op's or an enum value's).
fn add_availability(r: &mut Requirements, a: &crate::opdef::OpAvailability) {
    if let Some(v) = a.min_version {
        r.min_version = r.min_version.max(v);
    }
    if let Some(v) = a.max_version {
        r.max_version = r.max_version.min(v);
    }
    r.extensions.extend(a.extensions.iter().map(|g| g.iter().map(|s| s.to_string()).collect()));
    r.capabilities.extend(a.capabilities.iter().map(|g| g.iter().map(|s| s.to_string()).collect()));
}

/// MLIR's availability of value `case` of the SPIR-V enum `enum_name` (`StorageClass`).
pub fn enum_case(enum_name: &str, case: &str) -> Option<&'static crate::opdef::OpAvailability> {
    let def = crate::opdef::enum_attr_by_enum_name(enum_name)?;
    def.cases.iter().find(|c| c.str == case).map(|c| &c.availability)
}

/// A type's requirements as AND-of-OR groups: `(extensions, capabilities)`.
#[derive(Default)]
struct TypeNeeds {
    extensions: Vec<Vec<String>>,
    capabilities: Vec<Vec<String>>,
}

impl TypeNeeds {
    fn cap(&mut self, name: &str) {
        self.capabilities.push(vec![name.to_string()]);
    }
    fn ext(&mut self, name: &str) {
        self.extensions.push(vec![name.to_string()]);
    }
    /// The requirements of one enum value (its capability and extension groups), as
    /// MLIR defines them.
    fn enum_value(&mut self, kind: &str, value: &str) {
        let Some(a) = enum_case(kind, value) else { return };
        self.extensions.extend(a.extensions.iter().map(|g| g.iter().map(|s| s.to_string()).collect()));
        self.capabilities.extend(a.capabilities.iter().map(|g| g.iter().map(|s| s.to_string()).collect()));
    }
}

/// MLIR's `SPIRVType::getExtensions`/`getCapabilities` for `ty`, in `storage` if
/// it is reached through a pointer.
fn type_needs(ir: &Ir, ty: Type, storage: Option<&str>, out: &mut TypeNeeds, depth: u32) {
    if depth > 64 {
        return;
    }
    match ir.types.kind(ty) {
        TypeKind::Integer { width, .. } => scalar_needs(*width, false, false, storage, out),
        TypeKind::Float(k) => scalar_needs(k.width(), true, *k == FloatKind::BF16, storage, out),
        TypeKind::Vector { shape, element, .. } => {
            let n: u64 = shape.iter().product();
            if n == 8 || n == 16 {
                out.cap("Vector16");
            }
            type_needs(ir, *element, storage, out, depth + 1);
        }
        TypeKind::Array { element, .. } | TypeKind::RuntimeArray { element, .. } => {
            type_needs(ir, *element, storage, out, depth + 1)
        }
        TypeKind::LiteralStruct(body) => {
            for m in &body.members {
                type_needs(ir, m.ty, storage, out, depth + 1);
            }
        }
        TypeKind::IdentifiedStruct { name } => {
            if let Some(body) = ir.types.struct_body(name) {
                for m in &body.members {
                    type_needs(ir, m.ty, storage, out, depth + 1);
                }
            }
        }
        TypeKind::Matrix { column, .. } => {
            out.cap("Matrix");
            type_needs(ir, *column, storage, out, depth + 1);
        }
        TypeKind::Pointer { pointee, storage_class, .. } => {
            type_needs(ir, *pointee, Some(storage_class), out, depth + 1);
            out.enum_value("StorageClass", storage_class);
        }
        TypeKind::Image { element, params } => {
            type_needs(ir, *element, storage, out, depth + 1);
            out.enum_value("Dim", params[0].trim_start_matches("Dim"));
            out.enum_value("ImageFormat", &params[5]);
        }
        TypeKind::SampledImage(image) => type_needs(ir, *image, storage, out, depth + 1),
        TypeKind::CooperativeMatrix { element, .. } => {
            out.ext("SPV_KHR_cooperative_matrix");
            out.cap("CooperativeMatrixKHR");
            type_needs(ir, *element, storage, out, depth + 1);
        }
        _ => {}
    }
}

/// What a value of type `ty` requires, as MLIR's type availability defines it:
/// `(extension groups, capability groups)`, each group satisfied by any member.
pub fn type_requirements(ir: &Ir, ty: Type) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let mut needs = TypeNeeds::default();
    type_needs(ir, ty, None, &mut needs, 0);
    (needs.extensions, needs.capabilities)
}

fn scalar_needs(width: u32, float: bool, bf16: bool, storage: Option<&str>, out: &mut TypeNeeds) {
    if bf16 {
        out.ext("SPV_KHR_bfloat16");
    }
    if let Some(storage) = storage {
        let (ext, cap) = match (storage, width) {
            ("PushConstant", 8) => ("SPV_KHR_8bit_storage", "StoragePushConstant8"),
            ("PushConstant", 16) => ("SPV_KHR_16bit_storage", "StoragePushConstant16"),
            ("StorageBuffer", 8) => ("SPV_KHR_8bit_storage", "StorageBuffer8BitAccess"),
            ("StorageBuffer", 16) => ("SPV_KHR_16bit_storage", "StorageBuffer16BitAccess"),
            ("Uniform", 8) => ("SPV_KHR_8bit_storage", "UniformAndStorageBuffer8BitAccess"),
            ("Uniform", 16) => ("SPV_KHR_16bit_storage", "StorageUniform16"),
            ("Input" | "Output", 16) => ("SPV_KHR_16bit_storage", "StorageInputOutput16"),
            _ => ("", ""),
        };
        if !cap.is_empty() {
            out.ext(ext);
            out.cap(cap);
            return;
        }
    }
    let cap = match (float, width) {
        (false, 8) => "Int8",
        (false, 16) => "Int16",
        (false, 64) => "Int64",
        (true, 16) if bf16 => "BFloat16TypeKHR",
        (true, 16) => "Float16",
        (true, 64) => "Float64",
        _ => return,
    };
    out.cap(cap);
}
