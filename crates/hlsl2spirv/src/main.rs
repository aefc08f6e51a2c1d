//! `hlsl2spirv`: compiles HLSL with dxc's command line. For now the front end only:
//! `-fsyntax-only` (preprocess, parse, semantic analysis), `-ast-dump` (the typed
//! tree), `-P` (preprocess) and `-verify` (the diagnostics against the input's
//! `expected-*` comments).

use hlsl2spirv::frontend_options::frontend_options;
use hlsl2spirv::options::{self, Mode, Options};
use hlsl2spirv::{builtin_headers, option_table};
use spirvkit_hlsl::preprocessor::FsLoader;
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
    if options.mode == Mode::Compile && !fe.diags.has_errors() {
        // The front end's diagnostics and code generation's, rendered together.
        return compile(&fe, &options);
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
    let mut reported = Vec::new();
    let result =
        hlsl2spirv::compile::compile_with_sources(tree, Some(&fe.sources), options, emit_mlir, &mut reported);
    let mut diags = spirvkit_hlsl::diag::Diagnostics::new(fe.diags.options.clone());
    for d in fe.diags.iter().chain(&reported) {
        diags.report(d.clone());
    }
    eprint!("{}", diags.render(&fe.sources));
    if diags.has_errors() {
        return ExitCode::FAILURE;
    }
    match result {
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
                        // dxc's tests are written against a current SPIRV-Tools: the
                        // grammar's canonical names (`ComputeDerivativeGroupLinearKHR`).
                        let options = spirvkit_binary::dis::DisOptions {
                            naming: spirvkit_binary::dis::Naming::Canonical,
                            ..Default::default()
                        };
                        let text = spirvkit_binary::dis::disassemble(&module, &options);
                        write_output(None, &String::from_utf8_lossy(&text))
                    }
                    Err(e) => {
                        eprintln!("hlsl2spirv: internal error: {e}");
                        ExitCode::FAILURE
                    }
                }
            }
        },
        // Rendered with the diagnostics above.
        Err(_) => ExitCode::FAILURE,
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
