//! The entry point wrapper: dxc's `main` that reads the stage input variables into
//! `param.var.*` variables, calls the source entry function (`src.main`), and writes
//! its results to the stage output variables. Semantics map to `Location`s (as sema
//! assigned them) or to `BuiltIn`s (SPIR-V.rst's table).
//!
//! - Geometry shaders read per-vertex arrays; their output streams are Function
//!   variables of the element type, and `Append` writes the stage outputs then emits
//!   the vertex (`OpEmitVertex`, or `OpEmitStreamVertex` with several streams).
//! - Hull shaders run the source entry per control point and write its result to
//!   the output arrays at `gl_InvocationID`; after a control barrier invocation 0
//!   runs the patch constant function, whose outputs are `Patch` variables
//!   (`SV_TessFactor`/`SV_InsideTessFactor` go element by element to
//!   `gl_TessLevelOuter`/`gl_TessLevelInner`, `float[4]`/`float[2]`).
//! - Domain shaders read `OutputPatch` arrays and the patch constants.
//! - All `SV_ClipDistanceN` (and `SV_CullDistanceN`) of a direction share one float
//!   array built-in, each at its offset in ascending order of N.

use super::{Emitter, FnState, R};
use crate::builder::{enum_attr, i32_attr, prop, symbol};
use spirvkit_hlsl::ast::{
    Annotation, Attribute as AstAttribute, DeclId, DeclKind, ExprId, ExprKind, Modifiers,
};
use spirvkit_hlsl::sema::tree::{ConstValue, EntryPoint, ParamDirection, Resolution, Stage, StageLocation};
use spirvkit_hlsl::sema::types::{Family, ObjectArg, Scalar, Ty, TypeData, TypeTable};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::OpId;
use spirvkit_ir::ir::{Location, Value};
use spirvkit_ir::types::{Type, TypeKind};
use std::collections::{HashMap, HashSet};

mod mesh;
pub(crate) use mesh::MeshOutput;

/// What the stage I/O of the module being emitted remembers across functions.
#[derive(Default)]
pub(crate) struct StageState {
    /// Stage variables made so far, by direction (input?) and built-in or semantic.
    vars: HashMap<(bool, String), StageVar>,
    /// The entry's output stream parameters, in order (their index is the stream).
    streams: Vec<DeclId>,
    /// Offsets of each `SV_ClipDistanceN`/`SV_CullDistanceN` (upper case) in its
    /// direction's array, and the arrays' sizes: key (input?, cull?).
    distances: HashMap<(bool, bool), DistanceLayout>,
    /// Per-vertex array lengths: inputs of geometry/hull/domain shaders, outputs of
    /// hull shaders.
    input_vertices: Option<u32>,
    output_vertices: Option<u32>,
    /// Entries of `EntryPoint::locations` taken (a semantic can appear twice: per
    /// control point and per patch).
    used_locations: Vec<usize>,
    /// (input?, location, index) given to a variable so far.
    taken_locations: Vec<(bool, u32, u32)>,
    /// Built-in variables made for any entry point of the module, for the next entries
    /// to share: key (input?, built-in, pointer type, flat?).
    shared_builtins: HashMap<(bool, String, Type, bool), StageVar>,
    /// Mesh shader outputs (`out vertices/indices/primitives` parameters): assignments
    /// to them write the stage variables directly (mesh.rs).
    pub(super) mesh_outputs: HashMap<DeclId, MeshOutput>,
    /// Stage variables made now are per primitive (`PerPrimitiveEXT`).
    per_primitive: bool,
    /// The place an expression designates, set while a mesh output is assigned
    /// through a part of one of its stage variables.
    pub(super) mesh_place: Option<(ExprId, super::expr::Place)>,
}

impl StageState {
    /// The state for the module's next entry point: only the built-ins carry over.
    pub(crate) fn for_next_entry(previous: StageState) -> StageState {
        StageState { shared_builtins: previous.shared_builtins, ..StageState::default() }
    }
}

/// One direction's clip (or cull) distance array: its size and each semantic's offset.
type DistanceLayout = (u32, Vec<(String, u32)>);

/// A stage variable: its symbol and pointer type, and what its per-vertex element is.
#[derive(Clone)]
struct StageVar {
    symbol: String,
    ptr_t: Type,
    /// The type of one vertex's value (the variable's own type if not per vertex).
    elem_t: Type,
    /// The built-in it is, if any.
    builtin: Option<String>,
    /// The HLSL type the variable holds when it differs from the leaf's (bool
    /// values travel as uint: Vulkan has no bool stage variables).
    stored: Option<Ty>,
    /// The variable holds one value per vertex (an array of `vertices`).
    vertices: Option<u32>,
}

/// One leaf of a stage parameter: a value with a semantic.
#[derive(Clone)]
struct Leaf {
    /// The member path from the parameter's value.
    path: Vec<u32>,
    ty: Ty,
    semantic: String,
    modifiers: Modifiers,
    /// `[[vk::builtin("X")]]`.
    vk_builtin: Option<String>,
}

/// How a parameter of the entry reaches the stage.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ParamShape {
    /// One value.
    Plain,
    /// One value per vertex: `InputPatch`/`OutputPatch` or a geometry input array.
    PerVertex { element: Ty, count: u32 },
    /// A geometry output stream of this element type.
    Stream { element: Ty },
}

impl<'t> Emitter<'t> {
    pub(super) fn entry_wrapper(&mut self, entry: &EntryPoint, src: &str) -> R<()> {
        let func_decl = entry.function;
        self.span = Some(self.ast.decl(func_decl).span);
        let DeclKind::Function(func) = &self.ast.decl(func_decl).kind else { return Ok(()) };
        let func = func.clone();
        let fn_type = self.store().function(vec![], vec![]);
        // dxc gives the wrapper's instructions no line but its OpFunction (the entry
        // function's start) and OpReturn (its body's `}`): the line table is put
        // aside meanwhile.
        let decl_span = self.ast.decl(func_decl).span;
        let function_location = self.location_at(decl_span.file, decl_span.start as usize);
        let return_location = match func.body {
            Some(body) => {
                let span = self.ast.stmt(body).span;
                self.location_at(span.file, span.end.saturating_sub(1).max(span.start) as usize)
            }
            None => Location::Unknown,
        };
        let lines = self.lines.take();
        let result = self.entry_wrapper_body(entry, src, &func, fn_type, function_location);
        self.lines = lines;
        result?;
        self.loc = return_location;
        self.terminate("spirv.Return", vec![], &[], Vec::new());
        self.loc = Location::Unknown;
        self.finish_function()?;
        self.f = None;
        Ok(())
    }

    fn entry_wrapper_body(
        &mut self,
        entry: &EntryPoint,
        src: &str,
        func: &spirvkit_hlsl::ast::FunctionDecl,
        fn_type: spirvkit_ir::types::Type,
        function_location: Location,
    ) -> R<()> {
        let func_decl = entry.function;
        let op = self.ir.create_op("spirv.func", vec![], &[], function_location);
        crate::builder::set_attributes(
            &mut self.ir,
            op,
            vec![
                prop("function_control", enum_attr("function_control", "None")),
                prop("function_type", Attribute::Type(fn_type)),
                prop("sym_name", Attribute::String(entry.name.clone())),
            ],
        );
        self.ir.append_op(self.module_block, op);
        let region = self.ir.add_region(op);
        let block = self.ir.create_block();
        self.ir.append_block(region, block);
        self.f = Some(FnState {
            func: op,
            entry: block,
            current: Some(block),
            variables: 0,
            locals: HashMap::new(),
            headers: Default::default(),
            targets: Vec::new(),
            return_type: TypeTable::VOID,
            this: None,
            folded_chains: Vec::new(),
            chain_roots: Default::default(),
            view_bases: Default::default(),
        });
        let stage = entry.stage;
        self.execution_modes_of(entry, &func.params)?;
        self.spv_execution_mode_attributes(func_decl)?;
        self.option_execution_modes(entry);
        self.initialize_statics()?;
        let pcf = if stage == Stage::Hull { self.patch_constant_function(func_decl)? } else { None };
        self.plan_distances(entry, &func.params, pcf)?;
        let locations = entry.locations.clone();
        // dxc reads gl_InvocationID first; invocation 0 runs the patch constant function.
        let invocation_id = if stage == Stage::Hull {
            let leaf = Leaf {
                path: Vec::new(),
                ty: TypeTable::UINT,
                semantic: "SV_OutputControlPointID".into(),
                modifiers: Modifiers::default(),
                vk_builtin: None,
            };
            Some(self.stage_input(&leaf, &locations, stage, None, false)?)
        } else {
            None
        };
        let mut args = Vec::new();
        let mut outputs = Vec::new();
        // The wrapper's parameter variables, for the patch constant function to reuse.
        let mut param_vars: Vec<(DeclId, Value)> = Vec::new();
        // Mesh outputs are declared after the inputs are read (dxc's interface order).
        let mut mesh_outputs = Vec::new();
        for &p in &func.params {
            let pty = self.tree.decl(p).map_or(TypeTable::ERROR, |d| d.ty);
            let dir = self.param_direction(p);
            let name = self.decl_name(p);
            let shape = self.param_shape(pty, stage, dir);
            let value_ty = match shape {
                ParamShape::Stream { element } => element,
                _ => pty,
            };
            let t = self.value_type_of(value_ty)?;
            let var = self.function_variable(t, &format!("param.var.{name}"));
            args.push(var);
            param_vars.push((p, var));
            if let ParamShape::Stream { element } = shape {
                self.stage.streams.push(p);
                // dxc declares a stream's output variables with the entry's parameters,
                // whether or not anything is appended.
                let mut leaves = Vec::new();
                self.leaves(element, None, Modifiers::default(), None, Vec::new(), &mut leaves, 0)?;
                for leaf in &leaves {
                    self.stage_var(leaf, false, &locations, stage, None, false)?;
                }
                continue;
            }
            if stage == Stage::Mesh {
                let m = self.ast.decl(p).modifiers;
                if mesh::output_kind(m).is_some() {
                    mesh_outputs.push(p);
                    continue;
                }
                if m.contains(Modifiers::PAYLOAD) {
                    let v = self.read_mesh_payload(&name, pty)?;
                    self.store_to(var, v);
                    continue;
                }
            }
            let (semantic, modifiers, vk_builtin) = self.stage_annotations(p);
            // Domain shaders read the patch constants as `Patch` variables.
            let patch = stage == Stage::Domain && shape == ParamShape::Plain;
            if dir != ParamDirection::Out {
                let v = self.read_param(
                    pty,
                    shape,
                    semantic.as_deref(),
                    modifiers,
                    vk_builtin.clone(),
                    &locations,
                    stage,
                    patch,
                )?;
                self.store_to(var, v);
            }
            if dir != ParamDirection::In {
                outputs.push((var, pty, semantic, modifiers, vk_builtin));
            }
        }
        for p in mesh_outputs {
            self.declare_mesh_output(p, &locations)?;
        }
        let ret = self.tree.decl(func_decl).map_or(TypeTable::VOID, |d| d.ty);
        let callee = vec![prop("callee", symbol(src))];
        if self.table.is_void(ret) {
            self.effect("spirv.FunctionCall", args, callee);
        } else {
            let t = self.value_type_of(ret)?;
            let result = self.val_props("spirv.FunctionCall", args, t, callee);
            let semantic = semantic_of(self, &func.annotations);
            let vk_builtin = self.vk_builtin_of(&self.ast.decl(func_decl).attrs.clone());
            self.write_stage_value(
                result,
                ret,
                semantic.as_deref(),
                Modifiers::default(),
                vk_builtin,
                &locations,
                stage,
                invocation_id,
                false,
            )?;
        }
        for (var, ty, semantic, modifiers, vk_builtin) in outputs {
            let v = self.load(var);
            self.write_stage_value(
                v,
                ty,
                semantic.as_deref(),
                modifiers,
                vk_builtin,
                &locations,
                stage,
                invocation_id,
                false,
            )?;
        }
        if let (Some(id), Some(pcf)) = (invocation_id, pcf) {
            self.run_patch_constant_function(pcf, id, &param_vars, &locations)?;
        }
        Ok(())
    }

