//! The compile pipeline after the front end: code generation (`spirvkit-codegen`),
//! the module's capabilities and extensions from what it uses, and serialization
//! (`spirvkit-translate`); the binary, its disassembly or the IR's MLIR text.

use crate::options::{DebugCategories, Options, ShiftValue};
use crate::spirv_values;
use spirvkit_codegen::{BindingOptions, CodegenOptions, LayoutOption, LowerOptions};
use spirvkit_hlsl::diag::{Diagnostic, Severity};
use spirvkit_hlsl::sema::tree::TypedTree;
use spirvkit_hlsl::source::{SourceFile, SourceMap};
use spirvkit_ir::attr::Attribute;
use spirvkit_translate::SerializeOptions;

/// What the compile produced.
pub enum Output {
    Binary(Vec<u32>),
    Text(String),
}

/// Why compiling failed, with where in the source when known.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct CompileError {
    pub span: Option<spirvkit_hlsl::source::Span>,
    pub message: String,
}

#[allow(non_snake_case)]
fn CompileError(message: String) -> CompileError {
    CompileError { span: None, message }
}

pub fn codegen_options(o: &Options) -> CodegenOptions {
    let has = |name: &str| o.other.iter().any(|(n, _)| n == name);
    let (major, minor) =
        spirv_values::target_env_spirv_version(o.target_env.as_deref().unwrap_or("vulkan1.0"))
            .unwrap_or((1, 0));
    let layout = if has("-fvk-use-dx-layout") {
        LayoutOption::Dx
    } else if has("-fvk-use-scalar-layout") {
        LayoutOption::Scalar
    } else if has("-fvk-use-gl-layout") {
        LayoutOption::Gl
    } else {
        LayoutOption::Default
    };
    let mut bindings = BindingOptions::default();
    for s in &o.binding_shifts {
        let shift = match s.shift {
            ShiftValue::Number(n) => n,
            ShiftValue::All => 0,
        };
        let space = match s.space {
            ShiftValue::Number(n) => Some(n),
            ShiftValue::All => None,
        };
        bindings.shifts.push((s.register, shift, space));
    }
    for r in &o.register_bindings {
        bindings.registers.push((r.register.clone(), r.space, r.binding, r.set));
    }
    bindings.globals = o.globals_binding.map(|g| (g.binding, g.set));
    bindings.resource_heap = o.resource_heap_binding.map(|g| (g.binding, g.set));
    bindings.sampler_heap = o.sampler_heap_binding.map(|g| (g.binding, g.set));
    bindings.counter_heap = o.counter_heap_binding.map(|g| (g.binding, g.set));
    bindings.flatten_arrays = has("-fspv-flatten-resource-arrays");
    bindings.auto_shift = has("-fvk-auto-shift-bindings");
    bindings.auto_space = o
        .other
        .iter()
        .find(|(n, _)| n == "-auto-binding-space")
        .and_then(|(_, v)| v.first())
        .and_then(|v| v.parse().ok());
    CodegenOptions {
        lower: LowerOptions { sixteen_bit_types: o.enable_16bit_types, default_row_major: has("-Zpr") },
        spirv_version: (major as u8, minor as u8),
        unknown_image_format: has("-fspv-use-unknown-image-format"),
        allowed_extensions: o.extensions.clone(),
        layout,
        bindings,
        invert_y: has("-fvk-invert-y"),
        dx_position_w: has("-fvk-use-dx-position-w"),
        nonzero_base_instance: has("-fvk-support-nonzero-base-instance"),
        nonzero_base_vertex: has("-fvk-support-nonzero-base-vertex"),
        short_circuit: o.hlsl_version >= 2021,
        finite_math_only: has("-ffinite-math-only"),
        extensions: o.extensions.clone(),
        universal_env: o.target_env.as_deref().is_some_and(|e| e.starts_with("universal")),
        no_warn_ignored_features: has("-Wno-vk-ignored-features"),
        debug_lines: o.debug_categories().line,
        maximal_reconvergence: has("-fspv-enable-maximal-reconvergence"),
        reflect: has("-fspv-reflect"),
        denorm: o.other.iter().find(|(n, _)| n == "-denorm").and_then(|(_, v)| v.last()).cloned(),
    }
}

/// Compiles the typed tree: the binary (or with `emit_mlir`, the IR's text).
pub fn compile(tree: &TypedTree, o: &Options, emit_mlir: bool) -> Result<Output, CompileError> {
    compile_reporting(tree, o, emit_mlir, &mut Vec::new())
}

