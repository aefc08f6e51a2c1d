//! Sinks the handle sources mem2reg hoisted (access chains, loads of images and
//! samplers) from the entry block back to where they are used: right before the
//! first use in the innermost block that holds every use. The hoisting exists to
//! unify copies of a handle; once the phis carrying them are gone the ops go back
//! near their uses, where dxc's raw form had them (SPIRV-Tools' legalization does not
//! move them either), so the output reads in source order.

use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::ir::{BlockId, Ir, OpId};

use super::util;

/// Moves each of `hoisted` (ops at the top level of `func`'s entry block, in
/// definition order) that is an access chain or a load of a handle to right before
/// its first use in the innermost block holding all its uses.
pub(crate) fn run(ir: &mut Ir, func: OpId, hoisted: &[OpId]) {
    let Some(entry) = ir.entry_block(func) else { return };
    let movable: Vec<OpId> = hoisted
        .iter()
        .copied()
        .filter(|&op| {
            let o = ir.op(op);
            o.parent == Some(entry)
                && o.results.len() == 1
                && matches!(o.name.as_str(), "spirv.AccessChain" | "spirv.Load")
        })
        .collect();
    if movable.is_empty() {
        return;
    }
    let order: FxHashMap<OpId, usize> = movable.iter().enumerate().map(|(i, &op)| (op, i)).collect();
    let results: FxHashMap<_, OpId> = movable.iter().map(|&op| (ir.op(op).results[0], op)).collect();
    let mut users: FxHashMap<OpId, Vec<OpId>> = FxHashMap::default();
    ir.for_each_op_under(func, |_, op| {
        for v in &ir.op(op).operands {
            if let Some(&def) = results.get(v) {
                let list = users.entry(def).or_default();
                if list.last() != Some(&op) {
                    list.push(op);
                }
            }
        }
    });
    let mut positions = Positions::default();
    // Where each moved op goes: before an op that stays, in a block.
    let mut planned: FxHashMap<OpId, (BlockId, OpId)> = FxHashMap::default();
    for &op in movable.iter().rev() {
        let Some(list) = users.get(&op) else { continue };
        // A user already planned counts as being where it goes.
        let locations: Vec<OpId> = list
            .iter()
            .filter(|&&u| ir.op(u).parent.is_some())
            .map(|u| planned.get(u).map_or(*u, |&(_, anchor)| anchor))
            .collect();
        if let Some(target) = target(ir, entry, &locations, &mut positions) {
            if target.1 != op {
                planned.insert(op, target);
            }
        }
    }
    if planned.is_empty() {
        return;
    }
    let mut before: FxHashMap<OpId, Vec<OpId>> = FxHashMap::default();
    let mut blocks: FxHashSet<BlockId> = FxHashSet::default();
    for (&op, &(block, anchor)) in &planned {
        before.entry(anchor).or_default().push(op);
        blocks.insert(block);
        util::detach(ir, op);
    }
    util::compact(ir, func);
    for list in before.values_mut() {
        list.sort_unstable_by_key(|op| order[op]);
    }
    for block in blocks {
        let old = std::mem::take(&mut ir.block_mut(block).ops);
        let mut ops = Vec::with_capacity(old.len());
        for op in old {
            if let Some(moved) = before.remove(&op) {
                for &m in &moved {
                    ir.op_mut(m).parent = Some(block);
                }
                ops.extend(moved);
            }
            ops.push(op);
        }
        ir.block_mut(block).ops = ops;
    }
}

/// Op positions within blocks, computed once per block (blocks are not edited while
/// the moves are planned).
#[derive(Default)]
struct Positions {
    index: FxHashMap<BlockId, FxHashMap<OpId, usize>>,
}

impl Positions {
    fn of(&mut self, ir: &Ir, block: BlockId, op: OpId) -> usize {
        let map = self
            .index
            .entry(block)
            .or_insert_with(|| ir.block(block).ops.iter().enumerate().map(|(i, &o)| (o, i)).collect());
        map.get(&op).copied().unwrap_or(usize::MAX)
    }
}

/// The op directly in `block` that is or holds `op`, if any.
fn ancestor_in(ir: &Ir, block: BlockId, mut op: OpId) -> Option<OpId> {
    loop {
        let parent = ir.op(op).parent?;
        if parent == block {
            return Some(op);
        }
        let region = ir.block(parent).parent?;
        op = ir.region(region).parent?;
    }
}

/// The block directly in one of `construct`'s regions that holds `op`, if any.
fn block_under(ir: &Ir, construct: OpId, mut op: OpId) -> Option<BlockId> {
    loop {
        let parent = ir.op(op).parent?;
        let region = ir.block(parent).parent?;
        let holder = ir.region(region).parent?;
        if holder == construct {
            return Some(parent);
        }
        op = holder;
    }
}

/// Where an op used at `locations` goes: the innermost block holding every location
/// (descending into a construct while all of them are in one block of it), before the
/// first op there that is or holds one. `None` when a location is outside `entry`.
fn target(ir: &Ir, entry: BlockId, locations: &[OpId], positions: &mut Positions) -> Option<(BlockId, OpId)> {
    if locations.is_empty() {
        return None;
    }
    let mut block = entry;
    // Bounded by the nesting depth of the function.
    loop {
        let anchors: Vec<OpId> =
            locations.iter().map(|&l| ancestor_in(ir, block, l)).collect::<Option<Vec<_>>>()?;
        let first = *anchors.iter().min_by_key(|&&a| positions.of(ir, block, a))?;
        let single = anchors.iter().all(|&a| a == first);
        if single && !ir.op(first).regions.is_empty() && !locations.contains(&first) {
            let inner: Option<Vec<BlockId>> = locations.iter().map(|&l| block_under(ir, first, l)).collect();
            if let Some(inner) = inner {
                if inner.iter().all(|&b| b == inner[0]) {
                    block = inner[0];
                    continue;
                }
            }
        }
        return Some((block, first));
    }
}
