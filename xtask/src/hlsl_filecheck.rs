//! `cargo xtask hlsl-conformance --filecheck [--corpus DIR] [--filter SUBSTR] [--jobs N]
//! [--update-floor [--allow-lower]] [--debug] [--report FILE]`: DXC's SPIR-V tests run as
//! written, the way lit runs them, with `hlsl2spirv` standing for dxc.
//!
//! Every `.hlsl` / `.hlsl2spv` file under the corpus (../shared/corpus/dxc-codegen-spirv;
//! the suffixes of its `lit.local.cfg`) is a test; its RUN lines run in order (they
//! share `%t`), each as lit would ([`crate::lit`]): `%dxc` is the `hlsl2spirv` binary,
//! `%s` the file, `%t`/`%T` scratch paths, `FileCheck` LLVM 22's `FileCheck-22`, `not`
//! inverts a status (`not --crash` wants a crash), pipelines fail when any command
//! fails, and each RUN line has [`RUN_TIMEOUT`]. `REQUIRES:`/`UNSUPPORTED:` skip a test
//! as lit would (the only feature this harness has is `spirv`); `XFAIL:` tests run but
//! are counted apart.
//!
//! A RUN line with `not %dxc` is negative: it passes when `hlsl2spirv` fails and the
//! rest of the line (FileCheck on its `2>&1` output) passes. Any other RUN line is
//! positive: it passes when every command passes. Each positive line whose
//! `hlsl2spirv` succeeded is compiled again with `-Fo <scratch>.spv` and the binary
//! checked with the project's `spirv-val` ([`crate::spirv_val_tool`]) with the options
//! dxc validates with: the line's `-fspv-target-env` (default vulkan1.0), the block
//! layout rules of its `-fvk-use-*-layout`, `--before-hlsl-legalization` with `-fcgl`.
//!
//! Lines are grouped by category (the file name up to its first `.`, or the folder
//! for files in a subfolder) and by whether issue 16 covers what they test
//! ([`later_feature`]). A crash of `hlsl2spirv` (a signal, a panic, the timeout) is
//! counted wherever it happens. The counts are held to
//! `conformance/hlsl-filecheck-floor.txt` (`binaries_invalid` and `hlsl2spirv_crashes`
//! are ceilings), and every line's verdict, with its hlsl2spirv arguments, goes to
//! `<target>/hlsl-filecheck-report.txt`. `--filter` runs a subset and leaves the floor
//! alone (an invalid binary still fails it).

use crate::corpus::{display_path, ScratchDir};
use crate::hlsl_conformance::{
    check_lines, checks_for_run, classify_negative, clip, percent, settle_bounds, FloorMode, NegativeKind,
    TOP_MESSAGES,
};
use crate::lit::{self, Cmd, Expect, Join, Runner, Script};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const FLOOR_PATH: &str = "conformance/hlsl-filecheck-floor.txt";
/// The floor keys that are maxima.
const CEILINGS: &[&str] = &["binaries_invalid", "hlsl2spirv_crashes"];
/// The corpus's test suffixes (its `lit.local.cfg`).
const SUFFIXES: &[&str] = &["hlsl", "hlsl2spv"];
/// lit features this harness provides (the corpus's `lit.local.cfg` needs `spirv`).
const FEATURES: &[&str] = &["spirv"];
pub const RUN_TIMEOUT: Duration = Duration::from_secs(20);
/// The first word of a SPIR-V binary.
const SPIRV_MAGIC: [u8; 4] = 0x0723_0203u32.to_le_bytes();

const USAGE: &str = "usage: cargo xtask hlsl-conformance --filecheck [--corpus DIR] [--filter SUBSTR] \
                     [--jobs N] [--update-floor [--allow-lower]] [--debug] [--report FILE]";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Positive,
    Negative,
}

/// What dxc does to the code a line checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum OptLevel {
    /// `-P`, `-verify`, ...: no code is generated.
    NoCode,
    /// `-fcgl`: the raw form, neither legalized nor optimized.
    HighLevel,
    /// `-O0` / `-Od`: legalized only.
    LegalizedOnly,
    /// dxc's default `-O3` (or `-O1`..`-O3`): legalized and optimized.
    Optimized,
}

impl OptLevel {
    fn of(args: &[String]) -> OptLevel {
        if writes_no_binary(args) {
            OptLevel::NoCode
        } else if args.iter().any(|a| a == "-fcgl") {
            OptLevel::HighLevel
        } else if args.iter().any(|a| a == "-O0" || a == "-Od") {
            OptLevel::LegalizedOnly
        } else {
            OptLevel::Optimized
        }
    }

    fn label(self) -> &'static str {
        match self {
            OptLevel::NoCode => "no code (-P, -verify, FileCheck only)",
            OptLevel::HighLevel => "-fcgl",
            OptLevel::LegalizedOnly => "-O0/-Od",
            OptLevel::Optimized => "optimized (-O3 default)",
        }
    }
}

/// The spirv-val verdict on a positive line's binary.
#[derive(Clone, Debug, PartialEq)]
enum BinaryCheck {
    Valid,
    /// spirv-val's first message and the options it ran with.
    Invalid {
        message: String,
        options: String,
    },
    /// `-Fo` wrote nothing (or not SPIR-V) although the line's own run succeeded.
    NotWritten(String),
}

#[derive(Clone, Debug)]
struct LineOutcome {
    /// 1-based line of the RUN directive.
    line: usize,
    /// 1-based index of the RUN line in its file.
    index: usize,
    kind: Kind,
    /// For a negative line: what its CHECK lines expect (a front-end, codegen or
    /// command-line error).
    negative_kind: Option<NegativeKind>,
    /// `None` when it passed; else the first failure.
    failure: Option<String>,
    /// Why it was not run (lit's REQUIRES / UNSUPPORTED).
    skipped: Option<String>,
    /// The test says `XFAIL`.
    xfail: bool,
    /// The later-issue feature the line tests, if any.
    later: Option<&'static str>,
    opt: OptLevel,
    binary: Option<BinaryCheck>,
    /// How hlsl2spirv crashed (a signal, a panic, an internal error, the timeout).
    crash: Option<String>,
    /// The hlsl2spirv arguments (substituted), for the report.
    dxc_args: Vec<String>,
}

