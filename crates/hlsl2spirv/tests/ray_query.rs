//! Inline ray tracing (`RayQuery<flags>`, SPV_KHR_ray_query) outside the ray-tracing
//! stages: the acceleration structure and query types, `TraceRayInline`'s flags, the
//! getters' intersection operand, queries passed to functions, and validity at
//! vulkan1.2 (SPIR-V 1.5).

mod common;

use common::{assert_valid_binary, disassemble};

const RAY_DESC: &str = "RaytracingAccelerationStructure accel : register(t0);\n\
    RWStructuredBuffer<float> output : register(u0);\n\
    RayDesc make_ray() { RayDesc r; r.Origin = float3(0,0,0); r.Direction = float3(1,0,0);\n\
      r.TMin = 0.0f; r.TMax = 100.0f; return r; }\n";

fn compile(source: &str, profile: &str, extra: &[&str]) -> String {
    let mut args = vec!["-spirv", "-T", profile, "-E", "main", "-fspv-target-env=vulkan1.2"];
    args.extend_from_slice(extra);
    let text = disassemble(&args, source);
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.2"]);
    text
}

#[test]
fn compute_traces_inline_and_reads_candidate_and_committed() {
    let source = format!(
        "{RAY_DESC}[numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {{\n\
           RayQuery<RAY_FLAG_FORCE_OPAQUE> q;\n\
           q.TraceRayInline(accel, RAY_FLAG_CULL_BACK_FACING_TRIANGLES, 0xff, make_ray());\n\
           float sum = 0;\n\
           while (q.Proceed()) {{\n\
             if (q.CandidateType() == CANDIDATE_NON_OPAQUE_TRIANGLE) {{\n\
               sum += q.CandidateTriangleRayT() + q.CandidateTriangleBarycentrics().x;\n\
               float3x4 m = q.CandidateObjectToWorld3x4();\n\
               sum += m[0][3] + q.CandidateInstanceID() + q.CandidatePrimitiveIndex();\n\
               q.CommitNonOpaqueTriangleHit();\n\
             }} else if (q.CandidateProceduralPrimitiveNonOpaque()) {{\n\
               q.CommitProceduralPrimitiveHit(0.5);\n\
             }} else {{ q.Abort(); }}\n\
           }}\n\
           if (q.CommittedStatus() == COMMITTED_TRIANGLE_HIT) sum += q.CommittedRayT() + q.CommittedInstanceIndex();\n\
           sum += q.RayTMin() + q.WorldRayOrigin().x + q.RayFlags();\n\
           output[id.x] = sum;\n\
         }}\n"
    );
    let text = compile(&source, "cs_6_5", &["-fcgl"]);
    for wanted in [
        "OpCapability RayQueryKHR",
        "OpExtension \"SPV_KHR_ray_query\"",
        "%accelerationStructureNV = OpTypeAccelerationStructureKHR",
        "%rayQueryKHR = OpTypeRayQueryKHR",
        "%q = OpVariable %_ptr_Function_rayQueryKHR Function",
        // RAY_FLAG_FORCE_OPAQUE (1) | RAY_FLAG_CULL_BACK_FACING_TRIANGLES (16).
        "OpRayQueryInitializeKHR %q {{ACCEL}} %uint_17 %uint_255",
        "OpRayQueryProceedKHR %bool %q",
        "OpRayQueryGetIntersectionTypeKHR %uint %q %uint_0",
        "OpRayQueryGetIntersectionTypeKHR %uint %q %uint_1",
        "OpRayQueryGetIntersectionTKHR %float %q %uint_0",
        "OpRayQueryGetIntersectionTKHR %float %q %uint_1",
        "OpRayQueryGetIntersectionObjectToWorldKHR %mat4v3float %q %uint_0",
        "OpTranspose %mat3v4float",
        "OpRayQueryGetIntersectionInstanceCustomIndexKHR %uint %q %uint_0",
        "OpRayQueryGetIntersectionInstanceIdKHR %uint %q %uint_1",
        "OpRayQueryGetIntersectionCandidateAABBOpaqueKHR %bool %q",
        "OpRayQueryConfirmIntersectionKHR %q",
        "OpRayQueryGenerateIntersectionKHR %q %float_0_5",
        "OpRayQueryTerminateKHR %q",
        "OpRayQueryGetRayTMinKHR %float %q",
        "OpRayQueryGetWorldRayOriginKHR %v3float %q",
        "OpRayQueryGetRayFlagsKHR %uint %q",
    ] {
        if let Some(prefix) = wanted.strip_suffix(" {{ACCEL}} %uint_17 %uint_255") {
            let line =
                text.lines().find(|l| l.contains(prefix)).unwrap_or_else(|| panic!("no `{prefix}`:\n{text}"));
            assert!(line.contains("%uint_17 %uint_255"), "flags not or-ed: {line}");
            continue;
        }
        assert!(text.contains(wanted), "missing `{wanted}` in:\n{text}");
    }
    assert!(!text.contains("RayTracingKHR"), "ray queries need no ray-tracing pipeline:\n{text}");
}

