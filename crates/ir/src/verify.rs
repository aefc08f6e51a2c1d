//! The verifier: the rules MLIR's ODS definitions state for every op (attribute,
//! operand and result constraints, type-relation traits, placement), evaluated from
//! the generated tables, with MLIR's diagnostic texts.
//!
//! Constraint predicates are ODS trees whose leaves are C++ expressions; the leaves
//! this module understands are mapped to checks on our types and attributes, and an
//! unknown leaf never produces an error (it is treated as "cannot tell").

use crate::attr::Attribute;
use crate::diag::{Diagnostic, LineIndex};
use crate::ir::{Ir, OpId, Value};
use crate::opdef::{Arity, OpDef, OperandDef, Pred};
use crate::text::printer::type_to_string;
use crate::types::{CompositeStep, FloatKind, Signedness, Type, TypeKind};
use spirvkit_grammar::fxhash::FxHashMap;
use std::cell::{OnceCell, RefCell};
use std::sync::{Mutex, OnceLock};

/// Verifies the IR under `top`; an empty list means it is valid. `text` is the
/// source the IR was parsed from (op locations are converted to offsets into it).
pub fn verify(ir: &Ir, top: OpId, text: &str) -> Vec<Diagnostic> {
    first_failure(ir, top, text).map(|(_, diagnostics)| diagnostics).unwrap_or_default()
}

/// The first op under `top` (itself included) that fails to verify, with its
/// diagnostics.
pub fn first_failure(ir: &Ir, top: OpId, text: &str) -> Option<(OpId, Vec<Diagnostic>)> {
    walk(ir, top, text, None)
}

/// The first failure among `ops` and the ops nested in them, in that order, walked
/// on this thread (for callers that already split the work over threads).
pub fn first_failure_among(ir: &Ir, ops: &[OpId], text: &str) -> Option<(OpId, Vec<Diagnostic>)> {
    walk_from(ir, text, ops.iter().rev().map(|&op| Some(op)).collect(), None, None).0
}

/// Whether `top` verifies ([`first_failure`] finds nothing), judged on this thread in
/// an order that lets a consumer of the module start early, with `progress` told how
/// far it got: `progress(1)` once every op outside the functions' bodies passed (`top`,
/// the `spirv.module`, its module-level ops whole and each function op itself), then
/// `progress(i + 2)` once the module body's ops up to `i` passed whole. `None` (and no
/// call) unless `top` is a `spirv.module`, or holds exactly one, of one block. The
/// verdict is [`first_failure`]'s: the same ops are checked, and no check depends on
/// what was checked before it. `visit` is shown each op under the module (as
/// `Ir::for_each_op_under` gives them, in another order) as it is checked, while it
/// is in cache.
pub fn passes_progressively(
    ir: &Ir,
    top: OpId,
    text: &str,
    progress: &dyn Fn(usize),
    visit: &mut dyn FnMut(OpId),
) -> Option<bool> {
    let module = crate::parallel::spirv_module(ir, top)?;
    let single_block = |op: OpId| match ir.op(op).regions[..] {
        [region] => match ir.region(region).blocks[..] {
            [block] => Some(block),
            _ => None,
        },
        _ => None,
    };
    if module != top {
        let [only] = ir.block(single_block(top)?).ops[..] else { return None };
        if only != module {
            return None;
        }
    }
    let body = single_block(module)?;
    let ops = &ir.block(body).ops;
    // The functions of the module's body, whose regions are passed second.
    let is_function = |op: OpId| ir.op(op).parent == Some(body) && ir.op(op).name == "spirv.func";
    let mut v = Verifier::new(ir, text);
    let mut stack: Vec<OpId> = Vec::new();
    // Passes the ops on `stack` and, but in the module's functions, everything nested.
    let pass = |v: &mut Verifier, stack: &mut Vec<OpId>, visit: &mut dyn FnMut(OpId)| {
        while let Some(op) = stack.pop() {
            visit(op);
            v.op(op);
            if !v.out.is_empty() {
                return false;
            }
            if !is_function(op) {
                push_nested(ir, op, stack);
            }
        }
        true
    };
    // `top` and the module on their own, then everything but the functions' regions.
    let heads: &[OpId] = if module == top { &[top] } else { &[top, module] };
    for &op in heads {
        v.op(op);
        if !v.out.is_empty() {
            return Some(false);
        }
    }
    stack.extend(ops.iter().rev());
    if !pass(&mut v, &mut stack, visit) {
        return Some(false);
    }
    progress(1);
    // The functions' regions, in order (a function's nested functions, which the
    // verifier rejects anyway, are passed whole).
    for (i, &op) in ops.iter().enumerate() {
        if is_function(op) {
            push_nested(ir, op, &mut stack);
            if !pass(&mut v, &mut stack, visit) {
                return Some(false);
            }
        }
        progress(i + 2);
    }
    Some(true)
}

/// Pushes the ops of `op`'s regions on a walk's stack, to be popped in order.
fn push_nested(ir: &Ir, op: OpId, stack: &mut Vec<OpId>) {
    for &r in ir.op(op).regions.iter().rev() {
        for &b in ir.region(r).blocks.iter().rev() {
            stack.extend(ir.block(b).ops.iter().rev());
        }
    }
}

/// [`first_failure`] that also shows `visit` every op under `top` (itself included),
/// failing or not, in the same walk (so a caller's own check of every op reads the ops
/// once). Public for the `spirvkit opt` driver's unregistered-dialect check.
pub fn first_failure_visiting(
    ir: &Ir,
    top: OpId,
    text: &str,
    visit: &mut dyn FnMut(OpId),
) -> Option<(OpId, Vec<Diagnostic>)> {
    walk(ir, top, text, Some(visit))
}

/// A failing op and its diagnostics.
type Failure = (OpId, Vec<Diagnostic>);

fn walk(ir: &Ir, top: OpId, text: &str, visit: Option<&mut dyn FnMut(OpId)>) -> Option<Failure> {
    match visit {
        Some(visit) => walk_from(ir, text, vec![Some(top)], None, Some(visit)).0,
        None => match walk_in_halves(ir, top, text) {
            Some(failure) => failure,
            None => walk_from(ir, text, vec![Some(top)], None, None).0,
        },
    }
}

/// Modules with fewer ops than this verify on one thread.
const MIN_OPS_IN_HALVES: usize = 1 << 16;

/// [`walk`] of a large `spirv.module` (`top`, or the only one in `top`'s body) with the
/// second half of the module's body verified on another thread; the failure reported
/// is the one a single walk meets first. `None`: not such a module, or no thread.
fn walk_in_halves(ir: &Ir, top: OpId, text: &str) -> Option<Option<Failure>> {
    if !crate::parallel::two_cores() || ir.op_count() < MIN_OPS_IN_HALVES {
        return None;
    }
    let module = crate::parallel::spirv_module(ir, top)?;
    // The gap is marked in the module's one block (unverified IR may have others).
    let [region] = ir.op(module).regions[..] else { return None };
    let [block] = ir.region(region).blocks[..] else { return None };
    let body = &ir.block(block).ops;
    if body.len() < 2 {
        return None;
    }
    let half = body.len() / 2;
    let second_stack: Vec<Option<OpId>> = body[half..].iter().rev().map(|&op| Some(op)).collect();
    let (first, second) = crate::parallel::both(
        || walk_from(ir, text, vec![Some(top)], Some((module, half)), None),
        move || walk_from(ir, text, second_stack, None, None).0,
    );
    let second = second?;
    Some(match first {
        (Some(failure), false) => Some(failure),
        (after_gap, _) => second.or(after_gap),
    })
}

/// The preorder walk from the ops on `stack` (the last is visited first; `None`
/// entries mark a gap). `gap`: the module whose body ops from this index on are left
/// out (another thread verifies them). Returns the first failure and whether it came
/// after the gap.
fn walk_from(
    ir: &Ir,
    text: &str,
    mut stack: Vec<Option<OpId>>,
    gap: Option<(OpId, usize)>,
    mut visit: Option<&mut dyn FnMut(OpId)>,
) -> (Option<Failure>, bool) {
    let mut v = Verifier::new(ir, text);
    let mut failure = None;
    let mut after_gap = false;
    while let Some(entry) = stack.pop() {
        let Some(op) = entry else {
            after_gap = true;
            continue;
        };
        if let Some(visit) = visit.as_mut() {
            visit(op);
        }
        if failure.is_none() {
            v.op(op);
            if !v.out.is_empty() {
                // MLIR stops at the first op that fails.
                failure = Some((op, std::mem::take(&mut v.out)));
                if visit.is_none() {
                    break;
                }
            }
        }
        let o = ir.op(op);
        for &r in o.regions.iter().rev() {
            for &b in ir.region(r).blocks.iter().rev() {
                match gap {
                    Some((module, from)) if module == op => {
                        stack.push(None);
                        let ops = &ir.block(b).ops;
                        stack.extend(ops[..from.min(ops.len())].iter().rev().map(|&op| Some(op)));
                    }
                    _ => stack.extend(ir.block(b).ops.iter().rev().map(|&op| Some(op))),
                }
            }
        }
    }
    (failure, after_gap)
}

impl<'a> Verifier<'a> {
    fn new(ir: &'a Ir, text: &'a str) -> Self {
        Verifier {
            ir,
            text,
            index: OnceCell::new(),
            out: Vec::new(),
            type_constraints: Vec::new(),
            compiled_leaves: RefCell::default(),
            passed: Signatures::default(),
            symbol_tables: RefCell::default(),
            dominance: Default::default(),
        }
    }
}

struct Verifier<'a> {
    ir: &'a Ir,
    text: &'a str,
    /// Built on the first diagnostic: valid modules never need it.
    index: OnceCell<LineIndex>,
    out: Vec<Diagnostic>,
    /// Verdicts of ODS type constraints, which depend on the type alone: by type
    /// index, the (constraint index, verdict) pairs judged so far. Types are interned,
    /// so a module's few distinct types are each judged once per constraint.
    type_constraints: Vec<Vec<(u16, Option<bool>)>>,
    /// Compiled predicate leaves, keyed by the (static) text's address; a lock-free
    /// front for the process-wide table in `compiled`.
    compiled_leaves: RefCell<FxHashMap<usize, &'static CompiledLeaf>>,
    /// Signatures of ops whose checks that depend only on the signature passed.
    passed: Signatures,
    /// Symbols of the symbol tables looked up so far (LLVM dialect symbol uses): by
    /// table op, its body's ops by symbol name.
    symbol_tables: RefCell<FxHashMap<OpId, FxHashMap<String, OpId>>>,
    /// Dominator trees and op positions computed so far, for operand dominance.
    dominance: crate::dominance::Dominance,
}

/// A set of op signatures: an op's definition, operand count and value types (what
/// the checks that depend on nothing else read), a few per definition (a module
/// uses each op with few signatures), compared directly rather than hashed.
#[derive(Default)]
struct Signatures {
    /// By definition index: where each remembered signature's types lie in `types`,
    /// and its operand count.
    by_def: Vec<Vec<(u32, u32, u32)>>,
    types: Vec<Type>,
    /// The types of the op being looked up (operands, then results).
    scratch: Vec<Type>,
}

/// Signatures remembered per definition; the ones beyond are not remembered, which
/// only costs their checks.
const SIGNATURES_PER_DEF: usize = 8;

impl Signatures {
    /// Whether the signature of `o` (of the definition at `index`) is in the set;
    /// leaves its types in `scratch` for [`Signatures::insert`].
    fn contains(&mut self, ir: &Ir, index: usize, o: &crate::ir::Operation) -> bool {
        self.scratch.clear();
        // Two plain loops: a chained iterator costs more per value than the copy.
        self.scratch.extend(o.operands.iter().map(|&v| ir.value_type(v)));
        self.scratch.extend(o.results.iter().map(|&v| ir.value_type(v)));
        let Some(known) = self.by_def.get(index) else { return false };
        let operands = o.operands.len() as u32;
        known.iter().any(|&(start, len, known_operands)| {
            known_operands == operands
                && self.types.get(start as usize..(start + len) as usize) == Some(&self.scratch[..])
        })
    }

    /// Adds the signature [`Signatures::contains`] was last asked about.
    fn insert(&mut self, index: usize, operands: usize) {
        if self.by_def.len() <= index {
            self.by_def.resize_with(index + 1, Vec::new);
        }
        let known = &mut self.by_def[index];
        if known.len() < SIGNATURES_PER_DEF {
            known.push((self.types.len() as u32, self.scratch.len() as u32, operands as u32));
            self.types.extend_from_slice(&self.scratch);
        }
    }
}

/// What a predicate is evaluated on.
#[derive(Clone, Copy)]
enum Subject<'a> {
    Type(Type),
    Attr(&'a Attribute),
    /// An op-level predicate (ODS `PredOpTrait`): only op leaves apply.
    Op,
}

impl<'a> Verifier<'a> {
    fn offset(&self, op: OpId) -> Option<usize> {
        self.index.get_or_init(|| LineIndex::new(self.text)).location_offset(&self.ir.op(op).location)
    }

    fn error(&mut self, op: OpId, message: String) {
        let name = &self.ir.op(op).name;
        let offset = self.offset(op);
        self.out.push(Diagnostic::error(offset, format!("'{name}' op {message}")));
    }

    /// Every check of `op` itself: its invariants, then (MLIR checks it last) the
    /// dominance of its operands.
    fn op(&mut self, op: OpId) {
        self.op_invariants(op);
        if self.out.is_empty() && !self.ir.op(op).successors.is_empty() {
            self.successor_operands(op);
        }
        if self.out.is_empty() {
            if let Some(index) =
                crate::dominance::first_non_dominating_operand(&mut self.dominance, self.ir, op)
            {
                self.error(op, format!("operand #{index} does not dominate this use"));
            }
        }
    }

    fn op_invariants(&mut self, op: OpId) {
        let ir = self.ir;
        let o = ir.op(op);
        if self.missing_llvm_terminator(op) {
            return;
        }
        // The op itself first (invariants, traits, its own rules), then its blocks.
        let Some(index) = o.name.def_index() else {
            if self.function_signature(op) || self.graph_results(op) {
                return;
            }
            if self.foreign_op_in_spirv_function(op) {
                // MLIR reports this from the module, without the op prefix.
                let offset = self.offset(op);
                self.out.push(Diagnostic::error(
                    offset,
                    "functions in 'spirv.module' can only contain spirv.* ops",
                ));
                return;
            }
            self.terminators(op, o.name == "func.func");
            return;
        };
        let def = &crate::opdef::OP_DEFS[index];
        let plan = OpPlan::of(index);
        // An op without attributes whose definition and types passed before passes the
        // checks that depend on nothing else again (value constraints, type traits):
        // only those on its place remain.
        let remembered = o.properties.is_empty() && o.attributes.is_empty() && !plan.function_like;
        if remembered && self.passed.contains(self.ir, index, o) {
            if self.pred_traits(op, def, plan, true) || self.terminator_position(op, plan) {
                return;
            }
        } else {
            if plan.function_like && (self.function_signature(op) || self.graph_results(op)) {
                return;
            }
            if self.attributes(op, plan)
                || self.operands_and_results(op, def, plan)
                || self.pred_traits(op, def, plan, false)
            {
                return;
            }
            if self.native_traits(op, plan) {
                return;
            }
            if remembered {
                self.passed.insert(index, o.operands.len());
            }
        }
        // The rules of specific ops, and those on attributes any op may carry.
        if plan.has_rules || !o.properties.is_empty() || !o.attributes.is_empty() {
            self.op_rules(op, def, plan.rule);
            if !self.out.is_empty() {
                return;
            }
        }
        self.terminators(op, !plan.no_terminator);
    }

