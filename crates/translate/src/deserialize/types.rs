//! OpType* -> interned types, constants -> attributes, spec constants -> their ops.

use super::{
    enum_case_text, error, not_supported, opcode_name, set_attributes, word, Constant, Deserializer,
    ModuleValue, Result,
};
use spirvkit_binary::module::Inst;
use spirvkit_grammar::{opcode, OperandKind};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::Location;
use spirvkit_ir::types::{ConstantExpr, FloatKind, Signedness, StructBody, StructMember, Type, TypeKind};

/// The largest tensor whose constants are expanded.
const MAX_TENSOR_ELEMENTS: u64 = 1 << 20;
/// The largest rank a shapeless ARM tensor may declare.
const MAX_TENSOR_RANK: usize = 64;

/// How deeply the spec constant operations giving an array's length may nest, and how
/// many operands they may have in all (a shared operand counts at each use).
const MAX_CONSTANT_EXPR_DEPTH: usize = 16;
const MAX_CONSTANT_EXPR_SIZE: usize = 64;

/// How deeply types may nest.
const MAX_TYPE_DEPTH: u32 = 64;
/// Pointers to structs not yet defined evade the depth count (the struct's body comes
/// later), so they are few: the deepest type is then below `64 * 33` levels.
const MAX_FORWARD_POINTERS: usize = 32;

impl Deserializer<'_, '_> {
    pub(super) fn is_type_instruction(&self, op: u16) -> bool {
        spirvkit_grammar::instruction(op).is_some_and(|i| i.class == "Type-Declaration")
    }

    pub(super) fn type_instruction(&mut self, inst: &Inst) -> Result<()> {
        let id = inst.result_id;
        let ty = match inst.opcode {
            opcode::OpTypeVoid => {
                self.void_types.insert(id);
                return Ok(());
            }
            opcode::OpTypeBool => self.ir.types.integer(1, Signedness::Signless),
            opcode::OpTypeInt => {
                let width = word(inst, 2)?;
                let signedness = if word(inst, 3)? == 0 { Signedness::Signless } else { Signedness::Signed };
                if !matches!(width, 8 | 16 | 32 | 64) {
                    return not_supported(inst, &format!("OpTypeInt of width {width}"));
                }
                self.ir.types.integer(width, signedness)
            }
            opcode::OpTypeFloat => {
                let width = word(inst, 2)?;
                let kind = match (width, inst.words.get(3).copied()) {
                    (16, None) => FloatKind::F16,
                    (32, None) => FloatKind::F32,
                    (64, None) => FloatKind::F64,
                    (16, Some(0)) => FloatKind::BF16,
                    (8, Some(4214)) => FloatKind::F8E4M3FN,
                    (8, Some(4215)) => FloatKind::F8E5M2,
                    _ => {
                        return not_supported(
                            inst,
                            &format!("OpTypeFloat of width {width} with this encoding"),
                        )
                    }
                };
                self.ir.types.float(kind)
            }
            opcode::OpTypeVector => {
                let element = self.type_of(inst, word(inst, 2)?)?;
                let count = word(inst, 3)?;
                if count < 2 {
                    // SPIR-V: at least 2 components; MLIR cannot write `vector<0xT>`.
                    return error(inst.offset, format!("OpTypeVector has {count} components (at least 2)"));
                }
                self.ir.types.vector(u64::from(count), element)
            }
            opcode::OpTypeMatrix => {
                let column = self.type_of(inst, word(inst, 2)?)?;
                let columns = word(inst, 3)?;
                self.ir.types.intern(TypeKind::Matrix { column, columns })
            }
            opcode::OpTypeArray => {
                let element = self.type_or_forward(inst, word(inst, 2)?)?;
                let length_id = word(inst, 3)?;
                let (count, spec_length) = match self.module_values.get(&length_id) {
                    Some(ModuleValue::Constant(Constant {
                        value: Attribute::Integer { value, .. }, ..
                    })) => match u32::try_from(*value) {
                        Ok(count) => (count, None),
                        Err(_) => return error(inst.offset, format!("array length {value} is out of range")),
                    },
                    _ => {
                        let mut budget = MAX_CONSTANT_EXPR_SIZE;
                        (0, Some(self.constant_expr(inst, length_id, 0, &mut budget)?))
                    }
                };
                self.only_decorations(inst, &["ArrayStride"])?;
                let stride = self.array_stride(id)?;
                self.ir.types.intern(TypeKind::Array { element, count, stride, spec_length })
            }
            opcode::OpTypeRuntimeArray => {
                let element = self.type_or_forward(inst, word(inst, 2)?)?;
                self.only_decorations(inst, &["ArrayStride", "ArrayStrideIdEXT"])?;
                let stride = self.array_stride(id)?;
                let stride_id = self.array_stride_id(inst)?;
                self.ir.types.intern(TypeKind::RuntimeArray { element, stride, stride_id })
            }
            opcode::OpTypePointer => {
                let class = word(inst, 2)?;
                let pointee_id = word(inst, 3)?;
                let Some(storage_class) = enum_case_text("StorageClass", class) else {
                    return not_supported(inst, &format!("storage class {class}"));
                };
                let pointee = self.type_or_forward(inst, pointee_id)?;
                self.only_decorations(inst, &["ArrayStride"])?;
                let stride = self.array_stride(id)?;
                self.ir.types.intern(TypeKind::Pointer { pointee, storage_class, stride })
            }
            opcode::OpTypeForwardPointer => {
                if self.forward_pointers.len() >= MAX_FORWARD_POINTERS {
                    return not_supported(
                        inst,
                        &format!("more than {MAX_FORWARD_POINTERS} forward pointers"),
                    );
                }
                self.forward_pointers.insert(word(inst, 1)?, word(inst, 2)?);
                return Ok(());
            }
            opcode::OpTypeStruct => self.struct_type(inst)?,
            opcode::OpTypeFunction => {
                let ret = word(inst, 2)?;
                let result =
                    if self.void_types.contains(&ret) { None } else { Some(self.type_of(inst, ret)?) };
                let mut params = Vec::new();
                for &p in inst.words.get(3..).unwrap_or(&[]) {
                    params.push(self.type_of(inst, p)?);
                }
                self.function_types.insert(id, (params.clone(), result));
                self.ir.types.function(params, result.into_iter().collect())
            }
            opcode::OpTypeImage => self.image_type(inst)?,
            opcode::OpTypeSampledImage => {
                let image = self.type_of(inst, word(inst, 2)?)?;
                self.ir.types.intern(TypeKind::SampledImage(image))
            }
            opcode::OpTypeSampler => self.ir.types.intern(TypeKind::Sampler),
            opcode::OpTypeCooperativeMatrixKHR => {
                let element = self.type_of(inst, word(inst, 2)?)?;
                let scope = self.integer_constant(inst, word(inst, 3)?)?;
                let rows = self.integer_constant(inst, word(inst, 4)?)?;
                let columns = self.integer_constant(inst, word(inst, 5)?)?;
                let usage = self.integer_constant(inst, word(inst, 6)?)?;
                let (Some(scope), Some(usage)) =
                    (enum_case_text("Scope", scope), enum_case_text("CooperativeMatrixUseKHR", usage))
                else {
                    return not_supported(inst, "cooperative matrix scope or use");
                };
                self.ir.types.intern(TypeKind::CooperativeMatrix { rows, columns, element, scope, usage })
            }
            opcode::OpTypeTensorARM => self.tensor_type(inst)?,
            // Types the dialect lacks: opaque, as the serializer writes them back.
            op => match crate::fallback::opaque_type_text(inst) {
                Some(text) => self.ir.types.intern(TypeKind::Opaque(text)),
                None => return not_supported(inst, &opcode_name(op)),
            },
        };
        self.check_depth(inst, ty)?;
        self.types.insert(id, ty);
        self.type_table.insert(id, ty);
        Ok(())
    }

