//! `cargo xtask hlsl-conformance [--corpus DIR] [--update-floor] [--jobs N] [--debug]`: runs the
//! front end (`hlsl2spirv -fsyntax-only`) over DXC's SPIR-V tests.
//!
//! Every `%dxc` RUN line of every `.hlsl` file under the corpus
//! (../shared/corpus/dxc-codegen-spirv) is a case: its options are passed on (`%s` is
//! the file, `%t` a scratch path; pipes and redirections are dropped) after
//! `-fsyntax-only`. A positive case passes when the front end exits 0. A `not %dxc`
//! case is negative; its CHECK lines say what dxc reports, and they decide its kind:
//! a front-end error (syntax or semantics), a code-generation error (mentions SPIR-V,
//! Vulkan, unsupported features, ...) or a command-line error. For each kind the run
//! reports how many cases we reject and how many of those print the CHECK text.
//! `-verify` cases are counted apart: they pass when `hlsl2spirv -verify` exits 0,
//! i.e. the front end reports exactly the diagnostics the file's `expected-*`
//! comments name. The counts are held to `conformance/hlsl-floor.txt`.
//!
//! A corpus folder holding a `manifest.json` is a list of an engine's compile jobs
//! instead (../shared/corpus/wicked-engine): see [`crate::hlsl_manifest`].
//! `--filecheck` runs the same tests as written, code generation and FileCheck
//! included: see [`crate::hlsl_filecheck`].

use crate::corpus::{display_path, files_with_extension, read_floor};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const FLOOR_PATH: &str = "conformance/hlsl-floor.txt";
/// A corpus holding this file is a list of compile jobs ([`crate::hlsl_manifest`]).
const MANIFEST: &str = "manifest.json";
pub const RUN_TIMEOUT: Duration = Duration::from_secs(30);
pub const TOP_MESSAGES: usize = 12;

/// What a negative case's CHECK lines expect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum NegativeKind {
    FrontEnd,
    Codegen,
    CommandLine,
}

impl NegativeKind {
    pub fn label(self) -> &'static str {
        match self {
            NegativeKind::FrontEnd => "front-end",
            NegativeKind::Codegen => "codegen",
            NegativeKind::CommandLine => "command-line",
        }
    }
}

/// One `%dxc` RUN line.
#[derive(Clone, Debug, PartialEq)]
pub struct RunLine {
    pub line: usize,
    /// `not %dxc`: dxc is expected to fail.
    pub negative: bool,
    /// The options, `%s` and `%t` still unsubstituted.
    pub args: Vec<String>,
    /// The CHECK prefixes FileCheck reads for this line (`--check-prefix(es)=`;
    /// `CHECK` when none is given).
    pub check_prefixes: Vec<String>,
}

impl RunLine {
    pub fn profile(&self) -> Option<&str> {
        self.value_of("-T")
    }

    pub fn entry(&self) -> Option<&str> {
        self.value_of("-E")
    }

    fn value_of(&self, flag: &str) -> Option<&str> {
        let i = self.args.iter().position(|a| a == flag)?;
        self.args.get(i + 1).map(String::as_str)
    }
}

/// The `%dxc` RUN lines of a test (continuations joined).
pub fn parse_run_lines(text: &str) -> Vec<RunLine> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let Some(pos) = line.find("RUN:") else { continue };
        let body = line[pos + 4..].trim();
        let (start, mut command) = pending.take().unwrap_or((n + 1, String::new()));
        if let Some(head) = body.strip_suffix('\\') {
            command.push_str(head);
            command.push(' ');
            pending = Some((start, command));
            continue;
        }
        command.push_str(body);
        if let Some(run) = parse_command(start, &command) {
            out.push(run);
        }
    }
    out
}

