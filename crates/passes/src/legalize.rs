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
//!    are hoisted and unified so handles copied around fold back to their global.
//!    The hoisted chains and handle loads then go back next to their uses
//!    (`sink`), and chains over chains become one chain (`combine_chains`), as
//!    SPIRV-Tools' legalization leaves dxc's code;
//! 5. `dce`: dead pure ops, unused variables, constant branches;
//! 6. `image_offsets`: `Offset` image operands made constant become `ConstOffset`
//!    (Vulkan takes `Offset` in gathers only); a variable one elsewhere is an error;
//! 7. the check that no Function variable, parameter or phi holds an opaque handle
//!    (image, sampler, sampled image, acceleration structure, pointer to non-Function
//!    memory): what cannot be legalized is an error, never an invalid module.

mod combine_chains;
pub mod dce;
pub mod image_offsets;
pub mod inline_all;
pub mod mem2reg;
pub mod merge_return;
pub mod private_to_local;
mod sink;
pub mod sroa;
mod texel_pointer;
pub(crate) mod util;
pub mod value_numbering;

use spirvkit_grammar::fxhash::FxHashSet;
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
    let mut routed_returns = FxHashSet::default();
    inline_all::run_recording(ir, module, &mut routed_returns)?;
    private_to_local::run(ir, module);
    for func in util::functions(ir, module) {
        texel_pointer::run(ir, func);
        sroa::run(ir, func)?;
        mem2reg::run(ir, func)?;
        combine_chains::run(ir, func);
        dce::run(ir, func);
        image_offsets::run(ir, func)?;
    }
    check_handles(ir, module, &routed_returns)
}

/// What dxc's optimization levels above `-O0` add to legalization and the driver
/// runs after [`legalize`] unless optimizations are disabled: redundant
/// computations (pure ops, loads of read-only memory) removed
/// ([`value_numbering`]), then what that left dead.
pub fn optimize(ir: &mut Ir, module: OpId) {
    for func in util::functions(ir, module) {
        if value_numbering::run(ir, func) {
            dce::run(ir, func);
        }
    }
}

/// Whether `module` in dxc's raw form needs legalization to be valid for Vulkan: a
/// Function variable, parameter, phi or composite holds a resource, a Private
/// variable (an HLSL `static`) holds one, or an image instruction takes an `Offset`
/// only legalization can make constant. dxc legalizes at `-O0` only then (its
/// `needsLegalization`); with optimizations it always does.
pub fn needs_legalization(ir: &Ir, module: OpId) -> bool {
    let private_handle = util::module_ops(ir, module).into_iter().any(|op| {
        let o = ir.op(op);
        o.name == "spirv.GlobalVariable"
            && o.attr("type").is_some_and(|t| match t {
                spirvkit_ir::attr::Attribute::Type(ty) => util::pointer_parts(ir, *ty)
                    .is_some_and(|(p, sc)| sc == "Private" && util::is_opaque_handle(ir, p)),
                _ => false,
            })
    });
    private_handle
        || has_ray_query_variable(ir, module)
        || check_opaque_handles(ir, module).is_err()
        || passes_non_variable_pointer(ir, module)
        || util::functions(ir, module).into_iter().any(|f| image_offsets::has_offsets_to_fold(ir, f))
}

/// Whether a function holds a ray query: dxc legalizes every module with a local of
/// an opaque type, ray queries included (`RayQuery<flags>` locals).
fn has_ray_query_variable(ir: &Ir, module: OpId) -> bool {
    ir.ops_under(module).into_iter().any(|(_, op)| {
        let o = ir.op(op);
        o.name == "spirv.Variable"
            && o.results.first().is_some_and(|&v| {
                util::pointer_parts(ir, ir.value_type(v)).is_some_and(|(pointee, _)| {
                    matches!(ir.types.kind(pointee), spirvkit_ir::types::TypeKind::Opaque(t) if t == "spirv.RayQueryKHR")
                })
            })
    })
}

