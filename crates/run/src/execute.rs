//! A run from its description to its report: the arguments checked against what the shader
//! declares ([`prepare`]), the dispatch on a device ([`execute`]), the dumps and the
//! `key=value` report.

use crate::args::{Contents, ImageArg, RunDescription, SamplerArg};
use crate::elem::ElemType;
use crate::image::{ImageDim, ImageShape};
use crate::init::fill;
use crate::reflect::{DescriptorKind, Reflection, SpecType};
use crate::{ArgError, Binding, BufferKind, Device, Dispatch, ReflectError, RunError, SpecValue, Timings};
use std::fmt;
use std::path::{Path, PathBuf};

/// Why `spirvkit run` failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An option's value is malformed.
    #[error(transparent)]
    Argument(#[from] ArgError),
    /// The shader binary could not be read.
    #[error(transparent)]
    Reflect(#[from] ReflectError),
    /// The arguments do not fit the shader, or the device failed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A file could not be read or written.
    #[error("{path}: {reason}")]
    File { path: PathBuf, reason: String },
}

/// The run's inputs, checked against the shader.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// One per buffer argument, in the order given, with its initial contents.
    pub bindings: Vec<Binding>,
    pub push: Vec<u8>,
    pub spec: Vec<SpecValue>,
    /// The entry point's workgroup size with the run's spec constants (when declared).
    pub workgroup_size: Option<[u32; 3]>,
}

fn arguments(message: String) -> Error {
    Error::Run(RunError::Arguments(message))
}

