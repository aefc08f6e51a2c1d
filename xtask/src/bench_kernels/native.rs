//! The kernels as plain Rust loops on all cores (`std::thread::scope`), the benchmark's
//! native column. Each computes what one dispatch of its HLSL kernel computes, with the
//! same arithmetic where the result depends on it:
//!
//! - saxpy: `y += a * x`, unfused (Rust never contracts a multiply and an add);
//! - reduce: per 256-element block, the kernel's tree (stride 128, 64, ..., 1), so the
//!   partial sums are the same floats;
//! - histogram: per-thread bins added to the shared ones at the end (the kernel's one
//!   atomic add per element on shared bins is a GPU's way; see [`histogram`]);
//! - scan: per 256-element block, a sequential inclusive sum (the same integers as the
//!   kernel's Hillis-Steele steps, with the work a CPU would do);
//! - matmul (both kernels): each C element summed over k = 0 .. N-1 in order, computed a row
//!   at a time (the k loop outside the column loop, so the column loop vectorizes);
//! - mandelbrot: the kernel's f32 steps, unfused, 8 pixels per AVX2 vector where the CPU has
//!   it (the vector form does exactly the scalar operations, lane by lane).
//!
//! The loops are compiled twice: plainly, and for AVX2 + FMA, picked at run time
//! (`Isa::detect`), as `target-cpu=native` would do for this machine.

use super::spec::{MANDELBROT_MAX_ITER, SAXPY_A};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// Which compiled form of the loops runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// The build's baseline (x86-64: SSE2).
    Baseline,
    /// AVX2 and FMA, checked present at run time.
    Avx2,
}

impl Isa {
    /// The best form this CPU runs.
    pub fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            return Isa::Avx2;
        }
        Isa::Baseline
    }

    pub fn name(self) -> &'static str {
        match self {
            Isa::Baseline => "baseline",
            Isa::Avx2 => "avx2+fma",
        }
    }
}

