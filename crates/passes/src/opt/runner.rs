//! Running a pass pipeline over one chunk's IR: nested pipelines on the ops of their
//! anchor directly inside the current op, passes in order, the op verified after each
//! pass, failures reported as mlir-opt reports them.

use super::OptOptions;
use crate::pipeline::{InlineOptions, Pass, Pipeline, PipelineItem, ANY_ANCHOR};
use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_ir::diag::{current_operation_note, Diagnostic, LineIndex};
use spirvkit_ir::ir::{Ir, Location, OpId};
use spirvkit_ir::opdef::op_has_trait;

/// Nested `inline` default pipelines deeper than this are not run (they could only
/// come from a pipeline text nesting them on purpose).
const MAX_INLINE_DEPTH: usize = 16;

/// Runs pipelines over one chunk's IR, collecting what the passes report.
pub(super) struct PassRunner<'t> {
    /// The chunk's (padded) text: diagnostics' offsets point into it.
    text: &'t str,
    file_name: &'t str,
    /// Whether errors get MLIR's `see current operation` note.
    op_notes: bool,
    /// `-test-spirv-op-availability`'s output, printed before the IR.
    pub(super) report: String,
    /// Text for standard error as is.
    pub(super) raw: String,
    pub(super) diagnostics: Vec<Diagnostic>,
    inline_depth: usize,
    /// Where errors on the implicit top-level module go; `None`: line 0, column 0.
    implicit_module_offset: Option<usize>,
    /// `--verify-diagnostics` (`=only-expected`), for errors at line 0 which
    /// bypass the expectation checker.
    verify_diagnostics: bool,
    only_expected: bool,
    /// Such an error was reported.
    pub(super) unexpected: bool,
}

impl<'t> PassRunner<'t> {
    pub(super) fn new(
        text: &'t str,
        file_name: &'t str,
        options: &OptOptions,
        implicit_module_offset: Option<usize>,
    ) -> Self {
        PassRunner {
            text,
            file_name,
            // As mlir-opt, which only shows the op when diagnostics are not checked.
            op_notes: !options.verify_diagnostics,
            report: String::new(),
            raw: String::new(),
            diagnostics: Vec::new(),
            inline_depth: 0,
            implicit_module_offset,
            verify_diagnostics: options.verify_diagnostics,
            only_expected: options.verify_only_expected,
            unexpected: false,
        }
    }

    /// Reports an error on `op` (with the op shown, as MLIR does for errors raised
    /// while passes run).
    fn op_error(&mut self, ir: &Ir, op: OpId, message: String) {
        self.error(ir, op, message, true);
    }

    pub(super) fn error(&mut self, ir: &Ir, op: OpId, message: String, show_op: bool) {
        let note = (show_op && self.op_notes).then(|| current_operation_note(ir, op));
        let offset = match &ir.op(op).location {
            Location::Unknown if ir.op(op).parent.is_none() => self.implicit_module_offset,
            location => LineIndex::new(self.text).location_offset(location),
        };
        match offset {
            Some(offset) => {
                let mut d = Diagnostic::error(Some(offset), message);
                if let Some(note) = note {
                    d = d.with_note(Some(offset), note);
                }
                self.diagnostics.push(d);
            }
            // Only the implicit top-level module has no location: line 0, which no
            // expectation can name.
            None => {
                let file = self.file_name;
                if !self.verify_diagnostics {
                    self.raw.push_str(&format!("{file}:0:0: error: {message}\n"));
                    if let Some(note) = note {
                        self.raw.push_str(&format!("{file}:0:0: note: {note}\n"));
                    }
                } else if !self.only_expected {
                    self.raw.push_str(&format!("{file}:0:0: error: unexpected error: {message}\n"));
                    self.unexpected = true;
                }
            }
        }
    }

    /// Keeps a diagnostic a pass reported on `op` without failing (a warning); one on
    /// the implicit module (no location) goes where the runner puts its errors.
    fn located(&mut self, ir: &Ir, op: OpId, mut d: Diagnostic) {
        if d.offset.is_none() && ir.op(op).parent.is_none() {
            d.offset = self.implicit_module_offset;
        }
        if d.offset.is_some() {
            self.diagnostics.push(d);
        } else if !self.verify_diagnostics {
            self.raw.push_str(&format!("{}:0:0: {}: {}\n", self.file_name, d.severity.as_str(), d.message));
        }
    }

