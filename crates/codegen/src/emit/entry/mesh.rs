//! Mesh and amplification (task) shaders (SPIR-V.rst's mesh shader sections), as
//! SPV_EXT_mesh_shader. dxc uses it from SPIR-V 1.4 on unless
//! `-fspv-extension=SPV_NV_mesh_shader` asks for NV, and SPV_NV_mesh_shader before:
//! NV is not supported yet (the IR, as MLIR's dialect, has no MeshNV/TaskNV models).
//!
//! - `out vertices`/`out primitives` arrays become one Output array variable per leaf
//!   (a built-in or a location), the primitives' decorated `PerPrimitiveEXT`;
//!   `out indices` becomes the `Primitive{Triangle,Line,Point}IndicesEXT` built-in.
//! - `SetMeshOutputCounts` is `OpSetMeshOutputsEXT`.
//! - Every invocation writes only some elements, so an assignment to a mesh output
//!   (`verts[i].pos.x = ...`, `verts[i] = v`) stores straight into the stage variables
//!   at that element; the wrapper's `param.var.*` array is never copied out.
//! - `in payload` is a `TaskPayloadWorkgroupEXT` variable the wrapper loads; in an
//!   amplification shader the groupshared object given to `DispatchMesh` is declared in
//!   that storage class, and `DispatchMesh` ends the invocation with
//!   `OpEmitMeshTasksEXT` after a workgroup barrier.

use super::super::expr::{Place, Val};
use super::super::{Emitter, R};
use super::{Leaf, StageVar};
use crate::builder::prop;
use spirvkit_hlsl::ast::{BinaryOp, DeclId, ExprId, ExprKind, Modifiers};
use spirvkit_hlsl::sema::tree::{Callee, Resolution, Stage, StageLocation};
use spirvkit_hlsl::sema::types::{Scalar, Ty, TypeData};
use spirvkit_ir::ir::Value;

/// Which mesh output a parameter is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum MeshOutputKind {
    Vertices,
    Indices,
    Primitives,
}

/// A mesh output parameter: its element type and the stage variable of each leaf.
#[derive(Clone)]
pub(crate) struct MeshOutput {
    element: Ty,
    leaves: Vec<(Leaf, StageVar)>,
}

/// The mesh output a parameter's modifiers make it.
pub(super) fn output_kind(m: Modifiers) -> Option<MeshOutputKind> {
    if m.contains(Modifiers::VERTICES) {
        Some(MeshOutputKind::Vertices)
    } else if m.contains(Modifiers::INDICES) {
        Some(MeshOutputKind::Indices)
    } else if m.contains(Modifiers::PRIMITIVES) {
        Some(MeshOutputKind::Primitives)
    } else {
        None
    }
}

/// The built-in of `out indices` for an output topology and its components.
fn indices_builtin(topology: &str) -> Option<(&'static str, u32)> {
    match topology {
        "triangle" => Some(("PrimitiveTriangleIndicesEXT", 3)),
        "line" => Some(("PrimitiveLineIndicesEXT", 2)),
        "point" => Some(("PrimitivePointIndicesEXT", 1)),
        _ => None,
    }
}

impl<'t> Emitter<'t> {
    /// Whether mesh and amplification shaders use SPV_EXT_mesh_shader: from SPIR-V 1.4
    /// on, unless only SPV_NV_mesh_shader is allowed (dxc's choice).
    pub(in crate::emit) fn mesh_shading_ext(&self) -> bool {
        let allowed = &self.options.allowed_extensions;
        let nv_requested = allowed.iter().any(|e| e == "SPV_NV_mesh_shader")
            && !allowed.iter().any(|e| e == "SPV_EXT_mesh_shader");
        self.options.spirv_version >= (1, 4) && !nv_requested
    }

    /// The capability and extension of mesh and amplification shaders.
    pub(in crate::emit) fn require_mesh_shading(&mut self, stage: Stage) -> R<()> {
        if !self.mesh_shading_ext() {
            let what = if stage == Stage::Amplification { "amplification" } else { "mesh" };
            return self.unsupported(format!(
                "{what} shaders with SPV_NV_mesh_shader (a target before SPIR-V 1.4, or \
                 -fspv-extension=SPV_NV_mesh_shader); SPV_EXT_mesh_shader needs SPIR-V 1.4"
            ));
        }
        self.require("MeshShadingEXT", Some("SPV_EXT_mesh_shader"));
        Ok(())
    }

