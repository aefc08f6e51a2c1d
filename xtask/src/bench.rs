//! `cargo xtask bench [--corpus DIR] [--quick] [--only large|corpus|opt|hlsl|translate]`: throughput report.
//!
//! Measures reading, writing, disassembling and assembling, both in-process
//! (through `spirvkit-binary`) and as whole processes (`target/release/spirvkit`
//! against SPIRV-Tools' `spirv-dis` / `spirv-as`), on
//!
//! - a large generated module: a deterministic GLSL compute shader with a few
//!   thousand small functions, compiled by `glslangValidator -V` into
//!   `target/bench/large.spv` (cached; rebuilt when missing or when the generator
//!   changes), and its `spirv-dis` text `target/bench/large.spvasm`;
//! - every `.spv` file of the corpus (default `../shared/corpus/spv`), whose
//!   `spirv-dis` texts are cached in `target/bench/corpus-text/`.
//!
//! This is a report, not a test: nothing here asserts on timings. The table is
//! printed and also written to `target/bench/report.md`. Sizes are in MB (10^6
//! bytes); throughput is input bytes per second (binary bytes for reading,
//! writing and disassembling, text bytes for assembling).

use anyhow::{bail, Context, Result};
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use spirvkit_binary::{AsmOptions, DisOptions};

mod compile;
mod hlsl;
mod opt;
mod translate;

/// Number of functions in the generated shader; about 1.1 KB of SPIR-V each.
const LARGE_FUNCTIONS: usize = 5000;

struct Settings {
    /// In-process: at least this many timed iterations...
    min_iters: usize,
    /// ...and keep going until this much time has been spent (capped by `max_iters`).
    min_time: Duration,
    max_iters: usize,
    /// Whole-process runs of each command on the large module. Eleven, not seven:
    /// on the 2-vCPU guests this runs on, memory a process frees goes back to the
    /// host (free page reporting) and the next process to touch it faults it back,
    /// so runs of either tool come out 1.5-3x slow at random (a 31 ms
    /// deserialization taking 48-95 ms after an mlir-translate run), and seven runs
    /// sometimes held no clean one.
    process_runs: usize,
    /// Whole-process rounds over the whole corpus.
    corpus_rounds: usize,
}

impl Settings {
    fn new(quick: bool) -> Self {
        if quick {
            Settings {
                min_iters: 3,
                min_time: Duration::from_millis(300),
                max_iters: 20,
                process_runs: 2,
                corpus_rounds: 1,
            }
        } else {
            Settings {
                min_iters: 5,
                min_time: Duration::from_secs(2),
                max_iters: 200,
                process_runs: 11,
                corpus_rounds: 3,
            }
        }
    }
}

/// `cargo xtask bench-hlsl`: see [`compile`].
pub fn run_compile(args: &[String]) -> Result<()> {
    compile::run(args)
}

