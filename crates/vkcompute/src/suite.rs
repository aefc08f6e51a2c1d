//! The semantics suite: HLSL compute kernels (`kernels/*.hlsl`), each with fixed inputs and
//! expected outputs computed here in Rust from HLSL's rules, compiled by a chosen compiler,
//! validated with spirv-val, run on the device, and compared.
//!
//! A kernel's outcome is one of: the compiler failed (its first error line), the binary is
//! invalid (never handed to the driver), the device lacks a feature it needs (skipped), the
//! run failed, the outputs differ (the first differences), or they match.

mod kernels;

use crate::{Binding, Context, DeviceInfo, Dispatch, Error};
use std::path::{Path, PathBuf};
use std::process::Command;

pub use kernels::KERNELS;

/// The Vulkan environment the kernels are compiled for and validated against (wave
/// operations need 1.1).
pub const TARGET_ENV: &str = "vulkan1.1";

/// An HLSL compute kernel of the suite.
pub struct Kernel {
    pub name: &'static str,
    /// The HLSL source (entry point `main`).
    pub source: &'static str,
    /// Inputs, dispatch and expectations for the given device.
    pub case: fn(&DeviceInfo) -> Case,
}

/// What a kernel needs from the device beyond Vulkan 1.1 compute.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    pub subgroup_basic: bool,
    pub subgroup_arithmetic: bool,
    pub subgroup_ballot: bool,
    pub subgroup_vote: bool,
    pub subgroup_shuffle: bool,
}

/// One run of a kernel: bindings with initial contents, workgroup counts, expectations.
pub struct Case {
    pub bindings: Vec<Binding>,
    pub groups: [u32; 3],
    pub expect: Vec<Expect>,
    pub needs: Needs,
}

/// An expectation on a read-back binding, starting at a word offset.
pub struct Expect {
    pub set: u32,
    pub binding: u32,
    /// First 32-bit word compared.
    pub word_offset: usize,
    pub values: Expected,
}

/// Tolerance of a float comparison: |got - want| <= abs + rel * |want|.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub abs: f32,
    pub rel: f32,
}

impl Tolerance {
    /// Bit-exact (but -0.0 == 0.0).
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0 };
    /// Correctly rounded operations that may fuse or reorder (a few ulp).
    pub const CLOSE: Tolerance = Tolerance { abs: 1e-6, rel: 1e-6 };
    /// Transcendental functions (Vulkan allows a few ulp to 2^-11 absolute).
    pub const TRANSCENDENTAL: Tolerance = Tolerance { abs: 1e-3, rel: 1e-3 };
}

/// Expected words.
pub enum Expected {
    U32(Vec<u32>),
    I32(Vec<i32>),
    /// Each value with its tolerance.
    F32(Vec<(f32, Tolerance)>),
    /// The words, in any order (results of racing atomics).
    U32AnyOrder(Vec<u32>),
}

/// How a kernel fared.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    CompileFailed(String),
    Invalid(String),
    Skipped(String),
    RunFailed(String),
    /// Every output word that differs from its expectation.
    Mismatch(Vec<Difference>),
    Matched,
}

/// An output word (of binding `binding` of set `set`) that differs from its expectation.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub set: u32,
    pub binding: u32,
    pub word: usize,
    /// What it holds and what was wanted.
    pub detail: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})[{}] {}", self.set, self.binding, self.word, self.detail)
    }
}

/// One kernel's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelResult {
    pub name: &'static str,
    pub outcome: Outcome,
}

impl KernelResult {
    pub fn compiled(&self) -> bool {
        !matches!(self.outcome, Outcome::CompileFailed(_))
    }
    /// Compiled to a valid binary that the device ran.
    pub fn ran(&self) -> bool {
        matches!(self.outcome, Outcome::Mismatch(_) | Outcome::Matched)
    }
    pub fn matched(&self) -> bool {
        self.outcome == Outcome::Matched
    }
}

/// The compiler under test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compiler {
    /// spirvkit's `hlsl2spirv` (dxc's command line).
    Hlsl2spirv(PathBuf),
    /// glslang's HLSL mode (`glslangValidator -D`), the reference for the harness itself.
    Glslang(PathBuf),
}

