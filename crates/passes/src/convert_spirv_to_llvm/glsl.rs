//! GLSL.std.450 ops: LLVM intrinsics where one has GLSL's meaning (MLIR 22's and
//! newer MLIR's mappings), expansions with GLSL's semantics for the rest.

use super::{ConvertError, Converter};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{OpId, Value};
use spirvkit_ir::types::{Type, TypeKind};

/// One-to-one intrinsics: GL op, intrinsic, whether it takes fastmath flags.
fn intrinsic(name: &str) -> Option<(&'static str, bool)> {
    Some(match name {
        "spirv.GL.Ceil" => ("llvm.intr.ceil", true),
        "spirv.GL.Cos" => ("llvm.intr.cos", true),
        "spirv.GL.Exp" => ("llvm.intr.exp", true),
        "spirv.GL.Exp2" => ("llvm.intr.exp2", true),
        "spirv.GL.FAbs" => ("llvm.intr.fabs", true),
        "spirv.GL.Floor" => ("llvm.intr.floor", true),
        "spirv.GL.Log" => ("llvm.intr.log", true),
        "spirv.GL.Log2" => ("llvm.intr.log2", true),
        "spirv.GL.FMax" | "spirv.GL.NMax" => ("llvm.intr.maxnum", true),
        "spirv.GL.FMin" | "spirv.GL.NMin" => ("llvm.intr.minnum", true),
        "spirv.GL.Sin" => ("llvm.intr.sin", true),
        "spirv.GL.Sqrt" => ("llvm.intr.sqrt", true),
        "spirv.GL.Tan" => ("llvm.intr.tan", true),
        "spirv.GL.Tanh" => ("llvm.intr.tanh", true),
        "spirv.GL.Sinh" => ("llvm.intr.sinh", true),
        "spirv.GL.Cosh" => ("llvm.intr.cosh", true),
        "spirv.GL.Asin" => ("llvm.intr.asin", true),
        "spirv.GL.Acos" => ("llvm.intr.acos", true),
        "spirv.GL.Atan" => ("llvm.intr.atan", true),
        "spirv.GL.Atan2" => ("llvm.intr.atan2", true),
        "spirv.GL.Pow" => ("llvm.intr.pow", true),
        "spirv.GL.Fma" => ("llvm.intr.fma", true),
        "spirv.GL.Round" => ("llvm.intr.round", true),
        "spirv.GL.RoundEven" => ("llvm.intr.roundeven", true),
        "spirv.GL.Trunc" => ("llvm.intr.trunc", true),
        "spirv.GL.Ldexp" => ("llvm.intr.ldexp", true),
        "spirv.GL.SMax" => ("llvm.intr.smax", false),
        "spirv.GL.SMin" => ("llvm.intr.smin", false),
        "spirv.GL.UMax" => ("llvm.intr.umax", false),
        "spirv.GL.UMin" => ("llvm.intr.umin", false),
        _ => return None,
    })
}

/// OpenCL.std ops with an LLVM intrinsic of the same meaning (newer MLIR's mapping).
fn cl_intrinsic(name: &str) -> Option<(&'static str, bool)> {
    let op = name.strip_prefix("spirv.CL.")?;
    Some(match op {
        "s_max" => ("llvm.intr.smax", false),
        "s_min" => ("llvm.intr.smin", false),
        "u_max" => ("llvm.intr.umax", false),
        "u_min" => ("llvm.intr.umin", false),
        "fmax" => ("llvm.intr.maxnum", true),
        "fmin" => ("llvm.intr.minnum", true),
        "acos" => ("llvm.intr.acos", true),
        "asin" => ("llvm.intr.asin", true),
        "atan" => ("llvm.intr.atan", true),
        "atan2" => ("llvm.intr.atan2", true),
        "ceil" => ("llvm.intr.ceil", true),
        "cos" => ("llvm.intr.cos", true),
        "cosh" => ("llvm.intr.cosh", true),
        "exp" => ("llvm.intr.exp", true),
        "exp10" => ("llvm.intr.exp10", true),
        "exp2" => ("llvm.intr.exp2", true),
        "fabs" => ("llvm.intr.fabs", true),
        "floor" => ("llvm.intr.floor", true),
        "fma" => ("llvm.intr.fma", true),
        "log" => ("llvm.intr.log", true),
        "log10" => ("llvm.intr.log10", true),
        "log2" => ("llvm.intr.log2", true),
        "pow" => ("llvm.intr.pow", true),
        "rint" => ("llvm.intr.rint", true),
        "round" => ("llvm.intr.round", true),
        "sin" => ("llvm.intr.sin", true),
        "sinh" => ("llvm.intr.sinh", true),
        "sqrt" => ("llvm.intr.sqrt", true),
        "tan" => ("llvm.intr.tan", true),
        "tanh" => ("llvm.intr.tanh", true),
        "trunc" => ("llvm.intr.trunc", true),
        _ => return None,
    })
}

