//! `cargo xtask conformance [--corpus DIR] [--update-floor] [--jobs N]`: checks
//! spirvkit against the SPIRV-Tools reference tools over a corpus of `.spv` files.
//!
//! Per file:
//! - `roundtrip`: in-process read then write is byte-identical;
//! - `dis-*`: `spirvkit dis [opt]` prints exactly what `spirv-dis [opt]` prints, for
//!   each option set. Files that `spirv-dis` rejects (newer grammar than 2023.1)
//!   go to the `tool-rejected` bucket; for them `dis-newer-grammar` only requires
//!   that `spirvkit dis` succeeds with every option set;
//! - `as`: `spirvkit as` and `spirv-as` assemble `spirv-dis`'s text to the same
//!   bytes; for tool-rejected files `as-newer-grammar` requires that
//!   `spirvkit dis --raw-id | spirvkit as --preserve-numeric-ids -` reproduces the
//!   file (up to the generator and bound header words).
//!
//! Pass counts are compared with the floor in `conformance/spv-floor.txt`;
//! `--update-floor` rewrites it with the current counts.

use crate::corpus::{display_path, files_with_extension, read_floor};
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const FLOOR_PATH: &str = "conformance/spv-floor.txt";
/// A single tool run taking longer than this counts as a failure (and is killed).
const TOOL_TIMEOUT: Duration = Duration::from_secs(60);
/// How many failing files to show per check.
const SHOW_FAILURES: usize = 5;

/// `spirv-dis`/`spirvkit dis` option sets, with the check each one feeds.
const DIS_OPTIONS: [(&str, Option<&str>); 6] = [
    ("dis-default", None),
    ("dis-raw-id", Some("--raw-id")),
    ("dis-no-header", Some("--no-header")),
    ("dis-no-indent", Some("--no-indent")),
    ("dis-offsets", Some("--offsets")),
    ("dis-comment", Some("--comment")),
];

/// Every check, in report order.
const CHECKS: [&str; 10] = [
    "roundtrip",
    "dis-default",
    "dis-raw-id",
    "dis-no-header",
    "dis-no-indent",
    "dis-offsets",
    "dis-comment",
    "as",
    "dis-newer-grammar",
    "as-newer-grammar",
];

struct Ctx {
    corpus: PathBuf,
    spirvkit: PathBuf,
    scratch: PathBuf,
}

