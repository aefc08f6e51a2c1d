//! Hand-written custom forms of the SPIR-V ops whose MLIR definitions have C++
//! parsers and printers instead of declarative formats. Each pair reproduces
//! `mlir-opt-22`'s text exactly (including its quirks, such as the spacing of
//! `spirv.CopyMemory`).

use crate::attr::{Attribute, NamedAttribute};
use crate::ir::{BlockId, Location, OpId, OpName, Value};
use crate::text::lexer::{unescape_to_string, Tok};
use crate::text::parser::{symbol_name, OperandRef, PResult, ParseError, Parser};
use crate::text::printer::Printer;
use crate::types::{CompositeStep, Signedness, Type, TypeKind};
use std::borrow::Cow;

fn dialect(name: &str, body: &str) -> Attribute {
    Attribute::Dialect { name: name.to_string(), body: Some(body.to_string()) }
}

fn dialect_body(a: Option<&Attribute>) -> Option<&str> {
    match a {
        Some(Attribute::Dialect { body: Some(b), .. }) => Some(b.as_str()),
        _ => None,
    }
}

fn string_token(p: &mut Parser) -> PResult<String> {
    if p.tok.kind != Tok::String {
        return p.error("expected string");
    }
    let t = p.bump();
    Ok(unescape_to_string(t.text))
}

fn symbol(p: &mut Parser) -> PResult<String> {
    if p.tok.kind != Tok::AtId {
        return p.error("expected valid '@'-identifier for symbol name");
    }
    Ok(symbol_name(p.bump().text))
}

pub(crate) fn optional_attr_dict(p: &mut Parser) -> PResult<Vec<NamedAttribute>> {
    if p.at("{") {
        p.parse_attribute_dict()
    } else {
        Ok(Vec::new())
    }
}

fn pointer(p: &mut Parser, pointee: Type, storage_class: &str) -> Type {
    p.pointer_type(pointee, storage_class)
}

/// A string literal's text, borrowed from the source unless it has escapes (the
/// storage class of `spirv.Load "Function"` is only looked at, not kept).
fn string_text<'s>(p: &mut Parser<'s, '_>) -> PResult<Cow<'s, str>> {
    if p.tok.kind != Tok::String {
        return p.error("expected string");
    }
    let text = p.bump().text;
    Ok(match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(inner) if !inner.contains('\\') => Cow::Borrowed(inner),
        _ => Cow::Owned(unescape_to_string(text)),
    })
}

/// The pointee and storage class of a pointer whose type the custom forms (which name
/// only those) rebuild: a pointer with a stride is printed in the generic form.
fn pointee_of<'a>(p: &Printer<'a>, ty: Type) -> Option<(Type, &'a str)> {
    match p.ir.types.kind(ty) {
        TypeKind::Pointer { pointee, storage_class, stride: None } => {
            Some((*pointee, storage_class.as_str()))
        }
        _ => None,
    }
}

/// The ops whose forms are written by hand here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Constant,
    Load,
    Store,
    Variable,
    CopyMemory,
    GlobalVariable,
    SpecConstant,
    SpecConstantComposite,
    SpecConstantCompositeReplicate,
    Func,
    Module,
    Structured,
    BranchConditional,
    CompositeExtract,
    CompositeInsert,
    EntryPoint,
    ExecutionMode,
    StructResultBinary,
    Ternary,
    BlockWrite,
    SpecConstantOperation,
    Switch,
}

fn form_of(name: &str) -> Option<Form> {
    Some(match name {
        "spirv.Constant" => Form::Constant,
        "spirv.Load" => Form::Load,
        "spirv.Store" => Form::Store,
        "spirv.Variable" => Form::Variable,
        "spirv.CopyMemory" => Form::CopyMemory,
        "spirv.GlobalVariable" => Form::GlobalVariable,
        "spirv.SpecConstant" => Form::SpecConstant,
        "spirv.SpecConstantComposite" => Form::SpecConstantComposite,
        "spirv.EXT.SpecConstantCompositeReplicate" => Form::SpecConstantCompositeReplicate,
        "spirv.func" => Form::Func,
        "spirv.module" => Form::Module,
        "spirv.mlir.loop" | "spirv.mlir.selection" => Form::Structured,
        "spirv.BranchConditional" => Form::BranchConditional,
        "spirv.CompositeExtract" => Form::CompositeExtract,
        "spirv.CompositeInsert" => Form::CompositeInsert,
        "spirv.EntryPoint" => Form::EntryPoint,
        "spirv.ExecutionMode" => Form::ExecutionMode,
        "spirv.IAddCarry" | "spirv.ISubBorrow" | "spirv.SMulExtended" | "spirv.UMulExtended" => {
            Form::StructResultBinary
        }
        "spirv.GL.FClamp" | "spirv.GL.SClamp" | "spirv.GL.UClamp" | "spirv.GL.Fma" => Form::Ternary,
        "spirv.INTEL.SubgroupBlockWrite" => Form::BlockWrite,
        "spirv.SpecConstantOperation" => Form::SpecConstantOperation,
        "spirv.Switch" => Form::Switch,
        _ => return None,
    })
}

/// The hand-written form of the op definition at `index` in `OP_DEFS`, if any
/// (looked up by name once per process).
fn form_at(index: usize) -> Option<Form> {
    static FORMS: std::sync::OnceLock<Vec<Option<Form>>> = std::sync::OnceLock::new();
    let forms = FORMS.get_or_init(|| crate::opdef::OP_DEFS.iter().map(|d| form_of(d.name)).collect());
    forms.get(index).copied().flatten()
}

/// Parses the custom form of a SPIR-V op with a C++ parser, if `name` is one.
pub fn parse(p: &mut Parser, name: &str, start: usize) -> Option<PResult<OpId>> {
    let form = form_of(name)?;
    Some(parse_form(p, form, &OpName::new(name), start))
}

/// [`parse`] for the op definition at `index` in `OP_DEFS`.
pub(crate) fn parse_at(p: &mut Parser, index: usize, start: usize) -> Option<PResult<OpId>> {
    let form = form_at(index)?;
    Some(parse_form(p, form, &OpName::of_def(&crate::opdef::OP_DEFS[index]), start))
}

