#!/usr/bin/env bash
# The project's full test: formatting, lints, tests, generated tables, and
# conformance against SPIRV-Tools over the shared corpus.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
if [ -d "$cargo_bin" ]; then
    export PATH="$cargo_bin:$PATH"
fi

step() {
    echo "==> $*"
    "$@"
}

step cargo fmt --all -- --check
step cargo clippy --workspace --all-targets -- -D warnings
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
echo "==> cargo test --workspace"
cargo test --workspace 2>&1 | tee "$log"
step cargo xtask gen-grammar --check
step cargo build --release -p spirvkit-cli
step cargo xtask conformance
step cargo xtask mlir-conformance
# LLVM dialect -> LLVM IR (it prints why and skips without the corpus or LLVM 22's tools).
step cargo xtask llvmir-conformance
if [ -d ../shared/corpus/spv ]; then
    step cargo xtask spv-roundtrip
else
    echo "==> spv-roundtrip skipped: no corpus at ../shared/corpus/spv"
fi
if [ -d ../shared/corpus/dxc-codegen-spirv ]; then
    step cargo xtask hlsl-conformance
    step cargo xtask hlsl-conformance --filecheck
else
    echo "==> hlsl-conformance (syntax-only and --filecheck) skipped: no corpus at ../shared/corpus/dxc-codegen-spirv"
fi
if [ -d ../shared/corpus/wicked-engine ]; then
    step cargo xtask hlsl-conformance --corpus ../shared/corpus/wicked-engine
else
    echo "==> hlsl-conformance (wicked-engine) skipped: no corpus at ../shared/corpus/wicked-engine"
fi
# The engine's compute shaders through the CPU device's compile path (it prints why and
# skips without the corpus).
step cargo xtask cpu-compile
# The HLSL semantics suite on lavapipe (it prints why and skips without a Vulkan driver).
step cargo xtask vk-kernels
# `spirvkit run` over the corpus's compute shaders, vulkan against cpu (it prints why and
# skips without the corpus).
step cargo xtask run-corpus
# One closing line over all cargo tests (the last `test result:` line cargo prints
# is a crate's doc tests, often 0).
read -r passed failed < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed;?$/) p += $(i-1); if ($i ~ /^failed;?$/) f += $(i-1) } } END { print p + 0, f + 0 }' "$log")
echo "==> all checks passed"
echo "cargo-test: $passed passed, $failed failed"
