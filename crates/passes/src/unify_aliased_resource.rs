//! `-spirv-unify-aliased-resource`: in each `spirv.module` directly under the top
//! op, the global variables marked `aliased` that share a descriptor set and binding
//! are merged into one, and every access through the others is rewritten to go
//! through it.
//!
//! Only runtime-array resources (`!spirv.ptr<!spirv.struct<(!spirv.rtarray<T>)>>`)
//! with scalar or vector elements are merged; the surviving (canonical) resource is
//! chosen as MLIR's pass does:
//!
//! - with vector elements: the vector with the fewest bytes (the first one on a tie),
//!   provided every vector's size is a multiple of it and every scalar's width (also
//!   of vector elements) a multiple of its element's, and no vector has an odd count;
//! - otherwise the narrowest scalar, provided every width is a multiple of it.
//!
//! Accesses are then rewritten op by op, in walk order, as MLIR's dialect conversion
//! applies its patterns: `spirv.mlir.addressof` takes the canonical variable; an
//! `spirv.AccessChain` keeps its indices, scales the last one (`IMul`) or splits it
//! into an element and a component index (`SDiv`/`SMod`); a `spirv.Load` becomes one
//! load, a bitcast of it, or up to four narrower loads put together
//! (`CompositeConstruct`, then `Bitcast`); a `spirv.Store` gets a bitcast of its
//! value and only works between scalars of one width. Any access that cannot be
//! rewritten makes the pass fail with `failed to legalize operation`.
//! Afterwards a resource left alone for its binding loses `aliased`.
//!
//! MLIR runs this pass on every target environment when invoked from the command
//! line (the WebGPU/Metal restriction only applies when a target-env callback is
//! given programmatically), so `#spirv.target_env` is not consulted here.

use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::diag::{Diagnostic, LineIndex};
use spirvkit_ir::ir::{BlockId, Ir, Location, OpId, Value, ValueDef};
use spirvkit_ir::text::printer::type_to_string;
use spirvkit_ir::types::{Signedness, Type, TypeKind};

const ALIASED: &str = "aliased";

/// Runs the pass on `top` when it is a `spirv.module` (the pass's anchor), else on
/// every `spirv.module` directly under it. Errors (offsets into `text`) mean the pass
/// failed and the IR must not be printed; the caller verifies the result.
pub fn run(ir: &mut Ir, top: OpId, text: &str) -> Vec<Diagnostic> {
    let index = LineIndex::new(text);
    let modules: Vec<OpId> = if ir.op(top).name == "spirv.module" {
        vec![top]
    } else {
        children(ir, top).into_iter().filter(|&op| ir.op(op).name == "spirv.module").collect()
    };
    let mut out = Vec::new();
    for module in modules {
        out.extend(run_on_module(ir, module, &index));
    }
    out
}

/// The ops directly in `op`'s regions, in order.
fn children(ir: &Ir, op: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    for &r in &ir.op(op).regions {
        for &b in &ir.region(r).blocks {
            out.extend(ir.block(b).ops.iter().copied());
        }
    }
    out
}

/// Which variables are merged into which, and their element types.
#[derive(Default)]
struct Analysis {
    /// Every variable of a mergeable set, to the set's canonical variable.
    canonical: FxHashMap<OpId, OpId>,
    /// The runtime array element type of every variable in `canonical`.
    element: FxHashMap<OpId, Type>,
    /// The module's global variables by name (its symbol table, for `addressof`).
    by_name: FxHashMap<String, OpId>,
}

fn sym_name(ir: &Ir, op: OpId) -> Option<&str> {
    match ir.op(op).attr("sym_name") {
        Some(Attribute::String(s)) => Some(s),
        _ => None,
    }
}

fn variable_type(ir: &Ir, var: OpId) -> Option<Type> {
    match ir.op(var).attr("type") {
        Some(Attribute::Type(t)) => Some(*t),
        _ => None,
    }
}

fn is_aliased(ir: &Ir, var: OpId) -> bool {
    matches!(ir.op(var).attr(ALIASED), Some(Attribute::Unit))
}

/// `(descriptor set, binding)` of a variable that has both.
fn descriptor(ir: &Ir, var: OpId) -> Option<(i128, i128)> {
    match (ir.op(var).attr("descriptor_set"), ir.op(var).attr("binding")) {
        (Some(Attribute::Integer { value: set, .. }), Some(Attribute::Integer { value: binding, .. })) => {
            Some((*set, *binding))
        }
        _ => None,
    }
}

/// The `aliased` global variables of a module grouped by descriptor, groups in order
/// of first appearance.
fn aliased_sets(ir: &Ir, body: BlockId) -> Vec<Vec<OpId>> {
    let mut sets: Vec<Vec<OpId>> = Vec::new();
    let mut set_of: FxHashMap<(i128, i128), usize> = FxHashMap::default();
    for &op in &ir.block(body).ops {
        if ir.op(op).name != "spirv.GlobalVariable" || !is_aliased(ir, op) {
            continue;
        }
        let Some(key) = descriptor(ir, op) else { continue };
        match set_of.get(&key) {
            Some(&at) => sets[at].push(op),
            None => {
                set_of.insert(key, sets.len());
                sets.push(vec![op]);
            }
        }
    }
    sets
}

fn members(ir: &Ir, ty: Type) -> Option<Vec<Type>> {
    match ir.types.kind(ty) {
        TypeKind::LiteralStruct(body) => Some(body.members.iter().map(|m| m.ty).collect()),
        TypeKind::IdentifiedStruct { name } => {
            Some(ir.types.struct_body(name)?.members.iter().map(|m| m.ty).collect())
        }
        _ => None,
    }
}

fn pointee(ir: &Ir, ty: Type) -> Option<Type> {
    match ir.types.kind(ty) {
        TypeKind::Pointer { pointee, .. } => Some(*pointee),
        _ => None,
    }
}

