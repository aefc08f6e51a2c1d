//! `cargo xtask mlir-conformance [--corpus DIR] [--update-floor] [--filter SUBSTR]
//! [--compare-mlir-opt] [--jobs N]`: runs MLIR 22's own SPIR-V tests against spirvkit.
//!
//! For every `.mlir` file under `<corpus>/test/Dialect/SPIRV/IR`,
//! `<corpus>/test/Dialect/SPIRV/Transforms`, `<corpus>/test/Target/SPIRV`,
//! `<corpus>/test/Conversion/SPIRVToLLVM` and its newer MLIR's version
//! `<corpus>/newer-than-mlir22/test/Conversion/SPIRVToLLVM`, the
//! `RUN:` lines are executed as the corpus README describes (and as lit would):
//! continuation lines ending in `\` are joined, lines wrapped in `%if FEATURE %{ .. %}`
//! are disabled (`%if spirv-tools` lines run when `spirv-val` is installed, counted in
//! their own row), `%s` is the file, `%t` a scratch path, and the tools are replaced:
//! `mlir-opt` by `target/release/spirvkit opt`, `mlir-translate` by
//! `target/release/spirvkit translate`, `FileCheck` by LLVM 22's `FileCheck-22`, `not`
//! and `split-file` by LLVM 22's. Each command runs as `bash -c 'set -o pipefail; ..'`
//! with a timeout; a RUN line passes when it exits with status 0 and a file passes
//! when all its RUN lines do. In the newer MLIR's folder, `mlir-opt` is
//! `spirvkit opt --mlir-print-strict-properties`: newer MLIR prints the properties a
//! declarative format does not bind as a `<name = value>` list (`llvm.load %p
//! <alignment = 4>`; MLIR 22: `{alignment = 4 : i64}`), a rule of its printer for every
//! such op, which the flag selects (see `NEWER_MLIR_OPT_FLAGS`).
//!
//! The RUN lines passed per directory are compared with the floor in
//! `conformance/mlir-floor.txt`; `--update-floor` rewrites it. `--compare-mlir-opt`
//! runs the same lines with the real `mlir-opt-22`/`mlir-translate-22` instead, to
//! check the harness itself (the corpus README says MLIR 22 passes every file); it
//! fails if anything fails and leaves the floor alone. `--filter` keeps the files
//! whose path (relative to the corpus) contains the text, and skips the floor.
//!
//! One more row, `llvm-dialect:print-identical` (with its floor in the same file), counts
//! the LLVM dialect texts `spirvkit opt` prints exactly as `mlir-opt-22` does, custom and
//! generic, reading its generic output back (`mlir_print_compare::llvm_dialect_print`:
//! the conversion's output for the SPIRVToLLVM cases, and `crates/ir/tests/llvm`); it is
//! skipped, floor kept, when mlir-opt-22 is not installed.

use crate::corpus::{display_path, files_with_extension, read_floor};
use crate::mlir_print_compare::LLVM_PRINT_ROW;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const FLOOR_PATH: &str = "conformance/mlir-floor.txt";
/// The directories of the corpus that are run, in report order.
const DIRS: [&str; 5] = [
    "test/Dialect/SPIRV/IR",
    "test/Dialect/SPIRV/Transforms",
    "test/Target/SPIRV",
    "test/Conversion/SPIRVToLLVM",
    // Newer MLIR's versions of the conversion tests (SNegate, GL.Pow, CL.*, pointer
    // casts, ...): mlir-opt-22 fails them, spirvkit is expected to pass their checks.
    "newer-than-mlir22/test/Conversion/SPIRVToLLVM",
];
/// The report row (and floor key) of the RUN lines lit only runs with the `spirv-tools`
/// feature (`%if spirv-tools %{ ... %}`: serialized modules checked by `spirv-val`),
/// counted apart from the plain RUN lines so the directories' figures keep the corpus
/// README's meaning (those lines disabled).
const VALIDATION_ROW: &str = "test/Target/SPIRV:spirv-tools-lines";
/// Report rows: the directories, then the spirv-tools lines.
const ROWS: usize = DIRS.len() + 1;

