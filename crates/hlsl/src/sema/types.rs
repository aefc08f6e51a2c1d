//! Interned HLSL types. A [`Ty`] is a small index into the [`TypeTable`]; equal types
//! have equal ids, so comparing types is comparing integers.

use crate::ast::DeclId;
use crate::lexer::Symbol;
use std::collections::HashMap;

/// An interned type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ty(pub u32);

/// A user struct or class (also each instantiation of a struct template).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);

/// A user enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EnumId(pub u32);

/// Scalar component types. `Half` is 16-bit only under `-enable-16bit-types`; codegen
/// decides the width from the options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    Int,
    UInt,
    Int16,
    UInt16,
    Int64,
    UInt64,
    Half,
    Float,
    Double,
    Min16Float,
    Min10Float,
    Min16Int,
    Min12Int,
    Min16UInt,
    /// The type of an integer literal before its context gives it one.
    LiteralInt,
    /// The type of a floating literal before its context gives it one.
    LiteralFloat,
}

impl Scalar {
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Int16 => "int16_t",
            Scalar::UInt16 => "uint16_t",
            Scalar::Int64 => "int64_t",
            Scalar::UInt64 => "uint64_t",
            Scalar::Half => "half",
            Scalar::Float => "float",
            Scalar::Double => "double",
            Scalar::Min16Float => "min16float",
            Scalar::Min10Float => "min10float",
            Scalar::Min16Int => "min16int",
            Scalar::Min12Int => "min12int",
            Scalar::Min16UInt => "min16uint",
            Scalar::LiteralInt => "literal int",
            Scalar::LiteralFloat => "literal float",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            Scalar::Half
                | Scalar::Float
                | Scalar::Double
                | Scalar::Min16Float
                | Scalar::Min10Float
                | Scalar::LiteralFloat
        )
    }

    pub fn is_integer(self) -> bool {
        !self.is_float() && self != Scalar::Bool
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Scalar::Int
                | Scalar::Int16
                | Scalar::Int64
                | Scalar::Min16Int
                | Scalar::Min12Int
                | Scalar::LiteralInt
        ) || self.is_float()
    }

    pub fn is_literal(self) -> bool {
        matches!(self, Scalar::LiteralInt | Scalar::LiteralFloat)
    }

    /// The width in bits as dxc lays it out (min-precision types occupy 32 bits;
    /// `half` is 32-bit without `-enable-16bit-types`).
    pub fn bits(self, sixteen_bit_types: bool) -> u32 {
        match self {
            Scalar::Int16 | Scalar::UInt16 => 16,
            Scalar::Half if sixteen_bit_types => 16,
            Scalar::Min16Float
            | Scalar::Min10Float
            | Scalar::Min16Int
            | Scalar::Min12Int
            | Scalar::Min16UInt
                if sixteen_bit_types =>
            {
                16
            }
            Scalar::Int64 | Scalar::UInt64 | Scalar::Double | Scalar::LiteralFloat | Scalar::LiteralInt => 64,
            _ => 32,
        }
    }

    /// Ordering used by the usual arithmetic conversions: the larger wins.
    pub fn rank(self) -> u32 {
        match self {
            Scalar::Bool => 0,
            Scalar::LiteralInt => 1,
            Scalar::Min12Int => 2,
            Scalar::Min16Int => 3,
            Scalar::Min16UInt => 4,
            Scalar::Int16 => 5,
            Scalar::UInt16 => 6,
            Scalar::Int => 7,
            Scalar::UInt => 8,
            Scalar::Int64 => 9,
            Scalar::UInt64 => 10,
            Scalar::LiteralFloat => 11,
            Scalar::Min10Float => 12,
            Scalar::Min16Float => 13,
            Scalar::Half => 14,
            Scalar::Float => 15,
            Scalar::Double => 16,
        }
    }

    /// The type a literal takes when nothing else decides.
    pub fn concrete(self) -> Scalar {
        match self {
            Scalar::LiteralInt => Scalar::Int,
            Scalar::LiteralFloat => Scalar::Float,
            s => s,
        }
    }

    /// The signed or unsigned type of the same width.
    pub fn with_signedness(self, signed: bool) -> Scalar {
        match (self, signed) {
            (Scalar::Int | Scalar::UInt, true) => Scalar::Int,
            (Scalar::Int | Scalar::UInt, false) => Scalar::UInt,
            (Scalar::Int16 | Scalar::UInt16, true) => Scalar::Int16,
            (Scalar::Int16 | Scalar::UInt16, false) => Scalar::UInt16,
            (Scalar::Int64 | Scalar::UInt64, true) => Scalar::Int64,
            (Scalar::Int64 | Scalar::UInt64, false) => Scalar::UInt64,
            (Scalar::Min16Int | Scalar::Min16UInt, true) => Scalar::Min16Int,
            (Scalar::Min16Int | Scalar::Min16UInt, false) => Scalar::Min16UInt,
            (s, _) => s,
        }
    }
}

