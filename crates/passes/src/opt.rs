//! An `mlir-opt`-compatible driver: parse, verify and print a buffer, optionally split
//! into chunks (`--split-input-file`), optionally checking the diagnostics against the
//! buffer's `expected-*` comments (`--verify-diagnostics`).
//!
//! Behaviour follows `mlir-opt` 22:
//!
//! - Splitting is MLIR's `splitAndProcessBuffer`: the text is cut at every `// ---`
//!   (the marker less its last two characters), anywhere on a line, and a piece starts
//!   a new chunk only when it begins with the remaining `--`, is longer than that and
//!   its next character is not `0` (MLIR's check); otherwise MLIR warns `near miss with
//!   file split marker` and the piece stays in the current chunk. So `// -----` ends
//!   a chunk wherever it appears (`// ------` leaves a `-` in the next chunk). Empty
//!   chunks are dropped.
//! - Each chunk is parsed on its own but keeps the whole file's line and column
//!   numbers (in diagnostics and in op locations).
//! - The chunks' outputs (the printed op and an empty line, or nothing for a chunk
//!   that failed) are joined with `<output marker>\n`.
//! - With `--verify-diagnostics`, expectations are read from the whole buffer once;
//!   unexpected diagnostics are reported as they happen, unmatched expectations at
//!   the end; the run succeeds iff everything matched, whatever the chunks did.
//!   Without it, the run succeeds iff no chunk produced an error. (mlir-opt 22 builds
//!   the expectation checker in both modes and its destructor reports unmatched
//!   expectations; so without the flag, every `expected-*` comment is reported as
//!   not produced, without affecting the exit status. This is reproduced.)
//!
//! - Passes come as flags or as `--pass-pipeline` (see [`crate::pipeline`]) and run
//!   on each chunk after it verified: a nested pipeline runs on the ops of its anchor
//!   directly inside the current op, each in turn. A pass mlir-opt has that spirvkit
//!   lacks makes the run fail with `not supported yet: pass <name>`.

mod runner;

use crate::pipeline::{Pipeline, ANY_ANCHOR};
use runner::PassRunner;
use spirvkit_ir::diag::{expected, render, render_message, Diagnostic, LineIndex, Severity};
use spirvkit_ir::ir::{Ir, Location, OpId};
use spirvkit_ir::opdef::REGISTERED_DIALECTS;
use spirvkit_ir::text::printer::PrintOptions;
pub use spirvkit_ir::text::split_input::{padded_chunk, split_chunks, DEFAULT_SPLIT_MARKER};
use std::ops::Range;

const UNREGISTERED_DIALECT_MESSAGE: &str = "operation being parsed with an unregistered dialect. If this is \
     intended, please use -allow-unregistered-dialect with the MLIR tool used";

/// `mlir-opt` options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptOptions {
    /// `--split-input-file[=MARKER]`.
    pub split_input_file: bool,
    /// The marker given to `--split-input-file=`; `None` or empty: `// -----`.
    pub split_marker: Option<String>,
    /// `--output-split-marker=`; `None`: `// -----`.
    pub output_split_marker: Option<String>,
    /// `--verify-diagnostics`.
    pub verify_diagnostics: bool,
    /// `--verify-diagnostics=only-expected`: only check that expectations are met.
    pub verify_only_expected: bool,
    /// `--mlir-print-op-generic`.
    pub generic: bool,
    /// `--mlir-print-debuginfo`.
    pub debug_info: bool,
    /// `--mlir-print-strict-properties`: newer MLIR's property syntax in custom forms
    /// (see `spirvkit_ir::PrintOptions::strict_properties`).
    pub strict_properties: bool,
    /// Pass flags, in order, as given (`--canonicalize`, `-inline=default-pipeline=`).
    pub passes: Vec<String>,
    /// `--pass-pipeline=` (exclusive with pass flags).
    pub pass_pipeline: Option<String>,
    /// `--allow-unregistered-dialect`.
    pub allow_unregistered_dialect: bool,
}

/// What a run produced: the text for standard output and standard error.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptResult {
    pub output: String,
    pub diagnostics_text: String,
    pub success: bool,
}

