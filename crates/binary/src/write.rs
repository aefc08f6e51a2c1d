//! Binary writer: words -> bytes, and a builder for encoding instructions.

use crate::module::{Endian, Header, Module};

/// Encodes a module in its original byte order; `read` then `write` is byte-identical.
pub fn write(module: &Module) -> Vec<u8> {
    words_to_bytes(module.words(), module.endian)
}

/// Encodes host-order words in the given byte order.
pub fn words_to_bytes(words: &[u32], endian: Endian) -> Vec<u8> {
    // Filled in place: this form compiles to a vectorized loop (pushing byte by byte
    // does not).
    let mut bytes = vec![0u8; words.len() * 4];
    let chunks = bytes.chunks_exact_mut(4).zip(words);
    match endian {
        Endian::Little => chunks.for_each(|(b, w)| b.copy_from_slice(&w.to_le_bytes())),
        Endian::Big => chunks.for_each(|(b, w)| b.copy_from_slice(&w.to_be_bytes())),
    }
    bytes
}

/// An instruction longer than a 16-bit word count allows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("instruction {opcode} has {words} words; at most 65535 fit in a word count")]
pub struct TooLong {
    pub opcode: u16,
    pub words: usize,
}

/// Builds a module's words one instruction at a time.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    words: Vec<u32>,
    start: usize,
}

impl Builder {
    pub fn new() -> Self {
        Builder { words: vec![0; Header::WORDS], start: 0 }
    }

    /// Starts an instruction; its word count is filled in by [`Builder::end`].
    pub fn begin(&mut self, opcode: u16) {
        self.start = self.words.len();
        self.words.push(opcode as u32);
    }

    pub fn word(&mut self, word: u32) {
        self.words.push(word);
    }

    /// Appends a literal string: UTF-8 bytes, NUL-terminated, zero-padded to a word.
    pub fn string(&mut self, bytes: &[u8]) {
        encode_string(bytes, &mut self.words);
    }

    /// Finishes the instruction started last.
    pub fn end(&mut self) -> Result<(), TooLong> {
        let count = self.words.len() - self.start;
        let opcode = self.words[self.start] as u16;
        if count > 0xffff {
            self.words.truncate(self.start);
            return Err(TooLong { opcode, words: count });
        }
        self.words[self.start] = ((count as u32) << 16) | opcode as u32;
        Ok(())
    }

    /// The words of the instruction being built (after `begin`).
    pub fn current(&self) -> &[u32] {
        &self.words[self.start..]
    }

    /// Finishes the module with the given header.
    pub fn finish(mut self, header: Header) -> Vec<u32> {
        self.words[..Header::WORDS].copy_from_slice(&header.words());
        self.words
    }
}

/// Appends `bytes` as a SPIR-V literal string.
pub fn encode_string(bytes: &[u8], out: &mut Vec<u32>) {
    for chunk in bytes.chunks(4) {
        let mut w = [0u8; 4];
        w[..chunk.len()].copy_from_slice(chunk);
        out.push(u32::from_le_bytes(w));
    }
    if bytes.len().is_multiple_of(4) {
        out.push(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_nul_terminated_and_padded() {
        let mut out = Vec::new();
        encode_string(b"main", &mut out);
        assert_eq!(out, vec![u32::from_le_bytes(*b"main"), 0]);
        out.clear();
        encode_string(b"abc", &mut out);
        assert_eq!(out, vec![u32::from_le_bytes(*b"abc\0")]);
        out.clear();
        encode_string(b"", &mut out);
        assert_eq!(out, vec![0]);
    }

    #[test]
    fn builder_fills_word_count() {
        let mut b = Builder::new();
        b.begin(17);
        b.word(1);
        b.end().unwrap();
        let words = b.finish(Header { version: 0x10000, generator: 0, bound: 1, schema: 0 });
        assert_eq!(words[5], (2 << 16) | 17);
    }
}
