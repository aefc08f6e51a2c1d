//! A buffer's initial contents (`INIT` of `--buf`/`--ubuf`): `zero`, `ramp`, `const:V`,
//! `file:PATH`, `random:SEED`. The random rule is fixed so that any tool can reproduce the
//! same data from the same arguments.

use crate::elem::ElemType;
use std::path::{Path, PathBuf};

/// How a buffer is filled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    /// Every byte zero.
    Zero,
    /// Element i holds i (converted to the element type; integers wrap to its width).
    Ramp,
    /// Every element holds this value (its bits).
    Const(u64),
    /// The file's raw little-endian bytes; it must hold exactly the buffer's size.
    File(PathBuf),
    /// splitmix64 from the seed, one draw per element (see [`random_bits`]).
    Random(u64),
}

impl Init {
    /// Reads `zero`, `ramp`, `const:V`, `file:PATH` or `random:SEED` for elements of `ty`.
    pub fn parse(text: &str, ty: ElemType) -> Result<Init, String> {
        match text {
            "zero" => return Ok(Init::Zero),
            "ramp" => return Ok(Init::Ramp),
            _ => {}
        }
        if let Some(value) = text.strip_prefix("const:") {
            return ty.parse_value(value).map(Init::Const);
        }
        if let Some(path) = text.strip_prefix("file:") {
            if path.is_empty() {
                return Err("file: needs a path".into());
            }
            return Ok(Init::File(PathBuf::from(path)));
        }
        if let Some(seed) = text.strip_prefix("random:") {
            return ElemType::U64
                .parse_value(seed)
                .map(Init::Random)
                .map_err(|_| format!("random:{seed}: the seed is an unsigned 64-bit integer"));
        }
        Err(format!("unknown INIT `{text}` (zero | ramp | const:V | file:PATH | random:SEED)"))
    }
}

/// One step of splitmix64 (Steele, Lea and Flood; Vigna's reference code): advances
/// `state` and returns the next draw.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// An element's bits from one splitmix64 draw `r`. The issue fixes f32 = (r >> 40) * 2^-24
/// (in [0, 1)) and 32-bit integers = r >> 32; the other widths follow the same idea (the
/// draw's top bits): f64 = (r >> 11) * 2^-53, f16 = (r >> 53) * 2^-11 (both exact, in
/// [0, 1)), 64-bit integers = r, 16-bit = r >> 48, 8-bit = r >> 56.
pub fn random_bits(ty: ElemType, r: u64) -> u64 {
    match ty {
        ElemType::F32 => u64::from(((r >> 40) as f32 * (1.0 / 16_777_216.0)).to_bits()),
        ElemType::F64 => ((r >> 11) as f64 * 2f64.powi(-53)).to_bits(),
        ElemType::F16 => ty.float_bits((r >> 53) as f64 * 2f64.powi(-11)),
        ElemType::U64 | ElemType::I64 => r,
        ElemType::U32 | ElemType::I32 => r >> 32,
        ElemType::U16 | ElemType::I16 => r >> 48,
        ElemType::U8 | ElemType::I8 => r >> 56,
    }
}

