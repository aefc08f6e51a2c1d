//! Parser for MLIR's textual syntax: the generic operation form, the builtin
//! `module`/`func.func` forms, types and attributes. Dialect custom forms are
//! dispatched to [`crate::text::custom`].

use crate::attr::{Attribute, NamedAttribute};
use crate::ir::{BlockId, Ir, Location, OpId, RegionId, Value};
use crate::text::lexer::{unescape_to_string, Lexer, Tok, Token};
use crate::types::{ConstantExpr, FloatKind, Signedness, StructBody, StructMember, Type, TypeKind};
use spirvkit_grammar::fxhash::FxHashMap;

/// A parse error at a byte offset of the source.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    pub offset: usize,
    pub message: String,
    /// Attached notes: byte offset and text (`prior use here`).
    pub notes: Vec<(usize, String)>,
}

/// Boxed, so a result is small enough to return in registers.
pub type PResult<T> = Result<T, Box<ParseError>>;

/// A use of a value before its type is known: `%name` or `%name#index`. The name
/// borrows the source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandRef<'s> {
    pub name: &'s str,
    pub index: u32,
    pub offset: usize,
}

/// The values one name binds: an op's result group (`%x` with `%x:2` results).
enum ValueGroup {
    One(Value),
    Many(Vec<Value>),
}

impl ValueGroup {
    fn get(&self, index: usize) -> Option<Value> {
        match self {
            ValueGroup::One(v) => (index == 0).then_some(*v),
            ValueGroup::Many(values) => values.get(index).copied(),
        }
    }
}

/// A hash of short names for maps the parser never iterates: FxHash's scheme, with
/// the bytes past the last whole word read without a copy.
#[derive(Clone, Copy, Default)]
struct NameHasher {
    hash: u64,
}

impl NameHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let Ok(word) = <[u8; 8]>::try_from(chunk) else { break };
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        let n = rest.len();
        // Two reads that overlap cover any length below eight.
        let word = if n >= 4 {
            let first = rest.first_chunk::<4>().map_or(0, |w| u32::from_le_bytes(*w));
            let last = rest.last_chunk::<4>().map_or(0, |w| u32::from_le_bytes(*w));
            u64::from(first) | u64::from(last) << 32
        } else if n >= 2 {
            let first = rest.first_chunk::<2>().map_or(0, |w| u16::from_le_bytes(*w));
            let last = rest.last_chunk::<2>().map_or(0, |w| u16::from_le_bytes(*w));
            u64::from(first) | u64::from(last) << 16
        } else {
            rest.first().map_or(0, |&b| u64::from(b))
        };
        self.add(word ^ (n as u64) << 56);
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

type NameMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<NameHasher>>;

/// The number a value name is (`12` for `%12`), when it is one in its shortest
/// spelling and small enough to index a table by.
fn number_of_name(name: &str) -> Option<usize> {
    let digits = name.as_bytes();
    if digits.is_empty() || digits.len() > 5 || (digits[0] == b'0' && digits.len() > 1) {
        return None;
    }
    let mut n = 0usize;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + usize::from(d - b'0');
    }
    (n < 1 << 16).then_some(n)
}

/// The names a region defines; keys borrow the source text.
#[derive(Default)]
struct Scope<'s> {
    values: NameMap<&'s str, ValueGroup>,
    /// The values named by a number (`%12`, most of them), by that number.
    numbered: Vec<Option<ValueGroup>>,
    blocks: NameMap<&'s str, BlockId>,
    /// Blocks referenced before their definition.
    pending_blocks: FxHashMap<&'s str, usize>,
    /// The region's op is isolated from above: names outside it are not visible.
    isolated: bool,
}

impl Scope<'_> {
    fn clear(&mut self) {
        self.values.clear();
        self.numbered.clear();
        self.blocks.clear();
        self.pending_blocks.clear();
        self.isolated = false;
    }
}

