//! Entry points: found by `-E` (or `[shader("...")]` in libraries), with the stage
//! from the profile, and the attribute and signature rules dxc checks up front.

use super::tree::ParamDirection;
use super::tree::{EntryPoint, Stage, StageLocation};
use super::types::{Family, ObjectArg, Scalar, Ty, TypeData, TypeTable};
use super::Sema;
use super::StageIoOrder;
use crate::ast::{Annotation, Attribute, DeclId, DeclKind, ExprId, ExprKind, Modifiers};
use crate::source::Span;

impl Sema<'_> {
    pub(super) fn check_entry_points(&mut self) {
        let Some(stage) = self.opts.stage else { return };
        if stage == Stage::Library {
            let functions = self.functions.clone();
            for f in functions {
                let attrs = self.ast.decl(f).attrs.clone();
                let shader = attrs
                    .iter()
                    .find(|a| self.name(a.name.name).eq_ignore_ascii_case("shader") && a.namespace.is_none());
                let Some(shader) = shader else { continue };
                let Some(&arg) = shader.args.first() else { continue };
                let ExprKind::StringLiteral(parts) = &self.ast.expr(arg).kind else { continue };
                let text: String =
                    parts.iter().map(|p| self.ast.name(*p).trim_matches('"').to_string()).collect();
                if let Some(stage) = Stage::from_shader_attribute(&text) {
                    self.add_entry(f, stage);
                }
            }
            return;
        }
        let entry = self.opts.entry.clone().unwrap_or_else(|| "main".to_string());
        let found = self.functions.iter().copied().find(|&f| match &self.ast.decl(f).kind {
            DeclKind::Function(func) => {
                func.name.segments.len() == 1 && func.name.last().is_some_and(|n| self.name(n.name) == entry)
            }
            _ => false,
        });
        match found {
            Some(f) => self.add_entry(f, stage),
            None => {
                if !self.diags.has_errors() {
                    self.report(crate::diag::Diagnostic::error(None, "missing entry point definition"));
                }
            }
        }
    }

    pub(super) fn attribute(&self, f: DeclId, name: &str) -> Option<Attribute> {
        self.ast
            .decl(f)
            .attrs
            .iter()
            .find(|a| a.namespace.is_none() && self.name(a.name.name).eq_ignore_ascii_case(name))
            .cloned()
    }

    fn add_entry(&mut self, f: DeclId, stage: Stage) {
        let decl = self.ast.decl(f).clone();
        let DeclKind::Function(func) = &decl.kind else { return };
        let name_ident = func.name.last();
        let name = name_ident.map(|n| self.name(n.name).to_string()).unwrap_or_default();
        let name_span = name_ident.map_or(decl.span, |n| n.span);
        let numthreads = self.attribute(f, "numthreads").and_then(|a| {
            let mut dims = [1u32; 3];
            if a.args.len() != 3 {
                return None;
            }
            for (i, &e) in a.args.iter().enumerate() {
                let v = self.const_int(e, "numthreads argument")?;
                dims[i] = u32::try_from(v).ok()?;
            }
            Some(dims)
        });
        let stage_name = match stage {
            Stage::Compute => Some("compute"),
            Stage::Mesh => Some("mesh"),
            Stage::Amplification => Some("amplification"),
            Stage::Node => Some("node"),
            _ => None,
        };
        if let Some(what) = stage_name {
            if numthreads.is_none() && what != "node" {
                self.error(name_span, format!("{what} entry point must have a valid numthreads attribute"));
            }
        }
        if matches!(stage, Stage::Mesh | Stage::Hull) && self.attribute(f, "outputtopology").is_none() {
            let what = if stage == Stage::Mesh { "mesh" } else { "hull" };
            self.error(name_span, format!("{what} entry point must have a valid outputtopology attribute"));
        }
        if stage == Stage::Hull {
            self.patch_constant_checks(f);
        }
        self.entry_points.push(EntryPoint { function: f, name, stage, numthreads, locations: Vec::new() });
        self.check_entry_signature(f, stage);
    }

    /// The string argument of an attribute (`[patchconstantfunc("F")]` -> `F`).
    fn attribute_string(&self, f: DeclId, name: &str) -> Option<String> {
        let a = self.attribute(f, name)?;
        let &arg = a.args.first()?;
        match &self.ast.expr(arg).kind {
            ExprKind::StringLiteral(parts) => {
                Some(parts.iter().map(|p| self.ast.name(*p).trim_matches('"').to_string()).collect())
            }
            _ => None,
        }
    }

    /// The family and element count of an `InputPatch<T, N>`/`OutputPatch<T, N>` parameter.
    fn patch_param(&self, p: DeclId) -> Option<(Family, i64)> {
        match self.types.get(self.decl_ty(p)) {
            TypeData::Object { kind, args }
                if matches!(kind.family(), Family::InputPatch | Family::OutputPatch) =>
            {
                let n = args.iter().find_map(|a| match a {
                    ObjectArg::Int(n) => Some(*n),
                    _ => None,
                })?;
                Some((kind.family(), n))
            }
            _ => None,
        }
    }

    /// A hull entry's patch constant function takes patches of the entry's sizes: the
    /// input patch of the entry's, the output patch of `outputcontrolpoints`.
    fn patch_constant_checks(&mut self, f: DeclId) {
        let Some(pcf_name) = self.attribute_string(f, "patchconstantfunc") else { return };
        let pcf = self.functions.iter().copied().find(|&g| match &self.ast.decl(g).kind {
            DeclKind::Function(func) => {
                func.body.is_some()
                    && func.name.segments.len() == 1
                    && func.name.last().is_some_and(|n| self.name(n.name) == pcf_name)
            }
            _ => false,
        });
        let Some(pcf) = pcf else { return };
        let DeclKind::Function(entry) = self.ast.decl(f).kind.clone() else { return };
        let DeclKind::Function(pcf_func) = self.ast.decl(pcf).kind.clone() else { return };
        let pcf_span = pcf_func.name.last().map_or(self.ast.decl(pcf).span, |n| n.span);
        let input_size = entry
            .params
            .iter()
            .find_map(|&p| self.patch_param(p).filter(|(fam, _)| *fam == Family::InputPatch).map(|(_, n)| n));
        let control_points = self.attribute(f, "outputcontrolpoints").and_then(|a| {
            let &e = a.args.first()?;
            self.const_int(e, "outputcontrolpoints argument")
        });
        for &p in &pcf_func.params {
            let Some((family, n)) = self.patch_param(p) else { continue };
            let (what, expected) = match family {
                Family::InputPatch => ("input", input_size),
                _ => ("output", control_points),
            };
            if let Some(expected) = expected.filter(|&e| e != n) {
                self.error(
                    pcf_span,
                    format!(
                        "Patch constant function's {what} patch input should have {expected} elements, but has {n}."
                    ),
                );
            }
        }
    }

    /// Signature rules of entry points (semantics per stage, mesh shader objects).
    fn check_entry_signature(&mut self, f: DeclId, stage: Stage) {
        if self.diags.limit_reached() {
            return;
        }
        self.entry_interface_checks(f, stage);
    }
}

