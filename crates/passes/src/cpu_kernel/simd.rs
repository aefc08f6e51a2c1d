//! SIMD across invocations: `spirvkit_invocation_simd` runs [`LANES`] consecutive
//! invocations of a workgroup (flattened local index, x fastest) as the lanes of LLVM
//! vectors, as GPU drivers for CPUs do. LLVM's loop vectorizer only vectorizes innermost
//! loops, so a kernel with a loop (mandelbrot's divergent escape loop, matmul's k loop)
//! runs one invocation at a time on the scalar path.
//!
//! Built from the scalar invocation function after the bounds checks (so every access
//! is already guarded by a branch on its range), for kernels without barriers:
//! - Uniformity is the kernel pass's divergence analysis ([`Divergence`]) seeded with
//!   the local ids (x only when the workgroup's x size is a multiple of the lane count,
//!   so y and z are shared by the lanes): per-invocation memory, what is computed from
//!   it, block arguments where a divergent branch's paths meet, and values leaving a
//!   loop that lanes leave in different iterations.
//! - Uniform values stay scalar; a varying value of scalar type T becomes
//!   `vector<LANES x T>` (pointers: vectors of pointers) and a varying `vector<N x T>` is
//!   kept as N such vectors, one per component. Varying structs or arrays are refused.
//! - The reducible CFG is linearized: every block runs under a lane mask (edge mask =
//!   source mask & condition, block arguments become selects on edge masks); a loop stays
//!   a loop that runs while any lane continues, accumulating per exit the mask of lanes
//!   that left and their live-out values; lanes that return just stop.
//! - Memory: varying loads and stores are masked gathers and scatters (inactive lanes
//!   touch nothing); a uniform load or store in a block no lane may run reads the zero
//!   page or writes the sink page; a varying value stored to a uniform address stores
//!   the last active lane's value (the scalar order's last writer); integer divisors of
//!   inactive lanes are 1.
//!
//! Anything else (atomics, calls, switches, varying aggregates) is [`NotApplicable`]:
//! the kernel keeps the scalar path.

use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{BlockId, Ir, Location, OpId, RegionId, Value, ValueDef};
use spirvkit_ir::types::{Signedness, Type, TypeKind};

use super::context as cx;
use super::divergence::{successor_operands, Cfg, Divergence};
use super::workgroup::llvm_type_layout;

/// Invocations per SIMD call.
pub const LANES: u64 = 8;

/// The name of the SIMD invocation function.
pub const SIMD_FUNCTION: &str = "spirvkit_invocation_simd";

/// Why a kernel keeps the scalar path (never an error to the user).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("SIMD across invocations not applicable: {0}")]
pub struct NotApplicable(pub String);

fn refuse<T>(reason: impl Into<String>) -> Result<T, NotApplicable> {
    Err(NotApplicable(reason.into()))
}

/// When the SIMD function is used: `SPIRVKIT_CPU_SIMD=off` never, `always` whenever the
/// kernel allows, otherwise (`auto`) for kernels with a loop (straight-line kernels are
/// vectorized across invocations by LLVM's loop vectorizer already).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimdMode {
    Off,
    Auto,
    Always,
}

impl SimdMode {
    pub fn from_env() -> SimdMode {
        match std::env::var("SPIRVKIT_CPU_SIMD").as_deref() {
            Ok("off") | Ok("0") => SimdMode::Off,
            Ok("always") => SimdMode::Always,
            _ => SimdMode::Auto,
        }
    }
}

/// The SIMD function built: its op, entry block and context argument (for the cancel
/// polls), and whether y and z are passed as scalars (x size a multiple of [`LANES`]).
pub struct SimdFunction {
    pub func: OpId,
    pub entry: BlockId,
    pub ctx: Value,
    pub uniform_yz: bool,
}

// ---------------------------------------------------------------------------------------
// Op construction.

fn int(value: i128, ty: Type) -> Attribute {
    Attribute::Integer { value, ty }
}

fn dialect(name: &str, body: &str) -> Attribute {
    Attribute::Dialect { name: name.into(), body: Some(body.into()) }
}

fn dense_i32(ir: &mut Ir, values: &[i64]) -> Attribute {
    let i32 = ir.types.integer(32, Signedness::Signless);
    Attribute::DenseArray { element: i32, values: values.iter().map(|&v| int(i128::from(v), i32)).collect() }
}

fn new_op(
    ir: &mut Ir,
    block: BlockId,
    name: &str,
    operands: Vec<Value>,
    results: &[Type],
    props: Vec<NamedAttribute>,
    location: &Location,
) -> OpId {
    let op = ir.create_op(name, operands, results, location.clone());
    let mut props = props;
    props.sort_by(|a, b| a.name.cmp(&b.name));
    ir.op_mut(op).properties = props;
    ir.append_op(block, op);
    op
}

fn props(list: Vec<(&str, Attribute)>) -> Vec<NamedAttribute> {
    list.into_iter().map(|(n, v)| NamedAttribute::new(n, v)).collect()
}

// ---------------------------------------------------------------------------------------
// The control-flow graph of the scalar invocation function: `divergence::Cfg` (blocks in
// reverse post-order), with the loops' nesting, exits and live-outs the emitter needs.

struct Loop {
    header: usize,
    body: Vec<bool>,
    parent: Option<usize>,
    /// Targets outside the loop reached from inside (`None`: the function returns).
    exits: Vec<Option<usize>>,
    /// Values defined in the loop and used outside it.
    live_out: Vec<Value>,
}

fn terminator(ir: &Ir, b: BlockId) -> Option<OpId> {
    ir.block(b).ops.last().copied()
}

/// Refuses the terminators the emitter does not handle: anything but branches inside
/// the function and a `done` return, a conditional branch with one target twice, and
/// a branch whose operands do not match its target's arguments.
fn check_terminators(ir: &Ir, region: RegionId) -> Result<(), NotApplicable> {
    let blocks: FxHashSet<BlockId> = ir.region(region).blocks.iter().copied().collect();
    for &b in &ir.region(region).blocks {
        let Some(t) = terminator(ir, b) else { return refuse("a block without a terminator") };
        match ir.op(t).name.as_str() {
            "llvm.br" | "llvm.cond_br" => {
                let targets = &ir.op(t).successors;
                if targets.len() == 2 && targets[0] == targets[1] {
                    return refuse("a conditional branch with one target");
                }
                for (k, s) in targets.iter().enumerate() {
                    if !blocks.contains(s) {
                        return refuse("a branch out of the function");
                    }
                    if successor_operands(ir, t, k).len() != ir.block(*s).arguments.len() {
                        return refuse("a branch whose operands do not fit its successors");
                    }
                }
            }
            "llvm.return" => {
                let done = ir.op(t).operands.first().and_then(|&v| constant_int(ir, v));
                if done != Some(i128::from(cx::STATE_DONE as i32)) {
                    return refuse("a return other than 'done'");
                }
            }
            other => return refuse(format!("the terminator {other}")),
        }
    }
    Ok(())
}

