//! Header files dxc ships for Vulkan helpers (`#include <vk/spirv.h>`, ...), as our
//! own equivalents: written from the facts in SPIR-V.rst and what the tests use, and
//! served from memory when no file on the include path has the name.

use spirvkit_hlsl::preprocessor::FileLoader;
use std::path::{Path, PathBuf};

/// `(include name, text)` of every built-in header.
pub const HEADERS: &[(&str, &str)] = &[
    ("vk/spirv.h", include_str!("headers/spirv.h")),
    ("vk/opcode_selector.h", include_str!("headers/opcode_selector.h")),
    ("vk/khr/cooperative_matrix.h", include_str!("headers/cooperative_matrix.h")),
];

/// Looks files up on disk first, then among the built-in headers by their include name.
pub struct WithBuiltinHeaders<L: FileLoader>(pub L);

impl<L: FileLoader> FileLoader for WithBuiltinHeaders<L> {
    fn load(&self, path: &Path) -> std::io::Result<String> {
        match self.0.load(path) {
            Ok(text) => Ok(text),
            Err(e) => builtin(path).map(str::to_string).ok_or(e),
        }
    }

    fn identity(&self, path: &Path) -> PathBuf {
        match builtin(path) {
            Some(_) if self.0.load(path).is_err() => {
                PathBuf::from(format!("<built-in>/{}", builtin_name(path).unwrap_or("")))
            }
            _ => self.0.identity(path),
        }
    }
}

fn builtin_name(path: &Path) -> Option<&'static str> {
    let text = path.to_string_lossy().replace('\\', "/");
    HEADERS.iter().find(|(name, _)| text.ends_with(&format!("/{name}")) || text == *name).map(|(n, _)| *n)
}

fn builtin(path: &Path) -> Option<&'static str> {
    let name = builtin_name(path)?;
    HEADERS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spirvkit_hlsl::preprocessor::MemoryLoader;

    #[test]
    fn builtin_headers_are_found_by_include_name() {
        let loader = WithBuiltinHeaders(MemoryLoader::default());
        assert!(loader.load(Path::new("/some/dir/vk/spirv.h")).is_ok());
        assert!(loader.load(Path::new("vk/khr/cooperative_matrix.h")).is_ok());
        assert!(loader.load(Path::new("/x/other.h")).is_err());
    }
}
