//! The `hlsl` rows of `cargo xtask bench`: front-end throughput (preprocess, parse, sema)
//! in lines per second, over DXC's SPIR-V tests and over a large generated shader,
//! in-process and as whole `hlsl2spirv -fsyntax-only` processes. No reference tool:
//! dxc is not installed here.

use anyhow::{bail, Context, Result};
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{mb, measure, ms, rel, time_process, Report, Settings, Stats, Table};
use spirvkit_hlsl::preprocessor::FsLoader;
use spirvkit_hlsl::FrontendOptions;

/// Functions (with a struct and a cbuffer every few) in the generated shader.
const FUNCTIONS: usize = 4000;

pub(super) fn bench(bench_dir: &Path, corpus: &Path, settings: &Settings, report: &mut Report) -> Result<()> {
    let root = crate::workspace_root();
    let binary = build(&root)?;
    let path = bench_dir.join("large.hlsl");
    let text = large_shader(FUNCTIONS);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&path, &text)?;
    }
    let large_lines = text.lines().count();
    let options = FrontendOptions::default();
    let check =
        spirvkit_hlsl::analyze_source("large.hlsl", Some(path.clone()), text.clone(), &options, &FsLoader);
    if check.diags.has_errors() {
        bail!("the generated shader has errors:\n{}", check.render_diagnostics());
    }
    report.line(format!(
        "## hlsl: front end (preprocess, parse, sema)\n\n`{}`: a generated shader, {FUNCTIONS} functions with \
         structs, cbuffers, loops and switches: {large_lines} lines, {}\n",
        rel(&path),
        mb(text.len())
    ));
    report.flush();

    let mut table = Table::new(&["in-process", "lines", "best", "median", "iters", "lines/s"]);
    let row = |table: &mut Table, name: &str, lines: usize, stats: Stats| {
        table.row(vec![
            name.into(),
            lines.to_string(),
            ms(stats.best),
            ms(stats.median),
            stats.iters.to_string(),
            lines_per_second(lines, stats.best),
        ]);
    };
    row(
        &mut table,
        "large: preprocess",
        large_lines,
        measure(settings, || {
            drop(black_box(spirvkit_hlsl::frontend::preprocess_only(
                "large.hlsl",
                None,
                text.clone(),
                &options,
                &FsLoader,
            )))
        }),
    );
    row(
        &mut table,
        "large: preprocess + parse",
        large_lines,
        measure(settings, || {
            drop(black_box(spirvkit_hlsl::parse_source(
                "large.hlsl",
                None,
                text.clone(),
                &options,
                &FsLoader,
            )))
        }),
    );
    row(
        &mut table,
        "large: preprocess + parse + sema",
        large_lines,
        measure(settings, || {
            drop(black_box(spirvkit_hlsl::analyze_source(
                "large.hlsl",
                None,
                text.clone(),
                &options,
                &FsLoader,
            )))
        }),
    );
    let files = corpus_files(corpus)?;
    if !files.is_empty() {
        let lines: usize = files.iter().map(|(_, t)| t.lines().count()).sum();
        let stats = measure(settings, || {
            for (p, t) in &files {
                let name = p.display().to_string();
                drop(black_box(spirvkit_hlsl::parse_source(
                    &name,
                    Some(p.clone()),
                    t.clone(),
                    &options,
                    &FsLoader,
                )));
            }
        });
        row(&mut table, &format!("corpus: {} files, preprocess + parse", files.len()), lines, stats);
        let stats = measure(settings, || {
            for (p, t) in &files {
                let name = p.display().to_string();
                drop(black_box(spirvkit_hlsl::analyze_source(
                    &name,
                    Some(p.clone()),
                    t.clone(),
                    &options,
                    &FsLoader,
                )));
            }
        });
        row(&mut table, &format!("corpus: {} files, preprocess + parse + sema", files.len()), lines, stats);
    }
    report.table(&table);

    let mut table = Table::new(&["whole-process", "lines", "best", "median", "runs", "lines/s"]);
    let args = [OsStr::new("-fsyntax-only"), OsStr::new("-T"), OsStr::new("lib_6_6"), path.as_os_str()];
    let mut times = Vec::new();
    for _ in 0..settings.process_runs {
        times.push(time_process(binary.as_os_str(), &args)?);
    }
    let stats = Stats::of(times);
    table.row(vec![
        "hlsl2spirv -fsyntax-only large.hlsl".into(),
        large_lines.to_string(),
        ms(stats.best),
        ms(stats.median),
        stats.iters.to_string(),
        lines_per_second(large_lines, stats.best),
    ]);
    if !files.is_empty() {
        // One process per corpus file (failures are fine: some tests need headers dxc ships).
        let lines: usize = files.iter().map(|(_, t)| t.lines().count()).sum();
        let start = std::time::Instant::now();
        for (p, _) in &files {
            let _ = Command::new(&binary)
                .args(["-fsyntax-only", "-T", "lib_6_6"])
                .arg(p)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
        let elapsed = start.elapsed();
        table.row(vec![
            format!("hlsl2spirv -fsyntax-only, each of {} corpus files", files.len()),
            lines.to_string(),
            ms(elapsed),
            ms(elapsed),
            "1".into(),
            lines_per_second(lines, elapsed),
        ]);
    }
    report.table(&table);
    Ok(())
}