    /// MLIR's `BranchOpInterface` check: the operands a branch forwards to each
    /// successor match that block's arguments in number and type (the operands'
    /// signature alone cannot tell, so this is never skipped for a known signature).
    fn successor_operands(&mut self, op: OpId) {
        let ir = self.ir;
        let is_branch = ir
            .op(op)
            .name
            .def_index()
            .is_some_and(|i| crate::opdef::OP_DEFS[i].has_trait("BranchOpInterface"));
        if !is_branch {
            return;
        }
        let Some(ranges) = ir.successor_operand_ranges(op) else { return };
        let o = ir.op(op);
        for (successor, (range, &block)) in ranges.into_iter().zip(&o.successors).enumerate() {
            let forwarded = &o.operands[range];
            let arguments = &ir.block(block).arguments;
            // Reported without the op prefix, as MLIR's `emitError` does.
            let message = if forwarded.len() != arguments.len() {
                format!(
                    "branch has {} operands for successor #{successor}, but target block has {}",
                    forwarded.len(),
                    arguments.len()
                )
            } else if let Some(i) =
                forwarded.iter().zip(arguments).position(|(&v, &a)| ir.value_type(v) != ir.value_type(a))
            {
                format!("type mismatch for bb argument #{i} of successor #{successor}")
            } else {
                continue;
            };
            let offset = self.offset(op);
            self.out.push(Diagnostic::error(offset, message));
            return;
        }
    }

    /// A non-SPIR-V op inside a `spirv.func` of a `spirv.module`.
    fn foreign_op_in_spirv_function(&self, op: OpId) -> bool {
        let ir = self.ir;
        if ir.op(op).name.starts_with("spirv.") {
            return false;
        }
        let mut current = ir.parent_op(op);
        while let Some(p) = current {
            if ir.op(p).name == "spirv.func" {
                return ir.parent_op(p).is_some_and(|m| ir.op(m).name == "spirv.module");
            }
            current = ir.parent_op(p);
        }
        false
    }

    /// Required attributes and attribute constraints. Returns true on error.
    fn attributes(&mut self, op: OpId, plan: &OpPlan) -> bool {
        let ir = self.ir;
        for a in &plan.attributes {
            match ir.op(op).attr(a.name) {
                None if a.required => {
                    self.error(op, format!("requires attribute '{}'", a.name));
                    return true;
                }
                Some(v)
                    if self.check(&a.check, Subject::Attr(v), op) == Some(false)
                        && !is_execution_mode_id_values(ir, op, a.name, v)
                        && !is_spec_composite_with_constants(ir, op, a.name, v) =>
                {
                    self.error(
                        op,
                        format!("attribute '{}' failed to satisfy constraint: {}", a.name, a.summary),
                    );
                    return true;
                }
                _ => {}
            }
        }
        false
    }

    /// Where each operand group (or result group) lies among the op's values.
    fn groups(&self, op: OpId, def: &OpDef, results: bool) -> Option<Vec<std::ops::Range<usize>>> {
        let o = self.ir.op(op);
        if results {
            crate::text::format::group_ranges(
                o.results.len(),
                def.results.iter().map(|d| d.arity),
                o.attr("resultSegmentSizes"),
            )
        } else {
            crate::text::format::group_ranges(
                o.operands.len(),
                def.operands.iter().map(|d| d.arity),
                o.attr("operandSegmentSizes"),
            )
        }
    }

    /// Where group `index` lies among the op's operands (or results), as
    /// [`Verifier::groups`] finds it, without making the whole list in the common case
    /// (no segment sizes, at most one variable group).
    fn group_range(
        &self,
        op: OpId,
        def: &OpDef,
        results: bool,
        index: usize,
    ) -> Option<std::ops::Range<usize>> {
        let o = self.ir.op(op);
        let (defs, count, segments) = if results {
            (def.results, o.results.len(), "resultSegmentSizes")
        } else {
            (def.operands, o.operands.len(), "operandSegmentSizes")
        };
        if o.attr(segments).is_none() {
            if let Some(extra) = single_variable_extra(defs, count) {
                let mut at = 0;
                for (i, d) in defs.iter().enumerate() {
                    let n = if d.arity == Arity::Single { 1 } else { extra };
                    if i == index {
                        return Some(at..at + n);
                    }
                    at += n;
                }
                return None;
            }
        }
        self.groups(op, def, results)?.get(index).cloned()
    }

    fn operands_and_results(&mut self, op: OpId, def: &OpDef, plan: &OpPlan) -> bool {
        for results in [false, true] {
            let defs = if results { def.results } else { def.operands };
            let ir = self.ir;
            let o = ir.op(op);
            let values = if results { &o.results } else { &o.operands };
            // Only single-value groups, no segment sizes: group i is value i.
            let all_single = if results { plan.results_single } else { plan.operands_single };
            let segments = if results { "resultSegmentSizes" } else { "operandSegmentSizes" };
            if all_single && values.len() == defs.len() && o.attr(segments).is_none() {
                for (flat, (d, &v)) in defs.iter().zip(values).enumerate() {
                    if self.value_fails(op, d, v, results, flat) {
                        return true;
                    }
                }
                continue;
            }
            // At most one variable group and no segment sizes: the groups follow from
            // the count, walked here without making their list.
            if o.attr(segments).is_none() {
                if let Some(extra) = single_variable_extra(defs, values.len()) {
                    let mut flat = 0;
                    for d in defs {
                        let n = if d.arity == Arity::Single { 1 } else { extra };
                        for &v in values.get(flat..flat + n).unwrap_or(&[]) {
                            if self.value_fails(op, d, v, results, flat) {
                                return true;
                            }
                            flat += 1;
                        }
                    }
                    continue;
                }
            }
            let Some(groups) = self.groups(op, def, results) else {
                let o = self.ir.op(op);
                let (count, what) =
                    if results { (o.results.len(), "results") } else { (o.operands.len(), "operands") };
                let fixed = defs.iter().filter(|d| d.arity == Arity::Single).count();
                if defs.iter().all(|d| d.arity == Arity::Single) {
                    self.error(
                        op,
                        format!(
                            "requires {fixed} {what}, but found {count}",
                            what = if fixed == 1 { &what[..what.len() - 1] } else { what }
                        ),
                    );
                    return true;
                }
                continue;
            };
            let mut flat = 0;
            for (d, group) in defs.iter().zip(groups) {
                for &v in &values[group] {
                    if self.value_fails(op, d, v, results, flat) {
                        return true;
                    }
                    flat += 1;
                }
            }
        }
        false
    }

    /// Whether `ty` is a struct, array or matrix value of a `spirv.Select`, which MLIR's
    /// constraint refuses but SPIR-V 1.4 allows (DXC selects whole structs): our one
    /// extension of an ODS type constraint, so such modules read back.
    fn is_composite_select_value(&self, op: OpId, ty: Type) -> bool {
        self.ir.op(op).name == "spirv.Select"
            && matches!(
                self.ir.types.kind(ty),
                TypeKind::Array { .. }
                    | TypeKind::Matrix { .. }
                    | TypeKind::LiteralStruct(_)
                    | TypeKind::IdentifiedStruct { .. }
            )
    }

    /// Checks value `v` (operand or result number `flat`) against its group's type
    /// constraint; reports and returns true when it fails.
    fn value_fails(&mut self, op: OpId, d: &OperandDef, v: Value, results: bool, flat: usize) -> bool {
        let ty = self.ir.value_type(v);
        let c = d.constraint();
        let judged = self.type_constraints.get(ty.index()).and_then(|known| {
            known.iter().find(|(constraint, _)| *constraint == d.constraint).map(|&(_, verdict)| verdict)
        });
        let verdict = match judged {
            Some(verdict) => verdict,
            None => {
                let verdict = self.eval(&c.pred, Subject::Type(ty), op);
                if self.type_constraints.len() <= ty.index() {
                    self.type_constraints.resize_with(ty.index() + 1, Vec::new);
                }
                self.type_constraints[ty.index()].push((d.constraint, verdict));
                verdict
            }
        };
        if verdict == Some(false) && !self.is_composite_select_value(op, ty) {
            let kind = if results { "result" } else { "operand" };
            let ty_text = type_to_string(self.ir, ty);
            self.error(op, format!("{kind} #{flat} must be {}, but got '{ty_text}'", c.summary));
            return true;
        }
        false
    }

    /// The `PredOpTrait`s (only those on the op's place with `placement_only`).
    fn pred_traits(&mut self, op: OpId, def: &OpDef, plan: &OpPlan, placement_only: bool) -> bool {
        if placement_only && !plan.any_placement {
            return false;
        }
        for ((t, check), &placement) in def.pred_traits.iter().zip(&plan.pred_traits).zip(&plan.placement) {
            if placement_only && !placement {
                continue;
            }
            if self.check(check, Subject::Op, op) == Some(false) {
                self.error(op, format!("failed to verify that {}", t.summary));
                return true;
            }
        }
        false
    }

    /// Op-specific rules (MLIR's hand-written `verify()` methods) that the tests check.
    fn op_rules(&mut self, op: OpId, def: &OpDef, rule: Rule) {
        if matches!(rule, Rule::LlvmCall | Rule::LlvmAddressOf) {
            if let Some(message) = self.llvm_symbol_use(op, rule) {
                self.error(op, message);
            }
            return;
        }
        if rule == Rule::Structured {
            if let Some(message) = structured_region_error(self.ir, op, def.name) {
                self.error(op, message.into());
                return;
            }
        }
        if rule == Rule::EntryPoint {
            if let Some(symbol) = self.missing_interface_variable(op) {
                // MLIR reports this from the module, without the op prefix.
                let offset = self.offset(op);
                let message = format!("expected spirv.GlobalVariable symbol reference instead of'{symbol}'");
                self.out.push(Diagnostic::error(offset, message));
                return;
            }
        }
        if rule == Rule::Bitcast && self.bitcast(op) {
            return;
        }
        if rule == Rule::Constant {
            let o = self.ir.op(op);
            if let (Some(value), Some(&result)) = (o.attr("value"), o.results.first()) {
                if let Some(message) = self.constant_value_error(value, self.ir.value_type(result), true) {
                    self.error(op, message);
                    return;
                }
            }
        }
        if rule == Rule::Return {
            if let Some(message) = self.return_rules(op, def.name) {
                self.error(op, message);
                return;
            }
        }
        let o = self.ir.op(op);
        // Memory semantics of atomics and barriers: at most one ordering (looked up by
        // name only on ops with such an attribute: most ops have none).
        let semantics = ["semantics", "memory_semantics", "equal_semantics"];
        let has_semantics = o.properties.iter().chain(&o.attributes).any(|a| a.name.ends_with("semantics"));
        for name in semantics.into_iter().filter(|_| has_semantics) {
            if let Some(Attribute::Dialect { body: Some(b), .. }) = o.attr(name) {
                let orderings = ["Acquire", "Release", "AcquireRelease", "SequentiallyConsistent"];
                if b.split('|').filter(|f| orderings.contains(&f.trim())).count() > 1 {
                    self.error(
                        op,
                        "expected at most one of these four memory constraints to be set: `Acquire`, `Release`,`AcquireRelease` or `SequentiallyConsistent`".into(),
                    );
                    return;
                }
            }
        }
        if matches!(rule, Rule::Load | Rule::Store | Rule::CopyMemory) {
            for (access, alignment) in
                [("memory_access", "alignment"), ("source_memory_access", "source_alignment")]
            {
                let aligned = match o.attr(access) {
                    Some(Attribute::Dialect { body: Some(b), .. }) => {
                        Some(b.split('|').any(|f| f.trim() == "Aligned"))
                    }
                    _ => None,
                };
                let has_alignment = o.attr(alignment).is_some();
                let message = match (aligned, has_alignment) {
                    (Some(true), false) => "missing alignment value",
                    (Some(false), true) => {
                        "invalid alignment specification with non-aligned memory access specification"
                    }
                    (None, true) => {
                        "invalid alignment specification without aligned memory access specification"
                    }
                    _ => continue,
                };
                self.error(op, message.into());
                return;
            }
        }
        if rule == Rule::SpecConstant
            && matches!(o.attr("spec_id"), Some(Attribute::Integer { value, .. }) if *value < 0)
        {
            self.error(op, "SpecId cannot be negative".into());
            return;
        }
        if rule == Rule::Composite && self.composite_indices(op) {
            return;
        }
        if rule == Rule::VectorShuffle {
            if let Some(message) = self.vector_shuffle_error(op) {
                self.error(op, message);
                return;
            }
        }
        // MLIR's verifyLoadStorePtrAndValTypes: the value is of the pointee type.
        let load_store = match rule {
            Rule::Load => o.operands.first().zip(o.results.first()),
            Rule::Store => o.operands.first().zip(o.operands.get(1)),
            _ => None,
        };
        if let Some((&pointer, &value)) = load_store {
            if let TypeKind::Pointer { pointee, .. } = self.ir.types.kind(self.ir.value_type(pointer)) {
                if *pointee != self.ir.value_type(value) {
                    self.error(op, "mismatch in result type and pointer type".into());
                    return;
                }
            }
        }
        if rule == Rule::AccessChain && self.access_chain(op, def.name != "spirv.AccessChain") {
            return;
        }
        if rule == Rule::CopyMemory && o.operands.len() == 2 {
            let pointee = |v: Value| match self.ir.types.kind(self.ir.value_type(v)) {
                TypeKind::Pointer { pointee, .. } => Some(*pointee),
                _ => None,
            };
            if pointee(o.operands[0]) != pointee(o.operands[1]) {
                self.error(op, "both operands must be pointers to the same type".into());
                return;
            }
        }
        if rule == Rule::Variable {
            if let Some(&result) = o.results.first() {
                if let TypeKind::Pointer { pointee, storage_class, .. } =
                    self.ir.types.kind(self.ir.value_type(result))
                {
                    if storage_class != "Function" {
                        self.error(op, "can only be used to model function-level variables. Use spirv.GlobalVariable for module-level variables.".into());
                        return;
                    }
                    // Pointers to physical buffers (directly or in arrays) need one aliasing decoration.
                    let mut inner = *pointee;
                    while let TypeKind::Array { element, .. } | TypeKind::RuntimeArray { element, .. } =
                        self.ir.types.kind(inner)
                    {
                        inner = *element;
                    }
                    let physical = matches!(self.ir.types.kind(inner),
                        TypeKind::Pointer { storage_class, .. } if storage_class == "PhysicalStorageBuffer");
                    if physical {
                        let aliased = o.attr("aliased_pointer").is_some();
                        let restrict = o.attr("restrict_pointer").is_some();
                        let message = match (aliased, restrict) {
                            (false, false) => {
                                Some("must be decorated either 'AliasedPointer' or 'RestrictPointer'")
                            }
                            (true, true) => Some("must have exactly one aliasing decoration"),
                            _ => None,
                        };
                        if let Some(m) = message {
                            self.error(op, m.into());
                            return;
                        }
                    }
                }
            }
            if let Some(&init) = o.operands.first() {
                let from = match self.ir.value(init).def {
                    crate::ir::ValueDef::Result { op: d, .. } => Some(self.ir.op(d).name.as_str()),
                    _ => None,
                };
                let constant_like = matches!(
                    from,
                    Some(
                        "spirv.Constant"
                            | "spirv.mlir.addressof"
                            | "spirv.mlir.referenceof"
                            | "spirv.SpecConstantOperation"
                            | "arith.constant"
                    )
                );
                if !constant_like {
                    self.error(
                        op,
                        "initializer must be the result of a constant or spirv.GlobalVariable op".into(),
                    );
                    return;
                }
            }
            for name in ["descriptor_set", "binding", "built_in"] {
                if o.attr(name).is_some() {
                    self.error(
                        op,
                        format!("cannot have '{name}' attribute (only allowed in spirv.GlobalVariable)"),
                    );
                    return;
                }
            }
        }
        if rule == Rule::Dot && self.integer_dot_product(op) {
            return;
        }
        if rule == Rule::EmitMeshTasks {
            if let Some(&payload) = o.operands.get(3) {
                let ok = matches!(self.ir.types.kind(self.ir.value_type(payload)),
                    TypeKind::Pointer { storage_class, .. } if storage_class == "TaskPayloadWorkgroupEXT");
                if !ok {
                    self.error(
                        op,
                        "payload must be a variable with a storage class of TaskPayloadWorkgroupEXT".into(),
                    );
                }
            }
        }
    }

