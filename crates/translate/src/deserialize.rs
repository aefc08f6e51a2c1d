//! SPIR-V words -> a `spirv.module` op, producing what `mlir-translate --deserialize-spirv`
//! prints.
//!
//! The binary is read (and its word structure validated) by `spirvkit_binary::read`; this
//! module then walks the instructions once, in order:
//!
//! - module-level instructions (capabilities, extensions, memory model, names,
//!   decorations) are collected; types are interned as they are defined
//!   ([`types`]); constants, undefs, global variables and spec constants are recorded
//!   and materialized at each use, in the using block, as MLIR does (`spirv.Constant`,
//!   `spirv.Undef`, `spirv.mlir.addressof`, `spirv.mlir.referenceof`);
//! - functions become `spirv.func` with a plain CFG ([`function`]): blocks in the order
//!   they are first referenced (as MLIR creates them), OpPhi as block arguments whose
//!   incoming values are appended to the predecessors' branches once the function is
//!   complete, and merge instructions recorded per header for [`crate::structurize`];
//! - ARM graphs (OpGraphARM ... OpGraphEndARM) become `spirv.ARM.Graph`;
//! - non-semantic and debug-information OpExtInsts outside functions become
//!   `spirv.ExtInst` symbols in the module body ([`ext_inst`], `crate::fallback`);
//! - OpEntryPoint/OpExecutionMode are emitted last, as MLIR defers them;
//! - decoration groups (OpDecorationGroup, OpGroupDecorate, OpGroupMemberDecorate) are
//!   expanded into the decorations they apply to each target, which is what they mean:
//!   the IR has no groups, and the serializer writes those back as plain decorations.
//!   Decorations MLIR has no attribute for are kept by their grammar (see
//!   `decoration_value`), on parameters as `spirv.<decoration>` argument attributes.
//!
//! Instructions map to ops through the ODS tables (`OpDef::spirv_name`, `arguments`:
//! ids to operands, enumerant words or constant ids to enum attributes, literal words to
//! integer and array attributes); only the ops with special encodings are hand-written.
//! Symbols: an entry point's function is named by the entry point (MLIR requires its
//! OpName to agree), others by OpName, else `spirv_fn_<id>`/`spirv_var_<id>`/
//! `spirv_spec_const_<id>`/`spirv_graph_<id>` as MLIR names them.
//!
//! Hostile input: ids and counts are checked before use; spec constant operations
//! (re-materialized at every use) are bounded in depth and size, type nesting and
//! forward pointers in number, so that printing and verifying stay within the stack.

mod ext_inst;
mod function;
mod halves;
mod ids;
mod types;

use spirvkit_binary::module::{Inst, Module};
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_grammar::{opcode, OperandKind};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{BlockId, Location};
use spirvkit_ir::opdef::{EnumAttrDef, ENUM_ATTRS};
use spirvkit_ir::types::{Signedness, Type};
use spirvkit_ir::{Ir, OpId};

#[derive(Clone, Debug)]
pub struct DeserializeOptions {
    /// Structurize control flow into `spirv.mlir.selection`/`spirv.mlir.loop` (default);
    /// `false` leaves plain CFG functions (`--spirv-structurize-control-flow=false`).
    pub structurize: bool,
    /// Turn OpLine/OpString into op locations (`--test-spirv-roundtrip-debug`).
    pub debug_locations: bool,
}

impl Default for DeserializeOptions {
    fn default() -> Self {
        DeserializeOptions { structurize: true, debug_locations: false }
    }
}

/// Why a binary was not deserialized: the instruction's word offset (header = words 0..5)
/// and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("word {offset}: {message}")]
pub struct DeserializeError {
    pub offset: usize,
    pub message: String,
}

type Result<T> = std::result::Result<T, DeserializeError>;

fn error<T>(offset: usize, message: impl Into<String>) -> Result<T> {
    Err(DeserializeError { offset, message: message.into() })
}

/// The name of an opcode for messages.
fn opcode_name(op: u16) -> String {
    spirvkit_grammar::instruction(op).map_or_else(|| format!("opcode {op}"), |i| i.name.to_string())
}

fn not_supported<T>(inst: &Inst, what: &str) -> Result<T> {
    error(inst.offset, format!("not supported yet: {what}"))
}

/// Deserializes a SPIR-V binary (bytes in either byte order) into a new top-level
/// `spirv.module` op of `ir`.
pub fn deserialize(
    bytes: &[u8],
    ir: &mut Ir,
    options: &DeserializeOptions,
) -> std::result::Result<OpId, DeserializeError> {
    deserialize_module(&read(bytes)?, ir, options)
}

/// Reads a binary for [`deserialize_module`], with [`deserialize`]'s errors.
pub fn read(bytes: &[u8]) -> std::result::Result<spirvkit_binary::Module, DeserializeError> {
    spirvkit_binary::read::read(bytes).map_err(read_error)
}

/// [`read`] of a binary read as little-endian words
/// ([`spirvkit_binary::read_le_words`]), with the same errors.
pub fn read_le_words(words: Vec<u32>) -> std::result::Result<spirvkit_binary::Module, DeserializeError> {
    spirvkit_binary::read_le_words(words).map_err(read_error)
}

/// A reader's error as deserializing reports it.
fn read_error(e: spirvkit_binary::ReadError) -> DeserializeError {
    DeserializeError { offset: e.word_offset, message: e.kind.to_string() }
}

/// [`deserialize`] of a binary read already.
pub fn deserialize_module(
    module: &spirvkit_binary::Module,
    ir: &mut Ir,
    options: &DeserializeOptions,
) -> std::result::Result<OpId, DeserializeError> {
    if ir.op_count() == 0 {
        if let Some(op) = halves::deserialize(module, ir, options) {
            return Ok(op);
        }
    }
    reserve_for_module(ir, module);
    Deserializer::new(module, ir, options).run().map(|(op, _)| op)
}

/// Reserves an IR's arenas for all of `module` (about an op per instruction; the
/// reservation is by the size of MLIR text, 40 bytes an op), so they need not grow,
/// copying themselves. Not for an IR whose functions are streamed: it only ever holds
/// a chunk of them.
fn reserve_for_module(ir: &mut Ir, module: &Module) {
    ir.reserve_for_text(module.instruction_count().saturating_mul(40));
}

pub use halves::{print_in_halves, PrintedHalves};

/// The two-thread paths forced on a module of any size, for tests and fuzzing.
#[doc(hidden)]
pub use halves::forced as halves_at_any_size;

