//! Functions and control flow: blocks in MLIR's "pretty" depth-first order, block
//! arguments as `OpPhi`, and `spirv.mlir.selection`/`spirv.mlir.loop` regions
//! flattened into header blocks with their merge instructions.
//!
//! Unlike MLIR, a construct that starts a block (not a region's first block, nor a
//! loop's header or continue block) has its header take that block's label instead
//! of being entered by an `OpBranch` from an otherwise empty block; and a selection
//! whose block is entered only by a plain `spirv.Branch` has its header end the
//! branching block instead (the branch is left out). The deserializer puts every
//! construct at the start of such a block (a split header's ops branch to it), so
//! this writes back the binary shape it read: binary -> IR -> binary -> IR settles
//! after one round, where with MLIR's layout each round adds an empty block per
//! construct. A loop's block may take values (the deserializer gives it the
//! header's phis): the header's phis then take the block's incoming values directly.

use super::ops::{operand_segment, sorted_attrs_where, OpKind};
use super::{encode, PendingMerge, Result, Serializer, MAX_DEPTH};
use spirvkit_grammar::fxhash::FxHashMap as HashMap;
use spirvkit_grammar::opcode;
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{BlockId, Location, Value, ValueDef};
use spirvkit_ir::types::TypeKind;
use spirvkit_ir::OpId;

/// Constructs whose header takes the label of the block they start.
#[derive(Default)]
pub(super) struct InPlace {
    /// The label the construct being processed takes.
    next: Option<HeaderLabel>,
    /// A block whose only predecessor left out its branch to it: the block goes on
    /// where that predecessor stopped, with no label of its own.
    falls_into: Option<BlockId>,
    /// The id of the last `OpLabel` written.
    current_label: u32,
    /// Entry block of a loop whose header took a block's label -> that block: the
    /// header's phis take the block's incoming values for the entry edge.
    loop_entries: HashMap<BlockId, BlockId>,
    /// The function being serialized, whose block arguments `argument_uses` counts.
    function: Option<OpId>,
    /// Uses of each block argument of the function, counted on first need (only a
    /// loop starting a block that takes values asks).
    argument_uses: Option<HashMap<Value, usize>>,
}

/// Where a construct's header label comes from when it is not a block of its own.
#[derive(Clone, Copy)]
enum HeaderLabel {
    /// The label of this block, which the construct starts (emitted with the header).
    Of(BlockId),
    /// The label being written: the header goes on in the current block.
    Current,
}

impl<'a> Serializer<'a> {
    pub(super) fn block_id(&mut self, block: BlockId) -> u32 {
        if let Some(&id) = self.block_ids.get(&block) {
            return id;
        }
        let id = self.next();
        self.block_ids.insert(block, id);
        id
    }