fn parse_command(line: usize, command: &str) -> Option<RunLine> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let dxc = words.iter().position(|w| *w == "%dxc")?;
    let negative = words[..dxc].contains(&"not");
    let mut args = Vec::new();
    let mut rest = words[dxc + 1..].iter();
    for word in rest.by_ref() {
        if *word == "|" {
            break;
        }
        // Redirections belong to the shell.
        if word.starts_with("2>") || word.starts_with('>') || *word == "&&" {
            continue;
        }
        args.push((*word).to_string());
    }
    let mut check_prefixes = Vec::new();
    let pipeline: Vec<&str> = rest.copied().take_while(|w| *w != "|").collect();
    if pipeline.first() == Some(&"FileCheck") {
        let mut words = pipeline.iter();
        while let Some(word) = words.next() {
            let option = word.trim_start_matches('-');
            let value = match option.split_once('=') {
                Some((name @ ("check-prefix" | "check-prefixes"), value)) => Some((name, value.to_string())),
                None if option == "check-prefix" || option == "check-prefixes" => {
                    words.next().map(|v| (option, v.to_string()))
                }
                _ => None,
            };
            if let Some((_, value)) = value {
                check_prefixes.extend(value.split(',').filter(|p| !p.is_empty()).map(str::to_string));
            }
        }
    }
    if check_prefixes.is_empty() {
        check_prefixes.push("CHECK".to_string());
    }
    Some(RunLine { line, negative, args, check_prefixes })
}

/// The file's `// PREFIX: text` comment lines (`-NOT` lines left out) as
/// (prefix, text): the CHECK lines of any FileCheck prefix.
pub fn check_lines(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("//") else { continue };
        let rest = rest.trim_start();
        let Some(colon) = rest.find(':') else { continue };
        let (prefix, body) = rest.split_at(colon);
        let is_check = !prefix.is_empty()
            && prefix.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-' || c == '_');
        if is_check && !prefix.ends_with("-NOT") {
            out.push((prefix.to_string(), body[1..].trim().to_string()));
        }
    }
    out
}

/// The texts of the CHECK lines a RUN line's FileCheck reads (`P:`, `P-NEXT:`, ...
/// for each of its prefixes `P`); the file's CHECK lines when none is its.
pub fn checks_for_run(lines: &[(String, String)], prefixes: &[String]) -> Vec<String> {
    const SUFFIXES: &[&str] = &["", "-NEXT", "-SAME", "-DAG", "-LABEL", "-EMPTY", "-COUNT"];
    let belongs = |line_prefix: &str| {
        prefixes.iter().any(|p| {
            line_prefix.strip_prefix(p.as_str()).is_some_and(|suffix| {
                SUFFIXES.contains(&suffix)
                    || suffix.strip_prefix("-COUNT-").is_some_and(|n| n.parse::<u32>().is_ok())
            })
        })
    };
    let own: Vec<String> = lines.iter().filter(|(p, _)| belongs(p)).map(|(_, t)| t.clone()).collect();
    if own.is_empty() {
        lines.iter().filter(|(p, _)| p.contains("CHECK")).map(|(_, t)| t.clone()).collect()
    } else {
        own
    }
}

/// Words that mark an error as code generation's (or a target feature's).
const CODEGEN_WORDS: &[&str] = &[
    "spir-v",
    "spirv",
    "vulkan",
    "vk::",
    "-fvk",
    "-fspv",
    "not supported",
    "unsupported",
    "unimplemented",
    "capability",
    "extension",
    "target env",
    "execution mode",
    "storage class",
    "decoration",
    "not yet",
    "is not allowed with",
    "opcode",
    "externally initialized",
    "global structures containing",
];

/// Classifies a negative case by its CHECK texts.
pub fn classify_negative(checks: &[String]) -> NegativeKind {
    let errors: Vec<String> =
        checks.iter().filter(|c| c.contains("error:")).map(|c| c.to_lowercase()).collect();
    if errors.is_empty() {
        let command_line = checks.iter().any(|c| {
            c.contains("-fvk")
                || c.contains("-fspv")
                || c.starts_with('-')
                || c.contains("dxc failed")
                || c.contains("Argument")
        });
        return if command_line { NegativeKind::CommandLine } else { NegativeKind::Codegen };
    }
    let message = &errors[0];
    if message.contains("-fvk-bind") || message.contains("-fspv-") && !message.contains("attribute") {
        return NegativeKind::CommandLine;
    }
    if CODEGEN_WORDS.iter().any(|w| message.contains(w)) {
        NegativeKind::Codegen
    } else {
        NegativeKind::FrontEnd
    }
}

