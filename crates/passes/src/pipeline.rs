//! Pass pipelines as `mlir-opt` takes them: the textual form of `--pass-pipeline`
//! (`builtin.module(spirv.module(inline{default-pipeline=''}))`) and individual pass
//! flags (`--canonicalize`, `-spirv-update-vce`, `--inline=default-pipeline=`), both
//! parsed into one model: a [`Pipeline`] anchored on an op name, holding passes and
//! nested pipelines, which `opt` runs.
//!
//! Parsing follows mlir-opt 22 in three steps, each with its errors worded and located
//! as mlir-opt words them:
//!
//! 1. syntax: names separated by `,`, a name followed by `(...)` is a nested pipeline
//!    anchored on that op name, by `{...}` the pass's options (braces balanced, quotes
//!    not considered);
//! 2. names: every pass name must be one mlir-opt registers (spirvkit reports the ones
//!    it does not implement as "not supported yet");
//! 3. adding: options are parsed (`key=value` separated by spaces, values possibly
//!    quoted or braced) and a pass restricted to one op (`spirv-update-vce` runs on
//!    `spirv.module`) must be added to a pipeline anchored on that op. Pass flags nest
//!    such passes implicitly instead.

mod mlir_passes;

use spirvkit_ir::diag::{render_message, Severity};

/// The anchor that matches every op isolated from above.
pub const ANY_ANCHOR: &str = "any";

/// The name MLIR gives the pipeline text in its parse errors.
const PARSER_BUFFER_NAME: &str = "MLIR Textual PassPipeline Parser";

/// The tool name LLVM's option parser prefixes its complaints with.
const TOOL_NAME: &str = "spirvkit";

/// Pipelines nested deeper than this are refused (the runner recurses on nesting).
const MAX_NESTING: usize = 128;

const WRAP_MESSAGE: &str =
    "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'";

/// A pass manager: the passes and nested pipelines that run, in order, on each op
/// named `anchor` (or on every op isolated from above for [`ANY_ANCHOR`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    pub anchor: String,
    pub items: Vec<PipelineItem>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PipelineItem {
    Pass(Pass),
    /// Runs on the ops directly nested in the current op whose name is the anchor.
    Nested(Pipeline),
}

/// The passes `spirvkit opt` implements, with their options.
#[derive(Clone, Debug, PartialEq)]
pub enum Pass {
    /// `-test-spirv-op-availability`: print each op's requirements.
    TestOpAvailability,
    /// `--canonicalize`: folds, then dead pure ops removed.
    Canonicalize(CanonicalizeOptions),
    /// `-spirv-rewrite-inserts`: complete insert chains become one construct.
    RewriteInserts,
    /// `-decorate-spirv-composite-type-layout`: Vulkan layout for interface structs.
    DecorateLayout,
    /// `-spirv-canonicalize-gl`: comparison/select pairs into GL clamps.
    CanonicalizeGl,
    /// `-spirv-lower-abi-attrs`: entry-point ABI attributes into variables and entry points.
    LowerAbiAttrs,
    /// `--spirv-webgpu-prepare`: extended multiply/add-carry expanded for WGSL.
    WebGpuPrepare,
    /// `--cse`: common subexpression elimination.
    Cse,
    /// `-spirv-update-vce`: deduce the module's version/capability/extension triple.
    UpdateVce,
    /// `-spirv-unify-aliased-resource`: aliased resources sharing a binding merged.
    UnifyAliasedResource,
    /// `--inline`: calls replaced by the callee's body.
    Inline(InlineOptions),
    /// spirvkit's legalization passes for Vulkan (`--spirv-legalize` and its steps).
    Legalize(LegalizeStep),
    /// `-convert-spirv-to-llvm`: the SPIR-V dialect lowered to the LLVM dialect.
    ConvertSpirvToLlvm(crate::convert_spirv_to_llvm::ConvertOptions),
    /// `--lower-host-to-llvm`: SPIR-V kernel symbols encoded with their module's name.
    LowerHostToLlvm,
    /// `--spirv-cpu-kernel-interface`: prints the compute entry point's interface as the
    /// CPU runner sees it (spirvkit's own; the module is unchanged).
    CpuKernelInterface,
}

/// One of the legalization passes (see `crate::legalize`), each run on a `spirv.module`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegalizeStep {
    /// `--spirv-merge-return`: one return at the end of each function.
    MergeReturn,
    /// `--spirv-inline-all`: every call inlined, unreachable functions removed.
    InlineAll,
    /// `--spirv-private-to-local`: Private globals one function uses made local.
    PrivateToLocal,
    /// `--spirv-sroa`: aggregate Function variables split per member.
    Sroa,
    /// `--spirv-mem2reg`: Function variables promoted to SSA values.
    Mem2Reg,
    /// `--spirv-dce`: dead ops and store-only variables removed.
    Dce,
    /// `--spirv-legalize`: all of the above, then the opaque-handle check.
    All,
    /// `--spirv-value-numbering`: redundant pure ops and read-only loads removed
    /// (not part of `--spirv-legalize`; dxc's optimization levels above `-O0`).
    ValueNumbering,
}

/// `region-simplify` of `--canonicalize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionSimplify {
    Disabled,
    Normal,
    Aggressive,
}

/// The options of `--canonicalize`, with MLIR's defaults. Accepted for compatibility;
/// the pass runs to a fixpoint whatever they say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CanonicalizeOptions {
    pub top_down: bool,
    pub region_simplify: RegionSimplify,
    pub max_iterations: i64,
    pub max_num_rewrites: i64,
    /// Only makes MLIR check that the fixpoint was reached.
    pub test_convergence: bool,
    pub disable_patterns: Vec<String>,
    pub enable_patterns: Vec<String>,
}

impl Default for CanonicalizeOptions {
    fn default() -> Self {
        CanonicalizeOptions {
            top_down: true,
            region_simplify: RegionSimplify::Normal,
            max_iterations: 10,
            max_num_rewrites: -1,
            test_convergence: false,
            disable_patterns: Vec::new(),
            enable_patterns: Vec::new(),
        }
    }
}

