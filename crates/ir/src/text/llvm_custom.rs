//! Hand-written custom forms of the LLVM dialect ops that MLIR 22 parses and prints
//! with C++ (`hasCustomAssemblyFormat`), and of the declarative ones whose formats use
//! `custom<...>` directives (`llvm.getelementptr`, `llvm.extractvalue`, `llvm.switch`,
//! ...). Each pair reproduces `mlir-opt-22`'s text, quirks included (the trailing space
//! an empty `custom<InsertExtractValueElementType>` leaves).

use crate::attr::{Attribute, NamedAttribute};
use crate::ir::{BlockId, Location, OpId, Operation, Value};
use crate::llvm::{default_text, enum_keyword, enum_value_of};
use crate::text::custom::{dict_array, parse_result_list};
use crate::text::lexer::{unescape_to_string, Tok};
use crate::text::parser::{symbol_name, OperandRef, PResult, ParseError, Parser};
use crate::text::printer::{push_i128, Printer};
use crate::text::spirv_custom::{
    optional_attr_dict, parse_successor_and_operands, print_successor_and_operands, set_attrs,
};
use crate::types::{Signedness, Type, TypeKind};

/// The marker of a dynamic index among `llvm.getelementptr`'s `rawConstantIndices`
/// (`GEPOp::kDynamicIndex`).
const GEP_DYNAMIC_INDEX: i128 = i32::MIN as i128;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Func,
    Global,
    ICmp,
    FCmp,
    Call,
    CallIntrinsic,
    Alloca,
    ExtractValue,
    InsertValue,
    ShuffleVector,
    GetElementPtr,
    Switch,
}

fn form_of(name: &str) -> Option<Form> {
    Some(match name {
        "llvm.func" => Form::Func,
        "llvm.mlir.global" => Form::Global,
        "llvm.icmp" => Form::ICmp,
        "llvm.fcmp" => Form::FCmp,
        "llvm.call" => Form::Call,
        "llvm.call_intrinsic" => Form::CallIntrinsic,
        "llvm.alloca" => Form::Alloca,
        "llvm.extractvalue" => Form::ExtractValue,
        "llvm.insertvalue" => Form::InsertValue,
        "llvm.shufflevector" => Form::ShuffleVector,
        "llvm.getelementptr" => Form::GetElementPtr,
        "llvm.switch" => Form::Switch,
        _ => return None,
    })
}

/// The hand-written form of the op definition at `index` in `OP_DEFS`, if any.
fn form_at(index: usize) -> Option<Form> {
    static FORMS: std::sync::OnceLock<Vec<Option<Form>>> = std::sync::OnceLock::new();
    let forms = FORMS.get_or_init(|| crate::opdef::OP_DEFS.iter().map(|d| form_of(d.name)).collect());
    forms.get(index).copied().flatten()
}

/// Parses the custom form of the op at `index` in `OP_DEFS` (its name consumed), if
/// it is one of the hand-written LLVM forms.
pub(crate) fn parse_at(p: &mut Parser, index: usize, start: usize) -> Option<PResult<OpId>> {
    let form = form_at(index)?;
    Some(match form {
        Form::Func => parse_func(p, start),
        Form::Global => parse_global(p, start),
        Form::ICmp => parse_cmp(p, start, "llvm.icmp", "ICmpPredicate"),
        Form::FCmp => parse_cmp(p, start, "llvm.fcmp", "FCmpPredicate"),
        Form::Call => parse_call(p, start),
        Form::CallIntrinsic => parse_call_intrinsic(p, start),
        Form::Alloca => parse_alloca(p, start),
        Form::ExtractValue => parse_extractvalue(p, start),
        Form::InsertValue => parse_insertvalue(p, start),
        Form::ShuffleVector => parse_shufflevector(p, start),
        Form::GetElementPtr => parse_gep(p, start),
        Form::Switch => parse_switch(p, start),
    })
}

/// Prints `op` in its hand-written form: `None` if it has none, `Some(false)` if its
/// attributes do not fit the form (the caller then prints the generic form).
pub(crate) fn print(p: &mut Printer, op: OpId) -> Option<bool> {
    let form = form_at(p.ir.op(op).name.def_index()?)?;
    Some(match form {
        Form::Func => print_func(p, op),
        Form::Global => print_global(p, op),
        Form::ICmp => print_cmp(p, op, "llvm.icmp", "ICmpPredicate"),
        Form::FCmp => print_cmp(p, op, "llvm.fcmp", "FCmpPredicate"),
        Form::Call => print_call(p, op),
        Form::CallIntrinsic => print_call_intrinsic(p, op),
        Form::Alloca => print_alloca(p, op),
        Form::ExtractValue => print_extractvalue(p, op),
        Form::InsertValue => print_insertvalue(p, op),
        Form::ShuffleVector => print_shufflevector(p, op),
        Form::GetElementPtr => print_gep(p, op),
        Form::Switch => print_switch(p, op),
    })
}

// ---- shared pieces ------------------------------------------------------------------

fn error_at<T>(offset: usize, message: impl Into<String>) -> PResult<T> {
    Err(Box::new(ParseError { notes: Vec::new(), offset, message: message.into() }))
}

fn dialect_attr(name: &str, body: &str) -> Attribute {
    Attribute::Dialect { name: name.to_string(), body: Some(body.to_string()) }
}

fn dialect_body<'a>(o: &'a Operation, name: &str) -> Option<&'a str> {
    match o.attr(name) {
        Some(Attribute::Dialect { body: Some(b), .. }) => Some(b.as_str()),
        _ => None,
    }
}

fn int_attr(p: &mut Parser, value: i128, width: u32) -> Attribute {
    let ty = p.integer_type(width, Signedness::Signless);
    Attribute::Integer { value, ty }
}

fn i32_array(p: &mut Parser, values: impl IntoIterator<Item = i128>) -> Attribute {
    let element = p.integer_type(32, Signedness::Signless);
    Attribute::DenseArray {
        element,
        values: values.into_iter().map(|value| Attribute::Integer { value, ty: element }).collect(),
    }
}

