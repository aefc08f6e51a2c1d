//! `spirvkit run`'s device-independent half: the run's description, the buffers'
//! contents, and the [`Device`] interface the CPU runner (`spirvkit-jit`) and the
//! Vulkan runner (`spirvkit-vkcompute`) implement. Depends on no device: no LLVM, no
//! Vulkan.

mod device;

pub use device::{Binding, BufferKind, Device, Dispatch, Refill, RunError, SpecValue, Timings};
