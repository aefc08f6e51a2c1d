//! The intrinsic function and object method tables, as data.
//!
//! Each overload is one line in a small signature language, parsed once:
//!
//! ```text
//! RET NAME(PARAM, PARAM, ...)
//! ```
//!
//! A type is either concrete (`float`, `uint2`, `void`, `RayDesc`, `SamplerState`) or a
//! pattern. `$<class><shape><slot>` is a generic parameter: `class` is the allowed
//! component types (`f` floating, `F` 32-bit float, `n` numeric, `a` any incl. bool,
//! `i` integer, `u` unsigned, `I` 32/64-bit integer (atomics), `b` bool, `d` double,
//! `h` 16-bit-capable float), `shape` is `s` scalar, `v` vector, `m` matrix, `x` any
//! of them, `y` scalar or vector, or a digit for a vector of that size; arguments of
//! the same `slot` (0-3) share one type, found as for a component-wise operator.
//! `$@N` takes any type as is. `$N` is slot N's type; `$N.scalar`, `$N.bool`,
//! `$N.uint`, `$N.int`, `$N.float`, `$N.double`, `$N.half`, `$N.int16`, `$N.uint16`
//! are derived from it. `$mul` and `$transpose` are the two shape rules of their own.
//!
//! Object methods add: `$E` (the element type, the first template argument), `$Es`
//! (its component type), `$E4` (four of them, for `Gather`), `$C` (sampling
//! coordinates, `float2` for 2D), `$Cm` (texel address and mip, `int3` for 2D), `$Ci`
//! (texel address, `int2`), `$Cu` (the same as `uint2`), `$O` (offset, `int2`), `$G`
//! (spatial coordinates without the array index: gradients, level of detail), `$T`
//! (the method's explicit template argument: `Load<T>`), `$R` (a node record type).
//! A parameter may be `out`, `inout` or `ref` (an atomic's destination) and end in
//! `?` (optional, trailing); `...` accepts any further arguments.

use super::convert::{common_scalar, common_shape, implicit_conversion, Cost};
use super::tree::ParamDirection;
use super::types::{builtin_numeric, Family, ObjectArg, ObjectKind, Scalar, Shape, Ty, TypeData, TypeTable};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Allowed component types of a generic parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Float,
    /// Floating types below 64 bits (`float_like`): a `double` converts to `float`.
    FloatLike,
    Float32,
    Numeric,
    Any,
    Int,
    UInt,
    AtomicInt,
    Bool,
    Double,
}

/// Allowed shapes of a generic parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeClass {
    Scalar,
    Vector,
    Matrix,
    Any,
    ScalarOrVector,
    Fixed(u8),
}

/// A type derived from a slot's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Derive {
    Same,
    Scalar,
    Component(Scalar),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    Concrete(&'static str),
    Generic {
        class: Class,
        shape: ShapeClass,
        slot: u8,
    },
    AnyType,
    Derived {
        slot: u8,
        derive: Derive,
    },
    Mul,
    Transpose,
    Element,
    ElementScalar,
    Element4,
    SampleCoord,
    TexelMip,
    Texel,
    TexelUnsigned,
    Offset,
    /// Spatial coordinates without the array index (gradients, level of detail).
    Gradient,
    TemplateArg,
    /// The object's type argument wrapped in another object (`GetThreadNodeOutputRecords`).
    Wrapped(ObjectKind),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub pattern: Pattern,
    pub direction: ParamDirection,
    /// An atomic's destination: an lvalue of exactly the class's types.
    pub by_ref: bool,
    pub optional: bool,
}

/// One overload of an intrinsic or method.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    pub name: &'static str,
    pub ret: Pattern,
    pub params: Vec<Param>,
    pub variadic: bool,
    /// Whether the overload needs (and uses) an explicit template argument.
    pub needs_template: bool,
}

/// Parses one signature line; `Err` explains what is wrong (a table bug).
pub fn parse_signature(line: &'static str) -> Result<Signature, String> {
    let open = line.find('(').ok_or("no '('")?;
    let close = line.rfind(')').ok_or("no ')'")?;
    let head = line[..open].trim();
    let (ret, name) = head.rsplit_once(' ').ok_or("no return type")?;
    let ret = parse_pattern(ret.trim())?;
    let mut params = Vec::new();
    let mut variadic = false;
    let inner = line[open + 1..close].trim();
    if !inner.is_empty() {
        for part in inner.split(',') {
            let mut text = part.trim();
            if text == "..." {
                variadic = true;
                continue;
            }
            let optional = text.ends_with('?');
            text = text.trim_end_matches('?');
            let (direction, by_ref, rest) = if let Some(r) = text.strip_prefix("out ") {
                (ParamDirection::Out, false, r)
            } else if let Some(r) = text.strip_prefix("inout ") {
                (ParamDirection::InOut, false, r)
            } else if let Some(r) = text.strip_prefix("ref ") {
                (ParamDirection::InOut, true, r)
            } else {
                (ParamDirection::In, false, text)
            };
            params.push(Param { pattern: parse_pattern(rest.trim())?, direction, by_ref, optional });
        }
    }
    let needs_template = matches!(ret, Pattern::TemplateArg)
        || params.iter().any(|p| matches!(p.pattern, Pattern::TemplateArg));
    Ok(Signature { name: name.trim(), ret, params, variadic, needs_template })
}

