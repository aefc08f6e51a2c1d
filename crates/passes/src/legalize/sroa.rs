//! `--spirv-sroa`: scalar replacement of aggregates. A Function variable of a struct
//! or sized array type whose uses are access chains with a constant first index and
//! whole loads and stores becomes one variable per member: chains re-rooted at the
//! member's variable, whole loads rebuilt with `spirv.CompositeConstruct`, whole
//! stores split with `spirv.CompositeExtract`. Repeated on the new variables, so
//! nested aggregates split too; mem2reg then promotes the pieces (a struct holding a
//! texture and a sampler in a local is how HLSL code carries resources around).
//! Vectors stay whole, as in SPIRV-Tools.

use super::util;
use super::LegalizeError;
use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{Ir, Location, OpEdits, OpId, Value};
use spirvkit_ir::types::{Signedness, Type, TypeKind};

/// Aggregates with more members than this stay whole (as SPIRV-Tools' limit).
const MAX_MEMBERS: usize = 100;
/// Splitting rounds (each splits one level of nesting).
const MAX_ROUNDS: usize = 16;

/// Splits the aggregate Function variables of `func`.
pub fn run(ir: &mut Ir, func: OpId) -> Result<(), LegalizeError> {
    super::inline_all::hoist_variables(ir, func);
    for _ in 0..MAX_ROUNDS {
        if !split_round(ir, func) {
            break;
        }
    }
    Ok(())
}

#[derive(Default)]
struct Uses {
    chains: Vec<OpId>,
    loads: Vec<OpId>,
    stores: Vec<OpId>,
    other: bool,
}

fn split_round(ir: &mut Ir, func: OpId) -> bool {
    let Some(entry) = ir.entry_block(func) else { return false };
    let vars: Vec<OpId> =
        ir.block(entry).ops.iter().copied().filter(|&op| ir.op(op).name == "spirv.Variable").collect();
    let mut uses: FxHashMap<Value, Uses> = FxHashMap::default();
    for &v in &vars {
        uses.insert(ir.op(v).results[0], Uses::default());
    }
    for (_, op) in ir.ops_under(func) {
        let o = ir.op(op);
        for (i, &v) in o.operands.iter().enumerate() {
            let Some(u) = uses.get_mut(&v) else { continue };
            match (o.name.as_str(), i) {
                ("spirv.AccessChain", 0) if o.operands.len() >= 2 => u.chains.push(op),
                ("spirv.Load", 0) => u.loads.push(op),
                ("spirv.Store", 0) => u.stores.push(op),
                _ => u.other = true,
            }
        }
    }
    let mut changed = false;
    // Uses are rewritten once per round: a walk of the function per split variable
    // would make the pass quadratic in a large inlined entry point.
    // Insertions and erasures are applied once at the end of the round, for the same
    // reason: op by op, each one shifts the large entry block.
    let mut round = Round::default();
    for var in vars {
        let ptr = ir.op(var).results[0];
        let u = uses.remove(&ptr).unwrap_or_default();
        if u.other || u.chains.is_empty() || !ir.op(var).operands.is_empty() {
            continue;
        }
        let Some((pointee, "Function")) = util::pointer_parts(ir, ir.value_type(ptr)) else { continue };
        let Some(members) = member_types(ir, pointee) else { continue };
        let indices: Option<Vec<usize>> =
            u.chains.iter().map(|&c| constant_index(ir, ir.op(c).operands[1])).collect();
        let Some(indices) = indices else { continue };
        if indices.iter().any(|&i| i >= members.len()) {
            continue;
        }
        split(ir, var, pointee, &members, &u, &indices, &mut round);
        changed = true;
    }
    ir.apply_edits(round.edits);
    util::replace_uses(ir, func, &round.replace);
    changed
}

/// The member types of a struct or sized array type.
fn member_types(ir: &Ir, ty: Type) -> Option<Vec<Type>> {
    let members = match ir.types.kind(ty) {
        TypeKind::LiteralStruct(body) => body.members.iter().map(|m| m.ty).collect(),
        TypeKind::IdentifiedStruct { name } => {
            ir.types.struct_body(name)?.members.iter().map(|m| m.ty).collect()
        }
        TypeKind::Array { element, count, spec_length: None, .. } => vec![*element; *count as usize],
        _ => return None,
    };
    let members: Vec<Type> = members;
    (!members.is_empty() && members.len() <= MAX_MEMBERS).then_some(members)
}

