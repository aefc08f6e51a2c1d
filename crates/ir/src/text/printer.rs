//! Printer for MLIR's textual syntax, numbering values and blocks the way
//! `mlir-opt` does so output can be compared with it line by line.

use crate::attr::{Attribute, NamedAttribute};
use crate::ir::{BlockId, Ir, Location, OpId, RegionId, Value};
use crate::text::lexer::write_escaped;
use crate::types::{FloatKind, Signedness, StructBody, Type, TypeKind};
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use std::fmt::Write;

/// Printing options (`mlir-opt` flags).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// `--mlir-print-op-generic`.
    pub generic: bool,
    /// `--mlir-print-debuginfo`.
    pub debug_info: bool,
    /// Threads for printing a large module's functions: 0 picks the core count for
    /// large IR, 1 prints on the calling thread only.
    pub threads: usize,
    /// `--mlir-print-strict-properties`: newer MLIR's syntax for the inherent attributes
    /// (properties) a declarative format does not bind itself. MLIR 22 prints them in
    /// the `attr-dict` (`llvm.load %p {alignment = 4 : i64}`); newer MLIR (strict
    /// property assembly formats, the default since llvm-project c495a9b, with the
    /// key-value `prop-dict` of #217589) prints them as a property list before it, each
    /// value as its format variable prints (`llvm.load %p <alignment = 4>`, `<nontemporal>`).
    /// The parser reads both forms whatever this says.
    pub strict_properties: bool,
}

/// Below this many ops in the IR, printing stays on one thread (starting threads
/// costs more than it saves).
const PARALLEL_PRINT_MIN_OPS: usize = 20_000;

/// SSA value and block names, assigned as MLIR's `SSANameState` does: each region's
/// own values first, then its nested regions starting from where it stopped.
pub struct Names {
    /// By value index; `NameKind::None` for values outside the printed op.
    values: Vec<ValueName>,
    /// `^bbN` numbers, by block index (`u32::MAX`: not in the printed op).
    blocks: Vec<u32>,
    /// Suggested names (`%cst0_i32`, `%buf_addr`), made unique, and which scopes use them.
    scopes: NameScopes,
    /// For names given region by region as the printer reaches each region (the
    /// custom form of a whole print): what each named region left for its nested
    /// regions. `None` when every name was given upfront.
    regions: Option<RegionStates>,
    /// Scratch text for names being suggested and made unique (kept for its capacity).
    suggestion: String,
    candidate: String,
    /// Scratch list of regions still to name in [`Names::enter_region`].
    chain: Vec<RegionId>,
    /// The text of each type a suggested name holds (`%cst1_i32`), printed once.
    type_texts: TypeTexts,
    /// The interned name each `spirv.Constant` value and type suggests (a module
    /// repeats a few constants in every function: their names are made once).
    constant_names: FxHashMap<ConstantKey, u32>,
    /// The interned `base_N` for a name id and conflict number, made once.
    conflict_names: FxHashMap<(u32, u32), u32>,
}

/// What the name a `spirv.Constant` suggests depends on: its integer value (`None`
/// for any other value) and its type.
type ConstantKey = (Option<i128>, Type);

/// Where naming stands after a region's own values: nested regions continue from
/// the counters, and see the region's names (`scope`).
#[derive(Clone, Copy)]
struct NamingState {
    next_value: u32,
    next_arg: u32,
    next_conflict: u32,
    scope: u32,
}

struct RegionStates {
    root: OpId,
    /// By region index; `None` until the region is named.
    after: Vec<Option<NamingState>>,
}

/// A value's printed name in parts: `%N`, `%argN` or a suggested name, and `#i` for a
/// result of a multi-result op.
#[derive(Clone, Copy)]
struct ValueName {
    kind: NameKind,
    /// The number, or the suggested name's id in `NameScopes::texts`.
    base: u32,
    /// `i + 1` for `#i`; 0 for none.
    result: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum NameKind {
    None,
    /// `%N`.
    Number,
    /// `%argN`.
    Argument,
    /// `%name` suggested by the op.
    Suggested,
}

impl ValueName {
    const NONE: ValueName = ValueName { kind: NameKind::None, base: 0, result: 0 };
}

/// The two digits of each number below 100 (`push_u32`'s table).
const TWO_DIGITS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Decimal digits of `n`, without `fmt`'s machinery (this is the printer's hot path).
#[inline]
fn push_u32(out: &mut String, n: u32) {
    push_u64(out, u64::from(n));
}

/// Decimal digits of `n`, without `fmt`'s machinery; the short numbers most names
/// and values have inline.
#[inline]
fn push_u64(out: &mut String, n: u64) {
    if n < 10 {
        out.push(char::from(b'0' + n as u8));
    } else if n < 100 {
        let i = 2 * n as usize;
        out.push(char::from(TWO_DIGITS[i]));
        out.push(char::from(TWO_DIGITS[i + 1]));
    } else {
        push_long_u64(out, n);
    }
}

#[inline(never)]
fn push_long_u64(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = n;
    while n >= 100 {
        let pair = 2 * (n % 100) as usize;
        n /= 100;
        i -= 2;
        digits[i] = TWO_DIGITS[pair];
        digits[i + 1] = TWO_DIGITS[pair + 1];
    }
    if n >= 10 {
        let pair = 2 * n as usize;
        i -= 2;
        digits[i] = TWO_DIGITS[pair];
        digits[i + 1] = TWO_DIGITS[pair + 1];
    } else {
        i -= 1;
        digits[i] = b'0' + n as u8;
    }
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}

/// Used result names, scoped like MLIR's: a region sees its ancestors' names. Names
/// are interned (an id per distinct text, the texts kept in one buffer).
///
/// Scopes are normally made in preorder (a region is named after its ancestors and
/// before any region outside it that comes later), and names are only used by the
/// newest scope. Then an ancestor using a name is the last scope to have used it:
/// scopes made since are its descendants, which cannot use its names. So a name's
/// last user answers [`NameScopes::contains`] without any set. Scopes made out of
/// preorder (a value used outside its region, in IR that does not verify) switch to
/// the set of every (scope, name) use.
struct NameScopes {
    /// By scope; `u32::MAX` for the root.
    parent: Vec<u32>,
    /// Each distinct suggested name, by id: where it lies in `text`.
    spans: Vec<(u32, u32)>,
    text: String,
    /// By a hash of the text: the last id interned with that hash; `same_hash[id]`
    /// links to the one before (`u32::MAX`: none).
    by_hash: FxHashMap<u64, u32>,
    same_hash: Vec<u32>,
    /// By id: the last scope to use the name (`NO_SCOPE`: none).
    last_user: Vec<u32>,
    /// While scopes come in preorder: the newest scope and its ancestors, outermost
    /// first, and every (scope, id) use so far (to make `used` from if they stop).
    path: Vec<u32>,
    uses: Vec<(u32, u32)>,
    /// Once scopes came out of preorder: every (scope, id) use (a pair, not one
    /// `u64`: the hash of an integer varies in its low bits only with its low bits).
    used: Option<FxHashSet<(u32, u32)>>,
}

const NO_SCOPE: u32 = u32::MAX;

/// A hash of a name's bytes, mixed so that its low bits vary with every byte.
fn name_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        // The eight bytes as a little-endian word.
        let word = chunk.try_into().map_or(0, u64::from_le_bytes);
        h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let tail = chunks.remainder().iter().fold(0u64, |w, &b| w << 8 | u64::from(b));
    h = (h.rotate_left(5) ^ tail).wrapping_mul(K);
    h ^ (h >> 32)
}

impl NameScopes {
    fn new() -> Self {
        NameScopes {
            parent: Vec::new(),
            spans: Vec::new(),
            text: String::new(),
            by_hash: FxHashMap::default(),
            same_hash: Vec::new(),
            last_user: Vec::new(),
            path: Vec::new(),
            uses: Vec::new(),
            used: None,
        }
    }

    fn new_scope(&mut self, parent: u32) -> u32 {
        let scope = self.parent.len() as u32;
        self.parent.push(parent);
        if self.used.is_none() {
            // The scopes after `parent` on the path are done with (in preorder).
            while self.path.last().is_some_and(|&top| top != parent) {
                self.path.pop();
            }
            if self.path.is_empty() && parent != u32::MAX {
                // `parent` was done with: not preorder.
                self.used = Some(std::mem::take(&mut self.uses).into_iter().collect());
            } else {
                self.path.push(scope);
            }
        }
        scope
    }

    fn intern(&mut self, name: &str) -> u32 {
        let hash = name_hash(name.as_bytes());
        let first = self.by_hash.get(&hash).copied().unwrap_or(u32::MAX);
        let mut id = first;
        while id != u32::MAX {
            if self.text(id) == name {
                return id;
            }
            id = self.same_hash.get(id as usize).copied().unwrap_or(u32::MAX);
        }
        let id = self.spans.len() as u32;
        self.spans.push((self.text.len() as u32, name.len() as u32));
        self.text.push_str(name);
        self.same_hash.push(first);
        self.last_user.push(NO_SCOPE);
        self.by_hash.insert(hash, id);
        id
    }

    /// Whether `scope` (the newest scope) or one of its ancestors uses name `id`.
    fn contains(&self, mut scope: u32, id: u32) -> bool {
        let user = self.last_user.get(id as usize).copied().unwrap_or(NO_SCOPE);
        if user == NO_SCOPE {
            return false;
        }
        loop {
            let used = match &self.used {
                Some(used) => used.contains(&(scope, id)),
                None => scope == user,
            };
            if used {
                return true;
            }
            match self.parent.get(scope as usize) {
                Some(&p) if p != u32::MAX => scope = p,
                _ => return false,
            }
        }
    }

    /// Records that `scope` (the newest scope) uses name `id`.
    fn insert(&mut self, scope: u32, id: u32) {
        let Some(user) = self.last_user.get_mut(id as usize) else { return };
        *user = scope;
        match &mut self.used {
            Some(used) => {
                used.insert((scope, id));
            }
            None => self.uses.push((scope, id)),
        }
    }

    #[inline]
    fn text(&self, id: u32) -> &str {
        let Some(&(start, len)) = self.spans.get(id as usize) else { return "" };
        self.text.get(start as usize..(start + len) as usize).unwrap_or("")
    }
}

impl Names {
    /// Numbers values as `mlir-opt` does. In the custom form (`generic == false`)
    /// numbering restarts for each region from where its parent stopped and ops may
    /// suggest names (`%cst1_i32`); the generic form numbers globally.
    pub fn new(ir: &Ir, root: OpId, generic: bool) -> Self {
        let mut names = Names::empty();
        let root_scope = names.scopes.new_scope(u32::MAX);
        let start = NamingState { next_value: 0, next_arg: 0, next_conflict: 0, scope: root_scope };
        let mut global = start;
        let mut stack: Vec<(RegionId, NamingState)> =
            ir.op(root).regions.iter().map(|&r| (r, start)).collect();
        while let Some((region, parent)) = stack.pop() {
            // The generic form numbers values across regions, in this walk's order.
            let from = if generic { NamingState { scope: parent.scope, ..global } } else { parent };
            let after = names.name_region(ir, region, from, generic);
            global = after;
            for &block in &ir.region(region).blocks {
                for &op in &ir.block(block).ops {
                    for &r in &ir.op(op).regions {
                        stack.push((r, after));
                    }
                }
            }
        }
        names
    }

    /// Names for the custom form of `root`, given region by region as the printer
    /// reaches each region (see [`Names::enter_region`]): numbering a region just
    /// before printing it reads the ops while they are about to be printed anyway.
    /// The names are those [`Names::new`] gives.
    pub fn custom_by_region(_ir: &Ir, root: OpId) -> Self {
        let mut names = Names::empty();
        names.scopes.new_scope(u32::MAX);
        // Sized on first use: printing an op without regions (the deserializer
        // compares module-level ops one by one) then costs nothing per value.
        names.regions = Some(RegionStates { root, after: Vec::new() });
        names
    }

    fn empty() -> Self {
        Names {
            // Sized by `name_region` (reads past the end mean "not named").
            values: Vec::new(),
            blocks: Vec::new(),
            scopes: NameScopes::new(),
            regions: None,
            suggestion: String::new(),
            candidate: String::new(),
            chain: Vec::new(),
            type_texts: TypeTexts::new(),
            constant_names: FxHashMap::default(),
            conflict_names: FxHashMap::default(),
        }
    }