/// Parses MLIR text into an [`Ir`].
pub struct Parser<'s, 'ir> {
    lex: Lexer<'s>,
    pub(crate) tok: Token<'s>,
    pub ir: &'ir mut Ir,
    scopes: Vec<Scope<'s>>,
    /// Emptied scopes kept for reuse (their tables keep their capacity).
    spare_scopes: Vec<Scope<'s>>,
    /// Placeholder values for uses before definitions: (scope depth, name) -> value.
    forward: FxHashMap<(usize, &'s str, u32), (Value, usize)>,
    /// Placeholder -> real value, applied when parsing finishes.
    pub(crate) replacements: FxHashMap<Value, Value>,
    /// Type aliases (`!alias = type`) and attribute aliases (`#alias = attr`).
    type_aliases: FxHashMap<String, Type>,
    attr_aliases: FxHashMap<String, Attribute>,
    file_name: std::sync::Arc<str>,
    /// Where each line break of the source is, built only if an offset off the
    /// lexer's line is located (see [`Parser::line_col`]).
    newlines: Vec<usize>,
    /// The ops parsed into the blocks being parsed, innermost last (see
    /// [`Parser::flush_block_ops`]).
    block_ops: Vec<OpId>,
    /// Reused for the result names of each op.
    result_names: Vec<(&'s str, u32, usize)>,
    /// States of the declarative-format parser, reused from op to op (boxed: taking
    /// one out and putting it back moves a pointer, not the state).
    #[allow(clippy::vec_box)]
    pub(crate) format_states: Vec<Box<crate::text::format::ParseState<'s>>>,
    /// Where the last consumed token ended.
    prev_end: usize,
    /// Where each value was defined, for "prior use here" notes.
    /// Indexed by value index; `usize::MAX` for values not defined in the text.
    value_offsets: Vec<usize>,
    /// Current nesting of regions, types and attributes (bounded, so hostile input
    /// cannot overflow the stack).
    depth: usize,
    /// The deepest nesting reached since it was last reset (by the type cache).
    peak_depth: usize,
    /// Types already parsed, by their first token (`!spirv.ptr`): each whole source
    /// text (`!spirv.ptr<f32, Function>`) with its type and the nesting its parse
    /// needs. A module spells the same few types many times.
    type_cache: NameMap<&'s str, Vec<CachedType<'s>>>,
    /// The type cache's last hit or entry by a hash of its first token: most types
    /// are spelled as the last one with that token was.
    type_front: [Option<(&'s str, CachedType<'s>)>; TYPE_FRONT_SLOTS],
    /// Op names looked up in `OP_DEFS` lately, by a hash of the name: a module uses
    /// a few dozen ops, each many times.
    op_front: [Option<(&'s str, Option<usize>)>; OP_FRONT_SLOTS],
    /// The integer types asked for lately (format type inference asks for `i1`
    /// and `i32` op after op).
    integer_types: [Option<(u32, Signedness, Type)>; 4],
    /// The pointer types the custom forms asked for lately, by pointee and storage
    /// class (`spirv.Load "Function" %p : f32` names its pointer so).
    pointer_types: Vec<(Type, String, Type)>,
}

/// A spelling of a type: its whole text, the type, and the nesting its parse needs.
type CachedType<'s> = (&'s str, Type, usize);

const TYPE_FRONT_SLOTS: usize = 16;

/// The slot of [`Parser::type_front`] for a type's first token.
fn type_front_slot(head: &str) -> usize {
    let b = head.as_bytes();
    let at = |i: usize| usize::from(b.get(i).copied().unwrap_or(0));
    (b.len() * 7 + at(0) * 3 + at(1) + at(b.len().wrapping_sub(1)) * 5) % TYPE_FRONT_SLOTS
}

const OP_FRONT_SLOTS: usize = 256;

/// How deeply regions, types and attributes may nest.
const MAX_DEPTH: usize = 256;

impl<'s, 'ir> Parser<'s, 'ir> {
    pub fn new(src: &'s str, ir: &'ir mut Ir, file_name: &str) -> Self {
        Parser::with_lexer(Lexer::new(src), ir, file_name)
    }

    /// A parser reading the tokens of `lex` (a lexer that may skip a gap).
    pub(crate) fn with_lexer(mut lex: Lexer<'s>, ir: &'ir mut Ir, file_name: &str) -> Self {
        let tok = lex.next_token();
        // Sized as the IR's arenas are for the text (see `Ir::reserve_for_text`), so it
        // does not grow by copying itself.
        let value_offsets = Vec::with_capacity((lex.full_source().len() / 40).min(1 << 22));
        Parser {
            lex,
            tok,
            ir,
            scopes: vec![Scope::default()],
            spare_scopes: Vec::new(),
            forward: FxHashMap::default(),
            replacements: FxHashMap::default(),
            type_aliases: FxHashMap::default(),
            attr_aliases: FxHashMap::default(),
            file_name: file_name.into(),
            newlines: Vec::new(),
            block_ops: Vec::new(),
            result_names: Vec::new(),
            format_states: Vec::new(),
            prev_end: 0,
            value_offsets,
            depth: 0,
            peak_depth: 0,
            type_cache: NameMap::default(),
            type_front: Default::default(),
            op_front: [None; OP_FRONT_SLOTS],
            integer_types: [None; 4],
            pointer_types: Vec::new(),
        }
    }

    // ---- token helpers -------------------------------------------------------------

    /// Whether a string literal ran into the lexer's gap (see [`Lexer::with_gap`]).
    pub(crate) fn gap_split_string(&self) -> bool {
        self.lex.gap_split_string()
    }

    /// A copy of the lexer, positioned after the current token (for lookahead).
    pub(crate) fn lexer_after_current(&self) -> Lexer<'s> {
        self.lex.clone()
    }

    /// Where the parser is, to go back to with [`Parser::restore`] after reading
    /// tokens only (the fast path of declarative formats).
    pub(crate) fn checkpoint(&self) -> (Lexer<'s>, Token<'s>, usize) {
        (self.lex.clone(), self.tok, self.prev_end)
    }

    pub(crate) fn restore(&mut self, (lex, tok, prev_end): (Lexer<'s>, Token<'s>, usize)) {
        self.lex = lex;
        self.tok = tok;
        self.prev_end = prev_end;
    }

    pub fn bump(&mut self) -> Token<'s> {
        let t = self.tok;
        self.prev_end = t.offset + t.text.len();
        self.advance();
        t
    }

    /// Reads the next token into `tok`: the one place the lexer is inlined.
    #[inline(never)]
    fn advance(&mut self) {
        self.tok = self.lex.next_token();
    }

    pub fn at(&self, punct: &str) -> bool {
        matches!(self.tok.kind, Tok::Punct) && self.tok.text == punct
    }

    pub fn at_keyword(&self, word: &str) -> bool {
        self.tok.kind == Tok::Ident && self.tok.text == word
    }

    pub fn eat(&mut self, punct: &str) -> bool {
        if self.at(punct) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub fn eat_keyword(&mut self, word: &str) -> bool {
        if self.at_keyword(word) {
            self.bump();
            true
        } else {
            false
        }
    }

    pub fn error<T>(&self, message: impl Into<String>) -> PResult<T> {
        Err(Box::new(ParseError { notes: Vec::new(), offset: self.tok.offset, message: message.into() }))
    }

    /// An error about the current token being the wrong one, placed as MLIR does:
    /// when the token starts a later line, at the end of the previous token.
    pub fn wrong_token<T>(&self, message: impl Into<String>) -> PResult<T> {
        let src = self.lex.source();
        let between = &src[self.prev_end.min(self.tok.offset)..self.tok.offset];
        let offset = if between.contains('\n') { self.prev_end } else { self.tok.offset };
        Err(Box::new(ParseError { notes: Vec::new(), offset, message: message.into() }))
    }

    pub fn expect(&mut self, punct: &str) -> PResult<()> {
        if self.eat(punct) {
            Ok(())
        } else {
            self.wrong_token(format!("expected '{punct}'"))
        }
    }

    pub fn expect_keyword(&mut self, word: &str) -> PResult<()> {
        if self.eat_keyword(word) {
            Ok(())
        } else {
            self.wrong_token(format!("expected '{word}'"))
        }
    }

    /// A 1-based (line, column) for a byte offset.
    #[inline]
    pub fn line_col(&mut self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.lex.full_source().len());
        // The offsets located are nearly always on the lexer's line.
        let (line, line_start) = match self.lex.line_of(offset) {
            Some(known) => known,
            None => self.line_of_elsewhere(offset),
        };
        ((line + 1) as u32, (offset - line_start + 1) as u32)
    }

    /// The 0-based line of `offset` and where it starts, for an offset off the
    /// lexer's line (a table of line breaks, built the first time).
    #[cold]
    fn line_of_elsewhere(&mut self, offset: usize) -> (usize, usize) {
        if self.newlines.is_empty() {
            self.newlines = newline_offsets(self.lex.full_source().as_bytes());
        }
        let before = self.newlines.partition_point(|&n| n < offset);
        (before, if before == 0 { 0 } else { self.newlines[before - 1] + 1 })
    }

    pub(crate) fn location_here(&mut self, offset: usize) -> Location {
        let (line, column) = self.line_col(offset);
        Location::FileLineCol { file: self.file_name.clone(), line, column }
    }

    // ---- top level -----------------------------------------------------------------

    /// Parses a whole source buffer. Top-level ops go into an implicit
    /// `builtin.module` unless the buffer is exactly one `module`.
    pub fn parse_top_level(&mut self) -> Result<OpId, ParseError> {
        self.parse_top_level_ops().map_err(|e| *e)
    }

    fn parse_top_level_ops(&mut self) -> PResult<OpId> {
        let module = self.ir.create_op("builtin.module", vec![], &[], Location::Unknown);
        let region = self.ir.add_region(module);
        let block = self.ir.create_block();
        self.ir.append_block(region, block);
        while self.tok.kind != Tok::Eof {
            if self.tok.kind == Tok::HashId && self.peek_is_alias_definition() {
                let name = self.bump().text[1..].to_string();
                self.expect("=")?;
                let attr = self.parse_attribute()?;
                self.attr_aliases.insert(name, attr);
                // Cached types may have used the alias's previous meaning.
                self.clear_type_cache();
                continue;
            }
            if self.tok.kind == Tok::BangId && self.peek_is_alias_definition() {
                let name = self.bump().text[1..].to_string();
                self.expect("=")?;
                let ty = self.parse_type()?;
                self.type_aliases.insert(name, ty);
                self.clear_type_cache();
                continue;
            }
            let op = self.parse_operation()?;
            self.ir.append_op(block, op);
        }
        self.finish_forward_refs()?;
        // A single explicit module is the top level itself.
        let ops = self.ir.block(block).ops.clone();
        if ops.len() == 1 && self.ir.op(ops[0]).name == "builtin.module" {
            return Ok(ops[0]);
        }
        Ok(module)
    }

    fn peek_is_alias_definition(&self) -> bool {
        let mut look = self.lex.clone();
        let next = look.next_token();
        next.kind == Tok::Punct && next.text == "="
    }

    fn finish_forward_refs(&mut self) -> PResult<()> {
        // The first use in the text, as mlir-opt reports it.
        if let Some(offset) = self.forward.values().map(|&(_, offset)| offset).min() {
            return Err(Box::new(ParseError {
                notes: Vec::new(),
                offset,
                message: "use of undeclared SSA value name".to_string(),
            }));
        }
        if !self.replacements.is_empty() {
            let replacements = std::mem::take(&mut self.replacements);
            for i in 0..self.ir.op_count() {
                let op = self.ir.op_mut(OpId(i as u32));
                for v in op.operands.iter_mut() {
                    // A nested region's placeholder may stand for an outer one's
                    // (a chain no longer than the nesting).
                    let mut steps = 0;
                    while let Some(&r) = replacements.get(v) {
                        *v = r;
                        steps += 1;
                        if steps > replacements.len() {
                            break;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    // ---- operations ----------------------------------------------------------------

    /// Parses one operation with its results.
    pub fn parse_operation(&mut self) -> PResult<OpId> {
        let start = self.tok.offset;
        // The op's result names go after those of the ops it is nested in.
        let names = self.result_names.len();
        let op = self.parse_operation_with(start, names);
        self.result_names.truncate(names);
        op
    }

    /// [`Parser::parse_operation`], the op's result names pushed from `names` on.
    fn parse_operation_with(&mut self, start: usize, names: usize) -> PResult<OpId> {
        if self.tok.kind == Tok::ValueId {
            loop {
                let t = self.bump();
                if t.kind != Tok::ValueId {
                    return Err(Box::new(ParseError {
                        notes: Vec::new(),
                        offset: t.offset,
                        message: "expected SSA value name".into(),
                    }));
                }
                let mut count = 1;
                if self.eat(":") {
                    let n = self.bump();
                    count = n.text.parse().map_err(|_| ParseError {
                        notes: Vec::new(),
                        offset: n.offset,
                        message: "expected integer number of results".into(),
                    })?;
                }
                self.result_names.push((&t.text[1..], count, t.offset));
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("=")?;
        }
        // MLIR locates an op at its name, after any result list (located before the
        // op's regions are parsed, so locations are found in source order).
        let location = self.location_here(self.tok.offset);
        let op = if self.tok.kind == Tok::String {
            self.parse_generic_operation()?
        } else if self.tok.kind == Tok::Ident {
            let name = self.bump().text;
            self.parse_custom_operation(name, start)?
        } else {
            return self.error("expected operation name in quotes");
        };
        self.parse_trailing_location(op)?;
        let result_count = self.ir.op(op).results.len();
        let result_names = self.result_names.get(names..).unwrap_or_default();
        // Summed wide: counts near `u32::MAX` must not wrap into a match.
        let expected: u64 = result_names.iter().map(|r| u64::from(r.1)).sum();
        if !result_names.is_empty() && expected != result_count as u64 {
            return Err(Box::new(ParseError {
                notes: Vec::new(),
                offset: start,
                message: format!(
                    "operation defines {result_count} results but was provided {expected} to bind"
                ),
            }));
        }
        let mut at = 0;
        for k in names..self.result_names.len() {
            let (name, count, offset) = self.result_names[k];
            let results = &self.ir.op(op).results;
            if count == 1 {
                let value = results[at];
                self.define_values(name, &[value], offset)?;
            } else {
                let group = results[at..at + count as usize].to_vec();
                self.define_values(name, &group, offset)?;
            }
            at += count as usize;
        }
        let o = self.ir.op_mut(op);
        if matches!(o.location, Location::Unknown) {
            o.location = location;
        }
        Ok(op)
    }

    fn parse_trailing_location(&mut self, op: OpId) -> PResult<()> {
        if self.at_keyword("loc") {
            let loc = self.parse_location()?;
            self.ir.op_mut(op).location = loc;
        }
        Ok(())
    }

    /// `loc(...)`: a name location `loc("name")` or `loc("name"(child))` (the child
    /// kept as text), any other form kept as text.
    pub fn parse_location(&mut self) -> PResult<Location> {
        self.expect_keyword("loc")?;
        let start = self.tok.offset;
        self.expect("(")?;
        if self.tok.kind == Tok::String {
            let checkpoint = self.checkpoint();
            if let Some(location) = self.parse_name_location()? {
                return Ok(location);
            }
            // `"file":line:col` and the like.
            self.restore(checkpoint);
        }
        let mut depth = 1;
        let mut end = start;
        while depth > 0 {
            if self.tok.kind == Tok::Eof {
                return self.error("unterminated location");
            }
            let t = self.bump();
            match t.text {
                "(" if t.kind == Tok::Punct => depth += 1,
                ")" if t.kind == Tok::Punct => depth -= 1,
                _ => {}
            }
            end = t.offset + t.text.len();
        }
        let text = &self.lex.source()[start..end];
        Ok(Location::Opaque(format!("loc{text}")))
    }

    /// The rest of a name location after `loc(`, at its string: `"name")` or
    /// `"name"(child))`. `None` (tokens consumed, to be restored) when the string
    /// starts another form, or names something that is not UTF-8.
    fn parse_name_location(&mut self) -> PResult<Option<Location>> {
        let name = self.bump();
        let Ok(name) = String::from_utf8(crate::text::lexer::unescape(name.text)) else {
            return Ok(None);
        };
        if self.eat(")") {
            return Ok(Some(Location::named(name)));
        }
        if !self.at("(") {
            return Ok(None);
        }
        // The child, kept as text as a location of its own (`loc(...)`).
        let child_start = self.tok.offset;
        self.bump();
        let mut depth = 1;
        let mut end = child_start;
        while depth > 0 {
            if self.tok.kind == Tok::Eof {
                return self.error("unterminated location");
            }
            let t = self.bump();
            match t.text {
                "(" if t.kind == Tok::Punct => depth += 1,
                ")" if t.kind == Tok::Punct => depth -= 1,
                _ => {}
            }
            end = t.offset + t.text.len();
        }
        let child = &self.lex.source()[child_start..end];
        self.expect(")")?;
        let child = match child {
            // Dropped, as MLIR prints it.
            "(unknown)" => Location::Unknown,
            _ => Location::Opaque(format!("loc{child}")),
        };
        Ok(Some(Location::named_at(name, child)))
    }

    /// Binds names to values in the current scope, resolving earlier forward uses.
    pub fn define_values(&mut self, name: &'s str, values: &[Value], offset: usize) -> PResult<()> {
        let depth = self.scopes.len() - 1;
        let scope = &mut self.scopes[depth];
        // One lookup finds the slot or the earlier definition.
        let slot = match number_of_name(name) {
            Some(n) if scope.numbered.get(n).is_some_and(Option::is_some) => None,
            Some(n) => Some(Err(n)),
            None => match scope.values.entry(name) {
                std::collections::hash_map::Entry::Vacant(slot) => Some(Ok(slot)),
                std::collections::hash_map::Entry::Occupied(_) => None,
            },
        };
        let Some(slot) = slot else {
            return Err(Box::new(ParseError {
                notes: Vec::new(),
                offset,
                message: format!("redefinition of SSA value '%{name}'"),
            }));
        };
        // Most values are defined before use: skip the lookup's key allocation then.
        let pending_uses = !self.forward.is_empty();
        for (i, &v) in values.iter().enumerate().filter(|_| pending_uses) {
            if let Some((placeholder, _)) = self.forward.remove(&(depth, name, i as u32)) {
                if self.ir.value_type(placeholder) != self.ir.value_type(v) {
                    return Err(Box::new(ParseError {
                        notes: Vec::new(),
                        offset,
                        message: format!(
                            "definition of SSA value '%{name}#{i}' has type mismatch with its use"
                        ),
                    }));
                }
                self.replacements.insert(placeholder, v);
            }
        }
        for &v in values {
            // Values are mostly defined in the order they were created.
            if self.value_offsets.len() == v.index() {
                self.value_offsets.push(offset);
                continue;
            }
            if self.value_offsets.len() < v.index() {
                self.value_offsets.resize(v.index() + 1, usize::MAX);
            }
            self.value_offsets[v.index()] = offset;
        }
        let group = match values {
            [one] => ValueGroup::One(*one),
            _ => ValueGroup::Many(values.to_vec()),
        };
        match slot {
            Ok(slot) => {
                slot.insert(group);
            }
            Err(n) => {
                let numbered = &mut self.scopes[depth].numbered;
                if numbered.len() <= n {
                    numbered.resize_with(n + 1, || None);
                }
                numbered[n] = Some(group);
            }
        }
        Ok(())
    }

    /// `%name` or `%name#N` as an unresolved reference.
    pub fn parse_operand_ref(&mut self) -> PResult<OperandRef<'s>> {
        if self.tok.kind != Tok::ValueId {
            return self.wrong_token("expected SSA operand");
        }
        let t = self.bump();
        let text = &t.text[1..];
        let (name, index) = match text.bytes().position(|b| b == b'#') {
            Some(hash) => (&text[..hash], text[hash + 1..].parse().unwrap_or(0)),
            None => (text, 0),
        };
        Ok(OperandRef { name, index, offset: t.offset })
    }

    /// Resolves a reference to a value of type `ty` (creating a forward reference if
    /// the value is not defined yet).
    pub fn resolve_operand(&mut self, r: &OperandRef<'s>, ty: Type) -> PResult<Value> {
        let number = number_of_name(r.name);
        for depth in (0..self.scopes.len()).rev() {
            if depth + 1 < self.scopes.len() && self.scopes[depth + 1].isolated {
                break;
            }
            let scope = &self.scopes[depth];
            let found = match number {
                Some(n) => scope.numbered.get(n).and_then(Option::as_ref),
                None => scope.values.get(r.name),
            };
            if let Some(group) = found {
                let v = group.get(r.index as usize).ok_or_else(|| ParseError {
                    notes: Vec::new(),
                    offset: r.offset,
                    message: format!("result number {} out of range for %{}", r.index, r.name),
                })?;
                let actual = self.ir.value_type(v);
                if actual != ty {
                    let prior = self.value_offsets.get(v.index()).copied().filter(|&o| o != usize::MAX);
                    return Err(Box::new(ParseError {
                        notes: prior.map(|o| (o, "prior use here".to_string())).into_iter().collect(),
                        offset: r.offset,
                        message: format!(
                            "use of value '%{}' expects different type than prior uses: '{}' vs '{}'",
                            r.name,
                            crate::text::printer::type_to_string(self.ir, ty),
                            crate::text::printer::type_to_string(self.ir, actual)
                        ),
                    }));
                }
                return Ok(v);
            }
        }
        let depth = self.scopes.len() - 1;
        let key = (depth, r.name, r.index);
        if let Some(&(v, _)) = self.forward.get(&key) {
            return Ok(v);
        }
        // A placeholder defined by a detached op, replaced when the real definition comes.
        let holder = self.ir.create_op("builtin.unrealized_forward_ref", vec![], &[ty], Location::Unknown);
        let v = self.ir.op(holder).results[0];
        self.forward.insert(key, (v, r.offset));
        Ok(v)
    }

    pub fn resolve_operands(
        &mut self,
        refs: &[OperandRef<'s>],
        types: &[Type],
        offset: usize,
    ) -> PResult<Vec<Value>> {
        if refs.len() != types.len() {
            return Err(Box::new(ParseError {
                notes: Vec::new(),
                offset,
                message: format!("{} operands present, but expected {}", refs.len(), types.len()),
            }));
        }
        let mut values = Vec::with_capacity(refs.len());
        for (r, &t) in refs.iter().zip(types) {
            values.push(self.resolve_operand(r, t)?);
        }
        Ok(values)
    }

    /// `"name"(%a, %b) [^succ] <{props}> ({regions}) {attrs} : (T) -> U`
    fn parse_generic_operation(&mut self) -> PResult<OpId> {
        let start = self.tok.offset;
        let name = unescape_to_string(self.bump().text);
        self.expect("(")?;
        let mut refs = Vec::new();
        if !self.at(")") {
            loop {
                refs.push(self.parse_operand_ref()?);
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(")")?;
        let mut successors = Vec::new();
        if self.eat("[") {
            loop {
                successors.push(self.parse_successor()?);
                if !self.eat(",") {
                    break;
                }
            }
            self.expect("]")?;
        }
        let mut properties = Vec::new();
        if self.at("<") {
            self.bump();
            self.expect("{")?;
            properties = self.parse_attribute_entries("}")?;
            self.expect(">")?;
        }
        let op = self.ir.create_op(name.clone(), vec![], &[], Location::Unknown);
        if self.at("(") {
            self.bump();
            loop {
                self.parse_region_into(op, &[])?;
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(")")?;
        }
        let mut attributes = if self.at("{") { self.parse_attribute_dict()? } else { Vec::new() };
        // Inherent attributes given in the discardable dictionary become properties,
        // as MLIR does when it parses the generic form of a registered op.
        if name == "builtin.module" {
            // MLIR 22's module has its symbol name and visibility as properties.
            let (inherent, rest): (Vec<_>, Vec<_>) = attributes
                .into_iter()
                .partition(|a| matches!(a.name.as_str(), "sym_name" | "sym_visibility"));
            properties.extend(inherent);
            properties.sort_by(|a, b| a.name.cmp(&b.name));
            attributes = rest;
        }
        if let Some(def) = crate::opdef::op_def(&name) {
            let (inherent, rest): (Vec<_>, Vec<_>) =
                attributes.into_iter().partition(|a| def.attributes.iter().any(|d| d.name == a.name));
            properties.extend(inherent);
            properties.sort_by(|a, b| a.name.cmp(&b.name));
            attributes = rest;
        }
        self.expect(":")?;
        let fn_ty = self.parse_type()?;
        let (inputs, results) = match self.ir.types.kind(fn_ty) {
            TypeKind::Function { inputs, results } => (inputs.clone(), results.clone()),
            _ => {
                return Err(Box::new(ParseError {
                    notes: Vec::new(),
                    offset: start,
                    message: "expected function type".into(),
                }))
            }
        };
        let operands = self.resolve_operands(&refs, &inputs, start)?;
        self.finish_op(op, operands, &results);
        let o = self.ir.op_mut(op);
        o.successors = successors.into();
        o.properties = properties;
        o.attributes = attributes.into();
        Ok(op)
    }

    /// Gives a created op its operands and result values.
    pub fn finish_op(&mut self, op: OpId, operands: Vec<Value>, result_types: &[Type]) {
        let o = self.ir.op_mut(op);
        o.operands = operands;
        if o.results.capacity() == 0 {
            // Allocated at its size rather than grown.
            o.results = Vec::with_capacity(result_types.len());
        }
        self.ir.add_results(op, result_types);
    }

    pub fn parse_successor(&mut self) -> PResult<BlockId> {
        if self.tok.kind != Tok::CaretId {
            return self.error("expected block name");
        }
        let t = self.bump();
        Ok(self.block_named(&t.text[1..], t.offset))
    }

    fn block_named(&mut self, name: &'s str, offset: usize) -> BlockId {
        let scope = self.scopes.last_mut().expect("a scope");
        if let Some(&b) = scope.blocks.get(name) {
            return b;
        }
        let b = self.ir.create_block();
        let scope = self.scopes.last_mut().expect("a scope");
        scope.blocks.insert(name, b);
        scope.pending_blocks.insert(name, offset);
        b
    }

    /// Parses `{ ... }` as a new region of `op`. `entry_args` are values (already
    /// created by the caller, e.g. function arguments) for the entry block.
    pub fn parse_region_into(
        &mut self,
        op: OpId,
        entry_args: &[(&'s str, Type, Location)],
    ) -> PResult<RegionId> {
        self.nested(|p| p.parse_region_inner(op, entry_args))
    }

    /// Runs `f` one nesting level deeper, refusing input nested beyond [`MAX_DEPTH`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_DEPTH {
            return self.error(format!("not supported yet: nesting deeper than {MAX_DEPTH} levels"));
        }
        self.depth += 1;
        self.peak_depth = self.peak_depth.max(self.depth);
        let result = f(self);
        self.depth -= 1;
        result
    }

    fn parse_region_inner(
        &mut self,
        op: OpId,
        entry_args: &[(&'s str, Type, Location)],
    ) -> PResult<RegionId> {
        let region = self.ir.add_region(op);
        let open = self.tok.offset;
        self.expect("{")?;
        let mut scope = self.spare_scopes.pop().unwrap_or_default();
        scope.isolated = self.is_isolated(op);
        self.scopes.push(scope);
        let mut current: Option<BlockId> = None;
        let ops_start = self.block_ops.len();
        if !entry_args.is_empty() || (!self.at("}") && self.tok.kind != Tok::CaretId) {
            let entry = self.ir.create_block();
            self.ir.append_block(region, entry);
            // The argument lists are allocated at their size rather than grown.
            let b = self.ir.block_mut(entry);
            b.arguments.reserve_exact(entry_args.len());
            b.argument_locations.reserve_exact(entry_args.len());
            for (name, ty, loc) in entry_args {
                let v = self.ir.add_block_argument(entry, *ty, loc.clone());
                // Signature arguments are defined where the body opens (their line).
                self.define_values(name, &[v], open)?;
            }
            current = Some(entry);
        }
        while !self.at("}") {
            if self.tok.kind == Tok::Eof {
                return self.error("expected '}' to end region");
            }
            if self.tok.kind == Tok::CaretId {
                self.flush_block_ops(current, ops_start);
                let t = self.bump();
                let name = &t.text[1..];
                let block = self.block_named(name, t.offset);
                let scope = self.scopes.last_mut().expect("a scope");
                if scope.pending_blocks.remove(name).is_none() && self.ir.block(block).parent.is_some() {
                    return Err(Box::new(ParseError {
                        notes: Vec::new(),
                        offset: t.offset,
                        message: format!("redefinition of block '^{name}'"),
                    }));
                }
                self.ir.append_block(region, block);
                if self.eat("(") {
                    if !self.at(")") {
                        // Most blocks take one argument: room for it, not for four.
                        let b = self.ir.block_mut(block);
                        b.arguments.reserve_exact(1);
                        b.argument_locations.reserve_exact(1);
                        loop {
                            let r = self.parse_operand_ref()?;
                            self.expect(":")?;
                            let ty = self.parse_type()?;
                            // Unless given, an argument is located at its name, as in MLIR.
                            let loc = if self.at_keyword("loc") {
                                self.parse_location()?
                            } else {
                                self.location_here(r.offset)
                            };
                            let v = self.ir.add_block_argument(block, ty, loc);
                            self.define_values(r.name, &[v], r.offset)?;
                            if !self.eat(",") {
                                break;
                            }
                        }
                    }
                    self.expect(")")?;
                }
                self.expect(":")?;
                current = Some(block);
                continue;
            }
            let block = current.ok_or_else(|| ParseError {
                notes: Vec::new(),
                offset: self.tok.offset,
                message: "expected block".into(),
            })?;
            let op_id = self.parse_operation()?;
            self.ir.op_mut(op_id).parent = Some(block);
            self.block_ops.push(op_id);
        }
        self.flush_block_ops(current, ops_start);
        self.bump();
        // Single-block regions (modules) always have their block, even when empty.
        if self.ir.region(region).blocks.is_empty() {
            let name = &self.ir.op(op).name;
            let single =
                *name == "builtin.module" || name.def().is_some_and(|d| d.traits.contains(&"SingleBlock"));
            if single {
                let b = self.ir.create_block();
                self.ir.append_block(region, b);
            }
        }
        let mut scope = self.scopes.pop().expect("pushed above");
        if let Some((name, offset)) = scope.pending_blocks.drain().next() {
            return Err(Box::new(ParseError {
                notes: Vec::new(),
                offset,
                message: format!("reference to an undefined block '^{name}'"),
            }));
        }
        scope.clear();
        self.spare_scopes.push(scope);
        // Forward references of this scope that were never defined: in a region
        // isolated from above, an error; otherwise, as in MLIR, they may name a value
        // the enclosing region defines later (a dominating block placed after this
        // op), so they wait for it there.
        let depth = self.scopes.len();
        let pending = self.forward.keys().filter(|(d, _, _)| *d == depth).copied().collect::<Vec<_>>();
        if !pending.is_empty() {
            if depth == 0 || self.is_isolated(op) {
                // As mlir-opt: the first such use, without the name.
                let offset = pending.iter().filter_map(|key| self.forward.get(key)).map(|&(_, o)| o).min();
                return Err(Box::new(ParseError {
                    notes: Vec::new(),
                    offset: offset.unwrap_or(0),
                    message: "use of undeclared SSA value name".to_string(),
                }));
            }
            for key in pending {
                let Some((placeholder, offset)) = self.forward.remove(&key) else { continue };
                let outer = (depth - 1, key.1, key.2);
                match self.forward.get(&outer) {
                    // Both wait for one value: resolving the outer one resolves this.
                    Some(&(outer_placeholder, _)) => {
                        if self.ir.value_type(outer_placeholder) != self.ir.value_type(placeholder) {
                            return Err(Box::new(ParseError {
                                notes: Vec::new(),
                                offset,
                                message: format!(
                                    "use of value '%{}' expects different type than prior uses",
                                    key.1
                                ),
                            }));
                        }
                        self.replacements.insert(placeholder, outer_placeholder);
                    }
                    None => {
                        self.forward.insert(outer, (placeholder, offset));
                    }
                }
            }
        }
        Ok(region)
    }

    /// Whether `op` is isolated from above (its regions see no outer names).
    fn is_isolated(&self, op: OpId) -> bool {
        let name = &self.ir.op(op).name;
        match name.def() {
            // The op's definition is at hand: no lookup by name.
            Some(def) => def.traits.contains(&"IsolatedFromAbove"),
            None => crate::opdef::op_has_trait(name, "IsolatedFromAbove"),
        }
    }

    /// Gives `block` the ops parsed into it (those of `block_ops` from `start`): its
    /// list is allocated once, at its size.
    fn flush_block_ops(&mut self, block: Option<BlockId>, start: usize) {
        if let (Some(block), Some(parsed)) = (block, self.block_ops.get(start..)) {
            let ops = &mut self.ir.block_mut(block).ops;
            if ops.is_empty() {
                *ops = parsed.to_vec();
            } else {
                ops.extend_from_slice(parsed);
            }
        }
        self.block_ops.truncate(start);
    }

    /// Parses an op in its custom (pretty) form: builtin forms here, dialect forms in
    /// [`crate::text::custom`].
    fn parse_custom_operation(&mut self, name: &'s str, start: usize) -> PResult<OpId> {
        match name {
            "module" | "builtin.module" => self.parse_module_op(),
            _ => crate::text::custom::parse(self, name, start),
        }
    }

    fn parse_module_op(&mut self) -> PResult<OpId> {
        let op = self.ir.create_op("builtin.module", vec![], &[], Location::Unknown);
        if self.tok.kind == Tok::AtId {
            let t = self.bump();
            let name = symbol_name(t.text);
            // An inherent attribute of MLIR 22's module (a property in the generic form).
            self.ir.op_mut(op).properties.push(NamedAttribute::new("sym_name", Attribute::String(name)));
        }
        if self.eat_keyword("attributes") {
            let attrs = self.parse_attribute_dict()?;
            self.ir.op_mut(op).attributes.extend(attrs);
        }
        self.parse_region_into(op, &[])?;
        Ok(op)
    }

    // ---- attributes ----------------------------------------------------------------

    /// `{a = 1, b}`
    pub fn parse_attribute_dict(&mut self) -> PResult<Vec<NamedAttribute>> {
        self.expect("{")?;
        self.parse_attribute_entries("}")
    }

    fn parse_attribute_entries(&mut self, close: &str) -> PResult<Vec<NamedAttribute>> {
        let mut out: Vec<NamedAttribute> = Vec::new();
        if !self.eat(close) {
            loop {
                let t = self.bump();
                let name = match t.kind {
                    Tok::Ident => t.text.to_string(),
                    Tok::String => unescape_to_string(t.text),
                    _ => {
                        return Err(Box::new(ParseError {
                            notes: Vec::new(),
                            offset: t.offset,
                            message: "expected attribute name".into(),
                        }))
                    }
                };
                let value = if self.eat("=") { self.parse_attribute()? } else { Attribute::Unit };
                if out.iter().any(|a| a.name == name) {
                    return Err(Box::new(ParseError {
                        notes: Vec::new(),
                        offset: t.offset,
                        message: format!("attribute '{name}' occurs more than once in the attribute list"),
                    }));
                }
                out.push(NamedAttribute::new(name, value));
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(close)?;
        }
        Ok(out)
    }

    /// Parses any attribute value.
    pub fn parse_attribute(&mut self) -> PResult<Attribute> {
        self.nested(|p| p.parse_attribute_inner())
    }

    fn parse_attribute_inner(&mut self) -> PResult<Attribute> {
        let t = self.tok;
        match t.kind {
            Tok::String => {
                self.bump();
                let s = unescape_to_string(t.text);
                if self.eat(":") {
                    // A typed string attribute; the type is not modeled.
                    self.parse_type()?;
                }
                Ok(Attribute::String(s))
            }
            Tok::Integer | Tok::Float => self.parse_number_attribute(false),
            Tok::Punct if t.text == "-" => {
                self.bump();
                self.parse_number_attribute(true)
            }
            Tok::Punct if t.text == "[" => {
                self.bump();
                let mut items = Vec::new();
                if !self.eat("]") {
                    loop {
                        items.push(self.parse_attribute()?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                    self.expect("]")?;
                }
                Ok(Attribute::Array(items))
            }
            Tok::Punct if t.text == "{" => Ok(Attribute::Dictionary(self.parse_attribute_dict()?)),
            Tok::AtId => {
                let mut path = vec![symbol_name(self.bump().text)];
                while self.at("::") {
                    self.bump();
                    if self.tok.kind != Tok::AtId {
                        return self.error("expected symbol reference");
                    }
                    path.push(symbol_name(self.bump().text));
                }
                Ok(Attribute::SymbolRef(path))
            }
            Tok::HashId => {
                self.bump();
                let name = t.text[1..].to_string();
                if let Some(a) = self.attr_aliases.get(&name) {
                    return Ok(a.clone());
                }
                let mut body = if self.at("<") { Some(self.parse_angle_body()?) } else { None };
                if name == "spirv.target_env" {
                    body = body.map(|b| canonical_target_env(&b));
                }
                if let Some(b) = &body {
                    match crate::llvm::canonical_attr_body(&name, b) {
                        Some(Ok(canonical)) => body = Some(canonical),
                        Some(Err(message)) => return self.error(message),
                        None => {}
                    }
                }
                Ok(Attribute::Dialect { name, body })
            }
            Tok::Ident => match t.text {
                "unit" => {
                    self.bump();
                    Ok(Attribute::Unit)
                }
                "true" | "false" => {
                    self.bump();
                    if self.eat(":") {
                        self.parse_type()?;
                    }
                    Ok(Attribute::Bool(t.text == "true"))
                }
                "dense" => self.parse_dense(),
                "array" => {
                    self.bump();
                    self.expect("<")?;
                    let element = self.parse_type()?;
                    let mut values = Vec::new();
                    if self.eat(":") {
                        loop {
                            let negative = self.eat("-");
                            values.push(self.parse_typed_number(negative, element)?);
                            if !self.eat(",") {
                                break;
                            }
                        }
                    }
                    self.expect(">")?;
                    Ok(Attribute::DenseArray { element, values })
                }
                _ => Ok(Attribute::Type(self.parse_type()?)),
            },
            _ => Ok(Attribute::Type(self.parse_type()?)),
        }
    }

    fn parse_number_attribute(&mut self, negative: bool) -> PResult<Attribute> {
        // The number's meaning depends on the `: type` after it.
        let t = self.bump();
        let ty = if self.eat(":") {
            self.parse_type()?
        } else if t.kind == Tok::Float {
            self.ir.types.float(FloatKind::F64)
        } else {
            self.ir.types.integer(64, Signedness::Signless)
        };
        self.typed_number(t, negative, ty)
    }

    /// A number token (sign already consumed) as an attribute of type `ty`.
    pub fn parse_typed_number(&mut self, negative: bool, ty: Type) -> PResult<Attribute> {
        let t = self.bump();
        self.typed_number(t, negative, ty)
    }

    fn typed_number(&mut self, t: Token<'s>, negative: bool, ty: Type) -> PResult<Attribute> {
        let is_float = matches!(self.ir.types.kind(ty), TypeKind::Float(_));
        match t.kind {
            Tok::Integer if !is_float => {
                let magnitude = parse_integer_text(t.text).ok_or_else(|| ParseError {
                    notes: Vec::new(),
                    offset: t.offset,
                    message: "integer constant out of range".into(),
                })?;
                let value = if negative { -(magnitude as i128) } else { magnitude as i128 };
                Ok(Attribute::Integer { value: self.normalize_integer(value, ty), ty })
            }
            Tok::Integer | Tok::Float => {
                let value: f64 = if let Some(hex) = t.text.strip_prefix("0x") {
                    let bits = u64::from_str_radix(hex, 16).unwrap_or(0);
                    match self.ir.types.kind(ty) {
                        TypeKind::Float(FloatKind::F32) => f32::from_bits(bits as u32) as f64,
                        _ => f64::from_bits(bits),
                    }
                } else {
                    t.text.parse().map_err(|_| ParseError {
                        notes: Vec::new(),
                        offset: t.offset,
                        message: "invalid float".into(),
                    })?
                };
                let value = if negative { -value } else { value };
                // The attribute holds the value as its type represents it.
                let value = match self.ir.types.kind(ty) {
                    TypeKind::Float(FloatKind::F32) => value as f32 as f64,
                    _ => value,
                };
                Ok(Attribute::Float { value, ty })
            }
            Tok::Ident if t.text == "true" || t.text == "false" => {
                Ok(Attribute::Integer { value: (t.text == "true") as i128, ty })
            }
            _ => Err(Box::new(ParseError {
                notes: Vec::new(),
                offset: t.offset,
                message: "expected integer or float literal".into(),
            })),
        }
    }

    /// An integer as an attribute of `ty` holds it (see [`TypeStore::normalize_integer`]).
    pub fn normalize_integer(&self, value: i128, ty: Type) -> i128 {
        self.ir.types.normalize_integer(value, ty)
    }

    fn parse_dense(&mut self) -> PResult<Attribute> {
        let start = self.tok.offset;
        self.expect_keyword("dense")?;
        self.expect("<")?;
        // Collect the raw element tokens; they are typed once the shaped type is known.
        let mut raw: Vec<(bool, Token<'s>)> = Vec::new();
        let mut depth = 0;
        let mut hex_string = None;
        loop {
            if self.at(">") && depth == 0 {
                break;
            }
            let t = self.bump();
            match (t.kind, t.text) {
                (Tok::Eof, _) => return self.error("unterminated dense attribute"),
                (Tok::Punct, "[") | (Tok::Punct, "(") => depth += 1,
                (Tok::Punct, "]") | (Tok::Punct, ")") => depth -= 1,
                (Tok::Punct, ",") => {}
                (Tok::Punct, "-") => {
                    let n = self.bump();
                    raw.push((true, n));
                }
                (Tok::String, _) => hex_string = Some(t.text.to_string()),
                _ => raw.push((false, t)),
            }
        }
        self.expect(">")?;
        self.expect(":")?;
        let ty = self.parse_type()?;
        // As MLIR: elements need a shaped type (a matrix or array would lose them).
        let shaped = matches!(
            self.ir.types.kind(ty),
            TypeKind::Vector { .. }
                | TypeKind::Tensor { .. }
                | TypeKind::MemRef { .. }
                | TypeKind::CooperativeMatrix { .. }
                | TypeKind::Opaque(_)
        );
        if !shaped {
            return Err(Box::new(ParseError {
                notes: Vec::new(),
                offset: start,
                message: "elements literal must be a shaped type".into(),
            }));
        }
        let element = match self.ir.types.kind(ty) {
            TypeKind::Vector { element, .. } | TypeKind::Tensor { element, .. } => *element,
            TypeKind::Opaque(text) => match crate::types::arm_tensor_parts(text).map(|(_, e)| e) {
                Some(e) => match (FloatKind::from_keyword(e), integer_keyword(e)) {
                    (Some(kind), _) => self.ir.types.float(kind),
                    (None, Some((sign, digits))) => match digits.parse() {
                        Ok(width) => self.ir.types.integer(width, sign),
                        Err(_) => ty,
                    },
                    (None, None) => ty,
                },
                None => ty,
            },
            _ => ty,
        };
        if let Some(s) = hex_string {
            return Ok(Attribute::Dense { elements: vec![Attribute::String(s)], ty });
        }
        let mut elements = Vec::with_capacity(raw.len());
        for (negative, t) in raw {
            let is_float = matches!(self.ir.types.kind(element), TypeKind::Float(_));
            let value = match t.kind {
                Tok::Ident if t.text == "true" || t.text == "false" => {
                    Attribute::Integer { value: (t.text == "true") as i128, ty: element }
                }
                Tok::Integer if !is_float => {
                    let m = parse_integer_text(t.text).unwrap_or(0) as i128;
                    let value = self.normalize_integer(if negative { -m } else { m }, element);
                    Attribute::Integer { value, ty: element }
                }
                _ => {
                    let v: f64 = t.text.parse().unwrap_or(0.0);
                    Attribute::Float { value: if negative { -v } else { v }, ty: element }
                }
            };
            elements.push(value);
        }
        Ok(Attribute::Dense { elements, ty })
    }

    /// The text between `<` and the matching `>`, normalized to single spaces
    /// after commas, for dialect attributes kept as text.
    fn parse_angle_body(&mut self) -> PResult<String> {
        let open = self.tok.offset;
        self.expect("<")?;
        let mut depth = 1;
        let mut end;
        loop {
            if self.tok.kind == Tok::Eof {
                return Err(Box::new(ParseError {
                    notes: Vec::new(),
                    offset: open,
                    message: "unbalanced '<' in dialect attribute".into(),
                }));
            }
            let t = self.bump();
            end = t.offset;
            if t.kind == Tok::Punct {
                match t.text {
                    "<" => depth += 1,
                    ">" => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(normalize_body(&self.lex.source()[open + 1..end]))
    }

    // ---- types ---------------------------------------------------------------------

    pub fn parse_type(&mut self) -> PResult<Type> {
        if !matches!(self.tok.kind, Tok::Ident | Tok::BangId) {
            return self.nested(|p| p.parse_type_inner());
        }
        let (head, start) = (self.tok.text, self.tok.offset);
        let src = self.lex.source();
        let depth = self.depth;
        let slot = type_front_slot(head);
        if let Some((cached_head, (text, ty, needed))) = self.type_front[slot] {
            if cached_head == head {
                // The text is the keyword alone (which must not be followed by
                // parameters here) or must be what follows.
                let single = text.len() == head.len();
                let rest = &src.as_bytes()[start..];
                let whole = !single || rest.get(text.len()) != Some(&b'<');
                if whole && depth + needed <= MAX_DEPTH && (single || rest.starts_with(text.as_bytes())) {
                    if single {
                        self.bump();
                    } else {
                        self.skip_to(start + text.len());
                    }
                    return Ok(ty);
                }
            }
        }
        if let Some(known) = self.type_cache.get_mut(head) {
            let rest = &src.as_bytes()[start..];
            let hit = known.iter().position(|&(text, _, needed)| {
                // A bare keyword must not be followed by parameters here.
                let whole = text.len() > head.len() || rest.get(text.len()) != Some(&b'<');
                whole && depth + needed <= MAX_DEPTH && rest.starts_with(text.as_bytes())
            });
            if let Some(i) = hit {
                // The spelling met last is the likeliest next.
                known.swap(0, i);
                let (text, ty, needed) = known[0];
                self.type_front[slot] = Some((head, (text, ty, needed)));
                if text.len() == head.len() {
                    self.bump();
                } else {
                    self.skip_to(start + text.len());
                }
                return Ok(ty);
            }
        }
        let outer_peak = std::mem::replace(&mut self.peak_depth, self.depth);
        let parsed = self.nested(|p| p.parse_type_inner());
        let needed = self.peak_depth - self.depth;
        self.peak_depth = self.peak_depth.max(outer_peak);
        let ty = parsed?;
        // Text that is the keyword alone, or the keyword and its whole `<...>`, means
        // the same type wherever it is written (aliases clear the cache). A type read
        // across a gap of the lexer (`Lexer::with_gap`) ends past `src`: not kept.
        let Some(text) = src.get(start..self.prev_end.max(start)) else { return Ok(ty) };
        let cacheable = text == head
            || (text.as_bytes().get(head.len()) == Some(&b'<')
                && text.ends_with('>')
                && !text.ends_with("->"));
        if cacheable {
            let known = self.type_cache.entry(head).or_default();
            // A few spellings per keyword; past that, parsing is as cheap as comparing.
            if known.len() < 16 {
                known.push((text, ty, needed));
                self.type_front[slot] = Some((head, (text, ty, needed)));
            }
        }
        Ok(ty)
    }

    /// The position in `OP_DEFS` of the op named `name` (see [`Parser::op_front`]).
    pub(crate) fn op_def_index_by_name(&mut self, name: &'s str) -> Option<usize> {
        // Names differ mostly in their last bytes (they share the `spirv.` prefix).
        let b = name.as_bytes();
        let tail = match b.last_chunk::<8>() {
            Some(word) => u64::from_le_bytes(*word),
            None => b.iter().fold(0, |h, &c| h << 8 | u64::from(c)),
        };
        let hash = (tail ^ b.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        // Two ways: the slot and its neighbour; a new name pushes the slot's to it.
        let slot = (hash >> 56) as usize % OP_FRONT_SLOTS;
        for way in [slot, slot ^ 1] {
            if let Some((known, index)) = self.op_front[way] {
                if known == name {
                    return index;
                }
            }
        }
        let index = crate::opdef::op_def_index_by_name(name);
        self.op_front[slot ^ 1] = self.op_front[slot];
        self.op_front[slot] = Some((name, index));
        index
    }

    /// The integer type of `width` and `signedness` (interned the first time).
    pub(crate) fn integer_type(&mut self, width: u32, signedness: Signedness) -> Type {
        let known = self.integer_types.iter().flatten().find(|&&(w, s, _)| w == width && s == signedness);
        if let Some(&(_, _, ty)) = known {
            return ty;
        }
        let ty = self.ir.types.integer(width, signedness);
        self.integer_types.rotate_right(1);
        self.integer_types[0] = Some((width, signedness, ty));
        ty
    }

    /// The pointer to `pointee` in `storage_class` (interned the first time).
    pub(crate) fn pointer_type(&mut self, pointee: Type, storage_class: &str) -> Type {
        let known = self.pointer_types.iter().find(|(p, sc, _)| *p == pointee && sc == storage_class);
        if let Some(&(_, _, ty)) = known {
            return ty;
        }
        let ty = self.ir.types.pointer(pointee, storage_class);
        // A few are in use at a time; the oldest goes.
        if self.pointer_types.len() == 8 {
            self.pointer_types.remove(0);
        }
        self.pointer_types.push((pointee, storage_class.to_string(), ty));
        ty
    }

    /// Forgets the types parsed (an alias they may use changed meaning).
    fn clear_type_cache(&mut self) {
        self.type_cache.clear();
        self.type_front = Default::default();
    }

    /// Moves to the token at `offset`, as if the tokens before it were consumed.
    fn skip_to(&mut self, offset: usize) {
        self.lex.reset_to(offset);
        self.prev_end = offset;
        self.advance();
    }

    fn parse_type_inner(&mut self) -> PResult<Type> {
        let t = self.tok;
        match t.kind {
            Tok::Ident => {
                self.bump();
                let w = t.text;
                if let Some(kind) = FloatKind::from_keyword(w) {
                    return Ok(self.ir.types.float(kind));
                }
                if let Some((sign, digits)) = integer_keyword(w) {
                    let width = digits.parse().map_err(|_| ParseError {
                        notes: Vec::new(),
                        offset: t.offset,
                        message: "invalid integer width".into(),
                    })?;
                    return Ok(self.ir.types.integer(width, sign));
                }
                match w {
                    "index" => Ok(self.ir.types.intern(TypeKind::Index)),
                    "none" => Ok(self.ir.types.intern(TypeKind::None)),
                    "vector" => self.parse_vector_type(),
                    "tensor" | "memref" => self.parse_shaped_type(w),
                    "complex" => {
                        self.expect("<")?;
                        let e = self.parse_type()?;
                        self.expect(">")?;
                        Ok(self.ir.types.intern(TypeKind::Complex(e)))
                    }
                    "tuple" => {
                        self.expect("<")?;
                        let mut items = Vec::new();
                        if !self.at(">") {
                            loop {
                                items.push(self.parse_type()?);
                                if !self.eat(",") {
                                    break;
                                }
                            }
                        }
                        self.expect(">")?;
                        Ok(self.ir.types.intern(TypeKind::Tuple(items)))
                    }
                    _ => Err(Box::new(ParseError {
                        notes: Vec::new(),
                        offset: t.offset,
                        message: "expected non-function type".into(),
                    })),
                }
            }
            Tok::Punct if t.text == "(" => self.parse_function_type(),
            Tok::BangId => {
                self.bump();
                let name = &t.text[1..];
                if let Some(&ty) = self.type_aliases.get(name) {
                    return Ok(ty);
                }
                match name {
                    "spirv.array"
                    | "spirv.rtarray"
                    | "spirv.ptr"
                    | "spirv.image"
                    | "spirv.sampled_image"
                    | "spirv.sampler"
                    | "spirv.matrix"
                    | "spirv.coopmatrix"
                    | "spirv.struct" => self.parse_spirv_type(name, t.offset),
                    "llvm.ptr" | "llvm.array" | "llvm.struct" | "llvm.void" | "llvm.func" => {
                        self.parse_llvm_type(&name["llvm.".len()..])
                    }
                    _ => {
                        let body = if self.at("<") {
                            format!("<{}>", self.parse_angle_body()?)
                        } else {
                            String::new()
                        };
                        Ok(self.ir.types.intern(TypeKind::Opaque(format!("{name}{body}"))))
                    }
                }
            }
            _ => self.error("expected non-function type"),
        }
    }

    fn parse_function_type(&mut self) -> PResult<Type> {
        self.expect("(")?;
        let mut inputs = Vec::new();
        if !self.at(")") {
            loop {
                inputs.push(self.parse_type()?);
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(")")?;
        self.expect("->")?;
        let results = self.parse_function_result_types()?;
        Ok(self.ir.types.function(inputs, results))
    }

    /// After `->`: a single type or a parenthesized list.
    pub fn parse_function_result_types(&mut self) -> PResult<Vec<Type>> {
        if self.at("(") {
            // `(a, b)` or a function type `(a) -> b`: look ahead for `->` after `)`.
            let save = (self.lex.position(), self.tok);
            self.bump();
            let mut items = Vec::new();
            if !self.at(")") {
                loop {
                    items.push(self.parse_type()?);
                    if !self.eat(",") {
                        break;
                    }
                }
            }
            self.expect(")")?;
            if self.at("->") {
                self.lex.reset_to(save.0);
                self.tok = save.1;
                return Ok(vec![self.parse_function_type()?]);
            }
            return Ok(items);
        }
        Ok(vec![self.parse_type()?])
    }

    /// A dimension list and element type: `4x8xf32`, `[4]xf32`, `?x4xf32`. The lexer
    /// reads `4x8xf32` as `4` then the identifier `x8xf32`; [`Parser::split_x`] peels
    /// the `x` off and re-lexes the rest, as MLIR's parser does.
    fn parse_dims(&mut self) -> PResult<(Vec<Option<u64>>, Vec<bool>, Type)> {
        let mut dims = Vec::new();
        let mut scalable = Vec::new();
        loop {
            if self.eat("[") {
                dims.push(Some(self.parse_u32()? as u64));
                scalable.push(true);
                self.expect("]")?;
            } else if self.eat("?") {
                dims.push(None);
                scalable.push(false);
            } else if self.tok.kind == Tok::Integer {
                let t = self.bump();
                dims.push(Some(t.text.parse().map_err(|_| ParseError {
                    notes: Vec::new(),
                    offset: t.offset,
                    message: "invalid dimension".into(),
                })?));
                scalable.push(false);
            } else {
                let element = self.parse_type()?;
                return Ok((dims, scalable, element));
            }
            self.split_x()?;
        }
    }

    /// `x` as a separate word (`4 x f32`) or glued to what follows (`4xf32`).
    fn expect_x_word(&mut self) -> PResult<()> {
        if self.eat_keyword("x") {
            return Ok(());
        }
        self.split_x()
    }

    /// Consumes the `x` at the start of the current identifier token.
    fn split_x(&mut self) -> PResult<()> {
        if self.tok.kind == Tok::Ident && self.tok.text.starts_with('x') {
            self.lex.reset_to(self.tok.offset + 1);
            self.advance();
            return Ok(());
        }
        self.error("expected 'x' in dimension list")
    }

    fn parse_vector_type(&mut self) -> PResult<Type> {
        self.expect("<")?;
        let (dims, scalable, element) = self.parse_dims()?;
        self.expect(">")?;
        let shape = dims.into_iter().map(|d| d.unwrap_or(0)).collect();
        Ok(self.ir.types.intern(TypeKind::Vector { shape, scalable, element }))
    }

    fn parse_shaped_type(&mut self, which: &str) -> PResult<Type> {
        self.expect("<")?;
        let (shape, element) = if self.eat("*") {
            self.split_x()?;
            (None, self.parse_type()?)
        } else {
            let (dims, _, element) = self.parse_dims()?;
            (Some(dims), element)
        };
        let kind = if which == "tensor" {
            if self.eat(",") {
                self.parse_attribute()?;
            }
            TypeKind::Tensor { shape, element }
        } else {
            let memory_space = if self.eat(",") {
                let start = self.tok.offset;
                self.parse_attribute()?;
                Some(self.lex.source()[start..self.tok.offset].trim().to_string())
            } else {
                None
            };
            TypeKind::MemRef { shape, element, memory_space }
        };
        self.expect(">")?;
        Ok(self.ir.types.intern(kind))
    }

    fn parse_enum_word(&mut self) -> PResult<String> {
        if self.tok.kind != Tok::Ident {
            return self.error("expected enum keyword");
        }
        Ok(self.bump().text.to_string())
    }

    fn parse_u32(&mut self) -> PResult<u32> {
        let t = self.bump();
        if t.kind != Tok::Integer {
            return Err(Box::new(ParseError {
                notes: Vec::new(),
                offset: t.offset,
                message: "expected integer".into(),
            }));
        }
        Ok(t.text.parse().map_err(|_| ParseError {
            notes: Vec::new(),
            offset: t.offset,
            message: "integer out of range".into(),
        })?)
    }

    /// An LLVM dialect type after its keyword (`ptr`, `array`, `struct`, `void`,
    /// `func`), with or without the `!llvm.` prefix already read.
    fn parse_llvm_type(&mut self, keyword: &str) -> PResult<Type> {
        let kind = match keyword {
            "ptr" => {
                let mut address_space = 0;
                if self.eat("<") {
                    address_space = self.parse_u32()?;
                    self.expect(">")?;
                }
                TypeKind::LlvmPointer { address_space }
            }
            "array" => {
                self.expect("<")?;
                let count = u64::from(self.parse_u32()?);
                self.expect_x_word()?;
                let element = self.nested(|p| p.parse_llvm_nested_type())?;
                self.expect(">")?;
                TypeKind::LlvmArray { count, element }
            }
            "struct" => {
                self.expect("<")?;
                let mut name = None;
                if self.tok.kind == Tok::String {
                    name = Some(unescape_to_string(self.bump().text));
                    if self.at(">") {
                        return self.error("not supported yet: a recursive or opaque identified LLVM struct");
                    }
                    self.expect(",")?;
                }
                let packed = self.eat_keyword("packed");
                if self.at_keyword("opaque") {
                    return self.error("not supported yet: an opaque LLVM struct");
                }
                self.expect("(")?;
                let mut members = Vec::new();
                if !self.at(")") {
                    loop {
                        members.push(self.nested(|p| p.parse_llvm_nested_type())?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                self.expect(")")?;
                self.expect(">")?;
                TypeKind::LlvmStruct { name, packed, members }
            }
            "void" => TypeKind::LlvmVoid,
            "func" => {
                self.expect("<")?;
                let result = self.nested(|p| p.parse_llvm_nested_type())?;
                self.expect("(")?;
                let mut params = Vec::new();
                let mut variadic = false;
                if !self.at(")") {
                    loop {
                        // The lexer reads `...` as one punctuation token.
                        if self.eat("...") {
                            variadic = true;
                            break;
                        }
                        params.push(self.nested(|p| p.parse_llvm_nested_type())?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                self.expect(")")?;
                self.expect(">")?;
                TypeKind::LlvmFunction { result, params, variadic }
            }
            other => return self.error(format!("unknown LLVM type: {other}")),
        };
        Ok(self.ir.types.intern(kind))
    }

    /// A type inside an LLVM dialect type: LLVM types may drop their `!llvm.` prefix.
    fn parse_llvm_nested_type(&mut self) -> PResult<Type> {
        if self.tok.kind == Tok::Ident {
            let keyword = self.tok.text;
            if matches!(keyword, "ptr" | "array" | "struct" | "void" | "func") {
                self.bump();
                return self.parse_llvm_type(keyword);
            }
        }
        self.parse_type()
    }

    fn parse_spirv_type(&mut self, name: &str, offset: usize) -> PResult<Type> {
        let kind = match name {
            "spirv.sampler" => TypeKind::Sampler,
            "spirv.array" => self.parse_array_type()?,
            "spirv.rtarray" => self.parse_runtime_array_type()?,
            "spirv.ptr" => self.parse_pointer_type()?,
            "spirv.image" => self.parse_image_type()?,
            "spirv.sampled_image" => {
                self.expect("<")?;
                let image = self.parse_type()?;
                self.expect(">")?;
                TypeKind::SampledImage(image)
            }
            "spirv.matrix" => {
                self.expect("<")?;
                let columns = self.parse_u32()?;
                self.expect_x_word()?;
                let column = self.parse_type()?;
                self.expect(">")?;
                TypeKind::Matrix { column, columns }
            }
            "spirv.coopmatrix" => self.parse_coopmatrix_type(offset)?,
            _ => return self.parse_struct_type(),
        };
        Ok(self.ir.types.intern(kind))
    }

    /// `!spirv.array<N x T, stride=S>` after its name. Its own function, so the recursion through nested types keeps
    /// `parse_spirv_type`'s stack frame small.
    fn parse_array_type(&mut self) -> PResult<TypeKind> {
        self.expect("<")?;
        let (count, spec_length) = if self.tok.kind == Tok::Integer {
            (self.parse_u32()?, None)
        } else {
            (0, Some(self.parse_constant_expr()?))
        };
        self.expect_x_word()?;
        let element = self.parse_type()?;
        let stride = self.parse_optional_stride()?;
        self.expect(">")?;
        Ok(TypeKind::Array { element, count, stride, spec_length })
    }

    /// `!spirv.rtarray<T, stride=S>` after its name. Its own function, so the recursion through nested types keeps
    /// `parse_spirv_type`'s stack frame small.
    fn parse_runtime_array_type(&mut self) -> PResult<TypeKind> {
        self.expect("<")?;
        let element = self.parse_type()?;
        let (mut stride, mut stride_id) = (None, None);
        if self.eat(",") {
            self.expect_keyword("stride")?;
            self.expect("=")?;
            if self.tok.kind == Tok::Integer {
                let literal = self.parse_u32()?;
                if self.eat(":") {
                    let ty = self.parse_type()?;
                    stride_id = Some(ConstantExpr::Constant { value: i128::from(literal), ty });
                } else {
                    stride = Some(literal);
                }
            } else {
                stride_id = Some(self.parse_constant_expr()?);
            }
        }
        self.expect(">")?;
        Ok(TypeKind::RuntimeArray { element, stride, stride_id })
    }

    /// `!spirv.ptr<T, Class, stride=S>` after its name. Its own function, so the recursion through nested types keeps
    /// `parse_spirv_type`'s stack frame small.
    fn parse_pointer_type(&mut self) -> PResult<TypeKind> {
        self.expect("<")?;
        let pointee = self.parse_type()?;
        self.expect(",")?;
        let storage_class = self.parse_enum_word()?;
        let stride = self.parse_optional_stride()?;
        self.expect(">")?;
        Ok(TypeKind::Pointer { pointee, storage_class, stride })
    }

    /// `!spirv.image<T, ...>` after its name. Its own function, so the recursion through nested types keeps
    /// `parse_spirv_type`'s stack frame small.
    fn parse_image_type(&mut self) -> PResult<TypeKind> {
        self.expect("<")?;
        let element = self.parse_type()?;
        let mut params: [String; 6] = Default::default();
        for p in params.iter_mut() {
            self.expect(",")?;
            *p = self.parse_enum_word()?;
        }
        self.expect(">")?;
        Ok(TypeKind::Image { element, params })
    }

    /// `!spirv.coopmatrix<R x C x T, Scope, Use>` after its name. Its own function, so the recursion through nested types keeps
    /// `parse_spirv_type`'s stack frame small.
    fn parse_coopmatrix_type(&mut self, offset: usize) -> PResult<TypeKind> {
        self.expect("<")?;
        let (dims, _, element) = self.parse_dims()?;
        if dims.len() != 2 {
            return Err(Box::new(ParseError {
                notes: Vec::new(),
                offset,
                message: "expected rows x columns".into(),
            }));
        }
        self.expect(",")?;
        let scope = self.parse_enum_word()?;
        self.expect(",")?;
        let usage = self.parse_enum_word()?;
        self.expect(">")?;
        Ok(TypeKind::CooperativeMatrix {
            rows: dims[0].unwrap_or(0) as u32,
            columns: dims[1].unwrap_or(0) as u32,
            element,
            scope,
            usage,
        })
    }

    /// A constant an array type names by id (see [`ConstantExpr`]): `@n`, `1 : i32`,
    /// `IAdd(@n, 1 : i32) : i32` or `sizeof(!spirv.sampler) : i32`.
    fn parse_constant_expr(&mut self) -> PResult<ConstantExpr> {
        match self.tok.kind {
            Tok::AtId => Ok(ConstantExpr::Symbol(symbol_name(self.bump().text))),
            Tok::Ident if self.tok.text == "sizeof" => {
                self.bump();
                self.expect("(")?;
                let of = self.parse_type()?;
                self.expect(")")?;
                self.expect(":")?;
                let ty = self.parse_type()?;
                Ok(ConstantExpr::SizeOf { of, ty })
            }
            Tok::Ident => {
                let name = self.bump().text.to_string();
                self.expect("(")?;
                let mut operands = Vec::new();
                if !self.at(")") {
                    loop {
                        operands.push(self.nested(|p| p.parse_constant_expr())?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                self.expect(")")?;
                self.expect(":")?;
                let ty = self.parse_type()?;
                Ok(ConstantExpr::Operation { name, operands, ty })
            }
            _ => match self.parse_attribute()? {
                Attribute::Integer { value, ty } => Ok(ConstantExpr::Constant { value, ty }),
                _ => self.error("expected an integer, @symbol, operation or sizeof"),
            },
        }
    }

    fn parse_optional_stride(&mut self) -> PResult<Option<u32>> {
        if self.eat(",") {
            self.expect_keyword("stride")?;
            self.expect("=")?;
            return Ok(Some(self.parse_u32()?));
        }
        Ok(None)
    }

    fn parse_struct_type(&mut self) -> PResult<Type> {
        self.expect("<")?;
        let mut name = None;
        if self.tok.kind == Tok::Ident || self.tok.kind == Tok::String {
            let t = self.bump();
            let n = if t.kind == Tok::String { unescape_to_string(t.text) } else { t.text.to_string() };
            if self.eat(">") {
                // A reference to an identified struct being defined.
                return Ok(self.ir.types.intern(TypeKind::IdentifiedStruct { name: n }));
            }
            self.expect(",")?;
            name = Some(n);
        }
        let id = name.as_ref().map(|n| self.ir.types.intern(TypeKind::IdentifiedStruct { name: n.clone() }));
        self.expect("(")?;
        let mut body = StructBody::default();
        if !self.at(")") {
            loop {
                let ty = self.parse_type()?;
                let mut member = StructMember { ty, offset: None, decorations: vec![] };
                if self.eat("[") {
                    if self.tok.kind == Tok::Integer {
                        member.offset = Some(self.parse_u32()?);
                        if !self.eat(",") {
                            self.expect("]")?;
                            body.members.push(member);
                            if !self.eat(",") {
                                break;
                            }
                            continue;
                        }
                    }
                    loop {
                        let d = self.parse_enum_word()?;
                        let value = if self.eat("=") { Some(self.bump().text.to_string()) } else { None };
                        member.decorations.push((d, value));
                        if !self.eat(",") {
                            break;
                        }
                    }
                    self.expect("]")?;
                }
                body.members.push(member);
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect(")")?;
        while self.eat(",") {
            let d = self.parse_enum_word()?;
            let value = if self.eat("=") { Some(self.bump().text.to_string()) } else { None };
            body.decorations.push((d, value));
        }
        self.expect(">")?;
        match (name, id) {
            (Some(n), Some(id)) => {
                self.ir.types.set_struct_body(&n, body).map_err(|_| ParseError {
                    notes: Vec::new(),
                    offset: self.tok.offset,
                    message: format!("identified struct '{n}' redefined with a different body"),
                })?;
                Ok(id)
            }
            _ => Ok(self.ir.types.intern(TypeKind::LiteralStruct(body))),
        }
    }
}

/// Re-spaces the body of a dialect attribute or type kept as text the way MLIR
/// prints such bodies: `a = b, (0, 1), <X>`.
pub fn normalize_body(text: &str) -> String {
    let mut lex = Lexer::new(text);
    let mut out = String::new();
    let mut prev: Option<Token> = None;
    let mut prev2: Option<Token> = None;
    loop {
        let t = lex.next_token();
        if t.kind == Tok::Eof {
            break;
        }
        // Enum attributes nested in a dialect attribute print without their prefix
        // (`scope = <Subgroup>`).
        if t.kind == Tok::HashId
            && t.text
                .strip_prefix("#spirv.")
                .is_some_and(|m| crate::opdef::enum_attr_by_mnemonic(m).is_some())
        {
            continue;
        }
        if let Some(p) = prev {
            let is = |x: &Token, set: &[&str]| x.kind == Tok::Punct && set.contains(&x.text);
            let open = is(&p, &["<", "(", "[", "{"]);
            let close = is(&t, &[">", ")", "]", "}", ","]);
            let glued_angle = is(&t, &["<"]) && !is(&p, &["=", ","]);
            // `A|B` masks are printed without spaces.
            let bar = is(&p, &["|"]) || is(&t, &["|"]);
            // Shapes (`2x3xi32`) lex as a number followed by `x3xi32`.
            let shape = (p.kind == Tok::Integer || is(&p, &["?", "*"]))
                && t.kind == Tok::Ident
                && t.text.starts_with('x');
            let bar = bar || shape;
            // `#spirv.target_env` prints its keyword parameters as `api=Metal`.
            let tight_key = |x: &Token| {
                x.kind == Tok::Ident && matches!(x.text, "api" | "vendor" | "device_type" | "device_id")
            };
            let tight = (is(&t, &["="]) && tight_key(&p))
                || (is(&p, &["="]) && prev2.as_ref().is_some_and(tight_key));
            let around = is(&p, &["=", ":", "->"]) || (is(&t, &["=", ":", "->"]) && !open);
            if !bar && !tight && (around || (!open && !close && !glued_angle)) {
                out.push(' ');
            }
        }
        out.push_str(t.text);
        prev2 = prev;
        prev = Some(t);
    }
    out
}

/// `#spirv.target_env` as MLIR prints it: the default `api=Unknown` is dropped and
/// `vendor:device:id` is written without spaces, the device id in decimal.
fn canonical_target_env(body: &str) -> String {
    let parts: Vec<String> = split_top_level(body)
        .into_iter()
        .filter(|p| p != "api = Unknown" && p != "api=Unknown")
        .map(|p| {
            if p.starts_with('#') {
                return p;
            }
            if p.starts_with("api") {
                return p.replace(" = ", "=");
            }
            // vendor:device_type[:device_id]
            let pieces: Vec<String> = p
                .split(':')
                .map(|x| {
                    let x = x.trim();
                    match x.strip_prefix("0x").and_then(|h| u64::from_str_radix(h, 16).ok()) {
                        Some(n) => n.to_string(),
                        None => x.to_string(),
                    }
                })
                .collect();
            pieces.join(":")
        })
        .collect();
    parts.join(", ")
}

/// Splits on commas that are not nested in `<>`, `()` or `[]`.
fn split_top_level(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

/// The offsets of the `\n` bytes, eight bytes at a time.
fn newline_offsets(bytes: &[u8]) -> Vec<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut out = Vec::with_capacity(bytes.len() / 32);
    let mut chunks = bytes.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else { break };
        // Bytes equal to '\n' become zero; a zero byte is one whose high bit stays
        // clear after adding 0x7f to its low seven bits and or-ing it back in.
        let x = u64::from_le_bytes(word) ^ (ONES * u64::from(b'\n'));
        let mut found = !(((x & LOW7) + LOW7) | x) & !LOW7;
        while found != 0 {
            out.push(base + found.trailing_zeros() as usize / 8);
            found &= found - 1;
        }
        base += 8;
    }
    out.extend(chunks.remainder().iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| base + i));
    out
}

/// `i32` -> (Signless, "32"), `si8`, `ui64`.
fn integer_keyword(w: &str) -> Option<(Signedness, &str)> {
    let (sign, digits) = if let Some(d) = w.strip_prefix("si") {
        (Signedness::Signed, d)
    } else if let Some(d) = w.strip_prefix("ui") {
        (Signedness::Unsigned, d)
    } else if let Some(d) = w.strip_prefix('i') {
        (Signedness::Signless, d)
    } else {
        return None;
    };
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some((sign, digits))
}

fn parse_integer_text(text: &str) -> Option<u128> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        u128::from_str_radix(hex, 16).ok()
    } else {
        text.parse().ok()
    }
}

/// `@name` or `@"quoted name"` -> the name.
pub fn symbol_name(token: &str) -> String {
    let t = &token[1..];
    if t.starts_with('"') {
        unescape_to_string(t)
    } else {
        t.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_small_numbers_index_the_numbered_values() {
        assert_eq!(number_of_name("0"), Some(0));
        assert_eq!(number_of_name("12"), Some(12));
        assert_eq!(number_of_name("65535"), Some(65535));
        for other in ["", "00", "012", "65536", "123456", "1a", "arg0", "x"] {
            assert_eq!(number_of_name(other), None, "{other}");
        }
        // `%0` and `%00` are different names.
        let source = "\"x.a\"() : () -> i32\n%00 = \"x.b\"() : () -> f32\n%0 = \"x.c\"() : () -> i32\n\
                      \"x.d\"(%00, %0) : (f32, i32) -> ()\n";
        assert!(crate::parse(source, "t.mlir").is_ok());
        let redefined = "%0 = \"x.c\"() : () -> i32\n%0 = \"x.c\"() : () -> i32\n";
        let error = crate::parse(redefined, "t.mlir").expect_err("redefinition");
        assert_eq!(error.message, "redefinition of SSA value '%0'");
    }

    #[test]
    fn result_counts_do_not_wrap() {
        let source = "%a:4294967295, %b:2 = \"x.op\"() : () -> i32\n";
        let error = crate::parse(source, "t.mlir").expect_err("too many names");
        assert_eq!(error.message, "operation defines 1 results but was provided 4294967297 to bind");
    }

    #[test]
    fn newlines_are_found_in_any_alignment() {
        let text = "a\nbc\n\n defgh\nijklmnopq\n\n\nrstuvwxyz0123456789\n";
        for start in 0..text.len() {
            let bytes = &text.as_bytes()[start..];
            let expected: Vec<usize> =
                bytes.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i).collect();
            assert_eq!(newline_offsets(bytes), expected);
        }
    }

    #[test]
    fn offsets_become_lines_and_columns_in_any_order() {
        let text = "ab\n\ncd\n  e";
        let mut ir = Ir::new();
        let mut p = Parser::new(text, &mut ir, "t");
        let expected = [
            (0, (1, 1)),
            (2, (1, 3)),
            (3, (2, 1)),
            (4, (3, 1)),
            (6, (3, 3)),
            (7, (4, 1)),
            (9, (4, 3)),
            (10, (4, 4)),
        ];
        for &(offset, lc) in expected.iter().chain(expected.iter().rev()) {
            assert_eq!(p.line_col(offset), lc, "{offset}");
        }
    }

    #[test]
    fn repeated_type_texts_give_the_same_type() {
        let source = "!a = f32\n\"x.op\"() : () -> (!spirv.ptr<!a, Function>, !spirv.ptr<!a, Function>)\n\
                      !a = i32\n\"x.op\"() : () -> (!spirv.ptr<!a, Function>, vector<2xf32>, vector<2xf32>)\n";
        let (ir, top) = crate::parse(source, "t.mlir").expect("parses");
        let block = ir.entry_block(top).expect("a body");
        let types = |op: OpId| -> Vec<String> {
            ir.op(op)
                .results
                .iter()
                .map(|&v| crate::text::printer::type_to_string(&ir, ir.value_type(v)))
                .collect()
        };
        let ops = &ir.block(block).ops;
        assert_eq!(types(ops[0]), ["!spirv.ptr<f32, Function>", "!spirv.ptr<f32, Function>"]);
        // The alias changed meaning: the cached text must not be reused.
        assert_eq!(types(ops[1]), ["!spirv.ptr<i32, Function>", "vector<2xf32>", "vector<2xf32>"]);
    }
}