fn constant_int(ir: &Ir, v: Value) -> Option<i128> {
    let ValueDef::Result { op, .. } = ir.value(v).def else { return None };
    if ir.op(op).name != "llvm.mlir.constant" {
        return None;
    }
    match ir.op(op).attr("value")? {
        Attribute::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// The natural loops of `cfg` with their nesting, exits and live-outs; refuses
/// irreducible flow (a cycle entered other than through one header).
fn find_loops(ir: &Ir, cfg: &Cfg) -> Result<Vec<Loop>, NotApplicable> {
    if !cfg.is_reducible() {
        return refuse("irreducible control flow");
    }
    let n = cfg.blocks.len();
    let def_block = cfg.defining_blocks(ir);
    let mut loops: Vec<Loop> = cfg
        .loops()
        .iter()
        .map(|(header, body)| Loop {
            header: *header,
            body: (0..n).map(|b| body.contains(&b)).collect(),
            parent: None,
            exits: cfg.loop_exits(body),
            live_out: cfg.live_outs(ir, body, &def_block),
        })
        .collect();
    // Parents: the smallest other loop containing the header.
    let sizes: Vec<usize> = loops.iter().map(|l| l.body.iter().filter(|&&x| x).count()).collect();
    for i in 0..loops.len() {
        let h = loops[i].header;
        loops[i].parent = (0..loops.len()).filter(|&j| j != i && loops[j].body[h]).min_by_key(|&j| sizes[j]);
    }
    Ok(loops)
}

fn innermost_loops(loops: &[Loop], n: usize) -> Vec<Option<usize>> {
    let sizes: Vec<usize> = loops.iter().map(|l| l.body.iter().filter(|&&x| x).count()).collect();
    (0..n).map(|b| (0..loops.len()).filter(|&l| loops[l].body[b]).min_by_key(|&l| sizes[l])).collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Block(usize),
    LoopStart(usize),
    LoopEnd(usize),
}

/// A topological order of the blocks in which every loop is contiguous (its header
/// first), nested loops bracketed by `LoopStart`/`LoopEnd`.
fn schedule(cfg: &Cfg, loops: &[Loop], inner: &[Option<usize>]) -> Result<Vec<Item>, NotApplicable> {
    let mut out = Vec::new();
    schedule_level(cfg, loops, inner, None, &mut out, 0)?;
    Ok(out)
}

fn schedule_level(
    cfg: &Cfg,
    loops: &[Loop],
    inner: &[Option<usize>],
    level: Option<usize>,
    out: &mut Vec<Item>,
    depth: u32,
) -> Result<(), NotApplicable> {
    if depth > 64 {
        return refuse("loops nested too deeply");
    }
    let n = cfg.blocks.len();
    let within = |b: usize| level.is_none_or(|l| loops[l].body[b]);
    // The node of a block at this level: itself, or the header of the child loop holding it.
    let node_of = |b: usize| -> Option<usize> {
        if !within(b) {
            return None;
        }
        let mut l = inner[b];
        if l == level {
            return Some(b);
        }
        while let Some(li) = l {
            if loops[li].parent == level {
                return Some(loops[li].header);
            }
            l = loops[li].parent;
        }
        None
    };
    let entry = level.map_or(0, |l| loops[l].header);
    let mut nodes: Vec<usize> = (0..n).filter(|&b| node_of(b) == Some(b)).collect();
    nodes.sort_unstable();
    let mut indegree: FxHashMap<usize, usize> = nodes.iter().map(|&b| (b, 0)).collect();
    let mut edges: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
    for b in 0..n {
        let Some(nb) = node_of(b) else { continue };
        for &s in cfg.successors(b) {
            if s == entry && level.is_some() {
                continue; // a back edge of this level's loop
            }
            let Some(ns) = node_of(s) else { continue };
            if ns == nb {
                continue;
            }
            let list = edges.entry(nb).or_default();
            if !list.contains(&ns) {
                list.push(ns);
                *indegree.get_mut(&ns).expect("node") += 1;
            }
        }
    }
    let mut ready: std::collections::BTreeSet<usize> =
        nodes.iter().copied().filter(|b| indegree[b] == 0).collect();
    if !ready.contains(&entry) || ready.len() != 1 {
        return refuse("a block not reached from its loop or function entry");
    }
    let mut done = 0;
    while let Some(b) = ready.pop_first() {
        done += 1;
        // A header of a loop nested directly in this level stands for the whole loop.
        let child =
            (0..loops.len()).find(|&l| loops[l].header == b && loops[l].parent == level && Some(l) != level);
        match child {
            Some(l) => {
                out.push(Item::LoopStart(l));
                schedule_level(cfg, loops, inner, Some(l), out, depth + 1)?;
                out.push(Item::LoopEnd(l));
            }
            None => out.push(Item::Block(b)),
        }
        for &s in edges.get(&b).into_iter().flatten() {
            let d = indegree.get_mut(&s).expect("node");
            *d -= 1;
            if *d == 0 {
                ready.insert(s);
            }
        }
    }
    if done != nodes.len() {
        return refuse("irreducible control flow");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Emission.

/// A value of the SIMD function: scalar (the same in every lane) or one
/// `vector<LANES x T>` per component.
#[derive(Clone, Debug)]
enum Wide {
    Uniform(Value),
    Varying(Vec<Value>),
}

struct LoopState {
    index: usize,
    exits: Vec<(Option<usize>, Value, Vec<Wide>)>,
    captures: Vec<(Value, Wide)>,
}

struct Emitter<'a> {
    ir: &'a mut Ir,
    loc: Location,
    region: RegionId,
    cur: BlockId,
    i1: Type,
    i8: Type,
    i32: Type,
    i64: Type,
    ptr: Type,
    mask_ty: Type,
    vmap: FxHashMap<Value, Wide>,
    /// Which values differ between lanes.
    divergence: Divergence,
    edge_in: FxHashMap<usize, Vec<(Value, Vec<Wide>)>>,
    header_masks: FxHashMap<usize, Value>,
    loop_stack: Vec<LoopState>,
    any_cache: FxHashMap<Value, Value>,
    splat_cache: FxHashMap<(Value, u64), Value>,
    zero_mask: Value,
    true_mask: Value,
    lane_ids: Value,
    zero_page: Value,
    sink_page: Value,
}

impl Emitter<'_> {
    fn op(&mut self, name: &str, operands: Vec<Value>, results: &[Type], p: Vec<(&str, Attribute)>) -> OpId {
        new_op(self.ir, self.cur, name, operands, results, props(p), &self.loc)
    }

    fn val(&mut self, name: &str, operands: Vec<Value>, ty: Type, p: Vec<(&str, Attribute)>) -> Value {
        let op = self.op(name, operands, &[ty], p);
        self.ir.op(op).results[0]
    }

    fn constant(&mut self, value: i128, ty: Type) -> Value {
        self.val("llvm.mlir.constant", vec![], ty, vec![("value", int(value, ty))])
    }

    fn vec_of(&mut self, element: Type) -> Type {
        self.ir.types.vector(LANES, element)
    }

    fn binary(&mut self, name: &str, a: Value, b: Value) -> Value {
        let ty = self.ir.value_type(a);
        let p = if matches!(name, "llvm.add" | "llvm.sub" | "llvm.mul") {
            vec![("overflowFlags", int(0, self.i32))]
        } else {
            vec![]
        };
        self.val(name, vec![a, b], ty, p)
    }

    fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        let ty = self.ir.value_type(a);
        self.val("llvm.select", vec![c, a, b], ty, vec![("fastmathFlags", dialect("llvm.fastmath", "none"))])
    }

    fn mask_and(&mut self, a: Value, b: Value) -> Value {
        if a == self.zero_mask || b == self.zero_mask {
            return self.zero_mask;
        }
        if a == self.true_mask {
            return b;
        }
        if b == self.true_mask {
            return a;
        }
        self.binary("llvm.and", a, b)
    }

    fn mask_or(&mut self, a: Value, b: Value) -> Value {
        if a == self.zero_mask {
            return b;
        }
        if b == self.zero_mask {
            return a;
        }
        self.binary("llvm.or", a, b)
    }

    fn mask_not(&mut self, a: Value) -> Value {
        let t = self.true_mask;
        self.binary("llvm.xor", a, t)
    }

    /// Whether any lane of a mask is on.
    fn any(&mut self, mask: Value) -> Value {
        if let Some(&a) = self.any_cache.get(&mask) {
            return a;
        }
        let i1 = self.i1;
        let a = self.val("llvm.intr.vector.reduce.or", vec![mask], i1, vec![]);
        self.any_cache.insert(mask, a);
        a
    }

    /// A scalar in every lane.
    fn splat(&mut self, v: Value) -> Value {
        if let Some(&s) = self.splat_cache.get(&(v, 0)) {
            return s;
        }
        let ty = self.ir.value_type(v);
        let vty = self.vec_of(ty);
        let poison = self.val("llvm.mlir.poison", vec![], vty, vec![]);
        let zero = self.constant(0, self.i32);
        let inserted = self.val("llvm.insertelement", vec![poison, v, zero], vty, vec![]);
        let mask = dense_i32(self.ir, &vec![0; LANES as usize]);
        let s = self.val("llvm.shufflevector", vec![inserted, poison], vty, vec![("mask", mask)]);
        self.splat_cache.insert((v, 0), s);
        s
    }

    /// Component `k` of a value as a lane vector.
    fn component(&mut self, w: &Wide, k: usize) -> Result<Value, NotApplicable> {
        match w {
            Wide::Varying(vs) if vs.len() == 1 => Ok(vs[0]),
            Wide::Varying(vs) => {
                vs.get(k).copied().ok_or_else(|| NotApplicable("mismatched vector widths".into()))
            }
            Wide::Uniform(u) => {
                let u = *u;
                let ty = self.ir.value_type(u);
                match self.ir.types.kind(ty).clone() {
                    TypeKind::Vector { element, .. } => {
                        if let Some(&s) = self.splat_cache.get(&(u, k as u64 + 1)) {
                            return Ok(s);
                        }
                        let idx = self.constant(k as i128, self.i32);
                        let e = self.val("llvm.extractelement", vec![u, idx], element, vec![]);
                        let s = self.splat(e);
                        self.splat_cache.insert((u, k as u64 + 1), s);
                        Ok(s)
                    }
                    _ => Ok(self.splat(u)),
                }
            }
        }
    }

    /// The element types of a varying value of type `ty`, one per component.
    fn components_of(&self, ty: Type) -> Result<Vec<Type>, NotApplicable> {
        match self.ir.types.kind(ty) {
            TypeKind::Integer { .. } | TypeKind::Float(_) | TypeKind::LlvmPointer { .. } => Ok(vec![ty]),
            TypeKind::Vector { shape, element, scalable }
                if shape.len() == 1 && scalable.iter().all(|s| !s) && shape[0] <= 64 =>
            {
                let e = *element;
                if !matches!(
                    self.ir.types.kind(e),
                    TypeKind::Integer { .. } | TypeKind::Float(_) | TypeKind::LlvmPointer { .. }
                ) {
                    return refuse("a vector of an unsupported element type differs per invocation");
                }
                Ok(vec![e; shape[0] as usize])
            }
            _ => refuse("a struct or array value differs per invocation"),
        }
    }

    /// The lane-vector types of a varying value of type `ty`.
    fn wide_types(&mut self, ty: Type) -> Result<Vec<Type>, NotApplicable> {
        let comps = self.components_of(ty)?;
        Ok(comps.into_iter().map(|e| self.vec_of(e)).collect())
    }

    fn wide(&self, v: Value) -> Result<Wide, NotApplicable> {
        self.vmap
            .get(&v)
            .cloned()
            .ok_or_else(|| NotApplicable("a value used before its definition in the linear order".into()))
    }

    /// A value as a varying one (a uniform one in every lane).
    fn as_varying(&mut self, w: &Wide, ty: Type) -> Result<Vec<Value>, NotApplicable> {
        match w {
            Wide::Varying(vs) => Ok(vs.clone()),
            Wide::Uniform(_) => {
                let n = self.components_of(ty)?.len();
                (0..n).map(|k| self.component(w, k)).collect()
            }
        }
    }

    /// The arguments a block receives: one select chain over the incoming edge masks.
    fn merge(
        &mut self,
        incoming: &[(Value, Vec<Wide>)],
        arg_types: &[Type],
        varying_args: &[bool],
    ) -> Result<Vec<Wide>, NotApplicable> {
        let mut out = Vec::new();
        for (i, &ty) in arg_types.iter().enumerate() {
            if incoming.is_empty() {
                if varying_args[i] {
                    let tys = self.wide_types(ty)?;
                    let vs =
                        tys.into_iter().map(|t| self.val("llvm.mlir.poison", vec![], t, vec![])).collect();
                    out.push(Wide::Varying(vs));
                } else {
                    out.push(Wide::Uniform(self.val("llvm.mlir.poison", vec![], ty, vec![])));
                }
                continue;
            }
            if incoming.iter().any(|(_, a)| a.len() != arg_types.len()) {
                return refuse("internal: a branch passes the wrong number of block arguments");
            }
            let all_uniform = incoming.iter().all(|(_, a)| matches!(a[i], Wide::Uniform(_)));
            if !varying_args[i] {
                if !all_uniform {
                    return refuse("internal: a uniform block argument receives a varying value");
                }
                let Wide::Uniform(mut acc) = incoming[0].1[i] else { unreachable!() };
                for (mask, args) in &incoming[1..] {
                    let Wide::Uniform(v) = args[i] else { unreachable!() };
                    if v != acc {
                        let any = self.any(*mask);
                        acc = self.select(any, v, acc);
                    }
                }
                out.push(Wide::Uniform(acc));
            } else {
                let n = self.components_of(ty)?.len();
                let mut comps = Vec::new();
                for k in 0..n {
                    let mut acc = self.component(&incoming[0].1[i], k)?;
                    for (mask, args) in &incoming[1..] {
                        let v = self.component(&args[i], k)?;
                        if v != acc {
                            acc = self.select(*mask, v, acc);
                        }
                    }
                    comps.push(acc);
                }
                out.push(Wide::Varying(comps));
            }
        }
        Ok(out)
    }

    /// Lanes take an edge (`None`: they return): recorded for the target, or for the
    /// innermost loop the edge leaves.
    fn resolve(
        &mut self,
        loops: &[Loop],
        target: Option<usize>,
        mask: Value,
        args: Vec<Wide>,
    ) -> Result<(), NotApplicable> {
        if mask == self.zero_mask {
            return Ok(());
        }
        if let Some(top) = self.loop_stack.last() {
            let l = &loops[top.index];
            let leaves = target.is_none_or(|s| !l.body[s]);
            if leaves {
                let mut state = self.loop_stack.pop().expect("loop");
                let e = state.exits.iter().position(|(t, _, _)| *t == target).expect("a known exit");
                let acc = state.exits[e].1;
                state.exits[e].1 = self.mask_or(acc, mask);
                let any = self.any(mask);
                for (k, arg) in args.iter().enumerate() {
                    let old = state.exits[e].2[k].clone();
                    state.exits[e].2[k] = self.capture(mask, any, arg, &old)?;
                }
                for c in 0..state.captures.len() {
                    let v = state.captures[c].0;
                    if let Some(now) = self.vmap.get(&v).cloned() {
                        let old = state.captures[c].1.clone();
                        state.captures[c].1 = self.capture(mask, any, &now, &old)?;
                    }
                }
                self.loop_stack.push(state);
                return Ok(());
            }
        }
        if let Some(s) = target {
            self.edge_in.entry(s).or_default().push((mask, args));
        }
        Ok(())
    }

    fn capture(&mut self, mask: Value, any: Value, now: &Wide, old: &Wide) -> Result<Wide, NotApplicable> {
        Ok(match old {
            Wide::Uniform(o) => {
                let Wide::Uniform(n) = now else {
                    return refuse("internal: a uniform live-out value is varying");
                };
                Wide::Uniform(self.select(any, *n, *o))
            }
            Wide::Varying(os) => {
                let mut out = Vec::new();
                for (k, &o) in os.iter().enumerate() {
                    let n = self.component(now, k)?;
                    out.push(self.select(mask, n, o));
                }
                Wide::Varying(out)
            }
        })
    }

    /// Poison of a value's shape (uniform or varying).
    fn poison_like(&mut self, ty: Type, varying: bool) -> Result<(Wide, Vec<Type>), NotApplicable> {
        if varying {
            let tys = self.wide_types(ty)?;
            let vs = tys.iter().map(|&t| self.val("llvm.mlir.poison", vec![], t, vec![])).collect();
            Ok((Wide::Varying(vs), tys))
        } else {
            Ok((Wide::Uniform(self.val("llvm.mlir.poison", vec![], ty, vec![])), vec![ty]))
        }
    }
}

fn flatten(w: &Wide) -> Vec<Value> {
    match w {
        Wide::Uniform(v) => vec![*v],
        Wide::Varying(vs) => vs.clone(),
    }
}

/// Rebuilds a flattened list of block arguments into values of the given shapes.
fn unflatten(args: &[Value], shapes: &[(bool, usize)]) -> Vec<Wide> {
    let mut out = Vec::new();
    let mut at = 0;
    for &(varying, n) in shapes {
        if varying {
            out.push(Wide::Varying(args[at..at + n].to_vec()));
        } else {
            out.push(Wide::Uniform(args[at]));
        }
        at += n;
    }
    out
}

const ELEMENTWISE: &[&str] = &[
    "llvm.add",
    "llvm.sub",
    "llvm.mul",
    "llvm.and",
    "llvm.or",
    "llvm.xor",
    "llvm.shl",
    "llvm.lshr",
    "llvm.ashr",
    "llvm.fadd",
    "llvm.fsub",
    "llvm.fmul",
    "llvm.fdiv",
    "llvm.frem",
    "llvm.fneg",
    "llvm.zext",
    "llvm.sext",
    "llvm.trunc",
    "llvm.uitofp",
    "llvm.sitofp",
    "llvm.fptoui",
    "llvm.fptosi",
    "llvm.fpext",
    "llvm.fptrunc",
    "llvm.ptrtoint",
    "llvm.inttoptr",
    "llvm.icmp",
    "llvm.fcmp",
    "llvm.select",
    "llvm.freeze",
    "llvm.bitcast",
    "llvm.udiv",
    "llvm.sdiv",
    "llvm.urem",
    "llvm.srem",
];

/// Element-wise intrinsics (LLVM applies them lane by lane to vectors).
const ELEMENTWISE_INTRINSICS: &[&str] = &[
    "fabs",
    "sqrt",
    "fma",
    "fmuladd",
    "floor",
    "ceil",
    "trunc",
    "round",
    "roundeven",
    "rint",
    "nearbyint",
    "minnum",
    "maxnum",
    "minimum",
    "maximum",
    "smin",
    "smax",
    "umin",
    "umax",
    "abs",
    "ctlz",
    "cttz",
    "ctpop",
    "exp",
    "exp2",
    "exp10",
    "log",
    "log2",
    "log10",
    "pow",
    "powi",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "copysign",
    "bitreverse",
    "bswap",
    "ldexp",
    "fshl",
    "fshr",
    "is.fpclass",
    "canonicalize",
];

fn is_elementwise(name: &str) -> bool {
    ELEMENTWISE.contains(&name)
        || name.strip_prefix("llvm.intr.").is_some_and(|n| ELEMENTWISE_INTRINSICS.contains(&n))
}

/// Builds `spirvkit_invocation_simd` next to the scalar invocation function `scalar`
/// (after its bounds checks, before its cancel polls; see the module docs).
pub fn build_simd_function(
    ir: &mut Ir,
    module_block: BlockId,
    scalar: OpId,
    workgroup_size: [u32; 3],
    mode: SimdMode,
) -> Result<SimdFunction, NotApplicable> {
    if mode == SimdMode::Off {
        return refuse("turned off (SPIRVKIT_CPU_SIMD=off)");
    }
    let location = ir.op(scalar).location.clone();
    let Some(&region) = ir.op(scalar).regions.first() else { return refuse("no body") };
    check_terminators(ir, region)?;
    let cfg = Cfg::new(ir, region);
    if cfg.blocks.len() != ir.region(region).blocks.len() {
        return refuse("a block not reached from the function entry");
    }
    if cfg.blocks.is_empty() || ir.block(cfg.blocks[0]).arguments.len() != 9 {
        return refuse("not an invocation function");
    }
    let loops = find_loops(ir, &cfg)?;
    if loops.is_empty() && mode == SimdMode::Auto {
        return refuse("no loop (LLVM's loop vectorizer runs the invocation loop as SIMD already)");
    }
    let invocations: u64 = workgroup_size.iter().map(|&d| u64::from(d)).product();
    if invocations < LANES && mode == SimdMode::Auto {
        // The lanes past the workgroup would run every iteration of the longest lane for
        // nothing (a one-invocation workgroup ran 40x slower as SIMD).
        return refuse("fewer invocations in a workgroup than lanes");
    }
    let inner = innermost_loops(&loops, cfg.blocks.len());
    let order = schedule(&cfg, &loops, &inner)?;

    let old_args = ir.block(cfg.blocks[0]).arguments.clone();
    let uniform_yz = u64::from(workgroup_size[0]).is_multiple_of(LANES);
    let mut seeds = vec![old_args[1]];
    if !uniform_yz {
        seeds.extend([old_args[2], old_args[3]]);
    }
    let divergence = Divergence::analyze(ir, region, &seeds);

    // The new function: (ctx, lx, ly, lz, gx, gy, gz, frame, state, mask) -> i32.
    let i1 = ir.types.integer(1, Signedness::Signless);
    let i8 = ir.types.integer(8, Signedness::Signless);
    let i32 = ir.types.integer(32, Signedness::Signless);
    let i64 = ir.types.integer(64, Signedness::Signless);
    let ptr = ir.types.llvm_pointer(0);
    let v_i32 = ir.types.vector(LANES, i32);
    let mask_ty = ir.types.vector(LANES, i1);
    let yz_ty = if uniform_yz { i32 } else { v_i32 };
    let params = vec![ptr, v_i32, yz_ty, yz_ty, i32, i32, i32, ptr, i32, mask_ty];
    let fty = ir.types.llvm_function(i32, params.clone(), false);
    let func = ir.create_op("llvm.func", vec![], &[], location.clone());
    ir.op_mut(func).properties = props(vec![
        ("CConv", dialect("llvm.cconv", "ccc")),
        ("function_type", Attribute::Type(fty)),
        ("linkage", dialect("llvm.linkage", "internal")),
        ("sym_name", Attribute::String(SIMD_FUNCTION.into())),
        ("unnamed_addr", int(0, i64)),
        ("visibility_", int(0, i64)),
    ]);
    let new_region = ir.add_region(func);
    let entry = ir.create_block();
    ir.append_block(new_region, entry);
    let new_args: Vec<Value> =
        params.iter().map(|&t| ir.add_block_argument(entry, t, location.clone())).collect();

    let result = (|| -> Result<(), NotApplicable> {
        let mut e = Emitter {
            ir: &mut *ir,
            loc: location.clone(),
            region: new_region,
            cur: entry,
            i1,
            i8,
            i32,
            i64,
            ptr,
            mask_ty,
            vmap: FxHashMap::default(),
            divergence,
            edge_in: FxHashMap::default(),
            header_masks: FxHashMap::default(),
            loop_stack: Vec::new(),
            any_cache: FxHashMap::default(),
            splat_cache: FxHashMap::default(),
            zero_mask: new_args[9],
            true_mask: new_args[9],
            lane_ids: new_args[9],
            zero_page: new_args[0],
            sink_page: new_args[0],
        };
        e.zero_mask = e.val("llvm.mlir.zero", vec![], mask_ty, vec![]);
        e.true_mask = e.val(
            "llvm.mlir.constant",
            vec![],
            mask_ty,
            vec![("value", Attribute::Dense { elements: vec![int(1, i1)], ty: mask_ty })],
        );
        let v_i64 = e.vec_of(i64);
        e.lane_ids = e.val(
            "llvm.mlir.constant",
            vec![],
            v_i64,
            vec![(
                "value",
                Attribute::Dense {
                    elements: (0..LANES).map(|l| int(i128::from(l), i64)).collect(),
                    ty: v_i64,
                },
            )],
        );
        for (field, slot) in [(cx::ZERO_PAGE, 0), (cx::SINK_PAGE, 1)] {
            let off = e.constant(i128::from(field), i64);
            let gp = gep_props(e.ir, i8);
            let p = e.val("llvm.getelementptr", vec![new_args[0], off], ptr, gp);
            let page = e.val(
                "llvm.load",
                vec![p],
                ptr,
                vec![("alignment", int(8, i64)), ("invariant", Attribute::Unit), ("ordering", int(0, i64))],
            );
            if slot == 0 {
                e.zero_page = page;
            } else {
                e.sink_page = page;
            }
        }
        for (k, &a) in old_args.iter().enumerate() {
            let w = if e.divergence.is_varying(a) {
                Wide::Varying(vec![new_args[k]])
            } else {
                Wide::Uniform(new_args[k])
            };
            e.vmap.insert(a, w);
        }
        e.edge_in.insert(0, vec![(new_args[9], vec![])]);
        for item in order {
            e.item(&cfg, &loops, item)?;
        }
        let done = e.constant(i128::from(cx::STATE_DONE as i32), i32);
        e.op("llvm.return", vec![done], &[], vec![]);
        Ok(())
    })();
    match result {
        Ok(()) => {
            ir.append_op(module_block, func);
            Ok(SimdFunction { func, entry, ctx: new_args[0], uniform_yz })
        }
        Err(e) => {
            ir.erase_op(func);
            Err(e)
        }
    }
}

fn gep_props(ir: &mut Ir, i8: Type) -> Vec<(&'static str, Attribute)> {
    let raw = dense_i32(ir, &[i64::from(i32::MIN)]);
    let i32 = ir.types.integer(32, Signedness::Signless);
    vec![("elem_type", Attribute::Type(i8)), ("noWrapFlags", int(0, i32)), ("rawConstantIndices", raw)]
}

impl Emitter<'_> {
    fn item(&mut self, cfg: &Cfg, loops: &[Loop], item: Item) -> Result<(), NotApplicable> {
        match item {
            Item::Block(0) => {
                self.block(cfg, loops, 0)?;
                // The entry block keeps only the prologue (allocas, context loads) and
                // ends in a plain branch, where the cancel polls add their set-up.
                let next = self.ir.create_block();
                self.ir.append_block(self.region, next);
                let op = self.op("llvm.br", vec![], &[], vec![]);
                self.ir.op_mut(op).successors.push(next);
                self.cur = next;
                Ok(())
            }
            Item::Block(b) => self.block(cfg, loops, b),
            Item::LoopStart(l) => self.loop_start(cfg, loops, l),
            Item::LoopEnd(l) => self.loop_end(cfg, loops, l),
        }
    }

    fn arg_shapes(&mut self, block: BlockId) -> Result<(Vec<Type>, Vec<bool>), NotApplicable> {
        let args = self.ir.block(block).arguments.clone();
        let types: Vec<Type> = args.iter().map(|&a| self.ir.value_type(a)).collect();
        let varying: Vec<bool> = args.iter().map(|a| self.divergence.is_varying(*a)).collect();
        Ok((types, varying))
    }

    fn block(&mut self, cfg: &Cfg, loops: &[Loop], b: usize) -> Result<(), NotApplicable> {
        let block = cfg.blocks[b];
        let mask = match self.header_masks.get(&b) {
            Some(&m) => m,
            None => {
                let incoming = self.edge_in.remove(&b).unwrap_or_default();
                let mut mask = self.zero_mask;
                for (m, _) in &incoming {
                    mask = self.mask_or(mask, *m);
                }
                if b != 0 {
                    let (types, varying) = self.arg_shapes(block)?;
                    let values = self.merge(&incoming, &types, &varying)?;
                    let args = self.ir.block(block).arguments.clone();
                    for (a, w) in args.into_iter().zip(values) {
                        self.vmap.insert(a, w);
                    }
                }
                mask
            }
        };
        let ops = self.ir.block(block).ops.clone();
        let (last, body) = ops.split_last().expect("a terminator");
        for &op in body {
            self.emit_op(op, mask, b == 0)?;
        }
        self.terminator(cfg, loops, *last, mask)
    }

    fn terminator(&mut self, cfg: &Cfg, loops: &[Loop], op: OpId, mask: Value) -> Result<(), NotApplicable> {
        let o = self.ir.op(op).clone();
        match o.name.as_str() {
            "llvm.return" => self.resolve(loops, None, mask, vec![]),
            "llvm.br" | "llvm.cond_br" => {
                let mut edge_masks = vec![mask];
                if o.name == "llvm.cond_br" {
                    let c = self.wide(o.operands[0])?;
                    let (t, f) = match c {
                        Wide::Uniform(c) => {
                            let z = self.zero_mask;
                            (self.select(c, mask, z), self.select(c, z, mask))
                        }
                        Wide::Varying(cs) => {
                            let t = self.mask_and(mask, cs[0]);
                            let nc = self.mask_not(cs[0]);
                            (t, self.mask_and(mask, nc))
                        }
                    };
                    edge_masks = vec![t, f];
                }
                for (k, &target) in o.successors.iter().enumerate() {
                    let args: Vec<Wide> = successor_operands(self.ir, op, k)
                        .into_iter()
                        .map(|v| self.wide(v))
                        .collect::<Result<_, _>>()?;
                    let Some(s) = cfg.index_of(target) else {
                        return refuse("a branch to an unreached block");
                    };
                    self.resolve(loops, Some(s), edge_masks[k], args)?;
                }
                Ok(())
            }
            other => refuse(format!("the terminator {other}")),
        }
    }

    fn loop_start(&mut self, cfg: &Cfg, loops: &[Loop], l: usize) -> Result<(), NotApplicable> {
        let lp = &loops[l];
        let h = lp.header;
        let header_block = cfg.blocks[h];
        let incoming = self.edge_in.remove(&h).unwrap_or_default();
        let mut m_in = self.zero_mask;
        for (m, _) in &incoming {
            m_in = self.mask_or(m_in, *m);
        }
        let (types, varying) = self.arg_shapes(header_block)?;
        let args_in = self.merge(&incoming, &types, &varying)?;
        // Header block arguments: mask, the header's arguments, per exit its mask and
        // arguments, the captured live-out values.
        let hdr = self.ir.create_block();
        self.ir.append_block(self.region, hdr);
        let mut initial = vec![m_in];
        let mut arg_types = vec![self.mask_ty];
        for (w, (&ty, &v)) in args_in.iter().zip(types.iter().zip(&varying)) {
            let vals = if v { self.as_varying(w, ty)? } else { flatten(w) };
            for &x in &vals {
                arg_types.push(self.ir.value_type(x));
            }
            initial.extend(vals);
        }
        let mut exit_shapes = Vec::new();
        for &target in &lp.exits {
            let z = self.zero_mask;
            initial.push(z);
            arg_types.push(self.mask_ty);
            let mut shapes = Vec::new();
            if let Some(s) = target {
                let (tys, vary) = self.arg_shapes(cfg.blocks[s])?;
                for (&ty, &v) in tys.iter().zip(&vary) {
                    let (p, ptys) = self.poison_like(ty, v)?;
                    initial.extend(flatten(&p));
                    arg_types.extend(ptys.iter().copied());
                    shapes.push((v, ptys.len()));
                }
            }
            exit_shapes.push(shapes);
        }
        let mut capture_shapes = Vec::new();
        for &v in &lp.live_out {
            let ty = self.ir.value_type(v);
            let vary = self.divergence.is_varying(v);
            let (p, ptys) = self.poison_like(ty, vary)?;
            initial.extend(flatten(&p));
            arg_types.extend(ptys.iter().copied());
            capture_shapes.push((vary, ptys.len()));
        }
        let op = self.op("llvm.br", initial, &[], vec![]);
        self.ir.op_mut(op).successors.push(hdr);
        let hargs: Vec<Value> =
            arg_types.iter().map(|&t| self.ir.add_block_argument(hdr, t, self.loc.clone())).collect();
        self.cur = hdr;
        let mut at = 1;
        self.header_masks.insert(h, hargs[0]);
        let old = self.ir.block(header_block).arguments.clone();
        for (k, &a) in old.iter().enumerate() {
            let w = if varying[k] {
                let n = self.components_of(types[k])?.len();
                let w = Wide::Varying(hargs[at..at + n].to_vec());
                at += n;
                w
            } else {
                at += 1;
                Wide::Uniform(hargs[at - 1])
            };
            self.vmap.insert(a, w);
        }
        let mut exits = Vec::new();
        for (target, shapes) in lp.exits.iter().zip(&exit_shapes) {
            let acc = hargs[at];
            at += 1;
            let n: usize = shapes.iter().map(|s| s.1).sum();
            let caps = unflatten(&hargs[at..at + n], shapes);
            at += n;
            exits.push((*target, acc, caps));
        }
        let mut captures = Vec::new();
        for (&v, &shape) in lp.live_out.iter().zip(&capture_shapes) {
            let caps = unflatten(&hargs[at..at + shape.1], &[shape]);
            at += shape.1;
            captures.push((v, caps.into_iter().next().expect("one")));
        }
        self.loop_stack.push(LoopState { index: l, exits, captures });
        Ok(())
    }

    fn loop_end(&mut self, cfg: &Cfg, loops: &[Loop], l: usize) -> Result<(), NotApplicable> {
        let h = loops[l].header;
        let header_block = cfg.blocks[h];
        let back = self.edge_in.remove(&h).unwrap_or_default();
        let mut cont = self.zero_mask;
        for (m, _) in &back {
            cont = self.mask_or(cont, *m);
        }
        let (types, varying) = self.arg_shapes(header_block)?;
        let next = self.merge(&back, &types, &varying)?;
        let state = self.loop_stack.pop().expect("the loop");
        let mut operands = vec![cont];
        for (w, (&ty, &v)) in next.iter().zip(types.iter().zip(&varying)) {
            operands.extend(if v { self.as_varying(w, ty)? } else { flatten(w) });
        }
        for (_, acc, caps) in &state.exits {
            operands.push(*acc);
            for c in caps {
                operands.extend(flatten(c));
            }
        }
        for (_, c) in &state.captures {
            operands.extend(flatten(c));
        }
        let any = self.any(cont);
        let after = self.ir.create_block();
        self.ir.append_block(self.region, after);
        // The loop's header block: the one its first argument (the mask) belongs to.
        let hmask = self.header_masks[&h];
        let ValueDef::Argument { block: hdr, .. } = self.ir.value(hmask).def else {
            return refuse("internal: the loop mask is not a block argument");
        };
        let sizes = dense_i32(self.ir, &[1, operands.len() as i64, 0]);
        let mut all = vec![any];
        all.extend(operands);
        let op = self.op("llvm.cond_br", all, &[], vec![("operandSegmentSizes", sizes)]);
        self.ir.op_mut(op).successors.extend([hdr, after]);
        self.cur = after;
        self.header_masks.remove(&h);
        // Values leaving the loop are the captured ones; then the exits are edges of
        // the enclosing code.
        for (v, c) in &state.captures {
            self.vmap.insert(*v, c.clone());
        }
        for (target, acc, caps) in state.exits {
            self.resolve(loops, target, acc, caps)?;
        }
        Ok(())
    }

    /// The pointer of a uniform access in a block where no lane may run: the zero or
    /// sink page then.
    fn guard_pointer(&mut self, p: Value, mask: Value, in_entry: bool, page: Value) -> Value {
        if in_entry {
            return p;
        }
        let any = self.any(mask);
        self.select(any, p, page)
    }

    fn emit_op(&mut self, op: OpId, mask: Value, in_entry: bool) -> Result<(), NotApplicable> {
        let o = self.ir.op(op).clone();
        if !o.regions.is_empty() {
            return refuse(format!("the op {} with regions", o.name));
        }
        let operands: Vec<Wide> = o.operands.iter().map(|&v| self.wide(v)).collect::<Result<_, _>>()?;
        let all_uniform = operands.iter().all(|w| matches!(w, Wide::Uniform(_)));
        let uniform_operands: Vec<Value> = operands
            .iter()
            .filter_map(|w| match w {
                Wide::Uniform(v) => Some(*v),
                _ => None,
            })
            .collect();
        let result_types: Vec<Type> = o.results.iter().map(|&r| self.ir.value_type(r)).collect();
        let name = o.name.as_str();
        let ordering = match o.attr("ordering") {
            Some(Attribute::Integer { value, .. }) => *value,
            _ => 0,
        };
        match name {
            "llvm.call"
            | "llvm.call_intrinsic"
            | "llvm.atomicrmw"
            | "llvm.cmpxchg"
            | "llvm.fence"
            | "llvm.inline_asm" => {
                return refuse(format!("{name} (atomics and calls run one invocation at a time)"));
            }
            _ if name.starts_with("llvm.intr.mem") => return refuse(name.to_string()),
            "llvm.alloca" => {
                if !in_entry {
                    return refuse("an alloca outside the entry block");
                }
                let Some(Attribute::Type(elem)) = o.attr("elem_type").cloned() else {
                    return refuse("an alloca without a type");
                };
                let count = o.operands.first().and_then(|&c| constant_int(self.ir, c)).unwrap_or(1);
                let (_, size, _) = llvm_type_layout(self.ir, elem)
                    .ok_or_else(|| NotApplicable("an alloca of a type without a size".into()))?;
                let per_lane =
                    u64::try_from(count).ok().and_then(|c| c.checked_mul(size)).filter(|&b| b <= 1 << 20);
                let Some(per_lane) = per_lane else { return refuse("a large alloca") };
                let n = self.constant(count * i128::from(LANES), self.i32);
                let mut p = o.properties.clone();
                p.retain(|a| a.name != "elem_type" && a.name != "alignment");
                let align = match o.attr("alignment") {
                    Some(Attribute::Integer { value, .. }) => *value,
                    _ => 16,
                };
                let base = self.val(
                    "llvm.alloca",
                    vec![n],
                    self.ptr,
                    vec![("alignment", int(align.max(16), self.i64)), ("elem_type", Attribute::Type(elem))],
                );
                let stride = self.constant(i128::from(per_lane), self.i64);
                let stride = self.splat(stride);
                let lanes = self.lane_ids;
                let offsets = self.binary("llvm.mul", lanes, stride);
                let v_ptr = self.vec_of(self.ptr);
                let i8 = self.i8;
                let gp = gep_props(self.ir, i8);
                let lane_ptrs = self.val("llvm.getelementptr", vec![base, offsets], v_ptr, gp);
                self.vmap.insert(o.results[0], Wide::Varying(vec![lane_ptrs]));
                return Ok(());
            }
            "llvm.load" => {
                let ty = result_types[0];
                match &operands[0] {
                    Wide::Uniform(p) => {
                        let p = self.guard_pointer(*p, mask, in_entry, self.zero_page);
                        let new = self.ir.create_op(name, vec![p], &[ty], o.location.clone());
                        self.ir.op_mut(new).properties = o.properties.clone();
                        self.ir.op_mut(new).attributes = o.attributes.clone();
                        self.ir.append_op(self.cur, new);
                        let r = self.ir.op(new).results[0];
                        self.vmap.insert(o.results[0], Wide::Uniform(r));
                    }
                    Wide::Varying(ps) => {
                        if ordering != 0 {
                            return refuse("an atomic load of a varying address");
                        }
                        let lane_ptrs = ps[0];
                        let comps = self.components_of(ty)?;
                        if !in_entry
                            && comps.len() == 1
                            && !matches!(self.ir.types.kind(ty), TypeKind::Vector { .. })
                        {
                            let v = self.load_lanes(lane_ptrs, ty, mask, &o)?;
                            self.vmap.insert(o.results[0], Wide::Varying(vec![v]));
                            return Ok(());
                        }
                        let mut out = Vec::new();
                        for (k, &elem) in comps.iter().enumerate() {
                            let (size, _, _) = llvm_type_layout(self.ir, elem)
                                .ok_or_else(|| NotApplicable("no size".into()))?;
                            let p = self.component_pointer(lane_ptrs, k as u64 * size);
                            let vty = self.vec_of(elem);
                            let zero = self.val("llvm.mlir.zero", vec![], vty, vec![]);
                            let align = element_alignment(&o, size);
                            let g = self.val(
                                "llvm.intr.masked.gather",
                                vec![p, mask, zero],
                                vty,
                                vec![("alignment", int(align, self.i32))],
                            );
                            out.push(g);
                        }
                        self.vmap.insert(o.results[0], Wide::Varying(out));
                    }
                }
                return Ok(());
            }
            "llvm.store" => {
                let value_ty = self.ir.value_type(o.operands[0]);
                match (&operands[0], &operands[1]) {
                    (v, Wide::Varying(ps)) => {
                        if ordering != 0 {
                            return refuse("an atomic store to a varying address");
                        }
                        let lane_ptrs = ps[0];
                        let comps = self.components_of(value_ty)?;
                        for (k, &elem) in comps.iter().enumerate() {
                            let (size, _, _) = llvm_type_layout(self.ir, elem)
                                .ok_or_else(|| NotApplicable("no size".into()))?;
                            let p = self.component_pointer(lane_ptrs, k as u64 * size);
                            let value = self.component(v, k)?;
                            let align = element_alignment(&o, size);
                            self.op(
                                "llvm.intr.masked.scatter",
                                vec![value, p, mask],
                                &[],
                                vec![("alignment", int(align, self.i32))],
                            );
                        }
                    }
                    (v, Wide::Uniform(p)) => {
                        let value = match v {
                            Wide::Uniform(x) => *x,
                            Wide::Varying(vs) => {
                                if ordering != 0 {
                                    return refuse("an atomic store of a varying value");
                                }
                                self.last_active_lane_value(vs, value_ty, mask)?
                            }
                        };
                        let p = self.guard_pointer(*p, mask, in_entry, self.sink_page);
                        let new = self.ir.create_op(name, vec![value, p], &[], o.location.clone());
                        self.ir.op_mut(new).properties = o.properties.clone();
                        self.ir.op_mut(new).attributes = o.attributes.clone();
                        self.ir.append_op(self.cur, new);
                    }
                }
                return Ok(());
            }
            _ => {}
        }
        let divides = matches!(name, "llvm.udiv" | "llvm.sdiv" | "llvm.urem" | "llvm.srem");
        if all_uniform {
            let mut new_operands = uniform_operands;
            if divides && !in_entry {
                // A divisor of a block no lane runs might be zero.
                let ty = result_types[0];
                let one = self.constant(1, ty);
                let any = self.any(mask);
                new_operands[1] = self.select(any, new_operands[1], one);
            }
            let new = self.ir.create_op(name, new_operands, &result_types, o.location.clone());
            self.ir.op_mut(new).properties = o.properties.clone();
            self.ir.op_mut(new).attributes = o.attributes.clone();
            self.ir.append_op(self.cur, new);
            let results = self.ir.op(new).results.clone();
            for (&old, new) in o.results.iter().zip(results) {
                self.vmap.insert(old, Wide::Uniform(new));
            }
            return Ok(());
        }
        if name == "llvm.getelementptr" {
            let mut new_operands = Vec::new();
            for w in &operands {
                new_operands.push(match w {
                    Wide::Uniform(v) => *v,
                    Wide::Varying(vs) if vs.len() == 1 => vs[0],
                    Wide::Varying(_) => return refuse("a vector index of a varying address"),
                });
            }
            let v_ptr = self.vec_of(self.ptr);
            let new = self.ir.create_op(name, new_operands, &[v_ptr], o.location.clone());
            self.ir.op_mut(new).properties = o.properties.clone();
            self.ir.append_op(self.cur, new);
            let r = self.ir.op(new).results[0];
            self.vmap.insert(o.results[0], Wide::Varying(vec![r]));
            return Ok(());
        }
        match name {
            "llvm.extractelement" => {
                let Some(index) = constant_int(self.ir, o.operands[1]) else {
                    return refuse("extractelement of a varying vector at a variable index");
                };
                let Wide::Varying(vs) = &operands[0] else {
                    return refuse("extractelement at a varying index");
                };
                let v = vs.get(index as usize).copied();
                let v = match v {
                    Some(v) => v,
                    None => {
                        let vty = self.vec_of(result_types[0]);
                        self.val("llvm.mlir.poison", vec![], vty, vec![])
                    }
                };
                self.vmap.insert(o.results[0], Wide::Varying(vec![v]));
                return Ok(());
            }
            "llvm.insertelement" => {
                let Some(index) = constant_int(self.ir, o.operands[2]) else {
                    return refuse("insertelement into a varying vector at a variable index");
                };
                let ty = result_types[0];
                let n = self.components_of(ty)?.len();
                let mut comps = Vec::new();
                for k in 0..n {
                    comps.push(if k as i128 == index {
                        self.component(&operands[1], 0)?
                    } else {
                        self.component(&operands[0], k)?
                    });
                }
                self.vmap.insert(o.results[0], Wide::Varying(comps));
                return Ok(());
            }
            "llvm.shufflevector" => {
                let Some(Attribute::DenseArray { values, .. }) = o.attr("mask").cloned() else {
                    return refuse("shufflevector without a mask");
                };
                let ta = self.ir.value_type(o.operands[0]);
                let na = self.components_of(ta)?.len();
                let tb = self.ir.value_type(o.operands[1]);
                let nb = self.components_of(tb)?.len();
                let mut all = Vec::new();
                for k in 0..na {
                    all.push(self.component(&operands[0], k)?);
                }
                for k in 0..nb {
                    all.push(self.component(&operands[1], k)?);
                }
                let elem = self.components_of(result_types[0])?[0];
                let vty = self.vec_of(elem);
                let mut comps = Vec::new();
                for m in values {
                    let Attribute::Integer { value, .. } = m else { return refuse("a shufflevector mask") };
                    comps.push(match all.get(value as usize) {
                        Some(&v) if value >= 0 => v,
                        _ => self.val("llvm.mlir.poison", vec![], vty, vec![]),
                    });
                }
                self.vmap.insert(o.results[0], Wide::Varying(comps));
                return Ok(());
            }
            _ => {}
        }
        if !is_elementwise(name) || result_types.len() != 1 {
            return refuse(format!("the op {name} on values that differ per invocation"));
        }
        let rty = result_types[0];
        let relems = self.components_of(rty)?;
        for (i, &v) in o.operands.iter().enumerate() {
            let ty = self.ir.value_type(v);
            let n = self.components_of(ty)?.len();
            if n != relems.len() && !(name == "llvm.select" && i == 0 && n == 1) {
                return refuse(format!("{name} changing the vector width of a varying value"));
            }
        }
        let mut comps = Vec::new();
        for (k, &elem) in relems.iter().enumerate() {
            let mut ops = Vec::new();
            for (i, w) in operands.iter().enumerate() {
                let v = match w {
                    // A select's uniform scalar condition stays scalar.
                    Wide::Uniform(c)
                        if name == "llvm.select" && i == 0 && self.ir.value_type(*c) == self.i1 =>
                    {
                        *c
                    }
                    _ => self.component(w, k)?,
                };
                ops.push(v);
            }
            if divides {
                let ty = self.ir.value_type(ops[1]);
                let TypeKind::Vector { element, .. } = self.ir.types.kind(ty).clone() else {
                    return refuse("internal: a divisor is not a vector");
                };
                let one = self.constant(1, element);
                let ones = self.splat(one);
                ops[1] = self.select(mask, ops[1], ones);
            }
            let vty = self.vec_of(elem);
            let new = self.ir.create_op(name, ops, &[vty], o.location.clone());
            self.ir.op_mut(new).properties = o.properties.clone();
            self.ir.op_mut(new).attributes = o.attributes.clone();
            self.ir.append_op(self.cur, new);
            comps.push(self.ir.op(new).results[0]);
        }
        self.vmap.insert(o.results[0], Wide::Varying(comps));
        Ok(())
    }

    /// A scalar load in every lane: one vector load when the active lanes' addresses
    /// are consecutive, one scalar load when they are all the same, a gather otherwise
    /// (checked at run time on the bounds-checked lane pointers, so every load touches
    /// only what the active lanes would).
    fn load_lanes(
        &mut self,
        lane_ptrs: Value,
        ty: Type,
        mask: Value,
        o: &spirvkit_ir::ir::Operation,
    ) -> Result<Value, NotApplicable> {
        let (size, _, _) = llvm_type_layout(self.ir, ty).ok_or_else(|| NotApplicable("no size".into()))?;
        let align = element_alignment(o, size);
        let (i32, i64) = (self.i32, self.i64);
        let vty = self.vec_of(ty);
        let v_i64 = self.vec_of(i64);
        // Inactive lanes may hold poison: frozen before they are compared.
        let frozen = self.val("llvm.freeze", vec![lane_ptrs], self.ir.value_type(lane_ptrs), vec![]);
        let ints = self.val("llvm.ptrtoint", vec![frozen], v_i64, vec![]);
        let zero = self.constant(0, i32);
        let first = self.val("llvm.extractelement", vec![ints, zero], i64, vec![]);
        let first_ptr = self.val("llvm.extractelement", vec![frozen, zero], self.ptr, vec![]);
        let first_all = self.splat(first);
        let size_c = self.constant(i128::from(size), i64);
        let size_all = self.splat(size_c);
        let lanes = self.lane_ids;
        let steps = self.binary("llvm.mul", lanes, size_all);
        let expected = self.binary("llvm.add", first_all, steps);
        let off = self.mask_not(mask);
        let all_lanes = |e: &mut Self, a: Value, b: Value| -> Value {
            let mask_ty = e.mask_ty;
            let eq = e.val("llvm.icmp", vec![a, b], mask_ty, vec![("predicate", int(0, e.i64))]);
            let fine = e.binary("llvm.or", eq, off);
            let i1 = e.i1;
            e.val("llvm.intr.vector.reduce.and", vec![fine], i1, vec![])
        };
        let consecutive = all_lanes(self, ints, expected);
        let same = all_lanes(self, ints, first_all);
        let [vector_bb, test_bb, scalar_bb, gather_bb, join] = [(); 5].map(|_| {
            let b = self.ir.create_block();
            self.ir.append_block(self.region, b);
            b
        });
        let result = self.ir.add_block_argument(join, vty, self.loc.clone());
        let cond_br = |e: &mut Self, c: Value, t: BlockId, f: BlockId| {
            let sizes = dense_i32(e.ir, &[1, 0, 0]);
            let op = e.op("llvm.cond_br", vec![c], &[], vec![("operandSegmentSizes", sizes)]);
            e.ir.op_mut(op).successors.extend([t, f]);
        };
        let br = |e: &mut Self, v: Value| {
            let op = e.op("llvm.br", vec![v], &[], vec![]);
            e.ir.op_mut(op).successors.push(join);
        };
        cond_br(self, consecutive, vector_bb, test_bb);
        // Values made in these blocks stay local to them (no caches).
        self.cur = vector_bb;
        let passthru = self.val("llvm.mlir.zero", vec![], vty, vec![]);
        let v = self.val(
            "llvm.intr.masked.load",
            vec![first_ptr, mask, passthru],
            vty,
            vec![("alignment", int(align, i32))],
        );
        br(self, v);
        self.cur = test_bb;
        cond_br(self, same, scalar_bb, gather_bb);
        self.cur = scalar_bb;
        let x = self.val(
            "llvm.load",
            vec![first_ptr],
            ty,
            vec![("alignment", int(align, i64)), ("ordering", int(0, i64))],
        );
        let poison = self.val("llvm.mlir.poison", vec![], vty, vec![]);
        let zero = self.constant(0, i32);
        let inserted = self.val("llvm.insertelement", vec![poison, x, zero], vty, vec![]);
        let splat_mask = dense_i32(self.ir, &vec![0; LANES as usize]);
        let v = self.val("llvm.shufflevector", vec![inserted, poison], vty, vec![("mask", splat_mask)]);
        br(self, v);
        self.cur = gather_bb;
        let passthru = self.val("llvm.mlir.zero", vec![], vty, vec![]);
        let v = self.val(
            "llvm.intr.masked.gather",
            vec![lane_ptrs, mask, passthru],
            vty,
            vec![("alignment", int(align, i32))],
        );
        br(self, v);
        self.cur = join;
        Ok(result)
    }

    /// Lane pointers moved by `offset` bytes.
    fn component_pointer(&mut self, lane_ptrs: Value, offset: u64) -> Value {
        if offset == 0 {
            return lane_ptrs;
        }
        let off = self.constant(i128::from(offset), self.i64);
        let ty = self.ir.value_type(lane_ptrs);
        let i8 = self.i8;
        let gp = gep_props(self.ir, i8);
        self.val("llvm.getelementptr", vec![lane_ptrs, off], ty, gp)
    }

    /// The value of the last lane on in `mask` (the scalar order's last writer).
    fn last_active_lane_value(
        &mut self,
        comps: &[Value],
        ty: Type,
        mask: Value,
    ) -> Result<Value, NotApplicable> {
        let i8 = self.i8;
        let bits = self.val("llvm.bitcast", vec![mask], i8, vec![]);
        let lz = self.val("llvm.intr.ctlz", vec![bits], i8, vec![("is_zero_poison", Attribute::Bool(false))]);
        let top = self.constant(i128::from(LANES - 1), i8);
        let lane = self.binary("llvm.sub", top, lz);
        let lane = self.binary("llvm.and", lane, top);
        let i32 = self.i32;
        let lane = self.val("llvm.zext", vec![lane], i32, vec![]);
        let elems = self.components_of(ty)?;
        if elems.len() == 1 && comps.len() == 1 && !matches!(self.ir.types.kind(ty), TypeKind::Vector { .. })
        {
            return Ok(self.val("llvm.extractelement", vec![comps[0], lane], ty, vec![]));
        }
        let mut v = self.val("llvm.mlir.poison", vec![], ty, vec![]);
        for (k, &elem) in elems.iter().enumerate() {
            let x = self.val("llvm.extractelement", vec![comps[k], lane], elem, vec![]);
            let idx = self.constant(k as i128, i32);
            v = self.val("llvm.insertelement", vec![v, x, idx], ty, vec![]);
        }
        Ok(v)
    }
}

