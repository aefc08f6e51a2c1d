//! `spirvkit run`: the options, the files and the device; everything else is
//! `spirvkit-run`'s (the checks, the buffers, the report, the diff).

use spirvkit_run::diff::{diff, Tolerance};
use spirvkit_run::{Device, ElemType, RunArgs, RunDescription};
use std::path::{Path, PathBuf};

/// Run a compute shader on a device and print `key=value` timings; or compare two dumps.
///
/// spirvkit run SHADER(.spv|.hlsl) [--entry NAME] [-T cs_6_0] --groups X,Y,Z
/// [--buf BINDING[:SET]:TYPE:COUNT[:INIT]]... [--ubuf BINDING[:SET]:TYPE:COUNT[:INIT]]...
/// [--ubo BINDING[:SET]:TYPE=V,...]... [--img BINDING[:SET]:FORMAT:W[xH[xD]][/LEVELS][:INIT]]...
/// [--sampler BINDING[:SET]:FILTER[:ADDRESS]]...
/// [--push TYPE=V,...] [--spec ID=VALUE]...
/// [--dump BINDING[:SET]:FILE]... [--repeat N] [--fresh] [--threads N]
/// [--device cpu|vulkan] [--time-limit SECONDS]
///
/// spirvkit run --diff A B --type T [--rel 1e-3]
///
/// TYPE: u8 i8 u16 i16 f16 u32 i32 f32 u64 i64 f64. COUNT: a number or a product
/// (1024*1024). INIT: zero (default) | ramp | const:V | file:PATH | random:SEED.
/// FORMAT: SPIR-V's image format names (Rgba8, Rgba8Snorm, Rgba16f, Rgba32f, R32f, R32ui,
/// R32i, Rg32f, ...; any case); an image's INIT fills its texels' components as elements
/// of the format's component type (Rgba8: u8, Rgba16f: f16, R32f: f32); a 2D array's
/// layers are its third size, a 1D array's its second. --img binds whatever image the
/// shader declares at the binding: a storage image, a sampled image (read with
/// OpImageFetch), or a texel buffer (HLSL Buffer<T>/RWBuffer<T>, GLSL
/// samplerBuffer/imageBuffer; one size W, its element count, up to 2^27). /LEVELS gives a
/// sampled image mip levels (each half the previous, at least 1; INIT fills level 0 first).
/// --sampler: FILTER nearest | linear, ADDRESS repeat | mirrored-repeat | clamp-to-edge
/// (default) | clamp-to-border (transparent black); nearest mip level, normalized
/// coordinates. A combined image sampler (GLSL sampler2D) takes an --img and a --sampler at
/// its binding.
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct RunCommand {
    /// The shader: a SPIR-V binary, or HLSL (`.hlsl`, compiled with hlsl2spirv).
    shader: Option<PathBuf>,
    /// The entry point (default `main`).
    #[arg(long)]
    entry: Option<String>,
    /// The HLSL profile (`.hlsl` input only; default cs_6_0).
    #[arg(short = 'T')]
    profile: Option<String>,
    /// Workgroups in x, y, z.
    #[arg(long, value_name = "X,Y,Z")]
    groups: Option<String>,
    /// A storage buffer: BINDING[:SET]:TYPE:COUNT[:INIT].
    #[arg(long)]
    buf: Vec<String>,
    /// A uniform buffer filled as --buf: BINDING[:SET]:TYPE:COUNT[:INIT].
    #[arg(long)]
    ubuf: Vec<String>,
    /// A uniform buffer of 4-byte values from offset 0: BINDING[:SET]:TYPE=V,...
    #[arg(long)]
    ubo: Vec<String>,
    /// An image or texel buffer: BINDING[:SET]:FORMAT:W[xH[xD]][:INIT] (texels tightly
    /// packed; its kind and dimensionality are the shader's).
    #[arg(long)]
    img: Vec<String>,
    /// A sampler (or, at an --img's binding, a combined image sampler's):
    /// BINDING[:SET]:FILTER[:ADDRESS].
    #[arg(long)]
    sampler: Vec<String>,
    /// The push-constant block, 4-byte values from offset 0: TYPE=V,...
    #[arg(long, allow_hyphen_values = true)]
    push: Option<String>,
    /// A specialization constant: ID=VALUE (typed by the shader's constant).
    #[arg(long, allow_hyphen_values = true)]
    spec: Vec<String>,
    /// Write a buffer's bytes (an image's texels) after the last dispatch: BINDING[:SET]:FILE.
    #[arg(long)]
    dump: Vec<String>,
    /// Dispatches to run and time (default 1).
    #[arg(long)]
    repeat: Option<String>,
    /// Refill every buffer from its INIT before each dispatch after the first (untimed).
    #[arg(long)]
    fresh: bool,
    /// Host threads for the cpu device (default: all cores).
    #[arg(long)]
    threads: Option<String>,
    /// The device: cpu (JIT through LLVM) or vulkan (the system's Vulkan driver).
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "vulkan"])]
    device: String,
    /// Stop a dispatch running longer than this many seconds, with an error.
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<String>,
    /// Compare two dumps element by element; exit 1 when they differ.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    diff: Option<Vec<PathBuf>>,
    /// The element type of --diff's dumps.
    #[arg(long = "type", value_name = "T")]
    ty: Option<String>,
    /// --diff's relative tolerance for floats (integers compare exactly).
    #[arg(long, default_value = "1e-3")]
    rel: f64,
}

