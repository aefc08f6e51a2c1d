//! The spirv-val the legalization tests check their binaries with: `SPIRV_VAL`, else
//! the project's `.venv` one, else `spirv-val` on PATH; none when there is none.

use std::path::PathBuf;
use std::process::Command;

pub fn spirv_val() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SPIRV_VAL") {
        return Some(PathBuf::from(path));
    }
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/spirv-val");
    if venv.exists() {
        return Some(venv);
    }
    Command::new("spirv-val").arg("--version").output().ok().map(|_| PathBuf::from("spirv-val"))
}
