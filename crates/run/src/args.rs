//! `spirvkit run`'s options as text (what the command line gave) and their parsed form,
//! [`RunDescription`]. Parsing checks each option on its own; [`crate::prepare`] then checks
//! them against what the shader declares.

use crate::elem::ElemType;
use crate::image::ImageFormat;
use crate::init::Init;
use crate::BufferKind;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// The largest buffer `--buf`/`--ubuf` may ask for (4 GiB; Vulkan drivers allow less).
pub const MAX_BUFFER_BYTES: u64 = 1 << 32;

/// A bad option value: which option, the value given, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{option} {value}: {reason}")]
pub struct ArgError {
    pub option: &'static str,
    pub value: String,
    pub reason: String,
}

/// The run's options as the command line gave them (each repeated option in order).
#[derive(Clone, Debug, Default)]
pub struct RunArgs {
    pub entry: Option<String>,
    pub groups: String,
    pub buf: Vec<String>,
    pub ubuf: Vec<String>,
    pub ubo: Vec<String>,
    /// `--img BINDING[:SET]:FORMAT:WxH[xD][:INIT]`.
    pub img: Vec<String>,
    /// `--sampler BINDING[:SET]:FILTER[:ADDRESS]`.
    pub sampler: Vec<String>,
    pub push: Option<String>,
    pub spec: Vec<String>,
    pub dump: Vec<String>,
    pub repeat: Option<String>,
    pub fresh: bool,
    pub threads: Option<String>,
    pub time_limit: Option<String>,
}

/// What a buffer holds before the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contents {
    /// `--buf`/`--ubuf`: COUNT elements of a type, filled by INIT.
    Filled { ty: ElemType, count: usize, init: Init },
    /// `--ubo`: the given values packed as consecutive 4-byte values from offset 0.
    Values(Vec<u8>),
}

/// One buffer of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferArg {
    /// `--buf`, `--ubuf` or `--ubo`, and the value as given, for messages.
    pub option: &'static str,
    pub text: String,
    pub set: u32,
    pub binding: u32,
    pub kind: BufferKind,
    pub contents: Contents,
}

impl BufferArg {
    /// `--buf 1:f32:1024`, as the user wrote it.
    pub fn name(&self) -> String {
        format!("{} {}", self.option, self.text)
    }
}

/// `--img BINDING[:SET]:FORMAT:W[xH[xD]][/LEVELS][:INIT]`: a storage or sampled image
/// (a sampled one may have mip levels), or a storage or uniform texel buffer of W
/// elements, whose texels (every level's, level 0 first) INIT fills, component by
/// component, as elements of the format's component type (see
/// [`ImageFormat::component_type`]). Its dimensionality and kind come from the shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageArg {
    pub text: String,
    pub set: u32,
    pub binding: u32,
    pub format: ImageFormat,
    /// The sizes given (1 to 3 of them).
    pub extent: Vec<u32>,
    /// Mip levels (`W[xH[xD]]/LEVELS`; 1 when not given).
    pub levels: u32,
    pub init: Init,
}

impl ImageArg {
    pub fn name(&self) -> String {
        format!("--img {}", self.text)
    }
}

/// `--sampler BINDING[:SET]:FILTER[:ADDRESS]`: a sampler (or, with an `--img` at the
/// same binding, the sampler of a combined image sampler).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SamplerArg {
    pub text: String,
    pub set: u32,
    pub binding: u32,
    pub desc: crate::sampler::SamplerDesc,
}

impl SamplerArg {
    pub fn name(&self) -> String {
        format!("--sampler {}", self.text)
    }
}

/// `BINDING[:SET]:FILTER[:ADDRESS]`.
pub fn parse_sampler(text: &str) -> Result<SamplerArg, ArgError> {
    let fail = |reason: String| arg("--sampler", text, reason);
    let (binding, set, rest) = binding_set_rest(text).map_err(fail)?;
    if rest.is_empty() {
        return Err(fail("expected BINDING[:SET]:FILTER[:ADDRESS]".into()));
    }
    let desc = crate::sampler::SamplerDesc::parse(rest).map_err(fail)?;
    Ok(SamplerArg { text: text.to_string(), set, binding, desc })
}

