//! `cargo xtask bench-hlsl [--runs N] [--quick] [--only corpus|large] [--filter SUBSTR]
//! [--functions N]`: whole-process compile time and peak memory of `hlsl2spirv` (release
//! build, its default pipeline: no `-fcgl`) against glslang's HLSL mode
//! (`glslangValidator -D -V -S STAGE -e ENTRY ...`), per shader, on
//!
//! - the shaders both compilers accept among the Wicked Engine jobs
//!   (`../shared/corpus/wicked-engine/manifest.json`, with each job's arguments, mapped to
//!   glslang's equivalents) and DXC's SPIR-V tests (`../shared/corpus/dxc-codegen-spirv`,
//!   each file's first `%dxc` RUN line that compiles a vs/ps/gs/hs/ds/cs stage);
//! - one large generated compute shader (a few thousand functions calling each other,
//!   all reachable from the entry point, about 1 MB of HLSL).
//!
//! Each compile runs `--runs` times (default 5), the two compilers alternating; a shader's
//! time is its fastest run (the machine this runs on is shared: the fastest run is the
//! one least disturbed). Ratio = glslang's time / hlsl2spirv's (above 1: hlsl2spirv is
//! faster); the report gives the median and the 10th and 90th percentiles of the
//! per-shader ratios and of the absolute times. Peak memory is the maximum resident set
//! of one more run under `/usr/bin/time -f %M`, when that program exists.
//!
//! A report, not a test: nothing asserts on timings. Printed, and written to
//! `<target>/bench/hlsl-compile.md`.