fn parse_form(p: &mut Parser, form: Form, name: &OpName, start: usize) -> PResult<OpId> {
    match form {
        Form::Constant => parse_constant(p, name),
        Form::Load => parse_load(p, name),
        Form::Store => parse_store(p, name),
        Form::Variable => parse_variable(p, name),
        Form::CopyMemory => parse_copy_memory(p, name),
        Form::GlobalVariable => parse_global_variable(p, name),
        Form::SpecConstant => parse_spec_constant(p, name),
        Form::SpecConstantComposite => parse_spec_constant_composite(p, name),
        Form::SpecConstantCompositeReplicate => parse_spec_constant_composite_replicate(p, name),
        Form::Func => parse_func(p, name),
        Form::Module => parse_module(p, name),
        Form::Structured => parse_structured(p, name),
        Form::BranchConditional => parse_branch_conditional(p, name, start),
        Form::CompositeExtract => parse_composite_extract(p, name, start),
        Form::CompositeInsert => parse_composite_insert(p, name, start),
        Form::EntryPoint => parse_entry_point(p, name),
        Form::ExecutionMode => parse_execution_mode(p, name),
        Form::StructResultBinary => parse_struct_result_binary(p, name, start),
        Form::Ternary => parse_ternary(p, name, start),
        Form::BlockWrite => parse_block_write(p, name, start),
        Form::SpecConstantOperation => parse_spec_constant_operation(p, name, start),
        Form::Switch => parse_switch(p, name, start),
    }
}

/// Prints the custom form of a SPIR-V op with a C++ printer, if it is one.
pub fn print(p: &mut Printer, op: OpId) -> Option<bool> {
    let form = form_at(p.ir.op(op).name.def_index()?)?;
    let done = match form {
        Form::Constant => print_constant(p, op),
        Form::Load => print_load(p, op),
        Form::Store => print_store(p, op),
        Form::Variable => print_variable(p, op),
        Form::CopyMemory => print_copy_memory(p, op),
        Form::GlobalVariable => print_global_variable(p, op),
        Form::SpecConstant => print_spec_constant(p, op),
        Form::SpecConstantComposite => print_spec_constant_composite(p, op),
        Form::SpecConstantCompositeReplicate => print_spec_constant_composite_replicate(p, op),
        Form::Func => print_func(p, op),
        Form::Module => print_module(p, op),
        Form::Structured => print_structured(p, op),
        Form::BranchConditional => print_branch_conditional(p, op),
        Form::CompositeExtract => print_composite_extract(p, op),
        Form::CompositeInsert => print_composite_insert(p, op),
        Form::EntryPoint => print_entry_point(p, op),
        Form::ExecutionMode => print_execution_mode(p, op),
        Form::StructResultBinary => print_struct_result_binary(p, op),
        Form::Ternary => print_ternary(p, op),
        Form::BlockWrite => print_block_write(p, op),
        Form::SpecConstantOperation => print_spec_constant_operation(p, op),
        Form::Switch => print_switch(p, op),
    };
    Some(done)
}

// ---- spirv.Constant ---------------------------------------------------------------

fn parse_constant(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let mut value = p.parse_attribute()?;
    let ty = match &value {
        Attribute::Bool(b) => {
            let i1 = p.integer_type(1, Signedness::Signless);
            value = Attribute::Integer { value: *b as i128, ty: i1 };
            i1
        }
        Attribute::Dense { ty, .. } if matches!(p.ir.types.kind(*ty), TypeKind::Tensor { .. }) => {
            // A tensor-shaped value for an array constant: the array type follows.
            p.expect(":")?;
            p.parse_type()?
        }
        Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } | Attribute::Dense { ty, .. } => *ty,
        _ => {
            p.expect(":")?;
            p.parse_type()?
        }
    };
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    p.finish_op(op, vec![], &[ty]);
    p.ir.op_mut(op).properties = vec![NamedAttribute::new("value", value)];
    Ok(op)
}

fn print_constant(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(value) = o.attr("value") else { return false };
    p.out.push_str("spirv.Constant ");
    p.attr(value);
    let ty = p.ir.value_type(o.results[0]);
    // As MLIR, the type follows for arrays; and for our matrix constants (an array
    // value of a `!spirv.matrix` type, which MLIR 22 lacks) and null constants
    // (`#spirv.null`, untyped) so they parse back.
    let untyped_value = matches!(value, Attribute::Array(_)) || value.is_null_constant();
    if untyped_value || matches!(p.ir.types.kind(ty), TypeKind::Array { .. }) {
        p.out.push_str(" : ");
        p.ty(ty);
    }
    true
}

// ---- memory access ------------------------------------------------------------------

/// `["Volatile"]` or `["Aligned", 4]` after a pointer operand.
fn parse_memory_access(
    p: &mut Parser,
    props: &mut Vec<NamedAttribute>,
    access_name: &str,
    alignment_name: &str,
    op_name: &str,
) -> PResult<()> {
    if !p.eat("[") {
        return Ok(());
    }
    let access_at = p.tok.offset;
    let access = enum_string(p)?;
    let valid = crate::opdef::enum_attr_by_mnemonic("memory_access")
        .is_some_and(|e| access.split('|').all(|part| e.case_by_str(part.trim()).is_some()));
    if !valid {
        return Err(Box::new(ParseError {
            notes: Vec::new(),
            offset: access_at,
            message: format!(
                "custom op '{op_name}' invalid {access_name} attribute specification: \"{access}\""
            ),
        }));
    }
    props.push(NamedAttribute::new(access_name, dialect("spirv.memory_access", &access)));
    if access.split('|').any(|a| a.trim() == "Aligned") {
        p.expect(",")?;
        let i32t = p.integer_type(32, Signedness::Signless);
        let value = signed_number(p, i32t)?;
        props.push(NamedAttribute::new(alignment_name, value));
    }
    p.expect("]")
}

/// A quoted enum keyword (`"Function"`), as MLIR's `parseEnumStrAttr` reads it.
fn enum_string(p: &mut Parser) -> PResult<String> {
    Ok(enum_text(p)?.into_owned())
}

/// [`enum_string`], borrowed from the source when it can be.
fn enum_text<'s>(p: &mut Parser<'s, '_>) -> PResult<Cow<'s, str>> {
    if p.tok.kind != Tok::String {
        return p.wrong_token("expected attribute value");
    }
    string_text(p)
}
fn print_memory_access(p: &mut Printer, op: OpId, access_name: &str, alignment_name: &str) {
    let ir = p.ir;
    let o = ir.op(op);
    if let Some(access) = dialect_body(o.attr(access_name)) {
        p.out.push_str(" [");
        p.string(access);
        if access.split('|').any(|a| a == "Aligned") {
            if let Some(Attribute::Integer { value, .. }) = o.attr(alignment_name) {
                p.out.push_str(", ");
                crate::text::printer::push_i128(&mut p.out, *value);
            }
        }
        p.out.push(']');
    }
}

pub(crate) fn set_attrs(
    p: &mut Parser,
    op: OpId,
    mut props: Vec<NamedAttribute>,
    extra: Vec<NamedAttribute>,
) {
    // Mostly there is no dictionary to split.
    let discardable = if extra.is_empty() {
        extra
    } else {
        let def_attrs = p.ir.op(op).name.def().map_or(&[][..], |d| d.attributes);
        let (inh, discardable): (Vec<_>, Vec<_>) =
            extra.into_iter().partition(|a| def_attrs.iter().any(|d| d.name == a.name));
        props.extend(inh);
        discardable
    };
    props.sort_by(|a, b| a.name.cmp(&b.name));
    // The op keeps these for its lifetime: no spare room.
    props.shrink_to_fit();
    let o = p.ir.op_mut(op);
    o.properties = props;
    o.attributes = discardable.into();
}