/// The message part of the first CHECK text naming an error (after `error:`).
fn expected_error(checks: &[String]) -> Option<String> {
    let first = checks.iter().find(|c| c.contains("error:")).or_else(|| checks.first())?;
    let message = first.split_once("error:").map_or(first.as_str(), |(_, m)| m).trim();
    // FileCheck patterns may hold regexes; compare up to the first one.
    let literal = message.split("{{").next().unwrap_or("").trim();
    (!literal.is_empty()).then(|| literal.to_string())
}

struct CaseOutcome {
    file: usize,
    run: RunLine,
    ok_exit: bool,
    stderr: String,
}

struct FileInfo {
    path: PathBuf,
    checks: Vec<(String, String)>,
}

pub fn run(args: &[String]) -> Result<()> {
    if args.iter().any(|a| a == "--filecheck") {
        let rest: Vec<String> = args.iter().filter(|a| *a != "--filecheck").cloned().collect();
        return crate::hlsl_filecheck::run(&rest);
    }
    let mut corpus = crate::workspace_root().join("../shared/corpus/dxc-codegen-spirv");
    let mut update_floor = false;
    let mut allow_lower = false;
    let mut jobs = 2usize;
    let mut debug = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--corpus" => corpus = PathBuf::from(iter.next().context("--corpus needs a directory")?),
            "--update-floor" => update_floor = true,
            "--allow-lower" => allow_lower = true,
            "--debug" => debug = true,
            "--jobs" | "-j" => jobs = iter.next().context("--jobs needs a number")?.parse()?,
            other => bail!("unknown option `{other}`: usage: hlsl-conformance [--filecheck] [--corpus DIR] [--update-floor [--allow-lower]] [--jobs N] [--debug]"),
        }
    }
    let floor_mode = if update_floor { FloorMode::Update { allow_lower } } else { FloorMode::Check };
    if !corpus.is_dir() {
        println!("hlsl-conformance: no corpus at {}; skipped", corpus.display());
        return Ok(());
    }
    let binary = build_hlsl2spirv(debug)?;
    if corpus.join(MANIFEST).is_file() {
        return crate::hlsl_manifest::run(&corpus, &binary, jobs, floor_mode);
    }
    let scratch = crate::target_dir().join("hlsl-conformance");
    std::fs::create_dir_all(&scratch)?;

    let paths = files_with_extension(&corpus, "hlsl")?;
    let mut files = Vec::new();
    let mut cases = Vec::new();
    for path in paths {
        let text = String::from_utf8_lossy(&std::fs::read(&path)?).into_owned();
        let index = files.len();
        for run in parse_run_lines(&text) {
            cases.push((index, run));
        }
        files.push(FileInfo { checks: check_lines(&text), path });
    }
    println!(
        "hlsl-conformance: {} RUN lines in {} files under {} ({jobs} workers)",
        cases.len(),
        files.len(),
        corpus.display()
    );
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let outcomes: Vec<Mutex<Option<CaseOutcome>>> = cases.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((file, run)) = cases.get(i) else { break };
                let tmp = scratch.join(format!("case{i}"));
                let (ok_exit, stderr) = run_case(&binary, &files[*file].path, &tmp, run);
                if let Ok(mut slot) = outcomes[i].lock() {
                    *slot = Some(CaseOutcome { file: *file, run: run.clone(), ok_exit, stderr });
                }
            });
        }
    });
    let elapsed = started.elapsed();
    let outcomes: Vec<CaseOutcome> =
        outcomes.into_iter().filter_map(|m| m.into_inner().ok().flatten()).collect();

    // Tallies.
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut positive_file_ok: BTreeMap<usize, bool> = BTreeMap::new();
    let mut failing_positive = Vec::new();
    let mut negative: BTreeMap<NegativeKind, (usize, usize, usize)> = BTreeMap::new();
    let mut verify = (0usize, 0usize);
    let mut failing_verify = Vec::new();
    for o in &outcomes {
        let info = &files[o.file];
        let is_verify = !o.run.negative && o.run.args.iter().any(|a| a == "-verify");
        if is_verify {
            verify.0 += 1;
            if o.ok_exit {
                verify.1 += 1;
            } else {
                failing_verify.push(o);
            }
            continue;
        }
        if !o.run.negative {
            *counts.entry("positive_runs_total").or_default() += 1;
            *counts.entry("positive_runs").or_default() += usize::from(o.ok_exit);
            let entry = positive_file_ok.entry(o.file).or_insert(true);
            *entry &= o.ok_exit;
            if !o.ok_exit {
                failing_positive.push(o);
            }
            continue;
        }
        let checks = checks_for_run(&info.checks, &o.run.check_prefixes);
        let kind = classify_negative(&checks);
        let entry = negative.entry(kind).or_default();
        entry.0 += 1;
        if !o.ok_exit {
            entry.1 += 1;
            if expected_error(&checks).is_some_and(|m| o.stderr.contains(&m)) {
                entry.2 += 1;
            }
        }
    }
    let positive_files = positive_file_ok.len();
    let positive_files_ok = positive_file_ok.values().filter(|ok| **ok).count();
    let (pr, prt) = (
        counts.get("positive_runs").copied().unwrap_or(0),
        counts.get("positive_runs_total").copied().unwrap_or(0),
    );
    println!();
    println!("positive RUN lines accepted: {pr}/{prt} ({:.1}%)", percent(pr, prt));
    println!(
        "positive files accepted:     {positive_files_ok}/{positive_files} ({:.1}%)",
        percent(positive_files_ok, positive_files)
    );
    println!("-verify RUN lines matching:  {}/{} ({:.1}%)", verify.1, verify.0, percent(verify.1, verify.0));
    println!("negative RUN lines by what their CHECK lines expect:");
    println!("  {:<14} {:>6} {:>9} {:>14}", "kind", "total", "rejected", "match CHECK");
    for (kind, (total, rejected, matched)) in &negative {
        println!("  {:<14} {total:>6} {rejected:>9} {matched:>14}", kind.label());
    }
    println!("time: {:.1}s", elapsed.as_secs_f64());

    if !failing_verify.is_empty() {
        println!();
        println!("failing -verify RUN lines ({}):", failing_verify.len());
        for o in &failing_verify {
            println!(
                "  {}:{}: {}",
                display_path(&corpus, &files[o.file].path),
                o.run.line,
                clip(&one_line(&o.stderr))
            );
        }
    }
    if !failing_positive.is_empty() {
        println!();
        println!("failing positive RUN lines ({}), with the first error:", failing_positive.len());
        let mut messages: BTreeMap<String, usize> = BTreeMap::new();
        for o in &failing_positive {
            let first = first_error(&o.stderr);
            let target = format!("{} {}", o.run.profile().unwrap_or("-"), o.run.entry().unwrap_or("-"));
            println!(
                "  {}:{} [{target}]: {}",
                display_path(&corpus, &files[o.file].path),
                o.run.line,
                clip(&first)
            );
            *messages.entry(strip_location(&first)).or_default() += 1;
        }
        let mut messages: Vec<(String, usize)> = messages.into_iter().collect();
        messages.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        println!();
        println!("most common first errors (positive cases):");
        for (m, n) in messages.iter().take(TOP_MESSAGES) {
            println!("  {n:>4}  {}", clip(m));
        }
    }
    println!();

    let front = negative.get(&NegativeKind::FrontEnd).copied().unwrap_or_default();
    let all_rejected: usize = negative.values().map(|v| v.1).sum();
    let all_matched: usize = negative.values().map(|v| v.2).sum();
    let current: BTreeMap<String, usize> = [
        ("positive_runs", pr),
        ("positive_files", positive_files_ok),
        ("negative_frontend_rejected", front.1),
        ("negative_rejected", all_rejected),
        ("negative_matched", all_matched),
        ("verify_passed", verify.1),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    settle_floor(
        "hlsl-conformance",
        FLOOR_PATH,
        "# Minimum counts for `cargo xtask hlsl-conformance` over ../shared/corpus/dxc-codegen-spirv.\n\
         # Regenerate with `cargo xtask hlsl-conformance --update-floor`.\n",
        &current,
        floor_mode,
    )
}

