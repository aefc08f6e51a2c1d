//! `--spirv-mem2reg`: Function variables that are only loaded and stored whole become
//! SSA values, across structured control flow.
//!
//! The construction is Braun et al.'s ("Simple and Efficient Construction of SSA
//! Form"), run region by region: a block's value of a variable is its last store,
//! else the value at its single predecessor, else a block argument (a phi) fed by
//! every predecessor's branch; a loop header is sealed once its continue block was
//! visited. A region's entry block takes the value at the construct op in the
//! enclosing block. A construct that stores a variable yields the value at its merge
//! block (`spirv.mlir.merge` operands, the construct's results), which becomes the
//! variable's value after the construct. Trivial phis (one distinct incoming value)
//! and construct results that only forward an outer value are removed afterwards.
//!
//! Before that, the sources of opaque handles are hoisted to the entry block and
//! unified: constants, `spirv.mlir.addressof`, and the loads of UniformConstant
//! globals (images, samplers) and access chains over them whose values are stored
//! (copied into a local or parameter). A handle copied through locals and parameters
//! then reaches every load as the one value it started as, so the phis carrying it
//! are trivial and vanish. Afterwards `sink` moves the hoisted loads and chains back
//! next to their uses.

use super::util;
use super::LegalizeError;
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::ir::{BlockId, Ir, OpId, RegionId, Value, ValueDef};
use spirvkit_ir::types::Type;

/// Recursion of value lookups through predecessors (each level a phi placed).
const MAX_READ_DEPTH: usize = 2000;

/// Promotes the promotable Function variables of `func`.
pub fn run(ir: &mut Ir, func: OpId) -> Result<(), LegalizeError> {
    let Some(body) = util::body(ir, func) else { return Ok(()) };
    super::inline_all::hoist_variables(ir, func);
    let (hoisted_end, hoisted) = hoist_sources(ir, func);
    initializers_to_stores(ir, func, hoisted_end);
    let candidates = promotable(ir, func);
    if !candidates.is_empty() {
        let entry = ir.region(body).blocks[0];
        let mut ssa = Ssa::new(ir, func, entry, candidates);
        ssa.region(ir, body, None)?;
        ssa.finish(ir, func)?;
    }
    super::sink::run(ir, func, &hoisted);
    Ok(())
}

// ---- hoisting the sources of handles --------------------------------------------------

/// Hoists and unifies constants, global addresses, undefs, UniformConstant loads and
/// access chains over hoisted values into `func`'s entry block, after its variables.
/// Returns the index in the entry block after the hoisted ops and the hoisted ops, in
/// order (`sink` later moves the chains and loads back near their uses).
fn hoist_sources(ir: &mut Ir, func: OpId) -> (usize, Vec<OpId>) {
    let Some(body) = util::body(ir, func) else { return (0, Vec::new()) };
    let entry = ir.region(body).blocks[0];
    let at = ir.block(entry).ops.iter().take_while(|&&op| ir.op(op).name == "spirv.Variable").count();
    let mut group: Vec<OpId> = Vec::new();
    let mut known: FxHashMap<String, Value> = FxHashMap::default();
    let mut hoisted: FxHashSet<Value> = FxHashSet::default();
    let mut replace: FxHashMap<Value, Value> = FxHashMap::default();
    let stored = stored_sources(ir, func);
    for (_, op) in ops_in_order(ir, body) {
        for i in 0..ir.op(op).operands.len() {
            let v = ir.op(op).operands[i];
            ir.op_mut(op).operands[i] = util::resolve(&replace, v);
        }
        let Some(key) = source_key(ir, op, &hoisted, &stored) else { continue };
        let result = ir.op(op).results[0];
        match known.get(&key) {
            Some(&existing) => {
                replace.insert(result, existing);
                util::detach(ir, op);
            }
            None => {
                util::detach(ir, op);
                group.push(op);
                known.insert(key, result);
                hoisted.insert(result);
            }
        }
    }
    util::compact(ir, func);
    let end = at + group.len();
    util::splice_ops(ir, entry, at, group.clone());
    util::replace_uses(ir, func, &replace);
    (end, group)
}

