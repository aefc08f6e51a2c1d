//! Binary -> IR -> binary on hand-written modules holding what DXC writes and the
//! glslang/Slang corpus lacks (null composites, undefs of composites, spec constant
//! composites and operations, debug information, string decorations, ...).
//!
//! Each module is assembled with our assembler, validated, deserialized, printed,
//! parsed back from that text, serialized, and the result checked: equivalent to the
//! original (`spirvkit_binary::equiv`), valid, and the same binary as the in-process
//! round trip (the text loses nothing). Validation uses the current spirv-val
//! (`SPIRV_VAL`, or `<repo>/.venv/bin/spirv-val`, or `spirv-val` on PATH); without
//! one, that step is skipped with a message.

mod common;

use common::validate;
use spirvkit_binary::{
    assemble, disassemble, read, words_to_bytes, AsmOptions, DisOptions, Endian, TargetEnv,
};
use spirvkit_translate::driver::{run, Mode, TranslateOptions};
use spirvkit_translate::{deserialize, serialize, DeserializeOptions, Ir, SerializeOptions};

fn dis(bytes: &[u8]) -> String {
    let module = read(bytes).expect("reads");
    String::from_utf8(disassemble(&module, &DisOptions { header: false, ..DisOptions::default() })).unwrap()
}

/// What a round trip made: the IR text and the disassembly of the result.
struct RoundTrip {
    text: String,
    out: String,
}

/// Assembles `text` for `asm_env`, checks the original with spirv-val for `val_env`,
/// then the round trips described in the module documentation.
fn round_trip(name: &str, text: &str, asm_env: &str, val_env: &str) -> RoundTrip {
    let options = AsmOptions { target_env: TargetEnv::parse(asm_env).unwrap(), ..AsmOptions::default() };
    let words = assemble(text, &options).unwrap_or_else(|e| panic!("{name}: does not assemble: {e:?}"));
    let original = words_to_bytes(&words, Endian::Little);
    validate(&original, val_env, &format!("{name}-original"))
        .unwrap_or_else(|e| panic!("{name}: the test module is invalid: {e}"));

    // In process.
    let mut ir = Ir::new();
    let module = deserialize(&original, &mut ir, &DeserializeOptions::default())
        .unwrap_or_else(|e| panic!("{name}: deserialize: {e}"));
    let serialize_options = SerializeOptions::default();
    let words =
        serialize(&ir, module, &serialize_options).unwrap_or_else(|e| panic!("{name}: serialize: {e}"));
    let direct = words_to_bytes(&words, Endian::Little);

    // Through the text, as the CLI runs it.
    let to_text = TranslateOptions { mode: Mode::Deserialize, ..TranslateOptions::default() };
    let printed = run(&original, "in.spv", &to_text);
    assert!(printed.success, "{name}: --deserialize-spirv failed: {}", printed.diagnostics_text);
    assert!(
        printed.diagnostics_text.is_empty(),
        "{name}: the IR does not verify: {}",
        printed.diagnostics_text
    );
    let text = String::from_utf8(printed.output.into_bytes()).unwrap();
    let to_binary =
        TranslateOptions { mode: Mode::Serialize, no_implicit_module: true, ..TranslateOptions::default() };
    let written = run(text.as_bytes(), "in.mlir", &to_binary);
    assert!(written.success, "{name}: --serialize-spirv of\n{text}\nfailed: {}", written.diagnostics_text);
    let through_text = written.output.into_bytes();
    assert_eq!(dis(&direct), dis(&through_text), "{name}: the text lost something:\n{text}");

    let (a, b) = (read(&original).unwrap(), read(&direct).unwrap());
    if let Err(differences) = spirvkit_binary::equiv::check_equivalent(&a, &b) {
        let list: Vec<String> = differences.iter().map(|d| d.to_string()).collect();
        panic!("{name}: not equivalent:\n{}\nIR:\n{text}\nout:\n{}", list.join("\n"), dis(&direct));
    }
    validate(&direct, val_env, name)
        .unwrap_or_else(|e| panic!("{name}: invalid result: {e}\n{}", dis(&direct)));
    RoundTrip { text, out: dis(&direct) }
}

/// How many lines of `dis` contain `needle`.
fn count(dis: &str, needle: &str) -> usize {
    dis.lines().filter(|l| l.contains(needle)).count()
}

const COMPUTE_HEADER: &str = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
    OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n";

const COMMON_TYPES: &str = "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
    %float = OpTypeFloat 32\n%int = OpTypeInt 32 1\n%uint = OpTypeInt 32 0\n%bool = OpTypeBool\n\
    %v4float = OpTypeVector %float 4\n%v3float = OpTypeVector %float 3\n%v2int = OpTypeVector %int 2\n\
    %uint_4 = OpConstant %uint 4\n%int_0 = OpConstant %int 0\n%int_1 = OpConstant %int 1\n";

/// A compute shader whose module-level part is `globals` (after the common types)
/// and whose entry body is `body`.
fn compute(decorations: &str, globals: &str, body: &str) -> String {
    format!(
        "{COMPUTE_HEADER}{decorations}{COMMON_TYPES}{globals}\
         %main = OpFunction %void None %fn\n%entry = OpLabel\n{body}OpReturn\nOpFunctionEnd\n"
    )
}

// ---- OpConstantNull -------------------------------------------------------------------

