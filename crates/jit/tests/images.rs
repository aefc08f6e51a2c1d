//! Images on the CPU device against lavapipe (the same dispatch on `VulkanDevice`, skipped
//! with a message when there is no Vulkan driver) and against known answers: texel
//! buffers (`samplerBuffer`/`imageBuffer`, HLSL `Buffer`/`RWBuffer`), sampled images read
//! without a sampler (`texelFetch`, with levels), and samplers.

mod common;

use common::{dispatch, f32s, read_f32s, read_u32s, u32s};

use spirvkit_jit::CpuDevice;
use spirvkit_run::{
    AddressMode, Binding, BufferKind, Device, Filter, ImageDim, ImageFormat, ImageShape, SamplerDesc,
};
use spirvkit_vkcompute::{lavapipe_icd_path, Context, DevicePreference, VulkanDevice};

/// Vulkan on lavapipe alone, or None (with a message).
fn lavapipe() -> Option<VulkanDevice> {
    if let Some(icd) = lavapipe_icd_path() {
        if std::env::var_os("VK_DRIVER_FILES").is_none() && std::env::var_os("VK_ICD_FILENAMES").is_none() {
            std::env::set_var("VK_DRIVER_FILES", &icd);
            std::env::set_var("VK_ICD_FILENAMES", &icd);
        }
    }
    match Context::new(DevicePreference::Cpu) {
        Ok(context) => Some(VulkanDevice::with_context(context)),
        Err(e) => {
            eprintln!("skipping the lavapipe comparison: {e}");
            None
        }
    }
}

/// Runs `bindings` on the CPU, then (when there is a driver) the same inputs on lavapipe,
/// and returns the CPU's results and lavapipe's.
fn run_both(words: &[u32], groups: [u32; 3], bindings: &[Binding]) -> (Vec<Binding>, Option<Vec<Binding>>) {
    let mut cpu = bindings.to_vec();
    CpuDevice::new().run(&dispatch(words, groups), &mut cpu, None).expect("runs on the cpu");
    let vulkan = lavapipe().map(|mut device| {
        let mut vk = bindings.to_vec();
        device.run(&dispatch(words, groups), &mut vk, None).expect("runs on lavapipe");
        vk
    });
    (cpu, vulkan)
}

fn image(binding: u32, kind: fn(ImageShape) -> BufferKind, shape: ImageShape, data: Vec<u8>) -> Binding {
    assert_eq!(data.len() as u64, shape.byte_size(), "test data of binding {binding}");
    Binding { set: 0, binding, kind: kind(shape), data }
}

fn shape(format: ImageFormat, dim: ImageDim, extent: [u32; 3]) -> ImageShape {
    ImageShape::new(format, dim, extent)
}

/// CPU and lavapipe left the same bytes in every binding.
fn assert_same(cpu: &[Binding], vulkan: &Option<Vec<Binding>>) {
    let Some(vulkan) = vulkan else { return };
    for (c, v) in cpu.iter().zip(vulkan) {
        assert_eq!(c.data, v.data, "binding {} differs between the cpu and lavapipe", c.binding);
    }
}

