//! The CPU runtime: a compiled kernel (the `spirvkit_workgroup` function the kernel
//! pass builds, see `spirvkit_passes::cpu_kernel`) dispatched over a grid of
//! workgroups on several threads.
//!
//! Each thread claims runs of workgroups from an atomic counter (guided scheduling:
//! shrinking shares of what is left) and runs them with its own
//! context ([`KernelContext`], the layout `spirvkit_passes::cpu_kernel::context`
//! defines): its own workgroup memory, invocation frames and sink page, the shared
//! buffer table and zero page. A watchdog sets the cancel flag at the time limit; the
//! compiled code polls it at loop headers (behind a countdown) and between barrier rounds,
//! and the threads between workgroups.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use spirvkit_passes::cpu_kernel::atomics::{self, ReductionOp};
use spirvkit_passes::cpu_kernel::context as cx;
use spirvkit_passes::cpu_kernel::workgroup::KernelLayout;
use spirvkit_run::{Binding, BufferKind, RunError};

use crate::{CompiledModule, Jit};

/// One buffer of the context's table.
#[repr(C)]
#[derive(Clone, Copy)]
struct BufferSlot {
    base: *mut u8,
    bytes: u64,
}

/// The context the compiled workgroup function reads (see
/// `spirvkit_passes::cpu_kernel::context` for the layout this mirrors).
#[repr(C)]
struct KernelContext {
    buffers: *const BufferSlot,
    push: *const u8,
    push_bytes: u64,
    workgroup_memory: *mut u8,
    frames: *mut u8,
    zero_page: *const u8,
    sink_page: *mut u8,
    cancel: *const AtomicU32,
    num_workgroups: [u32; 3],
    _padding: u32,
    private_buffers: *const *mut u8,
}

const _: () = {
    use std::mem::offset_of;
    assert!(offset_of!(KernelContext, buffers) == cx::BUFFERS as usize);
    assert!(offset_of!(KernelContext, push) == cx::PUSH as usize);
    assert!(offset_of!(KernelContext, push_bytes) == cx::PUSH_BYTES as usize);
    assert!(offset_of!(KernelContext, workgroup_memory) == cx::WORKGROUP_MEMORY as usize);
    assert!(offset_of!(KernelContext, frames) == cx::FRAMES as usize);
    assert!(offset_of!(KernelContext, zero_page) == cx::ZERO_PAGE as usize);
    assert!(offset_of!(KernelContext, sink_page) == cx::SINK_PAGE as usize);
    assert!(offset_of!(KernelContext, cancel) == cx::CANCEL as usize);
    assert!(offset_of!(KernelContext, num_workgroups) == cx::NUM_WORKGROUPS as usize);
    assert!(offset_of!(KernelContext, private_buffers) == cx::PRIVATE_BUFFERS as usize);
    assert!(std::mem::size_of::<KernelContext>() == cx::SIZE as usize);
    assert!(std::mem::size_of::<BufferSlot>() == cx::BUFFER_SLOT as usize);
};

/// `void spirvkit_workgroup(ptr ctx, i32 gx, i32 gy, i32 gz)`.
type WorkgroupFunction = unsafe extern "C" fn(*const KernelContext, u32, u32, u32);

/// The zero page: never written (out-of-bounds writes go to each thread's sink page).
static ZERO_PAGE: [u8; cx::ZERO_PAGE_BYTES as usize] = [0; cx::ZERO_PAGE_BYTES as usize];

/// Memory aligned to 64 bytes (a cache line; every vector the kernel may load).
struct Aligned {
    words: Vec<[u64; 8]>,
}

impl Aligned {
    fn zeroed(bytes: u64) -> Result<Aligned, RunError> {
        let lines = usize::try_from(bytes.div_ceil(64).max(1))
            .map_err(|_| RunError::Device(format!("cannot allocate {bytes} bytes")))?;
        let mut words = Vec::new();
        words
            .try_reserve_exact(lines)
            .map_err(|_| RunError::Device(format!("cannot allocate {bytes} bytes")))?;
        words.resize(lines, [0u64; 8]);
        Ok(Aligned { words })
    }

