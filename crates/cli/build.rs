//! Link options of the `spirvkit` binary.
//!
//! The binary reads untrusted input, so it keeps the platform's hardening: it is a
//! position-independent executable (the toolchain's default on Linux), whose image is
//! placed at a random address like everything else in the process.
//!
//! Those who measure start-up can build with `SPIRVKIT_NO_PIE=1` to link it
//! position-dependent: the dynamic loader then no longer patches the ~25,000 pointers
//! of the generated grammar and dialect tables at each start (about a third of a
//! millisecond), at the cost of that randomization. Not for distributed builds.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SPIRVKIT_NO_PIE");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let no_pie = std::env::var_os("SPIRVKIT_NO_PIE").is_some_and(|v| v != "0" && !v.is_empty());
    if os == "linux" && env == "gnu" && no_pie {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
