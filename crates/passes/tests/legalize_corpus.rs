//! Legalization over real shaders: every binary of the shared `.spv` corpus
//! (`../shared/corpus/spv` beside the repository, or `SPIRVKIT_SPV_CORPUS`) that
//! calls functions is deserialized, legalized, serialized and validated. glslang's
//! and Slang's unoptimized output is the same raw form as DXC's `-fcgl`: locals and
//! parameters in Function variables, parameters passed by pointer. Binaries the
//! validator already refuses, and inputs whose deserialized IR does not verify,
//! are skipped (counted); the test is skipped with a message without the corpus or
//! a spirv-val.

use std::path::{Path, PathBuf};
use std::process::Command;

use spirvkit_ir::ir::Ir;
use spirvkit_passes::legalize::legalize;
use spirvkit_translate::{deserialize, serialize, DeserializeOptions, SerializeOptions};

#[path = "common/validator.rs"]
mod validator;
use validator::spirv_val;

fn corpus() -> PathBuf {
    match std::env::var_os("SPIRVKIT_SPV_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/spv"),
    }
}

fn spv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            spv_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "spv") {
            out.push(path);
        }
    }
}

/// The Vulkan environment whose SPIR-V version covers the module's.
fn target_env(bytes: &[u8]) -> &'static str {
    let version = bytes.get(4..8).map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    match (version >> 8) & 0xff {
        0..=3 => "vulkan1.1",
        4 => "vulkan1.1spv1.4",
        5 => "vulkan1.2",
        _ => "vulkan1.3",
    }
}

fn valid(val: &Path, bytes: &[u8], env: &str, name: &str) -> Result<(), String> {
    let file =
        std::env::temp_dir().join(format!("spirvkit-legalize-corpus-{}-{name}.spv", std::process::id()));
    std::fs::write(&file, bytes).map_err(|e| e.to_string())?;
    let out = Command::new(val).args(["--target-env", env]).arg(&file).output().map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&file);
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("").to_string())
    }
}

#[test]
fn corpus_shaders_with_calls_legalize_to_valid_modules() {
    let dir = corpus();
    let mut files = Vec::new();
    spv_files(&dir, &mut files);
    if files.is_empty() {
        eprintln!("no .spv corpus at {} (set SPIRVKIT_SPV_CORPUS): test skipped", dir.display());
        return;
    }
    let Some(val) = spirv_val() else {
        eprintln!("spirv-val not found (set SPIRV_VAL): test skipped");
        return;
    };
    let (mut legalized, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().replace('.', "_");
        let mut ir = Ir::new();
        let Ok(module) = deserialize(&bytes, &mut ir, &DeserializeOptions::default()) else {
            skipped += 1;
            continue;
        };
        let calls = ir.ops_under(module).iter().any(|&(_, op)| ir.op(op).name == "spirv.FunctionCall");
        if !calls {
            continue;
        }
        let env = target_env(&bytes);
        if !spirvkit_ir::verify::verify(&ir, module, "").is_empty()
            || valid(&val, &bytes, env, &name).is_err()
        {
            skipped += 1;
            continue;
        }
        let what = path.display().to_string();
        if let Err(e) = legalize(&mut ir, module) {
            failures.push(format!("{what}: {e}"));
            continue;
        }
        let errors = spirvkit_ir::verify::verify(&ir, module, "");
        if let Some(e) = errors.first() {
            failures.push(format!("{what}: does not verify: {}", e.message));
            continue;
        }
        if ir.ops_under(module).iter().any(|&(_, op)| ir.op(op).name == "spirv.FunctionCall") {
            failures.push(format!("{what}: calls left"));
            continue;
        }
        let words = match serialize(&ir, module, &SerializeOptions::default()) {
            Ok(words) => words,
            Err(e) => {
                failures.push(format!("{what}: does not serialize: {e}"));
                continue;
            }
        };
        let out: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        match valid(&val, &out, env, &name) {
            Ok(()) => legalized += 1,
            Err(e) => failures.push(format!("{what}: invalid: {e}")),
        }
    }
    eprintln!(
        "legalized and valid: {legalized}, skipped (invalid input): {skipped}, failed: {}",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(legalized > 0, "no corpus shader with calls was legalized");
}
