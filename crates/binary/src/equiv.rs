//! Semantic equivalence of two SPIR-V modules up to id renaming: the check behind
//! `cargo xtask spv-roundtrip` (a binary against its deserialize -> serialize round trip).
//!
//! # The rule
//!
//! Ids are compared by a *canonical form*, never by number:
//!
//! - **types and constants** (every module-level instruction with a result id other than
//!   variables, imports, strings and decoration groups, plus `OpUndef` anywhere) are their
//!   defining instruction with referenced ids replaced by their canonical forms, plus the
//!   set of their decorations. Structurally equal declarations are one form (duplicates
//!   collapse). A reference back into a type being defined (recursive structs through
//!   `OpTypeForwardPointer`) becomes a back-reference by depth, so cycles terminate and
//!   the form does not depend on where the walk started. `OpConstantNull` is the
//!   explicit zero constant (`OpConstant 0`, `OpConstantFalse`, `OpConstantComposite`s
//!   of those for vectors, matrices, arrays and structs up to a size), since
//!   deserializers may materialize it that way. An array's constant length is its value
//!   (the integer type spelling it is not compared: MLIR keeps only the count).
//! - **global variables** are matched pairwise by (type, storage class, initializer), then
//!   decorations, then `OpName`, then order; a pair shares one form, and its decoration
//!   sets are compared.
//! - **functions** are matched by entry point, then by a unique `OpName`, then by type and
//!   order; a pair shares one form.
//! - **function bodies** are compared as multisets of instructions: (opcode, result type,
//!   operands, decorations of the result) with ids in canonical form and function-local
//!   ids as the opcode and type of their definition (`%<OpLoad>`). Instruction order and
//!   data flow between locals are not compared.
//!
//! Ignored everywhere: `OpName`, `OpMemberName`, `OpLine`, `OpNoLine`, `OpSource*`,
//! `OpString` (except as an operand's text), `OpModuleProcessed`, `OpNop`,
//! `OpTypeForwardPointer`, the header's generator and bound, and `OpExtInst`s of
//! `NonSemantic.*` sets.
//!
//! Two categories of differences are **not** semantic and are reported apart
//! ([`Category::is_semantic`]):
//!
//! - [`Category::ControlFlowScaffolding`]: a structurizer may rebuild control flow. Per
//!   function, differing numbers of `OpLabel`, `OpBranch`, `OpPhi`, `OpSelectionMerge`
//!   and `OpLoopMerge` (which are left out of the multisets), and instructions present
//!   *only more often after the round trip* that can only steer control flow:
//!   `OpBranchConditional`, `OpSwitch`, `OpUnreachable`, and guard variables: a
//!   `Function` variable of `bool`, `OpLoad`s of `bool` from a local variable, and
//!   `OpStore`s of a `bool` constant to a local variable. Anything *missing* after the
//!   round trip is semantic.
//! - [`Category::UnusedDeclarations`]: a type or constant that nothing outside
//!   names/decorations uses (transitively), present on one side only.

use crate::module::{Inst, Module};
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_grammar::{self as grammar, opcode as op, OperandKind};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What kind of thing differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    Header,
    Capabilities,
    Extensions,
    ExtInstImports,
    MemoryModel,
    EntryPoints,
    ExecutionModes,
    Decorations,
    TypesAndConstants,
    GlobalVariables,
    Functions,
    Instructions,
    /// Other module-level instructions (anything not covered above).
    ModuleInstructions,
    /// Rebuilt control flow (see the module documentation); not semantic.
    ControlFlowScaffolding,
    /// Declarations nothing uses, present on one side only; not semantic.
    UnusedDeclarations,
}

impl Category {
    /// Whether a difference of this category changes what the module means.
    pub fn is_semantic(self) -> bool {
        !matches!(self, Category::ControlFlowScaffolding | Category::UnusedDeclarations)
    }

    pub fn name(self) -> &'static str {
        match self {
            Category::Header => "header",
            Category::Capabilities => "capabilities",
            Category::Extensions => "extensions",
            Category::ExtInstImports => "ext-inst-imports",
            Category::MemoryModel => "memory-model",
            Category::EntryPoints => "entry-points",
            Category::ExecutionModes => "execution-modes",
            Category::Decorations => "decorations",
            Category::TypesAndConstants => "types-and-constants",
            Category::GlobalVariables => "global-variables",
            Category::Functions => "functions",
            Category::Instructions => "instructions",
            Category::ModuleInstructions => "module-instructions",
            Category::ControlFlowScaffolding => "control-flow-scaffolding",
            Category::UnusedDeclarations => "unused-declarations",
        }
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One difference between the original and the round-tripped module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub category: Category,
    pub message: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.category, self.message)
    }
}

/// Every difference found, semantic ones first.
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    pub differences: Vec<Difference>,
}

impl Comparison {
    pub fn semantic(&self) -> impl Iterator<Item = &Difference> {
        self.differences.iter().filter(|d| d.category.is_semantic())
    }

    pub fn non_semantic(&self) -> impl Iterator<Item = &Difference> {
        self.differences.iter().filter(|d| !d.category.is_semantic())
    }

    pub fn is_equivalent(&self) -> bool {
        self.semantic().next().is_none()
    }
}

/// Whether `roundtripped` means what `original` means. `Ok` carries the non-semantic
/// differences (control-flow scaffolding, dropped unused declarations); `Err` every
/// difference, semantic ones first.
pub fn check_equivalent(
    original: &Module,
    roundtripped: &Module,
) -> Result<Vec<Difference>, Vec<Difference>> {
    let comparison = compare(original, roundtripped);
    if comparison.is_equivalent() {
        Ok(comparison.differences)
    } else {
        Err(comparison.differences)
    }
}

/// Compares two modules (see the module documentation for the rule).
pub fn compare(original: &Module, roundtripped: &Module) -> Comparison {
    let mut ctx = Ctx::default();
    let sides = [Side::new(original, &mut ctx), Side::new(roundtripped, &mut ctx)];
    let mut differences = Vec::new();
    Comparer { ctx, sides, differences: &mut differences, function_pairs: Vec::new() }.run();
    differences.sort_by_key(|d| !d.category.is_semantic());
    Comparison { differences }
}

// ---------------------------------------------------------------------------
// Canonical forms

/// One token of a canonical form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Tok {
    /// The opcode of the instruction a node stands for (a node's first token).
    Op(u16),
    /// A literal word (numbers, bit masks, unknown enumerants).
    Lit(u32),
    /// A known enumerant, by name.
    Enum(&'static str),
    /// An interned string.
    Str(u32),
    /// An interned node: a type, constant or decoration.
    Node(u32),
    /// A reference to the enclosing node this many levels up (recursive types).
    Back(u32),
    /// A global variable: a matched pair's index, or an unmatched one's.
    Global(u32),
    /// A function: a matched pair's index, or an unmatched one's.
    Function(u32),
    /// A function-local id, by the opcode of its definition and its type's node
    /// (`u32::MAX`: none).
    Local(u16, u32),
    /// An id with no definition.
    Undefined,
}

/// Unmatched globals/functions are numbered from here (original) and from
/// `UNMATCHED_ROUNDTRIP` (round trip), so they never equal anything across sides.
const UNMATCHED_ORIGINAL: u32 = 1 << 30;
const UNMATCHED_ROUNDTRIP: u32 = 1 << 31;

/// `OpConstantNull` of a composite is spelled out as zeros only up to this nesting and
/// this many elements.
const MAX_ZERO_DEPTH: u32 = 8;
const MAX_ZERO_ELEMENTS: usize = 4096;

/// Canonicalization gives up on one id after this many definitions visited
/// (pathological recursive types), and uses the opcode instead.
const CANON_BUDGET: usize = 200_000;

/// Interned nodes and strings, shared by both sides so equal forms are equal numbers.
#[derive(Default)]
struct Ctx {
    nodes: Vec<Vec<Tok>>,
    node_index: FxHashMap<Vec<Tok>, u32>,
    strings: Vec<String>,
    string_index: FxHashMap<String, u32>,
    /// Display names of matched/unmatched globals and functions, by their token number.
    global_names: FxHashMap<u32, String>,
    function_names: FxHashMap<u32, String>,
}

impl Ctx {
    fn node(&mut self, tokens: Vec<Tok>) -> u32 {
        if let Some(&n) = self.node_index.get(&tokens) {
            return n;
        }
        let n = self.nodes.len() as u32;
        self.nodes.push(tokens.clone());
        self.node_index.insert(tokens, n);
        n
    }

    fn string(&mut self, text: String) -> u32 {
        if let Some(&n) = self.string_index.get(&text) {
            return n;
        }
        let n = self.strings.len() as u32;
        self.strings.push(text.clone());
        self.string_index.insert(text, n);
        n
    }

    fn tokens(&self, node: u32) -> &[Tok] {
        self.nodes.get(node as usize).map_or(&[], Vec::as_slice)
    }

    fn opcode_of(&self, tok: Tok) -> Option<u16> {
        match tok {
            Tok::Node(n) => match self.tokens(n).first() {
                Some(Tok::Op(o)) => Some(*o),
                _ => None,
            },
            _ => None,
        }
    }

    fn is_bool_type(&self, tok: Tok) -> bool {
        self.opcode_of(tok) == Some(op::OpTypeBool)
    }

    /// A pointer to `bool` in the `Function` storage class.
    fn is_local_bool_pointer(&self, tok: Tok) -> bool {
        let Tok::Node(n) = tok else { return false };
        matches!(self.tokens(n), [Tok::Op(op::OpTypePointer), Tok::Enum("Function"), pointee, ..] if self.is_bool_type(*pointee))
    }

    fn is_bool_constant(&self, tok: Tok) -> bool {
        matches!(self.opcode_of(tok), Some(op::OpConstantTrue | op::OpConstantFalse))
    }