#[test]
fn skipping_primitives_needs_primitive_culling() {
    let source = format!(
        "{RAY_DESC}[numthreads(1,1,1)] void main() {{\n\
           RayQuery<RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES> q;\n\
           q.TraceRayInline(accel, 0, 1, make_ray());\n\
           q.Proceed();\n\
           output[0] = q.CommittedStatus();\n\
         }}\n"
    );
    let text = compile(&source, "cs_6_5", &[]);
    assert!(text.contains("OpCapability RayTraversalPrimitiveCullingKHR"), "{text}");
    assert!(text.contains("%uint_512 %uint_1"), "{text}");
}

#[test]
fn a_query_argument_is_the_callers_query() {
    let source = format!(
        "{RAY_DESC}void init(RayQuery<0> query, RayDesc ray, uint flags) {{\n\
           query.TraceRayInline(accel, flags, 0xff, ray);\n\
         }}\n\
         float4 main(float4 p : POSITION, uint flags : FLAGS) : SV_Position {{\n\
           RayQuery<0> q;\n\
           RayQuery<0> same = RayQuery<0>();\n\
           init(q, make_ray(), flags);\n\
           q.Proceed();\n\
           return p * q.CommittedStatus();\n\
         }}\n"
    );
    let text = compile(&source, "vs_6_5", &["-fcgl"]);
    // The callee takes the query's pointer; no copy of the query is made.
    assert!(text.contains("%query = OpFunctionParameter %_ptr_Function_rayQueryKHR"), "{text}");
    assert!(!text.contains("%param_var_query"), "a query is not copied:\n{text}");
    assert!(!text.contains("OpStore %same"), "a default-constructed query is not stored:\n{text}");
    // Non-constant flags without template flags pass through unchanged.
    assert!(!text.contains("OpBitwiseOr"), "{text}");
    let optimized = compile(&source, "vs_6_5", &[]);
    assert!(optimized.contains("OpRayQueryInitializeKHR"), "{optimized}");
}

#[test]
fn ray_queries_need_their_extension_allowed() {
    let source = format!(
        "{RAY_DESC}[numthreads(1,1,1)] void main() {{\n\
           RayQuery<0> q;\n\
           q.TraceRayInline(accel, 0, 1, make_ray());\n\
           output[0] = q.Proceed();\n\
         }}\n"
    );
    let out = common::run(
        &[
            "-spirv",
            "-T",
            "cs_6_5",
            "-E",
            "main",
            "-fspv-target-env=vulkan1.2",
            "-fspv-extension=SPV_KHR_multiview",
            "-",
        ],
        &source,
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "SPIR-V extension 'SPV_KHR_ray_query' required for RayQueryKHR but not permitted to use"
        ),
        "{stderr}"
    );
}
