//! Parses an MLIR file and prints it back (`--generic` for the generic form).
//! `cargo run -p spirvkit-ir --example print_mlir -- FILE [--generic]`

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: print_mlir FILE [--generic]");
        std::process::exit(2);
    };
    let generic = args.iter().any(|a| a == "--generic");
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1)
    });
    match spirvkit_ir::parse(&source, path) {
        Ok((ir, top)) => print!(
            "{}",
            spirvkit_ir::print(&ir, top, spirvkit_ir::PrintOptions { generic, ..Default::default() })
        ),
        Err(e) => {
            eprintln!("{path}: error at byte {}: {}", e.offset, e.message);
            std::process::exit(1);
        }
    }
}