fn parse_pattern(text: &'static str) -> Result<Pattern, String> {
    let Some(rest) = text.strip_prefix('$') else {
        return Ok(Pattern::Concrete(text));
    };
    let special = match rest {
        "mul" => Some(Pattern::Mul),
        "transpose" => Some(Pattern::Transpose),
        "E" => Some(Pattern::Element),
        "Es" => Some(Pattern::ElementScalar),
        "E4" => Some(Pattern::Element4),
        "C" => Some(Pattern::SampleCoord),
        "Cm" => Some(Pattern::TexelMip),
        "Ci" => Some(Pattern::Texel),
        "Cu" => Some(Pattern::TexelUnsigned),
        "O" => Some(Pattern::Offset),
        "G" => Some(Pattern::Gradient),
        "T" => Some(Pattern::TemplateArg),
        "@" | "@0" | "@1" | "@2" | "@3" => Some(Pattern::AnyType),
        "ThreadRecords" => Some(Pattern::Wrapped(ObjectKind::ThreadNodeOutputRecords)),
        "GroupRecords" => Some(Pattern::Wrapped(ObjectKind::GroupNodeOutputRecords)),
        "NodeOutput" => Some(Pattern::Wrapped(ObjectKind::NodeOutput)),
        _ => None,
    };
    if let Some(p) = special {
        return Ok(p);
    }
    let bytes = rest.as_bytes();
    if let Some(&first) = bytes.first() {
        if first.is_ascii_digit() {
            let slot = first - b'0';
            let derive = match &rest[1..] {
                "" => Derive::Same,
                ".scalar" => Derive::Scalar,
                ".bool" => Derive::Component(Scalar::Bool),
                ".uint" => Derive::Component(Scalar::UInt),
                ".int" => Derive::Component(Scalar::Int),
                ".float" => Derive::Component(Scalar::Float),
                ".double" => Derive::Component(Scalar::Double),
                ".half" => Derive::Component(Scalar::Half),
                ".int16" => Derive::Component(Scalar::Int16),
                ".uint16" => Derive::Component(Scalar::UInt16),
                other => return Err(format!("unknown derivation `{other}`")),
            };
            return Ok(Pattern::Derived { slot, derive });
        }
    }
    if bytes.len() != 3 {
        return Err(format!("bad pattern `${rest}`"));
    }
    let class = match bytes[0] {
        b'f' => Class::Float,
        b'g' => Class::FloatLike,
        b'F' => Class::Float32,
        b'n' => Class::Numeric,
        b'a' => Class::Any,
        b'i' => Class::Int,
        b'u' => Class::UInt,
        b'I' => Class::AtomicInt,
        b'b' => Class::Bool,
        b'd' => Class::Double,
        c => return Err(format!("unknown class `{}`", c as char)),
    };
    let shape = match bytes[1] {
        b's' => ShapeClass::Scalar,
        b'v' => ShapeClass::Vector,
        b'm' => ShapeClass::Matrix,
        b'x' => ShapeClass::Any,
        b'y' => ShapeClass::ScalarOrVector,
        d @ b'1'..=b'4' => ShapeClass::Fixed(d - b'0'),
        c => return Err(format!("unknown shape `{}`", c as char)),
    };
    let slot = bytes[2].wrapping_sub(b'0');
    if slot > 3 {
        return Err("slot must be 0-3".into());
    }
    Ok(Pattern::Generic { class, shape, slot })
}

