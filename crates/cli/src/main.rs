//! `spirvkit`: the command-line front of the toolkit.

use clap::{Parser, Subcommand};
use spirvkit_binary::{AsmOptions, DisOptions, Naming, TargetEnv};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod run;

// The IR allocates many small vectors and strings; mimalloc handles that pattern
// markedly faster than glibc's allocator.
#[global_allocator]
static ALLOCATOR: spirvkit_malloc::Mimalloc = spirvkit_malloc::Mimalloc;

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
    /// Parse, verify and print MLIR text in the SPIR-V dialect (as `mlir-opt`).
    ///
    /// Usage: spirvkit opt [FILE|-] [-o OUT] [--split-input-file[=MARKER]]
    /// [--output-split-marker=MARKER] [--verify-diagnostics[=all|only-expected]]
    /// [--mlir-print-op-generic] [--mlir-print-debuginfo] [--mlir-print-strict-properties]
    /// [--allow-unregistered-dialect] [--mlir-disable-threading] [--pass-pipeline=PIPELINE | PASS FLAGS...]
    ///
    /// `--mlir-print-strict-properties` prints the properties a declarative format leaves to
    /// its attribute dictionary as newer MLIR does (`llvm.load %p <alignment = 4>`), not as
    /// MLIR 22 (`{alignment = 4 : i64}`); both forms are always read.
    ///
    /// Options take one or two dashes, as in mlir-opt. Anything else that starts with
    /// `-` is a pass flag (`--canonicalize`, `--inline=default-pipeline=`); a pass
    /// spirvkit does not implement makes the run fail.
    #[command(disable_help_flag = true)]
    Opt {
        /// Input file (`-` or absent: standard input), options and pass flags.
        #[arg(allow_hyphen_values = true, trailing_var_arg = true, num_args = 0..)]
        args: Vec<String>,
    },
    /// Translate between MLIR text in the SPIR-V dialect and SPIR-V binaries (as
    /// `mlir-translate`).
    ///
    /// Usage: spirvkit translate (--serialize-spirv | --deserialize-spirv |
    /// --test-spirv-roundtrip | --test-spirv-roundtrip-debug | --mlir-to-llvmir) [--no-implicit-module]
    /// [--split-input-file[=MARKER]] [--output-split-marker=MARKER] [--verify-diagnostics]
    /// [--spirv-emit-op-names] [--spirv-structurize-control-flow[=true|false]]
    /// [--spirv-save-validation-files-with-prefix=PREFIX] [--mlir-print-op-generic]
    /// [--mlir-print-debuginfo] [--mlir-print-local-scope] [FILE|-] [-o OUT]
    #[command(disable_help_flag = true)]
    Translate {
        /// Input file (`-` or absent: standard input) and options.
        #[arg(allow_hyphen_values = true, trailing_var_arg = true, num_args = 0..)]
        args: Vec<String>,
    },
    Run(Box<run::RunCommand>),
}

fn read_input(input: &str) -> Result<Vec<u8>, String> {
    if input == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("reading standard input: {e}"))?;
        Ok(bytes)
    } else {
        read_file(Path::new(input)).map_err(|e| format!("{input}: {e}"))
    }
}

/// Files at least this large are read in two halves on two threads.
const SPLIT_READ_BYTES: u64 = 1 << 20;

/// The buffer a file of words is read through (small enough to stay in cache while
/// its bytes become words).
const WORD_READ_BYTES: usize = 64 << 10;

/// A file read as little-endian words (its bytes four at a time), for a binary to
/// deserialize: the bytes go through a small buffer into the words (a large file in
/// two halves on two threads), so the module is never held twice. `None` for what
/// is not a regular file of whole words at least a header long, or a file that
/// changed size while it was read: those are read as bytes (which also gives the
/// errors of a binary that is not whole words).
fn read_file_words(path: &Path) -> std::io::Result<Option<Vec<u32>>> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path)?;
    let metadata = file.metadata()?;
    let len = metadata.len();
    let Ok(size) = usize::try_from(len) else { return Ok(None) };
    if !metadata.is_file() || !size.is_multiple_of(4) || size < 20 {
        return Ok(None);
    }
    let mut words = vec![0u32; size / 4];
    let fill = |words: &mut [u32], mut at: u64| -> std::io::Result<()> {
        let mut buffer = vec![0u8; WORD_READ_BYTES.min(words.len() * 4)];
        for chunk in words.chunks_mut((buffer.len() / 4).max(1)) {
            let bytes = &mut buffer[..chunk.len() * 4];
            file.read_exact_at(bytes, at)?;
            for (word, b) in chunk.iter_mut().zip(bytes.chunks_exact(4)) {
                *word = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            at += bytes.len() as u64;
        }
        Ok(())
    };
    // A file that grew or shrank is read again, as bytes.
    match read_whole(&file, len, &mut words, fill) {
        Ok(true) => Ok(Some(words)),
        Err(e) if e.kind() != std::io::ErrorKind::UnexpectedEof => Err(e),
        _ => Ok(None),
    }
}

