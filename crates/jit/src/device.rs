//! `spirvkit run --device cpu`: [`CpuDevice`] implements `spirvkit_run::Device` with
//! the whole pipeline: the module's words deserialized to the SPIR-V IR, `--spec`
//! values substituted and the kernel interface read (`spirvkit_passes::cpu_kernel`),
//! the conversion to the LLVM dialect, the kernel pass (one function per workgroup),
//! LLVM IR text, the JIT (compile_ms ends here), then [`CompiledKernel::dispatch`] per
//! repetition.

use std::time::Instant;

use spirvkit_ir::ir::{Ir, Location, OpId};
use spirvkit_passes::convert_spirv_to_llvm::{self, ConvertOptions};
use spirvkit_passes::cpu_kernel::{self, KernelError};
use spirvkit_run::{
    AddressMode, Binding, BufferKind, Device, Dispatch, Filter, ImageDim, ImageFormat, ImageShape, Refill,
    RunError, SamplerDesc, Timings,
};

use crate::runtime::{CompiledKernel, DeclaredDescriptor};
use crate::Jit;

/// The CPU device: compute shaders JIT-compiled for the host and run on all cores.
#[derive(Default)]
pub struct CpuDevice {
    jit: Option<Jit>,
}

impl CpuDevice {
    pub fn new() -> Self {
        CpuDevice::default()
    }

    fn jit(&mut self) -> Result<&Jit, RunError> {
        if self.jit.is_none() {
            self.jit = Some(Jit::new().map_err(|e| RunError::Device(e.to_string()))?);
        }
        Ok(self.jit.as_ref().expect("set above"))
    }

    /// `spirv`'s entry point compiled to machine code without binding anything: the whole
    /// compile path of [`Device::run`] (deserialize, verify, kernel preparation,
    /// conversion, workgroup function, LLVM IR, JIT), for harnesses that check what
    /// compiles. `image_formats` gives the formats of images declared `Unknown`, as bound
    /// images do in a run.
    pub fn compile(
        &mut self,
        spirv: &[u32],
        entry: &str,
        spec: &[(u32, u64)],
        image_formats: &[(u32, u32, ImageFormat)],
    ) -> Result<CompiledKernel, RunError> {
        let (text, layout, declared) = kernel_llvm_ir_with_images(spirv, entry, spec, image_formats)?;
        CompiledKernel::new(self.jit()?, &text, layout, declared)
    }
}

fn kernel_error(e: KernelError) -> RunError {
    not_supported_or(e.to_string(), RunError::Compile)
}

/// A message starting "not supported yet: " becomes [`RunError::NotSupported`].
fn not_supported_or(message: String, other: fn(String) -> RunError) -> RunError {
    match message.find("not supported yet: ") {
        Some(at) => RunError::NotSupported(format!(
            "{}{}",
            &message[..at],
            &message[at + "not supported yet: ".len()..]
        )),
        None => other(message),
    }
}

/// The LLVM IR text of `dispatch`'s kernel, with what the runtime must bind.
pub fn kernel_llvm_ir(
    spirv: &[u32],
    entry: &str,
    spec: &[(u32, u64)],
) -> Result<(String, cpu_kernel::KernelLayout, Vec<DeclaredDescriptor>), RunError> {
    kernel_llvm_ir_with_images(spirv, entry, spec, &[])
}

/// [`kernel_llvm_ir`] with the formats of the images bound at (set, binding): an image
/// the shader declares with the `Unknown` format has the bound one.
pub fn kernel_llvm_ir_with_images(
    spirv: &[u32],
    entry: &str,
    spec: &[(u32, u64)],
    image_formats: &[(u32, u32, ImageFormat)],
) -> Result<(String, cpu_kernel::KernelLayout, Vec<DeclaredDescriptor>), RunError> {
    let bytes: Vec<u8> = spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut ir = Ir::new();
    let module = spirvkit_translate::deserialize(&bytes, &mut ir, &Default::default())
        .map_err(|e| RunError::Compile(format!("the module does not deserialize: {e}")))?;
    // SPIR-V's validity rules that the conversion relies on (values dominate their uses,
    // shuffle selectors in range, branch operands of the target's types, operand types)
    // are the verifier's: a module breaking them is refused by op before it is converted,
    // as MLIR verifies a deserialized module before any pass sees it.
    if let Some((op, diagnostics)) = spirvkit_ir::verify::first_failure(&ir, module, "") {
        let message = diagnostics.first().map(|d| d.message.clone()).unwrap_or_default();
        return Err(RunError::Compile(format!(
            "the module is not valid SPIR-V ({}): {message}",
            ir.op(op).name.as_str()
        )));
    }
    let iface = cpu_kernel::prepare_spirv(&mut ir, module, Some(entry), spec).map_err(|e| {
        if e.message.contains("entry point") {
            RunError::Arguments(e.message)
        } else {
            kernel_error(e)
        }
    })?;
    let declared = iface
        .descriptors()
        .map(|(_, d)| -> Result<DeclaredDescriptor, RunError> {
            Ok(DeclaredDescriptor {
                set: d.set,
                binding: d.binding,
                kind: match &d.image {
                    Some(image) => {
                        let bound = image_formats.iter().find(|(s, b, _)| (*s, *b) == (d.set, d.binding));
                        declared_image(image, bound.map(|(_, _, f)| *f))?
                    }
                    // The sampler's state is the run's (compared by kind only).
                    None if d.sampler => BufferKind::Sampler(SamplerDesc {
                        filter: Filter::Nearest,
                        address: AddressMode::ClampToEdge,
                    }),
                    None if d.is_storage() => BufferKind::Storage,
                    None => BufferKind::Uniform,
                },
            })
        })
        .collect::<Result<_, _>>()?;
    let top = wrap_in_builtin_module(&mut ir, module);
    let options = ConvertOptions {
        image_formats: image_formats.iter().map(|(s, b, f)| (*s, *b, f.name().to_string())).collect(),
        ..ConvertOptions::kernel()
    };
    convert_spirv_to_llvm::convert(&mut ir, top, &options)
        .map_err(|e| not_supported_or(format!("converting to LLVM: {e}"), RunError::Compile))?;
    let layout = cpu_kernel::build_workgroup_function(&mut ir, top, &iface).map_err(kernel_error)?;
    // A module that breaks SPIR-V's typing rules (operands of another type, an intrinsic on
    // a pointer) converts to LLVM dialect that breaks LLVM's: refused here, by op, rather
    // than written as LLVM IR that LLVM's parser rejects.
    if let Some((op, diagnostics)) = spirvkit_ir::verify::first_failure(&ir, top, "") {
        let message = diagnostics.first().map(|d| d.message.clone()).unwrap_or_default();
        return Err(RunError::Compile(format!(
            "the converted kernel does not verify ({}): {message}",
            ir.op(op).name.as_str()
        )));
    }
    let text = spirvkit_translate::to_llvm_ir(&ir, top)
        .map_err(|e| not_supported_or(format!("writing LLVM IR: {e}"), RunError::Compile))?;
    Ok((text, layout, declared))
}

