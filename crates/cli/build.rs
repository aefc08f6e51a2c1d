//! Links the `spirvkit` binary as a position-dependent executable on Linux.
//!
//! A position-independent executable has the dynamic loader patch every pointer in
//! the generated grammar and dialect tables at each start (about 25,000 of them, on
//! some 170 pages that are copied to be written): a third of a millisecond, a tenth
//! of translating a typical shader. Linked at a fixed address (as Go links its
//! binaries), those pointers are final in the file. The cost is address-space
//! randomization of the executable's own image (the stack, heap and shared
//! libraries stay randomized). The code is compiled as usual; only the link differs.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
