//! The lavapipe column without `spirvkit run`: the kernel dispatched through
//! `crates/vkcompute`, whose `Context::run` does everything of a run at once (buffers,
//! pipeline, one dispatch, read-back). The dispatch's own time is estimated as the median
//! of whole runs minus the median of the same runs with zero workgroups, which do all of it
//! but the shader's work.

use super::cli::Report;
use super::spec::Kernel;
use super::{median, Data};
use anyhow::{Context as _, Result};
use spirvkit_vkcompute::{Binding, Context, DevicePreference, Dispatch, Resource};
use std::path::Path;
use std::time::Instant;

pub struct DirectRun {
    pub report: Report,
    /// The output buffer after one dispatch from the INIT contents.
    pub output: Vec<u8>,
}

/// Opens lavapipe (the caller made it the only driver); the error is the column's text.
pub fn open() -> Result<Context, String> {
    Context::new(DevicePreference::Cpu).map_err(|e| {
        if e.is_unavailable() {
            format!("not available: {e}")
        } else {
            format!("failed: {e}")
        }
    })
}

pub fn run(context: &Context, kernel: Kernel, n: u32, spv: &Path, repeat: u32) -> Result<DirectRun> {
    let spirv = std::fs::read(spv).with_context(|| format!("reading {}", spv.display()))?;
    let params: Vec<u8> = kernel.params(n).iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut bindings = vec![Binding { set: 0, binding: 0, resource: Resource::UniformBuffer(params) }];
    let buffers = kernel.buffers(n);
    for b in &buffers {
        bindings.push(Binding {
            set: 0,
            binding: b.binding,
            resource: Resource::StorageBuffer(Data::new(b).to_le_bytes()),
        });
    }
    let output_binding = buffers.iter().find(|b| b.output).expect("an output").binding;
    let time = |groups: [u32; 3]| -> Result<(f64, Vec<u8>)> {
        let job = Dispatch { spirv: &spirv, entry_point: "main", bindings: &bindings, groups };
        let start = Instant::now();
        let outputs = context.run(&job)?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let output = outputs.get(0, output_binding).context("the output binding was not read back")?.to_vec();
        Ok((ms, output))
    };
    let mut full = Vec::new();
    let mut empty = Vec::new();
    let mut output = Vec::new();
    for round in 0..repeat {
        let (ms, bytes) = time(kernel.groups(n))?;
        full.push(ms);
        if round == 0 {
            output = bytes;
        }
        empty.push(time([0, 0, 0])?.0);
    }
    let setup = median(&empty);
    let median_ms = (median(&full) - setup).max(0.0);
    Ok(DirectRun { report: Report { compile_ms: Some(setup), median_ms }, output })
}
