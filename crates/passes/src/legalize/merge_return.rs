//! `--spirv-merge-return`: a function returning from inside a selection or a loop
//! becomes one whose only return ends its body, as SPIRV-Tools' merge-return pass
//! does, so the inliner can splice it into its callers.
//!
//! A return-flag variable (false at entry) and, for a function returning a value, a
//! return-value variable are added. A return inside a construct stores the value and
//! the flag and leaves the construct: to the merge block of a selection, out of a loop
//! (its merge block). After a construct that may have returned, the rest of its block
//! runs only when the flag is clear: guarded by a new selection on `!flag` (in a
//! function body or a selection), or, in a loop, by a break to the loop's merge when
//! the flag is set. Every `spirv.ReturnValue` of the body stores its value and the
//! function ends with one load and return. Later passes (mem2reg) turn the two
//! variables into SSA values.

use super::util::{self, LOOP, SELECTION};
use super::LegalizeError;
use spirvkit_grammar::fxhash::FxHashSet;
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{BlockId, Ir, Location, OpId, RegionId, Value};
use spirvkit_ir::types::{Signedness, Type};

/// Nesting of constructs the rewrite follows (the text parser bounds nesting lower).
const MAX_DEPTH: usize = 200;

/// Rewrites `func` when it returns from inside a construct; true when it changed.
pub fn run(ir: &mut Ir, func: OpId) -> Result<bool, LegalizeError> {
    run_recording(ir, func, &mut FxHashSet::default())
}

/// [`run`], recording in `routed` the branches that now carry a return out of a
/// selection to its merge. SPIRV-Tools' merge-return sends such returns to the end
/// of a loop wrapped around the body instead, so a value they choose meets there,
/// not at the selection's merge (which decides dxc's wording of a handle chosen by
/// control flow, see `check_opaque_handles`).
pub(crate) fn run_recording(
    ir: &mut Ir,
    func: OpId,
    routed: &mut FxHashSet<OpId>,
) -> Result<bool, LegalizeError> {
    let Some(body) = util::body(ir, func) else { return Ok(false) };
    if !returns_inside_construct(ir, func) {
        return Ok(false);
    }
    util::merge_block_chains(ir, body);
    if ir.region(body).blocks.len() != 1 {
        return Err(LegalizeError::at(
            ir,
            func,
            "not supported yet: merging the returns of a function whose body has several blocks",
        ));
    }
    let entry = ir.region(body).blocks[0];
    let bool_type = ir.types.integer(1, Signedness::Signless);
    let location = ir.op(func).location.clone();
    let flag_ptr = ir.types.pointer(bool_type, "Function");
    let flag = new_variable(ir, entry, 0, flag_ptr, location.clone());
    let value_type = util::result_type(ir, func);
    let value = value_type.map(|ty| {
        let ptr = ir.types.pointer(ty, "Function");
        new_variable(ir, entry, 1, ptr, location.clone())
    });
    let at = if value.is_some() { 2 } else { 1 };
    let false_value = constant_bool(ir, entry, at, false, location.clone());
    let first_rest = ir.block(entry).ops[at + 1];
    util::insert_before(ir, entry, first_rest, "spirv.Store", vec![flag, false_value], &[], location.clone());
    if let Some(ptr) = value {
        store_final_return(ir, entry, ptr);
    }
    let mut rewrite = Rewrite { flag, value, depth: 0, routed };
    rewrite.block(ir, entry, body, Exit::Function)?;
    return_instead_of_unreachable(ir, entry, value);
    Ok(true)
}

/// A body whose every path returned from inside a construct ends in
/// `spirv.Unreachable`, which the paths now reach: it becomes the single return.
fn return_instead_of_unreachable(ir: &mut Ir, entry: BlockId, value: Option<Value>) {
    let Some(last) = util::terminator(ir, entry) else { return };
    if ir.op(last).name != "spirv.Unreachable" {
        return;
    }
    let location = ir.op(last).location.clone();
    ir.block_mut(entry).ops.pop();
    ir.op_mut(last).parent = None;
    match value {
        Some(ptr) => {
            let Some((ty, _)) = util::pointer_parts(ir, ir.value_type(ptr)) else { return };
            let load = util::append(ir, entry, "spirv.Load", vec![ptr], &[ty], location.clone());
            let loaded = ir.op(load).results[0];
            util::append(ir, entry, "spirv.ReturnValue", vec![loaded], &[], location);
        }
        None => {
            util::append(ir, entry, "spirv.Return", vec![], &[], location);
        }
    }
}

/// Whether a return sits in a construct of the function.
fn returns_inside_construct(ir: &Ir, func: OpId) -> bool {
    ir.ops_under(func).into_iter().any(|(block, op)| {
        util::is_return(ir, op)
            && ir.block(block).parent.and_then(|r| ir.region(r).parent).is_some_and(|p| p != func)
    })
}

