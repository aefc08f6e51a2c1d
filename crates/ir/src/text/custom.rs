//! Custom (pretty) forms of operations: the builtin and `func` ops the MLIR tests
//! wrap around SPIR-V code, and dispatch to the SPIR-V dialect's forms.

use crate::attr::{Attribute, NamedAttribute};
use crate::ir::{Location, OpId};
use crate::text::lexer::Tok;
use crate::text::parser::{symbol_name, PResult, ParseError, Parser};
use crate::text::printer::Printer;
use crate::types::{Type, TypeKind};

/// Parses the custom form of `name` (already consumed).
pub fn parse<'s>(p: &mut Parser<'s, '_>, name: &'s str, start: usize) -> PResult<OpId> {
    // The dialect's own ops (nearly all ops parsed) go straight to their definition.
    if name.starts_with("spirv.") && !name.starts_with("spirv.ARM.Graph") {
        let index = p.op_def_index_by_name(name);
        if let Some(result) = parse_generated_at(p, index, name, name, start) {
            return result;
        }
    }
    match name {
        "func.func" => parse_func(p, "func.func"),
        "spirv.ARM.Graph" => parse_func(p, "spirv.ARM.Graph"),
        "spirv.ARM.GraphEntryPoint" => parse_graph_entry_point(p),
        "func.return" | "return" => parse_return(p),
        "func.call" | "call" => parse_call(p),
        "arith.constant" => parse_arith_constant(p),
        "ub.poison" => parse_ub_poison(p),
        _ => {
            // Every op of the tables is `spirv.`-prefixed: a bare name can only be one of
            // them with the prefix (the default dialect inside `spirv.module`).
            let full: std::borrow::Cow<str> =
                if name.contains('.') { name.into() } else { format!("spirv.{name}").into() };
            if let Some(result) = parse_generated(p, name, &full, start) {
                return result;
            }
            if crate::opdef::op_def(name).is_some() {
                return Err(Box::new(ParseError {
                    notes: Vec::new(),
                    offset: start,
                    message: format!(
                        "not supported yet: the custom assembly form of '{name}' (use the generic form)"
                    ),
                }));
            }
            Err(Box::new(ParseError {
                notes: Vec::new(),
                offset: start,
                message: format!("custom op '{name}' is unknown (tried 'func.{name}' as well)"),
            }))
        }
    }
}

/// Parses the custom form of the generated op `full` (written `name`), hand-written or
/// declarative; `None` when it has neither.
fn parse_generated(p: &mut Parser, name: &str, full: &str, start: usize) -> Option<PResult<OpId>> {
    parse_generated_at(p, crate::opdef::op_def_index_by_name(full), name, full, start)
}

/// [`parse_generated`] with `full`'s index in `OP_DEFS` already looked up.
fn parse_generated_at(
    p: &mut Parser,
    index: Option<usize>,
    name: &str,
    full: &str,
    start: usize,
) -> Option<PResult<OpId>> {
    let index = index?;
    if let Some(result) = crate::text::spirv_custom::parse_at(p, index, start) {
        return Some(result);
    }
    if let Some(result) = crate::text::llvm_custom::parse_at(p, index, start) {
        return Some(result);
    }
    let result = crate::text::format::parse_at(p, index, start);
    if result.is_none() && name == full {
        return Some(Err(Box::new(ParseError {
            notes: Vec::new(),
            offset: start,
            message: format!(
                "not supported yet: the custom assembly form of '{name}' (use the generic form)"
            ),
        })));
    }
    result
}

/// Prints `op` in its custom form, returning false when it has none (the caller
/// then prints the generic form).
pub fn print(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let name = &ir.op(op).name;
    // The dialect's own ops (but the graph ones printed here) go straight to theirs.
    if name.def_index().is_some_and(|index| !is_graph_op(index)) {
        return crate::text::spirv_custom::print(p, op)
            .or_else(|| crate::text::llvm_custom::print(p, op))
            .unwrap_or_else(|| crate::text::format::print(p, op));
    }
    match name.as_str() {
        "builtin.module" => print_module(p, op),
        "func.func" | "spirv.ARM.Graph" => print_func(p, op),
        "spirv.ARM.GraphEntryPoint" => print_graph_entry_point(p, op),
        "func.return" => print_return(p, op),
        "func.call" => print_call(p, op),
        "arith.constant" => print_arith_constant(p, op),
        "ub.poison" => print_ub_poison(p, op),
        _ => crate::text::spirv_custom::print(p, op).unwrap_or_else(|| crate::text::format::print(p, op)),
    }
}

