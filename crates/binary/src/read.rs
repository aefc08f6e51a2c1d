//! Binary reader: bytes -> [`Module`], every operand decoded by the grammar.
//!
//! Input is untrusted: every length is checked against the words actually
//! present before it is used, and per-id tables are sized by the input, never by
//! the header's bound alone.

use crate::idmap::IdMap;
use crate::module::{
    Endian, ExtSetRef, Header, Inst, InstRecord, Module, NumberKind, OperandPool, ParsedOperand, Table,
    POOLED,
};
use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_grammar::{self as grammar, opcode, Category, OperandKind, Quantifier, EXT_INST_SETS};

/// A reader error: where in the module it happened (in words from the start of
/// the file, header included) and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("word {word_offset}: {kind}")]
pub struct ReadError {
    pub word_offset: usize,
    pub kind: ReadErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadErrorKind {
    #[error("module has an incomplete header: {bytes} bytes, expected at least 20")]
    TruncatedHeader { bytes: usize },
    #[error("module size {bytes} is not a multiple of 4 bytes")]
    PartialWord { bytes: usize },
    #[error("bad magic number {0:#010x}, expected 0x07230203")]
    BadMagic(u32),
    #[error("instruction has word count 0")]
    ZeroWordCount,
    #[error("{name} has word count {word_count} but only {remaining} words remain in the module")]
    PastEnd { name: String, word_count: u16, remaining: usize },
    #[error("unknown opcode {0}")]
    UnknownOpcode(u16),
    #[error("{name} expects more operands after {words} words: missing {expected}")]
    MissingOperand { name: String, words: usize, expected: &'static str },
    #[error("{name} expects no more operands after {words} words, but its word count is {word_count}")]
    ExtraOperands { name: String, words: usize, word_count: u16 },
    #[error("{name}: invalid {kind} operand {value}")]
    UnknownEnumerant { name: String, kind: &'static str, value: u32 },
    #[error("{name}: string operand is not NUL-terminated inside the instruction")]
    UnterminatedString { name: String },
    #[error("{name}: id {id} is not below the bound {bound}")]
    IdOutOfBound { name: String, id: u32, bound: u32 },
    #[error("{name}: id {id} is defined more than once")]
    DuplicateId { name: String, id: u32 },
    #[error("{name}: id is 0")]
    ZeroId { name: String },
    #[error("{name}: type {type_id} of a literal number is not a scalar integer or float type")]
    NotNumericType { name: String, type_id: u32 },
    #[error(
        "{name}: literal numbers wider than 64 bits are not supported yet (type {type_id} is {width} bits)"
    )]
    UnsupportedWidth { name: String, type_id: u32, width: u32 },
    #[error("OpSwitch selector {0} has no known scalar integer type")]
    BadSwitchSelector(u32),
    #[error("OpExtInst set {0} is not the result of an OpExtInstImport")]
    NotAnExtInstImport(u32),
    #[error("unknown extended instruction set \"{0}\"")]
    UnknownExtInstSet(String),
    #[error("extended instruction set \"{set}\" has no instruction {number}")]
    UnknownExtInst { set: &'static str, number: u32 },
    #[error("OpSpecConstantOp: invalid opcode {0}")]
    BadSpecConstantOp(u32),
    #[error("{name}: invalid {what} width {width}")]
    BadTypeWidth { name: String, what: &'static str, width: u32 },
}

/// Reads a module from bytes of either endianness.
pub fn read(bytes: &[u8]) -> Result<Module, ReadError> {
    let err = |word_offset, kind| Err(ReadError { word_offset, kind });
    if bytes.len() < 20 {
        return err(0, ReadErrorKind::TruncatedHeader { bytes: bytes.len() });
    }
    if !bytes.len().is_multiple_of(4) {
        return err(bytes.len() / 4, ReadErrorKind::PartialWord { bytes: bytes.len() });
    }
    let magic_le = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let endian = endian_of(magic_le)?;
    // Fill a zeroed buffer in place: this form compiles to a vectorized loop.
    let mut words = vec![0u32; bytes.len() / 4];
    let chunks = words.iter_mut().zip(bytes.chunks_exact(4));
    match endian {
        Endian::Little => chunks.for_each(|(w, c)| *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        Endian::Big => chunks.for_each(|(w, c)| *w = u32::from_be_bytes([c[0], c[1], c[2], c[3]])),
    }
    read_words(words, endian)
}

/// [`read`] of a binary whose bytes were taken four at a time as little-endian
/// words (`u32::from_le_bytes`, as a reader that never holds the bytes makes them):
/// the words of a big-endian module are swapped in place, so no second buffer is
/// made. The errors are `read`'s for those bytes.
pub fn read_le_words(mut words: Vec<u32>) -> Result<Module, ReadError> {
    if words.len() < Header::WORDS {
        let bytes = words.len() * 4;
        return Err(ReadError { word_offset: 0, kind: ReadErrorKind::TruncatedHeader { bytes } });
    }
    let endian = endian_of(words[0])?;
    if endian == Endian::Big {
        words.iter_mut().for_each(|w| *w = w.swap_bytes());
    }
    read_words(words, endian)
}

/// The byte order of a module whose first word, read little-endian, is `magic_le`.
fn endian_of(magic_le: u32) -> Result<Endian, ReadError> {
    if magic_le == grammar::MAGIC_NUMBER {
        Ok(Endian::Little)
    } else if magic_le.swap_bytes() == grammar::MAGIC_NUMBER {
        Ok(Endian::Big)
    } else {
        Err(ReadError { word_offset: 0, kind: ReadErrorKind::BadMagic(magic_le) })
    }
}

/// Reads a module from host-order words (the header included).
pub fn read_words(words: Vec<u32>, endian: Endian) -> Result<Module, ReadError> {
    read_words_split(words, endian, Split::Auto)
}

/// [`read_words`] with the function section cut at its middle function whatever its
/// size (the fuzz target `read` compares this with one thread's read), and whether
/// the cut stood (else the module was read again on one thread).
#[doc(hidden)]
pub fn read_words_cut_at_middle(words: Vec<u32>, endian: Endian) -> Result<(Module, bool), ReadError> {
    let mut stood = false;
    let module = read_words_with(words, endian, Split::Middle, &mut stood)?;
    Ok((module, stood))
}

/// Whether two reads made the same module (words, header and every record).
#[doc(hidden)]
pub fn same_reading(a: &Module, b: &Module) -> bool {
    a.header == b.header && a.endian == b.endian && a.words == b.words && a.table == b.table
}

/// Where the function section is cut for a read on two threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Split {
    /// At the function nearest the middle, when the module is large and there are
    /// two cores.
    Auto,
    /// At the function nearest the middle, whatever the size and the cores.
    Middle,
    /// One thread.
    #[cfg(test)]
    Never,
    /// At this word (an instruction boundary inside the function section).
    #[cfg(test)]
    At(usize),
}

/// Function sections smaller than this are read on one thread: a thread costs
/// tens of microseconds to start.
const MIN_SPLIT_WORDS: usize = 64 * 1024;

pub(crate) use spirvkit_threads::two_cores;

fn read_words_split(words: Vec<u32>, endian: Endian, split: Split) -> Result<Module, ReadError> {
    read_words_with(words, endian, split, &mut false)
}

fn read_words_with(
    words: Vec<u32>,
    endian: Endian,
    split: Split,
    stood: &mut bool,
) -> Result<Module, ReadError> {
    let header = header_of(&words)?;
    let layout = Layout::of(&words, split);
    let (table, split_stood) = parse_tables(&words, header.bound, &layout, shapes())?;
    *stood = split_stood;
    Ok(Module { header, endian, words, table, pool: OperandPool(operand_pool()) })
}

/// The header of host-order `words`.
fn header_of(words: &[u32]) -> Result<Header, ReadError> {
    if words.len() < Header::WORDS {
        return Err(ReadError {
            word_offset: 0,
            kind: ReadErrorKind::TruncatedHeader { bytes: words.len() * 4 },
        });
    }
    if words[0] != grammar::MAGIC_NUMBER {
        return Err(ReadError { word_offset: 0, kind: ReadErrorKind::BadMagic(words[0]) });
    }
    Ok(Header { version: words[1], generator: words[2], bound: words[3], schema: words[4] })
}

/// What [`visit_words`] hands each instruction to.
pub trait Visit {
    fn visit(&mut self, inst: &Inst<'_>);
}

/// Reads host-order `words` (the header included) as [`read_words`] does, with the
/// same errors, but keeps none of its tables: each instruction goes to a visitor as
/// it is read and is then forgotten. (A reader that only checks a module, as the
/// serializer's read-back does, need not make a large module's tables of fresh memory.)
///
/// A large module's function section is read in two halves on two threads, as
/// `read_words` does: `first` sees the instructions before the cut and the second
/// half's go to the visitor `fork` makes from it once the module-level section is
/// read. When the second half does not stand, it is read again after the first by
/// `first`, and there is no second visitor. The visitors are returned in order.
pub fn visit_words<V: Visit + Send>(
    words: &[u32],
    first_visitor: V,
    fork: impl FnOnce(&V) -> V,
) -> Result<(V, Option<V>), ReadError> {
    visit_words_split(words, Split::Auto, first_visitor, fork)
}

pub(crate) fn visit_words_split<V: Visit + Send>(
    words: &[u32],
    split: Split,
    mut first_visitor: V,
    fork: impl FnOnce(&V) -> V,
) -> Result<(V, Option<V>), ReadError> {
    let header = header_of(words)?;
    let cut = Layout::cut_of(words, split);
    let ids = IdMap::presized(header.bound, words.len());
    let capacity = (1, 64);
    let mut first = Parser::new(words, header.bound, ids, FxHashMap::default(), capacity, shapes());
    let Some((functions, cut)) = cut else {
        first.visit_range(Header::WORDS, words.len(), &mut first_visitor, None)?;
        return Ok((first_visitor, None));
    };
    first.visit_range(Header::WORDS, functions, &mut first_visitor, None)?;
    let mut second_visitor = fork(&first_visitor);
    let mut second =
        Parser::new(words, header.bound, first.ids.clone(), first.facts.clone(), capacity, shapes());
    let mut second_defined = Vec::new();
    let (first_result, second_ok) = std::thread::scope(|scope| {
        let handle = spirvkit_threads::spawn_scoped(scope, || {
            second.visit_range(cut, words.len(), &mut second_visitor, Some(&mut second_defined)).is_ok()
        });
        let first_result = first.visit_range(functions, cut, &mut first_visitor, None);
        (first_result, handle.is_ok_and(|h| h.join().unwrap_or(false)))
    });
    first_result?;
    if first.second_half_stands(second_ok, second_defined) {
        return Ok((first_visitor, Some(second_visitor)));
    }
    first.visit_range(cut, words.len(), &mut first_visitor, None)?;
    Ok((first_visitor, None))
}

/// Where the instructions are, found from their word counts alone (the walk stops
/// at a zero word count, which the parser reports): how many there are, for exact
/// table capacities, and where the function section may be cut in two.
struct Layout {
    /// The first OpFunction and the cut (an instruction boundary after it), if any.
    cut: Option<(usize, usize)>,
    /// Instructions before the cut (all of them without one) and after it.
    counts: [usize; 2],
}

/// A walk over the instructions by their word counts.
struct Walk<'w> {
    words: &'w [u32],
    pos: usize,
    count: usize,
}

impl Walk<'_> {
    /// Goes on to the first instruction (its word and first word) that `stop` accepts;
    /// `None` at the end or a zero word count.
    #[inline(always)]
    fn until(&mut self, stop: impl Fn(usize, u32) -> bool) -> Option<usize> {
        while let Some(&first) = self.words.get(self.pos) {
            let word_count = (first >> 16) as usize;
            if word_count == 0 || stop(self.pos, first) {
                return (word_count != 0).then_some(self.pos);
            }
            self.pos += word_count;
            self.count += 1;
        }
        None
    }
}

impl Layout {
    fn of(words: &[u32], split: Split) -> Layout {
        Layout::walk(words, split, true)
    }

    /// Only where the function section is cut, if it is: the walk stops there, not
    /// counting the instructions after it (a visit needs no table capacities).
    fn cut_of(words: &[u32], split: Split) -> Option<(usize, usize)> {
        Layout::walk(words, split, false).cut
    }

    /// The layout, with the instructions after the cut counted if `count_all`
    /// (else `counts` holds only those before it).
    fn walk(words: &[u32], split: Split, count_all: bool) -> Layout {
        let mut walk = Walk { words, pos: Header::WORDS, count: 0 };
        let is_function = |first: u32| (first & 0xffff) as u16 == opcode::OpFunction;
        let Some(functions) = walk.until(|_, first| is_function(first)) else {
            return Layout { cut: None, counts: [walk.count, 0] };
        };
        let middle = match split {
            Split::Auto if words.len() - functions >= MIN_SPLIT_WORDS && two_cores() => {
                functions + (words.len() - functions) / 2
            }
            Split::Middle => functions + (words.len() - functions) / 2,
            #[cfg(test)]
            Split::At(at) => at,
            _ => usize::MAX,
        };
        // The cut is at a function (whose ids the other half's functions do not use)
        // after the first one.
        let cut = walk
            .until(|pos, _| pos > functions)
            .and_then(|_| walk.until(|pos, first| pos >= middle && is_function(first)));
        let before = walk.count;
        if count_all {
            walk.until(|_, _| false);
        }
        let count = walk.count;
        match cut {
            #[cfg(test)]
            Some(cut) if matches!(split, Split::At(at) if at != cut) => {
                Layout { cut: None, counts: [count, 0] }
            }
            Some(cut) => Layout { cut: Some((functions, cut)), counts: [before, count - before] },
            None => Layout { cut: None, counts: [count, 0] },
        }
    }
}

/// Parses all instructions, with a cut in two halves on two threads; tells whether
/// that stood.
fn parse_tables(
    words: &[u32],
    bound: u32,
    layout: &Layout,
    shapes: &'static [Shape],
) -> Result<(Table, bool), ReadError> {
    // Every operand takes at least one word that is not an opcode word.
    let operand_words = |from: usize, to: usize, count: usize| to.saturating_sub(from).saturating_sub(count);
    let ids = IdMap::presized(bound, words.len());
    let Some((functions, cut)) = layout.cut else {
        let capacity = (layout.counts[0], operand_words(Header::WORDS, words.len(), layout.counts[0]));
        let mut parser = Parser::new(words, bound, ids, FxHashMap::default(), capacity, shapes);
        parser.parse_range(Header::WORDS, words.len())?;
        return Ok((parser.table, false));
    };
    // The first half's table takes the second's after it.
    let count = layout.counts[0] + layout.counts[1];
    let capacity = (count, operand_words(Header::WORDS, words.len(), count));
    let mut first = Parser::new(words, bound, ids, FxHashMap::default(), capacity, shapes);
    first.parse_range(Header::WORDS, functions)?;
    // The second half starts from what the module-level section defined.
    let capacity = (layout.counts[1], operand_words(cut, words.len(), layout.counts[1]));
    let mut second = Parser::new(words, bound, first.ids.clone(), first.facts.clone(), capacity, shapes);
    let (first_result, second_ok) = std::thread::scope(|scope| {
        let handle = spirvkit_threads::spawn_scoped(scope, || second.parse_range(cut, words.len()).is_ok());
        let first_result = first.parse_range(functions, cut);
        (first_result, handle.is_ok_and(|h| h.join().unwrap_or(false)))
    });
    first_result?;
    let second_defined = second.table.instructions.iter().map(|r| r.result_id).filter(|&id| id != 0);
    if first.second_half_stands(second_ok, second_defined) {
        let Table { instructions, operands } = &mut first.table;
        let base = operands.len() as u32;
        operands.extend_from_slice(&second.table.operands);
        instructions.extend(second.table.instructions.iter().map(|&r| match r.operands_start {
            start if start & POOLED != 0 => r,
            start => InstRecord { operands_start: start + base, ..r },
        }));
        return Ok((first.table, true));
    }
    // Read it again after the first half, as one thread would have.
    drop(second);
    first.parse_range(cut, words.len())?;
    Ok((first.table, false))
}

#[derive(Clone, Copy, Default)]
enum IdFact {
    #[default]
    Unknown,
    NumericType(NumberKind),
    ExtImport(ExtSetRef),
}

/// Marks an id defined without a result type in [`Parser::ids`] (no id is
/// `u32::MAX`: ids are below the bound).
const NO_TYPE: u32 = u32::MAX;

/// One pending operand slot while decoding an instruction.
#[derive(Clone, Copy)]
struct Expected {
    kind: OperandKind,
    quantifier: Quantifier,
}

struct Parser<'w> {
    words: &'w [u32],
    bound: u32,
    /// Per id: 0 while it is not defined, else its result type ([`NO_TYPE`] if none).
    ids: IdMap<u32>,
    /// What later instructions need to know of a few ids: numeric types (literal
    /// widths) and extended instruction set imports.
    facts: FxHashMap<u32, IdFact>,
    table: Table,
    /// Operands pushed by the operands decoded so far (enumerant parameters, an extended
    /// instruction's or a spec-constant op's operands), next one last; they come before
    /// the rest of the instruction's grammar operands.
    stack: Vec<Expected>,
    shapes: &'static [Shape],
}

fn push_operands(stack: &mut Vec<Expected>, operands: &[grammar::Operand]) {
    for o in operands.iter().rev() {
        stack.push(Expected { kind: o.kind, quantifier: o.quantifier });
    }
}

fn ceil_words(bits: u16) -> u16 {
    bits.div_ceil(32)
}

fn inst_name(op: u16) -> String {
    grammar::instruction(op).map_or("?", |i| i.name).to_string()
}

fn opcode_of(iw: &[u32]) -> u16 {
    iw.first().map_or(0, |&w| (w & 0xffff) as u16)
}

/// The operands of an instruction that the reader can take without the general
/// machinery: as long as only ids, 32-bit literal integers and enumerants without
/// parameters are present, each operand is one word whose kind is the grammar's at
/// that position.
#[derive(Clone)]
struct Shape {
    /// The parsed operands of the leading simple grammar operands (those before a
    /// variadic one, see [`is_simple`]), then, with a simple variadic one, its parts
    /// for [`VARIADIC_WORDS`] words. An instruction whose operands it covers shares
    /// them instead of having its own.
    template: Vec<ParsedOperand>,
    /// How many grammar operands come before a variadic one, and how many of them
    /// are simple.
    fixed: u8,
    simple: u8,
    /// Where `template` starts in the operand pool.
    pooled: u32,
    /// Operands needed (up to and including the last one that must be present).
    min: u8,
    /// The parts of a variadic last operand (one, or two for a pair) when they are
    /// all simple, and so are all fixed operands; `variadic_len` is 0 without one.
    variadic: [ParsedOperand; 2],
    variadic_len: u8,
    /// Word index of the result type and of the result id (0 if none).
    result_type_at: u8,
    result_at: u8,
}

impl Shape {
    /// Never taken: every instruction goes the general way.
    const NONE: Shape = Shape {
        template: Vec::new(),
        fixed: 0,
        simple: 0,
        pooled: 0,
        min: u8::MAX,
        variadic: [simple_operand(OperandKind::IdRef, 0); 2],
        variadic_len: 0,
        result_type_at: 0,
        result_at: 0,
    };

