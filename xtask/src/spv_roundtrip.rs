//! `cargo xtask spv-roundtrip [--corpus DIR] [--opencl-corpus DIR] [--suite vulkan|opencl|all]
//! [--update-floor [--allow-lower]] [--filter S] [--jobs N] [--oracle]`: binary -> IR -> binary over the `.spv` corpus.
//!
//! Per file, in stages (a stage runs when the one it needs passed):
//!
//! - `read`: spirvkit's reader accepts the original;
//! - `original-valid`: `spirv-val --target-env ENV` accepts the original, ENV being the
//!   Vulkan environment of its version (1.0: vulkan1.0; 1.1-1.3: vulkan1.1;
//!   1.4: vulkan1.1spv1.4; 1.5: vulkan1.2; 1.6: vulkan1.3), `spirv-val` being the current
//!   SPIRV-Tools of `crate::spirv_val_tool` (the project's `.venv`). Where a spirv-val
//!   does not know the source language (2023.1 and Slang's), both the original and the
//!   result are validated without their `OpSource` (debug information);
//! - `deserialize`: `spirvkit_translate::deserialize` (in process, structurized);
//! - `serialize`: `spirvkit_translate::serialize` of that IR;
//! - `valid`: `spirv-val` accepts the result (counted only where the original passes);
//! - `equivalent`: the result means what the original means
//!   (`spirvkit_binary::equiv`: up to id renaming, control-flow scaffolding and unused
//!   declarations); `equivalent-exact`: not even those differ;
//! - `mlir-opt`: `mlir-opt-22` accepts the printed IR. MLIR's dialect cannot express
//!   everything spirvkit's IR can (the sampler type, for one); its rejections are
//!   listed by cause as "not expressible in MLIR 22".
//! - `settles`: the round trip through text, as the CLI runs it (`spirvkit translate
//!   --deserialize-spirv`, then `--no-implicit-module --serialize-spirv` of that text),
//!   reaches its fixpoint in one round: with `T1` the text of the original, `B1` its
//!   binary, `T2` the text of `B1` and `B2` the binary of `T2`, `T2 == T1` and
//!   `B2 == B1`. (The text alone settling would allow a binary that still changes,
//!   which the text then hides; the binary alone would allow a text that changes
//!   once.) Files whose printed text does not verify (ops mixing signed and signless
//!   integers print in the generic form, which MLIR's verifier refuses as well) are
//!   left out of this stage and counted apart.
//!
//! A second corpus, the SPIRV-LLVM-Translator's `.spvasm` tests (OpenCL kernels:
//! Addresses, no structured control flow), runs through the same stages in rows of
//! their own (`opencl-deserialize`, …): each file is assembled in process for the
//! SPIR-V version its RUN line names (`read` fails when it does not assemble) and
//! validated with the OpenCL environment of that version (1.0: opencl2.1; 1.1-1.2:
//! opencl2.2; later: the universal one). A corpus that is absent is skipped with a
//! message; `--suite vulkan|opencl` runs one of them.
//!
//! As a reference, `mlir-translate-22 --deserialize-spirv` runs on every original too
//! (not part of the floor). `--oracle` puts mlir-translate-22 in place of spirvkit's
//! deserializer and serializer, to see what the oracle's own round trip achieves under
//! the same checks (the floor is left alone).
//!
//! Nothing is cached across runs. Pass counts per stage are compared with
//! `conformance/spv-roundtrip-floor.txt` (a non-zero exit when below);
//! `--update-floor` rewrites it, refusing to lower a count unless `--allow-lower` is
//! given too. `--filter` keeps the files whose path contains the text and skips the
//! floor. Every failing file with its messages (and the full list of equivalence
//! differences) is written to `target/spv-roundtrip/report.txt`.

use crate::corpus::{display_path, files_with_extension, read_floor};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use spirvkit_binary::equiv::{self, Category};
use spirvkit_translate::{DeserializeOptions, Ir, OpId, SerializeOptions};

const FLOOR_PATH: &str = "conformance/spv-roundtrip-floor.txt";
/// One external tool run longer than this fails (and is killed).
const TOOL_TIMEOUT: Duration = Duration::from_secs(60);
/// An in-process stage cannot be interrupted: past this the whole run stops, naming the file.
const IN_PROCESS_LIMIT: Duration = Duration::from_secs(120);
/// Most common failure causes shown per stage.
const TOP_CAUSES: usize = 8;
/// Differences written to the report per file.
const REPORT_DIFFERENCES: usize = 40;
const MLIR_TRANSLATE: &str = "mlir-translate-22";
const MLIR_OPT: &str = "mlir-opt-22";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Read,
    OriginalValid,
    Deserialize,
    Serialize,
    Valid,
    Equivalent,
    EquivalentExact,
    MlirOpt,
    Settles,
    /// Reference only: `mlir-translate-22 --deserialize-spirv` on the original.
    OracleDeserialize,
}

const STAGES: [Stage; 10] = [
    Stage::Read,
    Stage::OriginalValid,
    Stage::Deserialize,
    Stage::Serialize,
    Stage::Valid,
    Stage::Equivalent,
    Stage::EquivalentExact,
    Stage::MlirOpt,
    Stage::Settles,
    Stage::OracleDeserialize,
];

impl Stage {
    fn name(self) -> &'static str {
        match self {
            Stage::Read => "read",
            Stage::OriginalValid => "original-valid",
            Stage::Deserialize => "deserialize",
            Stage::Serialize => "serialize",
            Stage::Valid => "valid",
            Stage::Equivalent => "equivalent",
            Stage::EquivalentExact => "equivalent-exact",
            Stage::MlirOpt => "mlir-opt",
            Stage::Settles => "settles",
            Stage::OracleDeserialize => "oracle-deserialize",
        }
    }

    /// Stages whose pass counts the floor holds (spirvkit's, not the reference's).
    fn floored(self) -> bool {
        self != Stage::OracleDeserialize
    }
}