/// Whether the op definition at `index` in `OP_DEFS` is one of the graph ops printed
/// here (told by name once per process).
fn is_graph_op(index: usize) -> bool {
    static GRAPH: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    let graph = GRAPH.get_or_init(|| {
        crate::opdef::OP_DEFS.iter().map(|d| d.name.starts_with("spirv.ARM.Graph")).collect()
    });
    graph.get(index).copied().unwrap_or(false)
}

/// `name` without its dialect when printed inside an op of that dialect (MLIR's
/// default-dialect elision, e.g. `return` inside `func.func`).
fn short_name(p: &Printer, op: OpId, full: &'static str) -> &'static str {
    let parent = p.ir.parent_op(op).map(|o| p.ir.op(o).name.as_str());
    match (full.split_once('.'), parent) {
        (Some((dialect, rest)), Some(parent)) if parent.split_once('.').map(|x| x.0) == Some(dialect) => rest,
        _ => full,
    }
}

fn print_module(p: &mut Printer, op: OpId) -> bool {
    let o = p.ir.op(op);
    p.out.push_str("module");
    let mut attrs: Vec<NamedAttribute> = o.properties.iter().chain(o.attributes.iter()).cloned().collect();
    attrs.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(pos) = attrs.iter().position(|a| a.name == "sym_name") {
        if let Attribute::String(n) = &attrs[pos].value {
            p.out.push_str(" @");
            p.out.push_str(n);
        }
        attrs.remove(pos);
    }
    if !attrs.is_empty() {
        p.out.push_str(" attributes");
        p.attr_dict(&attrs, &[]);
    }
    p.out.push(' ');
    let region = o.regions[0];
    p.region(region, false, false);
    true
}

/// `(%arg0: T {attrs}, ...)`; returns the argument names, types, attribute dicts
/// and locations.
#[allow(clippy::type_complexity)]
fn parse_signature_args<'s>(
    p: &mut Parser<'s, '_>,
) -> PResult<(Vec<(&'s str, Type, Location)>, Vec<Vec<NamedAttribute>>, bool)> {
    p.expect("(")?;
    let mut args = Vec::new();
    let mut attrs = Vec::new();
    let mut has_names = true;
    if !p.at(")") {
        loop {
            if p.tok.kind == Tok::ValueId {
                let r = p.parse_operand_ref()?;
                p.expect(":")?;
                let ty = p.parse_type()?;
                let a = if p.at("{") { p.parse_attribute_dict()? } else { Vec::new() };
                let loc = if p.at_keyword("loc") { p.parse_location()? } else { p.location_here(r.offset) };
                args.push((r.name, ty, loc));
                attrs.push(a);
            } else {
                has_names = false;
                let ty = p.parse_type()?;
                let a = if p.at("{") { p.parse_attribute_dict()? } else { Vec::new() };
                args.push(("", ty, Location::Unknown));
                attrs.push(a);
            }
            if !p.eat(",") {
                break;
            }
        }
    }
    p.expect(")")?;
    Ok((args, attrs, has_names))
}

/// After `->`: result types with optional attribute dicts.
pub(crate) fn parse_result_list(p: &mut Parser) -> PResult<(Vec<Type>, Vec<Vec<NamedAttribute>>)> {
    let mut types = Vec::new();
    let mut attrs = Vec::new();
    if p.eat("->") {
        if p.eat("(") {
            if !p.at(")") {
                loop {
                    types.push(p.parse_type()?);
                    attrs.push(if p.at("{") { p.parse_attribute_dict()? } else { Vec::new() });
                    if !p.eat(",") {
                        break;
                    }
                }
            }
            p.expect(")")?;
        } else {
            types.push(p.parse_type()?);
            attrs.push(Vec::new());
        }
    }
    Ok((types, attrs))
}

pub(crate) fn dict_array(attrs: Vec<Vec<NamedAttribute>>) -> Option<Attribute> {
    if attrs.iter().all(|a| a.is_empty()) {
        return None;
    }
    Some(Attribute::Array(attrs.into_iter().map(Attribute::Dictionary).collect()))
}

/// `func.func` and the function-like `spirv.ARM.Graph`, which share MLIR's
/// function-interface syntax.
fn parse_func(p: &mut Parser, op_name: &str) -> PResult<OpId> {
    let mut visibility = None;
    if p.tok.kind == Tok::Ident && matches!(p.tok.text, "private" | "public" | "nested") {
        visibility = Some(p.bump().text.to_string());
    }
    if p.tok.kind != Tok::AtId {
        return p.error("expected valid '@'-identifier for symbol name");
    }
    let name = symbol_name(p.bump().text);
    let (args, arg_attrs, _) = parse_signature_args(p)?;
    let (results, res_attrs) = parse_result_list(p)?;
    let fn_type = p.ir.types.function(args.iter().map(|a| a.1).collect(), results);
    let op = p.ir.create_op(op_name, vec![], &[], Location::Unknown);
    let mut props = vec![
        NamedAttribute::new("function_type", Attribute::Type(fn_type)),
        NamedAttribute::new("sym_name", Attribute::String(name)),
    ];
    if let Some(v) = visibility {
        props.push(NamedAttribute::new("sym_visibility", Attribute::String(v)));
    }
    if let Some(a) = dict_array(arg_attrs) {
        props.insert(0, NamedAttribute::new("arg_attrs", a));
    }
    if let Some(a) = dict_array(res_attrs) {
        props.push(NamedAttribute::new("res_attrs", a));
    }
    let mut attributes = if p.eat_keyword("attributes") { p.parse_attribute_dict()? } else { Vec::new() };
    // As in MLIR, inherent attributes written in the `attributes` dictionary (such as
    // `entry_point` of a graph) are the op's properties.
    let inherent = |name: &str| match crate::opdef::op_def(op_name) {
        Some(def) => def.attributes.iter().any(|a| a.name == name),
        None => op_name == "func.func" && name == "no_inline",
    };
    props.extend(attributes.extract_if(.., |a| inherent(&a.name)));
    props.sort_by(|a, b| a.name.cmp(&b.name));
    {
        let o = p.ir.op_mut(op);
        o.properties = props;
        o.attributes = attributes.into();
    }
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
    let Some(Attribute::Type(fn_ty)) = o.attr("function_type").cloned() else { return false };
    let TypeKind::Function { inputs, results } = p.ir.types.kind(fn_ty).clone() else { return false };
    let Some(Attribute::String(name)) = o.attr("sym_name").cloned() else { return false };
    p.out.push_str(&o.name);
    p.out.push(' ');
    if let Some(Attribute::String(v)) = o.attr("sym_visibility") {
        p.out.push_str(v);
        p.out.push(' ');
    }
    p.out.push('@');
    p.out.push_str(&name);
    print_signature_args(p, o, &inputs);
    if !results.is_empty() {
        p.out.push_str(" -> ");
        let res_attrs = match o.attr("res_attrs") {
            Some(Attribute::Array(a)) => a.clone(),
            _ => vec![],
        };
        let wrap = results.len() > 1
            || !res_attrs.is_empty()
            || matches!(p.ir.types.kind(results[0]), TypeKind::Function { .. });
        if wrap {
            p.out.push('(');
        }
        for (i, &t) in results.iter().enumerate() {
            if i > 0 {
                p.out.push_str(", ");
            }
            p.ty(t);
            if let Some(Attribute::Dictionary(d)) = res_attrs.get(i) {
                p.attr_dict(d, &[]);
            }
        }
        if wrap {
            p.out.push(')');
        }
    }
    // MLIR prints the op's whole attribute dictionary here (inherent and discardable
    // attributes merged, sorted), less what the signature already shows.
    let signature = ["function_type", "sym_name", "sym_visibility", "arg_attrs", "res_attrs"];
    let mut shown: Vec<NamedAttribute> =
        o.properties.iter().filter(|a| !signature.contains(&a.name.as_str())).cloned().collect();
    shown.extend(o.attributes.iter().cloned());
    shown.sort_by(|a, b| a.name.cmp(&b.name));
    if !shown.is_empty() {
        p.out.push_str(" attributes");
        p.attr_dict(&shown, &[]);
    }
    if let Some(&r) = o.regions.first() {
        if !p.ir.region(r).blocks.is_empty() {
            p.out.push(' ');
            p.region(r, false, false);
        }
    }
    true
}

fn parse_return(p: &mut Parser) -> PResult<OpId> {
    let start = p.tok.offset;
    let mut refs = Vec::new();
    if p.tok.kind == Tok::ValueId {
        loop {
            refs.push(p.parse_operand_ref()?);
            if !p.eat(",") {
                break;
            }
        }
    }
    let mut types = Vec::new();
    if !refs.is_empty() {
        p.expect(":")?;
        loop {
            types.push(p.parse_type()?);
            if !p.eat(",") {
                break;
            }
        }
    }
    let operands = p.resolve_operands(&refs, &types, start)?;
    let op = p.ir.create_op("func.return", operands, &[], Location::Unknown);
    if p.at("{") {
        let attrs = p.parse_attribute_dict()?;
        p.ir.op_mut(op).attributes = attrs.into();
    }
    Ok(op)
}

fn print_return(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    p.out.push_str(short_name(p, op, "func.return"));
    if !o.operands.is_empty() {
        p.out.push(' ');
        p.values(&o.operands);
        p.out.push_str(" : ");
        p.value_types(&o.operands);
    }
    p.attr_dict(&o.attributes, &[]);
    true
}

fn parse_call(p: &mut Parser) -> PResult<OpId> {
    let start = p.tok.offset;
    if p.tok.kind != Tok::AtId {
        return p.error("expected symbol reference");
    }
    let callee = symbol_name(p.bump().text);
    p.expect("(")?;
    let mut refs = Vec::new();
    if !p.at(")") {
        loop {
            refs.push(p.parse_operand_ref()?);
            if !p.eat(",") {
                break;
            }
        }
    }
    p.expect(")")?;
    let attributes = if p.at("{") { p.parse_attribute_dict()? } else { Vec::new() };
    p.expect(":")?;
    let fn_ty = p.parse_type()?;
    let TypeKind::Function { inputs, results } = p.ir.types.kind(fn_ty).clone() else {
        return Err(Box::new(ParseError {
            notes: Vec::new(),
            offset: start,
            message: "expected function type".into(),
        }));
    };
    let operands = p.resolve_operands(&refs, &inputs, start)?;
    let op = p.ir.create_op("func.call", vec![], &[], Location::Unknown);
    p.finish_op(op, operands, &results);
    let o = p.ir.op_mut(op);
    o.properties = vec![NamedAttribute::new("callee", Attribute::SymbolRef(vec![callee]))];
    o.attributes = attributes.into();
    Ok(op)
}

fn print_call(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(Attribute::SymbolRef(callee)) = o.attr("callee").cloned() else { return false };
    p.out.push_str(short_name(p, op, "func.call"));
    p.out.push(' ');
    p.attr(&Attribute::SymbolRef(callee));
    p.out.push('(');
    p.values(&o.operands);
    p.out.push(')');
    p.attr_dict(&o.attributes, &[]);
    p.out.push_str(" : ");
    let inputs: Vec<Type> = o.operands.iter().map(|&v| p.ir.value_type(v)).collect();
    let results: Vec<Type> = o.results.iter().map(|&v| p.ir.value_type(v)).collect();
    let fn_ty = crate::types::TypeKind::Function { inputs, results };
    // Printing needs an interned type; build the text directly instead.
    let text = function_type_text(p, &fn_ty);
    p.out.push_str(&text);
    true
}

fn function_type_text(p: &Printer, kind: &TypeKind) -> String {
    let TypeKind::Function { inputs, results } = kind else { return String::new() };
    let mut s = String::from("(");
    for (i, &t) in inputs.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        crate::text::printer::write_type(p.ir, t, &mut s);
    }
    s.push_str(") -> ");
    let wrap = results.len() != 1 || matches!(p.ir.types.kind(results[0]), TypeKind::Function { .. });
    if wrap {
        s.push('(');
    }
    for (i, &t) in results.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        crate::text::printer::write_type(p.ir, t, &mut s);
    }
    if wrap {
        s.push(')');
    }
    s
}

