//! `cargo xtask llvmir-conformance [--corpus DIR] [--update-floor] [--filter S]`:
//! `spirvkit translate --mlir-to-llvmir` (`spirvkit_translate::to_llvm_ir`, in process)
//! over the LLVM dialect MLIR 22's SPIR-V -> LLVM conversion produces from its own tests.
//!
//! For each file of `test/Conversion/SPIRVToLLVM` and
//! `newer-than-mlir22/test/Conversion/SPIRVToLLVM` in the MLIR SPIR-V corpus, each chunk
//! (split where the file's RUN line splits) is converted by `mlir-opt-22` (the RUN line's
//! pass, `--mlir-print-op-generic`); chunks it refuses are left out (`oracle-refused`).
//! Stages, each counted over the chunks the previous one passed:
//!
//! - `translate`: our writer accepts the LLVM dialect module;
//! - `llvm-as`: `llvm-as-22` accepts our text;
//! - `verify`: `opt-22 -passes=verify -S` accepts it;
//! - `equivalent`: both texts after `opt-22 -S -passes=verify` are the same up to the
//!   module id, attribute group and metadata numbering, phi entry order and the order of
//!   intrinsic declarations. mlir-translate-22 writes a nested module empty (the bug our
//!   writer fixes; such chunks are counted as `nested-module`), so where the chunk has
//!   one nested module with contents, that module is printed alone (a top-level module)
//!   for mlir-translate-22; chunks with several are only verified.
//!
//! Real shaders (`spv-` rows): every GLCompute shader of the `.spv` corpus
//! (`--spv-corpus`, default ../shared/corpus/spv) is deserialized and converted by the
//! workspace's own `spirvkit` binary (`spirvkit opt -convert-spirv-to-llvm`, the most
//! recently built of the release and debug binaries); what converts (`spv-converted`) goes through the same
//! `translate`, `llvm-as` and `verify` stages (no mlir-translate-22 comparison: the
//! conversion writes nested modules). Skipped with a message without a built binary.
//!
//! With a built `spirvkit`, each chunk also goes through the workspace's own conversion
//! (`spirvkit opt`, rows prefixed `spirvkit-`): the chunks mlir-opt-22 refuses (ops newer
//! than MLIR 22) are then compared with mlir-translate-22 too.
//!
//! Counts are compared with `conformance/llvmir-floor.txt` (non-zero exit when below);
//! `--update-floor` rewrites it. Failures are listed in `<target>/llvmir-conformance.txt`.

use crate::corpus::{files_with_extension, read_floor, ScratchDir};
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const FLOOR_PATH: &str = "conformance/llvmir-floor.txt";
const STAGES: [&str; 4] = ["translate", "llvm-as", "verify", "equivalent"];
const SPV_STAGES: [&str; 4] = ["spv-converted", "spv-translate", "spv-llvm-as", "spv-verify"];

