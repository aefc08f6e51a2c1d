//! The structured SPIR-V IR, modeled on MLIR's SPIR-V dialect.

#![forbid(unsafe_code)]

pub mod abi;
pub mod attr;
pub mod availability;
pub mod canonicalize;
pub mod cse;
pub mod custom;
pub mod diag;
pub mod format;
pub mod generated;
pub mod gl_canonicalize;
pub mod inline;
pub mod ir;
pub mod layout;
pub mod lexer;
pub mod opdef;
pub mod opt;
pub mod parallel;
pub mod parser;
pub mod pipeline;
pub mod printer;
pub mod rewrite_inserts;
pub mod spirv_custom;
pub mod split_parse;
pub mod target_env;
pub mod types;
pub mod unify_aliased;
pub mod vce;
pub mod verify;
pub mod webgpu;

pub use ir::{Ir, OpId};
pub use parser::ParseError;
pub use printer::PrintOptions;

/// Parses MLIR text; the result is the top-level `builtin.module`.
pub fn parse(source: &str, file_name: &str) -> Result<(Ir, OpId), ParseError> {
    let mut ir = Ir::new();
    ir.reserve_for_text(source.len());
    let top = parser::Parser::new(source, &mut ir, file_name).parse_top_level()?;
    Ok((ir, top))
}

/// Prints an op (normally the top-level module) as `mlir-opt` would.
pub fn print(ir: &Ir, op: OpId, options: PrintOptions) -> String {
    printer::print_op(ir, op, options)
}