/// One input or output of an entry point after flattening structs: what the
/// interface checks look at.
#[derive(Clone, Debug)]
struct StageVar {
    name: String,
    name_span: Span,
    semantic: Option<(String, Span)>,
    ty: Ty,
    input: bool,
    output: bool,
    modifiers: Modifiers,
    attrs: Vec<Attribute>,
}

/// `ABC1` -> (`ABC`, 1); semantics compare without case.
fn split_semantic(s: &str) -> (String, u32) {
    let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (base, index) = s.split_at(s.len() - digits);
    (base.to_ascii_uppercase(), index.parse().unwrap_or(0))
}

impl Sema<'_> {
    /// Inputs and outputs of an entry point, structs flattened to their fields.
    fn stage_vars(&self, f: DeclId) -> Vec<StageVar> {
        let mut out = Vec::new();
        let DeclKind::Function(func) = &self.ast.decl(f).kind else { return out };
        for &p in &func.params {
            let decl = self.ast.decl(p);
            let DeclKind::Var(v) = &decl.kind else { continue };
            let dir = self.decls.get(p.index()).and_then(|i| i.direction).unwrap_or(ParamDirection::In);
            let input = dir != ParamDirection::Out;
            let output = dir != ParamDirection::In;
            let ty = self.decl_ty(p);
            let var = StageVar {
                name: v.name.map(|n| self.name(n.name).to_string()).unwrap_or_default(),
                name_span: v.name.map_or(decl.span, |n| n.span),
                semantic: semantic_of(self, &v.annotations),
                ty,
                input,
                output,
                modifiers: decl.modifiers,
                attrs: decl.attrs.clone(),
            };
            self.flatten_stage_var(var, &mut out, 0);
        }
        let ret = self.decl_ty(f);
        if !self.types.is_void(ret) && !self.types.is_error(ret) {
            let decl = self.ast.decl(f);
            let var = StageVar {
                name: String::new(),
                name_span: func.name.last().map_or(decl.span, |n| n.span),
                semantic: semantic_of(self, &func.annotations),
                ty: ret,
                input: false,
                output: true,
                modifiers: Modifiers::default(),
                attrs: decl.attrs.clone(),
            };
            self.flatten_stage_var(var, &mut out, 0);
        }
        out
    }

    fn flatten_stage_var(&self, var: StageVar, out: &mut Vec<StageVar>, depth: u32) {
        let mut elem = var.ty;
        while let TypeData::Array { elem: e, .. } = self.types.get(elem) {
            elem = *e;
        }
        let TypeData::Struct(sid) = self.types.get(elem) else {
            out.push(var);
            return;
        };
        if let (Some((semantic, span)), TypeData::Struct(_), true) =
            (&var.semantic, self.types.get(var.ty), depth <= 16)
        {
            // A semantic on a struct names its leaves in order, `X`, `X1`, ... (or from
            // the index written: `Y4`, `Y5`); each leaf takes its own locations.
            let (semantic, span) = (semantic.clone(), *span);
            let start = out.len();
            let unnamed = StageVar { semantic: None, ..var };
            self.struct_leaves(unnamed, out, depth + 1);
            let digits = semantic.len() - semantic.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            let (base, index) = semantic.split_at(semantic.len() - digits);
            let first: u32 = index.parse().unwrap_or(0);
            for (i, leaf) in out[start..].iter_mut().enumerate() {
                let n = first.saturating_add(i as u32);
                let name = if n == 0 && digits == 0 { base.to_string() } else { format!("{base}{n}") };
                leaf.semantic = Some((name, span));
            }
            return;
        }
        if var.semantic.is_some() || depth > 16 {
            out.push(var);
            return;
        }
        let Some(info) = self.types.struct_info(*sid) else { return };
        for field in &info.fields {
            let decl = self.ast.decl(field.decl);
            let DeclKind::Var(v) = &decl.kind else { continue };
            let f = StageVar {
                name: self.name(field.name).to_string(),
                name_span: v.name.map_or(decl.span, |n| n.span),
                semantic: semantic_of(self, &v.annotations),
                ty: field.ty,
                input: var.input,
                output: var.output,
                modifiers: Modifiers(decl.modifiers.0 | var.modifiers.0),
                attrs: decl.attrs.clone(),
            };
            self.flatten_stage_var(f, out, depth + 1);
        }
    }

    /// Every non-struct leaf of a struct-typed stage variable, the members' own
    /// semantics ignored (the struct's names them).
    fn struct_leaves(&self, var: StageVar, out: &mut Vec<StageVar>, depth: u32) {
        let TypeData::Struct(sid) = self.types.get(var.ty) else {
            out.push(var);
            return;
        };
        if depth > 16 {
            return;
        }
        let Some(info) = self.types.struct_info(*sid) else { return };
        let members =
            info.bases.iter().map(|&b| (b, None)).chain(info.fields.iter().map(|f| (f.ty, Some(f))));
        for (ty, field) in members {
            let leaf = match field {
                Some(field) => {
                    let decl = self.ast.decl(field.decl);
                    StageVar {
                        name: self.name(field.name).to_string(),
                        ty,
                        modifiers: Modifiers(decl.modifiers.0 | var.modifiers.0),
                        attrs: decl.attrs.clone(),
                        ..var.clone()
                    }
                }
                None => StageVar { ty, ..var.clone() },
            };
            self.struct_leaves(leaf, out, depth + 1);
        }
    }

    fn entry_interface_checks(&mut self, f: DeclId, stage: Stage) {
        let decl = self.ast.decl(f).clone();
        let DeclKind::Function(func) = &decl.kind else { return };
        let name_span = func.name.last().map_or(decl.span, |n| n.span);
        if stage == Stage::Mesh {
            self.mesh_checks(f, name_span);
        }
        if stage == Stage::Geometry {
            let kinds = [
                Modifiers::POINT,
                Modifiers::LINE,
                Modifiers::TRIANGLE,
                Modifiers::LINEADJ,
                Modifiers::TRIANGLEADJ,
            ];
            let prims: Vec<(Span, Modifiers)> = func
                .params
                .iter()
                .filter_map(|&p| {
                    let m = self.ast.decl(p).modifiers;
                    kinds.iter().find(|k| m.contains(**k)).map(|k| (self.ast.decl(p).span, *k))
                })
                .collect();
            // Several inputs may share one primitive type; two types conflict.
            if let Some((span, _)) = prims.iter().find(|(_, k)| *k != prims[0].1) {
                self.error(*span, "only one input primitive type can be specified in the geometry shader");
            }
            // Likewise one kind of output stream (PointStream, LineStream, TriangleStream).
            let streams: Vec<(Span, super::types::ObjectKind)> = func
                .params
                .iter()
                .filter_map(|&p| match self.types.get(self.decl_ty(p)) {
                    TypeData::Object { kind, .. } if kind.family() == Family::Stream => {
                        Some((self.ast.decl(p).span, *kind))
                    }
                    _ => None,
                })
                .collect();
            if let Some((span, _)) = streams.iter().find(|(_, k)| *k != streams[0].1) {
                self.error(*span, "only one output primitive type can be specified in the geometry shader");
            }
        }
        let vars = self.stage_vars(f);
        if matches!(stage, Stage::Mesh | Stage::Amplification) {
            for v in &vars {
                let mesh_object =
                    [Modifiers::VERTICES, Modifiers::INDICES, Modifiers::PRIMITIVES, Modifiers::PAYLOAD]
                        .iter()
                        .any(|m| v.modifiers.contains(*m));
                let builtin = v.attrs.iter().any(|a| self.name(a.name.name) == "builtin");
                if let Some((sem, _)) = &v.semantic {
                    if !mesh_object && !builtin && !sem.to_ascii_uppercase().starts_with("SV_") {
                        let prefix = stage.profile_prefix();
                        self.error(
                            v.name_span,
                            format!("invalid usage of semantic '{sem}' in shader profile {prefix}"),
                        );
                    }
                }
            }
        }
        // Duplicated semantics among inputs and among outputs.
        for (dir, label) in [(true, "input"), (false, "output")] {
            let mut seen: Vec<(String, u32)> = Vec::new();
            let mesh_object = [Modifiers::VERTICES, Modifiers::PRIMITIVES];
            for v in vars.iter().filter(|v| if dir { v.input } else { v.output }) {
                if mesh_object.iter().any(|m| v.modifiers.contains(*m)) {
                    continue;
                }
                let Some((sem, span)) = &v.semantic else { continue };
                let key = split_semantic(sem);
                if seen.contains(&key) {
                    if key.0 == "SV_TARGET" && !dir {
                        self.error(
                            *span,
                            format!("Multiple stage variables have a duplicated pair of location and index at {} / 0", key.1),
                        );
                    } else {
                        self.error(*span, format!("{label} semantic '{sem}' used more than once"));
                    }
                } else {
                    seen.push(key);
                }
            }
        }
        for v in &vars {
            let Some((sem, _)) = &v.semantic else { continue };
            let (base, _) = split_semantic(sem);
            let comp = self.types.component(v.ty);
            match base.as_str() {
                "SV_INNERCOVERAGE" if v.ty != TypeTable::UINT => {
                    self.error(v.name_span, "SV_InnerCoverage must be of uint type.");
                }
                "SV_CLIPDISTANCE" | "SV_CULLDISTANCE" => {
                    let mut elem = v.ty;
                    while let TypeData::Array { elem: e, .. } = self.types.get(elem) {
                        elem = *e;
                    }
                    let ok = matches!(self.types.get(elem), TypeData::Scalar(_) | TypeData::Vector(..))
                        && self.types.component(elem).is_some_and(|c| c.is_float());
                    if !ok {
                        let which =
                            if base == "SV_CLIPDISTANCE" { "SV_ClipDistance" } else { "SV_CullDistance" };
                        self.error(
                            v.name_span,
                            format!("elements for {which} variable '{}' must be scalar, vector, or array with float type", v.name),
                        );
                    }
                }
                _ => {}
            }
            let _ = comp;
        }
        if stage == Stage::Pixel {
            let interpolated = Modifiers(
                Modifiers::LINEAR.0
                    | Modifiers::CENTROID.0
                    | Modifiers::NOPERSPECTIVE.0
                    | Modifiers::SAMPLE.0,
            );
            for v in vars.iter().filter(|v| v.input) {
                let integer = self.types.component(v.ty).is_some_and(|c| !c.is_float());
                if integer && v.modifiers.0 & interpolated.0 != 0 {
                    self.error(
                        v.name_span,
                        "only nointerpolation mode allowed for integer input parameters in pixel shader",
                    );
                }
            }
        }
        if stage == Stage::Hull {
            let has_id = vars.iter().any(|v| {
                v.input
                    && v.semantic
                        .as_ref()
                        .is_some_and(|(s, _)| s.eq_ignore_ascii_case("SV_OutputControlPointID"))
            });
            if !has_id {
                self.error(name_span, "SV_OutputControlPointID semantic must be provided in hull shader");
            }
        }
        self.dual_source_checks(stage, &vars);
        self.builtin_and_location_checks(stage, &vars);
        let location_vars = self.location_vars(f, stage, &vars);
        let locations = self.assign_locations(stage, &location_vars);
        if let Some(entry) = self.entry_points.iter_mut().rev().find(|e| e.function == f) {
            entry.locations = locations;
        }
        let stencil = [
            "stencil_ref_unchanged_front",
            "stencil_ref_greater_equal_front",
            "stencil_ref_less_equal_front",
        ];
        let count = decl.attrs.iter().filter(|a| stencil.contains(&self.name(a.name.name))).count();
        if count > 1 {
            self.error(
                decl.span,
                "Shaders must not specify more than one of stencil_ref_unchanged_front, stencil_ref_greater_equal_front, and stencil_ref_less_equal_front.",
            );
        }
    }

    /// `[[vk::builtin]]` placement and types; `[[vk::location]]` collisions.
    fn builtin_and_location_checks(&mut self, stage: Stage, vars: &[StageVar]) {
        // Conflicts are per direction, but the semantic named in the report is the
        // first one given the location in either direction (inputs first), as dxc does.
        let mut first_owner: Vec<(u32, String)> = Vec::new();
        for dir in [true, false] {
            // (location, dual-source index, semantic) taken so far.
            let mut used: Vec<(u32, u32, String)> = Vec::new();
            for v in vars.iter().filter(|v| if dir { v.input } else { v.output }) {
                let Some(start) = self.stage_attr_value(v, "location") else { continue };
                let start = start.max(0) as u32;
                // `[[vk::index(1)]]` tells the second output of dual-source blending
                // apart from the first at the same location.
                let index = self.stage_attr_value(v, "index").map_or(0, |i| i.max(0) as u32);
                let width = self.location_count(v.ty);
                let sem = v.semantic.as_ref().map(|s| s.0.clone()).unwrap_or_default();
                for l in start..start + width {
                    if let Some((_, _, owner)) = used.iter().find(|(u, i, _)| *u == l && *i == index) {
                        let label = if dir { "input" } else { "output" };
                        let owner = first_owner
                            .iter()
                            .find(|(u, _)| *u == l)
                            .map_or_else(|| owner.clone(), |f| f.1.clone());
                        self.error(
                            v.name_span,
                            format!("stage {label} location #{l} already consumed by semantic '{owner}'"),
                        );
                        break;
                    }
                }
                for l in start..start + width {
                    used.push((l, index, sem.clone()));
                    if !first_owner.iter().any(|(u, _)| *u == l) {
                        first_owner.push((l, sem.clone()));
                    }
                }
            }
        }
        for v in vars {
            self.vk_builtin_checks(stage, v);
        }
    }

    /// dxc's checks of a `[[vk::builtin("X")]]` stage variable, every one reported:
    /// no `vk::location` with it, and the type and the signature point each built-in
    /// allows.
    fn vk_builtin_checks(&mut self, stage: Stage, v: &StageVar) {
        let Some(b) = v.attrs.iter().find(|a| self.name(a.name.name) == "builtin") else { return };
        let span = b.namespace.map_or(b.name.span, |n| n.span);
        let Some(&arg) = b.args.first() else { return };
        let ExprKind::StringLiteral(parts) = &self.ast.expr(arg).kind else { return };
        let text: String = parts.iter().map(|p| self.ast.name(*p).trim_matches('"').to_string()).collect();
        if v.attrs.iter().any(|a| self.name(a.name.name) == "location") {
            self.error(span, "cannot use vk::builtin and vk::location together");
        }
        let sig_point = self.sig_point(stage, v);
        let int32 = v.ty == TypeTable::INT || v.ty == TypeTable::UINT;
        match text.as_str() {
            "HelperInvocation" => {
                if v.ty != TypeTable::BOOL {
                    self.error(span, "HelperInvocation builtin must be of boolean type");
                }
                if sig_point != "PSIn" {
                    self.error(span, "HelperInvocation builtin can only be used as pixel shader input");
                }
            }
            "PointSize" => {
                if !matches!(self.types.get(v.ty), TypeData::Scalar(s) if s.is_float()) {
                    self.error(span, "PointSize builtin must be of float type");
                }
                if !matches!(
                    sig_point,
                    "VSOut"
                        | "HSCPIn"
                        | "HSCPOut"
                        | "DSCPIn"
                        | "DSOut"
                        | "GSVIn"
                        | "GSOut"
                        | "PSIn"
                        | "MSOut"
                ) {
                    self.error(span, format!("PointSize builtin cannot be used as {sig_point}"));
                }
            }
            "BaseVertex" | "BaseInstance" | "DrawIndex" => {
                if !int32 {
                    self.error(span, format!("{text} builtin must be of 32-bit scalar integer type"));
                }
                // DrawIndex is also a mesh and amplification shader input (dxc's
                // mesh shading tests declare it there).
                let allowed =
                    sig_point == "VSIn" || (text == "DrawIndex" && matches!(sig_point, "MSIn" | "ASIn"));
                if !allowed {
                    self.error(span, format!("{text} builtin cannot be used as {sig_point}"));
                }
            }
            "DeviceIndex" | "ViewIndex" => {
                if v.output {
                    self.error(span, format!("{text} builtin can only be used as shader input"));
                }
                if !int32 {
                    self.error(span, format!("{text} builtin must be of 32-bit scalar integer type"));
                }
            }
            _ => {}
        }
    }

    /// dxc's name of the signature point of an entry point's stage variable (`VSIn`,
    /// `PSOut`, `HSCPIn`, ...).
    fn sig_point(&self, stage: Stage, v: &StageVar) -> &'static str {
        let out = v.output;
        let patch = |s: &Self| {
            matches!(s.types.get(v.ty), TypeData::Object { kind, .. }
                if matches!(kind.family(), Family::InputPatch | Family::OutputPatch))
        };
        match stage {
            Stage::Vertex => {
                if out {
                    "VSOut"
                } else {
                    "VSIn"
                }
            }
            Stage::Pixel => {
                if out {
                    "PSOut"
                } else {
                    "PSIn"
                }
            }
            Stage::Hull if out => "HSCPOut",
            Stage::Hull => {
                if patch(self) {
                    "HSCPIn"
                } else {
                    "HSIn"
                }
            }
            Stage::Domain if out => "DSOut",
            Stage::Domain => {
                if patch(self) {
                    "DSCPIn"
                } else {
                    "DSIn"
                }
            }
            Stage::Geometry if out => "GSOut",
            Stage::Geometry => {
                // Per-vertex inputs are the primitive's arrays (their fields flattened).
                let per_vertex = [
                    Modifiers::POINT,
                    Modifiers::LINE,
                    Modifiers::TRIANGLE,
                    Modifiers::LINEADJ,
                    Modifiers::TRIANGLEADJ,
                ]
                .iter()
                .any(|m| v.modifiers.contains(*m));
                if per_vertex || matches!(self.types.get(v.ty), TypeData::Array { .. }) {
                    "GSVIn"
                } else {
                    "GSIn"
                }
            }
            Stage::Mesh => {
                if out {
                    "MSOut"
                } else {
                    "MSIn"
                }
            }
            Stage::Amplification => "ASIn",
            _ => "CSIn",
        }
    }

    /// Whether a stage variable takes a `Location` (is not a built-in): user semantics,
    /// `SV_Target`, and the system values a vertex shader reads as plain inputs.
    fn needs_location(&mut self, stage: Stage, v: &StageVar, input: bool) -> bool {
        if v.attrs.iter().any(|a| self.name(a.name.name) == "builtin") {
            return false;
        }
        // `[[vk::ext_decorate(11 /* BuiltIn */ | 30 /* Location */, ...)]]` places the
        // variable itself.
        let decorations: Vec<ExprId> = v
            .attrs
            .iter()
            .filter(|a| self.name(a.name.name) == "ext_decorate")
            .filter_map(|a| a.args.first().copied())
            .collect();
        for first in decorations {
            self.check_expr(first);
            if matches!(self.constant_of(first).and_then(|c| c.as_int()), Some(11 | 30)) {
                return false;
            }
        }
        let Some((sem, _)) = &v.semantic else { return false };
        let (base, _) = split_semantic(sem);
        if !base.starts_with("SV_") {
            return true;
        }
        if base == "SV_TARGET" {
            return !input;
        }
        stage == Stage::Vertex && input && !matches!(base.as_str(), "SV_VERTEXID" | "SV_INSTANCEID")
    }

    /// The stage variables that take locations: the entry's, with the elements of
    /// patches (inputs) and geometry streams (outputs) in their place, and for a hull
    /// shader its patch constant function's outputs after its own.
    fn location_vars(&self, f: DeclId, stage: Stage, vars: &[StageVar]) -> Vec<StageVar> {
        let mut out = Vec::new();
        let expand = |s: &Self, v: &StageVar, out: &mut Vec<StageVar>| {
            let mut elem = v.ty;
            while let TypeData::Array { elem: e, .. } = s.types.get(elem) {
                elem = *e;
            }
            let TypeData::Object { kind, args } = s.types.get(elem) else {
                out.push(v.clone());
                return;
            };
            let input = match kind.family() {
                Family::InputPatch | Family::OutputPatch => true,
                Family::Stream => false,
                _ => {
                    out.push(v.clone());
                    return;
                }
            };
            let Some(ObjectArg::Type(elem)) = args.first() else { return };
            let element = StageVar { ty: *elem, input, output: !input, semantic: None, ..v.clone() };
            s.flatten_stage_var(element, out, 0);
        };
        for v in vars {
            expand(self, v, &mut out);
        }
        if stage == Stage::Hull {
            let pcf = self.attribute_string(f, "patchconstantfunc").and_then(|name| {
                self.functions.iter().copied().find(|&g| match &self.ast.decl(g).kind {
                    DeclKind::Function(func) => {
                        func.body.is_some()
                            && func.name.segments.len() == 1
                            && func.name.last().is_some_and(|n| self.name(n.name) == name)
                    }
                    _ => false,
                })
            });
            if let Some(pcf) = pcf {
                for v in self.stage_vars(pcf).iter().filter(|v| v.output) {
                    let v = StageVar { input: false, ..v.clone() };
                    expand(self, &v, &mut out);
                }
            }
        }
        out
    }

    /// dxc's location assignment (see [`EntryPoint::locations`]); a direction mixing
    /// variables with and without `[[vk::location]]` is dxc's error.
    fn assign_locations(&mut self, stage: Stage, vars: &[StageVar]) -> Vec<StageLocation> {
        let mut out = Vec::new();
        for input in [true, false] {
            let mut dir_vars: Vec<&StageVar> = Vec::new();
            for v in vars.iter().filter(|v| if input { v.input } else { v.output }) {
                if self.needs_location(stage, v, input) {
                    dir_vars.push(v);
                }
            }
            let explicit = dir_vars
                .iter()
                .filter(|v| v.attrs.iter().any(|a| self.name(a.name.name) == "location"))
                .count();
            let semantic_of = |v: &StageVar| v.semantic.as_ref().map(|s| s.0.clone()).unwrap_or_default();
            if explicit > 0 && explicit == dir_vars.len() {
                for v in dir_vars {
                    let location = self.stage_attr_value(v, "location").unwrap_or(0).max(0) as u32;
                    let index = self.stage_attr_value(v, "index").unwrap_or(0).max(0) as u32;
                    out.push(StageLocation { semantic: semantic_of(v), input, location, index });
                }
                continue;
            }
            if explicit > 0 {
                let which = if input { "input" } else { "output" };
                self.report(crate::diag::Diagnostic::error(
                    None,
                    format!(
                        "partial explicit stage {which} location assignment via vk::location(X) unsupported"
                    ),
                ));
                continue;
            }
            let mut used: Vec<bool> = Vec::new();
            let take = |start: u32, count: u32, used: &mut Vec<bool>| {
                let end = (start + count) as usize;
                if used.len() < end {
                    used.resize(end, false);
                }
                used[start as usize..end].iter_mut().for_each(|u| *u = true);
            };
            let mut rest = Vec::new();
            for v in dir_vars {
                let sem = semantic_of(v);
                let (base, n) = split_semantic(&sem);
                if base == "SV_TARGET" {
                    // Bounded: semantic indices are parsed from a handful of digits.
                    let n = n.min(1 << 16);
                    take(n, 1, &mut used);
                    out.push(StageLocation { semantic: sem, input, location: n, index: 0 });
                } else {
                    rest.push((sem, self.location_count(v.ty).clamp(1, 1 << 16)));
                }
            }
            let alphabetical = self.opts.stage_io_order == StageIoOrder::Alpha
                || (!input && stage == Stage::Hull)
                || (input && stage == Stage::Domain);
            if alphabetical {
                // Byte order of the semantic strings as written, stable like dxc's sort.
                rest.sort_by(|a, b| a.0.cmp(&b.0));
            }
            for (sem, count) in rest {
                // The first free run of `count` locations; a taken one moves past itself.
                let mut start = 0u32;
                while let Some(l) =
                    (start..start + count).rev().find(|&l| used.get(l as usize) == Some(&true))
                {
                    start = l + 1;
                }
                take(start, count, &mut used);
                out.push(StageLocation { semantic: sem, input, location: start, index: 0 });
            }
        }
        out
    }

    /// The constant argument of a stage variable's `[[vk::NAME(N)]]` attribute.
    fn stage_attr_value(&mut self, v: &StageVar, name: &str) -> Option<i64> {
        let attr = v.attrs.iter().find(|a| self.name(a.name.name) == name)?;
        let &arg = attr.args.first()?;
        self.check_expr(arg);
        self.constant_of(arg).and_then(|c| c.as_int())
    }

    /// `[[vk::index(N)]]` (dual-source blending): pixel outputs only, with
    /// `[[vk::location(0)]]`, and N 0 or 1; dxc's wording and positions.
    fn dual_source_checks(&mut self, stage: Stage, vars: &[StageVar]) {
        for v in vars {
            let Some(index_attr) = v.attrs.iter().find(|a| self.name(a.name.name) == "index") else {
                continue;
            };
            let index_span = index_attr.namespace.map_or(index_attr.name.span, |n| n.span);
            let location_attr = v.attrs.iter().find(|a| self.name(a.name.name) == "location");
            let location_span = location_attr.map(|a| a.namespace.map_or(a.name.span, |n| n.span));
            if stage != Stage::Pixel {
                self.error(index_span, "vk::index only allowed in pixel shader");
            }
            let Some(location_span) = location_span else {
                self.error(
                    index_span,
                    "vk::index should be used together with vk::location for dual-source blending",
                );
                continue;
            };
            if stage != Stage::Pixel {
                continue;
            }
            if self.stage_attr_value(v, "location").is_some_and(|l| l != 0) {
                self.error(location_span, "dual-source blending should use vk::location 0");
            }
            if self.stage_attr_value(v, "index").is_some_and(|i| i != 0 && i != 1) {
                self.error(index_span, "dual-source blending only accepts 0 or 1 as vk::index");
            }
        }
    }

    /// Locations a stage variable occupies (64-bit vectors of 3-4 take two).
    fn location_count(&self, ty: Ty) -> u32 {
        match self.types.get(ty) {
            TypeData::Vector(s, n) if s.bits(false) == 64 && *n > 2 => 2,
            TypeData::Matrix { rows, .. } => u32::from(*rows),
            TypeData::Array { elem, len } => self.location_count(*elem) * len.unwrap_or(1),
            _ => 1,
        }
    }

    fn mesh_checks(&mut self, f: DeclId, name_span: Span) {
        let DeclKind::Function(func) = self.ast.decl(f).kind.clone() else { return };
        let topology = self.attribute(f, "outputtopology").and_then(|a| {
            a.args.first().and_then(|&e| match &self.ast.expr(e).kind {
                ExprKind::StringLiteral(parts) => Some(
                    parts.iter().map(|p| self.ast.name(*p).trim_matches('"').to_string()).collect::<String>(),
                ),
                _ => None,
            })
        });
        let mut seen: Vec<(&str, Option<u32>)> = Vec::new();
        for &p in &func.params {
            let decl = self.ast.decl(p).clone();
            let DeclKind::Var(v) = &decl.kind else { continue };
            let name_of = v.name.map_or(decl.span, |n| n.span);
            let which = if decl.modifiers.contains(Modifiers::VERTICES) {
                "vertices"
            } else if decl.modifiers.contains(Modifiers::INDICES) {
                "indices"
            } else if decl.modifiers.contains(Modifiers::PRIMITIVES) {
                "primitives"
            } else if decl.modifiers.contains(Modifiers::PAYLOAD) {
                if decl.modifiers.contains(Modifiers::OUT) || decl.modifiers.contains(Modifiers::INOUT) {
                    self.error(decl.span, "'payload' object must be an in parameter");
                }
                continue;
            } else {
                continue;
            };
            if seen.iter().any(|(w, _)| *w == which) {
                self.error(name_of, format!("only one object with '{which}' modifier is allowed"));
                continue;
            }
            if !decl.modifiers.contains(Modifiers::OUT) {
                self.error(decl.span, format!("'{which}' object must be an out parameter"));
            }
            let ty = self.decl_ty(p);
            let (elem, len) = match self.types.get(ty) {
                TypeData::Array { elem, len } if !matches!(self.types.get(*elem), TypeData::Array { .. }) => {
                    (*elem, *len)
                }
                _ => {
                    self.error(name_of, "expected 1D array of indices/vertices/primitives object");
                    seen.push((which, None));
                    continue;
                }
            };
            if which == "indices" {
                let want = match topology.as_deref() {
                    Some("line") => Some(2u8),
                    Some("triangle") => Some(3),
                    _ => None,
                };
                if let Some(n) = want {
                    if self.types.get(elem) != &TypeData::Vector(Scalar::UInt, n) {
                        self.error(name_of, format!("expected 1D array of uint{n} type"));
                    }
                }
            }
            seen.push((which, len));
        }
        let get = |w: &str| seen.iter().find(|(x, _)| *x == w).map(|(_, l)| *l);
        if get("vertices").is_none() {
            self.error(name_span, "expected vertices object declaration");
        }
        if get("indices").is_none() {
            self.error(name_span, "expected indices object declaration");
        }
        if let (Some(Some(p)), Some(Some(i))) = (get("primitives"), get("indices")) {
            if p != i {
                self.error(name_span, "array size of primitives object should match 'indices' object");
            }
        }
    }
}

fn semantic_of(sema: &Sema, annotations: &[Annotation]) -> Option<(String, Span)> {
    annotations.iter().find_map(|a| match a {
        Annotation::Semantic(s) => Some((sema.name(s.name).to_string(), s.span)),
        _ => None,
    })
}