/// The cpu device (`spirvkit-jit`), when this binary has it.
#[cfg(feature = "cpu")]
fn cpu_device() -> Result<Box<dyn Device>, String> {
    Ok(Box::new(spirvkit_jit::CpuDevice::new()))
}

#[cfg(not(feature = "cpu"))]
fn cpu_device() -> Result<Box<dyn Device>, String> {
    Err("this spirvkit was built without the cpu device".into())
}

fn vulkan_device() -> Result<Box<dyn Device>, String> {
    let device = spirvkit_vkcompute::VulkanDevice::new().map_err(|e| e.to_string())?;
    Ok(Box::new(device))
}

/// Runs the command. `Err("")`: --diff found differences (its report is printed; exit 1).
pub fn run(command: RunCommand) -> Result<(), String> {
    run_inner(command)
        .map_err(|message| if message.is_empty() { message } else { format!("error: {message}") })
}

fn run_inner(command: RunCommand) -> Result<(), String> {
    if let Some(files) = &command.diff {
        return run_diff(files, command.ty.as_deref(), command.rel, command.shader.is_some());
    }
    if command.ty.is_some() {
        return Err("--type belongs to --diff".into());
    }
    let Some(shader) = &command.shader else {
        return Err("no shader given (spirvkit run SHADER --groups X,Y,Z ...; or --diff A B --type T)".into());
    };
    let Some(groups) = command.groups.clone() else {
        return Err("--groups X,Y,Z is required".into());
    };
    let args = RunArgs {
        entry: command.entry.clone(),
        groups,
        buf: command.buf,
        ubuf: command.ubuf,
        ubo: command.ubo,
        img: command.img,
        sampler: command.sampler,
        push: command.push,
        spec: command.spec,
        dump: command.dump,
        repeat: command.repeat,
        fresh: command.fresh,
        threads: command.threads,
        time_limit: command.time_limit,
    };
    let description = RunDescription::from_args(&args).map_err(|e| e.to_string())?;
    let is_hlsl = shader.extension().is_some_and(|e| e.eq_ignore_ascii_case("hlsl"));
    let words = if is_hlsl {
        let profile = command.profile.as_deref().unwrap_or("cs_6_0");
        hlsl2spirv::compile_file(shader, profile, &description.entry)
            .map_err(|e| format!("{}: {}", shader.display(), e.trim_end()))?
    } else {
        if command.profile.is_some() {
            return Err("-T applies to .hlsl input only".into());
        }
        let bytes = std::fs::read(shader).map_err(|e| format!("{}: {e}", shader.display()))?;
        spirvkit_run::words_from_bytes(&bytes).map_err(|e| format!("{}: {e}", shader.display()))?
    };
    let reflection = spirvkit_run::reflect(&words).map_err(|e| format!("{}: {e}", shader.display()))?;
    let prepared =
        spirvkit_run::prepare(&description, &reflection, Path::new("")).map_err(|e| e.to_string())?;
    let mut device = match command.device.as_str() {
        "vulkan" => vulkan_device()?,
        _ => cpu_device()?,
    };
    let outcome =
        spirvkit_run::execute(device.as_mut(), &description, &words, prepared).map_err(|e| e.to_string())?;
    spirvkit_run::write_dumps(&description, &outcome, Path::new("")).map_err(|e| e.to_string())?;
    print!("{}", spirvkit_run::Report::new(outcome.device, &outcome.timings));
    Ok(())
}

fn run_diff(files: &[PathBuf], ty: Option<&str>, rel: f64, shader_given: bool) -> Result<(), String> {
    if shader_given {
        return Err("--diff compares two dumps: no shader is run with it".into());
    }
    let Some(ty) = ty else { return Err("--diff needs --type T".into()) };
    let ty =
        ElemType::parse(ty).ok_or_else(|| format!("--type {ty}: unknown type ({})", ElemType::names()))?;
    if rel.is_nan() || rel < 0.0 {
        return Err(format!("--rel {rel}: a tolerance is a non-negative number"));
    }
    let [a, b] = files else { return Err("--diff takes two files".into()) };
    let read = |path: &PathBuf| std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()));
    let report = diff(&read(a)?, &read(b)?, ty, Tolerance::Relative(rel));
    println!("{report}");
    if report.matches() {
        Ok(())
    } else {
        Err(String::new())
    }
}
