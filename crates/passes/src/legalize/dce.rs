//! `--spirv-dce`: dead code left by inlining and mem2reg removed from a function:
//! side-effect-free ops whose results are unused, and Function variables only ever
//! stored to (with their stores).

use super::util;
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{BlockId, Ir, OpId, RegionId, Value};
use spirvkit_ir::opdef::op_has_trait;
use spirvkit_ir::types::TypeKind;

/// Ops without side effects MLIR does not mark `Pure` (loads may trap in no way
/// SPIR-V defines; an unused one can go).
const REMOVABLE: &[&str] = &[
    "spirv.Load",
    "spirv.AccessChain",
    "spirv.InBoundsPtrAccessChain",
    "spirv.PtrAccessChain",
    "spirv.Variable",
    "spirv.Undef",
    "spirv.Constant",
    "spirv.mlir.addressof",
    "spirv.SampledImage",
    "spirv.CompositeConstruct",
    "spirv.CompositeExtract",
    "spirv.CompositeInsert",
];

/// Removes `func`'s dead ops until none is left (after forwarding extracts of
/// composites built in place, which SROA's whole loads and stores leave).
pub fn run(ir: &mut Ir, func: OpId) {
    // Folding a comparison may decide a branch, whose flattening may make the
    // values of the next comparison constant (merge-return's flags after inlining a
    // call with constant arguments).
    for _ in 0..MAX_ROUNDS {
        let folded = fold_comparisons(ir, func);
        if !fold_constant_branches(ir, func) && !folded {
            break;
        }
    }
    forward_extracts(ir, func);
    remove_dead_phis(ir, func);
    // A variable whose loads died is store-only in the next round.
    for _ in 0..MAX_ROUNDS {
        if !remove_dead_ops(ir, func) {
            break;
        }
    }
}

/// Rounds of dead-op removal (each linear; more only for chains of variables).
const MAX_ROUNDS: usize = 4;

/// One round: store-only variables, then dead ops by use counts; true if anything went.
fn remove_dead_ops(ir: &mut Ir, func: OpId) -> bool {
    let mut removed = false;
    let ops = ir.ops_under(func);
    let mut uses: FxHashMap<Value, usize> = FxHashMap::default();
    for &(_, op) in &ops {
        for &v in &ir.op(op).operands {
            *uses.entry(v).or_default() += 1;
        }
    }
    for op in store_only_variables(ir, &ops, &uses) {
        removed = true;
        for &v in &ir.op(op).operands {
            if let Some(n) = uses.get_mut(&v) {
                *n = n.saturating_sub(1);
            }
        }
        util::detach(ir, op);
    }
    // Dead ops by use counts: erasing one may make its operands' definitions dead.
    let mut work: Vec<OpId> = ops.iter().map(|&(_, op)| op).collect();
    while let Some(op) = work.pop() {
        let o = ir.op(op);
        if o.parent.is_none() || !o.regions.is_empty() || o.results.is_empty() {
            continue;
        }
        let removable = REMOVABLE.contains(&o.name.as_str()) || op_has_trait(&o.name, "Pure");
        if !removable || o.results.iter().any(|r| uses.get(r).copied().unwrap_or(0) > 0) {
            continue;
        }
        let operands = o.operands.clone();
        util::detach(ir, op);
        removed = true;
        for v in operands {
            if let Some(n) = uses.get_mut(&v) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    if let Some(def) = util::defining_op(ir, v) {
                        work.push(def);
                    }
                }
            }
        }
    }
    util::compact(ir, func);
    removed
}