/// `T` of `!spirv.ptr<!spirv.struct<(!spirv.rtarray<T>)>>`.
fn runtime_array_element(ir: &Ir, var_ty: Type) -> Option<Type> {
    let fields = members(ir, pointee(ir, var_ty)?)?;
    match fields.as_slice() {
        [only] => match ir.types.kind(*only) {
            TypeKind::RuntimeArray { element, .. } => Some(*element),
            _ => None,
        },
        _ => None,
    }
}

/// The width of an integer or float type.
fn scalar_width(ir: &Ir, ty: Type) -> Option<u32> {
    match ir.types.kind(ty) {
        TypeKind::Integer { width, .. } => Some(*width),
        TypeKind::Float(f) => Some(f.width()),
        _ => None,
    }
}

/// `(count, element)` of a one-dimensional vector of scalars.
fn vector_shape(ir: &Ir, ty: Type) -> Option<(u64, Type)> {
    match ir.types.kind(ty) {
        TypeKind::Vector { shape, scalable, element }
            if shape.len() == 1 && !scalable.iter().any(|&s| s) && scalar_width(ir, *element).is_some() =>
        {
            Some((shape[0], *element))
        }
        _ => None,
    }
}

/// The byte size of a scalar or vector; none for booleans (they have no physical
/// size) and for widths that are not whole bytes.
fn size_in_bytes(ir: &Ir, ty: Type) -> Option<u64> {
    if let Some((count, element)) = vector_shape(ir, ty) {
        return size_in_bytes(ir, element)?.checked_mul(count);
    }
    let width = scalar_width(ir, ty)?;
    (width != 1 && width % 8 == 0).then_some(u64::from(width / 8))
}

fn is_scalar(ir: &Ir, ty: Type) -> bool {
    scalar_width(ir, ty).is_some()
}

fn is_vector(ir: &Ir, ty: Type) -> bool {
    vector_shape(ir, ty).is_some()
}

fn same_width_scalars(ir: &Ir, a: Type, b: Type) -> bool {
    matches!((scalar_width(ir, a), scalar_width(ir, b)), (Some(x), Some(y)) if x == y)
}

/// The index of the resource the others are merged into, if the element types
/// allow merging (see the module comment).
fn canonical_index(ir: &Ir, elements: &[Type]) -> Option<usize> {
    let mut scalar_bits = Vec::with_capacity(elements.len());
    // (bits, index in `elements`) of the vector elements.
    let mut vectors = Vec::new();
    for (i, &ty) in elements.iter().enumerate() {
        if let Some((count, element)) = vector_shape(ir, ty) {
            // Odd-sized vectors have special layout requirements.
            if count % 2 != 0 {
                return None;
            }
            vectors.push((size_in_bytes(ir, ty)?.checked_mul(8)?, i));
            scalar_bits.push(u64::from(scalar_width(ir, element)?));
        } else {
            scalar_bits.push(u64::from(scalar_width(ir, ty)?));
        }
    }
    // The first smallest one.
    let smallest = |values: &[u64]| values.iter().enumerate().min_by_key(|&(_, v)| v).map(|(i, _)| i);
    if !vectors.is_empty() {
        let bits: Vec<u64> = vectors.iter().map(|v| v.0).collect();
        let at = smallest(&bits)?;
        if !all_multiples_of(&bits, bits[at]) {
            return None;
        }
        let index = vectors[at].1;
        return all_multiples_of(&scalar_bits, scalar_bits[index]).then_some(index);
    }
    let at = smallest(&scalar_bits)?;
    all_multiples_of(&scalar_bits, scalar_bits[at]).then_some(at)
}

fn all_multiples_of(values: &[u64], base: u64) -> bool {
    base != 0 && values.iter().all(|v| v % base == 0)
}

fn analyze(ir: &Ir, body: BlockId) -> Analysis {
    let mut analysis = Analysis::default();
    for &op in &ir.block(body).ops {
        if ir.op(op).name == "spirv.GlobalVariable" {
            if let Some(name) = sym_name(ir, op) {
                analysis.by_name.entry(name.to_string()).or_insert(op);
            }
        }
    }
    'sets: for vars in aliased_sets(ir, body) {
        let mut elements = Vec::with_capacity(vars.len());
        for &var in &vars {
            match variable_type(ir, var).and_then(|t| runtime_array_element(ir, t)) {
                Some(e) if is_scalar(ir, e) || is_vector(ir, e) => elements.push(e),
                _ => continue 'sets,
            }
        }
        let Some(index) = canonical_index(ir, &elements) else { continue };
        for (&var, &element) in vars.iter().zip(&elements) {
            analysis.canonical.insert(var, vars[index]);
            analysis.element.insert(var, element);
        }
    }
    analysis
}

impl Analysis {
    /// The variable an `addressof` names, if it is a global variable of the module.
    fn addressed_variable(&self, ir: &Ir, address_of: OpId) -> Option<OpId> {
        match ir.op(address_of).attr("variable") {
            Some(Attribute::SymbolRef(path)) if path.len() == 1 => self.by_name.get(&path[0]).copied(),
            _ => None,
        }
    }

    /// The canonical variable `var` is merged into, when that is another variable.
    fn replacement(&self, var: OpId) -> Option<OpId> {
        self.canonical.get(&var).copied().filter(|&c| c != var)
    }

    /// Whether `op` refers to a merged-away variable, so must be rewritten: the
    /// variable itself, its `addressof`s, and access chains, loads and stores
    /// reached from those through pointer operands.
    fn must_rewrite(&self, ir: &Ir, op: OpId) -> bool {
        let mut current = op;
        // A bound on the walk: malformed input may have pointer cycles.
        for _ in 0..=ir.op_count() {
            let o = ir.op(current);
            let pointer = match o.name.as_str() {
                "spirv.GlobalVariable" => return self.replacement(current).is_some(),
                "spirv.mlir.addressof" => {
                    return self
                        .addressed_variable(ir, current)
                        .is_some_and(|v| self.replacement(v).is_some())
                }
                "spirv.AccessChain" | "spirv.Load" | "spirv.Store" => o.operands.first().copied(),
                _ => None,
            };
            match pointer.map(|p| ir.value(p).def) {
                Some(ValueDef::Result { op: def, .. }) => current = def,
                _ => return false,
            }
        }
        false
    }
}