fn integer_values(a: Option<&Attribute>) -> Option<Vec<i128>> {
    match a? {
        Attribute::DenseArray { values, .. }
        | Attribute::Array(values)
        | Attribute::Dense { elements: values, .. } => values
            .iter()
            .map(|v| match v {
                Attribute::Integer { value, .. } => Some(*value),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// An optional keyword among the spellings of an integer-stored enum (`internal`,
/// `spir_funccc`, `hidden`): its value, or `None` when the next token is none of them.
fn optional_enum_keyword(p: &mut Parser, enum_name: &str) -> Option<u64> {
    if p.tok.kind != Tok::Ident {
        return None;
    }
    let value = enum_value_of(enum_name, p.tok.text).filter(|_| !p.tok.text.is_empty())?;
    p.bump();
    Some(value)
}

/// The spelling of case `value` of `enum_name`.
fn enum_str(enum_name: &str, value: u64) -> Option<&'static str> {
    crate::opdef::ENUM_ATTRS
        .iter()
        .find(|e| e.enum_name == enum_name && e.mnemonic.is_none())?
        .case_by_value(value)
        .map(|c| c.str)
}

/// `op->getAttrs()` as MLIR's C++ printers see it (inherent attributes, with the
/// defaults MLIR materializes, and discardable ones, sorted), less `elided` and less
/// those of `elided_at_default` that hold their default; printed as `printOptionalAttrDict`
/// (or `...WithKeyword`) does.
fn print_attrs(p: &mut Printer, o: &Operation, elided: &[&str], elided_at_default: &[&str], keyword: bool) {
    let ir = p.ir;
    let def = o.name.def();
    let mut entries: Vec<(&str, String)> = Vec::new();
    for a in o.properties.iter().chain(o.attributes.iter()) {
        if elided.contains(&a.name.as_str()) {
            continue;
        }
        let mut text = String::new();
        crate::text::printer::write_attr_entry(ir, a, &mut text);
        if elided_at_default.contains(&a.name.as_str()) {
            let default = def.and_then(|d| d.attribute(&a.name)).and_then(|ad| default_text(ad.constraint()));
            let value = crate::text::printer::attribute_to_string(ir, &a.value);
            if default == Some(value.as_str()) {
                continue;
            }
        }
        entries.push((a.name.as_str(), text));
    }
    if let Some(def) = def {
        for (name, text) in crate::llvm::missing_defaults(def, o) {
            if !elided.contains(&name) && !elided_at_default.contains(&name) {
                entries.push((name, format!("{name} = {text}")));
            }
        }
    }
    if entries.is_empty() {
        return;
    }
    entries.sort_by(|a, b| a.0.cmp(b.0));
    if keyword {
        p.out.push_str(" attributes");
    }
    p.out.push_str(" {");
    for (i, (_, text)) in entries.iter().enumerate() {
        if i > 0 {
            p.out.push_str(", ");
        }
        p.out.push_str(text);
    }
    p.out.push('}');
}

fn parse_type_list(p: &mut Parser) -> PResult<Vec<Type>> {
    let mut types = Vec::new();
    loop {
        types.push(p.parse_type()?);
        if !p.eat(",") {
            return Ok(types);
        }
    }
}

fn parse_operand_list<'s>(p: &mut Parser<'s, '_>) -> PResult<Vec<OperandRef<'s>>> {
    let mut refs = Vec::new();
    if p.tok.kind == Tok::ValueId {
        loop {
            refs.push(p.parse_operand_ref()?);
            if !p.eat(",") {
                break;
            }
        }
    }
    Ok(refs)
}

/// `[0, 1]` as integers.
fn parse_integer_list(p: &mut Parser) -> PResult<Vec<i128>> {
    p.expect("[")?;
    let mut values = Vec::new();
    if !p.at("]") {
        loop {
            let negative = p.eat("-");
            if p.tok.kind != Tok::Integer {
                return p.error("expected integer value");
            }
            let i64t = p.integer_type(64, Signedness::Signless);
            match p.parse_typed_number(negative, i64t)? {
                Attribute::Integer { value, .. } => values.push(value),
                _ => return p.error("expected integer value"),
            }
            if !p.eat(",") {
                break;
            }
        }
    }
    p.expect("]")?;
    Ok(values)
}

fn print_integer_list(p: &mut Printer, values: &[i128]) {
    p.out.push('[');
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            p.out.push_str(", ");
        }
        push_i128(&mut p.out, *v);
    }
    p.out.push(']');
}

// ---- llvm.func ------------------------------------------------------------------------

/// `(%arg0: T {attrs}, ...)`, `(T, T)` for a declaration, with a trailing `...` for a
/// variadic function.
#[allow(clippy::type_complexity)]
fn parse_func_args<'s>(
    p: &mut Parser<'s, '_>,
) -> PResult<(Vec<(&'s str, Type, Location)>, Vec<Vec<NamedAttribute>>, bool)> {
    p.expect("(")?;
    let mut args = Vec::new();
    let mut attrs = Vec::new();
    let mut variadic = false;
    if !p.at(")") {
        loop {
            if p.eat("...") {
                variadic = true;
                break;
            }
            if p.tok.kind == Tok::ValueId {
                let r = p.parse_operand_ref()?;
                p.expect(":")?;
                let ty = p.parse_type()?;
                let a = optional_attr_dict(p)?;
                let loc = if p.at_keyword("loc") { p.parse_location()? } else { p.location_here(r.offset) };
                args.push((r.name, ty, loc));
                attrs.push(a);
            } else {
                let ty = p.parse_type()?;
                let a = optional_attr_dict(p)?;
                args.push(("", ty, Location::Unknown));
                attrs.push(a);
            }
            if !p.eat(",") {
                break;
            }
        }
    }
    p.expect(")")?;
    Ok((args, attrs, variadic))
}

fn parse_func(p: &mut Parser, start: usize) -> PResult<OpId> {
    let linkage = optional_enum_keyword(p, "Linkage").unwrap_or(0);
    let visibility = optional_enum_keyword(p, "Visibility").unwrap_or(0);
    let unnamed_addr = optional_enum_keyword(p, "UnnamedAddr").unwrap_or(0);
    let cconv = optional_enum_keyword(p, "CConv").unwrap_or(0);
    if p.tok.kind != Tok::AtId {
        return p.error("expected valid '@'-identifier for symbol name");
    }
    let name = symbol_name(p.bump().text);
    let (args, arg_attrs, variadic) = parse_func_args(p)?;
    let (results, res_attrs) = parse_result_list(p)?;
    if results.len() > 1 {
        return error_at(start, "expected zero or one function result");
    }
    if p.at_keyword("vscale_range") {
        return p.error("not supported yet: llvm.func's vscale_range");
    }
    let result = match results.first() {
        Some(&t) => t,
        None => p.ir.types.llvm_void(),
    };
    let fn_type = p.ir.types.llvm_function(result, args.iter().map(|a| a.1).collect(), variadic);
    let mut props = vec![
        NamedAttribute::new("CConv", dialect_attr("llvm.cconv", enum_str("CConv", cconv).unwrap_or("ccc"))),
        NamedAttribute::new("function_type", Attribute::Type(fn_type)),
        NamedAttribute::new(
            "linkage",
            dialect_attr("llvm.linkage", enum_str("Linkage", linkage).unwrap_or("external")),
        ),
        NamedAttribute::new("sym_name", Attribute::String(name)),
    ];
    let unnamed_addr = int_attr(p, i128::from(unnamed_addr), 64);
    props.push(NamedAttribute::new("unnamed_addr", unnamed_addr));
    let visibility = int_attr(p, i128::from(visibility), 64);
    props.push(NamedAttribute::new("visibility_", visibility));
    if let Some(a) = dict_array(arg_attrs) {
        props.push(NamedAttribute::new("arg_attrs", a));
    }
    if let Some(a) = dict_array(res_attrs) {
        props.push(NamedAttribute::new("res_attrs", a));
    }
    let extra = if p.eat_keyword("attributes") { p.parse_attribute_dict()? } else { Vec::new() };
    let op = p.ir.create_op("llvm.func", vec![], &[], Location::Unknown);
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
    let Some(Attribute::Type(fn_ty)) = o.attr("function_type") else { return false };
    let TypeKind::LlvmFunction { result, params, variadic } = ir.types.kind(*fn_ty) else { return false };
    let Some(Attribute::String(name)) = o.attr("sym_name") else { return false };
    if o.attr("vscale_range").is_some() || o.attr("comdat").is_some() {
        return false;
    }
    let linkage = dialect_body(o, "linkage").unwrap_or("external");
    let cconv = dialect_body(o, "CConv").unwrap_or("ccc");
    let visibility = enum_keyword("Visibility", o.attr("visibility_")).unwrap_or("");
    let unnamed_addr = enum_keyword("UnnamedAddr", o.attr("unnamed_addr")).unwrap_or("");
    p.out.push_str("llvm.func ");
    for word in [if linkage == "external" { "" } else { linkage }, visibility, unnamed_addr] {
        if !word.is_empty() {
            p.out.push_str(word);
            p.out.push(' ');
        }
    }
    if cconv != "ccc" {
        p.out.push_str(cconv);
        p.out.push(' ');
    }
    p.symbol_ref(name);
    crate::text::custom::print_signature_args(p, o, params);
    if *variadic {
        // `(i32, ...)`: the closing parenthesis is already written.
        p.out.pop();
        p.out.push_str(if params.is_empty() { "..." } else { ", ..." });
        p.out.push(')');
    }
    if !matches!(ir.types.kind(*result), TypeKind::LlvmVoid) {
        p.out.push_str(" -> ");
        let res_attrs = match o.attr("res_attrs") {
            Some(Attribute::Array(a)) => a.as_slice(),
            _ => &[],
        };
        match res_attrs.first() {
            Some(Attribute::Dictionary(d)) if !d.is_empty() => {
                p.out.push('(');
                p.ty(*result);
                p.attr_dict(d, &[]);
                p.out.push(')');
            }
            _ => p.ty(*result),
        }
    }
    print_attrs(
        p,
        o,
        &[
            "sym_name",
            "function_type",
            "arg_attrs",
            "res_attrs",
            "linkage",
            "CConv",
            "visibility_",
            "comdat",
            "unnamed_addr",
            "vscale_range",
        ],
        &[],
        true,
    );
    if let Some(&r) = o.regions.first() {
        if !ir.region(r).blocks.is_empty() {
            p.out.push(' ');
            p.region(r, false, true);
        }
    }
    true
}

// ---- llvm.mlir.global ------------------------------------------------------------------

fn parse_global(p: &mut Parser, start: usize) -> PResult<OpId> {
    let linkage = optional_enum_keyword(p, "Linkage").unwrap_or(0);
    let visibility = optional_enum_keyword(p, "Visibility").unwrap_or(0);
    let thread_local = p.eat_keyword("thread_local");
    let unnamed_addr = optional_enum_keyword(p, "UnnamedAddr").unwrap_or(0);
    let constant = p.eat_keyword("constant");
    if p.tok.kind != Tok::AtId {
        return p.error("expected valid '@'-identifier for symbol name");
    }
    let name = symbol_name(p.bump().text);
    p.expect("(")?;
    let value = if p.at(")") { None } else { Some(p.parse_attribute()?) };
    p.expect(")")?;
    if p.at_keyword("comdat") {
        return p.error("not supported yet: llvm.mlir.global's comdat");
    }
    let extra = optional_attr_dict(p)?;
    let ty = if p.eat(":") {
        let types = parse_type_list(p)?;
        if types.len() > 1 {
            return error_at(start, "expected zero or one type");
        }
        types[0]
    } else {
        match &value {
            Some(Attribute::String(s)) => {
                let i8t = p.integer_type(8, Signedness::Signless);
                p.ir.types.llvm_array(s.len() as u64, i8t)
            }
            _ => return error_at(start, "type can only be omitted for string globals"),
        }
    };
    let mut props = vec![
        NamedAttribute::new("global_type", Attribute::Type(ty)),
        NamedAttribute::new(
            "linkage",
            dialect_attr("llvm.linkage", enum_str("Linkage", linkage).unwrap_or("external")),
        ),
        NamedAttribute::new("sym_name", Attribute::String(name)),
    ];
    let unnamed_addr = int_attr(p, i128::from(unnamed_addr), 64);
    props.push(NamedAttribute::new("unnamed_addr", unnamed_addr));
    let visibility = int_attr(p, i128::from(visibility), 64);
    props.push(NamedAttribute::new("visibility_", visibility));
    if constant {
        props.push(NamedAttribute::new("constant", Attribute::Unit));
    }
    if thread_local {
        props.push(NamedAttribute::new("thread_local_", Attribute::Unit));
    }
    if let Some(value) = value {
        props.push(NamedAttribute::new("value", value));
    }
    let op = p.ir.create_op("llvm.mlir.global", vec![], &[], Location::Unknown);
    set_attrs(p, op, props, extra);
    if p.at("{") && !matches!(p.ir.op(op).attr("value"), Some(Attribute::String(_))) {
        p.parse_region_into(op, &[])?;
    } else {
        p.ir.add_region(op);
    }
    Ok(op)
}

fn print_global(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(Attribute::Type(ty)) = o.attr("global_type") else { return false };
    let Some(Attribute::String(name)) = o.attr("sym_name") else { return false };
    if o.attr("comdat").is_some() {
        return false;
    }
    p.out.push_str("llvm.mlir.global ");
    p.out.push_str(dialect_body(o, "linkage").unwrap_or("external"));
    p.out.push(' ');
    let visibility = enum_keyword("Visibility", o.attr("visibility_")).unwrap_or("");
    let unnamed_addr = enum_keyword("UnnamedAddr", o.attr("unnamed_addr")).unwrap_or("");
    let thread_local = if o.attr("thread_local_").is_some() { "thread_local" } else { "" };
    let constant = if o.attr("constant").is_some() { "constant" } else { "" };
    for word in [visibility, thread_local, unnamed_addr, constant] {
        if !word.is_empty() {
            p.out.push_str(word);
            p.out.push(' ');
        }
    }
    p.symbol_ref(name);
    p.out.push('(');
    let value = o.attr("value");
    if let Some(v) = value {
        p.attr(v);
    }
    p.out.push(')');
    print_attrs(
        p,
        o,
        &[
            "sym_name",
            "global_type",
            "constant",
            "value",
            "linkage",
            "unnamed_addr",
            "thread_local_",
            "visibility_",
            "comdat",
        ],
        &[],
        false,
    );
    if matches!(value, Some(Attribute::String(_))) {
        return true;
    }
    p.out.push_str(" : ");
    p.ty(*ty);
    if let Some(&r) = o.regions.first() {
        if !ir.region(r).blocks.is_empty() {
            p.out.push(' ');
            p.region(r, false, true);
        }
    }
    true
}

// ---- llvm.icmp / llvm.fcmp -------------------------------------------------------------

/// `i1`, or a vector of `i1` shaped as `ty`.
fn bool_like(p: &mut Parser, ty: Type) -> Type {
    let i1 = p.integer_type(1, Signedness::Signless);
    match p.ir.types.kind(ty).clone() {
        TypeKind::Vector { shape, scalable, .. } => {
            p.ir.types.intern(TypeKind::Vector { shape, scalable, element: i1 })
        }
        _ => i1,
    }
}

fn parse_cmp(p: &mut Parser, start: usize, name: &str, enum_name: &str) -> PResult<OpId> {
    if p.tok.kind != Tok::String {
        return p.error("expected string");
    }
    let tok = p.bump();
    let keyword = unescape_to_string(tok.text);
    let Some(value) = enum_value_of(enum_name, &keyword) else {
        return error_at(
            tok.offset,
            format!("'{keyword}' is an incorrect value of the 'predicate' attribute"),
        );
    };
    let lhs = p.parse_operand_ref()?;
    p.expect(",")?;
    let rhs = p.parse_operand_ref()?;
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let operands = p.resolve_operands(&[lhs, rhs], &[ty, ty], start)?;
    let result = bool_like(p, ty);
    let op = p.ir.create_op(name, vec![], &[], Location::Unknown);
    p.finish_op(op, operands, &[result]);
    let predicate = int_attr(p, i128::from(value), 64);
    set_attrs(p, op, vec![NamedAttribute::new("predicate", predicate)], extra);
    Ok(op)
}

fn print_cmp(p: &mut Printer, op: OpId, name: &str, enum_name: &str) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(predicate) = enum_keyword(enum_name, o.attr("predicate")) else { return false };
    let [lhs, rhs] = o.operands[..] else { return false };
    if ir.value_type(lhs) != ir.value_type(rhs) || o.results.len() != 1 {
        return false;
    }
    p.out.push_str(name);
    p.out.push_str(" \"");
    p.out.push_str(predicate);
    p.out.push_str("\" ");
    p.value(lhs);
    p.out.push_str(", ");
    p.value(rhs);
    print_attrs(p, o, &["predicate"], &["fastmathFlags"], false);
    p.out.push_str(" : ");
    p.ty(ir.value_type(lhs));
    true
}