    fn ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr().cast()
    }
}

/// A descriptor the shader declares (for the argument checks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclaredDescriptor {
    pub set: u32,
    pub binding: u32,
    pub kind: BufferKind,
}

/// A kernel compiled to machine code, ready to dispatch.
pub struct CompiledKernel {
    _module: CompiledModule,
    workgroup: usize,
    layout: KernelLayout,
    declared: Vec<DeclaredDescriptor>,
}

impl std::fmt::Debug for CompiledKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledKernel").field("layout", &self.layout).finish()
    }
}

impl CompiledKernel {
    /// Compiles the LLVM IR text of a module the kernel pass produced. `declared`: every
    /// descriptor the shader declares (a binding outside it is refused).
    pub fn new(
        jit: &Jit,
        llvm_ir: &str,
        layout: KernelLayout,
        declared: Vec<DeclaredDescriptor>,
    ) -> Result<Self, RunError> {
        let module = jit.compile(llvm_ir, &[]).map_err(|e| RunError::Compile(e.to_string()))?;
        let workgroup = module.address(cx::WORKGROUP_FUNCTION).ok_or_else(|| {
            RunError::Compile(format!("the compiled module has no {}", cx::WORKGROUP_FUNCTION))
        })?;
        Ok(CompiledKernel { _module: module, workgroup, layout, declared })
    }

    pub fn layout(&self) -> &KernelLayout {
        &self.layout
    }

    /// Checks `bindings` against what the shader declares and reads, and returns for
    /// each context buffer slot the index of its binding.
    pub fn check_arguments(&self, bindings: &[Binding], push: &[u8]) -> Result<Vec<usize>, RunError> {
        for (i, b) in bindings.iter().enumerate() {
            let Some(d) = self.declared.iter().find(|d| d.set == b.set && d.binding == b.binding) else {
                return Err(RunError::Arguments(format!(
                    "binding {}:{} (set {}): the shader declares no buffer there",
                    b.binding, b.set, b.set
                )));
            };
            let same_kind = match (d.kind, b.kind) {
                (BufferKind::Sampler(_), BufferKind::Sampler(_)) => true,
                (BufferKind::StorageImage(declared), BufferKind::StorageImage(given))
                | (BufferKind::SampledImage(declared), BufferKind::SampledImage(given))
                | (
                    BufferKind::CombinedImageSampler(declared, _),
                    BufferKind::CombinedImageSampler(given, _),
                ) => {
                    if (declared.format, declared.dim) != (given.format, given.dim) {
                        return Err(RunError::Arguments(format!(
                            "binding {}:{}: the shader declares a {} {} storage image there, given {}",
                            b.binding,
                            b.set,
                            declared.format,
                            declared.dim,
                            given.describe()
                        )));
                    }
                    if b.data.len() as u64 != given.byte_size() {
                        return Err(RunError::Arguments(format!(
                            "binding {}:{}: {} needs {} bytes, given {}",
                            b.binding,
                            b.set,
                            given.describe(),
                            given.byte_size(),
                            b.data.len()
                        )));
                    }
                    true
                }
                (declared, given) => declared == given,
            };
            if !same_kind {
                return Err(RunError::Arguments(format!(
                    "binding {}:{}: the shader declares a {} buffer there, given a {} one",
                    b.binding,
                    b.set,
                    kind_name(d.kind),
                    kind_name(b.kind)
                )));
            }
            if bindings[..i].iter().any(|o| o.set == b.set && o.binding == b.binding) {
                return Err(RunError::Arguments(format!("binding {}:{} is given twice", b.binding, b.set)));
            }
        }
        let mut slots = Vec::with_capacity(self.layout.descriptors.len());
        for d in &self.layout.descriptors {
            let Some(index) = bindings.iter().position(|b| b.set == d.set && b.binding == d.binding) else {
                return Err(RunError::Arguments(format!(
                    "binding {}:{} (@{}) is missing: the shader reads it",
                    d.binding, d.set, d.name
                )));
            };
            let len = bindings[index].data.len() as u64;
            let is_image = !matches!(bindings[index].kind, BufferKind::Storage | BufferKind::Uniform);
            if len < d.fixed_size && !is_image {
                return Err(RunError::Arguments(format!(
                    "binding {}:{} (@{}) holds {len} bytes, the shader's block needs at least {}",
                    d.binding, d.set, d.name, d.fixed_size
                )));
            }
            slots.push(index);
        }
        if let Some(bytes) = self.layout.push_constant_bytes {
            if push.is_empty() && bytes > 0 {
                return Err(RunError::Arguments(format!(
                    "the shader reads {bytes} bytes of push constants: none given"
                )));
            }
        }
        Ok(slots)
    }