#[test]
fn null_struct_initializes_private_and_function_variables() {
    let text = compute(
        "",
        "%S = OpTypeStruct %float %v4float %int\n%pS_private = OpTypePointer Private %S\n\
         %pS_function = OpTypePointer Function %S\n%null = OpConstantNull %S\n\
         %g = OpVariable %pS_private Private %null\n",
        "",
    )
    .replace(
        "%entry = OpLabel\n",
        "%entry = OpLabel\n%local = OpVariable %pS_function Function %null\n\
         %x = OpLoad %S %local\nOpStore %g %x\n",
    );
    let rt = round_trip("null-struct", &text, "vulkan1.0", "vulkan1.0");
    assert!(rt.text.contains("initializer_constant = #spirv.null"), "{}", rt.text);
    assert!(
        rt.text.contains("spirv.Constant #spirv.null : !spirv.struct<(f32, vector<4xf32>, si32)>"),
        "{}",
        rt.text
    );
    // One null, shared by both initializers, as in the original.
    assert_eq!(count(&rt.out, "OpConstantNull"), 1, "{}", rt.out);
    assert_eq!(count(&rt.out, "OpConstantComposite"), 0, "{}", rt.out);
}

#[test]
fn null_array_matrix_and_nested_composites() {
    let text = compute(
        "",
        "%arr = OpTypeArray %v4float %uint_4\n%mat = OpTypeMatrix %v4float 4\n\
         %Inner = OpTypeStruct %mat %v2int\n%arr_inner = OpTypeArray %Inner %uint_4\n\
         %Outer = OpTypeStruct %arr_inner %bool %arr\n\
         %p_arr = OpTypePointer Function %arr\n%p_mat = OpTypePointer Function %mat\n\
         %p_outer = OpTypePointer Private %Outer\n\
         %null_arr = OpConstantNull %arr\n%null_mat = OpConstantNull %mat\n%null_outer = OpConstantNull %Outer\n\
         %g = OpVariable %p_outer Private %null_outer\n",
        "%a = OpVariable %p_arr Function %null_arr\n%m = OpVariable %p_mat Function %null_mat\n",
    );
    let rt = round_trip("null-nested", &text, "vulkan1.0", "vulkan1.0");
    assert!(rt.text.contains("spirv.Constant #spirv.null : !spirv.matrix<4 x vector<4xf32>>"), "{}", rt.text);
    assert!(rt.text.contains("spirv.Constant #spirv.null : !spirv.array<4 x vector<4xf32>>"), "{}", rt.text);
    assert_eq!(count(&rt.out, "OpConstantNull"), 3, "{}", rt.out);
}

#[test]
fn null_composites_as_operands_and_constituents() {
    // As an operand (stored, extracted, selected), and as a constituent of a constant
    // composite (a struct whose member is a null array).
    let text = compute(
        "",
        "%arr = OpTypeArray %float %uint_4\n%S = OpTypeStruct %arr %int\n\
         %p_S = OpTypePointer Function %S\n%p_arr = OpTypePointer Function %arr\n\
         %null_arr = OpConstantNull %arr\n%null_S = OpConstantNull %S\n\
         %c = OpConstantComposite %S %null_arr %int_1\n%true = OpConstantTrue %bool\n",
        "%v = OpVariable %p_S Function\n%w = OpVariable %p_arr Function\nOpStore %v %c\n\
         %e = OpCompositeExtract %arr %null_S 0\nOpStore %w %e\n\
         %s = OpSelect %S %true %c %null_S\nOpStore %v %s\n\
         %ins = OpCompositeInsert %S %int_0 %null_S 1\nOpStore %v %ins\n",
    );
    let rt = round_trip("null-operands", &text, "spv1.4", "vulkan1.1spv1.4");
    assert!(rt.text.contains("spirv.Constant [#spirv.null, 1 : si32]"), "{}", rt.text);
    assert_eq!(count(&rt.out, "OpConstantNull"), 2, "{}", rt.out);
}

#[test]
fn null_vector_scalar_and_pointer() {
    // Scalars and vectors are MLIR's zero constants (mlir-translate reads them so);
    // they write back as zeros, which mean the same. A null pointer keeps its form.
    let text = compute(
        "",
        "%p_v4 = OpTypePointer Function %v4float\n%p_int = OpTypePointer Function %int\n\
         %nv = OpConstantNull %v4float\n%ni = OpConstantNull %int\n%nb = OpConstantNull %bool\n",
        "%a = OpVariable %p_v4 Function %nv\n%b = OpVariable %p_int Function %ni\n\
         %sel = OpSelect %int %nb %ni %int_1\nOpStore %b %sel\n",
    );
    let rt = round_trip("null-vector", &text, "vulkan1.0", "vulkan1.0");
    assert!(rt.text.contains("spirv.Constant dense<0.000000e+00> : vector<4xf32>"), "{}", rt.text);

    let pointers = "OpCapability Shader\nOpCapability VariablePointers\n\
        OpExtension \"SPV_KHR_variable_pointers\"\nOpMemoryModel Logical GLSL450\n\
        OpEntryPoint GLCompute %main \"main\" %wg\nOpExecutionMode %main LocalSize 1 1 1\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%int = OpTypeInt 32 1\n\
        %p_wg = OpTypePointer Workgroup %int\n%pp = OpTypePointer Function %p_wg\n\
        %wg = OpVariable %p_wg Workgroup\n%np = OpConstantNull %p_wg\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n%v = OpVariable %pp Function %np\n\
        OpStore %v %wg\nOpReturn\nOpFunctionEnd\n";
    let rt = round_trip("null-pointer", pointers, "spv1.4", "vulkan1.1spv1.4");
    assert!(rt.text.contains("spirv.Constant #spirv.null : !spirv.ptr<si32, Workgroup>"), "{}", rt.text);
    assert_eq!(count(&rt.out, "OpConstantNull"), 1, "{}", rt.out);
}

