//! `VulkanDevice`, the `spirvkit run --device vulkan` device: push constants, spec
//! constants, uniform and storage buffers, repeated dispatches with and without refills,
//! and the checks that keep a run that does not fit the shader away from the driver.

use spirvkit_binary::{AsmOptions, TargetEnv};
use spirvkit_run::{Binding, BufferKind, Device, Dispatch, RunError, SpecValue};
use spirvkit_vkcompute::{lavapipe_icd_path, Context, DevicePreference, VulkanDevice};

const SHADER: &str = include_str!("data/scale_add.spvasm");

fn words() -> Vec<u32> {
    let options =
        AsmOptions { target_env: TargetEnv::parse("vulkan1.0").unwrap(), preserve_numeric_ids: false };
    spirvkit_binary::assemble(SHADER, &options).expect("the test shader assembles")
}

/// The device on lavapipe alone, or why there is none.
fn device() -> Result<VulkanDevice, String> {
    if let Some(icd) = lavapipe_icd_path() {
        if std::env::var_os("VK_DRIVER_FILES").is_none() && std::env::var_os("VK_ICD_FILENAMES").is_none() {
            std::env::set_var("VK_DRIVER_FILES", &icd);
            std::env::set_var("VK_ICD_FILENAMES", &icd);
        }
    }
    Context::new(DevicePreference::Cpu).map(VulkanDevice::with_context).map_err(|e| e.to_string())
}

fn u32s(values: impl IntoIterator<Item = u32>) -> Vec<u8> {
    values.into_iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn bindings() -> Vec<Binding> {
    vec![
        Binding { set: 0, binding: 1, kind: BufferKind::Storage, data: u32s(0..8) },
        Binding { set: 0, binding: 0, kind: BufferKind::Uniform, data: u32s([100]) },
    ]
}

fn dispatch<'a>(spirv: &'a [u32], spec: &'a [SpecValue], push: &'a [u8], repeat: u32) -> Dispatch<'a> {
    Dispatch { spirv, entry: "main", groups: [2, 1, 1], spec, push, threads: None, time_limit: None, repeat }
}

#[test]
fn push_spec_and_repeats_with_and_without_refills() {
    let mut device = match device() {
        Ok(device) => device,
        Err(reason) => return eprintln!("skipping: {reason}"),
    };
    let spirv = words();
    let spec = [SpecValue { id: 0, bits: 3 }];
    let push = u32s([10]);
    // Two dispatches, the second from the first's result: 3(3i + 110) + 110.
    let mut b = bindings();
    let timings = device.run(&dispatch(&spirv, &spec, &push, 2), &mut b, None).unwrap();
    assert_eq!(b[0].data, u32s((0..8).map(|i| 9 * i + 440)));
    assert_eq!(b[1].data, u32s([100]), "a uniform buffer is not written");
    assert_eq!(timings.dispatch_ms.len(), 2);
    assert!(timings.compile_ms > 0.0 && timings.dispatch_ms.iter().all(|&ms| ms > 0.0));
    // Refilled before the second: as if once.
    let initial = bindings();
    let mut refill = |bs: &mut [Binding]| bs.clone_from_slice(&initial);
    let mut b = bindings();
    device.run(&dispatch(&spirv, &spec, &push, 3), &mut b, Some(&mut refill)).unwrap();
    assert_eq!(b[0].data, u32s((0..8).map(|i| 3 * i + 110)));
    // The spec constant's default (1) when none is given.
    let mut b = bindings();
    device.run(&dispatch(&spirv, &[], &push, 1), &mut b, None).unwrap();
    assert_eq!(b[0].data, u32s((0..8).map(|i| i + 110)));
}

#[test]
fn runs_that_do_not_fit_the_shader_never_reach_the_driver() {
    let mut device = match device() {
        Ok(device) => device,
        Err(reason) => return eprintln!("skipping: {reason}"),
    };
    let spirv = words();
    let push = u32s([10]);
    let mut missing = bindings();
    missing.remove(1);
    let e = device.run(&dispatch(&spirv, &[], &push, 1), &mut missing, None).unwrap_err();
    assert!(matches!(&e, RunError::Arguments(m) if m.contains("(set 0, binding 0)")), "{e}");
    let mut wrong_kind = bindings();
    wrong_kind[1].kind = BufferKind::Storage;
    let e = device.run(&dispatch(&spirv, &[], &push, 1), &mut wrong_kind, None).unwrap_err();
    assert!(matches!(&e, RunError::Arguments(m) if m.contains("uniform buffer")), "{e}");
    let e = device.run(&dispatch(&spirv, &[], &[], 1), &mut bindings(), None).unwrap_err();
    assert!(matches!(&e, RunError::Arguments(m) if m.contains("push constants")), "{e}");
    let spec = [SpecValue { id: 5, bits: 1 }];
    let e = device.run(&dispatch(&spirv, &spec, &push, 1), &mut bindings(), None).unwrap_err();
    assert!(matches!(&e, RunError::Arguments(m) if m.contains("spec constant 5")), "{e}");
    let mut d = dispatch(&spirv, &[], &push, 1);
    d.entry = "other";
    let e = device.run(&d, &mut bindings(), None).unwrap_err();
    assert!(matches!(&e, RunError::Arguments(m) if m.contains("no entry point `other`")), "{e}");
    // Cut inside the last OpStore (OpStore, OpReturn, OpFunctionEnd end the module).
    let truncated = &spirv[..spirv.len() - 3];
    let e = device.run(&dispatch(truncated, &[], &push, 1), &mut bindings(), None).unwrap_err();
    assert!(matches!(e, RunError::Compile(_)), "{e}");
}