/// Every intrinsic overload. Names and signatures follow the HLSL intrinsic reference.
pub const INTRINSICS: &[&str] = &[
    "void abort()",
    "$0 abs($nx0)",
    "$0 acos($fx0)",
    "$0 asin($fx0)",
    "$0 atan($fx0)",
    "$0 atan2($fx0, $fx0)",
    "$0 cos($fx0)",
    "$0 cosh($fx0)",
    "$0 sin($fx0)",
    "$0 sinh($fx0)",
    "$0 tan($fx0)",
    "$0 tanh($fx0)",
    "void sincos($fx0, out $fx0, out $fx0)",
    "$0 exp($fx0)",
    "$0 exp2($fx0)",
    "$0 log($fx0)",
    "$0 log10($fx0)",
    "$0 log2($fx0)",
    "$0 pow($fx0, $fx0)",
    "$0 sqrt($fx0)",
    "$0 rsqrt($fx0)",
    "$0 rcp($fx0)",
    "$0 ceil($fx0)",
    "$0 floor($fx0)",
    "$0 round($fx0)",
    "$0 trunc($fx0)",
    "$0 frac($fx0)",
    "$0 saturate($fx0)",
    "$0 degrees($fx0)",
    "$0 radians($fx0)",
    "$0 fmod($fx0, $fx0)",
    "$0 frexp($fx0, out $fx0)",
    "$0 ldexp($fx0, $fx0)",
    "$0 modf($fx0, out $fx0)",
    "$0 fma($dx0, $dx0, $dx0)",
    "$0 mad($nx0, $nx0, $nx0)",
    "$0 lerp($fx0, $fx0, $fx0)",
    "$0 smoothstep($fx0, $fx0, $fx0)",
    "$0 step($fx0, $fx0)",
    "$0 clamp($nx0, $nx0, $nx0)",
    "$0 max($nx0, $nx0)",
    "$0 min($nx0, $nx0)",
    "$0.int sign($nx0)",
    "$0.bool isfinite($fx0)",
    "$0.bool isinf($fx0)",
    "$0.bool isnan($fx0)",
    "$0.bool isnormal($fx0)",
    "bool all($ax0)",
    "bool any($ax0)",
    "void clip($fx0)",
    "$0 ddx($gx0)",
    "$0 ddx_coarse($gx0)",
    "$0 ddx_fine($gx0)",
    "$0 ddy($gx0)",
    "$0 ddy_coarse($gx0)",
    "$0 ddy_fine($gx0)",
    "$0 fwidth($gx0)",
    "$0 cross($f30, $f30)",
    "$0.scalar determinant($fm0)",
    "$0.scalar distance($fy0, $fy0)",
    "$0.scalar length($fy0)",
    "$0.scalar dot($ny0, $ny0)",
    "$0 dst($f40, $f40)",
    "$0 faceforward($fy0, $fy0, $fy0)",
    "$0 normalize($fy0)",
    "$0 reflect($fy0, $fy0)",
    "$0 refract($fy0, $fy0, $fs1)",
    "float4 lit($fs0, $fs0, $fs0)",
    "$0.scalar noise($fy0)",
    "$mul mul($nx0, $nx1)",
    "$transpose transpose($am0)",
    "int4 D3DCOLORtoUBYTE4(float4)",
    "$0.uint f32tof16($Fy0)",
    "$0.float f16tof32($uy0)",
    "$0.uint countbits($iy0)",
    "$0.uint firstbithigh($iy0)",
    "$0.uint firstbitlow($iy0)",
    "$0 reversebits($iy0)",
    "uint4 msad4(uint, uint2, uint4)",
    "$0.float asfloat($ax0)",
    "$0.int asint($ax0)",
    "$0.uint asuint($ax0)",
    "void asuint($dx0, out $0.uint, out $0.uint)",
    "$0.double asdouble($uy0, $uy0)",
    "$0.half asfloat16($ax0)",
    "$0.int16 asint16($ax0)",
    "$0.uint16 asuint16($ax0)",
    "$0.bool and($ax0, $ax0)",
    "$0.bool or($ax0, $ax0)",
    "$1 select($ax0, $ax1, $ax1)",
    "void GroupMemoryBarrier()",
    "void GroupMemoryBarrierWithGroupSync()",
    "void DeviceMemoryBarrier()",
    "void DeviceMemoryBarrierWithGroupSync()",
    "void AllMemoryBarrier()",
    "void AllMemoryBarrierWithGroupSync()",
    "void Barrier(uint, uint)",
    "void Barrier($@0, uint)",
    "void InterlockedAdd(ref $Is0, $Is0, out $Is0?)",
    "void InterlockedAnd(ref $Is0, $Is0, out $Is0?)",
    "void InterlockedOr(ref $Is0, $Is0, out $Is0?)",
    "void InterlockedXor(ref $Is0, $Is0, out $Is0?)",
    "void InterlockedMax(ref $Is0, $Is0, out $Is0?)",
    "void InterlockedMin(ref $Is0, $Is0, out $Is0?)",
    "void InterlockedExchange(ref $Is0, $Is0, out $Is0)",
    "void InterlockedExchange(ref float, float, out float)",
    "void InterlockedCompareExchange(ref $Is0, $Is0, $Is0, out $Is0)",
    "void InterlockedCompareStore(ref $Is0, $Is0, $Is0)",
    "void InterlockedCompareExchangeFloatBitwise(ref float, float, float, out float)",
    "void InterlockedCompareStoreFloatBitwise(ref float, float, float)",
    "bool WaveIsFirstLane()",
    "uint WaveGetLaneIndex()",
    "uint WaveGetLaneCount()",
    "bool WaveActiveAnyTrue(bool)",
    "bool WaveActiveAllTrue(bool)",
    "uint4 WaveActiveBallot(bool)",
    "$0.bool WaveActiveAllEqual($ax0)",
    "$0 WaveActiveBitAnd($ix0)",
    "$0 WaveActiveBitOr($ix0)",
    "$0 WaveActiveBitXor($ix0)",
    "uint WaveActiveCountBits(bool)",
    "$0 WaveActiveMax($nx0)",
    "$0 WaveActiveMin($nx0)",
    "$0 WaveActiveProduct($nx0)",
    "$0 WaveActiveSum($nx0)",
    "$0 WavePrefixProduct($nx0)",
    "$0 WavePrefixSum($nx0)",
    "uint WavePrefixCountBits(bool)",
    "$0 WaveReadLaneAt($ax0, uint)",
    "$0 WaveReadLaneFirst($ax0)",
    "uint4 WaveMatch($ax0)",
    "$0 WaveMultiPrefixSum($nx0, uint4)",
    "$0 WaveMultiPrefixProduct($nx0, uint4)",
    "$0 WaveMultiPrefixBitAnd($ix0, uint4)",
    "$0 WaveMultiPrefixBitOr($ix0, uint4)",
    "$0 WaveMultiPrefixBitXor($ix0, uint4)",
    "uint WaveMultiPrefixCountBits(bool, uint4)",
    "$0 QuadReadAcrossDiagonal($ax0)",
    "$0 QuadReadAcrossX($ax0)",
    "$0 QuadReadAcrossY($ax0)",
    "$0 QuadReadLaneAt($ax0, uint)",
    "bool QuadAny(bool)",
    "bool QuadAll(bool)",
    "bool IsHelperLane()",
    "void ProcessIsolineTessFactors(float, float, out float, out float)",
    "void ProcessQuadTessFactorsAvg(float4, float, out float4, out float2, out float2)",
    "void ProcessQuadTessFactorsMax(float4, float, out float4, out float2, out float2)",
    "void ProcessQuadTessFactorsMin(float4, float, out float4, out float2, out float2)",
    "void Process2DQuadTessFactorsAvg(float4, float2, out float4, out float2, out float2)",
    "void Process2DQuadTessFactorsMax(float4, float2, out float4, out float2, out float2)",
    "void Process2DQuadTessFactorsMin(float4, float2, out float4, out float2, out float2)",
    "void ProcessTriTessFactorsAvg(float3, float, out float3, out float)",
    "void ProcessTriTessFactorsMax(float3, float, out float3, out float)",
    "void ProcessTriTessFactorsMin(float3, float, out float3, out float)",
    "$0 EvaluateAttributeAtCentroid($ax0)",
    "$0 EvaluateAttributeCentroid($ax0)",
    "$0 EvaluateAttributeAtSample($ax0, uint)",
    "$0 EvaluateAttributeSnapped($ax0, int2)",
    "$0 GetAttributeAtVertex($ax0, uint)",
    "uint GetRenderTargetSampleCount()",
    "float2 GetRenderTargetSamplePosition(int)",
    "bool CheckAccessFullyMapped(uint)",
    "$0 NonUniformResourceIndex($ax0)",
    "void printf(string, ...)",
    "void errorf(string, ...)",
    "void TraceRay(RaytracingAccelerationStructure, uint, uint, uint, uint, uint, RayDesc, inout $@0)",
    "bool ReportHit(float, uint, $@0)",
    "void CallShader(uint, inout $@0)",
    "void IgnoreHit()",
    "void AcceptHitAndEndSearch()",
    "uint3 DispatchRaysIndex()",
    "uint3 DispatchRaysDimensions()",
    "float3 WorldRayOrigin()",
    "float3 WorldRayDirection()",
    "float3 ObjectRayOrigin()",
    "float3 ObjectRayDirection()",
    "float RayTMin()",
    "float RayTCurrent()",
    "uint RayFlags()",
    "uint InstanceIndex()",
    "uint InstanceID()",
    "uint GeometryIndex()",
    "uint PrimitiveIndex()",
    "uint HitKind()",
    "float3x4 ObjectToWorld3x4()",
    "float4x3 ObjectToWorld4x3()",
    "float3x4 ObjectToWorld()",
    "float3x4 WorldToObject3x4()",
    "float4x3 WorldToObject4x3()",
    "float3x4 WorldToObject()",
    "float3 HitTriangleVertexPosition(uint)",
    "void SetMeshOutputCounts(uint, uint)",
    "void DispatchMesh(uint, uint, uint, $@0)",
    "uint pack_u8($i40)",
    "uint pack_s8($i40)",
    "uint pack_clamp_u8($i40)",
    "uint pack_clamp_s8($i40)",
    "int16_t4 unpack_s8s16(uint)",
    "uint16_t4 unpack_u8u16(uint)",
    "int4 unpack_s8s32(uint)",
    "uint4 unpack_u8u32(uint)",
    "uint dot4add_u8packed(uint, uint, uint)",
    "int dot4add_i8packed(uint, uint, int)",
    "float dot2add(half2, half2, float)",
    "uint GetRemainingRecursionLevels()",
    "uint GetGroupWaveIndex()",
    "uint GetGroupWaveCount()",
    // Lowered to `NonSemantic.DebugBreak` for Vulkan.
    "void DebugBreak()",
];

/// Intrinsics in the `vk` namespace (`vk::RawBufferLoad`, ...).
pub const VK_INTRINSICS: &[&str] = &[
    "$T RawBufferLoad(uint64_t, uint?)",
    "uint RawBufferLoad(uint64_t, uint?)",
    "void RawBufferStore(uint64_t, $T, uint?)",
    "void RawBufferStore(uint64_t, uint, uint?)",
    "uint64_t ReadClock(uint)",
    "void ext_execution_mode(uint, ...)",
    "void ext_execution_mode_id(uint, ...)",
    "$T static_pointer_cast($@0)",
    "$T reinterpret_pointer_cast($@0)",
];