    /// Bounds how deeply types nest, so that everything recursing on them (the printer,
    /// the verifier) stays within its stack. A struct reached through a forward pointer
    /// counts as one level here; forward pointers are few (see `MAX_FORWARD_POINTERS`).
    fn check_depth(&mut self, inst: &Inst, ty: Type) -> Result<()> {
        let components: Vec<Type> = match self.ir.types.kind(ty) {
            TypeKind::Vector { element, .. }
            | TypeKind::Array { element, .. }
            | TypeKind::RuntimeArray { element, .. }
            | TypeKind::Image { element, .. }
            | TypeKind::CooperativeMatrix { element, .. } => vec![*element],
            TypeKind::Pointer { pointee, .. } => vec![*pointee],
            TypeKind::SampledImage(image) => vec![*image],
            TypeKind::Matrix { column, .. } => vec![*column],
            TypeKind::LiteralStruct(body) => body.members.iter().map(|m| m.ty).collect(),
            TypeKind::IdentifiedStruct { name } => self
                .ir
                .types
                .struct_body(name)
                .map(|b| b.members.iter().map(|m| m.ty).collect())
                .unwrap_or_default(),
            TypeKind::Function { inputs, results } => inputs.iter().chain(results).copied().collect(),
            _ => Vec::new(),
        };
        let depth =
            1 + components.iter().map(|c| self.type_depths.get(c).copied().unwrap_or(1)).max().unwrap_or(0);
        if depth > MAX_TYPE_DEPTH {
            return not_supported(inst, &format!("types nested more than {MAX_TYPE_DEPTH} deep"));
        }
        self.type_depths.insert(ty, depth);
        Ok(())
    }

