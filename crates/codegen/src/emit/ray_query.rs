//! Inline ray tracing (`RayQuery<flags>`, SPV_KHR_ray_query) and the acceleration
//! structures it traces, in every stage that is not a ray-tracing stage.
//!
//! - `RaytracingAccelerationStructure` is a UniformConstant variable of
//!   `OpTypeAccelerationStructureKHR` (register `t`), loaded where it is used.
//! - A `RayQuery` is a Function variable of `OpTypeRayQueryKHR`; its methods operate
//!   on that variable. A query is a handle in HLSL (copies name the same query), so a
//!   query argument passes the variable itself, without a `param.var` copy.
//! - `TraceRayInline` is `OpRayQueryInitializeKHR` with the template's flags or-ed
//!   into the call's (folded when the call's are constant); the getters take the
//!   candidate (0) or committed (1) intersection as an operand where SPIR-V has one.

use super::expr::{Place, Val};
use super::resources::Opnd;
use super::{Emitter, R};
use spirvkit_hlsl::ast::ExprId;
use spirvkit_hlsl::sema::tree::CallInfo;
use spirvkit_hlsl::sema::types::{Family, Majorness, ObjectArg, Scalar, Ty, TypeData};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::Value;
use spirvkit_ir::types::{Type, TypeKind};

/// `RAY_FLAG_SKIP_TRIANGLES | RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES`: flags that need
/// the RayTraversalPrimitiveCullingKHR capability.
const PRIMITIVE_CULLING_FLAGS: i128 = 0x100 | 0x200;

/// Which intersection a getter reads.
#[derive(Clone, Copy)]
enum Intersection {
    Candidate = 0,
    Committed = 1,
}

impl<'t> Emitter<'t> {
    /// `OpTypeAccelerationStructureKHR`, with the ray-query capability (the only
    /// stages supported use it through ray queries).
    pub(super) fn acceleration_structure_type(&mut self) -> Type {
        self.require_ray_query();
        let t = self.store().intern(TypeKind::Opaque("spirv.AccelerationStructureKHR".into()));
        // dxc's name for the type (an OpName, as for `type.sampler`).
        self.store().set_type_name(t, "accelerationStructureNV");
        t
    }

    /// `OpTypeRayQueryKHR`.
    pub(super) fn ray_query_type(&mut self) -> Type {
        self.require_ray_query();
        let t = self.store().intern(TypeKind::Opaque("spirv.RayQueryKHR".into()));
        self.store().set_type_name(t, "rayQueryKHR");
        t
    }

    /// The RayQueryKHR capability and its extension, which `-fspv-extension=` must allow.
    fn require_ray_query(&mut self) {
        let before = self.resources.extensions.len();
        self.require("RayQueryKHR", Some("SPV_KHR_ray_query"));
        self.check_extensions_allowed(before, "RayQueryKHR");
    }

    /// Whether `ty` is a `RayQuery<...>`.
    pub(super) fn is_ray_query(&self, ty: Ty) -> bool {
        matches!(self.data(ty), TypeData::Object { kind, .. } if kind.family() == Family::RayQuery)
    }

    /// The Function variable of a ray-query expression (a local, a parameter, a
    /// member of a local struct).
    pub(super) fn ray_query_pointer(&mut self, e: ExprId) -> R<Option<Value>> {
        match self.expr(e)? {
            Val::P(Place::Ptr { ptr, rule: None, .. }) if self.storage_class_of(ptr) == "Function" => {
                Ok(Some(ptr))
            }
            _ => Ok(None),
        }
    }

    /// The flags of `RayQuery<flags>`.
    fn ray_query_template_flags(&self, ty: Ty) -> i64 {
        match self.data(ty) {
            TypeData::Object { args, .. } => match args.first() {
                Some(ObjectArg::Int(n)) => *n,
                _ => 0,
            },
            _ => 0,
        }
    }

