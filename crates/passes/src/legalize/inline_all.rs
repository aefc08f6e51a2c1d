//! `--spirv-inline-all`: every function call reachable from an entry point is
//! inlined, callees first, as SPIRV-Tools' exhaustive inlining does for DXC's
//! legalization; the functions no entry point reaches any more are removed.
//!
//! Unlike MLIR's inliner (`--inline`), this one takes every callee: a callee returning
//! from inside a selection or a loop is first rewritten by merge-return, and callees
//! ending in `spirv.Kill` are spliced too (the code after the call becomes an
//! unreachable block). Recursion is an error, as it is for DXC. The Function
//! variables a callee brings are hoisted to the caller's entry block (SPIR-V wants
//! every `OpVariable` there), their initializers becoming stores where they were.

use super::util;
use super::LegalizeError;
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::ir::{BlockId, Ir, OpId, Value};

/// Inlines every call under `module`'s entry points (under every function when the
/// module has none) and removes the functions left unreachable.
pub fn run(ir: &mut Ir, module: OpId) -> Result<(), LegalizeError> {
    run_recording(ir, module, &mut FxHashSet::default())
}

/// [`run`], with the branches merge-return made to carry returns out of selections
/// (`merge_return::run_recording`) recorded in `routed`, their inlined copies too.
pub(crate) fn run_recording(
    ir: &mut Ir,
    module: OpId,
    routed: &mut FxHashSet<OpId>,
) -> Result<(), LegalizeError> {
    let functions = util::functions(ir, module);
    let by_name: FxHashMap<String, OpId> =
        functions.iter().filter_map(|&f| Some((util::symbol_name(ir, f)?.to_string(), f))).collect();
    let mut entry_points: Vec<OpId> = Vec::new();
    for op in util::module_ops(ir, module) {
        if ir.op(op).name == "spirv.EntryPoint" {
            if let Some(f) = util::flat_symbol(ir, op, "fn").and_then(|n| by_name.get(&n).copied()) {
                if !entry_points.contains(&f) {
                    entry_points.push(f);
                }
            }
        }
    }
    let has_entry_points = !entry_points.is_empty();
    let roots = if has_entry_points { entry_points.clone() } else { functions.clone() };
    let calls = calls_by_function(ir, &functions);
    let order = post_order(ir, &roots, &calls, &by_name)?;
    let reachable: FxHashSet<OpId> = order.iter().copied().collect();
    if has_entry_points {
        for &f in &functions {
            if !reachable.contains(&f) {
                ir.erase_op(f);
            }
        }
    }
    for &f in &order {
        if let Some(body) = util::body(ir, f) {
            util::merge_block_chains(ir, body);
        }
        if !roots.contains(&f) {
            super::merge_return::run_recording(ir, f, routed)?;
        }
    }
    // Calls are inlined into the roots only, each cloning its callee's own body and
    // queueing the calls that copy holds: the work is the size of the result.
    for &root in &roots {
        let mut replace: FxHashMap<Value, Value> = FxHashMap::default();
        let mut pending: Vec<OpId> = calls.get(&root).cloned().unwrap_or_default();
        pending.reverse();
        // Single-block callees expand in place of their call when the blocks are
        // rebuilt (`flush`): splicing each into a long block would cost its length.
        let mut expansions: FxHashMap<OpId, Vec<OpId>> = FxHashMap::default();
        while let Some(call) = pending.pop() {
            let callee = callee_of(ir, call, &by_name)?;
            if !ends_in_its_only_return(ir, callee) {
                flush(ir, root, &mut expansions);
            }
            let new_calls = inline_call(ir, call, callee, &mut replace, &mut expansions, routed)?;
            pending.extend(new_calls.into_iter().rev());
        }
        flush(ir, root, &mut expansions);
        util::replace_uses(ir, root, &replace);
        hoist_variables(ir, root);
    }
    if has_entry_points {
        for &f in &order {
            if !entry_points.contains(&f) {
                ir.erase_op(f);
            }
        }
    }
    Ok(())
}