/// The attribute of a `spirv.GlobalVariable` whose OpVariable initializer is a
/// constant: the constant's value, as `spirv.Constant` holds it (MLIR's `initializer`
/// names a symbol, which a constant does not have).
pub const CONSTANT_INITIALIZER_ATTR: &str = "initializer_constant";

/// At most this many decorations are applied through decoration groups in a module.
const GROUP_DECORATION_LIMIT: usize = 1 << 20;

/// One OpDecorate/OpMemberDecorate: the decoration and its literal words.
#[derive(Clone, Debug)]
struct Decoration {
    offset: usize,
    kind: u32,
    /// The parameter words (ids, literals or enumerants, as the decoration defines).
    params: Vec<u32>,
}

/// A constant's value as MLIR keeps it: the attribute of `spirv.Constant` and its type.
#[derive(Clone, Debug)]
struct Constant {
    value: Attribute,
    ty: Type,
    /// OpConstantCompositeReplicateEXT (`spirv.EXT.ConstantCompositeReplicate`): `value` is
    /// the replicated constituent.
    replicate: bool,
}

/// A module-level id that uses materialize.
#[derive(Clone, Debug)]
enum ModuleValue {
    Constant(Constant),
    /// OpUndef at module level: a `spirv.Undef` of this type at each use.
    Undef(Type),
    /// A global variable: `spirv.mlir.addressof @symbol`.
    Global {
        symbol: String,
        ty: Type,
    },
    /// A spec constant (scalar or composite): `spirv.mlir.referenceof @symbol`.
    SpecConstant {
        symbol: String,
        ty: Type,
    },
    /// OpSpecConstantOp: a `spirv.SpecConstantOperation` at each use, its operands
    /// materialized before it.
    SpecOperation {
        offset: usize,
        ty: Type,
        opcode: u16,
        operands: Vec<u32>,
    },
    /// OpGraphConstantARM: `spirv.ARM.GraphConstant` at each use.
    GraphConstant {
        ty: Type,
        id: u32,
    },
    /// OpConstantSizeOfEXT: the size of type `of`, as a constant of type `ty`. Only
    /// array types refer to it (an `ArrayStrideIdEXT` stride).
    SizeOf {
        of: Type,
        ty: Type,
    },
}

struct Deserializer<'m, 'i> {
    module: &'m Module,
    ir: &'i mut Ir,
    options: &'i DeserializeOptions,
    module_op: OpId,
    module_block: BlockId,
    capabilities: Vec<String>,
    extensions: Vec<String>,
    extension_set: FxHashSet<String>,
    memory_model: Option<(u32, u32)>,
    /// OpExtInstImport ids to the dialect prefix of their ops (`GL`, `CL`).
    ext_imports: FxHashMap<u32, Option<&'static str>>,
    /// OpExtInstImport ids to their import names.
    ext_import_names: FxHashMap<u32, String>,
    /// Module-level OpExtInst ids (non-semantic instructions) to their op's symbol.
    ext_inst_symbols: FxHashMap<u32, String>,
    /// Results of the OpExtInsts outside functions (which may be named before they
    /// are defined).
    module_ext_inst_ids: FxHashSet<u32>,
    names: FxHashMap<u32, String>,
    strings: FxHashMap<u32, String>,
    decorations: FxHashMap<u32, Vec<Decoration>>,
    /// The ids with `decorations` (dense: most values have none, and each is asked).
    decorated: ids::IdTable<()>,
    member_decorations: FxHashMap<u32, Vec<(u32, Decoration)>>,
    /// OpDecorationGroup results (their decorations are in `decorations`).
    decoration_groups: FxHashSet<u32>,
    /// Decorations copied from groups so far, bounded (`GROUP_DECORATION_LIMIT`): a
    /// group of many decorations applied to many targets multiplies.
    group_decorations_applied: usize,
    types: FxHashMap<u32, Type>,
    /// `types` again, for the lookups of every instruction (dense by id).
    type_table: ids::IdTable<Type>,
    void_types: FxHashSet<u32>,
    /// OpTypeFunction: parameter types and the return type (`None` for void).
    function_types: FxHashMap<u32, (Vec<Type>, Option<Type>)>,
    /// OpTypeForwardPointer ids and their storage class.
    forward_pointers: FxHashMap<u32, u32>,
    /// Every OpTypePointer's storage class and pointee id (forward pointers need them early).
    pointer_defs: FxHashMap<u32, (u32, u32)>,
    /// How many more ops and branch arguments uses may create: each use of a constant
    /// makes an op and each phi an argument per edge, so a small hostile module could
    /// otherwise ask for a huge IR. Proportional to the input.
    materialized_budget: usize,
    /// OpTypeGraphARM: input and output types.
    graph_types: FxHashMap<u32, (Vec<Type>, Vec<Type>)>,
    /// OpGraphARM ids: symbol and whether it is an entry point.
    graph_symbols: FxHashMap<u32, (String, bool)>,
    /// How deeply each type nests (printers and verifiers recurse on types).
    type_depths: FxHashMap<Type, u32>,
    module_values: FxHashMap<u32, ModuleValue>,
    /// Symbol names of every function (known before any body is read, for calls).
    function_symbols: FxHashMap<u32, String>,
    used_symbols: FxHashSet<String>,
    /// OpEntryPoint/OpExecutionMode, emitted after everything else.
    deferred: Vec<usize>,
    /// The location of the last OpLine (with `debug_locations`), until OpNoLine or the
    /// end of the block.
    line: Location,
    /// Which functions (by position in the module) get their bodies read; the others
    /// are skipped ([`halves`] reads each half of a large module on its own thread).
    function_bodies: std::ops::Range<usize>,
    /// Each OpFunction's instruction index and the index just past the OpFunctionEnd
    /// that ends it (the instruction count if none does), in order: the functions
    /// whose bodies are not read are skipped without being walked again.
    function_spans: Vec<(usize, usize)>,
    /// The last function's state, whose storage the next one reuses.
    spare_function_state: Option<function::FunctionState>,
    /// Where function bodies go as they are made, when they are not to stay in the
    /// IR ([`halves`] prints a half's functions a few at a time).
    stream: Option<&'i mut halves::FunctionStream>,
    /// `#spirv.storage_class<...>` of the storage classes met so far.
    storage_classes: FxHashMap<u32, Attribute>,
    /// `i32`, once interned.
    i32_type: Option<Type>,
    /// The first `OpSource`'s language, version and file: the module's source
    /// (`spirvkit_ir::source`).
    source: Option<spirvkit_ir::source::ModuleSource>,
}

