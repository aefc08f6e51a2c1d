//! Interned types: MLIR builtin types the dialect uses and the SPIR-V dialect types.
//!
//! Every type lives once in a [`TypeStore`] and is referred to by a [`Type`] id, so
//! equality is id equality. Identified structs are the one mutable exception: their
//! body is set after the name is interned, which is what makes recursive structs
//! possible (`!spirv.struct<S, (!spirv.ptr<!spirv.struct<S>, StorageBuffer>)>`).

use spirvkit_grammar::fxhash::FxHashMap;

/// An interned type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Type(u32);

impl Type {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Signedness {
    Signless,
    Signed,
    Unsigned,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    F16,
    BF16,
    F32,
    F64,
    /// 8-bit float formats (`f8E4M3FN`, `f8E5M2`) the dialect can carry.
    F8E4M3FN,
    F8E5M2,
}

impl FloatKind {
    pub fn width(self) -> u32 {
        match self {
            FloatKind::F16 | FloatKind::BF16 => 16,
            FloatKind::F32 => 32,
            FloatKind::F64 => 64,
            FloatKind::F8E4M3FN | FloatKind::F8E5M2 => 8,
        }
    }

    pub fn keyword(self) -> &'static str {
        match self {
            FloatKind::F16 => "f16",
            FloatKind::BF16 => "bf16",
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
            FloatKind::F8E4M3FN => "f8E4M3FN",
            FloatKind::F8E5M2 => "f8E5M2",
        }
    }

    pub fn from_keyword(word: &str) -> Option<FloatKind> {
        Some(match word {
            "f16" => FloatKind::F16,
            "bf16" => FloatKind::BF16,
            "f32" => FloatKind::F32,
            "f64" => FloatKind::F64,
            "f8E4M3FN" => FloatKind::F8E4M3FN,
            "f8E5M2" => FloatKind::F8E5M2,
            _ => return None,
        })
    }
}

/// A dimension of a shaped builtin type: a size or `?`.
pub type Dim = Option<u64>;

/// One member of a SPIR-V struct.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructMember {
    pub ty: Type,
    /// Byte offset (`[4]`), when the struct has an explicit layout.
    pub offset: Option<u32>,
    /// Member decorations, printed after the offset (`[0, NonWritable]`), kept as
    /// the decoration name and its optional value text (`MatrixStride=16`).
    pub decorations: Vec<(String, Option<String>)>,
}

/// The body of a struct type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct StructBody {
    pub members: Vec<StructMember>,
    /// Struct-level decorations (`Block`), printed after the members.
    pub decorations: Vec<(String, Option<String>)>,
}

/// A constant an array type names by id where MLIR's array types hold a number: the
/// length of an array sized by a specialization constant, or an `ArrayStrideIdEXT`
/// stride. A `spirv.SpecConstant` by symbol, an integer constant, an `OpSpecConstantOp`
/// over such constants, or `OpConstantSizeOfEXT` of a type. Printed `@n`, `1 : i32`,
/// `IAdd(@n, 1 : i32) : i32` and `sizeof(!spirv.sampler) : i32`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstantExpr {
    Symbol(String),
    Constant {
        value: i128,
        ty: Type,
    },
    SizeOf {
        of: Type,
        ty: Type,
    },
    /// The instruction by its grammar name without `Op` (`IAdd`), its operands and
    /// result type.
    Operation {
        name: String,
        operands: Vec<ConstantExpr>,
        ty: Type,
    },
}

impl ConstantExpr {
    /// The same expression with every type replaced by `map`'s image of it.
    pub fn map_types(&self, map: &impl Fn(Type) -> Type) -> ConstantExpr {
        match self {
            ConstantExpr::Symbol(name) => ConstantExpr::Symbol(name.clone()),
            ConstantExpr::Constant { value, ty } => ConstantExpr::Constant { value: *value, ty: map(*ty) },
            ConstantExpr::SizeOf { of, ty } => ConstantExpr::SizeOf { of: map(*of), ty: map(*ty) },
            ConstantExpr::Operation { name, operands, ty } => ConstantExpr::Operation {
                name: name.clone(),
                operands: operands.iter().map(|o| o.map_types(map)).collect(),
                ty: map(*ty),
            },
        }
    }
}

