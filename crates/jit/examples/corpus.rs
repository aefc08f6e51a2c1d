//! Tries the CPU device on every compute shader under a directory (one workgroup,
//! zero-filled buffers of 64 KiB or their fixed size, a 2 s time limit) and prints the
//! failures grouped by message: `cargo run --release -p spirvkit-jit --example corpus --
//! DIR`. A survey, not a test (the harness comparing with lavapipe is the bench's).

use std::collections::BTreeMap;
use std::time::Duration;

use spirvkit_jit::CpuDevice;
use spirvkit_run::{Binding, BufferKind, Device, Dispatch};

fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "spv") {
            out.push(p);
        }
    }
}

fn main() {
    let dir = std::env::args().nth(1).expect("a directory");
    let mut paths = Vec::new();
    files(std::path::Path::new(&dir), &mut paths);
    paths.sort();
    let (mut compute, mut ok) = (0, 0);
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in &paths {
        let bytes = std::fs::read(p).unwrap();
        let words: Vec<u32> =
            bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        // Compute shaders only: OpEntryPoint (opcode 15) with GLCompute (5).
        let mut entry = None;
        let mut i = 5;
        while i < words.len() {
            let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
            if len == 0 {
                break;
            }
            if op == 15 && words.get(i + 1) == Some(&5) {
                let name: Vec<u8> = words[i + 3..i + len]
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .take_while(|&b| b != 0)
                    .collect();
                entry = Some(String::from_utf8_lossy(&name).to_string());
                break;
            }
            i += len;
        }
        let Some(entry) = entry else { continue };
        compute += 1;
        let result = spirvkit_jit::device::kernel_llvm_ir(&words, &entry, &[]).and_then(|(_, layout, _)| {
            let mut bindings: Vec<Binding> = layout
                .descriptors
                .iter()
                .map(|d| Binding {
                    set: d.set,
                    binding: d.binding,
                    kind: if d.storage { BufferKind::Storage } else { BufferKind::Uniform },
                    data: vec![0; (d.fixed_size as usize).max(65536)],
                })
                .collect();
            let push = vec![0u8; layout.push_constant_bytes.unwrap_or(0) as usize];
            let dispatch = Dispatch {
                spirv: &words,
                entry: &entry,
                groups: [1, 1, 1],
                spec: &[],
                push: &push,
                threads: Some(1),
                time_limit: Some(Duration::from_secs(2)),
                repeat: 1,
            };
            CpuDevice::new().run(&dispatch, &mut bindings, None)
        });
        match result {
            Ok(_) => ok += 1,
            Err(e) => {
                let mut key = e.to_string();
                key.truncate(110);
                failures.entry(key).or_default().push(p.file_name().unwrap().to_string_lossy().to_string());
            }
        }
    }
    let mut sorted: Vec<_> = failures.into_iter().collect();
    sorted.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
    for (msg, names) in &sorted {
        println!(
            "{:4} {msg}  [{}]",
            names.len(),
            names.iter().take(2).cloned().collect::<Vec<_>>().join(", ")
        );
    }
    println!("compute shaders: {compute}, ran: {ok}");
}