/// The `spirv.FunctionCall`s under each function.
fn calls_by_function(ir: &Ir, functions: &[OpId]) -> FxHashMap<OpId, Vec<OpId>> {
    let mut out: FxHashMap<OpId, Vec<OpId>> = FxHashMap::default();
    for &f in functions {
        let mut calls: Vec<OpId> = Vec::new();
        ir.for_each_op_under(f, |_, op| {
            if ir.op(op).name == "spirv.FunctionCall" {
                calls.push(op);
            }
        });
        out.insert(f, calls);
    }
    out
}

fn callee_of(ir: &Ir, call: OpId, by_name: &FxHashMap<String, OpId>) -> Result<OpId, LegalizeError> {
    let name = util::flat_symbol(ir, call, "callee")
        .ok_or_else(|| LegalizeError::at(ir, call, "function call without a callee"))?;
    let callee = by_name
        .get(&name)
        .copied()
        .ok_or_else(|| LegalizeError::at(ir, call, format!("call to unknown function '@{name}'")))?;
    if util::body(ir, callee).is_none() {
        return Err(LegalizeError::at(
            ir,
            call,
            format!("not supported yet: inlining a call to '@{name}', a function without a body"),
        ));
    }
    Ok(callee)
}

/// The functions reachable from `roots`, callees before callers; a call cycle is an
/// error at a call closing it.
fn post_order(
    ir: &Ir,
    roots: &[OpId],
    calls: &FxHashMap<OpId, Vec<OpId>>,
    by_name: &FxHashMap<String, OpId>,
) -> Result<Vec<OpId>, LegalizeError> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Visiting,
        Done,
    }
    let mut state: FxHashMap<OpId, State> = FxHashMap::default();
    let mut order = Vec::new();
    for &root in roots {
        if state.contains_key(&root) {
            continue;
        }
        state.insert(root, State::Visiting);
        let mut stack: Vec<(OpId, usize)> = vec![(root, 0)];
        while let Some(top) = stack.last_mut() {
            let (f, next) = *top;
            let f_calls = calls.get(&f).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(&call) = f_calls.get(next) {
                top.1 += 1;
                let callee = callee_of(ir, call, by_name)?;
                match state.get(&callee) {
                    None => {
                        state.insert(callee, State::Visiting);
                        stack.push((callee, 0));
                    }
                    Some(State::Visiting) => {
                        let name = util::symbol_name(ir, callee).unwrap_or("?").to_string();
                        return Err(LegalizeError::at(
                            ir,
                            call,
                            format!("recursive call to '@{name}': recursion is not allowed"),
                        ));
                    }
                    Some(State::Done) => {}
                }
                continue;
            }
            state.insert(f, State::Done);
            order.push(f);
            stack.pop();
        }
    }
    Ok(order)
}

