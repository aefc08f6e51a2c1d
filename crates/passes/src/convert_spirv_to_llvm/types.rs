//! The type converter: MLIR 22's SPIR-V -> LLVM type mapping, plus explicit layouts.
//!
//! - integers become signless, floats and vectors stay, pointers become `!llvm.ptr`
//!   in the client API's address space;
//! - arrays become `!llvm.array` when their stride is absent or natural, runtime
//!   arrays `!llvm.array<0 x T>`;
//! - structs without offsets become packed literal structs, with offsets equal to the
//!   Vulkan layout (`VulkanLayoutUtils::decorateType`) non-packed ones; member
//!   decorations are refused.
//!
//! With `explicit_layout`, structs whose offsets or arrays whose strides are not
//! natural (std140/std430) become packed structs with `[N x i8]` padding members (and
//! array elements wrapped in a packed struct with their tail padding); the member and
//! element index remaps are kept for GEPs and `extractvalue`/`insertvalue`.

use super::Converter;
use spirvkit_ir::types::{Signedness, Type, TypeKind};

/// How a SPIR-V composite's indices map onto its LLVM type under an explicit layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Remap {
    /// A struct: the LLVM member index of each SPIR-V member.
    Members(Vec<i64>),
    /// An array whose elements are wrapped with padding: an index is followed by 0.
    WrappedElements,
}