#[test]
fn nulls_of_distinct_types_stay_distinct() {
    // Two structs of the same members are distinct types; each null keeps its own.
    let text = compute(
        "OpName %A \"A\"\nOpName %B \"B\"\n",
        "%A = OpTypeStruct %float\n%B = OpTypeStruct %float\n%arr = OpTypeArray %float %uint_4\n\
         %pA = OpTypePointer Private %A\n%pB = OpTypePointer Private %B\n%parr = OpTypePointer Private %arr\n\
         %na = OpConstantNull %A\n%nb = OpConstantNull %B\n%narr = OpConstantNull %arr\n\
         %ga = OpVariable %pA Private %na\n%gb = OpVariable %pB Private %nb\n%garr = OpVariable %parr Private %narr\n",
        "",
    );
    let rt = round_trip("null-distinct", &text, "vulkan1.0", "vulkan1.0");
    assert_eq!(count(&rt.out, "OpConstantNull"), 3, "{}", rt.out);
}

// ---- Debug information ------------------------------------------------------------------

#[test]
fn shader_debug_info_with_forward_references_and_source_lines() {
    // What `dxc -spirv -fspv-debug=vulkan-with-source` writes: OpString/OpSource with
    // the text, OpModuleProcessed, OpLine/OpNoLine, and NonSemantic.Shader.DebugInfo.100
    // whose composite names members defined after it (OpExtInstWithForwardRefsKHR).
    let text = "OpCapability Shader\nOpExtension \"SPV_KHR_non_semantic_info\"\n\
        OpExtension \"SPV_KHR_relaxed_extended_instruction\"\n%ext = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n\
        OpMemoryModel Logical GLSL450\nOpEntryPoint Fragment %main \"main\" %out_color\n\
        OpExecutionMode %main OriginUpperLeft\n\
        %file = OpString \"shader.hlsl\"\n%source_text = OpString \"struct S { float a; };\\nfloat4 main() : SV_Target { S s; return s.a; }\"\n\
        %name_S = OpString \"S\"\n%name_a = OpString \"a\"\n%name_float = OpString \"float\"\n\
        %name_main = OpString \"main\"\n%name_s = OpString \"s\"\n%linkage = OpString \"main\"\n\
        OpSource HLSL 600 %file \"struct S { float a; };\"\n\
        OpName %main \"main\"\nOpName %out_color \"out.var.SV_Target\"\n\
        OpModuleProcessed \"dxc-commit-hash: 0123abcd\"\nOpModuleProcessed \"dxc-cl-option: -E main -T ps_6_0 -spirv\"\n\
        OpDecorate %out_color Location 0\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n%uint = OpTypeInt 32 0\n\
        %v4float = OpTypeVector %float 4\n%S = OpTypeStruct %float\n%pS = OpTypePointer Function %S\n\
        %pf = OpTypePointer Function %float\n%p_out = OpTypePointer Output %v4float\n\
        %out_color = OpVariable %p_out Output\n\
        %uint_0 = OpConstant %uint 0\n%uint_1 = OpConstant %uint 1\n%uint_2 = OpConstant %uint 2\n\
        %uint_3 = OpConstant %uint 3\n%uint_4 = OpConstant %uint 4\n%uint_5 = OpConstant %uint 5\n\
        %uint_8 = OpConstant %uint 8\n%uint_11 = OpConstant %uint 11\n%uint_32 = OpConstant %uint 32\n\
        %int_0 = OpConstant %uint 0\n\
        %dbg_src = OpExtInst %void %ext DebugSource %file %source_text\n\
        %dbg_cu = OpExtInst %void %ext DebugCompilationUnit %uint_1 %uint_4 %dbg_src %uint_5\n\
        %dbg_float = OpExtInst %void %ext DebugTypeBasic %name_float %uint_32 %uint_3 %uint_0\n\
        %dbg_S = OpExtInstWithForwardRefsKHR %void %ext DebugTypeComposite %name_S %uint_1 %dbg_src %uint_1 %uint_8 %dbg_cu %name_S %uint_32 %uint_3 %dbg_member_a\n\
        %dbg_member_a = OpExtInst %void %ext DebugTypeMember %name_a %dbg_float %dbg_src %uint_1 %uint_11 %uint_0 %uint_32 %uint_3\n\
        %dbg_fn_type = OpExtInst %void %ext DebugTypeFunction %uint_3 %void\n\
        %dbg_main = OpExtInst %void %ext DebugFunction %name_main %dbg_fn_type %dbg_src %uint_2 %uint_1 %dbg_cu %linkage %uint_3 %uint_2\n\
        %dbg_s = OpExtInst %void %ext DebugLocalVariable %name_s %dbg_S %dbg_src %uint_2 %uint_32 %dbg_main %uint_4\n\
        %dbg_expr = OpExtInst %void %ext DebugExpression\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n\
        %s = OpVariable %pS Function\n\
        %scope = OpExtInst %void %ext DebugScope %dbg_main\n\
        %def = OpExtInst %void %ext DebugFunctionDefinition %dbg_main %main\n\
        %decl = OpExtInst %void %ext DebugDeclare %dbg_s %s %dbg_expr\n\
        OpLine %file 2 40\n\
        %dline = OpExtInst %void %ext DebugLine %dbg_src %uint_2 %uint_2 %uint_32 %uint_32\n\
        %pa = OpAccessChain %pf %s %int_0\n%a = OpLoad %float %pa\n\
        %v = OpCompositeConstruct %v4float %a %a %a %a\nOpStore %out_color %v\n\
        OpNoLine\n%noscope = OpExtInst %void %ext DebugNoScope\nOpReturn\nOpFunctionEnd\n";
    let rt = round_trip("debug-info", text, "vulkan1.1", "vulkan1.1");
    // With debug locations (`--test-spirv-roundtrip-debug`), OpLine comes back too.
    let options = AsmOptions { target_env: TargetEnv::parse("vulkan1.1").unwrap(), ..AsmOptions::default() };
    let original = words_to_bytes(&assemble(text, &options).unwrap(), Endian::Little);
    let mut ir = Ir::new();
    let debug = DeserializeOptions { debug_locations: true, ..DeserializeOptions::default() };
    let module = deserialize(&original, &mut ir, &debug).expect("deserializes with locations");
    let serialize_debug = SerializeOptions { emit_debug_info: true, ..SerializeOptions::default() };
    let words = serialize(&ir, module, &serialize_debug).expect("serializes with locations");
    let with_lines = words_to_bytes(&words, Endian::Little);
    assert!(dis(&with_lines).contains("OpLine %"), "{}", dis(&with_lines));
    let (a, b) = (read(&original).unwrap(), read(&with_lines).unwrap());
    assert!(spirvkit_binary::equiv::check_equivalent(&a, &b).is_ok(), "{}", dis(&with_lines));
    validate(&with_lines, "vulkan1.1", "debug-info-lines")
        .unwrap_or_else(|e| panic!("{e}\n{}", dis(&with_lines)));

    let composite = rt.out.lines().find(|l| l.contains("DebugTypeComposite")).unwrap_or_default();
    assert!(composite.contains("= OpExtInstWithForwardRefsKHR %void"), "{}", rt.out);
    assert!(rt.text.contains("forward_refs"), "{}", rt.text);
    assert!(rt.out.contains("DebugFunctionDefinition"), "{}", rt.out);
}

