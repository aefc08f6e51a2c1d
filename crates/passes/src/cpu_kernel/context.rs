//! The kernel context: the one struct the compiled workgroup function reads everything
//! from, filled by the runtime (`spirvkit_jit`'s `runtime.rs`) once per thread. This
//! file is its only definition; the runtime's `#[repr(C)]` mirror asserts these
//! offsets.
//!
//! ```text
//! offset  field            type                  what
//!      0  buffers          *const BufferSlot     one {ptr base, u64 bytes} per descriptor
//!                                                slot, in `KernelLayout::descriptors` order
//!      8  push             *const u8             push-constant bytes (may be null when 0)
//!     16  push_bytes       u64
//!     24  workgroup_memory *mut u8               this thread's workgroup memory,
//!                                                `KernelLayout::workgroup_bytes`, 16-aligned
//!     32  frames           *mut u8               this thread's per-invocation frames:
//!                                                invocations x `frame_bytes` (barrier kernels)
//!     40  zero_page        *const u8             ZERO_PAGE_BYTES zeros, never written: an
//!                                                out-of-bounds read reads here
//!     48  sink_page        *mut u8               ZERO_PAGE_BYTES scratch: an out-of-bounds
//!                                                write or atomic goes here
//!     56  cancel           *const u32            nonzero: stop (polled at loop headers)
//!     64  num_workgroups   [u32; 3]              the dispatch's group counts
//!     76  (padding to 80)
//!     80  private_buffers  *const *mut u8        one pointer per descriptor slot: this
//!                                                thread's private copy of a reduction
//!                                                buffer (see `atomics`), null when the
//!                                                slot is not privatized in this dispatch
//! ```
//!
//! `void spirvkit_workgroup(ptr ctx, i32 gx, i32 gy, i32 gz)` runs every invocation of
//! workgroup (gx, gy, gz); it returns early when the cancel flag is set.

pub const BUFFERS: u64 = 0;
pub const PUSH: u64 = 8;
pub const PUSH_BYTES: u64 = 16;
pub const WORKGROUP_MEMORY: u64 = 24;
pub const FRAMES: u64 = 32;
pub const ZERO_PAGE: u64 = 40;
pub const SINK_PAGE: u64 = 48;
pub const CANCEL: u64 = 56;
pub const NUM_WORKGROUPS: u64 = 64;
pub const PRIVATE_BUFFERS: u64 = 80;
/// The context's size in bytes.
pub const SIZE: u64 = 88;
/// Bytes of one `BufferSlot` ({ptr base, u64 bytes}).
pub const BUFFER_SLOT: u64 = 16;
/// Bytes of the zero and sink pages: the largest single access the kernel may make.
pub const ZERO_PAGE_BYTES: u64 = 4096;

/// The name of the compiled entry: one call runs one workgroup.
pub const WORKGROUP_FUNCTION: &str = "spirvkit_workgroup";
/// The entry function once rewritten to run one invocation (one segment between
/// barriers); internal, inlined into the workgroup function's invocation loop.
pub const INVOCATION_FUNCTION: &str = "spirvkit_invocation";
/// What the invocation function returns when the invocation finished.
pub const STATE_DONE: u32 = u32::MAX;
/// What it returns when it saw the cancel flag.
pub const STATE_CANCELLED: u32 = u32::MAX - 1;