/// [`compile`], with every diagnostic of code generation in `reported`, in order: the
/// warnings, the errors after which generation went on, and the error that stopped
/// it (a message's `\nnote: ` lines become notes). With errors there, the result is
/// the first of them.
pub fn compile_reporting(
    tree: &TypedTree,
    o: &Options,
    emit_mlir: bool,
    reported: &mut Vec<Diagnostic>,
) -> Result<Output, CompileError> {
    compile_with_sources(tree, None, o, emit_mlir, reported)
}

/// [`compile_reporting`] with the files the tree was parsed from (the main file
/// first), which debug output (`-Zi`, `-fspv-debug=`) names, embeds and points into.
pub fn compile_with_sources(
    tree: &TypedTree,
    sources: Option<&SourceMap>,
    o: &Options,
    emit_mlir: bool,
    reported: &mut Vec<Diagnostic>,
) -> Result<Output, CompileError> {
    let result = compile_inner(tree, sources, o, emit_mlir, reported);
    if let Err(e) = &result {
        let mut parts = e.message.split("\nnote: ");
        let mut diag = Diagnostic::error(e.span, parts.next().unwrap_or_default());
        for note in parts {
            diag = diag.with_note(None, note);
        }
        reported.push(diag);
    }
    let first_error = reported.iter().find(|d| d.severity == Severity::Error);
    match (result, first_error) {
        (Ok(_), Some(first)) => Err(CompileError { span: first.span, message: first.message.clone() }),
        (result, _) => result,
    }
}

fn compile_inner(
    tree: &TypedTree,
    sources: Option<&SourceMap>,
    o: &Options,
    emit_mlir: bool,
    reported: &mut Vec<Diagnostic>,
) -> Result<Output, CompileError> {
    // The Vulkan memory model changes more than the OpMemoryModel (QueueFamily scopes,
    // availability/visibility operands instead of Coherent): refused, never ignored.
    // (The front end accepts the option, as dxc's does.)
    if o.other.iter().any(|(n, _)| n == "-fspv-use-vulkan-memory-model") {
        return Err(CompileError {
            span: None,
            message: "not supported yet: -fspv-use-vulkan-memory-model".into(),
        });
    }
    let options = codegen_options(o);
    let (generated, mut codegen_reported) = spirvkit_codegen::generate_with_sources(tree, &options, sources);
    reported.append(&mut codegen_reported);
    let generated = generated.map_err(|e| CompileError { span: e.span, message: e.to_string() })?;
    if reported.iter().any(|d| d.severity == Severity::Error) {
        // Reported already; the module is not to be used.
        return Ok(Output::Text(String::new()));
    }
    let mut ir = generated.ir;
    let module = generated.module;
    // dxc legalizes unless -fcgl: resources out of locals and parameters, calls
    // inlined, memory promoted to values (crates/passes' legalization).
    let fcgl = o.other.iter().any(|(n, _)| n == "-fcgl");
    // -O1..-O3 (the default) legalize and optimize; -O0/-Od legalize only a module
    // that needs it (dxc's rule), leaving the others in the raw form.
    let optimize = o.optimization_level > 0 && !o.disable_optimizations;
    let legalize = !fcgl && (optimize || needs_legalization(&ir, module, o));
    if legalize {
        spirvkit_passes::legalize::legalize(&mut ir, module)
            .map_err(|e| CompileError { span: None, message: e.to_string() })?;
        if optimize {
            spirvkit_passes::legalize::optimize(&mut ir, module);
        }
        derivatives_in_stage(&ir, module, tree)?;
    } else {
        raw_stores_match(&ir, module)?;
        if !fcgl {
            derivatives_in_stage(&ir, module, tree)?;
        }
    }
    if emit_mlir {
        let text = spirvkit_ir::text::printer::print_op(&ir, generated.top, Default::default());
        return Ok(Output::Text(text));
    }
    // Capabilities and extensions: what the written words need, by the grammar.
    let version = o.profile.map_or(600, |p| p.major * 100 + p.minor * 10);
    let debug = o.debug_categories();
    spirvkit_ir::source::set_module_sources(&mut ir, module, &module_sources(sources, debug, version));
    let mut serialize = SerializeOptions {
        check_requirements: false,
        emit_op_names: true,
        dxc_decoration_order: true,
        dxc_constants_first: true,
        struct_names: generated.struct_names.into_iter().collect(),
        unnamed_variables: generated.unnamed_symbols.into_iter().collect(),
        binding_order: generated.binding_order,
        ..SerializeOptions::default()
    };
    serialize.emit_symbol_names = true;
    serialize.dxc_debug_lines = debug.line;
    if debug.tool && tool_target(o) {
        serialize.module_processed = tool_records(o);
    }
    // `-fspv-entrypoint-name=NAME`: the entry point's name, its function keeping its own.
    let entry_name = o.other.iter().find(|(n, _)| n == "-fspv-entrypoint-name").and_then(|(_, v)| v.first());
    if let (Some(entry_name), Some(function)) = (entry_name, o.entry.as_ref()) {
        serialize.entry_point_names.insert(function.clone(), entry_name.clone());
    }
    for _ in 0..8 {
        let written = spirvkit_translate::serialize::serialize_read_back(&ir, module, &serialize)
            .map_err(|e| CompileError(format!("internal error: {e}")))?;
        if written.undeclared().is_empty() {
            return Ok(Output::Binary(written.into_words()));
        }
        let mut added = false;
        for missing in written.undeclared() {
            if let Some(caps) = missing.requirement.strip_prefix("capability ") {
                // Of the alternatives, the first a shader may declare (OpImageQuerySize
                // takes Kernel or ImageQuery).
                let mut alternatives = caps.split(" or ");
                let cap = alternatives
                    .clone()
                    .find(|c| !matches!(*c, "Kernel" | "Addresses" | "Linkage"))
                    .or_else(|| alternatives.next())
                    .unwrap_or(caps);
                added |= add_to_vce(&mut ir, module, 1, cap);
                // A capability outside the core version needs its extension declared
                // too (spirv-val checks declarations; the requirement scan does not).
                if let Some(ext) = capability_extension(cap, options.spirv_version) {
                    if !o.extensions.is_empty() && !o.extensions.iter().any(|e| e == ext || e == "KHR") {
                        return Err(CompileError(format!(
                            "SPIR-V extension '{ext}' required for {} but not permitted to use",
                            missing.user
                        )));
                    }
                    added |= add_to_vce(&mut ir, module, 2, ext);
                }
            } else if let Some(exts) = missing.requirement.strip_prefix("extension ") {
                let ext = exts.split(" or ").next().unwrap_or(exts);
                if !o.extensions.is_empty() && !o.extensions.iter().any(|e| e == ext || e == "KHR") {
                    return Err(CompileError(format!(
                        "SPIR-V extension '{ext}' required for {} but not permitted to use",
                        missing.user
                    )));
                }
                added |= add_to_vce(&mut ir, module, 2, ext);
            } else {
                return Err(CompileError(format!(
                    "{} requires SPIR-V {}, which the target environment does not have",
                    missing.user,
                    missing.requirement.trim_start_matches("version ")
                )));
            }
        }
        if !added {
            break;
        }
    }
    Err(CompileError("internal error: the module's capabilities did not settle".into()))
}

