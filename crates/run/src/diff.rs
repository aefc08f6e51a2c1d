//! Comparing two buffers element by element (`spirvkit run --diff A B --type T [--rel R]`,
//! and the corpus harness): integers exactly, floats within a relative tolerance or a
//! distance in units in the last place.

use crate::elem::{ElemType, Value};
use std::fmt;

/// How floats may differ. Integers are always compared exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// |a - b| <= rel * max(|a|, |b|).
    Relative(f64),
    /// At most this many representable values apart.
    Ulps(u64),
}

/// One element that differs.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub index: usize,
    pub a: Value,
    pub b: Value,
}

/// What a comparison found.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffReport {
    pub ty: ElemType,
    /// Elements compared (of the shorter buffer).
    pub elements: usize,
    /// The two lengths in bytes, when they differ.
    pub lengths: Option<(usize, usize)>,
    /// Elements outside the tolerance.
    pub differing: usize,
    /// Elements not bit-identical (within tolerance or not).
    pub inexact: usize,
    /// The first few differing elements.
    pub first: Vec<Mismatch>,
}

impl DiffReport {
    /// True when the buffers have the same length and every element is within tolerance.
    pub fn matches(&self) -> bool {
        self.lengths.is_none() && self.differing == 0
    }
}

impl fmt::Display for DiffReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((a, b)) = self.lengths {
            writeln!(f, "sizes differ: {a} bytes and {b} bytes")?;
        }
        write!(f, "{} {} elements compared: {} differ", self.elements, self.ty, self.differing)?;
        if self.ty.is_float() {
            write!(f, ", {} not bit-identical", self.inexact)?;
        }
        for m in &self.first {
            write!(f, "\n  [{}] {} vs {}", m.index, m.a, m.b)?;
        }
        if self.differing > self.first.len() {
            write!(f, "\n  ...")?;
        }
        Ok(())
    }
}

/// How many mismatches a report lists.
const LISTED: usize = 10;

/// Compares `a` and `b` as arrays of `ty`. A trailing partial element is compared as
/// bytes (it makes the lengths what differs, or is compared exactly).
pub fn diff(a: &[u8], b: &[u8], ty: ElemType, tolerance: Tolerance) -> DiffReport {
    let common = a.len().min(b.len());
    let elements = common / ty.size();
    let mut report = DiffReport {
        ty,
        elements,
        lengths: (a.len() != b.len()).then_some((a.len(), b.len())),
        differing: 0,
        inexact: 0,
        first: Vec::new(),
    };
    for index in 0..elements {
        let (x, y) = (ty.read(a, index), ty.read(b, index));
        if x == y {
            continue;
        }
        report.inexact += 1;
        if !ty.is_float() || !floats_close(ty, x, y, tolerance) {
            report.differing += 1;
            if report.first.len() < LISTED {
                report.first.push(Mismatch { index, a: ty.value(x), b: ty.value(y) });
            }
        }
    }
    let tail = elements * ty.size();
    if a[tail..common] != b[tail..common] {
        report.differing += 1;
    }
    report
}

fn floats_close(ty: ElemType, x: u64, y: u64, tolerance: Tolerance) -> bool {
    let (Value::Float(fx), Value::Float(fy)) = (ty.value(x), ty.value(y)) else { return false };
    if fx.is_nan() || fy.is_nan() {
        return fx.is_nan() && fy.is_nan();
    }
    if fx == fy {
        return true; // +0 and -0
    }
    if fx.is_infinite() || fy.is_infinite() {
        return false;
    }
    match tolerance {
        Tolerance::Relative(rel) => (fx - fy).abs() <= rel * fx.abs().max(fy.abs()),
        Tolerance::Ulps(max) => ulp_distance(ty, x, y) <= max,
    }
}

/// Representable values between two floats' bits of `ty` (0 when equal; +0 and -0 are 0
/// apart). Integer types: the absolute difference of the bits.
pub fn ulp_distance(ty: ElemType, x: u64, y: u64) -> u64 {
    let bits = ty.size() as u32 * 8;
    if !ty.is_float() {
        return x.abs_diff(y);
    }
    // Map sign-magnitude to a monotonic integer line.
    let sign = 1u64 << (bits - 1);
    let ordered = |v: u64| -> i128 {
        if v & sign != 0 {
            -((v & !sign) as i128)
        } else {
            v as i128
        }
    };
    (ordered(x) - ordered(y)).unsigned_abs() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn integers_compare_exactly() {
        let a: Vec<u8> = [1u32, 2, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        let b: Vec<u8> = [1u32, 2, 4].iter().flat_map(|v| v.to_le_bytes()).collect();
        let report = diff(&a, &b, ElemType::U32, Tolerance::Relative(0.5));
        assert!(!report.matches());
        assert_eq!(report.differing, 1);
        assert_eq!(report.first, [Mismatch { index: 2, a: Value::Unsigned(3), b: Value::Unsigned(4) }]);
        assert!(diff(&a, &a, ElemType::U32, Tolerance::Relative(0.0)).matches());
        let report = diff(&a, &b, ElemType::I16, Tolerance::Relative(0.0));
        assert_eq!(report.elements, 6);
    }

    #[test]
    fn floats_within_the_relative_tolerance() {
        let a = f32s(&[1.0, 100.0, f32::NAN, 0.0, f32::INFINITY]);
        let b = f32s(&[1.0005, 100.2, f32::NAN, -0.0, f32::INFINITY]);
        let report = diff(&a, &b, ElemType::F32, Tolerance::Relative(1e-3));
        assert_eq!(report.differing, 1, "{report}");
        assert_eq!(report.first[0].index, 1);
        assert_eq!(report.inexact, 3);
        assert!(diff(&a, &b, ElemType::F32, Tolerance::Relative(3e-3)).matches());
        let c = f32s(&[1.0, 100.0, 1.0, 0.0, f32::NEG_INFINITY]);
        assert_eq!(diff(&a, &c, ElemType::F32, Tolerance::Relative(1.0)).differing, 2);
    }

    #[test]
    fn lengths_that_differ_never_match() {
        let a = f32s(&[1.0, 2.0]);
        let report = diff(&a, &a[..4], ElemType::F32, Tolerance::Relative(1.0));
        assert_eq!(report.lengths, Some((8, 4)));
        assert!(!report.matches());
        assert!(report.to_string().starts_with("sizes differ: 8 bytes and 4 bytes"));
    }

    #[test]
    fn ulps_count_representable_values() {
        let one = u64::from(1f32.to_bits());
        assert_eq!(ulp_distance(ElemType::F32, one, one + 3), 3);
        assert_eq!(ulp_distance(ElemType::F32, 0, u64::from((-0f32).to_bits())), 0);
        let tiny = u64::from(f32::from_bits(1).to_bits());
        let minus_tiny = u64::from((-f32::from_bits(1)).to_bits());
        assert_eq!(ulp_distance(ElemType::F32, tiny, minus_tiny), 2);
        let a = f32s(&[1.0]);
        let b = f32s(&[f32::from_bits(1f32.to_bits() + 2)]);
        assert!(diff(&a, &b, ElemType::F32, Tolerance::Ulps(2)).matches());
        assert!(!diff(&a, &b, ElemType::F32, Tolerance::Ulps(1)).matches());
    }
}
