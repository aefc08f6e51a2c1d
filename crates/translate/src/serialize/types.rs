//! Types (`OpType*`, uniqued) and constants (`OpConstant*`, uniqued by attribute).

use super::attrs::{enum_case_value, enumerant};
use super::{encode, Result, Serializer, TypeKey, MAX_DEPTH};
use spirvkit_grammar::opcode;
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::types::{ConstantExpr, FloatKind, Signedness, StructBody, Type, TypeKind};
use spirvkit_ir::OpId;

/// What preparing a type produced.
enum Prepared {
    /// Emit this instruction with the collected operands.
    Emit(u16),
    /// A pointer to a struct being serialized: emitted when the struct is done.
    Deferred,
}

impl Serializer<'_> {
    /// How `ty` is keyed for uniquing.
    pub(super) fn type_key(&self, ty: Type) -> TypeKey {
        match self.ir.types.kind(ty) {
            TypeKind::Integer { width, signedness } => {
                TypeKey::Int { width: *width, signed: *signedness == Signedness::Signed }
            }
            TypeKind::Float(kind) => TypeKey::Float(*kind),
            TypeKind::None => TypeKey::Void,
            TypeKind::Array { element, count, stride, spec_length } => TypeKey::Array {
                element: Box::new(self.type_key(*element)),
                count: *count,
                stride: *stride,
                spec_length: spec_length.clone(),
            },
            TypeKind::Opaque(text) => arm_tensor_key(text).unwrap_or(TypeKey::Other(ty)),
            TypeKind::Vector { shape, element, .. } => TypeKey::Vector {
                element: Box::new(self.type_key(*element)),
                count: shape.iter().fold(1u64, |n, &d| n.saturating_mul(d)) as u32,
            },
            TypeKind::Matrix { column, columns } => {
                TypeKey::Matrix { column: Box::new(self.type_key(*column)), count: *columns }
            }
            TypeKind::RuntimeArray { element, stride, stride_id } => TypeKey::RuntimeArray {
                element: Box::new(self.type_key(*element)),
                stride: *stride,
                stride_id: stride_id.clone(),
            },
            TypeKind::Pointer { pointee, storage_class, stride } => TypeKey::Pointer {
                pointee: Box::new(self.type_key(*pointee)),
                storage_class: storage_class.clone(),
                stride: *stride,
            },
            TypeKind::Function { inputs, results } if results.len() <= 1 => TypeKey::Function {
                inputs: inputs.iter().map(|&t| self.type_key(t)).collect(),
                result: results.first().map(|&r| Box::new(self.type_key(r))),
            },
            _ => TypeKey::Other(ty),
        }
    }

    /// `OpTypeVoid`'s id.
    pub(super) fn void_type(&mut self) -> u32 {
        if let Some(&id) = self.type_ids.get(&TypeKey::Void) {
            return id;
        }
        let id = self.next();
        self.type_ids.insert(TypeKey::Void, id);
        encode(&mut self.globals, opcode::OpTypeVoid, &[id]);
        id
    }

    /// The id of `ty`, emitting its instruction (and its components') on first use.
    pub(super) fn process_type(&mut self, at: OpId, ty: Type) -> Result<u32> {
        if let Some(&Some(id)) = self.type_cache.get(ty.index()) {
            return Ok(id);
        }
        if !self.options.dxc_decoration_order {
            return self.process_type_uncached(at, ty);
        }
        let start = self.decorations.len();
        self.type_depth += 1;
        let result = self.process_type_uncached(at, ty);
        self.type_depth -= 1;
        if self.type_depth == 0 && self.decorations.len() > start {
            let moved: Vec<u32> = self.decorations.drain(start..).collect();
            self.type_decorations.extend(moved);
        }
        result
    }

    fn process_type_uncached(&mut self, at: OpId, ty: Type) -> Result<u32> {
        let key = self.type_key(ty);
        let (id, uniqued) = self.process_key_uniqued(at, key)?;
        // A deferred pointer is not uniqued yet: it is looked up again next time.
        if uniqued {
            let i = ty.index();
            if i >= self.type_cache.len() {
                self.type_cache.resize(i + 1, None);
            }
            self.type_cache[i] = Some(id);
        }
        Ok(id)
    }

    pub(super) fn process_key(&mut self, at: OpId, key: TypeKey) -> Result<u32> {
        self.process_key_uniqued(at, key).map(|(id, _)| id)
    }

    /// [`Self::process_key`], and whether the id is now in `type_ids` (not a
    /// pointer deferred until its struct is done).
    fn process_key_uniqued(&mut self, at: OpId, key: TypeKey) -> Result<(u32, bool)> {
        if key == TypeKey::Void {
            return Ok((self.void_type(), true));
        }
        if let Some(&id) = self.type_ids.get(&key) {
            return Ok((id, true));
        }
        if self.depth > MAX_DEPTH {
            return Err(self.error(at, "not supported yet: types nested this deeply"));
        }
        self.depth += 1;
        let id = self.next();
        let mut operands = vec![id];
        let prepared = self.prepare_key(at, &key, id, &mut operands);
        self.depth -= 1;
        match prepared? {
            Prepared::Deferred => Ok((id, false)),
            Prepared::Emit(op) => {
                let named = match &key {
                    TypeKey::Other(ty) => match self.ir.types.kind(*ty) {
                        TypeKind::IdentifiedStruct { name } => Some(name.clone()),
                        _ => None,
                    },
                    _ => None,
                };
                self.type_ids.insert(key, id);
                encode(&mut self.globals, op, &operands);
                if let Some(name) = named {
                    for (pointer, storage) in self.recursive_pointers.remove(&name).unwrap_or_default() {
                        encode(&mut self.globals, opcode::OpTypePointer, &[pointer, storage, id]);
                    }
                }
                Ok((id, true))
            }
        }
    }

    fn prepare_key(&mut self, at: OpId, key: &TypeKey, id: u32, operands: &mut Vec<u32>) -> Result<Prepared> {
        Ok(Prepared::Emit(match key {
            TypeKey::Void => opcode::OpTypeVoid,
            TypeKey::Int { width: 1, .. } => opcode::OpTypeBool,
            TypeKey::Int { width, signed } => {
                operands.extend([*width, u32::from(*signed)]);
                opcode::OpTypeInt
            }
            TypeKey::Float(kind) => {
                operands.push(kind.width());
                let encoding = match kind {
                    FloatKind::BF16 => Some("BFloat16KHR"),
                    FloatKind::F8E4M3FN => Some("Float8E4M3EXT"),
                    FloatKind::F8E5M2 => Some("Float8E5M2EXT"),
                    _ => None,
                };
                if let Some(encoding) = encoding {
                    let Some(value) = enumerant("FPEncoding", encoding) else {
                        return Err(self.error(at, format!("not supported yet: {} floats", kind.keyword())));
                    };
                    operands.push(value);
                }
                opcode::OpTypeFloat
            }
            TypeKey::Array { element, count, stride, spec_length } => {
                let element = self.process_key(at, (**element).clone())?;
                operands.push(element);
                let length = match spec_length {
                    Some(spec_length) => self.constant_expr(at, spec_length)?,
                    None => self.constant_int(at, i128::from(*count), 32, false, false)?,
                };
                operands.push(length);
                if let Some(stride) = stride.filter(|&s| s != 0) {
                    self.emit_decoration(id, decoration("ArrayStride"), &[stride]);
                }
                opcode::OpTypeArray
            }
            TypeKey::ArmTensor { shape, element } => {
                let element_key = (**element).clone();
                let element = self.process_key(at, element_key)?;
                operands.push(element);
                if let Some(dims) = shape {
                    let rank = self.constant_int(at, dims.len() as i128, 32, false, false)?;
                    operands.push(rank);
                    if !dims.is_empty() && dims.iter().all(|&d| d > 0) {
                        // The shape is an i32 array constant, not uniqued (as MLIR does).
                        let i32_key = TypeKey::Int { width: 32, signed: false };
                        let array = TypeKey::Array {
                            element: Box::new(i32_key),
                            count: dims.len() as u32,
                            stride: None,
                            spec_length: None,
                        };
                        let array_id = self.process_key(at, array)?;
                        let shape_id = self.next();
                        let mut words = vec![array_id, shape_id];
                        for &d in dims {
                            words.push(self.constant_int(at, i128::from(d), 32, false, false)?);
                        }
                        encode(&mut self.globals, opcode::OpConstantComposite, &words);
                        operands.push(shape_id);
                    }
                }
                opcode::OpTypeTensorARM
            }
            TypeKey::Graph(ty) => {
                let TypeKind::Function { inputs, results } = self.ir.types.kind(*ty) else {
                    return Err(self.error(at, "a graph needs a function type"));
                };
                operands.push(inputs.len() as u32);
                for &t in inputs.iter().chain(results) {
                    let t = self.process_type(at, t)?;
                    operands.push(t);
                }
                opcode::OpTypeGraphARM
            }
            TypeKey::Vector { element, count } => {
                let element = self.process_key(at, (**element).clone())?;
                operands.extend([element, *count]);
                opcode::OpTypeVector
            }
            TypeKey::Matrix { column, count } => {
                let column = self.process_key(at, (**column).clone())?;
                operands.extend([column, *count]);
                opcode::OpTypeMatrix
            }
            TypeKey::RuntimeArray { element, stride, stride_id } => {
                let element = self.process_key(at, (**element).clone())?;
                operands.push(element);
                if let Some(stride) = stride.filter(|&s| s != 0) {
                    self.emit_decoration(id, decoration("ArrayStride"), &[stride]);
                }
                if let Some(stride_id) = stride_id {
                    let stride = self.constant_expr(at, stride_id)?;
                    encode(
                        &mut self.decorations,
                        opcode::OpDecorateId,
                        &[id, decoration("ArrayStrideIdEXT"), stride],
                    );
                }
                opcode::OpTypeRuntimeArray
            }
            TypeKey::Pointer { pointee, storage_class, stride } => {
                let Some(storage) = enumerant("StorageClass", storage_class) else {
                    return Err(self.error(at, format!("not supported yet: storage class {storage_class}")));
                };
                if let Some(stride) = stride {
                    self.emit_decoration(id, decoration("ArrayStride"), &[*stride]);
                }
                let pointee_type = match **pointee {
                    TypeKey::Other(ty) => Some(ty),
                    _ => None,
                };
                if let Some(TypeKind::IdentifiedStruct { name }) = pointee_type.map(|t| self.ir.types.kind(t))
                {
                    if self.struct_context.iter().any(|n| n == name) {
                        encode(&mut self.globals, opcode::OpTypeForwardPointer, &[id, storage]);
                        self.recursive_pointers.entry(name.clone()).or_default().push((id, storage));
                        return Ok(Prepared::Deferred);
                    }
                }
                let pointee_id = self.process_key(at, (**pointee).clone())?;
                operands.extend([storage, pointee_id]);
                // Interface blocks need `Block`; MLIR adds it when the struct lacks it,
                // but only to the struct of a variable: a pointer into a block (an
                // access chain's) must not make the inner struct a block too.
                let interface = matches!(
                    storage_class.as_str(),
                    "PhysicalStorageBuffer" | "PushConstant" | "StorageBuffer" | "Uniform"
                ) && pointee_type.is_some_and(|t| self.variable_pointees.contains(&t));
                if let Some(body) = pointee_type.filter(|_| interface).and_then(|t| self.struct_body(t)) {
                    if !body.decorations.iter().any(|(d, _)| d == "Block" || d == "BufferBlock") {
                        self.emit_decoration(pointee_id, decoration("Block"), &[]);
                    }
                }
                opcode::OpTypePointer
            }
            TypeKey::Function { inputs, result } => {
                let result = match result {
                    Some(r) => self.process_key(at, (**r).clone())?,
                    None => self.void_type(),
                };
                operands.push(result);
                for input in inputs {
                    let input = self.process_key(at, input.clone())?;
                    operands.push(input);
                }
                opcode::OpTypeFunction
            }
            TypeKey::Other(ty) => return self.prepare_type(at, *ty, id, operands),
        }))
    }

    /// The id of an array length or stride given by id: the spec constant's or the
    /// constant's, or a new `OpSpecConstantOp` or `OpConstantSizeOfEXT` (not uniqued,
    /// as `spirv.SpecConstantOperation`s are not).
    fn constant_expr(&mut self, at: OpId, expr: &ConstantExpr) -> Result<u32> {
        match expr {
            ConstantExpr::Symbol(name) => self.spec_constant_ids.get(name).copied().ok_or_else(|| {
                self.error(
                    at,
                    format!("not supported yet: an array type naming @{name} before its spirv.SpecConstant"),
                )
            }),
            ConstantExpr::SizeOf { of, ty } => {
                let type_id = self.process_type(at, *ty)?;
                let of = self.process_type(at, *of)?;
                let id = self.next();
                encode(&mut self.globals, opcode::OpConstantSizeOfEXT, &[type_id, id, of]);
                Ok(id)
            }
            ConstantExpr::Constant { value, ty } => {
                let attr = Attribute::Integer { value: *value, ty: *ty };
                self.constant_scalar(at, &attr, false)?
                    .ok_or_else(|| self.error(at, "an array length or stride constant must be an integer"))
            }
            ConstantExpr::Operation { name, operands, ty } => {
                let Some(inst) = spirvkit_grammar::instruction_by_name(&format!("Op{name}")) else {
                    return Err(
                        self.error(at, format!("an array length or stride of unknown operation {name}"))
                    );
                };
                if self.depth > MAX_DEPTH {
                    return Err(
                        self.error(at, "not supported yet: array lengths or strides nested this deeply")
                    );
                }
                self.depth += 1;
                let operand_ids = self.constant_expr_operands(at, operands);
                self.depth -= 1;
                let operand_ids = operand_ids?;
                let type_id = self.process_type(at, *ty)?;
                let id = self.next();
                let mut words = vec![type_id, id, u32::from(inst.opcode)];
                words.extend(operand_ids);
                encode(&mut self.globals, opcode::OpSpecConstantOp, &words);
                Ok(id)
            }
        }
    }

    fn constant_expr_operands(&mut self, at: OpId, operands: &[ConstantExpr]) -> Result<Vec<u32>> {
        operands.iter().map(|operand| self.constant_expr(at, operand)).collect()
    }

    fn prepare_type(&mut self, at: OpId, ty: Type, id: u32, operands: &mut Vec<u32>) -> Result<Prepared> {
        let ir = self.ir;
        if let Some(name) = ir.types.type_name(ty) {
            self.process_name(id, name);
        }
        let unsupported = |s: &Self| {
            s.error(
                at,
                format!(
                    "not supported yet: type {} in serialization",
                    spirvkit_ir::text::printer::type_to_string(ir, ty)
                ),
            )
        };
        Ok(Prepared::Emit(match ir.types.kind(ty) {
            // A type the dialect lacks, kept opaque by the deserializer (`crate::fallback`).
            TypeKind::Opaque(text) if crate::fallback::opaque_type_instruction(text).is_some() => {
                let (opcode, words) = crate::fallback::opaque_type_instruction(text).unwrap_or_default();
                operands.extend(words);
                opcode
            }
            TypeKind::Image { element, params } => {
                let sampled = self.process_type(at, *element)?;
                operands.push(sampled);
                let kinds = [
                    "Dim",
                    "ImageDepthInfo",
                    "ImageArrayedInfo",
                    "ImageSamplingInfo",
                    "ImageSamplerUseInfo",
                    "ImageFormat",
                ];
                for (kind, text) in kinds.iter().zip(params.iter()) {
                    operands.push(enum_case_value(kind, text).ok_or_else(|| unsupported(self))?);
                }
                opcode::OpTypeImage
            }
            TypeKind::SampledImage(image) => {
                let image = self.process_type(at, *image)?;
                operands.push(image);
                opcode::OpTypeSampledImage
            }
            TypeKind::Sampler => opcode::OpTypeSampler,
            TypeKind::LiteralStruct(_) | TypeKind::IdentifiedStruct { .. } => {
                let name = match ir.types.kind(ty) {
                    TypeKind::IdentifiedStruct { name } => Some(name.clone()),
                    _ => None,
                };
                let Some(body) = self.struct_body(ty) else { return Err(unsupported(self)) };
                if let Some(name) = &name {
                    // A debug name set apart (several structs dxc names alike) replaces
                    // the identifier; a laid-out copy takes its source struct's name.
                    if ir.types.type_name(ty).is_none() {
                        let source_name = self.options.struct_names.get(name).unwrap_or(name);
                        self.process_name(id, &source_name.clone());
                    }
                    self.process_member_names(id, name, body.members.len());
                    self.struct_context.push(name.clone());
                }
                let has_offset = body.members.iter().any(|m| m.offset.is_some());
                let dxc_order = self.options.dxc_decoration_order;
                for (index, member) in body.members.iter().enumerate() {
                    let member_id = self.process_type(at, member.ty)?;
                    operands.push(member_id);
                    if has_offset && !dxc_order {
                        let offset = member.offset.unwrap_or(0);
                        self.member_decoration(id, index as u32, decoration("Offset"), Some(offset));
                    }
                }
                let mut member_decorations = Vec::new();
                for (index, member) in body.members.iter().enumerate() {
                    if has_offset && dxc_order {
                        // dxc writes each member's offset first, then its other decorations.
                        member_decorations.push((
                            index as u32,
                            decoration("Offset"),
                            Some(member.offset.unwrap_or(0).to_string()),
                        ));
                    }
                    for (name, value) in &member.decorations {
                        let Some(d) = enumerant("Decoration", name) else {
                            return Err(self.error(at, format!("unknown member decoration {name}")));
                        };
                        member_decorations.push((index as u32, d, value.clone()));
                    }
                }
                for (index, d, value) in member_decorations {
                    let value = value.as_deref();
                    let Some(value) = value.map(str::trim) else {
                        self.member_decoration(id, index, d, None);
                        continue;
                    };
                    if value.starts_with('"') {
                        // A string decoration (`UserSemantic="TEXCOORD0"`).
                        let mut operands = vec![id, index, d];
                        let text = spirvkit_ir::text::lexer::unescape(value);
                        spirvkit_binary::write::encode_string(&text, &mut operands);
                        encode(&mut self.decorations, opcode::OpMemberDecorateString, &operands);
                        continue;
                    }
                    let Ok(number) = value.parse::<i64>() else {
                        return Err(
                            self.error(at, format!("not supported yet: member decoration value {value}"))
                        );
                    };
                    self.member_decoration(id, index, d, Some(number as u32));
                }
                for (name, value) in &body.decorations {
                    let Some(d) = enumerant("Decoration", name) else {
                        return Err(self.error(at, format!("unknown struct decoration {name}")));
                    };
                    let value = match value {
                        Some(v) => match v.trim().parse::<i64>() {
                            Ok(n) => Attribute::Integer { value: n.into(), ty },
                            Err(_) => {
                                Attribute::String(spirvkit_ir::text::lexer::unescape_to_string(v.trim()))
                            }
                        },
                        None => Attribute::Unit,
                    };
                    let name =
                        spirvkit_grammar::OperandKind::Decoration.info().enumerant(d).map_or("", |e| e.name);
                    self.process_decoration_value(at, id, name, d, &value)?;
                }
                if name.is_some() {
                    self.struct_context.pop();
                }
                opcode::OpTypeStruct
            }
            TypeKind::CooperativeMatrix { rows, columns, element, scope, usage } => {
                let element = self.process_type(at, *element)?;
                let scope = enum_case_value("Scope", scope).ok_or_else(|| unsupported(self))?;
                let usage =
                    enum_case_value("CooperativeMatrixUseKHR", usage).ok_or_else(|| unsupported(self))?;
                operands.push(element);
                for value in [scope, *rows, *columns, usage] {
                    let id = self.constant_i32(at, value)?;
                    operands.push(id);
                }
                opcode::OpTypeCooperativeMatrixKHR
            }
            _ => return Err(unsupported(self)),
        }))
    }

    fn struct_body(&self, ty: Type) -> Option<StructBody> {
        match self.ir.types.kind(ty) {
            TypeKind::LiteralStruct(body) => Some(body.clone()),
            TypeKind::IdentifiedStruct { name } => {
                Some(self.ir.types.struct_body(name).cloned().unwrap_or_default())
            }
            _ => None,
        }
    }

    /// `OpMemberName` for each named member of identified struct `name` (the type
    /// store's member names), with symbol names on; names past its `members` are
    /// not written (they would name no member).
    fn process_member_names(&mut self, id: u32, name: &str, members: usize) {
        if !self.options.emit_symbol_names {
            return;
        }
        let ir = self.ir;
        let Some(names) = ir.types.struct_member_names(name) else { return };
        for (index, member) in names.iter().take(members).enumerate().filter(|(_, m)| !m.is_empty()) {
            let at = self.names.len();
            self.names.extend([0, id, index as u32]);
            spirvkit_binary::write::encode_string(member.as_bytes(), &mut self.names);
            super::set_word_count(&mut self.names, at, opcode::OpMemberName);
        }
    }

    fn member_decoration(&mut self, id: u32, member: u32, decoration: u32, value: Option<u32>) {
        let mut operands = vec![id, member, decoration];
        operands.extend(value);
        encode(&mut self.decorations, opcode::OpMemberDecorate, &operands);
    }

    /// The constant `value : i32` (array lengths, scopes and semantics as ids).
    pub(super) fn constant_i32(&mut self, at: OpId, value: u32) -> Result<u32> {
        self.constant_int(at, i128::from(value as i32), 32, false, false)
    }

    /// An integer constant (`OpConstant`/`OpSpecConstant`) of an `OpTypeInt`.
    pub(super) fn constant_int(
        &mut self,
        at: OpId,
        value: i128,
        width: u32,
        signed: bool,
        spec: bool,
    ) -> Result<u32> {
        self.constant_int_attr(at, value, width, signed, false, spec)
    }

    /// An integer constant; `unsigned` marks a `uiN` attribute, which MLIR keeps
    /// apart from the signless one of the same value (same type instruction).
    fn constant_int_attr(
        &mut self,
        at: OpId,
        value: i128,
        width: u32,
        signed: bool,
        unsigned: bool,
        spec: bool,
    ) -> Result<u32> {
        if width == 1 {
            return self.constant_bool(at, value != 0, spec);
        }
        let key = ConstantKey::int(width, signed, unsigned, value);
        if !spec {
            if let Some(&id) = self.constant_ids.get(&key) {
                return Ok(id);
            }
        }
        let type_id = self.process_key(at, TypeKey::Int { width, signed })?;
        let id = self.next();
        let op = if spec { opcode::OpSpecConstant } else { opcode::OpConstant };
        match width {
            8 | 16 | 32 => {
                let word = if signed {
                    value as i32 as u32
                } else {
                    (value as u128 & ((1u128 << width) - 1)) as u32
                };
                encode(&mut self.globals, op, &[type_id, id, word]);
            }
            64 => {
                let bits = value as u64;
                encode(&mut self.globals, op, &[type_id, id, bits as u32, (bits >> 32) as u32]);
            }
            _ => {
                let shown = if width > 0 && width < 128 {
                    value as u128 & ((1u128 << width) - 1)
                } else {
                    value as u128
                };
                return Err(self.error(at, format!("cannot serialize {width}-bit integer literal: {shown}")));
            }
        }
        if !spec {
            self.constant_ids.insert(key, id);
        }
        Ok(id)
    }

    pub(super) fn constant_bool(&mut self, at: OpId, value: bool, spec: bool) -> Result<u32> {
        let key = ConstantKey::Bool(value);
        if !spec {
            if let Some(&id) = self.constant_ids.get(&key) {
                return Ok(id);
            }
        }
        let type_id = self.process_key(at, TypeKey::Int { width: 1, signed: false })?;
        let id = self.next();
        let op = match (value, spec) {
            (true, false) => opcode::OpConstantTrue,
            (false, false) => opcode::OpConstantFalse,
            (true, true) => opcode::OpSpecConstantTrue,
            (false, true) => opcode::OpSpecConstantFalse,
        };
        encode(&mut self.globals, op, &[type_id, id]);
        if !spec {
            self.constant_ids.insert(key, id);
        }
        Ok(id)
    }

    pub(super) fn constant_float(
        &mut self,
        at: OpId,
        value: f64,
        kind: FloatKind,
        spec: bool,
    ) -> Result<u32> {
        // The literal's words (one, or two for a double), as the key's bits.
        let (words, count): ([u32; 2], usize) = match kind {
            FloatKind::F16 => ([u32::from(f64_to_f16_bits(value)), 0], 1),
            FloatKind::BF16 => ([(value as f32).to_bits() >> 16, 0], 1),
            FloatKind::F32 => ([(value as f32).to_bits(), 0], 1),
            FloatKind::F64 => {
                let bits = value.to_bits();
                ([bits as u32, (bits >> 32) as u32], 2)
            }
            _ => return Err(self.error(at, format!("cannot serialize {}-bit float literal", kind.width()))),
        };
        let words = words.get(..count).unwrap_or(&[]);
        let bits = words.iter().rev().fold(0u64, |bits, &w| (bits << 32) | u64::from(w));
        let key = ConstantKey::Float { kind, bits };
        if !spec {
            if let Some(&id) = self.constant_ids.get(&key) {
                return Ok(id);
            }
        }
        let type_id = self.process_key(at, TypeKey::Float(kind))?;
        let id = self.next();
        let op = if spec { opcode::OpSpecConstant } else { opcode::OpConstant };
        let mut operands = vec![type_id, id];
        operands.extend(words);
        encode(&mut self.globals, op, &operands);
        if !spec {
            self.constant_ids.insert(key, id);
        }
        Ok(id)
    }

    /// A scalar constant attribute (`None`: not a scalar).
    pub(super) fn constant_scalar(&mut self, at: OpId, attr: &Attribute, spec: bool) -> Result<Option<u32>> {
        let key = match attr {
            Attribute::Float { ty, .. } | Attribute::Integer { ty, .. } => self.type_key(*ty),
            Attribute::Bool(_) => TypeKey::Int { width: 1, signed: false },
            _ => return Ok(None),
        };
        self.constant_scalar_of(at, &key, attr, spec).map(Some)
    }

    /// A scalar constant of the scalar type `key` with the value of `attr`.
    fn constant_scalar_of(&mut self, at: OpId, key: &TypeKey, attr: &Attribute, spec: bool) -> Result<u32> {
        match (key, attr) {
            (TypeKey::Float(kind), Attribute::Float { value, .. }) => {
                self.constant_float(at, *value, *kind, spec)
            }
            (TypeKey::Float(kind), Attribute::Integer { value, .. }) => {
                self.constant_float(at, *value as f64, *kind, spec)
            }
            (TypeKey::Int { width, signed }, Attribute::Integer { value, ty }) => {
                let unsigned = self.is_unsigned(*ty);
                self.constant_int_attr(at, *value, *width, *signed, unsigned, spec)
            }
            (TypeKey::Int { width, signed }, Attribute::Bool(b)) => {
                self.constant_int(at, i128::from(*b), *width, *signed, spec)
            }
            _ => Err(self.error(at, format!("cannot serialize attribute: {attr:?}"))),
        }
    }

    /// A constant of type `ty` with value `attr`: scalars, dense elements and arrays.
    pub(super) fn constant(&mut self, at: OpId, ty: Type, attr: &Attribute) -> Result<u32> {
        // A scalar is keyed by its attribute alone: no need for the type's key.
        if let Some(id) = self.constant_scalar(at, attr, false)? {
            return Ok(id);
        }
        // A value that names its type (not an array, not a null) is keyed without
        // it: a constant made before is found without building the type's key.
        if !value_needs_type(attr) {
            if let Some(&id) = self.constant_ids.get(&ConstantKey::composite(None, attr)) {
                return Ok(id);
            }
        }
        let key = self.type_key(ty);
        self.uniqued_composite(at, key, attr)
    }

    pub(super) fn constant_of(&mut self, at: OpId, ty: TypeKey, attr: &Attribute) -> Result<u32> {
        if let Some(id) = self.constant_scalar(at, attr, false)? {
            return Ok(id);
        }
        self.uniqued_composite(at, ty, attr)
    }

    /// A constant that is not a scalar, made once per value (and type, for arrays).
    fn uniqued_composite(&mut self, at: OpId, ty: TypeKey, attr: &Attribute) -> Result<u32> {
        // An array value alone does not name its type (arrays and matrices of the same
        // columns, strides), nor does a null, so the type is part of the key.
        let key = ConstantKey::composite(value_needs_type(attr).then(|| ty.clone()), attr);
        if let Some(&id) = self.constant_ids.get(&key) {
            return Ok(id);
        }
        if self.depth > MAX_DEPTH {
            return Err(self.error(at, "not supported yet: constants nested this deeply"));
        }
        self.depth += 1;
        let result = self.constant_composite(at, ty, attr);
        self.depth -= 1;
        let id = result?;
        self.constant_ids.insert(key, id);
        Ok(id)
    }

    fn constant_composite(&mut self, at: OpId, ty: TypeKey, attr: &Attribute) -> Result<u32> {
        self.process_key(at, ty.clone())?;
        match attr {
            Attribute::Dense { elements, ty: shaped } => {
                let (shape, scalar): (Vec<u64>, TypeKey) = match self.ir.types.kind(*shaped) {
                    TypeKind::Vector { shape, element, .. } => (shape.clone(), self.type_key(*element)),
                    TypeKind::CooperativeMatrix { rows, columns, element, .. } => {
                        (vec![u64::from(*rows), u64::from(*columns)], self.type_key(*element))
                    }
                    TypeKind::Tensor { shape: Some(shape), element } => {
                        (shape.iter().map(|d| d.unwrap_or(0)).collect(), self.type_key(*element))
                    }
                    TypeKind::Opaque(text) => match arm_tensor_key(text) {
                        Some(TypeKey::ArmTensor { shape: Some(dims), element }) => {
                            (dims.iter().map(|&d| d.max(0) as u64).collect(), *element)
                        }
                        _ => return Err(self.error(at, format!("cannot serialize attribute: {attr:?}"))),
                    },
                    _ => return Err(self.error(at, format!("cannot serialize attribute: {attr:?}"))),
                };
                let level = DenseLevel { elements, shape: &shape, scalar: &scalar };
                self.dense_constant(at, ty, &level, 0, 0)
            }
            Attribute::Array(items) => {
                let type_id = self.process_key(at, ty.clone())?;
                let id = self.next();
                // A struct's values are its members' (the verifier checked the count);
                // any other composite's are all of its element type.
                let members: Option<Vec<TypeKey>> = match &ty {
                    TypeKey::Other(t) => {
                        self.struct_body(*t).map(|b| b.members.iter().map(|m| self.type_key(m.ty)).collect())
                    }
                    _ => None,
                };
                let element_type = self.element_key(&ty);
                let mut operands = vec![type_id, id];
                for (index, item) in items.iter().enumerate() {
                    let item_type = match &members {
                        Some(members) => members.get(index).cloned(),
                        None => element_type.clone(),
                    };
                    let Some(item_type) = item_type else {
                        return Err(self.error(at, format!("cannot serialize attribute: {attr:?}")));
                    };
                    operands.push(self.constant_of(at, item_type, item)?);
                }
                encode(&mut self.globals, opcode::OpConstantComposite, &operands);
                Ok(id)
            }
            _ if attr.is_null_constant() => {
                let type_id = self.process_key(at, ty)?;
                let id = self.next();
                encode(&mut self.globals, opcode::OpConstantNull, &[type_id, id]);
                Ok(id)
            }
            _ => Err(self.error(at, format!("not supported yet: constant attribute {attr:?}"))),
        }
    }

    /// The first element type of a composite (MLIR's `getElementType(0)`).
    pub(super) fn element_type(&self, ty: Type) -> Option<Type> {
        match self.ir.types.kind(ty) {
            TypeKind::Vector { element, .. }
            | TypeKind::Array { element, .. }
            | TypeKind::RuntimeArray { element, .. }
            | TypeKind::CooperativeMatrix { element, .. } => Some(*element),
            TypeKind::Matrix { column, .. } => Some(*column),
            TypeKind::LiteralStruct(_) | TypeKind::IdentifiedStruct { .. } => {
                self.struct_body(ty).and_then(|b| b.members.first().map(|m| m.ty))
            }
            _ => None,
        }
    }

    /// The element type of a composite key; an ARM tensor's is the tensor of its
    /// inner dimensions (a scalar for rank 1).
    pub(super) fn element_key(&self, key: &TypeKey) -> Option<TypeKey> {
        match key {
            TypeKey::Array { element, .. }
            | TypeKey::Vector { element, .. }
            | TypeKey::RuntimeArray { element, .. } => Some((**element).clone()),
            TypeKey::Matrix { column, .. } => Some((**column).clone()),
            TypeKey::ArmTensor { shape: Some(dims), element } => Some(if dims.len() > 1 {
                TypeKey::ArmTensor { shape: Some(dims[1..].to_vec()), element: element.clone() }
            } else {
                (**element).clone()
            }),
            TypeKey::Other(ty) => self.element_type(*ty).map(|t| self.type_key(t)),
            _ => None,
        }
    }

    /// One level of a dense constant: `offset` is the flat index of this slice's first
    /// element.
    fn dense_constant(
        &mut self,
        at: OpId,
        ty: TypeKey,
        level: &DenseLevel,
        dim: usize,
        offset: u64,
    ) -> Result<u32> {
        let elements = level.elements;
        if dim == level.shape.len() {
            let element = if elements.len() == 1 { elements.first() } else { elements.get(offset as usize) };
            let Some(element) = element else {
                return Err(self.error(at, "cannot serialize attribute: dense elements out of range"));
            };
            return self.constant_scalar_of(at, level.scalar, element, false);
        }
        let type_id = self.process_key(at, ty.clone())?;
        let id = self.next();
        let mut operands = vec![type_id, id];
        let Some(element_type) = self.element_key(&ty) else {
            return Err(self.error(at, "cannot serialize a dense constant of a non-composite type"));
        };
        let stride = level.shape.get(dim + 1..).unwrap_or(&[]).iter().fold(1u64, |n, &d| n.saturating_mul(d));
        let is_cooperative = matches!(&ty, TypeKey::Other(t) if matches!(self.ir.types.kind(*t), TypeKind::CooperativeMatrix { .. }));
        if is_cooperative {
            if elements.len() != 1 {
                return Err(
                    self.error(at, "cannot serialize a non-splat value for a cooperative matrix type")
                );
            }
            operands.push(self.dense_constant(at, element_type, level, level.shape.len(), 0)?);
        } else if matches!(ty, TypeKey::ArmTensor { .. }) && elements.iter().all(is_zero) {
            encode(&mut self.globals, opcode::OpConstantNull, &[type_id, id]);
            return Ok(id);
        } else {
            let count = level.shape.get(dim).copied().unwrap_or(0);
            if count > elements.len().max(1) as u64 * 4096 {
                return Err(self.error(at, "not supported yet: dense constant larger than its elements"));
            }
            for i in 0..count {
                let element = self.dense_constant(
                    at,
                    element_type.clone(),
                    level,
                    dim + 1,
                    offset.saturating_add(i.saturating_mul(stride)),
                )?;
                operands.push(element);
            }
        }
        encode(&mut self.globals, opcode::OpConstantComposite, &operands);
        Ok(id)
    }
}