    pub(super) fn process_function(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let Some(&Attribute::Type(fn_type)) = o.attr("function_type") else {
            return Err(self.error(op, "spirv.func needs a function type"));
        };
        let TypeKind::Function { inputs, results } = ir.types.kind(fn_type) else {
            return Err(self.error(op, "spirv.func needs a function type"));
        };
        let fn_type_id = self.process_type(op, fn_type)?;
        if results.len() > 1 {
            return Err(self.error(op, "cannot serialize function with multiple return types"));
        }
        let result_type_id = match results.first() {
            Some(&r) => self.process_type(op, r)?,
            None => self.void_type(),
        };
        let name = match o.attr("sym_name") {
            Some(Attribute::String(s)) => s.as_str(),
            _ => "",
        };
        let function_id = self.function_id(name);
        let control = o.attr("function_control").and_then(|a| self.enum_value(a)).unwrap_or(0);
        self.dxc_line(true, &o.location, false);
        encode(
            &mut self.function_header,
            opcode::OpFunction,
            &[result_type_id, function_id, control, fn_type_id],
        );
        self.process_name(function_id, name);
        let entry = ir.entry_block(op);
        let import = matches!(
            o.attr("linkage_attributes"),
            Some(Attribute::Dialect { body: Some(body), .. })
                if super::attrs::field(body, "linkage_type").is_some_and(|t| t.contains("Import"))
        );
        let arg_attrs = match o.attr("arg_attrs") {
            Some(Attribute::Array(items)) => items.clone(),
            _ => Vec::new(),
        };
        let params: Vec<(spirvkit_ir::types::Type, Option<Value>)> = match entry {
            Some(entry) => ir.block(entry).arguments.iter().map(|&a| (ir.value_type(a), Some(a))).collect(),
            None => inputs.iter().map(|&t| (t, None)).collect(),
        };
        if entry.is_none() && !import {
            return Err(self.error(
                op,
                "'spirv.module' cannot contain external functions without 'Import' linkage_attributes (LinkageAttributes)",
            ));
        }
        for (index, (ty, arg)) in params.into_iter().enumerate() {
            let type_id = self.process_type(op, ty)?;
            let id = self.next();
            if let Some(Attribute::Dictionary(attrs)) = arg_attrs.get(index) {
                for attr in attrs {
                    self.process_argument_attr(op, id, attr)?;
                }
            }
            let location = entry.and_then(|e| ir.block(e).argument_locations.get(index));
            if let Some(arg) = arg {
                self.value_ids.insert(arg, id);
                if let Some(location) = location {
                    self.name_value(arg, location);
                }
            }
            self.dxc_line(true, location.unwrap_or(&Location::Unknown), false);
            encode(&mut self.function_header, opcode::OpFunctionParameter, &[type_id, id]);
        }
        self.count_argument_uses(op);
        if let Some(entry) = entry {
            let label = self.block_id(entry);
            self.name_label(entry, label);
            self.dxc_line(true, &Location::Unknown, false);
            encode(&mut self.function_header, opcode::OpLabel, &[label]);
            self.in_place.current_label = label;
            self.process_block(entry, true, None)?;
            let order = self.pretty_order(entry, &[]);
            for &block in &order {
                if block != entry {
                    self.process_block(block, false, None)?;
                }
            }
            self.release_order(order);
            self.check_nothing_falls_through(op)?;
            for (value, offset) in std::mem::take(&mut self.deferred_phi_values) {
                let id = self.value_id(op, value)?;
                if let Some(slot) = self.function_body.get_mut(offset) {
                    *slot = id;
                }
            }
        }
        self.dxc_line(false, &Location::Unknown, false);
        encode(&mut self.function_body, opcode::OpFunctionEnd, &[]);
        // Cleared, not taken: the buffers keep their capacity for the next function.
        self.functions.extend_from_slice(&self.function_header);
        self.functions.extend_from_slice(&self.function_body);
        self.function_header.clear();
        self.function_body.clear();
        // The function's other attributes decorate it, after its body's decorations.
        let decorations = sorted_attrs_where(ir, op, |name| {
            !matches!(name, "sym_name" | "function_type" | "function_control" | "arg_attrs" | "res_attrs")
        });
        for attr in decorations {
            self.process_decoration(op, function_id, attr)?;
        }
        Ok(())
    }

    /// The blocks reachable from `header` in depth-first preorder over the
    /// terminators' successors, not entering `skip`. The list comes from (and
    /// should go back to, with [`Self::release_order`]) a pool of reused lists.
    fn pretty_order(&mut self, header: BlockId, skip: &[BlockId]) -> Vec<BlockId> {
        let ir = self.ir;
        // Blocks seen in this walk carry this walk's stamp (no set to build and drop).
        self.visit_stamp += 1;
        let stamp = self.visit_stamp;
        let seen = &mut self.visited;
        let mut insert = |b: BlockId| match seen.get_mut(b.index()) {
            Some(s) if *s == stamp => false,
            Some(s) => {
                *s = stamp;
                true
            }
            None => {
                seen.resize(b.index() + 1, 0);
                seen[b.index()] = stamp;
                true
            }
        };
        for &b in skip {
            insert(b);
        }
        // The header's region bounds the walk (in valid IR).
        let region_blocks = ir.block(header).parent.map_or(0, |r| ir.region(r).blocks.len());
        let mut order = self.order_pool.pop().unwrap_or_default();
        order.clear();
        order.reserve(region_blocks);
        if !insert(header) {
            return order;
        }
        order.push(header);
        let successors = |b: BlockId| -> &[BlockId] {
            ir.block(b).ops.last().map_or(&[], |&t| ir.op(t).successors.as_slice())
        };
        let mut stack = std::mem::take(&mut self.order_stack);
        stack.clear();
        stack.reserve(region_blocks);
        stack.push((successors(header), 0usize));
        while let Some((succ, next)) = stack.last_mut() {
            let Some(&s) = succ.get(*next) else {
                stack.pop();
                continue;
            };
            *next += 1;
            if insert(s) {
                order.push(s);
                stack.push((successors(s), 0));
            }
        }
        self.order_stack = stack;
        order
    }