/// Fills `buffer` with the whole of `file`, `len` bytes, by `fill` (which reads a
/// part of the buffer from a byte offset; an item of the buffer takes its size in
/// bytes of the file): a large file in two halves on two threads. `Ok(false)` when
/// the file does not end at `len` (it changed size while it was read, or that
/// could not be checked); an error is `fill`'s.
fn read_whole<T: Send>(
    file: &std::fs::File,
    len: u64,
    buffer: &mut [T],
    fill: impl Fn(&mut [T], u64) -> std::io::Result<()> + Sync,
) -> std::io::Result<bool> {
    use std::os::unix::fs::FileExt;
    if len >= SPLIT_READ_BYTES && spirvkit_ir::parallel::two_cores() {
        let half = buffer.len() / 2;
        let (front, back) = buffer.split_at_mut(half);
        let back_at = (half * std::mem::size_of::<T>()) as u64;
        std::thread::scope(|scope| {
            let back_fill = spirvkit_threads::spawn_scoped(scope, || fill(back, back_at));
            let front_fill = fill(front, 0);
            match back_fill {
                Ok(thread) => {
                    front_fill.and(thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                }
                Err(e) => Err(e),
            }
        })?;
    } else {
        fill(buffer, 0)?;
    }
    // Nothing past the size read.
    Ok(file.read_at(&mut [0u8], len).is_ok_and(|n| n == 0))
}

/// `std::fs::read`, with a large regular file read in two halves on two threads
/// (the copy and the fresh pages of the buffer shared between two cores). A file
/// that changes size while it is read is read again as a whole.
fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let Ok(size) = usize::try_from(len) else { return std::fs::read(path) };
    if len < SPLIT_READ_BYTES || !spirvkit_ir::parallel::two_cores() {
        return std::fs::read(path);
    }
    let mut bytes = vec![0u8; size];
    // A file that changed size is read again as a whole.
    match read_whole(&file, len, &mut bytes, |part, at| file.read_exact_at(part, at)) {
        Ok(true) => Ok(bytes),
        _ => std::fs::read(path),
    }
}

fn write_output(output: Option<&PathBuf>, bytes: &[u8]) -> Result<(), String> {
    write_output_pieces(output, &[bytes])
}

/// Writes pieces of output one after another (a large module's text is printed in
/// pieces that are never joined).
fn write_output_pieces(output: Option<&PathBuf>, pieces: &[impl AsRef<[u8]>]) -> Result<(), String> {
    let write = |w: &mut dyn Write| -> std::io::Result<()> {
        for piece in pieces {
            w.write_all(piece.as_ref())?;
        }
        w.flush()
    };
    match output {
        Some(path) if path.as_os_str() != "-" => std::fs::File::create(path)
            .and_then(|mut file| write(&mut file))
            .map_err(|e| format!("{}: {e}", path.display())),
        _ => write(&mut std::io::stdout().lock()).map_err(|e| format!("writing output: {e}")),
    }
}

/// Deletes the output of a failed run, but only a regular file or a symlink, as LLVM's
/// `sys::fs::remove` does: `-o /dev/null` run as root must never delete the device.
fn remove_failed_output(path: &std::path::Path) {
    let removable = std::fs::symlink_metadata(path)
        .map(|meta| meta.file_type().is_file() || meta.file_type().is_symlink())
        .unwrap_or(false);
    if removable {
        let _ = std::fs::remove_file(path);
    }
}

/// `spirvkit opt` arguments, parsed the way LLVM's command line accepts them.
struct OptArgs {
    input: String,
    output: Option<PathBuf>,
    options: spirvkit_passes::opt::OptOptions,
}

const OPT_USAGE: &str = "usage: spirvkit opt [FILE|-] [-o OUT] [--split-input-file[=MARKER]] \
[--output-split-marker=MARKER] [--verify-diagnostics[=all|only-expected]] [--mlir-print-op-generic] \
[--mlir-print-debuginfo] [--mlir-print-strict-properties] [--allow-unregistered-dialect] \
[--mlir-disable-threading] [--pass-pipeline=PIPELINE | PASS FLAGS...]";

