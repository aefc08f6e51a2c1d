//! Deserializing a large module's functions on two threads.
//!
//! A function body only reads the module-level state (types, constants, globals,
//! names, decorations), so two deserializers can each read the whole module-level
//! section and half of the function bodies; the second IR's functions are then
//! appended after the first's (or, for `--deserialize-spirv`, each half's text is
//! printed on its thread and the second's inserted after the first's functions).
//! The result must be the one a single deserializer gives: both halves must succeed,
//! build the same module-level ops (compared op by op across the two IRs) and
//! together stay within the materialization budget of one; else the caller
//! deserializes the whole module on one thread, which also gives exactly its errors.

use spirvkit_binary::module::Module;
use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_grammar::opcode;
use spirvkit_ir::attr::NamedAttribute;
use spirvkit_ir::ir::Value;
use spirvkit_ir::types::Type;
use spirvkit_ir::{Ir, OpId};

use super::{DeserializeOptions, Deserializer};

/// Modules whose function bodies are smaller than this (in words) deserialize on one
/// thread: a thread, the repeated module-level section and the merge cost more than
/// they save.
const MIN_FUNCTION_WORDS: usize = 1 << 16;

/// The index just past the OpFunctionEnd of the function starting at `start` (the
/// instruction count if it has none).
pub(super) fn function_end(module: &Module, start: usize) -> usize {
    let count = module.instruction_count();
    (start + 1..count)
        .find(|&i| module.instruction(i).is_some_and(|inst| inst.opcode == opcode::OpFunctionEnd))
        .map_or(count, |end| end + 1)
}

/// Deserializes `module` into `ir` (which must be empty) on two threads; `None` when
/// the module is not worth splitting or the halves do not make the whole (see the
/// module docs), leaving `ir` as it was.
pub(super) fn deserialize(module: &Module, ir: &mut Ir, options: &DeserializeOptions) -> Option<OpId> {
    // (A module too small to split needs no asking for cores.)
    if module.words().len() < MIN_FUNCTION_WORDS || !spirvkit_ir::parallel::two_cores() {
        return None;
    }
    deserialize_split(module, ir, options, MIN_FUNCTION_WORDS)
}

/// One half's IR: its module op, and that module's functions and other body ops.
struct Half {
    ir: Ir,
    module: OpId,
    functions: Vec<OpId>,
    rest: Vec<OpId>,
}

/// One half: the module-level section and the function bodies starting in `bodies`
/// (instruction indices), with the materialization budget it used and the whole's.
fn deserialize_half(
    module: &Module,
    options: &DeserializeOptions,
    bodies: std::ops::Range<usize>,
    stream: Option<&mut FunctionStream>,
) -> Option<(Half, usize, usize)> {
    let mut ir = Ir::new();
    if stream.is_none() {
        super::reserve_for_module(&mut ir, module);
    }
    let mut deserializer = Deserializer::new(module, &mut ir, options);
    deserializer.function_bodies = bodies;
    deserializer.stream = stream;
    let budget = deserializer.materialized_budget;
    let (op, used) = deserializer.run().ok()?;
    let (functions, rest) = split_functions(&ir, ir.entry_block(op)?);
    Some((Half { ir, module: op, functions, rest }, used, budget))
}