use anyhow::{bail, Context, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{ms, rel, Report, Table};

/// Functions in the generated shader (about 550 bytes of HLSL each: 1 MB).
const LARGE_FUNCTIONS: usize = 1800;

struct Settings {
    runs: usize,
    only: Option<String>,
    filter: Option<String>,
    functions: usize,
}

/// One shader compiled by both: arguments (input included, output excluded) and the
/// directory they are relative to.
struct Case {
    name: String,
    group: &'static str,
    cwd: PathBuf,
    ours: Vec<String>,
    theirs: Vec<String>,
}

/// What one case measured.
struct Measured {
    ours: Duration,
    theirs: Duration,
    ours_kb: Option<u64>,
    theirs_kb: Option<u64>,
}

pub fn run(args: &[String]) -> Result<()> {
    let mut settings = Settings { runs: 5, only: None, filter: None, functions: LARGE_FUNCTIONS };
    let mut i = 0;
    let usage = "usage: cargo xtask bench-hlsl [--runs N] [--quick] [--only corpus|large] [--filter SUBSTR] [--functions N]";
    while i < args.len() {
        let option = args[i].as_str();
        let mut value = || {
            i += 1;
            args.get(i).cloned().with_context(|| format!("{option} needs a value ({usage})"))
        };
        match option {
            "--runs" => settings.runs = value()?.parse::<usize>().context("--runs")?.max(1),
            "--quick" => settings.runs = 1,
            "--only" => {
                let v = value()?;
                if v != "corpus" && v != "large" {
                    bail!("bench-hlsl: --only takes corpus or large, not `{v}`");
                }
                settings.only = Some(v);
            }
            "--filter" => settings.filter = Some(value()?),
            "--functions" => settings.functions = value()?.parse::<usize>().context("--functions")?.max(1),
            other => bail!("bench-hlsl: unknown option `{other}` ({usage})"),
        }
        i += 1;
    }

    let root = crate::workspace_root();
    let ours = super::hlsl::build(&root)?;
    let glslang = PathBuf::from("glslangValidator");
    if Command::new(&glslang).arg("--version").stdout(Stdio::null()).status().is_err() {
        bail!("bench-hlsl: glslangValidator is not installed (apt install glslang-tools)");
    }
    let time_tool = Path::new("/usr/bin/time");
    let time_tool = time_tool.is_file().then_some(time_tool);
    let bench_dir = crate::target_dir().join("bench");
    let scratch = bench_dir.join("hlsl-compile");
    std::fs::create_dir_all(&scratch)?;

    let mut report = Report::default();
    report.line("# hlsl2spirv against glslang (whole-process compile)\n".into());
    report.line(format!("- hlsl2spirv: `{}` (release build, default pipeline)", rel(&ours)));
    report.line(format!("- glslang: {}", first_line(&glslang, "--version")));
    report.line(format!(
        "- machine: {} cores; each compile run {} times, alternating, fastest run kept; ratio = glslang / hlsl2spirv",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        settings.runs
    ));
    report.line(format!(
        "- peak memory: {}\n",
        if time_tool.is_some() {
            "max RSS of one more run (`/usr/bin/time -f %M`)"
        } else {
            "not measured (no /usr/bin/time)"
        }
    ));
    report.flush();

    let wanted = |section: &str| settings.only.as_deref().is_none_or(|o| o == section);
    if wanted("large") {
        if let Err(e) = bench_large(&ours, &glslang, time_tool, &bench_dir, &scratch, &settings, &mut report)
        {
            report.line(format!("large generated shader skipped: {e:#}\n"));
            report.flush();
        }
    }
    if wanted("corpus") {
        let mut cases = wicked_cases(&root.join("../shared/corpus/wicked-engine"), &mut report)?;
        cases.extend(dxc_cases(&root.join("../shared/corpus/dxc-codegen-spirv"), &mut report)?);
        if let Some(f) = &settings.filter {
            cases.retain(|c| c.name.contains(f.as_str()));
        }
        bench_corpus(&ours, &glslang, time_tool, &scratch, cases, &settings, &mut report)?;
    }
    let path = bench_dir.join("hlsl-compile.md");
    std::fs::write(&path, &report.text)?;
    println!("wrote {}", path.display());
    Ok(())
}

// ---------------------------------------------------------------------------
// Cases

/// The Wicked Engine jobs, with glslang's spelling of each job's options.
fn wicked_cases(corpus: &Path, report: &mut Report) -> Result<Vec<Case>> {
    let manifest = corpus.join("manifest.json");
    if !manifest.is_file() {
        report.line(format!("(no Wicked Engine corpus at {}: skipped)\n", corpus.display()));
        return Ok(Vec::new());
    }
    let jobs: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest)?)?;
    let mut cases = Vec::new();
    for job in jobs.as_array().context("manifest.json: not an array")? {
        let text = |key: &str| job.get(key).and_then(|v| v.as_str()).unwrap_or_default().to_string();
        let args: Vec<String> = job
            .get("args")
            .and_then(|a| a.as_array())
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        let Some(theirs) = glslang_args(&args, &text("file")) else { continue };
        let mut ours = args;
        ours.push(text("file"));
        cases.push(Case {
            name: format!("wicked/{}", text("id")),
            group: "wicked-engine",
            cwd: corpus.into(),
            ours,
            theirs,
        });
    }
    Ok(cases)
}

/// DXC's SPIR-V tests: each file's first `%dxc` RUN line that compiles a graphics or
/// compute stage to a binary, without `-fcgl` (the default pipeline is what is measured).
fn dxc_cases(corpus: &Path, report: &mut Report) -> Result<Vec<Case>> {
    if !corpus.is_dir() {
        report.line(format!("(no DXC test corpus at {}: skipped)\n", corpus.display()));
        return Ok(Vec::new());
    }
    let mut cases = Vec::new();
    for path in crate::corpus::files_with_extension(corpus, "hlsl")? {
        let text = String::from_utf8_lossy(&std::fs::read(&path)?).into_owned();
        let Ok(directives) = crate::lit::parse_directives(&text) else { continue };
        let file = path.strip_prefix(corpus).unwrap_or(&path).to_string_lossy().into_owned();
        let run = directives.runs.iter().find_map(|(_, line)| {
            if line.contains("%if") {
                return None;
            }
            let script = crate::lit::parse_script(line).ok()?;
            let cmd = script.first()?.1.first()?;
            let (expect, words) = crate::lit::strip_not(&cmd.words);
            if !matches!(expect, crate::lit::Expect::Success) || words.first()? != "%dxc" {
                return None;
            }
            let mut args = Vec::new();
            let mut rest = words[1..].iter();
            while let Some(word) = rest.next() {
                match word.as_str() {
                    "-P" | "-fsyntax-only" | "-ast-dump" | "-verify" => return None,
                    "-Fo" | "-Fi" | "-Fc" | "-Fre" | "-Frs" => {
                        rest.next();
                    }
                    "-fcgl" | "-Vd" => {}
                    w if w.starts_with('%') => {}
                    w => args.push(w.to_string()),
                }
            }
            args.push(file.clone());
            Some(args)
        });
        let Some(ours) = run else { continue };
        let Some(theirs) = glslang_args(&ours[..ours.len() - 1], &file) else { continue };
        cases.push(Case {
            name: format!("dxc/{file}"),
            group: "dxc-codegen-spirv",
            cwd: corpus.into(),
            ours,
            theirs,
        });
    }
    Ok(cases)
}

