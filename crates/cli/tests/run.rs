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

/// `images.comp` compiled by glslangValidator into `dir`, or None (with a message).
fn images_shader(dir: &Path) -> Option<String> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/images.comp");
    let spv = dir.join("images.spv");
    let Ok(out) = Command::new("glslangValidator").arg("-V").arg(&source).arg("-o").arg(&spv).output() else {
        eprintln!("skipping: glslangValidator is not installed");
        return None;
    };
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    Some("images.spv".into())
}

/// The image arguments of `images.comp` and the dumps of every image, as `DEVICE-N.bin`.
const IMAGE_ARGS: &[&str] = &[
    "--groups",
    "2,2,1",
    "--img",
    "0:rgba8:8x8:random:1",
    "--img",
    "1:rgba8_snorm:8x8",
    "--img",
    "2:Rgba16f:8x8",
    "--img",
    "3:r32ui:8x8:random:3",
    "--img",
    "4:rg32f:8x8x3:random:4",
    "--img",
    "5:r32i:8x8x2:ramp",
    "--img",
    "6:r32f:16:random:6",
];

fn run_images(device: &str, spv: &str, dir: &Path) -> Output {
    let dumps: Vec<String> = (0..7).map(|b| format!("{b}:{device}-{b}.bin")).collect();
    let mut args = vec!["run", spv, "--device", device];
    args.extend_from_slice(IMAGE_ARGS);
    for dump in &dumps {
        args.extend(["--dump", dump.as_str()]);
    }
    spirvkit(&args, dir)
}

