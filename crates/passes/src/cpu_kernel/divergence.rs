//! Which values of a kernel function differ between the invocations of a workgroup
//! (divergence analysis), over the LLVM dialect CFG the kernel pass works on.
//!
//! Invocations run the same code; a value is *uniform* when every invocation that
//! computes it computes the same value, *varying* otherwise. The kernel pass uses this
//! to keep uniform values once per workgroup (across barriers) and scalar (in SIMD
//! code), and to know which branches invocations may take differently.
//!
//! The rules (a forward fixpoint, conservative):
//! - the caller's seeds are varying (local invocation ids, per-invocation frames);
//! - allocas, atomics (their results), atomic or volatile loads and calls are varying;
//!   a plain load is varying when its pointer is: invocations that load one address
//!   between two barriers see one value (anything else is a data race, undefined in
//!   SPIR-V);
//! - any other result is varying when one of its operands is;
//! - a conditional branch or switch on a varying value is divergent. The arguments of
//!   the blocks where paths from two of its successor edges may meet again (within its
//!   influence region: the blocks reachable from it before its immediate
//!   post-dominator, and that post-dominator) are varying: different invocations
//!   arrive from different edges. A block only one edge leads to (a loop after an early
//!   return) is no join: its uniform loop counter stays uniform;
//! - a loop that invocations may leave in different iterations (a divergent branch in
//!   its body whose influence region leaves the loop) is divergent, and every value it
//!   defines that is used outside it is varying (each invocation sees its own last
//!   iteration).

use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::attr::{dense_counts, Attribute};
use spirvkit_ir::ir::{BlockId, Ir, OpId, RegionId, Value};

/// The control flow graph of one region: blocks reachable from the entry in reverse
/// post-order, with dominators, post-dominators and natural loops.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// Reachable blocks in reverse post-order (the entry first).
    pub blocks: Vec<BlockId>,
    index: FxHashMap<BlockId, usize>,
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
    /// Immediate dominator by index (the entry is its own).
    idom: Vec<usize>,
    /// Immediate post-dominator by index; `None`: the virtual exit (or a block that
    /// reaches no exit).
    ipdom: Vec<Option<usize>>,
    /// Natural loops: header index -> body indices (header included), outermost first.
    loops: Vec<(usize, FxHashSet<usize>)>,
}