/// glslang's command line for a dxc one (`args` without the input): the stage and entry
/// point, target environment, defines, include directories, binding shifts and the
/// layout and position options it has equivalents of. `None` for stages glslang's HLSL
/// mode lacks (libraries, mesh, amplification) and arguments that are not a compile.
fn glslang_args(args: &[String], file: &str) -> Option<Vec<String>> {
    let mut out: Vec<String> = vec!["-D".into(), "-V".into()];
    let mut stage = None;
    let mut entry = "main".to_string();
    let mut it = args.iter();
    let mut shifts = false;
    while let Some(arg) = it.next() {
        let mut value = || it.next().cloned();
        match arg.as_str() {
            "-T" => stage = Some(value()?),
            "-E" => entry = value()?,
            "-D" => out.push(format!("-D{}", value()?)),
            "-I" => out.push(format!("-I{}", value()?)),
            "-enable-16bit-types" => out.push("--hlsl-enable-16bit-types".into()),
            "-fvk-use-dx-layout" => out.push("--hlsl-offsets".into()),
            "-fvk-use-dx-position-w" => out.push("--hlsl-dx-position-w".into()),
            "-fvk-b-shift" | "-fvk-t-shift" | "-fvk-u-shift" | "-fvk-s-shift" => {
                let flag = match arg.as_str() {
                    "-fvk-b-shift" => "--sub",
                    "-fvk-t-shift" => "--stb",
                    "-fvk-u-shift" => "--suavb",
                    _ => "--ssb",
                };
                let (shift, space) = (value()?, value()?);
                if space == "all" {
                    out.extend([flag.to_string(), shift]);
                } else {
                    out.extend([flag.to_string(), shift, space]);
                }
                shifts = true;
            }
            a if a.starts_with("-T") => stage = Some(a[2..].to_string()),
            a if a.starts_with("-E") => entry = a[2..].to_string(),
            a if a.starts_with("-D") || a.starts_with("-I") => out.push(a.to_string()),
            a => {
                if let Some(env) = a.strip_prefix("-fspv-target-env=") {
                    // glslang knows vulkan1.0-1.3 and spirv1.x; the rest keep its default.
                    if let Some(v) = env.strip_prefix("vulkan") {
                        if ["1.0", "1.1", "1.2", "1.3"].contains(&v) {
                            out.extend(["--target-env".into(), env.to_string()]);
                        }
                    }
                }
            }
        }
    }
    let profile = stage?;
    let glslang_stage = match profile.split('_').next()? {
        "vs" => "vert",
        "ps" => "frag",
        "gs" => "geom",
        "hs" => "tesc",
        "ds" => "tese",
        "cs" => "comp",
        _ => return None,
    };
    if shifts {
        out.push("--hlsl-iomap".into());
    }
    out.extend(["-S".into(), glslang_stage.into(), "-e".into(), entry, file.to_string()]);
    Some(out)
}

// ---------------------------------------------------------------------------
// Running

