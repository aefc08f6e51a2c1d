//! The op patterns: each SPIR-V op lowered to the LLVM dialect ops MLIR 22 creates,
//! in the order it creates them (the value numbering of the output depends on it).

use super::types::{LaidOutPointer, Remap};
use super::{defining_op, dialect_attr, ConvertError, Converter};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{OpId, RegionId, Value};
use spirvkit_ir::types::{Signedness, Type, TypeKind};

/// LLVM's `AtomicOrdering` for SPIR-V memory semantics bits: monotonic (2) unless
/// acquire (4), release (5), acquire-release (6) or sequentially consistent (7) is
/// asked.
fn ordering_of_bits(bits: i128) -> u32 {
    let has = |bit: i128| bits & bit != 0;
    if has(0x10) {
        7
    } else if has(0x8) || (has(0x2) && has(0x4)) {
        6
    } else if has(0x4) {
        5
    } else if has(0x2) {
        4
    } else {
        2
    }
}

/// The operands and results the patterns read of an op, at least.
fn minimum_arity(name: &str) -> (usize, usize) {
    match name {
        "spirv.Constant" | "spirv.Variable" | "spirv.CompositeConstruct" | "spirv.Undef" => (0, 1),
        "spirv.Not"
        | "spirv.LogicalNot"
        | "spirv.SNegate"
        | "spirv.Bitcast"
        | "spirv.IsNan"
        | "spirv.IsInf"
        | "spirv.FConvert"
        | "spirv.SConvert"
        | "spirv.UConvert"
        | "spirv.CopyLogical"
        | "spirv.Transpose"
        | "spirv.CompositeExtract"
        | "spirv.Any"
        | "spirv.All"
        | "spirv.AccessChain"
        | "spirv.InBoundsAccessChain"
        | "spirv.PtrAccessChain"
        | "spirv.InBoundsPtrAccessChain"
        | "spirv.Load" => (1, 1),
        "spirv.Dot"
        | "spirv.VectorTimesScalar"
        | "spirv.CompositeInsert"
        | "spirv.ShiftLeftLogical"
        | "spirv.ShiftRightArithmetic"
        | "spirv.ShiftRightLogical"
        | "spirv.VectorExtractDynamic"
        | "spirv.SMod"
        | "spirv.FMod"
        | "spirv.MatrixTimesScalar"
        | "spirv.MatrixTimesVector"
        | "spirv.VectorTimesMatrix"
        | "spirv.MatrixTimesMatrix"
        | "spirv.VectorShuffle" => (2, 1),
        "spirv.VectorInsertDynamic" | "spirv.BitFieldSExtract" | "spirv.BitFieldUExtract" => (3, 1),
        "spirv.BitFieldInsert" => (4, 1),
        "spirv.Switch" | "spirv.BranchConditional" => (1, 0),
        "spirv.Store" | "spirv.CopyMemory" => (2, 0),
        "spirv.AtomicLoad" => (3, 1),
        "spirv.AtomicStore" => (4, 0),
        _ if name.starts_with("spirv.Atomic") => (1, 1),
        _ => (0, 0),
    }
}

/// `rawConstantIndices` marks a dynamic index with this value (`GEPOp::kDynamicIndex`).
const GEP_DYNAMIC_INDEX: i128 = i32::MIN as i128;

/// One-to-one ops: SPIR-V name, LLVM name, and which properties the LLVM op carries.
#[derive(Clone, Copy)]
enum Props {
    None,
    Overflow,
    FastMath,
}

fn direct(name: &str) -> Option<(&'static str, Props)> {
    Some(match name {
        "spirv.IAdd" => ("llvm.add", Props::Overflow),
        "spirv.ISub" => ("llvm.sub", Props::Overflow),
        "spirv.IMul" => ("llvm.mul", Props::Overflow),
        "spirv.SDiv" => ("llvm.sdiv", Props::None),
        "spirv.UDiv" => ("llvm.udiv", Props::None),
        "spirv.SRem" => ("llvm.srem", Props::None),
        "spirv.UMod" => ("llvm.urem", Props::None),
        "spirv.FAdd" => ("llvm.fadd", Props::FastMath),
        "spirv.FSub" => ("llvm.fsub", Props::FastMath),
        "spirv.FMul" => ("llvm.fmul", Props::FastMath),
        "spirv.FDiv" => ("llvm.fdiv", Props::FastMath),
        "spirv.FRem" => ("llvm.frem", Props::FastMath),
        "spirv.FNegate" => ("llvm.fneg", Props::FastMath),
        "spirv.BitwiseAnd" | "spirv.LogicalAnd" => ("llvm.and", Props::None),
        "spirv.BitwiseOr" | "spirv.LogicalOr" => ("llvm.or", Props::None),
        "spirv.BitwiseXor" => ("llvm.xor", Props::None),
        "spirv.BitCount" => ("llvm.intr.ctpop", Props::None),
        "spirv.BitReverse" => ("llvm.intr.bitreverse", Props::None),
        "spirv.ConvertFToS" => ("llvm.fptosi", Props::None),
        "spirv.ConvertFToU" => ("llvm.fptoui", Props::None),
        "spirv.ConvertSToF" => ("llvm.sitofp", Props::None),
        "spirv.ConvertUToF" => ("llvm.uitofp", Props::None),
        "spirv.ConvertPtrToU" => ("llvm.ptrtoint", Props::None),
        "spirv.ConvertUToPtr" => ("llvm.inttoptr", Props::None),
        "spirv.PtrCastToGeneric" | "spirv.GenericCastToPtr" | "spirv.GenericCastToPtrExplicit" => {
            ("llvm.addrspacecast", Props::None)
        }
        "spirv.Select" => ("llvm.select", Props::FastMath),
        "spirv.Undef" => ("llvm.mlir.undef", Props::None),
        _ => return None,
    })
}

/// `icmp` predicates (LLVM's `ICmpPredicate` numbering).
fn icmp_predicate(name: &str) -> Option<i128> {
    Some(match name {
        "spirv.IEqual" | "spirv.LogicalEqual" => 0,
        "spirv.INotEqual" | "spirv.LogicalNotEqual" => 1,
        "spirv.SLessThan" => 2,
        "spirv.SLessThanEqual" => 3,
        "spirv.SGreaterThan" => 4,
        "spirv.SGreaterThanEqual" => 5,
        "spirv.ULessThan" => 6,
        "spirv.ULessThanEqual" => 7,
        "spirv.UGreaterThan" => 8,
        "spirv.UGreaterThanEqual" => 9,
        _ => return None,
    })
}

/// `fcmp` predicates (LLVM's `FCmpPredicate` numbering).
fn fcmp_predicate(name: &str) -> Option<i128> {
    Some(match name {
        "spirv.FOrdEqual" => 1,
        "spirv.FOrdGreaterThan" => 2,
        "spirv.FOrdGreaterThanEqual" => 3,
        "spirv.FOrdLessThan" => 4,
        "spirv.FOrdLessThanEqual" => 5,
        "spirv.FOrdNotEqual" => 6,
        "spirv.Ordered" => 7,
        "spirv.FUnordEqual" => 8,
        "spirv.FUnordGreaterThan" => 9,
        "spirv.FUnordGreaterThanEqual" => 10,
        "spirv.FUnordLessThan" => 11,
        "spirv.FUnordLessThanEqual" => 12,
        "spirv.FUnordNotEqual" => 13,
        "spirv.Unordered" => 14,
        _ => return None,
    })
}

