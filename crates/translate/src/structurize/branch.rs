//! Reading and rewriting the successors of branch terminators (`spirv.Branch`,
//! `spirv.BranchConditional`, `spirv.Switch`) together with the operands each
//! forwards to its successor's arguments.

use super::names;
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{BlockId, Operation, Value};
use spirvkit_ir::types::Signedness;
use spirvkit_ir::{Ir, OpId};
use std::ops::Range;

/// The successors of the terminator of `block` (empty when it has none).
pub(super) fn successors(ir: &Ir, block: BlockId) -> &[BlockId] {
    match ir.block(block).ops.last() {
        Some(&t) => &ir.op(t).successors,
        None => &[],
    }
}

/// The terminator of `block`, if its last op has successors or is any op at all.
pub(super) fn terminator(ir: &Ir, block: BlockId) -> Option<OpId> {
    ir.block(block).ops.last().copied()
}

fn i32_array(ir: &mut Ir, counts: &[usize]) -> Attribute {
    let i32t = ir.types.integer(32, Signedness::Signless);
    Attribute::DenseArray {
        element: i32t,
        values: counts.iter().map(|&n| Attribute::Integer { value: n as i128, ty: i32t }).collect(),
    }
}

/// The elements of the dense array attribute `name` of `o`, read in place.
fn dense_values<'a>(o: &'a Operation, name: &str) -> Option<&'a [Attribute]> {
    match o.attr(name)? {
        Attribute::DenseArray { values, .. } => Some(values),
        _ => None,
    }
}

/// A count of a dense array (`attr::dense_counts` reads the same).
fn count(a: &Attribute) -> Option<usize> {
    match a {
        Attribute::Integer { value, .. } => usize::try_from(*value).ok(),
        _ => None,
    }
}

/// How a branch op's operands are split among its successors, validated as
/// [`Ir::successor_operand_ranges`] does, read without collecting the ranges.
enum Segments<'a> {
    /// `spirv.Branch` with this many operands.
    Branch(usize),
    /// `spirv.BranchConditional`: the true and false destinations' operand counts.
    Conditional(usize, usize),
    /// `spirv.Switch`: the default's operand count and each case's.
    Switch(usize, &'a [Attribute]),
}

impl Segments<'_> {
    fn of(o: &Operation) -> Option<Segments<'_>> {
        let n = o.operands.len();
        let names = names();
        let sizes = || match dense_values(o, "operandSegmentSizes")? {
            [a, b, c] => Some([count(a)?, count(b)?, count(c)?]),
            _ => None,
        };
        let segments = if o.name == names.branch {
            Segments::Branch(n)
        } else if o.name == names.branch_conditional {
            let [1, t, e] = sizes()? else { return None };
            if 1usize.checked_add(t)?.checked_add(e)? > n {
                return None;
            }
            Segments::Conditional(t, e)
        } else if o.name == names.switch {
            let [1, d, _] = sizes()? else { return None };
            let cases = dense_values(o, "case_operand_segments")?;
            let mut end = 1usize.checked_add(d)?;
            for c in cases {
                end = end.checked_add(count(c)?)?;
            }
            if end > n {
                return None;
            }
            Segments::Switch(d, cases)
        } else {
            return None;
        };
        (segments.len() == o.successors.len()).then_some(segments)
    }

    fn len(&self) -> usize {
        match self {
            Segments::Branch(_) => 1,
            Segments::Conditional(..) => 2,
            Segments::Switch(_, cases) => 1 + cases.len(),
        }
    }

    /// The operand count of each successor, in order.
    fn counts(&self) -> impl Iterator<Item = usize> + '_ {
        let (first, second, cases): (usize, Option<usize>, &[Attribute]) = match *self {
            Segments::Branch(n) => (n, None, &[]),
            Segments::Conditional(t, e) => (t, Some(e), &[]),
            Segments::Switch(d, cases) => (d, None, cases),
        };
        std::iter::once(first).chain(second).chain(cases.iter().map(|c| count(c).unwrap_or(0)))
    }

    /// The operands forwarded to successor `index`.
    fn range(&self, index: usize) -> Option<Range<usize>> {
        let mut start = if matches!(self, Segments::Branch(_)) { 0 } else { 1 };
        for (i, n) in self.counts().enumerate() {
            if i == index {
                return Some(start..start + n);
            }
            start += n;
        }
        None
    }
}

/// Whether `op` is a branch of the dialect whose operand segments fit its operands
/// (what [`Ir::successor_operand_ranges`] accepts).
pub(super) fn is_branch(ir: &Ir, op: OpId) -> bool {
    Segments::of(ir.op(op)).is_some()
}

/// The operands the branch `op` forwards to successor `index`.
pub(super) fn successor_range(ir: &Ir, op: OpId, index: usize) -> Option<Range<usize>> {
    Segments::of(ir.op(op))?.range(index)
}