/// Storage order of a matrix as declared (`row_major`/`column_major`), or unspecified
/// (the `#pragma pack_matrix` and `-Zpr` defaults apply in codegen).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Majorness {
    Default,
    RowMajor,
    ColumnMajor,
}

macro_rules! object_kinds {
    ($($name:ident = $text:expr, $family:ident, $dims:expr;)*) => {
        /// Resource and object types, each with its family and texture shape.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ObjectKind { $($name),* }

        impl ObjectKind {
            pub const ALL: &'static [ObjectKind] = &[$(ObjectKind::$name),*];

            pub fn name(self) -> &'static str {
                match self { $(ObjectKind::$name => $text),* }
            }

            pub fn family(self) -> Family {
                match self { $(ObjectKind::$name => Family::$family),* }
            }

            /// The texture shape (for textures and feedback textures).
            pub fn shape(self) -> Option<TextureShape> {
                match self { $(ObjectKind::$name => $dims),* }
            }
        }
    };
}

/// What operations an object type has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Texture,
    RWTexture,
    Buffer,
    RWBuffer,
    StructuredBuffer,
    RWStructuredBuffer,
    AppendBuffer,
    ConsumeBuffer,
    ByteAddressBuffer,
    RWByteAddressBuffer,
    Sampler,
    ComparisonSampler,
    AccelerationStructure,
    ConstantBuffer,
    TextureBuffer,
    Stream,
    InputPatch,
    OutputPatch,
    RayQuery,
    FeedbackTexture,
    SubpassInput,
    /// Work graph node records and outputs.
    Node,
    /// `vk::SpirvType`, `vk::BufferPointer`, `HitObject`, state objects, ...
    Other,
}

/// The shape of a texture: how many coordinates address it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureShape {
    /// Spatial dimensions: 1, 2 or 3 (cubes have 3 sampling coordinates, 2 dimensions).
    pub dims: u8,
    pub array: bool,
    pub cube: bool,
    pub multisampled: bool,
}

const fn tex(dims: u8, array: bool, cube: bool, multisampled: bool) -> Option<TextureShape> {
    Some(TextureShape { dims, array, cube, multisampled })
}

impl TextureShape {
    /// Components of a sampling coordinate (`float2` for `Texture2D`).
    pub fn sample_coords(self) -> u8 {
        if self.cube {
            3 + u8::from(self.array)
        } else {
            self.dims + u8::from(self.array)
        }
    }

    /// Components of an integer texel address without the mip level.
    pub fn texel_coords(self) -> u8 {
        self.dims + u8::from(self.array)
    }

    /// Components of an offset (`int2` for 2D textures).
    pub fn offset_coords(self) -> u8 {
        if self.cube {
            3
        } else {
            self.dims
        }
    }
}