/// Wall time of one compile writing `out`; an error (with the first lines of its output)
/// if it fails or writes nothing.
fn compile_once(
    program: &Path,
    args: &[String],
    out_flag: &str,
    out: &Path,
    cwd: &Path,
) -> Result<Duration, String> {
    let _ = std::fs::remove_file(out);
    let start = Instant::now();
    let output = Command::new(program)
        .args(args)
        .arg(out_flag)
        .arg(out)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let elapsed = start.elapsed();
    if !output.status.success() || std::fs::metadata(out).map_or(true, |m| m.len() == 0) {
        let text =
            format!("{}{}", String::from_utf8_lossy(&output.stderr), String::from_utf8_lossy(&output.stdout));
        let message = text
            .lines()
            .find(|l| l.contains("error") || l.contains("ERROR"))
            .or_else(|| text.lines().next())
            .unwrap_or("no output")
            .to_string();
        return Err(format!("{}: {message}", output.status));
    }
    Ok(elapsed)
}

/// Peak resident set (KB) of one compile, by `/usr/bin/time -f %M`.
fn peak_kb(
    time_tool: Option<&Path>,
    program: &Path,
    args: &[String],
    out_flag: &str,
    out: &Path,
    cwd: &Path,
) -> Option<u64> {
    resources(time_tool, program, args, out_flag, out, cwd).map(|r| r.0)
}

/// Peak resident set (KB) and CPU seconds (user + system, at 10 ms resolution) of one
/// compile, by `/usr/bin/time`: on a loaded machine CPU time says what wall time hides.
fn resources(
    time_tool: Option<&Path>,
    program: &Path,
    args: &[String],
    out_flag: &str,
    out: &Path,
    cwd: &Path,
) -> Option<(u64, f64)> {
    let time_tool = time_tool?;
    let output = Command::new(time_tool)
        .args(["-f", "%M %U %S"])
        .arg(program)
        .args(args)
        .arg(out_flag)
        .arg(out)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stderr);
    let mut fields = text.lines().last()?.split_whitespace();
    let kb = fields.next()?.parse().ok()?;
    let user: f64 = fields.next()?.parse().ok()?;
    let system: f64 = fields.next()?.parse().ok()?;
    Some((kb, user + system))
}

