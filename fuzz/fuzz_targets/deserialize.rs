//! Bytes -> deserializer (structurized; plain CFG with debug locations) -> printer, verifier and
//! serializer for whatever it accepts: never a panic, the printed text always reads back, and
//! the two-thread paths (forced at any size) give the one-thread result.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_ir::{Ir, PrintOptions};
use spirvkit_translate::{deserialize, serialize, DeserializeOptions, SerializeOptions};

fuzz_target!(|data: &[u8]| {
    for structurize in [true, false] {
        let mut ir = Ir::new();
        let options = DeserializeOptions { structurize, debug_locations: !structurize };
        let Ok(module) = deserialize(data, &mut ir, &options) else { continue };
        let text = spirvkit_ir::print(&ir, module, PrintOptions::default());
        let generic = spirvkit_ir::print(&ir, module, PrintOptions { generic: true, ..Default::default() });
        // As `spirvkit translate` prints it: the custom form when the module verifies,
        // else the generic form; either must read back.
        let valid = spirvkit_ir::verify::first_failure(&ir, module, &text).is_none();
        let printed = if valid { &text } else { &generic };
        if let Err(e) = spirvkit_ir::parse(printed, "printed.mlir") {
            panic!("printed IR does not read back: {e:?}\n{printed}");
        }
        let _ = serialize(&ir, module, &SerializeOptions::default());
        // The two-thread paths, forced at this size, give what one thread gives.
        let Ok(read) = spirvkit_translate::deserialize::read(data) else { continue };
        let (merged, halves_text) = spirvkit_translate::deserialize::halves_at_any_size(&read, &options);
        if let Some((merged_ir, merged_op)) = merged {
            assert_eq!(
                spirvkit_ir::print(&merged_ir, merged_op, PrintOptions::default()),
                text,
                "merged halves"
            );
        }
        if let Some(halves_text) = halves_text {
            assert!(valid, "halves printed a module that does not verify");
            assert_eq!(halves_text, text, "printed halves");
        }
    }
});
