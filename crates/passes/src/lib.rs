//! Passes over the structured SPIR-V IR of `spirvkit-ir`, the pass pipelines that
//! name them, and the `mlir-opt`-compatible driver that runs them (`spirvkit opt`).
//!
//! One module per pass, named after it: `canonicalize` (with the greedy rewrite
//! driver the dialect's patterns use), `canonicalize_gl`, `cse`, `inline`,
//! `lower_abi_attrs`, `update_vce`, `decorate_layout`, `rewrite_inserts`,
//! `unify_aliased_resource`, `webgpu_prepare`, `convert_spirv_to_llvm` (SPIR-V to the LLVM
//! dialect); `legalize`, the Vulkan legalization
//! passes (merge-return, inline-all, private-to-local, sroa, mem2reg, dce) DXC gets
//! from SPIRV-Tools.

#![forbid(unsafe_code)]

pub mod canonicalize;
pub mod canonicalize_gl;
pub mod convert_spirv_to_llvm;
pub mod cpu_kernel;
pub mod cse;
pub mod decorate_layout;
pub mod inline;
pub mod legalize;
pub mod lower_abi_attrs;
pub mod opt;
pub mod pipeline;
pub mod rewrite_inserts;
pub mod unify_aliased_resource;
pub mod update_vce;
pub mod webgpu_prepare;
