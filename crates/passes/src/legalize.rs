//! Legalization for Vulkan: what DXC gets from SPIRV-Tools' legalization passes,
//! over the IR codegen builds in DXC's raw form (`-fcgl`: every local, parameter and
//! temporary a Function variable, functions taking pointers to Function variables,
//! resources living in locals and parameters).
//!
//! [`legalize`] runs, on one `spirv.module`:
//!
//! 1. `inline_all`: every call inlined into the entry points (merge-return first
//!    where a callee returns from inside a construct), unreachable functions removed;
//! 2. `private_to_local`: Private globals (HLSL statics) only one function uses
//!    become its Function variables;
//! 3. `sroa`: Function variables of structs, arrays and vectors accessed only through
//!    constant-index access chains split into one variable per member;
//! 4. `mem2reg`: Function variables only loaded and stored whole promoted to SSA
//!    values across structured regions (construct results and loop header
//!    arguments), after opaque sources (resource loads, global addresses, constants)
//!    are hoisted and unified so handles copied around fold back to their global;
//! 5. `dce`: dead pure ops, unused variables, constant branches;
//! 6. the check that no Function variable, parameter or phi holds an opaque handle
//!    (image, sampler, sampled image, acceleration structure, pointer to non-Function
//!    memory): what cannot be legalized is an error, never an invalid module.

pub mod dce;
pub mod inline_all;
pub mod mem2reg;
pub mod merge_return;
pub mod private_to_local;
pub mod sroa;
mod texel_pointer;
pub(crate) mod util;

use spirvkit_ir::ir::{Ir, Location, OpId};

/// Why a module could not be legalized, with where. Displays as
/// `file:line:col: message` when the op has a file location.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", location_prefix(location))]
pub struct LegalizeError {
    pub message: String,
    /// The location of the op the error is about.
    pub location: Location,
    /// The op the error is about (in the IR given to the pass).
    pub op: Option<OpId>,
}

fn location_prefix(location: &Location) -> String {
    match location {
        Location::FileLineCol { file, line, column } => format!("{file}:{line}:{column}: "),
        _ => String::new(),
    }
}

impl LegalizeError {
    pub(crate) fn at(ir: &Ir, op: OpId, message: impl Into<String>) -> Self {
        LegalizeError { message: message.into(), location: ir.op(op).location.clone(), op: Some(op) }
    }
}

/// Legalizes `module` (a `spirv.module`) for Vulkan: inline-all, sroa, mem2reg, dce,
/// then the opaque-handle check. On error the IR may be partly rewritten.
pub fn legalize(ir: &mut Ir, module: OpId) -> Result<(), LegalizeError> {
    if ir.op(module).name != "spirv.module" {
        return Err(LegalizeError::at(ir, module, "legalization runs on a 'spirv.module'"));
    }
    check_shapes(ir, module)?;
    inline_all::run(ir, module)?;
    private_to_local::run(ir, module);
    for func in util::functions(ir, module) {
        texel_pointer::run(ir, func);
        sroa::run(ir, func)?;
        mem2reg::run(ir, func)?;
        dce::run(ir, func);
    }
    check_opaque_handles(ir, module)
}

/// Runs one legalization step on `module` (what `spirvkit opt --spirv-<step>` does).
pub fn run_step(ir: &mut Ir, module: OpId, step: crate::pipeline::LegalizeStep) -> Result<(), LegalizeError> {
    use crate::pipeline::LegalizeStep;
    check_shapes(ir, module)?;
    let functions = util::functions(ir, module);
    match step {
        LegalizeStep::All => return legalize(ir, module),
        LegalizeStep::InlineAll => return inline_all::run(ir, module),
        LegalizeStep::PrivateToLocal => private_to_local::run(ir, module),
        LegalizeStep::MergeReturn => {
            for f in functions {
                merge_return::run(ir, f)?;
            }
        }
        LegalizeStep::Sroa => {
            for f in functions {
                sroa::run(ir, f)?;
            }
        }
        LegalizeStep::Mem2Reg => {
            for f in functions {
                mem2reg::run(ir, f)?;
            }
        }
        LegalizeStep::Dce => {
            for f in functions {
                dce::run(ir, f);
            }
        }
    }
    Ok(())
}

/// The passes index the operands and results of the ops they rewrite; a module
/// that did not go through the verifier could hold such an op with the wrong
/// arity, which is refused here instead of panicking later.
fn check_shapes(ir: &Ir, module: OpId) -> Result<(), LegalizeError> {
    for (_, op) in ir.ops_under(module) {
        let o = ir.op(op);
        let (operands, results) = (o.operands.len(), o.results.len());
        let fits = match o.name.as_str() {
            "spirv.Variable" => operands <= 1 && results == 1,
            "spirv.Load" => operands == 1 && results == 1,
            "spirv.Store" => operands == 2 && results == 0,
            "spirv.AccessChain" => operands >= 1 && results == 1,
            "spirv.CompositeExtract" | "spirv.CompositeConstruct" | "spirv.Undef" | "spirv.Constant" => {
                results == 1
            }
            "spirv.FunctionCall" | "spirv.ReturnValue" => {
                results <= 1 && (o.name != "spirv.ReturnValue" || operands == 1)
            }
            "spirv.func" | "spirv.mlir.selection" | "spirv.mlir.loop" => o.regions.len() == 1,
            _ => true,
        };
        if !fits {
            return Err(LegalizeError::at(ir, op, format!("malformed '{}' op", o.name.as_str())));
        }
    }
    Ok(())
}