/// The options of `--inline`, with MLIR's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct InlineOptions {
    /// The pipeline run on callables without an `op_pipelines` entry, as text: MLIR
    /// parses it (and reports its errors, without failing) when the pass first needs it.
    pub default_pipeline: String,
    /// Pipelines for callables by op name (`spirv.func(cse)`).
    pub op_pipelines: Vec<Pipeline>,
    /// Rounds of simplify-then-inline per strongly connected component of calls.
    pub max_iterations: u32,
    /// Largest callee/caller op-count ratio, in percent, still inlined.
    pub inlining_threshold: u32,
}

impl Default for InlineOptions {
    fn default() -> Self {
        InlineOptions {
            default_pipeline: "canonicalize".to_string(),
            op_pipelines: Vec::new(),
            max_iterations: 4,
            inlining_threshold: u32::MAX,
        }
    }
}

/// Why a pipeline could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipelineError {
    /// Passes mlir-opt has that spirvkit does not implement (as named on the command line).
    Unsupported(Vec<String>),
    /// What mlir-opt reports: `raw` is written to standard error as is (LLVM's option
    /// parser's complaints), `message` is an error diagnostic without a location.
    Mlir { raw: String, message: String },
}

impl PipelineError {
    fn mlir(message: impl Into<String>) -> Self {
        PipelineError::Mlir { raw: String::new(), message: message.into() }
    }

    /// The standard-error text mlir-opt prints for a command-line pipeline.
    pub fn render(&self) -> String {
        match self {
            PipelineError::Unsupported(names) => {
                names.iter().map(|n| format!("error: not supported yet: pass {n}\n")).collect()
            }
            PipelineError::Mlir { raw, message } => format!("{raw}<unknown>:0: error: {message}\n"),
        }
    }

    /// The text MLIR prints straight to standard error when a pipeline given in a pass
    /// option (the inliner's `default-pipeline`) does not parse.
    pub fn render_raw(&self) -> String {
        match self {
            PipelineError::Unsupported(_) => self.render(),
            PipelineError::Mlir { raw, message } => format!("{raw}{message}"),
        }
    }
}

/// What a pass is: its name, the op it is restricted to, and MLIR's class name (which
/// MLIR's errors quote).
struct PassInfo {
    name: &'static str,
    /// `None`: runs on any op.
    restriction: Option<&'static str>,
    class: &'static str,
}

const PASSES: &[PassInfo] = &[
    PassInfo {
        name: "test-spirv-op-availability",
        restriction: Some("builtin.module"),
        class: "(anonymous namespace)::PrintOpAvailability",
    },
    PassInfo { name: "canonicalize", restriction: None, class: "Canonicalizer" },
    PassInfo {
        name: "spirv-rewrite-inserts",
        restriction: Some("spirv.module"),
        class: "SPIRVRewriteInsertsPass",
    },
    PassInfo {
        name: "decorate-spirv-composite-type-layout",
        restriction: Some("builtin.module"),
        class: "SPIRVCompositeTypeLayoutPass",
    },
    PassInfo { name: "spirv-canonicalize-gl", restriction: None, class: "SPIRVCanonicalizeGLPass" },
    PassInfo {
        name: "spirv-lower-abi-attrs",
        restriction: Some("spirv.module"),
        class: "SPIRVLowerABIAttributesPass",
    },
    PassInfo {
        name: "spirv-webgpu-prepare",
        restriction: Some("spirv.module"),
        class: "SPIRVWebGPUPreparePass",
    },
    PassInfo { name: "cse", restriction: None, class: "CSE" },
    PassInfo {
        name: "convert-spirv-to-llvm",
        restriction: Some("builtin.module"),
        class: "(anonymous namespace)::ConvertSPIRVToLLVMPass",
    },
    PassInfo {
        name: "lower-host-to-llvm",
        restriction: Some("builtin.module"),
        class: "(anonymous namespace)::LowerHostCodeToLLVMPass",
    },
    PassInfo { name: "spirv-update-vce", restriction: Some("spirv.module"), class: "SPIRVUpdateVCEPass" },
    PassInfo {
        name: "spirv-cpu-kernel-interface",
        restriction: Some("spirv.module"),
        class: "SPIRVCpuKernelInterfacePass",
    },
    PassInfo { name: "inline", restriction: None, class: "InlinerPass" },
    PassInfo {
        name: "spirv-unify-aliased-resource",
        restriction: Some("spirv.module"),
        class: "SPIRVUnifyAliasedResourcePass",
    },
    // spirvkit's own (mlir-opt has no legalization for Vulkan).
    PassInfo { name: "spirv-merge-return", restriction: Some("spirv.module"), class: "SPIRVMergeReturnPass" },
    PassInfo { name: "spirv-inline-all", restriction: Some("spirv.module"), class: "SPIRVInlineAllPass" },
    PassInfo {
        name: "spirv-private-to-local",
        restriction: Some("spirv.module"),
        class: "SPIRVPrivateToLocalPass",
    },
    PassInfo { name: "spirv-sroa", restriction: Some("spirv.module"), class: "SPIRVScalarReplacementPass" },
    PassInfo { name: "spirv-mem2reg", restriction: Some("spirv.module"), class: "SPIRVMem2RegPass" },
    PassInfo { name: "spirv-dce", restriction: Some("spirv.module"), class: "SPIRVDeadCodeEliminationPass" },
    PassInfo { name: "spirv-legalize", restriction: Some("spirv.module"), class: "SPIRVLegalizePass" },
    PassInfo {
        name: "spirv-value-numbering",
        restriction: Some("spirv.module"),
        class: "SPIRVValueNumberingPass",
    },
];

fn pass_info(name: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.name == name)
}

/// Whether mlir-opt 22 registers a pass or pass pipeline of this name.
pub fn is_mlir_pass(name: &str) -> bool {
    mlir_passes::MLIR_PASS_NAMES.binary_search(&name).is_ok()
}

