//! `spirvkit run` as a user runs it: the command line for a kernel, its `key=value` report,
//! and its `--dump` files.

use super::spec::{Kernel, StorageBuffer};
use anyhow::{bail, Context as _, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A run that takes longer than this is killed and reported as failed.
const RUN_TIMEOUT: Duration = Duration::from_secs(600);

/// A device's figures, in milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// To code ready to dispatch (`compile_ms=`), when the device reports it.
    pub compile_ms: Option<f64>,
    /// The first dispatch (`first_ms=`), when reported.
    pub first_ms: Option<f64>,
    pub median_ms: f64,
}

impl Report {
    /// What the first dispatch took beyond the median: work a driver defers to its first
    /// dispatch (llvmpipe, under lavapipe, JIT-compiles the shader's variant there).
    pub fn first_extra_ms(&self) -> Option<f64> {
        self.first_ms.map(|first| (first - self.median_ms).max(0.0))
    }
}

impl Report {
    /// Reads `spirvkit run`'s `key=value` lines; `median_ms` is required.
    pub fn parse(stdout: &str) -> Result<Report> {
        let values: BTreeMap<&str, &str> =
            stdout.lines().filter_map(|line| line.trim().split_once('=')).collect();
        let number = |key: &str| -> Result<Option<f64>> {
            values
                .get(key)
                .map(|v| v.trim().parse::<f64>().with_context(|| format!("`{key}={v}` is not a number")))
                .transpose()
        };
        let median_ms = number("median_ms")?.context("no `median_ms=` line in spirvkit run's output")?;
        Ok(Report { compile_ms: number("compile_ms")?, first_ms: number("first_ms")?, median_ms })
    }
}

/// What one `spirvkit run` left: its report, the output buffer, and the inputs it was given.
pub struct DeviceRun {
    pub report: Report,
    pub output: Vec<u8>,
    /// The read-only storage buffers as dumped after the run.
    pub inputs: Vec<(StorageBuffer, Vec<u8>)>,
}

pub struct Spirvkit {
    path: PathBuf,
    /// Whether this build has the `run` command.
    pub has_run: bool,
}

impl Spirvkit {
    /// Builds the release `spirvkit` and asks it whether it has `run`.
    pub fn build() -> Result<Spirvkit> {
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--release", "--quiet", "-p", "spirvkit-cli"])
            .current_dir(crate::workspace_root())
            .status()
            .context("building spirvkit")?;
        if !status.success() {
            bail!("building spirvkit failed");
        }
        let path = crate::built_binary("release", "spirvkit");
        let has_run = Command::new(&path)
            .args(["run", "--help"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        Ok(Spirvkit { path, has_run })
    }

    /// `spirvkit run` of `kernel` at size `n` on `device`, `repeat` dispatches.
    pub fn run(
        &self,
        device: &str,
        kernel: Kernel,
        n: u32,
        spv: &Path,
        scratch: &Path,
        repeat: u32,
    ) -> Result<DeviceRun> {
        let buffers = kernel.buffers(n);
        let dump = |b: &StorageBuffer| scratch.join(format!("{}-{device}-b{}.bin", kernel.name(), b.binding));
        let args = arguments(kernel, n, spv, device, repeat, &dump);
        for b in &buffers {
            let _ = std::fs::remove_file(dump(b));
        }
        let mut command = Command::new(&self.path);
        // Mesa's shader cache would make lavapipe's compile_ms a cache lookup after the
        // first run: every run compiles, as the CPU device's JIT does.
        command.args(&args).env("MESA_SHADER_CACHE_DISABLE", "true");
        let stdout = run_with_timeout(&mut command)?;
        let report = Report::parse(&stdout)?;
        let mut output = Vec::new();
        let mut inputs = Vec::new();
        for b in buffers {
            let path = dump(&b);
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading the dump {}", path.display()))?;
            let _ = std::fs::remove_file(&path);
            if b.output {
                output = bytes;
            } else {
                inputs.push((b, bytes));
            }
        }
        Ok(DeviceRun { report, output, inputs })
    }
}

/// The command line after `spirvkit`.
fn arguments(
    kernel: Kernel,
    n: u32,
    spv: &Path,
    device: &str,
    repeat: u32,
    dump: &dyn Fn(&StorageBuffer) -> PathBuf,
) -> Vec<String> {
    let [x, y, z] = kernel.groups(n);
    let mut args = vec![
        "run".to_string(),
        spv.display().to_string(),
        "--entry".into(),
        "main".into(),
        "--groups".into(),
        format!("{x},{y},{z}"),
        "--ubo".into(),
        kernel.ubo_arg(n),
    ];
    for b in kernel.buffers(n) {
        args.push("--buf".into());
        args.push(format!("{}:{}:{}:{}", b.binding, b.elem.name(), b.count, b.init.arg()));
        args.push("--dump".into());
        args.push(format!("{}:{}", b.binding, dump(&b).display()));
    }
    args.extend(["--repeat".into(), repeat.to_string(), "--device".into(), device.to_string()]);
    args
}

/// Runs `command`, returns its standard output; fails on a non-zero exit (with its
/// standard error's last lines) or after [`RUN_TIMEOUT`].
fn run_with_timeout(command: &mut Command) -> Result<String> {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().context("starting")?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() > RUN_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            bail!("killed after {} s", RUN_TIMEOUT.as_secs());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if !status.success() {
        let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!("exit {}: {}", status.code().map_or("signal".into(), |c| c.to_string()), tail.join(" / "));
    }
    Ok(stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lines_are_parsed() {
        let report =
            Report::parse("device=cpu\ncompile_ms=12.5\nfirst_ms=3\nmedian_ms=2.25\nmin_ms=2\n").unwrap();
        assert_eq!(report, Report { compile_ms: Some(12.5), first_ms: Some(3.0), median_ms: 2.25 });
        assert_eq!(report.first_extra_ms(), Some(0.75));
        assert!(Report::parse("device=cpu\n").is_err());
        assert!(Report::parse("median_ms=fast\n").is_err());
        assert_eq!(Report::parse("median_ms=1\n").unwrap().compile_ms, None);
    }

    #[test]
    fn command_line_describes_the_kernel() {
        let dump = |b: &StorageBuffer| PathBuf::from(format!("/d/b{}", b.binding));
        let args = arguments(Kernel::Reduce, 1000, Path::new("r.spv"), "cpu", 5, &dump);
        assert_eq!(
            args.join(" "),
            "run r.spv --entry main --groups 4,1,1 --ubo 0:u32=1000,u32=0,u32=0,u32=0 \
             --buf 1:f32:1000:random:1 --dump 1:/d/b1 --buf 2:f32:4:zero --dump 2:/d/b2 \
             --repeat 5 --device cpu"
        );
    }
}