pub fn run(args: &[String]) -> Result<()> {
    let mut corpus = crate::workspace_root().join("../shared/corpus/mlir-spirv");
    let mut spv_corpus = crate::workspace_root().join("../shared/corpus/spv");
    let mut update_floor = false;
    let mut filter: Option<String> = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--corpus" => corpus = PathBuf::from(iter.next().context("--corpus needs a directory")?),
            "--spv-corpus" => {
                spv_corpus = PathBuf::from(iter.next().context("--spv-corpus needs a directory")?)
            }
            "--update-floor" => update_floor = true,
            "--filter" => filter = Some(iter.next().context("--filter needs a text")?.clone()),
            other => bail!("unknown option {other}"),
        }
    }
    if !corpus.is_dir() {
        println!("llvmir-conformance: skipped, no corpus at {}", corpus.display());
        return Ok(());
    }
    for tool in ["mlir-opt-22", "mlir-translate-22", "llvm-as-22", "opt-22"] {
        if Command::new(tool).arg("--version").output().is_err() {
            println!("llvmir-conformance: skipped, {tool} is not installed");
            return Ok(());
        }
    }
    let mut files = Vec::new();
    for dir in ["test/Conversion/SPIRVToLLVM", "newer-than-mlir22/test/Conversion/SPIRVToLLVM"] {
        let dir = corpus.join(dir);
        if dir.is_dir() {
            files.extend(files_with_extension(&dir, "mlir")?);
        }
    }
    files.retain(|f| filter.as_deref().is_none_or(|s| f.to_string_lossy().contains(s)));
    let spirvkit = built_spirvkit();
    let scratch = ScratchDir(crate::target_dir().join("llvmir-conformance-scratch"));
    std::fs::create_dir_all(&scratch.0)?;
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut report = String::new();
    for file in &files {
        let name = file.strip_prefix(&corpus).unwrap_or(file).display().to_string();
        let text = std::fs::read_to_string(file)?;
        let run_line = text.lines().find(|l| l.contains("RUN:")).unwrap_or("");
        let pass = if run_line.contains("lower-host-to-llvm") {
            "--lower-host-to-llvm"
        } else {
            "-convert-spirv-to-llvm"
        };
        let chunks: Vec<&str> = if run_line.contains("split-input-file") {
            text.split("\n// -----").collect()
        } else {
            vec![&text]
        };
        for (index, chunk) in chunks.iter().enumerate() {
            let case = format!("{name}#{index}");
            *counts.entry("chunks".into()).or_default() += 1;
            // The oracle's conversion, then (when built) the workspace's own: chunks
            // mlir-opt-22 refuses (the newer ops) still test the writer against
            // mlir-translate-22 that way.
            let mut converters = vec![("", Converter::MlirOpt)];
            if let Some(spirvkit) = &spirvkit {
                converters.push(("spirvkit-", Converter::Spirvkit(spirvkit)));
            }
            for (prefix, converter) in converters {
                match check_chunk(chunk, pass, &scratch.0, converter) {
                    Verdict::OracleRefused => {
                        *counts.entry(format!("{prefix}oracle-refused")).or_default() += 1
                    }
                    Verdict::Reached { passed, nested, failure } => {
                        if nested {
                            *counts.entry(format!("{prefix}nested-module")).or_default() += 1;
                        }
                        for stage in &STAGES[..passed] {
                            *counts.entry(format!("{prefix}{stage}")).or_default() += 1;
                        }
                        if let Some(failure) = failure {
                            let stage = STAGES.get(passed).copied().unwrap_or("?");
                            let _ = writeln!(report, "{prefix}{case}: {stage}: {}", failure.trim_end());
                        }
                    }
                }
            }
        }
    }
    run_spv(&spv_corpus, filter.as_deref(), &scratch.0, &mut counts, &mut report)?;
    let report_path = crate::target_dir().join("llvmir-conformance.txt");
    std::fs::write(&report_path, &report)?;
    println!("llvmir-conformance over {} files ({})", files.len(), corpus.display());
    for (name, count) in &counts {
        println!("  {name:<16} {count}");
    }
    println!("failures: {}", report_path.display());
    let floor_path = crate::workspace_root().join(FLOOR_PATH);
    if filter.is_some() {
        return Ok(());
    }
    if update_floor {
        let mut text = String::from(
            "# Minimum chunks passing each stage of `cargo xtask llvmir-conformance` (LLVM dialect from\n\
             # MLIR 22's SPIR-V -> LLVM tests, written as LLVM IR). Regenerate with --update-floor.\n",
        );
        let spirvkit_stages: Vec<String> = STAGES.iter().map(|s| format!("spirvkit-{s}")).collect();
        let rows = STAGES
            .iter()
            .map(|s| s.to_string())
            .chain(spirvkit_stages.into_iter().filter(|s| counts.contains_key(s)))
            .chain(SPV_STAGES.iter().map(|s| s.to_string()).filter(|s| counts.contains_key(s)));
        for stage in rows {
            let _ = writeln!(text, "{stage} {}", counts.get(&stage).copied().unwrap_or(0));
        }
        std::fs::write(&floor_path, text)?;
        println!("floor written to {}", floor_path.display());
        return Ok(());
    }
    let floor = read_floor(&floor_path, "STAGE COUNT")?;
    let mut below = Vec::new();
    for (stage, minimum) in &floor {
        let got = counts.get(stage).copied().unwrap_or(0);
        if got < *minimum {
            below.push(format!("{stage}: {got} < floor {minimum}"));
        }
    }
    if !below.is_empty() {
        bail!("below the floor: {}", below.join(", "));
    }
    println!("at or above the floor ({})", floor_path.display());
    Ok(())
}

