//! The LLVM C API behind safe owned handles: the only `unsafe` code of the crate.
//!
//! Each handle owns one LLVM object and frees it in `Drop`; a function that hands an
//! object to LLVM consumes its handle, so nothing is freed twice. LLVM's messages are
//! copied into Rust strings and their C buffers disposed at once.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr;
use std::sync::{Mutex, Once};

use llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
use llvm_sys::core::{
    LLVMContextCreate, LLVMContextDispose, LLVMCreateMemoryBufferWithMemoryRangeCopy,
    LLVMDisposeMemoryBuffer, LLVMDisposeMessage, LLVMDisposeModule, LLVMGetFirstFunction, LLVMGetFirstGlobal,
    LLVMGetLinkage, LLVMGetNextFunction, LLVMGetNextGlobal, LLVMGetValueName2, LLVMIsDeclaration,
    LLVMPrintModuleToString, LLVMSetTarget,
};
use llvm_sys::error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage};
use llvm_sys::ir_reader::LLVMParseIRInContext2;
use llvm_sys::orc2::lljit::{
    LLVMOrcCreateLLJIT, LLVMOrcCreateLLJITBuilder, LLVMOrcDisposeLLJIT, LLVMOrcLLJITAddLLVMIRModule,
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder, LLVMOrcLLJITGetExecutionSession,
    LLVMOrcLLJITGetGlobalPrefix, LLVMOrcLLJITGetMainJITDylib, LLVMOrcLLJITLookup,
    LLVMOrcLLJITMangleAndIntern, LLVMOrcLLJITRef,
};
use llvm_sys::orc2::{
    LLVMJITEvaluatedSymbol, LLVMJITSymbolFlags, LLVMJITSymbolGenericFlags, LLVMOrcAbsoluteSymbols,
    LLVMOrcCSymbolMapPair, LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess,
    LLVMOrcCreateNewThreadSafeContextFromLLVMContext, LLVMOrcCreateNewThreadSafeModule,
    LLVMOrcDisposeMaterializationUnit, LLVMOrcDisposeThreadSafeContext,
    LLVMOrcExecutionSessionSetErrorReporter, LLVMOrcJITDylibAddGenerator, LLVMOrcJITDylibDefine,
    LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine, LLVMOrcSymbolStringPoolEntryRef,
    LLVMOrcSymbolStringPoolEntryStr,
};
use llvm_sys::prelude::{LLVMContextRef, LLVMModuleRef, LLVMValueRef};
use llvm_sys::target::{
    LLVMDisposeTargetData, LLVMSetModuleDataLayout, LLVM_InitializeNativeAsmParser,
    LLVM_InitializeNativeAsmPrinter, LLVM_InitializeNativeTarget,
};
use llvm_sys::target_machine::{
    LLVMCodeGenOptLevel, LLVMCodeModel, LLVMCreateTargetDataLayout, LLVMCreateTargetMachine,
    LLVMDisposeTargetMachine, LLVMGetDefaultTargetTriple, LLVMGetHostCPUFeatures, LLVMGetHostCPUName,
    LLVMGetTargetFromTriple, LLVMRelocMode, LLVMTargetMachineRef,
};
use llvm_sys::transforms::pass_builder::{
    LLVMCreatePassBuilderOptions, LLVMDisposePassBuilderOptions, LLVMPassBuilderOptionsSetLoopUnrolling,
    LLVMPassBuilderOptionsSetLoopVectorization, LLVMPassBuilderOptionsSetSLPVectorization, LLVMRunPasses,
};
use llvm_sys::LLVMLinkage;

/// Copies an LLVM-allocated message and frees it with `LLVMDisposeMessage`.
fn take_message(message: *mut c_char) -> String {
    if message.is_null() {
        return String::new();
    }
    // SAFETY: `message` is a non-null, NUL-terminated string LLVM allocated for the
    // caller; it is copied before being disposed exactly once.
    unsafe {
        let text = CStr::from_ptr(message).to_string_lossy().into_owned();
        LLVMDisposeMessage(message);
        text
    }
}

