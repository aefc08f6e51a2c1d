//! Images on the CPU device against lavapipe (the same dispatch on `VulkanDevice`, skipped
//! with a message when there is no Vulkan driver) and against known answers: texel
//! buffers (`samplerBuffer`/`imageBuffer`, HLSL `Buffer`/`RWBuffer`), sampled images read
//! without a sampler (`texelFetch`, with levels), and samplers.

mod common;

use spirvkit_jit::CpuDevice;
use spirvkit_run::{Binding, BufferKind, Device, Dispatch, ImageDim, ImageFormat, ImageShape};
use spirvkit_vkcompute::{lavapipe_icd_path, Context, DevicePreference, VulkanDevice};

fn dispatch(words: &[u32], groups: [u32; 3]) -> Dispatch<'_> {
    Dispatch {
        spirv: words,
        entry: "main",
        groups,
        spec: &[],
        push: &[],
        threads: Some(2),
        time_limit: None,
        repeat: 1,
    }
}

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
    ImageShape { format, dim, extent }
}

fn f32s(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn u32s(values: impl IntoIterator<Item = u32>) -> Vec<u8> {
    values.into_iter().flat_map(u32::to_le_bytes).collect()
}

fn read_f32s(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn read_u32s(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
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
