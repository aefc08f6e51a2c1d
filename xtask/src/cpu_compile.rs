//! `cargo xtask cpu-compile [--corpus DIR] [--filter SUBSTR] [--jobs N] [--update-floor
//! [--allow-lower]] [--debug]`: real HLSL compute shaders through the CPU device's compile
//! path. DIR (default ../shared/corpus/wicked-engine) holds a `manifest.json` (see
//! `hlsl_manifest`); each job of stage `cs` is compiled with `hlsl2spirv` and its exact dxc
//! arguments, then its first GLCompute entry point goes through
//! `spirvkit_jit::CpuDevice::compile` (deserialize, verify, kernel preparation, conversion
//! to LLVM, workgroup function, LLVM IR, JIT) without binding or running anything.
//!
//! Each CPU compile runs in a child process (this program's hidden `--one FILE` mode) under
//! the harness timeout, so a panic or a hang is counted (`crashed`, a ceiling) instead of
//! ending the run. Refusals are grouped by message with locations and numbers blanked, so
//! one class is one line. The counts are held to `conformance/cpu-compile-floor.txt`.
//! Without the corpus it prints why and succeeds (a skip).

use crate::corpus::ScratchDir;
use crate::hlsl_conformance::{clip, first_error, run_with_timeout, settle_bounds, FloorMode};
use crate::hlsl_manifest::{parse_manifest, Job};
use anyhow::{bail, Context as _, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

const FLOOR_PATH: &str = "conformance/cpu-compile-floor.txt";
const USAGE: &str =
    "usage: cpu-compile [--corpus DIR] [--filter SUBSTR] [--jobs N] [--update-floor [--allow-lower]] [--debug]";
/// Refusal classes printed, biggest first.
const CLASSES_SHOWN: usize = 25;
/// The prefix of the child's report of a crash (a panic inside the compile path).
const PANIC_MARK: &str = "cpu-compile: panicked: ";

/// What happened to one compute job.
#[derive(Debug)]
enum Outcome {
    /// hlsl2spirv failed: its first error.
    NoSpirv(String),
    /// The binary has no GLCompute entry point (or does not reflect).
    NoEntry(String),
    Compiled,
    /// The CPU device refused it: its message.
    Refused(String),
    /// The compile path panicked or timed out: a bug.
    Crashed(String),
}

pub fn run(args: &[String]) -> Result<()> {
    if args.first().map(String::as_str) == Some("--one") {
        let file = args.get(1).context("--one needs a SPIR-V file")?;
        return compile_one(Path::new(file));
    }
    let mut corpus = None;
    let mut filter = None;
    let mut jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut update = false;
    let mut allow_lower = false;
    let mut debug = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--corpus" => corpus = Some(PathBuf::from(iter.next().context("--corpus needs a folder")?)),
            "--filter" => filter = Some(iter.next().context("--filter needs a substring")?.clone()),
            "--jobs" => jobs = iter.next().context("--jobs needs a count")?.parse().context("--jobs")?,
            "--update-floor" => update = true,
            "--allow-lower" => allow_lower = true,
            "--debug" => debug = true,
            other => bail!("unknown option `{other}`: {USAGE}"),
        }
    }
    if update && filter.is_some() {
        bail!("--update-floor records the whole corpus (no --filter)");
    }
    let corpus = corpus.unwrap_or_else(|| crate::workspace_root().join("../shared/corpus/wicked-engine"));
    let manifest = corpus.join("manifest.json");
    if !manifest.is_file() {
        println!("cpu-compile: skipped: no corpus manifest at {}", manifest.display());
        return Ok(());
    }
    let text =
        std::fs::read_to_string(&manifest).with_context(|| format!("reading {}", manifest.display()))?;
    let stages = job_stages(&text)?;
    let list: Vec<Job> = parse_manifest(&text)?
        .into_iter()
        .zip(stages)
        .filter(|(_, stage)| stage.as_deref() == Some("cs"))
        .map(|(job, _)| job)
        .filter(|job| filter.as_deref().is_none_or(|f| job.id.contains(f)))
        .collect();
    let hlsl2spirv = crate::hlsl_conformance::build_hlsl2spirv(debug)?;
    let me = std::env::current_exe().context("finding the xtask binary")?;
    let scratch = ScratchDir(crate::target_dir().join("cpu-compile"));
    let _ = std::fs::remove_dir_all(&scratch.0);
    std::fs::create_dir_all(&scratch.0).with_context(|| format!("creating {}", scratch.0.display()))?;
    println!("cpu-compile: {} compute jobs of {} ({jobs} workers)", list.len(), manifest.display());

    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let outcomes: Vec<Mutex<Option<(Outcome, f64)>>> = list.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = list.get(i) else { break };
                let out = scratch.0.join(format!("job{i}.spv"));
                let mut cmd = Command::new(&hlsl2spirv);
                cmd.args(&job.args).arg(&job.file).arg("-Fo").arg(&out).current_dir(&corpus);
                let (ok, stderr) = run_with_timeout(cmd);
                let cpu_started = Instant::now();
                let outcome = if !ok {
                    Outcome::NoSpirv(first_error(&stderr))
                } else {
                    let mut cmd = Command::new(&me);
                    cmd.args(["cpu-compile", "--one"]).arg(&out);
                    classify(run_with_timeout(cmd))
                };
                let cpu_ms = cpu_started.elapsed().as_secs_f64() * 1e3;
                let _ = std::fs::remove_file(&out);
                if let Ok(mut slot) = outcomes[i].lock() {
                    *slot = Some((outcome, cpu_ms));
                }
            });
        }
    });
    let elapsed = started.elapsed();

    let mut counts: BTreeMap<String, usize> =
        ["jobs", "spirv", "compiled", "refused", "crashed"].map(|k| (k.to_string(), 0)).into();
    let mut classes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut crashes = Vec::new();
    let mut no_spirv: BTreeMap<String, usize> = BTreeMap::new();
    let mut slowest: (f64, &str) = (0.0, "");
    for (job, slot) in list.iter().zip(outcomes) {
        let Some((outcome, ms)) = slot.into_inner().ok().flatten() else { continue };
        *counts.get_mut("jobs").expect("counted") += 1;
        if !matches!(outcome, Outcome::NoSpirv(_)) {
            *counts.get_mut("spirv").expect("counted") += 1;
            if ms > slowest.0 {
                slowest = (ms, &job.id);
            }
        }
        match outcome {
            Outcome::NoSpirv(e) => *no_spirv.entry(refusal_class(&e)).or_default() += 1,
            Outcome::NoEntry(e) | Outcome::Refused(e) => {
                *counts.get_mut("refused").expect("counted") += 1;
                classes.entry(refusal_class(&e)).or_default().push(job.id.clone());
            }
            Outcome::Compiled => *counts.get_mut("compiled").expect("counted") += 1,
            Outcome::Crashed(e) => {
                *counts.get_mut("crashed").expect("counted") += 1;
                crashes.push(format!("{}: {}", job.id, clip(&e)));
            }
        }
    }
    println!();
    println!("compute jobs:                 {}", counts["jobs"]);
    println!("compiled to SPIR-V:           {}", counts["spirv"]);
    println!("compiled by the CPU device:   {}", counts["compiled"]);
    println!("refused by the CPU device:    {}", counts["refused"]);
    if !no_spirv.is_empty() {
        println!("hlsl2spirv failures by message:");
        for (message, n) in &no_spirv {
            println!("  {n:>4}  {}", clip(message));
        }
    }
    if !crashes.is_empty() {
        println!("!!! CRASHED OR TIMED OUT ({}): each is a bug", crashes.len());
        for c in &crashes {
            println!("  {c}");
        }
    }
    if !classes.is_empty() {
        let mut by_count: Vec<(&String, &Vec<String>)> = classes.iter().collect();
        by_count.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(b.0)));
        println!("refusals by class ({} distinct), with a job that shows it:", by_count.len());
        for (message, ids) in by_count.iter().take(CLASSES_SHOWN) {
            println!("  {:>4}  {}  (e.g. {})", ids.len(), clip(message), ids[0]);
        }
    }
    println!("time: {:.1}s (slowest CPU compile {:.0} ms: {})", elapsed.as_secs_f64(), slowest.0, slowest.1);
    println!();
    if filter.is_some() {
        return Ok(());
    }
    let current: BTreeMap<String, usize> = counts.into_iter().filter(|(k, _)| k != "refused").collect();
    let header = "# Minimum counts for `cargo xtask cpu-compile` (the compute jobs of\n\
                  # ../shared/corpus/wicked-engine/manifest.json compiled by hlsl2spirv, then by the\n\
                  # CPU device without running; `crashed`, panics and timeouts, is a maximum).\n\
                  # Regenerate with `cargo xtask cpu-compile --update-floor`.\n";
    let mode = if update { FloorMode::Update { allow_lower } } else { FloorMode::Check };
    settle_bounds("cpu-compile", FLOOR_PATH, header, &current, &["crashed"], mode)
}