/// How an op's rewrite went.
#[derive(Clone, Copy)]
enum Outcome {
    /// Replaced; the new value standing for the old op's result, if it has one.
    Replaced(Option<Value>),
    /// Rewritten into an op whose type could not be built (already reported); MLIR
    /// carries on with a broken op, here its users are left alone.
    Broken,
}

/// The op that could not be rewritten.
struct Illegal(OpId);

struct Rewriter<'a> {
    ir: &'a mut Ir,
    analysis: &'a Analysis,
    index: &'a LineIndex,
    outcomes: FxHashMap<OpId, Outcome>,
    /// Replaced ops in rewrite order, with their outcome.
    replaced: Vec<(OpId, Option<Value>)>,
    diagnostics: Vec<Diagnostic>,
}

/// Where new ops go: before the op being rewritten, with its location.
#[derive(Clone)]
struct InsertionPoint {
    block: BlockId,
    before: OpId,
    location: Location,
}

impl Rewriter<'_> {
    fn create(
        &mut self,
        at: &InsertionPoint,
        name: &str,
        operands: Vec<Value>,
        result: Option<Type>,
    ) -> OpId {
        let results: Vec<Type> = result.into_iter().collect();
        let op = self.ir.create_op(name, operands, &results, at.location.clone());
        self.ir.insert_op_before(at.block, at.before, op);
        op
    }

    fn create_value(&mut self, at: &InsertionPoint, name: &str, operands: Vec<Value>, ty: Type) -> Value {
        let op = self.create(at, name, operands, Some(ty));
        self.ir.op(op).results[0]
    }

    fn constant(&mut self, at: &InsertionPoint, ty: Type, value: i128) -> Value {
        let op = self.create(at, "spirv.Constant", Vec::new(), Some(ty));
        self.ir.op_mut(op).properties = vec![NamedAttribute::new("value", Attribute::Integer { value, ty })];
        self.ir.op(op).results[0]
    }

    /// A new `spirv.AccessChain`, its result type inferred as MLIR's builder does;
    /// `None` (with the builder's error reported) when that fails.
    fn access_chain(&mut self, at: &InsertionPoint, base: Value, indices: &[Value]) -> Option<Value> {
        match access_chain_result(self.ir, self.ir.value_type(base), indices) {
            Ok(ty) => {
                let mut operands = vec![base];
                operands.extend_from_slice(indices);
                Some(self.create_value(at, "spirv.AccessChain", operands, ty))
            }
            Err(message) => {
                let offset = self.index.location_offset(&at.location);
                self.diagnostics.push(Diagnostic::error(offset, message));
                None
            }
        }
    }

    fn load(&mut self, at: &InsertionPoint, pointer: Value) -> Option<Value> {
        let ty = pointee(self.ir, self.ir.value_type(pointer))?;
        Some(self.create_value(at, "spirv.Load", vec![pointer], ty))
    }

    /// The outcome of rewriting `op`, rewriting it first if needed (an access's
    /// pointer producer may come later in walk order in odd control flow).
    fn outcome(&mut self, op: OpId) -> Result<Outcome, Illegal> {
        if let Some(&o) = self.outcomes.get(&op) {
            return Ok(o);
        }
        let outcome = self.rewrite(op)?;
        self.outcomes.insert(op, outcome);
        if let Outcome::Replaced(new) = outcome {
            self.replaced.push((op, new));
        }
        Ok(outcome)
    }

    fn rewrite(&mut self, op: OpId) -> Result<Outcome, Illegal> {
        let o = self.ir.op(op);
        let Some(block) = o.parent else { return Err(Illegal(op)) };
        let at = InsertionPoint { block, before: op, location: o.location.clone() };
        match o.name.as_str() {
            // Users are rewritten to the canonical resource.
            "spirv.GlobalVariable" => Ok(Outcome::Replaced(None)),
            "spirv.mlir.addressof" => self.rewrite_address_of(op, &at),
            "spirv.AccessChain" => self.rewrite_access_chain(op, &at),
            "spirv.Load" => self.rewrite_load(op, &at),
            "spirv.Store" => self.rewrite_store(op, &at),
            _ => Err(Illegal(op)),
        }
    }

    fn rewrite_address_of(&mut self, op: OpId, at: &InsertionPoint) -> Result<Outcome, Illegal> {
        let ir = &*self.ir;
        let canonical = self
            .analysis
            .addressed_variable(ir, op)
            .and_then(|v| self.analysis.replacement(v))
            .ok_or(Illegal(op))?;
        let (Some(name), Some(ty)) = (sym_name(ir, canonical), variable_type(ir, canonical)) else {
            return Err(Illegal(op));
        };
        let variable = Attribute::SymbolRef(vec![name.to_string()]);
        let new = self.create(at, "spirv.mlir.addressof", Vec::new(), Some(ty));
        self.ir.op_mut(new).properties = vec![NamedAttribute::new("variable", variable)];
        Ok(Outcome::Replaced(Some(self.ir.op(new).results[0])))
    }

    /// The new value of the pointer operand of `op` (produced by an op that is
    /// rewritten too), or `None` when that op is broken.
    fn new_pointer(&mut self, op: OpId) -> Result<Option<Value>, Illegal> {
        let pointer = self.ir.op(op).operands.first().copied().ok_or(Illegal(op))?;
        // Pointers of merged-away resources come from these two; anything else
        // (a loaded pointer, say) cannot be rewritten.
        let producer = match self.ir.value(pointer).def {
            ValueDef::Result { op: def, .. }
                if matches!(self.ir.op(def).name.as_str(), "spirv.mlir.addressof" | "spirv.AccessChain") =>
            {
                def
            }
            _ => return Err(Illegal(op)),
        };
        match self.outcome(producer)? {
            Outcome::Replaced(Some(new)) => Ok(Some(new)),
            Outcome::Replaced(None) => Err(Illegal(op)),
            Outcome::Broken => Ok(None),
        }
    }

    fn rewrite_access_chain(&mut self, op: OpId, at: &InsertionPoint) -> Result<Outcome, Illegal> {
        // Only chains straight off an `addressof` are handled.
        let base = self.ir.op(op).operands.first().copied().ok_or(Illegal(op))?;
        let address_of = match self.ir.value(base).def {
            ValueDef::Result { op: def, .. } if self.ir.op(def).name == "spirv.mlir.addressof" => def,
            _ => return Err(Illegal(op)),
        };
        let source_var = self.analysis.addressed_variable(self.ir, address_of).ok_or(Illegal(op))?;
        let target_var = self.analysis.replacement(source_var).ok_or(Illegal(op))?;
        let (Some(&source), Some(&target)) =
            (self.analysis.element.get(&source_var), self.analysis.element.get(&target_var))
        else {
            return Err(Illegal(op));
        };
        let Some(new_base) = self.new_pointer(op)? else { return Ok(Outcome::Broken) };
        let mut indices: Vec<Value> = self.ir.op(op).operands[1..].to_vec();
        let ir = &*self.ir;
        if source == target || same_width_scalars(ir, source, target) {
            // Same element size: the indices stay.
        } else if is_scalar(ir, source) && is_vector(ir, target) {
            // Scalar elements addressed inside vector ones: element and component.
            let ratio = size_ratio(ir, target, source).ok_or(Illegal(op))?;
            let last = indices.last_mut().ok_or(Illegal(op))?;
            let old = *last;
            let ty = self.ir.value_type(old);
            let ratio = self.constant(at, ty, ratio);
            *last = self.create_value(at, "spirv.SDiv", vec![old, ratio], ty);
            let component = self.create_value(at, "spirv.SMod", vec![old, ratio], ty);
            indices.push(component);
        } else if (is_scalar(ir, source) && is_scalar(ir, target))
            || (is_vector(ir, source) && is_vector(ir, target))
        {
            // Wider elements addressed in narrower ones: the first of them.
            let ratio = size_ratio(ir, source, target).ok_or(Illegal(op))?;
            let last = indices.last_mut().ok_or(Illegal(op))?;
            let old = *last;
            let ty = self.ir.value_type(old);
            let ratio = self.constant(at, ty, ratio);
            *last = self.create_value(at, "spirv.IMul", vec![old, ratio], ty);
        } else {
            return Err(Illegal(op));
        }
        Ok(match self.access_chain(at, new_base, &indices) {
            Some(new) => Outcome::Replaced(Some(new)),
            None => Outcome::Broken,
        })
    }

    fn rewrite_load(&mut self, op: OpId, at: &InsertionPoint) -> Result<Outcome, Illegal> {
        let old_pointer = self.ir.op(op).operands.first().copied().ok_or(Illegal(op))?;
        let Some(pointer) = self.new_pointer(op)? else { return Ok(Outcome::Broken) };
        let source = pointee(self.ir, self.ir.value_type(old_pointer)).ok_or(Illegal(op))?;
        let target = pointee(self.ir, self.ir.value_type(pointer)).ok_or(Illegal(op))?;
        let first = self.load(at, pointer).ok_or(Illegal(op))?;
        if source == target {
            return Ok(Outcome::Replaced(Some(first)));
        }
        let ir = &*self.ir;
        if same_width_scalars(ir, source, target) {
            let cast = self.create_value(at, "spirv.Bitcast", vec![first], source);
            return Ok(Outcome::Replaced(Some(cast)));
        }
        let both_scalars = is_scalar(ir, source) && is_scalar(ir, target);
        let both_vectors = is_vector(ir, source) && is_vector(ir, target);
        if !(both_scalars || both_vectors) {
            return Err(Illegal(op));
        }
        // A wider value from consecutive narrower ones, lowest bits first (little
        // endian), through at most four loads.
        let ratio = size_ratio(ir, source, target).ok_or(Illegal(op))?;
        // (MLIR would build a zero-element vector for a narrower value.)
        if ratio > 4 || ratio == 0 {
            return Err(Illegal(op));
        }
        let chain = match ir.value(pointer).def {
            ValueDef::Result { op: def, .. } if ir.op(def).name == "spirv.AccessChain" => def,
            _ => return Err(Illegal(op)),
        };
        let (base, mut indices) = match ir.op(chain).operands.split_first() {
            Some((&base, indices)) if !indices.is_empty() => (base, indices.to_vec()),
            _ => return Err(Illegal(op)),
        };
        let i32_ty = self.ir.types.integer(32, Signedness::Signless);
        let one = self.constant(at, i32_ty, 1);
        let mut components = vec![first];
        for _ in 1..ratio {
            let last = indices.len() - 1;
            indices[last] = self.create_value(at, "spirv.IAdd", vec![indices[last], one], i32_ty);
            let Some(next) = self.access_chain(at, base, &indices) else { return Ok(Outcome::Broken) };
            components.push(self.load(at, next).ok_or(Illegal(op))?);
        }
        let target_bytes = size_in_bytes(self.ir, target).ok_or(Illegal(op))?;
        let vector_ty = match vector_shape(self.ir, source) {
            Some((_, source_element)) => {
                // Vectors of different elements: each piece becomes source elements.
                let target_element = vector_shape(self.ir, target).map(|(_, e)| e);
                if target_element != Some(source_element) {
                    let element_bytes = size_in_bytes(self.ir, source_element).ok_or(Illegal(op))?;
                    let count = target_bytes / element_bytes;
                    // One-element vectors are not allowed in SPIR-V.
                    let cast_ty =
                        if count > 1 { self.ir.types.vector(count, source_element) } else { source_element };
                    for c in &mut components {
                        *c = self.create_value(at, "spirv.Bitcast", vec![*c], cast_ty);
                    }
                }
                source
            }
            None => self.ir.types.vector(ratio as u64, target),
        };
        let mut value = self.create_value(at, "spirv.CompositeConstruct", components, vector_ty);
        if !is_vector(self.ir, source) {
            value = self.create_value(at, "spirv.Bitcast", vec![value], source);
        }
        Ok(Outcome::Replaced(Some(value)))
    }

    fn rewrite_store(&mut self, op: OpId, at: &InsertionPoint) -> Result<Outcome, Illegal> {
        let (old_pointer, mut value) = match self.ir.op(op).operands.as_slice() {
            &[p, v] => (p, v),
            _ => return Err(Illegal(op)),
        };
        let source = pointee(self.ir, self.ir.value_type(old_pointer)).ok_or(Illegal(op))?;
        let Some(pointer) = self.new_pointer(op)? else { return Ok(Outcome::Broken) };
        let target = pointee(self.ir, self.ir.value_type(pointer)).ok_or(Illegal(op))?;
        // Only between scalars of one width: a store cannot be split.
        if !same_width_scalars(self.ir, source, target) {
            return Err(Illegal(op));
        }
        if source != target {
            value = self.create_value(at, "spirv.Bitcast", vec![value], target);
        }
        let new = self.create(at, "spirv.Store", vec![pointer, value], None);
        let old = self.ir.op(op);
        let (properties, attributes) = (old.properties.clone(), old.attributes.clone());
        let store = self.ir.op_mut(new);
        store.properties = properties;
        store.attributes = attributes;
        Ok(Outcome::Replaced(None))
    }
}