    /// Runs every workgroup of `groups` on `threads` threads (at least 1). The bindings'
    /// bytes are used in place when 64-byte aligned, otherwise through an aligned copy.
    pub fn dispatch(
        &self,
        groups: [u32; 3],
        bindings: &mut [Binding],
        push: &[u8],
        threads: usize,
        time_limit: Option<Duration>,
    ) -> Result<Duration, RunError> {
        let slots = self.check_arguments(bindings, push)?;
        let mut staged = StagedBuffers::new(bindings, &slots)?;
        let private = self.private_copies(bindings, &slots, &staged);
        let result = self.dispatch_staged(groups, &mut staged, &private, push, threads, time_limit);
        staged.write_back(bindings);
        result
    }

    /// The reduction buffers (see `spirvkit_passes::cpu_kernel::atomics`) each thread
    /// of this dispatch accumulates into a private copy of: storage buffers bound to no
    /// other slot, within the size caps; the others keep real atomics.
    fn private_copies(
        &self,
        bindings: &[Binding],
        slots: &[usize],
        staged: &StagedBuffers,
    ) -> Vec<PrivateCopy> {
        let mut out = Vec::new();
        let mut total = 0u64;
        for r in &self.layout.reductions {
            let Some(&binding) = slots.get(r.slot) else { continue };
            let bytes = bindings[binding].data.len() as u64;
            let alone = slots.iter().filter(|&&b| b == binding).count() == 1;
            if bindings[binding].kind != BufferKind::Storage
                || !alone
                || !matches!(r.element_bytes, 4 | 8)
                || bytes < r.element_bytes
                || bytes > atomics::MAX_PRIVATE_BYTES
                || total + bytes > atomics::MAX_PRIVATE_BYTES_PER_THREAD
            {
                continue;
            }
            total += bytes;
            out.push(PrivateCopy {
                slot: r.slot,
                real: staged.slots[r.slot].3 as usize,
                bytes,
                element_bytes: r.element_bytes,
                op: r.op,
            });
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn dispatch_staged(
        &self,
        groups: [u32; 3],
        staged: &mut StagedBuffers,
        private: &[PrivateCopy],
        push: &[u8],
        threads: usize,
        time_limit: Option<Duration>,
    ) -> Result<Duration, RunError> {
        let total = groups.iter().map(|&g| u64::from(g)).product::<u64>();
        if total == 0 {
            return Ok(Duration::ZERO);
        }
        let table: Vec<BufferSlot> = staged.slots();
        let slot_count = table.len();
        let table_address = table.as_ptr() as usize;
        let push_address = push.as_ptr() as usize;
        let push_bytes = push.len() as u64;
        let invocations: u64 = self.layout.workgroup_size.iter().map(|&d| u64::from(d)).product();
        let frame_bytes = self
            .layout
            .frame_bytes
            .checked_mul(invocations)
            .ok_or_else(|| RunError::Device("frames too large".into()))?;
        let workgroup_bytes = self.layout.workgroup_bytes;
        let threads = threads.clamp(1, 256).min(usize::try_from(total).unwrap_or(usize::MAX));
        // Per-thread memory, allocated before the clock starts.
        let mut memories = Vec::with_capacity(threads);
        for _ in 0..threads {
            let mut copies = Vec::with_capacity(private.len());
            for p in private {
                copies.push(p.filled_copy()?);
            }
            memories.push(ThreadMemory {
                workgroup: Aligned::zeroed(workgroup_bytes)?,
                frames: Aligned::zeroed(frame_bytes)?,
                sink: Aligned::zeroed(cx::ZERO_PAGE_BYTES)?,
                private: copies,
            });
        }
        let cancel = AtomicU32::new(0);
        let next = AtomicU64::new(0);
        let function = self.workgroup;
        let start = Instant::now();
        std::thread::scope(|scope| {
            let (done, finished) = mpsc::channel::<()>();
            if let Some(limit) = time_limit {
                let cancel = &cancel;
                scope.spawn(move || {
                    if let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(limit) {
                        cancel.store(1, Ordering::Relaxed);
                    }
                });
            }
            let mut workers = Vec::new();
            let mut memories = memories.into_iter();
            let own = memories.next().expect("one thread at least");
            for memory in memories {
                let (cancel, next) = (&cancel, &next);
                workers.push(scope.spawn(move || {
                    run_workgroups(
                        function,
                        memory,
                        table_address,
                        push_address,
                        push_bytes,
                        groups,
                        total,
                        cancel,
                        next,
                        threads,
                        private,
                        slot_count,
                    )
                }));
            }
            run_workgroups(
                function,
                own,
                table_address,
                push_address,
                push_bytes,
                groups,
                total,
                &cancel,
                &next,
                threads,
                private,
                slot_count,
            );
            for w in workers {
                let _ = w.join();
            }
            drop(done);
        });
        drop(table);
        if cancel.load(Ordering::Relaxed) != 0 {
            return Err(RunError::TimeLimit { seconds: time_limit.map_or(0.0, |d| d.as_secs_f64()) });
        }
        Ok(start.elapsed())
    }
}

fn kind_name(kind: BufferKind) -> &'static str {
    match kind {
        BufferKind::Storage => "storage",
        BufferKind::Uniform => "uniform",
        BufferKind::StorageImage(_) => "storage image",
        BufferKind::SampledImage(_) => "sampled image",
        BufferKind::Sampler(_) => "sampler",
        BufferKind::CombinedImageSampler(..) => "combined image sampler",
    }
}

/// One thread's loop: the next workgroup from the counter until none is left or the
/// dispatch is cancelled.
#[allow(clippy::too_many_arguments)]
fn run_workgroups(
    function: usize,
    memory: ThreadMemory,
    table_address: usize,
    push_address: usize,
    push_bytes: u64,
    groups: [u32; 3],
    total: u64,
    cancel: &AtomicU32,
    next: &AtomicU64,
    threads: usize,
    private: &[PrivateCopy],
    slot_count: usize,
) {
    let ThreadMemory { workgroup: mut workgroup_memory, mut frames, mut sink, private: mut copies } = memory;
    // This thread's private copies by slot; null where the slot has none.
    let mut private_table = vec![std::ptr::null_mut::<u8>(); slot_count];
    for (p, copy) in private.iter().zip(copies.iter_mut()) {
        private_table[p.slot] = copy.ptr();
    }
    let context = KernelContext {
        buffers: table_address as *const BufferSlot,
        push: push_address as *const u8,
        push_bytes,
        workgroup_memory: workgroup_memory.ptr(),
        frames: frames.ptr(),
        zero_page: ZERO_PAGE.as_ptr(),
        sink_page: sink.ptr(),
        cancel,
        num_workgroups: groups,
        _padding: 0,
        private_buffers: private_table.as_ptr(),
    };
    #[allow(unsafe_code)]
    // SAFETY: `function` is the address of `spirvkit_workgroup` in a module the JIT
    // compiled and the caller keeps alive; its signature is `WorkgroupFunction` (the
    // kernel pass builds it so).
    let workgroup: WorkgroupFunction = unsafe { std::mem::transmute::<usize, WorkgroupFunction>(function) };
    let [x, y, _] = groups.map(u64::from);
    'claims: while let Some(claimed) = claim_workgroups(next, total, threads) {
        let (mut gx, mut gy, mut gz) = (claimed.start % x, (claimed.start / x) % y, claimed.start / (x * y));
        for _ in claimed {
            if cancel.load(Ordering::Relaxed) != 0 {
                break 'claims;
            }
            #[allow(unsafe_code)]
            // SAFETY: the context's pointers are valid for the whole dispatch: the buffer
            // table and the buffers it points to (kept by the caller until every thread is
            // joined), the push constants, this thread's own workgroup memory, frames and
            // sink page, the shared zero page (never written: the compiled code sends every
            // write out of bounds to the sink page) and the cancel flag. Every access the
            // compiled code makes is bounds-checked against these sizes.
            unsafe {
                workgroup(&context, gx as u32, gy as u32, gz as u32)
            };
            // The next workgroup in x, then y, then z order (no division per group).
            gx += 1;
            if gx == x {
                gx = 0;
                gy += 1;
                if gy == y {
                    gy = 0;
                    gz += 1;
                }
            }
        }
    }
    for (p, copy) in private.iter().zip(copies.iter_mut()) {
        p.flush(copy);
    }
}

