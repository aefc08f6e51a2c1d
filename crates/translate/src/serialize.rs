//! `spirv.module` -> SPIR-V words, in the order and with the id numbering
//! mlir-translate's serializer uses.
//!
//! Words go to one buffer per section of the binary's logical layout and are joined
//! at the end. Ids are handed out as things are first needed (a type before its
//! components, a composite constant before its elements), as MLIR does, so that
//! `spirv-dis` of our binary and of mlir-translate's read alike.
//!
//! - `types`: types (uniqued; forward pointers for recursive structs) and constants.
//! - `ops`: module-level ops, the ops with special encodings, and every other op
//!   encoded from its ODS definition (`OpDef::spirv_name` + `arguments`).
//! - `control`: functions, blocks, phis and the structured control flow regions.
//! - `attrs`: attribute values as words, and decorations.
//! - `check`: what is refused before anything is written.
//!
//! Where we differ from mlir-translate on purpose: the generator word is 0 (we are
//! not a registered tool); a loop's merge block taking values gets its phis (MLIR
//! leaves the values at id 0); a construct starting a block is not entered through
//! an extra empty block (`control`), so a round trip through the IR settles; a
//! module-level extended instruction gets its symbol as OpName; and the finished
//! words are read back by the grammar, so a malformed instruction is an error rather
//! than a broken binary.

mod attrs;
mod check;
mod control;
mod ops;
mod types;

use spirvkit_binary::module::Header;
use spirvkit_grammar::fxhash::{FxHashMap as HashMap, FxHashSet};
use spirvkit_grammar::opcode;
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{BlockId, Location, OpName, Value};
use spirvkit_ir::types::Type;
use spirvkit_ir::{Ir, OpId};

/// What to emit besides the module's semantics.
#[derive(Clone, Debug)]
pub struct SerializeOptions {
    /// OpName/OpMemberName for symbols (functions, globals, spec constants) and named structs.
    pub emit_symbol_names: bool,
    /// `--spirv-emit-op-names`: OpName for every value whose location is a name
    /// (`loc("name")`: a one-result op's result, a block argument) and every named
    /// block's label (`Block::name`), in the order they are defined.
    pub emit_op_names: bool,
    /// `--test-spirv-roundtrip-debug`: OpString/OpLine from op locations.
    pub emit_debug_info: bool,
    /// Refuse modules whose `#spirv.vce` does not cover the version, capabilities
    /// and extensions their ops, enum values and types need (MLIR's availability).
    /// mlir-translate does not check this (its tests serialize many such modules, some
    /// of which `spirv-val` accepts: MLIR's requirements are conservative), so the
    /// mlir-translate-compatible driver turns it off.
    pub check_requirements: bool,
    /// Decorations in dxc's order rather than mlir-translate's: a variable's
    /// `DescriptorSet` before its `Binding`, the decorations of types after all the
    /// others, and a struct's member decorations member by member after its members'
    /// types' own.
    pub dxc_decoration_order: bool,
    /// The global section in dxc's order: every constant the functions use, in the
    /// order they first use it (with the types it needs), before the types only the
    /// global variables and the functions need; the global variables after every type
    /// and constant (dxc keeps them in a section of their own).
    pub dxc_constants_first: bool,
    /// The `OpName` of identified structs whose identifier is not their source name:
    /// a front end keeps one struct per memory layout (`S.std430`, `S.std140`) under
    /// distinct identifiers, but names them all as the source does (dxc writes `S`).
    pub struct_names: std::collections::BTreeMap<String, String>,
    /// Global variables (by symbol) written without an `OpName`, as dxc leaves some
    /// built-ins.
    pub unnamed_variables: std::collections::BTreeSet<String>,
    /// The name an entry point is written under, by its function's symbol, where the
    /// two differ (dxc's `-fspv-entrypoint-name=`).
    pub entry_point_names: std::collections::BTreeMap<String, String>,
    /// dxc's line information (`-fspv-debug=line`): an `OpLine` before each
    /// instruction whose op has a `file:line:col` location when it differs from the
    /// line in effect, `OpNoLine` before one without after a line; none for
    /// variables, none after a merge instruction, none carried past a terminator;
    /// an `OpString` per file named. Not `emit_debug_info` (MLIR's form).
    pub dxc_debug_lines: bool,
    /// `OpModuleProcessed` strings, in order (dxc's `-fspv-debug=tool`).
    pub module_processed: Vec<String>,
    /// With `dxc_decoration_order`: the global variables (by symbol) in the order
    /// their `DescriptorSet`/`Binding` decorations are written, after the other
    /// decorations of variables (dxc decorates bindings last, in its binding passes);
    /// variables not listed follow in their own order.
    pub binding_order: Vec<String>,
}

impl Default for SerializeOptions {
    fn default() -> Self {
        SerializeOptions {
            emit_symbol_names: true,
            emit_op_names: false,
            emit_debug_info: false,
            check_requirements: true,
            dxc_decoration_order: false,
            dxc_constants_first: false,
            struct_names: std::collections::BTreeMap::new(),
            unnamed_variables: std::collections::BTreeSet::new(),
            entry_point_names: std::collections::BTreeMap::new(),
            dxc_debug_lines: false,
            module_processed: Vec::new(),
            binding_order: Vec::new(),
        }
    }
}

/// Why a module was not serialized; `location` is the offending op's.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct SerializeError {
    pub location: Location,
    pub message: String,
}

type Result<T> = std::result::Result<T, SerializeError>;

/// Serializes the `spirv.module` op `module` into SPIR-V words (header included).
pub fn serialize(ir: &Ir, module: OpId, options: &SerializeOptions) -> Result<Vec<u32>> {
    serialize_read_back(ir, module, options).map(Serialized::into_words)
}

/// A serialized module's words, which read back by the binary reader (every
/// serialization's last check), and what they use without declaring it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Serialized {
    words: Vec<u32>,
    undeclared: Vec<spirvkit_binary::requirements::Missing>,
}

impl Serialized {
    /// The module's words, header included.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    pub fn into_words(self) -> Vec<u32> {
        self.words
    }

    /// What the words use without declaring it, by the grammar's availability (the
    /// rules `spirv-val` applies; see `spirvkit_binary::requirements`), in order.
    pub fn undeclared(&self) -> &[spirvkit_binary::requirements::Missing] {
        &self.undeclared
    }
}