/// Who deserializes and serializes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Engine {
    Spirvkit,
    /// mlir-translate-22 for both directions (`--oracle`).
    MlirTranslate,
}

/// Which corpus a run covers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Suite {
    /// The `.spv` corpus (Vulkan shaders).
    Vulkan,
    /// The SPIRV-LLVM-Translator's `.spvasm` tests (OpenCL kernels), assembled in process.
    OpenCl,
}

impl Suite {
    /// The prefix of this suite's rows and floor lines.
    fn prefix(self) -> &'static str {
        match self {
            Suite::Vulkan => "",
            Suite::OpenCl => "opencl-",
        }
    }
}

struct Ctx {
    suite: Suite,
    corpus: PathBuf,
    scratch: PathBuf,
    engine: Engine,
    have_mlir_translate: bool,
    have_mlir_opt: bool,
}

#[derive(Default)]
struct FileResult {
    path: String,
    /// Each stage that ran: `Ok` or the failure message (first line).
    outcomes: Vec<(Stage, Result<(), String>)>,
    /// Non-semantic differences (scaffolding, unused declarations) of an equivalent result.
    notes: usize,
    /// Full details for the report.
    details: Vec<String>,
    /// Why the `settles` stage did not run although the file serialized.
    settle_excluded: Option<String>,
}

impl FileResult {
    fn record(&mut self, stage: Stage, outcome: Result<(), String>) -> bool {
        let ok = outcome.is_ok();
        if let Err(message) = &outcome {
            self.details.push(format!("{}: {message}", stage.name()));
        }
        self.outcomes.push((stage, outcome.map_err(|m| first_line(&m))));
        ok
    }
}

pub fn run(args: &[String]) -> Result<()> {
    let mut corpus = None;
    let mut opencl_corpus = None;
    let mut suites = vec![Suite::Vulkan, Suite::OpenCl];
    let mut update_floor = false;
    let mut allow_lower = false;
    let mut filter: Option<String> = None;
    let mut jobs = 2usize;
    let mut engine = Engine::Spirvkit;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--corpus" => corpus = Some(PathBuf::from(iter.next().context("--corpus needs a directory")?)),
            "--opencl-corpus" => {
                opencl_corpus = Some(PathBuf::from(iter.next().context("--opencl-corpus needs a directory")?))
            }
            "--suite" => {
                suites = match iter.next().map(String::as_str) {
                    Some("vulkan") => vec![Suite::Vulkan],
                    Some("opencl") => vec![Suite::OpenCl],
                    Some("all") => vec![Suite::Vulkan, Suite::OpenCl],
                    _ => bail!("--suite needs vulkan, opencl or all"),
                }
            }
            "--update-floor" => update_floor = true,
            "--allow-lower" => allow_lower = true,
            "--filter" => filter = Some(iter.next().context("--filter needs a text")?.clone()),
            "--oracle" => engine = Engine::MlirTranslate,
            "--jobs" | "-j" => {
                jobs =
                    iter.next().context("--jobs needs a number")?.parse().context("--jobs needs a number")?
            }
            other => bail!(
                "usage: cargo xtask spv-roundtrip [--corpus DIR] [--opencl-corpus DIR] \
                 [--suite vulkan|opencl|all] [--update-floor [--allow-lower]] \
                 [--filter S] [--jobs N] [--oracle] (got `{other}`)"
            ),
        }
    }
    if update_floor && (filter.is_some() || engine == Engine::MlirTranslate || suites.len() != 2) {
        bail!("--update-floor needs every corpus and spirvkit (no --filter, --suite or --oracle)");
    }
    let jobs = jobs.max(1);
    let corpus = corpus
        .or_else(|| std::env::var_os("SPIRVKIT_SPV_CORPUS").map(PathBuf::from))
        .unwrap_or_else(|| crate::workspace_root().join("../shared/corpus/spv"));
    let opencl_corpus = opencl_corpus
        .or_else(|| std::env::var_os("SPIRVKIT_OPENCL_CORPUS").map(PathBuf::from))
        .unwrap_or_else(|| crate::workspace_root().join("../shared/corpus/spirv-llvm-translator"));
    let spirv_val_tool = crate::spirv_val_tool();
    if !tool_works(&spirv_val_tool.to_string_lossy()) {
        bail!("spirv-val not found ({}): run ./scripts/install-deps.sh", spirv_val_tool.display());
    }
    let have_mlir_translate = tool_works(MLIR_TRANSLATE);
    let have_mlir_opt = tool_works(MLIR_OPT);
    if engine == Engine::MlirTranslate && !have_mlir_translate {
        bail!("--oracle needs {MLIR_TRANSLATE}");
    }

    let scratch = std::env::temp_dir().join(format!(
        "spirvkit-spv-roundtrip-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
    ));
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let _guard = crate::corpus::ScratchDir(scratch.clone());

    let mut tallies = Vec::new();
    let mut all_results = Vec::new();
    let mut skipped: Vec<(Suite, Stage)> = Vec::new();
    for suite in suites {
        let (dir, ext) = match suite {
            Suite::Vulkan => (&corpus, "spv"),
            Suite::OpenCl => (&opencl_corpus, "spvasm"),
        };
        if !dir.is_dir() {
            println!("spv-roundtrip: skipping the {suite:?} corpus: not found at {}", dir.display());
            skipped.extend(STAGES.iter().map(|&stage| (suite, stage)));
            continue;
        }
        let mut files =
            files_with_extension(dir, ext).with_context(|| format!("listing {}", dir.display()))?;
        if let Some(f) = &filter {
            files.retain(|p| display_path(dir, p).contains(f.as_str()));
        }
        if files.is_empty() {
            println!(
                "spv-roundtrip: no .{ext} files under {}{}",
                dir.display(),
                filter.as_ref().map_or(String::new(), |f| format!(" matching `{f}`"))
            );
            skipped.extend(STAGES.iter().map(|&stage| (suite, stage)));
            continue;
        }
        let ctx = Ctx {
            suite,
            corpus: dir.clone(),
            scratch: scratch.clone(),
            engine,
            have_mlir_translate,
            have_mlir_opt,
        };
        let results = run_suite(&ctx, &files, jobs)?;
        tallies.push((suite, Tally::of(&results)));
        all_results.extend(results);
        // A stage whose tool is missing did not run: its floor line cannot be checked.
        if !have_mlir_opt {
            skipped.push((suite, Stage::MlirOpt));
        }
    }
    write_report(&all_results)?;

    if engine == Engine::MlirTranslate {
        println!("spv-roundtrip: oracle run; the floor is not checked");
        return Ok(());
    }
    if filter.is_some() {
        println!("spv-roundtrip: filtered run; the floor is not checked");
        return Ok(());
    }
    if update_floor && !skipped.is_empty() {
        bail!("--update-floor needs every stage of every corpus to run (install mlir-opt-22, both corpora)");
    }
    check_floor(&tallies, update_floor, allow_lower, &skipped)
}