    /// A constant an array type names by id: its length (after a literal one has been
    /// ruled out) or stride. A scalar spec constant, an integer constant,
    /// `OpConstantSizeOfEXT`, or a spec constant operation over those.
    fn constant_expr(&self, inst: &Inst, id: u32, depth: usize, budget: &mut usize) -> Result<ConstantExpr> {
        if depth > MAX_CONSTANT_EXPR_DEPTH || *budget == 0 {
            return not_supported(
                inst,
                &format!(
                    "array lengths or strides of more than {MAX_CONSTANT_EXPR_SIZE} operands or nested more than {MAX_CONSTANT_EXPR_DEPTH} deep"
                ),
            );
        }
        *budget -= 1;
        match self.module_values.get(&id) {
            Some(ModuleValue::SpecConstant { symbol, ty }) if self.ir.types.is_integer(*ty) => {
                Ok(ConstantExpr::Symbol(symbol.clone()))
            }
            Some(ModuleValue::Constant(Constant { value: Attribute::Integer { value, ty }, .. })) => {
                Ok(ConstantExpr::Constant { value: *value, ty: *ty })
            }
            Some(ModuleValue::SizeOf { of, ty }) => Ok(ConstantExpr::SizeOf { of: *of, ty: *ty }),
            Some(ModuleValue::SpecOperation { ty, opcode, operands, .. })
                if self.ir.types.is_integer(*ty) =>
            {
                // Integer arithmetic: every operand an id (no literal indexes).
                let Some(operation) = spirvkit_grammar::instruction(*opcode).filter(|i| {
                    i.operands.iter().all(|o| o.kind.category() == spirvkit_grammar::Category::Id)
                }) else {
                    return not_supported(
                        inst,
                        &format!("array length of OpSpecConstantOp {}", opcode_name(*opcode)),
                    );
                };
                let name = operation.name.strip_prefix("Op").unwrap_or(operation.name).to_string();
                let (ty, operands) = (*ty, operands.clone());
                let mut lengths = Vec::with_capacity(operands.len().min(4));
                for operand in operands {
                    lengths.push(self.constant_expr(inst, operand, depth + 1, budget)?);
                }
                let operands = lengths;
                Ok(ConstantExpr::Operation { name, operands, ty })
            }
            _ => not_supported(
                inst,
                &format!("array length or stride <id> {id} that is not an integer constant or spec constant"),
            ),
        }
    }

    /// The value of a 32-bit integer constant id (cooperative matrix parameters).
    fn integer_constant(&self, inst: &Inst, id: u32) -> Result<u32> {
        match self.module_values.get(&id) {
            Some(ModuleValue::Constant(Constant { value: Attribute::Integer { value, .. }, .. })) => {
                u32::try_from(*value)
                    .or_else(|_| error(inst.offset, format!("constant <id> {id} is out of range")))
            }
            _ => not_supported(inst, &format!("operand <id> {id} that is not an integer constant")),
        }
    }

    /// Refuses the decorations of a type that its IR type cannot hold, rather than
    /// dropping them.
    fn only_decorations(&self, inst: &Inst, allowed: &[&str]) -> Result<()> {
        let info = OperandKind::Decoration.info();
        for d in self.decorations.get(&inst.result_id).map(Vec::as_slice).unwrap_or(&[]) {
            let name = info.enumerant(d.kind).map_or("an unknown decoration", |e| e.name);
            if !allowed.contains(&name) {
                return error(d.offset, format!("not supported yet: {name} on {}", opcode_name(inst.opcode)));
            }
        }
        Ok(())
    }

