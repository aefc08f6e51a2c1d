//! `hlsl2spirv`: compiles HLSL with dxc's command line. For now the front end only:
//! `-fsyntax-only` (preprocess, parse, semantic analysis), `-ast-dump` (the typed
//! tree), `-P` (preprocess) and `-verify` (the diagnostics against the input's
//! `expected-*` comments).

use hlsl2spirv::options::{self, Mode, Options, Stage};
use hlsl2spirv::{builtin_headers, option_table, spirv_values};
use spirvkit_hlsl::diag::DiagOptions;
use spirvkit_hlsl::parser::ParseOptions;
use spirvkit_hlsl::preprocessor::{FsLoader, PreprocessOptions};
use spirvkit_hlsl::sema::tree::Stage as SemaStage;
use spirvkit_hlsl::sema::{SemaOptions, StageIoOrder};
use spirvkit_hlsl::FrontendOptions;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[global_allocator]
static GLOBAL: spirvkit_malloc::Mimalloc = spirvkit_malloc::Mimalloc;

/// The front end runs on a thread with this much stack (its recursion is bounded;
/// this leaves a wide margin in debug builds).
const STACK_SIZE: usize = 256 << 20;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let worker = std::thread::Builder::new().stack_size(STACK_SIZE).spawn(move || run(&args));
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("hlsl2spirv: internal error");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> ExitCode {
    let options = match options::parse_args(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{}", e.render());
            return ExitCode::FAILURE;
        }
    };
    match options.mode {
        Mode::Help => return write_output(None, &option_table::usage()),
        Mode::Version => {
            return write_output(None, &format!("hlsl2spirv {}\n", env!("CARGO_PKG_VERSION")));
        }
        _ => {}
    }
    let Some(input) = options.input.clone() else {
        eprintln!("dxc failed : Required input file argument is missing. use -help to get more information.");
        return ExitCode::FAILURE;
    };
    let (name, path, text) = if input == "-" {
        let mut text = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut text) {
            eprintln!("dxc failed : cannot read standard input: {e}");
            return ExitCode::FAILURE;
        }
        ("<stdin>".to_string(), None, text)
    } else {
        match std::fs::read(&input) {
            Ok(bytes) => {
                (input.clone(), Some(PathBuf::from(&input)), String::from_utf8_lossy(&bytes).into_owned())
            }
            Err(e) => {
                eprintln!("dxc failed : cannot open file '{input}': {e}");
                return ExitCode::FAILURE;
            }
        }
    };
    let frontend_options = frontend_options(&options);
    if options.mode == Mode::Preprocess {
        let (sources, interner, pre, diags) = spirvkit_hlsl::frontend::preprocess_only(
            &name,
            path,
            text,
            &frontend_options,
            &builtin_headers::WithBuiltinHeaders(FsLoader),
        );
        eprint!("{}", diags.render(&sources));
        if diags.has_errors() {
            return ExitCode::FAILURE;
        }
        let rendered = spirvkit_hlsl::preprocessor::render_tokens(&pre.tokens, &interner, &sources);
        return write_output(options.preprocess_output.as_deref(), &rendered);
    }
    let loader = builtin_headers::WithBuiltinHeaders(FsLoader);
    let fe = spirvkit_hlsl::analyze_source(&name, path, text, &frontend_options, &loader);
    if options.verify {
        // The diagnostics are the test's subject: only the comparison is reported.
        let files: Vec<_> = fe.sources.files().map(|(id, _)| id).collect();
        let result = spirvkit_hlsl::verify::verify(&fe.sources, &fe.diags, &files);
        eprint!("{}", result.report);
        return if result.passed { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    }
    eprint!("{}", fe.render_diagnostics());
    if fe.diags.has_errors() {
        return ExitCode::FAILURE;
    }
    match options.mode {
        Mode::SyntaxOnly | Mode::Preprocess | Mode::Help | Mode::Version => ExitCode::SUCCESS,
        Mode::AstDump => write_output(options.output.as_deref(), &fe.dump()),
        Mode::Compile => compile(&fe, &options),
    }
}

/// Code generation: the binary to `-Fo`, else its disassembly (or with `-emit-mlir`,
/// the IR) to standard output.
fn compile(fe: &spirvkit_hlsl::Frontend, options: &Options) -> ExitCode {
    let Some(tree) = fe.typed.as_ref() else {
        eprintln!("hlsl2spirv: internal error: no typed tree");
        return ExitCode::FAILURE;
    };
    let emit_mlir = options.other.iter().any(|(n, _)| n == "-emit-mlir");
    match hlsl2spirv::compile::compile(tree, options, emit_mlir) {
        Ok(hlsl2spirv::compile::Output::Text(text)) => write_output(options.output.as_deref(), &text),
        Ok(hlsl2spirv::compile::Output::Binary(words)) => match options.output.as_deref() {
            Some(path) if path != "-" => {
                let bytes = spirvkit_binary::write::words_to_bytes(&words, spirvkit_binary::Endian::Little);
                match std::fs::write(path, bytes) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("dxc failed : cannot write output: {e}");
                        ExitCode::FAILURE
                    }
                }
            }
            _ => {
                let bytes = spirvkit_binary::write::words_to_bytes(&words, spirvkit_binary::Endian::Little);
                match spirvkit_binary::read::read(&bytes) {
                    Ok(module) => {
                        let text = spirvkit_binary::dis::disassemble(&module, &Default::default());
                        write_output(None, &String::from_utf8_lossy(&text))
                    }
                    Err(e) => {
                        eprintln!("hlsl2spirv: internal error: {e}");
                        ExitCode::FAILURE
                    }
                }
            }
        },
        Err(e) => {
            eprintln!("{}", render_error(fe, &e));
            ExitCode::FAILURE
        }
    }
}

