//! Control-flow structurization: a `spirv.func` body deserialized as a plain CFG
//! (blocks in the order MLIR creates them, `spirv.Branch`/`spirv.BranchConditional`/
//! `spirv.Switch` terminators, OpPhi as block arguments) plus the merge instructions
//! the binary had, rewritten into `spirv.mlir.selection`/`spirv.mlir.loop` regions.
//!
//! # Shape of the result (as `mlir-translate --deserialize-spirv` prints it)
//!
//! - A selection header is split: its ops (and arguments) stay where they are and end
//!   with `spirv.Branch` to the merge block; its terminator alone becomes the first
//!   block of the `spirv.mlir.selection` region. As in MLIR, a header holding nothing
//!   but its branch (and not also another construct's merge block) is not split but
//!   moved into the region, branches to it going to the merge block.
//! - A loop header moves into the `spirv.mlir.loop` region after a new entry block
//!   that branches to it. The loop header's arguments are added to the merge block,
//!   and branches entering the loop from outside go to the merge block instead.
//! - The construct op is put at the front of the merge block. Its region holds the
//!   construct's blocks, then a new merge block with `spirv.mlir.merge`. The old merge
//!   block's arguments (OpPhi, in selection and loop merge blocks alike) become
//!   arguments of the new one and results of the op, followed by the values defined
//!   in the construct and used after it, in region order.
//! - Constructs are rewritten innermost first, so an outer construct sees each inner
//!   one as a single op in the inner merge block. The blocks of each region are then
//!   ordered as MLIR leaves them, which depends on the order of its work list
//!   (`order.rs` simulates it); a loop's back-edge block goes second to last.
//!
//! # Which blocks belong to a construct
//!
//! Blocks are visited in reverse post-order of the *structured* successors (a
//! header's merge block and continue target listed before its branch targets, so
//! they come after every block of the construct), keeping a stack of open constructs
//! that is popped at each merge block: a block belongs to the construct on top of the
//! stack. A loop header belongs to its own loop, a selection header to the enclosing
//! construct (only its terminator moves). Blocks not reached even through merge
//! edges are dead: like MLIR, they stay at function level, unless they branch into a
//! construct or use its values, in which case they are erased (nothing reachable can
//! use their values).
//!
//! # Branches a region cannot express: guard flags
//!
//! A region can only be left through its merge block, so a branch from inside a
//! construct to any other block outside it (a `break` out of a loop from a nested
//! selection or switch, a `continue`, a branch to an enclosing switch's or selection's
//! merge, a back edge from a nested selection) is rewritten: for each such exit
//! target `T` the region's merge block gets an `i1` flag argument and arguments for
//! `T`'s own arguments; the exiting branch goes to the merge block with its flag
//! `true`, the normal branches with all flags `false` (`spirv.Undef` fills the slots a
//! path does not define). After the construct op, the outer merge block dispatches:
//! `spirv.BranchConditional %flag_T, ^T(args), ^next`, the last `^next` being a new
//! block holding the merge block's original ops. The dispatch is an ordinary branch
//! of the enclosing construct, so an exit through several levels is rewritten again
//! at each level. When a construct has such exits, the values it yields to code after
//! it are threaded through merge-block arguments too (the value where its definition
//! dominates the branch, `spirv.Undef` where it does not and so cannot be used).
//! Returns, `spirv.Kill`, `spirv.Unreachable` and the like stay where they are: the
//! dialect allows them in any region of the function. The flags and `spirv.Undef`s
//! are placed as the deserializer would materialize them had it read these branches
//! from a binary (a fresh op right before each use; for a split header's branch,
//! at the end of the header's ops), so that binary -> IR -> binary -> IR settles
//! (`materialize.rs`).
//!
//! # Other repairs
//!
//! - Loops whose back edges do not come from a single block other than the header (a
//!   one-block loop, or several back-edge blocks) get a new latch block that is the
//!   only one branching to the header.
//! - A merge block also entered from outside its construct (older compilers made an
//!   `if`'s merge block the loop's continue target, which `continue`s elsewhere branch
//!   to) is preceded by a merge block of the construct's own that branches on to it.
//!
//! Everything is iterative (explicit worklists); an input that does not fit these
//! rules (a loop header as the function's entry, a merge block that is its own
//! header or inside its construct, a branch back to a selection header, a branch
//! terminator that is not one of the dialect's) gives a [`StructurizeError`] naming
//! the header. A final check (branches within their region, operands defined in an
//! enclosing region, regions laid out as the dialect requires) turns any slip into an
//! error rather than invalid IR.