/// Turns an `LLVMErrorRef` into `Err(message)` (consuming it), or `Ok` when null.
fn check_error(error: LLVMErrorRef) -> Result<(), String> {
    if error.is_null() {
        return Ok(());
    }
    // SAFETY: a non-null LLVMErrorRef is owned by the caller; LLVMGetErrorMessage consumes
    // it and returns a message that must be freed with LLVMDisposeErrorMessage.
    unsafe {
        let message = LLVMGetErrorMessage(error);
        let text = CStr::from_ptr(message).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(message);
        Err(text)
    }
}

fn c_string(text: &str) -> Result<CString, String> {
    CString::new(text).map_err(|_| format!("{text:?} contains a NUL byte"))
}

/// Registers the host target with LLVM once per process.
pub fn initialize_native_target() -> Result<(), String> {
    static INIT: Once = Once::new();
    static FAILED: Mutex<bool> = Mutex::new(false);
    INIT.call_once(|| {
        // SAFETY: the LLVM_InitializeNative* functions only register the host target's
        // tables; `Once` runs them a single time.
        let failed = unsafe {
            LLVM_InitializeNativeTarget() != 0
                || LLVM_InitializeNativeAsmPrinter() != 0
                || LLVM_InitializeNativeAsmParser() != 0
        };
        *FAILED.lock().unwrap_or_else(|e| e.into_inner()) = failed;
    });
    if *FAILED.lock().unwrap_or_else(|e| e.into_inner()) {
        return Err("LLVM has no native target for this host".to_string());
    }
    Ok(())
}

/// The host's target triple, CPU name and CPU feature string, as LLVM detects them.
pub fn host_target() -> (String, String, String) {
    // SAFETY: each call returns a fresh message owned by the caller, freed by
    // `take_message`.
    unsafe {
        (
            take_message(LLVMGetDefaultTargetTriple()),
            take_message(LLVMGetHostCPUName()),
            take_message(LLVMGetHostCPUFeatures()),
        )
    }
}

/// An owned `TargetMachine`.
pub struct TargetMachine(LLVMTargetMachineRef);

impl TargetMachine {
    /// A target machine for `triple`/`cpu`/`features` at CodeGenLevel Aggressive, with the
    /// JIT code model.
    pub fn new(triple: &str, cpu: &str, features: &str) -> Result<Self, String> {
        initialize_native_target()?;
        let triple_c = c_string(triple)?;
        let cpu_c = c_string(cpu)?;
        let features_c = c_string(features)?;
        let mut target = ptr::null_mut();
        let mut message = ptr::null_mut();
        // SAFETY: the out-pointers are valid locals; the message, when set, is ours.
        let failed = unsafe { LLVMGetTargetFromTriple(triple_c.as_ptr(), &mut target, &mut message) };
        if failed != 0 {
            return Err(take_message(message));
        }
        take_message(message);
        // SAFETY: `target` came from LLVMGetTargetFromTriple; the strings outlive the call
        // (LLVM copies them).
        let machine = unsafe {
            LLVMCreateTargetMachine(
                target,
                triple_c.as_ptr(),
                cpu_c.as_ptr(),
                features_c.as_ptr(),
                LLVMCodeGenOptLevel::LLVMCodeGenLevelAggressive,
                LLVMRelocMode::LLVMRelocDefault,
                LLVMCodeModel::LLVMCodeModelJITDefault,
            )
        };
        if machine.is_null() {
            return Err(format!("LLVM could not create a target machine for {triple} ({cpu})"));
        }
        Ok(TargetMachine(machine))
    }

    /// Gives the machine to LLVM (the caller must transfer ownership right away).
    fn into_raw(self) -> LLVMTargetMachineRef {
        let raw = self.0;
        std::mem::forget(self);
        raw
    }
}

impl Drop for TargetMachine {
    fn drop(&mut self) {
        // SAFETY: we own this target machine and nothing else refers to it.
        unsafe { LLVMDisposeTargetMachine(self.0) }
    }
}

