//! What the `hlsl2spirv` integration tests share: running the binary on some input,
//! its disassembly, and checking its binaries with a current spirv-val. (Each test
//! binary uses a part of it.)
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Runs `hlsl2spirv ARGS` with `stdin` as its standard input.
pub fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hlsl2spirv"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    // A command-line error ends the process before it reads its input: the pipe may
    // then be closed (EPIPE), which is no failure of the test.
    let written = child.stdin.take().expect("piped").write_all(stdin.as_bytes());
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "writing the input: {e}");
    }
    child.wait_with_output().expect("finishes")
}

/// The disassembly of `source` compiled with `args` (which must succeed).
pub fn disassemble(args: &[&str], source: &str) -> String {
    let mut all: Vec<&str> = args.to_vec();
    all.push("-");
    let out = run(&all, source);
    assert!(out.status.success(), "hlsl2spirv failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("text")
}

/// The current spirv-val: `SPIRV_VAL`, else the project's `.venv` one.
pub fn validator() -> Option<PathBuf> {
    let path = std::env::var_os("SPIRV_VAL")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/spirv-val"));
    path.is_file().then_some(path)
}

/// Compiles `source` with `args` to a binary and checks it with spirv-val and
/// `val_args`; skipped with a message when there is no current validator.
pub fn assert_valid_binary(args: &[&str], source: &str, val_args: &[&str]) {
    let Some(val) = validator() else {
        eprintln!("skipped: no current spirv-val (run scripts/install-deps.sh)");
        return;
    };
    // One file per binary: tests run in parallel, in several test processes.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("hlsl2spirv-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let spv = dir.join(format!("{n}.spv"));
    let spv_text = spv.to_string_lossy().into_owned();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["-Fo", &spv_text, "-"]);
    let out = run(&all, source);
    assert!(out.status.success(), "hlsl2spirv failed: {}", String::from_utf8_lossy(&out.stderr));
    let checked = Command::new(val).args(val_args).arg(&spv).output().expect("spirv-val runs");
    let _ = std::fs::remove_file(&spv);
    assert!(checked.status.success(), "invalid binary: {}", String::from_utf8_lossy(&checked.stderr));
}

/// Asserts that `expected` appear in this order, each on the line after the previous
/// (trimmed lines; `expected[0]` found anywhere).
pub fn assert_consecutive(text: &str, expected: &[&str]) {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let start = lines
        .iter()
        .position(|l| l.contains(expected[0]))
        .unwrap_or_else(|| panic!("no `{}` in:\n{text}", expected[0]));
    for (i, want) in expected.iter().enumerate() {
        let got = lines.get(start + i).copied().unwrap_or("<end>");
        assert!(got.contains(want), "line {i}: expected `{want}`, got `{got}` in:\n{text}");
    }
}
