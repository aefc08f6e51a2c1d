//! MLIR text -> parser -> verifier -> serializer (and, in the round-trip mode, back
//! through the deserializer and printer), through the `translate` driver with split
//! files: never a panic. The serializer only ever sees verified IR; this is what
//! makes it meet every shape the verifier lets through.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_translate::driver::{run, Mode, TranslateOptions};

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
});