/// The two halves split at function `split`, each deserialized on its own thread
/// (through the given streams, if any) and followed there by `first_then` /
/// `second_then`; `None` unless both succeed and the halves stand for the whole (see
/// the module docs): together within one materialization budget, with the same
/// module-level ops. The first half's type store then also holds the second's types.
fn halves<A, B: Send>(
    module: &Module,
    options: &DeserializeOptions,
    split: usize,
    streams: [Option<FunctionStream>; 2],
    first_then: impl FnOnce(&Half, Option<FunctionStream>) -> Option<A>,
    second_then: impl FnOnce(&Half, Option<FunctionStream>) -> Option<B> + Send,
) -> Option<((Half, A), (Half, B))> {
    let [mut first_stream, mut second_stream] = streams;
    let (first, second) = spirvkit_ir::parallel::both(
        || {
            let (half, used, budget) = deserialize_half(module, options, 0..split, first_stream.as_mut())?;
            let then = first_then(&half, first_stream)?;
            Some((half, used, budget, then))
        },
        || {
            let (half, used, _) =
                deserialize_half(module, options, split..usize::MAX, second_stream.as_mut())?;
            let then = second_then(&half, second_stream)?;
            Some((half, used, then))
        },
    );
    let (mut first, first_used, budget, a) = first?;
    let (second, second_used, b) = second.flatten()?;
    if first_used.saturating_add(second_used) > budget {
        return None;
    }
    // The second half's types as the first half's store interns them.
    let types = first.ir.types.absorb(&second.ir.types).ok()?;
    let same = Correspondence::new(&first.ir, &second.ir, types)
        .module_ops((first.module, &first.rest), (second.module, &second.rest));
    same.then_some(((first, a), (second, b)))
}

/// [`deserialize`] when the function bodies have `min_words` words or more (tests
/// split small modules).
fn deserialize_split(
    module: &Module,
    ir: &mut Ir,
    options: &DeserializeOptions,
    min_words: usize,
) -> Option<OpId> {
    if ir.op_count() != 0 {
        return None;
    }
    let split = second_half_start(module, min_words)?;
    let ((mut merged, ()), (other, ())) =
        halves(module, options, split, [None, None], |_, _| Some(()), |_, _| Some(()))?;
    let body = merged.ir.entry_block(merged.module)?;
    let at = merged.ir.absorb(other.ir).ok()?;
    // The second half's functions go right after the first half's last function.
    let ops = &merged.ir.block(body).ops;
    let insert_at = merged.functions.last().and_then(|last| ops.iter().position(|op| op == last))? + 1;
    let moved: Vec<OpId> = other.functions.iter().map(|&op| at.op(op)).collect();
    let mut ops = ops.clone();
    ops.splice(insert_at..insert_at, moved.iter().copied());
    merged.ir.block_mut(body).ops = ops;
    for op in moved {
        merged.ir.op_mut(op).parent = Some(body);
    }
    *ir = merged.ir;
    Some(merged.module)
}

/// The custom-form text of a module deserialized in halves, in the pieces it was
/// printed in (never joined: a large module's text would be copied whole), and the
/// two halves' IRs it was printed from (freeing them is the caller's choice).
pub struct PrintedHalves {
    /// The module's text up to its first function, the first half's functions, the
    /// second half's, and the rest of the module's text.
    pub pieces: Vec<String>,
    pub irs: [Ir; 2],
}

impl PrintedHalves {
    /// The pieces joined.
    pub fn text(&self) -> String {
        self.pieces.concat()
    }
}

/// `print` of the module [`deserialize`] makes, when it verifies, made without ever
/// building that module: each thread deserializes its half, verifying and printing
/// its functions a few at a time as they are made and dropping them from its IR
/// ([`FunctionStream`]); the first thread then verifies and prints what is left of
/// the module (the module-level ops), and both halves' functions' text goes where
/// the functions were. This is the whole's text because a function's text and
/// verdict only depend on the function, the ops around it and the module-level ops,
/// which must be the same in both halves (compared op by op). `None` when the module
/// is not split (small, one core, generic form asked for: its names are numbered
/// across functions), a half fails to deserialize or verify, or the halves differ:
/// the caller then deserializes, verifies and prints as usual, which also reports
/// exactly.
pub fn print_in_halves(
    module: &Module,
    options: &DeserializeOptions,
    print: spirvkit_ir::PrintOptions,
) -> Option<PrintedHalves> {
    if print.generic || module.words().len() < MIN_FUNCTION_WORDS || !spirvkit_ir::parallel::two_cores() {
        return None;
    }
    print_split(module, options, print, MIN_FUNCTION_WORDS, CHUNK_OPS)
}

