//! The bundled example (`examples/hlsl/sum.hlsl`), compiled as the set-up script and the
//! README do it (`hlsl2spirv -T cs_6_0 -E main examples/hlsl/sum.hlsl -Fo sum.spv`): the
//! binary is written and spirv-val accepts it (validation is skipped, with a message,
//! when no spirv-val is found).

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `SPIRV_VAL`, else the project's `.venv/bin/spirv-val`, else `spirv-val` on PATH.
fn spirv_val() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SPIRV_VAL") {
        return Some(PathBuf::from(path));
    }
    let venv = repo().join(".venv/bin/spirv-val");
    if venv.exists() {
        return Some(venv);
    }
    Command::new("spirv-val").arg("--version").output().ok().map(|_| PathBuf::from("spirv-val"))
}

#[test]
fn the_example_compute_shader_compiles_to_a_valid_binary() {
    let dir = std::env::temp_dir().join(format!("hlsl2spirv-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("sum.spv");
    let result = Command::new(env!("CARGO_BIN_EXE_hlsl2spirv"))
        .args(["-T", "cs_6_0", "-E", "main", "examples/hlsl/sum.hlsl", "-Fo"])
        .arg(&out)
        .current_dir(repo())
        .output()
        .expect("runs");
    assert!(result.status.success(), "hlsl2spirv failed:\n{}", String::from_utf8_lossy(&result.stderr));
    let bytes = std::fs::read(&out).expect("the binary is written");
    assert_eq!(bytes.get(..4), Some(&[0x03, 0x02, 0x23, 0x07][..]), "SPIR-V magic number");
    let Some(val) = spirv_val() else {
        eprintln!("spirv-val not found (set SPIRV_VAL): the example's binary is not validated");
        return;
    };
    let check =
        Command::new(&val).args(["--target-env", "vulkan1.0"]).arg(&out).output().expect("spirv-val runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        check.status.success(),
        "spirv-val rejects the example's binary:\n{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn the_example_disassembles_with_its_entry_point_and_group_size() {
    let result = Command::new(env!("CARGO_BIN_EXE_hlsl2spirv"))
        .args(["-T", "cs_6_0", "-E", "main", "examples/hlsl/sum.hlsl"])
        .current_dir(repo())
        .output()
        .expect("runs");
    assert!(result.status.success(), "{}", String::from_utf8_lossy(&result.stderr));
    let text = String::from_utf8_lossy(&result.stdout);
    assert!(text.contains("OpEntryPoint GLCompute %main \"main\""), "{text}");
    assert!(text.contains("OpExecutionMode %main LocalSize 64 1 1"), "{text}");
    assert!(text.contains("OpControlBarrier"), "{text}");
    assert!(text.contains("OpAtomicIAdd"), "{text}");
}