    /// Names `region`'s values and blocks if they are given region by region and it
    /// has not been named yet (its enclosing regions first).
    pub fn enter_region(&mut self, ir: &Ir, region: RegionId) {
        let Some(states) = self.regions.as_mut() else { return };
        if states.after.len() < ir.region_count() {
            states.after.resize(ir.region_count(), None);
        }
        let states = &*states;
        if states.after.get(region.index()).is_none_or(|s| s.is_some()) {
            return;
        }
        // The regions to name, innermost first: up to one already named or one of the
        // root's (regions outside the printed op keep no names).
        let mut chain = std::mem::take(&mut self.chain);
        chain.clear();
        chain.push(region);
        let mut start = NamingState { next_value: 0, next_arg: 0, next_conflict: 0, scope: 0 };
        let mut current = region;
        let reachable = loop {
            let Some(op) = ir.region(current).parent else { break false };
            if op == states.root {
                break true;
            }
            let Some(outer) = ir.op(op).parent.and_then(|b| ir.block(b).parent) else { break false };
            if let Some(after) = states.after.get(outer.index()).copied().flatten() {
                start = after;
                break true;
            }
            chain.push(outer);
            current = outer;
        };
        if reachable {
            for &r in chain.iter().rev() {
                start = self.name_region(ir, r, start, false);
                if let Some(slot) = self.regions.as_mut().and_then(|states| states.after.get_mut(r.index())) {
                    *slot = Some(start);
                }
            }
        }
        self.chain = chain;
    }

    /// The printed op, when names are given region by region.
    fn by_region_root(&self) -> Option<OpId> {
        self.regions.as_ref().map(|states| states.root)
    }

    /// [`Names::enter_region`] for the region that defines `v`.
    fn enter_value_region(&mut self, ir: &Ir, v: Value) {
        if self.regions.is_none() || v.index() >= ir.value_count() {
            return;
        }
        let block = match ir.value(v).def {
            crate::ir::ValueDef::Argument { block, .. } => Some(block),
            crate::ir::ValueDef::Result { op, .. } => ir.op(op).parent,
        };
        if let Some(region) = block.and_then(|b| ir.block(b).parent) {
            self.enter_region(ir, region);
        }
    }

    /// Names a region's block arguments, op results and blocks (not its nested
    /// regions') from `from`, in a new scope under `from.scope`; returns where naming
    /// stands after them.
    fn name_region(&mut self, ir: &Ir, region: RegionId, from: NamingState, generic: bool) -> NamingState {
        let NamingState { mut next_value, mut next_arg, mut next_conflict, .. } = from;
        if self.values.len() < ir.value_count() {
            self.values.resize(ir.value_count(), ValueName::NONE);
        }
        if self.blocks.len() < ir.block_count() {
            self.blocks.resize(ir.block_count(), u32::MAX);
        }
        let scope = self.scopes.new_scope(from.scope);
        let mut suggestion = std::mem::take(&mut self.suggestion);
        for (block_index, &block) in ir.region(region).blocks.iter().enumerate() {
            if let Some(slot) = self.blocks.get_mut(block.index()) {
                *slot = block_index as u32;
            }
            let b = ir.block(block);
            for &arg in &b.arguments {
                let name = if block_index == 0 {
                    next_arg += 1;
                    ValueName { kind: NameKind::Argument, base: next_arg - 1, result: 0 }
                } else {
                    next_value += 1;
                    ValueName { kind: NameKind::Number, base: next_value - 1, result: 0 }
                };
                if let Some(slot) = self.values.get_mut(arg.index()) {
                    *slot = name;
                }
            }
            for &op in &b.ops {
                let results = &ir.op(op).results;
                if results.is_empty() {
                    continue;
                }
                let base = if generic { None } else { self.suggested_name(ir, op, &mut suggestion) };
                let name = if let Some(base) = base {
                    let id = self.unique_name(scope, base, &mut next_conflict);
                    ValueName { kind: NameKind::Suggested, base: id, result: 0 }
                } else {
                    next_value += 1;
                    ValueName { kind: NameKind::Number, base: next_value - 1, result: 0 }
                };
                if let [one] = results.as_slice() {
                    if let Some(slot) = self.values.get_mut(one.index()) {
                        *slot = name;
                    }
                } else {
                    for (i, &r) in results.iter().enumerate() {
                        if let Some(slot) = self.values.get_mut(r.index()) {
                            *slot = ValueName { result: i as u32 + 1, ..name };
                        }
                    }
                }
            }
        }
        self.suggestion = suggestion;
        NamingState { next_value, next_arg, next_conflict, scope }
    }

    /// The interned (sanitized) name `op` suggests for its results, if any;
    /// `suggestion` is scratch text.
    fn suggested_name(&mut self, ir: &Ir, op: OpId, suggestion: &mut String) -> Option<u32> {
        let key = constant_key(ir, op);
        if let Some(&id) = key.and_then(|key| self.constant_names.get(&key)) {
            return Some(id);
        }
        suggestion.clear();
        if !suggested_result_name(ir, op, suggestion, &mut self.type_texts) {
            return None;
        }
        sanitize_value_name(suggestion);
        let id = self.scopes.intern(suggestion);
        if let Some(key) = key {
            self.constant_names.insert(key, id);
        }
        Some(id)
    }

    /// Name `base`, or `base_N` with the next conflict number `N` that no enclosing
    /// scope uses, now used by `scope`: its id.
    fn unique_name(&mut self, scope: u32, base: u32, next_conflict: &mut u32) -> u32 {
        let mut id = base;
        while self.scopes.contains(scope, id) {
            let n = *next_conflict;
            *next_conflict += 1;
            id = match self.conflict_names.get(&(base, n)) {
                Some(&id) => id,
                None => {
                    let mut candidate = std::mem::take(&mut self.candidate);
                    candidate.clear();
                    candidate.push_str(self.scopes.text(base));
                    candidate.push('_');
                    push_u32(&mut candidate, n);
                    let id = self.scopes.intern(&candidate);
                    self.candidate = candidate;
                    self.conflict_names.insert((base, n), id);
                    id
                }
            };
        }
        self.scopes.insert(scope, id);
        id
    }

    #[inline]
    fn name_of(&self, v: Value) -> Option<ValueName> {
        self.values.get(v.index()).copied().filter(|n| n.kind != NameKind::None)
    }

    /// Appends `%N`, `%argN` or the suggested name.
    #[inline]
    fn write_base(&self, name: ValueName, out: &mut String) {
        out.push('%');
        match name.kind {
            NameKind::Number => push_u32(out, name.base),
            NameKind::Argument => {
                out.push_str("arg");
                push_u32(out, name.base);
            }
            NameKind::Suggested => out.push_str(self.scopes.text(name.base)),
            NameKind::None => {}
        }
    }

    /// Appends the value's name (`%0`, `%arg1`, `%cst`, `%5#1`).
    #[inline]
    pub fn write_value(&self, v: Value, out: &mut String) {
        match self.name_of(v) {
            Some(name) => self.write_name(name, out),
            None => {
                let _ = write!(out, "<<UNKNOWN SSA VALUE {}>>", v.index());
            }
        }
    }

    /// Appends a value's name (`%0`, `%arg1`, `%cst`, `%5#1`) given its parts.
    #[inline]
    fn write_name(&self, name: ValueName, out: &mut String) {
        self.write_base(name, out);
        if name.result != 0 {
            out.push('#');
            push_u32(out, name.result - 1);
        }
    }

    pub fn value(&self, v: Value) -> String {
        let mut out = String::new();
        self.write_value(v, &mut out);
        out
    }

    /// Appends the block's label (`^bb1`).
    pub fn write_block(&self, b: BlockId, out: &mut String) {
        match self.blocks.get(b.index()).copied().filter(|&n| n != u32::MAX) {
            Some(n) => {
                out.push_str("^bb");
                push_u32(out, n);
            }
            None => out.push_str("^INVALIDBLOCK"),
        }
    }

    pub fn block(&self, b: BlockId) -> String {
        let mut out = String::new();
        self.write_block(b, &mut out);
        out
    }

    /// Appends the name a multi-result op binds (`%0` for `%0:2`).
    fn write_result_base(&self, v: Value, out: &mut String) {
        match self.name_of(v) {
            Some(name) => self.write_base(name, out),
            None => self.write_value(v, out),
        }
    }
}

/// Prints one op on its own, as MLIR shows an op in a diagnostic: its values
/// numbered within the nearest enclosing op isolated from above (its function).
pub fn print_op_in_scope(ir: &Ir, op: OpId) -> String {
    let mut scope = op;
    while let Some(parent) = ir.parent_op(scope) {
        scope = parent;
        if ir.op(parent).name.def().is_some_and(|d| d.has_trait("IsolatedFromAbove")) {
            break;
        }
    }
    let options = PrintOptions::default();
    let mut p = Printer::new(ir, Names::new(ir, scope, false), options);
    p.operation(op);
    p.out
}

/// Writes IR text.
pub struct Printer<'a> {
    pub ir: &'a Ir,
    pub names: Names,
    pub out: String,
    pub indent: usize,
    pub options: PrintOptions,
    /// The text of each type printed so far (types are interned, and a module
    /// prints few distinct ones many times).
    type_texts: TypeTexts,
    /// Operand group ranges of the op being printed (`format::print`), kept for
    /// its capacity.
    pub(crate) group_scratch: Vec<std::ops::Range<usize>>,
    /// Lists of each block's predecessors, one per region being printed (a nested
    /// region takes the next), kept for their capacity.
    preds_scratch: Vec<Vec<Vec<BlockId>>>,
    /// The op whose text's end [`print_op_marking`] reports, and that end.
    mark: Option<OpId>,
    marked_at: Option<usize>,
}

/// The text of each type printed so far.
struct TypeTexts {
    /// By type index.
    texts: Vec<Option<Box<str>>>,
    /// Off for one-off printing (diagnostics), where keeping texts only costs.
    enabled: bool,
}

impl TypeTexts {
    fn new() -> Self {
        TypeTexts { texts: Vec::new(), enabled: true }
    }

    fn uncached() -> Self {
        TypeTexts { texts: Vec::new(), enabled: false }
    }

    #[inline]
    fn write(&mut self, ir: &Ir, t: Type, out: &mut String) {
        match self.texts.get(t.index()) {
            Some(Some(text)) => out.push_str(text),
            _ => self.write_new(ir, t, out),
        }
    }

    /// A type not printed before (or any type, when not cached).
    fn write_new(&mut self, ir: &Ir, t: Type, out: &mut String) {
        if !self.enabled {
            write_type(ir, t, out);
            return;
        }
        let mut text = String::new();
        write_type(ir, t, &mut text);
        out.push_str(&text);
        if self.texts.len() <= t.index() {
            self.texts.resize(t.index() + 1, None);
        }
        self.texts[t.index()] = Some(text.into_boxed_str());
    }
}

/// The name of the op definition at `index` in `OP_DEFS` as a string literal, made
/// once per process (the generic form starts every op with it).
fn quoted_op_name(index: usize) -> &'static str {
    static QUOTED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let quoted = QUOTED.get_or_init(|| {
        crate::opdef::OP_DEFS.iter().map(|d| crate::text::lexer::escape(d.name.as_bytes())).collect()
    });
    quoted.get(index).map_or("\"\"", String::as_str)
}

/// Prints a whole top-level op (normally `builtin.module`).
/// An identified struct's name: bare when it is a keyword, quoted otherwise.
/// (mlir-opt prints every name bare, so names from binaries such as Slang's
/// `S<float, 4>` come out unreadable, and MLIR 22 cannot parse them in any spelling;
/// quoting keeps our text lossless and readable by our parser. Names that are
/// keywords, all of MLIR's tests, print exactly as mlir-opt prints them.)
fn write_struct_name(name: &str, out: &mut String) {
    let bare = name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.'));
    if bare {
        out.push_str(name);
    } else {
        crate::text::lexer::write_escaped(name.as_bytes(), out);
    }
}

/// Bytes reserved per op for a print in the custom form: about 60 are used in
/// practice (90 in the generic form); reserving avoids copying a growing buffer, and
/// room left unused is never touched.
pub const CUSTOM_BYTES_PER_OP: usize = 80;