/// What happened to one file: each check it took part in, with a hint on failure.
struct FileReport {
    tool_rejected: bool,
    outcomes: Vec<(&'static str, Result<(), String>)>,
}

pub fn run(args: &[String]) -> Result<()> {
    let mut corpus = None;
    let mut update_floor = false;
    let mut jobs = 2usize;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--corpus" => corpus = Some(PathBuf::from(iter.next().context("--corpus needs a directory")?)),
            "--update-floor" => update_floor = true,
            "--jobs" | "-j" => {
                jobs =
                    iter.next().context("--jobs needs a number")?.parse().context("--jobs needs a number")?
            }
            other => bail!(
                "usage: cargo xtask conformance [--corpus DIR] [--update-floor] [--jobs N] (got `{other}`)"
            ),
        }
    }
    let jobs = jobs.max(1);
    let corpus = corpus
        .or_else(|| std::env::var_os("SPIRVKIT_SPV_CORPUS").map(PathBuf::from))
        .unwrap_or_else(|| crate::workspace_root().join("../shared/corpus/spv"));
    if !corpus.is_dir() {
        println!("conformance: skipping: corpus not found at {}", corpus.display());
        return Ok(());
    }

    for tool in ["spirv-dis", "spirv-as"] {
        match Command::new(tool).arg("--version").stdin(Stdio::null()).output() {
            Ok(out) if out.status.success() => {}
            Ok(_) => bail!("reference tool `{tool} --version` failed: reinstall SPIRV-Tools (apt-get install spirv-tools)"),
            Err(e) => bail!(
                "reference tool `{tool}` not found ({e}): install SPIRV-Tools 2023.1 \
                 (`apt-get install spirv-tools`, or run ./scripts/install-deps.sh)"
            ),
        }
    }
    let spirvkit = spirvkit_binary_path();
    if !spirvkit.is_file() {
        bail!(
            "{} not found: build it first with `cargo build --release -p spirvkit-cli`",
            spirvkit.display()
        );
    }

    let files =
        files_with_extension(&corpus, "spv").with_context(|| format!("listing {}", corpus.display()))?;
    if files.is_empty() {
        bail!("no .spv files under {}", corpus.display());
    }

    let scratch = std::env::temp_dir().join(format!(
        "spirvkit-conformance-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
    ));
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let _guard = crate::corpus::ScratchDir(scratch.clone());
    let ctx = Ctx { corpus: corpus.clone(), spirvkit, scratch };

    println!(
        "conformance: {} files under {} ({} workers, {})",
        files.len(),
        corpus.display(),
        jobs,
        tool_version("spirv-dis")
    );
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let reports: Vec<Mutex<Option<FileReport>>> = files.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(index) else { break };
                let report = check_file(&ctx, path, index);
                *reports[index].lock().unwrap() = Some(report);
            });
        }
    });
    let elapsed = started.elapsed();

    // Tally.
    let mut pass: BTreeMap<&str, usize> = BTreeMap::new();
    let mut fail: BTreeMap<&str, usize> = BTreeMap::new();
    let mut failures: BTreeMap<&str, Vec<(String, String)>> = BTreeMap::new();
    let mut rejected = 0;
    for (path, report) in files.iter().zip(reports) {
        let report = report.into_inner().unwrap().expect("every file is checked");
        rejected += usize::from(report.tool_rejected);
        for (check, outcome) in report.outcomes {
            match outcome {
                Ok(()) => *pass.entry(check).or_default() += 1,
                Err(hint) => {
                    *fail.entry(check).or_default() += 1;
                    failures.entry(check).or_default().push((display_path(&ctx.corpus, path), hint));
                }
            }
        }
    }

    let floor_path = crate::workspace_root().join(FLOOR_PATH);
    let floor =
        if floor_path.exists() { read_floor(&floor_path, "check_name pass_count")? } else { BTreeMap::new() };

    println!();
    println!("{:<20} {:>6} {:>6} {:>6} {:>6}", "check", "pass", "fail", "total", "floor");
    for check in CHECKS {
        let p = pass.get(check).copied().unwrap_or(0);
        let f = fail.get(check).copied().unwrap_or(0);
        let fl = floor.get(check).map_or("-".to_string(), |n| n.to_string());
        println!("{check:<20} {p:>6} {f:>6} {:>6} {fl:>6}", p + f);
    }
    println!(
        "tool-rejected: {rejected} of {} files (spirv-dis 2023.1 rejects them; \
         they count toward dis-newer-grammar and as-newer-grammar instead)",
        files.len()
    );
    println!("time: {:.1}s", elapsed.as_secs_f64());

    for check in CHECKS {
        let Some(list) = failures.get(check) else { continue };
        println!();
        println!("{check}: {} failing, first {}:", list.len(), list.len().min(SHOW_FAILURES));
        for (path, hint) in list.iter().take(SHOW_FAILURES) {
            println!("  {path}: {hint}");
        }
    }
    println!();

    if update_floor {
        let mut text = String::from(
            "# Minimum pass counts for `cargo xtask conformance` over ../shared/corpus/spv.\n\
             # Regenerate with `cargo xtask conformance --update-floor`.\n",
        );
        for check in CHECKS {
            text.push_str(&format!("{check} {}\n", pass.get(check).copied().unwrap_or(0)));
        }
        if let Some(dir) = floor_path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&floor_path, text).with_context(|| format!("writing {}", floor_path.display()))?;
        println!("conformance: wrote {FLOOR_PATH}");
        return Ok(());
    }

    if floor.is_empty() {
        println!("conformance: no floor file at {FLOOR_PATH}; run with --update-floor to create it");
        return Ok(());
    }
    let mut below = Vec::new();
    let mut above = Vec::new();
    for (check, &min) in &floor {
        if !CHECKS.contains(&check.as_str()) {
            bail!("{FLOOR_PATH} names unknown check `{check}`");
        }
        let p = pass.get(check.as_str()).copied().unwrap_or(0);
        if p < min {
            below.push(format!("{check} {p} < {min}"));
        } else if p > min {
            above.push(check.as_str());
        }
    }
    if !below.is_empty() {
        bail!("conformance regressed below {FLOOR_PATH}: {}", below.join(", "));
    }
    if !above.is_empty() {
        println!(
            "conformance: OK; above the floor for {} (ratchet with `cargo xtask conformance --update-floor`)",
            above.join(", ")
        );
    } else {
        println!("conformance: OK (at the floor)");
    }
    Ok(())
}