impl StructBody {
    /// The same body with every member type replaced by `map`'s image of it.
    pub fn map_types(&self, map: &impl Fn(Type) -> Type) -> StructBody {
        StructBody {
            members: self.members.iter().map(|m| StructMember { ty: map(m.ty), ..m.clone() }).collect(),
            decorations: self.decorations.clone(),
        }
    }
}

/// Every kind of type the IR knows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Integer {
        width: u32,
        signedness: Signedness,
    },
    Float(FloatKind),
    Index,
    None,
    /// `vector<2x4xf32>`, with `[4]` marking scalable dimensions.
    Vector {
        shape: Vec<u64>,
        scalable: Vec<bool>,
        element: Type,
    },
    /// `tensor<4x?xf32>` (unranked when `shape` is `None`).
    Tensor {
        shape: Option<Vec<Dim>>,
        element: Type,
    },
    /// `memref<4xf32>` with an optional memory space, kept as attribute text.
    MemRef {
        shape: Option<Vec<Dim>>,
        element: Type,
        memory_space: Option<String>,
    },
    Complex(Type),
    Tuple(Vec<Type>),
    Function {
        inputs: Vec<Type>,
        results: Vec<Type>,
    },
    /// `!spirv.array<4 x f32, stride=4>`. An array sized by a specialization constant
    /// (which MLIR's array type cannot express) has `count` 0 and its length in
    /// `spec_length`: `!spirv.array<@n x f32>`.
    Array {
        element: Type,
        count: u32,
        stride: Option<u32>,
        spec_length: Option<ConstantExpr>,
    },
    /// `!spirv.rtarray<f32, stride=4>`; `stride_id` is an `ArrayStrideIdEXT` stride
    /// (`stride=sizeof(!spirv.sampler) : i32`), which MLIR lacks.
    RuntimeArray {
        element: Type,
        stride: Option<u32>,
        stride_id: Option<ConstantExpr>,
    },
    /// `!spirv.ptr<f32, Function>`, the storage class by grammar name. `stride` is the
    /// pointer type's `ArrayStride` decoration (`OpPtrAccessChain` steps by it), which
    /// MLIR's pointer type lacks: printed `!spirv.ptr<f32, PhysicalStorageBuffer,
    /// stride=4>` only when present.
    Pointer {
        pointee: Type,
        storage_class: String,
        stride: Option<u32>,
    },
    /// `!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, SamplerUnknown, Unknown>`.
    Image {
        element: Type,
        params: [String; 6],
    },
    SampledImage(Type),
    Sampler,
    /// `!spirv.matrix<3 x vector<3xf32>>`.
    Matrix {
        column: Type,
        columns: u32,
    },
    /// `!spirv.coopmatrix<8x16xi32, Subgroup, MatrixA>`.
    CooperativeMatrix {
        rows: u32,
        columns: u32,
        element: Type,
        scope: String,
        usage: String,
    },
    /// `!spirv.struct<(f32 [0], i32 [4])>`.
    LiteralStruct(StructBody),
    /// `!spirv.struct<name, (...)>`: the body is set separately (it may refer to itself).
    IdentifiedStruct {
        name: String,
    },
    /// `!llvm.ptr` (address space 0) or `!llvm.ptr<N>`: LLVM's opaque pointer.
    LlvmPointer {
        address_space: u32,
    },
    /// `!llvm.array<N x T>`.
    LlvmArray {
        count: u64,
        element: Type,
    },
    /// `!llvm.struct<(T, ...)>`, `!llvm.struct<packed (T, ...)>`, or with a name
    /// `!llvm.struct<"name", (T, ...)>` (identified structs are kept with their body:
    /// recursive ones are not supported yet).
    LlvmStruct {
        name: Option<String>,
        packed: bool,
        members: Vec<Type>,
    },
    /// `!llvm.void`, the result type of a function returning nothing.
    LlvmVoid,
    /// `!llvm.func<R (A, B, ...)>`.
    LlvmFunction {
        result: Type,
        params: Vec<Type>,
        variadic: bool,
    },
    /// A dialect type this IR does not model, kept as its text (`!llvm.token`).
    Opaque(String),
}

