//! Globals no op of the module refers to, of a kind the CPU device cannot bind, are
//! removed before the kernel interface is read.
//!
//! Engines declare every shared resource in a common header (samplers, bindless texture
//! arrays, acceleration structures), so most compute shaders declare descriptors they
//! never touch; a GPU driver ignores them, and so does the CPU device: an unused global
//! is dropped (from the module and from its entry points' interface lists) when the
//! interface would refuse it. Unused globals the CPU can bind (buffers, storage images)
//! stay, so a run may still bind every descriptor the binary declares.

use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{Ir, OpId};
use std::collections::HashSet;

/// Removes the globals of `module` that nothing refers to and that `refused` says the
/// CPU cannot bind; returns their names.
pub(super) fn remove_unbindable(
    ir: &mut Ir,
    module: OpId,
    refused: impl Fn(&Ir, OpId) -> bool,
) -> Vec<String> {
    let ops = super::module_ops(ir, module);
    let referenced = referenced_symbols(ir, module);
    let mut removed = Vec::new();
    for &op in &ops {
        if ir.op(op).name != "spirv.GlobalVariable" {
            continue;
        }
        let Some(name) = super::symbol(ir, op, "sym_name") else { continue };
        if referenced.contains(name.as_str()) || !refused(ir, op) {
            continue;
        }
        ir.erase_op(op);
        removed.push(name);
    }
    if removed.is_empty() {
        return removed;
    }
    let gone: HashSet<&str> = removed.iter().map(String::as_str).collect();
    for &op in &ops {
        if ir.op(op).name != "spirv.EntryPoint" {
            continue;
        }
        let Some(Attribute::Array(items)) = ir.op(op).attr("interface").cloned() else { continue };
        let kept: Vec<Attribute> = items
            .into_iter()
            .filter(|a| !matches!(a, Attribute::SymbolRef(path) if path.len() == 1 && gone.contains(path[0].as_str())))
            .collect();
        ir.set_property(op, "interface", Attribute::Array(kept));
    }
    removed
}

/// Every symbol an op inside `module` refers to, entry points' interface lists aside.
fn referenced_symbols(ir: &Ir, module: OpId) -> HashSet<String> {
    let mut out = HashSet::new();
    for op in ir.op_ids() {
        if ir.op(op).parent.is_none() || !inside(ir, op, module) {
            continue;
        }
        let o = ir.op(op);
        for a in o.properties.iter().chain(o.attributes.iter()) {
            if (o.name == "spirv.EntryPoint" && a.name == "interface") || a.name == "sym_name" {
                continue;
            }
            collect_symbols(&a.value, &mut out, 0);
        }
    }
    out
}

/// Whether `op` is nested (at any depth) inside `ancestor`.
fn inside(ir: &Ir, op: OpId, ancestor: OpId) -> bool {
    let mut current = ir.parent_op(op);
    while let Some(p) = current {
        if p == ancestor {
            return true;
        }
        current = ir.parent_op(p);
    }
    false
}

fn collect_symbols(a: &Attribute, out: &mut HashSet<String>, depth: usize) {
    if depth > 64 {
        return;
    }
    match a {
        Attribute::SymbolRef(path) => out.extend(path.iter().cloned()),
        Attribute::Array(items) => items.iter().for_each(|i| collect_symbols(i, out, depth + 1)),
        Attribute::Dictionary(items) => items.iter().for_each(|i| collect_symbols(&i.value, out, depth + 1)),
        _ => {}
    }
}