    /// A method of `RayQuery<flags>`.
    pub(super) fn ray_query_method(
        &mut self,
        name: &str,
        base: ExprId,
        base_ty: Ty,
        args: &[ExprId],
        call: &CallInfo,
    ) -> R<Value> {
        let Some(query) = self.ray_query_pointer(base)? else {
            return self.unsupported("a ray query that is not a local variable");
        };
        let ret = call.ret;
        match name {
            "TraceRayInline" => {
                self.trace_ray_inline(query, base_ty, args)?;
                Ok(self.void_undef())
            }
            "Proceed" => {
                let t = self.bool_type();
                Ok(self.fallback_val("spirv.RayQueryProceedKHR", &[Opnd::Id(query)], t))
            }
            "Abort" => {
                self.fallback_effect("spirv.RayQueryTerminateKHR", &[Opnd::Id(query)]);
                Ok(self.void_undef())
            }
            "CommitNonOpaqueTriangleHit" => {
                self.fallback_effect("spirv.RayQueryConfirmIntersectionKHR", &[Opnd::Id(query)]);
                Ok(self.void_undef())
            }
            "CommitProceduralPrimitiveHit" => {
                let float = self.scalar_ty(Scalar::Float);
                let t = self.rvalue_as(self.arg(args, 0)?, float)?;
                self.fallback_effect(
                    "spirv.RayQueryGenerateIntersectionKHR",
                    &[Opnd::Id(query), Opnd::Id(t)],
                );
                Ok(self.void_undef())
            }
            "RayFlags" => self.ray_query_get("spirv.RayQueryGetRayFlagsKHR", query, None, ret),
            "RayTMin" => self.ray_query_get("spirv.RayQueryGetRayTMinKHR", query, None, ret),
            "WorldRayOrigin" => self.ray_query_get("spirv.RayQueryGetWorldRayOriginKHR", query, None, ret),
            "WorldRayDirection" => {
                self.ray_query_get("spirv.RayQueryGetWorldRayDirectionKHR", query, None, ret)
            }
            "CandidateType" => self.ray_query_get(
                "spirv.RayQueryGetIntersectionTypeKHR",
                query,
                Some(Intersection::Candidate),
                ret,
            ),
            "CommittedStatus" => self.ray_query_get(
                "spirv.RayQueryGetIntersectionTypeKHR",
                query,
                Some(Intersection::Committed),
                ret,
            ),
            "CandidateProceduralPrimitiveNonOpaque" => {
                // SPIR-V asks whether the candidate AABB is opaque: the negation.
                let opaque = self.ray_query_get(
                    "spirv.RayQueryGetIntersectionCandidateAABBOpaqueKHR",
                    query,
                    None,
                    ret,
                )?;
                let t = self.bool_type();
                Ok(self.val("spirv.LogicalNot", vec![opaque], t))
            }
            _ => {
                let (intersection, rest) = if let Some(rest) = name.strip_prefix("Candidate") {
                    (Intersection::Candidate, rest)
                } else if let Some(rest) = name.strip_prefix("Committed") {
                    (Intersection::Committed, rest)
                } else {
                    return self.unsupported(format!("the ray query method '{name}'"));
                };
                let op = match rest {
                    "InstanceIndex" => "spirv.RayQueryGetIntersectionInstanceIdKHR",
                    "InstanceID" => "spirv.RayQueryGetIntersectionInstanceCustomIndexKHR",
                    "InstanceContributionToHitGroupIndex" => {
                        "spirv.RayQueryGetIntersectionInstanceShaderBindingTableRecordOffsetKHR"
                    }
                    "GeometryIndex" => "spirv.RayQueryGetIntersectionGeometryIndexKHR",
                    "PrimitiveIndex" => "spirv.RayQueryGetIntersectionPrimitiveIndexKHR",
                    "ObjectRayOrigin" => "spirv.RayQueryGetIntersectionObjectRayOriginKHR",
                    "ObjectRayDirection" => "spirv.RayQueryGetIntersectionObjectRayDirectionKHR",
                    "TriangleBarycentrics" => "spirv.RayQueryGetIntersectionBarycentricsKHR",
                    "TriangleFrontFace" => "spirv.RayQueryGetIntersectionFrontFaceKHR",
                    "TriangleRayT" | "RayT" => "spirv.RayQueryGetIntersectionTKHR",
                    "ObjectToWorld4x3" | "ObjectToWorld3x4" => {
                        "spirv.RayQueryGetIntersectionObjectToWorldKHR"
                    }
                    "WorldToObject4x3" | "WorldToObject3x4" => {
                        "spirv.RayQueryGetIntersectionWorldToObjectKHR"
                    }
                    _ => return self.unsupported(format!("the ray query method '{name}'")),
                };
                if rest.ends_with("3x4") {
                    // SPIR-V gives the 4x3 matrix (four columns of three): transposed.
                    let m4x3 = self.hlsl(TypeData::Matrix {
                        elem: Scalar::Float,
                        rows: 4,
                        cols: 3,
                        major: Majorness::Default,
                    });
                    let v = self.ray_query_get(op, query, Some(intersection), m4x3)?;
                    let t = self.ty(ret)?;
                    return Ok(self.val("spirv.Transpose", vec![v], t));
                }
                self.ray_query_get(op, query, Some(intersection), ret)
            }
        }
    }