/// Builds `hlsl2spirv` (release, or the dev build with `debug`: quicker to rebuild
/// while iterating) and returns the binary's path.
pub fn build_hlsl2spirv(debug: bool) -> Result<PathBuf> {
    let profile_args: &[&str] = if debug { &[] } else { &["--release"] };
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .arg("build")
        .args(profile_args)
        .args(["--quiet", "-p", "hlsl2spirv"])
        .current_dir(crate::workspace_root())
        .status()
        .context("building hlsl2spirv")?;
    if !status.success() {
        bail!("building hlsl2spirv failed");
    }
    Ok(crate::built_binary(if debug { "debug" } else { "release" }, "hlsl2spirv"))
}

/// What a run does with its floor file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloorMode {
    /// Fail when a count is below the floor.
    Check,
    /// Record the current counts; a lower count only with `allow_lower` (a ratchet).
    Update { allow_lower: bool },
}

/// Checks `current` against the floor file `floor_rel` (relative to the workspace), or
/// records it there under `header`; messages name the `harness`. Every count is a
/// minimum.
pub fn settle_floor(
    harness: &str,
    floor_rel: &str,
    header: &str,
    current: &BTreeMap<String, usize>,
    mode: FloorMode,
) -> Result<()> {
    settle_bounds(harness, floor_rel, header, current, &[], mode)
}