/// Checks `description` against `reflection` and builds the buffers (a relative `file:`
/// INIT is read from `base`). A missing binding, a buffer smaller than its block, a buffer
/// the shader does not declare, a spec constant it lacks or a push-constant block of the
/// wrong size is an error naming the option; a descriptor `spirvkit run` cannot bind
/// (images, samplers) is "not supported yet".
pub fn prepare(
    description: &RunDescription,
    reflection: &Reflection,
    base: &Path,
) -> Result<Prepared, Error> {
    let entry = reflection.entry_point(&description.entry).map_err(arguments)?;
    if !entry.is_compute() {
        return Err(arguments(format!(
            "entry point `{}` is not a compute shader (execution model {})",
            entry.name, entry.model
        )));
    }
    let mut bindings = Vec::with_capacity(description.buffers.len());
    for buffer in &description.buffers {
        let Some(declared) = reflection.descriptor(buffer.set, buffer.binding) else {
            let declared: Vec<String> = reflection
                .descriptors
                .iter()
                .map(|d| format!("set {} binding {} ({})", d.set, d.binding, d.kind))
                .collect();
            return Err(arguments(format!(
                "{}: the shader declares nothing at set {} binding {} (it declares: {})",
                buffer.name(),
                buffer.set,
                buffer.binding,
                if declared.is_empty() { "no descriptors".to_string() } else { declared.join(", ") }
            )));
        };
        let expected = match declared.kind {
            DescriptorKind::StorageBuffer => BufferKind::Storage,
            DescriptorKind::UniformBuffer => BufferKind::Uniform,
            other => {
                return Err(arguments(format!(
                    "{}: the shader declares a {other} at set {} binding {}, not a buffer",
                    buffer.name(),
                    buffer.set,
                    buffer.binding
                )))
            }
        };
        if expected != buffer.kind {
            let use_instead = match expected {
                BufferKind::Storage => "--buf",
                BufferKind::Uniform => "--ubuf or --ubo",
                BufferKind::StorageImage(_) | BufferKind::SampledImage(_) => "--img",
                BufferKind::Sampler(_) => "--sampler",
                BufferKind::CombinedImageSampler(..) => "--img and --sampler",
            };
            return Err(arguments(format!(
                "{}: the shader declares a {} at set {} binding {}: give it with {use_instead}",
                buffer.name(),
                declared.kind,
                buffer.set,
                buffer.binding
            )));
        }
        let mut data = match &buffer.contents {
            Contents::Filled { ty, count, init } => fill(*ty, *count, init, base)
                .map_err(|reason| arguments(format!("{}: {reason}", buffer.name())))?,
            Contents::Values(bytes) => bytes.clone(),
        };
        if declared.fixed_size > crate::args::MAX_BUFFER_BYTES {
            return Err(Error::Run(RunError::NotSupported(format!(
                "{}: the shader's {} at set {} binding {} is {} bytes, over the {}-byte limit",
                buffer.name(),
                declared.kind,
                buffer.set,
                buffer.binding,
                declared.fixed_size,
                crate::args::MAX_BUFFER_BYTES
            ))));
        }
        if matches!(buffer.contents, Contents::Values(_)) && (data.len() as u64) < declared.fixed_size {
            // `--ubo` gives the leading values; the rest of the block reads as zero.
            data.resize(declared.fixed_size as usize, 0);
        }
        if (data.len() as u64) < declared.fixed_size || data.is_empty() {
            return Err(arguments(format!(
                "{}: {} bytes, and the shader's {} at set {} binding {} needs at least {} ({})",
                buffer.name(),
                data.len(),
                declared.kind,
                buffer.set,
                buffer.binding,
                declared.fixed_size.max(1),
                declared.describe_size()
            )));
        }
        bindings.push(Binding { set: buffer.set, binding: buffer.binding, kind: buffer.kind, data });
    }
    for image in &description.images {
        bindings.push(prepare_image(image, &description.samplers, reflection, base)?);
    }
    for sampler in &description.samplers {
        let at = (sampler.set, sampler.binding);
        match reflection.descriptor(sampler.set, sampler.binding).map(|d| d.kind) {
            Some(DescriptorKind::Sampler) => bindings.push(Binding {
                set: sampler.set,
                binding: sampler.binding,
                kind: BufferKind::Sampler(sampler.desc),
                data: Vec::new(),
            }),
            // The image at the binding took it.
            Some(DescriptorKind::CombinedImageSampler)
                if bindings.iter().any(|b| (b.set, b.binding) == at) => {}
            Some(DescriptorKind::CombinedImageSampler) => {
                return Err(arguments(format!(
                    "{}: the shader declares a combined image sampler at set {} binding {}: give its image with --img too",
                    sampler.name(),
                    sampler.set,
                    sampler.binding
                )))
            }
            Some(other) => {
                return Err(arguments(format!(
                    "{}: the shader declares a {other} at set {} binding {}, not a sampler",
                    sampler.name(),
                    sampler.set,
                    sampler.binding
                )))
            }
            None => {
                return Err(arguments(format!(
                    "{}: the shader declares nothing at set {} binding {}",
                    sampler.name(),
                    sampler.set,
                    sampler.binding
                )))
            }
        }
    }
    for declared in reflection.descriptors_of(entry) {
        if bindings.iter().any(|b| (b.set, b.binding) == (declared.set, declared.binding)) {
            continue;
        }
        let option = match declared.kind {
            DescriptorKind::StorageBuffer => "--buf",
            DescriptorKind::UniformBuffer => "--ubuf or --ubo",
            DescriptorKind::Sampler => {
                return Err(arguments(format!(
                    "the shader declares a sampler at set {} binding {}: give it with --sampler {}{}:FILTER[:ADDRESS]",
                    declared.set,
                    declared.binding,
                    declared.binding,
                    if declared.set == 0 { String::new() } else { format!(":{}", declared.set) },
                )));
            }
            DescriptorKind::StorageImage
            | DescriptorKind::SampledImage
            | DescriptorKind::StorageTexelBuffer
            | DescriptorKind::UniformTexelBuffer
            | DescriptorKind::CombinedImageSampler => {
                let format = declared.image.and_then(|i| i.format).map_or("FORMAT", |f| f.name());
                return Err(arguments(format!(
                    "the shader declares a {} at set {} binding {}: give it with --img {}{}:{format}:{}",
                    declared.kind,
                    declared.set,
                    declared.binding,
                    declared.binding,
                    if declared.set == 0 { String::new() } else { format!(":{}", declared.set) },
                    if declared.image.and_then(|i| i.dim) == Some(ImageDim::Buffer) { "N" } else { "WxH..." }
                ) + if declared.kind == DescriptorKind::CombinedImageSampler {
                    " and --sampler BINDING[:SET]:FILTER[:ADDRESS]"
                } else {
                    ""
                }));
            }
            other => {
                return Err(Error::Run(RunError::NotSupported(format!(
                    "{}: the shader declares a {other} at set {} binding {}, and `spirvkit run` binds buffers, storage images and sampled images (read without a sampler) only",
                    if matches!(
                        other,
                        DescriptorKind::StorageImage
                            | DescriptorKind::SampledImage
                            | DescriptorKind::CombinedImageSampler
                            | DescriptorKind::UniformTexelBuffer
                            | DescriptorKind::StorageTexelBuffer
                    ) {
                        "images"
                    } else {
                        "descriptors other than buffers"
                    },
                    declared.set,
                    declared.binding
                ))))
            }
        };
        return Err(arguments(format!(
            "the shader declares a {} at set {} binding {} ({}): give it with {option} {}{}:...",
            declared.kind,
            declared.set,
            declared.binding,
            declared.describe_size(),
            declared.binding,
            if declared.set == 0 { String::new() } else { format!(":{}", declared.set) }
        )));
    }
    let push = match (&description.push, reflection.push_constant_size_of(entry)) {
        (None, None) => Vec::new(),
        (Some(_), None) => {
            return Err(arguments(format!("--push: entry point `{}` uses no push constants", entry.name)));
        }
        (None, Some(size)) => {
            return Err(arguments(format!(
                "the shader declares a push-constant block of {size} bytes: give it with --push TYPE=V,..."
            )))
        }
        (Some(bytes), Some(size)) => {
            if (bytes.len() as u64) < size {
                return Err(arguments(format!(
                    "--push: {} bytes, and the shader's push-constant block is {size} bytes",
                    bytes.len()
                )));
            }
            bytes.clone()
        }
    };
    let mut spec = Vec::with_capacity(description.spec.len());
    for given in &description.spec {
        let Some(constant) = reflection.spec_constant(given.id) else {
            let ids: Vec<String> = reflection.spec_constants.iter().map(|s| s.id.to_string()).collect();
            return Err(arguments(format!(
                "--spec {}={}: the shader has no spec constant {} (it has: {})",
                given.id,
                given.value,
                given.id,
                if ids.is_empty() { "none".to_string() } else { ids.join(", ") }
            )));
        };
        let bits = spec_bits(constant.ty, &given.value).map_err(|reason| {
            arguments(format!(
                "--spec {}={}: spec constant {} is {}: {reason}",
                given.id, given.value, given.id, constant.ty
            ))
        })?;
        spec.push(SpecValue { id: given.id, bits });
    }
    for dump in &description.dumps {
        if !bindings.iter().any(|b| (b.set, b.binding) == (dump.set, dump.binding)) {
            return Err(arguments(format!(
                "--dump {}:{}:{}: no buffer is given at set {} binding {}",
                dump.binding,
                dump.set,
                dump.path.display(),
                dump.set,
                dump.binding
            )));
        }
    }
    let workgroup_size = reflection.workgroup_size(entry).map(|dims| {
        dims.map(|d| {
            let given = d.spec_id.and_then(|id| spec.iter().find(|s| s.id == id));
            given.map_or(d.value, |s| s.bits as u32)
        })
    });
    Ok(Prepared { bindings, push, spec, workgroup_size })
}