impl Pass {
    /// The pass's name (its flag without dashes).
    pub fn name(&self) -> &'static str {
        match self {
            Pass::TestOpAvailability => "test-spirv-op-availability",
            Pass::Canonicalize(_) => "canonicalize",
            Pass::RewriteInserts => "spirv-rewrite-inserts",
            Pass::DecorateLayout => "decorate-spirv-composite-type-layout",
            Pass::CanonicalizeGl => "spirv-canonicalize-gl",
            Pass::LowerAbiAttrs => "spirv-lower-abi-attrs",
            Pass::WebGpuPrepare => "spirv-webgpu-prepare",
            Pass::Cse => "cse",
            Pass::UpdateVce => "spirv-update-vce",
            Pass::Inline(_) => "inline",
            Pass::ConvertSpirvToLlvm(_) => "convert-spirv-to-llvm",
            Pass::LowerHostToLlvm => "lower-host-to-llvm",
            Pass::CpuKernelInterface => "spirv-cpu-kernel-interface",
            Pass::UnifyAliasedResource => "spirv-unify-aliased-resource",
            Pass::Legalize(step) => match step {
                LegalizeStep::MergeReturn => "spirv-merge-return",
                LegalizeStep::InlineAll => "spirv-inline-all",
                LegalizeStep::PrivateToLocal => "spirv-private-to-local",
                LegalizeStep::Sroa => "spirv-sroa",
                LegalizeStep::Mem2Reg => "spirv-mem2reg",
                LegalizeStep::Dce => "spirv-dce",
                LegalizeStep::All => "spirv-legalize",
                LegalizeStep::ValueNumbering => "spirv-value-numbering",
            },
        }
    }

    /// The op this pass is restricted to (MLIR's `OperationPass<Op>`), if any.
    pub fn restriction(&self) -> Option<&'static str> {
        pass_info(self.name()).and_then(|p| p.restriction)
    }

    /// MLIR's class name for the pass, which its errors quote.
    pub fn class_name(&self) -> &'static str {
        pass_info(self.name()).map_or("", |p| p.class)
    }
}

// ---- the top-level entry points ---------------------------------------------------

/// Parses `--pass-pipeline`'s text: `anchor(pipeline)`.
pub fn parse_pass_pipeline(text: &str) -> Result<Pipeline, PipelineError> {
    let text = trim(text);
    let Some(open) = text.find('(').filter(|&o| o > 0 && text.ends_with(')')) else {
        return Err(PipelineError::mlir(WRAP_MESSAGE));
    };
    let anchor = trim(&text[..open]);
    parse_pipeline_body(&text[open + 1..text.len() - 1], anchor)
}

/// Parses the body of a pipeline (`canonicalize,spirv.module(cse)`) that will run on
/// ops named `anchor`.
pub fn parse_pipeline_body(text: &str, anchor: &str) -> Result<Pipeline, PipelineError> {
    match parse_pipeline_body_partially(text, anchor) {
        (pipeline, None) => Ok(pipeline),
        (_, Some(error)) => Err(error),
    }
}

/// Like [`parse_pipeline_body`], but also returns what MLIR's pass manager holds when
/// adding a pass failed: the passes before it, and the failing one itself when only
/// its options were wrong. (A syntax or name error leaves the pipeline empty.)
pub fn parse_pipeline_body_partially(text: &str, anchor: &str) -> (Pipeline, Option<PipelineError>) {
    let mut pipeline = Pipeline { anchor: anchor.to_string(), items: Vec::new() };
    let syntax_error = |offset: usize, message: &str| {
        PipelineError::mlir(render_message(
            PARSER_BUFFER_NAME,
            text,
            Some(offset),
            Severity::Error,
            message,
            None,
            true,
        ))
    };
    let elements = match parse_elements(text) {
        Ok(elements) => elements,
        Err((offset, message)) => return (pipeline, Some(syntax_error(offset, message))),
    };
    let mut unsupported = Vec::new();
    if let Err(e) = check_names(&elements, &mut unsupported) {
        let message = format!("'{}' does not refer to a registered pass or pass pipeline", e.name);
        return (pipeline, Some(syntax_error(e.offset, &message)));
    }
    if !unsupported.is_empty() {
        return (pipeline, Some(PipelineError::Unsupported(unsupported)));
    }
    let error = build_items(&elements, anchor, &mut pipeline.items).err().map(AddError::into_pipeline_error);
    (pipeline, error)
}

/// Builds the pipeline pass flags describe (`--canonicalize`, `-spirv-update-vce`,
/// `--inline=default-pipeline=`), as mlir-opt does: in order on the top-level
/// `builtin.module`, passes restricted to another op nested under that op.
pub fn from_flags(flags: &[String]) -> Result<Pipeline, PipelineError> {
    let split = |flag: &str| -> (String, Option<String>) {
        let body = flag.strip_prefix("--").or_else(|| flag.strip_prefix('-')).unwrap_or(flag);
        match body.split_once('=') {
            Some((name, options)) => (name.to_string(), Some(options.to_string())),
            None => (body.to_string(), None),
        }
    };
    let unsupported: Vec<String> =
        flags.iter().filter(|f| pass_info(&split(f).0).is_none()).cloned().collect();
    if !unsupported.is_empty() {
        return Err(PipelineError::Unsupported(unsupported));
    }
    let mut items = Vec::new();
    for flag in flags {
        let (name, options) = split(flag);
        let (pass, options_error) = build_pass(&name, options.as_deref().unwrap_or(""));
        options_error.map_err(|e| PipelineError::Mlir { raw: e.raw, message: e.message })?;
        match pass.restriction() {
            Some(op) if op != "builtin.module" => {
                items.push(PipelineItem::Nested(Pipeline {
                    anchor: op.to_string(),
                    items: vec![PipelineItem::Pass(pass)],
                }));
            }
            _ => items.push(PipelineItem::Pass(pass)),
        }
    }
    Ok(Pipeline { anchor: "builtin.module".to_string(), items })
}

// ---- step 1: syntax -----------------------------------------------------------------

/// One parsed element: a pass (with its option text) or, with `inner`, an anchor.
#[derive(Debug)]
struct Element<'t> {
    name: &'t str,
    /// Where the (trimmed) name starts.
    offset: usize,
    options: &'t str,
    inner: Vec<Element<'t>>,
}