/// Runs one corpus over `jobs` workers and prints its table.
fn run_suite(ctx: &Ctx, files: &[PathBuf], jobs: usize) -> Result<Vec<FileResult>> {
    let (engine, have_mlir_opt, have_mlir_translate) =
        (ctx.engine, ctx.have_mlir_opt, ctx.have_mlir_translate);
    println!(
        "spv-roundtrip: {} files under {} ({} workers, {}{}{})",
        files.len(),
        ctx.corpus.display(),
        jobs,
        if engine == Engine::MlirTranslate { "oracle engine: mlir-translate-22" } else { "spirvkit" },
        if have_mlir_opt { "" } else { "; mlir-opt-22 missing: mlir-opt stage skipped" },
        if have_mlir_translate { "" } else { "; mlir-translate-22 missing: no reference row" },
    );
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<FileResult>>> = files.iter().map(|_| Mutex::new(None)).collect();
    // What each worker is doing in process, for the watchdog.
    let busy: Vec<Mutex<Option<(usize, Instant)>>> = (0..jobs).map(|_| Mutex::new(None)).collect();
    let finished = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| -> Result<()> {
        let mut workers = Vec::new();
        for worker in 0..jobs {
            let (next, results, busy, files) = (&next, &results, &busy, &files);
            let handle = std::thread::Builder::new()
                .name(format!("spv-roundtrip-{worker}"))
                // Generous, so a deep recursion in the code under test is not a crash here.
                .stack_size(256 << 20)
                .spawn_scoped(s, move || loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(index) else { break };
                    let result = match ctx.suite {
                        Suite::Vulkan => check_file(ctx, path, &busy[worker], index),
                        Suite::OpenCl => check_assembly(ctx, path, &busy[worker], index),
                    };
                    if let Ok(mut slot) = results[index].lock() {
                        *slot = Some(result);
                    }
                })
                .context("spawning a worker")?;
            workers.push(handle);
        }
        let (busy, finished) = (&busy, &finished);
        s.spawn(move || watchdog(busy, finished, files));
        for handle in workers {
            let _ = handle.join();
        }
        finished.store(true, Ordering::Relaxed);
        Ok(())
    })?;
    let elapsed = started.elapsed();

    let results: Vec<FileResult> = results
        .into_iter()
        .zip(files)
        .map(|(slot, path)| {
            slot.into_inner().ok().flatten().unwrap_or_else(|| FileResult {
                path: display_path(&ctx.corpus, path),
                outcomes: vec![(Stage::Read, Err("worker crashed".to_string()))],
                ..FileResult::default()
            })
        })
        .collect();
    let tally = Tally::of(&results);
    tally.print(&results, files.len(), elapsed, ctx.suite.prefix());
    Ok(results)
}

fn tool_works(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Stops the whole run when an in-process stage hangs: it cannot be interrupted.
fn watchdog(
    busy: &[Mutex<Option<(usize, Instant)>>],
    finished: &std::sync::atomic::AtomicBool,
    files: &[PathBuf],
) {
    while !finished.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(500));
        for slot in busy {
            let Ok(slot) = slot.lock() else { continue };
            if let Some((index, since)) = *slot {
                if since.elapsed() > IN_PROCESS_LIMIT {
                    eprintln!(
                        "spv-roundtrip: in-process translation of {} has run for over {}s; stopping",
                        files.get(index).map_or("?".to_string(), |p| p.display().to_string()),
                        IN_PROCESS_LIMIT.as_secs()
                    );
                    std::process::exit(2);
                }
            }
        }
    }
}

/// The `spirv-val --target-env` of a module's version (see the module documentation).
fn target_env(version_word: u32) -> &'static str {
    match (version_word >> 16 & 0xff, version_word >> 8 & 0xff) {
        (1, 0) => "vulkan1.0",
        (1, 1..=3) => "vulkan1.1",
        (1, 4) => "vulkan1.1spv1.4",
        (1, 5) => "vulkan1.2",
        _ => "vulkan1.3",
    }
}