// ---- llvm.call -----------------------------------------------------------------------

fn parse_call(p: &mut Parser, start: usize) -> PResult<OpId> {
    let cconv = optional_enum_keyword(p, "CConv").unwrap_or(0);
    let tail = optional_enum_keyword(p, "TailCallKind").unwrap_or(0);
    let (callee, callee_ptr) = match p.tok.kind {
        Tok::AtId => (Some(symbol_name(p.bump().text)), None),
        Tok::ValueId => (None, Some(p.parse_operand_ref()?)),
        _ => return p.error("expected a callee symbol or value"),
    };
    p.expect("(")?;
    let args = parse_operand_list(p)?;
    p.expect(")")?;
    let var_callee_type = if p.eat_keyword("vararg") {
        p.expect("(")?;
        let t = p.parse_type()?;
        p.expect(")")?;
        Some(t)
    } else {
        None
    };
    if p.at("[") {
        return p.error("not supported yet: llvm.call's operand bundles");
    }
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let callee_ty = if callee_ptr.is_some() {
        let t = p.parse_type()?;
        p.expect(",")?;
        Some(t)
    } else {
        None
    };
    p.expect("(")?;
    let inputs = if p.at(")") { Vec::new() } else { parse_type_list(p)? };
    p.expect(")")?;
    p.expect("->")?;
    let results = p.parse_function_result_types()?;
    let mut refs: Vec<OperandRef> = callee_ptr.into_iter().collect();
    refs.extend(args);
    let mut types: Vec<Type> = callee_ty.into_iter().collect();
    types.extend(inputs);
    let operands = p.resolve_operands(&refs, &types, start)?;
    let op = p.ir.create_op("llvm.call", vec![], &[], Location::Unknown);
    let count = operands.len() as i128;
    p.finish_op(op, operands, &results);
    let mut props = vec![
        NamedAttribute::new("CConv", dialect_attr("llvm.cconv", enum_str("CConv", cconv).unwrap_or("ccc"))),
        NamedAttribute::new(
            "TailCallKind",
            dialect_attr("llvm.tailcallkind", enum_str("TailCallKind", tail).unwrap_or("none")),
        ),
        NamedAttribute::new("op_bundle_sizes", i32_array(p, [])),
        NamedAttribute::new("operandSegmentSizes", i32_array(p, [count, 0])),
    ];
    if let Some(callee) = callee {
        props.push(NamedAttribute::new("callee", Attribute::SymbolRef(vec![callee])));
    }
    if let Some(t) = var_callee_type {
        props.push(NamedAttribute::new("var_callee_type", Attribute::Type(t)));
    }
    set_attrs(p, op, props, extra);
    Ok(op)
}

