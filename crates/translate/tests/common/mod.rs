//! Helpers the integration tests share.

use std::path::PathBuf;
use std::process::Command;

/// The spirv-val to validate with, if any: `SPIRV_VAL`, or `<repo>/.venv/bin/spirv-val`,
/// or `spirv-val` on PATH.
fn spirv_val() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SPIRV_VAL") {
        return Some(PathBuf::from(path));
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let venv = repo.join(".venv/bin/spirv-val");
    if venv.exists() {
        return Some(venv);
    }
    Command::new("spirv-val").arg("--version").output().ok().map(|_| PathBuf::from("spirv-val"))
}

/// spirv-val's verdict on `bytes` (`Ok` when no validator is found).
pub fn validate(bytes: &[u8], env: &str, what: &str) -> Result<(), String> {
    let Some(val) = spirv_val() else {
        eprintln!("spirv-val not found (set SPIRV_VAL): {what} not validated");
        return Ok(());
    };
    let dir = std::env::temp_dir().join(format!("spirvkit-translate-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    // Unique per call: tests run in parallel.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stem = what.replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    let file = dir.join(format!("{stem}-{call}.spv"));
    std::fs::write(&file, bytes).map_err(|e| e.to_string())?;
    let out =
        Command::new(&val).arg("--target-env").arg(env).arg(&file).output().map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&file);
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}
