//! Bytes -> reader. Whatever it accepts must write back byte for byte and
//! disassemble without panicking, with every option combination that changes
//! the code path taken; the two-thread read (forced) must read the same, and so must
//! the read without tables that checks requirements on the way, and the read of the
//! bytes as little-endian words.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_binary::read::{read_words_cut_at_middle, same_reading};
use spirvkit_binary::requirements::{missing_requirements, read_missing_requirements_cut_at_middle};
use spirvkit_binary::{disassemble, read, read_le_words, read_words, write, DisOptions, Endian, Naming};

fuzz_target!(|data: &[u8]| {
    // The two-thread read, forced at the middle function whatever the size, reads what
    // one thread reads, errors included.
    if data.len() % 4 == 0 {
        let words: Vec<u32> =
            data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let one = read_words(words.clone(), Endian::Little);
        // Reading without the tables (cut at the middle function) finds what
        // checking the tables of a read finds, errors included.
        let checked = read_missing_requirements_cut_at_middle(&words);
        match (&one, checked) {
            (Ok(module), Ok(missing)) => assert_eq!(missing_requirements(module), missing),
            (Err(a), Err(b)) => assert_eq!(a, &b),
            (a, b) => panic!("read: {:?}; read without tables: {:?}", a.as_ref().err(), b.err()),
        }
        // The bytes read as little-endian words read as the bytes, errors included.
        match (read(data), read_le_words(words.clone())) {
            (Ok(a), Ok(b)) => assert!(same_reading(&a, &b), "the read of little-endian words differs"),
            (Err(a), Err(b)) => assert_eq!(a, b),
            (a, b) => panic!("bytes: {:?}; little-endian words: {:?}", a.err(), b.err()),
        }
        let cut = read_words_cut_at_middle(words, Endian::Little);
        match (one, cut) {
            (Ok(a), Ok((b, _))) => assert!(same_reading(&a, &b), "the cut read differs"),
            (Err(a), Err(b)) => assert_eq!(a, b),
            (a, b) => panic!("one thread: {:?}; cut: {:?}", a.err(), b.err()),
        }
    }
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