fn parse_load(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let start = p.tok.offset;
    let sc = enum_text(p)?;
    let r = p.parse_operand_ref()?;
    let mut props = Vec::new();
    parse_memory_access(p, &mut props, "memory_access", "alignment", "spirv.Load")?;
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let ptr = pointer(p, ty, &sc);
    let v = p.resolve_operands(&[r], &[ptr], start)?;
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    p.finish_op(op, v, &[ty]);
    set_attrs(p, op, props, extra);
    Ok(op)
}

fn print_load(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    // An op without the operand and result the form shows prints generic.
    let ([pointer], [result]) = (&o.operands[..], &o.results[..]) else { return false };
    let (pointer, result) = (*pointer, *result);
    let Some((_, sc)) = pointee_of(p, p.ir.value_type(pointer)) else { return false };
    p.out.push_str("spirv.Load ");
    p.string(sc);
    p.out.push(' ');
    p.value(pointer);
    print_memory_access(p, op, "memory_access", "alignment");
    p.merged_attr_dict(o, &["memory_access", "alignment"], false);
    p.out.push_str(" : ");
    let t = p.ir.value_type(result);
    p.ty(t);
    true
}

fn parse_store(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let start = p.tok.offset;
    let sc = enum_text(p)?;
    if p.tok.kind != Tok::ValueId {
        return p.wrong_token("expected operand");
    }
    let ptr_ref = p.parse_operand_ref()?;
    let (mut value_ref, mut count) = (None, 1);
    while p.eat(",") {
        let r = p.parse_operand_ref()?;
        count += 1;
        value_ref.get_or_insert(r);
    }
    let (Some(value_ref), 2) = (value_ref, count) else {
        return Err(Box::new(ParseError {
            notes: Vec::new(),
            offset: start,
            message: "custom op 'spirv.Store' expected 2 operands".into(),
        }));
    };
    let mut props = Vec::new();
    parse_memory_access(p, &mut props, "memory_access", "alignment", "spirv.Store")?;
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let ptr = pointer(p, ty, &sc);
    let v = p.resolve_operands(&[ptr_ref, value_ref], &[ptr, ty], start)?;
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    p.finish_op(op, v, &[]);
    set_attrs(p, op, props, extra);
    Ok(op)
}

fn print_store(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    // An op without the two operands the form shows prints generic.
    let [pointer, value] = o.operands[..] else { return false };
    let Some((_, sc)) = pointee_of(p, p.ir.value_type(pointer)) else { return false };
    p.out.push_str("spirv.Store ");
    p.string(sc);
    p.out.push(' ');
    p.value(pointer);
    p.out.push_str(", ");
    p.value(value);
    print_memory_access(p, op, "memory_access", "alignment");
    p.merged_attr_dict(o, &["memory_access", "alignment"], false);
    p.out.push_str(" : ");
    let t = p.ir.value_type(value);
    p.ty(t);
    true
}

fn parse_variable(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let start = p.tok.offset;
    let mut init = None;
    if p.eat_keyword("init") {
        p.expect("(")?;
        init = Some(p.parse_operand_ref()?);
        p.expect(")")?;
    }
    // MLIR reads variable decorations here too; the verifier then rejects them.
    let mut decorations = Vec::new();
    parse_variable_decorations(p, &mut decorations)?;
    let mut extra = optional_attr_dict(p)?;
    extra.extend(decorations);
    p.expect(":")?;
    let ty = p.parse_type()?;
    let (pointee, storage_class) = match p.ir.types.kind(ty) {
        TypeKind::Pointer { pointee, storage_class, .. } => (*pointee, storage_class.clone()),
        _ => {
            return Err(Box::new(ParseError {
                notes: Vec::new(),
                offset: start,
                message: "expected spirv.ptr type".into(),
            }))
        }
    };
    let operands = match init {
        Some(r) => p.resolve_operands(&[r], &[pointee], start)?,
        None => vec![],
    };
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    p.finish_op(op, operands, &[ty]);
    let storage_class = Attribute::Dialect { name: "spirv.storage_class".into(), body: Some(storage_class) };
    let props = vec![NamedAttribute::new("storage_class", storage_class)];
    set_attrs(p, op, props, extra);
    Ok(op)
}

fn print_variable(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    p.out.push_str("spirv.Variable");
    if let Some(&init) = o.operands.first() {
        p.out.push_str(" init(");
        p.value(init);
        p.out.push(')');
    }
    p.merged_attr_dict(o, &["storage_class"], false);
    p.out.push_str(" : ");
    let t = p.ir.value_type(o.results[0]);
    p.ty(t);
    true
}

/// `"SC" %target, "SC" %source ["A"], ["B"] : T`. The printer reproduces MLIR's
/// spacing exactly, including the comma it always prints before the source access.
fn parse_copy_memory(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let start = p.tok.offset;
    let target_sc = string_token(p)?;
    let target = p.parse_operand_ref()?;
    p.expect(",")?;
    let source_sc = string_token(p)?;
    let source = p.parse_operand_ref()?;
    let mut props = Vec::new();
    parse_memory_access(p, &mut props, "memory_access", "alignment", "spirv.CopyMemory")?;
    if p.eat(",") {
        parse_memory_access(p, &mut props, "source_memory_access", "source_alignment", "spirv.CopyMemory")?;
    }
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let target_ptr = pointer(p, ty, &target_sc);
    let source_ptr = pointer(p, ty, &source_sc);
    let v = p.resolve_operands(&[target, source], &[target_ptr, source_ptr], start)?;
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    p.finish_op(op, v, &[]);
    set_attrs(p, op, props, extra);
    Ok(op)
}

fn print_copy_memory(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let (Some((pointee, target_sc)), Some((_, source_sc))) =
        (pointee_of(p, p.ir.value_type(o.operands[0])), pointee_of(p, p.ir.value_type(o.operands[1])))
    else {
        return false;
    };
    p.out.push_str("spirv.CopyMemory  ");
    p.string(target_sc);
    p.out.push(' ');
    p.value(o.operands[0]);
    p.out.push_str(",  ");
    p.string(source_sc);
    p.out.push(' ');
    p.value(o.operands[1]);
    print_memory_access(p, op, "memory_access", "alignment");
    p.out.push_str(", ");
    // Like MLIR, the source access falls back to the target's when it is not set.
    if o.attr("source_memory_access").is_some() {
        print_memory_access(p, op, "source_memory_access", "source_alignment");
    } else {
        print_memory_access(p, op, "memory_access", "alignment");
    }
    p.merged_attr_dict(o, &["memory_access", "alignment", "source_memory_access", "source_alignment"], false);
    p.out.push_str(" : ");
    p.ty(pointee);
    true
}

// ---- module-level declarations ------------------------------------------------------