/// `numerator`'s byte size divided by `denominator`'s, rounded down as MLIR does
/// (so possibly zero), when both have a size.
fn size_ratio(ir: &Ir, numerator: Type, denominator: Type) -> Option<i128> {
    let (n, d) = (size_in_bytes(ir, numerator)?, size_in_bytes(ir, denominator)?);
    n.checked_div(d).map(i128::from)
}

/// The result type of `spirv.AccessChain` on a `base` of this type, or the error
/// MLIR's builder reports.
fn access_chain_result(ir: &mut Ir, base: Type, indices: &[Value]) -> Result<Type, String> {
    const OP: &str = "'spirv.AccessChain'";
    let TypeKind::Pointer { pointee, storage_class, .. } = ir.types.kind(base).clone() else {
        let t = type_to_string(ir, base);
        return Err(format!("{OP} op expected a pointer to composite type, but provided '{t}'"));
    };
    let mut ty = pointee;
    for &index in indices {
        let kind = ir.types.kind(ty).clone();
        ty = match kind {
            TypeKind::Vector { element, .. }
            | TypeKind::Array { element, .. }
            | TypeKind::RuntimeArray { element, .. }
            | TypeKind::CooperativeMatrix { element, .. } => element,
            TypeKind::Matrix { column, .. } => column,
            TypeKind::LiteralStruct(_) | TypeKind::IdentifiedStruct { .. } => {
                let def = match ir.value(index).def {
                    ValueDef::Result { op, .. } => op,
                    ValueDef::Argument { .. } => {
                        return Err(format!(
                        "{OP} op index must be an integer spirv.Constant to access element of spirv.struct"
                    ))
                    }
                };
                let constant = match (ir.op(def).name.as_str(), ir.op(def).attr("value")) {
                    ("spirv.Constant", Some(Attribute::Integer { value, .. })) => *value,
                    (name, _) => {
                        return Err(format!(
                            "{OP} index must be an integer spirv.Constant to access element of spirv.struct, \
                             but provided {name}"
                        ))
                    }
                };
                let fields = members(ir, ty).unwrap_or_default();
                match usize::try_from(constant).ok().and_then(|i| fields.get(i)) {
                    Some(&field) => field,
                    None => {
                        let t = type_to_string(ir, ty);
                        return Err(format!("{OP} op index {constant} out of bounds for '{t}'"));
                    }
                }
            }
            _ => {
                let t = type_to_string(ir, ty);
                return Err(format!("{OP} op cannot extract from non-composite type '{t}' with index 0"));
            }
        };
    }
    Ok(ir.types.pointer(ty, storage_class))
}

