//! Ops: the module-level ones, those with special encodings, and every other op
//! encoded from its ODS definition.

use super::attrs::enum_value;
use super::{encode, Result, Serializer};
use spirvkit_grammar::opcode;
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::Value;
use spirvkit_ir::opdef::{Argument, Arity, OpDef};
use spirvkit_ir::types::TypeKind;
use spirvkit_ir::OpId;

// The extended instruction sets ops of a sub-namespace serialize to.
use crate::fallback::EXT_SET_PREFIXES as EXT_SETS;

/// Enum attributes SPIR-V takes as the `<id>` of an i32 constant (the grammar's
/// `IdScope`/`IdMemorySemantics`/`IdRef` operands), by ODS attribute record.
const ID_ENUM_ATTRS: &[&str] = &[
    "SPIRV_ScopeAttr",
    "SPIRV_MemorySemanticsAttr",
    "SPIRV_MatrixLayoutAttr",
    "SPIRV_KHR_CooperativeMatrixLayoutAttr",
];

impl<'a> Serializer<'a> {
    /// An op, and with `emit_op_names` the `OpName` of its result when its location
    /// is a name (not of a symbol reference's, which is the symbol's id).
    pub(super) fn process_op(&mut self, op: OpId) -> Result<()> {
        if !self.elided_bitcasts.is_empty() && self.elided_bitcasts.contains(&op) {
            if let Some(source) = crate::signedness::bridged_source(self.ir, op) {
                let id = self.value_id(op, source)?;
                self.map_result(op, id);
                return Ok(());
            }
        }
        self.encode_op(op)?;
        if self.options.emit_op_names {
            let ir = self.ir;
            let o = ir.op(op);
            let symbol_reference =
                matches!(o.name.as_str(), "spirv.mlir.addressof" | "spirv.mlir.referenceof");
            if let ([result], false) = (o.results.as_slice(), symbol_reference) {
                self.name_value(*result, &o.location);
            }
        }
        Ok(())
    }

    fn encode_op(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        // The handler of a defined op is looked up once per definition: most ops
        // take the generic encoding, and the others skip the match on their name.
        let kind = match o.name.def_index() {
            Some(i) => match self.def_plans.get(i).copied().flatten() {
                Some(DefPlan::Generic(plan)) => return self.process_generic_with(op, plan),
                Some(DefPlan::Special(kind)) => kind,
                None => {
                    let kind = OpKind::of(&o.name);
                    if kind != OpKind::Generic {
                        self.set_def_plan(i, DefPlan::Special(kind));
                    }
                    kind
                }
            },
            None => OpKind::of(&o.name),
        };
        match kind {
            OpKind::AddressOf => {
                let name = symbol(o.attr("variable"));
                let Some(&id) = self.variable_ids.get(name) else {
                    return Err(self.error(op, format!("unknown result <id> for variable {name}")));
                };
                self.map_result(op, id);
                Ok(())
            }
            OpKind::ReferenceOf => {
                let name = symbol(o.attr("spec_const"));
                let Some(&id) = self.spec_constant_ids.get(name) else {
                    return Err(
                        self.error(op, format!("unknown result <id> for specialization constant {name}"))
                    );
                };
                self.map_result(op, id);
                Ok(())
            }
            OpKind::Branch | OpKind::BranchConditional | OpKind::Switch => self.process_branch(op, kind),
            OpKind::Constant => {
                let (Some(&result), Some(value)) = (o.results.first(), o.attr("value")) else {
                    return Err(self.error(op, "spirv.Constant needs a value and a result"));
                };
                let id = self.constant(op, ir.value_type(result), value)?;
                self.value_ids.insert(result, id);
                Ok(())
            }
            OpKind::Replicate => self.process_replicate(op, false),
            OpKind::SpecReplicate => self.process_replicate(op, true),
            OpKind::Function => self.process_function(op),
            OpKind::Graph => self.process_graph(op),
            OpKind::GraphEntryPoint => self.process_graph_entry_point(op),
            OpKind::GraphConstant => {
                let Some(&result) = o.results.first() else {
                    return Err(self.error(op, "graph constant needs a result"));
                };
                let Some(Attribute::Integer { value, .. }) = o.attr("graph_constant_id") else {
                    return Err(self.error(op, "graph constant needs a graph_constant_id"));
                };
                let type_id = self.process_type(op, ir.value_type(result))?;
                let id = self.next();
                self.value_ids.insert(result, id);
                encode(&mut self.globals, opcode::OpGraphConstantARM, &[type_id, id, *value as u32]);
                Ok(())
            }
            OpKind::GraphOutputs => {
                let mut words = Vec::new();
                for (index, &v) in o.operands.iter().enumerate() {
                    let value = self.value_id(op, v)?;
                    let index = self.constant_i32(op, index as u32)?;
                    words.push((value, index));
                }
                for (value, index) in words {
                    encode(&mut self.function_body, opcode::OpGraphSetOutputARM, &[value, index]);
                }
                Ok(())
            }
            OpKind::GlobalVariable => self.process_global_variable(op),
            OpKind::Loop => self.process_loop(op),
            OpKind::Selection => self.process_selection(op),
            OpKind::SpecConstant => self.process_spec_constant(op),
            OpKind::SpecConstantComposite => self.process_spec_constant_composite(op),
            OpKind::SpecConstantOperation => self.process_spec_constant_operation(op),
            OpKind::Undef => {
                let Some(&result) = o.results.first() else {
                    return Err(self.error(op, "spirv.Undef needs a result"));
                };
                // Uniqued by IR type, as MLIR does (`ui32` apart from `i32`).
                let ty = ir.value_type(result);
                let id = match self.undef_ids.get(&ty) {
                    Some(&id) => id,
                    None => {
                        let id = self.next();
                        self.undef_ids.insert(ty, id);
                        let type_id = self.process_type(op, ty)?;
                        encode(&mut self.globals, opcode::OpUndef, &[type_id, id]);
                        id
                    }
                };
                self.value_ids.insert(result, id);
                Ok(())
            }
            OpKind::Variable => self.process_variable(op),
            OpKind::EntryPoint => self.process_entry_point(op),
            OpKind::ExecutionMode => self.process_execution_mode(op),
            OpKind::FunctionCall => self.process_function_call(op),
            OpKind::CastToPtrExplicit => self.process_cast_to_ptr_explicit(op),
            OpKind::ExtInst => self.process_ext_inst(op),
            OpKind::MergeOrYield => {
                Err(self.error(op, format!("not supported yet: '{}' outside its construct", o.name)))
            }
            OpKind::Generic => self.process_generic(op),
        }
    }

    fn map_result(&mut self, op: OpId, id: u32) {
        if let Some(&result) = self.ir.op(op).results.first() {
            self.value_ids.insert(result, id);
        }
    }

    /// The id of a value defined earlier.
    pub(super) fn value_id(&self, at: OpId, v: Value) -> Result<u32> {
        match self.value_ids.get(&v) {
            Some(&id) => Ok(id),
            None => {
                Err(self.error(at, "not supported yet: a value used before its definition is serialized"))
            }
        }
    }