impl Compiler {
    pub fn name(&self) -> &'static str {
        match self {
            Compiler::Hlsl2spirv(_) => "hlsl2spirv",
            Compiler::Glslang(_) => "glslang",
        }
    }

    /// The command line compiling `source` (entry `main`, compute) to `output`.
    pub fn command(&self, source: &Path, output: &Path) -> Command {
        match self {
            Compiler::Hlsl2spirv(binary) => {
                let mut command = Command::new(binary);
                command
                    // HLSL 2021 (dxc's default, spelled out): scalar && || ?: short-circuit.
                    .args(["-T", "cs_6_0", "-E", "main", "-HV", "2021"])
                    .arg(format!("-fspv-target-env={TARGET_ENV}"))
                    .arg(source)
                    .arg("-Fo")
                    .arg(output);
                command
            }
            Compiler::Glslang(binary) => {
                let mut command = Command::new(binary);
                command
                    .args(["-D", "-V", "-S", "comp", "-e", "main", "--target-env", TARGET_ENV])
                    .arg(source)
                    .arg("-o")
                    .arg(output);
                command
            }
        }
    }

    /// Compiles `source` to `output` and returns the binary, or the first error line.
    pub fn compile(&self, source: &Path, output: &Path) -> Result<Vec<u8>, String> {
        let _ = std::fs::remove_file(output);
        let log = output.with_extension("log");
        let (success, text) = run_with_timeout(self.command(source, output), &log, TOOL_TIMEOUT)
            .map_err(|e| format!("{}: {e}", self.name()))?;
        if !success {
            return Err(first_error_line(&text));
        }
        std::fs::read(output).map_err(|e| format!("{} wrote no binary: {e}", self.name()))
    }
}

/// How long a compiler or validator may run on one kernel (a compiler that loops forever
/// must not hang the suite).
const TOOL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// Runs `command` with its output (stdout and stderr) going to `log`, killing it after
/// `timeout`. Returns whether it succeeded and what it printed.
fn run_with_timeout(
    mut command: Command,
    log: &Path,
    timeout: std::time::Duration,
) -> Result<(bool, String), String> {
    let file = std::fs::File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let copy = file.try_clone().map_err(|e| e.to_string())?;
    let mut child = command
        .stdin(std::process::Stdio::null())
        .stdout(copy)
        .stderr(file)
        .spawn()
        .map_err(|e| format!("cannot run: {e}"))?;
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if started.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("did not finish within {} s", timeout.as_secs()));
            }
            None => std::thread::sleep(std::time::Duration::from_millis(5)),
        }
    };
    let bytes = std::fs::read(log).unwrap_or_default();
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if !status.success() && status.code().is_none() {
        text.push_str(&format!("\nerror: killed by a signal ({status})"));
    }
    Ok((status.success(), text))
}

/// The first line that says "error" (else the first non-empty line) of a tool's output.
fn first_error_line(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let line = lines
        .iter()
        .find(|l| l.to_ascii_lowercase().contains("error"))
        .or(lines.first())
        .copied()
        .unwrap_or("failed without a message");
    line.chars().take(200).collect()
}

/// Runs `spirv-val` on a binary; the error text when it is invalid or the validator fails.
pub fn validate(spirv_val: &Path, binary: &Path) -> Result<(), String> {
    let mut command = Command::new(spirv_val);
    command.args(["--target-env", TARGET_ENV]).arg(binary);
    let log = binary.with_extension("val.log");
    let (success, text) =
        run_with_timeout(command, &log, TOOL_TIMEOUT).map_err(|e| format!("{}: {e}", spirv_val.display()))?;
    let _ = std::fs::remove_file(&log);
    if success {
        Ok(())
    } else {
        Err(first_error_line(&text))
    }
}

/// What a suite run needs besides the device.
pub struct Config {
    pub compiler: Compiler,
    pub spirv_val: PathBuf,
    /// Where sources and binaries are written (created if missing).
    pub scratch: PathBuf,
    /// Only kernels whose name contains this.
    pub filter: Option<String>,
}

/// Runs every kernel (or the filtered ones) and returns their outcomes in suite order.
pub fn run(context: &Context, config: &Config) -> Result<Vec<KernelResult>, std::io::Error> {
    std::fs::create_dir_all(&config.scratch)?;
    let mut results = Vec::new();
    for kernel in KERNELS {
        if config.filter.as_deref().is_some_and(|f| !kernel.name.contains(f)) {
            continue;
        }
        let outcome = run_kernel(context, config, kernel)?;
        results.push(KernelResult { name: kernel.name, outcome });
    }
    Ok(results)
}