fn spirvkit_binary_path() -> PathBuf {
    crate::built_binary("release", "spirvkit")
}

fn tool_version(tool: &str) -> String {
    Command::new(tool)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_else(|| tool.to_string())
}

/// Output of one tool run.
struct Run {
    status: ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl Run {
    fn ok(&self) -> bool {
        self.status.success()
    }

    /// A one-line description of why the run failed.
    fn why(&self, tool: &str) -> String {
        let stderr = String::from_utf8_lossy(&self.stderr);
        let first = stderr.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        format!("{tool} failed ({}): {}", self.status, clip(first))
    }
}

/// Runs a tool with a timeout, feeding `input` (if any) on standard input.
fn run_tool(program: &Path, args: &[&std::ffi::OsStr], input: Option<&[u8]>) -> Result<Run, String> {
    let name = program.file_name().unwrap_or(program.as_os_str()).to_string_lossy().into_owned();
    let mut child = Command::new(program)
        .args(args)
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {name}: {e}"))?;
    let stdin = child.stdin.take();
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    std::thread::scope(|s| {
        if let (Some(mut pipe), Some(data)) = (stdin, input) {
            // A tool that exits early closes the pipe; the write error is expected then.
            s.spawn(move || {
                let _ = pipe.write_all(data);
            });
        }
        let out = s.spawn(move || {
            let mut v = Vec::new();
            let _ = stdout.read_to_end(&mut v);
            v
        });
        let err = s.spawn(move || {
            let mut v = Vec::new();
            let _ = stderr.read_to_end(&mut v);
            v
        });
        let deadline = Instant::now() + TOOL_TIMEOUT;
        let mut timed_out = false;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Ok(status),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = child.kill();
                    timed_out = true;
                    break child.wait();
                }
                Ok(None) => std::thread::sleep(Duration::from_micros(250)),
                Err(e) => {
                    let _ = child.kill();
                    break child.wait().and(Err(e));
                }
            }
        };
        let stdout = out.join().unwrap_or_default();
        let stderr = err.join().unwrap_or_default();
        let status = status.map_err(|e| format!("waiting for {name}: {e}"))?;
        if timed_out {
            return Err(format!("{name} timed out after {}s", TOOL_TIMEOUT.as_secs()));
        }
        Ok(Run { status, stdout, stderr })
    })
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

fn clip(s: &str) -> String {
    const MAX: usize = 100;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

/// Describes the first differing line between reference and our text output.
fn text_diff_hint(reference: &[u8], ours: &[u8]) -> String {
    let reference = String::from_utf8_lossy(reference);
    let ours = String::from_utf8_lossy(ours);
    let mut r = reference.split_inclusive('\n');
    let mut o = ours.split_inclusive('\n');
    let mut line = 1;
    loop {
        match (r.next(), o.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (Some(a), Some(b)) => {
                return format!(
                    "line {line}: expected `{}`, got `{}`",
                    clip(a.trim_end_matches('\n')),
                    clip(b.trim_end_matches('\n'))
                )
            }
            (Some(a), None) => {
                return format!(
                    "line {line}: expected `{}`, got end of output",
                    clip(a.trim_end_matches('\n'))
                )
            }
            (None, Some(b)) => {
                return format!(
                    "line {line}: expected end of output, got `{}`",
                    clip(b.trim_end_matches('\n'))
                )
            }
            (None, None) => return "outputs differ".to_string(),
        }
    }
}

fn words_le(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|c| c.iter().rev().fold(0u32, |w, &b| (w << 8) | u32::from(b))).collect()
}

