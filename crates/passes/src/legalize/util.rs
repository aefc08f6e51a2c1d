//! Small helpers the legalization passes share: op queries, value replacement,
//! successor operands and type classification.

use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{BlockId, Ir, Location, OpId, RegionId, Value, ValueDef};
use spirvkit_ir::types::{Type, TypeKind};

pub(crate) const SELECTION: &str = "spirv.mlir.selection";
pub(crate) const LOOP: &str = "spirv.mlir.loop";

pub(crate) fn is_construct(ir: &Ir, op: OpId) -> bool {
    matches!(ir.op(op).name.as_str(), SELECTION | LOOP)
}

pub(crate) fn is_return(ir: &Ir, op: OpId) -> bool {
    matches!(ir.op(op).name.as_str(), "spirv.Return" | "spirv.ReturnValue")
}

/// The `spirv.func` ops directly inside a `spirv.module`.
pub(crate) fn functions(ir: &Ir, module: OpId) -> Vec<OpId> {
    module_ops(ir, module).into_iter().filter(|&op| ir.op(op).name == "spirv.func").collect()
}

/// The ops directly inside a module's body.
pub(crate) fn module_ops(ir: &Ir, module: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    for &region in &ir.op(module).regions {
        for &block in &ir.region(region).blocks {
            out.extend(ir.block(block).ops.iter().copied());
        }
    }
    out
}

pub(crate) fn symbol_name(ir: &Ir, op: OpId) -> Option<&str> {
    match ir.op(op).attr("sym_name") {
        Some(Attribute::String(name)) => Some(name),
        _ => None,
    }
}

/// The single name of a flat symbol reference attribute (`@f`).
pub(crate) fn flat_symbol(ir: &Ir, op: OpId, attr: &str) -> Option<String> {
    match ir.op(op).attr(attr) {
        Some(Attribute::SymbolRef(path)) if path.len() == 1 => Some(path[0].clone()),
        _ => None,
    }
}

/// A function's body region, if it has blocks.
pub(crate) fn body(ir: &Ir, func: OpId) -> Option<RegionId> {
    let region = *ir.op(func).regions.first()?;
    (!ir.region(region).blocks.is_empty()).then_some(region)
}

/// The function's result type, if it returns a value.
pub(crate) fn result_type(ir: &Ir, func: OpId) -> Option<Type> {
    let Some(Attribute::Type(ty)) = ir.op(func).attr("function_type") else { return None };
    match ir.types.kind(*ty) {
        TypeKind::Function { results, .. } => results.first().copied(),
        _ => None,
    }
}

/// The op defining `v`, if it is an op result.
pub(crate) fn defining_op(ir: &Ir, v: Value) -> Option<OpId> {
    match ir.value(v).def {
        ValueDef::Result { op, .. } => Some(op),
        ValueDef::Argument { .. } => None,
    }
}

/// The block `v` is defined in (its op's block or the block it is an argument of).
pub(crate) fn defining_block(ir: &Ir, v: Value) -> Option<BlockId> {
    match ir.value(v).def {
        ValueDef::Result { op, .. } => ir.op(op).parent,
        ValueDef::Argument { block, .. } => Some(block),
    }
}

/// Whether `region` is `outer` or nested (at any depth) in it.
pub(crate) fn region_within(ir: &Ir, mut region: RegionId, outer: RegionId) -> bool {
    loop {
        if region == outer {
            return true;
        }
        let Some(op) = ir.region(region).parent else { return false };
        let Some(block) = ir.op(op).parent else { return false };
        let Some(parent) = ir.block(block).parent else { return false };
        region = parent;
    }
}

/// Rewrites every operand under `top` through `map` (followed to its end, so chains
/// of replacements resolve).
pub(crate) fn replace_uses(ir: &mut Ir, top: OpId, map: &FxHashMap<Value, Value>) {
    if map.is_empty() {
        return;
    }
    for (_, op) in ir.ops_under(top) {
        for i in 0..ir.op(op).operands.len() {
            let v = ir.op(op).operands[i];
            let to = resolve(map, v);
            if to != v {
                ir.op_mut(op).operands[i] = to;
            }
        }
    }
}

/// `v` followed through `map` until it is not replaced (bounded, in case of a cycle).
pub(crate) fn resolve(map: &FxHashMap<Value, Value>, mut v: Value) -> Value {
    for _ in 0..map.len() + 1 {
        match map.get(&v) {
            Some(&to) if to != v => v = to,
            _ => return v,
        }
    }
    v
}