    /// `OpConstantNull` as the explicit zero constant (`OpConstant 0`, `OpConstantFalse`,
    /// `OpConstantComposite` of zeros, for composites of those up to a size); other tokens
    /// unchanged.
    fn normalize_null(&mut self, tokens: Vec<Tok>) -> Vec<Tok> {
        let [Tok::Op(op::OpConstantNull), ty] = tokens.as_slice() else { return tokens };
        let mut budget = MAX_ZERO_ELEMENTS;
        match self.zero_of(*ty, 0, &mut budget) {
            Some(Tok::Node(n)) => self.tokens(n).to_vec(),
            _ => tokens,
        }
    }

    /// The explicit zero of a type, as an interned constant.
    fn zero_of(&mut self, ty: Tok, depth: u32, budget: &mut usize) -> Option<Tok> {
        if depth > MAX_ZERO_DEPTH || *budget == 0 {
            return None;
        }
        *budget -= 1;
        if let Some(zero) = self.scalar_zero(ty) {
            return Some(Tok::Node(self.node(zero)));
        }
        let Tok::Node(n) = ty else { return None };
        let tokens = self.tokens(n).to_vec();
        let (members, count): (Vec<Tok>, usize) = match tokens.as_slice() {
            [Tok::Op(op::OpTypeVector | op::OpTypeMatrix), element, Tok::Lit(count), ..] => {
                (vec![*element], *count as usize)
            }
            [Tok::Op(op::OpTypeArray), element, Tok::Lit(count), ..] => (vec![*element], *count as usize),
            [Tok::Op(op::OpTypeStruct), rest @ ..] => {
                // Members, then the struct's decorations (nodes headed by OpDecorate*).
                let members: Vec<Tok> =
                    rest.iter().copied().take_while(|t| !self.is_decoration_node(*t)).collect();
                (members, 1)
            }
            _ => return None,
        };
        if count > *budget {
            return None;
        }
        let mut composite = vec![Tok::Op(op::OpConstantComposite), ty];
        for member in members {
            let zero = self.zero_of(member, depth + 1, budget)?;
            composite.extend(std::iter::repeat_n(zero, if count == 1 { 1 } else { count }));
        }
        *budget = budget.saturating_sub(count);
        Some(Tok::Node(self.node(composite)))
    }

    /// A node's tokens without its own decorations, and those decorations' node numbers.
    fn split_decorations(&self, tok: Tok) -> (Vec<Tok>, Vec<u32>) {
        let Tok::Node(n) = tok else { return (vec![tok], Vec::new()) };
        let mut bare = Vec::new();
        let mut decorations = Vec::new();
        for &t in self.tokens(n) {
            match t {
                Tok::Node(d) if self.is_decoration_node(t) => decorations.push(d),
                _ => bare.push(t),
            }
        }
        (bare, decorations)
    }

    /// A node rendered without its own decorations.
    fn render_bare(&self, tok: Tok) -> String {
        let (bare, _) = self.split_decorations(tok);
        let mut out = String::new();
        let Some((head, rest)) = bare.split_first() else { return out };
        self.render_into(*head, 2, &mut out);
        out.push('(');
        for (i, t) in rest.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.render_into(*t, 2, &mut out);
        }
        out.push(')');
        clip(&out, 400)
    }

    /// Every node in `roots` and nested in them.
    fn nested(&self, roots: impl Iterator<Item = Tok>) -> FxHashSet<Tok> {
        let mut seen = FxHashSet::default();
        let mut work: Vec<Tok> = roots.collect();
        while let Some(tok) = work.pop() {
            let Tok::Node(n) = tok else { continue };
            if seen.insert(tok) {
                work.extend(self.tokens(n).iter().copied().filter(|t| matches!(t, Tok::Node(_))));
            }
        }
        seen
    }

    fn is_decoration_node(&self, tok: Tok) -> bool {
        matches!(
            self.opcode_of(tok),
            Some(
                op::OpDecorate
                    | op::OpDecorateId
                    | op::OpDecorateString
                    | op::OpMemberDecorate
                    | op::OpMemberDecorateString
            )
        )
    }

    fn scalar_zero(&self, ty: Tok) -> Option<Vec<Tok>> {
        let Tok::Node(n) = ty else { return None };
        match self.tokens(n) {
            [Tok::Op(op::OpTypeBool), ..] => Some(vec![Tok::Op(op::OpConstantFalse), ty]),
            [Tok::Op(op::OpTypeInt | op::OpTypeFloat), Tok::Lit(width), ..] if *width > 0 && *width <= 64 => {
                let mut zero = vec![Tok::Op(op::OpConstant), ty];
                zero.extend(std::iter::repeat_n(Tok::Lit(0), width.div_ceil(32) as usize));
                Some(zero)
            }
            _ => None,
        }
    }

    /// Readable text of a token, nested nodes to a few levels.
    fn render(&self, tok: Tok) -> String {
        let mut out = String::new();
        self.render_into(tok, 3, &mut out);
        clip(&out, 400)
    }

    fn render_into(&self, tok: Tok, depth: usize, out: &mut String) {
        match tok {
            Tok::Op(o) => out.push_str(opcode_name(o)),
            Tok::Lit(v) => {
                let _ = write!(out, "{v}");
            }
            Tok::Enum(name) => out.push_str(name),
            Tok::Str(s) => {
                let _ = write!(out, "{:?}", self.strings.get(s as usize).map_or("", String::as_str));
            }
            Tok::Back(d) => {
                let _ = write!(out, "^{d}");
            }
            Tok::Global(g) => {
                let _ = write!(out, "@{}", self.global_names.get(&g).map_or("?", String::as_str));
            }
            Tok::Function(f) => {
                let _ = write!(out, "@{}", self.function_names.get(&f).map_or("?", String::as_str));
            }
            Tok::Local(o, _) => {
                let _ = write!(out, "%<{}>", opcode_name(o));
            }
            Tok::Undefined => out.push_str("%<undefined>"),
            Tok::Node(n) => {
                let tokens = self.tokens(n);
                if depth == 0 {
                    match tokens.first() {
                        Some(&Tok::Op(o)) => {
                            let _ = write!(out, "{}(…)", opcode_name(o));
                        }
                        _ => out.push('…'),
                    }
                    return;
                }
                let Some((head, rest)) = tokens.split_first() else { return };
                self.render_into(*head, depth - 1, out);
                out.push('(');
                for (i, t) in rest.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.render_into(*t, depth - 1, out);
                }
                out.push(')');
            }
        }
    }

    fn render_key(&self, key: &[Tok]) -> String {
        let mut out = String::new();
        for (i, t) in key.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            self.render_into(*t, 2, &mut out);
        }
        clip(&out, 400)
    }
}

fn opcode_name(opcode: u16) -> &'static str {
    grammar::instruction(opcode).map_or("Op?", |i| i.name)
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}

// ---------------------------------------------------------------------------
// One module, analysed

struct Function {
    id: u32,
    /// Instruction indices of `OpFunction` and `OpFunctionEnd` (or the last one).
    start: usize,
    end: usize,
}

struct EntryPoint {
    model: u32,
    name: String,
    function: u32,
    interface: Vec<u32>,
}

#[derive(Default)]
struct Scaffolding {
    labels: usize,
    branches: usize,
    phis: usize,
    merges: usize,
}

struct Side<'m> {
    module: &'m Module,
    /// Instruction index of each id's definition.
    defs: FxHashMap<u32, usize>,
    names: FxHashMap<u32, String>,
    /// Decoration nodes of each target id, sorted and deduplicated.
    decorations: FxHashMap<u32, Vec<u32>>,
    /// Module-level types, constants and `OpUndef`s (anywhere).
    structural: FxHashSet<u32>,
    /// Module-level variables, in order.
    globals: Vec<u32>,
    functions: Vec<Function>,
    entry_points: Vec<EntryPoint>,
    /// `OpExtInstImport` and `OpString` ids, as their interned text.
    strings: FxHashMap<u32, u32>,
    /// Ids of `OpExtInstImport`s of `NonSemantic.*` sets.
    non_semantic_imports: FxHashSet<u32>,
    capabilities: Vec<u32>,
    extensions: Vec<String>,
    /// `OpExtInstImport`s: id and name.
    imports: Vec<(u32, String)>,
    memory_model: Option<(u32, u32)>,
    /// Module-level instructions this checker has no dedicated rule for.
    other_module_level: Vec<usize>,
    /// Canonical forms computed so far.
    memo: FxHashMap<u32, Tok>,
    /// Canonical forms of globals and functions once matched.
    matched: FxHashMap<u32, Tok>,
}

fn is_id_kind(kind: OperandKind) -> bool {
    matches!(kind, OperandKind::IdRef | OperandKind::IdScope | OperandKind::IdMemorySemantics)
}

/// The operands of `inst` other than its result type and result id.
fn plain_operands<'m>(inst: &Inst<'m>) -> impl Iterator<Item = &'m crate::module::ParsedOperand> + 'm {
    inst.operands.iter().filter(|o| !matches!(o.kind, OperandKind::IdResult | OperandKind::IdResultType))
}

/// Tokens of a literal or enumerant operand.
fn literal_tokens(
    ctx: &mut Ctx,
    inst: &Inst<'_>,
    operand: &crate::module::ParsedOperand,
    out: &mut Vec<Tok>,
) {
    let words = inst.operand_words(operand);
    if operand.kind == OperandKind::LiteralString {
        let text = String::from_utf8_lossy(&inst.string_bytes(operand)).into_owned();
        out.push(Tok::Str(ctx.string(text)));
        return;
    }
    let info = operand.kind.info();
    if info.category == grammar::Category::ValueEnum {
        if let Some(e) = words.first().and_then(|&w| info.enumerant(w)) {
            out.push(Tok::Enum(e.name));
            return;
        }
    }
    out.extend(words.iter().map(|&w| Tok::Lit(w)));
}

