//! The threads of spirvkit's two-core paths (reading, parsing, verifying and
//! printing a large module in halves): how many cores the process may use, and
//! starting the second thread of such a pair.
//!
//! Why starting needs care: a kernel that packs a small machine's threads onto as
//! few CPUs as it can (seen on 2-vCPU Firecracker guests) queues a new thread
//! behind the thread that started it, on the same CPU, until a balancing pass moves
//! it: measured there, a new thread began running 1.1 ms after it was started at
//! the median and 3 ms at worst (when the starter kept its CPU that long), the
//! length of a large module's verification. [`spawn_scoped`] starts the new thread
//! on the CPU the calling thread was on and moves the calling thread to the other
//! one: the new thread runs within ~40 µs and the caller goes on within ~80 µs. It
//! does so only when the process may run on exactly two CPUs, where "the other CPU"
//! is the only choice; with more, the kernel places the thread. Each thread leaves
//! with the CPU mask it had: this only chooses where the new thread starts.

use std::thread::{Scope, ScopedJoinHandle};

/// The cores this process may use, asked once (the answer takes a dozen system
/// calls on a cgroup v1 machine: a tenth of a small translation's time).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Whether the process has two cores for a pair of threads.
pub fn two_cores() -> bool {
    cores() >= 2
}

/// Starts `f` on a new scoped thread meant to run beside the calling one, on the
/// other CPU when the process may run on exactly two (see the crate documentation).
/// An error only when no thread could be started.
pub fn spawn_scoped<'scope, 'env, T: Send + 'scope>(
    scope: &'scope Scope<'scope, 'env>,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::io::Result<ScopedJoinHandle<'scope, T>> {
    let builder = std::thread::Builder::new();
    match pair::Placement::begin() {
        Some(placement) => {
            let mask = placement.mask();
            let handle = builder.spawn_scoped(scope, move || {
                pair::restore(&mask);
                f()
            });
            match handle {
                Ok(_) => placement.finish(),
                Err(_) => placement.cancel(),
            }
            handle
        }
        None => builder.spawn_scoped(scope, f),
    }
}

#[cfg(target_os = "linux")]
mod pair {
    /// A CPU mask as the kernel takes it (glibc's `cpu_set_t`: 1024 CPUs).
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    #[repr(C)]
    pub struct CpuSet([u64; 16]);

    impl CpuSet {
        const BITS: usize = 64;

        fn only(cpu: usize) -> Option<CpuSet> {
            let mut set = CpuSet([0; 16]);
            *set.0.get_mut(cpu / Self::BITS)? |= 1 << (cpu % Self::BITS);
            Some(set)
        }

        fn cpus(&self) -> impl Iterator<Item = usize> + '_ {
            (0..self.0.len() * Self::BITS)
                .filter(|&cpu| self.0[cpu / Self::BITS] >> (cpu % Self::BITS) & 1 == 1)
        }
    }

    extern "C" {
        fn sched_getcpu() -> i32;
        fn sched_getaffinity(pid: i32, size: usize, mask: *mut CpuSet) -> i32;
        fn sched_setaffinity(pid: i32, size: usize, mask: *const CpuSet) -> i32;
    }

    /// The calling thread's CPU mask.
    fn mask_of_this_thread() -> Option<CpuSet> {
        let mut mask = CpuSet([0; 16]);
        // SAFETY: the kernel writes at most `size_of::<CpuSet>()` bytes into `mask`;
        // pid 0 is the calling thread.
        let status = unsafe { sched_getaffinity(0, std::mem::size_of::<CpuSet>(), &mut mask) };
        (status == 0).then_some(mask)
    }

    /// Sets the calling thread's CPU mask; whether the kernel took it.
    fn set_mask_of_this_thread(mask: &CpuSet) -> bool {
        // SAFETY: the kernel reads `size_of::<CpuSet>()` bytes of `mask`; pid 0 is
        // the calling thread.
        unsafe { sched_setaffinity(0, std::mem::size_of::<CpuSet>(), mask) == 0 }
    }

    /// The CPU the calling thread runs on.
    fn this_cpu() -> Option<usize> {
        // SAFETY: no arguments; -1 on failure.
        usize::try_from(unsafe { sched_getcpu() }).ok()
    }

    /// A new thread being placed: while it lives, the calling thread is held to its
    /// CPU, so that a thread started now is queued there.
    pub struct Placement {
        mask: CpuSet,
        other: CpuSet,
    }

    impl Placement {
        /// Holds the calling thread to its CPU when the process may run on exactly
        /// two; `None` (nothing changed) otherwise, or when the kernel refuses.
        pub fn begin() -> Option<Placement> {
            let mask = mask_of_this_thread()?;
            let mut cpus = mask.cpus();
            let (Some(a), Some(b), None) = (cpus.next(), cpus.next(), cpus.next()) else { return None };
            let here = this_cpu()?;
            let other = match here {
                _ if here == a => b,
                _ if here == b => a,
                _ => return None,
            };
            let (here, other) = (CpuSet::only(here)?, CpuSet::only(other)?);
            set_mask_of_this_thread(&here).then_some(Placement { mask, other })
        }

        /// The mask the new thread restores once it runs.
        pub fn mask(&self) -> CpuSet {
            self.mask
        }

        /// Moves the calling thread to the other CPU, leaving its own to the thread
        /// just started, then gives it back its mask.
        pub fn finish(self) {
            set_mask_of_this_thread(&self.other);
            self.cancel();
        }

        /// Gives the calling thread back its mask (no thread was started).
        pub fn cancel(self) {
            set_mask_of_this_thread(&self.mask);
        }
    }

    /// Gives the calling (new) thread the mask its starter had.
    pub fn restore(mask: &CpuSet) {
        set_mask_of_this_thread(mask);
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn masks_name_their_cpus() {
            let set = CpuSet::only(65).unwrap();
            assert_eq!(set.cpus().collect::<Vec<_>>(), [65]);
            assert!(CpuSet::only(1024).is_none());
        }

        #[test]
        fn a_placed_thread_starts_on_the_cpu_its_starter_leaves() {
            let Some(placement) = Placement::begin() else { return };
            let here = this_cpu();
            let mask = placement.mask();
            let started = std::thread::spawn(move || {
                // Still held to the starter's CPU, as placed.
                let cpu = this_cpu();
                restore(&mask);
                cpu
            });
            placement.finish();
            assert_eq!(started.join().unwrap(), here);
        }

        #[test]
        fn a_placement_gives_the_mask_back() {
            let before = mask_of_this_thread().unwrap();
            if let Some(placement) = Placement::begin() {
                assert_eq!(mask_of_this_thread().unwrap().cpus().count(), 1);
                placement.finish();
            }
            assert_eq!(mask_of_this_thread().unwrap(), before);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod pair {
    /// Elsewhere the kernel places new threads.
    pub enum Placement {}

    impl Placement {
        pub fn begin() -> Option<Placement> {
            None
        }

        pub fn mask(&self) {
            match *self {}
        }

        pub fn finish(self) {
            match self {}
        }

        pub fn cancel(self) {
            match self {}
        }
    }

    pub fn restore(_: &()) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_run_and_give_the_mask_back() {
        let words = [1u32, 2, 3];
        let sum = std::thread::scope(|scope| {
            let handle = spawn_scoped(scope, || words.iter().sum::<u32>()).unwrap();
            handle.join().unwrap()
        });
        assert_eq!(sum, 6);
        assert!(cores() >= 1);
    }
}
