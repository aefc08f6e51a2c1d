//! Binary reader: bytes -> [`Module`], every operand decoded by the grammar.
//!
//! Input is untrusted: every length is checked against the words actually
//! present before it is used, and per-id tables are sized by the input, never by
//! the header's bound alone.

use crate::idmap::IdMap;
use crate::module::{Endian, ExtSetRef, Header, InstRecord, Module, NumberKind, ParsedOperand};
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
    let endian = if magic_le == grammar::MAGIC_NUMBER {
        Endian::Little
    } else if magic_le.swap_bytes() == grammar::MAGIC_NUMBER {
        Endian::Big
    } else {
        return err(0, ReadErrorKind::BadMagic(magic_le));
    };
    // Fill a zeroed buffer in place: this form compiles to a vectorized loop.
    let mut words = vec![0u32; bytes.len() / 4];
    let chunks = words.iter_mut().zip(bytes.chunks_exact(4));
    match endian {
        Endian::Little => chunks.for_each(|(w, c)| *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        Endian::Big => chunks.for_each(|(w, c)| *w = u32::from_be_bytes([c[0], c[1], c[2], c[3]])),
    }
    read_words(words, endian)
}

/// Reads a module from host-order words (the header included).
pub fn read_words(words: Vec<u32>, endian: Endian) -> Result<Module, ReadError> {
    if words.len() < Header::WORDS {
        return Err(ReadError {
            word_offset: 0,
            kind: ReadErrorKind::TruncatedHeader { bytes: words.len() * 4 },
        });
    }
    if words[0] != grammar::MAGIC_NUMBER {
        return Err(ReadError { word_offset: 0, kind: ReadErrorKind::BadMagic(words[0]) });
    }
    let header = Header { version: words[1], generator: words[2], bound: words[3], schema: words[4] };
    let mut parser = Parser::new(&words, header.bound);
    parser.parse_all()?;
    let Parser { instructions, operands, .. } = parser;
    Ok(Module { header, endian, words, instructions, operands })
}

#[derive(Clone, Copy, Default)]
enum IdFact {
    #[default]
    Unknown,
    NumericType(NumberKind),
    ExtImport(ExtSetRef),
}

/// What the reader knows about one id, in one table so that defining an id is one store.
#[derive(Clone, Copy, Default)]
struct IdInfo {
    defined: bool,
    /// The result type of a value (0 if none).
    value_type: u32,
    fact: IdFact,
}

/// One pending operand slot while decoding an instruction.
#[derive(Clone, Copy)]
struct Expected {
    kind: OperandKind,
    quantifier: Quantifier,
}

struct Parser<'w> {
    words: &'w [u32],
    bound: u32,
    ids: IdMap<IdInfo>,
    instructions: Vec<InstRecord>,
    operands: Vec<ParsedOperand>,
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

fn ceil_words(bits: u32) -> u16 {
    bits.div_ceil(32) as u16
}

fn inst_name(op: u16) -> String {
    grammar::instruction(op).map_or("?", |i| i.name).to_string()
}

/// The number of instructions in `words` (after the header), by their word counts alone;
/// stops at a zero word count (the parser reports it).
fn count_instructions(words: &[u32]) -> usize {
    let mut pos = Header::WORDS;
    let mut count = 0;
    while let Some(&first) = words.get(pos) {
        let word_count = (first >> 16) as usize;
        if word_count == 0 {
            break;
        }
        pos += word_count;
        count += 1;
    }
    count
}

/// The operands of an instruction that the reader can take without the general
/// machinery: as long as only ids, 32-bit literal integers and enumerants without
/// parameters are present, each operand is one word whose kind is the grammar's at
/// that position.
#[derive(Clone)]
struct Shape {
    /// The grammar's operands up to a variadic one.
    fixed: &'static [grammar::Operand],
    /// The parsed operands of the leading simple `fixed` ones, copied as they are.
    template: Vec<ParsedOperand>,
    /// How many leading `fixed` operands are simple (see [`is_simple`]).
    simple_prefix: u8,
    /// Operands needed (up to and including the last one that must be present).
    min: u8,
    /// The parts of a variadic last operand whose parts are all simple (one part
    /// unless it is a pair), when all of `fixed` are simple.
    variadic: Option<&'static [OperandKind]>,
    /// Word index of the result type and of the result id (0 if none).
    result_type_at: u8,
    result_at: u8,
}

