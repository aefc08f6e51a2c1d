//! What the front end's integration tests share: running the front end on a snippet and
//! the three verdicts they assert.
// Each test file uses the part it needs.
#![allow(dead_code)]

use spirvkit_hlsl::frontend::{analyze_source, Frontend, FrontendOptions};
use spirvkit_hlsl::preprocessor::MemoryLoader;

/// The front end on `text` (as `t.hlsl`, includes resolved in an empty memory loader).
pub fn analyze(text: &str, options: &FrontendOptions) -> Frontend {
    analyze_source("t.hlsl", None, text.to_string(), options, &MemoryLoader::default())
}

/// Asserts that there are no diagnostics at all, warnings included.
pub fn clean(fe: Frontend) -> Frontend {
    assert!(fe.diags.is_empty(), "unexpected diagnostics:\n{}", fe.render_diagnostics());
    fe
}

/// Asserts that there is no error (warnings may remain).
pub fn without_errors(fe: Frontend) -> Frontend {
    assert!(!fe.diags.has_errors(), "unexpected errors:\n{}", fe.render_diagnostics());
    fe
}

/// Asserts that `text` gave errors; returns the rendered diagnostics.
pub fn with_errors(fe: Frontend, text: &str) -> String {
    assert!(fe.diags.has_errors(), "expected errors for:\n{text}");
    fe.render_diagnostics()
}
