//! MLIR's greedy pattern rewrite driver, which `--canonicalize` (and other pattern
//! passes) run. Each iteration:
//!
//! 1. walks the region, handing constants to a fresh [`ConstantFolder`], which
//!    uniques them per insertion region (the body of the nearest isolated-from-above
//!    op) and hoists them to the start of its entry block, and fills the worklist;
//! 2. pops ops off the worklist: dead ones are erased, others folded (attribute
//!    results become constants materialized right before the op) or handed to the
//!    patterns; every change puts the ops it touches back on the worklist;
//! 3. erases unreachable blocks and dead ops and block arguments (`regions.rs`).
//!
//! It stops when an iteration changes nothing, or after ten iterations.
//!
//! The IR keeps no use lists, so the rewriter keeps them (one entry per operand,
//! oldest first) for everything it rewrites.

use super::constants::{constant_value, is_buildable_with, is_poison, same_attribute};
use super::{fold, regions};
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{BlockId, Ir, Location, OpId, RegionId, Value, ValueDef};
use spirvkit_ir::opdef::op_traits;
use spirvkit_ir::types::Type;

/// Whether `op` certainly has the trait (MLIR's `hasTrait`).
pub(crate) fn has_trait(ir: &Ir, op: OpId, name: &str) -> bool {
    op_traits(&ir.op(op).name).is_some_and(|t| t.contains(&name))
}

/// Whether `op` has the trait or, being unknown, might have it (`mightHaveTrait`).
pub(crate) fn might_have_trait(ir: &Ir, op: OpId, name: &str) -> bool {
    op_traits(&ir.op(op).name).is_none_or(|t| t.contains(&name))
}

/// Whether erasing `op` would lose nothing if its results were unused (MLIR's
/// `wouldOpBeTriviallyDead`): not a terminator or symbol, and free of side effects.
pub(crate) fn would_be_trivially_dead(ir: &Ir, op: OpId) -> bool {
    if might_have_trait(ir, op, "Terminator") {
        return false;
    }
    if has_trait(ir, op, "Symbol") || has_trait(ir, op, "FunctionOpInterface") {
        return false;
    }
    has_trait(ir, op, "Pure")
}

/// The dialect prefix of an op name (`spirv`, `ub`).
fn dialect_of(name: &str) -> &str {
    name.split_once('.').map_or(name, |(d, _)| d)
}

/// A rewrite pattern set: tries its patterns on `op`, returning whether one applied.
pub(crate) type Patterns<'p> = &'p dyn Fn(&mut Rewriter, OpId) -> bool;

/// How the driver runs (MLIR's `GreedyRewriteConfig`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    /// Visit ops in pre-order (the canonicalizer) rather than post-order.
    pub top_down: bool,
    pub max_iterations: u32,
    /// Erase unreachable blocks and dead values after each iteration.
    pub simplify_regions: bool,
}

impl Default for Config {
    /// MLIR's default: bottom-up, region simplification on. (MLIR's default level
    /// also merges identical blocks, which this driver does not do yet.)
    fn default() -> Config {
        Config { top_down: false, max_iterations: 10, simplify_regions: true }
    }
}

impl Config {
    /// The canonicalizer's configuration.
    pub fn canonicalizer() -> Config {
        Config { top_down: true, max_iterations: 10, simplify_regions: true }
    }
}

/// Runs the driver on each region of `top` (an isolated-from-above op).
pub(crate) fn apply_patterns_greedily(ir: &mut Ir, top: OpId, config: Config, patterns: Patterns) {
    for region in ir.op(top).regions.clone() {
        let mut rewriter = Rewriter::new(ir, region);
        rewriter.simplify(config, patterns);
    }
}

/// The ops waiting to be processed, popped last-in first-out; an op is in it once.
#[derive(Default)]
struct Worklist {
    list: Vec<Option<OpId>>,
    index: FxHashMap<OpId, usize>,
}

impl Worklist {
    fn push(&mut self, op: OpId) {
        if self.index.contains_key(&op) {
            return;
        }
        self.index.insert(op, self.list.len());
        self.list.push(Some(op));
    }