    /// Gives a list of [`Self::pretty_order`] back to the pool.
    fn release_order(&mut self, order: Vec<BlockId>) {
        self.order_pool.push(order);
    }

    /// Starts a function: nothing in place, its block arguments' uses not counted yet.
    fn count_argument_uses(&mut self, function: OpId) {
        self.in_place = InPlace { function: Some(function), ..InPlace::default() };
    }

    /// Uses of each block argument of the current function (for
    /// [`Self::header_takes_label`]).
    fn argument_uses(&mut self) -> &HashMap<Value, usize> {
        let ir = self.ir;
        let function = self.in_place.function;
        self.in_place.argument_uses.get_or_insert_with(|| {
            let mut uses: HashMap<Value, usize> = HashMap::default();
            if let Some(function) = function {
                ir.for_each_op_under(function, |_, op| {
                    for &v in &ir.op(op).operands {
                        if matches!(ir.value(v).def, ValueDef::Argument { .. }) {
                            *uses.entry(v).or_default() += 1;
                        }
                    }
                });
            }
            uses
        })
    }

    /// Whether the construct that starts `block` takes its label (see the module
    /// documentation): not in a region's first block, a loop's header or continue
    /// block (which have roles of their own), and only where the block's values, if
    /// any, are a loop's entry values and nothing else.
    fn header_takes_label(&mut self, block: BlockId) -> bool {
        let ir = self.ir;
        let b = ir.block(block);
        let (Some(&first), Some(region)) = (b.ops.first(), b.parent) else { return false };
        if b.ops.len() < 2 {
            return false;
        }
        let blocks = &ir.region(region).blocks;
        if blocks.first() == Some(&block) {
            return false;
        }
        let in_loop = ir.region(region).parent.is_some_and(|p| ir.op(p).name == self.op_names.loop_op);
        let continue_block = blocks.len().checked_sub(2).and_then(|i| blocks.get(i));
        if in_loop && (blocks.get(1) == Some(&block) || continue_block == Some(&block)) {
            return false;
        }
        let construct = ir.op(first);
        match &construct.name {
            name if *name == self.op_names.selection => b.arguments.is_empty(),
            name if *name == self.op_names.loop_op => {
                let entry = construct.regions.first().and_then(|&r| ir.region(r).blocks.first().copied());
                let Some(branch) = entry.and_then(|e| ir.block(e).ops.last().copied()) else { return false };
                ir.op(branch).operands == b.arguments && {
                    let uses = self.argument_uses();
                    b.arguments.iter().all(|a| uses.get(a) == Some(&1))
                }
            }
            _ => false,
        }
    }

    /// A region's blocks are all written: none may be waiting for the block it falls
    /// into (`falls_through` guarantees it is written next, this makes sure).
    fn check_nothing_falls_through(&mut self, op: OpId) -> Result<()> {
        if self.in_place.falls_into.take().is_some() {
            return Err(
                self.error(op, "internal error: a block left out its branch to a block not written next")
            );
        }
        Ok(())
    }

    fn emit_label(&mut self, id: u32) {
        self.dxc_line(false, &Location::Unknown, false);
        encode(&mut self.function_body, opcode::OpLabel, &[id]);
        self.in_place.current_label = id;
    }