impl Serializer<'_> {
    /// Whether `ty` (or its element type) is an unsigned integer type.
    fn is_unsigned(&self, ty: Type) -> bool {
        match self.ir.types.kind(ty) {
            TypeKind::Integer { signedness, .. } => *signedness == Signedness::Unsigned,
            TypeKind::Vector { element, .. }
            | TypeKind::Tensor { element, .. }
            | TypeKind::CooperativeMatrix { element, .. } => matches!(
                self.ir.types.kind(*element),
                TypeKind::Integer { signedness: Signedness::Unsigned, .. }
            ),
            TypeKind::Opaque(text) => {
                text.strip_suffix('>').and_then(|t| t.rsplit('x').next()).is_some_and(|e| e.starts_with("ui"))
            }
            _ => false,
        }
    }
}

/// A dense attribute's flat elements, shape and scalar type.
struct DenseLevel<'e> {
    elements: &'e [Attribute],
    shape: &'e [u64],
    scalar: &'e TypeKey,
}

/// Whether a constant's value leaves its type open, so that the type keys it too:
/// an array (arrays and matrices of the same columns) or `#spirv.null`.
fn value_needs_type(attr: &Attribute) -> bool {
    matches!(attr, Attribute::Array(_)) || attr.is_null_constant()
}

pub(super) fn is_zero(attr: &Attribute) -> bool {
    match attr {
        Attribute::Integer { value, .. } => *value == 0,
        Attribute::Float { value, .. } => *value == 0.0 && value.is_sign_positive(),
        Attribute::Bool(b) => !b,
        _ => false,
    }
}

