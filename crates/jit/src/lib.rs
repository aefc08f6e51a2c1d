//! LLVM IR text to machine code for the host, through LLVM 22's ORC LLJIT.
//!
//! The only crate of the workspace that links LLVM (`llvm-sys` 221, linked dynamically
//! against `LLVM_SYS_221_PREFIX`, set in `.cargo/config.toml`). All `unsafe` code is in
//! the private `ffi` module.
//!
//! ```
//! use spirvkit_jit::Jit;
//!
//! extern "C" fn host_log(x: i32) { println!("{x}"); }
//!
//! let jit = Jit::new()?;
//! let ir = "declare void @host_log(i32)\n\
//!           define i32 @add(i32 %a, i32 %b) {\n  %s = add i32 %a, %b\n  call void @host_log(i32 %s)\n  ret i32 %s\n}\n";
//! let module = jit.compile(ir, &[("host_log", host_log as *const () as usize)])?;
//! let add: extern "C" fn(i32, i32) -> i32 =
//!     unsafe { std::mem::transmute(module.address("add").unwrap()) };
//! assert_eq!(add(2, 3), 5);
//! # Ok::<(), spirvkit_jit::JitError>(())
//! ```
//!
//! [`Jit::compile`]: parse the text (in a context of its own, so compiles are independent
//! and may run on several threads), verify it, set the host triple and data layout,
//! optimize it with the new pass manager (`default<O3>` with the host target machine, so
//! the loop and SLP vectorizers use the host's SIMD width), then hand it to a fresh LLJIT
//! whose main JITDylib holds the caller's host symbols as absolute symbols. A module may
//! declare only those and the C library's memory functions and libm (an allow list): any
//! other external name is a [`JitError::Link`], so the rest of the process is out of reach
//! of JIT'd code. The module is compiled to machine code before `compile` returns, and every
//! function and global it defines with external linkage is looked up once:
//! [`CompiledModule::address`] is a map lookup, and the code lives as long as the
//! [`CompiledModule`].

#![deny(unsafe_code)]

pub mod device;
#[allow(unsafe_code)] // the FFI module is the one place LLVM is called
mod ffi;
pub mod runtime;

pub use device::CpuDevice;

use std::collections::HashMap;

/// What can go wrong turning LLVM IR text into machine code; each carries LLVM's message.
#[derive(Debug, thiserror::Error)]
pub enum JitError {
    /// The host target could not be set up (no native target, bad CPU/feature string).
    #[error("LLVM host target: {0}")]
    Target(String),
    /// The text is not LLVM IR LLVM 22 accepts (the message has the line and column).
    #[error("LLVM IR parse error: {0}")]
    Parse(String),
    /// The module parsed but LLVM's verifier rejects it.
    #[error("LLVM IR verifier: {0}")]
    Verify(String),
    /// The optimization pipeline failed.
    #[error("LLVM optimization ({pipeline}): {message}")]
    Optimize { pipeline: String, message: String },
    /// Creating the JIT, defining symbols or adding the module failed.
    #[error("LLVM JIT: {0}")]
    Jit(String),
    /// Compiling or linking the module failed (e.g. an undefined external symbol).
    #[error("LLVM JIT: linking `{symbol}`: {message}")]
    Link { symbol: String, message: String },
}

/// The host target: the triple, CPU and features LLVM detects, which every compile uses.
#[derive(Debug, Clone)]
pub struct Jit {
    triple: String,
    cpu: String,
    features: String,
    pipeline: String,
}

impl Jit {
    /// A JIT for the host CPU (`LLVMGetHostCPUName`, `LLVMGetHostCPUFeatures`) at
    /// CodeGenLevel Aggressive, optimizing with `default<O3>`.
    pub fn new() -> Result<Self, JitError> {
        ffi::initialize_native_target().map_err(JitError::Target)?;
        let (triple, cpu, features) = ffi::host_target();
        let jit = Jit { triple, cpu, features, pipeline: "default<O3>".to_string() };
        // Fail here, not at the first compile, when the host has no usable target machine.
        jit.target_machine()?;
        Ok(jit)
    }