/// `arith.constant 1 : i32` (the tests use it to make index and integer values).
fn parse_arith_constant(p: &mut Parser) -> PResult<OpId> {
    let start = p.tok.offset;
    let mut value = p.parse_attribute()?;
    let ty = match &value {
        Attribute::Bool(b) => {
            let i1 = p.integer_type(1, crate::types::Signedness::Signless);
            value = Attribute::Integer { value: *b as i128, ty: i1 };
            i1
        }
        Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } | Attribute::Dense { ty, .. } => *ty,
        _ => {
            return Err(Box::new(ParseError {
                notes: Vec::new(),
                offset: start,
                message: "expected a typed constant value".into(),
            }))
        }
    };
    let op = p.ir.create_op("arith.constant", vec![], &[], Location::Unknown);
    p.finish_op(op, vec![], &[ty]);
    p.ir.op_mut(op).properties = vec![NamedAttribute::new("value", value)];
    Ok(op)
}

fn print_arith_constant(p: &mut Printer, op: OpId) -> bool {
    let Some(value) = p.ir.op(op).attr("value").cloned() else { return false };
    p.out.push_str("arith.constant ");
    p.attr(&value);
    true
}

/// `ub.poison (<value>)? attr-dict : type`; the value defaults to `#ub.poison`.
fn parse_ub_poison(p: &mut Parser) -> PResult<OpId> {
    let value = if p.eat("<") {
        let v = p.parse_attribute()?;
        p.expect(">")?;
        v
    } else {
        Attribute::Dialect { name: "ub.poison".into(), body: None }
    };
    let attrs = crate::text::spirv_custom::optional_attr_dict(p)?;
    p.expect(":")?;
    let ty = p.parse_type()?;
    let op = p.ir.create_op("ub.poison", vec![], &[], Location::Unknown);
    p.finish_op(op, vec![], &[ty]);
    let o = p.ir.op_mut(op);
    o.properties = vec![NamedAttribute::new("value", value)];
    o.attributes = attrs.into();
    Ok(op)
}

