//! Differential tests against Debian's `spirv-as` (SPIRV-Tools 2023.1): every
//! literal form for every scalar type, and statements exercising masks, strings,
//! extended instructions, raw words and error paths. Each input must give the same
//! bytes, or the same error message at the same line and column. Skipped when
//! `spirv-as` is not installed.

use spirvkit_binary::{assemble, AsmOptions, TargetEnv};
use std::process::Command;

const TYPES: &[&str] = &[
    "OpTypeFloat 32",
    "OpTypeFloat 16",
    "OpTypeFloat 64",
    "OpTypeInt 32 1",
    "OpTypeInt 32 0",
    "OpTypeInt 16 1",
    "OpTypeInt 16 0",
    "OpTypeInt 64 1",
    "OpTypeInt 64 0",
    "OpTypeInt 8 1",
];

const LITERALS: &[&str] = &[
    "0",
    "1",
    "-1",
    "+1",
    "010",
    "08",
    "0x10",
    "0X1F",
    "-0x10",
    "0xffffffff",
    "0x80000000",
    "4294967295",
    "4294967296",
    "-2147483648",
    "-2147483649",
    "2147483648",
    "65535",
    "65536",
    "-32768",
    "-32769",
    "0xffff",
    "0x8000",
    "255",
    "256",
    "-128",
    "-129",
    "0x80",
    "1.5",
    "-1.5",
    ".5",
    "1.",
    "1e3",
    "1E+3",
    "1e-50",
    "-1e-50",
    "1e40",
    "3.4028236e38",
    "1e309",
    "inf",
    "nan",
    "0x1p0",
    "0x1.8p+1",
    "0x1P0",
    "0x1",
    "0x1p",
    "0x1.fffffffp0",
    "0x1p+200",
    "-0x1p-149",
    "0x1p-150",
    "0x1.8p+128",
    "65504",
    "65520",
    "65536.5",
    "0.1",
    "1e-8",
    "0x1p-24",
    "0x1p-25",
    "-0",
    "+0x1p0",
    "1e",
    "1.5f",
    "--1",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "0xffffffffffffffff",
    "1e5",
    "0x1.ffcp+15",
    "123456789012",
    "0.000061035156",
    "5.96e-08",
    "00",
    "-00",
    "0x",
    "+",
    "-",
];

const PRELUDE: &str = "OpCapability Shader\nOpCapability Kernel\nOpMemoryModel Logical GLSL450\n";

const STATEMENTS: &[&str] = &[
    "OpSource GLSL 450 %f \"a\\\"b\"\n%f = OpString \"x\"",
    "OpSourceExtension \"a\"b\"c\"",
    "OpSourceExtension \"tab\there\"",
    "OpSourceExtension \"unterminated",
    "OpSourceExtension abc",
    "OpSourceExtension 123",
    "OpName %x \"semi;colon\"\n%x = OpTypeVoid",
    "%x = OpTypeVoid ; comment\n%y = OpTypeBool;comment",
    "%v = OpTypeVoid\n%fn = OpTypeFunction %v\n%f = OpFunction %v Inline|DontInline %fn\nOpFunctionEnd",
    "%v = OpTypeVoid\n%fn = OpTypeFunction %v\n%f = OpFunction %v Inline|Bogus %fn\nOpFunctionEnd",
    "%v = OpTypeVoid\n%fn = OpTypeFunction %v\n%f = OpFunction %v 1 %fn\nOpFunctionEnd",
    "%i = OpTypeInt 32 0\n%p = OpTypePointer Function %i\n%v = OpTypeVoid\n%fn = OpTypeFunction %v\n%f = OpFunction %v None %fn\n%l = OpLabel\n%x = OpVariable %p Function\n%y = OpLoad %i %x Volatile|Aligned 4\nOpStore %x %y Aligned|Volatile 8\nOpReturn\nOpFunctionEnd",
    "%i = OpTypeInt 32 0\n%c = OpConstant %i 1\n%s = OpSpecConstantOp %i IAdd %c %c\n%t = OpSpecConstantOp %i Load %c",
    "%i = OpTypeInt 32 0\n%c = OpConstant %i 1\n%s = OpSpecConstantOp %i OpIAdd %c %c",
    "%g = OpExtInstImport \"GLSL.std.450\"\n%f = OpTypeFloat 32\n%c = OpConstant %f 1\n%r = OpExtInst %f %g Sqrt %c\n%q = OpExtInst %f %g 31 %c",
    "%g = OpExtInstImport \"NonSemantic.Foo\"\n%v = OpTypeVoid\n%r = OpExtInst %v %g 5 %v %v",
    "%g = OpExtInstImport \"NonSemantic.Foo\"\n%v = OpTypeVoid\n%r = OpExtInst %v %g Bar %v",
    "%g = OpExtInstImport \"Foo.bar\"",
    "%g = OpExtInstImport \"OpenCL.std\"\n%f = OpTypeFloat 32\n%c = OpConstant %f 1\n%r = OpExtInst %f %g sqrt %c",
    "%g = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n%v = OpTypeVoid\n%r = OpExtInst %v %g DebugInfoNone\n%s = OpExtInst %v %g 0",
    "%g = OpExtInstImport \"NonSemantic.DebugPrintf\"\n%v = OpTypeVoid\n%r = OpExtInst %v %g 248\n%s = OpExtInst %v %g 1 %v %v",
    "OpDecorate %x LinkageAttributes \"foo\" Export\n%x = OpTypeVoid",
    "OpDecorate %x 30\n%x = OpTypeVoid",
    "!0x00040047 %f 30 7\n%f = OpTypeVoid",
    "OpDecorate %x !30 \"str\" 5 %y 1.5\n%x = OpTypeVoid",
    "%x = OpTypeVoid %y",
    "%x OpTypeVoid",
    "%x = TypeVoid",
    "OpTypeVoid",
    "%x = OpCapability Shader",
    "OpCapability",
    "OpEntryPoint GLCompute %m \"m\"\nOpExecutionMode %m LocalSize 1 2 3\n%v = OpTypeVoid\n%fn = OpTypeFunction %v\n%m = OpFunction %v None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd",
    "OpExecutionModeId %m LocalSizeId %a %b %c",
    "%i = OpTypeInt 32 1\n%c = OpConstant %i 3\n%v = OpTypeVoid\n%fn = OpTypeFunction %v\n%f = OpFunction %v None %fn\n%l = OpLabel\nOpSelectionMerge %m None\nOpSwitch %c %m 1 %a 2 %b\n%a = OpLabel\nOpBranch %m\n%b = OpLabel\nOpBranch %m\n%m = OpLabel\nOpReturn\nOpFunctionEnd",
    "%a.b = OpTypeVoid",
    "% = OpTypeVoid",
    "%t = OpTypeVoid\n%a.b = OpUndef %t",
    "foo",
    "%x =",
    "%x",
    "   ; only comment",
    "OpMemberName %s 0 \"a\"\nOpMemberDecorate %s 0 Offset 0\n%f = OpTypeFloat 32\n%s = OpTypeStruct %f %f",
    "OpGroupNonUniformElect",
    "OpCapability GroupNonUniform",
    "OpDecorateStringGOOGLE %x UserSemantic \"s\"\n%x = OpTypeVoid",
    "OpDecorate %x HlslSemanticGOOGLE \"s\"\n%x = OpTypeVoid",
    "%x = OpTypeVoid\n%x = OpTypeBool",
    "%i = OpTypeInt 32 0\n%x = OpTypeVoid\n%x = OpTypeInt 32 1 ; c",
    "%x = OpTypeStruct %x",
];