fn constant_index(ir: &Ir, v: Value) -> Option<usize> {
    let op = util::defining_op(ir, v)?;
    if ir.op(op).name != "spirv.Constant" {
        return None;
    }
    match ir.op(op).attr("value") {
        Some(Attribute::Integer { value, .. }) => usize::try_from(*value).ok(),
        _ => None,
    }
}

/// A splitting round's rewrites: values replaced (uses rewritten at the round's end)
/// and ops inserted and erased (applied at the round's end).
#[derive(Default)]
struct Round {
    replace: FxHashMap<Value, Value>,
    edits: OpEdits,
}

fn split(
    ir: &mut Ir,
    var: OpId,
    aggregate: Type,
    members: &[Type],
    u: &Uses,
    indices: &[usize],
    round: &mut Round,
) {
    let Round { replace, edits } = round;
    let location = ir.op(var).location.clone();
    let mut pieces: Vec<Value> = Vec::with_capacity(members.len());
    for &ty in members {
        let ptr_type = ir.types.pointer(ty, "Function");
        let op = ir.create_op("spirv.Variable", vec![], &[ptr_type], location.clone());
        ir.set_property(op, "storage_class", function_storage());
        edits.insert_before(ir, var, op);
        pieces.push(ir.op(op).results[0]);
    }
    for (&chain, &index) in u.chains.iter().zip(indices) {
        let o = ir.op(chain).clone();
        if o.operands.len() == 2 {
            replace.insert(o.results[0], pieces[index]);
        } else {
            let mut operands = vec![pieces[index]];
            // Values an earlier split of this round replaced are read through the map.
            operands.extend(o.operands[2..].iter().map(|&v| util::resolve(replace, v)));
            let ty = ir.value_type(o.results[0]);
            let new = ir.create_op("spirv.AccessChain", operands, &[ty], o.location.clone());
            edits.insert_before(ir, chain, new);
            replace.insert(o.results[0], ir.op(new).results[0]);
        }
        edits.erase(ir, chain);
    }
    for &load in &u.loads {
        let loc = ir.op(load).location.clone();
        let parts: Vec<Value> = members
            .iter()
            .zip(&pieces)
            .map(|(&ty, &p)| {
                let l = ir.create_op("spirv.Load", vec![p], &[ty], loc.clone());
                edits.insert_before(ir, load, l);
                ir.op(l).results[0]
            })
            .collect();
        let whole = ir.create_op("spirv.CompositeConstruct", parts, &[aggregate], loc);
        edits.insert_before(ir, load, whole);
        replace.insert(ir.op(load).results[0], ir.op(whole).results[0]);
        edits.erase(ir, load);
    }
    for &store in &u.stores {
        let loc = ir.op(store).location.clone();
        let value = util::resolve(replace, ir.op(store).operands[1]);
        for (i, (&ty, &p)) in members.iter().zip(&pieces).enumerate() {
            let part = extract(ir, edits, store, value, i, ty, loc.clone());
            let write = ir.create_op("spirv.Store", vec![p, part], &[], loc.clone());
            edits.insert_before(ir, store, write);
        }
        edits.erase(ir, store);
    }
    edits.erase(ir, var);
}

fn extract(
    ir: &mut Ir,
    edits: &mut OpEdits,
    before: OpId,
    value: Value,
    index: usize,
    ty: Type,
    loc: Location,
) -> Value {
    let op = ir.create_op("spirv.CompositeExtract", vec![value], &[ty], loc);
    edits.insert_before(ir, before, op);
    let i32t = ir.types.integer(32, Signedness::Signless);
    let indices = Attribute::Array(vec![Attribute::Integer { value: index as i128, ty: i32t }]);
    ir.set_property(op, "indices", indices);
    ir.op(op).results[0]
}

pub(crate) fn function_storage() -> Attribute {
    Attribute::Dialect { name: "spirv.storage_class".into(), body: Some("Function".into()) }
}
