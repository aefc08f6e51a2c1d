//! The structured SPIR-V IR, modeled on MLIR's SPIR-V dialect: the model (`ir`,
//! `types`, `attr`, `opdef` and the generated op tables), its MLIR text form (`text`),
//! the verifier and availability. The passes are in `spirvkit-passes`.

#![forbid(unsafe_code)]

pub mod attr;
pub mod availability;
pub mod diag;
pub mod dominance;
pub mod generated;
pub mod ir;
pub mod llvm;
pub mod opdef;
pub mod parallel;
pub mod source;
pub mod target_env;
pub mod text;
pub mod types;
pub mod verify;

pub use ir::{Ir, OpId};
pub use text::parser::ParseError;
pub use text::printer::PrintOptions;

/// Parses MLIR text; the result is the top-level `builtin.module`.
pub fn parse(source: &str, file_name: &str) -> Result<(Ir, OpId), ParseError> {
    let mut ir = Ir::new();
    ir.reserve_for_text(source.len());
    let top = text::parser::Parser::new(source, &mut ir, file_name).parse_top_level()?;
    Ok((ir, top))
}

/// Prints an op (normally the top-level module) as `mlir-opt` would.
pub fn print(ir: &Ir, op: OpId, options: PrintOptions) -> String {
    text::printer::print_op(ir, op, options)
}