/// Every op under `top` in pre-order (an op, then what it contains, then the next).
fn pre_order(ir: &Ir, top: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    let mut stack = vec![top];
    while let Some(op) = stack.pop() {
        if op != top {
            out.push(op);
        }
        for &r in ir.op(op).regions.iter().rev() {
            for &b in ir.region(r).blocks.iter().rev() {
                stack.extend(ir.block(b).ops.iter().rev());
            }
        }
    }
    out
}

fn run_on_module(ir: &mut Ir, module: OpId, index: &LineIndex) -> Vec<Diagnostic> {
    let Some(body) = ir.entry_block(module) else { return Vec::new() };
    let analysis = analyze(ir, body);
    let mut rewriter = Rewriter {
        ir,
        analysis: &analysis,
        index,
        outcomes: FxHashMap::default(),
        replaced: Vec::new(),
        diagnostics: Vec::new(),
    };
    let walk = pre_order(rewriter.ir, module);
    for op in walk {
        if !analysis.must_rewrite(rewriter.ir, op) {
            continue;
        }
        if let Err(Illegal(failed)) = rewriter.outcome(op) {
            let o = rewriter.ir.op(failed);
            let offset = index.location_offset(&o.location);
            let message =
                format!("failed to legalize operation '{}' that was explicitly marked illegal", o.name);
            rewriter.diagnostics.push(Diagnostic::error(offset, message));
            return rewriter.diagnostics;
        }
    }
    let Rewriter { ir, replaced, diagnostics, .. } = rewriter;
    // An access chain could not be built: MLIR goes on with a broken op (and
    // crashes on it); stop here.
    if !diagnostics.is_empty() {
        return diagnostics;
    }
    let retyped_use = first_retyped_use(ir, module, &replaced);
    let mut substitutions: FxHashMap<Value, Value> = FxHashMap::default();
    for &(old, new) in &replaced {
        if let (Some(&result), Some(new)) = (ir.op(old).results.first(), new) {
            substitutions.insert(result, new);
        }
        ir.erase_op(old);
    }
    for op in pre_order(ir, module) {
        for v in ir.op_mut(op).operands.iter_mut() {
            if let Some(&new) = substitutions.get(v) {
                *v = new;
            }
        }
    }
    if let Some(retyped) = retyped_use {
        return vec![retyped.report(ir, index)];
    }
    // A resource now alone for its binding needs no `aliased` any more.
    for vars in aliased_sets(ir, body) {
        if let [only] = vars.as_slice() {
            let o = ir.op_mut(*only);
            o.attributes.retain(|a| a.name != ALIASED);
            o.properties.retain(|a| a.name != ALIASED);
        }
    }
    Vec::new()
}