#[test]
fn texel_buffers_read_write_and_query_as_on_lavapipe() {
    let source = r#"#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) uniform samplerBuffer src;
layout(set = 0, binding = 1, r32f) uniform imageBuffer dst;
layout(set = 0, binding = 2, r32ui) uniform uimageBuffer counts;
layout(set = 0, binding = 3) uniform isamplerBuffer pairs;
layout(set = 0, binding = 4, rgba8) uniform readonly imageBuffer bytes;
void main() {
  int i = int(gl_GlobalInvocationID.x);
  vec4 v = texelFetch(src, i);
  ivec4 p = texelFetch(pairs, i);
  vec4 b = imageLoad(bytes, i);
  imageStore(dst, i, vec4(v.x + 2.0 * v.y + 3.0 * v.z + 4.0 * v.w + float(p.x - p.y) + b.x + b.w));
  uint n = uint(imageSize(dst)) + uint(textureSize(src)) * 1000u;
  imageStore(counts, i, uvec4(imageLoad(counts, i).x * 3u + n));
  // Out of range: reads give zero, writes are dropped (robust access).
  imageStore(dst, i + 1000, vec4(5.0));
  imageStore(counts, 100 + i, uvec4(texelFetch(src, -1 - i).x == 0.0 ? 7u : 9u));
}
"#;
    let Some(words) = common::glsl_words("images", "texel_buffers", source) else { return };
    let n = 24u32;
    let src: Vec<f32> = (0..n * 4).map(|i| i as f32 * 0.25 - 3.0).collect();
    let pairs: Vec<u32> = (0..n * 2).map(|i| (i * 7) ^ 5).collect();
    let bytes: Vec<u8> = (0..n * 4).map(|i| (i * 37 % 256) as u8).collect();
    let counts: Vec<u32> = (0..n + 8).map(|i| i * 11).collect();
    let buffer = |format, count: u32| shape(format, ImageDim::Buffer, [count, 1, 1]);
    let bindings = vec![
        image(0, BufferKind::SampledImage, buffer(ImageFormat::Rgba32f, n), f32s(src.clone())),
        image(1, BufferKind::StorageImage, buffer(ImageFormat::R32f, n), vec![0; n as usize * 4]),
        image(2, BufferKind::StorageImage, buffer(ImageFormat::R32ui, n + 8), u32s(counts.clone())),
        image(3, BufferKind::SampledImage, buffer(ImageFormat::Rg32i, n), u32s(pairs.clone())),
        image(4, BufferKind::StorageImage, buffer(ImageFormat::Rgba8, n), bytes.clone()),
    ];
    let (cpu, vulkan) = run_both(&words, [n / 8, 1, 1], &bindings);
    let dst = read_f32s(&cpu[1].data);
    for i in 0..n as usize {
        let v = &src[i * 4..i * 4 + 4];
        let p = pairs[i * 2] as i32 - pairs[i * 2 + 1] as i32;
        let unorm = |c: u8| c as f32 * (1.0 / 255.0);
        let want = v[0]
            + 2.0 * v[1]
            + 3.0 * v[2]
            + 4.0 * v[3]
            + p as f32
            + unorm(bytes[i * 4])
            + unorm(bytes[i * 4 + 3]);
        assert!((dst[i] - want).abs() <= want.abs() * 1e-6, "dst[{i}] = {}, want {want}", dst[i]);
    }
    let got = read_u32s(&cpu[2].data);
    for i in 0..n as usize {
        assert_eq!(got[i], counts[i] * 3 + n + n * 1000, "counts[{i}]");
    }
    assert_eq!(&got[n as usize..], &counts[n as usize..], "writes past the end are dropped");
    assert_same(&cpu, &vulkan);
}