/// Replaces `call` by a copy of `callee`'s body; the call's result is replaced through
/// `replace` (applied by the caller once every call is inlined). Returns the calls
/// the copy holds.
fn inline_call(
    ir: &mut Ir,
    call: OpId,
    callee: OpId,
    replace: &mut FxHashMap<Value, Value>,
    expansions: &mut FxHashMap<OpId, Vec<OpId>>,
    routed: &mut FxHashSet<OpId>,
) -> Result<Vec<OpId>, LegalizeError> {
    let Some(body) = util::body(ir, callee) else { return Ok(Vec::new()) };
    let callee_blocks = ir.region(body).blocks.clone();
    let parameters = ir.block(callee_blocks[0]).arguments.clone();
    let arguments = ir.op(call).operands.clone();
    if parameters.len() != arguments.len() {
        return Err(LegalizeError::at(
            ir,
            call,
            "call argument count does not match the callee's parameters",
        ));
    }
    let mut map: FxHashMap<Value, Value> = parameters.into_iter().zip(arguments).collect();
    let copies = crate::inline::clone_blocks_marking(ir, &callee_blocks, &mut map, routed);
    drop_debug_names(ir, &copies);
    let new_calls = calls_in(ir, &copies);
    let result = ir.op(call).results.first().copied();
    let location = ir.op(call).location.clone();

    // The common case: one block ending in a return, spliced in place of the call.
    let single_return =
        copies.len() == 1 && util::terminator(ir, copies[0]).is_some_and(|t| util::is_return(ir, t));
    if single_return {
        let mut ops = std::mem::take(&mut ir.block_mut(copies[0]).ops);
        let ret = ops.pop().expect("a terminator");
        if let (Some(result), Some(&value)) = (result, ir.op(ret).operands.first()) {
            replace.insert(result, value);
        }
        expansions.insert(call, ops);
        return Ok(new_calls);
    }
    // The multi-block case splits the call's block: it must be in place (flushed).
    let Some(block) = ir.op(call).parent else { return Ok(new_calls) };
    let Some(region) = ir.block(block).parent else { return Ok(new_calls) };

    // Otherwise the call's block is split after the call: the callee's blocks go in
    // between, their returns branching to the continuation.
    let position = ir.block(block).ops.iter().position(|&o| o == call).expect("the call is in its block");
    let after: Vec<OpId> = ir.block_mut(block).ops.split_off(position + 1);
    let continuation = ir.create_block();
    util::splice_ops(ir, continuation, 0, after);
    let replacement = result.map(|result| {
        let ty = ir.value_type(result);
        (result, ir.add_block_argument(continuation, ty, location.clone()))
    });
    ir.block_mut(block).ops.pop();
    ir.op_mut(call).parent = None;
    let entry_ops = std::mem::take(&mut ir.block_mut(copies[0]).ops);
    for op in entry_ops {
        ir.append_op(block, op);
    }
    let mut inserted: Vec<BlockId> = vec![block];
    inserted.extend(copies[1..].iter().copied());
    for &b in &inserted {
        let Some(t) = util::terminator(ir, b) else { continue };
        if util::is_return(ir, t) {
            let operands = ir.op(t).operands.clone();
            let loc = ir.op(t).location.clone();
            ir.erase_op(t);
            util::append_branch(ir, b, continuation, operands, loc);
        }
    }
    let at = ir.region(region).blocks.iter().position(|&b| b == block).map_or(0, |p| p + 1);
    let mut new_blocks: Vec<BlockId> = copies[1..].to_vec();
    new_blocks.push(continuation);
    for (i, &b) in new_blocks.iter().enumerate() {
        ir.region_mut(region).blocks.insert(at + i, b);
        ir.block_mut(b).parent = Some(region);
    }
    if let Some((result, argument)) = replacement {
        replace.insert(result, argument);
    }
    Ok(new_calls)
}

/// Whether a callee's body is one block ending in a return (inlined by expansion).
fn ends_in_its_only_return(ir: &Ir, callee: OpId) -> bool {
    util::body(ir, callee).is_some_and(|body| {
        let blocks = &ir.region(body).blocks;
        blocks.len() == 1 && util::terminator(ir, blocks[0]).is_some_and(|t| util::is_return(ir, t))
    })
}

/// Rebuilds every block under `root` holding calls with a pending expansion, each
/// call replaced by its callee's ops (themselves expanded), in one pass.
fn flush(ir: &mut Ir, root: OpId, expansions: &mut FxHashMap<OpId, Vec<OpId>>) {
    if expansions.is_empty() {
        return;
    }
    let mut regions: Vec<spirvkit_ir::ir::RegionId> = ir.op(root).regions.to_vec();
    while let Some(region) = regions.pop() {
        for block in ir.region(region).blocks.clone() {
            let old = std::mem::take(&mut ir.block_mut(block).ops);
            let mut ops = Vec::with_capacity(old.len());
            let mut work: Vec<OpId> = old.into_iter().rev().collect();
            while let Some(op) = work.pop() {
                if let Some(expansion) = expansions.remove(&op) {
                    ir.op_mut(op).parent = None;
                    work.extend(expansion.into_iter().rev());
                    continue;
                }
                ir.op_mut(op).parent = Some(block);
                regions.extend(ir.op(op).regions.iter().copied());
                ops.push(op);
            }
            ir.block_mut(block).ops = ops;
        }
    }
}

