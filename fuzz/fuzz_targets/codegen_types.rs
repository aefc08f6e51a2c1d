//! HLSL source -> front end -> every struct it declares lowered to IR types and laid out
//! under every buffer layout rule (`spirvkit-codegen`): never a panic, bounded time and
//! memory (nesting and sizes are checked there), an unsupported type a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_codegen::layout::LayoutCalculator;
use spirvkit_codegen::{LayoutRule, LowerOptions, TypeLowering};
use spirvkit_hlsl::frontend::{analyze_source, FrontendOptions};
use spirvkit_hlsl::preprocessor::MemoryLoader;
use spirvkit_hlsl::sema::types::{StructId, TypeData};
use spirvkit_ir::types::TypeStore;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the options: 16-bit types and `-Zpr`.
    let flags = data.first().copied().unwrap_or(0);
    let text = String::from_utf8_lossy(data.get(1..).unwrap_or_default()).into_owned();
    let mut options = FrontendOptions::default();
    options.sema.enable_16bit_types = flags & 1 != 0;
    let fe = analyze_source("main.hlsl", None, text, &options, &MemoryLoader::default());
    let Some(typed) = fe.typed else { return };
    let mut table = typed.types;
    let lower_options = LowerOptions { sixteen_bit_types: flags & 1 != 0, default_row_major: flags & 2 != 0 };
    // Bounded work per input: the first structs only.
    let structs: Vec<_> = (0..table.structs.len().min(16))
        .map(|i| table.intern(TypeData::Struct(StructId(i as u32))))
        .collect();
    for rule in LayoutRule::ALL {
        let calculator = LayoutCalculator::new(&table, lower_options, rule);
        for &ty in &structs {
            let _ = calculator.layout(ty);
        }
        let mut store = TypeStore::new();
        let mut lowering = TypeLowering::new(&table, &mut store, lower_options);
        for &ty in &structs {
            let _ = lowering.lower(ty, Some(rule));
        }
    }
    let mut store = TypeStore::new();
    let mut lowering = TypeLowering::new(&table, &mut store, lower_options);
    for &ty in &structs {
        let _ = lowering.lower(ty, None);
    }
});