/// The `spirv-val --target-env` of an OpenCL module's version: the OpenCL environment
/// of that SPIR-V version (1.0: opencl2.1; 1.1-1.2: opencl2.2), the universal one past
/// what OpenCL environments spirv-val 2023.1 knows.
fn opencl_target_env(version_word: u32) -> &'static str {
    match (version_word >> 16 & 0xff, version_word >> 8 & 0xff) {
        (1, 0) => "opencl2.1",
        (1, 1 | 2) => "opencl2.2",
        (1, 3) => "spv1.3",
        (1, 4) => "spv1.4",
        (1, 5) => "spv1.5",
        _ => "spv1.6",
    }
}

/// The SPIR-V version a translator test assembles for: its RUN line's
/// `spirv-as --target-env spvX.Y` (the assembler's default without one).
fn assembly_target_env(text: &str) -> spirvkit_binary::asm::TargetEnv {
    text.lines()
        .filter(|line| line.contains("RUN:") && line.contains("spirv-as"))
        .find_map(|line| {
            let after = line.split("--target-env").nth(1)?;
            spirvkit_binary::asm::TargetEnv::parse(after.split_whitespace().next()?)
        })
        .unwrap_or_default()
}

/// An OpenCL test: assembled in process (`read` fails when it does not assemble), then
/// checked as a binary like any other.
fn check_assembly(
    ctx: &Ctx,
    path: &Path,
    busy: &Mutex<Option<(usize, Instant)>>,
    index: usize,
) -> FileResult {
    let display = display_path(&ctx.corpus, path);
    let failed = |message: String| {
        let mut result = FileResult { path: display.clone(), ..FileResult::default() };
        result.record(Stage::Read, Err(message));
        result
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return failed(format!("cannot read: {e}")),
    };
    let options =
        spirvkit_binary::asm::AsmOptions { target_env: assembly_target_env(&text), ..Default::default() };
    let words = match spirvkit_binary::asm::assemble(&text, &options) {
        Ok(words) => words,
        Err(e) => return failed(format!("does not assemble: {e}")),
    };
    let file = ctx.scratch.join(format!("{index}-assembled.spv"));
    let bytes = spirvkit_binary::words_to_bytes(&words, spirvkit_binary::Endian::Little);
    if let Err(e) = std::fs::write(&file, bytes) {
        return failed(format!("cannot write {}: {e}", file.display()));
    }
    let mut result = check_file(ctx, &file, busy, index);
    let _ = std::fs::remove_file(&file);
    result.path = display;
    result
}

/// How a suite serializes. OpenCL modules declare what OpenCL needs (`Float16Buffer`
/// for half data), less than MLIR's conservative availability asks (`Float16`): they
/// serialize as with `--spirv-allow-undeclared-requirements`.
fn serialize_options(suite: Suite) -> SerializeOptions {
    SerializeOptions { check_requirements: suite == Suite::Vulkan, ..SerializeOptions::default() }
}

/// The module the deserializer produced, and how to print it.
enum Deserialized {
    Spirvkit(Box<Ir>, OpId),
    Text(String),
}

