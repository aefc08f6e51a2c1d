//! `cargo xtask run-corpus [DIR] [--filter SUBSTR] [--ulps N] [--update-floor [--allow-lower]]
//! [--debug]`: every GLCompute entry point of the .spv files under DIR (default
//! ../shared/corpus/spv) run with `spirvkit run`, on `--device vulkan` (the system's
//! driver; lavapipe when installed) and, when the binary has it, `--device cpu`, and every
//! storage buffer compared. Inputs come from the shader's reflected descriptors: each
//! storage buffer its fixed part plus a runtime array of RUNTIME_ELEMENTS elements, filled
//! with `random:SEED` f32 data (the INIT rule); uniform buffers and push constants `ramp`
//! u32 (small integers, so sizes and loop counts read from them stay small); spec constants
//! at their defaults; storage images of their declared format and dimensionality at a
//! harness-chosen extent (IMAGE_EXTENT_*), texels `random:SEED` per component; a grid of
//! GROUPS workgroups. Buffers and 32-bit float images compare as 32-bit words: bit-exact,
//! or both normal f32 values at most `--ulps` (default 4) units in the last place apart;
//! other images (rgba8, half, integer formats) compare exactly. The counts are held to
//! conformance/run-corpus-floor.txt (a ratchet; `images`, the shaders refused for their
//! images, is a ceiling). Without DIR it prints
//! why and succeeds (a skip).

use crate::corpus::{display_path, files_with_extension, ScratchDir};
use crate::hlsl_conformance::{settle_bounds, FloorMode};
use anyhow::{bail, Context as _, Result};
use spirvkit_run::diff::ulp_distance;
use spirvkit_run::reflect::{DescriptorKind, EntryPoint, ImageDecl, Reflection};
use spirvkit_run::{ElemType, ImageDim, ImageFormat, Numeric};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const FLOOR_PATH: &str = "conformance/run-corpus-floor.txt";
const USAGE: &str =
    "usage: run-corpus [DIR] [--filter SUBSTR] [--ulps N] [--update-floor [--allow-lower]] [--debug]";
/// Elements of each runtime array.
const RUNTIME_ELEMENTS: u64 = 1024;
/// Storage image extents by dimensionality (an array's layers last).
const IMAGE_EXTENT_1D: &str = "256";
const IMAGE_EXTENT_2D: &str = "64x64";
const IMAGE_EXTENT_3D: &str = "16x16x16";
const IMAGE_EXTENT_1D_ARRAY: &str = "64x4";
const IMAGE_EXTENT_2D_ARRAY: &str = "32x32x4";
const IMAGE_EXTENT_BUFFER: &str = "4096";
/// Workgroups per dispatch.
const GROUPS: &str = "2,1,1";
/// Seconds a dispatch may run (a shader looping on its random inputs is stopped).
const TIME_LIMIT: &str = "20";

/// What happened to one entry point on one device.
enum Outcome {
    Ran,
    /// `spirvkit run` refused or failed: its first error line.
    Failed(String),
}