fn bench_corpus(
    ours: &Path,
    glslang: &Path,
    time_tool: Option<&Path>,
    scratch: &Path,
    cases: Vec<Case>,
    settings: &Settings,
    report: &mut Report,
) -> Result<()> {
    let glslang_program = which(glslang);
    let our_out = scratch.join("ours.spv");
    let their_out = scratch.join("theirs.spv");
    report.line(format!(
        "## Corpus: shaders both compilers accept\n\n{} candidate compiles (Wicked Engine jobs, and DXC tests with a vs/ps/gs/hs/ds/cs `%dxc` RUN line)\n",
        cases.len()
    ));
    report.flush();
    // Which compile: both must succeed.
    let (mut both, mut only_ours, mut only_theirs, mut neither) = (Vec::new(), 0usize, 0usize, 0usize);
    for case in cases {
        let a = compile_once(ours, &case.ours, "-Fo", &our_out, &case.cwd);
        let b = compile_once(&glslang_program, &case.theirs, "-o", &their_out, &case.cwd);
        match (a.is_ok(), b.is_ok()) {
            (true, true) => both.push(case),
            (true, false) => only_ours += 1,
            (false, true) => only_theirs += 1,
            (false, false) => neither += 1,
        }
    }
    let mut table = Table::new(&["group", "both", "only hlsl2spirv", "only glslang", "neither"]);
    for group in ["wicked-engine", "dxc-codegen-spirv"] {
        let n = both.iter().filter(|c| c.group == group).count();
        table.row(vec![group.into(), n.to_string(), String::new(), String::new(), String::new()]);
    }
    table.row(vec![
        "all".into(),
        both.len().to_string(),
        only_ours.to_string(),
        only_theirs.to_string(),
        neither.to_string(),
    ]);
    report.table(&table);
    if both.is_empty() {
        report.line("no shader compiles with both: nothing to compare\n".into());
        return Ok(());
    }

    let mut ours_times = vec![Vec::new(); both.len()];
    let mut theirs_times = vec![Vec::new(); both.len()];
    for _ in 0..settings.runs {
        for (i, case) in both.iter().enumerate() {
            if let Ok(t) = compile_once(ours, &case.ours, "-Fo", &our_out, &case.cwd) {
                ours_times[i].push(t);
            }
            if let Ok(t) = compile_once(&glslang_program, &case.theirs, "-o", &their_out, &case.cwd) {
                theirs_times[i].push(t);
            }
        }
    }
    let mut measured = Vec::new();
    for (i, case) in both.iter().enumerate() {
        let (Some(a), Some(b)) = (ours_times[i].iter().min(), theirs_times[i].iter().min()) else { continue };
        measured.push((
            case,
            Measured {
                ours: *a,
                theirs: *b,
                ours_kb: peak_kb(time_tool, ours, &case.ours, "-Fo", &our_out, &case.cwd),
                theirs_kb: peak_kb(time_tool, &glslang_program, &case.theirs, "-o", &their_out, &case.cwd),
            },
        ));
    }

    let mut table = Table::new(&[
        "group",
        "shaders",
        "ratio p10",
        "ratio median",
        "ratio p90",
        "hlsl2spirv median",
        "hlsl2spirv p90",
        "glslang median",
        "glslang p90",
        "hlsl2spirv MB median / max",
        "glslang MB median / max",
    ]);
    for group in ["wicked-engine", "dxc-codegen-spirv", "all"] {
        let rows: Vec<&Measured> =
            measured.iter().filter(|(c, _)| group == "all" || c.group == group).map(|(_, m)| m).collect();
        if rows.is_empty() {
            continue;
        }
        let ratios: Vec<f64> =
            rows.iter().map(|m| m.theirs.as_secs_f64() / m.ours.as_secs_f64().max(1e-9)).collect();
        let ours_t: Vec<f64> = rows.iter().map(|m| m.ours.as_secs_f64()).collect();
        let theirs_t: Vec<f64> = rows.iter().map(|m| m.theirs.as_secs_f64()).collect();
        let mem = |f: &dyn Fn(&Measured) -> Option<u64>| {
            let kb: Vec<f64> = rows.iter().filter_map(|m| f(m)).map(|k| k as f64).collect();
            if kb.is_empty() {
                return "-".to_string();
            }
            format!("{:.1} / {:.1}", percentile(&kb, 0.5) / 1024.0, percentile(&kb, 1.0) / 1024.0)
        };
        table.row(vec![
            group.into(),
            rows.len().to_string(),
            format!("{:.2}x", percentile(&ratios, 0.1)),
            format!("{:.2}x", percentile(&ratios, 0.5)),
            format!("{:.2}x", percentile(&ratios, 0.9)),
            secs_ms(percentile(&ours_t, 0.5)),
            secs_ms(percentile(&ours_t, 0.9)),
            secs_ms(percentile(&theirs_t, 0.5)),
            secs_ms(percentile(&theirs_t, 0.9)),
            mem(&|m| m.ours_kb),
            mem(&|m| m.theirs_kb),
        ]);
    }
    report.table(&table);
    report.line(
        "p10 of the ratio: 90% of the shaders compile at least this many times faster with hlsl2spirv.\n"
            .into(),
    );

    // Where hlsl2spirv is slowest: the lowest ratios and the longest compiles.
    let mut by_ratio: Vec<_> = measured.iter().collect();
    by_ratio.sort_by(|a, b| {
        let r = |m: &Measured| m.theirs.as_secs_f64() / m.ours.as_secs_f64().max(1e-9);
        r(&a.1).total_cmp(&r(&b.1))
    });
    let mut table = Table::new(&["lowest ratios", "hlsl2spirv", "glslang", "ratio"]);
    for (case, m) in by_ratio.iter().take(8) {
        table.row(vec![
            case.name.clone(),
            ms(m.ours),
            ms(m.theirs),
            format!("{:.2}x", m.theirs.as_secs_f64() / m.ours.as_secs_f64().max(1e-9)),
        ]);
    }
    report.table(&table);
    let mut by_time: Vec<_> = measured.iter().collect();
    by_time.sort_by_key(|(_, m)| std::cmp::Reverse(m.ours));
    let mut table = Table::new(&["longest hlsl2spirv compiles", "hlsl2spirv", "glslang", "ratio"]);
    for (case, m) in by_time.iter().take(8) {
        table.row(vec![
            case.name.clone(),
            ms(m.ours),
            ms(m.theirs),
            format!("{:.2}x", m.theirs.as_secs_f64() / m.ours.as_secs_f64().max(1e-9)),
        ]);
    }
    report.table(&table);
    let mut commands = String::from("Example commands (run from the corpus folder):\n\n");
    if let Some((case, _)) = measured.first() {
        let _ = writeln!(
            commands,
            "    hlsl2spirv {} -Fo out.spv\n    glslangValidator {} -o out.spv\n",
            case.ours.join(" "),
            case.theirs.join(" ")
        );
    }
    report.line(commands);
    report.flush();
    Ok(())
}