fn run_kernel(context: &Context, config: &Config, kernel: &Kernel) -> Result<Outcome, std::io::Error> {
    let source = config.scratch.join(format!("{}.hlsl", kernel.name));
    let binary_path = config.scratch.join(format!("{}.{}.spv", kernel.name, config.compiler.name()));
    std::fs::write(&source, kernel.source)?;
    let binary = match config.compiler.compile(&source, &binary_path) {
        Ok(binary) => binary,
        Err(message) => return Ok(Outcome::CompileFailed(message)),
    };
    // Never hand an invalid binary to the driver: lavapipe may crash on one.
    if let Err(message) = validate(&config.spirv_val, &binary_path) {
        return Ok(Outcome::Invalid(message));
    }
    let case = (kernel.case)(context.info());
    if let Some(missing) = missing_feature(context.info(), case.needs) {
        return Ok(Outcome::Skipped(format!("the device lacks {missing}")));
    }
    let dispatch =
        Dispatch { spirv: &binary, entry_point: "main", bindings: &case.bindings, groups: case.groups };
    let outputs = match context.run(&dispatch) {
        Ok(outputs) => outputs,
        Err(error @ Error::Unavailable(_)) => return Ok(Outcome::Skipped(error.to_string())),
        Err(error) => return Ok(Outcome::RunFailed(error.to_string())),
    };
    let mut problems = Vec::new();
    for expect in &case.expect {
        let Some(bytes) = outputs.get(expect.set, expect.binding) else {
            problems.push(Difference {
                set: expect.set,
                binding: expect.binding,
                word: 0,
                detail: "was not read back".into(),
            });
            continue;
        };
        problems.extend(compare(expect, bytes));
    }
    Ok(if problems.is_empty() { Outcome::Matched } else { Outcome::Mismatch(problems) })
}

fn missing_feature(info: &DeviceInfo, needs: Needs) -> Option<&'static str> {
    let s = &info.subgroup;
    let any = needs.subgroup_basic
        || needs.subgroup_arithmetic
        || needs.subgroup_ballot
        || needs.subgroup_vote
        || needs.subgroup_shuffle;
    if any && !s.in_compute {
        return Some("subgroup operations in compute shaders");
    }
    [
        (needs.subgroup_basic && !s.basic, "basic subgroup operations"),
        (needs.subgroup_arithmetic && !s.arithmetic, "subgroup arithmetic"),
        (needs.subgroup_ballot && !s.ballot, "subgroup ballot"),
        (needs.subgroup_vote && !s.vote, "subgroup vote"),
        (needs.subgroup_shuffle && !s.shuffle, "subgroup shuffle"),
    ]
    .into_iter()
    .find(|(missing, _)| *missing)
    .map(|(_, name)| name)
}

/// The differences between what a binding holds and what was expected.
fn compare(expect: &Expect, bytes: &[u8]) -> Vec<Difference> {
    let words: Vec<u32> =
        bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let wanted_len = match &expect.values {
        Expected::U32(v) | Expected::U32AnyOrder(v) => v.len(),
        Expected::I32(v) => v.len(),
        Expected::F32(v) => v.len(),
    };
    let difference =
        |word: usize, detail: String| Difference { set: expect.set, binding: expect.binding, word, detail };
    let Some(got) = words.get(expect.word_offset..expect.word_offset + wanted_len) else {
        let detail = format!("holds {} words, fewer than {}", words.len(), expect.word_offset + wanted_len);
        return vec![difference(expect.word_offset, detail)];
    };
    let at = |i: usize| expect.word_offset + i;
    match &expect.values {
        Expected::U32(want) => (0..want.len())
            .filter(|&i| got[i] != want[i])
            .map(|i| difference(at(i), format!("= {:#x}, want {:#x}", got[i], want[i])))
            .collect(),
        Expected::I32(want) => (0..want.len())
            .filter(|&i| got[i] as i32 != want[i])
            .map(|i| difference(at(i), format!("= {}, want {}", got[i] as i32, want[i])))
            .collect(),
        Expected::F32(want) => (0..want.len())
            .filter(|&i| !float_matches(f32::from_bits(got[i]), want[i].0, want[i].1))
            .map(|i| difference(at(i), format!("= {:?}, want {:?}", f32::from_bits(got[i]), want[i].0)))
            .collect(),
        Expected::U32AnyOrder(want) => {
            let mut got = got.to_vec();
            let mut want = want.clone();
            got.sort_unstable();
            want.sort_unstable();
            if got == want {
                Vec::new()
            } else {
                let extra: Vec<u32> = got.iter().filter(|g| !want.contains(g)).take(4).copied().collect();
                let detail = format!(
                    "..{}: not the expected values in any order (unexpected: {extra:?})",
                    expect.word_offset + wanted_len
                );
                vec![difference(expect.word_offset, detail)]
            }
        }
    }
}

fn float_matches(got: f32, want: f32, tolerance: Tolerance) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    if want.is_infinite() || tolerance == Tolerance::EXACT {
        return got == want;
    }
    (got - want).abs() <= tolerance.abs + tolerance.rel * want.abs()
}

