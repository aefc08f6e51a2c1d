//! The entry point wrapper: dxc's `main` that reads the stage input variables into
//! `param.var.*` variables, calls the source entry function (`src.main`), and writes
//! its results to the stage output variables. Semantics map to `Location`s (as sema
//! assigned them) or to `BuiltIn`s (SPIR-V.rst's table).

use super::{Emitter, FnState, R};
use crate::builder::{i32_attr, prop, symbol};
use spirvkit_hlsl::ast::{Annotation, DeclId, DeclKind, Modifiers};
use spirvkit_hlsl::sema::tree::{ConstValue, EntryPoint, ParamDirection, Stage};
use spirvkit_hlsl::sema::types::{Scalar, Ty, TypeData, TypeTable};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{Location, Value};
use std::collections::HashMap;

/// One leaf of a stage parameter: a value with a semantic.
struct Leaf {
    /// The member path from the parameter's value.
    path: Vec<u32>,
    ty: Ty,
    semantic: String,
    modifiers: Modifiers,
}

impl<'t> Emitter<'t> {
    pub(super) fn entry_wrapper(&mut self, entry: &EntryPoint, src: &str) -> R<()> {
        let func_decl = entry.function;
        self.span = Some(self.ast.decl(func_decl).span);
        let DeclKind::Function(func) = &self.ast.decl(func_decl).kind else { return Ok(()) };
        let func = func.clone();
        let void = self.void_type();
        let _ = void;
        let fn_type = self.store().function(vec![], vec![]);
        let op = self.ir.create_op("spirv.func", vec![], &[], Location::Unknown);
        crate::builder::set_attributes(
            &mut self.ir,
            op,
            vec![
                prop("function_control", crate::builder::enum_attr("function_control", "None")),
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
        });
        self.execution_modes_of(entry)?;
        self.initialize_statics()?;
        let locations = entry.locations.clone();
        let mut args = Vec::new();
        let mut outputs = Vec::new();
        for &p in &func.params {
            let pty = self.tree.decl(p).map_or(TypeTable::ERROR, |d| d.ty);
            let dir = self.param_direction(p);
            let name = self.decl_name(p);
            let t = self.value_type_of(pty)?;
            let var = self.function_variable(t, &format!("param.var.{name}"));
            let annotations = match &self.ast.decl(p).kind {
                DeclKind::Var(v) => v.annotations.clone(),
                _ => Vec::new(),
            };
            let modifiers = self.ast.decl(p).modifiers;
            let semantic = semantic_of(self, &annotations);
            if dir != ParamDirection::Out {
                let v = self.read_stage_value(
                    pty,
                    semantic.as_deref(),
                    modifiers,
                    &locations,
                    entry.stage,
                    &name,
                )?;
                self.store_to(var, v);
            }
            if dir != ParamDirection::In {
                outputs.push((var, pty, semantic, modifiers));
            }
            args.push(var);
        }
        let ret = self.tree.decl(func_decl).map_or(TypeTable::VOID, |d| d.ty);
        let callee = vec![prop("callee", symbol(src))];
        if self.table.is_void(ret) {
            self.effect("spirv.FunctionCall", args, callee);
        } else {
            let t = self.value_type_of(ret)?;
            let result = self.val_props("spirv.FunctionCall", args, t, callee);
            let semantic = semantic_of(self, &func.annotations);
            self.write_stage_value(
                result,
                ret,
                semantic.as_deref(),
                Modifiers::default(),
                &locations,
                entry.stage,
            )?;
        }
        for (var, ty, semantic, modifiers) in outputs {
            let v = self.load(var);
            self.write_stage_value(v, ty, semantic.as_deref(), modifiers, &locations, entry.stage)?;
        }
        self.terminate("spirv.Return", vec![], &[], Vec::new());
        self.finish_function()?;
        self.f = None;
        Ok(())
    }