/// A `--img` checked against the storage image the shader declares there, with its texels.
fn prepare_image(
    image: &ImageArg,
    samplers: &[SamplerArg],
    reflection: &Reflection,
    base: &Path,
) -> Result<Binding, Error> {
    let Some(declared) = reflection.descriptor(image.set, image.binding) else {
        return Err(arguments(format!(
            "{}: the shader declares nothing at set {} binding {}",
            image.name(),
            image.set,
            image.binding
        )));
    };
    let decl = match (declared.kind, declared.image) {
        (
            DescriptorKind::StorageImage
            | DescriptorKind::SampledImage
            | DescriptorKind::StorageTexelBuffer
            | DescriptorKind::UniformTexelBuffer
            | DescriptorKind::CombinedImageSampler,
            Some(decl),
        ) => decl,
        (other, _) => {
            return Err(arguments(format!(
                "{}: the shader declares a {other} at set {} binding {}, not an image or texel buffer",
                image.name(),
                image.set,
                image.binding
            )))
        }
    };
    let Some(dim) = decl.dim else {
        return Err(Error::Run(RunError::NotSupported(format!(
            "images: {}: the shader's image at set {} binding {} is not 1D, 2D, 3D, a 1D/2D array or a texel buffer",
            image.name(),
            image.set,
            image.binding
        ))));
    };
    match decl.format {
        Some(format) if format != image.format => {
            return Err(arguments(format!(
                "{}: the shader declares a {format} image at set {} binding {}",
                image.name(),
                image.set,
                image.binding
            )))
        }
        None if decl.format_code != 0 => {
            return Err(Error::Run(RunError::NotSupported(format!(
                "images: {}: image format {} of the storage image at set {} binding {}",
                image.name(),
                decl.format_code,
                image.set,
                image.binding
            ))))
        }
        _ => {}
    }
    if image.extent.len() > dim.extent_dims() {
        return Err(arguments(format!(
            "{}: the shader's image at set {} binding {} is {dim}: give {} size(s)",
            image.name(),
            image.set,
            image.binding,
            dim.extent_dims()
        )));
    }
    if dim != ImageDim::Buffer && image.extent.iter().any(|&e| e > crate::args::MAX_IMAGE_DIMENSION) {
        return Err(arguments(format!(
            "{}: the shader's image at set {} binding {} is {dim}: each size from 1 to {}",
            image.name(),
            image.set,
            image.binding,
            crate::args::MAX_IMAGE_DIMENSION
        )));
    }
    let mut extent = [1u32; 3];
    extent[..image.extent.len()].copy_from_slice(&image.extent);
    let shape = ImageShape { format: image.format, dim, extent, levels: image.levels };
    if shape.levels > 1
        && !matches!(declared.kind, DescriptorKind::SampledImage | DescriptorKind::CombinedImageSampler)
    {
        return Err(Error::Run(RunError::NotSupported(format!(
            "images: {}: mip levels on a {} (sampled images may have them)",
            image.name(),
            declared.kind
        ))));
    }
    if shape.levels > shape.max_levels() {
        return Err(arguments(format!(
            "{}: a {} image has at most {} levels",
            image.name(),
            shape.extent[..dim.extent_dims()].iter().map(u32::to_string).collect::<Vec<_>>().join("x"),
            shape.max_levels()
        )));
    }
    let components = shape.texels() as usize * image.format.components() as usize;
    let data = fill(image.format.component_type(), components, &image.init, base)
        .map_err(|reason| arguments(format!("{}: {reason}", image.name())))?;
    if declared.kind == DescriptorKind::CombinedImageSampler {
        let Some(sampler) = samplers.iter().find(|s| (s.set, s.binding) == (image.set, image.binding)) else {
            return Err(arguments(format!(
                "{}: the shader declares a combined image sampler at set {} binding {}: give its sampler with --sampler {}{}:FILTER[:ADDRESS]",
                image.name(),
                image.set,
                image.binding,
                image.binding,
                if image.set == 0 { String::new() } else { format!(":{}", image.set) }
            )));
        };
        return Ok(Binding {
            set: image.set,
            binding: image.binding,
            kind: BufferKind::CombinedImageSampler(shape, sampler.desc),
            data,
        });
    }
    let kind = if matches!(declared.kind, DescriptorKind::SampledImage | DescriptorKind::UniformTexelBuffer) {
        BufferKind::SampledImage(shape)
    } else {
        BufferKind::StorageImage(shape)
    };
    Ok(Binding { set: image.set, binding: image.binding, kind, data })
}