fn row_name(row: usize) -> &'static str {
    DIRS.get(row).copied().unwrap_or(VALIDATION_ROW)
}
/// A RUN line taking longer than this fails (its process group is killed).
const RUN_TIMEOUT: Duration = Duration::from_secs(60);
/// How many of the most common first-failure messages to show.
const TOP_MESSAGES: usize = 10;

/// Which tools stand behind `mlir-opt`/`mlir-translate`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Spirvkit,
    MlirOpt,
}

struct Tools {
    /// Tool name in RUN lines -> replacement text (already shell-quoted).
    substitutions: Vec<(&'static str, String)>,
}

struct Ctx {
    corpus: PathBuf,
    /// `spirv-val` is installed: the `%if spirv-tools` lines run.
    spirv_tools: bool,
    scratch: PathBuf,
    tools: Tools,
    /// The tools for the newer MLIR's folders ([`NEWER_MLIR_PREFIX`]): `spirvkit opt` prints
    /// newer MLIR's systematic syntax changes there (see [`NEWER_MLIR_OPT_FLAGS`]).
    newer_tools: Tools,
}

/// The folders of tests that expect a newer MLIR than 22.
const NEWER_MLIR_PREFIX: &str = "newer-than-mlir22/";
/// `spirvkit opt` flags for newer MLIR's files: the syntax changes of newer MLIR that
/// are systematic (a rule of its printer, not one op's format), which MLIR 22's own
/// folders must not see. `--mlir-print-strict-properties`: properties a declarative
/// format leaves to `attr-dict` print as newer MLIR's property list
/// (`llvm.load %p <alignment = 4>`, MLIR's strict property assembly formats).
const NEWER_MLIR_OPT_FLAGS: &str = "--mlir-print-strict-properties";

/// One RUN line's outcome.
struct RunOutcome {
    /// 1-based line of the (first line of the) RUN directive.
    line: usize,
    /// A `%if spirv-tools` line (run only when `spirv-val` is installed).
    validation: bool,
    ok: bool,
    /// Why it failed: the first non-empty stderr line, or the exit status.
    why: String,
}

struct FileReport {
    dir: usize,
    runs: Vec<RunOutcome>,
    /// A problem reading the file or its RUN lines (the file fails).
    error: Option<String>,
}

impl FileReport {
    fn passed(&self) -> bool {
        self.error.is_none() && self.runs.iter().all(|r| r.ok)
    }