/// `--dump BINDING[:SET]:FILE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpArg {
    pub set: u32,
    pub binding: u32,
    pub path: PathBuf,
}

/// `--spec ID=VALUE`: the value is typed by the shader's constant, once it is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecArg {
    pub id: u32,
    pub value: String,
}

/// A run, parsed.
#[derive(Clone, Debug, PartialEq)]
pub struct RunDescription {
    pub entry: String,
    pub groups: [u32; 3],
    pub buffers: Vec<BufferArg>,
    pub images: Vec<ImageArg>,
    pub samplers: Vec<SamplerArg>,
    /// `--push`: the packed bytes.
    pub push: Option<Vec<u8>>,
    pub spec: Vec<SpecArg>,
    pub dumps: Vec<DumpArg>,
    pub repeat: u32,
    pub fresh: bool,
    pub threads: Option<usize>,
    pub time_limit: Option<Duration>,
}

impl RunDescription {
    /// Parses every option; the first bad one is the error.
    pub fn from_args(args: &RunArgs) -> Result<RunDescription, ArgError> {
        let mut buffers = Vec::new();
        for text in &args.buf {
            buffers.push(parse_buffer("--buf", text, BufferKind::Storage)?);
        }
        for text in &args.ubuf {
            buffers.push(parse_buffer("--ubuf", text, BufferKind::Uniform)?);
        }
        for text in &args.ubo {
            buffers.push(parse_ubo(text)?);
        }
        let images = args.img.iter().map(|t| parse_image(t)).collect::<Result<Vec<_>, _>>()?;
        for (i, image) in images.iter().enumerate() {
            let given_before =
                buffers.iter().find(|o| (o.set, o.binding) == (image.set, image.binding)).map(|o| o.name());
            let given_before = given_before.or_else(|| {
                images[..i]
                    .iter()
                    .find(|o| (o.set, o.binding) == (image.set, image.binding))
                    .map(|o| o.name())
            });
            if let Some(first) = given_before {
                return Err(arg(
                    "--img",
                    &image.text,
                    format!("set {} binding {} is already given by {first}", image.set, image.binding),
                ));
            }
        }
        for (i, b) in buffers.iter().enumerate() {
            if let Some(first) = buffers[..i].iter().find(|o| (o.set, o.binding) == (b.set, b.binding)) {
                return Err(ArgError {
                    option: b.option,
                    value: b.text.clone(),
                    reason: format!(
                        "set {} binding {} is already given by {}",
                        b.set,
                        b.binding,
                        first.name()
                    ),
                });
            }
        }
        let samplers = args.sampler.iter().map(|t| parse_sampler(t)).collect::<Result<Vec<_>, _>>()?;
        for (i, sampler) in samplers.iter().enumerate() {
            let at = (sampler.set, sampler.binding);
            // A sampler may share its binding with an image only (a combined image sampler).
            let first = buffers.iter().find(|o| (o.set, o.binding) == at).map(|o| o.name());
            let first =
                first.or_else(|| samplers[..i].iter().find(|o| (o.set, o.binding) == at).map(|o| o.name()));
            if let Some(first) = first {
                return Err(arg(
                    "--sampler",
                    &sampler.text,
                    format!("set {} binding {} is already given by {first}", sampler.set, sampler.binding),
                ));
            }
        }
        let push = match &args.push {
            Some(text) => Some(pack_values("--push", text, text)?),
            None => None,
        };
        let spec = args.spec.iter().map(|t| parse_spec(t)).collect::<Result<Vec<_>, _>>()?;
        for (i, s) in spec.iter().enumerate() {
            if spec[..i].iter().any(|o| o.id == s.id) {
                return Err(arg("--spec", &args.spec[i], format!("spec constant {} is given twice", s.id)));
            }
        }
        let dumps = args.dump.iter().map(|t| parse_dump(t)).collect::<Result<Vec<_>, _>>()?;
        let repeat = match &args.repeat {
            Some(text) => match text.parse::<u32>() {
                Ok(n) if n >= 1 => n,
                _ => return Err(arg("--repeat", text, "a count of dispatches, at least 1".into())),
            },
            None => 1,
        };
        let threads = match &args.threads {
            Some(text) => match text.parse::<usize>() {
                Ok(n) if (1..=4096).contains(&n) => Some(n),
                _ => return Err(arg("--threads", text, "a number of threads from 1 to 4096".into())),
            },
            None => None,
        };
        let time_limit = match &args.time_limit {
            Some(text) => match text.parse::<f64>() {
                Ok(s) if s > 0.0 && s <= 1e9 => Some(Duration::from_secs_f64(s)),
                _ => return Err(arg("--time-limit", text, "a positive number of seconds".into())),
            },
            None => None,
        };
        Ok(RunDescription {
            entry: args.entry.clone().unwrap_or_else(|| "main".into()),
            groups: parse_groups(&args.groups)?,
            buffers,
            images,
            samplers,
            push,
            spec,
            dumps,
            repeat,
            fresh: args.fresh,
            threads,
            time_limit,
        })
    }
}

