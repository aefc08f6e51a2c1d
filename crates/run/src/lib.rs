//! `spirvkit run`'s device-independent half: the run's description and its parser
//! ([`args`]), the buffers' contents ([`elem`], [`init`]), what the shader declares
//! ([`reflect`]), the checks of one against the other and the run itself ([`execute`]),
//! the comparison of dumps ([`diff`]), and the [`Device`] interface the CPU runner
//! (`spirvkit-jit`) and the Vulkan runner (`spirvkit-vkcompute`) implement. Depends on no
//! device: no LLVM, no Vulkan.

pub mod args;
mod device;
pub mod diff;
pub mod elem;
pub mod execute;
pub mod image;
pub mod init;
pub mod reflect;
pub mod sampler;

pub use args::{ArgError, RunArgs, RunDescription};
pub use device::{Binding, BufferKind, Device, Dispatch, Refill, RunError, SpecValue, Timings};
pub use elem::ElemType;
pub use execute::{execute, prepare, write_dumps, Error, Outcome, Prepared, Report};
pub use image::{ImageDim, ImageFormat, ImageShape, Numeric};
pub use reflect::{reflect, words_from_bytes, ReflectError, Reflection};
pub use sampler::{AddressMode, Filter, SamplerDesc};