/// Runs the driver over a whole buffer named `file_name` (as diagnostics show it:
/// `<stdin>` for standard input).
pub fn run(source: &str, file_name: &str, options: &OptOptions) -> OptResult {
    let pipeline = match build_pipeline(options) {
        Ok(pipeline) => pipeline,
        Err(diagnostics_text) => {
            return OptResult { output: String::new(), diagnostics_text, success: false }
        }
    };
    let mut err = String::new();
    // mlir-opt 22 builds the expectation checker over the whole buffer whether or not
    // `--verify-diagnostics` is given (malformed `-re` expectations are reported
    // here), but only feeds it diagnostics in that mode.
    let mut verifier = expected::Verifier::new(file_name, source, options.verify_only_expected, &mut err);
    let chunks = if options.split_input_file {
        let marker =
            options.split_marker.as_deref().filter(|m| !m.is_empty()).unwrap_or(DEFAULT_SPLIT_MARKER);
        let (chunks, near_misses) = split_chunks(source, marker);
        for offset in near_misses {
            err.push_str(&render_message(
                file_name,
                source,
                Some(offset),
                Severity::Warning,
                "near miss with file split marker",
                None,
                true,
            ));
        }
        chunks
    } else {
        std::iter::once(0..source.len()).collect()
    };

    let index = std::cell::OnceCell::new();
    let print_options = PrintOptions {
        generic: options.generic,
        debug_info: options.debug_info,
        strict_properties: options.strict_properties,
        ..Default::default()
    };
    let mut outputs = Vec::with_capacity(chunks.len());
    let mut failed = false;
    let mut unexpected = false;
    for chunk in chunks {
        let ChunkOutcome { output, diagnostics, raw, unexpected: unexpected_raw } =
            process_chunk(source, &index, chunk, file_name, options, &pipeline, print_options);
        err.push_str(&raw);
        unexpected |= unexpected_raw;
        // No output means the chunk failed, even when a pass only left a remark.
        if output.is_none() || diagnostics.iter().any(Diagnostic::is_error) {
            failed = true;
        }
        for d in &diagnostics {
            if options.verify_diagnostics {
                verifier.process(d, &mut err);
            } else {
                err.push_str(&render(file_name, source, d));
            }
        }
        outputs.push(output.unwrap_or_default());
    }
    // As in mlir-opt 22: in verify mode the checker's result decides; either way, the
    // checker's destructor then reports the expectations still unmatched (so, outside
    // verify mode, every expectation, without failing the run; in verify mode, the
    // unmatched `@unknown` ones a second time).
    let success = if options.verify_diagnostics { verifier.verify(&mut err) && !unexpected } else { !failed };
    verifier.verify(&mut err);
    let output = if options.split_input_file {
        let marker = options.output_split_marker.as_deref().unwrap_or(DEFAULT_SPLIT_MARKER);
        outputs.join(&format!("{marker}\n"))
    } else if outputs.len() == 1 {
        outputs.pop().unwrap_or_default()
    } else {
        outputs.concat()
    };
    OptResult { output, diagnostics_text: err, success }
}

/// The pipeline the options ask for; errors are the standard-error text.
fn build_pipeline(options: &OptOptions) -> Result<Pipeline, String> {
    match &options.pass_pipeline {
        Some(_) if !options.passes.is_empty() => {
            Err("<unknown>:0: error: '-pass-pipeline' option can't be used with individual pass options\n"
                .to_string())
        }
        Some(text) => crate::pipeline::parse_pass_pipeline(text).map_err(|e| e.render()),
        None => crate::pipeline::from_flags(&options.passes).map_err(|e| e.render()),
    }
}

/// What processing a chunk gave.
struct ChunkOutcome {
    /// The printed IR (`None`: the chunk failed).
    output: Option<String>,
    /// With offsets into the whole source.
    diagnostics: Vec<Diagnostic>,
    /// Text for standard error as is, before the diagnostics.
    raw: String,
    /// An error shown only in `raw` that `--verify-diagnostics` could not expect.
    unexpected: bool,
}

