//! The SPIR-V binary layer: reading and writing modules word for word, and the
//! SPIRV-Tools-compatible text forms (disassembler and assembler).

#![forbid(unsafe_code)]

pub mod asm;
pub mod dis;
pub mod equiv;
mod idmap;
pub mod module;
pub mod numfmt;
pub mod read;
pub mod requirements;
pub mod write;

pub use asm::{assemble, AsmError, AsmOptions, TargetEnv};
pub use dis::{disassemble, DisOptions, Naming};
pub use module::{Endian, ExtSetRef, Header, Inst, Module, NumberKind, ParsedOperand};
pub use read::{read, read_le_words, read_words, ReadError, ReadErrorKind};
pub use write::{words_to_bytes, write, Builder};
