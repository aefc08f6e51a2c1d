//! Bytes -> reader. Whatever it accepts must write back byte for byte and
//! disassemble without panicking, with every option combination that changes
//! the code path taken.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_binary::{disassemble, read, write, DisOptions, Naming};

fuzz_target!(|data: &[u8]| {
    let Ok(module) = read(data) else { return };
    assert!(write(&module) == data, "write(read(bytes)) differs from the input");
    let _ = disassemble(&module, &DisOptions::default());
    let _ = disassemble(&module, &DisOptions { raw_ids: true, ..DisOptions::default() });
    let _ = disassemble(
        &module,
        &DisOptions {
            indent: false,
            header: false,
            raw_ids: false,
            offsets: true,
            comment: true,
            naming: Naming::Canonical,
        },
    );
});