fn new_variable(ir: &mut Ir, block: BlockId, index: usize, ptr_type: Type, location: Location) -> Value {
    let op = ir.create_op("spirv.Variable", vec![], &[ptr_type], location);
    let storage_class =
        Attribute::Dialect { name: "spirv.storage_class".into(), body: Some("Function".into()) };
    ir.set_property(op, "storage_class", storage_class);
    ir.block_mut(block).ops.insert(index, op);
    ir.op_mut(op).parent = Some(block);
    ir.op(op).results[0]
}

fn constant_bool(ir: &mut Ir, block: BlockId, index: usize, value: bool, location: Location) -> Value {
    let bool_type = ir.types.integer(1, Signedness::Signless);
    let op = ir.create_op("spirv.Constant", vec![], &[bool_type], location);
    ir.set_property(op, "value", Attribute::Bool(value));
    ir.block_mut(block).ops.insert(index, op);
    ir.op_mut(op).parent = Some(block);
    ir.op(op).results[0]
}

/// Where a return in the region being rewritten goes.
#[derive(Clone, Copy)]
enum Exit {
    /// The function body: returns store their value and stay.
    Function,
    /// A selection: to its merge block.
    Selection(BlockId),
    /// A loop: to its merge block; guards break out of the loop.
    Loop(BlockId),
}

struct Rewrite<'r> {
    flag: Value,
    value: Option<Value>,
    depth: usize,
    routed: &'r mut FxHashSet<OpId>,
}