/// One thread's memory for a dispatch.
struct ThreadMemory {
    workgroup: Aligned,
    frames: Aligned,
    sink: Aligned,
    /// One copy per `PrivateCopy` of the dispatch, in its order.
    private: Vec<Aligned>,
}

/// A reduction buffer each thread accumulates into a private copy of.
struct PrivateCopy {
    slot: usize,
    /// The real buffer's address (staged: 64-byte aligned).
    real: usize,
    bytes: u64,
    element_bytes: u64,
    op: ReductionOp,
}

impl PrivateCopy {
    /// A copy of the buffer's size with every element the operation's identity.
    fn filled_copy(&self) -> Result<Aligned, RunError> {
        let mut copy = Aligned::zeroed(self.bytes)?;
        let identity = self.op.identity(self.element_bytes);
        let word = if self.element_bytes == 4 { identity | (identity << 32) } else { identity };
        for line in &mut copy.words {
            *line = [word; 8];
        }
        Ok(copy)
    }

    /// Folds every element of `copy` that is not the identity into the real buffer,
    /// one atomic each (other threads flush theirs at the same time).
    fn flush(&self, copy: &mut Aligned) {
        let identity = self.op.identity(self.element_bytes);
        let elements = (self.bytes / self.element_bytes) as usize;
        let copy_bytes = bytemuck_lines(&mut copy.words, elements * self.element_bytes as usize);
        for (k, element) in copy_bytes.chunks_exact(self.element_bytes as usize).enumerate() {
            let mut raw = [0u8; 8];
            raw[..element.len()].copy_from_slice(element);
            let value = u64::from_le_bytes(raw);
            if value == identity {
                continue;
            }
            let address = self.real + k * self.element_bytes as usize;
            #[allow(unsafe_code)]
            // SAFETY: `address` is element k of the real buffer, inside its `bytes`
            // (k < bytes / element_bytes), aligned to the element (the staged buffer is
            // 64-byte aligned), and kept alive by the caller until every thread is
            // joined; during the dispatch it is only accessed atomically (the kernel
            // accesses it only through atomics, and the threads' flushes are atomics).
            unsafe {
                if self.element_bytes == 4 {
                    fold_u32(
                        std::sync::atomic::AtomicU32::from_ptr(address as *mut u32),
                        value as u32,
                        self.op,
                    );
                } else {
                    fold_u64(AtomicU64::from_ptr(address as *mut u64), value, self.op);
                }
            }
        }
    }
}