/// [`serialize`], with what the read-back found the module uses without declaring
/// it, for callers that hold a written binary to its declarations.
pub fn serialize_read_back(ir: &Ir, module: OpId, options: &SerializeOptions) -> Result<Serialized> {
    let words = if ir.op_count() >= PARALLEL_CHECK_OPS && spirvkit_ir::parallel::two_cores() {
        // The checks run beside the serialization and a refusal still wins, so the
        // errors are those of checking first. Without the walk's count, the room for
        // the words is estimated from the IR's size.
        let estimate = estimated_words(ir.op_count(), ir.block_count());
        let (words, checked) = spirvkit_ir::parallel::both(
            || serialize_words(ir, module, options, estimate),
            || check::check_module(ir, module, options.check_requirements),
        );
        match checked {
            Some(checked) => checked?,
            None => check::check_module(ir, module, options.check_requirements)?,
        };
        words?
    } else {
        let estimate = check::check_module(ir, module, options.check_requirements)?;
        serialize_words(ir, module, options, estimate)?
    };
    read_back(ir, module, words)
}

/// The words of `module`, checked: no instruction too long, and they read back
/// (read without making the binary's tables, and checked for what they use without
/// declaring it on the way).
fn read_back(ir: &Ir, module: OpId, words: Vec<u32>) -> Result<Serialized> {
    let too_long = instruction_counts_overflowed(&words);
    if too_long {
        return Err(SerializeError {
            location: ir.op(module).location.clone(),
            message: "not supported yet: an instruction longer than 65535 words".to_string(),
        });
    }
    // Last line of defence: what we write must read back by the grammar.
    match spirvkit_binary::requirements::read_missing_requirements(&words) {
        Ok(undeclared) => Ok(Serialized { words, undeclared }),
        Err(e) => Err(SerializeError {
            location: ir.op(module).location.clone(),
            message: format!("internal error: the serialized module does not read back: {e}"),
        }),
    }
}

/// [`serialize_read_back`] of a module parsed but not verified yet (`top` the parsed
/// op, `module` the `spirv.module` in it): a large one is verified on another thread
/// ([`spirvkit_ir::verify::passes_progressively`]) while it is serialized here, each
/// op of the module's body serialized once the verifier has passed it, so the
/// serializer never meets an op that does not verify; the checks follow once all of
/// it verified. `None` when the module does not verify, or is not done this way
/// (small, one core, a shape the progressive verifier does not take): the caller
/// then verifies first, as usual (and reports).
pub fn serialize_read_back_verifying(
    ir: &Ir,
    top: OpId,
    module: OpId,
    text: &str,
    options: &SerializeOptions,
) -> Option<Result<Serialized>> {
    serialize_verifying_from(ir, top, module, text, options, PARALLEL_CHECK_OPS)
}

/// [`serialize_read_back_verifying`] at any module size, for tests and fuzzing to
/// compare with verifying first.
#[doc(hidden)]
pub fn serialize_verifying_at_any_size(
    ir: &Ir,
    top: OpId,
    module: OpId,
    text: &str,
    options: &SerializeOptions,
) -> Option<Result<Serialized>> {
    serialize_verifying_from(ir, top, module, text, options, 0)
}

/// [`serialize_read_back_verifying`] of modules of `min_ops` ops or more.
fn serialize_verifying_from(
    ir: &Ir,
    top: OpId,
    module: OpId,
    text: &str,
    options: &SerializeOptions,
    min_ops: usize,
) -> Option<Result<Serialized>> {
    let large = ir.op_count() >= min_ops && spirvkit_ir::parallel::two_cores();
    if !large || spirvkit_ir::parallel::spirv_module(ir, top) != Some(module) {
        return None;
    }
    serialize_beside_verifier(&[Piece { ir, top, module, from: 0 }], text, options)
}

/// [`serialize_read_back_verifying`] of a large module parsed in two pieces
/// ([`spirvkit_ir::text::split_parse::Halves`]), without merging them: the second piece
/// adopts the first's types, and the serializer goes on from the first piece's body
/// to the second's (past the module-level ops both hold), each verified beside it as
/// before. `None` when the module does not verify, holds an op with no binary form,
/// or has a shape this does not take (declarations or anything but functions, entry
/// points and execution modes in the second piece; module-level extended
/// instructions, whose placement looks across the module): the caller then parses
/// and serializes as usual, which also reports exactly. `text` is the source the
/// halves were parsed from.
pub fn serialize_halves(
    halves: &mut spirvkit_ir::text::split_parse::Halves,
    text: &str,
    options: &SerializeOptions,
) -> Option<Result<Serialized>> {
    serialize_halves_from(halves, text, options, PARALLEL_CHECK_OPS)
}

/// [`serialize_halves`] at any module size, for tests and fuzzing to compare with
/// one piece.
#[doc(hidden)]
pub fn serialize_halves_at_any_size(
    halves: &mut spirvkit_ir::text::split_parse::Halves,
    text: &str,
    options: &SerializeOptions,
) -> Option<Result<Serialized>> {
    serialize_halves_from(halves, text, options, 0)
}