    /// How a parameter reaches the stage (see [`ParamShape`]).
    fn param_shape(&self, ty: Ty, stage: Stage, dir: ParamDirection) -> ParamShape {
        match self.data(ty) {
            TypeData::Object { kind, args } => {
                let element = args.iter().find_map(|a| match a {
                    ObjectArg::Type(t) => Some(*t),
                    _ => None,
                });
                let count = args.iter().find_map(|a| match a {
                    ObjectArg::Int(n) => Some(*n),
                    _ => None,
                });
                match (kind.family(), element) {
                    (Family::Stream, Some(element)) => ParamShape::Stream { element },
                    (Family::InputPatch | Family::OutputPatch, Some(element)) => ParamShape::PerVertex {
                        element,
                        count: count.map_or(1, |n| n.clamp(1, 1 << 16) as u32),
                    },
                    _ => ParamShape::Plain,
                }
            }
            TypeData::Array { elem, len: Some(n) }
                if stage == Stage::Geometry && dir == ParamDirection::In =>
            {
                ParamShape::PerVertex { element: *elem, count: (*n).clamp(1, 1 << 16) }
            }
            _ => ParamShape::Plain,
        }
    }

    /// A declaration's semantic, interpolation modifiers and `[[vk::builtin]]`.
    fn stage_annotations(&self, d: DeclId) -> (Option<String>, Modifiers, Option<String>) {
        let decl = self.ast.decl(d);
        let annotations = match &decl.kind {
            DeclKind::Var(v) => v.annotations.clone(),
            _ => Vec::new(),
        };
        (semantic_of(self, &annotations), decl.modifiers, self.vk_builtin_of(&decl.attrs))
    }