    /// Keeps the errors a pass reported (their `see current operation` notes only
    /// where mlir-opt would show them).
    fn pass_errors(&mut self, errors: Vec<Diagnostic>) {
        for mut d in errors {
            if !self.op_notes {
                d.notes.retain(|n| !n.message.starts_with("see current operation:"));
            }
            self.diagnostics.push(d);
        }
    }

    /// Runs `pipeline` on `op`; false when a pass failed.
    pub(super) fn run_pipeline(&mut self, ir: &mut Ir, op: OpId, pipeline: &Pipeline) -> bool {
        let items = &pipeline.items;
        let mut i = 0;
        while i < items.len() {
            match &items[i] {
                PipelineItem::Pass(pass) => {
                    if !self.run_pass(ir, op, pass) {
                        return false;
                    }
                    i += 1;
                }
                PipelineItem::Nested(first) => {
                    // Adjacent pipelines on named ops run together, op by op, as MLIR
                    // merges them; an `any` pipeline runs alone.
                    let mut group = vec![first];
                    i += 1;
                    while let Some(PipelineItem::Nested(next)) = items.get(i) {
                        if first.anchor == ANY_ANCHOR || next.anchor == ANY_ANCHOR {
                            break;
                        }
                        group.push(next);
                        i += 1;
                    }
                    if !self.run_nested(ir, op, &group) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Runs the pipelines of `group` on the ops directly inside `parent` they anchor on.
    fn run_nested(&mut self, ir: &mut Ir, parent: OpId, group: &[&Pipeline]) -> bool {
        let mut children = Vec::new();
        for &region in &ir.op(parent).regions {
            for &block in &ir.region(region).blocks {
                children.extend(ir.block(block).ops.iter().copied());
            }
        }
        let mut succeeded = true;
        for child in children {
            let name = ir.op(child).name.clone();
            let isolated = op_has_trait(&name, "IsolatedFromAbove");
            let named: Vec<&Pipeline> = group.iter().copied().filter(|p| p.anchor == name).collect();
            let matching = if named.is_empty() && isolated {
                group.iter().copied().filter(|p| p.anchor == ANY_ANCHOR).collect()
            } else {
                named
            };
            if matching.is_empty() {
                continue;
            }
            if !isolated {
                let message = format!(
                    "'{name}' op trying to schedule a pass on an operation not marked as 'IsolatedFromAbove'"
                );
                self.op_error(ir, child, message);
                succeeded = false;
                continue;
            }
            for p in matching {
                if !self.run_pipeline(ir, child, p) {
                    succeeded = false;
                    break;
                }
            }
        }
        succeeded
    }

    /// Runs one pass on `op`; false when it failed.
    fn run_pass(&mut self, ir: &mut Ir, op: OpId, pass: &Pass) -> bool {
        // A pass restricted to one op, in an `any` pipeline, meeting another.
        if let Some(restriction) = pass.restriction() {
            let name = &ir.op(op).name;
            if name != restriction {
                let message = format!(
                    "'{name}' op trying to schedule pass '{}' on an unsupported operation",
                    pass.class_name()
                );
                self.op_error(ir, op, message);
                return false;
            }
        }
        let errors = match pass {
            Pass::TestOpAvailability => {
                self.report.push_str(&spirvkit_ir::availability::report(ir, op));
                Vec::new()
            }
            Pass::Canonicalize(_) => {
                crate::canonicalize::run(ir, op);
                Vec::new()
            }
            Pass::RewriteInserts => {
                crate::rewrite_inserts::run(ir, op);
                Vec::new()
            }
            Pass::DecorateLayout => {
                crate::decorate_layout::run(ir, op);
                Vec::new()
            }
            Pass::CanonicalizeGl => {
                crate::canonicalize_gl::run(ir, op);
                Vec::new()
            }
            Pass::WebGpuPrepare => {
                crate::webgpu_prepare::run(ir, op);
                Vec::new()
            }
            Pass::Cse => {
                crate::cse::run(ir, op);
                Vec::new()
            }
            Pass::UpdateVce => crate::update_vce::run(ir, op, self.text),
            Pass::LowerAbiAttrs => crate::lower_abi_attrs::run(ir, op, self.text),
            Pass::UnifyAliasedResource => crate::unify_aliased_resource::run(ir, op, self.text),
            Pass::Inline(options) => return self.run_inline(ir, op, options),
            Pass::CpuKernelInterface => match crate::cpu_kernel::kernel_interface(ir, op, None) {
                Ok(interface) => {
                    self.report.push_str(&interface.describe());
                    Vec::new()
                }
                Err(e) => {
                    let offset = LineIndex::new(self.text).location_offset(&e.location);
                    vec![Diagnostic::error(offset, e.message)]
                }
            },
            Pass::LowerHostToLlvm => {
                crate::convert_spirv_to_llvm::lower_host_to_llvm(ir, op);
                Vec::new()
            }
            Pass::ConvertSpirvToLlvm(options) => {
                match crate::convert_spirv_to_llvm::run(ir, op, options, self.text) {
                    Ok(warnings) => {
                        for w in warnings {
                            self.located(ir, op, w);
                        }
                        Vec::new()
                    }
                    Err(errors) => errors,
                }
            }
            Pass::Legalize(step) => match crate::legalize::run_step(ir, op, *step) {
                Ok(()) => Vec::new(),
                Err(e) => {
                    let offset = LineIndex::new(self.text).location_offset(&e.location);
                    let mut d = Diagnostic::error(offset, e.message);
                    if let Some(at) = e.op {
                        d = d.with_note(offset, current_operation_note(ir, at));
                    }
                    vec![d]
                }
            },
        };
        // Any report from these passes (even a remark) means they gave up.
        if !errors.is_empty() {
            self.pass_errors(errors);
            return false;
        }
        self.verify_after_pass(ir, op)
    }

    /// mlir-opt verifies the op a pass ran on once it is done.
    fn verify_after_pass(&mut self, ir: &Ir, op: OpId) -> bool {
        let Some((invalid, mut errors)) = spirvkit_ir::verify::first_failure(ir, op, self.text) else {
            return true;
        };
        if self.op_notes {
            attach_op_note(ir, invalid, &mut errors);
        }
        self.diagnostics.extend(errors);
        false
    }

    fn run_inline(&mut self, ir: &mut Ir, op: OpId, options: &InlineOptions) -> bool {
        // The simplification pipeline of each callable op name, parsed on first need
        // as MLIR does (a bad one is reported and left empty).
        let mut pipelines: FxHashMap<String, Option<Pipeline>> = FxHashMap::default();
        let text = self.text;
        self.inline_depth += 1;
        let too_deep = self.inline_depth > MAX_INLINE_DEPTH;
        let mut optimize = |ir: &mut Ir, callable: OpId| -> bool {
            let name = ir.op(callable).name.to_string();
            let pipeline = pipelines.entry(name).or_insert_with_key(|name| {
                if let Some(p) = options.op_pipelines.iter().find(|p| p.anchor == *name) {
                    return Some(p.clone());
                }
                let (p, error) =
                    crate::pipeline::parse_pipeline_body_partially(&options.default_pipeline, name);
                if let Some(e) = error {
                    self.raw.push_str(&e.render_raw());
                }
                (!p.items.is_empty() && !too_deep).then_some(p)
            });
            match pipeline {
                Some(p) => self.run_pipeline(ir, callable, p),
                None => true,
            }
        };
        let result = crate::inline::run(ir, op, options, text, &mut optimize);
        self.inline_depth -= 1;
        match result {
            Ok(()) => self.verify_after_pass(ir, op),
            Err(errors) => {
                self.pass_errors(errors);
                false
            }
        }
    }
}

/// Shows `op` under the first error about it, as mlir-opt does (unless it checks
/// diagnostics) for errors raised on an op, which all verifier errors are but the
/// one MLIR raises at a location.
pub(super) fn attach_op_note(ir: &Ir, op: OpId, diagnostics: &mut [Diagnostic]) {
    const RAISED_AT_LOCATION: &[&str] = &["empty block: expect at least a terminator"];
    if let Some(first) =
        diagnostics.iter_mut().find(|d| d.is_error() && !RAISED_AT_LOCATION.contains(&d.message.as_str()))
    {
        let offset = first.offset;
        first.notes.push(Diagnostic::note(offset, current_operation_note(ir, op)));
    }
}