/// Parses, checks and prints one chunk.
fn process_chunk(
    source: &str,
    index: &std::cell::OnceCell<LineIndex>,
    chunk: Range<usize>,
    file_name: &str,
    options: &OptOptions,
    pipeline: &Pipeline,
    print_options: PrintOptions,
) -> ChunkOutcome {
    let (text, pad) = padded_chunk(source, index, chunk.clone());
    let to_source = |offset: usize| chunk.start + offset.saturating_sub(pad).min(chunk.len());
    let relocate = |mut d: Diagnostic| {
        d.offset = d.offset.map(to_source);
        for n in &mut d.notes {
            n.offset = n.offset.map(to_source);
        }
        d
    };

    let failure = |diagnostics: Vec<Diagnostic>| ChunkOutcome {
        output: None,
        diagnostics,
        raw: String::new(),
        unexpected: false,
    };
    let (mut ir, top) = match spirvkit_ir::parse(&text, file_name) {
        Ok(parsed) => parsed,
        Err(e) => return failure(vec![relocate(e.into())]),
    };
    // Ops of dialects mlir-opt does not register are refused before verification; they
    // are looked for in the verifier's walk (the ops are then read once).
    let mut unregistered = UnregisteredOps::new(&ir, &text, file_name);
    let first_failure = if options.allow_unregistered_dialect {
        spirvkit_ir::verify::first_failure(&ir, top, &text)
    } else {
        spirvkit_ir::verify::first_failure_visiting(&ir, top, &text, &mut |op| unregistered.visit(op))
    };
    if let Some(offset) = unregistered.first() {
        return failure(vec![relocate(Diagnostic::error(Some(offset), UNREGISTERED_DIALECT_MESSAGE))]);
    }
    let mut diagnostics: Vec<Diagnostic> = match first_failure {
        Some((invalid, mut found)) => {
            if !options.verify_diagnostics {
                runner::attach_op_note(&ir, invalid, &mut found);
            }
            found.into_iter().map(relocate).collect()
        }
        None => Vec::new(),
    };
    if diagnostics.iter().any(Diagnostic::is_error) {
        return failure(diagnostics);
    }
    // MLIR puts an implicit module at line 0, column 0 of its buffer: shown as such
    // for the first chunk, at the chunk's start for the others.
    let implicit_module_offset = (chunk.start > 0).then_some(pad);
    let mut runner = PassRunner::new(&text, file_name, options, implicit_module_offset);
    let top_name = ir.op(top).name.clone();
    let succeeded = if pipeline.anchor != ANY_ANCHOR && pipeline.anchor != top_name {
        let message = format!("can't run '{}' pass manager on '{top_name}' op", pipeline.anchor);
        runner.error(&ir, top, message, false);
        false
    } else {
        runner.run_pipeline(&mut ir, top, pipeline)
    };
    diagnostics.extend(runner.diagnostics.drain(..).map(relocate));
    // mlir-opt prints the op, a newline, and one more newline; with locations, whose
    // local-scope form we print, just the newline (the blank line goes with aliases).
    if print_options.debug_info && matches!(ir.op(top).location, spirvkit_ir::ir::Location::Unknown) {
        // The implicit top-level module is located where its chunk starts: 0:0 for
        // the buffer's start, as mlir-opt prints it.
        let (line, column) = if chunk.start == 0 {
            (0, 0)
        } else {
            index.get_or_init(|| LineIndex::new(source)).line_col(chunk.start)
        };
        ir.op_mut(top).location =
            spirvkit_ir::ir::Location::FileLineCol { file: file_name.into(), line, column };
    }
    let output = succeeded.then(|| {
        let mut printed = spirvkit_ir::print(&ir, top, print_options);
        printed.truncate(printed.trim_end_matches('\n').len());
        printed.push_str(if print_options.debug_info { "\n" } else { "\n\n" });
        if !runner.report.is_empty() {
            printed.insert_str(0, &runner.report);
        }
        printed
    });
    ChunkOutcome { output, diagnostics, raw: runner.raw, unexpected: runner.unexpected }
}

/// Looks, op by op, for the first op (in source order) of a dialect `mlir-opt` does
/// not register, located where MLIR reports it: just after the quoted op name.
struct UnregisteredOps<'a> {
    ir: &'a Ir,
    text: &'a str,
    file_name: &'a str,
    index: std::cell::OnceCell<LineIndex>,
    /// The smallest offset so far (`usize::MAX`: an op without one).
    first: Option<usize>,
}

impl<'a> UnregisteredOps<'a> {
    fn new(ir: &'a Ir, text: &'a str, file_name: &'a str) -> Self {
        UnregisteredOps { ir, text, file_name, index: std::cell::OnceCell::new(), first: None }
    }

    fn visit(&mut self, op: OpId) {
        let operation = self.ir.op(op);
        // The tables' ops all belong to registered dialects.
        if operation.name.is_known() || !operation.name.contains('.') {
            return;
        }
        let dialect = operation.name.split('.').next().unwrap_or("");
        if REGISTERED_DIALECTS.contains(&dialect) {
            return;
        }
        let (text, file_name) = (self.text, self.file_name);
        let offset = match &operation.location {
            Location::FileLineCol { file, line, column } if **file == *file_name => {
                let index = self.index.get_or_init(|| LineIndex::new(text));
                index.offset(*line, *column).map(|o| after_quoted_name(text, o))
            }
            _ => None,
        };
        let key = offset.unwrap_or(usize::MAX);
        if self.first.is_none_or(|k| key < k) {
            self.first = Some(key);
        }
    }