/// A storage image as the shader declares it: its format and dimensionality (the
/// extent is the run's; [`crate::runtime::CompiledKernel::check_arguments`] compares the rest).
fn declared_image(
    image: &cpu_kernel::interface::ImageDescriptor,
    bound: Option<ImageFormat>,
) -> Result<BufferKind, RunError> {
    let dim = match image.dim.as_str() {
        "Dim1D" => 0,
        "Dim2D" => 1,
        "Dim3D" => 2,
        "Buffer" => 5,
        _ => u32::MAX,
    };
    let dim = ImageDim::from_spirv(dim, image.arrayed)
        .ok_or_else(|| RunError::NotSupported(format!("images: {} storage images", image.dim)))?;
    let format = match (image.format.as_str(), bound) {
        ("Unknown", Some(bound)) => Some(bound),
        (name, _) => ImageFormat::parse(name),
    };
    let format = format.ok_or_else(|| {
        RunError::NotSupported(format!("images: storage images of format {}", image.format))
    })?;
    let shape = ImageShape::new(format, dim, [0; 3]);
    if image.combined && dim != ImageDim::Buffer {
        let any = SamplerDesc { filter: Filter::Nearest, address: AddressMode::ClampToEdge };
        return Ok(BufferKind::CombinedImageSampler(shape, any));
    }
    // A combined sampler of a texel buffer (GLSL `samplerBuffer`) is a uniform texel buffer.
    Ok(if image.sampled || image.combined {
        BufferKind::SampledImage(shape)
    } else {
        BufferKind::StorageImage(shape)
    })
}

/// The conversion works on a `builtin.module` holding the `spirv.module` (as `spirvkit
/// opt` parses a bare one).
fn wrap_in_builtin_module(ir: &mut Ir, module: OpId) -> OpId {
    let top = ir.create_op("builtin.module", vec![], &[], Location::Unknown);
    let region = ir.add_region(top);
    let block = ir.create_block();
    ir.append_block(region, block);
    ir.append_op(block, module);
    top
}

impl Device for CpuDevice {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn run(
        &mut self,
        dispatch: &Dispatch<'_>,
        bindings: &mut [Binding],
        mut before_each: Option<Refill<'_>>,
    ) -> Result<Timings, RunError> {
        let start = Instant::now();
        let spec: Vec<(u32, u64)> = dispatch.spec.iter().map(|s| (s.id, s.bits)).collect();
        let image_formats: Vec<(u32, u32, ImageFormat)> = bindings
            .iter()
            .filter_map(|b| match b.kind {
                BufferKind::StorageImage(shape)
                | BufferKind::SampledImage(shape)
                | BufferKind::CombinedImageSampler(shape, _) => Some((b.set, b.binding, shape.format)),
                _ => None,
            })
            .collect();
        let kernel = self.compile(dispatch.spirv, dispatch.entry, &spec, &image_formats)?;
        let compile_ms = start.elapsed().as_secs_f64() * 1e3;
        // Bad arguments are reported before anything runs.
        kernel.check_arguments(bindings, dispatch.push)?;
        let threads = dispatch.threads.unwrap_or_else(spirvkit_threads::cores).max(1);
        let mut dispatch_ms = Vec::new();
        for i in 0..dispatch.repeat.max(1) {
            if i > 0 {
                if let Some(refill) = before_each.as_mut() {
                    refill(bindings);
                }
            }
            let took =
                kernel.dispatch(dispatch.groups, bindings, dispatch.push, threads, dispatch.time_limit)?;
            dispatch_ms.push(took.as_secs_f64() * 1e3);
        }
        Ok(Timings { compile_ms, dispatch_ms })
    }
}