    fn process_global_variable(&mut self, op: OpId) -> Result<()> {
        let o = self.ir.op(op);
        let Some(Attribute::Type(ty)) = o.attr("type") else {
            return Err(self.error(op, "spirv.GlobalVariable needs a type"));
        };
        let ty = *ty;
        let type_id = self.process_type(op, ty)?;
        let id = self.next();
        let name = string_attr(o.attr("sym_name")).to_string();
        if !self.options.unnamed_variables.contains(&name) {
            self.process_name(id, &name);
        }
        self.variable_ids.insert(name.clone(), id);
        // An untyped pointer's variable is OpUntypedVariableKHR (without a data type).
        let untyped = spirvkit_ir::types::untyped_pointer_storage_class(self.ir.types.kind(ty));
        let storage = match self.ir.types.kind(ty) {
            TypeKind::Pointer { storage_class, .. } => super::attrs::enumerant("StorageClass", storage_class),
            _ => untyped.and_then(|class| super::attrs::enumerant("StorageClass", class)),
        };
        let Some(storage) = storage else {
            return Err(self.error(op, "spirv.GlobalVariable's type must be a pointer"));
        };
        let mut operands = vec![type_id, id, storage];
        let variable = if untyped.is_some() { opcode::OpUntypedVariableKHR } else { opcode::OpVariable };
        if untyped.is_some() && o.attr("initializer").is_some() {
            return Err(self.error(op, "not supported yet: an initializer of an untyped variable"));
        }
        if let Some(value) = o.attr(crate::deserialize::CONSTANT_INITIALIZER_ATTR) {
            let pointee = match self.ir.types.kind(ty) {
                TypeKind::Pointer { pointee, .. } => *pointee,
                _ => return Err(self.error(op, "a constant initializer needs a pointer variable")),
            };
            if o.attr("initializer").is_some() {
                return Err(
                    self.error(op, "spirv.GlobalVariable with both an initializer and a constant one")
                );
            }
            operands.push(self.constant(op, pointee, value)?);
        }
        if let Some(init) = o.attr("initializer") {
            let init = symbol(Some(init));
            let init_id = self.variable_ids.get(init).or_else(|| self.spec_constant_ids.get(init)).copied();
            let Some(init_id) = init_id else {
                return Err(self.error(op, "invalid usage of undefined variable as initializer"));
            };
            operands.push(init_id);
        }
        self.emit_debug_line_globals(op);
        let out =
            if self.options.dxc_constants_first { &mut self.global_variables } else { &mut self.globals };
        encode(out, variable, &operands);
        let mut attrs = sorted_attrs(self.ir, op);
        if self.options.dxc_decoration_order {
            // dxc's order: `DescriptorSet` before `Binding` (a stable partition).
            attrs.sort_by_key(|a| a.name != "descriptor_set");
        }
        for attr in attrs {
            if matches!(attr.name.as_str(), "type" | "sym_name" | "initializer")
                || attr.name == crate::deserialize::CONSTANT_INITIALIZER_ATTR
            {
                continue;
            }
            let late =
                self.options.dxc_decoration_order && matches!(attr.name.as_str(), "location" | "index");
            let binding = self.options.dxc_decoration_order
                && matches!(attr.name.as_str(), "descriptor_set" | "binding");
            let start = self.decorations.len();
            self.process_decoration(op, id, attr)?;
            if late {
                let words: Vec<u32> = self.decorations.drain(start..).collect();
                self.location_decorations.extend(words);
            } else if binding {
                let words: Vec<u32> = self.decorations.drain(start..).collect();
                let rank = self.options.binding_order.iter().position(|s| *s == name).unwrap_or(usize::MAX);
                self.binding_decorations.push((rank, words));
            }
        }
        Ok(())
    }

    fn emit_debug_line_globals(&mut self, op: OpId) {
        if !self.options.emit_debug_info {
            return;
        }
        if let spirvkit_ir::ir::Location::FileLineCol { line, column, .. } = self.ir.op(op).location {
            let out =
                if self.options.dxc_constants_first { &mut self.global_variables } else { &mut self.globals };
            encode(out, opcode::OpLine, &[self.file_id, line, column]);
        }
    }

    fn process_spec_constant(&mut self, op: OpId) -> Result<()> {
        let o = self.ir.op(op);
        let Some(value) = o.attr("default_value") else {
            return Err(self.error(op, "spirv.SpecConstant needs a default value"));
        };
        let Some(id) = self.constant_scalar(op, value, true)? else {
            return Err(self.error(op, "not supported yet: non-scalar spirv.SpecConstant"));
        };
        if let Some(Attribute::Integer { value, .. }) = o.attr("spec_id") {
            self.emit_decoration(id, super::types::decoration("SpecId"), &[*value as u32]);
        }
        let name = string_attr(o.attr("sym_name")).to_string();
        self.process_name(id, &name);
        self.spec_constant_ids.insert(name, id);
        for attr in sorted_attrs(self.ir, op) {
            if !matches!(attr.name.as_str(), "default_value" | "sym_name" | "spec_id") {
                self.process_decoration(op, id, attr)?;
            }
        }
        Ok(())
    }

    fn process_spec_constant_composite(&mut self, op: OpId) -> Result<()> {
        let o = self.ir.op(op);
        let Some(Attribute::Type(ty)) = o.attr("type") else {
            return Err(self.error(op, "spirv.SpecConstantComposite needs a type"));
        };
        let type_id = self.process_type(op, *ty)?;
        let id = self.next();
        let mut operands = vec![type_id, id];
        if let Some(Attribute::Array(items)) = o.attr("constituents") {
            for item in items {
                if let Attribute::Integer { ty, .. }
                | Attribute::Float { ty, .. }
                | Attribute::Dense { ty, .. } = item
                {
                    // A plain constant among the spec constants.
                    operands.push(self.constant(op, *ty, item)?);
                    continue;
                }
                let name = symbol(Some(item));
                let Some(&constituent) = self.spec_constant_ids.get(name) else {
                    return Err(
                        self.error(op, format!("unknown result <id> for specialization constant {name}"))
                    );
                };
                operands.push(constituent);
            }
        }
        encode(&mut self.globals, opcode::OpSpecConstantComposite, &operands);
        let name = string_attr(o.attr("sym_name")).to_string();
        if !self.options.unnamed_variables.contains(&name) {
            self.process_name(id, &name);
        }
        self.spec_constant_ids.insert(name, id);
        for attr in sorted_attrs(self.ir, op) {
            if !matches!(attr.name.as_str(), "constituents" | "sym_name" | "type") {
                self.process_decoration(op, id, attr)?;
            }
        }
        Ok(())
    }