fn string_operand(inst: &Inst<'_>, index: usize) -> Option<String> {
    let operand = plain_operands(inst).nth(index)?;
    (operand.kind == OperandKind::LiteralString)
        .then(|| String::from_utf8_lossy(&inst.string_bytes(operand)).into_owned())
}

fn word_operand(inst: &Inst<'_>, index: usize) -> Option<u32> {
    let operand = plain_operands(inst).nth(index)?;
    inst.operand_words(operand).first().copied()
}

impl<'m> Side<'m> {
    fn new(module: &'m Module, ctx: &mut Ctx) -> Side<'m> {
        let mut side = Side {
            module,
            defs: FxHashMap::default(),
            names: FxHashMap::default(),
            decorations: FxHashMap::default(),
            structural: FxHashSet::default(),
            globals: Vec::new(),
            functions: Vec::new(),
            entry_points: Vec::new(),
            strings: FxHashMap::default(),
            non_semantic_imports: FxHashSet::default(),
            capabilities: Vec::new(),
            extensions: Vec::new(),
            imports: Vec::new(),
            memory_model: None,
            other_module_level: Vec::new(),
            memo: FxHashMap::default(),
            matched: FxHashMap::default(),
        };
        side.scan(ctx);
        side
    }

    fn scan(&mut self, ctx: &mut Ctx) {
        let mut current: Option<Function> = None;
        // Decorations are read after every definition is known.
        let mut decoration_insts = Vec::new();
        let count = self.module.instruction_count();
        for (index, inst) in self.module.instructions().enumerate() {
            if inst.result_id != 0 {
                self.defs.insert(inst.result_id, index);
            }
            if let Some(function) = current.as_mut() {
                match inst.opcode {
                    op::OpFunctionEnd => {
                        function.end = index;
                        self.functions.extend(current.take());
                    }
                    op::OpUndef => {
                        self.structural.insert(inst.result_id);
                    }
                    _ => {}
                }
                continue;
            }
            match inst.opcode {
                op::OpFunction => {
                    current =
                        Some(Function { id: inst.result_id, start: index, end: count.saturating_sub(1) })
                }
                op::OpCapability => self.capabilities.extend(word_operand(&inst, 0)),
                op::OpExtension => self.extensions.extend(string_operand(&inst, 0)),
                op::OpExtInstImport => {
                    let name = string_operand(&inst, 0).unwrap_or_default();
                    if name.starts_with("NonSemantic.") {
                        self.non_semantic_imports.insert(inst.result_id);
                    }
                    self.strings.insert(inst.result_id, ctx.string(name.clone()));
                    self.imports.push((inst.result_id, name));
                }
                op::OpString => {
                    let text = string_operand(&inst, 0).unwrap_or_default();
                    self.strings.insert(inst.result_id, ctx.string(text));
                }
                op::OpMemoryModel => {
                    self.memory_model = word_operand(&inst, 0).zip(word_operand(&inst, 1));
                }
                op::OpEntryPoint => {
                    let ids: Vec<u32> = plain_operands(&inst)
                        .filter(|o| is_id_kind(o.kind))
                        .filter_map(|o| inst.operand_words(o).first().copied())
                        .collect();
                    if let (Some(model), Some((&function, interface))) =
                        (word_operand(&inst, 0), ids.split_first())
                    {
                        self.entry_points.push(EntryPoint {
                            model,
                            name: string_operand(&inst, 2).unwrap_or_default(),
                            function,
                            interface: interface.to_vec(),
                        });
                    }
                }
                op::OpName => {
                    if let (Some(target), Some(name)) = (word_operand(&inst, 0), string_operand(&inst, 1)) {
                        self.names.insert(target, name);
                    }
                }
                op::OpDecorate
                | op::OpDecorateId
                | op::OpDecorateString
                | op::OpMemberDecorate
                | op::OpMemberDecorateString
                | op::OpGroupDecorate
                | op::OpGroupMemberDecorate => decoration_insts.push(index),
                op::OpVariable => self.globals.push(inst.result_id),
                op::OpExecutionMode
                | op::OpExecutionModeId
                | op::OpMemberName
                | op::OpSource
                | op::OpSourceContinued
                | op::OpSourceExtension
                | op::OpModuleProcessed
                | op::OpLine
                | op::OpNoLine
                | op::OpNop
                | op::OpTypeForwardPointer
                | op::OpDecorationGroup => {}
                op::OpExtInst if self.is_non_semantic(&inst) => {}
                _ if inst.result_id != 0 => {
                    self.structural.insert(inst.result_id);
                }
                _ => self.other_module_level.push(index),
            }
        }
        // A function without OpFunctionEnd still counts.
        self.functions.extend(current.take());
        self.scan_decorations(ctx, &decoration_insts);
    }

    fn is_non_semantic(&self, inst: &Inst<'_>) -> bool {
        inst.opcode == op::OpExtInst
            && word_operand(inst, 0).is_some_and(|set| self.non_semantic_imports.contains(&set))
    }

    fn inst(&self, index: usize) -> Option<Inst<'m>> {
        self.module.instruction(index)
    }