fn arg(option: &'static str, value: &str, reason: String) -> ArgError {
    ArgError { option, value: value.to_string(), reason }
}

/// `X,Y,Z` (each at least 1).
pub fn parse_groups(text: &str) -> Result<[u32; 3], ArgError> {
    let fail = || arg("--groups", text, "three workgroup counts X,Y,Z, each at least 1".into());
    let parts: Vec<&str> = text.split(',').collect();
    let [x, y, z] = parts.as_slice() else { return Err(fail()) };
    let mut out = [0u32; 3];
    for (slot, part) in out.iter_mut().zip([x, y, z]) {
        *slot = part.trim().parse().ok().filter(|&n| n >= 1).ok_or_else(fail)?;
    }
    Ok(out)
}

/// A count: a number or a product of numbers (`1024*1024`), at least 1.
pub fn parse_count(text: &str) -> Result<usize, String> {
    let mut product: u64 = 1;
    for factor in text.split('*') {
        let factor: u64 = factor
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a count (a number or a product a*b)"))?;
        product = product.checked_mul(factor).ok_or_else(|| format!("`{text}` overflows"))?;
    }
    if product == 0 {
        return Err("the count must be at least 1".into());
    }
    usize::try_from(product).map_err(|_| format!("`{text}` is too large"))
}

fn parse_u32(text: &str, what: &str) -> Result<u32, String> {
    text.parse().map_err(|_| format!("`{text}` is not a {what} (a non-negative integer)"))
}

