//! The kernel pass over the converted LLVM dialect module: the entry function becomes
//! `spirvkit_invocation` (one invocation, one segment between barriers) and a new
//! `spirvkit_workgroup(ctx, gx, gy, gz)` runs every invocation of a workgroup in a
//! counter-based loop nest (z, y, x) that LLVM inlines the invocation into and can
//! vectorize across invocations.
//!
//! - Built-ins are computed from the loop counters and the group id; the subgroup size
//!   is 1 (legal in Vulkan), so each invocation is its own subgroup.
//! - Descriptors and push constants come from the context (see [`super::context`]),
//!   Workgroup globals point into the thread's workgroup memory, Private globals and
//!   Function variables are per invocation.
//! - Every load, store and atomic is bounds-checked against its root (the buffer,
//!   workgroup variable, private variable or local it points into), branch-free: an
//!   out-of-range pointer is replaced by the zero page (reads: zero) or the sink page
//!   (writes dropped), as Vulkan's robust buffer access. A pointer whose root cannot be
//!   found is an error.
//! - Barriers (`_Z22__spirv_ControlBarrieriii`) split the function: barrier k returns
//!   state k, and the next round of the invocation loop resumes every invocation at
//!   the block after barrier k. Values live across a barrier, Function variables and
//!   Private globals live in the invocation's frame (context `frames`). Barriers are in
//!   workgroup-uniform control flow (SPIR-V's rule), so every invocation returns the
//!   same state. Memory barriers are dropped: one thread runs the whole workgroup.
//! - The cancel flag is read at loop headers once a per-call countdown of header passes
//!   runs out (LLVM folds the test away in loops it can bound, so they unroll and
//!   vectorize), and before each further round of a workgroup's barrier states.

use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{BlockId, Ir, Location, OpId, RegionId, Value, ValueDef};
use spirvkit_ir::types::{FloatKind, Signedness, Type, TypeKind};

use super::context as cx;
use super::interface::{BuiltIn, GlobalKind, KernelInterface};
use super::KernelError;

const CONTROL_BARRIER: &str = "_Z22__spirv_ControlBarrieriii";
const MEMORY_BARRIER: &str = "_Z21__spirv_MemoryBarrierjj";
const BUFFER_BYTES: &str = crate::convert_spirv_to_llvm::BUFFER_BYTES_FUNCTION;

/// A descriptor the runtime binds in slot `index` of the context's buffer table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DescriptorSlot {
    pub name: String,
    pub set: u32,
    pub binding: u32,
    pub storage: bool,
    pub fixed_size: u64,
    pub runtime_stride: Option<u64>,
}

/// What the runtime must allocate and bind for the compiled kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelLayout {
    /// Context buffer slot i holds `descriptors[i]`.
    pub descriptors: Vec<DescriptorSlot>,
    pub push_constant_bytes: Option<u64>,
    pub workgroup_bytes: u64,
    /// Bytes of one invocation's frame (0 without barriers).
    pub frame_bytes: u64,
    pub workgroup_size: [u32; 3],
    pub barriers: usize,
    /// Storage buffers the kernel only accumulates into with atomics: a thread may
    /// work on a private copy (see [`super::atomics`]).
    pub reductions: Vec<super::atomics::Reduction>,
    /// Invocations per call of the invocation function: [`super::simd::LANES`] on the
    /// SIMD path, 1 on the scalar path.
    pub lanes: u64,
    /// Why the SIMD path was not taken (on the scalar path).
    pub simd_refused: Option<String>,
}

struct Types {
    i32: Type,
    i64: Type,
    ptr: Type,
}

/// A pointer's root: its base address and length in bytes (values available in the
/// dispatch block).
#[derive(Clone, Copy)]
pub(super) struct Root {
    pub(super) base: Value,
    pub(super) bytes: Value,
    /// Memory the shader cannot write (a uniform buffer, push constants): its loads
    /// are `!invariant.load`, so LLVM hoists them out of the invocation loop.
    pub(super) read_only: bool,
    /// Memory with a distinct address per invocation or shared by the workgroup, whose
    /// accesses may carry the invocation loops' access group: within one segment no
    /// two invocations race on it (SPIR-V's rule). Not an alloca of the invocation
    /// function, which becomes one slot for every invocation once inlined.
    pub(super) parallel: bool,
}

struct Pass<'a> {
    ir: &'a mut Ir,
    t: Types,
    location: Location,
    /// The new entry block of the invocation function.
    dispatch: BlockId,
    ctx: Value,
    /// The workgroup's frames: each per-invocation slot is an array over the
    /// invocations (slot-major), so a segment's accesses to it are contiguous across
    /// the invocation loop.
    frames_arg: Value,
    frame_mode: bool,
    /// The invocation's linear index (i64), computed once in the dispatch block.
    local_index: Option<Value>,
    local_ids: Vec<Value>,
    workgroup_size: [u32; 3],
    frame_bytes: u64,
    i64_constants: FxHashMap<u64, Value>,
    ctx_fields: FxHashMap<u64, Value>,
    /// The built-ins' slots: written once per call in the dispatch block.
    builtin_slots: FxHashSet<Value>,
    /// The slots of built-ins with one value for the whole workgroup (the workgroup id,
    /// sizes, counts): loads of them are uniform.
    uniform_builtin_slots: FxHashSet<Value>,
    /// Private variables with an initializer: (storage, global, alignment), written when
    /// an invocation starts.
    private_initializers: Vec<(Value, OpId, u64)>,
    /// The per-invocation variables kept in the frames (their slots' addresses).
    frame_variables: Vec<Value>,
    /// Read-only memory (uniform buffers, push constants) by base: loads of it can be
    /// repeated anywhere.
    read_only_bases: FxHashSet<Value>,
    roots: FxHashMap<Value, Root>,
    /// Values uniform across the workgroup kept across a barrier: one slot each (not
    /// one per invocation) in two areas after the invocations' frames.
    uniform_spills: UniformSpills,
    /// Accesses that stay out of the invocations' access group although their root is
    /// parallel: the plain read-modify-writes of workgroup atomics (two invocations
    /// may update one word).
    serial_accesses: FxHashSet<OpId>,
}

/// The uniform values kept across barriers. Every invocation that defines one writes
/// the same value to its slot in the area after the invocations' frames; uses in later
/// segments read a parameter of the invocation function, which the workgroup function
/// loads from the slot once per round, before the state's invocation loops. So no
/// invocation of a round reads what another wrote in the same round (no dependence
/// between the iterations of an invocation loop), and the value is invariant in the
/// loops without LLVM having to prove that no store of the segment (to workgroup memory,
/// a buffer, a frame) changes it: addresses computed from it stay affine in the
/// invocation index, which the loop vectorizer needs.
#[derive(Default)]
struct UniformSpills {
    /// Offset in the frames of the uniform area.
    area: u64,
    bytes: u64,
    /// Each value's slot: offset in the area, type, alignment.
    slots: Vec<(u64, Type, u64)>,
}

pub(super) fn int(value: i128, ty: Type) -> Attribute {
    Attribute::Integer { value, ty }
}

pub(super) fn dialect(name: &str, body: &str) -> Attribute {
    Attribute::Dialect { name: name.into(), body: Some(body.into()) }
}

pub(super) fn dense_i32(ir: &mut Ir, values: &[i64]) -> Attribute {
    let i32 = ir.types.integer(32, Signedness::Signless);
    Attribute::DenseArray { element: i32, values: values.iter().map(|&v| int(i128::from(v), i32)).collect() }
}

/// Creates an op with properties (sorted by name, as MLIR prints them).
fn make(
    ir: &mut Ir,
    name: &str,
    operands: Vec<Value>,
    results: &[Type],
    props: Vec<(&str, Attribute)>,
    location: &Location,
) -> OpId {
    let op = ir.create_op(name, operands, results, location.clone());
    let mut props: Vec<NamedAttribute> = props.into_iter().map(|(n, v)| NamedAttribute::new(n, v)).collect();
    props.sort_by(|a, b| a.name.cmp(&b.name));
    ir.op_mut(op).properties = props;
    op
}

/// Where new ops go: the end of a block, or before an op.
#[derive(Clone, Copy)]
pub(super) enum At {
    End(BlockId),
    Before(BlockId, OpId),
}

fn place(ir: &mut Ir, at: At, op: OpId) {
    match at {
        At::End(b) => ir.append_op(b, op),
        At::Before(b, before) => ir.insert_op_before(b, before, op),
    }
}

pub(super) fn emit(
    ir: &mut Ir,
    at: At,
    name: &str,
    operands: Vec<Value>,
    results: &[Type],
    props: Vec<(&str, Attribute)>,
    location: &Location,
) -> Option<Value> {
    let op = make(ir, name, operands, results, props, location);
    place(ir, at, op);
    ir.op(op).results.first().copied()
}

pub(super) fn constant(ir: &mut Ir, at: At, value: i128, ty: Type, location: &Location) -> Value {
    emit(ir, at, "llvm.mlir.constant", vec![], &[ty], vec![("value", int(value, ty))], location)
        .expect("result")
}

pub(super) fn arith(ir: &mut Ir, at: At, name: &str, a: Value, b: Value, location: &Location) -> Value {
    let ty = ir.value_type(a);
    let props = if matches!(name, "llvm.add" | "llvm.sub" | "llvm.mul") {
        let i32 = ir.types.integer(32, Signedness::Signless);
        vec![("overflowFlags", int(0, i32))]
    } else {
        vec![]
    };
    emit(ir, at, name, vec![a, b], &[ty], props, location).expect("result")
}

pub(super) fn icmp(ir: &mut Ir, at: At, predicate: i128, a: Value, b: Value, location: &Location) -> Value {
    let i1 = ir.types.integer(1, Signedness::Signless);
    let i64 = ir.types.integer(64, Signedness::Signless);
    emit(ir, at, "llvm.icmp", vec![a, b], &[i1], vec![("predicate", int(predicate, i64))], location)
        .expect("result")
}

pub(super) const EQ: i128 = 0;
pub(super) const SLT: i128 = 2;
pub(super) const ULT: i128 = 6;
const UGE: i128 = 9;
pub(super) const NE: i128 = 1;

pub(super) fn select(ir: &mut Ir, at: At, c: Value, a: Value, b: Value, location: &Location) -> Value {
    let ty = ir.value_type(a);
    emit(
        ir,
        at,
        "llvm.select",
        vec![c, a, b],
        &[ty],
        vec![("fastmathFlags", dialect("llvm.fastmath", "none"))],
        location,
    )
    .expect("result")
}

pub(super) fn load(ir: &mut Ir, at: At, ptr: Value, ty: Type, align: u64, location: &Location) -> Value {
    let i64 = ir.types.integer(64, Signedness::Signless);
    emit(
        ir,
        at,
        "llvm.load",
        vec![ptr],
        &[ty],
        vec![("alignment", int(i128::from(align), i64)), ("ordering", int(0, i64))],
        location,
    )
    .expect("result")
}

pub(super) fn store(ir: &mut Ir, at: At, value: Value, ptr: Value, align: u64, location: &Location) -> OpId {
    let i64 = ir.types.integer(64, Signedness::Signless);
    let op = make(
        ir,
        "llvm.store",
        vec![value, ptr],
        &[],
        vec![("alignment", int(i128::from(align), i64)), ("ordering", int(0, i64))],
        location,
    );
    place(ir, at, op);
    op
}

/// The access group of the memory accesses that no two invocations of one segment
/// make to the same address in conflict (see [`Root::parallel`]); the invocation loops
/// of the workgroup function declare it parallel (`llvm.loop.parallel_accesses`), so
/// LLVM vectorizes across invocations without proving the accesses independent.
fn invocation_access_groups() -> Attribute {
    Attribute::Array(vec![dialect("llvm.access_group", INVOCATION_ACCESS_GROUP)])
}

const INVOCATION_ACCESS_GROUP: &str = "id = distinct[0]<>";
/// The invocation function's parameters: ctx, local x/y/z, group x/y/z, frames, state.
const FRAMES_PARAMETER: usize = 7;