    fn def(&self, id: u32) -> Option<Inst<'m>> {
        self.defs.get(&id).and_then(|&i| self.inst(i))
    }

    /// Decoration nodes per target, with decoration groups expanded.
    fn scan_decorations(&mut self, ctx: &mut Ctx, indices: &[usize]) {
        let mut by_target: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        // (decoration group, its targets with the member for OpGroupMemberDecorate)
        type GroupTargets = Vec<(u32, Option<u32>)>;
        let mut groups: Vec<(u32, GroupTargets)> = Vec::new();
        for &index in indices {
            let Some(inst) = self.inst(index) else { continue };
            let operands: Vec<_> = plain_operands(&inst).collect();
            let Some((target_operand, rest)) = operands.split_first() else { continue };
            let Some(&target) = inst.operand_words(target_operand).first() else { continue };
            match inst.opcode {
                op::OpGroupDecorate | op::OpGroupMemberDecorate => {
                    let words: Vec<u32> =
                        rest.iter().filter_map(|o| inst.operand_words(o).first().copied()).collect();
                    let targets = if inst.opcode == op::OpGroupDecorate {
                        words.iter().map(|&t| (t, None)).collect()
                    } else {
                        words.chunks_exact(2).map(|c| (c[0], Some(c[1]))).collect()
                    };
                    groups.push((target, targets));
                }
                _ => {
                    let mut tokens = vec![Tok::Op(inst.opcode)];
                    for operand in rest {
                        if is_id_kind(operand.kind) {
                            let id = inst.operand_words(operand).first().copied().unwrap_or(0);
                            tokens.push(self.shallow(id));
                        } else {
                            literal_tokens(ctx, &inst, operand, &mut tokens);
                        }
                    }
                    by_target.entry(target).or_default().push(ctx.node(tokens));
                }
            }
        }
        // Groups: the group id's own decorations, applied to each target.
        for (group, targets) in groups {
            let group_decorations = by_target.get(&group).cloned().unwrap_or_default();
            for (target, member) in targets {
                for &d in &group_decorations {
                    let node = match member {
                        None => d,
                        Some(member) => {
                            // OpDecorate(...) as OpMemberDecorate(member, ...).
                            let mut tokens = vec![Tok::Op(op::OpMemberDecorate), Tok::Lit(member)];
                            tokens.extend(ctx.tokens(d).iter().skip(1).copied());
                            ctx.node(tokens)
                        }
                    };
                    by_target.entry(target).or_default().push(node);
                }
            }
        }
        for (target, mut list) in by_target {
            if self
                .defs
                .get(&target)
                .and_then(|&i| self.inst(i))
                .is_some_and(|i| i.opcode == op::OpDecorationGroup)
            {
                continue;
            }
            list.sort_unstable();
            list.dedup();
            self.decorations.insert(target, list);
        }
    }

    /// A token for an id that does not walk into its definition (decoration operands,
    /// non-structural ids inside types): its definition's opcode only.
    fn shallow(&self, id: u32) -> Tok {
        match self.def(id) {
            Some(inst) => Tok::Local(inst.opcode, u32::MAX),
            None => Tok::Undefined,
        }
    }

    fn decoration_tokens(&self, id: u32) -> impl Iterator<Item = Tok> + '_ {
        self.decorations.get(&id).into_iter().flatten().map(|&d| Tok::Node(d))
    }

    /// The canonical token of any id referenced from a function body or a global.
    fn operand_token(&mut self, ctx: &mut Ctx, id: u32) -> Tok {
        if let Some(&t) = self.matched.get(&id) {
            return t;
        }
        if let Some(&s) = self.strings.get(&id) {
            return Tok::Str(s);
        }
        if self.structural.contains(&id) {
            return self.canon(ctx, id);
        }
        // A local: its definition's opcode and type.
        match self.def(id) {
            Some(inst) if inst.result_type != 0 && self.structural.contains(&inst.result_type) => {
                match self.canon(ctx, inst.result_type) {
                    Tok::Node(ty) => Tok::Local(inst.opcode, ty),
                    _ => self.shallow(id),
                }
            }
            _ => self.shallow(id),
        }
    }

    /// The canonical form of a type, constant or `OpUndef`, walked with an explicit stack.
    fn canon(&mut self, ctx: &mut Ctx, root: u32) -> Tok {
        if let Some(&t) = self.memo.get(&root) {
            return t;
        }
        struct Frame {
            id: u32,
            /// Tokens still to resolve (ids as `Pending`), in order.
            items: Vec<Item>,
            next: usize,
            tokens: Vec<Tok>,
            /// Lowest stack depth a back-reference in this subtree points to.
            low: usize,
        }
        #[derive(Clone, Copy)]
        enum Item {
            Tok(Tok),
            Id(u32),
        }
        let items_of = |side: &Side<'m>, ctx: &mut Ctx, id: u32| -> Vec<Item> {
            let Some(inst) = side.def(id) else { return vec![Item::Tok(Tok::Undefined)] };
            let mut items = vec![Item::Tok(Tok::Op(inst.opcode))];
            if inst.result_type != 0 {
                items.push(Item::Id(inst.result_type));
            }
            for (index, operand) in plain_operands(&inst).enumerate() {
                if is_id_kind(operand.kind) {
                    let Some(&w) = inst.operand_words(operand).first() else { continue };
                    // An array's length is its value: the integer type that spells it is not
                    // part of the array type (MLIR's array type keeps only the count).
                    let length = (inst.opcode == op::OpTypeArray && index == 1)
                        .then(|| side.def(w))
                        .flatten()
                        .filter(|c| c.opcode == op::OpConstant);
                    match length {
                        Some(constant) => items.extend(
                            plain_operands(&constant)
                                .flat_map(|o| constant.operand_words(o))
                                .map(|&w| Item::Tok(Tok::Lit(w))),
                        ),
                        None => items.push(Item::Id(w)),
                    }
                } else {
                    let mut tokens = Vec::new();
                    literal_tokens(ctx, &inst, operand, &mut tokens);
                    items.extend(tokens.into_iter().map(Item::Tok));
                }
            }
            items.extend(side.decoration_tokens(id).map(Item::Tok));
            items
        };
        let mut budget = CANON_BUDGET;
        let mut stack: Vec<Frame> = Vec::new();
        let first = items_of(self, ctx, root);
        stack.push(Frame { id: root, items: first, next: 0, tokens: Vec::new(), low: 0 });
        loop {
            let Some(depth) = stack.len().checked_sub(1) else { return Tok::Undefined };
            let Some(frame) = stack.last_mut() else { return Tok::Undefined };
            if let Some(item) = frame.items.get(frame.next).copied() {
                frame.next += 1;
                let child = match item {
                    Item::Tok(t) => t,
                    Item::Id(id) => {
                        if let Some(&t) = self.memo.get(&id) {
                            t
                        } else if let Some(p) = stack.iter().position(|f| f.id == id) {
                            if let Some(frame) = stack.last_mut() {
                                frame.low = frame.low.min(p);
                            }
                            Tok::Back((depth - p) as u32)
                        } else if self.structural.contains(&id) && budget > 0 {
                            budget -= 1;
                            let items = items_of(self, ctx, id);
                            stack.push(Frame { id, items, next: 0, tokens: Vec::new(), low: depth + 1 });
                            continue;
                        } else if self.structural.contains(&id) {
                            self.shallow(id)
                        } else if let Some(&s) = self.strings.get(&id) {
                            Tok::Str(s)
                        } else {
                            self.shallow(id)
                        }
                    }
                };
                if let Some(frame) = stack.last_mut() {
                    frame.tokens.push(child);
                }
                continue;
            }
            let Some(frame) = stack.pop() else { return Tok::Undefined };
            let tokens = ctx.normalize_null(frame.tokens);
            let tok = Tok::Node(ctx.node(tokens));
            if frame.low >= depth {
                self.memo.insert(frame.id, tok);
            }
            match stack.last_mut() {
                Some(parent) => {
                    parent.low = parent.low.min(frame.low);
                    parent.tokens.push(tok);
                }
                None => return tok,
            }
        }
    }

    /// Structural ids that something other than names and decorations uses, directly or
    /// through other types and constants.
    fn used_structural(&self) -> FxHashSet<u32> {
        let mut used = FxHashSet::default();
        let mut work: Vec<u32> = Vec::new();
        let push_ids = |inst: &Inst<'_>, work: &mut Vec<u32>| {
            if inst.result_type != 0 {
                work.push(inst.result_type);
            }
            for o in plain_operands(inst) {
                if is_id_kind(o.kind) {
                    work.extend(inst.operand_words(o).first().copied());
                }
            }
        };
        for inst in self.module.instructions() {
            let skip = matches!(
                inst.opcode,
                op::OpName
                    | op::OpMemberName
                    | op::OpDecorate
                    | op::OpDecorateId
                    | op::OpDecorateString
                    | op::OpMemberDecorate
                    | op::OpMemberDecorateString
                    | op::OpGroupDecorate
                    | op::OpGroupMemberDecorate
                    | op::OpLine
            ) || (inst.result_id != 0
                && self.structural.contains(&inst.result_id)
                && inst.opcode != op::OpUndef)
                || self.is_non_semantic(&inst);
            if !skip {
                push_ids(&inst, &mut work);
            }
        }
        while let Some(id) = work.pop() {
            if !self.structural.contains(&id) || !used.insert(id) {
                continue;
            }
            if let Some(inst) = self.def(id) {
                let before = work.len();
                push_ids(&inst, &mut work);
                // A constant array length is part of the type's form, not a use.
                if inst.opcode == op::OpTypeArray {
                    if let Some(&length) = work.get(before + 1) {
                        if self.def(length).is_some_and(|c| c.opcode == op::OpConstant) {
                            work.remove(before + 1);
                        }
                    }
                }
            }
        }
        used
    }

    fn display_name(&self, id: u32, fallback: &str) -> String {
        self.names.get(&id).filter(|n| !n.is_empty()).cloned().unwrap_or_else(|| format!("{fallback}%{id}"))
    }
}

// ---------------------------------------------------------------------------
// The comparison

struct Comparer<'m, 'd> {
    ctx: Ctx,
    sides: [Side<'m>; 2],
    differences: &'d mut Vec<Difference>,
    /// Matched functions: indices into each side's `functions`, in token order.
    function_pairs: Vec<(usize, usize)>,
}

const SIDE_NAMES: [&str; 2] = ["the original", "the round trip"];

/// Per-function cap on listed instruction differences (the rest are summarized).
const MAX_LISTED: usize = 12;

impl Comparer<'_, '_> {
    fn report(&mut self, category: Category, message: String) {
        self.differences.push(Difference { category, message });
    }

    fn run(mut self) {
        self.compare_header();
        self.compare_sets();
        self.compare_types_and_constants();
        self.match_globals();
        self.match_functions();
        self.compare_entry_points();
        self.compare_execution_modes();
        self.compare_functions();
        self.compare_other_module_level();
    }

    fn compare_header(&mut self) {
        let [a, b] = [self.sides[0].module.header.version, self.sides[1].module.header.version];
        if a != b {
            let show = |w: u32| grammar::Version::from_word(w).map_or(format!("{w:#x}"), |v| v.to_string());
            self.report(Category::Header, format!("version {} became {}", show(a), show(b)));
        }
        let [a, b] = [self.sides[0].memory_model, self.sides[1].memory_model];
        if a != b {
            let show = |m: Option<(u32, u32)>| match m {
                Some((addressing, memory)) => format!(
                    "{} {}",
                    enumerant_name(OperandKind::AddressingModel, addressing),
                    enumerant_name(OperandKind::MemoryModel, memory)
                ),
                None => "none".to_string(),
            };
            self.report(Category::MemoryModel, format!("memory model {} became {}", show(a), show(b)));
        }
    }