/// The bytes of `count` elements of `ty` filled by `init`. A relative `file:` path is
/// taken from `base`. Errors name what is wrong (a file of the wrong size, unreadable).
pub fn fill(ty: ElemType, count: usize, init: &Init, base: &Path) -> Result<Vec<u8>, String> {
    let size = count.checked_mul(ty.size()).ok_or("the buffer's size overflows")?;
    // A huge COUNT is an error, not an abort of the process.
    let mut out = Vec::new();
    out.try_reserve_exact(size).map_err(|_| format!("cannot allocate {size} bytes for the buffer"))?;
    match init {
        Init::Zero => {
            out.resize(size, 0);
            Ok(out)
        }
        Init::File(path) => {
            let path = base.join(path);
            let bytes = std::fs::read(&path).map_err(|e| format!("file:{}: {e}", path.display()))?;
            if bytes.len() != size {
                return Err(format!(
                    "file:{} holds {} bytes, and {count} {ty} elements are {size} bytes",
                    path.display(),
                    bytes.len()
                ));
            }
            Ok(bytes)
        }
        Init::Const(bits) => {
            for _ in 0..count {
                ty.push(*bits, &mut out);
            }
            Ok(out)
        }
        Init::Ramp => {
            for i in 0..count {
                ty.push(ty.from_index(i as u64), &mut out);
            }
            Ok(out)
        }
        Init::Random(seed) => {
            let mut state = *seed;
            for _ in 0..count {
                ty.push(random_bits(ty, splitmix64(&mut state)), &mut out);
            }
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        // Vigna's splitmix64.c from seed 0, and the common test vector from seed 1234567.
        let mut state = 0;
        let draws: Vec<u64> = (0..3).map(|_| splitmix64(&mut state)).collect();
        assert_eq!(draws, [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F]);
        let mut state = 1_234_567;
        let draws: Vec<u64> = (0..3).map(|_| splitmix64(&mut state)).collect();
        assert_eq!(draws, [6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423]);
    }

    #[test]
    fn random_elements_follow_the_stated_rule() {
        let bytes = fill(ElemType::F32, 2, &Init::Random(0), Path::new(".")).unwrap();
        let first = f32::from_le_bytes(bytes[..4].try_into().unwrap());
        assert_eq!(first, (0xE220_A839_7B1D_CDAFu64 >> 40) as f32 / 16_777_216.0);
        assert!((0.0..1.0).contains(&first));
        let bytes = fill(ElemType::U32, 2, &Init::Random(0), Path::new(".")).unwrap();
        assert_eq!(&bytes[..4], &0xE220_A839u32.to_le_bytes());
        assert_eq!(&bytes[4..], &0x6E78_9E6Au32.to_le_bytes());
        let bytes = fill(ElemType::I32, 1, &Init::Random(0), Path::new(".")).unwrap();
        assert_eq!(i32::from_le_bytes(bytes[..4].try_into().unwrap()), 0xE220_A839u32 as i32);
        let bytes = fill(ElemType::F64, 1, &Init::Random(0), Path::new(".")).unwrap();
        let value = f64::from_le_bytes(bytes[..8].try_into().unwrap());
        assert_eq!(value, (0xE220_A839_7B1D_CDAFu64 >> 11) as f64 / 2f64.powi(53));
        let bytes = fill(ElemType::F16, 1, &Init::Random(0), Path::new(".")).unwrap();
        let half = crate::elem::f16_bits_to_f64(u16::from_le_bytes([bytes[0], bytes[1]]));
        assert_eq!(half, (0xE220_A839_7B1D_CDAFu64 >> 53) as f64 / 2048.0);
    }

    #[test]
    fn ramp_const_and_zero() {
        let ramp = fill(ElemType::F32, 3, &Init::Ramp, Path::new(".")).unwrap();
        let values: Vec<f32> = ramp.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(values, [0.0, 1.0, 2.0]);
        let ramp = fill(ElemType::U8, 258, &Init::Ramp, Path::new(".")).unwrap();
        assert_eq!(&ramp[255..], &[255, 0, 1], "integers wrap to their width");
        let init = Init::parse("const:-3", ElemType::I16).unwrap();
        assert_eq!(fill(ElemType::I16, 2, &init, Path::new(".")).unwrap(), [0xfd, 0xff, 0xfd, 0xff]);
        assert_eq!(fill(ElemType::U64, 2, &Init::Zero, Path::new(".")).unwrap(), [0; 16]);
    }

    #[test]
    fn init_text_is_parsed_or_refused_with_a_reason() {
        assert_eq!(Init::parse("random:42", ElemType::F32), Ok(Init::Random(42)));
        assert_eq!(Init::parse("file:a.bin", ElemType::F32), Ok(Init::File("a.bin".into())));
        assert_eq!(Init::parse("const:1.5", ElemType::F32), Ok(Init::Const(0x3fc0_0000)));
        assert!(Init::parse("const:1.5", ElemType::U32).unwrap_err().contains("not an integer"));
        assert!(Init::parse("random:-1", ElemType::F32).unwrap_err().contains("seed"));
        assert!(Init::parse("ones", ElemType::F32).unwrap_err().contains("unknown INIT"));
    }

    #[test]
    fn a_file_must_have_the_buffers_size() {
        let dir = std::env::temp_dir().join(format!("spirvkit-run-init-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("data.bin"), [1u8, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let init = Init::File("data.bin".into());
        assert_eq!(fill(ElemType::U32, 2, &init, &dir).unwrap(), [1, 2, 3, 4, 5, 6, 7, 8]);
        assert!(fill(ElemType::U32, 3, &init, &dir).unwrap_err().contains("holds 8 bytes"));
        assert!(fill(ElemType::U32, 2, &Init::File("missing.bin".into()), &dir).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