pub fn print_op(ir: &Ir, root: OpId, options: PrintOptions) -> String {
    print_op_marking(ir, root, options, None, String::new()).0
}

/// [`print_op`] appending to `out` (which may come with room for more), and where the
/// text of `mark` (an op under `root`) ends, its location suffix included; `None`
/// when `mark` was not printed (or printed by a helper thread of a parallel print:
/// pass `threads: 1` to be sure it is not).
pub fn print_op_marking(
    ir: &Ir,
    root: OpId,
    options: PrintOptions,
    mark: Option<OpId>,
    out: String,
) -> (String, Option<usize>) {
    let names = if options.generic { Names::new(ir, root, true) } else { Names::custom_by_region(ir, root) };
    let mut p = Printer::new(ir, names, options);
    p.out = out;
    let per_op = if options.generic { 120 } else { CUSTOM_BYTES_PER_OP };
    p.out.reserve(ir.op_count().saturating_mul(per_op));
    p.mark = mark;
    p.operation(root);
    p.location_suffix(root);
    // mlir-opt ends its output with an empty line.
    p.out.push_str("\n\n");
    (p.out, p.marked_at)
}

/// The text [`print_op`] in the custom form gives `ops`, ops of the one block of
/// `root`'s one region (a module's functions), each on its own line as it prints
/// there; on this thread. `None` when `root` has not exactly one region of one block,
/// an op is not in it, or `options` ask for the generic form.
pub fn print_body_ops(ir: &Ir, root: OpId, ops: &[OpId], options: PrintOptions) -> Option<String> {
    let mut out = String::new();
    // As `print_op` reserves: the ops are most of this IR.
    out.reserve(ir.op_count().saturating_mul(CUSTOM_BYTES_PER_OP));
    print_body_ops_into(ir, root, ops, options, &mut out).then_some(out)
}

/// [`print_body_ops`] appending to `out`; false (`out` unchanged) where that gives
/// `None`.
pub fn print_body_ops_into(
    ir: &Ir,
    root: OpId,
    ops: &[OpId],
    options: PrintOptions,
    out: &mut String,
) -> bool {
    let [region] = ir.op(root).regions[..] else { return false };
    let [block] = ir.region(region).blocks[..] else { return false };
    if options.generic || ops.iter().any(|&op| ir.op(op).parent != Some(block)) {
        return false;
    }
    let mut p = Printer::for_region_ops(ir, root, region, 1, PrintOptions { threads: 1, ..options });
    p.out = std::mem::take(out);
    p.lines(ops);
    *out = p.out;
    true
}

impl<'a> Printer<'a> {
    /// ` loc(...)` after an op, with `--mlir-print-debuginfo` (locations inline, as
    /// `--mlir-print-local-scope` prints them).
    fn location_suffix(&mut self, op: OpId) {
        let ir = self.ir;
        self.location(&ir.op(op).location);
    }

    /// ` loc(...)` after argument `index` of `block` (in a block header or a function
    /// signature), with `--mlir-print-debuginfo`; `loc(unknown)` when none is recorded.
    pub fn argument_location_suffix(&mut self, block: BlockId, index: usize) {
        let ir = self.ir;
        let location = ir.block(block).argument_locations.get(index).unwrap_or(&Location::Unknown);
        self.location(location);
    }

    fn location(&mut self, location: &Location) {
        if !self.options.debug_info {
            return;
        }
        self.out.push_str(" loc(");
        // A name's child prints inside parentheses after it (a loop: a chain of
        // names built by a caller may be long).
        let mut at = location;
        let mut open = 0usize;
        loop {
            match at {
                Location::Unknown => self.out.push_str("unknown"),
                Location::FileLineCol { file, line, column } => {
                    crate::text::lexer::write_escaped(file.as_bytes(), &mut self.out);
                    let _ = write!(self.out, ":{line}:{column}");
                }
                Location::Name { name, child } => {
                    crate::text::lexer::write_escaped(name.as_bytes(), &mut self.out);
                    if let Some(child) = child {
                        self.out.push('(');
                        open += 1;
                        at = child;
                        continue;
                    }
                }
                // Kept as written, `loc(...)` included.
                Location::Opaque(text) => {
                    let inner = text.strip_prefix("loc(").and_then(|t| t.strip_suffix(')')).unwrap_or(text);
                    self.out.push_str(inner);
                }
            }
            break;
        }
        self.out.extend(std::iter::repeat_n(')', open + 1));
    }

    pub fn new(ir: &'a Ir, names: Names, options: PrintOptions) -> Self {
        Printer {
            ir,
            names,
            out: String::new(),
            indent: 0,
            options,
            type_texts: TypeTexts::new(),
            group_scratch: Vec::new(),
            preds_scratch: Vec::new(),
            mark: None,
            marked_at: None,
        }
    }

    pub fn newline(&mut self) {
        // The line break and the indentation in one push; of a constant length for
        // the usual depths (copied inline rather than by a call to `memcpy`).
        match self.indent {
            1 => self.out.push_str("\n  "),
            2 => self.out.push_str("\n    "),
            3 => self.out.push_str("\n      "),
            4 => self.out.push_str("\n        "),
            _ => self.deep_newline(),
        }
    }

    fn deep_newline(&mut self) {
        const LINE: &str = "\n                                                                ";
        match LINE.get(..1 + 2 * self.indent) {
            Some(line) => self.out.push_str(line),
            None => {
                self.out.push('\n');
                for _ in 0..self.indent {
                    self.out.push_str("  ");
                }
            }
        }
    }

    #[inline]
    pub fn value(&mut self, v: Value) {
        match self.names.name_of(v) {
            Some(name) => self.names.write_name(name, &mut self.out),
            None => {
                // Printed before its region (a function's arguments in its signature).
                self.names.enter_value_region(self.ir, v);
                self.names.write_value(v, &mut self.out);
            }
        }
    }