/// A spec constant's value text as bits of its type.
fn spec_bits(ty: SpecType, text: &str) -> Result<u64, String> {
    let elem = match ty {
        SpecType::Bool => {
            return match text {
                "true" | "1" => Ok(1),
                "false" | "0" => Ok(0),
                _ => Err("expected true, false, 1 or 0".into()),
            }
        }
        SpecType::Int { width: 8, signed } => {
            if signed {
                ElemType::I8
            } else {
                ElemType::U8
            }
        }
        SpecType::Int { width: 16, signed } => {
            if signed {
                ElemType::I16
            } else {
                ElemType::U16
            }
        }
        SpecType::Int { width: 32, signed } => {
            if signed {
                ElemType::I32
            } else {
                ElemType::U32
            }
        }
        SpecType::Int { width: 64, signed } => {
            if signed {
                ElemType::I64
            } else {
                ElemType::U64
            }
        }
        SpecType::Float { width: 16 } => ElemType::F16,
        SpecType::Float { width: 32 } => ElemType::F32,
        SpecType::Float { width: 64 } => ElemType::F64,
        other => return Err(format!("not supported yet: spec constants of type {other}")),
    };
    elem.parse_value(text)
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub device: &'static str,
    pub timings: Timings,
    /// The buffers after the last dispatch.
    pub bindings: Vec<Binding>,
}

