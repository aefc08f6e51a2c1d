//! Compiles an LLVM IR file with the host JIT and reports how long it took:
//! `cargo run --release -p spirvkit-jit --example compile_ll -- FILE.ll [--stub NAME]...
//! [--data NAME]... [--print-optimized]`. `--stub NAME` defines NAME as a function that
//! does nothing, `--data NAME` as 64 KiB of zeros (runtime helpers and interface
//! globals of a converted shader that the kernel pass has not resolved yet), to time the
//! compile alone.

use std::time::Instant;

extern "C" fn do_nothing() {}

/// What `--data` symbols point at (never written by a compile).
static ZEROS: [u64; 8192] = [0; 8192];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut file = None;
    let mut stubs = Vec::new();
    let mut print_optimized = false;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--stub" => {
                stubs.push((args.next().ok_or("--stub needs a name")?, do_nothing as *const () as usize))
            }
            "--data" => stubs.push((args.next().ok_or("--data needs a name")?, ZEROS.as_ptr() as usize)),
            "--print-optimized" => print_optimized = true,
            _ => file = Some(arg),
        }
    }
    let file =
        file.ok_or("usage: compile_ll FILE.ll [--stub NAME]... [--data NAME]... [--print-optimized]")?;
    let text = std::fs::read_to_string(&file)?;
    let start = Instant::now();
    let jit = spirvkit_jit::Jit::new()?;
    let setup = start.elapsed();
    let symbols: Vec<(&str, usize)> = stubs.iter().map(|(name, address)| (name.as_str(), *address)).collect();
    let start = Instant::now();
    let module = jit.compile(&text, &symbols)?;
    let compile = start.elapsed();
    println!(
        "{file}: target={} cpu={} setup_ms={:.2} compile_ms={:.2} symbols={}",
        jit.triple(),
        jit.cpu(),
        setup.as_secs_f64() * 1e3,
        compile.as_secs_f64() * 1e3,
        module.symbols().count()
    );
    if print_optimized {
        print!("{}", jit.optimized_ir(&text)?);
    }
    Ok(())
}