impl Converter<'_> {
    pub(crate) fn result_type(&mut self, op: OpId, index: usize) -> Result<Type, ConvertError> {
        let Some(&r) = self.ir.op(op).results.get(index) else { return Err(self.illegal(op)) };
        let old = self.ir.value_type(r);
        self.convert_type(old).ok_or_else(|| self.illegal(op))
    }

    /// Maps `op`'s single result to `new`.
    pub(crate) fn replace(&mut self, op: OpId, new: Value) {
        if let Some(&r) = self.ir.op(op).results.first() {
            self.map_value(r, new);
        }
    }

    fn props(&mut self, props: Props) -> Vec<(&'static str, Attribute)> {
        match props {
            Props::None => vec![],
            Props::Overflow => vec![("overflowFlags", self.int_attr(0, 32))],
            Props::FastMath => vec![("fastmathFlags", Converter::fastmath_none())],
        }
    }

    /// Lowers one op into the current block (constructs add blocks to `region`).
    pub(crate) fn lower_op(&mut self, op: OpId, region: RegionId) -> Result<(), ConvertError> {
        let name = self.ir.op(op).name.to_string();
        // The patterns index operands and results: IR that did not verify (the
        // library path takes it) must still have the counts they read.
        let (operands, results) = minimum_arity(&name);
        if self.ir.op(op).operands.len() < operands || self.ir.op(op).results.len() < results {
            return Err(self.illegal(op));
        }
        if let Some((llvm, props)) = direct(&name) {
            let operands = self.operands(op)?;
            let ty = self.result_type(op, 0)?;
            let props = self.props(props);
            let v = self.emit_value(llvm, operands, ty, props);
            self.replace(op, v);
            return Ok(());
        }
        if let Some(p) = icmp_predicate(&name) {
            let operands = self.operands(op)?;
            let ty = self.result_type(op, 0)?;
            let v = self.emit_value("llvm.icmp", operands, ty, vec![("predicate", self.int_attr(p, 64))]);
            self.replace(op, v);
            return Ok(());
        }
        if let Some(p) = fcmp_predicate(&name) {
            let operands = self.operands(op)?;
            let ty = self.result_type(op, 0)?;
            let props =
                vec![("fastmathFlags", Converter::fastmath_none()), ("predicate", self.int_attr(p, 64))];
            let v = self.emit_value("llvm.fcmp", operands, ty, props);
            self.replace(op, v);
            return Ok(());
        }
        if name.starts_with("spirv.GL.") {
            return self.lower_glsl(op, &name);
        }
        if name.starts_with("spirv.CL.") {
            return self.lower_cl(op, &name);
        }
        if let Some(done) = self.lower_call_like(op, &name)? {
            return Ok(done);
        }
        match name.as_str() {
            "spirv.mlir.selection" | "spirv.mlir.loop" => self.lower_construct(op, region),
            "spirv.mlir.merge" => {
                let operands = self.operands(op)?;
                let Some(&target) = self.merge_targets.last() else { return Err(self.illegal(op)) };
                let br = self.emit("llvm.br", operands, &[], vec![]);
                self.ir.op_mut(br).successors.push(target);
                Ok(())
            }
            "spirv.Branch" => {
                let operands = self.operands(op)?;
                let targets = self.ir.op(op).successors.to_vec();
                let br = self.emit("llvm.br", operands, &[], vec![]);
                self.set_successors(br, &targets)
            }
            "spirv.BranchConditional" => self.lower_cond_branch(op),
            "spirv.Switch" => self.lower_switch(op),
            "spirv.Return" => {
                self.emit("llvm.return", vec![], &[], vec![]);
                Ok(())
            }
            "spirv.ReturnValue" => {
                let operands = self.operands(op)?;
                self.emit("llvm.return", operands, &[], vec![]);
                Ok(())
            }
            "spirv.Unreachable" => {
                self.emit("llvm.unreachable", vec![], &[], vec![]);
                Ok(())
            }
            "spirv.Kill" => Err(self.unsupported(op)),
            "spirv.FunctionCall" => self.lower_function_call(op),
            "spirv.Constant" => self.lower_constant(op),
            "spirv.mlir.addressof" => {
                let Some(Attribute::SymbolRef(path)) = self.ir.op(op).attr("variable").cloned() else {
                    return Err(self.illegal(op));
                };
                let name = path.last().cloned().unwrap_or_default();
                let name = self.global_names.get(&name).cloned().unwrap_or(name);
                let ty = self.result_type(op, 0)?;
                let v = self.emit_value(
                    "llvm.mlir.addressof",
                    vec![],
                    ty,
                    vec![("global_name", Attribute::SymbolRef(vec![name]))],
                );
                self.replace(op, v);
                Ok(())
            }
            "spirv.mlir.referenceof" => {
                let Some(Attribute::SymbolRef(path)) = self.ir.op(op).attr("spec_const").cloned() else {
                    return Err(self.illegal(op));
                };
                let ty = self.result_type(op, 0)?;
                let ptr = self.ir.types.llvm_pointer(0);
                let addr = self.emit_value(
                    "llvm.mlir.addressof",
                    vec![],
                    ptr,
                    vec![("global_name", Attribute::SymbolRef(path))],
                );
                let v =
                    self.emit_value("llvm.load", vec![addr], ty, vec![("ordering", self.int_attr(0, 64))]);
                self.replace(op, v);
                Ok(())
            }
            "spirv.Variable" => self.lower_variable(op),
            "spirv.Load" => self.lower_load(op),
            "spirv.ImageRead" | "spirv.ImageFetch" if self.options.storage_images => {
                self.lower_image_read(op)
            }
            "spirv.ImageWrite" if self.options.storage_images => self.lower_image_write(op),
            // The image of a sampled image is the same memory.
            "spirv.Image" if self.options.storage_images => {
                let operands = self.operands(op)?;
                let [image] = operands[..] else { return Err(self.illegal(op)) };
                self.replace(op, image);
                Ok(())
            }
            "spirv.ImageQuerySize" | "spirv.ImageQuerySizeLod" if self.options.storage_images => {
                self.lower_image_query_size(op)
            }
            "spirv.ImageQueryLevels" if self.options.storage_images => self.lower_image_query_levels(op),
            "spirv.SampledImage" if self.options.storage_images => self.lower_sampled_image(op),
            "spirv.ImageSampleExplicitLod" if self.options.storage_images => self.lower_image_sample_lod(op),
            "spirv.Store" => self.lower_store(op),
            "spirv.ArrayLength" if self.options.buffer_lengths => self.lower_array_length(op),
            "spirv.CopyMemory" => {
                let operands = self.operands(op)?;
                let [target, source] = operands[..] else { return Err(self.illegal(op)) };
                let pointee = self.pointee_of(op, 1)?;
                let ty = self.convert_type(pointee).ok_or_else(|| self.illegal(op))?;
                let loaded =
                    self.emit_value("llvm.load", vec![source], ty, vec![("ordering", self.int_attr(0, 64))]);
                self.emit("llvm.store", vec![loaded, target], &[], vec![("ordering", self.int_attr(0, 64))]);
                Ok(())
            }
            "spirv.AccessChain"
            | "spirv.InBoundsAccessChain"
            | "spirv.InBoundsPtrAccessChain"
            | "spirv.PtrAccessChain" => self.lower_access_chain(op, &name),
            "spirv.CompositeExtract" => self.lower_composite_extract(op),
            "spirv.CompositeInsert" => self.lower_composite_insert(op),
            "spirv.CompositeConstruct" => self.lower_composite_construct(op),
            "spirv.CopyLogical" => self.lower_copy_logical(op),
            "spirv.SpecConstantOperation" => {
                // Its region computes the value here, from the spec constants' values.
                let body: Vec<_> =
                    self.ir.op(op).regions.iter().flat_map(|&r| self.ir.region(r).blocks.clone()).collect();
                for b in body {
                    for inner in self.ir.block(b).ops.clone() {
                        if self.ir.op(inner).name == "spirv.mlir.yield" {
                            let Some(&y) = self.ir.op(inner).operands.first() else {
                                return Err(self.illegal(op));
                            };
                            let v = self.value(y)?;
                            self.replace(op, v);
                        } else {
                            self.lower_op(inner, region)?;
                        }
                    }
                }
                Ok(())
            }
            "spirv.VectorShuffle" => self.lower_vector_shuffle(op),
            "spirv.VectorExtractDynamic" => {
                let operands = self.operands(op)?;
                let ty = self.result_type(op, 0)?;
                let v = self.emit_value("llvm.extractelement", operands, ty, vec![]);
                self.replace(op, v);
                Ok(())
            }
            "spirv.VectorInsertDynamic" => {
                let operands = self.operands(op)?;
                let ty = self.result_type(op, 0)?;
                let v = self.emit_value("llvm.insertelement", operands, ty, vec![]);
                self.replace(op, v);
                Ok(())
            }
            "spirv.Not" | "spirv.LogicalNot" => {
                let operands = self.operands(op)?;
                let ty = self.result_type(op, 0)?;
                let ones = self.const_of_type(ty, -1, 0.0);
                let v = self.emit_value("llvm.xor", vec![operands[0], ones], ty, vec![]);
                self.replace(op, v);
                Ok(())
            }
            "spirv.SNegate" => {
                let operands = self.operands(op)?;
                let ty = self.result_type(op, 0)?;
                let zero = self.const_of_type(ty, 0, 0.0);
                let props = self.props(Props::Overflow);
                let v = self.emit_value("llvm.sub", vec![zero, operands[0]], ty, props);
                self.replace(op, v);
                Ok(())
            }
            "spirv.ShiftLeftLogical" | "spirv.ShiftRightArithmetic" | "spirv.ShiftRightLogical" => {
                self.lower_shift(op, &name)
            }
            "spirv.Bitcast" => {
                let operands = self.operands(op)?;
                let ty = self.result_type(op, 0)?;
                if self.ir.value_type(operands[0]) == ty {
                    self.replace(op, operands[0]);
                } else {
                    let v = self.emit_value("llvm.bitcast", operands, ty, vec![]);
                    self.replace(op, v);
                }
                Ok(())
            }
            "spirv.FConvert" | "spirv.SConvert" | "spirv.UConvert" => self.lower_width_cast(op, &name),
            "spirv.IsNan" => {
                let operands = self.operands(op)?;
                let ty = self.result_type(op, 0)?;
                let props =
                    vec![("fastmathFlags", Converter::fastmath_none()), ("predicate", self.int_attr(14, 64))];
                let v = self.emit_value("llvm.fcmp", vec![operands[0], operands[0]], ty, props);
                self.replace(op, v);
                Ok(())
            }
            "spirv.IsInf" => {
                let operands = self.operands(op)?;
                let ty = self.result_type(op, 0)?;
                let fty = self.ir.value_type(operands[0]);
                let abs = self.emit_value(
                    "llvm.intr.fabs",
                    vec![operands[0]],
                    fty,
                    vec![("fastmathFlags", Converter::fastmath_none())],
                );
                let inf = self.const_of_type(fty, 0, f64::INFINITY);
                let props =
                    vec![("fastmathFlags", Converter::fastmath_none()), ("predicate", self.int_attr(1, 64))];
                let v = self.emit_value("llvm.fcmp", vec![abs, inf], ty, props);
                self.replace(op, v);
                Ok(())
            }
            "spirv.SMod" => self.lower_smod(op),
            "spirv.FMod" => self.lower_fmod(op),
            "spirv.BitFieldInsert" | "spirv.BitFieldSExtract" | "spirv.BitFieldUExtract" => {
                self.lower_bitfield(op, &name)
            }
            "spirv.Dot" => {
                let operands = self.operands(op)?;
                let ty = self.result_type(op, 0)?;
                let vty = self.ir.value_type(operands[0]);
                let mul = self.emit_value(
                    "llvm.fmul",
                    operands,
                    vty,
                    vec![("fastmathFlags", Converter::fastmath_none())],
                );
                let zero = self.const_of_type(ty, 0, -0.0);
                let v = self.emit_value(
                    "llvm.intr.vector.reduce.fadd",
                    vec![zero, mul],
                    ty,
                    vec![("fastmathFlags", Converter::fastmath_none())],
                );
                self.replace(op, v);
                Ok(())
            }
            "spirv.VectorTimesScalar" => {
                let operands = self.operands(op)?;
                let ty = self.result_type(op, 0)?;
                let splat = self.splat(operands[1], ty);
                let v = self.emit_value(
                    "llvm.fmul",
                    vec![operands[0], splat],
                    ty,
                    vec![("fastmathFlags", Converter::fastmath_none())],
                );
                self.replace(op, v);
                Ok(())
            }
            "spirv.Any" | "spirv.All" => {
                let operands = self.operands(op)?;
                let ty = self.result_type(op, 0)?;
                let intr = if name == "spirv.Any" {
                    "llvm.intr.vector.reduce.or"
                } else {
                    "llvm.intr.vector.reduce.and"
                };
                let v = self.emit_value(intr, operands, ty, vec![]);
                self.replace(op, v);
                Ok(())
            }
            "spirv.MatrixTimesScalar"
            | "spirv.MatrixTimesVector"
            | "spirv.VectorTimesMatrix"
            | "spirv.MatrixTimesMatrix"
            | "spirv.Transpose" => self.lower_matrix(op, &name),
            _ if name.starts_with("spirv.Atomic") => self.lower_atomic(op, &name),
            _ => Err(self.unsupported(op)),
        }
    }

    fn column(&mut self, m: Value, c: u64) -> Value {
        let ty = match self.ir.types.kind(self.ir.value_type(m)) {
            TypeKind::LlvmArray { element, .. } => *element,
            _ => self.ir.value_type(m),
        };
        let position = self.position_attr(vec![c as i64]);
        self.emit_value("llvm.extractvalue", vec![m], ty, vec![("position", position)])
    }

    fn columns_of(&self, m: Value) -> u64 {
        match self.ir.types.kind(self.ir.value_type(m)) {
            TypeKind::LlvmArray { count, .. } => *count,
            _ => 0,
        }
    }

    /// `m * v` for a column-major matrix: the sum of the columns scaled by `v`'s
    /// elements.
    fn matrix_times_vector(&mut self, m: Value, v: Value, ty: Type) -> Value {
        let element = self.ir.types.scalar_of(ty);
        let fm = || ("fastmathFlags", Converter::fastmath_none());
        let mut acc: Option<Value> = None;
        for c in 0..self.columns_of(m) {
            let col = self.column(m, c);
            let index = self.const_int(i128::from(c), 32);
            let e = self.emit_value("llvm.extractelement", vec![v, index], element, vec![]);
            let s = self.splat(e, ty);
            let p = self.emit_value("llvm.fmul", vec![col, s], ty, vec![fm()]);
            acc = Some(match acc {
                None => p,
                Some(a) => self.emit_value("llvm.fadd", vec![a, p], ty, vec![fm()]),
            });
        }
        acc.unwrap_or(v)
    }

    /// Matrix ops on column-major `!llvm.array<C x vector<R x T>>` values.
    fn lower_matrix(&mut self, op: OpId, name: &str) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let ty = self.result_type(op, 0)?;
        let fm = || ("fastmathFlags", Converter::fastmath_none());
        let column_ty = |c: &Self, t: Type| match c.ir.types.kind(t) {
            TypeKind::LlvmArray { element, .. } => *element,
            _ => t,
        };
        let v = match name {
            "spirv.MatrixTimesScalar" => {
                let [m, s] = operands[..] else { return Err(self.illegal(op)) };
                let col_ty = column_ty(self, ty);
                let splat = self.splat(s, col_ty);
                let mut acc = self.emit_value("llvm.mlir.poison", vec![], ty, vec![]);
                for c in 0..self.columns_of(m) {
                    let col = self.column(m, c);
                    let p = self.emit_value("llvm.fmul", vec![col, splat], col_ty, vec![fm()]);
                    let position = self.position_attr(vec![c as i64]);
                    acc = self.emit_value("llvm.insertvalue", vec![acc, p], ty, vec![("position", position)]);
                }
                acc
            }
            "spirv.MatrixTimesVector" => {
                let [m, v] = operands[..] else { return Err(self.illegal(op)) };
                self.matrix_times_vector(m, v, ty)
            }
            "spirv.VectorTimesMatrix" => {
                // result[c] = dot(v, m[c])
                let [v, m] = operands[..] else { return Err(self.illegal(op)) };
                let element = self.ir.types.scalar_of(ty);
                let mut acc = self.emit_value("llvm.mlir.poison", vec![], ty, vec![]);
                for c in 0..self.columns_of(m) {
                    let col = self.column(m, c);
                    let vty = self.ir.value_type(v);
                    let p = self.emit_value("llvm.fmul", vec![v, col], vty, vec![fm()]);
                    let zero = self.const_of_type(element, 0, -0.0);
                    let d =
                        self.emit_value("llvm.intr.vector.reduce.fadd", vec![zero, p], element, vec![fm()]);
                    let index = self.const_int(i128::from(c), 32);
                    acc = self.emit_value("llvm.insertelement", vec![acc, d, index], ty, vec![]);
                }
                acc
            }
            "spirv.MatrixTimesMatrix" => {
                let [a, b] = operands[..] else { return Err(self.illegal(op)) };
                let col_ty = column_ty(self, ty);
                let mut acc = self.emit_value("llvm.mlir.poison", vec![], ty, vec![]);
                for c in 0..self.columns_of(b) {
                    let col = self.column(b, c);
                    let p = self.matrix_times_vector(a, col, col_ty);
                    let position = self.position_attr(vec![c as i64]);
                    acc = self.emit_value("llvm.insertvalue", vec![acc, p], ty, vec![("position", position)]);
                }
                acc
            }
            _ => {
                // Transpose: result[r][c] = m[c][r].
                let m = operands[0];
                let elements = self.matrix_elements(m).ok_or_else(|| self.illegal(op))?;
                let col_ty = column_ty(self, ty);
                let mut acc = self.emit_value("llvm.mlir.poison", vec![], ty, vec![]);
                let rows = elements.first().map_or(0, Vec::len);
                for r in 0..rows {
                    let mut col = self.emit_value("llvm.mlir.poison", vec![], col_ty, vec![]);
                    for (c, column) in elements.iter().enumerate() {
                        let index = self.const_int(c as i128, 32);
                        col = self.emit_value(
                            "llvm.insertelement",
                            vec![col, column[r], index],
                            col_ty,
                            vec![],
                        );
                    }
                    let position = self.position_attr(vec![r as i64]);
                    acc =
                        self.emit_value("llvm.insertvalue", vec![acc, col], ty, vec![("position", position)]);
                }
                acc
            }
        };
        self.replace(op, v);
        Ok(())
    }

    /// `v` (a scalar) splat to vector type `ty`.
    pub(crate) fn splat(&mut self, v: Value, ty: Type) -> Value {
        let TypeKind::Vector { shape, .. } = self.ir.types.kind(ty).clone() else { return v };
        let mut acc = self.emit_value("llvm.mlir.poison", vec![], ty, vec![]);
        for i in 0..shape.iter().product::<u64>() {
            let index = self.const_int(i as i128, 32);
            acc = self.emit_value("llvm.insertelement", vec![acc, v, index], ty, vec![]);
        }
        acc
    }

    pub(crate) fn pointee_of(&mut self, op: OpId, operand: usize) -> Result<Type, ConvertError> {
        let Some(&p) = self.ir.op(op).operands.get(operand) else { return Err(self.illegal(op)) };
        match self.ir.types.kind(self.ir.value_type(p)) {
            TypeKind::Pointer { pointee, .. } => Ok(*pointee),
            _ => Err(self.illegal(op)),
        }
    }

    fn lower_cond_branch(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let targets = self.ir.op(op).successors.to_vec();
        let ranges = self.ir.successor_operand_ranges(op).ok_or_else(|| self.illegal(op))?;
        let mut props = vec![];
        if let Some(Attribute::Array(weights)) = self.ir.op(op).attr("branch_weights").cloned() {
            let i32t = self.int_type(32);
            let values = weights
                .iter()
                .map(|w| match w {
                    Attribute::Integer { value, .. } => Attribute::Integer { value: *value, ty: i32t },
                    other => other.clone(),
                })
                .collect();
            props.push(("branch_weights", Attribute::DenseArray { element: i32t, values }));
        }
        let i32t = self.int_type(32);
        let sizes = [1, ranges[0].len(), ranges[1].len()]
            .iter()
            .map(|&n| Attribute::Integer { value: n as i128, ty: i32t })
            .collect();
        props.push(("operandSegmentSizes", Attribute::DenseArray { element: i32t, values: sizes }));
        let br = self.emit("llvm.cond_br", operands, &[], props);
        self.set_successors(br, &targets)
    }

    fn lower_switch(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let targets = self.ir.op(op).successors.to_vec();
        let ranges = self.ir.successor_operand_ranges(op).ok_or_else(|| self.illegal(op))?;
        let i32t = self.int_type(32);
        let selector_ty = self.ir.value_type(operands[0]);
        let mut props = vec![];
        if let Some(Attribute::Dense { elements, .. } | Attribute::Array(elements)) =
            self.ir.op(op).attr("literals").cloned()
        {
            let n = elements.len() as u64;
            let vty = self.ir.types.vector(n, selector_ty);
            let elements = elements
                .into_iter()
                .map(|e| match e {
                    Attribute::Integer { value, .. } => Attribute::Integer { value, ty: selector_ty },
                    other => other,
                })
                .collect();
            props.push(("case_values", Attribute::Dense { elements, ty: vty }));
        }
        let case_sizes =
            ranges[1..].iter().map(|r| Attribute::Integer { value: r.len() as i128, ty: i32t }).collect();
        props.push(("case_operand_segments", Attribute::DenseArray { element: i32t, values: case_sizes }));
        let case_total: usize = ranges[1..].iter().map(|r| r.len()).sum();
        let sizes = [1, ranges[0].len(), case_total]
            .iter()
            .map(|&n| Attribute::Integer { value: n as i128, ty: i32t })
            .collect();
        props.push(("operandSegmentSizes", Attribute::DenseArray { element: i32t, values: sizes }));
        let sw = self.emit("llvm.switch", operands, &[], props);
        self.set_successors(sw, &targets)
    }

    fn lower_function_call(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let Some(callee) = self.ir.op(op).attr("callee").cloned() else { return Err(self.illegal(op)) };
        let results = match self.ir.op(op).results.len() {
            0 => vec![],
            _ => vec![self.result_type(op, 0)?],
        };
        let i32t = self.int_type(32);
        let n = operands.len() as i128;
        let props = vec![
            ("CConv", dialect_attr("llvm.cconv", "ccc")),
            ("TailCallKind", dialect_attr("llvm.tailcallkind", "none")),
            ("callee", callee),
            ("fastmathFlags", Converter::fastmath_none()),
            ("op_bundle_sizes", Attribute::DenseArray { element: i32t, values: vec![] }),
            (
                "operandSegmentSizes",
                Attribute::DenseArray {
                    element: i32t,
                    values: vec![
                        Attribute::Integer { value: n, ty: i32t },
                        Attribute::Integer { value: 0, ty: i32t },
                    ],
                },
            ),
        ];
        let call = self.emit("llvm.call", operands, &results, props);
        if let Some(&r) = self.ir.op(call).results.first() {
            self.replace(op, r);
        }
        Ok(())
    }

    /// The LLVM form of a constant attribute: integers signless, bools as `true`.
    fn constant_attribute(&mut self, a: &Attribute) -> Option<Attribute> {
        Some(match a {
            Attribute::Integer { value, ty } => {
                let ty = self.convert_type(*ty)?;
                if self.ir.types.kind(ty)
                    == (&TypeKind::Integer { width: 1, signedness: Signedness::Signless })
                {
                    Attribute::Bool(*value != 0)
                } else {
                    Attribute::Integer { value: self.ir.types.normalize_integer(*value, ty), ty }
                }
            }
            Attribute::Float { value, ty } => Attribute::Float { value: *value, ty: *ty },
            Attribute::Bool(b) => Attribute::Bool(*b),
            Attribute::Dense { elements, ty } => {
                let ty = self.convert_type(*ty)?;
                let elements =
                    elements.iter().map(|e| self.constant_attribute(e)).collect::<Option<Vec<_>>>()?;
                Attribute::Dense { elements, ty }
            }
            _ => return None,
        })
    }

    fn lower_constant(&mut self, op: OpId) -> Result<(), ConvertError> {
        let Some(value) = self.ir.op(op).attr("value").cloned() else { return Err(self.illegal(op)) };
        let old_ty = self.ir.value_type(self.ir.op(op).results[0]);
        let v = self.materialize_constant(op, &value, old_ty)?;
        self.replace(op, v);
        Ok(())
    }

    /// The ops computing constant `value` of SPIR-V type `old_ty` (a null constant is
    /// `llvm.mlir.zero`, a composite is built member by member, beyond MLIR 22).
    pub(crate) fn materialize_constant(
        &mut self,
        op: OpId,
        value: &Attribute,
        old_ty: Type,
    ) -> Result<Value, ConvertError> {
        let ty = self.convert_type(old_ty).ok_or_else(|| self.illegal(op))?;
        if value.is_null_constant() {
            return Ok(self.emit_value("llvm.mlir.zero", vec![], ty, vec![]));
        }
        if let Attribute::Array(items) = value {
            return self.composite_constant(op, items, old_ty, ty);
        }
        let value = self.constant_attribute(value).ok_or_else(|| self.illegal(op))?;
        Ok(self.emit_value("llvm.mlir.constant", vec![], ty, vec![("value", value)]))
    }

    fn composite_constant(
        &mut self,
        op: OpId,
        items: &[Attribute],
        old_ty: Type,
        ty: Type,
    ) -> Result<Value, ConvertError> {
        let mut acc = self.emit_value("llvm.mlir.poison", vec![], ty, vec![]);
        for (i, item) in items.iter().enumerate() {
            let (old_member, index) = self.member_step(old_ty, i as i64).ok_or_else(|| self.illegal(op))?;
            let member_ty = self.convert_type(old_member).ok_or_else(|| self.illegal(op))?;
            let v = match item {
                Attribute::Array(inner) => self.composite_constant(op, inner, old_member, member_ty)?,
                other => {
                    let value = self.constant_attribute(other).ok_or_else(|| self.illegal(op))?;
                    self.emit_value("llvm.mlir.constant", vec![], member_ty, vec![("value", value)])
                }
            };
            let i64t = self.int_type(64);
            let position = Attribute::DenseArray {
                element: i64t,
                values: index
                    .into_iter()
                    .map(|p| Attribute::Integer { value: p as i128, ty: i64t })
                    .collect(),
            };
            acc = self.emit_value("llvm.insertvalue", vec![acc, v], ty, vec![("position", position)]);
        }
        Ok(acc)
    }

    /// The member type at `index` of SPIR-V composite `ty` and the LLVM positions it
    /// takes (two under a wrapped array element).
    pub(crate) fn member_step(&mut self, ty: Type, index: i64) -> Option<(Type, Vec<i64>)> {
        let step = self.ir.types.composite_step(ty, usize::try_from(index).ok());
        let member = match step {
            spirvkit_ir::types::CompositeStep::Element { ty, .. } => ty,
            spirvkit_ir::types::CompositeStep::Member(Some(ty)) => ty,
            _ => return None,
        };
        self.convert_type(ty)?;
        // A laid-out matrix's memory is not a matrix value (no value-level path yet).
        if self.laid_out_matrices.contains_key(&(ty, usize::try_from(index).ok()?)) {
            return None;
        }
        Some(match self.remaps.get(&ty) {
            Some(Remap::Members(map)) => (member, vec![*map.get(usize::try_from(index).ok()?)?]),
            Some(Remap::WrappedElements) => (member, vec![index, 0]),
            None => (member, vec![index]),
        })
    }

    fn lower_variable(&mut self, op: OpId) -> Result<(), ConvertError> {
        let pointee = match self.ir.types.kind(self.ir.value_type(self.ir.op(op).results[0])) {
            TypeKind::Pointer { pointee, .. } => *pointee,
            _ => return Err(self.illegal(op)),
        };
        let element = self.convert_type(pointee).ok_or_else(|| self.illegal(op))?;
        let ty = self.result_type(op, 0)?;
        let init = self.operands(op)?;
        let size = self.const_int(1, 32);
        let ptr =
            self.emit_value("llvm.alloca", vec![size], ty, vec![("elem_type", Attribute::Type(element))]);
        if let Some(&init) = init.first() {
            self.emit("llvm.store", vec![init, ptr], &[], vec![("ordering", self.int_attr(0, 64))]);
        }
        self.replace(op, ptr);
        Ok(())
    }

    /// The properties of a load or store from its memory access attributes.
    fn memory_access_props(&mut self, op: OpId) -> Result<Vec<(&'static str, Attribute)>, ConvertError> {
        let access = match self.ir.op(op).attr("memory_access") {
            Some(Attribute::Dialect { body: Some(b), .. }) => b.clone(),
            _ => String::new(),
        };
        let mut props = vec![("ordering", self.int_attr(0, 64))];
        for flag in access.split('|').map(str::trim).filter(|f| !f.is_empty()) {
            match flag {
                "None" | "MakePointerAvailable" | "MakePointerVisible" | "NonPrivatePointer" => {}
                "Aligned" => {
                    if let Some(Attribute::Integer { value, .. }) = self.ir.op(op).attr("alignment").cloned()
                    {
                        props.push(("alignment", self.int_attr(value, 64)));
                    }
                }
                "Volatile" => props.push(("volatile_", Attribute::Unit)),
                "Nontemporal" => props.push(("nontemporal", Attribute::Unit)),
                _ => return Err(self.illegal(op)),
            }
        }
        Ok(props)
    }

    fn lower_load(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        // A storage image's value is its descriptor's address (see `images`).
        if self.options.storage_images {
            let result = self.ir.op(op).results[0];
            if matches!(
                self.ir.types.kind(self.ir.value_type(result)),
                TypeKind::Image { .. } | TypeKind::SampledImage(_) | TypeKind::Sampler
            ) {
                self.replace(op, operands[0]);
                return Ok(());
            }
        }
        let ty = self.result_type(op, 0)?;
        let props = self.memory_access_props(op)?;
        if let Some(&at) = self.laid_out_pointers.get(&operands[0]) {
            let v = self.load_laid_out(operands[0], at, ty);
            self.replace(op, v);
            return Ok(());
        }
        let v = self.emit_value("llvm.load", operands, ty, props);
        self.replace(op, v);
        Ok(())
    }

    fn lower_store(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let [ptr, value] = operands[..] else { return Err(self.illegal(op)) };
        let props = self.memory_access_props(op)?;
        self.emit("llvm.store", vec![value, ptr], &[], props);
        Ok(())
    }

    /// Whether `v` is an `llvm.mlir.constant` integer, and its value.
    fn constant_int(&self, v: Value) -> Option<i128> {
        let op = defining_op(self.ir, v)?;
        if self.ir.op(op).name != "llvm.mlir.constant" {
            return None;
        }
        match self.ir.op(op).attr("value")? {
            Attribute::Integer { value, .. } => Some(*value),
            _ => None,
        }
    }

    fn lower_access_chain(&mut self, op: OpId, name: &str) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let old_operands = self.ir.op(op).operands.clone();
        let Some((&base, indices)) = operands.split_first() else { return Err(self.illegal(op)) };
        let pointee = self.pointee_of(op, 0)?;
        let element = self.convert_type(pointee).ok_or_else(|| self.illegal(op))?;
        let ty = self.result_type(op, 0)?;
        let mut gep_indices: Vec<Value> = Vec::new();
        if matches!(name, "spirv.AccessChain" | "spirv.InBoundsAccessChain") {
            let Some(&first) = old_operands.get(1) else {
                // No index: the same pointer.
                self.replace(op, base);
                return Ok(());
            };
            let index_ty = self.ir.value_type(first);
            let width = match self.ir.types.kind(index_ty) {
                TypeKind::Integer { width, .. } => *width,
                _ => 32,
            };
            gep_indices.push(self.const_int(0, width));
            gep_indices.extend_from_slice(indices);
        } else {
            gep_indices.extend_from_slice(indices);
        }
        // Walk the SPIR-V type for the remaps of explicit layouts.
        let mut walk = Vec::with_capacity(gep_indices.len() + 2);
        walk.push(gep_indices[0]);
        let mut current = pointee;
        // The pointer ends at a laid-out matrix (or one column of it): only a load may use it.
        let mut laid_out_end: Option<LaidOutPointer> = None;
        let mut rest = gep_indices[1..].iter().copied();
        while let Some(index) = rest.next() {
            let constant = self.constant_int(index).and_then(|c| i64::try_from(c).ok());
            match self.remaps.get(&current).cloned() {
                Some(Remap::Members(map)) => {
                    let c = constant.ok_or_else(|| self.illegal(op))?;
                    let m = *map
                        .get(usize::try_from(c).map_err(|_| self.illegal(op))?)
                        .ok_or_else(|| self.illegal(op))?;
                    let width = self.int_width(index);
                    walk.push(self.const_int(i128::from(m), width));
                    if let Some(&layout) = self.laid_out_matrices.get(&(current, c as usize)) {
                        if layout.in_array {
                            return Err(self.error(
                                op,
                                "not supported yet: access into an array of RowMajor or strided matrices",
                            ));
                        }
                        // Into the matrix's memory: (column, row) reordered for its rows,
                        // a column of a column-major one is its (padded) vector, anything
                        // else is gathered by the load.
                        let zero = self.const_int(0, 32);
                        let (column, row) = (rest.next(), rest.next());
                        match (column, row) {
                            (Some(column), Some(row)) => {
                                let (vector, at) =
                                    if layout.row_major { (row, column) } else { (column, row) };
                                walk.extend([vector, zero, at]);
                            }
                            (Some(column), None) if !layout.row_major => walk.extend([column, zero]),
                            (column, _) => laid_out_end = Some(LaidOutPointer { layout, column }),
                        }
                        // Nothing goes deeper than a matrix element.
                        if rest.next().is_some() {
                            return Err(self.illegal(op));
                        }
                        break;
                    }
                }
                Some(Remap::WrappedElements) => {
                    walk.push(index);
                    let zero = self.const_int(0, 32);
                    walk.push(zero);
                }
                None => walk.push(index),
            }
            let step = self.ir.types.composite_step(current, constant.and_then(|c| usize::try_from(c).ok()));
            current = match step {
                spirvkit_ir::types::CompositeStep::Element { ty, .. } => ty,
                spirvkit_ir::types::CompositeStep::Member(Some(ty)) => ty,
                _ => return Err(self.illegal(op)),
            };
        }
        // MLIR's GEP builder: constant indices into structs become raw constants.
        let mut raw = Vec::with_capacity(walk.len());
        let mut dynamic = Vec::new();
        let mut llvm_current = Some(element);
        for (i, &index) in walk.iter().enumerate() {
            let is_struct = i > 0
                && matches!(llvm_current.map(|t| self.ir.types.kind(t)), Some(TypeKind::LlvmStruct { .. }));
            let constant = self.constant_int(index);
            match constant {
                Some(c) if is_struct && i32::try_from(c).is_ok() => raw.push(c),
                _ => {
                    raw.push(GEP_DYNAMIC_INDEX);
                    dynamic.push(index);
                }
            }
            if i == 0 {
                continue;
            }
            llvm_current = llvm_current.and_then(|t| match self.ir.types.kind(t) {
                TypeKind::Vector { element, .. } => Some(*element),
                TypeKind::LlvmArray { element, .. } => Some(*element),
                TypeKind::LlvmStruct { members, .. } => {
                    let m = *raw.last().expect("pushed above");
                    usize::try_from(m).ok().and_then(|m| members.get(m).copied())
                }
                _ => None,
            });
        }
        let i32t = self.int_type(32);
        let mut operands = vec![base];
        operands.extend(dynamic);
        let props = vec![
            ("elem_type", Attribute::Type(element)),
            // `inbounds` (with its implied `nusw`) where SPIR-V says in bounds.
            ("noWrapFlags", self.int_attr(if name.starts_with("spirv.InBounds") { 3 } else { 0 }, 32)),
            (
                "rawConstantIndices",
                Attribute::DenseArray {
                    element: i32t,
                    values: raw.into_iter().map(|v| Attribute::Integer { value: v, ty: i32t }).collect(),
                },
            ),
        ];
        let v = self.emit_value("llvm.getelementptr", operands, ty, props);
        if let Some(end) = laid_out_end {
            self.laid_out_pointers.insert(v, end);
        }
        self.replace(op, v);
        Ok(())
    }

    /// `spirv.Load` through a pointer to a laid-out matrix (the whole matrix value, as
    /// its column vectors) or to one column of a row-major one: each element loaded
    /// from its place.
    fn load_laid_out(&mut self, ptr: Value, at: LaidOutPointer, result: Type) -> Value {
        let layout = at.layout;
        let column_ty = self.ir.types.vector(u64::from(layout.rows), layout.element);
        let columns: Vec<Value> = match at.column {
            Some(c) => vec![c],
            None => (0..layout.columns).map(|c| self.const_int(i128::from(c), 32)).collect(),
        };
        let mut matrix = self.emit_value("llvm.mlir.poison", vec![], result, vec![]);
        let ptr_ty = self.ir.value_type(ptr);
        for (c, &column) in columns.iter().enumerate() {
            let mut vector = self.emit_value("llvm.mlir.poison", vec![], column_ty, vec![]);
            for r in 0..layout.rows {
                let row = self.const_int(i128::from(r), 32);
                let zero = self.const_int(0, 32);
                let (outer, inner) = if layout.row_major { (row, column) } else { (column, row) };
                let indices = [zero, outer, zero, inner];
                let mut raw = Vec::with_capacity(4);
                let mut dynamic = Vec::new();
                for (i, &index) in indices.iter().enumerate() {
                    // The wrapper struct's index must be a raw constant; the others may be.
                    match self.constant_int(index) {
                        Some(k) if i == 2 || i32::try_from(k).is_ok() => raw.push(k),
                        _ => {
                            raw.push(GEP_DYNAMIC_INDEX);
                            dynamic.push(index);
                        }
                    }
                }
                let i32t = self.int_type(32);
                let mut gep_operands = vec![ptr];
                gep_operands.extend(dynamic);
                let props = vec![
                    ("elem_type", Attribute::Type(layout.memory)),
                    ("noWrapFlags", self.int_attr(0, 32)),
                    (
                        "rawConstantIndices",
                        Attribute::DenseArray {
                            element: i32t,
                            values: raw
                                .into_iter()
                                .map(|v| Attribute::Integer { value: v, ty: i32t })
                                .collect(),
                        },
                    ),
                ];
                let element_ptr = self.emit_value("llvm.getelementptr", gep_operands, ptr_ty, props);
                let ordering = vec![("ordering", self.int_attr(0, 64))];
                let e = self.emit_value("llvm.load", vec![element_ptr], layout.element, ordering);
                let lane = self.const_int(i128::from(r), 32);
                vector = self.emit_value("llvm.insertelement", vec![vector, e, lane], column_ty, vec![]);
            }
            if at.column.is_some() {
                return vector;
            }
            let position = self.position_attr(vec![c as i64]);
            matrix = self.emit_value(
                "llvm.insertvalue",
                vec![matrix, vector],
                result,
                vec![("position", position)],
            );
        }
        matrix
    }

    fn int_width(&self, v: Value) -> u32 {
        match self.ir.types.kind(self.ir.value_type(v)) {
            TypeKind::Integer { width, .. } => *width,
            _ => 32,
        }
    }

    fn indices_attr(&self, op: OpId) -> Option<Vec<i64>> {
        match self.ir.op(op).attr("indices")? {
            Attribute::Array(items) => items
                .iter()
                .map(|a| match a {
                    Attribute::Integer { value, .. } => i64::try_from(*value).ok(),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// The LLVM positions of SPIR-V composite indices into `ty` (remapped).
    fn positions(&mut self, op: OpId, ty: Type, indices: &[i64]) -> Result<Vec<i64>, ConvertError> {
        let mut out = Vec::with_capacity(indices.len());
        let mut current = ty;
        for &i in indices {
            let (next, steps) = self.member_step(current, i).ok_or_else(|| self.illegal(op))?;
            out.extend(steps);
            current = next;
        }
        Ok(out)
    }

    fn position_attr(&mut self, positions: Vec<i64>) -> Attribute {
        let i64t = self.int_type(64);
        Attribute::DenseArray {
            element: i64t,
            values: positions
                .into_iter()
                .map(|p| Attribute::Integer { value: i128::from(p), ty: i64t })
                .collect(),
        }
    }

    fn is_vector(&self, v: Value) -> bool {
        matches!(self.ir.types.kind(self.ir.value_type(v)), TypeKind::Vector { .. })
    }

    fn lower_composite_extract(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let ty = self.result_type(op, 0)?;
        let indices = self.indices_attr(op).ok_or_else(|| self.illegal(op))?;
        let old_composite = self.ir.op(op).operands[0];
        if self.is_vector(old_composite) && indices.len() == 1 {
            let index = self.const_int(i128::from(indices[0]), 32);
            let v = self.emit_value("llvm.extractelement", vec![operands[0], index], ty, vec![]);
            self.replace(op, v);
            return Ok(());
        }
        let composite_ty = self.ir.value_type(old_composite);
        let v = self.extract_path(op, operands[0], composite_ty, &indices, ty)?;
        self.replace(op, v);
        Ok(())
    }

    /// The SPIR-V type reached by `indices` from `ty`, and whether the last index is
    /// into a vector.
    fn walk_indices(&mut self, op: OpId, ty: Type, indices: &[i64]) -> Result<(Type, bool), ConvertError> {
        let mut current = ty;
        let mut into_vector = false;
        for (i, &index) in indices.iter().enumerate() {
            into_vector = matches!(self.ir.types.kind(current), TypeKind::Vector { .. });
            if into_vector && i + 1 != indices.len() {
                return Err(self.illegal(op));
            }
            current = self.member_step(current, index).ok_or_else(|| self.illegal(op))?.0;
        }
        Ok((current, into_vector))
    }

    /// The LLVM type at `positions` inside LLVM aggregate `ty`.
    fn slot_type(&self, ty: Type, positions: &[i64]) -> Option<Type> {
        let mut current = ty;
        for &p in positions {
            current = match self.ir.types.kind(current) {
                TypeKind::LlvmArray { element, .. } => *element,
                TypeKind::LlvmStruct { members, .. } => *members.get(usize::try_from(p).ok()?)?,
                _ => return None,
            };
        }
        Some(current)
    }

    /// `extractvalue` along SPIR-V `indices` (remapped), the result as `result` (a
    /// vector kept as an array inside a laid-out struct is rebuilt).
    fn extract_path(
        &mut self,
        op: OpId,
        aggregate: Value,
        aggregate_spirv: Type,
        indices: &[i64],
        result: Type,
    ) -> Result<Value, ConvertError> {
        let (_, into_vector) = self.walk_indices(op, aggregate_spirv, indices)?;
        let agg_ty = self.ir.value_type(aggregate);
        if into_vector {
            let (prefix, last) = indices.split_at(indices.len() - 1);
            let positions = self.positions(op, aggregate_spirv, prefix)?;
            let slot = self.slot_type(agg_ty, &positions).ok_or_else(|| self.illegal(op))?;
            let position = self.position_attr(positions);
            let vector =
                self.emit_value("llvm.extractvalue", vec![aggregate], slot, vec![("position", position)]);
            if matches!(self.ir.types.kind(slot), TypeKind::LlvmArray { .. }) {
                let position = self.position_attr(vec![last[0]]);
                return Ok(self.emit_value(
                    "llvm.extractvalue",
                    vec![vector],
                    result,
                    vec![("position", position)],
                ));
            }
            let index = self.const_int(i128::from(last[0]), 32);
            return Ok(self.emit_value("llvm.extractelement", vec![vector, index], result, vec![]));
        }
        let positions = self.positions(op, aggregate_spirv, indices)?;
        let slot = self.slot_type(agg_ty, &positions).unwrap_or(result);
        let position = self.position_attr(positions);
        let v = self.emit_value("llvm.extractvalue", vec![aggregate], slot, vec![("position", position)]);
        Ok(self.adapt(v, result))
    }

    /// `insertvalue` of `value` along SPIR-V `indices` (remapped).
    fn insert_path(
        &mut self,
        op: OpId,
        aggregate: Value,
        aggregate_spirv: Type,
        indices: &[i64],
        value: Value,
    ) -> Result<Value, ConvertError> {
        let (_, into_vector) = self.walk_indices(op, aggregate_spirv, indices)?;
        let agg_ty = self.ir.value_type(aggregate);
        if into_vector {
            let (prefix, last) = indices.split_at(indices.len() - 1);
            let positions = self.positions(op, aggregate_spirv, prefix)?;
            let slot = self.slot_type(agg_ty, &positions).ok_or_else(|| self.illegal(op))?;
            let position = self.position_attr(positions.clone());
            let vector =
                self.emit_value("llvm.extractvalue", vec![aggregate], slot, vec![("position", position)]);
            let updated = if matches!(self.ir.types.kind(slot), TypeKind::LlvmArray { .. }) {
                let position = self.position_attr(vec![last[0]]);
                self.emit_value("llvm.insertvalue", vec![vector, value], slot, vec![("position", position)])
            } else {
                let index = self.const_int(i128::from(last[0]), 32);
                self.emit_value("llvm.insertelement", vec![vector, value, index], slot, vec![])
            };
            let position = self.position_attr(positions);
            return Ok(self.emit_value(
                "llvm.insertvalue",
                vec![aggregate, updated],
                agg_ty,
                vec![("position", position)],
            ));
        }
        let positions = self.positions(op, aggregate_spirv, indices)?;
        let value_ty = self.ir.value_type(value);
        let slot = self.slot_type(agg_ty, &positions).unwrap_or(value_ty);
        let value = self.adapt(value, slot);
        let position = self.position_attr(positions);
        Ok(self.emit_value("llvm.insertvalue", vec![aggregate, value], agg_ty, vec![("position", position)]))
    }

    /// `v` as type `to` where a vector and the array a laid-out struct keeps it as
    /// differ; other values are returned as they are.
    pub(crate) fn adapt(&mut self, v: Value, to: Type) -> Value {
        let from = self.ir.value_type(v);
        if from == to {
            return v;
        }
        match (self.ir.types.kind(from).clone(), self.ir.types.kind(to).clone()) {
            (TypeKind::LlvmArray { count, element }, TypeKind::Vector { .. }) => {
                let mut acc = self.emit_value("llvm.mlir.poison", vec![], to, vec![]);
                for i in 0..count {
                    let position = self.position_attr(vec![i as i64]);
                    let e =
                        self.emit_value("llvm.extractvalue", vec![v], element, vec![("position", position)]);
                    let index = self.const_int(i128::from(i as i64), 32);
                    acc = self.emit_value("llvm.insertelement", vec![acc, e, index], to, vec![]);
                }
                acc
            }
            (TypeKind::Vector { element, .. }, TypeKind::LlvmArray { count, .. }) => {
                let mut acc = self.emit_value("llvm.mlir.poison", vec![], to, vec![]);
                for i in 0..count {
                    let index = self.const_int(i128::from(i as i64), 32);
                    let e = self.emit_value("llvm.extractelement", vec![v, index], element, vec![]);
                    let position = self.position_attr(vec![i as i64]);
                    acc = self.emit_value("llvm.insertvalue", vec![acc, e], to, vec![("position", position)]);
                }
                acc
            }
            _ => v,
        }
    }

    /// `spirv.CopyLogical`: a value of a laid-out composite as the logical composite
    /// of the same shape, member by member.
    fn lower_copy_logical(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let from = self.ir.value_type(self.ir.op(op).operands[0]);
        let to = self.ir.value_type(self.ir.op(op).results[0]);
        let v = self.copy_logical(op, operands[0], from, to, 0)?;
        self.replace(op, v);
        Ok(())
    }

    fn copy_logical(
        &mut self,
        op: OpId,
        v: Value,
        from: Type,
        to: Type,
        depth: usize,
    ) -> Result<Value, ConvertError> {
        let to_llvm = self.convert_type(to).ok_or_else(|| self.illegal(op))?;
        if self.ir.value_type(v) == to_llvm || depth > 64 {
            return Ok(v);
        }
        let count = match self.ir.types.kind(to) {
            TypeKind::Array { count, .. } => *count as usize,
            TypeKind::LiteralStruct(body) => body.members.len(),
            TypeKind::IdentifiedStruct { name } => {
                self.ir.types.struct_body(name).map_or(0, |b| b.members.len())
            }
            _ => return Ok(self.adapt(v, to_llvm)),
        };
        let mut acc = self.emit_value("llvm.mlir.poison", vec![], to_llvm, vec![]);
        for i in 0..count as i64 {
            let (from_member, _) = self.member_step(from, i).ok_or_else(|| self.illegal(op))?;
            let (to_member, _) = self.member_step(to, i).ok_or_else(|| self.illegal(op))?;
            let from_value_ty = self.convert_type(from_member).ok_or_else(|| self.illegal(op))?;
            let e = self.extract_path(op, v, from, &[i], from_value_ty)?;
            let e = self.copy_logical(op, e, from_member, to_member, depth + 1)?;
            acc = self.insert_path(op, acc, to, &[i], e)?;
        }
        Ok(acc)
    }

    fn lower_composite_insert(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let ty = self.result_type(op, 0)?;
        let indices = self.indices_attr(op).ok_or_else(|| self.illegal(op))?;
        let old_composite = self.ir.op(op).operands[1];
        if self.is_vector(old_composite) && indices.len() == 1 {
            let index = self.const_int(i128::from(indices[0]), 32);
            let v = self.emit_value("llvm.insertelement", vec![operands[1], operands[0], index], ty, vec![]);
            self.replace(op, v);
            return Ok(());
        }
        let composite_ty = self.ir.value_type(old_composite);
        let v = self.insert_path(op, operands[1], composite_ty, &indices, operands[0])?;
        self.replace(op, v);
        Ok(())
    }

    fn lower_composite_construct(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let ty = self.result_type(op, 0)?;
        let old_ty = self.ir.value_type(self.ir.op(op).results[0]);
        let mut acc = self.emit_value("llvm.mlir.poison", vec![], ty, vec![]);
        if let TypeKind::Vector { .. } = self.ir.types.kind(ty) {
            // Constituents may be scalars or vectors (concatenated).
            let mut at = 0i128;
            for (i, &v) in operands.iter().enumerate() {
                let old = self.ir.op(op).operands[i];
                match self.ir.types.kind(self.ir.value_type(v)).clone() {
                    TypeKind::Vector { shape, element, .. } => {
                        let _ = old;
                        for j in 0..shape.iter().product::<u64>() {
                            let src = self.const_int(j as i128, 32);
                            let e = self.emit_value("llvm.extractelement", vec![v, src], element, vec![]);
                            let dst = self.const_int(at, 32);
                            acc = self.emit_value("llvm.insertelement", vec![acc, e, dst], ty, vec![]);
                            at += 1;
                        }
                    }
                    _ => {
                        let dst = self.const_int(at, 32);
                        acc = self.emit_value("llvm.insertelement", vec![acc, v, dst], ty, vec![]);
                        at += 1;
                    }
                }
            }
        } else {
            for (i, &v) in operands.iter().enumerate() {
                acc = self.insert_path(op, acc, old_ty, &[i as i64], v)?;
            }
        }
        self.replace(op, acc);
        Ok(())
    }

    fn lower_vector_shuffle(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let ty = self.result_type(op, 0)?;
        let components: Vec<i128> = match self.ir.op(op).attr("components") {
            Some(Attribute::Array(items)) => items
                .iter()
                .map(|a| match a {
                    Attribute::Integer { value, .. } => Ok(i128::from(*value as i32)),
                    _ => Err(()),
                })
                .collect::<Result<_, _>>()
                .map_err(|_| self.illegal(op))?,
            _ => return Err(self.illegal(op)),
        };
        let [v1, v2] = operands[..] else { return Err(self.illegal(op)) };
        let t1 = self.ir.value_type(v1);
        let t2 = self.ir.value_type(v2);
        let len = |ir: &spirvkit_ir::ir::Ir, t: Type| match ir.types.kind(t) {
            TypeKind::Vector { shape, .. } => shape.iter().product::<u64>() as i128,
            _ => 0,
        };
        let n1 = len(self.ir, t1);
        if t1 == t2 {
            let i32t = self.int_type(32);
            let mask = Attribute::DenseArray {
                element: i32t,
                values: components.iter().map(|&c| Attribute::Integer { value: c, ty: i32t }).collect(),
            };
            let v = self.emit_value("llvm.shufflevector", vec![v1, v2], ty, vec![("mask", mask)]);
            self.replace(op, v);
            return Ok(());
        }

        let element = self.ir.types.scalar_of(ty);
        let mut acc = self.emit_value("llvm.mlir.poison", vec![], ty, vec![]);
        for (i, &c) in components.iter().enumerate() {
            if c == -1 {
                continue;
            }
            let (base, offset) = if c >= n1 { (v2, n1) } else { (v1, 0) };
            let dst = self.const_int(i as i128, 32);
            let src = self.const_int(c - offset, 32);
            let e = self.emit_value("llvm.extractelement", vec![base, src], element, vec![]);
            acc = self.emit_value("llvm.insertelement", vec![acc, e, dst], ty, vec![]);
        }
        self.replace(op, acc);
        Ok(())
    }

    fn is_unsigned(&self, v: Value) -> bool {
        let t = self.ir.types.scalar_of(self.ir.value_type(v));
        matches!(self.ir.types.kind(t), TypeKind::Integer { signedness: Signedness::Unsigned, .. })
    }

    fn element_width(&self, t: Type) -> Option<u32> {
        match self.ir.types.kind(self.ir.types.scalar_of(t)) {
            TypeKind::Integer { width, .. } => Some(*width),
            TypeKind::Float(k) => Some(k.width()),
            _ => None,
        }
    }

    fn lower_shift(&mut self, op: OpId, name: &str) -> Result<(), ConvertError> {
        let llvm = match name {
            "spirv.ShiftLeftLogical" => "llvm.shl",
            "spirv.ShiftRightArithmetic" => "llvm.ashr",
            _ => "llvm.lshr",
        };
        let props = if llvm == "llvm.shl" { self.props(Props::Overflow) } else { vec![] };
        let operands = self.operands(op)?;
        let ty = self.result_type(op, 0)?;
        let old = self.ir.op(op).operands.clone();
        let (t1, t2) = (self.ir.value_type(old[0]), self.ir.value_type(old[1]));
        if t1 == t2 {
            let v = self.emit_value(llvm, operands, ty, props);
            self.replace(op, v);
            return Ok(());
        }
        let (Some(dst_width), Some(shift_width)) = (self.element_width(ty), self.element_width(t2)) else {
            return Err(self.illegal(op));
        };
        let shift = match shift_width.cmp(&dst_width) {
            std::cmp::Ordering::Less => {
                let ext = if self.is_unsigned(old[1]) { "llvm.zext" } else { "llvm.sext" };
                self.emit_value(ext, vec![operands[1]], ty, vec![])
            }
            std::cmp::Ordering::Equal => operands[1],
            std::cmp::Ordering::Greater => return Err(self.illegal(op)),
        };
        let v = self.emit_value(llvm, vec![operands[0], shift], ty, props);
        self.replace(op, v);
        Ok(())
    }

    fn lower_width_cast(&mut self, op: OpId, name: &str) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let ty = self.result_type(op, 0)?;
        let from = self.ir.value_type(operands[0]);
        let (Some(src), Some(dst)) = (self.element_width(from), self.element_width(ty)) else {
            return Err(self.illegal(op));
        };
        let (llvm, props) = match (name, src.cmp(&dst)) {
            (_, std::cmp::Ordering::Equal) => {
                self.replace(op, operands[0]);
                return Ok(());
            }
            ("spirv.FConvert", std::cmp::Ordering::Less) => ("llvm.fpext", vec![]),
            ("spirv.FConvert", _) => ("llvm.fptrunc", vec![]),
            ("spirv.SConvert", std::cmp::Ordering::Less) => ("llvm.sext", vec![]),
            ("spirv.UConvert", std::cmp::Ordering::Less) => ("llvm.zext", vec![]),
            _ => ("llvm.trunc", self.props(Props::Overflow)),
        };
        let v = self.emit_value(llvm, operands, ty, props);
        self.replace(op, v);
        Ok(())
    }

    /// SPIR-V's SMod: the remainder takes the sign of the divisor.
    fn lower_smod(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let ty = self.result_type(op, 0)?;
        let [a, b] = operands[..] else { return Err(self.illegal(op)) };
        let bool_ty = self.bool_like(ty);
        let rem = self.emit_value("llvm.srem", vec![a, b], ty, vec![]);
        let zero = self.const_of_type(ty, 0, 0.0);
        let nonzero =
            self.emit_value("llvm.icmp", vec![rem, zero], bool_ty, vec![("predicate", self.int_attr(1, 64))]);
        let signs = self.emit_value("llvm.xor", vec![rem, b], ty, vec![]);
        let differ = self.emit_value(
            "llvm.icmp",
            vec![signs, zero],
            bool_ty,
            vec![("predicate", self.int_attr(2, 64))],
        );
        let fix = self.emit_value("llvm.and", vec![nonzero, differ], bool_ty, vec![]);
        let props = self.props(Props::Overflow);
        let adjusted = self.emit_value("llvm.add", vec![rem, b], ty, props);
        let v = self.emit_value(
            "llvm.select",
            vec![fix, adjusted, rem],
            ty,
            vec![("fastmathFlags", Converter::fastmath_none())],
        );
        self.replace(op, v);
        Ok(())
    }

    /// SPIR-V's FMod: the remainder takes the sign of the divisor.
    fn lower_fmod(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let ty = self.result_type(op, 0)?;
        let [a, b] = operands[..] else { return Err(self.illegal(op)) };
        let fm = || ("fastmathFlags", Converter::fastmath_none());
        let bool_ty = self.bool_like(ty);
        let rem = self.emit_value("llvm.frem", vec![a, b], ty, vec![fm()]);
        let zero = self.const_of_type(ty, 0, 0.0);
        let nonzero = self.emit_value(
            "llvm.fcmp",
            vec![rem, zero],
            bool_ty,
            vec![fm(), ("predicate", self.int_attr(6, 64))],
        );
        let rem_neg = self.emit_value(
            "llvm.fcmp",
            vec![rem, zero],
            bool_ty,
            vec![fm(), ("predicate", self.int_attr(4, 64))],
        );
        let b_neg = self.emit_value(
            "llvm.fcmp",
            vec![b, zero],
            bool_ty,
            vec![fm(), ("predicate", self.int_attr(4, 64))],
        );
        let differ = self.emit_value("llvm.xor", vec![rem_neg, b_neg], bool_ty, vec![]);
        let fix = self.emit_value("llvm.and", vec![nonzero, differ], bool_ty, vec![]);
        let adjusted = self.emit_value("llvm.fadd", vec![rem, b], ty, vec![fm()]);
        let v = self.emit_value("llvm.select", vec![fix, adjusted, rem], ty, vec![fm()]);
        self.replace(op, v);
        Ok(())
    }

    /// `i1`, or a vector of `i1` shaped as `ty`.
    pub(crate) fn bool_like(&mut self, ty: Type) -> Type {
        let i1 = self.int_type(1);
        match self.ir.types.kind(ty).clone() {
            TypeKind::Vector { shape, scalable, .. } => {
                self.ir.types.intern(TypeKind::Vector { shape, scalable, element: i1 })
            }
            _ => i1,
        }
    }

    /// `v` (an integer scalar) as an integer of `ty` (zero-extended or truncated,
    /// splat for vectors), as MLIR's bitfield patterns prepare offsets and counts.
    fn int_operand_as(&mut self, v: Value, ty: Type) -> Value {
        let element = self.ir.types.scalar_of(ty);
        let from = self.ir.value_type(v);
        let (Some(fw), Some(tw)) = (self.element_width(from), self.element_width(element)) else { return v };
        let scalar = match fw.cmp(&tw) {
            std::cmp::Ordering::Less => self.emit_value("llvm.zext", vec![v], element, vec![]),
            std::cmp::Ordering::Greater => {
                let props = self.props(Props::Overflow);
                self.emit_value("llvm.trunc", vec![v], element, props)
            }
            std::cmp::Ordering::Equal => v,
        };
        if element == ty {
            scalar
        } else {
            self.splat(scalar, ty)
        }
    }

    fn lower_bitfield(&mut self, op: OpId, name: &str) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let ty = self.result_type(op, 0)?;
        let width = self.element_width(ty).ok_or_else(|| self.illegal(op))?;
        let ov = |c: &mut Self| c.props(Props::Overflow);
        match name {
            "spirv.BitFieldInsert" => {
                let [base, insert, offset, count] = operands[..] else { return Err(self.illegal(op)) };
                let offset = self.int_operand_as(offset, ty);
                let count = self.int_operand_as(count, ty);
                let minus_one = self.const_of_type(ty, -1, 0.0);
                let p = ov(self);
                let t0 = self.emit_value("llvm.shl", vec![minus_one, count], ty, p);
                let t1 = self.emit_value("llvm.xor", vec![t0, minus_one], ty, vec![]);
                let p = ov(self);
                let t2 = self.emit_value("llvm.shl", vec![t1, offset], ty, p);
                let mask = self.emit_value("llvm.xor", vec![t2, minus_one], ty, vec![]);
                let base_masked = self.emit_value("llvm.and", vec![base, mask], ty, vec![]);
                let p = ov(self);
                let inserted = self.emit_value("llvm.shl", vec![insert, offset], ty, p);
                let v = self.emit_value("llvm.or", vec![base_masked, inserted], ty, vec![]);
                self.replace(op, v);
            }
            "spirv.BitFieldSExtract" => {
                let [base, offset, count] = operands[..] else { return Err(self.illegal(op)) };
                let offset = self.int_operand_as(offset, ty);
                let count = self.int_operand_as(count, ty);
                let size = self.const_of_type(ty, i128::from(width), 0.0);
                let p = ov(self);
                let t0 = self.emit_value("llvm.add", vec![count, offset], ty, p);
                let p = ov(self);
                let t1 = self.emit_value("llvm.sub", vec![size, t0], ty, p);
                let p = ov(self);
                let t2 = self.emit_value("llvm.shl", vec![base, t1], ty, p);
                let p = ov(self);
                let t3 = self.emit_value("llvm.add", vec![offset, t1], ty, p);
                let v = self.emit_value("llvm.ashr", vec![t2, t3], ty, vec![]);
                self.replace(op, v);
            }
            _ => {
                let [base, offset, count] = operands[..] else { return Err(self.illegal(op)) };
                let offset = self.int_operand_as(offset, ty);
                let count = self.int_operand_as(count, ty);
                let minus_one = self.const_of_type(ty, -1, 0.0);
                let p = ov(self);
                let t0 = self.emit_value("llvm.shl", vec![minus_one, count], ty, p);
                let mask = self.emit_value("llvm.xor", vec![t0, minus_one], ty, vec![]);
                let shifted = self.emit_value("llvm.lshr", vec![base, offset], ty, vec![]);
                let v = self.emit_value("llvm.and", vec![shifted, mask], ty, vec![]);
                self.replace(op, v);
            }
        }
        Ok(())
    }

    /// `spirv.Atomic*` as `llvm.atomicrmw` / `llvm.cmpxchg` (beyond MLIR 22).
    fn lower_atomic(&mut self, op: OpId, name: &str) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let ordering = self.atomic_ordering(op, "semantics");
        let bin_op = match name {
            "spirv.AtomicIAdd" | "spirv.AtomicIIncrement" => 1,
            "spirv.AtomicISub" | "spirv.AtomicIDecrement" => 2,
            "spirv.AtomicAnd" => 3,
            "spirv.AtomicOr" => 5,
            "spirv.AtomicXor" => 6,
            "spirv.AtomicSMax" => 7,
            "spirv.AtomicSMin" => 8,
            "spirv.AtomicUMax" => 9,
            "spirv.AtomicUMin" => 10,
            "spirv.AtomicExchange" => 0,
            "spirv.EXT.AtomicFAdd" | "spirv.AtomicFAddEXT" => 11,
            "spirv.AtomicCompareExchange" | "spirv.AtomicCompareExchangeWeak" => {
                let ty = self.result_type(op, 0)?;
                let [ptr, value, comparator] = operands[..] else { return Err(self.illegal(op)) };
                let ordering = self.atomic_ordering(op, "equal_semantics");
                let failure = self.atomic_ordering(op, "unequal_semantics").min(ordering);
                // LLVM forbids release orderings on failure.
                let failure = match failure {
                    5 => 4,
                    6 => 4,
                    o => o.min(4),
                };
                let i1 = self.int_type(1);
                let pair = self.ir.types.llvm_struct(false, vec![ty, i1]);
                let props = vec![
                    ("failure_ordering", self.int_attr(i128::from(failure.max(2)), 64)),
                    ("success_ordering", self.int_attr(i128::from(ordering.max(2)), 64)),
                ];
                let pair = self.emit_value("llvm.cmpxchg", vec![ptr, comparator, value], pair, props);
                let i64t = self.int_type(64);
                let position = Attribute::DenseArray {
                    element: i64t,
                    values: vec![Attribute::Integer { value: 0, ty: i64t }],
                };
                let v = self.emit_value("llvm.extractvalue", vec![pair], ty, vec![("position", position)]);
                self.replace(op, v);
                return Ok(());
            }
            "spirv.AtomicLoad" | "spirv.AtomicStore" => {
                // MLIR 22 lacks both: the deserializer keeps them generic, scope and
                // semantics as constant operands (pointer, scope, semantics[, value]).
                if operands.len() < 3 {
                    return Err(self.illegal(op));
                }
                let bits = self.constant_int(operands[2]).ok_or_else(|| self.unsupported(op))?;
                let ordering = ordering_of_bits(bits);
                // LLVM wants atomic loads and stores aligned: the value's natural size.
                let (ptr, value) = (operands[0], operands.get(3).copied());
                let value_ty = match value {
                    Some(v) => self.ir.value_type(v),
                    None => self.result_type(op, 0)?,
                };
                let align = self.alloc_size(value_ty).ok_or_else(|| self.illegal(op))?;
                // Loads take no release ordering, stores no acquire one.
                let ordering = match (value.is_some(), ordering) {
                    (false, 5 | 6) => 4,
                    (true, 4 | 6) => 5,
                    (_, o) => o,
                };
                let props = vec![
                    ("alignment", self.int_attr(i128::from(align), 64)),
                    ("ordering", self.int_attr(i128::from(ordering.max(2)), 64)),
                ];
                match value {
                    Some(v) => {
                        self.emit("llvm.store", vec![v, ptr], &[], props);
                    }
                    None => {
                        let v = self.emit_value("llvm.load", vec![ptr], value_ty, props);
                        self.replace(op, v);
                    }
                }
                return Ok(());
            }
            _ => return Err(self.unsupported(op)),
        };
        let ty = self.result_type(op, 0)?;
        let ptr = operands[0];
        let value = match name {
            "spirv.AtomicIIncrement" | "spirv.AtomicIDecrement" => self.const_of_type(ty, 1, 0.0),
            _ => *operands.get(1).ok_or_else(|| self.illegal(op))?,
        };
        let props = vec![
            ("bin_op", self.int_attr(bin_op, 64)),
            ("ordering", self.int_attr(i128::from(ordering.max(2)), 64)),
        ];
        let v = self.emit_value("llvm.atomicrmw", vec![ptr, value], ty, props);
        self.replace(op, v);
        Ok(())
    }

    /// LLVM's `AtomicOrdering` for the memory semantics attribute `key`.
    fn atomic_ordering(&self, op: OpId, key: &str) -> u32 {
        let bits = match self.ir.op(op).attr(key) {
            Some(Attribute::Dialect { body: Some(b), .. }) => {
                super::calls::enum_value("MemorySemantics", b).unwrap_or(0)
            }
            _ => 0,
        };
        ordering_of_bits(i128::from(bits))
    }
}