/// A codegen error as dxc prints one: `file:line:col: error: message`.
fn render_error(fe: &spirvkit_hlsl::Frontend, e: &hlsl2spirv::compile::CompileError) -> String {
    match &e.span {
        Some(span) => format!("{}: error: {}", fe.sources.location_string(*span), e.message),
        None => format!("error: {}", e.message),
    }
}

fn write_output(path: Option<&str>, text: &str) -> ExitCode {
    let result = match path {
        None | Some("-") => std::io::stdout().write_all(text.as_bytes()),
        Some(p) => std::fs::write(p, text),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dxc failed : cannot write output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The SPIR-V version a `-fspv-target-env` implies (for `__SPIRV_*_VERSION__`).
fn spirv_version(target_env: Option<&str>) -> (u32, u32) {
    // An unknown environment is refused with `-spirv`; without it dxc ignores it.
    spirv_values::target_env_spirv_version(target_env.unwrap_or("vulkan1.0")).unwrap_or((1, 0))
}

fn sema_stage(stage: Stage) -> SemaStage {
    match stage {
        Stage::Pixel => SemaStage::Pixel,
        Stage::Vertex => SemaStage::Vertex,
        Stage::Geometry => SemaStage::Geometry,
        Stage::Hull => SemaStage::Hull,
        Stage::Domain => SemaStage::Domain,
        Stage::Compute => SemaStage::Compute,
        Stage::Library => SemaStage::Library,
        Stage::Mesh => SemaStage::Mesh,
        Stage::Amplification => SemaStage::Amplification,
    }
}

fn frontend_options(o: &Options) -> FrontendOptions {
    let mut predefined: Vec<(String, String)> = vec![
        ("__hlsl_dx_compiler".into(), "1".into()),
        ("__HLSL_VERSION".into(), o.hlsl_version.to_string()),
        ("__spirv__".into(), "1".into()),
        ("__DXC_VERSION_MAJOR".into(), "1".into()),
        ("__DXC_VERSION_MINOR".into(), "8".into()),
        ("__DXC_VERSION_RELEASE".into(), "0".into()),
        ("__DXC_VERSION_COMMITS".into(), "0".into()),
        // `__has_feature(x)` is 1 for the features below, 0 (or undeclared) otherwise.
        ("__has_feature(x)".into(), "__spirvkit_feature_##x".into()),
        ("__spirvkit_feature_hlsl_vk_buffer_pointer".into(), "1".into()),
    ];
    let stages = [
        ("PIXEL", Stage::Pixel),
        ("VERTEX", Stage::Vertex),
        ("GEOMETRY", Stage::Geometry),
        ("HULL", Stage::Hull),
        ("DOMAIN", Stage::Domain),
        ("COMPUTE", Stage::Compute),
        ("LIBRARY", Stage::Library),
        ("MESH", Stage::Mesh),
        ("AMPLIFICATION", Stage::Amplification),
    ];
    for (name, stage) in stages {
        predefined.push((format!("__SHADER_STAGE_{name}"), stage.target_stage_value().to_string()));
    }
    if let Some(p) = o.profile {
        predefined.push(("__SHADER_TARGET_STAGE".into(), p.stage.target_stage_value().to_string()));
        predefined.push(("__SHADER_TARGET_MAJOR".into(), p.major.to_string()));
        predefined.push(("__SHADER_TARGET_MINOR".into(), p.minor.to_string()));
    }
    if o.enable_16bit_types {
        predefined.push(("__HLSL_ENABLE_16_BIT".into(), "1".into()));
    }
    let (major, minor) = spirv_version(o.target_env.as_deref());
    predefined.push(("__SPIRV_MAJOR_VERSION__".into(), major.to_string()));
    predefined.push(("__SPIRV_MINOR_VERSION__".into(), minor.to_string()));
    FrontendOptions {
        preprocess: PreprocessOptions {
            predefined,
            defines: o.defines.clone(),
            include_dirs: o.include_dirs.iter().map(PathBuf::from).collect(),
        },
        parse: ParseOptions { hlsl_version: o.hlsl_version },
        sema: SemaOptions {
            hlsl_version: o.hlsl_version,
            enable_16bit_types: o.enable_16bit_types,
            payload_access_qualifiers: o.payload_qualifiers,
            stage: o.profile.map(|p| sema_stage(p.stage)),
            shader_model: o.profile.map_or((6, 0), |p| (p.major, p.minor)),
            entry: o.entry.clone(),
            stage_io_order: if o.stage_io_alpha { StageIoOrder::Alpha } else { StageIoOrder::Decl },
        },
        diag: DiagOptions {
            warnings_as_errors: o.warnings_as_errors,
            no_warnings: o.no_warnings,
            disabled_warnings: o.disabled_warnings.iter().cloned().collect(),
            ..DiagOptions::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spirv_versions_of_target_envs() {
        assert_eq!(spirv_version(None), (1, 0));
        assert_eq!(spirv_version(Some("vulkan1.1")), (1, 3));
        assert_eq!(spirv_version(Some("vulkan1.1spirv1.4")), (1, 4));
        assert_eq!(spirv_version(Some("universal1.5")), (1, 5));
        assert_eq!(spirv_version(Some("vulkan1.3")), (1, 6));
    }
}