    fn pop(&mut self) -> Option<OpId> {
        while let Some(entry) = self.list.pop() {
            if let Some(op) = entry {
                self.index.remove(&op);
                while matches!(self.list.last(), Some(None)) {
                    self.list.pop();
                }
                return Some(op);
            }
        }
        None
    }

    fn remove(&mut self, op: OpId) {
        if let Some(i) = self.index.remove(&op) {
            self.list[i] = None;
        }
    }

    fn reverse(&mut self) {
        self.list.reverse();
        self.index = self.list.iter().enumerate().filter_map(|(i, op)| Some(((*op)?, i))).collect();
    }

    fn clear(&mut self) {
        self.list.clear();
        self.index.clear();
    }
}

/// What a fold produced for one result.
#[derive(Clone, Debug)]
pub(crate) enum FoldResult {
    Value(Value),
    Attribute(Attribute),
}

/// The outcome of folding an op.
#[derive(Clone, Debug)]
pub(crate) enum Folded {
    /// The op was updated where it stands (operands swapped or bypassed).
    InPlace,
    /// One replacement per result.
    Results(Vec<FoldResult>),
}

/// The IR under rewrite with its use lists and the driver's worklist: every change
/// goes through it so the worklist hears about the ops it touches.
pub(crate) struct Rewriter<'a> {
    pub ir: &'a mut Ir,
    /// The users of each value, one entry per operand slot, oldest first.
    uses: FxHashMap<Value, Vec<OpId>>,
    worklist: Worklist,
    /// The region the driver works on; ops outside it are never queued.
    scope: RegionId,
}

impl<'a> Rewriter<'a> {
    pub fn new(ir: &'a mut Ir, scope: RegionId) -> Self {
        let mut rewriter = Rewriter { ir, uses: FxHashMap::default(), worklist: Worklist::default(), scope };
        for op in rewriter.preorder_in(scope) {
            for &v in &rewriter.ir.op(op).operands {
                rewriter.uses.entry(v).or_default().push(op);
            }
        }
        rewriter
    }

    /// Every op in `region`, pre-order.
    fn preorder_in(&self, region: RegionId) -> Vec<OpId> {
        let mut out = Vec::new();
        let mut stack: Vec<OpId> = Vec::new();
        for &b in self.ir.region(region).blocks.iter().rev() {
            stack.extend(self.ir.block(b).ops.iter().rev());
        }
        while let Some(op) = stack.pop() {
            out.push(op);
            for &r in self.ir.op(op).regions.iter().rev() {
                for &b in self.ir.region(r).blocks.iter().rev() {
                    stack.extend(self.ir.block(b).ops.iter().rev());
                }
            }
        }
        out
    }

    /// Every op nested in `op` (not `op` itself), pre-order.
    fn nested_ops(&self, op: OpId) -> Vec<OpId> {
        self.ir.op(op).regions.iter().flat_map(|&r| self.preorder_in(r)).collect()
    }

    pub fn scope(&self) -> RegionId {
        self.scope
    }

    /// The ops using `v`, one entry per use, oldest first.
    pub fn uses(&self, v: Value) -> &[OpId] {
        self.uses.get(&v).map_or(&[], |u| u.as_slice())
    }

    pub fn has_uses(&self, v: Value) -> bool {
        !self.uses(v).is_empty()
    }

    fn add_use(&mut self, v: Value, user: OpId) {
        self.uses.entry(v).or_default().push(user);
    }

    fn remove_use(&mut self, v: Value, user: OpId) {
        if let Some(list) = self.uses.get_mut(&v) {
            if let Some(i) = list.iter().rposition(|&u| u == user) {
                list.remove(i);
            }
            if list.is_empty() {
                self.uses.remove(&v);
            }
        }
    }

    /// Sets operand `index` of `op` without telling the worklist (in-place folds).
    pub fn set_operand(&mut self, op: OpId, index: usize, v: Value) {
        let Some(&old) = self.ir.op(op).operands.get(index) else { return };
        self.remove_use(old, op);
        self.ir.op_mut(op).operands[index] = v;
        self.add_use(v, op);
    }