fn print_call(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    if integer_values(o.attr("op_bundle_sizes")).is_some_and(|s| !s.is_empty()) || o.results.len() > 1 {
        return false;
    }
    let callee = match o.attr("callee") {
        Some(Attribute::SymbolRef(path)) if path.len() == 1 => Some(path[0].as_str()),
        Some(_) => return false,
        None => None,
    };
    if callee.is_none() && o.operands.is_empty() {
        return false;
    }
    p.out.push_str("llvm.call ");
    let cconv = dialect_body(o, "CConv").unwrap_or("ccc");
    if cconv != "ccc" {
        p.out.push_str(cconv);
        p.out.push(' ');
    }
    let tail = dialect_body(o, "TailCallKind").unwrap_or("none");
    if tail != "none" {
        p.out.push_str(tail);
        p.out.push(' ');
    }
    let args = match callee {
        Some(name) => {
            p.symbol_ref(name);
            &o.operands[..]
        }
        None => {
            p.value(o.operands[0]);
            &o.operands[1..]
        }
    };
    p.out.push('(');
    p.values(args);
    p.out.push(')');
    match o.attr("var_callee_type") {
        Some(Attribute::Type(t)) => {
            p.out.push_str(" vararg(");
            p.ty(*t);
            p.out.push(')');
        }
        Some(_) => return false,
        None => {}
    }
    print_attrs(
        p,
        o,
        &[
            "callee",
            "TailCallKind",
            "var_callee_type",
            "CConv",
            "operandSegmentSizes",
            "op_bundle_sizes",
            "op_bundle_tags",
            "arg_attrs",
            "res_attrs",
        ],
        &["fastmathFlags"],
        false,
    );
    p.out.push_str(" : ");
    if callee.is_none() {
        p.ty(ir.value_type(o.operands[0]));
        p.out.push_str(", ");
    }
    p.out.push('(');
    p.value_types(args);
    p.out.push_str(") -> ");
    match o.results.first() {
        Some(&r) => p.ty(ir.value_type(r)),
        None => p.out.push_str("()"),
    }
    true
}