/// Every op of `region` with its block: blocks in order, a nested region right after
/// the op holding it (so definitions come before uses in structured code).
fn ops_in_order(ir: &Ir, region: RegionId) -> Vec<(BlockId, OpId)> {
    let mut out = Vec::new();
    let mut stack: Vec<(BlockId, usize)> = ir.region(region).blocks.iter().rev().map(|&b| (b, 0)).collect();
    while let Some((block, index)) = stack.pop() {
        let Some(&op) = ir.block(block).ops.get(index) else { continue };
        out.push((block, op));
        stack.push((block, index + 1));
        for &r in ir.op(op).regions.iter().rev() {
            stack.extend(ir.region(r).blocks.iter().rev().map(|&b| (b, 0)));
        }
    }
    out
}

/// The values that reach memory or a phi (stored, passed to a branch, a call or a
/// composite) and, transitively, the pointers and bases of the loads and access chains
/// they come from: the only handles whose copies need unifying. Other chains and loads
/// stay where they are.
fn stored_sources(ir: &Ir, func: OpId) -> FxHashSet<Value> {
    let mut work: Vec<Value> = Vec::new();
    ir.for_each_op_under(func, |_, op| {
        let o = ir.op(op);
        match o.name.as_str() {
            "spirv.Store" => work.extend(o.operands.get(1).copied()),
            "spirv.Load" | "spirv.AccessChain" | "spirv.InBoundsPtrAccessChain" => {}
            "spirv.Branch"
            | "spirv.BranchConditional"
            | "spirv.mlir.merge"
            | "spirv.FunctionCall"
            | "spirv.CompositeConstruct"
            | "spirv.CompositeInsert"
            | "spirv.Select"
            | "spirv.ReturnValue" => work.extend(o.operands.iter().copied()),
            _ => {}
        }
    });
    let mut stored: FxHashSet<Value> = FxHashSet::default();
    while let Some(v) = work.pop() {
        if !stored.insert(v) {
            continue;
        }
        let Some(def) = util::defining_op(ir, v) else { continue };
        let o = ir.op(def);
        let handle_load = o.name == "spirv.Load"
            && o.operands
                .first()
                .and_then(|&p| util::pointer_parts(ir, ir.value_type(p)))
                .map(|(_, class)| class)
                == Some("UniformConstant");
        if handle_load || matches!(o.name.as_str(), "spirv.AccessChain" | "spirv.InBoundsPtrAccessChain") {
            work.extend(o.operands.iter().copied());
        }
    }
    stored
}

/// The key unifying `op` with equal sources, if it is one (loads and access chains
/// only when their value is `stored`).
fn source_key(ir: &Ir, op: OpId, hoisted: &FxHashSet<Value>, stored: &FxHashSet<Value>) -> Option<String> {
    let o = ir.op(op);
    if o.results.len() != 1 || !o.regions.is_empty() {
        return None;
    }
    if matches!(o.name.as_str(), "spirv.Load" | "spirv.AccessChain" | "spirv.InBoundsPtrAccessChain")
        && !stored.contains(&o.results[0])
    {
        return None;
    }
    let ty = ir.value_type(o.results[0]).index();
    match o.name.as_str() {
        "spirv.Constant" | "spirv.mlir.addressof" | "spirv.Undef" if o.operands.is_empty() => {
            Some(format!("{}|{ty}|{:?}|{:?}", o.name.as_str(), o.properties, o.attributes))
        }
        "spirv.Load" => {
            let ptr = *o.operands.first()?;
            let (_, storage) = util::pointer_parts(ir, ir.value_type(ptr))?;
            (storage == "UniformConstant" && hoisted.contains(&ptr) && o.attributes.is_empty())
                .then(|| format!("load|{ty}|{}|{:?}", ptr.index(), o.properties))
        }
        "spirv.AccessChain" | "spirv.InBoundsPtrAccessChain" => {
            o.operands.iter().all(|v| hoisted.contains(v)).then(|| {
                let operands: Vec<usize> = o.operands.iter().map(|v| v.index()).collect();
                format!("{}|{ty}|{operands:?}", o.name.as_str())
            })
        }
        _ => None,
    }
}