/// Object methods: `FAMILIES | SIGNATURE`. Families: `T` textures, `TM` multisampled
/// textures, `TC` cube textures (no offsets), `W` RW textures, `B` typed buffers, `WB`
/// RW typed buffers, `S` structured, `WS` RW structured, `A` append, `C` consume, `BA`
/// byte address, `WBA` RW byte address, `G` textures with Gather (2D and cube), `ST`
/// streams, `RQ` ray queries, `FB` feedback textures, `SI` subpass inputs, `SIMS`
/// multisampled ones, `NI` node input records, `NO` node outputs, `NR` output records.
pub const METHODS: &[&str] = &[
    "T | $E Sample(SamplerState, $C, $O?, float?, out uint?)",
    "TC | $E Sample(SamplerState, $C, float?, out uint?)",
    "T | $E SampleBias(SamplerState, $C, float, $O?, float?, out uint?)",
    "TC | $E SampleBias(SamplerState, $C, float, float?, out uint?)",
    "T | $Es SampleCmp(SamplerComparisonState, $C, float, $O?, float?, out uint?)",
    "TC | $Es SampleCmp(SamplerComparisonState, $C, float, float?, out uint?)",
    "T | $Es SampleCmpLevelZero(SamplerComparisonState, $C, float, $O?, out uint?)",
    "TC | $Es SampleCmpLevelZero(SamplerComparisonState, $C, float, out uint?)",
    "T | $Es SampleCmpLevel(SamplerComparisonState, $C, float, float, $O?, out uint?)",
    "TC | $Es SampleCmpLevel(SamplerComparisonState, $C, float, float, out uint?)",
    "T | $Es SampleCmpBias(SamplerComparisonState, $C, float, float, $O?, float?, out uint?)",
    "TC | $Es SampleCmpBias(SamplerComparisonState, $C, float, float, float?, out uint?)",
    "T | $Es SampleCmpGrad(SamplerComparisonState, $C, float, $G, $G, $O?, float?, out uint?)",
    "TC | $Es SampleCmpGrad(SamplerComparisonState, $C, float, $G, $G, float?, out uint?)",
    "T | $E SampleGrad(SamplerState, $C, $G, $G, $O?, float?, out uint?)",
    "TC | $E SampleGrad(SamplerState, $C, $G, $G, float?, out uint?)",
    "T | $E SampleLevel(SamplerState, $C, float, $O?, out uint?)",
    "TC | $E SampleLevel(SamplerState, $C, float, out uint?)",
    "T TC | float CalculateLevelOfDetail(SamplerState, $G)",
    "T TC | float CalculateLevelOfDetail(SamplerComparisonState, $G)",
    "T TC | float CalculateLevelOfDetailUnclamped(SamplerState, $G)",
    "T TC | float CalculateLevelOfDetailUnclamped(SamplerComparisonState, $G)",
    "G | $E4 Gather(SamplerState, $C, $O?, out uint?)",
    "G | $E4 GatherRed(SamplerState, $C, $O?, out uint?)",
    "G | $E4 GatherGreen(SamplerState, $C, $O?, out uint?)",
    "G | $E4 GatherBlue(SamplerState, $C, $O?, out uint?)",
    "G | $E4 GatherAlpha(SamplerState, $C, $O?, out uint?)",
    "G | $E4 GatherRed(SamplerState, $C, $O, $O, $O, $O, out uint?)",
    "G | $E4 GatherGreen(SamplerState, $C, $O, $O, $O, $O, out uint?)",
    "G | $E4 GatherBlue(SamplerState, $C, $O, $O, $O, $O, out uint?)",
    "G | $E4 GatherAlpha(SamplerState, $C, $O, $O, $O, $O, out uint?)",
    "G | $E4 GatherCmp(SamplerComparisonState, $C, float, $O?, out uint?)",
    "G | $E4 GatherCmpRed(SamplerComparisonState, $C, float, $O?, out uint?)",
    "G | $E4 GatherCmpGreen(SamplerComparisonState, $C, float, $O?, out uint?)",
    "G | $E4 GatherCmpBlue(SamplerComparisonState, $C, float, $O?, out uint?)",
    "G | $E4 GatherCmpAlpha(SamplerComparisonState, $C, float, $O?, out uint?)",
    "G | $E4 GatherCmpRed(SamplerComparisonState, $C, float, $O, $O, $O, $O, out uint?)",
    "G | $E4 GatherCmpGreen(SamplerComparisonState, $C, float, $O, $O, $O, $O, out uint?)",
    "G | $E4 GatherCmpBlue(SamplerComparisonState, $C, float, $O, $O, $O, $O, out uint?)",
    "G | $E4 GatherCmpAlpha(SamplerComparisonState, $C, float, $O, $O, $O, $O, out uint?)",
    "GR | $E4 GatherRaw(SamplerState, $C, $O?, out uint?)",
    "T | $E Load($Cm, $O?, out uint?)",
    "TC | $E Load($Cm, out uint?)",
    "TM | $E Load($Ci, int, $O?, out uint?)",
    "TM | float2 GetSamplePosition(int)",
    "W | $E Load($Ci, out uint?)",
    "B WB | $E Load(int, out uint?)",
    "S WS | $E Load(int, out uint?)",
    "WS | uint IncrementCounter()",
    "WS | uint DecrementCounter()",
    "A | void Append($E)",
    "C | $E Consume()",
    "BA WBA | uint Load(uint, out uint?)",
    "BA WBA | uint2 Load2(uint, out uint?)",
    "BA WBA | uint3 Load3(uint, out uint?)",
    "BA WBA | uint4 Load4(uint, out uint?)",
    "BA WBA | $T Load(uint, out uint?)",
    "WBA | void Store(uint, uint)",
    "WBA | void Store2(uint, uint2)",
    "WBA | void Store3(uint, uint3)",
    "WBA | void Store4(uint, uint4)",
    "WBA | void Store(uint, $T)",
    "WBA | void Store(uint, $@0)",
    "WBA | void InterlockedAdd(uint, $Is0, out $Is0?)",
    "WBA | void InterlockedAnd(uint, $Is0, out $Is0?)",
    "WBA | void InterlockedOr(uint, $Is0, out $Is0?)",
    "WBA | void InterlockedXor(uint, $Is0, out $Is0?)",
    "WBA | void InterlockedMax(uint, $Is0, out $Is0?)",
    "WBA | void InterlockedMin(uint, $Is0, out $Is0?)",
    "WBA | void InterlockedExchange(uint, $Is0, out $Is0)",
    "WBA | void InterlockedCompareExchange(uint, $Is0, $Is0, out $Is0)",
    "WBA | void InterlockedCompareStore(uint, $Is0, $Is0)",
    "WBA | void InterlockedAdd64(uint, $Is0, out $Is0?)",
    "WBA | void InterlockedAnd64(uint, $Is0, out $Is0?)",
    "WBA | void InterlockedOr64(uint, $Is0, out $Is0?)",
    "WBA | void InterlockedXor64(uint, $Is0, out $Is0?)",
    "WBA | void InterlockedMax64(uint, $Is0, out $Is0?)",
    "WBA | void InterlockedMin64(uint, $Is0, out $Is0?)",
    "WBA | void InterlockedExchange64(uint, $Is0, out $Is0)",
    "WBA | void InterlockedCompareExchange64(uint, $Is0, $Is0, out $Is0)",
    "WBA | void InterlockedCompareStore64(uint, $Is0, $Is0)",
    "WBA | void InterlockedExchangeFloat(uint, float, out float)",
    "WBA | void InterlockedCompareExchangeFloatBitwise(uint, float, float, out float)",
    "WBA | void InterlockedCompareStoreFloatBitwise(uint, float, float)",
    "ST | void Append($E)",
    "ST | void RestartStrip()",
    "RQ | void TraceRayInline(RaytracingAccelerationStructure, uint, uint, RayDesc)",
    "RQ | bool Proceed()",
    "RQ | void Abort()",
    "RQ | void CommitNonOpaqueTriangleHit()",
    "RQ | void CommitProceduralPrimitiveHit(float)",
    "RQ | uint CommittedStatus()",
    "RQ | uint CandidateType()",
    "RQ | bool CandidateProceduralPrimitiveNonOpaque()",
    "RQ | float2 CandidateTriangleBarycentrics()",
    "RQ | float2 CommittedTriangleBarycentrics()",
    "RQ | bool CandidateTriangleFrontFace()",
    "RQ | bool CommittedTriangleFrontFace()",
    "RQ | float CandidateTriangleRayT()",
    "RQ | float CommittedRayT()",
    "RQ | float3x4 CandidateObjectToWorld3x4()",
    "RQ | float4x3 CandidateObjectToWorld4x3()",
    "RQ | float3x4 CandidateWorldToObject3x4()",
    "RQ | float4x3 CandidateWorldToObject4x3()",
    "RQ | float3x4 CommittedObjectToWorld3x4()",
    "RQ | float4x3 CommittedObjectToWorld4x3()",
    "RQ | float3x4 CommittedWorldToObject3x4()",
    "RQ | float4x3 CommittedWorldToObject4x3()",
    "RQ | uint CandidateInstanceIndex()",
    "RQ | uint CandidateInstanceID()",
    "RQ | uint CandidateInstanceContributionToHitGroupIndex()",
    "RQ | uint CandidateGeometryIndex()",
    "RQ | uint CandidatePrimitiveIndex()",
    "RQ | uint CommittedInstanceIndex()",
    "RQ | uint CommittedInstanceID()",
    "RQ | uint CommittedInstanceContributionToHitGroupIndex()",
    "RQ | uint CommittedGeometryIndex()",
    "RQ | uint CommittedPrimitiveIndex()",
    "RQ | float3 CandidateObjectRayOrigin()",
    "RQ | float3 CandidateObjectRayDirection()",
    "RQ | float3 CommittedObjectRayOrigin()",
    "RQ | float3 CommittedObjectRayDirection()",
    "RQ | uint RayFlags()",
    "RQ | float RayTMin()",
    "RQ | float3 WorldRayOrigin()",
    "RQ | float3 WorldRayDirection()",
    "FB | void WriteSamplerFeedback(Texture2D, SamplerState, $C, float?)",
    "FB | void WriteSamplerFeedback(Texture2DArray, SamplerState, $C, float?)",
    "FB | void WriteSamplerFeedbackBias(Texture2D, SamplerState, $C, float, float?)",
    "FB | void WriteSamplerFeedbackBias(Texture2DArray, SamplerState, $C, float, float?)",
    "FB | void WriteSamplerFeedbackGrad(Texture2D, SamplerState, $C, $G, $G, float?)",
    "FB | void WriteSamplerFeedbackGrad(Texture2DArray, SamplerState, $C, $G, $G, float?)",
    "FB | void WriteSamplerFeedbackLevel(Texture2D, SamplerState, $C, float)",
    "FB | void WriteSamplerFeedbackLevel(Texture2DArray, SamplerState, $C, float)",
    "SI | $E SubpassLoad()",
    "SIMS | $E SubpassLoad(int)",
    "NI | $E Get(uint?)",
    "NI | uint Count()",
    "NI | bool FinishedCrossGroupSharing()",
    "NO | $ThreadRecords GetThreadNodeOutputRecords(uint)",
    "NO | $GroupRecords GetGroupNodeOutputRecords(uint)",
    "NO | bool IsValid()",
    "NO | void ThreadIncrementOutputCount(uint)",
    "NO | void GroupIncrementOutputCount(uint)",
    "NR | $E Get(uint?)",
    "NR | void OutputComplete()",
    "NR | uint Count()",
    "BP | $E Get()",
];