pub fn run(args: &[String]) -> Result<()> {
    let mut corpus: Option<PathBuf> = None;
    let mut quick = false;
    let mut only: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--quick" => quick = true,
            "--only" => {
                i += 1;
                let section = args.get(i).context("--only needs large, corpus, opt, hlsl or translate")?;
                if !["large", "corpus", "opt", "hlsl", "translate"].contains(&section.as_str()) {
                    bail!("bench: --only takes large, corpus, opt, hlsl or translate, not `{section}`");
                }
                only = Some(section.clone());
            }
            "--corpus" => {
                i += 1;
                corpus = Some(PathBuf::from(args.get(i).context("--corpus needs a directory")?));
            }
            other => {
                bail!("bench: unknown option `{other}` (usage: cargo xtask bench [--corpus DIR] [--quick] [--only large|corpus|opt|hlsl|translate])")
            }
        }
        i += 1;
    }
    let root = crate::workspace_root();
    let corpus = corpus.unwrap_or_else(|| root.join("../shared/corpus/spv"));
    let settings = Settings::new(quick);
    let bench_dir = crate::target_dir().join("bench");
    std::fs::create_dir_all(&bench_dir)?;

    let spirvkit = build_cli(&root)?;
    let tools = Tools::probe(&spirvkit, &bench_dir);
    let mut report = Report::default();
    report.line(format!("# spirvkit benchmark ({} mode)\n", if quick { "quick" } else { "full" }));
    report.line(format!("- spirvkit: `{}`", spirvkit.display()));
    report.line(format!("- spirv-dis: {}", tools.version("spirv-dis")));
    report.line(format!("- spirv-as: {}", tools.version("spirv-as")));
    report.line(format!("- glslangValidator: {}", tools.version("glslangValidator")));
    report.line(format!("- machine: {} cores, {}", available_cores(), uname()));
    if !tools.spirvkit_as {
        report.line(
            "- `spirvkit as`: assembler unavailable (the release binary has no working `as` subcommand)"
                .into(),
        );
    }
    report.line(String::new());
    report.line(format!(
        "Sizes in MB (10^6 bytes); MB/s = input bytes per second of the best run \
         (binary for read/write/dis, text for as). In-process: one warm-up run, then at least {} timed runs and {:.1} s per row. \
         Whole-process: best and median of {} runs (large module) / {} rounds (corpus); \
         ratio = reference time / spirvkit time (above 1: spirvkit is faster).\n",
        settings.min_iters,
        settings.min_time.as_secs_f64(),
        settings.process_runs,
        settings.corpus_rounds
    ));
    report.flush();

    let wanted = |section: &str| only.as_deref().is_none_or(|o| o == section);
    if wanted("large") {
        match prepare_large(&root, &bench_dir, &tools) {
            Ok(large) => bench_large(&large, &spirvkit, &tools, &settings, &mut report)?,
            Err(e) => {
                report.line(format!("## Large module\n\nskipped: {e:#}\n"));
                report.flush();
            }
        }
    }
    if !wanted("corpus") {
        // Skipped on request.
    } else if corpus.is_dir() {
        bench_corpus(&corpus, &bench_dir, &spirvkit, &tools, &settings, &mut report)?;
    } else {
        report.line(format!(
            "## Corpus\n\nskipped: corpus directory {} not found (pass --corpus DIR)\n",
            corpus.display()
        ));
        report.flush();
    }

    if !wanted("opt") {
        // Skipped on request.
    } else if let Err(e) = opt::bench(&bench_dir, &spirvkit, &settings, &mut report) {
        report.line(format!("## opt: parse + verify + print\n\nskipped: {e:#}\n"));
        report.flush();
    }

    if wanted("hlsl") {
        let hlsl_corpus = root.join("../shared/corpus/dxc-codegen-spirv");
        if let Err(e) = hlsl::bench(&bench_dir, &hlsl_corpus, &settings, &mut report) {
            report.line(format!("## hlsl: front end (preprocess, parse, sema)\n\nskipped: {e:#}\n"));
            report.flush();
        }
    }

    if wanted("translate") {
        if let Err(e) = translate::bench(&bench_dir, &corpus, &spirvkit, &settings, &mut report) {
            report.line(format!("## translate: deserialize and serialize\n\nskipped: {e:#}\n"));
            report.flush();
        }
    }

    let path = bench_dir.join("report.md");
    std::fs::write(&path, &report.text)?;
    println!("wrote {}", path.display());
    Ok(())
}

// ---------------------------------------------------------------------------
// Tools

fn build_cli(root: &Path) -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("bench: building the release `spirvkit` binary");
    let status = Command::new(cargo)
        .args(["build", "--release", "--quiet", "--package", "spirvkit-cli"])
        .current_dir(root)
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --release --package spirvkit-cli failed");
    }
    let exe = crate::built_binary("release", "spirvkit");
    if !exe.exists() {
        bail!("{} not found after building", exe.display());
    }
    Ok(exe)
}

struct Tools {
    spirv_dis: bool,
    spirv_as: bool,
    glslang: bool,
    /// Whether `spirvkit as` exists and assembles a trivial module.
    spirvkit_as: bool,
}

