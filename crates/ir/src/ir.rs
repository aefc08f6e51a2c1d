//! The operation graph: operations, blocks, regions and values live in arenas of an
//! [`Ir`] and refer to each other by small typed ids.
//!
//! The shape is MLIR's: an operation has operands, results, attributes (inherent
//! ones are "properties"), regions and successors; a region is a list of blocks; a
//! block has arguments (which is how phis are modeled) and a list of operations.

use crate::attr::{Attribute, NamedAttribute};
pub use crate::opdef::OpName;
use crate::types::{Type, TypeStore};
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
pub use thin_vec::{thin_vec, ThinVec};

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub(crate) u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// An operation.
    OpId
);
id_type!(
    /// A block.
    BlockId
);
id_type!(
    /// A region.
    RegionId
);
id_type!(
    /// An SSA value: an op result or a block argument.
    Value
);

/// Where something came from in the source, for diagnostics.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Location {
    #[default]
    Unknown,
    /// `file:line:col` (1-based).
    FileLineCol { file: std::sync::Arc<str>, line: u32, column: u32 },
    /// MLIR's name location, `loc("name")`, or `loc("name"(child))` with the child
    /// location it qualifies: a value's debug name, which the serializer writes as
    /// `OpName` when asked (`SerializeOptions::emit_op_names`).
    Name { name: std::sync::Arc<str>, child: Option<Box<Location>> },
    /// Other forms (`loc(fused[...])`, `loc(callsite(...))`, ...) kept as written,
    /// `loc(...)` included.
    Opaque(String),
}

impl Location {
    /// A name location without a child: `loc("name")`.
    pub fn named(name: impl Into<std::sync::Arc<str>>) -> Location {
        Location::Name { name: name.into(), child: None }
    }

    /// A name location qualifying `child` (`loc("name"("a.hlsl":3:5))`); an unknown
    /// child is no child, as MLIR prints it.
    pub fn named_at(name: impl Into<std::sync::Arc<str>>, child: Location) -> Location {
        let child = (child != Location::Unknown).then(|| Box::new(child));
        Location::Name { name: name.into(), child }
    }

    /// The name of a name location.
    pub fn debug_name(&self) -> Option<&str> {
        match self {
            Location::Name { name, .. } => Some(name),
            _ => None,
        }
    }

    /// The `file:line:col` this location is or qualifies (through name locations).
    pub fn file_line_col(&self) -> Option<(&str, u32, u32)> {
        // A loop, not recursion: a chain of names built by a caller may be long.
        let mut at = self;
        loop {
            match at {
                Location::FileLineCol { file, line, column } => return Some((file, *line, *column)),
                Location::Name { child: Some(child), .. } => at = child,
                _ => return None,
            }
        }
    }
}

/// What defines a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    Result { op: OpId, index: u32 },
    Argument { block: BlockId, index: u32 },
}

#[derive(Clone, Debug)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

#[derive(Clone, Debug)]
pub struct Operation {
    /// The full name (`spirv.IAdd`, `func.func`, `builtin.module`).
    pub name: OpName,
    pub operands: Vec<Value>,
    pub results: Vec<Value>,
    /// Inherent attributes (`<{...}>` in the generic form).
    pub properties: Vec<NamedAttribute>,
    /// Discardable attributes (`{...}` in the generic form). The lists most ops leave
    /// empty are thin (one pointer, no allocation while empty) to keep ops small.
    pub attributes: ThinVec<NamedAttribute>,
    pub regions: ThinVec<RegionId>,
    pub successors: ThinVec<BlockId>,
    pub location: Location,
    pub parent: Option<BlockId>,
}

impl Operation {
    /// An inherent or discardable attribute by name.
    pub fn attr(&self, name: &str) -> Option<&Attribute> {
        crate::attr::find(&self.properties, name).or_else(|| crate::attr::find(&self.attributes, name))
    }
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    pub arguments: Vec<Value>,
    /// Locations of the arguments, parallel to `arguments`.
    pub argument_locations: Vec<Location>,
    pub ops: Vec<OpId>,
    pub parent: Option<RegionId>,
    /// A debug name (`bb.entry`, `if.true`), which the serializer writes as the label's
    /// `OpName` when asked (`SerializeOptions::emit_op_names`). MLIR's blocks have
    /// none: the text form neither prints nor reads it.
    pub name: Option<std::sync::Arc<str>>,
}