/// A parsed method entry: the families it applies to and its signature.
#[derive(Debug)]
pub struct MethodEntry {
    pub families: Vec<&'static str>,
    pub sig: Signature,
}

pub struct Tables {
    pub intrinsics: Vec<Signature>,
    pub by_name: HashMap<&'static str, Vec<u16>>,
    pub vk: Vec<Signature>,
    pub vk_by_name: HashMap<&'static str, Vec<u16>>,
    pub methods: Vec<MethodEntry>,
    pub methods_by_name: HashMap<&'static str, Vec<u16>>,
}

/// The parsed tables (parsed once).
pub fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let parse_all = |lines: &[&'static str]| -> (Vec<Signature>, HashMap<&'static str, Vec<u16>>) {
            let mut sigs = Vec::new();
            let mut by_name: HashMap<&'static str, Vec<u16>> = HashMap::new();
            for line in lines {
                // The table is tested to parse; a bad line is skipped, never a panic.
                if let Ok(sig) = parse_signature(line) {
                    by_name.entry(sig.name).or_default().push(sigs.len() as u16);
                    sigs.push(sig);
                }
            }
            (sigs, by_name)
        };
        let (intrinsics, by_name) = parse_all(INTRINSICS);
        let (vk, vk_by_name) = parse_all(VK_INTRINSICS);
        let mut methods = Vec::new();
        let mut methods_by_name: HashMap<&'static str, Vec<u16>> = HashMap::new();
        for line in METHODS {
            let Some((families, sig)) = line.split_once('|') else { continue };
            if let Ok(sig) = parse_signature(sig.trim()) {
                methods_by_name.entry(sig.name).or_default().push(methods.len() as u16);
                methods.push(MethodEntry { families: families.split_whitespace().collect(), sig });
            }
        }
        Tables { intrinsics, by_name, vk, vk_by_name, methods, methods_by_name }
    })
}