/// A module with the context it lives in (one context per module, so compiles are
/// independent and may run on different threads).
pub struct ParsedModule {
    context: LLVMContextRef,
    module: LLVMModuleRef,
}

// SAFETY: the context and module are used by one owner at a time (no shared access is
// handed out), and LLVM contexts may move between threads.
unsafe impl Send for ParsedModule {}

impl ParsedModule {
    /// Parses LLVM IR text (or bitcode) into a new context.
    pub fn parse(text: &str, buffer_name: &str) -> Result<Self, String> {
        let name = c_string(buffer_name)?;
        // SAFETY: a fresh context, owned by the returned value (or disposed below).
        let context = unsafe { LLVMContextCreate() };
        // SAFETY: LLVM copies `text` (pointer and length valid for the call) into a new
        // NUL-terminated buffer we own.
        let buffer = unsafe {
            LLVMCreateMemoryBufferWithMemoryRangeCopy(
                text.as_ptr().cast::<c_char>(),
                text.len(),
                name.as_ptr(),
            )
        };
        let mut module = ptr::null_mut();
        let mut message = ptr::null_mut();
        // SAFETY: LLVMParseIRInContext2 does not take the buffer (freed right after); the
        // out-pointers are valid locals.
        let failed = unsafe {
            let failed = LLVMParseIRInContext2(context, buffer, &mut module, &mut message);
            LLVMDisposeMemoryBuffer(buffer);
            failed
        };
        if failed != 0 || module.is_null() {
            let text = take_message(message);
            // SAFETY: on failure no module refers to the context.
            unsafe { LLVMContextDispose(context) };
            return Err(text);
        }
        take_message(message);
        Ok(ParsedModule { context, module })
    }

    /// LLVM's verifier; `Err` carries its report.
    pub fn verify(&self) -> Result<(), String> {
        let mut message = ptr::null_mut();
        // SAFETY: `self.module` is valid; ReturnStatusAction never aborts the process.
        let broken = unsafe {
            LLVMVerifyModule(self.module, LLVMVerifierFailureAction::LLVMReturnStatusAction, &mut message)
        };
        let text = take_message(message);
        if broken != 0 {
            return Err(text);
        }
        Ok(())
    }

    /// Sets the module's triple and data layout to `machine`'s.
    pub fn set_target(&mut self, triple: &str, machine: &TargetMachine) -> Result<(), String> {
        let triple_c = c_string(triple)?;
        // SAFETY: valid module and target machine; the data layout is copied into the
        // module and then freed.
        unsafe {
            LLVMSetTarget(self.module, triple_c.as_ptr());
            let layout = LLVMCreateTargetDataLayout(machine.0);
            LLVMSetModuleDataLayout(self.module, layout);
            LLVMDisposeTargetData(layout);
        }
        Ok(())
    }

    /// Runs a new-pass-manager pipeline (e.g. `default<O3>`) with `machine`'s cost model.
    pub fn run_passes(&mut self, pipeline: &str, machine: &TargetMachine) -> Result<(), String> {
        let pipeline_c = c_string(pipeline)?;
        // SAFETY: valid module and target machine; the options are created and disposed
        // here; the returned error is consumed by `check_error`.
        let error = unsafe {
            let options = LLVMCreatePassBuilderOptions();
            LLVMPassBuilderOptionsSetLoopVectorization(options, 1);
            LLVMPassBuilderOptionsSetSLPVectorization(options, 1);
            LLVMPassBuilderOptionsSetLoopUnrolling(options, 1);
            let error = LLVMRunPasses(self.module, pipeline_c.as_ptr(), machine.0, options);
            LLVMDisposePassBuilderOptions(options);
            error
        };
        check_error(error)
    }

    /// The module as LLVM IR text.
    pub fn print(&self) -> String {
        // SAFETY: valid module; the returned string is ours.
        take_message(unsafe { LLVMPrintModuleToString(self.module) })
    }