/// A per-kernel table: compiled / ran / matched and the detail of what went wrong.
pub fn table(results: &[KernelResult]) -> String {
    let width = results.iter().map(|r| r.name.len()).max().unwrap_or(6).max(6);
    let mut text = format!("{:width$}  compiled  ran  matched  detail\n", "kernel");
    let mark = |b: bool| if b { "yes" } else { "no" };
    for r in results {
        let detail = match &r.outcome {
            Outcome::CompileFailed(m) => format!("compile failed: {m}"),
            Outcome::Invalid(m) => format!("invalid binary (not run): {m}"),
            Outcome::Skipped(m) => format!("skipped: {m}"),
            Outcome::RunFailed(m) => format!("run failed: {m}"),
            Outcome::Mismatch(differences) => {
                let shown: Vec<String> = differences.iter().take(4).map(Difference::to_string).collect();
                let more = differences.len().saturating_sub(4);
                let more = if more > 0 { format!(" (+{more} more)") } else { String::new() };
                format!("mismatch: {}{more}", shown.join("; "))
            }
            Outcome::Matched => String::new(),
        };
        text.push_str(&format!(
            "{:width$}  {:8}  {:3}  {:7}  {detail}\n",
            r.name,
            mark(r.compiled()),
            mark(r.ran()),
            mark(r.matched())
        ));
    }
    let count = |f: fn(&KernelResult) -> bool| results.iter().filter(|r| f(r)).count();
    text.push_str(&format!(
        "{} kernels: {} compiled, {} ran, {} matched\n",
        results.len(),
        count(KernelResult::compiled),
        count(KernelResult::ran),
        count(KernelResult::matched)
    ));
    text
}

/// Little-endian bytes of words.
pub fn bytes_of_u32(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn bytes_of_i32(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

pub fn bytes_of_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(values: Expected) -> Expect {
        Expect { set: 0, binding: 0, word_offset: 1, values }
    }

    #[test]
    fn compare_reports_each_difference_from_the_offset() {
        let bytes = bytes_of_u32(&[9, 1, 2, 3]);
        assert!(compare(&expect(Expected::U32(vec![1, 2, 3])), &bytes).is_empty());
        let problems = compare(&expect(Expected::U32(vec![1, 5, 3])), &bytes);
        let shown: Vec<String> = problems.iter().map(Difference::to_string).collect();
        assert_eq!(shown, ["(0, 0)[2] = 0x2, want 0x5"]);
        assert_eq!(problems[0].word, 2);
        assert_eq!(compare(&expect(Expected::I32(vec![1, 2, 3, 4])), &bytes).len(), 1, "too short");
    }

    #[test]
    fn floats_compare_within_tolerance_and_any_order_sorts() {
        let bytes = bytes_of_f32(&[0.0, 1.0, 2.0005]);
        let close = Tolerance { abs: 1e-3, rel: 0.0 };
        assert!(
            compare(&expect(Expected::F32(vec![(1.0, Tolerance::EXACT), (2.0, close)])), &bytes).is_empty()
        );
        assert_eq!(
            compare(&expect(Expected::F32(vec![(1.0, Tolerance::EXACT), (2.0, Tolerance::CLOSE)])), &bytes)
                .len(),
            1
        );
        let bytes = bytes_of_u32(&[0, 3, 1, 2]);
        assert!(compare(&expect(Expected::U32AnyOrder(vec![1, 2, 3])), &bytes).is_empty());
        assert_eq!(compare(&expect(Expected::U32AnyOrder(vec![1, 2, 2])), &bytes).len(), 1);
    }

    #[test]
    fn first_error_line_prefers_the_error() {
        assert_eq!(first_error_line("warning: x\nfile.hlsl:3: error: bad\n"), "file.hlsl:3: error: bad");
        assert_eq!(first_error_line("\nsomething went wrong\n"), "something went wrong");
        assert_eq!(first_error_line(""), "failed without a message");
    }

    #[test]
    fn a_tool_that_hangs_is_killed_and_a_crash_is_reported() {
        let dir = std::env::temp_dir().join(format!("spirvkit-vkcompute-timeout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut sleeper = Command::new("sleep");
        sleeper.arg("30");
        let started = std::time::Instant::now();
        let result = run_with_timeout(sleeper, &dir.join("sleep.log"), std::time::Duration::from_millis(200));
        assert!(result.unwrap_err().contains("did not finish"));
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        let mut crasher = Command::new("sh");
        crasher.args(["-c", "echo partial; kill -SEGV $$"]);
        let (success, text) = run_with_timeout(crasher, &dir.join("crash.log"), TOOL_TIMEOUT).unwrap();
        assert!(!success && text.contains("partial") && text.contains("killed by a signal"), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