/// A value replaced by one of another type yet still used by an op that was not
/// rewritten (an `addressof` passed to a function call, say): MLIR's dialect
/// conversion cannot reconcile the types and fails.
struct RetypedUse {
    old_type: Type,
    old_location: Location,
    new: Value,
    user: OpId,
}

/// The first such use, looked for before the replaced ops go.
fn first_retyped_use(ir: &Ir, module: OpId, replaced: &[(OpId, Option<Value>)]) -> Option<RetypedUse> {
    let rewritten: std::collections::HashSet<OpId> = replaced.iter().map(|&(op, _)| op).collect();
    let walk = pre_order(ir, module);
    replaced.iter().find_map(|&(old, new)| {
        let (&result, new) = (ir.op(old).results.first()?, new?);
        let old_type = ir.value_type(result);
        if old_type == ir.value_type(new) {
            return None;
        }
        let user =
            walk.iter().copied().find(|&u| !rewritten.contains(&u) && ir.op(u).operands.contains(&result))?;
        Some(RetypedUse { old_type, old_location: ir.op(old).location.clone(), new, user })
    })
}

impl RetypedUse {
    /// The error, with the user shown as MLIR shows it: reading the cast MLIR puts
    /// after the new value. The IR is left that way; it is not printed after an error.
    fn report(&self, ir: &mut Ir, index: &LineIndex) -> Diagnostic {
        let from = type_to_string(ir, ir.value_type(self.new));
        let to = type_to_string(ir, self.old_type);
        let message = format!(
            "failed to legalize unresolved materialization from ('{from}') to ('{to}') that remained live after \
             conversion"
        );
        if let ValueDef::Result { op: def, .. } = ir.value(self.new).def {
            if let Some(block) = ir.op(def).parent {
                let cast = ir.create_op(
                    "builtin.unrealized_conversion_cast",
                    vec![self.new],
                    &[self.old_type],
                    self.old_location.clone(),
                );
                let ops = &ir.block(block).ops;
                match ops.iter().position(|&o| o == def).and_then(|at| ops.get(at + 1)).copied() {
                    Some(next) => ir.insert_op_before(block, next, cast),
                    None => ir.append_op(block, cast),
                }
                let cast_result = ir.op(cast).results[0];
                for v in ir.op_mut(self.user).operands.iter_mut().filter(|v| **v == self.new) {
                    *v = cast_result;
                }
            }
        }
        let user_text = spirvkit_ir::text::printer::print_op_in_scope(ir, self.user);
        Diagnostic::error(index.location_offset(&self.old_location), message).with_note(
            index.location_offset(&ir.op(self.user).location),
            format!("see existing live user here: {user_text}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::opt::{run, OptOptions};

    const RESOURCE_F32: &str =
        "!spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>";

    fn unify(source: &str) -> crate::opt::OptResult {
        let options =
            OptOptions { passes: vec!["-spirv-unify-aliased-resource".into()], ..Default::default() };
        run(source, "t.mlir", &options)
    }

    fn unified(source: &str) -> String {
        let r = unify(source);
        assert!(r.success, "{}", r.diagnostics_text);
        r.output
    }

    /// A module with two aliased resources of element types `a` and `b` (strides
    /// from their sizes) and one function `body` using them as `@a` and `@b`.
    fn module(a: (&str, u32), b: (&str, u32), signature: &str, body: &str) -> String {
        format!(
            "spirv.module Logical GLSL450 {{
  spirv.GlobalVariable @a bind(0, 1) {{aliased}} : !spirv.ptr<!spirv.struct<(!spirv.rtarray<{}, stride={}> [0])>, StorageBuffer>
  spirv.GlobalVariable @b bind(0, 1) {{aliased}} : !spirv.ptr<!spirv.struct<(!spirv.rtarray<{}, stride={}> [0])>, StorageBuffer>
  spirv.func @f{signature} \"None\" {{
{body}
  }}
}}",
            a.0, a.1, b.0, b.1
        )
    }

    fn resource(element: &str, stride: u32) -> String {
        format!("!spirv.ptr<!spirv.struct<(!spirv.rtarray<{element}, stride={stride}> [0])>, StorageBuffer>")
    }

    /// `addressof @var` and an access chain to element `%i` of it, as `%ac`.
    fn chain(var: &str, element: &str, stride: u32, pointee: &str) -> String {
        let r = resource(element, stride);
        format!(
            "    %c0 = spirv.Constant 0 : i32
    %addr = spirv.mlir.addressof @{var} : {r}
    %ac = spirv.AccessChain %addr[%c0, %i] : {r}, i32, i32 -> !spirv.ptr<{pointee}, StorageBuffer>"
        )
    }

    #[test]
    fn scalar_access_into_vector_resource_splits_the_index() {
        let body = format!(
            "{}\n    %v = spirv.Load \"StorageBuffer\" %ac [\"Aligned\", 4] : f32\n    spirv.Store \"StorageBuffer\" %ac, %v [\"Volatile\"] : f32\n    spirv.ReturnValue %v : f32",
            chain("a", "f32", 4, "f32")
        );
        let out = unified(&module(("f32", 4), ("vector<4xf32>", 16), "(%i: i32) -> f32", &body));
        let expected = "module {
  spirv.module Logical GLSL450 {
    spirv.GlobalVariable @b bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xf32>, stride=16> [0])>, StorageBuffer>
    spirv.func @f(%arg0: i32) -> f32 \"None\" {
      %cst0_i32 = spirv.Constant 0 : i32
      %b_addr = spirv.mlir.addressof @b : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xf32>, stride=16> [0])>, StorageBuffer>
      %cst4_i32 = spirv.Constant 4 : i32
      %0 = spirv.SDiv %arg0, %cst4_i32 : i32
      %1 = spirv.SMod %arg0, %cst4_i32 : i32
      %2 = spirv.AccessChain %b_addr[%cst0_i32, %0, %1] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xf32>, stride=16> [0])>, StorageBuffer>, i32, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      %3 = spirv.Load \"StorageBuffer\" %2 : f32
      spirv.Store \"StorageBuffer\" %2, %3 [\"Volatile\"] : f32
      spirv.ReturnValue %3 : f32
    }
  }
}