/// The most recently built of the workspace's release and debug `spirvkit` binaries.
fn built_spirvkit() -> Option<PathBuf> {
    ["release", "debug"]
        .iter()
        .map(|p| crate::built_binary(p, "spirvkit"))
        .filter_map(|b| Some((std::fs::metadata(&b).ok()?.modified().ok()?, b)))
        .max()
        .map(|(_, b)| b)
}

#[derive(Clone, Copy)]
enum Converter<'a> {
    MlirOpt,
    Spirvkit(&'a Path),
}

/// The `spv-` rows: real compute shaders converted by the workspace's `spirvkit`.
fn run_spv(
    corpus: &Path,
    filter: Option<&str>,
    scratch: &Path,
    counts: &mut BTreeMap<String, usize>,
    report: &mut String,
) -> Result<()> {
    if !corpus.is_dir() {
        println!("llvmir-conformance: spv rows skipped, no corpus at {}", corpus.display());
        return Ok(());
    }
    let Some(spirvkit) = built_spirvkit() else {
        println!("llvmir-conformance: spv rows skipped, no spirvkit binary built (cargo build --release -p spirvkit-cli)");
        return Ok(());
    };
    let mut files = files_with_extension(corpus, "spv")?;
    files.retain(|f| filter.is_none_or(|s| f.to_string_lossy().contains(s)));
    let deserialized = scratch.join("shader.mlir");
    let converted = scratch.join("shader.llvm.mlir");
    let ours_path = scratch.join("shader.ll");
    for file in files {
        let Ok(bytes) = std::fs::read(&file) else { continue };
        let Ok(module) = spirvkit_binary::read::read(&bytes) else { continue };
        // OpEntryPoint (15) whose execution model (its first word) is GLCompute (5).
        let compute = module.instructions().any(|i| i.opcode == 15 && i.words.get(1) == Some(&5));
        if !compute {
            continue;
        }
        let name = file.strip_prefix(corpus).unwrap_or(&file).display().to_string();
        *counts.entry("spv-compute".into()).or_default() += 1;
        let spirvkit = spirvkit.to_string_lossy();
        if let Err(e) = tool(&spirvkit, &["translate", "--deserialize-spirv", "-o"], &[&deserialized, &file])
        {
            let _ = writeln!(report, "{name}: deserialize: {}", e.trim_end());
            continue;
        }
        let conversion = tool(
            &spirvkit,
            &[
                "opt",
                // The options of the CPU pipeline (`ConvertOptions::kernel()`): real shaders'
                // layouts, storage classes, images and runtime-array lengths, which MLIR 22's
                // defaults refuse.
                "-convert-spirv-to-llvm=explicit-layout=1 keep-global-names=1 all-storage-classes=1 storage-images=1 buffer-lengths=1",
                "--mlir-print-op-generic",
                "-o",
            ],
            &[&converted, &deserialized],
        );
        if let Err(e) = conversion {
            let first = e.lines().next().unwrap_or("").to_string();
            let _ = writeln!(report, "{name}: spv-converted: {first}");
            continue;
        }
        *counts.entry("spv-converted".into()).or_default() += 1;
        let text = std::fs::read_to_string(&converted)?;
        let ours = spirvkit_ir::parse(&text, "converted.mlir")
            .map_err(|e| format!("{e:?}"))
            .and_then(|(ir, top)| spirvkit_translate::to_llvm_ir(&ir, top).map_err(|e| e.to_string()));
        let ours = match ours {
            Ok(ours) => ours,
            Err(e) => {
                let _ = writeln!(report, "{name}: spv-translate: {e}");
                continue;
            }
        };
        *counts.entry("spv-translate".into()).or_default() += 1;
        std::fs::write(&ours_path, ours)?;
        if let Err(e) = tool("llvm-as-22", &["-o"], &[Path::new("/dev/null"), &ours_path]) {
            let _ = writeln!(report, "{name}: spv-llvm-as: {}", e.trim_end());
            continue;
        }
        *counts.entry("spv-llvm-as".into()).or_default() += 1;
        if let Err(e) = tool("opt-22", &["-S", "-passes=verify", "-o"], &[Path::new("/dev/null"), &ours_path])
        {
            let _ = writeln!(report, "{name}: spv-verify: {}", e.trim_end());
            continue;
        }
        *counts.entry("spv-verify".into()).or_default() += 1;
    }
    Ok(())
}