impl Shape {
    /// Never taken: every instruction goes the general way.
    const NONE: Shape = Shape {
        fixed: &[],
        template: Vec::new(),
        simple_prefix: 0,
        min: u8::MAX,
        variadic: None,
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
                let plain = inst.opcode != opcode::OpSwitch && !parts.is_empty();
                (plain && parts.iter().all(|&k| is_simple(k))).then_some(parts)
            }
            _ => None,
        };
        let min = fixed.iter().rposition(|o| o.quantifier == Quantifier::One).map_or(0, |i| i + 1);
        let word_of =
            |kind| fixed.iter().position(|o| o.kind == kind).map_or(Some(0), |i| u8::try_from(i + 1).ok());
        let (Ok(simple_prefix), Ok(min), Some(result_type_at), Some(result_at)) = (
            u8::try_from(simple_prefix),
            u8::try_from(min),
            word_of(OperandKind::IdResultType),
            word_of(OperandKind::IdResult),
        ) else {
            return Shape::NONE;
        };
        let template = fixed[..usize::from(simple_prefix)]
            .iter()
            .enumerate()
            .map(|(i, o)| simple_operand(o.kind, i + 1))
            .collect();
        Shape { fixed, template, simple_prefix, min, variadic, result_type_at, result_at }
    }

    /// Whether `n` operand words are all simple operands, in the grammar's order.
    fn takes(&self, n: usize) -> bool {
        // Past `fixed`, only whole repetitions of the variadic operand's parts.
        let repeats = |parts: &[OperandKind]| n.saturating_sub(self.fixed.len()).is_multiple_of(parts.len());
        n >= usize::from(self.min)
            && (n <= usize::from(self.simple_prefix) || self.variadic.is_some_and(repeats))
    }
}

/// The parsed form of a simple operand at word `at`.
fn simple_operand(kind: OperandKind, at: usize) -> ParsedOperand {
    let number = match kind {
        OperandKind::LiteralInteger => NumberKind::Int { width: 32, signed: false },
        _ => NumberKind::None,
    };
    ParsedOperand { offset: at as u16, num_words: 1, kind, number }
}

/// One word, no context needed: an id, a literal integer, or an enumerant (taken
/// on the fast path only when it has no parameters).
fn is_simple(kind: OperandKind) -> bool {
    is_id(kind)
        || kind == OperandKind::LiteralInteger
        || matches!(kind.category(), Category::ValueEnum | Category::BitEnum)
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

/// Every opcode's [`Shape`], built once.
fn shapes() -> &'static [Shape] {
    static SHAPES: std::sync::OnceLock<Vec<Shape>> = std::sync::OnceLock::new();
    SHAPES.get_or_init(|| {
        let mut shapes = Vec::new();
        for inst in grammar::INSTRUCTIONS {
            let i = usize::from(inst.opcode);
            if i >= shapes.len() {
                shapes.resize(i + 1, Shape::NONE);
            }
            // The instruction the reader decodes this opcode as.
            if let Some(inst) = grammar::instruction(inst.opcode) {
                shapes[i] = Shape::of(inst);
            }
        }
        shapes
    })
}

impl<'w> Parser<'w> {
    fn new(words: &'w [u32], bound: u32) -> Self {
        // Exact capacities, so the big tables are never copied while growing: every
        // operand takes at least one word that is not an opcode word.
        let instructions = count_instructions(words);
        let operand_words = words.len().saturating_sub(Header::WORDS + instructions);
        Parser {
            words,
            bound,
            ids: IdMap::presized(bound, words.len()),
            instructions: Vec::with_capacity(instructions),
            operands: Vec::with_capacity(operand_words),
            stack: Vec::with_capacity(16),
            shapes: shapes(),
        }
    }