    fn compare_sets(&mut self) {
        let caps = |s: &Side<'_>| -> Vec<String> {
            s.capabilities.iter().map(|&c| enumerant_name(OperandKind::Capability, c)).collect()
        };
        let (a, b) = (caps(&self.sides[0]), caps(&self.sides[1]));
        self.set_difference(Category::Capabilities, "capability", a, b);
        let (a, b) = (self.sides[0].extensions.clone(), self.sides[1].extensions.clone());
        self.set_difference(Category::Extensions, "extension", a, b);
        // An import no OpExtInst uses may be dropped (or added).
        let imports = |s: &Side<'_>, used: bool| -> Vec<String> {
            let users: FxHashSet<u32> = s
                .module
                .instructions()
                .filter(|i| i.opcode == op::OpExtInst)
                .filter_map(|i| word_operand(&i, 0))
                .collect();
            s.imports
                .iter()
                .filter(|(id, _)| users.contains(id) == used)
                .map(|(_, name)| name.clone())
                .collect()
        };
        let (a, b) = (imports(&self.sides[0], true), imports(&self.sides[1], true));
        let (unused_a, unused_b) = (imports(&self.sides[0], false), imports(&self.sides[1], false));
        let (all_a, all_b) = ([a.clone(), unused_a.clone()].concat(), [b.clone(), unused_b.clone()].concat());
        let used_only = |x: Vec<String>, y: &[String]| x.into_iter().filter(|n| !y.contains(n)).collect();
        let unused_only = |x: Vec<String>, y: &[String]| x.into_iter().filter(|n| !y.contains(n)).collect();
        self.set_difference(
            Category::ExtInstImports,
            "extended instruction set import",
            used_only(a, &all_b),
            Vec::new(),
        );
        self.set_difference(
            Category::ExtInstImports,
            "extended instruction set import",
            Vec::new(),
            used_only(b, &all_a),
        );
        let (ua, ub): (Vec<String>, Vec<String>) =
            (unused_only(unused_a, &all_b), unused_only(unused_b, &all_a));
        for name in ua {
            self.report(
                Category::UnusedDeclarations,
                format!("extended instruction set import {name} only in the original (unused)"),
            );
        }
        for name in ub {
            self.report(
                Category::UnusedDeclarations,
                format!("extended instruction set import {name} only in the round trip (unused)"),
            );
        }
    }

    /// Reports the elements on only one side, compared as sets.
    fn set_difference(&mut self, category: Category, what: &str, a: Vec<String>, b: Vec<String>) {
        let a: std::collections::BTreeSet<String> = a.into_iter().collect();
        let b: std::collections::BTreeSet<String> = b.into_iter().collect();
        for x in a.difference(&b) {
            self.report(category, format!("{what} {x} only in the original"));
        }
        for x in b.difference(&a) {
            self.report(category, format!("{what} {x} only in the round trip"));
        }
    }

    fn compare_types_and_constants(&mut self) {
        let mut forms: [BTreeMap<Tok, (u32, bool)>; 2] = [BTreeMap::new(), BTreeMap::new()];
        for (s, forms) in forms.iter_mut().enumerate() {
            let used = self.sides[s].used_structural();
            let mut ids: Vec<u32> = self.sides[s].structural.iter().copied().collect();
            ids.sort_unstable();
            for id in ids {
                let tok = self.sides[s].canon(&mut self.ctx, id);
                let entry = forms.entry(tok).or_insert((id, false));
                entry.1 |= used.contains(&id);
            }
        }
        // A form nested in the other side's forms exists there too (an `OpConstantNull`
        // spelled out has no ids for its parts).
        let nested = [self.ctx.nested(forms[0].keys().copied()), self.ctx.nested(forms[1].keys().copied())];
        // Semantic differences: (form, id) per side.
        let mut semantic: [Vec<(Tok, u32)>; 2] = [Vec::new(), Vec::new()];
        for s in 0..2 {
            let other = 1 - s;
            let only: Vec<(Tok, u32, bool)> = forms[s]
                .iter()
                .filter(|(tok, _)| !nested[other].contains(tok))
                .map(|(&tok, &(id, used))| (tok, id, used))
                .collect();
            for (tok, id, used) in only {
                let scaffolding = s == 1
                    && (self.ctx.is_bool_type(tok)
                        || self.ctx.is_local_bool_pointer(tok)
                        || self.ctx.is_bool_constant(tok));
                if used && !scaffolding {
                    semantic[s].push((tok, id));
                    continue;
                }
                let (category, note) = if scaffolding {
                    (Category::ControlFlowScaffolding, "")
                } else {
                    (Category::UnusedDeclarations, " (unused)")
                };
                let message =
                    format!("{} {} only in {}{note}", self.what(s, id), self.ctx.render(tok), SIDE_NAMES[s]);
                self.report(category, message);
            }
        }
        self.report_form_differences(semantic);
    }

    fn what(&self, s: usize, id: u32) -> &'static str {
        match self.sides[s].def(id) {
            Some(inst) if inst.opcode == op::OpUndef => "undef",
            Some(inst) if inst.result_type != 0 => "constant",
            _ => "type",
        }
    }

    /// Reports types and constants present on one side only, root causes first: a form
    /// containing another differing form of its side is only counted; a root on one side
    /// equal to one on the other but for its own decorations is reported as that
    /// decoration difference.
    fn report_form_differences(&mut self, only: [Vec<(Tok, u32)>; 2]) {
        let mut roots: [Vec<(Tok, u32)>; 2] = [Vec::new(), Vec::new()];
        let mut derived = [0usize; 2];
        for (s, list) in only.iter().enumerate() {
            let differing: FxHashSet<Tok> = list.iter().map(|(t, _)| *t).collect();
            for &(tok, id) in list {
                let Tok::Node(n) = tok else { continue };
                let inner = self.ctx.nested(self.ctx.tokens(n).iter().copied());
                if inner.iter().any(|t| differing.contains(t)) {
                    derived[s] += 1;
                } else {
                    roots[s].push((tok, id));
                }
            }
        }
        let [roots_a, roots_b] = roots;
        let mut paired_b = vec![false; roots_b.len()];
        for &(ta, id) in &roots_a {
            let (bare_a, decorations_a) = self.ctx.split_decorations(ta);
            let partner = roots_b
                .iter()
                .enumerate()
                .position(|(j, &(tb, _))| !paired_b[j] && self.ctx.split_decorations(tb).0 == bare_a);
            match partner {
                Some(j) => {
                    paired_b[j] = true;
                    let decorations_b = self.ctx.split_decorations(roots_b[j].0).1;
                    let what = format!("{} {}", self.what(0, id), self.ctx.render_bare(ta));
                    let message = self.decoration_difference(&what, &decorations_a, &decorations_b);
                    self.report(Category::TypesAndConstants, message);
                }
                None => {
                    let message =
                        format!("{} {} only in the original", self.what(0, id), self.ctx.render(ta));
                    self.report(Category::TypesAndConstants, message);
                }
            }
        }
        for (j, &(tb, id)) in roots_b.iter().enumerate() {
            if !paired_b[j] {
                let message = format!("{} {} only in the round trip", self.what(1, id), self.ctx.render(tb));
                self.report(Category::TypesAndConstants, message);
            }
        }
        for (s, &count) in derived.iter().enumerate() {
            if count > 0 {
                let message =
                    format!("{count} more types and constants containing these only in {}", SIDE_NAMES[s]);
                self.report(Category::TypesAndConstants, message);
            }
        }
    }

    /// Pairs the globals of both sides and gives each pair (and each unmatched one) its token.
    fn match_globals(&mut self) {
        struct GlobalInfo {
            id: u32,
            base: Tok,
            decorations: Vec<u32>,
            name: Option<String>,
        }
        let mut infos: [Vec<GlobalInfo>; 2] = [Vec::new(), Vec::new()];
        for (s, infos) in infos.iter_mut().enumerate() {
            let globals = self.sides[s].globals.clone();
            for id in globals {
                let Some(inst) = self.sides[s].def(id) else { continue };
                let mut tokens = vec![Tok::Op(op::OpVariable)];
                tokens.push(self.sides[s].operand_token(&mut self.ctx, inst.result_type));
                tokens.extend(word_operand(&inst, 0).map(|sc| enum_tok(OperandKind::StorageClass, sc)));
                if let Some(init) = word_operand(&inst, 1) {
                    tokens.push(self.sides[s].operand_token(&mut self.ctx, init));
                }
                let base = Tok::Node(self.ctx.node(tokens));
                infos.push(GlobalInfo {
                    id,
                    base,
                    decorations: self.sides[s].decorations.get(&id).cloned().unwrap_or_default(),
                    name: self.sides[s].names.get(&id).cloned(),
                });
            }
        }
        let [originals, roundtrips] = &infos;
        let pairs = match_in_passes(
            originals.len(),
            roundtrips.len(),
            &[
                &|a, b| {
                    originals[a].base == roundtrips[b].base
                        && originals[a].decorations == roundtrips[b].decorations
                },
                &|a, b| {
                    originals[a].base == roundtrips[b].base
                        && originals[a].name.is_some()
                        && originals[a].name == roundtrips[b].name
                },
                &|a, b| originals[a].base == roundtrips[b].base,
            ],
        );
        let mut matched_b = vec![false; roundtrips.len()];
        let mut matched_a = vec![false; originals.len()];
        for (k, &(a, b)) in pairs.iter().enumerate() {
            matched_a[a] = true;
            matched_b[b] = true;
            let (ga, gb) = (&originals[a], &roundtrips[b]);
            let tok = Tok::Global(k as u32);
            let name = self.sides[0].display_name(ga.id, "global");
            self.ctx.global_names.insert(k as u32, name.clone());
            self.sides[0].matched.insert(ga.id, tok);
            self.sides[1].matched.insert(gb.id, tok);
            if ga.decorations != gb.decorations {
                let message =
                    self.decoration_difference(&format!("global @{name}"), &ga.decorations, &gb.decorations);
                self.report(Category::Decorations, message);
            }
        }
        for (s, list) in infos.iter().enumerate() {
            let matched = if s == 0 { &matched_a } else { &matched_b };
            let offset = if s == 0 { UNMATCHED_ORIGINAL } else { UNMATCHED_ROUNDTRIP };
            for (i, g) in list.iter().enumerate() {
                if matched[i] {
                    continue;
                }
                let key = offset + i as u32;
                let name = self.sides[s].display_name(g.id, "global");
                self.ctx.global_names.insert(key, name.clone());
                self.sides[s].matched.insert(g.id, Tok::Global(key));
                let text = self.ctx.render(g.base);
                self.differences.push(Difference {
                    category: Category::GlobalVariables,
                    message: format!("global @{name} {text} only in {}", SIDE_NAMES[s]),
                });
            }
        }
    }

    fn decoration_difference(&self, what: &str, a: &[u32], b: &[u32]) -> String {
        let only = |x: &[u32], y: &[u32]| -> Vec<String> {
            x.iter().filter(|d| !y.contains(d)).map(|&d| self.ctx.render_key(self.ctx.tokens(d))).collect()
        };
        let (removed, added) = (only(a, b), only(b, a));
        let mut message = format!("{what}: decorations differ");
        if !removed.is_empty() {
            let _ = write!(message, "; only in the original: {}", removed.join(", "));
        }
        if !added.is_empty() {
            let _ = write!(message, "; only in the round trip: {}", added.join(", "));
        }
        message
    }

    fn match_functions(&mut self) {
        struct FunctionInfo {
            id: u32,
            entry: Option<(u32, String)>,
            name: Option<String>,
            signature: Tok,
        }
        let mut infos: [Vec<FunctionInfo>; 2] = [Vec::new(), Vec::new()];
        for (s, infos) in infos.iter_mut().enumerate() {
            let mut unique_names: FxHashMap<String, usize> = FxHashMap::default();
            for f in &self.sides[s].functions {
                if let Some(name) = self.sides[s].names.get(&f.id) {
                    *unique_names.entry(name.clone()).or_default() += 1;
                }
            }
            let count = self.sides[s].functions.len();
            for i in 0..count {
                let (id, start) = (self.sides[s].functions[i].id, self.sides[s].functions[i].start);
                let entry = self.sides[s]
                    .entry_points
                    .iter()
                    .filter(|e| e.function == id)
                    .map(|e| (e.model, e.name.clone()))
                    .min();
                let name = self.sides[s].names.get(&id).filter(|n| unique_names.get(*n) == Some(&1)).cloned();
                let signature = match self.sides[s].inst(start) {
                    Some(inst) => {
                        let mut tokens = vec![Tok::Op(op::OpFunction)];
                        tokens.push(self.sides[s].operand_token(&mut self.ctx, inst.result_type));
                        tokens.extend(word_operand(&inst, 0).map(Tok::Lit));
                        if let Some(ty) = word_operand(&inst, 1) {
                            tokens.push(self.sides[s].operand_token(&mut self.ctx, ty));
                        }
                        tokens.extend(self.sides[s].decoration_tokens(id));
                        Tok::Node(self.ctx.node(tokens))
                    }
                    None => Tok::Undefined,
                };
                infos.push(FunctionInfo { id, entry, name, signature });
            }
        }
        let [originals, roundtrips] = &infos;
        let pairs = match_in_passes(
            originals.len(),
            roundtrips.len(),
            &[
                &|a, b| originals[a].entry.is_some() && originals[a].entry == roundtrips[b].entry,
                &|a, b| {
                    originals[a].entry.is_none()
                        && roundtrips[b].entry.is_none()
                        && originals[a].name.is_some()
                        && originals[a].name == roundtrips[b].name
                },
                &|a, b| {
                    originals[a].entry.is_none()
                        && roundtrips[b].entry.is_none()
                        && originals[a].signature == roundtrips[b].signature
                },
            ],
        );
        let mut matched = [vec![false; originals.len()], vec![false; roundtrips.len()]];
        let mut function_pairs = Vec::new();
        for (k, &(a, b)) in pairs.iter().enumerate() {
            matched[0][a] = true;
            matched[1][b] = true;
            let (fa, fb) = (&originals[a], &roundtrips[b]);
            let tok = Tok::Function(k as u32);
            let name = match &fa.entry {
                Some((_, entry)) => entry.clone(),
                None => self.sides[0].display_name(fa.id, "function"),
            };
            self.ctx.function_names.insert(k as u32, name);
            self.sides[0].matched.insert(fa.id, tok);
            self.sides[1].matched.insert(fb.id, tok);
            function_pairs.push((a, b, fa.signature, fb.signature));
        }
        for (s, list) in infos.iter().enumerate() {
            let offset = if s == 0 { UNMATCHED_ORIGINAL } else { UNMATCHED_ROUNDTRIP };
            for (i, f) in list.iter().enumerate() {
                if matched[s][i] {
                    continue;
                }
                let key = offset + i as u32;
                let name = self.sides[s].display_name(f.id, "function");
                self.ctx.function_names.insert(key, name.clone());
                self.sides[s].matched.insert(f.id, Tok::Function(key));
                self.differences.push(Difference {
                    category: Category::Functions,
                    message: format!("function @{name} only in {}", SIDE_NAMES[s]),
                });
            }
        }
        // Signatures are compared once every function has its token (calls in types are
        // impossible, but decorations and names are read through the tokens).
        for (k, &(_, _, sa, sb)) in function_pairs.iter().enumerate() {
            if sa != sb {
                let name = self.ctx.function_names.get(&(k as u32)).cloned().unwrap_or_default();
                let message = format!(
                    "function @{name}: signature {} became {}",
                    self.ctx.render(sa),
                    self.ctx.render(sb)
                );
                self.report(Category::Functions, message);
            }
        }
        self.function_pairs = function_pairs.iter().map(|&(a, b, _, _)| (a, b)).collect();
    }

    fn compare_entry_points(&mut self) {
        // (execution model, name) -> (function, interface)
        type EntryMap = BTreeMap<(u32, String), (Tok, Vec<Tok>)>;
        let mut maps: [EntryMap; 2] = [BTreeMap::new(), BTreeMap::new()];
        for (s, map) in maps.iter_mut().enumerate() {
            let entries: Vec<(u32, String, u32, Vec<u32>)> = self.sides[s]
                .entry_points
                .iter()
                .map(|e| (e.model, e.name.clone(), e.function, e.interface.clone()))
                .collect();
            for (model, name, function, interface) in entries {
                let function = self.sides[s].operand_token(&mut self.ctx, function);
                let mut interface: Vec<Tok> =
                    interface.iter().map(|&id| self.sides[s].operand_token(&mut self.ctx, id)).collect();
                interface.sort_unstable();
                interface.dedup();
                map.insert((model, name), (function, interface));
            }
        }
        let describe = |(model, name): &(u32, String)| {
            format!("entry point {} \"{name}\"", enumerant_name(OperandKind::ExecutionModel, *model))
        };
        for s in 0..2 {
            let only: Vec<String> =
                maps[s].keys().filter(|k| !maps[1 - s].contains_key(*k)).map(describe).collect();
            for what in only {
                self.report(Category::EntryPoints, format!("{what} only in {}", SIDE_NAMES[s]));
            }
        }
        for (key, (fa, ia)) in &maps[0] {
            let Some((fb, ib)) = maps[1].get(key) else { continue };
            if fa != fb {
                let message = format!(
                    "{}: function {} became {}",
                    describe(key),
                    self.ctx.render(*fa),
                    self.ctx.render(*fb)
                );
                self.report(Category::EntryPoints, message);
            }
            if ia != ib {
                let only = |x: &[Tok], y: &[Tok]| -> Vec<String> {
                    x.iter().filter(|t| !y.contains(t)).map(|&t| self.ctx.render(t)).collect()
                };
                let (removed, added) = (only(ia, ib), only(ib, ia));
                let message = format!(
                    "{}: interface differs; only in the original: [{}]; only in the round trip: [{}]",
                    describe(key),
                    removed.join(", "),
                    added.join(", ")
                );
                self.report(Category::EntryPoints, message);
            }
        }
    }

    fn compare_execution_modes(&mut self) {
        let mut sets: [BTreeMap<Vec<Tok>, usize>; 2] = [BTreeMap::new(), BTreeMap::new()];
        for (s, set) in sets.iter_mut().enumerate() {
            let module = self.sides[s].module;
            for inst in module.instructions() {
                if !matches!(inst.opcode, op::OpExecutionMode | op::OpExecutionModeId) {
                    continue;
                }
                let key = self.instruction_key(s, &inst, false);
                *set.entry(key).or_default() += 1;
            }
        }
        self.multiset_difference(Category::ExecutionModes, "execution mode", &sets);
    }

    /// Reports keys whose presence differs between two sets (counts are ignored).
    fn multiset_difference(&mut self, category: Category, what: &str, sets: &[BTreeMap<Vec<Tok>, usize>; 2]) {
        for s in 0..2 {
            let only: Vec<String> = sets[s]
                .keys()
                .filter(|k| !sets[1 - s].contains_key(*k))
                .map(|k| self.ctx.render_key(k))
                .collect();
            for text in only {
                self.report(category, format!("{what} `{text}` only in {}", SIDE_NAMES[s]));
            }
        }
    }

    /// (opcode, result type, operands, decorations of the result) in canonical form.
    fn instruction_key(&mut self, s: usize, inst: &Inst<'_>, with_decorations: bool) -> Vec<Tok> {
        let side = &mut self.sides[s];
        let mut key = vec![Tok::Op(inst.opcode)];
        if inst.result_type != 0 {
            key.push(side.operand_token(&mut self.ctx, inst.result_type));
        }
        for operand in plain_operands(inst) {
            if is_id_kind(operand.kind) {
                let id = inst.operand_words(operand).first().copied().unwrap_or(0);
                key.push(side.operand_token(&mut self.ctx, id));
            } else {
                literal_tokens(&mut self.ctx, inst, operand, &mut key);
            }
        }
        if with_decorations && inst.result_id != 0 {
            key.extend(side.decoration_tokens(inst.result_id));
        }
        key
    }

    fn compare_functions(&mut self) {
        let pairs = std::mem::take(&mut self.function_pairs);
        for (k, &(a, b)) in pairs.iter().enumerate() {
            let name = self.ctx.function_names.get(&(k as u32)).cloned().unwrap_or_default();
            let (ka, sa) = self.function_multiset(0, a);
            let (kb, sb) = self.function_multiset(1, b);
            self.compare_bodies(&name, &ka, &kb);
            if (sa.labels, sa.branches, sa.phis, sa.merges) != (sb.labels, sb.branches, sb.phis, sb.merges) {
                let message = format!(
                    "function @{name}: {} blocks, {} OpBranch, {} OpPhi, {} merges became {} blocks, {} OpBranch, {} OpPhi, {} merges",
                    sa.labels, sa.branches, sa.phis, sa.merges, sb.labels, sb.branches, sb.phis, sb.merges
                );
                self.report(Category::ControlFlowScaffolding, message);
            }
        }
    }

    fn function_multiset(&mut self, s: usize, index: usize) -> (BTreeMap<Vec<Tok>, usize>, Scaffolding) {
        let mut keys = BTreeMap::new();
        let mut scaffolding = Scaffolding::default();
        let Some(f) = self.sides[s].functions.get(index) else { return (keys, scaffolding) };
        let (start, end) = (f.start, f.end);
        for i in start + 1..=end {
            let Some(inst) = self.sides[s].inst(i) else { break };
            match inst.opcode {
                op::OpFunctionEnd | op::OpLine | op::OpNoLine | op::OpNop | op::OpUndef => continue,
                op::OpLabel => scaffolding.labels += 1,
                op::OpBranch => scaffolding.branches += 1,
                op::OpPhi => scaffolding.phis += 1,
                op::OpSelectionMerge | op::OpLoopMerge => scaffolding.merges += 1,
                _ if self.sides[s].is_non_semantic(&inst) => continue,
                _ => {
                    let key = self.instruction_key(s, &inst, true);
                    *keys.entry(key).or_default() += 1;
                }
            }
        }
        (keys, scaffolding)
    }

    /// Whether an instruction only found (more often) after the round trip can be a
    /// structurizer's control-flow scaffolding.
    fn is_scaffolding(&self, key: &[Tok]) -> bool {
        let ctx = &self.ctx;
        match key {
            [Tok::Op(op::OpBranchConditional | op::OpSwitch | op::OpUnreachable), ..] => true,
            [Tok::Op(op::OpVariable), ty, Tok::Enum("Function"), ..] => ctx.is_local_bool_pointer(*ty),
            [Tok::Op(op::OpLoad), ty, Tok::Local(op::OpVariable, _), ..] => ctx.is_bool_type(*ty),
            [Tok::Op(op::OpStore), Tok::Local(op::OpVariable, _), value, ..] => ctx.is_bool_constant(*value),
            _ => false,
        }
    }

    fn compare_bodies(&mut self, name: &str, a: &BTreeMap<Vec<Tok>, usize>, b: &BTreeMap<Vec<Tok>, usize>) {
        let mut semantic = Vec::new();
        let mut scaffolding = Vec::new();
        for key in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
            let (ca, cb) = (a.get(key).copied().unwrap_or(0), b.get(key).copied().unwrap_or(0));
            if ca == cb {
                continue;
            }
            let line =
                format!("`{}`: {ca} in the original, {cb} after the round trip", self.ctx.render_key(key));
            if cb > ca && self.is_scaffolding(key) {
                scaffolding.push(line);
            } else {
                semantic.push(line);
            }
        }
        for (category, lines) in
            [(Category::Instructions, semantic), (Category::ControlFlowScaffolding, scaffolding)]
        {
            let total = lines.len();
            for line in lines.into_iter().take(MAX_LISTED) {
                self.report(category, format!("function @{name}: {line}"));
            }
            if total > MAX_LISTED {
                self.report(category, format!("function @{name}: … and {} more", total - MAX_LISTED));
            }
        }
    }

    fn compare_other_module_level(&mut self) {
        let mut sets: [BTreeMap<Vec<Tok>, usize>; 2] = [BTreeMap::new(), BTreeMap::new()];
        for (s, set) in sets.iter_mut().enumerate() {
            let indices = self.sides[s].other_module_level.clone();
            for index in indices {
                let Some(inst) = self.sides[s].inst(index) else { continue };
                let key = self.instruction_key(s, &inst, false);
                *set.entry(key).or_default() += 1;
            }
        }
        self.multiset_difference(Category::ModuleInstructions, "module-level instruction", &sets);
    }
}