impl Rewrite<'_> {
    /// Rewrites `block` (of `region`) from its first op; true when it may return
    /// early (a return or a construct that may return was met).
    fn block(
        &mut self,
        ir: &mut Ir,
        block: BlockId,
        region: RegionId,
        exit: Exit,
    ) -> Result<bool, LegalizeError> {
        let mut index = 0;
        while index < ir.block(block).ops.len() {
            let op = ir.block(block).ops[index];
            if util::is_construct(ir, op) {
                if self.construct(ir, op)? {
                    // The rest of the block is guarded (and rewritten) by `guard_rest`.
                    self.guard_rest(ir, block, region, index, exit)?;
                    return Ok(true);
                }
            } else if util::is_return(ir, op) && !matches!(exit, Exit::Function) {
                self.replace_return(ir, block, op, exit);
                return Ok(true);
            }
            index += 1;
        }
        Ok(false)
    }

    fn enter(&mut self, ir: &Ir, op: OpId) -> Result<(), LegalizeError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(LegalizeError::at(
                ir,
                op,
                "constructs and early returns nested too deeply to merge returns",
            ));
        }
        Ok(())
    }

    /// Rewrites the construct's region; true when it may return.
    fn construct(&mut self, ir: &mut Ir, op: OpId) -> Result<bool, LegalizeError> {
        self.enter(ir, op)?;
        let Some(&region) = ir.op(op).regions.first() else { return Ok(false) };
        let blocks = ir.region(region).blocks.clone();
        let Some(&merge) = blocks.last() else { return Ok(false) };
        let exit = if ir.op(op).name == LOOP { Exit::Loop(merge) } else { Exit::Selection(merge) };
        let mut returns = false;
        for block in blocks {
            returns |= self.block(ir, block, region, exit)?;
        }
        self.depth -= 1;
        Ok(returns)
    }

    /// A return in a construct: its value and the flag stored, then a branch to the exit.
    fn replace_return(&mut self, ir: &mut Ir, block: BlockId, op: OpId, exit: Exit) {
        let (Exit::Selection(merge) | Exit::Loop(merge)) = exit else { return };
        let location = ir.op(op).location.clone();
        if let (Some(&v), Some(ptr)) = (ir.op(op).operands.first(), self.value) {
            util::insert_before(ir, block, op, "spirv.Store", vec![ptr, v], &[], location.clone());
        }
        let t = constant_bool(ir, block, ir.block(block).ops.len() - 1, true, location.clone());
        util::insert_before(ir, block, op, "spirv.Store", vec![self.flag, t], &[], location.clone());
        ir.erase_op(op);
        let args = undefs_for(ir, block, merge, location.clone());
        let branch = util::append_branch(ir, block, merge, args, location);
        if matches!(exit, Exit::Selection(_)) {
            self.routed.insert(branch);
        }
    }

    /// Guards the ops after `index` in `block` (which holds a construct that may have
    /// returned) by the flag, then rewrites them.
    fn guard_rest(
        &mut self,
        ir: &mut Ir,
        block: BlockId,
        region: RegionId,
        index: usize,
        exit: Exit,
    ) -> Result<(), LegalizeError> {
        let construct = ir.block(block).ops[index];
        self.enter(ir, construct)?;
        let location = ir.op(construct).location.clone();
        let bool_type = ir.types.integer(1, Signedness::Signless);
        let rest: Vec<OpId> = ir.block(block).ops[index + 1..].to_vec();
        // What stays after the guard: the function's final (load and) return, a
        // selection's branch to its merge; a return in a selection goes in the guard.
        // A selection's block going on to another block of the selection (not its
        // merge) leaves the selection when the flag is set, as a loop's block does.
        let branches_within = |ir: &Ir, merge: BlockId| {
            rest.last().is_some_and(|&t| {
                !util::is_return(ir, t)
                    && !ir.op(t).successors.is_empty()
                    && ir.op(t).successors.iter().any(|&s| s != merge)
            })
        };
        let exit_to = match exit {
            Exit::Loop(merge) => Some(merge),
            Exit::Selection(merge) if branches_within(ir, merge) => Some(merge),
            _ => None,
        };
        let tail_len = match exit {
            _ if exit_to.is_some() => 0,
            Exit::Loop(_) => 0,
            Exit::Function => {
                let reloads = rest.len() >= 2
                    && self.value.is_some()
                    && ir.op(rest[rest.len() - 2]).name == "spirv.Load"
                    && ir.op(rest[rest.len() - 2]).operands.first() == self.value.as_ref();
                if reloads {
                    2
                } else {
                    1
                }
            }
            Exit::Selection(merge) => match rest.last() {
                Some(&t) if util::is_return(ir, t) => 0,
                Some(&t) if ir.op(t).successors.is_empty() => 1, // spirv.Kill, spirv.Unreachable
                Some(&t) if ir.op(t).successors.iter().all(|&s| s == merge) => 1,
                Some(_) | None => 0,
            },
        };
        let tail_len = tail_len.min(rest.len());
        let (guarded, tail) = rest.split_at(rest.len() - tail_len);
        if guarded.is_empty() && exit_to.is_none() {
            self.depth -= 1;
            return Ok(());
        }
        ir.block_mut(block).ops.truncate(index + 1);
        for &op in &rest {
            ir.op_mut(op).parent = None;
        }
        let load = util::append(ir, block, "spirv.Load", vec![self.flag], &[bool_type], location.clone());
        let flag = ir.op(load).results[0];
        match exit_to {
            Some(merge) => {
                // Leave when the flag is set; the rest (terminator included) in a new block.
                let continuation = ir.create_block();
                let at = ir.region(region).blocks.iter().position(|&b| b == block).map_or(0, |p| p + 1);
                ir.region_mut(region).blocks.insert(at, continuation);
                ir.block_mut(continuation).parent = Some(region);
                for &op in guarded {
                    ir.append_op(continuation, op);
                }
                let args = undefs_for(ir, block, merge, location.clone());
                let branch = util::append(ir, block, "spirv.BranchConditional", vec![flag], &[], location);
                ir.op_mut(branch).successors.push(merge);
                ir.op_mut(branch).successors.push(continuation);
                ir.op_mut(branch).operands.extend(args.iter().copied());
                set_segments(ir, branch, &[1, args.len(), 0]);
                if matches!(exit, Exit::Selection(_)) {
                    self.routed.insert(branch);
                }
                self.block(ir, continuation, region, exit)?;
            }
            None => {
                let not =
                    util::append(ir, block, "spirv.LogicalNot", vec![flag], &[bool_type], location.clone());
                let not_flag = ir.op(not).results[0];
                let selection = ir.create_op(SELECTION, vec![], &[], location.clone());
                let control =
                    Attribute::Dialect { name: "spirv.selection_control".into(), body: Some("None".into()) };
                ir.set_property(selection, "selection_control", control);
                ir.append_op(block, selection);
                let inner = ir.add_region(selection);
                let header = ir.create_block();
                let then = ir.create_block();
                let merge = ir.create_block();
                for b in [header, then, merge] {
                    ir.append_block(inner, b);
                }
                util::append_cond_branch(ir, header, not_flag, then, merge, location.clone());
                for &op in guarded {
                    ir.append_op(then, op);
                }
                util::append(ir, merge, "spirv.mlir.merge", vec![], &[], location.clone());
                // The guard's block is complete (terminator included) before it is rewritten.
                let ends_in_return = guarded.last().is_some_and(|&t| util::is_return(ir, t));
                if !ends_in_return {
                    util::append_branch(ir, then, merge, vec![], location.clone());
                }
                self.block(ir, then, inner, Exit::Selection(merge))?;
                for &op in tail {
                    ir.append_op(block, op);
                }
                if let (Exit::Selection(outer_merge), true) = (exit, tail.is_empty()) {
                    let args = undefs_for(ir, block, outer_merge, location.clone());
                    util::append_branch(ir, block, outer_merge, args, location);
                }
            }
        }
        self.depth -= 1;
        Ok(())
    }
}