mod branch;
mod lists;
mod materialize;
mod order;
mod rewrite;
#[cfg(test)]
mod tests;

use branch::successors;
use lists::{IdMap, ListMap};
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{BlockId, Location, OpName, RegionId, Value};
use spirvkit_ir::opdef::enum_attr_by_mnemonic;
use spirvkit_ir::types::{Signedness, Type};
use spirvkit_ir::{Ir, OpId};
use std::cell::RefCell;

/// Appends arguments of `types` to `block`, its argument lists grown once to their
/// exact size (they stay in the IR: growing by doubling would leave room never used).
pub(crate) fn add_block_arguments(ir: &mut Ir, block: BlockId, types: &[Type]) -> Vec<Value> {
    let b = ir.block_mut(block);
    b.arguments.reserve_exact(types.len());
    b.argument_locations.reserve_exact(types.len());
    types.iter().map(|&t| ir.add_block_argument(block, t, Location::Unknown)).collect()
}

/// The merge instruction of a header block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeInfo {
    /// OpSelectionMerge.
    Selection { merge: BlockId, control: u32 },
    /// OpLoopMerge (the loop control mask and its parameter words).
    Loop { merge: BlockId, continue_target: BlockId, control: u32, parameters: Vec<u32> },
}

/// Why a function could not be structurized.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StructurizeError {
    /// The header block where structurization failed, if one is to blame.
    pub block: Option<BlockId>,
    pub message: String,
}

impl StructurizeError {
    fn at(block: BlockId, message: impl Into<String>) -> Self {
        StructurizeError { block: Some(block), message: message.into() }
    }
}

/// The names of the ops the structurizer makes or looks for, resolved once (a name
/// from text costs a table lookup; comparing resolved names is an integer compare).
struct Names {
    branch: OpName,
    branch_conditional: OpName,
    switch: OpName,
    selection: OpName,
    loop_: OpName,
    merge: OpName,
    constant: OpName,
    undef: OpName,
    select: OpName,
}

fn names() -> &'static Names {
    static NAMES: std::sync::OnceLock<Names> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| Names {
        branch: OpName::new("spirv.Branch"),
        branch_conditional: OpName::new("spirv.BranchConditional"),
        switch: OpName::new("spirv.Switch"),
        selection: OpName::new("spirv.mlir.selection"),
        loop_: OpName::new("spirv.mlir.loop"),
        merge: OpName::new("spirv.mlir.merge"),
        constant: OpName::new("spirv.Constant"),
        undef: OpName::new("spirv.Undef"),
        select: OpName::new("spirv.Select"),
    })
}

