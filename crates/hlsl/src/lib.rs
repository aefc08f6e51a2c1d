//! The HLSL front end of spirvkit: source map, diagnostics, lexer, preprocessor,
//! syntax tree, parser and semantic analysis (a typed, resolved tree).
//!
//! Data flow: source text -> [`preprocessor`] (tokens with spans into the original
//! files) -> [`parser`] -> [`ast::Ast`] (arena-based, every node with a span) ->
//! [`sema`] -> [`sema::tree::TypedTree`] (types, resolutions, chosen overloads as side
//! tables of the tree) -> [`dump`] for `-ast-dump`. [`frontend::analyze_source`] runs
//! the whole chain.

pub mod ast;
pub mod diag;
pub mod dump;
pub mod frontend;
pub mod lexer;
pub mod parser;
pub mod preprocessor;
pub mod sema;
pub mod source;
pub mod verify;

pub use frontend::{analyze_source, parse_source, Frontend, FrontendOptions};