/// `fold_u32`/`fold_u64`: one relaxed atomic that folds `value` into `target` by `op`
/// (the signed min/max view the same word as signed).
macro_rules! fold_atomic {
    ($name:ident, $atomic:ty, $signed_atomic:ty, $unsigned:ty, $signed:ty) => {
        fn $name(target: &$atomic, value: $unsigned, op: ReductionOp) {
            let o = Ordering::Relaxed;
            #[allow(unsafe_code)]
            // SAFETY: the signed atomic has the same size and alignment as the unsigned
            // one it views.
            let signed = unsafe { <$signed_atomic>::from_ptr(target.as_ptr().cast()) };
            match op {
                ReductionOp::Add => {
                    target.fetch_add(value, o);
                }
                ReductionOp::And => {
                    target.fetch_and(value, o);
                }
                ReductionOp::Or => {
                    target.fetch_or(value, o);
                }
                ReductionOp::Xor => {
                    target.fetch_xor(value, o);
                }
                ReductionOp::UMin => {
                    target.fetch_min(value, o);
                }
                ReductionOp::UMax => {
                    target.fetch_max(value, o);
                }
                ReductionOp::SMin => {
                    signed.fetch_min(value as $signed, o);
                }
                ReductionOp::SMax => {
                    signed.fetch_max(value as $signed, o);
                }
            }
        }
    };
}