    /// The offset to report, if there is such an op.
    fn first(&self) -> Option<usize> {
        self.first.map(|offset| if offset == usize::MAX { 0 } else { offset })
    }
}

/// The offset just after the first string literal at or after `from` (the generic
/// op name `"dialect.op"`), or `from` when there is none.
fn after_quoted_name(text: &str, from: usize) -> usize {
    let bytes = text.as_bytes();
    let Some(open) = bytes[from..].iter().position(|&b| b == b'"').map(|p| from + p) else {
        return from;
    };
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            b'\n' => break,
            _ => i += 1,
        }
    }
    from
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_are_not_supported() {
        let options =
            OptOptions { passes: vec!["--loop-invariant-code-motion".into()], ..Default::default() };
        let r = run("", "f.mlir", &options);
        assert!(!r.success);
        assert_eq!(r.diagnostics_text, "error: not supported yet: pass --loop-invariant-code-motion\n");
        assert_eq!(r.output, "");
        let options = OptOptions {
            pass_pipeline: Some("builtin.module(spirv.module(loop-invariant-code-motion))".into()),
            ..Default::default()
        };
        let r = run("", "f.mlir", &options);
        assert_eq!(r.diagnostics_text, "error: not supported yet: pass loop-invariant-code-motion\n");
        assert!(!r.success);
    }

    #[test]
    fn nested_pipelines_run_on_their_anchors_only() {
        // The same fold inside a func.func and inside a spirv.func: only the first is
        // under `func.func(...)`.
        let source =
            "func.func @f(%a: i32) -> i32 {\n  %c = spirv.Constant 0 : i32\n  %0 = spirv.IAdd %a, %c : i32\n  \
                      return %0 : i32\n}\nspirv.module Logical GLSL450 {\n  spirv.func @g(%a: i32) -> i32 \"None\" {\n    \
                      %c = spirv.Constant 0 : i32\n    %0 = spirv.IAdd %a, %c : i32\n    spirv.ReturnValue %0 : i32\n  }\n}\n";
        let options = OptOptions {
            pass_pipeline: Some("builtin.module(func.func(canonicalize{test-convergence}))".into()),
            ..Default::default()
        };
        let r = run(source, "n.mlir", &options);
        assert!(r.success, "{}", r.diagnostics_text);
        assert_eq!(r.output.matches("spirv.IAdd").count(), 1, "{}", r.output);
        assert!(r.output.contains("    return %arg0 : i32\n"), "{}", r.output);

        // As mlir-opt-22: the implicit module is at 0:0 of the first chunk.
        let options = OptOptions { pass_pipeline: Some("func.func(cse)".into()), ..Default::default() };
        let r = run(source, "n.mlir", &options);
        assert!(!r.success);
        assert_eq!(
            r.diagnostics_text,
            "n.mlir:0:0: error: can't run 'func.func' pass manager on 'builtin.module' op\n"
        );
        assert_eq!(r.output, "");
    }

    #[test]
    fn verifier_errors_show_the_op_unless_checked() {
        // As mlir-opt-22 prints it.
        let source =
            "func.func @f(%a: f16) -> f16 {\n  %0 = spirv.BitwiseOr %a, %a : f16\n  return %0 : f16\n}\n";
        let r = run(source, "bo.mlir", &OptOptions::default());
        assert!(!r.success);
        assert_eq!(
            r.diagnostics_text,
            "bo.mlir:2:8: error: 'spirv.BitwiseOr' op operand #0 must be 8/16/32/64-bit integer or fixed-length \
             vector of 8/16/32/64-bit integer values of length 2/3/4/8/16, but got 'f16'\n  %0 = spirv.BitwiseOr \
             %a, %a : f16\n       ^\nbo.mlir:2:8: note: see current operation: %0 = \"spirv.BitwiseOr\"(%arg0, \
             %arg0) : (f16, f16) -> f16\n"
        );
        let r = run(source, "bo.mlir", &OptOptions { verify_diagnostics: true, ..Default::default() });
        assert!(!r.diagnostics_text.contains("see current operation"), "{}", r.diagnostics_text);
    }

    #[test]
    fn split_outputs_are_joined() {
        let options = OptOptions { split_input_file: true, ..Default::default() };
        let r = run("// -----\n// -----\n", "e.mlir", &options);
        assert!(!r.success);
        assert!(r.diagnostics_text.starts_with("e.mlir:1:7: error: "), "{}", r.diagnostics_text);
        assert_eq!(r.output, "// -----\nmodule {\n}\n\n");
        let r = run("", "e.mlir", &options);
        assert!(r.success);
        assert_eq!(r.output, "");
    }

    #[test]
    fn errors_keep_whole_file_positions() {
        let src = "module {\n}\n// -----\nmodule {\n  \"x.y\"() : () -> ()\n}\n";
        let options = OptOptions { split_input_file: true, ..Default::default() };
        let r = run(src, "s.mlir", &options);
        assert!(!r.success);
        assert_eq!(
            r.diagnostics_text,
            format!("s.mlir:5:8: error: {UNREGISTERED_DIALECT_MESSAGE}\n  \"x.y\"() : () -> ()\n       ^\n")
        );
        assert_eq!(r.output, "module {\n}\n\n// -----\n");
        let options = OptOptions { allow_unregistered_dialect: true, ..options };
        assert!(run(src, "s.mlir", &options).success);
    }

    #[test]
    fn verify_diagnostics_over_chunks() {
        let src =
            "module {\n}\n// -----\n// expected-error @+1 {{unregistered dialect}}\n\"x.y\"() : () -> ()\n";
        let options = OptOptions { split_input_file: true, verify_diagnostics: true, ..Default::default() };
        let r = run(src, "v.mlir", &options);
        assert_eq!(r.diagnostics_text, "");
        assert!(r.success);
        assert_eq!(r.output, "module {\n}\n\n// -----\n");

        let src = "// expected-error @+1 {{never}}\nmodule {\n}\n";
        let r = run(src, "v.mlir", &options);
        assert!(!r.success);
        assert!(r
            .diagnostics_text
            .starts_with("v.mlir:1:4: error: expected error \"never\" was not produced\n"));
        assert_eq!(r.output, "module {\n}\n\n");

        // Without the flag, mlir-opt 22 still lists the expectations, but succeeds.
        let r = run(src, "v.mlir", &OptOptions::default());
        assert!(r.success);
        assert!(r
            .diagnostics_text
            .starts_with("v.mlir:1:4: error: expected error \"never\" was not produced\n"));

        // Unmatched `@unknown` expectations are reported twice in verify mode.
        let r = run("// expected-error @unknown {{zzz}}\n", "u.mlir", &options);
        assert!(!r.success);
        assert_eq!(
            r.diagnostics_text,
            "<unknown>:0: error: expected error \"zzz\" was not produced\n".repeat(2)
        );
    }

    #[test]
    fn debug_info_output_is_mlir_opts_local_scope_form() {
        // Expected: mlir-opt-22 --split-input-file --mlir-print-debuginfo
        // --mlir-print-local-scope (the implicit module at its chunk's start, no blank
        // line after the last location, the wrapper of a wrapped op at that op).
        let source = "func.func @a(%x: i32) {\n  return\n}\n// -----\n\
                      func.func @b() -> i32 {\n  %0 = spirv.Constant 1 : i32\n  \
                      %1 = spirv.SpecConstantOperation wraps \"spirv.IAdd\"(%0, %0) : (i32, i32) -> i32\n  \
                      return %1 : i32\n}\n";
        let options = OptOptions { split_input_file: true, debug_info: true, ..Default::default() };
        let r = run(source, "s.mlir", &options);
        assert!(r.success, "{}", r.diagnostics_text);
        let expected = "module {\n  func.func @a(%arg0: i32 loc(\"s.mlir\":1:14)) {\n    return loc(\"s.mlir\":2:3)\n  \
                        } loc(\"s.mlir\":1:1)\n} loc(\"s.mlir\":0:0)\n// -----\nmodule {\n  func.func @b() -> i32 {\n    \
                        %cst1_i32 = spirv.Constant 1 : i32 loc(\"s.mlir\":6:8)\n    \
                        %0 = spirv.SpecConstantOperation wraps \"spirv.IAdd\"(%cst1_i32, %cst1_i32) : (i32, i32) -> i32 \
                        loc(\"s.mlir\":7:42)\n    return %0 : i32 loc(\"s.mlir\":8:3)\n  } loc(\"s.mlir\":5:1)\n} \
                        loc(\"s.mlir\":4:9)\n";
        assert_eq!(r.output, expected);
    }
}