    fn native_traits(&mut self, op: OpId, plan: &OpPlan) -> bool {
        let ir = self.ir;
        let o = ir.op(op);
        let all_one_type = |values: &mut dyn Iterator<Item = &Value>| {
            let mut types = values.map(|&v| ir.value_type(v));
            let first = types.next();
            types.all(|t| Some(t) == first)
        };
        if plan.same_operands_and_result_type && !all_one_type(&mut o.operands.iter().chain(&o.results)) {
            self.error(op, "requires the same type for all operands and results".into());
            return true;
        }
        if plan.same_type_operands && !all_one_type(&mut o.operands.iter()) {
            self.error(op, "requires all operands to have the same type".into());
            return true;
        }
        if plan.same_shape {
            let types: Vec<Type> =
                o.operands.iter().chain(&o.results).map(|&v| self.ir.value_type(v)).collect();
            let shapes: Vec<Option<Vec<u64>>> = types.iter().map(|&t| self.shape(t)).collect();
            if shapes.windows(2).any(|w| w[0] != w[1]) {
                self.error(op, "requires the same shape for all operands and results".into());
                return true;
            }
        }
        self.terminator_position(op, plan)
    }

    /// A terminator is its block's last op.
    fn terminator_position(&mut self, op: OpId, plan: &OpPlan) -> bool {
        if plan.terminator {
            if let Some(block) = self.ir.op(op).parent {
                if self.ir.block(block).ops.last() != Some(&op) {
                    self.error(op, "must be the last operation in the parent block".into());
                    return true;
                }
            }
        }
        false
    }

    /// Blocks of registered ops end in a terminator unless the op says otherwise
    /// (MLIR's "empty block" rule).
    fn terminators(&mut self, op: OpId, needs_terminators: bool) -> bool {
        let o = self.ir.op(op);
        if needs_terminators {
            for &r in &o.regions {
                if self.ir.region(r).blocks.iter().any(|&b| self.ir.block(b).ops.is_empty()) {
                    let offset = self.offset(op);
                    self.out.push(Diagnostic::error(offset, "empty block: expect at least a terminator"));
                    return true;
                }
            }
        }
        false
    }

    /// A block of an LLVM dialect op ends in a terminator: its last op, when its traits
    /// are known (an unknown op might be one, as MLIR assumes), is reported otherwise,
    /// on itself, as MLIR does.
    fn missing_llvm_terminator(&mut self, op: OpId) -> bool {
        let ir = self.ir;
        let Some(block) = ir.op(op).parent else { return false };
        if ir.block(block).ops.last() != Some(&op) {
            return false;
        }
        let parent_is_llvm = ir.parent_op(op).is_some_and(|p| ir.op(p).name.starts_with("llvm."));
        let traits = crate::opdef::op_traits(&ir.op(op).name);
        if !parent_is_llvm || traits.is_none_or(|t| t.contains(&"Terminator")) {
            return false;
        }
        let offset = self.offset(op);
        let note = crate::diag::current_operation_note(ir, op);
        let printed = note.strip_prefix("see current operation: ").unwrap_or(&note);
        self.out.push(Diagnostic::error(offset, format!("block with no terminator, has {printed}")));
        true
    }

    /// `spirv.ARM.Graph`: tensor arguments and results, at least one result, and
    /// `spirv.ARM.GraphOutputs` returning what the graph declares.
    fn graph_results(&mut self, op: OpId) -> bool {
        let o = self.ir.op(op);
        let is_tensor = |t: Type| matches!(self.ir.types.kind(t), TypeKind::Opaque(s) if s.starts_with("spirv.arm.tensor"));
        if o.name == "spirv.ARM.Graph" {
            let Some(Attribute::Type(t)) = o.attr("function_type") else { return false };
            let TypeKind::Function { inputs, results } = self.ir.types.kind(*t).clone() else { return false };
            if results.is_empty() {
                self.error(op, "there should be at least one result".into());
                return true;
            }
            for (what, list) in [("argument", &inputs), ("result", &results)] {
                if let Some((i, &t)) = list.iter().enumerate().find(|(_, &t)| !is_tensor(t)) {
                    let got = type_to_string(self.ir, t);
                    self.error(op, format!("type of {what} #{i} must be a TensorArmType, but got '{got}'"));
                    return true;
                }
            }
        }
        if o.name == "spirv.ARM.GraphOutputs" {
            let Some(graph) = self.ir.parent_op(op) else { return false };
            let Some(Attribute::Type(t)) = self.ir.op(graph).attr("function_type") else { return false };
            let TypeKind::Function { results, .. } = self.ir.types.kind(*t).clone() else { return false };
            if o.operands.len() != results.len() {
                let (n, m) = (o.operands.len(), results.len());
                self.error(
                    op,
                    format!("is returning {n} value(s) but enclosing spirv.ARM.Graph requires {m} result(s)"),
                );
                return true;
            }
            for (i, (&v, &want)) in o.operands.iter().zip(&results).enumerate() {
                let got = self.ir.value_type(v);
                if got != want {
                    let (got, want) = (type_to_string(self.ir, got), type_to_string(self.ir, want));
                    let offset = self.offset(op);
                    self.out.push(Diagnostic::error(
                        offset,
                        format!(
                            "type of return operand {i} ('{got}') doesn't match graph result type ('{want}')"
                        ),
                    ));
                    return true;
                }
            }
        }
        false
    }

    /// MLIR's integer dot product rules: packed formats only for 32-bit integer
    /// operands, and a result at least as wide as the operands' elements.
    fn integer_dot_product(&mut self, op: OpId) -> bool {
        let ir = self.ir;
        let o = ir.op(op);
        let (Some(&a), Some(&b), Some(&r)) = (o.operands.first(), o.operands.get(1), o.results.first())
        else {
            return false;
        };
        let (a_ty, b_ty) = (self.ir.value_type(a), self.ir.value_type(b));
        if a_ty != b_ty {
            self.error(op, "requires the same type for both vector operands".into());
            return true;
        }
        let format = match o.attr("format") {
            Some(Attribute::Dialect { body: Some(f), .. }) => Some(f.clone()),
            _ => None,
        };
        let width = |t: Type| match self.ir.types.kind(self.element_or_self(t)) {
            TypeKind::Integer { width, .. } => Some(*width),
            _ => None,
        };
        match self.ir.types.kind(a_ty) {
            TypeKind::Integer { width, .. } => {
                let Some(f) = format else {
                    self.error(
                        op,
                        "requires Packed Vector Format attribute for integer vector operands".into(),
                    );
                    return true;
                };
                if *width != 32 {
                    self.error(
                        op,
                        format!("with specified Packed Vector Format ({f}) requires integer vector operands to be 32-bits wide"),
                    );
                    return true;
                }
            }
            _ => {
                if format.is_some() {
                    let t = type_to_string(self.ir, a_ty);
                    self.error(
                        op,
                        format!("with invalid format attribute for vector operands of type '{t}'"),
                    );
                    return true;
                }
            }
        }
        if let (Some(result_bits), Some(operand_bits)) = (width(self.ir.value_type(r)), width(a_ty)) {
            if result_bits < operand_bits {
                self.error(
                    op,
                    format!("result type has insufficient bit-width ({result_bits} bits) for the specified vector operand type ({operand_bits} bits)"),
                );
                return true;
            }
        }
        false
    }

    /// Walks an access chain's indices through the pointee type, as MLIR's
    /// `getElementPtrType` does, reporting the first index that cannot apply.
    /// `spirv.Bitcast`: a real change of type, pointers only to pointers, and the
    /// same number of bits (pointers count as 64). Returns true on error.
    fn bitcast(&mut self, op: OpId) -> bool {
        let ir = self.ir;
        let o = ir.op(op);
        let (Some(&operand), Some(&result)) = (o.operands.first(), o.results.first()) else { return false };
        let (from, to) = (ir.value_type(operand), ir.value_type(result));
        let is_pointer = |t: Type| matches!(ir.types.kind(t), TypeKind::Pointer { .. });
        let bits = |t: Type| -> Option<u64> {
            match ir.types.kind(t) {
                TypeKind::Pointer { .. } => Some(64),
                TypeKind::Integer { width, .. } => Some(u64::from(*width)),
                TypeKind::Float(f) => Some(u64::from(f.width())),
                TypeKind::Vector { shape, element, .. } => {
                    let element = match ir.types.kind(*element) {
                        TypeKind::Integer { width, .. } => u64::from(*width),
                        TypeKind::Float(f) => u64::from(f.width()),
                        _ => return None,
                    };
                    shape.iter().try_fold(element, |bits, &n| bits.checked_mul(n))
                }
                _ => None,
            }
        };
        // These two MLIR reports without the op prefix.
        let plain = match (is_pointer(from), is_pointer(to)) {
            _ if from == to => Some("result type must be different from operand type"),
            (true, false) => Some("unhandled bit cast conversion from pointer type to non-pointer type"),
            (false, true) => Some("unhandled bit cast conversion from non-pointer type to pointer type"),
            _ => None,
        };
        if let Some(message) = plain {
            let offset = self.offset(op);
            self.out.push(Diagnostic::error(offset, message));
            return true;
        }
        match (bits(from), bits(to)) {
            (Some(from_bits), Some(to_bits)) if from_bits != to_bits => {
                self.error(
                    op,
                    format!(
                        "mismatch in result type bitwidth {to_bits} and operand type bitwidth {from_bits}"
                    ),
                );
                true
            }
            _ => false,
        }
    }

    /// Why a `spirv.Constant` value does not fit its type (`top`: the op's own type, not
    /// an array element's). MLIR's rules, plus three extensions: MLIR 22 has no matrix
    /// or struct constant, so a `!spirv.matrix` takes an array of its column values and
    /// a `!spirv.struct` the array of its members' values; and no null composite, so
    /// `#spirv.null` is the value of any type `OpConstantNull` may have.
    fn constant_value_error(&self, value: &Attribute, ty: Type, top: bool) -> Option<String> {
        let text = |t: Type| type_to_string(self.ir, t);
        match value {
            Attribute::Integer { ty: value_ty, .. } | Attribute::Float { ty: value_ty, .. } => {
                if *value_ty == ty {
                    return None;
                }
                Some(if top {
                    format!("result type ('{}') does not match value type ('{}')", text(ty), text(*value_ty))
                } else {
                    format!(
                        "result or element type ('{}') does not match value type ('{}'), must be the same or spirv.array",
                        text(ty),
                        text(*value_ty)
                    )
                })
            }
            Attribute::Dense { ty: value_ty, .. } => {
                let tensor_for_array = matches!(self.ir.types.kind(*value_ty), TypeKind::Tensor { .. })
                    && matches!(self.ir.types.kind(ty), TypeKind::Array { .. });
                if *value_ty == ty || tensor_for_array {
                    return None;
                }
                Some(format!(
                    "result or element type ('{}') does not match value type ('{}'), must be the same or spirv.array",
                    text(ty),
                    text(*value_ty)
                ))
            }
            Attribute::Array(items) => match self.ir.types.kind(ty) {
                TypeKind::Array { element, .. } => {
                    items.iter().find_map(|item| self.constant_value_error(item, *element, false))
                }
                TypeKind::Matrix { column, columns } => {
                    if items.len() != *columns as usize {
                        return Some(format!("matrix value must have {columns} columns"));
                    }
                    items.iter().find_map(|item| match item {
                        Attribute::Dense { .. } => self.constant_value_error(item, *column, false),
                        _ => Some("matrix value columns must be dense vector values".into()),
                    })
                }
                TypeKind::LiteralStruct(_) | TypeKind::IdentifiedStruct { .. } => {
                    let body = match self.ir.types.kind(ty) {
                        TypeKind::LiteralStruct(b) => Some(b),
                        TypeKind::IdentifiedStruct { name } => self.ir.types.struct_body(name),
                        _ => None,
                    };
                    let members = body.map(|b| b.members.as_slice()).unwrap_or(&[]);
                    if items.len() != members.len() {
                        return Some(format!("struct value must have {} members", members.len()));
                    }
                    items
                        .iter()
                        .zip(members)
                        .find_map(|(item, member)| self.constant_value_error(item, member.ty, false))
                }
                _ => Some("must have spirv.array result type for array value".into()),
            },
            _ if value.is_null_constant() => (!crate::attr::null_constant_allowed(&self.ir.types, ty))
                .then(|| format!("null value cannot have type '{}'", text(ty))),
            _ => None,
        }
    }

    /// The op named `name` in the symbol table nearest above `op` (MLIR's
    /// `lookupNearestSymbolFrom`: that table only).
    fn nearest_symbol(&self, op: OpId, name: &str) -> Option<OpId> {
        let ir = self.ir;
        let mut table = ir.parent_op(op)?;
        while !crate::opdef::op_has_trait(&ir.op(table).name, "SymbolTable") {
            table = ir.parent_op(table)?;
        }
        let mut tables = self.symbol_tables.borrow_mut();
        let symbols = tables.entry(table).or_insert_with(|| {
            let mut symbols = FxHashMap::default();
            for &r in &ir.op(table).regions {
                for &b in &ir.region(r).blocks {
                    for &o in &ir.block(b).ops {
                        if let Some(Attribute::String(s)) = ir.op(o).attr("sym_name") {
                            symbols.entry(s.clone()).or_insert(o);
                        }
                    }
                }
            }
            symbols
        });
        symbols.get(name).copied()
    }