fold_atomic!(fold_u32, AtomicU32, std::sync::atomic::AtomicI32, u32, i32);
fold_atomic!(fold_u64, AtomicU64, std::sync::atomic::AtomicI64, u64, i64);

/// Claims the next run of workgroups: guided self-scheduling, each claim taking a
/// share of what is left (`left / (CLAIMS_PER_THREAD * threads)`, at least one), so a
/// dispatch of many small workgroups costs a few dozen claims of the shared counter
/// instead of one per workgroup, and the last claims are single workgroups that keep
/// the threads' finishing times even when workgroups differ in cost (mandelbrot).
fn claim_workgroups(next: &AtomicU64, total: u64, threads: usize) -> Option<std::ops::Range<u64>> {
    let share = CLAIMS_PER_THREAD * threads as u64;
    let mut start = next.load(Ordering::Relaxed);
    loop {
        if start >= total {
            return None;
        }
        let count = ((total - start) / share).max(1);
        match next.compare_exchange_weak(start, start + count, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(start..start + count),
            Err(now) => start = now,
        }
    }
}

/// How finely guided scheduling splits what is left: each claim takes 1/(this x
/// threads) of the remaining workgroups.
const CLAIMS_PER_THREAD: u64 = 4;

/// The bindings' bytes as the kernel sees them: in place when 64-byte aligned,
/// otherwise an aligned copy written back after the dispatch.
struct StagedBuffers {
    /// Per context slot: (binding index, copy if any, length, base). An image's copy is
    /// its 16-byte header (the extent, as the conversion reads it) and its texels.
    slots: Vec<(usize, Option<Aligned>, u64, *mut u8)>,
}

/// Bytes of a storage image's header (`convert_spirv_to_llvm::images::IMAGE_HEADER_BYTES`).
const IMAGE_HEADER: usize = images::IMAGE_HEADER_BYTES as usize;

use spirvkit_passes::convert_spirv_to_llvm::images;