    /// The array length of a mesh output parameter.
    fn mesh_output_length(&self, p: DeclId) -> R<(Ty, u32)> {
        let pty = self.tree.decl(p).map_or(spirvkit_hlsl::sema::types::TypeTable::ERROR, |d| d.ty);
        match self.data(pty) {
            TypeData::Array { elem, len: Some(n) } if *n >= 1 => Ok((*elem, *n)),
            _ => self.unsupported("a mesh shader output that is not a sized array"),
        }
    }

    /// `outputtopology`, `OutputVertices` and `OutputPrimitivesEXT` (the lengths of the
    /// `vertices` and `indices`/`primitives` arrays).
    pub(super) fn mesh_execution_modes(&mut self, f: DeclId, params: &[DeclId]) -> R<()> {
        let topology = self.attr_str(f, "outputtopology").unwrap_or_default();
        let mode = match topology.as_str() {
            "triangle" => "OutputTrianglesEXT",
            "line" => "OutputLinesEXT",
            "point" => "OutputPoints",
            other => return self.unsupported(format!("the mesh output topology '{other}'")),
        };
        self.mode(mode, vec![]);
        let mut vertices = 0;
        let mut primitives = 0;
        for &p in params {
            match output_kind(self.ast.decl(p).modifiers) {
                Some(MeshOutputKind::Vertices) => vertices = self.mesh_output_length(p)?.1,
                Some(_) => primitives = self.mesh_output_length(p)?.1,
                None => {}
            }
        }
        self.mode("OutputVertices", vec![vertices]);
        self.mode("OutputPrimitivesEXT", vec![primitives]);
        Ok(())
    }

    /// `in payload`: the task payload, loaded whole.
    pub(super) fn read_mesh_payload(&mut self, name: &str, ty: Ty) -> R<Value> {
        let t = self.value_type_of(ty)?;
        let ptr_t = self.pointer(t, "TaskPayloadWorkgroupEXT");
        let symbol = self.unique_symbol(&format!("in.var.{name}"));
        self.global_variable(&symbol, ptr_t, Vec::new());
        self.interface.push(symbol.clone());
        let p = self.addressof(&symbol, ptr_t);
        Ok(self.load(p))
    }

    /// Declares the stage variables of a mesh output parameter and remembers them for
    /// the assignments to it.
    pub(super) fn declare_mesh_output(&mut self, p: DeclId, locations: &[StageLocation]) -> R<()> {
        let modifiers = self.ast.decl(p).modifiers;
        let Some(kind) = output_kind(modifiers) else { return Ok(()) };
        let (element, count) = self.mesh_output_length(p)?;
        let leaves = if kind == MeshOutputKind::Indices {
            let f = self.entry.as_ref().map(|e| e.function);
            let topology = f.and_then(|f| self.attr_str(f, "outputtopology")).unwrap_or_default();
            let Some((builtin, n)) = indices_builtin(&topology) else {
                return self.unsupported(format!("the mesh output topology '{topology}'"));
            };
            if self.scalar_shape(element).map(|(s, m)| (s.is_float() || s == Scalar::Bool, m))
                != Some((false, n))
            {
                return self.unsupported(format!(
                    "mesh shader indices of type '{}' for this output topology",
                    self.table.display(element)
                ));
            }
            let leaf = Leaf {
                path: Vec::new(),
                ty: element,
                semantic: builtin.to_string(),
                modifiers: Modifiers::default(),
                vk_builtin: Some(builtin.to_string()),
            };
            let var = self.stage_var(&leaf, false, locations, Stage::Mesh, Some(count), false)?;
            vec![(leaf, var)]
        } else {
            let (semantic, m, vk_builtin) = self.stage_annotations(p);
            let mut leaves = Vec::new();
            self.leaves(element, semantic.as_deref(), m, vk_builtin, Vec::new(), &mut leaves, 0)?;
            self.stage.per_primitive = kind == MeshOutputKind::Primitives;
            let mut out = Vec::new();
            for leaf in leaves {
                let var = self.stage_var(&leaf, false, locations, Stage::Mesh, Some(count), false);
                match var {
                    Ok(var) => out.push((leaf, var)),
                    Err(e) => {
                        self.stage.per_primitive = false;
                        return Err(e);
                    }
                }
            }
            self.stage.per_primitive = false;
            out
        };
        self.stage.mesh_outputs.insert(p, MeshOutput { element, leaves });
        Ok(())
    }