impl TypeKind {
    /// The same kind with every type it holds replaced by `map`'s image of it.
    pub fn map_types(&self, map: &impl Fn(Type) -> Type) -> TypeKind {
        let mut kind = self.clone();
        match &mut kind {
            TypeKind::Integer { .. }
            | TypeKind::Float(_)
            | TypeKind::Index
            | TypeKind::None
            | TypeKind::Sampler
            | TypeKind::IdentifiedStruct { .. }
            | TypeKind::LlvmPointer { .. }
            | TypeKind::LlvmVoid
            | TypeKind::Opaque(_) => {}
            TypeKind::LlvmArray { element, .. } => *element = map(*element),
            TypeKind::LlvmStruct { members, .. } => members.iter_mut().for_each(|t| *t = map(*t)),
            TypeKind::LlvmFunction { result, params, .. } => {
                *result = map(*result);
                params.iter_mut().for_each(|t| *t = map(*t));
            }
            TypeKind::Vector { element, .. }
            | TypeKind::Tensor { element, .. }
            | TypeKind::MemRef { element, .. }
            | TypeKind::Complex(element)
            | TypeKind::Pointer { pointee: element, .. }
            | TypeKind::Image { element, .. }
            | TypeKind::SampledImage(element)
            | TypeKind::Matrix { column: element, .. }
            | TypeKind::CooperativeMatrix { element, .. } => *element = map(*element),
            TypeKind::Tuple(types) => types.iter_mut().for_each(|t| *t = map(*t)),
            TypeKind::Function { inputs, results } => {
                inputs.iter_mut().chain(results.iter_mut()).for_each(|t| *t = map(*t))
            }
            TypeKind::Array { element, spec_length, .. } => {
                *element = map(*element);
                *spec_length = spec_length.as_ref().map(|e| e.map_types(map));
            }
            TypeKind::RuntimeArray { element, stride_id, .. } => {
                *element = map(*element);
                *stride_id = stride_id.as_ref().map(|e| e.map_types(map));
            }
            TypeKind::LiteralStruct(body) => *body = body.map_types(map),
        }
        kind
    }
}

/// The type interner.
#[derive(Clone, Debug, Default)]
pub struct TypeStore {
    kinds: Vec<TypeKind>,
    ids: FxHashMap<TypeKind, Type>,
    struct_bodies: FxHashMap<String, StructBody>,
    /// Debug names of identified structs' members, by struct name: what the
    /// serializer writes as `OpMemberName` (MLIR's types have no member names; the
    /// text form neither prints nor reads them).
    member_names: FxHashMap<String, Vec<String>>,
    /// Debug names of other types (`OpName` of an image or sampler type, as dxc
    /// writes `type.2d.image`); like member names, only the serializer reads them.
    type_names: FxHashMap<Type, String>,
}

impl TypeStore {
    pub fn new() -> Self {
        TypeStore::default()
    }

    /// The id of `kind`, interning it on first use.
    pub fn intern(&mut self, kind: TypeKind) -> Type {
        if let Some(&ty) = self.ids.get(&kind) {
            return ty;
        }
        let ty = Type(self.kinds.len() as u32);
        self.kinds.push(kind.clone());
        self.ids.insert(kind, ty);
        ty
    }