    /// MLIR's `verifySymbolUses` of `llvm.call` (a direct callee is an `llvm.func` whose
    /// signature the call matches) and `llvm.mlir.addressof` (it names a global or a
    /// function), in MLIR's words.
    fn llvm_symbol_use(&self, op: OpId, rule: Rule) -> Option<String> {
        let ir = self.ir;
        let o = ir.op(op);
        let attr = if rule == Rule::LlvmCall { "callee" } else { "global_name" };
        let Some(Attribute::SymbolRef(path)) = o.attr(attr) else { return None };
        let [name] = path.as_slice() else { return None };
        let text = |t: Type| type_to_string(ir, t);
        let target = self.nearest_symbol(op, name);
        if rule == Rule::LlvmAddressOf {
            let known = ["llvm.mlir.global", "llvm.mlir.alias", "llvm.func", "llvm.mlir.ifunc"];
            let found = target.is_some_and(|t| known.contains(&ir.op(t).name.as_str()));
            return (!found).then(|| {
                "must reference a global defined by 'llvm.mlir.global', 'llvm.mlir.alias' or 'llvm.func' \
                 or 'llvm.mlir.ifunc'"
                    .to_string()
            });
        }
        let Some(target) = target else {
            return Some(format!("'{name}' does not reference a symbol in the current scope"));
        };
        let target_name = &ir.op(target).name;
        if target_name != "llvm.func" && target_name != "llvm.mlir.ifunc" {
            return Some(format!("'{name}' does not reference a valid LLVM function or IFunc"));
        }
        let Some(Attribute::Type(fn_ty)) = ir.op(target).attr("function_type") else { return None };
        let TypeKind::LlvmFunction { result, params, variadic } = ir.types.kind(*fn_ty) else { return None };
        if *variadic {
            return None;
        }
        if o.operands.len() != params.len() {
            return Some(format!(
                "incorrect number of operands ({}) for callee (expecting: {})",
                o.operands.len(),
                params.len()
            ));
        }
        for (i, (&v, &param)) in o.operands.iter().zip(params).enumerate() {
            let got = ir.value_type(v);
            if got != param {
                return Some(format!(
                    "operand type mismatch for operand {i}: '{}' != '{}'",
                    text(got),
                    text(param)
                ));
            }
        }
        let void = matches!(ir.types.kind(*result), TypeKind::LlvmVoid);
        match (o.results.first(), void) {
            (Some(_), true) => Some("calling function with void result must not produce values".into()),
            (None, false) => Some("expected function call to produce a value".into()),
            (Some(&r), false) if ir.value_type(r) != *result => {
                Some(format!("result type mismatch: '{}' != '{}'", text(ir.value_type(r)), text(*result)))
            }
            _ => None,
        }
    }

    /// The first symbol of an entry point's interface that names no global
    /// variable of its module, as printed.
    fn missing_interface_variable(&self, op: OpId) -> Option<String> {
        let ir = self.ir;
        let Some(Attribute::Array(interface)) = ir.op(op).attr("interface") else { return None };
        let module_body = ir.op(op).parent?;
        let is_variable = |name: &str| {
            ir.block(module_body).ops.iter().any(|&o| {
                ir.op(o).name == "spirv.GlobalVariable"
                    && matches!(ir.op(o).attr("sym_name"), Some(Attribute::String(s)) if s == name)
            })
        };
        interface.iter().find_map(|symbol| match symbol {
            Attribute::SymbolRef(path) if path.len() == 1 && !is_variable(&path[0]) => {
                Some(crate::text::printer::attribute_to_string(ir, symbol))
            }
            _ => None,
        })
    }

    fn access_chain(&mut self, op: OpId, has_element_operand: bool) -> bool {
        let ir = self.ir;
        let o = ir.op(op);
        let Some(&base) = o.operands.first() else { return false };
        // Kinds are borrowed from `ir`, not `self`, so errors can be reported while
        // they are in use (no copies of struct bodies).
        let &TypeKind::Pointer { pointee, .. } = ir.types.kind(ir.value_type(base)) else {
            return false;
        };
        let skip = if has_element_operand { 2 } else { 1 };
        let mut ty = pointee;
        for &index in o.operands.iter().skip(skip) {
            let kind = ir.types.kind(ty);
            let body = match kind {
                TypeKind::LiteralStruct(b) => Some(b),
                TypeKind::IdentifiedStruct { name } => ir.types.struct_body(name),
                _ => None,
            };
            ty = match *kind {
                TypeKind::Vector { element, .. }
                | TypeKind::Array { element, .. }
                | TypeKind::RuntimeArray { element, .. }
                | TypeKind::CooperativeMatrix { element, .. } => element,
                TypeKind::Matrix { column, .. } => column,
                TypeKind::LiteralStruct(_) | TypeKind::IdentifiedStruct { .. } => {
                    let base_msg =
                        "index must be an integer spirv.Constant to access element of spirv.struct";
                    let def_op = match self.ir.value(index).def {
                        crate::ir::ValueDef::Result { op, .. } => Some(op),
                        _ => None,
                    };
                    let constant = def_op.filter(|&d| self.ir.op(d).name == "spirv.Constant").and_then(|d| {
                        match self.ir.op(d).attr("value") {
                            Some(Attribute::Integer { value, .. }) => Some(*value),
                            _ => None,
                        }
                    });
                    let Some(value) = constant else {
                        let message = match def_op {
                            Some(d) if self.ir.op(d).name != "spirv.Constant" => {
                                format!("{base_msg}, but provided {}", self.ir.op(d).name)
                            }
                            _ => base_msg.to_string(),
                        };
                        let offset = self.offset(op);
                        self.out.push(Diagnostic::error(offset, message));
                        return true;
                    };
                    let members = body.map_or(&[][..], |b| &b.members[..]);
                    match usize::try_from(value).ok().and_then(|i| members.get(i)) {
                        Some(m) => m.ty,
                        None => {
                            let t = type_to_string(self.ir, ty);
                            self.error(op, format!("index {value} out of bounds for '{t}'"));
                            return true;
                        }
                    }
                }
                _ => {
                    let t = type_to_string(self.ir, ty);
                    let offset = self.offset(op);
                    self.out.push(Diagnostic::error(
                        offset,
                        format!("cannot extract from non-composite type '{t}' with index 0"),
                    ));
                    return true;
                }
            };
        }
        false
    }

    /// `spirv.VectorShuffle` (MLIR's `VectorShuffleOp::verify`): one selector per
    /// result component, each selecting a component of the two vectors or undefined
    /// (0xFFFFFFFF).
    fn vector_shuffle_error(&self, op: OpId) -> Option<String> {
        let ir = self.ir;
        let o = ir.op(op);
        let (Some(Attribute::Array(selectors)), [vector1, vector2], [result]) =
            (o.attr("components"), &o.operands[..], &o.results[..])
        else {
            return None;
        };
        let components = |v: Value| match ir.types.kind(ir.value_type(v)) {
            TypeKind::Vector { shape, .. } => Some(shape.iter().product::<u64>()),
            _ => None,
        };
        let (Some(n1), Some(n2), Some(result_components)) =
            (components(*vector1), components(*vector2), components(*result))
        else {
            return None;
        };
        if result_components != selectors.len() as u64 {
            return Some(format!(
                "result type element count ({result_components}) mismatch with the number of component selectors ({})",
                selectors.len()
            ));
        }
        let total = n1 + n2;
        for selector in selectors {
            let Attribute::Integer { value, .. } = selector else { continue };
            // MLIR reads the selector as a 32-bit unsigned value.
            let index = *value as u32;
            if u64::from(index) >= total && index != u32::MAX {
                return Some(format!(
                    "component selector {index} out of range: expected to be in [0, {total}) or 0xffffffff"
                ));
            }
        }
        None
    }

    /// `spirv.CompositeExtract`/`spirv.CompositeInsert`: the indices walk the composite
    /// type to the result's (extract) or the object's (insert) type, with MLIR's
    /// messages. True when it reported an error.
    fn composite_indices(&mut self, op: OpId) -> bool {
        let ir = self.ir;
        let o = ir.op(op);
        let insert = o.name == "spirv.CompositeInsert";
        let composite = if insert { o.operands.get(1) } else { o.operands.first() };
        let (Some(&composite), Some(Attribute::Array(indices))) = (composite, o.attr("indices")) else {
            return false;
        };
        let plain = |v: &mut Self, message: String| {
            let offset = v.offset(op);
            v.out.push(Diagnostic::error(offset, message));
            true
        };
        if indices.is_empty() {
            return plain(self, format!("expected at least one index for {}", o.name));
        }
        if insert {
            if let Some(&result) = o.results.first() {
                let (composite_ty, result_ty) = (ir.value_type(composite), ir.value_type(result));
                if composite_ty != result_ty {
                    let (c, r) = (type_to_string(ir, composite_ty), type_to_string(ir, result_ty));
                    self.error(
                        op,
                        format!(
                            "result type should be the same as the composite type, but found '{c}' vs '{r}'"
                        ),
                    );
                    return true;
                }
            }
        }
        let mut ty = ir.value_type(composite);
        for index in indices {
            let Attribute::Integer { value, .. } = index else { return false };
            let at = usize::try_from(*value).ok();
            let (element, count) = match ir.types.composite_step(ty, at) {
                CompositeStep::Element { ty, bound: Some(bound) } => (ty, Some(bound)),
                CompositeStep::Member(Some(member)) => (member, None),
                CompositeStep::Member(None) => {
                    let t = type_to_string(ir, ty);
                    return plain(self, format!("index {value} out of bounds for '{t}'"));
                }
                // Element types without a static bound: not checked here.
                CompositeStep::Element { bound: None, .. } | CompositeStep::Unknown => return false,
                CompositeStep::NotComposite => {
                    let t = type_to_string(ir, ty);
                    return plain(
                        self,
                        format!("cannot extract from non-composite type '{t}' with index {value}"),
                    );
                }
            };
            if count.is_some_and(|n| at.is_none_or(|i| i as u64 >= n)) {
                let t = type_to_string(ir, ty);
                return plain(self, format!("index {value} out of bounds for '{t}'"));
            }
            ty = element;
        }
        let (actual, expected_text) = if insert {
            (o.operands.first().map(|&v| ir.value_type(v)), "object operand type should be")
        } else {
            (o.results.first().map(|&v| ir.value_type(v)), "invalid result type: expected")
        };
        let Some(actual) = actual else { return false };
        if actual == ty {
            return false;
        }
        let (expected, provided) = (type_to_string(ir, ty), type_to_string(ir, actual));
        let message = if insert {
            format!("{expected_text} '{expected}', but found '{provided}'")
        } else {
            format!("{expected_text} '{expected}' but provided '{provided}'")
        };
        self.error(op, message);
        true
    }

    /// `spirv.func` arguments: physical-buffer pointers need an aliasing decoration,
    /// and argument attributes must belong to a dialect.
    fn argument_decorations(&mut self, op: OpId, inputs: &[Type]) -> bool {
        let ir = self.ir;
        let o = ir.op(op);
        let arg_attrs: &[Attribute] = match o.attr("arg_attrs") {
            Some(Attribute::Array(a)) => a,
            _ => &[],
        };
        let physical = |t: Type| matches!(ir.types.kind(t), TypeKind::Pointer { storage_class, .. } if storage_class == "PhysicalStorageBuffer");
        for (i, &t) in inputs.iter().enumerate() {
            let attrs: &[crate::attr::NamedAttribute] = match arg_attrs.get(i) {
                Some(Attribute::Dictionary(d)) => d,
                _ => &[],
            };
            let decoration =
                attrs.iter().find(|a| a.name == "spirv.decoration").and_then(|a| match &a.value {
                    Attribute::Dialect { body: Some(b), .. } => Some(b.as_str()),
                    _ => None,
                });
            let (needed, message): (&[&str], &str) = match ir.types.kind(t) {
                _ if physical(t) => {
                    (&["Aliased", "Restrict"], "with physical buffer pointer must be decorated either 'Aliased' or 'Restrict'")
                }
                TypeKind::Pointer { pointee, .. } if physical(*pointee) => (
                    &["AliasedPointer", "RestrictPointer"],
                    "with a pointer points to a physical buffer pointer must be decorated either 'AliasedPointer' or 'RestrictPointer'",
                ),
                _ => (&[], ""),
            };
            if !needed.is_empty() && !decoration.is_some_and(|d| needed.contains(&d)) {
                self.error(op, message.into());
                return true;
            }
            if attrs.iter().any(|a| !a.name.contains('.')) {
                self.error(op, "arguments may only have dialect attributes".into());
                return true;
            }
        }
        false
    }

    /// Function-like ops: the entry block's arguments match the signature.
    /// `spirv.Return`/`spirv.ReturnValue` against the enclosing `spirv.func`'s results,
    /// and `spirv.Unreachable` in a function's entry block, with MLIR's messages.
    fn return_rules(&self, op: OpId, name: &str) -> Option<String> {
        let ir = self.ir;
        let function_results = || {
            let mut current = ir.parent_op(op);
            while let Some(p) = current {
                if ir.op(p).name == "spirv.func" {
                    let Some(Attribute::Type(fn_ty)) = ir.op(p).attr("function_type") else { return None };
                    return match ir.types.kind(*fn_ty) {
                        TypeKind::Function { results, .. } => Some(&results[..]),
                        _ => None,
                    };
                }
                current = ir.parent_op(p);
            }
            None
        };
        match name {
            "spirv.Return" => {
                let results = function_results()?;
                (!results.is_empty()).then(|| "cannot be used in functions returning value".to_string())
            }
            "spirv.ReturnValue" => {
                let results = function_results()?;
                let operands = &ir.op(op).operands;
                if results.len() != operands.len() {
                    return Some(format!(
                        "returns {} value but enclosing function requires {} results",
                        operands.len(),
                        results.len()
                    ));
                }
                let (&value, &expected) = (operands.first()?, results.first()?);
                let actual = ir.value_type(value);
                (actual != expected).then(|| {
                    // MLIR's text has the doubled space.
                    format!(
                        " return value's type ('{}') mismatch with function's result type ('{}')",
                        type_to_string(ir, actual),
                        type_to_string(ir, expected)
                    )
                })
            }
            "spirv.Unreachable" => {
                let block = ir.op(op).parent?;
                let region = ir.block(block).parent?;
                let is_entry = ir.region(region).blocks.first() == Some(&block);
                let in_function = ir.region(region).parent.is_some_and(|f| ir.op(f).name == "spirv.func");
                (is_entry && in_function).then(|| "cannot be used in reachable block".to_string())
            }
            _ => None,
        }
    }

    fn function_signature(&mut self, op: OpId) -> bool {
        let o = self.ir.op(op);
        if !matches!(o.name.as_str(), "spirv.func" | "func.func" | "spirv.ARM.Graph") {
            return false;
        }
        let Some(Attribute::Type(fn_ty)) = o.attr("function_type") else { return false };
        let TypeKind::Function { inputs, .. } = self.ir.types.kind(*fn_ty) else { return false };
        let Some(entry) = self.ir.entry_block(op) else {
            return false;
        };
        let args = &self.ir.block(entry).arguments;
        if args.len() != inputs.len() {
            let n = inputs.len();
            self.error(op, format!("entry block must have {n} arguments to match function signature"));
            return true;
        }
        if o.name == "spirv.func" && self.argument_decorations(op, inputs) {
            return true;
        }
        for (i, (&a, &t)) in args.iter().zip(inputs).enumerate() {
            let actual = self.ir.value_type(a);
            if actual != t {
                let (want, got) = (type_to_string(self.ir, t), type_to_string(self.ir, actual));
                self.error(
                    op,
                    format!("type of entry block argument #{i}('{got}') must match the type of the corresponding argument in function signature('{want}')"),
                );
                return true;
            }
        }
        false
    }