// ---- Decorations ------------------------------------------------------------------------

#[test]
fn string_and_id_decorations_and_interpolation() {
    // `-fspv-reflect`: semantics and user types as strings, a counter buffer by id;
    // pixel inputs with interpolation modes.
    let text = "OpCapability Shader\nOpCapability SampleRateShading\n\
        OpExtension \"SPV_GOOGLE_hlsl_functionality1\"\nOpExtension \"SPV_GOOGLE_user_type\"\n\
        OpMemoryModel Logical GLSL450\n\
        OpEntryPoint Fragment %main \"main\" %in_flat %in_noperspective %in_centroid %in_sample %out_color %buf %counter\n\
        OpExecutionMode %main OriginUpperLeft\n\
        OpDecorate %in_flat Location 0\nOpDecorate %in_flat Flat\nOpDecorateString %in_flat UserSemantic \"TEXCOORD0\"\n\
        OpDecorate %in_noperspective Location 1\nOpDecorate %in_noperspective NoPerspective\n\
        OpDecorateString %in_noperspective UserSemantic \"TEXCOORD1\"\n\
        OpDecorate %in_centroid Location 2\nOpDecorate %in_centroid Centroid\n\
        OpDecorate %in_sample Location 3\nOpDecorate %in_sample Sample\n\
        OpDecorate %out_color Location 0\nOpDecorateString %out_color UserSemantic \"SV_Target\"\n\
        OpDecorate %Data Block\nOpMemberDecorate %Data 0 Offset 0\n\
        OpMemberDecorateString %Data 0 UserSemantic \"member\"\n\
        OpDecorate %rt ArrayStride 4\n\
        OpDecorate %buf DescriptorSet 0\nOpDecorate %buf Binding 0\n\
        OpDecorateString %buf UserTypeGOOGLE \"rwstructuredbuffer:<float>\"\n\
        OpDecorateId %buf CounterBuffer %counter\n\
        OpDecorate %Counter Block\nOpMemberDecorate %Counter 0 Offset 0\n\
        OpDecorate %counter DescriptorSet 0\nOpDecorate %counter Binding 1\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n%int = OpTypeInt 32 1\n\
        %v4float = OpTypeVector %float 4\n%p_in_int = OpTypePointer Input %int\n%p_in_f = OpTypePointer Input %float\n\
        %p_out = OpTypePointer Output %v4float\n%rt = OpTypeRuntimeArray %float\n%Data = OpTypeStruct %rt\n\
        %p_data = OpTypePointer StorageBuffer %Data\n%Counter = OpTypeStruct %int\n%p_counter = OpTypePointer StorageBuffer %Counter\n\
        %p_sb_f = OpTypePointer StorageBuffer %float\n%int_0 = OpConstant %int 0\n\
        %in_flat = OpVariable %p_in_int Input\n%in_noperspective = OpVariable %p_in_f Input\n\
        %in_centroid = OpVariable %p_in_f Input\n%in_sample = OpVariable %p_in_f Input\n\
        %out_color = OpVariable %p_out Output\n%counter = OpVariable %p_counter StorageBuffer\n\
        %buf = OpVariable %p_data StorageBuffer\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n\
        %i = OpLoad %int %in_flat\n%a = OpLoad %float %in_noperspective\n%b = OpLoad %float %in_centroid\n\
        %c = OpLoad %float %in_sample\n%p = OpAccessChain %p_sb_f %buf %int_0 %i\n%d = OpLoad %float %p\n\
        %v = OpCompositeConstruct %v4float %a %b %c %d\nOpStore %out_color %v\nOpReturn\nOpFunctionEnd\n";
    let rt = round_trip("decorations", text, "spv1.4", "vulkan1.1spv1.4");
    for needle in [
        "UserSemantic \"TEXCOORD0\"",
        "UserTypeGOOGLE \"rwstructuredbuffer:<float>\"",
        "OpMemberDecorateString",
        "CounterBuffer",
        " Flat",
        " NoPerspective",
        " Centroid",
        " Sample",
    ] {
        assert!(rt.out.contains(needle), "{needle}:\n{}", rt.out);
    }
}

// ---- Undefs, copies, calls --------------------------------------------------------------