fn serialize_halves_from(
    halves: &mut spirvkit_ir::text::split_parse::Halves,
    text: &str,
    options: &SerializeOptions,
    min_ops: usize,
) -> Option<Result<Serialized>> {
    let prefix = halves.prefix;
    let ((first, first_top), (second, second_top)) = (&mut halves.first, &mut halves.second);
    let (first_top, second_top) = (*first_top, *second_top);
    let large = first.op_count() + second.op_count() >= min_ops && spirvkit_ir::parallel::two_cores();
    if !large || options.check_requirements {
        return None;
    }
    let first_module = spirvkit_ir::parallel::spirv_module(first, first_top)?;
    let second_module = spirvkit_ir::parallel::spirv_module(second, second_top)?;
    let first_body = &first.block(first.entry_block(first_module)?).ops;
    let second_body = &second.block(second.entry_block(second_module)?).ops;
    let has_body = |ir: &Ir, op: OpId| ir.entry_block(op).is_some();
    let second_fits = second_body.get(prefix..)?.iter().all(|&op| match second.op(op).name.as_str() {
        "spirv.func" => has_body(second, op),
        name => matches!(name, "spirv.EntryPoint" | "spirv.ExecutionMode"),
    });
    let ext_inst =
        |ir: &Ir, body: &[OpId]| body.iter().any(|&op| ir.op(op).name == crate::fallback::EXT_INST_OP);
    // The bitcasts the reader made for mixed signedness are elided by a whole-module
    // analysis: such modules are serialized whole. Every op carrying the marker has it
    // in the text the pieces were parsed from, so the text tells, at the speed of a
    // substring search rather than a walk of both pieces (a mention elsewhere, in a
    // string, only costs the parallelism).
    let marked = text.contains(crate::signedness::MARKER);
    if !second_fits || ext_inst(first, first_body) || ext_inst(second, second_body) || marked {
        return None;
    }
    second.adopt_types(&mut first.types).ok()?;
    let (first, second) = (&*first, &*second);
    let pieces = [
        Piece { ir: first, top: first_top, module: first_module, from: 0 },
        Piece { ir: second, top: second_top, module: second_module, from: prefix },
    ];
    serialize_beside_verifier(&pieces, text, options)
}

/// A piece of a module to serialize: its IR, the op parsed (which is verified), the
/// `spirv.module` in it, and from which op of that module's body on it is
/// serialized (the first piece, whole, from 0).
struct Piece<'a> {
    ir: &'a Ir,
    top: OpId,
    module: OpId,
    from: usize,
}

/// Serializes `pieces` (the module's body, piece after piece) while another thread
/// verifies them ([`spirvkit_ir::verify::passes_progressively`], piece after piece),
/// each op of a body serialized once the verifier has passed it; then reads the
/// words back. `None` when a piece does not verify or no thread could be started.
/// The checks run once all of it verified, when requirements are checked or the
/// verifier's walk met an op with no binary form; for a module in several pieces
/// that is `None` too (the checks look at one IR).
fn serialize_beside_verifier(
    pieces: &[Piece],
    text: &str,
    options: &SerializeOptions,
) -> Option<Result<Serialized>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (first, rest) = pieces.split_first()?;
    let progress: Vec<AtomicUsize> = pieces.iter().map(|_| AtomicUsize::new(0)).collect();
    let gates: Vec<_> = progress.iter().map(|p| move |needed: usize| verified_up_to(p, needed)).collect();
    std::thread::scope(|scope| {
        // The verifier, piece by piece, then the checks if they are needed.
        let verifier = spirvkit_threads::spawn_scoped(scope, || {
            // Without requirements to check, the checks only refuse ops with no
            // binary form: looked for on the verifier's walk.
            let mut refusable = options.check_requirements;
            for (piece, passed) in pieces.iter().zip(&progress) {
                let report = |up_to: usize| passed.store(up_to, Ordering::Release);
                let mut visit = |op: OpId| refusable |= check::has_no_binary_form(piece.ir, op);
                let verdict =
                    spirvkit_ir::verify::passes_progressively(piece.ir, piece.top, text, &report, &mut visit);
                if verdict != Some(true) {
                    progress.iter().for_each(|p| p.store(FAILED, Ordering::Release));
                    return None;
                }
            }
            match pieces {
                _ if !refusable => Some(Ok(())),
                [one] => Some(check::check_module(one.ir, one.module, options.check_requirements).map(drop)),
                _ => None,
            }
        })
        .ok()?;
        let ops = pieces.iter().map(|p| p.ir.op_count()).sum();
        let blocks = pieces.iter().map(|p| p.ir.block_count()).sum();
        let words = (|| {
            if !gates[0](1) {
                return Err(not_verified(first.ir, first.module));
            }
            let mut s = Serializer::new(first.ir, first.module, options, estimated_words(ops, blocks));
            s.gate = Some(&gates[0]);
            s.module_level()?;
            for (piece, gate) in rest.iter().zip(&gates[1..]) {
                if !gate(1) {
                    return Err(not_verified(piece.ir, piece.module));
                }
                s.switch_to(piece.ir, piece.module, gate);
                let body = piece.ir.entry_block(piece.module).map_or(&[][..], |b| &piece.ir.block(b).ops);
                s.body_ops(body, piece.from)?;
            }
            Ok(s.collect())
        })();
        let checked = verifier.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        // A refusal from the checks wins, as when they run first.
        Some(checked.and(words).and_then(|words| read_back(first.ir, first.module, words)))
    })
}

/// Room for the words of a module of `ops` ops and `blocks` blocks: per op its
/// opcode, result type, result and operands and a word more, plus a label per block.
fn estimated_words(ops: usize, blocks: usize) -> usize {
    ops.saturating_mul(6).saturating_add(blocks.saturating_mul(2))
}

/// The progress a verifier beside the serialization publishes once it found a failure.
const FAILED: usize = usize::MAX;

/// Waits until a verifier's `progress` reaches `needed` (true), or it found a failure
/// (false).
fn verified_up_to(progress: &std::sync::atomic::AtomicUsize, needed: usize) -> bool {
    let mut spins = 0u32;
    loop {
        match progress.load(std::sync::atomic::Ordering::Acquire) {
            FAILED => return false,
            passed if passed >= needed => return true,
            _ if spins < 64 => {
                spins += 1;
                std::hint::spin_loop();
            }
            _ => std::thread::yield_now(),
        }
    }
}

/// What a serializer waiting for the verifier beside it returns when that found a
/// failure (never reported: the caller verifies and reports as usual).
fn not_verified(ir: &Ir, module: OpId) -> SerializeError {
    SerializeError {
        location: ir.op(module).location.clone(),
        message: "the module does not verify".to_string(),
    }
}

/// Waits until the verifier beside has passed this much of the module (see
/// [`spirvkit_ir::verify::passes_progressively`]); false when it found a failure.
type Gate<'g> = &'g (dyn Fn(usize) -> bool + Sync);

/// Modules with at least this many ops (the IR's) are checked on a second thread
/// while they are serialized.
const PARALLEL_CHECK_OPS: usize = 20_000;

