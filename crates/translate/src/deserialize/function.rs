//! Functions: OpFunction ... OpFunctionEnd -> `spirv.func` with a plain CFG, then
//! (optionally) structurized.

use super::ids::IdTable;
use super::{
    decoration_attr_name, dialect, enum_case_text, error, not_supported, opcode_name, set_attributes, word,
    Deserializer, ModuleValue, Result,
};
use crate::structurize::MergeInfo;
use spirvkit_binary::module::Inst;
use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_grammar::{opcode, OperandKind};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{BlockId, Location, OpId, RegionId, Value, ValueDef};
use spirvkit_ir::opdef::{
    Argument, Arity, AttrConstraint, OpDef, OpName, ATTR_CONSTRAINTS, ENUM_ATTRS, OP_DEFS,
};
use spirvkit_ir::types::{Signedness, Type, TypeKind};
use spirvkit_ir::Ir;

/// One OpPhi: the block it starts, its argument index, and its (value, predecessor) pairs.
struct Phi {
    offset: usize,
    block: BlockId,
    incoming: Vec<(u32, BlockId)>,
}

/// A branch whose successors may receive phi values once the function is complete.
struct Terminator {
    op: OpId,
    /// Operands before the successors' arguments (the condition, the selector).
    leading: Vec<Value>,
}

/// The branches whose operands say which go to which successor.
#[derive(Clone, Copy)]
enum BranchKind {
    Conditional,
    Switch,
    Other,
}

/// One block of the function being read.
struct LocalBlock {
    label: u32,
    block: BlockId,
    /// Whether its OpLabel has been seen.
    defined: bool,
    terminator: Option<Terminator>,
}

/// The state of the function being read. One is kept across functions
/// (`Deserializer::spare_function_state`) so that its tables keep their storage.
pub(super) struct FunctionState {
    func: OpId,
    region: RegionId,
    entry_label: Option<u32>,
    values: IdTable<Value>,
    /// Labels to their index in `blocks`.
    labels: IdTable<u32>,
    /// The function's blocks in the order they were created, which is their order in
    /// the region.
    blocks: Vec<LocalBlock>,
    /// The block being filled: new ops (and values materialized for them) go at its end.
    current: Option<BlockId>,
    /// The index of `current` in `blocks` (`usize::MAX` for a graph's entry block).
    current_index: usize,
    phis: Vec<Phi>,
    headers: FxHashMap<BlockId, MergeInfo>,
    /// Scratch of `finish_function`: the phis of each block (a block's phis are
    /// consecutive in `phis`: it is current for one run of instructions), and
    /// (phi, predecessor) -> incoming value.
    phi_ranges: FxHashMap<BlockId, (usize, usize)>,
    incoming: FxHashMap<(usize, BlockId), u32>,
    /// Scratch of `finish_function`: the edges each phi was given a value on.
    used_edges: Vec<usize>,
}

impl FunctionState {
    fn new(bound: u32, input_words: usize, func: OpId, region: RegionId) -> Self {
        FunctionState {
            func,
            region,
            entry_label: None,
            values: IdTable::new(bound, input_words),
            labels: IdTable::new(bound, input_words),
            blocks: Vec::new(),
            current: None,
            current_index: usize::MAX,
            phis: Vec::new(),
            headers: FxHashMap::default(),
            phi_ranges: FxHashMap::default(),
            incoming: FxHashMap::default(),
            used_edges: Vec::new(),
        }
    }
}

/// How deep spec constant operations may nest, and how many ops one use may
/// materialize (each use of an OpSpecConstantOp re-materializes its operands, so a
/// hostile DAG could otherwise blow up exponentially).
const MAX_SPEC_OPERATION_DEPTH: usize = 64;
const SPEC_OPERATION_BUDGET: usize = 4096;

/// The ops a block has room for when it is defined.
const BLOCK_OPS: usize = 16;

/// What reading an instruction of a core opcode needs of its ODS op (through
/// `OpDef::spirv_name`), worked out once rather than per instruction.
struct OpcodeInfo {
    def: &'static OpDef,
    name: OpName,
    /// The grammar's: whether the instruction has a result type and a result id.
    has_type: bool,
    has_result: bool,
    terminator: bool,
    segment_sizes: bool,
    /// How many arguments `def` has when they are all single operands (the common
    /// case, read without matching words to arguments).
    single_operands: Option<usize>,
    /// Per attribute of `def`, by the same index (`None` without a constraint).
    attrs: Vec<Option<AttrInfo>>,
}

/// How an ODS attribute is read from its word.
struct AttrInfo {
    constraint: &'static AttrConstraint,
    is_alignment: bool,
    is_type: bool,
    is_integer: bool,
    is_i32_array: bool,
    /// The enum is `MemoryAccess` (whose Aligned bit says whether an alignment follows).
    memory_access: bool,
    /// `spirv.<mnemonic>` of the enum attribute, if it has a mnemonic.
    dialect_name: Option<String>,
}

impl OpcodeInfo {
    fn new(opcode: u16, def: &'static OpDef) -> OpcodeInfo {
        let grammar = spirvkit_grammar::instruction(opcode);
        let attrs = def
            .attributes
            .iter()
            .map(|ad| {
                let constraint = ATTR_CONSTRAINTS.get(usize::from(ad.constraint))?;
                let enum_def = constraint.enum_attr.and_then(|e| ENUM_ATTRS.get(usize::from(e)));
                let storage = constraint.storage_type;
                Some(AttrInfo {
                    constraint,
                    is_alignment: storage == "::mlir::IntegerAttr" && ad.name.contains("alignment"),
                    is_type: storage == "::mlir::TypeAttr",
                    is_integer: storage == "::mlir::IntegerAttr",
                    is_i32_array: storage == "::mlir::ArrayAttr" && constraint.record == "I32ArrayAttr",
                    memory_access: enum_def.is_some_and(|e| e.enum_name == "MemoryAccess"),
                    dialect_name: enum_def.and_then(|e| e.mnemonic).map(|m| format!("spirv.{m}")),
                })
            })
            .collect();
        let single_operand = |a: &Argument| match *a {
            Argument::Operand(i) => {
                def.operands.get(usize::from(i)).is_some_and(|o| o.arity == Arity::Single)
            }
            Argument::Attribute(_) => false,
        };
        let segment_sizes = def.traits.contains(&"AttrSizedOperandSegments");
        let single_operands =
            (!segment_sizes && def.arguments.iter().all(single_operand)).then_some(def.arguments.len());
        OpcodeInfo {
            def,
            name: OpName::of_def(def),
            has_type: grammar.is_some_and(|g| g.has_result_type()),
            has_result: grammar.is_some_and(|g| g.has_result()),
            terminator: def.traits.contains(&"Terminator"),
            segment_sizes,
            single_operands,
            attrs,
        }
    }
}

/// The ODS op of each core opcode, by opcode.
fn opcode_info(op: u16) -> Option<&'static OpcodeInfo> {
    static TABLE: std::sync::OnceLock<Vec<Option<OpcodeInfo>>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table: Vec<Option<OpcodeInfo>> = Vec::new();
        for def in OP_DEFS.iter() {
            if let Some(inst) = def.spirv_name.and_then(spirvkit_grammar::instruction_by_name) {
                let at = usize::from(inst.opcode);
                if table.len() <= at {
                    table.resize_with(at + 1, || None);
                }
                // The first op of an opcode is its op.
                if let Some(slot @ None) = table.get_mut(at) {
                    *slot = Some(OpcodeInfo::new(inst.opcode, def));
                }
            }
        }
        table
    });
    table.get(usize::from(op))?.as_ref()
}

fn op_def_for_opcode(op: u16) -> Option<&'static OpDef> {
    opcode_info(op).map(|info| info.def)
}