/// `spirv.CompositeExtract %c[i, ...]` of a `spirv.CompositeConstruct` holding one
/// operand per member reads that operand (then its `[...]`) directly.
fn forward_extracts(ir: &mut Ir, func: OpId) {
    let mut replace: FxHashMap<Value, Value> = FxHashMap::default();
    for (block, op) in ir.ops_under(func) {
        if ir.op(op).name == "spirv.CompositeConstruct" {
            if let Some(whole) = reassembled_composite(ir, op, &replace) {
                replace.insert(ir.op(op).results[0], whole);
            }
            continue;
        }
        if ir.op(op).name != "spirv.CompositeExtract" {
            continue;
        }
        let Some(&composite) = ir.op(op).operands.first() else { continue };
        let composite = util::resolve(&replace, composite);
        let Some(construct) = util::defining_op(ir, composite) else { continue };
        if ir.op(construct).name != "spirv.CompositeConstruct" {
            continue;
        }
        let Some(Attribute::Array(indices)) = ir.op(op).attr("indices").cloned() else { continue };
        let Some(Attribute::Integer { value, .. }) = indices.first() else { continue };
        let members = member_count(ir, ir.value_type(composite));
        let parts = &ir.op(construct).operands;
        let Some(&part) =
            usize::try_from(*value).ok().filter(|_| members == Some(parts.len())).and_then(|i| parts.get(i))
        else {
            continue;
        };
        let result = ir.op(op).results[0];
        if indices.len() == 1 {
            replace.insert(result, part);
        } else {
            let ty = ir.value_type(result);
            let location = ir.op(op).location.clone();
            let inner =
                util::insert_before(ir, block, op, "spirv.CompositeExtract", vec![part], &[ty], location);
            ir.set_property(inner, "indices", Attribute::Array(indices[1..].to_vec()));
            replace.insert(result, ir.op(inner).results[0]);
        }
    }
    util::replace_uses(ir, func, &replace);
}

/// A `spirv.CompositeConstruct` whose operands are the members `0..n` of one value of
/// its own type, in order, is that value (a struct copied member by member between
/// two places of one layout; SPIRV-Tools' simplification folds it the same way).
fn reassembled_composite(ir: &Ir, construct: OpId, replace: &FxHashMap<Value, Value>) -> Option<Value> {
    let o = ir.op(construct);
    let ty = ir.value_type(*o.results.first()?);
    if member_count(ir, ty) != Some(o.operands.len()) || o.operands.is_empty() {
        return None;
    }
    let mut whole = None;
    for (i, &part) in o.operands.iter().enumerate() {
        let extract = util::defining_op(ir, util::resolve(replace, part))?;
        let e = ir.op(extract);
        if e.name != "spirv.CompositeExtract" {
            return None;
        }
        let Some(Attribute::Array(indices)) = e.attr("indices") else { return None };
        let [Attribute::Integer { value, .. }] = indices.as_slice() else { return None };
        if usize::try_from(*value).ok() != Some(i) {
            return None;
        }
        let source = util::resolve(replace, *e.operands.first()?);
        if *whole.get_or_insert(source) != source {
            return None;
        }
    }
    whole.filter(|&w| ir.value_type(w) == ty)
}

/// Dead branches: a `spirv.Select` on a constant picks its operand, and a selection
/// whose header branches on a constant, through a chain of unconditional branches
/// to its merge, is replaced by that chain's ops (its results by the values the
/// merge receives). The branch not taken goes with the selection.
fn fold_constant_branches(ir: &mut Ir, func: OpId) -> bool {
    let mut changed = false;
    let mut replace: FxHashMap<Value, Value> = FxHashMap::default();
    let ops = ir.ops_under(func);
    let mut selections = Vec::new();
    for &(_, op) in &ops {
        let o = ir.op(op);
        if o.name == "spirv.Select" && o.operands.len() == 3 && o.results.len() == 1 {
            if let Some(c) = constant_bool(ir, util::resolve(&replace, o.operands[0])) {
                let picked = if c { o.operands[1] } else { o.operands[2] };
                replace.insert(o.results[0], picked);
                changed = true;
            }
        } else if o.name == util::SELECTION {
            selections.push(op);
        }
    }
    // Inner selections come later in `ops_under`'s order: fold them first.
    for &selection in selections.iter().rev() {
        if let Some((chain, results)) = taken_chain(ir, selection, &replace) {
            let Some(block) = ir.op(selection).parent else { continue };
            for (&r, v) in ir.op(selection).results.clone().iter().zip(results) {
                replace.insert(r, v);
            }
            let Some(position) = ir.block(block).ops.iter().position(|&o| o == selection) else { continue };
            ir.block_mut(block).ops.remove(position);
            ir.op_mut(selection).parent = None;
            util::splice_ops(ir, block, position, chain);
            changed = true;
        }
    }
    util::replace_uses(ir, func, &replace);
    changed
}