#[cfg(feature = "cpu")]
#[test]
fn storage_images_run_on_the_cpu_and_match_vulkan() {
    let dir = scratch("images");
    let Some(spv) = images_shader(&dir) else { return };
    let out = run_images("cpu", &spv, &dir);
    assert!(out.status.success(), "{}", stderr(&out));
    let read = |device: &str, b: u32| std::fs::read(dir.join(format!("{device}-{b}.bin"))).unwrap();
    // What the CPU wrote, checked against the shader's meaning.
    let counts_before: Vec<u32> = {
        let mut state = 3u64;
        (0..64).map(|_| (spirvkit_run::init::splitmix64(&mut state) >> 32) as u32).collect()
    };
    let counts = u32s(&read("cpu", 3));
    for (i, (&after, &before)) in counts.iter().zip(&counts_before).enumerate() {
        assert_eq!(after, before.wrapping_mul(3).wrapping_add((i % 8) as u32), "counts texel {i}");
    }
    // Column 0 reads left of the image (zero): snorm of 2*0-1 is -127 in every component.
    let snorm = read("cpu", 1);
    for y in 0..8 {
        assert_eq!(&snorm[y * 32..y * 32 + 4], &[0x81; 4], "row {y}");
    }
    // imageSize(src).x in alpha: 8.0 as half is 0x4800; 70000 clamps to 65504 (0x7bff).
    let half = read("cpu", 2);
    assert_eq!(&half[6..8], &0x4800u16.to_le_bytes());
    let layers = read("cpu", 5);
    // Layer 0 texel 0: layer 1's texel 0 (ramp: 64) - 2 * 1000 + 8.
    assert_eq!(i32::from_le_bytes(layers[..4].try_into().unwrap()), 64 - 2000 + 8);
    // The same run on Vulkan gives the same bytes.
    let out = run_images("vulkan", &spv, &dir);
    if report_or_skip(&out).is_none() {
        return;
    }
    for b in 0..7 {
        assert_eq!(read("cpu", b), read("vulkan", b), "image at binding {b} differs between cpu and vulkan");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn image_arguments_that_do_not_fit_the_shader_are_errors_naming_them() {
    let dir = scratch("image-args");
    let Some(spv) = images_shader(&dir) else { return };
    let mut args = vec!["run", spv.as_str(), "--device", "vulkan"];
    args.extend_from_slice(IMAGE_ARGS);
    fn with<'a>(args: &[&'a str], (from, to): (&str, &'a str)) -> Vec<&'a str> {
        args.iter().map(|a| if *a == from { to } else { *a }).collect()
    }
    let out = spirvkit(&with(&args, ("0:rgba8:8x8:random:1", "0:r32f:8x8")), &dir);
    assert!(
        stderr(&out).contains("the shader declares a Rgba8 image at set 0 binding 0"),
        "{}",
        stderr(&out)
    );
    let out = spirvkit(&with(&args, ("0:rgba8:8x8:random:1", "0:rgba8:8x8x2")), &dir);
    assert!(stderr(&out).contains("is 2D: give 2 size(s)"), "{}", stderr(&out));
    let out = spirvkit(&with(&args, ("0:rgba8:8x8:random:1", "9:rgba8:8x8")), &dir);
    assert!(stderr(&out).contains("the shader declares nothing at set 0 binding 9"), "{}", stderr(&out));
    let missing: Vec<&str> =
        args.iter().copied().filter(|a| *a != "--img" && *a != "6:r32f:16:random:6").collect();
    let missing: Vec<&str> = {
        // Keep the other --img options: re-add the flag before each image value.
        let mut out = Vec::new();
        for a in missing {
            if a.contains(':') && a.starts_with(|c: char| c.is_ascii_digit()) {
                out.push("--img");
            }
            out.push(a);
        }
        out
    };
    let out = spirvkit(&missing, &dir);
    assert!(stderr(&out).contains("give it with --img 6:R32f:WxH"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

const TEXEL_BUFFERS_HLSL: &str = include_str!("data/texel_buffers.hlsl");

/// The arguments of `texel_buffers.hlsl` on DEVICE, dumping bindings 1 and 2.
fn texel_buffer_args(device: &str) -> Vec<String> {
    let args = "run texel_buffers.hlsl --groups 2,1,1 --img 0:rgba32f:16:random:1 --img 1:r32f:16 \
                --img 2:r32ui:16:ramp --img 3:rg32i:16:ramp";
    let mut args: Vec<String> = args.split_whitespace().map(String::from).collect();
    args.extend(["--device", device, "--dump"].map(String::from));
    args.push(format!("1:{device}-dst.bin"));
    args.push("--dump".into());
    args.push(format!("2:{device}-counts.bin"));
    args
}

#[cfg(feature = "cpu")]
#[test]
fn hlsl_texel_buffers_run_on_the_cpu_with_known_answers_and_match_vulkan() {
    let dir = scratch("texel-buffers");
    std::fs::write(dir.join("texel_buffers.hlsl"), TEXEL_BUFFERS_HLSL).unwrap();
    let run = |device: &str| {
        let args = texel_buffer_args(device);
        spirvkit(&args.iter().map(String::as_str).collect::<Vec<_>>(), &dir)
    };
    let out = run("cpu");
    assert!(out.status.success(), "{}", stderr(&out));
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    // counts (ramp) * 3 + GetDimensions of dst (16).
    let counts = u32s(&read("cpu-counts.bin"));
    assert_eq!(counts, (0..16).map(|i| i * 3 + 16).collect::<Vec<u32>>());
    // src is random:1 (f32 = (r >> 40) * 2^-24); pairs is a ramp, so p.x - p.y = -1.
    let mut state = 1u64;
    let src: Vec<f32> = (0..64)
        .map(|_| (spirvkit_run::init::splitmix64(&mut state) >> 40) as f32 / (1u64 << 24) as f32)
        .collect();
    let dst: Vec<f32> =
        read("cpu-dst.bin").chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    for (i, got) in dst.iter().enumerate() {
        let v = &src[i * 4..i * 4 + 4];
        let want = v[0] + 2.0 * v[1] + 3.0 * v[2] + 4.0 * v[3] - 1.0;
        assert!((got - want).abs() <= 1e-5, "dst[{i}] = {got}, want {want}");
    }
    let out = run("vulkan");
    if report_or_skip(&out).is_none() {
        return;
    }
    assert_eq!(read("cpu-dst.bin"), read("vulkan-dst.bin"));
    assert_eq!(read("cpu-counts.bin"), read("vulkan-counts.bin"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn texel_buffer_arguments_that_do_not_fit_are_errors_naming_them() {
    let dir = scratch("texel-buffer-args");
    std::fs::write(dir.join("texel_buffers.hlsl"), TEXEL_BUFFERS_HLSL).unwrap();
    let args = texel_buffer_args("vulkan");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let without: Vec<&str> = args.iter().copied().filter(|a| *a != "1:r32f:16").collect();
    let mut missing = without.clone();
    // Drop the "--img" left before the removed value.
    if let Some(i) = missing.windows(2).position(|w| w == ["--img", "--img"]) {
        missing.remove(i);
    }
    let out = spirvkit(&missing, &dir);
    assert!(
        stderr(&out).contains("storage texel buffer at set 0 binding 1: give it with --img 1:R32f:N"),
        "{}",
        stderr(&out)
    );
    let swapped: Vec<&str> = args.iter().map(|a| if *a == "1:r32f:16" { "1:r32f:4x4" } else { a }).collect();
    let out = spirvkit(&swapped, &dir);
    assert!(stderr(&out).contains("is texel buffer: give 1 size(s)"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "cpu")]
#[test]
fn hlsl_texture_load_reads_mip_levels_on_the_cpu_as_on_vulkan() {
    let dir = scratch("texture-load");
    std::fs::write(dir.join("texture_load.hlsl"), include_str!("data/texture_load.hlsl")).unwrap();
    let run = |device: &str| {
        let dump = format!("1:{device}.bin");
        let args = [
            "run",
            "texture_load.hlsl",
            "--groups",
            "1,1,1",
            "--img",
            "0:rgba32f:8x4/3:ramp",
            "--img",
            "1:rgba32f:8",
            "--dump",
            &dump,
            "--device",
            device,
        ];
        spirvkit(&args, &dir)
    };
    let out = run("cpu");
    assert!(out.status.success(), "{}", stderr(&out));
    let got: Vec<f32> = std::fs::read(dir.join("cpu.bin"))
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // The ramp fills level 0 (8x4 texels, 128 components), then level 1 (4x2), then 2.
    for (i, texel) in got.chunks_exact(4).enumerate() {
        let (x, y) = (i % 4, i / 4);
        for c in 0..4 {
            let level1 = if x < 4 && y < 2 { 128 + (y * 4 + x) * 4 + c } else { 0 };
            let level0 = (y * 8 + x) * 4 + c;
            let dims = [4.0, 2.0, 3.0, 0.0][c];
            assert_eq!(
                texel[c],
                level1 as f32 + level0 as f32 * 1000.0 + dims * 100000.0,
                "texel {i} component {c}"
            );
        }
    }
    // A level past the last, or levels on a storage texel buffer, are refused clearly.
    let out = spirvkit(
        &[
            "run",
            "texture_load.hlsl",
            "--groups",
            "1,1,1",
            "--img",
            "0:rgba32f:8x4/5",
            "--img",
            "1:rgba32f:8",
        ],
        &dir,
    );
    assert!(stderr(&out).contains("a 8x4 image has at most 4 levels"), "{}", stderr(&out));
    let out = spirvkit(
        &[
            "run",
            "texture_load.hlsl",
            "--groups",
            "1,1,1",
            "--img",
            "0:rgba32f:8x4",
            "--img",
            "1:rgba32f:8/2",
        ],
        &dir,
    );
    assert!(stderr(&out).contains("mip levels on a storage texel buffer"), "{}", stderr(&out));
    let out = run("vulkan");
    if report_or_skip(&out).is_none() {
        return;
    }
    assert_eq!(std::fs::read(dir.join("cpu.bin")).unwrap(), std::fs::read(dir.join("vulkan.bin")).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "cpu")]
#[test]
fn hlsl_sample_level_with_a_sampler_state_matches_vulkan_within_the_filtering_tolerance() {
    let dir = scratch("sample-level");
    std::fs::write(dir.join("sample_level.hlsl"), include_str!("data/sample_level.hlsl")).unwrap();
    let run = |device: &str, sampler: &str| {
        let dump = format!("2:{device}.bin");
        let args = [
            "run",
            "sample_level.hlsl",
            "--groups",
            "1,1,1",
            "--img",
            "0:rgba32f:4x4:random:5",
            "--sampler",
            sampler,
            "--img",
            "2:rgba32f:64",
            "--dump",
            &dump,
            "--device",
            device,
        ];
        spirvkit(&args, &dir)
    };
    let floats = |name: &str| -> Vec<f32> {
        std::fs::read(dir.join(name))
            .unwrap()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    for sampler in ["1:nearest:repeat", "1:linear:mirrored-repeat", "1:linear:clamp-to-border"] {
        let out = run("cpu", sampler);
        assert!(out.status.success(), "{}", stderr(&out));
        let out = run("vulkan", sampler);
        if report_or_skip(&out).is_none() {
            return;
        }
        let (cpu, vulkan) = (floats("cpu.bin"), floats("vulkan.bin"));
        for (i, (a, b)) in cpu.iter().zip(&vulkan).enumerate() {
            // Linear filtering may differ from lavapipe's in the last bits.
            assert!((a - b).abs() <= 1e-5, "{sampler}: component {i}: cpu {a}, vulkan {b}");
        }
    }
    // A sampler the run does not give is named.
    let out = spirvkit(
        &["run", "sample_level.hlsl", "--groups", "1,1,1", "--img", "0:rgba32f:4x4", "--img", "2:rgba32f:64"],
        &dir,
    );
    assert!(stderr(&out).contains("give it with --sampler 1:FILTER[:ADDRESS]"), "{}", stderr(&out));
    let out = run("cpu", "1:cubic");
    assert!(stderr(&out).contains("unknown filter `cubic`"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(&dir);
}