fn parse_opt_args(args: &[String]) -> Result<Option<OptArgs>, String> {
    let mut input = None;
    let mut output = None;
    let mut options = spirvkit_passes::opt::OptOptions::default();
    let mut iter = args.iter();
    let mut positional_only = false;
    while let Some(arg) = iter.next() {
        if positional_only || arg == "-" || !arg.starts_with('-') {
            if input.replace(arg.clone()).is_some() {
                return Err(format!("error: more than one input file given\n{OPT_USAGE}"));
            }
            continue;
        }
        if arg == "--" {
            positional_only = true;
            continue;
        }
        // `-x`, `--x`, `-x=value`, `--x=value`.
        let body = arg.strip_prefix("--").unwrap_or(&arg[1..]);
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        match (name, value) {
            ("h" | "help", None) => return Ok(None),
            ("o", None) => {
                output = Some(PathBuf::from(
                    iter.next().ok_or_else(|| format!("error: -o needs a file\n{OPT_USAGE}"))?,
                ))
            }
            ("o", Some(v)) => output = Some(PathBuf::from(v)),
            ("split-input-file", v) => {
                options.split_input_file = true;
                options.split_marker = v.map(str::to_string);
            }
            ("output-split-marker", Some(v)) => options.output_split_marker = Some(v.to_string()),
            ("verify-diagnostics", None | Some("") | Some("all")) => options.verify_diagnostics = true,
            ("verify-diagnostics", Some("only-expected")) => {
                options.verify_diagnostics = true;
                options.verify_only_expected = true;
            }
            ("pass-pipeline", Some(v)) => options.pass_pipeline = Some(v.to_string()),
            ("pass-pipeline", None) => {
                let v = iter
                    .next()
                    .ok_or_else(|| format!("error: --pass-pipeline needs a value\n{OPT_USAGE}"))?;
                options.pass_pipeline = Some(v.clone());
            }
            ("mlir-print-op-generic", None) => options.generic = true,
            ("mlir-print-debuginfo", None) => options.debug_info = true,
            // Newer MLIR's property syntax (`llvm.load %p <alignment = 4>`), not mlir-opt-22's.
            ("mlir-print-strict-properties", None) => options.strict_properties = true,
            ("allow-unregistered-dialect", None) => options.allow_unregistered_dialect = true,
            // Threading does not change the output.
            ("mlir-disable-threading", None) => {}
            _ => options.passes.push(arg.clone()),
        }
    }
    Ok(Some(OptArgs { input: input.unwrap_or_else(|| "-".to_string()), output, options }))
}

fn run_opt(args: &[String]) -> Result<bool, String> {
    let Some(OptArgs { input, output, options }) = parse_opt_args(args)? else {
        println!("{OPT_USAGE}");
        return Ok(true);
    };
    let bytes = read_input(&input)?;
    let name = if input == "-" { "<stdin>" } else { input.as_str() };
    let source = String::from_utf8(bytes)
        .map_err(|e| format!("{name}: error: input is not UTF-8 (byte {})", e.utf8_error().valid_up_to()))?;
    let result = spirvkit_passes::opt::run(&source, name, &options);
    eprint!("{}", result.diagnostics_text);
    match output.as_ref() {
        // Like mlir-opt's `ToolOutputFile`, an output file is only kept on success.
        Some(path) if path.as_os_str() != "-" && !result.success => remove_failed_output(path),
        _ => write_output(output.as_ref(), result.output.as_bytes())?,
    }
    Ok(result.success)
}

const TRANSLATE_USAGE: &str = "usage: spirvkit translate (--serialize-spirv | --deserialize-spirv | \
--test-spirv-roundtrip | --test-spirv-roundtrip-debug | --mlir-to-llvmir) [--no-implicit-module] [--split-input-file[=MARKER]] \
[--output-split-marker=MARKER] [--verify-diagnostics] [--spirv-emit-op-names] \
[--spirv-structurize-control-flow[=true|false]] [--spirv-save-validation-files-with-prefix=PREFIX] \
[--mlir-print-op-generic] [--mlir-print-debuginfo] [--mlir-print-local-scope] \
[--spirv-allow-undeclared-requirements] [FILE|-] [-o OUT]";