    pub fn values(&mut self, vs: &[Value]) {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.value(v);
        }
    }

    pub fn ty(&mut self, t: Type) {
        self.type_texts.write(self.ir, t, &mut self.out);
    }

    /// The types of `values`, comma-separated.
    pub fn value_types(&mut self, values: &[Value]) {
        for (i, &v) in values.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.ty(self.ir.value_type(v));
        }
    }

    /// A symbol reference to `name` (`@name`, quoted when it needs to be).
    pub fn symbol_ref(&mut self, name: &str) {
        self.out.push('@');
        if is_bare_identifier(name) {
            self.out.push_str(name);
        } else {
            write_escaped(name.as_bytes(), &mut self.out);
        }
    }

    /// A string literal, escaped as MLIR does.
    pub fn string(&mut self, text: &str) {
        write_string_literal(text, &mut self.out);
    }

    /// The op's attribute dictionary as `attr-dict` prints it: inherent and
    /// discardable attributes merged and sorted by name, less `elided`; nothing
    /// when none remain.
    #[inline]
    pub fn merged_attr_dict(&mut self, o: &crate::ir::Operation, elided: &[&str], with_keyword: bool) {
        // Most ops have no attributes at all.
        if o.properties.is_empty() && o.attributes.is_empty() {
            return;
        }
        self.merged_attr_dict_of(o, elided, with_keyword);
    }

    fn merged_attr_dict_of(&mut self, o: &crate::ir::Operation, elided: &[&str], with_keyword: bool) {
        // An LLVM dialect attribute holding its default is not shown, as MLIR elides it.
        let mut at_default: Vec<&str> = Vec::new();
        if let Some(def) = o.name.def().filter(|d| crate::llvm::has_defaults(d)) {
            for ad in def.attributes {
                if let (Some(text), Some(value)) =
                    (crate::llvm::default_text(ad.constraint()), o.attr(ad.name))
                {
                    let mut printed = String::new();
                    write_attribute_in(self.ir, value, &mut printed, &mut self.type_texts);
                    if printed == text {
                        at_default.push(ad.name);
                    }
                }
            }
        }
        let shown = |a: &&NamedAttribute| {
            !elided.contains(&a.name.as_str()) && !at_default.contains(&a.name.as_str())
        };
        if !o.properties.iter().chain(&o.attributes).any(|a| shown(&a)) {
            return;
        }
        let mut attrs: Vec<&NamedAttribute> =
            o.properties.iter().chain(&o.attributes).filter(shown).collect();
        attrs.sort_by(|a, b| a.name.cmp(&b.name));
        if with_keyword {
            self.out.push_str(" attributes");
        }
        self.out.push_str(" {");
        for (i, a) in attrs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.attr_entry(a);
        }
        self.out.push('}');
    }

    /// The attributes a declarative format's `attr-dict` prints: with
    /// [`PrintOptions::strict_properties`], the op's properties that are shown go in a
    /// ` <name = value, ...>` list first (in the op's declaration order, each `value`
    /// printed by `value_text` as its format variable would be; a unit one as its name
    /// alone), and only the other attributes in the dictionary.
    pub(crate) fn format_attr_dict(
        &mut self,
        o: &crate::ir::Operation,
        def: &crate::opdef::OpDef,
        elided: &[&str],
        with_keyword: bool,
        value_text: fn(&mut Printer, &crate::opdef::AttrConstraint, &Attribute),
    ) {
        if !self.options.strict_properties {
            return self.merged_attr_dict(o, elided, with_keyword);
        }
        let shown: Vec<&crate::opdef::AttrDef> = def
            .attributes
            .iter()
            .filter(|ad| !elided.contains(&ad.name))
            .filter(|ad| match (o.attr(ad.name), crate::llvm::default_text(ad.constraint())) {
                (None, _) => false,
                (Some(value), Some(default)) if crate::llvm::has_defaults(def) => {
                    let mut printed = String::new();
                    write_attribute_in(self.ir, value, &mut printed, &mut self.type_texts);
                    printed != default
                }
                _ => true,
            })
            .collect();
        if !shown.is_empty() {
            self.out.push_str(" <");
            for (i, ad) in shown.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str(ad.name);
                match o.attr(ad.name) {
                    Some(Attribute::Unit) | None => {}
                    Some(value) => {
                        self.out.push_str(" = ");
                        value_text(self, ad.constraint(), value);
                    }
                }
            }
            self.out.push('>');
        }
        let mut rest: Vec<&str> = elided.to_vec();
        rest.extend(def.attributes.iter().map(|ad| ad.name));
        self.merged_attr_dict(o, &rest, with_keyword);
    }

    /// `name = value`, or just `name` for unit attributes.
    pub fn attr_entry(&mut self, a: &NamedAttribute) {
        write_attr_entry_in(self.ir, a, &mut self.out, &mut self.type_texts);
    }

    pub fn types(&mut self, ts: &[Type]) {
        for (i, &t) in ts.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.ty(t);
        }
    }

    pub fn attr(&mut self, a: &Attribute) {
        write_attribute_in(self.ir, a, &mut self.out, &mut self.type_texts);
    }

    /// ` {a = 1, b}` for the attributes not in `elided`; nothing if none remain.
    pub fn attr_dict(&mut self, attrs: &[NamedAttribute], elided: &[&str]) {
        let mut first = true;
        for a in attrs.iter().filter(|a| !elided.contains(&a.name.as_str())) {
            self.out.push_str(if first { " {" } else { ", " });
            first = false;
            self.attr_entry(a);
        }
        if !first {
            self.out.push('}');
        }
    }

    /// One operation, starting at the current position (indentation already written).
    pub fn operation(&mut self, op: OpId) {
        let o = self.ir.op(op);
        if !o.results.is_empty() {
            self.names.write_result_base(o.results[0], &mut self.out);
            if o.results.len() > 1 {
                self.out.push(':');
                push_u32(&mut self.out, o.results.len() as u32);
            }
            self.out.push_str(" = ");
        }
        if self.options.generic || !crate::text::custom::print(self, op) {
            self.generic(op);
        }
    }

    /// The generic form: `"name"(%a) <{props}> ({...}) {attrs} : (T) -> U`.
    pub fn generic(&mut self, op: OpId) {
        let ir = self.ir;
        let o = ir.op(op);
        match o.name.def_index() {
            Some(index) => self.out.push_str(quoted_op_name(index)),
            None => write_escaped(o.name.as_bytes(), &mut self.out),
        }
        self.out.push('(');
        self.values(&o.operands);
        self.out.push(')');
        if !o.successors.is_empty() {
            self.out.push('[');
            for (i, &s) in o.successors.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.names.write_block(s, &mut self.out);
            }
            self.out.push(']');
        }
        // The LLVM dialect's defaults an op leaves unset, which MLIR materializes.
        let defaults = match o.name.def() {
            Some(def) => crate::llvm::missing_defaults(def, o),
            None => Vec::new(),
        };
        if !o.properties.is_empty() || !defaults.is_empty() {
            self.out.push_str(" <{");
            let mut given = o.properties.iter().peekable();
            let mut defaults = defaults.iter().peekable();
            let mut first = true;
            loop {
                let take_default = match (given.peek(), defaults.peek()) {
                    (None, None) => break,
                    (Some(a), Some((name, _))) => *name < a.name.as_str(),
                    (None, Some(_)) => true,
                    (Some(_), None) => false,
                };
                if !first {
                    self.out.push_str(", ");
                }
                first = false;
                if take_default {
                    let (name, text) = defaults.next().expect("peeked");
                    self.out.push_str(name);
                    self.out.push_str(" = ");
                    self.out.push_str(text);
                } else {
                    self.attr_entry(given.next().expect("peeked"));
                }
            }
            self.out.push_str("}>");
        }
        if !o.regions.is_empty() {
            self.out.push_str(" (");
            for (i, &r) in o.regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.region(r, true, true);
            }
            self.out.push(')');
        }
        self.attr_dict(&o.attributes, &[]);
        self.out.push_str(" : (");
        self.value_types(&o.operands);
        self.out.push_str(") -> ");
        match o.results.as_slice() {
            [one] if !matches!(ir.types.kind(ir.value_type(*one)), TypeKind::Function { .. }) => {
                self.ty(ir.value_type(*one))
            }
            results => {
                self.out.push('(');
                self.value_types(results);
                self.out.push(')');
            }
        }
    }

    /// `{ ... }` with its blocks. The entry block's label is printed when it has
    /// arguments and `print_entry_args` is set, or when the region has several blocks
    /// and the entry block is the target of a branch.
    pub fn region(&mut self, region: RegionId, print_entry_args: bool, print_empty_block: bool) {
        let ir = self.ir;
        self.names.enter_region(ir, region);
        self.out.push('{');
        self.indent += 1;
        let blocks = &ir.region(region).blocks;
        // Lists taken while in use (a nested region takes the next ones, which stay
        // for the next region at its depth).
        let mut preds = self.preds_scratch.pop().unwrap_or_default();
        if blocks.len() > 1 {
            self.predecessors(blocks, &mut preds);
        }
        for (i, &b) in blocks.iter().enumerate() {
            let block = ir.block(b);
            let show_label = i > 0
                || (print_entry_args && !block.arguments.is_empty())
                || (print_empty_block && block.ops.is_empty() && blocks.len() == 1);
            if show_label {
                self.indent -= 1;
                self.newline();
                self.names.write_block(b, &mut self.out);
                if !block.arguments.is_empty() {
                    self.out.push('(');
                    for (j, &a) in block.arguments.iter().enumerate() {
                        if j > 0 {
                            self.out.push_str(", ");
                        }
                        self.value(a);
                        self.out.push_str(": ");
                        let t = self.ir.value_type(a);
                        self.ty(t);
                        self.argument_location_suffix(b, j);
                    }
                    self.out.push(')');
                }
                self.out.push(':');
                if i > 0 {
                    let p = &preds[i];
                    match p.len() {
                        0 => self.out.push_str("  // no predecessors"),
                        1 => {
                            self.out.push_str("  // pred: ");
                            self.names.write_block(p[0], &mut self.out);
                        }
                        count => {
                            self.out.push_str("  // ");
                            push_u32(&mut self.out, count as u32);
                            self.out.push_str(" preds: ");
                            for (j, &x) in p.iter().enumerate() {
                                if j > 0 {
                                    self.out.push_str(", ");
                                }
                                self.names.write_block(x, &mut self.out);
                            }
                        }
                    }
                }
                self.indent += 1;
            }
            if blocks.len() > 1 || !self.ops_in_parallel(region, &block.ops) {
                self.lines(&block.ops);
            }
        }
        self.preds_scratch.push(preds);
        self.indent -= 1;
        self.newline();
        self.out.push('}');
    }

    /// A printer of ops of `region` (under `root`, printed in the custom form) on their
    /// own, at `indent`: the region's names are given as a whole print gives them.
    fn for_region_ops(
        ir: &'a Ir,
        root: OpId,
        region: RegionId,
        indent: usize,
        options: PrintOptions,
    ) -> Self {
        let mut p = Printer::new(ir, Names::custom_by_region(ir, root), options);
        p.names.enter_region(ir, region);
        p.indent = indent;
        p
    }

    /// Each of `ops` on its own line, with its location suffix; where the marked op's
    /// text ends is noted (see [`print_op_marking`]).
    fn lines(&mut self, ops: &[OpId]) {
        for &op in ops {
            self.newline();
            self.operation(op);
            self.location_suffix(op);
            if self.mark == Some(op) {
                self.marked_at = Some(self.out.len());
            }
        }
    }

    /// Prints a large block's ops (a module's functions) split over threads; false
    /// when the block is small, the form is generic or there is one core. With names
    /// given region by region, a nested region is named from its parent region's
    /// state alone, never from its siblings', so chunks printed by printers of their
    /// own read exactly as one printer prints them (the tests compare the two).
    fn ops_in_parallel(&mut self, region: RegionId, ops: &[OpId]) -> bool {
        let Some(root) = self.names.by_region_root() else { return false };
        let threads = match self.options.threads {
            0 if self.ir.op_count() < PARALLEL_PRINT_MIN_OPS => return false,
            0 => crate::parallel::cores().min(8),
            n => n,
        };
        if threads < 2 || ops.len() < 2 * threads {
            return false;
        }
        // More chunks than threads, so one long function does not leave a thread
        // idle. This thread takes chunks from the front, straight into its own
        // output; the helpers take them from the back, into texts appended after
        // (only their part of the text is copied, not all of it).
        let chunk_count = (threads * 8).min(ops.len());
        let chunk_len = ops.len().div_ceil(chunk_count);
        let chunks: Vec<&[OpId]> = ops.chunks(chunk_len).collect();
        let untaken = std::sync::Mutex::new(0..chunks.len());
        let take = |from_back: bool| {
            let mut range = untaken.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if from_back {
                range.next_back()
            } else {
                range.next()
            }
        };
        let (ir, indent) = (self.ir, self.indent);
        // Nested regions print on their helper's thread.
        let options = PrintOptions { threads: 1, ..self.options };
        let helper = || {
            let mut done = Vec::new();
            let mut p = Printer::for_region_ops(ir, root, region, indent, options);
            while let Some(i) = take(true) {
                p.lines(chunks[i]);
                let text = std::mem::take(&mut p.out);
                // Chunks are alike: the next one starts with room for this one's
                // text rather than growing (and copying) from empty.
                p.out.reserve(text.len());
                done.push((i, text));
            }
            done
        };
        let mut printed: Vec<(usize, String)> = std::thread::scope(|scope| {
            let helpers: Vec<_> =
                (1..threads).filter_map(|_| spirvkit_threads::spawn_scoped(scope, helper).ok()).collect();
            while let Some(i) = take(false) {
                self.lines(chunks[i]);
            }
            helpers
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        });
        // The helpers' chunks are the last ones, in some order.
        printed.sort_unstable_by_key(|&(i, _)| i);
        self.out.reserve(printed.iter().map(|(_, text)| text.len()).sum());
        for (_, text) in printed {
            self.out.push_str(&text);
        }
        true
    }

    /// For each block, the blocks that branch to it, in block order, once per branch
    /// edge (as MLIR lists them: `2 preds: ^bb0, ^bb0` for both arms to one block);
    /// into the first `blocks.len()` lists of `preds` (reused for their capacity).
    fn predecessors(&self, blocks: &[BlockId], preds: &mut Vec<Vec<BlockId>>) {
        // Small regions (most) find a block's position by a scan.
        let index: FxHashMap<BlockId, usize> = if blocks.len() > 16 {
            blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect()
        } else {
            FxHashMap::default()
        };
        let position = |b: BlockId| {
            if blocks.len() > 16 {
                index.get(&b).copied()
            } else {
                blocks.iter().position(|&x| x == b)
            }
        };
        if preds.len() < blocks.len() {
            preds.resize_with(blocks.len(), Vec::new);
        }
        for p in preds.iter_mut().take(blocks.len()) {
            p.clear();
        }
        for &b in blocks {
            if let Some(&last) = self.ir.block(b).ops.last() {
                for &s in &self.ir.op(last).successors {
                    if let Some(i) = position(s) {
                        preds[i].push(b);
                    }
                }
            }
        }
        for p in preds.iter_mut().take(blocks.len()) {
            p.sort_by_key(|&b| position(b));
        }
    }
}

/// Writes the result name an op suggests in the custom form (MLIR's
/// `getAsmResultNames`) into `name`; false when it suggests none. `spirv.Constant`
/// names its result after the value (`%true`, `%cst1_i32`, `%cst_f32`,
/// `%cst_vec_4xi32`).
/// Makes a suggested name a valid SSA name as MLIR's `sanitizeIdentifier` does: a
/// leading digit gets a `_` before it, a space becomes `_`, and any other byte that is
/// not alphanumeric or one of `$._-` becomes its hex digits (a symbol from a binary
/// can hold anything; `%entré_addr` would not read back).
fn sanitize_value_name(name: &mut String) {
    let valid = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'$' | b'.' | b'_' | b'-');
    let leading_digit = name.as_bytes().first().is_some_and(u8::is_ascii_digit);
    if !leading_digit && name.bytes().all(valid) {
        return;
    }
    let mut out = String::with_capacity(name.len() + 8);
    if leading_digit {
        out.push('_');
    }
    for b in name.bytes() {
        if valid(b) {
            out.push(char::from(b));
        } else if b == b' ' {
            out.push('_');
        } else {
            let _ = write!(out, "{b:X}");
        }
    }
    *name = out;
}

/// The ops that suggest result names, interned once (comparing interned names is
/// comparing two small integers), and the definition indices of the SPIR-V ones.
fn naming_ops() -> &'static ([crate::ir::OpName; 3], [Option<usize>; 2]) {
    static OPS: std::sync::OnceLock<([crate::ir::OpName; 3], [Option<usize>; 2])> =
        std::sync::OnceLock::new();
    OPS.get_or_init(|| {
        let names = ["spirv.mlir.addressof", "arith.constant", "spirv.Constant"].map(crate::ir::OpName::new);
        let indices = [names[0].def_index(), names[2].def_index()];
        (names, indices)
    })
}

/// For a `spirv.Constant` with one result, what its suggested name depends on (see
/// [`suggested_result_name`]).
fn constant_key(ir: &Ir, op: OpId) -> Option<ConstantKey> {
    let o = ir.op(op);
    let (_, [_, constant_index]) = naming_ops();
    if o.name.def_index().is_none() || o.name.def_index() != *constant_index {
        return None;
    }
    let [result] = o.results[..] else { return None };
    let value = match o.attr("value") {
        Some(Attribute::Integer { value, .. }) => Some(*value),
        _ => None,
    };
    Some((value, ir.value_type(result)))
}