// ---------------------------------------------------------------------------
// The large generated shader

fn bench_large(
    ours: &Path,
    glslang: &Path,
    time_tool: Option<&Path>,
    bench_dir: &Path,
    scratch: &Path,
    settings: &Settings,
    report: &mut Report,
) -> Result<()> {
    let glslang_program = which(glslang);
    let path = bench_dir.join("large-compute.hlsl");
    let text = large_compute_shader(settings.functions);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&path, &text)?;
    }
    report.line(format!(
        "## Large generated shader\n\n`{}`: {} functions (structs, loops, branches, switches; each called once, \
         all reachable from the `cs_6_0` entry point), {} lines, {:.2} MB\n",
        rel(&path),
        settings.functions,
        text.lines().count(),
        text.len() as f64 / 1e6
    ));
    report.flush();
    let cwd = bench_dir.to_path_buf();
    let file = path.to_string_lossy().into_owned();
    let our_args: Vec<String> = ["-T", "cs_6_0", "-E", "main", file.as_str()].map(String::from).to_vec();
    let their_args: Vec<String> =
        ["-D", "-V", "-S", "comp", "-e", "main", file.as_str()].map(String::from).to_vec();
    let our_out = scratch.join("large-ours.spv");
    let their_out = scratch.join("large-theirs.spv");
    let mut a = Vec::new();
    let mut b = Vec::new();
    for _ in 0..settings.runs {
        a.push(
            compile_once(ours, &our_args, "-Fo", &our_out, &cwd)
                .map_err(|e| anyhow::anyhow!("hlsl2spirv: {e}"))?,
        );
        b.push(
            compile_once(&glslang_program, &their_args, "-o", &their_out, &cwd)
                .map_err(|e| anyhow::anyhow!("glslangValidator: {e}"))?,
        );
    }
    // glslang without its legalization (`-Od`): the same work as a pipeline that does
    // not legalize, for comparison while hlsl2spirv's default pipeline does not.
    let mut unlegalized_args = their_args.clone();
    unlegalized_args.insert(2, "-Od".into());
    let unlegalized_out = scratch.join("large-theirs-od.spv");
    let mut c = Vec::new();
    for _ in 0..settings.runs {
        c.push(
            compile_once(&glslang_program, &unlegalized_args, "-o", &unlegalized_out, &cwd)
                .map_err(|e| anyhow::anyhow!("glslangValidator -Od: {e}"))?,
        );
    }
    a.sort();
    b.sort();
    c.sort();
    let ours_res = resources(time_tool, ours, &our_args, "-Fo", &our_out, &cwd);
    let theirs_res = resources(time_tool, &glslang_program, &their_args, "-o", &their_out, &cwd);
    let unlegalized_res =
        resources(time_tool, &glslang_program, &unlegalized_args, "-o", &unlegalized_out, &cwd);
    let calls = |p: &Path| std::fs::read(p).map(|bytes| count_opcode(&bytes, 57)).unwrap_or(0);
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let mut table = Table::new(&[
        "large",
        "fastest",
        "median",
        "CPU s (one run)",
        "peak MB",
        "binary KB",
        "OpFunctionCall left",
    ]);
    let mb = |r: Option<(u64, f64)>| r.map_or("-".to_string(), |(k, _)| format!("{:.1}", k as f64 / 1024.0));
    let cpu = |r: Option<(u64, f64)>| r.map_or("-".to_string(), |(_, s)| format!("{s:.2}"));
    table.row(vec![
        "hlsl2spirv".into(),
        ms(a[0]),
        ms(a[a.len() / 2]),
        cpu(ours_res),
        mb(ours_res),
        format!("{:.0}", size(&our_out) as f64 / 1024.0),
        calls(&our_out).to_string(),
    ]);
    table.row(vec![
        "glslangValidator".into(),
        ms(b[0]),
        ms(b[b.len() / 2]),
        cpu(theirs_res),
        mb(theirs_res),
        format!("{:.0}", size(&their_out) as f64 / 1024.0),
        calls(&their_out).to_string(),
    ]);
    table.row(vec![
        "glslangValidator -Od".into(),
        ms(c[0]),
        ms(c[c.len() / 2]),
        cpu(unlegalized_res),
        mb(unlegalized_res),
        format!("{:.0}", size(&unlegalized_out) as f64 / 1024.0),
        calls(&unlegalized_out).to_string(),
    ]);
    report.table(&table);
    let legalized = calls(&our_out) == 0;
    report.line(format!(
        "ratio (fastest runs): {:.2}x; against glslang -Od: {:.2}x. glslang legalizes HLSL (inlining every call); hlsl2spirv's default pipeline {}.\n\n    \
         hlsl2spirv {} -Fo out.spv\n    glslangValidator {} -o out.spv\n",
        b[0].as_secs_f64() / a[0].as_secs_f64().max(1e-9),
        c[0].as_secs_f64() / a[0].as_secs_f64().max(1e-9),
        if legalized {
            "inlined every call too"
        } else {
            "left function calls in place: it does not legalize yet, so the two do not do the same work"
        },
        our_args.join(" "),
        their_args.join(" ")
    ));
    report.flush();
    Ok(())
}

