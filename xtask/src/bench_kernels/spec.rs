//! The seven kernels of `../shared/kernels` as data: their buffers, dispatch shapes, problem
//! sizes and how their outputs are compared, as each file's header states them; and the
//! issue's INIT rule (`random:SEED`), so that the native loops and `spirvkit run` start from
//! the same bytes.

/// Workgroups per row of the 1-D kernels' 2-D grid (`ROW_GROUPS` in their source).
pub const ROW_GROUPS: u32 = 1024;
/// Invocations per workgroup of the 1-D kernels.
pub const GROUP_1D: u32 = 256;
/// Side of the 2-D kernels' square workgroups.
pub const GROUP_2D: u32 = 16;
/// saxpy's `a` (exact in binary, so its text form is unambiguous).
pub const SAXPY_A: f32 = 1.5;
/// mandelbrot's iteration cap (`MAX_ITER`).
pub const MANDELBROT_MAX_ITER: u32 = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Saxpy,
    Reduce,
    Histogram,
    Scan,
    MatmulNaive,
    MatmulTiled,
    Mandelbrot,
}

pub const ALL: [Kernel; 7] = [
    Kernel::Saxpy,
    Kernel::Reduce,
    Kernel::Histogram,
    Kernel::Scan,
    Kernel::MatmulNaive,
    Kernel::MatmulTiled,
    Kernel::Mandelbrot,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    F32,
    U32,
}

impl ElemType {
    /// As `spirvkit run`'s `--buf` spells it.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::F32 => "f32",
            ElemType::U32 => "u32",
        }
    }
}

/// A buffer's initial contents (the issue's INIT forms the benchmark uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    Zero,
    Random { seed: u64 },
}

impl Init {
    /// As `spirvkit run`'s `--buf` spells it.
    pub fn arg(self) -> String {
        match self {
            Init::Zero => "zero".into(),
            Init::Random { seed } => format!("random:{seed}"),
        }
    }
}

/// A storage buffer of a kernel (binding 0 is always the 16-byte `Params` uniform buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageBuffer {
    pub binding: u32,
    pub elem: ElemType,
    pub count: usize,
    pub init: Init,
    /// Whether the kernel writes it (its contents are the kernel's result).
    pub output: bool,
}

