//! Runs the front end on a snippet and finds a struct type by name (unit tests).

use spirvkit_hlsl::frontend::{analyze_source, FrontendOptions};
use spirvkit_hlsl::preprocessor::MemoryLoader;
use spirvkit_hlsl::sema::types::{StructId, Ty, TypeData, TypeTable};

/// The type table of `source` and the type of its struct `name`.
pub(crate) fn struct_type(source: &str, name: &str, sixteen_bit_types: bool) -> (TypeTable, Ty, StructId) {
    let mut options = FrontendOptions::default();
    options.sema.enable_16bit_types = sixteen_bit_types;
    let fe = analyze_source("t.hlsl", None, source.to_string(), &options, &MemoryLoader::default());
    assert!(!fe.diags.has_errors(), "{}", fe.render_diagnostics());
    let mut table = fe.typed.expect("typed tree").types;
    let index = table.structs.iter().position(|s| s.name == name).expect("struct in source");
    let id = StructId(index as u32);
    let ty = table.intern(TypeData::Struct(id));
    (table, ty, id)
}