/// An op name looked up once per process: looking a name up costs more than the rest
/// of making most ops.
macro_rules! op_name {
    ($name:expr) => {{
        static NAME: std::sync::OnceLock<OpName> = std::sync::OnceLock::new();
        NAME.get_or_init(|| OpName::new($name)).clone()
    }};
}

/// The `spirv.Constant` value of an OpConstantComposite of matrix type: MLIR 22 has
/// none, so ours is the array of its column values (`[dense<..> : vector<4xf32>, ...]`
/// with the matrix as the op's type), the form arrays of composites already take; it
/// prints and parses with the existing syntax and serializes column by column.
pub(super) fn matrix_constant(inst: &Inst, columns: u32, parts: Vec<Attribute>) -> Result<Attribute> {
    if parts.len() != columns as usize {
        return error(inst.offset, "OpConstantComposite has the wrong number of constituents");
    }
    if parts.iter().any(|column| !matches!(column, Attribute::Dense { .. })) {
        return not_supported(inst, "matrix constant of non-vector columns");
    }
    Ok(Attribute::Array(parts))
}

impl Deserializer<'_, '_> {
    /// Reads the function starting at instruction `start`; returns the index after its
    /// OpFunctionEnd.
    pub(super) fn function(&mut self, start: usize) -> Result<usize> {
        let Some(inst) = self.module.instruction(start) else { return error(0, "missing OpFunction") };
        let id = inst.result_id;
        let control = word(&inst, 3)?;
        let type_id = word(&inst, 4)?;
        let Some((params, result)) = self.function_types.get(&type_id).cloned() else {
            return error(inst.offset, format!("OpFunction type <id> {type_id} is not an OpTypeFunction"));
        };
        let declared_result = if self.void_types.contains(&inst.result_type) {
            None
        } else {
            Some(self.type_of(&inst, inst.result_type)?)
        };
        if declared_result != result {
            return error(inst.offset, "OpFunction result type does not match its function type");
        }
        let Some(control_text) = enum_case_text("FunctionControl", control) else {
            return not_supported(&inst, &format!("function control {control}"));
        };
        let symbol = self.function_symbols.get(&id).cloned().unwrap_or_else(|| format!("spirv_fn_{id}"));
        let fn_ty = self.ir.types.function(params.clone(), result.into_iter().collect());
        let func = self.ir.create_op("spirv.func", vec![], &[], Location::Unknown);
        let props = vec![
            NamedAttribute::new("function_control", dialect("spirv.function_control", &control_text)),
            NamedAttribute::new("function_type", Attribute::Type(fn_ty)),
            NamedAttribute::new("sym_name", Attribute::String(symbol.clone())),
        ];
        let decorations = self.decoration_attrs(id)?;
        set_attributes(self.ir, func, props, decorations);
        self.ir.append_op(self.module_block, func);
        let region = self.ir.add_region(func);
        let entry = self.ir.create_block();
        // The argument lists stay in the IR: exactly as long as the parameters.
        let entry_block = self.ir.block_mut(entry);
        entry_block.arguments.reserve_exact(params.len());
        entry_block.argument_locations.reserve_exact(params.len());
        let mut state = self.new_function_state(func, region, None);
        let mut param_index = 0usize;
        let mut arg_attrs: Vec<Vec<NamedAttribute>> = Vec::with_capacity(params.len());
        let count = self.module.instruction_count();
        let mut index = start + 1;
        loop {
            let Some(inst) = self.module.instruction(index) else {
                return error(self.module.words().len(), format!("function {symbol} has no OpFunctionEnd"));
            };
            index += 1;
            match inst.opcode {
                opcode::OpFunctionParameter => {
                    if state.entry_label.is_some() || param_index >= params.len() {
                        return error(inst.offset, "unexpected OpFunctionParameter");
                    }
                    let ty = self.type_of(&inst, inst.result_type)?;
                    if Some(&ty) != params.get(param_index) {
                        return error(
                            inst.offset,
                            "OpFunctionParameter type does not match the function type",
                        );
                    }
                    let arg = self.ir.add_block_argument(entry, ty, Location::Unknown);
                    state.values.insert(inst.result_id, arg);
                    arg_attrs.push(self.parameter_attrs(inst.result_id)?);
                    param_index += 1;
                }
                opcode::OpFunctionEnd => break,
                opcode::OpLabel => {
                    if state.entry_label.is_none() {
                        if param_index != params.len() {
                            return error(
                                inst.offset,
                                "function has fewer OpFunctionParameters than its type",
                            );
                        }
                        state.entry_label = Some(inst.result_id);
                        self.ir.append_block(region, entry);
                        state.labels.insert(inst.result_id, state.blocks.len() as u32);
                        state.blocks.push(LocalBlock {
                            label: inst.result_id,
                            block: entry,
                            defined: false,
                            terminator: None,
                        });
                    }
                    let (block_index, block) = self.block_index(&mut state, inst.result_id);
                    if let Some(local) = state.blocks.get_mut(block_index) {
                        if std::mem::replace(&mut local.defined, true) {
                            return error(
                                inst.offset,
                                format!("block <id> {} is defined twice", inst.result_id),
                            );
                        }
                    }
                    // Most blocks hold a few ops: room for them up front saves the
                    // first steps of growing the list.
                    self.ir.block_mut(block).ops.reserve(BLOCK_OPS);
                    // The label's OpName, which `--spirv-emit-op-names` writes back.
                    if let Some(name) = self.names.get(&inst.result_id) {
                        self.ir.set_block_name(block, name.as_str());
                    }
                    state.current = Some(block);
                    state.current_index = block_index;
                }
                _ => {
                    if state.current.is_none() {
                        return error(
                            inst.offset,
                            format!("{} outside of a block", opcode_name(inst.opcode)),
                        );
                    }
                    self.function_instruction(&mut state, &inst)?;
                    // A line applies up to the end of its block.
                    if state.current.is_none() {
                        self.line = Location::Unknown;
                    }
                }
            }
            if index >= count && inst.opcode != opcode::OpFunctionEnd {
                return error(inst.offset, format!("function {symbol} has no OpFunctionEnd"));
            }
        }
        if state.entry_label.is_none() && param_index != params.len() {
            return error(inst.offset, "function has fewer OpFunctionParameters than its type");
        }
        if arg_attrs.iter().any(|a| !a.is_empty()) {
            let attrs = Attribute::Array(arg_attrs.into_iter().map(Attribute::Dictionary).collect());
            self.ir.set_property(func, "arg_attrs", attrs);
        }
        self.finish_function(&mut state, &symbol, inst.offset)?;
        self.spare_function_state = Some(state);
        Ok(index)
    }

    /// The state for a new function (or graph), in the last one's storage.
    fn new_function_state(
        &mut self,
        func: OpId,
        region: RegionId,
        current: Option<BlockId>,
    ) -> FunctionState {
        let mut state = match self.spare_function_state.take() {
            Some(state) => state,
            None => FunctionState::new(self.module.header.bound, self.module.words().len(), func, region),
        };
        state.func = func;
        state.region = region;
        state.entry_label = None;
        state.values.clear();
        state.labels.clear();
        state.blocks.clear();
        state.current = current;
        state.current_index = usize::MAX;
        state.phis.clear();
        state.headers.clear();
        state
    }

