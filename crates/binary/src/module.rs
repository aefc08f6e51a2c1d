//! The lossless in-memory form of a SPIR-V binary: its words plus, for every
//! instruction, where each operand lies and what kind it is.

use spirvkit_grammar::{ExtInstSet, OperandKind, EXT_INST_SETS};

/// Byte order of a binary file. Words are kept in host order in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

/// The five-word module header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub version: u32,
    pub generator: u32,
    pub bound: u32,
    pub schema: u32,
}

impl Header {
    pub const WORDS: usize = 5;

    pub fn words(&self) -> [u32; 5] {
        [spirvkit_grammar::MAGIC_NUMBER, self.version, self.generator, self.bound, self.schema]
    }
}

/// How a literal number operand is to be read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NumberKind {
    /// Not a number (an id, string, enumerant…).
    #[default]
    None,
    /// An integer of this many bits; `signed` follows the OpTypeInt signedness.
    /// (The reader refuses widths above 0xffff, so 16 bits keep operands small.)
    Int { width: u16, signed: bool },
    /// A float of this many bits.
    Float { width: u16 },
}

/// One operand of a parsed instruction. Composite kinds (`PairIdRefIdRef`) are
/// split into their parts, so each `ParsedOperand` is an id, a literal, a string
/// or one enumerant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedOperand {
    /// Word index inside the instruction (0 is the opcode word).
    pub offset: u16,
    pub num_words: u16,
    pub kind: OperandKind,
    pub number: NumberKind,
}

/// Which extended instruction set an `OpExtInst` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtSetRef {
    /// Not an `OpExtInst`.
    None,
    /// A set from the grammar (index into `EXT_INST_SETS`).
    Known(u16),
    /// A `NonSemantic.*` set the grammar does not describe: every operand is an id.
    UnknownNonSemantic,
}

impl ExtSetRef {
    pub fn set(self) -> Option<&'static ExtInstSet> {
        match self {
            ExtSetRef::Known(i) => EXT_INST_SETS.get(i as usize),
            _ => None,
        }
    }
}

/// One instruction as the reader recorded it: its opcode and word count are in its
/// first word, so they are not repeated here (20 bytes per instruction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct InstRecord {
    pub offset: u32,
    pub result_type: u32,
    pub result_id: u32,
    /// Index of the first operand in its table's `operands`, or with [`POOLED`] set,
    /// in the module's [`OperandPool`].
    pub operands_start: u32,
    pub operands_len: u16,
    /// The [`ExtSetRef`], packed: 0 none, 1 unknown non-semantic, 2 + i known set i.
    pub ext_set: u16,
}

impl InstRecord {
    pub fn pack_ext_set(set: ExtSetRef) -> u16 {
        match set {
            ExtSetRef::None => 0,
            ExtSetRef::UnknownNonSemantic => 1,
            ExtSetRef::Known(i) => i.saturating_add(2),
        }
    }

    #[inline]
    pub fn ext_set(&self) -> ExtSetRef {
        match self.ext_set {
            0 => ExtSetRef::None,
            1 => ExtSetRef::UnknownNonSemantic,
            i => ExtSetRef::Known(i - 2),
        }
    }
}

/// The bit of [`InstRecord::operands_start`] that says the operands are in the pool
/// (no table reaches 2^31 operands: they take a word each).
pub(crate) const POOLED: u32 = 1 << 31;

/// The reader's operand templates, shared by all instructions whose operands are
/// what their grammar says at each position (most are; see `read::Shape`).
#[derive(Clone, Copy)]
pub(crate) struct OperandPool(pub &'static [ParsedOperand]);

impl std::fmt::Debug for OperandPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OperandPool({} operands)", self.0.len())
    }
}

/// Instruction records and the operands they index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Table {
    pub instructions: Vec<InstRecord>,
    pub operands: Vec<ParsedOperand>,
}