/// The method-table family codes that apply to an object kind.
pub fn family_codes(kind: ObjectKind) -> Vec<&'static str> {
    let mut codes = Vec::new();
    let shape = kind.shape();
    match kind.family() {
        Family::Texture => {
            let s = shape.unwrap_or(super::types::TextureShape {
                dims: 2,
                array: false,
                cube: false,
                multisampled: false,
            });
            if s.multisampled {
                codes.push("TM");
            } else if s.cube {
                codes.push("TC");
                codes.push("G");
            } else {
                codes.push("T");
                if s.dims == 2 {
                    codes.push("G");
                }
            }
        }
        Family::RWTexture => {
            codes.push("W");
            if shape.is_some_and(|s| s.dims == 2 && !s.multisampled) {
                codes.push("GR");
            }
        }
        Family::Buffer => codes.push("B"),
        Family::RWBuffer => codes.push("WB"),
        Family::StructuredBuffer => codes.push("S"),
        Family::RWStructuredBuffer => codes.push("WS"),
        Family::AppendBuffer => codes.push("A"),
        Family::ConsumeBuffer => codes.push("C"),
        Family::ByteAddressBuffer => codes.push("BA"),
        Family::RWByteAddressBuffer => codes.push("WBA"),
        Family::Stream => codes.push("ST"),
        Family::RayQuery => codes.push("RQ"),
        Family::FeedbackTexture => codes.push("FB"),
        Family::SubpassInput => codes.push(if kind == ObjectKind::SubpassInputMS { "SIMS" } else { "SI" }),
        Family::Other if kind == ObjectKind::BufferPointer => codes.push("BP"),
        Family::Node => codes.push(match kind {
            ObjectKind::NodeOutput | ObjectKind::EmptyNodeOutput => "NO",
            ObjectKind::GroupNodeOutputRecords | ObjectKind::ThreadNodeOutputRecords => "NR",
            _ => "NI",
        }),
        _ => {}
    }
    codes
}

/// `GetDimensions` overloads of an object kind, generated from its shape: an
/// optional mip level in, the sizes out (`uint` or `float`), then levels or samples.
pub fn get_dimensions_signatures(kind: ObjectKind) -> Vec<Signature> {
    let mut lines: Vec<String> = Vec::new();
    match kind.family() {
        Family::Buffer | Family::RWBuffer | Family::ByteAddressBuffer | Family::RWByteAddressBuffer => {
            lines.push("void GetDimensions(out uint)".into());
        }
        Family::StructuredBuffer
        | Family::RWStructuredBuffer
        | Family::AppendBuffer
        | Family::ConsumeBuffer => lines.push("void GetDimensions(out uint, out uint)".into()),
        Family::Texture | Family::RWTexture | Family::FeedbackTexture => {
            let Some(s) = kind.shape() else { return Vec::new() };
            let sizes = usize::from(if s.dims == 3 { 3 } else { s.dims }) + usize::from(s.array);
            let mip = !s.multisampled && kind.family() != Family::RWTexture;
            for ty in ["uint", "float"] {
                let outs: Vec<String> = (0..sizes).map(|_| format!("out {ty}")).collect();
                if s.multisampled {
                    lines.push(format!("void GetDimensions({}, out {ty})", outs.join(", ")));
                    lines.push(format!("void GetDimensions({})", outs.join(", ")));
                } else {
                    lines.push(format!("void GetDimensions({})", outs.join(", ")));
                    if mip {
                        lines.push(format!("void GetDimensions(uint, {}, out {ty})", outs.join(", ")));
                    }
                }
            }
        }
        _ => {}
    }
    lines.into_iter().filter_map(|l| parse_signature(Box::leak(l.into_boxed_str())).ok()).collect()
}

/// Per-kind `GetDimensions` overloads, generated once.
pub fn get_dimensions(kind: ObjectKind) -> &'static [Signature] {
    static CACHE: OnceLock<HashMap<ObjectKind, Vec<Signature>>> = OnceLock::new();
    let cache =
        CACHE.get_or_init(|| ObjectKind::ALL.iter().map(|&k| (k, get_dimensions_signatures(k))).collect());
    cache.get(&kind).map_or(&[], Vec::as_slice)
}

/// An argument as the matcher sees it.
#[derive(Clone, Copy, Debug)]
pub struct Arg {
    pub ty: Ty,
    pub lvalue: bool,
}

/// What the matcher needs from the context.
pub struct Env<'a> {
    /// The receiver of a method call.
    pub object: Option<Ty>,
    /// An explicit template argument (`Load<T>`, `vk::RawBufferLoad<T>`).
    pub template_arg: Option<Ty>,
    /// Named built-in structs (`RayDesc`) and other types by name.
    pub named: &'a dyn Fn(&str) -> Option<Ty>,
}

/// A successful match: the parameter types to convert the arguments to, the
/// return type and the cost.
#[derive(Clone, Debug)]
pub struct Match {
    pub params: Vec<(Ty, ParamDirection)>,
    pub ret: Ty,
    pub cost: Cost,
    /// Some argument is a vector or matrix cut down (dxc warns).
    pub truncates: bool,
}