    /// Replaces all operands of `op` without telling the worklist.
    pub fn set_operands(&mut self, op: OpId, operands: Vec<Value>) {
        for v in self.ir.op(op).operands.clone() {
            self.remove_use(v, op);
        }
        for &v in &operands {
            self.add_use(v, op);
        }
        self.ir.op_mut(op).operands = operands;
    }

    /// An op changed in place: process it again.
    pub fn notify_modified(&mut self, op: OpId) {
        self.add_to_worklist(op);
    }

    /// Queues `op` and its ancestors up to the scope, unless it is outside the scope.
    pub fn add_to_worklist(&mut self, op: OpId) {
        let mut chain = Vec::new();
        let mut current = op;
        loop {
            chain.push(current);
            let Some(block) = self.ir.op(current).parent else { return };
            let Some(region) = self.ir.block(block).parent else { return };
            if region == self.scope {
                for op in chain {
                    self.worklist.push(op);
                }
                return;
            }
            let Some(parent) = self.ir.region(region).parent else { return };
            current = parent;
        }
    }

    /// Queues the defining ops of `op`'s operands that will have at most one other
    /// user once `op` is gone (they may have become dead or foldable).
    fn add_operands_to_worklist(&mut self, op: OpId) {
        for v in self.ir.op(op).operands.clone() {
            let ValueDef::Result { op: def, .. } = self.ir.value(v).def else { continue };
            let mut others = self.uses(v).iter().filter(|&&u| u != op);
            let first = others.next().copied();
            if others.any(|&u| Some(u) != first) {
                continue;
            }
            self.add_to_worklist(def);
        }
    }

    fn notify_erased(&mut self, op: OpId) {
        self.add_operands_to_worklist(op);
        self.worklist.remove(op);
    }

    /// Replaces every use of `old` with `new`; the users are processed again.
    pub fn replace_all_uses(&mut self, old: Value, new: Value) {
        if old == new {
            return;
        }
        let users: Vec<OpId> = self.uses(old).iter().rev().copied().collect();
        for user in users {
            let slots: Vec<usize> = self
                .ir
                .op(user)
                .operands
                .iter()
                .enumerate()
                .filter(|(_, &v)| v == old)
                .map(|(i, _)| i)
                .collect();
            if slots.is_empty() {
                continue;
            }
            for i in slots {
                self.set_operand(user, i, new);
            }
            self.notify_modified(user);
        }
    }

    /// Erases `op` and everything nested in it, users before definitions.
    pub fn erase_op(&mut self, op: OpId) {
        let nested = self.nested_ops(op);
        for &inner in nested.iter().rev() {
            self.notify_erased(inner);
            for v in self.ir.op(inner).operands.clone() {
                self.remove_use(v, inner);
            }
        }
        self.notify_erased(op);
        for v in self.ir.op(op).operands.clone() {
            self.remove_use(v, op);
        }
        self.ir.erase_op(op);
    }

    /// Replaces `op`'s results with `values` and erases it.
    pub fn replace_op(&mut self, op: OpId, values: &[Value]) {
        let results = self.ir.op(op).results.clone();
        for (old, &new) in results.into_iter().zip(values) {
            self.replace_all_uses(old, new);
        }
        self.erase_op(op);
    }

    /// Creates an op right before `before` and queues it.
    pub fn create_op_before(
        &mut self,
        before: OpId,
        name: &str,
        operands: Vec<Value>,
        result_types: &[Type],
        properties: Vec<NamedAttribute>,
    ) -> Option<OpId> {
        let block = self.ir.op(before).parent?;
        let location = self.ir.op(before).location.clone();
        let op = self.ir.create_op(name, operands.clone(), result_types, location);
        self.ir.op_mut(op).properties = properties;
        self.ir.insert_op_before(block, before, op);
        for v in operands {
            self.add_use(v, op);
        }
        self.add_to_worklist(op);
        Some(op)
    }

