#!/usr/bin/env bash
# One-time set-up on a fresh Debian machine: installs dependencies, builds the
# release binary, and round-trips the bundled example through the assembler and
# disassembler, then through the structured IR (deserialize, serialize).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/install-deps.sh
cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
if [ -d "$cargo_bin" ]; then
    export PATH="$cargo_bin:$PATH"
fi

echo "==> cargo build --release -p spirvkit-cli"
cargo build --release -p spirvkit-cli
spirvkit="${CARGO_TARGET_DIR:-target}/release/spirvkit"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "==> spirvkit as examples/triangle.spvasm -o triangle.spv"
"$spirvkit" as examples/triangle.spvasm -o "$work/triangle.spv"
if command -v spirv-val >/dev/null 2>&1; then
    spirv-val "$work/triangle.spv"
    echo "    ($(stat -c %s "$work/triangle.spv") bytes, valid according to spirv-val)"
fi
echo "==> spirvkit dis triangle.spv"
"$spirvkit" dis "$work/triangle.spv"
echo "==> spirvkit translate --deserialize-spirv triangle.spv   (binary -> structured IR)"
"$spirvkit" translate --deserialize-spirv "$work/triangle.spv" -o "$work/triangle.mlir"
cat "$work/triangle.mlir"
echo "==> spirvkit translate --no-implicit-module --serialize-spirv triangle.mlir   (IR -> binary)"
"$spirvkit" translate --no-implicit-module --serialize-spirv "$work/triangle.mlir" -o "$work/triangle2.spv"
if command -v spirv-val >/dev/null 2>&1; then
    spirv-val "$work/triangle2.spv"
    echo "    ($(stat -c %s "$work/triangle2.spv") bytes, valid according to spirv-val)"
fi
