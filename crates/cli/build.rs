//! Links the `spirvkit` binary as a position-dependent executable on Linux.
//!
//! A position-independent executable has the dynamic loader patch every pointer in
//! the generated grammar and dialect tables at each start (about 25,000 of them, on
//! some 170 pages that are copied to be written): a third of a millisecond, a tenth
//! of translating a typical shader. Linked at a fixed address (as Go links its
//! binaries), those pointers are final in the file. The cost is address-space
//! randomization of the executable's own image (the stack, heap and shared
//! libraries stay randomized). The code is compiled as usual; only the link differs.
//!
//! Packagers whose policy requires position-independent executables build with
//! `SPIRVKIT_PIE=1` set, which keeps the toolchain's default.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SPIRVKIT_PIE");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let pie_wanted = std::env::var_os("SPIRVKIT_PIE").is_some_and(|v| v != "0" && !v.is_empty());
    if os == "linux" && env == "gnu" && !pie_wanted {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
