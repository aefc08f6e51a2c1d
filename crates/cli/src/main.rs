//! `spirvkit`: the command-line front of the toolkit.

use clap::{Parser, Subcommand};
use spirvkit_binary::{AsmOptions, DisOptions, Naming, TargetEnv};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "spirvkit", version, about = "SPIR-V compiler toolkit")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Disassemble a SPIR-V binary to SPIRV-Tools' assembly text (as `spirv-dis`).
    Dis {
        /// Input binary; `-` reads standard input.
        input: String,
        /// Output file; standard output if absent or `-`.
        #[arg(short = 'o')]
        output: Option<PathBuf>,
        /// Print ids as numbers, not friendly names.
        #[arg(long)]
        raw_id: bool,
        /// Do not print the header comment.
        #[arg(long)]
        no_header: bool,
        /// Do not align result ids.
        #[arg(long)]
        no_indent: bool,
        /// Append each instruction's byte offset.
        #[arg(long)]
        offsets: bool,
        /// Add section comments.
        #[arg(long)]
        comment: bool,
        /// Spell renamed opcodes and enumerants as the current grammar does
        /// (default: as SPIRV-Tools 2023.1 prints them).
        #[arg(long)]
        canonical_names: bool,
    },
    /// Assemble SPIRV-Tools assembly text to a SPIR-V binary (as `spirv-as`).
    As {
        /// Input text; `-` reads standard input.
        input: String,
        /// Output file (default `out.spv`, as spirv-as); `-` writes standard output.
        #[arg(short = 'o')]
        output: Option<PathBuf>,
        /// Target environment: decides the header version and which names are valid
        /// (spv1.0..spv1.6, vulkan1.0..vulkan1.3, vulkan1.1spv1.4, opencl*, opengl*).
        #[arg(long, default_value = "spv1.6")]
        target_env: String,
        /// Keep numeric ids such as `%12` as those numbers.
        #[arg(long)]
        preserve_numeric_ids: bool,
    },
}

fn read_input(input: &str) -> Result<Vec<u8>, String> {
    if input == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("reading standard input: {e}"))?;
        Ok(bytes)
    } else {
        std::fs::read(input).map_err(|e| format!("{input}: {e}"))
    }
}

fn write_output(output: Option<&PathBuf>, bytes: &[u8]) -> Result<(), String> {
    match output {
        Some(path) if path.as_os_str() != "-" => {
            std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
        }
        _ => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(bytes).and_then(|_| stdout.flush()).map_err(|e| format!("writing output: {e}"))
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Dis { input, output, raw_id, no_header, no_indent, offsets, comment, canonical_names } => {
            let bytes = read_input(&input)?;
            let module = spirvkit_binary::read(&bytes).map_err(|e| format!("{input}: error: {e}"))?;
            let options = DisOptions {
                indent: !no_indent,
                header: !no_header,
                raw_ids: raw_id,
                offsets,
                comment,
                naming: if canonical_names { Naming::Canonical } else { Naming::SpirvTools2023 },
            };
            let text = spirvkit_binary::disassemble(&module, &options);
            write_output(output.as_ref(), &text)
        }
        Command::As { input, output, target_env, preserve_numeric_ids } => {
            let env = TargetEnv::parse(&target_env).ok_or_else(|| {
                let known: Vec<_> = TargetEnv::names().collect();
                format!("error: unrecognized target env `{target_env}` (known: {})", known.join(", "))
            })?;
            let bytes = read_input(&input)?;
            let text = String::from_utf8(bytes).map_err(|e| {
                format!("{input}: error: input is not UTF-8 (byte {})", e.utf8_error().valid_up_to())
            })?;
            let options = AsmOptions { target_env: env, preserve_numeric_ids };
            let words = spirvkit_binary::assemble(&text, &options).map_err(|e| format!("{input}:{e}"))?;
            let bytes = spirvkit_binary::words_to_bytes(&words, spirvkit_binary::Endian::Little);
            let output = output.unwrap_or_else(|| PathBuf::from("out.spv"));
            write_output(Some(&output), &bytes)
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}