    /// An assignment to a mesh output (`verts[i].pos = ...`): stored into the stage
    /// variables at element `i`. `None` when `lhs` is not a mesh output.
    pub(in crate::emit) fn mesh_output_assign(
        &mut self,
        op: Option<BinaryOp>,
        lhs: ExprId,
        rhs: ExprId,
    ) -> R<Option<Val>> {
        if self.stage.mesh_outputs.is_empty() {
            return Ok(None);
        }
        // The access chain from the parameter outwards.
        let mut chain = Vec::new();
        let mut cur = lhs;
        let root = loop {
            if chain.len() > 1100 {
                return Ok(None);
            }
            match self.ast.expr(cur).kind {
                ExprKind::Paren(b) => cur = b,
                ExprKind::Member { base, .. } | ExprKind::Index { base, .. } => {
                    chain.push(cur);
                    cur = base;
                }
                ExprKind::Name { .. } => match self.tree.expr(cur).map(|i| &i.resolution) {
                    Some(Resolution::Decl(d)) => break *d,
                    _ => return Ok(None),
                },
                _ => return Ok(None),
            }
        };
        let Some(out) = self.stage.mesh_outputs.get(&root).cloned() else { return Ok(None) };
        if op.is_some() {
            return self.unsupported("a compound assignment to a mesh shader output");
        }
        chain.reverse();
        let element_index = match chain.first().map(|&e| self.ast.expr(e).kind.clone()) {
            Some(ExprKind::Index { index, .. }) => index,
            _ => return self.unsupported("assigning a whole mesh shader output array"),
        };
        let lty = self.expr_ty(lhs);
        let v = if matches!(self.ast.expr(rhs).kind, ExprKind::InitList(_)) {
            self.init_value(rhs, lty)?
        } else {
            self.rvalue_as(rhs, lty)?
        };
        let element = self.index_value(element_index)?;
        // Fields select the leaves; what follows a leaf (components, array elements)
        // is the tail.
        let mut path: Vec<u32> = Vec::new();
        let mut ty = out.element;
        let mut k = 1;
        while let Some(&step) = chain.get(k) {
            let field = match (&self.ast.expr(step).kind, self.tree.expr(step).map(|i| &i.resolution)) {
                (ExprKind::Member { .. }, Some(Resolution::Field { decl, .. })) => *decl,
                _ => break,
            };
            let Some((p, bits)) = self.field_path(ty, field) else {
                return self.unsupported("this mesh shader output member");
            };
            if bits.is_some() {
                return self.unsupported("bit-fields in stage input/output");
            }
            path.extend(p);
            ty = self.expr_ty(step);
            k += 1;
        }
        let leaf_expr = chain[k - 1];
        let tail = &chain[k..];
        if tail.is_empty() {
            let targets: Vec<(Leaf, StageVar)> =
                out.leaves.iter().filter(|(l, _)| l.path.starts_with(&path)).cloned().collect();
            for (leaf, var) in targets {
                let rest = &leaf.path[path.len()..];
                let x = if rest.is_empty() {
                    v
                } else {
                    let lt = self.ty(leaf.ty)?;
                    self.extract(v, rest, lt)
                };
                self.write_mesh_leaf(&leaf, &var, element, x)?;
            }
            return Ok(Some(Val::R(v, lty)));
        }
        let Some((leaf, var)) = out.leaves.iter().find(|(l, _)| l.path == path).cloned() else {
            return self.unsupported("assigning part of this mesh shader output");
        };
        let base = self.addressof(&var.symbol, var.ptr_t);
        // One component or a swizzle of a vector leaf: dxc stores component by component.
        let components = if tail.len() == 1 { self.mesh_tail_components(tail[0], leaf.ty)? } else { None };
        match (var.builtin.as_deref(), components) {
            (Some(b @ ("ClipDistance" | "CullDistance")), Some(components)) => {
                let offset = self.distance_offset(false, b == "CullDistance", &leaf.semantic);
                let ut = self.u32_type();
                let offset = self.u32_constant(offset);
                let ft = self.f32_type();
                let n = components.len();
                for (i, c) in components.into_iter().enumerate() {
                    let c = self.convert(c.0, c.1, spirvkit_hlsl::sema::types::TypeTable::UINT)?;
                    let at = self.val("spirv.IAdd", vec![c, offset], ut);
                    let p = self.access_chain(base, vec![element, at], ft);
                    let x = if n == 1 { v } else { self.extract(v, &[i as u32], ft) };
                    self.store_to(p, x);
                }
                Ok(Some(Val::R(v, lty)))
            }
            (b, _) if var.stored.is_some() || b.is_some_and(|b| !self.mesh_builtin_is_plain(b, leaf.ty)) => {
                self.unsupported("assigning part of this mesh shader output")
            }
            (_, Some(components)) => {
                let (scalar, _) = self.scalar_shape(leaf.ty).unwrap_or((Scalar::Float, 1));
                let st = self.scalar_ty(scalar);
                let t = self.ty(st)?;
                let n = components.len();
                for (i, c) in components.into_iter().enumerate() {
                    let p = self.access_chain(base, vec![element, c.0], t);
                    let x = if n == 1 { v } else { self.extract(v, &[i as u32], t) };
                    self.store_to(p, x);
                }
                Ok(Some(Val::R(v, lty)))
            }
            (_, None) => {
                // Deeper parts (an array leaf's element, its components): the leaf's
                // element pointer stands for the leaf expression.
                let p = self.access_chain(base, vec![element], var.elem_t);
                self.stage.mesh_place = Some((leaf_expr, Place::Ptr { ptr: p, ty: leaf.ty, rule: None }));
                let place = self.place(lhs);
                self.stage.mesh_place = None;
                self.store_place(&place?, v)?;
                Ok(Some(Val::R(v, lty)))
            }
        }
    }

