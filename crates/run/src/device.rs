//! The interface between `spirvkit run` and a device that executes compute shaders.

use crate::image::ImageShape;
use crate::sampler::SamplerDesc;
use std::time::Duration;

/// How a binding is bound: the descriptor type the shader declares for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferKind {
    /// A storage buffer (`StorageBuffer` storage class, or `Uniform` + `BufferBlock`).
    Storage,
    /// A uniform buffer (`Uniform` storage class with `Block`).
    Uniform,
    /// A storage image (`OpTypeImage` with Sampled 2): the binding's `data` holds its
    /// texels tightly packed (x fastest, then y, then z or the layer),
    /// `shape.byte_size()` bytes, and what the shader left in them after the run. With
    /// `shape.dim` [`crate::ImageDim::Buffer`] a storage texel buffer (Vulkan's
    /// `STORAGE_TEXEL_BUFFER`; HLSL `RWBuffer<T>`).
    StorageImage(ImageShape),
    /// A sampled image read without a sampler (`OpImageFetch`; Vulkan's
    /// `SAMPLED_IMAGE` descriptor): texels as for a storage image, never written. With
    /// `shape.dim` [`crate::ImageDim::Buffer`] a uniform texel buffer (Vulkan's
    /// `UNIFORM_TEXEL_BUFFER`; HLSL `Buffer<T>`).
    SampledImage(ImageShape),
    /// A sampler (`OpTypeSampler`; HLSL `SamplerState`): `data` is empty.
    Sampler(SamplerDesc),
    /// A combined image sampler (`OpTypeSampledImage`; GLSL `sampler2D`): a sampled image
    /// (`data` its texels) and its sampler.
    CombinedImageSampler(ImageShape, SamplerDesc),
}

/// One buffer or storage image bound for a dispatch. `data` holds its bytes, little-endian:
/// the initial contents before the run and what the shader left in them after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub set: u32,
    pub binding: u32,
    pub kind: BufferKind,
    pub data: Vec<u8>,
}

/// A specialization constant's value as raw bits (`OpSpecConstant*` with `SpecId`).
/// Booleans are 0 or 1; values narrower than 64 bits are in the low bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecValue {
    pub id: u32,
    pub bits: u64,
}

/// What to run: a SPIR-V module's compute entry point over a grid of workgroups.
#[derive(Clone, Debug)]
pub struct Dispatch<'a> {
    /// The module's words (already compiled from HLSL when the input was HLSL).
    pub spirv: &'a [u32],
    /// The entry point's name (`OpEntryPoint`).
    pub entry: &'a str,
    /// Workgroups in x, y, z.
    pub groups: [u32; 3],
    pub spec: &'a [SpecValue],
    /// The push-constant block's bytes (empty when none is given).
    pub push: &'a [u8],
    /// Host threads the device may use (the CPU runner); `None`: all cores.
    pub threads: Option<usize>,
    /// A dispatch running longer than this is stopped with [`RunError::TimeLimit`].
    pub time_limit: Option<Duration>,
    /// Dispatches to run and time; at least 1.
    pub repeat: u32,
}

/// Milliseconds, measured by the device.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timings {
    /// From the module's words to code ready to dispatch (pipeline creation on Vulkan,
    /// conversion + JIT to machine code on the CPU).
    pub compile_ms: f64,
    /// Each dispatch, in order (`repeat` values; the first is the first dispatch).
    pub dispatch_ms: Vec<f64>,
}

/// Why a run failed. Every message names what it is about (binding, op, argument).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The run's arguments do not fit the shader (a missing binding, a buffer of the
    /// wrong size or kind, a descriptor the shader does not declare, no such entry).
    #[error("{0}")]
    Arguments(String),
    /// The shader uses something this device cannot run yet.
    #[error("not supported yet: {0}")]
    NotSupported(String),
    /// The module could not be compiled for the device.
    #[error("compile error: {0}")]
    Compile(String),
    /// The dispatch ran longer than the time limit and was stopped.
    #[error("time limit of {seconds} s exceeded: the dispatch was stopped")]
    TimeLimit { seconds: f64 },
    /// The device is missing or failed (no Vulkan driver, an out-of-memory, a lost device).
    #[error("device error: {0}")]
    Device(String),
}

/// Refills the bindings before a dispatch (`--fresh`): untimed.
pub type Refill<'a> = &'a mut dyn FnMut(&mut [Binding]);

/// A device that runs compute shaders: the CPU runner or a Vulkan driver.
pub trait Device {
    /// `cpu` or `vulkan`, as `device=` prints it.
    fn name(&self) -> &'static str;

    /// Compiles `dispatch.spirv`'s entry point, binds `bindings`, and dispatches
    /// `dispatch.repeat` times; each dispatch starts from the buffers as the previous
    /// one left them, except that `before_each` (when given) is called before every
    /// dispatch after the first, untimed, to refill them (`--fresh`). On success every
    /// binding's `data` holds what the last dispatch left in it.
    fn run(
        &mut self,
        dispatch: &Dispatch<'_>,
        bindings: &mut [Binding],
        before_each: Option<Refill<'_>>,
    ) -> Result<Timings, RunError>;
}