fn parse_global_variable(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let name = symbol(p)?;
    let mut props = vec![NamedAttribute::new("sym_name", Attribute::String(name))];
    if p.eat_keyword("initializer") {
        p.expect("(")?;
        let init = symbol(p)?;
        p.expect(")")?;
        props.push(NamedAttribute::new("initializer", Attribute::SymbolRef(vec![init])));
    }
    parse_variable_decorations(p, &mut props)?;
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    props.push(NamedAttribute::new("type", Attribute::Type(ty)));
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    set_attrs(p, op, props, extra);
    Ok(op)
}

/// An integer that may be negative: the printer writes i32 and i64 attributes
/// signed, so a word of 2^31 or more from a binary prints (and reads back) negative,
/// as in mlir-opt.
fn signed_number(p: &mut Parser, ty: crate::types::Type) -> PResult<Attribute> {
    let negative = p.eat("-");
    p.parse_typed_number(negative, ty)
}

fn parse_variable_decorations(p: &mut Parser, props: &mut Vec<NamedAttribute>) -> PResult<()> {
    let i32t = p.integer_type(32, Signedness::Signless);
    if p.eat_keyword("bind") {
        p.expect("(")?;
        let set = signed_number(p, i32t)?;
        p.expect(",")?;
        let binding = signed_number(p, i32t)?;
        p.expect(")")?;
        props.push(NamedAttribute::new("descriptor_set", set));
        props.push(NamedAttribute::new("binding", binding));
    }
    if p.eat_keyword("built_in") {
        p.expect("(")?;
        let b = string_token(p)?;
        p.expect(")")?;
        props.push(NamedAttribute::new("built_in", Attribute::String(b)));
    }
    Ok(())
}

fn print_variable_decorations(p: &mut Printer, o: &crate::ir::Operation, elided: &mut Vec<&'static str>) {
    if let (Some(Attribute::Integer { value: set, .. }), Some(Attribute::Integer { value: binding, .. })) =
        (o.attr("descriptor_set"), o.attr("binding"))
    {
        p.out.push_str(" bind(");
        crate::text::printer::push_i128(&mut p.out, *set);
        p.out.push_str(", ");
        crate::text::printer::push_i128(&mut p.out, *binding);
        p.out.push(')');
        elided.push("descriptor_set");
        elided.push("binding");
    }
    if let Some(Attribute::String(b)) = o.attr("built_in") {
        p.out.push_str(&format!(" built_in(\"{b}\")"));
        elided.push("built_in");
    }
}

fn print_global_variable(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let (Some(Attribute::String(name)), Some(Attribute::Type(ty))) = (o.attr("sym_name"), o.attr("type"))
    else {
        return false;
    };
    p.out.push_str("spirv.GlobalVariable ");
    p.symbol_ref(name);
    let mut elided = vec!["sym_name", "type", "storage_class"];
    if let Some(init @ Attribute::SymbolRef(_)) = o.attr("initializer") {
        p.out.push_str(" initializer(");
        p.attr(init);
        p.out.push(')');
        elided.push("initializer");
    }
    print_variable_decorations(p, o, &mut elided);
    p.merged_attr_dict(o, &elided, false);
    p.out.push_str(" : ");
    p.ty(*ty);
    true
}

fn parse_spec_constant(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let name = symbol(p)?;
    let mut discardable = Vec::new();
    if p.eat_keyword("spec_id") {
        p.expect("(")?;
        let i64t = p.integer_type(64, Signedness::Signless);
        let id = signed_number(p, i64t)?;
        p.expect(")")?;
        discardable.push(NamedAttribute::new("spec_id", id));
    }
    // Other decorations (`{relaxed_precision}`), which MLIR's form lacks.
    discardable.extend(optional_attr_dict(p)?);
    p.expect("=")?;
    let mut value = p.parse_attribute()?;
    if let Attribute::Bool(b) = value {
        let i1 = p.integer_type(1, Signedness::Signless);
        value = Attribute::Integer { value: b as i128, ty: i1 };
    }
    let props = vec![
        NamedAttribute::new("default_value", value),
        NamedAttribute::new("sym_name", Attribute::String(name)),
    ];
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    set_attrs(p, op, props, discardable);
    Ok(op)
}

fn print_spec_constant(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let (Some(Attribute::String(name)), Some(value)) = (o.attr("sym_name"), o.attr("default_value")) else {
        return false;
    };
    p.out.push_str("spirv.SpecConstant ");
    p.attr(&Attribute::SymbolRef(vec![name.clone()]));
    if let Some(Attribute::Integer { value: id, .. }) = o.attr("spec_id") {
        p.out.push_str(&format!(" spec_id({id})"));
    }
    p.merged_attr_dict(o, &["sym_name", "default_value", "spec_id"], false);
    p.out.push_str(" = ");
    p.attr(value);
    true
}

fn parse_spec_constant_composite(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let name = symbol(p)?;
    p.expect("(")?;
    let mut parts = Vec::new();
    if !p.at(")") {
        loop {
            // A spec constant by symbol, or a plain constant by its typed value
            // (`(@x, 4 : i32, 1 : i32)`, glslang's `gl_WorkGroupSize`).
            let part = if p.tok.kind == Tok::AtId {
                Attribute::SymbolRef(vec![symbol(p)?])
            } else {
                p.parse_attribute()?
            };
            parts.push(part);
            if !p.eat(",") {
                break;
            }
        }
    }
    p.expect(")")?;
    // Decorations (`{built_in = "WorkgroupSize"}`), which MLIR's form lacks.
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let props = vec![
        NamedAttribute::new("constituents", Attribute::Array(parts)),
        NamedAttribute::new("sym_name", Attribute::String(name)),
        NamedAttribute::new("type", Attribute::Type(ty)),
    ];
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    set_attrs(p, op, props, extra);
    Ok(op)
}

fn print_spec_constant_composite(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let (Some(Attribute::String(name)), Some(Attribute::Array(parts)), Some(Attribute::Type(ty))) =
        (o.attr("sym_name"), o.attr("constituents"), o.attr("type"))
    else {
        return false;
    };
    p.out.push_str("spirv.SpecConstantComposite ");
    p.attr(&Attribute::SymbolRef(vec![name.clone()]));
    p.out.push_str(" (");
    for (i, c) in parts.iter().enumerate() {
        if i > 0 {
            p.out.push_str(", ");
        }
        p.attr(c);
    }
    p.out.push(')');
    p.merged_attr_dict(o, &["constituents", "sym_name", "type"], false);
    p.out.push_str(" : ");
    p.ty(*ty);
    true
}

/// `@name (@constituent) : type`.
fn parse_spec_constant_composite_replicate(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let name = symbol(p)?;
    p.expect("(")?;
    let constituent = symbol(p)?;
    p.expect(")")?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let props = vec![
        NamedAttribute::new("constituent", Attribute::SymbolRef(vec![constituent])),
        NamedAttribute::new("sym_name", Attribute::String(name)),
        NamedAttribute::new("type", Attribute::Type(ty)),
    ];
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    set_attrs(p, op, props, vec![]);
    Ok(op)
}