#[derive(Clone, Debug, Default)]
pub struct Region {
    pub blocks: Vec<BlockId>,
    pub parent: Option<OpId>,
}

/// Insertions before placed ops and erasures of placed ops, collected while a pass
/// reads the IR and applied at once by [`Ir::apply_edits`]. Anchors are the ops placed
/// when the edits were recorded; ops inserted before one anchor keep their order.
#[derive(Default)]
pub struct OpEdits {
    before: FxHashMap<OpId, Vec<OpId>>,
    erased: FxHashSet<OpId>,
    blocks: Vec<BlockId>,
    touched: FxHashSet<BlockId>,
}

impl OpEdits {
    /// Records `op` (created, not placed) to go just before `anchor` (a placed op).
    pub fn insert_before(&mut self, ir: &Ir, anchor: OpId, op: OpId) {
        if let Some(block) = ir.op(anchor).parent {
            self.touch(block);
            self.before.entry(anchor).or_default().push(op);
        }
    }

    /// Records the erasure of the placed op `op`.
    pub fn erase(&mut self, ir: &Ir, op: OpId) {
        if let Some(block) = ir.op(op).parent {
            self.touch(block);
            self.erased.insert(op);
        }
    }

    fn touch(&mut self, block: BlockId) {
        if self.touched.insert(block) {
            self.blocks.push(block);
        }
    }
}

/// Where [`Ir::absorb`] moved an absorbed IR's entities: each arena's entities keep
/// their order, after the absorbing IR's own.
#[derive(Clone, Copy, Debug)]
pub struct Absorbed {
    ops: u32,
    blocks: u32,
    regions: u32,
    values: u32,
}

impl Absorbed {
    pub fn op(&self, id: OpId) -> OpId {
        OpId(id.0 + self.ops)
    }

    pub fn block(&self, id: BlockId) -> BlockId {
        BlockId(id.0 + self.blocks)
    }

    pub fn region(&self, id: RegionId) -> RegionId {
        RegionId(id.0 + self.regions)
    }

    pub fn value(&self, id: Value) -> Value {
        Value(id.0 + self.values)
    }
}

/// How far an [`Ir`]'s arenas were filled (see [`Ir::arena_mark`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArenaMark {
    ops: usize,
    blocks: usize,
    regions: usize,
    values: usize,
}

impl ArenaMark {
    /// How many ops were made between `earlier` and this mark.
    pub fn ops_since(self, earlier: ArenaMark) -> usize {
        self.ops.saturating_sub(earlier.ops)
    }
}

/// A whole IR unit: the arenas plus the type store.
#[derive(Clone, Debug, Default)]
pub struct Ir {
    pub types: TypeStore,
    ops: Vec<Operation>,
    blocks: Vec<Block>,
    regions: Vec<Region>,
    values: Vec<ValueData>,
}

impl Ir {
    pub fn new() -> Self {
        Ir::default()
    }

    /// Reserves room for the IR of about `bytes` of text (an op per 60 bytes and a
    /// block per four ops are typical; room left unused is never touched), so the
    /// arenas need not grow, copying themselves, while parsing. Capped, so that a
    /// huge text of blanks reserves no absurd amount.
    pub fn reserve_for_text(&mut self, bytes: usize) {
        let ops = (bytes / 40).min(1 << 22);
        self.ops.reserve(ops);
        self.values.reserve(ops);
        self.blocks.reserve(ops / 4);
        self.regions.reserve(ops / 8);
    }