    fn shape(&self, t: Type) -> Option<Vec<u64>> {
        match self.ir.types.kind(t) {
            TypeKind::Vector { shape, .. } => Some(shape.clone()),
            TypeKind::CooperativeMatrix { rows, columns, .. } => Some(vec![*rows as u64, *columns as u64]),
            _ => None,
        }
    }

    /// The first value of the operand or result group called `name`.
    fn named_value(&self, op: OpId, name: &str) -> Option<Value> {
        let o = self.ir.op(op);
        let def = o.name.def()?;
        let (results, i) = match def.operands.iter().position(|d| d.name == name) {
            Some(i) => (false, i),
            None => (true, def.results.iter().position(|d| d.name == name)?),
        };
        let values = if results { &o.results } else { &o.operands };
        // With only single-value groups (the common case), group i is value i.
        let defs = if results { def.results } else { def.operands };
        if defs.iter().all(|d| d.arity == Arity::Single) {
            return (values.len() == defs.len()).then(|| values[i]);
        }
        let range = self.groups(op, def, results)?.get(i)?.clone();
        values[range].first().copied()
    }

    fn element_or_self(&self, t: Type) -> Type {
        match self.ir.types.kind(t) {
            TypeKind::Vector { element, .. } | TypeKind::CooperativeMatrix { element, .. } => *element,
            _ => t,
        }
    }

    /// Three-valued AND (`decisive` false) or OR (`decisive` true): a child equal to
    /// `decisive` settles it; otherwise any unknown child makes the result unknown.
    fn eval_all(&self, items: &[Pred], decisive: bool, subject: Subject, op: OpId) -> Option<bool> {
        three_valued(items.iter().map(|p| self.eval(p, subject, op)), decisive)
    }

    /// Evaluates an ODS predicate; `None` when it contains something we cannot judge.
    fn eval(&self, pred: &Pred, subject: Subject, op: OpId) -> Option<bool> {
        match pred {
            Pred::And(items) => self.eval_all(items, false, subject, op),
            Pred::Or(items) => self.eval_all(items, true, subject, op),
            Pred::Not(p) => self.eval(p, subject, op).map(|b| !b),
            // `$_self` replaced by an element-type expression: the child judges the element.
            Pred::SubstLeaves { replacement, child, .. } if replacement.contains("getElementType()") => {
                let Subject::Type(t) = subject else { return None };
                match self.ir.types.kind(t) {
                    TypeKind::Vector { element, .. }
                    | TypeKind::Tensor { element, .. }
                    | TypeKind::CooperativeMatrix { element, .. } => {
                        self.eval(child, Subject::Type(*element), op)
                    }
                    _ => None,
                }
            }
            Pred::SubstLeaves { child, .. } => self.eval(child, subject, op),
            Pred::Concat { prefix, child, .. } => {
                if prefix.contains("elementType") {
                    let Subject::Type(t) = subject else { return None };
                    match self.ir.types.kind(t) {
                        TypeKind::Vector { element, .. }
                        | TypeKind::Tensor { element, .. }
                        | TypeKind::CooperativeMatrix { element, .. } => {
                            self.eval(child, Subject::Type(*element), op)
                        }
                        // The guard before the element check rejects other kinds itself.
                        _ => None,
                    }
                } else if prefix.contains("all_of") {
                    let Subject::Attr(Attribute::Array(items)) = subject else { return Some(false) };
                    let mut all = Some(true);
                    for it in items {
                        match self.eval(child, Subject::Attr(it), op) {
                            Some(false) => return Some(false),
                            None => all = None,
                            Some(true) => {}
                        }
                    }
                    all
                } else {
                    None
                }
            }
            Pred::Leaf(text) => self.leaf(text, subject, op),
        }
    }

    fn leaf(&self, text: &'static str, subject: Subject, op: OpId) -> Option<bool> {
        let leaf = self.compiled(text);
        if leaf.expr == "true" {
            return Some(true);
        }
        if let Some(r) = leaf.op.as_ref().and_then(|l| self.op_leaf(l, op)) {
            return Some(r);
        }
        match subject {
            Subject::Type(t) => self.type_leaf(leaf.expr, t),
            Subject::Attr(a) => self.attr_leaf(&leaf.attr, a),
            Subject::Op => None,
        }
    }

    /// Evaluates a predicate prepared by an [`OpPlan`], as [`Verifier::eval`] does the
    /// predicate it was made from.
    fn check(&self, check: &Check, subject: Subject, op: OpId) -> Option<bool> {
        match check {
            Check::And(items) => self.check_all(items, false, subject, op),
            Check::Or(items) => self.check_all(items, true, subject, op),
            Check::Not(c) => self.check(c, subject, op).map(|b| !b),
            Check::Element(child) => {
                let Subject::Type(t) = subject else { return None };
                match self.ir.types.kind(t) {
                    TypeKind::Vector { element, .. }
                    | TypeKind::Tensor { element, .. }
                    | TypeKind::CooperativeMatrix { element, .. } => {
                        self.check(child, Subject::Type(*element), op)
                    }
                    _ => None,
                }
            }
            Check::AllOf(child) => {
                let Subject::Attr(Attribute::Array(items)) = subject else { return Some(false) };
                let mut all = Some(true);
                for it in items {
                    match self.check(child, Subject::Attr(it), op) {
                        Some(false) => return Some(false),
                        None => all = None,
                        Some(true) => {}
                    }
                }
                all
            }
            Check::Unknown => None,
            Check::Leaf { leaf, op: op_check } => {
                if leaf.expr == "true" {
                    return Some(true);
                }
                if let Some(r) = op_check.as_ref().and_then(|l| self.op_check(l, op)) {
                    return Some(r);
                }
                match subject {
                    Subject::Type(t) => self.type_leaf(leaf.expr, t),
                    Subject::Attr(a) => self.attr_leaf(&leaf.attr, a),
                    Subject::Op => None,
                }
            }
        }
    }

    fn check_all(&self, items: &[Check], decisive: bool, subject: Subject, op: OpId) -> Option<bool> {
        three_valued(items.iter().map(|c| self.check(c, subject, op)), decisive)
    }

    /// An op-level leaf whose value names were resolved against the op's definition.
    fn op_check(&self, leaf: &OpCheck, op: OpId) -> Option<bool> {
        let ty = |r: &Option<ValueRef>| r.and_then(|r| self.value_at(op, r)).map(|v| self.ir.value_type(v));
        match leaf {
            OpCheck::Inside { parents, direct } => Some(self.inside_any_of(op, parents, *direct)),
            OpCheck::SameTypes(refs) => all_equal(refs.iter().map(ty)),
            OpCheck::SameElementTypes(refs) => {
                all_equal(refs.iter().map(|r| ty(r).map(|t| self.element_or_self(t))))
            }
            OpCheck::Derived { derive, src, dst } => {
                let dst = ty(dst)?;
                let src = ty(src)?;
                self.derived_matches(*derive, src, dst)
            }
        }
    }

    /// The first value of an operand or result group (as [`Verifier::named_value`]).
    fn value_at(&self, op: OpId, r: ValueRef) -> Option<Value> {
        let o = self.ir.op(op);
        let values = if r.results { &o.results } else { &o.operands };
        // With only single-value groups (the common case), group i is value i.
        if r.single {
            return (values.len() == r.count).then(|| values.get(r.index).copied()).flatten();
        }
        let def = o.name.def()?;
        let range = self.group_range(op, def, r.results, r.index)?;
        values.get(range)?.first().copied()
    }

    /// The leaf's compiled form, made once per process and leaf.
    fn compiled(&self, text: &'static str) -> &'static CompiledLeaf {
        let key = text.as_ptr() as usize;
        if let Some(&leaf) = self.compiled_leaves.borrow().get(&key) {
            return leaf;
        }
        let leaf = compiled_leaf(text);
        self.compiled_leaves.borrow_mut().insert(key, leaf);
        leaf
    }

    fn type_leaf(&self, e: &str, t: Type) -> Option<bool> {
        let kind = self.ir.types.kind(t);
        let int = |w: u32, s: Option<Signedness>| matches!(kind, TypeKind::Integer { width, signedness } if *width == w && s.is_none_or(|s| s == *signedness));
        let number = |prefix: &str| {
            e.strip_prefix(prefix).and_then(|r| r.strip_suffix(')')).and_then(|n| n.parse::<u32>().ok())
        };
        if let Some(w) = number("$_self.isInteger(") {
            return Some(int(w, None));
        }
        if let Some(w) = number("$_self.isSignlessInteger(") {
            return Some(int(w, Some(Signedness::Signless)));
        }
        if let Some(w) = number("$_self.isUnsignedInteger(") {
            return Some(int(w, Some(Signedness::Unsigned)));
        }
        if let Some(w) = number("$_self.isSignedInteger(") {
            return Some(int(w, Some(Signedness::Signed)));
        }
        // The types the IR carries beyond MLIR's dialect (the sampler, grammar types kept
        // opaque) are neither known to meet MLIR's SPIR-V type constraints nor to fail them.
        let beyond_mlir = match kind {
            TypeKind::Sampler => true,
            TypeKind::Opaque(text) => text.starts_with("spirv.") && !text.starts_with("spirv.arm."),
            _ => false,
        };
        if beyond_mlir
            && e.contains("::mlir::spirv::")
            && !(e.contains("PointerType") && crate::types::untyped_pointer_storage_class(kind).is_some())
        {
            return None;
        }
        if let Some(n) = e.strip_prefix("::llvm::cast<::mlir::VectorType>($_self).getNumElements()==") {
            let n: u64 = n.parse().ok()?;
            return Some(
                matches!(kind, TypeKind::Vector { shape, .. } if shape.iter().product::<u64>() == n),
            );
        }
        Some(match e {
            // The LLVM dialect's constraints.
            "$_self.isSignlessInteger()" => {
                matches!(kind, TypeKind::Integer { signedness: Signedness::Signless, .. })
            }
            "::llvm::isa<::mlir::IntegerType>($_self)" => matches!(kind, TypeKind::Integer { .. }),
            "::llvm::isa<::mlir::FloatType>($_self)"
            | "::mlir::LLVM::isCompatibleFloatingPointType($_self)" => {
                matches!(kind, TypeKind::Float(_))
            }
            // A vector of signless integers, floats or LLVM pointers.
            "::mlir::LLVM::isCompatibleVectorType($_self)" => match kind {
                TypeKind::Vector { element, .. } => matches!(
                    self.ir.types.kind(*element),
                    TypeKind::Integer { signedness: Signedness::Signless, .. }
                        | TypeKind::Float(_)
                        | TypeKind::LlvmPointer { .. }
                ),
                _ => false,
            },
            "::llvm::isa<::mlir::LLVM::LLVMPointerType>($_self)" => {
                matches!(kind, TypeKind::LlvmPointer { .. })
            }
            "::llvm::isa<::mlir::LLVM::LLVMStructType>($_self)" => {
                matches!(kind, TypeKind::LlvmStruct { .. })
            }
            "::llvm::isa<::mlir::LLVM::LLVMStructType, ::mlir::LLVM::LLVMArrayType>($_self)" => {
                matches!(kind, TypeKind::LlvmStruct { .. } | TypeKind::LlvmArray { .. })
            }
            "::llvm::isa<::mlir::LLVM::LLVMFunctionType>($_self)" => {
                matches!(kind, TypeKind::LlvmFunction { .. })
            }
            "$_self.isF16()" => matches!(kind, TypeKind::Float(FloatKind::F16)),
            "$_self.isF32()" => matches!(kind, TypeKind::Float(FloatKind::F32)),
            "$_self.isF64()" => matches!(kind, TypeKind::Float(FloatKind::F64)),
            "::llvm::isa<::mlir::BFloat16Type>($_self)" => matches!(kind, TypeKind::Float(FloatKind::BF16)),
            "::llvm::isa<::mlir::VectorType>($_self)" => matches!(kind, TypeKind::Vector { .. }),
            "::llvm::isa<::mlir::FixedVectorType>($_self)" => {
                matches!(kind, TypeKind::Vector { scalable, .. } if !scalable.iter().any(|s| *s))
            }
            "::llvm::cast<::mlir::VectorType>($_self).getRank()>0" => {
                matches!(kind, TypeKind::Vector { shape, .. } if !shape.is_empty())
            }
            "::llvm::isa<::mlir::NoneType>($_self)" => matches!(kind, TypeKind::None),
            "::llvm::isa<::mlir::FunctionType>($_self)" => matches!(kind, TypeKind::Function { .. }),
            "::llvm::isa<::mlir::spirv::ArrayType>($_self)" => matches!(kind, TypeKind::Array { .. }),
            "::llvm::isa<::mlir::spirv::RuntimeArrayType>($_self)" => {
                matches!(kind, TypeKind::RuntimeArray { .. })
            }
            // Untyped pointers (kept opaque) are pointers too.
            "::llvm::isa<::mlir::spirv::PointerType>($_self)" => {
                matches!(kind, TypeKind::Pointer { .. })
                    || crate::types::untyped_pointer_storage_class(kind).is_some()
            }
            "::llvm::isa<::mlir::spirv::StructType>($_self)" => {
                matches!(kind, TypeKind::LiteralStruct(_) | TypeKind::IdentifiedStruct { .. })
            }
            "::llvm::isa<::mlir::spirv::ImageType>($_self)" => matches!(kind, TypeKind::Image { .. }),
            "::llvm::isa<::mlir::spirv::SampledImageType>($_self)" => {
                matches!(kind, TypeKind::SampledImage(_))
            }
            "::llvm::isa<::mlir::spirv::MatrixType>($_self)" => matches!(kind, TypeKind::Matrix { .. }),
            "::llvm::isa<::mlir::spirv::CooperativeMatrixType>($_self)" => {
                matches!(kind, TypeKind::CooperativeMatrix { .. })
            }
            "::llvm::isa<::mlir::spirv::TensorArmType>($_self)" => {
                matches!(kind, TypeKind::Opaque(t) if t.starts_with("spirv.arm.tensor"))
            }
            _ => return None,
        })
    }

    fn attr_leaf(&self, leaf: &AttrLeaf, a: &Attribute) -> Option<bool> {
        Some(match leaf {
            AttrLeaf::Unknown => return None,
            AttrLeaf::EnumAttr { known, expected_name } => {
                // An enum attribute of the dialect: `#spirv.<mnemonic><...>`.
                let Attribute::Dialect { name, .. } = a else { return Some(false) };
                if !known {
                    return None;
                }
                expected_name.as_deref().is_some_and(|e| name == e)
            }
            // A `BoolAttr` is an `IntegerAttr` of type i1 in MLIR.
            AttrLeaf::Integer => matches!(a, Attribute::Integer { .. } | Attribute::Bool(_)),
            AttrLeaf::Bool => matches!(a, Attribute::Bool(_)),
            AttrLeaf::String => matches!(a, Attribute::String(_)),
            AttrLeaf::Array => matches!(a, Attribute::Array(_)),
            AttrLeaf::Dictionary => matches!(a, Attribute::Dictionary(_)),
            AttrLeaf::SymbolRef => matches!(a, Attribute::SymbolRef(_)),
            AttrLeaf::FlatSymbolRef => matches!(a, Attribute::SymbolRef(p) if p.len() == 1),
            AttrLeaf::Type => matches!(a, Attribute::Type(_)),
            AttrLeaf::DenseI32Array => matches!(a, Attribute::DenseArray { .. }),
            AttrLeaf::Typed => matches!(
                a,
                Attribute::Integer { .. }
                    | Attribute::Float { .. }
                    | Attribute::Dense { .. }
                    | Attribute::Bool(_)
            ),
            AttrLeaf::FunctionType => {
                matches!(a, Attribute::Type(t) if matches!(self.ir.types.kind(*t), TypeKind::Function { .. }))
            }
            AttrLeaf::SignlessI32 => {
                matches!(a, Attribute::Integer { ty, .. }
                    if matches!(self.ir.types.kind(*ty), TypeKind::Integer { width: 32, signedness: Signedness::Signless }))
            }
            AttrLeaf::StrictlyPositive => matches!(a, Attribute::Integer { value, .. } if *value > 0),
            AttrLeaf::PowerOf2 => {
                matches!(a, Attribute::Integer { value, .. } if *value > 0 && (*value & (*value - 1)) == 0)
            }
        })
    }

    /// Leaves that relate an op's operands and results (ODS `PredOpTrait`s).
    fn op_leaf(&self, leaf: &OpLeaf, op: OpId) -> Option<bool> {
        let ty = |name: &str| self.named_value(op, name).map(|v| self.ir.value_type(v));
        match leaf {
            OpLeaf::Inside { parents, direct } => Some(self.inside(op, parents, *direct)),
            OpLeaf::SameTypes(names) => all_equal(names.iter().map(|n| ty(n))),
            OpLeaf::SameElementTypes(names) => {
                all_equal(names.iter().map(|n| ty(n).map(|t| self.element_or_self(t))))
            }
            OpLeaf::Derived { derive, src, dst } => {
                let dst = ty(dst)?;
                let src = ty(src)?;
                self.derived_matches(*derive, src, dst)
            }
        }
    }

    /// Whether `dst` is the type `derive` makes of `src`; `None` when it cannot tell.
    fn derived_matches(&self, derive: Derive, src: Type, dst: Type) -> Option<bool> {
        let derived = match derive {
            Derive::UnaryResult => {
                let i1 = self.find_i1()?;
                match self.ir.types.kind(src) {
                    TypeKind::Vector { .. } => {
                        return Some(
                            matches!(self.ir.types.kind(dst), TypeKind::Vector { element, shape, .. }
                            if *element == i1 && self.shape(src).as_ref() == Some(shape)),
                        )
                    }
                    _ => i1,
                }
            }
            Derive::Pointee => match self.ir.types.kind(src) {
                TypeKind::Pointer { pointee, .. } => *pointee,
                // An untyped pointer points to whatever is loaded or stored through it.
                kind if crate::types::untyped_pointer_storage_class(kind).is_some() => return Some(true),
                _ => return Some(false),
            },
            Derive::ElementOrSelf => self.element_or_self(src),
            Derive::SampledImageImage => match self.ir.types.kind(src) {
                TypeKind::SampledImage(image) => *image,
                _ => return Some(false),
            },
            Derive::ValueAndFlag => {
                let i1 = self.find_i1();
                return Some(
                    matches!(self.ir.types.kind(dst), TypeKind::LlvmStruct { packed: false, members, .. }
                    if members.len() == 2 && members[0] == src && Some(members[1]) == i1),
                );
            }
            Derive::Same => src,
        };
        Some(derived == dst)
    }

    fn find_i1(&self) -> Option<Type> {
        self.ir.types.find(&TypeKind::Integer { width: 1, signedness: Signedness::Signless })
    }

    /// [`Verifier::inside`] with the parents' names interned.
    fn inside_any_of(&self, op: OpId, parents: &[crate::ir::OpName], direct: bool) -> bool {
        let mut current = self.ir.parent_op(op);
        while let Some(p) = current {
            if parents.contains(&self.ir.op(p).name) {
                return true;
            }
            if direct {
                return false;
            }
            current = self.ir.parent_op(p);
        }
        false
    }

    /// Whether `op` sits in one of `parents` (directly, or anywhere above unless `direct`).
    fn inside(&self, op: OpId, parents: &[&str], direct: bool) -> bool {
        let mut current = self.ir.parent_op(op);
        while let Some(p) = current {
            if parents.contains(&self.ir.op(p).name.as_str()) {
                return true;
            }
            if direct {
                return false;
            }
            current = self.ir.parent_op(p);
        }
        false
    }
}

/// Whether `block` holds exactly one `spirv.mlir.merge`.
fn is_merge_block(ir: &Ir, block: crate::ir::BlockId) -> bool {
    let ops = &ir.block(block).ops;
    ops.len() == 1 && ir.op(ops[0]).name == "spirv.mlir.merge"
}

/// The block layout `spirv.mlir.selection` (header, ..., merge) and
/// `spirv.mlir.loop` (entry, header, ..., continue, merge) require; an empty
/// region is allowed.
fn structured_region_error(ir: &Ir, op: OpId, name: &str) -> Option<&'static str> {
    if name != "spirv.mlir.loop" && name != "spirv.mlir.selection" {
        return None;
    }
    let region = *ir.op(op).regions.first()?;
    let blocks = &ir.region(region).blocks;
    // Empty blocks are reported by the generic block checks instead.
    if blocks.iter().any(|&b| ir.block(b).ops.is_empty()) {
        return None;
    }
    let &merge = blocks.last()?;
    if !is_merge_block(ir, merge) {
        return Some("last block must be the merge block with only one 'spirv.mlir.merge' op");
    }
    if name == "spirv.mlir.selection" {
        return (blocks.len() < 2).then_some("must have a selection header block");
    }
    if blocks.len() < 2 {
        return Some("must have an entry block branching to the loop header block");
    }
    if blocks.len() < 3 {
        return Some("must have a loop header block branched from the entry block");
    }
    let (entry, header) = (blocks[0], blocks[1]);
    let branches_to_header = ir.block(entry).ops.last().is_some_and(|&t| {
        let t = ir.op(t);
        t.name == "spirv.Branch" && t.successors.first() == Some(&header)
    });
    if !branches_to_header {
        return Some("entry block must only have one 'spirv.Branch' op to the second block");
    }
    if blocks.len() < 4 {
        return Some("requires a loop continue block branching to the loop header block");
    }
    let successors = |b: crate::ir::BlockId| -> Vec<crate::ir::BlockId> {
        ir.block(b).ops.last().map(|&t| ir.op(t).successors.to_vec()).unwrap_or_default()
    };
    let cont = blocks[blocks.len() - 2];
    if !successors(cont).contains(&header) {
        return Some(
            "second to last block must be the loop continue block that branches to the loop header block",
        );
    }
    if blocks[2..blocks.len() - 2].iter().any(|&b| successors(b).contains(&header)) {
        return Some("can only have the entry and loop continue block branching to the loop header block");
    }
    None
}

