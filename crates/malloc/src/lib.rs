//! The global allocator of spirvkit's binaries: mimalloc (v2), called through its
//! plain entry points for what needs no more than the 8-byte alignment every
//! mimalloc block has, which is almost every allocation here. (`mimalloc::MiMalloc`
//! always takes the aligned entry points, which check the alignment on each call:
//! about 2% of the instructions of `spirvkit translate` on a large module.)

use libmimalloc_sys as mi;
use std::alloc::{GlobalAlloc, Layout};

/// Every mimalloc block is aligned to at least this.
const BLOCK_ALIGN: usize = 8;

pub struct Mimalloc;

// SAFETY: every block comes from mimalloc and goes back to it; a layout aligned to
// more than `BLOCK_ALIGN` takes mimalloc's aligned entry points, as
// `mimalloc::MiMalloc` does for all.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            mi::mi_malloc(layout.size()).cast()
        } else {
            mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            mi::mi_zalloc(layout.size()).cast()
        } else {
            mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi::mi_free(ptr.cast());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            mi::mi_realloc(ptr.cast(), new_size).cast()
        } else {
            mi::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_have_the_alignment_asked_for() {
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1, 3, 8, 24, 40, 100, 5000, 1 << 20] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero size; each block is freed with its layout.
                unsafe {
                    let p = Mimalloc.alloc(layout);
                    assert!(!p.is_null() && (p as usize).is_multiple_of(align), "alloc {size} {align}");
                    let q = Mimalloc.realloc(p, layout, size * 3);
                    assert!(!q.is_null() && (q as usize).is_multiple_of(align), "realloc {size} {align}");
                    Mimalloc.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                    let z = Mimalloc.alloc_zeroed(layout);
                    assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                    Mimalloc.dealloc(z, layout);
                }
            }
        }
    }
}