    /// A getter: `op` on the query, with the intersection operand when it has one.
    fn ray_query_get(
        &mut self,
        op: &str,
        query: Value,
        intersection: Option<Intersection>,
        ret: Ty,
    ) -> R<Value> {
        let t = self.ty(ret)?;
        let mut operands = vec![Opnd::Id(query)];
        if let Some(i) = intersection {
            operands.push(Opnd::Id(self.u32_constant(i as u32)));
        }
        Ok(self.fallback_val(op, &operands, t))
    }

    /// `q.TraceRayInline(accel, flags, mask, ray)`.
    fn trace_ray_inline(&mut self, query: Value, query_ty: Ty, args: &[ExprId]) -> R<()> {
        let uint = self.scalar_ty(Scalar::UInt);
        let accel = self.object_value(self.arg(args, 0)?)?;
        let flags = self.rvalue_as(self.arg(args, 1)?, uint)?;
        let mask = self.rvalue_as(self.arg(args, 2)?, uint)?;
        let ray = self.rvalue(self.arg(args, 3)?)?;
        let template_flags = self.ray_query_template_flags(query_ty);
        let flags = match self.constant_value(flags) {
            Some(Attribute::Integer { value, .. }) => {
                let folded = (value | i128::from(template_flags)) & 0xffff_ffff;
                if folded & PRIMITIVE_CULLING_FLAGS != 0 {
                    self.require("RayTraversalPrimitiveCullingKHR", None);
                }
                self.u32_constant(folded as u32)
            }
            _ => {
                if i128::from(template_flags) & PRIMITIVE_CULLING_FLAGS != 0 {
                    self.require("RayTraversalPrimitiveCullingKHR", None);
                }
                if template_flags == 0 {
                    flags
                } else {
                    let t = self.u32_type();
                    let c = self.u32_constant(template_flags as u32);
                    self.val("spirv.BitwiseOr", vec![flags, c], t)
                }
            }
        };
        // RayDesc: Origin, TMin, Direction, TMax.
        let float = self.f32_type();
        let float3 = self.vec_type(float, 3);
        let origin = self.extract(ray, &[0], float3);
        let t_min = self.extract(ray, &[1], float);
        let direction = self.extract(ray, &[2], float3);
        let t_max = self.extract(ray, &[3], float);
        let operands: Vec<Opnd> =
            [query, accel, flags, mask, origin, t_min, direction, t_max].into_iter().map(Opnd::Id).collect();
        self.fallback_effect("spirv.RayQueryInitializeKHR", &operands);
        Ok(())
    }

    fn void_undef(&mut self) -> Value {
        let t = self.void_type();
        self.undef(t)
    }
}

impl<'t> Emitter<'t> {
    /// Whether `e` is `T()`: a construction without arguments.
    pub(super) fn is_default_construction(&self, e: ExprId) -> bool {
        use spirvkit_hlsl::ast::ExprKind;
        use spirvkit_hlsl::sema::tree::Callee;
        let mut e = e;
        while let ExprKind::Paren(inner) = &self.ast.expr(e).kind {
            e = *inner;
        }
        match &self.ast.expr(e).kind {
            ExprKind::Construct { args, .. } => args.is_empty(),
            ExprKind::Call { args, .. } => {
                args.is_empty()
                    && self.tree.calls.get(&e).is_some_and(|c| matches!(c.callee, Callee::Constructor))
            }
            _ => false,
        }
    }
}