/// Variable initializers become stores at `at` in the entry block (after the hoisted
/// constants they name), so every variable starts uninitialized.
fn initializers_to_stores(ir: &mut Ir, func: OpId, at: usize) {
    let Some(entry) = ir.entry_block(func) else { return };
    let vars: Vec<OpId> =
        ir.block(entry).ops.iter().copied().filter(|&op| ir.op(op).name == "spirv.Variable").collect();
    let mut stores = Vec::new();
    for var in vars {
        let Some(&init) = ir.op(var).operands.first() else { continue };
        let ptr = ir.op(var).results[0];
        let location = ir.op(var).location.clone();
        stores.push(ir.create_op("spirv.Store", vec![ptr, init], &[], location));
        ir.op_mut(var).operands.clear();
    }
    util::splice_ops(ir, entry, at, stores);
}

// ---- which variables ------------------------------------------------------------------

/// The Function variables of `func` used only as the pointer of whole loads and stores.
fn promotable(ir: &Ir, func: OpId) -> Vec<OpId> {
    let mut candidates: Vec<OpId> = Vec::new();
    let mut refused: FxHashSet<Value> = FxHashSet::default();
    for (_, op) in ir.ops_under(func) {
        let o = ir.op(op);
        if o.name == "spirv.Variable" {
            if let Some((_, "Function")) = util::pointer_parts(ir, ir.value_type(o.results[0])) {
                candidates.push(op);
            }
            continue;
        }
        for (i, &v) in o.operands.iter().enumerate() {
            let whole_access = match o.name.as_str() {
                "spirv.Load" | "spirv.Store" => i == 0,
                _ => false,
            };
            if !whole_access {
                refused.insert(v);
            }
        }
    }
    candidates.retain(|&var| !refused.contains(&ir.op(var).results[0]));
    candidates
}

// ---- the construction -----------------------------------------------------------------

struct Ssa {
    /// Variable index by pointer value.
    index: FxHashMap<Value, usize>,
    vars: Vec<OpId>,
    types: Vec<Type>,
    entry: BlockId,
    /// Each block's current value of each variable.
    defs: FxHashMap<(BlockId, usize), Value>,
    sealed: FxHashSet<BlockId>,
    filled: FxHashSet<BlockId>,
    /// Variables whose phi in an unsealed block awaits its operands, in the order the
    /// phis were added (the order of the block's arguments).
    incomplete: FxHashMap<BlockId, Vec<usize>>,
    preds: FxHashMap<BlockId, Vec<(OpId, usize)>>,
    /// A nested region's entry block -> the block holding the construct.
    outer: FxHashMap<BlockId, BlockId>,
    /// Loads replaced (and later, phis and results removed).
    replace: FxHashMap<Value, Value>,
    phis: Vec<Value>,
    undefs: FxHashMap<Type, Value>,
    dead: Vec<OpId>,
    /// The variables stored inside each construct op.
    stored_in: FxHashMap<OpId, Vec<usize>>,
    /// Constructs given results: (op, first added result index).
    yielding: Vec<(OpId, usize)>,
}

impl Ssa {
    fn new(ir: &Ir, func: OpId, entry: BlockId, vars: Vec<OpId>) -> Self {
        let index: FxHashMap<Value, usize> =
            vars.iter().enumerate().map(|(i, &v)| (ir.op(v).results[0], i)).collect();
        let types = vars
            .iter()
            .map(|&v| util::pointer_parts(ir, ir.value_type(ir.op(v).results[0])).expect("a pointer").0)
            .collect();
        let mut stored_in: FxHashMap<OpId, Vec<usize>> = FxHashMap::default();
        ir.for_each_op_under(func, |_, op| {
            let o = ir.op(op);
            if o.name != "spirv.Store" {
                return;
            }
            let Some(&var) = o.operands.first().and_then(|p| index.get(p)) else { return };
            let mut at = ir.parent_op(op);
            while let Some(parent) = at {
                if parent == func {
                    break;
                }
                if util::is_construct(ir, parent) {
                    let list = stored_in.entry(parent).or_default();
                    if !list.contains(&var) {
                        list.push(var);
                    }
                }
                at = ir.parent_op(parent);
            }
        });
        for list in stored_in.values_mut() {
            list.sort_unstable();
        }
        Ssa {
            index,
            vars,
            types,
            entry,
            defs: FxHashMap::default(),
            sealed: FxHashSet::default(),
            filled: FxHashSet::default(),
            incomplete: FxHashMap::default(),
            preds: FxHashMap::default(),
            outer: FxHashMap::default(),
            replace: FxHashMap::default(),
            phis: Vec::new(),
            undefs: FxHashMap::default(),
            dead: Vec::new(),
            stored_in,
            yielding: Vec::new(),
        }
    }