fn print_spec_constant_composite_replicate(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let (
        Some(Attribute::String(name)),
        Some(constituent @ Attribute::SymbolRef(_)),
        Some(Attribute::Type(ty)),
    ) = (o.attr("sym_name"), o.attr("constituent"), o.attr("type"))
    else {
        return false;
    };
    p.out.push_str("spirv.EXT.SpecConstantCompositeReplicate ");
    p.attr(&Attribute::SymbolRef(vec![name.clone()]));
    p.out.push_str(" (");
    p.attr(constituent);
    p.out.push_str(") : ");
    p.ty(*ty);
    true
}

fn parse_entry_point(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let model = string_token(p)?;
    let f = symbol(p)?;
    let mut interface = Vec::new();
    while p.eat(",") {
        interface.push(Attribute::SymbolRef(vec![symbol(p)?]));
    }
    let props = vec![
        NamedAttribute::new("execution_model", dialect("spirv.execution_model", &model)),
        NamedAttribute::new("fn", Attribute::SymbolRef(vec![f])),
        NamedAttribute::new("interface", Attribute::Array(interface)),
    ];
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    set_attrs(p, op, props, vec![]);
    Ok(op)
}

fn print_entry_point(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let (Some(model), Some(f)) = (dialect_body(o.attr("execution_model")), o.attr("fn")) else {
        return false;
    };
    p.out.push_str("spirv.EntryPoint ");
    p.string(model);
    p.out.push(' ');
    p.attr(f);
    if let Some(Attribute::Array(items)) = o.attr("interface") {
        for it in items {
            p.out.push_str(", ");
            p.attr(it);
        }
    }
    true
}

fn parse_execution_mode(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let f = symbol(p)?;
    let mode = string_token(p)?;
    let i32t = p.integer_type(32, Signedness::Signless);
    let mut values = Vec::new();
    while p.eat(",") {
        // A spec constant of an `OpExecutionModeId` (`LocalSizeId`), by symbol.
        if p.tok.kind == Tok::AtId {
            values.push(Attribute::SymbolRef(vec![symbol(p)?]));
            continue;
        }
        let negative = p.eat("-");
        values.push(p.parse_typed_number(negative, i32t)?);
    }
    let props = vec![
        NamedAttribute::new("execution_mode", dialect("spirv.execution_mode", &mode)),
        NamedAttribute::new("fn", Attribute::SymbolRef(vec![f])),
        NamedAttribute::new("values", Attribute::Array(values)),
    ];
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    set_attrs(p, op, props, vec![]);
    Ok(op)
}

fn print_execution_mode(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let (Some(mode), Some(f)) = (dialect_body(o.attr("execution_mode")), o.attr("fn")) else { return false };
    p.out.push_str("spirv.ExecutionMode ");
    p.attr(f);
    p.out.push(' ');
    p.string(mode);
    if let Some(Attribute::Array(items)) = o.attr("values") {
        for it in items {
            match it {
                Attribute::Integer { value, .. } => {
                    p.out.push_str(", ");
                    crate::text::printer::push_i128(&mut p.out, *value);
                }
                Attribute::SymbolRef(_) => {
                    p.out.push_str(", ");
                    p.attr(it);
                }
                _ => {}
            }
        }
    }
    true
}

// ---- functions and modules ----------------------------------------------------------

fn parse_func(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let name = symbol(p)?;
    p.expect("(")?;
    let mut args: Vec<(&str, Type, Location)> = Vec::new();
    let mut arg_attrs = Vec::new();
    // Declarations may list bare types; then the body (if any) gets no arguments.
    let mut input_types = Vec::new();
    if !p.at(")") {
        loop {
            if p.tok.kind == Tok::ValueId {
                let r = p.parse_operand_ref()?;
                p.expect(":")?;
                let ty = p.parse_type()?;
                arg_attrs.push(optional_attr_dict(p)?);
                let loc = if p.at_keyword("loc") { p.parse_location()? } else { p.location_here(r.offset) };
                args.push((r.name, ty, loc));
                input_types.push(ty);
            } else {
                input_types.push(p.parse_type()?);
                arg_attrs.push(optional_attr_dict(p)?);
            }
            if !p.eat(",") {
                break;
            }
        }
    }
    p.expect(")")?;
    let mut results = Vec::new();
    if p.eat("->") {
        results = p.parse_function_result_types()?;
    }
    let control = string_token(p)?;
    let extra = if p.eat_keyword("attributes") { p.parse_attribute_dict()? } else { Vec::new() };
    let fn_ty = p.ir.types.function(input_types, results);
    let mut props = vec![
        NamedAttribute::new("function_control", dialect("spirv.function_control", &control)),
        NamedAttribute::new("function_type", Attribute::Type(fn_ty)),
        NamedAttribute::new("sym_name", Attribute::String(name)),
    ];
    if arg_attrs.iter().any(|a| !a.is_empty()) {
        props.push(NamedAttribute::new(
            "arg_attrs",
            Attribute::Array(arg_attrs.into_iter().map(Attribute::Dictionary).collect()),
        ));
    }
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    set_attrs(p, op, props, extra);
    if p.at("{") {
        p.parse_region_into(op, &args)?;
    } else {
        p.ir.add_region(op);
    }
    Ok(op)
}

fn print_func(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let (Some(Attribute::String(name)), Some(Attribute::Type(fn_ty)), Some(control)) =
        (o.attr("sym_name"), o.attr("function_type"), dialect_body(o.attr("function_control")))
    else {
        return false;
    };
    let TypeKind::Function { inputs, results } = ir.types.kind(*fn_ty) else { return false };
    p.out.push_str("spirv.func ");
    p.symbol_ref(name);
    crate::text::custom::print_signature_args(p, o, inputs);
    if !results.is_empty() {
        p.out.push_str(" -> ");
        if results.len() > 1 {
            p.out.push('(');
        }
        p.types(results);
        if results.len() > 1 {
            p.out.push(')');
        }
    }
    p.out.push(' ');
    p.string(control);
    p.merged_attr_dict(o, &["sym_name", "function_type", "function_control", "arg_attrs", "res_attrs"], true);
    if let Some(&r) = o.regions.first() {
        if !p.ir.region(r).blocks.is_empty() {
            p.out.push(' ');
            p.region(r, false, false);
        }
    }
    true
}