/// Puts the load that defines `loaded` into the invocations' access group.
fn mark_parallel(ir: &mut Ir, loaded: Value) {
    if let ValueDef::Result { op, .. } = ir.value(loaded).def {
        ir.set_property(op, "access_groups", invocation_access_groups());
    }
}

/// A load of memory that does not change during the dispatch (the context, the buffer
/// table): `!invariant.load`, so LLVM hoists it out of the invocation loop although
/// the kernel's stores might alias it.
pub(super) fn load_invariant(
    ir: &mut Ir,
    at: At,
    ptr: Value,
    ty: Type,
    align: u64,
    location: &Location,
) -> Value {
    let i64 = ir.types.integer(64, Signedness::Signless);
    emit(
        ir,
        at,
        "llvm.load",
        vec![ptr],
        &[ty],
        vec![
            ("alignment", int(i128::from(align), i64)),
            ("invariant", Attribute::Unit),
            ("ordering", int(0, i64)),
        ],
        location,
    )
    .expect("result")
}

/// `base + offset` bytes.
pub(super) fn byte_gep(ir: &mut Ir, at: At, base: Value, offset: Value, location: &Location) -> Value {
    let ptr = ir.types.llvm_pointer(0);
    let i8 = ir.types.integer(8, Signedness::Signless);
    let raw = dense_i32(ir, &[i64::from(i32::MIN)]);
    let i32 = ir.types.integer(32, Signedness::Signless);
    emit(
        ir,
        at,
        "llvm.getelementptr",
        vec![base, offset],
        &[ptr],
        vec![("elem_type", Attribute::Type(i8)), ("noWrapFlags", int(0, i32)), ("rawConstantIndices", raw)],
        location,
    )
    .expect("result")
}

pub(super) fn branch(ir: &mut Ir, at: At, target: BlockId, args: Vec<Value>, location: &Location) {
    let op = make(ir, "llvm.br", args, &[], vec![], location);
    ir.op_mut(op).successors.push(target);
    place(ir, at, op);
}

#[allow(clippy::too_many_arguments)]
pub(super) fn cond_branch(
    ir: &mut Ir,
    at: At,
    c: Value,
    t: BlockId,
    t_args: Vec<Value>,
    f: BlockId,
    f_args: Vec<Value>,
    location: &Location,
) {
    let sizes = dense_i32(ir, &[1, t_args.len() as i64, f_args.len() as i64]);
    let mut operands = vec![c];
    operands.extend(t_args);
    operands.extend(f_args);
    let op = make(ir, "llvm.cond_br", operands, &[], vec![("operandSegmentSizes", sizes)], location);
    ir.op_mut(op).successors.extend([t, f]);
    place(ir, at, op);
}

fn ret(ir: &mut Ir, at: At, value: Option<Value>, location: &Location) {
    emit(ir, at, "llvm.return", value.into_iter().collect(), &[], vec![], location);
}

/// LLVM's (x86-64 data layout) store size, allocation size and alignment of a type.
pub fn llvm_type_layout(ir: &Ir, ty: Type) -> Option<(u64, u64, u64)> {
    llvm_layout(ir, ty, 0)
}

fn llvm_layout(ir: &Ir, ty: Type, depth: u32) -> Option<(u64, u64, u64)> {
    if depth > 64 {
        return None;
    }
    Some(match ir.types.kind(ty) {
        TypeKind::Integer { width, .. } => {
            let store = u64::from(width.div_ceil(8));
            let alloc = store.next_power_of_two().min(16).max(store);
            (store, alloc, alloc.min(16))
        }
        TypeKind::Float(k) => {
            let b = match k {
                FloatKind::F16 | FloatKind::BF16 => 2,
                FloatKind::F32 => 4,
                FloatKind::F64 => 8,
                _ => 1,
            };
            (b, b, b)
        }
        TypeKind::LlvmPointer { .. } => (8, 8, 8),
        TypeKind::Vector { shape, element, .. } => {
            let (e, _, _) = llvm_layout(ir, *element, depth + 1)?;
            let store = shape.iter().product::<u64>() * e;
            let alloc = store.next_power_of_two();
            (store, alloc, alloc)
        }
        TypeKind::LlvmArray { count, element } => {
            let (_, e, a) = llvm_layout(ir, *element, depth + 1)?;
            let bytes = count.checked_mul(e)?;
            (bytes, bytes, a)
        }
        TypeKind::LlvmStruct { packed, members, .. } => {
            let (mut size, mut align) = (0u64, 1u64);
            for &m in members {
                let (_, s, a) = llvm_layout(ir, m, depth + 1)?;
                let a = if *packed { 1 } else { a };
                size = size.next_multiple_of(a).checked_add(s)?;
                align = align.max(a);
            }
            let size = size.next_multiple_of(align);
            (size, size, align)
        }
        _ => return None,
    })
}

pub(super) fn symbol_of(ir: &Ir, op: OpId, name: &str) -> Option<String> {
    match ir.op(op).attr(name)? {
        Attribute::String(s) => Some(s.clone()),
        Attribute::SymbolRef(p) if p.len() == 1 => Some(p[0].clone()),
        _ => None,
    }
}

