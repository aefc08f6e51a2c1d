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

use std::path::PathBuf;
use std::process::Command;

use spirvkit_binary::{
    assemble, disassemble, read, words_to_bytes, AsmOptions, DisOptions, Endian, TargetEnv,
};
use spirvkit_translate::driver::{run, Mode, TranslateOptions};
use spirvkit_translate::{deserialize, serialize, DeserializeOptions, Ir, SerializeOptions};

/// The spirv-val to validate with, if any.
fn spirv_val() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SPIRV_VAL") {
        return Some(PathBuf::from(path));
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let venv = repo.join(".venv/bin/spirv-val");
    if venv.exists() {
        return Some(venv);
    }
    Command::new("spirv-val").arg("--version").output().ok().map(|_| PathBuf::from("spirv-val"))
}

/// spirv-val's verdict on `bytes` (`Ok` when no validator is found).
fn validate(bytes: &[u8], env: &str, what: &str) -> Result<(), String> {
    let Some(val) = spirv_val() else {
        eprintln!("spirv-val not found (set SPIRV_VAL): {what} not validated");
        return Ok(());
    };
    let dir = std::env::temp_dir().join(format!("spirvkit-dxc-constructs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join(format!("{}.spv", what.replace(|c: char| !c.is_ascii_alphanumeric(), "_")));
    std::fs::write(&file, bytes).map_err(|e| e.to_string())?;
    let out =
        Command::new(&val).arg("--target-env").arg(env).arg(&file).output().map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&file);
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}

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
    let composite = rt.out.lines().find(|l| l.contains("DebugTypeComposite")).unwrap_or_default();
    assert!(composite.contains("= OpExtInstWithForwardRefsKHR %void"), "{}", rt.out);
    assert!(rt.text.contains("forward_refs"), "{}", rt.text);
    assert!(rt.out.contains("DebugFunctionDefinition"), "{}", rt.out);
}