enum Verdict {
    OracleRefused,
    /// `passed` stages passed; `failure` says why the next one failed.
    Reached {
        passed: usize,
        nested: bool,
        failure: Option<String>,
    },
}

fn check_chunk(chunk: &str, pass: &str, scratch: &Path, converter: Converter<'_>) -> Verdict {
    let input = scratch.join("input.mlir");
    let generic = scratch.join("generic.mlir");
    if std::fs::write(&input, chunk).is_err() {
        return Verdict::OracleRefused;
    }
    let converted = match converter {
        Converter::MlirOpt => {
            tool("mlir-opt-22", &[pass, "--mlir-print-op-generic", "-o"], &[&generic, &input])
        }
        Converter::Spirvkit(spirvkit) => tool(
            &spirvkit.to_string_lossy(),
            &["opt", pass, "--mlir-print-op-generic", "-o"],
            &[&generic, &input],
        ),
    };
    if converted.is_err() {
        return Verdict::OracleRefused;
    }
    let Ok(generic_text) = std::fs::read_to_string(&generic) else { return Verdict::OracleRefused };
    let (ir, top) = match spirvkit_ir::parse(&generic_text, "generic.mlir") {
        Ok(parsed) => parsed,
        Err(e) => {
            return Verdict::Reached { passed: 0, nested: false, failure: Some(format!("parse: {e:?}")) }
        }
    };
    let nested =
        ir.ops_under(top).iter().any(|&(_, op)| op != top && ir.op(op).name.as_str() == "builtin.module");
    let reached =
        |passed: usize, failure: String| Verdict::Reached { passed, nested, failure: Some(failure) };
    let ours = match spirvkit_translate::to_llvm_ir(&ir, top) {
        Ok(text) => text,
        Err(e) => return reached(0, e.to_string()),
    };
    let ours_path = scratch.join("ours.ll");
    if let Err(e) = std::fs::write(&ours_path, &ours) {
        return reached(0, e.to_string());
    }
    let null = Path::new("/dev/null");
    if let Err(e) = tool("llvm-as-22", &["-o"], &[null, &ours_path]) {
        return reached(1, e);
    }
    let ours_verified = match tool("opt-22", &["-S", "-passes=verify", "-o", "-"], &[&ours_path]) {
        Ok(text) => text,
        Err(e) => return reached(2, e),
    };
    // mlir-translate-22 writes a nested module empty, but translates a module that is
    // the top-level op: one nested module with contents is compared through that.
    let mut reference_input = generic.clone();
    if nested {
        let with_contents: Vec<_> = ir
            .ops_under(top)
            .into_iter()
            .map(|(_, op)| op)
            .filter(|&op| op != top && ir.op(op).name.as_str() == "builtin.module")
            .filter(|&op| ir.ops_under(op).iter().any(|&(_, inner)| inner != op))
            .collect();
        let [only] = with_contents[..] else {
            return Verdict::Reached { passed: 3, nested, failure: None };
        };
        let options = spirvkit_ir::PrintOptions { generic: true, threads: 1, ..Default::default() };
        reference_input = scratch.join("nested.mlir");
        if std::fs::write(&reference_input, spirvkit_ir::print(&ir, only, options)).is_err() {
            return Verdict::Reached { passed: 3, nested, failure: None };
        }
    }
    let reference = scratch.join("reference.ll");
    if let Err(e) = tool("mlir-translate-22", &["--mlir-to-llvmir", "-o"], &[&reference, &reference_input]) {
        return reached(3, format!("mlir-translate-22 refused the module: {e}"));
    }
    let reference_verified = match tool("opt-22", &["-S", "-passes=verify", "-o", "-"], &[&reference]) {
        Ok(text) => text,
        Err(e) => return reached(3, format!("opt-22 refused mlir-translate-22's output: {e}")),
    };
    let (a, b) = (normalize(&reference_verified), normalize(&ours_verified));
    if a != b {
        let difference = a
            .lines()
            .zip(b.lines())
            .find(|(x, y)| x != y)
            .map(|(x, y)| format!("mlir-translate-22: {x}\n    ours: {y}"))
            .unwrap_or_else(|| format!("{} lines vs {} lines", a.lines().count(), b.lines().count()));
        return reached(3, difference);
    }
    Verdict::Reached { passed: 4, nested, failure: None }
}