/// The `stage` of each job of a manifest, in order (`None` where a job has none).
fn job_stages(text: &str) -> Result<Vec<Option<String>>> {
    let value: serde_json::Value = serde_json::from_str(text).context("manifest.json is not JSON")?;
    let list = value.as_array().context("manifest.json: expected a list of jobs")?;
    Ok(list.iter().map(|j| j.get("stage").and_then(|s| s.as_str()).map(str::to_string)).collect())
}

/// The child's verdict: exit 0 compiled, a panic mark or a timeout crashed, else refused.
fn classify((ok, stderr): (bool, String)) -> Outcome {
    if ok {
        return Outcome::Compiled;
    }
    if let Some(line) = stderr.lines().find_map(|l| l.strip_prefix(PANIC_MARK)) {
        return Outcome::Crashed(format!("panicked: {line}"));
    }
    if let Some(line) = stderr.lines().find_map(|l| l.strip_prefix("cpu-compile: no entry: ")) {
        return Outcome::NoEntry(format!("no GLCompute entry point: {line}"));
    }
    let message = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("(no output)").trim();
    if message.starts_with("timed out after") || !message.starts_with("cpu-compile: ") {
        // A timeout, or a child that died without its report (a signal, an abort in LLVM).
        return Outcome::Crashed(message.to_string());
    }
    Outcome::Refused(message.trim_start_matches("cpu-compile: ").to_string())
}

