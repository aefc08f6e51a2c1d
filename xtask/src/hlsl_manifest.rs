//! `cargo xtask hlsl-conformance --corpus DIR` where DIR holds a `manifest.json`: an
//! engine's shaders as it compiles them (../shared/corpus/wicked-engine).
//!
//! The manifest is a list of jobs, each with `id`, `file` and `args` (the exact dxc
//! arguments, paths relative to the corpus folder). Each job runs from the corpus
//! folder as `hlsl2spirv <args> -fsyntax-only <file>`. A job is accepted when it exits
//! 0, and clean when it also prints no warning (the engine's flags silence the
//! warnings it does not want from dxc, so any warning left is one dxc would not give
//! or one the engine lives with; both are worth seeing). The counts are held to
//! `conformance/<corpus folder name>-floor.txt`.

use crate::hlsl_conformance::{
    clip, first_error, percent, run_with_timeout, strip_location, FloorMode, TOP_MESSAGES,
};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// One compile job of the manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub id: String,
    pub file: String,
    pub args: Vec<String>,
}

/// The jobs of a `manifest.json`.
pub fn parse_manifest(text: &str) -> Result<Vec<Job>> {
    let value: serde_json::Value = serde_json::from_str(text).context("manifest.json is not JSON")?;
    let list = value.as_array().context("manifest.json: expected a list of jobs")?;
    let mut jobs = Vec::with_capacity(list.len());
    for (i, entry) in list.iter().enumerate() {
        let field = |name: &str| {
            entry
                .get(name)
                .and_then(|v| v.as_str())
                .map(str::to_string)
                .with_context(|| format!("manifest.json: job {i} has no string `{name}`"))
        };
        let args = entry
            .get("args")
            .and_then(|v| v.as_array())
            .with_context(|| format!("manifest.json: job {i} has no `args` list"))?
            .iter()
            .map(|a| a.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .with_context(|| format!("manifest.json: job {i} has a non-string argument"))?;
        jobs.push(Job { id: field("id")?, file: field("file")?, args });
    }
    Ok(jobs)
}

struct Outcome {
    accepted: bool,
    stderr: String,
    /// The compile to SPIR-V, when the front end accepted the job.
    compiled: Option<Compiled>,
}

/// The text after `warning:` of each warning line, flag included.
fn warnings(stderr: &str) -> impl Iterator<Item = &str> {
    stderr.lines().filter_map(|l| l.split_once(": warning: ").map(|(_, w)| w.trim()))
}

pub fn run(corpus: &Path, binary: &Path, jobs: usize, floor_mode: FloorMode) -> Result<()> {
    let manifest = corpus.join("manifest.json");
    let text =
        std::fs::read_to_string(&manifest).with_context(|| format!("reading {}", manifest.display()))?;
    let list = parse_manifest(&text)?;
    let name = corpus
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .context("the corpus folder has no name")?;
    let floor_rel = format!("conformance/{name}-floor.txt");
    println!("hlsl-conformance: {} jobs of {} ({jobs} workers)", list.len(), manifest.display());
    let started = Instant::now();
    let scratch = crate::target_dir().join("hlsl-manifest-binaries");
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let validator = Some(crate::spirv_val_tool().to_path_buf())
        .filter(|p| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()));
    if validator.is_none() {
        println!("hlsl-conformance: no spirv-val found: binaries are not validated");
    }
    let next = AtomicUsize::new(0);
    let outcomes: Vec<Mutex<Option<Outcome>>> = list.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = list.get(i) else { break };
                let mut cmd = Command::new(binary);
                cmd.args(&job.args).arg("-fsyntax-only").arg(&job.file).current_dir(corpus);
                let (accepted, stderr) = run_with_timeout(cmd);
                // Then the whole compile, its binary checked by spirv-val as dxc checks
                // its own.
                let compiled = accepted
                    .then(|| compile_and_validate(binary, corpus, job, &scratch, i, validator.as_deref()));
                if let Ok(mut slot) = outcomes[i].lock() {
                    *slot = Some(Outcome { accepted, stderr, compiled });
                }
            });
        }
    });
    let elapsed = started.elapsed();
    let outcomes: Vec<Option<Outcome>> =
        outcomes.into_iter().map(|m| m.into_inner().ok().flatten()).collect();

    let total = list.len();
    let mut accepted = 0;
    let mut clean = 0;
    let mut errors: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut warning_counts: BTreeMap<String, usize> = BTreeMap::new();
    for (job, outcome) in list.iter().zip(&outcomes) {
        let Some(o) = outcome else { continue };
        let mut warned = false;
        for w in warnings(&o.stderr) {
            warned = true;
            *warning_counts.entry(w.to_string()).or_default() += 1;
        }
        if o.accepted {
            accepted += 1;
            clean += usize::from(!warned);
            continue;
        }
        let first = first_error(&o.stderr);
        let entry = errors.entry(strip_location(&first)).or_insert_with(|| (0, String::new()));
        entry.0 += 1;
        if entry.1.is_empty() {
            entry.1 = format!("{} ({})", job.id, first.split(": error:").next().unwrap_or(""));
        }
    }
    let mut compiled = 0;
    let mut valid = 0;
    let mut invalid: Vec<(String, String)> = Vec::new();
    let mut compile_errors: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for (job, outcome) in list.iter().zip(&outcomes) {
        let Some(Some(c)) = outcome.as_ref().map(|o| &o.compiled) else { continue };
        match c {
            Compiled::Failed(message) => {
                let entry =
                    compile_errors.entry(strip_location(message)).or_insert_with(|| (0, job.id.clone()));
                entry.0 += 1;
            }
            Compiled::Valid => {
                compiled += 1;
                valid += 1;
            }
            Compiled::Unchecked => compiled += 1,
            Compiled::Invalid(message) => {
                compiled += 1;
                invalid.push((job.id.clone(), message.clone()));
            }
        }
    }
    println!();
    println!("jobs accepted:                {accepted}/{total} ({:.1}%)", percent(accepted, total));
    println!("jobs compiled to SPIR-V:      {compiled}/{total} ({:.1}%)", percent(compiled, total));
    println!("binaries valid (spirv-val):   {valid}/{compiled}, INVALID: {}", invalid.len());
    if !compile_errors.is_empty() {
        let mut by_count: Vec<(&String, &(usize, String))> = compile_errors.iter().collect();
        by_count.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then_with(|| a.0.cmp(b.0)));
        println!("most common compile errors ({} distinct), with a job that shows it:", by_count.len());
        for (message, (n, example)) in by_count.iter().take(TOP_MESSAGES) {
            println!("  {n:>4}  {}  (e.g. {example})", clip(message));
        }
    }
    if !invalid.is_empty() {
        println!("!!! INVALID BINARIES ({}): each is a bug", invalid.len());
        for (id, message) in &invalid {
            println!("  {id}: {}", clip(message));
        }
    }
    println!("jobs accepted with no warning: {clean}/{total} ({:.1}%)", percent(clean, total));
    println!("time: {:.1}s", elapsed.as_secs_f64());
    if !errors.is_empty() {
        let mut by_count: Vec<(&String, &(usize, String))> = errors.iter().collect();
        by_count.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then_with(|| a.0.cmp(b.0)));
        println!();
        println!("most common first errors ({} distinct), with a job that shows it:", by_count.len());
        for (message, (n, example)) in by_count.iter().take(TOP_MESSAGES) {
            println!("  {n:>4}  {}", clip(message));
            println!("        e.g. {example}");
        }
    }
    if !warning_counts.is_empty() {
        let mut by_count: Vec<(&String, &usize)> = warning_counts.iter().collect();
        by_count.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        println!();
        println!("most common warnings:");
        for (message, n) in by_count.iter().take(TOP_MESSAGES) {
            println!("  {n:>4}  {}", clip(message));
        }
    }
    println!();

    let current: BTreeMap<String, usize> = [
        ("accepted", accepted),
        ("accepted_without_warnings", clean),
        ("compiled", compiled),
        ("binaries_valid", valid),
        ("binaries_invalid", invalid.len()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let header = format!(
        "# Minimum counts for `cargo xtask hlsl-conformance --corpus ../shared/corpus/{name}` ({total} jobs).\n\
         # Regenerate with `cargo xtask hlsl-conformance --corpus ../shared/corpus/{name} --update-floor`.\n"
    );
    crate::hlsl_conformance::settle_bounds(
        "hlsl-conformance",
        &floor_rel,
        &header,
        &current,
        &["binaries_invalid"],
        floor_mode,
    )
}

/// What compiling a job gave.
enum Compiled {
    Failed(String),
    Valid,
    Invalid(String),
    /// No validator to ask.
    Unchecked,
}

fn compile_and_validate(
    binary: &Path,
    corpus: &Path,
    job: &Job,
    scratch: &Path,
    index: usize,
    validator: Option<&Path>,
) -> Compiled {
    let out = scratch.join(format!("job{index}.spv"));
    let mut cmd = Command::new(binary);
    cmd.args(&job.args).arg(&job.file).arg("-Fo").arg(&out).current_dir(corpus);
    let (ok, stderr) = run_with_timeout(cmd);
    if !ok {
        return Compiled::Failed(first_error(&stderr));
    }
    let Some(validator) = validator else { return Compiled::Unchecked };
    let options = crate::hlsl_filecheck::spirv_val_options(&job.args);
    match Command::new(validator).args(&options).arg(&out).output() {
        Ok(o) if o.status.success() => Compiled::Valid,
        Ok(o) => {
            let text = String::from_utf8_lossy(&o.stderr).into_owned() + &String::from_utf8_lossy(&o.stdout);
            Compiled::Invalid(text.lines().next().unwrap_or("").to_string())
        }
        Err(e) => Compiled::Invalid(format!("spirv-val did not run: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_jobs_and_malformed_manifests() {
        let jobs = parse_manifest(
            r#"[{"id": "a_cs", "file": "shaders/a.hlsl", "stage": "cs", "args": ["-T", "cs_6_0", "-E", "main"]}]"#,
        )
        .unwrap();
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].id, "a_cs");
        assert_eq!(jobs[0].file, "shaders/a.hlsl");
        assert_eq!(jobs[0].args, ["-T", "cs_6_0", "-E", "main"]);
        assert!(parse_manifest("{}").is_err());
        assert!(parse_manifest(r#"[{"id": "a", "file": "f"}]"#).is_err());
        assert!(parse_manifest(r#"[{"id": "a", "file": "f", "args": [1]}]"#).is_err());
    }

    #[test]
    fn warning_lines_are_counted_by_message() {
        let stderr = "a.hlsl:1:2: warning: implicit truncation of vector type [-Wconversion]\n\
                      a.hlsl:3:4: error: x\n1 warning and 1 error generated.\n";
        assert_eq!(
            warnings(stderr).collect::<Vec<_>>(),
            ["implicit truncation of vector type [-Wconversion]"]
        );
    }
}
