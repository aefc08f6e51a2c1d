//! The HLSL front end of spirvkit: source map, diagnostics, lexer, preprocessor,
//! syntax tree and parser. Semantic analysis (a typed tree) comes later and starts
//! from [`ast::Ast`].
//!
//! Data flow: source text -> [`preprocessor`] (tokens with spans into the original
//! files) -> [`parser`] -> [`ast::Ast`] (arena-based, every node with a span) ->
//! [`dump`] for `-ast-dump`. [`frontend::parse_source`] runs the whole chain.

pub mod ast;
pub mod diag;
pub mod dump;
pub mod frontend;
pub mod lexer;
pub mod parser;
pub mod preprocessor;
pub mod source;

pub use frontend::{parse_source, Frontend, FrontendOptions};
