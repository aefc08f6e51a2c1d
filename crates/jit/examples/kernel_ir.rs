//! Writes the LLVM IR text the CPU device compiles for a SPIR-V module (before LLVM's
//! optimization): `cargo run -p spirvkit-jit --example kernel_ir -- SHADER.spv [ENTRY]`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&args[1]).expect("reads the module");
    let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    let entry = args.get(2).map(String::as_str).unwrap_or("main");
    match spirvkit_jit::device::kernel_llvm_ir(&words, entry, &[]) {
        Ok((text, layout, _)) => {
            eprintln!("{layout:?}");
            print!("{text}");
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