/// A predicate leaf prepared for evaluation: its text without whitespace and the
/// outer parentheses ODS adds, and what it says about the op, if it is an op leaf.
struct CompiledLeaf {
    expr: &'static str,
    op: Option<OpLeaf>,
    /// What the leaf says about an attribute.
    attr: AttrLeaf,
}

/// The attribute leaves the verifier understands.
enum AttrLeaf {
    Unknown,
    /// `::llvm::isa<::mlir::spirv::XAttr>($_self)`: a dialect enum attribute; `known`
    /// when the enum exists, `expected_name` its attribute name if it has a mnemonic.
    EnumAttr {
        known: bool,
        expected_name: Option<String>,
    },
    Integer,
    Bool,
    String,
    Array,
    Dictionary,
    SymbolRef,
    FlatSymbolRef,
    Type,
    DenseI32Array,
    Typed,
    FunctionType,
    SignlessI32,
    StrictlyPositive,
    PowerOf2,
}

impl AttrLeaf {
    fn parse(e: &str) -> AttrLeaf {
        if let Some(class) =
            e.strip_prefix("::llvm::isa<::mlir::spirv::").and_then(|r| r.strip_suffix("Attr>($_self)"))
        {
            let enum_def = crate::opdef::enum_attr_by_enum_name(class);
            return AttrLeaf::EnumAttr {
                known: enum_def.is_some(),
                expected_name: enum_def.and_then(|d| d.mnemonic).map(|m| format!("spirv.{m}")),
            };
        }
        match e {
            "::llvm::isa<::mlir::IntegerAttr>($_self)" => AttrLeaf::Integer,
            "::llvm::isa<::mlir::BoolAttr>($_self)" => AttrLeaf::Bool,
            "::llvm::isa<::mlir::StringAttr>($_self)" => AttrLeaf::String,
            "::llvm::isa<::mlir::ArrayAttr>($_self)" => AttrLeaf::Array,
            "::llvm::isa<::mlir::DictionaryAttr>($_self)" => AttrLeaf::Dictionary,
            "::llvm::isa<::mlir::SymbolRefAttr>($_self)" => AttrLeaf::SymbolRef,
            "::llvm::isa<::mlir::FlatSymbolRefAttr>($_self)" => AttrLeaf::FlatSymbolRef,
            "::llvm::isa<::mlir::TypeAttr>($_self)"
            | "::llvm::isa<::mlir::Type>(::llvm::cast<::mlir::TypeAttr>($_self).getValue())" => {
                AttrLeaf::Type
            }
            "::llvm::isa<::mlir::DenseI32ArrayAttr>($_self)" => AttrLeaf::DenseI32Array,
            "::llvm::isa<::mlir::TypedAttr>($_self)" => AttrLeaf::Typed,
            "::llvm::isa<::mlir::FunctionType>(::llvm::cast<::mlir::TypeAttr>($_self).getValue())" => {
                AttrLeaf::FunctionType
            }
            "::llvm::cast<::mlir::IntegerAttr>($_self).getType().isSignlessInteger(32)" => {
                AttrLeaf::SignlessI32
            }
            "::llvm::cast<::mlir::IntegerAttr>($_self).getValue().isStrictlyPositive()" => {
                AttrLeaf::StrictlyPositive
            }
            "::llvm::cast<::mlir::IntegerAttr>($_self).getValue().isPowerOf2()" => AttrLeaf::PowerOf2,
            _ => AttrLeaf::Unknown,
        }
    }
}

/// What verifying an op of one definition takes, worked out once per process from
/// the tables: attribute checks and `PredOpTrait`s with their predicates prepared
/// (leaves compiled, value names resolved), and the native traits as flags.
struct OpPlan {
    attributes: Vec<AttrPlan>,
    /// Parallel to the definition's `pred_traits`.
    pred_traits: Vec<Check>,
    /// Parallel to `pred_traits`: whether the trait depends on the op's place (an
    /// enclosing op) rather than only on its types.
    placement: Vec<bool>,
    /// Some trait depends on the op's place.
    any_placement: bool,
    same_operands_and_result_type: bool,
    same_type_operands: bool,
    same_shape: bool,
    terminator: bool,
    no_terminator: bool,
    /// Every operand (result) group takes exactly one value.
    operands_single: bool,
    results_single: bool,
    /// Checked as a function (signature, graph results): `spirv.func` and the graph ops.
    function_like: bool,
    /// `Verifier::op_rules` has rules for the op itself.
    has_rules: bool,
    /// Which of `Verifier::op_rules`' op-specific rules apply.
    rule: Rule,
}

/// The op-specific rules of `Verifier::op_rules`, told apart once per definition
/// rather than by name per op.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    None,
    Structured,
    EntryPoint,
    Bitcast,
    Constant,
    Return,
    Load,
    Store,
    CopyMemory,
    SpecConstant,
    Composite,
    AccessChain,
    Variable,
    Dot,
    EmitMeshTasks,
    VectorShuffle,
    LlvmCall,
    LlvmAddressOf,
}

impl Rule {
    fn of(name: &str) -> Rule {
        match name {
            "spirv.mlir.loop" | "spirv.mlir.selection" => Rule::Structured,
            "spirv.EntryPoint" => Rule::EntryPoint,
            "spirv.Bitcast" => Rule::Bitcast,
            "spirv.Constant" => Rule::Constant,
            "spirv.Return" | "spirv.ReturnValue" | "spirv.Unreachable" => Rule::Return,
            "spirv.Load" => Rule::Load,
            "spirv.Store" => Rule::Store,
            "spirv.CopyMemory" => Rule::CopyMemory,
            "spirv.SpecConstant" => Rule::SpecConstant,
            "spirv.CompositeExtract" | "spirv.CompositeInsert" => Rule::Composite,
            "spirv.AccessChain" | "spirv.InBoundsPtrAccessChain" | "spirv.PtrAccessChain" => {
                Rule::AccessChain
            }
            "spirv.Variable" => Rule::Variable,
            "spirv.SDot" | "spirv.SUDot" | "spirv.UDot" | "spirv.SDotAccSat" | "spirv.SUDotAccSat"
            | "spirv.UDotAccSat" => Rule::Dot,
            "spirv.EXT.EmitMeshTasks" => Rule::EmitMeshTasks,
            "spirv.VectorShuffle" => Rule::VectorShuffle,
            "llvm.call" => Rule::LlvmCall,
            "llvm.mlir.addressof" => Rule::LlvmAddressOf,
            _ => Rule::None,
        }
    }
}

struct AttrPlan {
    name: &'static str,
    summary: &'static str,
    /// Absent is an error (not optional, defaulted or a unit attribute).
    required: bool,
    check: Check,
}

impl OpPlan {
    fn of(index: usize) -> &'static OpPlan {
        static PLANS: OnceLock<Vec<OnceLock<OpPlan>>> = OnceLock::new();
        let plans = PLANS.get_or_init(|| crate::opdef::OP_DEFS.iter().map(|_| OnceLock::new()).collect());
        plans[index].get_or_init(|| OpPlan::new(&crate::opdef::OP_DEFS[index]))
    }

    fn new(def: &'static OpDef) -> OpPlan {
        let attributes = def
            .attributes
            .iter()
            .map(|ad| {
                let c = ad.constraint();
                AttrPlan {
                    name: ad.name,
                    summary: c.summary,
                    required: !c.optional
                        && c.default_value.is_none()
                        && !c.storage_type.contains("UnitAttr"),
                    check: Check::new(&c.pred, def),
                }
            })
            .collect();
        let pred_traits: Vec<Check> = def.pred_traits.iter().map(|t| Check::new(&t.pred, def)).collect();
        let placement: Vec<bool> = pred_traits.iter().map(Check::depends_on_place).collect();
        OpPlan {
            attributes,
            any_placement: placement.contains(&true),
            placement,
            pred_traits,
            same_operands_and_result_type: def.has_trait("SameOperandsAndResultType"),
            same_type_operands: def.has_trait("SameTypeOperands"),
            same_shape: def.has_trait("SameOperandsAndResultShape"),
            terminator: def.has_trait("Terminator"),
            no_terminator: def.has_trait("NoTerminator"),
            operands_single: def.operands.iter().all(|d| d.arity == Arity::Single),
            results_single: def.results.iter().all(|d| d.arity == Arity::Single),
            function_like: matches!(def.name, "spirv.func" | "spirv.ARM.Graph" | "spirv.ARM.GraphOutputs"),
            has_rules: matches!(
                def.name,
                "spirv.mlir.loop"
                    | "spirv.mlir.selection"
                    | "spirv.EntryPoint"
                    | "spirv.Bitcast"
                    | "spirv.Load"
                    | "spirv.Store"
                    | "spirv.CopyMemory"
                    | "spirv.AccessChain"
                    | "spirv.InBoundsPtrAccessChain"
                    | "spirv.PtrAccessChain"
                    | "spirv.Variable"
                    | "spirv.SDot"
                    | "spirv.SUDot"
                    | "spirv.UDot"
                    | "spirv.SDotAccSat"
                    | "spirv.SUDotAccSat"
                    | "spirv.UDotAccSat"
                    | "spirv.EXT.EmitMeshTasks"
                    | "spirv.VectorShuffle"
                    | "spirv.Return"
                    | "spirv.ReturnValue"
                    | "spirv.Unreachable"
                    | "llvm.call"
                    | "llvm.mlir.addressof"
            ),
            rule: Rule::of(def.name),
        }
    }
}