    /// The components (index values and their HLSL types) one step past a vector or
    /// scalar leaf selects: a swizzle or an index; `None` for other leaves.
    fn mesh_tail_components(&mut self, step: ExprId, leaf_ty: Ty) -> R<Option<Vec<(Value, Ty)>>> {
        if !matches!(self.data(leaf_ty), TypeData::Vector(..) | TypeData::Scalar(_)) {
            return Ok(None);
        }
        let uint = spirvkit_hlsl::sema::types::TypeTable::UINT;
        match (self.ast.expr(step).kind.clone(), self.tree.expr(step).map(|i| i.resolution.clone())) {
            (ExprKind::Member { .. }, Some(Resolution::Swizzle(comps))) => {
                Ok(Some(comps.iter().map(|&c| (self.u32_constant(u32::from(c)), uint)).collect()))
            }
            (ExprKind::Index { index, .. }, _) => {
                let constant = self.tree.expr(index).and_then(|i| i.constant).and_then(|c| c.as_int());
                match constant {
                    Some(c) if (0..4).contains(&c) => Ok(Some(vec![(self.u32_constant(c as u32), uint)])),
                    _ => {
                        let ity = self.tree.converted_type(index);
                        let i = self.index_value(index)?;
                        Ok(Some(vec![(i, ity)]))
                    }
                }
            }
            _ => Ok(None),
        }
    }

    /// Whether a built-in's variable holds the leaf's type unchanged (so a part of it
    /// can be written through an access chain).
    fn mesh_builtin_is_plain(&mut self, b: &str, leaf_ty: Ty) -> bool {
        if b == "Position" && self.options.invert_y {
            return false;
        }
        matches!(self.builtin_type(b, leaf_ty), Ok((_, Some(hlsl))) if hlsl == leaf_ty)
    }