    fn array_stride(&self, id: u32) -> Result<Option<u32>> {
        let stride = OperandKind::Decoration.info().enumerant_by_name("ArrayStride").map(|e| e.value);
        for d in self.decorations.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
            if Some(d.kind) == stride {
                return match d.params.first() {
                    Some(&s) => Ok(Some(s)),
                    None => error(d.offset, "ArrayStride without a stride"),
                };
            }
        }
        Ok(None)
    }

    /// An `ArrayStrideIdEXT` decoration's stride.
    fn array_stride_id(&self, inst: &Inst) -> Result<Option<ConstantExpr>> {
        let kind = OperandKind::Decoration.info().enumerant_by_name("ArrayStrideIdEXT").map(|e| e.value);
        for d in self.decorations.get(&inst.result_id).map(Vec::as_slice).unwrap_or(&[]) {
            if Some(d.kind) == kind {
                let Some(&stride) = d.params.first() else {
                    return error(d.offset, "ArrayStrideIdEXT without a stride");
                };
                let mut budget = MAX_CONSTANT_EXPR_SIZE;
                return self.constant_expr(inst, stride, 0, &mut budget).map(Some);
            }
        }
        Ok(None)
    }

    fn struct_type(&mut self, inst: &Inst) -> Result<Type> {
        let id = inst.result_id;
        let decoration_info = OperandKind::Decoration.info();
        let offset_kind = decoration_info.enumerant_by_name("Offset").map(|e| e.value);
        let mut members = Vec::new();
        for &m in inst.words.get(2..).unwrap_or(&[]) {
            let ty = self.type_or_forward(inst, m)?;
            members.push(StructMember { ty, offset: None, decorations: Vec::new() });
        }
        let mut member_decorations: Vec<(u32, u32, Option<String>)> = Vec::new();
        for (member, d) in self.member_decorations.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
            let Some(slot) = members.get_mut(*member as usize) else {
                return error(
                    d.offset,
                    format!("member decoration of member {member}, which the struct lacks"),
                );
            };
            if Some(d.kind) == offset_kind {
                slot.offset = d.params.first().copied();
                continue;
            }
            let value = decoration_value_text(d, "member")?;
            member_decorations.push((*member, d.kind, value));
        }
        // MLIR collects a member's decorations in a hash map; a literal struct sorts them
        // by decoration, an identified one keeps the map's order.
        let identified = self.names.get(&id).is_some_and(|n| !n.is_empty());
        member_decorations.sort_by_key(|&(m, _, _)| m);
        let mut ordered = Vec::with_capacity(member_decorations.len());
        for group in member_decorations.chunk_by(|a, b| a.0 == b.0) {
            let member = group[0].0;
            let entries: Vec<(u32, Option<String>)> = group.iter().map(|(_, k, v)| (*k, v.clone())).collect();
            let mut entries = dense_map_order(entries);
            if !identified {
                entries.sort_by_key(|&(k, _)| k);
            }
            ordered.extend(entries.into_iter().map(|(k, v)| (member, k, v)));
        }
        for (member, kind, value) in ordered {
            let Some(name) = decoration_info.enumerant(kind).map(|e| e.name) else {
                return error(inst.offset, format!("unknown decoration {kind}"));
            };
            if let Some(slot) = members.get_mut(member as usize) {
                slot.decorations.push((name.to_string(), value));
            }
        }
        let mut decorations = Vec::new();
        for d in self.decorations.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
            let Some(name) = decoration_info.enumerant(d.kind).map(|e| e.name) else {
                return error(d.offset, format!("unknown decoration {}", d.kind));
            };
            let value = decoration_value_text(d, "struct")?;
            decorations.push((name.to_string(), value));
        }
        // MLIR's empty struct carries no decorations.
        if members.is_empty() {
            decorations.clear();
        }
        let body = StructBody { members, decorations };
        match self.names.get(&id).filter(|n| !n.is_empty()).cloned() {
            Some(name) => {
                let mut chosen = name.clone();
                if self.ir.types.struct_body(&chosen).is_some_and(|b| *b != body) {
                    chosen = format!("{name}_{id}");
                }
                let ty = self.ir.types.intern(TypeKind::IdentifiedStruct { name: chosen.clone() });
                if self.ir.types.set_struct_body(&chosen, body).is_err() {
                    return error(
                        inst.offset,
                        format!("struct name '{chosen}' is used for different structs"),
                    );
                }
                Ok(ty)
            }
            None => Ok(self.ir.types.intern(TypeKind::LiteralStruct(body))),
        }
    }

    /// `!spirv.arm.tensor<2x3xi32>` (kept as opaque text, as the IR does): the shape is an
    /// array constant.
    fn tensor_type(&mut self, inst: &Inst) -> Result<Type> {
        let element = self.type_of(inst, word(inst, 2)?)?;
        let element_text = spirvkit_ir::text::printer::type_to_string(self.ir, element);
        // Without a rank: unranked (`*x`); with a rank but no shape: `?` per dimension.
        let (rank_id, shape_id) = match (inst.words.get(3), inst.words.get(4)) {
            (None, _) => {
                return Ok(self
                    .ir
                    .types
                    .intern(TypeKind::Opaque(format!("spirv.arm.tensor<*x{element_text}>"))))
            }
            (Some(&rank_id), None) => (rank_id, None),
            (Some(&rank_id), Some(&shape_id)) => (rank_id, Some(shape_id)),
        };
        let Some(shape_id) = shape_id else {
            let rank = match self.module_values.get(&rank_id) {
                Some(ModuleValue::Constant(Constant { value: Attribute::Integer { value, .. }, .. })) => {
                    usize::try_from(*value).ok().filter(|&r| (1..=MAX_TENSOR_RANK).contains(&r))
                }
                _ => None,
            };
            let Some(rank) = rank else {
                return not_supported(inst, "OpTypeTensorARM whose rank is not a small positive constant");
            };
            let text = format!("spirv.arm.tensor<{}{element_text}>", "?x".repeat(rank));
            return Ok(self.ir.types.intern(TypeKind::Opaque(text)));
        };
        let dims = match self.module_values.get(&shape_id) {
            Some(ModuleValue::Constant(Constant { value: Attribute::Array(parts), .. })) => parts
                .iter()
                .map(|p| match p {
                    Attribute::Integer { value, .. } => u64::try_from(*value).ok().filter(|&d| d > 0),
                    _ => None,
                })
                .collect::<Option<Vec<u64>>>(),
            _ => None,
        };
        let Some(dims) = dims.filter(|d| !d.is_empty()) else {
            return not_supported(
                inst,
                "OpTypeTensorARM whose shape is not a constant array of positive integers",
            );
        };
        if dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d)).is_none_or(|n| n > MAX_TENSOR_ELEMENTS) {
            return not_supported(inst, &format!("tensors of more than {MAX_TENSOR_ELEMENTS} elements"));
        }
        let mut text = String::from("spirv.arm.tensor<");
        for d in &dims {
            text.push_str(&format!("{d}x"));
        }
        text.push_str(&element_text);
        text.push('>');
        Ok(self.ir.types.intern(TypeKind::Opaque(text)))
    }

    /// A defined type, or a pointer declared by OpTypeForwardPointer and defined later.
    fn type_or_forward(&mut self, inst: &Inst, id: u32) -> Result<Type> {
        if !self.types.contains_key(&id) && self.forward_pointers.contains_key(&id) {
            return self.forward_pointer_type(inst, id);
        }
        self.type_of(inst, id)
    }

    /// A pointer declared by OpTypeForwardPointer and not defined yet: it points to a
    /// struct that is being (or will be) defined, which must therefore be identified by
    /// its name, as MLIR's recursive structs are.
    fn forward_pointer_type(&mut self, inst: &Inst, pointer: u32) -> Result<Type> {
        let Some(&(class, pointee)) = self.pointer_defs.get(&pointer) else {
            return error(inst.offset, format!("forward pointer <id> {pointer} is never defined"));
        };
        let Some(name) = self.names.get(&pointee).filter(|n| !n.is_empty()).cloned() else {
            return not_supported(inst, "forward pointer to a struct without a name");
        };
        let Some(storage_class) = enum_case_text("StorageClass", class) else {
            return not_supported(inst, &format!("storage class {class}"));
        };
        let pointee = self.ir.types.intern(TypeKind::IdentifiedStruct { name });
        let stride = self.array_stride(pointer)?;
        Ok(self.ir.types.intern(TypeKind::Pointer { pointee, storage_class, stride }))
    }

    fn image_type(&mut self, inst: &Inst) -> Result<Type> {
        let element_id = word(inst, 2)?;
        let element = self.type_of(inst, element_id)?;
        if inst.words.len() > 9 {
            return not_supported(inst, "OpTypeImage with an access qualifier");
        }
        let parts = [
            ("Dim", word(inst, 3)?),
            ("ImageDepthInfo", word(inst, 4)?),
            ("ImageArrayedInfo", word(inst, 5)?),
            ("ImageSamplingInfo", word(inst, 6)?),
            ("ImageSamplerUseInfo", word(inst, 7)?),
            ("ImageFormat", word(inst, 8)?),
        ];
        let mut params: [String; 6] = Default::default();
        for (slot, (enum_name, value)) in params.iter_mut().zip(parts) {
            let Some(text) = enum_case_text(enum_name, value) else {
                return not_supported(inst, &format!("OpTypeImage {enum_name} {value}"));
            };
            *slot = text;
        }
        Ok(self.ir.types.intern(TypeKind::Image { element, params }))
    }

    /// A constant's attribute, as `spirv.Constant` would hold it.
    pub(super) fn constant(&mut self, inst: &Inst) -> Result<Constant> {
        let ty = self.type_of(inst, inst.result_type)?;
        let value = match inst.opcode {
            opcode::OpConstantTrue | opcode::OpConstantFalse => {
                if !self.is_bool(ty) {
                    return error(inst.offset, format!("{} of a non-boolean type", opcode_name(inst.opcode)));
                }
                Attribute::Integer { value: i128::from(inst.opcode == opcode::OpConstantTrue), ty }
            }
            opcode::OpConstant => self.scalar_constant(inst, ty, inst.words.get(3..).unwrap_or(&[]))?,
            opcode::OpConstantNull => match self.ir.types.kind(ty).clone() {
                TypeKind::Integer { .. } => Attribute::Integer { value: 0, ty },
                TypeKind::Float(_) => Attribute::Float { value: 0.0, ty },
                TypeKind::Vector { element, .. } => {
                    let zero = match self.ir.types.kind(element) {
                        TypeKind::Integer { .. } => Attribute::Integer { value: 0, ty: element },
                        TypeKind::Float(_) => Attribute::Float { value: 0.0, ty: element },
                        _ => return not_supported(inst, "OpConstantNull of this vector type"),
                    };
                    Attribute::Dense { elements: vec![zero], ty }
                }
                TypeKind::Opaque(text) if spirvkit_ir::types::arm_tensor_parts(&text).is_some() => {
                    let element = match spirvkit_ir::types::arm_tensor_parts(&text).map(|(_, e)| e) {
                        Some(e) if e.starts_with('f') || e.starts_with("bf") => {
                            let kind = FloatKind::from_keyword(e).unwrap_or(FloatKind::F32);
                            Attribute::Float { value: 0.0, ty: self.ir.types.float(kind) }
                        }
                        Some(e) => {
                            let (signedness, width) = match e.strip_prefix("si") {
                                Some(w) => (Signedness::Signed, w),
                                None => (Signedness::Signless, e.trim_start_matches('i')),
                            };
                            let width = width.parse().unwrap_or(32);
                            Attribute::Integer { value: 0, ty: self.ir.types.integer(width, signedness) }
                        }
                        None => return not_supported(inst, "OpConstantNull of this tensor type"),
                    };
                    Attribute::Dense { elements: vec![element], ty }
                }
                // Structs, arrays, matrices, pointers, ...: MLIR 22 has no value for them
                // (its deserializer refuses them); ours is `#spirv.null`, written back as
                // the same OpConstantNull.
                _ if spirvkit_ir::attr::null_constant_allowed(&self.ir.types, ty) => {
                    Attribute::null_constant()
                }
                _ => {
                    let text = spirvkit_ir::text::printer::type_to_string(self.ir, ty);
                    return error(
                        inst.offset,
                        format!("OpConstantNull of type '{text}', which has no null value"),
                    );
                }
            },
            opcode::OpConstantCompositeReplicateEXT => {
                // `value` is the replicated constituent (of a replicate: its constituent).
                let c = word(inst, 3)?;
                let Some(ModuleValue::Constant(constituent)) = self.module_values.get(&c) else {
                    return error(inst.offset, format!("replicated constituent <id> {c} is not a constant"));
                };
                return Ok(Constant { value: constituent.value.clone(), ty, replicate: true });
            }
            opcode::OpConstantComposite => {
                let mut parts = Vec::new();
                for &c in inst.words.get(3..).unwrap_or(&[]) {
                    match self.module_values.get(&c) {
                        Some(ModuleValue::Constant(constant)) if !constant.replicate => {
                            parts.push(constant.value.clone())
                        }
                        _ => {
                            return error(
                                inst.offset,
                                format!("OpConstantComposite constituent <id> {c} is not a constant"),
                            )
                        }
                    }
                }
                match self.ir.types.kind(ty) {
                    TypeKind::Vector { shape, .. } => {
                        if shape.first().copied() != Some(parts.len() as u64) {
                            return error(
                                inst.offset,
                                "OpConstantComposite has the wrong number of constituents",
                            );
                        }
                        // A vector's elements are scalars; all equal is a splat.
                        let mut elements = parts;
                        if elements.windows(2).all(|w| w[0] == w[1]) {
                            elements.truncate(1);
                        }
                        if elements
                            .iter()
                            .any(|e| !matches!(e, Attribute::Integer { .. } | Attribute::Float { .. }))
                        {
                            return not_supported(inst, "vector constant of non-scalar constituents");
                        }
                        Attribute::Dense { elements, ty }
                    }
                    TypeKind::Array { count, .. } => {
                        if parts.len() != *count as usize {
                            return error(
                                inst.offset,
                                "OpConstantComposite has the wrong number of constituents",
                            );
                        }
                        Attribute::Array(parts)
                    }
                    // MLIR 22 has no matrix constant: ours is an array of column values
                    // (`function::matrix_constant`).
                    TypeKind::Matrix { columns, .. } => {
                        super::function::matrix_constant(inst, *columns, parts)?
                    }
                    TypeKind::Opaque(text) if spirvkit_ir::types::arm_tensor_parts(text).is_some() => {
                        let shape =
                            spirvkit_ir::types::arm_tensor_parts(text).map(|(s, _)| s).unwrap_or_default();
                        let inner: u64 = shape.iter().skip(1).product();
                        // One constituent per outer slice, so the expansion stays within the
                        // tensor's (bounded) size.
                        if shape.first().copied() != Some(parts.len() as u64) {
                            return error(
                                inst.offset,
                                "OpConstantComposite has the wrong number of constituents",
                            );
                        }
                        let mut elements = Vec::new();
                        for part in parts {
                            match part {
                                Attribute::Dense { elements: sub, .. } if sub.len() == 1 && inner > 1 => {
                                    elements.extend(std::iter::repeat_n(sub[0].clone(), inner as usize))
                                }
                                Attribute::Dense { elements: sub, .. } if sub.len() as u64 == inner => {
                                    elements.extend(sub)
                                }
                                Attribute::Dense { .. } => {
                                    return error(inst.offset, "tensor constituent of the wrong shape")
                                }
                                scalar => elements.push(scalar),
                            }
                        }
                        if elements.len() as u64 != shape.iter().product::<u64>() {
                            return error(
                                inst.offset,
                                "OpConstantComposite has the wrong number of constituents",
                            );
                        }
                        if elements.windows(2).all(|w| w[0] == w[1]) {
                            elements.truncate(1);
                        }
                        Attribute::Dense { elements, ty }
                    }
                    // MLIR 22 has no struct constant either: ours is the array of the
                    // members' values, as for matrices.
                    TypeKind::LiteralStruct(_) | TypeKind::IdentifiedStruct { .. } => {
                        let members = match self.ir.types.kind(ty) {
                            TypeKind::LiteralStruct(body) => Some(body.members.len()),
                            TypeKind::IdentifiedStruct { name } => {
                                self.ir.types.struct_body(name).map(|b| b.members.len())
                            }
                            _ => None,
                        };
                        if members != Some(parts.len()) {
                            return error(
                                inst.offset,
                                "OpConstantComposite has the wrong number of constituents",
                            );
                        }
                        Attribute::Array(parts)
                    }
                    TypeKind::CooperativeMatrix { .. } if parts.len() == 1 => {
                        Attribute::Dense { elements: parts, ty }
                    }
                    _ => {
                        let text = spirvkit_ir::text::printer::type_to_string(self.ir, ty);
                        return error(inst.offset, format!("unsupported OpConstantComposite type: '{text}'"));
                    }
                }
            }
            op => return not_supported(inst, &opcode_name(op)),
        };
        Ok(Constant { value, ty, replicate: false })
    }

    fn is_bool(&self, ty: Type) -> bool {
        matches!(self.ir.types.kind(ty), TypeKind::Integer { width: 1, .. })
    }

    /// The attribute of an OpConstant/OpSpecConstant literal of scalar type `ty`.
    fn scalar_constant(&self, inst: &Inst, ty: Type, words: &[u32]) -> Result<Attribute> {
        let bits = match words {
            [lo] => u64::from(*lo),
            [lo, hi] => u64::from(*lo) | (u64::from(*hi) << 32),
            _ => return error(inst.offset, "constant literal of an unexpected size"),
        };
        match self.ir.types.kind(ty) {
            TypeKind::Integer { width, .. } if *width > 1 => {
                Ok(Attribute::Integer { value: self.ir.types.normalize_integer(i128::from(bits), ty), ty })
            }
            TypeKind::Float(kind) => {
                let value = match kind {
                    FloatKind::F16 => half_to_f64(bits as u16),
                    FloatKind::BF16 => f64::from(f32::from_bits((bits as u32) << 16)),
                    FloatKind::F32 => f64::from(f32::from_bits(bits as u32)),
                    FloatKind::F64 => f64::from_bits(bits),
                    _ => return not_supported(inst, "8-bit float constants"),
                };
                Ok(Attribute::Float { value, ty })
            }
            _ => error(inst.offset, format!("{} of a non-scalar type", opcode_name(inst.opcode))),
        }
    }

    /// `spirv.SpecConstant`/`spirv.SpecConstantComposite` at module level.
    pub(super) fn spec_constant(&mut self, inst: &Inst) -> Result<()> {
        let ty = self.type_of(inst, inst.result_type)?;
        let id = inst.result_id;
        let symbol = self.symbol_for(id, "spirv_spec_const_");
        let (name, props, discardable) = match inst.opcode {
            opcode::OpSpecConstantCompositeReplicateEXT => {
                let c = word(inst, 3)?;
                let Some(ModuleValue::SpecConstant { symbol: part, .. }) = self.module_values.get(&c) else {
                    return not_supported(
                        inst,
                        &format!("replicated constituent <id> {c} that is not a spec constant"),
                    );
                };
                let props = vec![
                    NamedAttribute::new("constituent", Attribute::SymbolRef(vec![part.clone()])),
                    NamedAttribute::new("sym_name", Attribute::String(symbol.clone())),
                    NamedAttribute::new("type", Attribute::Type(ty)),
                ];
                ("spirv.EXT.SpecConstantCompositeReplicate", props, Vec::new())
            }
            opcode::OpSpecConstantComposite => {
                let mut parts = Vec::new();
                for &c in inst.words.get(3..).unwrap_or(&[]) {
                    match self.module_values.get(&c) {
                        Some(ModuleValue::SpecConstant { symbol, .. }) => {
                            parts.push(Attribute::SymbolRef(vec![symbol.clone()]))
                        }
                        // A plain constant, by its typed value (`gl_WorkGroupSize` of
                        // `local_size_x_id` and fixed y and z).
                        Some(ModuleValue::Constant(Constant {
                            value: value @ (Attribute::Integer { .. } | Attribute::Float { .. } | Attribute::Dense { .. }),
                            replicate: false,
                            ..
                        })) => parts.push(value.clone()),
                        _ => {
                            return not_supported(
                                inst,
                                &format!(
                                "OpSpecConstantComposite constituent <id> {c} that is neither a spec constant nor a scalar or vector constant"
                            ),
                            )
                        }
                    }
                }
                let props = vec![
                    NamedAttribute::new("constituents", Attribute::Array(parts)),
                    NamedAttribute::new("sym_name", Attribute::String(symbol.clone())),
                    NamedAttribute::new("type", Attribute::Type(ty)),
                ];
                // Its decorations (`BuiltIn WorkgroupSize`), which MLIR drops.
                let decorations = self.decoration_attrs(id)?;
                ("spirv.SpecConstantComposite", props, decorations)
            }
            _ => {
                let value = match inst.opcode {
                    opcode::OpSpecConstantTrue | opcode::OpSpecConstantFalse => {
                        if !self.is_bool(ty) {
                            return error(inst.offset, "boolean spec constant of a non-boolean type");
                        }
                        Attribute::Integer {
                            value: i128::from(inst.opcode == opcode::OpSpecConstantTrue),
                            ty,
                        }
                    }
                    _ => self.scalar_constant(inst, ty, inst.words.get(3..).unwrap_or(&[]))?,
                };
                let props = vec![
                    NamedAttribute::new("default_value", value),
                    NamedAttribute::new("sym_name", Attribute::String(symbol.clone())),
                ];
                let mut discardable = Vec::new();
                let spec_id = OperandKind::Decoration.info().enumerant_by_name("SpecId").map(|e| e.value);
                for d in self.decorations.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
                    if Some(d.kind) == spec_id {
                        let Some(&v) = d.params.first() else {
                            return error(d.offset, "SpecId without an id");
                        };
                        if !discardable.is_empty() {
                            return error(d.offset, "a spec constant decorated SpecId more than once");
                        }
                        let i32t = self.ir.types.integer(32, Signedness::Signless);
                        discardable.push(NamedAttribute::new(
                            "spec_id",
                            Attribute::Integer { value: i128::from(v as i32), ty: i32t },
                        ));
                    }
                }
                // Its other decorations (`RelaxedPrecision`), which MLIR drops.
                let mut others = self.decoration_attrs(id)?;
                others.retain(|a| a.name != "spec_id");
                discardable.extend(others);
                ("spirv.SpecConstant", props, discardable)
            }
        };
        let op = self.ir.create_op(name, vec![], &[], Location::Unknown);
        set_attributes(self.ir, op, props, discardable);
        self.ir.append_op(self.module_block, op);
        self.module_values.insert(id, ModuleValue::SpecConstant { symbol, ty });
        Ok(())
    }
}