object_kinds! {
    Buffer = "Buffer", Buffer, None;
    RWBuffer = "RWBuffer", RWBuffer, None;
    RasterizerOrderedBuffer = "RasterizerOrderedBuffer", RWBuffer, None;
    StructuredBuffer = "StructuredBuffer", StructuredBuffer, None;
    RWStructuredBuffer = "RWStructuredBuffer", RWStructuredBuffer, None;
    RasterizerOrderedStructuredBuffer = "RasterizerOrderedStructuredBuffer", RWStructuredBuffer, None;
    AppendStructuredBuffer = "AppendStructuredBuffer", AppendBuffer, None;
    ConsumeStructuredBuffer = "ConsumeStructuredBuffer", ConsumeBuffer, None;
    ByteAddressBuffer = "ByteAddressBuffer", ByteAddressBuffer, None;
    RWByteAddressBuffer = "RWByteAddressBuffer", RWByteAddressBuffer, None;
    RasterizerOrderedByteAddressBuffer = "RasterizerOrderedByteAddressBuffer", RWByteAddressBuffer, None;
    Texture1D = "Texture1D", Texture, tex(1, false, false, false);
    Texture1DArray = "Texture1DArray", Texture, tex(1, true, false, false);
    Texture2D = "Texture2D", Texture, tex(2, false, false, false);
    Texture2DArray = "Texture2DArray", Texture, tex(2, true, false, false);
    Texture2DMS = "Texture2DMS", Texture, tex(2, false, false, true);
    Texture2DMSArray = "Texture2DMSArray", Texture, tex(2, true, false, true);
    Texture3D = "Texture3D", Texture, tex(3, false, false, false);
    TextureCube = "TextureCube", Texture, tex(2, false, true, false);
    TextureCubeArray = "TextureCubeArray", Texture, tex(2, true, true, false);
    RWTexture1D = "RWTexture1D", RWTexture, tex(1, false, false, false);
    RWTexture1DArray = "RWTexture1DArray", RWTexture, tex(1, true, false, false);
    RWTexture2D = "RWTexture2D", RWTexture, tex(2, false, false, false);
    RWTexture2DArray = "RWTexture2DArray", RWTexture, tex(2, true, false, false);
    RWTexture2DMS = "RWTexture2DMS", RWTexture, tex(2, false, false, true);
    RWTexture2DMSArray = "RWTexture2DMSArray", RWTexture, tex(2, true, false, true);
    RWTexture3D = "RWTexture3D", RWTexture, tex(3, false, false, false);
    RasterizerOrderedTexture1D = "RasterizerOrderedTexture1D", RWTexture, tex(1, false, false, false);
    RasterizerOrderedTexture1DArray = "RasterizerOrderedTexture1DArray", RWTexture, tex(1, true, false, false);
    RasterizerOrderedTexture2D = "RasterizerOrderedTexture2D", RWTexture, tex(2, false, false, false);
    RasterizerOrderedTexture2DArray = "RasterizerOrderedTexture2DArray", RWTexture, tex(2, true, false, false);
    RasterizerOrderedTexture3D = "RasterizerOrderedTexture3D", RWTexture, tex(3, false, false, false);
    FeedbackTexture2D = "FeedbackTexture2D", FeedbackTexture, tex(2, false, false, false);
    FeedbackTexture2DArray = "FeedbackTexture2DArray", FeedbackTexture, tex(2, true, false, false);
    SamplerState = "SamplerState", Sampler, None;
    SamplerComparisonState = "SamplerComparisonState", ComparisonSampler, None;
    RaytracingAccelerationStructure = "RaytracingAccelerationStructure", AccelerationStructure, None;
    AccelerationStructureNV = "AccelerationStructureNV", AccelerationStructure, None;
    ConstantBuffer = "ConstantBuffer", ConstantBuffer, None;
    TextureBuffer = "TextureBuffer", TextureBuffer, None;
    TriangleStream = "TriangleStream", Stream, None;
    LineStream = "LineStream", Stream, None;
    PointStream = "PointStream", Stream, None;
    InputPatch = "InputPatch", InputPatch, None;
    OutputPatch = "OutputPatch", OutputPatch, None;
    RayQuery = "RayQuery", RayQuery, None;
    SubpassInput = "SubpassInput", SubpassInput, None;
    SubpassInputMS = "SubpassInputMS", SubpassInput, None;
    SampledTexture1D = "SampledTexture1D", Texture, tex(1, false, false, false);
    SampledTexture1DArray = "SampledTexture1DArray", Texture, tex(1, true, false, false);
    SampledTexture2D = "SampledTexture2D", Texture, tex(2, false, false, false);
    SampledTexture2DArray = "SampledTexture2DArray", Texture, tex(2, true, false, false);
    SampledTexture2DMS = "SampledTexture2DMS", Texture, tex(2, false, false, true);
    SampledTexture2DMSArray = "SampledTexture2DMSArray", Texture, tex(2, true, false, true);
    SampledTexture3D = "SampledTexture3D", Texture, tex(3, false, false, false);
    SampledTextureCube = "SampledTextureCube", Texture, tex(2, false, true, false);
    SampledTextureCubeArray = "SampledTextureCubeArray", Texture, tex(2, true, true, false);
    SampledBuffer = "SampledBuffer", Buffer, None;
    NodeOutput = "NodeOutput", Node, None;
    NodeOutputArray = "NodeOutputArray", Node, None;
    EmptyNodeInput = "EmptyNodeInput", Node, None;
    EmptyNodeOutput = "EmptyNodeOutput", Node, None;
    EmptyNodeOutputArray = "EmptyNodeOutputArray", Node, None;
    DispatchNodeInputRecord = "DispatchNodeInputRecord", Node, None;
    RWDispatchNodeInputRecord = "RWDispatchNodeInputRecord", Node, None;
    GroupNodeInputRecords = "GroupNodeInputRecords", Node, None;
    RWGroupNodeInputRecords = "RWGroupNodeInputRecords", Node, None;
    ThreadNodeInputRecord = "ThreadNodeInputRecord", Node, None;
    RWThreadNodeInputRecord = "RWThreadNodeInputRecord", Node, None;
    GroupNodeOutputRecords = "GroupNodeOutputRecords", Node, None;
    ThreadNodeOutputRecords = "ThreadNodeOutputRecords", Node, None;
    HitObject = "HitObject", Other, None;
    SpirvType = "vk::SpirvType", Other, None;
    SpirvOpaqueType = "vk::SpirvOpaqueType", Other, None;
    BufferPointer = "vk::BufferPointer", Other, None;
    LegacyObject = "texture", Other, None;
    StateObject = "StateObjectConfig", Other, None;
}