/// Boolean ops and integer comparisons of constants become `spirv.Constant`s, in
/// place; true if any did.
fn fold_comparisons(ir: &mut Ir, func: OpId) -> bool {
    let mut changed = false;
    for (_, op) in ir.ops_under(func) {
        let o = ir.op(op);
        if o.results.len() != 1 || !o.regions.is_empty() || o.operands.is_empty() || o.operands.len() > 2 {
            continue;
        }
        let bools: Option<Vec<bool>> = o.operands.iter().map(|&v| constant_bool(ir, v)).collect();
        let ints: Option<Vec<(i128, i128)>> = o.operands.iter().map(|&v| constant_int(ir, v)).collect();
        let value = match (o.name.as_str(), bools.as_deref(), ints.as_deref()) {
            ("spirv.LogicalNot", Some(&[a]), _) => !a,
            ("spirv.LogicalAnd", Some(&[a, b]), _) => a && b,
            ("spirv.LogicalOr", Some(&[a, b]), _) => a || b,
            ("spirv.LogicalEqual", Some(&[a, b]), _) => a == b,
            ("spirv.LogicalNotEqual", Some(&[a, b]), _) => a != b,
            // (signed, unsigned) readings of each operand.
            ("spirv.IEqual", _, Some(&[(_, a), (_, b)])) => a == b,
            ("spirv.INotEqual", _, Some(&[(_, a), (_, b)])) => a != b,
            ("spirv.SLessThan", _, Some(&[(a, _), (b, _)])) => a < b,
            ("spirv.SLessThanEqual", _, Some(&[(a, _), (b, _)])) => a <= b,
            ("spirv.SGreaterThan", _, Some(&[(a, _), (b, _)])) => a > b,
            ("spirv.SGreaterThanEqual", _, Some(&[(a, _), (b, _)])) => a >= b,
            ("spirv.ULessThan", _, Some(&[(_, a), (_, b)])) => a < b,
            ("spirv.ULessThanEqual", _, Some(&[(_, a), (_, b)])) => a <= b,
            ("spirv.UGreaterThan", _, Some(&[(_, a), (_, b)])) => a > b,
            ("spirv.UGreaterThanEqual", _, Some(&[(_, a), (_, b)])) => a >= b,
            _ => match unsigned_against_zero(ir, op) {
                Some(v) => v,
                None => continue,
            },
        };
        util::become_constant(ir, op, Attribute::Bool(value));
        changed = true;
    }
    changed
}

/// An unsigned comparison with zero that holds or fails whatever the other operand
/// is (`x < 0u` is false, `x >= 0u` true), with a scalar result.
fn unsigned_against_zero(ir: &Ir, op: OpId) -> Option<bool> {
    let o = ir.op(op);
    let [a, b] = o.operands.as_slice() else { return None };
    if !matches!(ir.types.kind(ir.value_type(o.results[0])), TypeKind::Integer { width: 1, .. }) {
        return None;
    }
    let zero = |v: Value| constant_int(ir, v).is_some_and(|(_, u)| u == 0);
    match o.name.as_str() {
        "spirv.ULessThan" if zero(*b) => Some(false),
        "spirv.UGreaterThanEqual" if zero(*b) => Some(true),
        "spirv.UGreaterThan" if zero(*a) => Some(false),
        "spirv.ULessThanEqual" if zero(*a) => Some(true),
        _ => None,
    }
}

/// The width of an integer type or of a vector of integers.
fn integer_width(ir: &Ir, ty: spirvkit_ir::types::Type) -> Option<u32> {
    match ir.types.kind(ty) {
        TypeKind::Integer { width, .. } => Some(*width),
        TypeKind::Vector { element, .. } => integer_width(ir, *element),
        _ => None,
    }
}

/// A scalar integer constant read as (signed, unsigned) at its width.
fn constant_int(ir: &Ir, v: Value) -> Option<(i128, i128)> {
    let op = util::defining_op(ir, v)?;
    if ir.op(op).name != "spirv.Constant" {
        return None;
    }
    let Some(Attribute::Integer { value, ty }) = ir.op(op).attr("value") else { return None };
    let TypeKind::Integer { width, .. } = ir.types.kind(*ty) else { return None };
    let width = *width;
    if width <= 1 || width > 64 {
        return None;
    }
    let unsigned = value & ((1i128 << width) - 1);
    let signed = if unsigned >> (width - 1) & 1 == 1 { unsigned - (1i128 << width) } else { unsigned };
    Some((signed, unsigned))
}