    fn first_failure(&self) -> Option<(Option<usize>, &str)> {
        if let Some(e) = &self.error {
            return Some((None, e));
        }
        self.runs.iter().find(|r| !r.ok).map(|r| (Some(r.line), r.why.as_str()))
    }
}

const USAGE: &str = "usage: cargo xtask mlir-conformance [--corpus DIR] [--update-floor] [--filter SUBSTR] \
                     [--compare-mlir-opt] [--jobs N]";

pub fn run(args: &[String]) -> Result<()> {
    let mut corpus = None;
    let mut update_floor = false;
    let mut filter: Option<String> = None;
    let mut mode = Mode::Spirvkit;
    let mut jobs = 2usize;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--corpus" => corpus = Some(PathBuf::from(iter.next().context("--corpus needs a directory")?)),
            "--update-floor" => update_floor = true,
            "--filter" => filter = Some(iter.next().context("--filter needs a text")?.clone()),
            "--compare-mlir-opt" => mode = Mode::MlirOpt,
            "--jobs" | "-j" => {
                jobs =
                    iter.next().context("--jobs needs a number")?.parse().context("--jobs needs a number")?
            }
            other => bail!("{USAGE} (got `{other}`)"),
        }
    }
    if update_floor && (filter.is_some() || mode == Mode::MlirOpt) {
        bail!("--update-floor needs a full run of spirvkit (no --filter, no --compare-mlir-opt)");
    }
    let jobs = jobs.max(1);
    let corpus = corpus
        .or_else(|| std::env::var_os("SPIRVKIT_MLIR_CORPUS").map(PathBuf::from))
        .unwrap_or_else(|| crate::workspace_root().join("../shared/corpus/mlir-spirv"));
    if !corpus.is_dir() {
        println!("mlir-conformance: skipping: corpus not found at {}", corpus.display());
        return Ok(());
    }

    let scratch = std::env::temp_dir().join(format!(
        "spirvkit-mlir-conformance-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
    ));
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let _guard = crate::corpus::ScratchDir(scratch.clone());
    let tools = find_tools(mode, &scratch)?;
    let newer_tools = Tools {
        substitutions: tools
            .substitutions
            .iter()
            .map(|(name, replacement)| match (mode, *name) {
                (Mode::Spirvkit, "mlir-opt") => (*name, format!("{replacement} {NEWER_MLIR_OPT_FLAGS}")),
                _ => (*name, replacement.clone()),
            })
            .collect(),
    };

    let mut files = Vec::new();
    for (dir_index, dir) in DIRS.iter().enumerate() {
        // mlir-opt-22 fails the newer MLIR's tests by definition: the sanity mode
        // checks the harness on the folders MLIR 22 passes.
        if mode == Mode::MlirOpt && dir.starts_with(NEWER_MLIR_PREFIX) {
            continue;
        }
        let path = corpus.join(dir);
        if !path.is_dir() {
            bail!("{} is missing from the corpus", path.display());
        }
        let found =
            files_with_extension(&path, "mlir").with_context(|| format!("listing {}", path.display()))?;
        for file in found {
            let rel = display_path(&corpus, &file);
            if filter.as_deref().is_none_or(|f| rel.contains(f)) {
                files.push((dir_index, file));
            }
        }
    }
    if files.is_empty() {
        bail!("no .mlir files selected under {}", corpus.display());
    }

    let spirv_tools = spirv_val().is_some();
    if !spirv_tools {
        println!("mlir-conformance: spirv-val not found: the `%if spirv-tools` RUN lines are skipped");
    }
    let ctx = Ctx { corpus: corpus.clone(), spirv_tools, scratch, tools, newer_tools };
    let who = match mode {
        Mode::Spirvkit => "spirvkit",
        Mode::MlirOpt => "sanity mode: mlir-opt-22 / mlir-translate-22",
    };
    println!("mlir-conformance: {} files under {} ({who}, {jobs} workers)", files.len(), corpus.display());
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let reports: Vec<Mutex<Option<FileReport>>> = files.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some((dir, path)) = files.get(index) else { break };
                let report = check_file(&ctx, *dir, path, index);
                *reports[index].lock().unwrap() = Some(report);
            });
        }
    });
    let elapsed = started.elapsed();
    let reports: Vec<FileReport> =
        reports.into_iter().map(|r| r.into_inner().unwrap().expect("every file is checked")).collect();

    // Tally per directory.
    let floor_path = crate::workspace_root().join(FLOOR_PATH);
    let floor = if floor_path.exists() {
        read_floor(&floor_path, "directory run_lines_passed")?
    } else {
        BTreeMap::new()
    };
    let mut run_pass = [0usize; ROWS];
    let mut run_total = [0usize; ROWS];
    let mut file_pass = [0usize; ROWS];
    let mut file_total = [0usize; ROWS];
    for r in &reports {
        for run in &r.runs {
            let row = if run.validation { DIRS.len() } else { r.dir };
            run_total[row] += 1;
            run_pass[row] += usize::from(run.ok);
        }
        file_total[r.dir] += 1;
        file_pass[r.dir] += usize::from(r.passed());
    }
    println!();
    println!("{:<46} {:>13} {:>13} {:>6}", "directory", "RUN lines", "files", "floor");
    for i in 0..ROWS {
        let dir = row_name(i);
        let fl = floor.get(dir).map_or("-".to_string(), |n| n.to_string());
        let files =
            if i < DIRS.len() { format!("{}/{}", file_pass[i], file_total[i]) } else { String::new() };
        println!("{dir:<46} {:>13} {files:>13} {fl:>6}", format!("{}/{}", run_pass[i], run_total[i]));
    }
    let (rp, rt): (usize, usize) = (run_pass.iter().sum(), run_total.iter().sum());
    let (fp, ft): (usize, usize) = (file_pass.iter().sum(), file_total.iter().sum());
    println!("{:<46} {:>13} {:>13}", "total", format!("{rp}/{rt}"), format!("{fp}/{ft}"));
    println!("time: {:.1}s", elapsed.as_secs_f64());
    // The LLVM dialect row: spirvkit prints the conversion's output (and our own LLVM
    // dialect texts) exactly as mlir-opt-22 does; it needs mlir-opt-22 as the oracle.
    let llvm_print = if mode == Mode::Spirvkit && filter.is_none() {
        let ours = crate::built_binary("release", "spirvkit");
        let report = crate::mlir_print_compare::llvm_dialect_print(&corpus, &ours)?;
        match &report {
            Some(r) => {
                let fl = floor.get(LLVM_PRINT_ROW).map_or("-".to_string(), |n| n.to_string());
                println!(
                    "{LLVM_PRINT_ROW:<32} {:>13} {:>13} {fl:>6}",
                    format!("{}/{}", r.identical, r.cases),
                    ""
                );
                for d in r.differing.iter().take(10) {
                    println!("  differs: {d}");
                }
            }
            None => println!("{LLVM_PRINT_ROW}: skipped (mlir-opt-22, its oracle, is not installed)"),
        }
        report.map(|r| r.identical)
    } else {
        None
    };

    // Failing files, then the most common first failures.
    let failing: Vec<(&PathBuf, &FileReport)> =
        files.iter().map(|(_, p)| p).zip(&reports).filter(|(_, r)| !r.passed()).collect();
    if !failing.is_empty() {
        println!();
        println!("failing files ({}), first failing RUN line and its first stderr line:", failing.len());
        for (path, report) in &failing {
            let (line, why) = report.first_failure().expect("failing");
            let at = line.map_or(String::new(), |l| format!(":{l}"));
            println!("  {}{at}: {}", display_path(&ctx.corpus, path), clip(why));
        }
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for (_, report) in &failing {
            let (_, why) = report.first_failure().expect("failing");
            *counts.entry(normalize_message(why)).or_default() += 1;
        }
        let mut counts: Vec<(String, usize)> = counts.into_iter().collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        println!();
        println!("most common first failures (location prefixes removed):");
        for (message, n) in counts.iter().take(TOP_MESSAGES) {
            println!("  {n:>4}  {}", clip(message));
        }
    }
    println!();

    if mode == Mode::MlirOpt {
        // SPIRV-Tools older than MLIR 22 rejects some of its modules (newer capabilities):
        // reported, but not a harness error.
        let (vp, vt) = (run_pass[DIRS.len()], run_total[DIRS.len()]);
        if vp < vt {
            println!(
                "sanity mode: {} of {vt} spirv-tools lines fail with MLIR 22 and this spirv-val",
                vt - vp
            );
        }
        let (rp, rt) = (rp - vp, rt - vt);
        if rp < rt {
            bail!(
                "sanity mode: {} of {rt} RUN lines fail with MLIR 22 itself: the harness is wrong",
                rt - rp
            );
        }
        println!("mlir-conformance: sanity mode OK: MLIR 22 passes all {rt} RUN lines ({ft} files)");
        return Ok(());
    }
    if update_floor {
        let mut text = String::from(
            "# Minimum RUN lines passing per directory in `cargo xtask mlir-conformance` over\n\
             # ../shared/corpus/mlir-spirv. Regenerate with `cargo xtask mlir-conformance --update-floor`.\n",
        );
        for (i, pass) in run_pass.iter().enumerate() {
            text.push_str(&format!("{} {pass}\n", row_name(i)));
        }
        match (llvm_print, floor.get(LLVM_PRINT_ROW)) {
            (Some(identical), _) => text.push_str(&format!("{LLVM_PRINT_ROW} {identical}\n")),
            // Without the oracle the row keeps its floor.
            (None, Some(old)) => text.push_str(&format!("{LLVM_PRINT_ROW} {old}\n")),
            (None, None) => {}
        }
        if let Some(dir) = floor_path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&floor_path, text).with_context(|| format!("writing {}", floor_path.display()))?;
        println!("mlir-conformance: wrote {FLOOR_PATH}");
        return Ok(());
    }
    if filter.is_some() {
        println!("mlir-conformance: --filter given: floor not checked");
        return Ok(());
    }
    if floor.is_empty() {
        println!("mlir-conformance: no floor file at {FLOOR_PATH}; run with --update-floor to create it");
        return Ok(());
    }
    let mut below = Vec::new();
    let mut above = Vec::new();
    for (dir, &min) in &floor {
        if dir == LLVM_PRINT_ROW {
            match llvm_print {
                Some(identical) if identical < min => below.push(format!("{dir} {identical} < {min}")),
                Some(identical) if identical > min => above.push(dir.as_str()),
                _ => {}
            }
            continue;
        }
        let Some(i) = (0..ROWS).position(|i| row_name(i) == dir) else {
            bail!("{FLOOR_PATH} names unknown directory `{dir}`");
        };
        if run_pass[i] < min {
            below.push(format!("{dir} {} < {min}", run_pass[i]));
        } else if run_pass[i] > min {
            above.push(dir.as_str());
        }
    }
    if !below.is_empty() {
        bail!("mlir-conformance regressed below {FLOOR_PATH}: {}", below.join(", "));
    }
    if above.is_empty() {
        println!("mlir-conformance: OK (at the floor)");
    } else {
        println!(
            "mlir-conformance: OK; above the floor for {} (ratchet with `cargo xtask mlir-conformance --update-floor`)",
            above.join(", ")
        );
    }
    Ok(())
}