const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// Trims LLVM's whitespace (`StringRef::trim`).
fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_ascii() && is_space(c as u8))
}

fn skip_spaces(text: &str, mut at: usize) -> usize {
    while at < text.len() && is_space(text.as_bytes()[at]) {
        at += 1;
    }
    at
}

/// The syntax of a pipeline body; errors are `(offset, message)`.
fn parse_elements(text: &str) -> Result<Vec<Element<'_>>, (usize, &'static str)> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let bytes = text.as_bytes();
    // The pipelines being filled, innermost last.
    let mut stack: Vec<Vec<Element>> = vec![Vec::new()];
    let mut at = 0;
    loop {
        let rest = &text[at..];
        let end = rest.find([',', '(', ')', '{']);
        let raw_name = &rest[..end.unwrap_or(rest.len())];
        let lead =
            raw_name.len() - raw_name.trim_start_matches(|c: char| c.is_ascii() && is_space(c as u8)).len();
        let element = Element { name: trim(raw_name), offset: at + lead, options: "", inner: Vec::new() };
        // The stack is never empty: it starts with one entry and pops stop at one.
        let Some(current) = stack.last_mut() else { break };
        current.push(element);
        let Some(end) = end else { break };
        at += end;
        match bytes[at] {
            b'{' => {
                let open = at;
                at += 1;
                let mut depth = 1usize;
                let mut close = None;
                for (i, &b) in bytes.iter().enumerate().skip(at) {
                    match b {
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                close = Some(i);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let Some(close) = close else {
                    return Err((open, "missing closing '}' while processing pass options"));
                };
                if let Some(e) = stack.last_mut().and_then(|p| p.last_mut()) {
                    e.options = &text[at..close];
                }
                at = skip_spaces(text, close + 1);
            }
            b'(' => {
                if stack.len() > MAX_NESTING {
                    return Err((at, "pass pipeline nested too deeply"));
                }
                at += 1;
                stack.push(Vec::new());
                continue;
            }
            _ => {}
        }
        while at < text.len() && bytes[at] == b')' {
            if stack.len() == 1 {
                return Err((
                    at,
                    "encountered extra closing ')' creating unbalanced parentheses while parsing pipeline",
                ));
            }
            at += 1;
            let inner = stack.pop().unwrap_or_default();
            if let Some(e) = stack.last_mut().and_then(|p| p.last_mut()) {
                e.inner = inner;
            }
            at = skip_spaces(text, at);
        }
        if at == text.len() {
            break;
        }
        if bytes[at] != b',' {
            return Err((at, "expected ',' after parsing pipeline"));
        }
        at += 1;
    }
    if stack.len() > 1 {
        return Err((at, "encountered unbalanced parentheses while parsing pipeline"));
    }
    Ok(stack.pop().unwrap_or_default())
}

// ---- step 2: names ------------------------------------------------------------------

struct UnknownName<'t> {
    name: &'t str,
    offset: usize,
}

/// Every pass must be registered; the ones spirvkit lacks are collected.
fn check_names<'t>(elements: &[Element<'t>], unsupported: &mut Vec<String>) -> Result<(), UnknownName<'t>> {
    for e in elements {
        if !e.inner.is_empty() {
            check_names(&e.inner, unsupported)?;
        } else if pass_info(e.name).is_none() {
            if !is_mlir_pass(e.name) {
                return Err(UnknownName { name: e.name, offset: e.offset });
            }
            unsupported.push(e.name.to_string());
        }
    }
    Ok(())
}

// ---- step 3: adding passes ----------------------------------------------------------

/// A failure to add a pass: text for standard error as is, and the diagnostic's
/// message so far (MLIR appends a `failed to add` line per enclosing pipeline).
struct AddError {
    raw: String,
    message: String,
}

impl AddError {
    fn into_pipeline_error(self) -> PipelineError {
        PipelineError::Mlir { raw: self.raw, message: format!("{}\n", self.message) }
    }
}

/// Adds the passes of `elements` to `items` (a pipeline anchored on `anchor`), in
/// order, up to the first that cannot be added.
fn build_items(elements: &[Element], anchor: &str, items: &mut Vec<PipelineItem>) -> Result<(), AddError> {
    for e in elements {
        if !e.inner.is_empty() {
            items.push(PipelineItem::Nested(Pipeline { anchor: e.name.to_string(), items: Vec::new() }));
            let Some(PipelineItem::Nested(nested)) = items.last_mut() else { continue };
            build_items(&e.inner, e.name, &mut nested.items).map_err(|mut err| {
                err.message
                    .push_str(&format!("\nfailed to add `{}` with options `` to inner pipeline", e.name));
                err
            })?;
            continue;
        }
        let failed = |raw: String, inner: String| AddError {
            raw,
            message: format!("{inner}\nfailed to add `{}` with options `{}`", e.name, e.options),
        };
        let (pass, options_error) = build_pass(e.name, e.options);
        // An `any` pipeline takes any pass; running it on another op fails.
        if let (Some(restriction), Some(info)) = (pass.restriction(), pass_info(e.name)) {
            if restriction != anchor && anchor != ANY_ANCHOR {
                return Err(failed(
                    String::new(),
                    format!(
                        "Can't add pass '{}' restricted to '{restriction}' on a PassManager intended to run on \
                         '{anchor}', did you intend to nest?",
                        info.class
                    ),
                ));
            }
        }
        // MLIR keeps a pass whose options failed to parse (with those parsed before).
        items.push(PipelineItem::Pass(pass));
        if let Err(o) = options_error {
            return Err(failed(o.raw, o.message));
        }
    }
    Ok(())
}

// ---- pass options -------------------------------------------------------------------

/// An option-parsing failure, as [`PipelineError::Mlir`] splits it.
struct OptionError {
    raw: String,
    message: String,
}

impl OptionError {
    /// LLVM's option parser complains on standard error; the diagnostic stays empty.
    fn value(key: &str, complaint: &str) -> Self {
        OptionError {
            raw: format!("{TOOL_NAME}: for the --{key} option: {complaint}\n"),
            message: String::new(),
        }
    }
}