#[test]
fn composite_undefs_copies_and_calls_with_pointer_parameters() {
    let text = compute(
        "",
        "%S = OpTypeStruct %float %v2int\n%arr = OpTypeArray %S %uint_4\n\
         %pS = OpTypePointer Function %S\n%parr = OpTypePointer Function %arr\n%pf = OpTypePointer Function %float\n\
         %fn_S = OpTypeFunction %float %pS %pf\n\
         %undef_S = OpUndef %S\n%undef_arr = OpUndef %arr\n%undef_v = OpUndef %v4float\n%f1 = OpConstant %float 1\n\
         %helper = OpFunction %float None %fn_S\n%param_s = OpFunctionParameter %pS\n%param_f = OpFunctionParameter %pf\n\
         %helper_entry = OpLabel\n%x = OpLoad %float %param_f\n%member = OpAccessChain %pf %param_s %int_0\n\
         OpStore %member %x\nOpReturnValue %x\nOpFunctionEnd\n",
        "%s = OpVariable %pS Function\n%arr_var = OpVariable %parr Function\n%f = OpVariable %pf Function\n\
         %with_member = OpCompositeInsert %S %f1 %undef_S 0\nOpStore %s %with_member\n\
         %arr_value = OpCompositeInsert %arr %with_member %undef_arr 2\nOpStore %arr_var %arr_value\n\
         %v = OpCompositeInsert %v4float %f1 %undef_v 3\n%copy = OpCopyObject %v4float %v\n\
         %x3 = OpCompositeExtract %float %copy 3\nOpStore %f %x3\n\
         %r = OpFunctionCall %float %helper %s %f\n%s_copy = OpCopyObject %S %with_member\nOpStore %s %s_copy\n",
    );
    let rt = round_trip("undefs-calls", &text, "vulkan1.0", "vulkan1.0");
    assert!(rt.out.contains("OpFunctionCall"), "{}", rt.out);
    assert!(count(&rt.out, "OpUndef") >= 3, "{}", rt.out);
}

// ---- Specialization ---------------------------------------------------------------------

#[test]
fn spec_constant_composites_operations_and_local_size_id() {
    // `[[vk::constant_id]]` values, a composite of them, operations on them, and
    // `numthreads` of spec and plain constants (OpExecutionModeId LocalSizeId).
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
        OpEntryPoint GLCompute %main \"main\"\nOpExecutionModeId %main LocalSizeId %sx %sy %uint_1\n\
        OpDecorate %sx SpecId 0\nOpDecorate %sy SpecId 1\nOpDecorate %sf SpecId 2\nOpDecorate %sb SpecId 3\n\
        OpDecorate %sf RelaxedPrecision\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%float = OpTypeFloat 32\n\
        %bool = OpTypeBool\n%v2uint = OpTypeVector %uint 2\n%v3float = OpTypeVector %float 3\n\
        %uint_1 = OpConstant %uint 1\n%uint_2 = OpConstant %uint 2\n%uint_8 = OpConstant %uint 8\n\
        %sx = OpSpecConstant %uint 8\n%sy = OpSpecConstant %uint 4\n%sf = OpSpecConstant %float 0.5\n\
        %sb = OpSpecConstantTrue %bool\n\
        %sv = OpSpecConstantComposite %v2uint %sx %sy\n%sfv = OpSpecConstantComposite %v3float %sf %sf %sf\n\
        %sum = OpSpecConstantOp %uint IAdd %sx %sy\n%twice = OpSpecConstantOp %uint IMul %sum %uint_2\n\
        %first = OpSpecConstantOp %uint CompositeExtract %sv 1\n%pick = OpSpecConstantOp %uint Select %sb %sx %first\n\
        %p_uint = OpTypePointer Function %uint\n%p_v3 = OpTypePointer Function %v3float\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n%u = OpVariable %p_uint Function\n\
        %w = OpVariable %p_v3 Function\nOpStore %u %twice\nOpStore %u %pick\nOpStore %w %sfv\n\
        OpReturn\nOpFunctionEnd\n";
    let rt = round_trip("spec-constants", text, "spv1.6", "vulkan1.3");
    assert!(rt.text.contains("spirv.ExecutionMode @main \"LocalSizeId\", @"), "{}", rt.text);
    // A `min16float` spec constant keeps its RelaxedPrecision.
    assert!(rt.text.contains("spec_id(2) {relaxed_precision} = 5.000000e-01 : f32"), "{}", rt.text);
    assert!(rt.out.contains("RelaxedPrecision"), "{}", rt.out);
    let mode = rt.out.lines().find(|l| l.contains("LocalSizeId")).unwrap_or_default();
    assert!(mode.ends_with(" %uint_1"), "{}", rt.out);
    assert!(rt.out.contains("OpSpecConstantComposite %v2uint"), "{}", rt.out);
    assert!(rt.out.contains("OpSpecConstantOp %uint IAdd"), "{}", rt.out);
}

// ---- Types ------------------------------------------------------------------------------