impl Converter<'_> {
    /// `spirv.CL.*` ops.
    pub(crate) fn lower_cl(&mut self, op: OpId, name: &str) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let ty = self.result_type(op, 0)?;
        let v = match (cl_intrinsic(name), name) {
            (Some((intr, fastmath)), _) => self.call_intr(intr, operands, ty, fastmath),
            (None, "spirv.CL.s_abs") => self.emit_value(
                "llvm.intr.abs",
                operands,
                ty,
                vec![("is_int_min_poison", Attribute::Bool(false))],
            ),
            (None, "spirv.CL.rsqrt") => {
                let one = self.const_of_type(ty, 1, 1.0);
                let sqrt = self.call_intr("llvm.intr.sqrt", operands, ty, true);
                self.fbin("llvm.fdiv", one, sqrt, ty)
            }
            _ => return Err(self.unsupported(op)),
        };
        self.replace(op, v);
        Ok(())
    }

    fn fm(&self) -> Vec<(&'static str, Attribute)> {
        vec![("fastmathFlags", Converter::fastmath_none())]
    }

    fn call_intr(&mut self, name: &str, args: Vec<Value>, ty: Type, fastmath: bool) -> Value {
        let props = if fastmath { self.fm() } else { vec![] };
        self.emit_value(name, args, ty, props)
    }

    fn fcmp(&mut self, predicate: i128, a: Value, b: Value, ty: Type) -> Value {
        let bool_ty = self.bool_like(ty);
        let props =
            vec![("fastmathFlags", Converter::fastmath_none()), ("predicate", self.int_attr(predicate, 64))];
        self.emit_value("llvm.fcmp", vec![a, b], bool_ty, props)
    }

    fn fbin(&mut self, name: &str, a: Value, b: Value, ty: Type) -> Value {
        let props = self.fm();
        self.emit_value(name, vec![a, b], ty, props)
    }

    /// The sum of a float vector's elements (a scalar stays).
    fn reduce_add(&mut self, v: Value, scalar: Type) -> Value {
        if self.ir.value_type(v) == scalar {
            return v;
        }
        // -0.0 is fadd's identity (0.0 would turn a sum of -0.0s into +0.0).
        let zero = self.const_of_type(scalar, 0, -0.0);
        self.emit_value("llvm.intr.vector.reduce.fadd", vec![zero, v], scalar, self.fm())
    }

    fn dot(&mut self, a: Value, b: Value) -> Value {
        let ty = self.ir.value_type(a);
        let scalar = self.ir.types.scalar_of(ty);
        let product = self.fbin("llvm.fmul", a, b, ty);
        self.reduce_add(product, scalar)
    }

    pub(crate) fn lower_glsl(&mut self, op: OpId, name: &str) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let ty = self.result_type(op, 0)?;
        if let Some((intr, fastmath)) = intrinsic(name) {
            let v = self.call_intr(intr, operands, ty, fastmath);
            self.replace(op, v);
            return Ok(());
        }
        let arg = |i: usize| operands.get(i).copied();
        let v = match (name, arg(0), arg(1), arg(2)) {
            ("spirv.GL.InverseSqrt", Some(x), _, _) => {
                let one = self.const_of_type(ty, 1, 1.0);
                let sqrt = self.call_intr("llvm.intr.sqrt", vec![x], ty, true);
                self.fbin("llvm.fdiv", one, sqrt, ty)
            }
            ("spirv.GL.SAbs", Some(x), _, _) => self.emit_value(
                "llvm.intr.abs",
                vec![x],
                ty,
                vec![("is_int_min_poison", Attribute::Bool(false))],
            ),
            ("spirv.GL.FClamp" | "spirv.GL.NClamp", Some(x), Some(lo), Some(hi)) => {
                let m = self.call_intr("llvm.intr.maxnum", vec![x, lo], ty, true);
                self.call_intr("llvm.intr.minnum", vec![m, hi], ty, true)
            }
            ("spirv.GL.UClamp", Some(x), Some(lo), Some(hi)) => {
                let m = self.call_intr("llvm.intr.umax", vec![x, lo], ty, false);
                self.call_intr("llvm.intr.umin", vec![m, hi], ty, false)
            }
            ("spirv.GL.SClamp", Some(x), Some(lo), Some(hi)) => {
                let m = self.call_intr("llvm.intr.smax", vec![x, lo], ty, false);
                self.call_intr("llvm.intr.smin", vec![m, hi], ty, false)
            }
            ("spirv.GL.FMix", Some(x), Some(y), Some(a)) => {
                // x + a * (y - x), GLSL's mix.
                let d = self.fbin("llvm.fsub", y, x, ty);
                let p = self.fbin("llvm.fmul", a, d, ty);
                self.fbin("llvm.fadd", x, p, ty)
            }
            ("spirv.GL.Step", Some(edge), Some(x), _) => {
                let less = self.fcmp(4, x, edge, ty);
                let zero = self.const_of_type(ty, 0, 0.0);
                let one = self.const_of_type(ty, 1, 1.0);
                self.emit_value("llvm.select", vec![less, zero, one], ty, self.fm())
            }
            ("spirv.GL.SmoothStep", Some(e0), Some(e1), Some(x)) => {
                // t = clamp((x - e0) / (e1 - e0), 0, 1); t * t * (3 - 2 * t).
                let num = self.fbin("llvm.fsub", x, e0, ty);
                let den = self.fbin("llvm.fsub", e1, e0, ty);
                let q = self.fbin("llvm.fdiv", num, den, ty);
                let zero = self.const_of_type(ty, 0, 0.0);
                let one = self.const_of_type(ty, 1, 1.0);
                let lo = self.call_intr("llvm.intr.maxnum", vec![q, zero], ty, true);
                let t = self.call_intr("llvm.intr.minnum", vec![lo, one], ty, true);
                let two = self.const_of_type(ty, 2, 2.0);
                let three = self.const_of_type(ty, 3, 3.0);
                let tt = self.fbin("llvm.fmul", t, t, ty);
                let t2 = self.fbin("llvm.fmul", two, t, ty);
                let s = self.fbin("llvm.fsub", three, t2, ty);
                self.fbin("llvm.fmul", tt, s, ty)
            }
            ("spirv.GL.Fract", Some(x), _, _) => {
                let f = self.call_intr("llvm.intr.floor", vec![x], ty, true);
                self.fbin("llvm.fsub", x, f, ty)
            }
            ("spirv.GL.Length", Some(x), _, _) => {
                let d = self.dot(x, x);
                self.call_intr("llvm.intr.sqrt", vec![d], ty, true)
            }
            ("spirv.GL.Distance", Some(a), Some(b), _) => {
                let vty = self.ir.value_type(a);
                let d = self.fbin("llvm.fsub", a, b, vty);
                let s = self.dot(d, d);
                self.call_intr("llvm.intr.sqrt", vec![s], ty, true)
            }
            ("spirv.GL.Normalize", Some(x), _, _) => {
                let scalar = self.ir.types.scalar_of(ty);
                let d = self.dot(x, x);
                let len = self.call_intr("llvm.intr.sqrt", vec![d], scalar, true);
                let len = self.splat(len, ty);
                self.fbin("llvm.fdiv", x, len, ty)
            }
            ("spirv.GL.Reflect", Some(i), Some(n), _) => {
                // i - 2 * dot(n, i) * n
                let scalar = self.ir.types.scalar_of(ty);
                let d = self.dot(n, i);
                let two = self.const_of_type(scalar, 2, 2.0);
                let d2 = self.fbin("llvm.fmul", two, d, scalar);
                let d2 = self.splat(d2, ty);
                let s = self.fbin("llvm.fmul", d2, n, ty);
                self.fbin("llvm.fsub", i, s, ty)
            }
            ("spirv.GL.Cross", Some(a), Some(b), _) => {
                let scalar = self.ir.types.scalar_of(ty);
                let i32t = self.int_type(32);
                let shuffle = |c: &mut Self, v: Value, mask: [i128; 3]| {
                    let m = Attribute::DenseArray {
                        element: i32t,
                        values: mask.iter().map(|&x| Attribute::Integer { value: x, ty: i32t }).collect(),
                    };
                    c.emit_value("llvm.shufflevector", vec![v, v], ty, vec![("mask", m)])
                };
                let _ = scalar;
                let a1 = shuffle(self, a, [1, 2, 0]);
                let b2 = shuffle(self, b, [2, 0, 1]);
                let a2 = shuffle(self, a, [2, 0, 1]);
                let b1 = shuffle(self, b, [1, 2, 0]);
                let l = self.fbin("llvm.fmul", a1, b2, ty);
                let r = self.fbin("llvm.fmul", a2, b1, ty);
                self.fbin("llvm.fsub", l, r, ty)
            }
            ("spirv.GL.FSign", Some(x), _, _) => {
                let zero = self.const_of_type(ty, 0, 0.0);
                let one = self.const_of_type(ty, 1, 1.0);
                let minus = self.const_of_type(ty, -1, -1.0);
                let pos = self.fcmp(2, x, zero, ty);
                let neg = self.fcmp(4, x, zero, ty);
                let s = self.emit_value("llvm.select", vec![neg, minus, zero], ty, self.fm());
                self.emit_value("llvm.select", vec![pos, one, s], ty, self.fm())
            }
            ("spirv.GL.SSign", Some(x), _, _) => {
                // smin(smax(x, -1), 1)
                let minus = self.const_of_type(ty, -1, 0.0);
                let one = self.const_of_type(ty, 1, 0.0);
                let m = self.call_intr("llvm.intr.smax", vec![x, minus], ty, false);
                self.call_intr("llvm.intr.smin", vec![m, one], ty, false)
            }
            ("spirv.GL.FindILsb", Some(x), _, _) => {
                // cttz, with -1 for 0.
                let tz = self.emit_value(
                    "llvm.intr.cttz",
                    vec![x],
                    ty,
                    vec![("is_zero_poison", Attribute::Bool(false))],
                );
                let zero = self.const_of_type(ty, 0, 0.0);
                let minus = self.const_of_type(ty, -1, 0.0);
                let is_zero = self.icmp(0, x, zero, ty);
                self.emit_value("llvm.select", vec![is_zero, minus, tz], ty, self.fm())
            }
            ("spirv.GL.FindUMsb" | "spirv.GL.FindSMsb", Some(x), _, _) => {
                // width - 1 - ctlz(x) (of ~x for negative signed values): -1 when none.
                let width = self.element_bits(ty);
                let source = if name == "spirv.GL.FindSMsb" {
                    let zero = self.const_of_type(ty, 0, 0.0);
                    let negative = self.icmp(2, x, zero, ty);
                    let ones = self.const_of_type(ty, -1, 0.0);
                    let inverted = self.emit_value("llvm.xor", vec![x, ones], ty, vec![]);
                    self.emit_value("llvm.select", vec![negative, inverted, x], ty, self.fm())
                } else {
                    x
                };
                let lz = self.emit_value(
                    "llvm.intr.ctlz",
                    vec![source],
                    ty,
                    vec![("is_zero_poison", Attribute::Bool(false))],
                );
                let top = self.const_of_type(ty, i128::from(width) - 1, 0.0);
                let props = vec![("overflowFlags", self.int_attr(0, 32))];
                self.emit_value("llvm.sub", vec![top, lz], ty, props)
            }
            ("spirv.GL.PackHalf2x16", Some(v), _, _) => {
                let f16 = self.ir.types.float(spirvkit_ir::types::FloatKind::F16);
                let h2 = self.ir.types.vector(2, f16);
                let t = self.emit_value("llvm.fptrunc", vec![v], h2, vec![]);
                self.emit_value("llvm.bitcast", vec![t], ty, vec![])
            }
            ("spirv.GL.UnpackHalf2x16", Some(v), _, _) => {
                let f16 = self.ir.types.float(spirvkit_ir::types::FloatKind::F16);
                let h2 = self.ir.types.vector(2, f16);
                let t = self.emit_value("llvm.bitcast", vec![v], h2, vec![]);
                self.emit_value("llvm.fpext", vec![t], ty, vec![])
            }
            ("spirv.GL.Radians", Some(x), _, _) => {
                let k = self.const_of_type(ty, 0, std::f64::consts::PI / 180.0);
                self.fbin("llvm.fmul", x, k, ty)
            }
            ("spirv.GL.Degrees", Some(x), _, _) => {
                let k = self.const_of_type(ty, 0, 180.0 / std::f64::consts::PI);
                self.fbin("llvm.fmul", x, k, ty)
            }
            ("spirv.GL.FaceForward", Some(n), Some(i), Some(nref)) => {
                // dot(nref, i) < 0 ? n : -n
                let scalar = self.ir.types.scalar_of(ty);
                let d = self.dot(nref, i);
                let zero = self.const_of_type(scalar, 0, 0.0);
                let less = self.fcmp(4, d, zero, scalar);
                let neg = self.emit_value("llvm.fneg", vec![n], ty, self.fm());
                self.emit_value("llvm.select", vec![less, n, neg], ty, self.fm())
            }
            ("spirv.GL.Refract", Some(i), Some(n), Some(eta)) => {
                // k = 1 - eta^2 (1 - dot(n, i)^2); k < 0 ? 0 : eta i - (eta dot(n, i) + sqrt(k)) n
                let scalar = self.ir.types.scalar_of(ty);
                let d = self.dot(n, i);
                let one = self.const_of_type(scalar, 1, 1.0);
                let dd = self.fbin("llvm.fmul", d, d, scalar);
                let t = self.fbin("llvm.fsub", one, dd, scalar);
                let ee = self.fbin("llvm.fmul", eta, eta, scalar);
                let et = self.fbin("llvm.fmul", ee, t, scalar);
                let k = self.fbin("llvm.fsub", one, et, scalar);
                let zero = self.const_of_type(scalar, 0, 0.0);
                let negative = self.fcmp(4, k, zero, scalar);
                let sk = self.call_intr("llvm.intr.sqrt", vec![k], scalar, true);
                let ed = self.fbin("llvm.fmul", eta, d, scalar);
                let f = self.fbin("llvm.fadd", ed, sk, scalar);
                let eta_v = self.splat(eta, ty);
                let f_v = self.splat(f, ty);
                let a = self.fbin("llvm.fmul", eta_v, i, ty);
                let b = self.fbin("llvm.fmul", f_v, n, ty);
                let r = self.fbin("llvm.fsub", a, b, ty);
                let zero_v = self.const_of_type(ty, 0, 0.0);
                self.emit_value("llvm.select", vec![negative, zero_v, r], ty, self.fm())
            }
            ("spirv.GL.Asinh", Some(x), _, _) => {
                // sign(x) * log(|x| + sqrt(x^2 + 1)) (Mesa's expansion: odd, no
                // cancellation for negative x).
                let one = self.const_of_type(ty, 1, 1.0);
                let a = self.call_intr("llvm.intr.fabs", vec![x], ty, true);
                let xx = self.fbin("llvm.fmul", x, x, ty);
                let r = self.fbin("llvm.fadd", xx, one, ty);
                let root = self.call_intr("llvm.intr.sqrt", vec![r], ty, true);
                let sum = self.fbin("llvm.fadd", a, root, ty);
                let log = self.call_intr("llvm.intr.log", vec![sum], ty, true);
                self.call_intr("llvm.intr.copysign", vec![log, x], ty, true)
            }
            ("spirv.GL.Acosh", Some(x), _, _) => {
                // log(x + sqrt(x^2 - 1)); NaN below 1, as GLSL leaves undefined.
                let one = self.const_of_type(ty, 1, 1.0);
                let xx = self.fbin("llvm.fmul", x, x, ty);
                let r = self.fbin("llvm.fsub", xx, one, ty);
                let root = self.call_intr("llvm.intr.sqrt", vec![r], ty, true);
                let sum = self.fbin("llvm.fadd", x, root, ty);
                self.call_intr("llvm.intr.log", vec![sum], ty, true)
            }
            ("spirv.GL.Atanh", Some(x), _, _) => {
                // 0.5 * log((1 + x) / (1 - x))
                let one = self.const_of_type(ty, 1, 1.0);
                let half = self.const_of_type(ty, 0, 0.5);
                let num = self.fbin("llvm.fadd", one, x, ty);
                let den = self.fbin("llvm.fsub", one, x, ty);
                let q = self.fbin("llvm.fdiv", num, den, ty);
                let log = self.call_intr("llvm.intr.log", vec![q], ty, true);
                self.fbin("llvm.fmul", half, log, ty)
            }
            ("spirv.GL.Modf", Some(x), Some(whole_ptr), _) => {
                let (fraction, whole) = self.modf(x, ty);
                self.emit(
                    "llvm.store",
                    vec![whole, whole_ptr],
                    &[],
                    vec![("ordering", self.int_attr(0, 64))],
                );
                fraction
            }
            ("spirv.GL.ModfStruct", Some(x), _, _) => {
                let member = self.struct_member_type(ty, 0).ok_or_else(|| self.illegal(op))?;
                let (fraction, whole) = self.modf(x, member);
                self.build_struct(ty, &[fraction, whole])
            }
            ("spirv.GL.Frexp", Some(x), Some(exp_ptr), _) => {
                let exp_ty = self.pointee_llvm_type(op, 1)?;
                let pair_ty = self.ir.types.llvm_struct(false, vec![ty, exp_ty]);
                let pair = self.call_intr("llvm.intr.frexp", vec![x], pair_ty, true);
                let significand = self.extract_member(pair, 0, ty);
                let exponent = self.extract_member(pair, 1, exp_ty);
                self.emit(
                    "llvm.store",
                    vec![exponent, exp_ptr],
                    &[],
                    vec![("ordering", self.int_attr(0, 64))],
                );
                significand
            }
            ("spirv.GL.FrexpStruct", Some(x), _, _) => {
                let significand_ty = self.struct_member_type(ty, 0).ok_or_else(|| self.illegal(op))?;
                let exp_ty = self.struct_member_type(ty, 1).ok_or_else(|| self.illegal(op))?;
                let pair_ty = self.ir.types.llvm_struct(false, vec![significand_ty, exp_ty]);
                let pair = self.call_intr("llvm.intr.frexp", vec![x], pair_ty, true);
                let significand = self.extract_member(pair, 0, significand_ty);
                let exponent = self.extract_member(pair, 1, exp_ty);
                self.build_struct(ty, &[significand, exponent])
            }
            ("spirv.GL.MatrixInverse", Some(m), _, _) => {
                let elements = self.matrix_elements(m).ok_or_else(|| self.unsupported(op))?;
                let n = elements.len();
                if !(2..=4).contains(&n) || elements.iter().any(|c| c.len() != n) {
                    return Err(self.unsupported(op));
                }
                self.matrix_inverse(&elements, ty).ok_or_else(|| self.illegal(op))?
            }
            (
                "spirv.GL.PackUnorm4x8"
                | "spirv.GL.PackSnorm4x8"
                | "spirv.GL.PackUnorm2x16"
                | "spirv.GL.PackSnorm2x16",
                Some(v),
                _,
                _,
            ) => self.pack_normalized(v, name, ty).ok_or_else(|| self.illegal(op))?,
            (
                "spirv.GL.UnpackUnorm4x8"
                | "spirv.GL.UnpackSnorm4x8"
                | "spirv.GL.UnpackUnorm2x16"
                | "spirv.GL.UnpackSnorm2x16",
                Some(p),
                _,
                _,
            ) => self.unpack_normalized(p, name, ty).ok_or_else(|| self.illegal(op))?,
            ("spirv.GL.PackDouble2x32" | "spirv.GL.UnpackDouble2x32", Some(v), _, _) => {
                self.emit_value("llvm.bitcast", vec![v], ty, vec![])
            }
            ("spirv.GL.Determinant", Some(m), _, _) => {
                let elements = self.matrix_elements(m).ok_or_else(|| self.unsupported(op))?;
                if elements.len() > 4 || elements.iter().any(|c| c.len() != elements.len()) {
                    return Err(self.unsupported(op));
                }
                let all: Vec<usize> = (0..elements.len()).collect();
                self.minor_determinant(&elements, &all, &all, ty)
            }
            _ => return Err(self.unsupported(op)),
        };
        self.replace(op, v);
        Ok(())
    }

    /// GLSL's modf: (x - trunc(x), trunc(x)) with the fraction signed as x (so -2.0
    /// gives -0.0) and 0 for infinities, as C's modf and Mesa's lowering give.
    fn modf(&mut self, x: Value, ty: Type) -> (Value, Value) {
        let whole = self.call_intr("llvm.intr.trunc", vec![x], ty, true);
        let difference = self.fbin("llvm.fsub", x, whole, ty);
        let magnitude = self.call_intr("llvm.intr.fabs", vec![x], ty, true);
        let infinity = self.const_of_type(ty, 0, f64::INFINITY);
        let is_infinite = self.fcmp(1, magnitude, infinity, ty);
        let zero = self.const_of_type(ty, 0, 0.0);
        let fraction = self.emit_value("llvm.select", vec![is_infinite, zero, difference], ty, self.fm());
        let fraction = self.call_intr("llvm.intr.copysign", vec![fraction, x], ty, true);
        (fraction, whole)
    }

    /// Member `index` of an LLVM struct type.
    fn struct_member_type(&self, ty: Type, index: usize) -> Option<Type> {
        match self.ir.types.kind(ty) {
            TypeKind::LlvmStruct { members, .. } => members.get(index).copied(),
            _ => None,
        }
    }

    /// The LLVM type of what pointer operand `operand` of `op` points to.
    fn pointee_llvm_type(&mut self, op: OpId, operand: usize) -> Result<Type, ConvertError> {
        let pointee = self.pointee_of(op, operand)?;
        self.convert_type(pointee).ok_or_else(|| self.illegal(op))
    }

    fn position(&mut self, index: usize) -> Attribute {
        let i64t = self.int_type(64);
        Attribute::DenseArray {
            element: i64t,
            values: vec![Attribute::Integer { value: index as i128, ty: i64t }],
        }
    }

    fn extract_member(&mut self, aggregate: Value, index: usize, ty: Type) -> Value {
        let position = self.position(index);
        self.emit_value("llvm.extractvalue", vec![aggregate], ty, vec![("position", position)])
    }

    /// A struct (or array) value of type `ty` from its members.
    fn build_struct(&mut self, ty: Type, members: &[Value]) -> Value {
        let mut acc = self.emit_value("llvm.mlir.poison", vec![], ty, vec![]);
        for (i, &m) in members.iter().enumerate() {
            let position = self.position(i);
            acc = self.emit_value("llvm.insertvalue", vec![acc, m], ty, vec![("position", position)]);
        }
        acc
    }

    /// A vector of type `ty` from its scalars.
    fn build_vector(&mut self, ty: Type, elements: &[Value]) -> Value {
        let mut acc = self.emit_value("llvm.mlir.poison", vec![], ty, vec![]);
        for (i, &e) in elements.iter().enumerate() {
            let index = self.const_int(i as i128, 32);
            acc = self.emit_value("llvm.insertelement", vec![acc, e, index], ty, vec![]);
        }
        acc
    }

    /// The determinant of the submatrix of `m` (`m[column][row]`) on `rows` x `columns`,
    /// by Laplace expansion along its first row.
    fn minor_determinant(&mut self, m: &[Vec<Value>], rows: &[usize], columns: &[usize], ty: Type) -> Value {
        if columns.len() == 1 {
            return m[columns[0]][rows[0]];
        }
        let mut acc: Option<Value> = None;
        for (k, &c) in columns.iter().enumerate() {
            let rest: Vec<usize> = columns.iter().copied().filter(|&x| x != c).collect();
            let minor = self.minor_determinant(m, &rows[1..], &rest, ty);
            let term = self.fbin("llvm.fmul", m[c][rows[0]], minor, ty);
            acc = Some(match acc {
                None => term,
                Some(a) if k % 2 == 1 => self.fbin("llvm.fsub", a, term, ty),
                Some(a) => self.fbin("llvm.fadd", a, term, ty),
            });
        }
        acc.expect("at least one column")
    }

    /// GLSL's inverse: the adjugate divided by the determinant (a singular matrix gives
    /// infinities or NaNs, as GLSL leaves it undefined). `ty` is the LLVM matrix type
    /// (an array of column vectors).
    fn matrix_inverse(&mut self, m: &[Vec<Value>], ty: Type) -> Option<Value> {
        let n = m.len();
        let TypeKind::LlvmArray { element: column_ty, .. } = self.ir.types.kind(ty).clone() else {
            return None;
        };
        let scalar = self.ir.types.scalar_of(column_ty);
        // cofactor[row][column] = (-1)^(row + column) * minor(row, column).
        let mut cofactors = vec![vec![None; n]; n];
        for (row, cofactor_row) in cofactors.iter_mut().enumerate() {
            for (column, cofactor) in cofactor_row.iter_mut().enumerate() {
                let rows: Vec<usize> = (0..n).filter(|&r| r != row).collect();
                let columns: Vec<usize> = (0..n).filter(|&c| c != column).collect();
                let minor = self.minor_determinant(m, &rows, &columns, scalar);
                *cofactor = Some(if (row + column) % 2 == 1 {
                    self.emit_value("llvm.fneg", vec![minor], scalar, self.fm())
                } else {
                    minor
                });
            }
        }
        // The determinant along the first row, from the cofactors.
        let mut det: Option<Value> = None;
        for (column, cofactor) in cofactors[0].iter().enumerate() {
            let term = self.fbin("llvm.fmul", m[column][0], (*cofactor)?, scalar);
            det = Some(match det {
                None => term,
                Some(d) => self.fbin("llvm.fadd", d, term, scalar),
            });
        }
        let det = det?;
        // inverse[row i][column j] = cofactor[j][i] / det: column j is row j's cofactors.
        let mut columns = Vec::with_capacity(n);
        for cofactor_row in &cofactors {
            let mut elements = Vec::with_capacity(n);
            for cofactor in cofactor_row {
                elements.push(self.fbin("llvm.fdiv", (*cofactor)?, det, scalar));
            }
            columns.push(self.build_vector(column_ty, &elements));
        }
        Some(self.build_struct(ty, &columns))
    }

    /// packUnorm4x8/packSnorm4x8/packUnorm2x16/packSnorm2x16: each component clamped,
    /// scaled, rounded to even and stored in ascending bits.
    fn pack_normalized(&mut self, v: Value, name: &str, ty: Type) -> Option<Value> {
        let signed = name.contains("Snorm");
        let bits: u32 = if name.ends_with("4x8") { 8 } else { 16 };
        let vty = self.ir.value_type(v);
        let TypeKind::Vector { shape, .. } = self.ir.types.kind(vty).clone() else { return None };
        let lanes = shape.iter().product::<u64>();
        let scale = if signed { (1u32 << (bits - 1)) - 1 } else { (1u32 << bits) - 1 };
        let lo = self.const_of_type(vty, 0, if signed { -1.0 } else { 0.0 });
        let hi = self.const_of_type(vty, 1, 1.0);
        let k = self.const_of_type(vty, 0, f64::from(scale));
        let clamped = self.call_intr("llvm.intr.maxnum", vec![v, lo], vty, true);
        let clamped = self.call_intr("llvm.intr.minnum", vec![clamped, hi], vty, true);
        let scaled = self.fbin("llvm.fmul", clamped, k, vty);
        let rounded = self.call_intr("llvm.intr.roundeven", vec![scaled], vty, true);
        let i32t = self.int_type(32);
        let narrow = self.int_type(bits);
        let wide_ty = self.ir.types.vector(lanes, i32t);
        let narrow_ty = self.ir.types.vector(lanes, narrow);
        let whole = self.emit_value("llvm.fptosi", vec![rounded], wide_ty, vec![]);
        let cut = self.emit_value(
            "llvm.trunc",
            vec![whole],
            narrow_ty,
            vec![("overflowFlags", self.int_attr(0, 32))],
        );
        Some(self.emit_value("llvm.bitcast", vec![cut], ty, vec![]))
    }

    /// unpackUnorm4x8/...: each component divided by its scale (snorm clamped to -1).
    fn unpack_normalized(&mut self, p: Value, name: &str, ty: Type) -> Option<Value> {
        let signed = name.contains("Snorm");
        let bits: u32 = if name.ends_with("4x8") { 8 } else { 16 };
        let TypeKind::Vector { shape, .. } = self.ir.types.kind(ty).clone() else { return None };
        let lanes = shape.iter().product::<u64>();
        let narrow = self.int_type(bits);
        let narrow_ty = self.ir.types.vector(lanes, narrow);
        let parts = self.emit_value("llvm.bitcast", vec![p], narrow_ty, vec![]);
        let convert = if signed { "llvm.sitofp" } else { "llvm.uitofp" };
        let f = self.emit_value(convert, vec![parts], ty, vec![]);
        let scale = if signed { (1u32 << (bits - 1)) - 1 } else { (1u32 << bits) - 1 };
        let k = self.const_of_type(ty, 0, f64::from(scale));
        let q = self.fbin("llvm.fdiv", f, k, ty);
        Some(if signed {
            let minus = self.const_of_type(ty, -1, -1.0);
            self.call_intr("llvm.intr.maxnum", vec![q, minus], ty, true)
        } else {
            q
        })
    }

    /// The scalar elements of a matrix value, by column then row.
    pub(crate) fn matrix_elements(&mut self, m: Value) -> Option<Vec<Vec<Value>>> {
        let TypeKind::LlvmArray { count, element: column } =
            self.ir.types.kind(self.ir.value_type(m)).clone()
        else {
            return None;
        };
        let TypeKind::Vector { shape, element, .. } = self.ir.types.kind(column).clone() else { return None };
        let rows = shape.iter().product::<u64>();
        let mut out = Vec::new();
        for c in 0..count {
            let i64t = self.int_type(64);
            let position = Attribute::DenseArray {
                element: i64t,
                values: vec![Attribute::Integer { value: i128::from(c), ty: i64t }],
            };
            let col = self.emit_value("llvm.extractvalue", vec![m], column, vec![("position", position)]);
            let mut values = Vec::new();
            for r in 0..rows {
                let index = self.const_int(i128::from(r), 32);
                values.push(self.emit_value("llvm.extractelement", vec![col, index], element, vec![]));
            }
            out.push(values);
        }
        Some(out)
    }

    fn icmp(&mut self, predicate: i128, a: Value, b: Value, ty: Type) -> Value {
        let bool_ty = self.bool_like(ty);
        self.emit_value("llvm.icmp", vec![a, b], bool_ty, vec![("predicate", self.int_attr(predicate, 64))])
    }

    fn element_bits(&self, ty: Type) -> u32 {
        match self.ir.types.kind(self.ir.types.scalar_of(ty)) {
            TypeKind::Integer { width, .. } => *width,
            TypeKind::Float(k) => k.width(),
            _ => 32,
        }
    }
}