fn check_file(ctx: &Ctx, path: &Path, busy: &Mutex<Option<(usize, Instant)>>, index: usize) -> FileResult {
    let mut result = FileResult { path: display_path(&ctx.corpus, path), ..FileResult::default() };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            result.record(Stage::Read, Err(format!("cannot read: {e}")));
            return result;
        }
    };
    let original = spirvkit_binary::read(&bytes).map_err(|e| e.to_string());
    result.record(Stage::Read, original.as_ref().map(|_| ()).map_err(Clone::clone));
    let version = original.as_ref().map_or(0, |m| m.header.version);
    let env = match ctx.suite {
        Suite::Vulkan => target_env(version),
        Suite::OpenCl => opencl_target_env(version),
    };
    // An older spirv-val (2023.1) does not know newer source languages (Slang): validate those
    // without their OpSource, which is debug information only.
    let mut strip_source = false;
    let mut valid = spirv_val(path, env);
    if valid.as_ref().is_err_and(|e| e.contains("Invalid source language operand")) {
        let file = ctx.scratch.join(format!("{index}-original.spv"));
        if let Some(stripped) = without_source(&bytes) {
            if std::fs::write(&file, stripped).is_ok() {
                strip_source = true;
                valid = spirv_val(&file, env);
            }
        }
        let _ = std::fs::remove_file(&file);
    }
    let original_valid = result.record(Stage::OriginalValid, valid);
    if ctx.have_mlir_translate && ctx.engine == Engine::Spirvkit {
        let run = run_tool(MLIR_TRANSLATE, &[os("--deserialize-spirv"), path.as_os_str()], None);
        result.record(Stage::OracleDeserialize, run.and_then(|r| r.success(MLIR_TRANSLATE)).map(drop));
    }

    // Deserialize.
    let set_busy = |on: bool| {
        if let Ok(mut slot) = busy.lock() {
            *slot = on.then(|| (index, Instant::now()));
        }
    };
    let deserialized = match ctx.engine {
        Engine::Spirvkit => {
            set_busy(true);
            let outcome = in_process(|| {
                let mut ir = Ir::new();
                spirvkit_translate::deserialize(&bytes, &mut ir, &DeserializeOptions::default())
                    .map(|op| Deserialized::Spirvkit(Box::new(ir), op))
                    .map_err(|e| e.to_string())
            });
            set_busy(false);
            outcome
        }
        Engine::MlirTranslate => {
            run_tool(MLIR_TRANSLATE, &[os("--deserialize-spirv"), path.as_os_str()], None)
                .and_then(|r| r.success(MLIR_TRANSLATE))
                .map(|r| Deserialized::Text(String::from_utf8_lossy(&r.stdout).into_owned()))
        }
    };
    let deserialized = match deserialized {
        Ok(d) => {
            result.record(Stage::Deserialize, Ok(()));
            d
        }
        Err(message) => {
            result.record(Stage::Deserialize, Err(message));
            return result;
        }
    };

    // The printed IR must be MLIR 22's.
    let text = match &deserialized {
        Deserialized::Spirvkit(ir, op) => {
            set_busy(true);
            let text = in_process(|| Ok(spirvkit_ir::print(ir, *op, spirvkit_ir::PrintOptions::default())));
            set_busy(false);
            text
        }
        Deserialized::Text(text) => Ok(text.clone()),
    };
    if ctx.have_mlir_opt {
        let accepted = text.and_then(|text| {
            run_tool(MLIR_OPT, &[os("-"), os("-o"), os("/dev/null")], Some(text.as_bytes()))
                .and_then(|r| r.success(MLIR_OPT))
                .map(drop)
        });
        result.record(Stage::MlirOpt, accepted);
    }

    // Serialize.
    let serialized = match &deserialized {
        Deserialized::Spirvkit(ir, op) => {
            set_busy(true);
            let outcome = in_process(|| {
                spirvkit_translate::serialize(ir, *op, &serialize_options(ctx.suite))
                    .map(|words| spirvkit_binary::words_to_bytes(&words, spirvkit_binary::Endian::Little))
                    .map_err(|e| e.to_string())
            });
            set_busy(false);
            outcome
        }
        Deserialized::Text(text) => run_tool(
            MLIR_TRANSLATE,
            &[os("--no-implicit-module"), os("--serialize-spirv"), os("-")],
            Some(text.as_bytes()),
        )
        .and_then(|r| r.success(MLIR_TRANSLATE))
        .map(|r| r.stdout),
    };
    let Ok(roundtrip) = serialized.map_err(|m| result.record(Stage::Serialize, Err(m))) else {
        return result;
    };
    result.record(Stage::Serialize, Ok(()));

    if ctx.engine == Engine::Spirvkit {
        set_busy(true);
        let settled = in_process(|| Ok(settles(&bytes, ctx.suite)));
        set_busy(false);
        match settled {
            Ok(Settled::Yes) => {
                result.record(Stage::Settles, Ok(()));
            }
            Ok(Settled::No(why)) => {
                result.record(Stage::Settles, Err(why));
            }
            Ok(Settled::Excluded(why)) => {
                result.details.push(format!("settles: left out: {why}"));
                result.settle_excluded = Some(why);
            }
            Err(panic) => {
                result.record(Stage::Settles, Err(panic));
            }
        }
    }

    if original_valid {
        let file = ctx.scratch.join(format!("{index}.spv"));
        let to_validate =
            if strip_source { without_source(&roundtrip).unwrap_or_default() } else { roundtrip.clone() };
        let valid = std::fs::write(&file, &to_validate)
            .map_err(|e| format!("cannot write {}: {e}", file.display()))
            .and_then(|()| spirv_val(&file, env));
        let _ = std::fs::remove_file(&file);
        result.record(Stage::Valid, valid);
    }

    let Ok(original) = original else { return result };
    let roundtrip = match spirvkit_binary::read(&roundtrip) {
        Ok(module) => module,
        Err(e) => {
            result.record(Stage::Equivalent, Err(format!("the result does not read back: {e}")));
            return result;
        }
    };
    let comparison = equiv::compare(&original, &roundtrip);
    let semantic: Vec<&equiv::Difference> = comparison.semantic().collect();
    result.notes = comparison.differences.len() - semantic.len();
    for d in comparison.differences.iter().take(REPORT_DIFFERENCES) {
        result.details.push(format!("  {d}"));
    }
    if comparison.differences.len() > REPORT_DIFFERENCES {
        result.details.push(format!("  … and {} more", comparison.differences.len() - REPORT_DIFFERENCES));
    }
    match semantic.first() {
        None => {
            result.outcomes.push((Stage::Equivalent, Ok(())));
            let exact = comparison.differences.first().map_or(Ok(()), |d| Err(difference_cause(d)));
            result.outcomes.push((Stage::EquivalentExact, exact));
        }
        Some(first) => {
            result.outcomes.push((
                Stage::Equivalent,
                Err(format!("{} ({} semantic differences)", difference_cause(first), semantic.len())),
            ));
        }
    }
    result
}

enum Settled {
    Yes,
    No(String),
    /// The printed text does not verify: the stage does not apply.
    Excluded(String),
}