/// Replaces successor `index` of the branch `op` by `target`, forwarding `operands`.
/// The caller has checked with [`is_branch`] that `op` is a branch.
pub(super) fn set_successor(ir: &mut Ir, op: OpId, index: usize, target: BlockId, operands: Vec<Value>) {
    let Some(segments) = Segments::of(ir.op(op)) else { return };
    let Some(range) = segments.range(index) else { return };
    let is_conditional = matches!(segments, Segments::Conditional(..));
    let is_switch = matches!(segments, Segments::Switch(..));
    // Only a switch has more than two successors.
    let mut counts: Vec<usize> = if is_switch { segments.counts().collect() } else { Vec::new() };
    let (mut first, mut second) = match segments {
        Segments::Conditional(t, e) => (t, e),
        _ => (0, 0),
    };
    let added = operands.len();
    let o = ir.op_mut(op);
    o.operands.splice(range, operands);
    if let Some(s) = o.successors.get_mut(index) {
        *s = target;
    }
    if is_conditional {
        match index {
            0 => first = added,
            _ => second = added,
        }
        let sizes = i32_array(ir, &[1, first, second]);
        ir.set_property(op, "operandSegmentSizes", sizes);
    } else if is_switch {
        if let Some(c) = counts.get_mut(index) {
            *c = added;
        }
        let cases = counts.get(1..).unwrap_or(&[]);
        let case_sizes = i32_array(ir, cases);
        let sizes = i32_array(ir, &[1, counts.first().copied().unwrap_or(0), cases.iter().sum()]);
        ir.set_property(op, "case_operand_segments", case_sizes);
        ir.set_property(op, "operandSegmentSizes", sizes);
    }
}

/// A new `spirv.BranchConditional %cond, ^t(t_args), ^f(f_args)`.
pub(super) fn branch_conditional(
    ir: &mut Ir,
    cond: spirvkit_ir::ir::Value,
    (t, t_args): (BlockId, Vec<spirvkit_ir::ir::Value>),
    (f, f_args): (BlockId, Vec<spirvkit_ir::ir::Value>),
) -> OpId {
    let sizes = i32_array(ir, &[1, t_args.len(), f_args.len()]);
    let mut operands = vec![cond];
    operands.extend(t_args);
    operands.extend(f_args);
    let op = ir.create_op(names().branch_conditional.clone(), operands, &[], Default::default());
    ir.op_mut(op).successors = spirvkit_ir::ir::thin_vec![t, f];
    ir.op_mut(op).properties = vec![NamedAttribute::new("operandSegmentSizes", sizes)];
    op
}

/// A new `spirv.Branch ^target(args)`.
pub(super) fn branch(ir: &mut Ir, target: BlockId, args: Vec<spirvkit_ir::ir::Value>) -> OpId {
    let op = ir.create_op(names().branch.clone(), args, &[], Default::default());
    ir.op_mut(op).successors = spirvkit_ir::ir::thin_vec![target];
    op
}

#[cfg(test)]
mod tests {
    use super::*;
    use spirvkit_ir::ir::Location;

    /// `Segments` reads what `Ir::successor_operand_ranges` reads, without collecting.
    #[test]
    fn segments_agree_with_the_ir() {
        let mut ir = Ir::new();
        let i32t = ir.types.integer(32, Signedness::Signless);
        let (a, b, c) = (ir.create_block(), ir.create_block(), ir.create_block());
        let cond = ir.add_block_argument(a, i32t, Location::Unknown);
        let v = ir.add_block_argument(a, i32t, Location::Unknown);
        let mut ops = vec![branch(&mut ir, b, vec![v, v])];
        for (t, f) in [(0, 0), (1, 1), (2, 0), (2, 1)] {
            ops.push(branch_conditional(&mut ir, cond, (b, vec![v; t]), (c, vec![v; f])));
        }
        // Segment sizes that do not fit the operands, or are not counts.
        let bad = branch_conditional(&mut ir, cond, (b, vec![v]), (c, vec![]));
        let sizes = i32_array(&mut ir, &[1, 3, 0]);
        ir.set_property(bad, "operandSegmentSizes", sizes);
        ops.push(bad);
        let negative = branch_conditional(&mut ir, cond, (b, vec![]), (c, vec![]));
        let sizes = Attribute::DenseArray {
            element: i32t,
            values: [1, -1, 0].iter().map(|&n| Attribute::Integer { value: n, ty: i32t }).collect(),
        };
        ir.set_property(negative, "operandSegmentSizes", sizes);
        ops.push(negative);
        for (cases, ok) in [(vec![1, 0], true), (vec![3, 0], false), (vec![1], false)] {
            let switch = ir.create_op(names().switch.clone(), vec![cond, v, v], &[], Location::Unknown);
            ir.op_mut(switch).successors = spirvkit_ir::ir::thin_vec![a, b, c];
            let case_sizes = i32_array(&mut ir, &cases);
            let sizes = i32_array(&mut ir, &[1, 1, if ok { 1 } else { 2 }]);
            ir.set_property(switch, "case_operand_segments", case_sizes);
            ir.set_property(switch, "operandSegmentSizes", sizes);
            ops.push(switch);
        }
        ops.push(ir.create_op("spirv.Return", vec![], &[], Location::Unknown));
        for op in ops {
            let expected = ir.successor_operand_ranges(op);
            assert_eq!(is_branch(&ir, op), expected.is_some(), "{:?}", ir.op(op));
            for index in 0..4 {
                let range = expected.as_ref().and_then(|r| r.get(index).cloned());
                assert_eq!(successor_range(&ir, op, index), range, "{:?}", ir.op(op));
            }
        }
    }
}