fn constant_bool(ir: &Ir, v: Value) -> Option<bool> {
    let op = util::defining_op(ir, v)?;
    match (ir.op(op).name.as_str(), ir.op(op).attr("value")) {
        ("spirv.Constant", Some(Attribute::Bool(b))) => Some(*b),
        // The parser keeps `true`/`false` of `i1` as integers.
        ("spirv.Constant", Some(Attribute::Integer { value, ty })) if ir.types.is_integer(*ty) => {
            let is_bool = matches!(ir.types.kind(*ty), TypeKind::Integer { width: 1, .. });
            is_bool.then_some(*value != 0)
        }
        _ => None,
    }
}

/// For a selection branching on a constant: the ops (detached from their blocks)
/// on the path taken, with block arguments replaced (into `replace`), and the values
/// its merge yields. `None` when the path is not a chain of unconditional branches.
fn taken_chain(
    ir: &mut Ir,
    selection: OpId,
    replace: &FxHashMap<Value, Value>,
) -> Option<(Vec<OpId>, Vec<Value>)> {
    let region = *ir.op(selection).regions.first()?;
    let blocks = ir.region(region).blocks.clone();
    let (&header, &merge) = (blocks.first()?, blocks.last()?);
    let branch = util::terminator(ir, header)?;
    let condition = util::resolve(replace, *ir.op(branch).operands.first()?);
    let taken = match ir.op(branch).name.as_str() {
        "spirv.BranchConditional" => usize::from(!constant_bool(ir, condition)?),
        "spirv.Switch" => {
            let (_, selector) = constant_int(ir, condition)?;
            let (literals, width) = match ir.op(branch).attr("literals") {
                Some(Attribute::Dense { elements, ty }) => (elements.clone(), integer_width(ir, *ty)?),
                _ => (Vec::new(), 64),
            };
            let mask = if width >= 128 { -1 } else { (1i128 << width) - 1 };
            let case = literals
                .iter()
                .position(|l| matches!(l, Attribute::Integer { value, .. } if value & mask == selector));
            case.map_or(0, |i| i + 1)
        }
        _ => return None,
    };
    let ranges = ir.successor_operand_ranges(branch)?;
    let mut target = *ir.op(branch).successors.get(taken)?;
    let mut arguments: Vec<Value> = ir.op(branch).operands[ranges.get(taken)?.clone()].to_vec();
    let mut path = vec![header];
    let mut substitute: FxHashMap<Value, Value> = FxHashMap::default();
    loop {
        let parameters = ir.block(target).arguments.clone();
        if parameters.len() != arguments.len() || path.len() > blocks.len() {
            return None;
        }
        substitute.extend(parameters.into_iter().zip(arguments));
        if target == merge {
            break;
        }
        path.push(target);
        let t = util::terminator(ir, target)?;
        if ir.op(t).name != "spirv.Branch" {
            return None;
        }
        arguments = ir.op(t).operands.clone();
        target = *ir.op(t).successors.first()?;
    }
    let merge_op = util::terminator(ir, merge)?;
    let yielded: Vec<Value> =
        ir.op(merge_op).operands.iter().map(|&v| util::resolve(&substitute, v)).collect();
    let mut chain = Vec::new();
    for &b in &path {
        let ops = ir.block(b).ops.clone();
        let Some((_, body)) = ops.split_last() else { continue };
        chain.extend_from_slice(body);
    }
    // The chain's ops now see the values their blocks' arguments received.
    for &op in &chain {
        for v in ir.op_mut(op).operands.iter_mut() {
            if let Some(&to) = substitute.get(v) {
                *v = to;
            }
        }
        let mut nested: Vec<RegionId> = ir.op(op).regions.to_vec();
        while let Some(r) = nested.pop() {
            for b in ir.region(r).blocks.clone() {
                for inner in ir.block(b).ops.clone() {
                    for v in ir.op_mut(inner).operands.iter_mut() {
                        if let Some(&to) = substitute.get(v) {
                            *v = to;
                        }
                    }
                    nested.extend(ir.op(inner).regions.iter().copied());
                }
            }
        }
    }
    Some((chain, yielded))
}

/// A value a phi-like position defines: a block argument (not a parameter) or a
/// construct result.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Phi {
    Argument(BlockId, usize),
    Result(OpId, usize),
}