/// Words of a module in host order, whichever its byte order (a trailing partial
/// word is zero-padded).
fn module_words(bytes: &[u8]) -> Vec<u32> {
    let le = words_le(bytes);
    if le.first() == Some(&0x0302_2307) {
        le.into_iter().map(u32::swap_bytes).collect()
    } else {
        le
    }
}

/// Describes the first differing word; `skip` lists word indices not compared.
fn word_diff(reference: &[u32], ours: &[u32], skip: &[usize]) -> Option<String> {
    let first = (0..reference.len().max(ours.len()))
        .find(|&i| !skip.contains(&i) && reference.get(i) != ours.get(i))?;
    let show = |w: Option<&u32>| w.map_or("end".to_string(), |w| format!("{w:#010x}"));
    Some(format!(
        "word {first}: expected {}, got {} ({} vs {} words)",
        show(reference.get(first)),
        show(ours.get(first)),
        reference.len(),
        ours.len()
    ))
}

/// `--target-env spvX.Y` matching a module's version word, if it is one we know.
fn target_env(words: &[u32]) -> Option<String> {
    let version = *words.get(1)?;
    let (major, minor) = ((version >> 16) & 0xff, (version >> 8) & 0xff);
    (major == 1 && minor <= 6).then(|| format!("spv1.{minor}"))
}

fn roundtrip(bytes: &[u8]) -> Result<(), String> {
    let result = std::panic::catch_unwind(|| match spirvkit_binary::read(bytes) {
        Ok(module) => {
            let written = spirvkit_binary::write(&module);
            if written == bytes {
                Ok(())
            } else {
                Err(word_diff(&module_words(bytes), &module_words(&written), &[])
                    .unwrap_or_else(|| "bytes differ".to_string()))
            }
        }
        Err(e) => Err(format!("read error: {e}")),
    });
    result.unwrap_or_else(|_| Err("reader or writer panicked".to_string()))
}