    fn region(&mut self, ir: &mut Ir, region: RegionId, outer: Option<BlockId>) -> Result<(), LegalizeError> {
        let blocks = ir.region(region).blocks.clone();
        let Some(&first) = blocks.first() else { return Ok(()) };
        self.preds.extend(util::predecessors(ir, region));
        if let Some(outer) = outer {
            self.outer.insert(first, outer);
        }
        for &b in &blocks {
            if self.preds.get(&b).is_none_or(Vec::is_empty) {
                self.sealed.insert(b);
            }
        }
        for &b in &blocks {
            self.fill(ir, b)?;
            self.filled.insert(b);
            let successors =
                util::terminator(ir, b).map(|t| ir.op(t).successors.to_vec()).unwrap_or_default();
            for s in successors {
                let ready = self.preds.get(&s).is_some_and(|p| {
                    p.iter().all(|&(t, _)| ir.op(t).parent.is_some_and(|pb| self.filled.contains(&pb)))
                });
                if ready && !self.sealed.contains(&s) {
                    self.seal(ir, s, 0)?;
                }
            }
        }
        for &b in &blocks {
            if !self.sealed.contains(&b) {
                self.seal(ir, b, 0)?;
            }
        }
        Ok(())
    }

    fn fill(&mut self, ir: &mut Ir, block: BlockId) -> Result<(), LegalizeError> {
        for op in ir.block(block).ops.clone() {
            let name = ir.op(op).name.as_str();
            match name {
                "spirv.Load" => {
                    let Some(&var) = ir.op(op).operands.first().and_then(|p| self.index.get(p)) else {
                        continue;
                    };
                    let value = self.read(ir, var, block, 0)?;
                    self.replace.insert(ir.op(op).results[0], value);
                    self.dead.push(op);
                }
                "spirv.Store" => {
                    let Some(&var) = ir.op(op).operands.first().and_then(|p| self.index.get(p)) else {
                        continue;
                    };
                    let value = ir.op(op).operands[1];
                    self.defs.insert((block, var), value);
                    self.dead.push(op);
                }
                _ if util::is_construct(ir, op) => self.construct(ir, block, op)?,
                _ => {
                    for r in ir.op(op).regions.clone() {
                        self.region(ir, r, Some(block))?;
                    }
                }
            }
        }
        Ok(())
    }

    fn construct(&mut self, ir: &mut Ir, block: BlockId, op: OpId) -> Result<(), LegalizeError> {
        let regions = ir.op(op).regions.clone();
        for &r in &regions {
            self.region(ir, r, Some(block))?;
        }
        let Some(stored) = self.stored_in.get(&op).cloned() else { return Ok(()) };
        let Some(&merge) = regions.first().and_then(|&r| ir.region(r).blocks.last()) else { return Ok(()) };
        let Some(merge_op) = util::terminator(ir, merge).filter(|&m| ir.op(m).name == "spirv.mlir.merge")
        else {
            return Err(LegalizeError::at(ir, op, "construct without a 'spirv.mlir.merge' block"));
        };
        let first = ir.op(op).results.len();
        self.yielding.push((op, first));
        for var in stored {
            let value = self.read(ir, var, merge, 0)?;
            ir.op_mut(merge_op).operands.push(value);
            ir.add_results(op, &[self.types[var]]);
            let result = *ir.op(op).results.last().expect("just added");
            self.defs.insert((block, var), result);
        }
        Ok(())
    }

    fn undef(&mut self, ir: &mut Ir, ty: Type) -> Value {
        if let Some(&v) = self.undefs.get(&ty) {
            return v;
        }
        let op = ir.create_op("spirv.Undef", vec![], &[ty], Default::default());
        // After the variables, which SPIR-V wants first.
        let at = ir.block(self.entry).ops.iter().take_while(|&&o| ir.op(o).name == "spirv.Variable").count();
        ir.block_mut(self.entry).ops.insert(at, op);
        ir.op_mut(op).parent = Some(self.entry);
        let v = ir.op(op).results[0];
        self.undefs.insert(ty, v);
        v
    }

