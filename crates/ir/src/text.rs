//! MLIR's text form of the IR: lexing, parsing (generic form, declarative assembly
//! formats, hand-written forms) and printing as `mlir-opt` does.

pub mod custom;
pub mod format;
pub mod lexer;
pub mod llvm_custom;
pub mod parser;
pub mod printer;
pub mod spirv_custom;
pub mod split_input;
pub mod split_parse;
