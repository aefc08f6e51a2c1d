//! The `spirvkit translate` rows of `cargo xtask bench` (`--only translate`): SPIR-V
//! binary -> IR (deserialize) and IR -> binary (serialize) throughput, in process and
//! as whole processes next to `mlir-translate-22` doing the same, on
//!
//! - the corpus's largest `.spv` files;
//! - a large module: the opt benchmark's generated SPIR-V dialect text (its VCE raised to
//!   what it uses) serialized by `mlir-translate-22` into `target/bench/translate-large.spv`
//!   (cached next to its text; rebuilt when either is missing or the generator changes).
//!
//! Serializing starts from MLIR text: the generated text, or for corpus files
//! `mlir-translate-22 --deserialize-spirv`'s output (so both tools get the same input,
//! whichever deserializer works). In process, serializing is timed on the IR parsed
//! from that text; deserializing on the binary. MB/s are binary bytes per second for
//! both directions.

use anyhow::{bail, Context, Result};
use std::ffi::OsStr;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{comparison_row, mb, measure, ms, rate, rel, time_process, Report, Settings, Stats, Table};
use spirvkit_translate::{DeserializeOptions, Ir, SerializeOptions};

const REFERENCE: &str = "mlir-translate-22";
/// Corpus files measured: the largest ones.
const CORPUS_FILES: usize = 5;
/// Functions in the generated module (the opt benchmark's generator).
const LARGE_FUNCTIONS: usize = 5000;

/// One measured input: a binary and MLIR text of the same module.
struct Input {
    label: String,
    spv: PathBuf,
    bytes: Vec<u8>,
    /// MLIR text of one `spirv.module` (for serializing), if it could be made.
    text: Option<PathBuf>,
}

pub(super) fn bench(
    bench_dir: &Path,
    corpus: &Path,
    spirvkit: &Path,
    settings: &Settings,
    report: &mut Report,
) -> Result<()> {
    let reference_ok = Command::new(REFERENCE).arg("--version").output().is_ok_and(|o| o.status.success());
    if !reference_ok {
        bail!("{REFERENCE} not installed: it makes the large module and the inputs' texts");
    }
    let dir = bench_dir.join("translate");
    std::fs::create_dir_all(&dir)?;
    let mut inputs = Vec::new();
    let mut notes = Vec::new();
    match large_input(bench_dir) {
        Ok(input) => inputs.push(input),
        Err(e) => notes.push(format!("large module skipped: {e:#}")),
    }
    let mut corpus_files = crate::corpus::files_with_extension(corpus, "spv").unwrap_or_default();
    if corpus_files.is_empty() {
        notes.push(format!("corpus skipped: no .spv files under {}", corpus.display()));
    }
    corpus_files.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map_or(0, |m| m.len())));
    for path in corpus_files.into_iter().take(CORPUS_FILES) {
        let bytes = std::fs::read(&path)?;
        let label = crate::corpus::display_path(corpus, &path);
        let text_path = dir.join(format!("{}.mlir", label.replace('/', "__")));
        let text = match Command::new(REFERENCE).arg("--deserialize-spirv").arg(&path).output() {
            Ok(out) if out.status.success() => {
                std::fs::write(&text_path, &out.stdout)?;
                Some(text_path)
            }
            Ok(out) => match own_text(&bytes) {
                Some(text) => {
                    notes.push(format!(
                        "{label}: {REFERENCE} --deserialize-spirv fails ({}); serializing spirvkit's deserialization",
                        first_line(&out.stderr)
                    ));
                    std::fs::write(&text_path, text)?;
                    Some(text_path)
                }
                None => {
                    notes.push(format!(
                        "{label}: {REFERENCE} --deserialize-spirv fails ({}) and so does spirvkit's: no text to serialize",
                        first_line(&out.stderr)
                    ));
                    None
                }
            },
            Err(e) => bail!("running {REFERENCE}: {e}"),
        };
        inputs.push(Input { label, spv: path, bytes, text });
    }
    report.line(format!(
        "## translate: deserialize and serialize\n\n{} inputs: the generated module (`{}` functions, serialized by \
         {REFERENCE}) and the corpus's {CORPUS_FILES} largest files. MB/s = binary bytes per second of the best run \
         (both directions). Serializing starts from MLIR text ({REFERENCE}'s deserialization for corpus files).\n",
        inputs.len(),
        LARGE_FUNCTIONS
    ));
    for note in &notes {
        report.line(format!("- {note}"));
    }
    if !notes.is_empty() {
        report.line(String::new());
    }
    report.flush();

    let mut table = Table::new(&["in-process", "input", "best", "median", "iters", "MB/s"]);
    for input in &inputs {
        in_process_rows(&mut table, input, settings);
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
    for input in &inputs {
        let name = format!("deserialize {} ({})", input.label, mb(input.bytes.len()));
        let flags = ["--deserialize-spirv"];
        process_row(&mut table, &name, spirvkit, &flags, &input.spv, settings);
        match &input.text {
            Some(text) => {
                let name = format!("serialize {}", input.label);
                let flags = ["--no-implicit-module", "--serialize-spirv"];
                process_row(&mut table, &name, spirvkit, &flags, text, settings);
            }
            None => table.note_row(&format!("serialize {}", input.label), "no MLIR text (see above)"),
        }
    }
    report.table(&table);
    Ok(())
}

