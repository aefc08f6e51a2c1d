//! `--spirv-private-to-local`: a Private global (an HLSL `static`, resources
//! included) that only one function uses becomes a Function variable of that
//! function, as SPIRV-Tools' private-to-local pass does for DXC's legalization, so
//! mem2reg can promote it. Run after inlining, when that function is an entry point.
//! Globals initialized by another global or a spec constant, or used other than
//! through loads, stores and access chains, stay; a constant initializer becomes a
//! store at the function's start.

use super::util;
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{Ir, OpId, Value};

/// A variable's constant initializer, held by value (translate's
/// `CONSTANT_INITIALIZER_ATTR`: MLIR's `initializer` names symbols only).
const CONSTANT_INITIALIZER_ATTR: &str = "initializer_constant";

/// Localizes the Private globals of `module` used by a single function.
pub fn run(ir: &mut Ir, module: OpId) {
    let mut globals: FxHashMap<String, OpId> = FxHashMap::default();
    for op in util::module_ops(ir, module) {
        let o = ir.op(op);
        if o.name != "spirv.GlobalVariable" || o.attr("initializer").is_some() {
            continue;
        }
        let Some(Attribute::Type(ty)) = o.attr("type") else { continue };
        if matches!(util::pointer_parts(ir, *ty), Some((_, "Private"))) {
            if let Some(name) = util::symbol_name(ir, op) {
                globals.insert(name.to_string(), op);
            }
        }
    }
    if globals.is_empty() {
        return;
    }
    // The functions and addressof ops naming each global.
    let mut users: FxHashMap<String, (FxHashSet<OpId>, Vec<OpId>)> = FxHashMap::default();
    for func in util::functions(ir, module) {
        for (_, op) in ir.ops_under(func) {
            if ir.op(op).name != "spirv.mlir.addressof" {
                continue;
            }
            let Some(name) = util::flat_symbol(ir, op, "variable") else { continue };
            if globals.contains_key(&name) {
                let entry = users.entry(name).or_default();
                entry.0.insert(func);
                entry.1.push(op);
            }
        }
    }
    let mut localized: FxHashSet<String> = FxHashSet::default();
    for (name, (functions, addresses)) in users {
        if functions.len() != 1 {
            continue;
        }
        let func = *functions.iter().next().expect("one function");
        let Some(entry) = ir.entry_block(func) else { continue };
        let Some(global) = globals.get(&name).copied() else { continue };
        let Some(Attribute::Type(global_type)) = ir.op(global).attr("type").cloned() else { continue };
        let Some((pointee, _)) = util::pointer_parts(ir, global_type) else { continue };
        let mut retyped = Vec::new();
        let users_fit =
            addresses.iter().all(|&a| only_memory_uses(ir, func, ir.op(a).results[0], &mut retyped));
        if !users_fit {
            continue;
        }
        let ptr_type = ir.types.pointer(pointee, "Function");
        let var = ir.create_op("spirv.Variable", vec![], &[ptr_type], ir.op(global).location.clone());
        ir.set_property(var, "storage_class", super::sroa::function_storage());
        util::splice_ops(ir, entry, 0, vec![var]);
        let local = ir.op(var).results[0];
        // A constant initializer (dxc's `init.done` flags start `false`) becomes a
        // store after the entry block's variables.
        let initial = ir.op(global).attr(CONSTANT_INITIALIZER_ATTR).cloned();
        if let Some(value) = initial {
            let location = ir.op(global).location.clone();
            let constant = ir.create_op("spirv.Constant", vec![], &[pointee], location.clone());
            ir.set_property(constant, "value", value);
            let initial_value = ir.op(constant).results[0];
            let store = ir.create_op("spirv.Store", vec![local, initial_value], &[], location);
            let after_variables =
                ir.block(entry).ops.iter().take_while(|&&o| ir.op(o).name == "spirv.Variable").count();
            util::splice_ops(ir, entry, after_variables, vec![constant, store]);
        }
        for v in retyped {
            let ty = ir.value_type(v);
            if let Some((element, _)) = util::pointer_parts(ir, ty) {
                let function_ptr = ir.types.pointer(element, "Function");
                ir.set_value_type(v, function_ptr);
            }
        }
        let mut replace: FxHashMap<Value, Value> = FxHashMap::default();
        for &a in &addresses {
            replace.insert(ir.op(a).results[0], local);
            util::detach(ir, a);
        }
        util::compact(ir, func);
        util::replace_uses(ir, func, &replace);
        ir.erase_op(global);
        localized.insert(name);
    }
    if !localized.is_empty() {
        drop_from_interfaces(ir, module, &localized);
    }
}

/// Whether every use of pointer `ptr` in `func` is a load, a store through it or an
/// access chain whose result is used the same way; collects the chains' results.
fn only_memory_uses(ir: &Ir, func: OpId, ptr: Value, chains: &mut Vec<Value>) -> bool {
    let mut pointers = vec![ptr];
    let mut seen: FxHashSet<Value> = FxHashSet::default();
    let ops = ir.ops_under(func);
    while let Some(p) = pointers.pop() {
        if !seen.insert(p) {
            continue;
        }
        for &(_, op) in &ops {
            let o = ir.op(op);
            for (i, &v) in o.operands.iter().enumerate() {
                if v != p {
                    continue;
                }
                match (o.name.as_str(), i) {
                    ("spirv.Load", 0) | ("spirv.Store", 0) => {}
                    ("spirv.AccessChain", 0) => {
                        let result = o.results[0];
                        chains.push(result);
                        pointers.push(result);
                    }
                    _ => return false,
                }
            }
        }
    }
    true
}

/// Removes `names` from every `spirv.EntryPoint`'s interface list.
fn drop_from_interfaces(ir: &mut Ir, module: OpId, names: &FxHashSet<String>) {
    for op in util::module_ops(ir, module) {
        if ir.op(op).name != "spirv.EntryPoint" {
            continue;
        }
        let Some(Attribute::Array(items)) = ir.op(op).attr("interface").cloned() else { continue };
        let kept: Vec<Attribute> = items
            .into_iter()
            .filter(
                |a| !matches!(a, Attribute::SymbolRef(path) if path.len() == 1 && names.contains(&path[0])),
            )
            .collect();
        ir.set_property(op, "interface", Attribute::Array(kept));
    }
}