/// A struct or member decoration's value as the struct type spells it: a number, or
/// an MLIR string literal for a string decoration (`UserSemantic="TEXCOORD0"`).
fn decoration_value_text(d: &super::Decoration, what: &str) -> Result<Option<String>> {
    let is_string = OperandKind::Decoration
        .info()
        .enumerant(d.kind)
        .is_some_and(|e| matches!(e.parameters, [p] if p.kind == OperandKind::LiteralString));
    match d.params.as_slice() {
        [] => Ok(None),
        words if is_string => {
            Ok(Some(spirvkit_ir::text::lexer::escape(&spirvkit_binary::module::string_bytes(words))))
        }
        [v] => Ok(Some(v.to_string())),
        _ => error(d.offset, format!("not supported yet: {what} decoration with several operands")),
    }
}

/// An IEEE half's value.
fn half_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let fraction = f64::from(bits & 0x3ff);
    match exponent {
        0 => sign * fraction * 2f64.powi(-24),
        0x1f if fraction == 0.0 => sign * f64::INFINITY,
        0x1f => f64::NAN,
        _ => sign * (1.0 + fraction / 1024.0) * 2f64.powi(exponent - 15),
    }
}

/// The iteration order of an LLVM `DenseMap<uint32_t, T>` filled with `entries` in order
/// (a later entry with the same key replaces the value in place): 64 buckets at first,
/// hash `key * 37`, quadratic probing, growing past three-quarters full.
fn dense_map_order<T>(entries: Vec<(u32, T)>) -> Vec<(u32, T)> {
    let mut buckets: Vec<Option<(u32, T)>> = Vec::new();
    buckets.resize_with(64, || None);
    let mut count = 0usize;
    for (key, value) in entries {
        let at = dense_map_probe(&buckets, key);
        if let Some(slot) = &mut buckets[at] {
            slot.1 = value;
            continue;
        }
        if (count + 1) * 4 >= buckets.len() * 3 {
            let old = std::mem::take(&mut buckets);
            buckets.resize_with(old.len() * 2, || None);
            for (k, v) in old.into_iter().flatten() {
                let at = dense_map_probe(&buckets, k);
                buckets[at] = Some((k, v));
            }
        }
        let at = dense_map_probe(&buckets, key);
        buckets[at] = Some((key, value));
        count += 1;
    }
    buckets.into_iter().flatten().collect()
}

/// The bucket holding `key`, or the empty bucket where it would go (the table is never
/// full, so the probe ends).
fn dense_map_probe<T>(buckets: &[Option<(u32, T)>], key: u32) -> usize {
    let mask = buckets.len() - 1;
    let mut at = (key.wrapping_mul(37) as usize) & mask;
    let mut probe = 1;
    while let Some((k, _)) = &buckets[at] {
        if *k == key {
            break;
        }
        at = (at + probe) & mask;
        probe += 1;
    }
    at
}

#[cfg(test)]
mod tests;