/// How a kernel's output is compared with the native result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Agreement {
    /// Bit for bit (integers; mandelbrot's `precise` arithmetic).
    Exact,
    /// Floats within `|got - want| <= rel * |want|`.
    Relative(f64),
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Saxpy => "saxpy",
            Kernel::Reduce => "reduce",
            Kernel::Histogram => "histogram",
            Kernel::Scan => "scan",
            Kernel::MatmulNaive => "matmul_naive",
            Kernel::MatmulTiled => "matmul_tiled",
            Kernel::Mandelbrot => "mandelbrot",
        }
    }

    pub fn from_name(name: &str) -> Option<Kernel> {
        ALL.into_iter().find(|k| k.name() == name)
    }

    /// N of the README's reference measurements.
    pub fn default_n(self) -> u32 {
        match self {
            Kernel::Saxpy => 33_554_432,
            Kernel::Reduce => 4_194_304,
            Kernel::Histogram => 8_388_608,
            Kernel::Scan => 2_097_152,
            Kernel::MatmulNaive | Kernel::MatmulTiled => 384,
            Kernel::Mandelbrot => 2048,
        }
    }

    fn is_2d(self) -> bool {
        matches!(self, Kernel::MatmulNaive | Kernel::MatmulTiled | Kernel::Mandelbrot)
    }

    /// The exponent of N in the work of a dispatch (N, N^2 pixels, N^3 multiply-adds).
    fn work_exponent(self) -> i32 {
        match self {
            Kernel::MatmulNaive | Kernel::MatmulTiled => 3,
            Kernel::Mandelbrot => 2,
            _ => 1,
        }
    }

    /// N for `--scale F`: the work per dispatch is scaled by F (so N by F, F^(1/2) or
    /// F^(1/3)), never below 1.
    pub fn scaled_n(self, scale: f64) -> u32 {
        let factor = scale.powf(1.0 / f64::from(self.work_exponent()));
        let n = (f64::from(self.default_n()) * factor).round();
        n.clamp(1.0, f64::from(u32::MAX)) as u32
    }

    /// Workgroup counts for problem size `n`, by the formula of the kernel's header.
    pub fn groups(self, n: u32) -> [u32; 3] {
        if self.is_2d() {
            let side = n.div_ceil(GROUP_2D);
            [side, side, 1]
        } else {
            let g = n.div_ceil(GROUP_1D);
            [g.min(ROW_GROUPS), g.div_ceil(ROW_GROUPS), 1]
        }
    }

    /// The workgroup shape of the kernel's `numthreads`.
    pub fn workgroup(self) -> [u32; 3] {
        if self.is_2d() {
            [GROUP_2D, GROUP_2D, 1]
        } else {
            [GROUP_1D, 1, 1]
        }
    }

    /// `spirvkit run`'s `--ubo` argument for the `Params` buffer (16 bytes, as declared).
    pub fn ubo_arg(self, n: u32) -> String {
        if self == Kernel::Saxpy {
            format!("0:u32={n},f32={SAXPY_A},u32=0,u32=0")
        } else {
            format!("0:u32={n},u32=0,u32=0,u32=0")
        }
    }

    /// The storage buffers for problem size `n`, in binding order. Random inputs are
    /// seeded with their binding number.
    pub fn buffers(self, n: u32) -> Vec<StorageBuffer> {
        let n = n as usize;
        let random = |binding: u32| Init::Random { seed: u64::from(binding) };
        let input = |binding, elem, count| StorageBuffer {
            binding,
            elem,
            count,
            init: random(binding),
            output: false,
        };
        let output = |binding, elem, count, init| StorageBuffer { binding, elem, count, init, output: true };
        match self {
            Kernel::Saxpy => vec![input(1, ElemType::F32, n), output(2, ElemType::F32, n, random(2))],
            Kernel::Reduce => {
                vec![input(1, ElemType::F32, n), output(2, ElemType::F32, n.div_ceil(256), Init::Zero)]
            }
            Kernel::Histogram => vec![input(1, ElemType::U32, n), output(2, ElemType::U32, 256, Init::Zero)],
            Kernel::Scan => vec![input(1, ElemType::U32, n), output(2, ElemType::U32, n, Init::Zero)],
            Kernel::MatmulNaive | Kernel::MatmulTiled => vec![
                input(1, ElemType::F32, n * n),
                input(2, ElemType::F32, n * n),
                output(3, ElemType::F32, n * n, Init::Zero),
            ],
            Kernel::Mandelbrot => vec![output(1, ElemType::U32, n * n, Init::Zero)],
        }
    }

    /// How the output is compared with the native loops' result. Float sums may be
    /// contracted to fused multiply-adds by a driver (only mandelbrot is `precise`); the
    /// tolerances bound that: saxpy one rounding per dispatch, matmul N = 384 products of
    /// values in [0, 1) (all terms positive, so no cancellation), reduce a tree of adds
    /// in the same order as the native one.
    pub fn agreement(self) -> Agreement {
        match self {
            Kernel::Histogram | Kernel::Scan | Kernel::Mandelbrot => Agreement::Exact,
            Kernel::Saxpy | Kernel::Reduce => Agreement::Relative(1e-5),
            Kernel::MatmulNaive | Kernel::MatmulTiled => Agreement::Relative(1e-4),
        }
    }

    /// The issue's targets for `--device cpu`, as text for the report.
    pub fn targets(self) -> Vec<Target> {
        let mut targets = vec![Target::FasterThanLavapipe(1.0)];
        if matches!(self, Kernel::Reduce | Kernel::Scan | Kernel::MatmulTiled | Kernel::Histogram) {
            targets = vec![Target::FasterThanLavapipe(10.0)];
        }
        if matches!(self, Kernel::Saxpy | Kernel::Reduce) {
            targets.push(Target::WithinOfNative(3.0));
        }
        targets
    }
}

