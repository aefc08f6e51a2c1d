//! End-to-end tests of `spirvkit opt` (the `mlir-opt`-compatible driver).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A scratch directory per test, removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("spirvkit-opt-test-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(program: &Path, args: &[&str], dir: &Path) -> Output {
    Command::new(program).args(args).current_dir(dir).output().expect("tool runs")
}

fn spirvkit_opt(args: &[&str], dir: &Path) -> Output {
    let mut all = vec!["opt"];
    all.extend_from_slice(args);
    run(Path::new(env!("CARGO_BIN_EXE_spirvkit")), &all, dir)
}

const SPLIT: &str = "module {\n}\n\n// -----\n\n// expected-error @+1 {{unregistered dialect}}\n\"x.y\"() : () -> ()\n\n// -----\n\nmodule {\n}\n";

#[test]
fn split_and_verify_diagnostics() {
    let scratch = Scratch::new("split");
    let file = scratch.file("split.mlir");
    std::fs::write(&file, SPLIT).unwrap();
    let dir = file.parent().unwrap();
    for flags in
        [["--split-input-file", "--verify-diagnostics"], ["-split-input-file", "-verify-diagnostics"]]
    {
        let out = spirvkit_opt(&[flags[0], flags[1], "split.mlir"], dir);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "module {\n}\n\n// -----\n// -----\nmodule {\n}\n\n"
        );
        assert!(out.stderr.is_empty());
    }
    // Without --verify-diagnostics the error is an error.
    let out = spirvkit_opt(&["--split-input-file", "split.mlir"], dir);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("split.mlir:7:6: error: operation being parsed with an unregistered dialect"),
        "{stderr}"
    );
}

#[test]
fn output_file_and_stdin() {
    let scratch = Scratch::new("io");
    let file = scratch.file("in.mlir");
    std::fs::write(&file, "module {\n}\n").unwrap();
    let dir = file.parent().unwrap();
    let out = spirvkit_opt(&["in.mlir", "-o", "out.mlir"], dir);
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(dir.join("out.mlir")).unwrap(), "module {\n}\n\n");
    let out = spirvkit_opt(&["in.mlir", "-o=out2.mlir"], dir);
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(dir.join("out2.mlir")).unwrap(), "module {\n}\n\n");

    // A failed run keeps no output file (mlir-opt's `ToolOutputFile`).
    std::fs::write(dir.join("bad.mlir"), "\"x.y\"() : () -> ()\n").unwrap();
    let out = spirvkit_opt(&["bad.mlir", "-o", "out.mlir"], dir);
    assert!(!out.status.success());
    assert!(!dir.join("out.mlir").exists());

    // ...but a non-regular output such as `/dev/null` is never deleted (a failed
    // `-o /dev/null` run as root once replaced the device with a plain file).
    let fifo = dir.join("fifo");
    if Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
        let out = spirvkit_opt(&["bad.mlir", "-o", "fifo"], dir);
        assert!(!out.status.success());
        let kind = std::fs::symlink_metadata(&fifo).expect("the fifo is kept").file_type();
        assert!(!kind.is_file());
    }

    let child = Command::new(env!("CARGO_BIN_EXE_spirvkit"))
        .args(["opt", "-"])
        .stdin(std::fs::File::open(&file).unwrap())
        .output()
        .unwrap();
    assert!(child.status.success());
    assert_eq!(String::from_utf8_lossy(&child.stdout), "module {\n}\n\n");
}

#[test]
fn pass_flags_are_reported() {
    let scratch = Scratch::new("pass");
    let file = scratch.file("pass.mlir");
    std::fs::write(&file, "module {\n}\n").unwrap();
    let out = spirvkit_opt(&["--loop-invariant-code-motion", "pass.mlir"], file.parent().unwrap());
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: not supported yet: pass --loop-invariant-code-motion\n"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn pass_pipeline_option() {
    let scratch = Scratch::new("pipeline");
    let file = scratch.file("inline.mlir");
    std::fs::write(
        &file,
        "spirv.module Logical GLSL450 {\n  spirv.func @f() \"None\" attributes {sym_visibility = \"private\"} {\n    \
         spirv.Return\n  }\n  spirv.func @g() \"None\" {\n    spirv.FunctionCall @f() : () -> ()\n    \
         spirv.Return\n  }\n}\n",
    )
    .unwrap();
    let dir = file.parent().unwrap();
    // As mlir-opt-22 prints it: the call inlined, the private callee gone.
    let expected = "module {\n  spirv.module Logical GLSL450 {\n    spirv.func @g() \"None\" {\n      \
                    spirv.Return\n    }\n  }\n}\n\n";
    let pipeline = "builtin.module(spirv.module(inline{default-pipeline=''}))";
    for args in [
        vec![format!("-pass-pipeline={pipeline}"), "inline.mlir".to_string()],
        vec!["--pass-pipeline".to_string(), pipeline.to_string(), "inline.mlir".to_string()],
        vec!["--inline=default-pipeline=".to_string(), "inline.mlir".to_string()],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = spirvkit_opt(&args, dir);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    }
    let out = spirvkit_opt(&["--pass-pipeline=builtin.module(cse)", "--canonicalize", "inline.mlir"], dir);
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "<unknown>:0: error: '-pass-pipeline' option can't be used with individual pass options\n"
    );
    let out = spirvkit_opt(&["--pass-pipeline=builtin.module(nope)", "inline.mlir"], dir);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "<unknown>:0: error: MLIR Textual PassPipeline Parser:1:1: error: 'nope' does not refer to a registered \
         pass or pass pipeline\nnope\n^\n\n"
    );
}