    /// For each successor of a branch op (`spirv.Branch`, `spirv.BranchConditional`,
    /// `spirv.Switch` and the LLVM dialect's `llvm.br`, `llvm.cond_br`, `llvm.switch`:
    /// MLIR's `BranchOpInterface`), the range of its operands forwarded to that
    /// successor's arguments; `None` for any other op or one whose segment sizes do not
    /// fit its operands.
    pub fn successor_operand_ranges(&self, op: OpId) -> Option<Vec<std::ops::Range<usize>>> {
        use crate::attr::dense_counts;
        let o = self.op(op);
        let n = o.operands.len();
        let ranges: Vec<std::ops::Range<usize>> = match o.name.as_str() {
            "spirv.Branch" | "llvm.br" => std::iter::once(0..n).collect(),
            "spirv.BranchConditional" | "llvm.cond_br" => {
                let sizes = dense_counts(o.attr("operandSegmentSizes"))?;
                let [1, t, f] = sizes[..] else { return None };
                vec![1..1 + t, 1 + t..1 + t + f]
            }
            "spirv.Switch" | "llvm.switch" => {
                let sizes = dense_counts(o.attr("operandSegmentSizes"))?;
                let cases = dense_counts(o.attr("case_operand_segments"))?;
                let [1, d, _] = sizes[..] else { return None };
                let mut ranges: Vec<std::ops::Range<usize>> = std::iter::once(1..1 + d).collect();
                let mut start = 1 + d;
                for c in cases {
                    ranges.push(start..start + c);
                    start += c;
                }
                ranges
            }
            _ => return None,
        };
        let fits =
            ranges.len() == o.successors.len() && ranges.iter().all(|r| r.start <= r.end && r.end <= n);
        fits.then_some(ranges)
    }

    /// How far each arena has been filled: a later [`Ir::truncate`] to it removes
    /// everything made since.
    pub fn arena_mark(&self) -> ArenaMark {
        ArenaMark {
            ops: self.ops.len(),
            blocks: self.blocks.len(),
            regions: self.regions.len(),
            values: self.values.len(),
        }
    }

    /// Removes every op, block, region and value made since `mark` (their storage
    /// is reused by the next ones); types stay. Refused (false, nothing changed)
    /// unless the ops, blocks and regions left refer to none of them: a stream that
    /// prints and drops each function body keeps a module's IR small this way.
    pub fn truncate(&mut self, mark: ArenaMark) -> bool {
        let keeps = |ops: &[OpId]| ops.iter().all(|op| op.index() < mark.ops);
        let kept_ops = self.ops.get(..mark.ops).unwrap_or(&self.ops);
        let ops_fine = kept_ops.iter().all(|o| {
            o.parent.is_none_or(|b| b.index() < mark.blocks)
                && o.regions.iter().all(|r| r.index() < mark.regions)
                && o.successors.iter().all(|b| b.index() < mark.blocks)
                && o.operands.iter().chain(&o.results).all(|v| v.index() < mark.values)
        });
        let blocks_fine = self.blocks.get(..mark.blocks).unwrap_or(&self.blocks).iter().all(|b| {
            b.parent.is_none_or(|r| r.index() < mark.regions)
                && keeps(&b.ops)
                && b.arguments.iter().all(|v| v.index() < mark.values)
        });
        let regions_fine = self.regions.get(..mark.regions).unwrap_or(&self.regions).iter().all(|r| {
            r.parent.is_none_or(|op| op.index() < mark.ops)
                && r.blocks.iter().all(|b| b.index() < mark.blocks)
        });
        if !(ops_fine && blocks_fine && regions_fine) {
            return false;
        }
        self.ops.truncate(mark.ops);
        self.blocks.truncate(mark.blocks);
        self.regions.truncate(mark.regions);
        self.values.truncate(mark.values);
        true
    }

    pub fn op(&self, id: OpId) -> &Operation {
        &self.ops[id.index()]
    }