/// The `settles` stage (see the module documentation), through the CLI's driver.
fn settles(original: &[u8], suite: Suite) -> Settled {
    use spirvkit_translate::driver::{run, Mode, TranslateOptions};
    let deserialize = TranslateOptions { mode: Mode::Deserialize, ..TranslateOptions::default() };
    let serialize = TranslateOptions {
        mode: Mode::Serialize,
        no_implicit_module: true,
        check_requirements: serialize_options(suite).check_requirements,
        ..TranslateOptions::default()
    };
    let said = |r: &spirvkit_translate::driver::TranslateResult| first_line(&r.diagnostics_text);
    let t1 = run(original, "original.spv", &deserialize);
    if !t1.success {
        return Settled::No(format!("--deserialize-spirv of the original: {}", said(&t1)));
    }
    let b1 = run(&t1.output.bytes(), "t1.mlir", &serialize);
    if !b1.success {
        // Only text the verifier refuses is left out; any other failure counts.
        let verifies = std::str::from_utf8(&t1.output.bytes()).ok().and_then(|text| {
            let (ir, top) = spirvkit_ir::parse(text, "t1.mlir").ok()?;
            Some(spirvkit_ir::verify::first_failure(&ir, top, text).is_none())
        });
        if verifies == Some(false) {
            return Settled::Excluded(format!("printed text does not verify: {}", said(&b1)));
        }
        return Settled::No(format!("--serialize-spirv of the printed text: {}", said(&b1)));
    }
    let t2 = run(&b1.output.bytes(), "b1.spv", &deserialize);
    if !t2.success {
        return Settled::No(format!("--deserialize-spirv of the serialized text: {}", said(&t2)));
    }
    if t2.output != t1.output {
        let (a, b) = (
            String::from_utf8_lossy(&t1.output.bytes()).into_owned(),
            String::from_utf8_lossy(&t2.output.bytes()).into_owned(),
        );
        let line = a
            .lines()
            .zip(b.lines())
            .position(|(x, y)| x != y)
            .unwrap_or(a.lines().count().min(b.lines().count()));
        return Settled::No(format!("the text changes in a round trip (from line {})", line + 1));
    }
    let b2 = run(&t2.output.bytes(), "t2.mlir", &serialize);
    if !b2.success {
        return Settled::No(format!("--serialize-spirv of the second text: {}", said(&b2)));
    }
    if b2.output != b1.output {
        return Settled::No("the binary changes in a round trip".to_string());
    }
    Settled::Yes
}

/// Runs spirvkit code, turning a panic into a failure message.
fn in_process<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(outcome) => outcome,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("PANIC: {message}"))
        }
    }
}

/// A binary without its OpSource/OpSourceContinued instructions; `None` if it does not read.
fn without_source(bytes: &[u8]) -> Option<Vec<u8>> {
    let module = spirvkit_binary::read(bytes).ok()?;
    let mut words = module.words().get(..spirvkit_binary::Header::WORDS)?.to_vec();
    for inst in module.instructions() {
        if !inst.grammar().is_some_and(|g| matches!(g.name, "OpSource" | "OpSourceContinued")) {
            words.extend_from_slice(inst.words);
        }
    }
    Some(spirvkit_binary::words_to_bytes(&words, module.endian))
}

fn spirv_val(path: &Path, env: &str) -> Result<(), String> {
    let tool = crate::spirv_val_tool();
    run_tool(&tool.to_string_lossy(), &[os("--target-env"), os(env), path.as_os_str()], None)
        .and_then(|r| r.success("spirv-val"))
        .map(drop)
}

/// A one-line cause for grouping an equivalence difference: the category and, for
/// instructions, the opcode and which side has more.
fn difference_cause(d: &equiv::Difference) -> String {
    if matches!(d.category, Category::Instructions | Category::ControlFlowScaffolding) {
        let opcode = d.message.split('`').nth(1).and_then(|k| k.split_whitespace().next());
        if let Some(opcode) = opcode {
            let side = if d.message.contains(": 0 in the original") {
                "extra after the round trip"
            } else {
                "missing after the round trip"
            };
            return format!("{}: {opcode} {side}", d.category);
        }
    }
    // The differing decorations say more than the (long) type they are on.
    if let Some(at) = d.message.find(": decorations differ") {
        let what = d.message.split_whitespace().next().unwrap_or("");
        return format!("{}: {what} {}", d.category, &d.message[at + 2..]);
    }
    format!("{}: {}", d.category, d.message)
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

struct ToolRun {
    status: std::process::ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl ToolRun {
    /// The run itself, or the first line of what it said when it failed.
    fn success(self, tool: &str) -> Result<ToolRun, String> {
        if self.status.success() {
            return Ok(self);
        }
        let stderr = String::from_utf8_lossy(&self.stderr);
        let stdout = String::from_utf8_lossy(&self.stdout);
        let said = stderr.lines().chain(stdout.lines()).map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        let tool = tool.trim_end_matches("-22");
        if said.is_empty() {
            return Err(format!("{tool}: no message, {}", self.status));
        }
        Err(format!("{tool}: {said}"))
    }
}

/// Runs a tool with a timeout, feeding `input` (if any) on standard input.
fn run_tool(program: &str, args: &[&std::ffi::OsStr], input: Option<&[u8]>) -> Result<ToolRun, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    std::thread::scope(|s| {
        if let (Some(mut pipe), Some(data)) = (stdin, input) {
            // A tool that exits early closes the pipe; the write error is expected then.
            s.spawn(move || {
                let _ = pipe.write_all(data);
            });
        }
        let drain = |pipe: Option<Box<dyn Read + Send>>| {
            s.spawn(move || {
                let mut v = Vec::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_end(&mut v);
                }
                v
            })
        };
        let out = drain(stdout.map(|p| Box::new(p) as Box<dyn Read + Send>));
        let err = drain(stderr.map(|p| Box::new(p) as Box<dyn Read + Send>));
        let deadline = Instant::now() + TOOL_TIMEOUT;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Ok(status),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break Err(format!("{program} timed out after {}s", TOOL_TIMEOUT.as_secs()));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(1)),
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break Err(format!("waiting for {program}: {e}"));
                }
            }
        };
        let stdout = out.join().unwrap_or_default();
        let stderr = err.join().unwrap_or_default();
        status.map(|status| ToolRun { status, stdout, stderr })
    })
}

fn first_line(message: &str) -> String {
    message.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_string()
}