/// In-process deserialize (bytes -> IR) and serialize (IR parsed from the text -> words).
fn in_process_rows(table: &mut Table, input: &Input, settings: &Settings) {
    let size = input.bytes.len();
    let row = |table: &mut Table, name: String, size: usize, stats: Stats| {
        table.row(vec![
            name,
            mb(size),
            ms(stats.best),
            ms(stats.median),
            stats.iters.to_string(),
            rate(size, stats.best),
        ]);
    };
    let options = DeserializeOptions::default();
    let name = format!("deserialize {}", input.label);
    match spirvkit_translate::deserialize(&input.bytes, &mut Ir::new(), &options) {
        Ok(_) => row(
            table,
            name,
            size,
            measure(settings, || {
                let mut ir = Ir::new();
                drop(black_box(spirvkit_translate::deserialize(black_box(&input.bytes), &mut ir, &options)));
            }),
        ),
        Err(e) => table.note_row(&name, &clip(&format!("spirvkit: {e}"))),
    }
    let name = format!("serialize {}", input.label);
    let Some(text_path) = &input.text else {
        table.note_row(&name, "no MLIR text");
        return;
    };
    let Ok(text) = std::fs::read_to_string(text_path) else {
        table.note_row(&name, "cannot read the MLIR text");
        return;
    };
    let (ir, top) = match spirvkit_ir::parse(&text, "input.mlir") {
        Ok(parsed) => parsed,
        Err(e) => {
            table.note_row(&name, &format!("spirvkit cannot parse the text: {e:?}"));
            return;
        }
    };
    let module = ir
        .op(top)
        .regions
        .first()
        .and_then(|&r| ir.region(r).blocks.first())
        .and_then(|&b| ir.block(b).ops.first().copied())
        .filter(|&op| ir.op(op).name == "spirv.module");
    let Some(module) = module else {
        table.note_row(&name, "the text holds no spirv.module");
        return;
    };
    // As `spirvkit translate` (and mlir-translate) run it: no VCE requirement check.
    let options = SerializeOptions { check_requirements: false, ..SerializeOptions::default() };
    match spirvkit_translate::serialize(&ir, module, &options) {
        Ok(words) => row(
            table,
            name,
            words.len() * 4,
            measure(settings, || {
                drop(black_box(spirvkit_translate::serialize(black_box(&ir), module, &options)))
            }),
        ),
        Err(e) => table.note_row(&name, &clip(&format!("spirvkit: {e}"))),
    }
}

/// A note short enough for a table cell.
fn clip(message: &str) -> String {
    const MAX: usize = 80;
    if message.chars().count() <= MAX {
        message.to_string()
    } else {
        format!("{}…", message.chars().take(MAX).collect::<String>())
    }
}