/// Creates an op, inserts it before `before` in `block`, returns it.
pub(crate) fn insert_before(
    ir: &mut Ir,
    block: BlockId,
    before: OpId,
    name: &str,
    operands: Vec<Value>,
    results: &[Type],
    location: Location,
) -> OpId {
    let op = ir.create_op(name, operands, results, location);
    ir.insert_op_before(block, before, op);
    op
}

/// Creates an op at the end of `block`.
pub(crate) fn append(
    ir: &mut Ir,
    block: BlockId,
    name: &str,
    operands: Vec<Value>,
    results: &[Type],
    location: Location,
) -> OpId {
    let op = ir.create_op(name, operands, results, location);
    ir.append_op(block, op);
    op
}

/// A `spirv.Branch` to `target` with `args` at the end of `block`.
pub(crate) fn append_branch(
    ir: &mut Ir,
    block: BlockId,
    target: BlockId,
    args: Vec<Value>,
    location: Location,
) -> OpId {
    let op = append(ir, block, "spirv.Branch", args, &[], location);
    ir.op_mut(op).successors.push(target);
    op
}

/// A `spirv.BranchConditional` without successor operands at the end of `block`.
pub(crate) fn append_cond_branch(
    ir: &mut Ir,
    block: BlockId,
    condition: Value,
    on_true: BlockId,
    on_false: BlockId,
    location: Location,
) {
    let op = append(ir, block, "spirv.BranchConditional", vec![condition], &[], location);
    ir.op_mut(op).successors.push(on_true);
    ir.op_mut(op).successors.push(on_false);
    set_segments(ir, op, &[1, 0, 0]);
}

fn set_segments(ir: &mut Ir, op: OpId, sizes: &[usize]) {
    let i32t = ir.types.integer(32, spirvkit_ir::types::Signedness::Signless);
    let values = sizes.iter().map(|&s| Attribute::Integer { value: s as i128, ty: i32t }).collect();
    ir.set_property(op, "operandSegmentSizes", Attribute::DenseArray { element: i32t, values });
}

/// Appends `value` to the operands `terminator` forwards to its successor `index`.
/// False when the terminator is not a branch spirvkit knows how to extend.
pub(crate) fn push_successor_operand(ir: &mut Ir, terminator: OpId, index: usize, value: Value) -> bool {
    let Some(ranges) = ir.successor_operand_ranges(terminator) else { return false };
    let Some(range) = ranges.get(index).cloned() else { return false };
    ir.op_mut(terminator).operands.insert(range.end, value);
    resize_successor_operands(ir, terminator, ranges, index, true)
}

/// Removes operand `position` of those `terminator` forwards to successor `index`.
pub(crate) fn remove_successor_operand(ir: &mut Ir, terminator: OpId, index: usize, position: usize) -> bool {
    let Some(ranges) = ir.successor_operand_ranges(terminator) else { return false };
    let Some(range) = ranges.get(index).cloned() else { return false };
    if position >= range.len() {
        return false;
    }
    ir.op_mut(terminator).operands.remove(range.start + position);
    resize_successor_operands(ir, terminator, ranges, index, false)
}

/// Updates the segment attributes of a branch whose successor `index` gained
/// (`grew`) or lost one operand; `ranges` are the ranges before the change.
fn resize_successor_operands(
    ir: &mut Ir,
    terminator: OpId,
    ranges: Vec<std::ops::Range<usize>>,
    index: usize,
    grew: bool,
) -> bool {
    let mut lengths: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
    if grew {
        lengths[index] += 1;
    } else {
        lengths[index] -= 1;
    }
    match ir.op(terminator).name.as_str() {
        "spirv.Branch" => {}
        "spirv.BranchConditional" => set_segments(ir, terminator, &[1, lengths[0], lengths[1]]),
        "spirv.Switch" => {
            let cases: usize = lengths[1..].iter().sum();
            set_segments(ir, terminator, &[1, lengths[0], cases]);
            set_dense(ir, terminator, "case_operand_segments", &lengths[1..]);
        }
        _ => return false,
    }
    true
}

fn set_dense(ir: &mut Ir, op: OpId, name: &str, sizes: &[usize]) {
    let i32t = ir.types.integer(32, spirvkit_ir::types::Signedness::Signless);
    let values = sizes.iter().map(|&s| Attribute::Integer { value: s as i128, ty: i32t }).collect();
    ir.set_property(op, name, Attribute::DenseArray { element: i32t, values });
}