/// Same stdout, stderr and exit status as mlir-opt-22 on inputs whose handling does
/// not depend on op knowledge (skipped when mlir-opt-22 is not installed).
#[test]
fn matches_mlir_opt() {
    let mlir_opt = Path::new("mlir-opt-22");
    if Command::new(mlir_opt).arg("--version").output().is_err() {
        eprintln!("skipping: mlir-opt-22 not installed");
        return;
    }
    let cases: [(&str, &str); 5] = [
        ("split.mlir", SPLIT),
        (
            "markers.mlir",
            "module {\n}\n// -----   \nmodule {\n} // ----- \n// -----0\nmodule {\n}\n// ---x\n// -----\n// -----\n",
        ),
        (
            "expect.mlir",
            "module {\n}\n// expected-error @below {{unregistered}}\n// -----\n\"x.y\"() : () -> ()\n\
             // -----\n// expected-error @+2 {{unregistered}}\n// -----\n\"x.z\"() : () -> ()\n\
             // expected-error-re @below {{un{{[a-z}}ed dialect}}\n\"x.w\"() : () -> ()\n",
        ),
        ("unknown.mlir", "module {}\n// expected-error @unknown {{zzz}}\n// expected-warning {{w}}\n"),
        ("empty.mlir", ""),
    ];
    let flag_sets: [&[&str]; 4] = [
        &[],
        &["--split-input-file"],
        &["-split-input-file", "-verify-diagnostics"],
        &["--split-input-file", "--allow-unregistered-dialect"],
    ];
    let scratch = Scratch::new("compare");
    let mut mismatches = Vec::new();
    for (name, text) in cases {
        let file = scratch.file(name);
        std::fs::write(&file, text).unwrap();
        let dir = file.parent().unwrap();
        for flags in flag_sets {
            let mut args = flags.to_vec();
            args.push(name);
            let reference = run(mlir_opt, &args, dir);
            let ours = spirvkit_opt(&args, dir);
            if reference.stdout != ours.stdout
                || reference.stderr != ours.stderr
                || reference.status.code() != ours.status.code()
            {
                mismatches.push(format!(
                    "{name} {flags:?}:\n--- mlir-opt-22 ({:?})\n{}{}\n--- spirvkit ({:?})\n{}{}",
                    reference.status.code(),
                    String::from_utf8_lossy(&reference.stdout),
                    String::from_utf8_lossy(&reference.stderr),
                    ours.status.code(),
                    String::from_utf8_lossy(&ours.stdout),
                    String::from_utf8_lossy(&ours.stderr),
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// `--pass-pipeline` texts, good and bad, give mlir-opt-22's output, errors and exit
/// status (LLVM's option complaints name the tool; skipped when mlir-opt-22 is not
/// installed).
#[test]
fn pipelines_match_mlir_opt() {
    let mlir_opt = Path::new("mlir-opt-22");
    if Command::new(mlir_opt).arg("--version").output().is_err() {
        eprintln!("skipping: mlir-opt-22 not installed");
        return;
    }
    let pipelines = [
        "builtin.module(",
        "builtin.module()",
        "canonicalize",
        "func.func(canonicalize)",
        "builtin.module(foo)",
        "builtin.module(func.func(canonicalize)",
        "builtin.module(canonicalize))",
        "builtin.module(canonicalize{)",
        "builtin.module(canonicalize,,cse)",
        " builtin.module( spirv.module ( canonicalize ) , cse ) ",
        "builtin.module(spirv.module(canonicalize)  x)",
        "builtin.module(canonicalize{a}(cse))",
        "builtin.module(a(b( c)",
        "builtin.module(spirv.module(),canonicalize)",
        "builtin.module(canonicalize{bogus=1})",
        "builtin.module(canonicalize{test-convergence=x})",
        "builtin.module(canonicalize{max-iterations={a 'b} c' d}})",
        "builtin.module(canonicalize{max-iterations='a b'c})",
        "builtin.module(canonicalize{max-iterations = x})",
        "builtin.module(canonicalize{region-simplify=foo})",
        "builtin.module(spirv-update-vce)",
        "builtin.module(spirv.module(func.func(decorate-spirv-composite-type-layout)))",
        "builtin.module(any(spirv-update-vce))",
        "any(spirv-update-vce)",
        "builtin.module(spirv.module(spirv.GlobalVariable(cse)))",
        "builtin.module(spirv.module(spirv.func(inline)))",
        "builtin.module(inline{op-pipelines=cse})",
        "builtin.module(inline{max-iterations=-1})",
        "builtin.module(spirv.module(inline{default-pipeline=bogus}))",
        "builtin.module(spirv.module(inline{default-pipeline=spirv-update-vce}))",
        "builtin.module(spirv.module(inline{default-pipeline='' inlining-threshold=100}))",
    ];
    let scratch = Scratch::new("pipelines");
    let file = scratch.file("p.mlir");
    std::fs::write(
        &file,
        "spirv.module Logical GLSL450 {\n  spirv.GlobalVariable @v : !spirv.ptr<i32, Private>\n  \
         spirv.func @f(%a: i32) -> i32 \"None\" {\n    %0 = spirv.IAdd %a, %a : i32\n    \
         spirv.ReturnValue %0 : i32\n  }\n  spirv.func @g(%a: i32) -> i32 \"None\" {\n    \
         %0 = spirv.FunctionCall @f(%a) : (i32) -> i32\n    spirv.ReturnValue %0 : i32\n  }\n}\n",
    )
    .unwrap();
    let dir = file.parent().unwrap();
    let mut mismatches = Vec::new();
    for pipeline in pipelines {
        let option = format!("--pass-pipeline={pipeline}");
        let reference = run(mlir_opt, &[&option, "p.mlir"], dir);
        let ours = spirvkit_opt(&[&option, "p.mlir"], dir);
        let reference_stderr =
            String::from_utf8_lossy(&reference.stderr).replace("mlir-opt-22: for", "spirvkit: for");
        if reference.stdout != ours.stdout
            || reference_stderr != String::from_utf8_lossy(&ours.stderr)
            || reference.status.code() != ours.status.code()
        {
            mismatches.push(format!(
                "{pipeline}:\n--- mlir-opt-22 ({:?})\n{}{reference_stderr}\n--- spirvkit ({:?})\n{}{}",
                reference.status.code(),
                String::from_utf8_lossy(&reference.stdout),
                ours.status.code(),
                String::from_utf8_lossy(&ours.stdout),
                String::from_utf8_lossy(&ours.stderr),
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// `spirv.Constant #spirv.null` (OpConstantNull of a composite) is a constant to the
/// passes: CSE merges equal ones of one type, canonicalize uniques them and drops the
/// unused, and nulls of different types stay apart.
#[test]
fn null_constants_are_constants_to_cse_and_canonicalize() {
    let scratch = Scratch::new("nulls");
    let file = scratch.file("nulls.mlir");
    let source = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n\
        spirv.func @f() -> !spirv.struct<(f32, i32)> \"None\" {\n\
        %0 = spirv.Constant #spirv.null : !spirv.struct<(f32, i32)>\n\
        %1 = spirv.Constant #spirv.null : !spirv.struct<(f32, i32)>\n\
        %2 = spirv.Constant #spirv.null : !spirv.array<2 x f32>\n\
        %3 = spirv.Constant #spirv.null : !spirv.array<2 x f32>\n\
        %4 = spirv.CompositeExtract %0[0 : i32] : !spirv.struct<(f32, i32)>\n\
        %5 = spirv.CompositeInsert %4, %1[0 : i32] : f32 into !spirv.struct<(f32, i32)>\n\
        %6 = spirv.CompositeExtract %3[1 : i32] : !spirv.array<2 x f32>\n\
        %7 = spirv.CompositeInsert %6, %5[0 : i32] : f32 into !spirv.struct<(f32, i32)>\n\
        spirv.ReturnValue %7 : !spirv.struct<(f32, i32)>\n  }\n}\n";
    std::fs::write(&file, source).unwrap();
    for pass in ["--cse", "--canonicalize"] {
        let out = spirvkit_opt(&[pass, "nulls.mlir"], &scratch.0);
        assert!(out.status.success(), "{pass}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        let count = |needle: &str| text.lines().filter(|l| l.contains(needle)).count();
        assert_eq!(count("spirv.Constant #spirv.null : !spirv.struct<(f32, i32)>"), 1, "{pass}: {text}");
        assert_eq!(count("spirv.Constant #spirv.null : !spirv.array<2 x f32>"), 1, "{pass}: {text}");
    }
}