fn suggested_result_name(ir: &Ir, op: OpId, name: &mut String, types: &mut TypeTexts) -> bool {
    let o = ir.op(op);
    let ([addressof, arith_constant, constant], spirv_indices) = naming_ops();
    // Most ops are of the dialect and suggest nothing: one index against two.
    match o.name.def_index() {
        Some(index) if !spirv_indices.contains(&Some(index)) => return false,
        Some(_) => {}
        None if o.name != *arith_constant => return false,
        None => {}
    }
    if o.name == *addressof {
        if let Some(Attribute::SymbolRef(path)) = o.attr("variable") {
            let Some(v) = path.last() else { return false };
            name.push_str(v);
            name.push_str("_addr");
            return true;
        }
    }
    if o.name == *arith_constant && o.results.len() == 1 {
        let ty = ir.value_type(o.results[0]);
        match (o.attr("value"), ir.types.kind(ty)) {
            (Some(Attribute::Integer { value, .. }), TypeKind::Integer { width: 1, .. }) => {
                name.push_str(if *value != 0 { "true" } else { "false" })
            }
            (Some(Attribute::Integer { value, .. }), TypeKind::Index) => {
                name.push('c');
                push_i128(name, *value);
            }
            (Some(Attribute::Integer { value, .. }), _) => {
                name.push('c');
                push_i128(name, *value);
                name.push('_');
                types.write(ir, ty, name);
            }
            _ => name.push_str("cst"),
        }
        return true;
    }
    if o.name != *constant || o.results.len() != 1 {
        return false;
    }
    let ty = ir.value_type(o.results[0]);
    match (o.attr("value"), ir.types.kind(ty)) {
        (Some(Attribute::Integer { value, .. }), TypeKind::Integer { width: 1, .. }) => {
            name.push_str(if *value != 0 { "true" } else { "false" });
            return true;
        }
        (Some(Attribute::Integer { value, .. }), _) => {
            name.push_str("cst");
            push_i128(name, *value);
        }
        _ => name.push_str("cst"),
    }
    match ir.types.kind(ty) {
        TypeKind::Integer { .. } | TypeKind::Float(_) => {
            name.push('_');
            types.write(ir, ty, name);
        }
        TypeKind::Vector { shape, element, .. } => {
            name.push_str("_vec_");
            push_i128(name, i128::from(shape.first().copied().unwrap_or(0)));
            if matches!(ir.types.kind(*element), TypeKind::Integer { .. } | TypeKind::Float(_)) {
                name.push('x');
                types.write(ir, *element, name);
            }
        }
        _ => {}
    }
    true
}

/// `name = value`, or just `name` for unit attributes.
pub fn write_attr_entry(ir: &Ir, a: &NamedAttribute, out: &mut String) {
    write_attr_entry_in(ir, a, out, &mut TypeTexts::uncached());
}

fn write_attr_entry_in(ir: &Ir, a: &NamedAttribute, out: &mut String, types: &mut TypeTexts) {
    if is_bare_identifier(&a.name) {
        out.push_str(&a.name);
    } else {
        write_escaped(a.name.as_bytes(), out);
    }
    if a.value != Attribute::Unit {
        out.push_str(" = ");
        write_attribute_in(ir, &a.value, out, types);
    }
}

/// A string literal as `lexer::write_escaped` writes it; text with nothing to escape
/// (the common case) is copied in one piece.
fn write_string_literal(text: &str, out: &mut String) {
    if text.bytes().all(|c| matches!(c, 0x20..=0x7e) && c != b'"' && c != b'\\') {
        out.push('"');
        out.push_str(text);
        out.push('"');
    } else {
        write_escaped(text.as_bytes(), out);
    }
}

fn is_bare_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.'))
}

pub fn type_to_string(ir: &Ir, t: Type) -> String {
    let mut s = String::new();
    write_type(ir, t, &mut s);
    s
}

pub fn attribute_to_string(ir: &Ir, a: &Attribute) -> String {
    let mut s = String::new();
    write_attribute(ir, a, &mut s);
    s
}

fn dims(shape: &[Option<u64>], out: &mut String) {
    for d in shape {
        match d {
            Some(n) => {
                let _ = write!(out, "{n}x");
            }
            None => out.push_str("?x"),
        }
    }
}

fn decorations(list: &[(String, Option<String>)], out: &mut String) {
    for (i, (name, value)) in list.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(name);
        if let Some(v) = value {
            let _ = write!(out, "={v}");
        }
    }
}

fn struct_body(ir: &Ir, body: &StructBody, out: &mut String) {
    out.push('(');
    for (i, m) in body.members.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_type(ir, m.ty, out);
        if m.offset.is_some() || !m.decorations.is_empty() {
            out.push_str(" [");
            if let Some(o) = m.offset {
                let _ = write!(out, "{o}");
                if !m.decorations.is_empty() {
                    out.push_str(", ");
                }
            }
            decorations(&m.decorations, out);
            out.push(']');
        }
    }
    out.push(')');
    if !body.decorations.is_empty() {
        out.push_str(", ");
        decorations(&body.decorations, out);
    }
}

/// Types as MLIR prints them.
pub fn write_type(ir: &Ir, t: Type, out: &mut String) {
    write_type_in(ir, t, out, &mut Vec::new());
}

fn write_type_in(ir: &Ir, t: Type, out: &mut String, structs_in_progress: &mut Vec<String>) {
    match ir.types.kind(t) {
        TypeKind::Integer { width, signedness } => {
            let prefix = match signedness {
                Signedness::Signless => "i",
                Signedness::Signed => "si",
                Signedness::Unsigned => "ui",
            };
            out.push_str(prefix);
            push_u32(out, *width);
        }
        TypeKind::Float(k) => out.push_str(k.keyword()),
        TypeKind::Index => out.push_str("index"),
        TypeKind::None => out.push_str("none"),
        TypeKind::Vector { shape, scalable, element } => {
            out.push_str("vector<");
            for (d, s) in shape.iter().zip(scalable) {
                if *s {
                    let _ = write!(out, "[{d}]x");
                } else {
                    let _ = write!(out, "{d}x");
                }
            }
            write_type_in(ir, *element, out, structs_in_progress);
            out.push('>');
        }
        TypeKind::Tensor { shape, element } => {
            out.push_str("tensor<");
            match shape {
                Some(s) => dims(s, out),
                None => out.push_str("*x"),
            }
            write_type_in(ir, *element, out, structs_in_progress);
            out.push('>');
        }
        TypeKind::MemRef { shape, element, memory_space } => {
            out.push_str("memref<");
            match shape {
                Some(s) => dims(s, out),
                None => out.push_str("*x"),
            }
            write_type_in(ir, *element, out, structs_in_progress);
            if let Some(ms) = memory_space {
                let _ = write!(out, ", {ms}");
            }
            out.push('>');
        }
        TypeKind::Complex(e) => {
            out.push_str("complex<");
            write_type_in(ir, *e, out, structs_in_progress);
            out.push('>');
        }
        TypeKind::Tuple(items) => {
            out.push_str("tuple<");
            for (i, &it) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type_in(ir, it, out, structs_in_progress);
            }
            out.push('>');
        }
        TypeKind::Function { inputs, results } => {
            out.push('(');
            for (i, &it) in inputs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type_in(ir, it, out, structs_in_progress);
            }
            out.push_str(") -> ");
            let wrap = results.len() != 1 || matches!(ir.types.kind(results[0]), TypeKind::Function { .. });
            if wrap {
                out.push('(');
            }
            for (i, &it) in results.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type_in(ir, it, out, structs_in_progress);
            }
            if wrap {
                out.push(')');
            }
        }
        TypeKind::Array { element, count, stride, spec_length } => {
            out.push_str("!spirv.array<");
            match spec_length {
                Some(length) => write_constant_expr(ir, length, out),
                None => {
                    let _ = write!(out, "{count}");
                }
            }
            out.push_str(" x ");
            write_type_in(ir, *element, out, structs_in_progress);
            if let Some(s) = stride {
                let _ = write!(out, ", stride={s}");
            }
            out.push('>');
        }
        TypeKind::RuntimeArray { element, stride, stride_id } => {
            out.push_str("!spirv.rtarray<");
            write_type_in(ir, *element, out, structs_in_progress);
            if let Some(s) = stride {
                let _ = write!(out, ", stride={s}");
            }
            if let Some(expr) = stride_id {
                out.push_str(", stride=");
                write_constant_expr(ir, expr, out);
            }
            out.push('>');
        }
        TypeKind::Pointer { pointee, storage_class, stride } => {
            out.push_str("!spirv.ptr<");
            write_type_in(ir, *pointee, out, structs_in_progress);
            let _ = write!(out, ", {storage_class}");
            if let Some(s) = stride {
                let _ = write!(out, ", stride={s}");
            }
            out.push('>');
        }
        TypeKind::Image { element, params } => {
            out.push_str("!spirv.image<");
            write_type_in(ir, *element, out, structs_in_progress);
            for p in params {
                let _ = write!(out, ", {p}");
            }
            out.push('>');
        }
        TypeKind::SampledImage(image) => {
            out.push_str("!spirv.sampled_image<");
            write_type_in(ir, *image, out, structs_in_progress);
            out.push('>');
        }
        TypeKind::Sampler => out.push_str("!spirv.sampler"),
        TypeKind::Matrix { column, columns } => {
            let _ = write!(out, "!spirv.matrix<{columns} x ");
            write_type_in(ir, *column, out, structs_in_progress);
            out.push('>');
        }
        TypeKind::CooperativeMatrix { rows, columns, element, scope, usage } => {
            let _ = write!(out, "!spirv.coopmatrix<{rows}x{columns}x");
            write_type_in(ir, *element, out, structs_in_progress);
            let _ = write!(out, ", {scope}, {usage}>");
        }
        TypeKind::LiteralStruct(body) => {
            out.push_str("!spirv.struct<");
            struct_body(ir, body, out);
            out.push('>');
        }
        TypeKind::IdentifiedStruct { name } => {
            out.push_str("!spirv.struct<");
            write_struct_name(name, out);
            if structs_in_progress.contains(name) {
                out.push('>');
                return;
            }
            out.push_str(", ");
            structs_in_progress.push(name.clone());
            let mut inner = String::new();
            match ir.types.struct_body(name) {
                Some(body) => {
                    inner.push('(');
                    for (i, m) in body.members.iter().enumerate() {
                        if i > 0 {
                            inner.push_str(", ");
                        }
                        write_type_in(ir, m.ty, &mut inner, structs_in_progress);
                        if m.offset.is_some() || !m.decorations.is_empty() {
                            inner.push_str(" [");
                            if let Some(o) = m.offset {
                                let _ = write!(inner, "{o}");
                                if !m.decorations.is_empty() {
                                    inner.push_str(", ");
                                }
                            }
                            decorations(&m.decorations, &mut inner);
                            inner.push(']');
                        }
                    }
                    inner.push(')');
                    if !body.decorations.is_empty() {
                        inner.push_str(", ");
                        decorations(&body.decorations, &mut inner);
                    }
                }
                None => inner.push_str("()"),
            }
            structs_in_progress.pop();
            out.push_str(&inner);
            out.push('>');
        }
        TypeKind::LlvmPointer { .. }
        | TypeKind::LlvmArray { .. }
        | TypeKind::LlvmStruct { .. }
        | TypeKind::LlvmVoid
        | TypeKind::LlvmFunction { .. } => {
            out.push_str("!llvm.");
            write_llvm_type_body(ir, t, out, structs_in_progress);
        }
        TypeKind::Opaque(text) => {
            out.push('!');
            out.push_str(text);
        }
    }
}

/// An LLVM dialect type without its `!llvm.` prefix, as the dialect prints the types
/// nested in its own (`!llvm.array<4 x struct<(i32, ptr)>>`); builtin types inside are
/// printed as usual.
fn write_llvm_type_body(ir: &Ir, t: Type, out: &mut String, structs_in_progress: &mut Vec<String>) {
    let nested = |t: Type, out: &mut String, structs_in_progress: &mut Vec<String>| {
        if is_llvm_type(ir, t) {
            write_llvm_type_body(ir, t, out, structs_in_progress);
        } else {
            write_type_in(ir, t, out, structs_in_progress);
        }
    };
    match ir.types.kind(t) {
        TypeKind::LlvmPointer { address_space } => {
            out.push_str("ptr");
            if *address_space != 0 {
                let _ = write!(out, "<{address_space}>");
            }
        }
        TypeKind::LlvmArray { count, element } => {
            let _ = write!(out, "array<{count} x ");
            nested(*element, out, structs_in_progress);
            out.push('>');
        }
        TypeKind::LlvmStruct { name, packed, members } => {
            out.push_str("struct<");
            if let Some(name) = name {
                out.push('"');
                out.push_str(name);
                out.push_str("\", ");
            }
            if *packed {
                out.push_str("packed ");
            }
            out.push('(');
            for (i, &m) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                nested(m, out, structs_in_progress);
            }
            out.push_str(")>");
        }
        TypeKind::LlvmVoid => out.push_str("void"),
        TypeKind::LlvmFunction { result, params, variadic } => {
            out.push_str("func<");
            nested(*result, out, structs_in_progress);
            out.push_str(" (");
            for (i, &p) in params.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                nested(p, out, structs_in_progress);
            }
            if *variadic {
                out.push_str(if params.is_empty() { "..." } else { ", ..." });
            }
            out.push_str(")>");
        }
        _ => write_type_in(ir, t, out, structs_in_progress),
    }
}