    /// dxc initializes `static` globals at the start of the wrapper.
    fn initialize_statics(&mut self) -> R<()> {
        let inits = std::mem::take(&mut self.resources.static_inits);
        for (decl, init) in inits {
            let Some(g) = self.globals.get(&decl).cloned() else { continue };
            let v = self.init_value(init, g.ty)?;
            let p = self.addressof(&g.symbol, g.ptr_type);
            self.store_to(p, v);
        }
        Ok(())
    }

    fn execution_modes_of(&mut self, entry: &EntryPoint) -> R<()> {
        let attrs = self.ast.decl(entry.function).attrs.clone();
        let names: Vec<String> = attrs.iter().map(|a| self.name(a.name.name).to_ascii_lowercase()).collect();
        let has = |name: &str| names.iter().any(|n| n == name);
        match entry.stage {
            Stage::Compute => {
                let [x, y, z] = entry.numthreads.unwrap_or([1, 1, 1]);
                self.execution_modes.push(("LocalSize".into(), vec![x, y, z]));
            }
            Stage::Pixel => {
                self.execution_modes.push(("OriginUpperLeft".into(), vec![]));
                if has("earlydepthstencil") {
                    self.execution_modes.push(("EarlyFragmentTests".into(), vec![]));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The leaves of a stage value: itself with its semantic, or for a struct each
    /// member (recursively) with its own.
    fn leaves(
        &self,
        ty: Ty,
        semantic: Option<&str>,
        modifiers: Modifiers,
        path: Vec<u32>,
        out: &mut Vec<Leaf>,
        depth: u32,
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
                self.leaves(b, None, modifiers, p, out, depth + 1)?;
                index += 1;
            }
            for f in &info.fields {
                let (annotations, fmods) = match &self.ast.decl(f.decl).kind {
                    DeclKind::Var(v) => (v.annotations.clone(), self.ast.decl(f.decl).modifiers),
                    _ => (Vec::new(), Modifiers::default()),
                };
                let sem = semantic_of(self, &annotations);
                let mut p = path.clone();
                p.push(index);
                let mut m = modifiers;
                m.insert(fmods);
                self.leaves(f.ty, sem.as_deref().or(semantic), m, p, out, depth + 1)?;
                index += 1;
            }
            return Ok(());
        }
        let Some(semantic) = semantic else {
            return self.unsupported("a stage input or output without a semantic");
        };
        out.push(Leaf { path, ty, semantic: semantic.to_string(), modifiers });
        Ok(())
    }

    fn read_stage_value(
        &mut self,
        ty: Ty,
        semantic: Option<&str>,
        modifiers: Modifiers,
        locations: &[spirvkit_hlsl::sema::tree::StageLocation],
        stage: Stage,
        param_name: &str,
    ) -> R<Value> {
        let _ = param_name;
        let mut leaves = Vec::new();
        self.leaves(ty, semantic, modifiers, Vec::new(), &mut leaves, 0)?;
        let mut values = Vec::new();
        for leaf in &leaves {
            let v = self.stage_input(leaf, locations, stage)?;
            values.push(v);
        }
        if leaves.len() == 1 && leaves[0].path.is_empty() {
            return Ok(values[0]);
        }
        self.assemble(ty, &leaves, &values, &[], 0)
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
        let members = self.lift(crate::layout::struct_members(self.table, *id))?;
        let t = self.value_type_of(ty)?;
        let mut parts = Vec::new();
        for (i, m) in members.into_iter().enumerate() {
            let mut p = prefix.to_vec();
            p.push(i as u32);
            parts.push(self.assemble(m, leaves, values, &p, depth + 1)?);
        }
        Ok(self.construct(parts, t))
    }

    fn write_stage_value(
        &mut self,
        v: Value,
        ty: Ty,
        semantic: Option<&str>,
        modifiers: Modifiers,
        locations: &[spirvkit_hlsl::sema::tree::StageLocation],
        stage: Stage,
    ) -> R<()> {
        let mut leaves = Vec::new();
        self.leaves(ty, semantic, modifiers, Vec::new(), &mut leaves, 0)?;
        for leaf in &leaves {
            let lt = self.value_type_of(leaf.ty)?;
            let x = if leaf.path.is_empty() { v } else { self.extract(v, &leaf.path, lt) };
            self.stage_output(leaf, x, locations, stage)?;
        }
        Ok(())
    }

    fn stage_input(
        &mut self,
        leaf: &Leaf,
        locations: &[spirvkit_hlsl::sema::tree::StageLocation],
        stage: Stage,
    ) -> R<Value> {
        let upper = leaf.semantic.to_ascii_uppercase();
        if let Some(b) = builtin_for(&upper, stage, true) {
            let (var_ty, hlsl_ty) = self.builtin_type(&b, leaf.ty)?;
            let ptr_t = self.pointer(var_ty, "Input");
            let symbol_name = self.builtin_symbol(&b.name, "Input", ptr_t);
            let p = self.addressof(&symbol_name, ptr_t);
            let mut v = self.load(p);
            if b.name == "FragCoord" && self.options.dx_position_w {
                // w = 1 / w.
                let ft = self.f32_type();
                let w = self.extract(v, &[3], ft);
                let one = self.scalar_constant(ConstValue::Float(1.0), ft);
                let inv = self.val("spirv.FDiv", vec![one, w], ft);
                v = self.insert(inv, v, &[3]);
            }
            if b.name == "InstanceIndex" && self.options.nonzero_base_instance {
                let bt = self.builtin_type(&Builtin { name: "BaseInstance".into() }, leaf.ty)?.0;
                let bp_t = self.pointer(bt, "Input");
                let bs = self.builtin_symbol("BaseInstance", "Input", bp_t);
                let bp = self.addressof(&bs, bp_t);
                let base = self.load(bp);
                v = self.val("spirv.ISub", vec![v, base], var_ty);
            }
            return self.convert(v, hlsl_ty, leaf.ty);
        }
        let Some(location) =
            locations.iter().find(|l| l.input && l.semantic.eq_ignore_ascii_case(&leaf.semantic))
        else {
            return self.unsupported(format!("the input semantic '{}'", leaf.semantic));
        };
        let (location, index) = (location.location, location.index);
        let t = self.ty(leaf.ty)?;
        let ptr_t = self.pointer(t, "Input");
        let mut decorations = vec![prop("location", i32_attr(self.store(), i64::from(location)))];
        let _ = index;
        decorations.extend(self.interpolation(leaf, stage, true));
        let symbol_name = self.unique_symbol(&format!("in.var.{}", leaf.semantic));
        self.global_variable(&symbol_name, ptr_t, decorations);
        self.interface.push(symbol_name.clone());
        let p = self.addressof(&symbol_name, ptr_t);
        Ok(self.load(p))
    }

    fn stage_output(
        &mut self,
        leaf: &Leaf,
        v: Value,
        locations: &[spirvkit_hlsl::sema::tree::StageLocation],
        stage: Stage,
    ) -> R<()> {
        let upper = leaf.semantic.to_ascii_uppercase();
        if let Some(b) = builtin_for(&upper, stage, false) {
            let (var_ty, hlsl_ty) = self.builtin_type(&b, leaf.ty)?;
            let ptr_t = self.pointer(var_ty, "Output");
            let symbol_name = self.builtin_symbol(&b.name, "Output", ptr_t);
            let mut x = self.convert(v, leaf.ty, hlsl_ty)?;
            if b.name == "Position" && self.options.invert_y {
                let ft = self.f32_type();
                let y = self.extract(x, &[1], ft);
                let ny = self.val("spirv.FNegate", vec![y], ft);
                x = self.insert(ny, x, &[1]);
            }
            if b.name == "SampleMask" {
                let ut = self.u32_type();
                let _ = ut;
                let arr = self.construct(vec![x], var_ty);
                x = arr;
            }
            match b.name.as_str() {
                "FragDepth" => {
                    let mode = match upper.as_str() {
                        "SV_DEPTHGREATEREQUAL" => "DepthGreater",
                        "SV_DEPTHLESSEQUAL" => "DepthLess",
                        _ => "",
                    };
                    self.add_mode("DepthReplacing");
                    if !mode.is_empty() {
                        self.add_mode(mode);
                    }
                }
                "FragStencilRefEXT" => self.add_mode("StencilRefReplacingEXT"),
                _ => {}
            }
            let p = self.addressof(&symbol_name, ptr_t);
            self.store_to(p, x);
            return Ok(());
        }
        let Some(location) =
            locations.iter().find(|l| !l.input && l.semantic.eq_ignore_ascii_case(&leaf.semantic))
        else {
            return self.unsupported(format!("the output semantic '{}'", leaf.semantic));
        };
        let (location, index) = (location.location, location.index);
        let t = self.ty(leaf.ty)?;
        let ptr_t = self.pointer(t, "Output");
        let mut decorations = vec![prop("location", i32_attr(self.store(), i64::from(location)))];
        if index != 0 {
            decorations.push(prop("index", i32_attr(self.store(), i64::from(index))));
        }
        decorations.extend(self.interpolation(leaf, stage, false));
        let symbol_name = self.unique_symbol(&format!("out.var.{}", leaf.semantic));
        self.global_variable(&symbol_name, ptr_t, decorations);
        self.interface.push(symbol_name.clone());
        let p = self.addressof(&symbol_name, ptr_t);
        self.store_to(p, v);
        Ok(())
    }

    fn add_mode(&mut self, mode: &str) {
        if !self.execution_modes.iter().any(|(m, _)| m == mode) {
            self.execution_modes.push((mode.to_string(), vec![]));
        }
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

    /// The variable of a built-in (one per built-in and direction), named `gl_*`.
    fn builtin_symbol(&mut self, builtin: &str, class: &str, ptr_t: spirvkit_ir::types::Type) -> String {
        let key = format!("{class}:{builtin}");
        if let Some(s) = self.resources.builtins.get(&key) {
            return s.clone();
        }
        let name = builtin_var_name(builtin);
        let symbol_name = self.unique_symbol(&name);
        self.global_variable(
            &symbol_name,
            ptr_t,
            vec![prop("built_in", Attribute::String(builtin.to_string()))],
        );
        self.interface.push(symbol_name.clone());
        self.resources.builtins.insert(key, symbol_name.clone());
        symbol_name
    }

    /// The IR type of a built-in variable and the HLSL type its value has.
    fn builtin_type(&mut self, b: &Builtin, declared: Ty) -> R<(spirvkit_ir::types::Type, Ty)> {
        let hlsl = match b.name.as_str() {
            "Position" | "FragCoord" => self.vector_ty(Scalar::Float, 4),
            "FrontFacing" | "HelperInvocation" => self.scalar_ty(Scalar::Bool),
            "GlobalInvocationId" | "WorkgroupId" | "LocalInvocationId" => self.vector_ty(Scalar::UInt, 3),
            "TessCoord" => self.vector_ty(Scalar::Float, 3),
            "BaryCoordKHR" | "BaryCoordNoPerspKHR" => self.vector_ty(Scalar::Float, 3),
            "FragDepth" => self.scalar_ty(Scalar::Float),
            "VertexIndex" | "InstanceIndex" | "BaseVertex" | "BaseInstance" | "StencilRef"
            | "FragStencilRefEXT" => self.scalar_ty(Scalar::Int),
            "ClipDistance" | "CullDistance" | "TessLevelOuter" | "TessLevelInner" => {
                return self.unsupported(format!("the {} built-in", b.name));
            }
            "SampleMask" => {
                let ut = self.u32_type();
                let arr = self.store().array(ut, 1, None);
                return Ok((arr, self.scalar_ty(Scalar::UInt)));
            }
            _ => self.scalar_ty(Scalar::UInt),
        };
        let _ = declared;
        let t = self.ty(hlsl)?;
        Ok((t, hlsl))
    }
}

/// A semantic's built-in.
struct Builtin {
    name: String,
}

/// The built-in a system-value semantic maps to in `stage` (SPIR-V.rst's table).
fn builtin_for(semantic: &str, stage: Stage, input: bool) -> Option<Builtin> {
    let s = semantic.trim_end_matches(|c: char| c.is_ascii_digit());
    let name = match (s, stage, input) {
        ("SV_POSITION", Stage::Pixel, true) => "FragCoord",
        ("SV_POSITION", Stage::Vertex, true) => return None,
        ("SV_POSITION", _, _) => "Position",
        ("SV_VERTEXID", Stage::Vertex, true) => "VertexIndex",
        ("SV_INSTANCEID", Stage::Vertex, true) => "InstanceIndex",
        ("SV_STARTVERTEXLOCATION", _, true) => "BaseVertex",
        ("SV_STARTINSTANCELOCATION", _, true) => "BaseInstance",
        ("SV_DEPTH" | "SV_DEPTHGREATEREQUAL" | "SV_DEPTHLESSEQUAL", Stage::Pixel, false) => "FragDepth",
        ("SV_ISFRONTFACE", Stage::Pixel, true) => "FrontFacing",
        ("SV_DISPATCHTHREADID", _, true) => "GlobalInvocationId",
        ("SV_GROUPID", _, true) => "WorkgroupId",
        ("SV_GROUPTHREADID", _, true) => "LocalInvocationId",
        ("SV_GROUPINDEX", _, true) => "LocalInvocationIndex",
        ("SV_OUTPUTCONTROLPOINTID", Stage::Hull, true) => "InvocationId",
        ("SV_GSINSTANCEID", Stage::Geometry, true) => "InvocationId",
        ("SV_DOMAINLOCATION", Stage::Domain, true) => "TessCoord",
        ("SV_PRIMITIVEID", _, _) => "PrimitiveId",
        ("SV_SAMPLEINDEX", Stage::Pixel, true) => "SampleId",
        ("SV_STENCILREF", Stage::Pixel, false) => "FragStencilRefEXT",
        ("SV_BARYCENTRICS", Stage::Pixel, true) => "BaryCoordKHR",
        ("SV_RENDERTARGETARRAYINDEX", _, _) => "Layer",
        ("SV_VIEWPORTARRAYINDEX", _, _) => "ViewportIndex",
        ("SV_COVERAGE", Stage::Pixel, _) => "SampleMask",
        ("SV_VIEWID", _, true) => "ViewIndex",
        ("SV_CLIPDISTANCE", _, _) => "ClipDistance",
        ("SV_CULLDISTANCE", _, _) => "CullDistance",
        ("SV_TESSFACTOR", _, _) => "TessLevelOuter",
        ("SV_INSIDETESSFACTOR", _, _) => "TessLevelInner",
        ("SV_INNERCOVERAGE", Stage::Pixel, true) => "FullyCoveredEXT",
        ("SV_SHADINGRATE", _, _) => "PrimitiveShadingRateKHR",
        _ => return None,
    };
    Some(Builtin { name: name.to_string() })
}

/// dxc's name of a built-in's variable (`gl_Position`, `gl_GlobalInvocationID`).
fn builtin_var_name(builtin: &str) -> String {
    match builtin {
        "GlobalInvocationId" => "gl_GlobalInvocationID".into(),
        "LocalInvocationId" => "gl_LocalInvocationID".into(),
        "WorkgroupId" => "gl_WorkGroupID".into(),
        "PrimitiveId" => "gl_PrimitiveID".into(),
        "InvocationId" => "gl_InvocationID".into(),
        "SampleId" => "gl_SampleID".into(),
        "ViewIndex" => "gl_ViewIndex".into(),
        "FragStencilRefEXT" => "gl_FragStencilRefARB".into(),
        "BaryCoordKHR" => "gl_BaryCoordEXT".into(),
        other => format!("gl_{other}"),
    }
}

/// The semantic among a declaration's annotations.
pub(super) fn semantic_of(e: &Emitter<'_>, annotations: &[Annotation]) -> Option<String> {
    annotations.iter().find_map(|a| match a {
        Annotation::Semantic(id) => Some(e.name(id.name).to_string()),
        _ => None,
    })
}

#[allow(dead_code)]
fn unused(_: DeclId) {}