/// Calls `$body(args)` compiled for the chosen ISA. `$avx2` is a `#[target_feature]`
/// copy of the body; it is only called when `Isa::detect` found the features.
macro_rules! with_isa {
    ($isa:expr, $body:ident, $avx2:ident, ($($arg:expr),*)) => {{
        match $isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx2` is only produced by `Isa::detect` on a CPU with AVX2 and FMA.
            Isa::Avx2 => unsafe { $avx2($($arg),*) },
            _ => $body($($arg),*),
        }
    }};
}

/// Runs `work` on every `chunk`-sized piece of `data` (the last may be shorter) on
/// `threads` threads; pieces are handed out one at a time, so uneven pieces balance.
/// `work` gets the piece's index.
fn par_chunks_mut<T: Send>(
    data: &mut [T],
    chunk: usize,
    threads: usize,
    work: impl Fn(usize, &mut [T]) + Sync,
) {
    let pieces = Mutex::new(data.chunks_mut(chunk.max(1)).enumerate());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let next = pieces.lock().unwrap_or_else(|e| e.into_inner()).next();
                let Some((index, piece)) = next else { break };
                work(index, piece);
            });
        }
    });
}

// ---- saxpy ----

#[inline(always)]
fn saxpy_body(a: f32, x: &[f32], y: &mut [f32]) {
    for (y, &x) in y.iter_mut().zip(x) {
        *y += a * x;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn saxpy_avx2(a: f32, x: &[f32], y: &mut [f32]) {
    saxpy_body(a, x, y)
}

/// One saxpy dispatch: `y[i] = SAXPY_A * x[i] + y[i]`.
pub fn saxpy(isa: Isa, threads: usize, x: &[f32], y: &mut [f32]) {
    const CHUNK: usize = 1 << 16;
    par_chunks_mut(y, CHUNK, threads, |index, y| {
        let x = &x[index * CHUNK..][..y.len()];
        with_isa!(isa, saxpy_body, saxpy_avx2, (SAXPY_A, x, y))
    });
}

// ---- reduce ----

#[inline(always)]
fn reduce_body(first_group: usize, src: &[f32], partial: &mut [f32]) {
    for (g, out) in partial.iter_mut().enumerate() {
        let start = (first_group + g) * 256;
        let mut block = [0.0f32; 256];
        let end = src.len().min(start + 256);
        block[..end - start].copy_from_slice(&src[start..end]);
        let mut stride = 128;
        while stride > 0 {
            let (low, high) = block.split_at_mut(stride);
            for (l, h) in low.iter_mut().zip(&high[..stride]) {
                *l += *h;
            }
            stride >>= 1;
        }
        *out = block[0];
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn reduce_avx2(first_group: usize, src: &[f32], partial: &mut [f32]) {
    reduce_body(first_group, src, partial)
}

/// One reduce dispatch: `partial[g]` = the tree sum of `src[g*256 .. g*256+255]` (zeros
/// past the end). `partial` has `ceil(src.len() / 256)` elements.
pub fn reduce(isa: Isa, threads: usize, src: &[f32], partial: &mut [f32]) {
    const CHUNK: usize = 256;
    par_chunks_mut(partial, CHUNK, threads, |index, partial| {
        with_isa!(isa, reduce_body, reduce_avx2, (index * CHUNK, src, partial))
    });
}

// ---- histogram ----

#[inline(always)]
fn histogram_body(data: &[u32], bins: &mut [u32; 256]) {
    for &v in data {
        bins[(v & 255) as usize] += 1;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn histogram_avx2(data: &[u32], bins: &mut [u32; 256]) {
    histogram_body(data, bins)
}

/// One histogram dispatch: `bins[v & 255] += 1` for every `v`. The plain loop a CPU
/// runs: each thread counts into its own 256 bins, added to the shared bins (which
/// accumulate across dispatches, as the kernel's do) once at its end. (The kernel's
/// one atomic add per element on the shared bins costs 2 threads 15-30x more here: the
/// bins' cache lines move between the cores on almost every element.)
pub fn histogram(isa: Isa, threads: usize, data: &[u32], bins: &[AtomicU32; 256]) {
    const CHUNK: usize = 1 << 16;
    let pieces = Mutex::new(data.chunks(CHUNK));
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                let mut own = [0u32; 256];
                loop {
                    let next = pieces.lock().unwrap_or_else(|e| e.into_inner()).next();
                    let Some(piece) = next else { break };
                    with_isa!(isa, histogram_body, histogram_avx2, (piece, &mut own));
                }
                for (bin, count) in bins.iter().zip(own) {
                    bin.fetch_add(count, Ordering::Relaxed);
                }
            });
        }
    });
}

// ---- scan ----

#[inline(always)]
fn scan_body(src: &[u32], dst: &mut [u32]) {
    for (src, dst) in src.chunks(256).zip(dst.chunks_mut(256)) {
        let mut sum = 0u32;
        for (s, d) in src.iter().zip(dst) {
            sum = sum.wrapping_add(*s);
            *d = sum;
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn scan_avx2(src: &[u32], dst: &mut [u32]) {
    scan_body(src, dst)
}

/// One scan dispatch: the inclusive prefix sum (mod 2^32) within each block of 256.
pub fn scan(isa: Isa, threads: usize, src: &[u32], dst: &mut [u32]) {
    const CHUNK: usize = 256 * 256;
    par_chunks_mut(dst, CHUNK, threads, |index, dst| {
        let src = &src[index * CHUNK..][..dst.len()];
        with_isa!(isa, scan_body, scan_avx2, (src, dst))
    });
}

// ---- matmul ----

#[inline(always)]
fn matmul_body(n: usize, first_row: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    for (r, c_row) in c.chunks_mut(n).enumerate() {
        let a_row = &a[(first_row + r) * n..][..n];
        c_row.fill(0.0);
        for (k, &a_rk) in a_row.iter().enumerate() {
            let b_row = &b[k * n..][..n];
            for (acc, &b_kc) in c_row.iter_mut().zip(b_row) {
                *acc += a_rk * b_kc;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn matmul_avx2(n: usize, first_row: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    matmul_body(n, first_row, a, b, c)
}

/// One matmul dispatch: `c = a * b` for row-major `n` x `n` matrices.
pub fn matmul(isa: Isa, threads: usize, n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    const ROWS: usize = 4;
    par_chunks_mut(c, ROWS * n, threads, |index, c| {
        with_isa!(isa, matmul_body, matmul_avx2, (n, index * ROWS, a, b, c))
    });
}

// ---- mandelbrot ----

/// The kernel's per-pixel computation, operation for operation.
#[inline(always)]
fn mandelbrot_pixel(n: usize, x: usize, y: usize) -> u32 {
    let scale = 3.0f32 / n as f32;
    let cx = -2.0f32 + (x as f32 + 0.5) * scale;
    let cy = -1.5f32 + (y as f32 + 0.5) * scale;
    let (mut zx, mut zy) = (0.0f32, 0.0f32);
    let mut it = 0;
    while it < MANDELBROT_MAX_ITER {
        let xx = zx * zx;
        let yy = zy * zy;
        if xx + yy > 4.0 {
            break;
        }
        let xy = zx * zy;
        zy = xy + xy + cy;
        zx = xx - yy + cx;
        it += 1;
    }
    it
}

#[inline(always)]
fn mandelbrot_body(n: usize, y: usize, row: &mut [u32]) {
    for (x, pixel) in row.iter_mut().enumerate() {
        *pixel = mandelbrot_pixel(n, x, y);
    }
}

/// Eight pixels of a row per vector: each lane does the scalar steps (no fused
/// operations, so the counts are the same), and stops counting once it escaped.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn mandelbrot_avx2(n: usize, y: usize, row: &mut [u32]) {
    use std::arch::x86_64::*;
    let scale = 3.0f32 / n as f32;
    let cy = _mm256_set1_ps(-1.5f32 + (y as f32 + 0.5) * scale);
    let scale = _mm256_set1_ps(scale);
    let four = _mm256_set1_ps(4.0);
    let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (block, pixels) in row.chunks_mut(8).enumerate() {
        let xs = _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32((block * 8) as i32), lane));
        let cx =
            _mm256_add_ps(_mm256_set1_ps(-2.0), _mm256_mul_ps(_mm256_add_ps(xs, _mm256_set1_ps(0.5)), scale));
        let (mut zx, mut zy) = (_mm256_setzero_ps(), _mm256_setzero_ps());
        let mut counts = _mm256_setzero_si256();
        let mut active = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
        for _ in 0..MANDELBROT_MAX_ITER {
            let xx = _mm256_mul_ps(zx, zx);
            let yy = _mm256_mul_ps(zy, zy);
            let escaped = _mm256_cmp_ps::<_CMP_GT_OQ>(_mm256_add_ps(xx, yy), four);
            active = _mm256_andnot_ps(escaped, active);
            if _mm256_movemask_ps(active) == 0 {
                break;
            }
            let xy = _mm256_mul_ps(zx, zy);
            zy = _mm256_add_ps(_mm256_add_ps(xy, xy), cy);
            zx = _mm256_add_ps(_mm256_sub_ps(xx, yy), cx);
            // An active lane's mask is -1: subtracting it counts the step.
            counts = _mm256_sub_epi32(counts, _mm256_castps_si256(active));
        }
        let mut lanes = [0u32; 8];
        // SAFETY: `lanes` is 32 writable bytes; the store is unaligned.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), counts) };
        pixels.copy_from_slice(&lanes[..pixels.len()]);
    }
}

/// One mandelbrot dispatch: the iteration counts of the `n` x `n` image.
pub fn mandelbrot(isa: Isa, threads: usize, n: usize, img: &mut [u32]) {
    par_chunks_mut(img, n, threads, |y, row| with_isa!(isa, mandelbrot_body, mandelbrot_avx2, (n, y, row)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench_kernels::spec::{init_f32, init_u32, Init};

    /// Both compiled forms, on 1 and 3 threads.
    fn variants() -> Vec<(Isa, usize)> {
        let mut isas = vec![Isa::Baseline];
        if Isa::detect() == Isa::Avx2 {
            isas.push(Isa::Avx2);
        }
        isas.into_iter().flat_map(|isa| [(isa, 1), (isa, 3)]).collect()
    }

    fn random_f32(seed: u64, count: usize) -> Vec<f32> {
        init_f32(Init::Random { seed }, count)
    }

    #[test]
    fn saxpy_matches_a_sequential_loop() {
        let n = 200_003;
        let x = random_f32(1, n);
        let y0 = random_f32(2, n);
        let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| 1.5 * x + y).collect();
        for (isa, threads) in variants() {
            let mut y = y0.clone();
            saxpy(isa, threads, &x, &mut y);
            assert_eq!(y, want, "{isa:?} on {threads} threads");
        }
    }

    /// The kernel's tree, written as a GPU runs it: 256 lanes, one step at a time.
    fn tree_sum(block: &[f32]) -> f32 {
        let mut lanes = [0.0f32; 256];
        lanes[..block.len()].copy_from_slice(block);
        let mut stride = 128;
        while stride > 0 {
            let before = lanes;
            for i in 0..stride {
                lanes[i] = before[i] + before[i + stride];
            }
            stride /= 2;
        }
        lanes[0]
    }

    #[test]
    fn reduce_gives_the_kernels_partial_sums() {
        for n in [1usize, 255, 256, 257, 256 * 300 + 17] {
            let src = random_f32(3, n);
            let want: Vec<f32> = src.chunks(256).map(tree_sum).collect();
            for (isa, threads) in variants() {
                let mut partial = vec![f32::NAN; n.div_ceil(256)];
                reduce(isa, threads, &src, &mut partial);
                assert_eq!(partial, want, "n = {n}, {isa:?} on {threads} threads");
            }
        }
        // The tree is a sum: close to the plain one.
        let src = random_f32(4, 256);
        let plain: f32 = src.iter().sum();
        assert!((tree_sum(&src) - plain).abs() < 1e-3);
    }

    #[test]
    fn histogram_counts_low_bytes_and_accumulates() {
        let data = init_u32(Init::Random { seed: 5 }, 100_001);
        let mut want = [0u32; 256];
        for v in &data {
            want[(v & 255) as usize] += 1;
        }
        for (isa, threads) in variants() {
            let bins: [AtomicU32; 256] = std::array::from_fn(|_| AtomicU32::new(0));
            histogram(isa, threads, &data, &bins);
            histogram(isa, threads, &data, &bins);
            let got: Vec<u32> = bins.iter().map(|b| b.load(Ordering::Relaxed)).collect();
            let twice: Vec<u32> = want.iter().map(|c| 2 * c).collect();
            assert_eq!(got, twice, "{isa:?} on {threads} threads");
        }
    }

    #[test]
    fn scan_is_inclusive_per_block_and_wraps() {
        let n = 256 * 260 + 5;
        let src = init_u32(Init::Random { seed: 6 }, n);
        let mut want = vec![0u32; n];
        for i in 0..n {
            want[i] = if i % 256 == 0 { src[i] } else { want[i - 1].wrapping_add(src[i]) };
        }
        // Random 32-bit values wrap within a few elements.
        assert!(want[..256].windows(2).any(|w| w[1] < w[0]));
        for (isa, threads) in variants() {
            let mut dst = vec![0u32; n];
            scan(isa, threads, &src, &mut dst);
            assert_eq!(dst, want, "{isa:?} on {threads} threads");
        }
    }

    #[test]
    fn matmul_sums_in_k_order() {
        for n in [1usize, 5, 16, 37] {
            let a = random_f32(1, n * n);
            let b = random_f32(2, n * n);
            let mut want = vec![0.0f32; n * n];
            for row in 0..n {
                for col in 0..n {
                    let mut acc = 0.0f32;
                    for k in 0..n {
                        acc += a[row * n + k] * b[k * n + col];
                    }
                    want[row * n + col] = acc;
                }
            }
            for (isa, threads) in variants() {
                let mut c = vec![f32::NAN; n * n];
                matmul(isa, threads, n, &a, &b, &mut c);
                assert_eq!(c, want, "n = {n}, {isa:?} on {threads} threads");
            }
        }
        // The identity leaves a matrix as it is.
        let n = 3;
        let a = random_f32(9, n * n);
        let identity: Vec<f32> = (0..n * n).map(|i| if i % (n + 1) == 0 { 1.0 } else { 0.0 }).collect();
        let mut c = vec![0.0; n * n];
        matmul(Isa::Baseline, 2, n, &a, &identity, &mut c);
        assert_eq!(c, a);
    }

    #[test]
    fn mandelbrot_vector_form_counts_like_the_scalar_one() {
        for n in [1usize, 7, 16, 61] {
            let want: Vec<u32> = (0..n * n).map(|i| mandelbrot_pixel(n, i % n, i / n)).collect();
            for (isa, threads) in variants() {
                let mut img = vec![u32::MAX; n * n];
                mandelbrot(isa, threads, n, &mut img);
                assert_eq!(img, want, "n = {n}, {isa:?} on {threads} threads");
            }
        }
        // Known points of a 3 x 3 image (scale 1): the centre is c = (-0.5, 0), inside the
        // main cardioid; the corner c = (-1.5, -1) has |z2|^2 = 4.0625 after 2 steps.
        assert_eq!(mandelbrot_pixel(3, 1, 1), 256);
        assert_eq!(mandelbrot_pixel(3, 0, 0), 2);
    }
}