/// Runs `program args paths...`; its standard output, or its error output as the error.
fn tool(program: &str, args: &[&str], paths: &[&Path]) -> Result<String, String> {
    let output =
        Command::new(program).args(args).args(paths).output().map_err(|e| format!("{program}: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// LLVM IR text (as `opt -S` prints it) without what may differ between two writers of
/// the same module: comments, the module id and source file name, the module flags,
/// attribute group and metadata numbers (replaced by their contents), the order of phi
/// entries and of declarations.
fn normalize(text: &str) -> String {
    let mut groups: HashMap<String, String> = HashMap::new();
    let mut metadata: HashMap<String, String> = HashMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("attributes #") {
            if let Some((number, contents)) = rest.split_once(" = ") {
                groups.insert(number.to_string(), contents.to_string());
            }
        } else if let Some(rest) = line.strip_prefix('!') {
            if let Some((number, contents)) = rest.split_once(" = ") {
                if number.chars().all(|c| c.is_ascii_digit()) {
                    metadata.insert(number.to_string(), contents.to_string());
                }
            }
        }
    }
    let mut body = Vec::new();
    let mut declarations = BTreeSet::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.is_empty()
            || trimmed.starts_with(';')
            || trimmed.starts_with("source_filename")
            || trimmed.starts_with("attributes #")
            || trimmed.starts_with('!')
        {
            continue;
        }
        let mut line = replace_numbered(line, '#', &groups);
        line = replace_numbered(&line, '!', &metadata);
        // `N:   ; preds = ...`: the comment lists predecessors in use-list order.
        if let Some((label, _)) = line.split_once(';') {
            if label.trim_end().ends_with(':') && !label.contains('"') {
                line = label.trim_end().to_string();
            }
        }
        if let Some((head, entries)) = line.split_once(" = phi ") {
            if let Some((ty, rest)) = entries.split_once(" [") {
                let mut incoming: Vec<String> = format!("[{rest}")
                    .split("], [")
                    .map(|e| e.trim_matches(['[', ']', ' ']).to_string())
                    .collect();
                incoming.sort();
                line = format!("{head} = phi {ty} [ {} ]", incoming.join(" ], [ "));
            }
        }
        if line.starts_with("declare ") {
            declarations.insert(line);
        } else {
            body.push(line);
        }
    }
    body.extend(declarations);
    body.join("\n")
}

/// `#3` (or `!3`) replaced by `#{contents}` from `table`.
fn replace_numbered(line: &str, sigil: char, table: &HashMap<String, String>) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == sigil {
            let digits: String = line[i + 1..].chars().take_while(|c| c.is_ascii_digit()).collect();
            if let Some(contents) = table.get(&digits).filter(|_| !digits.is_empty()) {
                out.push(sigil);
                out.push_str(contents);
                for _ in 0..digits.len() {
                    chars.next();
                }
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn normalization_ignores_numbering_and_orders() {
        let a = "; ModuleID = 'a'\ndefine void @f() #0 {\n  %1 = phi i32 [ 0, %2 ], [ %3, %4 ]\n  store i32 1, ptr %p, !nontemporal !0\n}\ndeclare void @a()\ndeclare void @b()\nattributes #0 = { nounwind }\n!0 = !{i32 1}\n";
        let b = "define void @f() #1 {\n  %1 = phi i32 [ %3, %4 ], [ 0, %2 ]\n  store i32 1, ptr %p, !nontemporal !5\n}\ndeclare void @b()\ndeclare void @a()\nattributes #1 = { nounwind }\n!5 = !{i32 1}\n";
        assert_eq!(normalize(a), normalize(b));
        let c = b.replace("store i32 1", "store i32 2");
        assert_ne!(normalize(a), normalize(&c));
    }
}
