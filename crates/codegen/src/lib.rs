//! HLSL to SPIR-V code generation. It builds IR (`spirvkit-ir`) from the typed tree of
//! the HLSL front end (`spirvkit-hlsl`), never binary words by hand.
//!
//! This first slice lowers types and computes buffer memory layouts as dxc does:
//! [`types`] maps HLSL types to IR types, [`layout`] holds the layout rules and their
//! alignment, size and stride computation.

pub mod layout;
pub mod types;

pub use layout::{BufferKind, LayoutOption, LayoutRule};
pub use types::{CodegenError, LowerOptions, TypeLowering};

#[cfg(test)]
mod test_support;