/// The `BINDING[:SET]:` prefix every descriptor option starts with, and the text after it.
/// The set is there when the second field is a number (a type, format or filter never is).
fn binding_set_rest(text: &str) -> Result<(u32, u32, &str), String> {
    let fields: Vec<&str> = text.splitn(3, ':').collect();
    let has_set = fields.get(1).is_some_and(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
    let (binding, set, rest) = if has_set {
        (fields[0], fields[1], fields.get(2).copied().unwrap_or(""))
    } else {
        (fields[0], "0", text.split_once(':').map_or("", |(_, rest)| rest))
    };
    Ok((parse_u32(binding, "binding")?, parse_u32(set, "descriptor set")?, rest))
}

/// `BINDING[:SET]:TYPE:COUNT[:INIT]` (INIT defaults to `zero`; `file:PATH` may contain `:`).
pub fn parse_buffer(option: &'static str, text: &str, kind: BufferKind) -> Result<BufferArg, ArgError> {
    let fail = |reason: String| arg(option, text, reason);
    let (binding, set, rest) = binding_set_rest(text).map_err(fail)?;
    let mut rest = rest.splitn(3, ':');
    let (Some(ty), Some(count)) = (rest.next(), rest.next()) else {
        return Err(fail("expected BINDING[:SET]:TYPE:COUNT[:INIT]".into()));
    };
    let ty = ElemType::parse(ty)
        .ok_or_else(|| fail(format!("unknown element type `{ty}` ({})", ElemType::names())))?;
    let count = parse_count(count).map_err(fail)?;
    if (count as u64).saturating_mul(ty.size() as u64) > MAX_BUFFER_BYTES {
        return Err(fail(format!("{count} {ty} elements exceed the {MAX_BUFFER_BYTES}-byte limit")));
    }
    let init = match rest.next() {
        Some(init) => Init::parse(init, ty).map_err(fail)?,
        None => Init::Zero,
    };
    Ok(BufferArg {
        option,
        text: text.to_string(),
        set,
        binding,
        kind,
        contents: Contents::Filled { ty, count, init },
    })
}

/// The largest extent of one image dimension `--img` accepts (Vulkan's required
/// `maxImageDimension3D` is 256; drivers allow more in 2D).
pub const MAX_IMAGE_DIMENSION: u32 = 1 << 16;

/// The most elements a texel buffer (`--img` with one size) may have (Vulkan requires
/// `maxTexelBufferElements` of at least 65536; lavapipe allows 2^27). The device checks
/// its own limit.
pub const MAX_TEXEL_BUFFER_ELEMENTS: u32 = 1 << 27;

/// `BINDING[:SET]:FORMAT:W[xH[xD]][/LEVELS][:INIT]` (INIT defaults to `zero`).
pub fn parse_image(text: &str) -> Result<ImageArg, ArgError> {
    let fail = |reason: String| arg("--img", text, reason);
    let (binding, set, rest) = binding_set_rest(text).map_err(fail)?;
    let mut rest = rest.splitn(3, ':');
    let (Some(format), Some(size)) = (rest.next(), rest.next()) else {
        return Err(fail("expected BINDING[:SET]:FORMAT:W[xH[xD]][:INIT]".into()));
    };
    let format = ImageFormat::parse(format)
        .ok_or_else(|| fail(format!("unknown image format `{format}` ({})", ImageFormat::names())))?;
    // One size may be a texel buffer's element count; an image's sizes are checked
    // against MAX_IMAGE_DIMENSION once the shader says which it is.
    let (size, levels) = match size.split_once('/') {
        Some((size, text)) => {
            let levels =
                text.trim().parse::<u32>().ok().filter(|n| (1..=crate::image::MAX_LEVELS).contains(n));
            let levels = levels.ok_or_else(|| {
                fail(format!(
                    "`{size}/{text}`: LEVELS is a number of mip levels from 1 to {}",
                    crate::image::MAX_LEVELS
                ))
            })?;
            (size, levels)
        }
        None => (size, 1),
    };
    let extent: Vec<u32> = size
        .split('x')
        .map(|e| e.trim().parse::<u32>().ok().filter(|n| (1..=MAX_TEXEL_BUFFER_ELEMENTS).contains(n)))
        .collect::<Option<_>>()
        .filter(|e: &Vec<u32>| (1..=3).contains(&e.len()))
        .filter(|e: &Vec<u32>| e.len() == 1 || e.iter().all(|&n| n <= MAX_IMAGE_DIMENSION))
        .ok_or_else(|| {
            fail(format!(
                "`{size}` is not an extent W[xH[xD]] (each from 1 to {MAX_IMAGE_DIMENSION}; one size, a texel buffer's elements, up to {MAX_TEXEL_BUFFER_ELEMENTS})"
            ))
        })?;
    let bytes = extent.iter().map(|&e| u64::from(e)).product::<u64>() * format.texel_size() as u64;
    if bytes > MAX_BUFFER_BYTES {
        return Err(fail(format!("{bytes} bytes of texels exceed the {MAX_BUFFER_BYTES}-byte limit")));
    }
    let init = match rest.next() {
        Some(init) => Init::parse(init, format.component_type()).map_err(fail)?,
        None => Init::Zero,
    };
    Ok(ImageArg { text: text.to_string(), set, binding, format, extent, levels, init })
}

/// `BINDING[:SET]:TYPE=V,...`: a uniform buffer holding the values.
pub fn parse_ubo(text: &str) -> Result<BufferArg, ArgError> {
    let fail = |reason: String| arg("--ubo", text, reason);
    let (head, values) = match text.split_once(':') {
        Some((binding, rest)) => match rest.split_once(':') {
            Some((set, values)) if !set.contains('=') => (format!("{binding}:{set}"), values),
            _ => (binding.to_string(), rest),
        },
        None => return Err(fail("expected BINDING[:SET]:TYPE=V,...".into())),
    };
    let (binding, set) = match head.split_once(':') {
        Some((binding, set)) => (binding, set),
        None => (head.as_str(), "0"),
    };
    let binding = parse_u32(binding, "binding").map_err(fail)?;
    let set = parse_u32(set, "descriptor set").map_err(fail)?;
    let bytes = pack_values("--ubo", text, values)?;
    Ok(BufferArg {
        option: "--ubo",
        text: text.to_string(),
        set,
        binding,
        kind: BufferKind::Uniform,
        contents: Contents::Values(bytes),
    })
}

/// `TYPE=V,...` packed as consecutive 4-byte values from offset 0 (32-bit types only:
/// a wider or narrower one would make the packing rule ambiguous).
pub fn pack_values(option: &'static str, whole: &str, values: &str) -> Result<Vec<u8>, ArgError> {
    let fail = |reason: String| arg(option, whole, reason);
    let mut bytes = Vec::new();
    for item in values.split(',') {
        let Some((ty, value)) = item.split_once('=') else {
            return Err(fail(format!("`{item}` is not TYPE=VALUE")));
        };
        let ty = ElemType::parse(ty.trim())
            .ok_or_else(|| fail(format!("unknown element type `{ty}` ({})", ElemType::names())))?;
        if ty.size() != 4 {
            return Err(fail(format!("values are packed as 4-byte values: {ty} is not one (u32, i32, f32)")));
        }
        let bits = ty.parse_value(value).map_err(fail)?;
        ty.push(bits, &mut bytes);
    }
    Ok(bytes)
}

/// `ID=VALUE`.
pub fn parse_spec(text: &str) -> Result<SpecArg, ArgError> {
    let fail = |reason: String| arg("--spec", text, reason);
    let (id, value) = text.split_once('=').ok_or_else(|| fail("expected ID=VALUE".into()))?;
    let id = parse_u32(id.trim(), "spec constant id").map_err(fail)?;
    Ok(SpecArg { id, value: value.trim().to_string() })
}

/// `BINDING[:SET]:FILE`.
pub fn parse_dump(text: &str) -> Result<DumpArg, ArgError> {
    let fail = |reason: String| arg("--dump", text, reason);
    let Some((binding, rest)) = text.split_once(':') else {
        return Err(fail("expected BINDING[:SET]:FILE".into()));
    };
    let (set, path) = match rest.split_once(':') {
        Some((set, path)) if !set.is_empty() && set.bytes().all(|b| b.is_ascii_digit()) => (set, path),
        _ => ("0", rest),
    };
    if path.is_empty() {
        return Err(fail("expected BINDING[:SET]:FILE".into()));
    }
    let binding = parse_u32(binding, "binding").map_err(fail)?;
    let set = parse_u32(set, "descriptor set").map_err(fail)?;
    Ok(DumpArg { set, binding, path: PathBuf::from(path) })
}

impl fmt::Display for Contents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Contents::Filled { ty, count, .. } => write!(f, "{count} {ty}"),
            Contents::Values(bytes) => write!(f, "{} bytes of values", bytes.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_with_and_without_set_and_init() {
        let b = parse_buffer("--buf", "1:f32:1024*1024:random:7", BufferKind::Storage).unwrap();
        assert_eq!((b.set, b.binding), (0, 1));
        assert_eq!(b.contents, Contents::Filled { ty: ElemType::F32, count: 1 << 20, init: Init::Random(7) });
        let b = parse_buffer("--buf", "2:3:u32:16", BufferKind::Storage).unwrap();
        assert_eq!((b.set, b.binding), (3, 2));
        assert_eq!(b.contents, Contents::Filled { ty: ElemType::U32, count: 16, init: Init::Zero });
        let b = parse_buffer("--ubuf", "0:i32:4:file:C:/data:x.bin", BufferKind::Uniform).unwrap();
        assert_eq!(
            b.contents,
            Contents::Filled { ty: ElemType::I32, count: 4, init: Init::File("C:/data:x.bin".into()) }
        );
    }

    #[test]
    fn bad_buffers_name_the_option_and_the_problem() {
        let e = parse_buffer("--buf", "1:f33:4", BufferKind::Storage).unwrap_err();
        assert_eq!(e.option, "--buf");
        assert!(e.to_string().starts_with("--buf 1:f33:4: unknown element type `f33`"), "{e}");
        let e = parse_buffer("--buf", "x:f32:4", BufferKind::Storage).unwrap_err();
        assert!(e.reason.contains("binding"), "{e}");
        let e = parse_buffer("--buf", "1:f32", BufferKind::Storage).unwrap_err();
        assert!(e.reason.contains("TYPE:COUNT"), "{e}");
        let e = parse_buffer("--buf", "1:f32:0", BufferKind::Storage).unwrap_err();
        assert!(e.reason.contains("at least 1"), "{e}");
        let e = parse_buffer("--buf", "1:f32:65536*65536", BufferKind::Storage).unwrap_err();
        assert!(e.reason.contains("limit"), "{e}");
        let e = parse_buffer("--buf", "1:f32:99999999999*99999999999", BufferKind::Storage).unwrap_err();
        assert!(e.reason.contains("overflows"), "{e}");
        let e = parse_buffer("--buf", "1:u32:4:const:-1", BufferKind::Storage).unwrap_err();
        assert!(e.reason.contains("out of the range"), "{e}");
    }

    #[test]
    fn ubo_and_push_values_are_packed_as_4_byte_values() {
        let b = parse_ubo("0:u32=1024,f32=2.5").unwrap();
        assert_eq!((b.set, b.binding), (0, 0));
        let mut expected = 1024u32.to_le_bytes().to_vec();
        expected.extend(2.5f32.to_le_bytes());
        assert_eq!(b.contents, Contents::Values(expected));
        let b = parse_ubo("3:1:i32=-1").unwrap();
        assert_eq!((b.set, b.binding), (1, 3));
        assert_eq!(b.contents, Contents::Values(vec![0xff; 4]));
        assert!(parse_ubo("0:f64=1").unwrap_err().reason.contains("4-byte"));
        assert!(parse_ubo("0:u32").unwrap_err().reason.contains("TYPE=VALUE"));
        assert!(parse_ubo("0").is_err());
        assert_eq!(pack_values("--push", "u32=7", "u32=7").unwrap(), 7u32.to_le_bytes());
    }

    #[test]
    fn images_with_and_without_set_and_init() {
        let i = parse_image("1:rgba8:64x32:random:3").unwrap();
        assert_eq!((i.set, i.binding, i.format), (0, 1, ImageFormat::Rgba8));
        assert_eq!(i.extent, vec![64, 32]);
        assert_eq!(i.init, Init::Random(3));
        let i = parse_image("2:1:R32f:8x8x4").unwrap();
        assert_eq!((i.set, i.binding, i.format, i.init.clone()), (1, 2, ImageFormat::R32f, Init::Zero));
        assert_eq!(i.extent, vec![8, 8, 4]);
        assert!(parse_image("1:rgb9:4x4").unwrap_err().reason.contains("unknown image format"));
        assert!(parse_image("1:rgba8:4x0").unwrap_err().reason.contains("extent"));
        assert!(parse_image("1:rgba8:4x4x4x4").unwrap_err().reason.contains("extent"));
        assert!(parse_image("1:rgba8").unwrap_err().reason.contains("FORMAT"));
        assert!(parse_image("1:rgba8:65536x65536").unwrap_err().reason.contains("limit"));
        assert_eq!(parse_image("1:r32f:1048576").unwrap().extent, vec![1 << 20]);
        let i = parse_image("3:rgba8:64x32/7:random:2").unwrap();
        assert_eq!((i.extent.clone(), i.levels, i.init), (vec![64, 32], 7, Init::Random(2)));
        assert_eq!(parse_image("3:rgba8:64x32").unwrap().levels, 1);
        let s = parse_sampler("2:1:linear:repeat").unwrap();
        assert_eq!((s.set, s.binding, s.desc.words()), (1, 2, [1, 0]));
        assert_eq!(parse_sampler("4:nearest").unwrap().desc.words(), [0, 2]);
        assert!(parse_sampler("4").unwrap_err().reason.contains("FILTER"));
        assert!(parse_image("3:rgba8:64x32/0").unwrap_err().reason.contains("LEVELS"));
        assert!(parse_image("3:rgba8:64x32/18").unwrap_err().reason.contains("LEVELS"));
        assert!(parse_image("1:r32f:70000x2").unwrap_err().reason.contains("extent"));
        assert!(parse_image("1:r8:200000000").unwrap_err().reason.contains("extent"));
        let args = RunArgs {
            groups: "1,1,1".into(),
            buf: vec!["1:f32:4".into()],
            img: vec!["1:rgba8:4x4".into()],
            ..RunArgs::default()
        };
        let e = RunDescription::from_args(&args).unwrap_err();
        assert!(e.reason.contains("already given by --buf 1:f32:4"), "{e}");
    }

    #[test]
    fn groups_counts_specs_and_dumps() {
        assert_eq!(parse_groups("4,2,1").unwrap(), [4, 2, 1]);
        assert!(parse_groups("4,2").is_err());
        assert!(parse_groups("4,0,1").is_err());
        assert_eq!(parse_count("1024*1024"), Ok(1 << 20));
        assert_eq!(parse_spec("3=1.5").unwrap(), SpecArg { id: 3, value: "1.5".into() });
        assert!(parse_spec("x=1").is_err());
        assert_eq!(parse_dump("2:out.bin").unwrap(), DumpArg { set: 0, binding: 2, path: "out.bin".into() });
        assert_eq!(
            parse_dump("2:1:out.bin").unwrap(),
            DumpArg { set: 1, binding: 2, path: "out.bin".into() }
        );
        assert_eq!(parse_dump("2:a:b").unwrap(), DumpArg { set: 0, binding: 2, path: "a:b".into() });
        assert!(parse_dump("2").is_err());
        assert!(parse_dump("2:").is_err());
    }

    #[test]
    fn a_description_from_the_command_line() {
        let args = RunArgs {
            groups: "8,1,1".into(),
            buf: vec!["1:f32:256:ramp".into()],
            ubo: vec!["0:u32=256".into()],
            spec: vec!["0=4".into()],
            dump: vec!["1:y.bin".into()],
            repeat: Some("5".into()),
            time_limit: Some("2.5".into()),
            ..RunArgs::default()
        };
        let d = RunDescription::from_args(&args).unwrap();
        assert_eq!(d.entry, "main");
        assert_eq!(d.groups, [8, 1, 1]);
        assert_eq!(d.buffers.len(), 2);
        assert_eq!(d.repeat, 5);
        assert_eq!(d.time_limit, Some(Duration::from_millis(2500)));
        let twice = RunArgs { buf: vec!["1:f32:4".into(), "1:0:u32:4".into()], ..args.clone() };
        let e = RunDescription::from_args(&twice).unwrap_err();
        assert!(e.reason.contains("already given by --buf 1:f32:4"), "{e}");
        let e = RunDescription::from_args(&RunArgs { repeat: Some("0".into()), ..args.clone() }).unwrap_err();
        assert_eq!(e.option, "--repeat");
        let e = RunDescription::from_args(&RunArgs { time_limit: Some("-1".into()), ..args }).unwrap_err();
        assert_eq!(e.option, "--time-limit");
    }
}
