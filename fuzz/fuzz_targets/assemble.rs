//! Text -> assembler: must return a result or an error, never panic, with and
//! without numeric-id preservation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_binary::asm::{assemble, AsmOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = assemble(text, &AsmOptions::default());
    let _ = assemble(text, &AsmOptions { preserve_numeric_ids: true, ..AsmOptions::default() });
});