/// Removes block arguments (not the function's parameters) and construct results
/// whose values only ever flow into other such dead values (what mem2reg leaves for
/// variables no later code reads), with the operands that fed them.
fn remove_dead_phis(ir: &mut Ir, func: OpId) {
    let Some(entry) = ir.entry_block(func) else { return };
    let ops = ir.ops_under(func);
    let mut phi_of: FxHashMap<Value, Phi> = FxHashMap::default();
    let mut blocks: Vec<BlockId> = Vec::new();
    for &region in &ir.op(func).regions {
        blocks.extend(ir.region(region).blocks.iter().copied());
    }
    for &(_, op) in &ops {
        for &region in &ir.op(op).regions {
            blocks.extend(ir.region(region).blocks.iter().copied());
        }
        if util::is_construct(ir, op) {
            for (i, &r) in ir.op(op).results.iter().enumerate() {
                phi_of.insert(r, Phi::Result(op, i));
            }
        }
    }
    for &b in &blocks {
        if b != entry {
            for (i, &a) in ir.block(b).arguments.iter().enumerate() {
                phi_of.insert(a, Phi::Argument(b, i));
            }
        }
    }
    // What feeds each phi, and the values used for real.
    let mut inputs: FxHashMap<Phi, Vec<Value>> = FxHashMap::default();
    let mut live: FxHashSet<Value> = FxHashSet::default();
    let mut work: Vec<Value> = Vec::new();
    for &(_, op) in &ops {
        let o = ir.op(op);
        let mut fed: Vec<Option<Phi>> = vec![None; o.operands.len()];
        if let Some(ranges) = ir.successor_operand_ranges(op) {
            for (s, range) in ranges.into_iter().enumerate() {
                for (k, i) in range.enumerate() {
                    fed[i] = Some(Phi::Argument(o.successors[s], k));
                }
            }
        } else if o.name == "spirv.mlir.merge" {
            if let Some(construct) = ir.parent_op(op).filter(|&c| util::is_construct(ir, c)) {
                for (i, slot) in fed.iter_mut().enumerate() {
                    *slot = Some(Phi::Result(construct, i));
                }
            }
        }
        for (i, &v) in o.operands.iter().enumerate() {
            match fed[i] {
                Some(phi) => inputs.entry(phi).or_default().push(v),
                None => {
                    if live.insert(v) {
                        work.push(v);
                    }
                }
            }
        }
    }
    while let Some(v) = work.pop() {
        let Some(phi) = phi_of.get(&v) else { continue };
        for &u in inputs.get(phi).map(Vec::as_slice).unwrap_or(&[]) {
            if live.insert(u) {
                work.push(u);
            }
        }
    }
    // Dead block arguments, last first so the indices stay right.
    let mut dead_arguments: Vec<(BlockId, usize)> = phi_of
        .iter()
        .filter(|(v, _)| !live.contains(v))
        .filter_map(|(_, p)| match *p {
            Phi::Argument(b, i) => Some((b, i)),
            Phi::Result(..) => None,
        })
        .collect();
    dead_arguments.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut preds: FxHashMap<BlockId, Vec<(OpId, usize)>> = FxHashMap::default();
    for &(_, op) in &ops {
        for (s, &b) in ir.op(op).successors.iter().enumerate() {
            preds.entry(b).or_default().push((op, s));
        }
    }
    for (block, index) in dead_arguments {
        let feeding = preds.get(&block).cloned().unwrap_or_default();
        if feeding.iter().all(|&(t, s)| util::remove_successor_operand(ir, t, s, index)) {
            ir.erase_block_argument(block, index);
        }
    }
    let mut dead_results: FxHashMap<OpId, Vec<usize>> = FxHashMap::default();
    for (v, p) in &phi_of {
        if let (Phi::Result(op, i), false) = (*p, live.contains(v)) {
            dead_results.entry(op).or_default().push(i);
        }
    }
    let mut replace = FxHashMap::default();
    let mut rebuilt = FxHashMap::default();
    for (op, dead) in dead_results {
        let keep: Vec<bool> = (0..ir.op(op).results.len()).map(|i| !dead.contains(&i)).collect();
        let (new_op, replacements) = util::rebuild_keeping_results(ir, op, &keep);
        rebuilt.insert(op, new_op);
        for (&old, new) in ir.op(op).results.iter().zip(replacements) {
            if let Some(new) = new {
                replace.insert(old, new);
            }
        }
    }
    util::replace_ops_in_place(ir, &rebuilt);
    util::replace_uses(ir, func, &replace);
}

/// The member count of a struct or sized array type.
fn member_count(ir: &Ir, ty: spirvkit_ir::types::Type) -> Option<usize> {
    match ir.types.kind(ty) {
        TypeKind::LiteralStruct(body) => Some(body.members.len()),
        TypeKind::IdentifiedStruct { name } => ir.types.struct_body(name).map(|b| b.members.len()),
        TypeKind::Array { count, spec_length: None, .. } => Some(*count as usize),
        _ => None,
    }
}