// ---- llvm.call_intrinsic ---------------------------------------------------------------

/// `llvm.call_intrinsic "llvm.name"(%a, %b) {attrs} : (T, U) -> R`.
fn parse_call_intrinsic(p: &mut Parser, start: usize) -> PResult<OpId> {
    if p.tok.kind != Tok::String {
        return p.error("expected string");
    }
    let intrin = unescape_to_string(p.bump().text);
    p.expect("(")?;
    let args = parse_operand_list(p)?;
    p.expect(")")?;
    if p.at("[") {
        return p.error("not supported yet: llvm.call_intrinsic's operand bundles");
    }
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    p.expect("(")?;
    let inputs = if p.at(")") { Vec::new() } else { parse_type_list(p)? };
    p.expect(")")?;
    p.expect("->")?;
    let results = p.parse_function_result_types()?;
    let operands = p.resolve_operands(&args, &inputs, start)?;
    let count = operands.len() as i128;
    let op = p.ir.create_op("llvm.call_intrinsic", vec![], &[], Location::Unknown);
    p.finish_op(op, operands, &results);
    let props = vec![
        NamedAttribute::new("intrin", Attribute::String(intrin)),
        NamedAttribute::new("op_bundle_sizes", i32_array(p, [])),
        NamedAttribute::new("operandSegmentSizes", i32_array(p, [count, 0])),
    ];
    set_attrs(p, op, props, extra);
    Ok(op)
}

fn print_call_intrinsic(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(Attribute::String(intrin)) = o.attr("intrin") else { return false };
    if integer_values(o.attr("op_bundle_sizes")).is_some_and(|s| !s.is_empty()) || o.results.len() > 1 {
        return false;
    }
    p.out.push_str("llvm.call_intrinsic ");
    p.string(intrin);
    p.out.push('(');
    p.values(&o.operands);
    p.out.push(')');
    print_attrs(
        p,
        o,
        &["intrin", "operandSegmentSizes", "op_bundle_sizes", "op_bundle_tags", "arg_attrs", "res_attrs"],
        &["fastmathFlags"],
        false,
    );
    p.out.push_str(" : (");
    p.value_types(&o.operands);
    p.out.push_str(") -> ");
    match o.results.first() {
        Some(&r) => p.ty(ir.value_type(r)),
        None => p.out.push_str("()"),
    }
    true
}