    fn of(inst: &'static grammar::Instruction) -> Shape {
        // These record facts or check more than their operands' kinds.
        if is_ext_inst(inst.opcode) || matches!(inst.opcode, opcode::OpTypeInt | opcode::OpTypeFloat) {
            return Shape::NONE;
        }
        let variadic_at = inst.operands.iter().position(|o| o.quantifier == Quantifier::Variadic);
        let fixed = &inst.operands[..variadic_at.unwrap_or(inst.operands.len())];
        let simple_prefix = fixed.iter().take_while(|o| is_simple(o.kind)).count();
        // A variadic operand is last in the grammar: the tail is it alone.
        let variadic = match &inst.operands[fixed.len()..] {
            [o] if simple_prefix == fixed.len() => {
                let parts = match o.kind.category() {
                    Category::Composite => o.kind.info().bases,
                    _ => std::slice::from_ref(&o.kind),
                };
                // OpSwitch's case literals take the selector's width.
                let plain = inst.opcode != opcode::OpSwitch && matches!(parts.len(), 1 | 2);
                (plain && parts.iter().all(|&k| is_simple(k))).then_some(parts)
            }
            _ => None,
        };
        let min = fixed.iter().rposition(|o| o.quantifier == Quantifier::One).map_or(0, |i| i + 1);
        let word_of =
            |kind| fixed.iter().position(|o| o.kind == kind).map_or(Some(0), |i| u8::try_from(i + 1).ok());
        let (Ok(fixed_len), Ok(min), Some(result_type_at), Some(result_at)) = (
            u8::try_from(fixed.len()),
            u8::try_from(min),
            word_of(OperandKind::IdResultType),
            word_of(OperandKind::IdResult),
        ) else {
            return Shape::NONE;
        };
        let mut template: Vec<ParsedOperand> =
            fixed[..simple_prefix].iter().enumerate().map(|(i, o)| simple_operand(o.kind, i + 1)).collect();
        let simple = template.len() as u8;
        if let Some(parts) = variadic {
            let at = template.len() + 1;
            template.extend((0..VARIADIC_WORDS).map(|i| simple_operand(parts[i % parts.len()], at + i)));
        }
        let mut shape =
            Shape { template, fixed: fixed_len, simple, min, result_type_at, result_at, ..Shape::NONE };
        if let Some(parts) = variadic {
            for (slot, &kind) in shape.variadic.iter_mut().zip(parts) {
                *slot = simple_operand(kind, 0);
            }
            shape.variadic_len = parts.len() as u8;
        }
        shape
    }