/// `spirvkit translate FLAGS INPUT` against `mlir-translate-22 FLAGS INPUT`, best of N.
fn process_row(
    table: &mut Table,
    name: &str,
    spirvkit: &Path,
    flags: &[&str],
    input: &Path,
    settings: &Settings,
) {
    let time = |program: &OsStr, subcommand: Option<&str>| {
        let mut args: Vec<&OsStr> = subcommand.into_iter().map(OsStr::new).collect();
        args.extend(flags.iter().map(OsStr::new));
        args.extend([input.as_os_str(), OsStr::new("-o"), OsStr::new("/dev/null")]);
        time_process(program, &args)
    };
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    let (mut ours_failed, mut theirs_failed) = (None, None);
    for run in 0..settings.process_runs {
        // Alternate which tool goes first, so neither always profits from a warm cache.
        for ours_turn in if run % 2 == 0 { [true, false] } else { [false, true] } {
            if ours_turn && ours_failed.is_none() {
                match time(spirvkit.as_os_str(), Some("translate")) {
                    Ok(t) => ours.push(t),
                    Err(e) => ours_failed = Some(e),
                }
            } else if !ours_turn && theirs_failed.is_none() {
                match time(OsStr::new(REFERENCE), None) {
                    Ok(t) => theirs.push(t),
                    Err(e) => theirs_failed = Some(e),
                }
            }
        }
    }
    let failed = |e: anyhow::Error| format!("fails ({})", e.to_string().trim_start_matches("exit status "));
    let (ours, theirs) = (Stats::of(ours), Stats::of(theirs));
    match (ours_failed, theirs_failed) {
        (None, None) => table.row(comparison_row(name, ours, Some(theirs), REFERENCE)),
        (ours_failed, theirs_failed) => {
            let cells = |failure: Option<anyhow::Error>, stats: Stats, who: &str| match failure {
                Some(e) => [format!("{who} {}", failed(e)), String::new()],
                None => [ms(stats.best), ms(stats.median)],
            };
            let mut row = vec![name.to_string()];
            row.extend(cells(ours_failed, ours, "spirvkit"));
            row.extend(cells(theirs_failed, theirs, REFERENCE));
            row.push("skipped".to_string());
            table.row(row);
        }
    }
}

/// The generated module as text and as a binary made by mlir-translate-22 (cached).
fn large_input(bench_dir: &Path) -> Result<Input> {
    let wrapped = super::opt::large_module(LARGE_FUNCTIONS);
    // mlir-translate wants the bare spirv.module: drop the builtin.module around it.
    let inner = wrapped
        .strip_prefix("module {\n")
        .and_then(|t| t.trim_end().strip_suffix('}'))
        .context("the opt generator's text is not `module { ... }`")?;
    let text: String =
        inner.lines().map(|l| l.strip_prefix("  ").unwrap_or(l)).flat_map(|l| [l, "\n"]).collect();
    // The opt benchmark's module under-declares its requirements (storage buffers need
    // SPIR-V 1.3 or the extension), which a serializer that checks them refuses.
    let text = text.replacen(
        "#spirv.vce<v1.0, [Shader], []>",
        "#spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]>",
        1,
    );
    let text_path = bench_dir.join("translate-large.mlir");
    let spv = bench_dir.join("translate-large.spv");
    let fresh = std::fs::read_to_string(&text_path).ok().as_deref() == Some(text.as_str()) && spv.exists();
    if !fresh {
        std::fs::write(&text_path, &text)?;
        let tmp = spv.with_extension("spv.tmp");
        let status = Command::new(REFERENCE)
            .args(["--no-implicit-module", "--serialize-spirv"])
            .arg(&text_path)
            .arg("-o")
            .arg(&tmp)
            .stdout(Stdio::null())
            .status()
            .with_context(|| format!("running {REFERENCE}"))?;
        if !status.success() {
            let _ = std::fs::remove_file(&tmp);
            bail!("{REFERENCE} --serialize-spirv failed on {}", rel(&text_path));
        }
        std::fs::rename(&tmp, &spv)?;
    }
    let bytes = std::fs::read(&spv)?;
    Ok(Input { label: rel(&spv), spv, bytes, text: Some(text_path) })
}

/// spirvkit's deserialization of a binary, printed.
fn own_text(bytes: &[u8]) -> Option<String> {
    let mut ir = Ir::new();
    let module = spirvkit_translate::deserialize(bytes, &mut ir, &DeserializeOptions::default()).ok()?;
    Some(spirvkit_ir::print(&ir, module, spirvkit_ir::PrintOptions::default()))
}

fn first_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("no message")
        .to_string()
}