#[test]
fn sixteen_and_sixty_four_bit_types() {
    // `-enable-16bit-types` halves and shorts, doubles and 64-bit integers, with
    // 16-bit storage in a buffer.
    let text = "OpCapability Shader\nOpCapability Float16\nOpCapability Int16\nOpCapability Float64\n\
        OpCapability Int64\nOpCapability StorageBuffer16BitAccess\n\
        OpExtension \"SPV_KHR_16bit_storage\"\nOpMemoryModel Logical GLSL450\n\
        OpEntryPoint GLCompute %main \"main\" %buf\nOpExecutionMode %main LocalSize 1 1 1\n\
        OpDecorate %B Block\nOpMemberDecorate %B 0 Offset 0\nOpMemberDecorate %B 1 Offset 2\n\
        OpMemberDecorate %B 2 Offset 8\nOpMemberDecorate %B 3 Offset 16\n\
        OpDecorate %buf DescriptorSet 0\nOpDecorate %buf Binding 0\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%half = OpTypeFloat 16\n%short = OpTypeInt 16 1\n\
        %double = OpTypeFloat 64\n%long = OpTypeInt 64 1\n%ulong = OpTypeInt 64 0\n%int = OpTypeInt 32 1\n\
        %v2half = OpTypeVector %half 2\n\
        %B = OpTypeStruct %half %short %double %long\n%pB = OpTypePointer StorageBuffer %B\n\
        %p_half = OpTypePointer StorageBuffer %half\n%p_short = OpTypePointer StorageBuffer %short\n\
        %p_double = OpTypePointer StorageBuffer %double\n%p_long = OpTypePointer StorageBuffer %long\n\
        %int_0 = OpConstant %int 0\n%int_1 = OpConstant %int 1\n%int_2 = OpConstant %int 2\n%int_3 = OpConstant %int 3\n\
        %h1 = OpConstant %half 1.5\n%s7 = OpConstant %short -7\n%d = OpConstant %double 2.25\n\
        %l = OpConstant %long -5000000000\n%ul = OpConstant %ulong 18000000000000000000\n\
        %buf = OpVariable %pB StorageBuffer\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n\
        %ph = OpAccessChain %p_half %buf %int_0\n%h = OpLoad %half %ph\n%h2 = OpFAdd %half %h %h1\n\
        %hv = OpCompositeConstruct %v2half %h2 %h1\n%hx = OpCompositeExtract %half %hv 0\nOpStore %ph %hx\n\
        %ps = OpAccessChain %p_short %buf %int_1\n%s = OpLoad %short %ps\n%s2 = OpIAdd %short %s %s7\nOpStore %ps %s2\n\
        %pd = OpAccessChain %p_double %buf %int_2\n%hd = OpFConvert %double %h2\n%d2 = OpFMul %double %hd %d\nOpStore %pd %d2\n\
        %pl = OpAccessChain %p_long %buf %int_3\n%sl = OpSConvert %long %s2\n%l2 = OpIAdd %long %sl %l\n\
        %ul2 = OpBitcast %ulong %l2\n%ul3 = OpIAdd %ulong %ul2 %ul\n%l3 = OpBitcast %long %ul3\nOpStore %pl %l3\n\
        OpReturn\nOpFunctionEnd\n";
    let rt = round_trip("bit-widths", text, "spv1.4", "vulkan1.1spv1.4");
    assert!(rt.out.contains("OpTypeFloat 16"), "{}", rt.out);
    assert!(rt.out.contains("OpConstant %long -5000000000"), "{}", rt.out);
}

#[test]
fn runtime_arrays_in_blocks_and_array_length() {
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
        OpEntryPoint GLCompute %main \"main\" %buf %gid\nOpExecutionMode %main LocalSize 64 1 1\n\
        OpDecorate %gid BuiltIn GlobalInvocationId\n\
        OpDecorate %Elem_arr ArrayStride 16\nOpMemberDecorate %Elem 0 Offset 0\nOpMemberDecorate %Elem 1 Offset 12\n\
        OpDecorate %B Block\nOpMemberDecorate %B 0 Offset 0\nOpMemberDecorate %B 1 Offset 16\nOpMemberDecorate %B 1 NonWritable\n\
        OpDecorate %buf DescriptorSet 0\nOpDecorate %buf Binding 0\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%float = OpTypeFloat 32\n\
        %v3float = OpTypeVector %float 3\n%v3uint = OpTypeVector %uint 3\n\
        %Elem = OpTypeStruct %v3float %float\n%Elem_arr = OpTypeRuntimeArray %Elem\n\
        %B = OpTypeStruct %uint %Elem_arr\n%pB = OpTypePointer StorageBuffer %B\n\
        %p_elem = OpTypePointer StorageBuffer %Elem\n%p_uint = OpTypePointer StorageBuffer %uint\n\
        %p_in = OpTypePointer Input %v3uint\n%uint_0 = OpConstant %uint 0\n%uint_1 = OpConstant %uint 1\n\
        %buf = OpVariable %pB StorageBuffer\n%gid = OpVariable %p_in Input\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n\
        %id3 = OpLoad %v3uint %gid\n%id = OpCompositeExtract %uint %id3 0\n\
        %len = OpArrayLength %uint %buf 1\n%pe = OpAccessChain %p_elem %buf %uint_1 %id\n%e = OpLoad %Elem %pe\n\
        %pc = OpAccessChain %p_uint %buf %uint_0\nOpStore %pc %len\nOpReturn\nOpFunctionEnd\n";
    let rt = round_trip("runtime-arrays", text, "spv1.4", "vulkan1.1spv1.4");
    assert!(rt.out.contains("OpArrayLength"), "{}", rt.out);
    assert!(rt.out.contains("OpTypeRuntimeArray"), "{}", rt.out);
}