/// A failure message made groupable: numbers, quoted text and symbol names blanked.
fn normalize(message: &str) -> String {
    let mut out = String::new();
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '0'..='9' => {
                while chars.peek().is_some_and(|c| c.is_ascii_digit()) {
                    chars.next();
                }
                out.push('N');
            }
            '"' => {
                for c in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                }
                out.push_str("\"…\"");
            }
            '@' | '%' => {
                out.push(c);
                while chars
                    .peek()
                    .is_some_and(|c| !c.is_whitespace() && !matches!(c, ':' | '`' | ',' | ']' | '\''))
                {
                    chars.next();
                }
                out.push('…');
            }
            _ => out.push(c),
        }
    }
    // Tools' location prefixes say nothing about the cause.
    let out = out.replace("<unknown>:N: ", "").replace("<stdin>:N:N: ", "").trim().to_string();
    if out.chars().count() > 110 {
        format!("{}…", out.chars().take(110).collect::<String>())
    } else {
        out
    }
}

// ---------------------------------------------------------------------------
// Tallies and reports

#[derive(Default)]
struct Tally {
    pass: BTreeMap<Stage, usize>,
    fail: BTreeMap<Stage, usize>,
    /// (stage, normalized cause) -> files.
    causes: BTreeMap<Stage, BTreeMap<String, Vec<usize>>>,
    /// Files equivalent only modulo non-semantic differences, and how many of those.
    equivalent_with_notes: usize,
    notes: usize,
}

impl Tally {
    fn of(results: &[FileResult]) -> Tally {
        let mut tally = Tally::default();
        for (i, r) in results.iter().enumerate() {
            for (stage, outcome) in &r.outcomes {
                match outcome {
                    Ok(()) => *tally.pass.entry(*stage).or_default() += 1,
                    Err(message) => {
                        *tally.fail.entry(*stage).or_default() += 1;
                        tally
                            .causes
                            .entry(*stage)
                            .or_default()
                            .entry(normalize(message))
                            .or_default()
                            .push(i);
                    }
                }
            }
            if r.notes > 0 && r.outcomes.iter().any(|(s, o)| *s == Stage::Equivalent && o.is_ok()) {
                tally.equivalent_with_notes += 1;
                tally.notes += r.notes;
            }
        }
        tally
    }

    fn passed(&self, stage: Stage) -> usize {
        self.pass.get(&stage).copied().unwrap_or(0)
    }

    fn print(&self, results: &[FileResult], total: usize, elapsed: Duration, prefix: &str) {
        println!();
        println!("{:<27} {:>6} {:>6} {:>6}", "stage", "pass", "fail", "ran");
        for stage in STAGES {
            let (p, f) = (self.passed(stage), self.fail.get(&stage).copied().unwrap_or(0));
            let note = match stage {
                Stage::Valid => "  (files whose original is valid)",
                Stage::Settles => "  (files whose printed text verifies)",
                Stage::OracleDeserialize => "  (reference: mlir-translate-22 --deserialize-spirv)",
                _ => "",
            };
            println!("{:<27} {p:>6} {f:>6} {:>6}{note}", format!("{prefix}{}", stage.name()), p + f);
        }
        let excluded: Vec<&FileResult> = results.iter().filter(|r| r.settle_excluded.is_some()).collect();
        if let Some(first) = excluded.first() {
            println!(
                "settles: {} files left out: {} (e.g. {})",
                excluded.len(),
                normalize(first.settle_excluded.as_deref().unwrap_or("")),
                first.path
            );
        }
        println!(
            "of {total} files; {} equivalent only modulo control-flow scaffolding or unused declarations \
             ({} such differences); time {:.1}s",
            self.equivalent_with_notes,
            self.notes,
            elapsed.as_secs_f64()
        );
        // spirvkit's deserializer next to mlir-translate's, file by file.
        let outcome = |r: &FileResult, stage: Stage| {
            r.outcomes.iter().find(|(s, _)| *s == stage).map(|(_, o)| o.is_ok())
        };
        let (mut only_oracle, mut only_ours) = (Vec::new(), 0usize);
        for r in results {
            match (outcome(r, Stage::Deserialize), outcome(r, Stage::OracleDeserialize)) {
                (Some(false), Some(true)) => only_oracle.push(r),
                (Some(true), Some(false)) => only_ours += 1,
                _ => {}
            }
        }
        if results.iter().any(|r| outcome(r, Stage::OracleDeserialize).is_some()) {
            println!(
                "deserialize: spirvkit fails on {} files mlir-translate-22 deserializes{}; succeeds on {only_ours} it does not",
                only_oracle.len(),
                only_oracle.first().map_or(String::new(), |r| format!(" (e.g. {})", r.path))
            );
        }
        for stage in STAGES {
            let Some(causes) = self.causes.get(&stage) else { continue };
            let mut sorted: Vec<(&String, &Vec<usize>)> = causes.iter().collect();
            sorted.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
            let title = match stage {
                Stage::MlirOpt => {
                    "mlir-opt: not expressible in MLIR 22 (mlir-opt-22 rejects the printed IR)".to_string()
                }
                Stage::OracleDeserialize => {
                    "oracle-deserialize: mlir-translate-22 cannot deserialize".to_string()
                }
                _ => format!("{prefix}{}: failures", stage.name()),
            };
            println!();
            println!("{title}, by cause ({} causes):", sorted.len());
            for (cause, files) in sorted.iter().take(TOP_CAUSES) {
                let example = files.first().and_then(|&i| results.get(i)).map_or("", |r| r.path.as_str());
                println!("  {:>4}  {cause}   e.g. {example}", files.len());
            }
            if sorted.len() > TOP_CAUSES {
                let rest: usize = sorted[TOP_CAUSES..].iter().map(|(_, f)| f.len()).sum();
                println!("  {rest:>4}  (other causes)");
            }
        }
        println!();
    }
}