pub fn run(args: &[String]) -> Result<()> {
    let mut corpus = None;
    let mut filter = None;
    let mut ulps = 4u64;
    let mut update = false;
    let mut allow_lower = false;
    let mut debug = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--filter" => filter = Some(iter.next().context("--filter needs a substring")?.clone()),
            "--ulps" => ulps = iter.next().context("--ulps needs a count")?.parse().context("--ulps")?,
            "--update-floor" => update = true,
            "--allow-lower" => allow_lower = true,
            "--debug" => debug = true,
            other if !other.starts_with('-') && corpus.is_none() => corpus = Some(PathBuf::from(other)),
            other => bail!("unknown option `{other}`: {USAGE}"),
        }
    }
    if update && filter.is_some() {
        bail!("--update-floor records the whole corpus (no --filter)");
    }
    let corpus = corpus.unwrap_or_else(|| crate::workspace_root().join("../shared/corpus/spv"));
    if !corpus.is_dir() {
        println!("run-corpus: skipped: no corpus at {}", corpus.display());
        return Ok(());
    }
    let spirvkit = build_spirvkit(debug)?;
    let scratch = ScratchDir(crate::target_dir().join("run-corpus"));
    let _ = std::fs::remove_dir_all(&scratch.0);
    std::fs::create_dir_all(&scratch.0)?;

    let mut counts: BTreeMap<String, usize> =
        ["found", "ran_vulkan", "ran_cpu", "matched", "bit_exact", "images"]
            .map(|k| (k.to_string(), 0))
            .into();
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut cpu_built = true;
    let mut vulkan_available = true;
    for file in files_with_extension(&corpus, "spv")? {
        let name = display_path(&corpus, &file);
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let Ok(words) = spirvkit_run::words_from_bytes(&std::fs::read(&file)?) else { continue };
        let Ok(reflection) = spirvkit_run::reflect(&words) else { continue };
        for entry in reflection.entry_points.iter().filter(|e| e.is_compute()) {
            *counts.get_mut("found").expect("counted") += 1;
            let case = format!("{name}:{}", entry.name);
            let dir = scratch.0.join(format!("case{}", counts["found"]));
            std::fs::create_dir_all(&dir)?;
            let (args, storage) = run_arguments(&file, entry, &reflection, &dir);
            let vulkan = run_on(&spirvkit, &args, "vulkan", &dir)?;
            match &vulkan {
                Outcome::Ran => *counts.get_mut("ran_vulkan").expect("counted") += 1,
                Outcome::Failed(e) if e.contains("no Vulkan available") => {
                    vulkan_available = false;
                }
                Outcome::Failed(e) => {
                    if e.contains("not supported yet: images") {
                        *counts.get_mut("images").expect("counted") += 1;
                    }
                    failures.entry(format!("vulkan: {}", category(e))).or_default().push(case.clone());
                }
            }
            if !cpu_built {
                continue;
            }
            let cpu = run_on(&spirvkit, &args, "cpu", &dir)?;
            match &cpu {
                Outcome::Ran => *counts.get_mut("ran_cpu").expect("counted") += 1,
                Outcome::Failed(e)
                    if e.contains("without the cpu device") || e.contains("not linked into this build") =>
                {
                    cpu_built = false;
                    continue;
                }
                Outcome::Failed(e) => {
                    failures.entry(format!("cpu: {}", category(e))).or_default().push(case.clone());
                }
            }
            if let (Outcome::Ran, Outcome::Ran) = (&vulkan, &cpu) {
                match compare(&dir, &storage, ulps)? {
                    Comparison::BitExact => {
                        *counts.get_mut("matched").expect("counted") += 1;
                        *counts.get_mut("bit_exact").expect("counted") += 1;
                    }
                    Comparison::WithinUlps => *counts.get_mut("matched").expect("counted") += 1,
                    Comparison::Differ(what) => {
                        failures.entry("differ".into()).or_default().push(format!("{case}: {what}"))
                    }
                }
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    for (category, cases) in &failures {
        println!("{category} ({}):", cases.len());
        for case in cases {
            println!("    {case}");
        }
    }
    println!(
        "run-corpus: {} compute entry points found; ran on vulkan {}; ran on cpu {}; matched {} ({} bit-exact, others within {ulps} ULP); not supported yet: images {}",
        counts["found"], counts["ran_vulkan"], counts["ran_cpu"], counts["matched"], counts["bit_exact"], counts["images"]
    );
    if !vulkan_available {
        println!("run-corpus: no Vulkan driver here: the vulkan counts are 0");
    }
    if !cpu_built {
        println!("run-corpus: this spirvkit has no cpu device: the cpu counts are 0");
    }
    if filter.is_some() {
        return Ok(());
    }
    let header = "# Minimum counts for `cargo xtask run-corpus` (the GLCompute entry points of\n\
                  # ../shared/corpus/spv run on vulkan and cpu, storage buffers compared;\n\
                  # `images`, the shaders refused for their storage images, is a maximum).\n\
                  # Regenerate with `cargo xtask run-corpus --update-floor`.\n";
    let mode = if update { FloorMode::Update { allow_lower } } else { FloorMode::Check };
    // `images` counts shaders refused for their images: a ceiling, not a floor.
    settle_bounds("run-corpus", FLOOR_PATH, header, &counts, &["images"], mode)
}

fn build_spirvkit(debug: bool) -> Result<PathBuf> {
    let profile_args: &[&str] = if debug { &[] } else { &["--release"] };
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .arg("build")
        .args(profile_args)
        .args(["--quiet", "-p", "spirvkit-cli"])
        .current_dir(crate::workspace_root())
        .status()
        .context("building spirvkit")?;
    if !status.success() {
        bail!("building spirvkit failed");
    }
    Ok(crate::built_binary(if debug { "debug" } else { "release" }, "spirvkit"))
}

/// A storage buffer or image whose dumps are compared: (set, binding), and whether its
/// 32-bit words may differ by `--ulps` as f32 values (buffers, 32-bit float images).
type StorageBuffer = (u32, u32, bool);

/// `spirvkit run` arguments (without `--device` and the dumps' directory) for `entry`.
fn run_arguments(
    file: &Path,
    entry: &EntryPoint,
    reflection: &Reflection,
    dir: &Path,
) -> (Vec<String>, Vec<StorageBuffer>) {
    let mut args = vec![
        "run".to_string(),
        file.display().to_string(),
        "--entry".into(),
        entry.name.clone(),
        "--groups".into(),
        GROUPS.into(),
        "--time-limit".into(),
        TIME_LIMIT.into(),
    ];
    let mut storage = Vec::new();
    for d in reflection.descriptors_of(entry) {
        let words = |bytes: u64| bytes.div_ceil(4).max(1);
        match d.kind {
            DescriptorKind::StorageBuffer => {
                let bytes = d.fixed_size.next_multiple_of(4)
                    + d.runtime_stride.map_or(0, |stride| stride * RUNTIME_ELEMENTS);
                let seed = u64::from(d.set) * 1000 + u64::from(d.binding) + 1;
                args.push("--buf".into());
                args.push(format!("{}:{}:f32:{}:random:{seed}", d.binding, d.set, words(bytes)));
                args.push("--dump".into());
                args.push(format!(
                    "{}:{}:{}",
                    d.binding,
                    d.set,
                    dir.join(format!("DEVICE-{}-{}.bin", d.set, d.binding)).display()
                ));
                storage.push((d.set, d.binding, true));
            }
            DescriptorKind::Sampler => {
                // Nearest filtering: results the harness can compare exactly.
                args.push("--sampler".into());
                args.push(format!("{}:{}:nearest:clamp-to-edge", d.binding, d.set));
            }
            DescriptorKind::StorageImage
            | DescriptorKind::SampledImage
            | DescriptorKind::StorageTexelBuffer
            | DescriptorKind::UniformTexelBuffer
            | DescriptorKind::CombinedImageSampler => {
                // Not given (so refused with its reason) when the Dim or format has no binding;
                // `Unknown` (slang's) is Rgba8, what the glslang builds of the same samples declare.
                let format = match d.image {
                    Some(ImageDecl { format: Some(format), .. }) => format,
                    Some(ImageDecl { format_code: 0, .. }) => ImageFormat::Rgba8,
                    _ => continue,
                };
                let Some(ImageDecl { dim: Some(dim), .. }) = d.image else { continue };
                let extent = match dim {
                    ImageDim::D1 => IMAGE_EXTENT_1D,
                    ImageDim::D2 => IMAGE_EXTENT_2D,
                    ImageDim::D3 => IMAGE_EXTENT_3D,
                    ImageDim::D1Array => IMAGE_EXTENT_1D_ARRAY,
                    ImageDim::D2Array => IMAGE_EXTENT_2D_ARRAY,
                    ImageDim::Buffer => IMAGE_EXTENT_BUFFER,
                };
                if d.kind == DescriptorKind::CombinedImageSampler {
                    args.push("--sampler".into());
                    args.push(format!("{}:{}:nearest:clamp-to-edge", d.binding, d.set));
                }
                let writable =
                    matches!(d.kind, DescriptorKind::StorageImage | DescriptorKind::StorageTexelBuffer);
                let seed = u64::from(d.set) * 1000 + u64::from(d.binding) + 1;
                args.push("--img".into());
                args.push(format!("{}:{}:{}:{extent}:random:{seed}", d.binding, d.set, format.name()));
                if writable {
                    args.push("--dump".into());
                    args.push(format!(
                        "{}:{}:{}",
                        d.binding,
                        d.set,
                        dir.join(format!("DEVICE-{}-{}.bin", d.set, d.binding)).display()
                    ));
                }
                if writable {
                    let float32 = format.numeric() == Numeric::Float && format.component_bits() == 32;
                    storage.push((d.set, d.binding, float32));
                }
            }
            DescriptorKind::UniformBuffer => {
                args.push("--ubuf".into());
                args.push(format!(
                    "{}:{}:u32:{}:ramp",
                    d.binding,
                    d.set,
                    words(d.fixed_size.next_multiple_of(16))
                ));
            }
            // Not given: `spirvkit run` then says what it cannot bind ("not supported yet").
            _ => {}
        }
    }
    if let Some(size) = reflection.push_constant_size_of(entry) {
        let values: Vec<String> = (0..size.div_ceil(4).max(1)).map(|i| format!("u32={i}")).collect();
        args.push("--push".into());
        args.push(values.join(","));
    }
    (args, storage)
}

fn run_on(spirvkit: &Path, args: &[String], device: &str, dir: &Path) -> Result<Outcome> {
    let args: Vec<String> = args.iter().map(|a| a.replace("DEVICE-", &format!("{device}-"))).collect();
    let mut command = Command::new(spirvkit);
    command.args(&args).args(["--device", device]).current_dir(dir);
    if let Some(icd) = spirvkit_vkcompute::lavapipe_icd_path() {
        if std::env::var_os("VK_DRIVER_FILES").is_none() && std::env::var_os("VK_ICD_FILENAMES").is_none() {
            command.env("VK_DRIVER_FILES", &icd).env("VK_ICD_FILENAMES", &icd);
        }
    }
    let output = command.output().with_context(|| format!("running {}", spirvkit.display()))?;
    if output.status.success() {
        return Ok(Outcome::Ran);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("(no message; killed?)");
    Ok(Outcome::Failed(first.trim().to_string()))
}

/// An error line without what varies from shader to shader (bindings, sizes), so that
/// failures group by kind.
fn category(error: &str) -> String {
    let text = error.strip_prefix("error: ").unwrap_or(error);
    let cut = text.find(": the shader").or_else(|| text.find(" at set ")).unwrap_or(text.len());
    text[..cut].chars().take(120).collect()
}

enum Comparison {
    BitExact,
    WithinUlps,
    Differ(String),
}

fn compare(dir: &Path, storage: &[StorageBuffer], ulps: u64) -> Result<Comparison> {
    let mut exact = true;
    for &(set, binding, tolerant) in storage {
        let read = |device: &str| {
            let path = dir.join(format!("{device}-{set}-{binding}.bin"));
            std::fs::read(&path).with_context(|| format!("reading {}", path.display()))
        };
        let (vulkan, cpu) = (read("vulkan")?, read("cpu")?);
        if vulkan == cpu {
            continue;
        }
        exact = false;
        if vulkan.len() != cpu.len() {
            return Ok(Comparison::Differ(format!("set {set} binding {binding}: sizes differ")));
        }
        if !tolerant {
            let at = vulkan.iter().zip(&cpu).position(|(a, b)| a != b).unwrap_or(0);
            return Ok(Comparison::Differ(format!(
                "set {set} binding {binding} byte {at}: vulkan {:#04x} cpu {:#04x} (compared exactly)",
                vulkan[at], cpu[at]
            )));
        }
        for (index, (a, b)) in vulkan.chunks_exact(4).zip(cpu.chunks_exact(4)).enumerate() {
            let (a, b) = (u32::from_le_bytes(a.try_into()?), u32::from_le_bytes(b.try_into()?));
            if a == b {
                continue;
            }
            // Small integers read as f32 are subnormal: only normal floats get the tolerance.
            let normal = |v: u32| f32::from_bits(v).is_normal();
            if !(normal(a) && normal(b) && ulp_distance(ElemType::F32, u64::from(a), u64::from(b)) <= ulps) {
                return Ok(Comparison::Differ(format!(
                    "set {set} binding {binding} word {index}: vulkan {a:#010x} cpu {b:#010x}"
                )));
            }
        }
    }
    Ok(if exact { Comparison::BitExact } else { Comparison::WithinUlps })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_group_by_kind() {
        assert_eq!(
            category(
                "error: not supported yet: images: the shader declares a storage image at set 0 binding 1"
            ),
            "not supported yet: images"
        );
        assert_eq!(category("error: compile error: x"), "compile error: x");
    }

    #[test]
    fn buffers_compare_bit_exact_within_ulps_or_not() {
        let dir = std::env::temp_dir().join(format!("spirvkit-run-corpus-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |device: &str, words: &[u32]| {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(dir.join(format!("{device}-0-1.bin")), bytes).unwrap();
        };
        let one = 1f32.to_bits();
        let check = |vulkan: &[u32], cpu: &[u32]| {
            write("vulkan", vulkan);
            write("cpu", cpu);
            compare(&dir, &[(0, 1, true)], 4).unwrap()
        };
        assert!(matches!(check(&[one, 7], &[one, 7]), Comparison::BitExact));
        assert!(matches!(check(&[one, 7], &[one + 4, 7]), Comparison::WithinUlps));
        assert!(matches!(check(&[one, 7], &[one + 5, 7]), Comparison::Differ(_)));
        // Small integers are subnormal as floats: compared exactly.
        assert!(matches!(check(&[one, 7], &[one, 8]), Comparison::Differ(_)));
        assert!(matches!(check(&[one], &[one, 7]), Comparison::Differ(_)));
        // Images of 8-bit or integer formats compare exactly.
        write("vulkan", &[one]);
        write("cpu", &[one + 1]);
        assert!(matches!(compare(&dir, &[(0, 1, false)], 4).unwrap(), Comparison::Differ(_)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