    /// A parameter's decorations as argument attributes: the first one without a
    /// value as MLIR has it (`spirv.decoration = #spirv.decoration<Restrict>`), every
    /// other one by its decoration's snake-case name with the `spirv.` prefix and its
    /// value as on ops (`spirv.func_param_attr = "NoAlias"`,
    /// `spirv.max_byte_offset_id = 16 : i32`; a unit attribute without a value). A
    /// decoration given more than once has the array of its values.
    fn parameter_attrs(&mut self, id: u32) -> Result<Vec<NamedAttribute>> {
        let i32t = self.i32_type();
        let info = OperandKind::Decoration.info();
        let mut attrs: Vec<NamedAttribute> = Vec::new();
        for d in self.decorations.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
            let Some(enumerant) = info.enumerant(d.kind) else {
                return error(d.offset, format!("unknown decoration {} on a parameter", d.kind));
            };
            let mlir_form = d.params.is_empty()
                && enumerant.parameters.is_empty()
                && !attrs.iter().any(|a| a.name == "spirv.decoration");
            if mlir_form {
                if let Some(name) = enum_case_text("Decoration", d.kind) {
                    attrs.push(NamedAttribute::new("spirv.decoration", dialect("spirv.decoration", &name)));
                    continue;
                }
            }
            let value = self.decoration_value(d, enumerant, i32t)?;
            let name = format!("spirv.{}", decoration_attr_name(enumerant.name));
            match attrs.iter_mut().find(|a| a.name == name) {
                Some(existing) => match &mut existing.value {
                    Attribute::Array(items) => items.push(value),
                    first => *first = Attribute::Array(vec![first.clone(), value]),
                },
                None => attrs.push(NamedAttribute::new(name, value)),
            }
        }
        Ok(attrs)
    }

    /// The block of a label, created (and appended to the function) at its first reference.
    fn block_for(&mut self, state: &mut FunctionState, label: u32) -> BlockId {
        self.block_index(state, label).1
    }

    /// [`Self::block_for`], with the block's index in `state.blocks`.
    fn block_index(&mut self, state: &mut FunctionState, label: u32) -> (usize, BlockId) {
        if let Some(index) = state.labels.get(label) {
            if let Some(local) = state.blocks.get(index as usize) {
                return (index as usize, local.block);
            }
        }
        let block = self.ir.create_block();
        self.ir.append_block(state.region, block);
        let index = state.blocks.len();
        state.labels.insert(label, index as u32);
        state.blocks.push(LocalBlock { label, block, defined: false, terminator: None });
        (index, block)
    }

    /// Places `op` at the end of the current block.
    fn insert(&mut self, state: &FunctionState, op: OpId) {
        if let Some(block) = state.current {
            self.ir.append_op(block, op);
        }
    }

    /// The value of `id` for a use: a local value, or a module-level one materialized at
    /// the insertion point, as MLIR does at each use.
    #[inline]
    fn operand(&mut self, state: &FunctionState, id: u32, offset: usize) -> Result<Value> {
        if let Some(v) = state.values.get(id) {
            return Ok(v);
        }
        let mut budget = SPEC_OPERATION_BUDGET;
        self.materialize(state, id, offset, 0, &mut budget)
    }

    /// [`Self::operand`], with the depth and op budget that bound the expansion of spec
    /// constant operations (each use of one re-materializes its operands, as in MLIR).
    fn materialize(
        &mut self,
        state: &FunctionState,
        id: u32,
        offset: usize,
        depth: usize,
        budget: &mut usize,
    ) -> Result<Value> {
        if let Some(v) = state.values.get(id) {
            return Ok(v);
        }
        if self.materialized_budget == 0 {
            return error(offset, "not supported yet: this many materialized constants and phi arguments");
        }
        if depth > MAX_SPEC_OPERATION_DEPTH || *budget == 0 {
            return error(offset, "not supported yet: spec constant operations nested this deep");
        }
        *budget -= 1;
        self.materialized_budget -= 1;
        // Materialized values have no location, as in MLIR.
        let location = Location::Unknown;
        let (name, ty, props) = match self.module_values.get(&id) {
            Some(ModuleValue::Constant(c)) => {
                let name = if c.replicate {
                    op_name!("spirv.EXT.ConstantCompositeReplicate")
                } else {
                    op_name!("spirv.Constant")
                };
                (name, c.ty, vec![NamedAttribute::new("value", c.value.clone())])
            }
            Some(ModuleValue::GraphConstant { ty, id: constant_id }) => {
                let i32t = self.ir.types.integer(32, Signedness::Signless);
                let value = Attribute::Integer { value: i128::from(*constant_id as i32), ty: i32t };
                (
                    op_name!("spirv.ARM.GraphConstant"),
                    *ty,
                    vec![NamedAttribute::new("graph_constant_id", value)],
                )
            }
            Some(ModuleValue::SpecOperation { offset: def_offset, ty, opcode: inner, operands }) => {
                let (def_offset, ty, inner, operands) = (*def_offset, *ty, *inner, operands.clone());
                return self.spec_operation(state, def_offset, ty, inner, &operands, depth, budget);
            }
            Some(ModuleValue::Undef(ty)) => (op_name!("spirv.Undef"), *ty, Vec::new()),
            Some(ModuleValue::SizeOf { .. }) => {
                return error(offset, format!("not supported yet: OpConstantSizeOfEXT <id> {id} as a value"))
            }
            Some(ModuleValue::Global { symbol, ty }) => (
                op_name!("spirv.mlir.addressof"),
                *ty,
                vec![NamedAttribute::new("variable", Attribute::SymbolRef(vec![symbol.clone()]))],
            ),
            Some(ModuleValue::SpecConstant { symbol, ty }) => (
                op_name!("spirv.mlir.referenceof"),
                *ty,
                vec![NamedAttribute::new("spec_const", Attribute::SymbolRef(vec![symbol.clone()]))],
            ),
            None => return error(offset, format!("use of undefined <id> {id}")),
        };
        let op = self.ir.create_op(name, vec![], &[ty], location);
        self.ir.op_mut(op).properties = props;
        self.insert(state, op);
        Ok(self.ir.op(op).results[0])
    }

    /// `spirv.SpecConstantOperation wraps "spirv.X"(...)` for an OpSpecConstantOp.
    #[allow(clippy::too_many_arguments)]
    fn spec_operation(
        &mut self,
        state: &FunctionState,
        offset: usize,
        ty: Type,
        inner: u16,
        words: &[u32],
        depth: usize,
        budget: &mut usize,
    ) -> Result<Value> {
        let Some(def) = op_def_for_opcode(inner) else {
            return error(offset, format!("not supported yet: OpSpecConstantOp {}", opcode_name(inner)));
        };
        let (id_count, has_indices) = match inner {
            opcode::OpCompositeExtract => (1, true),
            opcode::OpCompositeInsert => (2, true),
            _ if def.attributes.is_empty() && def.regions.is_empty() && def.successors.is_empty() => {
                (words.len(), false)
            }
            _ => return error(offset, format!("not supported yet: OpSpecConstantOp {}", opcode_name(inner))),
        };
        let Some(ids) = words.get(..id_count) else {
            return error(offset, "OpSpecConstantOp is missing operands");
        };
        let mut operands = Vec::with_capacity(ids.len());
        for &id in ids {
            operands.push(self.materialize(state, id, offset, depth + 1, budget)?);
        }
        // Mixed signedness is bridged as in a function body, by a marked bitcast; here
        // a spec constant operation itself, as the wrapped op's operands must be.
        let types: Vec<Type> = operands.iter().map(|&v| self.ir.value_type(v)).collect();
        for (position, target) in crate::signedness::bridges(&self.ir.types, def, &types, Some(ty)) {
            let cast = self.ir.create_op(
                op_name!("spirv.Bitcast"),
                vec![operands[position]],
                &[target],
                Location::Unknown,
            );
            self.ir.op_mut(cast).attributes.push(crate::signedness::marker());
            operands[position] = self.wrap_spec_operation(state, cast, target);
        }
        let inner_op = self.ir.create_op(OpName::of_def(def), operands, &[ty], Location::Unknown);
        if has_indices {
            let i32t = self.i32_type();
            let indices = words
                .get(id_count..)
                .unwrap_or(&[])
                .iter()
                .map(|&w| Attribute::Integer { value: i128::from(w as i32), ty: i32t })
                .collect();
            self.ir.op_mut(inner_op).properties =
                vec![NamedAttribute::new("indices", Attribute::Array(indices))];
        }
        Ok(self.wrap_spec_operation(state, inner_op, ty))
    }

    /// `spirv.SpecConstantOperation wraps` `inner_op` (of result type `ty`), inserted
    /// at the insertion point; its result.
    fn wrap_spec_operation(&mut self, state: &FunctionState, inner_op: OpId, ty: Type) -> Value {
        let location = Location::Unknown;
        let wrapper = self.ir.create_op("spirv.SpecConstantOperation", vec![], &[ty], location.clone());
        let region = self.ir.add_region(wrapper);
        let block = self.ir.create_block();
        self.ir.append_block(region, block);
        self.ir.append_op(block, inner_op);
        let result = self.ir.op(inner_op).results[0];
        let yield_op = self.ir.create_op("spirv.mlir.yield", vec![result], &[], location);
        self.ir.append_op(block, yield_op);
        self.insert(state, wrapper);
        self.ir.op(wrapper).results[0]
    }

    fn operands(&mut self, state: &FunctionState, ids: &[u32], offset: usize) -> Result<Vec<Value>> {
        let mut values = Vec::with_capacity(ids.len());
        for &id in ids {
            values.push(self.operand(state, id, offset)?);
        }
        Ok(values)
    }

    /// Creates an op at the insertion point, maps its result and applies the result's
    /// decorations.
    fn emit(
        &mut self,
        state: &mut FunctionState,
        inst: &Inst,
        name: OpName,
        operands: Vec<Value>,
        result: Option<Type>,
        props: Vec<NamedAttribute>,
    ) -> Result<OpId> {
        let op = self.ir.create_op(name, operands, result.as_slice(), self.line.clone());
        let decorations =
            if inst.result_id != 0 { self.decoration_attrs(inst.result_id)? } else { Vec::new() };
        set_attributes(self.ir, op, props, decorations);
        self.insert(state, op);
        if inst.result_id != 0 {
            if let Some(&v) = self.ir.op(op).results.first() {
                state.values.insert(inst.result_id, v);
            }
        }
        Ok(op)
    }

    /// The result type of an instruction that must have one.
    fn result_type(&self, inst: &Inst) -> Result<Type> {
        self.type_of(inst, inst.result_type)
    }

    fn label(&mut self, state: &mut FunctionState, inst: &Inst, index: usize) -> Result<BlockId> {
        let label = word(inst, index)?;
        if Some(label) == state.entry_label {
            return not_supported(inst, "branch to the entry block");
        }
        Ok(self.block_for(state, label))
    }

    fn function_instruction(&mut self, state: &mut FunctionState, inst: &Inst) -> Result<()> {
        let words = inst.words;
        match inst.opcode {
            opcode::OpLine | opcode::OpNoLine => self.debug_line(inst)?,
            opcode::OpNop => {}
            opcode::OpPhi => {
                let Some(block) = state.current else {
                    return error(inst.offset, "OpPhi outside of a block");
                };
                let ty = self.result_type(inst)?;
                let arguments = &mut self.ir.block_mut(block).arguments;
                if arguments.is_empty() {
                    // Most blocks have one phi: room for it alone (a Vec's first
                    // growth makes room for four), which the IR keeps.
                    arguments.reserve_exact(1);
                    self.ir.block_mut(block).argument_locations.reserve_exact(1);
                }
                let arg = self.ir.add_block_argument(block, ty, Location::Unknown);
                state.values.insert(inst.result_id, arg);
                let mut incoming = Vec::new();
                for pair in words.get(3..).unwrap_or(&[]).chunks(2) {
                    let [value, pred] = *pair else {
                        return error(inst.offset, "OpPhi has an odd number of operands");
                    };
                    let pred_block = self.block_for(state, pred);
                    incoming.push((value, pred_block));
                }
                state.phis.push(Phi { offset: inst.offset, block, incoming });
            }
            opcode::OpSelectionMerge => {
                let merge = self.label(state, inst, 1)?;
                let control = word(inst, 2)?;
                self.record_header(state, inst, MergeInfo::Selection { merge, control })?;
            }
            opcode::OpLoopMerge => {
                let merge = self.label(state, inst, 1)?;
                let continue_target = self.label(state, inst, 2)?;
                let control = word(inst, 3)?;
                let parameters = words.get(4..).unwrap_or(&[]).to_vec();
                self.record_header(
                    state,
                    inst,
                    MergeInfo::Loop { merge, continue_target, control, parameters },
                )?;
            }
            opcode::OpBranch => {
                let target = self.label(state, inst, 1)?;
                let op = self.emit(state, inst, op_name!("spirv.Branch"), vec![], None, vec![])?;
                self.ir.op_mut(op).successors = spirvkit_ir::ir::thin_vec![target];
                self.end_block(state, op, vec![]);
            }
            opcode::OpBranchConditional => {
                let condition = self.operand(state, word(inst, 1)?, inst.offset)?;
                let on_true = self.label(state, inst, 2)?;
                let on_false = self.label(state, inst, 3)?;
                let weights = words.get(4..).unwrap_or(&[]);
                // The properties stay in the IR: room for them alone.
                let mut props = Vec::with_capacity(1 + usize::from(weights.len() == 2));
                if let [t, f] = weights {
                    let i32t = self.i32_type();
                    props.push(NamedAttribute::new(
                        "branch_weights",
                        Attribute::Array(vec![
                            Attribute::Integer { value: i128::from(*t), ty: i32t },
                            Attribute::Integer { value: i128::from(*f), ty: i32t },
                        ]),
                    ));
                }
                // No successor arguments yet: `finish_function` sets the counts of any.
                props.push(self.branch_segment_sizes(0, 0));
                let op = self.emit(
                    state,
                    inst,
                    op_name!("spirv.BranchConditional"),
                    vec![condition],
                    None,
                    props,
                )?;
                self.ir.op_mut(op).successors = spirvkit_ir::ir::thin_vec![on_true, on_false];
                self.end_block(state, op, vec![condition]);
            }
            opcode::OpSwitch => self.switch(state, inst)?,
            opcode::OpReturn | opcode::OpUnreachable | opcode::OpKill | opcode::OpReturnValue => {
                let Some(info) = opcode_info(inst.opcode) else {
                    return not_supported(inst, &opcode_name(inst.opcode));
                };
                let operands = self.operands(state, words.get(1..).unwrap_or(&[]), inst.offset)?;
                self.emit(state, inst, info.name.clone(), operands, None, vec![])?;
                state.current = None;
            }
            opcode::OpVariable => {
                let ty = self.result_type(inst)?;
                let class = word(inst, 3)?;
                let Some(storage) = self.storage_class_attr(class) else {
                    return not_supported(inst, &format!("storage class {class}"));
                };
                let operands = self.operands(state, words.get(4..).unwrap_or(&[]), inst.offset)?;
                self.emit(
                    state,
                    inst,
                    op_name!("spirv.Variable"),
                    operands,
                    Some(ty),
                    vec![NamedAttribute::new("storage_class", storage)],
                )?;
            }
            opcode::OpUndef => {
                let ty = self.result_type(inst)?;
                self.emit(state, inst, op_name!("spirv.Undef"), vec![], Some(ty), vec![])?;
            }
            opcode::OpFunctionCall => {
                let callee = word(inst, 3)?;
                let Some(symbol) = self.function_symbols.get(&callee).cloned() else {
                    return error(
                        inst.offset,
                        format!("OpFunctionCall callee <id> {callee} is not a function"),
                    );
                };
                let result = if self.void_types.contains(&inst.result_type) {
                    None
                } else {
                    Some(self.result_type(inst)?)
                };
                let operands = self.operands(state, words.get(4..).unwrap_or(&[]), inst.offset)?;
                let props = vec![NamedAttribute::new("callee", Attribute::SymbolRef(vec![symbol]))];
                let call = self.emit(state, inst, op_name!("spirv.FunctionCall"), operands, result, props)?;
                // mlir-translate locates calls nowhere, whatever OpLine says.
                self.ir.op_mut(call).location = Location::Unknown;
            }
            opcode::OpExtInst | opcode::OpExtInstWithForwardRefsKHR => self.ext_inst(state, inst)?,
            opcode::OpGenericCastToPtrExplicit => {
                // The storage class operand is the result type's; MLIR keeps only the type.
                let ty = self.result_type(inst)?;
                let pointer = self.operand(state, word(inst, 3)?, inst.offset)?;
                self.emit(
                    state,
                    inst,
                    op_name!("spirv.GenericCastToPtrExplicit"),
                    vec![pointer],
                    Some(ty),
                    vec![],
                )?;
            }
            opcode::OpCompositeExtract | opcode::OpCompositeInsert => {
                let ty = self.result_type(inst)?;
                let value_count = if inst.opcode == opcode::OpCompositeExtract { 1 } else { 2 };
                let ids = words.get(3..3 + value_count).unwrap_or(&[]);
                if ids.len() != value_count {
                    return error(inst.offset, format!("{} is missing operands", opcode_name(inst.opcode)));
                }
                let operands = self.operands(state, ids, inst.offset)?;
                let i32t = self.i32_type();
                let indices = words
                    .get(3 + value_count..)
                    .unwrap_or(&[])
                    .iter()
                    .map(|&w| Attribute::Integer { value: i128::from(w as i32), ty: i32t })
                    .collect();
                let name = if inst.opcode == opcode::OpCompositeExtract {
                    op_name!("spirv.CompositeExtract")
                } else {
                    op_name!("spirv.CompositeInsert")
                };
                self.emit(
                    state,
                    inst,
                    name,
                    operands,
                    Some(ty),
                    vec![NamedAttribute::new("indices", Attribute::Array(indices))],
                )?;
            }
            op => match opcode_info(op) {
                Some(info) if info.def.successors.is_empty() && info.def.regions.is_empty() => {
                    self.generic(state, inst, info)?
                }
                Some(_) => return not_supported(inst, &opcode_name(op)),
                None => match crate::fallback::fallback_op_name(op) {
                    Some(name) => self.fallback(state, inst, &name)?,
                    None => return not_supported(inst, &opcode_name(op)),
                },
            },
        }
        Ok(())
    }

    fn record_header(&mut self, state: &mut FunctionState, inst: &Inst, info: MergeInfo) -> Result<()> {
        let Some(block) = state.current else {
            return error(inst.offset, "merge instruction outside of a block");
        };
        if state.headers.insert(block, info).is_some() {
            return error(inst.offset, "block has two merge instructions");
        }
        Ok(())
    }

    /// Records a branch (its phi arguments come later) and closes the block.
    fn end_block(&mut self, state: &mut FunctionState, op: OpId, leading: Vec<Value>) {
        if state.current.take().is_some() {
            if let Some(local) = state.blocks.get_mut(state.current_index) {
                local.terminator = Some(Terminator { op, leading });
            }
        }
    }

    fn switch(&mut self, state: &mut FunctionState, inst: &Inst) -> Result<()> {
        let selector_id = word(inst, 1)?;
        let selector = self.operand(state, selector_id, inst.offset)?;
        let selector_ty = self.ir.value_type(selector);
        if !matches!(self.ir.types.kind(selector_ty), TypeKind::Integer { .. }) {
            return error(inst.offset, "OpSwitch selector is not an integer");
        }
        let default = self.label(state, inst, 2)?;
        let mut successors = vec![default];
        let mut literals = Vec::new();
        let rest = inst.operands.get(2..).unwrap_or(&[]);
        for pair in rest.chunks(2) {
            let [literal, target] = pair else { return error(inst.offset, "OpSwitch case without a target") };
            let lw = inst.operand_words(literal);
            let bits = match lw {
                [lo] => u64::from(*lo),
                [lo, hi] => u64::from(*lo) | (u64::from(*hi) << 32),
                _ => return error(inst.offset, "OpSwitch literal of an unexpected size"),
            };
            let value = self.ir.types.normalize_integer(i128::from(bits), selector_ty);
            literals.push(Attribute::Integer { value, ty: selector_ty });
            let label = inst.operand_words(target).first().copied().unwrap_or(0);
            if Some(label) == state.entry_label {
                return not_supported(inst, "branch to the entry block");
            }
            successors.push(self.block_for(state, label));
        }
        let i32t = self.i32_type();
        // The properties stay in the IR: room for the three alone.
        let mut props = Vec::with_capacity(3);
        props.push(NamedAttribute::new(
            "case_operand_segments",
            Attribute::DenseArray {
                element: i32t,
                values: vec![Attribute::Integer { value: 0, ty: i32t }; literals.len()],
            },
        ));
        if !literals.is_empty() {
            let literals_ty = self.ir.types.vector(literals.len() as u64, selector_ty);
            props.push(NamedAttribute::new(
                "literals",
                Attribute::Dense { elements: literals, ty: literals_ty },
            ));
        }
        // No successor arguments yet: `finish_function` sets the counts of any.
        props.push(self.branch_segment_sizes(0, 0));
        let op = self.emit(state, inst, op_name!("spirv.Switch"), vec![selector], None, props)?;
        self.ir.op_mut(op).successors = successors.into();
        self.end_block(state, op, vec![selector]);
        Ok(())
    }

    /// OpExtInst of GLSL.std.450 or OpenCL.std -> `spirv.GL.*`/`spirv.CL.*`; of any
    /// other set, the generic `spirv.ExtInst`.
    fn ext_inst(&mut self, state: &mut FunctionState, inst: &Inst) -> Result<()> {
        let set = word(inst, 3)?;
        let number = word(inst, 4)?;
        let prefix = match self.ext_imports.get(&set) {
            Some(None) => return self.generic_ext_inst(state, inst),
            // Only non-semantic sets may refer forward.
            Some(Some(_)) if inst.opcode == opcode::OpExtInstWithForwardRefsKHR => {
                return not_supported(inst, "OpExtInstWithForwardRefsKHR of a semantic instruction set")
            }
            Some(Some(prefix)) => *prefix,
            None => return error(inst.offset, format!("OpExtInst set <id> {set} is not an OpExtInstImport")),
        };
        let Some(ext) = inst.ext_set.set().and_then(|s| s.instruction(number)) else {
            return not_supported(inst, &format!("extended instruction {number}"));
        };
        let name = format!("spirv.{prefix}.{}", ext.name);
        let Some(def) = spirvkit_ir::opdef::op_def(&name) else {
            // An instruction of the set the dialect lacks: the generic fallback op.
            let import = if prefix == "GL" { "GLSL.std.450" } else { "OpenCL.std" };
            return match crate::fallback::fallback_ext_op_name(import, number) {
                Some(fallback) => self.fallback(state, inst, &fallback),
                None => not_supported(inst, &format!("OpExtInst {}", ext.name)),
            };
        };
        let ty = self.result_type(inst)?;
        let ids = words_from(inst, 5);
        if def.operands.iter().all(|o| o.arity == Arity::Single) && ids.len() != def.operands.len() {
            return error(inst.offset, format!("{name} expects {} operands", def.operands.len()));
        }
        let operands = self.operands(state, ids, inst.offset)?;
        let result = if def.results.is_empty() { None } else { Some(ty) };
        self.emit(state, inst, OpName::of_def(def), operands, result, vec![])?;
        Ok(())
    }

    /// `spirv.ExtInst` (see `crate::fallback`): ids that are values as operands, the
    /// others (strings, types, functions, module-level extended instructions) and the
    /// literals in `literals`; a void result is a `none` value.
    fn generic_ext_inst(&mut self, state: &mut FunctionState, inst: &Inst) -> Result<()> {
        let mut attrs = self.ext_inst_attrs(inst)?;
        let none = self.ir.types.intern(TypeKind::None);
        let result = if self.void_types.contains(&inst.result_type) { none } else { self.result_type(inst)? };
        let i32_type = self.i32_type();
        let (ids, literals) =
            crate::fallback::split_operands_with(inst, i32_type, |id| self.ext_id_reference(id, none, false));
        attrs.extend(literals);
        attrs.extend(self.decoration_attrs(inst.result_id)?);
        let operands = self.operands(state, &ids, inst.offset)?;
        let op = self.ir.create_op(crate::fallback::EXT_INST_OP, operands, &[result], self.line.clone());
        set_attributes(self.ir, op, Vec::new(), attrs);
        self.insert(state, op);
        if let Some(&v) = self.ir.op(op).results.first() {
            state.values.insert(inst.result_id, v);
        }
        Ok(())
    }

    /// An instruction the dialect has no op for, as the serializer's fallback encoding
    /// holds it (`crate::fallback`): `spirv.<Name>` with its ids as operands and its other
    /// operands in discardable attributes, printed in the generic form.
    fn fallback(&mut self, state: &mut FunctionState, inst: &Inst, name: &str) -> Result<()> {
        let grammar = inst.grammar();
        let result =
            if grammar.is_some_and(|g| g.has_result_type()) && !self.void_types.contains(&inst.result_type) {
                Some(self.result_type(inst)?)
            } else {
                None
            };
        let (ids, attrs) = crate::fallback::split_operands(inst, &mut self.ir.types, &self.types);
        let operands = self.operands(state, &ids, inst.offset)?;
        let op =
            self.ir.create_op(name, operands, &result.into_iter().collect::<Vec<_>>(), self.line.clone());
        let mut discardable = attrs;
        if inst.result_id != 0 {
            discardable.extend(self.decoration_attrs(inst.result_id)?);
        }
        set_attributes(self.ir, op, Vec::new(), discardable);
        self.insert(state, op);
        if let Some(&v) = self.ir.op(op).results.first() {
            state.values.insert(inst.result_id, v);
        }
        // The termination instructions the dialect lacks end their block here too.
        if matches!(
            inst.opcode,
            opcode::OpTerminateInvocation | opcode::OpIgnoreIntersectionKHR | opcode::OpTerminateRayKHR
        ) {
            state.current = None;
        }
        Ok(())
    }

    /// An instruction whose operands follow its op's ODS arguments in order.
    fn generic(&mut self, state: &mut FunctionState, inst: &Inst, info: &'static OpcodeInfo) -> Result<()> {
        let def = info.def;
        let (has_type, has_result) = (info.has_type, info.has_result);
        let words = inst.words;
        let mut pos = 1 + usize::from(has_type) + usize::from(has_result);
        let mut operands = Vec::with_capacity(words.len().saturating_sub(pos));
        // Only the ops with segments need their sizes.
        let mut segment_sizes = Vec::new();
        let mut props = Vec::new();
        // The properties stay in the IR: at the first, room for as many as the op can
        // have (a Vec's first growth makes room for four).
        let props_room = def.attributes.len() + usize::from(info.segment_sizes);
        // An alignment follows a memory access only when it has the Aligned bit.
        let mut skip_alignment = false;
        let only_operands = info.single_operands.is_some_and(|n| words.len().checked_sub(pos) == Some(n));
        if only_operands {
            // Every argument is one operand and every word is there: no matching needed.
            for &id in words.get(pos..).unwrap_or(&[]) {
                operands.push(self.operand(state, id, inst.offset)?);
            }
            pos = words.len();
        }
        for argument in def.arguments.iter().filter(|_| !only_operands) {
            match *argument {
                Argument::Operand(i) => {
                    let Some(od) = def.operands.get(usize::from(i)) else { continue };
                    let take = match od.arity {
                        Arity::Single => {
                            if pos >= words.len() {
                                return error(
                                    inst.offset,
                                    format!("{} is missing operand {}", opcode_name(inst.opcode), od.name),
                                );
                            }
                            1
                        }
                        Arity::Optional => usize::from(pos < words.len()),
                        Arity::Variadic => words.len().saturating_sub(pos),
                    };
                    let ids = words.get(pos..pos + take).unwrap_or(&[]);
                    for &id in ids {
                        operands.push(self.operand(state, id, inst.offset)?);
                    }
                    if info.segment_sizes {
                        segment_sizes.push(take);
                    }
                    pos += take;
                }
                Argument::Attribute(i) => {
                    let Some(ad) = def.attributes.get(usize::from(i)) else { continue };
                    let Some(Some(ai)) = info.attrs.get(usize::from(i)) else { continue };
                    let constraint = ai.constraint;
                    if ai.is_alignment && skip_alignment {
                        skip_alignment = false;
                        continue;
                    }
                    let Some(&word_value) = words.get(pos) else {
                        if constraint.optional || constraint.default_value.is_some() {
                            continue;
                        }
                        return error(
                            inst.offset,
                            format!("{} is missing its {} operand", opcode_name(inst.opcode), ad.name),
                        );
                    };
                    // Scopes and memory semantics are ids of integer constants.
                    let is_id = inst.operands.iter().any(|o| {
                        usize::from(o.offset) == pos
                            && matches!(
                                o.kind,
                                OperandKind::IdScope | OperandKind::IdMemorySemantics | OperandKind::IdRef
                            )
                    });
                    let is_type = ai.is_type;
                    let value =
                        if is_id && !is_type { self.constant_word(inst, word_value)? } else { word_value };
                    let attr = if let Some(e) = constraint.enum_attr {
                        let Some(enum_def) = spirvkit_ir::opdef::ENUM_ATTRS.get(usize::from(e)) else {
                            continue;
                        };
                        let Some(text) = super::enum_text(enum_def, value) else {
                            return error(
                                inst.offset,
                                format!("invalid {} value {value}", enum_def.enum_name),
                            );
                        };
                        if ai.memory_access {
                            skip_alignment = value & 0x2 == 0;
                        }
                        let Some(dialect_name) = &ai.dialect_name else {
                            return not_supported(inst, enum_def.enum_name);
                        };
                        pos += 1;
                        Attribute::Dialect { name: dialect_name.clone(), body: Some(text) }
                    } else if ai.is_i32_array {
                        // Literal lists (`components`) take the remaining words.
                        let i32t = self.i32_type();
                        let rest = words.get(pos..).unwrap_or(&[]);
                        pos = words.len();
                        Attribute::Array(
                            rest.iter()
                                .map(|&w| Attribute::Integer { value: i128::from(w as i32), ty: i32t })
                                .collect(),
                        )
                    } else if is_type {
                        pos += 1;
                        Attribute::Type(self.type_of(inst, word_value)?)
                    } else if ai.is_integer {
                        pos += 1;
                        let i32t = self.i32_type();
                        Attribute::Integer { value: i128::from(value as i32), ty: i32t }
                    } else {
                        return not_supported(
                            inst,
                            &format!("{} operand {}", opcode_name(inst.opcode), ad.name),
                        );
                    };
                    if props.capacity() == 0 {
                        props.reserve_exact(props_room);
                    }
                    props.push(NamedAttribute::new(ad.name, attr));
                }
            }
        }
        if pos < words.len() {
            return not_supported(inst, &format!("{} with these operands", opcode_name(inst.opcode)));
        }
        if info.segment_sizes {
            let i32t = self.i32_type();
            let values =
                segment_sizes.iter().map(|&n| Attribute::Integer { value: n as i128, ty: i32t }).collect();
            if props.capacity() == 0 {
                props.reserve_exact(props_room);
            }
            props.push(NamedAttribute::new(
                "operandSegmentSizes",
                Attribute::DenseArray { element: i32t, values },
            ));
        }
        let result = match (def.results.is_empty(), has_type && has_result) {
            (true, false) => None,
            (false, true) => Some(self.result_type(inst)?),
            _ => return not_supported(inst, &format!("{} with this result", opcode_name(inst.opcode))),
        };
        self.match_signedness(state, def, &mut operands, result);
        self.emit(state, inst, info.name.clone(), operands, result, props)?;
        if info.terminator {
            state.current = None;
        }
        Ok(())
    }

    /// Bitcasts the integer operands that differ from their type group's only in
    /// signedness (which SPIR-V allows and the dialect's ODS does not) to the group's
    /// type: the result's when it is in the group, else the first operand's.
    fn match_signedness(
        &mut self,
        state: &FunctionState,
        def: &'static OpDef,
        operands: &mut [Value],
        result: Option<Type>,
    ) {
        let types: Vec<Type> = operands.iter().map(|&v| self.ir.value_type(v)).collect();
        for (position, target) in crate::signedness::bridges(&self.ir.types, def, &types, result) {
            let cast = self.ir.create_op(
                op_name!("spirv.Bitcast"),
                vec![operands[position]],
                &[target],
                self.line.clone(),
            );
            self.ir.op_mut(cast).attributes.push(crate::signedness::marker());
            self.insert(state, cast);
            operands[position] = self.ir.op(cast).results[0];
        }
    }

    /// `operandSegmentSizes` of a conditional branch or switch: the condition or
    /// selector, then the arguments of the first successor and of the others.
    fn branch_segment_sizes(&mut self, first: usize, others: usize) -> NamedAttribute {
        let i32t = self.i32_type();
        let count = |n: usize| Attribute::Integer { value: n as i128, ty: i32t };
        NamedAttribute::new(
            "operandSegmentSizes",
            Attribute::DenseArray { element: i32t, values: vec![count(1), count(first), count(others)] },
        )
    }

    /// Sets the segment sizes of a branch given `sizes`, the argument count of each
    /// successor.
    fn set_successor_segments(&mut self, term_op: OpId, kind: BranchKind, sizes: &[usize]) {
        let i32t = self.i32_type();
        let count = |n: usize| Attribute::Integer { value: n as i128, ty: i32t };
        let first = sizes.first().copied().unwrap_or(0);
        match kind {
            BranchKind::Conditional => {
                let sizes_attr = self.branch_segment_sizes(first, sizes.get(1).copied().unwrap_or(0));
                self.ir.set_property(term_op, "operandSegmentSizes", sizes_attr.value);
            }
            BranchKind::Switch => {
                let cases: usize = sizes.iter().skip(1).sum();
                let segments = Attribute::DenseArray {
                    element: i32t,
                    values: sizes.iter().skip(1).map(|&n| count(n)).collect(),
                };
                self.ir.set_property(term_op, "case_operand_segments", segments);
                let sizes_attr = self.branch_segment_sizes(first, cases);
                self.ir.set_property(term_op, "operandSegmentSizes", sizes_attr.value);
            }
            BranchKind::Other => {}
        }
    }

    /// The value of a 32-bit integer constant operand (a scope, memory semantics).
    fn constant_word(&self, inst: &Inst, id: u32) -> Result<u32> {
        match self.module_values.get(&id) {
            Some(ModuleValue::Constant(super::Constant {
                value: Attribute::Integer { value, .. }, ..
            })) => Ok(*value as u32),
            _ => not_supported(
                inst,
                &format!("{} operand <id> {id} that is not an integer constant", opcode_name(inst.opcode)),
            ),
        }
    }

    /// Passes phi values along the branches, checks every block was defined and
    /// terminated, and structurizes.
    fn finish_function(&mut self, state: &mut FunctionState, symbol: &str, end_offset: usize) -> Result<()> {
        if state.entry_label.is_none() {
            return Ok(());
        }
        if state.current.is_some() {
            return error(end_offset, format!("last block of function {symbol} has no terminator"));
        }
        if let Some(undefined) = state.blocks.iter().find(|b| !b.defined) {
            return error(
                end_offset,
                format!("function {symbol} refers to undefined block <id> {}", undefined.label),
            );
        }
        state.phi_ranges.clear();
        state.incoming.clear();
        let mut run_start = 0;
        for (i, phi) in state.phis.iter().enumerate() {
            if state.phis.get(i + 1).is_none_or(|next| next.block != phi.block) {
                state.phi_ranges.insert(phi.block, (run_start, i + 1));
                run_start = i + 1;
            }
            // (phi, predecessor) -> incoming value; the first pair wins.
            for &(value, pred) in &phi.incoming {
                state.incoming.entry((i, pred)).or_insert(value);
            }
        }
        let mut used_edges = std::mem::take(&mut state.used_edges);
        used_edges.clear();
        used_edges.resize(state.phis.len(), 0);
        for block_index in 0..state.blocks.len() {
            let Some(local) = state.blocks.get_mut(block_index) else { continue };
            let Some(term) = local.terminator.take() else { continue };
            let block = local.block;
            let term_op = term.op;
            let phi_range = |target: &BlockId| state.phi_ranges.get(target).copied().unwrap_or((0, 0));
            let passes_values = !state.phi_ranges.is_empty()
                && self.ir.op(term_op).successors.iter().any(|t| phi_range(t).0 < phi_range(t).1);
            if passes_values {
                let kind = match self.ir.op(term_op).name.as_str() {
                    "spirv.BranchConditional" => BranchKind::Conditional,
                    "spirv.Switch" => BranchKind::Switch,
                    _ => BranchKind::Other,
                };
                let mut sizes = vec![0usize; self.ir.op(term_op).successors.len()];
                let mut operands = term.leading;
                // Values materialized for the arguments go before the branch: it is taken
                // out and put back after them (inserting before it would rescan the block).
                self.ir.erase_op(term_op);
                state.current = Some(block);
                for (k, size) in sizes.iter_mut().enumerate() {
                    let Some(&target) = self.ir.op(term_op).successors.get(k) else { break };
                    let (first, end) = state.phi_ranges.get(&target).copied().unwrap_or((0, 0));
                    for phi_index in first..end {
                        let Some(phi) = state.phis.get(phi_index) else { continue };
                        let Some(&value) = state.incoming.get(&(phi_index, block)) else {
                            return error(
                                phi.offset,
                                "OpPhi has no incoming value for one of its predecessors",
                            );
                        };
                        let offset = phi.offset;
                        if self.materialized_budget == 0 {
                            return error(
                                offset,
                                "not supported yet: this many materialized constants and phi arguments",
                            );
                        }
                        self.materialized_budget -= 1;
                        operands.push(self.operand(state, value, offset)?);
                        if let Some(used) = used_edges.get_mut(phi_index) {
                            *used += 1;
                        }
                        *size += 1;
                    }
                }
                state.current = None;
                self.ir.append_op(block, term_op);
                self.ir.op_mut(term_op).operands = operands;
                self.set_successor_segments(term_op, kind, &sizes);
            }
            // Otherwise the branch keeps its operands (the leading ones), its place and
            // the segment sizes it was made with (no arguments).
        }
        for (phi, &used) in state.phis.iter().zip(&used_edges) {
            if used < phi.incoming.len() {
                return error(phi.offset, "OpPhi names a block that is not a predecessor");
            }
        }
        state.used_edges = used_edges;
        self.check_dominance(state, symbol, end_offset)?;
        if self.options.structurize && !state.headers.is_empty() {
            crate::structurize::structurize(self.ir, state.func, &state.headers).map_err(|e| {
                super::DeserializeError {
                    offset: end_offset,
                    message: format!("failed to structurize function {symbol}: {}", e.message),
                }
            })?;
        }
        Ok(())
    }
}