/// The rule Vulkan's validation enforces and legalization exists for: no Function
/// variable, parameter, phi or construct result holds an opaque handle.
pub fn check_opaque_handles(ir: &Ir, module: OpId) -> Result<(), LegalizeError> {
    for func in util::functions(ir, module) {
        if let Some(body) = util::body(ir, func) {
            let entry = ir.region(body).blocks[0];
            if ir.block(entry).arguments.iter().any(|&a| util::is_opaque_handle(ir, ir.value_type(a))) {
                return Err(LegalizeError::at(
                    ir,
                    func,
                    "cannot legalize: a function parameter holds a resource (image, sampler, buffer pointer) \
                     and the function could not be inlined",
                ));
            }
        }
        for (_, op) in ir.ops_under(func) {
            let o = ir.op(op);
            if o.name == "spirv.Variable" {
                if let Some((pointee, "Function")) = util::pointer_parts(ir, ir.value_type(o.results[0])) {
                    if util::is_opaque_handle(ir, pointee) {
                        return Err(LegalizeError::at(
                            ir,
                            op,
                            "cannot legalize: a local variable holds a resource (image, sampler, buffer \
                             pointer) whose value depends on control flow or is accessed indirectly",
                        ));
                    }
                }
            }
            if o.results.iter().any(|&r| is_composite_of_handles(ir, r)) {
                return Err(LegalizeError::at(
                    ir,
                    op,
                    "cannot legalize: a struct or array value holds a resource (image, sampler, buffer pointer)",
                ));
            }
            if util::is_construct(ir, op) {
                if let Some(&r) = o.results.iter().find(|&&r| util::is_opaque_handle(ir, ir.value_type(r))) {
                    return Err(chosen_by_control_flow(ir, op, ir.value_type(r)));
                }
            }
        }
        // Block arguments other than the parameters: phis of handles.
        if let Some((owner, ty)) = handle_phi_owner(ir, func) {
            return Err(chosen_by_control_flow(ir, owner, ty));
        }
    }
    Ok(())
}

/// A struct or array value holding a handle (Vulkan forbids such composite types).
fn is_composite_of_handles(ir: &Ir, v: spirvkit_ir::ir::Value) -> bool {
    use spirvkit_ir::types::TypeKind;
    let ty = ir.value_type(v);
    matches!(
        ir.types.kind(ty),
        TypeKind::LiteralStruct(_)
            | TypeKind::IdentifiedStruct { .. }
            | TypeKind::Array { .. }
            | TypeKind::RuntimeArray { .. }
    ) && util::is_opaque_handle(ir, ty)
}

/// The error for a handle a phi would carry. For a buffer, spirv-val's words (which
/// DXC's tests check): such a phi needs variable pointers, which Vulkan shaders from
/// HLSL do not enable.
fn chosen_by_control_flow(ir: &Ir, op: OpId, ty: spirvkit_ir::types::Type) -> LegalizeError {
    let message = if util::pointer_parts(ir, ty).is_some() {
        "cannot legalize: a buffer is chosen by control flow (Using pointers with OpPhi requires capability \
         VariablePointers or VariablePointersStorageBuffer)"
    } else {
        "cannot legalize: a resource (image, sampler, acceleration structure) is chosen by control flow"
    };
    LegalizeError::at(ir, op, message)
}

/// The op whose region holds a block (not the function's entry) with an argument
/// holding an opaque handle, and the argument's type.
fn handle_phi_owner(ir: &Ir, func: OpId) -> Option<(OpId, spirvkit_ir::types::Type)> {
    let entry = ir.entry_block(func);
    let mut regions: Vec<spirvkit_ir::ir::RegionId> = ir.op(func).regions.to_vec();
    while let Some(region) = regions.pop() {
        for &b in &ir.region(region).blocks {
            let is_phi_block = Some(b) != entry;
            let handle = ir
                .block(b)
                .arguments
                .iter()
                .map(|&a| ir.value_type(a))
                .find(|&t| util::is_opaque_handle(ir, t));
            if let (true, Some(ty)) = (is_phi_block, handle) {
                return Some((ir.region(region).parent?, ty));
            }
            for &op in &ir.block(b).ops {
                regions.extend(ir.op(op).regions.iter().copied());
            }
        }
    }
    None
}
