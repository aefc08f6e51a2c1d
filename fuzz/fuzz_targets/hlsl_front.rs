//! HLSL source -> preprocessor -> parser -> sema -> typed `-ast-dump` and rendered diagnostics:
//! never a panic, never a stack overflow, bounded time and memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_hlsl::frontend::{analyze_source, preprocess_only, FrontendOptions};
use spirvkit_hlsl::preprocessor::{render_tokens, MemoryLoader};
use spirvkit_hlsl::sema::tree::Stage;
use std::path::PathBuf;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    // Includes resolve in memory (never the file system): the input includes itself
    // under two names, which exercises guards, `#pragma once` and the depth limit.
    let mut loader = MemoryLoader::default();
    loader.files.insert(PathBuf::from("/fuzz/a.hlsli"), text.clone());
    loader
        .files
        .insert(PathBuf::from("/fuzz/b.h"), "#pragma once\n#define B 1\nstruct B_t { float b; };\n".into());
    let mut options = FrontendOptions::default();
    options.preprocess.predefined =
        vec![("__HLSL_VERSION".into(), "2021".into()), ("__spirv__".into(), "1".into())];
    options.preprocess.defines = vec![("FUZZ".into(), None)];
    let path = Some(PathBuf::from("/fuzz/main.hlsl"));
    // The first byte picks the stage, so the entry point checks run too.
    let stages = [
        Stage::Pixel,
        Stage::Vertex,
        Stage::Compute,
        Stage::Mesh,
        Stage::Hull,
        Stage::Geometry,
        Stage::Library,
    ];
    options.sema.stage = data.first().map(|b| stages[usize::from(*b) % stages.len()]);
    // The second byte's low bit picks the stage I/O location order (`-fvk-stage-io-order`).
    if data.get(1).is_some_and(|b| b & 1 == 1) {
        options.sema.stage_io_order = spirvkit_hlsl::sema::StageIoOrder::Alpha;
    }
    let fe = analyze_source("main.hlsl", path.clone(), text.clone(), &options, &loader);
    let _ = fe.render_diagnostics();
    let _ = fe.dump();
    let (sources, interner, pre, diags) = preprocess_only("main.hlsl", path, text, &options, &loader);
    let _ = render_tokens(&pre.tokens, &interner, &sources);
    let _ = diags.render(&sources);
});