impl<'m, 'i> Deserializer<'m, 'i> {
    fn new(module: &'m Module, ir: &'i mut Ir, options: &'i DeserializeOptions) -> Self {
        let module_op = ir.create_op("spirv.module", vec![], &[], Location::Unknown);
        let region = ir.add_region(module_op);
        let module_block = ir.create_block();
        ir.append_block(region, module_block);
        Deserializer {
            module,
            ir,
            options,
            module_op,
            module_block,
            capabilities: Vec::new(),
            extensions: Vec::new(),
            extension_set: FxHashSet::default(),
            memory_model: None,
            ext_imports: FxHashMap::default(),
            ext_import_names: FxHashMap::default(),
            ext_inst_symbols: FxHashMap::default(),
            module_ext_inst_ids: FxHashSet::default(),
            names: FxHashMap::default(),
            strings: FxHashMap::default(),
            decorations: FxHashMap::default(),
            decorated: ids::IdTable::new(module.header.bound, module.words().len()),
            member_decorations: FxHashMap::default(),
            decoration_groups: FxHashSet::default(),
            group_decorations_applied: 0,
            types: FxHashMap::default(),
            type_table: ids::IdTable::new(module.header.bound, module.words().len()),
            void_types: FxHashSet::default(),
            function_types: FxHashMap::default(),
            forward_pointers: FxHashMap::default(),
            pointer_defs: FxHashMap::default(),
            type_depths: FxHashMap::default(),
            graph_types: FxHashMap::default(),
            materialized_budget: module.words().len().saturating_mul(16).saturating_add(1 << 16),
            graph_symbols: FxHashMap::default(),
            module_values: FxHashMap::default(),
            function_symbols: FxHashMap::default(),
            used_symbols: FxHashSet::default(),
            deferred: Vec::new(),
            line: Location::Unknown,
            function_bodies: 0..usize::MAX,
            function_spans: Vec::new(),
            spare_function_state: None,
            stream: None,
            i32_type: None,
            storage_classes: FxHashMap::default(),
            source: None,
        }
    }

    /// Deserializes the module; returns its op and how much of the materialization
    /// budget it used.
    fn run(mut self) -> Result<(OpId, usize)> {
        let budget = self.materialized_budget;
        self.collect_function_symbols()?;
        let count = self.module.instruction_count();
        let mut index = 0;
        let mut function_ordinal = 0;
        let mut span = 0;
        while index < count {
            let Some(inst) = self.module.instruction(index) else { break };
            if inst.opcode == opcode::OpFunction {
                index = if self.function_bodies.contains(&function_ordinal) {
                    if let Some(stream) = self.stream.as_deref_mut() {
                        stream.before_function(self.ir, self.module_block);
                    }
                    let next = self.function(index)?;
                    if let Some(stream) = self.stream.as_deref_mut() {
                        if !stream.after_function(self.ir, self.module_op, self.module_block) {
                            return error(inst.offset, halves::STREAM_DECLINED);
                        }
                    }
                    next
                } else {
                    while self.function_spans.get(span).is_some_and(|&(start, _)| start < index) {
                        span += 1;
                    }
                    match self.function_spans.get(span) {
                        Some(&(start, end)) if start == index => end,
                        _ => halves::function_end(self.module, index),
                    }
                };
                function_ordinal += 1;
                continue;
            }
            if inst.opcode == opcode::OpGraphARM {
                index = self.graph(index)?;
                continue;
            }
            self.module_instruction(&inst, index)?;
            index += 1;
        }
        if let Some(stream) = self.stream.as_deref_mut() {
            if !stream.finish(self.ir, self.module_op, self.module_block) {
                return error(0, halves::STREAM_DECLINED);
            }
        }
        let deferred = std::mem::take(&mut self.deferred);
        for index in deferred {
            if let Some(inst) = self.module.instruction(index) {
                self.entry_point_or_mode(&inst)?;
            }
        }
        self.finish_module()?;
        Ok((self.module_op, budget - self.materialized_budget))
    }

    /// Names every function before any body is read: the entry point's name when it is
    /// one (that name is the one that matters), else OpName, else MLIR's `spirv_fn_<id>`.
    fn collect_function_symbols(&mut self) -> Result<()> {
        let mut entry_names: FxHashMap<u32, String> = FxHashMap::default();
        let mut function_ids = Vec::new();
        let mut graph_ids = Vec::new();
        let mut graph_entry_names: FxHashMap<u32, String> = FxHashMap::default();
        let mut in_function = false;
        let count = self.module.instruction_count();
        // The spans of the functions not yet ended.
        let mut open = 0;
        for (index, inst) in self.module.instructions().enumerate() {
            match inst.opcode {
                opcode::OpFunction => {
                    in_function = true;
                    self.function_spans.push((index, count));
                }
                opcode::OpFunctionEnd => {
                    in_function = false;
                    for span in self.function_spans.get_mut(open..).unwrap_or(&mut []) {
                        span.1 = index + 1;
                    }
                    open = self.function_spans.len();
                }
                opcode::OpExtInst | opcode::OpExtInstWithForwardRefsKHR if !in_function => {
                    self.module_ext_inst_ids.insert(inst.result_id);
                }
                _ => {}
            }
            match inst.opcode {
                opcode::OpName => {
                    if let (Some(&target), Some(name)) = (inst.words.get(1), inst.operands.get(1)) {
                        let text = text_of(inst.string_bytes(name));
                        // A repeated OpName keeps the first.
                        self.names.entry(target).or_insert(text);
                    }
                }
                opcode::OpEntryPoint => {
                    if let (Some(&f), Some(name)) = (inst.words.get(2), inst.operands.get(2)) {
                        let text = text_of(inst.string_bytes(name));
                        // `spirv.EntryPoint` names the function: one name per function.
                        match entry_names.get(&f) {
                            Some(existing) if *existing != text => {
                                return error(
                                    inst.offset,
                                    format!(
                                        "not supported yet: function <id> {f} is an entry point as both '{existing}' and '{text}'"
                                    ),
                                )
                            }
                            Some(_) => {}
                            None => {
                                entry_names.insert(f, text);
                            }
                        }
                    }
                }
                opcode::OpFunction => function_ids.push(inst.result_id),
                opcode::OpGraphARM => graph_ids.push(inst.result_id),
                opcode::OpGraphEntryPointARM => {
                    if let (Some(&g), Some(name)) = (inst.words.get(1), inst.operands.get(1)) {
                        let text = text_of(inst.string_bytes(name));
                        graph_entry_names.entry(g).or_insert(text);
                    }
                }
                opcode::OpTypePointer => {
                    if let (Some(&class), Some(&pointee)) = (inst.words.get(2), inst.words.get(3)) {
                        self.pointer_defs.insert(inst.result_id, (class, pointee));
                    }
                }
                _ => {}
            }
        }
        self.used_symbols.reserve(function_ids.len() + graph_ids.len());
        // Entry points first: their names must survive as they are.
        for &id in &function_ids {
            if let Some(name) = entry_names.get(&id) {
                if name.is_empty() {
                    return error(
                        0,
                        format!("not supported yet: entry point function <id> {id} with an empty name"),
                    );
                }
                if !self.used_symbols.insert(name.clone()) {
                    return error(0, format!("not supported yet: two entry point functions named '{name}'"));
                }
                self.function_symbols.insert(id, name.clone());
            }
        }
        for &id in &graph_ids {
            if let Some(name) = graph_entry_names.get(&id).filter(|n| !n.is_empty()) {
                if !self.used_symbols.insert(name.clone()) {
                    return error(0, format!("not supported yet: two entry points named '{name}'"));
                }
                self.graph_symbols.insert(id, (name.clone(), true));
            }
        }
        for id in graph_ids {
            if !self.graph_symbols.contains_key(&id) {
                let symbol = self.unique_symbol(format!("spirv_graph_{id}"), id);
                self.graph_symbols.insert(id, (symbol, false));
            }
        }
        for id in function_ids {
            if entry_names.contains_key(&id) {
                continue;
            }
            let preferred = self
                .names
                .get(&id)
                .filter(|n| !n.is_empty())
                .cloned()
                .unwrap_or_else(|| format!("spirv_fn_{id}"));
            let symbol = self.unique_symbol(preferred, id);
            self.function_symbols.insert(id, symbol);
        }
        Ok(())
    }