struct FileOutcome {
    rel: String,
    category: String,
    lines: Vec<LineOutcome>,
    /// A problem with the file itself (no RUN lines, bad directives).
    error: Option<String>,
}

/// What every worker needs.
struct Ctx {
    corpus: PathBuf,
    dxc: PathBuf,
    filecheck: PathBuf,
    spirv_val: Option<PathBuf>,
    scratch: PathBuf,
}

pub fn run(args: &[String]) -> Result<()> {
    let mut corpus = crate::workspace_root().join("../shared/corpus/dxc-codegen-spirv");
    let mut filter: Option<String> = None;
    let mut jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut update_floor = false;
    let mut allow_lower = false;
    let mut debug = false;
    let mut report_path = crate::target_dir().join("hlsl-filecheck-report.txt");
    // Hidden: another program stands for `%dxc` (to test the harness itself).
    let mut dxc_override: Option<PathBuf> = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--corpus" => corpus = PathBuf::from(iter.next().context("--corpus needs a directory")?),
            "--filter" => filter = Some(iter.next().context("--filter needs a text")?.clone()),
            "--jobs" | "-j" => {
                jobs =
                    iter.next().context("--jobs needs a number")?.parse().context("--jobs needs a number")?
            }
            "--update-floor" => update_floor = true,
            "--allow-lower" => allow_lower = true,
            "--debug" => debug = true,
            "--report" => report_path = PathBuf::from(iter.next().context("--report needs a file")?),
            "--dxc" => dxc_override = Some(PathBuf::from(iter.next().context("--dxc needs a program")?)),
            other => bail!("{USAGE} (got `{other}`)"),
        }
    }
    if update_floor && (filter.is_some() || dxc_override.is_some()) {
        bail!("--update-floor needs a full run of hlsl2spirv (no --filter, no --dxc)");
    }
    if !corpus.is_dir() {
        println!("hlsl-conformance --filecheck: no corpus at {}; skipped", corpus.display());
        return Ok(());
    }
    // Shorter paths in the report (`/work/shared/...`, not `/work/x/../shared/...`).
    let corpus = corpus.canonicalize().unwrap_or(corpus);
    let Some(filecheck) = find_filecheck() else {
        println!(
            "hlsl-conformance --filecheck: FileCheck-22 not found (on PATH or /usr/lib/llvm-22/bin); skipped. \
             Install LLVM 22's tools: `apt-get install llvm-22-tools` (./scripts/install-deps.sh does)"
        );
        return Ok(());
    };
    let spirv_val = usable_spirv_val();
    if spirv_val.is_none() {
        println!(
            "hlsl-conformance --filecheck: WARNING: no working spirv-val ({}): binaries are not validated \
             (./scripts/install-deps.sh installs the current one in .venv)",
            crate::spirv_val_tool().display()
        );
    }
    let dxc = match dxc_override {
        Some(p) => p,
        None => crate::hlsl_conformance::build_hlsl2spirv(debug)?,
    };
    let scratch = crate::target_dir().join(format!("hlsl-filecheck-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let _guard = ScratchDir(scratch.clone());

    let mut files = Vec::new();
    for suffix in SUFFIXES {
        files.extend(crate::corpus::files_with_extension(&corpus, suffix)?);
    }
    files.sort();
    if let Some(f) = &filter {
        files.retain(|p| display_path(&corpus, p).contains(f.as_str()));
    }
    if files.is_empty() {
        bail!("no test selected under {}", corpus.display());
    }
    let jobs = jobs.max(1);
    println!(
        "hlsl-conformance --filecheck: {} files under {} ({jobs} workers)\n  %dxc = {}\n  FileCheck = {}\n  spirv-val = {}",
        files.len(),
        corpus.display(),
        dxc.display(),
        filecheck.display(),
        spirv_val.as_ref().map_or("(none)".to_string(), |(p, v)| format!("{} ({v})", p.display())),
    );
    let spirv_val = spirv_val.map(|(p, _)| p);
    let ctx = Ctx { corpus: corpus.clone(), dxc, filecheck, spirv_val, scratch };
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let outcomes: Vec<Mutex<Option<FileOutcome>>> = files.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                let outcome = run_file(&ctx, path, i);
                if let Ok(mut slot) = outcomes[i].lock() {
                    *slot = Some(outcome);
                }
            });
        }
    });
    let elapsed = started.elapsed();
    let outcomes: Vec<FileOutcome> =
        outcomes.into_iter().filter_map(|m| m.into_inner().ok().flatten()).collect();
    let tally = Tally::of(&outcomes);
    tally.print(&outcomes, elapsed);
    write_report(&report_path, &outcomes)?;
    println!("per-line verdicts: {}", report_path.display());
    println!();
    if filter.is_some()
        || ctx.dxc != crate::built_binary(if debug { "debug" } else { "release" }, "hlsl2spirv")
    {
        println!("hlsl-conformance --filecheck: partial or substituted run; floor not checked");
        if tally.binaries_invalid > 0 {
            bail!("{} invalid binaries", tally.binaries_invalid);
        }
        return Ok(());
    }
    let mode = if update_floor { FloorMode::Update { allow_lower } } else { FloorMode::Check };
    settle_bounds(
        "hlsl-conformance --filecheck",
        FLOOR_PATH,
        "# Bounds for `cargo xtask hlsl-conformance --filecheck` over ../shared/corpus/dxc-codegen-spirv:\n\
         # minimum counts, except binaries_invalid and hlsl2spirv_crashes, maxima (each one is a bug).\n\
         # Regenerate with `cargo xtask hlsl-conformance --filecheck --update-floor`.\n",
        &tally.floor_counts(),
        CEILINGS,
        mode,
    )
}

fn find_filecheck() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("FileCheck-22"))
        .chain(std::iter::once(PathBuf::from("/usr/lib/llvm-22/bin/FileCheck")))
        .find(|p| p.is_file())
}

