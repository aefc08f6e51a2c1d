//! Integer operands of mixed signedness (`OpIAdd %uint %int %uint`), which SPIR-V
//! allows and the dialect's same-type constraints do not: deserialized through
//! `spirv.Bitcast`s to IR that verifies, and serialized back to the same words.

mod common;

use spirvkit_binary::{assemble, words_to_bytes, AsmOptions, Endian, TargetEnv};
use spirvkit_ir::text::printer::PrintOptions;
use spirvkit_translate::{deserialize, serialize, DeserializeOptions, Ir, SerializeOptions};

const MIXED: &str = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
    OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
    %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%bool = OpTypeBool\n\
    %int = OpTypeInt 32 1\n%uint = OpTypeInt 32 0\n%v2int = OpTypeVector %int 2\n\
    %v2uint = OpTypeVector %uint 2\n%v2bool = OpTypeVector %bool 2\n\
    %int_3 = OpConstant %int 3\n%uint_5 = OpConstant %uint 5\n\
    %vi = OpConstantComposite %v2int %int_3 %int_3\n%vu = OpConstantComposite %v2uint %uint_5 %uint_5\n\
    %pu = OpTypePointer Function %uint\n\
    %main = OpFunction %void None %fn\n%entry = OpLabel\n%var = OpVariable %pu Function\n\
    %sum = OpIAdd %uint %int_3 %uint_5\n%diff = OpISub %int %sum %int_3\n\
    %eq = OpIEqual %bool %int_3 %uint_5\n%lt = OpSLessThan %bool %uint_5 %int_3\n\
    %and = OpBitwiseAnd %uint %diff %uint_5\n%vsum = OpIAdd %v2uint %vi %vu\n\
    %veq = OpINotEqual %v2bool %vu %vi\n%own = OpBitcast %uint %diff\nOpStore %var %own\n\
    %asuint = OpBitcast %uint %diff\n%kept = OpIAdd %uint %asuint %uint_5\nOpStore %var %kept\n\
    OpStore %var %and\nOpReturn\nOpFunctionEnd\n";

#[test]
fn mixed_signedness_deserializes_to_verifying_ir_and_round_trips() {
    let options = AsmOptions { target_env: TargetEnv::parse("spv1.0").unwrap(), ..AsmOptions::default() };
    let words = assemble(MIXED, &options).expect("assembles");
    let bytes = words_to_bytes(&words, Endian::Little);
    let mut ir = Ir::new();
    let module = deserialize(&bytes, &mut ir, &DeserializeOptions::default()).expect("deserializes");
    let text = spirvkit_ir::text::printer::print_op(&ir, module, PrintOptions::default());
    let diagnostics = spirvkit_ir::verify::verify(&ir, module, &text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}\n{text}");
    // One bitcast per mixed operand, and the module's own two OpBitcasts.
    assert_eq!(text.matches("spirv.Bitcast").count(), 9, "{text}");
    let out = write(&ir, module);
    // Ids are numbered anew (as MLIR does), the instructions are the original ones:
    // the only OpBitcasts are the module's own (one feeding an OpIAdd).
    assert_eq!(opcodes(&out), opcodes(&words), "{text}");
    assert_eq!(opcodes(&out).iter().filter(|&&op| op == 124).count(), 2);
    common::validate(&words_to_bytes(&out, Endian::Little), "spv1.0", "mixed signedness").expect("validates");
    // And from then on the same words.
    let mut again = Ir::new();
    let bytes = words_to_bytes(&out, Endian::Little);
    let module = deserialize(&bytes, &mut again, &DeserializeOptions::default()).expect("deserializes");
    assert_eq!(write(&again, module), out);
}

