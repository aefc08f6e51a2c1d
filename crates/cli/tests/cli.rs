//! End-to-end tests of the `spirvkit` binary.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

// Ids numbered the way the assembler numbers them (first use order), so the
// disassembly reproduces the text exactly.
const SHADER: &str = r#"               OpCapability Shader
          %1 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %main "main"
       %void = OpTypeVoid
          %4 = OpTypeFunction %void
      %float = OpTypeFloat 32
    %float_2 = OpConstant %float 2
       %main = OpFunction %void None %4
          %7 = OpLabel
          %8 = OpExtInst %float %1 Sqrt %float_2
               OpReturn
               OpFunctionEnd
"#;

fn spirvkit(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_spirvkit"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spirvkit runs");
    let mut input = child.stdin.take().unwrap();
    if let Some(bytes) = stdin {
        input.write_all(bytes).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("spirvkit-cli-{}-{name}", std::process::id()))
}

fn assemble_to_file(name: &str) -> PathBuf {
    let path = temp(name);
    let out = spirvkit(&["as", "-", "-o", path.to_str().unwrap()], Some(SHADER.as_bytes()));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    path
}

#[test]
fn assemble_then_disassemble_round_trips() {
    let spv = assemble_to_file("rt.spv");
    let out = spirvkit(&["dis", spv.to_str().unwrap(), "--no-header"], None);
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), SHADER);
    let bytes = std::fs::read(&spv).unwrap();
    assert_eq!(&bytes[..4], &[0x03, 0x02, 0x23, 0x07]);
    assert_eq!(&bytes[4..8], &[0, 6, 1, 0], "default target env is SPIR-V 1.6");
    let _ = std::fs::remove_file(spv);
}

#[test]
fn disassemble_from_stdin_with_options() {
    let spv = assemble_to_file("stdin.spv");
    let bytes = std::fs::read(&spv).unwrap();
    let out = spirvkit(&["dis", "-", "--raw-id", "--no-indent", "--offsets"], Some(&bytes));
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("; SPIR-V\n; Version: 1.6\n; Generator: Khronos SPIR-V Tools Assembler; 0\n"));
    assert!(text.contains("OpCapability Shader ; 0x00000014\n"), "{text}");
    assert!(text.contains("%2 = OpFunction %3 None %4"), "{text}");
    let _ = std::fs::remove_file(spv);
}

#[test]
fn target_env_sets_the_header_version() {
    let path = temp("env.spv");
    let out = spirvkit(
        &["as", "-", "-o", path.to_str().unwrap(), "--target-env", "vulkan1.1"],
        Some(b"OpCapability Shader\n"),
    );
    assert!(out.status.success());
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[4..8], &[0, 3, 1, 0], "vulkan1.1 is SPIR-V 1.3");
    let out = spirvkit(&["as", "-", "--target-env", "bogus"], Some(b""));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unrecognized target env"));
    let _ = std::fs::remove_file(path);
}

#[test]
fn assembly_errors_have_file_line_column() {
    let src = temp("bad.spvasm");
    std::fs::write(&src, "OpCapability Shader\nOpMemoryModel Logical Foo\n").unwrap();
    let out = spirvkit(&["as", src.to_str().unwrap(), "-o", "-"], None);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end(), format!("{}:2:23: error: Invalid memory model 'Foo'.", src.display()));
    let _ = std::fs::remove_file(src);
}

#[test]
fn bad_binaries_are_reported_not_panicked() {
    for bytes in [&b""[..], &b"\x03\x02\x23\x07"[..], &[0xff; 24][..]] {
        let out = spirvkit(&["dis", "-"], Some(bytes));
        assert!(!out.status.success());
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("error: word"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn missing_input_file_is_an_error() {
    let out = spirvkit(&["dis", "/nonexistent/x.spv"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/x.spv"));
}

/// The binary reads untrusted input, so it is a position-independent executable
/// (ELF type `ET_DYN`), unless built with the `SPIRVKIT_NO_PIE` opt-out.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn binary_is_position_independent() {
    if option_env!("SPIRVKIT_NO_PIE").is_some_and(|v| !v.is_empty() && v != "0") {
        eprintln!("skipping: built with SPIRVKIT_NO_PIE");
        return;
    }
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_spirvkit")).expect("reading the binary");
    assert_eq!(&bytes[..4], b"\x7fELF", "not an ELF file");
    // e_type sits at offset 16 in the byte order of EI_DATA (byte 5: 1 little, 2 big).
    let e_type = match bytes[5] {
        1 => u16::from_le_bytes([bytes[16], bytes[17]]),
        _ => u16::from_be_bytes([bytes[16], bytes[17]]),
    };
    const ET_EXEC: u16 = 2;
    const ET_DYN: u16 = 3;
    assert_eq!(e_type, ET_DYN, "spirvkit is linked position-dependent (ET_EXEC = {ET_EXEC})");
}

#[test]
fn translate_writes_llvm_ir_of_nested_modules() {
    let module = r#""builtin.module"() ({
  "builtin.module"() <{sym_name = "kernel"}> ({
    "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<i32 (i32)>, linkage = #llvm.linkage<external>, sym_name = "twice", visibility_ = 0 : i64}> ({
    ^bb0(%a: i32):
      %0 = "llvm.add"(%a, %a) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32
      "llvm.return"(%0) : (i32) -> ()
    }) : () -> ()
  }) : () -> ()
}) : () -> ()
"#;
    let out = spirvkit(&["translate", "--mlir-to-llvmir", "-"], Some(module.as_bytes()));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("define i32 @twice(i32 %0) {\n  %2 = add i32 %0, %0\n  ret i32 %2\n}"), "{text}");

    let unsupported = module.replace(
        "      %0 = \"llvm.add\"(%a, %a) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32\n",
        "      \"llvm.inline_asm\"() <{asm_string = \"nop\", constraints = \"\"}> : () -> ()\n      %0 = \"llvm.add\"(%a, %a) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32\n",
    );
    assert_ne!(unsupported, module);
    let out = spirvkit(&["translate", "--mlir-to-llvmir", "-"], Some(unsupported.as_bytes()));
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not supported yet: llvm.inline_asm"));
}
