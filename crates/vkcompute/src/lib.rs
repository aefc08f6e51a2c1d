//! Runs SPIR-V compute shaders on a real Vulkan driver and reads back what they wrote.
//!
//! The caller gives a binary, its entry point, the descriptor bindings with their initial
//! contents, and the workgroup counts; [`Context::run`] builds the descriptor set layouts
//! from that list (no reflection), checks that every descriptor the shader declares is in it
//! with the same type (a mismatch is undefined behaviour a driver may crash on), dispatches
//! once, waits, and returns the contents of every writable binding. It is the engine of the semantics harness ([`suite`]): HLSL kernels
//! compiled by `hlsl2spirv` (or glslang) run on Mesa's lavapipe, a CPU driver, so results do
//! not depend on a GPU.
//!
//! libvulkan is opened at run time: a machine without a loader or driver gets
//! [`Error::Unavailable`], which callers report as a skip.

mod context;
mod device;
mod format;
mod interface;
pub mod suite;

pub use context::{lavapipe_icd_path, Context, DeviceInfo, DevicePreference, SubgroupFeatures};
pub use device::VulkanDevice;
pub use format::Format;

/// Why a run could not be done.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No Vulkan loader, no driver, or no suitable device: a skip, not a failure.
    #[error("no Vulkan available: {0}")]
    Unavailable(String),
    /// A Vulkan call returned an error.
    #[error("Vulkan call {call} failed: {result}")]
    Vulkan { call: &'static str, result: ash::vk::Result },
    /// The shader binary is not a SPIR-V word stream.
    #[error("SPIR-V binary: {0}")]
    Binary(String),
    /// The entry point name cannot be passed to Vulkan.
    #[error("entry point {0:?}: contains a NUL byte")]
    EntryPoint(String),
    /// A binding of the caller's list is malformed or not supported by the device.
    #[error("binding (set {set}, binding {binding}): {reason}")]
    Binding { set: u32, binding: u32, reason: String },
    /// The dispatch itself is not possible (group counts over the device limit).
    #[error("dispatch: {0}")]
    Dispatch(String),
    /// The device did not finish in time (an endless loop in the shader, say).
    #[error("the dispatch did not finish within {0:?}")]
    Timeout(std::time::Duration),
}

impl Error {
    /// True when the failure means "no Vulkan here" rather than a problem with the job.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Error::Unavailable(_))
    }
}

/// A 2D image with one mip level and one layer, rows packed tightly.
#[derive(Clone, Debug, PartialEq)]
pub struct Image2d {
    pub format: Format,
    pub width: u32,
    pub height: u32,
    /// `width * height * format.texel_size()` bytes, row after row.
    pub data: Vec<u8>,
}

/// How a sampler filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    Nearest,
    Linear,
}

/// What a sampler does with coordinates outside [0, 1].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressMode {
    ClampToEdge,
    Repeat,
    MirroredRepeat,
}

/// A sampler with normalized coordinates and a single mip level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerDesc {
    pub filter: Filter,
    pub address_mode: AddressMode,
}

/// One descriptor's resource with its initial contents.
#[derive(Clone, Debug, PartialEq)]
pub enum Resource {
    /// `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER`: structured, byte-address and storage blocks; read back.
    StorageBuffer(Vec<u8>),
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER`: cbuffers.
    UniformBuffer(Vec<u8>),
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER`: `Buffer<T>`.
    UniformTexelBuffer { format: Format, data: Vec<u8> },
    /// `VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER`: `RWBuffer<T>`; read back.
    StorageTexelBuffer { format: Format, data: Vec<u8> },
    /// `VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE`: `Texture2D<T>`.
    SampledImage(Image2d),
    /// `VK_DESCRIPTOR_TYPE_STORAGE_IMAGE`: `RWTexture2D<T>`; read back.
    StorageImage(Image2d),
    /// `VK_DESCRIPTOR_TYPE_SAMPLER`: `SamplerState`.
    Sampler(SamplerDesc),
    /// `VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER`: `[[vk::combinedImageSampler]]` pairs.
    CombinedImageSampler(Image2d, SamplerDesc),
}

impl Resource {
    /// Whether the shader can write it (and [`Context::run`] reads it back).
    pub fn is_writable(&self) -> bool {
        matches!(
            self,
            Resource::StorageBuffer(_) | Resource::StorageTexelBuffer { .. } | Resource::StorageImage(_)
        )
    }
}

/// A descriptor binding of the shader's interface.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub set: u32,
    pub binding: u32,
    pub resource: Resource,
}

/// One compute dispatch.
#[derive(Clone, Debug)]
pub struct Dispatch<'a> {
    /// The SPIR-V binary (little-endian words, as compilers write them).
    pub spirv: &'a [u8],
    pub entry_point: &'a str,
    pub bindings: &'a [Binding],
    /// Workgroup counts in x, y, z.
    pub groups: [u32; 3],
}

/// What the writable bindings hold after the dispatch, in the order of the binding list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outputs {
    contents: Vec<((u32, u32), Vec<u8>)>,
}

impl Outputs {
    /// The bytes of binding `binding` of set `set` (images: rows packed tightly).
    pub fn get(&self, set: u32, binding: u32) -> Option<&[u8]> {
        self.contents.iter().find(|(key, _)| *key == (set, binding)).map(|(_, bytes)| bytes.as_slice())
    }

    /// Every read-back binding as ((set, binding), bytes).
    pub fn iter(&self) -> impl Iterator<Item = ((u32, u32), &[u8])> {
        self.contents.iter().map(|(key, bytes)| (*key, bytes.as_slice()))
    }
}