/// The project's spirv-val when it runs, with its version line.
fn usable_spirv_val() -> Option<(PathBuf, String)> {
    let tool = crate::spirv_val_tool().to_path_buf();
    let output = std::process::Command::new(&tool).arg("--version").output().ok()?;
    let version = String::from_utf8_lossy(&output.stdout).lines().next().unwrap_or("").trim().to_string();
    output.status.success().then_some((tool, version))
}

/// The report category of a test: its file name up to the first `.`, or, for a file
/// in a subfolder of the corpus (`legal-examples/`, `inline-spirv/`, ...), that folder.
fn category(rel: &str) -> String {
    let mut parts = rel.split('/');
    let first = parts.next().unwrap_or(rel);
    if parts.next().is_some() {
        return first.to_string();
    }
    first.split('.').next().unwrap_or(first).to_string()
}

/// The source without its comments (the CHECK lines quote SPIR-V that would look
/// like the features [`later_feature`] looks for).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push(c);
                while let Some(d) = chars.next() {
                    out.push(d);
                    if d == '\\' {
                        if let Some(e) = chars.next() {
                            out.push(e);
                        }
                    } else if d == '"' || d == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for d in chars.by_ref() {
                    if last == '*' && d == '/' {
                        break;
                    }
                    if d == '\n' {
                        out.push('\n');
                    }
                    last = d;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The feature of the later issue (not issue 16's scope) a RUN line tests, judged
/// by what it uses: its `-T` profile and flags, and the source (comments left out).
/// `None`: in scope.
fn later_feature(code: &str, args: &[String]) -> Option<&'static str> {
    let profile = args
        .iter()
        .position(|a| a == "-T" || a == "/T")
        .and_then(|i| args.get(i + 1).cloned())
        .or_else(|| {
            args.iter().find_map(|a| a.strip_prefix("-T").filter(|p| p.contains('_')).map(str::to_string))
        })
        .unwrap_or_default();
    let compact: String =
        code.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
    let shader = |kinds: &[&str]| kinds.iter().any(|k| compact.contains(&format!("shader(\"{k}\")")));
    let uses = |words: &[&str]| words.iter().any(|w| compact.contains(w));
    if profile.starts_with("ms_")
        || profile.starts_with("as_")
        || shader(&["mesh", "amplification"])
        || uses(&["setmeshoutputcounts(", "dispatchmesh("])
    {
        return Some("mesh/amplification shaders");
    }
    if shader(&["node"]) || uses(&["nodeoutput<", "nodeinputrecord<", "emptynodeinput", "nodeoutputarray<"]) {
        return Some("node shaders");
    }
    if shader(&["raygeneration", "intersection", "anyhit", "closesthit", "miss", "callable"])
        || uses(&["rayquery<", "raytracingaccelerationstructure", "traceray(", "reporthit("])
    {
        return Some("ray tracing");
    }
    if uses(&["cooperativematrix", "cooperative_matrix"]) {
        return Some("cooperative matrices");
    }
    if uses(&["vk::bufferpointer"]) {
        return Some("vk::BufferPointer");
    }
    if uses(&["vk::ext_", "vk::spirvtype", "vk::spirvopaquetype", "vk::literal<"]) {
        return Some("inline SPIR-V");
    }
    let flag = |prefixes: &[&str]| args.iter().any(|a| prefixes.iter().any(|p| a.starts_with(p)));
    if flag(&["-fspv-debug=rich", "-fspv-debug=vulkan"]) {
        return Some("rich debug info");
    }
    if flag(&["-fspv-reflect"]) {
        return Some("reflection (-fspv-reflect)");
    }
    None
}

/// spirv-val's options for a binary dxc compiled with `args`, as dxc validates its
/// own output: the target environment, the block layout rules, and the patterns
/// allowed before legalization with `-fcgl`.
pub(crate) fn spirv_val_options(args: &[String]) -> Vec<String> {
    let env = args
        .iter()
        .rev()
        .find_map(|a| a.strip_prefix("-fspv-target-env="))
        .map(|env| match env {
            // dxc's spelling -> spirv-val's.
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

/// The options that make dxc write no SPIR-V binary.
fn writes_no_binary(args: &[String]) -> bool {
    args.iter().any(|a| {
        matches!(
            a.as_str(),
            "-P" | "/P" | "-verify" | "-fsyntax-only" | "-ast-dump" | "-help" | "--help" | "/?"
        )
    })
}

/// `args` with any `-Fo FILE` / `-FoFILE` / `/Fo FILE` removed and `-Fo out` added.
fn with_output(args: &[String], out: &Path) -> Vec<String> {
    let mut kept = Vec::with_capacity(args.len() + 2);
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        if a == "-Fo" || a == "/Fo" {
            iter.next();
        } else if !(a.starts_with("-Fo") || a.starts_with("/Fo")) {
            kept.push(a.clone());
        }
    }
    kept.push("-Fo".into());
    kept.push(out.display().to_string());
    kept
}

/// The check prefixes of a RUN line's FileCheck (`--check-prefix(es)`, in either
/// spelling, joined or separate; `CHECK` when none is given).
fn check_prefixes(script: &Script) -> Vec<String> {
    let mut prefixes = Vec::new();
    for cmd in script.iter().flat_map(|(_, p)| p) {
        if cmd.words.first().map(String::as_str) != Some("FileCheck") {
            continue;
        }
        let mut words = cmd.words.iter().skip(1);
        while let Some(word) = words.next() {
            let option = word.trim_start_matches('-');
            let value = match option.split_once('=') {
                Some(("check-prefix" | "check-prefixes", value)) => Some(value.to_string()),
                None if option == "check-prefix" || option == "check-prefixes" => words.next().cloned(),
                _ => None,
            };
            if let Some(value) = value {
                prefixes.extend(value.split(',').filter(|p| !p.is_empty()).map(str::to_string));
            }
        }
    }
    if prefixes.is_empty() {
        prefixes.push("CHECK".to_string());
    }
    prefixes
}

/// The `%dxc` command of a parsed RUN line (before substitution) and what `not`
/// asks of it.
fn dxc_command(script: &Script) -> Option<(&Cmd, Expect)> {
    script.iter().flat_map(|(_, p)| p).find_map(|cmd| {
        let (expect, words) = lit::strip_not(&cmd.words);
        (words.first().map(String::as_str) == Some("%dxc")).then_some((cmd, expect))
    })
}

fn run_file(ctx: &Ctx, path: &Path, index: usize) -> FileOutcome {
    let rel = display_path(&ctx.corpus, path);
    let mut outcome = FileOutcome { category: category(&rel), rel, lines: Vec::new(), error: None };
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            outcome.error = Some(format!("cannot read: {e}"));
            return outcome;
        }
    };
    let directives = match lit::parse_directives(&text) {
        Ok(d) => d,
        Err(e) => {
            outcome.error = Some(e);
            return outcome;
        }
    };
    if directives.runs.is_empty() {
        outcome.error = Some("no RUN lines (lit: unresolved)".into());
        return outcome;
    }
    let available = |f: &str| FEATURES.contains(&f);
    let eval_all = |exprs: &[String]| -> Result<Vec<String>, String> {
        let mut hits = Vec::new();
        for e in exprs {
            if lit::eval_feature_expr(e, &available)? {
                hits.push(e.clone());
            }
        }
        Ok(hits)
    };
    let skipped = (|| -> Result<Option<String>, String> {
        let mut missing = Vec::new();
        for e in &directives.requires {
            if !lit::eval_feature_expr(e, &available)? {
                missing.push(e.clone());
            }
        }
        if !missing.is_empty() {
            return Ok(Some(format!("REQUIRES: {}", missing.join(", "))));
        }
        let unsupported = eval_all(&directives.unsupported)?;
        Ok((!unsupported.is_empty()).then(|| format!("UNSUPPORTED: {}", unsupported.join(", "))))
    })();
    let skipped = match skipped {
        Ok(s) => s,
        Err(e) => {
            outcome.error = Some(format!("bad feature expression: {e}"));
            return outcome;
        }
    };
    let xfail = match eval_all(&directives.xfail) {
        Ok(hits) => !hits.is_empty(),
        Err(e) => {
            outcome.error = Some(format!("bad XFAIL expression: {e}"));
            return outcome;
        }
    };
    let code = strip_comments(&text);
    let checks = check_lines(&text);
    let work = ctx.scratch.join(index.to_string());
    if let Err(e) = std::fs::create_dir_all(&work) {
        outcome.error = Some(format!("creating {}: {e}", work.display()));
        return outcome;
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = work.join(format!("{name}.tmp"));
    let named = [("%dxc", ctx.dxc.display().to_string())];
    let runner = Runner {
        tools: BTreeMap::from([("FileCheck".to_string(), ctx.filecheck.clone())]),
        // DXC's tests were written for its in-tree FileCheck (LLVM 3.7), which accepts
        // `--check-prefix`es that a file never uses; LLVM 13+ refuses them unless told.
        env: vec![("FILECHECK_OPTS".to_string(), "--allow-unused-prefixes".to_string())],
        cwd: work.clone(),
        timeout: RUN_TIMEOUT,
    };
    for (n, (line, command)) in directives.runs.iter().enumerate() {
        let parsed = lit::expand_if(command, &available).and_then(|c| lit::parse_script(&c));
        let (kind, dxc_raw) = match &parsed {
            Ok(script) => match dxc_command(script) {
                Some((cmd, expect)) => {
                    let kind = if expect == Expect::Success { Kind::Positive } else { Kind::Negative };
                    (kind, lit::strip_not(&cmd.words).1.to_vec())
                }
                None => (Kind::Positive, Vec::new()),
            },
            Err(_) => (Kind::Positive, Vec::new()),
        };
        let dxc_args: Vec<String> =
            dxc_raw.iter().skip(1).map(|w| lit::substitute(w, &named, path, &tmp)).collect();
        let negative_kind = match (&parsed, kind) {
            (Ok(script), Kind::Negative) => {
                Some(classify_negative(&checks_for_run(&checks, &check_prefixes(script))))
            }
            _ => None,
        };
        let mut record = LineOutcome {
            line: *line,
            index: n + 1,
            kind,
            negative_kind,
            failure: None,
            skipped: skipped.clone(),
            xfail,
            later: later_feature(&code, &dxc_args),
            opt: if dxc_raw.is_empty() { OptLevel::NoCode } else { OptLevel::of(&dxc_args) },
            binary: None,
            crash: None,
            dxc_args: dxc_args.clone(),
        };
        if record.skipped.is_some() {
            outcome.lines.push(record);
            continue;
        }
        let script = match parsed {
            Ok(s) => s,
            Err(e) => {
                record.failure = Some(format!("cannot run this RUN line: {e}"));
                outcome.lines.push(record);
                continue;
            }
        };
        let script: Script = script
            .into_iter()
            .map(|(join, pipeline)| {
                let pipeline = pipeline
                    .into_iter()
                    .map(|cmd| Cmd {
                        words: cmd.words.iter().map(|w| lit::substitute(w, &named, path, &tmp)).collect(),
                        redirects: cmd
                            .redirects
                            .into_iter()
                            .map(|r| match r {
                                lit::Redirect::ToFile { fd, path: p, append } => lit::Redirect::ToFile {
                                    fd,
                                    path: lit::substitute(&p, &named, path, &tmp),
                                    append,
                                },
                                lit::Redirect::FromFile(p) => {
                                    lit::Redirect::FromFile(lit::substitute(&p, &named, path, &tmp))
                                }
                                other => other,
                            })
                            .collect(),
                    })
                    .collect();
                (join, pipeline)
            })
            .collect();
        let result = runner.run(&script);
        if !result.ok {
            let (cmd, why) =
                result.first_failure().map_or((None, "failed".to_string()), |(c, w)| (Some(c), w));
            let who = cmd
                .and_then(|c| c.argv.first())
                .map(|p| Path::new(p).file_name().map_or(p.clone(), |n| n.to_string_lossy().into_owned()))
                .unwrap_or_default();
            // `hlsl2spirv: hlsl2spirv: not supported yet` reads better once.
            let why = why.strip_prefix(&format!("{who}: ")).map_or(why.clone(), str::to_string);
            record.failure = Some(format!("{who}: {why}"));
        }
        let dxc_text = ctx.dxc.display().to_string();
        record.crash = result.commands.iter().filter(|c| c.argv.first() == Some(&dxc_text)).find_map(|c| {
            crash_of(c).or_else(|| (result.timed_out && c.status.is_none()).then(|| "timed out".to_string()))
        });
        let dxc_succeeded = result
            .commands
            .iter()
            .any(|c| c.argv.first() == Some(&dxc_text) && c.status.is_some_and(|s| s.success()));
        if kind == Kind::Positive && dxc_succeeded && !writes_no_binary(&dxc_args) {
            record.binary =
                ctx.spirv_val.as_ref().map(|val| check_binary(ctx, &runner, val, &dxc_args, &work, n));
        }
        outcome.lines.push(record);
    }
    let _ = std::fs::remove_dir_all(&work);
    outcome
}

/// How a command crashed, if it did: killed by a signal, or a Rust panic / the
/// internal-error report `hlsl2spirv` turns a panic into.
fn crash_of(cmd: &lit::CmdResult) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = cmd.status.and_then(|s| s.signal()) {
            return Some(format!("killed by signal {signal}"));
        }
    }
    [&cmd.stderr, &cmd.piped].iter().flat_map(|t| t.lines()).find_map(|l| {
        (l.contains("panicked at") || l.contains("hlsl2spirv: internal error")).then(|| l.trim().to_string())
    })
}

/// Compiles a positive line again with `-Fo` and validates the binary.
fn check_binary(
    ctx: &Ctx,
    runner: &Runner,
    spirv_val: &Path,
    args: &[String],
    work: &Path,
    n: usize,
) -> BinaryCheck {
    let out = work.join(format!("run{}.spv", n + 1));
    let mut words = vec![ctx.dxc.display().to_string()];
    words.extend(with_output(args, &out));
    let compile = runner.run(&vec![(Join::First, vec![Cmd { words, redirects: Vec::new() }])]);
    if !compile.ok {
        let why = compile.first_failure().map_or_else(|| "failed".to_string(), |(_, w)| w);
        return BinaryCheck::NotWritten(format!("hlsl2spirv -Fo failed: {why}"));
    }
    match std::fs::read(&out) {
        Ok(bytes) if bytes.len() >= 20 && bytes[..4] == SPIRV_MAGIC => {}
        Ok(_) => return BinaryCheck::NotWritten("-Fo wrote no SPIR-V binary".into()),
        Err(e) => return BinaryCheck::NotWritten(format!("-Fo wrote nothing: {e}")),
    }
    let options = spirv_val_options(args);
    let mut words = vec![spirv_val.display().to_string()];
    words.extend(options.iter().cloned());
    words.push(out.display().to_string());
    let validation = runner.run(&vec![(Join::First, vec![Cmd { words, redirects: Vec::new() }])]);
    let _ = std::fs::remove_file(&out);
    if validation.ok {
        BinaryCheck::Valid
    } else {
        let message = validation.first_failure().map_or_else(|| "invalid".to_string(), |(_, w)| w);
        BinaryCheck::Invalid { message, options: options.join(" ") }
    }
}

/// Per-row counts: positive (total, passed), negative (total, matched).
#[derive(Clone, Copy, Default)]
struct Row {
    positive: usize,
    positive_passed: usize,
    negative: usize,
    negative_matched: usize,
}

impl Row {
    fn add(&mut self, l: &LineOutcome) {
        let passed = l.failure.is_none();
        match l.kind {
            Kind::Positive => {
                self.positive += 1;
                self.positive_passed += usize::from(passed);
            }
            Kind::Negative => {
                self.negative += 1;
                self.negative_matched += usize::from(passed);
            }
        }
    }
}

#[derive(Default)]
struct Tally {
    all: Row,
    in_scope: Row,
    by_category: BTreeMap<String, (Row, Row)>,
    by_later: BTreeMap<&'static str, Row>,
    by_opt: BTreeMap<OptLevel, Row>,
    /// In-scope negative lines by what they expect.
    by_negative_kind: BTreeMap<NegativeKind, Row>,
    skipped: BTreeMap<String, usize>,
    xfail: Row,
    file_errors: usize,
    binaries_valid: usize,
    binaries_invalid: usize,
    binaries_not_written: usize,
    crashes: usize,
    run_lines: usize,
}

impl Tally {
    fn of(outcomes: &[FileOutcome]) -> Tally {
        let mut t = Tally::default();
        for f in outcomes {
            t.file_errors += usize::from(f.error.is_some());
            for l in &f.lines {
                t.run_lines += 1;
                t.crashes += usize::from(l.crash.is_some());
                if let Some(why) = &l.skipped {
                    *t.skipped.entry(why.clone()).or_default() += 1;
                    continue;
                }
                match &l.binary {
                    Some(BinaryCheck::Valid) => t.binaries_valid += 1,
                    Some(BinaryCheck::Invalid { .. }) => t.binaries_invalid += 1,
                    Some(BinaryCheck::NotWritten(_)) => t.binaries_not_written += 1,
                    None => {}
                }
                if l.xfail {
                    t.xfail.add(l);
                    continue;
                }
                t.all.add(l);
                let rows = t.by_category.entry(f.category.clone()).or_default();
                rows.0.add(l);
                match l.later {
                    Some(feature) => t.by_later.entry(feature).or_default().add(l),
                    None => {
                        rows.1.add(l);
                        t.in_scope.add(l);
                        if l.kind == Kind::Positive {
                            t.by_opt.entry(l.opt).or_default().add(l);
                        }
                        if let Some(kind) = l.negative_kind {
                            t.by_negative_kind.entry(kind).or_default().add(l);
                        }
                    }
                }
            }
        }
        t
    }

    fn floor_counts(&self) -> BTreeMap<String, usize> {
        [
            ("filecheck_passed", self.all.positive_passed),
            ("filecheck_passed_in_scope", self.in_scope.positive_passed),
            ("negative_matched", self.all.negative_matched),
            (
                "negative_codegen_matched_in_scope",
                self.by_negative_kind.get(&NegativeKind::Codegen).map_or(0, |r| r.negative_matched),
            ),
            ("binaries_valid", self.binaries_valid),
            ("binaries_invalid", self.binaries_invalid),
            ("hlsl2spirv_crashes", self.crashes),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    fn print(&self, outcomes: &[FileOutcome], elapsed: Duration) {
        let ratio = |n: usize, d: usize| format!("{n}/{d} ({:.1}%)", percent(n, d));
        println!();
        println!("RUN lines: {} ({} files)", self.run_lines, outcomes.len());
        println!(
            "positive RUN lines passing:            {}",
            ratio(self.all.positive_passed, self.all.positive)
        );
        println!(
            "  in the scope of issue 16:            {}",
            ratio(self.in_scope.positive_passed, self.in_scope.positive)
        );
        println!(
            "negative RUN lines matching CHECK:     {}",
            ratio(self.all.negative_matched, self.all.negative)
        );
        println!(
            "  in the scope of issue 16:            {}",
            ratio(self.in_scope.negative_matched, self.in_scope.negative)
        );
        for (kind, row) in &self.by_negative_kind {
            println!(
                "    expecting a {:<13} error:     {}",
                kind.label(),
                ratio(row.negative_matched, row.negative)
            );
        }
        println!(
            "binaries (positive lines, spirv-val): {} valid, {} INVALID, {} not written by the -Fo re-run",
            self.binaries_valid, self.binaries_invalid, self.binaries_not_written
        );
        println!("hlsl2spirv crashes (signal, panic, timeout): {}", self.crashes);
        let skipped: usize = self.skipped.values().sum();
        println!("skipped RUN lines (as lit would):     {skipped}");
        for (why, n) in &self.skipped {
            println!("  {n:>4}  {why}");
        }
        println!(
            "XFAIL RUN lines (counted apart):       {} positive ({} pass), {} negative ({} match)",
            self.xfail.positive, self.xfail.positive_passed, self.xfail.negative, self.xfail.negative_matched
        );
        if self.file_errors > 0 {
            println!("files lit could not run:              {}", self.file_errors);
            for f in outcomes.iter().filter(|f| f.error.is_some()) {
                println!("  {}: {}", f.rel, f.error.as_deref().unwrap_or(""));
            }
        }
        println!();
        println!("in-scope positive RUN lines by what dxc does to the code they check:");
        for (opt, row) in &self.by_opt {
            println!("  {:<38} {}", opt.label(), ratio(row.positive_passed, row.positive));
        }
        let later: usize = self.by_later.values().map(|r| r.positive).sum();
        println!();
        println!(
            "left to the later issue (by what the line uses): {later} of {} positive lines ({:.1}%)",
            self.all.positive,
            percent(later, self.all.positive)
        );
        println!("  {:<28} {:>16} {:>16}", "feature", "positive pass", "negative match");
        for (feature, row) in &self.by_later {
            println!(
                "  {:<28} {:>16} {:>16}",
                feature,
                format!("{}/{}", row.positive_passed, row.positive),
                format!("{}/{}", row.negative_matched, row.negative)
            );
        }
        println!();
        println!("by category (all lines | in scope):");
        println!(
            "  {:<42} {:>11} {:>11} | {:>11} {:>11}",
            "category", "positive", "negative", "positive", "negative"
        );
        let mut categories: Vec<(&String, &(Row, Row))> = self.by_category.iter().collect();
        categories.sort_by(|a, b| {
            (b.1 .0.positive + b.1 .0.negative).cmp(&(a.1 .0.positive + a.1 .0.negative)).then(a.0.cmp(b.0))
        });
        for (name, (all, scope)) in categories {
            let cell = |n: usize, d: usize| if d == 0 { "-".to_string() } else { format!("{n}/{d}") };
            println!(
                "  {:<42} {:>11} {:>11} | {:>11} {:>11}",
                clip(name),
                cell(all.positive_passed, all.positive),
                cell(all.negative_matched, all.negative),
                cell(scope.positive_passed, scope.positive),
                cell(scope.negative_matched, scope.negative)
            );
        }
        // The most common first failures, with their location stripped.
        let mut messages: BTreeMap<String, usize> = BTreeMap::new();
        for l in outcomes.iter().flat_map(|f| &f.lines) {
            if let Some(why) = &l.failure {
                *messages.entry(normalize(why)).or_default() += 1;
            }
        }
        let mut messages: Vec<(String, usize)> = messages.into_iter().collect();
        messages.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        if !messages.is_empty() {
            println!();
            println!("most common first failures:");
            for (m, n) in messages.iter().take(TOP_MESSAGES) {
                println!("  {n:>5}  {}", clip(m));
            }
        }
        if self.crashes > 0 {
            println!();
            println!("!!! HLSL2SPIRV CRASHES ({}): each is a bug (errors, never panics)", self.crashes);
            for f in outcomes {
                for l in f.lines.iter().filter(|l| l.crash.is_some()) {
                    println!("  {}:{}: {}", f.rel, l.line, clip(l.crash.as_deref().unwrap_or("")));
                }
            }
        }
        if self.binaries_invalid > 0 || self.binaries_not_written > 0 {
            println!();
            println!(
                "!!! INVALID BINARIES ({}): each is a bug (the compiler must refuse rather than write one)",
                self.binaries_invalid
            );
            for f in outcomes {
                for l in &f.lines {
                    match &l.binary {
                        Some(BinaryCheck::Invalid { message, options }) => {
                            println!("  {}:{} [spirv-val {options}]: {}", f.rel, l.line, clip(message))
                        }
                        Some(BinaryCheck::NotWritten(why)) => {
                            println!("  {}:{} (no binary): {}", f.rel, l.line, clip(why))
                        }
                        _ => {}
                    }
                }
            }
        }
        println!();
        println!("time: {:.1}s", elapsed.as_secs_f64());
    }
}

/// A failure message without file paths and `:line:col`, for grouping.
fn normalize(message: &str) -> String {
    message
        .split(' ')
        .map(|w| {
            // `/path/to/x.hlsl:12:3:` -> `x.hlsl:`
            if w.contains('/') && w.contains(':') {
                let name = w.rsplit('/').next().unwrap_or(w);
                let file = name.split(':').next().unwrap_or(name);
                let ext =
                    Path::new(file).extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default();
                format!("*.{ext}:")
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn write_report(path: &Path, outcomes: &[FileOutcome]) -> Result<()> {
    let mut text = String::from(
        "# hlsl-conformance --filecheck: one line per RUN line.\n\
         # file:line  run#  kind  verdict  scope  opt  binary  first failure  hlsl2spirv arguments\n",
    );
    for f in outcomes {
        if let Some(e) = &f.error {
            let _ = writeln!(text, "{}\t-\t-\terror\t-\t-\t-\t{e}", f.rel);
        }
        for l in &f.lines {
            let kind = match (l.kind, l.negative_kind) {
                (Kind::Positive, _) => "positive".to_string(),
                (Kind::Negative, Some(k)) => format!("negative({})", k.label()),
                (Kind::Negative, None) => "negative".to_string(),
            };
            let verdict = match (&l.skipped, l.xfail, &l.failure) {
                (Some(_), _, _) => "skipped",
                (None, true, None) => "xpass",
                (None, true, Some(_)) => "xfail",
                (None, false, None) => "pass",
                (None, false, Some(_)) => "FAIL",
            };
            let binary = match &l.binary {
                None => "-".to_string(),
                Some(BinaryCheck::Valid) => "valid".into(),
                Some(BinaryCheck::Invalid { message, options }) => format!("INVALID [{options}] {message}"),
                Some(BinaryCheck::NotWritten(why)) => format!("not-written {why}"),
            };
            let mut why = l.skipped.clone().or_else(|| l.failure.clone()).unwrap_or_default();
            if let Some(crash) = &l.crash {
                why = format!("CRASH {crash}; {why}");
            }
            let _ = writeln!(
                text,
                "{}:{}\t{}\t{kind}\t{verdict}\t{}\t{}\t{binary}\t{}\t{}",
                f.rel,
                l.line,
                l.index,
                l.later.unwrap_or("in-scope"),
                l.opt.label(),
                why.replace(['\n', '\t'], " "),
                l.dxc_args.join(" ")
            );
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn categories_follow_file_names_and_folders() {
        assert_eq!(category("cf.if.plain.hlsl"), "cf");
        assert_eq!(category("sm6_6.derivatives.hlsl"), "sm6_6");
        assert_eq!(category("passthru-ps.hlsl2spv"), "passthru-ps");
        assert_eq!(category("legal-examples/00-copy-sbuf-ok.hlsl"), "legal-examples");
        assert_eq!(category("SampledTexture/SampledTexture2D/vk.sampledtexture2d.hlsl"), "SampledTexture");
    }

    /// Real RUN lines and sources of the corpus, as facts.
    #[test]
    fn later_features_by_what_a_line_uses() {
        let args = strings(&["-T", "ms_6_5", "-E", "main", "-fcgl", "/c/meshshading.ext.hlsl", "-spirv"]);
        assert_eq!(later_feature("", &args), Some("mesh/amplification shaders"));
        let lib = strings(&["-T", "lib_6_3", "-fspv-target-env=vulkan1.2", "-fcgl", "x.hlsl", "-spirv"]);
        assert_eq!(later_feature("[shader(\"raygeneration\")]\nvoid main() {}", &lib), Some("ray tracing"));
        assert_eq!(
            later_feature("[Shader(\"node\")]\n[NodeLaunch(\"broadcasting\")]", &lib),
            Some("node shaders")
        );
        let cs = strings(&["-T", "cs_6_0", "-E", "main", "-fcgl", "x.hlsl", "-spirv"]);
        assert_eq!(later_feature("RayQuery<RAY_FLAG_NONE> q;", &cs), Some("ray tracing"));
        assert_eq!(
            later_feature("[[vk::ext_instruction(/* OpNop */ 0)]] void nop();", &cs),
            Some("inline SPIR-V")
        );
        assert_eq!(later_feature("vk::BufferPointer<S> p;", &cs), Some("vk::BufferPointer"));
        let rich =
            strings(&["-T", "ps_6_0", "-E", "main", "-fspv-debug=rich-with-source", "-fcgl", "x", "-spirv"]);
        assert_eq!(later_feature("", &rich), Some("rich debug info"));
        let vulkan =
            strings(&["-T", "ps_6_0", "-E", "main", "-fspv-debug=vulkan-with-source", "x", "-spirv"]);
        assert_eq!(later_feature("", &vulkan), Some("rich debug info"));
        let reflect = strings(&["-T", "vs_6_0", "-E", "main", "-fspv-reflect", "-fcgl", "x", "-spirv"]);
        assert_eq!(later_feature("", &reflect), Some("reflection (-fspv-reflect)"));
        // OpLine / OpSource debug info and plain shaders are in scope.
        let zi = strings(&["-T", "ps_6_0", "-E", "main", "-Zi", "x", "-spirv"]);
        assert_eq!(later_feature("float4 main() : SV_Target { return 0; }", &zi), None);
        // What CHECK comments mention does not count.
        let code = strip_comments(
            "// CHECK: OpCapability RayQueryKHR RayQuery<\nfloat4 main() : SV_Target { return 0; }",
        );
        assert_eq!(later_feature(&code, &zi), None);
        assert_eq!(strip_comments("a /* b\nc */ d \"// e\" f // g\nh"), "a \n d \"// e\" f \nh");
    }

    #[test]
    fn validation_options_follow_dxc() {
        let v = |args: &[&str]| spirv_val_options(&strings(args)).join(" ");
        assert_eq!(
            v(&["-T", "ps_6_0", "-fcgl"]),
            "--target-env vulkan1.0 --relax-block-layout --before-hlsl-legalization"
        );
        assert_eq!(v(&["-fspv-target-env=vulkan1.1"]), "--target-env vulkan1.1 --relax-block-layout");
        assert_eq!(
            v(&["-fspv-target-env=vulkan1.1spirv1.4"]),
            "--target-env vulkan1.1spv1.4 --relax-block-layout"
        );
        assert_eq!(
            v(&["-fspv-target-env=universal1.5", "-fvk-use-dx-layout"]),
            "--target-env spv1.5 --scalar-block-layout"
        );
        assert_eq!(v(&["-fvk-use-gl-layout"]), "--target-env vulkan1.0");
        assert_eq!(
            v(&["-fvk-use-scalar-layout", "-fspv-target-env=vulkan1.3"]),
            "--target-env vulkan1.3 --scalar-block-layout"
        );
        assert!(writes_no_binary(&strings(&["-T", "vs_6_5", "-P", "-Fi", "x.pp"])));
        assert!(writes_no_binary(&strings(&["-T", "hs_6_0", "-verify", "x"])));
        assert!(!writes_no_binary(&strings(&["-T", "ps_6_0", "-E", "main", "x"])));
        assert_eq!(
            with_output(&strings(&["-T", "ps_6_0", "-Fo", "a.spv", "-Fob.spv", "x"]), Path::new("/t/o.spv")),
            strings(&["-T", "ps_6_0", "x", "-Fo", "/t/o.spv"])
        );
    }

    #[test]
    fn the_dxc_command_decides_the_kind() {
        let script =
            lit::parse_script("not %dxc -T ps_6_0 -E main -fcgl  %s -spirv  2>&1 | FileCheck %s").unwrap();
        let (cmd, expect) = dxc_command(&script).unwrap();
        assert_eq!(expect, Expect::Failure);
        assert_eq!(cmd.words[1], "%dxc");
        let script =
            lit::parse_script("%dxc -T vs_6_5 -P -spirv -fspv-target-env=vulkan1.0 -Fi %t.pp %s").unwrap();
        assert_eq!(dxc_command(&script).unwrap().1, Expect::Success);
        let script =
            lit::parse_script("FileCheck --input-file=%t.vk_1_0.hlsl.pp %s --check-prefix=VK_1_0").unwrap();
        assert!(dxc_command(&script).is_none());
    }

    #[test]
    fn check_prefixes_of_real_run_lines() {
        let prefixes = |line: &str| check_prefixes(&lit::parse_script(line).unwrap());
        assert_eq!(
            prefixes("%dxc -T ps_6_6 -E main -fcgl  %s -spirv -fspv-target-env=universal1.5 -enable-16bit-types  2>&1 | FileCheck %s --check-prefix=UNIVERSAL"),
            ["UNIVERSAL"]
        );
        assert_eq!(
            prefixes("not %dxc -fspv-target-env=vulkan1.1 -T cs_6_0 -E main -spirv -HV 2021 -DTYPE=int %s 2>&1 | FileCheck %s --check-prefix=CHECK --check-prefix=INTEGERS --check-prefix=INT32"),
            ["CHECK", "INTEGERS", "INT32"]
        );
        assert_eq!(prefixes("%dxc -T ps_6_0 %s | FileCheck -check-prefixes A,B %s"), ["A", "B"]);
        assert_eq!(prefixes("%dxc -T ps_6_0 -E main -fcgl  %s -spirv | FileCheck %s"), ["CHECK"]);
    }

    #[test]
    fn failure_messages_group_without_paths() {
        assert_eq!(
            normalize("FileCheck-22: /c/cf.if.hlsl:12:11: error: CHECK: expected string not found in input"),
            "FileCheck-22: *.hlsl: error: CHECK: expected string not found in input"
        );
    }

    /// The whole path on a real test with a stand-in for dxc that prints the
    /// disassembly the test expects (needs FileCheck-22).
    #[cfg(unix)]
    #[test]
    fn a_fake_dxc_passes_filecheck() {
        let Some(filecheck) = find_filecheck() else {
            eprintln!("skipping: FileCheck-22 not installed");
            return;
        };
        let dir = std::env::temp_dir().join(format!("spirvkit-filecheck-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let test = dir.join("passthru.hlsl");
        std::fs::write(
            &test,
            "// RUN: %dxc -T ps_6_0 -E main %s -spirv | FileCheck %s\n\
             // RUN: not %dxc -T ps_6_0 -E bad %s -spirv 2>&1 | FileCheck %s --check-prefix=ERR\n\
             float4 main(float4 input: COLOR): SV_Target { return input; }\n\
             // CHECK: OpCapability Shader\n// CHECK-NEXT: OpMemoryModel Logical GLSL450\n\
             // ERR: error: missing entry point definition\n",
        )
        .unwrap();
        let fake = dir.join("fake-dxc");
        std::fs::write(
            &fake,
            "#!/bin/sh\ncase \"$*\" in\n*bad*) echo 'error: missing entry point definition' >&2; exit 1;;\nesac\n\
             printf '      OpCapability Shader\\n      OpMemoryModel Logical GLSL450\\n'\n",
        )
        .unwrap();
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let scratch = dir.join("scratch");
        let ctx = Ctx { corpus: dir.clone(), dxc: fake.clone(), filecheck, spirv_val: None, scratch };
        let outcome = run_file(&ctx, &test, 0);
        assert!(outcome.error.is_none(), "{:?}", outcome.error);
        assert_eq!(outcome.lines.len(), 2);
        assert_eq!(outcome.lines[0].kind, Kind::Positive);
        assert_eq!(outcome.lines[0].failure, None);
        assert_eq!(outcome.lines[1].kind, Kind::Negative);
        assert_eq!(outcome.lines[1].failure, None);
        // A wrong disassembly fails FileCheck, and says where.
        std::fs::write(&fake, "#!/bin/sh\necho '      OpCapability Matrix'\n").unwrap();
        let outcome = run_file(&ctx, &test, 1);
        let why = outcome.lines[0].failure.as_deref().unwrap_or("");
        assert!(why.starts_with("FileCheck") && why.contains("error:"), "{why}");
        // The negative line now fails too: the fake succeeds where dxc must fail.
        assert!(outcome.lines[1].failure.is_some());
        assert!(outcome.lines.iter().all(|l| l.crash.is_none()));
        // A panic is a crash even where a failure is expected.
        std::fs::write(&fake, "#!/bin/sh\necho 'hlsl2spirv: internal error' >&2\nexit 2\n").unwrap();
        let outcome = run_file(&ctx, &test, 2);
        assert_eq!(outcome.lines[1].crash.as_deref(), Some("hlsl2spirv: internal error"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