    /// The id of `kind` if it has been interned.
    pub fn find(&self, kind: &TypeKind) -> Option<Type> {
        self.ids.get(kind).copied()
    }

    /// Every interned type's kind.
    pub fn kinds(&self) -> impl Iterator<Item = &TypeKind> {
        self.kinds.iter()
    }

    pub fn kind(&self, ty: Type) -> &TypeKind {
        &self.kinds[ty.index()]
    }

    pub fn integer(&mut self, width: u32, signedness: Signedness) -> Type {
        self.intern(TypeKind::Integer { width, signedness })
    }

    pub fn float(&mut self, kind: FloatKind) -> Type {
        self.intern(TypeKind::Float(kind))
    }

    pub fn vector(&mut self, count: u64, element: Type) -> Type {
        self.intern(TypeKind::Vector { shape: vec![count], scalable: vec![false], element })
    }

    /// A pointer without an `ArrayStride`.
    pub fn pointer(&mut self, pointee: Type, storage_class: impl Into<String>) -> Type {
        self.intern(TypeKind::Pointer { pointee, storage_class: storage_class.into(), stride: None })
    }

    /// An array of a literal length.
    pub fn array(&mut self, element: Type, count: u32, stride: Option<u32>) -> Type {
        self.intern(TypeKind::Array { element, count, stride, spec_length: None })
    }

    pub fn function(&mut self, inputs: Vec<Type>, results: Vec<Type>) -> Type {
        self.intern(TypeKind::Function { inputs, results })
    }

    /// `!llvm.ptr` in `address_space`.
    pub fn llvm_pointer(&mut self, address_space: u32) -> Type {
        self.intern(TypeKind::LlvmPointer { address_space })
    }

    /// `!llvm.array<count x element>`.
    pub fn llvm_array(&mut self, count: u64, element: Type) -> Type {
        self.intern(TypeKind::LlvmArray { count, element })
    }

    /// A literal `!llvm.struct<(...)>`, packed or not.
    pub fn llvm_struct(&mut self, packed: bool, members: Vec<Type>) -> Type {
        self.intern(TypeKind::LlvmStruct { name: None, packed, members })
    }

    pub fn llvm_void(&mut self) -> Type {
        self.intern(TypeKind::LlvmVoid)
    }

    /// `!llvm.func<result (params...)>`; `result` is `!llvm.void` for none.
    pub fn llvm_function(&mut self, result: Type, params: Vec<Type>, variadic: bool) -> Type {
        self.intern(TypeKind::LlvmFunction { result, params, variadic })
    }

    /// Interns every type of `other` here. Returns, for each type index of `other`,
    /// the id of the same type here; or, when an identified struct has different
    /// bodies in the two stores, its name.
    pub fn absorb(&mut self, other: &TypeStore) -> Result<Vec<Type>, String> {
        let mut ids: Vec<Type> = Vec::with_capacity(other.kinds.len());
        for kind in &other.kinds {
            // A kind only holds types interned before it, so they are mapped already.
            let mapped = kind.map_types(&|t| ids.get(t.index()).copied().unwrap_or(t));
            let id = self.intern(mapped);
            ids.push(id);
        }
        for (name, body) in &other.struct_bodies {
            let body = body.map_types(&|t| ids.get(t.index()).copied().unwrap_or(t));
            if self.set_struct_body(name, body).is_err() {
                return Err(name.clone());
            }
        }
        // Names are debug information only: a struct named in both keeps this
        // store's names.
        for (name, members) in &other.member_names {
            if !self.member_names.contains_key(name) {
                self.member_names.insert(name.clone(), members.clone());
            }
        }
        for (ty, name) in &other.type_names {
            if let Some(&mapped) = ids.get(ty.index()) {
                self.type_names.entry(mapped).or_insert_with(|| name.clone());
            }
        }
        Ok(ids)
    }