fn element_alignment(o: &spirvkit_ir::ir::Operation, size: u64) -> i128 {
    let align = match o.attr("alignment") {
        Some(Attribute::Integer { value, .. }) if *value > 0 => *value,
        _ => 1,
    };
    align.min(i128::from(size.max(1))).max(1)
}

// ---------------------------------------------------------------------------------------
// The workgroup function over SIMD calls.

/// `spirvkit_workgroup(ctx, gx, gy, gz)`: the flattened local index steps by [`LANES`];
/// lanes past the workgroup size are off. Stops when a call reports cancellation.
pub fn build_simd_workgroup_loop(
    ir: &mut Ir,
    module_block: BlockId,
    simd: &SimdFunction,
    size: [u32; 3],
    loc: &Location,
) {
    let i1 = ir.types.integer(1, Signedness::Signless);
    let i32 = ir.types.integer(32, Signedness::Signless);
    let i64 = ir.types.integer(64, Signedness::Signless);
    let ptr = ir.types.llvm_pointer(0);
    let v_i32 = ir.types.vector(LANES, i32);
    let mask_ty = ir.types.vector(LANES, i1);
    let (region, entry, ctx, groups) = super::workgroup::workgroup_function_shell(ir, module_block, loc);
    let header = ir.create_block();
    let body = ir.create_block();
    let done = ir.create_block();
    for b in [header, body, done] {
        ir.append_block(region, b);
    }
    let c = |ir: &mut Ir, b: BlockId, v: i128, ty: Type| -> Value {
        let op = new_op(ir, b, "llvm.mlir.constant", vec![], &[ty], props(vec![("value", int(v, ty))]), loc);
        ir.op(op).results[0]
    };
    let bin = |ir: &mut Ir, b: BlockId, name: &str, x: Value, y: Value| -> Value {
        let ty = ir.value_type(x);
        let p = if matches!(name, "llvm.add" | "llvm.sub" | "llvm.mul") {
            vec![("overflowFlags", int(0, i32))]
        } else {
            vec![]
        };
        let op = new_op(ir, b, name, vec![x, y], &[ty], props(p), loc);
        ir.op(op).results[0]
    };
    let splat = |ir: &mut Ir, b: BlockId, v: Value| -> Value {
        let poison = new_op(ir, b, "llvm.mlir.poison", vec![], &[v_i32], vec![], loc);
        let poison = ir.op(poison).results[0];
        let zero = c(ir, b, 0, i32);
        let ins = new_op(ir, b, "llvm.insertelement", vec![poison, v, zero], &[v_i32], vec![], loc);
        let ins = ir.op(ins).results[0];
        let mask = dense_i32(ir, &vec![0; LANES as usize]);
        let s = new_op(
            ir,
            b,
            "llvm.shufflevector",
            vec![ins, poison],
            &[v_i32],
            props(vec![("mask", mask)]),
            loc,
        );
        ir.op(s).results[0]
    };
    let zero = c(ir, entry, 0, i32);
    let br = new_op(ir, entry, "llvm.br", vec![zero], &[], vec![], loc);
    ir.op_mut(br).successors.push(header);
    let i = ir.add_block_argument(header, i32, loc.clone());
    let [sx, sy, sz] = size;
    let total = u64::from(sx) * u64::from(sy) * u64::from(sz);
    let total_v = c(ir, header, i128::from(total), i32);
    let more = new_op(
        ir,
        header,
        "llvm.icmp",
        vec![i, total_v],
        &[i1],
        props(vec![("predicate", int(6, i64))]),
        loc,
    );
    let more = ir.op(more).results[0];
    let sizes = dense_i32(ir, &[1, 0, 0]);
    let cb =
        new_op(ir, header, "llvm.cond_br", vec![more], &[], props(vec![("operandSegmentSizes", sizes)]), loc);
    ir.op_mut(cb).successors.extend([body, done]);

    // Lane l is invocation i + l.
    let lanes = new_op(
        ir,
        body,
        "llvm.mlir.constant",
        vec![],
        &[v_i32],
        props(vec![(
            "value",
            Attribute::Dense { elements: (0..LANES).map(|l| int(i128::from(l), i32)).collect(), ty: v_i32 },
        )]),
        loc,
    );
    let lanes = ir.op(lanes).results[0];
    let base = splat(ir, body, i);
    let index = bin(ir, body, "llvm.add", base, lanes);
    let total_s = c(ir, body, i128::from(total), i32);
    let total_splat = splat(ir, body, total_s);
    let mask = new_op(
        ir,
        body,
        "llvm.icmp",
        vec![index, total_splat],
        &[mask_ty],
        props(vec![("predicate", int(6, i64))]),
        loc,
    );
    let mask = ir.op(mask).results[0];
    let sx_v = c(ir, body, i128::from(sx), i32);
    let sy_v = c(ir, body, i128::from(sy), i32);
    let sxy_v = c(ir, body, i128::from(u64::from(sx) * u64::from(sy)), i32);
    let (lx, ly, lz) = if simd.uniform_yz {
        // x is a multiple of the lane count: the lanes share y and z.
        let x0 = bin(ir, body, "llvm.urem", i, sx_v);
        let x0 = splat(ir, body, x0);
        let lx = bin(ir, body, "llvm.add", x0, lanes);
        let row = bin(ir, body, "llvm.udiv", i, sx_v);
        let ly = bin(ir, body, "llvm.urem", row, sy_v);
        let lz = bin(ir, body, "llvm.udiv", i, sxy_v);
        (lx, ly, lz)
    } else {
        let sx_s = splat(ir, body, sx_v);
        let sy_s = splat(ir, body, sy_v);
        let sxy_s = splat(ir, body, sxy_v);
        let lx = bin(ir, body, "llvm.urem", index, sx_s);
        let row = bin(ir, body, "llvm.udiv", index, sx_s);
        let ly = bin(ir, body, "llvm.urem", row, sy_s);
        let lz = bin(ir, body, "llvm.udiv", index, sxy_s);
        (lx, ly, lz)
    };
    let null = new_op(ir, body, "llvm.mlir.zero", vec![], &[ptr], vec![], loc);
    let null = ir.op(null).results[0];
    let state = c(ir, body, 0, i32);
    let operands = vec![ctx, lx, ly, lz, groups[0], groups[1], groups[2], null, state, mask];
    let segments = dense_i32(ir, &[operands.len() as i64, 0]);
    let bundles = dense_i32(ir, &[]);
    let call = new_op(
        ir,
        body,
        "llvm.call",
        operands,
        &[i32],
        props(vec![
            ("CConv", dialect("llvm.cconv", "ccc")),
            ("TailCallKind", dialect("llvm.tailcallkind", "none")),
            ("callee", Attribute::SymbolRef(vec![SIMD_FUNCTION.into()])),
            ("fastmathFlags", dialect("llvm.fastmath", "none")),
            ("op_bundle_sizes", bundles),
            ("operandSegmentSizes", segments),
        ]),
        loc,
    );
    let r = ir.op(call).results[0];
    let cancelled = c(ir, body, i128::from(cx::STATE_CANCELLED as i32), i32);
    let stop = new_op(
        ir,
        body,
        "llvm.icmp",
        vec![r, cancelled],
        &[i1],
        props(vec![("predicate", int(0, i64))]),
        loc,
    );
    let stop = ir.op(stop).results[0];
    let step = c(ir, body, i128::from(LANES), i32);
    let next = bin(ir, body, "llvm.add", i, step);
    let sizes = dense_i32(ir, &[1, 0, 1]);
    let cb = new_op(
        ir,
        body,
        "llvm.cond_br",
        vec![stop, next],
        &[],
        props(vec![("operandSegmentSizes", sizes)]),
        loc,
    );
    ir.op_mut(cb).successors.extend([done, header]);
    new_op(ir, done, "llvm.return", vec![], &[], vec![], loc);
}

#[cfg(test)]
mod tests;