/// Merges each block of `region` ending in an unconditional `spirv.Branch` with its
/// target when it is the target's only predecessor (the target's arguments become
/// the branch's operands). For function bodies: the structurizer puts each construct
/// in a block of its own, chained by branches, which merge-return and the inliner
/// want as one block.
pub(crate) fn merge_block_chains(ir: &mut Ir, region: RegionId) {
    // Predecessors stay right while merging: a merged block's terminator moves into
    // its predecessor, and the map names terminators, not blocks.
    let preds = predecessors(ir, region);
    let blocks = ir.region(region).blocks.clone();
    let Some(&entry) = blocks.first() else { return };
    let mut replace: FxHashMap<Value, Value> = FxHashMap::default();
    let mut removed: FxHashSet<BlockId> = FxHashSet::default();
    for &block in &blocks {
        if removed.contains(&block) {
            continue;
        }
        while let Some(t) = terminator(ir, block) {
            if ir.op(t).name != "spirv.Branch" || ir.op(t).successors.len() != 1 {
                break;
            }
            let target = ir.op(t).successors[0];
            if target == block || target == entry || preds.get(&target).map_or(0, Vec::len) != 1 {
                break;
            }
            let arguments = ir.block(target).arguments.clone();
            let operands = ir.op(t).operands.clone();
            if arguments.len() != operands.len() {
                break;
            }
            replace.extend(arguments.into_iter().zip(operands));
            ir.block_mut(block).ops.pop();
            ir.op_mut(t).parent = None;
            let ops = std::mem::take(&mut ir.block_mut(target).ops);
            for op in ops {
                ir.append_op(block, op);
            }
            removed.insert(target);
            ir.block_mut(target).parent = None;
        }
    }
    if removed.is_empty() {
        return;
    }
    ir.region_mut(region).blocks.retain(|b| !removed.contains(b));
    if let Some(top) = ir.region(region).parent {
        replace_uses(ir, top, &replace);
    }
}

/// The block's terminator (its last op).
pub(crate) fn terminator(ir: &Ir, block: BlockId) -> Option<OpId> {
    ir.block(block).ops.last().copied()
}

/// For each block of `region`, the (terminator, successor index) pairs branching to it.
pub(crate) fn predecessors(ir: &Ir, region: RegionId) -> FxHashMap<BlockId, Vec<(OpId, usize)>> {
    let mut preds: FxHashMap<BlockId, Vec<(OpId, usize)>> = FxHashMap::default();
    for &block in &ir.region(region).blocks {
        if let Some(t) = terminator(ir, block) {
            for (i, &s) in ir.op(t).successors.iter().enumerate() {
                preds.entry(s).or_default().push((t, i));
            }
        }
    }
    preds
}

/// The pointee and storage class of a pointer type.
pub(crate) fn pointer_parts(ir: &Ir, ty: Type) -> Option<(Type, &str)> {
    match ir.types.kind(ty) {
        TypeKind::Pointer { pointee, storage_class, .. } => Some((*pointee, storage_class)),
        _ => None,
    }
}

/// A type Vulkan forbids in Function variables, parameters and phis: images,
/// samplers, sampled images, acceleration structures, pointers to
/// anything but Function memory, and composites holding one.
pub(crate) fn is_opaque_handle(ir: &Ir, ty: Type) -> bool {
    let mut stack = vec![ty];
    let mut steps = 0;
    while let Some(t) = stack.pop() {
        steps += 1;
        if steps > 4096 {
            return false;
        }
        match ir.types.kind(t) {
            TypeKind::Image { .. } | TypeKind::SampledImage(_) | TypeKind::Sampler => return true,
            TypeKind::Pointer { storage_class, .. } if storage_class != "Function" => return true,
            // Ray queries, unlike acceleration structures, live in Function variables.
            TypeKind::Opaque(text) if text.to_ascii_lowercase().contains("accelerationstructure") => {
                return true
            }
            TypeKind::Array { element, .. } | TypeKind::RuntimeArray { element, .. } => stack.push(*element),
            TypeKind::LiteralStruct(body) => stack.extend(body.members.iter().map(|m| m.ty)),
            TypeKind::IdentifiedStruct { name } => {
                if let Some(body) = ir.types.struct_body(name) {
                    stack.extend(body.members.iter().map(|m| m.ty));
                }
            }
            _ => {}
        }
    }
    false
}