/// Containers the structurizer reuses from one function to the next.
#[derive(Default)]
struct Scratch {
    /// The ops using each value (an op may be listed more than once).
    uses: ListMap<OpId>,
    /// Blocks that branch (or once branched: check the terminator) to each block.
    preds: ListMap<BlockId>,
    /// The construct a function-level block belongs to (`Some(None)`: the function
    /// itself; `None`: not reached).
    owner: IdMap<Option<Option<usize>>>,
    /// The construct each header block heads.
    header_of: IdMap<Option<usize>>,
    /// The construct each merge block merges (the last one given).
    merge_of: IdMap<Option<usize>>,
    /// The region's first block split from a selection header -> the branch ending
    /// the header's ops, which stay before the construct (in the header, or in the
    /// block they move to when a construct merging there dispatches exits).
    split_from: FxHashMap<BlockId, OpId>,
    /// The position of each block in MLIR's order of the region being rewritten.
    node_position: IdMap<Option<usize>>,
    /// The blocks of the construct being rewritten.
    members: IdMap<bool>,
    /// Blocks met by a walk.
    seen: IdMap<bool>,
    /// `spirv.BranchConditional`s whose two successors are one block, found by the
    /// final check.
    same_target: Vec<(BlockId, OpId)>,
    /// Loop headers moved into their region -> the merge block now entered instead.
    forward: IdMap<Option<BlockId>>,
    /// The block each block made while rewriting was split from.
    anchor: IdMap<Option<BlockId>>,
    /// The blocks `current_preds` found.
    preds_found: Vec<BlockId>,
    /// Buffers of `process_with_entry`.
    region_order: Vec<BlockId>,
    keyed: Vec<((usize, usize, usize), BlockId)>,
    /// Buffers of `run` and `structured_order`.
    block_order: Vec<BlockId>,
    walk: Vec<(BlockId, usize)>,
    open: Vec<usize>,
    header_rank: Vec<(usize, usize)>,
    /// The function-level blocks of each construct (index `c + 1`) and of the
    /// function itself (index 0), in order; the lists from `members_used` on are
    /// empty (kept from larger functions).
    members_of: Vec<Vec<BlockId>>,
    members_used: usize,
    sim: order::Scratch,
    /// Control attributes already made, by kind and mask (a cache, kept across
    /// functions; a module uses a handful).
    controls: Vec<(Kind, u32, Option<Attribute>)>,
}

impl Scratch {
    /// [`control_attr`], remembered.
    fn control_attr(&mut self, kind: Kind, mask: u32) -> Option<Attribute> {
        if let Some((_, _, attr)) = self.controls.iter().find(|&&(k, m, _)| k == kind && m == mask) {
            return attr.clone();
        }
        let attr = control_attr(kind, mask);
        // Bounded: input with many masks only goes without the cache.
        if self.controls.len() < 64 {
            self.controls.push((kind, mask, attr.clone()));
        }
        attr
    }

    /// Empties everything for a function whose blocks are numbered from
    /// `block_base` on.
    fn reset(&mut self, block_base: usize) {
        let Scratch {
            uses,
            preds,
            owner,
            header_of,
            merge_of,
            split_from,
            node_position,
            members,
            seen,
            same_target,
            forward,
            anchor,
            preds_found,
            region_order,
            keyed,
            block_order,
            walk,
            open,
            header_rank,
            members_of,
            members_used,
            sim,
            controls: _,
        } = self;
        let node_base = order::node_key(block_base, false);
        uses.reset();
        preds.reset_at(block_base);
        owner.reset_at(block_base);
        header_of.reset_at(block_base);
        merge_of.reset_at(block_base);
        split_from.clear();
        node_position.reset_at(node_base);
        members.reset_at(block_base);
        seen.reset_at(block_base);
        same_target.clear();
        forward.reset_at(block_base);
        anchor.reset_at(block_base);
        preds_found.clear();
        region_order.clear();
        keyed.clear();
        block_order.clear();
        walk.clear();
        open.clear();
        header_rank.clear();
        for list in members_of.iter_mut().take(*members_used) {
            list.clear();
        }
        *members_used = 0;
        sim.reset(block_base);
    }
}