fn parse_module(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let mut props = Vec::new();
    if p.tok.kind == Tok::AtId {
        let name = symbol(p)?;
        props.push(NamedAttribute::new("sym_name", Attribute::String(name)));
    }
    let addressing = p.tok.text.to_string();
    if p.tok.kind != Tok::Ident {
        return p.error("expected addressing model");
    }
    p.bump();
    let memory = p.tok.text.to_string();
    if p.tok.kind != Tok::Ident {
        return p.error("expected memory model");
    }
    p.bump();
    props.push(NamedAttribute::new("addressing_model", dialect("spirv.addressing_model", &addressing)));
    props.push(NamedAttribute::new("memory_model", dialect("spirv.memory_model", &memory)));
    if p.eat_keyword("requires") {
        let vce = p.parse_attribute()?;
        props.push(NamedAttribute::new("vce_triple", vce));
    }
    let extra = if p.eat_keyword("attributes") { p.parse_attribute_dict()? } else { Vec::new() };
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    set_attrs(p, op, props, extra);
    p.parse_region_into(op, &[])?;
    Ok(op)
}

fn print_module(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let (Some(addressing), Some(memory)) =
        (dialect_body(o.attr("addressing_model")), dialect_body(o.attr("memory_model")))
    else {
        return false;
    };
    p.out.push_str("spirv.module ");
    if let Some(Attribute::String(n)) = o.attr("sym_name") {
        p.symbol_ref(n);
        p.out.push(' ');
    }
    p.out.push_str(addressing);
    p.out.push(' ');
    p.out.push_str(memory);
    if let Some(vce) = o.attr("vce_triple") {
        p.out.push_str(" requires ");
        p.attr(vce);
    }
    p.merged_attr_dict(o, &["sym_name", "addressing_model", "memory_model", "vce_triple"], true);
    p.out.push(' ');
    p.region(o.regions[0], false, false);
    true
}

// ---- structured control flow --------------------------------------------------------

fn parse_structured(p: &mut Parser, op_name: &OpName) -> PResult<OpId> {
    let (attr_name, enum_name) = if *op_name == "spirv.mlir.loop" {
        ("loop_control", "spirv.loop_control")
    } else {
        ("selection_control", "spirv.selection_control")
    };
    let mut control = "None".to_string();
    if p.eat_keyword("control") {
        p.expect("(")?;
        let mut body = String::new();
        while !p.at(")") {
            if p.tok.kind == Tok::Eof {
                return p.error("expected ')'");
            }
            body.push_str(p.bump().text);
        }
        p.bump();
        control = body;
    }
    let mut results = Vec::new();
    if p.eat("->") {
        loop {
            results.push(p.parse_type()?);
            if !p.eat(",") {
                break;
            }
        }
    }
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    p.finish_op(op, vec![], &results);
    p.ir.op_mut(op).properties = vec![NamedAttribute::new(attr_name, dialect(enum_name, &control))];
    p.parse_region_into(op, &[])?;
    if p.at("{") {
        let extra = p.parse_attribute_dict()?;
        p.ir.op_mut(op).attributes = extra.into();
    }
    Ok(op)
}

fn print_structured(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let attr_name = if o.name == "spirv.mlir.loop" { "loop_control" } else { "selection_control" };
    p.out.push_str(&o.name);
    if let Some(control) = dialect_body(o.attr(attr_name)) {
        if control != "None" {
            p.out.push_str(" control(");
            p.out.push_str(control);
            p.out.push(')');
        }
    }
    if !o.results.is_empty() {
        p.out.push_str(" -> ");
        p.value_types(&o.results);
    }
    p.out.push(' ');
    p.region(o.regions[0], false, false);
    p.merged_attr_dict(o, &[attr_name], false);
    true
}

/// `^bb1(%a, %b : i32, i32)` or `^bb1`.
pub(crate) fn parse_successor_and_operands(p: &mut Parser, start: usize) -> PResult<(BlockId, Vec<Value>)> {
    let block = p.parse_successor()?;
    let mut values = Vec::new();
    if p.eat("(") {
        let mut refs: Vec<OperandRef> = Vec::new();
        loop {
            refs.push(p.parse_operand_ref()?);
            if !p.eat(",") {
                break;
            }
        }
        p.expect(":")?;
        let mut types = Vec::new();
        loop {
            types.push(p.parse_type()?);
            if !p.eat(",") {
                break;
            }
        }
        p.expect(")")?;
        values = p.resolve_operands(&refs, &types, start)?;
    }
    Ok((block, values))
}

pub(crate) fn print_successor_and_operands(p: &mut Printer, block: BlockId, values: &[Value]) {
    p.names.write_block(block, &mut p.out);
    if !values.is_empty() {
        p.out.push('(');
        p.values(values);
        p.out.push_str(" : ");
        p.value_types(values);
        p.out.push(')');
    }
}

fn parse_branch_conditional(p: &mut Parser, op_name: &OpName, start: usize) -> PResult<OpId> {
    let cond_ref = p.parse_operand_ref()?;
    let i1 = p.integer_type(1, Signedness::Signless);
    let cond = p.resolve_operands(&[cond_ref], &[i1], start)?;
    let mut weights = None;
    if p.eat("[") {
        let i32t = p.integer_type(32, Signedness::Signless);
        let a = signed_number(p, i32t)?;
        p.expect(",")?;
        let b = signed_number(p, i32t)?;
        p.expect("]")?;
        weights = Some(Attribute::Array(vec![a, b]));
    }
    p.expect(",")?;
    let (t, t_args) = parse_successor_and_operands(p, start)?;
    p.expect(",")?;
    let (f, f_args) = parse_successor_and_operands(p, start)?;
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    let i32t = p.integer_type(32, Signedness::Signless);
    let segments = Attribute::DenseArray {
        element: i32t,
        values: [1, t_args.len(), f_args.len()]
            .iter()
            .map(|&n| Attribute::Integer { value: n as i128, ty: i32t })
            .collect(),
    };
    let mut operands = cond;
    operands.extend(t_args);
    operands.extend(f_args);
    p.finish_op(op, operands, &[]);
    let o = p.ir.op_mut(op);
    o.successors = crate::ir::thin_vec![t, f];
    let segments = NamedAttribute::new("operandSegmentSizes", segments);
    o.properties = match weights {
        Some(w) => vec![NamedAttribute::new("branch_weights", w), segments],
        None => vec![segments],
    };
    Ok(op)
}

fn print_branch_conditional(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(Attribute::DenseArray { values, .. }) = o.attr("operandSegmentSizes") else { return false };
    let size = |v: &Attribute| if let Attribute::Integer { value, .. } = v { *value as usize } else { 0 };
    let [_, true_count, _] = values.as_slice() else { return false };
    let true_count = size(true_count);
    if o.successors.len() != 2 {
        return false;
    }
    let sizes = [1, true_count];
    p.out.push_str("spirv.BranchConditional ");
    p.value(o.operands[0]);
    if let Some(Attribute::Array(w)) = o.attr("branch_weights") {
        p.out.push_str(" [");
        for (i, a) in w.iter().enumerate() {
            if i > 0 {
                p.out.push_str(", ");
            }
            if let Attribute::Integer { value, .. } = a {
                crate::text::printer::push_i128(&mut p.out, *value);
            }
        }
        p.out.push(']');
    }
    p.out.push_str(", ");
    print_successor_and_operands(p, o.successors[0], &o.operands[1..1 + sizes[1]]);
    p.out.push_str(", ");
    print_successor_and_operands(p, o.successors[1], &o.operands[1 + sizes[1]..]);
    true
}