/// Rebuilds construct `op` with only the results `keep` marks (and the matching
/// `spirv.mlir.merge` operands); returns the new op, not placed yet (see
/// [`replace_ops_in_place`]), and each old result's replacement (`None` for the
/// dropped ones). The regions move to the new op.
pub(crate) fn rebuild_keeping_results(ir: &mut Ir, op: OpId, keep: &[bool]) -> (OpId, Vec<Option<Value>>) {
    let results = ir.op(op).results.clone();
    if let Some(merge_op) = ir
        .op(op)
        .regions
        .first()
        .and_then(|&r| ir.region(r).blocks.last().copied())
        .and_then(|b| terminator(ir, b))
    {
        if ir.op(merge_op).name == "spirv.mlir.merge" && ir.op(merge_op).operands.len() == results.len() {
            let kept: Vec<Value> =
                ir.op(merge_op).operands.iter().zip(keep).filter(|(_, &k)| k).map(|(&v, _)| v).collect();
            ir.op_mut(merge_op).operands = kept;
        }
    }
    let kept_types: Vec<Type> =
        results.iter().zip(keep).filter(|(_, &k)| k).map(|(&r, _)| ir.value_type(r)).collect();
    let old = ir.op(op).clone();
    let new = ir.create_op(old.name.clone(), old.operands.clone(), &kept_types, old.location.clone());
    {
        let n = ir.op_mut(new);
        n.properties = old.properties.clone();
        n.attributes = old.attributes.clone();
        n.successors = old.successors.clone();
        n.regions = old.regions.clone();
    }
    for &r in &old.regions {
        ir.region_mut(r).parent = Some(new);
    }
    ir.op_mut(op).regions.clear();
    let mut next = ir.op(new).results.clone().into_iter();
    (new, keep.iter().map(|&k| if k { next.next() } else { None }).collect())
}

/// Detaches `op` from its block without touching the block's op list, which
/// [`compact`] then cleans in one pass: erasing many ops from a large block one by
/// one (`Ir::erase_op`) would cost the block's length each time.
pub(crate) fn detach(ir: &mut Ir, op: OpId) {
    ir.op_mut(op).parent = None;
}

/// Drops from every block under `top` the ops [`detach`]ed from it.
pub(crate) fn compact(ir: &mut Ir, top: OpId) {
    let mut regions: Vec<RegionId> = ir.op(top).regions.to_vec();
    while let Some(region) = regions.pop() {
        for b in ir.region(region).blocks.clone() {
            let mut ops = std::mem::take(&mut ir.block_mut(b).ops);
            ops.retain(|&op| ir.op(op).parent == Some(b));
            for &op in &ops {
                regions.extend(ir.op(op).regions.iter().copied());
            }
            ir.block_mut(b).ops = ops;
        }
    }
}

/// Inserts `ops` (detached) into `block` at `index`, in order.
pub(crate) fn splice_ops(ir: &mut Ir, block: BlockId, index: usize, ops: Vec<OpId>) {
    for &op in &ops {
        ir.op_mut(op).parent = Some(block);
    }
    let list = &mut ir.block_mut(block).ops;
    let index = index.min(list.len());
    list.splice(index..index, ops);
}

/// Puts each new op of `replaced` (old -> new) where its old op is, in one pass per
/// block; the old ops are detached.
pub(crate) fn replace_ops_in_place(ir: &mut Ir, replaced: &FxHashMap<OpId, OpId>) {
    let mut blocks: Vec<BlockId> = replaced.keys().filter_map(|&old| ir.op(old).parent).collect();
    blocks.sort_unstable();
    blocks.dedup();
    for b in blocks {
        let mut ops = std::mem::take(&mut ir.block_mut(b).ops);
        for op in ops.iter_mut() {
            if let Some(&new) = replaced.get(op) {
                ir.op_mut(*op).parent = None;
                ir.op_mut(new).parent = Some(b);
                *op = new;
            }
        }
        ir.block_mut(b).ops = ops;
    }
}

/// Rewrites `op` in place as the `spirv.Constant` of `value` (a folded result keeps its
/// value id, so its uses need no rewriting).
pub(crate) fn become_constant(ir: &mut Ir, op: OpId, value: Attribute) {
    let o = ir.op_mut(op);
    o.name = "spirv.Constant".into();
    o.operands.clear();
    o.attributes.clear();
    o.properties.clear();
    ir.set_property(op, "value", value);
}