/// A target of issue 17 for the CPU device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// lavapipe's median / cpu's median at least this.
    FasterThanLavapipe(f64),
    /// cpu's median / native's median at most this.
    WithinOfNative(f64),
}

impl Target {
    pub fn describe(self) -> String {
        match self {
            Target::FasterThanLavapipe(x) if x <= 1.0 => "faster than lavapipe".into(),
            Target::FasterThanLavapipe(x) => format!(">= {x}x lavapipe"),
            Target::WithinOfNative(x) => format!("<= {x}x native"),
        }
    }

    /// Whether the medians meet it; `None` when a figure is missing.
    pub fn met(self, cpu_ms: Option<f64>, lavapipe_ms: Option<f64>, native_ms: Option<f64>) -> Option<bool> {
        match self {
            Target::FasterThanLavapipe(x) => {
                let speedup = lavapipe_ms? / cpu_ms?;
                // "Faster" is strict; "at least 10x" is not.
                Some(if x <= 1.0 { speedup > 1.0 } else { speedup >= x })
            }
            Target::WithinOfNative(x) => Some(cpu_ms? / native_ms? <= x),
        }
    }
}

/// splitmix64 from `seed`, one draw per element: the issue's `random:SEED`.
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// An f32 in [0, 1): the top 24 bits times 2^-24.
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / 16_777_216.0)
    }

    /// A 32-bit integer: the top 32 bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }
}

/// `count` f32 values of `init`.
pub fn init_f32(init: Init, count: usize) -> Vec<f32> {
    match init {
        Init::Zero => vec![0.0; count],
        Init::Random { seed } => {
            let mut rng = SplitMix64::new(seed);
            (0..count).map(|_| rng.next_f32()).collect()
        }
    }
}

