//! The typed tree: the syntax tree plus side tables, indexed by the tree's ids, that
//! give every expression its type and value category, every name its declaration,
//! every call its chosen overload, every implicit conversion its target, every
//! declaration its type, and the entry point with its stage and attributes.
//!
//! Template instantiations are copies of the template's declaration appended to the
//! syntax tree's arenas, so they have ids of their own and the same tables.

use super::types::{Ty, TypeTable};
use crate::ast::{Ast, DeclId, ExprId};
use std::collections::HashMap;

/// A constant value (array sizes, template arguments, case labels, initializers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstValue {
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl ConstValue {
    pub fn as_int(self) -> Option<i64> {
        match self {
            ConstValue::Int(v) => Some(v),
            ConstValue::Bool(b) => Some(i64::from(b)),
            ConstValue::Float(f) if f.is_finite() => Some(f as i64),
            ConstValue::Float(_) => None,
        }
    }

    pub fn as_float(self) -> f64 {
        match self {
            ConstValue::Int(v) => v as f64,
            ConstValue::Float(f) => f,
            ConstValue::Bool(b) => f64::from(u8::from(b)),
        }
    }

    pub fn as_bool(self) -> bool {
        match self {
            ConstValue::Int(v) => v != 0,
            ConstValue::Float(f) => f != 0.0,
            ConstValue::Bool(b) => b,
        }
    }
}

/// A template argument after evaluation: a type or a constant.
#[derive(Clone, Debug, PartialEq)]
pub enum TemplateValue {
    Type(Ty),
    Value(ConstValue),
}

/// Whether an expression designates storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ValueCategory {
    #[default]
    RValue,
    /// Assignable storage.
    LValue,
    /// Storage that may not be written (`const`, read-only resources' elements,
    /// swizzles with duplicate components).
    ConstLValue,
}

/// How an implicit or explicit conversion changes a value; codegen picks the
/// instruction from this and the two types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastKind {
    /// Same type (or only a literal type made concrete).
    NoOp,
    /// Scalar component type changes (int<->float, widths, bool).
    Numeric,
    /// A scalar replicated to a vector or matrix.
    Splat,
    /// A vector or matrix cut to fewer components (dxc warns).
    Truncate,
    /// A vector reinterpreted as a matrix of the same size, or back.
    Reshape,
    /// A flattened element-wise conversion (struct and array casts).
    Flat,
    /// An enumerator to its integer value, or an integer to an enum.
    Enum,
    /// A conversion sema could not model exactly (opaque and error types).
    Other,
}

/// An implicit conversion applied where an expression is used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conversion {
    pub to: Ty,
    pub kind: CastKind,
}

/// What a name, member or call resolved to.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Resolution {
    #[default]
    None,
    /// A variable, parameter, field, static member, cbuffer member or function.
    Decl(DeclId),
    EnumConstant(DeclId),
    /// A field of a struct: the declaring struct's field index path is in the decl.
    Field {
        decl: DeclId,
        index: u32,
    },
    /// `.xyz`, `.rgba`, `._m00_m11`: component indices (row-major linear for matrices).
    Swizzle(Vec<u8>),
    /// A built-in intrinsic function.
    Intrinsic(u16),
    /// A method of a built-in object type (`Sample`, `Load`, ...).
    ObjectMethod(u16),
    /// A member function of a user type.
    Method(DeclId),
    /// A built-in variable-like member (`.mips`, `.sample`, `.Length`).
    BuiltinMember(&'static str),
    /// A type used as a value (constructor calls' callee).
    Type(Ty),
}

/// Per-expression results.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprInfo {
    pub ty: Ty,
    pub category: ValueCategory,
    pub resolution: Resolution,
    /// The conversion its parent applies to it, if any.
    pub conversion: Option<Conversion>,
    /// Its value, when it is a constant expression.
    pub constant: Option<ConstValue>,
}

impl Default for ExprInfo {
    fn default() -> ExprInfo {
        ExprInfo {
            ty: TypeTable::ERROR,
            category: ValueCategory::RValue,
            resolution: Resolution::None,
            conversion: None,
            constant: None,
        }
    }
}

/// Parameter passing direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamDirection {
    In,
    Out,
    InOut,
}

impl ParamDirection {
    pub fn spelling(self) -> &'static str {
        match self {
            ParamDirection::In => "in",
            ParamDirection::Out => "out",
            ParamDirection::InOut => "inout",
        }
    }
}

