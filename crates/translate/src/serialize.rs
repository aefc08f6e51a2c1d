//! `spirv.module` -> SPIR-V words.

use spirvkit_ir::ir::Location;
use spirvkit_ir::{Ir, OpId};

/// What to emit besides the module's semantics.
#[derive(Clone, Debug)]
pub struct SerializeOptions {
    /// OpName/OpMemberName for symbols (functions, globals, spec constants) and named structs.
    pub emit_symbol_names: bool,
    /// `--spirv-emit-op-names`: OpName for every instruction with a location name.
    pub emit_op_names: bool,
    /// `--test-spirv-roundtrip-debug`: OpString/OpLine from op locations.
    pub emit_debug_info: bool,
}

impl Default for SerializeOptions {
    fn default() -> Self {
        SerializeOptions { emit_symbol_names: true, emit_op_names: false, emit_debug_info: false }
    }
}

/// Why a module was not serialized; `location` is the offending op's.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct SerializeError {
    pub location: Location,
    pub message: String,
}

/// Serializes the `spirv.module` op `module` into SPIR-V words (header included).
pub fn serialize(ir: &Ir, module: OpId, options: &SerializeOptions) -> Result<Vec<u32>, SerializeError> {
    let _ = options;
    Err(SerializeError {
        location: ir.op(module).location.clone(),
        message: "not supported yet: serialization".to_string(),
    })
}