impl Tools {
    fn probe(spirvkit: &Path, bench_dir: &Path) -> Tools {
        let works = |program: &str| {
            Command::new(program)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map(|s| s.success())
                .unwrap_or(false)
        };
        let tiny = bench_dir.join("tiny.spvasm");
        let spirvkit_as = std::fs::write(&tiny, "OpCapability Shader\nOpMemoryModel Logical GLSL450\n")
            .is_ok()
            && Command::new(spirvkit)
                .arg("as")
                .arg(&tiny)
                .args(["-o", "/dev/null"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
        Tools {
            spirv_dis: works("spirv-dis"),
            spirv_as: works("spirv-as"),
            glslang: works("glslangValidator"),
            spirvkit_as,
        }
    }

    fn version(&self, program: &str) -> String {
        let present = match program {
            "spirv-dis" => self.spirv_dis,
            "spirv-as" => self.spirv_as,
            "glslangValidator" => self.glslang,
            _ => true,
        };
        if !present {
            return "not installed".into();
        }
        Command::new(program)
            .arg("--version")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.lines().next().map(|l| l.trim().to_string()))
            .unwrap_or_else(|| "unknown version".into())
    }
}

fn available_cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

fn uname() -> String {
    Command::new("uname")
        .args(["-srm"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown OS".into())
}

// ---------------------------------------------------------------------------
// The large module

struct Large {
    spv: PathBuf,
    text: PathBuf,
}

fn prepare_large(_root: &Path, bench_dir: &Path, tools: &Tools) -> Result<Large> {
    let source_path = bench_dir.join("large.comp");
    let spv = bench_dir.join("large.spv");
    let text = bench_dir.join("large.spvasm");
    let source = large_shader(LARGE_FUNCTIONS);
    let source_current = std::fs::read_to_string(&source_path).is_ok_and(|s| s == source);
    if !spv.exists() || !source_current {
        if !tools.glslang {
            bail!(
                "{} is missing and glslangValidator is not installed (Debian: glslang-tools)",
                spv.display()
            );
        }
        std::fs::write(&source_path, &source)?;
        let _ = std::fs::remove_file(&text);
        eprintln!(
            "bench: compiling {} ({LARGE_FUNCTIONS} functions) with glslangValidator",
            source_path.display()
        );
        let start = Instant::now();
        let tmp = bench_dir.join("large.spv.tmp");
        let output = Command::new("glslangValidator")
            .arg("-V")
            .arg(&source_path)
            .arg("-o")
            .arg(&tmp)
            .output()
            .context("running glslangValidator")?;
        if !output.status.success() {
            bail!(
                "glslangValidator failed on {}:\n{}",
                source_path.display(),
                String::from_utf8_lossy(&output.stdout)
            );
        }
        std::fs::rename(&tmp, &spv)?;
        eprintln!("bench: compiled in {:.1} s", start.elapsed().as_secs_f64());
    }
    if !text.exists() {
        let tmp = bench_dir.join("large.spvasm.tmp");
        if tools.spirv_dis {
            let status = Command::new("spirv-dis").arg(&spv).arg("-o").arg(&tmp).status()?;
            if !status.success() {
                bail!("spirv-dis failed on {}", spv.display());
            }
        } else {
            eprintln!("bench: spirv-dis not installed; using spirvkit's disassembly as the assembler input");
            let module = spirvkit_binary::read(&std::fs::read(&spv)?)
                .map_err(|e| anyhow::anyhow!("{}: {e}", spv.display()))?;
            std::fs::write(&tmp, spirvkit_binary::disassemble(&module, &DisOptions::default()))?;
        }
        std::fs::rename(&tmp, &text)?;
    }
    Ok(Large { spv, text })
}

/// A deterministic GLSL compute shader with `count` small functions: arithmetic on
/// vectors and matrices, loops, branches and switches. Every function is reachable
/// (glslang drops uncalled ones): each calls its predecessor, some call a further
/// one. Functions share state through private globals rather than parameters, and
/// every local has a name unique to its function: glslang gives every call argument
/// a temporary named `param`, and thousands of equal names make `spirv-dis`'s
/// friendly-name numbering quadratic (minutes for a module this size), which would
/// swamp everything else this benchmark measures.
fn large_shader(count: usize) -> String {
    let mut s = String::new();
    s.push_str(
        "#version 450\n\
         layout(local_size_x = 64) in;\n\
         layout(std430, binding = 0) buffer Data { vec4 v[]; } data;\n\
         layout(std430, binding = 1) buffer Out { float r[]; } outb;\n\
         layout(push_constant) uniform PC { uint count; float scale; } pc;\n\
         vec4 ga;\n\
         float gb;\n\
         float f0() { return dot(ga, vec4(gb)); }\n",
    );
    for i in 1..count {
        let _ = writeln!(s, "float f{i}() {{");
        let _ = writeln!(
            s,
            "  vec4 t{i} = ga * {:.4} + vec4(gb, {}.5, -gb, {i}.0);",
            1.0 + i as f64 * 0.001,
            i % 7
        );
        let _ = writeln!(s, "  ga = t{i}.yzwx; gb *= 0.5;");
        let _ = writeln!(s, "  float acc{i} = f{}();", i - 1);
        match i % 4 {
            0 => {
                let _ = writeln!(
                    s,
                    "  for (int j{i} = 0; j{i} < {}; ++j{i}) {{ acc{i} += sin(t{i}[j{i} & 3]) * float(j{i}); t{i} = t{i}.wxyz + vec4(acc{i}); }}",
                    i % 5 + 2
                );
            }
            1 => {
                let _ = writeln!(
                    s,
                    "  if (acc{i} > {}.25) {{ gb = acc{i}; acc{i} = sqrt(abs(acc{i})) + f{}(); }} else {{ acc{i} = clamp(acc{i}, -1.0, 1.0) * {i}.0; }}",
                    i % 13,
                    i.saturating_sub(3)
                );
            }
            2 => {
                let _ = writeln!(s, "  ivec2 q{i} = ivec2(t{i}.xy * 16.0) ^ ivec2({i}, {});", i * 3 % 101);
                let _ = writeln!(
                    s,
                    "  switch (q{i}.x & 3) {{ case 0: acc{i} += float(q{i}.y); break; case 1: acc{i} -= length(t{i}.xyz); break; default: acc{i} *= 0.75; }}"
                );
            }
            _ => {
                let _ = writeln!(s, "  mat2 m{i} = mat2(t{i}.x, t{i}.y, t{i}.z, t{i}.w);");
                let _ = writeln!(s, "  vec2 u{i} = m{i} * vec2(acc{i}, gb) + normalize(t{i}.zw + 1.0);");
                let _ = writeln!(
                    s,
                    "  int w{i} = 0; while (w{i} < {} && u{i}.x < {i}.0) {{ u{i} = u{i}.yx * 1.5 + 0.25; ++w{i}; }}",
                    i % 3 + 1
                );
                let _ = writeln!(s, "  acc{i} = u{i}.x - u{i}.y + mix(acc{i}, gb, 0.3);");
            }
        }
        let _ = writeln!(s, "  return acc{i};\n}}");
    }
    s.push_str(
        "void main() {\n  uint id = gl_GlobalInvocationID.x;\n  if (id >= pc.count) return;\n  \
         ga = data.v[id];\n  gb = pc.scale;\n  float s = 0.0;\n",
    );
    for i in (count.saturating_sub(7)..count).rev() {
        let _ = writeln!(s, "  s += f{i}();");
    }
    s.push_str("  outb.r[id] = s;\n}\n");
    s
}

fn bench_large(
    large: &Large,
    spirvkit: &Path,
    tools: &Tools,
    settings: &Settings,
    report: &mut Report,
) -> Result<()> {
    let bytes = std::fs::read(&large.spv)?;
    let text = std::fs::read_to_string(&large.text)?;
    let module =
        spirvkit_binary::read(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", large.spv.display()))?;
    report.line(format!(
        "## Large module\n\n`{}`: {} binary ({} instructions), `{}`: {} text\n",
        rel(&large.spv),
        mb(bytes.len()),
        module.instruction_count(),
        rel(&large.text),
        mb(text.len())
    ));
    report.flush();

    let mut table = Table::new(&["in-process", "input", "best", "median", "iters", "MB/s"]);
    let n = bytes.len();
    let row = |table: &mut Table, name: &str, size: usize, stats: Stats| {
        table.row(vec![
            name.into(),
            mb(size),
            ms(stats.best),
            ms(stats.median),
            stats.iters.to_string(),
            rate(size, stats.best),
        ]);
    };
    row(
        &mut table,
        "read",
        n,
        measure(settings, || drop(black_box(spirvkit_binary::read(black_box(&bytes))))),
    );
    row(
        &mut table,
        "write",
        n,
        measure(settings, || drop(black_box(spirvkit_binary::write(black_box(&module))))),
    );
    row(
        &mut table,
        "read+write",
        n,
        measure(settings, || {
            let m = spirvkit_binary::read(black_box(&bytes)).expect("read succeeded before");
            drop(black_box(spirvkit_binary::write(&m)));
        }),
    );
    let dis = |raw_ids: bool| {
        let options = DisOptions { raw_ids, ..DisOptions::default() };
        measure(settings, || {
            let m = spirvkit_binary::read(black_box(&bytes)).expect("read succeeded before");
            drop(black_box(spirvkit_binary::disassemble(&m, &options)));
        })
    };
    row(&mut table, "dis (read+disassemble)", n, dis(false));
    row(&mut table, "dis --raw-id", n, dis(true));
    match spirvkit_binary::assemble(&text, &AsmOptions::default()) {
        Ok(_) => row(
            &mut table,
            "as (text -> words)",
            text.len(),
            measure(settings, || {
                drop(black_box(spirvkit_binary::assemble(black_box(&text), &AsmOptions::default())))
            }),
        ),
        Err(e) => table.note_row("as (text -> words)", &format!("assembler error: {e}")),
    }
    report.table(&table);

    let mut table = Table::new(&[
        "whole-process",
        "spirvkit best",
        "spirvkit median",
        "reference best",
        "reference median",
        "ratio ref/spirvkit",
    ]);
    let spv = [large.spv.as_path()];
    let txt = [large.text.as_path()];
    for case in ProcessCase::all(tools, &spv, &txt) {
        if !case.ours_ok {
            table.note_row(case.name, "assembler unavailable");
            continue;
        }
        let input = case.inputs[0];
        let mut times_ours = Vec::new();
        let mut times_ref = Vec::new();
        let mut failed = None;
        for run in 0..settings.process_runs {
            // Alternate which tool goes first, so neither always profits from a warm cache.
            let order = if run % 2 == 0 { [true, false] } else { [false, true] };
            for ours_first in order {
                if ours_first {
                    match case.time_ours(spirvkit, input) {
                        Ok(t) => times_ours.push(t),
                        Err(e) => failed = Some(format!("spirvkit {}: {e}", case.name)),
                    }
                } else if case.theirs_ok {
                    match case.time_theirs(input) {
                        Ok(t) => times_ref.push(t),
                        Err(e) => failed = Some(format!("{}: {e}", case.reference)),
                    }
                }
            }
            if failed.is_some() {
                break;
            }
        }
        if let Some(message) = failed {
            table.note_row(case.name, &message);
            continue;
        }
        let theirs = case.theirs_ok.then(|| Stats::of(times_ref));
        table.row(comparison_row(case.name, Stats::of(times_ours), theirs, case.reference));
    }
    report.table(&table);
    Ok(())
}

/// A whole-process table row: our times, the reference's (`None`: not installed),
/// and the ratio.
fn comparison_row(name: &str, ours: Stats, theirs: Option<Stats>, reference: &str) -> Vec<String> {
    let mut cells = vec![name.to_string(), ms(ours.best), ms(ours.median)];
    match theirs {
        Some(theirs) => cells.extend([ms(theirs.best), ms(theirs.median), ratio(theirs.best, ours.best)]),
        None => cells.extend([format!("{reference} not installed"), String::new(), String::new()]),
    }
    cells
}

// ---------------------------------------------------------------------------
// The corpus

struct CorpusFile {
    path: PathBuf,
    bytes: Vec<u8>,
    /// `spirv-dis` text (cached under target/bench/corpus-text), if it could be made.
    text_path: Option<PathBuf>,
}

fn bench_corpus(
    corpus: &Path,
    bench_dir: &Path,
    spirvkit: &Path,
    tools: &Tools,
    settings: &Settings,
    report: &mut Report,
) -> Result<()> {
    // A missing or unreadable corpus is reported as skipped below.
    let paths = crate::corpus::files_with_extension(corpus, "spv").unwrap_or_default();
    if paths.is_empty() {
        report.line(format!("## Corpus\n\nskipped: no .spv files under {}\n", corpus.display()));
        report.flush();
        return Ok(());
    }
    let text_dir = bench_dir.join("corpus-text");
    std::fs::create_dir_all(&text_dir)?;
    let mut files = Vec::new();
    let mut dis_rejected = 0;
    for path in paths {
        let bytes = std::fs::read(&path)?;
        let relative = path.strip_prefix(corpus).unwrap_or(&path);
        let flat = relative.to_string_lossy().replace(['/', '\\'], "__");
        let text_path = text_dir.join(format!("{flat}asm"));
        if !text_path.exists() {
            let tmp = text_dir.join(format!("{flat}asm.tmp"));
            let made = if tools.spirv_dis {
                Command::new("spirv-dis")
                    .arg(&path)
                    .arg("-o")
                    .arg(&tmp)
                    .stderr(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success())
            } else {
                match spirvkit_binary::read(&bytes) {
                    Ok(m) => {
                        std::fs::write(&tmp, spirvkit_binary::disassemble(&m, &DisOptions::default())).is_ok()
                    }
                    Err(_) => false,
                }
            };
            if made {
                std::fs::rename(&tmp, &text_path)?;
            } else {
                let _ = std::fs::remove_file(&tmp);
            }
        }
        let text_path = text_path.exists().then_some(text_path);
        if text_path.is_none() {
            dis_rejected += 1;
        }
        files.push(CorpusFile { path, bytes, text_path });
    }
    let total_bytes: usize = files.iter().map(|f| f.bytes.len()).sum();
    let texts: Vec<(usize, String)> = files
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            f.text_path.as_ref().and_then(|p| std::fs::read_to_string(p).ok()).map(|t| (i, t))
        })
        .collect();
    report.line(format!(
        "## Corpus\n\n`{}`: {} files, {} binary; {} texts ({}) from {}{}\n",
        corpus.display(),
        files.len(),
        mb(total_bytes),
        texts.len(),
        mb(texts.iter().map(|(_, t)| t.len()).sum()),
        if tools.spirv_dis { "spirv-dis" } else { "spirvkit dis" },
        if dis_rejected > 0 {
            format!(" ({dis_rejected} files rejected by the disassembler)")
        } else {
            String::new()
        }
    ));
    report.flush();

    // In-process: every file the reader accepts.
    let readable: Vec<(&[u8], spirvkit_binary::Module)> = files
        .iter()
        .filter_map(|f| spirvkit_binary::read(&f.bytes).ok().map(|m| (f.bytes.as_slice(), m)))
        .collect();
    let readable_bytes: usize = readable.iter().map(|(b, _)| b.len()).sum();
    let mut table = Table::new(&["in-process", "input", "best", "median", "iters", "MB/s"]);
    let row = |table: &mut Table, name: &str, size: usize, stats: Stats| {
        table.row(vec![
            name.into(),
            mb(size),
            ms(stats.best),
            ms(stats.median),
            stats.iters.to_string(),
            rate(size, stats.best),
        ]);
    };
    if readable.len() < files.len() {
        report.line(format!(
            "spirvkit's reader rejects {} of {} files; in-process rows use the rest.\n",
            files.len() - readable.len(),
            files.len()
        ));
    }
    row(
        &mut table,
        "read",
        readable_bytes,
        measure(settings, || {
            for (b, _) in &readable {
                drop(black_box(spirvkit_binary::read(black_box(b))));
            }
        }),
    );
    row(
        &mut table,
        "write",
        readable_bytes,
        measure(settings, || {
            for (_, m) in &readable {
                drop(black_box(spirvkit_binary::write(black_box(m))));
            }
        }),
    );
    row(
        &mut table,
        "read+write",
        readable_bytes,
        measure(settings, || {
            for (b, _) in &readable {
                let m = spirvkit_binary::read(black_box(b)).expect("read succeeded before");
                drop(black_box(spirvkit_binary::write(&m)));
            }
        }),
    );
    for (name, raw_ids) in [("dis (read+disassemble)", false), ("dis --raw-id", true)] {
        let options = DisOptions { raw_ids, ..DisOptions::default() };
        row(
            &mut table,
            name,
            readable_bytes,
            measure(settings, || {
                for (b, _) in &readable {
                    let m = spirvkit_binary::read(black_box(b)).expect("read succeeded before");
                    drop(black_box(spirvkit_binary::disassemble(&m, &options)));
                }
            }),
        );
    }
    let options = AsmOptions::default();
    let assemblable: Vec<&str> = texts
        .iter()
        .filter(|(_, t)| spirvkit_binary::assemble(t, &options).is_ok())
        .map(|(_, t)| t.as_str())
        .collect();
    if assemblable.is_empty() {
        table.note_row("as (text -> words)", "assembler rejects every text");
    } else {
        let size = assemblable.iter().map(|t| t.len()).sum();
        let name = if assemblable.len() < texts.len() {
            format!(
                "as (text -> words; {} of {} texts rejected)",
                texts.len() - assemblable.len(),
                texts.len()
            )
        } else {
            "as (text -> words)".to_string()
        };
        row(
            &mut table,
            &name,
            size,
            measure(settings, || {
                for t in &assemblable {
                    drop(black_box(spirvkit_binary::assemble(black_box(t), &options)));
                }
            }),
        );
    }
    report.table(&table);

    // Whole-process: total wall time over every file both tools accept.
    let mut table = Table::new(&[
        "whole-process (total over files)",
        "files",
        "spirvkit best",
        "spirvkit median",
        "reference best",
        "reference median",
        "ratio ref/spirvkit",
    ]);
    let spv_paths: Vec<&Path> = files.iter().map(|f| f.path.as_path()).collect();
    let text_paths: Vec<&Path> = files.iter().filter_map(|f| f.text_path.as_deref()).collect();
    for case in ProcessCase::all(tools, &spv_paths, &text_paths) {
        let (name, inputs, reference, theirs_ok) = (case.name, case.inputs, case.reference, case.theirs_ok);
        if !case.ours_ok {
            table.note_row(name, "assembler unavailable");
            continue;
        }
        // A first pass finds the files each tool accepts (and warms the page cache).
        let mut accepted = Vec::new();
        let (mut ours_rejected, mut theirs_rejected) = (0, 0);
        for &input in inputs {
            let a = case.time_ours(spirvkit, input).is_ok();
            let b = !theirs_ok || case.time_theirs(input).is_ok();
            ours_rejected += usize::from(!a);
            theirs_rejected += usize::from(!b);
            if a && b {
                accepted.push(input);
            }
        }
        let mut totals_ours = Vec::new();
        let mut totals_ref = Vec::new();
        for round in 0..settings.corpus_rounds {
            let order = if round % 2 == 0 { [true, false] } else { [false, true] };
            for ours_first in order {
                if ours_first {
                    totals_ours.push(
                        accepted
                            .iter()
                            .map(|&p| case.time_ours(spirvkit, p).unwrap_or_default())
                            .sum::<Duration>(),
                    );
                } else if theirs_ok {
                    totals_ref.push(
                        accepted.iter().map(|&p| case.time_theirs(p).unwrap_or_default()).sum::<Duration>(),
                    );
                }
            }
        }
        let mut files_cell = format!("{} of {}", accepted.len(), inputs.len());
        if ours_rejected > 0 {
            let _ = write!(files_cell, "; spirvkit rejects {ours_rejected}");
        }
        if theirs_rejected > 0 {
            let _ = write!(files_cell, "; {reference} rejects {theirs_rejected}");
        }
        let theirs = theirs_ok.then(|| Stats::of(totals_ref));
        let mut cells = comparison_row(name, Stats::of(totals_ours), theirs, reference);
        cells.insert(1, files_cell);
        table.row(cells);
    }
    report.table(&table);
    Ok(())
}

// ---------------------------------------------------------------------------
// Whole-process comparisons

/// One whole-process comparison: `spirvkit SUBCOMMAND FLAGS INPUT -o /dev/null`
/// against `REFERENCE FLAGS INPUT -o /dev/null`, over some inputs.
struct ProcessCase<'a> {
    name: &'static str,
    subcommand: &'static str,
    flags: &'static [&'static str],
    reference: &'static str,
    inputs: &'a [&'a Path],
    /// Whether spirvkit can run this case at all (`as` needs the assembler).
    ours_ok: bool,
    /// Whether the reference tool is installed.
    theirs_ok: bool,
}

