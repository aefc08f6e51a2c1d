//! Atomics on the CPU, made cheap where one thread's view is the whole truth.
//!
//! - **Workgroup memory**: one OS thread runs a whole workgroup (its invocations one
//!   after another between barriers), so nothing else can touch the workgroup's memory
//!   during an atomic. [`plain_workgroup_atomics`] turns every atomic on it into a plain
//!   load, operation and store with the same result value, which LLVM can optimize
//!   (keep in registers, combine, hoist) as it cannot a real atomic. The loads and
//!   stores this makes must never be marked as parallel accesses across invocations:
//!   two invocations may update the same word.
//! - **Reduction buffers**: a storage buffer whose every access in the kernel is an
//!   atomic read-modify-write with an unused result, relaxed ordering and one
//!   combinable operation (add/sub, and, or, xor, signed or unsigned min or max) is a
//!   reduction. [`reduction_candidates`] finds them, [`privatize`] gives each atomic a
//!   second path: when the runtime bound this thread a private copy of the buffer (a
//!   per-slot pointer in the context, `context::PRIVATE_BUFFERS`, null otherwise), a
//!   plain read-modify-write on the copy at the same offset; otherwise the real atomic.
//!   The runtime fills the copy with the operation's identity and, when the thread has
//!   no workgroups left, folds every changed element into the real buffer with one
//!   atomic. The buffer after the dispatch is the same, and no invocation can tell:
//!   the ordering is relaxed and nothing reads the buffer during the dispatch. The
//!   copy's accesses are bounds-checked against the real buffer's size, like the
//!   atomics they replace. Large buffers keep real atomics (the runtime decides per
//!   dispatch, [`MAX_PRIVATE_BYTES`]).

use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{Ir, Location, OpId, RegionId, Value, ValueDef};
use spirvkit_ir::types::{Signedness, Type, TypeKind};

use super::interface::{GlobalKind, KernelInterface};
use super::workgroup::{
    arith, branch, byte_gep, cond_branch, constant, emit, icmp, int, llvm_type_layout, load, load_invariant,
    store, symbol_of, At, Root, EQ, NE,
};
use super::KernelError;

/// The largest buffer a thread keeps a private copy of, in bytes (per buffer; the
/// runtime also caps the sum per thread at [`MAX_PRIVATE_BYTES_PER_THREAD`]). A copy is
/// filled and scanned once per thread and dispatch, so it must stay small next to
/// the work it saves.
pub const MAX_PRIVATE_BYTES: u64 = 64 * 1024;
/// The most private-copy bytes one thread holds in one dispatch.
pub const MAX_PRIVATE_BYTES_PER_THREAD: u64 = 256 * 1024;

/// LLVM's `AtomicBinOp` values (`llvm.atomicrmw`'s `bin_op`).
mod bin_op {
    pub const XCHG: i128 = 0;
    pub const ADD: i128 = 1;
    pub const SUB: i128 = 2;
    pub const AND: i128 = 3;
    pub const NAND: i128 = 4;
    pub const OR: i128 = 5;
    pub const XOR: i128 = 6;
    pub const MAX: i128 = 7;
    pub const MIN: i128 = 8;
    pub const UMAX: i128 = 9;
    pub const UMIN: i128 = 10;
    pub const FADD: i128 = 11;
    pub const FSUB: i128 = 12;
}

/// LLVM's `monotonic` ordering (SPIR-V's relaxed semantics).
const MONOTONIC: i128 = 2;

const SGT: i128 = 4;
const SLT: i128 = 2;
const UGT: i128 = 8;
const ULT: i128 = 6;

/// How a reduction buffer's elements combine; each has an identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReductionOp {
    /// Wrapping add (atomic add and sub: a private sum of differences).
    Add,
    And,
    Or,
    Xor,
    SMin,
    SMax,
    UMin,
    UMax,
}