/// The module's words (header included), with room for `estimated_words`.
fn serialize_words(
    ir: &Ir,
    module: OpId,
    options: &SerializeOptions,
    estimated_words: usize,
) -> Result<Vec<u32>> {
    let mut s = Serializer::new(ir, module, options, estimated_words);
    s.module_level()?;
    Ok(s.collect())
}

/// How a type is keyed for uniquing: unsigned integers share the signless type's
/// instruction (`OpTypeInt N 0`), and so do the vectors, matrices, pointers,
/// function types and arrays built on them (MLIR emits `vector<2xui32>` and
/// `vector<2xi32>` twice, which validation rejects); "no result" is `OpTypeVoid`;
/// types MLIR makes up while serializing (an ARM tensor's shape array, its
/// sub-tensors) need no interned IR type. Structs are keyed by their IR type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum TypeKey {
    Void,
    Int {
        width: u32,
        signed: bool,
    },
    Float(spirvkit_ir::types::FloatKind),
    Array {
        element: Box<TypeKey>,
        count: u32,
        stride: Option<u32>,
        spec_length: Option<spirvkit_ir::types::ConstantExpr>,
    },
    /// `shape`: `None` unranked, `-1` a dynamic dimension.
    ArmTensor {
        shape: Option<Vec<i64>>,
        element: Box<TypeKey>,
    },
    /// `OpTypeGraphARM` of a graph's function type.
    Graph(Type),
    Vector {
        element: Box<TypeKey>,
        count: u32,
    },
    Matrix {
        column: Box<TypeKey>,
        count: u32,
    },
    RuntimeArray {
        element: Box<TypeKey>,
        stride: Option<u32>,
        stride_id: Option<spirvkit_ir::types::ConstantExpr>,
    },
    Pointer {
        pointee: Box<TypeKey>,
        storage_class: String,
        stride: Option<u32>,
    },
    /// `result`: `None` for no result (void).
    Function {
        inputs: Vec<TypeKey>,
        result: Option<Box<TypeKey>>,
    },
    Other(Type),
}

/// The merge instruction a structured header block emits before its terminator.
#[derive(Clone, Copy, Debug)]
enum PendingMerge {
    Selection { merge: u32, control: u32, at: OpId },
    Loop { merge: u32, continue_target: u32, control: u32, at: OpId },
}

/// Deepest nesting of types and regions followed before giving up (the parser's
/// nesting limit is 256, so valid IR never reaches it).
const MAX_DEPTH: u32 = 1024;