fn check_file(ctx: &Ctx, path: &Path, index: usize) -> FileReport {
    let mut outcomes = Vec::new();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            let hint = format!("cannot read file: {e}");
            return FileReport {
                tool_rejected: false,
                outcomes: CHECKS[..8].iter().map(|&c| (c, Err(hint.clone()))).collect(),
            };
        }
    };
    outcomes.push(("roundtrip", roundtrip(&bytes)));

    let words = module_words(&bytes);
    let env = target_env(&words);
    let env_args: Vec<&std::ffi::OsStr> = match &env {
        Some(env) => vec![os("--target-env"), os(env)],
        None => vec![],
    };
    let file = path.as_os_str();
    let spirv_dis = Path::new("spirv-dis");
    let spirv_as = Path::new("spirv-as");
    let scratch = |suffix: &str| ctx.scratch.join(format!("{index}.{suffix}"));

    let reference_default = run_tool(spirv_dis, &[file], None);
    let tool_rejected = matches!(&reference_default, Ok(run) if !run.ok());

    if tool_rejected {
        // Newer grammar than SPIRV-Tools 2023.1: we can only require that we cope.
        let mut dis_result = Ok(());
        let mut raw_text = None;
        for (_, option) in DIS_OPTIONS {
            let mut args = vec![os("dis")];
            args.extend(option.map(os));
            args.push(file);
            match run_tool(&ctx.spirvkit, &args, None) {
                Ok(run) if run.ok() => {
                    if option == Some("--raw-id") {
                        raw_text = Some(run.stdout);
                    }
                }
                Ok(run) => {
                    dis_result = Err(format!(
                        "{}{}",
                        option.map_or(String::new(), |o| format!("{o}: ")),
                        run.why("spirvkit dis")
                    ));
                    break;
                }
                Err(e) => {
                    dis_result = Err(e);
                    break;
                }
            }
        }
        outcomes.push(("dis-newer-grammar", dis_result));

        let as_result = match raw_text {
            None => Err("spirvkit dis --raw-id failed".to_string()),
            Some(text) => {
                let out = scratch("newer.spv");
                // The newest target env: some of these modules use capabilities newer than
                // the version they declare, which the version-gated assembler would refuse.
                // The text does not carry the version word anyway, so it is not compared.
                let args = vec![os("as"), os("--preserve-numeric-ids"), os("-o"), out.as_os_str(), os("-")];
                match run_tool(&ctx.spirvkit, &args, Some(&text)) {
                    Ok(run) if run.ok() => match std::fs::read(&out) {
                        Ok(assembled) => match word_diff(&words, &module_words(&assembled), &[1, 2, 3]) {
                            None => Ok(()),
                            Some(hint) => Err(hint),
                        },
                        Err(e) => Err(format!("spirvkit as wrote no output: {e}")),
                    },
                    Ok(run) => Err(run.why("spirvkit as")),
                    Err(e) => Err(e),
                }
            }
        };
        let _ = std::fs::remove_file(scratch("newer.spv"));
        outcomes.push(("as-newer-grammar", as_result));
        return FileReport { tool_rejected, outcomes };
    }

    let reference_default = reference_default.map(|run| run.stdout);
    for (check, option) in DIS_OPTIONS {
        let mut args = vec![os("dis")];
        args.extend(option.map(os));
        args.push(file);
        let reference = match option {
            None => reference_default.clone(),
            Some(option) => match run_tool(spirv_dis, &[os(option), file], None) {
                Ok(run) if run.ok() => Ok(run.stdout),
                Ok(run) => Err(run.why("spirv-dis")),
                Err(e) => Err(e),
            },
        };
        let result = match (reference, run_tool(&ctx.spirvkit, &args, None)) {
            (Err(e), _) => Err(format!("reference: {e}")),
            (_, Err(e)) => Err(e),
            (Ok(_), Ok(ours)) if !ours.ok() => Err(ours.why("spirvkit dis")),
            (Ok(reference), Ok(ours)) if reference == ours.stdout => Ok(()),
            (Ok(reference), Ok(ours)) => Err(text_diff_hint(&reference, &ours.stdout)),
        };
        outcomes.push((check, result));
    }

    let as_result = match reference_default {
        Err(e) => Err(format!("reference: {e}")),
        Ok(text) => {
            let text_path = scratch("spvasm");
            let ref_out = scratch("ref.spv");
            let our_out = scratch("ours.spv");
            let result = (|| {
                std::fs::write(&text_path, &text)
                    .map_err(|e| format!("writing {}: {e}", text_path.display()))?;
                let mut args = env_args.clone();
                args.extend([os("-o"), ref_out.as_os_str(), text_path.as_os_str()]);
                let reference = run_tool(spirv_as, &args, None)?;
                if !reference.ok() {
                    return Err(format!("reference: {}", reference.why("spirv-as")));
                }
                let reference =
                    std::fs::read(&ref_out).map_err(|e| format!("spirv-as wrote no output: {e}"))?;
                let mut args = vec![os("as")];
                args.extend(env_args.iter().copied());
                args.extend([os("-o"), our_out.as_os_str(), text_path.as_os_str()]);
                let ours = run_tool(&ctx.spirvkit, &args, None)?;
                if !ours.ok() {
                    return Err(ours.why("spirvkit as"));
                }
                let ours =
                    std::fs::read(&our_out).map_err(|e| format!("spirvkit as wrote no output: {e}"))?;
                if ours == reference {
                    Ok(())
                } else {
                    Err(word_diff(&module_words(&reference), &module_words(&ours), &[])
                        .unwrap_or_else(|| "bytes differ".to_string()))
                }
            })();
            for p in [&text_path, &ref_out, &our_out] {
                let _ = std::fs::remove_file(p);
            }
            result
        }
    };
    outcomes.push(("as", as_result));
    FileReport { tool_rejected, outcomes }
}
