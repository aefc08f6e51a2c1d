//! Shared by the integration tests: lavapipe forced, the device, the validator.

use spirvkit_vkcompute::{lavapipe_icd_path, Context, DevicePreference};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The device, created once per test binary (with lavapipe as the only driver when it is
/// installed), or why there is none.
pub fn context() -> Result<&'static Mutex<Context>, String> {
    static CONTEXT: OnceLock<Result<Mutex<Context>, String>> = OnceLock::new();
    CONTEXT
        .get_or_init(|| {
            // Before any Vulkan call, so the loader only sees the CPU driver: results must not
            // depend on a GPU.
            if let Some(icd) = lavapipe_icd_path() {
                if std::env::var_os("VK_DRIVER_FILES").is_none()
                    && std::env::var_os("VK_ICD_FILENAMES").is_none()
                {
                    std::env::set_var("VK_DRIVER_FILES", &icd);
                    std::env::set_var("VK_ICD_FILENAMES", &icd);
                }
            }
            Context::new(DevicePreference::Cpu).map(Mutex::new).map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The spirv-val the project validates with: SPIRV_VAL, else the workspace's .venv, else PATH.
pub fn spirv_val() -> PathBuf {
    if let Some(path) = std::env::var_os("SPIRV_VAL") {
        return PathBuf::from(path);
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/spirv-val");
    if venv.is_file() {
        venv
    } else {
        PathBuf::from("spirv-val")
    }
}

/// glslang's validator when it is installed.
pub fn glslang() -> Option<PathBuf> {
    let ok = std::process::Command::new("glslangValidator")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then(|| PathBuf::from("glslangValidator"))
}

/// A scratch directory of its own for a test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spirvkit-vkcompute-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