    /// Names of the functions and globals the module defines with a linkage a lookup can
    /// see (not internal or private).
    pub fn defined_symbols(&self) -> Vec<String> {
        let mut names = Vec::new();
        // SAFETY: walks the module's own function and global lists, read only.
        unsafe {
            let mut function = LLVMGetFirstFunction(self.module);
            while !function.is_null() {
                push_visible_definition(function, &mut names);
                function = LLVMGetNextFunction(function);
            }
            let mut global = LLVMGetFirstGlobal(self.module);
            while !global.is_null() {
                push_visible_definition(global, &mut names);
                global = LLVMGetNextGlobal(global);
            }
        }
        names
    }

    /// Names of the functions and globals the module declares without defining them
    /// (what it needs from outside), intrinsics (`llvm.*`) excluded.
    pub fn external_references(&self) -> Vec<String> {
        let mut names = Vec::new();
        // SAFETY: walks the module's own function and global lists, read only.
        unsafe {
            let mut function = LLVMGetFirstFunction(self.module);
            while !function.is_null() {
                push_declaration(function, &mut names);
                function = LLVMGetNextFunction(function);
            }
            let mut global = LLVMGetFirstGlobal(self.module);
            while !global.is_null() {
                push_declaration(global, &mut names);
                global = LLVMGetNextGlobal(global);
            }
        }
        names.retain(|name| !name.starts_with("llvm."));
        names
    }

    /// Gives the module and its context to LLVM (the caller must transfer them right away).
    fn into_raw(self) -> (LLVMContextRef, LLVMModuleRef) {
        let raw = (self.context, self.module);
        std::mem::forget(self);
        raw
    }
}

/// # Safety
/// `value` must be a valid function or global variable.
unsafe fn push_visible_definition(value: LLVMValueRef, names: &mut Vec<String>) {
    // SAFETY: guaranteed by the caller; the name pointer is borrowed from the value.
    unsafe {
        if LLVMIsDeclaration(value) != 0 {
            return;
        }
        let linkage = LLVMGetLinkage(value);
        if matches!(linkage, LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage) {
            return;
        }
        push_name(value, names);
    }
}

/// # Safety
/// `value` must be a valid function or global variable.
unsafe fn push_declaration(value: LLVMValueRef, names: &mut Vec<String>) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        if LLVMIsDeclaration(value) != 0 {
            push_name(value, names);
        }
    }
}

/// # Safety
/// `value` must be a valid function or global variable.
unsafe fn push_name(value: LLVMValueRef, names: &mut Vec<String>) {
    // SAFETY: guaranteed by the caller; the name pointer is borrowed from the value for
    // the copy.
    unsafe {
        let mut length = 0usize;
        let name = LLVMGetValueName2(value, &mut length);
        if name.is_null() || length == 0 {
            return;
        }
        let bytes = std::slice::from_raw_parts(name.cast::<u8>(), length);
        names.push(String::from_utf8_lossy(bytes).into_owned());
    }
}

impl Drop for ParsedModule {
    fn drop(&mut self) {
        // SAFETY: we own both; the module goes before the context it lives in.
        unsafe {
            LLVMDisposeModule(self.module);
            LLVMContextDispose(self.context);
        }
    }
}

/// Session errors ORC reports outside a lookup's own result (kept, not printed).
type ReportedErrors = Mutex<Vec<String>>;

extern "C" fn record_session_error(context: *mut c_void, error: LLVMErrorRef) {
    let text = check_error(error).err().unwrap_or_default();
    // SAFETY: `context` is the `ReportedErrors` box owned by the `LlJit` whose session
    // calls this; the box outlives the session (dropped after it).
    let errors = unsafe { &*(context as *const ReportedErrors) };
    if let Ok(mut errors) = errors.lock() {
        if errors.len() < 64 {
            errors.push(text);
        }
    }
}