    /// Writes one leaf's value to its stage variable at `element`.
    fn write_mesh_leaf(&mut self, leaf: &Leaf, var: &StageVar, element: Value, x: Value) -> R<()> {
        let base = self.addressof(&var.symbol, var.ptr_t);
        let p = self.access_chain(base, vec![element], var.elem_t);
        match (&var.builtin, var.stored) {
            (Some(b), _) => {
                let b = b.clone();
                self.builtin_write(&b, p, x, leaf, var.elem_t)
            }
            (None, Some(stored)) => {
                let x = self.convert(x, leaf.ty, stored)?;
                self.store_to(p, x);
                Ok(())
            }
            (None, None) => {
                self.store_to(p, x);
                Ok(())
            }
        }
    }

    /// Whether the groupshared global `d` is an amplification shader's payload (the
    /// object a `DispatchMesh` call sends): it lives in `TaskPayloadWorkgroupEXT`.
    pub(in crate::emit) fn is_task_payload(&self, d: DeclId) -> bool {
        if !self.tree.entry_points.iter().any(|e| e.stage == Stage::Amplification) {
            return false;
        }
        self.tree.calls.iter().any(|(&e, call)| {
            if !matches!(&call.callee, Callee::Intrinsic { name, .. } if *name == "DispatchMesh") {
                return false;
            }
            let ExprKind::Call { args, .. } = &self.ast.expr(e).kind else { return false };
            args.get(3).is_some_and(|&a| self.root_decl_of(a) == Some(d))
        })
    }

    fn root_decl_of(&self, e: ExprId) -> Option<DeclId> {
        let mut cur = e;
        for _ in 0..1100 {
            match &self.ast.expr(cur).kind {
                ExprKind::Name { .. } => {
                    return match self.tree.expr(cur).map(|i| &i.resolution) {
                        Some(Resolution::Decl(d)) => Some(*d),
                        _ => None,
                    };
                }
                ExprKind::Member { base, .. } | ExprKind::Index { base, .. } | ExprKind::Paren(base) => {
                    cur = *base
                }
                _ => return None,
            }
        }
        None
    }

    /// `SetMeshOutputCounts(vertices, primitives)`.
    pub(in crate::emit) fn set_mesh_output_counts(&mut self, vertices: Value, primitives: Value) -> R<()> {
        self.require_mesh_shading(Stage::Mesh)?;
        use super::super::resources::Opnd;
        self.fallback_effect("spirv.SetMeshOutputsEXT", &[Opnd::Id(vertices), Opnd::Id(primitives)]);
        Ok(())
    }

    /// `DispatchMesh(x, y, z, payload)`: a workgroup barrier (the payload's writes),
    /// then `OpEmitMeshTasksEXT`, which ends the invocation. dxc reads the payload and
    /// then the counts after the barrier.
    pub(in crate::emit) fn dispatch_mesh(
        &mut self,
        args: &[ExprId],
        call: &spirvkit_hlsl::sema::tree::CallInfo,
    ) -> R<()> {
        self.require_mesh_shading(Stage::Amplification)?;
        let payload = self.arg(args, 3)?;
        self.effect(
            "spirv.ControlBarrier",
            vec![],
            vec![
                prop("execution_scope", crate::builder::enum_attr("scope", "Workgroup")),
                prop("memory_scope", crate::builder::enum_attr("scope", "Workgroup")),
                prop(
                    "memory_semantics",
                    crate::builder::enum_attr("memory_semantics", "AcquireRelease|WorkgroupMemory"),
                ),
            ],
        );
        let place = self.place(payload)?;
        let Place::Ptr { ptr, .. } = place else {
            return self.unsupported("this DispatchMesh payload");
        };
        self.load_place(&place)?;
        let x = self.arg_value(args, call, 0)?;
        let y = self.arg_value(args, call, 1)?;
        let z = self.arg_value(args, call, 2)?;
        self.terminate("spirv.EmitMeshTasksEXT", vec![x, y, z, ptr], &[], Vec::new());
        Ok(())
    }
}
