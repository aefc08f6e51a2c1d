//! The `spirvkit translate` command, compatible with `mlir-translate-22`'s SPIR-V
//! translations:
//!
//! - `--serialize-spirv`: MLIR text with one `spirv.module` (per chunk) to a binary;
//!   with `--split-input-file` the chunks' binaries are concatenated, as mlir-translate
//!   does, and `--spirv-save-validation-files-with-prefix=P` also writes each to
//!   `P<n>.spv` (n counting from 0) for validation.
//! - `--deserialize-spirv`: a binary to the MLIR text of its `spirv.module`.
//! - `--test-spirv-roundtrip[-debug]`: text -> binary -> text.
//!
//! As in mlir-translate, the chunks' outputs are joined with the output split marker
//! (empty by default) and a newline; errors are reported at the op's location, or at
//! `<unknown>:0` for binary input; `--verify-diagnostics` checks them against the
//! buffer's `expected-*` comments.

use crate::deserialize::{deserialize_module, print_in_halves, read, read_le_words, DeserializeOptions};
use crate::serialize::{
    serialize_halves, serialize_read_back, serialize_read_back_verifying, SerializeOptions,
};
use crate::DeserializeError;
use spirvkit_ir::diag::expected;
use spirvkit_ir::diag::{render, Diagnostic, LineIndex};
use spirvkit_ir::ir::Location;
use spirvkit_ir::text::split_input::{padded_chunk, split_chunks, DEFAULT_SPLIT_MARKER};
use spirvkit_ir::{Ir, OpId, PrintOptions};
use std::ops::Range;

/// Which translation to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Serialize,
    Deserialize,
    Roundtrip,
    /// Round trip with debug information (OpLine/OpString) carried through.
    RoundtripDebug,
    /// `--mlir-to-llvmir`: LLVM dialect to LLVM IR text.
    MlirToLlvmIr,
}

/// `mlir-translate` options this command understands.
#[derive(Clone, Debug)]
pub struct TranslateOptions {
    pub mode: Mode,
    /// `--no-implicit-module`: the buffer (chunk) must be exactly one `spirv.module`.
    pub no_implicit_module: bool,
    pub split_input_file: bool,
    pub split_marker: Option<String>,
    /// `--output-split-marker=`; mlir-translate's default is empty.
    pub output_split_marker: String,
    pub verify_diagnostics: bool,
    /// `--spirv-emit-op-names`.
    pub emit_op_names: bool,
    /// `--spirv-structurize-control-flow` (default true).
    pub structurize: bool,
    /// `--spirv-save-validation-files-with-prefix=`.
    pub validation_prefix: Option<String>,
    /// `--mlir-print-op-generic`.
    pub generic: bool,
    /// `--mlir-print-debuginfo`.
    pub debug_info: bool,
    /// Refuse to write (`--serialize-spirv`) a module that uses a capability,
    /// extension or version its `#spirv.vce` does not declare (judged by the Khronos
    /// grammar, as spirv-val does); on by default,
    /// `--spirv-allow-undeclared-requirements` turns it off.
    pub check_requirements: bool,
    /// Free the IR of each translation (on by default). A process that exits right
    /// after translating can leave it to the operating system instead, as compilers
    /// do: freeing a large module's many small allocations costs about a tenth of
    /// deserializing it.
    pub free_ir: bool,
}

