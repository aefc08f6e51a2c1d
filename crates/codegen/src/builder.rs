//! Building ops of MLIR's SPIR-V dialect in an [`Ir`]: one function per op shape, with
//! the property names and attribute spellings of the dialect (as `spirvkit opt
//! --mlir-print-op-generic` prints them), so the rest of codegen never spells them.
//!
//! Instructions the dialect lacks are made in the translate crate's fallback form
//! (`spirv.<Name>` with literals in `literals`), which the serializer writes back.

use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{BlockId, Location, OpId, Value};
use spirvkit_ir::types::{Signedness, Type, TypeStore};
use spirvkit_ir::Ir;

/// `#spirv.<kind><body>`: a dialect enum attribute (`#spirv.scope<Workgroup>`).
pub fn enum_attr(kind: &str, body: &str) -> Attribute {
    Attribute::Dialect { name: format!("spirv.{kind}"), body: Some(body.to_string()) }
}

pub fn i32_attr(store: &mut TypeStore, value: i64) -> Attribute {
    let ty = store.integer(32, Signedness::Signless);
    Attribute::Integer { value: i128::from(value), ty }
}

pub fn i32_array(store: &mut TypeStore, values: &[u32]) -> Attribute {
    let ty = store.integer(32, Signedness::Signless);
    Attribute::Array(values.iter().map(|&v| Attribute::Integer { value: i128::from(v as i32), ty }).collect())
}

pub fn symbol(name: &str) -> Attribute {
    Attribute::SymbolRef(vec![name.to_string()])
}

/// Where ops go: the function's current block, or nowhere after a terminator (code
/// after `return`/`break` is unreachable and not emitted).
pub struct OpSink {
    pub block: Option<BlockId>,
}

/// Creates an op and appends it to `block` (when there is one).
pub fn append(
    ir: &mut Ir,
    block: Option<BlockId>,
    name: &str,
    operands: Vec<Value>,
    result: Option<Type>,
    properties: Vec<NamedAttribute>,
) -> (OpId, Option<Value>) {
    let results: Vec<Type> = result.into_iter().collect();
    let op = ir.create_op(name, operands, &results, Location::Unknown);
    if !properties.is_empty() {
        set_attributes(ir, op, properties);
    }
    if let Some(block) = block {
        ir.append_op(block, op);
    }
    let value = ir.op(op).results.first().copied();
    (op, value)
}

pub fn prop(name: &str, value: Attribute) -> NamedAttribute {
    NamedAttribute::new(name, value)
}

/// Sets an op's attributes: those its ODS definition declares as properties (sorted by
/// name, as the parser keeps them), the others (decorations) as discardable ones.
pub fn set_attributes(ir: &mut Ir, op: OpId, attrs: Vec<NamedAttribute>) {
    let def_attrs = ir.op(op).name.def().map_or(&[][..], |d| d.attributes);
    let (mut inherent, discardable): (Vec<_>, Vec<_>) = attrs
        .into_iter()
        .partition(|a| def_attrs.iter().any(|d| d.name == a.name) || a.name == "operandSegmentSizes");
    inherent.sort_by(|a, b| a.name.cmp(&b.name));
    let o = ir.op_mut(op);
    o.properties = inherent;
    o.attributes = discardable.into_iter().collect();
}