/// Whether a call passes a pointer that is not a Function variable (an access chain,
/// or memory of another storage class): SPIR-V wants Function memory object
/// declarations as pointer arguments, and only inlining removes the call (dxc's rule:
/// an argument outside Function memory needs legalization).
fn passes_non_variable_pointer(ir: &Ir, module: OpId) -> bool {
    ir.ops_under(module).into_iter().any(|(_, op)| {
        let o = ir.op(op);
        o.name == "spirv.FunctionCall"
            && o.operands.iter().any(|&v| {
                let Some((_, class)) = util::pointer_parts(ir, ir.value_type(v)) else { return false };
                class != "Function"
                    || util::defining_op(ir, v).is_some_and(|d| {
                        !matches!(ir.op(d).name.as_str(), "spirv.Variable" | "spirv.mlir.addressof")
                    })
            })
    })
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
        LegalizeStep::ValueNumbering => {
            for f in functions {
                value_numbering::run(ir, f);
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
    check_handles(ir, module, &FxHashSet::default())
}

/// [`check_opaque_handles`]; `routed_returns` are the branches merge-return made to
/// carry returns out of selections.
fn check_handles(ir: &Ir, module: OpId, routed_returns: &FxHashSet<OpId>) -> Result<(), LegalizeError> {
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
                    let instruction = if if_converted(ir, op, routed_returns) { "OpSelect" } else { "OpPhi" };
                    return Err(chosen_by_control_flow(ir, op, ir.value_type(r), instruction));
                }
            }
        }
        // Block arguments other than the parameters: phis of handles.
        if let Some((owner, ty)) = handle_phi_owner(ir, func) {
            return Err(chosen_by_control_flow(ir, owner, ty, "OpPhi"));
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
/// DXC's tests check): such a phi, or the `OpSelect` SPIRV-Tools' if-conversion makes
/// of it (`instruction`), needs variable pointers, which Vulkan shaders from HLSL do
/// not enable.
fn chosen_by_control_flow(
    ir: &Ir,
    op: OpId,
    ty: spirvkit_ir::types::Type,
    instruction: &str,
) -> LegalizeError {
    let message = if util::pointer_parts(ir, ty).is_some() {
        format!(
            "cannot legalize: a buffer is chosen by control flow (Using pointers with {instruction} requires \
             capability VariablePointers or VariablePointersStorageBuffer)"
        )
    } else {
        "cannot legalize: a resource (image, sampler, acceleration structure) is chosen by control flow"
            .to_string()
    };
    LegalizeError::at(ir, op, message)
}

/// Whether SPIRV-Tools' if-conversion (part of dxc's optimization) would turn the
/// results of `selection` into `OpSelect`s: its header ends in a two-way conditional
/// branch, it is not `DontFlatten` (HLSL's `[branch]`), and its merge is reached
/// from two blocks, neither by a return merge-return routed there (SPIRV-Tools
/// sends those to the end of the function instead).
fn if_converted(ir: &Ir, selection: OpId, routed_returns: &FxHashSet<OpId>) -> bool {
    use spirvkit_ir::attr::Attribute;
    if ir.op(selection).name != util::SELECTION {
        return false;
    }
    if let Some(Attribute::Dialect { body: Some(control), .. }) = ir.op(selection).attr("selection_control") {
        if control.contains("DontFlatten") {
            return false;
        }
    }
    let Some(&region) = ir.op(selection).regions.first() else { return false };
    let blocks = &ir.region(region).blocks;
    let (Some(&header), Some(&merge)) = (blocks.first(), blocks.last()) else { return false };
    let two_way = util::terminator(ir, header).is_some_and(|t| ir.op(t).name == "spirv.BranchConditional");
    let into_merge: Vec<OpId> = blocks
        .iter()
        .filter_map(|&b| util::terminator(ir, b))
        .filter(|&t| ir.op(t).successors.contains(&merge))
        .collect();
    two_way && into_merge.len() == 2 && !into_merge.iter().any(|t| routed_returns.contains(t))
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