/// [`print_in_halves`] when the function bodies have `min_words` words or more,
/// streaming functions in chunks of about `chunk_ops` ops.
fn print_split(
    module: &Module,
    options: &DeserializeOptions,
    print: spirvkit_ir::PrintOptions,
    min_words: usize,
    chunk_ops: usize,
) -> Option<PrintedHalves> {
    use spirvkit_ir::{text::printer, verify};
    let split = second_half_start(module, min_words)?;
    // Each half prints on its own thread.
    let print = spirvkit_ir::PrintOptions { threads: 1, ..print };
    // Room for each half's text (room never used is never touched): about 3.5 bytes
    // of text per byte of binary, a half's bytes at most the whole's.
    let capacity = module.words().len().saturating_mul(16);
    let streams = [
        Some(FunctionStream::new(print, chunk_ops, true, capacity)),
        Some(FunctionStream::new(print, chunk_ops, false, capacity)),
    ];
    let print_first = |half: &Half, stream: Option<FunctionStream>| {
        let stream = stream?;
        // The module-level ops (and the functions kept, if any).
        if verify::first_failure_among(&half.ir, &[half.module], "").is_some() {
            return None;
        }
        let (mut head, mark) =
            printer::print_op_marking(&half.ir, half.module, print, stream.anchor, String::new());
        let mark = mark.filter(|&mark| head.is_char_boundary(mark))?;
        let tail = head.split_off(mark);
        Some([head, stream.text, tail])
    };
    let print_second = |_: &Half, stream: Option<FunctionStream>| stream.map(|s| s.text);
    let ((first, [head, first_text, tail]), (second, second_text)) =
        halves(module, options, split, streams, print_first, print_second)?;
    Some(PrintedHalves { pieces: vec![head, first_text, second_text, tail], irs: [first.ir, second.ir] })
}

/// What [`FunctionStream`] returns when it cannot go on (never reported: the caller
/// falls back to the one-IR path).
pub(super) const STREAM_DECLINED: &str = "function stream declined";

/// Functions are verified, printed and dropped this many ops at a time: few enough
/// that the IR they are made in stays in the core's cache (the arenas are reused).
const CHUNK_OPS: usize = 2048;

/// A half's functions verified, printed and dropped from its IR as they are
/// deserialized, a chunk at a time, so the IR stays the size of a few functions
/// instead of growing to the half's (cache misses and fresh pages were most of the
/// time of verifying and printing a whole half).
pub(super) struct FunctionStream {
    print: spirvkit_ir::PrintOptions,
    chunk_ops: usize,
    /// The text of the functions printed so far.
    text: String,
    /// Whether the module's own text needs an op to place the functions' text after
    /// (the first half's; the second half's module-level ops are not printed).
    needs_anchor: bool,
    /// The op after whose text the functions' text goes: the last module-level op
    /// before the first function or, when there is none, the first function, which
    /// then stays in the IR.
    anchor: Option<OpId>,
    started: bool,
    /// Where the arenas and the module's body stood before the functions made since.
    mark: Option<(spirvkit_ir::ir::ArenaMark, usize)>,
    /// The functions of the chunk being printed (kept for its capacity).
    chunk: Vec<OpId>,
}

impl FunctionStream {
    fn new(print: spirvkit_ir::PrintOptions, chunk_ops: usize, needs_anchor: bool, capacity: usize) -> Self {
        FunctionStream {
            print,
            chunk_ops,
            text: String::with_capacity(capacity),
            needs_anchor,
            anchor: None,
            started: false,
            mark: None,
            chunk: Vec::new(),
        }
    }

    /// Before a function is made in `body` (the module's).
    pub(super) fn before_function(&mut self, ir: &Ir, body: spirvkit_ir::ir::BlockId) {
        if !self.started {
            self.started = true;
            self.anchor = ir.block(body).ops.last().copied();
        }
        if self.mark.is_none() && (self.anchor.is_some() || !self.needs_anchor) {
            self.mark = Some((ir.arena_mark(), ir.block(body).ops.len()));
        }
    }