/// Matches arguments against one signature.
pub fn match_signature(types: &mut TypeTable, sig: &Signature, args: &[Arg], env: &Env) -> Option<Match> {
    let required = sig.params.iter().filter(|p| !p.optional).count();
    if args.len() < required || (args.len() > sig.params.len() && !sig.variadic) {
        return None;
    }
    if sig.needs_template != env.template_arg.is_some() {
        return None;
    }
    // Unify each generic slot over its arguments.
    let mut slots: [Option<Ty>; 4] = [None; 4];
    let mut shared_component: Option<Scalar> = None;
    let is_mul = sig.ret == Pattern::Mul;
    for slot in 0..4u8 {
        let members: Vec<(usize, Class, ShapeClass, bool)> = sig
            .params
            .iter()
            .enumerate()
            .take(args.len())
            .filter_map(|(i, p)| match p.pattern {
                Pattern::Generic { class, shape, slot: s } if s == slot => {
                    Some((i, class, shape, p.by_ref || p.direction != ParamDirection::In))
                }
                _ => None,
            })
            .collect();
        let Some(&(_, class, shape_class, _)) = members.first() else { continue };
        // An atomic's destination decides the slot; `out` arguments only receive it.
        let deciding: Vec<usize> = match members.iter().find(|m| sig.params[m.0].by_ref) {
            Some(m) => vec![m.0],
            None => {
                let ins: Vec<usize> = members.iter().filter(|m| !m.3).map(|m| m.0).collect();
                if ins.is_empty() {
                    members.iter().map(|m| m.0).collect()
                } else {
                    ins
                }
            }
        };
        let mut comp: Option<Scalar> = None;
        let mut shape: Option<Shape> = None;
        for &i in &deciding {
            let ty = args[i].ty;
            if types.is_error(ty) {
                continue;
            }
            let (Some(c), Some(s)) = (types.component(ty), types.shape(ty)) else { return None };
            comp = Some(comp.map_or(c, |p| common_scalar(p, c)));
            shape = Some(match shape {
                None => s,
                Some(p) => common_shape(p, s)?.0,
            });
        }
        let comp = comp.unwrap_or(Scalar::Float);
        let shape = shape.unwrap_or(Shape::Scalar);
        let writes = members.iter().any(|m| m.3 && sig.params[m.0].by_ref);
        let comp = fit_class(class, comp, writes)?;
        let shape = fit_shape(shape_class, shape)?;
        if is_mul {
            shared_component = Some(shared_component.map_or(comp, |p| common_scalar(p, comp)));
        }
        slots[usize::from(slot)] = Some(types.with_shape(comp, shape));
    }
    if let Some(c) = shared_component {
        for s in slots.iter_mut().flatten() {
            *s = types.with_component(*s, c);
        }
    }
    if sig.name == "select" {
        // The condition and the values share one shape (dxc's `$match` of the
        // three): `select(bool2, int, int)` selects an int2, component by component.
        if let (Some(cond), Some(value)) = (slots[0], slots[1]) {
            let parts =
                (types.shape(cond), types.shape(value), types.component(cond), types.component(value));
            if let (Some(cs), Some(vs), Some(cc), Some(vc)) = parts {
                if let Some((shape, _)) = common_shape(cs, vs) {
                    slots[0] = Some(types.with_shape(cc, shape));
                    slots[1] = Some(types.with_shape(vc, shape));
                }
            }
        }
    }
    let mut params = Vec::with_capacity(args.len());
    let mut cost: Cost = 0;
    let mut truncates = false;
    for (i, arg) in args.iter().enumerate() {
        let Some(param) = sig.params.get(i) else {
            // Variadic: taken as is.
            params.push((arg.ty, ParamDirection::In));
            continue;
        };
        let pty = match &param.pattern {
            Pattern::AnyType => arg.ty,
            Pattern::Generic { slot, .. } => slots[usize::from(*slot)]?,
            p => resolve(types, p, &slots, env)?,
        };
        if param.by_ref {
            // An atomic's destination must be storage of exactly that type.
            if !types.is_error(arg.ty) && types.component(arg.ty) != types.component(pty) {
                return None;
            }
        }
        let conv = if param.direction == ParamDirection::Out {
            // `out` arguments convert back from the parameter type.
            implicit_conversion(types, pty, arg.ty).or_else(|| implicit_conversion(types, arg.ty, pty))?
        } else {
            implicit_conversion(types, arg.ty, pty)?
        };
        truncates |= conv.truncates;
        cost += conv.cost;
        params.push((pty, param.direction));
    }
    let ret = match &sig.ret {
        Pattern::Mul => mul_result(types, slots[0]?, slots[1]?)?,
        Pattern::Transpose => match types.get(slots[0]?).clone() {
            TypeData::Matrix { elem, rows, cols, .. } => types.matrix(elem, cols, rows),
            _ => return None,
        },
        p => resolve(types, p, &slots, env)?,
    };
    Some(Match { params, ret, cost, truncates })
}

/// Fits a unified component type to a class; `None` when it cannot.
fn fit_class(class: Class, comp: Scalar, writes: bool) -> Option<Scalar> {
    Some(match class {
        Class::Any => comp.concrete(),
        Class::Float => {
            if comp.is_float() {
                comp.concrete()
            } else {
                Scalar::Float
            }
        }
        Class::FloatLike => {
            if comp.is_float() && comp.concrete() != Scalar::Double {
                comp.concrete()
            } else {
                Scalar::Float
            }
        }
        Class::Float32 => Scalar::Float,
        Class::Numeric => {
            if comp == Scalar::Bool {
                Scalar::Int
            } else {
                comp.concrete()
            }
        }
        Class::Int => {
            if comp.is_integer() {
                comp.concrete()
            } else if writes {
                return None;
            } else {
                Scalar::Int
            }
        }
        Class::UInt => {
            if comp.is_integer() && !comp.is_signed() {
                comp
            } else if comp.is_float() && writes {
                return None;
            } else {
                Scalar::UInt
            }
        }
        Class::AtomicInt => match comp {
            Scalar::Int | Scalar::UInt | Scalar::Int64 | Scalar::UInt64 => comp,
            Scalar::LiteralInt => Scalar::Int,
            _ => return None,
        },
        Class::Bool => Scalar::Bool,
        Class::Double => Scalar::Double,
    })
}

fn fit_shape(class: ShapeClass, shape: Shape) -> Option<Shape> {
    Some(match (class, shape) {
        (ShapeClass::Any, s) => s,
        (ShapeClass::Scalar, _) => Shape::Scalar,
        (ShapeClass::Vector, Shape::Scalar) => Shape::Vector(1),
        (ShapeClass::Vector, Shape::Vector(n)) => Shape::Vector(n),
        (ShapeClass::Vector, Shape::Matrix(..)) => return None,
        (ShapeClass::Matrix, Shape::Matrix(r, c)) => Shape::Matrix(r, c),
        (ShapeClass::Matrix, _) => return None,
        (ShapeClass::ScalarOrVector, Shape::Matrix(..)) => return None,
        (ShapeClass::ScalarOrVector, s) => s,
        (ShapeClass::Fixed(n), Shape::Scalar) => Shape::Vector(n),
        (ShapeClass::Fixed(n), Shape::Vector(m)) if m >= n => Shape::Vector(n),
        (ShapeClass::Fixed(_), _) => return None,
    })
}

/// The result type of `mul(a, b)` for every scalar/vector/matrix combination.
fn mul_result(types: &mut TypeTable, a: Ty, b: Ty) -> Option<Ty> {
    let comp = types.component(a)?;
    let shape = match (types.shape(a)?, types.shape(b)?) {
        (Shape::Scalar, s) | (s, Shape::Scalar) => s,
        (Shape::Vector(_), Shape::Vector(_)) => Shape::Scalar,
        (Shape::Vector(_), Shape::Matrix(_, c)) => Shape::Vector(c),
        (Shape::Matrix(r, _), Shape::Vector(_)) => Shape::Vector(r),
        (Shape::Matrix(r, _), Shape::Matrix(_, c)) => Shape::Matrix(r, c),
    };
    Some(types.with_shape(comp, shape))
}