    pub fn op_mut(&mut self, id: OpId) -> &mut Operation {
        &mut self.ops[id.index()]
    }

    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.index()]
    }

    pub fn block_mut(&mut self, id: BlockId) -> &mut Block {
        &mut self.blocks[id.index()]
    }

    pub fn region(&self, id: RegionId) -> &Region {
        &self.regions[id.index()]
    }

    pub fn region_mut(&mut self, id: RegionId) -> &mut Region {
        &mut self.regions[id.index()]
    }

    pub fn value(&self, v: Value) -> &ValueData {
        &self.values[v.index()]
    }

    /// Changes a value's type (passes that retype results, e.g. after a layout change).
    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        self.values[v.index()].ty = ty;
    }

    pub fn value_type(&self, v: Value) -> Type {
        self.values[v.index()].ty
    }

    /// Creates a detached operation with results of the given types.
    pub fn create_op(
        &mut self,
        name: impl Into<OpName>,
        operands: Vec<Value>,
        result_types: &[Type],
        location: Location,
    ) -> OpId {
        let id = OpId(self.ops.len() as u32);
        let results = result_types
            .iter()
            .enumerate()
            .map(|(i, &ty)| self.new_value(ty, ValueDef::Result { op: id, index: i as u32 }))
            .collect();
        self.ops.push(Operation {
            name: name.into(),
            operands,
            results,
            properties: Vec::new(),
            attributes: ThinVec::new(),
            regions: ThinVec::new(),
            successors: ThinVec::new(),
            location,
            parent: None,
        });
        id
    }

    /// Appends results of the given types to `op`.
    pub fn add_results(&mut self, op: OpId, result_types: &[Type]) {
        let first = self.ops[op.index()].results.len();
        self.ops[op.index()].results.reserve(result_types.len());
        for (i, &ty) in result_types.iter().enumerate() {
            let v = self.new_value(ty, ValueDef::Result { op, index: (first + i) as u32 });
            self.ops[op.index()].results.push(v);
        }
    }

    fn new_value(&mut self, ty: Type, def: ValueDef) -> Value {
        let v = Value(self.values.len() as u32);
        self.values.push(ValueData { ty, def });
        v
    }

    /// Adds an empty region to `op`.
    pub fn add_region(&mut self, op: OpId) -> RegionId {
        let id = RegionId(self.regions.len() as u32);
        self.regions.push(Region { blocks: Vec::new(), parent: Some(op) });
        self.ops[op.index()].regions.push(id);
        id
    }

    /// Creates a detached block.
    pub fn create_block(&mut self) -> BlockId {
        let id = BlockId(self.blocks.len() as u32);
        self.blocks.push(Block::default());
        id
    }

    /// Gives `block` a debug name (see [`Block::name`]).
    pub fn set_block_name(&mut self, block: BlockId, name: impl Into<std::sync::Arc<str>>) {
        self.blocks[block.index()].name = Some(name.into());
    }

    /// Appends a block to a region.
    pub fn append_block(&mut self, region: RegionId, block: BlockId) {
        self.blocks[block.index()].parent = Some(region);
        self.regions[region.index()].blocks.push(block);
    }

    pub fn add_block_argument(&mut self, block: BlockId, ty: Type, location: Location) -> Value {
        let index = self.blocks[block.index()].arguments.len() as u32;
        let v = self.new_value(ty, ValueDef::Argument { block, index });
        let b = &mut self.blocks[block.index()];
        b.arguments.push(v);
        b.argument_locations.push(location);
        v
    }

    /// Removes argument `index` of `block` (it must have no uses left).
    pub fn erase_block_argument(&mut self, block: BlockId, index: usize) {
        let b = &mut self.blocks[block.index()];
        if index >= b.arguments.len() {
            return;
        }
        b.arguments.remove(index);
        if index < b.argument_locations.len() {
            b.argument_locations.remove(index);
        }
        let later: Vec<Value> = b.arguments[index..].to_vec();
        for (i, v) in later.into_iter().enumerate() {
            self.values[v.index()].def = ValueDef::Argument { block, index: (index + i) as u32 };
        }
    }

    /// Appends an op at the end of a block.
    pub fn append_op(&mut self, block: BlockId, op: OpId) {
        self.ops[op.index()].parent = Some(block);
        self.blocks[block.index()].ops.push(op);
    }

    /// Inserts `op` into `block` just before `before` (at the end if absent).
    pub fn insert_op_before(&mut self, block: BlockId, before: OpId, op: OpId) {
        self.ops[op.index()].parent = Some(block);
        let ops = &mut self.blocks[block.index()].ops;
        let at = ops.iter().position(|&o| o == before).unwrap_or(ops.len());
        ops.insert(at, op);
    }

    /// Applies a batch of insertions and erasures, rebuilding each touched block's op
    /// list once: a pass that inserts or erases thousands of ops in one large block
    /// would be quadratic op by op.
    pub fn apply_edits(&mut self, edits: OpEdits) {
        let OpEdits { mut before, erased, blocks, .. } = edits;
        for block in blocks {
            let old = std::mem::take(&mut self.blocks[block.index()].ops);
            let mut ops = Vec::with_capacity(old.len());
            for op in old {
                if let Some(inserted) = before.remove(&op) {
                    for new in inserted {
                        self.ops[new.index()].parent = Some(block);
                        ops.push(new);
                    }
                }
                if erased.contains(&op) {
                    self.ops[op.index()].parent = None;
                } else {
                    ops.push(op);
                }
            }
            self.blocks[block.index()].ops = ops;
        }
    }

    /// Detaches `op` from its block (the op stays in the arena, unreachable).
    pub fn erase_op(&mut self, op: OpId) {
        if let Some(block) = self.ops[op.index()].parent.take() {
            self.blocks[block.index()].ops.retain(|&o| o != op);
        }
    }

    /// The op that contains `block` (through its region).
    pub fn parent_op_of_block(&self, block: BlockId) -> Option<OpId> {
        self.regions[self.blocks[block.index()].parent?.index()].parent
    }

    /// The op that contains `op`, if any.
    pub fn parent_op(&self, op: OpId) -> Option<OpId> {
        self.parent_op_of_block(self.ops[op.index()].parent?)
    }

    /// Every op of the arena in creation order, erased ones included (passes filter by
    /// `parent`).
    pub fn op_ids(&self) -> impl Iterator<Item = OpId> {
        (0..self.op_count() as u32).map(OpId)
    }

    pub fn op_count(&self) -> usize {
        self.ops.len()
    }

    /// One past the largest value index (values are never reused).
    pub fn value_count(&self) -> usize {
        self.values.len()
    }

    /// One past the largest region index.
    pub fn region_count(&self) -> usize {
        self.regions.len()
    }

    /// One past the largest block index.
    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// The first block of `op`'s first region (a function's entry block).
    pub fn entry_block(&self, op: OpId) -> Option<BlockId> {
        self.regions[self.ops[op.index()].regions.first()?.index()].blocks.first().copied()
    }

    /// Every op nested under `top` with the block it is in: each block's ops in
    /// order, the blocks of the most recently listed ops first.
    pub fn ops_under(&self, top: OpId) -> Vec<(BlockId, OpId)> {
        let mut out = Vec::new();
        self.for_each_op_under(top, |block, op| out.push((block, op)));
        out
    }

    /// Calls `f` with each op nested under `top` and its block, in the order of
    /// [`Ir::ops_under`], without collecting them.
    pub fn for_each_op_under(&self, top: OpId, mut f: impl FnMut(BlockId, OpId)) {
        // Only ops with regions are stacked: popping them in the order they were met
        // visits their regions as a stack of every op would.
        let mut stack = vec![top];
        while let Some(op) = stack.pop() {
            for &r in &self.op(op).regions {
                for &b in &self.region(r).blocks {
                    for &inner in &self.block(b).ops {
                        f(b, inner);
                        if !self.op(inner).regions.is_empty() {
                            stack.push(inner);
                        }
                    }
                }
            }
        }
    }

    /// Moves every op, block, region and value of `other` into this IR (after this
    /// IR's own) and interns its types here. Returns where `other`'s entities went;
    /// or, when an identified struct has different bodies in the two IRs, its name.
    /// Makes this IR's types those of `store` (which gains the ones it lacks): every
    /// type this IR refers to is rewritten to `store`'s, and the IR keeps a copy of
    /// it. Two IRs that adopt the same store then share their type indices.
    pub fn adopt_types(&mut self, store: &mut TypeStore) -> Result<(), String> {
        let types = store.absorb(&self.types)?;
        // Two IRs parsed from the same declarations usually intern their types in
        // the same order: then every type keeps its index and nothing is rewritten.
        if types.iter().enumerate().all(|(index, t)| t.index() == index) {
            self.types = store.clone();
            return Ok(());
        }
        let map_type = |t: Type| types.get(t.index()).copied().unwrap_or(t);
        for v in &mut self.values {
            v.ty = map_type(v.ty);
        }
        for o in &mut self.ops {
            for attr in o.properties.iter_mut().chain(o.attributes.iter_mut()) {
                attr.value.map_types(&map_type);
            }
        }
        self.types = store.clone();
        Ok(())
    }

    pub fn absorb(&mut self, mut other: Ir) -> Result<Absorbed, String> {
        let types = self.types.absorb(&other.types)?;
        let map_type = |t: Type| types.get(t.index()).copied().unwrap_or(t);
        let to = Absorbed {
            ops: self.ops.len() as u32,
            blocks: self.blocks.len() as u32,
            regions: self.regions.len() as u32,
            values: self.values.len() as u32,
        };
        // Ids are rewritten in place and the arenas appended whole (a copy of each
        // arena rather than a move of each entity).
        for v in &mut other.values {
            v.ty = map_type(v.ty);
            v.def = match v.def {
                ValueDef::Result { op, index } => ValueDef::Result { op: to.op(op), index },
                ValueDef::Argument { block, index } => ValueDef::Argument { block: to.block(block), index },
            };
        }
        for o in &mut other.ops {
            o.operands.iter_mut().chain(o.results.iter_mut()).for_each(|v| *v = to.value(*v));
            o.regions.iter_mut().for_each(|r| *r = to.region(*r));
            o.successors.iter_mut().for_each(|b| *b = to.block(*b));
            o.parent = o.parent.map(|b| to.block(b));
            for attr in o.properties.iter_mut().chain(o.attributes.iter_mut()) {
                attr.value.map_types(&map_type);
            }
        }
        for b in &mut other.blocks {
            b.arguments.iter_mut().for_each(|v| *v = to.value(*v));
            b.ops.iter_mut().for_each(|o| *o = to.op(*o));
            b.parent = b.parent.map(|r| to.region(r));
        }
        for r in &mut other.regions {
            r.blocks.iter_mut().for_each(|b| *b = to.block(*b));
            r.parent = r.parent.map(|o| to.op(o));
        }
        self.values.append(&mut other.values);
        self.ops.append(&mut other.ops);
        self.blocks.append(&mut other.blocks);
        self.regions.append(&mut other.regions);
        Ok(to)
    }

    /// Sets inherent attribute `name`, keeping the properties sorted by name (as
    /// MLIR prints them) when it is new.
    pub fn set_property(&mut self, op: OpId, name: &str, value: Attribute) {
        let props = &mut self.ops[op.index()].properties;
        match props.iter_mut().find(|a| a.name == name) {
            Some(a) => a.value = value,
            None => {
                let at = props.iter().position(|a| a.name.as_str() > name).unwrap_or(props.len());
                props.insert(at, NamedAttribute::new(name, value));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Signedness;

    #[test]
    fn build_a_function_body() {
        let mut ir = Ir::new();
        let i32t = ir.types.integer(32, Signedness::Signless);
        let func = ir.create_op("func.func", vec![], &[], Location::Unknown);
        let region = ir.add_region(func);
        let entry = ir.create_block();
        ir.append_block(region, entry);
        let arg = ir.add_block_argument(entry, i32t, Location::Unknown);
        let add = ir.create_op("spirv.IAdd", vec![arg, arg], &[i32t], Location::Unknown);
        ir.append_op(entry, add);
        assert_eq!(ir.parent_op(add), Some(func));
        let result = ir.op(add).results[0];
        assert_eq!(ir.value(result).def, ValueDef::Result { op: add, index: 0 });
        assert_eq!(ir.value_type(arg), i32t);
    }

    #[test]
    fn batched_edits_insert_before_their_anchors_and_erase() {
        let mut ir = Ir::new();
        let func = ir.create_op("func.func", vec![], &[], Location::Unknown);
        let region = ir.add_region(func);
        let entry = ir.create_block();
        ir.append_block(region, entry);
        let placed: Vec<OpId> = ["x.a", "x.b", "x.c"]
            .iter()
            .map(|name| {
                let op = ir.create_op(*name, vec![], &[], Location::Unknown);
                ir.append_op(entry, op);
                op
            })
            .collect();
        let [a, b, c] = placed[..] else { unreachable!() };
        let new: Vec<OpId> = (0..3).map(|_| ir.create_op("x.new", vec![], &[], Location::Unknown)).collect();
        let mut edits = OpEdits::default();
        edits.insert_before(&ir, b, new[0]);
        edits.erase(&ir, b);
        edits.insert_before(&ir, c, new[1]);
        edits.insert_before(&ir, c, new[2]);
        // An op not placed anywhere is no anchor: nothing is recorded.
        edits.insert_before(&ir, new[0], new[1]);
        ir.apply_edits(edits);
        assert_eq!(ir.block(entry).ops, vec![a, new[0], new[1], new[2], c]);
        assert_eq!(ir.op(b).parent, None);
        assert!(new.iter().all(|&n| ir.op(n).parent == Some(entry)));
    }

    #[test]
    fn absorbing_moves_entities_and_reinterns_types() {
        let mut ir = Ir::new();
        let i32t = ir.types.integer(32, Signedness::Signless);
        ir.create_op("x.a", vec![], &[i32t], Location::Unknown);
        let mut other = Ir::new();
        let f32t = other.types.float(crate::types::FloatKind::F32);
        let i32_there = other.types.integer(32, Signedness::Signless);
        let ptr = other.types.pointer(f32t, "Function");
        let func = other.create_op("x.f", vec![], &[], Location::Unknown);
        let region = other.add_region(func);
        let entry = other.create_block();
        other.append_block(region, entry);
        let arg = other.add_block_argument(entry, ptr, Location::Unknown);
        let use_ = other.create_op("x.use", vec![arg], &[i32_there], Location::Unknown);
        other.append_op(entry, use_);
        other.set_property(use_, "value", Attribute::Integer { value: 7, ty: i32_there });

        let at = ir.absorb(other).unwrap();
        let (func, use_, entry) = (at.op(func), at.op(use_), at.block(entry));
        assert_eq!(ir.op(use_).parent, Some(entry));
        assert_eq!(ir.parent_op(use_), Some(func));
        let arg = ir.op(use_).operands[0];
        assert_eq!(ir.value(arg).def, ValueDef::Argument { block: entry, index: 0 });
        let f32_here = ir.types.float(crate::types::FloatKind::F32);
        assert_eq!(ir.value_type(arg), ir.types.pointer(f32_here, "Function"));
        assert_eq!(ir.value_type(ir.op(use_).results[0]), i32t);
        assert_eq!(ir.op(use_).attr("value"), Some(&Attribute::Integer { value: 7, ty: i32t }));
    }

    #[test]
    fn adopting_a_store_rewrites_types_only_where_their_indices_differ() {
        // An IR whose types the store interned in another order (rewritten), and one
        // whose types the store has at the same indices (kept as they are).
        let mut store = TypeStore::default();
        let i32t = store.integer(32, Signedness::Signless);
        let f32t = store.float(crate::types::FloatKind::F32);
        for reordered in [true, false] {
            let mut ir = Ir::new();
            let (first, second) = if reordered {
                (ir.types.float(crate::types::FloatKind::F32), ir.types.integer(32, Signedness::Signless))
            } else {
                (ir.types.integer(32, Signedness::Signless), ir.types.float(crate::types::FloatKind::F32))
            };
            let op = ir.create_op("x.a", vec![], &[first, second], Location::Unknown);
            ir.set_property(op, "value", Attribute::Integer { value: 7, ty: first });
            let mut adopting = store.clone();
            ir.adopt_types(&mut adopting).unwrap();
            let (want_first, want_second) = if reordered { (f32t, i32t) } else { (i32t, f32t) };
            let results = &ir.op(op).results;
            assert_eq!([ir.value_type(results[0]), ir.value_type(results[1])], [want_first, want_second]);
            assert_eq!(ir.op(op).attr("value"), Some(&Attribute::Integer { value: 7, ty: want_first }));
            assert_eq!(ir.types.kind(want_second), store.kind(want_second));
        }
    }

    #[test]
    fn truncating_drops_what_was_made_since_the_mark_unless_still_referred_to() {
        let mut ir = Ir::new();
        let i32t = ir.types.integer(32, Signedness::Signless);
        let module = ir.create_op("x.module", vec![], &[], Location::Unknown);
        let region = ir.add_region(module);
        let body = ir.create_block();
        ir.append_block(region, body);
        let mark = ir.arena_mark();
        let func = ir.create_op("x.f", vec![], &[], Location::Unknown);
        let inner = ir.add_region(func);
        let entry = ir.create_block();
        ir.append_block(inner, entry);
        let arg = ir.add_block_argument(entry, i32t, Location::Unknown);
        let use_ = ir.create_op("x.use", vec![arg], &[i32t], Location::Unknown);
        ir.append_op(entry, use_);
        ir.append_op(body, func);
        // The module's body still lists the function.
        assert!(!ir.truncate(mark));
        assert_eq!(ir.op_count(), 3);
        ir.block_mut(body).ops.clear();
        assert!(ir.truncate(mark));
        assert_eq!(ir.arena_mark(), mark);
        // The arenas fill from the mark again.
        let again = ir.create_op("x.g", vec![], &[i32t], Location::Unknown);
        assert_eq!(again, func);
        assert_eq!(ir.value_type(ir.op(again).results[0]), i32t);
    }
}