/// What a call calls, with the overload that was chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    /// A user function or method (the definition when there is one).
    Function(DeclId),
    /// An intrinsic: its table index and name.
    Intrinsic { index: u16, name: &'static str },
    /// A method of a built-in object type.
    ObjectMethod { index: u16, name: &'static str },
    /// `T(args)`: a vector/matrix/struct constructor.
    Constructor,
}

/// The chosen overload of a call: its callee and the parameter types the arguments
/// were converted to.
#[derive(Clone, Debug, PartialEq)]
pub struct CallInfo {
    pub callee: Callee,
    pub params: Vec<(Ty, ParamDirection)>,
    pub ret: Ty,
}

/// How a global variable is stored, as codegen will need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalStorage {
    /// A non-static, non-resource global: a member of the implicit `$Globals` cbuffer.
    Globals,
    /// A member of an explicit `cbuffer`/`tbuffer`.
    Buffer(DeclId),
    Static,
    GroupShared,
    /// A resource or sampler (its own binding).
    Resource,
    /// `[[vk::push_constant]]`.
    PushConstant,
    /// `[[vk::constant_id]]` specialization constants.
    SpecConstant,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeclInfo {
    /// The type of a variable, parameter or field; a function's return type.
    pub ty: Ty,
    /// Set for parameters.
    pub direction: Option<ParamDirection>,
    /// Set for globals.
    pub storage: Option<GlobalStorage>,
    /// The value of a constant (`static const`, enumerators, template values).
    pub constant: Option<ConstValue>,
    /// Set for functions: the parameter types.
    pub params: Vec<(Ty, ParamDirection)>,
    /// A prototype's definition; an out-of-line static data member's definition.
    pub definition: Option<DeclId>,
    /// The struct of an instance of a member function template (the instance is in
    /// no struct's method table).
    pub method_of: Option<Ty>,
    /// The namespace a function is declared in (`A::B`; empty for the global one).
    pub namespace: String,
}

impl Default for DeclInfo {
    fn default() -> DeclInfo {
        DeclInfo {
            ty: TypeTable::ERROR,
            direction: None,
            storage: None,
            constant: None,
            params: Vec::new(),
            definition: None,
            method_of: None,
            namespace: String::new(),
        }
    }
}

/// Shader stages, from the `-T` profile or `[shader("...")]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Pixel,
    Vertex,
    Geometry,
    Hull,
    Domain,
    Compute,
    Mesh,
    Amplification,
    RayGeneration,
    Intersection,
    AnyHit,
    ClosestHit,
    Miss,
    Callable,
    Node,
    Library,
}

impl Stage {
    /// The stage a `[shader("...")]` string names.
    pub fn from_shader_attribute(name: &str) -> Option<Stage> {
        Some(match name {
            "pixel" => Stage::Pixel,
            "vertex" => Stage::Vertex,
            "geometry" => Stage::Geometry,
            "hull" => Stage::Hull,
            "domain" => Stage::Domain,
            "compute" => Stage::Compute,
            "mesh" => Stage::Mesh,
            "amplification" => Stage::Amplification,
            "raygeneration" => Stage::RayGeneration,
            "intersection" => Stage::Intersection,
            "anyhit" => Stage::AnyHit,
            "closesthit" => Stage::ClosestHit,
            "miss" => Stage::Miss,
            "callable" => Stage::Callable,
            "node" => Stage::Node,
            _ => return None,
        })
    }

    /// The profile prefix dxc prints in messages (`ps`, `ms`, ...).
    pub fn profile_prefix(self) -> &'static str {
        match self {
            Stage::Pixel => "ps",
            Stage::Vertex => "vs",
            Stage::Geometry => "gs",
            Stage::Hull => "hs",
            Stage::Domain => "ds",
            Stage::Compute => "cs",
            Stage::Mesh => "ms",
            Stage::Amplification => "as",
            _ => "lib",
        }
    }

    pub fn is_ray_tracing(self) -> bool {
        matches!(
            self,
            Stage::RayGeneration
                | Stage::Intersection
                | Stage::AnyHit
                | Stage::ClosestHit
                | Stage::Miss
                | Stage::Callable
        )
    }
}

/// An entry point with what codegen needs beyond the function itself.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryPoint {
    pub function: DeclId,
    pub name: String,
    pub stage: Stage,
    /// `[numthreads(x, y, z)]` evaluated.
    pub numthreads: Option<[u32; 3]>,
    /// The `Location` (and dual-source `Index`) of every stage input and output that
    /// is not a built-in, as dxc assigns them: `[[vk::location]]` when every variable
    /// of a direction has one; otherwise `SV_TargetN` at N and the others in
    /// declaration or alphabetical order of their semantics (`-fvk-stage-io-order`;
    /// hull outputs and domain inputs are always alphabetical). In input-then-output,
    /// assignment order.
    pub locations: Vec<StageLocation>,
}

/// Where one stage variable (named by its semantic, unique per direction) lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageLocation {
    pub semantic: String,
    pub input: bool,
    pub location: u32,
    /// `[[vk::index(N)]]` (dual-source blending), else 0.
    pub index: u32,
}

/// One instantiation of a template.
#[derive(Clone, Debug, PartialEq)]
pub struct Instantiation {
    pub template: DeclId,
    pub args: Vec<TemplateValue>,
    /// The instantiated copy.
    pub decl: DeclId,
}

/// The result of semantic analysis.
#[derive(Debug, Default)]
pub struct TypedTree {
    pub ast: Ast,
    pub types: TypeTable,
    /// Indexed by [`ExprId`].
    pub exprs: Vec<ExprInfo>,
    /// Indexed by [`DeclId`].
    pub decls: Vec<DeclInfo>,
    /// Calls (and constructors) by their expression.
    pub calls: HashMap<ExprId, CallInfo>,
    pub entry_points: Vec<EntryPoint>,
    pub instantiations: Vec<Instantiation>,
}

impl TypedTree {
    pub fn expr(&self, id: ExprId) -> Option<&ExprInfo> {
        self.exprs.get(id.index())
    }

    pub fn decl(&self, id: DeclId) -> Option<&DeclInfo> {
        self.decls.get(id.index())
    }

    /// The type an expression has after its implicit conversion.
    pub fn converted_type(&self, id: ExprId) -> Ty {
        self.expr(id).map_or(TypeTable::ERROR, |e| e.conversion.map_or(e.ty, |c| c.to))
    }
}