    /// A block: label, phis, ops; a structured header's merge instruction goes
    /// before its terminator (or before its first nested construct).
    fn process_block(
        &mut self,
        block: BlockId,
        omit_label: bool,
        mut merge: Option<PendingMerge>,
    ) -> Result<()> {
        let ir = self.ir;
        // The block goes on where its only predecessor stopped (see `falls_through`).
        let continues = match self.in_place.falls_into.take() {
            Some(expected) if expected != block => {
                let at = ir.block(block).ops.first().copied().unwrap_or(self.module);
                return Err(
                    self.error(at, "internal error: a block left out its branch to a block not written next")
                );
            }
            Some(_) => true,
            None => false,
        };
        let is_header = merge.is_some();
        // The construct starting the block takes its label (and phis).
        let in_place = !continues && !is_header && !omit_label && self.header_takes_label(block);
        if !omit_label && !in_place && !continues {
            let label = self.block_id(block);
            self.name_label(block, label);
            self.emit_label(label);
        }
        if !in_place && !continues {
            self.emit_phis(block)?;
        }
        let ops = &ir.block(block).ops;
        if let Some(pending) = merge {
            let nested = ops.iter().any(|&o| self.op_names.is_construct(&ir.op(o).name));
            if nested {
                self.emit_merge(pending);
                merge = None;
                let fresh = self.next();
                encode(&mut self.function_body, opcode::OpBranch, &[fresh]);
                self.emit_label(fresh);
            }
        }
        let Some((&terminator, rest)) = ops.split_last() else { return Ok(()) };
        for (index, &op) in rest.iter().enumerate() {
            if index == 0 {
                if continues {
                    self.in_place.next = Some(HeaderLabel::Current);
                } else if in_place {
                    self.in_place.next = Some(HeaderLabel::Of(block));
                }
            }
            self.process_nested(op)?;
        }
        if let Some(pending) = merge {
            self.emit_merge(pending);
        }
        if !is_header {
            if let Some(target) = self.falls_through(block, terminator) {
                self.in_place.falls_into = Some(target);
                return Ok(());
            }
        }
        self.process_nested(terminator)
    }

    /// The block `block` goes on into, leaving out its `spirv.Branch` to it: a block
    /// starting with a selection whose only predecessor this is. The header then
    /// ends `block`, as in the binary the deserializer split it from (a header's ops
    /// stay where they are and branch to the block the construct op starts). It is
    /// next in the order blocks are written: its predecessor's only successor.
    fn falls_through(&mut self, block: BlockId, terminator: OpId) -> Option<BlockId> {
        let ir = self.ir;
        let t = ir.op(terminator);
        if t.name != self.op_names.branch || !t.operands.is_empty() {
            return None;
        }
        let &[target] = t.successors.as_slice() else { return None };
        let region = ir.block(block).parent?;
        let blocks = &ir.region(region).blocks;
        let construct = ir.region(region).parent.map(|p| &ir.op(p).name);
        let in_construct = construct.is_some_and(|name| self.op_names.is_construct(name));
        let continue_block = blocks.len().checked_sub(2).and_then(|i| blocks.get(i));
        let has_role = (in_construct && blocks.first() == Some(&block))
            || (construct == Some(&self.op_names.loop_op)
                && (blocks.get(1) == Some(&block) || continue_block == Some(&block)));
        let starts_selection =
            ir.block(target).ops.first().is_some_and(|&o| ir.op(o).name == self.op_names.selection);
        if target == block || has_role || !starts_selection || !self.header_takes_label(target) {
            return None;
        }
        let mut uses = Vec::new();
        self.branches_to(target, &mut uses);
        (uses.len() == 1 && uses.first().is_some_and(|&(p, _)| p == block)).then_some(target)
    }

    /// `process_op` with the nesting depth bounded.
    fn process_nested(&mut self, op: OpId) -> Result<()> {
        if self.depth > MAX_DEPTH {
            return Err(self.error(op, "not supported yet: control flow nested this deeply"));
        }
        self.depth += 1;
        let result = self.process_op(op);
        self.depth -= 1;
        result
    }