/// A parsed module: the header, all words, and the decoded layout of every instruction.
#[derive(Clone, Debug)]
pub struct Module {
    pub header: Header,
    pub endian: Endian,
    /// All words, header included, in host byte order.
    pub(crate) words: Vec<u32>,
    pub(crate) table: Table,
    pub(crate) pool: OperandPool,
}

/// A view of one instruction of a [`Module`].
#[derive(Clone, Copy, Debug)]
pub struct Inst<'m> {
    /// Word offset of the instruction in the module (the header is words 0..5).
    pub offset: usize,
    pub opcode: u16,
    /// 0 when the instruction has no result type.
    pub result_type: u32,
    /// 0 when the instruction has no result id.
    pub result_id: u32,
    pub ext_set: ExtSetRef,
    /// All words of the instruction, the opcode word first.
    pub words: &'m [u32],
    pub operands: &'m [ParsedOperand],
}

impl<'m> Inst<'m> {
    /// The words of one operand.
    pub fn operand_words(&self, operand: &ParsedOperand) -> &'m [u32] {
        let start = operand.offset as usize;
        &self.words[start..start + operand.num_words as usize]
    }

    /// The first word of the operand at `index`.
    pub fn word_of(&self, index: usize) -> Option<u32> {
        self.operands.get(index).map(|o| self.words[o.offset as usize])
    }

    /// Decodes a `LiteralString` operand's bytes (without the terminating NUL).
    pub fn string_bytes(&self, operand: &ParsedOperand) -> Vec<u8> {
        string_bytes(self.operand_words(operand))
    }

    pub fn grammar(&self) -> Option<&'static spirvkit_grammar::Instruction> {
        spirvkit_grammar::instruction(self.opcode)
    }
}

/// The bytes of a word-packed, NUL-terminated string (without the NUL).
pub fn string_bytes(words: &[u32]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(words.len() * 4);
    'outer: for w in words {
        for b in w.to_le_bytes() {
            if b == 0 {
                break 'outer;
            }
            bytes.push(b);
        }
    }
    bytes
}

impl Module {
    /// All words of the module, header included, in host order.
    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// The module's words, header included, in host order.
    pub fn into_words(self) -> Vec<u32> {
        self.words
    }

    pub fn instruction_count(&self) -> usize {
        self.table.instructions.len()
    }

    #[inline]
    pub fn instruction(&self, index: usize) -> Option<Inst<'_>> {
        self.table.instructions.get(index).map(|r| self.inst(r))
    }

    pub fn instructions(&self) -> impl ExactSizeIterator<Item = Inst<'_>> + '_ {
        self.table.instructions.iter().map(move |r| self.inst(r))
    }

    /// The view of record `r`. (The reader made the record, so the slices
    /// are in range; `get` instead of indexing lets a caller that reads only some
    /// fields skip computing the others.)
    #[inline]
    pub(crate) fn inst(&self, r: &InstRecord) -> Inst<'_> {
        inst_of(&self.words, r, &self.table.operands, self.pool.0)
    }
}

/// The view of record `r` of a module of `words`, whose table's operands are
/// `operands` (those of a pooled record are in `pool`).
#[inline]
pub(crate) fn inst_of<'m>(
    words: &'m [u32],
    r: &InstRecord,
    operands: &'m [ParsedOperand],
    pool: &'m [ParsedOperand],
) -> Inst<'m> {
    let start = r.offset as usize;
    let first = words.get(start).copied().unwrap_or(0);
    let len = usize::from(r.operands_len);
    let from = if r.operands_start & POOLED != 0 { pool } else { operands };
    let at = (r.operands_start & !POOLED) as usize;
    Inst {
        offset: start,
        opcode: (first & 0xffff) as u16,
        result_type: r.result_type,
        result_id: r.result_id,
        ext_set: r.ext_set(),
        words: words.get(start..start + (first >> 16) as usize).unwrap_or(&[]),
        operands: from.get(at..at + len).unwrap_or(&[]),
    }
}