/// Turns the entry function of the converted module under `top` into the workgroup
/// function (see the module docs) and returns what the runtime must bind.
pub fn build_workgroup_function(
    ir: &mut Ir,
    top: OpId,
    iface: &KernelInterface,
) -> Result<KernelLayout, KernelError> {
    let mut entry = None;
    for (block, op) in ir.ops_under(top) {
        if ir.op(op).name == "llvm.func"
            && symbol_of(ir, op, "sym_name").as_deref() == Some(iface.function.as_str())
        {
            entry = Some((block, op));
        }
    }
    let Some((module_block, func)) = entry else {
        return Err(KernelError::new(
            &ir.op(top).location,
            format!("the converted module has no function @{}", iface.function),
        ));
    };
    let location = ir.op(func).location.clone();
    let err = |m: String| KernelError::new(&location, m);
    let Some(&region) = ir.op(func).regions.first() else {
        return Err(err("the entry function has no body".into()));
    };
    if ir.region(region).blocks.is_empty() {
        return Err(err("the entry function has no body".into()));
    }
    let old_entry = ir.region(region).blocks[0];
    if !ir.block(old_entry).arguments.is_empty() {
        return Err(err("the entry function takes arguments".into()));
    }

    // Globals of the module by name.
    let mut globals: FxHashMap<String, OpId> = FxHashMap::default();
    for &op in &ir.block(module_block).ops {
        if ir.op(op).name == "llvm.mlir.global" {
            if let Some(name) = symbol_of(ir, op, "sym_name") {
                globals.insert(name, op);
            }
        }
    }
    let defined_functions: FxHashSet<String> = ir
        .block(module_block)
        .ops
        .iter()
        .filter(|&&op| {
            ir.op(op).name == "llvm.func"
                && ir.op(op).regions.first().is_some_and(|&r| !ir.region(r).blocks.is_empty())
        })
        .filter_map(|&op| symbol_of(ir, op, "sym_name"))
        .collect();

    // Calls: barriers, and what the CPU cannot run.
    let mut barriers = Vec::new();
    let mut memory_barriers = Vec::new();
    let mut group_calls = Vec::new();
    let mut buffer_bytes_calls = Vec::new();
    for b in ir.region(region).blocks.clone() {
        for &op in &ir.block(b).ops {
            if ir.op(op).name != "llvm.call" {
                continue;
            }
            let callee = symbol_of(ir, op, "callee").unwrap_or_default();
            match callee.as_str() {
                CONTROL_BARRIER => barriers.push((b, op)),
                MEMORY_BARRIER => memory_barriers.push(op),
                BUFFER_BYTES => buffer_bytes_calls.push(op),
                c if super::subgroup::group_builtin(c).is_some() => group_calls.push((op, c.to_string())),
                c if defined_functions.contains(c) => {
                    return Err(KernelError::new(
                        &ir.op(op).location,
                        format!("not supported yet: a call to @{c} in the kernel (inline the module's functions first)"),
                    ))
                }
                c => return Err(KernelError::new(&ir.op(op).location, format!("not supported yet: the call to @{c} on the CPU"))),
            }
        }
    }

    let t = Types::new(ir);

    // The new entry block: the dispatch on the resume state.
    let dispatch = ir.create_block();
    let ctx = ir.add_block_argument(dispatch, t.ptr, location.clone());
    let mut local_ids = Vec::new();
    for _ in 0..3 {
        local_ids.push(ir.add_block_argument(dispatch, t.i32, location.clone()));
    }
    let mut group_ids = Vec::new();
    for _ in 0..3 {
        group_ids.push(ir.add_block_argument(dispatch, t.i32, location.clone()));
    }
    let frames_arg = ir.add_block_argument(dispatch, t.ptr, location.clone());
    let state_arg = ir.add_block_argument(dispatch, t.i32, location.clone());
    ir.region_mut(region).blocks.insert(0, dispatch);
    ir.block_mut(dispatch).parent = Some(region);

    let mut pass = Pass::new(ir, &location, dispatch, ctx);
    pass.frames_arg = frames_arg;
    pass.frame_mode = !barriers.is_empty();
    pass.local_ids = local_ids.clone();
    pass.workgroup_size = iface.workgroup_size;

    // Group operations over a subgroup of one invocation.
    for (op, callee) in &group_calls {
        let builtin = super::subgroup::group_builtin(callee).expect("matched above");
        super::subgroup::lower_group_call(pass.ir, *op, builtin)?;
    }

    // Atomics on workgroup memory: one thread runs the workgroup, plain RMW will do.
    pass.serial_accesses = super::atomics::plain_workgroup_atomics(pass.ir, func, iface)?;

    // Memory barriers: nothing to order within one thread.
    for op in memory_barriers {
        pass.ir.erase_op(op);
    }

    // Roots: every addressof of the function, and its allocas.
    let mut layout = KernelLayout {
        descriptors: Vec::new(),
        push_constant_bytes: None,
        workgroup_bytes: 0,
        frame_bytes: 0,
        workgroup_size: iface.workgroup_size,
        barriers: barriers.len(),
        reductions: Vec::new(),
        lanes: 1,
        simd_refused: None,
    };
    let mut roots: FxHashMap<Value, Root> = FxHashMap::default();
    let mut global_roots: FxHashMap<String, Root> = FxHashMap::default();
    let mut replaced: FxHashMap<Value, Value> = FxHashMap::default();
    let builtin_values = BuiltinInputs { local: local_ids, group: group_ids, size: iface.workgroup_size };
    let blocks: Vec<BlockId> = pass.ir.region(region).blocks[1..].to_vec();
    for &b in &blocks {
        for op in pass.ir.block(b).ops.clone() {
            match pass.ir.op(op).name.as_str() {
                "llvm.mlir.addressof" => {
                    let name = symbol_of(pass.ir, op, "global_name").unwrap_or_default();
                    let result = pass.ir.op(op).results[0];
                    let root = match global_roots.get(&name) {
                        Some(r) => Some(*r),
                        None => {
                            let r = pass.global_root(&name, iface, &globals, &builtin_values, &mut layout)?;
                            if let Some(r) = r {
                                global_roots.insert(name.clone(), r);
                            }
                            r
                        }
                    };
                    match root {
                        Some(r) => {
                            replaced.insert(result, r.base);
                            pass.ir.erase_op(op);
                        }
                        None => {
                            // A global outside the interface (a constant table): its own
                            // address, bounded by its type.
                            let g = globals[&name];
                            let Some(Attribute::Type(gt)) = pass.ir.op(g).attr("global_type").cloned() else {
                                return Err(KernelError::new(
                                    &pass.ir.op(op).location,
                                    format!("@{name} has no type"),
                                ));
                            };
                            let (_, size, _) = llvm_type_layout(pass.ir, gt).ok_or_else(|| {
                                KernelError::new(&location, format!("@{name}: a type without a size"))
                            })?;
                            let bytes = pass.i64_constant(size);
                            roots.insert(
                                result,
                                Root { base: result, bytes, read_only: false, parallel: true },
                            );
                        }
                    }
                }
                "llvm.alloca" => {
                    let Some(Attribute::Type(elem)) = pass.ir.op(op).attr("elem_type").cloned() else {
                        continue;
                    };
                    let count =
                        pass.ir.op(op).operands.first().copied().and_then(|c| constant_value(pass.ir, c));
                    let Some(count) = count.and_then(|c| u64::try_from(c).ok()) else {
                        return Err(KernelError::new(
                            &pass.ir.op(op).location,
                            "not supported yet: an alloca of a non-constant count",
                        ));
                    };
                    let (_, size, align) = llvm_type_layout(pass.ir, elem).ok_or_else(|| {
                        KernelError::new(&location, "an alloca of a type without a size".to_string())
                    })?;
                    let bytes = size
                        .checked_mul(count)
                        .ok_or_else(|| KernelError::new(&location, "an alloca too large".to_string()))?;
                    let base = pass.per_invocation(bytes, align, elem, count)?;
                    let bytes = pass.i64_constant(bytes);
                    replaced.insert(pass.ir.op(op).results[0], base);
                    pass.ir.erase_op(op);
                    let parallel = pass.frame_mode;
                    roots.insert(base, Root { base, bytes, read_only: false, parallel });
                }
                _ => {}
            }
        }
    }
    for r in global_roots.values() {
        roots.insert(r.base, *r);
    }
    crate::legalize::util::replace_uses(pass.ir, func, &replaced);
    pass.initialize_private_variables(old_entry)?;

    // Buffer sizes (`spirv.ArrayLength`): the size of the memory the pointer points into.
    let mut sizes: FxHashMap<Value, Value> = FxHashMap::default();
    for call in buffer_bytes_calls {
        let (Some(&pointer), Some(&result)) =
            (pass.ir.op(call).operands.first(), pass.ir.op(call).results.first())
        else {
            return Err(KernelError::new(
                &pass.ir.op(call).location,
                format!("a call to @{BUFFER_BYTES} without its pointer"),
            ));
        };
        let root = find_root(pass.ir, pointer, &roots)
            .map_err(|m| KernelError::new(&pass.ir.op(call).location, m))?;
        sizes.insert(result, root.bytes);
        pass.ir.erase_op(call);
    }
    crate::legalize::util::replace_uses(pass.ir, func, &sizes);

    pass.read_only_bases = roots.values().filter(|r| r.read_only).map(|r| r.base).collect();
    pass.roots = roots.clone();
    if pass.frame_mode {
        pass.forward_write_once_variables(region, func, old_entry);
    }

    // Void returns become "done".
    for &b in &blocks {
        for op in pass.ir.block(b).ops.clone() {
            if pass.ir.op(op).name == "llvm.return" {
                let done = constant(
                    pass.ir,
                    At::Before(b, op),
                    i128::from(cx::STATE_DONE as i32),
                    pass.t.i32,
                    &location,
                );
                pass.ir.op_mut(op).operands = vec![done];
            }
        }
    }

    // Storage buffers that only accumulate: per-thread private copies (`atomics`).
    let storage_roots: Vec<(usize, Root)> = (layout.descriptors.iter().enumerate())
        .filter(|(_, d)| d.storage)
        .filter_map(|(slot, d)| global_roots.get(&d.name).map(|r| (slot, *r)))
        .collect();
    let candidates = super::atomics::reduction_candidates(pass.ir, func, &storage_roots);
    if !candidates.is_empty() {
        let table = pass.ctx_field(cx::PRIVATE_BUFFERS, pass.t.ptr);
        let at = pass.at_dispatch();
        layout.reductions = super::atomics::privatize(pass.ir, region, at, table, candidates, &mut roots);
    }

    pass.bounds_checks(region, func, &roots)?;

    // Barriers: barrier k ends the segment with `return k`; the rest of its block is the
    // resume block of state k.
    let mut resume_blocks = Vec::new();
    for (k, &(_, call)) in barriers.iter().enumerate() {
        // The bounds checks may have split the barrier's original block.
        let b = pass.ir.op(call).parent.expect("barrier in a block");
        let ops = pass.ir.block(b).ops.clone();
        let at = ops.iter().position(|&o| o == call).expect("barrier in its block");
        let rest: Vec<OpId> = ops[at + 1..].to_vec();
        let resume = pass.ir.create_block();
        pass.ir.block_mut(b).ops.truncate(at);
        for &o in &rest {
            pass.ir.append_op(resume, o);
        }
        pass.ir.append_block(region, resume);
        let state = constant(pass.ir, At::End(b), (k + 1) as i128, pass.t.i32, &location);
        ret(pass.ir, At::End(b), Some(state), &location);
        pass.ir.op_mut(call).parent = None;
        resume_blocks.push(resume);
    }

    // The dispatch: state 0 starts at the old entry, state k resumes after barrier k.
    if resume_blocks.is_empty() {
        branch(pass.ir, At::End(dispatch), old_entry, vec![], &location);
    } else {
        let values: Vec<i128> = (1..=resume_blocks.len() as i128).collect();
        let n = values.len() as u64;
        let vty = pass.ir.types.vector(n, pass.t.i32);
        let case_values =
            Attribute::Dense { elements: values.iter().map(|&v| int(v, pass.t.i32)).collect(), ty: vty };
        let segments = dense_i32(pass.ir, &vec![0; resume_blocks.len()]);
        let sizes = dense_i32(pass.ir, &[1, 0, 0]);
        let op = make(
            pass.ir,
            "llvm.switch",
            vec![state_arg],
            &[],
            vec![
                ("case_operand_segments", segments),
                ("case_values", case_values),
                ("operandSegmentSizes", sizes),
            ],
            &location,
        );
        pass.ir.op_mut(op).successors.push(old_entry);
        pass.ir.op_mut(op).successors.extend(resume_blocks.iter().copied());
        pass.ir.append_op(dispatch, op);
        // After the dispatch switch: the divergence analysis and the uses' dominance
        // need every segment reachable from the entry (an unreachable block has no
        // place in the CFG, and a value used there could not be kept once).
        pass.spill_live_values(region, &resume_blocks)?;
    }

    // SIMD across invocations (kernels without barriers; see `simd.rs`).
    let simd = if resume_blocks.is_empty() {
        let mode = super::simd::SimdMode::from_env();
        match super::simd::build_simd_function(pass.ir, module_block, func, iface.workgroup_size, mode) {
            Ok(simd) => Some(simd),
            Err(refused) => {
                layout.simd_refused = Some(refused.0);
                None
            }
        }
    } else {
        layout.simd_refused = Some("barriers".into());
        None
    };

    pass.poll_cancel_at_back_edges(region)?;

    // The invocation function's new signature.
    let mut params = vec![
        pass.t.ptr, pass.t.i32, pass.t.i32, pass.t.i32, pass.t.i32, pass.t.i32, pass.t.i32, pass.t.ptr,
        pass.t.i32,
    ];
    // Then the uniform values kept across barriers (see `UniformSpills`).
    params.extend(pass.uniform_spills.slots.iter().map(|&(_, ty, _)| ty));
    let fty = pass.ir.types.llvm_function(pass.t.i32, params.clone(), false);
    pass.ir.set_property(func, "function_type", Attribute::Type(fty));
    // The frames are their own allocation (the runtime's), reached through no other
    // argument or loaded pointer: when LLVM inlines the invocation, `noalias` becomes
    // scope metadata telling it that workgroup-memory and buffer stores leave the
    // frames' uniform slots unchanged, so their loads leave the invocation loops.
    let mut arg_attrs = vec![Attribute::Dictionary(vec![]); params.len()];
    arg_attrs[FRAMES_PARAMETER] =
        Attribute::Dictionary(vec![NamedAttribute::new("llvm.noalias", Attribute::Unit)]);
    pass.ir.set_property(func, "arg_attrs", Attribute::Array(arg_attrs));
    pass.ir.set_property(func, "sym_name", Attribute::String(cx::INVOCATION_FUNCTION.into()));
    pass.ir.set_property(func, "linkage", dialect("llvm.linkage", "internal"));
    // Inlined into each state's loop nest, where the constant state selects one segment.
    pass.ir.set_property(func, "always_inline", Attribute::Unit);

    // The barrier declarations have no callers left.
    for op in pass.ir.block(module_block).ops.clone() {
        let name = symbol_of(pass.ir, op, "sym_name");
        if pass.ir.op(op).name == "llvm.func"
            && matches!(name.as_deref(), Some(CONTROL_BARRIER | MEMORY_BARRIER | BUFFER_BYTES))
        {
            pass.ir.erase_op(op);
        }
    }

    layout.frame_bytes = pass.frame_bytes.next_multiple_of(16);
    let invocations: u64 = iface.workgroup_size.iter().map(|&d| u64::from(d)).product();
    let uniform = &pass.uniform_spills;
    if !uniform.slots.is_empty() {
        // The runtime allocates frame_bytes per invocation: room for the uniform area too.
        let total = uniform.area + uniform.bytes;
        layout.frame_bytes = total.div_ceil(invocations.max(1)).next_multiple_of(16);
    }
    let uniform_slots: Vec<(u64, Type, u64)> =
        uniform.slots.iter().map(|&(offset, ty, align)| (uniform.area + offset, ty, align)).collect();
    let frame_bytes = layout.frame_bytes;
    if let Some(simd) = simd {
        let ir = pass.ir;
        ir.erase_op(func);
        let simd_region = ir.op(simd.func).regions[0];
        poll_cancel_in(ir, simd_region, simd.entry, simd.ctx, &location)?;
        super::simd::build_simd_workgroup_loop(ir, module_block, &simd, iface.workgroup_size, &location);
        layout.lanes = super::simd::LANES;
        return Ok(layout);
    }
    let states = barriers.len() + 1;
    let rounds = Rounds { size: iface.workgroup_size, states, frame_bytes, uniform_slots: &uniform_slots };
    build_workgroup_loop(pass.ir, module_block, &pass.t, &rounds, &location);
    Ok(layout)
}

/// The cancel polls of [`Pass::poll_cancel_at_back_edges`] in another function built
/// like the invocation function (the SIMD one): `dispatch` its entry, `ctx` its context.
fn poll_cancel_in(
    ir: &mut Ir,
    region: RegionId,
    dispatch: BlockId,
    ctx: Value,
    location: &Location,
) -> Result<(), KernelError> {
    let mut pass = Pass::new(ir, location, dispatch, ctx);
    pass.poll_cancel_at_back_edges(region)
}

/// The component index of a GEP `(vector<N x T>) p[0][i]` with constant indices.
fn vector_component(ir: &Ir, gep: OpId) -> Option<i128> {
    let o = ir.op(gep);
    let Some(Attribute::Type(elem)) = o.attr("elem_type") else { return None };
    if !matches!(ir.types.kind(*elem), TypeKind::Vector { .. }) {
        return None;
    }
    let Attribute::DenseArray { values, .. } = o.attr("rawConstantIndices")? else { return None };
    // Each raw index is a constant, or (i32::MIN) the next operand, itself a constant.
    let mut dynamic = o.operands[1..].iter();
    let mut indices = Vec::new();
    for raw in values {
        let Attribute::Integer { value, .. } = raw else { return None };
        indices.push(if *value == i128::from(i32::MIN) {
            constant_value(ir, *dynamic.next()?)?
        } else {
            *value
        });
    }
    match indices[..] {
        [0, index] if index >= 0 => Some(index),
        _ => None,
    }
}