/// `spirv.arm.tensor<2x?xi32>` (kept as opaque text) as a type key; `*` is unranked,
/// `?` a dynamic dimension (-1).
fn arm_tensor_key(text: &str) -> Option<TypeKey> {
    let body = text.strip_prefix("spirv.arm.tensor<")?.strip_suffix('>')?;
    let mut parts: Vec<&str> = body.split('x').map(str::trim).collect();
    let element = scalar_key(parts.pop()?)?;
    let shape = if parts.first() == Some(&"*") {
        None
    } else {
        Some(
            parts
                .iter()
                .map(|d| if *d == "?" { Some(-1) } else { d.parse::<i64>().ok() })
                .collect::<Option<Vec<i64>>>()?,
        )
    };
    Some(TypeKey::ArmTensor { shape, element: Box::new(element) })
}

/// A scalar type's key from its spelling (`i32`, `si8`, `ui64`, `f16`, `bf16`).
fn scalar_key(text: &str) -> Option<TypeKey> {
    if let Some(kind) = FloatKind::from_keyword(text) {
        return Some(TypeKey::Float(kind));
    }
    let (signed, digits) = if let Some(d) = text.strip_prefix("si") {
        (true, d)
    } else if let Some(d) = text.strip_prefix("ui") {
        (false, d)
    } else {
        (false, text.strip_prefix('i')?)
    };
    Some(TypeKey::Int { width: digits.parse().ok()?, signed })
}