/// An ODS predicate prepared for one op definition; evaluates as [`Verifier::eval`]
/// does the predicate.
enum Check {
    Leaf {
        leaf: &'static CompiledLeaf,
        op: Option<OpCheck>,
    },
    And(Vec<Check>),
    Or(Vec<Check>),
    Not(Box<Check>),
    /// The child judges the element type of a vector, tensor or cooperative matrix.
    Element(Box<Check>),
    /// The child judges every element of an array attribute.
    AllOf(Box<Check>),
    Unknown,
}

impl Check {
    /// Whether evaluating the check on an op looks at the op's enclosing ops.
    fn depends_on_place(&self) -> bool {
        match self {
            Check::Leaf { op, .. } => matches!(op, Some(OpCheck::Inside { .. })),
            Check::And(items) | Check::Or(items) => items.iter().any(Check::depends_on_place),
            Check::Not(c) | Check::Element(c) | Check::AllOf(c) => c.depends_on_place(),
            Check::Unknown => false,
        }
    }

    fn new(pred: &'static Pred, def: &'static OpDef) -> Check {
        match pred {
            Pred::And(items) => Check::And(items.iter().map(|p| Check::new(p, def)).collect()),
            Pred::Or(items) => Check::Or(items.iter().map(|p| Check::new(p, def)).collect()),
            Pred::Not(p) => Check::Not(Box::new(Check::new(p, def))),
            Pred::SubstLeaves { replacement, child, .. } if replacement.contains("getElementType()") => {
                Check::Element(Box::new(Check::new(child, def)))
            }
            Pred::SubstLeaves { child, .. } => Check::new(child, def),
            Pred::Concat { prefix, child, .. } if prefix.contains("elementType") => {
                Check::Element(Box::new(Check::new(child, def)))
            }
            Pred::Concat { prefix, child, .. } if prefix.contains("all_of") => {
                Check::AllOf(Box::new(Check::new(child, def)))
            }
            Pred::Concat { .. } => Check::Unknown,
            Pred::Leaf(text) => {
                let leaf = compiled_leaf(text);
                Check::Leaf { leaf, op: leaf.op.as_ref().map(|l| OpCheck::new(l, def)) }
            }
        }
    }
}

/// An operand or result group of a definition.
#[derive(Clone, Copy)]
struct ValueRef {
    results: bool,
    index: usize,
    /// The definition's groups of that kind all take one value: then group `index`
    /// is value `index` when the op has `count` values.
    single: bool,
    count: usize,
}

impl ValueRef {
    /// The group called `name`: operands first, as MLIR resolves ODS names.
    fn named(def: &OpDef, name: &str) -> Option<ValueRef> {
        let (results, index) = match def.operands.iter().position(|d| d.name == name) {
            Some(index) => (false, index),
            None => (true, def.results.iter().position(|d| d.name == name)?),
        };
        let defs = if results { def.results } else { def.operands };
        let single = defs.iter().all(|d| d.arity == Arity::Single);
        Some(ValueRef { results, index, single, count: defs.len() })
    }
}

/// An [`OpLeaf`] with its names resolved against a definition.
enum OpCheck {
    /// The parents interned, so that a parent's name is compared as a small integer.
    Inside {
        parents: Vec<crate::ir::OpName>,
        direct: bool,
    },
    SameTypes(Vec<Option<ValueRef>>),
    SameElementTypes(Vec<Option<ValueRef>>),
    Derived {
        derive: Derive,
        src: Option<ValueRef>,
        dst: Option<ValueRef>,
    },
}

impl OpCheck {
    fn new(leaf: &OpLeaf, def: &OpDef) -> OpCheck {
        let named = |n: &&str| ValueRef::named(def, n);
        match leaf {
            OpLeaf::Inside { parents, direct } => OpCheck::Inside {
                parents: parents.iter().map(|&p| crate::ir::OpName::new(p)).collect(),
                direct: *direct,
            },
            OpLeaf::SameTypes(names) => OpCheck::SameTypes(names.iter().map(named).collect()),
            OpLeaf::SameElementTypes(names) => OpCheck::SameElementTypes(names.iter().map(named).collect()),
            OpLeaf::Derived { derive, src, dst } => {
                OpCheck::Derived { derive: *derive, src: named(src), dst: named(dst) }
            }
        }
    }
}