impl Converter<'_> {
    /// The LLVM type of `ty`, or `None` when the conversion refuses it.
    pub(crate) fn convert_type(&mut self, ty: Type) -> Option<Type> {
        if let Some(&cached) = self.type_cache.get(&ty) {
            return cached;
        }
        // A recursive struct reaching itself is refused rather than looping.
        self.type_cache.insert(ty, None);
        let converted = self.convert_type_uncached(ty);
        self.type_cache.insert(ty, converted);
        converted
    }

    fn convert_type_uncached(&mut self, ty: Type) -> Option<Type> {
        let kind = self.ir.types.kind(ty).clone();
        Some(match kind {
            TypeKind::Integer { width, signedness: Signedness::Signless } => {
                let _ = width;
                ty
            }
            TypeKind::Integer { width, .. } => self.ir.types.integer(width, Signedness::Signless),
            TypeKind::Float(_) => ty,
            TypeKind::Index => self.ir.types.integer(64, Signedness::Signless),
            TypeKind::Vector { shape, scalable, element } => {
                let element = self.convert_type(element)?;
                self.ir.types.intern(TypeKind::Vector { shape, scalable, element })
            }
            TypeKind::Image { params, .. }
                if self.options.storage_images && super::images::image_dims(&params).is_ok() =>
            {
                self.ir.types.llvm_pointer(0)
            }
            // A sampler is its descriptor's memory (the state words, see `images`).
            TypeKind::Sampler if self.options.storage_images => self.ir.types.llvm_pointer(0),
            // A combined image sampler (or `OpSampledImage`'s result) is its image's
            // memory too; the sampler is found where it was made (see `images`).
            TypeKind::SampledImage(image)
                if self.options.storage_images
                    && matches!(self.ir.types.kind(image), TypeKind::Image { params, .. }
                        if super::images::image_dims(params).is_ok()) =>
            {
                self.ir.types.llvm_pointer(0)
            }
            TypeKind::Pointer { storage_class, .. } => {
                let space = self.address_space(&storage_class);
                self.ir.types.llvm_pointer(space)
            }
            TypeKind::Array { element, count, stride, spec_length: None } => {
                let llvm_element = self.convert_type(element)?;
                let natural = self.spirv_size(element);
                match stride {
                    Some(s) if s != 0 && natural != Some(u64::from(s)) => {
                        if !self.options.explicit_layout {
                            return None;
                        }
                        let wrapped = self.wrap_element(llvm_element, u64::from(s))?;
                        self.remaps.insert(ty, Remap::WrappedElements);
                        self.ir.types.llvm_array(u64::from(count), wrapped)
                    }
                    _ => self.ir.types.llvm_array(u64::from(count), llvm_element),
                }
            }
            TypeKind::Array { element, stride, spec_length: Some(length), .. } => {
                // Beyond MLIR: an array sized by a specialization constant takes the
                // constant's value (spec constants are substituted before conversion).
                let count = self.constant_expr_value(&length)?;
                let count = u32::try_from(count).ok()?;
                let fixed =
                    self.ir.types.intern(TypeKind::Array { element, count, stride, spec_length: None });
                let converted = self.convert_type(fixed)?;
                if let Some(remap) = self.remaps.get(&fixed).cloned() {
                    self.remaps.insert(ty, remap);
                }
                converted
            }
            TypeKind::RuntimeArray { element, stride, stride_id: None } => {
                let llvm_element = self.convert_type(element)?;
                let natural = self.spirv_size(element);
                match stride {
                    // MLIR 22 refuses any strided runtime array.
                    Some(_) if !self.options.explicit_layout => return None,
                    Some(s) if s != 0 && natural != Some(u64::from(s)) => {
                        let wrapped = self.wrap_element(llvm_element, u64::from(s))?;
                        self.remaps.insert(ty, Remap::WrappedElements);
                        self.ir.types.llvm_array(0, wrapped)
                    }
                    _ => self.ir.types.llvm_array(0, llvm_element),
                }
            }
            TypeKind::Matrix { column, columns } => {
                // Beyond MLIR: a matrix is an array of its column vectors.
                let column = self.convert_type(column)?;
                self.ir.types.llvm_array(u64::from(columns), column)
            }
            TypeKind::LiteralStruct(_) | TypeKind::IdentifiedStruct { .. } => return self.convert_struct(ty),
            TypeKind::LlvmPointer { .. }
            | TypeKind::LlvmArray { .. }
            | TypeKind::LlvmStruct { .. }
            | TypeKind::LlvmVoid
            | TypeKind::LlvmFunction { .. } => ty,
            TypeKind::Function { .. } => ty,
            _ => return None,
        })
    }

    fn convert_struct(&mut self, ty: Type) -> Option<Type> {
        let (name, body) = match self.ir.types.kind(ty).clone() {
            TypeKind::LiteralStruct(body) => (None, body),
            TypeKind::IdentifiedStruct { name } => {
                let body = self.ir.types.struct_body(&name)?.clone();
                (Some(name), body)
            }
            _ => return None,
        };
        let layout_only = |d: &(String, Option<String>)| {
            matches!(
                d.0.as_str(),
                "Offset" | "NonWritable" | "NonReadable" | "ColMajor" | "RowMajor" | "MatrixStride"
            )
        };
        // MLIR 22 refuses struct decorations (`Block`) as member ones.
        if !body.decorations.is_empty() && !self.options.explicit_layout {
            return None;
        }
        let decorated = body.members.iter().any(|m| !m.decorations.is_empty());
        if decorated
            && !(self.options.explicit_layout
                && body.members.iter().all(|m| m.decorations.iter().all(layout_only)))
        {
            return None;
        }
        let mut members = Vec::with_capacity(body.members.len());
        for m in &body.members {
            members.push(self.convert_type(m.ty)?);
        }
        let has_offsets = body.members.iter().any(|m| m.offset.is_some());
        if !has_offsets {
            return Some(self.ir.types.intern(TypeKind::LlvmStruct { name, packed: true, members }));
        }
        if !self.options.explicit_layout {
            // MLIR accepts the offsets Vulkan's layout rules give (then LLVM's natural
            // layout is taken to place the members there, which a `vector<3xT>`
            // followed by a scalar contradicts: the explicit layout below is exact).
            let bare = self.without_offsets(ty);
            let (vulkan, _, _) = crate::decorate_layout::decorate(self.ir, bare);
            if vulkan == ty && !decorated {
                return Some(self.ir.types.intern(TypeKind::LlvmStruct { name, packed: false, members }));
            }
            return None;
        }
        // Packed, with padding where the next offset is further than the members so far.
        let mut laid_out = Vec::with_capacity(members.len());
        let mut remap = Vec::with_capacity(members.len());
        let mut at: u64 = 0;
        for (index, (m, &llvm)) in body.members.iter().zip(&members).enumerate() {
            // A row-major matrix's memory is not the column arrays the conversion
            // reads: a square one takes the same room (the members after it stay in
            // place) and any access to it is refused; other shapes are refused here.
            if m.decorations.iter().any(|d| d.0 == "RowMajor") {
                match self.ir.types.kind(m.ty) {
                    TypeKind::Matrix { column, columns } if matches!(self.ir.types.kind(*column), TypeKind::Vector { shape, .. } if shape.iter().product::<u64>() == u64::from(*columns)) =>
                        {}
                    _ => return None,
                }
                self.row_major_members.insert((ty, index));
            }
            let offset = u64::from(m.offset.unwrap_or(at as u32));
            if offset < at {
                return None;
            }
            if offset > at {
                let i8t = self.ir.types.integer(8, Signedness::Signless);
                laid_out.push(self.ir.types.llvm_array(offset - at, i8t));
            }
            remap.push(laid_out.len() as i64);
            let memory = self.memory_type(llvm);
            laid_out.push(memory);
            at = offset + self.alloc_size(memory)?;
        }
        self.remaps.insert(ty, Remap::Members(remap));
        Some(self.ir.types.intern(TypeKind::LlvmStruct { name, packed: true, members: laid_out }))
    }

    /// A vector whose LLVM allocation is larger than its elements (`vector<3xf32>`
    /// takes 16 bytes) is an array inside a laid-out struct.
    fn memory_type(&mut self, llvm: Type) -> Type {
        if let TypeKind::Vector { shape, element, .. } = self.ir.types.kind(llvm).clone() {
            let n: u64 = shape.iter().product();
            if !n.is_power_of_two() {
                return self.ir.types.llvm_array(n, element);
            }
        }
        llvm
    }

    /// `element` padded to `stride` bytes: a packed struct of it and `[pad x i8]`.
    fn wrap_element(&mut self, element: Type, stride: u64) -> Option<Type> {
        let memory = self.memory_type(element);
        let size = self.alloc_size(memory)?;
        if stride < size {
            return None;
        }
        let i8t = self.ir.types.integer(8, Signedness::Signless);
        let mut members = vec![memory];
        if stride > size {
            members.push(self.ir.types.llvm_array(stride - size, i8t));
        }
        Some(self.ir.types.llvm_struct(true, members))
    }

    /// The struct type with its member offsets removed (what Vulkan's layout decorates).
    fn without_offsets(&mut self, ty: Type) -> Type {
        match self.ir.types.kind(ty).clone() {
            TypeKind::LiteralStruct(mut body) => {
                for m in &mut body.members {
                    m.offset = None;
                }
                self.ir.types.intern(TypeKind::LiteralStruct(body))
            }
            _ => ty,
        }
    }

    /// MLIR's `getSizeInBytes` of a SPIR-V type: scalars, vectors and arrays (strided
    /// arrays by their stride); `None` for the rest.
    pub(crate) fn spirv_size(&self, ty: Type) -> Option<u64> {
        match self.ir.types.kind(ty) {
            TypeKind::Integer { width, .. } => Some(u64::from(width.div_ceil(8).max(1))),
            TypeKind::Float(k) => Some(u64::from(k.width() / 8)),
            TypeKind::Vector { shape, element, .. } => {
                Some(shape.iter().product::<u64>().checked_mul(self.spirv_size(*element)?)?)
            }
            TypeKind::Array { element, count, stride, spec_length: None } => {
                let each = match stride {
                    Some(s) if *s != 0 => u64::from(*s),
                    _ => self.spirv_size(*element)?,
                };
                each.checked_mul(u64::from(*count))
            }
            _ => None,
        }
    }

    /// LLVM's allocation size of an LLVM type (x86-64 data layout).
    pub(crate) fn alloc_size(&self, ty: Type) -> Option<u64> {
        let (size, align) = self.size_align(ty)?;
        Some(size.div_ceil(align) * align)
    }

    pub(crate) fn size_align(&self, ty: Type) -> Option<(u64, u64)> {
        match self.ir.types.kind(ty) {
            TypeKind::Integer { width, .. } => {
                let bytes = u64::from(width.div_ceil(8).max(1)).next_power_of_two();
                Some((bytes, bytes.min(16)))
            }
            TypeKind::Float(k) => {
                let bytes = u64::from(k.width() / 8).max(1);
                Some((bytes, bytes))
            }
            TypeKind::Vector { shape, element, .. } => {
                let (e, _) = self.size_align(*element)?;
                let size = shape.iter().product::<u64>().checked_mul(e)?.next_power_of_two();
                Some((size, size))
            }
            TypeKind::LlvmPointer { .. } => Some((8, 8)),
            TypeKind::LlvmArray { count, element } => {
                let each = self.alloc_size(*element)?;
                let (_, align) = self.size_align(*element)?;
                Some((each.checked_mul(*count)?, align))
            }
            TypeKind::LlvmStruct { packed, members, .. } => {
                let mut at = 0u64;
                let mut max_align = 1;
                for &m in members {
                    let (_, align) = self.size_align(m)?;
                    let align = if *packed { 1 } else { align };
                    at = at.div_ceil(align) * align;
                    at = at.checked_add(self.alloc_size(m)?)?;
                    max_align = max_align.max(align);
                }
                Some((at.div_ceil(max_align) * max_align, max_align))
            }
            _ => None,
        }
    }

    /// The value of a spec-constant expression (a symbol takes its spec constant's
    /// default value; integer arithmetic is evaluated).
    fn constant_expr_value(&self, e: &spirvkit_ir::types::ConstantExpr) -> Option<i128> {
        use spirvkit_ir::types::ConstantExpr;
        match e {
            ConstantExpr::Constant { value, .. } => Some(*value),
            ConstantExpr::Symbol(name) => self.spec_constant_values.get(name).copied(),
            ConstantExpr::Operation { name, operands, .. } => {
                let values: Vec<i128> =
                    operands.iter().map(|o| self.constant_expr_value(o)).collect::<Option<_>>()?;
                match (name.as_str(), &values[..]) {
                    ("IAdd", [a, b]) => a.checked_add(*b),
                    ("ISub", [a, b]) => a.checked_sub(*b),
                    ("IMul", [a, b]) => a.checked_mul(*b),
                    ("UDiv" | "SDiv", [a, b]) => a.checked_div(*b),
                    ("UMod" | "SRem", [a, b]) => a.checked_rem(*b),
                    ("ShiftLeftLogical", [a, b]) => u32::try_from(*b).ok().and_then(|b| a.checked_shl(b)),
                    _ => None,
                }
            }
            ConstantExpr::SizeOf { .. } => None,
        }
    }

    /// The address space of a storage class under the client API (MLIR's
    /// `storageClassToAddressSpace`).
    pub(crate) fn address_space(&self, storage_class: &str) -> u32 {
        if self.options.client_api != super::ClientApi::OpenCl {
            return 0;
        }
        match storage_class {
            "Function" => 0,
            "Input" | "CrossWorkgroup" => 1,
            "UniformConstant" => 2,
            "Workgroup" => 3,
            "Generic" => 4,
            "DeviceOnlyINTEL" => 5,
            "HostOnlyINTEL" => 6,
            _ => 0,
        }
    }
}