impl Deserializer<'_, '_> {
    /// Refuses a use its definition does not dominate (an OpPhi's value: the edge's
    /// block), as spirv-val does: both blocks reachable from the entry. The structurizer
    /// would otherwise thread the value out of a construct with a `spirv.Undef` on the
    /// paths that do not define it, silently giving invalid input a meaning. Uses in
    /// their definition's block are in order by construction (a later id is not
    /// defined yet), so only uses across blocks are judged.
    fn check_dominance(&self, state: &FunctionState, symbol: &str, end_offset: usize) -> Result<()> {
        if state.blocks.len() < 2 {
            return Ok(());
        }
        let ir: &Ir = self.ir;
        let mut dominance = spirvkit_ir::dominance::Dominance::default();
        for local in &state.blocks {
            let block = local.block;
            for &user in &ir.block(block).ops {
                for (position, &value) in ir.op(user).operands.iter().enumerate() {
                    let def_block = match ir.value(value).def {
                        ValueDef::Result { op, .. } => ir.op(op).parent,
                        ValueDef::Argument { block, .. } => Some(block),
                    };
                    let Some(def_block) = def_block else { continue };
                    if def_block == block || ir.block(def_block).parent != Some(state.region) {
                        continue;
                    }
                    let def_reachable = match ir.block(def_block).ops.first() {
                        Some(&first) => dominance.is_checked(ir, first),
                        None => false,
                    };
                    if !def_reachable
                        || !dominance.is_checked(ir, user)
                        || dominance.dominates_use(ir, value, user)
                    {
                        continue;
                    }
                    let label =
                        |b: BlockId| state.blocks.iter().find(|l| l.block == b).map_or(0, |l| l.label);
                    let id = state.values.id_of(value).unwrap_or(0);
                    let name = match self.names.get(&id) {
                        Some(name) => format!(" ({name})"),
                        None => String::new(),
                    };
                    let o = ir.op(user);
                    let phi_value = !o.successors.is_empty() && (o.name == "spirv.Branch" || position > 0);
                    let role = if phi_value {
                        format!("as an OpPhi value from block <id> {}", local.label)
                    } else {
                        format!("in block <id> {} ({})", local.label, o.name)
                    };
                    return error(
                        end_offset,
                        format!(
                            "in function {symbol}: <id> {id}{name} is defined in block <id> {}, which does \
                             not dominate its use {role}",
                            label(def_block)
                        ),
                    );
                }
            }
        }
        Ok(())
    }
}

