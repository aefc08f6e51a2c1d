//! Hand-written assembly cases whose expected results were produced by Debian's
//! SPIRV-Tools 2023.1 (`spirv-as` then `spirv-dis`, or spirv-as's error message).
//! Checks our assembler and disassembler reproduce them, and, when the tools are
//! installed, compares our binary with `spirv-as` byte for byte.

use spirvkit_binary::{assemble, disassemble, read, AsmOptions, DisOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/oracle");
    let mut cases: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "spvasm"))
        .collect();
    cases.sort();
    cases
}

#[test]
fn assembly_and_disassembly_match_spirv_tools() {
    let mut checked = 0;
    for case in cases() {
        let text = std::fs::read_to_string(&case).unwrap();
        let result = assemble(&text, &AsmOptions::default());
        let expected_error = case.with_extension("expected-error");
        if expected_error.exists() {
            let message = std::fs::read_to_string(&expected_error).unwrap();
            let err = result.expect_err(&format!("{} should fail", case.display()));
            assert_eq!(err.message, message.trim_end(), "{}", case.display());
        } else {
            let words = result.unwrap_or_else(|e| panic!("{}: {e}", case.display()));
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let module = read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", case.display()));
            let text = String::from_utf8(disassemble(&module, &DisOptions::default())).unwrap();
            let expected = std::fs::read_to_string(case.with_extension("expected")).unwrap();
            assert_eq!(text, expected, "{}", case.display());
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} cases found");
}

#[test]
fn binaries_match_spirv_as_when_installed() {
    if Command::new("spirv-as").arg("--version").output().is_err() {
        eprintln!("skipping: spirv-as not installed");
        return;
    }
    let out = std::env::temp_dir().join(format!("spirvkit-oracle-{}.spv", std::process::id()));
    for case in cases() {
        if case.with_extension("expected-error").exists() {
            continue;
        }
        let status = Command::new("spirv-as").arg(&case).arg("-o").arg(&out).status().unwrap();
        assert!(status.success(), "spirv-as failed on {}", case.display());
        let reference = std::fs::read(&out).unwrap();
        let text = std::fs::read_to_string(&case).unwrap();
        let words = assemble(&text, &AsmOptions::default()).unwrap();
        let ours: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(ours, reference, "{}", case.display());
    }
    let _ = std::fs::remove_file(out);
}