thread_local! {
    /// One set of containers per thread, kept across functions (clearing keeps their
    /// capacity): a module's many small functions then cost no allocation for them.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Structurizes the body of `func` (a `spirv.func`), given the merge instruction of
/// every header block.
pub fn structurize(
    ir: &mut Ir,
    func: OpId,
    headers: &FxHashMap<BlockId, MergeInfo>,
) -> Result<(), StructurizeError> {
    if headers.is_empty() {
        return Ok(());
    }
    let Some(&body) = ir.op(func).regions.first() else {
        return Err(StructurizeError { block: None, message: "function has no body".to_string() });
    };
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => structurize_with(ir, func, body, headers, &mut scratch),
        // Not reentered in practice; a fresh set keeps it correct if it ever is.
        Err(_) => structurize_with(ir, func, body, headers, &mut Scratch::default()),
    })
}

fn structurize_with(
    ir: &mut Ir,
    func: OpId,
    body: RegionId,
    headers: &FxHashMap<BlockId, MergeInfo>,
    scratch: &mut Scratch,
) -> Result<(), StructurizeError> {
    // The function's blocks were made while it was read: numbered from its first.
    let block_base = ir.region(body).blocks.iter().map(|b| b.index()).min().unwrap_or(0);
    scratch.reset(block_base);
    let mut s = Structurizer::new(ir, scratch, func, body, headers)?;
    s.run()?;
    s.check()?;
    let filled = std::mem::take(&mut s.filled);
    let mut touched: Vec<(BlockId, BlockId)> =
        filled.into_iter().map(|from| (s.filler_home(from), from)).collect();
    let branches = std::mem::take(&mut s.sc.same_target);
    touched.extend(split_same_target_branches(s.ir, &branches));
    s.sc.same_target = branches;
    materialize::rematerialize(ir, func, &touched);
    Ok(())
}

/// A guard rewrite can leave `spirv.BranchConditional %c, ^m(true), ^m(false)`: both
/// edges into one block with different arguments. SPIR-V has no such branch (the
/// labels must differ, and an OpPhi takes one value per predecessor block). Where the
/// arguments differ, the false edge goes through a new block placed after the
/// branching one, in its region; a loop's back edge (which must come from the
/// continue block alone) instead picks its arguments with `spirv.Select` when they
/// are scalars or vectors, and becomes an unconditional branch. `branches` are the
/// function's such branches, in the order of [`Ir::ops_under`]. Returns the blocks
/// whose ops' operands changed, as (block, block) pairs for `materialize`.
fn split_same_target_branches(ir: &mut Ir, branches: &[(BlockId, OpId)]) -> Vec<(BlockId, BlockId)> {
    let mut touched = Vec::new();
    for &(block, op) in branches {
        let Some(ranges) = ir.successor_operand_ranges(op) else { continue };
        let (Some(region), Some(true_range), Some(false_range)) =
            (ir.block(block).parent, ranges.first().cloned(), ranges.get(1).cloned())
        else {
            continue;
        };
        let target = ir.op(op).successors[1];
        let true_args = ir.op(op).operands[true_range].to_vec();
        let false_args = ir.op(op).operands[false_range].to_vec();
        let location = ir.op(op).location.clone();
        let in_loop = ir.region(region).parent.is_some_and(|p| ir.op(p).name == names().loop_);
        let loop_header = in_loop && ir.region(region).blocks.get(1) == Some(&target);
        if loop_header {
            let Some(condition) = ir.op(op).operands.first().copied() else { continue };
            let selectable = true_args.iter().zip(&false_args).all(|(&t, &f)| {
                t == f || {
                    let ty = ir.value_type(t);
                    ir.types.is_integer(ty) || ir.types.is_float(ty) || ir.types.scalar_of(ty) != ty
                }
            });
            if !selectable {
                continue;
            }
            let mut chosen = Vec::with_capacity(true_args.len());
            for (&t, &f) in true_args.iter().zip(&false_args) {
                if t == f {
                    chosen.push(t);
                    continue;
                }
                let ty = ir.value_type(t);
                let select =
                    ir.create_op(names().select.clone(), vec![condition, t, f], &[ty], location.clone());
                ir.insert_op_before(block, op, select);
                chosen.push(ir.op(select).results[0]);
            }
            // Both edges now carry the same arguments: one unconditional branch (a
            // conditional one may not name one label twice).
            let back = branch::branch(ir, target, chosen);
            ir.op_mut(back).location = location;
            ir.insert_op_before(block, op, back);
            ir.erase_op(op);
            touched.push((block, block));
            continue;
        }
        let edge = ir.create_block();
        ir.append_block(region, edge);
        // Right after the branching block, not after the region's merge block.
        let blocks = &mut ir.region_mut(region).blocks;
        blocks.pop();
        let at = blocks.iter().position(|&b| b == block).map_or(blocks.len(), |i| i + 1);
        blocks.insert(at, edge);
        let forward = branch::branch(ir, target, false_args);
        ir.op_mut(forward).location = location;
        ir.append_op(edge, forward);
        branch::set_successor(ir, op, 1, edge, Vec::new());
        touched.push((edge, edge));
    }
    touched
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Selection,
    Loop,
}