fn is_llvm_type(ir: &Ir, t: Type) -> bool {
    matches!(
        ir.types.kind(t),
        TypeKind::LlvmPointer { .. }
            | TypeKind::LlvmArray { .. }
            | TypeKind::LlvmStruct { .. }
            | TypeKind::LlvmVoid
            | TypeKind::LlvmFunction { .. }
    )
}

/// A constant an array type names by id (`@n`, `IAdd(@n, 1 : i32) : i32`,
/// `sizeof(!spirv.sampler) : i32`).
fn write_constant_expr(ir: &Ir, expr: &crate::types::ConstantExpr, out: &mut String) {
    use crate::types::ConstantExpr;
    match expr {
        ConstantExpr::Symbol(name) => write_attribute(ir, &Attribute::SymbolRef(vec![name.clone()]), out),
        // Always typed, so that `stride=4 : i64` does not read as a literal stride.
        ConstantExpr::Constant { value, ty } => {
            let _ = write!(out, "{value} : ");
            write_type(ir, *ty, out);
        }
        ConstantExpr::SizeOf { of, ty } => {
            out.push_str("sizeof(");
            write_type(ir, *of, out);
            out.push_str(") : ");
            write_type(ir, *ty, out);
        }
        ConstantExpr::Operation { name, operands, ty } => {
            out.push_str(name);
            out.push('(');
            for (i, operand) in operands.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_constant_expr(ir, operand, out);
            }
            out.push_str(") : ");
            write_type(ir, *ty, out);
        }
    }
}

/// A float as MLIR prints it: `%e` with 6 digits when that reads back exactly,
/// else the shortest exact decimal, else the bits in hex.
pub fn write_float(value: f64, kind: FloatKind, out: &mut String) {
    if !write_small_integral_float(value, out) {
        write_float_general(value, kind, out);
    }
}

/// `APFloat::toString(str, 6, 0, false)` of an f32/f64 value, digit for digit: the exact
/// decimal expansion is first cut down to about 20 bits by *truncating* decimal digits,
/// then rounded half-up to six significant digits. The truncation is why MLIR prints
/// `0.899999976` for 0.9f (`8.999990e-01` does not read back as 0.9f).
fn apfloat_scientific(value: f64, kind: FloatKind) -> String {
    const PRECISION: usize = 6;
    let (negative, digits, exp) = apfloat_digits(value, kind, PRECISION);
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    let Some(n) = std::num::NonZeroUsize::new(digits.len()).map(|n| n.get()) else {
        out.push_str("0.000000e+00");
        return out;
    };
    let exp = exp + n as i32 - 1;
    out.push(char::from(b'0' + digits[n - 1]));
    out.push('.');
    for i in (0..n - 1).rev() {
        out.push(char::from(b'0' + digits[i]));
    }
    for _ in n - 1..PRECISION {
        out.push('0');
    }
    let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs());
    out
}

/// `APFloat::toString(str)` (the type's natural precision, padding up to three zeros,
/// trailing zeros dropped) of an f32/f64 value.
fn apfloat_natural(value: f64, kind: FloatKind) -> String {
    const MAX_PADDING: i32 = 3;
    let precision = if kind == FloatKind::F32 { 9 } else { 17 };
    let (negative, digits, exp) = apfloat_digits(value, kind, precision);
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    let n = digits.len() as i32;
    if n == 0 {
        out.push_str("0.0E+0");
        return out;
    }
    let digit = |i: i32| char::from(b'0' + digits[i as usize]);
    let scientific = if exp >= 0 {
        exp > MAX_PADDING || n + exp > precision as i32
    } else {
        let msd = exp + n - 1;
        msd < 0 && -msd > MAX_PADDING
    };
    if scientific {
        let e = exp + n - 1;
        out.push(digit(n - 1));
        out.push('.');
        if n == 1 {
            out.push('0');
        }
        for i in (0..n - 1).rev() {
            out.push(digit(i));
        }
        let _ = write!(out, "E{}{}", if e < 0 { '-' } else { '+' }, e.unsigned_abs());
    } else if exp >= 0 {
        for i in (0..n).rev() {
            out.push(digit(i));
        }
        for _ in 0..exp {
            out.push('0');
        }
    } else {
        let whole = exp + n;
        let mut i = 0;
        if whole > 0 {
            while i != whole {
                out.push(digit(n - i - 1));
                i += 1;
            }
            out.push('.');
        } else {
            out.push_str("0.");
            for _ in 0..-whole {
                out.push('0');
            }
        }
        while i != n {
            out.push(digit(n - i - 1));
            i += 1;
        }
    }
    out
}

/// The decimal digits (least significant first) and exponent APFloat prints for an
/// f32/f64 value at `precision` significant digits: the exact expansion cut down by
/// truncating whole decimal digits to about `precision * log2(10)` bits, then rounded
/// half-up (APFloat's `AdjustToPrecision`, both steps).
fn apfloat_digits(value: f64, kind: FloatKind, precision: usize) -> (bool, Vec<u8>, i32) {
    let (negative, mut significand, mut exp) = if kind == FloatKind::F32 {
        let bits = (value as f32).to_bits();
        let field = ((bits >> 23) & 0xff) as i32;
        let fraction = u64::from(bits & 0x7f_ffff);
        let (sig, e) = if field == 0 { (fraction, -149) } else { (fraction | 1 << 23, field - 150) };
        (bits >> 31 != 0, sig, e)
    } else {
        let bits = value.to_bits();
        let field = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1 << 52) - 1);
        let (sig, e) = if field == 0 { (fraction, -1074) } else { (fraction | 1 << 52, field - 1075) };
        (bits >> 63 != 0, sig, e)
    };
    if significand == 0 {
        return (negative, Vec::new(), 0);
    }
    let zeros = significand.trailing_zeros();
    significand >>= zeros;
    exp += zeros as i32;
    // The value is `number * 10^exp`, `number` an exact big integer (little-endian limbs).
    let mut number: Vec<u32> = vec![significand as u32, (significand >> 32) as u32];
    if exp > 0 {
        for _ in 0..exp {
            big_mul_small(&mut number, 2);
        }
        exp = 0;
    } else {
        for _ in 0..-exp {
            big_mul_small(&mut number, 5);
        }
    }
    let bits = big_bit_len(&number);
    let bits_required = (precision * 196).div_ceil(59);
    if bits > bits_required {
        let removable = (bits - bits_required) * 59 / 196;
        for _ in 0..removable {
            big_div_small(&mut number, 10);
        }
        exp += removable as i32;
    }
    let mut digits: Vec<u8> = Vec::new();
    while number.iter().any(|&l| l != 0) {
        let d = big_div_small(&mut number, 10) as u8;
        if digits.is_empty() && d == 0 {
            exp += 1;
        } else {
            digits.push(d);
        }
    }
    if digits.len() > precision {
        let count = digits.len();
        let mut first = count - precision;
        if digits[first - 1] < 5 {
            while first < count && digits[first] == 0 {
                first += 1;
            }
            exp += first as i32;
            digits.drain(..first);
        } else {
            // Decimal add-with-carry; the nines carried through are dropped.
            let nines = digits[first..].iter().take_while(|&&d| d == 9).count();
            first += nines;
            let carried_out = first == count;
            if let Some(d) = digits.get_mut(first) {
                *d += 1;
            }
            exp += first as i32;
            if carried_out {
                digits = vec![1];
            } else {
                digits.drain(..first);
            }
        }
    }
    (negative, digits, exp)
}

fn big_mul_small(number: &mut Vec<u32>, factor: u32) {
    let mut carry = 0u64;
    for limb in number.iter_mut() {
        let v = u64::from(*limb) * u64::from(factor) + carry;
        *limb = v as u32;
        carry = v >> 32;
    }
    if carry != 0 {
        number.push(carry as u32);
    }
}

/// Divides in place, returning the remainder.
fn big_div_small(number: &mut [u32], divisor: u32) -> u32 {
    let mut rest = 0u64;
    for limb in number.iter_mut().rev() {
        let v = (rest << 32) | u64::from(*limb);
        *limb = (v / u64::from(divisor)) as u32;
        rest = v % u64::from(divisor);
    }
    rest as u32
}

fn big_bit_len(number: &[u32]) -> usize {
    match number.iter().rposition(|&l| l != 0) {
        Some(top) => top * 32 + (32 - number[top].leading_zeros() as usize),
        None => 0,
    }
}

fn write_float_general(value: f64, kind: FloatKind, out: &mut String) {
    if value.is_finite() {
        let text = match kind {
            FloatKind::F32 | FloatKind::F64 => apfloat_scientific(value, kind),
            _ => {
                let short = format!("{value:.6e}");
                let (mantissa, exp) = short.split_once('e').expect("e format");
                let exp: i32 = exp.parse().expect("exponent");
                format!("{mantissa}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
            }
        };
        let round_trips = match kind {
            FloatKind::F64 => text.parse::<f64>().ok() == Some(value),
            _ => text.parse::<f32>().ok().map(|v| v as f64) == Some(value),
        };
        if round_trips {
            out.push_str(&text);
            return;
        }
        if matches!(kind, FloatKind::F32 | FloatKind::F64) {
            let natural = apfloat_natural(value, kind);
            if natural.contains('.') {
                out.push_str(&natural);
                return;
            }
        } else {
            // APFloat's default form: the type's natural precision, trailing zeros dropped.
            let digits = 9;
            let mut natural = String::new();
            spirvkit_binary::numfmt::write_general(&mut natural, value, digits);
            if natural.contains('.') {
                match natural.split_once('e') {
                    Some((mantissa, exp)) => {
                        let exp: i32 = exp.parse().unwrap_or(0);
                        let _ = write!(
                            out,
                            "{mantissa}E{}{}",
                            if exp < 0 { '-' } else { '+' },
                            exp.unsigned_abs()
                        );
                    }
                    None => out.push_str(&natural),
                }
                return;
            }
        }
    }
    match kind {
        FloatKind::F64 => {
            let _ = write!(out, "0x{:016X}", value.to_bits());
        }
        FloatKind::F32 => {
            let _ = write!(out, "0x{:08X}", (value as f32).to_bits());
        }
        _ => {
            let _ = write!(out, "0x{:04X}", half_bits(value as f32));
        }
    }
}

/// `%e` with 6 digits for a whole number of at most 7 digits (`2.000000e+00`): the
/// text is the exact value, so it reads back exactly as f32 and f64, which is what
/// the general path checks. Returns false for other values.
fn write_small_integral_float(value: f64, out: &mut String) -> bool {
    let magnitude = value.abs();
    if !value.is_finite() || magnitude >= 1e7 || magnitude.fract() != 0.0 {
        return false;
    }
    let mut n = magnitude as u32;
    // Seven significant digits do not fit APFloat's six (`6591566.0` is printed in hex).
    if n >= 1_000_000 && !n.is_multiple_of(10) {
        return false;
    }
    let mut digits = [b'0'; 7];
    let mut count = 0;
    while n > 0 {
        digits[count] = b'0' + (n % 10) as u8;
        n /= 10;
        count += 1;
    }
    if value.is_sign_negative() {
        out.push('-');
    }
    // The digits, most significant first, padded to seven.
    let mut mantissa = [b'0'; 7];
    for i in 0..count {
        mantissa[i] = digits[count - 1 - i];
    }
    out.push(char::from(mantissa[0]));
    out.push('.');
    for &d in &mantissa[1..] {
        out.push(char::from(d));
    }
    out.push_str("e+0");
    out.push(char::from(b'0' + count.saturating_sub(1) as u8));
    true
}

fn half_bits(v: f32) -> u16 {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if v.is_nan() {
        return sign | 0x7e00;
    }
    if v.is_infinite() {
        return sign | 0x7c00;
    }
    sign | 0x7c00
}

/// Attributes as MLIR prints them.
pub fn write_attribute(ir: &Ir, a: &Attribute, out: &mut String) {
    write_attribute_in(ir, a, out, &mut TypeTexts::uncached());
}

fn write_attribute_in(ir: &Ir, a: &Attribute, out: &mut String, types: &mut TypeTexts) {
    match a {
        Attribute::Unit => out.push_str("unit"),
        Attribute::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Attribute::Integer { value, ty } => {
            let is_bool = matches!(ir.types.kind(*ty), TypeKind::Integer { width: 1, .. });
            if is_bool {
                out.push_str(if *value != 0 { "true" } else { "false" });
                return;
            }
            push_i128(out, *value);
            out.push_str(" : ");
            types.write(ir, *ty, out);
        }
        Attribute::Float { value, ty } => {
            let kind = match ir.types.kind(*ty) {
                TypeKind::Float(k) => *k,
                _ => FloatKind::F64,
            };
            write_float(*value, kind, out);
            out.push_str(" : ");
            types.write(ir, *ty, out);
        }
        Attribute::String(s) => write_string_literal(s, out),
        Attribute::Type(t) => types.write(ir, *t, out),
        Attribute::Array(items) => {
            out.push('[');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                // MLIR elides the type of i64 integers inside arrays (`[5, 6]`).
                match it {
                    Attribute::Integer { value, ty }
                        if matches!(
                            ir.types.kind(*ty),
                            TypeKind::Integer { width: 64, signedness: crate::types::Signedness::Signless }
                        ) =>
                    {
                        push_i128(out, *value)
                    }
                    _ => write_attribute_in(ir, it, out, types),
                }
            }
            out.push(']');
        }
        Attribute::Dictionary(entries) => {
            out.push('{');
            for (i, e) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_attr_entry_in(ir, e, out, types);
            }
            out.push('}');
        }
        Attribute::SymbolRef(path) => {
            for (i, p) in path.iter().enumerate() {
                if i > 0 {
                    out.push_str("::");
                }
                out.push('@');
                if is_bare_identifier(p) {
                    out.push_str(p);
                } else {
                    write_escaped(p.as_bytes(), out);
                }
            }
        }
        Attribute::Dense { elements, ty } => {
            out.push_str("dense<");
            write_dense_elements(ir, elements, *ty, out);
            out.push_str("> : ");
            types.write(ir, *ty, out);
        }
        Attribute::DenseArray { element, values } => {
            out.push_str("array<");
            types.write(ir, *element, out);
            if !values.is_empty() {
                out.push_str(": ");
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_element(ir, v, out);
                }
            }
            out.push('>');
        }
        Attribute::Dialect { name, body } => {
            out.push('#');
            out.push_str(name);
            if let Some(b) = body {
                out.push('<');
                out.push_str(b);
                out.push('>');
            }
        }
    }
}