    fn read(
        &mut self,
        ir: &mut Ir,
        var: usize,
        block: BlockId,
        depth: usize,
    ) -> Result<Value, LegalizeError> {
        if let Some(&v) = self.defs.get(&(block, var)) {
            return Ok(v);
        }
        if depth > MAX_READ_DEPTH {
            return Err(LegalizeError::at(ir, self.vars[var], "control flow too deep to promote a variable"));
        }
        let value = if block == self.entry {
            self.undef(ir, self.types[var])
        } else if let Some(&outer) = self.outer.get(&block) {
            self.read(ir, var, outer, depth + 1)?
        } else if !self.sealed.contains(&block) {
            let phi = self.new_phi(ir, block, var);
            self.incomplete.entry(block).or_default().push(var);
            phi
        } else {
            let preds = self.preds.get(&block).cloned().unwrap_or_default();
            match preds.as_slice() {
                [] => self.undef(ir, self.types[var]),
                [(t, _)] => {
                    let pred = ir.op(*t).parent.expect("a placed terminator");
                    self.read(ir, var, pred, depth + 1)?
                }
                _ => {
                    let phi = self.new_phi(ir, block, var);
                    self.defs.insert((block, var), phi);
                    self.add_operands(ir, var, block, depth)?;
                    phi
                }
            }
        };
        self.defs.insert((block, var), value);
        Ok(value)
    }

    fn new_phi(&mut self, ir: &mut Ir, block: BlockId, var: usize) -> Value {
        let location = ir.op(self.vars[var]).location.clone();
        let phi = ir.add_block_argument(block, self.types[var], location);
        self.phis.push(phi);
        phi
    }

    fn add_operands(
        &mut self,
        ir: &mut Ir,
        var: usize,
        block: BlockId,
        depth: usize,
    ) -> Result<(), LegalizeError> {
        for (t, index) in self.preds.get(&block).cloned().unwrap_or_default() {
            let pred = ir.op(t).parent.expect("a placed terminator");
            let value = self.read(ir, var, pred, depth + 1)?;
            if !util::push_successor_operand(ir, t, index, value) {
                return Err(LegalizeError::at(
                    ir,
                    t,
                    format!("not supported yet: promoting a variable across a '{}'", ir.op(t).name),
                ));
            }
        }
        Ok(())
    }

    fn seal(&mut self, ir: &mut Ir, block: BlockId, depth: usize) -> Result<(), LegalizeError> {
        self.sealed.insert(block);
        for var in self.incomplete.remove(&block).unwrap_or_default() {
            self.add_operands(ir, var, block, depth)?;
        }
        Ok(())
    }

    /// Removes trivial phis and forwarding results, rewrites uses, erases the
    /// promoted variables with their loads and stores.
    fn finish(mut self, ir: &mut Ir, func: OpId) -> Result<(), LegalizeError> {
        self.remove_trivial_phis(ir);
        util::replace_uses(ir, func, &self.replace);
        for op in std::mem::take(&mut self.dead) {
            util::detach(ir, op);
        }
        for &var in &self.vars {
            util::detach(ir, var);
        }
        util::compact(ir, func);
        let mut replace = FxHashMap::default();
        let mut rebuilt = FxHashMap::default();
        for (op, first) in std::mem::take(&mut self.yielding) {
            drop_forwarding_results(ir, op, first, &mut replace, &mut rebuilt);
        }
        util::replace_ops_in_place(ir, &rebuilt);
        util::replace_uses(ir, func, &replace);
        Ok(())
    }

    fn remove_trivial_phis(&mut self, ir: &mut Ir) {
        let mut removed: FxHashSet<Value> = FxHashSet::default();
        loop {
            let mut changed = false;
            for phi in self.phis.clone() {
                if removed.contains(&phi) {
                    continue;
                }
                let ValueDef::Argument { block, index } = ir.value(phi).def else { continue };
                let index = index as usize;
                let preds = self.preds.get(&block).cloned().unwrap_or_default();
                let mut same: Option<Value> = None;
                let mut trivial = true;
                for &(t, s) in &preds {
                    let Some(range) = ir.successor_operand_ranges(t).and_then(|r| r.get(s).cloned()) else {
                        trivial = false;
                        break;
                    };
                    let Some(&incoming) = ir.op(t).operands.get(range.start + index) else {
                        trivial = false;
                        break;
                    };
                    let incoming = util::resolve(&self.replace, incoming);
                    if incoming == phi || Some(incoming) == same {
                        continue;
                    }
                    if same.is_some() {
                        trivial = false;
                        break;
                    }
                    same = Some(incoming);
                }
                if !trivial {
                    continue;
                }
                let ty = ir.value_type(phi);
                let to = match same {
                    Some(v) => v,
                    None => self.undef(ir, ty),
                };
                for &(t, s) in &preds {
                    util::remove_successor_operand(ir, t, s, index);
                }
                ir.erase_block_argument(block, index);
                self.replace.insert(phi, to);
                removed.insert(phi);
                changed = true;
            }
            if !changed {
                break;
            }
        }
    }
}