/// A decoration's value by its grammar name (names used here all exist).
pub(super) fn decoration(name: &str) -> u32 {
    enumerant("Decoration", name).unwrap_or(0)
}

/// Rounds an f64 (exact for f16 values) to IEEE half bits, nearest-even.
fn f64_to_f16_bits(value: f64) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let mant = bits & 0x000f_ffff_ffff_ffff;
    if exp == 0x7ff {
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 1023 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | (1u64 << 52);
        let shift = (1 - e + 42) as u32;
        let half = m >> shift;
        let rem = m & ((1u64 << shift) - 1);
        let halfway = 1u64 << (shift - 1);
        let rounded = if rem > halfway || (rem == halfway && half & 1 == 1) { half + 1 } else { half };
        return sign | rounded as u16;
    }
    let half_mant = mant >> 42;
    let rem = mant & ((1u64 << 42) - 1);
    let halfway = 1u64 << 41;
    let mut out = ((e as u64) << 10) | half_mant;
    if rem > halfway || (rem == halfway && out & 1 == 1) {
        out += 1;
    }
    sign | out as u16
}

/// How uniqued constants are keyed: by kind and value (a composite by its
/// attribute's structure; see [`ConstantKey::composite`]). Kept to 32 bytes (the
/// rare typed keys boxed, the integer in two words): a module's constants make a
/// table of thousands of keys, a quarter of the memory 128-byte keys took.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum ConstantKey {
    Int {
        width: u32,
        signed: bool,
        unsigned: bool,
        /// The value's low and high 64 bits.
        value: [u64; 2],
    },
    Bool(bool),
    /// The literal's words, the first in the low half.
    Float {
        kind: FloatKind,
        bits: u64,
    },
    /// The attribute's elements as tagged words (element types by id, floats by
    /// bits).
    Composite(Vec<u64>),
    /// The same with the constant's type, where the value does not imply it (arrays).
    TypedComposite(Box<(TypeKey, Vec<u64>)>),
    /// An attribute `Composite` cannot encode, by its debug text (and type).
    CompositeText(String),
    TypedCompositeText(Box<(TypeKey, String)>),
    /// `OpConstantCompositeReplicateEXT` (rare): its type and value as text.
    Replicate(String),
}

