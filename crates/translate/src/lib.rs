//! IR <-> SPIR-V binary, as MLIR's `mlir::spirv::serialize`/`deserialize` do it
//! (the seed's "Serialization and deserialization" section).
//!
//! - [`serialize`]: a `spirv.module` op to SPIR-V words. The module is checked first
//!   (its VCE must cover what it uses; constructs with no binary form are refused), so
//!   a broken binary is never written.
//! - [`deserialize`]: SPIR-V words to a `spirv.module` op in an [`Ir`]; the control
//!   flow of each function is structurized ([`structurize`]) into
//!   `spirv.mlir.selection`/`spirv.mlir.loop` regions unless asked not to.
//! - [`to_llvm_ir`]: an LLVM dialect module to LLVM IR text (`--mlir-to-llvmir`).
//! - [`driver`]: the `spirvkit translate` command (mlir-translate's options).

pub mod deserialize;
pub mod driver;
pub mod fallback;
pub mod serialize;
mod signedness;
pub mod structurize;
pub mod to_llvm_ir;

pub use deserialize::{deserialize, DeserializeError, DeserializeOptions};
pub use serialize::{serialize, SerializeError, SerializeOptions};
pub use spirvkit_ir::{Ir, OpId};
pub use to_llvm_ir::{to_llvm_ir, ToLlvmIrError};

/// Helpers the unit tests of every module share.
#[cfg(test)]
mod test_support {
    use spirvkit_ir::{Ir, OpId};

    /// The first op named `name` nested under `top`, in [`Ir::ops_under`] order.
    pub(crate) fn first_op(ir: &Ir, top: OpId, name: &str) -> Option<OpId> {
        ir.ops_under(top).into_iter().map(|(_, op)| op).find(|&op| ir.op(op).name == name)
    }
}