    /// `name`, or `name_<id>` when a symbol of that name exists already.
    fn unique_symbol(&mut self, name: String, id: u32) -> String {
        if self.used_symbols.insert(name.clone()) {
            return name;
        }
        let symbol = format!("{name}_{id}");
        self.used_symbols.insert(symbol.clone());
        symbol
    }

    /// The symbol of a global or spec constant: its OpName, else `<prefix><id>`.
    fn symbol_for(&mut self, id: u32, prefix: &str) -> String {
        let preferred =
            self.names.get(&id).filter(|n| !n.is_empty()).cloned().unwrap_or_else(|| format!("{prefix}{id}"));
        self.unique_symbol(preferred, id)
    }

    fn module_instruction(&mut self, inst: &Inst, index: usize) -> Result<()> {
        match inst.opcode {
            opcode::OpCapability => {
                let value = word(inst, 1)?;
                let name = enum_case_text("Capability", value)
                    .or_else(|| OperandKind::Capability.info().enumerant(value).map(|e| e.name.to_string()))
                    .ok_or_else(|| DeserializeError {
                        offset: inst.offset,
                        message: format!("unknown capability: {value}"),
                    })?;
                if !self.capabilities.contains(&name) {
                    self.capabilities.push(name);
                }
            }
            opcode::OpExtension => {
                let name = string_operand(inst, 0);
                // The `#spirv.vce` attribute lists extensions as bare identifiers (as
                // every extension name is); anything else could not be written back.
                let identifier = name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                    && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
                if !identifier {
                    return error(
                        inst.offset,
                        format!("not supported yet: extension name {name:?} that is not an identifier"),
                    );
                }
                if self.extension_set.insert(name.clone()) {
                    self.extensions.push(name);
                }
            }
            opcode::OpExtInstImport => {
                let name = string_operand(inst, 1);
                let prefix = match name.as_str() {
                    "GLSL.std.450" => Some("GL"),
                    "OpenCL.std" => Some("CL"),
                    _ => None,
                };
                self.ext_imports.insert(inst.result_id, prefix);
                self.ext_import_names.insert(inst.result_id, name);
            }
            opcode::OpMemoryModel => self.memory_model = Some((word(inst, 1)?, word(inst, 2)?)),
            opcode::OpEntryPoint | opcode::OpExecutionMode | opcode::OpExecutionModeId => {
                self.deferred.push(index)
            }
            opcode::OpString => {
                let text = string_operand(inst, 1);
                self.strings.insert(inst.result_id, text);
            }
            opcode::OpSource => self.source(inst),
            // Names were collected up front; the rest of the debug section has no IR
            // form (an `OpSource`'s source text neither).
            opcode::OpName
            | opcode::OpMemberName
            | opcode::OpSourceContinued
            | opcode::OpSourceExtension
            | opcode::OpModuleProcessed
            | opcode::OpNop => {}
            opcode::OpLine | opcode::OpNoLine => self.debug_line(inst)?,
            opcode::OpDecorate | opcode::OpDecorateId | opcode::OpDecorateString => {
                let target = word(inst, 1)?;
                let kind = word(inst, 2)?;
                let params = inst.words.get(3..).unwrap_or(&[]).to_vec();
                self.decorated.insert(target, ());
                self.decorations.entry(target).or_default().push(Decoration {
                    offset: inst.offset,
                    kind,
                    params,
                });
            }
            // A decoration group stands for the decorations applied to it: each
            // OpGroupDecorate/OpGroupMemberDecorate target gets them as its own (the
            // serializer writes plain decorations back; groups are not kept).
            opcode::OpDecorationGroup => {
                self.decoration_groups.insert(inst.result_id);
            }
            opcode::OpGroupDecorate | opcode::OpGroupMemberDecorate => {
                let group = word(inst, 1)?;
                if !self.decoration_groups.contains(&group) {
                    return error(
                        inst.offset,
                        format!(
                            "{} of <id> {group}, which is not a decoration group",
                            opcode_name(inst.opcode)
                        ),
                    );
                }
                let applied = self.decorations.get(&group).cloned().unwrap_or_default();
                let targets = inst.words.get(2..).unwrap_or(&[]);
                self.group_decorations_applied = self
                    .group_decorations_applied
                    .saturating_add(applied.len().saturating_mul(targets.len()));
                if self.group_decorations_applied > GROUP_DECORATION_LIMIT {
                    return error(inst.offset, "decoration groups apply too many decorations");
                }
                if inst.opcode == opcode::OpGroupDecorate {
                    for &target in targets {
                        self.decorated.insert(target, ());
                        self.decorations.entry(target).or_default().extend(applied.iter().cloned());
                    }
                } else {
                    for pair in targets.chunks(2) {
                        let [target, member] = *pair else {
                            return error(inst.offset, "OpGroupMemberDecorate with a target but no member");
                        };
                        let decorations = self.member_decorations.entry(target).or_default();
                        decorations.extend(applied.iter().map(|d| (member, d.clone())));
                    }
                }
            }
            opcode::OpMemberDecorate | opcode::OpMemberDecorateString => {
                let target = word(inst, 1)?;
                let member = word(inst, 2)?;
                let kind = word(inst, 3)?;
                let params = inst.words.get(4..).unwrap_or(&[]).to_vec();
                self.member_decorations
                    .entry(target)
                    .or_default()
                    .push((member, Decoration { offset: inst.offset, kind, params }));
            }
            opcode::OpVariable | opcode::OpUntypedVariableKHR => self.global_variable(inst)?,
            opcode::OpConstantSizeOfEXT => {
                let ty = self.type_of(inst, inst.result_type)?;
                let of = self.type_of(inst, word(inst, 3)?)?;
                self.module_values.insert(inst.result_id, ModuleValue::SizeOf { of, ty });
            }
            opcode::OpUndef => {
                let ty = self.type_of(inst, inst.result_type)?;
                self.module_values.insert(inst.result_id, ModuleValue::Undef(ty));
            }
            opcode::OpConstant
            | opcode::OpConstantTrue
            | opcode::OpConstantFalse
            | opcode::OpConstantComposite
            | opcode::OpConstantCompositeReplicateEXT
            | opcode::OpConstantNull => {
                let constant = self.constant(inst)?;
                self.module_values.insert(inst.result_id, ModuleValue::Constant(constant));
            }
            opcode::OpSpecConstant
            | opcode::OpSpecConstantTrue
            | opcode::OpSpecConstantFalse
            | opcode::OpSpecConstantComposite
            | opcode::OpSpecConstantCompositeReplicateEXT => self.spec_constant(inst)?,
            opcode::OpSpecConstantOp => {
                let ty = self.type_of(inst, inst.result_type)?;
                let inner = word(inst, 3)?;
                let Ok(inner) = u16::try_from(inner) else {
                    return error(inst.offset, format!("OpSpecConstantOp: invalid opcode {inner}"));
                };
                let operands = inst.words.get(4..).unwrap_or(&[]).to_vec();
                let value = ModuleValue::SpecOperation { offset: inst.offset, ty, opcode: inner, operands };
                self.module_values.insert(inst.result_id, value);
            }
            opcode::OpTypeGraphARM => {
                let inputs = word(inst, 2)? as usize;
                let mut types = Vec::new();
                for &t in inst.words.get(3..).unwrap_or(&[]) {
                    types.push(self.type_of(inst, t)?);
                }
                if inputs > types.len() {
                    return error(inst.offset, "OpTypeGraphARM has fewer types than inputs");
                }
                let outputs = types.split_off(inputs);
                self.graph_types.insert(inst.result_id, (types, outputs));
            }
            opcode::OpGraphConstantARM => {
                let ty = self.type_of(inst, inst.result_type)?;
                let id = word(inst, 3)?;
                self.module_values.insert(inst.result_id, ModuleValue::GraphConstant { ty, id });
            }
            opcode::OpGraphEntryPointARM => self.graph_entry_point(inst)?,
            opcode::OpExtInst | opcode::OpExtInstWithForwardRefsKHR => self.module_ext_inst(inst)?,
            op if self.is_type_instruction(op) => self.type_instruction(inst)?,
            op => return not_supported(inst, &opcode_name(op)),
        }
        Ok(())
    }