/// dxc's `OpSource`s: the main file's (named with `-fspv-debug=file`, with its text
/// with `source`), then with `source` one per file it included from disk, in the
/// order they were read.
fn module_sources(
    sources: Option<&SourceMap>,
    debug: DebugCategories,
    version: u32,
) -> Vec<spirvkit_ir::source::ModuleSource> {
    let hlsl = |file: Option<&str>, text: Option<&str>| spirvkit_ir::source::ModuleSource {
        language: "HLSL".into(),
        version,
        file: file.map(str::to_string),
        text: text.map(str::to_string),
    };
    let files: Vec<&SourceFile> = sources.map_or_else(Vec::new, |s| s.files().map(|(_, f)| f).collect());
    let Some(main) = files.first().filter(|_| debug.file) else { return vec![hlsl(None, None)] };
    let mut all = vec![hlsl(Some(&main.name), debug.source.then_some(main.text.as_str()))];
    if debug.source {
        for include in files.iter().skip(1).filter(|f| f.path.is_some()) {
            all.push(hlsl(Some(&include.name), Some(&include.text)));
        }
    }
    all
}

/// dxc records the tool only for Vulkan 1.1 and later.
fn tool_target(o: &Options) -> bool {
    o.target_env
        .as_deref()
        .is_some_and(|env| env.strip_prefix("vulkan").is_some_and(|v| v != "1.0" && !v.starts_with("1.0")))
}

/// The `OpModuleProcessed` strings of `-fspv-debug=tool`: the compiler, then the
/// input file and the other options in dxc's form.
fn tool_records(o: &Options) -> Vec<String> {
    let mut records = vec![format!("hlsl2spirv-version: {}", env!("CARGO_PKG_VERSION"))];
    let input = o.input.as_deref().unwrap_or("");
    let mut line = format!("dxc-cl-option: {input}");
    for argument in o.arguments.iter().filter(|a| a.as_str() != input) {
        line.push(' ');
        line.push_str(argument);
    }
    records.push(line);
    records
}

/// The extension capability `cap` needs at SPIR-V `version`: none when the version
/// has it, else the first the grammar lists (dxc's choice where there are several,
/// `SPV_NV_shader_subgroup_partitioned` before the EXT one).
fn capability_extension(cap: &str, version: (u8, u8)) -> Option<&'static str> {
    let e = spirvkit_grammar::OperandKind::Capability.info().enumerant_by_name(cap)?;
    let a = &e.availability;
    let in_core = a.min_version.is_some_and(|v| (v.major, v.minor) <= version);
    if in_core {
        return None;
    }
    a.extensions.first().copied()
}