impl<'a> ProcessCase<'a> {
    /// dis, dis --raw-id (on binaries) and as (on texts).
    fn all(tools: &Tools, binaries: &'a [&'a Path], texts: &'a [&'a Path]) -> [ProcessCase<'a>; 3] {
        let dis = |name, flags| ProcessCase {
            name,
            subcommand: "dis",
            flags,
            reference: "spirv-dis",
            inputs: binaries,
            ours_ok: true,
            theirs_ok: tools.spirv_dis,
        };
        [
            dis("dis", &[]),
            dis("dis --raw-id", &["--raw-id"]),
            ProcessCase {
                name: "as",
                subcommand: "as",
                flags: &[],
                reference: "spirv-as",
                inputs: texts,
                ours_ok: tools.spirvkit_as,
                theirs_ok: tools.spirv_as,
            },
        ]
    }

    fn time_ours(&self, spirvkit: &Path, input: &Path) -> Result<Duration> {
        let mut args: Vec<&OsStr> = vec![OsStr::new(self.subcommand)];
        args.extend(self.flags.iter().map(OsStr::new));
        args.extend([input.as_os_str(), OsStr::new("-o"), OsStr::new("/dev/null")]);
        time_process(spirvkit.as_os_str(), &args)
    }

    fn time_theirs(&self, input: &Path) -> Result<Duration> {
        let mut args: Vec<&OsStr> = self.flags.iter().map(OsStr::new).collect();
        args.extend([input.as_os_str(), OsStr::new("-o"), OsStr::new("/dev/null")]);
        time_process(OsStr::new(self.reference), &args)
    }
}