/// `count` u32 values of `init`.
pub fn init_u32(init: Init, count: usize) -> Vec<u32> {
    match init {
        Init::Zero => vec![0; count],
        Init::Random { seed } => {
            let mut rng = SplitMix64::new(seed);
            (0..count).map(|_| rng.next_u32()).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        // The first outputs of splitmix64 seeded with 0 (Vigna's reference code).
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn init_draws_follow_the_issue_rule() {
        let mut rng = SplitMix64::new(7);
        let draws: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        let floats = init_f32(Init::Random { seed: 7 }, 3);
        let ints = init_u32(Init::Random { seed: 7 }, 3);
        for i in 0..3 {
            assert_eq!(floats[i], (draws[i] >> 40) as f32 / 16_777_216.0);
            assert!((0.0..1.0).contains(&floats[i]));
            assert_eq!(ints[i], (draws[i] >> 32) as u32);
        }
        assert_eq!(init_u32(Init::Zero, 4), vec![0; 4]);
    }

    #[test]
    fn one_dimensional_dispatch_follows_the_headers() {
        // G = ceil(N / 256); groups = (min(G, 1024), ceil(G / 1024), 1).
        assert_eq!(Kernel::Saxpy.groups(1), [1, 1, 1]);
        assert_eq!(Kernel::Saxpy.groups(256), [1, 1, 1]);
        assert_eq!(Kernel::Saxpy.groups(257), [2, 1, 1]);
        assert_eq!(Kernel::Reduce.groups(256 * 1024), [1024, 1, 1]);
        assert_eq!(Kernel::Reduce.groups(256 * 1024 + 1), [1024, 2, 1]);
        assert_eq!(Kernel::Saxpy.groups(33_554_432), [1024, 128, 1]);
        assert_eq!(Kernel::Histogram.groups(8_388_608), [1024, 32, 1]);
        assert_eq!(Kernel::Scan.groups(2_097_152), [1024, 8, 1]);
        // Every element gets an invocation, and no whole row of groups is idle.
        for n in [1u32, 255, 256, 1000, 262_144, 262_145, 4_194_304, 5_000_001] {
            let [x, y, z] = Kernel::Scan.groups(n);
            let invocations = u64::from(x) * u64::from(y) * u64::from(z) * 256;
            assert!(invocations >= u64::from(n), "n = {n}");
            assert!(u64::from(y - 1) * u64::from(ROW_GROUPS) * 256 < u64::from(n), "n = {n}");
        }
    }

    #[test]
    fn two_dimensional_dispatch_covers_the_square() {
        assert_eq!(Kernel::MatmulNaive.groups(384), [24, 24, 1]);
        assert_eq!(Kernel::MatmulTiled.groups(17), [2, 2, 1]);
        assert_eq!(Kernel::Mandelbrot.groups(2048), [128, 128, 1]);
        assert_eq!(Kernel::Mandelbrot.workgroup(), [16, 16, 1]);
        assert_eq!(Kernel::Scan.workgroup(), [256, 1, 1]);
    }

    #[test]
    fn buffers_are_sized_as_the_headers_say() {
        let reduce = Kernel::Reduce.buffers(1000);
        assert_eq!(
            reduce.iter().map(|b| (b.binding, b.count, b.output)).collect::<Vec<_>>(),
            [(1, 1000, false), (2, 4, true)]
        );
        assert_eq!(Kernel::Histogram.buffers(10)[1].count, 256);
        assert_eq!(Kernel::Histogram.buffers(10)[1].init, Init::Zero);
        let matmul = Kernel::MatmulTiled.buffers(5);
        assert_eq!(matmul.iter().map(|b| b.count).collect::<Vec<_>>(), [25, 25, 25]);
        assert_eq!(
            Kernel::Mandelbrot.buffers(3),
            [StorageBuffer { binding: 1, elem: ElemType::U32, count: 9, init: Init::Zero, output: true }]
        );
        // saxpy's y is an input and the output; x and y get different data.
        let saxpy = Kernel::Saxpy.buffers(8);
        assert_eq!(saxpy[1].init, Init::Random { seed: 2 });
        assert_ne!(saxpy[0].init, saxpy[1].init);
        for kernel in ALL {
            assert_eq!(kernel.buffers(7).iter().filter(|b| b.output).count(), 1, "{}", kernel.name());
        }
    }

    #[test]
    fn params_carry_n_and_saxpys_a() {
        assert_eq!(Kernel::Scan.ubo_arg(9), "0:u32=9,u32=0,u32=0,u32=0");
        assert_eq!(Kernel::Saxpy.ubo_arg(9), "0:u32=9,f32=1.5,u32=0,u32=0");
    }

    #[test]
    fn scale_shrinks_the_work_not_just_n() {
        for kernel in ALL {
            assert_eq!(kernel.scaled_n(1.0), kernel.default_n());
        }
        assert_eq!(Kernel::Saxpy.scaled_n(0.01), 335_544);
        assert_eq!(Kernel::MatmulNaive.scaled_n(0.001), 38);
        assert_eq!(Kernel::Mandelbrot.scaled_n(0.01), 205);
        assert_eq!(Kernel::Mandelbrot.scaled_n(0.0), 1);
        assert_eq!(Kernel::from_name("matmul_tiled"), Some(Kernel::MatmulTiled));
        assert_eq!(Kernel::from_name("nope"), None);
    }

    #[test]
    fn targets_are_the_issues() {
        assert_eq!(Kernel::Reduce.targets(), [Target::FasterThanLavapipe(10.0), Target::WithinOfNative(3.0)]);
        assert_eq!(Kernel::Mandelbrot.targets(), [Target::FasterThanLavapipe(1.0)]);
        let ten = Target::FasterThanLavapipe(10.0);
        assert_eq!(ten.met(Some(1.0), Some(10.0), None), Some(true));
        assert_eq!(ten.met(Some(1.0), Some(9.9), None), Some(false));
        assert_eq!(ten.met(None, Some(9.9), None), None);
        let faster = Target::FasterThanLavapipe(1.0);
        assert_eq!(faster.met(Some(2.0), Some(2.0), None), Some(false));
        assert_eq!(faster.met(Some(1.9), Some(2.0), None), Some(true));
        assert_eq!(Target::WithinOfNative(3.0).met(Some(3.0), None, Some(1.0)), Some(true));
        assert_eq!(Target::WithinOfNative(3.0).met(Some(3.1), None, Some(1.0)), Some(false));
    }
}