impl ReductionOp {
    /// The class of an `llvm.atomicrmw` `bin_op`, when it combines.
    fn of_bin_op(op: i128) -> Option<ReductionOp> {
        Some(match op {
            bin_op::ADD | bin_op::SUB => ReductionOp::Add,
            bin_op::AND => ReductionOp::And,
            bin_op::OR => ReductionOp::Or,
            bin_op::XOR => ReductionOp::Xor,
            bin_op::MAX => ReductionOp::SMax,
            bin_op::MIN => ReductionOp::SMin,
            bin_op::UMAX => ReductionOp::UMax,
            bin_op::UMIN => ReductionOp::UMin,
            _ => return None,
        })
    }

    /// The identity of `bytes`-wide elements (4 or 8), as the low bits of a u64.
    pub fn identity(self, bytes: u64) -> u64 {
        let bits = (bytes * 8).clamp(8, 64);
        let all = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        match self {
            ReductionOp::Add | ReductionOp::Or | ReductionOp::Xor | ReductionOp::UMax => 0,
            ReductionOp::And | ReductionOp::UMin => all,
            ReductionOp::SMin => all >> 1,
            ReductionOp::SMax => 1u64 << (bits - 1),
        }
    }
}

/// A storage buffer the kernel only accumulates into: the runtime may give each thread
/// a private copy of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reduction {
    /// The context buffer slot (index into `KernelLayout::descriptors`).
    pub slot: usize,
    /// Bytes of one element: every atomic on the buffer has this width (4 or 8).
    pub element_bytes: u64,
    pub op: ReductionOp,
}

/// Follows a pointer through address computations to where it starts.
fn pointer_origin(ir: &Ir, mut v: Value) -> Value {
    for _ in 0..10_000 {
        let ValueDef::Result { op, .. } = ir.value(v).def else { return v };
        match ir.op(op).name.as_str() {
            "llvm.getelementptr" | "llvm.bitcast" | "llvm.addrspacecast" => v = ir.op(op).operands[0],
            _ => return v,
        }
    }
    v
}