// ---------------------------------------------------------------------------
// Timing

#[derive(Clone, Copy, Debug)]
struct Stats {
    best: Duration,
    median: Duration,
    iters: usize,
}

impl Stats {
    fn of(mut times: Vec<Duration>) -> Stats {
        times.sort();
        let iters = times.len();
        Stats {
            best: times.first().copied().unwrap_or_default(),
            median: times.get(iters / 2).copied().unwrap_or_default(),
            iters,
        }
    }
}

/// Times `f` repeatedly: one untimed warm-up run, then at least
/// `min_iters` runs and until `min_time` has passed, at most `max_iters`.
fn measure(settings: &Settings, mut f: impl FnMut()) -> Stats {
    f();
    let start = Instant::now();
    let mut times = Vec::new();
    while times.len() < settings.max_iters
        && (times.len() < settings.min_iters || start.elapsed() < settings.min_time)
    {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    Stats::of(times)
}

/// Wall time of one run of a program, output discarded; an error if it fails.
fn time_process(program: &OsStr, args: &[&OsStr]) -> Result<Duration> {
    let start = Instant::now();
    let status = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("running {}", program.to_string_lossy()))?;
    let elapsed = start.elapsed();
    if !status.success() {
        bail!("exit status {status}");
    }
    Ok(elapsed)
}