/// Spec constant operations of mixed signedness, one per kind of same-type group
/// (result and operands, operands only, unary), nested, over `OpSpecConstant`s of both
/// signednesses.
const SPEC_MIXED: &str = "    OpCapability Shader\n\
    OpMemoryModel Logical GLSL450\n\
    OpEntryPoint GLCompute %main \"main\"\n\
    OpExecutionMode %main LocalSize 1 1 1\n\
    OpDecorate %si SpecId 0\n\
    OpDecorate %su SpecId 1\n\
    %void = OpTypeVoid\n\
    %fn = OpTypeFunction %void\n\
    %bool = OpTypeBool\n\
    %int = OpTypeInt 32 1\n\
    %uint = OpTypeInt 32 0\n\
    %uint_0 = OpConstant %uint 0\n\
    %uint_1 = OpConstant %uint 1\n\
    %int_2 = OpConstant %int 2\n\
    %si = OpSpecConstant %int 5\n\
    %su = OpSpecConstant %uint 7\n\
    %add = OpSpecConstantOp %uint IAdd %si %uint_0\n\
    %sub = OpSpecConstantOp %int ISub %su %si\n\
    %mul = OpSpecConstantOp %uint IMul %sub %su\n\
    %div = OpSpecConstantOp %int SDiv %su %int_2\n\
    %udiv = OpSpecConstantOp %uint UDiv %si %uint_1\n\
    %rem = OpSpecConstantOp %int SRem %si %su\n\
    %and = OpSpecConstantOp %uint BitwiseAnd %si %su\n\
    %xor = OpSpecConstantOp %int BitwiseXor %su %int_2\n\
    %not = OpSpecConstantOp %uint Not %si\n\
    %neg = OpSpecConstantOp %int SNegate %su\n\
    %eq = OpSpecConstantOp %bool IEqual %si %su\n\
    %lt = OpSpecConstantOp %bool ULessThan %su %si\n\
    %pu = OpTypePointer Function %uint\n\
    %pi = OpTypePointer Function %int\n\
    %main = OpFunction %void None %fn\n\
    %entry = OpLabel\n\
    %u = OpVariable %pu Function\n\
    %i = OpVariable %pi Function\n\
    OpStore %u %add\n\
    OpStore %u %mul\n\
    OpStore %i %div\n\
    OpStore %u %udiv\n\
    OpStore %i %rem\n\
    OpStore %u %and\n\
    OpStore %i %xor\n\
    OpStore %u %not\n\
    OpStore %i %neg\n\
    %pick = OpSelect %uint %eq %uint_0 %uint_1\n\
    OpStore %u %pick\n\
    %pick2 = OpSelect %uint %lt %uint_0 %uint_1\n\
    OpStore %u %pick2\n\
    OpReturn\n\
    OpFunctionEnd\n";

#[test]
fn mixed_signedness_in_spec_constant_operations_round_trips() {
    let options = AsmOptions { target_env: TargetEnv::parse("spv1.0").unwrap(), ..AsmOptions::default() };
    let words = assemble(SPEC_MIXED, &options).expect("assembles");
    let bytes = words_to_bytes(&words, Endian::Little);
    let mut ir = Ir::new();
    let module = deserialize(&bytes, &mut ir, &DeserializeOptions::default()).expect("deserializes");
    let text = spirvkit_ir::text::printer::print_op(&ir, module, PrintOptions::default());
    let diagnostics = spirvkit_ir::verify::verify(&ir, module, &text);
    assert!(diagnostics.is_empty(), "{diagnostics:?}\n{text}");
    // The bridges are spec constant operations themselves (an enclosed op's operands
    // must be constants), one per mixed operand.
    assert_eq!(text.matches("wraps \"spirv.Bitcast\"").count(), 12, "{text}");
    // The text reads back to the same module.
    let (reparsed, top) = spirvkit_ir::parse(&text, "t.mlir").expect("parses");
    let again = spirvkit_ir::text::printer::print_op(&reparsed, top, PrintOptions::default());
    // (inside the `module` the parser wraps it in)
    let lines = |t: &str| {
        t.lines()
            .map(str::trim)
            .filter(|l| !matches!(*l, "" | "module {" | "}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(lines(&again), lines(&text));
    let out = write(&ir, module);
    // No OpSpecConstantOp Bitcast is written: the same operations, with their operands.
    assert_eq!(spec_operations(&out), spec_operations(&words), "{text}");
    common::validate(&words_to_bytes(&out, Endian::Little), "spv1.0", "spec mixed signedness")
        .expect("validates");
    let mut again = Ir::new();
    let bytes = words_to_bytes(&out, Endian::Little);
    let module = deserialize(&bytes, &mut again, &DeserializeOptions::default()).expect("deserializes");
    assert_eq!(write(&again, module), out);
}

/// The inner opcodes of the module's `OpSpecConstantOp`s, sorted (the reader
/// materializes them at their uses, so their order may change).
fn spec_operations(words: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        if first & 0xffff == 52 {
            out.extend(words.get(at + 3).copied());
        }
        at += ((first >> 16) as usize).max(1);
    }
    out.sort_unstable();
    out
}

fn write(ir: &Ir, module: spirvkit_translate::OpId) -> Vec<u32> {
    serialize(ir, module, &SerializeOptions { check_requirements: false, ..SerializeOptions::default() })
        .expect("serializes")
}

/// The opcodes of the function section's instructions, in order (the module level
/// is reordered and named on the way, as in MLIR).
fn opcodes(words: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        if first & 0xffff == 54 || !out.is_empty() {
            out.push(first & 0xffff);
        }
        at += ((first >> 16) as usize).max(1);
    }
    out
}