/// A deterministic compute shader of `functions` functions, each called exactly once
/// (function i calls 2i+1 and 2i+2: a binary tree, so every one is reachable from the
/// entry point and inlining them all stays linear in size), mixing arithmetic, loops,
/// branches, switches, structs passed in and returned, and intrinsics.
pub(crate) fn large_compute_shader(functions: usize) -> String {
    let mut s = String::from(
        "// Generated by `cargo xtask bench-hlsl` (deterministic).\n\
         struct State {\n    float4 value;\n    int count;\n    uint flags;\n};\n\
         RWStructuredBuffer<float4> gInput : register(u0);\nRWStructuredBuffer<float4> gOutput : register(u1);\n\
         cbuffer Params : register(b0) {\n    float4 gScale;\n    uint gMode;\n};\n",
    );
    let groups = functions.div_ceil(16);
    for g in 0..groups {
        let _ = write!(s, "struct Pair{g} {{\n    float3 a;\n    float b;\n    int c;\n}};\n");
    }
    // Callees before callers: declare in reverse index order.
    for i in (0..functions).rev() {
        let g = i / 16;
        let (left, right) = (2 * i + 1, 2 * i + 2);
        let k = i % 7 + 2;
        let _ = write!(
            s,
            "State f{i}(State st, float x) {{\n    Pair{g} p;\n    p.a = st.value.xyz * {k}.0 + x;\n    p.b = dot(p.a, float3(0.5, 0.25, {k}.0));\n    p.c = st.count + {k};\n    \
             for (int j = 0; j < {k}; ++j) {{\n        p.b = p.b * 0.75 + float(j);\n        if (p.b > {}.0) {{ p.c += j; }} else {{ p.a.x -= 1.0; }}\n    }}\n    \
             switch (p.c & 3) {{\n    case 0: st.value.x += p.b; break;\n    case 1: st.value.y -= p.a.y; break;\n    default: st.value.z = max(st.value.z, p.a.z); break;\n    }}\n    \
             st.count = p.c;\n    st.flags ^= {}u;\n",
            i % 50 + 10,
            i * 2654435761usize % 65536
        );
        if left < functions {
            let _ = writeln!(s, "    st = f{left}(st, p.b);");
        }
        if right < functions {
            let _ = writeln!(s, "    st = f{right}(st, (st.flags & 1u) != 0 ? p.a.x : x);");
        }
        s.push_str("    return st;\n}\n");
    }
    s.push_str(
        "[numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {\n    State st;\n    st.value = gInput[id.x] * gScale;\n    \
         st.count = int(id.x);\n    st.flags = gMode;\n",
    );
    if functions > 0 {
        s.push_str("    st = f0(st, 1.0);\n");
    }
    s.push_str("    gOutput[id.x] = st.value + float(st.count);\n}\n");
    s
}