impl Default for TranslateOptions {
    fn default() -> Self {
        TranslateOptions {
            mode: Mode::Roundtrip,
            no_implicit_module: false,
            split_input_file: false,
            split_marker: None,
            output_split_marker: String::new(),
            verify_diagnostics: false,
            emit_op_names: false,
            structurize: true,
            validation_prefix: None,
            generic: false,
            debug_info: false,
            check_requirements: true,
            free_ir: true,
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TranslateResult {
    /// Bytes for the output file (text or a binary).
    pub output: Output,
    pub diagnostics_text: String,
    pub success: bool,
}

/// A run's output (text or a binary) as the pieces it was made in, to be written
/// one after another: a large module's text is printed in pieces
/// (`print_in_halves`) that joining would copy whole. Compares by its bytes.
#[derive(Clone, Debug, Default)]
pub struct Output {
    pieces: Vec<Vec<u8>>,
}

impl Output {
    /// An output of these pieces, in order.
    pub fn from_pieces(pieces: Vec<Vec<u8>>) -> Output {
        Output { pieces }
    }

    /// The pieces, to be written in order.
    pub fn pieces(&self) -> &[Vec<u8>] {
        &self.pieces
    }

    /// The bytes, the pieces joined (the one piece itself when there is one).
    pub fn into_bytes(mut self) -> Vec<u8> {
        match self.pieces.len() {
            0 => Vec::new(),
            1 => self.pieces.pop().unwrap_or_default(),
            _ => self.pieces.concat(),
        }
    }

    /// The bytes, borrowed when there is one piece.
    pub fn bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        match &self.pieces[..] {
            [] => std::borrow::Cow::Borrowed(&[]),
            [one] => std::borrow::Cow::Borrowed(one),
            many => std::borrow::Cow::Owned(many.concat()),
        }
    }

    pub fn len(&self) -> usize {
        self.pieces.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl From<Vec<u8>> for Output {
    fn from(bytes: Vec<u8>) -> Output {
        Output { pieces: vec![bytes] }
    }
}

impl PartialEq for Output {
    fn eq(&self, other: &Output) -> bool {
        self.len() == other.len() && self.pieces.iter().flatten().eq(other.pieces.iter().flatten())
    }
}

impl Eq for Output {}

/// Runs a translation over `input` (text, or a binary for `--deserialize-spirv`), named
/// `file_name` in diagnostics.
pub fn run(input: &[u8], file_name: &str, options: &TranslateOptions) -> TranslateResult {
    if options.mode == Mode::Deserialize {
        return run_deserialize(input, options);
    }
    let source = match std::str::from_utf8(input) {
        Ok(source) => source,
        Err(e) => {
            return TranslateResult {
                output: Output::default(),
                diagnostics_text: format!(
                    "{file_name}: error: input is not UTF-8 (byte {})\n",
                    e.valid_up_to()
                ),
                success: false,
            }
        }
    };
    let mut err = String::new();
    let only_expected = false;
    // As mlir-translate, expectations are read only to verify diagnostics (reading
    // them searches the whole text).
    let mut verifier = options
        .verify_diagnostics
        .then(|| expected::Verifier::new(file_name, source, only_expected, &mut err));
    let chunks: Vec<Range<usize>> = if options.split_input_file {
        let marker =
            options.split_marker.as_deref().filter(|m| !m.is_empty()).unwrap_or(DEFAULT_SPLIT_MARKER);
        split_chunks(source, marker).0
    } else {
        std::iter::once(0..source.len()).collect()
    };
    let index = std::cell::OnceCell::new();
    let mut outputs: Vec<Vec<u8>> = Vec::with_capacity(chunks.len());
    let mut failed = false;
    let mut validation_counter = 0usize;
    for chunk in chunks {
        let (text, pad) = padded_chunk(source, &index, chunk.clone());
        let to_source = |offset: usize| chunk.start + offset.saturating_sub(pad).min(chunk.len());
        let (output, diagnostics) = translate_chunk(&text, file_name, options, &mut validation_counter);
        for mut d in diagnostics {
            d.offset = d.offset.map(to_source);
            for n in &mut d.notes {
                n.offset = n.offset.map(to_source);
            }
            failed |= d.is_error();
            if let Some(verifier) = verifier.as_mut() {
                verifier.process(&d, &mut err);
            } else {
                err.push_str(&render(file_name, source, &d));
            }
        }
        match output {
            Some(bytes) => outputs.push(bytes),
            None => {
                failed = true;
                outputs.push(Vec::new());
            }
        }
    }
    let success = match verifier.as_mut() {
        Some(verifier) => verifier.verify(&mut err),
        None => !failed,
    };
    let output = if outputs.len() == 1 {
        // One chunk (the usual case): its buffer is the output, not a copy of it.
        outputs.pop().unwrap_or_default()
    } else if options.mode == Mode::Serialize {
        outputs.concat()
    } else {
        let separator = format!("{}\n", options.output_split_marker);
        outputs.join(separator.as_bytes())
    };
    TranslateResult { output: output.into(), diagnostics_text: err, success }
}

/// Parses, verifies and translates one chunk; `None` output: the chunk failed.
fn translate_chunk(
    text: &str,
    file_name: &str,
    options: &TranslateOptions,
    validation_counter: &mut usize,
) -> (Option<Vec<u8>>, Vec<Diagnostic>) {
    if options.mode == Mode::MlirToLlvmIr {
        return translate_to_llvm_ir(text, file_name);
    }
    let serialize_options = SerializeOptions {
        emit_symbol_names: true,
        emit_op_names: options.emit_op_names,
        emit_debug_info: options.mode == Mode::RoundtripDebug,
        // mlir-translate serializes modules whatever their VCE triple says.
        check_requirements: false,
        dxc_decoration_order: false,
        dxc_constants_first: false,
        struct_names: std::collections::BTreeMap::new(),
        unnamed_variables: std::collections::BTreeSet::new(),
        entry_point_names: std::collections::BTreeMap::new(),
        dxc_debug_lines: false,
        module_processed: Vec::new(),
        binding_order: Vec::new(),
    };
    let (ir, module, serialized) = match serialize_in_pieces(text, file_name, options, &serialize_options) {
        Some(done) => done,
        None => match parse_verify_serialize(text, file_name, options, &serialize_options) {
            Ok(done) => done,
            Err(diagnostics) => return (None, diagnostics),
        },
    };
    let binary = match serialized {
        Ok(binary) => binary,
        Err(e) => {
            let index = LineIndex::new(text);
            return (None, vec![Diagnostic::error(located(&index, &e.location), e.message)]);
        }
    };
    // The round-trip modes write no binary (MLIR's tests round-trip many modules
    // that declare less than they use), so only a written binary is held to it.
    if options.check_requirements && options.mode == Mode::Serialize {
        if let Some(message) = undeclared_requirements(&binary) {
            let index = LineIndex::new(text);
            return (None, vec![Diagnostic::error(located(&index, &ir.op(module).location), message)]);
        }
    }
    // Only the words are needed now (freed once they are bytes).
    let words = binary.into_words();
    let bytes = spirvkit_binary::write::words_to_bytes(&words, spirvkit_binary::module::Endian::Little);
    drop(words);
    discard(ir, options.free_ir);
    if options.mode == Mode::Serialize {
        if let Some(prefix) = options.validation_prefix.as_deref().filter(|p| !p.is_empty()) {
            let path = format!("{prefix}{}.spv", *validation_counter);
            *validation_counter += 1;
            if let Err(e) = std::fs::write(&path, &bytes) {
                return (None, vec![Diagnostic::error(None, format!("cannot write '{path}': {e}"))]);
            }
        }
        return (Some(bytes), Vec::new());
    }
    let deserialize_options = DeserializeOptions {
        structurize: options.structurize,
        debug_locations: options.mode == Mode::RoundtripDebug,
    };
    match read(&bytes).and_then(|module| deserialize_and_print(&module, &deserialize_options, options)) {
        Ok((pieces, warning)) => {
            let text = pieces.concat().into_bytes();
            (Some(text), warning.map(|w| Diagnostic::warning(None, w)).into_iter().collect())
        }
        Err(e) => (None, vec![Diagnostic::error(None, e.to_string())]),
    }
}

/// Parses and verifies one chunk and writes it as LLVM IR text.
fn translate_to_llvm_ir(text: &str, file_name: &str) -> (Option<Vec<u8>>, Vec<Diagnostic>) {
    let (ir, top) = match spirvkit_ir::parse(text, file_name) {
        Ok(parsed) => parsed,
        Err(e) => return (None, vec![e.into()]),
    };
    if let Some((_, found)) = spirvkit_ir::verify::first_failure(&ir, top, text) {
        return (None, found);
    }
    match crate::to_llvm_ir::to_llvm_ir(&ir, top) {
        Ok(llvm_ir) => (Some(llvm_ir.into_bytes()), Vec::new()),
        Err(e) => {
            let index = LineIndex::new(text);
            (None, vec![Diagnostic::error(located(&index, &e.location), e.message)])
        }
    }
}

/// A large module that verifies, parsed in two pieces and serialized from them (no
/// merge; see `serialize::serialize_halves`): the first piece's IR, the module op
/// in it and the binary. `None` for any other module (the pieces are dropped).
fn serialize_in_pieces(
    text: &str,
    file_name: &str,
    options: &TranslateOptions,
    serialize_options: &SerializeOptions,
) -> Option<(Ir, OpId, Result<crate::serialize::Serialized, crate::SerializeError>)> {
    let mut halves = spirvkit_ir::text::split_parse::parse_halves(text, file_name)?;
    let (ir, top) = &halves.first;
    let module = spirv_module(ir, *top, options.no_implicit_module).ok();
    let serialized = module
        .filter(|&module| spirvkit_ir::parallel::spirv_module(ir, *top) == Some(module))
        .and_then(|_| serialize_halves(&mut halves, text, serialize_options));
    let spirvkit_ir::text::split_parse::Halves { first: (ir, _), second: (other, _), .. } = halves;
    discard(other, options.free_ir);
    match (module, serialized) {
        (Some(module), Some(serialized)) => Some((ir, module, serialized)),
        _ => {
            discard(ir, options.free_ir);
            None
        }
    }
}

/// Parses (a large module on two threads; its errors are always a whole parse's),
/// verifies (a large module while it serializes) and serializes: the IR, the module
/// op and the binary, or the diagnostics of a text that does not parse or verify.
fn parse_verify_serialize(
    text: &str,
    file_name: &str,
    options: &TranslateOptions,
    serialize_options: &SerializeOptions,
) -> Result<(Ir, OpId, Result<crate::serialize::Serialized, crate::SerializeError>), Vec<Diagnostic>> {
    let (mut ir, mut top) =
        spirvkit_ir::text::split_parse::parse(text, file_name).map_err(|e| vec![e.into()])?;
    // A large module that verifies is verified while it is serialized; any other
    // verifies first.
    let verified_beside = spirv_module(&ir, top, options.no_implicit_module).ok().and_then(|module| {
        serialize_read_back_verifying(&ir, top, module, text, serialize_options)
            .map(|binary| (module, binary))
    });
    if let Some((module, serialized)) = verified_beside {
        return Ok((ir, module, serialized));
    }
    if spirvkit_ir::verify::first_failure(&ir, top, text).is_some() {
        // Report what verifying a whole parse finds (the same failure, but its op
        // order is the one to report by).
        (ir, top) = spirvkit_ir::parse(text, file_name).map_err(|e| vec![e.into()])?;
        if let Some((_, found)) = spirvkit_ir::verify::first_failure(&ir, top, text) {
            return Err(found);
        }
    }
    let module = spirv_module(&ir, top, options.no_implicit_module).map_err(|(message, location)| {
        let offset = location.and_then(|l| located(&LineIndex::new(text), &l)).unwrap_or(0);
        vec![Diagnostic::error(Some(offset), message)]
    })?;
    let serialized = serialize_read_back(&ir, module, serialize_options);
    Ok((ir, module, serialized))
}

/// Frees an IR, a large one on another thread (the CLI exits, ending that thread,
/// right after writing its output, which needs no more of it); or, when `free` is
/// off, leaves it to the end of the process.
fn discard(ir: Ir, free: bool) {
    const LARGE: usize = 50_000;
    if !free {
        std::mem::forget(ir);
    } else if ir.op_count() >= LARGE {
        // When no thread can be started, the IR is dropped here with the closure.
        let _ = std::thread::Builder::new().spawn(move || drop(ir));
    }
}

/// The `spirv.module` to translate, as mlir-translate finds it; errors carry the
/// location of the op that is not one, if any.
fn spirv_module(ir: &Ir, top: OpId, no_implicit_module: bool) -> Result<OpId, (String, Option<Location>)> {
    let candidate = if no_implicit_module {
        let body = ir.op(top).regions.first().and_then(|&r| ir.region(r).blocks.first().copied());
        let ops = body.map(|b| ir.block(b).ops.clone()).unwrap_or_default();
        // The parser's implicit module is the one without a location; an explicit
        // `module { ... }` is itself the single top-level op.
        let implicit = ir.op(top).name == "builtin.module" && ir.op(top).location == Location::Unknown;
        if !implicit {
            top
        } else if ops.len() != 1 {
            return Err((
                format!("source must contain a single top-level operation, found: {}", ops.len()),
                None,
            ));
        } else {
            ops[0]
        }
    } else {
        top
    };
    let name = &ir.op(candidate).name;
    if *name != "spirv.module" {
        return Err((
            format!("expected a 'spirv.module' op, got '{name}'"),
            Some(ir.op(candidate).location.clone()),
        ));
    }
    Ok(candidate)
}

/// What the written module uses without declaring it (by the grammar's availability,
/// as spirv-val checks it), as an error message; `None` when nothing is missing.
fn undeclared_requirements(serialized: &crate::serialize::Serialized) -> Option<String> {
    let missing = serialized.undeclared();
    let first = missing.first()?;
    let more = match missing.len() - 1 {
        0 => String::new(),
        n => format!(" (and {n} more)"),
    };
    Some(format!(
        "module not serialized: its #spirv.vce does not declare what it uses: {} needs {}{more}",
        first.user, first.requirement
    ))
}

fn located(index: &LineIndex, location: &Location) -> Option<usize> {
    index.location_offset(location)
}

/// Prints a deserialized module. A binary can be valid SPIR-V that the dialect's
/// verifier rejects (an `OpIAdd` of an `int` and a `uint`, which MLIR's types cannot
/// hold): mlir-translate refuses it; here it prints in the generic form, which reads
/// back with every type as it is, with a warning naming the first failure.
///
/// The verifier of a module worth two threads runs while the custom form prints, on
/// another thread: the verdict almost always keeps that text, and the two walks each
/// take a fair share of the translation.
fn print_deserialized(ir: &Ir, op: OpId, options: &TranslateOptions) -> (String, Option<String>) {
    let verify = || spirvkit_ir::verify::first_failure(ir, op, "");
    let (custom, verdict) = if spirvkit_ir::parallel::worth_two_threads(ir.op_count()) {
        spirvkit_ir::parallel::both(|| print_module(ir, op, options), verify)
    } else {
        (print_module(ir, op, options), None)
    };
    // Not on another thread: verify here.
    let verdict = verdict.unwrap_or_else(verify);
    match verdict {
        None => (custom, None),
        Some((failing, diagnostics)) => {
            let generic = TranslateOptions { generic: true, ..options.clone() };
            let reason = diagnostics.first().map_or("it does not verify", |d| d.message.as_str());
            let warning = format!(
                "the deserialized module does not verify ('{}': {reason}); printed in the generic form",
                ir.op(failing).name
            );
            (print_module(ir, op, &generic), Some(warning))
        }
    }
}

/// Deserializes `bytes` and prints the module as [`print_deserialized`] does; a large
/// module that verifies is deserialized, verified and printed in halves on two
/// threads without being put together (`print_in_halves`).
fn deserialize_and_print(
    module: &spirvkit_binary::Module,
    deserialize_options: &DeserializeOptions,
    options: &TranslateOptions,
) -> Result<(Vec<String>, Option<String>), DeserializeError> {
    if let Some(printed) = print_in_halves(module, deserialize_options, print_options(options)) {
        let [first, second] = printed.irs;
        discard(first, options.free_ir);
        discard(second, options.free_ir);
        return Ok((finish_printed_pieces(printed.pieces, options), None));
    }
    let mut ir = Ir::new();
    let result = deserialize_module(module, &mut ir, deserialize_options)
        .map(|op| print_deserialized(&ir, op, options))
        .map(|(text, warning)| (vec![text], warning));
    discard(ir, options.free_ir);
    result
}

fn print_options(options: &TranslateOptions) -> PrintOptions {
    PrintOptions { generic: options.generic, debug_info: options.debug_info, ..Default::default() }
}

fn print_module(ir: &Ir, op: OpId, options: &TranslateOptions) -> String {
    finish_printed(spirvkit_ir::print(ir, op, print_options(options)), options)
}

/// The printer's text as mlir-translate ends it.
fn finish_printed(printed: String, options: &TranslateOptions) -> String {
    // One piece in, at most one out: the text itself, not a copy.
    finish_printed_pieces(vec![printed], options).pop().unwrap_or_default()
}

/// [`finish_printed`] of a text in pieces: the line breaks that end it may end
/// several pieces.
fn finish_printed_pieces(mut pieces: Vec<String>, options: &TranslateOptions) -> Vec<String> {
    while let Some(last) = pieces.last_mut() {
        last.truncate(last.trim_end_matches('\n').len());
        if !last.is_empty() {
            break;
        }
        pieces.pop();
    }
    // As mlir-translate: no line break after the last location (local-scope form).
    if !options.debug_info {
        match pieces.last_mut() {
            Some(last) => last.push('\n'),
            None => pieces.push("\n".to_string()),
        }
    }
    pieces
}

fn run_deserialize(input: &[u8], options: &TranslateOptions) -> TranslateResult {
    deserialized(read(input), options)
}

/// [`run`] over an input read as little-endian words (its bytes taken four at a
/// time, `u32::from_le_bytes`), with `run`'s result for those bytes. A binary to
/// deserialize is read from the words themselves ([`spirvkit_binary::read_le_words`]:
/// a file reader need not hold the bytes, and no second buffer is made); the text
/// modes take the bytes back.
pub fn run_words(words: Vec<u32>, file_name: &str, options: &TranslateOptions) -> TranslateResult {
    if options.mode == Mode::Deserialize {
        return deserialized(read_le_words(words), options);
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    run(&bytes, file_name, options)
}

/// The translation of `--deserialize-spirv` once the binary is read.
fn deserialized(
    module: Result<spirvkit_binary::Module, DeserializeError>,
    options: &TranslateOptions,
) -> TranslateResult {
    let deserialize_options = DeserializeOptions { structurize: options.structurize, debug_locations: true };
    match module.and_then(|module| deserialize_and_print(&module, &deserialize_options, options)) {
        Ok((pieces, warning)) => TranslateResult {
            output: Output::from_pieces(pieces.into_iter().map(String::into_bytes).collect()),
            diagnostics_text: warning.map(|w| format!("<unknown>:0: warning: {w}\n")).unwrap_or_default(),
            success: true,
        },
        Err(e) => TranslateResult {
            output: Output::default(),
            diagnostics_text: format!("<unknown>:0: error: {}\n", e.message),
            success: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_compare_and_join_by_their_bytes() {
        let pieces = Output::from_pieces(vec![b"spirv".to_vec(), Vec::new(), b".module".to_vec()]);
        let whole = Output::from(b"spirv.module".to_vec());
        assert_eq!(pieces, whole);
        assert_ne!(pieces, Output::from(b"spirv.modulE".to_vec()));
        assert_ne!(pieces, Output::from(b"spirv.modul".to_vec()));
        assert_eq!((pieces.len(), pieces.bytes().into_owned()), (12, b"spirv.module".to_vec()));
        assert_eq!(pieces.clone().into_bytes(), whole.clone().into_bytes());
        assert!(Output::default().is_empty() && Output::default().into_bytes().is_empty());
    }

    #[test]
    fn printed_pieces_end_as_the_joined_text() {
        let pieces = |parts: &[&str]| parts.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        for debug_info in [false, true] {
            let options = TranslateOptions { debug_info, ..TranslateOptions::default() };
            for parts in [&["a\n", "b\n\n", "\n", ""][..], &["a", "\n"], &["\n", "\n"], &["a\nb"], &[]] {
                let joined = finish_printed(parts.concat(), &options);
                assert_eq!(finish_printed_pieces(pieces(parts), &options).concat(), joined, "{parts:?}");
            }
        }
    }

    #[test]
    fn no_implicit_module_wants_one_spirv_module() {
        let options = TranslateOptions { no_implicit_module: true, ..TranslateOptions::default() };
        let two = "spirv.module Logical GLSL450 {\n}\nspirv.module Logical GLSL450 {\n}\n";
        let result = run(two.as_bytes(), "t.mlir", &options);
        assert!(!result.success);
        assert!(
            result.diagnostics_text.contains("source must contain a single top-level operation, found: 2"),
            "{}",
            result.diagnostics_text
        );
        let wrapped = "module {\n  spirv.module Logical GLSL450 {\n  }\n}\n";
        let result = run(wrapped.as_bytes(), "t.mlir", &options);
        assert!(result.diagnostics_text.contains("expected a 'spirv.module' op, got 'builtin.module'"));
    }

    #[test]
    fn undeclared_requirements_are_refused_when_writing_a_binary() {
        // GLSL450 needs the Shader capability, which the VCE does not declare.
        let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Linkage], []> {\n}\n";
        let serialize =
            TranslateOptions { mode: Mode::Serialize, no_implicit_module: true, ..Default::default() };
        let result = run(text.as_bytes(), "t.mlir", &serialize);
        assert!(!result.success);
        assert!(
            result.diagnostics_text.starts_with(
                "t.mlir:1:1: error: module not serialized: its #spirv.vce does not declare what it uses: \
                 MemoryModel GLSL450 needs capability Shader"
            ),
            "{}",
            result.diagnostics_text
        );
        assert!(result.output.is_empty());
        let allowed = TranslateOptions { check_requirements: false, ..serialize.clone() };
        assert!(run(text.as_bytes(), "t.mlir", &allowed).success);
        let complete = text.replace("[Linkage]", "[Shader, Linkage]");
        assert!(run(complete.as_bytes(), "t.mlir", &serialize).success);
    }

    #[test]
    fn modules_the_verifier_rejects_print_generic_with_a_warning() {
        // Valid SPIR-V: OpSelect of an `int` and a `uint`; MLIR's types cannot hold it.
        let text = "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n\
                    %void = OpTypeVoid\n%uint = OpTypeInt 32 0\n%int = OpTypeInt 32 1\n\
                    %u1 = OpConstant %uint 1\n%i1 = OpConstant %int 1\n%fn = OpTypeFunction %void\n\
                    %bool = OpTypeBool\n%t = OpConstantTrue %bool\n\
                    %f = OpFunction %void None %fn\n%entry = OpLabel\n%sum = OpSelect %uint %t %u1 %i1\n\
                    OpReturn\nOpFunctionEnd\n";
        let words = spirvkit_binary::assemble(text, &Default::default()).expect("assembles");
        let bytes = spirvkit_binary::words_to_bytes(&words, spirvkit_binary::Endian::Little);
        let options = TranslateOptions { mode: Mode::Deserialize, ..TranslateOptions::default() };
        let result = run(&bytes, "m.spv", &options);
        assert!(result.success, "{}", result.diagnostics_text);
        assert!(
            result
                .diagnostics_text
                .starts_with("<unknown>:0: warning: the deserialized module does not verify ('spirv.Select'"),
            "{}",
            result.diagnostics_text
        );
        let printed = String::from_utf8(result.output.into_bytes()).expect("text");
        assert!(printed.contains("\"spirv.Select\"(%0, %1, %2) : (i1, i32, si32) -> i32"), "{printed}");
        spirvkit_ir::parse(&printed, "m.mlir").expect("the generic form reads back");
    }

    #[test]
    fn binary_errors_have_unknown_location() {
        let options = TranslateOptions { mode: Mode::Deserialize, ..TranslateOptions::default() };
        let result = run(b"garbage!", "g.spv", &options);
        assert!(!result.success);
        assert!(result.diagnostics_text.starts_with("<unknown>:0: error: "), "{}", result.diagnostics_text);
    }
}