    /// OpLine/OpNoLine: the location of the ops that follow.
    fn debug_line(&mut self, inst: &Inst) -> Result<()> {
        if inst.opcode == opcode::OpNoLine || !self.options.debug_locations {
            self.line = Location::Unknown;
            return Ok(());
        }
        let file = word(inst, 1)?;
        let Some(name) = self.strings.get(&file) else {
            return error(inst.offset, format!("OpLine refers to <id> {file}, which is not an OpString"));
        };
        self.line = Location::FileLineCol {
            file: name.as_str().into(),
            line: word(inst, 2)?,
            column: word(inst, 3)?,
        };
        Ok(())
    }

    /// The type with id `id`, for an instruction that needs it.
    #[inline]
    fn type_of(&self, inst: &Inst, id: u32) -> Result<Type> {
        match self.type_table.get(id) {
            Some(ty) => Ok(ty),
            None => self.not_a_type(inst, id),
        }
    }

    /// The error of [`Self::type_of`] (out of line: every instruction with a result
    /// type asks for it).
    #[cold]
    fn not_a_type(&self, inst: &Inst, id: u32) -> Result<Type> {
        if self.void_types.contains(&id) {
            return error(inst.offset, format!("{} has void type", opcode_name(inst.opcode)));
        }
        error(inst.offset, format!("{} refers to undefined type <id> {id}", opcode_name(inst.opcode)))
    }

    /// `spirv.GlobalVariable`, of OpVariable or (of an untyped pointer type, which
    /// names the storage class) OpUntypedVariableKHR.
    fn global_variable(&mut self, inst: &Inst) -> Result<()> {
        let ty = self.type_of(inst, inst.result_type)?;
        let mut initializer = inst.words.get(4);
        if inst.opcode == opcode::OpUntypedVariableKHR {
            if inst.words.len() > 4 {
                return not_supported(inst, "OpUntypedVariableKHR with a data type");
            }
            initializer = None;
        }
        let symbol = self.symbol_for(inst.result_id, "spirv_var_");
        let mut props = vec![
            NamedAttribute::new("sym_name", Attribute::String(symbol.clone())),
            NamedAttribute::new("type", Attribute::Type(ty)),
        ];
        // MLIR's initializer names a symbol; a constant (which has none) is kept by
        // value in `initializer_constant` (`CONSTANT_INITIALIZER_ATTR`).
        let mut constant_initializer = None;
        if let Some(&init) = initializer {
            match self.module_values.get(&init) {
                Some(ModuleValue::Global { symbol, .. } | ModuleValue::SpecConstant { symbol, .. }) => {
                    props
                        .push(NamedAttribute::new("initializer", Attribute::SymbolRef(vec![symbol.clone()])));
                }
                Some(ModuleValue::Constant(Constant { value, replicate: false, .. })) => {
                    constant_initializer =
                        Some(NamedAttribute::new(CONSTANT_INITIALIZER_ATTR, value.clone()));
                }
                _ => {
                    return not_supported(
                        inst,
                        "OpVariable initializer that is not a global, a constant or a spec constant",
                    )
                }
            }
        }
        let op = self.ir.create_op("spirv.GlobalVariable", vec![], &[], self.line.clone());
        let mut decorations = self.decoration_attrs(inst.result_id)?;
        decorations.extend(constant_initializer);
        set_attributes(self.ir, op, props, decorations);
        self.ir.append_op(self.module_block, op);
        self.module_values.insert(inst.result_id, ModuleValue::Global { symbol, ty });
        Ok(())
    }