";
        assert_eq!(out, expected);
    }

    #[test]
    fn same_width_scalars_are_bitcast() {
        let body = format!(
            "{}\n    %v = spirv.Load \"StorageBuffer\" %ac : f32\n    spirv.Store \"StorageBuffer\" %ac, %x : f32\n    spirv.ReturnValue %v : f32",
            chain("b", "f32", 4, "f32")
        );
        let out = unified(&module(("i32", 4), ("f32", 4), "(%i: i32, %x: f32) -> f32", &body));
        assert!(out.contains("spirv.GlobalVariable @a bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>"), "{out}");
        assert!(!out.contains("@b"), "{out}");
        assert!(out.contains(
            "      %0 = spirv.AccessChain %a_addr[%cst0_i32, %arg0] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<i32, StorageBuffer>
      %1 = spirv.Load \"StorageBuffer\" %0 : i32
      %2 = spirv.Bitcast %1 : i32 to f32
      %3 = spirv.Bitcast %arg1 : f32 to i32
      spirv.Store \"StorageBuffer\" %0, %3 : i32
      spirv.ReturnValue %2 : f32"
        ), "{out}");
    }

    #[test]
    fn wider_scalar_load_is_assembled_from_narrower_ones() {
        let body = format!(
            "{}\n    %v = spirv.Load \"StorageBuffer\" %ac : i64\n    spirv.ReturnValue %v : i64",
            chain("b", "i64", 8, "i64")
        );
        let out = unified(&module(("i16", 2), ("i64", 8), "(%i: i32) -> i64", &body));
        assert!(out.contains(
            "      %cst4_i32 = spirv.Constant 4 : i32
      %0 = spirv.IMul %arg0, %cst4_i32 : i32
      %1 = spirv.AccessChain %a_addr[%cst0_i32, %0] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i16, stride=2> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<i16, StorageBuffer>
      %2 = spirv.Load \"StorageBuffer\" %1 : i16
      %cst1_i32 = spirv.Constant 1 : i32
      %3 = spirv.IAdd %0, %cst1_i32 : i32
      %4 = spirv.AccessChain %a_addr[%cst0_i32, %3] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i16, stride=2> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<i16, StorageBuffer>
      %5 = spirv.Load \"StorageBuffer\" %4 : i16
      %6 = spirv.IAdd %3, %cst1_i32 : i32
      %7 = spirv.AccessChain %a_addr[%cst0_i32, %6] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i16, stride=2> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<i16, StorageBuffer>
      %8 = spirv.Load \"StorageBuffer\" %7 : i16
      %9 = spirv.IAdd %6, %cst1_i32 : i32
      %10 = spirv.AccessChain %a_addr[%cst0_i32, %9] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i16, stride=2> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<i16, StorageBuffer>
      %11 = spirv.Load \"StorageBuffer\" %10 : i16
      %12 = spirv.CompositeConstruct %2, %5, %8, %11 : (i16, i16, i16, i16) -> vector<4xi16>
      %13 = spirv.Bitcast %12 : vector<4xi16> to i64
      spirv.ReturnValue %13 : i64"
        ), "{out}");
    }

    #[test]
    fn more_than_four_pieces_is_not_legal() {
        let body = format!(
            "{}\n    %v = spirv.Load \"StorageBuffer\" %ac : i64\n    spirv.ReturnValue %v : i64",
            chain("b", "i64", 8, "i64")
        );
        let r = unify(&module(("i8", 1), ("i64", 8), "(%i: i32) -> i64", &body));
        assert!(!r.success);
        assert_eq!(r.output, "");
        assert!(
            r.diagnostics_text.starts_with(
                "t.mlir:8:10: error: failed to legalize operation 'spirv.Load' that was explicitly marked illegal\n"
            ),
            "{}",
            r.diagnostics_text
        );
    }

    #[test]
    fn vector_load_from_vectors_of_other_elements() {
        let body = format!(
            "{}\n    %v = spirv.Load \"StorageBuffer\" %ac : vector<4xf32>\n    spirv.ReturnValue %v : vector<4xf32>",
            chain("a", "vector<4xf32>", 16, "vector<4xf32>")
        );
        let out = unified(&module(
            ("vector<4xf32>", 16),
            ("vector<4xf16>", 8),
            "(%i: i32) -> vector<4xf32>",
            &body,
        ));
        assert!(
            out.contains(
                "      %5 = spirv.Load \"StorageBuffer\" %4 : vector<4xf16>
      %6 = spirv.Bitcast %2 : vector<4xf16> to vector<2xf32>
      %7 = spirv.Bitcast %5 : vector<4xf16> to vector<2xf32>
      %8 = spirv.CompositeConstruct %6, %7 : (vector<2xf32>, vector<2xf32>) -> vector<4xf32>"
            ),
            "{out}"
        );
    }

    #[test]
    fn wider_store_is_not_legal() {
        let body = format!(
            "{}\n    spirv.Store \"StorageBuffer\" %ac, %x : i64\n    spirv.Return",
            chain("b", "i64", 8, "i64")
        );
        let r = unify(&module(("f32", 4), ("i64", 8), "(%i: i32, %x: i64)", &body));
        assert!(!r.success);
        assert!(
            r.diagnostics_text.starts_with(
                "t.mlir:8:5: error: failed to legalize operation 'spirv.Store' that was explicitly marked illegal\n"
            ),
            "{}",
            r.diagnostics_text
        );
    }

    #[test]
    fn sets_that_cannot_merge_keep_their_marks() {
        // Odd-sized vectors, and scalars narrower than the vector's elements.
        for (a, b) in [(("f32", 4), ("vector<3xf32>", 16)), (("i16", 2), ("vector<2xf32>", 8))] {
            let out = unified(&module(a, b, "()", "    spirv.Return"));
            assert_eq!(out.matches("{aliased}").count(), 2, "{out}");
        }
        // Lone resources lose the mark, whatever their type; the rest stay.
        let out = unified(&format!(
            "spirv.module Logical GLSL450 {{
  spirv.GlobalVariable @a bind(0, 1) {{aliased}} : !spirv.ptr<f32, Private>
  spirv.GlobalVariable @b {{aliased}} : {RESOURCE_F32}
  spirv.GlobalVariable @c bind(0, 2) {{aliased}} : {RESOURCE_F32}
  spirv.GlobalVariable @d bind(0, 2) : {RESOURCE_F32}
}}"
        ));
        assert!(out.contains("@a bind(0, 1) : "), "{out}");
        assert!(out.contains("@b {aliased} : "), "{out}");
        assert!(out.contains("@c bind(0, 2) : "), "{out}");
    }

    #[test]
    fn nested_chains_are_not_legal() {
        let r = resource("f32", 4);
        let body = format!(
            "    %c0 = spirv.Constant 0 : i32
    %addr = spirv.mlir.addressof @b : {r}
    %ac = spirv.AccessChain %addr[%c0] : {r}, i32 -> !spirv.ptr<!spirv.rtarray<f32, stride=4>, StorageBuffer>
    %ac2 = spirv.AccessChain %ac[%c0] : !spirv.ptr<!spirv.rtarray<f32, stride=4>, StorageBuffer>, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.Return"
        );
        let out = unify(&module(("f32", 4), ("f32", 4), "()", &body));
        assert!(!out.success);
        assert!(
            out.diagnostics_text
                .starts_with("t.mlir:8:12: error: failed to legalize operation 'spirv.AccessChain'"),
            "{}",
            out.diagnostics_text
        );
        // Scaling the struct index itself cannot build an access chain.
        let out = unify(&module(("f32", 4), ("vector<4xf32>", 16), "()", &body.replace("@b", "@a")));
        assert!(!out.success);
        assert!(out.diagnostics_text.starts_with(
            "t.mlir:7:11: error: 'spirv.AccessChain' index must be an integer spirv.Constant to access element of spirv.struct, but provided spirv.SDiv\n"
        ), "{}", out.diagnostics_text);
    }

    #[test]
    fn other_users_of_a_retyped_pointer_fail() {
        let source = format!(
            "spirv.module Logical GLSL450 {{
  spirv.GlobalVariable @a bind(0, 1) {{aliased}} : {RESOURCE_F32}
  spirv.GlobalVariable @b bind(0, 1) {{aliased}} : {v}
  spirv.func @callee(%p: {RESOURCE_F32}) \"None\" {{
    spirv.Return
  }}
  spirv.func @main() \"None\" {{
    %addr = spirv.mlir.addressof @a : {RESOURCE_F32}
    spirv.FunctionCall @callee(%addr) : ({RESOURCE_F32}) -> ()
    spirv.Return
  }}
}}",
            v = resource("vector<4xf32>", 16)
        );
        let r = unify(&source);
        assert!(!r.success);
        // As mlir-opt-22 shows the user: reading the cast put after the new value.
        assert!(
            r.diagnostics_text.contains(&format!(
                "t.mlir:9:5: note: see existing live user here: spirv.FunctionCall @callee(%0) : ({RESOURCE_F32}) -> ()\n"
            )),
            "{}",
            r.diagnostics_text
        );
        assert!(r.diagnostics_text.starts_with(&format!(
            "t.mlir:8:13: error: failed to legalize unresolved materialization from ('{}') to ('{RESOURCE_F32}') that remained live after conversion\n",
            resource("vector<4xf32>", 16)
        )), "{}", r.diagnostics_text);
    }

    #[test]
    fn entry_points_cannot_list_merged_away_resources() {
        let source = format!(
            "spirv.module Logical GLSL450 {{
  spirv.GlobalVariable @a bind(0, 1) {{aliased}} : {RESOURCE_F32}
  spirv.GlobalVariable @b bind(0, 1) {{aliased}} : {v}
  spirv.func @main() \"None\" {{
    spirv.Return
  }}
  spirv.EntryPoint \"GLCompute\" @main, @a, @b
}}",
            v = resource("vector<4xf32>", 16)
        );
        let r = unify(&source);
        assert!(!r.success);
        assert!(
            r.diagnostics_text.starts_with(
                "t.mlir:7:3: error: expected spirv.GlobalVariable symbol reference instead of'@a'\n"
            ),
            "{}",
            r.diagnostics_text
        );
    }

    #[test]
    fn wide_indices_make_invalid_adds() {
        // MLIR adds i32 offsets to i64 indices; the verifier then rejects the add.
        let r = resource("i64", 8);
        let body = format!(
            "    %c0 = spirv.Constant 0 : i64
    %addr = spirv.mlir.addressof @b : {r}
    %ac = spirv.AccessChain %addr[%c0, %i] : {r}, i64, i64 -> !spirv.ptr<i64, StorageBuffer>
    %v = spirv.Load \"StorageBuffer\" %ac : i64
    spirv.ReturnValue %v : i64"
        );
        let out = unify(&module(("f32", 4), ("i64", 8), "(%i: i64) -> i64", &body));
        assert!(!out.success);
        assert!(out.diagnostics_text.starts_with(
            "t.mlir:8:10: error: 'spirv.IAdd' op failed to verify that all of {operand1, operand2, result} have same type\n"
        ), "{}", out.diagnostics_text);
    }
}