/// The `spirv.FunctionCall`s under `blocks`, in order.
fn calls_in(ir: &Ir, blocks: &[BlockId]) -> Vec<OpId> {
    let mut out = Vec::new();
    let mut work: Vec<BlockId> = blocks.iter().rev().copied().collect();
    while let Some(block) = work.pop() {
        for &op in &ir.block(block).ops {
            if ir.op(op).name == "spirv.FunctionCall" {
                out.push(op);
            }
            for &r in ir.op(op).regions.iter().rev() {
                work.extend(ir.region(r).blocks.iter().rev().copied());
            }
        }
    }
    out
}

/// Moves every Function variable of `func` to the start of its entry block, an
/// initializer becoming a store where the variable was.
pub(crate) fn hoist_variables(ir: &mut Ir, func: OpId) {
    let Some(body) = util::body(ir, func) else { return };
    let entry = ir.region(body).blocks[0];
    let leading = ir.block(entry).ops.iter().take_while(|&&op| ir.op(op).name == "spirv.Variable").count();
    let prefix: FxHashSet<OpId> = ir.block(entry).ops[..leading].iter().copied().collect();
    let mut misplaced = Vec::new();
    for (block, op) in ir.ops_under(func) {
        if ir.op(op).name == "spirv.Variable" && !prefix.contains(&op) {
            misplaced.push((block, op));
        }
    }
    if misplaced.is_empty() {
        return;
    }
    // An initializer becomes a store in the variable's place: each block holding
    // such variables is rebuilt once.
    let mut stores: FxHashMap<OpId, OpId> = FxHashMap::default();
    let mut moved = Vec::with_capacity(misplaced.len());
    for &(_, op) in &misplaced {
        if let Some(init) = ir.op(op).operands.first().copied() {
            let var = ir.op(op).results[0];
            let location = ir.op(op).location.clone();
            stores.insert(op, ir.create_op("spirv.Store", vec![var, init], &[], location));
            ir.op_mut(op).operands.clear();
        }
        moved.push(op);
    }
    let mut blocks: Vec<BlockId> = misplaced.iter().map(|&(b, _)| b).collect();
    blocks.sort_unstable();
    blocks.dedup();
    for block in blocks {
        let mut ops = std::mem::take(&mut ir.block_mut(block).ops);
        for op in ops.iter_mut() {
            if let Some(&store) = stores.get(op) {
                ir.op_mut(store).parent = Some(block);
                *op = store;
            }
        }
        ir.block_mut(block).ops = ops;
    }
    for &op in &moved {
        ir.op_mut(op).parent = None;
    }
    util::compact(ir, func);
    util::splice_ops(ir, entry, leading, moved);
}

/// The inlined copies of a callee's values are new values: like SPIRV-Tools' inliner
/// (DXC's legalization), they carry no `OpName` (the names stay with the callee's own
/// values); the file:line:col of a named location is kept.
fn drop_debug_names(ir: &mut Ir, blocks: &[BlockId]) {
    let mut pending: Vec<BlockId> = blocks.to_vec();
    // Each block is visited once: regions nest finitely and are not shared.
    while let Some(block) = pending.pop() {
        for op in ir.block(block).ops.clone() {
            let location = std::mem::take(&mut ir.op_mut(op).location);
            ir.op_mut(op).location = match location {
                spirvkit_ir::ir::Location::Name { child, .. } => child.map_or_else(Default::default, |c| *c),
                other => other,
            };
            for region in ir.op(op).regions.clone() {
                pending.extend(ir.region(region).blocks.iter().copied());
            }
        }
    }
}