impl ObjectKind {
    /// The kind named by a (possibly `vk::`-stripped) built-in type name.
    pub fn from_name(name: &str) -> Option<ObjectKind> {
        let found = ObjectKind::ALL
            .iter()
            .copied()
            .find(|k| k.name() == name || k.name().strip_prefix("vk::") == Some(name));
        found.or(match name {
            "SampledTextureCUBE" => Some(ObjectKind::SampledTextureCube),
            "SampledTextureCUBEArray" => Some(ObjectKind::SampledTextureCubeArray),
            "sampler" | "sampler1D" | "sampler2D" | "sampler3D" | "samplerCUBE" => {
                Some(ObjectKind::SamplerState)
            }
            "texture" | "Texture" => Some(ObjectKind::LegacyObject),
            "GlobalRootSignature"
            | "LocalRootSignature"
            | "StateObjectConfig"
            | "SubobjectToExportsAssociation"
            | "RaytracingShaderConfig"
            | "RaytracingPipelineConfig"
            | "RaytracingPipelineConfig1"
            | "TriangleHitGroup"
            | "ProceduralPrimitiveHitGroup" => Some(ObjectKind::StateObject),
            _ => None,
        })
    }

    /// Whether `[]` on it gives a writable element.
    pub fn is_writable(self) -> bool {
        matches!(
            self.family(),
            Family::RWTexture | Family::RWBuffer | Family::RWStructuredBuffer | Family::RWByteAddressBuffer
        )
    }

    /// Resources (bound through descriptors) as opposed to other objects.
    pub fn is_resource(self) -> bool {
        !matches!(
            self.family(),
            Family::Stream
                | Family::InputPatch
                | Family::OutputPatch
                | Family::RayQuery
                | Family::Node
                | Family::Other
        ) || self == ObjectKind::LegacyObject
    }
}

/// A template argument of an object type: a type or a constant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ObjectArg {
    Type(Ty),
    Int(i64),
    /// An argument sema does not model (inline SPIR-V operands).
    Opaque,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeData {
    /// The type of an erroneous expression: accepted everywhere, so one mistake is
    /// reported once.
    Error,
    Void,
    Scalar(Scalar),
    Vector(Scalar, u8),
    Matrix {
        elem: Scalar,
        rows: u8,
        cols: u8,
        major: Majorness,
    },
    /// `len` is `None` for unsized arrays (`T[]`).
    Array {
        elem: Ty,
        len: Option<u32>,
    },
    Struct(StructId),
    Enum(EnumId),
    Object {
        kind: ObjectKind,
        args: Vec<ObjectArg>,
    },
    String,
    /// A type sema accepts without modelling it further (inline SPIR-V types and the
    /// like): operations on it are not checked.
    Opaque(Symbol),
}

