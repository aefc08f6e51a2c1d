//! dxc's command line as `hlsl2spirv` reads it (option table, splitting, every check):
//! never a panic, and an error always renders. Arguments come from the input split at
//! NUL bytes, half of them taken from the option table's own spellings, so the fuzzer
//! reaches the value checks of real options rather than only "unknown argument".
#![no_main]

use hlsl2spirv::option_table::OPTIONS;
use hlsl2spirv::options::parse_args;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let args: Vec<String> = data
        .split(|b| *b == 0)
        .map(|piece| match piece.split_first() {
            // A leading 0xFF byte names a table option by the next byte; the rest
            // of the piece is glued on (a joined value, or junk after the name).
            Some((0xFF, rest)) if !rest.is_empty() => {
                let spec = &OPTIONS[usize::from(rest[0]) % OPTIONS.len()];
                format!("-{}{}", spec.name, String::from_utf8_lossy(&rest[1..]))
            }
            _ => String::from_utf8_lossy(piece).into_owned(),
        })
        .collect();
    match parse_args(&args) {
        Ok(options) => {
            let _ = format!("{options:?}");
        }
        Err(error) => {
            let _ = error.render();
        }
    }
});