    /// Like [`Self::create_op_before`], for a single-result op, giving the result.
    pub fn create_value_before(
        &mut self,
        before: OpId,
        name: &str,
        operands: Vec<Value>,
        ty: Type,
        properties: Vec<NamedAttribute>,
    ) -> Option<Value> {
        let op = self.create_op_before(before, name, operands, &[ty], properties)?;
        self.ir.op(op).results.first().copied()
    }

    /// A constant op for `value` of type `ty` right before `before`, as the SPIR-V
    /// dialect materializes fold results: `ub.poison` for poison, else
    /// `spirv.Constant` where it can hold the type.
    pub fn materialize_constant(&mut self, before: OpId, value: &Attribute, ty: Type) -> Option<Value> {
        let name = if is_poison(value) {
            "ub.poison"
        } else if is_buildable_with(self.ir, ty) {
            "spirv.Constant"
        } else {
            return None;
        };
        self.create_value_before(
            before,
            name,
            Vec::new(),
            ty,
            vec![NamedAttribute::new("value", value.clone())],
        )
    }

    /// Moves `op` to the start of `block` (no notification, as MLIR's folder does).
    fn move_to_front(&mut self, op: OpId, block: BlockId) {
        self.ir.erase_op(op);
        match self.ir.block(block).ops.first().copied() {
            Some(first) => self.ir.insert_op_before(block, first, op),
            None => self.ir.append_op(block, op),
        }
    }

    fn is_trivially_dead(&self, op: OpId) -> bool {
        self.ir.op(op).results.iter().all(|&r| !self.has_uses(r)) && would_be_trivially_dead(self.ir, op)
    }

    /// The driver loop.
    fn simplify(&mut self, config: Config, patterns: Patterns) {
        for _ in 0..config.max_iterations {
            self.worklist.clear();
            let mut folder = ConstantFolder::default();
            if config.top_down {
                self.walk_pre_order(&mut folder);
                self.worklist.reverse();
            } else {
                self.walk_post_order(&mut folder);
            }
            let mut changed = self.process_worklist(patterns);
            if config.simplify_regions {
                changed |= regions::simplify(self);
            }
            if !changed {
                break;
            }
        }
    }

    /// Queues the scope's ops in pre-order; constants go to the folder first, and
    /// duplicates it erases are not queued.
    fn walk_pre_order(&mut self, folder: &mut ConstantFolder) {
        // Each block's ops are listed when it is entered: the folder only ever moves
        // or erases the op being visited, and only to places already walked.
        let mut stack: Vec<(Vec<OpId>, usize)> = Vec::new();
        for &b in self.ir.region(self.scope).blocks.iter().rev() {
            stack.push((self.ir.block(b).ops.clone(), 0));
        }
        while let Some((ops, i)) = stack.last_mut() {
            let Some(&op) = ops.get(*i) else {
                stack.pop();
                continue;
            };
            *i += 1;
            if let Some(value) = constant_value(self.ir, op) {
                if !folder.insert_known_constant(self, op, &value) {
                    continue;
                }
            }
            self.add_to_worklist(op);
            let regions = self.ir.op(op).regions.clone();
            for &r in regions.iter().rev() {
                for &b in self.ir.region(r).blocks.iter().rev() {
                    stack.push((self.ir.block(b).ops.clone(), 0));
                }
            }
        }
    }

    /// Queues the scope's ops in post-order (nested ops before their parent).
    fn walk_post_order(&mut self, folder: &mut ConstantFolder) {
        let mut order = Vec::new();
        // (op, whether its regions were expanded)
        let mut stack: Vec<(OpId, bool)> = Vec::new();
        for &b in self.ir.region(self.scope).blocks.iter().rev() {
            stack.extend(self.ir.block(b).ops.iter().rev().map(|&o| (o, false)));
        }
        while let Some((op, expanded)) = stack.pop() {
            if expanded {
                order.push(op);
                continue;
            }
            stack.push((op, true));
            for &r in self.ir.op(op).regions.iter().rev() {
                for &b in self.ir.region(r).blocks.iter().rev() {
                    stack.extend(self.ir.block(b).ops.iter().rev().map(|&o| (o, false)));
                }
            }
        }
        for op in order {
            if self.ir.op(op).parent.is_none() {
                continue;
            }
            if let Some(value) = constant_value(self.ir, op) {
                if !folder.insert_known_constant(self, op, &value) {
                    continue;
                }
            }
            self.add_to_worklist(op);
        }
    }