/// A refusal's class: the message with source locations (`loc(...)`, `file:line:col`)
/// and numbers blanked, so the same refusal in two shaders is one class.
fn refusal_class(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("loc(") {
        out.push_str(&rest[..at]);
        // Skip to the matching parenthesis (locations nest: `loc(callsite(...))`).
        let mut depth = 0usize;
        let mut end = rest.len();
        for (i, c) in rest[at..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = at + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push_str("loc(..)");
        rest = &rest[end..];
    }
    out.push_str(rest);
    let mut blanked = String::with_capacity(out.len());
    let mut in_number = false;
    let mut prev = ' ';
    for c in out.chars() {
        // A digit run not inside a word (`%42`, `: 12:`, ` 3 `) is a number; `vec4`,
        // `f32` and `cs_6_0` keep theirs.
        let starts_number = c.is_ascii_digit() && !(prev.is_ascii_alphanumeric() || prev == '_');
        if starts_number || (in_number && c.is_ascii_digit()) {
            if !in_number {
                blanked.push('N');
            }
            in_number = true;
        } else {
            in_number = false;
            blanked.push(c);
        }
        prev = c;
    }
    blanked
}

/// The child mode: compiles `file`'s first GLCompute entry point with the CPU device.
/// Exit 0 when it compiles; otherwise one `cpu-compile: ...` line on stderr and exit 1.
fn compile_one(file: &Path) -> Result<()> {
    std::panic::set_hook(Box::new(|info| {
        let location = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        eprintln!("{PANIC_MARK}{payload}{location}");
    }));
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let entry = spirvkit_run::words_from_bytes(&bytes)
        .and_then(|words| Ok((spirvkit_run::reflect(&words)?, words)))
        .map_err(|e| e.to_string())
        .and_then(|(reflection, words)| {
            let entry = reflection.entry_points.iter().find(|e| e.is_compute()).map(|e| e.name.clone());
            entry.map(|e| (e, words)).ok_or_else(|| "none declared".to_string())
        });
    let (entry, words) = match entry {
        Ok(found) => found,
        Err(e) => {
            eprintln!("cpu-compile: no entry: {e}");
            std::process::exit(1);
        }
    };
    match spirvkit_jit::CpuDevice::new().compile(&words, &entry, &[], &[]) {
        Ok(_) => Ok(()),
        Err(e) => {
            eprintln!("cpu-compile: {}", e.to_string().lines().next().unwrap_or(""));
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusal_classes_blank_locations_and_numbers() {
        assert_eq!(
            refusal_class("converting to LLVM: loc(\"a.hlsl\":12:3): not supported yet: op spirv.Foo on %42"),
            "converting to LLVM: loc(..): not supported yet: op spirv.Foo on %N"
        );
        assert_eq!(
            refusal_class("loc(callsite(\"x\"(\"a\":1:2))) vector<4xf32> of cs_6_0"),
            "loc(..) vector<Nxf32> of cs_6_0"
        );
        assert_eq!(refusal_class("binding 3 of set 12"), "binding N of set N");
    }

    #[test]
    fn child_reports_are_classified() {
        assert!(matches!(classify((true, String::new())), Outcome::Compiled));
        assert!(matches!(
            classify((false, "cpu-compile: not supported yet: images\n".into())),
            Outcome::Refused(m) if m == "not supported yet: images"
        ));
        assert!(matches!(
            classify((false, format!("{PANIC_MARK}index out of bounds\ncpu-compile: x\n"))),
            Outcome::Crashed(_)
        ));
        assert!(matches!(classify((false, "timed out after 30s".into())), Outcome::Crashed(_)));
        assert!(matches!(classify((false, "Segmentation fault".into())), Outcome::Crashed(_)));
        assert!(matches!(
            classify((false, "cpu-compile: no entry: none declared".into())),
            Outcome::NoEntry(_)
        ));
    }
}
