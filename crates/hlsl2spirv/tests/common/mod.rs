//! What the `hlsl2spirv` integration tests share: running the binary on some input.

use std::io::Write;
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