#[derive(Clone, Debug)]
struct Construct {
    kind: Kind,
    header: BlockId,
    merge: BlockId,
    continue_target: Option<BlockId>,
    /// Taken when the construct's op is made.
    control: Attribute,
}

struct Structurizer<'a> {
    ir: &'a mut Ir,
    sc: &'a mut Scratch,
    func: OpId,
    body: RegionId,
    constructs: Vec<Construct>,
    /// The function's blocks in their original order.
    top: Vec<BlockId>,
    /// Blocks made while rewriting, to be placed after a function-level block.
    inserted_after: FxHashMap<BlockId, Vec<BlockId>>,
    /// Blocks made while rewriting, to be placed before a function-level block.
    inserted_before: FxHashMap<BlockId, Vec<BlockId>>,
    /// Whether each construct's header is split (a selection header holding more than
    /// its branch, or a merge block too, or the entry block, or with arguments).
    header_splits: Vec<bool>,
    /// Blocks whose terminators pass fillers: see `materialize`.
    filled: Vec<BlockId>,
    /// Blocks not reached from the entry, even through merge edges.
    dead: FxHashSet<BlockId>,
    /// The loops' continue targets (which keep their names, see `process_with_entry`).
    continue_targets: FxHashSet<BlockId>,
    bool_type: Type,
}

impl<'a> Structurizer<'a> {
    fn new(
        ir: &'a mut Ir,
        sc: &'a mut Scratch,
        func: OpId,
        body: RegionId,
        headers: &FxHashMap<BlockId, MergeInfo>,
    ) -> Result<Self, StructurizeError> {
        let blocks = ir.region(body).blocks.clone();
        // Every block the deserializer makes for a label is appended to the body.
        let in_body = |b: BlockId| ir.block(b).parent == Some(body);
        let mut constructs = Vec::with_capacity(headers.len());
        // Deterministic order: headers in block order.
        for &b in &blocks {
            let Some(info) = headers.get(&b) else { continue };
            let (kind, merge, continue_target, control) = match info {
                MergeInfo::Selection { merge, control } => (Kind::Selection, *merge, None, *control),
                MergeInfo::Loop { merge, continue_target, control, .. } => {
                    (Kind::Loop, *merge, Some(*continue_target), *control)
                }
            };
            for t in std::iter::once(merge).chain(continue_target) {
                if !in_body(t) {
                    return Err(StructurizeError::at(
                        b,
                        "merge block or continue target is not a block of the function",
                    ));
                }
            }
            if merge == b {
                return Err(StructurizeError::at(b, "header block is its own merge block"));
            }
            let control = sc.control_attr(kind, control).ok_or_else(|| {
                StructurizeError::at(
                    b,
                    format!("not supported yet: control mask {control:#x} of a structured construct"),
                )
            })?;
            constructs.push(Construct { kind, header: b, merge, continue_target, control });
        }
        if constructs.len() != headers.len() {
            let stray = headers.keys().find(|&&h| !in_body(h)).copied();
            return Err(StructurizeError {
                block: stray,
                message: "header block is not a block of the function".to_string(),
            });
        }
        let uses = &mut sc.uses;
        ir.for_each_op_under(func, |_, op| {
            for &v in &ir.op(op).operands {
                uses.push(v, op);
            }
        });
        for &b in &blocks {
            for &s in successors(ir, b) {
                sc.preds.push(s, b);
            }
        }
        let bool_type = ir.types.integer(1, Signedness::Signless);
        let continue_targets = constructs.iter().filter_map(|c| c.continue_target).collect();
        Ok(Structurizer {
            ir,
            sc,
            func,
            body,
            constructs,
            top: blocks,
            header_splits: Vec::new(),
            filled: Vec::new(),
            dead: FxHashSet::default(),
            continue_targets,
            inserted_after: FxHashMap::default(),
            inserted_before: FxHashMap::default(),
            bool_type,
        })
    }

