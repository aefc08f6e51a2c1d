//! Functions and control flow: blocks in MLIR's "pretty" depth-first order, block
//! arguments as `OpPhi`, and `spirv.mlir.selection`/`spirv.mlir.loop` regions
//! flattened into header blocks with their merge instructions.

use super::attrs::enum_value;
use super::ops::{operand_segments, sorted_attrs};
use super::{encode, PendingMerge, Result, Serializer, MAX_DEPTH};
use spirvkit_grammar::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use spirvkit_grammar::opcode;
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{BlockId, Value};
use spirvkit_ir::types::TypeKind;
use spirvkit_ir::OpId;

impl Serializer<'_> {
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
            Some(Attribute::String(s)) => s.clone(),
            _ => String::new(),
        };
        let function_id = self.function_id(&name);
        let control = o.attr("function_control").and_then(enum_value).unwrap_or(0);
        encode(
            &mut self.function_header,
            opcode::OpFunction,
            &[result_type_id, function_id, control, fn_type_id],
        );
        self.process_name(function_id, &name);
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
                    if attr.name != "spirv.decoration" {
                        continue;
                    }
                    if let Attribute::Dialect { body: Some(body), .. } = &attr.value {
                        let name = body.trim();
                        let Some(decoration) = super::attrs::enumerant("Decoration", name) else {
                            return Err(self.error(op, format!("unknown decoration {name}")));
                        };
                        self.process_decoration_value(op, id, name, decoration, &attr.value)?;
                    }
                }
            }
            if let Some(arg) = arg {
                self.value_ids.insert(arg, id);
            }
            encode(&mut self.function_header, opcode::OpFunctionParameter, &[type_id, id]);
        }
        if let Some(entry) = entry {
            let label = self.block_id(entry);
            encode(&mut self.function_header, opcode::OpLabel, &[label]);
            self.process_block(entry, true, None)?;
            for block in self.pretty_order(entry, &[]) {
                if block != entry {
                    self.process_block(block, false, None)?;
                }
            }
            for (value, offset) in std::mem::take(&mut self.deferred_phi_values) {
                let id = self.value_id(op, value)?;
                if let Some(slot) = self.function_body.get_mut(offset) {
                    *slot = id;
                }
            }
        }
        encode(&mut self.function_body, opcode::OpFunctionEnd, &[]);
        let header = std::mem::take(&mut self.function_header);
        let body = std::mem::take(&mut self.function_body);
        self.functions.extend(header);
        self.functions.extend(body);
        // The function's other attributes decorate it, after its body's decorations.
        for attr in sorted_attrs(ir, op) {
            if matches!(
                attr.name.as_str(),
                "sym_name" | "function_type" | "function_control" | "arg_attrs" | "res_attrs"
            ) {
                continue;
            }
            self.process_decoration(op, function_id, attr)?;
        }
        Ok(())
    }

    /// The blocks reachable from `header` in depth-first preorder over the
    /// terminators' successors, not entering `skip`.
    fn pretty_order(&self, header: BlockId, skip: &[BlockId]) -> Vec<BlockId> {
        let ir = self.ir;
        let mut seen: HashSet<BlockId> = skip.iter().copied().collect();
        let mut order = Vec::new();
        if !seen.insert(header) {
            return order;
        }
        order.push(header);
        let successors = |b: BlockId| -> Vec<BlockId> {
            ir.block(b).ops.last().map(|&t| ir.op(t).successors.clone()).unwrap_or_default()
        };
        let mut stack = vec![(header, successors(header), 0usize)];
        while let Some((_, succ, next)) = stack.last_mut() {
            let Some(&s) = succ.get(*next) else {
                stack.pop();
                continue;
            };
            *next += 1;
            if seen.insert(s) {
                order.push(s);
                stack.push((s, successors(s), 0));
            }
        }
        order
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
        if !omit_label {
            let label = self.block_id(block);
            encode(&mut self.function_body, opcode::OpLabel, &[label]);
        }
        self.emit_phis(block)?;
        let ops = &ir.block(block).ops;
        if let Some(pending) = merge {
            let nested = ops
                .iter()
                .any(|&o| matches!(ir.op(o).name.as_str(), "spirv.mlir.loop" | "spirv.mlir.selection"));
            if nested {
                self.emit_merge(pending);
                merge = None;
                let fresh = self.next();
                encode(&mut self.function_body, opcode::OpBranch, &[fresh]);
                encode(&mut self.function_body, opcode::OpLabel, &[fresh]);
            }
        }
        let Some((&terminator, rest)) = ops.split_last() else { return Ok(()) };
        for &op in rest {
            self.process_nested(op)?;
        }
        if let Some(pending) = merge {
            self.emit_merge(pending);
        }
        self.process_nested(terminator)
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

    pub(super) fn process_branch(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        match o.name.as_str() {
            "spirv.Branch" => {
                let Some(&target) = o.successors.first() else {
                    return Err(self.error(op, "branch without target"));
                };
                let target = self.block_id(target);
                self.emit_debug_line(false, op);
                encode(&mut self.function_body, opcode::OpBranch, &[target]);
            }
            "spirv.BranchConditional" => {
                let (Some(&condition), [true_block, false_block]) =
                    (o.operands.first(), o.successors.as_slice())
                else {
                    return Err(self.error(op, "malformed spirv.BranchConditional"));
                };
                let condition = self.value_id(op, condition)?;
                let true_id = self.block_id(*true_block);
                let false_id = self.block_id(*false_block);
                let mut words = vec![condition, true_id, false_id];
                if let Some(Attribute::Array(weights)) = o.attr("branch_weights") {
                    for w in weights {
                        if let Attribute::Integer { value, .. } = w {
                            words.push(*value as u32);
                        }
                    }
                }
                self.emit_debug_line(false, op);
                encode(&mut self.function_body, opcode::OpBranchConditional, &words);
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
                for (i, &target) in targets.iter().enumerate() {
                    let literal = if splat { literals.first() } else { literals.get(i) };
                    let Some(&literal) = literal else { break };
                    words.push(literal as u32);
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
    fn branch_operands(&self, terminator: OpId, block: BlockId) -> Option<Vec<Value>> {
        let ir = self.ir;
        let o = ir.op(terminator);
        let def = o.name.def()?;
        match o.name.as_str() {
            "spirv.Branch" => Some(o.operands.clone()),
            "spirv.BranchConditional" => {
                let segments = operand_segments(ir, terminator, def);
                let which = if o.successors.first() == Some(&block) { 1 } else { 2 };
                segments.get(which).cloned()
            }
            "spirv.Switch" => {
                let segments = operand_segments(ir, terminator, def);
                let default_operands = segments.get(1).cloned().unwrap_or_default();
                if o.successors.first() == Some(&block) {
                    return Some(default_operands);
                }
                let case_values = segments.get(2).cloned().unwrap_or_default();
                let case_sizes: Vec<usize> = match o.attr("case_operand_segments") {
                    Some(Attribute::DenseArray { values, .. }) => values
                        .iter()
                        .map(|v| match v {
                            Attribute::Integer { value, .. } => usize::try_from(*value).unwrap_or(0),
                            _ => 0,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let index = o.successors.iter().skip(1).position(|&s| s == block)?;
                let start: usize = case_sizes.iter().take(index).sum();
                let size = case_sizes.get(index).copied().unwrap_or(0);
                case_values.get(start..start + size).map(<[Value]>::to_vec)
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
        let is_construct =
            |op: OpId| matches!(ir.op(op).name.as_str(), "spirv.mlir.loop" | "spirv.mlir.selection");
        let region = ir.block(block).parent;
        let is_entry = region.is_some_and(|r| ir.region(r).blocks.first() == Some(&block));
        if is_entry {
            if let Some(parent) = ir.parent_op_of_block(block).filter(|&p| ir.op(p).name == "spirv.mlir.loop")
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
        let uses = self
            .predecessors
            .entry(region)
            .or_insert_with(|| {
                // Every branch of the region to each block, most recent use first.
                let mut map: HashMap<BlockId, Vec<(BlockId, OpId)>> = HashMap::default();
                for &pred in ir.region(region).blocks.iter().rev() {
                    let Some(&terminator) = ir.block(pred).ops.last() else { continue };
                    for &s in ir.op(terminator).successors.iter().rev() {
                        map.entry(s).or_default().push((pred, terminator));
                    }
                }
                map
            })
            .get(&block)
            .cloned()
            .unwrap_or_default();
        let mut predecessors = Vec::with_capacity(uses.len());
        for (pred, terminator) in uses {
            let Some(values) = self.branch_operands(terminator, block) else {
                return Err(self.error(terminator, "unimplemented terminator for Phi creation"));
            };
            predecessors.push((self.phi_incoming_block(pred), values, terminator));
        }
        for (index, &arg) in b.arguments.iter().enumerate() {
            let anchor = ir.parent_op_of_block(block).unwrap_or(self.module);
            let type_id = self.process_type(anchor, ir.value_type(arg))?;
            let phi = self.next();
            let mut words = vec![type_id, phi];
            for (pred, values, terminator) in &predecessors {
                let Some(&value) = values.get(index) else {
                    return Err(self.error(*terminator, "branch passes fewer values than the block takes"));
                };
                let pred_id = self.block_id(*pred);
                let value_id = match self.value_ids.get(&value) {
                    Some(&id) => id,
                    None => {
                        // Defined in a block serialized later: patched at the function's end.
                        self.deferred_phi_values.push((value, self.function_body.len() + 1 + words.len()));
                        0
                    }
                };
                words.push(value_id);
                words.push(pred_id);
            }
            encode(&mut self.function_body, opcode::OpPhi, &words);
            self.value_ids.insert(arg, phi);
        }
        Ok(())
    }

    pub(super) fn process_selection(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let Some(&region) = o.regions.first() else {
            return Err(self.error(op, "selection without a region"));
        };
        let blocks = ir.region(region).blocks.clone();
        for &b in &blocks {
            self.block_id(b);
        }
        let (Some(&header), Some(&merge)) = (blocks.first(), blocks.last()) else {
            return Err(self.error(op, "selection without blocks"));
        };
        let header_id = self.block_id(header);
        let merge_id = self.block_id(merge);
        let control = o.attr("selection_control").and_then(enum_value).unwrap_or(0);
        encode(&mut self.function_body, opcode::OpBranch, &[header_id]);
        let pending = PendingMerge::Selection { merge: merge_id, control, at: op };
        self.process_block(header, false, Some(pending))?;
        for block in self.pretty_order(header, &[merge]) {
            if block != header {
                self.process_block(block, false, None)?;
            }
        }
        encode(&mut self.function_body, opcode::OpLabel, &[merge_id]);
        self.emit_phis(merge)?;
        self.map_construct_results(op, merge)
    }

    pub(super) fn process_loop(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let Some(&region) = o.regions.first() else { return Err(self.error(op, "loop without a region")) };
        let blocks = ir.region(region).blocks.clone();
        if blocks.len() < 4 {
            return Err(
                self.error(op, "not supported yet: loop region without header, continue and merge blocks")
            );
        }
        for &b in blocks.iter().skip(1) {
            self.block_id(b);
        }
        let header = blocks[1];
        let continue_block = blocks[blocks.len() - 2];
        let merge = blocks[blocks.len() - 1];
        let header_id = self.block_id(header);
        let continue_id = self.block_id(continue_block);
        let merge_id = self.block_id(merge);
        let control = o.attr("loop_control").and_then(enum_value).unwrap_or(0);
        encode(&mut self.function_body, opcode::OpBranch, &[header_id]);
        let pending = PendingMerge::Loop { merge: merge_id, continue_target: continue_id, control, at: op };
        self.process_block(header, false, Some(pending))?;
        for block in self.pretty_order(header, &[continue_block, merge]) {
            if block != header {
                self.process_block(block, false, None)?;
            }
        }
        self.process_block(continue_block, false, None)?;
        encode(&mut self.function_body, opcode::OpLabel, &[merge_id]);
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