impl Cfg {
    pub fn new(ir: &Ir, region: RegionId) -> Cfg {
        let all = &ir.region(region).blocks;
        let Some(&entry) = all.first() else {
            return Cfg {
                blocks: Vec::new(),
                index: FxHashMap::default(),
                succs: Vec::new(),
                preds: Vec::new(),
                idom: Vec::new(),
                ipdom: Vec::new(),
                loops: Vec::new(),
            };
        };
        // Depth-first post-order from the entry, iteratively (deep CFGs must not
        // overflow the stack).
        let mut post = Vec::new();
        let mut seen: FxHashSet<BlockId> = FxHashSet::default();
        let mut stack: Vec<(BlockId, Vec<BlockId>)> = vec![(entry, successors(ir, entry))];
        seen.insert(entry);
        while let Some((b, next)) = stack.last_mut() {
            if let Some(s) = next.pop() {
                if seen.insert(s) {
                    let n = successors(ir, s);
                    stack.push((s, n));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
        post.reverse();
        let blocks = post;
        let index: FxHashMap<BlockId, usize> = blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let n = blocks.len();
        let mut succs = vec![Vec::new(); n];
        let mut preds = vec![Vec::new(); n];
        for (i, &b) in blocks.iter().enumerate() {
            for s in successors(ir, b) {
                let j = index[&s];
                if !succs[i].contains(&j) {
                    succs[i].push(j);
                    preds[j].push(i);
                }
            }
        }
        let idom = dominators(n, &preds, &(0..n).collect::<Vec<_>>());
        let ipdom = post_dominators(n, &succs);
        let loops = natural_loops(n, &succs, &preds, &idom);
        Cfg { blocks, index, succs, preds, idom, ipdom, loops }
    }

    /// The index of a reachable block.
    pub fn index_of(&self, b: BlockId) -> Option<usize> {
        self.index.get(&b).copied()
    }

    pub fn successors(&self, i: usize) -> &[usize] {
        &self.succs[i]
    }

    pub fn predecessors(&self, i: usize) -> &[usize] {
        &self.preds[i]
    }

    /// Whether block `a` dominates block `b` (indices).
    pub fn dominates(&self, a: usize, mut b: usize) -> bool {
        loop {
            if a == b {
                return true;
            }
            if b == 0 {
                return false;
            }
            b = self.idom[b];
        }
    }

    pub fn immediate_dominator(&self, i: usize) -> Option<usize> {
        (i != 0).then(|| self.idom[i])
    }

    /// The immediate post-dominator; `None` when it is the virtual exit.
    pub fn immediate_post_dominator(&self, i: usize) -> Option<usize> {
        self.ipdom[i]
    }

    /// Natural loops (header, body including the header), an outer loop before the
    /// loops nested in it.
    pub fn loops(&self) -> &[(usize, FxHashSet<usize>)] {
        &self.loops
    }

    /// Whether every cycle is a natural loop: each retreating edge of the depth-first
    /// order (to a block not after its source in reverse post-order) goes to a block
    /// that dominates its source. Irreducible cycles have no header and are in no loop.
    pub fn is_reducible(&self) -> bool {
        self.succs.iter().enumerate().all(|(b, ss)| ss.iter().all(|&s| s > b || self.dominates(s, b)))
    }

    /// Where control leaves a loop `body` (a body from [`Cfg::loops`]): the blocks
    /// outside it that blocks inside branch to, and `None` when a block inside has no
    /// successor (the function returns), in block order, each once.
    pub fn loop_exits(&self, body: &FxHashSet<usize>) -> Vec<Option<usize>> {
        let mut exits = Vec::new();
        for b in (0..self.blocks.len()).filter(|b| body.contains(b)) {
            if self.succs[b].is_empty() && !exits.contains(&None) {
                exits.push(None);
            }
            for &s in &self.succs[b] {
                if !body.contains(&s) && !exits.contains(&Some(s)) {
                    exits.push(Some(s));
                }
            }
        }
        exits
    }

    /// The block index defining each value of the reachable blocks (block arguments and
    /// op results), for [`Cfg::live_outs`].
    pub fn defining_blocks(&self, ir: &Ir) -> FxHashMap<Value, usize> {
        let mut def_block = FxHashMap::default();
        for (i, &b) in self.blocks.iter().enumerate() {
            def_block.extend(ir.block(b).arguments.iter().map(|&a| (a, i)));
            for &op in &ir.block(b).ops {
                def_block.extend(ir.op(op).results.iter().map(|&r| (r, i)));
            }
        }
        def_block
    }

    /// The values defined in a loop `body` and used outside it, by value number.
    pub fn live_outs(
        &self,
        ir: &Ir,
        body: &FxHashSet<usize>,
        def_block: &FxHashMap<Value, usize>,
    ) -> Vec<Value> {
        let mut live = Vec::new();
        let mut seen = FxHashSet::default();
        for (i, &b) in self.blocks.iter().enumerate() {
            if body.contains(&i) {
                continue;
            }
            for &op in &ir.block(b).ops {
                for &v in &ir.op(op).operands {
                    if def_block.get(&v).is_some_and(|d| body.contains(d)) && seen.insert(v) {
                        live.push(v);
                    }
                }
            }
        }
        live.sort_by_key(|v| v.index());
        live
    }

    /// The blocks a branch at block `i` influences: those reachable from its
    /// successors before its immediate post-dominator (which is not included).
    pub fn influence_region(&self, i: usize) -> FxHashSet<usize> {
        let stop = self.ipdom[i];
        let mut region = FxHashSet::default();
        let mut work: Vec<usize> = self.succs[i].clone();
        while let Some(b) = work.pop() {
            if Some(b) == stop || !region.insert(b) {
                continue;
            }
            work.extend(self.succs[b].iter().copied());
        }
        region
    }
}

/// The successors of a block (its terminator's).
fn successors(ir: &Ir, b: BlockId) -> Vec<BlockId> {
    ir.block(b).ops.last().map(|&t| ir.op(t).successors.to_vec()).unwrap_or_default()
}

/// Cooper, Harvey and Kennedy's iterative dominators over nodes numbered in reverse
/// post-order from node `order[0]`.
fn dominators(n: usize, preds: &[Vec<usize>], order: &[usize]) -> Vec<usize> {
    const UNDEF: usize = usize::MAX;
    let mut rank = vec![usize::MAX; n];
    for (r, &b) in order.iter().enumerate() {
        rank[b] = r;
    }
    let mut idom = vec![UNDEF; n];
    let Some(&root) = order.first() else { return idom };
    idom[root] = root;
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order[1..] {
            let mut new = UNDEF;
            for &p in &preds[b] {
                if rank[p] == usize::MAX || idom[p] == UNDEF {
                    continue;
                }
                new = if new == UNDEF {
                    p
                } else {
                    let (mut x, mut y) = (p, new);
                    while x != y {
                        while rank[x] > rank[y] {
                            x = idom[x];
                        }
                        while rank[y] > rank[x] {
                            y = idom[y];
                        }
                    }
                    x
                };
            }
            if new != UNDEF && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

/// Post-dominators with a virtual exit (node `n`) after every block without
/// successors; blocks that reach no exit get `None`.
fn post_dominators(n: usize, succs: &[Vec<usize>]) -> Vec<Option<usize>> {
    let exit = n;
    // The reverse graph: preds of x in it are succs of x in the CFG (plus the exit's).
    let mut rpreds: Vec<Vec<usize>> = succs.to_vec();
    rpreds.push(Vec::new());
    let mut rsuccs: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (b, ss) in succs.iter().enumerate() {
        if ss.is_empty() {
            rpreds[b].push(exit);
            rsuccs[exit].push(b);
        }
        for &s in ss {
            rsuccs[s].push(b);
        }
    }
    // Reverse post-order of the reverse graph from the exit.
    let mut post = Vec::new();
    let mut seen = vec![false; n + 1];
    let mut stack: Vec<(usize, usize)> = vec![(exit, 0)];
    seen[exit] = true;
    while let Some((b, k)) = stack.last_mut() {
        let b = *b;
        if let Some(&s) = rsuccs[b].get(*k) {
            *k += 1;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    let ipdom = dominators(n + 1, &rpreds, &post);
    (0..n)
        .map(|b| match ipdom[b] {
            x if x == usize::MAX || x == exit => None,
            x => Some(x),
        })
        .collect()
}

/// Natural loops from back-edges (an edge to a block that dominates its source).
fn natural_loops(
    n: usize,
    succs: &[Vec<usize>],
    preds: &[Vec<usize>],
    idom: &[usize],
) -> Vec<(usize, FxHashSet<usize>)> {
    let dominates = |a: usize, mut b: usize| loop {
        if a == b {
            return true;
        }
        if b == 0 || idom[b] == usize::MAX {
            return false;
        }
        b = idom[b];
    };
    let mut loops: Vec<(usize, FxHashSet<usize>)> = Vec::new();
    for (latch, ss) in succs.iter().enumerate().take(n) {
        for &header in ss {
            if !dominates(header, latch) {
                continue;
            }
            let mut body: FxHashSet<usize> = [header].into_iter().collect();
            let mut work = vec![latch];
            while let Some(b) = work.pop() {
                if body.insert(b) {
                    work.extend(preds[b].iter().copied());
                }
            }
            match loops.iter_mut().find(|(h, _)| *h == header) {
                Some((_, existing)) => existing.extend(body),
                None => loops.push((header, body)),
            }
        }
    }
    // Outer loops first: a bigger body contains the nested ones.
    loops.sort_by_key(|(h, body)| (std::cmp::Reverse(body.len()), *h));
    loops
}

/// The operands a terminator passes to its successor number `index` (the target
/// block's arguments), for `llvm.br`, `llvm.cond_br` and `llvm.switch`.
pub fn successor_operands(ir: &Ir, terminator: OpId, index: usize) -> Vec<Value> {
    let op = ir.op(terminator);
    match op.name.as_str() {
        "llvm.br" => op.operands.clone(),
        "llvm.cond_br" => {
            let Some(sizes) = dense_counts(op.attr("operandSegmentSizes")) else { return Vec::new() };
            let (t, f) = (sizes.get(1).copied().unwrap_or(0), sizes.get(2).copied().unwrap_or(0));
            let range = if index == 0 { 1..1 + t } else { 1 + t..1 + t + f };
            op.operands.get(range).map(<[Value]>::to_vec).unwrap_or_default()
        }
        "llvm.switch" => {
            let Some(sizes) = dense_counts(op.attr("operandSegmentSizes")) else { return Vec::new() };
            let default = sizes.get(1).copied().unwrap_or(0);
            if index == 0 {
                return op.operands.get(1..1 + default).map(<[Value]>::to_vec).unwrap_or_default();
            }
            let cases = dense_counts(op.attr("case_operand_segments")).unwrap_or_default();
            let start = 1 + default + cases.iter().take(index - 1).sum::<usize>();
            let len = cases.get(index - 1).copied().unwrap_or(0);
            op.operands.get(start..start + len).map(<[Value]>::to_vec).unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// The value a terminator chooses its successor by, if it has one.
fn branch_selector(ir: &Ir, terminator: OpId) -> Option<Value> {
    let op = ir.op(terminator);
    match op.name.as_str() {
        "llvm.cond_br" | "llvm.switch" => op.operands.first().copied(),
        _ => None,
    }
}

/// The result of the analysis of one function body.
#[derive(Clone, Debug)]
pub struct Divergence {
    pub cfg: Cfg,
    uniform_allocas: FxHashSet<Value>,
    varying: FxHashSet<Value>,
    divergent_branches: FxHashSet<OpId>,
    divergent_loops: FxHashSet<BlockId>,
}

impl Divergence {
    /// Analyzes `region` (a function body) with `seeds` varying.
    pub fn analyze(ir: &Ir, region: RegionId, seeds: &[Value]) -> Divergence {
        Self::analyze_with_uniform_allocas(ir, region, seeds, &FxHashSet::default())
    }

    /// [`Divergence::analyze`] where the allocas `uniform_allocas` hold the same value in
    /// every invocation (a built-in such as the workgroup id, stored once per call):
    /// their addresses, and so the loads of them, are uniform.
    pub fn analyze_with_uniform_allocas(
        ir: &Ir,
        region: RegionId,
        seeds: &[Value],
        uniform_allocas: &FxHashSet<Value>,
    ) -> Divergence {
        let cfg = Cfg::new(ir, region);
        let mut d = Divergence {
            uniform_allocas: uniform_allocas.clone(),
            varying: seeds.iter().copied().collect(),
            divergent_branches: FxHashSet::default(),
            divergent_loops: FxHashSet::default(),
            cfg,
        };
        let def_block = d.cfg.defining_blocks(ir);
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..d.cfg.blocks.len() {
                let b = d.cfg.blocks[i];
                for &op in &ir.block(b).ops {
                    if d.op_is_varying(ir, op) {
                        for &r in &ir.op(op).results {
                            changed |= d.varying.insert(r);
                        }
                    }
                }
                let Some(&terminator) = ir.block(b).ops.last() else { continue };
                // Arguments receive what the predecessors pass.
                for (k, &s) in ir.op(terminator).successors.iter().enumerate() {
                    let passed = successor_operands(ir, terminator, k);
                    let args = ir.block(s).arguments.clone();
                    for (&arg, v) in args.iter().zip(passed) {
                        if d.varying.contains(&v) {
                            changed |= d.varying.insert(arg);
                        }
                    }
                }
                let divergent = branch_selector(ir, terminator).is_some_and(|c| d.varying.contains(&c))
                    && ir.op(terminator).successors.len() > 1; // one target twice still merges
                if divergent && d.divergent_branches.insert(terminator) {
                    changed = true;
                    d.mark_joins(ir, i, terminator);
                    d.mark_divergent_loops(ir, i, &def_block);
                }
            }
        }
        d
    }

    fn op_is_varying(&self, ir: &Ir, op: OpId) -> bool {
        let o = ir.op(op);
        if o.results.is_empty() {
            return false;
        }
        match o.name.as_str() {
            "llvm.alloca" => !self.uniform_allocas.contains(&o.results[0]),
            "llvm.atomicrmw" | "llvm.cmpxchg" | "llvm.call" | "llvm.inline_asm" => true,
            "llvm.load" => {
                let atomic =
                    matches!(o.attr("ordering"), Some(Attribute::Integer { value, .. }) if *value != 0);
                let volatile = o.attr("volatile_").is_some();
                atomic || volatile || o.operands.iter().any(|v| self.varying.contains(v))
            }
            _ => o.operands.iter().any(|v| self.varying.contains(v)),
        }
    }

    /// The arguments of the blocks where the paths of the divergent branch at block `i`
    /// meet again are varying: the blocks of its influence region (and its immediate
    /// post-dominator) reached from two or more of its successor edges. A block reached
    /// from one edge only (a loop after an early return) sees invocations that all came
    /// the same way, so its arguments keep their own uniformity.
    fn mark_joins(&mut self, ir: &Ir, i: usize, terminator: OpId) {
        let stop = self.cfg.ipdom[i];
        let n = self.cfg.blocks.len();
        // Per block: the last edge whose walk reached it, and how many edges did.
        let mut last_edge = vec![usize::MAX; n];
        let mut edges_reaching = vec![0u32; n];
        // The terminator's own successor list: one target twice is a join of its edges.
        let targets: Vec<usize> =
            ir.op(terminator).successors.iter().filter_map(|&s| self.cfg.index_of(s)).collect();
        for (edge, &target) in targets.iter().enumerate() {
            let mut work = vec![target];
            while let Some(b) = work.pop() {
                if last_edge[b] == edge {
                    continue;
                }
                last_edge[b] = edge;
                edges_reaching[b] += 1;
                if Some(b) != stop {
                    work.extend(self.cfg.succs[b].iter().copied());
                }
            }
        }
        for (b, &count) in edges_reaching.iter().enumerate() {
            if count >= 2 {
                for &a in &ir.block(self.cfg.blocks[b]).arguments {
                    self.varying.insert(a);
                }
            }
        }
    }

    /// Loops around block `i` that its divergent branch may make invocations leave in
    /// different iterations: their values used outside them are varying.
    fn mark_divergent_loops(&mut self, ir: &Ir, i: usize, def_block: &FxHashMap<Value, usize>) {
        let region = self.cfg.influence_region(i);
        let leaves_at_post_dominator = self.cfg.ipdom[i];
        let loops: Vec<(usize, FxHashSet<usize>)> =
            self.cfg.loops.iter().filter(|(_, body)| body.contains(&i)).cloned().collect();
        for (header, body) in loops {
            let exits = region.iter().any(|b| !body.contains(b))
                || leaves_at_post_dominator.is_none_or(|p| !body.contains(&p));
            if !exits {
                continue;
            }
            self.divergent_loops.insert(self.cfg.blocks[header]);
            let live_outs = self.cfg.live_outs(ir, &body, def_block);
            self.varying.extend(live_outs);
        }
    }

    pub fn is_varying(&self, v: Value) -> bool {
        self.varying.contains(&v)
    }

    pub fn is_uniform(&self, v: Value) -> bool {
        !self.varying.contains(&v)
    }

    /// Whether invocations may take different successors of this terminator.
    pub fn is_divergent_branch(&self, terminator: OpId) -> bool {
        self.divergent_branches.contains(&terminator)
    }

    /// Whether invocations may leave the loop with this header in different iterations.
    pub fn is_divergent_loop(&self, header: BlockId) -> bool {
        self.divergent_loops.contains(&header)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The function `@f`'s body and its arguments from LLVM dialect text.
    fn analyze(source: &str, varying_args: &[usize]) -> (Ir, RegionId, Divergence) {
        let (ir, top) = spirvkit_ir::parse(source, "t.mlir").expect("parses");
        let func = ir
            .ops_under(top)
            .into_iter()
            .map(|(_, op)| op)
            .find(|&op| ir.op(op).name == "llvm.func")
            .expect("a function");
        let region = ir.op(func).regions[0];
        let entry = ir.region(region).blocks[0];
        let seeds: Vec<Value> = varying_args.iter().map(|&i| ir.block(entry).arguments[i]).collect();
        let d = Divergence::analyze(&ir, region, &seeds);
        (ir, region, d)
    }

    /// The value named by the first result of the `n`th op named `name` in block `b`.
    fn result(ir: &Ir, region: RegionId, block: usize, name: &str) -> Value {
        let b = ir.region(region).blocks[block];
        let op = ir.block(b).ops.iter().copied().find(|&o| ir.op(o).name == name).expect("op");
        ir.op(op).results[0]
    }

    fn arg(ir: &Ir, region: RegionId, block: usize, index: usize) -> Value {
        ir.block(ir.region(region).blocks[block]).arguments[index]
    }

    /// A loop whose trip count depends on the invocation (mandelbrot's shape): its
    /// counter is uniform within an iteration only for the analysis' purposes, and
    /// varying where it is used after the loop.
    #[test]
    fn a_loop_left_in_different_iterations_makes_its_live_outs_varying() {
        let (ir, region, d) = analyze(
            r#"llvm.func @f(%lid: i32, %n: i32, %p: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  llvm.br ^bb1(%c0 : i32)
^bb1(%i: i32):
  %done = llvm.icmp "uge" %i, %lid : i32
  llvm.cond_br %done, ^bb3, ^bb2
^bb2:
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %next = llvm.add %i, %c1 : i32
  llvm.br ^bb1(%next : i32)
^bb3:
  %uniform = llvm.add %n, %n : i32
  llvm.store %i, %p : i32, !llvm.ptr
  llvm.return
}"#,
            &[0],
        );
        let header = ir.region(region).blocks[1];
        assert!(d.is_divergent_branch(*ir.block(header).ops.last().unwrap()));
        assert!(d.is_divergent_loop(header));
        assert!(d.is_varying(arg(&ir, region, 1, 0)), "the counter is used after the loop");
        assert!(d.is_uniform(result(&ir, region, 3, "llvm.add")));
        assert!(d.is_uniform(result(&ir, region, 0, "llvm.mlir.constant")));
    }

    /// reduce's shape: a loop with a uniform trip count around a divergent `if`; the
    /// stride stays uniform, the value merged after the `if` is varying.
    #[test]
    fn a_uniform_loop_around_a_divergent_if_keeps_its_counter_uniform() {
        let (ir, region, d) = analyze(
            r#"llvm.func @f(%lid: i32, %p: !llvm.ptr) {
  %c128 = llvm.mlir.constant(128 : i32) : i32
  llvm.br ^bb1(%c128 : i32)
^bb1(%s: i32):
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %more = llvm.icmp "ugt" %s, %c0 : i32
  llvm.cond_br %more, ^bb2, ^bb5
^bb2:
  %active = llvm.icmp "ult" %lid, %s : i32
  llvm.cond_br %active, ^bb3, ^bb4(%s : i32)
^bb3:
  %v = llvm.load %p : !llvm.ptr -> i32
  llvm.br ^bb4(%v : i32)
^bb4(%merged: i32):
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %half = llvm.lshr %s, %c1 : i32
  llvm.br ^bb1(%half : i32)
^bb5:
  llvm.return
}"#,
            &[0],
        );
        let header = ir.region(region).blocks[1];
        assert!(!d.is_divergent_branch(*ir.block(header).ops.last().unwrap()));
        assert!(!d.is_divergent_loop(header));
        assert!(d.is_uniform(arg(&ir, region, 1, 0)), "the stride");
        assert!(d.is_divergent_branch(*ir.block(ir.region(region).blocks[2]).ops.last().unwrap()));
        assert!(d.is_varying(arg(&ir, region, 4, 0)), "merged after a divergent if");
        assert!(d.is_uniform(result(&ir, region, 3, "llvm.load")), "a load of a uniform address");
        assert!(d.is_uniform(result(&ir, region, 4, "llvm.lshr")));
    }

    /// matmul's shape behind a bounds check: invocations out of range return early, the
    /// rest run a loop with a uniform trip count. The loop header is reached from one
    /// edge of the divergent check only, so its counter is no join and stays uniform.
    #[test]
    fn a_loop_after_an_early_return_keeps_its_counter_uniform() {
        let (ir, region, d) = analyze(
            r#"llvm.func @f(%lid: i32, %n: i32, %p: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %out = llvm.icmp "uge" %lid, %n : i32
  llvm.cond_br %out, ^bb4, ^bb1(%c0 : i32)
^bb1(%i: i32):
  %more = llvm.icmp "ult" %i, %n : i32
  llvm.cond_br %more, ^bb2, ^bb3
^bb2:
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %next = llvm.add %i, %c1 : i32
  llvm.br ^bb1(%next : i32)
^bb3:
  llvm.store %i, %p : i32, !llvm.ptr
  llvm.return
^bb4:
  llvm.return
}"#,
            &[0],
        );
        assert!(d.is_divergent_branch(*ir.block(ir.region(region).blocks[0]).ops.last().unwrap()));
        let header = ir.region(region).blocks[1];
        assert!(d.is_uniform(arg(&ir, region, 1, 0)), "the counter");
        assert!(!d.is_divergent_branch(*ir.block(header).ops.last().unwrap()));
        assert!(!d.is_divergent_loop(header));
        assert!(d.is_uniform(result(&ir, region, 2, "llvm.add")));
    }

    /// A divergent branch to one block by both edges with different arguments merges
    /// invocations that chose differently.
    #[test]
    fn both_edges_of_a_divergent_branch_to_one_block_are_a_join() {
        let (ir, region, d) = analyze(
            r#"llvm.func @f(%lid: i32, %n: i32) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %low = llvm.icmp "ult" %lid, %n : i32
  llvm.cond_br %low, ^bb1(%c0 : i32), ^bb1(%c1 : i32)
^bb1(%x: i32):
  llvm.return
}"#,
            &[0],
        );
        assert!(d.is_varying(arg(&ir, region, 1, 0)));
    }

    /// Atomics and allocas give each invocation its own value; an atomic load too.
    #[test]
    fn atomics_allocas_and_atomic_loads_are_varying() {
        let (ir, region, d) = analyze(
            r#"llvm.func @f(%p: !llvm.ptr) {
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %old = llvm.atomicrmw add %p, %c1 monotonic : !llvm.ptr, i32
  %a = llvm.alloca %c1 x i32 : (i32) -> !llvm.ptr
  %l = llvm.load %p atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
  %plain = llvm.load %p : !llvm.ptr -> i32
  llvm.return
}"#,
            &[],
        );
        assert!(d.is_varying(result(&ir, region, 0, "llvm.atomicrmw")));
        assert!(d.is_varying(result(&ir, region, 0, "llvm.alloca")));
        let loads: Vec<Value> = ir
            .block(ir.region(region).blocks[0])
            .ops
            .iter()
            .filter(|&&o| ir.op(o).name == "llvm.load")
            .map(|&o| ir.op(o).results[0])
            .collect();
        assert!(d.is_varying(loads[0]));
        assert!(d.is_uniform(loads[1]));
    }

    /// An alloca declared uniform (a built-in slot holding the workgroup id) gives
    /// uniform loads; another alloca's loads stay varying.
    #[test]
    fn loads_of_a_uniform_alloca_are_uniform() {
        let source = r#"llvm.func @f(%g: i32) {
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %group = llvm.alloca %c1 x i32 : (i32) -> !llvm.ptr
  %other = llvm.alloca %c1 x i32 : (i32) -> !llvm.ptr
  llvm.store %g, %group : i32, !llvm.ptr
  %a = llvm.load %group : !llvm.ptr -> i32
  %b = llvm.load %other : !llvm.ptr -> i32
  llvm.return
}"#;
        let (ir, region, _) = analyze(source, &[]);
        let entry = ir.region(region).blocks[0];
        let ops = |name: &str| -> Vec<Value> {
            (ir.block(entry).ops.iter())
                .filter(|&&o| ir.op(o).name == name)
                .map(|&o| ir.op(o).results[0])
                .collect()
        };
        let (allocas, loads) = (ops("llvm.alloca"), ops("llvm.load"));
        let uniform: FxHashSet<Value> = [allocas[0]].into_iter().collect();
        let d = Divergence::analyze_with_uniform_allocas(&ir, region, &[], &uniform);
        assert!(d.is_uniform(loads[0]));
        assert!(d.is_varying(loads[1]));
        let plain = Divergence::analyze(&ir, region, &[]);
        assert!(plain.is_varying(loads[0]));
    }

    #[test]
    fn dominators_post_dominators_and_loops_of_a_diamond_in_a_loop() {
        let (ir, region, d) = analyze(
            r#"llvm.func @f(%c: i1) {
  llvm.br ^bb1
^bb1:
  llvm.cond_br %c, ^bb2, ^bb3
^bb2:
  llvm.br ^bb4
^bb3:
  llvm.br ^bb4
^bb4:
  llvm.cond_br %c, ^bb1, ^bb5
^bb5:
  llvm.return
}"#,
            &[],
        );
        let cfg = &d.cfg;
        let at = |k: usize| cfg.index_of(ir.region(region).blocks[k]).unwrap();
        assert!(cfg.dominates(at(1), at(4)));
        assert!(!cfg.dominates(at(2), at(4)));
        assert_eq!(cfg.immediate_post_dominator(at(1)), Some(at(4)));
        assert_eq!(cfg.immediate_post_dominator(at(5)), None);
        assert_eq!(cfg.loops().len(), 1);
        assert_eq!(cfg.loops()[0].0, at(1));
        assert_eq!(cfg.loops()[0].1.len(), 4);
        assert_eq!(cfg.influence_region(at(1)).len(), 2);
        assert!(cfg.is_reducible());
        assert_eq!(cfg.loop_exits(&cfg.loops()[0].1), vec![Some(at(5))]);
    }

    #[test]
    fn a_cycle_entered_at_two_blocks_is_irreducible_and_no_loop() {
        let (_, _, d) = analyze(
            r#"llvm.func @f(%c: i1) {
  llvm.cond_br %c, ^bb1, ^bb2
^bb1:
  llvm.cond_br %c, ^bb2, ^bb3
^bb2:
  llvm.br ^bb1
^bb3:
  llvm.return
}"#,
            &[],
        );
        assert!(!d.cfg.is_reducible());
        assert!(d.cfg.loops().is_empty());
    }

    #[test]
    fn loop_exits_are_the_blocks_left_to_and_live_outs_the_values_used_after_the_loop() {
        let (ir, region, d) = analyze(
            r#"llvm.func @f(%c: i1, %x: i32) -> i32 {
  llvm.br ^bb1(%x : i32)
^bb1(%i: i32):
  %n = llvm.add %i, %x : i32
  %dead = llvm.add %n, %x : i32
  llvm.cond_br %c, ^bb2, ^bb3
^bb2:
  llvm.cond_br %c, ^bb1(%n : i32), ^bb4
^bb3:
  llvm.return %i : i32
^bb4:
  llvm.return %n : i32
}"#,
            &[],
        );
        let cfg = &d.cfg;
        let at = |k: usize| cfg.index_of(ir.region(region).blocks[k]).unwrap();
        let (header, body) = &cfg.loops()[0];
        assert_eq!(*header, at(1));
        let mut exits = cfg.loop_exits(body);
        exits.sort();
        let mut expected = vec![Some(at(3)), Some(at(4))];
        expected.sort();
        assert_eq!(exits, expected);
        // A returning block reaches no latch, so it is outside the loop, an exit block.
        assert!(!exits.contains(&None));
        let live = cfg.live_outs(&ir, body, &cfg.defining_blocks(&ir));
        // %i (returned at ^bb3) and %n (at ^bb4); %dead is used nowhere.
        assert_eq!(live, vec![arg(&ir, region, 1, 0), result(&ir, region, 1, "llvm.add")]);
    }
}