    fn run(&mut self) -> Result<(), StructurizeError> {
        for (i, c) in self.constructs.iter().enumerate() {
            self.sc.header_of.insert(c.header, Some(i));
            self.sc.merge_of.insert(c.merge, Some(i));
        }
        let order = self.structured_order();
        // Assign each reached block to the innermost open construct.
        let mut open = std::mem::take(&mut self.sc.open);
        let mut header_rank = std::mem::take(&mut self.sc.header_rank);
        for (rank, &b) in order.iter().enumerate() {
            if let Some(c) = self.sc.merge_of.get(b) {
                if let Some(pos) = open.iter().rposition(|&o| o == c) {
                    open.truncate(pos);
                }
            }
            let enclosing = open.last().copied();
            match self.sc.header_of.get(b) {
                Some(c) => {
                    let own = if self.constructs[c].kind == Kind::Loop { Some(c) } else { enclosing };
                    self.sc.owner.insert(b, Some(own));
                    open.push(c);
                    header_rank.push((rank, c));
                }
                None => {
                    self.sc.owner.insert(b, Some(enclosing));
                }
            }
        }
        self.sc.block_order = order;
        open.clear();
        self.sc.open = open;
        self.set_aside_dead_blocks()?;
        let entry = self.top.first().copied();
        let is_merge = |b: BlockId| self.sc.merge_of.get(b).is_some();
        let shapes: Vec<order::HeaderShape> = self
            .constructs
            .iter()
            .map(|c| {
                let block = self.ir.block(c.header);
                let keeps_alone = block.ops.len() == 1
                    && block.arguments.is_empty()
                    && entry != Some(c.header)
                    && !is_merge(c.header);
                order::HeaderShape {
                    mlir_splits: order::mlir_splits(self.ir, c, is_merge(c.header)),
                    splits: c.kind == Kind::Selection && !keeps_alone,
                }
            })
            .collect();
        self.header_splits = shapes.iter().map(|s| s.splits).collect();
        let block_base = self.top.iter().map(|b| b.index()).min().unwrap_or(0);
        order::mlir_orders(self.ir, &self.top, &self.constructs, &shapes, &mut self.sc.sim, block_base);
        let members = &mut self.sc.members_of;
        if members.len() < self.constructs.len() + 1 {
            members.resize_with(self.constructs.len() + 1, Vec::new);
        }
        self.sc.members_used = self.constructs.len() + 1;
        for &b in &self.top {
            if let Some(owner) = self.sc.owner.get(b) {
                if let Some(list) = members.get_mut(owner.map_or(0, |o| o + 1)) {
                    list.push(b);
                }
            }
        }
        // Innermost first: a nested header comes after its parent's in the order.
        header_rank.sort_unstable();
        let processed = header_rank.iter().rev().try_for_each(|&(_, c)| self.process(c));
        self.sc.header_rank = header_rank;
        processed?;
        self.drop_invalid_dead_blocks()?;
        // The original order, with the blocks made after a merge block following it.
        let body = self.body;
        if self.inserted_before.is_empty() && self.inserted_after.is_empty() {
            // (The common case: nothing to place.)
            let mut kept = std::mem::take(&mut self.top);
            kept.retain(|&b| self.ir.block(b).parent == Some(body));
            self.ir.region_mut(body).blocks = kept;
            return Ok(());
        }
        let mut kept = Vec::with_capacity(self.top.len());
        // (block, whether the blocks to put before it are already placed)
        let mut pending: Vec<(BlockId, bool)> = self.top.iter().rev().map(|&b| (b, false)).collect();
        while let Some((b, before_done)) = pending.pop() {
            if !before_done {
                if let Some(before) = self.inserted_before.remove(&b) {
                    pending.push((b, true));
                    pending.extend(before.into_iter().rev().map(|x| (x, false)));
                    continue;
                }
            }
            if self.ir.block(b).parent == Some(body) {
                kept.push(b);
            }
            if let Some(after) = self.inserted_after.remove(&b) {
                pending.extend(after.into_iter().rev().map(|x| (x, false)));
            }
        }
        self.ir.region_mut(body).blocks = kept;
        Ok(())
    }