/// `texelFetch` of sampled images without a sampler at every level of 1D, 2D, 3D and
/// array images, with `textureSize` per level and `textureQueryLevels`.
#[test]
fn sampled_images_fetch_every_level_as_on_lavapipe() {
    let source = r#"#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform texture2D t2;
layout(set = 0, binding = 1) uniform utexture1D t1;
layout(set = 0, binding = 2) uniform texture3D t3;
layout(set = 0, binding = 3) uniform itexture2DArray ta;
layout(set = 0, binding = 4, r32f) uniform writeonly image2D out2;
layout(set = 0, binding = 5) buffer Out { uint v[]; } o;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  int i = p.y * 8 + p.x;
  // Every level of t2 (level 3 is 1x1; level 4 does not exist: zero).
  float sum = 0.0;
  for (int l = 0; l < 5; l++) sum += texelFetch(t2, p >> l, l).x * float(1 << (4 * l));
  imageStore(out2, p, vec4(sum));
  o.v[i * 4 + 0] = texelFetch(t1, p.x, p.y % 3).x;
  o.v[i * 4 + 1] = uint(texelFetch(t3, ivec3(p.x, p.y, p.x ^ p.y) >> 1, 1).w * 255.0);
  o.v[i * 4 + 2] = uint(texelFetch(ta, ivec3(p >> 1, p.x & 1), 1).y + 1000);
  // Coordinates past the level's extent read zero.
  o.v[i * 4 + 3] = uint(texelFetch(t2, p + ivec2(8, 0), 0).x * 16.0) + 7u;
  if (i == 0) {
    o.v[256] = uint(textureQueryLevels(t2));
    o.v[257] = uint(textureSize(t2, 2).x * 100 + textureSize(t2, 2).y);
    o.v[258] = uint(textureSize(t3, 1).x * 10000 + textureSize(t3, 1).y * 100 + textureSize(t3, 1).z);
    o.v[259] = uint(textureSize(ta, 2).x * 10000 + textureSize(ta, 2).y * 100 + textureSize(ta, 2).z);
    o.v[260] = uint(textureQueryLevels(t1) * 10 + textureQueryLevels(ta));
  }
}
"#;
    let Some(words) = common::glsl_words("images", "sampled_levels", source) else { return };
    let with_levels = |shape: ImageShape, levels| ImageShape { levels, ..shape };
    let t2 = with_levels(shape(ImageFormat::R32f, ImageDim::D2, [8, 8, 1]), 4);
    let t1 = with_levels(shape(ImageFormat::R32ui, ImageDim::D1, [8, 1, 1]), 3);
    let t3 = with_levels(shape(ImageFormat::Rgba8, ImageDim::D3, [8, 8, 8]), 2);
    let ta = with_levels(shape(ImageFormat::Rg16i, ImageDim::D2Array, [8, 8, 2]), 3);
    // Each texel tells its level and place.
    let t2_data: Vec<f32> = (0..t2.texels()).map(|i| (i % 16) as f32 / 16.0 + (i / 64) as f32).collect();
    let t1_data: Vec<u32> = (0..t1.texels() as u32).map(|i| i * 3 + 1).collect();
    let t3_data: Vec<u8> = (0..t3.byte_size()).map(|i| (i * 7 % 251) as u8).collect();
    let ta_data: Vec<u8> = (0..ta.byte_size()).map(|i| (i * 13 % 256) as u8).collect();
    let bindings = vec![
        image(0, BufferKind::SampledImage, t2, f32s(t2_data.clone())),
        image(1, BufferKind::SampledImage, t1, u32s(t1_data.clone())),
        image(2, BufferKind::SampledImage, t3, t3_data),
        image(3, BufferKind::SampledImage, ta, ta_data),
        image(4, BufferKind::StorageImage, shape(ImageFormat::R32f, ImageDim::D2, [8, 8, 1]), vec![0; 256]),
        Binding { set: 0, binding: 5, kind: BufferKind::Storage, data: vec![0; 261 * 4] },
    ];
    let (cpu, vulkan) = run_both(&words, [2, 2, 1], &bindings);
    let o = read_u32s(&cpu[5].data);
    assert_eq!(&o[256..], &[4, 2 * 100 + 2, 4 * 10000 + 4 * 100 + 4, 2 * 10000 + 2 * 100 + 2, 3 * 10 + 3]);
    // t1: level l of an 8-wide 1D image starts at texel 0, 8, 12.
    for i in 0..64usize {
        let (x, y) = (i % 8, i / 8);
        let level = y % 3;
        let start = [0, 8, 12][level];
        let want = if x < (8 >> level) { t1_data[start + x] } else { 0 };
        assert_eq!(o[i * 4], want, "t1 at x {x} level {level}");
        assert_eq!(o[i * 4 + 3], 7, "out of range at {i}");
    }
    let sums = read_f32s(&cpu[4].data);
    let level_start = [0usize, 64, 80, 84];
    for (i, &sum) in sums.iter().enumerate() {
        let (x, y) = (i % 8, i / 8);
        let mut want = 0.0f32;
        for l in 0..4 {
            let w = 8 >> l;
            want += t2_data[level_start[l] + (y >> l) * w + (x >> l)] * (1 << (4 * l)) as f32;
        }
        assert_eq!(sum, want, "t2 sum at {x},{y}");
    }
    assert_same(&cpu, &vulkan);
}