    /// The same JIT with another new-pass-manager pipeline (e.g. `default<O0>`).
    pub fn with_pipeline(mut self, pipeline: &str) -> Self {
        self.pipeline = pipeline.to_string();
        self
    }

    /// The target triple code is generated for.
    pub fn triple(&self) -> &str {
        &self.triple
    }

    /// The host CPU name code is tuned for (e.g. `znver3`).
    pub fn cpu(&self) -> &str {
        &self.cpu
    }

    /// The host CPU's feature string (`+avx2,+fma,...`).
    pub fn features(&self) -> &str {
        &self.features
    }

    fn target_machine(&self) -> Result<ffi::TargetMachine, JitError> {
        ffi::TargetMachine::new(&self.triple, &self.cpu, &self.features).map_err(JitError::Target)
    }

    /// Parses, verifies and optimizes `llvm_ir`; the module targets the host.
    fn optimize(&self, llvm_ir: &str) -> Result<(ffi::ParsedModule, ffi::TargetMachine), JitError> {
        let mut module = ffi::ParsedModule::parse(llvm_ir, "spirvkit").map_err(JitError::Parse)?;
        module.verify().map_err(JitError::Verify)?;
        let machine = self.target_machine()?;
        module.set_target(&self.triple, &machine).map_err(JitError::Target)?;
        module
            .run_passes(&self.pipeline, &machine)
            .map_err(|message| JitError::Optimize { pipeline: self.pipeline.clone(), message })?;
        Ok((module, machine))
    }

    /// The module after verification and optimization, as LLVM IR text (for debugging:
    /// what the JIT compiles to machine code).
    pub fn optimized_ir(&self, llvm_ir: &str) -> Result<String, JitError> {
        let (module, _) = self.optimize(llvm_ir)?;
        Ok(module.print())
    }

    /// Compiles `llvm_ir` to machine code. `host_symbols` are (name, address) pairs the
    /// module may call or read (runtime helpers); they are defined as absolute symbols.
    pub fn compile(&self, llvm_ir: &str, host_symbols: &[(&str, usize)]) -> Result<CompiledModule, JitError> {
        let (module, machine) = self.optimize(llvm_ir)?;
        // Everything the module needs from outside must be a host symbol or an allowed
        // C library function: the rest of the process stays out of reach of JIT'd code
        // (LLJIT links the process's symbols by default).
        for name in module.external_references() {
            let provided = host_symbols.iter().any(|(host, _)| *host == name);
            if !provided && !ffi::process_symbol_allowed(&name) {
                return Err(JitError::Link {
                    symbol: name,
                    message: "not one of the host symbols given to the JIT nor an allowed C \
                              library or libm function"
                        .to_string(),
                });
            }
        }
        let defined = module.defined_symbols();
        let jit = ffi::LlJit::new(machine).map_err(JitError::Jit)?;
        jit.define_absolute(host_symbols).map_err(JitError::Jit)?;
        jit.add_process_math_symbols().map_err(JitError::Jit)?;
        jit.add_module(module).map_err(JitError::Jit)?;
        // The first lookup compiles the whole module; the rest are table lookups.
        let mut addresses = HashMap::with_capacity(defined.len());
        for name in defined {
            let address =
                jit.lookup(&name).map_err(|message| JitError::Link { symbol: name.clone(), message })?;
            addresses.insert(name, address);
        }
        Ok(CompiledModule { addresses, _jit: jit })
    }
}

/// Machine code for one module; freed when this is dropped, so the addresses it gives
/// are valid only while it lives.
pub struct CompiledModule {
    addresses: HashMap<String, usize>,
    _jit: ffi::LlJit,
}

impl CompiledModule {
    /// The address of a function or global the module defines with external linkage.
    /// Calling it means transmuting it to the function's exact `extern "C"` signature.
    pub fn address(&self, name: &str) -> Option<usize> {
        self.addresses.get(name).copied()
    }

    /// The names `address` knows, in no particular order.
    pub fn symbols(&self) -> impl Iterator<Item = &str> {
        self.addresses.keys().map(String::as_str)
    }
}

impl std::fmt::Debug for CompiledModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledModule").field("symbols", &self.addresses.len()).finish()
    }
}