    /// Whether `n` operand words are all simple operands, in the grammar's order.
    #[inline(always)]
    fn takes(&self, n: usize) -> bool {
        // Past the fixed operands, only whole repetitions of the variadic operand's parts.
        let fixed = usize::from(self.fixed);
        n >= usize::from(self.min)
            && (n <= usize::from(self.simple)
                || match self.variadic_len {
                    1 => true,
                    2 => (n - fixed).is_multiple_of(2),
                    _ => false,
                })
    }
}

/// The parsed form of a simple operand at word `at`.
const fn simple_operand(kind: OperandKind, at: usize) -> ParsedOperand {
    let number = match kind {
        OperandKind::LiteralInteger => NumberKind::Int { width: 32, signed: false },
        _ => NumberKind::None,
    };
    ParsedOperand { offset: at as u16, num_words: 1, kind, number }
}

/// One word, no context needed: an id, a literal integer, or an enumerant (taken
/// on the fast path only when it has no parameters).
fn is_simple(kind: OperandKind) -> bool {
    is_id(kind) || kind == OperandKind::LiteralInteger || is_enum(kind)
}

fn is_enum(kind: OperandKind) -> bool {
    matches!(kind.category(), Category::ValueEnum | Category::BitEnum)
}

/// Whether `word` is a valid value of enum kind `kind` that takes no parameters.
#[inline(never)]
fn plain_enumerant(kind: OperandKind, word: u32) -> bool {
    let info = kind.info();
    let plain = |value| info.enumerant(value).is_some_and(|e| e.parameters.is_empty());
    match info.category {
        Category::ValueEnum => plain(word),
        Category::BitEnum => {
            let mut bits = word;
            while bits != 0 {
                let bit = bits & bits.wrapping_neg();
                bits &= !bit;
                if !plain(bit) {
                    return false;
                }
            }
            true
        }
        _ => false,
    }
}

fn is_id(kind: OperandKind) -> bool {
    matches!(
        kind,
        OperandKind::IdResultType
            | OperandKind::IdResult
            | OperandKind::IdRef
            | OperandKind::IdScope
            | OperandKind::IdMemorySemantics
    )
}

static NO_SHAPE: Shape = Shape::NONE;

/// How many words of a variadic operand a [`Shape`]'s template covers (even, so
/// that whole pairs fit).
const VARIADIC_WORDS: usize = 64;

/// Every opcode's [`Shape`], and all their templates one after the other (instructions
/// point into that pool), built once.
fn shapes_and_pool() -> &'static (Vec<Shape>, Vec<ParsedOperand>) {
    static SHAPES: std::sync::OnceLock<(Vec<Shape>, Vec<ParsedOperand>)> = std::sync::OnceLock::new();
    SHAPES.get_or_init(|| {
        // Sized once: the opcodes run to the thousands, so growing the table as
        // they come copied it over and over.
        let count = grammar::INSTRUCTIONS.iter().map(|inst| usize::from(inst.opcode) + 1).max().unwrap_or(0);
        let mut shapes = vec![Shape::NONE; count];
        for inst in grammar::INSTRUCTIONS {
            // The instruction the reader decodes this opcode as.
            if let Some(inst) = grammar::instruction(inst.opcode) {
                shapes[usize::from(inst.opcode)] = Shape::of(inst);
            }
        }
        let mut pool = Vec::new();
        for shape in &mut shapes {
            shape.pooled = pool.len() as u32;
            pool.extend_from_slice(&shape.template);
        }
        (shapes, pool)
    })
}

