//! Intrinsic functions, mapped as SPIR-V.rst maps them: GLSL.std.450 extended
//! instructions (`spirv.GL.*`), core instructions, barriers, atomics and wave ops.

use super::expr::Place;
use super::resources::Opnd;
use super::{Emitter, R};
use crate::builder::{enum_attr, prop};
use crate::types::CodegenError;
use spirvkit_hlsl::ast::ExprId;
use spirvkit_hlsl::sema::tree::{CallInfo, ConstValue};
use spirvkit_hlsl::sema::types::{Majorness, Scalar, Ty, TypeData, TypeTable};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::Value;
use spirvkit_ir::types::{FloatKind, Signedness, StructBody, StructMember, Type, TypeKind};

/// Builds one row's (or the whole value's) result from its arguments and result type.
type RowOp<'b, 't> = &'b mut dyn FnMut(&mut Emitter<'t>, Vec<Value>, Type) -> R<Value>;

impl<'t> Emitter<'t> {
    /// The arguments converted to the chosen overload's parameter types.
    fn args(&mut self, args: &[ExprId], call: &CallInfo) -> R<Vec<Value>> {
        let mut out = Vec::new();
        for (i, &a) in args.iter().enumerate() {
            let to = call.params.get(i).map_or_else(|| self.tree.converted_type(a), |p| p.0);
            out.push(self.rvalue_as(a, to)?);
        }
        Ok(out)
    }

    pub(super) fn param_ty(&self, call: &CallInfo, i: usize) -> Ty {
        call.params.get(i).map_or(TypeTable::ERROR, |p| p.0)
    }

    /// The IR type of one row of matrix type `ty` (a vector of its columns).
    fn row_type(&mut self, ty: Ty) -> R<Option<Type>> {
        match self.matrix_shape(ty) {
            Some((s, _, cols)) => {
                let row = self.vector_ty(s, cols);
                Ok(Some(self.ty(row)?))
            }
            None => Ok(None),
        }
    }

    /// Builds `build(args, result type)`; when the result or an argument is a matrix,
    /// row by row as dxc does (SPIR-V defines these instructions on vectors only): each
    /// matrix argument's row is extracted in argument order, the row results are
    /// composed into the result.
    fn rowwise(&mut self, args: &[Value], arg_tys: &[Ty], ret: Ty, build: RowOp<'_, 't>) -> R<Value> {
        let t = self.ty(ret)?;
        let rows = std::iter::once(ret)
            .chain(arg_tys.iter().copied())
            .find_map(|ty| self.matrix_shape(ty))
            .map(|(_, rows, _)| rows);
        let Some(rows) = rows else { return build(self, args.to_vec(), t) };
        let Some(ret_row) = self.row_type(ret)? else {
            return self.unsupported(format!("this intrinsic returning '{}'", self.table.display(ret)));
        };
        let mut arg_rows = Vec::new();
        for &ty in arg_tys {
            arg_rows.push(self.row_type(ty)?);
        }
        let mut out = Vec::new();
        for r in 0..rows {
            let mut parts = Vec::new();
            for (i, &a) in args.iter().enumerate() {
                parts.push(match arg_rows.get(i).copied().flatten() {
                    Some(row) => self.extract(a, &[r], row),
                    None => a,
                });
            }
            out.push(build(self, parts, ret_row)?);
        }
        Ok(self.construct(out, t))
    }

    /// The parameter types of the chosen overload, one per argument.
    fn param_tys(&self, call: &CallInfo, n: usize) -> Vec<Ty> {
        (0..n).map(|i| self.param_ty(call, i)).collect()
    }

    /// A GLSL.std.450 instruction applied to the arguments; on matrices, row by row.
    fn gl(&mut self, name: &str, args: Vec<Value>, ty: Ty) -> R<Value> {
        let tys: Vec<Ty> = vec![ty; args.len()];
        let op = format!("spirv.GL.{name}");
        self.rowwise(&args, &tys, ty, &mut |s, a, t| Ok(s.val(&op, a, t)))
    }

    /// A core instruction applied to the arguments (of the chosen overload's types); on
    /// matrices, row by row.
    fn core_rowwise(&mut self, op: &str, args: &[Value], call: &CallInfo, ret: Ty) -> R<Value> {
        let tys = self.param_tys(call, args.len());
        self.rowwise(args, &tys, ret, &mut |s, a, t| Ok(s.val(op, a, t)))
    }

    fn component_of(&self, ty: Ty) -> Scalar {
        self.table.component(ty).map(Scalar::concrete).unwrap_or(Scalar::Float)
    }

    /// `ty` with its components of scalar `s` (same shape).
    fn with_component(&self, ty: Ty, s: Scalar) -> Ty {
        match self.data(ty) {
            TypeData::Matrix { rows, cols, .. } if *rows > 1 && *cols > 1 => self.hlsl(TypeData::Matrix {
                elem: s.concrete(),
                rows: *rows,
                cols: *cols,
                major: Majorness::Default,
            }),
            _ => self.vector_ty(s, self.scalar_shape(ty).map_or(1, |x| x.1)),
        }
    }

    /// `msad4(reference, source, accum)`, dxc's expansion: the four 4-byte windows of
    /// `source.x:source.y` (by bit-field inserts), then per window the sum of absolute
    /// byte differences against `reference`, skipping bytes where `reference` is 0.
    fn msad4(&mut self, reference: Value, source: Value, accum: Value) -> R<Value> {
        let ut = self.u32_type();
        let it = self.i32_type();
        let bt = self.bool_type();
        let c = |s: &mut Self, n: u32| s.u32_constant(n);
        let src0 = self.extract(source, &[0], ut);
        let mut shifted = Vec::new();
        for n in [8, 16, 24] {
            let k = c(self, n);
            shifted.push(self.val("spirv.ShiftLeftLogical", vec![src0, k], ut));
        }
        let src1 = self.extract(source, &[1], ut);
        let mut windows = vec![src0];
        for (i, (offset, count)) in [(24, 8), (16, 16), (8, 24)].into_iter().enumerate() {
            let (o, n) = (c(self, offset), c(self, count));
            windows.push(self.val("spirv.BitFieldInsert", vec![shifted[i], src1, o, n], ut));
        }
        let mut sums: Vec<Value> = (0..4).map(|i| self.extract(accum, &[i], ut)).collect();
        let zero = c(self, 0);
        let eight = c(self, 8);
        let mut reference_bytes = Vec::new();
        for byte in 0..4 {
            let offset = c(self, 8 * byte);
            let r = self.val("spirv.BitFieldUExtract", vec![reference, offset, eight], ut);
            let signed = self.val("spirv.Bitcast", vec![r], it);
            let is_zero = self.val("spirv.IEqual", vec![r, zero], bt);
            reference_bytes.push((signed, is_zero));
        }
        for (window, sum) in windows.into_iter().zip(sums.iter_mut()) {
            for (byte, &(signed_ref, is_zero)) in (0u32..).zip(&reference_bytes) {
                let offset = c(self, 8 * byte);
                let s = self.val("spirv.BitFieldUExtract", vec![window, offset, eight], ut);
                let signed = self.val("spirv.Bitcast", vec![s], it);
                let diff = self.val("spirv.ISub", vec![signed_ref, signed], it);
                let abs = self.val("spirv.GL.SAbs", vec![diff], it);
                let unsigned = self.val("spirv.Bitcast", vec![abs], ut);
                let chosen = self.val("spirv.Select", vec![is_zero, zero, unsigned], ut);
                *sum = self.val("spirv.IAdd", vec![*sum, chosen], ut);
            }
        }
        let v4 = self.vec_type(ut, 4);
        Ok(self.construct(sums, v4))
    }

    fn no_contraction() -> NamedAttribute {
        prop("no_contraction", Attribute::Unit)
    }

    /// A named struct of two members for `ModfStruct`/`FrexpStruct` (dxc's
    /// `ModfStructType { frac, ip }`); one per member type pair.
    fn result_struct(&mut self, base: &str, members: [(&str, Type); 2]) -> Type {
        let body = StructBody {
            members: members
                .iter()
                .map(|&(_, ty)| StructMember { ty, offset: None, decorations: vec![] })
                .collect(),
            decorations: vec![],
        };
        let mut name = base.to_string();
        let mut n = 0;
        loop {
            match self.store().struct_body(&name) {
                Some(b) if *b == body => break,
                Some(_) => {
                    name = format!("{base}.{n}");
                    n += 1;
                }
                None => {
                    let _ = self.store().set_struct_body(&name, body.clone());
                    let names = members.iter().map(|(m, _)| m.to_string()).collect();
                    self.store().set_struct_member_names(&name, names);
                    break;
                }
            }
        }
        let ty = self.store().intern(TypeKind::IdentifiedStruct { name });
        // dxc names every such struct alike (`ModfStructType`, `ModfStructType_0`, ...).
        self.store().set_type_name(ty, base);
        ty
    }

    /// The value of argument `i` converted to the overload's parameter type.
    pub(crate) fn arg_value(&mut self, args: &[ExprId], call: &CallInfo, i: usize) -> R<Value> {
        let a = self.arg(args, i)?;
        let to = call.params.get(i).map_or_else(|| self.tree.converted_type(a), |p| p.0);
        self.rvalue_as(a, to)
    }

    /// Stores `v` (of HLSL type `ty`) to the `out` argument `e`, converted to its type.
    fn store_out(&mut self, e: ExprId, v: Value, ty: Ty) -> R<()> {
        let place = self.place(e)?;
        let pty = place.ty();
        let v = self.convert(v, ty, pty)?;
        self.store_place(&place, v)
    }