// ---------------------------------------------------------------------------
// Helpers

/// Nearest-rank percentile (`q` in 0..=1) of unsorted values.
fn percentile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return 0.0;
    }
    let rank = (q * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

fn secs_ms(secs: f64) -> String {
    format!("{:.1} ms", secs * 1e3)
}

/// Instructions with this opcode in a SPIR-V binary (little-endian words).
fn count_opcode(bytes: &[u8], opcode: u32) -> usize {
    let words: Vec<u32> =
        bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let mut i = 5;
    let mut n = 0;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        if words[i] & 0xffff == opcode {
            n += 1;
        }
        i += count.max(1);
    }
    n
}

/// The program's path on PATH (so `/usr/bin/time` runs the same file).
fn which(program: &Path) -> PathBuf {
    if program.components().count() > 1 {
        return program.to_path_buf();
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| program.to_path_buf())
}

fn first_line(program: &Path, arg: &str) -> String {
    Command::new(program)
        .arg(arg)
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).lines().next().map(str::to_string))
        .unwrap_or_else(|| "unknown version".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_compute_shader_has_no_front_end_errors() {
        let text = large_compute_shader(40);
        let fe = spirvkit_hlsl::analyze_source(
            "large.hlsl",
            None,
            text,
            &spirvkit_hlsl::FrontendOptions::default(),
            &spirvkit_hlsl::preprocessor::MemoryLoader::default(),
        );
        assert!(!fe.diags.has_errors(), "{}", fe.render_diagnostics());
    }

    #[test]
    fn every_generated_function_is_called_once() {
        let text = large_compute_shader(100);
        for i in 1..100 {
            assert_eq!(text.matches(&format!("= f{i}(")).count(), 1, "f{i}");
        }
    }

    #[test]
    fn glslang_arguments_of_a_wicked_job() {
        let args: Vec<String> = [
            "-spirv",
            "-fspv-target-env=vulkan1.3",
            "-fvk-use-dx-layout",
            "-fvk-b-shift",
            "0",
            "0",
            "-D",
            "A=1",
            "-T",
            "ps_6_0",
            "-I",
            "shaders/",
            "-E",
            "main",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            glslang_args(&args, "x.hlsl").unwrap().join(" "),
            "-D -V --target-env vulkan1.3 --hlsl-offsets --sub 0 0 -DA=1 -Ishaders/ --hlsl-iomap -S frag -e main x.hlsl"
        );
        let lib: Vec<String> = ["-T", "lib_6_3"].map(String::from).to_vec();
        assert!(glslang_args(&lib, "x.hlsl").is_none());
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let v = [5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(percentile(&v, 0.5), 3.0);
        assert_eq!(percentile(&v, 0.9), 5.0);
        assert_eq!(percentile(&v, 0.1), 1.0);
    }
}