/// Fields, bases, methods and static members of a user struct or class.
#[derive(Clone, Debug)]
pub struct StructInfo {
    pub name: String,
    /// The declaration (for instantiations: the instantiated copy).
    pub decl: DeclId,
    pub bases: Vec<Ty>,
    pub fields: Vec<Field>,
    /// Member functions by name (overload sets).
    pub methods: HashMap<Symbol, Vec<DeclId>>,
    /// Static data members.
    pub statics: HashMap<Symbol, DeclId>,
    /// Nested types (typedefs, nested structs and enums).
    pub types: HashMap<Symbol, Ty>,
    /// Nested alias and struct templates (their `Template` declarations).
    pub member_templates: HashMap<Symbol, DeclId>,
    /// Nested constants usable in constant expressions (`static const int N = 4;`).
    pub complete: bool,
    /// Template arguments, when this is an instantiation.
    pub template_args: Vec<crate::sema::tree::TemplateValue>,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: Symbol,
    pub ty: Ty,
    pub decl: DeclId,
    /// The width of a bit-field (`uint a : 4;`), checked to fit its integer type.
    pub bit_width: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct EnumInfo {
    pub name: String,
    pub decl: DeclId,
    pub scoped: bool,
    pub underlying: Scalar,
    pub constants: HashMap<Symbol, (DeclId, i64)>,
}

/// The type table: interned types plus the struct and enum definitions they refer to.
#[derive(Debug, Default, Clone)]
pub struct TypeTable {
    data: Vec<TypeData>,
    index: HashMap<TypeData, Ty>,
    pub structs: Vec<StructInfo>,
    pub enums: Vec<EnumInfo>,
}

impl TypeTable {
    pub fn new() -> TypeTable {
        let mut t = TypeTable::default();
        // Fixed ids for the most used types.
        t.intern(TypeData::Error);
        t.intern(TypeData::Void);
        t.intern(TypeData::Scalar(Scalar::Bool));
        t.intern(TypeData::Scalar(Scalar::Int));
        t.intern(TypeData::Scalar(Scalar::UInt));
        t.intern(TypeData::Scalar(Scalar::Float));
        t.intern(TypeData::Scalar(Scalar::LiteralInt));
        t.intern(TypeData::Scalar(Scalar::LiteralFloat));
        t.intern(TypeData::String);
        t
    }

    pub const ERROR: Ty = Ty(0);
    pub const VOID: Ty = Ty(1);
    pub const BOOL: Ty = Ty(2);
    pub const INT: Ty = Ty(3);
    pub const UINT: Ty = Ty(4);
    pub const FLOAT: Ty = Ty(5);
    pub const LITERAL_INT: Ty = Ty(6);
    pub const LITERAL_FLOAT: Ty = Ty(7);
    pub const STRING: Ty = Ty(8);

    pub fn intern(&mut self, data: TypeData) -> Ty {
        if let Some(&ty) = self.index.get(&data) {
            return ty;
        }
        let ty = Ty(self.data.len() as u32);
        self.data.push(data.clone());
        self.index.insert(data, ty);
        ty
    }

    /// The type of `data` if it was interned, without interning it (for users that hold
    /// the table shared).
    pub fn lookup(&self, data: &TypeData) -> Option<Ty> {
        self.index.get(data).copied()
    }