// ---------------------------------------------------------------------------
// Formatting

fn mb(bytes: usize) -> String {
    format!("{:.2} MB", bytes as f64 / 1e6)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn rate(bytes: usize, d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs <= 0.0 {
        return "-".into();
    }
    format!("{:.1}", bytes as f64 / 1e6 / secs)
}

fn ratio(reference: Duration, ours: Duration) -> String {
    if ours.is_zero() {
        return "-".into();
    }
    format!("{:.2}x", reference.as_secs_f64() / ours.as_secs_f64())
}

fn rel(path: &Path) -> String {
    let root = crate::workspace_root();
    path.strip_prefix(&root).unwrap_or(path).display().to_string()
}

struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn new(header: &[&str]) -> Table {
        Table { header: header.iter().map(|s| s.to_string()).collect(), rows: Vec::new() }
    }

    fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// A row with a name and one message instead of numbers.
    fn note_row(&mut self, name: &str, message: &str) {
        let mut cells = vec![name.to_string(), message.to_string()];
        cells.resize(self.header.len(), String::new());
        self.rows.push(cells);
    }

    fn widths(&self) -> Vec<usize> {
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.len()).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.len());
            }
        }
        widths
    }

    fn plain(&self) -> String {
        let widths = self.widths();
        let mut out = String::new();
        let line = |out: &mut String, cells: &[String]| {
            let mut l = String::new();
            for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
                if i == 0 {
                    let _ = write!(l, "{cell:<w$}");
                } else {
                    let _ = write!(l, "  {cell:>w$}");
                }
            }
            let _ = writeln!(out, "{}", l.trim_end());
        };
        line(&mut out, &self.header);
        let _ = writeln!(out, "{}", "-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1)));
        for row in &self.rows {
            line(&mut out, row);
        }
        out
    }

    fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "| {} |", self.header.join(" | "));
        let seps: Vec<&str> = (0..self.header.len()).map(|i| if i == 0 { "---" } else { "---:" }).collect();
        let _ = writeln!(out, "| {} |", seps.join(" | "));
        for row in &self.rows {
            let _ = writeln!(out, "| {} |", row.join(" | "));
        }
        out
    }
}

/// Accumulates report.md and prints its text to standard output as it goes.
#[derive(Default)]
struct Report {
    text: String,
    printed: usize,
}

impl Report {
    fn line(&mut self, line: String) {
        self.text.push_str(&line);
        self.text.push('\n');
    }

    fn table(&mut self, table: &Table) {
        self.flush();
        print!("{}", table.plain());
        println!();
        self.text.push_str(&table.markdown());
        self.text.push('\n');
        self.printed = self.text.len();
    }

    /// Prints what was added since the last print (prose as is; tables are
    /// printed aligned by `table`).
    fn flush(&mut self) {
        print!("{}", &self.text[self.printed..]);
        use std::io::Write;
        let _ = std::io::stdout().flush();
        self.printed = self.text.len();
    }
}