/// The C library and libm functions, and compiler-rt style builtins, that generated code
/// may call without the caller defining them: everything else in the process stays out
/// of reach of JIT'd code.
pub fn process_symbol_allowed(name: &str) -> bool {
    const LIBC: &[&str] = &["memcpy", "memmove", "memset", "memcmp", "bzero"];
    const LIBM: &[&str] = &[
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "acosh",
        "atanh",
        "exp",
        "exp2",
        "exp10",
        "expm1",
        "log",
        "log2",
        "log10",
        "log1p",
        "pow",
        "sqrt",
        "cbrt",
        "fmod",
        "fma",
        "floor",
        "ceil",
        "trunc",
        "round",
        "roundeven",
        "rint",
        "nearbyint",
        "fmin",
        "fmax",
        "fminimum",
        "fmaximum",
        "ldexp",
        "frexp",
        "modf",
        "copysign",
        "fabs",
        "hypot",
        "sincos",
        "remainder",
        "lrint",
        "llrint",
        "lround",
        "llround",
    ];
    const BUILTIN_PREFIXES: &[&str] = &[
        "__extend", "__trunc", "__fix", "__float", "__div", "__mod", "__udiv", "__umod", "__mul", "__powi",
        "__sincos", "__exp10",
    ];
    if LIBC.contains(&name) {
        return true;
    }
    let base = name.strip_suffix('f').unwrap_or(name);
    LIBM.contains(&name)
        || LIBM.contains(&base)
        || BUILTIN_PREFIXES.iter().any(|prefix| name.starts_with(prefix))
}

extern "C" fn filter_process_symbol(_context: *mut c_void, symbol: LLVMOrcSymbolStringPoolEntryRef) -> c_int {
    // SAFETY: ORC passes a live pool entry; its string is NUL-terminated and borrowed.
    let name = unsafe { CStr::from_ptr(LLVMOrcSymbolStringPoolEntryStr(symbol)) };
    c_int::from(name.to_str().is_ok_and(process_symbol_allowed))
}

/// An ORC LLJIT instance holding one compiled module.
pub struct LlJit {
    jit: LLVMOrcLLJITRef,
    errors: Box<ReportedErrors>,
}

// SAFETY: ORC's ExecutionSession serializes lookups internally, so `&LlJit` may be used
// from several threads; disposal needs `&mut` (Drop).
unsafe impl Send for LlJit {}
// SAFETY: see `Send`: the only `&self` operation is a lookup, which ORC locks.
unsafe impl Sync for LlJit {}

