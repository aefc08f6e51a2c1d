//! Bytes -> deserializer (structurized; plain CFG with debug locations) -> printer, verifier and
//! serializer for whatever it accepts: never a panic, and the printed text always reads back.
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
    }
});