fn lines_per_second(lines: usize, time: std::time::Duration) -> String {
    let secs = time.as_secs_f64();
    if secs <= 0.0 {
        return "-".into();
    }
    format!("{:.0}", lines as f64 / secs)
}

fn corpus_files(corpus: &Path) -> Result<Vec<(PathBuf, String)>> {
    if !corpus.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for p in crate::corpus::files_with_extension(corpus, "hlsl")? {
        let text = String::from_utf8_lossy(&std::fs::read(&p)?).into_owned();
        out.push((p, text));
    }
    Ok(out)
}

pub(super) fn build(root: &Path) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--quiet", "--package", "hlsl2spirv"])
        .current_dir(root)
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --release --package hlsl2spirv failed");
    }
    Ok(crate::built_binary("release", "hlsl2spirv"))
}

/// A deterministic shader mixing what real ones have: macros, structs, cbuffers,
/// resources with registers, functions with loops, switches and intrinsic calls.
pub(crate) fn large_shader(functions: usize) -> String {
    let mut s = String::from(
        "#define SCALE(x) ((x) * 0.5f)\n#define COUNT 4\n\
         Texture2D<float4> gTex : register(t0);\nSamplerState gSamp : register(s0);\n\
         RWStructuredBuffer<float4> gOut : register(u0, space1);\n",
    );
    for i in 0..functions {
        if i % 8 == 0 {
            let _ = write!(
                s,
                "struct S{i} {{\n    float4 pos : SV_Position;\n    float2 uv[2] : TEXCOORD0;\n    \
                 row_major float3x3 m;\n    float scale() {{ return pos.x * 2.0; }}\n}};\n\
                 cbuffer CB{i} : register(b{}) {{\n    float4x4 world{i} : packoffset(c0);\n    float bias{i};\n}};\n",
                i % 14
            );
        }
        let st = i - i % 8;
        let _ = write!(
            s,
            "[numthreads(8, 8, 1)]\nfloat4 f{i}(S{st} input, uint id : SV_DispatchThreadID, inout float acc) {{\n    \
             float4 color = gTex.SampleLevel(gSamp, input.uv[0], 0);\n    [unroll] for (int k = 0; k < COUNT; ++k) {{\n        \
             color.xyz += SCALE(input.m[k % 3]) * (float)k;\n        if (color.w > bias{st}) {{ break; }}\n    }}\n    \
             switch (id & 3u) {{\n    case 0: acc += dot(color, color); break;\n    default: acc -= 1.0f; break;\n    }}\n    \
             gOut[id] = mul(world{st}, color) + float4(acc, input.scale(), 0, 1);\n    \
             return color.wzyx * (acc > 0 ? 1.0 : -1.0);\n}}\n"
        );
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn generated_shader_parses_without_errors() {
        let text = super::large_shader(20);
        let fe = spirvkit_hlsl::analyze_source(
            "large.hlsl",
            None,
            text,
            &spirvkit_hlsl::FrontendOptions::default(),
            &spirvkit_hlsl::preprocessor::MemoryLoader::default(),
        );
        assert!(!fe.diags.has_errors(), "{}", fe.render_diagnostics());
    }
}