impl LlJit {
    /// An LLJIT generating code with `machine`'s settings (consumed).
    pub fn new(machine: TargetMachine) -> Result<Self, String> {
        let errors: Box<ReportedErrors> = Box::new(Mutex::new(Vec::new()));
        let mut jit = ptr::null_mut();
        // SAFETY: the builder takes the JITTargetMachineBuilder, which took the target
        // machine; LLVMOrcCreateLLJIT takes the builder whether it succeeds or not.
        let error = unsafe {
            let machine_builder = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(machine.into_raw());
            let builder = LLVMOrcCreateLLJITBuilder();
            LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, machine_builder);
            LLVMOrcCreateLLJIT(&mut jit, builder)
        };
        check_error(error)?;
        // SAFETY: `jit` is valid; the reporter's context is the boxed error list, which
        // lives as long as the LlJit (dropped after the jit is disposed).
        unsafe {
            LLVMOrcExecutionSessionSetErrorReporter(
                LLVMOrcLLJITGetExecutionSession(jit),
                record_session_error,
                (&*errors as *const ReportedErrors).cast_mut().cast::<c_void>(),
            );
        }
        Ok(LlJit { jit, errors })
    }

    /// Defines `symbols` (name, address) as absolute symbols of the main JITDylib.
    pub fn define_absolute(&self, symbols: &[(&str, usize)]) -> Result<(), String> {
        if symbols.is_empty() {
            return Ok(());
        }
        let names = symbols.iter().map(|(name, _)| c_string(name)).collect::<Result<Vec<_>, _>>()?;
        let flags = || LLVMJITSymbolFlags {
            GenericFlags: LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported as u8
                | LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsCallable as u8,
            TargetFlags: 0,
        };
        // SAFETY: each name is interned (retained) for the pair list, whose entries
        // LLVMOrcAbsoluteSymbols takes; the unit goes to the dylib on success and is
        // disposed by us on failure, as the C API documents.
        unsafe {
            let mut pairs: Vec<LLVMOrcCSymbolMapPair> = names
                .iter()
                .zip(symbols)
                .map(|(name, (_, address))| LLVMOrcCSymbolMapPair {
                    Name: LLVMOrcLLJITMangleAndIntern(self.jit, name.as_ptr()),
                    Sym: LLVMJITEvaluatedSymbol { Address: *address as u64, Flags: flags() },
                })
                .collect();
            let unit = LLVMOrcAbsoluteSymbols(pairs.as_mut_ptr(), pairs.len());
            let error = LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(self.jit), unit);
            if !error.is_null() {
                LLVMOrcDisposeMaterializationUnit(unit);
            }
            check_error(error)
        }
    }

    /// Lets the JIT'd code resolve the allowed C library and libm functions (see
    /// `process_symbol_allowed`) from the process.
    pub fn add_process_math_symbols(&self) -> Result<(), String> {
        let mut generator = ptr::null_mut();
        // SAFETY: the filter is a plain function with no context; the generator, when
        // created, is handed to the dylib, which owns it from then on.
        unsafe {
            let prefix = LLVMOrcLLJITGetGlobalPrefix(self.jit);
            let error = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                &mut generator,
                prefix,
                Some(filter_process_symbol),
                ptr::null_mut(),
            );
            check_error(error)?;
            LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(self.jit), generator);
        }
        Ok(())
    }

    /// Adds `module` (consumed, with its context) to the main JITDylib.
    pub fn add_module(&self, module: ParsedModule) -> Result<(), String> {
        let (context, module) = module.into_raw();
        // SAFETY: the thread-safe context takes the LLVM context, the thread-safe module
        // takes the module and a reference to that context, so our reference is released
        // right away; LLVMOrcLLJITAddLLVMIRModule takes the thread-safe module in every
        // case.
        let error = unsafe {
            let safe_context = LLVMOrcCreateNewThreadSafeContextFromLLVMContext(context);
            let safe_module = LLVMOrcCreateNewThreadSafeModule(module, safe_context);
            LLVMOrcDisposeThreadSafeContext(safe_context);
            LLVMOrcLLJITAddLLVMIRModule(self.jit, LLVMOrcLLJITGetMainJITDylib(self.jit), safe_module)
        };
        check_error(error)
    }

    /// The address of `name` (compiling its module on first use).
    pub fn lookup(&self, name: &str) -> Result<usize, String> {
        let name_c = c_string(name)?;
        let mut address = 0u64;
        // SAFETY: valid jit, NUL-terminated name, valid out-pointer.
        let error = unsafe { LLVMOrcLLJITLookup(self.jit, &mut address, name_c.as_ptr()) };
        check_error(error).map_err(|message| {
            let mut reported = self.errors.lock().map(|e| e.join("; ")).unwrap_or_default();
            if !reported.is_empty() && !reported.contains(&message) {
                reported = format!("{message} ({reported})");
                return reported;
            }
            message
        })?;
        usize::try_from(address).map_err(|_| format!("address of {name} does not fit usize"))
    }
}

impl Drop for LlJit {
    fn drop(&mut self) {
        // SAFETY: we own the jit; the code it holds is freed with it, which is why
        // `CompiledModule` owns it. A disposal error is consumed (nothing to report to).
        let error = unsafe { LLVMOrcDisposeLLJIT(self.jit) };
        let _ = check_error(error);
    }
}

#[cfg(test)]
mod tests {
    use super::process_symbol_allowed;

    #[test]
    fn process_symbols_are_math_and_memory_functions_only() {
        for allowed in ["sinf", "sin", "memcpy", "fmaf", "__extendhfsf2", "__truncsfhf2"] {
            assert!(process_symbol_allowed(allowed), "{allowed}");
        }
        for refused in ["system", "execve", "open", "malloc", "free", "dlopen", "f"] {
            assert!(!process_symbol_allowed(refused), "{refused}");
        }
    }
}