    /// `#spirv.storage_class<...>` of a storage class (of every OpVariable: made once).
    fn storage_class_attr(&mut self, class: u32) -> Option<Attribute> {
        if let Some(attr) = self.storage_classes.get(&class) {
            return Some(attr.clone());
        }
        let attr = enum_attr_of("StorageClass", class)?;
        self.storage_classes.insert(class, attr.clone());
        Some(attr)
    }

    /// `i32` (interned on first use, as each use did before it was kept).
    fn i32_type(&mut self) -> Type {
        match self.i32_type {
            Some(ty) => ty,
            None => {
                let ty = self.ir.types.integer(32, Signedness::Signless);
                self.i32_type = Some(ty);
                ty
            }
        }
    }

    /// The attributes MLIR makes of the decorations of a value (`location = 0 : i32`,
    /// `relaxed_precision`, `built_in = "Position"`, ...), by decoration name in snake case.
    #[inline]
    fn decoration_attrs(&mut self, id: u32) -> Result<Vec<NamedAttribute>> {
        let i32t = self.i32_type();
        // Most values have no decorations: that is answered inline.
        if self.decorated.get(id).is_none() {
            return Ok(Vec::new());
        }
        self.decoration_attrs_of(id, i32t)
    }

    /// [`Self::decoration_attrs`] of an id with decorations.
    fn decoration_attrs_of(&mut self, id: u32, i32t: Type) -> Result<Vec<NamedAttribute>> {
        let Some(decorations) = self.decorations.get(&id) else { return Ok(Vec::new()) };
        let mut attrs = Vec::new();
        for d in decorations {
            if let Some((name, element)) = cache_control(d)? {
                // Cache controls accumulate, one array element per decoration.
                match attrs.iter_mut().find(|a: &&mut NamedAttribute| a.name == name) {
                    Some(NamedAttribute { value: Attribute::Array(items), .. }) => items.push(element),
                    _ => attrs.push(NamedAttribute::new(name, Attribute::Array(vec![element]))),
                }
                continue;
            }
            if let Some(attr) = self.decoration_attr(d, i32t)? {
                // A string decoration given more than once (`UserSemantic`) keeps each
                // value, in an array; any other keeps its last.
                let repeated = attrs.iter_mut().find(|a: &&mut NamedAttribute| a.name == attr.name);
                match (repeated, &attr.value) {
                    (Some(existing), Attribute::String(_)) if attr.name != "built_in" => {
                        match &mut existing.value {
                            Attribute::Array(items) => items.push(attr.value),
                            first => *first = Attribute::Array(vec![first.clone(), attr.value]),
                        }
                    }
                    _ => {
                        attrs.retain(|a: &NamedAttribute| a.name != attr.name);
                        attrs.push(attr);
                    }
                }
            }
        }
        Ok(attrs)
    }

    fn decoration_attr(&self, d: &Decoration, i32t: Type) -> Result<Option<NamedAttribute>> {
        let info = OperandKind::Decoration.info();
        let Some(enumerant) = info.enumerant(d.kind) else {
            return error(d.offset, format!("unknown decoration {}", d.kind));
        };
        let name = decoration_attr_name(enumerant.name);
        // Decorations that shape types or are handled with their instruction.
        if matches!(
            enumerant.name,
            "SpecId" | "ArrayStride" | "Offset" | "MatrixStride" | "Block" | "BufferBlock"
        ) {
            return Ok(None);
        }
        let value = match (enumerant.name, d.params.as_slice()) {
            (_, []) => Attribute::Unit,
            ("BuiltIn", [b]) => match OperandKind::BuiltIn.info().enumerant(*b) {
                Some(e) => {
                    Attribute::String(enum_case_text("BuiltIn", *b).unwrap_or_else(|| e.name.to_string()))
                }
                None => return error(d.offset, format!("unknown BuiltIn {b}")),
            },
            ("FPFastMathMode", [mask]) => enum_attr_of("FPFastMathMode", *mask).ok_or_else(|| {
                DeserializeError { offset: d.offset, message: format!("invalid FPFastMathMode {mask}") }
            })?,
            ("FPRoundingMode", [mode]) => enum_attr_of("FPRoundingMode", *mode).ok_or_else(|| {
                DeserializeError { offset: d.offset, message: format!("invalid FPRoundingMode {mode}") }
            })?,
            ("LinkageAttributes", words) => {
                let (Some((&linkage_type, name_words)), true) = (words.split_last(), words.len() >= 2) else {
                    return error(d.offset, "LinkageAttributes decoration without a name and type");
                };
                let linkage_name =
                    String::from_utf8_lossy(&spirvkit_binary::module::string_bytes(name_words)).into_owned();
                let Some(linkage) = enum_case_text("LinkageType", linkage_type) else {
                    return error(d.offset, format!("invalid linkage type {linkage_type}"));
                };
                Attribute::Dialect {
                    name: "spirv.linkage_attributes".to_string(),
                    body: Some(format!(
                        "linkage_name = {}, linkage_type = <{linkage}>",
                        quoted(&linkage_name)
                    )),
                }
            }
            _ => self.decoration_value(d, enumerant, i32t)?,
        };
        Ok(Some(NamedAttribute::new(name, value)))
    }