/// Greedy matching in passes: each pass pairs every still-unmatched left item, in order,
/// with the first still-unmatched right item the pass's predicate accepts.
fn match_in_passes(
    left: usize,
    right: usize,
    passes: &[&dyn Fn(usize, usize) -> bool],
) -> Vec<(usize, usize)> {
    let mut taken_left = vec![false; left];
    let mut taken_right = vec![false; right];
    let mut pairs = Vec::new();
    for pass in passes {
        for (a, taken) in taken_left.iter_mut().enumerate() {
            if *taken {
                continue;
            }
            if let Some(b) = (0..right).find(|&b| !taken_right[b] && pass(a, b)) {
                *taken = true;
                taken_right[b] = true;
                pairs.push((a, b));
            }
        }
    }
    pairs
}

fn enum_tok(kind: OperandKind, value: u32) -> Tok {
    kind.info().enumerant(value).map_or(Tok::Lit(value), |e| Tok::Enum(e.name))
}

fn enumerant_name(kind: OperandKind, value: u32) -> String {
    kind.info().enumerant(value).map_or_else(|| value.to_string(), |e| e.name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{assemble, read_words, AsmOptions, Endian};

    fn module(text: &str) -> Module {
        let words = assemble(text, &AsmOptions::default()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        read_words(words, Endian::Little).expect("reads")
    }

    /// Ids are numbered by first mention, so the names block decides the numbering.
    const NAMES: &str =
        "OpName %main \"main\"\nOpName %helper \"helper\"\nOpName %color \"color\"\nOpName %ubo \"ubo\"\n";
    const NAMES_REVERSED: &str =
        "OpName %ubo \"ubo\"\nOpName %color \"color\"\nOpName %helper \"helper\"\nOpName %main \"main\"\n";

    fn shader(names: &str, body: &str) -> String {
        format!(
            "OpCapability Shader\n\
             %glsl = OpExtInstImport \"GLSL.std.450\"\n\
             OpMemoryModel Logical GLSL450\n\
             OpEntryPoint Fragment %main \"main\" %color\n\
             OpExecutionMode %main OriginUpperLeft\n\
             {names}\
             OpDecorate %color Location 0\n\
             OpDecorate %Block Block\n\
             OpMemberDecorate %Block 0 Offset 0\n\
             OpDecorate %ubo DescriptorSet 0\n\
             OpDecorate %ubo Binding 1\n\
             %void = OpTypeVoid\n\
             %fnty = OpTypeFunction %void\n\
             %float = OpTypeFloat 32\n\
             %v4float = OpTypeVector %float 4\n\
             %ptr_out = OpTypePointer Output %v4float\n\
             %color = OpVariable %ptr_out Output\n\
             %Block = OpTypeStruct %v4float\n\
             %ptr_ubo = OpTypePointer Uniform %Block\n\
             %ubo = OpVariable %ptr_ubo Uniform\n\
             %int = OpTypeInt 32 1\n\
             %int_0 = OpConstant %int 0\n\
             %ptr_uv4 = OpTypePointer Uniform %v4float\n\
             %float_2 = OpConstant %float 2\n\
             %ffty = OpTypeFunction %float %float\n\
             %bool = OpTypeBool\n\
             %zero = OpConstantNull %float\n\
             {body}"
        )
    }

    const HELPER: &str = "%helper = OpFunction %float None %ffty\n\
         %x = OpFunctionParameter %float\n\
         %hl = OpLabel\n\
         %sum = OpFAdd %float %x %float_2\n\
         %root = OpExtInst %float %glsl Sqrt %sum\n\
         OpReturnValue %root\n\
         OpFunctionEnd\n";

    const MAIN: &str = "%main = OpFunction %void None %fnty\n\
         %entry = OpLabel\n\
         %p = OpAccessChain %ptr_uv4 %ubo %int_0\n\
         %v = OpLoad %v4float %p\n\
         %c = OpCompositeExtract %float %v 0\n\
         %h = OpFunctionCall %float %helper %c\n\
         %gt = OpFOrdGreaterThan %bool %h %zero\n\
         OpSelectionMerge %merge None\n\
         OpBranchConditional %gt %then %merge\n\
         %then = OpLabel\n\
         OpStore %color %v\n\
         OpBranch %merge\n\
         %merge = OpLabel\n\
         OpReturn\n\
         OpFunctionEnd\n";

    fn base() -> String {
        shader(NAMES, &format!("{HELPER}{MAIN}"))
    }

    fn semantic(original: &str, roundtrip: &str) -> Vec<Difference> {
        compare(&module(original), &module(roundtrip)).semantic().cloned().collect()
    }

    #[test]
    fn a_module_equals_itself() {
        let m = module(&base());
        assert_eq!(check_equivalent(&m, &m), Ok(Vec::new()));
    }

    #[test]
    fn renumbered_and_reordered_modules_are_equivalent() {
        let a = module(&base());
        // Other id numbers, and the functions in the other order.
        let text = shader(NAMES_REVERSED, &format!("{MAIN}{HELPER}"));
        let b = module(&text);
        assert_ne!(a.words(), b.words(), "the test must renumber");
        assert_eq!(check_equivalent(&a, &b), Ok(Vec::new()));
        assert_eq!(check_equivalent(&b, &a), Ok(Vec::new()));
    }

    #[test]
    fn a_changed_decoration_is_reported() {
        let changed = base().replace("OpDecorate %ubo Binding 1", "OpDecorate %ubo Binding 2");
        let d = semantic(&base(), &changed);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].category, Category::Decorations);
        assert!(d[0].message.contains("global @ubo"), "{}", d[0].message);
        assert_eq!(
            d[0].message,
            "global @ubo: decorations differ; only in the original: OpDecorate Binding 1; \
             only in the round trip: OpDecorate Binding 2"
        );
        // A decoration on a type changes the type.
        let changed =
            base().replace("OpMemberDecorate %Block 0 Offset 0", "OpMemberDecorate %Block 0 Offset 16");
        let d = semantic(&base(), &changed);
        assert!(
            d.iter().any(|d| d.category == Category::TypesAndConstants
                && d.message.ends_with("only in the round trip: OpMemberDecorate 0 Offset 16")),
            "{d:#?}"
        );
        // Reported once, at the root: the pointer to the struct is only counted.
        assert_eq!(d[0].message, "type OpTypeStruct(OpTypeVector(OpTypeFloat(32), 4)): decorations differ; only in the original: OpMemberDecorate 0 Offset 0; only in the round trip: OpMemberDecorate 0 Offset 16");
        assert_eq!(d[1].message, "1 more types and constants containing these only in the original");
        assert_eq!(d[2].message, "1 more types and constants containing these only in the round trip");
        // So does one on an instruction's result.
        let changed = base().replace(
            "OpDecorate %color Location 0\n",
            "OpDecorate %color Location 0\nOpDecorate %sum NoContraction\n",
        );
        let d = semantic(&base(), &changed);
        assert!(
            d.iter().any(|d| d.category == Category::Instructions
                && d.message.contains("OpFAdd")
                && d.message.contains("0 in the original, 1 after")),
            "{d:#?}"
        );
    }

    #[test]
    fn a_changed_constant_is_reported() {
        let changed = base().replace("%float_2 = OpConstant %float 2", "%float_2 = OpConstant %float 3");
        let d = semantic(&base(), &changed);
        assert!(
            d.iter()
                .any(|d| d.category == Category::TypesAndConstants
                    && d.message.contains("only in the original")),
            "{d:#?}"
        );
        assert!(
            d.iter().any(|d| d.category == Category::Instructions
                && d.message.starts_with("function @helper: `OpFAdd")),
            "{d:#?}"
        );
    }

    #[test]
    fn a_changed_instruction_is_reported() {
        let changed = base().replace("%sum = OpFAdd", "%sum = OpFSub");
        let d = semantic(&base(), &changed);
        // The instruction and its user (locals are named by their definition's opcode).
        assert_eq!(d.len(), 4, "{d:#?}");
        assert!(d
            .iter()
            .all(|d| d.category == Category::Instructions && d.message.starts_with("function @helper")));
        assert!(d
            .iter()
            .any(|d| d.message.contains("`OpFAdd") && d.message.contains("1 in the original, 0 after")));
        assert!(d
            .iter()
            .any(|d| d.message.contains("`OpFSub") && d.message.contains("0 in the original, 1 after")));
        assert!(d.iter().any(|d| d.message.contains("31 %<OpFSub>`")));
        // Operands count: a swapped operand is a different instruction.
        let changed =
            base().replace("%sum = OpFAdd %float %x %float_2", "%sum = OpFAdd %float %float_2 %float_2");
        assert_eq!(semantic(&base(), &changed).len(), 2, "{:#?}", semantic(&base(), &changed));
    }

    #[test]
    fn module_level_differences_are_reported() {
        let changed = base().replace("OpCapability Shader\n", "OpCapability Shader\nOpCapability Float64\n");
        let d = semantic(&base(), &changed);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].message, "capability Float64 only in the round trip");
        let changed =
            base().replace("OpExecutionMode %main OriginUpperLeft", "OpExecutionMode %main OriginLowerLeft");
        let d = semantic(&base(), &changed);
        assert_eq!(d.len(), 2, "{d:#?}");
        assert!(d.iter().all(|d| d.category == Category::ExecutionModes));
        let changed = base()
            .replace("OpEntryPoint Fragment %main \"main\" %color", "OpEntryPoint Fragment %main \"main\"");
        let d = semantic(&base(), &changed);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert!(
            d[0].message.contains("interface differs; only in the original: [@color]"),
            "{}",
            d[0].message
        );
    }

    #[test]
    fn null_constants_equal_explicit_zeros_and_duplicates_collapse() {
        let explicit = base().replace(
            "%zero = OpConstantNull %float",
            "%zero = OpConstant %float 0\n%zero2 = OpConstant %float 0",
        );
        assert_eq!(check_equivalent(&module(&base()), &module(&explicit)), Ok(Vec::new()));
    }

    #[test]
    fn composite_nulls_equal_explicit_zeros() {
        let add =
            |extra: &str| base().replace("%bool = OpTypeBool\n", &format!("%bool = OpTypeBool\n{extra}"));
        let types =
            "%int_3 = OpConstant %int 3\n%arr = OpTypeArray %v4float %int_3\n%S = OpTypeStruct %arr %int\n\
                     %pS = OpTypePointer Private %S\n";
        let null = add(&format!("{types}%n = OpConstantNull %S\n%g = OpVariable %pS Private %n\n"));
        let explicit = add(&format!(
            "{types}%f0 = OpConstant %float 0\n%v0 = OpConstantComposite %v4float %f0 %f0 %f0 %f0\n\
             %a0 = OpConstantComposite %arr %v0 %v0 %v0\n%n = OpConstantComposite %S %a0 %int_0\n\
             %g = OpVariable %pS Private %n\n"
        ));
        assert_eq!(check_equivalent(&module(&null), &module(&explicit)), Ok(Vec::new()));
        let one = explicit.replace("%a0 %int_0", "%a0 %int_3");
        assert!(check_equivalent(&module(&null), &module(&one)).is_err());
    }

    #[test]
    fn decoration_groups_expand_to_their_targets() {
        let grouped = base().replace(
            "OpDecorate %ubo DescriptorSet 0\nOpDecorate %ubo Binding 1\n",
            "OpDecorate %grp DescriptorSet 0\nOpDecorate %grp Binding 1\n%grp = OpDecorationGroup\nOpGroupDecorate %grp %ubo\n",
        );
        assert_ne!(grouped, base());
        assert_eq!(check_equivalent(&module(&base()), &module(&grouped)), Ok(Vec::new()));
    }

    #[test]
    fn array_lengths_compare_by_value() {
        let add =
            |extra: &str| base().replace("%bool = OpTypeBool\n", &format!("%bool = OpTypeBool\n{extra}"));
        let signed = add("%len = OpConstant %int 4\n%arr = OpTypeArray %float %len\n%pa = OpTypePointer Private %arr\n%g = OpVariable %pa Private\n");
        let unsigned =
            add("%uint = OpTypeInt 32 0\n%len = OpConstant %uint 4\n%arr = OpTypeArray %float %len\n\
                            %pa = OpTypePointer Private %arr\n%g = OpVariable %pa Private\n");
        let notes = check_equivalent(&module(&signed), &module(&unsigned)).expect("equivalent");
        assert!(notes.iter().all(|d| d.category == Category::UnusedDeclarations), "{notes:#?}");
        let five = signed.replace("OpConstant %int 4", "OpConstant %int 5");
        assert!(check_equivalent(&module(&signed), &module(&five)).is_err());
    }

    #[test]
    fn unused_declarations_are_not_semantic() {
        let extra =
            base().replace("%bool = OpTypeBool\n", "%bool = OpTypeBool\n%unused = OpConstant %int 7\n");
        let notes = check_equivalent(&module(&extra), &module(&base())).expect("equivalent");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert_eq!(notes[0].category, Category::UnusedDeclarations);
        assert!(
            notes[0].message.contains("OpConstant(OpTypeInt(32, 1), 7) only in the original (unused)"),
            "{}",
            notes[0].message
        );
    }

    #[test]
    fn unused_imports_are_not_semantic_but_used_ones_are() {
        let extra = base().replace("OpMemoryModel", "%cl = OpExtInstImport \"OpenCL.std\"\nOpMemoryModel");
        let notes = check_equivalent(&module(&extra), &module(&base())).expect("equivalent");
        assert_eq!(notes.len(), 1, "{notes:#?}");
        assert_eq!(
            notes[0].message,
            "extended instruction set import OpenCL.std only in the original (unused)"
        );
        let renamed = base()
            .replace("OpExtInstImport \"GLSL.std.450\"", "OpExtInstImport \"OpenCL.std\"")
            .replace("%glsl Sqrt", "%glsl sqrt");
        let d = semantic(&base(), &renamed);
        assert!(
            d.iter()
                .any(|d| d.message == "extended instruction set import GLSL.std.450 only in the original"),
            "{d:#?}"
        );
    }

    #[test]
    fn control_flow_scaffolding_is_counted_apart() {
        // An extra block and a guard variable, as a structurizer may add them.
        let restructured = base()
            .replace("%ptr_uv4 = OpTypePointer", "%ptr_bool = OpTypePointer Function %bool\n%true = OpConstantTrue %bool\n%ptr_uv4 = OpTypePointer")
            .replace(
                "%entry = OpLabel\n",
                "%entry = OpLabel\n%guard = OpVariable %ptr_bool Function\nOpStore %guard %true\nOpBranch %body\n%body = OpLabel\n",
            );
        let notes = check_equivalent(&module(&base()), &module(&restructured))
            .expect("equivalent modulo scaffolding");
        assert!(notes.iter().all(|d| !d.category.is_semantic()));
        assert!(
            notes
                .iter()
                .any(|d| d.message.contains("3 blocks, 1 OpBranch")
                    && d.message.contains("4 blocks, 2 OpBranch")),
            "{notes:#?}"
        );
        assert!(notes.iter().any(|d| d.message.contains("OpVariable")), "{notes:#?}");
        assert!(notes.iter().any(|d| d.message.contains("OpStore")), "{notes:#?}");
        // The reverse (instructions lost) is semantic.
        assert!(check_equivalent(&module(&restructured), &module(&base())).is_err());
    }

    const LINKED_LIST: &str = "OpCapability Shader\n\
         OpCapability PhysicalStorageBufferAddresses\n\
         OpMemoryModel PhysicalStorageBuffer64 GLSL450\n\
         OpEntryPoint GLCompute %main \"main\"\n\
         OpExecutionMode %main LocalSize 1 1 1\n\
         NAMES\
         OpMemberDecorate %Node 0 Offset 0\n\
         OpMemberDecorate %Node 1 Offset 8\n\
         OpDecorate %Node Block\n\
         OpTypeForwardPointer %node_ptr PhysicalStorageBuffer\n\
         %void = OpTypeVoid\n\
         %fnty = OpTypeFunction %void\n\
         %int = OpTypeInt 32 1\n\
         %Node = OpTypeStruct %node_ptr %int\n\
         %node_ptr = OpTypePointer PhysicalStorageBuffer %Node\n\
         %fptr = OpTypePointer Function %node_ptr\n\
         %main = OpFunction %void None %fnty\n\
         %l = OpLabel\n\
         %var = OpVariable %fptr Function\n\
         OpReturn\n\
         OpFunctionEnd\n";

    #[test]
    fn recursive_types_terminate_and_compare_structurally() {
        let a = module(&LINKED_LIST.replace("NAMES", "OpName %fptr \"fptr\"\nOpName %Node \"Node\"\n"));
        let b = module(&LINKED_LIST.replace("NAMES", "OpName %node_ptr \"p\"\nOpName %fptr \"fptr\"\n"));
        assert_ne!(a.words(), b.words());
        assert_eq!(check_equivalent(&a, &b), Ok(Vec::new()));
        let changed = module(
            &LINKED_LIST
                .replace("NAMES", "")
                .replace("%Node = OpTypeStruct %node_ptr %int", "%Node = OpTypeStruct %node_ptr %node_ptr"),
        );
        let d = compare(&a, &changed);
        assert!(d.semantic().any(|d| d.category == Category::Instructions), "{d:#?}");
        assert!(
            d.semantic().any(|d| d.category == Category::TypesAndConstants && d.message.contains("^")),
            "{d:#?}"
        );
    }

    #[test]
    fn missing_functions_and_globals_are_reported() {
        let without_helper = shader(NAMES, MAIN)
            .replace("%h = OpFunctionCall %float %helper %c", "%h = OpCopyObject %float %c");
        let d = semantic(&base(), &without_helper);
        assert!(
            d.iter()
                .any(|d| d.category == Category::Functions
                    && d.message == "function @helper only in the original"),
            "{d:#?}"
        );
    }
}
