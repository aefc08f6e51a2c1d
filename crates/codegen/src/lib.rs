//! HLSL to SPIR-V code generation. It builds IR (`spirvkit-ir`) from the typed tree of
//! the HLSL front end (`spirvkit-hlsl`), never binary words by hand.
//!
//! - [`types`] maps HLSL types to IR types; [`layout`] holds the layout rules and their
//!   alignment, size and stride computation.
//! - [`builder`] makes ops of MLIR's SPIR-V dialect with the dialect's property names.
//! - [`emit`] is the code generator: module, functions, statements, expressions,
//!   intrinsics, resources and the entry point wrapper.

pub mod builder;
pub mod emit;
pub mod layout;
pub mod types;

pub use emit::{
    generate, generate_reporting, generate_with_sources, BindingOptions, CodegenDiagnostic, CodegenOptions,
    Generated,
};
pub use layout::{BufferKind, LayoutOption, LayoutRule};
pub use types::{CodegenError, LowerOptions, TypeLowering};

#[cfg(test)]
mod test_support;
