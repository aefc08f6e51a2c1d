//! The CPU execution model of `spirvkit run --device cpu`, the parts that need no
//! LLVM: the kernel interface read from the SPIR-V IR before conversion
//! ([`interface`]), the substitution of `--spec` values ([`spec`]), the context the
//! compiled code reads ([`context`]) and the kernel pass over the converted LLVM dialect
//! module that makes one function run a whole workgroup ([`workgroup`]).
//!
//! Order of use (the CPU device does this):
//! 1. [`prepare_spirv`]: spec values set, interface read, spec constants folded,
//!    functions inlined into the entry point;
//! 2. the conversion to the LLVM dialect (`-convert-spirv-to-llvm`);
//! 3. [`workgroup::build_workgroup_function`] on the converted module;
//! 4. LLVM IR text, JIT, and the runtime's dispatch over all cores.

pub mod atomics;
pub mod context;
pub mod divergence;
pub mod interface;
pub mod simd;
pub mod spec;
pub mod subgroup;
mod unused_globals;
pub mod workgroup;

#[cfg(test)]
mod tests;

use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{Ir, Location, OpId};

pub use interface::{kernel_interface, BuiltIn, GlobalKind, KernelInterface};
pub use workgroup::{build_workgroup_function, KernelLayout};

/// An error of the CPU kernel preparation, with the location of what it is about.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", at_prefix(location))]
pub struct KernelError {
    pub location: Location,
    pub message: String,
}

fn at_prefix(location: &Location) -> String {
    match location.file_line_col() {
        Some((file, line, column)) => format!("{file}:{line}:{column}: "),
        None => String::new(),
    }
}

impl KernelError {
    pub fn new(location: &Location, message: impl Into<String>) -> Self {
        KernelError { location: location.clone(), message: message.into() }
    }
}

/// Makes a deserialized `spirv.module` ready for the conversion and returns its
/// kernel interface: `spec` values (SpecId, raw bits) applied, unused globals the CPU
/// cannot bind removed (`unused_globals`), the interface read
/// (workgroup size with its spec constants), spec constants folded into constants and
/// every function inlined into the entry point.
pub fn prepare_spirv(
    ir: &mut Ir,
    module: OpId,
    entry: Option<&str>,
    spec: &[(u32, u64)],
) -> Result<KernelInterface, KernelError> {
    spec::set_spec_values(ir, module, spec)?;
    unused_globals::remove_unbindable(ir, module, |ir, op| interface::global_kind(ir, op).is_err());
    let interface = interface::kernel_interface(ir, module, entry)?;
    spec::fold_spec_constants(ir, module)?;
    crate::legalize::inline_all::run(ir, module)
        .map_err(|e| KernelError::new(&ir.op(module).location, e.to_string()))?;
    Ok(interface)
}

/// The ops directly inside a module's body.
pub(crate) fn module_ops(ir: &Ir, module: OpId) -> Vec<OpId> {
    crate::legalize::util::module_ops(ir, module)
}

/// A string or flat symbol attribute's name.
pub(crate) fn symbol(ir: &Ir, op: OpId, name: &str) -> Option<String> {
    match ir.op(op).attr(name)? {
        Attribute::String(s) => Some(s.clone()),
        Attribute::SymbolRef(path) if path.len() == 1 => Some(path[0].clone()),
        _ => None,
    }
}