#[derive(Clone, Copy)]
enum OptionKind {
    Bool,
    /// A signed 64-bit integer.
    Long,
    /// An unsigned 32-bit integer.
    Uint,
    Str,
    Enum(&'static [&'static str]),
    /// Comma-separated strings.
    StrList,
    /// Comma-separated anchored pipelines.
    PipelineList,
}

/// A parsed option value.
enum OptionValue {
    Bool(bool),
    Long(i64),
    Uint(u32),
    Str(String),
    List(Vec<String>),
    Pipelines(Vec<Pipeline>),
}

const CANONICALIZE_OPTIONS: &[(&str, OptionKind)] = &[
    ("disable-patterns", OptionKind::StrList),
    ("enable-patterns", OptionKind::StrList),
    ("max-iterations", OptionKind::Long),
    ("max-num-rewrites", OptionKind::Long),
    ("region-simplify", OptionKind::Enum(&["disabled", "normal", "aggressive"])),
    ("test-convergence", OptionKind::Bool),
    ("top-down", OptionKind::Bool),
];

const CONVERT_SPIRV_TO_LLVM_OPTIONS: &[(&str, OptionKind)] = &[
    ("client-api", OptionKind::Enum(&["Unknown", "Metal", "OpenCL", "Vulkan", "WebGPU"])),
    // spirvkit's own: the options of the CPU pipeline (see `ConvertOptions::kernel`).
    ("all-storage-classes", OptionKind::Bool),
    ("storage-images", OptionKind::Bool),
    ("buffer-lengths", OptionKind::Bool),
    ("explicit-layout", OptionKind::Bool),
    ("keep-global-names", OptionKind::Bool),
    // Named by issue 17; MLIR 22 dropped it (opaque pointers only): `true` is accepted.
    ("use-opaque-pointers", OptionKind::Bool),
];

const INLINE_OPTIONS: &[(&str, OptionKind)] = &[
    ("default-pipeline", OptionKind::Str),
    ("inlining-threshold", OptionKind::Uint),
    ("max-iterations", OptionKind::Uint),
    ("op-pipelines", OptionKind::PipelineList),
];

/// Builds pass `name` (one of [`PASSES`]) from its option text; on a bad option, the
/// pass has the options parsed before it.
fn build_pass(name: &str, options: &str) -> (Pass, Result<(), OptionError>) {
    match name {
        "canonicalize" => {
            let mut o = CanonicalizeOptions::default();
            let parsed = parse_options(options, CANONICALIZE_OPTIONS, |key, value| match (key, value) {
                ("top-down", OptionValue::Bool(b)) => o.top_down = b,
                ("test-convergence", OptionValue::Bool(b)) => o.test_convergence = b,
                ("max-iterations", OptionValue::Long(n)) => o.max_iterations = n,
                ("max-num-rewrites", OptionValue::Long(n)) => o.max_num_rewrites = n,
                ("region-simplify", OptionValue::Str(s)) => {
                    o.region_simplify = match s.as_str() {
                        "disabled" => RegionSimplify::Disabled,
                        "aggressive" => RegionSimplify::Aggressive,
                        _ => RegionSimplify::Normal,
                    }
                }
                ("disable-patterns", OptionValue::List(l)) => o.disable_patterns = l,
                ("enable-patterns", OptionValue::List(l)) => o.enable_patterns = l,
                _ => {}
            });
            (Pass::Canonicalize(o), parsed)
        }
        "inline" => {
            let mut o = InlineOptions::default();
            let parsed = parse_options(options, INLINE_OPTIONS, |key, value| match (key, value) {
                ("default-pipeline", OptionValue::Str(s)) => o.default_pipeline = s,
                ("op-pipelines", OptionValue::Pipelines(p)) => o.op_pipelines = p,
                ("max-iterations", OptionValue::Uint(n)) => o.max_iterations = n,
                ("inlining-threshold", OptionValue::Uint(n)) => o.inlining_threshold = n,
                _ => {}
            });
            (Pass::Inline(o), parsed)
        }
        "convert-spirv-to-llvm" => {
            use crate::convert_spirv_to_llvm::{ClientApi, ConvertOptions};
            let mut o = ConvertOptions::default();
            let mut typed_pointers = false;
            let mut parsed =
                parse_options(options, CONVERT_SPIRV_TO_LLVM_OPTIONS, |key, value| match (key, value) {
                    ("client-api", OptionValue::Str(s)) => {
                        o.client_api = match s.as_str() {
                            "Metal" => ClientApi::Metal,
                            "OpenCL" => ClientApi::OpenCl,
                            "Vulkan" => ClientApi::Vulkan,
                            "WebGPU" => ClientApi::WebGpu,
                            _ => ClientApi::Unknown,
                        }
                    }
                    ("explicit-layout", OptionValue::Bool(b)) => o.explicit_layout = b,
                    ("all-storage-classes", OptionValue::Bool(b)) => o.all_storage_classes = b,
                    ("storage-images", OptionValue::Bool(b)) => o.storage_images = b,
                    ("buffer-lengths", OptionValue::Bool(b)) => o.buffer_lengths = b,
                    ("keep-global-names", OptionValue::Bool(b)) => o.keep_global_names = b,
                    ("use-opaque-pointers", OptionValue::Bool(b)) => typed_pointers = !b,
                    _ => {}
                });
            if parsed.is_ok() && typed_pointers {
                parsed = Err(OptionError {
                    raw: String::new(),
                    message: "not supported yet: use-opaque-pointers=false (LLVM 22 and MLIR 22 have opaque \
                              pointers only)\n"
                        .to_string(),
                });
            }
            (Pass::ConvertSpirvToLlvm(o), parsed)
        }
        _ => {
            let pass = match name {
                "test-spirv-op-availability" => Pass::TestOpAvailability,
                "lower-host-to-llvm" => Pass::LowerHostToLlvm,
                "spirv-cpu-kernel-interface" => Pass::CpuKernelInterface,
                "spirv-rewrite-inserts" => Pass::RewriteInserts,
                "decorate-spirv-composite-type-layout" => Pass::DecorateLayout,
                "spirv-canonicalize-gl" => Pass::CanonicalizeGl,
                "spirv-lower-abi-attrs" => Pass::LowerAbiAttrs,
                "spirv-webgpu-prepare" => Pass::WebGpuPrepare,
                "spirv-update-vce" => Pass::UpdateVce,
                "spirv-unify-aliased-resource" => Pass::UnifyAliasedResource,
                "spirv-merge-return" => Pass::Legalize(LegalizeStep::MergeReturn),
                "spirv-inline-all" => Pass::Legalize(LegalizeStep::InlineAll),
                "spirv-private-to-local" => Pass::Legalize(LegalizeStep::PrivateToLocal),
                "spirv-sroa" => Pass::Legalize(LegalizeStep::Sroa),
                "spirv-mem2reg" => Pass::Legalize(LegalizeStep::Mem2Reg),
                "spirv-dce" => Pass::Legalize(LegalizeStep::Dce),
                "spirv-legalize" => Pass::Legalize(LegalizeStep::All),
                "spirv-value-numbering" => Pass::Legalize(LegalizeStep::ValueNumbering),
                _ => Pass::Cse,
            };
            (pass, parse_options(options, &[], |_, _| {}))
        }
    }
}