fn constant_value(ir: &Ir, v: Value) -> Option<i128> {
    let ValueDef::Result { op, .. } = ir.value(v).def else { return None };
    if ir.op(op).name != "llvm.mlir.constant" {
        return None;
    }
    match ir.op(op).attr("value")? {
        Attribute::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

struct BuiltinInputs {
    local: Vec<Value>,
    group: Vec<Value>,
    size: [u32; 3],
}

impl Types {
    fn new(ir: &mut Ir) -> Types {
        Types {
            i32: ir.types.integer(32, Signedness::Signless),
            i64: ir.types.integer(64, Signedness::Signless),
            ptr: ir.types.llvm_pointer(0),
        }
    }
}

impl<'a> Pass<'a> {
    /// A pass over a function whose entry block is `dispatch` and whose context is
    /// `ctx`: no frames, no local ids (the caller sets them for the invocation function).
    fn new(ir: &'a mut Ir, location: &Location, dispatch: BlockId, ctx: Value) -> Pass<'a> {
        let t = Types::new(ir);
        Pass {
            ir,
            t,
            location: location.clone(),
            dispatch,
            ctx,
            frames_arg: ctx,
            frame_mode: false,
            local_index: None,
            local_ids: Vec::new(),
            workgroup_size: [1, 1, 1],
            frame_bytes: 0,
            i64_constants: FxHashMap::default(),
            ctx_fields: FxHashMap::default(),
            builtin_slots: FxHashSet::default(),
            uniform_builtin_slots: FxHashSet::default(),
            private_initializers: Vec::new(),
            frame_variables: Vec::new(),
            read_only_bases: FxHashSet::default(),
            roots: FxHashMap::default(),
            uniform_spills: UniformSpills::default(),
            serial_accesses: FxHashSet::default(),
        }
    }
}

impl Pass<'_> {
    /// The end of the dispatch block, before its branch once it has one.
    fn at_dispatch(&self) -> At {
        match self.ir.block(self.dispatch).ops.last() {
            Some(&last) if matches!(self.ir.op(last).name.as_str(), "llvm.br" | "llvm.switch") => {
                At::Before(self.dispatch, last)
            }
            _ => At::End(self.dispatch),
        }
    }

    /// The invocation's linear index in the workgroup, as an i64.
    fn local_index(&mut self) -> Value {
        if let Some(v) = self.local_index {
            return v;
        }
        let at = self.at_dispatch();
        let loc = self.location.clone();
        let [sx, sy, _] = self.workgroup_size;
        let sx = constant(self.ir, at, i128::from(sx), self.t.i32, &loc);
        let sy = constant(self.ir, at, i128::from(sy), self.t.i32, &loc);
        let zy = arith(self.ir, at, "llvm.mul", self.local_ids[2], sy, &loc);
        let zy = arith(self.ir, at, "llvm.add", zy, self.local_ids[1], &loc);
        let zyx = arith(self.ir, at, "llvm.mul", zy, sx, &loc);
        let index = arith(self.ir, at, "llvm.add", zyx, self.local_ids[0], &loc);
        let index = emit(self.ir, at, "llvm.zext", vec![index], &[self.t.i64], vec![], &loc).expect("result");
        self.local_index = Some(index);
        index
    }

    fn i64_constant(&mut self, v: u64) -> Value {
        if let Some(&c) = self.i64_constants.get(&v) {
            return c;
        }
        let c = constant(self.ir, self.at_dispatch(), i128::from(v), self.t.i64, &self.location);
        self.i64_constants.insert(v, c);
        c
    }

    /// A pointer-sized field of the context, loaded once in the dispatch block.
    fn ctx_field(&mut self, offset: u64, ty: Type) -> Value {
        if let Some(&v) = self.ctx_fields.get(&offset) {
            return v;
        }
        let off = self.i64_constant(offset);
        let at = self.at_dispatch();
        let p = byte_gep(self.ir, at, self.ctx, off, &self.location);
        let v = load_invariant(self.ir, at, p, ty, 8, &self.location);
        self.ctx_fields.insert(offset, v);
        v
    }

    /// Storage for one invocation: an alloca in the dispatch block, or a slot of the
    /// invocation's frame when the kernel has barriers (values must survive a return).
    fn per_invocation(
        &mut self,
        bytes: u64,
        align: u64,
        elem: Type,
        count: u64,
    ) -> Result<Value, KernelError> {
        if self.frame_mode {
            // Slot-major: the slot at `offset` of an invocation frame is the array
            // `frames[offset * invocations ..]` of one `bytes` element per invocation
            // (`bytes` is a multiple of `align`, so every element stays aligned).
            let align = align.clamp(1, 16);
            let offset = self.frame_bytes.next_multiple_of(align);
            self.frame_bytes = offset.checked_add(bytes).filter(|&e| e <= 1 << 24).ok_or_else(|| {
                KernelError::new(&self.location, "per-invocation memory over 16 MiB".to_string())
            })?;
            let invocations: u64 = self.workgroup_size.iter().map(|&d| u64::from(d)).product();
            let array = self.i64_constant(offset * invocations);
            let element = self.i64_constant(bytes);
            let index = self.local_index();
            let at = self.at_dispatch();
            let start = byte_gep(self.ir, at, self.frames_arg, array, &self.location);
            let within = arith(self.ir, at, "llvm.mul", index, element, &self.location);
            let slot = byte_gep(self.ir, at, start, within, &self.location);
            self.frame_variables.push(slot);
            Ok(slot)
        } else {
            let at = self.at_dispatch();
            let n = constant(self.ir, at, i128::from(count), self.t.i32, &self.location);
            let i64 = self.t.i64;
            Ok(emit(
                self.ir,
                at,
                "llvm.alloca",
                vec![n],
                &[self.t.ptr],
                vec![("alignment", int(i128::from(align), i64)), ("elem_type", Attribute::Type(elem))],
                &self.location,
            )
            .expect("result"))
        }
    }

    /// Private variables with an initializer get its value when the invocation starts
    /// (the old entry block runs once per invocation, in state 0): the global's
    /// initializer region is copied there and stored.
    fn initialize_private_variables(&mut self, entry: BlockId) -> Result<(), KernelError> {
        let initializers = std::mem::take(&mut self.private_initializers);
        for (base, global, align) in initializers {
            let location = self.ir.op(global).location.clone();
            let body =
                self.ir.op(global).regions.first().and_then(|&r| self.ir.region(r).blocks.first().copied());
            let value = body
                .and_then(|b| self.ir.block(b).ops.last().copied())
                .filter(|&ret| self.ir.op(ret).name == "llvm.return")
                .and_then(|ret| self.ir.op(ret).operands.first().copied())
                .ok_or_else(|| {
                    KernelError::new(&location, "a Private initializer region without its value".to_string())
                })?;
            let at = match self.ir.block(entry).ops.first() {
                Some(&first) => At::Before(entry, first),
                None => At::End(entry),
            };
            let mut clones = FxHashMap::default();
            let v = self.clone_tree(value, at, &mut clones);
            store(self.ir, at, v, base, align.clamp(1, 16), &location);
        }
        Ok(())
    }

    fn global_root(
        &mut self,
        name: &str,
        iface: &KernelInterface,
        globals: &FxHashMap<String, OpId>,
        builtins: &BuiltinInputs,
        layout: &mut KernelLayout,
    ) -> Result<Option<Root>, KernelError> {
        let Some(global) = iface.global(name) else { return Ok(None) };
        let Some(&gop) = globals.get(name) else {
            return Err(KernelError::new(
                &self.location,
                format!("the converted module has no global @{name}"),
            ));
        };
        let gty = match self.ir.op(gop).attr("global_type") {
            Some(Attribute::Type(t)) => *t,
            _ => return Err(KernelError::new(&self.location, format!("@{name} has no type"))),
        };
        let (_, size, align) = llvm_type_layout(self.ir, gty)
            .ok_or_else(|| KernelError::new(&self.location, format!("@{name}: a type without a size")))?;
        let at = self.at_dispatch();
        let loc = self.location.clone();
        Ok(Some(match &global.kind {
            GlobalKind::BuiltIn(b) => {
                let value = self.builtin_value(*b, builtins, gty)?;
                let one = constant(self.ir, at, 1, self.t.i32, &loc);
                let slot = emit(
                    self.ir,
                    at,
                    "llvm.alloca",
                    vec![one],
                    &[self.t.ptr],
                    vec![("alignment", int(16, self.t.i64)), ("elem_type", Attribute::Type(gty))],
                    &loc,
                )
                .expect("result");
                store(self.ir, at, value, slot, 4, &loc);
                self.builtin_slots.insert(slot);
                if b.is_workgroup_uniform() {
                    self.uniform_builtin_slots.insert(slot);
                }
                Root { base: slot, bytes: self.i64_constant(size), read_only: false, parallel: false }
            }
            GlobalKind::Descriptor(d) => {
                let index = layout.descriptors.len() as u64;
                layout.descriptors.push(DescriptorSlot {
                    name: name.to_string(),
                    set: d.set,
                    binding: d.binding,
                    storage: d.is_storage(),
                    fixed_size: d.fixed_size,
                    runtime_stride: d.runtime_stride,
                });
                let table = self.ctx_field(cx::BUFFERS, self.t.ptr);
                // The table holds a slot per descriptor: its loads may be hoisted out of
                // the branches they sink into (a bounds check's length, read by every
                // invocation of a loop, is then read once).
                if let ValueDef::Result { op, .. } = self.ir.value(table).def {
                    let bytes = (index + 1) * cx::BUFFER_SLOT;
                    self.ir.set_property(
                        op,
                        "dereferenceable",
                        dialect("llvm.dereferenceable", &format!("bytes = {bytes}")),
                    );
                }
                let off = self.i64_constant(index * cx::BUFFER_SLOT);
                let slot = byte_gep(self.ir, at, table, off, &loc);
                let base = load_invariant(self.ir, at, slot, self.t.ptr, 8, &loc);
                let eight = self.i64_constant(8);
                let len_ptr = byte_gep(self.ir, at, slot, eight, &loc);
                let bytes = load_invariant(self.ir, at, len_ptr, self.t.i64, 8, &loc);
                Root { base, bytes, read_only: !d.is_storage(), parallel: true }
            }
            GlobalKind::PushConstant { .. } => {
                layout.push_constant_bytes = Some(size);
                let base = self.ctx_field(cx::PUSH, self.t.ptr);
                let bytes = self.ctx_field(cx::PUSH_BYTES, self.t.i64);
                Root { base, bytes, read_only: true, parallel: true }
            }
            GlobalKind::Workgroup { .. } => {
                let offset = layout.workgroup_bytes.next_multiple_of(align.clamp(1, 64));
                layout.workgroup_bytes = offset + size;
                if layout.workgroup_bytes > 1 << 30 {
                    return Err(KernelError::new(&self.location, "workgroup memory over 1 GiB".to_string()));
                }
                let memory = self.ctx_field(cx::WORKGROUP_MEMORY, self.t.ptr);
                let off = self.i64_constant(offset);
                let base = byte_gep(self.ir, at, memory, off, &loc);
                Root { base, bytes: self.i64_constant(size), read_only: false, parallel: true }
            }
            GlobalKind::Private => {
                let has_initializer = self.ir.op(gop).regions.first().is_some_and(|&r| {
                    self.ir.region(r).blocks.iter().any(|&b| !self.ir.block(b).ops.is_empty())
                });
                let base = self.per_invocation(size, align, gty, 1)?;
                if has_initializer {
                    self.private_initializers.push((base, gop, align));
                }
                Root { base, bytes: self.i64_constant(size), read_only: false, parallel: self.frame_mode }
            }
        }))
    }

    fn builtin_value(&mut self, b: BuiltIn, inputs: &BuiltinInputs, ty: Type) -> Result<Value, KernelError> {
        let at = self.at_dispatch();
        let loc = self.location.clone();
        let i32 = self.t.i32;
        let size: Vec<Value> =
            inputs.size.iter().map(|&s| constant(self.ir, at, i128::from(s), i32, &loc)).collect();
        let lane = |p: &mut Self, parts: &[Value; 3]| -> Result<Value, KernelError> {
            if !matches!(p.ir.types.kind(ty), TypeKind::Vector { .. }) {
                return Err(KernelError::new(
                    &p.location,
                    format!("the built-in {b:?} is not a vector<3xi32>"),
                ));
            }
            let mut v = emit(p.ir, at, "llvm.mlir.poison", vec![], &[ty], vec![], &loc).expect("result");
            for (i, &part) in parts.iter().enumerate() {
                let idx = constant(p.ir, at, i as i128, i32, &loc);
                v = emit(p.ir, at, "llvm.insertelement", vec![v, part, idx], &[ty], vec![], &loc)
                    .expect("result");
            }
            Ok(v)
        };
        let local_index = |p: &mut Self| {
            let yz = arith(p.ir, at, "llvm.mul", inputs.local[2], size[1], &loc);
            let yz = arith(p.ir, at, "llvm.add", yz, inputs.local[1], &loc);
            let x = arith(p.ir, at, "llvm.mul", yz, size[0], &loc);
            arith(p.ir, at, "llvm.add", x, inputs.local[0], &loc)
        };
        Ok(match b {
            BuiltIn::LocalInvocationId => lane(self, &[inputs.local[0], inputs.local[1], inputs.local[2]])?,
            BuiltIn::WorkgroupId => lane(self, &[inputs.group[0], inputs.group[1], inputs.group[2]])?,
            BuiltIn::WorkgroupSize => lane(self, &[size[0], size[1], size[2]])?,
            BuiltIn::GlobalInvocationId => {
                let mut parts = [inputs.local[0]; 3];
                for (i, part) in parts.iter_mut().enumerate() {
                    let base = arith(self.ir, at, "llvm.mul", inputs.group[i], size[i], &loc);
                    *part = arith(self.ir, at, "llvm.add", base, inputs.local[i], &loc);
                }
                lane(self, &parts)?
            }
            BuiltIn::NumWorkgroups => {
                let mut parts = [inputs.local[0]; 3];
                let ptr = self.t.ptr;
                for (i, part) in parts.iter_mut().enumerate() {
                    let off = self.i64_constant(cx::NUM_WORKGROUPS + 4 * i as u64);
                    let p = byte_gep(self.ir, at, self.ctx, off, &loc);
                    let _ = ptr;
                    *part = load_invariant(self.ir, at, p, i32, 4, &loc);
                }
                lane(self, &parts)?
            }
            BuiltIn::LocalInvocationIndex | BuiltIn::SubgroupId => local_index(self),
            // Subgroups of one invocation.
            BuiltIn::SubgroupSize => constant(self.ir, at, 1, i32, &loc),
            BuiltIn::SubgroupLocalInvocationId => constant(self.ir, at, 0, i32, &loc),
            BuiltIn::NumSubgroups => {
                let n = u64::from(inputs.size[0]) * u64::from(inputs.size[1]) * u64::from(inputs.size[2]);
                constant(self.ir, at, i128::from(n), i32, &loc)
            }
        })
    }

    /// Bounds-checks every memory access of `blocks` against its root. A load or store
    /// is predicated (`if in range: access`, a load's value zero otherwise), which LLVM's
    /// loop vectorizer turns into masked vector accesses of contiguous memory; an atomic
    /// is pointed at the sink page when out of range. Returns the blocks the checks
    /// split off (to be placed in the region after their block).
    fn bounds_checks(
        &mut self,
        region: RegionId,
        func: OpId,
        roots: &FxHashMap<Value, Root>,
    ) -> Result<(), KernelError> {
        let mut limits: FxHashMap<(Value, u64), Value> = FxHashMap::default();
        let mut zeros: FxHashMap<Type, Value> = FxHashMap::default();
        let sink_page = self.ctx_field(cx::SINK_PAGE, self.t.ptr);
        let mut replaced: FxHashMap<Value, Value> = FxHashMap::default();
        let mut work: Vec<BlockId> = self.ir.region(region).blocks[1..].to_vec();
        work.reverse();
        while let Some(b) = work.pop() {
            for op in self.ir.block(b).ops.clone() {
                let (ptr_index, accessed, kind) = match self.ir.op(op).name.as_str() {
                    "llvm.load" => (0, self.ir.value_type(self.ir.op(op).results[0]), Access::Load),
                    "llvm.store" => (1, self.ir.value_type(self.ir.op(op).operands[0]), Access::Store),
                    "llvm.atomicrmw" => (0, self.ir.value_type(self.ir.op(op).operands[1]), Access::Atomic),
                    "llvm.cmpxchg" => (0, self.ir.value_type(self.ir.op(op).operands[1]), Access::Atomic),
                    name if name.starts_with("llvm.intr.mem") => {
                        return Err(KernelError::new(
                            &self.ir.op(op).location,
                            format!("not supported yet: {name} in a kernel"),
                        ));
                    }
                    _ => continue,
                };
                let loc = self.ir.op(op).location.clone();
                let pointer = self.ir.op(op).operands[ptr_index];
                let root = find_root(self.ir, pointer, roots).map_err(|m| KernelError::new(&loc, m))?;
                // A built-in read whole or by a constant component: in range by
                // construction (and left a plain load, so values computed from built-ins
                // can be recomputed after a barrier).
                if self.builtin_slots.contains(&root.base) && self.builtin_read_in_range(pointer, root.base) {
                    continue;
                }
                let (size, _, _) = llvm_type_layout(self.ir, accessed).ok_or_else(|| {
                    KernelError::new(&loc, "an access of a type without a size".to_string())
                })?;
                if size > cx::ZERO_PAGE_BYTES {
                    return Err(KernelError::new(
                        &loc,
                        format!("not supported yet: one access of {size} bytes"),
                    ));
                }
                let limit = match limits.get(&(root.bytes, size)) {
                    Some(&l) => l,
                    None => {
                        // off < limit  <=>  off + size <= bytes, with limit 0 when the
                        // root is smaller than the access.
                        let at = self.at_dispatch();
                        let size_v = self.i64_constant(size);
                        let fits = icmp(self.ir, at, UGE, root.bytes, size_v, &self.location);
                        let minus = self.i64_constant(size - 1);
                        let room = arith(self.ir, at, "llvm.sub", root.bytes, minus, &self.location);
                        let zero = self.i64_constant(0);
                        let l = select(self.ir, at, fits, room, zero, &self.location);
                        limits.insert((root.bytes, size), l);
                        l
                    }
                };
                let at = At::Before(b, op);
                let i64 = self.t.i64;
                let p_int =
                    emit(self.ir, at, "llvm.ptrtoint", vec![pointer], &[i64], vec![], &loc).expect("result");
                let base_int = emit(self.ir, at, "llvm.ptrtoint", vec![root.base], &[i64], vec![], &loc)
                    .expect("result");
                let offset = arith(self.ir, at, "llvm.sub", p_int, base_int, &loc);
                let ok = icmp(self.ir, at, ULT, offset, limit, &loc);
                if kind == Access::Load && root.read_only {
                    // Read-only memory: branch-free, an out-of-range read reads the zero
                    // page, so the load stays a pure value (recomputed after a barrier).
                    let zero_page = self.ctx_field(cx::ZERO_PAGE, self.t.ptr);
                    let checked = select(self.ir, at, ok, pointer, zero_page, &loc);
                    self.ir.op_mut(op).operands[ptr_index] = checked;
                    self.ir.set_property(op, "invariant", Attribute::Unit);
                    continue;
                }
                if kind == Access::Atomic {
                    let checked = select(self.ir, at, ok, pointer, sink_page, &loc);
                    self.ir.op_mut(op).operands[ptr_index] = checked;
                    continue;
                }
                // Atomics stay out of the group: two invocations may hit one word.
                if root.parallel && !self.serial_accesses.contains(&op) {
                    self.ir.set_property(op, "access_groups", invocation_access_groups());
                }
                // b: ...checks; cond_br ok, then, join(zero) | then: access; br join(v)
                // | join(v): the rest of b.
                let ops = self.ir.block(b).ops.clone();
                let pos = ops.iter().position(|&o| o == op).expect("in its block");
                let rest = ops[pos + 1..].to_vec();
                self.ir.block_mut(b).ops.truncate(pos);
                let then = self.ir.create_block();
                let join = self.ir.create_block();
                self.ir.append_op(then, op);
                for o in rest {
                    self.ir.append_op(join, o);
                }
                let blocks = &mut self.ir.region_mut(region).blocks;
                let at_b = blocks.iter().position(|&x| x == b).expect("block in region");
                blocks.insert(at_b + 1, join);
                blocks.insert(at_b + 1, then);
                self.ir.block_mut(then).parent = Some(region);
                self.ir.block_mut(join).parent = Some(region);
                if kind == Access::Load {
                    if root.read_only {
                        self.ir.set_property(op, "invariant", Attribute::Unit);
                    }
                    let zero = match zeros.get(&accessed) {
                        Some(&z) => z,
                        None => {
                            let z = emit(
                                self.ir,
                                self.at_dispatch(),
                                "llvm.mlir.zero",
                                vec![],
                                &[accessed],
                                vec![],
                                &self.location,
                            )
                            .expect("result");
                            zeros.insert(accessed, z);
                            z
                        }
                    };
                    let value = self.ir.add_block_argument(join, accessed, loc.clone());
                    let loaded = self.ir.op(op).results[0];
                    replaced.insert(loaded, value);
                    cond_branch(self.ir, At::End(b), ok, then, vec![], join, vec![zero], &loc);
                    branch(self.ir, At::End(then), join, vec![loaded], &loc);
                } else {
                    cond_branch(self.ir, At::End(b), ok, then, vec![], join, vec![], &loc);
                    branch(self.ir, At::End(then), join, vec![], &loc);
                }
                work.push(join);
                break;
            }
        }
        // The loaded values' other uses take the join's argument (the load itself
        // feeds only the branch to the join).
        let branches: FxHashSet<OpId> = replaced
            .keys()
            .filter_map(|&v| match self.ir.value(v).def {
                ValueDef::Result { op, .. } => {
                    self.ir.op(op).parent.and_then(|b| self.ir.block(b).ops.last().copied())
                }
                _ => None,
            })
            .collect();
        for (_, op) in self.ir.ops_under(func) {
            if branches.contains(&op) {
                continue;
            }
            for i in 0..self.ir.op(op).operands.len() {
                let v = self.ir.op(op).operands[i];
                if let Some(&to) = replaced.get(&v) {
                    self.ir.op_mut(op).operands[i] = to;
                }
            }
        }
        Ok(())
    }

    /// Values live into a resume block are kept in the invocation's frame: stored
    /// where they are defined, loaded where they are used (each segment's SSA values
    /// then dominate their uses again).
    fn spill_live_values(&mut self, region: RegionId, resume_blocks: &[BlockId]) -> Result<(), KernelError> {
        let blocks: Vec<BlockId> = self.ir.region(region).blocks.clone();
        let live_in = liveness(self.ir, &blocks);
        let mut spilled: Vec<Value> = Vec::new();
        let mut seen = FxHashSet::default();
        for b in resume_blocks {
            for &v in live_in.get(b).into_iter().flatten() {
                if seen.insert(v) && !defined_in(self.ir, v, self.dispatch) {
                    spilled.push(v);
                }
            }
        }
        spilled.sort_by_key(|v| v.index());
        // Uses, found once.
        let mut uses: FxHashMap<Value, Vec<(BlockId, OpId)>> = FxHashMap::default();
        let wanted: FxHashSet<Value> = spilled.iter().copied().collect();
        for &b in &blocks {
            for &op in &self.ir.block(b).ops {
                for &v in &self.ir.op(op).operands {
                    if wanted.contains(&v) {
                        let list = uses.entry(v).or_default();
                        if list.last() != Some(&(b, op)) {
                            list.push((b, op));
                        }
                    }
                }
            }
        }
        // Values computed from what every call recomputes (the dispatch block's values,
        // built-ins, read-only memory) by pure ops are recomputed after a barrier rather
        // than kept in the frame.
        let mut remat_memo: FxHashMap<Value, bool> = FxHashMap::default();
        let (recomputed, spilled): (Vec<Value>, Vec<Value>) =
            spilled.into_iter().partition(|&v| self.rematerializable(v, &mut remat_memo, 0));
        for v in recomputed {
            for &(b, op) in uses.get(&v).into_iter().flatten() {
                let mut clones = FxHashMap::default();
                let value = self.clone_tree(v, At::Before(b, op), &mut clones);
                for operand in self.ir.op_mut(op).operands.iter_mut() {
                    if *operand == v {
                        *operand = value;
                    }
                }
            }
        }
        // Uniform values whose later uses cannot see the same call's definition get one
        // slot for the workgroup.
        let divergence = super::divergence::Divergence::analyze_with_uniform_allocas(
            self.ir,
            region,
            &self.local_ids,
            &self.uniform_builtin_slots,
        );
        let mut uniform = Vec::new();
        let mut varying = Vec::new();
        for v in spilled {
            let direct = if divergence.is_uniform(v) {
                direct_uses(self.ir, &divergence.cfg, v, uses.get(&v).map(Vec::as_slice).unwrap_or(&[]))
            } else {
                None
            };
            match direct {
                Some(direct) => uniform.push((v, direct)),
                None => varying.push(v),
            }
        }
        for v in varying {
            let ty = self.ir.value_type(v);
            let (_, size, align) = llvm_type_layout(self.ir, ty).ok_or_else(|| {
                KernelError::new(
                    &self.location,
                    "a value live across a barrier has a type without a size".to_string(),
                )
            })?;
            let slot = self.per_invocation(size, align, ty, 1)?;
            let loc = self.location.clone();
            for &(b, op) in uses.get(&v).into_iter().flatten() {
                let loaded = load(self.ir, At::Before(b, op), slot, ty, align, &loc);
                mark_parallel(self.ir, loaded);
                for operand in self.ir.op_mut(op).operands.iter_mut() {
                    if *operand == v {
                        *operand = loaded;
                    }
                }
            }
            // The store right after the definition.
            match self.ir.value(v).def {
                ValueDef::Argument { block, .. } => {
                    let at = match self.ir.block(block).ops.first() {
                        Some(&first) => At::Before(block, first),
                        None => At::End(block),
                    };
                    let stored = store(self.ir, at, v, slot, align, &loc);
                    self.ir.set_property(stored, "access_groups", invocation_access_groups());
                }
                ValueDef::Result { op, .. } => {
                    let block = self.ir.op(op).parent.expect("defined in a block");
                    let ops = &self.ir.block(block).ops;
                    let pos = ops.iter().position(|&o| o == op).expect("in its block");
                    let at = match ops.get(pos + 1) {
                        Some(&next) => At::Before(block, next),
                        None => At::End(block),
                    };
                    let stored = store(self.ir, at, v, slot, align, &loc);
                    self.ir.set_property(stored, "access_groups", invocation_access_groups());
                }
            }
        }
        self.spill_uniform_values(&uniform, &uses)
    }

    /// Gives each uniform value of `values` (with, per use, whether the definition
    /// reaches it within the call) a slot in the uniform areas: a store to the write
    /// area after the definition, loads of the read area at the uses it does not reach.
    #[allow(clippy::type_complexity)]
    fn spill_uniform_values(
        &mut self,
        values: &[(Value, Vec<bool>)],
        uses: &FxHashMap<Value, Vec<(BlockId, OpId)>>,
    ) -> Result<(), KernelError> {
        if values.is_empty() {
            return Ok(());
        }
        let mut slots = Vec::new();
        let mut bytes = 0u64;
        for &(v, _) in values {
            let ty = self.ir.value_type(v);
            let (_, size, align) = llvm_type_layout(self.ir, ty).ok_or_else(|| {
                KernelError::new(
                    &self.location,
                    "a value live across a barrier has a type without a size".to_string(),
                )
            })?;
            let align = align.clamp(1, 16);
            let offset = bytes.next_multiple_of(align);
            bytes = offset + size;
            slots.push((offset, ty, align));
        }
        let invocations: u64 = self.workgroup_size.iter().map(|&d| u64::from(d)).product();
        let area = self.frame_bytes.next_multiple_of(16) * invocations;
        let bytes = bytes.next_multiple_of(16);
        if area + bytes > 1 << 32 {
            return Err(KernelError::new(&self.location, "frames over 4 GiB".to_string()));
        }
        let loc = self.location.clone();
        for (&(v, ref direct), &(offset, ty, align)) in values.iter().zip(&slots) {
            let at = self.at_dispatch();
            let write_offset = self.i64_constant(area + offset);
            let write = byte_gep(self.ir, at, self.frames_arg, write_offset, &loc);
            let parameter = self.ir.add_block_argument(self.dispatch, ty, loc.clone());
            for (&(_, op), &direct) in uses.get(&v).into_iter().flatten().zip(direct) {
                if direct {
                    continue;
                }
                for operand in self.ir.op_mut(op).operands.iter_mut() {
                    if *operand == v {
                        *operand = parameter;
                    }
                }
            }
            let at = match self.ir.value(v).def {
                ValueDef::Argument { block, .. } => match self.ir.block(block).ops.first() {
                    Some(&first) => At::Before(block, first),
                    None => At::End(block),
                },
                ValueDef::Result { op, .. } => {
                    let block = self.ir.op(op).parent.expect("defined in a block");
                    let ops = &self.ir.block(block).ops;
                    let pos = ops.iter().position(|&o| o == op).expect("in its block");
                    match ops.get(pos + 1) {
                        Some(&next) => At::Before(block, next),
                        None => At::End(block),
                    }
                }
            };
            let stored = store(self.ir, at, v, write, align, &loc);
            self.ir.set_property(stored, "access_groups", invocation_access_groups());
        }
        self.uniform_spills = UniformSpills { area, bytes, slots };
        Ok(())
    }

    /// A per-invocation variable written once, whole, in the kernel's first block (before
    /// any barrier) with a value every call can recompute (a copy of a built-in, a value
    /// of the group id or of a uniform buffer) is not kept in the frame: its loads (whole,
    /// or of one vector component) become the recomputation. Frame slots read in every
    /// segment would otherwise be strided or gathered across the invocation loop.
    fn forward_write_once_variables(&mut self, region: RegionId, func: OpId, first: BlockId) {
        let blocks: Vec<BlockId> = self.ir.region(region).blocks[1..].to_vec();
        let variables: FxHashSet<Value> = self.frame_variables.iter().copied().collect();
        // Per variable: its stores, its whole loads, its component loads (load, index);
        // a variable used any other way is left alone.
        #[derive(Default)]
        struct Uses {
            stores: Vec<OpId>,
            whole: Vec<OpId>,
            parts: Vec<(OpId, i128)>,
            other: bool,
        }
        let mut uses: FxHashMap<Value, Uses> = FxHashMap::default();
        let mut components: FxHashMap<Value, (Value, i128)> = FxHashMap::default();
        for &b in &blocks {
            for &op in &self.ir.block(b).ops {
                let o = self.ir.op(op);
                for (i, &v) in o.operands.iter().enumerate() {
                    if let Some(&(var, index)) = components.get(&v) {
                        let u = uses.entry(var).or_default();
                        if o.name == "llvm.load" && i == 0 {
                            u.parts.push((op, index));
                        } else {
                            u.other = true;
                        }
                        continue;
                    }
                    if !variables.contains(&v) {
                        continue;
                    }
                    let u = uses.entry(v).or_default();
                    match (o.name.as_str(), i) {
                        ("llvm.load", 0) => u.whole.push(op),
                        ("llvm.store", 1) => u.stores.push(op),
                        ("llvm.getelementptr", 0) => match vector_component(self.ir, op) {
                            Some(index) => {
                                components.insert(o.results[0], (v, index));
                            }
                            None => u.other = true,
                        },
                        _ => u.other = true,
                    }
                }
            }
        }
        let first_barrier = self.ir.block(first).ops.iter().position(|&op| {
            self.ir.op(op).name == "llvm.call"
                && symbol_of(self.ir, op, "callee").as_deref() == Some(CONTROL_BARRIER)
        });
        let mut memo = FxHashMap::default();
        let mut replaced: FxHashMap<Value, Value> = FxHashMap::default();
        let mut variables: Vec<Value> = uses.keys().copied().collect();
        variables.sort_by_key(|v| v.index());
        for var in variables {
            let u = &uses[&var];
            let [store] = u.stores[..] else { continue };
            if u.other || self.ir.op(store).parent != Some(first) {
                continue;
            }
            let position = self.ir.block(first).ops.iter().position(|&o| o == store);
            if first_barrier.is_some_and(|barrier| position > Some(barrier)) {
                continue;
            }
            let value = self.ir.op(store).operands[0];
            let ty = self.ir.value_type(value);
            let whole_ok = u.whole.iter().all(|&l| self.ir.value_type(self.ir.op(l).results[0]) == ty);
            let element = match self.ir.types.kind(ty) {
                TypeKind::Vector { element, .. } => Some(*element),
                _ => None,
            };
            let parts_ok =
                u.parts.iter().all(|&(l, _)| Some(self.ir.value_type(self.ir.op(l).results[0])) == element);
            if !whole_ok || !parts_ok || !self.rematerializable(value, &mut memo, 0) {
                continue;
            }
            let (whole, parts) = (u.whole.clone(), u.parts.clone());
            for l in whole {
                let b = self.ir.op(l).parent.expect("in a block");
                let mut clones = FxHashMap::default();
                let v = self.clone_tree(value, At::Before(b, l), &mut clones);
                replaced.insert(self.ir.op(l).results[0], v);
                self.ir.erase_op(l);
            }
            for (l, index) in parts {
                let b = self.ir.op(l).parent.expect("in a block");
                let at = At::Before(b, l);
                let mut clones = FxHashMap::default();
                let v = self.clone_tree(value, at, &mut clones);
                let i = constant(self.ir, at, index, self.t.i32, &self.location);
                let el = element.expect("a vector");
                let part =
                    emit(self.ir, at, "llvm.extractelement", vec![v, i], &[el], vec![], &self.location)
                        .expect("result");
                replaced.insert(self.ir.op(l).results[0], part);
                self.ir.erase_op(l);
            }
            self.ir.erase_op(store);
        }
        crate::legalize::util::replace_uses(self.ir, func, &replaced);
    }

    /// Whether `v` can be recomputed anywhere in the function from the dispatch block's
    /// values by pure ops (loads only of built-ins and read-only memory).
    fn rematerializable(&self, v: Value, memo: &mut FxHashMap<Value, bool>, depth: u32) -> bool {
        if defined_in(self.ir, v, self.dispatch) {
            return true;
        }
        if let Some(&known) = memo.get(&v) {
            return known;
        }
        let ValueDef::Result { op, .. } = self.ir.value(v).def else { return false };
        let o = self.ir.op(op);
        let pure = match o.name.as_str() {
            "llvm.load" => {
                o.attr("invariant").is_some()
                    || o.operands.first().is_some_and(|&p| {
                        (self.builtin_slots.contains(&p)
                            || find_root(self.ir, p, &self.roots).is_ok_and(|r| {
                                self.builtin_slots.contains(&r.base) && self.builtin_read_in_range(p, r.base)
                            }))
                            || (o.attr("volatile_").is_none()
                                && matches!(
                                    o.attr("ordering"),
                                    None | Some(Attribute::Integer { value: 0, .. })
                                )
                                && find_root(self.ir, p, &self.roots)
                                    .is_ok_and(|r| self.read_only_bases.contains(&r.base)))
                    })
            }
            name => PURE_OPS.contains(&name) && o.regions.is_empty() && o.results.len() == 1,
        };
        let result = pure
            && depth < 32
            && o.operands.clone().into_iter().all(|operand| self.rematerializable(operand, memo, depth + 1));
        memo.insert(v, result);
        result
    }

    /// Whether `pointer` is the built-in slot `slot` itself or a constant component of
    /// its vector (`slot[0][i]`, i < 3): a read that cannot leave the slot.
    fn builtin_read_in_range(&self, pointer: Value, slot: Value) -> bool {
        if pointer == slot {
            return true;
        }
        let ValueDef::Result { op, .. } = self.ir.value(pointer).def else { return false };
        self.ir.op(op).name == "llvm.getelementptr"
            && self.ir.op(op).operands.first() == Some(&slot)
            && vector_component(self.ir, op).is_some_and(|i| i < 3)
    }

    /// A copy of `v`'s computation at `at` (the dispatch block's values are used as
    /// they are).
    fn clone_tree(&mut self, v: Value, at: At, clones: &mut FxHashMap<Value, Value>) -> Value {
        if defined_in(self.ir, v, self.dispatch) {
            return v;
        }
        if let Some(&c) = clones.get(&v) {
            return c;
        }
        let ValueDef::Result { op, .. } = self.ir.value(v).def else { return v };
        let operands: Vec<Value> = self.ir.op(op).operands.clone();
        let operands: Vec<Value> = operands.into_iter().map(|o| self.clone_tree(o, at, clones)).collect();
        let original = self.ir.op(op).clone();
        let result_types: Vec<Type> = original.results.iter().map(|&r| self.ir.value_type(r)).collect();
        let new =
            self.ir.create_op(original.name.clone(), operands, &result_types, original.location.clone());
        self.ir.op_mut(new).properties = original.properties.clone();
        self.ir.op_mut(new).attributes = original.attributes.clone();
        place(self.ir, at, new);
        let c = self.ir.op(new).results[0];
        clones.insert(v, c);
        c
    }

    /// At each loop header (the target of a back-edge) a per-call countdown is
    /// decremented; once it is below one, the cancel flag is read at every header pass,
    /// and when the flag is set the invocation returns `STATE_CANCELLED`.
    ///
    /// A run that does not end passes loop headers without bound, so after
    /// [`POLL_INTERVAL`] passes in one call it reads the flag at each pass (as often as
    /// an unconditional poll; the countdown is an i64, it never wraps back). The countdown
    /// starts at a constant and is never reset, so it is an affine induction variable:
    /// in a loop whose trip count LLVM can bound below the interval (constant-trip
    /// loops, not nested in another loop of the same segment) the test folds to false
    /// and the poll disappears, and the loop unrolls or vectorizes as if it had none.
    /// An atomic read at every back-edge blocked both.
    fn poll_cancel_at_back_edges(&mut self, region: RegionId) -> Result<(), KernelError> {
        let headers = loop_headers(self.ir, region, self.dispatch);
        if headers.is_empty() {
            return Ok(());
        }
        let loc = self.location.clone();
        let (i32, i64, ptr) = (self.t.i32, self.t.i64, self.t.ptr);
        let flag_ptr = self.ctx_field(cx::CANCEL, ptr);
        // The countdown's slot: an alloca in the entry block, which LLVM promotes to SSA.
        let at = self.at_dispatch();
        let one = constant(self.ir, at, 1, i32, &loc);
        let slot = emit(
            self.ir,
            at,
            "llvm.alloca",
            vec![one],
            &[ptr],
            vec![("alignment", int(8, i64)), ("elem_type", Attribute::Type(i64))],
            &loc,
        )
        .expect("result");
        let interval = constant(self.ir, at, i128::from(POLL_INTERVAL), i64, &loc);
        store(self.ir, at, interval, slot, 8, &loc);
        let exit = self.ir.create_block();
        self.ir.append_block(region, exit);
        let cancelled = constant(self.ir, At::End(exit), i128::from(cx::STATE_CANCELLED as i32), i32, &loc);
        ret(self.ir, At::End(exit), Some(cancelled), &loc);
        for h in headers {
            let rest = self.ir.create_block();
            let poll = self.ir.create_block();
            let ops = std::mem::take(&mut self.ir.block_mut(h).ops);
            for o in ops {
                self.ir.append_op(rest, o);
            }
            // Keep the region's block order readable: the poll and the rest follow
            // their header.
            let blocks = &mut self.ir.region_mut(region).blocks;
            let pos = blocks.iter().position(|&b| b == h).expect("header in region");
            blocks.insert(pos + 1, poll);
            blocks.insert(pos + 2, rest);
            self.ir.block_mut(poll).parent = Some(region);
            self.ir.block_mut(rest).parent = Some(region);

            let hat = At::End(h);
            let count = load(self.ir, hat, slot, i64, 8, &loc);
            let one = constant(self.ir, hat, 1, i64, &loc);
            let left = arith(self.ir, hat, "llvm.sub", count, one, &loc);
            store(self.ir, hat, left, slot, 8, &loc);
            let due = icmp(self.ir, hat, SLT, left, one, &loc);
            cond_branch(self.ir, hat, due, poll, vec![], rest, vec![], &loc);

            let pat = At::End(poll);
            let flag = emit(
                self.ir,
                pat,
                "llvm.load",
                vec![flag_ptr],
                &[i32],
                vec![("alignment", int(4, i64)), ("ordering", int(2, i64))],
                &loc,
            )
            .expect("result");
            let zero = constant(self.ir, pat, 0, i32, &loc);
            let stop = icmp(self.ir, pat, NE, flag, zero, &loc);
            cond_branch(self.ir, pat, stop, exit, vec![], rest, vec![], &loc);
        }
        Ok(())
    }
}

/// Loop header passes in one call before the cancel flag is read (then at every
/// pass). Large enough that loops with constant trip counts (tiles, unrolled inner
/// loops) never reach it, small enough that a runaway loop reads the flag within
/// about a millisecond per instruction of its body.
pub const POLL_INTERVAL: u32 = 1 << 16;

/// Ops without memory effects or control flow, safe to recompute.
const PURE_OPS: &[&str] = &[
    "llvm.mlir.constant",
    "llvm.mlir.zero",
    "llvm.mlir.poison",
    "llvm.mlir.undef",
    "llvm.getelementptr",
    "llvm.extractelement",
    "llvm.insertelement",
    "llvm.extractvalue",
    "llvm.insertvalue",
    "llvm.shufflevector",
    "llvm.add",
    "llvm.sub",
    "llvm.mul",
    "llvm.and",
    "llvm.or",
    "llvm.xor",
    "llvm.shl",
    "llvm.lshr",
    "llvm.ashr",
    "llvm.zext",
    "llvm.sext",
    "llvm.trunc",
    "llvm.icmp",
    "llvm.select",
    "llvm.bitcast",
    "llvm.ptrtoint",
    "llvm.inttoptr",
    "llvm.uitofp",
    "llvm.sitofp",
    "llvm.fadd",
    "llvm.fsub",
    "llvm.fmul",
    "llvm.fneg",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Load,
    Store,
    Atomic,
}

fn defined_in(ir: &Ir, v: Value, block: BlockId) -> bool {
    match ir.value(v).def {
        ValueDef::Argument { block: b, .. } => b == block,
        ValueDef::Result { op, .. } => ir.op(op).parent == Some(block),
    }
}

fn find_root(ir: &Ir, mut v: Value, roots: &FxHashMap<Value, Root>) -> Result<Root, String> {
    for _ in 0..10_000 {
        if let Some(r) = roots.get(&v) {
            return Ok(*r);
        }
        match ir.value(v).def {
            ValueDef::Result { op, .. } => match ir.op(op).name.as_str() {
                "llvm.getelementptr" | "llvm.bitcast" | "llvm.addrspacecast" => v = ir.op(op).operands[0],
                other => return Err(format!("not supported yet: a memory access through a pointer made by {other} (its buffer cannot be determined)")),
            },
            ValueDef::Argument { .. } => {
                return Err("not supported yet: a memory access through a pointer chosen by control flow (its buffer cannot be determined)".into())
            }
        }
    }
    Err("a pointer chain too long".into())
}

/// For a value kept across a barrier, per use: whether its definition dominates the
/// use within a call (the use reads the value itself). `None` when some use is reached
/// from the definition in the same call without being dominated by it: such a use
/// could see either a fresh or a kept value, which one slot per workgroup cannot give.
fn direct_uses(
    ir: &Ir,
    cfg: &super::divergence::Cfg,
    v: Value,
    uses: &[(BlockId, OpId)],
) -> Option<Vec<bool>> {
    let def_block = match ir.value(v).def {
        ValueDef::Argument { block, .. } => block,
        ValueDef::Result { op, .. } => ir.op(op).parent?,
    };
    let d = cfg.index_of(def_block)?;
    let mut reached: FxHashSet<usize> = FxHashSet::default();
    let mut work: Vec<usize> = cfg.successors(d).to_vec();
    while let Some(b) = work.pop() {
        if reached.insert(b) {
            work.extend(cfg.successors(b).iter().copied());
        }
    }
    uses.iter()
        .map(|&(b, _)| match cfg.index_of(b) {
            Some(u) if cfg.dominates(d, u) => Some(true),
            Some(u) if reached.contains(&u) => None,
            _ => Some(false),
        })
        .collect()
}

fn successors_of(ir: &Ir, b: BlockId) -> Vec<BlockId> {
    ir.block(b).ops.last().map(|&t| ir.op(t).successors.to_vec()).unwrap_or_default()
}

/// Live-in values per block (block arguments are defined by their block; successor
/// operands are used by the predecessor's terminator).
fn liveness(ir: &Ir, blocks: &[BlockId]) -> FxHashMap<BlockId, Vec<Value>> {
    let mut uses: FxHashMap<BlockId, FxHashSet<Value>> = FxHashMap::default();
    let mut defs: FxHashMap<BlockId, FxHashSet<Value>> = FxHashMap::default();
    for &b in blocks {
        let mut d: FxHashSet<Value> = ir.block(b).arguments.iter().copied().collect();
        let mut u = FxHashSet::default();
        for &op in &ir.block(b).ops {
            for &v in &ir.op(op).operands {
                if !d.contains(&v) {
                    u.insert(v);
                }
            }
            d.extend(ir.op(op).results.iter().copied());
        }
        uses.insert(b, u);
        defs.insert(b, d);
    }
    let mut live_in: FxHashMap<BlockId, FxHashSet<Value>> =
        blocks.iter().map(|&b| (b, uses[&b].clone())).collect();
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 10_000 {
        changed = false;
        rounds += 1;
        for &b in blocks.iter().rev() {
            let mut out: FxHashSet<Value> = FxHashSet::default();
            for s in successors_of(ir, b) {
                if let Some(l) = live_in.get(&s) {
                    out.extend(l.iter().copied());
                }
            }
            let entry = live_in.get_mut(&b).expect("block");
            for v in out {
                if !defs[&b].contains(&v) && entry.insert(v) {
                    changed = true;
                }
            }
        }
    }
    live_in.into_iter().map(|(b, s)| (b, s.into_iter().collect())).collect()
}

/// Targets of back-edges in a depth-first walk from `entry`.
fn loop_headers(ir: &Ir, region: RegionId, entry: BlockId) -> Vec<BlockId> {
    let _ = region;
    let mut headers = Vec::new();
    let mut state: FxHashMap<BlockId, u8> = FxHashMap::default(); // 1 on stack, 2 done
    let mut stack: Vec<(BlockId, Vec<BlockId>)> = vec![(entry, successors_of(ir, entry))];
    state.insert(entry, 1);
    while let Some((b, succs)) = stack.last_mut() {
        let b = *b;
        if let Some(s) = succs.pop() {
            match state.get(&s) {
                Some(1) => {
                    if !headers.contains(&s) {
                        headers.push(s);
                    }
                }
                Some(_) => {}
                None => {
                    state.insert(s, 1);
                    let next = successors_of(ir, s);
                    stack.push((s, next));
                }
            }
        } else {
            state.insert(b, 2);
            stack.pop();
        }
    }
    headers
}

/// What the workgroup function's rounds are made of.
struct Rounds<'a> {
    /// The workgroup size.
    size: [u32; 3],
    /// The resume states: 1 + the number of barriers.
    states: usize,
    /// Each invocation's frame, in bytes.
    frame_bytes: u64,
    /// The uniform values' (offset, type, alignment) in the frames: loaded before each
    /// state's invocation loops and passed to every invocation after its state.
    uniform_slots: &'a [(u64, Type, u64)],
}

/// The `spirvkit_workgroup(ptr noalias ctx, i32 gx, i32 gy, i32 gz)` function the
/// runtime calls, appended to the module with an empty entry block: (body, entry,
/// ctx, group ids). Its loop over the invocations is the caller's.
pub(super) fn workgroup_function_shell(
    ir: &mut Ir,
    module_block: BlockId,
    loc: &Location,
) -> (RegionId, BlockId, Value, Vec<Value>) {
    let ptr = ir.types.llvm_pointer(0);
    let i32 = ir.types.integer(32, Signedness::Signless);
    let i64 = ir.types.integer(64, Signedness::Signless);
    let void = ir.types.llvm_void();
    let fty = ir.types.llvm_function(void, vec![ptr, i32, i32, i32], false);
    let func = make(
        ir,
        "llvm.func",
        vec![],
        &[],
        vec![
            ("CConv", dialect("llvm.cconv", "ccc")),
            // The context is not written through any other pointer: its loads hoist
            // out of the invocation loop, also from branches (it is dereferenceable).
            (
                "arg_attrs",
                Attribute::Array(vec![
                    Attribute::Dictionary(vec![
                        NamedAttribute::new("llvm.align", int(8, i64)),
                        NamedAttribute::new("llvm.dereferenceable", int(i128::from(cx::SIZE), i64)),
                        NamedAttribute::new("llvm.noalias", Attribute::Unit),
                    ]),
                    Attribute::Dictionary(vec![]),
                    Attribute::Dictionary(vec![]),
                    Attribute::Dictionary(vec![]),
                ]),
            ),
            ("function_type", Attribute::Type(fty)),
            ("linkage", dialect("llvm.linkage", "external")),
            ("sym_name", Attribute::String(cx::WORKGROUP_FUNCTION.into())),
            ("unnamed_addr", int(0, i64)),
            ("visibility_", int(0, i64)),
        ],
        loc,
    );
    ir.append_op(module_block, func);
    let region = ir.add_region(func);
    let entry = ir.create_block();
    ir.append_block(region, entry);
    let ctx = ir.add_block_argument(entry, ptr, loc.clone());
    let groups: Vec<Value> = (0..3).map(|_| ir.add_block_argument(entry, i32, loc.clone())).collect();
    (region, entry, ctx, groups)
}

/// `spirvkit_workgroup(ctx, gx, gy, gz)`: rounds of the z, y, x invocation loops
/// until the invocations return done (one round without barriers).
///
/// The resume state is uniform (barriers are in uniform control flow), so each round
/// switches on it *outside* the invocation loops: state k has its own loop nest calling
/// the (always inlined) invocation with the constant k, which LLVM folds to that one
/// segment. The loops are parallel for the invocations' access group, and the round's
/// next state is the minimum the invocations return (all equal in a valid shader; a
/// cancelled invocation never hides behind "done").
fn build_workgroup_loop(ir: &mut Ir, module_block: BlockId, t: &Types, rounds: &Rounds, loc: &Location) {
    let &Rounds { size, states, frame_bytes, uniform_slots } = rounds;
    let (region, entry, ctx, groups) = workgroup_function_shell(ir, module_block, loc);
    let at = At::End(entry);
    let one = constant(ir, at, 1, t.i32, loc);
    let next_slot = emit(
        ir,
        at,
        "llvm.alloca",
        vec![one],
        &[t.ptr],
        vec![("alignment", int(4, t.i64)), ("elem_type", Attribute::Type(t.i32))],
        loc,
    )
    .expect("result");
    let frames = if frame_bytes > 0 {
        let off = constant(ir, at, i128::from(cx::FRAMES), t.i64, loc);
        let p = byte_gep(ir, at, ctx, off, loc);
        load_invariant(ir, at, p, t.ptr, 8, loc)
    } else {
        emit(ir, at, "llvm.mlir.zero", vec![], &[t.ptr], vec![], loc).expect("result")
    };
    let dims: Vec<Value> = size.iter().map(|&s| constant(ir, at, i128::from(s), t.i32, loc)).collect();
    let zero = constant(ir, at, 0, t.i32, loc);
    let done_state = constant(ir, at, i128::from(cx::STATE_DONE as i32), t.i32, loc);

    let round = ir.create_block();
    ir.append_block(region, round);
    let state = ir.add_block_argument(round, t.i32, loc.clone());
    branch(ir, at, round, vec![zero], loc);
    let round_end = ir.create_block();

    // One loop nest per state.
    let mut nests = Vec::new();
    for k in 0..states.max(1) {
        let nest = ir.create_block();
        ir.append_block(region, nest);
        nests.push(nest);
        store(ir, At::End(nest), done_state, next_slot, 4, loc);
        // What the previous rounds kept, invariant in this round's loops.
        let uniforms: Vec<Value> = uniform_slots
            .iter()
            .map(|&(offset, ty, align)| {
                let offset = constant(ir, At::End(nest), i128::from(offset), t.i64, loc);
                let slot = byte_gep(ir, At::End(nest), frames, offset, loc);
                load(ir, At::End(nest), slot, ty, align, loc)
            })
            .collect();
        let nest_values = NestValues { ctx, groups: &groups, frames, next_slot, uniforms: &uniforms };
        build_invocation_nest(ir, region, nest, round_end, k, t, &dims, &nest_values, loc);
    }
    if nests.len() == 1 {
        branch(ir, At::End(round), nests[0], vec![], loc);
    } else {
        let n = nests.len() as u64 - 1;
        let vty = ir.types.vector(n, t.i32);
        let case_values =
            Attribute::Dense { elements: (1..=n).map(|v| int(i128::from(v), t.i32)).collect(), ty: vty };
        let segments = dense_i32(ir, &vec![0; n as usize]);
        let sizes = dense_i32(ir, &[1, 0, 0]);
        let op = make(
            ir,
            "llvm.switch",
            vec![state],
            &[],
            vec![
                ("case_operand_segments", segments),
                ("case_values", case_values),
                ("operandSegmentSizes", sizes),
            ],
            loc,
        );
        ir.op_mut(op).successors.extend(nests.iter().copied());
        ir.append_op(round, op);
    }

    // After all invocations ran this round: another round on a barrier state.
    ir.append_block(region, round_end);
    let rat = At::End(round_end);
    let n = load(ir, rat, next_slot, t.i32, 4, loc);
    let cancelled = constant(ir, rat, i128::from(cx::STATE_CANCELLED as i32), t.i32, loc);
    let barrier_state = icmp(ir, rat, ULT, n, cancelled, loc);
    let done = ir.create_block();
    // A loop around a barrier runs as rounds without a back-edge inside any call: the
    // cancel flag is read before each further round (rare: once per round of the
    // whole workgroup).
    let poll = ir.create_block();
    cond_branch(ir, rat, barrier_state, poll, vec![], done, vec![], loc);
    ir.append_block(region, poll);
    let pat = At::End(poll);
    let off = constant(ir, pat, i128::from(cx::CANCEL), t.i64, loc);
    let p = byte_gep(ir, pat, ctx, off, loc);
    let flag_ptr = load_invariant(ir, pat, p, t.ptr, 8, loc);
    let flag = emit(
        ir,
        pat,
        "llvm.load",
        vec![flag_ptr],
        &[t.i32],
        vec![("alignment", int(4, t.i64)), ("ordering", int(2, t.i64))],
        loc,
    )
    .expect("result");
    let zero_flag = constant(ir, pat, 0, t.i32, loc);
    let go_on = icmp(ir, pat, EQ, flag, zero_flag, loc);
    cond_branch(ir, pat, go_on, round, vec![n], done, vec![], loc);
    ir.append_block(region, done);
    ret(ir, At::End(done), None, loc);
}

/// What a state's invocation loops pass to each invocation besides its ids and state.
struct NestValues<'a> {
    ctx: Value,
    groups: &'a [Value],
    frames: Value,
    /// The alloca folding the invocations' next states.
    next_slot: Value,
    /// The uniform values kept across barriers, loaded before the loops.
    uniforms: &'a [Value],
}