    /// `spirv.EXT.ConstantCompositeReplicate` / `spirv.EXT.SpecConstantCompositeReplicate`.
    fn process_replicate(&mut self, op: OpId, spec: bool) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let ty = if spec {
            match o.attr("type") {
                Some(Attribute::Type(ty)) => *ty,
                _ => return Err(self.error(op, "replicated composite needs a type")),
            }
        } else {
            match o.results.first() {
                Some(&r) => ir.value_type(r),
                None => return Err(self.error(op, "replicated composite needs a result")),
            }
        };
        if spec {
            let type_id = self.process_type(op, ty)?;
            let name = symbol(o.attr("constituent"));
            let Some(&constituent) = self.spec_constant_ids.get(name) else {
                return Err(
                    self.error(op, format!("unknown result <id> for replicated spec constant {name}"))
                );
            };
            let id = self.next();
            encode(
                &mut self.globals,
                opcode::OpSpecConstantCompositeReplicateEXT,
                &[type_id, id, constituent],
            );
            let name = string_attr(o.attr("sym_name")).to_string();
            self.process_name(id, &name);
            self.spec_constant_ids.insert(name, id);
            return Ok(());
        }
        let Some(value) = o.attr("value") else {
            return Err(self.error(op, "replicated composite needs a value"));
        };
        let key = self.type_key(ty);
        let id = self.replicate(op, key, value)?;
        self.map_result(op, id);
        Ok(())
    }

    /// `OpConstantCompositeReplicateEXT` of `value` into `ty`, replicating level by
    /// level while the value is a scalar and the element type a composite; an ARM
    /// tensor takes the scalar directly, and a zero one is `OpConstantNull`.
    fn replicate(&mut self, op: OpId, ty: super::TypeKey, value: &Attribute) -> Result<u32> {
        let key = super::types::ConstantKey::Replicate(format!("{ty:?}:{value:?}"));
        if let Some(&id) = self.constant_ids.get(&key) {
            return Ok(id);
        }
        if self.depth > super::MAX_DEPTH {
            return Err(self.error(op, "not supported yet: constants nested this deeply"));
        }
        let type_id = self.process_key(op, ty.clone())?;
        let element = match &ty {
            super::TypeKey::ArmTensor { element, .. } => Some((**element).clone()),
            other => self.element_key(other),
        };
        let Some(element) = element else {
            return Err(self.error(op, "replicated composite of a non-composite type"));
        };
        let scalar_key = match value {
            Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } => Some(self.type_key(*ty)),
            Attribute::Bool(_) => Some(super::TypeKey::Int { width: 1, signed: false }),
            _ => None,
        };
        let element_is_composite = self.element_key(&element).is_some();
        self.depth += 1;
        let constituent =
            if scalar_key.is_some() && scalar_key.as_ref() != Some(&element) && element_is_composite {
                self.replicate(op, element, value)
            } else {
                self.constant_of(op, element, value)
            };
        self.depth -= 1;
        let constituent = constituent?;
        let id = self.next();
        if matches!(ty, super::TypeKey::ArmTensor { .. }) && super::types::is_zero(value) {
            encode(&mut self.globals, opcode::OpConstantNull, &[type_id, id]);
        } else {
            encode(&mut self.globals, opcode::OpConstantCompositeReplicateEXT, &[type_id, id, constituent]);
        }
        self.constant_ids.insert(key, id);
        Ok(id)
    }

    fn process_spec_constant_operation(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let Some(&result) = o.results.first() else {
            return Err(self.error(op, "spirv.SpecConstantOperation needs a result"));
        };
        let type_id = self.process_type(op, ir.value_type(result))?;
        let id = self.next();
        let enclosed = ir.entry_block(op).and_then(|b| ir.block(b).ops.first().copied());
        let Some(enclosed) = enclosed else {
            return Err(self.error(op, "spirv.SpecConstantOperation needs an op"));
        };
        let inner = ir.op(enclosed);
        let short = inner.name.strip_prefix("spirv.").unwrap_or(&inner.name);
        let Some(inst) = spirvkit_grammar::instruction_by_name(&format!("Op{short}")) else {
            return Err(self.error(op, format!("Couldn't find op code for op {}", inner.name)));
        };
        let mut operands = vec![type_id, id, u32::from(inst.opcode)];
        for &v in &inner.operands {
            operands.push(self.value_id(op, v)?);
        }
        // CompositeExtract/CompositeInsert: the literal indices follow the ids (MLIR's
        // serializer leaves them out, which extracts nothing).
        if let Some(indices) = inner.attr("indices") {
            let Attribute::Array(indices) = indices else {
                return Err(self.error(op, "the indices of a spec constant operation must be an array"));
            };
            for index in indices {
                let Attribute::Integer { value, .. } = index else {
                    return Err(self.error(op, "the indices of a spec constant operation must be integers"));
                };
                operands.push(*value as u32);
            }
        }
        encode(&mut self.globals, opcode::OpSpecConstantOp, &operands);
        self.value_ids.insert(result, id);
        Ok(())
    }

    fn process_variable(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let Some(&result) = o.results.first() else {
            return Err(self.error(op, "spirv.Variable needs a result"));
        };
        let ty = ir.value_type(result);
        let type_id = self.process_type(op, ty)?;
        let id = self.next();
        self.value_ids.insert(result, id);
        let storage = match (o.attr("storage_class").and_then(|a| self.enum_value(a)), ir.types.kind(ty)) {
            (Some(s), _) => Some(s),
            (None, TypeKind::Pointer { storage_class, .. }) => self.storage_class_value(storage_class),
            _ => None,
        };
        let mut operands = Vec::with_capacity(3 + o.operands.len());
        operands.extend([type_id, id]);
        operands.extend(storage);
        for &v in &o.operands {
            operands.push(self.value_id(op, v)?);
        }
        self.emit_debug_line(true, op);
        encode(&mut self.function_header, opcode::OpVariable, &operands);
        for attr in sorted_attrs_where(ir, op, |name| name != "storage_class") {
            self.process_decoration(op, id, attr)?;
        }
        Ok(())
    }

    /// The value of a storage class spelled as in a pointer type (looked up by
    /// name once per spelling).
    fn storage_class_value(&mut self, name: &str) -> Option<u32> {
        if let Some(&(_, value)) = self.storage_classes.iter().find(|(n, _)| n == name) {
            return value;
        }
        let value = super::attrs::enumerant("StorageClass", name);
        self.storage_classes.push((name.to_string(), value));
        value
    }

    fn process_entry_point(&mut self, op: OpId) -> Result<()> {
        let o = self.ir.op(op);
        let Some(model) = o.attr("execution_model").and_then(enum_value) else {
            return Err(self.error(op, "spirv.EntryPoint needs an execution model"));
        };
        let name = symbol(o.attr("fn"));
        let Some(&function) = self.function_ids.get(name) else {
            return Err(self.error(
                op,
                format!(
                    "missing <id> for function {name}; function needs to be defined before spirv.EntryPoint is serialized"
                ),
            ));
        };
        let mut operands = vec![model, function];
        let written_name = self.options.entry_point_names.get(name).map_or(name, String::as_str);
        spirvkit_binary::write::encode_string(written_name.as_bytes(), &mut operands);
        if let Some(Attribute::Array(items)) = o.attr("interface") {
            for item in items {
                let var = symbol(Some(item));
                let Some(&id) = self.variable_ids.get(var) else {
                    return Err(self.error(op, "referencing undefined global variable.spirv.EntryPoint is at the end of spirv.module. All referenced variables should already be defined"));
                };
                operands.push(id);
            }
        }
        encode(&mut self.entry_points, opcode::OpEntryPoint, &operands);
        Ok(())
    }

    fn process_execution_mode(&mut self, op: OpId) -> Result<()> {
        let o = self.ir.op(op);
        let name = symbol(o.attr("fn"));
        let Some(&function) = self.function_ids.get(name) else {
            return Err(self.error(
                op,
                format!(
                    "missing <id> for function {name}; function needs to be defined before spirv.ExecutionMode is serialized"
                ),
            ));
        };
        // Modes newer than MLIR's enum (`MaximallyReconvergesKHR`) by the grammar's name.
        let by_grammar = |attr: &Attribute| match attr {
            Attribute::Dialect { name, body: Some(body) } if name == "spirv.execution_mode" => {
                spirvkit_grammar::OperandKind::ExecutionMode
                    .info()
                    .enumerant_by_name(body.trim())
                    .map(|e| e.value)
            }
            _ => None,
        };
        let Some(mode) = o.attr("execution_mode").and_then(|a| enum_value(a).or_else(|| by_grammar(a)))
        else {
            return Err(self.error(op, "spirv.ExecutionMode needs an execution mode"));
        };
        // Modes whose grammar parameters are <id>s (`LocalSizeId`) need
        // `OpExecutionModeId` with constants; mlir-translate writes the literals into
        // an `OpExecutionMode`, which is invalid.
        let takes_ids = spirvkit_grammar::OperandKind::ExecutionMode
            .info()
            .enumerant(mode)
            .is_some_and(|e| e.parameters.iter().any(|p| p.kind == spirvkit_grammar::OperandKind::IdRef));
        let mut operands = vec![function, mode];
        if let Some(Attribute::Array(values)) = o.attr("values") {
            for v in values {
                match v {
                    Attribute::Integer { value, ty } => {
                        // A signed or unsigned operand of an id mode is a constant of
                        // its type (dxc's `%int_4`); a signless one a 32-bit integer.
                        let typed = !matches!(
                            self.ir.types.kind(*ty),
                            spirvkit_ir::types::TypeKind::Integer {
                                signedness: spirvkit_ir::types::Signedness::Signless,
                                ..
                            }
                        );
                        let word = match (takes_ids, typed) {
                            (true, true) => self.constant(op, *ty, v)?,
                            (true, false) => self.constant_i32(op, *value as u32)?,
                            (false, _) => *value as u32,
                        };
                        operands.push(word);
                    }
                    Attribute::SymbolRef(path) if takes_ids => {
                        let id = match path.as_slice() {
                            [name] => self.spec_constant_ids.get(name).copied(),
                            _ => None,
                        };
                        let Some(id) = id else {
                            return Err(self.error(
                                op,
                                format!(
                                    "execution mode operand {path:?} names no spec constant defined before"
                                ),
                            ));
                        };
                        operands.push(id);
                    }
                    _ => return Err(self.error(op, "not supported yet: this execution mode operand")),
                }
            }
        }
        let opcode = if takes_ids { opcode::OpExecutionModeId } else { opcode::OpExecutionMode };
        encode(&mut self.execution_modes, opcode, &operands);
        Ok(())
    }

    /// The storage class operand comes from the result's pointer type.
    fn process_cast_to_ptr_explicit(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let (Some(&result), Some(&pointer)) = (o.results.first(), o.operands.first()) else {
            return Err(self.error(op, "malformed spirv.GenericCastToPtrExplicit"));
        };
        let ty = ir.value_type(result);
        let storage = match ir.types.kind(ty) {
            TypeKind::Pointer { storage_class, .. } => super::attrs::enumerant("StorageClass", storage_class),
            _ => None,
        };
        let Some(storage) = storage else {
            return Err(self.error(op, "spirv.GenericCastToPtrExplicit must produce a pointer"));
        };
        let type_id = self.process_type(op, ty)?;
        let id = self.next();
        self.value_ids.insert(result, id);
        let pointer = self.value_id(op, pointer)?;
        self.emit_debug_line(false, op);
        encode(&mut self.function_body, opcode::OpGenericCastToPtrExplicit, &[type_id, id, pointer, storage]);
        Ok(())
    }

    fn graph_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.graph_ids.get(name) {
            return id;
        }
        let id = self.next();
        self.graph_ids.insert(name.to_string(), id);
        id
    }

    fn process_graph_entry_point(&mut self, op: OpId) -> Result<()> {
        let o = self.ir.op(op);
        let name = symbol(o.attr("fn"));
        let graph = self.graph_id(name);
        let mut operands = vec![graph];
        spirvkit_binary::write::encode_string(name.as_bytes(), &mut operands);
        if let Some(Attribute::Array(items)) = o.attr("interface") {
            for item in items {
                let var = symbol(Some(item));
                let Some(&id) = self.variable_ids.get(var) else {
                    return Err(self.error(op, format!("referencing undefined global variable {var}")));
                };
                operands.push(id);
            }
        }
        encode(&mut self.graphs, opcode::OpGraphEntryPointARM, &operands);
        Ok(())
    }

    /// `spirv.ARM.Graph`: `OpGraphARM`, an `OpGraphInputARM` per argument, the body,
    /// `OpGraphEndARM`.
    fn process_graph(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let name = string_attr(o.attr("sym_name")).to_string();
        let graph = self.graph_id(&name);
        let Some(&Attribute::Type(fn_type)) = o.attr("function_type") else {
            return Err(self.error(op, "spirv.ARM.Graph needs a function type"));
        };
        let type_id = self.process_key(op, super::TypeKey::Graph(fn_type))?;
        encode(&mut self.function_header, opcode::OpGraphARM, &[type_id, graph]);
        let entry = ir.entry_block(op);
        if let Some(entry) = entry {
            for (index, &arg) in ir.block(entry).arguments.iter().enumerate() {
                let arg_type = self.process_type(op, ir.value_type(arg))?;
                let id = self.next();
                let index = self.constant_i32(op, index as u32)?;
                self.value_ids.insert(arg, id);
                encode(&mut self.function_header, opcode::OpGraphInputARM, &[arg_type, id, index]);
            }
            for &inner in &ir.block(entry).ops {
                self.process_op(inner)?;
            }
        }
        encode(&mut self.function_body, opcode::OpGraphEndARM, &[]);
        let header = std::mem::take(&mut self.function_header);
        let body = std::mem::take(&mut self.function_body);
        self.graphs.extend(header);
        self.graphs.extend(body);
        for attr in sorted_attrs(ir, op) {
            if matches!(
                attr.name.as_str(),
                "sym_name" | "function_type" | "entry_point" | "arg_attrs" | "res_attrs"
            ) {
                continue;
            }
            self.process_decoration(op, graph, attr)?;
        }
        Ok(())
    }

    pub(super) fn function_id(&mut self, name: &'a str) -> u32 {
        if let Some(&id) = self.function_ids.get(name) {
            return id;
        }
        let id = self.next();
        self.function_ids.insert(name, id);
        id
    }

    fn process_function_call(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let result = o.results.first().copied();
        let type_id = match result {
            Some(r) => self.process_type(op, ir.value_type(r))?,
            None => self.void_type(),
        };
        let callee = symbol(o.attr("callee"));
        let function = self.function_id(callee);
        let id = self.next();
        let mut operands = vec![type_id, id, function];
        for &v in &o.operands {
            operands.push(self.value_id(op, v)?);
        }
        if let Some(r) = result {
            self.value_ids.insert(r, id);
        }
        self.emit_debug_line(false, op);
        encode(&mut self.function_body, opcode::OpFunctionCall, &operands);
        Ok(())
    }

    /// An instruction the dialect has no op for, in `crate::fallback`'s encoding:
    /// result type and result from the op's, ids from its operands, the rest from its
    /// `literals` in the recorded layout.
    fn process_fallback(&mut self, op: OpId) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let unsupported = || format!("not supported yet: serializing op '{}'", o.name);
        let core = crate::fallback::fallback_opcode(&o.name);
        let ext = crate::fallback::fallback_ext_inst(&o.name);
        if core.is_none() && ext.is_none() {
            return Err(self.error(op, unsupported()));
        }
        if o.results.len() > 1 || !o.regions.is_empty() || !o.successors.is_empty() {
            return Err(self.error(op, unsupported()));
        }
        let mut words = Vec::new();
        let mut result_id = None;
        if let Some(&result) = o.results.first() {
            words.push(self.process_type(op, ir.value_type(result))?);
            let id = self.next();
            self.value_ids.insert(result, id);
            words.push(id);
            result_id = Some(id);
        }
        let mut ids = Vec::with_capacity(o.operands.len());
        for &v in &o.operands {
            ids.push(self.value_id(op, v)?);
        }
        let rest = crate::fallback::join_operands(o, &ids, &mut |attr| self.reference_id(op, attr))
            .map_err(|e| self.error(op, e))?;
        self.emit_debug_line(false, op);
        match (core, ext) {
            (Some(code), _) => {
                words.extend(rest);
                encode(&mut self.function_body, code, &words);
            }
            (None, Some((set, number))) => {
                // OpExtInst always has a result: a void one (`vstore*`) has no IR value.
                if words.len() < 2 {
                    words = vec![self.void_type(), self.next()];
                }
                let set_id = self.ext_set_id(set);
                words.extend([set_id, number]);
                words.extend(rest);
                encode(&mut self.function_body, opcode::OpExtInst, &words);
            }
            (None, None) => return Err(self.error(op, unsupported())),
        }
        if let Some(id) = result_id {
            for attr in sorted_attrs(ir, op) {
                if [crate::fallback::LITERALS_ATTR, crate::fallback::LAYOUT_ATTR]
                    .contains(&attr.name.as_str())
                {
                    continue;
                }
                self.process_decoration(op, id, attr)?;
            }
        }
        Ok(())
    }

    /// `spirv.ExtInst` (`crate::fallback`): an OpExtInst of its `set`, in the function
    /// body, or among the types and constants when it sits in the module body.
    fn process_ext_inst(&mut self, op: OpId) -> Result<()> {
        use crate::fallback::{EXT_INSTRUCTION_ATTR, EXT_INST_ATTRS, EXT_RESULT_TYPE_ATTR, EXT_SET_ATTR};
        let ir = self.ir;
        let o = ir.op(op);
        let module_level = o.parent.is_some() && o.parent == ir.entry_block(self.module);
        let Some(Attribute::String(set)) = o.attr(EXT_SET_ATTR) else {
            return Err(self.error(op, format!("'{}' needs a string `{EXT_SET_ATTR}`", o.name)));
        };
        let number =
            o.attr(EXT_INSTRUCTION_ATTR).and_then(|a| crate::fallback::ext_instruction_number(set, a));
        let Some(number) = number else {
            return Err(self.error(op, format!("'{}' names no instruction of set {set}", o.name)));
        };
        if o.results.len() > 1 || !o.regions.is_empty() || !o.successors.is_empty() {
            return Err(self.error(op, format!("not supported yet: serializing this '{}'", o.name)));
        }
        let result_type = match (o.results.first(), o.attr(EXT_RESULT_TYPE_ATTR)) {
            (Some(&result), _) => Some(ir.value_type(result)),
            (None, Some(Attribute::Type(ty))) => Some(*ty),
            _ => None,
        };
        let type_id = match result_type {
            Some(ty) if !matches!(ir.types.kind(ty), TypeKind::None) => self.process_type(op, ty)?,
            _ => self.void_type(),
        };
        // A module-level one an earlier one named (a forward reference) has its id.
        let reserved = match o.attr("sym_name") {
            Some(Attribute::String(symbol)) if module_level => self.ext_inst_ids.get(symbol).copied(),
            _ => None,
        };
        let id = reserved.unwrap_or_else(|| self.next());
        if let Some(&result) = o.results.first() {
            self.value_ids.insert(result, id);
        }
        let mut ids = Vec::with_capacity(o.operands.len());
        for &v in &o.operands {
            ids.push(self.value_id(op, v)?);
        }
        let rest = crate::fallback::join_operands(o, &ids, &mut |attr| self.reference_id(op, attr))
            .map_err(|e| self.error(op, e))?;
        let set_id = self.ext_set_id(set);
        let mut words = vec![type_id, id, set_id, number];
        words.extend(rest);
        let ext_opcode = if o.attr(crate::fallback::EXT_FORWARD_REFS_ATTR).is_some() {
            opcode::OpExtInstWithForwardRefsKHR
        } else {
            opcode::OpExtInst
        };
        if module_level {
            if let Some(Attribute::String(symbol)) = o.attr("sym_name") {
                self.ext_inst_ids.insert(symbol.clone(), id);
                // Named like a global variable: its symbol, made up or not, so the
                // name reads back as the same symbol.
                self.process_name(id, symbol);
            }
            let out = if self.follows_a_function(op) { &mut self.functions } else { &mut self.globals };
            encode(out, ext_opcode, &words);
        } else {
            self.emit_debug_line(false, op);
            encode(&mut self.function_body, ext_opcode, &words);
        }
        for attr in sorted_attrs(ir, op) {
            if !EXT_INST_ATTRS.contains(&attr.name.as_str()) {
                self.process_decoration(op, id, attr)?;
            }
        }
        Ok(())
    }

    /// The id an `r` entry of a fallback op's `literals` names: an `OpString` by its
    /// text, a type (`none`: void), a function, global variable, spec constant or
    /// module-level extended instruction by symbol, or a constant by its value.
    fn reference_id(&mut self, at: OpId, attr: &Attribute) -> std::result::Result<u32, String> {
        let unknown = || format!("not supported yet: an operand naming {attr:?}");
        match attr {
            Attribute::String(text) => Ok(self.string_id(text)),
            Attribute::Type(ty) if matches!(self.ir.types.kind(*ty), TypeKind::None) => Ok(self.void_type()),
            Attribute::Type(ty) => self.process_type(at, *ty).map_err(|e| e.message),
            Attribute::SymbolRef(path) => {
                let [name] = path.as_slice() else { return Err(unknown()) };
                let known = self
                    .ext_inst_ids
                    .get(name)
                    .or_else(|| self.variable_ids.get(name))
                    .or_else(|| self.spec_constant_ids.get(name))
                    .copied();
                if let Some(id) = known {
                    return Ok(id);
                }
                if let Some(symbol) = self.function_symbol(name) {
                    return Ok(self.function_id(symbol));
                }
                // Debug information may name a later instruction (a member's parent
                // type): its id is reserved here.
                if self.is_module_ext_inst_symbol(name) {
                    let id = self.next();
                    self.ext_inst_ids.insert(name.clone(), id);
                    return Ok(id);
                }
                Err(format!("'{name}' names no function, variable, spec constant or extended instruction defined before"))
            }
            Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } | Attribute::Dense { ty, .. } => {
                self.constant(at, *ty, attr).map_err(|e| e.message)
            }
            // `true`/`false` parse as booleans.
            Attribute::Bool(value) => self.constant_bool(at, *value, false).map_err(|e| e.message),
            _ => Err(unknown()),
        }
    }

    /// Whether a function precedes module-level op `op` in the module body.
    fn follows_a_function(&mut self, op: OpId) -> bool {
        let ir = self.ir;
        let module = self.module;
        let trailing = self.trailing_ext_insts.get_or_insert_with(|| {
            let body = ir.entry_block(module).map(|b| ir.block(b).ops.as_slice()).unwrap_or(&[]);
            let first_function = body.iter().position(|&op| ir.op(op).name == "spirv.func");
            let after = body.iter().skip(first_function.unwrap_or(body.len()));
            after.copied().filter(|&op| ir.op(op).name == crate::fallback::EXT_INST_OP).collect()
        });
        trailing.contains(&op)
    }

    /// Whether `name` is the symbol of a `spirv.ExtInst` in the module body.
    fn is_module_ext_inst_symbol(&self, name: &str) -> bool {
        let ir = self.ir;
        let body = ir.entry_block(self.module).map(|b| ir.block(b).ops.as_slice()).unwrap_or(&[]);
        body.iter().any(|&op| {
            ir.op(op).name == crate::fallback::EXT_INST_OP
                && matches!(ir.op(op).attr("sym_name"), Some(Attribute::String(s)) if s == name)
        })
    }

    /// The symbol of the module body's `spirv.func` named `name`, if there is one.
    fn function_symbol(&mut self, name: &str) -> Option<&'a str> {
        let ir = self.ir;
        let module = self.module;
        let symbols = self.function_symbols.get_or_insert_with(|| super::function_symbols(ir, module));
        symbols.get(name).copied()
    }

    /// `OpString` of `text`, on first use.
    pub(super) fn string_id(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.string_ids.get(text) {
            return id;
        }
        let id = self.next();
        self.string_ids.insert(text.to_string(), id);
        let mut operands = vec![id];
        spirvkit_binary::write::encode_string(text.as_bytes(), &mut operands);
        encode(&mut self.debug, opcode::OpString, &operands);
        id
    }

    fn set_def_plan(&mut self, index: usize, plan: DefPlan) {
        if index >= self.def_plans.len() {
            self.def_plans.resize(index + 1, None);
        }
        if let Some(slot) = self.def_plans.get_mut(index) {
            *slot = Some(plan);
        }
    }

    /// Any op the ODS tables map to an instruction: result type, result, then the
    /// ODS arguments in order; other attributes become decorations of the result.
    fn process_generic(&mut self, op: OpId) -> Result<()> {
        let o = self.ir.op(op);
        let Some(def) = o.name.def() else {
            return self.process_fallback(op);
        };
        let plan = self.generic_plan(op, def)?;
        self.process_generic_with(op, plan)
    }

    /// [`Self::process_generic`] with the definition's plan known.
    fn process_generic_with(&mut self, op: OpId, plan: GenericPlan) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        if o.results.len() > 1 {
            return Err(self.error(op, format!("not supported yet: op '{}' with several results", o.name)));
        }
        let no_attributes = o.properties.is_empty() && o.attributes.is_empty();
        // An extended instruction without a result is refused after its operands
        // are looked up: the general path keeps that order.
        let direct = matches!(plan.instruction, Instruction::Core(_)) || !o.results.is_empty();
        if let Some(limit) = plan.direct_operands.filter(|_| no_attributes && direct) {
            return self.process_direct(op, plan.instruction, limit);
        }
        let Some(def) = o.name.def() else {
            return self.process_fallback(op);
        };
        let instruction = plan.instruction;
        // Scratch buffers, put back at the end so every op reuses their capacity.
        let mut operands = std::mem::take(&mut self.scratch_words);
        let mut segments = std::mem::take(&mut self.scratch_segments);
        operands.clear();
        let result = self.generic_operands(op, def, &mut operands, &mut segments);
        let result = result.and_then(|result_id| {
            match instruction {
                Instruction::Core(code) => {
                    self.emit_debug_line(false, op);
                    encode(&mut self.function_body, code, &operands);
                }
                Instruction::Ext { set, opcode: ext_opcode } => {
                    if operands.len() < 2 {
                        return Err(self.error(op, "extended instructions must have a result encoding"));
                    }
                    let set_id = self.ext_set_id(set);
                    let mut words = Vec::with_capacity(operands.len() + 2);
                    words.extend_from_slice(&operands[..2]);
                    words.extend([set_id, ext_opcode]);
                    words.extend_from_slice(&operands[2..]);
                    self.emit_debug_line(false, op);
                    encode(&mut self.function_body, opcode::OpExtInst, &words);
                }
            }
            Ok(result_id)
        });
        self.scratch_words = operands;
        self.scratch_segments = segments;
        if let Some(id) = result? {
            let decorations = sorted_attrs_where(ir, op, |name| {
                !def.attributes.iter().any(|a| a.name == name) && name != "operandSegmentSizes"
            });
            for attr in decorations {
                self.process_decoration(op, id, attr)?;
            }
        }
        Ok(())
    }

    /// The generic encoding of an op without attributes whose definition names its
    /// operands in order (`GenericPlan::direct_operands`): the words go straight to
    /// the function body, the same words and ids as [`Self::generic_operands`] gives.
    fn process_direct(&mut self, op: OpId, instruction: Instruction, limit: usize) -> Result<()> {
        let ir = self.ir;
        let o = ir.op(op);
        let result = match o.results.first() {
            Some(&result) => {
                let type_id = self.process_type(op, ir.value_type(result))?;
                let id = self.next();
                self.value_ids.insert(result, id);
                Some((type_id, id))
            }
            None => None,
        };
        let (code, ext) = match instruction {
            Instruction::Core(code) => (code, None),
            Instruction::Ext { set, opcode: ext_opcode } => {
                (opcode::OpExtInst, Some((self.ext_set_id(set), ext_opcode)))
            }
        };
        self.emit_debug_line(false, op);
        let values = o.operands.get(..o.operands.len().min(limit)).unwrap_or(&[]);
        let body = &mut self.function_body;
        let at = body.len();
        body.reserve(5 + values.len());
        body.push(0);
        if let Some((type_id, id)) = result {
            body.push(type_id);
            body.push(id);
        }
        if let Some((set_id, ext_opcode)) = ext {
            body.push(set_id);
            body.push(ext_opcode);
        }
        for &v in values {
            let Some(&id) = self.value_ids.get(&v) else {
                return Err(self.value_id(op, v).err().unwrap_or_else(|| self.error(op, "internal error")));
            };
            body.push(id);
        }
        super::set_word_count(body, at, code);
        Ok(())
    }

    /// The instruction a defined op serializes to, and how its operands are
    /// written (cached per definition).
    fn generic_plan(&mut self, op: OpId, def: &'static OpDef) -> Result<GenericPlan> {
        let o = self.ir.op(op);
        let index = o.name.def_index();
        if let Some(Some(DefPlan::Generic(known))) = index.and_then(|i| self.def_plans.get(i)) {
            return Ok(*known);
        }
        let ext = EXT_SETS.iter().find(|(prefix, _)| o.name.starts_with(prefix));
        let instruction = match (ext, def.spirv_name) {
            (Some(&(prefix, set)), _) => {
                let short = o.name.strip_prefix(prefix).unwrap_or("");
                let found = spirvkit_grammar::ext_inst_set(set).and_then(|s| s.instruction_by_name(short));
                match found {
                    Some(inst) => Instruction::Ext { set, opcode: inst.opcode },
                    None => {
                        return Err(self.error(op, format!("not supported yet: serializing op '{}'", o.name)))
                    }
                }
            }
            (None, Some(name)) => match spirvkit_grammar::instruction_by_name(name) {
                Some(inst) => Instruction::Core(inst.opcode),
                None => return Err(self.error(op, format!("not supported yet: serializing op '{}'", o.name))),
            },
            (None, None) => {
                return Err(self.error(op, format!("not supported yet: serializing op '{}'", o.name)))
            }
        };
        let plan = GenericPlan { instruction, direct_operands: direct_operands(def) };
        if let Some(i) = index {
            self.set_def_plan(i, DefPlan::Generic(plan));
        }
        Ok(plan)
    }

    /// A defined op's words after the opcode: result type and result, then its ODS
    /// arguments in order. Returns the result id.
    fn generic_operands(
        &mut self,
        op: OpId,
        def: &OpDef,
        operands: &mut Vec<u32>,
        segments: &mut Vec<std::ops::Range<usize>>,
    ) -> Result<Option<u32>> {
        let ir = self.ir;
        let o = ir.op(op);
        let mut result_id = None;
        if let Some(&result) = o.results.first() {
            let type_id = self.process_type(op, ir.value_type(result))?;
            operands.push(type_id);
            let id = self.next();
            self.value_ids.insert(result, id);
            operands.push(id);
            result_id = Some(id);
        }
        operand_segment_ranges_into(ir, op, def, segments);
        for arg in def.arguments {
            match *arg {
                Argument::Operand(i) => {
                    let values = segments.get(usize::from(i)).and_then(|r| o.operands.get(r.clone()));
                    for &v in values.unwrap_or(&[]) {
                        operands.push(self.value_id(op, v)?);
                    }
                }
                Argument::Attribute(i) => {
                    let Some(ad) = def.attributes.get(usize::from(i)) else { continue };
                    let Some(value) = o.attr(ad.name) else { continue };
                    let record = ad.constraint().record;
                    self.attribute_words(op, record, value, operands)?;
                }
            }
        }
        Ok(result_id)
    }

    /// `OpExtInstImport` of `set`, on first use.
    fn ext_set_id(&mut self, set: &str) -> u32 {
        if let Some(&(_, id)) = self.ext_set_ids.iter().find(|(s, _)| s == set) {
            return id;
        }
        let id = self.next();
        self.ext_set_ids.push((set.to_string(), id));
        let mut operands = vec![id];
        spirvkit_binary::write::encode_string(set.as_bytes(), &mut operands);
        encode(&mut self.ext_sets, opcode::OpExtInstImport, &operands);
        id
    }

    /// An ODS attribute argument's words.
    fn attribute_words(
        &mut self,
        op: OpId,
        record: &str,
        value: &'a Attribute,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        if ID_ENUM_ATTRS.contains(&record) {
            let Some(v) = self.enum_value(value) else {
                return Err(self.error(op, format!("not supported yet: attribute {value:?} as an id")));
            };
            out.push(self.constant_i32(op, v)?);
            return Ok(());
        }
        match value {
            Attribute::Integer { value, .. } => out.push(*value as u32),
            Attribute::Bool(b) => out.push(u32::from(*b)),
            Attribute::String(s) => spirvkit_binary::write::encode_string(s.as_bytes(), out),
            Attribute::Dialect { .. } => match self.enum_value(value) {
                Some(v) => out.push(v),
                None => {
                    return Err(
                        self.error(op, format!("not supported yet: attribute {value:?} in serialization"))
                    )
                }
            },
            Attribute::Array(items) | Attribute::DenseArray { values: items, .. } => {
                for item in items {
                    self.attribute_words(op, "", item, out)?;
                }
            }
            Attribute::Type(ty) => {
                let id = self.process_type(op, *ty)?;
                out.push(id);
            }
            Attribute::Unit => {}
            _ => {
                return Err(self.error(op, format!("not supported yet: attribute {value:?} in serialization")))
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
pub(super) enum Instruction {
    Core(u16),
    Ext { set: &'static str, opcode: u32 },
}

/// How the ops of one definition are serialized, decided by the first of them.
#[derive(Clone, Copy)]
pub(super) enum DefPlan {
    Special(OpKind),
    Generic(GenericPlan),
}

/// A definition's generic encoding.
#[derive(Clone, Copy)]
pub(super) struct GenericPlan {
    instruction: Instruction,
    /// When the definition's ODS arguments name its operands in order: how many of
    /// an op's operands the encoding takes when it has no attributes (no
    /// `operandSegmentSizes`, no attribute arguments), as `operand_segment_ranges`
    /// splits them — all with a variable-length operand, else one per ODS operand.
    direct_operands: Option<usize>,
}

/// [`GenericPlan::direct_operands`] of `def`.
fn direct_operands(def: &OpDef) -> Option<usize> {
    let mut next = 0usize;
    for arg in def.arguments {
        if let Argument::Operand(i) = *arg {
            if usize::from(i) != next {
                return None;
            }
            next += 1;
        }
    }
    if next != def.operands.len() {
        return None;
    }
    let variable = def.operands.iter().any(|d| d.arity != Arity::Single);
    Some(if variable { usize::MAX } else { def.operands.len() })
}

/// The ops with an encoding of their own, by name; `Generic` for every other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OpKind {
    AddressOf,
    ReferenceOf,
    Branch,
    BranchConditional,
    Switch,
    Constant,
    Replicate,
    SpecReplicate,
    Function,
    Graph,
    GraphEntryPoint,
    GraphConstant,
    GraphOutputs,
    GlobalVariable,
    Loop,
    Selection,
    SpecConstant,
    SpecConstantComposite,
    SpecConstantOperation,
    Undef,
    Variable,
    EntryPoint,
    ExecutionMode,
    FunctionCall,
    CastToPtrExplicit,
    ExtInst,
    MergeOrYield,
    Generic,
}

impl OpKind {
    fn of(name: &str) -> OpKind {
        match name {
            "spirv.mlir.addressof" => OpKind::AddressOf,
            "spirv.mlir.referenceof" => OpKind::ReferenceOf,
            "spirv.Branch" => OpKind::Branch,
            "spirv.BranchConditional" => OpKind::BranchConditional,
            "spirv.Switch" => OpKind::Switch,
            "spirv.Constant" => OpKind::Constant,
            "spirv.EXT.ConstantCompositeReplicate" => OpKind::Replicate,
            "spirv.EXT.SpecConstantCompositeReplicate" => OpKind::SpecReplicate,
            "spirv.func" => OpKind::Function,
            "spirv.ARM.Graph" => OpKind::Graph,
            "spirv.ARM.GraphEntryPoint" => OpKind::GraphEntryPoint,
            "spirv.ARM.GraphConstant" => OpKind::GraphConstant,
            "spirv.ARM.GraphOutputs" => OpKind::GraphOutputs,
            "spirv.GlobalVariable" => OpKind::GlobalVariable,
            "spirv.mlir.loop" => OpKind::Loop,
            "spirv.mlir.selection" => OpKind::Selection,
            "spirv.SpecConstant" => OpKind::SpecConstant,
            "spirv.SpecConstantComposite" => OpKind::SpecConstantComposite,
            "spirv.SpecConstantOperation" => OpKind::SpecConstantOperation,
            "spirv.Undef" => OpKind::Undef,
            "spirv.Variable" => OpKind::Variable,
            "spirv.EntryPoint" => OpKind::EntryPoint,
            "spirv.ExecutionMode" => OpKind::ExecutionMode,
            "spirv.FunctionCall" => OpKind::FunctionCall,
            "spirv.GenericCastToPtrExplicit" => OpKind::CastToPtrExplicit,
            crate::fallback::EXT_INST_OP => OpKind::ExtInst,
            "spirv.mlir.merge" | "spirv.mlir.yield" => OpKind::MergeOrYield,
            _ => OpKind::Generic,
        }
    }
}

/// Where the values of each ODS operand of `op` lie in its operands: from
/// `operandSegmentSizes` when the op has several variable-length operands, else the
/// one variadic takes the rest. `visit` gets each segment in order and stops the walk
/// by returning true.
fn operand_segments(
    ir: &spirvkit_ir::Ir,
    op: OpId,
    def: &OpDef,
    mut visit: impl FnMut(std::ops::Range<usize>) -> bool,
) {
    let o = ir.op(op);
    let len = o.operands.len();
    let mut at = 0usize;
    let mut next = |size: usize| {
        let end = at.saturating_add(size).min(len);
        let range = at..end;
        at = end;
        range
    };
    // Most ops carry no attribute at all: skip the lookup by name.
    let sizes =
        if o.properties.is_empty() && o.attributes.is_empty() { None } else { o.attr("operandSegmentSizes") };
    match sizes {
        Some(Attribute::DenseArray { values, .. }) => {
            for v in values {
                let size = match v {
                    Attribute::Integer { value, .. } => usize::try_from(*value).unwrap_or(0),
                    _ => 0,
                };
                if visit(next(size)) {
                    return;
                }
            }
        }
        _ => {
            let fixed = def.operands.iter().filter(|d| d.arity == Arity::Single).count();
            let rest = len.saturating_sub(fixed);
            let mut given_rest = false;
            for d in def.operands {
                let size = match d.arity {
                    Arity::Single => 1,
                    _ if !given_rest => {
                        given_rest = true;
                        rest
                    }
                    _ => 0,
                };
                if visit(next(size)) {
                    return;
                }
            }
        }
    }
}

/// The range of `op`'s operands that ODS operand `index` takes (see
/// [`operand_segments`]).
pub(super) fn operand_segment(
    ir: &spirvkit_ir::Ir,
    op: OpId,
    def: &OpDef,
    index: usize,
) -> Option<std::ops::Range<usize>> {
    let mut found = None;
    let mut i = 0usize;
    operand_segments(ir, op, def, |range| {
        if i == index {
            found = Some(range);
            return true;
        }
        i += 1;
        false
    });
    found
}

/// Every segment of [`operand_segments`], into `out`.
fn operand_segment_ranges_into(
    ir: &spirvkit_ir::Ir,
    op: OpId,
    def: &OpDef,
    out: &mut Vec<std::ops::Range<usize>>,
) {
    out.clear();
    operand_segments(ir, op, def, |range| {
        out.push(range);
        false
    });
}

/// A symbol reference attribute's (first) name.
pub(super) fn symbol(attr: Option<&Attribute>) -> &str {
    match attr {
        Some(Attribute::SymbolRef(path)) => path.first().map_or("", String::as_str),
        Some(Attribute::String(s)) => s,
        _ => "",
    }
}

fn string_attr(attr: Option<&Attribute>) -> &str {
    match attr {
        Some(Attribute::String(s)) => s,
        _ => "",
    }
}

/// An op's inherent and discardable attributes sorted by name, as MLIR's
/// attribute dictionary lists them.
pub(super) fn sorted_attrs(ir: &spirvkit_ir::Ir, op: OpId) -> Vec<&NamedAttribute> {
    sorted_attrs_where(ir, op, |_| true)
}

/// [`sorted_attrs`] with only the names `keep` accepts (no allocation when none is).
pub(super) fn sorted_attrs_where(
    ir: &spirvkit_ir::Ir,
    op: OpId,
    keep: impl Fn(&str) -> bool,
) -> Vec<&NamedAttribute> {
    let o = ir.op(op);
    if o.properties.is_empty() && o.attributes.is_empty() {
        return Vec::new();
    }
    let mut all: Vec<&NamedAttribute> =
        o.properties.iter().chain(o.attributes.iter()).filter(|a| keep(&a.name)).collect();
    all.sort_by(|a, b| a.name.cmp(&b.name));
    all
}