// ---- llvm.alloca ----------------------------------------------------------------------

fn parse_alloca(p: &mut Parser, start: usize) -> PResult<OpId> {
    let inalloca = p.eat_keyword("inalloca");
    let size = p.parse_operand_ref()?;
    p.expect_keyword("x")?;
    let elem = p.parse_type()?;
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let fn_ty = p.parse_type()?;
    let (inputs, results) = match p.ir.types.kind(fn_ty) {
        TypeKind::Function { inputs, results } if inputs.len() == 1 && results.len() == 1 => {
            (inputs.clone(), results.clone())
        }
        _ => return error_at(start, "expected trailing function type with one argument and one result"),
    };
    let operands = p.resolve_operands(&[size], &inputs, start)?;
    let op = p.ir.create_op("llvm.alloca", vec![], &[], Location::Unknown);
    p.finish_op(op, operands, &results);
    let mut props = vec![NamedAttribute::new("elem_type", Attribute::Type(elem))];
    if inalloca {
        props.push(NamedAttribute::new("inalloca", Attribute::Unit));
    }
    set_attrs(p, op, props, extra);
    Ok(op)
}

fn print_alloca(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(Attribute::Type(elem)) = o.attr("elem_type") else { return false };
    let ([size], [result]) = (&o.operands[..], &o.results[..]) else { return false };
    p.out.push_str("llvm.alloca");
    if o.attr("inalloca").is_some() {
        p.out.push_str(" inalloca");
    }
    p.out.push(' ');
    p.value(*size);
    p.out.push_str(" x ");
    p.ty(*elem);
    let zero_alignment = matches!(o.attr("alignment"), Some(Attribute::Integer { value: 0, .. }));
    let elided: &[&str] =
        if zero_alignment { &["alignment", "elem_type", "inalloca"] } else { &["elem_type", "inalloca"] };
    print_attrs(p, o, elided, &[], false);
    p.out.push_str(" : (");
    p.ty(ir.value_type(*size));
    p.out.push_str(") -> ");
    p.ty(ir.value_type(*result));
    true
}

// ---- aggregates and vectors --------------------------------------------------------------

/// The type at `position` inside an LLVM aggregate (`llvm.extractvalue`'s result).
fn aggregate_element(ir: &crate::Ir, mut ty: Type, position: &[i128]) -> Option<Type> {
    for &index in position {
        let index = usize::try_from(index).ok()?;
        ty = match ir.types.kind(ty) {
            TypeKind::LlvmArray { count, element } if (index as u64) < *count => *element,
            TypeKind::LlvmStruct { members, .. } => *members.get(index)?,
            _ => return None,
        };
    }
    Some(ty)
}

fn i64_array(p: &mut Parser, values: &[i128]) -> Attribute {
    let element = p.integer_type(64, Signedness::Signless);
    Attribute::DenseArray {
        element,
        values: values.iter().map(|&value| Attribute::Integer { value, ty: element }).collect(),
    }
}

fn parse_extractvalue(p: &mut Parser, start: usize) -> PResult<OpId> {
    let container = p.parse_operand_ref()?;
    let position = parse_integer_list(p)?;
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let Some(result) = aggregate_element(p.ir, ty, &position) else {
        return error_at(start, "invalid LLVM structure element type");
    };
    let operands = p.resolve_operands(&[container], &[ty], start)?;
    let op = p.ir.create_op("llvm.extractvalue", vec![], &[], Location::Unknown);
    p.finish_op(op, operands, &[result]);
    let position = i64_array(p, &position);
    set_attrs(p, op, vec![NamedAttribute::new("position", position)], extra);
    Ok(op)
}

fn print_extractvalue(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(position) = integer_values(o.attr("position")) else { return false };
    let ([container], [result]) = (&o.operands[..], &o.results[..]) else { return false };
    if aggregate_element(ir, ir.value_type(*container), &position) != Some(ir.value_type(*result)) {
        return false;
    }
    p.out.push_str("llvm.extractvalue ");
    p.value(*container);
    print_integer_list(p, &position);
    p.merged_attr_dict(o, &["position"], false);
    p.out.push_str(" : ");
    p.ty(ir.value_type(*container));
    // The format's `custom<InsertExtractValueElementType>` prints nothing after its space.
    p.out.push(' ');
    true
}

fn parse_insertvalue(p: &mut Parser, start: usize) -> PResult<OpId> {
    let value = p.parse_operand_ref()?;
    p.expect(",")?;
    let container = p.parse_operand_ref()?;
    let position = parse_integer_list(p)?;
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let Some(element) = aggregate_element(p.ir, ty, &position) else {
        return error_at(start, "invalid LLVM structure element type");
    };
    let operands = p.resolve_operands(&[container, value], &[ty, element], start)?;
    let op = p.ir.create_op("llvm.insertvalue", vec![], &[], Location::Unknown);
    p.finish_op(op, operands, &[ty]);
    let position = i64_array(p, &position);
    set_attrs(p, op, vec![NamedAttribute::new("position", position)], extra);
    Ok(op)
}

fn print_insertvalue(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(position) = integer_values(o.attr("position")) else { return false };
    let ([container, value], [result]) = (&o.operands[..], &o.results[..]) else { return false };
    let container_ty = ir.value_type(*container);
    if ir.value_type(*result) != container_ty
        || aggregate_element(ir, container_ty, &position) != Some(ir.value_type(*value))
    {
        return false;
    }
    p.out.push_str("llvm.insertvalue ");
    p.value(*value);
    p.out.push_str(", ");
    p.value(*container);
    print_integer_list(p, &position);
    p.merged_attr_dict(o, &["position"], false);
    p.out.push_str(" : ");
    p.ty(container_ty);
    p.out.push(' ');
    true
}