fn spirv_as_available() -> bool {
    Command::new("spirv-as").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// spirv-as's result: the bytes, or `line:col: message`.
fn reference(text: &str, env: &str, dir: &std::path::Path) -> Result<Vec<u8>, String> {
    let input = dir.join("in.spvasm");
    let output = dir.join("out.spv");
    std::fs::write(&input, text).unwrap();
    let run = Command::new("spirv-as")
        .args(["--target-env", env])
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    if run.status.success() {
        return Ok(std::fs::read(&output).unwrap());
    }
    // "error: L: C: message"
    let stderr = String::from_utf8_lossy(&run.stderr);
    let first = stderr.strip_suffix('\n').unwrap_or(&stderr).trim_start_matches("error: ");
    let mut parts = first.splitn(3, ": ");
    match (parts.next(), parts.next(), parts.next()) {
        (Some(l), Some(c), Some(m)) => Err(format!("{l}:{c}: {m}")),
        _ => Err(first.to_string()),
    }
}

fn ours(text: &str, env: &str) -> Result<Vec<u8>, String> {
    let options = AsmOptions { target_env: TargetEnv::parse(env).unwrap(), preserve_numeric_ids: false };
    assemble(text, &options)
        .map(|words| words.iter().flat_map(|w| w.to_le_bytes()).collect())
        .map_err(|e| format!("{}:{}: {}", e.line, e.column, e.message))
}

fn compare(cases: impl Iterator<Item = (String, &'static str)>) {
    let dir = std::env::temp_dir().join(format!(
        "spirvkit-diff-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut mismatches = Vec::new();
    let mut count = 0;
    for (text, env) in cases {
        count += 1;
        let expected = reference(&text, env, &dir);
        let actual = ours(&text, env);
        if expected != actual {
            mismatches.push(format!("--- {env}\n{text}\nspirv-as: {expected:?}\nspirvkit: {actual:?}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(mismatches.is_empty(), "{} of {count} differ:\n{}", mismatches.len(), mismatches.join("\n"));
}

#[test]
fn literals_match_spirv_as() {
    if !spirv_as_available() {
        eprintln!("skipping: spirv-as not installed");
        return;
    }
    let caps = "OpCapability Shader\nOpCapability Float16\nOpCapability Float64\nOpCapability Int64\nOpCapability Int16\nOpCapability Int8\n";
    compare(TYPES.iter().flat_map(|ty| {
        LITERALS.iter().map(move |lit| (format!("{caps}%t = {ty}\n%c = OpConstant %t {lit}\n"), "spv1.6"))
    }));
}

#[test]
fn statements_match_spirv_as() {
    if !spirv_as_available() {
        eprintln!("skipping: spirv-as not installed");
        return;
    }
    compare(
        STATEMENTS
            .iter()
            .flat_map(|s| ["spv1.6", "spv1.0"].map(|env| (format!("{PRELUDE}{s}\n"), env)))
            .chain(std::iter::once((String::new(), "spv1.6"))),
    );
}