/// The leaf's compiled form, made once per process and leaf.
fn compiled_leaf(text: &'static str) -> &'static CompiledLeaf {
    static COMPILED: OnceLock<Mutex<FxHashMap<usize, &'static CompiledLeaf>>> = OnceLock::new();
    let mut compiled = COMPILED.get_or_init(Mutex::default).lock().unwrap_or_else(|e| e.into_inner());
    // Leaked once per process and distinct leaf: bounded by the generated tables.
    compiled.entry(text.as_ptr() as usize).or_insert_with(|| Box::leak(Box::new(CompiledLeaf::new(text))))
}

/// The op-level leaves the verifier understands.
enum OpLeaf {
    /// The op sits in one of `parents` (directly, or anywhere above unless `direct`).
    Inside { parents: &'static [&'static str], direct: bool },
    /// `(($a.getType()) == ($b.getType()) && ...)`: the named values have one type.
    SameTypes(Vec<&'static str>),
    /// `getElementTypeOrSelf($a) == getElementTypeOrSelf($b) ...`.
    SameElementTypes(Vec<&'static str>),
    /// `std::equal_to<>()(f($src), $dst.getType())`: `dst`'s type is derived from `src`'s.
    Derived { derive: Derive, src: &'static str, dst: &'static str },
}

/// How `OpLeaf::Derived` computes a type from another.
#[derive(Clone, Copy)]
enum Derive {
    /// `getUnaryOpResultType`: i1, or a vector of i1 of the same shape.
    UnaryResult,
    Pointee,
    ElementOrSelf,
    SampledImageImage,
    /// `getValAndBoolStructType` (`llvm.cmpxchg`): `!llvm.struct<(T, i1)>`.
    ValueAndFlag,
    /// The type itself (`TypesMatchWith` without a transform: `llvm.atomicrmw`).
    Same,
}

impl CompiledLeaf {
    fn new(text: &'static str) -> Self {
        // Most leaves have no whitespace; only multi-line ones need compacting.
        let compact: &'static str = if text.contains(char::is_whitespace) {
            Box::leak(text.chars().filter(|c| !c.is_whitespace()).collect::<String>().into_boxed_str())
        } else {
            text
        };
        // ODS wraps every leaf in one pair of parentheses.
        let expr = compact.strip_prefix('(').and_then(|r| r.strip_suffix(')')).unwrap_or(compact);
        CompiledLeaf { expr, op: OpLeaf::parse(expr), attr: AttrLeaf::parse(expr) }
    }
}

impl OpLeaf {
    fn parse(e: &'static str) -> Option<OpLeaf> {
        match e {
            "isNestedInFunctionOpInterface($_op.getParentOp())" => {
                return Some(OpLeaf::Inside { parents: &["spirv.func", "func.func"], direct: false })
            }
            "isNestedInGraphARMOpInterface($_op.getParentOp())" => {
                return Some(OpLeaf::Inside { parents: &["spirv.ARM.Graph"], direct: false })
            }
            "isDirectInModuleLikeOp($_op.getParentOp())" => {
                return Some(OpLeaf::Inside { parents: &["spirv.module", "builtin.module"], direct: true })
            }
            _ => {}
        }
        if e.starts_with("($") && e.contains(".getType())==($") {
            let names = e.split("($").skip(1).filter_map(|s| s.split(".getType()").next());
            return Some(OpLeaf::SameTypes(names.collect()));
        }
        if e.starts_with("(getElementTypeOrSelf($") {
            let names = e.split("getElementTypeOrSelf($").skip(1).filter_map(|s| s.split(')').next());
            return Some(OpLeaf::SameElementTypes(names.collect()));
        }
        let body = e.strip_prefix("std::equal_to<>()(")?.strip_suffix(')')?;
        let (lhs, rhs) = body.rsplit_once(",$")?;
        let dst = rhs.strip_suffix(".getType()")?;
        let src = lhs.split('$').nth(1)?.split('.').next()?;
        let derive = if lhs.starts_with("getUnaryOpResultType(") || lhs.starts_with("::getI1SameShape(") {
            Derive::UnaryResult
        } else if lhs.contains("getPointeeType") {
            Derive::Pointee
        } else if lhs.starts_with("::mlir::getElementTypeOrSelf(")
            || (lhs.contains("VectorType>($") && lhs.ends_with("getElementType()"))
        {
            Derive::ElementOrSelf
        } else if lhs.contains("SampledImageType>($") && lhs.ends_with("getImageType()") {
            Derive::SampledImageImage
        } else if lhs.starts_with("getValAndBoolStructType($") {
            Derive::ValueAndFlag
        } else if lhs.strip_suffix(".getType()").is_some_and(|v| v.starts_with('$') && !v.contains('(')) {
            Derive::Same
        } else {
            return None;
        };
        Some(OpLeaf::Derived { derive, src, dst })
    }
}

/// For groups without segment sizes: how many values the one variable group takes
/// (0 when all are single), when the groups can split `count` values that way
/// (`format::group_ranges`' rule); `None` when they cannot.
fn single_variable_extra(defs: &[OperandDef], count: usize) -> Option<usize> {
    let variable = defs.iter().filter(|d| d.arity != Arity::Single).count();
    let fixed = defs.len() - variable;
    if variable > 1 || count < fixed || (variable == 0 && count > fixed) {
        return None;
    }
    Some(count - fixed)
}

/// Three-valued AND (`decisive` false) or OR (`decisive` true) of lazily evaluated
/// children: a child equal to `decisive` settles it; otherwise any unknown child makes
/// the result unknown.
fn three_valued(children: impl Iterator<Item = Option<bool>>, decisive: bool) -> Option<bool> {
    let mut unknown = false;
    for child in children {
        match child {
            Some(b) if b == decisive => return Some(decisive),
            None => unknown = true,
            Some(_) => {}
        }
    }
    if unknown {
        None
    } else {
        Some(!decisive)
    }
}

/// Whether all the types are one type; `None` if any is unknown.
fn all_equal(mut types: impl Iterator<Item = Option<Type>>) -> Option<bool> {
    let Some(first) = types.next() else { return Some(true) };
    let first = first?;
    let mut equal = true;
    for t in types {
        equal &= t? == first;
    }
    Some(equal)
}

/// Whether `value` is a `spirv.SpecConstantComposite`'s `constituents` holding plain
/// constants (typed scalars or dense values) beside spec constant symbols: valid SPIR-V
/// (glslang's partly specialized `gl_WorkGroupSize`) that MLIR's symbol-only
/// constituents cannot hold, an extension of that attribute's constraint.
fn is_spec_composite_with_constants(ir: &Ir, op: OpId, name: &str, value: &Attribute) -> bool {
    let Attribute::Array(items) = value else { return false };
    ir.op(op).name == "spirv.SpecConstantComposite"
        && name == "constituents"
        && items.iter().all(|item| match item {
            Attribute::SymbolRef(path) => path.len() == 1,
            Attribute::Integer { .. } | Attribute::Float { .. } | Attribute::Dense { .. } => true,
            _ => false,
        })
}

/// Whether `value` is a `spirv.ExecutionMode`'s `values` naming spec constants among
/// its numbers (`OpExecutionModeId LocalSizeId %spec_x ...`): MLIR's `values` are
/// numbers only; ours may name `spirv.SpecConstant`s by symbol, an extension of that
/// attribute's constraint (the serializer checks what the symbols name).
fn is_execution_mode_id_values(ir: &Ir, op: OpId, name: &str, value: &Attribute) -> bool {
    let Attribute::Array(items) = value else { return false };
    ir.op(op).name == "spirv.ExecutionMode"
        && name == "values"
        && items.iter().all(|item| match item {
            Attribute::Integer { .. } => true,
            Attribute::SymbolRef(path) => path.len() == 1,
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(body: &str) -> String {
        let source = format!("func.func @f(%c: i1) -> () {{\n{body}\n  spirv.Return\n}}");
        let r = spirvkit_passes::opt::run(&source, "t.mlir", &spirvkit_passes::opt::OptOptions::default());
        r.diagnostics_text
    }

    #[test]
    fn vector_shuffle_selectors_stay_within_the_two_vectors() {
        // mlir-opt-22's messages; 0xffffffff (-1 as i32) is an undefined component.
        let shuffle = |components: &str, result: &str| {
            check(&format!(
                "%v = spirv.Undef : vector<2xf32>\n\
                 %s = spirv.VectorShuffle [{components}] %v, %v : vector<2xf32>, vector<2xf32> -> {result}"
            ))
        };
        assert_eq!(shuffle("0 : i32, 3 : i32", "vector<2xf32>"), "");
        assert_eq!(shuffle("0 : i32, -1 : i32", "vector<2xf32>"), "");
        let out_of_range = shuffle("0 : i32, 4 : i32", "vector<2xf32>");
        assert!(
            out_of_range.contains(
                "'spirv.VectorShuffle' op component selector 4 out of range: expected to be in [0, 4) or 0xffffffff"
            ),
            "{out_of_range}"
        );
        let count = shuffle("0 : i32, 1 : i32, 2 : i32", "vector<2xf32>");
        assert!(
            count.contains(
                "result type element count (2) mismatch with the number of component selectors (3)"
            ),
            "{count}"
        );
    }

    #[test]
    fn branch_operands_match_their_successors_arguments() {
        // MLIR's BranchOpInterface check, without the op prefix (as mlir-opt-22 gives it).
        let mismatch = check("%i = spirv.Undef : i32\nspirv.Branch ^b(%i : i32)\n^b(%x: i1):");
        assert!(mismatch.contains("error: type mismatch for bb argument #0 of successor #0"), "{mismatch}");
        let count = check("%i = spirv.Undef : i32\nspirv.BranchConditional %c, ^b, ^b(%i : i32)\n^b:");
        assert!(
            count.contains("error: branch has 1 operands for successor #1, but target block has 0"),
            "{count}"
        );
        assert_eq!(check("%i = spirv.Undef : i32\nspirv.Branch ^b(%i : i32)\n^b(%x: i32):"), "");
        // The LLVM dialect's branches too.
        let llvm = "llvm.func @g(%a: i32) {\n  llvm.br ^b(%a : i32)\n^b(%x: i1):\n  llvm.return\n}\n";
        let r = spirvkit_passes::opt::run(llvm, "t.mlir", &spirvkit_passes::opt::OptOptions::default());
        assert!(
            r.diagnostics_text.contains("type mismatch for bb argument #0 of successor #0"),
            "{}",
            r.diagnostics_text
        );
    }

    #[test]
    fn loop_regions_need_entry_header_continue_and_merge() {
        let ok = check(
            "spirv.mlir.loop {\n spirv.Branch ^h\n^h:\n spirv.BranchConditional %c, ^b, ^m\n^b:\n spirv.Branch ^k\n^k:\n spirv.Branch ^h\n^m:\n spirv.mlir.merge\n}",
        );
        assert_eq!(ok, "");
        let no_continue = check(
            "spirv.mlir.loop {\n spirv.Branch ^h\n^h:\n spirv.BranchConditional %c, ^b, ^m\n^b:\n spirv.Return\n^k:\n spirv.Branch ^b\n^m:\n spirv.mlir.merge\n}",
        );
        assert!(
            no_continue.contains("second to last block must be the loop continue block"),
            "{no_continue}"
        );
        let no_merge = check("spirv.mlir.selection {\n spirv.Branch ^m\n^m:\n spirv.Return\n}");
        assert!(no_merge.contains("last block must be the merge block"), "{no_merge}");
    }

    #[test]
    fn composite_indices_walk_to_the_result_and_object_types() {
        // Messages as mlir-opt-22 gives them.
        let op = |text: &str| {
            check(&format!(
                "%a = spirv.Undef : !spirv.struct<(f32)>\n%b = spirv.Undef : f32\n%v = spirv.Undef : vector<2xf32>\n{text}"
            ))
        };
        let ok = op("%0 = \"spirv.CompositeExtract\"(%v) <{indices = [1 : i32]}> : (vector<2xf32>) -> f32");
        assert_eq!(ok, "");
        for (text, message) in [
            (
                "%0 = \"spirv.CompositeExtract\"(%a) <{indices = [0 : i32]}> : (!spirv.struct<(f32)>) -> vector<2xf32>",
                "error: 'spirv.CompositeExtract' op invalid result type: expected 'f32' but provided 'vector<2xf32>'",
            ),
            (
                "%0 = \"spirv.CompositeExtract\"(%v) <{indices = [4 : i32]}> : (vector<2xf32>) -> f32",
                "error: index 4 out of bounds for 'vector<2xf32>'",
            ),
            (
                "%0 = \"spirv.CompositeInsert\"(%a, %a) <{indices = [0 : i32]}> : (!spirv.struct<(f32)>, !spirv.struct<(f32)>) -> !spirv.struct<(f32)>",
                "error: 'spirv.CompositeInsert' op object operand type should be 'f32', but found '!spirv.struct<(f32)>'",
            ),
            (
                "%0 = \"spirv.CompositeExtract\"(%a) <{indices = []}> : (!spirv.struct<(f32)>) -> f32",
                "error: expected at least one index for spirv.CompositeExtract",
            ),
            (
                "%0 = \"spirv.CompositeInsert\"(%b, %v) <{indices = [1 : i32]}> : (f32, vector<2xf32>) -> vector<3xf32>",
                "error: 'spirv.CompositeInsert' op result type should be the same as the composite type, but found 'vector<2xf32>' vs 'vector<3xf32>'",
            ),
            (
                "%0 = \"spirv.CompositeExtract\"(%v) <{indices = [1 : i32, 5 : i32]}> : (vector<2xf32>) -> f32",
                "error: cannot extract from non-composite type 'f32' with index 5",
            ),
        ] {
            let found = op(text);
            assert!(found.contains(message), "{found}");
        }
    }

    #[test]
    fn constant_values_fit_their_types_and_matrices_take_columns() {
        // Texts and messages as mlir-opt-22 gives them; matrix constants are ours.
        let constant = |value: &str| first_error(&format!("func.func @f() {{\n  %0 = {value}\n  return\n}}"));
        let mixed = "spirv.Constant [dense<3.0> : vector<2xf32>, dense<4> : vector<2xi32>] : !spirv.array<2xvector<2xf32>>";
        assert!(constant(mixed).ends_with("'spirv.Constant' op result or element type ('vector<2xf32>') does not match value type ('vector<2xi32>'), must be the same or spirv.array"));
        let rtarray = "spirv.Constant [dense<3.0> : vector<2xf32>] : !spirv.rtarray<vector<2xf32>>";
        assert!(constant(rtarray)
            .ends_with("'spirv.Constant' op must have spirv.array result type for array value"));
        let scalar = "\"spirv.Constant\"() {value = 1 : i32} : () -> (f32)";
        assert!(constant(scalar)
            .ends_with("'spirv.Constant' op result type ('f32') does not match value type ('i32')"));
        let nested =
            "spirv.Constant [[dense<3.0> : vector<2xf32>]] : !spirv.array<1 x !spirv.array<1xvector<2xf32>>>";
        assert_eq!(constant(nested), "");
        let matrix = "spirv.Constant [dense<[1.0, 0.0]> : vector<2xf32>, dense<[0.0, 1.0]> : vector<2xf32>] : !spirv.matrix<2 x vector<2xf32>>";
        assert_eq!(constant(matrix), "");
        let short = "spirv.Constant [dense<1.0> : vector<2xf32>] : !spirv.matrix<2 x vector<2xf32>>";
        assert!(constant(short).ends_with("'spirv.Constant' op matrix value must have 2 columns"));
        let wrong = "spirv.Constant [dense<1.0> : vector<2xf32>, dense<1> : vector<2xi32>] : !spirv.matrix<2 x vector<2xf32>>";
        assert!(constant(wrong).contains("does not match value type ('vector<2xi32>')"));
        // Elements need a shaped type: a dense matrix value would lose its columns.
        let dense = "spirv.Constant dense<[[1.0, 2.0], [3.0, 4.0]]> : !spirv.matrix<2 x vector<2xf32>>";
        assert!(
            constant(dense).ends_with("error: elements literal must be a shaped type"),
            "{}",
            constant(dense)
        );
        let scalars = "spirv.Constant [1.0 : f32, 2.0 : f32] : !spirv.matrix<2 x vector<2xf32>>";
        assert!(constant(scalars).ends_with("matrix value columns must be dense vector values"));
    }

    #[test]
    fn null_constants_take_the_types_op_constant_null_may_have() {
        let run = |value: &str| {
            let source = format!("func.func @f() {{\n  %0 = {value}\n  return\n}}\n");
            let r =
                spirvkit_passes::opt::run(&source, "t.mlir", &spirvkit_passes::opt::OptOptions::default());
            (r.diagnostics_text, r.output)
        };
        for ty in [
            "!spirv.struct<(f32, !spirv.array<2 x !spirv.matrix<2 x vector<2xf32>>>, i1)>",
            "!spirv.array<4 x vector<3xi32>>",
            "!spirv.matrix<3 x vector<3xf32>>",
            "!spirv.ptr<i32, Workgroup>",
            "vector<4xf32>",
            "i32",
        ] {
            let value = format!("spirv.Constant #spirv.null : {ty}");
            let (diagnostics, output) = run(&value);
            assert!(diagnostics.is_empty(), "{ty}: {diagnostics}");
            // Printed with its type, so that it parses back.
            assert!(output.contains(&format!("= {value}\n")), "{output}");
        }
        for ty in ["!spirv.rtarray<f32>", "!spirv.struct<(f32, !spirv.rtarray<f32>)>", "!spirv.sampler"] {
            let (diagnostics, _) = run(&format!("spirv.Constant #spirv.null : {ty}"));
            assert!(diagnostics.contains(&format!("null value cannot have type '{ty}'")), "{diagnostics}");
        }
        // Nested in a struct value, it takes the member's type.
        let nested = "spirv.Constant [#spirv.null, 1 : i32] : !spirv.struct<(!spirv.array<2 x f32>, i32)>";
        assert_eq!(run(nested).0, "");
        let bad = "spirv.Constant [#spirv.null] : !spirv.struct<(!spirv.rtarray<f32>)>";
        assert!(run(bad).0.contains("null value cannot have type '!spirv.rtarray<f32>'"), "{}", run(bad).0);
    }

    fn first_error(source: &str) -> String {
        let r = spirvkit_passes::opt::run(source, "t.mlir", &spirvkit_passes::opt::OptOptions::default());
        r.diagnostics_text.lines().next().unwrap_or("").to_string()
    }

    #[test]
    fn bitcasts_change_type_but_not_width() {
        let cast = |from: &str, to: &str| {
            first_error(&format!(
                "func.func @f(%x: {from}) {{\n  %0 = spirv.Bitcast %x : {from} to {to}\n  return\n}}"
            ))
        };
        assert_eq!(cast("f32", "f32"), "t.mlir:2:8: error: result type must be different from operand type");
        assert_eq!(
            cast("!spirv.ptr<f32, Function>", "i64"),
            "t.mlir:2:8: error: unhandled bit cast conversion from pointer type to non-pointer type"
        );
        assert_eq!(
            cast("f32", "!spirv.ptr<f32, Function>"),
            "t.mlir:2:8: error: unhandled bit cast conversion from non-pointer type to pointer type"
        );
        assert_eq!(
            cast("vector<2xf16>", "i64"),
            "t.mlir:2:8: error: 'spirv.Bitcast' op mismatch in result type bitwidth 64 and operand type bitwidth 32"
        );
        assert_eq!(cast("vector<2xf16>", "i32"), "");
        assert_eq!(cast("!spirv.ptr<f32, Function>", "!spirv.ptr<f64, Function>"), "");
    }

    #[test]
    fn entry_point_interfaces_name_global_variables() {
        let module = |interface: &str| {
            first_error(&format!(
                "spirv.module Logical GLSL450 {{
  spirv.GlobalVariable @v : !spirv.ptr<f32, Input>
  spirv.func @main() \"None\" {{
    spirv.Return
  }}
  spirv.EntryPoint \"GLCompute\" @main{interface}
}}"
            ))
        };
        assert_eq!(module(", @v"), "");
        assert_eq!(
            module(", @v, @main"),
            "t.mlir:6:3: error: expected spirv.GlobalVariable symbol reference instead of'@main'"
        );
    }

    fn in_spirv_function(result: &str, body: &str) -> String {
        first_error(&format!(
            "spirv.module Logical GLSL450 {{\n  spirv.func @f() {result} \"None\" {{\n{body}\n  }}\n}}\n"
        ))
    }

    /// Texts and positions as mlir-opt-22 reports them.
    #[test]
    fn returns_match_the_function_and_unreachable_is_not_the_entry() {
        assert_eq!(
            in_spirv_function("-> i32", "    spirv.Return"),
            "t.mlir:3:5: error: 'spirv.Return' op cannot be used in functions returning value"
        );
        assert_eq!(
            in_spirv_function("", "    %0 = spirv.Constant 1 : i32\n    spirv.ReturnValue %0 : i32"),
            "t.mlir:4:5: error: 'spirv.ReturnValue' op returns 1 value but enclosing function requires 0 results"
        );
        assert_eq!(
            in_spirv_function("-> f32", "    %0 = spirv.Constant 1 : i32\n    spirv.ReturnValue %0 : i32"),
            "t.mlir:4:5: error: 'spirv.ReturnValue' op  return value's type ('i32') mismatch with function's \
             result type ('f32')"
        );
        assert_eq!(
            in_spirv_function("", "    spirv.Unreachable"),
            "t.mlir:3:5: error: 'spirv.Unreachable' op cannot be used in reachable block"
        );
        // Outside the entry block mlir-opt accepts it, reachable or not.
        assert_eq!(in_spirv_function("", "    spirv.Branch ^bb1\n  ^bb1:\n    spirv.Unreachable"), "");
        assert_eq!(
            in_spirv_function("-> i32", "    %0 = ub.poison : i32\n    spirv.ReturnValue %0 : i32"),
            "t.mlir:3:10: error: functions in 'spirv.module' can only contain spirv.* ops"
        );
    }

    /// A module of `count` functions of a few ops, with `bad` (a function index, or
    /// `count` for the module level after them) holding an op that fails.
    fn module_failing_at(count: usize, bad: &[usize]) -> String {
        let mut text = String::from("spirv.module Logical GLSL450 {\n");
        let failing = "    %bad = \"spirv.IAdd\"(%arg0, %arg0) : (i32, i32) -> f32\n";
        for i in 0..count {
            text.push_str(&format!("  spirv.func @f{i}(%arg0: i32) -> i32 \"None\" {{\n"));
            for k in 0..20 {
                text.push_str(&format!("    %{k} = spirv.IAdd %arg0, %arg0 : i32\n"));
            }
            if bad.contains(&i) {
                text.push_str(failing);
            }
            text.push_str("    spirv.ReturnValue %arg0 : i32\n  }\n");
        }
        if bad.contains(&count) {
            text.push_str("  \"spirv.IAdd\"() : () -> ()\n");
        }
        text.push_str("}\n");
        text
    }

    #[test]
    fn verifying_in_halves_finds_the_first_failure() {
        let count = 3200;
        for bad in [&[][..], &[5], &[3000], &[count], &[3000, 7], &[count, 3000], &[1600, count]] {
            let text = module_failing_at(count, bad);
            let (ir, top) = crate::parse(&text, "t.mlir").unwrap();
            assert!(ir.op_count() >= MIN_OPS_IN_HALVES);
            let split = walk_in_halves(&ir, top, &text).expect("verified in halves");
            let single = walk_from(&ir, &text, vec![Some(top)], None, None).0;
            assert_eq!(split.as_ref().map(|f| f.0), single.as_ref().map(|f| f.0), "{bad:?}");
            assert_eq!(split.is_some(), !bad.is_empty());
            let messages =
                |f: Option<Failure>| f.map(|(_, d)| d.into_iter().map(|d| d.message).collect::<Vec<_>>());
            assert_eq!(messages(split), messages(single));
        }
    }

    #[test]
    fn progressive_verdict_is_the_walks() {
        let count = 300;
        for bad in [&[][..], &[0], &[150], &[count], &[299, 7]] {
            let text = module_failing_at(count, bad);
            let (ir, top) = crate::parse(&text, "t.mlir").unwrap();
            let passed = std::cell::RefCell::new(Vec::new());
            let mut visited = 0;
            let verdict =
                passes_progressively(&ir, top, &text, &|n| passed.borrow_mut().push(n), &mut |_| {
                    visited += 1;
                });
            assert_eq!(verdict, Some(first_failure(&ir, top, &text).is_none()), "{bad:?}");
            let passed = passed.into_inner();
            assert!(passed.windows(2).all(|w| w[0] < w[1]), "{bad:?}");
            let module = crate::parallel::spirv_module(&ir, top).unwrap();
            let body_len = ir.block(ir.entry_block(module).unwrap()).ops.len();
            if verdict == Some(true) {
                assert_eq!(passed.last(), Some(&(body_len + 1)));
                let mut under = 0;
                ir.for_each_op_under(module, |_, _| under += 1);
                assert_eq!(visited, under);
            } else {
                assert!(passed.last().is_none_or(|&n| n < body_len + 1), "{bad:?}");
            }
        }
    }
}
