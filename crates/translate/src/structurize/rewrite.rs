//! Rewriting one construct into its `spirv.mlir.selection`/`spirv.mlir.loop` op, and
//! the final consistency check.

use super::branch::{
    branch, branch_conditional, is_branch, set_successor, successor_range, successors, terminator,
};
use super::lists::IdMap;
use super::order::Node;
use super::{add_block_arguments, names, Construct, Kind, StructurizeError, Structurizer};
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{BlockId, Location, RegionId, Value, ValueDef};
use spirvkit_ir::types::Type;
use spirvkit_ir::OpId;

/// Values materialized at the end of a block (before its terminator), made once.
#[derive(Default)]
struct Fillers {
    undef: FxHashMap<(BlockId, Type), Value>,
    flag: FxHashMap<(BlockId, bool), Value>,
}

impl Structurizer<'_> {
    /// Sets aside the blocks the structured walk never reached (dead code): they stay
    /// where they are, as in MLIR, and their uses do not count as uses after a
    /// construct. An error when a reached block uses a value one of them defines.
    pub(super) fn set_aside_dead_blocks(&mut self) -> Result<(), StructurizeError> {
        let dead: Vec<BlockId> =
            self.top.iter().copied().filter(|&b| self.sc.owner.get(b).is_none()).collect();
        // The values each dead block defines.
        let mut defined: Vec<(BlockId, Value)> = Vec::new();
        for &b in &dead {
            defined.extend(self.ir.block(b).arguments.iter().map(|&v| (b, v)));
            for op in self.ops_in(b) {
                for &v in &self.ir.op(op).operands {
                    self.sc.uses.remove(v, op);
                }
                defined.extend(self.ir.op(op).results.iter().map(|&v| (b, v)));
            }
        }
        // What an unreachable block defines dominates no use elsewhere (invalid
        // SPIR-V); the block stays at the end of the function's region, after the
        // constructs whose ops would use it, and such a text does not read back.
        if let Some(&(b, _)) = defined.iter().find(|&&(_, v)| self.sc.uses.iter(v).next().is_some()) {
            return Err(StructurizeError {
                block: Some(b),
                message:
                    "a value defined in an unreachable block is used in a reachable one (its definition \
                          does not dominate the use)"
                        .to_string(),
            });
        }
        self.dead = dead.into_iter().collect();
        Ok(())
    }

    /// The function-level block holding the definition of `v`, and whether the
    /// definition is directly in it (not in a nested region).
    fn value_home(&self, v: Value) -> Option<(BlockId, bool)> {
        let block = match self.ir.value(v).def {
            ValueDef::Argument { block, .. } => block,
            ValueDef::Result { op, .. } => self.ir.op(op).parent?,
        };
        let region = self.ir.block(block).parent?;
        if region == self.body {
            return Some((block, true));
        }
        Some((self.top_block(self.ir.region(region).parent?)?, false))
    }

    /// The ops of `block`, nested ones included.
    fn ops_in(&self, block: BlockId) -> Vec<OpId> {
        let mut ops: Vec<OpId> = self.ir.block(block).ops.clone();
        let mut i = 0;
        while let Some(&op) = ops.get(i) {
            // More ops than the IR has: a construct nested inside itself (a malformed
            // CFG can lead an earlier rewrite there; the final check reports it).
            if ops.len() > self.ir.op_count() {
                break;
            }
            for &r in &self.ir.op(op).regions {
                for &nb in &self.ir.region(r).blocks {
                    ops.extend_from_slice(&self.ir.block(nb).ops);
                }
            }
            i += 1;
        }
        ops
    }

    /// Drops the dead blocks that would no longer be valid where they are: those
    /// branching into a region, or using a value defined in one (or in a dropped
    /// block).
    pub(super) fn drop_invalid_dead_blocks(&mut self) -> Result<(), StructurizeError> {
        let body = self.body;
        let mut dropped: FxHashSet<BlockId> = FxHashSet::default();
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &self.dead {
                if dropped.contains(&b) {
                    continue;
                }
                let visible =
                    |blk: BlockId| self.ir.block(blk).parent == Some(body) && !dropped.contains(&blk);
                let successors_ok = successors(self.ir, b).iter().all(|&s| visible(s));
                let operands_ok = self.ops_in(b).into_iter().all(|op| {
                    self.ir.op(op).operands.iter().all(|&v| match self.value_home(v) {
                        Some((home, direct)) => home == b || (direct && visible(home)),
                        None => false,
                    })
                });
                if !(successors_ok && operands_ok) {
                    dropped.insert(b);
                    changed = true;
                }
            }
        }
        self.top.retain(|b| !dropped.contains(b));
        if dropped.is_empty() {
            return Ok(());
        }
        // Only invalid SPIR-V uses a value of an unreachable block from a reachable one
        // (the definition cannot dominate the use); dropping the block would leave the
        // use dangling.
        let mut gone: FxHashSet<spirvkit_ir::ir::Value> = FxHashSet::default();
        for &b in &dropped {
            gone.extend(self.ir.block(b).arguments.iter().copied());
            for op in self.ops_in(b) {
                gone.extend(self.ir.op(op).results.iter().copied());
            }
        }
        for &b in &self.top {
            for op in self.ops_in(b) {
                if self.ir.op(op).operands.iter().any(|v| gone.contains(v)) {
                    return Err(StructurizeError::at(
                        b,
                        "a reachable block uses a value defined in an unreachable block",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Follows loop headers already moved into their region to the block now entered
    /// instead.
    fn resolve(&self, mut block: BlockId) -> BlockId {
        for _ in 0..=self.sc.forward.len() {
            match self.sc.forward.get(block) {
                Some(next) => block = next,
                None => break,
            }
        }
        block
    }

    /// The function-level block holding `op` (through any nesting).
    fn top_block(&self, mut op: OpId) -> Option<BlockId> {
        // Nesting is at most as deep as there are regions; a malformed CFG (the fuzzer
        // found one) can make an earlier rewrite nest a construct inside itself, which
        // then shows as no top block here and as an internal error in the final check,
        // instead of an endless walk.
        for _ in 0..=self.ir.region_count() {
            let b = self.ir.op(op).parent?;
            let r = self.ir.block(b).parent?;
            if r == self.body {
                return Some(b);
            }
            op = self.ir.region(r).parent?;
        }
        None
    }

    fn used_outside(&self, v: Value, members: &IdMap<bool>) -> bool {
        self.sc.uses.iter(v).any(|u| self.top_block(u).is_some_and(|b| !members.get(b)))
    }

    /// Replaces the uses of `old` by `new` in ops outside `members` (all uses if
    /// `members` is `None`).
    fn replace_uses(&mut self, old: Value, new: Value, members: Option<&IdMap<bool>>) {
        let users: Vec<OpId> = self.sc.uses.iter(old).collect();
        self.sc.uses.remove_all(old);
        for u in users {
            let inside = members.is_some_and(|m| self.top_block(u).is_none_or(|b| m.get(b)));
            if inside {
                self.sc.uses.push(old, u);
                continue;
            }
            for operand in self.ir.op_mut(u).operands.iter_mut() {
                if *operand == old {
                    *operand = new;
                }
            }
            self.sc.uses.push(new, u);
        }
    }

    fn add_uses(&mut self, op: OpId) {
        for &v in &self.ir.op(op).operands {
            self.sc.uses.push(v, op);
        }
    }

    /// Where the fillers of an edge leaving `block` go: for a split header's
    /// terminator, the header's ops before the construct, where the deserializer
    /// materializes the values a header passes to its successors' phis (so that
    /// IR -> binary -> IR gives this IR back).
    pub(super) fn filler_home(&self, block: BlockId) -> BlockId {
        self.sc.split_from.get(&block).and_then(|&branch| self.ir.op(branch).parent).unwrap_or(block)
    }

    fn undef(&mut self, fillers: &mut Fillers, from: BlockId, ty: Type) -> Value {
        let block = self.filler_home(from);
        self.filled.push(from);
        if let Some(&v) = fillers.undef.get(&(block, ty)) {
            return v;
        }
        let op = self.ir.create_op(names().undef.clone(), vec![], &[ty], Location::Unknown);
        self.insert_before_terminator(block, op);
        let v = self.ir.op(op).results[0];
        fillers.undef.insert((block, ty), v);
        v
    }

    fn flag(&mut self, fillers: &mut Fillers, from: BlockId, value: bool) -> Value {
        let block = self.filler_home(from);
        self.filled.push(from);
        if let Some(&v) = fillers.flag.get(&(block, value)) {
            return v;
        }
        let op = self.ir.create_op(names().constant.clone(), vec![], &[self.bool_type], Location::Unknown);
        self.ir.set_property(
            op,
            "value",
            Attribute::Integer { value: i128::from(value), ty: self.bool_type },
        );
        self.insert_before_terminator(block, op);
        let v = self.ir.op(op).results[0];
        fillers.flag.insert((block, value), v);
        v
    }

    fn insert_before_terminator(&mut self, block: BlockId, op: OpId) {
        match terminator(self.ir, block) {
            Some(t) => self.ir.insert_op_before(block, t, op),
            None => self.ir.append_op(block, op),
        }
    }

    /// The operands successor `index` of `block`'s terminator forwards.
    fn edge_operands(&self, block: BlockId, index: usize) -> Vec<Value> {
        let Some(t) = terminator(self.ir, block) else { return Vec::new() };
        match successor_range(self.ir, t, index) {
            Some(r) => self.ir.op(t).operands.get(r).map(<[Value]>::to_vec).unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// Records that `block`'s terminator now branches to each of its successors.
    fn note_branches(&mut self, block: BlockId) {
        for &s in successors(self.ir, block) {
            self.sc.preds.push(s, block);
        }
    }

    /// The function-level blocks whose terminator now branches to `target` (give
    /// the list back with [`Self::done_with_preds`]).
    fn current_preds(&mut self, target: BlockId) -> Vec<BlockId> {
        let mut out = std::mem::take(&mut self.sc.preds_found);
        out.clear();
        for p in self.sc.preds.iter(target) {
            if successors(self.ir, p).contains(&target) && !self.sc.seen.get(p) {
                self.sc.seen.insert(p, true);
                out.push(p);
            }
        }
        self.sc.seen.clear();
        out
    }

    fn done_with_preds(&mut self, preds: Vec<BlockId>) {
        self.sc.preds_found = preds;
    }

    fn retarget(&mut self, block: BlockId, index: usize, target: BlockId, operands: Vec<Value>) {
        self.sc.preds.push(target, block);
        let Some(t) = terminator(self.ir, block) else { return };
        for &v in &operands {
            self.sc.uses.push(v, t);
        }
        set_successor(self.ir, t, index, target, operands);
    }

    /// [`Self::retarget`] forwarding the operands the edge forwards now: only the
    /// successor changes.
    fn retarget_keeping(&mut self, block: BlockId, index: usize, target: BlockId) {
        self.sc.preds.push(target, block);
        let Some(t) = terminator(self.ir, block) else { return };
        let Some(range) = successor_range(self.ir, t, index) else { return };
        for &v in self.ir.op(t).operands.get(range).unwrap_or(&[]) {
            self.sc.uses.push(v, t);
        }
        if let Some(s) = self.ir.op_mut(t).successors.get_mut(index) {
            *s = target;
        }
    }

    /// Retargets each edge of `block` to `from` to `to`, forwarding the same operands.
    fn retarget_edges(&mut self, block: BlockId, from: BlockId, to: BlockId) {
        for i in 0..successors(self.ir, block).len() {
            if successors(self.ir, block).get(i) == Some(&from) {
                self.retarget_keeping(block, i, to);
            }
        }
    }

    /// Rewrites construct `c` (its nested constructs already rewritten).
    pub(super) fn process(&mut self, c: usize) -> Result<(), StructurizeError> {
        let Construct { kind, header, merge, .. } = self.constructs[c];
        let mut merge = self.resolve(merge);
        let err = |m: &str| Err(StructurizeError::at(header, m.to_string()));
        if merge == header {
            return err("the merge block is the header itself");
        }
        let merge_owner = self.sc.owner.get(merge);
        if merge_owner.flatten() == Some(c) || merge_owner.is_none() {
            return err("the merge block is not after its construct");
        }
        let mut members: Vec<BlockId> =
            self.sc.members_of.get_mut(c + 1).map(std::mem::take).unwrap_or_default();
        if kind == Kind::Loop && !members.contains(&header) {
            return err("the loop header is not in its loop");
        }
        if self.top.first() == Some(&merge) {
            return err("the merge block is the function's entry block");
        }
        if kind == Kind::Loop && self.top.first() == Some(&header) {
            return err("the function's entry block is a loop header");
        }
        let merge_owner = merge_owner.flatten();
        let merge_slot = merge_owner.map_or(0, |o| o + 1);
        // A merge block also entered from outside the construct (older compilers made
        // an `if`'s merge block the loop's continue target, which `continue`s elsewhere
        // branch to): the construct gets a merge block of its own, which branches on.
        let mut member_set = std::mem::take(&mut self.sc.members);
        member_set.clear();
        for &b in &members {
            member_set.insert(b, true);
        }
        let from_construct = |p: BlockId| member_set.get(p) || (kind == Kind::Selection && p == header);
        let preds = self.current_preds(merge);
        if preds.iter().any(|&p| !from_construct(p) && !self.dead.contains(&p)) {
            let own = self.ir.create_block();
            let types: Vec<Type> =
                self.ir.block(merge).arguments.iter().map(|&a| self.ir.value_type(a)).collect();
            let args = add_block_arguments(self.ir, own, &types);
            let br = branch(self.ir, merge, args);
            self.add_uses(br);
            self.ir.append_op(own, br);
            self.note_branches(own);
            for &p in preds.iter().filter(|&&p| from_construct(p)) {
                self.retarget_edges(p, merge, own);
            }
            self.ir.append_block(self.body, own);
            self.sc.owner.insert(own, Some(merge_owner));
            if let Some(list) = self.sc.members_of.get_mut(merge_slot) {
                list.push(own);
            }
            self.inserted_before.entry(merge).or_default().push(own);
            merge = own;
        }
        self.done_with_preds(preds);
        self.sc.members = member_set;
        let entry = match kind {
            Kind::Selection => {
                let Some(term) = terminator(self.ir, header) else { return err("the header block is empty") };
                if !is_branch(self.ir, term) {
                    return err("not supported yet: a selection header that does not end in a branch");
                }
                if !self.header_splits.get(c).copied().unwrap_or(true) {
                    // As MLIR does, a header holding nothing else, and not also the merge
                    // block of another construct, moves into the region as it is;
                    // branches to it will go to the merge block.
                    let old_slot = self.sc.owner.get(header).flatten().map_or(0, |o| o + 1);
                    if let Some(list) = self.sc.members_of.get_mut(old_slot) {
                        list.retain(|&b| b != header);
                    }
                    self.sc.owner.insert(header, Some(Some(c)));
                    members.insert(0, header);
                    return self.process_with_entry(c, merge, members, header);
                }
                let split = self.ir.create_block();
                self.ir.append_block(self.body, split);
                self.ir.erase_op(term);
                self.ir.append_op(split, term);
                let to_merge = branch(self.ir, merge, Vec::new());
                self.ir.append_op(header, to_merge);
                self.sc.split_from.insert(split, to_merge);
                self.note_branches(header);
                self.note_branches(split);
                self.sc.owner.insert(split, Some(Some(c)));
                members.insert(0, split);
                split
            }
            Kind::Loop => header,
        };
        self.process_with_entry(c, merge, members, entry)
    }

    /// Rewrites construct `c` whose region starts at `entry` (the header, or the block
    /// its terminator was split into) and whose blocks are `members`.
    fn process_with_entry(
        &mut self,
        c: usize,
        merge: BlockId,
        members: Vec<BlockId>,
        entry: BlockId,
    ) -> Result<(), StructurizeError> {
        let Construct { kind, header, .. } = self.constructs[c];
        let err = |m: &str| Err(StructurizeError::at(header, m.to_string()));
        let merge_owner = self.sc.owner.get(merge).flatten();
        let merge_slot = merge_owner.map_or(0, |o| o + 1);
        let moves_header = entry == header;
        let mut member_set = std::mem::take(&mut self.sc.members);
        member_set.clear();
        for &b in &members {
            member_set.insert(b, true);
        }
        if kind == Kind::Selection && members.iter().any(|&b| successors(self.ir, b).contains(&header)) {
            return err("a branch back to the selection header from inside its construct");
        }

        // MLIR's order: breadth-first from the header, then blocks it does not reach.
        let mut order = std::mem::take(&mut self.sc.region_order);
        order.clear();
        order.push(entry);
        let seen = &mut self.sc.seen;
        seen.insert(entry, true);
        let mut i = 0;
        while let Some(&b) = order.get(i) {
            for &s in successors(self.ir, b) {
                if member_set.get(s) && !seen.get(s) {
                    seen.insert(s, true);
                    order.push(s);
                }
            }
            i += 1;
        }
        order.extend(members.iter().copied().filter(|&b| !seen.get(b)));
        seen.clear();
        // The order MLIR ends up with, which depends on the order it rewrote the
        // constructs in (see `order`).
        {
            let positions = &mut self.sc.node_position;
            for (p, &n) in self.sc.sim.order_of(c).iter().enumerate() {
                positions.insert(n, Some(p));
            }
            let node =
                |b: BlockId| if b == entry && entry != header { Node::Split(header) } else { Node::Block(b) };
            // Blocks made here sit with the block they were split from, or else
            // after the block before them in breadth-first order.
            let anchored = |b: BlockId| -> Option<(usize, usize)> {
                let mut at = b;
                for made in 0..=self.sc.anchor.len() {
                    if let Some(p) = positions.get(node(at)) {
                        return Some((p, made));
                    }
                    at = self.sc.anchor.get(at)?;
                }
                None
            };
            let keyed = &mut self.sc.keyed;
            keyed.clear();
            let mut previous = (0, 0, 0);
            for (i, &b) in order.iter().enumerate() {
                let key = match anchored(b) {
                    Some((p, made)) => (p, made, i),
                    None => (previous.0, previous.1 + 1, i),
                };
                keyed.push((key, b));
                previous = key;
            }
            positions.clear();
            // The keys are distinct (their last part is the position in `order`).
            let rest = keyed.get_mut(1..).unwrap_or(&mut []);
            rest.sort_unstable_by_key(|&(key, _)| key);
            order.clear();
            order.extend(keyed.iter().map(|&(_, b)| b));
        }

        // Branches leaving the construct.
        let mut to_merge: Vec<(BlockId, usize)> = Vec::new();
        let mut exits: Vec<(BlockId, usize, usize)> = Vec::new();
        let mut targets: Vec<BlockId> = Vec::new();
        for &b in &order {
            let succs = successors(self.ir, b);
            if succs.is_empty() {
                continue;
            }
            if !terminator(self.ir, b).is_some_and(|t| is_branch(self.ir, t)) {
                return err("not supported yet: a terminator with successors that is not a spirv branch");
            }
            for (i, &s) in succs.iter().enumerate() {
                if member_set.get(s) {
                    continue;
                }
                if s == merge {
                    to_merge.push((b, i));
                    continue;
                }
                let t = match targets.iter().position(|&t| t == s) {
                    Some(t) => t,
                    None => {
                        targets.push(s);
                        targets.len() - 1
                    }
                };
                exits.push((b, i, t));
            }
        }

        // Values defined inside and used after the construct.
        let mut escaping: Vec<(Value, BlockId)> = Vec::new();
        for &b in &order {
            let block = self.ir.block(b);
            let defined = block
                .arguments
                .iter()
                .copied()
                .chain(block.ops.iter().flat_map(|&op| self.ir.op(op).results.iter().copied()));
            for v in defined {
                if self.used_outside(v, &member_set) {
                    escaping.push((v, b));
                }
            }
        }
        let idom =
            if escaping.is_empty() { FxHashMap::default() } else { self.dominators(entry, &member_set) };
        let threaded = !exits.is_empty()
            || escaping.iter().any(|&(_, d)| to_merge.iter().any(|&(p, _)| !dominates(&idom, d, p)));

        // Loops: a single back-edge block, placed second to last.
        if kind == Kind::Loop {
            let back: Vec<BlockId> =
                order.iter().copied().filter(|&b| successors(self.ir, b).contains(&header)).collect();
            if back.len() == 1 && back[0] != header {
                order.retain(|&b| b != back[0]);
                order.push(back[0]);
            } else {
                let latch = self.ir.create_block();
                let types: Vec<Type> =
                    self.ir.block(header).arguments.iter().map(|&a| self.ir.value_type(a)).collect();
                let args = add_block_arguments(self.ir, latch, &types);
                let br = branch(self.ir, header, args);
                self.add_uses(br);
                self.ir.append_op(latch, br);
                self.note_branches(latch);
                for &b in &back {
                    self.retarget_edges(b, header, latch);
                }
                order.push(latch);
                member_set.insert(latch, true);
            }
        }

        // The op, its results and the region's merge block.
        let merge_args = self.ir.block(merge).arguments.clone();
        let value_types = |ir: &spirvkit_ir::Ir, vs: &mut dyn Iterator<Item = Value>| -> Vec<Type> {
            vs.map(|v| ir.value_type(v)).collect()
        };
        let mut region_merge_types = value_types(self.ir, &mut merge_args.iter().copied());
        let escaping_types = value_types(self.ir, &mut escaping.iter().map(|e| e.0));
        let target_types: Vec<Vec<Type>> = targets
            .iter()
            .map(|&t| value_types(self.ir, &mut self.ir.block(t).arguments.iter().copied()))
            .collect();
        let escaping_base = merge_args.len();
        let flag_base = escaping_base + escaping.len();
        let mut target_base = Vec::with_capacity(targets.len());
        if threaded {
            region_merge_types.extend_from_slice(&escaping_types);
            region_merge_types.extend(targets.iter().map(|_| self.bool_type));
            let mut next = flag_base + targets.len();
            for types in &target_types {
                target_base.push(next);
                region_merge_types.extend_from_slice(types);
                next += types.len();
            }
        }
        let mut result_types = region_merge_types.clone();
        if !threaded {
            result_types.extend_from_slice(&escaping_types);
        }
        let name = match kind {
            Kind::Selection => names().selection.clone(),
            Kind::Loop => names().loop_.clone(),
        };
        // The construct's own ops take the header's merge instruction's location (the
        // OpLine before OpSelectionMerge/OpLoopMerge also covers the branch after it),
        // which the header's terminator carries: it is the region's entry's now (a
        // split header ends in the new branch to the merge block instead).
        let header_terminator = if kind == Kind::Loop { header } else { entry };
        let header_location = self
            .ir
            .block(header_terminator)
            .ops
            .last()
            .map(|&t| self.ir.op(t).location.clone())
            .unwrap_or_default();
        let op = self.ir.create_op(name, vec![], &result_types, header_location.clone());
        let control_name = match kind {
            Kind::Selection => "selection_control",
            Kind::Loop => "loop_control",
        };
        let control = std::mem::replace(&mut self.constructs[c].control, Attribute::Unit);
        // The op is new: its only property.
        self.ir.op_mut(op).properties = vec![NamedAttribute::new(control_name, control)];
        let region_merge = self.ir.create_block();
        // The merge label in the binary is the region's merge block's, under which the
        // merge block's ops go on: it takes the merge block's name (which would
        // otherwise name the label of a header taking the merge block's label). A
        // loop's continue target keeps its name: it keeps its own label, in the role
        // the name tells.
        if !self.continue_targets.contains(&merge) {
            let merge_name = self.ir.block_mut(merge).name.take();
            self.ir.block_mut(region_merge).name = merge_name;
        }
        let mut yields = add_block_arguments(self.ir, region_merge, &region_merge_types);
        if !threaded {
            yields.extend(escaping.iter().map(|e| e.0));
        }
        let merge_op = self.ir.create_op(names().merge.clone(), yields, &[], header_location.clone());
        self.add_uses(merge_op);
        self.ir.append_op(region_merge, merge_op);

        // Branches to the merge block, then exits, now go to the region's merge block.
        let mut fillers = Fillers::default();
        for &(p, i) in &to_merge {
            if !threaded {
                self.retarget_keeping(p, i, region_merge);
                continue;
            }
            let mut operands = self.edge_operands(p, i);
            self.thread_escaping(&mut fillers, &mut operands, p, &escaping, &idom);
            for _ in &targets {
                operands.push(self.flag(&mut fillers, p, false));
            }
            for types in &target_types {
                for &t in types {
                    operands.push(self.undef(&mut fillers, p, t));
                }
            }
            self.retarget(p, i, region_merge, operands);
        }
        for &(p, i, target) in &exits {
            let own = self.edge_operands(p, i);
            if own.len() != target_types[target].len() {
                return err("a branch out of the construct passes the wrong number of arguments");
            }
            let mut operands = Vec::with_capacity(region_merge_types.len());
            for &a in &merge_args {
                let ty = self.ir.value_type(a);
                operands.push(self.undef(&mut fillers, p, ty));
            }
            self.thread_escaping(&mut fillers, &mut operands, p, &escaping, &idom);
            for j in 0..targets.len() {
                operands.push(self.flag(&mut fillers, p, j == target));
            }
            for (j, types) in target_types.iter().enumerate() {
                if j == target {
                    operands.extend_from_slice(&own);
                } else {
                    for &t in types {
                        operands.push(self.undef(&mut fillers, p, t));
                    }
                }
            }
            self.retarget(p, i, region_merge, operands);
        }

        // Uses after the construct read its results.
        let results = self.ir.op(op).results.clone();
        for (k, &a) in merge_args.iter().enumerate() {
            self.replace_uses(a, results[k], None);
        }
        for (k, &(v, _)) in escaping.iter().enumerate() {
            self.replace_uses(v, results[escaping_base + k], Some(&member_set));
        }
        for idx in (0..merge_args.len()).rev() {
            self.ir.erase_block_argument(merge, idx);
        }

        // A header moved into the region: entering the construct now means entering its
        // merge block (for loops, with the header's arguments).
        let mut loop_entry = None;
        if moves_header {
            let header_types: Vec<Type> =
                self.ir.block(header).arguments.iter().map(|&a| self.ir.value_type(a)).collect();
            let carried = add_block_arguments(self.ir, merge, &header_types);
            let preds = self.current_preds(header);
            for &b in &preds {
                if !member_set.get(b) {
                    self.retarget_edges(b, header, merge);
                }
            }
            self.done_with_preds(preds);
            if kind == Kind::Loop {
                let e = self.ir.create_block();
                let br = branch(self.ir, header, carried);
                self.ir.op_mut(br).location = header_location.clone();
                self.add_uses(br);
                self.ir.append_op(e, br);
                self.note_branches(e);
                loop_entry = Some(e);
            }
            self.sc.forward.insert(header, Some(merge));
        }

        // Move the blocks into the region.
        let region: RegionId = self.ir.add_region(op);
        for b in loop_entry.into_iter().chain(order.iter().copied()) {
            self.ir.append_block(region, b);
        }
        order.clear();
        self.sc.region_order = order;
        self.ir.append_block(region, region_merge);

        // Place the op in the merge block, dispatching exits after it.
        let mut new_blocks = Vec::new();
        if exits.is_empty() {
            match self.ir.block(merge).ops.first().copied() {
                Some(first) => self.ir.insert_op_before(merge, first, op),
                None => self.ir.append_op(merge, op),
            }
        } else {
            let rest = self.ir.create_block();
            for moved in std::mem::take(&mut self.ir.block_mut(merge).ops) {
                self.ir.append_op(rest, moved);
            }
            self.note_branches(rest);
            self.ir.append_op(merge, op);
            let mut current = merge;
            for (j, &t) in targets.iter().enumerate() {
                let next = if j + 1 == targets.len() { rest } else { self.ir.create_block() };
                let args = results[target_base[j]..target_base[j] + target_types[j].len()].to_vec();
                let br = branch_conditional(self.ir, results[flag_base + j], (t, args), (next, Vec::new()));
                self.add_uses(br);
                self.ir.append_op(current, br);
                self.note_branches(current);
                new_blocks.push(next);
                current = next;
            }
        }
        member_set.clear();
        self.sc.members = member_set;
        for &b in &new_blocks {
            self.ir.append_block(self.body, b);
            self.sc.owner.insert(b, Some(merge_owner));
        }
        if let Some(list) = self.sc.members_of.get_mut(merge_slot) {
            list.extend_from_slice(&new_blocks);
        }
        // The construct is done: its list is free for the next function.
        let mut members = members;
        members.clear();
        if let Some(list) = self.sc.members_of.get_mut(c + 1) {
            *list = members;
        }
        if !new_blocks.is_empty() {
            for &b in &new_blocks {
                self.sc.anchor.insert(b, Some(merge));
            }
            self.inserted_after.entry(merge).or_default().extend(new_blocks);
        }
        Ok(())
    }

    fn thread_escaping(
        &mut self,
        fillers: &mut Fillers,
        operands: &mut Vec<Value>,
        from: BlockId,
        escaping: &[(Value, BlockId)],
        idom: &FxHashMap<BlockId, BlockId>,
    ) {
        for &(v, def) in escaping {
            if dominates(idom, def, from) {
                operands.push(v);
            } else {
                let ty = self.ir.value_type(v);
                operands.push(self.undef(fillers, from, ty));
            }
        }
    }

    /// Immediate dominators of the blocks of `members` reachable from `entry` (the
    /// entry maps to itself), by the iterative algorithm of Cooper, Harvey and
    /// Kennedy.
    fn dominators(&self, entry: BlockId, members: &IdMap<bool>) -> FxHashMap<BlockId, BlockId> {
        // Post-order from the entry.
        let mut post: Vec<BlockId> = Vec::new();
        let mut visited: FxHashSet<BlockId> = std::iter::once(entry).collect();
        let mut stack: Vec<(BlockId, usize)> = vec![(entry, 0)];
        while let Some((b, next)) = stack.last_mut() {
            let succs = successors(self.ir, *b);
            if let Some(&s) = succs.get(*next) {
                *next += 1;
                if members.get(s) && visited.insert(s) {
                    stack.push((s, 0));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
        let number: FxHashMap<BlockId, usize> = post.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let mut preds: FxHashMap<BlockId, Vec<BlockId>> = FxHashMap::default();
        for &b in &post {
            for &s in successors(self.ir, b) {
                if number.contains_key(&s) {
                    preds.entry(s).or_default().push(b);
                }
            }
        }
        let mut idom: FxHashMap<BlockId, BlockId> = FxHashMap::default();
        idom.insert(entry, entry);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in post.iter().rev() {
                if b == entry {
                    continue;
                }
                let mut new_idom: Option<BlockId> = None;
                for &p in preds.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
                    if !idom.contains_key(&p) {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(cur) => intersect(&idom, &number, p, cur),
                    });
                }
                if let Some(n) = new_idom {
                    if idom.get(&b) != Some(&n) {
                        idom.insert(b, n);
                        changed = true;
                    }
                }
            }
        }
        idom
    }

    /// Checks what the rewrite must guarantee: branches stay within their region,
    /// every operand is defined in an enclosing region, and the regions have the
    /// layout the dialect requires. Also notes the `spirv.BranchConditional`s with
    /// one block as both successors, for `split_same_target_branches`.
    pub(super) fn check(&mut self) -> Result<(), StructurizeError> {
        let ir = &*self.ir;
        let block_of_value = |v: Value| -> Option<BlockId> {
            match ir.value(v).def {
                ValueDef::Result { op, .. } => ir.op(op).parent,
                ValueDef::Argument { block, .. } => Some(block),
            }
        };
        let same_target = &mut self.sc.same_target;
        let branch_conditional = &names().branch_conditional;
        let mut problem: Option<String> = None;
        // The region of the block of the last op (a block's ops come one after another).
        let mut last: Option<(BlockId, Option<RegionId>)> = None;
        ir.for_each_op_under(self.func, |block, op| {
            if problem.is_some() {
                return;
            }
            let o = ir.op(op);
            if o.successors.len() == 2 && o.successors[0] == o.successors[1] && o.name == *branch_conditional
            {
                same_target.push((block, op));
            }
            let block_region = match last {
                Some((b, region)) if b == block => region,
                _ => {
                    let region = ir.block(block).parent;
                    last = Some((block, region));
                    region
                }
            };
            let Some(region) = block_region else { return };
            for &s in &o.successors {
                if ir.block(s).parent != Some(region) {
                    problem =
                        Some(format!("internal error: '{}' branches out of its region", o.name.as_str()));
                    return;
                }
                if ir.region(region).blocks.first() == Some(&s) {
                    problem =
                        Some(format!("'{}' branches to the entry block of its region", o.name.as_str()));
                    return;
                }
            }
            for &v in &o.operands {
                let def_block = block_of_value(v);
                if def_block == Some(block) {
                    // Defined in the same block (most operands): the same region.
                    continue;
                }
                let Some(def_region) = def_block.and_then(|b| ir.block(b).parent) else {
                    problem = Some(format!("internal error: '{}' uses a detached value", o.name.as_str()));
                    return;
                };
                if def_region == region {
                    continue;
                }
                let mut r = Some(region);
                let mut found = false;
                // Bounded: a construct nested inside itself (see `top_block`) would
                // make the chain of enclosing regions a cycle.
                for _ in 0..=ir.region_count() {
                    let Some(cur) = r else { break };
                    if cur == def_region {
                        found = true;
                        break;
                    }
                    r = ir.region(cur).parent.and_then(|o| ir.op(o).parent).and_then(|b| ir.block(b).parent);
                }
                if !found {
                    problem = Some(format!(
                        "internal error: '{}' uses a value defined in a region that does not enclose it",
                        o.name.as_str()
                    ));
                    return;
                }
            }
            if o.regions.is_empty() {
                return;
            }
            if let Some(layout) = region_layout_error(ir, op) {
                problem = Some(format!("internal error: '{}' {layout}", o.name.as_str()));
            }
        });
        match problem {
            Some(message) => Err(StructurizeError { block: None, message }),
            None => Ok(()),
        }
    }
}

/// What is wrong with the blocks of a `spirv.mlir.selection`/`spirv.mlir.loop` region
/// (the rules the dialect's verifier applies), if anything. Only this is checked here:
/// the ops themselves are as the deserializer made them.
fn region_layout_error(ir: &spirvkit_ir::Ir, op: OpId) -> Option<&'static str> {
    let o = ir.op(op);
    let names = names();
    let is_loop = if o.name == names.loop_ {
        true
    } else if o.name == names.selection {
        false
    } else {
        return None;
    };
    let blocks = &ir.region(*o.regions.first()?).blocks;
    let last_op = |b: BlockId| ir.block(b).ops.last().map(|&t| ir.op(t));
    let Some(&merge) = blocks.last() else { return Some("has an empty region") };
    let merge_ops = &ir.block(merge).ops;
    if merge_ops.len() != 1 || last_op(merge).is_none_or(|t| t.name != names.merge) {
        return Some("region does not end in a merge block holding only 'spirv.mlir.merge'");
    }
    if blocks.iter().any(|&b| last_op(b).is_none()) {
        return Some("region has an empty block");
    }
    if !is_loop {
        return (blocks.len() < 2).then_some("region has no header block");
    }
    if blocks.len() < 4 {
        return Some("region lacks an entry, header or continue block");
    }
    let header = blocks[1];
    let targets = |b: BlockId| last_op(b).map_or(&[][..], |t| t.successors.as_slice());
    let entry_ok = last_op(blocks[0]).is_some_and(|t| t.name == names.branch && t.successors == [header]);
    if !entry_ok {
        return Some("region's entry block does not just branch to the header");
    }
    if !targets(blocks[blocks.len() - 2]).contains(&header) {
        return Some("region's second to last block does not branch to the header");
    }
    if blocks[1..blocks.len() - 2].iter().any(|&b| targets(b).contains(&header)) {
        return Some("region has a back edge from a block other than the continue block");
    }
    None
}

fn intersect(
    idom: &FxHashMap<BlockId, BlockId>,
    number: &FxHashMap<BlockId, usize>,
    a: BlockId,
    b: BlockId,
) -> BlockId {
    let (mut a, mut b) = (a, b);
    let num = |x: BlockId| number.get(&x).copied().unwrap_or(usize::MAX);
    let mut guard = number.len() * 2 + 2;
    while a != b && guard > 0 {
        guard -= 1;
        while num(a) < num(b) {
            match idom.get(&a) {
                Some(&n) if n != a => a = n,
                _ => return b,
            }
        }
        while num(b) < num(a) {
            match idom.get(&b) {
                Some(&n) if n != b => b = n,
                _ => return a,
            }
        }
    }
    a
}

/// Whether `a` dominates `b` in the region's CFG (`false` for unreached blocks,
/// unless they are the same block).
fn dominates(idom: &FxHashMap<BlockId, BlockId>, a: BlockId, b: BlockId) -> bool {
    let mut cur = b;
    // A dominator chain visits each block once; the bound guards against a
    // malformed tree rather than trusting it.
    for _ in 0..=idom.len() {
        if cur == a {
            return true;
        }
        match idom.get(&cur) {
            Some(&next) if next != cur => cur = next,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominance_walk_ends_on_a_malformed_tree() {
        let mut ir = spirvkit_ir::Ir::new();
        let (a, b, x) = (ir.create_block(), ir.create_block(), ir.create_block());
        // A cycle, which a real dominator tree never has.
        let idom: FxHashMap<BlockId, BlockId> = [(a, b), (b, a)].into_iter().collect();
        assert!(!dominates(&idom, x, a));
        assert!(dominates(&idom, b, a));
    }
}