impl ConstantKey {
    fn int(width: u32, signed: bool, unsigned: bool, value: i128) -> ConstantKey {
        ConstantKey::Int { width, signed, unsigned, value: [value as u64, (value >> 64) as u64] }
    }

    fn composite(ty: Option<TypeKey>, attr: &Attribute) -> ConstantKey {
        // Room for a small vector's elements: no growing in the common case.
        let mut words = Vec::with_capacity(16);
        match (encode_constant_attr(attr, &mut words), ty) {
            (true, None) => ConstantKey::Composite(words),
            (true, Some(ty)) => ConstantKey::TypedComposite(Box::new((ty, words))),
            (false, None) => ConstantKey::CompositeText(format!("{attr:?}")),
            (false, Some(ty)) => ConstantKey::TypedCompositeText(Box::new((ty, format!("{attr:?}")))),
        }
    }
}

/// Appends `attr`'s structure to `out`; false for attribute kinds constants do not
/// hold (the caller keys those by their text). Composites nest only as deep as the
/// serializer's depth limit lets them.
fn encode_constant_attr(attr: &Attribute, out: &mut Vec<u64>) -> bool {
    match attr {
        Attribute::Integer { value, ty } => {
            out.extend([1, ty.index() as u64, *value as u64, (*value >> 64) as u64]);
            true
        }
        Attribute::Float { value, ty } => {
            out.extend([2, ty.index() as u64, value.to_bits()]);
            true
        }
        Attribute::Bool(b) => {
            out.extend([3, u64::from(*b)]);
            true
        }
        Attribute::Dense { elements, ty } => {
            out.extend([4, ty.index() as u64, elements.len() as u64]);
            elements.iter().all(|e| encode_constant_attr(e, out))
        }
        Attribute::Array(items) => {
            out.extend([5, items.len() as u64]);
            items.iter().all(|e| encode_constant_attr(e, out))
        }
        // Its type is in the key (`value_needs_type`), or that of the composite around it.
        _ if attr.is_null_constant() => {
            out.push(6);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod key_size {
    /// The constant table's keys stay small (see [`super::ConstantKey`]).
    #[test]
    fn constant_keys_take_32_bytes() {
        assert_eq!(std::mem::size_of::<super::ConstantKey>(), 32);
    }
}
