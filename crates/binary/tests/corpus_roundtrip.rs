//! Read/write identity over the real-world corpus in ../shared/corpus/spv.
//! Skips (with a message) when the corpus is not next to the project.

use std::path::{Path, PathBuf};

fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("SPIRVKIT_SPV_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/spv"));
    dir.is_dir().then_some(dir)
}

fn spv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            spv_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "spv") {
            out.push(path);
        }
    }
}

#[test]
fn every_corpus_module_reads_and_writes_back_identically() {
    let Some(dir) = corpus_dir() else {
        eprintln!("skipping: SPIR-V corpus not found (set SPIRVKIT_SPV_CORPUS)");
        return;
    };
    let mut files = Vec::new();
    spv_files(&dir, &mut files);
    assert!(!files.is_empty(), "no .spv files under {}", dir.display());
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        match spirvkit_binary::read(&bytes) {
            Ok(module) => {
                if spirvkit_binary::write(&module) != bytes {
                    failures.push(format!("{}: write differs", path.display()));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{} of {} failed:\n{}", failures.len(), files.len(), failures.join("\n"));
}
