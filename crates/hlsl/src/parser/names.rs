//! Which names are types: the built-in scalar/vector/matrix spellings, the object
//! and resource types (many of them templates), and the `vk::` ones.

/// What a name denotes, as far as parsing needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    /// A type that takes no template arguments.
    Type,
    /// A type that may take template arguments (`vector`, `Texture2D`, a user template).
    TypeTemplate,
    /// A function template (`template<class T> T f()`, `vk::RawBufferLoad`).
    FunctionTemplate,
    /// A variable, function or enumerator: shadows a type of the same name.
    Value,
    Namespace,
}

const SCALARS: &[&str] = &[
    "bool",
    "int",
    "uint",
    "dword",
    "half",
    "float",
    "double",
    "min16float",
    "min10float",
    "min16int",
    "min12int",
    "min16uint",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "float16_t",
    "float32_t",
    "float64_t",
    "uint8_t4_packed",
    "int8_t4_packed",
];

/// Object types that take template arguments (most also have a default).
const TEMPLATES: &[&str] = &[
    "vector",
    "matrix",
    "Buffer",
    "RWBuffer",
    "StructuredBuffer",
    "RWStructuredBuffer",
    "AppendStructuredBuffer",
    "ConsumeStructuredBuffer",
    "Texture1D",
    "Texture1DArray",
    "Texture2D",
    "Texture2DArray",
    "Texture2DMS",
    "Texture2DMSArray",
    "Texture3D",
    "TextureCube",
    "TextureCubeArray",
    "RWTexture1D",
    "RWTexture1DArray",
    "RWTexture2D",
    "RWTexture2DArray",
    "RWTexture2DMS",
    "RWTexture2DMSArray",
    "RWTexture3D",
    "RasterizerOrderedBuffer",
    "RasterizerOrderedStructuredBuffer",
    "RasterizerOrderedTexture1D",
    "RasterizerOrderedTexture1DArray",
    "RasterizerOrderedTexture2D",
    "RasterizerOrderedTexture2DArray",
    "RasterizerOrderedTexture3D",
    "FeedbackTexture2D",
    "FeedbackTexture2DArray",
    "ConstantBuffer",
    "TextureBuffer",
    "TriangleStream",
    "LineStream",
    "PointStream",
    "InputPatch",
    "OutputPatch",
    "RayQuery",
    "SubpassInput",
    "SubpassInputMS",
    "NodeOutput",
    "NodeOutputArray",
    "DispatchNodeInputRecord",
    "RWDispatchNodeInputRecord",
    "GroupNodeInputRecords",
    "RWGroupNodeInputRecords",
    "ThreadNodeInputRecord",
    "RWThreadNodeInputRecord",
    "GroupNodeOutputRecords",
    "ThreadNodeOutputRecords",
    "SpirvType",
    "SpirvOpaqueType",
    "BufferPointer",
    "integral_constant",
    "Literal",
    "SampledTexture1D",
    "SampledTexture1DArray",
    "SampledTexture2D",
    "SampledTexture2DArray",
    "SampledTexture2DMS",
    "SampledTexture2DMSArray",
    "SampledTexture3D",
    "SampledTextureCube",
    "SampledTextureCUBE",
    "SampledTextureCUBEArray",
    "SampledTextureCubeArray",
    "SampledBuffer",
    "ext_result_id",
    "ext_type",
];

/// Object types without template arguments.
const PLAIN_TYPES: &[&str] = &[
    "void",
    "auto",
    "string",
    "sampler",
    "sampler1D",
    "sampler2D",
    "sampler3D",
    "samplerCUBE",
    "SamplerState",
    "SamplerComparisonState",
    "texture",
    "Texture",
    "ByteAddressBuffer",
    "RWByteAddressBuffer",
    "RasterizerOrderedByteAddressBuffer",
    "RaytracingAccelerationStructure",
    "RayDesc",
    "BuiltInTriangleIntersectionAttributes",
    "SAMPLER_FEEDBACK_MIN_MIP",
    "SAMPLER_FEEDBACK_MIP_REGION_USED",
    "GlobalRootSignature",
    "LocalRootSignature",
    "StateObjectConfig",
    "SubobjectToExportsAssociation",
    "RaytracingShaderConfig",
    "RaytracingPipelineConfig",
    "RaytracingPipelineConfig1",
    "TriangleHitGroup",
    "ProceduralPrimitiveHitGroup",
    "EmptyNodeInput",
    "EmptyNodeOutput",
    "EmptyNodeOutputArray",
    "HitObject",
    "SAMPLER_FEEDBACK_MIN_MIP",
    "SAMPLER_FEEDBACK_MIP_REGION_USED",
    "AccelerationStructureNV",
];

const FUNCTION_TEMPLATES: &[&str] =
    &["RawBufferLoad", "RawBufferStore", "static_pointer_cast", "reinterpret_pointer_cast"];

/// The built-in meaning of a simple name, if it has one.
pub fn builtin_type_kind(name: &str) -> Option<NameKind> {
    if TEMPLATES.contains(&name) {
        return Some(NameKind::TypeTemplate);
    }
    if PLAIN_TYPES.contains(&name) {
        return Some(NameKind::Type);
    }
    if FUNCTION_TEMPLATES.contains(&name) {
        return Some(NameKind::FunctionTemplate);
    }
    if is_numeric_type(name) {
        return Some(NameKind::Type);
    }
    None
}

/// `float`, `float3`, `min16uint2x4`, ...
fn is_numeric_type(name: &str) -> bool {
    let base_end = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == 'x').len();
    // Scalars ending in digits (`int16_t`, `min16float`) are matched whole first.
    if SCALARS.contains(&name) {
        return true;
    }
    let (base, suffix) = name.split_at(base_end);
    if !SCALARS.contains(&base) {
        return false;
    }
    let dims = |s: &str| s.len() == 1 && matches!(s.as_bytes()[0], b'1'..=b'4');
    match suffix.split_once('x') {
        None => dims(suffix),
        Some((rows, cols)) => dims(rows) && dims(cols),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_spellings() {
        for name in
            ["float", "float4", "int2x3", "min16uint4x4", "uint64_t", "float16_t2", "bool1x1", "dword"]
        {
            assert_eq!(builtin_type_kind(name), Some(NameKind::Type), "{name}");
        }
        for name in ["float5", "float4x", "int0", "floatx4", "foo", "uint64_t5", "float4x4x4"] {
            assert_eq!(builtin_type_kind(name), None, "{name}");
        }
        assert_eq!(builtin_type_kind("Texture2D"), Some(NameKind::TypeTemplate));
        assert_eq!(builtin_type_kind("RawBufferLoad"), Some(NameKind::FunctionTemplate));
    }
}