fn shapes() -> &'static [Shape] {
    &shapes_and_pool().0
}

pub(crate) fn operand_pool() -> &'static [ParsedOperand] {
    &shapes_and_pool().1
}

impl<'w> Parser<'w> {
    /// `capacity`: the instructions and the operand words the parser will read, so
    /// that the tables are never copied while growing.
    fn new(
        words: &'w [u32],
        bound: u32,
        ids: IdMap<u32>,
        facts: FxHashMap<u32, IdFact>,
        capacity: (usize, usize),
        shapes: &'static [Shape],
    ) -> Self {
        Parser {
            words,
            bound,
            ids,
            facts,
            table: Table {
                instructions: Vec::with_capacity(capacity.0),
                operands: Vec::with_capacity(capacity.1),
            },
            stack: Vec::with_capacity(16),
            shapes,
        }
    }

    fn defined(&self, id: u32) -> bool {
        *self.ids.get(id) != 0
    }

    /// Whether a second half read from the module-level state, which defined the ids
    /// `second_defined`, stands beside this first half once it has read its
    /// functions. The second half could not see the ids the first half's functions
    /// define: it stands only if it failed nowhere (whatever it looked up and did
    /// not know was an error) and defined none of them again.
    fn second_half_stands(&self, second_ok: bool, second_defined: impl IntoIterator<Item = u32>) -> bool {
        second_ok && second_defined.into_iter().all(|id| !self.defined(id))
    }

    fn value_type(&self, id: u32) -> u32 {
        match *self.ids.get(id) {
            NO_TYPE => 0,
            ty => ty,
        }
    }

    fn fact(&self, id: u32) -> IdFact {
        self.facts.get(&id).copied().unwrap_or_default()
    }

    /// Parses the instructions from word `from` up to word `to` (an instruction boundary
    /// or the end).
    fn parse_range(&mut self, from: usize, to: usize) -> Result<(), ReadError> {
        let mut pos = from;
        while pos < to {
            pos += self.parse_instruction(pos)?;
        }
        Ok(())
    }