    pub fn get(&self, ty: Ty) -> &TypeData {
        self.data.get(ty.0 as usize).unwrap_or(&TypeData::Error)
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn scalar(&mut self, s: Scalar) -> Ty {
        self.intern(TypeData::Scalar(s))
    }

    /// `vector<s, n>`; a 1-vector is its own type (`float1`).
    pub fn vector(&mut self, s: Scalar, n: u8) -> Ty {
        self.intern(TypeData::Vector(s, n))
    }

    pub fn matrix(&mut self, elem: Scalar, rows: u8, cols: u8) -> Ty {
        self.intern(TypeData::Matrix { elem, rows, cols, major: Majorness::Default })
    }

    pub fn array(&mut self, elem: Ty, len: Option<u32>) -> Ty {
        self.intern(TypeData::Array { elem, len })
    }

    pub fn object(&mut self, kind: ObjectKind, args: Vec<ObjectArg>) -> Ty {
        self.intern(TypeData::Object { kind, args })
    }

    pub fn is_error(&self, ty: Ty) -> bool {
        matches!(self.get(ty), TypeData::Error | TypeData::Opaque(_))
    }

    pub fn is_void(&self, ty: Ty) -> bool {
        matches!(self.get(ty), TypeData::Void)
    }

    /// The component type of a scalar, vector or matrix (enums count as their
    /// underlying type).
    pub fn component(&self, ty: Ty) -> Option<Scalar> {
        match self.get(ty) {
            TypeData::Scalar(s) | TypeData::Vector(s, _) => Some(*s),
            TypeData::Matrix { elem, .. } => Some(*elem),
            TypeData::Enum(e) => Some(self.enums.get(e.0 as usize).map_or(Scalar::Int, |e| e.underlying)),
            _ => None,
        }
    }

    /// `(rows, cols)` of a numeric type: scalars are 1x1, vectors 1xN.
    pub fn shape(&self, ty: Ty) -> Option<Shape> {
        match self.get(ty) {
            TypeData::Scalar(_) | TypeData::Enum(_) => Some(Shape::Scalar),
            TypeData::Vector(_, n) => Some(Shape::Vector(*n)),
            TypeData::Matrix { rows, cols, .. } => Some(Shape::Matrix(*rows, *cols)),
            _ => None,
        }
    }

    pub fn is_numeric(&self, ty: Ty) -> bool {
        self.shape(ty).is_some()
    }

    pub fn is_scalar(&self, ty: Ty) -> bool {
        matches!(self.get(ty), TypeData::Scalar(_) | TypeData::Enum(_))
    }

    /// A type with `shape` and component `s` (majorness dropped).
    pub fn with_shape(&mut self, s: Scalar, shape: Shape) -> Ty {
        match shape {
            Shape::Scalar => self.scalar(s),
            Shape::Vector(n) => self.vector(s, n),
            Shape::Matrix(r, c) => self.matrix(s, r, c),
        }
    }

    /// The same shape with another component type (keeps majorness).
    pub fn with_component(&mut self, ty: Ty, s: Scalar) -> Ty {
        match self.get(ty).clone() {
            TypeData::Vector(_, n) => self.vector(s, n),
            TypeData::Matrix { rows, cols, major, .. } => {
                self.intern(TypeData::Matrix { elem: s, rows, cols, major })
            }
            TypeData::Scalar(_) | TypeData::Enum(_) => self.scalar(s),
            _ => ty,
        }
    }

    /// The matrix type with its majorness dropped (types compare without it).
    pub fn unqualified(&mut self, ty: Ty) -> Ty {
        match self.get(ty).clone() {
            TypeData::Matrix { elem, rows, cols, major } if major != Majorness::Default => {
                self.matrix(elem, rows, cols)
            }
            TypeData::Array { elem, len } => {
                let e = self.unqualified(elem);
                self.array(e, len)
            }
            _ => ty,
        }
    }

    /// Literal component types replaced by `int`/`float`.
    pub fn concrete(&mut self, ty: Ty) -> Ty {
        match self.component(ty) {
            Some(s) if s.is_literal() => self.with_component(ty, s.concrete()),
            _ => ty,
        }
    }

    /// The number of scalar components when flattened (`float4x4` = 16, arrays and
    /// structs summed); `None` for objects and unsized arrays.
    pub fn flat_count(&self, ty: Ty) -> Option<u32> {
        self.flat_count_depth(ty, 0)
    }

    fn flat_count_depth(&self, ty: Ty, depth: u32) -> Option<u32> {
        if depth > 64 {
            return None;
        }
        match self.get(ty) {
            TypeData::Scalar(_) | TypeData::Enum(_) => Some(1),
            TypeData::Vector(_, n) => Some(u32::from(*n)),
            TypeData::Matrix { rows, cols, .. } => Some(u32::from(*rows) * u32::from(*cols)),
            TypeData::Array { elem, len: Some(n) } => {
                self.flat_count_depth(*elem, depth + 1)?.checked_mul(*n)
            }
            TypeData::Struct(s) => {
                let info = self.structs.get(s.0 as usize)?;
                let mut total = 0u32;
                for b in &info.bases {
                    total = total.checked_add(self.flat_count_depth(*b, depth + 1)?)?;
                }
                for f in &info.fields {
                    total = total.checked_add(self.flat_count_depth(f.ty, depth + 1)?)?;
                }
                Some(total)
            }
            _ => None,
        }
    }

    pub fn struct_info(&self, id: StructId) -> Option<&StructInfo> {
        self.structs.get(id.0 as usize)
    }

    /// Whether the type contains a resource or object anywhere (arrays, fields).
    pub fn contains_object(&self, ty: Ty) -> bool {
        self.contains_object_depth(ty, 0)
    }

    fn contains_object_depth(&self, ty: Ty, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        match self.get(ty) {
            TypeData::Object { .. } => true,
            TypeData::Array { elem, .. } => self.contains_object_depth(*elem, depth + 1),
            TypeData::Struct(s) => self.structs.get(s.0 as usize).is_some_and(|info| {
                info.fields.iter().any(|f| self.contains_object_depth(f.ty, depth + 1))
                    || info.bases.iter().any(|b| self.contains_object_depth(*b, depth + 1))
            }),
            _ => false,
        }
    }

    /// The element type of an object's first type argument (`float4` of `Texture2D<float4>`).
    pub fn object_element(&self, ty: Ty) -> Option<Ty> {
        match self.get(ty) {
            TypeData::Object { args, .. } => args.iter().find_map(|a| match a {
                ObjectArg::Type(t) => Some(*t),
                _ => None,
            }),
            _ => None,
        }
    }

    /// The type as dxc prints it in diagnostics: `float4`, `vector<half, 2>`,
    /// `float2x3`, `const`-less.
    pub fn display(&self, ty: Ty) -> String {
        let mut out = String::new();
        self.write(&mut out, ty, 0);
        out
    }

    /// The type as dxc prints an intrinsic's parameter type: its vectors and matrices
    /// are template instances (`vector<float, 2>`, `matrix<float, 2, 3>`), never the
    /// short names.
    pub fn display_template(&self, ty: Ty) -> String {
        match self.get(ty) {
            TypeData::Vector(s, n) => format!("vector<{}, {n}>", s.name()),
            TypeData::Matrix { elem, rows, cols, .. } => format!("matrix<{}, {rows}, {cols}>", elem.name()),
            _ => self.display(ty),
        }
    }

    fn write(&self, out: &mut String, ty: Ty, depth: u32) {
        if depth > 32 {
            out.push_str("...");
            return;
        }
        match self.get(ty) {
            TypeData::Error => out.push_str("<error type>"),
            TypeData::Void => out.push_str("void"),
            TypeData::String => out.push_str("string"),
            TypeData::Scalar(s) => out.push_str(s.name()),
            TypeData::Vector(s, n) => {
                if has_short_name(*s) {
                    out.push_str(&format!("{}{n}", s.name()));
                } else {
                    out.push_str(&format!("vector<{}, {n}>", s.name()));
                }
            }
            TypeData::Matrix { elem, rows, cols, major } => {
                match major {
                    Majorness::RowMajor => out.push_str("row_major "),
                    Majorness::ColumnMajor => out.push_str("column_major "),
                    Majorness::Default => {}
                }
                if has_short_name(*elem) {
                    out.push_str(&format!("{}{rows}x{cols}", elem.name()));
                } else {
                    out.push_str(&format!("matrix<{}, {rows}, {cols}>", elem.name()));
                }
            }
            TypeData::Array { .. } => {
                // C order: the outer length first (`float[3][2]` is three `float[2]`).
                let mut lens = Vec::new();
                let mut inner = ty;
                while let TypeData::Array { elem, len } = self.get(inner) {
                    lens.push(*len);
                    inner = *elem;
                    if lens.len() > 64 {
                        break;
                    }
                }
                self.write(out, inner, depth + 1);
                for len in lens {
                    match len {
                        Some(n) => out.push_str(&format!("[{n}]")),
                        None => out.push_str("[]"),
                    }
                }
            }
            TypeData::Struct(s) => {
                out.push_str(self.structs.get(s.0 as usize).map_or("<struct>", |i| i.name.as_str()))
            }
            TypeData::Enum(e) => {
                out.push_str(self.enums.get(e.0 as usize).map_or("<enum>", |i| i.name.as_str()))
            }
            TypeData::Object { kind, args } => {
                out.push_str(kind.name());
                if !args.is_empty() {
                    out.push('<');
                    for (i, a) in args.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        match a {
                            ObjectArg::Type(t) => self.write(out, *t, depth + 1),
                            ObjectArg::Int(v) => out.push_str(&v.to_string()),
                            ObjectArg::Opaque => out.push_str("..."),
                        }
                    }
                    out.push('>');
                }
            }
            TypeData::Opaque(_) => out.push_str("<opaque>"),
        }
    }
}

/// Whether `float4`-style spellings exist for vectors of this component type.
fn has_short_name(s: Scalar) -> bool {
    matches!(
        s,
        Scalar::Bool
            | Scalar::Int
            | Scalar::UInt
            | Scalar::Float
            | Scalar::Double
            | Scalar::Min16Float
            | Scalar::Min10Float
            | Scalar::Min16Int
            | Scalar::Min12Int
            | Scalar::Min16UInt
            | Scalar::Int64
            | Scalar::UInt64
            | Scalar::Int16
            | Scalar::UInt16
    )
}

/// The shape of a numeric type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    Scalar,
    Vector(u8),
    Matrix(u8, u8),
}