    /// `[[vk::builtin("X")]]` among attributes.
    fn vk_builtin_of(&self, attrs: &[AstAttribute]) -> Option<String> {
        let a = attrs.iter().find(|a| {
            a.namespace.is_some_and(|n| self.name(n.name) == "vk") && self.name(a.name.name) == "builtin"
        })?;
        let &arg = a.args.first()?;
        match &self.ast.expr(arg).kind {
            ExprKind::StringLiteral(parts) => {
                Some(parts.iter().map(|p| self.name(*p).trim_matches('"').to_string()).collect())
            }
            _ => None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn read_param(
        &mut self,
        ty: Ty,
        shape: ParamShape,
        semantic: Option<&str>,
        modifiers: Modifiers,
        vk_builtin: Option<String>,
        locations: &[StageLocation],
        stage: Stage,
        patch: bool,
    ) -> R<Value> {
        match shape {
            ParamShape::PerVertex { element, count } => {
                self.stage.input_vertices = Some(count);
                self.read_stage_value(
                    element,
                    semantic,
                    modifiers,
                    vk_builtin,
                    locations,
                    stage,
                    Some(count),
                    patch,
                    true,
                )
            }
            _ => self
                .read_stage_value(ty, semantic, modifiers, vk_builtin, locations, stage, None, patch, true),
        }
    }

    /// dxc initializes `static` globals at the start of the wrapper.
    fn initialize_statics(&mut self) -> R<()> {
        let inits = std::mem::take(&mut self.resources.static_inits);
        for (decl, init) in inits {
            let Some(g) = self.globals.get(&decl).cloned() else { continue };
            let v = match init {
                Some(init) => self.init_value(init, g.ty)?,
                None => {
                    let t = self.value_type_of(g.ty)?;
                    self.constant_attr(spirvkit_ir::attr::Attribute::null_constant(), t)
                }
            };
            let p = self.addressof(&g.symbol, g.ptr_type);
            self.store_to(p, v);
        }
        Ok(())
    }

    // ---- attributes and execution modes ----------------------------------------------

    fn entry_attr(&self, decl: DeclId, name: &str) -> Option<AstAttribute> {
        self.ast
            .decl(decl)
            .attrs
            .iter()
            .find(|a| a.namespace.is_none() && self.name(a.name.name).eq_ignore_ascii_case(name))
            .cloned()
    }

    fn attr_int(&self, decl: DeclId, name: &str, arg: usize) -> Option<i64> {
        let a = self.entry_attr(decl, name)?;
        let &e = a.args.get(arg)?;
        if let Some(c) = self.tree.expr(e).and_then(|i| i.constant).and_then(|c| c.as_int()) {
            return Some(c);
        }
        match &self.ast.expr(e).kind {
            ExprKind::IntLiteral { value, .. } => i64::try_from(*value).ok(),
            _ => None,
        }
    }

    fn attr_str(&self, decl: DeclId, name: &str) -> Option<String> {
        let a = self.entry_attr(decl, name)?;
        let &e = a.args.first()?;
        match &self.ast.expr(e).kind {
            ExprKind::StringLiteral(parts) => {
                Some(parts.iter().map(|p| self.name(*p).trim_matches('"').to_string()).collect())
            }
            _ => None,
        }
    }

    fn mode(&mut self, mode: &str, values: Vec<u32>) {
        if !self.execution_modes.iter().any(|(m, _)| m == mode) {
            self.execution_modes.push((mode.to_string(), values));
        }
    }

    /// Execution mode `mode` of the entry point being emitted (once).
    pub(super) fn add_execution_mode(&mut self, mode: &str, values: Vec<u32>) {
        self.mode(mode, values);
    }

    /// Execution mode `mode` whose operands are integer constants (value, signed).
    pub(super) fn add_execution_mode_ids(&mut self, mode: &str, values: Vec<(u32, bool)>) {
        if !self.id_execution_modes.iter().any(|(m, _)| m == mode) {
            self.id_execution_modes.push((mode.to_string(), values));
        }
    }

    /// The execution modes command-line options and `[WaveOpsIncludeHelperLanes]` ask
    /// for: maximal reconvergence (which helper lanes in wave operations need too,
    /// with full quads), and the 32-bit denormal mode of `-denorm`.
    fn option_execution_modes(&mut self, entry: &EntryPoint) {
        let helper_lanes = entry.stage == Stage::Pixel
            && self.entry_attr(entry.function, "WaveOpsIncludeHelperLanes").is_some();
        if self.options.maximal_reconvergence || helper_lanes {
            self.mode("MaximallyReconvergesKHR", vec![]);
        }
        if helper_lanes {
            self.mode("RequireFullQuadsKHR", vec![]);
        }
        match self.options.denorm.as_deref().map(str::to_ascii_lowercase).as_deref() {
            Some("preserve") => self.mode("DenormPreserve", vec![32]),
            Some("ftz") => self.mode("DenormFlushToZero", vec![32]),
            _ => {}
        }
    }

    fn execution_modes_of(&mut self, entry: &EntryPoint, params: &[DeclId]) -> R<()> {
        let f = entry.function;
        let count =
            |e: &Self, name: &str| e.attr_int(f, name, 0).map(|n| n.clamp(0, i64::from(u32::MAX)) as u32);
        match entry.stage {
            Stage::Compute | Stage::Mesh | Stage::Amplification => {
                let [x, y, z] = entry.numthreads.unwrap_or([1, 1, 1]);
                // dxc's limits (a zero size is no valid LocalSize).
                for (axis, n, max) in [("X", x, 1024), ("Y", y, 1024), ("Z", z, 64)] {
                    if n == 0 || n > max {
                        return Err(crate::emit::CodegenDiagnostic {
                            span: Some(self.ast.decl(f).span),
                            error: crate::types::CodegenError::Rejected {
                                message: format!(
                                    "Declared Thread Group {axis} size {n} outside valid range [1..{max}]"
                                ),
                            },
                        });
                    }
                }
                self.mode("LocalSize", vec![x, y, z]);
                if entry.stage == Stage::Mesh {
                    self.mesh_execution_modes(f, params)?;
                }
                // Vulkan sets a subgroup size through the API, not the module.
                let wave_size = self.ast.decl(f).attrs.iter().find(|a| {
                    a.namespace.is_none() && self.name(a.name.name).eq_ignore_ascii_case("wavesize")
                });
                if let Some(span) = wave_size.map(|a| a.span) {
                    self.report_warning(
                        Some(span),
                        "",
                        "Wave size is not supported by Vulkan SPIR-V. Consider using VK_EXT_subgroup_size_control.",
                    );
                }
            }
            Stage::Pixel => {
                self.mode("OriginUpperLeft", vec![]);
                if self.entry_attr(f, "earlydepthstencil").is_some() {
                    self.mode("EarlyFragmentTests", vec![]);
                }
                let attrs = self.ast.decl(f).attrs.clone();
                let has_vk = |e: &Self, n: &str| {
                    attrs.iter().any(|a| {
                        a.namespace.is_some_and(|ns| e.name(ns.name) == "vk") && e.name(a.name.name) == n
                    })
                };
                if has_vk(self, "post_depth_coverage") {
                    self.require("SampleMaskPostDepthCoverage", Some("SPV_KHR_post_depth_coverage"));
                    self.mode("PostDepthCoverage", vec![]);
                }
                if has_vk(self, "early_and_late_tests") {
                    self.require_extension("SPV_AMD_shader_early_and_late_fragment_tests");
                    self.mode("EarlyAndLateFragmentTestsAMD", vec![]);
                }
                if has_vk(self, "depth_unchanged") {
                    self.mode("DepthUnchanged", vec![]);
                }
                for (attr, mode) in [
                    ("stencil_ref_unchanged_front", "StencilRefUnchangedFrontAMD"),
                    ("stencil_ref_greater_equal_front", "StencilRefGreaterFrontAMD"),
                    ("stencil_ref_less_equal_front", "StencilRefLessFrontAMD"),
                    ("stencil_ref_unchanged_back", "StencilRefUnchangedBackAMD"),
                    ("stencil_ref_greater_equal_back", "StencilRefGreaterBackAMD"),
                    ("stencil_ref_less_equal_back", "StencilRefLessBackAMD"),
                ] {
                    if has_vk(self, attr) {
                        self.require("StencilExportEXT", Some("SPV_EXT_shader_stencil_export"));
                        self.require_extension("SPV_AMD_shader_early_and_late_fragment_tests");
                        self.mode(mode, vec![]);
                    }
                }
            }
            Stage::Geometry => {
                for &p in params {
                    let m = self.ast.decl(p).modifiers;
                    let primitive = [
                        (Modifiers::POINT, "InputPoints"),
                        (Modifiers::LINE, "InputLines"),
                        (Modifiers::TRIANGLE, "Triangles"),
                        (Modifiers::LINEADJ, "InputLinesAdjacency"),
                        (Modifiers::TRIANGLEADJ, "InputTrianglesAdjacency"),
                    ];
                    if let Some((_, mode)) = primitive.iter().find(|(pm, _)| m.contains(*pm)) {
                        self.mode(mode, vec![]);
                    }
                }
                let n = count(self, "maxvertexcount").unwrap_or(1);
                self.mode("OutputVertices", vec![n]);
                let instances = count(self, "instance").unwrap_or(1);
                self.mode("Invocations", vec![instances]);
                for &p in params {
                    let pty = self.tree.decl(p).map_or(TypeTable::ERROR, |d| d.ty);
                    if let TypeData::Object { kind, .. } = self.data(pty) {
                        let mode = match kind.name() {
                            "PointStream" => "OutputPoints",
                            "LineStream" => "OutputLineStrip",
                            "TriangleStream" => "OutputTriangleStrip",
                            _ => continue,
                        };
                        self.mode(mode, vec![]);
                    }
                }
            }
            Stage::Hull | Stage::Domain => {
                if let Some(domain) = self.attr_str(f, "domain") {
                    let mode = match domain.as_str() {
                        "tri" => "Triangles",
                        "quad" => "Quads",
                        "isoline" => "Isolines",
                        other => return self.unsupported(format!("the domain '{other}'")),
                    };
                    self.mode(mode, vec![]);
                }
                if entry.stage == Stage::Hull {
                    if let Some(p) = self.attr_str(f, "partitioning") {
                        let mode = match p.as_str() {
                            "integer" | "pow2" => "SpacingEqual",
                            "fractional_even" => "SpacingFractionalEven",
                            "fractional_odd" => "SpacingFractionalOdd",
                            other => return self.unsupported(format!("the partitioning '{other}'")),
                        };
                        self.mode(mode, vec![]);
                    }
                    if let Some(t) = self.attr_str(f, "outputtopology") {
                        match t.as_str() {
                            "point" => self.mode("PointMode", vec![]),
                            "triangle_cw" => self.mode("VertexOrderCw", vec![]),
                            "triangle_ccw" => self.mode("VertexOrderCcw", vec![]),
                            "line" => {}
                            other => return self.unsupported(format!("the output topology '{other}'")),
                        }
                    }
                    let n = count(self, "outputcontrolpoints").unwrap_or(1).max(1);
                    self.stage.output_vertices = Some(n);
                    self.mode("OutputVertices", vec![n]);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The entry point's interface: its stage variables, and from SPIR-V 1.4 on
    /// every global variable of the module (the call tree's globals must be listed).
    /// An entry point's interface: the stage variables its wrapper made or reused,
    /// then the other `Input`/`Output` variables its call tree reads or writes (a
    /// built-in an intrinsic made), and from SPIR-V 1.4 every global that is not a
    /// stage variable, in module order.
    pub(super) fn entry_interface(&self, own: &[String], entry_fn: &str) -> Vec<String> {
        let mut names = own.to_vec();
        let referenced = self.referenced_globals(entry_fn);
        for &op in &self.ir.block(self.module_block).ops {
            let o = self.ir.op(op);
            if o.name != "spirv.GlobalVariable" {
                continue;
            }
            let Some(Attribute::String(name)) = o.attr("sym_name") else { continue };
            if names.contains(name) {
                continue;
            }
            let stage_var = matches!(self.global_storage_class(name).as_deref(), Some("Input" | "Output"));
            let listed = if stage_var {
                referenced.contains(name.as_str())
            } else {
                self.options.spirv_version >= (1, 4)
            };
            if listed {
                names.push(name.clone());
            }
        }
        names
    }

    /// The storage class of the global variable `name`.
    pub(super) fn global_storage_class(&self, name: &str) -> Option<String> {
        self.ir.block(self.module_block).ops.iter().find_map(|&op| {
            let o = self.ir.op(op);
            if o.name != "spirv.GlobalVariable"
                || !matches!(o.attr("sym_name"), Some(Attribute::String(n)) if n == name)
            {
                return None;
            }
            match o.attr("type") {
                Some(Attribute::Type(t)) => match self.lower.store().kind(*t) {
                    TypeKind::Pointer { storage_class, .. } => Some(storage_class.to_string()),
                    _ => None,
                },
                _ => None,
            }
        })
    }

    /// The globals that function `root` and the functions it calls (transitively)
    /// take the address of.
    fn referenced_globals(&self, root: &str) -> HashSet<String> {
        let functions: HashMap<&str, OpId> = self
            .ir
            .block(self.module_block)
            .ops
            .iter()
            .filter_map(|&op| {
                let o = self.ir.op(op);
                match o.attr("sym_name") {
                    Some(Attribute::String(n)) if o.name == "spirv.func" => Some((n.as_str(), op)),
                    _ => None,
                }
            })
            .collect();
        let symbol_of = |a: Option<&Attribute>| match a {
            Some(Attribute::SymbolRef(parts)) => parts.first().cloned(),
            _ => None,
        };
        let mut globals = HashSet::new();
        let mut visited: HashSet<String> = HashSet::new();
        let mut pending = vec![root.to_string()];
        while let Some(f) = pending.pop() {
            if !visited.insert(f.clone()) {
                continue;
            }
            let Some(&func) = functions.get(f.as_str()) else { continue };
            // An explicit stack of ops: regions nest as deep as the source does.
            let mut ops: Vec<OpId> = Vec::new();
            let push_regions = |op: OpId, ops: &mut Vec<OpId>| {
                for &r in &self.ir.op(op).regions {
                    for &b in &self.ir.region(r).blocks {
                        ops.extend(self.ir.block(b).ops.iter().copied());
                    }
                }
            };
            push_regions(func, &mut ops);
            while let Some(op) = ops.pop() {
                let o = self.ir.op(op);
                match o.name.as_str() {
                    "spirv.FunctionCall" => pending.extend(symbol_of(o.attr("callee"))),
                    "spirv.mlir.addressof" => globals.extend(symbol_of(o.attr("variable"))),
                    _ => {}
                }
                push_regions(op, &mut ops);
            }
        }
        globals
    }

    // ---- hull shaders --------------------------------------------------------------

    /// The function `[patchconstantfunc("F")]` names.
    fn patch_constant_function(&self, f: DeclId) -> R<Option<DeclId>> {
        let Some(name) = self.attr_str(f, "patchconstantfunc") else { return Ok(None) };
        let found = self.ast.items.iter().copied().find(|&d| match &self.ast.decl(d).kind {
            DeclKind::Function(func) => {
                func.body.is_some()
                    && func.name.segments.len() == 1
                    && func.name.last().is_some_and(|n| self.name(n.name) == name)
            }
            _ => false,
        });
        match found {
            Some(d) => Ok(Some(self.tree.decl(d).and_then(|i| i.definition).unwrap_or(d))),
            None => self.unsupported(format!("the patch constant function '{name}' (not found)")),
        }
    }

    /// dxc's tail of a hull wrapper: a control barrier, then invocation 0 calls the
    /// patch constant function and writes its results.
    fn run_patch_constant_function(
        &mut self,
        pcf: DeclId,
        invocation_id: Value,
        entry_params: &[(DeclId, Value)],
        locations: &[StageLocation],
    ) -> R<()> {
        self.effect(
            "spirv.ControlBarrier",
            vec![],
            vec![
                prop("execution_scope", enum_attr("scope", "Workgroup")),
                prop("memory_scope", enum_attr("scope", "Invocation")),
                prop("memory_semantics", enum_attr("memory_semantics", "None")),
            ],
        );
        let bool_t = self.bool_type();
        let zero = self.u32_constant(0);
        let cond = self.val("spirv.IEqual", vec![invocation_id, zero], bool_t);
        let on_true = self.new_block("if.true");
        let merge = self.new_block("if.merge");
        self.selection_header(merge, 0);
        self.branch_conditional(cond, on_true, merge);
        self.start_block(on_true);
        let DeclKind::Function(func) = &self.ast.decl(pcf).kind else { return Ok(()) };
        let func = func.clone();
        let mut args = Vec::new();
        let mut outputs = Vec::new();
        for &p in &func.params {
            let pty = self.tree.decl(p).map_or(TypeTable::ERROR, |d| d.ty);
            let dir = self.param_direction(p);
            let shape = self.param_shape(pty, Stage::Hull, dir);
            let (semantic, modifiers, vk_builtin) = self.stage_annotations(p);
            let family = match self.data(pty) {
                TypeData::Object { kind, .. } => Some(kind.family()),
                _ => None,
            };
            // The entry's input patch and system values are passed again as they are.
            let reuse = entry_params.iter().find(|(q, _)| {
                let qty = self.tree.decl(*q).map_or(TypeTable::ERROR, |d| d.ty);
                match (shape, family) {
                    (ParamShape::PerVertex { .. }, Some(Family::InputPatch)) => qty == pty,
                    (ParamShape::Plain, _) if dir == ParamDirection::In => {
                        let (qs, _, _) = self.stage_annotations(*q);
                        matches!((&semantic, &qs), (Some(a), Some(b)) if a.eq_ignore_ascii_case(b))
                    }
                    _ => false,
                }
            });
            if let Some(&(_, var)) = reuse {
                args.push(var);
                continue;
            }
            // The control points all invocations wrote, read back from the outputs
            // (dxc's name).
            let name = match family {
                Some(Family::OutputPatch) => "temp.var.hullMainRetVal".to_string(),
                _ => format!("param.var.{}", self.decl_name(p)),
            };
            let t = self.value_type_of(pty)?;
            let var = self.function_variable(t, &name);
            if dir != ParamDirection::Out {
                let v = match (shape, family) {
                    (ParamShape::PerVertex { element, count }, Some(Family::OutputPatch)) => self
                        .read_stage_value(
                            element,
                            semantic.as_deref(),
                            modifiers,
                            vk_builtin.clone(),
                            locations,
                            Stage::Hull,
                            Some(count),
                            false,
                            false,
                        )?,
                    _ => self.read_param(
                        pty,
                        shape,
                        semantic.as_deref(),
                        modifiers,
                        vk_builtin.clone(),
                        locations,
                        Stage::Hull,
                        false,
                    )?,
                };
                self.store_to(var, v);
            }
            if dir != ParamDirection::In {
                outputs.push((var, pty, semantic, modifiers, vk_builtin));
            }
            args.push(var);
        }
        let callee = self.request_function(pcf)?;
        // dxc emits the patch constant function with the wrapper, before the entry
        // function's body.
        let pcf_definition = self.tree.decl(pcf).and_then(|d| d.definition).unwrap_or(pcf);
        if self.queue.back().is_some_and(|v| v.decl == pcf_definition) {
            if let Some(v) = self.queue.pop_back() {
                self.queue.push_front(v);
            }
        }
        let ret = self.tree.decl(pcf).map_or(TypeTable::VOID, |d| d.ty);
        let props = vec![prop("callee", symbol(&callee))];
        if self.table.is_void(ret) {
            self.effect("spirv.FunctionCall", args, props);
        } else {
            let t = self.value_type_of(ret)?;
            let result = self.val_props("spirv.FunctionCall", args, t, props);
            let semantic = semantic_of(self, &func.annotations);
            let vk_builtin = self.vk_builtin_of(&self.ast.decl(pcf).attrs.clone());
            self.write_stage_value(
                result,
                ret,
                semantic.as_deref(),
                Modifiers::default(),
                vk_builtin,
                locations,
                Stage::Hull,
                None,
                true,
            )?;
        }
        for (var, ty, semantic, modifiers, vk_builtin) in outputs {
            let v = self.load(var);
            self.write_stage_value(
                v,
                ty,
                semantic.as_deref(),
                modifiers,
                vk_builtin,
                locations,
                Stage::Hull,
                None,
                true,
            )?;
        }
        self.branch(merge);
        self.start_block(merge);
        Ok(())
    }

    // ---- geometry streams and patches (hooks of methods and operator[]) ---------------

    /// `Stream.Append(v)` writes `v` to the stage outputs and emits a vertex;
    /// `Stream.RestartStrip()` ends the primitive.
    pub(super) fn stream_method(&mut self, name: &str, base: ExprId, args: &[ExprId]) -> R<Value> {
        let stream = self.stream_index(base);
        let several = self.stage.streams.len() > 1;
        match name {
            "Append" => {
                let a = self.arg(args, 0)?;
                let ty = self.tree.converted_type(a);
                let v = self.rvalue(a)?;
                let locations = self.entry.as_ref().map(|e| e.locations.clone()).unwrap_or_default();
                self.write_stage_value(
                    v,
                    ty,
                    None,
                    Modifiers::default(),
                    None,
                    &locations,
                    Stage::Geometry,
                    None,
                    false,
                )?;
                if several {
                    let c = self.u32_constant(stream);
                    self.fallback_effect("spirv.EmitStreamVertex", &[super::resources::Opnd::Id(c)]);
                } else {
                    self.effect("spirv.EmitVertex", vec![], Vec::new());
                }
            }
            "RestartStrip" => {
                if several {
                    let c = self.u32_constant(stream);
                    self.fallback_effect("spirv.EndStreamPrimitive", &[super::resources::Opnd::Id(c)]);
                } else {
                    self.effect("spirv.EndPrimitive", vec![], Vec::new());
                }
            }
            other => return self.unsupported(format!("method '{other}' of a geometry stream")),
        }
        let t = self.void_type();
        Ok(self.undef(t))
    }

    /// Which output stream (by parameter order) an expression names.
    fn stream_index(&self, base: ExprId) -> u32 {
        let decl = match self.tree.expr(base).map(|i| &i.resolution) {
            Some(Resolution::Decl(d)) => Some(*d),
            _ => None,
        };
        decl.and_then(|d| self.stage.streams.iter().position(|&s| s == d)).map_or(0, |i| i as u32)
    }

    /// `patch[i]` of an `InputPatch`/`OutputPatch` (arrays of their element).
    pub(super) fn patch_index(&mut self, base: ExprId, index: ExprId, ty: Ty) -> R<super::expr::Val> {
        use super::expr::{Place, Val};
        let i = self.rvalue(index)?;
        let et = self.ty(ty)?;
        match self.expr(base)? {
            Val::P(Place::Ptr { ptr, .. }) => {
                let p = self.access_chain(ptr, vec![i], et);
                Ok(Val::P(Place::Ptr { ptr: p, ty, rule: None }))
            }
            Val::R(v, _) => {
                let t = self.ir.value_type(v);
                let var = self.function_variable(t, "temp.var.patch");
                self.store_to(var, v);
                let p = self.access_chain(var, vec![i], et);
                Ok(Val::R(self.load(p), ty))
            }
            _ => self.unsupported("this patch expression"),
        }
    }

    /// The IR type of a stream (its element: `Append` writes the stage outputs) or a
    /// patch (an array of its element) held in a variable.
    pub(super) fn stage_object_type(&mut self, ty: Ty) -> R<Option<Type>> {
        let TypeData::Object { kind, args } = self.data(ty).clone() else { return Ok(None) };
        let element = args.iter().find_map(|a| match a {
            ObjectArg::Type(t) => Some(*t),
            _ => None,
        });
        let count = args.iter().find_map(|a| match a {
            ObjectArg::Int(n) => Some(*n),
            _ => None,
        });
        match (kind.family(), element) {
            (Family::Stream, Some(e)) => Ok(Some(self.value_type_of(e)?)),
            (Family::InputPatch | Family::OutputPatch, Some(e)) => {
                let et = self.value_type_of(e)?;
                let n = count.map_or(1, |n| n.clamp(1, 1 << 16) as u32);
                Ok(Some(self.store().array(et, n, None)))
            }
            _ => Ok(None),
        }
    }

    // ---- clip and cull distances ---------------------------------------------------

    /// Lays out every `SV_ClipDistanceN`/`SV_CullDistanceN` of each direction in its
    /// one float array: ascending N, packed tightly.
    fn plan_distances(&mut self, entry: &EntryPoint, params: &[DeclId], pcf: Option<DeclId>) -> R<()> {
        let stage = entry.stage;
        let mut found: Vec<(bool, Leaf)> = Vec::new();
        let mut functions = vec![entry.function];
        functions.extend(pcf);
        for (fi, &f) in functions.iter().enumerate() {
            let params: Vec<DeclId> = if fi == 0 {
                params.to_vec()
            } else {
                match &self.ast.decl(f).kind {
                    DeclKind::Function(func) => func.params.clone(),
                    _ => Vec::new(),
                }
            };
            for p in params {
                let pty = self.tree.decl(p).map_or(TypeTable::ERROR, |d| d.ty);
                let dir = self.param_direction(p);
                let (semantic, modifiers, vk_builtin) = self.stage_annotations(p);
                let mut leaves = Vec::new();
                let (ty, input, output) = match self.param_shape(pty, stage, dir) {
                    ParamShape::Stream { element } => (element, false, true),
                    ParamShape::PerVertex { element, .. } => (element, fi == 0, false),
                    ParamShape::Plain => {
                        (pty, dir != ParamDirection::Out && fi == 0, dir != ParamDirection::In)
                    }
                };
                if self
                    .leaves(ty, semantic.as_deref(), modifiers, vk_builtin, Vec::new(), &mut leaves, 0)
                    .is_err()
                {
                    continue;
                }
                for leaf in leaves {
                    if input {
                        found.push((true, leaf.clone()));
                    }
                    if output {
                        found.push((false, leaf));
                    }
                }
            }
            let ret = self.tree.decl(f).map_or(TypeTable::VOID, |d| d.ty);
            if !self.table.is_void(ret) {
                let DeclKind::Function(func) = &self.ast.decl(f).kind else { continue };
                let semantic = semantic_of(self, &func.annotations);
                let mut leaves = Vec::new();
                if self
                    .leaves(ret, semantic.as_deref(), Modifiers::default(), None, Vec::new(), &mut leaves, 0)
                    .is_ok()
                {
                    found.extend(leaves.into_iter().map(|l| (false, l)));
                }
            }
        }
        for input in [true, false] {
            for cull in [false, true] {
                let want = if cull { "CullDistance" } else { "ClipDistance" };
                let mut items: Vec<(u32, String, u32)> = Vec::new();
                for (dir, leaf) in &found {
                    if *dir != input {
                        continue;
                    }
                    let upper = leaf.semantic.to_ascii_uppercase();
                    let builtin =
                        leaf.vk_builtin.clone().or_else(|| builtin_for(&upper, stage, input).map(|b| b.name));
                    if builtin.as_deref() != Some(want) || items.iter().any(|(_, s, _)| *s == upper) {
                        continue;
                    }
                    let digits = upper.len() - upper.trim_end_matches(|c: char| c.is_ascii_digit()).len();
                    let index = upper[upper.len() - digits..].parse().unwrap_or(0);
                    let Some((outer, inner)) = self.float_shape(leaf.ty) else {
                        return self.unsupported(format!("the type of {}", leaf.semantic));
                    };
                    items.push((index, upper, outer.unwrap_or(1) * inner));
                }
                if items.is_empty() {
                    continue;
                }
                items.sort_by_key(|(index, _, _)| *index);
                let mut offset = 0u32;
                let mut offsets = Vec::new();
                for (_, semantic, count) in items {
                    offsets.push((semantic, offset));
                    offset = offset.saturating_add(count);
                }
                self.stage.distances.insert((input, cull), (offset, offsets));
            }
        }
        Ok(())
    }

    /// A float scalar, vector or array of them: (array length, components).
    fn float_shape(&self, ty: Ty) -> Option<(Option<u32>, u32)> {
        match self.data(ty) {
            TypeData::Array { elem, len: Some(n) } => {
                let (inner, n2) = self.scalar_shape(*elem)?;
                inner.is_float().then_some((Some(*n), n2))
            }
            _ => {
                let (s, n) = self.scalar_shape(ty)?;
                s.is_float().then_some((None, n))
            }
        }
    }

    fn distance_offset(&self, input: bool, cull: bool, semantic: &str) -> u32 {
        let upper = semantic.to_ascii_uppercase();
        self.stage
            .distances
            .get(&(input, cull))
            .and_then(|(_, offsets)| offsets.iter().find(|(s, _)| *s == upper))
            .map_or(0, |(_, o)| *o)
    }

    /// Reads a float value of type `ty` element by element from the float array at
    /// `ptr`, from `offset`.
    fn read_floats(&mut self, ptr: Value, offset: u32, ty: Ty) -> R<Value> {
        let Some((outer, inner)) = self.float_shape(ty) else {
            return self.unsupported(format!("a '{}' in a float array built-in", self.table.display(ty)));
        };
        let ft = self.f32_type();
        let mut scalars = Vec::new();
        for k in 0..outer.unwrap_or(1) * inner {
            let c = self.u32_constant(offset + k);
            let p = self.access_chain(ptr, vec![c], ft);
            scalars.push(self.load(p));
        }
        self.assemble_floats(scalars, ty, outer, inner)
    }

    /// A tessellation level array read whole, as dxc reads it: the loaded array when
    /// the HLSL type is the same array, else its leading elements extracted and
    /// assembled into the HLSL type (`float Inside[1]` from `float[2]`).
    fn read_tess_levels(&mut self, ptr: Value, b: &str, ty: Ty) -> R<Value> {
        let Some((outer, inner)) = self.float_shape(ty) else {
            return self.unsupported(format!("a '{}' in a float array built-in", self.table.display(ty)));
        };
        let size = if b == "TessLevelOuter" { 4 } else { 2 };
        let whole = self.load(ptr);
        let count = outer.unwrap_or(1) * inner;
        if self.ty(ty)? == self.ir.value_type(whole) {
            return Ok(whole);
        }
        if count > size {
            return self.unsupported(format!("a '{}' in a float[{size}] built-in", self.table.display(ty)));
        }
        let ft = self.f32_type();
        let scalars: Vec<Value> = (0..count).map(|k| self.extract(whole, &[k], ft)).collect();
        self.assemble_floats(scalars, ty, outer, inner)
    }

    /// Builds a value of float type `ty` (shape `outer` x `inner`) from its scalars.
    fn assemble_floats(&mut self, scalars: Vec<Value>, ty: Ty, outer: Option<u32>, inner: u32) -> R<Value> {
        let ft = self.f32_type();
        let t = self.ty(ty)?;
        match outer {
            None if inner == 1 => Ok(scalars[0]),
            None => Ok(self.construct(scalars, t)),
            Some(_) if inner == 1 => Ok(self.construct(scalars, t)),
            Some(_) => {
                let vt = self.vec_type(ft, inner);
                let vectors: Vec<Value> = scalars
                    .chunks(inner as usize)
                    .map(|c| c.to_vec())
                    .collect::<Vec<_>>()
                    .into_iter()
                    .map(|c| self.construct(c, vt))
                    .collect();
                Ok(self.construct(vectors, t))
            }
        }
    }

    /// Writes a float value element by element to the float array at `ptr`, from
    /// `offset` (dxc's access chain, extract, store per element).
    fn write_floats(&mut self, ptr: Value, offset: u32, v: Value, ty: Ty, limit: Option<u32>) -> R<()> {
        let Some((outer, inner)) = self.float_shape(ty) else {
            return self.unsupported(format!("a '{}' in a float array built-in", self.table.display(ty)));
        };
        let ft = self.f32_type();
        let mut k = 0u32;
        for i in 0..outer.unwrap_or(1) {
            for j in 0..inner {
                if limit.is_some_and(|l| offset + k >= l) {
                    return Ok(());
                }
                let path: Vec<u32> = match (outer, inner) {
                    (None, 1) => vec![],
                    (None, _) => vec![j],
                    (Some(_), 1) => vec![i],
                    (Some(_), _) => vec![i, j],
                };
                let c = self.u32_constant(offset + k);
                let p = self.access_chain(ptr, vec![c], ft);
                let x = if path.is_empty() { v } else { self.extract(v, &path, ft) };
                self.store_to(p, x);
                k += 1;
            }
        }
        Ok(())
    }

    // ---- reading and writing stage values --------------------------------------------

    /// The leaves of a stage value: itself with its semantic, or for a struct each
    /// member (recursively) with its own.
    #[allow(clippy::too_many_arguments)]
    fn leaves(
        &self,
        ty: Ty,
        semantic: Option<&str>,
        modifiers: Modifiers,
        vk_builtin: Option<String>,
        path: Vec<u32>,
        out: &mut Vec<Leaf>,
        depth: u32,
    ) -> R<()> {
        let start = out.len();
        let forced = semantic.is_some() && matches!(self.data(ty), TypeData::Struct(_));
        self.leaves_inner(ty, semantic, modifiers, vk_builtin, path, out, depth, forced)?;
        // A semantic on a struct names its leaves in order: `X`, `X1`, `X2`, ... (or
        // from the index written: `Y10`, `Y11`, ...); the members' own are ignored.
        if let (true, Some(semantic)) = (forced, semantic) {
            let digits = semantic.len() - semantic.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            let (base, index) = semantic.split_at(semantic.len() - digits);
            let first: u32 = index.parse().unwrap_or(0);
            for (i, leaf) in out[start..].iter_mut().enumerate() {
                let n = first.saturating_add(i as u32);
                leaf.semantic = if n == 0 && digits == 0 { base.to_string() } else { format!("{base}{n}") };
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn leaves_inner(
        &self,
        ty: Ty,
        semantic: Option<&str>,
        modifiers: Modifiers,
        vk_builtin: Option<String>,
        path: Vec<u32>,
        out: &mut Vec<Leaf>,
        depth: u32,
        forced: bool,
    ) -> R<()> {
        if depth > 32 {
            return self.unsupported("stage structs nested this deep");
        }
        if let TypeData::Struct(id) = self.data(ty) {
            let info = self.table.struct_info(*id).cloned();
            let Some(info) = info else { return self.unsupported("this stage struct") };
            let mut index = 0u32;
            for &b in &info.bases {
                let mut p = path.clone();
                p.push(index);
                self.leaves_inner(
                    b,
                    semantic.filter(|_| forced),
                    modifiers,
                    None,
                    p,
                    out,
                    depth + 1,
                    forced,
                )?;
                index += 1;
            }
            if info.fields.iter().any(|f| f.bit_width.is_some()) {
                return self.unsupported("bit-fields in stage input/output");
            }
            for f in &info.fields {
                let (annotations, fmods) = match &self.ast.decl(f.decl).kind {
                    DeclKind::Var(v) => (v.annotations.clone(), self.ast.decl(f.decl).modifiers),
                    _ => (Vec::new(), Modifiers::default()),
                };
                let sem = semantic_of(self, &annotations);
                let field_builtin = self.vk_builtin_of(&self.ast.decl(f.decl).attrs);
                let mut p = path.clone();
                p.push(index);
                let mut m = modifiers;
                m.insert(fmods);
                if !forced && sem.is_some() && matches!(self.data(f.ty), TypeData::Struct(_)) {
                    // A struct member with its own semantic numbers its leaves from it
                    // (`TEXCOORD4`, `TEXCOORD5`, ...) as a parameter's would.
                    self.leaves(f.ty, sem.as_deref(), m, field_builtin, p, out, depth + 1)?;
                    index += 1;
                    continue;
                }
                let field_semantic = if forced { semantic } else { sem.as_deref().or(semantic) };
                self.leaves_inner(f.ty, field_semantic, m, field_builtin, p, out, depth + 1, forced)?;
                index += 1;
            }
            return Ok(());
        }
        let semantic = match (semantic, &vk_builtin) {
            (Some(s), _) => s.to_string(),
            (None, Some(b)) => b.clone(),
            (None, None) => return self.unsupported("a stage input or output without a semantic"),
        };
        out.push(Leaf { path, ty, semantic, modifiers, vk_builtin });
        Ok(())
    }

    /// Reads a stage value (or one per vertex, an array, with `vertices`) from the
    /// input variables, or with `input` false from the output variables (a patch
    /// constant function's `OutputPatch`).
    #[allow(clippy::too_many_arguments)]
    fn read_stage_value(
        &mut self,
        ty: Ty,
        semantic: Option<&str>,
        modifiers: Modifiers,
        vk_builtin: Option<String>,
        locations: &[StageLocation],
        stage: Stage,
        vertices: Option<u32>,
        patch: bool,
        input: bool,
    ) -> R<Value> {
        let mut leaves = Vec::new();
        self.leaves(ty, semantic, modifiers, vk_builtin, Vec::new(), &mut leaves, 0)?;
        let mut values = Vec::new();
        for leaf in &leaves {
            let var = self.stage_var(leaf, input, locations, stage, vertices, patch)?;
            values.push(self.read_var(&var, leaf, input, vertices)?);
        }
        let single = leaves.len() == 1 && leaves[0].path.is_empty();
        match vertices {
            _ if single => Ok(values[0]),
            None => self.assemble(ty, &leaves, &values, &[], 0),
            Some(n) => {
                let et = self.value_type_of(ty)?;
                let mut elements = Vec::new();
                for i in 0..n {
                    let mut per_vertex = Vec::new();
                    for (leaf, &v) in leaves.iter().zip(&values) {
                        let lt = self.ty(leaf.ty)?;
                        per_vertex.push(self.extract(v, &[i], lt));
                    }
                    elements.push(self.assemble(ty, &leaves, &per_vertex, &[], 0)?);
                }
                let at = self.store().array(et, n, None);
                Ok(self.construct(elements, at))
            }
        }
    }

    /// The type of member `index` of a struct (bases first, as leaves count them).
    fn member_ty(&self, ty: Ty, index: u32) -> R<Ty> {
        let TypeData::Struct(id) = self.data(ty) else { return self.unsupported("this stage value") };
        let members = self.lift(crate::layout::struct_members(self.table, *id, &self.lower.options()))?;
        match members.get(index as usize) {
            Some(&m) => Ok(m),
            None => self.unsupported("this stage value"),
        }
    }

    /// Builds a struct value from its leaves (by path).
    fn assemble(
        &mut self,
        ty: Ty,
        leaves: &[Leaf],
        values: &[Value],
        prefix: &[u32],
        depth: u32,
    ) -> R<Value> {
        if let Some(i) = leaves.iter().position(|l| l.path == prefix) {
            return Ok(values[i]);
        }
        if depth > 32 {
            return self.unsupported("stage structs nested this deep");
        }
        let TypeData::Struct(id) = self.data(ty) else { return self.unsupported("this stage value") };
        let members = self.lift(crate::layout::struct_members(self.table, *id, &self.lower.options()))?;
        let t = self.value_type_of(ty)?;
        let mut parts = Vec::new();
        for (i, m) in members.into_iter().enumerate() {
            let mut p = prefix.to_vec();
            p.push(i as u32);
            parts.push(self.assemble(m, leaves, values, &p, depth + 1)?);
        }
        Ok(self.construct(parts, t))
    }

    /// Writes a value to the stage outputs; `index` (hull shaders) selects the
    /// control point of per-vertex outputs; `patch` marks patch constants.
    #[allow(clippy::too_many_arguments)]
    fn write_stage_value(
        &mut self,
        v: Value,
        ty: Ty,
        semantic: Option<&str>,
        modifiers: Modifiers,
        vk_builtin: Option<String>,
        locations: &[StageLocation],
        stage: Stage,
        index: Option<Value>,
        patch: bool,
    ) -> R<()> {
        let mut leaves = Vec::new();
        self.leaves(ty, semantic, modifiers, vk_builtin, Vec::new(), &mut leaves, 0)?;
        // dxc extracts member by member (a nested struct once, then its fields).
        let mut parts: Vec<(Vec<u32>, Value, Ty)> = vec![(Vec::new(), v, ty)];
        for leaf in &leaves {
            for k in 1..=leaf.path.len() {
                let prefix = &leaf.path[..k];
                if parts.iter().any(|(p, _, _)| p == prefix) {
                    continue;
                }
                let Some(&(_, parent, parent_ty)) = parts.iter().find(|(p, _, _)| p == &leaf.path[..k - 1])
                else {
                    return self.unsupported("this stage value");
                };
                let member_ty = self.member_ty(parent_ty, prefix[k - 1])?;
                let mt = self.value_type_of(member_ty)?;
                let member = self.extract(parent, &prefix[k - 1..k], mt);
                parts.push((prefix.to_vec(), member, member_ty));
            }
            let Some(&(_, x, _)) = parts.iter().find(|(p, _, _)| *p == leaf.path) else {
                return self.unsupported("this stage value");
            };
            let vertices = if index.is_some() { self.stage.output_vertices } else { None };
            let var = self.stage_var(leaf, false, locations, stage, vertices, patch)?;
            // dxc converts a value (bool to uint) before taking the element's pointer.
            let x = match (&var.builtin, var.stored) {
                (None, Some(stored)) => self.convert(x, leaf.ty, stored)?,
                _ => x,
            };
            let mut p = self.addressof(&var.symbol, var.ptr_t);
            if let (Some(i), Some(_)) = (index, var.vertices) {
                p = self.access_chain(p, vec![i], var.elem_t);
            }
            match var.builtin.clone() {
                None => self.store_to(p, x),
                Some(b) => self.builtin_write(&b, p, x, leaf, var.elem_t)?,
            }
        }
        Ok(())
    }

    /// A stage input read on its own (the hull wrapper's `gl_InvocationID`).
    fn stage_input(
        &mut self,
        leaf: &Leaf,
        locations: &[StageLocation],
        stage: Stage,
        vertices: Option<u32>,
        patch: bool,
    ) -> R<Value> {
        let var = self.stage_var(leaf, true, locations, stage, vertices, patch)?;
        self.read_var(&var, leaf, true, vertices)
    }

    /// The value of a stage variable as the leaf's type (an array per vertex).
    fn read_var(&mut self, var: &StageVar, leaf: &Leaf, input: bool, vertices: Option<u32>) -> R<Value> {
        let p = self.addressof(&var.symbol, var.ptr_t);
        let Some(b) = var.builtin.clone() else {
            let v = self.load(p);
            return match (var.stored, vertices.and(var.vertices)) {
                (None, _) => Ok(v),
                (Some(stored), None) => self.convert(v, stored, leaf.ty),
                (Some(stored), Some(n)) => {
                    let st = self.ty(stored)?;
                    let lt = self.ty(leaf.ty)?;
                    let mut elements = Vec::new();
                    for i in 0..n {
                        let x = self.extract(v, &[i], st);
                        elements.push(self.convert(x, stored, leaf.ty)?);
                    }
                    let at = self.store().array(lt, n, None);
                    Ok(self.construct(elements, at))
                }
            };
        };
        match (vertices, var.vertices) {
            (Some(n), Some(_)) => {
                let (_, hlsl) = self.builtin_type(&b, leaf.ty)?;
                if hlsl == Some(leaf.ty) && !is_float_array_builtin(&b) {
                    return Ok(self.load(p));
                }
                let mut elements = Vec::new();
                for i in 0..n {
                    let c = self.u32_constant(i);
                    let q = self.access_chain(p, vec![c], var.elem_t);
                    elements.push(self.builtin_read(&b, q, leaf, input)?);
                }
                let lt = self.ty(leaf.ty)?;
                let at = self.store().array(lt, n, None);
                Ok(self.construct(elements, at))
            }
            _ => self.builtin_read(&b, p, leaf, input),
        }
    }

    /// The stage variable of a leaf (made on first use, one per built-in or semantic
    /// and direction).
    fn stage_var(
        &mut self,
        leaf: &Leaf,
        input: bool,
        locations: &[StageLocation],
        stage: Stage,
        vertices: Option<u32>,
        patch: bool,
    ) -> R<StageVar> {
        let upper = leaf.semantic.to_ascii_uppercase();
        let builtin = leaf.vk_builtin.clone().or_else(|| builtin_for(&upper, stage, input).map(|b| b.name));
        // `noperspective` picks the linear barycentrics (SPIR-V.rst: BaryCoord*KHR).
        let builtin = match builtin.as_deref() {
            Some("BaryCoordKHR") if leaf.modifiers.contains(Modifiers::NOPERSPECTIVE) => {
                Some("BaryCoordNoPerspKHR".to_string())
            }
            _ => builtin,
        };
        let mut key = (input, builtin.clone().unwrap_or_else(|| upper.clone()));
        if patch && builtin.is_none() {
            key.1.push_str("#patch");
        }
        if let Some(v) = self.stage.vars.get(&key) {
            return Ok(v.clone());
        }
        let class = if input { "Input" } else { "Output" };
        let mut stored = None;
        let (elem_t, decorations, base_name) = match &builtin {
            Some(b) => {
                let extensions_before = self.resources.extensions.len();
                self.builtin_capability(b, stage, input);
                let user = if leaf.vk_builtin.is_some() { b.clone() } else { leaf.semantic.clone() };
                self.check_extensions_allowed(extensions_before, &user);
                let (t, _) = self.builtin_type(b, leaf.ty)?;
                let t = match b.as_str() {
                    "ClipDistance" | "CullDistance" => {
                        let cull = b == "CullDistance";
                        let size = self.stage.distances.get(&(input, cull)).map_or(1, |(n, _)| (*n).max(1));
                        let ft = self.f32_type();
                        self.store().array(ft, size, None)
                    }
                    _ => t,
                };
                let mut d = vec![prop("built_in", Attribute::String(b.clone()))];
                // Vulkan wants integer fragment inputs flat, built-ins included.
                let integer = self.lower.store().kind(t).clone();
                let integer =
                    matches!(integer, spirvkit_ir::types::TypeKind::Integer { width, .. } if width > 1);
                if stage == Stage::Pixel && input && integer {
                    d.push(prop("flat", Attribute::Unit));
                }
                if matches!(b.as_str(), "TessLevelOuter" | "TessLevelInner") {
                    d.push(prop("patch", Attribute::Unit));
                }
                if self.stage.per_primitive {
                    d.push(prop("per_primitive_ext", Attribute::Unit));
                }
                // The barycentric built-ins encode perspective in their choice but still
                // take `centroid` and `sample` (dxc decorates both).
                if matches!(b.as_str(), "BaryCoordKHR" | "BaryCoordNoPerspKHR") {
                    if leaf.modifiers.contains(Modifiers::CENTROID) {
                        d.push(prop("centroid", Attribute::Unit));
                    }
                    if leaf.modifiers.contains(Modifiers::SAMPLE) {
                        d.push(prop("sample", Attribute::Unit));
                    }
                }
                (t, d, builtin_var_name(b))
            }
            None => {
                let (location, index) = self.location_of(leaf, input, locations);
                stored = self.bool_as_uint(leaf.ty)?;
                let t = self.ty(stored.unwrap_or(leaf.ty))?;
                let mut d = vec![prop("location", i32_attr(self.store(), i64::from(location)))];
                if index != 0 {
                    d.push(prop("index", i32_attr(self.store(), i64::from(index))));
                }
                d.extend(self.interpolation(leaf, stage, input));
                if self.stage.per_primitive {
                    d.push(prop("per_primitive_ext", Attribute::Unit));
                }
                if patch {
                    d.push(prop("patch", Attribute::Unit));
                }
                (t, d, format!("{}.var.{}", if input { "in" } else { "out" }, leaf.semantic))
            }
        };
        let mut decorations = decorations;
        if self.options.reflect {
            // `-fspv-reflect`: the semantic as written (dxc's `UserSemantic`, right after
            // the `BuiltIn` or `Location`); one array holds all clip (cull) distances.
            let user = match builtin.as_deref() {
                Some("ClipDistance" | "CullDistance") => {
                    leaf.semantic.trim_end_matches(|c: char| c.is_ascii_digit()).to_string()
                }
                _ => leaf.semantic.clone(),
            };
            self.require_extension("SPV_GOOGLE_hlsl_functionality1");
            let at = decorations.len().min(1);
            decorations.insert(at, prop("user_semantic", Attribute::String(user)));
        }
        // Per-patch built-ins are never per vertex (mesh outputs are all arrays).
        let vertices = match builtin.as_deref() {
            _ if stage == Stage::Mesh && !input => vertices,
            Some(
                "TessLevelOuter" | "TessLevelInner" | "PrimitiveId" | "InvocationId" | "TessCoord"
                | "ViewIndex",
            ) => None,
            _ if patch => None,
            _ => vertices,
        };
        let var_t = match vertices {
            Some(n) => self.store().array(elem_t, n, None),
            None => elem_t,
        };
        let ptr_t = self.pointer(var_t, class);
        let shared_key = builtin.as_ref().map(|b| {
            let flat = decorations.iter().any(|d| d.name == "flat");
            (input, b.clone(), ptr_t, flat)
        });
        if let Some(var) = shared_key.as_ref().and_then(|k| self.stage.shared_builtins.get(k)).cloned() {
            if !self.interface.contains(&var.symbol) {
                self.interface.push(var.symbol.clone());
            }
            self.stage.vars.insert(key, var.clone());
            return Ok(var);
        }
        let symbol_name = self.unique_symbol(&base_name);
        self.global_variable(&symbol_name, ptr_t, decorations);
        self.interface.push(symbol_name.clone());
        if builtin.as_deref().is_some_and(|b| !builtin_is_named(b)) {
            self.unnamed_symbols.push(symbol_name.clone());
        }
        let var = StageVar { symbol: symbol_name, ptr_t, elem_t, builtin, stored, vertices };
        self.stage.vars.insert(key, var.clone());
        if let Some(k) = shared_key {
            self.stage.shared_builtins.insert(k, var.clone());
        }
        Ok(var)
    }

    /// The `Location` (and `Index`) sema gave a semantic; a system value sema left
    /// without one (not a built-in in this stage), or a semantic both per control
    /// point and per patch, takes the next free location.
    fn location_of(&mut self, leaf: &Leaf, input: bool, locations: &[StageLocation]) -> (u32, u32) {
        let matching =
            |l: &StageLocation| l.input == input && l.semantic.eq_ignore_ascii_case(&leaf.semantic);
        let free =
            locations.iter().enumerate().find(|(i, l)| matching(l) && !self.stage.used_locations.contains(i));
        if let Some((i, l)) = free {
            self.stage.used_locations.push(i);
            let taken = (input, l.location, l.index);
            if !self.stage.taken_locations.contains(&taken) {
                self.stage.taken_locations.push(taken);
                return (l.location, l.index);
            }
        }
        let given = locations.iter().filter(|l| l.input == input).map(|l| l.location + 1);
        let taken = self.stage.taken_locations.iter().filter(|(i, _, _)| *i == input).map(|(_, l, _)| l + 1);
        let next = given.chain(taken).max().unwrap_or(0);
        self.stage.taken_locations.push((input, next, 0));
        (next, 0)
    }

    /// The uint type standing for a bool scalar or vector stage value.
    fn bool_as_uint(&self, ty: Ty) -> R<Option<Ty>> {
        if self.table.component(ty) != Some(Scalar::Bool) {
            return Ok(None);
        }
        match self.scalar_shape(ty) {
            Some((_, n)) => Ok(Some(self.vector_ty(Scalar::UInt, n))),
            None => self.unsupported(format!("the bool stage variable type '{}'", self.table.display(ty))),
        }
    }

    /// A built-in's value as the leaf's type, from the pointer to one vertex's.
    fn builtin_read(&mut self, b: &str, p: Value, leaf: &Leaf, input: bool) -> R<Value> {
        match b {
            "ClipDistance" | "CullDistance" => {
                let offset = self.distance_offset(input, b == "CullDistance", &leaf.semantic);
                self.read_floats(p, offset, leaf.ty)
            }
            "TessLevelOuter" | "TessLevelInner" => self.read_tess_levels(p, b, leaf.ty),
            "SampleMask" => {
                let v = self.load(p);
                let ut = self.u32_type();
                let m = self.extract(v, &[0], ut);
                self.convert(m, TypeTable::UINT, leaf.ty)
            }
            _ => {
                let (var_t, hlsl) = self.builtin_type(b, leaf.ty)?;
                let hlsl = hlsl.unwrap_or(leaf.ty);
                let mut v = self.load(p);
                if matches!(b, "BaryCoordKHR" | "BaryCoordNoPerspKHR") {
                    v = self.barycentrics_from_two(v);
                }
                if b == "FragCoord" && self.options.dx_position_w {
                    // w = 1 / w.
                    let ft = self.f32_type();
                    let w = self.extract(v, &[3], ft);
                    let one = self.scalar_constant(ConstValue::Float(1.0), ft);
                    let inv = self.val("spirv.FDiv", vec![one, w], ft);
                    v = self.insert(inv, v, &[3]);
                }
                // With nonzero bases, SV_InstanceID/SV_VertexID count from the draw's
                // base as in D3D: dxc subtracts BaseInstance/BaseVertex into a
                // Function variable named by the semantic, then reads that.
                let base = match b {
                    "InstanceIndex" if self.options.nonzero_base_instance => Some("BaseInstance"),
                    "VertexIndex" if self.options.nonzero_base_vertex => Some("BaseVertex"),
                    _ => None,
                };
                if let Some(base_builtin) = base {
                    let base_leaf = Leaf {
                        path: Vec::new(),
                        ty: hlsl,
                        semantic: format!("{base_builtin}.base"),
                        modifiers: Modifiers::default(),
                        vk_builtin: Some(base_builtin.into()),
                    };
                    let stage = self.entry.as_ref().map_or(Stage::Vertex, |e| e.stage);
                    let var = self.stage_var(&base_leaf, true, &[], stage, None, false)?;
                    let bp = self.addressof(&var.symbol, var.ptr_t);
                    let base = self.load(bp);
                    let relative = self.val("spirv.ISub", vec![v, base], var_t);
                    let local = self.function_variable(var_t, &leaf.semantic);
                    self.store_to(local, relative);
                    v = self.load(local);
                }
                // A narrower vector of the same component (`int2 tid : SV_DispatchThreadID`)
                // takes the leading components with one shuffle, as dxc does.
                if let (Some((from, n)), Some((to, m))) =
                    (self.scalar_shape(hlsl), self.scalar_shape(leaf.ty))
                {
                    if from == to && m > 1 && m < n && b != "TessCoord" {
                        let lt = self.ty(leaf.ty)?;
                        let comps: Vec<u32> = (0..m).collect();
                        return Ok(self.shuffle(v, v, &comps, lt));
                    }
                }
                if b == "TessCoord" {
                    if let Some((_, n)) = self.scalar_shape(leaf.ty).filter(|(_, n)| *n < 3) {
                        let ft = self.f32_type();
                        let t = self.vec_type(ft, n);
                        let comps: Vec<u32> = (0..n).collect();
                        return Ok(if n == 1 {
                            self.extract(v, &[0], ft)
                        } else {
                            self.shuffle(v, v, &comps, t)
                        });
                    }
                }
                self.convert(v, hlsl, leaf.ty)
            }
        }
    }

    /// dxc's barycentrics: the third weight is `1 - (x + y)` rather than the built-in's
    /// own (the rule it kept from the two-component AMD built-ins).
    fn barycentrics_from_two(&mut self, v: Value) -> Value {
        let ft = self.f32_type();
        let x = self.extract(v, &[0], ft);
        let y = self.extract(v, &[1], ft);
        let xy = self.val("spirv.FAdd", vec![x, y], ft);
        let one = self.scalar_constant(ConstValue::Float(1.0), ft);
        let z = self.val("spirv.FSub", vec![one, xy], ft);
        let v3 = self.vec_type(ft, 3);
        self.construct(vec![x, y, z], v3)
    }

    /// Stores a leaf's value to a built-in (the pointer to one vertex's).
    fn builtin_write(&mut self, b: &str, p: Value, v: Value, leaf: &Leaf, elem_t: Type) -> R<()> {
        match b {
            "ClipDistance" | "CullDistance" => {
                let offset = self.distance_offset(false, b == "CullDistance", &leaf.semantic);
                return self.write_floats(p, offset, v, leaf.ty, None);
            }
            "TessLevelOuter" => return self.write_floats(p, 0, v, leaf.ty, Some(4)),
            "TessLevelInner" => return self.write_floats(p, 0, v, leaf.ty, Some(2)),
            "SampleMask" => {
                let m = self.convert(v, leaf.ty, TypeTable::UINT)?;
                let arr = self.construct(vec![m], elem_t);
                self.store_to(p, arr);
                return Ok(());
            }
            _ => {}
        }
        let (_, hlsl) = self.builtin_type(b, leaf.ty)?;
        let mut x = self.convert(v, leaf.ty, hlsl.unwrap_or(leaf.ty))?;
        if b == "Position" && self.options.invert_y {
            let ft = self.f32_type();
            let y = self.extract(x, &[1], ft);
            let ny = self.val("spirv.FNegate", vec![y], ft);
            x = self.insert(ny, x, &[1]);
        }
        match b {
            "FragDepth" => {
                let upper = leaf.semantic.to_ascii_uppercase();
                self.mode("DepthReplacing", vec![]);
                match upper.as_str() {
                    "SV_DEPTHGREATEREQUAL" => self.mode("DepthGreater", vec![]),
                    "SV_DEPTHLESSEQUAL" => self.mode("DepthLess", vec![]),
                    _ => {}
                }
            }
            "FragStencilRefEXT" => self.mode("StencilRefReplacingEXT", vec![]),
            _ => {}
        }
        self.store_to(p, x);
        Ok(())
    }

    /// Interpolation decorations of a stage variable: the qualifiers written, and
    /// `Flat` for integer and bool pixel-shader inputs (Vulkan requires it).
    fn interpolation(&mut self, leaf: &Leaf, stage: Stage, input: bool) -> Vec<NamedAttribute> {
        let mut out = Vec::new();
        let applies = (stage == Stage::Pixel && input)
            || (stage != Stage::Vertex && stage != Stage::Pixel)
            || (stage == Stage::Vertex && !input);
        if !applies {
            return out;
        }
        let m = leaf.modifiers;
        let integer = self.table.component(leaf.ty).is_some_and(|s| !s.is_float());
        if m.contains(Modifiers::NOINTERPOLATION) || (integer && stage == Stage::Pixel && input) {
            out.push(prop("flat", Attribute::Unit));
        }
        if m.contains(Modifiers::NOPERSPECTIVE) {
            out.push(prop("no_perspective", Attribute::Unit));
        }
        if m.contains(Modifiers::CENTROID) {
            out.push(prop("centroid", Attribute::Unit));
        }
        if m.contains(Modifiers::SAMPLE) {
            out.push(prop("sample", Attribute::Unit));
        }
        out
    }

    /// The capability (and extension) a built-in needs beyond its execution model.
    fn builtin_capability(&mut self, b: &str, stage: Stage, input: bool) {
        let (major, minor) = self.options.spirv_version;
        let spirv_1_3 = (major, minor) >= (1, 3);
        let spirv_1_5 = (major, minor) >= (1, 5);
        let pre_raster = matches!(stage, Stage::Vertex | Stage::Domain) && !input;
        match b {
            "SampleId" | "SamplePosition" => self.require("SampleRateShading", None),
            "PrimitiveId" if stage == Stage::Pixel => self.require("Geometry", None),
            "Layer" if stage == Stage::Pixel => self.require("Geometry", None),
            "ViewportIndex" if stage == Stage::Pixel || stage == Stage::Geometry => {
                self.require("MultiViewport", None)
            }
            "Layer" | "ViewportIndex" if pre_raster => {
                if spirv_1_5 {
                    self.require(if b == "Layer" { "ShaderLayer" } else { "ShaderViewportIndex" }, None);
                } else {
                    self.require("ShaderViewportIndexLayerEXT", Some("SPV_EXT_shader_viewport_index_layer"));
                }
            }
            "ViewIndex" => self.require("MultiView", (!spirv_1_3).then_some("SPV_KHR_multiview")),
            "DeviceIndex" => self.require("DeviceGroup", (!spirv_1_3).then_some("SPV_KHR_device_group")),
            "BaseVertex" | "BaseInstance" | "DrawIndex" => {
                self.require("DrawParameters", (!spirv_1_3).then_some("SPV_KHR_shader_draw_parameters"))
            }
            "BaryCoordKHR" | "BaryCoordNoPerspKHR" => {
                self.require("FragmentBarycentricKHR", Some("SPV_KHR_fragment_shader_barycentric"))
            }
            "FullyCoveredEXT" => {
                self.require("FragmentFullyCoveredEXT", Some("SPV_EXT_fragment_fully_covered"))
            }
            "FragStencilRefEXT" => self.require("StencilExportEXT", Some("SPV_EXT_shader_stencil_export")),
            "PrimitiveShadingRateKHR" | "ShadingRateKHR" => {
                self.require("FragmentShadingRateKHR", Some("SPV_KHR_fragment_shading_rate"))
            }
            "ClipDistance" => self.require("ClipDistance", None),
            "CullDistance" => self.require("CullDistance", None),
            _ => {}
        }
    }

    /// The IR type of a built-in variable (per vertex) and the HLSL type of its value
    /// (`None` for the array built-ins read element by element).
    fn builtin_type(&mut self, b: &str, declared: Ty) -> R<(Type, Option<Ty>)> {
        let hlsl = match b {
            "Position" | "FragCoord" => self.vector_ty(Scalar::Float, 4),
            "FrontFacing" | "HelperInvocation" | "FullyCoveredEXT" | "CullPrimitiveEXT" => {
                self.scalar_ty(Scalar::Bool)
            }
            "PrimitiveTriangleIndicesEXT" => self.vector_ty(Scalar::UInt, 3),
            "PrimitiveLineIndicesEXT" => self.vector_ty(Scalar::UInt, 2),
            "PrimitivePointIndicesEXT" => self.scalar_ty(Scalar::UInt),
            "GlobalInvocationId" | "WorkgroupId" | "LocalInvocationId" | "NumWorkgroups" => {
                // dxc keeps the declared signedness: `int2 tid : SV_GroupID` reads a v3int.
                let signed = matches!(
                    self.data(declared),
                    TypeData::Scalar(Scalar::Int) | TypeData::Vector(Scalar::Int, _)
                );
                self.vector_ty(if signed { Scalar::Int } else { Scalar::UInt }, 3)
            }
            "TessCoord" | "BaryCoordKHR" | "BaryCoordNoPerspKHR" => self.vector_ty(Scalar::Float, 3),
            "FragDepth" | "PointSize" => self.scalar_ty(Scalar::Float),
            "ClipDistance" | "CullDistance" => {
                let ft = self.f32_type();
                return Ok((self.store().array(ft, 1, None), None));
            }
            "TessLevelOuter" | "TessLevelInner" => {
                let ft = self.f32_type();
                let n = if b == "TessLevelOuter" { 4 } else { 2 };
                return Ok((self.store().array(ft, n, None), None));
            }
            "SampleMask" => {
                let ut = self.u32_type();
                return Ok((self.store().array(ut, 1, None), None));
            }
            _ => {
                // Integer built-ins keep the declared signedness (dxc does too).
                if declared == TypeTable::INT || self.data(declared) == &TypeData::Scalar(Scalar::Int) {
                    self.scalar_ty(Scalar::Int)
                } else {
                    self.scalar_ty(Scalar::UInt)
                }
            }
        };
        let t = self.ty(hlsl)?;
        Ok((t, Some(hlsl)))
    }
}

fn is_float_array_builtin(b: &str) -> bool {
    matches!(b, "ClipDistance" | "CullDistance" | "TessLevelOuter" | "TessLevelInner")
}

/// A semantic's built-in.
struct Builtin {
    name: String,
}

/// The built-in a system-value semantic maps to in `stage` (SPIR-V.rst's table).
fn builtin_for(semantic: &str, stage: Stage, input: bool) -> Option<Builtin> {
    let s = semantic.trim_end_matches(|c: char| c.is_ascii_digit());
    // Vertex inputs and pixel outputs are plain locations except these.
    let vertex_input =
        ["SV_VERTEXID", "SV_INSTANCEID", "SV_STARTVERTEXLOCATION", "SV_STARTINSTANCELOCATION", "SV_VIEWID"];
    let pixel_output =
        ["SV_DEPTH", "SV_DEPTHGREATEREQUAL", "SV_DEPTHLESSEQUAL", "SV_COVERAGE", "SV_STENCILREF"];
    if (stage == Stage::Vertex && input && !vertex_input.contains(&s))
        || (stage == Stage::Pixel && !input && !pixel_output.contains(&s))
    {
        return None;
    }
    let name = match (s, stage, input) {
        ("SV_POSITION", Stage::Pixel, true) => "FragCoord",
        ("SV_POSITION", Stage::Vertex, true) => return None,
        ("SV_POSITION", _, _) => "Position",
        ("SV_VERTEXID", Stage::Vertex, true) => "VertexIndex",
        ("SV_INSTANCEID", Stage::Vertex, true) => "InstanceIndex",
        ("SV_STARTVERTEXLOCATION", Stage::Vertex, true) => "BaseVertex",
        ("SV_STARTINSTANCELOCATION", Stage::Vertex, true) => "BaseInstance",
        ("SV_DEPTH" | "SV_DEPTHGREATEREQUAL" | "SV_DEPTHLESSEQUAL", Stage::Pixel, false) => "FragDepth",
        ("SV_ISFRONTFACE", Stage::Pixel, true) => "FrontFacing",
        ("SV_DISPATCHTHREADID", Stage::Compute | Stage::Mesh | Stage::Amplification, true) => {
            "GlobalInvocationId"
        }
        ("SV_GROUPID", Stage::Compute | Stage::Mesh | Stage::Amplification, true) => "WorkgroupId",
        ("SV_GROUPTHREADID", Stage::Compute | Stage::Mesh | Stage::Amplification, true) => {
            "LocalInvocationId"
        }
        ("SV_GROUPINDEX", Stage::Compute | Stage::Mesh | Stage::Amplification, true) => {
            "LocalInvocationIndex"
        }
        ("SV_PRIMITIVEID", Stage::Mesh, false) => "PrimitiveId",
        ("SV_RENDERTARGETARRAYINDEX", Stage::Mesh, false) => "Layer",
        ("SV_VIEWPORTARRAYINDEX", Stage::Mesh, false) => "ViewportIndex",
        ("SV_CULLPRIMITIVE", Stage::Mesh, false) => "CullPrimitiveEXT",
        ("SV_SHADINGRATE", Stage::Mesh, false) => "PrimitiveShadingRateKHR",
        ("SV_OUTPUTCONTROLPOINTID", Stage::Hull, true) => "InvocationId",
        ("SV_GSINSTANCEID", Stage::Geometry, true) => "InvocationId",
        ("SV_DOMAINLOCATION", Stage::Domain, true) => "TessCoord",
        ("SV_PRIMITIVEID", Stage::Pixel | Stage::Hull | Stage::Domain, true) => "PrimitiveId",
        ("SV_PRIMITIVEID", Stage::Geometry, _) => "PrimitiveId",
        ("SV_SAMPLEINDEX", Stage::Pixel, true) => "SampleId",
        ("SV_STENCILREF", Stage::Pixel, false) => "FragStencilRefEXT",
        ("SV_BARYCENTRICS", Stage::Pixel, true) => "BaryCoordKHR",
        ("SV_RENDERTARGETARRAYINDEX", Stage::Pixel, true) => "Layer",
        ("SV_RENDERTARGETARRAYINDEX", Stage::Vertex | Stage::Domain | Stage::Geometry, false) => "Layer",
        ("SV_VIEWPORTARRAYINDEX", Stage::Pixel, true) => "ViewportIndex",
        ("SV_VIEWPORTARRAYINDEX", Stage::Vertex | Stage::Domain | Stage::Geometry, false) => "ViewportIndex",
        ("SV_COVERAGE", Stage::Pixel, _) => "SampleMask",
        ("SV_VIEWID", _, true) => "ViewIndex",
        ("SV_CLIPDISTANCE", _, _) => "ClipDistance",
        ("SV_CULLDISTANCE", _, _) => "CullDistance",
        ("SV_TESSFACTOR", Stage::Hull, false) | ("SV_TESSFACTOR", Stage::Domain, true) => "TessLevelOuter",
        ("SV_INSIDETESSFACTOR", Stage::Hull, false) | ("SV_INSIDETESSFACTOR", Stage::Domain, true) => {
            "TessLevelInner"
        }
        ("SV_INNERCOVERAGE", Stage::Pixel, true) => "FullyCoveredEXT",
        ("SV_SHADINGRATE", Stage::Pixel, true) => "ShadingRateKHR",
        ("SV_SHADINGRATE", Stage::Vertex | Stage::Geometry, false) => "PrimitiveShadingRateKHR",
        _ => return None,
    };
    Some(Builtin { name: name.to_string() })
}

/// dxc's name of a built-in's variable (`gl_Position`, `gl_GlobalInvocationID`).
pub(super) fn builtin_var_name(builtin: &str) -> String {
    match builtin {
        "GlobalInvocationId" => "gl_GlobalInvocationID".into(),
        "LocalInvocationId" => "gl_LocalInvocationID".into(),
        "WorkgroupId" => "gl_WorkGroupID".into(),
        "NumWorkgroups" => "gl_NumWorkGroups".into(),
        "PrimitiveId" => "gl_PrimitiveID".into(),
        "InvocationId" => "gl_InvocationID".into(),
        "SampleId" => "gl_SampleID".into(),
        "ViewIndex" => "gl_ViewIndex".into(),
        "FragStencilRefEXT" => "gl_FragStencilRefARB".into(),
        "BaryCoordKHR" => "gl_BaryCoordEXT".into(),
        "BaryCoordNoPerspKHR" => "gl_BaryCoordNoPerspEXT".into(),
        other => format!("gl_{other}"),
    }
}

/// Whether dxc names a built-in's variable: it names those of core Vulkan (`gl_Position`)
/// and leaves those of extensions (`ViewIndex`, `FragStencilRefEXT`, barycentrics, draw
/// parameters) without an `OpName`.
pub(super) fn builtin_is_named(builtin: &str) -> bool {
    !matches!(
        builtin,
        "ViewIndex"
            | "FragStencilRefEXT"
            | "BaryCoordKHR"
            | "BaryCoordNoPerspKHR"
            | "BaseVertex"
            | "DrawIndex"
            | "DeviceIndex"
            | "FullyCoveredEXT"
            | "PrimitiveShadingRateKHR"
            | "ShadingRateKHR"
            | "CullPrimitiveEXT"
            | "PrimitiveTriangleIndicesEXT"
            | "PrimitiveLineIndicesEXT"
            | "PrimitivePointIndicesEXT"
            | "ViewportMaskNV"
    )
}

/// The semantic among a declaration's annotations.
pub(super) fn semantic_of(e: &Emitter<'_>, annotations: &[Annotation]) -> Option<String> {
    annotations.iter().find_map(|a| match a {
        Annotation::Semantic(id) => Some(e.name(id.name).to_string()),
        _ => None,
    })
}