impl StagedBuffers {
    fn new(bindings: &mut [Binding], slots: &[usize]) -> Result<StagedBuffers, RunError> {
        let mut out = Vec::with_capacity(slots.len());
        for &index in slots {
            if let BufferKind::Sampler(desc) = bindings[index].kind {
                // A sampler's memory: its state words (`images::SAMPLER_BYTE` of a combined one).
                let mut copy = Aligned::zeroed(16)?;
                let p = copy.ptr();
                let bytes: &mut [u8] = bytemuck_lines(&mut copy.words, 16);
                for (word, w) in bytes.chunks_exact_mut(4).zip(desc.words()) {
                    word.copy_from_slice(&w.to_le_bytes());
                }
                out.push((index, Some(copy), 16, p));
                continue;
            }
            if let BufferKind::StorageImage(shape)
            | BufferKind::SampledImage(shape)
            | BufferKind::CombinedImageSampler(shape, _) = bindings[index].kind
            {
                let data = &bindings[index].data;
                let len = (IMAGE_HEADER + data.len()) as u64;
                let mut copy = Aligned::zeroed(len)?;
                let p = copy.ptr();
                let bytes: &mut [u8] = bytemuck_lines(&mut copy.words, IMAGE_HEADER + data.len());
                // The header `convert_spirv_to_llvm::images` reads: level 0's extent, the
                // level count, and each level's byte offset from level 0.
                for (word, e) in bytes[..12].chunks_exact_mut(4).zip(shape.extent) {
                    word.copy_from_slice(&e.to_le_bytes());
                }
                bytes[12..16].copy_from_slice(&shape.levels.to_le_bytes());
                if let BufferKind::CombinedImageSampler(_, desc) = bindings[index].kind {
                    let at = images::SAMPLER_BYTE as usize;
                    for (word, w) in bytes[at..at + 8].chunks_exact_mut(4).zip(desc.words()) {
                        word.copy_from_slice(&w.to_le_bytes());
                    }
                }
                for level in 0..shape.levels.min(images::MAX_LEVELS) {
                    let at = images::LEVEL_OFFSETS_BYTE as usize + level as usize * 4;
                    let offset = u32::try_from(shape.level_offset(level)).unwrap_or(u32::MAX);
                    bytes[at..at + 4].copy_from_slice(&offset.to_le_bytes());
                }
                bytes[IMAGE_HEADER..].copy_from_slice(data);
                out.push((index, Some(copy), len, p));
                continue;
            }
            let data = &mut bindings[index].data;
            let len = data.len() as u64;
            if (data.as_ptr() as usize).is_multiple_of(64) {
                out.push((index, None, len, data.as_mut_ptr()));
            } else {
                let mut copy = Aligned::zeroed(len)?;
                let p = copy.ptr();
                // The copy's lines hold at least `len` bytes.
                let bytes: &mut [u8] = bytemuck_lines(&mut copy.words, data.len());
                bytes.copy_from_slice(data);
                out.push((index, Some(copy), len, p));
            }
        }
        Ok(StagedBuffers { slots: out })
    }

    fn slots(&self) -> Vec<BufferSlot> {
        self.slots.iter().map(|&(_, _, len, p)| BufferSlot { base: p, bytes: len }).collect()
    }

    fn write_back(mut self, bindings: &mut [Binding]) {
        for (index, copy, _, _) in self.slots.iter_mut() {
            if let Some(copy) = copy {
                // Every image kind was staged after its header (a sampled image's bytes
                // too, though the shader cannot change them).
                let skip = if matches!(
                    bindings[*index].kind,
                    BufferKind::StorageImage(_)
                        | BufferKind::SampledImage(_)
                        | BufferKind::CombinedImageSampler(..)
                ) {
                    IMAGE_HEADER
                } else {
                    0
                };
                let data = &mut bindings[*index].data;
                let n = data.len();
                data.copy_from_slice(&bytemuck_lines(&mut copy.words, skip + n)[skip..]);
            }
        }
    }
}

/// The first `len` bytes of 64-byte lines, as bytes.
fn bytemuck_lines(lines: &mut [[u64; 8]], len: usize) -> &mut [u8] {
    let total = lines.len() * 64;
    assert!(len <= total);
    #[allow(unsafe_code)]
    // SAFETY: `[u64; 8]` has no padding and any byte pattern is valid; the slice covers
    // `total` initialized bytes of the same allocation, borrowed mutably for its life.
    let bytes = unsafe { std::slice::from_raw_parts_mut(lines.as_mut_ptr().cast::<u8>(), total) };
    &mut bytes[..len]
}