impl Shape {
    pub fn count(self) -> u32 {
        match self {
            Shape::Scalar => 1,
            Shape::Vector(n) => u32::from(n),
            Shape::Matrix(r, c) => u32::from(r) * u32::from(c),
        }
    }
}

/// The scalar, vector or matrix type a built-in spelling names: `float`, `uint3`,
/// `min16float2x2`, `int64_t4`, `dword`. `sixteen_bit` decides `half`/`float16_t`.
pub fn builtin_numeric(name: &str) -> Option<(Scalar, Shape)> {
    const SCALARS: &[(&str, Scalar)] = &[
        ("bool", Scalar::Bool),
        ("int", Scalar::Int),
        ("uint", Scalar::UInt),
        ("dword", Scalar::UInt),
        ("half", Scalar::Half),
        ("float", Scalar::Float),
        ("double", Scalar::Double),
        ("min16float", Scalar::Min16Float),
        ("min10float", Scalar::Min10Float),
        ("min16int", Scalar::Min16Int),
        ("min12int", Scalar::Min12Int),
        ("min16uint", Scalar::Min16UInt),
        ("int16_t", Scalar::Int16),
        ("uint16_t", Scalar::UInt16),
        ("int32_t", Scalar::Int),
        ("uint32_t", Scalar::UInt),
        ("int64_t", Scalar::Int64),
        ("uint64_t", Scalar::UInt64),
        ("float16_t", Scalar::Half),
        ("float32_t", Scalar::Float),
        ("float64_t", Scalar::Double),
        ("uint8_t4_packed", Scalar::UInt),
        ("int8_t4_packed", Scalar::UInt),
    ];
    if let Some((_, s)) = SCALARS.iter().find(|(n, _)| *n == name) {
        return Some((*s, Shape::Scalar));
    }
    let base_end = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == 'x').len();
    let (base, suffix) = name.split_at(base_end);
    // `int16_t4`: the base ends in digits itself, so retry with the longest scalar prefix.
    let (scalar, suffix) = match SCALARS.iter().find(|(n, _)| *n == base) {
        Some((_, s)) => (*s, suffix),
        None => {
            let (n, s) = SCALARS
                .iter()
                .filter(|(n, _)| name.starts_with(n) && n.ends_with(|c: char| c.is_ascii_digit() || c == 't'))
                .max_by_key(|(n, _)| n.len())?;
            (*s, &name[n.len()..])
        }
    };
    if matches!(name, "uint8_t4_packed" | "int8_t4_packed") {
        return None;
    }
    let dim = |s: &str| -> Option<u8> {
        (s.len() == 1).then(|| s.as_bytes()[0]).filter(|b| (b'1'..=b'4').contains(b)).map(|b| b - b'0')
    };
    match suffix.split_once('x') {
        None => Some((scalar, Shape::Vector(dim(suffix)?))),
        Some((r, c)) => Some((scalar, Shape::Matrix(dim(r)?, dim(c)?))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_gives_equal_ids_for_equal_types() {
        let mut t = TypeTable::new();
        let a = t.vector(Scalar::Float, 4);
        let b = t.vector(Scalar::Float, 4);
        assert_eq!(a, b);
        assert_ne!(a, t.vector(Scalar::Float, 3));
        assert_eq!(t.scalar(Scalar::Float), TypeTable::FLOAT);
        assert_eq!(t.display(a), "float4");
        let h = t.vector(Scalar::Half, 2);
        assert_eq!(t.display(h), "vector<half, 2>");
        let m = t.matrix(Scalar::Float, 2, 3);
        assert_eq!(t.display(m), "float2x3");
        let arr = t.array(m, Some(4));
        assert_eq!(t.display(arr), "float2x3[4]");
        assert_eq!(t.flat_count(arr), Some(24));
    }

    #[test]
    fn builtin_numeric_spellings() {
        assert_eq!(builtin_numeric("float"), Some((Scalar::Float, Shape::Scalar)));
        assert_eq!(builtin_numeric("uint3"), Some((Scalar::UInt, Shape::Vector(3))));
        assert_eq!(builtin_numeric("min16float2x4"), Some((Scalar::Min16Float, Shape::Matrix(2, 4))));
        assert_eq!(builtin_numeric("int16_t4"), Some((Scalar::Int16, Shape::Vector(4))));
        assert_eq!(builtin_numeric("uint64_t2x2"), Some((Scalar::UInt64, Shape::Matrix(2, 2))));
        assert_eq!(builtin_numeric("float16_t"), Some((Scalar::Half, Shape::Scalar)));
        assert_eq!(builtin_numeric("dword"), Some((Scalar::UInt, Shape::Scalar)));
        assert_eq!(builtin_numeric("float5"), None);
        assert_eq!(builtin_numeric("Texture2D"), None);
    }

    #[test]
    fn texture_shapes() {
        let s = ObjectKind::Texture2DArray.shape().unwrap();
        assert_eq!((s.sample_coords(), s.texel_coords(), s.offset_coords()), (3, 3, 2));
        let c = ObjectKind::TextureCubeArray.shape().unwrap();
        assert_eq!(c.sample_coords(), 4);
        assert_eq!(ObjectKind::from_name("SpirvType"), Some(ObjectKind::SpirvType));
        assert!(ObjectKind::RWTexture2D.is_writable() && !ObjectKind::Texture2D.is_writable());
    }
}