/// The body's final `spirv.ReturnValue %v` becomes a store of `%v`, a load and a
/// return of the load, so guards can take the store along.
fn store_final_return(ir: &mut Ir, entry: BlockId, ptr: Value) {
    let Some(op) = util::terminator(ir, entry) else { return };
    if ir.op(op).name != "spirv.ReturnValue" {
        return;
    }
    let Some(&v) = ir.op(op).operands.first() else { return };
    let location = ir.op(op).location.clone();
    util::insert_before(ir, entry, op, "spirv.Store", vec![ptr, v], &[], location.clone());
    let ty = ir.value_type(v);
    let load = util::insert_before(ir, entry, op, "spirv.Load", vec![ptr], &[ty], location);
    let loaded = ir.op(load).results[0];
    ir.op_mut(op).operands = vec![loaded];
}

fn set_segments(ir: &mut Ir, op: OpId, sizes: &[usize]) {
    let i32t = ir.types.integer(32, Signedness::Signless);
    let values = sizes.iter().map(|&s| Attribute::Integer { value: s as i128, ty: i32t }).collect();
    ir.set_property(op, "operandSegmentSizes", Attribute::DenseArray { element: i32t, values });
}

/// `spirv.Undef` values (made before `block`'s terminator, if any, else at its end)
/// for the arguments of `target`.
fn undefs_for(ir: &mut Ir, block: BlockId, target: BlockId, location: Location) -> Vec<Value> {
    let types: Vec<Type> = ir.block(target).arguments.iter().map(|&a| ir.value_type(a)).collect();
    types
        .into_iter()
        .map(|ty| {
            let op = util::append(ir, block, "spirv.Undef", vec![], &[ty], location.clone());
            ir.op(op).results[0]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::opt::{run, OptOptions};

    fn merge_returns(source: &str) -> String {
        let options = OptOptions { passes: vec!["--spirv-merge-return".into()], ..Default::default() };
        let r = run(source, "t.mlir", &options);
        assert!(r.success, "{}", r.diagnostics_text);
        r.output
    }

    #[test]
    fn a_function_returning_only_at_its_end_is_left_alone() {
        let source = "spirv.module Logical GLSL450 {\n  spirv.func @f(%a: i32) -> i32 \"None\" {\n    \
                      spirv.ReturnValue %a : i32\n  }\n}\n";
        let out = merge_returns(source);
        assert!(!out.contains("spirv.Variable"), "{out}");
    }

    #[test]
    fn a_return_in_a_selection_sets_the_flag_and_guards_the_rest() {
        let source = r#"spirv.module Logical GLSL450 {
  spirv.func @f(%c: i1, %a: i32) -> i32 "None" {
    spirv.mlir.selection {
      spirv.BranchConditional %c, ^then, ^merge
    ^then:
      spirv.ReturnValue %a : i32
    ^merge:
      spirv.mlir.merge
    }
    %b = spirv.IAdd %a, %a : i32
    spirv.ReturnValue %b : i32
  }
}"#;
        let out = merge_returns(source);
        // One return left, at the end; the addition runs only when the flag is clear.
        assert_eq!(out.matches("spirv.ReturnValue").count(), 1, "{out}");
        let guard = out.find("spirv.LogicalNot").expect("a guard");
        assert!(out[guard..].contains("spirv.IAdd"), "{out}");
        assert!(out.contains("spirv.Constant true"), "{out}");
    }

    #[test]
    fn a_return_before_a_branch_within_a_selection_leaves_the_selection_when_set() {
        // The outer selection's header holds a construct that may return, then
        // branches within the selection: the flag leads to the outer merge.
        let source = r#"spirv.module Logical GLSL450 {
  spirv.func @f(%c: i1, %d: i1, %a: i32) -> i32 "None" {
    spirv.mlir.selection {
      spirv.mlir.selection {
        spirv.BranchConditional %d, ^ret, ^inner_merge
      ^ret:
        spirv.ReturnValue %a : i32
      ^inner_merge:
        spirv.mlir.merge
      }
      spirv.BranchConditional %c, ^then, ^merge
    ^then:
      %x = spirv.IAdd %a, %a : i32
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }
    spirv.ReturnValue %a : i32
  }
}"#;
        let out = merge_returns(source);
        assert_eq!(out.matches("spirv.ReturnValue").count(), 1, "{out}");
        // The flag's load picks between the outer merge and the rest of the header.
        let load = out.find("spirv.Load").expect("the flag's load");
        let after = &out[load..];
        let cond = after.find("spirv.BranchConditional").expect("a flag branch");
        assert!(after[..cond].lines().count() <= 2, "{out}");
    }
}