fn words_from<'a>(inst: &Inst<'a>, start: usize) -> &'a [u32] {
    inst.words.get(start..).unwrap_or(&[])
}

impl Deserializer<'_, '_> {
    /// `spirv.ARM.GraphEntryPoint @graph, @interface...`, where it stands.
    pub(super) fn graph_entry_point(&mut self, inst: &Inst) -> Result<()> {
        let graph = word(inst, 1)?;
        let Some((symbol, _)) = self.graph_symbols.get(&graph).cloned() else {
            return error(
                inst.offset,
                format!("OpGraphEntryPointARM refers to <id> {graph}, which is not a graph"),
            );
        };
        let mut interface = Vec::new();
        for operand in inst.operands.iter().skip(2) {
            let id = inst.words.get(usize::from(operand.offset)).copied().unwrap_or(0);
            match self.module_values.get(&id) {
                Some(ModuleValue::Global { symbol, .. }) => {
                    interface.push(Attribute::SymbolRef(vec![symbol.clone()]))
                }
                _ => {
                    return error(inst.offset, format!("graph interface <id> {id} is not a global variable"))
                }
            }
        }
        let op = self.ir.create_op("spirv.ARM.GraphEntryPoint", vec![], &[], Location::Unknown);
        self.ir.op_mut(op).properties = vec![
            NamedAttribute::new("fn", Attribute::SymbolRef(vec![symbol])),
            NamedAttribute::new("interface", Attribute::Array(interface)),
        ];
        self.ir.append_op(self.module_block, op);
        Ok(())
    }

