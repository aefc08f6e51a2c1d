//! Memory layout classes as dxc lowers them (`-fcgl`): bit-fields packed into their
//! integer member and accessed by bit operations, `packoffset`/`register(c#)` block
//! placement, fxc's cbuffer matrix sizes, the 16-bit storage capabilities by interface,
//! and `sizeof`. Each case checks the disassembly and that the binary is valid (when a
//! current spirv-val is at hand).

mod common;

use common::{assert_valid_binary, disassemble, run};

fn compile(args: &[&str], source: &str) -> String {
    let mut all = vec!["-spirv", "-fcgl"];
    all.extend_from_slice(args);
    let text = disassemble(&all, source);
    assert_valid_binary(&all, source, &["--target-env", "vulkan1.0", "--before-hlsl-legalization"]);
    text
}

fn has(text: &str, line: &str) -> bool {
    text.lines().any(|l| l.trim() == line)
}

#[test]
fn bit_fields_of_one_type_share_a_member_while_their_bits_fit() {
    let source = "struct S { uint a : 30; uint b : 2; uint c : 1; int d : 3; uint e; };
        RWStructuredBuffer<S> buf;
        [numthreads(1, 1, 1)] void main() { buf[0].b = 3; }";
    let text = compile(&["-T", "cs_6_0", "-E", "main"], source);
    // a and b fill one uint; c starts the next; d is signed, so a member of its own.
    assert!(has(&text, "%S = OpTypeStruct %uint %uint %int %uint"), "{text}");
    assert!(has(&text, "OpMemberDecorate %S 3 Offset 12"), "{text}");
    assert!(has(&text, "OpDecorate %_runtimearr_S ArrayStride 16"), "{text}");
    assert!(has(&text, "OpMemberName %S 1 \"c\""), "{text}");
    assert!(text.contains("OpBitFieldInsert %uint"), "{text}");
}

#[test]
fn bit_fields_are_read_and_written_with_dxc_bit_operations() {
    let source = "struct S { uint a : 3; uint b : 5; int c : 4; };
        struct L { uint64_t x : 40; uint64_t y : 20; };
        RWStructuredBuffer<uint> o;
        [numthreads(1, 1, 1)] void main() {
            S s; s.b = 7; s.c = -2; o[0] = s.b + s.c;
            L l; l.y = 5; o[1] = (uint)l.y;
        }";
    let text = compile(&["-T", "cs_6_2", "-E", "main"], source);
    assert!(text.contains("OpBitFieldInsert %uint") && text.contains("%uint_3 %uint_5"), "{text}");
    assert!(text.contains("OpBitFieldUExtract %uint") && text.contains("OpBitFieldSExtract %int"), "{text}");
    // 64-bit members go through masks and shifts: y is bits 40..60.
    assert!(text.contains("OpShiftLeftLogical %ulong") && text.contains("%uint_40"), "{text}");
    assert!(text.contains("OpShiftRightLogical %ulong") && text.contains("%uint_44"), "{text}");
    assert!(text.contains("OpBitwiseOr %ulong"), "{text}");
}

#[test]
fn bit_field_widths_are_checked() {
    let out = run(
        &["-spirv", "-T", "cs_6_0", "-E", "main", "-"],
        "struct S { uint a : 33; };
        [numthreads(1, 1, 1)] void main() { S s; s.a = 1; }",
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("width of bit-field 'a' (33 bits) exceeds width of its type (32 bits)"),
        "{stderr}"
    );
}

#[test]
fn packoffset_and_register_c_place_block_members() {
    let source = "cbuffer B { float4 a : packoffset(c2); float b : packoffset(c3.z); float c; }
        float x; float y : register(c4); float z : register(c1);
        float4 main() : SV_Target { return a + b + c + x + y + z; }";
    let text = compile(&["-T", "ps_6_0", "-E", "main"], source);
    for line in [
        "OpMemberDecorate %type_B 0 Offset 32",
        "OpMemberDecorate %type_B 1 Offset 56",
        "OpMemberDecorate %type_B 2 Offset 60",
        // register(c#) members first in register order, then the rest after them.
        "OpMemberDecorate %type__Globals 0 Offset 68",
        "OpMemberDecorate %type__Globals 1 Offset 64",
        "OpMemberDecorate %type__Globals 2 Offset 16",
    ] {
        assert!(has(&text, line), "{line}\n{text}");
    }
}

#[test]
fn overlapping_packoffsets_are_rejected_in_dxc_words() {
    let out = run(
        &["-spirv", "-T", "ps_6_0", "-E", "main", "-"],
        "cbuffer B { float4 a : packoffset(c1); float b : packoffset(c1.y); }
        float4 main() : SV_Target { return a + b; }",
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("packoffset caused overlap with previous members"), "{stderr}");
}

#[test]
fn fxc_cbuffer_matrices_leave_their_last_register_to_the_next_member() {
    let source = "cbuffer B { float d; float2x3 m; float e; }
        float4 main() : SV_Target { return d + e + m[0].x; }";
    let text = compile(&["-T", "ps_6_0", "-E", "main", "-fvk-use-dx-layout"], source);
    assert!(has(&text, "OpMemberDecorate %type_B 2 Offset 56"), "{text}");
    // float1xN is N registers in fxc's packing: refused until dxc's clone exists.
    let out = run(
        &["-spirv", "-T", "ps_6_0", "-E", "main", "-fvk-use-dx-layout", "-"],
        "cbuffer B { float1x2 m; } float4 main() : SV_Target { return m._m00; }",
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not supported yet"));
}

#[test]
fn sixteen_bit_storage_capabilities_follow_the_interface() {
    let args = ["-T", "ps_6_2", "-E", "main", "-enable-16bit-types"];
    let text = compile(&args, "cbuffer B { half a; } float4 main() : SV_Target { return a; }");
    assert!(has(&text, "OpCapability UniformAndStorageBuffer16BitAccess"), "{text}");
    assert!(has(&text, "OpExtension \"SPV_KHR_16bit_storage\""), "{text}");
    let text = compile(&args, "StructuredBuffer<half> b; float4 main() : SV_Target { return b[0]; }");
    assert!(has(&text, "OpCapability StorageBuffer16BitAccess"), "{text}");
    let text = compile(&args, "float4 main(half h : H) : SV_Target { return h; }");
    assert!(has(&text, "OpCapability StorageInputOutput16"), "{text}");
    // Core from SPIR-V 1.3: no extension.
    let mut v11 = args.to_vec();
    v11.push("-fspv-target-env=vulkan1.1");
    let text = disassemble(
        &[&["-spirv", "-fcgl"], &v11[..]].concat(),
        "cbuffer B { half a; } float4 main() : SV_Target { return a; }",
    );
    assert!(!text.contains("SPV_KHR_16bit_storage"), "{text}");
}

#[test]
fn sizeof_uses_natural_alignment() {
    let source = "struct Foo { uint64_t a; int b; }; struct Bar { Foo f[3]; uint64_t c; };
        RWStructuredBuffer<uint> o;
        [numthreads(1, 1, 1)] void main() { o[0] = sizeof(Bar); o[1] = sizeof(Foo); }";
    let text = compile(&["-T", "cs_6_0", "-E", "main"], source);
    assert!(text.contains("%uint_56") && text.contains("%uint_16"), "{text}");
}