    /// The `k`th structured successor of `b`: a header's merge block and continue
    /// target first, then its branch targets.
    fn structured_successor(&self, b: BlockId, mut k: usize) -> Option<BlockId> {
        if let Some(c) = self.sc.header_of.get(b) {
            let c = &self.constructs[c];
            if k == 0 {
                return Some(c.merge);
            }
            k -= 1;
            if let Some(t) = c.continue_target {
                if k == 0 {
                    return Some(t);
                }
                k -= 1;
            }
        }
        successors(self.ir, b).get(k).copied()
    }

    /// Reverse post-order of the blocks reachable from the entry through branches and
    /// merge edges, a header's merge block and continue target first among its
    /// successors.
    fn structured_order(&mut self) -> Vec<BlockId> {
        let mut post = std::mem::take(&mut self.sc.block_order);
        post.clear();
        let Some(&entry) = self.top.first() else { return post };
        let mut stack = std::mem::take(&mut self.sc.walk);
        stack.clear();
        self.sc.seen.insert(entry, true);
        stack.push((entry, 0));
        while let Some(&mut (block, ref mut next)) = stack.last_mut() {
            if let Some(s) = self.structured_successor(block, *next) {
                *next += 1;
                if self.ir.block(s).parent == Some(self.body) && !self.sc.seen.get(s) {
                    self.sc.seen.insert(s, true);
                    stack.push((s, 0));
                }
            } else {
                post.push(block);
                stack.pop();
            }
        }
        self.sc.seen.clear();
        self.sc.walk = stack;
        post.reverse();
        post
    }
}

/// The `#spirv.selection_control<...>`/`#spirv.loop_control<...>` attribute for a
/// control mask, its bits named as MLIR's enum does; `None` for unknown bits.
fn control_attr(kind: Kind, mask: u32) -> Option<Attribute> {
    let mnemonic = match kind {
        Kind::Selection => "selection_control",
        Kind::Loop => "loop_control",
    };
    let def = enum_attr_by_mnemonic(mnemonic)?;
    let text = if mask == 0 {
        def.case_by_value(0).map(|c| c.str.to_string())?
    } else {
        let mut names = Vec::new();
        let mut covered = 0u64;
        for case in def.cases {
            if case.value != 0 && case.value.count_ones() == 1 && u64::from(mask) & case.value != 0 {
                names.push(case.str);
                covered |= case.value;
            }
        }
        if covered != u64::from(mask) {
            return None;
        }
        names.join("|")
    };
    Some(Attribute::Dialect { name: format!("spirv.{mnemonic}"), body: Some(text) })
}
