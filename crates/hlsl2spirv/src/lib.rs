//! The library half of the `hlsl2spirv` driver (the binary is `main.rs`): dxc's command
//! line (`option_table`, `options`, `spirv_values`) and the built-in `vk/` headers. A
//! library so that the fuzz target `hlsl_options` and tests reach the option parser.

pub mod builtin_headers;
pub mod compile;
pub mod frontend_options;
pub mod option_table;
pub mod options;
pub mod spirv_values;

use std::path::Path;

/// Stack for the front end and code generation: their recursion is bounded, and this
/// leaves a wide margin in debug builds (as the `hlsl2spirv` binary gives them).
const COMPILE_STACK_SIZE: usize = 256 << 20;

/// Compiles the HLSL file at `path` to a SPIR-V module's words, as `hlsl2spirv -spirv -T
/// PROFILE -E ENTRY PATH` does (for `spirvkit run` on `.hlsl` input). The error is the
/// rendered diagnostics (or what stopped the compile).
pub fn compile_file(path: &Path, profile: &str, entry: &str) -> Result<Vec<u32>, String> {
    let args: Vec<String> = vec![
        "-spirv".into(),
        "-T".into(),
        profile.into(),
        "-E".into(),
        entry.into(),
        path.to_string_lossy().into_owned(),
    ];
    let path = path.to_path_buf();
    let worker = std::thread::Builder::new()
        .stack_size(COMPILE_STACK_SIZE)
        .spawn(move || compile_on_this_thread(&args, &path))
        .map_err(|e| format!("cannot start the compiler thread: {e}"))?;
    worker.join().map_err(|_| "hlsl2spirv: internal error".to_string())?
}

fn compile_on_this_thread(args: &[String], path: &Path) -> Result<Vec<u32>, String> {
    let options = options::parse_args(args).map_err(|e| e.render())?;
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let name = path.to_string_lossy().into_owned();
    let loader = builtin_headers::WithBuiltinHeaders(spirvkit_hlsl::preprocessor::FsLoader);
    let fe = spirvkit_hlsl::analyze_source(
        &name,
        Some(path.to_path_buf()),
        text,
        &frontend_options::frontend_options(&options),
        &loader,
    );
    let Some(tree) = fe.typed.as_ref().filter(|_| !fe.diags.has_errors()) else {
        return Err(fe.render_diagnostics());
    };
    let mut reported = Vec::new();
    let result = compile::compile_with_sources(tree, Some(&fe.sources), &options, false, &mut reported);
    let mut diags = spirvkit_hlsl::diag::Diagnostics::new(fe.diags.options.clone());
    for d in fe.diags.iter().chain(&reported) {
        diags.report(d.clone());
    }
    match result {
        Ok(compile::Output::Binary(words)) if !diags.has_errors() => Ok(words),
        Ok(compile::Output::Text(_)) if !diags.has_errors() => {
            Err("hlsl2spirv: internal error: no binary".to_string())
        }
        _ => Err(diags.render(&fe.sources)),
    }
}