    fn process_worklist(&mut self, patterns: Patterns) -> bool {
        let mut changed = false;
        while let Some(op) = self.worklist.pop() {
            if self.is_trivially_dead(op) {
                self.erase_op(op);
                changed = true;
                continue;
            }
            if !has_trait(self.ir, op, "ConstantLike") {
                match self.try_fold(op) {
                    Some(true) => {
                        changed = true;
                        continue;
                    }
                    Some(false) => changed = true,
                    None => {}
                }
            }
            if patterns(self, op) {
                changed = true;
            }
        }
        changed
    }

    /// Folds `op`: `None` if no fold applies, `Some(true)` if it was folded (in
    /// place or replaced), `Some(false)` if a fold applied but its constants could
    /// not be materialized.
    fn try_fold(&mut self, op: OpId) -> Option<bool> {
        let constants: Vec<Option<Attribute>> =
            self.ir.op(op).operands.iter().map(|&v| super::constants::value_constant(self.ir, v)).collect();
        match fold::fold_op(self, op, &constants)? {
            Folded::InPlace => {
                self.notify_modified(op);
                Some(true)
            }
            Folded::Results(results) => {
                let result_types: Vec<Type> =
                    self.ir.op(op).results.iter().map(|&r| self.ir.value_type(r)).collect();
                if results.len() != result_types.len() {
                    return Some(false);
                }
                let mut values = Vec::new();
                let mut created = Vec::new();
                for (result, ty) in results.into_iter().zip(result_types) {
                    match result {
                        FoldResult::Value(v) => values.push(v),
                        FoldResult::Attribute(a) => match self.materialize_constant(op, &a, ty) {
                            Some(v) => {
                                values.push(v);
                                created.push(v);
                            }
                            None => {
                                for v in created {
                                    if let ValueDef::Result { op: c, .. } = self.ir.value(v).def {
                                        self.erase_op(c);
                                    }
                                }
                                return Some(false);
                            }
                        },
                    }
                }
                self.replace_op(op, &values);
                Some(true)
            }
        }
    }
}

/// MLIR's `OperationFolder` as the driver uses it each iteration: the constants
/// of each insertion region, uniqued by dialect, value and type.
#[derive(Default)]
pub(crate) struct ConstantFolder {
    /// Owned constants by insertion region and hash of (dialect, type, value).
    uniqued: FxHashMap<(RegionId, u64), Vec<OwnedConstant>>,
    owned: FxHashSet<OpId>,
}

/// A constant the folder owns: the op, its value and its type.
type OwnedConstant = (OpId, Attribute, Type);

/// The key constants are uniqued by, hashed: dialect, result type and value.
fn constant_key(dialect: &str, ty: Type, value: &Attribute) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = spirvkit_grammar::fxhash::FxBuildHasher::default().build_hasher();
    (dialect, ty).hash(&mut h);
    super::constants::hash_attribute(value, &mut h);
    h.finish()
}

/// The region constants of `block` belong in: that of the nearest enclosing op
/// that is (or might be) isolated from above, or of the top-level op.
fn insertion_region(ir: &Ir, mut block: BlockId) -> Option<RegionId> {
    loop {
        let region = ir.block(block).parent?;
        let parent = ir.region(region).parent?;
        match ir.op(parent).parent {
            Some(outer) if !might_have_trait(ir, parent, "IsolatedFromAbove") => block = outer,
            _ => return Some(region),
        }
    }
}