    /// A decoration's value by its grammar: none (unit), a literal number (an `i32`), a
    /// literal string or an enumerant (a string: `"NoAlias"` for `FuncParamAttr`), or
    /// the <id> of an integer constant (the constant's value and type, for
    /// OpDecorateId's `MaxByteOffsetId`) or of a global variable (its symbol, for
    /// `CounterBuffer`).
    fn decoration_value(
        &self,
        d: &Decoration,
        enumerant: &spirvkit_grammar::Enumerant,
        i32t: Type,
    ) -> Result<Attribute> {
        let unsupported = || error(d.offset, format!("not supported yet: decoration {}", enumerant.name));
        let [param] = enumerant.parameters else {
            return if enumerant.parameters.is_empty() && d.params.is_empty() {
                Ok(Attribute::Unit)
            } else {
                unsupported()
            };
        };
        if param.kind == OperandKind::LiteralString {
            let text = spirvkit_binary::module::string_bytes(&d.params);
            return Ok(Attribute::String(String::from_utf8_lossy(&text).into_owned()));
        }
        let [v] = d.params.as_slice() else { return unsupported() };
        match param.kind.category() {
            spirvkit_grammar::Category::Literal if param.kind == OperandKind::LiteralInteger => {
                Ok(Attribute::Integer { value: i128::from(*v as i32), ty: i32t })
            }
            spirvkit_grammar::Category::ValueEnum => match param.kind.info().enumerant(*v) {
                Some(e) => Ok(Attribute::String(e.name.to_string())),
                None => error(
                    d.offset,
                    format!(
                        "invalid {} operand {v} of decoration {}",
                        param.kind.info().name,
                        enumerant.name
                    ),
                ),
            },
            spirvkit_grammar::Category::Id => match self.module_values.get(v) {
                Some(ModuleValue::Constant(Constant {
                    value: value @ Attribute::Integer { .. }, ..
                })) => Ok(value.clone()),
                // `CounterBuffer`: the variable holding a buffer's counter (DXC's
                // `-fspv-reflect`), by symbol.
                Some(ModuleValue::Global { symbol, .. }) => Ok(Attribute::SymbolRef(vec![symbol.clone()])),
                _ => error(
                    d.offset,
                    format!(
                        "not supported yet: decoration {} of <id> {v}, which is neither an integer constant nor a global variable",
                        enumerant.name
                    ),
                ),
            },
            _ => unsupported(),
        }
    }

    fn entry_point_or_mode(&mut self, inst: &Inst) -> Result<()> {
        match inst.opcode {
            opcode::OpEntryPoint => {
                let model = word(inst, 1)?;
                let f = word(inst, 2)?;
                let Some(model_text) = enum_case_text("ExecutionModel", model) else {
                    return not_supported(inst, &format!("execution model {model}"));
                };
                let Some(symbol) = self.function_symbols.get(&f).cloned() else {
                    return error(
                        inst.offset,
                        format!("OpEntryPoint refers to <id> {f}, which is not a function"),
                    );
                };
                let mut interface = Vec::new();
                for operand in inst.operands.iter().skip(3) {
                    let id = inst.words.get(operand.offset as usize).copied().unwrap_or(0);
                    match self.module_values.get(&id) {
                        Some(ModuleValue::Global { symbol, .. }) => {
                            interface.push(Attribute::SymbolRef(vec![symbol.clone()]))
                        }
                        _ => {
                            return error(
                                inst.offset,
                                format!("OpEntryPoint interface <id> {id} is not a global variable"),
                            )
                        }
                    }
                }
                let props = vec![
                    NamedAttribute::new("execution_model", dialect("spirv.execution_model", &model_text)),
                    NamedAttribute::new("fn", Attribute::SymbolRef(vec![symbol])),
                    NamedAttribute::new("interface", Attribute::Array(interface)),
                ];
                let op = self.ir.create_op("spirv.EntryPoint", vec![], &[], Location::Unknown);
                self.ir.op_mut(op).properties = props;
                self.ir.append_op(self.module_block, op);
            }
            opcode::OpExecutionMode | opcode::OpExecutionModeId => {
                let f = word(inst, 1)?;
                let mode = word(inst, 2)?;
                let Some(mode_text) = enum_case_text("ExecutionMode", mode) else {
                    return not_supported(inst, &format!("execution mode {mode}"));
                };
                let Some(symbol) = self.function_symbols.get(&f).cloned() else {
                    return error(
                        inst.offset,
                        format!("OpExecutionMode refers to <id> {f}, which is not a function"),
                    );
                };
                let i32t = self.i32_type();
                // OpExecutionModeId gives ids of integer constants where OpExecutionMode
                // has literals; the op holds the values either way.
                let mut values = Vec::new();
                for &w in inst.words.get(3..).unwrap_or(&[]) {
                    let value = if inst.opcode == opcode::OpExecutionModeId {
                        match self.module_values.get(&w) {
                            Some(ModuleValue::Constant(Constant {
                                value: Attribute::Integer { value, .. },
                                ..
                            })) => *value as i32,
                            // `LocalSizeId` of spec constants: by symbol.
                            Some(ModuleValue::SpecConstant { symbol, .. }) => {
                                values.push(Attribute::SymbolRef(vec![symbol.clone()]));
                                continue;
                            }
                            _ => {
                                return not_supported(
                                    inst,
                                    &format!(
                                        "OpExecutionModeId operand <id> {w} that is neither an integer constant nor an OpSpecConstant"
                                    ),
                                )
                            }
                        }
                    } else {
                        w as i32
                    };
                    values.push(Attribute::Integer { value: i128::from(value), ty: i32t });
                }
                let props = vec![
                    NamedAttribute::new("execution_mode", dialect("spirv.execution_mode", &mode_text)),
                    NamedAttribute::new("fn", Attribute::SymbolRef(vec![symbol])),
                    NamedAttribute::new("values", Attribute::Array(values)),
                ];
                let op = self.ir.create_op("spirv.ExecutionMode", vec![], &[], Location::Unknown);
                self.ir.op_mut(op).properties = props;
                self.ir.append_op(self.module_block, op);
            }
            _ => return not_supported(inst, &opcode_name(inst.opcode)),
        }
        Ok(())
    }

    /// The first `OpSource`: the module's source language, version and file (an
    /// `OpString` met before it, as the logical layout wants). Debug information
    /// only: a malformed or unknown one is left out rather than refused.
    fn source(&mut self, inst: &Inst) {
        let (Some(&language), Some(&version)) = (inst.words.get(1), inst.words.get(2)) else { return };
        if self.source.is_some() {
            return;
        }
        // A language the grammar does not know has no name to record: left out, as
        // debug information the IR cannot carry.
        let Some(language) = OperandKind::SourceLanguage.info().enumerant(language) else { return };
        let file = inst.words.get(3).and_then(|id| self.strings.get(id)).cloned();
        self.source = Some(spirvkit_ir::source::ModuleSource {
            language: language.name.to_string(),
            version,
            file,
            text: None,
        });
    }