/// `spirvkit translate`: options spelled as mlir-translate's (one or two dashes).
fn run_translate(args: &[String]) -> Result<bool, String> {
    use spirvkit_translate::driver::{Mode, TranslateOptions};
    let mut input: Option<String> = None;
    let mut output: Option<PathBuf> = None;
    let mut mode = None;
    // The process ends right after translating: the OS reclaims the IR faster.
    let mut options = TranslateOptions { free_ir: false, ..TranslateOptions::default() };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "-" || !arg.starts_with('-') {
            if input.replace(arg.clone()).is_some() {
                return Err(format!("error: more than one input file given\n{TRANSLATE_USAGE}"));
            }
            continue;
        }
        let body = arg.strip_prefix("--").unwrap_or(&arg[1..]);
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        let flag = |v: Option<&str>| -> Result<bool, String> {
            match v {
                None | Some("true" | "1" | "TRUE" | "True") => Ok(true),
                Some("false" | "0" | "FALSE" | "False") => Ok(false),
                Some(other) => Err(format!("error: invalid boolean value '{other}' for {arg}")),
            }
        };
        let chosen = match name {
            "serialize-spirv" => Some(Mode::Serialize),
            "deserialize-spirv" => Some(Mode::Deserialize),
            "test-spirv-roundtrip" => Some(Mode::Roundtrip),
            "test-spirv-roundtrip-debug" => Some(Mode::RoundtripDebug),
            "mlir-to-llvmir" => Some(Mode::MlirToLlvmIr),
            _ => None,
        };
        if let Some(chosen) = chosen {
            // mlir-translate chains translations in order; serializing then
            // deserializing is the round trip.
            mode = match (mode, chosen) {
                (None, chosen) => Some(chosen),
                (Some(Mode::Serialize), Mode::Deserialize) => Some(Mode::Roundtrip),
                (Some(first), then) => {
                    return Err(format!(
                    "error: not supported yet: translation chain {first:?} then {then:?}\n{TRANSLATE_USAGE}"
                ))
                }
            };
            continue;
        }
        match (name, value) {
            ("h" | "help", None) => {
                println!("{TRANSLATE_USAGE}");
                return Ok(true);
            }
            ("o", None) => {
                output = Some(PathBuf::from(
                    iter.next().ok_or_else(|| format!("error: -o needs a file\n{TRANSLATE_USAGE}"))?,
                ))
            }
            ("o", Some(v)) => output = Some(PathBuf::from(v)),
            ("no-implicit-module", v) => options.no_implicit_module = flag(v)?,
            ("split-input-file", v) => {
                options.split_input_file = true;
                options.split_marker = v.map(str::to_string);
            }
            ("output-split-marker", Some(v)) => options.output_split_marker = v.to_string(),
            ("verify-diagnostics", None | Some("") | Some("all")) => options.verify_diagnostics = true,
            ("spirv-emit-op-names", v) => options.emit_op_names = flag(v)?,
            ("spirv-structurize-control-flow", v) => options.structurize = flag(v)?,
            ("spirv-save-validation-files-with-prefix", Some(v)) => {
                options.validation_prefix = Some(v.to_string())
            }
            ("mlir-print-op-generic", v) => options.generic = flag(v)?,
            ("mlir-print-debuginfo", v) => options.debug_info = flag(v)?,
            ("spirv-allow-undeclared-requirements", v) => options.check_requirements = !flag(v)?,
            // Printing without aliases is what spirvkit always does.
            ("mlir-print-local-scope" | "mlir-disable-threading", _) => {}
            _ => return Err(format!("error: unknown option '{arg}'\n{TRANSLATE_USAGE}")),
        }
    }
    options.mode = mode.ok_or_else(|| format!("error: no translation given\n{TRANSLATE_USAGE}"))?;
    let input = input.unwrap_or_else(|| "-".to_string());
    let name = if input == "-" { "<stdin>" } else { input.as_str() };
    // A binary file to deserialize is read straight into words.
    let words = match options.mode {
        Mode::Deserialize if input != "-" => {
            read_file_words(Path::new(&input)).map_err(|e| format!("{input}: {e}"))?
        }
        _ => None,
    };
    let result = match words {
        Some(words) => spirvkit_translate::driver::run_words(words, name, &options),
        None => spirvkit_translate::driver::run(&read_input(&input)?, name, &options),
    };
    eprint!("{}", result.diagnostics_text);
    match output.as_ref() {
        Some(path) if path.as_os_str() != "-" && !result.success => remove_failed_output(path),
        _ => write_output_pieces(output.as_ref(), result.output.pieces())?,
    }
    Ok(result.success)
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Translate { args } => match run_translate(&args)? {
            true => Ok(()),
            false => Err(String::new()),
        },
        Command::Opt { args } => match run_opt(&args)? {
            true => Ok(()),
            false => Err(String::new()),
        },
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
        Command::Run(command) => run::run(*command),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            // An empty message: the diagnostics were already printed.
            if !message.is_empty() {
                eprintln!("{message}");
            }
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_read_in_halves_read_as_a_whole() {
        let dir = std::env::temp_dir().join(format!("spirvkit-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for size in [0, 1, 1000, SPLIT_READ_BYTES as usize - 1, SPLIT_READ_BYTES as usize, 3_000_001] {
            let path = dir.join(format!("f{size}"));
            let bytes: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
            std::fs::write(&path, &bytes).unwrap();
            assert_eq!(read_file(&path).unwrap(), bytes, "{size} bytes");
        }
        assert!(read_file(&dir.join("missing")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