/// Finds the tools for `mode`; missing required ones are an error with a hint.
fn find_tools(mode: Mode, scratch: &Path) -> Result<Tools> {
    let filecheck = find_in_path("FileCheck-22").context(
        "FileCheck-22 not found: install LLVM 22's tools (`apt-get install llvm-22-tools`, \
         or run ./scripts/install-deps.sh)",
    )?;
    let not = match Some(PathBuf::from("/usr/lib/llvm-22/bin/not")).filter(|p| p.is_file()) {
        Some(p) => p,
        None => match find_in_path("not-22") {
            Some(p) => p,
            None => {
                // A minimal `not`: succeed iff the command fails.
                let shim = scratch.join("not");
                std::fs::write(&shim, "#!/bin/sh\n\"$@\"\n[ $? -ne 0 ]\n")?;
                make_executable(&shim)?;
                shim
            }
        },
    };
    let split_file = Some(PathBuf::from("/usr/lib/llvm-22/bin/split-file"))
        .filter(|p| p.is_file())
        .or_else(|| find_in_path("split-file-22"));
    let mut substitutions = vec![("FileCheck", quote(&filecheck)), ("not", quote(&not))];
    if let Some(p) = split_file {
        substitutions.push(("split-file", quote(&p)));
    }
    if let Some(spirv_val) = spirv_val() {
        // MLIR's lit setup lets `spirv-val DIR` validate every module saved in DIR
        // (`--spirv-save-validation-files-with-prefix=DIR/...`).
        let shim = scratch.join("spirv-val");
        std::fs::write(
            &shim,
            format!(
                "#!/bin/sh\nif [ $# -eq 1 ] && [ -d \"$1\" ]; then\n  status=0\n  \
                 for f in \"$1\"/*.spv; do [ -e \"$f\" ] || continue; {0} \"$f\" || status=1; done\n  \
                 exit $status\nfi\nexec {0} \"$@\"\n",
                quote(&spirv_val)
            ),
        )?;
        make_executable(&shim)?;
        substitutions.push(("spirv-val", quote(&shim)));
    }
    match mode {
        Mode::Spirvkit => {
            let spirvkit = spirvkit_binary_path();
            if !spirvkit.is_file() {
                bail!(
                    "{} not found: build it first with `cargo build --release -p spirvkit-cli`",
                    spirvkit.display()
                );
            }
            substitutions.push(("mlir-opt", format!("{} opt", quote(&spirvkit))));
            substitutions.push(("mlir-translate", format!("{} translate", quote(&spirvkit))));
        }
        Mode::MlirOpt => {
            for (name, tool) in [("mlir-opt", "mlir-opt-22"), ("mlir-translate", "mlir-translate-22")] {
                let path = find_in_path(tool).with_context(|| {
                    format!("{tool} not found: install MLIR 22 (`apt-get install mlir-22-tools`)")
                })?;
                substitutions.push((name, quote(&path)));
            }
        }
    }
    Ok(Tools { substitutions })
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    Ok(())
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<()> {
    Ok(())
}

/// The project's `spirv-val` (see `crate::spirv_val_tool`), when there is one.
fn spirv_val() -> Option<PathBuf> {
    let tool = crate::spirv_val_tool();
    if tool.is_absolute() {
        Some(tool.to_path_buf()).filter(|p| p.is_file())
    } else {
        find_in_path(&tool.to_string_lossy())
    }
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

fn spirvkit_binary_path() -> PathBuf {
    crate::built_binary("release", "spirvkit")
}

/// Single-quotes a path for bash when it needs it.
fn quote(path: &Path) -> String {
    let s = path.display().to_string();
    if s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+".contains(&b)) {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The RUN directives of a test file as lit reads them: `(line, command)`, with `\`
/// continuations joined and commands that `%if` disables dropped.
fn run_lines(text: &str, spirv_tools: bool) -> Result<Vec<(usize, String, bool)>, String> {
    let mut directives: Vec<(usize, String)> = Vec::new();
    let mut continuing = false;
    for (n, line) in text.lines().enumerate() {
        let Some(at) = line.find("RUN:") else { continue };
        let content = line[at + "RUN:".len()..].trim_end();
        if continuing {
            let last = directives.last_mut().expect("continuing a directive");
            last.1.pop(); // the `\`
            last.1.push_str(content);
        } else {
            directives.push((n + 1, content.to_string()));
        }
        continuing = content.ends_with('\\');
    }
    if continuing {
        return Err("RUN line ends with a continuation `\\` but no RUN line follows".into());
    }
    let mut out = Vec::new();
    for (line, command) in directives {
        let validation = command.contains("%if spirv-tools");
        let command = expand_if(&command, spirv_tools).map_err(|e| format!("RUN line {line}: {e}"))?;
        if !command.trim().is_empty() {
            out.push((line, command.trim().to_string(), validation));
        }
    }
    Ok(out)
}

/// lit's `%if FEATURE %{ A %} [%else %{ B %}]`: the only feature is `spirv-tools`,
/// available when `spirv_tools` is set.
fn expand_if(command: &str, spirv_tools: bool) -> Result<String, String> {
    crate::lit::expand_if(command, &|feature| spirv_tools && feature == "spirv-tools")
}

/// Replaces tool names standing as whole words (lit's tool substitutions).
fn substitute_tools(command: &str, tools: &Tools) -> String {
    let is_word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '%' | '=');
    let mut out = String::with_capacity(command.len());
    let mut i = 0;
    'outer: while i < command.len() {
        let before_ok = command[..i].chars().next_back().is_none_or(|c| !is_word(c));
        if before_ok {
            for (name, replacement) in &tools.substitutions {
                if command[i..].starts_with(name)
                    && command[i + name.len()..].chars().next().is_none_or(|c| !is_word(c))
                {
                    out.push_str(replacement);
                    i += name.len();
                    continue 'outer;
                }
            }
        }
        let c = command[i..].chars().next().expect("in bounds");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// lit's path substitutions: `%s`, `%S`, `%t`, `%T`, `%%`.
fn substitute_paths(command: &str, file: &Path, tmp: &Path) -> String {
    let mut out = String::with_capacity(command.len());
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('s') => out.push_str(&quote(file)),
            Some('S') => out.push_str(&quote(file.parent().unwrap_or(Path::new(".")))),
            Some('t') => out.push_str(&quote(tmp)),
            Some('T') => out.push_str(&quote(tmp.parent().unwrap_or(Path::new(".")))),
            Some('%') => out.push('%'),
            _ => {
                out.push('%');
                continue;
            }
        }
        chars.next();
    }
    out
}

fn check_file(ctx: &Ctx, dir: usize, path: &Path, index: usize) -> FileReport {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return FileReport { dir, runs: Vec::new(), error: Some(format!("cannot read file: {e}")) },
    };
    let lines = match run_lines(&text, ctx.spirv_tools) {
        Ok(lines) if lines.is_empty() => {
            return FileReport { dir, runs: Vec::new(), error: Some("no RUN lines".into()) }
        }
        Ok(lines) => lines,
        Err(e) => return FileReport { dir, runs: Vec::new(), error: Some(e) },
    };
    let work = ctx.scratch.join(index.to_string());
    if let Err(e) = std::fs::create_dir_all(&work) {
        return FileReport {
            dir,
            runs: Vec::new(),
            error: Some(format!("creating {}: {e}", work.display())),
        };
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = work.join(format!("{name}.tmp"));
    let runs = lines
        .into_iter()
        .map(|(line, command, validation)| {
            let tools = if DIRS[dir].starts_with(NEWER_MLIR_PREFIX) { &ctx.newer_tools } else { &ctx.tools };
            let command = substitute_paths(&substitute_tools(&command, tools), path, &tmp);
            let (ok, why) = run_command(&command, &work);
            RunOutcome { line, validation, ok, why }
        })
        .collect();
    let _ = std::fs::remove_dir_all(&work);
    FileReport { dir, runs, error: None }
}

/// Runs one RUN command; `(passed, why it failed)`.
fn run_command(command: &str, cwd: &Path) -> (bool, String) {
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(format!("set -o pipefail; {command}"))
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return (false, format!("cannot run bash: {e}")),
    };
    let mut stderr = child.stderr.take().expect("piped");
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
                // The whole pipeline: bash's process group.
                let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return (false, format!("waiting for bash: {e}"));
            }
        }
    };
    let stderr = reader.join().unwrap_or_default();
    let Some(status) = status else {
        return (false, format!("timed out after {}s", RUN_TIMEOUT.as_secs()));
    };
    if status.success() {
        return (true, String::new());
    }
    let stderr = String::from_utf8_lossy(&stderr);
    let first = stderr.lines().map(str::trim).find(|l| !l.is_empty());
    (false, first.map_or_else(|| format!("{status}, no output on stderr"), str::to_string))
}