    /// After a function is made: prints and drops the chunk once it is large
    /// enough. False when a function does not verify or cannot be dropped.
    pub(super) fn after_function(
        &mut self,
        ir: &mut Ir,
        module: OpId,
        body: spirvkit_ir::ir::BlockId,
    ) -> bool {
        let Some((mark, _)) = self.mark else {
            // The first function, kept as the anchor.
            self.anchor = ir.block(body).ops.last().copied();
            return self.anchor.is_some();
        };
        if ir.arena_mark().ops_since(mark) < self.chunk_ops {
            return true;
        }
        self.flush(ir, module, body)
    }

    /// After the last function: prints and drops what is left.
    pub(super) fn finish(&mut self, ir: &mut Ir, module: OpId, body: spirvkit_ir::ir::BlockId) -> bool {
        self.mark.is_none() || self.flush(ir, module, body)
    }

    fn flush(&mut self, ir: &mut Ir, module: OpId, body: spirvkit_ir::ir::BlockId) -> bool {
        use spirvkit_ir::{text::printer, verify};
        let Some((mark, body_len)) = self.mark.take() else { return true };
        self.chunk.clear();
        self.chunk.extend_from_slice(ir.block(body).ops.get(body_len..).unwrap_or(&[]));
        let only_functions = self.chunk.iter().all(|&op| ir.op(op).name == "spirv.func");
        if !only_functions
            || verify::first_failure_among(ir, &self.chunk, "").is_some()
            || !printer::print_body_ops_into(ir, module, &self.chunk, self.print, &mut self.text)
        {
            return false;
        }
        ir.block_mut(body).ops.truncate(body_len);
        ir.truncate(mark)
    }
}

/// The first half's share of the function words: half. (The first thread also
/// prints the module-level ops, a few hundredths of a millisecond on a large module;
/// wall-clock marks there put the halves within 0.7 ms of each other at half, and
/// 2.2 ms apart at 33/64, the share when the second thread started late: see
/// `spirvkit_threads::spawn_scoped`.)
const FIRST_SHARE: (usize, usize) = (1, 2);

/// Both two-thread paths at any module size (tests and fuzzing compare them with the
/// one-thread path): the merged IR of [`deserialize`], and the text of
/// [`print_in_halves`] (custom form, default options).
pub fn forced(module: &Module, options: &DeserializeOptions) -> (Option<(Ir, OpId)>, Option<String>) {
    let mut ir = Ir::new();
    let merged = deserialize_split(module, &mut ir, options, 0).map(|op| (ir, op));
    // Chunks of one function: every function is printed and dropped on its own.
    let printed = print_split(module, options, spirvkit_ir::PrintOptions::default(), 0, 1).map(|p| p.text());
    (merged, printed)
}

/// The position of the first function of the second half: where the first half's
/// share of the words of function bodies is behind; `None` for a module with fewer
/// than `min_words` words of function bodies, fewer than two functions, or anything
/// but functions in its function section (OpGraphARM).
fn second_half_start(module: &Module, min_words: usize) -> Option<usize> {
    let mut functions: Vec<usize> = Vec::new();
    let mut function_words = 0usize;
    let mut in_function = false;
    // The first words alone (opcode, word count) tell what this needs; the module
    // read, so every word count is in bounds and not zero.
    let all = module.words();
    let mut at = 5;
    while let Some(&first) = all.get(at) {
        let (words, opcode) = ((first >> 16) as usize, (first & 0xffff) as u16);
        if words == 0 {
            return None;
        }
        at += words;
        match opcode {
            opcode::OpFunction => {
                in_function = true;
                functions.push(0);
            }
            opcode::OpGraphARM => return None,
            _ => {}
        }
        if in_function {
            function_words += words;
            if let Some(last) = functions.last_mut() {
                *last += words;
            }
        }
        if opcode == opcode::OpFunctionEnd {
            in_function = false;
        }
    }
    if function_words < min_words || functions.len() < 2 {
        return None;
    }
    let mut behind = 0;
    let split = functions.iter().position(|&words| {
        behind += words;
        behind * FIRST_SHARE.1 >= function_words * FIRST_SHARE.0
    })? + 1;
    (split < functions.len()).then_some(split)
}