#[test]
fn sparse_image_operations() {
    // `Texture2D.Sample(s, uv, offset, clamp, status)` and `CheckAccessFullyMapped`.
    let text = "OpCapability Shader\nOpCapability SparseResidency\nOpCapability MinLod\n\
        OpMemoryModel Logical GLSL450\nOpEntryPoint Fragment %main \"main\" %uv %out_color\n\
        OpExecutionMode %main OriginUpperLeft\nOpDecorate %uv Location 0\nOpDecorate %out_color Location 0\n\
        OpDecorate %tex DescriptorSet 0\nOpDecorate %tex Binding 0\nOpDecorate %smp DescriptorSet 0\nOpDecorate %smp Binding 1\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n%uint = OpTypeInt 32 0\n\
        %int = OpTypeInt 32 1\n%bool = OpTypeBool\n%v2float = OpTypeVector %float 2\n%v4float = OpTypeVector %float 4\n\
        %v2int = OpTypeVector %int 2\n%v4bool = OpTypeVector %bool 4\n%img = OpTypeImage %float 2D 0 0 0 1 Unknown\n%sampler = OpTypeSampler\n\
        %simg = OpTypeSampledImage %img\n%p_img = OpTypePointer UniformConstant %img\n\
        %p_smp = OpTypePointer UniformConstant %sampler\n%p_in = OpTypePointer Input %v2float\n\
        %p_out = OpTypePointer Output %v4float\n%Residency = OpTypeStruct %uint %v4float\n\
        %f_clamp = OpConstant %float 2\n%int_0 = OpConstant %int 0\n%off = OpConstantComposite %v2int %int_0 %int_0\n\
        %tex = OpVariable %p_img UniformConstant\n%smp = OpVariable %p_smp UniformConstant\n\
        %uv = OpVariable %p_in Input\n%out_color = OpVariable %p_out Output\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n%t = OpLoad %img %tex\n%s = OpLoad %sampler %smp\n\
        %si = OpSampledImage %simg %t %s\n%c = OpLoad %v2float %uv\n\
        %r = OpImageSparseSampleImplicitLod %Residency %si %c ConstOffset|MinLod %off %f_clamp\n\
        %code = OpCompositeExtract %uint %r 0\n%mapped = OpImageSparseTexelsResident %bool %code\n\
        %color = OpCompositeExtract %v4float %r 1\n\
        %f = OpImageSparseFetch %Residency %t %off Lod %int_0\n%fc = OpCompositeExtract %v4float %f 1\n\
        %mapped4 = OpCompositeConstruct %v4bool %mapped %mapped %mapped %mapped\n\
        %out = OpSelect %v4float %mapped4 %color %fc\nOpStore %out_color %out\nOpReturn\nOpFunctionEnd\n";
    let rt = round_trip("sparse", text, "vulkan1.0", "vulkan1.0");
    assert!(rt.out.contains("OpImageSparseSampleImplicitLod"), "{}", rt.out);
    assert!(rt.out.contains("OpImageSparseTexelsResident"), "{}", rt.out);
}

#[test]
fn spec_constant_composites_of_one_spec_constant() {
    // As DXC writes a splat of a `[[vk::constant_id]]` value. (A composite mixing spec
    // and plain constants is valid too, but not supported yet: MLIR's constituents are
    // spec constant symbols.)
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
        OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
        OpDecorate %k SpecId 7\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%v2uint = OpTypeVector %uint 2\n\
        %uint_3 = OpConstant %uint 3\n%k = OpSpecConstant %uint 1\n\
        %kk = OpSpecConstantComposite %v2uint %k %k\n\
        %p = OpTypePointer Function %v2uint\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n%v = OpVariable %p Function\n\
        OpStore %v %kk\nOpReturn\nOpFunctionEnd\n";
    let rt = round_trip("spec-composite-splat", text, "vulkan1.0", "vulkan1.0");
    assert_eq!(count(&rt.out, "OpSpecConstantComposite"), 1, "{}", rt.out);
}

#[test]
fn buffer_device_addresses_and_helper_invocations() {
    // `vk::RawBufferLoad` (a PhysicalStorageBuffer pointer from a 64-bit address, an
    // aligned load), `clip`/`discard` as demotion, `IsHelperLane`.
    let text = "OpCapability Shader\nOpCapability Int64\nOpCapability PhysicalStorageBufferAddresses\n\
        OpCapability DemoteToHelperInvocation\nOpExtension \"SPV_KHR_physical_storage_buffer\"\n\
        OpExtension \"SPV_EXT_demote_to_helper_invocation\"\n\
        OpMemoryModel PhysicalStorageBuffer64 GLSL450\n\
        OpEntryPoint Fragment %main \"main\" %addr %out_color\nOpExecutionMode %main OriginUpperLeft\n\
        OpDecorate %addr Location 0\nOpDecorate %addr Flat\nOpDecorate %out_color Location 0\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n%ulong = OpTypeInt 64 0\n\
        %bool = OpTypeBool\n%p_in = OpTypePointer Input %ulong\n%p_out = OpTypePointer Output %float\n\
        %p_phys = OpTypePointer PhysicalStorageBuffer %float\n%f0 = OpConstant %float 0\n\
        %addr = OpVariable %p_in Input\n%out_color = OpVariable %p_out Output\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n%a = OpLoad %ulong %addr\n\
        %ptr = OpConvertUToPtr %p_phys %a\n%x = OpLoad %float %ptr Aligned 4\n\
        %neg = OpFOrdLessThan %bool %x %f0\nOpSelectionMerge %merge None\nOpBranchConditional %neg %demote %merge\n\
        %demote = OpLabel\nOpDemoteToHelperInvocation\nOpBranch %merge\n\
        %merge = OpLabel\n%helper = OpIsHelperInvocationEXT %bool\n%y = OpSelect %float %helper %f0 %x\n\
        OpStore %out_color %y\nOpReturn\nOpFunctionEnd\n";
    let rt = round_trip("bda-demote", text, "spv1.6", "vulkan1.3");
    assert!(rt.out.contains("OpConvertUToPtr"), "{}", rt.out);
    assert!(rt.out.contains("OpDemoteToHelperInvocation"), "{}", rt.out);
}

