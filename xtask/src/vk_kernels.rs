//! `cargo xtask vk-kernels [--compiler hlsl2spirv|glslang] [--filter SUBSTR] [--update-floor
//! [--allow-lower]] [--debug]`: the semantics suite of `crates/vkcompute` (HLSL compute kernels
//! with expected outputs) compiled by the chosen compiler, validated with spirv-val, run on
//! Mesa's lavapipe and compared. Prints a per-kernel table (compiled / ran / matched); with
//! `hlsl2spirv` (the default) the matched count is held to conformance/vk-kernels-floor.txt.
//! Without a Vulkan loader or lavapipe it prints why and succeeds (a skip).

use crate::hlsl_conformance::{settle_floor, FloorMode};
use anyhow::{bail, Context as _, Result};
use spirvkit_vkcompute::suite::{self, Compiler, Config, KernelResult};
use spirvkit_vkcompute::{lavapipe_icd_path, Context, DevicePreference};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

const FLOOR_PATH: &str = "conformance/vk-kernels-floor.txt";
const USAGE: &str =
    "usage: vk-kernels [--compiler hlsl2spirv|glslang] [--filter SUBSTR] [--update-floor [--allow-lower]] [--debug]";

pub fn run(args: &[String]) -> Result<()> {
    let mut compiler_name = "hlsl2spirv".to_string();
    let mut filter = None;
    let mut update_floor = false;
    let mut allow_lower = false;
    let mut debug = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--compiler" => compiler_name = iter.next().context("--compiler needs a name")?.clone(),
            "--filter" => filter = Some(iter.next().context("--filter needs a substring")?.clone()),
            "--update-floor" => update_floor = true,
            "--allow-lower" => allow_lower = true,
            "--debug" => debug = true,
            other => bail!("unknown option `{other}`: {USAGE}"),
        }
    }
    if update_floor && (compiler_name != "hlsl2spirv" || filter.is_some()) {
        bail!("--update-floor records the whole suite compiled by hlsl2spirv (no --compiler glslang, no --filter)");
    }
    force_lavapipe();
    let context = match Context::new(DevicePreference::Cpu) {
        Ok(context) => context,
        Err(error) if error.is_unavailable() => {
            println!("vk-kernels: skipped: {error}");
            return Ok(());
        }
        Err(error) => return Err(error).context("creating the Vulkan device"),
    };
    let compiler = match compiler_name.as_str() {
        "hlsl2spirv" => Compiler::Hlsl2spirv(build_hlsl2spirv(debug)?),
        "glslang" => {
            let found =
                Command::new("glslangValidator").arg("--version").output().is_ok_and(|o| o.status.success());
            if !found {
                bail!("glslangValidator not found (Debian package glslang-tools)");
            }
            Compiler::Glslang(PathBuf::from("glslangValidator"))
        }
        other => bail!("unknown compiler `{other}`: {USAGE}"),
    };
    let info = context.info();
    println!(
        "vk-kernels: {} on {} ({}), Vulkan {}.{}.{}, subgroup size {}",
        compiler.name(),
        info.name,
        info.driver,
        info.api_version.0,
        info.api_version.1,
        info.api_version.2,
        info.subgroup.size
    );
    let scratch = crate::target_dir().join("vk-kernels").join(compiler.name());
    let config = Config { compiler, spirv_val: crate::spirv_val_tool().to_path_buf(), scratch, filter };
    let results = suite::run(&context, &config).context("writing the kernels to the scratch directory")?;
    print!("{}", suite::table(&results));
    if !matches!(config.compiler, Compiler::Hlsl2spirv(_)) || config.filter.is_some() {
        return Ok(());
    }
    let count = |f: fn(&KernelResult) -> bool| results.iter().filter(|r| f(r)).count();
    let current = BTreeMap::from([
        ("compiled".to_string(), count(KernelResult::compiled)),
        ("ran".to_string(), count(KernelResult::ran)),
        ("matched".to_string(), count(KernelResult::matched)),
    ]);
    let mode = if update_floor { FloorMode::Update { allow_lower } } else { FloorMode::Check };
    settle_floor(
        "vk-kernels",
        FLOOR_PATH,
        "# Minimum counts for `cargo xtask vk-kernels` (the HLSL kernels of crates/vkcompute compiled by\n\
         # hlsl2spirv and run on lavapipe). Regenerate with `cargo xtask vk-kernels --update-floor`.\n",
        &current,
        mode,
    )
}

/// Makes Mesa's lavapipe the only driver the Vulkan loader sees (unless the caller chose
/// drivers already), so results do not depend on a GPU. Runs before any Vulkan call and
/// before any thread starts.
pub(crate) fn force_lavapipe() {
    if std::env::var_os("VK_DRIVER_FILES").is_some() || std::env::var_os("VK_ICD_FILENAMES").is_some() {
        return;
    }
    if let Some(icd) = lavapipe_icd_path() {
        // The loader reads VK_DRIVER_FILES (1.3.234+) or, before it, VK_ICD_FILENAMES.
        std::env::set_var("VK_DRIVER_FILES", &icd);
        std::env::set_var("VK_ICD_FILENAMES", &icd);
    }
}

pub(crate) fn build_hlsl2spirv(debug: bool) -> Result<PathBuf> {
    let profile_args: &[&str] = if debug { &[] } else { &["--release"] };
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .arg("build")
        .args(profile_args)
        .args(["--quiet", "-p", "hlsl2spirv"])
        .current_dir(crate::workspace_root())
        .status()
        .context("building hlsl2spirv")?;
    if !status.success() {
        bail!("building hlsl2spirv failed");
    }
    Ok(crate::built_binary(if debug { "debug" } else { "release" }, "hlsl2spirv"))
}
