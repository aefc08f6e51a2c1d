//! The built-in `vk/khr/cooperative_matrix.h`: dxc's API (layouts and extra memory
//! operands as template arguments, buffer, coherent and groupshared forms, `cast<T>()`)
//! checked through the binary, with the instruction choices asserted in HLSL itself.

mod common;

use common::run;

const ARGS: &[&str] = &["-T", "cs_6_2", "-E", "main", "-spirv", "-HV", "2021", "-enable-16bit-types"];

const SHADER: &str = r#"#include <vk/khr/cooperative_matrix.h>
RWStructuredBuffer<float> data;
StructuredBuffer<float> input;
globallycoherent RWStructuredBuffer<int> coherent;
groupshared float shared_data[64];
[numthreads(64, 1, 1)] void main() {
  using FloatMatA = vk::khr::CooperativeMatrixA<float, vk::ScopeSubgroup, 16, 4>;
  typedef vk::khr::CooperativeMatrixA<int, vk::ScopeSubgroup, 16, 4> IntMat;
  FloatMatA a = FloatMatA::Load<vk::MemoryAccessNontemporalMask, vk::CooperativeMatrixLayoutRowMajorKHR>(data, 0, 16);
  FloatMatA b = FloatMatA::Load<vk::CooperativeMatrixLayoutColumnMajorKHR>(input, 4, 16);
  FloatMatA c = FloatMatA::Load<vk::MemoryAccessMaskNone, vk::CooperativeMatrixLayoutColumnMajorKHR>(
      vk::GetGroupSharedAddress(shared_data[0]), 8);
  IntMat i = (a + b).cast<int>();
  vk::khr::CooperativeMatrixA<half, vk::ScopeSubgroup, 16, 4> h = c.cast<half>();
  vk::khr::CooperativeMatrixA<uint, vk::ScopeSubgroup, 16, 4> u = i.cast<uint>();
  i.CoherentStore<vk::MemoryAccessNontemporalMask, vk::CooperativeMatrixLayoutRowMajorKHR>(coherent, 0, 16);
  (i / i).negate().Store<vk::CooperativeMatrixLayoutRowMajorKHR>(coherent, 64, 8);
  a.Store<vk::MemoryAccessNontemporalMask, vk::CooperativeMatrixLayoutRowMajorKHR>(
      vk::GetGroupSharedAddress(shared_data[0]), 8);
  bool is_signed = IntMat::hasSignedIntegerComponentType;
}
static_assert(vk::khr::detail::Conversion<float, int>::opcode == /* OpConvertFToS */ 110, "");
static_assert(vk::khr::detail::Conversion<float, uint>::opcode == /* OpConvertFToU */ 109, "");
static_assert(vk::khr::detail::Conversion<int, float>::opcode == /* OpConvertSToF */ 111, "");
static_assert(vk::khr::detail::Conversion<uint, half>::opcode == /* OpConvertUToF */ 112, "");
static_assert(vk::khr::detail::Conversion<float, half>::opcode == /* OpFConvert */ 115, "");
static_assert(vk::khr::detail::Conversion<int, uint>::opcode == /* OpBitcast */ 124, "");
static_assert(vk::khr::detail::Conversion<int16_t, int>::opcode == /* OpSConvert */ 114, "");
static_assert(vk::khr::detail::Conversion<uint16_t, int64_t>::opcode == /* OpUConvert */ 113, "");
static_assert(vk::khr::detail::Conversion<float, float>::opcode == /* OpCopyObject */ 83, "");
static_assert(vk::khr::detail::Opcodes<uint>::div == /* OpUDiv */ 134, "");
static_assert(vk::khr::detail::Opcodes<int>::div == /* OpSDiv */ 135, "");
static_assert(vk::khr::detail::Opcodes<half>::add == /* OpFAdd */ 129, "");
static_assert(vk::khr::detail::Opcodes<int64_t>::negate == /* OpSNegate */ 126, "");
"#;

#[test]
fn cooperative_matrix_api_of_dxc_is_accepted_and_typed() {
    let mut args = ARGS.to_vec();
    args.extend(["-fsyntax-only", "-"]);
    let out = run(&args, SHADER);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut args = ARGS.to_vec();
    args.extend(["-ast-dump", "-"]);
    let dump = String::from_utf8_lossy(&run(&args, SHADER).stdout).to_string();
    // `cast<int>()` of a float matrix gives the int matrix of the same shape and use.
    assert!(
        dump.lines().any(|l| l.contains("call Function")
            && l.contains("'cast' '() -> CooperativeMatrix<int, 3, 16, 4, 0>'")),
        "{dump}"
    );
}

#[test]
fn cooperative_matrix_neighbouring_forms_are_rejected() {
    let bad = [
        // The layout cannot be deduced.
        "FloatMatA m = FloatMatA::Load(data, 0, 16);",
        // A type where the memory operands go.
        "FloatMatA m = FloatMatA::Load<float, vk::CooperativeMatrixLayoutRowMajorKHR>(data, 0, 16);",
        // The result of a cast has the new component type.
        "FloatMatA m = FloatMatA::Splat(1).cast<int>();",
    ];
    for line in bad {
        let source = format!(
            "#include <vk/khr/cooperative_matrix.h>\nRWStructuredBuffer<float> data;\n\
             [numthreads(64, 1, 1)] void main() {{\n\
             using FloatMatA = vk::khr::CooperativeMatrixA<float, vk::ScopeSubgroup, 16, 4>;\n{line}\n}}\n"
        );
        let mut args = ARGS.to_vec();
        args.extend(["-fsyntax-only", "-"]);
        let out = run(&args, &source);
        assert_eq!(out.status.code(), Some(1), "accepted: {line}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("<stdin>:5:"), "{line}: {stderr}");
    }
}