/// MLIR's `PassOptions::parseFromString`: `key[=value]` entries separated by spaces,
/// each handed to `set` once parsed; stops at the first bad one.
fn parse_options(
    text: &str,
    specs: &[(&'static str, OptionKind)],
    mut set: impl FnMut(&'static str, OptionValue),
) -> Result<(), OptionError> {
    for (key, value) in split_options(text) {
        if key.is_empty() {
            continue;
        }
        let Some(&(name, kind)) = specs.iter().find(|(n, _)| *n == key) else {
            return Err(OptionError {
                raw: String::new(),
                message: format!("<Pass-Options-Parser>: no such option {key}\n"),
            });
        };
        set(name, parse_option_value(name, kind, value)?);
    }
    Ok(())
}

fn parse_option_value(key: &str, kind: OptionKind, value: Option<&str>) -> Result<OptionValue, OptionError> {
    let Some(value) = value else {
        return match kind {
            OptionKind::Bool => Ok(OptionValue::Bool(true)),
            _ => Err(OptionError::value(key, "requires a value!")),
        };
    };
    match kind {
        OptionKind::Bool => match value {
            "" | "true" | "True" | "TRUE" | "1" => Ok(OptionValue::Bool(true)),
            "false" | "False" | "FALSE" | "0" => Ok(OptionValue::Bool(false)),
            _ => Err(OptionError::value(
                key,
                &format!("'{value}' is invalid value for boolean argument! Try 0 or 1"),
            )),
        },
        OptionKind::Long => parse_llvm_integer(value)
            .and_then(|n| i64::try_from(n).ok())
            .map(OptionValue::Long)
            .ok_or_else(|| OptionError::value(key, &format!("'{value}' value invalid for long argument!"))),
        OptionKind::Uint => parse_llvm_integer(value)
            .and_then(|n| u32::try_from(n).ok())
            .map(OptionValue::Uint)
            .ok_or_else(|| OptionError::value(key, &format!("'{value}' value invalid for uint argument!"))),
        OptionKind::Str => Ok(OptionValue::Str(value.to_string())),
        OptionKind::Enum(names) => match names.contains(&value) {
            true => Ok(OptionValue::Str(value.to_string())),
            false => Err(OptionError::value(key, &format!("Cannot find option named '{value}'!"))),
        },
        OptionKind::StrList => Ok(OptionValue::List(split_list(value).map(str::to_string).collect())),
        OptionKind::PipelineList => {
            let mut pipelines = Vec::new();
            for item in split_list(value) {
                let pipeline = parse_pass_pipeline(item)
                    .map_err(|e| OptionError { raw: e.render_raw(), message: String::new() })?;
                pipelines.push(pipeline);
            }
            Ok(OptionValue::Pipelines(pipelines))
        }
    }
}

/// An integer as LLVM's `getAsInteger` with radix 0 reads it: an optional `-`, then
/// decimal, `0x` hex, `0b` binary, `0o` or leading-`0` octal.
fn parse_llvm_integer(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let lower = digits.get(..2).map(str::to_ascii_lowercase);
    let (radix, digits) = match lower.as_deref() {
        Some("0x") => (16, &digits[2..]),
        Some("0b") => (2, &digits[2..]),
        Some("0o") => (8, &digits[2..]),
        _ if digits.len() > 1 && digits.starts_with('0') => (8, &digits[1..]),
        _ => (10, digits),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()? as i128;
    Some(if negative { -magnitude } else { magnitude })
}

/// Where the quoted or braced span starting at `start` ends (the closing byte), with
/// nested braces and quotes inside braces; `None` when it is not closed.
fn scope_end(bytes: &[u8], start: usize) -> Option<usize> {
    let closer = |b: u8| if b == b'{' { b'}' } else { b };
    let mut closers = vec![closer(bytes[start])];
    for (i, &b) in bytes.iter().enumerate().skip(start + 1) {
        let expected = *closers.last()?;
        if b == expected {
            closers.pop();
            if closers.is_empty() {
                return Some(i);
            }
        } else if expected == b'}' && matches!(b, b'{' | b'\'' | b'"') {
            closers.push(closer(b));
        }
    }
    None
}

/// Trims an option key or value and strips one level of quotes or of enclosing braces.
fn unwrap_option_text(text: &str) -> &str {
    let text = trim(text);
    let bytes = text.as_bytes();
    if bytes.len() >= 2 {
        let (first, last) = (bytes[0], bytes[bytes.len() - 1]);
        if (first == b'\'' || first == b'"') && first == last {
            return trim(&text[1..text.len() - 1]);
        }
        if first == b'{' && scope_end(bytes, 0) == Some(bytes.len() - 1) {
            return trim(&text[1..text.len() - 1]);
        }
    }
    text
}

/// Splits an option string into `(key, value)` entries: a key ends at `=` or a space,
/// a value at a space outside quotes and braces.
fn split_options(text: &str) -> Vec<(&str, Option<&str>)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let key_start = at;
        while at < bytes.len() && bytes[at] != b'=' && bytes[at] != b' ' {
            at += 1;
        }
        let key = unwrap_option_text(&text[key_start..at]);
        if at >= bytes.len() || bytes[at] == b' ' {
            out.push((key, None));
            at = skip_spaces(text, at);
            continue;
        }
        at += 1;
        let value_start = at;
        while at < bytes.len() && bytes[at] != b' ' {
            at = match bytes[at] {
                b'\'' | b'"' | b'{' => scope_end(bytes, at).map_or(at + 1, |end| end + 1),
                _ => at + 1,
            };
        }
        out.push((key, Some(unwrap_option_text(&text[value_start..at]))));
        at = skip_spaces(text, at);
    }
    out
}

/// Splits a list option's value at commas outside parentheses, braces, brackets and
/// quotes; items are trimmed.
fn split_list(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'(' | b'{' | b'[' => depth += 1,
                b')' | b'}' | b']' => depth = depth.saturating_sub(1),
                b',' if depth == 0 => {
                    parts.push(trim(&text[start..i]));
                    start = i + 1;
                }
                _ => {}
            },
        }
    }
    parts.push(trim(&text[start..]));
    parts.into_iter().filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_text(pipeline: &str) -> String {
        parse_pass_pipeline(pipeline).expect_err(pipeline).render()
    }

    fn pass(p: Pass) -> PipelineItem {
        PipelineItem::Pass(p)
    }

    fn nested(anchor: &str, items: Vec<PipelineItem>) -> PipelineItem {
        PipelineItem::Nested(Pipeline { anchor: anchor.to_string(), items })
    }

    #[test]
    fn corpus_pipelines_parse() {
        let p = parse_pass_pipeline("builtin.module(spirv.module(inline{default-pipeline=''}))").unwrap();
        let inline = InlineOptions { default_pipeline: String::new(), ..InlineOptions::default() };
        assert_eq!(p.anchor, "builtin.module");
        assert_eq!(p.items, vec![nested("spirv.module", vec![pass(Pass::Inline(inline.clone()))])]);
        // The shell turns `''` into nothing.
        let q = parse_pass_pipeline("builtin.module(spirv.module(inline{default-pipeline=}))").unwrap();
        assert_eq!(p, q);

        let p = parse_pass_pipeline("builtin.module(func.func(canonicalize{test-convergence}))").unwrap();
        let canonicalize = CanonicalizeOptions { test_convergence: true, ..Default::default() };
        assert_eq!(p.items, vec![nested("func.func", vec![pass(Pass::Canonicalize(canonicalize))])]);

        let p = parse_pass_pipeline(" builtin.module ( spirv.module ( spirv-update-vce ) , cse ) ").unwrap();
        assert_eq!(p.items, vec![nested("spirv.module", vec![pass(Pass::UpdateVce)]), pass(Pass::Cse)]);
        assert_eq!(parse_pass_pipeline("builtin.module()").unwrap().items, vec![]);
    }

    #[test]
    fn options_are_split_and_unquoted() {
        let p = parse_pass_pipeline(
            "builtin.module(canonicalize{top-down=false max-iterations=0x10  region-simplify='aggressive' \
             test-convergence={1}},inline{default-pipeline=\"canonicalize{top-down=0}\" max-iterations=2})",
        )
        .unwrap();
        let canonicalize = CanonicalizeOptions {
            top_down: false,
            max_iterations: 16,
            region_simplify: RegionSimplify::Aggressive,
            test_convergence: true,
            ..Default::default()
        };
        let inline = InlineOptions {
            default_pipeline: "canonicalize{top-down=0}".to_string(),
            max_iterations: 2,
            ..Default::default()
        };
        assert_eq!(p.items, vec![pass(Pass::Canonicalize(canonicalize)), pass(Pass::Inline(inline))]);
        assert_eq!(
            split_options("a='x y'z b={c {d} e} 'f'=g =h i"),
            vec![
                ("a", Some("'x y'z")),
                ("b", Some("c {d} e")),
                ("f", Some("g")),
                ("", Some("h")),
                ("i", None)
            ]
        );
        assert_eq!(split_options("a={'} x"), vec![("a", Some("{'}")), ("x", None)]);
        assert_eq!(parse_llvm_integer("-010"), Some(-8));
        assert_eq!(parse_llvm_integer("+1"), None);
    }

    #[test]
    fn op_pipelines_are_anchored_pipelines() {
        let p = parse_pass_pipeline(
            "builtin.module(inline{op-pipelines={spirv.func(cse), func.func(canonicalize)}})",
        )
        .unwrap();
        let PipelineItem::Pass(Pass::Inline(o)) = &p.items[0] else { panic!("{p:?}") };
        assert_eq!(o.op_pipelines.len(), 2);
        assert_eq!(o.op_pipelines[1].anchor, "func.func");
    }

    // Expected texts are mlir-opt-22's standard error for the same pipelines.

    #[test]
    fn malformed_pipelines() {
        let wrap =
            "<unknown>:0: error: expected pass pipeline to be wrapped with the anchor operation type, \
                    e.g. 'builtin.module(...)'\n";
        for bad in ["", "canonicalize", "builtin.module(", "builtin.module(canonicalize", "(cse)"] {
            assert_eq!(error_text(bad), wrap, "{bad}");
        }
        assert_eq!(
            error_text("builtin.module(func.func(canonicalize)"),
            "<unknown>:0: error: MLIR Textual PassPipeline Parser:1:11: error: encountered unbalanced \
             parentheses while parsing pipeline\nfunc.func(canonicalize\n          ^\n\n"
        );
        assert_eq!(
            error_text("builtin.module(canonicalize))"),
            "<unknown>:0: error: MLIR Textual PassPipeline Parser:1:13: error: encountered extra closing ')' \
             creating unbalanced parentheses while parsing pipeline\ncanonicalize)\n            ^\n\n"
        );
        assert_eq!(
            error_text("builtin.module(canonicalize{)"),
            "<unknown>:0: error: MLIR Textual PassPipeline Parser:1:13: error: missing closing '}' while \
             processing pass options\ncanonicalize{\n            ^\n\n"
        );
        assert_eq!(
            error_text("builtin.module(spirv.module(canonicalize)  x)"),
            "<unknown>:0: error: MLIR Textual PassPipeline Parser:1:29: error: expected ',' after parsing \
             pipeline\nspirv.module(canonicalize)  x\n                            ^\n\n"
        );
        assert_eq!(
            error_text("builtin.module(canonicalize,,cse)"),
            "<unknown>:0: error: MLIR Textual PassPipeline Parser:1:14: error: '' does not refer to a \
             registered pass or pass pipeline\ncanonicalize,,cse\n             ^\n\n"
        );
        assert_eq!(
            error_text("builtin.module(spirv.module(foo))"),
            "<unknown>:0: error: MLIR Textual PassPipeline Parser:1:14: error: 'foo' does not refer to a \
             registered pass or pass pipeline\nspirv.module(foo)\n             ^\n\n"
        );
    }

    #[test]
    fn bad_options_and_anchors() {
        assert_eq!(
            error_text("builtin.module(canonicalize{bogus=1})"),
            "<unknown>:0: error: <Pass-Options-Parser>: no such option bogus\n\nfailed to add `canonicalize` \
             with options `bogus=1`\n\n"
        );
        assert_eq!(
            error_text("builtin.module(spirv.module(canonicalize{test-convergence=x}))"),
            "spirvkit: for the --test-convergence option: 'x' is invalid value for boolean argument! Try 0 or \
             1\n<unknown>:0: error: \nfailed to add `canonicalize` with options `test-convergence=x`\nfailed \
             to add `spirv.module` with options `` to inner pipeline\n\n"
        );
        assert_eq!(
            error_text("builtin.module(spirv-update-vce)"),
            "<unknown>:0: error: Can't add pass 'SPIRVUpdateVCEPass' restricted to 'spirv.module' on a \
             PassManager intended to run on 'builtin.module', did you intend to nest?\nfailed to add \
             `spirv-update-vce` with options ``\n\n"
        );
        assert_eq!(
            error_text("builtin.module(inline{op-pipelines=cse})"),
            "expected pass pipeline to be wrapped with the anchor operation type, e.g. \
             'builtin.module(...)'<unknown>:0: error: \nfailed to add `inline` with options \
             `op-pipelines=cse`\n\n"
        );
        assert_eq!(
            error_text("builtin.module(inline{max-iterations=-1})"),
            "spirvkit: for the --max-iterations option: '-1' value invalid for uint argument!\n<unknown>:0: \
             error: \nfailed to add `inline` with options `max-iterations=-1`\n\n"
        );
    }

    #[test]
    fn unimplemented_passes_are_not_supported() {
        assert_eq!(
            error_text("builtin.module(spirv.module(loop-invariant-code-motion),convert-gpu-to-spirv)"),
            "error: not supported yet: pass loop-invariant-code-motion\nerror: not supported yet: pass \
             convert-gpu-to-spirv\n"
        );
    }

    #[test]
    fn flags_nest_restricted_passes() {
        let flags: Vec<String> = [
            "--canonicalize",
            "-spirv-update-vce",
            "--inline=default-pipeline=",
            "-test-spirv-op-availability",
        ]
        .map(String::from)
        .to_vec();
        let p = from_flags(&flags).unwrap();
        let inline = InlineOptions { default_pipeline: String::new(), ..Default::default() };
        assert_eq!(
            p.items,
            vec![
                pass(Pass::Canonicalize(CanonicalizeOptions::default())),
                nested("spirv.module", vec![pass(Pass::UpdateVce)]),
                pass(Pass::Inline(inline)),
                pass(Pass::TestOpAvailability),
            ]
        );
        let e = from_flags(&["--cse=foo".to_string()]).unwrap_err();
        assert_eq!(e.render(), "<unknown>:0: error: <Pass-Options-Parser>: no such option foo\n\n");
        let e = from_flags(&["--cse".to_string(), "--loop-invariant-code-motion".to_string()]).unwrap_err();
        assert_eq!(e.render(), "error: not supported yet: pass --loop-invariant-code-motion\n");
    }

    #[test]
    fn failed_adds_keep_what_mlir_keeps() {
        // The passes before the failure stay, and a pass whose options failed too.
        let (p, e) = parse_pipeline_body_partially("cse,canonicalize{top-down=0 bogus},cse", "spirv.func");
        let canonicalize = CanonicalizeOptions { top_down: false, ..Default::default() };
        assert_eq!(p.items, vec![pass(Pass::Cse), pass(Pass::Canonicalize(canonicalize))]);
        assert_eq!(
            e.unwrap().render_raw(),
            "<Pass-Options-Parser>: no such option bogus\n\nfailed to add `canonicalize` with options \
             `top-down=0 bogus`\n"
        );
        // A misplaced pass does not.
        let (p, e) = parse_pipeline_body_partially("cse,spirv-update-vce,cse", "spirv.func");
        assert_eq!(p.items, vec![pass(Pass::Cse)]);
        assert!(e.is_some());
        // Nor does anything when a name is unknown.
        let (p, e) = parse_pipeline_body_partially("cse,bogus", "spirv.func");
        assert!(p.items.is_empty() && e.is_some());
    }

    #[test]
    fn arbitrary_text_never_panics() {
        // A small deterministic generator over the characters that matter.
        let alphabet: Vec<char> = "builtin.module(){},'\" =-cse canonicalize{inline}éx0".chars().collect();
        let mut state = 0x2545_f491_u64;
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..(state % 40) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push(alphabet[(state % alphabet.len() as u64) as usize]);
            }
            let _ = parse_pass_pipeline(&text);
            let _ = parse_pipeline_body_partially(&text, "spirv.func");
            let _ = from_flags(&[format!("--canonicalize={text}"), format!("-inline={text}")]);
        }
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = format!("builtin.module({}cse{})", "a(".repeat(10_000), ")".repeat(10_000));
        assert!(parse_pass_pipeline(&deep).is_err());
    }
}