    /// The module's addressing/memory model and `#spirv.vce<...>`.
    fn finish_module(&mut self) -> Result<()> {
        let Some((addressing, memory)) = self.memory_model else {
            return error(0, "module has no OpMemoryModel");
        };
        let (Some(addressing), Some(memory)) =
            (enum_case_text("AddressingModel", addressing), enum_case_text("MemoryModel", memory))
        else {
            return error(0, "not supported yet: addressing or memory model");
        };
        let version = self.module.header.version;
        let (major, minor) = ((version >> 16) & 0xff, (version >> 8) & 0xff);
        if major != 1 || minor > 6 {
            return error(0, format!("not supported yet: SPIR-V version {major}.{minor}"));
        }
        let vce =
            format!("v{major}.{minor}, [{}], [{}]", self.capabilities.join(", "), self.extensions.join(", "));
        let props = vec![
            NamedAttribute::new("addressing_model", dialect("spirv.addressing_model", &addressing)),
            NamedAttribute::new("memory_model", dialect("spirv.memory_model", &memory)),
            NamedAttribute::new("vce_triple", dialect("spirv.vce", &vce)),
        ];
        self.ir.op_mut(self.module_op).properties = props;
        if let Some(source) = &self.source {
            spirvkit_ir::source::set_module_source(self.ir, self.module_op, source);
        }
        Ok(())
    }
}

// ---- small helpers -------------------------------------------------------------------

/// Word `index` of an instruction (0 is the opcode word).
#[inline]
fn word(inst: &Inst, index: usize) -> Result<u32> {
    match inst.words.get(index) {
        Some(&w) => Ok(w),
        None => missing_word(inst, index),
    }
}

#[cold]
fn missing_word(inst: &Inst, index: usize) -> Result<u32> {
    error(inst.offset, format!("{} is missing word {index}", opcode_name(inst.opcode)))
}

/// The string of parsed operand `index` (empty if absent).
fn string_operand(inst: &Inst, index: usize) -> String {
    inst.operands.get(index).map(|o| text_of(inst.string_bytes(o))).unwrap_or_default()
}

/// A string's bytes as text, invalid UTF-8 replaced (valid text keeps its buffer).
fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn dialect(name: &str, body: &str) -> Attribute {
    Attribute::Dialect { name: name.to_string(), body: Some(body.to_string()) }
}

fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for b in text.bytes() {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:02X}")),
        }
    }
    out.push('"');
    out
}

/// `CacheControlLoadINTEL`/`CacheControlStoreINTEL`: the attribute name and one element
/// (`#spirv.cache_control_load_intel<cache_level = 0, load_cache_control = Uncached>`).
fn cache_control(d: &Decoration) -> Result<Option<(&'static str, Attribute)>> {
    let info = OperandKind::Decoration.info();
    let Some(name) = info.enumerant(d.kind).map(|e| e.name) else { return Ok(None) };
    let (attr_name, field, enum_name) = match name {
        "CacheControlLoadINTEL" => ("cache_control_load_intel", "load_cache_control", "LoadCacheControl"),
        "CacheControlStoreINTEL" => ("cache_control_store_intel", "store_cache_control", "StoreCacheControl"),
        _ => return Ok(None),
    };
    let [level, control] = d.params.as_slice() else {
        return error(d.offset, format!("{name} expects a cache level and a control"));
    };
    let Some(control) = enum_case_text(enum_name, *control) else {
        return error(d.offset, format!("invalid {enum_name} {control}"));
    };
    let body = format!("cache_level = {level}, {field} = {control}");
    Ok(Some((attr_name, dialect(&format!("spirv.{attr_name}"), &body))))
}

/// MLIR's attribute name for a decoration: its name in snake case (`RelaxedPrecision` ->
/// `relaxed_precision`, `FPFastMathMode` -> `fp_fast_math_mode`).
fn decoration_attr_name(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase() || prev.is_ascii_digit() || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The dialect's enum with this C++ name (`StorageClass`).
fn enum_def(enum_name: &str) -> Option<&'static EnumAttrDef> {
    static BY_NAME: std::sync::OnceLock<FxHashMap<&'static str, &'static EnumAttrDef>> =
        std::sync::OnceLock::new();
    let by_name = BY_NAME.get_or_init(|| {
        let mut by_name = FxHashMap::default();
        for def in ENUM_ATTRS.iter() {
            // The first of a name, as a search from the start finds.
            by_name.entry(def.enum_name).or_insert(def);
        }
        by_name
    });
    by_name.get(enum_name).copied()
}

/// MLIR's spelling of an enum value (`Dim2D`, `Inline|Pure`), `None` when the value is not
/// one the dialect knows.
fn enum_case_text(enum_name: &str, value: u32) -> Option<String> {
    enum_text(enum_def(enum_name)?, value)
}

fn enum_text(def: &EnumAttrDef, value: u32) -> Option<String> {
    let value = u64::from(value);
    if !def.bit_enum || value == 0 {
        return def.cases.iter().find(|c| c.value == value).map(|c| c.str.to_string());
    }
    let mut left = value;
    let mut parts = Vec::new();
    for case in def.cases {
        if case.value != 0 && case.value & value == case.value && left & case.value != 0 {
            parts.push(case.str);
            left &= !case.value;
        }
    }
    (left == 0).then(|| parts.join("|"))
}

/// `#spirv.<mnemonic><text>` for an enum value.
fn enum_attr_of(enum_name: &str, value: u32) -> Option<Attribute> {
    let def = enum_def(enum_name)?;
    let text = enum_text(def, value)?;
    Some(dialect(&format!("spirv.{}", def.mnemonic?), &text))
}

/// Sets an op's attributes as the parser does: the op's ODS attributes are properties,
/// the others discardable; both sorted by name.
#[inline]
fn set_attributes(ir: &mut Ir, op: OpId, mut props: Vec<NamedAttribute>, extra: Vec<NamedAttribute>) {
    if extra.is_empty() {
        if props.is_empty() {
            return;
        }
        // Most ops: no decorations.
        if props.len() > 1 {
            props.sort_by(|a, b| a.name.cmp(&b.name));
        }
        ir.op_mut(op).properties = props;
        return;
    }
    set_decorated_attributes(ir, op, props, extra);
}

/// [`set_attributes`] with decorations.
fn set_decorated_attributes(
    ir: &mut Ir,
    op: OpId,
    mut props: Vec<NamedAttribute>,
    extra: Vec<NamedAttribute>,
) {
    let def_attrs = ir.op(op).name.def().map_or(&[][..], |d| d.attributes);
    let (inherent, mut discardable): (Vec<_>, Vec<_>) =
        extra.into_iter().partition(|a| def_attrs.iter().any(|d| d.name == a.name));
    props.extend(inherent);
    props.sort_by(|a, b| a.name.cmp(&b.name));
    discardable.sort_by(|a, b| a.name.cmp(&b.name));
    let o = ir.op_mut(op);
    o.properties = props;
    o.attributes = discardable.into();
}

#[cfg(test)]
mod tests;