fn parse_shufflevector(p: &mut Parser, start: usize) -> PResult<OpId> {
    let v1 = p.parse_operand_ref()?;
    p.expect(",")?;
    let v2 = p.parse_operand_ref()?;
    let mask = parse_integer_list(p)?;
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let TypeKind::Vector { scalable, element, .. } = p.ir.types.kind(ty).clone() else {
        return error_at(start, "expected an LLVM compatible vector type");
    };
    let result = p.ir.types.intern(TypeKind::Vector {
        shape: vec![mask.len() as u64],
        scalable: scalable.first().map_or_else(Vec::new, |&s| vec![s]),
        element,
    });
    let operands = p.resolve_operands(&[v1, v2], &[ty, ty], start)?;
    let op = p.ir.create_op("llvm.shufflevector", vec![], &[], Location::Unknown);
    p.finish_op(op, operands, &[result]);
    let mask = i32_array(p, mask);
    set_attrs(p, op, vec![NamedAttribute::new("mask", mask)], extra);
    Ok(op)
}

fn print_shufflevector(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(mask) = integer_values(o.attr("mask")) else { return false };
    let ([v1, v2], [result]) = (&o.operands[..], &o.results[..]) else { return false };
    let ty = ir.value_type(*v1);
    let result_fits = match (ir.types.kind(ty), ir.types.kind(ir.value_type(*result))) {
        (TypeKind::Vector { element, .. }, TypeKind::Vector { shape, element: e, .. }) => {
            element == e && shape.as_slice() == [mask.len() as u64]
        }
        _ => false,
    };
    if ir.value_type(*v2) != ty || !result_fits {
        return false;
    }
    p.out.push_str("llvm.shufflevector ");
    p.value(*v1);
    p.out.push_str(", ");
    p.value(*v2);
    p.out.push(' ');
    print_integer_list(p, &mask);
    p.merged_attr_dict(o, &["mask"], false);
    p.out.push_str(" : ");
    p.ty(ty);
    p.out.push(' ');
    true
}

// ---- llvm.getelementptr --------------------------------------------------------------------

/// `GEPNoWrapFlags` as MLIR spells them (`inbounds|nuw`), from the enum table.
fn gep_flags_text(value: u64) -> Option<String> {
    crate::text::format::bit_enum_text("GEPNoWrapFlags", value, "|")
}

fn parse_gep_flags(p: &mut Parser) -> PResult<u64> {
    let mut value = 0;
    let Some(flags) = crate::opdef::ENUM_ATTRS.iter().find(|e| e.enum_name == "GEPNoWrapFlags") else {
        return Ok(0);
    };
    while p.tok.kind == Tok::Ident {
        let Some(case) = flags.case_by_str(p.tok.text).filter(|c| c.value != 0) else { break };
        p.bump();
        value |= case.value;
        if !p.eat("|") {
            break;
        }
    }
    Ok(value)
}

fn parse_gep(p: &mut Parser, start: usize) -> PResult<OpId> {
    let flags = parse_gep_flags(p)?;
    let base = p.parse_operand_ref()?;
    p.expect("[")?;
    let mut raw = Vec::new();
    let mut dynamic = Vec::new();
    if !p.at("]") {
        loop {
            if p.tok.kind == Tok::ValueId {
                dynamic.push(p.parse_operand_ref()?);
                raw.push(GEP_DYNAMIC_INDEX);
            } else {
                let negative = p.eat("-");
                let i32t = p.integer_type(32, Signedness::Signless);
                match p.parse_typed_number(negative, i32t)? {
                    Attribute::Integer { value, .. } => raw.push(value),
                    _ => return p.error("expected an integer index"),
                }
            }
            if !p.eat(",") {
                break;
            }
        }
    }
    p.expect("]")?;
    let extra = optional_attr_dict(p)?;
    p.expect(":")?;
    let fn_ty = p.parse_type()?;
    let (inputs, results) = match p.ir.types.kind(fn_ty) {
        TypeKind::Function { inputs, results } => (inputs.clone(), results.clone()),
        _ => return error_at(start, "expected function type"),
    };
    p.expect(",")?;
    let elem = p.parse_type()?;
    let mut refs = vec![base];
    refs.extend(dynamic);
    let operands = p.resolve_operands(&refs, &inputs, start)?;
    let op = p.ir.create_op("llvm.getelementptr", vec![], &[], Location::Unknown);
    p.finish_op(op, operands, &results);
    let flags = int_attr(p, i128::from(flags), 32);
    let raw = i32_array(p, raw);
    let props = vec![
        NamedAttribute::new("elem_type", Attribute::Type(elem)),
        NamedAttribute::new("noWrapFlags", flags),
        NamedAttribute::new("rawConstantIndices", raw),
    ];
    set_attrs(p, op, props, extra);
    Ok(op)
}

fn print_gep(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(Attribute::Type(elem)) = o.attr("elem_type") else { return false };
    let Some(raw) = integer_values(o.attr("rawConstantIndices")) else { return false };
    let flags = match o.attr("noWrapFlags") {
        Some(Attribute::Integer { value, .. }) => u64::try_from(*value).ok(),
        None => Some(0),
        Some(_) => None,
    };
    let Some(flags) = flags.and_then(gep_flags_text_or_none) else { return false };
    let dynamic_count = raw.iter().filter(|&&i| i == GEP_DYNAMIC_INDEX).count();
    if o.operands.len() != dynamic_count + 1 || o.results.len() != 1 {
        return false;
    }
    p.out.push_str("llvm.getelementptr ");
    if let Some(flags) = flags {
        p.out.push_str(&flags);
        p.out.push(' ');
    }
    p.value(o.operands[0]);
    p.out.push('[');
    let mut next_dynamic = 1;
    for (i, &index) in raw.iter().enumerate() {
        if i > 0 {
            p.out.push_str(", ");
        }
        if index == GEP_DYNAMIC_INDEX {
            p.value(o.operands[next_dynamic]);
            next_dynamic += 1;
        } else {
            push_i128(&mut p.out, index);
        }
    }
    p.out.push(']');
    p.merged_attr_dict(o, &["elem_type", "noWrapFlags", "rawConstantIndices"], false);
    p.out.push_str(" : (");
    p.value_types(&o.operands);
    p.out.push_str(") -> ");
    p.ty(ir.value_type(o.results[0]));
    p.out.push_str(", ");
    p.ty(*elem);
    true
}