/// Runs the prepared dispatch on `device`; with `--fresh` the buffers are refilled from
/// their initial contents before every dispatch after the first (untimed).
pub fn execute(
    device: &mut dyn Device,
    description: &RunDescription,
    spirv: &[u32],
    prepared: Prepared,
) -> Result<Outcome, Error> {
    let dispatch = Dispatch {
        spirv,
        entry: &description.entry,
        groups: description.groups,
        spec: &prepared.spec,
        push: &prepared.push,
        threads: description.threads,
        time_limit: description.time_limit,
        repeat: description.repeat,
    };
    let mut bindings = prepared.bindings;
    let initial: Vec<Vec<u8>> =
        if description.fresh { bindings.iter().map(|b| b.data.clone()).collect() } else { Vec::new() };
    let mut refill = |bindings: &mut [Binding]| {
        for (binding, data) in bindings.iter_mut().zip(&initial) {
            binding.data.clear();
            binding.data.extend_from_slice(data);
        }
    };
    let before_each: Option<crate::Refill<'_>> = if description.fresh { Some(&mut refill) } else { None };
    let timings = device.run(&dispatch, &mut bindings, before_each)?;
    if timings.dispatch_ms.len() != description.repeat as usize {
        return Err(Error::Run(RunError::Device(format!(
            "the {} device timed {} dispatches of {}",
            device.name(),
            timings.dispatch_ms.len(),
            description.repeat
        ))));
    }
    Ok(Outcome { device: device.name(), timings, bindings })
}

/// Writes each `--dump` buffer's bytes (relative paths from `base`).
pub fn write_dumps(description: &RunDescription, outcome: &Outcome, base: &Path) -> Result<(), Error> {
    for dump in &description.dumps {
        let Some(binding) = outcome.bindings.iter().find(|b| (b.set, b.binding) == (dump.set, dump.binding))
        else {
            continue; // `prepare` refused dumps of buffers not given.
        };
        let path = base.join(&dump.path);
        std::fs::write(&path, &binding.data)
            .map_err(|e| Error::File { path: path.clone(), reason: e.to_string() })?;
    }
    Ok(())
}

/// The `key=value` lines `spirvkit run` prints.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub device: &'static str,
    pub compile_ms: f64,
    pub first_ms: f64,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
}

