//! The runner's own contract: typed errors for malformed jobs (never a panic or a driver
//! crash, including bindings that do not fit the shader), bindings in any set and order, and
//! only writable bindings read back.

mod common;

use spirvkit_vkcompute::{Binding, Dispatch, Error, Format, Image2d, Resource};
use std::path::Path;
use std::process::Command;

/// A 4-invocation kernel in descriptor set 1 (set 0 stays empty): Out[i] = In[i] * 2 + i,
/// and a storage image whose texels are incremented.
const SHADER: &str = r#"
StructuredBuffer<uint> In : register(t3, space1);
RWStructuredBuffer<uint> Out : register(u0, space1);
[[vk::image_format("r32ui")]] RWTexture2D<uint> Image : register(u5, space1);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Out[id.x] = In[id.x] * 2 + id.x;
    Image[uint2(id.x, 0)] = Image[uint2(id.x, 0)] + 1;
}
"#;

fn words(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The shader compiled by glslang and validated, or None (with a message) when a tool is missing.
fn compiled(name: &str) -> Option<Vec<u8>> {
    let glslang = common::glslang()?;
    let dir = common::scratch(name);
    std::fs::create_dir_all(&dir).ok()?;
    let (source, binary) = (dir.join("shader.hlsl"), dir.join("shader.spv"));
    std::fs::write(&source, SHADER).ok()?;
    let status = Command::new(glslang)
        .args(["-D", "-V", "-S", "comp", "-e", "main", "--target-env", "vulkan1.1"])
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .output()
        .ok()?;
    assert!(status.status.success(), "glslang: {}", String::from_utf8_lossy(&status.stdout));
    spirvkit_vkcompute::suite::validate(&common::spirv_val(), Path::new(&binary)).expect("valid binary");
    let bytes = std::fs::read(&binary).ok();
    let _ = std::fs::remove_dir_all(&dir);
    bytes
}

fn bindings() -> Vec<Binding> {
    vec![
        Binding {
            set: 1,
            binding: 5,
            resource: Resource::StorageImage(Image2d {
                format: Format::R32Uint,
                width: 4,
                height: 1,
                data: words(&[7, 8, 9, 10]),
            }),
        },
        Binding { set: 1, binding: 3, resource: Resource::StorageBuffer(words(&[10, 20, 30, 40])) },
        Binding { set: 1, binding: 0, resource: Resource::StorageBuffer(vec![0; 16]) },
    ]
}

macro_rules! device_or_skip {
    () => {
        match common::context() {
            Ok(context) => context.lock().unwrap_or_else(|e| e.into_inner()),
            Err(reason) => {
                eprintln!("skipping: {reason}");
                return;
            }
        }
    };
}

#[test]
fn runs_a_kernel_in_set_one_and_reads_back_writable_bindings() {
    let context = device_or_skip!();
    let Some(spirv) = compiled("set-one") else {
        eprintln!("skipping: glslangValidator is not installed");
        return;
    };
    let bindings = bindings();
    let outputs = context
        .run(&Dispatch { spirv: &spirv, entry_point: "main", bindings: &bindings, groups: [1, 1, 1] })
        .expect("dispatch");
    assert_eq!(outputs.get(1, 0), Some(words(&[20, 41, 62, 83]).as_slice()));
    assert_eq!(outputs.get(1, 5), Some(words(&[8, 9, 10, 11]).as_slice()));
    // The read-only structured buffer is a storage buffer too, read back unchanged.
    assert_eq!(outputs.get(1, 3), Some(words(&[10, 20, 30, 40]).as_slice()));
    assert_eq!(outputs.get(0, 0), None);
    assert_eq!(outputs.iter().count(), 3);
    // The same context runs again (every object of a run is released).
    let again = context
        .run(&Dispatch { spirv: &spirv, entry_point: "main", bindings: &bindings, groups: [1, 1, 1] })
        .expect("second dispatch");
    assert_eq!(again, outputs);
    // A binding the shader declares but the job lacks, or binds as another type, is refused
    // before the driver sees it.
    let missing = &bindings[1..];
    let error = context
        .run(&Dispatch { spirv: &spirv, entry_point: "main", bindings: missing, groups: [1, 1, 1] })
        .expect_err("missing binding");
    assert!(matches!(error, Error::Binding { set: 1, binding: 5, .. }), "{error}");
    let mut mistyped = bindings.clone();
    mistyped[1].resource = Resource::UniformBuffer(words(&[10, 20, 30, 40]));
    let error = context
        .run(&Dispatch { spirv: &spirv, entry_point: "main", bindings: &mistyped, groups: [1, 1, 1] })
        .expect_err("mistyped binding");
    assert!(error.to_string().contains("StorageBuffer here, and the job binds a UniformBuffer"), "{error}");
}

#[test]
fn malformed_jobs_are_typed_errors() {
    let context = device_or_skip!();
    let bindings = bindings();
    let header = words(&[0x0723_0203, 0x0001_0300, 0, 1, 0]);
    let run = |spirv: &[u8], entry_point: &str, bindings: &[Binding], groups: [u32; 3]| {
        context.run(&Dispatch { spirv, entry_point, bindings, groups }).expect_err("must fail")
    };
    assert!(matches!(run(b"not spir-v", "main", &bindings, [1, 1, 1]), Error::Binary(_)));
    assert!(matches!(run(&words(&[1, 2, 3, 4, 5]), "main", &bindings, [1, 1, 1]), Error::Binary(_)));
    assert!(matches!(run(&header, "ma\0in", &bindings, [1, 1, 1]), Error::EntryPoint(_)));
    assert!(matches!(run(&header, "main", &bindings, [u32::MAX, 1, 1]), Error::Dispatch(_)));

    let mut duplicate = bindings.clone();
    duplicate.push(Binding { set: 1, binding: 3, resource: Resource::UniformBuffer(vec![0; 16]) });
    let error = run(&header, "main", &duplicate, [1, 1, 1]);
    assert!(matches!(error, Error::Binding { set: 1, binding: 3, .. }), "{error}");

    let short_image = vec![Binding {
        set: 0,
        binding: 0,
        resource: Resource::SampledImage(Image2d {
            format: Format::Rgba32Float,
            width: 2,
            height: 2,
            data: vec![0; 16],
        }),
    }];
    let error = run(&header, "main", &short_image, [1, 1, 1]);
    assert!(error.to_string().contains("needs 64 bytes, not 16"), "{error}");

    let empty_buffer = vec![Binding { set: 0, binding: 0, resource: Resource::StorageBuffer(Vec::new()) }];
    assert!(matches!(run(&header, "main", &empty_buffer, [1, 1, 1]), Error::Binding { .. }));

    let ragged_texels = vec![Binding {
        set: 0,
        binding: 0,
        resource: Resource::UniformTexelBuffer { format: Format::Rgba32Float, data: vec![0; 20] },
    }];
    assert!(matches!(run(&header, "main", &ragged_texels, [1, 1, 1]), Error::Binding { .. }));

    let far_set = vec![Binding { set: 4096, binding: 0, resource: Resource::StorageBuffer(vec![0; 4]) }];
    assert!(matches!(run(&header, "main", &far_set, [1, 1, 1]), Error::Binding { set: 4096, .. }));
}

#[test]
fn the_device_is_lavapipe_with_subgroups() {
    let context = device_or_skip!();
    let info = context.info();
    assert!(info.is_cpu, "{info:?}");
    assert!(info.api_version >= (1, 1, 0));
    assert!(info.subgroup.size >= 1 && info.subgroup.in_compute && info.subgroup.basic, "{info:?}");
}
