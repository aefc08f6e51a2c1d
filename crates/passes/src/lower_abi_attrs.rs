//! `-spirv-lower-abi-attrs`: turns the shader ABI attributes into SPIR-V constructs.
//!
//! An entry function's arguments carrying `spirv.interface_var_abi` become
//! descriptor-bound global variables (scalars and vectors wrapped in a struct and
//! loaded at the start), so the function becomes `() -> ()` as Vulkan requires; its
//! `spirv.entry_point_abi` becomes `spirv.EntryPoint` plus the execution modes the
//! target environment allows. Entry `spirv.ARM.Graph`s get their arguments and
//! results as variables and a `spirv.ARM.GraphEntryPoint`. Results match MLIR's pass.

use spirvkit_grammar::OperandKind;
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::diag::{Diagnostic, LineIndex};
use spirvkit_ir::ir::{Ir, Location, OpId, Value};
use spirvkit_ir::target_env::TargetEnv;
use spirvkit_ir::types::{Signedness, Type, TypeKind};

const INTERFACE_VAR_ABI: &str = "spirv.interface_var_abi";
const ENTRY_POINT_ABI: &str = "spirv.entry_point_abi";

/// `#spirv.interface_var_abi<(set, binding)[, StorageClass]>`.
struct InterfaceVarAbi {
    descriptor_set: i128,
    binding: i128,
    storage_class: Option<String>,
}

fn parse_interface_var_abi(body: &str) -> Option<InterfaceVarAbi> {
    let body = body.trim().strip_prefix('(')?;
    let (pair, rest) = body.split_once(')')?;
    let (set, binding) = pair.split_once(',')?;
    let storage_class = rest.trim().strip_prefix(',').map(|s| s.trim().to_string());
    Some(InterfaceVarAbi {
        descriptor_set: set.trim().parse().ok()?,
        binding: binding.trim().parse().ok()?,
        storage_class,
    })
}