fn write_report(results: &[FileResult]) -> Result<()> {
    let dir = crate::target_dir().join("spv-roundtrip");
    std::fs::create_dir_all(&dir)?;
    let mut text = String::new();
    for r in results {
        if r.details.is_empty() {
            continue;
        }
        let _ = writeln!(text, "{}", r.path);
        for line in &r.details {
            let _ = writeln!(text, "  {line}");
        }
    }
    let path = dir.join("report.txt");
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    println!("spv-roundtrip: details of every failing file in {}", path.display());
    Ok(())
}

fn check_floor(
    tallies: &[(Suite, Tally)],
    update_floor: bool,
    allow_lower: bool,
    skipped: &[(Suite, Stage)],
) -> Result<()> {
    let floor_path = crate::workspace_root().join(FLOOR_PATH);
    let floor =
        if floor_path.exists() { read_floor(&floor_path, "stage pass_count")? } else { BTreeMap::new() };
    let line = |suite: Suite, stage: Stage| format!("{}{}", suite.prefix(), stage.name());
    for name in floor.keys() {
        let known = [Suite::Vulkan, Suite::OpenCl]
            .iter()
            .any(|&suite| STAGES.iter().any(|&s| s.floored() && line(suite, s) == *name));
        if !known {
            bail!("{FLOOR_PATH} names unknown stage `{name}`");
        }
    }
    let mut below = Vec::new();
    let mut above = Vec::new();
    for (suite, tally) in tallies {
        for stage in STAGES.into_iter().filter(|s| s.floored()) {
            let name = line(*suite, stage);
            if skipped.contains(&(*suite, stage)) {
                println!("spv-roundtrip: stage {name} did not run; its floor is not checked");
                continue;
            }
            let p = tally.passed(stage);
            match floor.get(&name) {
                Some(&min) if p < min => below.push(format!("{name} {p} < {min}")),
                Some(&min) if p > min => above.push(format!("{name} {min} -> {p}")),
                _ => {}
            }
        }
    }
    if update_floor {
        if !below.is_empty() && !allow_lower {
            bail!(
                "not lowering {FLOOR_PATH} ({}); pass --allow-lower as well to accept the regression",
                below.join(", ")
            );
        }
        let mut text = String::from(
            "# Minimum files passing each stage of `cargo xtask spv-roundtrip` over ../shared/corpus/spv\n\
             # (plain names) and over ../shared/corpus/spirv-llvm-translator's .spvasm files (`opencl-`).\n\
             # Regenerate with `cargo xtask spv-roundtrip --update-floor` (never lowered silently).\n",
        );
        for (suite, tally) in tallies {
            for stage in STAGES.into_iter().filter(|s| s.floored()) {
                let _ = writeln!(text, "{} {}", line(*suite, stage), tally.passed(stage));
            }
        }
        std::fs::write(&floor_path, text).with_context(|| format!("writing {}", floor_path.display()))?;
        for lowered in &below {
            println!("spv-roundtrip: LOWERED {lowered}");
        }
        println!("spv-roundtrip: wrote {FLOOR_PATH}");
        return Ok(());
    }
    if floor.is_empty() {
        println!("spv-roundtrip: no floor at {FLOOR_PATH}; run with --update-floor to create it");
        return Ok(());
    }
    if !below.is_empty() {
        bail!("spv-roundtrip regressed below {FLOOR_PATH}: {}", below.join(", "));
    }
    if above.is_empty() {
        println!("spv-roundtrip: OK (at the floor)");
    } else {
        println!(
            "spv-roundtrip: OK; above the floor: {} (ratchet with `cargo xtask spv-roundtrip --update-floor`)",
            above.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_environments_follow_the_version() {
        let word = |minor: u32| (1 << 16) | (minor << 8);
        assert_eq!(target_env(word(0)), "vulkan1.0");
        assert_eq!(target_env(word(1)), "vulkan1.1");
        assert_eq!(target_env(word(3)), "vulkan1.1");
        assert_eq!(target_env(word(4)), "vulkan1.1spv1.4");
        assert_eq!(target_env(word(5)), "vulkan1.2");
        assert_eq!(target_env(word(6)), "vulkan1.3");
        assert_eq!(opencl_target_env(word(0)), "opencl2.1");
        assert_eq!(opencl_target_env(word(2)), "opencl2.2");
        assert_eq!(opencl_target_env(word(4)), "spv1.4");
    }

    #[test]
    fn assembly_follows_the_run_line() {
        let text = "; RUN: spirv-as --target-env spv1.3 %s -o %t.spv\n; RUN: llvm-spirv -r %t.spv\n";
        assert_eq!(assembly_target_env(text).name, "spv1.3");
        assert_eq!(assembly_target_env("OpCapability Kernel\n").name, "spv1.6");
    }

    #[test]
    fn causes_are_normalized() {
        assert_eq!(
            normalize("spirv-val: error: line 12: ID '34[%x]' has not been defined"),
            "spirv-val: error: line N: ID 'N[%…]' has not been defined"
        );
        assert_eq!(
            normalize("word 5: not supported yet: OpTypeSampler \"s\" @foo_1"),
            "word N: not supported yet: OpTypeSampler \"…\" @…"
        );
    }

    #[test]
    fn differences_group_by_opcode_and_side() {
        let d = equiv::Difference {
            category: Category::Instructions,
            message: "function @main: `OpFAdd f32 %<OpLoad>`: 0 in the original, 1 after the round trip"
                .into(),
        };
        assert_eq!(difference_cause(&d), "instructions: OpFAdd extra after the round trip");
    }
}
