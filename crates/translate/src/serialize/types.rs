//! Types (`OpType*`, uniqued) and constants (`OpConstant*`, uniqued by attribute).

use super::attrs::{enum_case_value, enumerant};
use super::{encode, Result, Serializer, TypeKey, MAX_DEPTH};
use spirvkit_grammar::opcode;
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::types::{FloatKind, Signedness, StructBody, Type, TypeKind};
use spirvkit_ir::OpId;

/// What preparing a type produced.
enum Prepared {
    /// Emit this instruction with the collected operands.
    Emit(u16),
    /// A pointer to a struct being serialized: emitted when the struct is done.
    Deferred,
}

impl Serializer<'_> {
    fn type_key(&self, ty: Type) -> TypeKey {
        match self.ir.types.kind(ty) {
            TypeKind::Integer { width, signedness } => {
                TypeKey::Int { width: *width, signed: *signedness == Signedness::Signed }
            }
            TypeKind::None => TypeKey::Void,
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
        let key = self.type_key(ty);
        if key == TypeKey::Void {
            return Ok(self.void_type());
        }
        if let Some(&id) = self.type_ids.get(&key) {
            return Ok(id);
        }
        if self.depth > MAX_DEPTH {
            return Err(self.error(at, "not supported yet: types nested this deeply"));
        }
        self.depth += 1;
        let id = self.next();
        let mut operands = vec![id];
        let prepared = self.prepare_type(at, ty, id, &mut operands);
        self.depth -= 1;
        match prepared? {
            Prepared::Deferred => Ok(id),
            Prepared::Emit(op) => {
                self.type_ids.insert(key, id);
                encode(&mut self.globals, op, &operands);
                if let TypeKind::IdentifiedStruct { name } = self.ir.types.kind(ty) {
                    for (pointer, storage) in self.recursive_pointers.remove(name).unwrap_or_default() {
                        encode(&mut self.globals, opcode::OpTypePointer, &[pointer, storage, id]);
                    }
                }
                Ok(id)
            }
        }
    }

    fn prepare_type(&mut self, at: OpId, ty: Type, id: u32, operands: &mut Vec<u32>) -> Result<Prepared> {
        let ir = self.ir;
        let unsupported = |s: &Self| {
            s.error(
                at,
                format!(
                    "not supported yet: type {} in serialization",
                    spirvkit_ir::printer::type_to_string(ir, ty)
                ),
            )
        };
        Ok(Prepared::Emit(match ir.types.kind(ty) {
            TypeKind::Integer { width: 1, .. } => opcode::OpTypeBool,
            TypeKind::Integer { width, signedness } => {
                operands.extend([*width, u32::from(*signedness == Signedness::Signed)]);
                opcode::OpTypeInt
            }
            TypeKind::Float(kind) => {
                operands.push(kind.width());
                let encoding = match kind {
                    FloatKind::BF16 => Some("BFloat16KHR"),
                    FloatKind::F8E4M3FN => Some("Float8E4M3EXT"),
                    FloatKind::F8E5M2 => Some("Float8E5M2EXT"),
                    _ => None,
                };
                if let Some(encoding) = encoding {
                    operands.push(enumerant("FPEncoding", encoding).ok_or_else(|| unsupported(self))?);
                }
                opcode::OpTypeFloat
            }
            TypeKind::Vector { shape, element, .. } => {
                let count: u64 = shape.iter().product();
                let element = self.process_type(at, *element)?;
                operands.extend([element, count as u32]);
                opcode::OpTypeVector
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
            TypeKind::Array { element, count, stride } => {
                let element = self.process_type(at, *element)?;
                operands.push(element);
                let i32_type =
                    self.find_type(TypeKind::Integer { width: 32, signedness: Signedness::Signless });
                let length = self.constant_int(at, i64::from(*count) as i128, i32_type, 32, false, false)?;
                operands.push(length);
                if let Some(stride) = stride.filter(|&s| s != 0) {
                    self.emit_decoration(id, decoration("ArrayStride"), &[stride]);
                }
                opcode::OpTypeArray
            }
            TypeKind::RuntimeArray { element, stride } => {
                let element = self.process_type(at, *element)?;
                operands.push(element);
                if let Some(stride) = stride.filter(|&s| s != 0) {
                    self.emit_decoration(id, decoration("ArrayStride"), &[stride]);
                }
                opcode::OpTypeRuntimeArray
            }
            TypeKind::Pointer { pointee, storage_class } => {
                let storage = enumerant("StorageClass", storage_class).ok_or_else(|| unsupported(self))?;
                if let TypeKind::IdentifiedStruct { name } = ir.types.kind(*pointee) {
                    if self.struct_context.iter().any(|n| n == name) {
                        encode(&mut self.globals, opcode::OpTypeForwardPointer, &[id, storage]);
                        self.recursive_pointers.entry(name.clone()).or_default().push((id, storage));
                        return Ok(Prepared::Deferred);
                    }
                }
                let pointee_id = self.process_type(at, *pointee)?;
                operands.extend([storage, pointee_id]);
                // Interface blocks need `Block`; MLIR adds it when the struct lacks it.
                let interface = matches!(
                    storage_class.as_str(),
                    "PhysicalStorageBuffer" | "PushConstant" | "StorageBuffer" | "Uniform"
                );
                if interface {
                    if let Some(body) = self.struct_body(*pointee) {
                        if !body.decorations.iter().any(|(d, _)| d == "Block") {
                            self.emit_decoration(pointee_id, decoration("Block"), &[]);
                        }
                    }
                }
                opcode::OpTypePointer
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
                    self.process_name(id, name);
                    self.struct_context.push(name.clone());
                }
                let has_offset = body.members.iter().any(|m| m.offset.is_some());
                for (index, member) in body.members.iter().enumerate() {
                    let member_id = self.process_type(at, member.ty)?;
                    operands.push(member_id);
                    if has_offset {
                        let offset = member.offset.unwrap_or(0);
                        self.member_decoration(id, index as u32, decoration("Offset"), Some(offset));
                    }
                }
                let mut member_decorations = Vec::new();
                for (index, member) in body.members.iter().enumerate() {
                    for (name, value) in &member.decorations {
                        let Some(d) = enumerant("Decoration", name) else {
                            return Err(self.error(at, format!("unknown member decoration {name}")));
                        };
                        let value = value.as_deref().and_then(|v| v.trim().parse::<i64>().ok());
                        member_decorations.push((index as u32, d, value));
                    }
                }
                member_decorations.sort_by_key(|&(index, d, _)| (index, d));
                for (index, d, value) in member_decorations {
                    self.member_decoration(id, index, d, value.map(|v| v as u32));
                }
                for (name, value) in &body.decorations {
                    let Some(d) = enumerant("Decoration", name) else {
                        return Err(self.error(at, format!("unknown struct decoration {name}")));
                    };
                    let value = match value {
                        Some(v) => match v.trim().parse::<i64>() {
                            Ok(n) => Attribute::Integer { value: n.into(), ty },
                            Err(_) => Attribute::String(v.trim().trim_matches('"').to_string()),
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
            TypeKind::Matrix { column, columns } => {
                let column = self.process_type(at, *column)?;
                operands.extend([column, *columns]);
                opcode::OpTypeMatrix
            }
            TypeKind::Function { inputs, results } => {
                if results.len() > 1 {
                    return Err(self.error(at, "serialization supports only a single return value"));
                }
                let result = match results.first() {
                    Some(&r) => self.process_type(at, r)?,
                    None => self.void_type(),
                };
                operands.push(result);
                for &input in inputs {
                    let input = self.process_type(at, input)?;
                    operands.push(input);
                }
                opcode::OpTypeFunction
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

    fn member_decoration(&mut self, id: u32, member: u32, decoration: u32, value: Option<u32>) {
        let mut operands = vec![id, member, decoration];
        operands.extend(value);
        encode(&mut self.decorations, opcode::OpMemberDecorate, &operands);
    }

    /// A type already interned in the IR (the IR is read-only here).
    fn find_type(&self, kind: TypeKind) -> Option<Type> {
        self.ir.types.find(&kind)
    }

    /// The constant `value : i32` (array lengths, scopes and semantics as ids).
    pub(super) fn constant_i32(&mut self, at: OpId, value: u32) -> Result<u32> {
        let ty = self.find_type(TypeKind::Integer { width: 32, signedness: Signedness::Signless });
        self.constant_int(at, i128::from(value as i32), ty, 32, false, false)
    }

    /// An integer constant of `ty` (`None`: a signless i32 the IR never mentioned).
    pub(super) fn constant_int(
        &mut self,
        at: OpId,
        value: i128,
        ty: Option<Type>,
        width: u32,
        signed: bool,
        spec: bool,
    ) -> Result<u32> {
        let key = format!("int:{:?}:{width}:{signed}:{value}", ty.map(|t| t.index()));
        if !spec {
            if let Some(&id) = self.constant_ids.get(&key) {
                return Ok(id);
            }
        }
        let type_id = match ty {
            Some(ty) => self.process_type(at, ty)?,
            None => self.int_type(width, signed),
        };
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

    /// `OpTypeInt` for a type the IR has not interned.
    fn int_type(&mut self, width: u32, signed: bool) -> u32 {
        let key = TypeKey::Int { width, signed };
        if let Some(&id) = self.type_ids.get(&key) {
            return id;
        }
        let id = self.next();
        self.type_ids.insert(key, id);
        encode(&mut self.globals, opcode::OpTypeInt, &[id, width, u32::from(signed)]);
        id
    }

    pub(super) fn constant_bool(&mut self, at: OpId, value: bool, ty: Type, spec: bool) -> Result<u32> {
        let key = format!("bool:{value}");
        if !spec {
            if let Some(&id) = self.constant_ids.get(&key) {
                return Ok(id);
            }
        }
        let type_id = self.process_type(at, ty)?;
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

    pub(super) fn constant_float(&mut self, at: OpId, value: f64, ty: Type, spec: bool) -> Result<u32> {
        let TypeKind::Float(kind) = *self.ir.types.kind(ty) else {
            return Err(self.error(at, "cannot serialize a float literal of a non-float type"));
        };
        let words: Vec<u32> = match kind {
            FloatKind::F16 => vec![u32::from(f64_to_f16_bits(value))],
            FloatKind::BF16 => vec![(value as f32).to_bits() >> 16],
            FloatKind::F32 => vec![(value as f32).to_bits()],
            FloatKind::F64 => {
                let bits = value.to_bits();
                vec![bits as u32, (bits >> 32) as u32]
            }
            _ => return Err(self.error(at, format!("cannot serialize {}-bit float literal", kind.width()))),
        };
        let key = format!("float:{}:{words:?}", ty.index());
        if !spec {
            if let Some(&id) = self.constant_ids.get(&key) {
                return Ok(id);
            }
        }
        let type_id = self.process_type(at, ty)?;
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
        Ok(Some(match attr {
            Attribute::Float { value, ty } => self.constant_float(at, *value, *ty, spec)?,
            Attribute::Bool(b) => {
                let ty = self.find_type(TypeKind::Integer { width: 1, signedness: Signedness::Signless });
                match ty {
                    Some(ty) => self.constant_bool(at, *b, ty, spec)?,
                    None => {
                        return Err(self.error(at, "not supported yet: boolean constant without an i1 type"))
                    }
                }
            }
            Attribute::Integer { value, ty } => match *self.ir.types.kind(*ty) {
                TypeKind::Integer { width: 1, .. } => self.constant_bool(at, *value != 0, *ty, spec)?,
                TypeKind::Integer { width, signedness } => {
                    self.constant_int(at, *value, Some(*ty), width, signedness == Signedness::Signed, spec)?
                }
                _ => return Err(self.error(at, "not supported yet: integer constant of a non-integer type")),
            },
            _ => return Ok(None),
        }))
    }

    /// A constant of type `ty` with value `attr`: scalars, dense elements and arrays.
    pub(super) fn constant(&mut self, at: OpId, ty: Type, attr: &Attribute) -> Result<u32> {
        if let Some(id) = self.constant_scalar(at, attr, false)? {
            return Ok(id);
        }
        let key = format!("composite:{attr:?}");
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

    fn constant_composite(&mut self, at: OpId, ty: Type, attr: &Attribute) -> Result<u32> {
        self.process_type(at, ty)?;
        match attr {
            Attribute::Dense { elements, ty: shaped } => {
                let shape: Vec<u64> = match self.ir.types.kind(*shaped) {
                    TypeKind::Vector { shape, .. } => shape.clone(),
                    TypeKind::CooperativeMatrix { rows, columns, .. } => {
                        vec![u64::from(*rows), u64::from(*columns)]
                    }
                    TypeKind::Tensor { shape: Some(shape), .. } => {
                        shape.iter().map(|d| d.unwrap_or(0)).collect()
                    }
                    _ => return Err(self.error(at, format!("cannot serialize attribute: {attr:?}"))),
                };
                let scalar = match self.ir.types.kind(*shaped) {
                    TypeKind::Vector { element, .. }
                    | TypeKind::Tensor { element, .. }
                    | TypeKind::CooperativeMatrix { element, .. } => *element,
                    _ => *shaped,
                };
                // Elements carry the scalar type (the parser may leave the shaped one).
                let elements: Vec<Attribute> = elements
                    .iter()
                    .map(|e| match e {
                        Attribute::Integer { value, .. } => Attribute::Integer { value: *value, ty: scalar },
                        Attribute::Float { value, .. } => Attribute::Float { value: *value, ty: scalar },
                        other => other.clone(),
                    })
                    .collect();
                self.dense_constant(at, ty, &elements, &shape, 0, 0)
            }
            Attribute::Array(items) => {
                let type_id = self.process_type(at, ty)?;
                let id = self.next();
                let element_type = self.element_type(ty);
                let mut operands = vec![type_id, id];
                for item in items {
                    let Some(element_type) = element_type else {
                        return Err(self.error(at, format!("cannot serialize attribute: {attr:?}")));
                    };
                    operands.push(self.constant(at, element_type, item)?);
                }
                encode(&mut self.globals, opcode::OpConstantComposite, &operands);
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

    /// One level of a dense constant: `offset` is the flat index of this slice's first
    /// element.
    fn dense_constant(
        &mut self,
        at: OpId,
        ty: Type,
        elements: &[Attribute],
        shape: &[u64],
        dim: usize,
        offset: u64,
    ) -> Result<u32> {
        if dim == shape.len() {
            let element = if elements.len() == 1 { elements.first() } else { elements.get(offset as usize) };
            let Some(element) = element else {
                return Err(self.error(at, "cannot serialize attribute: dense elements out of range"));
            };
            return match self.constant_scalar(at, element, false)? {
                Some(id) => Ok(id),
                None => Err(self.error(at, format!("cannot serialize attribute: {element:?}"))),
            };
        }
        let type_id = self.process_type(at, ty)?;
        let id = self.next();
        let mut operands = vec![type_id, id];
        let Some(element_type) = self.element_type(ty) else {
            return Err(self.error(at, "cannot serialize a dense constant of a non-composite type"));
        };
        let stride: u64 = shape.get(dim + 1..).unwrap_or(&[]).iter().product();
        if matches!(self.ir.types.kind(ty), TypeKind::CooperativeMatrix { .. }) {
            if elements.len() != 1 {
                return Err(
                    self.error(at, "cannot serialize a non-splat value for a cooperative matrix type")
                );
            }
            operands.push(self.dense_constant(at, element_type, elements, shape, shape.len(), 0)?);
        } else {
            let count = shape.get(dim).copied().unwrap_or(0);
            if count > elements.len().max(1) as u64 * 4096 {
                return Err(self.error(at, "not supported yet: dense constant larger than its elements"));
            }
            for i in 0..count {
                let element =
                    self.dense_constant(at, element_type, elements, shape, dim + 1, offset + i * stride)?;
                operands.push(element);
            }
        }
        encode(&mut self.globals, opcode::OpConstantComposite, &operands);
        Ok(id)
    }
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