/// [`settle_floor`] where the counts named in `ceilings` are maxima instead (counts of
/// defects, e.g. invalid binaries): a run above one fails, and `--update-floor` raises
/// one only with `allow_lower` (which then means "allow a regression").
pub fn settle_bounds(
    harness: &str,
    floor_rel: &str,
    header: &str,
    current: &BTreeMap<String, usize>,
    ceilings: &[&str],
    mode: FloorMode,
) -> Result<()> {
    let floor_path = crate::workspace_root().join(floor_rel);
    let floor = if floor_path.exists() { Some(read_floor(&floor_path, "name count")?) } else { None };
    let worse: Vec<String> = floor
        .iter()
        .flatten()
        .filter_map(|(k, bound)| {
            let is_ceiling = ceilings.contains(&k.as_str());
            match current.get(k) {
                Some(have) if is_ceiling && have > bound => Some(format!("{k} {have} > {bound}")),
                Some(have) if !is_ceiling && have < bound => Some(format!("{k} {have} < {bound}")),
                Some(_) => None,
                None => Some(format!("{k} (no such count), bound {bound}")),
            }
        })
        .collect();
    match mode {
        FloorMode::Update { allow_lower } => {
            if !worse.is_empty() && !allow_lower {
                bail!(
                    "--update-floor would record a regression in {floor_rel}: {} (add --allow-lower to mean it)",
                    worse.join(", ")
                );
            }
            let mut text = header.to_string();
            for (k, v) in current {
                text.push_str(&format!("{k} {v}\n"));
            }
            std::fs::write(&floor_path, text)?;
            println!("{harness}: wrote {floor_rel}");
            Ok(())
        }
        FloorMode::Check => {
            if floor.is_none() {
                // A corpus without a floor of its own (one the project does not track).
                println!("{harness}: no floor at {floor_rel}; run with --update-floor to create it");
                return Ok(());
            }
            if !worse.is_empty() {
                bail!("{harness} regressed past {floor_rel}: {}", worse.join(", "));
            }
            println!("{harness}: OK (within the bounds of {floor_rel})");
            Ok(())
        }
    }
}

pub fn percent(n: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * n as f64 / total as f64
    }
}

/// A multi-line report on one line (`-verify` mismatches).
fn one_line(stderr: &str) -> String {
    stderr.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" | ")
}