#[test]
fn ray_queries_and_mesh_outputs() {
    // `RayQuery<...>` in a compute shader: a Function variable of the query type, its
    // initialization, proceed loop and committed status.
    let ray_query = "OpCapability Shader\nOpCapability RayQueryKHR\nOpExtension \"SPV_KHR_ray_query\"\n\
        OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\" %tlas\nOpExecutionMode %main LocalSize 1 1 1\n\
        OpDecorate %tlas DescriptorSet 0\nOpDecorate %tlas Binding 0\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n%uint = OpTypeInt 32 0\n\
        %bool = OpTypeBool\n%v3float = OpTypeVector %float 3\n%as = OpTypeAccelerationStructureKHR\n\
        %p_as = OpTypePointer UniformConstant %as\n%rq = OpTypeRayQueryKHR\n%p_rq = OpTypePointer Function %rq\n\
        %uint_0 = OpConstant %uint 0\n%uint_255 = OpConstant %uint 255\n%f0 = OpConstant %float 0\n%f1 = OpConstant %float 1\n\
        %origin = OpConstantComposite %v3float %f0 %f0 %f0\n%dir = OpConstantComposite %v3float %f0 %f0 %f1\n\
        %tlas = OpVariable %p_as UniformConstant\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n%q = OpVariable %p_rq Function\n%t = OpLoad %as %tlas\n\
        OpRayQueryInitializeKHR %q %t %uint_0 %uint_255 %origin %f0 %dir %f1\nOpBranch %header\n\
        %header = OpLabel\nOpLoopMerge %exit %continue None\nOpBranch %body\n\
        %body = OpLabel\n%more = OpRayQueryProceedKHR %bool %q\nOpBranchConditional %more %continue %exit\n\
        %continue = OpLabel\nOpBranch %header\n\
        %exit = OpLabel\n%status = OpRayQueryGetIntersectionTypeKHR %uint %q %uint_0\nOpReturn\nOpFunctionEnd\n";
    let rt = round_trip("ray-query", ray_query, "spv1.4", "vulkan1.2");
    assert!(rt.out.contains("OpRayQueryProceedKHR"), "{}", rt.out);

    // A mesh shader: SetMeshOutputs, per-vertex positions and per-primitive indices.
    let mesh = "OpCapability MeshShadingEXT\nOpExtension \"SPV_EXT_mesh_shader\"\nOpMemoryModel Logical GLSL450\n\
        OpEntryPoint MeshEXT %main \"main\" %pos %idx\nOpExecutionMode %main LocalSize 1 1 1\n\
        OpExecutionMode %main OutputVertices 3\nOpExecutionMode %main OutputPrimitivesEXT 1\n\
        OpExecutionMode %main OutputTrianglesEXT\n\
        OpDecorate %pos BuiltIn Position\nOpDecorate %idx BuiltIn PrimitiveTriangleIndicesEXT\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n%uint = OpTypeInt 32 0\n\
        %v4float = OpTypeVector %float 4\n%v3uint = OpTypeVector %uint 3\n%uint_0 = OpConstant %uint 0\n\
        %uint_1 = OpConstant %uint 1\n%uint_2 = OpConstant %uint 2\n%uint_3 = OpConstant %uint 3\n\
        %pos_arr = OpTypeArray %v4float %uint_3\n%idx_arr = OpTypeArray %v3uint %uint_1\n\
        %p_pos = OpTypePointer Output %pos_arr\n%p_idx = OpTypePointer Output %idx_arr\n\
        %p_v4 = OpTypePointer Output %v4float\n%p_v3u = OpTypePointer Output %v3uint\n\
        %f0 = OpConstant %float 0\n%f1 = OpConstant %float 1\n%p = OpConstantComposite %v4float %f0 %f0 %f0 %f1\n\
        %tri = OpConstantComposite %v3uint %uint_0 %uint_1 %uint_2\n\
        %pos = OpVariable %p_pos Output\n%idx = OpVariable %p_idx Output\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\nOpSetMeshOutputsEXT %uint_3 %uint_1\n\
        %p0 = OpAccessChain %p_v4 %pos %uint_0\nOpStore %p0 %p\n%i0 = OpAccessChain %p_v3u %idx %uint_0\n\
        OpStore %i0 %tri\nOpReturn\nOpFunctionEnd\n";
    let rt = round_trip("mesh", mesh, "spv1.4", "vulkan1.2");
    assert!(rt.out.contains("OpSetMeshOutputsEXT"), "{}", rt.out);
}

#[test]
fn spec_constant_composites_mixing_spec_and_plain_constants() {
    // glslang's `gl_WorkGroupSize` of `local_size_x_id = 0, local_size_y = 4`.
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
        OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 4 1\n\
        OpDecorate %x SpecId 0\nOpDecorate %wg BuiltIn WorkgroupSize\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%v3uint = OpTypeVector %uint 3\n\
        %uint_1 = OpConstant %uint 1\n%uint_4 = OpConstant %uint 4\n%x = OpSpecConstant %uint 1\n\
        %wg = OpSpecConstantComposite %v3uint %x %uint_4 %uint_1\n%p = OpTypePointer Function %v3uint\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n%v = OpVariable %p Function\n\
        OpStore %v %wg\nOpReturn\nOpFunctionEnd\n";
    let rt = round_trip("spec-composite-mixed", text, "vulkan1.0", "vulkan1.0");
    // Its decoration too (the built-in overrides `LocalSize`).
    let expected = ", 4 : i32, 1 : i32) {built_in = \"WorkgroupSize\"} : vector<3xi32>";
    assert!(rt.text.contains(expected), "{}", rt.text);
    assert!(rt.out.contains("BuiltIn WorkgroupSize"), "{}", rt.out);
    let composite = rt.out.lines().find(|l| l.contains("OpSpecConstantComposite")).unwrap_or_default();
    assert!(composite.ends_with("%uint_4 %uint_1"), "{}", rt.out);
}

#[test]
fn null_of_a_type_without_one_is_an_error_with_its_place() {
    // Invalid SPIR-V (a runtime array has no null value): refused with the word offset.
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
        %float = OpTypeFloat 32\n%rt = OpTypeRuntimeArray %float\n%n = OpConstantNull %rt\n";
    let words = assemble(text, &AsmOptions::default()).unwrap();
    let mut ir = Ir::new();
    let err = deserialize(&words_to_bytes(&words, Endian::Little), &mut ir, &DeserializeOptions::default())
        .expect_err("refused");
    let message = err.to_string();
    assert!(
        message.contains("OpConstantNull of type '!spirv.rtarray<f32>', which has no null value"),
        "{message}"
    );
    assert!(message.starts_with("word "), "{message}");
}