    /// Names the members of identified struct `name`, in member order (`OpMemberName`
    /// when serialized with symbol names; an empty name is not written). Replaces
    /// names set before.
    pub fn set_struct_member_names(&mut self, name: &str, members: Vec<String>) {
        self.member_names.insert(name.to_string(), members);
    }

    /// Names a type (`OpName` when serialized with symbol names); for an identified
    /// struct, instead of its identifier (identifiers are unique, debug names need not
    /// be). The first name given stays.
    pub fn set_type_name(&mut self, ty: Type, name: &str) {
        self.type_names.entry(ty).or_insert_with(|| name.to_string());
    }

    /// The debug name of a type set by [`TypeStore::set_type_name`].
    pub fn type_name(&self, ty: Type) -> Option<&str> {
        self.type_names.get(&ty).map(String::as_str)
    }

    /// The member names of identified struct `name`, if set.
    pub fn struct_member_names(&self, name: &str) -> Option<&[String]> {
        self.member_names.get(name).map(Vec::as_slice)
    }

    /// The body of an identified struct, if it has been set.
    pub fn struct_body(&self, name: &str) -> Option<&StructBody> {
        self.struct_bodies.get(name)
    }

    /// One constant index into a composite type (`spirv.CompositeExtract`'s walk, for the
    /// parser and the verifier).
    pub fn composite_step(&self, ty: Type, index: Option<usize>) -> CompositeStep {
        let element = |ty: Type, bound: Option<u64>| CompositeStep::Element { ty, bound };
        match self.kind(ty) {
            TypeKind::Vector { shape, element: e, .. } => element(*e, shape.first().copied()),
            TypeKind::Array { element: e, count, spec_length: None, .. } => {
                element(*e, Some(u64::from(*count)))
            }
            TypeKind::Array { element: e, .. }
            | TypeKind::RuntimeArray { element: e, .. }
            | TypeKind::CooperativeMatrix { element: e, .. } => element(*e, None),
            TypeKind::Matrix { column, columns } => element(*column, Some(u64::from(*columns))),
            TypeKind::LiteralStruct(body) => {
                CompositeStep::Member(index.and_then(|i| body.members.get(i)).map(|m| m.ty))
            }
            TypeKind::IdentifiedStruct { name } => CompositeStep::Member(
                index.and_then(|i| self.struct_body(name)?.members.get(i)).map(|m| m.ty),
            ),
            TypeKind::Tensor { .. } | TypeKind::Opaque(_) => CompositeStep::Unknown,
            _ => CompositeStep::NotComposite,
        }
    }

    /// Sets an identified struct's body. It may be set once; setting it again to a
    /// different body is an error (returns the existing body).
    pub fn set_struct_body(&mut self, name: &str, body: StructBody) -> Result<(), StructBody> {
        match self.struct_bodies.get(name) {
            Some(existing) if *existing != body => Err(existing.clone()),
            Some(_) => Ok(()),
            None => {
                self.struct_bodies.insert(name.to_string(), body);
                Ok(())
            }
        }
    }

    pub fn is_integer(&self, ty: Type) -> bool {
        matches!(self.kind(ty), TypeKind::Integer { .. })
    }

    pub fn is_float(&self, ty: Type) -> bool {
        matches!(self.kind(ty), TypeKind::Float(_))
    }

    /// An integer as an attribute of `ty` holds it: truncated to the type's width,
    /// then read back signed (signless and signed types) or unsigned.
    pub fn normalize_integer(&self, value: i128, ty: Type) -> i128 {
        match self.kind(ty) {
            TypeKind::Integer { width, signedness } if *width > 0 && *width < 128 => {
                let shift = 128 - *width;
                let bits = ((value as u128) << shift) >> shift;
                if *signedness == Signedness::Unsigned {
                    bits as i128
                } else {
                    ((bits << shift) as i128) >> shift
                }
            }
            _ => value,
        }
    }

    /// The element type of a vector, or the type itself.
    pub fn scalar_of(&self, ty: Type) -> Type {
        match self.kind(ty) {
            TypeKind::Vector { element, .. } => *element,
            _ => ty,
        }
    }
}

