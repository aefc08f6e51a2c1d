//! Element types of `--buf`/`--ubuf`/`--ubo`/`--push`/`--diff`, their values as text, and
//! half-precision conversions (no crate of its own for two functions).

use std::fmt;

/// The type of a buffer's elements: its width, and how a value is read and compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    U8,
    I8,
    U16,
    I16,
    F16,
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
}

impl ElemType {
    pub const ALL: [ElemType; 11] = [
        ElemType::U8,
        ElemType::I8,
        ElemType::U16,
        ElemType::I16,
        ElemType::F16,
        ElemType::U32,
        ElemType::I32,
        ElemType::F32,
        ElemType::U64,
        ElemType::I64,
        ElemType::F64,
    ];

    /// The type named `name` (`f32`, `u32`, `i32`, `f16`, ...).
    pub fn parse(name: &str) -> Option<ElemType> {
        ElemType::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            ElemType::U8 => "u8",
            ElemType::I8 => "i8",
            ElemType::U16 => "u16",
            ElemType::I16 => "i16",
            ElemType::F16 => "f16",
            ElemType::U32 => "u32",
            ElemType::I32 => "i32",
            ElemType::F32 => "f32",
            ElemType::U64 => "u64",
            ElemType::I64 => "i64",
            ElemType::F64 => "f64",
        }
    }

    /// Every type name, for messages.
    pub fn names() -> String {
        ElemType::ALL.iter().map(|t| t.name()).collect::<Vec<_>>().join("|")
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            ElemType::U8 | ElemType::I8 => 1,
            ElemType::U16 | ElemType::I16 | ElemType::F16 => 2,
            ElemType::U32 | ElemType::I32 | ElemType::F32 => 4,
            ElemType::U64 | ElemType::I64 | ElemType::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F16 | ElemType::F32 | ElemType::F64)
    }

    pub fn is_signed(self) -> bool {
        matches!(self, ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64)
    }

    /// The value `text` as this type's bits (in the low `size()` bytes): integers in decimal
    /// or `0x` hex (a `-` sign for signed types), range-checked; floats as Rust reads them
    /// (`1.5`, `-2e-3`, `inf`, `nan`), rounded to nearest even.
    pub fn parse_value(self, text: &str) -> Result<u64, String> {
        let text = text.trim();
        if self == ElemType::F32 {
            // Straight to f32: through f64 would round twice.
            let value: f32 = text.parse().map_err(|_| format!("`{text}` is not a number"))?;
            return Ok(u64::from(value.to_bits()));
        }
        if self.is_float() {
            let value: f64 = text.parse().map_err(|_| format!("`{text}` is not a number"))?;
            return Ok(self.float_bits(value));
        }
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        let magnitude = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
            Some(hex) => u128::from_str_radix(hex, 16),
            None => digits.parse::<u128>(),
        }
        .map_err(|_| format!("`{text}` is not an integer"))?;
        let bits = self.size() as u32 * 8;
        let out_of_range = || format!("`{text}` is out of the range of {}", self.name());
        if self.is_signed() {
            let limit = 1u128 << (bits - 1);
            let value = if negative {
                if magnitude > limit {
                    return Err(out_of_range());
                }
                (magnitude as i128).wrapping_neg()
            } else {
                if magnitude >= limit {
                    return Err(out_of_range());
                }
                magnitude as i128
            };
            Ok((value as u64) & self.mask())
        } else {
            if (negative && magnitude != 0) || magnitude > u128::from(self.mask()) {
                return Err(out_of_range());
            }
            Ok(magnitude as u64)
        }
    }

    /// All ones in this type's width.
    fn mask(self) -> u64 {
        match self.size() {
            8 => u64::MAX,
            size => (1u64 << (size * 8)) - 1,
        }
    }

    /// A float type's bits for `value` (rounded to nearest even). Integer types: the value
    /// converted as Rust's `as` does (truncated toward zero, saturated), in this width.
    pub fn float_bits(self, value: f64) -> u64 {
        match self {
            ElemType::F16 => u64::from(f64_to_f16_bits(value)),
            ElemType::F32 => u64::from((value as f32).to_bits()),
            ElemType::F64 => value.to_bits(),
            _ if self.is_signed() => (value as i64 as u64) & self.mask(),
            _ => (value as u64) & self.mask(),
        }
    }

    /// The integer `value` in this type (wrapping to its width; floats: the nearest value).
    pub fn from_index(self, value: u64) -> u64 {
        if self.is_float() {
            self.float_bits(value as f64)
        } else {
            value & self.mask()
        }
    }

    /// Element `index` of `bytes` read as this type, as bits.
    pub fn read(self, bytes: &[u8], index: usize) -> u64 {
        let size = self.size();
        let mut word = [0u8; 8];
        word[..size].copy_from_slice(&bytes[index * size..index * size + size]);
        u64::from_le_bytes(word)
    }

    /// Appends `bits` (in the low `size()` bytes) to `out`, little-endian.
    pub fn push(self, bits: u64, out: &mut Vec<u8>) {
        out.extend_from_slice(&bits.to_le_bytes()[..self.size()]);
    }

    /// Bits as a float value (floats) or as the integer (others, sign-extended for signed).
    pub fn value(self, bits: u64) -> Value {
        match self {
            ElemType::F16 => Value::Float(f16_bits_to_f64(bits as u16)),
            ElemType::F32 => Value::Float(f64::from(f32::from_bits(bits as u32))),
            ElemType::F64 => Value::Float(f64::from_bits(bits)),
            _ if self.is_signed() => {
                let shift = 64 - self.size() as u32 * 8;
                Value::Signed(((bits << shift) as i64) >> shift)
            }
            _ => Value::Unsigned(bits),
        }
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An element's value, for messages and comparisons.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Unsigned(v) => write!(f, "{v}"),
            Value::Signed(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v:e}"),
        }
    }
}

