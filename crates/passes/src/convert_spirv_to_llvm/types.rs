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
use spirvkit_ir::ir::Value;
use spirvkit_ir::types::{Signedness, Type, TypeKind};

/// The memory of a matrix member decorated RowMajor, or ColMajor with a MatrixStride
/// other than its column's LLVM size: `[vectors x <{memory vector, padding}>]`, each
/// vector (a row when row-major, else a column) `stride` bytes apart. Element (column
/// c, row r) is at `[r, 0, c]` when row-major, `[c, 0, r]` otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MatrixLayout {
    pub row_major: bool,
    pub columns: u32,
    pub rows: u32,
    /// The scalar type (LLVM's).
    pub element: Type,
    /// The member's memory type.
    pub memory: Type,
    /// The member is an array of such matrices (accesses into it are not supported yet).
    pub in_array: bool,
}

/// A new pointer into a laid-out matrix that only a load may use: the whole matrix, or
/// a column (a strided vector when row-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LaidOutPointer {
    pub layout: MatrixLayout,
    /// The column index (an LLVM value), when the pointer is to one column.
    pub column: Option<Value>,
}

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
            let offset = u64::from(m.offset.unwrap_or(at as u32));
            if offset < at {
                return None;
            }
            if offset > at {
                let i8t = self.ir.types.integer(8, Signedness::Signless);
                laid_out.push(self.ir.types.llvm_array(offset - at, i8t));
            }
            remap.push(laid_out.len() as i64);
            // A row-major or strided matrix's memory is not the column arrays its value
            // is: the member holds its rows (or strided columns), see `MatrixLayout`.
            let memory = match self.matrix_layout(m)? {
                Some(layout) => {
                    self.laid_out_matrices.insert((ty, index), layout);
                    layout.memory
                }
                None => self.memory_type(llvm),
            };
            laid_out.push(memory);
            at = offset + self.alloc_size(memory)?;
        }
        self.remaps.insert(ty, Remap::Members(remap));
        Some(self.ir.types.intern(TypeKind::LlvmStruct { name, packed: true, members: laid_out }))
    }

    /// The layout of matrix member `m` when its memory differs from a matrix value's
    /// (`Some(None)` when it does not; `None` refuses the struct: a RowMajor or
    /// MatrixStride decoration on a member that is not a matrix, e.g. an array of them).
    fn matrix_layout(&mut self, m: &spirvkit_ir::types::StructMember) -> Option<Option<MatrixLayout>> {
        let row_major = m.decorations.iter().any(|d| d.0 == "RowMajor");
        let stride = m
            .decorations
            .iter()
            .find(|d| d.0 == "MatrixStride")
            .and_then(|d| d.1.as_deref()?.trim().parse::<u64>().ok());
        // An array of matrices (`float4x4 bones[N]` in a cbuffer): the decorations apply
        // to each element, laid out at the array's stride.
        if let TypeKind::Array { element, count, stride: Some(array_stride), spec_length: None } =
            self.ir.types.kind(m.ty).clone()
        {
            if matches!(self.ir.types.kind(element), TypeKind::Matrix { .. }) {
                let each = spirvkit_ir::types::StructMember { ty: element, ..m.clone() };
                let Some(inner) = self.matrix_layout(&each)? else { return Some(None) };
                let wrapped = self.wrap_element(inner.memory, u64::from(array_stride))?;
                let memory = self.ir.types.llvm_array(u64::from(count), wrapped);
                return Some(Some(MatrixLayout { memory, in_array: true, ..inner }));
            }
        }
        let TypeKind::Matrix { column, columns } = self.ir.types.kind(m.ty).clone() else {
            return if row_major { None } else { Some(None) };
        };
        let TypeKind::Vector { shape, element, .. } = self.ir.types.kind(column).clone() else { return None };
        let rows = u32::try_from(shape.iter().product::<u64>()).ok()?;
        let element = self.convert_type(element)?;
        let column_value = self.convert_type(column)?;
        let natural = self.alloc_size(column_value)?;
        if !row_major && stride.is_none_or(|s| s == natural) {
            return Some(None);
        }
        let (vectors, length) = if row_major { (rows, columns) } else { (columns, rows) };
        let vector = self.ir.types.vector(u64::from(length), element);
        let memory_vector = self.memory_type(vector);
        let size = self.alloc_size(memory_vector)?;
        let stride = stride.unwrap_or(size);
        let wrapped = self.wrap_element(vector, stride)?;
        let memory = self.ir.types.llvm_array(u64::from(vectors), wrapped);
        Some(Some(MatrixLayout { row_major, columns, rows, element, memory, in_array: false }))
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