/// The largest absolute difference between two f32 arrays.
fn max_difference(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// `textureLod` through a separate sampler (`sampler2D(t, s)`: OpSampledImage, as HLSL's
/// `Texture2D.SampleLevel(SamplerState, ...)`) and through a combined `sampler2D`, at
/// points inside and outside [0, 1] and two levels, for every filter and address mode.
#[test]
fn sampling_with_every_filter_and_address_mode_matches_lavapipe() {
    let source = r#"#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform texture2D tex;
layout(set = 0, binding = 1) uniform sampler samp;
layout(set = 0, binding = 2) uniform sampler2D combined;
layout(set = 0, binding = 3) buffer Out { vec4 v[]; } o;
void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  // From -0.75 to 1.8: left of, inside and right of the image, off the texel centres.
  vec2 uv = vec2(p) * 0.17 - 0.75 + vec2(0.013, 0.029);
  uint i = (p.y * 16u + p.x) * 3u;
  o.v[i] = textureLod(sampler2D(tex, samp), uv, 0.0);
  o.v[i + 1u] = textureLod(sampler2D(tex, samp), uv.yx, 1.2);
  o.v[i + 2u] = textureLod(combined, uv, 0.3);
}
"#;
    let Some(words) = common::glsl_words("images", "sampling", source) else { return };
    let tex = ImageShape { levels: 2, ..shape(ImageFormat::R32f, ImageDim::D2, [8, 4, 1]) };
    let tex_data: Vec<f32> = (0..tex.texels()).map(|i| ((i * 37) % 101) as f32 / 7.0).collect();
    let rgba = shape(ImageFormat::Rgba8, ImageDim::D2, [5, 3, 1]);
    let rgba_data: Vec<u8> = (0..rgba.byte_size()).map(|i| (i * 53 % 256) as u8).collect();
    let mut worst = [0.0f32; 2];
    for filter in [Filter::Nearest, Filter::Linear] {
        for address in [
            AddressMode::Repeat,
            AddressMode::MirroredRepeat,
            AddressMode::ClampToEdge,
            AddressMode::ClampToBorder,
        ] {
            let desc = SamplerDesc { filter, address };
            let bindings = vec![
                image(0, BufferKind::SampledImage, tex, f32s(tex_data.clone())),
                Binding { set: 0, binding: 1, kind: BufferKind::Sampler(desc), data: Vec::new() },
                Binding {
                    set: 0,
                    binding: 2,
                    kind: BufferKind::CombinedImageSampler(rgba, desc),
                    data: rgba_data.clone(),
                },
                Binding { set: 0, binding: 3, kind: BufferKind::Storage, data: vec![0; 16 * 16 * 3 * 16] },
            ];
            let (cpu, vulkan) = run_both(&words, [2, 2, 1], &bindings);
            let got = read_f32s(&cpu[3].data);
            // Known answers for nearest filtering with clamp to edge, level 0.
            if desc == (SamplerDesc { filter: Filter::Nearest, address: AddressMode::ClampToEdge }) {
                for (k, texel) in got.chunks_exact(12).enumerate() {
                    let (x, y) = (k % 16, k / 16);
                    let u = x as f32 * 0.17 - 0.75 + 0.013;
                    let v = y as f32 * 0.17 - 0.75 + 0.029;
                    let tx = ((u * 8.0).floor() as i32).clamp(0, 7) as usize;
                    let ty = ((v * 4.0).floor() as i32).clamp(0, 3) as usize;
                    assert_eq!(texel[0], tex_data[ty * 8 + tx], "nearest at {x},{y}");
                    assert_eq!(&texel[1..4], &[0.0, 0.0, 1.0], "missing components at {x},{y}");
                }
            }
            let Some(vulkan) = vulkan else { continue };
            let want = read_f32s(&vulkan[3].data);
            let (lods, combined): (Vec<usize>, Vec<usize>) = (0..got.len()).partition(|i| (i / 4) % 3 != 2);
            let pick = |v: &[f32], at: &[usize]| at.iter().map(|&i| v[i]).collect::<Vec<f32>>();
            let float_difference = max_difference(&pick(&got, &lods), &pick(&want, &lods));
            let unorm_difference = max_difference(&pick(&got, &combined), &pick(&want, &combined));
            eprintln!("{desc}: R32f differs by {float_difference}, Rgba8 by {unorm_difference}");
            if filter == Filter::Nearest {
                assert_eq!(got, want, "{desc}: nearest filtering differs from lavapipe's");
            }
            worst = [worst[0].max(float_difference), worst[1].max(unorm_difference)];
        }
    }
    // Nearest filtering is exact; linear may differ from lavapipe's in the last bits
    // (the order of the weighted sum; values here are below 15) and, for 8-bit formats,
    // by lavapipe's 8-bit weights (subTexelPrecisionBits 8): 2/255 at most.
    assert!(worst[0] <= 1e-4, "R32f samples differ from lavapipe's by {}", worst[0]);
    assert!(worst[1] <= 2.0 / 255.0, "Rgba8 samples differ from lavapipe's by {}", worst[1]);
}