/// Function variables whose every use is the pointer of a store, with those stores.
fn store_only_variables(
    ir: &Ir,
    ops: &[(spirvkit_ir::ir::BlockId, OpId)],
    uses: &FxHashMap<Value, usize>,
) -> Vec<OpId> {
    let mut stores: FxHashMap<Value, Vec<OpId>> = FxHashMap::default();
    for &(_, op) in ops {
        let o = ir.op(op);
        if o.name == "spirv.Store" {
            stores.entry(o.operands[0]).or_default().push(op);
        }
    }
    let mut out = Vec::new();
    for &(_, op) in ops {
        let o = ir.op(op);
        if o.name != "spirv.Variable" {
            continue;
        }
        let var = o.results[0];
        if !matches!(util::pointer_parts(ir, ir.value_type(var)), Some((_, "Function"))) {
            continue;
        }
        let store_list = stores.get(&var).map(Vec::as_slice).unwrap_or(&[]);
        let only_stores = uses.get(&var).copied().unwrap_or(0) == store_list.len()
            && store_list.iter().all(|&s| ir.op(s).operands.get(1) != Some(&var));
        if only_stores && !store_list.is_empty() {
            out.push(op);
            out.extend(store_list.iter().copied());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::opt::{run, OptOptions};

    fn dce(source: &str) -> String {
        let options = OptOptions { passes: vec!["--spirv-dce".into()], ..Default::default() };
        let r = run(source, "t.mlir", &options);
        assert!(r.success, "{}", r.diagnostics_text);
        r.output
    }

    #[test]
    fn store_only_variables_dead_ops_and_dead_phis_go() {
        let source = r#"spirv.module Logical GLSL450 {
  spirv.func @f(%c: i1, %a: i32) -> i32 "None" {
    %v = spirv.Variable : !spirv.ptr<i32, Function>
    spirv.Store "Function" %v, %a : i32
    %dead = spirv.IAdd %a, %a : i32
    %r = spirv.mlir.selection -> i32 {
      spirv.BranchConditional %c, ^then, ^merge(%a : i32)
    ^then:
      %m = spirv.IMul %a, %a : i32
      spirv.Branch ^merge(%m : i32)
    ^merge(%x: i32):
      spirv.mlir.merge %x : i32
    }
    spirv.ReturnValue %a : i32
  }
}"#;
        let out = dce(source);
        for gone in ["spirv.Variable", "spirv.Store", "spirv.IAdd", "spirv.IMul", "-> i32 {"] {
            assert!(!out.contains(gone), "{gone}: {out}");
        }
        assert!(out.contains("spirv.mlir.selection {"), "{out}");
    }

    #[test]
    fn a_struct_rebuilt_from_its_own_members_is_the_struct() {
        let source = r#"spirv.module Logical GLSL450 {
  spirv.func @f(%s: !spirv.struct<(f32, i32)>, %t: !spirv.struct<(f32, i32)>) -> !spirv.struct<(f32, i32)> "None" {
    %a = spirv.CompositeExtract %s[0 : i32] : !spirv.struct<(f32, i32)>
    %b = spirv.CompositeExtract %s[1 : i32] : !spirv.struct<(f32, i32)>
    %c = spirv.CompositeConstruct %a, %b : (f32, i32) -> !spirv.struct<(f32, i32)>
    %d = spirv.CompositeExtract %t[1 : i32] : !spirv.struct<(f32, i32)>
    %e = spirv.CompositeConstruct %a, %d : (f32, i32) -> !spirv.struct<(f32, i32)>
    %x = spirv.CompositeExtract %e[0 : i32] : !spirv.struct<(f32, i32)>
    %y = spirv.CompositeExtract %c[1 : i32] : !spirv.struct<(f32, i32)>
    %z = spirv.CompositeConstruct %x, %y : (f32, i32) -> !spirv.struct<(f32, i32)>
    spirv.ReturnValue %z : !spirv.struct<(f32, i32)>
  }
}"#;
        // %z is %s member by member (through the constructs): it is %s.
        let out = dce(source);
        assert!(out.contains("spirv.ReturnValue %arg0"), "{out}");
        assert!(!out.contains("spirv.CompositeConstruct"), "{out}");
    }
}