    /// OpGraphARM ... OpGraphEndARM -> `spirv.ARM.Graph`: inputs are the entry block's
    /// arguments, the outputs set by OpGraphSetOutputARM end it in `spirv.ARM.GraphOutputs`.
    pub(super) fn graph(&mut self, start: usize) -> Result<usize> {
        let Some(inst) = self.module.instruction(start) else { return error(0, "missing OpGraphARM") };
        let type_id = inst.result_type;
        let Some((inputs, outputs)) = self.graph_types.get(&type_id).cloned() else {
            return error(inst.offset, format!("OpGraphARM type <id> {type_id} is not an OpTypeGraphARM"));
        };
        let (symbol, entry_point) = self
            .graph_symbols
            .get(&inst.result_id)
            .cloned()
            .unwrap_or_else(|| (format!("spirv_graph_{}", inst.result_id), false));
        let fn_ty = self.ir.types.function(inputs.clone(), outputs.clone());
        let graph = self.ir.create_op("spirv.ARM.Graph", vec![], &[], Location::Unknown);
        let props = vec![
            NamedAttribute::new("entry_point", Attribute::Bool(entry_point)),
            NamedAttribute::new("function_type", Attribute::Type(fn_ty)),
            NamedAttribute::new("sym_name", Attribute::String(symbol.clone())),
        ];
        set_attributes(self.ir, graph, props, Vec::new());
        self.ir.append_op(self.module_block, graph);
        let region = self.ir.add_region(graph);
        let entry = self.ir.create_block();
        self.ir.append_block(region, entry);
        let args: Vec<Value> =
            inputs.iter().map(|&t| self.ir.add_block_argument(entry, t, Location::Unknown)).collect();
        let mut state = self.new_function_state(graph, region, Some(entry));
        let mut results: Vec<Option<Value>> = vec![None; outputs.len()];
        let mut index = start + 1;
        loop {
            let Some(inst) = self.module.instruction(index) else {
                return error(self.module.words().len(), format!("graph {symbol} has no OpGraphEndARM"));
            };
            index += 1;
            match inst.opcode {
                opcode::OpGraphInputARM => {
                    let slot = self.constant_word(&inst, word(&inst, 3)?)? as usize;
                    let Some(&arg) = args.get(slot) else {
                        return error(inst.offset, format!("graph input {slot} is out of range"));
                    };
                    state.values.insert(inst.result_id, arg);
                }
                opcode::OpGraphSetOutputARM => {
                    let value = self.operand(&state, word(&inst, 1)?, inst.offset)?;
                    let slot = self.constant_word(&inst, word(&inst, 2)?)? as usize;
                    let Some(place) = results.get_mut(slot) else {
                        return error(inst.offset, format!("graph output {slot} is out of range"));
                    };
                    *place = Some(value);
                }
                opcode::OpGraphEndARM => {
                    let Some(values) = results.iter().copied().collect::<Option<Vec<Value>>>() else {
                        return error(inst.offset, format!("graph {symbol} does not set all its outputs"));
                    };
                    let op = self.ir.create_op("spirv.ARM.GraphOutputs", values, &[], Location::Unknown);
                    self.ir.append_op(entry, op);
                    self.spare_function_state = Some(state);
                    return Ok(index);
                }
                _ => {
                    self.function_instruction(&mut state, &inst)?;
                    if state.current.is_none() {
                        return error(inst.offset, "control flow inside a graph");
                    }
                }
            }
        }
    }
}
