//! What is refused before anything is written.

use super::{Result, SerializeError};
use spirvkit_ir::{Ir, OpId};

/// Refuses modules with constructs that have no binary form.
pub(super) fn check_module(ir: &Ir, module: OpId) -> Result<()> {
    for (_, op) in ir.ops_under(module) {
        let o = ir.op(op);
        if o.name.def().is_none() {
            return Err(SerializeError {
                location: o.location.clone(),
                message: format!("not supported yet: serializing op '{}'", o.name),
            });
        }
    }
    Ok(())
}