/// A non-generic pattern's type in this call.
fn resolve(types: &mut TypeTable, p: &Pattern, slots: &[Option<Ty>; 4], env: &Env) -> Option<Ty> {
    let shape = env.object.and_then(|o| match types.get(o) {
        TypeData::Object { kind, .. } => kind.shape(),
        _ => None,
    });
    let element = || env.object.and_then(|o| types.object_element(o));
    Some(match p {
        Pattern::Concrete(name) => concrete(types, name, env)?,
        Pattern::Derived { slot, derive } => {
            let base = slots[usize::from(*slot)]?;
            match derive {
                Derive::Same => base,
                Derive::Scalar => {
                    let c = types.component(base)?;
                    types.scalar(c)
                }
                Derive::Component(s) => types.with_component(base, *s),
            }
        }
        Pattern::Element => element().unwrap_or(TypeTable::ERROR),
        Pattern::ElementScalar => {
            let e = element().unwrap_or(TypeTable::FLOAT);
            let c = types.component(e).unwrap_or(Scalar::Float);
            types.scalar(c)
        }
        Pattern::Element4 => {
            let e = element().unwrap_or(TypeTable::FLOAT);
            let c = types.component(e).unwrap_or(Scalar::Float);
            types.vector(c, 4)
        }
        Pattern::SampleCoord => coord(types, Scalar::Float, shape?.sample_coords()),
        Pattern::TexelMip => coord(types, Scalar::Int, shape?.texel_coords() + 1),
        Pattern::Texel => coord(types, Scalar::Int, shape?.texel_coords()),
        Pattern::TexelUnsigned => coord(types, Scalar::UInt, shape?.texel_coords()),
        Pattern::Offset => coord(types, Scalar::Int, shape?.offset_coords()),
        Pattern::Gradient => coord(types, Scalar::Float, shape?.offset_coords()),
        Pattern::TemplateArg => env.template_arg?,
        Pattern::Wrapped(kind) => {
            let e = element().unwrap_or(TypeTable::ERROR);
            types.object(*kind, vec![ObjectArg::Type(e)])
        }
        Pattern::AnyType | Pattern::Generic { .. } | Pattern::Mul | Pattern::Transpose => return None,
    })
}

fn coord(types: &mut TypeTable, s: Scalar, n: u8) -> Ty {
    if n <= 1 {
        types.scalar(s)
    } else {
        types.vector(s, n.min(4))
    }
}

fn concrete(types: &mut TypeTable, name: &str, env: &Env) -> Option<Ty> {
    match name {
        "void" => return Some(TypeTable::VOID),
        "string" => return Some(TypeTable::STRING),
        _ => {}
    }
    if let Some((s, shape)) = builtin_numeric(name) {
        return Some(types.with_shape(s, shape));
    }
    if let Some(kind) = ObjectKind::from_name(name) {
        return Some(types.object(kind, Vec::new()));
    }
    (env.named)(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env<'static> {
        Env { object: None, template_arg: None, named: &|_| None }
    }

    fn call(types: &mut TypeTable, name: &str, args: &[Ty]) -> Option<Match> {
        let t = tables();
        let args: Vec<Arg> = args.iter().map(|&ty| Arg { ty, lvalue: true }).collect();
        let mut best: Option<Match> = None;
        for &i in t.by_name.get(name)? {
            if let Some(m) = match_signature(types, &t.intrinsics[usize::from(i)], &args, &env()) {
                if best.as_ref().is_none_or(|b| m.cost < b.cost) {
                    best = Some(m);
                }
            }
        }
        best
    }

    #[test]
    fn every_table_line_parses() {
        for line in INTRINSICS.iter().chain(VK_INTRINSICS) {
            parse_signature(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        }
        for line in METHODS {
            let (_, sig) = line.split_once('|').expect("families");
            parse_signature(sig.trim()).unwrap_or_else(|e| panic!("{line}: {e}"));
        }
        assert_eq!(tables().intrinsics.len(), INTRINSICS.len());
        assert_eq!(tables().methods.len(), METHODS.len());
    }

    #[test]
    fn generic_slots_unify_like_operators() {
        let mut t = TypeTable::new();
        let f3 = t.vector(Scalar::Float, 3);
        let m = call(&mut t, "max", &[f3, TypeTable::LITERAL_INT]).unwrap();
        assert_eq!(m.ret, f3);
        let m = call(&mut t, "sqrt", &[TypeTable::INT]).unwrap();
        assert_eq!(m.ret, TypeTable::FLOAT);
        let m = call(&mut t, "dot", &[f3, f3]).unwrap();
        assert_eq!(m.ret, TypeTable::FLOAT);
        let b3 = t.vector(Scalar::Bool, 3);
        assert_eq!(call(&mut t, "isnan", &[f3]).unwrap().ret, b3);
        assert_eq!(call(&mut t, "all", &[b3]).unwrap().ret, TypeTable::BOOL);
        let u3 = t.vector(Scalar::UInt, 3);
        assert_eq!(call(&mut t, "asuint", &[f3]).unwrap().ret, u3);
    }

    #[test]
    fn mul_and_transpose_shapes() {
        let mut t = TypeTable::new();
        let m34 = t.matrix(Scalar::Float, 3, 4);
        let v3 = t.vector(Scalar::Float, 3);
        let v4 = t.vector(Scalar::Float, 4);
        assert_eq!(call(&mut t, "mul", &[v3, m34]).unwrap().ret, v4);
        assert_eq!(call(&mut t, "mul", &[m34, v4]).unwrap().ret, v3);
        let m43 = t.matrix(Scalar::Float, 4, 3);
        let m33 = t.matrix(Scalar::Float, 3, 3);
        assert_eq!(call(&mut t, "mul", &[m34, m43]).unwrap().ret, m33);
        assert_eq!(call(&mut t, "mul", &[v3, v3]).unwrap().ret, TypeTable::FLOAT);
        assert_eq!(call(&mut t, "transpose", &[m34]).unwrap().ret, m43);
        let i4 = t.vector(Scalar::Int, 4);
        assert_eq!(call(&mut t, "mul", &[TypeTable::FLOAT, i4]).unwrap().ret, v4);
    }

    #[test]
    fn atomics_need_integer_destinations() {
        let mut t = TypeTable::new();
        assert!(call(&mut t, "InterlockedAdd", &[TypeTable::FLOAT, TypeTable::LITERAL_INT]).is_none());
        assert!(call(&mut t, "InterlockedAdd", &[TypeTable::UINT, TypeTable::LITERAL_INT]).is_some());
        assert!(call(&mut t, "InterlockedAdd", &[TypeTable::INT, TypeTable::INT, TypeTable::INT]).is_some());
    }

    #[test]
    fn methods_use_the_texture_shape() {
        let mut t = TypeTable::new();
        let f4 = t.vector(Scalar::Float, 4);
        let tex = t.object(ObjectKind::Texture2DArray, vec![ObjectArg::Type(f4)]);
        let sampler = t.object(ObjectKind::SamplerState, Vec::new());
        let f3 = t.vector(Scalar::Float, 3);
        let env = Env { object: Some(tex), template_arg: None, named: &|_| None };
        let tables = tables();
        let sample = &tables.methods[usize::from(tables.methods_by_name["Sample"][0])].sig;
        let args = [Arg { ty: sampler, lvalue: true }, Arg { ty: f3, lvalue: false }];
        let m = match_signature(&mut t, sample, &args, &env).unwrap();
        assert_eq!(m.ret, f4);
        assert_eq!(get_dimensions(ObjectKind::Texture2D).len(), 4);
        assert_eq!(get_dimensions(ObjectKind::RWTexture3D).len(), 2);
    }
}