fn print_ub_poison(p: &mut Printer, op: OpId) -> bool {
    let o = p.ir.op(op);
    let (Some(value), Some(&result)) = (o.attr("value").cloned(), o.results.first()) else { return false };
    let attrs = o.attributes.clone();
    let ty = p.ir.value_type(result);
    p.out.push_str("ub.poison");
    if value != (Attribute::Dialect { name: "ub.poison".into(), body: None }) {
        p.out.push('<');
        p.attr(&value);
        p.out.push('>');
    }
    p.attr_dict(&attrs, &[]);
    p.out.push_str(" : ");
    p.ty(ty);
    true
}

/// `spirv.ARM.GraphEntryPoint @graph, @arg0, @res0`.
fn parse_graph_entry_point(p: &mut Parser) -> PResult<OpId> {
    if p.tok.kind != Tok::AtId {
        return p.error("expected valid '@'-identifier for symbol name");
    }
    let f = symbol_name(p.bump().text);
    let mut interface = Vec::new();
    while p.eat(",") {
        if p.tok.kind != Tok::AtId {
            return p.error("expected valid '@'-identifier for symbol name");
        }
        interface.push(Attribute::SymbolRef(vec![symbol_name(p.bump().text)]));
    }
    let op = p.ir.create_op("spirv.ARM.GraphEntryPoint", vec![], &[], Location::Unknown);
    p.ir.op_mut(op).properties = vec![
        NamedAttribute::new("fn", Attribute::SymbolRef(vec![f])),
        NamedAttribute::new("interface", Attribute::Array(interface)),
    ];
    Ok(op)
}