/// The `spirv.func` ops of a module body, and the other ops.
fn split_functions(ir: &Ir, body: spirvkit_ir::ir::BlockId) -> (Vec<OpId>, Vec<OpId>) {
    ir.block(body).ops.iter().partition(|&&op| ir.op(op).name == "spirv.func")
}

/// Structural equality of ops of two IRs (`a`'s and `b`'s, or one IR's twice),
/// values matched by where they are defined.
struct Correspondence<'a> {
    a: &'a Ir,
    b: &'a Ir,
    /// `b`'s types by index as `a`'s store has them; empty when the stores are one.
    types: Vec<Type>,
    values: FxHashMap<Value, Value>,
}

impl<'a> Correspondence<'a> {
    /// Nesting deeper than this is not compared (the split is then not used).
    const MAX_DEPTH: usize = 64;

    fn new(a: &'a Ir, b: &'a Ir, types: Vec<Type>) -> Self {
        Correspondence { a, b, types, values: FxHashMap::default() }
    }

    /// Whether the module ops and their module-level ops (`rest`) are the same.
    fn module_ops(&mut self, (a, rest_a): (OpId, &[OpId]), (b, rest_b): (OpId, &[OpId])) -> bool {
        rest_a.len() == rest_b.len()
            && self.ops(a, b, 0)
            && rest_a.iter().zip(rest_b).all(|(&x, &y)| self.ops(x, y, 0))
    }

    fn ty(&self, t: Type) -> Type {
        self.types.get(t.index()).copied().unwrap_or(t)
    }