    /// [`Parser::parse_range`] handing each instruction to `visitor` and then
    /// dropping its record (and listing the result ids it defines in `defined`).
    fn visit_range(
        &mut self,
        from: usize,
        to: usize,
        visitor: &mut impl Visit,
        mut defined: Option<&mut Vec<u32>>,
    ) -> Result<(), ReadError> {
        let pool = operand_pool();
        let mut pos = from;
        while pos < to {
            pos += self.parse_instruction(pos)?;
            // Every instruction read pushes its record.
            let Some(record) = self.table.instructions.pop() else { continue };
            visitor.visit(&crate::module::inst_of(self.words, &record, &self.table.operands, pool));
            self.table.operands.clear();
            if let Some(defined) = defined.as_deref_mut().filter(|_| record.result_id != 0) {
                defined.push(record.result_id);
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn parse_instruction(&mut self, pos: usize) -> Result<usize, ReadError> {
        let words = self.words;
        let first = words[pos];
        let word_count = (first >> 16) as usize;
        let shape = self.shapes.get((first & 0xffff) as usize).unwrap_or(&NO_SHAPE);
        if let Some(iw) = words.get(pos..pos + word_count) {
            if word_count > 0 && shape.takes(word_count - 1) && self.take_simple(shape, pos, iw) {
                return Ok(word_count);
            }
            if !self.shapes.is_empty() && self.take_common(pos, iw) {
                return Ok(word_count);
            }
        }
        self.parse_general(pos)
    }

    /// Takes the common instructions that are not simple but easy: OpName, a one-word
    /// OpConstant and an OpExtInst of ids; or pushes nothing and returns false, leaving
    /// them (and their errors) to the general path.
    #[inline(never)]
    fn take_common(&mut self, pos: usize, iw: &[u32]) -> bool {
        let id_limit = self.bound.saturating_sub(1);
        let valid_id = |word: u32| word.wrapping_sub(1) < id_limit;
        let operand = |offset: usize, num_words: usize, kind, number| ParsedOperand {
            offset: offset as u16,
            num_words: num_words as u16,
            kind,
            number,
        };
        let start = self.table.operands.len() as u32;
        let mut ext_set = 0;
        let (result_type, result_id) = match *iw {
            [first, target, ref name @ ..] if first & 0xffff == u32::from(opcode::OpName) => {
                // The name must end in its last word, as the general path requires.
                let ends = |w: &u32| w.to_le_bytes().contains(&0);
                if !valid_id(target) || name.iter().position(ends) != Some(name.len().wrapping_sub(1)) {
                    return false;
                }
                self.table.operands.push(operand(1, 1, OperandKind::IdRef, NumberKind::None));
                self.table.operands.push(operand(
                    2,
                    name.len(),
                    OperandKind::LiteralString,
                    NumberKind::None,
                ));
                (0, 0)
            }
            [first, ty, id, _] if first & 0xffff == u32::from(opcode::OpConstant) => {
                let number = match self.fact(ty) {
                    IdFact::NumericType(
                        n @ (NumberKind::Int { width: ..=32, .. } | NumberKind::Float { width: ..=32 }),
                    ) => n,
                    _ => return false,
                };
                if !valid_id(ty) || !valid_id(id) || self.defined(id) {
                    return false;
                }
                *self.ids.get_mut(id) = ty;
                self.table.operands.push(operand(1, 1, OperandKind::IdResultType, NumberKind::None));
                self.table.operands.push(operand(2, 1, OperandKind::IdResult, NumberKind::None));
                self.table.operands.push(operand(3, 1, OperandKind::LiteralContextDependentNumber, number));
                (ty, id)
            }
            [first, ty, id, set, number, ref ids @ ..] if first & 0xffff == u32::from(opcode::OpExtInst) => {
                // An instruction of a known set whose operands are all ids: so are any
                // extra words (the grammar's variadic operand).
                let IdFact::ExtImport(ExtSetRef::Known(i)) = self.fact(set) else { return false };
                let Some(ext) = EXT_INST_SETS.get(usize::from(i)).and_then(|s| s.instruction(number)) else {
                    return false;
                };
                let only_ids = ext
                    .operands
                    .iter()
                    .all(|o| o.kind == OperandKind::IdRef && o.quantifier == Quantifier::One);
                if !only_ids
                    || ids.len() < ext.operands.len()
                    || ![ty, id, set].into_iter().chain(ids.iter().copied()).all(valid_id)
                    || self.defined(id)
                {
                    return false;
                }
                *self.ids.get_mut(id) = ty;
                ext_set = InstRecord::pack_ext_set(ExtSetRef::Known(i));
                let literal = NumberKind::Int { width: 32, signed: false };
                self.table.operands.extend_from_slice(&[
                    operand(1, 1, OperandKind::IdResultType, NumberKind::None),
                    operand(2, 1, OperandKind::IdResult, NumberKind::None),
                    operand(3, 1, OperandKind::IdRef, NumberKind::None),
                    operand(4, 1, OperandKind::LiteralExtInstInteger, literal),
                ]);
                self.table
                    .operands
                    .extend((0..ids.len()).map(|i| operand(5 + i, 1, OperandKind::IdRef, NumberKind::None)));
                (ty, id)
            }
            _ => return false,
        };
        self.table.instructions.push(InstRecord {
            offset: pos as u32,
            result_type,
            result_id,
            operands_start: start,
            operands_len: (self.table.operands.len() as u32 - start) as u16,
            ext_set,
        });
        true
    }

    /// Any instruction, every error reported.
    #[inline(never)]
    fn parse_general(&mut self, pos: usize) -> Result<usize, ReadError> {
        let words = self.words;
        let first = words[pos];
        let word_count = (first >> 16) as u16;
        let op = (first & 0xffff) as u16;
        let err = |kind| ReadError { word_offset: pos, kind };
        if word_count == 0 {
            return Err(err(ReadErrorKind::ZeroWordCount));
        }
        let inst = grammar::instruction(op).ok_or_else(|| err(ReadErrorKind::UnknownOpcode(op)))?;
        let remaining = words.len() - pos;
        if word_count as usize > remaining {
            return Err(err(ReadErrorKind::PastEnd { name: inst.name.into(), word_count, remaining }));
        }
        let iw = &words[pos..pos + word_count as usize];
        let operands_start = self.table.operands.len();
        let mut record = InstRecord {
            offset: pos as u32,
            result_type: 0,
            result_id: 0,
            operands_start: operands_start as u32,
            operands_len: 0,
            ext_set: 0,
        };
        self.stack.clear();
        // The grammar's operands not yet started; a variadic one stays until the words end.
        let mut rest = inst.operands;
        let ext_inst = is_ext_inst(op);
        let mut at: usize = 1;
        while at < iw.len() {
            let expected = if let Some(expected) = self.stack.pop() {
                if expected.quantifier == Quantifier::Variadic {
                    self.stack.push(expected);
                }
                expected
            } else if let Some((o, tail)) = rest.split_first() {
                if o.quantifier != Quantifier::Variadic {
                    rest = tail;
                }
                Expected { kind: o.kind, quantifier: o.quantifier }
            } else {
                return Err(err(ReadErrorKind::ExtraOperands {
                    name: inst.name.into(),
                    words: at,
                    word_count,
                }));
            };
            // The common operands inline; everything else in `parse_operand`.
            let word = iw[at];
            match expected.kind {
                OperandKind::IdResultType => {
                    self.check_id(pos + at, op, word)?;
                    record.result_type = word;
                }
                OperandKind::IdResult => {
                    self.check_id(pos + at, op, word)?;
                    record.result_id = word;
                }
                OperandKind::IdRef | OperandKind::IdScope | OperandKind::IdMemorySemantics if !ext_inst => {
                    self.check_id(pos + at, op, word)?;
                }
                OperandKind::LiteralInteger => {
                    self.push(at, 1, expected.kind, NumberKind::Int { width: 32, signed: false });
                    at += 1;
                    continue;
                }
                kind => {
                    at = self.parse_operand(pos, iw, at, kind, &mut record)?;
                    continue;
                }
            }
            self.push(at, 1, expected.kind, NumberKind::None);
            at += 1;
        }
        let mut missing = self
            .stack
            .iter()
            .rev()
            .copied()
            .chain(rest.iter().map(|o| Expected { kind: o.kind, quantifier: o.quantifier }));
        if let Some(missing) = missing.find(|e| e.quantifier == Quantifier::One) {
            return Err(err(ReadErrorKind::MissingOperand {
                name: inst.name.into(),
                words: at,
                expected: missing.kind.name(),
            }));
        }
        record.operands_len = (self.table.operands.len() - operands_start) as u16;
        self.record_facts(pos, iw, &record)?;
        self.table.instructions.push(record);
        Ok(word_count as usize)
    }

    /// Takes an instruction whose operands are all simple (see [`Shape`]) and
    /// returns true; or pushes nothing and returns false (a bad id, a duplicate
    /// result), leaving the instruction and its error to the general path.
    #[inline(always)]
    fn take_simple(&mut self, shape: &Shape, pos: usize, iw: &[u32]) -> bool {
        let operand_words = iw.get(1..).unwrap_or(&[]);
        // `word` is an id below the bound and not 0 when `word - 1 < bound - 1`.
        let id_limit = self.bound.saturating_sub(1);
        let bad_id = |word: u32| word.wrapping_sub(1) >= id_limit;
        // The words the template covers, and variadic ones beyond it.
        let (head, tail) = operand_words.split_at(operand_words.len().min(shape.template.len()));
        // Whether `word` is a valid value of simple operand kind `kind`.
        let valid = |kind: OperandKind, word: u32| {
            if kind == OperandKind::LiteralInteger {
                true
            } else if is_id(kind) {
                !bad_id(word)
            } else {
                plain_enumerant(kind, word)
            }
        };
        let mut bad = !shape.template.iter().zip(head).all(|(p, &word)| valid(p.kind, word));
        // Part i of the variadic operand's repetitions past the template is `i & pair`
        // (the template holds an even number of them).
        let pair = usize::from(shape.variadic_len == 2);
        if !tail.is_empty() {
            bad |= !tail.iter().enumerate().all(|(i, &word)| valid(shape.variadic[i & pair].kind, word));
        }
        if bad {
            return false;
        }
        let word_at = |at: u8| if at == 0 { 0 } else { iw.get(usize::from(at)).copied().unwrap_or(0) };
        let result_type = word_at(shape.result_type_at);
        let result_id = word_at(shape.result_at);
        if result_id != 0 {
            let slot = self.ids.get_mut(result_id);
            if *slot != 0 {
                return false;
            }
            *slot = if result_type != 0 { result_type } else { NO_TYPE };
        }
        let start = if tail.is_empty() {
            POOLED | shape.pooled
        } else {
            let start = self.table.operands.len();
            self.table.operands.extend_from_slice(&shape.template);
            let first_tail = shape.template.len() + 1;
            let parts = &shape.variadic;
            self.table.operands.extend(
                (0..tail.len()).map(|i| ParsedOperand { offset: (first_tail + i) as u16, ..parts[i & pair] }),
            );
            start as u32
        };
        self.table.instructions.push(InstRecord {
            offset: pos as u32,
            result_type,
            result_id,
            operands_start: start,
            operands_len: operand_words.len() as u16,
            ext_set: 0,
        });
        true
    }

    #[inline(always)]
    fn check_id(&self, pos: usize, op: u16, id: u32) -> Result<(), ReadError> {
        if id == 0 || id >= self.bound {
            return Err(self.id_error(pos, op, id));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn id_error(&self, pos: usize, op: u16, id: u32) -> ReadError {
        let kind = if id == 0 {
            ReadErrorKind::ZeroId { name: inst_name(op) }
        } else {
            ReadErrorKind::IdOutOfBound { name: inst_name(op), id, bound: self.bound }
        };
        ReadError { word_offset: pos, kind }
    }

    fn push(&mut self, at: usize, num_words: usize, kind: OperandKind, number: NumberKind) {
        self.table.operands.push(ParsedOperand {
            offset: at as u16,
            num_words: num_words as u16,
            kind,
            number,
        });
    }

    /// Decodes one operand starting at word `at` of the instruction; returns the next word index.
    #[inline(never)]
    fn parse_operand(
        &mut self,
        pos: usize,
        iw: &[u32],
        at: usize,
        kind: OperandKind,
        record: &mut InstRecord,
    ) -> Result<usize, ReadError> {
        let op = opcode_of(iw);
        let name = || grammar::instruction(op).map_or("?", |i| i.name).to_string();
        let err = |kind| ReadError { word_offset: pos + at, kind };
        let word = iw[at];
        match kind {
            OperandKind::IdResultType => {
                self.check_id(pos + at, op, word)?;
                record.result_type = word;
                self.push(at, 1, kind, NumberKind::None);
            }
            OperandKind::IdResult => {
                self.check_id(pos + at, op, word)?;
                record.result_id = word;
                self.push(at, 1, kind, NumberKind::None);
            }
            OperandKind::IdRef | OperandKind::IdScope | OperandKind::IdMemorySemantics => {
                self.check_id(pos + at, op, word)?;
                if is_ext_inst(op) && record.ext_set == 0 {
                    match self.fact(word) {
                        IdFact::ExtImport(set) => record.ext_set = InstRecord::pack_ext_set(set),
                        _ => return Err(err(ReadErrorKind::NotAnExtInstImport(word))),
                    }
                }
                self.push(at, 1, kind, NumberKind::None);
            }
            OperandKind::LiteralInteger => {
                self.push(at, 1, kind, NumberKind::Int { width: 32, signed: false });
            }
            OperandKind::LiteralFloat => {
                self.push(at, 1, kind, NumberKind::Float { width: 32 });
            }
            OperandKind::LiteralString => {
                let len = iw[at..]
                    .iter()
                    .position(|w| w.to_le_bytes().contains(&0))
                    .ok_or_else(|| err(ReadErrorKind::UnterminatedString { name: name() }))?;
                self.push(at, len + 1, kind, NumberKind::None);
                return Ok(at + len + 1);
            }
            OperandKind::LiteralContextDependentNumber => {
                let number = self.number_kind_of_type(pos + at, op, record.result_type)?;
                return self.push_number(pos, iw, at, kind, number);
            }
            OperandKind::LiteralExtInstInteger => {
                self.push(at, 1, kind, NumberKind::Int { width: 32, signed: false });
                match record.ext_set() {
                    ExtSetRef::Known(i) => {
                        let set = &EXT_INST_SETS[i as usize];
                        match set.instruction(word) {
                            Some(ext) => push_operands(&mut self.stack, ext.operands),
                            None if set.name.starts_with("NonSemantic.") => self.push_variadic_ids(),
                            None => {
                                return Err(err(ReadErrorKind::UnknownExtInst {
                                    set: set.name,
                                    number: word,
                                }))
                            }
                        }
                    }
                    ExtSetRef::UnknownNonSemantic => self.push_variadic_ids(),
                    ExtSetRef::None => return Err(err(ReadErrorKind::NotAnExtInstImport(0))),
                }
            }
            OperandKind::LiteralSpecConstantOpInteger => {
                let inner = u16::try_from(word)
                    .ok()
                    .and_then(grammar::instruction)
                    .ok_or_else(|| err(ReadErrorKind::BadSpecConstantOp(word)))?;
                self.push(at, 1, kind, NumberKind::None);
                let skip = inner
                    .operands
                    .iter()
                    .take_while(|o| matches!(o.kind, OperandKind::IdResultType | OperandKind::IdResult))
                    .count();
                push_operands(&mut self.stack, &inner.operands[skip..]);
            }
            OperandKind::PairLiteralIntegerIdRef if op == opcode::OpSwitch => {
                // Case literals are as wide as the selector's type.
                let selector = record_operand_word(&self.table.operands, record, iw, 0);
                let selector_type = self.value_type(selector);
                let number = match self.fact(selector_type) {
                    IdFact::NumericType(n @ NumberKind::Int { .. }) => {
                        self.number_kind_of_type(pos + at, op, selector_type)?;
                        n
                    }
                    _ => return Err(err(ReadErrorKind::BadSwitchSelector(selector))),
                };
                let next = self.push_number(pos, iw, at, OperandKind::LiteralInteger, number)?;
                return self.parse_composite_tail(pos, iw, next, &[OperandKind::IdRef], record);
            }
            _ => match kind.category() {
                Category::ValueEnum => {
                    let e = kind.info().enumerant(word).ok_or_else(|| {
                        err(ReadErrorKind::UnknownEnumerant { name: name(), kind: kind.name(), value: word })
                    })?;
                    self.push(at, 1, kind, NumberKind::None);
                    push_operands(&mut self.stack, e.parameters);
                }
                Category::BitEnum => {
                    let info = kind.info();
                    let mut params: Vec<&'static [grammar::Operand]> = Vec::new();
                    let mut bits = word;
                    while bits != 0 {
                        let bit = bits & bits.wrapping_neg();
                        bits &= !bit;
                        let e = info.enumerant(bit).ok_or_else(|| {
                            err(ReadErrorKind::UnknownEnumerant {
                                name: name(),
                                kind: kind.name(),
                                value: word,
                            })
                        })?;
                        if !e.parameters.is_empty() {
                            params.push(e.parameters);
                        }
                    }
                    self.push(at, 1, kind, NumberKind::None);
                    for p in params.iter().rev() {
                        push_operands(&mut self.stack, p);
                    }
                }
                Category::Composite => {
                    return self.parse_composite_tail(pos, iw, at, kind.info().bases, record);
                }
                Category::Id | Category::Literal => {
                    // Every id and literal kind is handled above; a new grammar kind lands here.
                    return Err(err(ReadErrorKind::UnknownEnumerant {
                        name: name(),
                        kind: kind.name(),
                        value: word,
                    }));
                }
            },
        }
        Ok(at + 1)
    }

    /// Parses the parts of a composite operand; all of them must be present.
    fn parse_composite_tail(
        &mut self,
        pos: usize,
        iw: &[u32],
        mut at: usize,
        parts: &[OperandKind],
        record: &mut InstRecord,
    ) -> Result<usize, ReadError> {
        for &part in parts {
            if at >= iw.len() {
                return Err(ReadError {
                    word_offset: pos,
                    kind: ReadErrorKind::MissingOperand {
                        name: inst_name(opcode_of(iw)),
                        words: at,
                        expected: part.name(),
                    },
                });
            }
            at = self.parse_operand(pos, iw, at, part, record)?;
        }
        Ok(at)
    }

    fn push_variadic_ids(&mut self) {
        self.stack.push(Expected { kind: OperandKind::IdRef, quantifier: Quantifier::Variadic });
    }

    fn push_number(
        &mut self,
        pos: usize,
        iw: &[u32],
        at: usize,
        kind: OperandKind,
        number: NumberKind,
    ) -> Result<usize, ReadError> {
        let words = match number {
            NumberKind::Int { width, .. } | NumberKind::Float { width } => ceil_words(width) as usize,
            NumberKind::None => 1,
        };
        if at + words > iw.len() {
            return Err(ReadError {
                word_offset: pos,
                kind: ReadErrorKind::MissingOperand {
                    name: grammar::instruction((iw[0] & 0xffff) as u16).map_or("?", |i| i.name).into(),
                    words: iw.len(),
                    expected: kind.name(),
                },
            });
        }
        self.push(at, words, kind, number);
        Ok(at + words)
    }

    fn number_kind_of_type(&self, offset: usize, op: u16, type_id: u32) -> Result<NumberKind, ReadError> {
        let name = || grammar::instruction(op).map_or("?", |i| i.name).to_string();
        match self.fact(type_id) {
            IdFact::NumericType(n) => {
                let width = match n {
                    NumberKind::Int { width, .. } | NumberKind::Float { width } => width,
                    NumberKind::None => 0,
                };
                if width > 64 {
                    return Err(ReadError {
                        word_offset: offset,
                        kind: ReadErrorKind::UnsupportedWidth { name: name(), type_id, width: width.into() },
                    });
                }
                Ok(n)
            }
            _ => Err(ReadError {
                word_offset: offset,
                kind: ReadErrorKind::NotNumericType { name: name(), type_id },
            }),
        }
    }

    /// Remembers what later instructions need: numeric types, value types, ext-inst imports.
    fn record_facts(&mut self, pos: usize, iw: &[u32], record: &InstRecord) -> Result<(), ReadError> {
        let op = opcode_of(iw);
        let id = record.result_id;
        if id != 0 {
            let slot = self.ids.get_mut(id);
            if *slot != 0 {
                return Err(ReadError {
                    word_offset: pos,
                    kind: ReadErrorKind::DuplicateId { name: inst_name(op), id },
                });
            }
            *slot = if record.result_type != 0 { record.result_type } else { NO_TYPE };
        }
        match op {
            opcode::OpTypeInt | opcode::OpTypeFloat => {
                let width = iw[2];
                let is_int = op == opcode::OpTypeInt;
                if width == 0 || width > 0xffff {
                    return Err(ReadError {
                        word_offset: pos + 2,
                        kind: ReadErrorKind::BadTypeWidth {
                            name: inst_name(op),
                            what: if is_int { "integer" } else { "float" },
                            width,
                        },
                    });
                }
                let width = width as u16;
                let kind = if is_int {
                    NumberKind::Int { width, signed: iw[3] != 0 }
                } else {
                    NumberKind::Float { width }
                };
                self.facts.insert(id, IdFact::NumericType(kind));
            }
            opcode::OpExtInstImport => {
                let name_operand = self.table.operands[record.operands_start as usize + 1];
                let start = name_operand.offset as usize;
                let bytes = crate::module::string_bytes(&iw[start..start + name_operand.num_words as usize]);
                let name = String::from_utf8_lossy(&bytes);
                let set = match spirvkit_grammar::ext_inst_set(&name) {
                    Some(set) => ExtSetRef::Known(
                        EXT_INST_SETS.iter().position(|s| std::ptr::eq(s, set)).unwrap_or(0) as u16,
                    ),
                    None if name.starts_with("NonSemantic.") => ExtSetRef::UnknownNonSemantic,
                    None => {
                        return Err(ReadError {
                            word_offset: pos,
                            kind: ReadErrorKind::UnknownExtInstSet(name.into_owned()),
                        })
                    }
                };
                self.facts.insert(id, IdFact::ExtImport(set));
            }
            _ => {}
        }
        Ok(())
    }
}

fn is_ext_inst(op: u16) -> bool {
    op == opcode::OpExtInst || op == opcode::OpExtInstWithForwardRefsKHR
}

/// The first word of the `index`-th operand parsed so far for this instruction.
fn record_operand_word(operands: &[ParsedOperand], record: &InstRecord, iw: &[u32], index: usize) -> u32 {
    operands.get(record.operands_start as usize + index).map_or(0, |o| iw[o.offset as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_cut_at_the_middle_function_reads_the_same() {
        let mut text = String::from(
            "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n\
             %void = OpTypeVoid\n%fn = OpTypeFunction %void\n",
        );
        for i in 0..6 {
            text.push_str(&format!(
                "%f{i} = OpFunction %void None %fn\n%e{i} = OpLabel\nOpReturn\nOpFunctionEnd\n"
            ));
        }
        let words = crate::assemble(&text, &Default::default()).expect("assembles");
        let one = read_words(words.clone(), Endian::Little).unwrap();
        let (cut, stood) = read_words_cut_at_middle(words.clone(), Endian::Little).unwrap();
        assert!(stood && same_reading(&one, &cut));
        // An id of the first half's functions defined again in the second: one
        // thread's error, whichever way.
        let mut twice = text.clone();
        twice.push_str("%f6 = OpFunction %void None %fn\n%e0 = OpLabel\nOpReturn\nOpFunctionEnd\n");
        let words = crate::assemble(&twice, &Default::default()).expect("assembles");
        let one = read_words(words.clone(), Endian::Little).map(|_| ()).unwrap_err();
        assert_eq!(read_words_cut_at_middle(words, Endian::Little).map(|_| ()).unwrap_err(), one);
    }

    /// What a read produced (every instruction as the module shows it), the fast
    /// path on or off, cut where `split` says.
    fn parse(words: &[u32], fast: bool, split: Split) -> Result<String, ReadError> {
        let bound = words.get(3).copied().unwrap_or(0);
        let shapes = if fast { shapes() } else { &[] };
        let layout = Layout::of(words, split);
        let (table, _) = parse_tables(words, bound, &layout, shapes)?;
        let module = Module {
            header: Header { version: 0, generator: 0, bound, schema: 0 },
            endian: Endian::Little,
            words: words.to_vec(),
            table,
            pool: OperandPool(operand_pool()),
        };
        Ok(format!("{:?}", module.instructions().collect::<Vec<_>>()))
    }

    /// Whether a read cut at `split` used two tables (so the two-thread path stood).
    fn stood(words: &[u32], split: Split) -> bool {
        let layout = Layout::of(words, split);
        let bound = words.get(3).copied().unwrap_or(0);
        parse_tables(words, bound, &layout, shapes()).is_ok_and(|(_, stood)| stood)
    }

    fn corpus_words() -> Vec<Vec<u32>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/spv");
        let mut stack = vec![dir];
        let mut out = Vec::new();
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for path in entries.flatten().map(|e| e.path()) {
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "spv") {
                    if let Ok(module) = read(&std::fs::read(&path).unwrap_or_default()) {
                        out.push(module.into_words());
                    }
                }
            }
        }
        out
    }

    fn xorshift() -> impl FnMut() -> u32 {
        let mut seed = 0x9e37_79b9_u32;
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        }
    }

    /// `words` with one word changed at random.
    fn mutated(words: &[u32], next: &mut impl FnMut() -> u32) -> (usize, Vec<u32>) {
        let mut changed = words.to_vec();
        let at = Header::WORDS + next() as usize % (changed.len() - Header::WORDS).max(1);
        if let Some(word) = changed.get_mut(at) {
            *word = match next() % 4 {
                0 => 0,
                1 => *word ^ (1 << (next() % 32)),
                2 => words[3],
                _ => next() % 64,
            };
        }
        (at, changed)
    }

    /// The word offsets of every OpFunction after the first one.
    fn function_starts(words: &[u32]) -> Vec<usize> {
        let mut pos = Header::WORDS;
        let mut out = Vec::new();
        while let Some(&first) = words.get(pos) {
            if first >> 16 == 0 {
                break;
            }
            if (first & 0xffff) as u16 == opcode::OpFunction {
                out.push(pos);
            }
            pos += (first >> 16) as usize;
        }
        out.into_iter().skip(1).collect()
    }

    /// The fast path for simple instructions is an optimization only: every module,
    /// and every module with a word changed, reads (or fails) exactly as the general
    /// path alone reads it.
    #[test]
    fn fast_path_reads_as_the_general_path() {
        let modules = corpus_words();
        if modules.is_empty() {
            eprintln!("skipping: SPIR-V corpus not found");
            return;
        }
        let mut next = xorshift();
        for words in &modules {
            assert_eq!(parse(words, true, Split::Never), parse(words, false, Split::Never));
            for _ in 0..20 {
                let (at, changed) = mutated(words, &mut next);
                assert_eq!(
                    parse(&changed, true, Split::Never),
                    parse(&changed, false, Split::Never),
                    "word {at} changed"
                );
            }
        }
    }

    /// A read on two threads is an optimization only: every module cut at every
    /// function, and every module with a word changed cut at its middle function,
    /// reads (or fails) exactly as on one thread.
    #[test]
    fn two_threads_read_as_one() {
        let modules = corpus_words();
        if modules.is_empty() {
            eprintln!("skipping: SPIR-V corpus not found");
            return;
        }
        let mut next = xorshift();
        let mut cuts = 0;
        for words in &modules {
            let one = parse(words, true, Split::Never);
            let starts = function_starts(words);
            for &at in &starts {
                assert_eq!(parse(words, true, Split::At(at)), one, "cut at {at}");
                cuts += usize::from(stood(words, Split::At(at)));
            }
            let Some(&middle) = starts.get(starts.len() / 2) else { continue };
            for _ in 0..20 {
                let (at, changed) = mutated(words, &mut next);
                assert_eq!(
                    parse(&changed, true, Split::At(middle)),
                    parse(&changed, true, Split::Never),
                    "word {at} changed"
                );
            }
        }
        assert!(cuts > 0, "no module was read on two threads");
    }

    /// The instructions a visitor saw, as `Debug` text.
    struct Recorder(Vec<String>);

    impl Visit for Recorder {
        fn visit(&mut self, inst: &Inst<'_>) {
            self.0.push(format!("{inst:?}"));
        }
    }

    /// What `visit_words` cut at `split` hands its visitors, in order (and whether
    /// there was a second one), or its error.
    fn visited(words: &[u32], split: Split) -> Result<(Vec<String>, bool), ReadError> {
        let (first, second) =
            visit_words_split(words, split, Recorder(Vec::new()), |_| Recorder(Vec::new()))?;
        let forked = second.is_some();
        Ok((first.0.into_iter().chain(second.into_iter().flat_map(|s| s.0)).collect(), forked))
    }

    /// What `read_words` makes of `words`, instruction by instruction, or its error.
    fn read_as_list(words: &[u32], split: Split) -> Result<Vec<String>, ReadError> {
        let module = read_words_split(words.to_vec(), Endian::Little, split)?;
        Ok(module.instructions().map(|inst| format!("{inst:?}")).collect())
    }

    /// Reading words taken little-endian from a file's bytes is reading the bytes:
    /// the same module (header, byte order, instructions) or the same error, for
    /// little- and big-endian modules, short inputs and bad magic numbers.
    #[test]
    fn little_endian_words_read_as_their_bytes() {
        let listing = |module: Module| {
            let list: Vec<String> = module.instructions().map(|inst| format!("{inst:?}")).collect();
            (format!("{:?}", module.header), module.endian, list)
        };
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for words in corpus_words().iter().take(40) {
            inputs.push(words.iter().flat_map(|w| w.to_le_bytes()).collect());
            inputs.push(words.iter().flat_map(|w| w.to_be_bytes()).collect());
        }
        let magic = grammar::MAGIC_NUMBER.to_le_bytes();
        inputs.push(Vec::new());
        inputs.push(magic.repeat(4));
        inputs.push([&magic[..], &[0; 16]].concat());
        inputs.push([&[1, 2, 3, 4][..], &[0; 16]].concat());
        inputs.push(
            [&grammar::MAGIC_NUMBER.to_be_bytes()[..], &[0, 1, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]]
                .concat(),
        );
        for bytes in &inputs {
            let words = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            assert_eq!(read_le_words(words).map(listing), read(bytes).map(listing));
        }
    }

    /// Visiting is reading without the tables: every module, cut at every function
    /// and at none, and every module with a word changed, hands its visitors exactly
    /// the instructions `read_words` makes, in order, or fails with its error.
    #[test]
    fn visiting_sees_what_reading_makes() {
        let modules = corpus_words();
        if modules.is_empty() {
            eprintln!("skipping: SPIR-V corpus not found");
            return;
        }
        let list = |r: Result<(Vec<String>, bool), ReadError>| r.map(|(list, _)| list);
        let mut next = xorshift();
        let mut forks = 0;
        for words in &modules {
            let read = read_as_list(words, Split::Never);
            assert_eq!(list(visited(words, Split::Never)), read);
            for &at in &function_starts(words) {
                assert_eq!(Layout::cut_of(words, Split::At(at)), Layout::of(words, Split::At(at)).cut);
                let seen = visited(words, Split::At(at));
                forks += usize::from(seen.as_ref().is_ok_and(|&(_, forked)| forked));
                assert_eq!(list(seen), read, "cut at {at}");
            }
            for _ in 0..20 {
                let (at, changed) = mutated(words, &mut next);
                let read = read_as_list(&changed, Split::Never);
                // The visit's shorter walk finds the read's cut.
                assert_eq!(Layout::cut_of(&changed, Split::Middle), Layout::of(&changed, Split::Middle).cut);
                assert_eq!(list(visited(&changed, Split::Middle)), read, "word {at} changed");
                assert_eq!(list(visited(&changed, Split::Never)), read, "word {at} changed");
            }
        }
        assert!(forks > 0, "no module was visited on two threads");
        // Too short for a header, or not SPIR-V.
        for words in [&[grammar::MAGIC_NUMBER, 0][..], &[7, 0, 0, 1, 0]] {
            let failed = list(visited(words, Split::Never));
            assert!(failed.is_err());
            assert_eq!(failed, read_as_list(words, Split::Never));
        }
    }

    /// Two functions; the second one's words are given, the first one defines %10
    /// (an OpTypeInt, hostile but readable), %11 and %12.
    fn two_functions(second: &[u32]) -> Vec<u32> {
        let op = |opcode: u16, operands: &[u32]| {
            let mut words = vec![((operands.len() as u32 + 1) << 16) | u32::from(opcode)];
            words.extend_from_slice(operands);
            words
        };
        let mut words = vec![grammar::MAGIC_NUMBER, 0x0001_0000, 0, 100, 0];
        words.extend(op(opcode::OpCapability, &[1]));
        words.extend(op(opcode::OpMemoryModel, &[0, 1]));
        words.extend(op(opcode::OpTypeVoid, &[1]));
        words.extend(op(opcode::OpTypeFunction, &[2, 1]));
        words.extend(op(opcode::OpTypeInt, &[3, 32, 0]));
        words.extend(op(opcode::OpFunction, &[1, 4, 0, 2]));
        words.extend(op(opcode::OpLabel, &[5]));
        words.extend(op(opcode::OpTypeInt, &[10, 16, 1]));
        words.extend(op(opcode::OpUndef, &[3, 11]));
        words.extend(op(
            opcode::OpExtInstImport,
            &[
                12,
                u32::from_le_bytes(*b"GLSL"),
                u32::from_le_bytes(*b".std"),
                u32::from_le_bytes(*b".450"),
                0,
            ],
        ));
        words.extend(op(opcode::OpReturn, &[]));
        words.extend(op(opcode::OpFunctionEnd, &[]));
        words.extend(op(opcode::OpFunction, &[1, 6, 0, 2]));
        words.extend(op(opcode::OpLabel, &[7]));
        words.extend_from_slice(second);
        words.extend(op(opcode::OpReturn, &[]));
        words.extend(op(opcode::OpFunctionEnd, &[]));
        words
    }

    /// Whatever the second half cannot decide alone sends the read back to one
    /// thread: errors come out the same, and so do successes that needed the first
    /// half's ids.
    #[test]
    fn second_half_falls_back_to_one_thread() {
        let op = |opcode: u16, operands: &[u32]| {
            let mut words = vec![((operands.len() as u32 + 1) << 16) | u32::from(opcode)];
            words.extend_from_slice(operands);
            words
        };
        let cases = [
            // Fine: only module-level ids.
            op(opcode::OpConstant, &[3, 20, 7]),
            // A literal typed by the first half's OpTypeInt.
            op(opcode::OpConstant, &[10, 20, 7]),
            // An OpExtInst of the first half's import.
            op(opcode::OpExtInst, &[3, 20, 12, 1, 11]),
            // A switch on the first half's value.
            [op(opcode::OpSelectionMerge, &[21, 0]), op(opcode::OpSwitch, &[11, 21, 1, 21])].concat(),
            // Ids the first half defines, again.
            op(opcode::OpUndef, &[3, 11]),
            op(opcode::OpTypeInt, &[10, 8, 0]),
            // Errors of the second half's own.
            op(opcode::OpUndef, &[3, 100]),
            op(opcode::OpUndef, &[3, 7]),
            op(opcode::OpConstant, &[1, 20, 7]),
            vec![0],
        ];
        for (i, case) in cases.iter().enumerate() {
            let words = two_functions(case);
            let cut = function_starts(&words)[0];
            let one = parse(&words, true, Split::Never);
            assert_eq!(parse(&words, true, Split::At(cut)), one, "case {i}");
            assert_eq!(stood(&words, Split::At(cut)), i == 0, "case {i}: {one:?}");
        }
    }
}
