//! Intrinsic functions, mapped as SPIR-V.rst maps them: GLSL.std.450 extended
//! instructions (`spirv.GL.*`), core instructions, barriers, atomics and wave ops.

use super::expr::Place;
use super::resources::Opnd;
use super::{Emitter, R};
use crate::builder::{enum_attr, prop};
use spirvkit_hlsl::ast::ExprId;
use spirvkit_hlsl::sema::tree::{CallInfo, ConstValue};
use spirvkit_hlsl::sema::types::{Scalar, Ty, TypeData, TypeTable};
use spirvkit_ir::ir::Value;

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

    fn param_ty(&self, call: &CallInfo, i: usize) -> Ty {
        call.params.get(i).map_or(TypeTable::ERROR, |p| p.0)
    }

    /// A GLSL.std.450 instruction applied to the arguments; on matrices, row by row.
    fn gl(&mut self, name: &str, args: Vec<Value>, ty: Ty) -> R<Value> {
        let t = self.ty(ty)?;
        if let Some((_, rows, _)) = self.matrix_shape(ty) {
            let row_ty = self.store_row_type(t);
            let mut out = Vec::new();
            for r in 0..rows {
                let parts: Vec<Value> = args.iter().map(|&a| self.extract(a, &[r], row_ty)).collect();
                out.push(self.val(&format!("spirv.GL.{name}"), parts, row_ty));
            }
            return Ok(self.construct(out, t));
        }
        Ok(self.val(&format!("spirv.GL.{name}"), args, t))
    }

    fn component_of(&self, ty: Ty) -> Scalar {
        self.table.component(ty).map(Scalar::concrete).unwrap_or(Scalar::Float)
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
                // ldexp(x, e) = x * exp2(e) for float exponents.
                let e = self.gl("Exp2", vec![a[1]], ret)?;
                let t = self.ty(ret)?;
                Ok(self.val("spirv.FMul", vec![a[0], e], t))
            }
            "max" | "min" => {
                let a = self.args(args, call)?;
                let op = match (name, float, signed) {
                    ("max", true, _) => "FMax",
                    ("max", false, true) => "SMax",
                    ("max", false, false) => "UMax",
                    ("min", true, _) => "FMin",
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
                let t = self.ty(ret)?;
                let zero = self.splat_constant(ConstValue::Float(0.0), t);
                let one = self.splat_constant(ConstValue::Float(1.0), t);
                self.gl("FClamp", vec![a[0], zero, one], ret)
            }
            "lerp" => {
                let a = self.args(args, call)?;
                self.gl("FMix", a, ret)
            }
            "mad" => {
                let a = self.args(args, call)?;
                if float {
                    return self.gl("Fma", a, ret);
                }
                let t = self.ty(ret)?;
                let m = self.val("spirv.IMul", vec![a[0], a[1]], t);
                Ok(self.val("spirv.IAdd", vec![m, a[2]], t))
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
                let sign_ty = self.table.with_component_lookup(p0, elem);
                // FSign's result is the float type; HLSL's sign() is int.
                let v = self.gl(if float { "FSign" } else { "SSign" }, a, p0)?;
                let v = if float { self.convert(v, p0, sign_ty)? } else { v };
                if !signed {
                    // sign of an unsigned value: 0 or 1.
                    let t = self.ty(p0)?;
                    let zero = self.splat_constant(ConstValue::Int(0), t);
                    let bt = self.bool_ty_of(self.scalar_shape(p0).map_or(1, |s| s.1));
                    let b = self.ty(bt)?;
                    let ne = self.val("spirv.INotEqual", vec![v, zero], b);
                    return self.convert(ne, bt, ret);
                }
                let from = if float { sign_ty } else { p0 };
                self.convert(v, from, ret)
            }
            "rcp" => {
                let a = self.args(args, call)?;
                let t = self.ty(ret)?;
                let one = self.splat_constant(ConstValue::Float(1.0), t);
                Ok(self.val("spirv.FDiv", vec![one, a[0]], t))
            }
            "log10" => {
                let a = self.args(args, call)?;
                let l = self.gl("Log2", a, ret)?;
                let t = self.ty(ret)?;
                let k = self.splat_constant(ConstValue::Float(std::f64::consts::LOG10_2), t);
                Ok(self.val("spirv.FMul", vec![l, k], t))
            }
            "fmod" => {
                let a = self.args(args, call)?;
                let t = self.ty(ret)?;
                Ok(self.val("spirv.FRem", a, t))
            }
            "length" => {
                let a = self.args(args, call)?;
                if self.scalar_shape(p0).is_some_and(|(_, n)| n == 1) {
                    return self.gl("FAbs", a, ret);
                }
                self.gl("Length", a, ret)
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
                // Integer dot: multiply, then add the components.
                let vt = self.ty(p0)?;
                let m = self.val("spirv.IMul", a, vt);
                let n = self.scalar_shape(p0).map_or(1, |s| s.1);
                let mut sum = self.extract(m, &[0], t);
                for i in 1..n {
                    let x = self.extract(m, &[i], t);
                    sum = self.val("spirv.IAdd", vec![sum, x], t);
                }
                Ok(sum)
            }
            "mul" => self.mul(args, call),
            "transpose" => {
                let a = self.args(args, call)?;
                if self.matrix_shape(p0).is_none() {
                    return Ok(a[0]);
                }
                let t = self.ty(ret)?;
                Ok(self.val("spirv.Transpose", a, t))
            }
            "isnan" | "isinf" => {
                let a = self.args(args, call)?;
                let t = self.ty(ret)?;
                Ok(self.val(if name == "isnan" { "spirv.IsNan" } else { "spirv.IsInf" }, a, t))
            }
            "isfinite" => {
                let a = self.args(args, call)?;
                let t = self.ty(ret)?;
                let nan = self.val("spirv.IsNan", a.clone(), t);
                let inf = self.val("spirv.IsInf", a, t);
                let either = self.val("spirv.LogicalOr", vec![nan, inf], t);
                Ok(self.val("spirv.LogicalNot", vec![either], t))
            }
            "any" | "all" => {
                let a = self.args(args, call)?;
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
                let t = self.ty(ret)?;
                Ok(self.val(if name == "countbits" { "spirv.BitCount" } else { "spirv.BitReverse" }, a, t))
            }
            "firstbithigh" => {
                let a = self.args(args, call)?;
                self.gl(if signed { "FindSMsb" } else { "FindUMsb" }, a, ret)
            }
            "firstbitlow" => {
                let a = self.args(args, call)?;
                self.gl("FindILsb", a, ret)
            }
            "asfloat" | "asint" | "asuint" => {
                let a = self.args(args, call)?;
                if args.len() != 1 {
                    return self.unsupported(format!("{name} with {} arguments", args.len()));
                }
                let from = self.table.component(p0).map(Scalar::concrete);
                let to = self.table.component(ret).map(Scalar::concrete);
                if from == to {
                    return Ok(a[0]);
                }
                let t = self.ty(ret)?;
                Ok(self.val("spirv.Bitcast", a, t))
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
                let t = self.ty(ret)?;
                Ok(self.fallback_val(op, &[Opnd::Id(a[0])], t))
            }
            "clip" => {
                let a = self.args(args, call)?;
                let t = self.ty(p0)?;
                let zero = self.splat_constant(ConstValue::Float(0.0), t);
                let n = self.scalar_shape(p0).map_or(1, |s| s.1);
                let bt = self.bool_ty_of(n);
                let b = self.ty(bt)?;
                let lt = self.val("spirv.FOrdLessThan", vec![a[0], zero], b);
                let cond = if n > 1 {
                    let bool_t = self.bool_type();
                    self.val("spirv.Any", vec![lt], bool_t)
                } else {
                    lt
                };
                let then_block = self.new_block("if.true");
                let merge = self.new_block("if.merge");
                self.selection_header(merge, 0);
                self.branch_conditional(cond, then_block, merge);
                self.start_block(then_block);
                self.terminate("spirv.Kill", vec![], &[], Vec::new());
                self.start_block(merge);
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
                self.interlocked(n, place, &args[1..])
            }
            n if n.starts_with("Wave") || n.starts_with("Quad") => self.wave(n, args, call),
            "NonUniformResourceIndex" => {
                let a = self.args(args, call)?;
                Ok(a[0])
            }
            _ => self.unsupported(format!("intrinsic '{name}'")),
        }
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
    /// texel).
    pub(super) fn interlocked(&mut self, name: &str, place: Place, rest: &[ExprId]) -> R<Value> {
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
        let scope = if self.storage_class_of(ptr) == "Workgroup" { "Workgroup" } else { "Device" };
        let scope_attr = enum_attr("scope", scope);
        let none = enum_attr("memory_semantics", "None");
        let (result, out_arg) = if name == "InterlockedCompareExchange" || name == "InterlockedCompareStore" {
            let cmp = self.rvalue_as(rest[0], ty)?;
            let v = self.rvalue_as(rest[1], ty)?;
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
            let v = self.rvalue_as(rest[0], ty)?;
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

    fn mul(&mut self, args: &[ExprId], call: &CallInfo) -> R<Value> {
        let (a_ty, b_ty, ret) = (self.param_ty(call, 0), self.param_ty(call, 1), call.ret);
        let a = self.args(args, call)?;
        let (x, y) = (a[0], a[1]);
        let t = self.ty(ret)?;
        let float = self.component_of(ret).is_float();
        let a_mat = self.matrix_shape(a_ty).is_some();
        let b_mat = self.matrix_shape(b_ty).is_some();
        let a_n = self.scalar_shape(a_ty).map(|s| s.1);
        let b_n = self.scalar_shape(b_ty).map(|s| s.1);
        let mul = if float { "spirv.FMul" } else { "spirv.IMul" };
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
                Ok(self.val(mul, vec![v, splat], t))
            }
            (false, false, Some(_), Some(_)) => {
                let call2 =
                    CallInfo { callee: call.callee.clone(), params: call.params.clone(), ret: call.ret };
                let _ = call2;
                if float {
                    Ok(self.val("spirv.Dot", vec![x, y], t))
                } else {
                    let vt = self.ty(a_ty)?;
                    let m = self.val("spirv.IMul", vec![x, y], vt);
                    let n = a_n.unwrap_or(1);
                    let mut sum = self.extract(m, &[0], t);
                    for i in 1..n {
                        let e = self.extract(m, &[i], t);
                        sum = self.val("spirv.IAdd", vec![sum, e], t);
                    }
                    Ok(sum)
                }
            }
            (false, true, Some(1), _) if float => Ok(self.val("spirv.MatrixTimesScalar", vec![y, x], t)),
            (true, false, _, Some(1)) if float => Ok(self.val("spirv.MatrixTimesScalar", vec![x, y], t)),
            // Matrices are stored transposed (SPIR-V.rst): v*M is M x v, M*v is v x M.
            (false, true, Some(_), _) if float => Ok(self.val("spirv.MatrixTimesVector", vec![y, x], t)),
            (true, false, _, Some(_)) if float => Ok(self.val("spirv.VectorTimesMatrix", vec![y, x], t)),
            (true, true, _, _) if float => Ok(self.val("spirv.MatrixTimesMatrix", vec![y, x], t)),
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
        match name {
            "WaveGetLaneIndex" | "WaveGetLaneCount" => {
                let builtin =
                    if name == "WaveGetLaneIndex" { "SubgroupLocalInvocationId" } else { "SubgroupSize" };
                let ut = self.u32_type();
                let pt = self.pointer(ut, "Input");
                let key = format!("Input:{builtin}");
                let symbol_name = match self.resources.builtins.get(&key) {
                    Some(s) => s.clone(),
                    None => {
                        let s = self.unique_symbol(&format!("gl_{builtin}"));
                        self.global_variable(
                            &s,
                            pt,
                            vec![prop("built_in", spirvkit_ir::attr::Attribute::String(builtin.into()))],
                        );
                        self.interface.push(s.clone());
                        self.resources.builtins.insert(key, s.clone());
                        s
                    }
                };
                let p = self.addressof(&symbol_name, pt);
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

trait WithComponentLookup {
    fn with_component_lookup(&self, ty: Ty, s: Scalar) -> Ty;
}

impl WithComponentLookup for TypeTable {
    /// `ty` with component `s` (int for `sign`), among the pre-interned types.
    fn with_component_lookup(&self, ty: Ty, s: Scalar) -> Ty {
        let target = if s.is_float() { Scalar::Int } else { s };
        let data = match self.get(ty) {
            TypeData::Vector(_, n) => TypeData::Vector(target, *n),
            TypeData::Matrix { rows, cols, .. } => TypeData::Matrix {
                elem: target,
                rows: *rows,
                cols: *cols,
                major: spirvkit_hlsl::sema::types::Majorness::Default,
            },
            _ => TypeData::Scalar(target),
        };
        self.lookup(&data).unwrap_or(TypeTable::INT)
    }
}