pub fn first_error(stderr: &str) -> String {
    stderr
        .lines()
        .find(|l| l.contains("error"))
        .or_else(|| stderr.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("(no output)")
        .trim()
        .to_string()
}

/// A message without its `path:line:col: ` prefix.
pub fn strip_location(message: &str) -> String {
    match message.find(": error:") {
        Some(i) => message[i + 2..].to_string(),
        None => message.to_string(),
    }
}

pub fn clip(s: &str) -> String {
    const MAX: usize = 150;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

/// Runs one case: `hlsl2spirv -fsyntax-only ARGS`; `(exit status 0, stderr)`.
fn run_case(binary: &Path, file: &Path, tmp: &Path, run: &RunLine) -> (bool, String) {
    let file_text = file.display().to_string();
    let tmp_text = tmp.display().to_string();
    let args: Vec<String> =
        run.args.iter().map(|a| a.replace("%s", &file_text).replace("%t", &tmp_text)).collect();
    let mut cmd = Command::new(binary);
    cmd.arg("-fsyntax-only").args(&args);
    if let Some(dir) = file.parent() {
        cmd.current_dir(dir);
    }
    run_with_timeout(cmd)
}

/// Runs a command with no input, at most [`RUN_TIMEOUT`]; `(exit status 0, stderr)`.
pub fn run_with_timeout(mut cmd: Command) -> (bool, String) {
    let binary = cmd.get_program().to_owned();
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return (false, format!("cannot run {}: {e}", Path::new(&binary).display())),
    };
    let Some(mut stderr) = child.stderr.take() else { return (false, "no stderr".into()) };
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stderr.read_to_end(&mut v);
        v
    });
    let deadline = Instant::now() + RUN_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(1)),
            Err(_) => break None,
        }
    };
    let stderr = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
    match status {
        Some(s) => (s.success(), stderr),
        None => (false, format!("timed out after {}s", RUN_TIMEOUT.as_secs())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The floor is a ratchet: a run below it fails, and `--update-floor` lowers it
    /// only with `--allow-lower`.
    #[test]
    fn floors_only_go_down_when_asked() {
        let path = std::env::temp_dir().join(format!("spirvkit-floor-test-{}.txt", std::process::id()));
        let rel = path.to_str().expect("utf-8 temp path");
        std::fs::write(&path, "# header\naccepted 10\n").unwrap();
        let counts = |n: usize| BTreeMap::from([("accepted".to_string(), n)]);
        assert!(settle_floor("test", rel, "# h\n", &counts(10), FloorMode::Check).is_ok());
        assert!(settle_floor("test", rel, "# h\n", &counts(9), FloorMode::Check).is_err());
        assert!(
            settle_floor("test", rel, "# h\n", &counts(9), FloorMode::Update { allow_lower: false }).is_err()
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "# header\naccepted 10\n");
        assert!(
            settle_floor("test", rel, "# h\n", &counts(11), FloorMode::Update { allow_lower: false }).is_ok()
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "# h\naccepted 11\n");
        assert!(
            settle_floor("test", rel, "# h\n", &counts(9), FloorMode::Update { allow_lower: true }).is_ok()
        );
        let _ = std::fs::remove_file(&path);
    }

    /// A ceiling (a count of defects) fails a run above it, and is raised only with
    /// `--allow-lower`; going down is always recorded.
    #[test]
    fn ceilings_only_go_up_when_asked() {
        let path = std::env::temp_dir().join(format!("spirvkit-ceiling-test-{}.txt", std::process::id()));
        let rel = path.to_str().expect("utf-8 temp path");
        std::fs::write(&path, "invalid 0\nvalid 5\n").unwrap();
        let counts = |invalid: usize, valid: usize| {
            BTreeMap::from([("invalid".to_string(), invalid), ("valid".to_string(), valid)])
        };
        let ceilings = ["invalid"];
        assert!(settle_bounds("test", rel, "", &counts(0, 5), &ceilings, FloorMode::Check).is_ok());
        assert!(settle_bounds("test", rel, "", &counts(0, 9), &ceilings, FloorMode::Check).is_ok());
        assert!(settle_bounds("test", rel, "", &counts(1, 9), &ceilings, FloorMode::Check).is_err());
        assert!(settle_bounds("test", rel, "", &counts(0, 4), &ceilings, FloorMode::Check).is_err());
        let update = FloorMode::Update { allow_lower: false };
        assert!(settle_bounds("test", rel, "", &counts(1, 9), &ceilings, update).is_err());
        assert!(settle_bounds("test", rel, "", &counts(0, 9), &ceilings, update).is_ok());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "invalid 0\nvalid 9\n");
        let lower = FloorMode::Update { allow_lower: true };
        assert!(settle_bounds("test", rel, "", &counts(2, 9), &ceilings, lower).is_ok());
        assert!(settle_bounds("test", rel, "", &counts(1, 9), &ceilings, FloorMode::Check).is_ok());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn run_lines_with_flags_negatives_and_continuations() {
        let text = "// RUN: %dxc -T ps_6_0 -E main -fcgl  %s -spirv | FileCheck %s\n\
                    // RUN: not %dxc -T cs_6_6 -spirv %s 2>&1 -fvk-bind-sampler-heap -1 2 | FileCheck %s\n\
                    // RUN: %dxc -T vs_6_0 \\\n// RUN:   -E VSMain -DX=1 %s -spirv\n\
                    // RUN: FileCheck --input-file=%t.pp %s\n";
        let runs = parse_run_lines(text);
        assert_eq!(runs.len(), 3);
        assert_eq!(runs[0].profile(), Some("ps_6_0"));
        assert_eq!(runs[0].entry(), Some("main"));
        assert_eq!(runs[0].args, ["-T", "ps_6_0", "-E", "main", "-fcgl", "%s", "-spirv"]);
        assert!(runs[1].negative && !runs[0].negative);
        assert_eq!(runs[1].args, ["-T", "cs_6_6", "-spirv", "%s", "-fvk-bind-sampler-heap", "-1", "2"]);
        assert_eq!(runs[2].line, 3);
        assert_eq!(runs[2].entry(), Some("VSMain"));
        assert!(runs[2].args.contains(&"-DX=1".to_string()));
        assert_eq!(runs[0].check_prefixes, ["CHECK"]);
    }

    #[test]
    fn each_run_line_reads_its_own_check_prefixes() {
        let text =
            "// RUN: not %dxc -T cs_6_6 %s -fvk-bind-sampler-heap 1 | FileCheck %s --check-prefix=SAMPLER\n\
                    // RUN: not %dxc -T cs_6_6 %s | FileCheck %s -check-prefixes=A,B\n\
                    // RUN: not %dxc -T cs_6_6 %s | FileCheck --check-prefix COUNTER %s\n\
                    // SAMPLER: Argument to '-fvk-bind-sampler-heap' is missing.\n\
                    // COUNTER: Argument to '-fvk-bind-counter-heap' is missing.\n\
                    // B-NEXT: b\n// AB: not B's\n";
        let runs = parse_run_lines(text);
        assert_eq!(runs[0].check_prefixes, ["SAMPLER"]);
        assert_eq!(runs[1].check_prefixes, ["A", "B"]);
        assert_eq!(runs[2].check_prefixes, ["COUNTER"]);
        let lines = check_lines(text);
        assert_eq!(
            checks_for_run(&lines, &runs[0].check_prefixes),
            ["Argument to '-fvk-bind-sampler-heap' is missing."]
        );
        assert_eq!(checks_for_run(&lines, &runs[1].check_prefixes), ["b"]);
        assert_eq!(
            checks_for_run(&lines, &runs[2].check_prefixes),
            ["Argument to '-fvk-bind-counter-heap' is missing."]
        );
        // A prefix with no lines of its own falls back to the CHECK lines.
        let text = "// CHECK: a\n// NOTE: b\n";
        assert_eq!(checks_for_run(&check_lines(text), &["NONE".to_string()]), ["a"]);
    }

    #[test]
    fn check_lines_and_classification() {
        let text = "// CHECK: :4:3: error: expected ';' after expression\n// CHECK-NOT: x\nint a;\n";
        let checks = checks_for_run(&check_lines(text), &["CHECK".to_string()]);
        assert_eq!(checks, [":4:3: error: expected ';' after expression"]);
        assert_eq!(classify_negative(&checks), NegativeKind::FrontEnd);
        assert_eq!(expected_error(&checks).as_deref(), Some("expected ';' after expression"));
        let codegen = vec!["error: Texture resource type 'X' is not supported with -spirv".to_string()];
        assert_eq!(classify_negative(&codegen), NegativeKind::Codegen);
        let cli = vec!["-Fd is not supported with -spirv".to_string()];
        assert_eq!(classify_negative(&cli), NegativeKind::CommandLine);
        let heap = vec!["expected positive integer for -fvk-bind-sampler-heap, got: -1".to_string()];
        assert_eq!(classify_negative(&heap), NegativeKind::CommandLine);
        let regex = vec!["error: cannot convert {{.*}} to int".to_string()];
        assert_eq!(expected_error(&regex).as_deref(), Some("cannot convert"));
    }
}