/// `Some(None)` for no flags (nothing printed), `Some(Some(text))` for flags, `None`
/// for a value the enum cannot spell.
fn gep_flags_text_or_none(value: u64) -> Option<Option<String>> {
    if value == 0 {
        return Some(None);
    }
    gep_flags_text(value).map(Some)
}

// ---- llvm.switch -------------------------------------------------------------------------

/// `%v : i32, ^default(%a : T) [\n  1: ^bb1(...),\n  5: ^bb2\n]`.
fn parse_switch(p: &mut Parser, start: usize) -> PResult<OpId> {
    let selector = p.parse_operand_ref()?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let selector = p.resolve_operands(&[selector], &[ty], start)?;
    p.expect(",")?;
    let (default, default_args) = parse_successor_and_operands(p, start)?;
    p.expect("[")?;
    let mut case_values = Vec::new();
    let mut successors: Vec<BlockId> = vec![default];
    let mut segments = Vec::new();
    let mut case_operands: Vec<Value> = Vec::new();
    if !p.at("]") {
        loop {
            let negative = p.eat("-");
            case_values.push(p.parse_typed_number(negative, ty)?);
            p.expect(":")?;
            let (block, args) = parse_successor_and_operands(p, start)?;
            successors.push(block);
            segments.push(args.len() as i128);
            case_operands.extend(args);
            if !p.eat(",") {
                break;
            }
        }
    }
    p.expect("]")?;
    let extra = optional_attr_dict(p)?;
    let mut props = vec![
        NamedAttribute::new("case_operand_segments", i32_array(p, segments)),
        NamedAttribute::new(
            "operandSegmentSizes",
            i32_array(p, [1, default_args.len() as i128, case_operands.len() as i128]),
        ),
    ];
    if !case_values.is_empty() {
        let vector = p.ir.types.vector(case_values.len() as u64, ty);
        props
            .push(NamedAttribute::new("case_values", Attribute::Dense { elements: case_values, ty: vector }));
    }
    let mut operands = selector;
    operands.extend(default_args);
    operands.extend(case_operands);
    let op = p.ir.create_op("llvm.switch", vec![], &[], Location::Unknown);
    p.finish_op(op, operands, &[]);
    set_attrs(p, op, props, extra);
    p.ir.op_mut(op).successors = successors.into();
    Ok(op)
}

fn print_switch(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let (Some(segments), Some(cases)) =
        (integer_values(o.attr("operandSegmentSizes")), integer_values(o.attr("case_operand_segments")))
    else {
        return false;
    };
    let values = match o.attr("case_values") {
        Some(a) => match integer_values(Some(a)) {
            Some(v) => v,
            None => return false,
        },
        None => Vec::new(),
    };
    let counts: Option<Vec<usize>> =
        segments.iter().chain(&cases).map(|&n| usize::try_from(n).ok()).collect();
    let Some(counts) = counts else { return false };
    let (segments, cases) = counts.split_at(segments.len());
    if segments.len() != 3
        || segments[0] != 1
        || o.successors.len() != cases.len() + 1
        || values.len() != cases.len()
        || o.operands.len() != segments.iter().sum::<usize>()
        || cases.iter().sum::<usize>() != segments[2]
    {
        return false;
    }
    let selector_ty = ir.value_type(o.operands[0]);
    let width = match ir.types.kind(selector_ty) {
        TypeKind::Integer { width, .. } => *width,
        _ => return false,
    };
    p.out.push_str("llvm.switch ");
    p.value(o.operands[0]);
    p.out.push_str(" : ");
    p.ty(selector_ty);
    p.out.push_str(", ");
    print_successor_and_operands(p, o.successors[0], &o.operands[1..1 + segments[1]]);
    p.out.push_str(" [");
    if cases.is_empty() {
        // MLIR breaks the line before the closing bracket even with no cases.
        p.newline();
        p.out.push(']');
        p.merged_attr_dict(o, &["case_operand_segments", "case_values", "operandSegmentSizes"], false);
        return true;
    }
    p.indent += 1;
    p.newline();
    let mut at = 1 + segments[1];
    for (i, &n) in cases.iter().enumerate() {
        if i > 0 {
            p.out.push(',');
            p.newline();
        }
        // Case values print as signed numbers of the selector's width.
        push_i128(&mut p.out, sign_extend(values[i], width));
        p.out.push_str(": ");
        print_successor_and_operands(p, o.successors[i + 1], &o.operands[at..at + n]);
        at += n;
    }
    p.indent -= 1;
    p.newline();
    p.out.push(']');
    p.merged_attr_dict(o, &["case_operand_segments", "case_values", "operandSegmentSizes"], false);
    true
}

fn sign_extend(value: i128, width: u32) -> i128 {
    if width == 0 || width >= 128 {
        return value;
    }
    let shift = 128 - width;
    (value << shift) >> shift
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_written_forms_are_generated_ops() {
        for def in crate::opdef::OP_DEFS.iter() {
            let index = crate::opdef::op_def_index(def).expect("a table entry");
            assert_eq!(form_at(index), form_of(def.name), "{}", def.name);
        }
        for name in ["llvm.func", "llvm.mlir.global", "llvm.call", "llvm.getelementptr", "llvm.switch"] {
            assert!(form_of(name).is_some() && crate::opdef::op_def(name).is_some(), "{name}");
        }
    }

    #[test]
    fn gep_flags_are_spelled_from_the_enum_table() {
        assert_eq!(gep_flags_text(3).as_deref(), Some("inbounds"));
        assert_eq!(gep_flags_text(7).as_deref(), Some("inbounds|nuw"));
        assert_eq!(gep_flags_text(4).as_deref(), Some("nuw"));
        assert_eq!(gep_flags_text(1).as_deref(), Some("inbounds_flag"));
        assert_eq!(gep_flags_text(64), None);
        assert_eq!(sign_extend(255, 8), -1);
        assert_eq!(sign_extend(5, 32), 5);
    }
}