/// IEEE binary16 bits of `value`, rounded to nearest even (overflow gives infinity).
pub fn f64_to_f16_bits(value: f64) -> u16 {
    let sign = if value.is_sign_negative() { 0x8000u16 } else { 0 };
    if value.is_nan() {
        return sign | 0x7e00;
    }
    let magnitude = value.abs();
    if magnitude.is_infinite() {
        return sign | 0x7c00;
    }
    const MIN_NORMAL: f64 = 1.0 / 16384.0; // 2^-14
    if magnitude < MIN_NORMAL {
        // Subnormal: a multiple of 2^-24; rounding up to 1024 gives the smallest normal,
        // whose encoding is exactly 1024.
        let units = (magnitude * 16_777_216.0).round_ties_even();
        return sign | units as u16;
    }
    let exponent = ((magnitude.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    // The significand scaled to [1024, 2048): exact, a power-of-two scaling.
    let mut significand = (magnitude * 2f64.powi(10 - exponent)).round_ties_even();
    let mut exponent = exponent;
    if significand >= 2048.0 {
        significand /= 2.0;
        exponent += 1;
    }
    if exponent > 15 {
        return sign | 0x7c00;
    }
    sign | (((exponent + 15) as u16) << 10) | (significand as u16 - 1024)
}

/// The value of IEEE binary16 bits.
pub fn f16_bits_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = (bits >> 10) & 0x1f;
    let fraction = f64::from(bits & 0x3ff);
    sign * match exponent {
        0 => fraction * 2f64.powi(-24),
        0x1f if fraction == 0.0 => f64::INFINITY,
        0x1f => f64::NAN,
        e => (1024.0 + fraction) * 2f64.powi(i32::from(e) - 25),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in ElemType::ALL {
            assert_eq!(ElemType::parse(t.name()), Some(t));
        }
        assert_eq!(ElemType::parse("f33"), None);
    }

    #[test]
    fn integer_values_are_range_checked() {
        assert_eq!(ElemType::U32.parse_value("4294967295"), Ok(0xffff_ffff));
        assert!(ElemType::U32.parse_value("4294967296").is_err());
        assert!(ElemType::U32.parse_value("-1").is_err());
        assert_eq!(ElemType::I32.parse_value("-1"), Ok(0xffff_ffff));
        assert_eq!(ElemType::I32.parse_value("-2147483648"), Ok(0x8000_0000));
        assert!(ElemType::I32.parse_value("2147483648").is_err());
        assert_eq!(ElemType::I8.parse_value("-128"), Ok(0x80));
        assert_eq!(ElemType::U16.parse_value("0xBEEF"), Ok(0xbeef));
        assert_eq!(ElemType::I64.parse_value("-9223372036854775808"), Ok(1 << 63));
        assert_eq!(ElemType::U64.parse_value("18446744073709551615"), Ok(u64::MAX));
        assert!(ElemType::U8.parse_value("abc").is_err());
    }

    #[test]
    fn float_values_round_to_the_type() {
        assert_eq!(ElemType::F32.parse_value("1.5"), Ok(0x3fc0_0000));
        // Halfway between two f32 values only after rounding to f64 first: read directly,
        // it is just above the halfway point and rounds up.
        let text = "1.00000005960464477550";
        assert_eq!(ElemType::F32.parse_value(text), Ok(u64::from(text.parse::<f32>().unwrap().to_bits())));
        assert_eq!(ElemType::F32.parse_value(text), Ok(0x3f80_0001));
        assert_eq!(ElemType::F64.parse_value("-2"), Ok((-2f64).to_bits()));
        assert_eq!(ElemType::F16.parse_value("1"), Ok(0x3c00));
        assert_eq!(ElemType::F16.parse_value("65504"), Ok(0x7bff));
        assert_eq!(ElemType::F16.parse_value("65520"), Ok(0x7c00), "rounds up to infinity");
        assert_eq!(ElemType::F16.parse_value("-0.5"), Ok(0xb800));
        assert!(ElemType::F32.parse_value("one").is_err());
    }

    #[test]
    fn half_conversions_round_to_nearest_even() {
        // 2049 lies halfway between 2048 and 2050: ties to the even significand (2048).
        assert_eq!(f64_to_f16_bits(2049.0), f64_to_f16_bits(2048.0));
        assert_eq!(f64_to_f16_bits(2051.0), f64_to_f16_bits(2052.0));
        assert_eq!(f64_to_f16_bits(2f64.powi(-24)), 1, "smallest subnormal");
        assert_eq!(f64_to_f16_bits(2f64.powi(-26)), 0, "below half of it: zero");
        assert_eq!(f64_to_f16_bits(2f64.powi(-14) * (1.0 - 2f64.powi(-12))), 0x0400);
        assert_eq!(f64_to_f16_bits(f64::NAN) & 0x7e00, 0x7e00);
        assert_eq!(f64_to_f16_bits(f64::NEG_INFINITY), 0xfc00);
        for bits in 0..=0xffffu16 {
            let value = f16_bits_to_f64(bits);
            if !value.is_nan() {
                assert_eq!(f64_to_f16_bits(value), bits, "{bits:#x} -> {value}");
            }
        }
    }

    #[test]
    fn values_read_back_signed_and_float() {
        let mut bytes = Vec::new();
        ElemType::I16.push(0xfffe, &mut bytes);
        assert_eq!(ElemType::I16.value(ElemType::I16.read(&bytes, 0)), Value::Signed(-2));
        assert_eq!(ElemType::F16.value(0x3c00), Value::Float(1.0));
        assert_eq!(ElemType::U8.from_index(300), 44);
        assert_eq!(ElemType::F32.from_index(3), u64::from(3f32.to_bits()));
    }
}