impl ConstantFolder {
    /// Takes charge of constant `op`: a duplicate of a constant already owned in its
    /// insertion region is replaced by it (and `false` returned); otherwise `op`
    /// moves to the start of that region's entry block unless it is already in the
    /// run of owned constants there.
    pub(crate) fn insert_known_constant(&mut self, rw: &mut Rewriter, op: OpId, value: &Attribute) -> bool {
        let Some(block) = rw.ir.op(op).parent else { return true };
        let previous_is_owned = |rw: &Rewriter, owned: &FxHashSet<OpId>| {
            let ops = &rw.ir.block(block).ops;
            match ops.iter().position(|&o| o == op) {
                Some(0) => None,
                Some(i) => Some(owned.contains(&ops[i - 1])),
                None => Some(false),
            }
        };
        if self.owned.contains(&op) {
            if previous_is_owned(rw, &self.owned) == Some(false) {
                rw.move_to_front(op, block);
                rw.ir.op_mut(op).location = Location::Unknown;
            }
            return true;
        }
        let Some(region) = insertion_region(rw.ir, block) else { return true };
        let Some(&result) = rw.ir.op(op).results.first() else { return true };
        let ty = rw.ir.value_type(result);
        let name = rw.ir.op(op).name.clone();
        let key = (region, constant_key(dialect_of(&name), ty, value));
        let existing = self.uniqued.get(&key).and_then(|list| {
            list.iter().find(|(k, v, t)| {
                *t == ty && dialect_of(&rw.ir.op(*k).name) == dialect_of(&name) && same_attribute(v, value)
            })
        });
        if let Some(&(existing, _, _)) = existing {
            let Some(&new) = rw.ir.op(existing).results.first() else { return true };
            rw.replace_op(op, &[new]);
            rw.ir.op_mut(existing).location = Location::Unknown;
            return false;
        }
        let Some(&entry) = rw.ir.region(region).blocks.first() else { return true };
        if block != entry {
            rw.move_to_front(op, entry);
            rw.ir.op_mut(op).location = Location::Unknown;
        } else if previous_is_owned(rw, &self.owned) == Some(false) {
            rw.move_to_front(op, entry);
        }
        self.owned.insert(op);
        self.uniqued.entry(key).or_default().push((op, value.clone(), ty));
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::canonicalize::tests::canonicalized;

    #[test]
    fn constants_are_uniqued_and_hoisted_in_walk_order() {
        let source = r#"func.func @f(%x: i32, %c: i1, %p: !spirv.ptr<i32, Function>) -> (i32, i32, i32) {
  %c1 = spirv.Constant 1 : i32
  %a = spirv.IAdd %x, %c1 : i32
  %c2 = spirv.Constant 2 : i32
  %b = spirv.IAdd %a, %c2 : i32
  %c2b = spirv.Constant 2 : i32
  %c3 = spirv.Constant 3 : i32
  %d = spirv.IMul %c2b, %c3 : i32
  spirv.mlir.selection {
    spirv.BranchConditional %c, ^then, ^merge
  ^then:
    %c4 = spirv.Constant 4 : i32
    %e = spirv.IAdd %c4, %c4 : i32
    spirv.Store "Function" %p, %e : i32
    spirv.Branch ^merge
  ^merge:
    spirv.mlir.merge
  }
  return %a, %b, %d : i32, i32, i32
}"#;
        let expected = r#"module {
  func.func @f(%arg0: i32, %arg1: i1, %arg2: !spirv.ptr<i32, Function>) -> (i32, i32, i32) {
    %cst8_i32 = spirv.Constant 8 : i32
    %cst6_i32 = spirv.Constant 6 : i32
    %cst2_i32 = spirv.Constant 2 : i32
    %cst1_i32 = spirv.Constant 1 : i32
    %0 = spirv.IAdd %arg0, %cst1_i32 : i32
    %1 = spirv.IAdd %0, %cst2_i32 : i32
    spirv.mlir.selection {
      spirv.BranchConditional %arg1, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      spirv.Store "Function" %arg2, %cst8_i32 : i32
      spirv.Branch ^bb2
    ^bb2:  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge
    }
    return %0, %1, %cst6_i32 : i32, i32, i32
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }
}