/// The z, y, x loops over the workgroup's invocations that `from` enters, calling the
/// invocation function with the constant `state`, then branching to `exit`. Each
/// call's result is folded into `next_slot` by unsigned minimum (a reduction LLVM
/// vectorizes).
#[allow(clippy::too_many_arguments)]
fn build_invocation_nest(
    ir: &mut Ir,
    region: RegionId,
    from: BlockId,
    exit: BlockId,
    state: usize,
    t: &Types,
    dims: &[Value],
    values: &NestValues,
    loc: &Location,
) {
    let &NestValues { ctx, groups, frames, next_slot, uniforms } = values;
    let at = At::End(from);
    let zero = constant(ir, at, 0, t.i32, loc);
    let one = constant(ir, at, 1, t.i32, loc);
    let state = constant(ir, at, state as i128, t.i32, loc);
    // Three counted loops: header(i) -> body or exit; latch adds one.
    let mut headers = Vec::new();
    let mut counters = Vec::new();
    let mut outer = from;
    for _ in 0..3 {
        let header = ir.create_block();
        ir.append_block(region, header);
        let i = ir.add_block_argument(header, t.i32, loc.clone());
        branch(ir, At::End(outer), header, vec![zero], loc);
        let body = ir.create_block();
        ir.append_block(region, body);
        headers.push((header, body));
        counters.push(i);
        outer = body;
    }
    let [x_dim, y_dim, z_dim] = [dims[0], dims[1], dims[2]];
    let (z, y, x) = (counters[0], counters[1], counters[2]);
    // Innermost body: the invocation.
    let body = outer;
    let bat = At::End(body);
    let mut operands = vec![ctx, x, y, z, groups[0], groups[1], groups[2], frames, state];
    operands.extend_from_slice(uniforms);
    let segments = dense_i32(ir, &[operands.len() as i64, 0]);
    let bundles = dense_i32(ir, &[]);
    let r = emit(
        ir,
        bat,
        "llvm.call",
        operands,
        &[t.i32],
        vec![
            ("CConv", dialect("llvm.cconv", "ccc")),
            ("TailCallKind", dialect("llvm.tailcallkind", "none")),
            ("callee", Attribute::SymbolRef(vec![cx::INVOCATION_FUNCTION.into()])),
            ("fastmathFlags", dialect("llvm.fastmath", "none")),
            ("op_bundle_sizes", bundles),
            ("operandSegmentSizes", segments),
        ],
        loc,
    )
    .expect("result");
    let so_far = load(ir, bat, next_slot, t.i32, 4, loc);
    let lower = icmp(ir, bat, ULT, r, so_far, loc);
    let next = select(ir, bat, lower, r, so_far, loc);
    store(ir, bat, next, next_slot, 4, loc);

    // Headers' conditions and latches, innermost first; every latch declares the
    // invocations' accesses parallel.
    let parallel = dialect(
        "llvm.loop_annotation",
        &format!("parallelAccesses = #llvm.access_group<{INVOCATION_ACCESS_GROUP}>"),
    );
    let limits = [z_dim, y_dim, x_dim];
    let mut after_inner = body;
    for level in (0..3).rev() {
        let (header, inner_body) = headers[level];
        let i = counters[level];
        // The latch: at the end of what runs inside this level.
        let next = arith(ir, At::End(after_inner), "llvm.add", i, one, loc);
        branch(ir, At::End(after_inner), header, vec![next], loc);
        let latch = *ir.block(after_inner).ops.last().expect("the latch branch");
        ir.set_property(latch, "loop_annotation", parallel.clone());
        let level_exit = if level == 0 { exit } else { ir.create_block() };
        let c = icmp(ir, At::End(header), ULT, i, limits[level], loc);
        cond_branch(ir, At::End(header), c, inner_body, vec![], level_exit, vec![], loc);
        if level != 0 {
            ir.append_block(region, level_exit);
        }
        after_inner = level_exit;
    }
}