    fn same_types(&self, a: &[Value], b: &[Value]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(&v, &w)| self.a.value_type(v) == self.ty(self.b.value_type(w)))
    }

    fn same_attributes(&self, x: &[NamedAttribute], y: &[NamedAttribute]) -> bool {
        if self.types.is_empty() {
            return x == y;
        }
        x.len() == y.len()
            && x.iter().zip(y).all(|(p, q)| {
                let mut value = q.value.clone();
                value.map_types(&|t| self.ty(t));
                p.name == q.name && p.value == value
            })
    }

    /// Whether `a` and `b` are the same op (for the module op itself, only its own
    /// attributes, location and result types are compared, not its body).
    fn ops(&mut self, a: OpId, b: OpId, depth: usize) -> bool {
        let (x, y) = (self.a.op(a), self.b.op(b));
        let shallow = x.name == y.name
            && x.location == y.location
            && self.same_attributes(&x.properties, &y.properties)
            && self.same_attributes(&x.attributes, &y.attributes)
            && x.successors.is_empty()
            && y.successors.is_empty()
            && self.same_types(&x.results, &y.results)
            && x.operands.len() == y.operands.len()
            && x.operands.iter().zip(&y.operands).all(|(v, w)| self.values.get(v) == Some(w));
        if !shallow {
            return false;
        }
        self.values.extend(x.results.iter().copied().zip(y.results.iter().copied()));
        if x.name == "spirv.module" {
            return true;
        }
        if x.regions.len() != y.regions.len() || (!x.regions.is_empty() && depth >= Self::MAX_DEPTH) {
            return false;
        }
        x.regions.iter().zip(&y.regions).all(|(&r, &s)| {
            let (bx, by) = (&self.a.region(r).blocks, &self.b.region(s).blocks);
            bx.len() == by.len()
                && bx.iter().zip(by).all(|(&c, &d)| {
                    let (c, d) = (self.a.block(c), self.b.block(d));
                    let arguments_match = c.argument_locations == d.argument_locations
                        && self.same_types(&c.arguments, &d.arguments);
                    self.values.extend(c.arguments.iter().copied().zip(d.arguments.iter().copied()));
                    arguments_match
                        && c.ops.len() == d.ops.len()
                        && c.ops.iter().zip(&d.ops).all(|(&p, &q)| self.ops(p, q, depth + 1))
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shader of `count` functions each with a selection, a loop and a few
    /// constants, assembled by the project's own assembler.
    fn large_module(count: usize) -> Vec<u8> {
        large_module_with(count, None)
    }

    /// [`large_module`] whose function `bad` (if any) adds an `int` to a `uint`: valid
    /// SPIR-V that MLIR's types cannot hold, so it deserializes but does not verify.
    fn large_module_with(count: usize, bad: Option<usize>) -> Vec<u8> {
        let mut text = String::from(
            "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
             OpExecutionMode %main LocalSize 1 1 1\nOpName %g \"g\"\n\
             %void = OpTypeVoid\n%vfn = OpTypeFunction %void\n%int = OpTypeInt 32 1\n%bool = OpTypeBool\n\
             %ptr = OpTypePointer Private %int\n%g = OpVariable %ptr Private\n\
             %c0 = OpConstant %int 0\n%c1 = OpConstant %int 1\n%fn = OpTypeFunction %int %int\n\
             %uint = OpTypeInt 32 0\n%u1 = OpConstant %uint 1\n",
        );
        for i in 0..count {
            let odd = if bad == Some(i) {
                format!("%odd{i} = OpSelect %uint %lt{i} %u1 %c1\n")
            } else {
                String::new()
            };
            text.push_str(&format!(
                "%f{i} = OpFunction %int None %fn\n%a{i} = OpFunctionParameter %int\n%e{i} = OpLabel\n\
                 OpBranch %h{i}\n%h{i} = OpLabel\n%p{i} = OpPhi %int %a{i} %e{i} %n{i} %b{i}\n\
                 %lt{i} = OpSLessThan %bool %p{i} %c1\n{odd}OpLoopMerge %m{i} %b{i} None\n\
                 OpBranchConditional %lt{i} %b{i} %m{i}\n%b{i} = OpLabel\n%n{i} = OpIAdd %int %p{i} %c1\n\
                 OpStore %g %n{i}\nOpBranch %h{i}\n%m{i} = OpLabel\nOpReturnValue %p{i}\nOpFunctionEnd\n"
            ));
        }
        text.push_str(
            "%main = OpFunction %void None %vfn\n%me = OpLabel\n%r = OpFunctionCall %int %f0 %c0\n\
             OpReturn\nOpFunctionEnd\n",
        );
        let words = spirvkit_binary::assemble(&text, &Default::default()).expect("assembles");
        spirvkit_binary::write::words_to_bytes(&words, spirvkit_binary::module::Endian::Little)
    }

    #[test]
    fn halves_make_the_whole() {
        let bytes = large_module(1500);
        let module = spirvkit_binary::read::read(&bytes).unwrap();
        assert!(second_half_start(&module, MIN_FUNCTION_WORDS).is_some());
        let options = DeserializeOptions::default();
        let mut whole = Ir::new();
        let whole_op = Deserializer::new(&module, &mut whole, &options).run().unwrap().0;
        let mut ir = Ir::new();
        let op = deserialize(&module, &mut ir, &options).expect("split");
        let print = |ir: &Ir, op| spirvkit_ir::print(ir, op, spirvkit_ir::PrintOptions::default());
        assert_eq!(print(&ir, op), print(&whole, whole_op));
        assert!(spirvkit_ir::verify::first_failure(&ir, op, "").is_none());
    }

    #[test]
    fn halves_print_the_whole_or_decline() {
        let options = DeserializeOptions { debug_locations: true, ..Default::default() };
        let with_locations = spirvkit_ir::PrintOptions { debug_info: true, ..Default::default() };
        for (bad, print) in [
            (None, spirvkit_ir::PrintOptions::default()),
            (None, with_locations),
            (Some(0), with_locations),
            (Some(1499), spirvkit_ir::PrintOptions::default()),
        ] {
            let bytes = large_module_with(1500, bad);
            let module = spirvkit_binary::read::read(&bytes).unwrap();
            let mut whole = Ir::new();
            let whole_op = Deserializer::new(&module, &mut whole, &options).run().unwrap().0;
            let verifies = spirvkit_ir::verify::first_failure(&whole, whole_op, "").is_none();
            assert_eq!(verifies, bad.is_none());
            for chunk in [1, 7, CHUNK_OPS, usize::MAX] {
                match print_split(&module, &options, print, MIN_FUNCTION_WORDS, chunk) {
                    Some(printed) => {
                        assert!(verifies);
                        assert_eq!(printed.text(), spirvkit_ir::print(&whole, whole_op, print));
                    }
                    None => assert!(!verifies, "a module that verifies printed in one piece"),
                }
            }
        }
    }

    /// The functions' text goes after the last module-level op before them or, when
    /// there is none, after the first function (kept in the IR to place it).
    #[test]
    fn streamed_functions_go_where_the_functions_were() {
        let options = DeserializeOptions::default();
        let print = spirvkit_ir::PrintOptions::default();
        let bytes = large_module(40);
        let module = spirvkit_binary::read::read(&bytes).unwrap();
        let mut whole = Ir::new();
        let whole_op = Deserializer::new(&module, &mut whole, &options).run().unwrap().0;
        let expected = spirvkit_ir::print(&whole, whole_op, print);
        let printed = print_split(&module, &options, print, 0, 3).expect("split");
        assert_eq!(printed.text(), expected);
        // Each half's IR kept only its module-level ops and what places the text.
        assert!(printed.irs.iter().all(|ir| ir.op_count() < 20), "{:?}", printed.irs.map(|ir| ir.op_count()));

        // No global, no entry point: only functions in the module's body.
        let text = "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n\
             %void = OpTypeVoid\n%vfn = OpTypeFunction %void\n"
            .to_string()
            + &(0..30)
                .map(|i| {
                    format!("%f{i} = OpFunction %void None %vfn\n%e{i} = OpLabel\nOpReturn\nOpFunctionEnd\n")
                })
                .collect::<String>();
        let words = spirvkit_binary::assemble(&text, &Default::default()).expect("assembles");
        let bytes = spirvkit_binary::write::words_to_bytes(&words, spirvkit_binary::module::Endian::Little);
        let module = spirvkit_binary::read::read(&bytes).unwrap();
        let mut whole = Ir::new();
        let whole_op = Deserializer::new(&module, &mut whole, &options).run().unwrap().0;
        for chunk in [1, 4, usize::MAX] {
            let printed = print_split(&module, &options, print, 0, chunk).expect("split");
            assert_eq!(printed.text(), spirvkit_ir::print(&whole, whole_op, print));
        }
    }

    #[test]
    fn module_ops_compare_by_structure() {
        let text = "spirv.module Logical GLSL450 {\n\
            spirv.GlobalVariable @a : !spirv.ptr<i32, Private>\n\
            spirv.GlobalVariable @a : !spirv.ptr<i32, Private>\n\
            spirv.GlobalVariable @b : !spirv.ptr<i32, Private>\n\
            spirv.SpecConstant @s = 1 : i32\n\
            spirv.SpecConstant @s = 1 : i32\n\
            spirv.SpecConstant @s = 2 : i32\n}\n";
        let (mut ir, top) = spirvkit_ir::parse(text, "t.mlir").unwrap();
        let module = crate::test_support::first_op(&ir, top, "spirv.module").unwrap();
        let ops = ir.block(ir.entry_block(module).unwrap()).ops.clone();
        // As deserialized ops without OpLine: no location.
        for &op in &ops {
            ir.op_mut(op).location = spirvkit_ir::ir::Location::Unknown;
        }
        let mut same = Correspondence::new(&ir, &ir, Vec::new());
        assert!(same.ops(ops[0], ops[1], 0));
        assert!(!same.ops(ops[0], ops[2], 0));
        assert!(same.ops(ops[3], ops[4], 0));
        assert!(!same.ops(ops[3], ops[5], 0));
        assert!(!same.ops(ops[0], ops[3], 0));
    }

    #[test]
    fn small_modules_are_not_split() {
        let module = spirvkit_binary::read::read(&large_module(3)).unwrap();
        assert_eq!(second_half_start(&module, MIN_FUNCTION_WORDS), None);
    }

    /// Every corpus module split at its middle function deserializes (and, printed,
    /// parses in two halves) exactly as in one piece, or the split declines.
    #[test]
    fn corpus_modules_split_as_they_deserialize_whole() {
        let dir =
            std::env::var_os("SPIRVKIT_SPV_CORPUS").map(std::path::PathBuf::from).unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/spv")
            });
        let Ok(entries) = std::fs::read_dir(&dir) else {
            eprintln!("skipping: SPIR-V corpus not found at {} (set SPIRVKIT_SPV_CORPUS)", dir.display());
            return;
        };
        let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        let mut i = 0;
        while i < files.len() {
            if files[i].is_dir() {
                let inner: Vec<_> =
                    std::fs::read_dir(&files[i]).into_iter().flatten().flatten().map(|e| e.path()).collect();
                files.extend(inner);
            }
            i += 1;
        }
        files.retain(|p| p.extension().is_some_and(|e| e == "spv"));
        files.sort();
        let options = DeserializeOptions::default();
        let print = |ir: &Ir, op| spirvkit_ir::print(ir, op, spirvkit_ir::PrintOptions::default());
        let (mut split, mut texts_split, mut printed_split, mut declined) = (0, 0, 0, Vec::new());
        let mut serialized_in_pieces = 0;
        for path in &files {
            let bytes = std::fs::read(path).unwrap();
            let Ok(module) = spirvkit_binary::read::read(&bytes) else { continue };
            let mut whole = Ir::new();
            let Ok((whole_op, _)) = Deserializer::new(&module, &mut whole, &options).run() else { continue };
            let text = print(&whole, whole_op);
            let print_options = spirvkit_ir::PrintOptions::default();
            // Chunks of one function, and of all of a half's.
            let printed =
                [1, usize::MAX].map(|chunk| print_split(&module, &options, print_options, 0, chunk));
            assert_eq!(printed[0].is_some(), printed[1].is_some(), "{}", path.display());
            for printed in printed.into_iter().flatten() {
                assert_eq!(printed.text(), text, "{}", path.display());
                printed_split += 1;
            }
            let mut ir = Ir::new();
            if let Some(op) = deserialize_split(&module, &mut ir, &options, 0) {
                assert_eq!(print(&ir, op), text, "{}", path.display());
                split += 1;
            } else if second_half_start(&module, 0).is_some() {
                declined.push(path.display().to_string());
            }
            if let Some((parsed, top)) =
                spirvkit_ir::text::split_parse::parse_with_min_size(&text, "t.mlir", 0)
            {
                let (reference, reference_top) = spirvkit_ir::parse(&text, "t.mlir").unwrap();
                assert_eq!(print(&parsed, top), print(&reference, reference_top), "{}", path.display());
                texts_split += 1;
                // Serialized from the two pieces of the text, as from the whole.
                let module =
                    crate::test_support::first_op(&reference, reference_top, "spirv.module").unwrap();
                let options = crate::SerializeOptions { check_requirements: false, ..Default::default() };
                let mut halves =
                    spirvkit_ir::text::split_parse::parse_halves_at_any_size(&text, "t.mlir").unwrap();
                let whole = crate::serialize::serialize_read_back(&reference, module, &options);
                let verifies = spirvkit_ir::verify::first_failure(&reference, reference_top, &text).is_none();
                if let Some(pieces) =
                    crate::serialize::serialize_halves_at_any_size(&mut halves, &text, &options)
                {
                    assert!(verifies, "{}", path.display());
                    let words = |r: Result<crate::serialize::Serialized, crate::SerializeError>| {
                        r.map(|m| m.words().to_vec()).map_err(|e| e.message)
                    };
                    assert_eq!(words(pieces), words(whole), "{}", path.display());
                    serialized_in_pieces += 1;
                }
            }
        }
        eprintln!(
            "{split} of {} modules deserialized in halves, {printed_split} printed in halves, \
             {texts_split} texts parsed in halves, {serialized_in_pieces} serialized from two pieces",
            files.len()
        );
        assert_eq!(declined, Vec::<String>::new(), "modules of several functions that did not split");
        assert!(split > 0 && texts_split > 0 && printed_split > 0 && serialized_in_pieces > 0);
    }
}