fn integer_property(ir: &Ir, op: OpId, name: &str) -> Option<i128> {
    match ir.op(op).attr(name)? {
        Attribute::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// `old <op> value` as plain operations (the value an `atomicrmw` stores), or `None`
/// for an operation without a plain form here (left atomic).
fn combine(ir: &mut Ir, at: At, op: i128, old: Value, value: Value, location: &Location) -> Option<Value> {
    let ty = ir.value_type(old);
    let is_int = matches!(ir.types.kind(ty), TypeKind::Integer { .. });
    let is_float = matches!(ir.types.kind(ty), TypeKind::Float(_));
    let pick = |ir: &mut Ir, predicate: i128| {
        let c = icmp(ir, at, predicate, old, value, location);
        super::workgroup::select(ir, at, c, old, value, location)
    };
    Some(match op {
        bin_op::XCHG => value,
        bin_op::ADD if is_int => arith(ir, at, "llvm.add", old, value, location),
        bin_op::SUB if is_int => arith(ir, at, "llvm.sub", old, value, location),
        bin_op::AND if is_int => arith(ir, at, "llvm.and", old, value, location),
        bin_op::OR if is_int => arith(ir, at, "llvm.or", old, value, location),
        bin_op::XOR if is_int => arith(ir, at, "llvm.xor", old, value, location),
        bin_op::NAND if is_int => {
            let both = arith(ir, at, "llvm.and", old, value, location);
            let ones = constant(ir, at, -1, ty, location);
            arith(ir, at, "llvm.xor", both, ones, location)
        }
        bin_op::MAX if is_int => pick(ir, SGT),
        bin_op::MIN if is_int => pick(ir, SLT),
        bin_op::UMAX if is_int => pick(ir, UGT),
        bin_op::UMIN if is_int => pick(ir, ULT),
        bin_op::FADD | bin_op::FSUB if is_float => {
            let name = if op == bin_op::FADD { "llvm.fadd" } else { "llvm.fsub" };
            let flags = super::workgroup::dialect("llvm.fastmath", "none");
            emit(ir, at, name, vec![old, value], &[ty], vec![("fastmathFlags", flags)], location)
                .expect("result")
        }
        _ => return None,
    })
}

/// The natural alignment of an access of `ty` (what an atomic without an explicit
/// alignment has).
fn natural_alignment(ir: &Ir, ty: Type) -> Option<u64> {
    llvm_type_layout(ir, ty).map(|(_, size, _)| size)
}

/// Every atomic of `func` on a Workgroup variable of `iface` becomes a plain load,
/// operation and store (see the module docs). Atomics it has no plain form for stay.
///
/// Returns the loads and stores it made or left of former atomics: they must stay
/// out of the invocation loops' access group (two invocations may update one word).
pub fn plain_workgroup_atomics(
    ir: &mut Ir,
    func: OpId,
    iface: &KernelInterface,
) -> Result<FxHashSet<OpId>, KernelError> {
    // The addressof results of workgroup variables.
    let mut workgroup: FxHashSet<Value> = FxHashSet::default();
    let ops = ir.ops_under(func);
    for &(_, op) in &ops {
        if ir.op(op).name == "llvm.mlir.addressof" {
            let name = symbol_of(ir, op, "global_name").unwrap_or_default();
            if matches!(iface.global(&name).map(|g| &g.kind), Some(GlobalKind::Workgroup { .. })) {
                workgroup.insert(ir.op(op).results[0]);
            }
        }
    }
    let mut serial: FxHashSet<OpId> = FxHashSet::default();
    if workgroup.is_empty() {
        return Ok(serial);
    }
    let mut replaced: FxHashMap<Value, Value> = FxHashMap::default();
    for (block, op) in ops {
        let name = ir.op(op).name.as_str();
        if !matches!(name, "llvm.atomicrmw" | "llvm.cmpxchg" | "llvm.load" | "llvm.store") {
            continue;
        }
        let pointer_index = usize::from(name == "llvm.store");
        let Some(&pointer) = ir.op(op).operands.get(pointer_index) else { continue };
        if !workgroup.contains(&pointer_origin(ir, pointer)) {
            continue;
        }
        let location = ir.op(op).location.clone();
        let at = At::Before(block, op);
        match name {
            "llvm.load" | "llvm.store" => {
                if integer_property(ir, op, "ordering").unwrap_or(0) != 0 {
                    let i64 = ir.types.integer(64, Signedness::Signless);
                    ir.set_property(op, "ordering", int(0, i64));
                    serial.insert(op);
                }
            }
            "llvm.atomicrmw" => {
                let value = ir.op(op).operands[1];
                let ty = ir.value_type(value);
                let Some(bin) = integer_property(ir, op, "bin_op") else { continue };
                let Some(align) = natural_alignment(ir, ty) else { continue };
                let old = load(ir, at, pointer, ty, align, &location);
                insert_defining_op(ir, old, &mut serial);
                let Some(new) = combine(ir, at, bin, old, value, &location) else {
                    // Unused load left for LLVM to delete; the atomic stays.
                    continue;
                };
                serial.insert(store(ir, at, new, pointer, align, &location));
                replaced.insert(ir.op(op).results[0], old);
                ir.erase_op(op);
            }
            _ => {
                // cmpxchg (pointer, expected, new) -> {old, equal}.
                let (expected, value) = (ir.op(op).operands[1], ir.op(op).operands[2]);
                let ty = ir.value_type(value);
                let pair_ty = ir.value_type(ir.op(op).results[0]);
                let Some(align) = natural_alignment(ir, ty) else { continue };
                let old = load(ir, at, pointer, ty, align, &location);
                insert_defining_op(ir, old, &mut serial);
                let equal = icmp(ir, at, EQ, old, expected, &location);
                let new = super::workgroup::select(ir, at, equal, value, old, &location);
                serial.insert(store(ir, at, new, pointer, align, &location));
                let i64 = ir.types.integer(64, Signedness::Signless);
                let position = |i: i128| Attribute::DenseArray { element: i64, values: vec![int(i, i64)] };
                let pair =
                    emit(ir, at, "llvm.mlir.poison", vec![], &[pair_ty], vec![], &location).expect("result");
                let pair = emit(
                    ir,
                    at,
                    "llvm.insertvalue",
                    vec![pair, old],
                    &[pair_ty],
                    vec![("position", position(0))],
                    &location,
                )
                .expect("result");
                let pair = emit(
                    ir,
                    at,
                    "llvm.insertvalue",
                    vec![pair, equal],
                    &[pair_ty],
                    vec![("position", position(1))],
                    &location,
                )
                .expect("result");
                replaced.insert(ir.op(op).results[0], pair);
                ir.erase_op(op);
            }
        }
    }
    crate::legalize::util::replace_uses(ir, func, &replaced);
    Ok(serial)
}

/// Adds the operation defining `v` (when an operation does) to `ops`.
fn insert_defining_op(ir: &Ir, v: Value, ops: &mut FxHashSet<OpId>) {
    if let ValueDef::Result { op, .. } = ir.value(v).def {
        ops.insert(op);
    }
}

/// A storage buffer found to be a reduction, with its atomics.
pub(super) struct Candidate {
    slot: usize,
    root: Root,
    atomics: Vec<OpId>,
    element: Type,
    element_bytes: u64,
    op: ReductionOp,
}

/// The storage buffers of `descriptors` ((slot, root) of each bound storage buffer,
/// after the kernel's addresses were rebased on the roots) that are reductions: every
/// use of the root is an address computation or the pointer of an `atomicrmw` whose
/// result is unused, with monotonic ordering, one combinable operation class and one
/// 32- or 64-bit integer type.
pub(super) fn reduction_candidates(ir: &Ir, func: OpId, descriptors: &[(usize, Root)]) -> Vec<Candidate> {
    let mut uses: FxHashMap<Value, Vec<(OpId, usize)>> = FxHashMap::default();
    for (_, op) in ir.ops_under(func) {
        for (i, &v) in ir.op(op).operands.iter().enumerate() {
            uses.entry(v).or_default().push((op, i));
        }
    }
    let mut out = Vec::new();
    'buffers: for &(slot, root) in descriptors {
        let mut atomics = Vec::new();
        let mut class: Option<(ReductionOp, Type)> = None;
        let mut work = vec![root.base];
        let mut seen: FxHashSet<Value> = FxHashSet::default();
        while let Some(v) = work.pop() {
            if !seen.insert(v) {
                continue;
            }
            for &(user, index) in uses.get(&v).map(Vec::as_slice).unwrap_or(&[]) {
                let o = ir.op(user);
                match o.name.as_str() {
                    "llvm.getelementptr" | "llvm.bitcast" | "llvm.addrspacecast" if index == 0 => {
                        work.extend(o.results.iter().copied());
                    }
                    "llvm.atomicrmw" if index == 0 => {
                        let result_unused = o.results.iter().all(|r| !uses.contains_key(r));
                        let relaxed = integer_property(ir, user, "ordering") == Some(MONOTONIC);
                        let plain = o.attr("volatile_").is_none() && o.attr("syncscope").is_none();
                        let op = integer_property(ir, user, "bin_op").and_then(ReductionOp::of_bin_op);
                        let ty = ir.value_type(o.operands[1]);
                        let width = match ir.types.kind(ty) {
                            TypeKind::Integer { width: w @ (32 | 64), .. } => u64::from(*w),
                            _ => 0,
                        };
                        let (Some(op), true, true, true) = (op, result_unused, relaxed, plain && width > 0)
                        else {
                            continue 'buffers;
                        };
                        match class {
                            None => class = Some((op, ty)),
                            Some(c) if c == (op, ty) => {}
                            Some(_) => continue 'buffers,
                        }
                        atomics.push(user);
                    }
                    _ => continue 'buffers,
                }
            }
        }
        let Some((op, element)) = class else { continue };
        let Some(element_bytes) = natural_alignment(ir, element) else { continue };
        out.push(Candidate { slot, root, atomics, element, element_bytes, op });
    }
    out
}

/// Gives every atomic of `candidates` its private path (see the module docs): in the
/// atomic's block, `if (copy != null && offset is element-aligned)` a plain
/// read-modify-write at the same offset of the copy, else the atomic. `table` is the
/// context's private-buffers pointer (loaded at `dispatch`); each copy becomes a root
/// (bounded by the real buffer's size) in `roots`. Returns what the runtime needs.
pub(super) fn privatize(
    ir: &mut Ir,
    region: RegionId,
    dispatch: At,
    table: Value,
    candidates: Vec<Candidate>,
    roots: &mut FxHashMap<Value, Root>,
) -> Vec<Reduction> {
    let mut reductions = Vec::with_capacity(candidates.len());
    let i64 = ir.types.integer(64, Signedness::Signless);
    let ptr = ir.types.llvm_pointer(0);
    for c in candidates {
        let location = ir.op(c.atomics[0]).location.clone();
        let at = dispatch;
        let slot_offset = constant(ir, at, (c.slot as i128) * 8, i64, &location);
        let slot_pointer = byte_gep(ir, at, table, slot_offset, &location);
        let copy = load_invariant(ir, at, slot_pointer, ptr, 8, &location);
        let null = emit(ir, at, "llvm.mlir.zero", vec![], &[ptr], vec![], &location).expect("result");
        let has_copy = icmp(ir, at, NE, copy, null, &location);
        roots.insert(copy, Root { base: copy, bytes: c.root.bytes, read_only: false, parallel: false });
        for &atomic in &c.atomics {
            let location = ir.op(atomic).location.clone();
            let block = ir.op(atomic).parent.expect("atomic in a block");
            let (pointer, value) = (ir.op(atomic).operands[0], ir.op(atomic).operands[1]);
            let bin = integer_property(ir, atomic, "bin_op").expect("checked");
            // block: ...; offset; cond_br private, shared | private: plain RMW on the copy
            // | shared: the atomic | join: the rest of block.
            let ops = ir.block(block).ops.clone();
            let pos = ops.iter().position(|&o| o == atomic).expect("in its block");
            ir.block_mut(block).ops.truncate(pos);
            let (private, shared, join) = (ir.create_block(), ir.create_block(), ir.create_block());
            ir.append_op(shared, atomic);
            for &o in &ops[pos + 1..] {
                ir.append_op(join, o);
            }
            let blocks = &mut ir.region_mut(region).blocks;
            let at_block = blocks.iter().position(|&b| b == block).expect("block in region");
            for (k, &b) in [private, shared, join].iter().enumerate() {
                blocks.insert(at_block + 1 + k, b);
            }
            for b in [private, shared, join] {
                ir.block_mut(b).parent = Some(region);
            }
            let at = At::End(block);
            let p = emit(ir, at, "llvm.ptrtoint", vec![pointer], &[i64], vec![], &location).expect("result");
            let base =
                emit(ir, at, "llvm.ptrtoint", vec![c.root.base], &[i64], vec![], &location).expect("result");
            let offset = arith(ir, at, "llvm.sub", p, base, &location);
            let mask = constant(ir, at, i128::from(c.element_bytes - 1), i64, &location);
            let low = arith(ir, at, "llvm.and", offset, mask, &location);
            let zero = constant(ir, at, 0, i64, &location);
            let aligned = icmp(ir, at, EQ, low, zero, &location);
            let go = arith(ir, at, "llvm.and", has_copy, aligned, &location);
            cond_branch(ir, at, go, private, vec![], shared, vec![], &location);

            let at = At::End(private);
            let in_copy = byte_gep(ir, at, copy, offset, &location);
            let old = load(ir, at, in_copy, c.element, c.element_bytes, &location);
            let new = combine(ir, at, bin, old, value, &location).expect("a combinable operation");
            store(ir, at, new, in_copy, c.element_bytes, &location);
            branch(ir, at, join, vec![], &location);
            branch(ir, At::End(shared), join, vec![], &location);
        }
        reductions.push(Reduction { slot: c.slot, element_bytes: c.element_bytes, op: c.op });
    }
    reductions
}