/// Drops the results from `first` on of construct `op` whose yielded value is defined
/// outside it (the value reaches the uses directly); `op` is rebuilt when any goes.
fn drop_forwarding_results(
    ir: &mut Ir,
    op: OpId,
    first: usize,
    replace: &mut FxHashMap<Value, Value>,
    rebuilt: &mut FxHashMap<OpId, OpId>,
) {
    let Some(&region) = ir.op(op).regions.first() else { return };
    let Some(&merge) = ir.region(region).blocks.last() else { return };
    let Some(merge_op) = util::terminator(ir, merge) else { return };
    let results = ir.op(op).results.clone();
    let yielded = ir.op(merge_op).operands.clone();
    if yielded.len() != results.len() {
        return;
    }
    let mut keep = vec![true; results.len()];
    for i in first..results.len() {
        let v = util::resolve(replace, yielded[i]);
        let inside = util::defining_block(ir, v)
            .and_then(|b| ir.block(b).parent)
            .is_some_and(|r| util::region_within(ir, r, region));
        if !inside {
            keep[i] = false;
            replace.insert(results[i], v);
        }
    }
    if keep.iter().all(|&k| k) {
        return;
    }
    let (new_op, replacements) = util::rebuild_keeping_results(ir, op, &keep);
    rebuilt.insert(op, new_op);
    for (&old, new) in results.iter().zip(replacements) {
        if let Some(new) = new {
            replace.insert(old, new);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::opt::{run, OptOptions};

    fn mem2reg(source: &str) -> String {
        let options = OptOptions { passes: vec!["--spirv-mem2reg".into()], ..Default::default() };
        let r = run(source, "t.mlir", &options);
        assert!(r.success, "{}", r.diagnostics_text);
        r.output
    }

    #[test]
    fn a_variable_used_through_an_access_chain_stays() {
        let source = r#"spirv.module Logical GLSL450 {
  spirv.func @f(%i: i32) -> f32 "None" {
    %v = spirv.Variable : !spirv.ptr<!spirv.array<4 x f32>, Function>
    %p = spirv.AccessChain %v[%i] : !spirv.ptr<!spirv.array<4 x f32>, Function>, i32 -> !spirv.ptr<f32, Function>
    %x = spirv.Load "Function" %p : f32
    spirv.ReturnValue %x : f32
  }
}"#;
        assert!(mem2reg(source).contains("spirv.Variable"));
    }

    #[test]
    fn a_value_stored_in_a_loop_is_carried_by_the_header_and_yielded() {
        let source = r#"spirv.module Logical GLSL450 {
  spirv.func @f(%n: i32) -> i32 "None" {
    %v = spirv.Variable : !spirv.ptr<i32, Function>
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    spirv.Store "Function" %v, %c0 : i32
    spirv.mlir.loop {
      spirv.Branch ^header
    ^header:
      %x = spirv.Load "Function" %v : i32
      %lt = spirv.SLessThan %x, %n : i32
      spirv.BranchConditional %lt, ^body, ^merge
    ^body:
      spirv.Branch ^continue
    ^continue:
      %y = spirv.Load "Function" %v : i32
      %z = spirv.IAdd %y, %c1 : i32
      spirv.Store "Function" %v, %z : i32
      spirv.Branch ^header
    ^merge:
      spirv.mlir.merge
    }
    %r = spirv.Load "Function" %v : i32
    spirv.ReturnValue %r : i32
  }
}"#;
        let out = mem2reg(source);
        assert!(!out.contains("spirv.Variable"), "{out}");
        assert!(out.contains("%0 = spirv.mlir.loop -> i32 {"), "{out}");
        assert!(out.contains("^bb1(%1: i32):  // 2 preds: ^bb0, ^bb3"), "{out}");
        assert!(out.contains("spirv.ReturnValue %0 : i32"), "{out}");
    }
}