/// A message without its `path:line:col: ` prefix and with double-quoted texts
/// elided (`expected error "…" was not produced`), for grouping failures.
fn normalize_message(message: &str) -> String {
    let message = strip_location(message);
    let mut out = String::with_capacity(message.len());
    let mut parts = message.split('"');
    out.push_str(parts.next().unwrap_or(""));
    let rest: Vec<&str> = parts.collect();
    if rest.len().is_multiple_of(2) {
        // Balanced quotes: every other part is quoted text.
        for (i, part) in rest.iter().enumerate() {
            out.push('"');
            out.push_str(if i % 2 == 0 { "…" } else { part });
        }
        out
    } else {
        message
    }
}

/// A message without its `path:line:col: ` prefix.
fn strip_location(message: &str) -> String {
    // `<path>:<line>[:<col>]: rest`, the path possibly `<stdin>` or `<unknown>`.
    let mut parts = message.splitn(4, ':');
    let (Some(_path), Some(line), Some(third)) = (parts.next(), parts.next(), parts.next()) else {
        return message.to_string();
    };
    if !line.chars().all(|c| c.is_ascii_digit()) || line.is_empty() {
        return message.to_string();
    }
    if third.chars().all(|c| c.is_ascii_digit()) && !third.is_empty() {
        parts.next().map_or_else(|| message.to_string(), |rest| rest.trim_start().to_string())
    } else {
        // `<unknown>:0: error: ..` has no column.
        let rest = message.splitn(3, ':').nth(2).unwrap_or(message);
        rest.trim_start().to_string()
    }
}