struct Serializer<'a> {
    ir: &'a Ir,
    module: OpId,
    options: &'a SerializeOptions,
    next_id: u32,
    capabilities: Vec<u32>,
    extensions: Vec<u32>,
    ext_sets: Vec<u32>,
    memory_model: Vec<u32>,
    entry_points: Vec<u32>,
    execution_modes: Vec<u32>,
    debug: Vec<u32>,
    names: Vec<u32>,
    /// `OpModuleProcessed`: the last of the debug section, after the names.
    module_processed: Vec<u32>,
    decorations: Vec<u32>,
    /// With `dxc_decoration_order`: the `Location`s and `Index`es of variables, after
    /// their other decorations (dxc assigns locations once every stage variable exists).
    location_decorations: Vec<u32>,
    /// With `dxc_decoration_order`: the decorations of types, written after the others.
    type_decorations: Vec<u32>,
    /// With `dxc_decoration_order`: each variable's `DescriptorSet` and `Binding`
    /// decorations with the variable's place in `SerializeOptions::binding_order`.
    binding_decorations: Vec<(usize, Vec<u32>)>,
    /// How deep `process_type` is nested (its outermost call moves the decorations).
    type_depth: u32,
    globals: Vec<u32>,
    /// With `dxc_constants_first`: the global variables, after all of `globals`.
    global_variables: Vec<u32>,
    functions: Vec<u32>,
    /// `spirv.ARM.Graph`s and their entry points, after the functions.
    graphs: Vec<u32>,
    function_header: Vec<u32>,
    function_body: Vec<u32>,
    type_ids: HashMap<TypeKey, u32>,
    /// Constants uniqued by their attribute, as MLIR keys them.
    constant_ids: HashMap<types::ConstantKey, u32>,
    undef_ids: HashMap<Type, u32>,
    value_ids: IdTable<Value>,
    block_ids: IdTable<BlockId>,
    /// The id of each interned type already written, by type index (a cache of
    /// `type_ids` that skips building and hashing the `TypeKey`).
    type_cache: Vec<Option<u32>>,
    /// How each definition met so far is serialized, by `OpDef` index.
    def_plans: Vec<Option<ops::DefPlan>>,
    /// Reused by every generic op: its words, its operand segments.
    scratch_words: Vec<u32>,
    scratch_segments: Vec<std::ops::Range<usize>>,
    /// Reused by `emit_phis`: branches to a block, and its incoming edges.
    scratch_uses: Vec<(BlockId, OpId)>,
    scratch_edges: Vec<(BlockId, &'a [Value], OpId)>,
    /// Block lists of `pretty_order` to reuse, and its walk's stack.
    order_pool: Vec<Vec<BlockId>>,
    order_stack: Vec<(&'a [BlockId], usize)>,
    /// Per block, the stamp of the last `pretty_order` walk that saw it.
    visited: Vec<u32>,
    visit_stamp: u32,
    op_names: KnownNames,
    /// `attrs::enum_value` of each enum attribute spelling met (name, body): the
    /// first few, then the others.
    first_enum_values: Vec<(&'a str, &'a str, Option<u32>)>,
    enum_values: HashMap<(&'a str, &'a str), Option<u32>>,
    /// Storage class values by their spelling in pointer types.
    storage_classes: Vec<(String, Option<u32>)>,
    function_ids: HashMap<&'a str, u32>,
    graph_ids: HashMap<String, u32>,
    variable_ids: HashMap<String, u32>,
    spec_constant_ids: HashMap<String, u32>,
    ext_set_ids: Vec<(String, u32)>,
    /// `OpString`s that extended instructions name, by text.
    string_ids: HashMap<String, u32>,
    /// Module-level `spirv.ExtInst`s by symbol.
    ext_inst_ids: HashMap<String, u32>,
    /// The module's function symbols, gathered when an extended instruction first
    /// names a symbol that is nothing else.
    function_symbols: Option<std::collections::HashSet<&'a str>>,
    /// When the module is verified beside the serialization: asked before each op
    /// of the module's body (see [`serialize_read_back_verifying`]).
    gate: Option<Gate<'a>>,
    /// Module-level `spirv.ExtInst`s after a function (clspv's reflection), written
    /// among the functions so the functions they name come first.
    trailing_ext_insts: Option<std::collections::HashSet<OpId>>,
    /// Each block's predecessor uses (block, terminator), most recent first, for
    /// the regions asked about so far.
    predecessors: Predecessors,
    /// Phi operands defined later in the function: (value, word offset in the body).
    deferred_phi_values: Vec<(Value, usize)>,
    /// Identified structs being serialized (a pointer to one of them is a forward pointer).
    struct_context: Vec<String>,
    /// Pointer types to emit once the named struct is complete: (pointer id, storage class).
    recursive_pointers: HashMap<String, Vec<(u32, u32)>>,
    file_id: u32,
    /// Constructs whose header takes the label of the block they start.
    in_place: control::InPlace,
    last_was_merge: bool,
    /// The `OpLine` in effect in dxc's form (`dxc_debug_lines`): file id, line, column.
    line_in_effect: Option<(u32, u32, u32)>,
    depth: u32,
    /// The pointee types of global variables: the structs that may need `Block`.
    variable_pointees: FxHashSet<Type>,
    /// Ids given an `OpName` from a value's or block's name (`emit_op_names`): an id
    /// shared by several (a uniqued constant, a label a construct's header takes) is
    /// named once, by the first.
    named_ids: FxHashSet<u32>,
    /// Bitcasts that only change signedness for ops SPIR-V lets mix it: their result
    /// is written as their operand (`crate::signedness`).
    elided_bitcasts: FxHashSet<OpId>,
}

/// Op names the control-flow walks compare often, interned once: comparing
/// interned names compares table indices, not text.
struct KnownNames {
    loop_op: OpName,
    selection: OpName,
    branch: OpName,
}

impl KnownNames {
    fn new() -> Self {
        KnownNames {
            loop_op: OpName::new("spirv.mlir.loop"),
            selection: OpName::new("spirv.mlir.selection"),
            branch: OpName::new("spirv.Branch"),
        }
    }

    /// `spirv.mlir.loop` or `spirv.mlir.selection`.
    fn is_construct(&self, name: &OpName) -> bool {
        *name == self.loop_op || *name == self.selection
    }
}

/// Predecessor uses by block index, filled a region at a time.
#[derive(Default)]
struct Predecessors {
    regions_done: Vec<bool>,
    uses: Vec<Vec<(BlockId, OpId)>>,
}

/// A key of the IR's arenas, for [`IdTable`].
trait DenseKey: Copy {
    fn index(self) -> usize;
}

impl DenseKey for Value {
    fn index(self) -> usize {
        Value::index(self)
    }
}

impl DenseKey for BlockId {
    fn index(self) -> usize {
        BlockId::index(self)
    }
}

/// Ids by IR value or block: a dense table indexed by the arena index, instead of
/// hashing every value of the module. 0, never an id, marks a key without one (half
/// the memory of `Option<u32>`).
struct IdTable<K> {
    ids: Vec<u32>,
    key: std::marker::PhantomData<K>,
}

impl<K: DenseKey> IdTable<K> {
    fn with_len(len: usize) -> Self {
        IdTable { ids: vec![0; len], key: std::marker::PhantomData }
    }

    fn get(&self, key: &K) -> Option<&u32> {
        self.ids.get(key.index()).filter(|&&id| id != 0)
    }

    fn insert(&mut self, key: K, id: u32) {
        let i = key.index();
        if i >= self.ids.len() {
            self.ids.resize(i + 1, 0);
        }
        self.ids[i] = id;
    }
}

/// The symbols of the `spirv.func`s of `module`'s body.
fn function_symbols(ir: &Ir, module: OpId) -> std::collections::HashSet<&str> {
    let body = ir.entry_block(module).map(|b| ir.block(b).ops.as_slice()).unwrap_or(&[]);
    body.iter()
        .filter(|&&op| ir.op(op).name == "spirv.func")
        .filter_map(|&op| match ir.op(op).attr("sym_name") {
            Some(Attribute::String(symbol)) => Some(symbol.as_str()),
            _ => None,
        })
        .collect()
}

/// The pointee types of the module's `spirv.GlobalVariable`s.
fn variable_pointees(ir: &Ir, module: OpId) -> FxHashSet<Type> {
    let body = ir.op(module).regions.first().and_then(|&r| ir.region(r).blocks.first().copied());
    let ops = body.map(|b| ir.block(b).ops.as_slice()).unwrap_or(&[]);
    ops.iter()
        .filter(|&&op| ir.op(op).name == "spirv.GlobalVariable")
        .filter_map(|&op| match ir.op(op).attr("type") {
            Some(Attribute::Type(ty)) => match ir.types.kind(*ty) {
                spirvkit_ir::types::TypeKind::Pointer { pointee, .. } => Some(*pointee),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

impl<'a> Serializer<'a> {
    /// `estimated_words`: about how many words the module takes (room for the
    /// function section, which the other sections join at the end).
    fn new(ir: &'a Ir, module: OpId, options: &'a SerializeOptions, estimated_words: usize) -> Self {
        Serializer {
            ir,
            module,
            options,
            next_id: 1,
            capabilities: Vec::new(),
            extensions: Vec::new(),
            ext_sets: Vec::new(),
            memory_model: Vec::new(),
            entry_points: Vec::new(),
            execution_modes: Vec::new(),
            debug: Vec::new(),
            names: Vec::new(),
            module_processed: Vec::new(),
            decorations: Vec::new(),
            location_decorations: Vec::new(),
            type_decorations: Vec::new(),
            binding_decorations: Vec::new(),
            type_depth: 0,
            globals: Vec::new(),
            global_variables: Vec::new(),
            // The function section, by far the largest, becomes the whole module's
            // buffer (`collect`): with room for all of it, it never grows (each growth
            // would copy it into fresh memory). Room not written is never touched.
            functions: Vec::with_capacity(estimated_words),
            graphs: Vec::new(),
            function_header: Vec::new(),
            function_body: Vec::new(),
            type_ids: HashMap::default(),
            constant_ids: HashMap::default(),
            undef_ids: HashMap::default(),
            value_ids: IdTable::with_len(ir.value_count()),
            block_ids: IdTable::with_len(ir.block_count()),
            type_cache: Vec::new(),
            def_plans: Vec::new(),
            scratch_words: Vec::new(),
            scratch_segments: Vec::new(),
            scratch_uses: Vec::new(),
            scratch_edges: Vec::new(),
            order_pool: Vec::new(),
            order_stack: Vec::new(),
            visited: vec![0; ir.block_count()],
            visit_stamp: 0,
            op_names: KnownNames::new(),
            storage_classes: Vec::new(),
            first_enum_values: Vec::new(),
            enum_values: HashMap::default(),
            function_ids: HashMap::default(),
            graph_ids: HashMap::default(),
            variable_ids: HashMap::default(),
            spec_constant_ids: HashMap::default(),
            ext_set_ids: Vec::new(),
            string_ids: HashMap::default(),
            ext_inst_ids: HashMap::default(),
            function_symbols: None,
            gate: None,
            trailing_ext_insts: None,
            predecessors: Predecessors::default(),
            deferred_phi_values: Vec::new(),
            struct_context: Vec::new(),
            recursive_pointers: HashMap::default(),
            file_id: 0,
            in_place: control::InPlace::default(),
            last_was_merge: false,
            line_in_effect: None,
            depth: 0,
            variable_pointees: variable_pointees(ir, module),
            named_ids: FxHashSet::default(),
            elided_bitcasts: crate::signedness::elidable_bitcasts(ir, module),
        }
    }

    /// [`attrs::enum_value`], computed once per spelling.
    fn enum_value(&mut self, attr: &'a Attribute) -> Option<u32> {
        let Attribute::Dialect { name, body: Some(body) } = attr else { return None };
        // A module spells few enum values: the first ones are found in a short list
        // (comparing the texts is cheaper than hashing them), any others in the map.
        let first = self.first_enum_values.iter().find(|(n, b, _)| n == name && b == body);
        if let Some(&(_, _, value)) = first {
            return value;
        }
        if let Some(&value) = self.enum_values.get(&(name.as_str(), body.as_str())) {
            return value;
        }
        let value = attrs::enum_value(attr);
        if self.first_enum_values.len() < 16 {
            self.first_enum_values.push((name, body, value));
        } else {
            self.enum_values.insert((name, body), value);
        }
        value
    }

    fn next(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn error(&self, at: OpId, message: impl Into<String>) -> SerializeError {
        SerializeError { location: self.ir.op(at).location.clone(), message: message.into() }
    }

    /// The VCE triple's parts: version word, capabilities, extensions.
    fn vce(&self) -> (u32, Vec<String>, Vec<String>) {
        let body = match self.ir.op(self.module).attr("vce_triple") {
            Some(Attribute::Dialect { body: Some(body), .. }) => body.clone(),
            _ => return (spirvkit_grammar::Version::new(1, 0).word(), Vec::new(), Vec::new()),
        };
        let parts = spirvkit_ir::target_env::vce_parts(&body);
        let (major, minor) = parts.version.unwrap_or((1, 0));
        let version = spirvkit_grammar::Version::new(major, minor);
        (version.word(), parts.capabilities.unwrap_or_default(), parts.extensions.unwrap_or_default())
    }

    /// Capabilities, extensions, the memory model, then every op of the module body.
    fn module_level(&mut self) -> Result<()> {
        let module = self.module;
        if !matches!(self.ir.op(module).attr("vce_triple"), Some(Attribute::Dialect { .. })) {
            return Err(self.error(module, "module must have 'vce_triple' attribute to be serializeable"));
        }
        let (_, capabilities, extensions) = self.vce();
        for cap in &capabilities {
            let Some(value) = attrs::enumerant("Capability", cap) else {
                return Err(self.error(module, format!("unknown capability '{cap}'")));
            };
            encode(&mut self.capabilities, opcode::OpCapability, &[value]);
        }
        for ext in &extensions {
            let mut operands = Vec::new();
            spirvkit_binary::write::encode_string(ext.as_bytes(), &mut operands);
            encode(&mut self.extensions, opcode::OpExtension, &operands);
        }
        let op = self.ir.op(module);
        let addressing = op.attr("addressing_model").and_then(attrs::enum_value);
        let memory = op.attr("memory_model").and_then(attrs::enum_value);
        let (Some(addressing), Some(memory)) = (addressing, memory) else {
            return Err(self.error(module, "spirv.module needs an addressing model and a memory model"));
        };
        encode(&mut self.memory_model, opcode::OpMemoryModel, &[addressing, memory]);
        self.process_source()?;
        if self.options.emit_debug_info {
            // MLIR's debug information needs the non-semantic instruction sets.
            if !extensions.iter().any(|e| e == "SPV_KHR_non_semantic_info") {
                return Err(self.error(module, "SPV_KHR_non_semantic_info extension not available"));
            }
            let file = match &op.location {
                Location::FileLineCol { file, .. } => file.to_string(),
                _ => "<unknown>".to_string(),
            };
            // Extended instructions naming the file (and the module's source, when it
            // names the same one) share its string.
            self.file_id = self.string_id(&file);
        }
        let ir = self.ir;
        let body: &'a [OpId] = ir.entry_block(module).map_or(&[], |block| &ir.block(block).ops);
        // Room for every function's symbol up front (no rehashing as they come).
        self.function_ids.reserve(body.len());
        if self.options.dxc_constants_first && self.gate.is_none() {
            self.constants_of_functions(body)?;
        }
        self.body_ops(body, 0)
    }

    /// Writes the constants of the functions in `body`, in the order the functions'
    /// ops use them (regions in place, depth first), ahead of everything else the
    /// global section holds: dxc's order ([`SerializeOptions::dxc_constants_first`]).
    fn constants_of_functions(&mut self, body: &'a [OpId]) -> Result<()> {
        let ir = self.ir;
        for &function in body {
            if ir.op(function).name != "spirv.func" {
                continue;
            }
            // An explicit stack of (ops, next index): nesting depth costs no native stack.
            let mut stack: Vec<(&'a [OpId], usize)> = Vec::new();
            let push_regions = |stack: &mut Vec<(&'a [OpId], usize)>, op: OpId| {
                for &region in ir.op(op).regions.iter().rev() {
                    for &block in ir.region(region).blocks.iter().rev() {
                        stack.push((&ir.block(block).ops, 0));
                    }
                }
            };
            push_regions(&mut stack, function);
            while let Some((ops, index)) = stack.pop() {
                let Some(&op) = ops.get(index) else { continue };
                stack.push((ops, index + 1));
                let o = ir.op(op);
                if o.name == "spirv.Constant" {
                    if let (Some(&result), Some(value)) = (o.results.first(), o.attr("value")) {
                        self.constant(op, ir.value_type(result), value)?;
                    }
                } else if !o.regions.is_empty() {
                    push_regions(&mut stack, op);
                }
            }
        }
        Ok(())
    }

    /// The ops of the module's body from `from` on: function declarations (imported,
    /// no body) first, as they come before every definition, then the others.
    fn body_ops(&mut self, body: &'a [OpId], from: usize) -> Result<()> {
        let is_declaration =
            |ir: &Ir, op: OpId| ir.op(op).name == "spirv.func" && ir.entry_block(op).is_none();
        for (i, &op) in body.iter().enumerate().skip(from) {
            if is_declaration(self.ir, op) {
                self.passed(i)?;
                self.process_op(op)?;
            }
        }
        for (i, &op) in body.iter().enumerate().skip(from) {
            if !is_declaration(self.ir, op) {
                self.passed(i)?;
                self.process_op(op)?;
            }
        }
        Ok(())
    }

    /// Goes on with the second piece of a module parsed in two ([`serialize_halves`]):
    /// `ir` (whose types are this IR's) and its `module`, whose body ops are asked
    /// to `gate`. What is kept per IR entity starts afresh; what is kept per symbol
    /// or type goes on.
    fn switch_to(&mut self, ir: &'a Ir, module: OpId, gate: Gate<'a>) {
        // The functions of both pieces, which `function_symbol` would otherwise
        // gather from one.
        let mut symbols =
            self.function_symbols.take().unwrap_or_else(|| function_symbols(self.ir, self.module));
        symbols.extend(function_symbols(ir, module));
        self.function_symbols = Some(symbols);
        self.ir = ir;
        self.module = module;
        self.value_ids = IdTable::with_len(ir.value_count());
        self.block_ids = IdTable::with_len(ir.block_count());
        self.visited = vec![0; ir.block_count()];
        self.predecessors = Predecessors::default();
        self.gate = Some(gate);
    }

    /// Waits, when the module is verified beside, until op `index` of its body (and
    /// all before it) passed.
    fn passed(&self, index: usize) -> Result<()> {
        match self.gate {
            Some(gate) if !gate(index + 2) => Err(not_verified(self.ir, self.module)),
            _ => Ok(()),
        }
    }

    /// The header and the sections, in the function section's buffer: the sections
    /// before it are moved in at its front (one move of the function words within
    /// their buffer, no second buffer the size of the module).
    fn collect(mut self) -> Vec<u32> {
        let (version, _, _) = self.vce();
        let header = Header { version, generator: 0, bound: self.next_id, schema: 0 };
        let mut bindings = std::mem::take(&mut self.binding_decorations);
        bindings.sort_by_key(|(rank, _)| *rank);
        let binding_decorations: Vec<u32> = bindings.into_iter().flat_map(|(_, words)| words).collect();
        let before = [
            &self.capabilities,
            &self.extensions,
            &self.ext_sets,
            &self.memory_model,
            &self.entry_points,
            &self.execution_modes,
            &self.debug,
            &self.names,
            &self.module_processed,
            &self.decorations,
            &binding_decorations,
            &self.location_decorations,
            &self.type_decorations,
            &self.globals,
            &self.global_variables,
        ];
        let prefix_len = Header::WORDS + before.iter().map(|s| s.len()).sum::<usize>();
        let mut prefix = Vec::with_capacity(prefix_len);
        prefix.extend_from_slice(&header.words());
        for section in before {
            prefix.extend_from_slice(section);
        }
        let mut words = std::mem::take(&mut self.functions);
        let total = prefix_len + words.len() + self.graphs.len();
        if words.capacity() < total {
            // The estimate fell short: one exact buffer rather than a doubled one.
            let mut all = Vec::with_capacity(total);
            all.extend_from_slice(&prefix);
            all.extend_from_slice(&words);
            words = all;
        } else {
            words.splice(0..0, prefix);
        }
        words.extend_from_slice(&self.graphs);
        words
    }

    /// `OpSource` for each of the module's sources (`spirvkit_ir::source`), after an
    /// `OpString` for every file they name (in their order, as dxc writes them); a
    /// source's text continues in `OpSourceContinued` past what one instruction holds.
    /// Then the `OpModuleProcessed` strings.
    fn process_source(&mut self) -> Result<()> {
        let module = self.module;
        let sources =
            spirvkit_ir::source::module_sources(self.ir, module).map_err(|e| self.error(module, e))?;
        let mut files = Vec::with_capacity(sources.len());
        for source in &sources {
            files.push(source.file.as_deref().map(|file| self.string_id(file)));
        }
        for (source, file) in sources.iter().zip(files) {
            let Some(language) = attrs::enumerant("SourceLanguage", &source.language) else {
                return Err(self.error(module, format!("unknown source language '{}'", source.language)));
            };
            let mut operands = vec![language, source.version];
            operands.extend(file);
            let text = source.text.as_deref().unwrap_or("").as_bytes();
            // dxc's limits: what fits one instruction's word count with the operands.
            const FIRST_PIECE: usize = 0xFFFA;
            const CONTINUED_PIECE: usize = 0xFFFD;
            let (first, mut rest) = text.split_at(text.len().min(FIRST_PIECE));
            if file.is_some() && !first.is_empty() {
                spirvkit_binary::write::encode_string(first, &mut operands);
            } else {
                rest = &[];
            }
            encode(&mut self.debug, opcode::OpSource, &operands);
            while !rest.is_empty() {
                let (piece, after) = rest.split_at(rest.len().min(CONTINUED_PIECE));
                let mut operands = Vec::with_capacity(piece.len() / 4 + 1);
                spirvkit_binary::write::encode_string(piece, &mut operands);
                encode(&mut self.debug, opcode::OpSourceContinued, &operands);
                rest = after;
            }
        }
        for process in &self.options.module_processed {
            let mut operands = Vec::new();
            spirvkit_binary::write::encode_string(process.as_bytes(), &mut operands);
            encode(&mut self.module_processed, opcode::OpModuleProcessed, &operands);
        }
        Ok(())
    }

    /// `OpName` for a symbol.
    fn process_name(&mut self, id: u32, name: &str) {
        if !self.options.emit_symbol_names || name.is_empty() {
            return;
        }
        // Written in place: `encode`'s layout, the word count set at the end.
        let at = self.names.len();
        self.names.extend([0, id]);
        spirvkit_binary::write::encode_string(name.as_bytes(), &mut self.names);
        set_word_count(&mut self.names, at, opcode::OpName);
    }

    /// `OpName` for a value's or label's debug name, with `emit_op_names` on; once per id.
    fn process_debug_name(&mut self, id: u32, name: Option<&str>) {
        let Some(name) = name.filter(|n| !n.is_empty()) else { return };
        if !self.options.emit_op_names || !self.named_ids.insert(id) {
            return;
        }
        let at = self.names.len();
        self.names.extend([0, id]);
        spirvkit_binary::write::encode_string(name.as_bytes(), &mut self.names);
        set_word_count(&mut self.names, at, opcode::OpName);
    }

    /// `OpName` for the label of `block`, named by the block's name (`emit_op_names`).
    fn name_label(&mut self, block: BlockId, id: u32) {
        if self.options.emit_op_names {
            let ir = self.ir;
            self.process_debug_name(id, ir.block(block).name.as_deref());
        }
    }

    /// `OpName` for the id of `value`, named by its location (`emit_op_names`).
    fn name_value(&mut self, value: Value, location: &Location) {
        if !self.options.emit_op_names {
            return;
        }
        if let (Some(name), Some(&id)) = (location.debug_name(), self.value_ids.get(&value)) {
            self.process_debug_name(id, Some(name));
        }
    }

    /// `OpLine` for an op's location, with debug info on; none right after a merge
    /// instruction (the merge and its branch share a line).
    fn emit_debug_line(&mut self, into_header: bool, at: OpId) {
        if self.options.dxc_debug_lines {
            if self.ir.op(at).name == "spirv.Variable" {
                // dxc writes no line for variables (their initialization has one).
                return;
            }
            let terminator = matches!(
                self.ir.op(at).name.as_str(),
                "spirv.Branch"
                    | "spirv.BranchConditional"
                    | "spirv.Switch"
                    | "spirv.Return"
                    | "spirv.ReturnValue"
                    | "spirv.Kill"
                    | "spirv.Unreachable"
                    | "spirv.TerminateInvocation"
            );
            let ir = self.ir;
            self.dxc_line(into_header, &ir.op(at).location, terminator);
            return;
        }
        if !self.options.emit_debug_info {
            return;
        }
        if self.last_was_merge {
            self.last_was_merge = false;
            return;
        }
        if let Location::FileLineCol { line, column, .. } = self.ir.op(at).location {
            let words = [self.file_id, line, column];
            let out = if into_header { &mut self.function_header } else { &mut self.function_body };
            encode(out, opcode::OpLine, &words);
        }
    }

    /// dxc's placement of `OpLine`/`OpNoLine` ([`SerializeOptions::dxc_debug_lines`])
    /// before an instruction at `location` (a name location's child counts): none
    /// right after a merge instruction (which must precede its branch), none when the
    /// line in effect is the same, `OpNoLine` when the instruction has none and a line
    /// is in effect; a terminator ends the line's effect.
    fn dxc_line(&mut self, into_header: bool, location: &Location, terminator: bool) {
        if !self.options.dxc_debug_lines {
            return;
        }
        if self.last_was_merge {
            self.last_was_merge = false;
            self.line_in_effect = None;
            return;
        }
        let Some((file, line, column)) = location.file_line_col().filter(|&(_, l, c)| l != 0 && c != 0)
        else {
            if self.line_in_effect.take().is_some() {
                let out = if into_header { &mut self.function_header } else { &mut self.function_body };
                encode(out, opcode::OpNoLine, &[]);
            }
            return;
        };
        let file = self.string_id(file);
        let line = (file, line, column);
        if self.line_in_effect == Some(line) {
            if terminator {
                self.line_in_effect = None;
            }
            return;
        }
        self.line_in_effect = (!terminator).then_some(line);
        let out = if into_header { &mut self.function_header } else { &mut self.function_body };
        encode(out, opcode::OpLine, &[line.0, line.1, line.2]);
    }
}

/// Whether an instruction's word count is 0 (`encode`'s mark for an overflow).
fn instruction_counts_overflowed(words: &[u32]) -> bool {
    let mut at = Header::WORDS;
    while let Some(&word) = words.get(at) {
        let count = (word >> 16) as usize;
        if count == 0 {
            return true;
        }
        at += count;
    }
    false
}

/// Completes an instruction written in place from word `at` to the end of `out`:
/// its first word becomes the word count and opcode, as [`encode`] writes it.
fn set_word_count(out: &mut [u32], at: usize, opcode: u16) {
    let count = out.len().saturating_sub(at);
    let count = u32::try_from(count).ok().filter(|&c| c <= 0xffff).unwrap_or(0);
    if let Some(word) = out.get_mut(at) {
        *word = (count << 16) | u32::from(opcode);
    }
}

/// Appends one instruction: word count and opcode, then the operands. A count that
/// does not fit is written as 0, which `serialize` then refuses.
fn encode(out: &mut Vec<u32>, opcode: u16, operands: &[u32]) {
    let count = u32::try_from(operands.len() + 1).ok().filter(|&c| c <= 0xffff).unwrap_or(0);
    out.push((count << 16) | u32::from(opcode));
    out.extend_from_slice(operands);
}

#[cfg(test)]
mod tests;
