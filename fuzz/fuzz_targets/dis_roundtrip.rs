//! Bytes -> reader -> disassembler (raw ids) -> assembler (numeric ids kept):
//! the instruction words must come back unchanged. Only the header may differ
//! (the assembler writes its own version, generator and bound), and so may the
//! bytes after a string's NUL in its last word: the spec wants them 0, but the
//! reader accepts anything there (as SPIRV-Tools does) and text cannot carry them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_binary::asm::{assemble, AsmOptions};
use spirvkit_binary::{disassemble, read, DisOptions, Module, NumberKind};
use spirvkit_grammar::OperandKind;

/// The module's words with every string's padding after its NUL set to 0.
fn expected_words(module: &Module) -> Vec<u32> {
    let mut words = module.words().to_vec();
    for inst in module.instructions() {
        for operand in inst.operands.iter().filter(|o| o.kind == OperandKind::LiteralString) {
            let last = inst.offset + operand.offset as usize + operand.num_words as usize - 1;
            let mut bytes = words[last].to_le_bytes();
            if let Some(nul) = bytes.iter().position(|&b| b == 0) {
                bytes[nul..].fill(0);
            }
            words[last] = u32::from_le_bytes(bytes);
        }
    }
    words
}

/// Whether every literal number is one the text can carry: floats of 16, 32 or 64
/// bits (the assembler, as spirv-as, reads no other width), and no bits above the
/// type's width other than the spec's zero or sign extension (the reader, as
/// SPIRV-Tools' parser, accepts any; the text shows the value, which the assembler
/// then rejects as out of range or re-encodes canonically).
fn numbers_are_canonical(module: &Module) -> bool {
    module.instructions().all(|inst| {
        inst.operands.iter().all(|operand| {
            let words = inst.operand_words(operand);
            let (width, signed) = match operand.number {
                NumberKind::None => return true,
                NumberKind::Float { width } => {
                    if !matches!(width, 16 | 32 | 64) {
                        return false;
                    }
                    (width, false)
                }
                NumberKind::Int { width, signed } => (width, signed),
            };
            if width >= 64 || words.len() > 2 {
                return true;
            }
            let value = words.iter().rev().fold(0u64, |v, &w| (v << 32) | u64::from(w));
            let total = 32 * words.len() as u32;
            let low = value & ((1u64 << width) - 1);
            let negative = signed && (low >> (width - 1)) & 1 == 1;
            let high_mask =
                if total >= 64 { u64::MAX << width } else { ((1u64 << total) - 1) & (u64::MAX << width) };
            let canonical = if negative { low | high_mask } else { low };
            value == canonical
        })
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(module) = read(data) else { return };
    if !numbers_are_canonical(&module) {
        return;
    }
    let text = disassemble(&module, &DisOptions { raw_ids: true, ..DisOptions::default() });
    // Strings need not be UTF-8 in a binary; the text then is not either, and the
    // assembler takes `&str`.
    let Ok(text) = std::str::from_utf8(&text) else { return };
    let options = AsmOptions { preserve_numeric_ids: true, ..AsmOptions::default() };
    let words = match assemble(text, &options) {
        Ok(words) => words,
        // Text that spirv-dis prints but spirv-as rejects too, so the assembler
        // (which follows spirv-as) rightly rejects it: the reader (as SPIRV-Tools'
        // parser) takes any opcode as OpSpecConstantOp's operation, where the
        // assembler takes only those the spec allows.
        Err(e) if e.message.starts_with("Invalid OpSpecConstantOp opcode") => return,
        Err(e) => panic!("the assembler rejects the disassembly: {e}\n{text}"),
    };
    let expected = expected_words(&module);
    let original = &expected[5..];
    let reassembled = words.get(5..).unwrap_or(&[]);
    if original != reassembled {
        let first = original
            .iter()
            .zip(reassembled)
            .position(|(a, b)| a != b)
            .unwrap_or(original.len().min(reassembled.len()));
        panic!(
            "reassembled words differ from word {} after the header (original {:#x}, reassembled {:#x}; \
             {} and {} words):\n{text}",
            first,
            original.get(first).copied().unwrap_or(0),
            reassembled.get(first).copied().unwrap_or(0),
            original.len(),
            reassembled.len()
        );
    }
});