    fn emit_merge(&mut self, pending: PendingMerge) {
        match pending {
            PendingMerge::Selection { merge, control, at } => {
                self.emit_debug_line(false, at);
                self.last_was_merge = true;
                encode(&mut self.function_body, opcode::OpSelectionMerge, &[merge, control]);
            }
            PendingMerge::Loop { merge, continue_target, control, at } => {
                self.emit_debug_line(false, at);
                self.last_was_merge = true;
                encode(&mut self.function_body, opcode::OpLoopMerge, &[merge, continue_target, control]);
            }
        }
    }

    /// `spirv.Branch`, `spirv.BranchConditional` or `spirv.Switch` (`kind`).
    pub(super) fn process_branch(&mut self, op: OpId, kind: OpKind) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        match kind {
            OpKind::Branch => {
                let Some(&target) = o.successors.first() else {
                    return Err(self.error(op, "branch without target"));
                };
                let target = self.block_id(target);
                self.emit_debug_line(false, op);
                encode(&mut self.function_body, opcode::OpBranch, &[target]);
            }
            OpKind::BranchConditional => {
                let (Some(&condition), [true_block, false_block]) =
                    (o.operands.first(), o.successors.as_slice())
                else {
                    return Err(self.error(op, "malformed spirv.BranchConditional"));
                };
                let condition = self.value_id(op, condition)?;
                let true_id = self.block_id(*true_block);
                let false_id = self.block_id(*false_block);
                self.emit_debug_line(false, op);
                // Written in place: `encode`'s layout, the word count set at the end.
                let body = &mut self.function_body;
                let at = body.len();
                body.extend([0, condition, true_id, false_id]);
                let weights = if o.attributes.is_empty() && o.properties.is_empty() {
                    None
                } else {
                    o.attr("branch_weights")
                };
                if let Some(Attribute::Array(weights)) = weights {
                    for w in weights {
                        if let Attribute::Integer { value, .. } = w {
                            body.push(*value as u32);
                        }
                    }
                }
                super::set_word_count(body, at, opcode::OpBranchConditional);
            }
            _ => {
                let (Some(&selector), Some((&default, targets))) =
                    (o.operands.first(), o.successors.split_first())
                else {
                    return Err(self.error(op, "malformed spirv.Switch"));
                };
                let selector = self.value_id(op, selector)?;
                let default = self.block_id(default);
                let mut words = vec![selector, default];
                let literals: Vec<i128> = match o.attr("literals") {
                    Some(Attribute::Dense { elements, .. }) => elements
                        .iter()
                        .map(|e| match e {
                            Attribute::Integer { value, .. } => *value,
                            _ => 0,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let splat = literals.len() == 1 && targets.len() > 1;
                // A 64-bit selector takes two-word literals (low word first).
                let wide = matches!(
                    ir.types.kind(ir.value_type(o.operands[0])),
                    spirvkit_ir::types::TypeKind::Integer { width: 64, .. }
                );
                for (i, &target) in targets.iter().enumerate() {
                    let literal = if splat { literals.first() } else { literals.get(i) };
                    let Some(&literal) = literal else { break };
                    words.push(literal as u32);
                    if wide {
                        words.push((literal as u64 >> 32) as u32);
                    }
                    words.push(self.block_id(target));
                }
                self.emit_debug_line(false, op);
                encode(&mut self.function_body, opcode::OpSwitch, &words);
            }
        }
        Ok(())
    }

    /// The operands a predecessor's terminator passes to `block` through its
    /// successor `index` (MLIR's choice: the true target, the default, or the first
    /// case naming the block).
    fn branch_operands(&self, terminator: OpId, block: BlockId) -> Option<&'a [Value]> {
        let ir = self.ir;
        let o = ir.op(terminator);
        let def = o.name.def()?;
        let segment =
            |i: usize| operand_segment(ir, terminator, def, i).map(|r| o.operands.get(r).unwrap_or(&[]));
        match o.name.as_str() {
            "spirv.Branch" => Some(&o.operands),
            "spirv.BranchConditional" => {
                let which = if o.successors.first() == Some(&block) { 1 } else { 2 };
                segment(which)
            }
            "spirv.Switch" => {
                if o.successors.first() == Some(&block) {
                    return Some(segment(1).unwrap_or(&[]));
                }
                let case_values = segment(2).unwrap_or(&[]);
                let case_sizes: &[Attribute] = match o.attr("case_operand_segments") {
                    Some(Attribute::DenseArray { values, .. }) => values,
                    _ => &[],
                };
                let size_of = |v: &Attribute| match v {
                    Attribute::Integer { value, .. } => usize::try_from(*value).unwrap_or(0),
                    _ => 0,
                };
                let index = o.successors.iter().skip(1).position(|&s| s == block)?;
                let start = case_sizes.iter().take(index).map(size_of).fold(0usize, usize::saturating_add);
                let size = case_sizes.get(index).map_or(0, size_of);
                case_values.get(start..start.saturating_add(size))
            }
            _ => None,
        }
    }

    /// Where control really comes from when `block` branches: the merge block of
    /// its last structured construct, or for a loop's entry block, the block
    /// (or last construct's merge) the loop is in.
    fn phi_incoming_block(&self, block: BlockId) -> BlockId {
        let ir = self.ir;
        let merge_of = |op: OpId| -> Option<BlockId> {
            let region = *ir.op(op).regions.first()?;
            ir.region(region).blocks.last().copied()
        };
        let is_construct = |op: OpId| self.op_names.is_construct(&ir.op(op).name);
        let region = ir.block(block).parent;
        let is_entry = region.is_some_and(|r| ir.region(r).blocks.first() == Some(&block));
        if is_entry {
            if let Some(parent) =
                ir.parent_op_of_block(block).filter(|&p| ir.op(p).name == self.op_names.loop_op)
            {
                if let Some(container) = ir.op(parent).parent {
                    let ops = &ir.block(container).ops;
                    let at = ops.iter().position(|&o| o == parent).unwrap_or(0);
                    for &prev in ops[..at].iter().rev() {
                        if is_construct(prev) {
                            if let Some(merge) = merge_of(prev) {
                                return merge;
                            }
                        }
                    }
                    return container;
                }
            }
        }
        for &op in ir.block(block).ops.iter().rev() {
            if is_construct(op) {
                if let Some(merge) = merge_of(op) {
                    return merge;
                }
            }
        }
        block
    }

    /// Every branch of `block`'s region to it: (branching block, terminator), most
    /// recent use first, appended to `uses`.
    fn branches_to(&mut self, block: BlockId, uses: &mut Vec<(BlockId, OpId)>) {
        let ir = self.ir;
        let Some(region) = ir.block(block).parent else { return };
        let blocks = &ir.region(region).blocks;
        let terminators = blocks.iter().rev().filter_map(|&pred| Some((pred, *ir.block(pred).ops.last()?)));
        // A small region is scanned directly; a large one is indexed once.
        if blocks.len() <= 16 {
            for (pred, terminator) in terminators {
                for &s in ir.op(terminator).successors.iter().rev() {
                    if s == block {
                        uses.push((pred, terminator));
                    }
                }
            }
            return;
        }
        let preds = &mut self.predecessors;
        if preds.regions_done.get(region.index()) != Some(&true) {
            if region.index() >= preds.regions_done.len() {
                preds.regions_done.resize(region.index() + 1, false);
            }
            preds.regions_done[region.index()] = true;
            if preds.uses.len() < ir.block_count() {
                preds.uses.resize_with(ir.block_count(), Vec::new);
            }
            for (pred, terminator) in terminators {
                for &s in ir.op(terminator).successors.iter().rev() {
                    // Only the blocks of this region are asked about with its branches.
                    if ir.block(s).parent != Some(region) {
                        continue;
                    }
                    if s.index() >= preds.uses.len() {
                        preds.uses.resize_with(s.index() + 1, Vec::new);
                    }
                    preds.uses[s.index()].push((pred, terminator));
                }
            }
        }
        uses.extend_from_slice(preds.uses.get(block.index()).map_or(&[], Vec::as_slice));
    }

    /// The edges entering `block` for its phis: (parent block, values, branch), most
    /// recent use first (MLIR's use-list order), appended to `edges`.
    fn incoming_edges(
        &mut self,
        block: BlockId,
        follow_in_place: bool,
        edges: &mut Vec<(BlockId, &'a [Value], OpId)>,
    ) -> Result<()> {
        // Reused list (a nested call, rare, starts a list of its own).
        let mut uses = std::mem::take(&mut self.scratch_uses);
        uses.clear();
        self.branches_to(block, &mut uses);
        for &(pred, terminator) in &uses {
            if let Some(&outer) = self.in_place.loop_entries.get(&pred).filter(|_| follow_in_place) {
                // The loop header took `outer`'s label: `outer`'s predecessors enter
                // it, with the values they pass `outer` (which the entry passes on).
                self.incoming_edges(outer, false, edges)?;
                continue;
            }
            let Some(values) = self.branch_operands(terminator, block) else {
                return Err(self.error(terminator, "unimplemented terminator for Phi creation"));
            };
            edges.push((self.phi_incoming_block(pred), values, terminator));
        }
        self.scratch_uses = uses;
        Ok(())
    }

    /// `OpPhi` for each argument of a non-entry block, with one (value, parent)
    /// pair per predecessor use, most recent use first (MLIR's use-list order).
    fn emit_phis(&mut self, block: BlockId) -> Result<()> {
        let ir = self.ir;
        let b = ir.block(block);
        if b.arguments.is_empty() {
            return Ok(());
        }
        let Some(region) = b.parent else { return Ok(()) };
        if ir.region(region).blocks.first() == Some(&block) {
            return Ok(());
        }
        let mut predecessors = std::mem::take(&mut self.scratch_edges);
        predecessors.clear();
        self.incoming_edges(block, true, &mut predecessors)?;
        let anchor = ir.parent_op_of_block(block).unwrap_or(self.module);
        for (index, &arg) in b.arguments.iter().enumerate() {
            let type_id = self.process_type(anchor, ir.value_type(arg))?;
            let phi = self.next();
            // Written in place: `encode`'s layout, the word count set at the end.
            let at = self.function_body.len();
            self.function_body.reserve(3 + 2 * predecessors.len());
            self.function_body.extend([0, type_id, phi]);
            for &(pred, values, terminator) in &predecessors {
                let Some(&value) = values.get(index) else {
                    return Err(self.error(terminator, "branch passes fewer values than the block takes"));
                };
                let pred_id = self.block_id(pred);
                let value_id = match self.value_ids.get(&value) {
                    Some(&id) => id,
                    None => {
                        // Defined in a block serialized later: patched at the function's end.
                        self.deferred_phi_values.push((value, self.function_body.len()));
                        0
                    }
                };
                self.function_body.extend([value_id, pred_id]);
            }
            super::set_word_count(&mut self.function_body, at, opcode::OpPhi);
            self.value_ids.insert(arg, phi);
            if let Some(location) = b.argument_locations.get(index) {
                self.name_value(arg, location);
            }
        }
        self.scratch_edges = predecessors;
        Ok(())
    }

    pub(super) fn process_selection(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let Some(&region) = o.regions.first() else {
            return Err(self.error(op, "selection without a region"));
        };
        let in_place = self.in_place.next.take();
        let blocks = &ir.region(region).blocks;
        let (Some(&header), Some(&merge)) = (blocks.first(), blocks.last()) else {
            return Err(self.error(op, "selection without blocks"));
        };
        // A header taking another block's label is named by its own name, or else by
        // that block's (which writes no label of its own).
        match in_place {
            Some(HeaderLabel::Of(outer)) => {
                let label = self.block_id(outer);
                self.block_ids.insert(header, label);
                self.name_label(header, label);
                self.name_label(outer, label);
            }
            Some(HeaderLabel::Current) => {
                let label = self.in_place.current_label;
                self.block_ids.insert(header, label);
                self.name_label(header, label);
            }
            None => {}
        }
        for &b in blocks {
            self.block_id(b);
        }
        let header_id = self.block_id(header);
        let merge_id = self.block_id(merge);
        let control = o.attr("selection_control").and_then(|a| self.enum_value(a)).unwrap_or(0);
        if in_place.is_none() {
            encode(&mut self.function_body, opcode::OpBranch, &[header_id]);
        }
        let pending = PendingMerge::Selection { merge: merge_id, control, at: op };
        let continues = matches!(in_place, Some(HeaderLabel::Current));
        self.process_block(header, continues, Some(pending))?;
        let order = self.pretty_order(header, &[merge]);
        for &block in &order {
            if block != header {
                self.process_block(block, false, None)?;
            }
        }
        self.release_order(order);
        self.check_nothing_falls_through(op)?;
        self.name_label(merge, merge_id);
        self.emit_label(merge_id);
        self.emit_phis(merge)?;
        self.map_construct_results(op, merge)
    }

    pub(super) fn process_loop(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let Some(&region) = o.regions.first() else { return Err(self.error(op, "loop without a region")) };
        let blocks = &ir.region(region).blocks;
        if blocks.len() < 4 {
            return Err(
                self.error(op, "not supported yet: loop region without header, continue and merge blocks")
            );
        }
        let header = blocks[1];
        let continue_block = blocks[blocks.len() - 2];
        let merge = blocks[blocks.len() - 1];
        let in_place = match self.in_place.next.take() {
            Some(HeaderLabel::Of(outer)) => Some(outer),
            Some(HeaderLabel::Current) => {
                return Err(self.error(op, "internal error: a loop header cannot go on in another block"))
            }
            None => None,
        };
        if let Some(outer) = in_place {
            let label = self.block_id(outer);
            self.block_ids.insert(header, label);
            self.in_place.loop_entries.insert(blocks[0], outer);
            // Named by the header's name, or else by that block's (see selections).
            self.name_label(header, label);
            self.name_label(outer, label);
        }
        for &b in blocks.iter().skip(1) {
            self.block_id(b);
        }
        let header_id = self.block_id(header);
        let continue_id = self.block_id(continue_block);
        let merge_id = self.block_id(merge);
        let control = o.attr("loop_control").and_then(|a| self.enum_value(a)).unwrap_or(0);
        if in_place.is_none() {
            encode(&mut self.function_body, opcode::OpBranch, &[header_id]);
        }
        let pending = PendingMerge::Loop { merge: merge_id, continue_target: continue_id, control, at: op };
        self.process_block(header, false, Some(pending))?;
        let order = self.pretty_order(header, &[continue_block, merge]);
        for &block in &order {
            if block != header {
                self.process_block(block, false, None)?;
            }
        }
        self.release_order(order);
        self.process_block(continue_block, false, None)?;
        self.check_nothing_falls_through(op)?;
        self.name_label(merge, merge_id);
        self.emit_label(merge_id);
        // MLIR emits no phis here (so a merge block taking values serializes to an
        // id 0); we do, so the values reach the merge.
        self.emit_phis(merge)?;
        self.map_construct_results(op, merge)
    }

    /// A construct's results are the values its `spirv.mlir.merge` yields.
    fn map_construct_results(&mut self, op: OpId, merge: BlockId) -> Result<()> {
        let ir = self.ir;
        let results = &ir.op(op).results;
        if results.is_empty() {
            return Ok(());
        }
        let yielded = ir.block(merge).ops.last().map(|&m| ir.op(m).operands.clone()).unwrap_or_default();
        if yielded.len() != results.len() {
            return Err(self.error(op, "construct results do not match the values its merge yields"));
        }
        for (&result, &value) in results.iter().zip(&yielded) {
            let id = self.value_id(op, value)?;
            self.value_ids.insert(result, id);
        }
        Ok(())
    }
}