fn clip(s: &str) -> String {
    const MAX: usize = 160;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_lines_are_joined_and_filtered() {
        let text = "// RUN: mlir-opt --split-input-file \\\n// RUN:   --x %s \\\n// RUN: | FileCheck %s\n\
                    // RUN: %if spirv-tools %{ rm -rf %t %}\n# RUN: split-file %s %t\nfunc.func\n";
        let lines = run_lines(text, false).unwrap();
        assert_eq!(
            lines,
            [
                (1, "mlir-opt --split-input-file    --x %s  | FileCheck %s".to_string(), false),
                (5, "split-file %s %t".into(), false)
            ]
        );
        let with_tools = run_lines(text, true).unwrap();
        assert_eq!(with_tools[1], (4, "rm -rf %t".to_string(), true));
        assert_eq!(expand_if("a %if f %{ b %} %else %{ c %} d", false).unwrap(), "a  c  d");
        assert_eq!(expand_if("a %if f %{ b %} %else %{ c %} d", true).unwrap(), "a  c  d");
        assert_eq!(expand_if("a %if spirv-tools %{ b %} %else %{ c %} d", true).unwrap(), "a  b  d");
        assert_eq!(expand_if("%if spirv-tools %{ spirv-val %t %}", false).unwrap(), "");
        assert!(run_lines("// RUN: a \\\n", false).is_err());
    }

    #[test]
    fn substitutions() {
        let tools = Tools {
            substitutions: vec![
                ("FileCheck", "/u/FileCheck-22".into()),
                ("mlir-opt", "/t/spirvkit opt".into()),
                ("not", "/u/not".into()),
            ],
        };
        assert_eq!(
            substitute_tools("not mlir-opt -x %s | FileCheck %s --check-prefix=FileCheck", &tools),
            "/u/not /t/spirvkit opt -x %s | /u/FileCheck-22 %s --check-prefix=FileCheck"
        );
        assert_eq!(
            substitute_tools("ls %t/mlir-opt mlir-opt-22 nothing", &tools),
            "ls %t/mlir-opt mlir-opt-22 nothing"
        );
        assert_eq!(
            substitute_paths("a %s %t.spv %t/x 100%%", Path::new("/c/f.mlir"), Path::new("/w/f.mlir.tmp")),
            "a /c/f.mlir /w/f.mlir.tmp.spv /w/f.mlir.tmp/x 100%"
        );
    }

    #[test]
    fn messages_lose_their_location() {
        assert_eq!(normalize_message("/a/b.mlir:12:3: error: boom"), "error: boom");
        assert_eq!(normalize_message("<unknown>:0: error: lost"), "error: lost");
        assert_eq!(
            normalize_message("error: not supported yet: pass --cse"),
            "error: not supported yet: pass --cse"
        );
        assert_eq!(
            normalize_message("f:1:2: error: expected error \"x y\" was not produced"),
            "error: expected error \"…\" was not produced"
        );
        assert_eq!(normalize_message("error: odd \" quote"), "error: odd \" quote");
    }
}