// ---- composites -------------------------------------------------------------------

/// The type reached by following constant `indices` into `ty`.
fn element_at(p: &Parser, mut ty: Type, indices: &[Attribute]) -> Option<Type> {
    for idx in indices {
        let Attribute::Integer { value, .. } = idx else { return None };
        let i = usize::try_from(*value).ok()?;
        ty = match p.ir.types.composite_step(ty, Some(i)) {
            CompositeStep::Element { ty, .. } | CompositeStep::Member(Some(ty)) => ty,
            CompositeStep::Member(None) | CompositeStep::Unknown | CompositeStep::NotComposite => {
                return None
            }
        };
    }
    Some(ty)
}

fn parse_index_list(p: &mut Parser) -> PResult<Vec<Attribute>> {
    let a = p.parse_attribute()?;
    match a {
        Attribute::Array(items) => Ok(items),
        _ => p.error("expected index array"),
    }
}

fn parse_composite_extract(p: &mut Parser, op_name: &OpName, start: usize) -> PResult<OpId> {
    let r = p.parse_operand_ref()?;
    let indices = parse_index_list(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let result = element_at(p, ty, &indices).ok_or_else(|| ParseError {
        notes: Vec::new(),
        offset: start,
        message: "invalid composite index".into(),
    })?;
    let v = p.resolve_operands(&[r], &[ty], start)?;
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    p.finish_op(op, v, &[result]);
    p.ir.op_mut(op).properties = vec![NamedAttribute::new("indices", Attribute::Array(indices))];
    Ok(op)
}

fn print_composite_extract(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(indices) = o.attr("indices") else { return false };
    p.out.push_str("spirv.CompositeExtract ");
    p.value(o.operands[0]);
    p.attr(indices);
    p.out.push_str(" : ");
    let t = p.ir.value_type(o.operands[0]);
    p.ty(t);
    true
}

fn parse_composite_insert(p: &mut Parser, op_name: &OpName, start: usize) -> PResult<OpId> {
    let object = p.parse_operand_ref()?;
    p.expect(",")?;
    let composite = p.parse_operand_ref()?;
    let indices = parse_index_list(p)?;
    p.expect(":")?;
    let object_ty = p.parse_type()?;
    p.expect_keyword("into")?;
    let composite_ty = p.parse_type()?;
    let v = p.resolve_operands(&[object, composite], &[object_ty, composite_ty], start)?;
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    p.finish_op(op, v, &[composite_ty]);
    p.ir.op_mut(op).properties = vec![NamedAttribute::new("indices", Attribute::Array(indices))];
    Ok(op)
}

fn print_composite_insert(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(indices) = o.attr("indices") else { return false };
    p.out.push_str("spirv.CompositeInsert ");
    p.value(o.operands[0]);
    p.out.push_str(", ");
    p.value(o.operands[1]);
    p.attr(indices);
    p.out.push_str(" : ");
    let t = p.ir.value_type(o.operands[0]);
    p.ty(t);
    p.out.push_str(" into ");
    let t = p.ir.value_type(o.operands[1]);
    p.ty(t);
    true
}

fn parse_struct_result_binary(p: &mut Parser, op_name: &OpName, start: usize) -> PResult<OpId> {
    let a = p.parse_operand_ref()?;
    p.expect(",")?;
    let b = p.parse_operand_ref()?;
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let member = match p.ir.types.kind(ty) {
        TypeKind::LiteralStruct(body) if !body.members.is_empty() => body.members[0].ty,
        _ => {
            return Err(Box::new(ParseError {
                notes: Vec::new(),
                offset: start,
                message: "expected spirv.struct type with two members".into(),
            }))
        }
    };
    let v = p.resolve_operands(&[a, b], &[member, member], start)?;
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    p.finish_op(op, v, &[ty]);
    p.ir.op_mut(op).attributes = extra.into();
    Ok(op)
}

fn print_struct_result_binary(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    p.out.push_str(&o.name);
    p.out.push(' ');
    p.values(&o.operands);
    p.attr_dict(&o.attributes, &[]);
    p.out.push_str(" : ");
    let t = p.ir.value_type(o.results[0]);
    p.ty(t);
    true
}

fn parse_ternary(p: &mut Parser, op_name: &OpName, start: usize) -> PResult<OpId> {
    let mut refs = vec![p.parse_operand_ref()?];
    for _ in 0..2 {
        p.expect(",")?;
        refs.push(p.parse_operand_ref()?);
    }
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let v = p.resolve_operands(&refs, &[ty, ty, ty], start)?;
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    p.finish_op(op, v, &[ty]);
    p.ir.op_mut(op).attributes = extra.into();
    Ok(op)
}

fn print_ternary(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    // The form writes one type for all: operands of other types (which MLIR's
    // verifier lets through) would read back with the result's, so generic.
    let Some(&result) = o.results.first() else { return false };
    let ty = ir.value_type(result);
    if o.operands.iter().any(|&v| ir.value_type(v) != ty) {
        return false;
    }
    p.out.push_str(&o.name);
    p.out.push(' ');
    p.values(&o.operands);
    p.attr_dict(&o.attributes, &[]);
    p.out.push_str(" : ");
    let t = p.ir.value_type(o.results[0]);
    p.ty(t);
    true
}

/// `"StorageBuffer" %ptr, %value : T`, printed without the storage class.
fn parse_block_write(p: &mut Parser, op_name: &OpName, start: usize) -> PResult<OpId> {
    let sc = string_token(p)?;
    let ptr = p.parse_operand_ref()?;
    p.expect(",")?;
    let value = p.parse_operand_ref()?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let element = match p.ir.types.kind(ty) {
        TypeKind::Vector { element, .. } => *element,
        _ => ty,
    };
    let ptr_ty = pointer(p, element, &sc);
    let v = p.resolve_operands(&[ptr, value], &[ptr_ty, ty], start)?;
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    p.finish_op(op, v, &[]);
    Ok(op)
}

fn print_block_write(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    p.out.push_str("spirv.INTEL.SubgroupBlockWrite ");
    p.values(&o.operands);
    p.out.push_str(" : ");
    let t = p.ir.value_type(o.operands[1]);
    p.ty(t);
    true
}

/// `wraps "spirv.IAdd"(%a, %b) : (i32, i32) -> i32`: the wrapped op in its generic
/// form, which becomes the body with a `spirv.mlir.yield` of its result.
fn parse_spec_constant_operation(p: &mut Parser, op_name: &OpName, start: usize) -> PResult<OpId> {
    p.expect_keyword("wraps")?;
    if p.tok.kind != Tok::String {
        return p.error("expected operation name in quotes");
    }
    let inner = p.parse_operation()?;
    let results = p.ir.op(inner).results.clone();
    let Some(&result) = results.first() else {
        return Err(Box::new(ParseError {
            notes: Vec::new(),
            offset: start,
            message: "wrapped op must have a result".into(),
        }));
    };
    let ty = p.ir.value_type(result);
    // The wrapper and its yield are located at the wrapped op, as in MLIR.
    let location = p.ir.op(inner).location.clone();
    let op = p.ir.create_op(op_name.clone(), vec![], &[], location.clone());
    p.finish_op(op, vec![], &[ty]);
    let region = p.ir.add_region(op);
    let block = p.ir.create_block();
    p.ir.append_block(region, block);
    p.ir.append_op(block, inner);
    let yield_op = p.ir.create_op("spirv.mlir.yield", vec![result], &[], location);
    p.ir.append_op(block, yield_op);
    Ok(op)
}

fn print_spec_constant_operation(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(&region) = o.regions.first() else { return false };
    let Some(&block) = p.ir.region(region).blocks.first() else { return false };
    let Some(&inner) = p.ir.block(block).ops.first() else { return false };
    p.out.push_str("spirv.SpecConstantOperation wraps ");
    p.generic(inner);
    true
}

/// `%sel : i32, [ default: ^bb1, 0: ^bb2(%x : f32), ... ]`.
fn parse_switch(p: &mut Parser, op_name: &OpName, start: usize) -> PResult<OpId> {
    let selector = p.parse_operand_ref()?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let selector = p.resolve_operands(&[selector], &[ty], start)?;
    p.expect(",")?;
    p.expect("[")?;
    p.expect_keyword("default")?;
    p.expect(":")?;
    let (default, default_args) = parse_successor_and_operands(p, start)?;
    let mut literals = Vec::new();
    let mut successors = vec![default];
    let mut case_values = Vec::new();
    let mut segments = Vec::new();
    while p.eat(",") {
        let negative = p.eat("-");
        literals.push(p.parse_typed_number(negative, ty)?);
        p.expect(":")?;
        let (block, args) = parse_successor_and_operands(p, start)?;
        successors.push(block);
        segments.push(args.len());
        case_values.extend(args);
    }
    p.expect("]")?;
    let i32t = p.integer_type(32, Signedness::Signless);
    let count = |n: usize| Attribute::Integer { value: n as i128, ty: i32t };
    let literals_ty = p.ir.types.vector(literals.len() as u64, ty);
    // MLIR leaves the optional `literals` out when there are no cases.
    let literals = (!literals.is_empty())
        .then(|| NamedAttribute::new("literals", Attribute::Dense { elements: literals, ty: literals_ty }));
    let props = [
        Some(NamedAttribute::new(
            "case_operand_segments",
            Attribute::DenseArray { element: i32t, values: segments.iter().map(|&n| count(n)).collect() },
        )),
        literals,
        Some(NamedAttribute::new(
            "operandSegmentSizes",
            Attribute::DenseArray {
                element: i32t,
                values: vec![count(1), count(default_args.len()), count(case_values.len())],
            },
        )),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut operands = selector;
    operands.extend(default_args);
    operands.extend(case_values);
    let op = p.ir.create_op(op_name.clone(), vec![], &[], Location::Unknown);
    p.finish_op(op, operands, &[]);
    let extra = optional_attr_dict(p)?;
    set_attrs(p, op, props, extra);
    p.ir.op_mut(op).successors = successors.into();
    Ok(op)
}

fn dense_counts(a: Option<&Attribute>) -> Option<Vec<usize>> {
    match a {
        Some(Attribute::DenseArray { values, .. }) => values
            .iter()
            .map(|v| if let Attribute::Integer { value, .. } = v { Some(*value as usize) } else { None })
            .collect(),
        _ => None,
    }
}

fn print_switch(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let (Some(segments), Some(cases)) =
        (dense_counts(o.attr("operandSegmentSizes")), dense_counts(o.attr("case_operand_segments")))
    else {
        return false;
    };
    // A switch with only a default target has no `literals`.
    let elements: &[Attribute] = match o.attr("literals") {
        Some(Attribute::Dense { elements, .. }) => elements,
        None => &[],
        Some(_) => return false,
    };
    if segments.len() != 3 || o.successors.len() != cases.len() + 1 || elements.len() != cases.len() {
        return false;
    }
    let selector_ty = p.ir.value_type(o.operands[0]);
    let width = match p.ir.types.kind(selector_ty) {
        TypeKind::Integer { width, .. } => *width,
        _ => 64,
    };
    p.out.push_str("spirv.Switch ");
    p.value(o.operands[0]);
    p.out.push_str(" : ");
    p.ty(selector_ty);
    p.out.push_str(", [");
    p.indent += 1;
    p.newline();
    p.out.push_str("default: ");
    let default_args = &o.operands[1..1 + segments[1]];
    print_successor_and_operands(p, o.successors[0], default_args);
    let mut at = 1 + segments[1];
    for (i, n) in cases.iter().enumerate() {
        p.out.push(',');
        p.newline();
        // Case values print as unsigned numbers of the selector's width.
        if let Attribute::Integer { value, .. } = &elements[i] {
            let bits = if width >= 128 { *value as u128 } else { (*value as u128) & ((1u128 << width) - 1) };
            p.out.push_str(&format!("{bits}: "));
        }
        print_successor_and_operands(p, o.successors[i + 1], &o.operands[at..at + n]);
        at += n;
    }
    p.indent -= 1;
    // MLIR closes the list on the default's line when there are no cases.
    if !cases.is_empty() {
        p.newline();
    }
    p.out.push(']');
    p.merged_attr_dict(o, &["case_operand_segments", "literals", "operandSegmentSizes"], false);
    true
}

#[cfg(test)]
mod tests {
    #[test]
    fn hand_written_forms_are_generated_ops() {
        for def in crate::opdef::OP_DEFS.iter() {
            let index = crate::opdef::op_def_index(def).expect("a table entry");
            assert_eq!(super::form_at(index), super::form_of(def.name), "{}", def.name);
        }
        for name in [
            "spirv.Constant",
            "spirv.func",
            "spirv.module",
            "spirv.mlir.loop",
            "spirv.GL.Fma",
            "spirv.Switch",
        ] {
            assert!(super::form_of(name).is_some() && crate::opdef::op_def(name).is_some(), "{name}");
        }
    }

    #[test]
    fn loads_and_stores_missing_their_operands_print_generic() {
        let text =
            "%0 = spirv.Constant 1 : i32\n\"spirv.Load\"() : () -> ()\n\"spirv.Store\"(%0) : (i32) -> ()\n";
        let (ir, top) = crate::parse(text, "t.mlir").unwrap();
        let printed = crate::print(&ir, top, Default::default());
        assert!(printed.contains("\"spirv.Load\"() : () -> ()"), "{printed}");
        assert!(printed.contains("\"spirv.Store\"(%cst1_i32) : (i32) -> ()"), "{printed}");
    }
}
