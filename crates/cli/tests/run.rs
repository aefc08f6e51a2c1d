//! `spirvkit run` end to end: a tiny shader on Vulkan (lavapipe; skipped with a message
//! when there is no driver), argument errors before any device runs, and `--diff`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCALE_ADD: &str = include_str!("../../vkcompute/tests/data/scale_add.spvasm");
const RUNAWAY: &str = include_str!("../../vkcompute/tests/data/runaway.spvasm");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spirvkit-cli-run-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `spirvkit` with lavapipe as the only Vulkan driver when it is installed.
fn spirvkit(args: &[&str], dir: &Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_spirvkit"));
    command.args(args).current_dir(dir);
    if let Some(icd) = spirvkit_vkcompute::lavapipe_icd_path() {
        command.env("VK_DRIVER_FILES", &icd).env("VK_ICD_FILENAMES", &icd);
    }
    command.output().expect("spirvkit runs")
}

fn assemble(dir: &Path, name: &str, text: &str) -> String {
    std::fs::write(dir.join(format!("{name}.spvasm")), text).unwrap();
    let spv = format!("{name}.spv");
    let out = spirvkit(&["as", "--target-env", "vulkan1.0", &format!("{name}.spvasm"), "-o", &spv], dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    spv
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The run's `key=value` lines, or None (with a message) when Vulkan is missing here.
fn report_or_skip(out: &Output) -> Option<Vec<(String, String)>> {
    if !out.status.success() && stderr(out).contains("no Vulkan available") {
        eprintln!("skipping: {}", stderr(out));
        return None;
    }
    assert!(out.status.success(), "{}", stderr(out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    Some(
        text.lines()
            .map(|l| {
                let (k, v) = l.split_once('=').expect("key=value");
                (k.to_string(), v.to_string())
            })
            .collect(),
    )
}

fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn a_tiny_shader_runs_on_vulkan_with_push_spec_and_repeats() {
    let dir = scratch("vulkan");
    let spv = assemble(&dir, "scale_add", SCALE_ADD);
    let common = ["run", spv.as_str(), "--device", "vulkan", "--groups", "2,1,1", "--ubo", "0:u32=100"];
    let run = |extra: &[&str]| spirvkit(&[&common[..], extra].concat(), &dir);
    let out = run(&[
        "--buf",
        "1:u32:8:ramp",
        "--push",
        "u32=10",
        "--spec",
        "0=3",
        "--repeat",
        "3",
        "--dump",
        "1:a.bin",
    ]);
    let Some(report) = report_or_skip(&out) else { return };
    let keys: Vec<&str> = report.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["device", "compile_ms", "first_ms", "median_ms", "min_ms", "max_ms"]);
    assert_eq!(report[0].1, "vulkan");
    for (key, value) in &report[1..] {
        assert!(value.parse::<f64>().is_ok_and(|ms| ms >= 0.0), "{key}={value}");
    }
    // Three dispatches, each from the last: x -> 3x + 110.
    let expected: Vec<u32> = (0..8).map(|i| ((i * 3 + 110) * 3 + 110) * 3 + 110).collect();
    assert_eq!(u32s(&std::fs::read(dir.join("a.bin")).unwrap()), expected);
    // --fresh: every dispatch from the initial contents.
    let out = run(&[
        "--buf",
        "1:u32:8:ramp",
        "--push",
        "u32=10",
        "--spec",
        "0=3",
        "--repeat",
        "3",
        "--fresh",
        "--dump",
        "1:b.bin",
    ]);
    report_or_skip(&out).unwrap();
    assert_eq!(
        u32s(&std::fs::read(dir.join("b.bin")).unwrap()),
        (0..8).map(|i| i * 3 + 110).collect::<Vec<_>>()
    );
    // --diff: identical dumps match, different ones exit 1 naming the first difference.
    let same = spirvkit(&["run", "--diff", "b.bin", "b.bin", "--type", "u32"], &dir);
    assert!(same.status.success(), "{}", stderr(&same));
    let differ = spirvkit(&["run", "--diff", "a.bin", "b.bin", "--type", "u32"], &dir);
    assert_eq!(differ.status.code(), Some(1));
    let text = String::from_utf8_lossy(&differ.stdout);
    assert!(text.contains("8 u32 elements compared: 8 differ") && text.contains("[0] 1430 vs 110"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// y[i] = a * x[i] + y[i], with N and a in a uniform buffer.
const SAXPY_HLSL: &str = r#"
[[vk::binding(0, 0)]] cbuffer Params { uint N; float a; };
[[vk::binding(1, 0)]] StructuredBuffer<float> x;
[[vk::binding(2, 0)]] RWStructuredBuffer<float> y;
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    if (id.x < N)
        y[id.x] = a * x[id.x] + y[id.x];
}
"#;

#[test]
fn hlsl_input_is_compiled_with_hlsl2spirv_and_run() {
    let dir = scratch("hlsl");
    std::fs::write(dir.join("saxpy.hlsl"), SAXPY_HLSL).unwrap();
    let args = [
        "run",
        "saxpy.hlsl",
        "--device",
        "vulkan",
        "--groups",
        "2,1,1",
        "--ubo",
        "0:u32=100,f32=2",
        "--buf",
        "1:f32:128:ramp",
        "--buf",
        "2:f32:128:const:1",
        "--dump",
        "2:y.bin",
    ];
    let out = spirvkit(&args, &dir);
    if report_or_skip(&out).is_none() {
        return;
    }
    let y: Vec<f32> = std::fs::read(dir.join("y.bin"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let expected: Vec<f32> = (0..128).map(|i| if i < 100 { 2.0 * i as f32 + 1.0 } else { 1.0 }).collect();
    assert_eq!(y, expected);
    // A compile error is reported with hlsl2spirv's diagnostics.
    std::fs::write(dir.join("bad.hlsl"), "[numthreads(1,1,1)] void main() { undeclared = 1; }").unwrap();
    let out = spirvkit(&["run", "bad.hlsl", "--groups", "1,1,1", "--device", "vulkan"], &dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("bad.hlsl") && stderr(&out).contains("undeclared"), "{}", stderr(&out));
    let out =
        spirvkit(&["run", "saxpy.hlsl", "-T", "ps_6_0", "--groups", "1,1,1", "--device", "vulkan"], &dir);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_runaway_dispatch_is_stopped_by_the_time_limit() {
    let dir = scratch("runaway");
    let spv = assemble(&dir, "runaway", RUNAWAY);
    // lavapipe ends an invocation's loops after 65535 iterations: billions of them in all.
    let args = [
        spv.as_str(),
        "--device",
        "vulkan",
        "--groups",
        "65535,64,1",
        "--buf",
        "0:u32:2",
        "--time-limit",
        "0.5",
    ];
    let out = spirvkit(&[&["run"][..], &args].concat(), &dir);
    if stderr(&out).contains("no Vulkan available") {
        return eprintln!("skipping: {}", stderr(&out));
    }
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("time limit of 0.5 s exceeded"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn arguments_that_do_not_fit_the_shader_are_errors_naming_them() {
    let dir = scratch("errors");
    let spv = assemble(&dir, "scale_add", SCALE_ADD);
    let base = ["run", spv.as_str(), "--device", "vulkan", "--groups", "2,1,1"];
    let cases: &[(&[&str], &str)] = &[
        (&["--buf", "1:u32:8", "--ubo", "0:u32=1", "--push", "u32=1", "--buf", "7:u32:4"],
            "error: --buf 7:u32:4: the shader declares nothing at set 0 binding 7"),
        (&["--ubo", "0:u32=1", "--push", "u32=1"],
            "error: the shader declares a storage buffer at set 0 binding 1 (0 bytes + a runtime array of stride 4): give it with --buf 1:"),
        (&["--buf", "1:u32:8", "--buf", "0:u32:1", "--push", "u32=1"],
            "error: --buf 0:u32:1: the shader declares a uniform buffer at set 0 binding 0: give it with --ubuf or --ubo"),
        (&["--buf", "1:u32:8", "--ubo", "0:u32=1"],
            "error: the shader declares a push-constant block of 4 bytes: give it with --push"),
        (&["--buf", "1:u32:8", "--ubo", "0:u32=1", "--push", "u32=1", "--spec", "4=1"],
            "error: --spec 4=1: the shader has no spec constant 4 (it has: 0)"),
        (&["--buf", "1:u32:8", "--ubo", "0:u32=1", "--push", "u32=1", "--spec", "0=-1"],
            "error: --spec 0=-1: spec constant 0 is u32: `-1` is out of the range of u32"),
        (&["--buf", "1:f33:8"], "error: --buf 1:f33:8: unknown element type `f33`"),
        (&["--buf", "1:u32:8:ones"], "error: --buf 1:u32:8:ones: unknown INIT `ones`"),
        (&["--buf", "1:u32:8", "--ubo", "0:u32=1", "--push", "u32=1", "--entry", "other"],
            "error: no entry point `other` (the module has: main)"),
    ];
    for (extra, expected) in cases {
        let out = spirvkit(&[&base[..], extra].concat(), &dir);
        assert_eq!(out.status.code(), Some(1), "{extra:?}");
        assert!(stderr(&out).starts_with(expected), "{extra:?}:\n{}", stderr(&out));
    }
    let no_groups = spirvkit(&["run", spv.as_str(), "--buf", "1:u32:8"], &dir);
    assert!(stderr(&no_groups).contains("--groups X,Y,Z is required"), "{}", stderr(&no_groups));
    let not_spirv = spirvkit(&["run", "scale_add.spvasm", "--groups", "1,1,1"], &dir);
    assert!(stderr(&not_spirv).contains("is not a SPIR-V module"), "{}", stderr(&not_spirv));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn diff_compares_floats_within_the_relative_tolerance() {
    let dir = scratch("diff");
    let floats = |values: &[f32]| values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
    std::fs::write(dir.join("a.bin"), floats(&[1.0, 2.0, 3.0])).unwrap();
    std::fs::write(dir.join("b.bin"), floats(&[1.0, 2.001, 3.0])).unwrap();
    let diff =
        |rel: &str| spirvkit(&["run", "--diff", "a.bin", "b.bin", "--type", "f32", "--rel", rel], &dir);
    assert!(diff("1e-3").status.success());
    assert_eq!(diff("1e-4").status.code(), Some(1));
    let no_type = spirvkit(&["run", "--diff", "a.bin", "b.bin"], &dir);
    assert!(stderr(&no_type).contains("--diff needs --type T"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(not(feature = "cpu"))]
#[test]
fn without_the_cpu_feature_the_cpu_device_is_a_clear_error() {
    let dir = scratch("nocpu");
    let spv = assemble(&dir, "scale_add", SCALE_ADD);
    let out = spirvkit(
        &["run", &spv, "--groups", "1,1,1", "--buf", "1:u32:4", "--ubo", "0:u32=1", "--push", "u32=1"],
        &dir,
    );
    assert!(stderr(&out).contains("this spirvkit was built without the cpu device"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}
