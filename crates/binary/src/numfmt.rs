//! Number formatting as SPIRV-Tools prints and parses it: floats with
//! `max_digits10` significant digits in C++ stream (`%g`) style, and hex floats
//! (`0x1.8p+128`) for values that do not print exactly in decimal.

use std::fmt::Write;

/// Appends `value` as C++ `ostream << value` does with the given precision
/// (the `%g` conversion: shortest of fixed and scientific, trailing zeros removed).
pub fn write_general(out: &mut String, value: f64, precision: usize) {
    if value == 0.0 {
        out.push_str(if value.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    let precision = precision.max(1);
    let scientific = format!("{:.*e}", precision - 1, value);
    let (mantissa, exponent) = scientific.split_once('e').expect("Rust `e` format has an exponent");
    let exponent: i32 = exponent.parse().expect("exponent is an integer");
    if exponent < -4 || exponent >= precision as i32 {
        out.push_str(strip_fraction_zeros(mantissa));
        let _ = write!(out, "e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.unsigned_abs());
    } else {
        let decimals = (precision as i32 - 1 - exponent) as usize;
        let fixed = format!("{value:.decimals$}");
        out.push_str(strip_fraction_zeros(&fixed));
    }
}

fn strip_fraction_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// The layout of an IEEE binary float of some width.
#[derive(Clone, Copy, Debug)]
pub struct FloatLayout {
    pub exponent_bits: u32,
    pub fraction_bits: u32,
}

impl FloatLayout {
    pub const HALF: FloatLayout = FloatLayout { exponent_bits: 5, fraction_bits: 10 };
    pub const SINGLE: FloatLayout = FloatLayout { exponent_bits: 8, fraction_bits: 23 };
    pub const DOUBLE: FloatLayout = FloatLayout { exponent_bits: 11, fraction_bits: 52 };

    fn bias(self) -> i64 {
        (1i64 << (self.exponent_bits - 1)) - 1
    }

    fn nibbles(self) -> u32 {
        self.fraction_bits.div_ceil(4)
    }
}

/// Appends the bits of a float as a normalized hex float (`-0x1.8p+128`).
pub fn write_hex_float(out: &mut String, bits: u64, layout: FloatLayout) {
    let fraction_mask = (1u64 << layout.fraction_bits) - 1;
    let exponent_mask = (1u64 << layout.exponent_bits) - 1;
    let negative = (bits >> (layout.fraction_bits + layout.exponent_bits)) & 1 == 1;
    let biased = (bits >> layout.fraction_bits) & exponent_mask;
    let nibbles = layout.nibbles();
    // The fraction, left-aligned in whole nibbles.
    let mut fraction = (bits & fraction_mask) << (nibbles * 4 - layout.fraction_bits);
    let is_zero = biased == 0 && fraction == 0;
    let mut exponent = if is_zero { 0 } else { biased as i64 - layout.bias() };
    if biased == 0 && !is_zero {
        // Subnormal: shift until the leading one becomes the implicit bit.
        let top = 1u64 << (nibbles * 4 - 1);
        while fraction & top == 0 {
            fraction <<= 1;
            exponent -= 1;
        }
        fraction = (fraction << 1) & ((1u64 << (nibbles * 4)) - 1);
    }
    let mut digits = nibbles;
    while digits > 0 && fraction & 0xf == 0 {
        fraction >>= 4;
        digits -= 1;
    }
    if negative {
        out.push('-');
    }
    out.push_str(if is_zero { "0x0" } else { "0x1" });
    if digits > 0 {
        let _ = write!(out, ".{:0width$x}", fraction, width = digits as usize);
    }
    let _ = write!(out, "p{}{}", if exponent >= 0 { "+" } else { "" }, exponent);
}

/// Appends a 32-bit float as `spirv-dis` prints it.
pub fn write_f32(out: &mut String, bits: u32) {
    let value = f32::from_bits(bits);
    if value == 0.0 || value.is_normal() {
        write_general(out, value as f64, 9);
    } else {
        write_hex_float(out, bits as u64, FloatLayout::SINGLE);
    }
}

/// Appends a 64-bit float as `spirv-dis` prints it.
pub fn write_f64(out: &mut String, bits: u64) {
    let value = f64::from_bits(bits);
    if value == 0.0 || value.is_normal() {
        write_general(out, value, 17);
    } else {
        write_hex_float(out, bits, FloatLayout::DOUBLE);
    }
}

/// Appends a 16-bit float as `spirv-dis` prints it (always as a hex float).
pub fn write_f16(out: &mut String, bits: u16) {
    write_hex_float(out, bits as u64, FloatLayout::HALF);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn general(v: f64, p: usize) -> String {
        let mut s = String::new();
        write_general(&mut s, v, p);
        s
    }

    fn hex(bits: u64, layout: FloatLayout) -> String {
        let mut s = String::new();
        write_hex_float(&mut s, bits, layout);
        s
    }

    #[test]
    fn general_format_matches_cpp_streams() {
        assert_eq!(general(0.1f32 as f64, 9), "0.100000001");
        assert_eq!(general(1e-5f32 as f64, 9), "9.99999975e-06");
        assert_eq!(general(1e20f32 as f64, 9), "1.00000002e+20");
        assert_eq!(general(123456789f32 as f64, 9), "123456792");
        assert_eq!(general(100.0, 9), "100");
        assert_eq!(general(-0.0, 9), "-0");
        assert_eq!(general(0.1, 17), "0.10000000000000001");
        assert_eq!(general(1e300, 17), "1.0000000000000001e+300");
        assert_eq!(general(1.5, 9), "1.5");
    }

    #[test]
    fn hex_floats_match_spirv_tools() {
        assert_eq!(hex(0x7f80_0000, FloatLayout::SINGLE), "0x1p+128");
        assert_eq!(hex(0xffc0_0000, FloatLayout::SINGLE), "-0x1.8p+128");
        assert_eq!(hex(1, FloatLayout::SINGLE), "0x1p-149");
        assert_eq!(hex(0x2e66, FloatLayout::HALF), "0x1.998p-4");
        assert_eq!(hex(0x7bff, FloatLayout::HALF), "0x1.ffcp+15");
        assert_eq!(hex(0, FloatLayout::HALF), "0x0p+0");
    }
}