/// The raw (`-fcgl`) form keeps resources in locals; HLSL lets a local image of
/// one format take an image of another (`[[vk::image_format]]`), which legalization
/// resolves by removing the local, but which written raw would be a store of a
/// mismatched type (an invalid binary): refused instead.
/// Whether dxc legalizes this module at `-O0`: what the raw form holds needs it
/// (`spirvkit_passes::legalize::needs_legalization`), a store of a value of another
/// type (an image of another `[[vk::image_format]]`) is in it, or an option asks for
/// what legalization does (flattened resource arrays, reduced load sizes, packed
/// signatures).
fn needs_legalization(ir: &spirvkit_ir::Ir, module: spirvkit_ir::OpId, o: &Options) -> bool {
    const LEGALIZING_OPTIONS: [&str; 4] =
        ["-fspv-flatten-resource-arrays", "-fspv-reduce-load-size", "-pack-optimized", "-pack_optimized"];
    o.other.iter().any(|(n, _)| LEGALIZING_OPTIONS.contains(&n.as_str()))
        || spirvkit_passes::legalize::needs_legalization(ir, module)
        || raw_stores_match(ir, module).is_err()
}

fn raw_stores_match(ir: &spirvkit_ir::Ir, module: spirvkit_ir::OpId) -> Result<(), CompileError> {
    use spirvkit_ir::types::TypeKind;
    for (_, op) in ir.ops_under(module) {
        let o = ir.op(op);
        if o.name != "spirv.Store" || o.operands.len() != 2 {
            continue;
        }
        let (ptr, value) = (o.operands[0], o.operands[1]);
        if let TypeKind::Pointer { pointee, .. } = ir.types.kind(ir.value_type(ptr)) {
            if *pointee != ir.value_type(value) {
                return Err(CompileError {
                    span: None,
                    message: "not supported yet: -fcgl output storing a value of another type (an image of \
                              another format) into a local; without -fcgl legalization removes the local"
                        .into(),
                });
            }
        }
    }
    Ok(())
}

/// Derivatives left after legalization (dead branches gone) outside the stages that
/// have them make an invalid module: refused in spirv-val's words, as dxc's
/// validation reports it.
fn derivatives_in_stage(
    ir: &spirvkit_ir::Ir,
    module: spirvkit_ir::OpId,
    tree: &TypedTree,
) -> Result<(), CompileError> {
    use spirvkit_hlsl::sema::tree::Stage;
    let stage = tree.entry_points.first().map(|e| e.stage);
    if matches!(stage, Some(Stage::Pixel | Stage::Compute | Stage::Mesh | Stage::Amplification) | None) {
        return Ok(());
    }
    const DERIVATIVES: [&str; 9] = [
        "DPdx",
        "DPdy",
        "Fwidth",
        "DPdxFine",
        "DPdyFine",
        "FwidthFine",
        "DPdxCoarse",
        "DPdyCoarse",
        "FwidthCoarse",
    ];
    for (_, op) in ir.ops_under(module) {
        let name = ir.op(op).name.as_str();
        if let Some(d) = name.strip_prefix("spirv.").filter(|d| DERIVATIVES.contains(d)) {
            return Err(CompileError(format!(
                "generated SPIR-V is invalid:\nDerivative instructions require Fragment, GLCompute, MeshEXT or TaskEXT execution model: {d}"
            )));
        }
    }
    Ok(())
}

/// Adds a capability (part 1) or extension (part 2) to the module's `#spirv.vce<...>`.
fn add_to_vce(ir: &mut spirvkit_ir::Ir, module: spirvkit_ir::OpId, part: usize, item: &str) -> bool {
    let op = ir.op_mut(module);
    for p in op.properties.iter_mut() {
        if p.name != "vce_triple" {
            continue;
        }
        let Attribute::Dialect { body: Some(body), .. } = &mut p.value else { continue };
        // body: `v1.0, [Shader], []`
        let Some(open1) = body.find('[') else { return false };
        let Some(close1) = body[open1..].find(']').map(|i| i + open1) else { return false };
        let Some(open2) = body[close1..].find('[').map(|i| i + close1) else { return false };
        let Some(close2) = body[open2..].find(']').map(|i| i + open2) else { return false };
        let (open, close) = if part == 1 { (open1, close1) } else { (open2, close2) };
        let list: Vec<String> = body[open + 1..close]
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        if list.iter().any(|x| x == item) {
            return false;
        }
        let mut list = list;
        list.push(item.to_string());
        body.replace_range(open + 1..close, &list.join(", "));
        return true;
    }
    false
}
