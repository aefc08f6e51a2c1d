//! Shared by the jit crate's integration tests: compute shaders compiled by
//! glslangValidator (a test is skipped with a message when it is not installed).

// Each test binary uses a part of this module.
#![allow(dead_code)]

use spirvkit_run::Dispatch;
use std::path::Path;
use std::process::Command;

/// The compute shader file `source` (GLSL, or HLSL with `-D` in `extra`), compiled for
/// Vulkan with entry point `main`.
pub fn glslang_words(source: &Path, extra: &[&str]) -> Option<Vec<u32>> {
    let stem = source.file_stem().unwrap_or_default().to_string_lossy();
    let out = std::env::temp_dir().join(format!("spirvkit-{}-{stem}.spv", std::process::id()));
    let status = Command::new("glslangValidator")
        .args(extra)
        .args(["-V", "-S", "comp", "-e", "main"])
        .arg(source)
        .arg("-o")
        .arg(&out)
        .output();
    let Ok(status) = status else {
        eprintln!("skipping: glslangValidator is not installed");
        return None;
    };
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stdout));
    let bytes = std::fs::read(&out).expect("spv written");
    let _ = std::fs::remove_file(&out);
    Some(bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

/// The GLSL compute shader text `source`, compiled (`test` and `name` name its file).
pub fn glsl_words(test: &str, name: &str, source: &str) -> Option<Vec<u32>> {
    let path = std::env::temp_dir().join(format!("spirvkit-{test}-{}-{name}.comp", std::process::id()));
    std::fs::write(&path, source).expect("write");
    let words = glslang_words(&path, &[]);
    let _ = std::fs::remove_file(&path);
    words
}

/// A dispatch of `words`' `main` over `groups` on two threads, once.
pub fn dispatch(words: &[u32], groups: [u32; 3]) -> Dispatch<'_> {
    Dispatch {
        spirv: words,
        entry: "main",
        groups,
        spec: &[],
        push: &[],
        threads: Some(2),
        time_limit: None,
        repeat: 1,
    }
}

pub fn f32s(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

pub fn u32s(values: impl IntoIterator<Item = u32>) -> Vec<u8> {
    values.into_iter().flat_map(u32::to_le_bytes).collect()
}

pub fn read_f32s(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

pub fn read_u32s(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}
