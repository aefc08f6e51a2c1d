//! The `hlsl2spirv` binary: exit codes, diagnostics on stderr, output modes.

mod common;

use common::run;

const SHADER: &str = "#if __SHADER_TARGET_STAGE == __SHADER_STAGE_PIXEL && __HLSL_VERSION == 2018\n\
                      float4 main() : SV_Target { return X; }\n#endif\n";

#[test]
fn syntax_only_accepts_and_rejects() {
    let ok = run(&["-T", "ps_6_0", "-E", "main", "-HV", "2018", "-DX=1", "-fsyntax-only", "-"], SHADER);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let bad = run(&["-Tps_6_0", "-fsyntax-only", "-"], "float4 main() { return 1 }");
    assert_eq!(bad.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("<stdin>:1:26: error: expected ';' after return statement"), "{stderr}");
}

#[test]
fn ast_dump_and_preprocess() {
    let dump = run(&["-T", "ps_6_0", "-HV", "2018", "-D", "X=2", "-ast-dump", "-"], SHADER);
    let text = String::from_utf8_lossy(&dump.stdout);
    assert!(text.contains("FunctionDecl <2:1, 2:39> main 'float4 ()'"), "{text}");
    let pp = run(
        &["-T", "vs_6_0", "-P", "-fspv-target-env=vulkan1.1", "-"],
        "v __SPIRV_MAJOR_VERSION__ __SPIRV_MINOR_VERSION__",
    );
    assert_eq!(String::from_utf8_lossy(&pp.stdout), "v 1 3\n");
}

#[test]
fn codegen_writes_disassembly_and_unknown_options_are_errors() {
    let out = run(&["-T", "ps_6_0", "-E", "main", "-spirv", "-"], "float4 main() : SV_Target { return 0; }");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("OpEntryPoint Fragment %main \"main\""));
    let out = run(&["-frobnicate", "-"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Unknown argument: '-frobnicate'"));
}

#[test]
fn command_line_errors_are_reported_as_dxc_reports_them() {
    let stderr = |args: &[&str]| {
        let out = run(args, "float4 main() : SV_Target { return 0; }");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // The command-line reader's errors.
    assert_eq!(
        stderr(&["-T", "ps_6_0", "-spirv", "-Fre", "r.bin", "-"]),
        "dxc failed : -Fre is not supported with -spirv\n"
    );
    assert_eq!(
        stderr(&["-T", "ps_6_6", "-spirv", "-", "-fvk-bind-sampler-heap", "1"]),
        "dxc failed : Argument to '-fvk-bind-sampler-heap' is missing.\n"
    );
    // The SPIR-V back end's: an error with dxc's note.
    let env = stderr(&["-T", "ps_6_0", "-spirv", "-fspv-target-env=vulkan1.1spirv1.3", "-"]);
    assert!(env.starts_with("error: unknown SPIR-V target environment 'vulkan1.1spirv1.3'\nnote: allowed options are:\n vulkan1.0\n"), "{env}");
    let pass = stderr(&["-T", "ps_6_0", "-spirv", "-Oconfig=--loop-unrol", "-"]);
    assert!(
        pass.starts_with("fatal error: failed to optimize SPIR-V: Unknown flag '--loop-unrol'."),
        "{pass}"
    );
}

#[test]
fn help_lists_the_options() {
    let out = run(&["-help"], "");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\n  -fspv-target-env=<value>\n"), "{text}");
}

#[test]
fn verify_compares_expected_comments() {
    let good = "float4 main() : SV_Target { return x; } // expected-error {{undeclared identifier 'x'}}\n";
    let out = run(&["-T", "ps_6_0", "-E", "main", "-verify", "-"], good);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty());

    let none = "// expected-no-diagnostics\nfloat4 main() : SV_Target { return 0; }\n";
    let out = run(&["-T", "ps_6_0", "-E", "main", "-verify", "-"], none);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let bad = "// expected-error@+2 {{something else}}\n\n\
               float4 main() : SV_Target { return x; }\n";
    let out = run(&["-T", "ps_6_0", "-E", "main", "-verify", "-"], bad);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "error: 'error' diagnostics expected but not seen: \n  File <stdin> Line 3: something else\n"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("error: 'error' diagnostics seen but not expected: \n  File <stdin> Line 3: use of undeclared identifier 'x'\n"), "{stderr}");
}

#[test]
fn stage_io_order_takes_decl_or_alpha() {
    let shader = "float4 main(float4 b : B, float4 a : A) : SV_Position { return a + b; }";
    for order in ["decl", "alpha"] {
        let flag = format!("-fvk-stage-io-order={order}");
        let out = run(&["-T", "vs_6_0", "-E", "main", &flag, "-fsyntax-only", "-"], shader);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out = run(&["-T", "vs_6_0", "-fvk-stage-io-order=random", "-fsyntax-only", "-"], shader);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown Vulkan stage I/O location assignment order: random"), "{stderr}");
}

#[test]
fn vulkan_memory_model_is_refused_rather_than_ignored() {
    // Writing the GLSL450 model instead would silently drop the option's effect.
    let out = run(
        &[
            "-T",
            "ps_6_0",
            "-E",
            "main",
            "-spirv",
            "-fspv-use-vulkan-memory-model",
            "-fspv-target-env=vulkan1.1",
            "-",
        ],
        "float4 main() : SV_Target { return 0; }",
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error: not supported yet: -fspv-use-vulkan-memory-model"), "{stderr}");
    assert!(out.stdout.is_empty());
}
