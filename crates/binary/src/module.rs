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
    Int { width: u32, signed: bool },
    /// A float of this many bits.
    Float { width: u32 },
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

#[derive(Clone, Copy, Debug)]
pub(crate) struct InstRecord {
    pub offset: u32,
    pub word_count: u16,
    pub opcode: u16,
    pub result_type: u32,
    pub result_id: u32,
    pub operands_start: u32,
    pub operands_len: u16,
    pub ext_set: ExtSetRef,
}

/// A parsed module: the header, all words, and the decoded layout of every instruction.
#[derive(Clone, Debug)]
pub struct Module {
    pub header: Header,
    pub endian: Endian,
    /// All words, header included, in host byte order.
    pub(crate) words: Vec<u32>,
    pub(crate) instructions: Vec<InstRecord>,
    pub(crate) operands: Vec<ParsedOperand>,
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
        self.instructions.len()
    }

    pub fn instruction(&self, index: usize) -> Option<Inst<'_>> {
        let r = self.instructions.get(index)?;
        let start = r.offset as usize;
        let operands = r.operands_start as usize;
        Some(Inst {
            offset: start,
            opcode: r.opcode,
            result_type: r.result_type,
            result_id: r.result_id,
            ext_set: r.ext_set,
            words: &self.words[start..start + r.word_count as usize],
            operands: &self.operands[operands..operands + r.operands_len as usize],
        })
    }

    pub fn instructions(&self) -> impl ExactSizeIterator<Item = Inst<'_>> + '_ {
        (0..self.instructions.len()).map(move |i| self.instruction(i).expect("index in range"))
    }
}