/// Decimal digits of `n`, without `fmt`'s machinery.
pub(crate) fn push_i128(out: &mut String, n: i128) {
    if n < 0 {
        out.push('-');
    }
    let magnitude = n.unsigned_abs();
    // Most values fit 64 bits, whose division is much cheaper than 128-bit division.
    if let Ok(small) = u64::try_from(magnitude) {
        push_u64(out, small);
        return;
    }
    let mut magnitude = magnitude;
    let mut digits = [0u8; 40];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}

/// One element of a dense attribute, without its type.
fn write_element(ir: &Ir, a: &Attribute, out: &mut String) {
    match a {
        Attribute::Integer { value, ty } => {
            if matches!(ir.types.kind(*ty), TypeKind::Integer { width: 1, .. }) {
                out.push_str(if *value != 0 { "true" } else { "false" });
            } else {
                push_i128(out, *value);
            }
        }
        Attribute::Float { value, ty } => {
            let kind = match ir.types.kind(*ty) {
                TypeKind::Float(k) => *k,
                _ => FloatKind::F64,
            };
            write_float(*value, kind, out);
        }
        Attribute::String(s) => out.push_str(s),
        other => write_attribute(ir, other, out),
    }
}

fn write_dense_elements(ir: &Ir, elements: &[Attribute], ty: Type, out: &mut String) {
    let shape: Vec<u64> = match ir.types.kind(ty) {
        TypeKind::Vector { shape, .. } => shape.clone(),
        TypeKind::Tensor { shape: Some(s), .. } => s.iter().map(|d| d.unwrap_or(0)).collect(),
        TypeKind::Opaque(text) => {
            crate::types::arm_tensor_parts(text).map(|(shape, _)| shape).unwrap_or_default()
        }
        _ => vec![],
    };
    let splat = elements.len() == 1 || elements.windows(2).all(|w| w[0] == w[1]) && !elements.is_empty();
    if splat && shape.iter().product::<u64>() != 1 || elements.len() == 1 {
        write_element(ir, &elements[0], out);
        return;
    }
    fn nest(ir: &Ir, elements: &[Attribute], shape: &[u64], out: &mut String) {
        if shape.is_empty() {
            if let Some(e) = elements.first() {
                write_element(ir, e, out);
            }
            return;
        }
        let inner: u64 = shape[1..].iter().product();
        out.push('[');
        for i in 0..shape[0] as usize {
            if i > 0 {
                out.push_str(", ");
            }
            let start = i * inner as usize;
            let end = (start + inner as usize).min(elements.len());
            nest(ir, &elements[start.min(end)..end], &shape[1..], out);
        }
        out.push(']');
    }
    if shape.is_empty() {
        if let Some(e) = elements.first() {
            write_element(ir, e, out);
        }
    } else {
        nest(ir, elements, &shape, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_info_prints_each_op_location() {
        let text = "spirv.module Logical GLSL450 {\n  spirv.func @f() \"None\" {\n    spirv.Return\n  }\n}\n";
        let (ir, top) = crate::parse(text, "t.mlir").expect("parses");
        let printed = print_op(&ir, top, PrintOptions { debug_info: true, ..PrintOptions::default() });
        assert!(printed.contains("    spirv.Return loc(\"t.mlir\":3:5)\n"), "{printed}");
        assert!(printed.contains("  } loc(\"t.mlir\":2:3)\n"), "{printed}");
        assert!(!print_op(&ir, top, PrintOptions::default()).contains("loc("));
    }

    #[test]
    fn suggested_names_are_sanitized_as_mlir_does() {
        for (name, sanitized) in [
            ("input.color_addr", "input.color_addr"),
            ("9lives_addr", "_9lives_addr"),
            ("entr\u{e9}e_addr", "entrC3A9e_addr"),
            ("a b_addr", "a_b_addr"),
        ] {
            let mut text = name.to_string();
            sanitize_value_name(&mut text);
            assert_eq!(text, sanitized);
        }
        let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n  \
                    spirv.GlobalVariable @\"caf\\C3\\A9 1\" : !spirv.ptr<f32, Private>\n  \
                    spirv.func @f() \"None\" {\n    \
                    %0 = spirv.mlir.addressof @\"caf\\C3\\A9 1\" : !spirv.ptr<f32, Private>\n    \
                    spirv.Return\n  }\n}\n";
        let (ir, top) = crate::parse(text, "t.mlir").expect("parses");
        let printed = print_op(&ir, top, PrintOptions::default());
        assert!(printed.contains("%cafC3A9_1_addr = spirv.mlir.addressof"), "{printed}");
        crate::parse(&printed, "t.mlir").expect("reads its own output");
    }

    #[test]
    fn names_stay_scoped_when_a_value_is_used_outside_its_region() {
        // `f1` uses a value of `f2` (IR that does not verify), so `f2`'s region is named
        // while `f1` prints, before `f1`'s nested region: that region must still see
        // `f1`'s names, as when every region is named upfront.
        let mut ir = Ir::new();
        let i32t = ir.types.integer(32, Signedness::Signless);
        let region_op = |ir: &mut Ir, name: &str, parent: Option<BlockId>| {
            let op = ir.create_op(name, vec![], &[], Location::Unknown);
            if let Some(parent) = parent {
                ir.append_op(parent, op);
            }
            let region = ir.add_region(op);
            let block = ir.create_block();
            ir.append_block(region, block);
            (op, block)
        };
        let constant = |ir: &mut Ir, block: BlockId| {
            let c = ir.create_op("spirv.Constant", vec![], &[i32t], Location::Unknown);
            ir.set_property(c, "value", Attribute::Integer { value: 1, ty: i32t });
            ir.append_op(block, c);
            ir.op(c).results[0]
        };
        let (top, body) = region_op(&mut ir, "builtin.module", None);
        let (_, f1) = region_op(&mut ir, "x.f", Some(body));
        let (_, f2) = region_op(&mut ir, "x.f", Some(body));
        constant(&mut ir, f1);
        let of_f2 = constant(&mut ir, f2);
        let user = ir.create_op("x.use", vec![of_f2], &[], Location::Unknown);
        ir.append_op(f1, user);
        let (_, nested) = region_op(&mut ir, "x.r", Some(f1));
        constant(&mut ir, nested);
        let by_region = print_op(&ir, top, PrintOptions { threads: 1, ..PrintOptions::default() });
        let mut upfront = Printer::new(&ir, Names::new(&ir, top, false), PrintOptions::default());
        upfront.operation(top);
        assert_eq!(by_region.trim_end(), upfront.out, "{by_region}");
        assert!(by_region.contains("%cst1_i32_0 = spirv.Constant 1 : i32\n    }"), "{by_region}");
    }

    #[test]
    fn functions_printed_on_several_threads_read_as_on_one() {
        let mut text =
            String::from("spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n");
        text.push_str("  spirv.GlobalVariable @g : !spirv.ptr<f32, Private>\n");
        for f in 0..40 {
            text.push_str(&format!(
                "  spirv.func @f{f}(%a: i32, %b: f32) -> f32 \"None\" {{\n\
                 %c = spirv.Constant {f} : i32\n\
                 %d = spirv.Constant {f} : i32\n\
                 %p = spirv.mlir.addressof @g : !spirv.ptr<f32, Private>\n\
                 %s = spirv.IAdd %a, %c : i32\n\
                 %t = spirv.SLessThan %s, %d : i32\n\
                 spirv.mlir.selection {{\n\
                 spirv.BranchConditional %t, ^bb1, ^bb2\n\
                 ^bb1:\n\
                 %u = spirv.FAdd %b, %b : f32\n\
                 spirv.Store \"Private\" %p, %u : f32\n\
                 spirv.Branch ^bb2\n\
                 ^bb2:\n\
                 spirv.mlir.merge\n\
                 }}\n\
                 %v = spirv.Load \"Private\" %p : f32\n\
                 spirv.ReturnValue %v : f32\n\
                 }}\n"
            ));
        }
        text.push_str("}\n");
        // A block of ops with results split over threads: one long function.
        text.push_str("spirv.module Logical GLSL450 {\n  spirv.func @long(%a: i32) -> i32 \"None\" {\n");
        text.push_str("    %v0 = spirv.Constant 0 : i32\n");
        for i in 1..60 {
            text.push_str(&format!("    %v{i} = spirv.IAdd %v{}, %a : i32\n", i - 1));
        }
        text.push_str("    spirv.ReturnValue %v59 : i32\n  }\n}\n");
        let (ir, top) = crate::parse(&text, "t.mlir").expect("parses");
        for debug_info in [false, true] {
            let one = print_op(&ir, top, PrintOptions { threads: 1, debug_info, ..PrintOptions::default() });
            assert!(one.contains("%cst0_i32_0"), "{one}");
            for threads in [2, 3, 7] {
                let several =
                    print_op(&ir, top, PrintOptions { threads, debug_info, ..PrintOptions::default() });
                assert_eq!(several, one, "{threads} threads");
            }
        }
    }

    #[test]
    fn debug_info_prints_argument_locations_as_mlir_opt() {
        // Expected lines: mlir-opt-22 --mlir-print-debuginfo --mlir-print-local-scope.
        let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n\
                    \x20 spirv.func @f(%a: i32 loc(\"x.c\":1:2), %b: f32) -> i32 \"None\" {\n\
                    \x20   spirv.Branch ^bb1(%a, %a : i32, i32) loc(\"x.c\":3:4)\n\
                    \x20 ^bb1(%p: i32 loc(\"x.c\":5:6), %q: i32):\n\
                    \x20   spirv.ReturnValue %p : i32\n\
                    \x20 } loc(\"x.c\":9:9)\n\
                    \x20 spirv.func @g(%x: i32 loc(fused[\"a.c\":1:1, \"b.c\":2:2]), %y: i32 loc(unknown)) \"None\" {\n\
                    \x20   spirv.Return\n\
                    \x20 }\n\
                    }\n";
        let (ir, top) = crate::parse(text, "loc.mlir").expect("parses");
        let debug = PrintOptions { debug_info: true, ..PrintOptions::default() };
        let printed = print_op(&ir, top, debug);
        for line in [
            "    spirv.func @f(%arg0: i32 loc(\"x.c\":1:2), %arg1: f32 loc(\"loc.mlir\":2:41)) -> i32 \"None\" {\n",
            "    ^bb1(%0: i32 loc(\"x.c\":5:6), %1: i32 loc(\"loc.mlir\":4:32)):  // pred: ^bb0\n",
            "    spirv.func @g(%arg0: i32 loc(fused[\"a.c\":1:1, \"b.c\":2:2]), %arg1: i32 loc(unknown)) \"None\" {\n",
        ] {
            assert!(printed.contains(line), "{line}\n{printed}");
        }
        let generic = print_op(&ir, top, PrintOptions { generic: true, ..debug });
        let entry = "^bb0(%arg2: i32 loc(\"x.c\":1:2), %arg3: f32 loc(\"loc.mlir\":2:41)):\n";
        assert!(generic.contains(entry), "{generic}");
        // Arguments made without a location (by a pass, the deserializer) are unknown.
        let mut ir = Ir::new();
        let module = ir.create_op("builtin.module", vec![], &[], Location::Unknown);
        let region = ir.add_region(module);
        let block = ir.create_block();
        ir.append_block(region, block);
        let i32_type = ir.types.integer(32, Signedness::Signless);
        let func = ir.create_op("func.func", vec![], &[], Location::Unknown);
        let function_type = ir.types.intern(TypeKind::Function { inputs: vec![i32_type], results: vec![] });
        ir.op_mut(func).properties = vec![
            NamedAttribute::new("function_type", Attribute::Type(function_type)),
            NamedAttribute::new("sym_name", Attribute::String("h".into())),
        ];
        let body = ir.add_region(func);
        let entry = ir.create_block();
        ir.append_block(body, entry);
        ir.add_block_argument(entry, i32_type, Location::Unknown);
        let ret = ir.create_op("func.return", vec![], &[], Location::Unknown);
        ir.append_op(entry, ret);
        ir.append_op(block, func);
        let printed = print_op(&ir, module, debug);
        assert!(printed.contains("func.func @h(%arg0: i32 loc(unknown)) {\n"), "{printed}");
    }

    #[test]
    fn name_locations_read_and_print_as_mlir_opt() {
        // Expected lines: mlir-opt-22 --mlir-print-debuginfo --mlir-print-local-scope.
        let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n\
                    \x20 spirv.func @f(%a: i32 loc(\"param.var.x\"), %b: i32 loc(\"b\"(\"x.c\":1:2))) -> i32 \"None\" {\n\
                    \x20   %0 = spirv.IAdd %a, %b : i32 loc(\"sum\")\n\
                    \x20   %1 = spirv.IAdd %0, %b : i32 loc(\"q\\\"uote\\0A\"(fused[\"a.c\":1:1, \"b.c\":2:2]))\n\
                    \x20   %2 = spirv.IAdd %1, %b : i32 loc(\"x.c\":7:8)\n\
                    \x20   spirv.ReturnValue %2 : i32 loc(\"n\"(unknown))\n\
                    \x20 } loc(\"f\"(\"x.c\":9:9))\n\
                    }\n";
        let (ir, top) = crate::parse(text, "nl.mlir").expect("parses");
        let debug = PrintOptions { debug_info: true, ..PrintOptions::default() };
        let printed = print_op(&ir, top, debug);
        for line in [
            "spirv.func @f(%arg0: i32 loc(\"param.var.x\"), %arg1: i32 loc(\"b\"(\"x.c\":1:2))) -> i32 \"None\" {\n",
            "%0 = spirv.IAdd %arg0, %arg1 : i32 loc(\"sum\")\n",
            "%1 = spirv.IAdd %0, %arg1 : i32 loc(\"q\\22uote\\0A\"(fused[\"a.c\":1:1, \"b.c\":2:2]))\n",
            "%2 = spirv.IAdd %1, %arg1 : i32 loc(\"x.c\":7:8)\n",
            "spirv.ReturnValue %2 : i32 loc(\"n\")\n",
            "} loc(\"f\"(\"x.c\":9:9))\n",
        ] {
            assert!(printed.contains(line), "{line}\n{printed}");
        }
        // The names are names, the other forms are not.
        let func = ir.entry_block(top).map(|b| ir.block(b).ops[0]).expect("spirv.module");
        let func = ir.entry_block(func).map(|b| ir.block(b).ops[0]).expect("spirv.func");
        let entry = ir.entry_block(func).expect("entry");
        let names: Vec<Option<&str>> =
            ir.block(entry).ops.iter().map(|&op| ir.op(op).location.debug_name()).collect();
        assert_eq!(names, [Some("sum"), Some("q\"uote\n"), None, Some("n")]);
        let arguments = &ir.block(entry).argument_locations;
        assert_eq!(arguments[0], Location::named("param.var.x"));
        assert_eq!(arguments[1].debug_name(), Some("b"));
        // Read back, the text is the same.
        let (again, top) = crate::parse(&printed, "nl.mlir").expect("reads its own output");
        assert_eq!(print_op(&again, top, debug), printed);
    }

    #[test]
    fn name_locations_made_by_a_caller_print_with_their_child() {
        let mut ir = Ir::new();
        let module = ir.create_op("builtin.module", vec![], &[], Location::Unknown);
        let region = ir.add_region(module);
        let block = ir.create_block();
        ir.append_block(region, block);
        let at = Location::FileLineCol { file: "a.hlsl".into(), line: 3, column: 5 };
        let nested = Location::named_at("outer", Location::named_at("inner", at.clone()));
        assert_eq!(nested.file_line_col(), Some(("a.hlsl", 3, 5)));
        for (location, printed) in [
            (Location::named("bb.entry"), "loc(\"bb.entry\")"),
            (Location::named_at("x", Location::Unknown), "loc(\"x\")"),
            (Location::named_at("x", at), "loc(\"x\"(\"a.hlsl\":3:5))"),
            (nested, "loc(\"outer\"(\"inner\"(\"a.hlsl\":3:5)))"),
        ] {
            let op = ir.create_op("x.op", vec![], &[], location);
            ir.block_mut(block).ops = vec![op];
            ir.op_mut(op).parent = Some(block);
            let text = print_op(
                &ir,
                module,
                PrintOptions { debug_info: true, generic: true, ..PrintOptions::default() },
            );
            assert!(text.contains(&format!("\"x.op\"() : () -> () {printed}\n")), "{text}");
        }
    }

    #[test]
    fn struct_names_that_are_not_keywords_are_quoted_and_read_back() {
        let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n  \
                    spirv.GlobalVariable @v : !spirv.ptr<!spirv.struct<\"S<float, 4>\", (f32 [0])>, Uniform>\n  \
                    spirv.GlobalVariable @w : !spirv.ptr<!spirv.struct<Plain_1.x, (f32 [0])>, Uniform>\n}\n";
        let (ir, top) = crate::parse(text, "t.mlir").expect("parses");
        let printed = print_op(&ir, top, PrintOptions::default());
        assert!(printed.contains("!spirv.struct<\"S<float, 4>\", (f32 [0])>"), "{printed}");
        assert!(printed.contains("!spirv.struct<Plain_1.x, (f32 [0])>"), "{printed}");
        let (again, top) = crate::parse(&printed, "t.mlir").expect("reads its own output");
        assert_eq!(print_op(&again, top, PrintOptions::default()), printed);
    }

    #[test]
    fn whole_floats_print_as_the_general_path_does() {
        let values = [0.0, -0.0, 1.0, -1.0, 2.0, 10.0, 100.0, 12345.0, -654321.0, 1234560.0, 9999990.0];
        for v in values.into_iter().chain((0..3000).map(f64::from)) {
            for kind in [FloatKind::F16, FloatKind::F32, FloatKind::F64, FloatKind::BF16] {
                let (mut fast, mut general) = (String::new(), String::new());
                assert!(write_small_integral_float(v, &mut fast));
                write_float_general(v, kind, &mut general);
                assert_eq!(fast, general, "{v} as {kind:?}");
            }
        }
        assert!(!write_small_integral_float(0.5, &mut String::new()));
        assert!(!write_small_integral_float(1e7, &mut String::new()));
        // Seven significant digits are more than APFloat's six: hex, as mlir-opt-22 prints.
        assert!(!write_small_integral_float(1234567.0, &mut String::new()));
        let mut hex = String::new();
        write_float_general(1234567.0, FloatKind::F32, &mut hex);
        assert_eq!(hex, "0x4996B438");
        assert!(!write_small_integral_float(f64::NAN, &mut String::new()));
    }

    #[test]
    fn floats_print_as_apfloat_does() {
        // Expected texts from mlir-opt-22 for `spirv.Constant <value> : f32`.
        for (value, text) in [
            (0.9, "0.899999976"),
            (0.7, "0.699999988"),
            (0.3, "3.000000e-01"),
            (0.95, "0.949999988"),
            (0.45, "4.500000e-01"),
            (9.9, "9.89999961"),
            (0.09, "9.000000e-02"),
        ] {
            let mut out = String::new();
            write_float(f64::from(value as f32), FloatKind::F32, &mut out);
            assert_eq!(out, text, "{value}");
        }
    }

    #[test]
    fn names_given_region_by_region_are_the_upfront_ones() {
        let source = "spirv.module Logical GLSL450 {\n  spirv.func @f(%a: i32, %p: !spirv.ptr<i32, Function>) \"None\" {\n    \
                      %c = spirv.Constant 1 : i32\n    %d = spirv.Constant 1 : i32\n    spirv.mlir.loop {\n      \
                      spirv.Branch ^bb1(%a : i32)\n    ^bb1(%i: i32):\n      %e = spirv.Constant 1 : i32\n      \
                      %s = spirv.IAdd %i, %e : i32\n      spirv.Store \"Function\" %p, %s : i32\n      \
                      spirv.Branch ^bb2\n    ^bb2:\n      spirv.Branch ^bb1(%s : i32)\n    ^bb3:\n      spirv.mlir.merge\n    \
                      }\n    %x = spirv.IAdd %c, %d : i32\n    spirv.Return\n  }\n}\n";
        let (ir, top) = crate::parse(source, "t.mlir").expect("parses");
        let lazy = print_op(&ir, top, PrintOptions::default());
        let mut upfront = Printer::new(&ir, Names::new(&ir, top, false), PrintOptions::default());
        upfront.operation(top);
        assert_eq!(lazy.trim_end(), upfront.out.trim_end());
        // As mlir-opt-22 prints it.
        let expected = "module {
  spirv.module Logical GLSL450 {
    spirv.func @f(%arg0: i32, %arg1: !spirv.ptr<i32, Function>) \"None\" {
      %cst1_i32 = spirv.Constant 1 : i32
      %cst1_i32_0 = spirv.Constant 1 : i32
      spirv.mlir.loop {
        spirv.Branch ^bb1(%arg0 : i32)
      ^bb1(%1: i32):  // 2 preds: ^bb0, ^bb2
        %cst1_i32_1 = spirv.Constant 1 : i32
        %2 = spirv.IAdd %1, %cst1_i32_1 : i32
        spirv.Store \"Function\" %arg1, %2 : i32
        spirv.Branch ^bb2
      ^bb2:  // pred: ^bb1
        spirv.Branch ^bb1(%2 : i32)
      ^bb3:  // no predecessors
        spirv.mlir.merge
      }
      %0 = spirv.IAdd %cst1_i32, %cst1_i32_0 : i32
      spirv.Return
    }
  }
}";
        assert_eq!(lazy.trim_end(), expected);
    }

    #[test]
    fn integers_print_in_decimal() {
        for v in [0i128, 7, -7, 42, i128::from(i64::MIN), i128::MAX, i128::MIN] {
            let mut out = String::new();
            push_i128(&mut out, v);
            assert_eq!(out, v.to_string());
        }
    }
}
