//! The HLSL front end of spirvkit: source map, diagnostics, lexer, preprocessor,
//! syntax tree and parser. Semantic analysis (a typed tree) comes later and starts
//! from [`ast::Ast`].
//!
//! Data flow: source text -> [`preprocessor`] (tokens with spans into the original
//! files) -> [`parser`] -> [`ast::Ast`] (arena-based, every node with a span).

pub mod diag;
pub mod lexer;
pub mod preprocessor;
pub mod source;