    fn parse_all(&mut self) -> Result<(), ReadError> {
        let mut pos = Header::WORDS;
        while pos < self.words.len() {
            pos += self.parse_instruction(pos)?;
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
        }
        self.parse_general(pos)
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
        let operands_start = self.operands.len();
        let mut record = InstRecord {
            offset: pos as u32,
            word_count,
            opcode: op,
            result_type: 0,
            result_id: 0,
            operands_start: operands_start as u32,
            operands_len: 0,
            ext_set: ExtSetRef::None,
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
        record.operands_len = (self.operands.len() - operands_start) as u16;
        self.record_facts(pos, iw, &record)?;
        self.instructions.push(record);
        Ok(word_count as usize)
    }

    /// Takes an instruction whose operands are all simple (see [`Shape`]) and
    /// returns true; or pushes nothing and returns false (a bad id, a duplicate
    /// result), leaving the instruction and its error to the general path.
    #[inline(always)]
    fn take_simple(&mut self, shape: &Shape, pos: usize, iw: &[u32]) -> bool {
        let operand_words = iw.get(1..).unwrap_or(&[]);
        let bound = self.bound;
        let start = self.operands.len();
        // Whether `word` is a valid value of simple operand kind `kind`.
        let valid = |kind: OperandKind, word: u32| {
            if kind == OperandKind::LiteralInteger {
                true
            } else if is_id(kind) {
                word != 0 && word < bound
            } else {
                plain_enumerant(kind, word)
            }
        };
        let (fixed_words, variadic_words) =
            operand_words.split_at(operand_words.len().min(shape.fixed.len()));
        let template = &shape.template[..fixed_words.len()];
        let mut ok = template.iter().zip(fixed_words).all(|(p, &word)| valid(p.kind, word));
        self.operands.extend_from_slice(template);
        if let Some(parts) = shape.variadic {
            for (i, (&kind, &word)) in parts.iter().cycle().zip(variadic_words).enumerate() {
                ok &= valid(kind, word);
                self.operands.push(simple_operand(kind, shape.fixed.len() + i + 1));
            }
        }
        let word_at = |at: u8| if at == 0 { 0 } else { iw.get(usize::from(at)).copied().unwrap_or(0) };
        let result_type = word_at(shape.result_type_at);
        let result_id = word_at(shape.result_at);
        if result_id != 0 {
            let info = self.ids.get_mut(result_id);
            ok &= !info.defined;
            if ok {
                info.defined = true;
                if result_type != 0 {
                    info.value_type = result_type;
                }
            }
        }
        if !ok {
            self.operands.truncate(start);
            return false;
        }
        self.instructions.push(InstRecord {
            offset: pos as u32,
            word_count: iw.len() as u16,
            opcode: (iw[0] & 0xffff) as u16,
            result_type,
            result_id,
            operands_start: start as u32,
            operands_len: operand_words.len() as u16,
            ext_set: ExtSetRef::None,
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
        self.operands.push(ParsedOperand { offset: at as u16, num_words: num_words as u16, kind, number });
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
        let op = record.opcode;
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
                if is_ext_inst(op) && record.ext_set == ExtSetRef::None {
                    match self.ids.get(word).fact {
                        IdFact::ExtImport(set) => record.ext_set = set,
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
                match record.ext_set {
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
                let selector = record_operand_word(&self.operands, record, iw, 0);
                let selector_type = self.ids.get(selector).value_type;
                let number = match self.ids.get(selector_type).fact {
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
                        name: grammar::instruction(record.opcode).map_or("?", |i| i.name).into(),
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
        match self.ids.get(type_id).fact {
            IdFact::NumericType(n) => {
                let width = match n {
                    NumberKind::Int { width, .. } | NumberKind::Float { width } => width,
                    NumberKind::None => 0,
                };
                if width > 64 {
                    return Err(ReadError {
                        word_offset: offset,
                        kind: ReadErrorKind::UnsupportedWidth { name: name(), type_id, width },
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
        let id = record.result_id;
        if id != 0 {
            let info = self.ids.get_mut(id);
            if info.defined {
                return Err(ReadError {
                    word_offset: pos,
                    kind: ReadErrorKind::DuplicateId { name: inst_name(record.opcode), id },
                });
            }
            info.defined = true;
            if record.result_type != 0 {
                info.value_type = record.result_type;
            }
        }
        match record.opcode {
            opcode::OpTypeInt | opcode::OpTypeFloat => {
                let width = iw[2];
                let is_int = record.opcode == opcode::OpTypeInt;
                if width == 0 || width > 0xffff {
                    return Err(ReadError {
                        word_offset: pos + 2,
                        kind: ReadErrorKind::BadTypeWidth {
                            name: grammar::instruction(record.opcode).map_or("?", |i| i.name).into(),
                            what: if is_int { "integer" } else { "float" },
                            width,
                        },
                    });
                }
                let kind = if is_int {
                    NumberKind::Int { width, signed: iw[3] != 0 }
                } else {
                    NumberKind::Float { width }
                };
                self.ids.get_mut(id).fact = IdFact::NumericType(kind);
            }
            opcode::OpExtInstImport => {
                let name_operand = self.operands[record.operands_start as usize + 1];
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
                self.ids.get_mut(id).fact = IdFact::ExtImport(set);
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

    /// What a parse produced, the fast path on or off.
    fn parse(words: &[u32], fast: bool) -> Result<String, ReadError> {
        let bound = words.get(3).copied().unwrap_or(0);
        let mut parser = Parser::new(words, bound);
        if !fast {
            parser.shapes = &[];
        }
        parser.parse_all()?;
        Ok(format!("{:?}\n{:?}", parser.instructions, parser.operands))
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
        let mut seed = 0x9e37_79b9_u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for words in &modules {
            assert_eq!(parse(words, true), parse(words, false));
            for _ in 0..20 {
                let mut changed = words.clone();
                let at = Header::WORDS + next() as usize % (changed.len() - Header::WORDS).max(1);
                let Some(word) = changed.get_mut(at) else { continue };
                *word = match next() % 4 {
                    0 => 0,
                    1 => *word ^ (1 << (next() % 32)),
                    2 => words[3],
                    _ => next() % 64,
                };
                assert_eq!(parse(&changed, true), parse(&changed, false), "word {at} changed");
            }
        }
    }
}