fn print_graph_entry_point(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(f) = o.attr("fn") else { return false };
    p.out.push_str("spirv.ARM.GraphEntryPoint ");
    p.attr(f);
    if let Some(Attribute::Array(items)) = o.attr("interface") {
        for it in items {
            p.out.push_str(", ");
            p.attr(it);
        }
    }
    true
}

/// `(%arg0: T {attrs}, ...)` of a function-like op: the entry block's arguments
/// with the signature's types and `arg_attrs`.
pub(crate) fn print_signature_args(p: &mut Printer, o: &crate::ir::Operation, inputs: &[Type]) {
    let ir = p.ir;
    p.out.push('(');
    let entry = o.regions.first().and_then(|&r| ir.region(r).blocks.first().copied());
    let arg_attrs = match o.attr("arg_attrs") {
        Some(Attribute::Array(a)) => a.as_slice(),
        _ => &[],
    };
    for (i, &t) in inputs.iter().enumerate() {
        if i > 0 {
            p.out.push_str(", ");
        }
        if let Some(&v) = entry.and_then(|b| ir.block(b).arguments.get(i)) {
            p.value(v);
            p.out.push_str(": ");
        }
        p.ty(t);
        if let Some(Attribute::Dictionary(d)) = arg_attrs.get(i) {
            p.attr_dict(d, &[]);
        }
        if let Some(block) = entry.filter(|&b| i < ir.block(b).arguments.len()) {
            p.argument_location_suffix(block, i);
        }
    }
    p.out.push(')');
}

#[cfg(test)]
mod tests {
    #[test]
    fn ub_poison_round_trips_in_both_forms() {
        let source = "func.func @f() -> i32 {\n  %0 = ub.poison : i32\n  return %0 : i32\n}\n";
        let r = spirvkit_passes::opt::run(source, "t.mlir", &spirvkit_passes::opt::OptOptions::default());
        assert!(r.success, "{}", r.diagnostics_text);
        assert!(r.output.contains("    %0 = ub.poison : i32\n"), "{}", r.output);
        let generic = spirvkit_passes::opt::OptOptions { generic: true, ..Default::default() };
        let r = spirvkit_passes::opt::run(source, "t.mlir", &generic);
        assert!(
            r.output.contains(r#"%0 = "ub.poison"() <{value = #ub.poison}> : () -> i32"#),
            "{}",
            r.output
        );
    }
}
