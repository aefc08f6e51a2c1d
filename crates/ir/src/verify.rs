//! The verifier hook `opt::run` calls after a successful parse.
//!
//! For now it checks nothing: the per-op rules (operand/result/attribute constraints,
//! traits, region and terminator rules, MLIR's diagnostic texts) are to come.
//!
//! Offsets in the returned diagnostics are byte offsets into the text given to
//! [`crate::parse`]. `opt::run` parses each `--split-input-file` chunk padded so that
//! its lines and columns are the whole file's, so an op's `Location::FileLineCol`
//! converts to such an offset with a [`crate::diag::LineIndex`] over the parsed text
//! (which this signature does not carry yet; add it when the rules need locations).

use crate::diag::Diagnostic;
use crate::ir::{Ir, OpId};

/// Verifies the IR under `top`; an empty list means it is valid.
pub fn verify(ir: &Ir, top: OpId) -> Vec<Diagnostic> {
    let _ = (ir, top);
    Vec::new()
}
