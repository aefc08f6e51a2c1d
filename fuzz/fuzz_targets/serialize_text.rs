//! MLIR text -> parser -> verifier -> serializer (and, in the round-trip mode, back
//! through the deserializer and printer), through the `translate` driver with split
//! files: never a panic. The serializer only ever sees verified IR; this is what
//! makes it meet every shape the verifier lets through. Serializing while verifying
//! on another thread, and from a text parsed in two pieces (large modules), are
//! forced and compared with verifying first and one parse.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_translate::driver::{run, Mode, TranslateOptions};
use spirvkit_translate::{serialize, SerializeOptions};

fuzz_target!(|data: &[u8]| {
    for mode in [Mode::Serialize, Mode::Roundtrip] {
        let options = TranslateOptions {
            mode,
            split_input_file: true,
            no_implicit_module: true,
            ..TranslateOptions::default()
        };
        let _ = run(data, "fuzz.mlir", &options);
    }
    // Verifying beside the serialization (large modules only, forced here) must give
    // what verifying first gives.
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok((ir, top)) = spirvkit_ir::parse(text, "fuzz.mlir") else { return };
    let Some(module) = spirvkit_ir::parallel::spirv_module(&ir, top) else { return };
    let options = SerializeOptions { check_requirements: false, ..SerializeOptions::default() };
    let beside = serialize::serialize_verifying_at_any_size(&ir, top, module, text, &options);
    let verifies = spirvkit_ir::verify::first_failure(&ir, top, text).is_none();
    // So must serializing from the text's two pieces (large modules only, forced).
    if let Some(mut halves) = spirvkit_ir::text::split_parse::parse_halves_at_any_size(text, "fuzz.mlir") {
        if let Some(pieces) = serialize::serialize_halves_at_any_size(&mut halves, text, &options) {
            assert!(verifies, "a module that does not verify was serialized from two pieces");
            let words = |r: Result<spirvkit_translate::serialize::Serialized, spirvkit_translate::SerializeError>| {
                r.map(|m| m.words().to_vec()).map_err(|e| e.message)
            };
            assert_eq!(words(pieces), words(serialize::serialize_read_back(&ir, module, &options)));
        }
    }
    if !verifies {
        assert!(beside.is_none(), "a module that does not verify was serialized");
        return;
    }
    // (Not done for some shapes: a module among other ops, say.)
    let Some(beside) = beside else { return };
    match (beside, serialize::serialize_read_back(&ir, module, &options)) {
        (Ok(beside), Ok(first)) => assert_eq!(beside.words(), first.words()),
        (Err(beside), Err(first)) => assert_eq!(beside.message, first.message),
        (beside, first) => panic!("verified beside: {:?}; verified first: {:?}", beside.err(), first.err()),
    }
});