    /// `x` as a `bool` of its shape (scalar/vector), from its own type.
    fn bool_of(&mut self, e: ExprId) -> R<(Value, u32)> {
        let ty = self.tree.converted_type(e);
        let v = self.rvalue(e)?;
        let n = self.scalar_shape(ty).map_or(1, |s| s.1);
        Ok((self.truth_value(v, ty)?, n))
    }

    /// Splats a bool scalar to `n` components.
    fn splat_bool(&mut self, b: Value, n: u32) -> R<Value> {
        if n <= 1 {
            return Ok(b);
        }
        let bt = self.bool_ty_of(n);
        let t = self.ty(bt)?;
        Ok(self.construct(vec![b; n as usize], t))
    }

    pub(super) fn intrinsic(&mut self, name: &str, _e: ExprId, args: &[ExprId], call: &CallInfo) -> R<Value> {
        let ret = call.ret;
        let p0 = self.param_ty(call, 0);
        let elem = self.component_of(p0);
        let float = elem.is_float();
        let signed = elem.is_signed();
        let unary_gl = |n: &str| -> Option<&'static str> {
            Some(match n {
                "acos" => "Acos",
                "asin" => "Asin",
                "atan" => "Atan",
                "ceil" => "Ceil",
                "cos" => "Cos",
                "cosh" => "Cosh",
                "degrees" => "Degrees",
                "radians" => "Radians",
                "exp" => "Exp",
                "exp2" => "Exp2",
                "floor" => "Floor",
                "frac" => "Fract",
                "log" => "Log",
                "log2" => "Log2",
                "normalize" => "Normalize",
                "round" => "RoundEven",
                "rsqrt" => "InverseSqrt",
                "sin" => "Sin",
                "sinh" => "Sinh",
                "sqrt" => "Sqrt",
                "tan" => "Tan",
                "tanh" => "Tanh",
                "trunc" => "Trunc",
                "determinant" => "Determinant",
                _ => return None,
            })
        };
        if let Some(g) = unary_gl(name) {
            let a = self.args(args, call)?;
            if name == "determinant" {
                let t = self.ty(ret)?;
                return Ok(self.val("spirv.GL.Determinant", a, t));
            }
            return self.gl(g, a, ret);
        }
        match name {
            "abs" => {
                let a = self.args(args, call)?;
                if !signed {
                    return Ok(a[0]);
                }
                self.gl(if float { "FAbs" } else { "SAbs" }, a, ret)
            }
            "atan2" => {
                let a = self.args(args, call)?;
                self.gl("Atan2", a, ret)
            }
            "pow" => {
                let a = self.args(args, call)?;
                self.gl("Pow", a, ret)
            }
            "ldexp" => {
                let a = self.args(args, call)?;
                let tys = self.param_tys(call, 2);
                // ldexp(x, e) = x * exp2(e).
                self.rowwise(&a, &tys, ret, &mut |s, a, t| {
                    let e = s.val("spirv.GL.Exp2", vec![a[1]], t);
                    Ok(s.val("spirv.FMul", vec![a[0], e], t))
                })
            }
            "max" | "min" => {
                let a = self.args(args, call)?;
                let finite = self.options.finite_math_only;
                let op = match (name, float, signed) {
                    ("max", true, _) if finite => "FMax",
                    ("max", true, _) => "NMax",
                    ("max", false, true) => "SMax",
                    ("max", false, false) => "UMax",
                    ("min", true, _) if finite => "FMin",
                    ("min", true, _) => "NMin",
                    ("min", false, true) => "SMin",
                    _ => "UMin",
                };
                self.gl(op, a, ret)
            }
            "clamp" => {
                let a = self.args(args, call)?;
                self.gl(
                    if float {
                        "FClamp"
                    } else if signed {
                        "SClamp"
                    } else {
                        "UClamp"
                    },
                    a,
                    ret,
                )
            }
            "saturate" => {
                let a = self.args(args, call)?;
                if !float {
                    // dxc: saturate of an integer converts to float first.
                    let fty = self.with_component(p0, Scalar::Float);
                    let x = self.convert(a[0], p0, fty)?;
                    let r = self.rowwise(&[x], &[fty], fty, &mut |s, a, t| {
                        let zero = s.splat_constant(ConstValue::Float(0.0), t);
                        let one = s.splat_constant(ConstValue::Float(1.0), t);
                        Ok(s.val("spirv.GL.FClamp", vec![a[0], zero, one], t))
                    })?;
                    return self.convert(r, fty, ret);
                }
                self.rowwise(&a, &[p0], ret, &mut |s, a, t| {
                    let zero = s.splat_constant(ConstValue::Float(0.0), t);
                    let one = s.splat_constant(ConstValue::Float(1.0), t);
                    Ok(s.val("spirv.GL.FClamp", vec![a[0], zero, one], t))
                })
            }
            "lerp" => {
                let a = self.args(args, call)?;
                self.gl("FMix", a, ret)
            }
            "mad" => {
                let a = self.args(args, call)?;
                let tys = self.param_tys(call, 3);
                // dxc keeps mad exact (NoContraction) on every form.
                self.rowwise(&a, &tys, ret, &mut |s, a, t| {
                    if float {
                        return Ok(s.val_props("spirv.GL.Fma", a, t, vec![Self::no_contraction()]));
                    }
                    let m = s.val_props("spirv.IMul", vec![a[0], a[1]], t, vec![Self::no_contraction()]);
                    Ok(s.val_props("spirv.IAdd", vec![m, a[2]], t, vec![Self::no_contraction()]))
                })
            }
            "smoothstep" => {
                let a = self.args(args, call)?;
                self.gl("SmoothStep", a, ret)
            }
            "step" => {
                let a = self.args(args, call)?;
                self.gl("Step", a, ret)
            }
            "fma" => {
                let a = self.args(args, call)?;
                self.gl("Fma", a, ret)
            }
            "sign" => {
                let a = self.args(args, call)?;
                if float {
                    let v = self.gl("FSign", a, p0)?;
                    return self.convert(v, p0, ret);
                }
                if signed {
                    let v = self.gl("SSign", a, p0)?;
                    return self.convert(v, p0, ret);
                }
                // Unsigned: x > 0 ? 1 : 0, row by row on matrices.
                self.rowwise(&a, &[p0], ret, &mut |s, a, t| {
                    let ut = s.ir.value_type(a[0]);
                    let zero = s.splat_constant(ConstValue::Int(0), ut);
                    let bt = s.bool_like(t);
                    let gt = s.val("spirv.UGreaterThan", vec![a[0], zero], bt);
                    let one = s.splat_constant(ConstValue::Int(1), t);
                    let izero = s.splat_constant(ConstValue::Int(0), t);
                    Ok(s.val("spirv.Select", vec![gt, one, izero], t))
                })
            }
            "rcp" => {
                let a = self.args(args, call)?;
                self.rowwise(&a, &[p0], ret, &mut |s, a, t| {
                    let one = s.splat_constant(ConstValue::Float(1.0), t);
                    Ok(s.val("spirv.FDiv", vec![one, a[0]], t))
                })
            }
            "log10" => {
                let a = self.args(args, call)?;
                let l = self.gl("Log2", a, ret)?;
                let t = self.ty(ret)?;
                let st = self.ty(self.scalar_ty(elem))?;
                let k = self.scalar_constant(ConstValue::Float(std::f64::consts::LOG10_2), st);
                let op = if self.matrix_shape(ret).is_some() {
                    "spirv.MatrixTimesScalar"
                } else if self.scalar_shape(ret).is_some_and(|s| s.1 > 1) {
                    "spirv.VectorTimesScalar"
                } else {
                    "spirv.FMul"
                };
                Ok(self.val(op, vec![l, k], t))
            }
            "fmod" => {
                let a = self.args(args, call)?;
                self.core_rowwise("spirv.FRem", &a, call, ret)
            }
            "length" => {
                let a = self.args(args, call)?;
                let t = self.ty(ret)?;
                Ok(self.val("spirv.GL.Length", a, t))
            }
            "distance" => {
                let a = self.args(args, call)?;
                self.gl("Distance", a, ret)
            }
            "cross" => {
                let a = self.args(args, call)?;
                self.gl("Cross", a, ret)
            }
            "reflect" => {
                let a = self.args(args, call)?;
                self.gl("Reflect", a, ret)
            }
            "refract" => {
                let a = self.args(args, call)?;
                self.gl("Refract", a, ret)
            }
            "faceforward" => {
                let a = self.args(args, call)?;
                self.gl("FaceForward", a, ret)
            }
            "dot" => {
                let a = self.args(args, call)?;
                let t = self.ty(ret)?;
                if self.scalar_shape(p0).is_some_and(|(_, n)| n == 1) {
                    let name = if float { "spirv.FMul" } else { "spirv.IMul" };
                    return Ok(self.val(name, a, t));
                }
                if float {
                    return Ok(self.val("spirv.Dot", a, t));
                }
                let n = self.scalar_shape(p0).map_or(1, |s| s.1);
                Ok(self.int_dot(a[0], a[1], n, t))
            }
            "mul" => self.mul(args, call),
            "transpose" => {
                let a = self.args(args, call)?;
                let Some((s, rows, cols)) = self.matrix_shape(p0) else {
                    return Ok(a[0]);
                };
                let t = self.ty(ret)?;
                if s.is_float() {
                    return Ok(self.val("spirv.Transpose", a, t));
                }
                // Integer and bool matrices are arrays of vectors: element by element.
                self.int_transpose(a[0], s, rows, cols)
            }
            "isnan" | "isinf" => {
                let a = self.args(args, call)?;
                self.core_rowwise(if name == "isnan" { "spirv.IsNan" } else { "spirv.IsInf" }, &a, call, ret)
            }
            "isfinite" => {
                let a = self.args(args, call)?;
                self.rowwise(&a, &[p0], ret, &mut |s, a, t| {
                    let nan = s.val("spirv.IsNan", a.clone(), t);
                    let inf = s.val("spirv.IsInf", a, t);
                    let either = s.val("spirv.LogicalOr", vec![nan, inf], t);
                    Ok(s.val("spirv.LogicalNot", vec![either], t))
                })
            }
            "any" | "all" => {
                let a = self.args(args, call)?;
                if let Some((_, rows, cols)) = self.matrix_shape(p0) {
                    // Per row, then over the rows.
                    let row = self.vector_ty(elem, cols);
                    let row_t = self.ty(row)?;
                    let bool_t = self.bool_type();
                    let op = if name == "any" { "spirv.Any" } else { "spirv.All" };
                    let mut parts = Vec::new();
                    for r in 0..rows {
                        let x = self.extract(a[0], &[r], row_t);
                        let b = self.truth_value(x, row)?;
                        parts.push(self.val(op, vec![b], bool_t));
                    }
                    let bt = self.bool_ty_of(rows);
                    let bv = self.ty(bt)?;
                    let v = self.construct(parts, bv);
                    return Ok(self.val(op, vec![v], bool_t));
                }
                let (_, n) = self.scalar_shape(p0).unwrap_or((Scalar::Bool, 1));
                let b = self.truth_value(a[0], p0)?;
                if n == 1 {
                    return Ok(b);
                }
                let t = self.ty(ret)?;
                Ok(self.val(if name == "any" { "spirv.Any" } else { "spirv.All" }, vec![b], t))
            }
            "countbits" | "reversebits" => {
                let a = self.args(args, call)?;
                let width = elem.bits(self.options.lower.sixteen_bit_types);
                if name == "countbits" && width != 32 {
                    return self.countbits_wide(a[0], p0, elem, ret);
                }
                if width != 32 {
                    return self.unsupported(format!("{name} on {width}-bit integers"));
                }
                let op = if name == "countbits" { "spirv.BitCount" } else { "spirv.BitReverse" };
                self.core_rowwise(op, &a, call, ret)
            }
            "firstbithigh" | "firstbitlow" => {
                let a = self.args(args, call)?;
                if elem.bits(self.options.lower.sixteen_bit_types) != 32 {
                    return self.rejected(&format!(
                        "{name} is currently limited to 32-bit width components when targeting SPIR-V"
                    ));
                }
                let op = match (name, signed) {
                    ("firstbitlow", _) => "FindILsb",
                    (_, true) => "FindSMsb",
                    _ => "FindUMsb",
                };
                self.gl(op, a, ret)
            }
            "asfloat" | "asint" | "asuint" | "asfloat16" | "asint16" | "asuint16" => {
                if name == "asuint" && args.len() == 3 {
                    return self.asuint_split(args, call);
                }
                let a = self.args(args, call)?;
                if args.len() != 1 {
                    return self.unsupported(format!("{name} with {} arguments", args.len()));
                }
                let from = self.table.component(p0).map(Scalar::concrete);
                let to = self.table.component(ret).map(Scalar::concrete);
                if from == to {
                    return Ok(a[0]);
                }
                self.core_rowwise("spirv.Bitcast", &a, call, ret)
            }
            "asdouble" => {
                let lo = self.arg_value(args, call, 0)?;
                let hi = self.arg_value(args, call, 1)?;
                let n = self.scalar_shape(p0).map_or(1, |s| s.1);
                let ut = self.u32_type();
                let v2 = self.vec_type(ut, 2);
                let dt = self.store().float(FloatKind::F64);
                if n == 1 {
                    // Built even from constants, as dxc does.
                    let pair = self.composite(vec![lo, hi], v2);
                    return Ok(self.val("spirv.Bitcast", vec![pair], dt));
                }
                let mut out = Vec::new();
                for i in 0..n {
                    let pair = self.shuffle(lo, hi, &[i, i + n], v2);
                    out.push(self.val("spirv.Bitcast", vec![pair], dt));
                }
                let t = self.ty(ret)?;
                Ok(self.construct(out, t))
            }
            "f32tof16" => {
                let a = self.args(args, call)?;
                let n = self.scalar_shape(p0).map_or(1, |s| s.1);
                let ft = self.f32_type();
                let v2 = self.vec_type(ft, 2);
                let ut = self.u32_type();
                let zero = self.scalar_constant(ConstValue::Float(0.0), ft);
                let mut out = Vec::new();
                for i in 0..n {
                    let x = if n == 1 { a[0] } else { self.extract(a[0], &[i], ft) };
                    let pair = self.construct(vec![x, zero], v2);
                    out.push(self.val("spirv.GL.PackHalf2x16", vec![pair], ut));
                }
                let t = self.ty(ret)?;
                Ok(if n == 1 { out[0] } else { self.construct(out, t) })
            }
            "f16tof32" => {
                let a = self.args(args, call)?;
                let n = self.scalar_shape(p0).map_or(1, |s| s.1);
                let ft = self.f32_type();
                let v2 = self.vec_type(ft, 2);
                let ut = self.u32_type();
                let mut out = Vec::new();
                for i in 0..n {
                    let x = if n == 1 { a[0] } else { self.extract(a[0], &[i], ut) };
                    let pair = self.val("spirv.GL.UnpackHalf2x16", vec![x], v2);
                    out.push(self.extract(pair, &[0], ft));
                }
                let t = self.ty(ret)?;
                Ok(if n == 1 { out[0] } else { self.construct(out, t) })
            }
            "ddx" | "ddy" | "ddx_fine" | "ddy_fine" | "ddx_coarse" | "ddy_coarse" | "fwidth" => {
                let a = self.args(args, call)?;
                let op = match name {
                    "ddx" => "spirv.DPdx",
                    "ddy" => "spirv.DPdy",
                    "ddx_fine" => "spirv.DPdxFine",
                    "ddy_fine" => "spirv.DPdyFine",
                    "ddx_coarse" => "spirv.DPdxCoarse",
                    "ddy_coarse" => "spirv.DPdyCoarse",
                    _ => "spirv.Fwidth",
                };
                self.implicit_lod_used();
                if matches!(name, "ddx_fine" | "ddy_fine" | "ddx_coarse" | "ddy_coarse") {
                    self.require("DerivativeControl", None);
                }
                if elem.bits(self.options.lower.sixteen_bit_types) != 32 {
                    // Vulkan's derivatives take 32-bit floats: convert there and back.
                    let fty = self.with_component(p0, Scalar::Float);
                    let x = self.convert(a[0], p0, fty)?;
                    let d = self.rowwise(&[x], &[fty], fty, &mut |s, a, t| {
                        Ok(s.fallback_val(op, &[Opnd::Id(a[0])], t))
                    })?;
                    return self.convert(d, fty, ret);
                }
                let tys = self.param_tys(call, 1);
                self.rowwise(&a, &tys, ret, &mut |s, a, t| Ok(s.fallback_val(op, &[Opnd::Id(a[0])], t)))
            }
            "sincos" => {
                let (Some(&s_out), Some(&c_out)) = (args.get(1), args.get(2)) else {
                    return self.unsupported("sincos without its out arguments");
                };
                for (op, out) in [("Sin", s_out), ("Cos", c_out)] {
                    let x = self.arg_value(args, call, 0)?;
                    let v = self.gl(op, vec![x], p0)?;
                    self.store_out(out, v, p0)?;
                }
                let vt = self.void_type();
                Ok(self.undef(vt))
            }
            "modf" | "frexp" => {
                let x = self.arg_value(args, call, 0)?;
                let out = self.arg(args, 1)?;
                let modf = name == "modf";
                let row_or_whole = match self.matrix_shape(p0) {
                    Some((s, rows, cols)) => (self.vector_ty(s, cols), rows),
                    None => (p0, 0),
                };
                let (part_ty, rows) = row_or_whole;
                let part_t = self.ty(part_ty)?;
                let int_part_ty = self.with_component(part_ty, Scalar::Int);
                let second_t = if modf { part_t } else { self.ty(int_part_ty)? };
                let st = if modf {
                    self.result_struct("ModfStructType", [("frac", part_t), ("ip", part_t)])
                } else {
                    self.result_struct("FrexpStructType", [("mantissa", part_t), ("exponent", second_t)])
                };
                let op = if modf { "spirv.GL.ModfStruct" } else { "spirv.GL.FrexpStruct" };
                // The second member goes to the out argument (as a float for frexp).
                let one = |s: &mut Self, v: Value| -> R<(Value, Value)> {
                    let r = s.val(op, vec![v], st);
                    let second = s.extract(r, &[1], second_t);
                    let second = if modf { second } else { s.convert(second, int_part_ty, part_ty)? };
                    let first = s.extract(r, &[0], part_t);
                    Ok((first, second))
                };
                if rows == 0 {
                    // dxc stores the out argument before extracting the result.
                    let r = self.val(op, vec![x], st);
                    let second = self.extract(r, &[1], second_t);
                    let second = if modf { second } else { self.convert(second, int_part_ty, part_ty)? };
                    self.store_out(out, second, p0)?;
                    return Ok(self.extract(r, &[0], part_t));
                }
                let (mut firsts, mut seconds) = (Vec::new(), Vec::new());
                for r in 0..rows {
                    let row = self.extract(x, &[r], part_t);
                    let (f, s) = one(self, row)?;
                    firsts.push(f);
                    seconds.push(s);
                }
                let t = self.ty(p0)?;
                let second = self.construct(seconds, t);
                self.store_out(out, second, p0)?;
                Ok(self.construct(firsts, t))
            }
            "select" => {
                let (Some(&c), Some(&x), Some(&y)) = (args.first(), args.get(1), args.get(2)) else {
                    return self.unsupported("select without three arguments");
                };
                // The condition as written (sema gives it the values' shape).
                let written = self.tree.expr(c).map_or(TypeTable::ERROR, |i| i.ty);
                let cond_is_scalar = self.scalar_shape(written).is_some_and(|s| s.1 == 1);
                let whole = self.scalar_shape(ret).is_none() || self.matrix_shape(ret).is_some();
                if cond_is_scalar && whole {
                    // A scalar condition choosing whole matrices: a branch through a
                    // temporary, as dxc emits it.
                    let v = self.expr_value(c)?;
                    let b = self.truth_value(v, written)?;
                    let xv = self.rvalue_as(x, ret)?;
                    let yv = self.rvalue_as(y, ret)?;
                    let t = self.ty(ret)?;
                    let tmp = self.function_variable(t, "temp.var.ternary");
                    let (on_true, on_false) = (self.new_block("if.true"), self.new_block("if.false"));
                    let merge = self.new_block("if.merge");
                    self.selection_header(merge, 0);
                    self.branch_conditional(b, on_true, on_false);
                    for (block, v) in [(on_true, xv), (on_false, yv)] {
                        self.start_block(block);
                        self.store_to(tmp, v);
                        self.branch(merge);
                    }
                    self.start_block(merge);
                    return Ok(self.load(tmp));
                }
                if self.matrix_shape(ret).is_some() {
                    let cty = self.tree.converted_type(c);
                    let cv = self.rvalue(c)?;
                    let bty = self.with_component(cty, Scalar::Bool);
                    let b = self.convert(cv, cty, bty)?;
                    let xv = self.rvalue_as(x, ret)?;
                    let yv = self.rvalue_as(y, ret)?;
                    return self.rowwise(&[b, xv, yv], &[bty, ret, ret], ret, &mut |s, a, t| {
                        Ok(s.val("spirv.Select", a, t))
                    });
                }
                // A scalar condition is made a bool, then splat (dxc's order).
                let (b, n) = if cond_is_scalar {
                    let v = self.expr_value(c)?;
                    (self.truth_value(v, written)?, 1)
                } else {
                    self.bool_of(c)?
                };
                let m = self.scalar_shape(ret).map_or(1, |s| s.1);
                let b = if n == 1 && m > 1 { self.splat_bool(b, m)? } else { b };
                if let Some((wide, values)) = self.select_wide_literals(_e, ret, &[x, y]) {
                    let t = self.ty(wide)?;
                    let xv = self.splat_constant(values[0], t);
                    let yv = self.splat_constant(values[1], t);
                    return Ok(self.val("spirv.Select", vec![b, xv, yv], t));
                }
                let xv = self.rvalue_as(x, ret)?;
                let yv = self.rvalue_as(y, ret)?;
                let t = self.ty(ret)?;
                Ok(self.val("spirv.Select", vec![b, xv, yv], t))
            }
            "and" | "or" => {
                let (Some(&x), Some(&y)) = (args.first(), args.get(1)) else {
                    return self.unsupported(format!("{name} without two arguments"));
                };
                if self.matrix_shape(ret).is_some() {
                    return self.unsupported(format!("{name} on matrices"));
                }
                let m = self.scalar_shape(ret).map_or(1, |s| s.1);
                let (a, n) = self.bool_of(x)?;
                let a = if n < m { self.splat_bool(a, m)? } else { a };
                let (b, n) = self.bool_of(y)?;
                let b = if n < m { self.splat_bool(b, m)? } else { b };
                let bt = self.bool_ty_of(m);
                let t = self.ty(bt)?;
                let v = self.val(
                    if name == "and" { "spirv.LogicalAnd" } else { "spirv.LogicalOr" },
                    vec![a, b],
                    t,
                );
                self.convert(v, bt, ret)
            }
            "dst" => {
                let a = self.args(args, call)?;
                let ft = self.ty(self.scalar_ty(elem))?;
                let s0y = self.extract(a[0], &[1], ft);
                let s1y = self.extract(a[1], &[1], ft);
                let s0z = self.extract(a[0], &[2], ft);
                let s1w = self.extract(a[1], &[3], ft);
                let y = self.val("spirv.FMul", vec![s0y, s1y], ft);
                let one = self.scalar_constant(ConstValue::Float(1.0), ft);
                let t = self.ty(ret)?;
                Ok(self.construct(vec![one, y, s0z, s1w], t))
            }
            "D3DCOLORtoUBYTE4" => {
                let a = self.args(args, call)?;
                let vt = self.ty(p0)?;
                let swizzled = self.shuffle(a[0], a[0], &[2, 1, 0, 3], vt);
                let ft = self.f32_type();
                let k = self.scalar_constant(ConstValue::Float(255.002), ft);
                let scaled = self.val("spirv.VectorTimesScalar", vec![swizzled, k], vt);
                let t = self.ty(ret)?;
                Ok(self.val("spirv.ConvertFToS", vec![scaled], t))
            }
            "IsHelperLane" => {
                let bt = self.bool_type();
                let (major, minor) = self.options.spirv_version;
                if (major, minor) >= (1, 6) {
                    // SPIR-V 1.6 makes the built-in volatile: a plain load reads it.
                    let p = self.builtin_input("HelperInvocation", "gl_HelperInvocation", bt);
                    return Ok(self.load(p));
                }
                self.require("DemoteToHelperInvocation", Some("SPV_EXT_demote_to_helper_invocation"));
                Ok(self.fallback_val("spirv.IsHelperInvocationEXT", &[], bt))
            }
            "abort" | "GetRenderTargetSampleCount" | "GetRenderTargetSamplePosition" => {
                self.rejected(&format!("no equivalent for {name} intrinsic function in Vulkan"))
            }
            "CheckAccessFullyMapped" => {
                let a = self.args(args, call)?;
                let bt = self.bool_type();
                Ok(self.fallback_val("spirv.ImageSparseTexelsResident", &[Opnd::Id(a[0])], bt))
            }
            "pack_s8" | "pack_u8" | "pack_clamp_s8" | "pack_clamp_u8" => {
                let a = self.args(args, call)?;
                let vt = self.ir.value_type(a[0]);
                let mut v = a[0];
                if name.starts_with("pack_clamp") {
                    let (lo, hi) = if name == "pack_clamp_s8" { (-128, 127) } else { (0, 255) };
                    let lo = self.splat_constant(ConstValue::Int(lo), vt);
                    let hi = self.splat_constant(ConstValue::Int(hi), vt);
                    v = self.val("spirv.GL.SClamp", vec![v, lo, hi], vt);
                }
                let byte = if signed {
                    self.store().integer(8, Signedness::Signed)
                } else {
                    self.store().integer(8, Signedness::Signless)
                };
                let bytes_t = self.vec_type(byte, 4);
                let bytes =
                    self.val(if signed { "spirv.SConvert" } else { "spirv.UConvert" }, vec![v], bytes_t);
                let t = self.ty(ret)?;
                Ok(self.val("spirv.Bitcast", vec![bytes], t))
            }
            "unpack_s8s16" | "unpack_s8s32" | "unpack_u8u16" | "unpack_u8u32" => {
                let a = self.args(args, call)?;
                let s8 = name.starts_with("unpack_s");
                let byte = if s8 {
                    self.store().integer(8, Signedness::Signed)
                } else {
                    self.store().integer(8, Signedness::Signless)
                };
                let bytes_t = self.vec_type(byte, 4);
                let bytes = self.val("spirv.Bitcast", vec![a[0]], bytes_t);
                let t = self.ty(ret)?;
                Ok(self.val(if s8 { "spirv.SConvert" } else { "spirv.UConvert" }, vec![bytes], t))
            }
            "dot4add_u8packed" | "dot4add_i8packed" => {
                let a = self.args(args, call)?;
                let t = self.ty(ret)?;
                let (Some(&x), Some(&y), Some(&acc)) = (a.first(), a.get(1), a.get(2)) else {
                    return self.unsupported(format!("{name} without three arguments"));
                };
                let signed_dot = name == "dot4add_i8packed";
                let format = prop("format", enum_attr("packed_vector_format", "PackedVectorFormat4x8Bit"));
                let dot = if signed_dot {
                    self.val_props("spirv.SDot", vec![x, y], t, vec![format])
                } else {
                    self.val_props("spirv.UDot", vec![x, y], t, vec![format])
                };
                if self.options.spirv_version < (1, 6) {
                    self.require("DotProduct", Some("SPV_KHR_integer_dot_product"));
                    self.require("DotProductInput4x8BitPacked", None);
                }
                Ok(self.val("spirv.IAdd", vec![dot, acc], t))
            }
            "msad4" => {
                let a = self.args(args, call)?;
                let (Some(&reference), Some(&source), Some(&accum)) = (a.first(), a.get(1), a.get(2)) else {
                    return self.unsupported("msad4 without three arguments");
                };
                self.msad4(reference, source, accum)
            }
            "dot2add" => {
                // dot2add(half2 a, half2 b, float acc): the products in half, their
                // sum and the accumulator in float.
                let a = self.args(args, call)?;
                let (Some(&x), Some(&y), Some(&acc)) = (a.first(), a.get(1), a.get(2)) else {
                    return self.unsupported("dot2add without three arguments");
                };
                let ht = self.ir.value_type(x);
                let prod = self.val("spirv.FMul", vec![x, y], ht);
                let ft = self.f32_type();
                let f2 = self.vec_type(ft, 2);
                let wide = self.val("spirv.FConvert", vec![prod], f2);
                let e0 = self.extract(wide, &[0], ft);
                let e1 = self.extract(wide, &[1], ft);
                let sum = self.val("spirv.FAdd", vec![e0, e1], ft);
                Ok(self.val("spirv.FAdd", vec![sum, acc], ft))
            }
            "isnormal" => {
                let a = self.args(args, call)?;
                if elem.bits(self.options.lower.sixteen_bit_types) != 32 {
                    return self.unsupported("isnormal of non-32-bit floats");
                }
                // OpIsNormal needs Kernel: the exponent is neither all zeros nor all
                // ones, on matrices row by row.
                self.rowwise(&a, &[p0], ret, &mut |s, a, t| {
                    let n = match s.lower.store().kind(t) {
                        TypeKind::Vector { shape, .. } => shape.first().copied().unwrap_or(1) as u32,
                        _ => 1,
                    };
                    let ut = s.u32_type();
                    let u = s.vec_type(ut, n);
                    let bits = s.val("spirv.Bitcast", a, u);
                    let mask = s.splat_constant(ConstValue::Int(0x7f80_0000), u);
                    let zero = s.splat_constant(ConstValue::Int(0), u);
                    let exp = s.val("spirv.BitwiseAnd", vec![bits, mask], u);
                    let not_zero = s.val("spirv.INotEqual", vec![exp, zero], t);
                    let not_ones = s.val("spirv.INotEqual", vec![exp, mask], t);
                    Ok(s.val("spirv.LogicalAnd", vec![not_zero, not_ones], t))
                })
            }
            "clip" => {
                let a = self.args(args, call)?;
                let bool_t = self.bool_type();
                let cond = if let Some((_, rows, cols)) = self.matrix_shape(p0) {
                    let row = self.vector_ty(elem, cols);
                    let row_t = self.ty(row)?;
                    let zero = self.splat_constant(ConstValue::Float(0.0), row_t);
                    let brow = self.bool_ty_of(cols);
                    let brow_t = self.ty(brow)?;
                    let mut parts = Vec::new();
                    for r in 0..rows {
                        let x = self.extract(a[0], &[r], row_t);
                        let lt = self.val("spirv.FOrdLessThan", vec![x, zero], brow_t);
                        parts.push(self.val("spirv.Any", vec![lt], bool_t));
                    }
                    let bt = self.bool_ty_of(rows);
                    let bv = self.ty(bt)?;
                    let v = self.construct(parts, bv);
                    self.val("spirv.Any", vec![v], bool_t)
                } else {
                    let t = self.ty(p0)?;
                    let zero = self.splat_constant(ConstValue::Float(0.0), t);
                    let n = self.scalar_shape(p0).map_or(1, |s| s.1);
                    let bt = self.bool_ty_of(n);
                    let b = self.ty(bt)?;
                    let lt = self.val("spirv.FOrdLessThan", vec![a[0], zero], b);
                    if n > 1 {
                        self.val("spirv.Any", vec![lt], bool_t)
                    } else {
                        lt
                    }
                };
                let then_block = self.new_block("if.true");
                let merge = self.new_block("if.merge");
                self.selection_header(merge, 0);
                self.branch_conditional(cond, then_block, merge);
                self.start_block(then_block);
                if self.demote_allowed() {
                    self.require("DemoteToHelperInvocation", Some("SPV_EXT_demote_to_helper_invocation"));
                    self.fallback_effect("spirv.DemoteToHelperInvocation", &[]);
                    self.branch(merge);
                } else {
                    self.terminate("spirv.Kill", vec![], &[], Vec::new());
                }
                self.start_block(merge);
                let vt = self.void_type();
                Ok(self.undef(vt))
            }
            "SetMeshOutputCounts" => {
                let a = self.args(args, call)?;
                let (Some(&vertices), Some(&primitives)) = (a.first(), a.get(1)) else {
                    return self.unsupported("SetMeshOutputCounts without two arguments");
                };
                self.set_mesh_output_counts(vertices, primitives)?;
                let vt = self.void_type();
                Ok(self.undef(vt))
            }
            "DispatchMesh" => {
                self.dispatch_mesh(args, call)?;
                let vt = self.void_type();
                Ok(self.undef(vt))
            }
            "GroupMemoryBarrierWithGroupSync" => {
                self.barrier(true, "Workgroup", "AcquireRelease|WorkgroupMemory")
            }
            "GroupMemoryBarrier" => self.barrier(false, "Workgroup", "AcquireRelease|WorkgroupMemory"),
            "DeviceMemoryBarrierWithGroupSync" => {
                self.barrier(true, "Device", "AcquireRelease|UniformMemory|ImageMemory")
            }
            "DeviceMemoryBarrier" => {
                self.barrier(false, "Device", "AcquireRelease|UniformMemory|ImageMemory")
            }
            "AllMemoryBarrierWithGroupSync" => {
                self.barrier(true, "Device", "AcquireRelease|UniformMemory|WorkgroupMemory|ImageMemory")
            }
            "AllMemoryBarrier" => {
                self.barrier(false, "Device", "AcquireRelease|UniformMemory|WorkgroupMemory|ImageMemory")
            }
            n if n.starts_with("Interlocked") => {
                let place = self.place(self.arg(args, 0)?)?;
                self.interlocked(n, place, &args[1..], false)
            }
            n if n.starts_with("Wave") || n.starts_with("Quad") => self.wave(n, args, call),
            "ReadClock" => {
                // vk::ReadClock(scope): the scope is an id (a constant from `vk::*Scope`).
                let scope = self.arg_value(args, call, 0)?;
                let t = self.ty(ret)?;
                Ok(self.fallback_val("spirv.ReadClockKHR", &[Opnd::Id(scope)], t))
            }
            "ext_execution_mode" => self.ext_execution_mode(args, call, false),
            "RawBufferLoad" => self.raw_buffer_load(args, call),
            "RawBufferStore" => self.raw_buffer_store(args, call),
            "ext_execution_mode_id" => self.ext_execution_mode(args, call, true),
            "NonUniformResourceIndex" => {
                let index = self.arg_value(args, call, 0)?;
                Ok(self.non_uniform_index(index))
            }
            _ => self.unsupported(format!("intrinsic '{name}'")),
        }
    }

    /// A pointer to the Input built-in variable `builtin` (declared once, added to the
    /// entry point's interface).
    pub(super) fn builtin_input(&mut self, builtin: &str, var_name: &str, ty: Type) -> Value {
        let pt = self.pointer(ty, "Input");
        let key = format!("Input:{builtin}");
        let symbol_name = match self.resources.builtins.get(&key) {
            Some(s) => s.clone(),
            None => {
                let s = self.unique_symbol(var_name);
                let mut decorations = vec![prop("built_in", Attribute::String(builtin.into()))];
                // Vulkan: integer fragment inputs are Flat, built-ins too.
                let fragment =
                    self.entry.as_ref().map(|e| e.stage) == Some(spirvkit_hlsl::sema::tree::Stage::Pixel);
                if fragment && self.lower.store().is_integer(ty) && ty != self.bool_type() {
                    decorations.push(prop("flat", Attribute::Unit));
                }
                self.global_variable(&s, pt, decorations);
                self.interface.push(s.clone());
                self.resources.builtins.insert(key, s.clone());
                s
            }
        };
        self.addressof(&symbol_name, pt)
    }

    /// `select` of integer literals of which one does not fit 32 bits: dxc selects
    /// them as 64-bit integers (unless the result goes to a narrower integer). The
    /// 64-bit type and the literals' values.
    fn select_wide_literals(
        &self,
        call_expr: ExprId,
        ret: Ty,
        operands: &[ExprId],
    ) -> Option<(Ty, Vec<ConstValue>)> {
        let (Scalar::LiteralInt | Scalar::Int, n) = self.scalar_shape(ret)? else { return None };
        // The literals as written (their recorded constants are already narrowed).
        let mut values = Vec::new();
        for &o in operands {
            match &self.ast.expr(o).kind {
                spirvkit_hlsl::ast::ExprKind::IntLiteral { value, .. } => {
                    values.push(i64::try_from(*value).ok()?)
                }
                _ => return None,
            }
        }
        let wide = values.iter().any(|v| i32::try_from(*v).is_err());
        let target = self.tree.converted_type(call_expr);
        let to_narrow_int = self
            .scalar_shape(target)
            .is_some_and(|(s, _)| s.is_integer() && s.bits(self.options.lower.sixteen_bit_types) < 64);
        (wide && !to_narrow_int)
            .then(|| (self.vector_ty(Scalar::Int64, n), values.into_iter().map(ConstValue::Int).collect()))
    }

    /// The bool type of the shape of scalar/vector IR type `t`.
    fn bool_like(&mut self, t: Type) -> Type {
        let n = match self.lower.store().kind(t) {
            TypeKind::Vector { shape, .. } => shape.first().copied().unwrap_or(1) as u32,
            _ => 1,
        };
        let b = self.bool_type();
        self.vec_type(b, n)
    }

    /// Quad operations in a compute shader need a derivative group (dxc: quads when
    /// the group's x and y are even, else linear).
    fn quad_in_compute(&mut self) {
        // Mesh and amplification shaders run in workgroups too (SPV_KHR_compute_shader_derivatives).
        use spirvkit_hlsl::sema::tree::Stage;
        if !matches!(
            self.entry.as_ref().map(|e| e.stage),
            Some(Stage::Compute | Stage::Mesh | Stage::Amplification)
        ) {
            return;
        }
        // The dialect spells these by their first (NV) names; the words are the KHR
        // ones', and the driver adds the extension the grammar names.
        // The NV extension the grammar lists first comes with the driver's check.
        let extension = Some(self.compute_derivatives_extension()).filter(|e| e.contains("KHR"));
        self.require("ComputeDerivativeGroupQuadsNV", extension);
        self.require("ComputeDerivativeGroupLinearNV", extension);
        if self.execution_modes.iter().any(|(m, _)| m.starts_with("DerivativeGroup")) {
            return;
        }
        let size = self.execution_modes.iter().find(|(m, _)| m == "LocalSize").map(|(_, v)| v.clone());
        let quads = size
            .is_some_and(|v| v.first().is_some_and(|x| x % 2 == 0) && v.get(1).is_some_and(|y| y % 2 == 0));
        let mode = if quads { "DerivativeGroupQuadsNV" } else { "DerivativeGroupLinearNV" };
        self.execution_modes.push((mode.into(), vec![]));
    }

    /// Whether `OpDemoteToHelperInvocation` may replace `OpKill` (SPIR-V 1.6, or the
    /// extension allowed by `-fspv-extension`), as dxc decides.
    fn demote_allowed(&self) -> bool {
        self.options.spirv_version >= (1, 6)
            || self.options.extensions.iter().any(|e| e == "SPV_EXT_demote_to_helper_invocation")
    }

    /// An error dxc reports in these words.
    fn rejected<T>(&self, message: &str) -> R<T> {
        Err(super::CodegenDiagnostic {
            span: self.span,
            error: CodegenError::Rejected { message: message.to_string() },
        })
    }

    /// `countbits` of 16- and 64-bit integers: on 32-bit values (the 64-bit halves
    /// counted apart and added), as dxc does (`OpBitCount` needs 32 bits on Vulkan).
    fn countbits_wide(&mut self, v: Value, ty: Ty, elem: Scalar, ret: Ty) -> R<Value> {
        if self.matrix_shape(ty).is_some() {
            return self.unsupported("countbits on matrices of 16- or 64-bit integers");
        }
        let n = self.scalar_shape(ty).map_or(1, |s| s.1);
        let ut = self.u32_type();
        let u = self.vec_type(ut, n);
        let count = if elem.bits(self.options.lower.sixteen_bit_types) == 64 {
            let lo = self.val("spirv.UConvert", vec![v], u);
            let t = self.ir.value_type(v);
            let k = self.splat_constant(ConstValue::Int(32), u);
            let sh = self.val("spirv.ShiftRightLogical", vec![v, k], t);
            let hi = self.val("spirv.UConvert", vec![sh], u);
            let ca = self.val("spirv.BitCount", vec![lo], u);
            let cb = self.val("spirv.BitCount", vec![hi], u);
            self.val("spirv.IAdd", vec![cb, ca], u)
        } else {
            let wide = self.val("spirv.UConvert", vec![v], u);
            self.val("spirv.BitCount", vec![wide], u)
        };
        let uty = self.vector_ty(Scalar::UInt, n);
        self.convert(count, uty, ret)
    }

    /// `asuint(double, out uint low, out uint high)`, component by component.
    fn asuint_split(&mut self, args: &[ExprId], call: &CallInfo) -> R<Value> {
        let p0 = self.param_ty(call, 0);
        if let Some((_, rows, cols)) = self.matrix_shape(p0) {
            return self.asuint_split_matrix(args, call, rows, cols);
        }
        let v = self.arg_value(args, call, 0)?;
        let n = self.scalar_shape(p0).map_or(1, |s| s.1);
        let ut = self.u32_type();
        let v2 = self.vec_type(ut, 2);
        let dt = self.store().float(FloatKind::F64);
        let (mut lows, mut highs) = (Vec::new(), Vec::new());
        for i in 0..n {
            let d = if n == 1 { v } else { self.extract(v, &[i], dt) };
            let pair = self.val("spirv.Bitcast", vec![d], v2);
            lows.push(self.extract(pair, &[0], ut));
            highs.push(self.extract(pair, &[1], ut));
        }
        let uty = self.vector_ty(Scalar::UInt, n);
        let t = self.ty(uty)?;
        let (low, high) =
            if n == 1 { (lows[0], highs[0]) } else { (self.construct(lows, t), self.construct(highs, t)) };
        let (lo_e, hi_e) = (self.arg(args, 1)?, self.arg(args, 2)?);
        self.store_out(lo_e, low, uty)?;
        self.store_out(hi_e, high, uty)?;
        let vt = self.void_type();
        Ok(self.undef(vt))
    }

    /// `asuint(doubleMxN, out uintMxN low, out uintMxN high)`: row by row, element by
    /// element, the halves of each row composed, then the two matrices (dxc's order).
    fn asuint_split_matrix(&mut self, args: &[ExprId], call: &CallInfo, rows: u32, cols: u32) -> R<Value> {
        let v = self.arg_value(args, call, 0)?;
        let ut = self.u32_type();
        let v2 = self.vec_type(ut, 2);
        let dt = self.store().float(FloatKind::F64);
        let drow = self.vec_type(dt, cols);
        let urow = self.vec_type(ut, cols);
        let (mut low_rows, mut high_rows) = (Vec::new(), Vec::new());
        for r in 0..rows {
            let row = self.extract(v, &[r], drow);
            let (mut lows, mut highs) = (Vec::new(), Vec::new());
            for c in 0..cols {
                let d = self.extract(row, &[c], dt);
                let pair = self.val("spirv.Bitcast", vec![d], v2);
                lows.push(self.extract(pair, &[0], ut));
                highs.push(self.extract(pair, &[1], ut));
            }
            low_rows.push(self.composite(lows, urow));
            high_rows.push(self.composite(highs, urow));
        }
        let uty = self.hlsl(TypeData::Matrix {
            elem: Scalar::UInt,
            rows: rows as u8,
            cols: cols as u8,
            major: Majorness::Default,
        });
        let t = self.ty(uty)?;
        let low = self.composite(low_rows, t);
        let high = self.composite(high_rows, t);
        let (lo_e, hi_e) = (self.arg(args, 1)?, self.arg(args, 2)?);
        self.store_out(lo_e, low, uty)?;
        self.store_out(hi_e, high, uty)?;
        let vt = self.void_type();
        Ok(self.undef(vt))
    }

    /// The transpose of an integer (array-of-rows) matrix value, element by element.
    fn int_transpose(&mut self, m: Value, s: Scalar, rows: u32, cols: u32) -> R<Value> {
        let st = self.ty(self.scalar_ty(s))?;
        let mut elems = Vec::new();
        for r in 0..rows {
            for c in 0..cols {
                elems.push(self.extract(m, &[r, c], st));
            }
        }
        let new_row = self.ty(self.vector_ty(s, rows))?;
        let mut out = Vec::new();
        for c in 0..cols {
            let parts = (0..rows).map(|r| elems[(r * cols + c) as usize]).collect();
            out.push(self.construct(parts, new_row));
        }
        let mt = self.hlsl(TypeData::Matrix {
            elem: s.concrete(),
            rows: cols as u8,
            cols: rows as u8,
            major: Majorness::Default,
        });
        let t = self.ty(mt)?;
        Ok(self.construct(out, t))
    }

    /// The dot product of two integer vectors of `n` components: products, then sums.
    fn int_dot(&mut self, a: Value, b: Value, n: u32, t: Type) -> Value {
        let mut products = Vec::new();
        for i in 0..n {
            let x = self.extract(a, &[i], t);
            let y = self.extract(b, &[i], t);
            products.push(self.val("spirv.IMul", vec![x, y], t));
        }
        let mut sum = products[0];
        for &p in &products[1..] {
            sum = self.val("spirv.IAdd", vec![sum, p], t);
        }
        sum
    }

    fn barrier(&mut self, control: bool, memory_scope: &str, semantics: &str) -> R<Value> {
        if control {
            self.effect(
                "spirv.ControlBarrier",
                vec![],
                vec![
                    prop("execution_scope", enum_attr("scope", "Workgroup")),
                    prop("memory_scope", enum_attr("scope", memory_scope)),
                    prop("memory_semantics", enum_attr("memory_semantics", semantics)),
                ],
            );
        } else {
            self.effect(
                "spirv.MemoryBarrier",
                vec![],
                vec![
                    prop("memory_scope", enum_attr("scope", memory_scope)),
                    prop("memory_semantics", enum_attr("memory_semantics", semantics)),
                ],
            );
        }
        let vt = self.void_type();
        Ok(self.undef(vt))
    }

    /// `Interlocked*(dest, value[, original])` on a place (buffer element, groupshared,
    /// texel). `uint_operands`: the operands are `uint` parameters (the byte-address
    /// methods), so an integer literal is a `uint` constant, not an `int` cast.
    pub(super) fn interlocked(
        &mut self,
        name: &str,
        place: Place,
        rest: &[ExprId],
        uint_operands: bool,
    ) -> R<Value> {
        let (ptr, ty) = match &place {
            Place::Ptr { ptr, ty, .. } => (*ptr, *ty),
            Place::Components { ptr, vector, components, ty, rule } if components.len() == 1 => {
                let t = self.ty_in(*ty, *rule)?;
                let i = self.i32_constant(components[0] as i32);
                let _ = vector;
                (self.access_chain(*ptr, vec![i], t), *ty)
            }
            Place::Texel { image, coord, ty, object } => {
                let elem = self.object_element(*object);
                let st = self.ty(elem)?;
                let pt = self.pointer(st, "Image");
                let zero = self.u32_constant(0);
                let p = self.fallback_val(
                    "spirv.ImageTexelPointer",
                    &[Opnd::Id(*image), Opnd::Id(*coord), Opnd::Id(zero)],
                    pt,
                );
                (p, *ty)
            }
            _ => return self.unsupported(format!("{name} on this destination")),
        };
        let elem = self.component_of(ty);
        let t = self.ty(ty)?;
        let class = self.storage_class_of(ptr);
        if !matches!(
            class.as_str(),
            "Workgroup" | "StorageBuffer" | "Uniform" | "Image" | "PhysicalStorageBuffer"
        ) {
            return self.unsupported(format!(
                "{name} on a value in {class} storage (not a buffer, groupshared or texel)"
            ));
        }
        let scope = if class == "Workgroup" { "Workgroup" } else { "Device" };
        let scope_attr = enum_attr("scope", scope);
        let none = enum_attr("memory_semantics", "None");
        let (result, out_arg) = if name == "InterlockedCompareExchange" || name == "InterlockedCompareStore" {
            let cmp = self.atomic_operand(rest[0], ty, uint_operands)?;
            let v = self.atomic_operand(rest[1], ty, uint_operands)?;
            let r = self.val_props(
                "spirv.AtomicCompareExchange",
                vec![ptr, v, cmp],
                t,
                vec![
                    prop("memory_scope", scope_attr),
                    prop("equal_semantics", none.clone()),
                    prop("unequal_semantics", none),
                ],
            );
            (r, rest.get(2).copied())
        } else {
            let op = match name {
                "InterlockedAdd" => "spirv.AtomicIAdd",
                "InterlockedAnd" => "spirv.AtomicAnd",
                "InterlockedOr" => "spirv.AtomicOr",
                "InterlockedXor" => "spirv.AtomicXor",
                "InterlockedExchange" => "spirv.AtomicExchange",
                "InterlockedMin" if elem.is_signed() => "spirv.AtomicSMin",
                "InterlockedMin" => "spirv.AtomicUMin",
                "InterlockedMax" if elem.is_signed() => "spirv.AtomicSMax",
                "InterlockedMax" => "spirv.AtomicUMax",
                _ => return self.unsupported(format!("intrinsic '{name}'")),
            };
            let v = self.atomic_operand(rest[0], ty, uint_operands)?;
            let r = self.val_props(
                op,
                vec![ptr, v],
                t,
                vec![prop("memory_scope", scope_attr), prop("semantics", none)],
            );
            (r, rest.get(1).copied())
        };
        if let Some(out) = out_arg {
            let place = self.place(out)?;
            let pty = place.ty();
            let r = self.convert(result, ty, pty)?;
            self.store_place(&place, r)?;
        }
        let vt = self.void_type();
        Ok(self.undef(vt))
    }

    /// An atomic's value operand converted to `ty`; an integer literal passed to a
    /// `uint` parameter is made a constant of `ty` directly.
    fn atomic_operand(&mut self, e: ExprId, ty: Ty, uint_operands: bool) -> R<Value> {
        if uint_operands && self.component_of(ty) == Scalar::UInt {
            if let (spirvkit_hlsl::ast::ExprKind::IntLiteral { value, .. }, Some((_, 1))) =
                (&self.ast.expr(e).kind, self.scalar_shape(ty))
            {
                if let Ok(v) = u32::try_from(*value) {
                    return Ok(self.u32_constant(v));
                }
            }
        }
        self.rvalue_as(e, ty)
    }

    fn mul(&mut self, args: &[ExprId], call: &CallInfo) -> R<Value> {
        let (a_ty, b_ty, ret) = (self.param_ty(call, 0), self.param_ty(call, 1), call.ret);
        let float = self.component_of(ret).is_float();
        let scalar_first = self.scalar_shape(a_ty).is_some_and(|s| s.1 == 1)
            && self.scalar_shape(b_ty).is_some_and(|s| s.1 > 1);
        // dxc evaluates `mul(scalar, vector)` vector first.
        let (x, y) = if scalar_first {
            let y = self.arg_value(args, call, 1)?;
            (self.arg_value(args, call, 0)?, y)
        } else {
            (self.arg_value(args, call, 0)?, self.arg_value(args, call, 1)?)
        };
        let t = self.ty(ret)?;
        let a_mat = self.matrix_shape(a_ty).is_some();
        let b_mat = self.matrix_shape(b_ty).is_some();
        let a_n = self.scalar_shape(a_ty).map(|s| s.1);
        let b_n = self.scalar_shape(b_ty).map(|s| s.1);
        let mul = if float { "spirv.FMul" } else { "spirv.IMul" };
        if !a_mat && !b_mat && a_n.is_some_and(|n| n > 1) && b_n.is_some_and(|n| n > 1) {
            if let Some((s, rows, cols)) = self.matrix_shape(ret) {
                // Column times row (Mx1 * 1xN): the outer product, row by row.
                let st = self.ty(self.scalar_ty(s))?;
                let row_t = self.ty(self.vector_ty(s, cols))?;
                let mut out = Vec::new();
                for r in 0..rows {
                    let e = self.extract(x, &[r], st);
                    out.push(if float {
                        self.val("spirv.VectorTimesScalar", vec![y, e], row_t)
                    } else {
                        let splat = self.construct(vec![e; cols as usize], row_t);
                        self.val("spirv.IMul", vec![y, splat], row_t)
                    });
                }
                return Ok(self.construct(out, t));
            }
        }
        match (a_mat, b_mat, a_n, b_n) {
            (false, false, Some(1), Some(1)) => Ok(self.val(mul, vec![x, y], t)),
            (false, false, Some(1), Some(_)) if float => {
                Ok(self.val("spirv.VectorTimesScalar", vec![y, x], t))
            }
            (false, false, Some(_), Some(1)) if float => {
                Ok(self.val("spirv.VectorTimesScalar", vec![x, y], t))
            }
            (false, false, Some(1), Some(_)) | (false, false, Some(_), Some(1)) => {
                let (s, v, vty) = if a_n == Some(1) { (x, y, b_ty) } else { (y, x, a_ty) };
                let n = self.scalar_shape(vty).map_or(1, |s| s.1);
                let splat = self.construct(vec![s; n as usize], t);
                // The operands in the source's order, the splat standing for the scalar.
                let operands = if a_n == Some(1) { vec![splat, v] } else { vec![v, splat] };
                Ok(self.val(mul, operands, t))
            }
            (false, false, Some(_), Some(_)) => {
                if float {
                    Ok(self.val("spirv.Dot", vec![x, y], t))
                } else {
                    Ok(self.int_dot(x, y, a_n.unwrap_or(1), t))
                }
            }
            (false, true, Some(1), _) if float => Ok(self.val("spirv.MatrixTimesScalar", vec![y, x], t)),
            (true, false, _, Some(1)) if float => Ok(self.val("spirv.MatrixTimesScalar", vec![x, y], t)),
            // Matrices are stored transposed (SPIR-V.rst): v*M is M x v, M*v is v x M.
            (false, true, Some(_), _) if float => Ok(self.val("spirv.MatrixTimesVector", vec![y, x], t)),
            (true, false, _, Some(_)) if float => Ok(self.val("spirv.VectorTimesMatrix", vec![y, x], t)),
            (true, true, _, _) if float => Ok(self.val("spirv.MatrixTimesMatrix", vec![y, x], t)),
            // Integer matrices are arrays of row vectors: dxc's expansion into
            // per-row products and dot products.
            (false, true, Some(1), _) | (true, false, _, Some(1)) => {
                let (m, m_ty, sc) = if a_mat { (x, a_ty, y) } else { (y, b_ty, x) };
                let Some((_, rows, cols)) = self.matrix_shape(m_ty) else { return self.unsupported("mul") };
                let row_t = self.ty(self.vector_ty(self.component_of(m_ty), cols))?;
                let splat = self.construct(vec![sc; cols as usize], row_t);
                let mut out = Vec::new();
                for r in 0..rows {
                    let row = self.extract(m, &[r], row_t);
                    out.push(self.val("spirv.IMul", vec![row, splat], row_t));
                }
                Ok(self.construct(out, t))
            }
            (false, true, Some(n), _) => {
                // v * M: the dot of v with each column of M.
                let Some((s, rows, cols)) = self.matrix_shape(b_ty) else { return self.unsupported("mul") };
                let st = self.ty(self.scalar_ty(s))?;
                let transposed = self.int_transpose(y, s, rows, cols)?;
                let col_t = self.ty(self.vector_ty(s, rows))?;
                let mut out = Vec::new();
                for c in 0..cols {
                    let col = self.extract(transposed, &[c], col_t);
                    out.push(self.int_dot(x, col, n, st));
                }
                Ok(self.construct(out, t))
            }
            (true, false, _, Some(n)) => {
                // M * v: the dot of each row of M with v.
                let Some((s, rows, cols)) = self.matrix_shape(a_ty) else { return self.unsupported("mul") };
                let st = self.ty(self.scalar_ty(s))?;
                let row_t = self.ty(self.vector_ty(s, cols))?;
                let mut out = Vec::new();
                for r in 0..rows {
                    let row = self.extract(x, &[r], row_t);
                    out.push(self.int_dot(row, y, n, st));
                }
                Ok(self.construct(out, t))
            }
            (true, true, _, _) => {
                let (Some((s, rows, inner)), Some((_, _, cols))) =
                    (self.matrix_shape(a_ty), self.matrix_shape(b_ty))
                else {
                    return self.unsupported("mul");
                };
                let st = self.ty(self.scalar_ty(s))?;
                let transposed = self.int_transpose(y, s, inner, cols)?;
                let a_row_t = self.ty(self.vector_ty(s, inner))?;
                let out_row_t = self.ty(self.vector_ty(s, cols))?;
                let mut out = Vec::new();
                for r in 0..rows {
                    let row = self.extract(x, &[r], a_row_t);
                    let mut parts = Vec::new();
                    for c in 0..cols {
                        let col = self.extract(transposed, &[c], a_row_t);
                        parts.push(self.int_dot(row, col, inner, st));
                    }
                    out.push(self.construct(parts, out_row_t));
                }
                Ok(self.construct(out, t))
            }
            _ => self.unsupported(format!(
                "mul of '{}' and '{}'",
                self.table.display(a_ty),
                self.table.display(b_ty)
            )),
        }
    }

    fn wave(&mut self, name: &str, args: &[ExprId], call: &CallInfo) -> R<Value> {
        let ret = call.ret;
        let t = self.ty(ret)?;
        let scope = || prop("execution_scope", enum_attr("scope", "Subgroup"));
        let p0 = self.param_ty(call, 0);
        let elem = self.component_of(p0);
        let group = |op: &str| prop("group_operation", enum_attr("group_operation", op));
        if name == "WaveMultiPrefixCountBits" {
            return self.rejected("WaveMultiPrefixCountBits intrinsic function unimplemented");
        }
        if self.options.spirv_version < (1, 3) {
            return self.rejected(
                "Vulkan 1.1 is required for Wave Operation but not permitted to use\n\
                 note: please specify your target environment via command line option -fspv-target-env=",
            );
        }
        if name.starts_with("Quad") {
            self.quad_in_compute();
        }
        match name {
            "WaveGetLaneIndex" | "WaveGetLaneCount" => {
                let builtin =
                    if name == "WaveGetLaneIndex" { "SubgroupLocalInvocationId" } else { "SubgroupSize" };
                // The built-ins' decorations need GroupNonUniform (spirv-val).
                self.require("GroupNonUniform", None);
                let ut = self.u32_type();
                let p = self.builtin_input(builtin, builtin, ut);
                Ok(self.load(p))
            }
            "WaveIsFirstLane" => Ok(self.val_props("spirv.GroupNonUniformElect", vec![], t, vec![scope()])),
            "WaveActiveAnyTrue" | "WaveActiveAllTrue" | "WaveActiveAllEqual" => {
                let a = self.args(args, call)?;
                let op = match name {
                    "WaveActiveAnyTrue" => "spirv.GroupNonUniformAny",
                    "WaveActiveAllTrue" => "spirv.GroupNonUniformAll",
                    _ => "spirv.GroupNonUniformAllEqual",
                };
                if name == "WaveActiveAllEqual" && self.scalar_shape(p0).is_some_and(|(_, n)| n > 1) {
                    // Per component, then all.
                    let n = self.scalar_shape(p0).map_or(1, |s| s.1);
                    let st = self.ty(self.scalar_ty(elem))?;
                    let bt = self.bool_type();
                    let mut parts = Vec::new();
                    for i in 0..n {
                        let x = self.extract(a[0], &[i], st);
                        parts.push(self.val_props(op, vec![x], bt, vec![scope()]));
                    }
                    return Ok(self.construct(parts, t));
                }
                Ok(self.val_props(op, a, t, vec![scope()]))
            }
            "WaveActiveBallot" => {
                let a = self.args(args, call)?;
                Ok(self.val_props("spirv.GroupNonUniformBallot", a, t, vec![scope()]))
            }
            "WaveActiveCountBits" | "WavePrefixCountBits" => {
                let a = self.args(args, call)?;
                let ut = self.u32_type();
                let v4 = self.vec_type(ut, 4);
                let ballot = self.val_props("spirv.GroupNonUniformBallot", a, v4, vec![scope()]);
                let op = if name == "WaveActiveCountBits" { "Reduce" } else { "ExclusiveScan" };
                Ok(self.val_props(
                    "spirv.GroupNonUniformBallotBitCount",
                    vec![ballot],
                    t,
                    vec![scope(), group(op)],
                ))
            }
            "WaveReadLaneFirst" => {
                let a = self.args(args, call)?;
                let sc = self.u32_constant(3);
                Ok(self.fallback_val(
                    "spirv.GroupNonUniformBroadcastFirst",
                    &[Opnd::Id(sc), Opnd::Id(a[0])],
                    t,
                ))
            }
            "WaveReadLaneAt" => {
                let a = self.args(args, call)?;
                Ok(self.val_props("spirv.GroupNonUniformShuffle", a, t, vec![scope()]))
            }
            "QuadReadAcrossX" | "QuadReadAcrossY" | "QuadReadAcrossDiagonal" => {
                let a = self.args(args, call)?;
                let dir = match name {
                    "QuadReadAcrossX" => 0,
                    "QuadReadAcrossY" => 1,
                    _ => 2,
                };
                let d = self.u32_constant(dir);
                Ok(self.val_props("spirv.GroupNonUniformQuadSwap", vec![a[0], d], t, vec![scope()]))
            }
            "QuadReadLaneAt" => {
                let a = self.args(args, call)?;
                let sc = self.u32_constant(3);
                let (Some(&v), Some(&lane)) = (a.first(), a.get(1)) else {
                    return self.unsupported("QuadReadLaneAt without two arguments");
                };
                Ok(self.fallback_val(
                    "spirv.GroupNonUniformQuadBroadcast",
                    &[Opnd::Id(sc), Opnd::Id(v), Opnd::Id(lane)],
                    t,
                ))
            }
            "WaveMatch" => {
                let a = self.args(args, call)?;
                self.require("GroupNonUniformPartitionedNV", Some("SPV_NV_shader_subgroup_partitioned"));
                Ok(self.fallback_val("spirv.GroupNonUniformPartitionEXT", &[Opnd::Id(a[0])], t))
            }
            "WaveMultiPrefixSum"
            | "WaveMultiPrefixProduct"
            | "WaveMultiPrefixBitAnd"
            | "WaveMultiPrefixBitOr"
            | "WaveMultiPrefixBitXor" => {
                let a = self.args(args, call)?;
                let op = match name {
                    "WaveMultiPrefixSum" if elem.is_float() => "FAdd",
                    "WaveMultiPrefixSum" => "IAdd",
                    "WaveMultiPrefixProduct" if elem.is_float() => "FMul",
                    "WaveMultiPrefixProduct" => "IMul",
                    "WaveMultiPrefixBitAnd" => "BitwiseAnd",
                    "WaveMultiPrefixBitOr" => "BitwiseOr",
                    _ => "BitwiseXor",
                };
                self.require("GroupNonUniformPartitionedNV", Some("SPV_NV_shader_subgroup_partitioned"));
                let (Some(&v), Some(&mask)) = (a.first(), a.get(1)) else {
                    return self.unsupported(format!("{name} without two arguments"));
                };
                // The ballot mask takes the cluster size's place.
                Ok(self.val_props(
                    &format!("spirv.GroupNonUniform{op}"),
                    vec![v, mask],
                    t,
                    vec![scope(), group("PartitionedExclusiveScanNV")],
                ))
            }
            _ => {
                let (op_base, operation) = match name {
                    "WaveActiveSum" => ("Add", "Reduce"),
                    "WavePrefixSum" => ("Add", "ExclusiveScan"),
                    "WaveActiveProduct" => ("Mul", "Reduce"),
                    "WavePrefixProduct" => ("Mul", "ExclusiveScan"),
                    "WaveActiveMin" => ("Min", "Reduce"),
                    "WaveActiveMax" => ("Max", "Reduce"),
                    "WaveActiveBitAnd" => ("BitwiseAnd", "Reduce"),
                    "WaveActiveBitOr" => ("BitwiseOr", "Reduce"),
                    "WaveActiveBitXor" => ("BitwiseXor", "Reduce"),
                    _ => return self.unsupported(format!("intrinsic '{name}'")),
                };
                let a = self.args(args, call)?;
                let prefix = match op_base {
                    "Add" | "Mul" if elem.is_float() => format!("F{op_base}"),
                    "Add" | "Mul" => format!("I{op_base}"),
                    "Min" | "Max" if elem.is_float() => format!("F{op_base}"),
                    "Min" | "Max" if elem.is_signed() => format!("S{op_base}"),
                    "Min" | "Max" => format!("U{op_base}"),
                    other => other.to_string(),
                };
                let _ = TypeData::Error;
                Ok(self.val_props(
                    &format!("spirv.GroupNonUniform{prefix}"),
                    a,
                    t,
                    vec![scope(), group(operation)],
                ))
            }
        }
    }
}