/// Splits `a = x, b = [1, 2]` at the commas outside brackets into trimmed `(key, value)`.
fn keyword_params(body: &str) -> Vec<(String, String)> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in body.char_indices() {
        match c {
            '[' | '<' | '(' => depth += 1,
            ']' | '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[start..]);
    parts
        .into_iter()
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

fn dialect(name: &str, body: &str) -> Attribute {
    Attribute::Dialect { name: name.to_string(), body: Some(body.to_string()) }
}

fn symbol(name: &str) -> Attribute {
    Attribute::SymbolRef(vec![name.to_string()])
}

fn sym_name(ir: &Ir, op: OpId) -> Option<String> {
    match ir.op(op).attr("sym_name") {
        Some(Attribute::String(s)) => Some(s.clone()),
        _ => None,
    }
}

/// The `interface_var_abi` of each entry of an `arg_attrs`/`res_attrs` array.
fn abi_list(ir: &Ir, op: OpId, key: &str, count: usize) -> Vec<Option<Option<InterfaceVarAbi>>> {
    let dicts = match ir.op(op).attr(key) {
        Some(Attribute::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    (0..count)
        .map(|i| match dicts.get(i) {
            Some(Attribute::Dictionary(d)) => match spirvkit_ir::attr::find(d, INTERFACE_VAR_ABI) {
                Some(Attribute::Dialect { body, .. }) => {
                    Some(body.as_deref().and_then(parse_interface_var_abi))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Removes `interface_var_abi` from every dictionary of `key`, dropping the array
/// when nothing is left in it.
fn strip_abi(ir: &mut Ir, op: OpId, key: &str) {
    // The position of the array left empty, to drop.
    let strip = |list: &mut [NamedAttribute]| {
        let pos = list.iter().position(|a| a.name == key)?;
        let Attribute::Array(dicts) = &mut list[pos].value else { return None };
        for d in dicts.iter_mut() {
            if let Attribute::Dictionary(entries) = d {
                entries.retain(|e| e.name != INTERFACE_VAR_ABI);
            }
        }
        dicts.iter().all(|d| matches!(d, Attribute::Dictionary(e) if e.is_empty())).then_some(pos)
    };
    let o = ir.op_mut(op);
    if let Some(pos) = strip(&mut o.properties) {
        o.properties.remove(pos);
    }
    if let Some(pos) = strip(&mut o.attributes) {
        o.attributes.remove(pos);
    }
}

fn global_variable(ir: &mut Ir, name: &str, ty: Type, abi: &InterfaceVarAbi, location: Location) -> OpId {
    let i32_ty = ir.types.integer(32, Signedness::Signless);
    let op = ir.create_op("spirv.GlobalVariable", Vec::new(), &[], location);
    ir.op_mut(op).properties = vec![
        NamedAttribute::new("binding", Attribute::Integer { value: abi.binding, ty: i32_ty }),
        NamedAttribute::new("descriptor_set", Attribute::Integer { value: abi.descriptor_set, ty: i32_ty }),
        NamedAttribute::new("sym_name", Attribute::String(name.to_string())),
        NamedAttribute::new("type", Attribute::Type(ty)),
    ];
    op
}

fn is_scalar_or_vector(ir: &Ir, ty: Type) -> bool {
    matches!(ir.types.kind(ty), TypeKind::Integer { .. } | TypeKind::Float(_) | TypeKind::Vector { .. })
}

/// Runs the pass over every `spirv.module` under `top`. Errors (with offsets into
/// `text`) mean the pass failed and the IR must not be printed.
pub fn run(ir: &mut Ir, top: OpId, text: &str) -> Vec<Diagnostic> {
    let index = LineIndex::new(text);
    let offset = |ir: &Ir, op: OpId| index.location_offset(&ir.op(op).location);
    let modules = spirvkit_ir::target_env::spirv_modules(ir, top);
    let mut out = Vec::new();
    for module in modules {
        let Some(env) = TargetEnv::lookup(ir, module) else {
            out.push(Diagnostic::error(
                offset(ir, module),
                "'spirv.module' op missing SPIR-V target env attribute",
            ));
            return out;
        };
        let Some(body) = ir.entry_block(module) else {
            continue;
        };
        let children = ir.block(body).ops.clone();
        for op in children.iter().copied() {
            let lowered = match ir.op(op).name.as_str() {
                "spirv.func" => lower_function_interface(ir, body, op),
                "spirv.ARM.Graph" => lower_graph_interface(ir, body, op),
                _ => Ok(()),
            };
            if let Err(()) = lowered {
                let name = ir.op(op).name.clone();
                out.push(Diagnostic::error(
                    offset(ir, op),
                    format!("failed to legalize operation '{name}' that was explicitly marked illegal"),
                ));
                return out;
            }
        }
        for op in children {
            if ir.op(op).name == "spirv.func"
                && spirvkit_ir::attr::find(&ir.op(op).attributes, ENTRY_POINT_ABI).is_some()
            {
                if let Err(message) = lower_entry_point(ir, body, op, &env) {
                    out.push(Diagnostic::remark(offset(ir, op), message));
                    return out;
                }
            }
        }
    }
    out
}

fn function_inputs(ir: &Ir, op: OpId) -> Option<(Vec<Type>, Vec<Type>)> {
    match ir.op(op).attr("function_type") {
        Some(Attribute::Type(t)) => match ir.types.kind(*t) {
            TypeKind::Function { inputs, results } => Some((inputs.clone(), results.clone())),
            _ => None,
        },
        _ => None,
    }
}

/// The `ProcessInterfaceVarABI` rewrite. A function is left alone when no argument
/// has an ABI attribute; otherwise it must be an entry point with one on every
/// argument, or the pass fails (`Err`).
fn lower_function_interface(
    ir: &mut Ir,
    module_body: spirvkit_ir::ir::BlockId,
    func: OpId,
) -> Result<(), ()> {
    let Some((inputs, _)) = function_inputs(ir, func) else { return Ok(()) };
    let abis = abi_list(ir, func, "arg_attrs", inputs.len());
    if abis.iter().all(Option::is_none) {
        return Ok(());
    }
    if spirvkit_ir::attr::find(&ir.op(func).attributes, ENTRY_POINT_ABI).is_none() {
        return Err(());
    }
    let fn_name = sym_name(ir, func).ok_or(())?;
    let location = ir.op(func).location.clone();
    let entry = ir.entry_block(func).ok_or(())?;
    // Build everything first so that a failure leaves the function untouched.
    let mut vars = Vec::new();
    for (i, (&arg_ty, abi)) in inputs.iter().zip(&abis).enumerate() {
        let Some(Some(abi)) = abi else { return Err(()) };
        let mut var_ty = arg_ty;
        if is_scalar_or_vector(ir, arg_ty) {
            let storage_class = abi.storage_class.clone().ok_or(())?;
            let wrapped = ir.types.intern(TypeKind::LiteralStruct(spirvkit_ir::types::StructBody {
                members: vec![spirvkit_ir::types::StructMember {
                    ty: arg_ty,
                    offset: None,
                    decorations: Vec::new(),
                }],
                decorations: Vec::new(),
            }));
            var_ty = ir.types.pointer(wrapped, storage_class);
        }
        let TypeKind::Pointer { pointee, storage_class, stride } = ir.types.kind(var_ty).clone() else {
            return Err(());
        };
        match ir.types.kind(pointee) {
            TypeKind::SampledImage(_) => {}
            TypeKind::LiteralStruct(_) => {
                let (laid_out, _, _) = crate::decorate_layout::decorate(ir, pointee);
                var_ty = ir.types.intern(TypeKind::Pointer { pointee: laid_out, storage_class, stride });
            }
            _ => return Err(()),
        }
        vars.push((format!("{fn_name}_arg_{i}"), var_ty, abi));
    }
    let i32_ty = ir.types.integer(32, Signedness::Signless);
    let first = ir.block(entry).ops.first().copied();
    let insert = |ir: &mut Ir, op: OpId| match first {
        Some(f) => ir.insert_op_before(entry, f, op),
        None => ir.append_op(entry, op),
    };
    let args = ir.block(entry).arguments.clone();
    let uses = used_values(ir, func);
    for (i, (name, var_ty, abi)) in vars.into_iter().enumerate() {
        let var = global_variable(ir, &name, var_ty, abi, location.clone());
        ir.insert_op_before(module_body, func, var);
        let addr = ir.create_op("spirv.mlir.addressof", Vec::new(), &[var_ty], location.clone());
        ir.op_mut(addr).properties = vec![NamedAttribute::new("variable", symbol(&name))];
        insert(ir, addr);
        let mut replacement = ir.op(addr).results[0];
        let arg_ty = inputs[i];
        if is_scalar_or_vector(ir, arg_ty) {
            let zero = ir.create_op("spirv.Constant", Vec::new(), &[i32_ty], location.clone());
            ir.op_mut(zero).properties =
                vec![NamedAttribute::new("value", Attribute::Integer { value: 0, ty: i32_ty })];
            insert(ir, zero);
            let TypeKind::Pointer { storage_class, .. } = ir.types.kind(var_ty).clone() else {
                unreachable!()
            };
            let member_ptr = ir.types.pointer(arg_ty, storage_class);
            let zero_v = ir.op(zero).results[0];
            let chain =
                ir.create_op("spirv.AccessChain", vec![replacement, zero_v], &[member_ptr], location.clone());
            insert(ir, chain);
            let chain_v = ir.op(chain).results[0];
            let load = ir.create_op("spirv.Load", vec![chain_v], &[arg_ty], location.clone());
            insert(ir, load);
            replacement = ir.op(load).results[0];
        } else if var_ty != arg_ty && args.get(i).is_some_and(|a| uses.contains(a)) {
            let cast = ir.create_op("spirv.Bitcast", vec![replacement], &[arg_ty], location.clone());
            insert(ir, cast);
            replacement = ir.op(cast).results[0];
        }
        if let Some(&arg) = args.get(i) {
            crate::canonicalize::replace_all_uses(ir, func, arg, replacement);
        }
    }
    let b = ir.block_mut(entry);
    b.arguments.clear();
    b.argument_locations.clear();
    let fn_ty = ir.types.intern(TypeKind::Function { inputs: Vec::new(), results: Vec::new() });
    ir.set_property(func, "function_type", Attribute::Type(fn_ty));
    let o = ir.op_mut(func);
    o.properties.retain(|a| a.name != "arg_attrs" && a.name != "res_attrs");
    o.attributes.retain(|a| a.name != "arg_attrs" && a.name != "res_attrs");
    Ok(())
}

/// Every value used as an operand under `op`.
fn used_values(ir: &Ir, op: OpId) -> Vec<Value> {
    let mut out = Vec::new();
    let mut stack = vec![op];
    while let Some(o) = stack.pop() {
        out.extend(ir.op(o).operands.iter().copied());
        for &r in &ir.op(o).regions {
            for &b in &ir.region(r).blocks {
                stack.extend(ir.block(b).ops.iter().copied());
            }
        }
    }
    out
}

/// The `ProcessGraphInterfaceVarABI` rewrite for `spirv.ARM.Graph`.
fn lower_graph_interface(ir: &mut Ir, module_body: spirvkit_ir::ir::BlockId, graph: OpId) -> Result<(), ()> {
    let Some((inputs, results)) = function_inputs(ir, graph) else { return Ok(()) };
    let arg_abis = abi_list(ir, graph, "arg_attrs", inputs.len());
    let res_abis = abi_list(ir, graph, "res_attrs", results.len());
    if arg_abis.iter().chain(&res_abis).all(Option::is_none) {
        return Ok(());
    }
    if !matches!(ir.op(graph).attr("entry_point"), Some(Attribute::Bool(true))) {
        return Err(());
    }
    let graph_name = sym_name(ir, graph).ok_or(())?;
    let location = ir.op(graph).location.clone();
    let mut vars = Vec::new();
    for (kind, types, abis) in [("arg", &inputs, &arg_abis), ("res", &results, &res_abis)] {
        for (i, (&ty, abi)) in types.iter().zip(abis).enumerate() {
            let Some(Some(abi)) = abi else { return Err(()) };
            let storage_class = abi.storage_class.clone().unwrap_or_else(|| "UniformConstant".to_string());
            let ptr = ir.types.pointer(ty, storage_class);
            vars.push((format!("{graph_name}_{kind}_{i}"), ptr, abi));
        }
    }
    let mut interface = Vec::new();
    for (name, ty, abi) in vars {
        let var = global_variable(ir, &name, ty, abi, location.clone());
        ir.insert_op_before(module_body, graph, var);
        interface.push(symbol(&name));
    }
    strip_abi(ir, graph, "arg_attrs");
    strip_abi(ir, graph, "res_attrs");
    let entry = ir.create_op("spirv.ARM.GraphEntryPoint", Vec::new(), &[], location);
    ir.op_mut(entry).properties = vec![
        NamedAttribute::new("fn", symbol(&graph_name)),
        NamedAttribute::new("interface", Attribute::Array(interface)),
    ];
    ir.insert_op_before(module_body, graph, entry);
    Ok(())
}

/// Lowers `spirv.entry_point_abi` into `spirv.EntryPoint` and `spirv.ExecutionMode`s
/// at the end of the module; what the target cannot express stays in the attribute.
fn lower_entry_point(
    ir: &mut Ir,
    module_body: spirvkit_ir::ir::BlockId,
    func: OpId,
    env: &TargetEnv,
) -> Result<(), String> {
    let Some(Attribute::Dialect { body, .. }) =
        spirvkit_ir::attr::find(&ir.op(func).attributes, ENTRY_POINT_ABI).cloned()
    else {
        return Ok(());
    };
    let Some(fn_name) = sym_name(ir, func) else { return Ok(()) };
    let location = ir.op(func).location.clone();
    // Interface variables: the globals the body takes the address of (before 1.4
    // only Input/Output ones), in first-use order.
    let mut interface: Vec<String> = Vec::new();
    let mut stack = vec![func];
    let mut addressed = Vec::new();
    while let Some(o) = stack.pop() {
        for &r in ir.op(o).regions.iter().rev() {
            for &b in ir.region(r).blocks.iter().rev() {
                stack.extend(ir.block(b).ops.iter().rev());
            }
        }
        if ir.op(o).name == "spirv.mlir.addressof" {
            if let Some(Attribute::SymbolRef(path)) = ir.op(o).attr("variable") {
                addressed.extend(path.last().cloned());
            }
        }
    }
    for name in addressed {
        let storage_class = ir.block(module_body).ops.iter().find_map(|&g| {
            let o = ir.op(g);
            if o.name != "spirv.GlobalVariable" || sym_name(ir, g).as_deref() != Some(&name) {
                return None;
            }
            match o.attr("type") {
                Some(Attribute::Type(t)) => match ir.types.kind(*t) {
                    TypeKind::Pointer { storage_class, .. } => Some(storage_class.clone()),
                    _ => None,
                },
                _ => None,
            }
        });
        let Some(storage_class) = storage_class else { continue };
        if (env.version >= (1, 4) || storage_class == "Input" || storage_class == "Output")
            && !interface.contains(&name)
        {
            interface.push(name);
        }
    }
    let Some(model) = env.execution_model() else {
        return Err(
            "lower entry point failure: could not select execution model based on 'spirv.target_env'".into(),
        );
    };
    let entry = ir.create_op("spirv.EntryPoint", Vec::new(), &[], location.clone());
    ir.op_mut(entry).properties = vec![
        NamedAttribute::new("execution_model", dialect("spirv.execution_model", model)),
        NamedAttribute::new("fn", symbol(&fn_name)),
        NamedAttribute::new("interface", Attribute::Array(interface.iter().map(|n| symbol(n)).collect())),
    ];
    ir.append_op(module_body, entry);

    let i32_ty = ir.types.integer(32, Signedness::Signless);
    let modes = OperandKind::ExecutionMode.info();
    let mut remaining = Vec::new();
    let mut params = keyword_params(body.as_deref().unwrap_or(""));
    // MLIR handles (and prints) the parameters in this order.
    let rank = |k: &str| ["workgroup_size", "subgroup_size", "target_width"].iter().position(|&x| x == k);
    params.sort_by_key(|(k, _)| rank(k).unwrap_or(usize::MAX));
    for (key, value) in params {
        let mode = match key.as_str() {
            "workgroup_size" => "LocalSize",
            "subgroup_size" => "SubgroupSize",
            "target_width" => "SignedZeroInfNanPreserve",
            _ => {
                remaining.push((key, value));
                continue;
            }
        };
        let caps = modes.enumerant_by_name(mode).map_or(&[][..], |e| e.availability.capabilities);
        let numbers: Option<Vec<i128>> = value
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(',')
            .map(|s| s.trim().parse().ok())
            .collect();
        let Some(numbers) = numbers.filter(|_| env.allows_any_capability(caps)) else {
            remaining.push((key, value));
            continue;
        };
        let op = ir.create_op("spirv.ExecutionMode", Vec::new(), &[], location.clone());
        ir.op_mut(op).properties = vec![
            NamedAttribute::new("execution_mode", dialect("spirv.execution_mode", mode)),
            NamedAttribute::new("fn", symbol(&fn_name)),
            NamedAttribute::new(
                "values",
                Attribute::Array(
                    numbers.into_iter().map(|value| Attribute::Integer { value, ty: i32_ty }).collect(),
                ),
            ),
        ];
        ir.append_op(module_body, op);
    }
    let attrs = &mut ir.op_mut(func).attributes;
    let pos = attrs.iter().position(|a| a.name == ENTRY_POINT_ABI).expect("looked up above");
    if remaining.is_empty() {
        attrs.remove(pos);
    } else {
        let text = remaining.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ");
        attrs[pos].value = dialect("spirv.entry_point_abi", &text);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_abi_attribute_bodies() {
        let a = parse_interface_var_abi("(0, 3), StorageBuffer").unwrap();
        assert_eq!((a.descriptor_set, a.binding, a.storage_class.as_deref()), (0, 3, Some("StorageBuffer")));
        assert!(parse_interface_var_abi("(0 1)").is_none());
        assert_eq!(
            keyword_params("workgroup_size = [32, 1, 1], subgroup_size = 64"),
            vec![("workgroup_size".into(), "[32, 1, 1]".into()), ("subgroup_size".into(), "64".into())]
        );
    }

    fn lower(source: &str) -> crate::opt::OptResult {
        let options =
            crate::opt::OptOptions { passes: vec!["-spirv-lower-abi-attrs".into()], ..Default::default() };
        crate::opt::run(source, "t.mlir", &options)
    }

    const ENV: &str =
        "spirv.target_env = #spirv.target_env<#spirv.vce<v1.0, [Shader], []>, #spirv.resource_limits<>>";

    #[test]
    fn entry_arguments_become_bound_variables() {
        let source = format!(
            "module attributes {{{ENV}}} {{ spirv.module Logical GLSL450 {{
  spirv.func @k(%a: i32 {{spirv.interface_var_abi = #spirv.interface_var_abi<(1, 2), StorageBuffer>}}) \"None\"
    attributes {{spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 4, 1], subgroup_size = 16>}} {{
    %0 = spirv.IAdd %a, %a : i32
    spirv.Return
  }}
}} }}"
        );
        let r = lower(&source);
        assert!(r.success, "{}", r.diagnostics_text);
        let out = r.output;
        assert!(out.contains("spirv.GlobalVariable @k_arg_0 bind(1, 2) : !spirv.ptr<!spirv.struct<(i32 [0])>, StorageBuffer>"), "{out}");
        assert!(out.contains("spirv.func @k() \"None\" attributes {spirv.entry_point_abi = #spirv.entry_point_abi<subgroup_size = 16>}"), "{out}");
        assert!(out.contains("spirv.Load \"StorageBuffer\""), "{out}");
        assert!(out.contains("spirv.EntryPoint \"GLCompute\" @k\n"), "{out}");
        assert!(out.contains("spirv.ExecutionMode @k \"LocalSize\", 8, 4, 1"), "{out}");
    }

    #[test]
    fn missing_target_env_and_non_entry_abi_fail() {
        let r = lower("spirv.module Logical GLSL450 {}");
        assert!(!r.success);
        assert!(r.diagnostics_text.contains("missing SPIR-V target env attribute"), "{}", r.diagnostics_text);

        let source = format!(
            "module attributes {{{ENV}}} {{ spirv.module Logical GLSL450 {{
  spirv.func @f(%a: i32 {{spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0), StorageBuffer>}}) \"None\" {{
    spirv.Return
  }}
}} }}"
        );
        let r = lower(&source);
        assert!(!r.success);
        assert!(
            r.diagnostics_text.contains("failed to legalize operation 'spirv.func'"),
            "{}",
            r.diagnostics_text
        );
    }
}