/// The storage class of an untyped pointer type (`SPV_KHR_untyped_pointers`), which
/// the IR keeps opaque: `spirv.UntypedPointerKHR<StorageBuffer>`.
pub fn untyped_pointer_storage_class(kind: &TypeKind) -> Option<&str> {
    match kind {
        TypeKind::Opaque(text) => text.strip_prefix("spirv.UntypedPointerKHR<")?.strip_suffix('>'),
        _ => None,
    }
}

/// The shape and element spelling of an ARM tensor type kept as opaque text
/// (`spirv.arm.tensor<3x4xi32>` gives `([3, 4], "i32")`); `None` for anything else
/// or a dynamic dimension.
pub fn arm_tensor_parts(text: &str) -> Option<(Vec<u64>, &str)> {
    let body = text.strip_prefix("spirv.arm.tensor<")?.strip_suffix('>')?;
    let mut parts: Vec<&str> = body.split('x').collect();
    let element = parts.pop()?;
    let shape = parts.iter().map(|d| d.trim().parse::<u64>().ok()).collect::<Option<Vec<u64>>>()?;
    Some((shape, element.trim()))
}

/// What one constant index into a type reaches ([`TypeStore::composite_step`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompositeStep {
    /// An element of a vector, array, matrix or cooperative matrix; `bound` is the
    /// element count when the type fixes it.
    Element { ty: Type, bound: Option<u64> },
    /// A struct member; `None` when the index names none.
    Member(Option<Type>),
    /// A tensor or opaque type: what it holds is not modeled.
    Unknown,
    /// Not a composite (a scalar, pointer, ...).
    NotComposite,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_interned() {
        let mut store = TypeStore::new();
        let a = store.integer(32, Signedness::Signless);
        let b = store.integer(32, Signedness::Signless);
        let c = store.integer(32, Signedness::Signed);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let v = store.vector(4, a);
        assert_eq!(store.scalar_of(v), a);
    }

    #[test]
    fn identified_struct_bodies_are_set_once() {
        let mut store = TypeStore::new();
        let s = store.intern(TypeKind::IdentifiedStruct { name: "S".into() });
        let f = store.float(FloatKind::F32);
        let body = StructBody {
            members: vec![StructMember { ty: f, offset: None, decorations: vec![] }],
            decorations: vec![],
        };
        assert!(store.set_struct_body("S", body.clone()).is_ok());
        assert!(store.set_struct_body("S", body).is_ok());
        assert!(store.set_struct_body("S", StructBody::default()).is_err());
        assert!(matches!(store.kind(s), TypeKind::IdentifiedStruct { .. }));
    }

    #[test]
    fn struct_member_names_are_kept_and_absorbed() {
        let mut store = TypeStore::new();
        store.set_struct_member_names("S", vec!["a".into(), "b".into()]);
        assert_eq!(store.struct_member_names("S"), Some(&["a".to_string(), "b".to_string()][..]));
        assert_eq!(store.struct_member_names("T"), None);
        let mut other = TypeStore::new();
        other.set_struct_member_names("S", vec!["x".into()]);
        other.set_struct_member_names("T", vec!["t".into()]);
        store.absorb(&other).unwrap();
        assert_eq!(store.struct_member_names("S").map(<[String]>::len), Some(2));
        assert_eq!(store.struct_member_names("T"), Some(&["t".to_string()][..]));
    }

    #[test]
    fn arm_tensor_parts_reads_shape_and_element() {
        assert_eq!(super::arm_tensor_parts("spirv.arm.tensor<3x4xi32>"), Some((vec![3, 4], "i32")));
        assert_eq!(super::arm_tensor_parts("spirv.arm.tensor<*xi32>"), None);
        assert_eq!(super::arm_tensor_parts("spirv.other<3xi32>"), None);
    }
}
