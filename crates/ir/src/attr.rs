//! Attribute values, in MLIR's model: typed integers and floats, strings, arrays,
//! dictionaries, symbol references, dense elements, and dialect attributes.

use crate::types::{Type, TypeKind, TypeStore};

/// The dialect attribute name of a null constant (see [`Attribute::null_constant`]).
pub const NULL_CONSTANT: &str = "spirv.null";

/// An attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    /// `unit`: the attribute's presence is the information.
    Unit,
    Bool(bool),
    /// `42 : i32`. The value is kept wide enough for any supported width.
    Integer {
        value: i128,
        ty: Type,
    },
    /// `1.5 : f32`, kept as the f64 value (f16/f32 values are exact in f64).
    Float {
        value: f64,
        ty: Type,
    },
    String(String),
    Type(Type),
    Array(Vec<Attribute>),
    Dictionary(Vec<NamedAttribute>),
    /// `@a::@b`.
    SymbolRef(Vec<String>),
    /// `dense<[1, 2]> : vector<2xi32>`: the elements (splat if one) and the shaped type.
    Dense {
        elements: Vec<Attribute>,
        ty: Type,
    },
    /// `array<i32: 1, 2>`.
    DenseArray {
        element: Type,
        values: Vec<Attribute>,
    },
    /// A dialect attribute (`#spirv.vce<...>`, `#spirv.storage_class<Function>`), kept as
    /// its dialect-qualified name and the canonical text of its body (without the
    /// angle brackets), so it prints exactly as parsed.
    Dialect {
        name: String,
        body: Option<String>,
    },
}

impl Attribute {
    /// `#spirv.null`: the value of `OpConstantNull` (every member zero, false or null)
    /// as a `spirv.Constant` value, `spirv.Constant #spirv.null : !spirv.struct<...>`.
    /// MLIR 22 has no form for a null composite (its deserializer refuses them), and
    /// spelling the zeros out would not write back as the same instruction.
    pub fn null_constant() -> Attribute {
        Attribute::Dialect { name: NULL_CONSTANT.into(), body: None }
    }

    pub fn is_null_constant(&self) -> bool {
        matches!(self, Attribute::Dialect { name, body: None } if name == NULL_CONSTANT)
    }

    /// Replaces every type the attribute holds by `map`'s image of it.
    pub fn map_types(&mut self, map: &impl Fn(Type) -> Type) {
        match self {
            Attribute::Unit
            | Attribute::Bool(_)
            | Attribute::String(_)
            | Attribute::SymbolRef(_)
            | Attribute::Dialect { .. } => {}
            Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } | Attribute::Type(ty) => {
                *ty = map(*ty)
            }
            Attribute::Array(items) => items.iter_mut().for_each(|a| a.map_types(map)),
            Attribute::Dictionary(entries) => entries.iter_mut().for_each(|a| a.value.map_types(map)),
            Attribute::Dense { elements, ty } => {
                *ty = map(*ty);
                elements.iter_mut().for_each(|a| a.map_types(map));
            }
            Attribute::DenseArray { element, values } => {
                *element = map(*element);
                values.iter_mut().for_each(|a| a.map_types(map));
            }
        }
    }
}

/// `name = value`.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedAttribute {
    pub name: String,
    pub value: Attribute,
}

impl NamedAttribute {
    pub fn new(name: impl Into<String>, value: Attribute) -> Self {
        NamedAttribute { name: name.into(), value }
    }
}

/// Finds an attribute by name in a list.
pub fn find<'a>(attrs: &'a [NamedAttribute], name: &str) -> Option<&'a Attribute> {
    attrs.iter().find(|a| a.name == name).map(|a| &a.value)
}

/// The counts of a dense `i32` array attribute (`operandSegmentSizes`,
/// `case_operand_segments`); `None` if it is absent, not such an array, or holds a
/// negative count.
pub fn dense_counts(a: Option<&Attribute>) -> Option<Vec<usize>> {
    match a? {
        Attribute::DenseArray { values, .. } => values
            .iter()
            .map(|v| match v {
                Attribute::Integer { value, .. } => usize::try_from(*value).ok(),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// Whether `OpConstantNull` may have type `ty`: a scalar, vector, pointer or queue-like
/// opaque type, or a composite (matrix, sized array, struct, cooperative matrix,
/// tensor) of such types — never a runtime array, an image, a sampler or a function.
pub fn null_constant_allowed(types: &TypeStore, ty: Type) -> bool {
    let mut pending = vec![ty];
    let mut seen = spirvkit_grammar::fxhash::FxHashSet::default();
    while let Some(ty) = pending.pop() {
        if !seen.insert(ty) {
            continue;
        }
        match types.kind(ty) {
            TypeKind::Integer { .. } | TypeKind::Float(_) | TypeKind::Pointer { .. } => {}
            TypeKind::Vector { element, .. }
            | TypeKind::Array { element, .. }
            | TypeKind::CooperativeMatrix { element, .. } => pending.push(*element),
            TypeKind::Matrix { column, .. } => pending.push(*column),
            TypeKind::LiteralStruct(body) => pending.extend(body.members.iter().map(|m| m.ty)),
            TypeKind::IdentifiedStruct { name } => match types.struct_body(name) {
                Some(body) => pending.extend(body.members.iter().map(|m| m.ty)),
                None => return false,
            },
            TypeKind::Opaque(text) => {
                let name = text.split('<').next().unwrap_or("");
                let allowed = matches!(
                    name,
                    "spirv.arm.tensor"
                        | "spirv.Event"
                        | "spirv.DeviceEvent"
                        | "spirv.ReserveId"
                        | "spirv.Queue"
                        | "spirv.UntypedPointerKHR"
                );
                if !allowed {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}