impl Report {
    pub fn new(device: &'static str, timings: &Timings) -> Report {
        let mut sorted = timings.dispatch_ms.clone();
        sorted.sort_by(f64::total_cmp);
        let median = match sorted.len() {
            0 => 0.0,
            n if n % 2 == 1 => sorted[n / 2],
            n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
        };
        Report {
            device,
            compile_ms: timings.compile_ms,
            first_ms: timings.dispatch_ms.first().copied().unwrap_or(0.0),
            median_ms: median,
            min_ms: sorted.first().copied().unwrap_or(0.0),
            max_ms: sorted.last().copied().unwrap_or(0.0),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "device={}", self.device)?;
        writeln!(f, "compile_ms={:.3}", self.compile_ms)?;
        writeln!(f, "first_ms={:.3}", self.first_ms)?;
        writeln!(f, "median_ms={:.3}", self.median_ms)?;
        writeln!(f, "min_ms={:.3}", self.min_ms)?;
        writeln!(f, "max_ms={:.3}", self.max_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::RunArgs;
    use crate::image::ImageFormat;
    use crate::reflect::{reflect, tests::sample};

    fn description(extra: impl FnOnce(&mut RunArgs)) -> RunDescription {
        let mut args = RunArgs {
            groups: "1,1,1".into(),
            buf: vec!["1:f32:4:ramp".into()],
            ubo: vec!["0:u32=4".into()],
            push: Some("f32=1,f32=0,f32=0,f32=0,f32=0,f32=1,f32=0,f32=0".into()),
            ..RunArgs::default()
        };
        extra(&mut args);
        RunDescription::from_args(&args).unwrap()
    }

    /// The sample module without its storage image (which `run` cannot bind).
    fn buffers_only() -> Reflection {
        let mut r = reflect(&sample()).unwrap();
        r.descriptors.retain(|d| d.kind != DescriptorKind::StorageImage);
        r
    }

    fn error(d: &RunDescription, r: &Reflection) -> String {
        prepare(d, r, Path::new(".")).unwrap_err().to_string()
    }

    #[test]
    fn a_run_that_fits_the_shader() {
        let d = description(|a| a.spec = vec!["7=-5".into(), "3=false".into()]);
        let p = prepare(&d, &buffers_only(), Path::new(".")).unwrap();
        assert_eq!(p.bindings.len(), 2);
        assert_eq!(p.bindings[0].data.len(), 16);
        assert_eq!(p.bindings[1].kind, BufferKind::Uniform);
        assert_eq!(p.bindings[1].data.len(), 8, "--ubo padded to the block's 8 bytes");
        assert_eq!(p.push.len(), 32);
        assert_eq!(p.spec, [SpecValue { id: 7, bits: 0xffff_fffb }, SpecValue { id: 3, bits: 0 }]);
        assert_eq!(p.workgroup_size, Some([64, 1, 1]));
    }

    #[test]
    fn arguments_that_do_not_fit_are_named() {
        let r = buffers_only();
        let e = error(&description(|a| a.buf.push("5:u32:4".into())), &r);
        assert!(e.starts_with("--buf 5:u32:4: the shader declares nothing at set 0 binding 5"), "{e}");
        let e = error(&description(|a| a.buf = vec!["1:f32:2".into()]), &r);
        assert!(e.contains("8 bytes") && e.contains("needs at least 16"), "{e}");
        let e = error(&description(|a| a.buf.clear()), &r);
        assert!(e.contains("declares a storage buffer at set 0 binding 1") && e.contains("--buf 1:"), "{e}");
        let e = error(
            &description(|a| {
                a.ubo.clear();
                a.buf = vec!["0:f32:4".into(), "1:f32:4".into()];
            }),
            &r,
        );
        assert!(e.contains("give it with --ubuf or --ubo"), "{e}");
        let e = error(&description(|a| a.push = None), &r);
        assert!(e.contains("push-constant block of 32 bytes"), "{e}");
        let e = error(&description(|a| a.push = Some("f32=1".into())), &r);
        assert!(e.contains("--push: 4 bytes"), "{e}");
        let e = error(&description(|a| a.spec = vec!["9=1".into()]), &r);
        assert!(e.contains("no spec constant 9 (it has: 7, 3)"), "{e}");
        let e = error(&description(|a| a.spec = vec!["7=1.5".into()]), &r);
        assert!(e.contains("spec constant 7 is i32"), "{e}");
        let e = error(&description(|a| a.dump = vec!["4:x.bin".into()]), &r);
        assert!(e.contains("--dump 4:0:x.bin: no buffer"), "{e}");
        let e = error(&description(|a| a.entry = Some("other".into())), &r);
        assert!(e.contains("no entry point `other`"), "{e}");
    }

    #[test]
    fn a_huge_declared_block_is_refused_not_allocated() {
        let mut r = buffers_only();
        r.descriptors[0].fixed_size = u64::MAX;
        let e = error(&description(|_| {}), &r);
        assert!(e.contains("over the 4294967296-byte limit"), "{e}");
    }

    #[test]
    fn storage_images_are_given_with_img_and_checked_against_the_shader() {
        let r = reflect(&sample()).unwrap();
        let image = r.descriptors.iter().find(|d| d.kind == DescriptorKind::StorageImage).unwrap().clone();
        assert_eq!(image.image.and_then(|i| i.format), Some(ImageFormat::Rgba32f));
        assert_eq!(image.image.and_then(|i| i.dim), Some(ImageDim::D2));
        let e = error(&description(|_| {}), &r);
        assert!(e.contains("give it with --img"), "{e}");
        let given = |text: String| description(move |a| a.img = vec![text]);
        let (b, s) = (image.binding, image.set);
        let p = prepare(&given(format!("{b}:{s}:rgba32f:4x2:ramp")), &r, Path::new(".")).unwrap();
        let bound = p.bindings.iter().find(|x| (x.set, x.binding) == (s, b)).unwrap();
        let shape = ImageShape::new(ImageFormat::Rgba32f, ImageDim::D2, [4, 2, 1]);
        assert_eq!(bound.kind, BufferKind::StorageImage(shape));
        assert_eq!(bound.data.len(), 4 * 2 * 16);
        assert_eq!(&bound.data[4..8], &1f32.to_le_bytes(), "ramp over the components");
        let e = error(&given(format!("{b}:{s}:rgba8:4x2")), &r);
        assert!(e.contains("declares a Rgba32f image"), "{e}");
        let e = error(&given(format!("{b}:{s}:rgba32f:4x2x2")), &r);
        assert!(e.contains("is 2D: give 2 size(s)"), "{e}");
        let e = error(&description(|a| a.img = vec!["9:rgba32f:4x4".into()]), &r);
        assert!(e.contains("declares nothing at set 0 binding 9"), "{e}");
    }

    /// A device that adds one to every u32 of every storage buffer per dispatch.
    struct Increment;

    impl Device for Increment {
        fn name(&self) -> &'static str {
            "test"
        }
        fn run(
            &mut self,
            dispatch: &Dispatch<'_>,
            bindings: &mut [Binding],
            mut before_each: Option<crate::Refill<'_>>,
        ) -> Result<Timings, RunError> {
            let mut timings = Timings { compile_ms: 1.0, dispatch_ms: Vec::new() };
            for i in 0..dispatch.repeat {
                if i > 0 {
                    if let Some(refill) = before_each.as_mut() {
                        refill(bindings);
                    }
                }
                for b in bindings.iter_mut().filter(|b| b.kind == BufferKind::Storage) {
                    for word in b.data.chunks_exact_mut(4) {
                        let v = u32::from_le_bytes(word.try_into().unwrap()) + 1;
                        word.copy_from_slice(&v.to_le_bytes());
                    }
                }
                timings.dispatch_ms.push(f64::from(i + 1));
            }
            Ok(timings)
        }
    }

    #[test]
    fn repeats_continue_from_the_last_dispatch_unless_fresh() {
        let r = buffers_only();
        for (fresh, expected) in [(false, 3u32), (true, 1)] {
            let d = description(|a| {
                a.buf = vec!["1:u32:4:const:0".into()];
                a.repeat = Some("3".into());
                a.fresh = fresh;
            });
            let p = prepare(&d, &r, Path::new(".")).unwrap();
            let outcome = execute(&mut Increment, &d, &[], p).unwrap();
            assert_eq!(&outcome.bindings[0].data[..4], &expected.to_le_bytes(), "fresh: {fresh}");
            let report = Report::new(outcome.device, &outcome.timings).to_string();
            assert_eq!(
                report,
                "device=test\ncompile_ms=1.000\nfirst_ms=1.000\nmedian_ms=2.000\nmin_ms=1.000\nmax_ms=3.000\n"
            );
        }
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        let t = Timings { compile_ms: 0.0, dispatch_ms: vec![4.0, 1.0, 3.0, 2.0] };
        let r = Report::new("x", &t);
        assert_eq!((r.first_ms, r.median_ms, r.min_ms, r.max_ms), (4.0, 2.5, 1.0, 4.0));
    }
}
