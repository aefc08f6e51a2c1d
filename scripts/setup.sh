#!/usr/bin/env bash
# One-time set-up on a fresh Debian machine: installs dependencies, builds the
# release binaries, compiles the bundled HLSL compute shader (examples/hlsl/sum.hlsl)
# with `hlsl2spirv` and validates the binary with spirv-val, then round-trips the
# bundled SPIR-V example through the assembler and disassembler, and through the
# structured IR (deserialize, serialize).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/install-deps.sh
cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
if [ -d "$cargo_bin" ]; then
    export PATH="$cargo_bin:$PATH"
fi

echo "==> cargo build --release -p spirvkit-cli -p hlsl2spirv"
cargo build --release -p spirvkit-cli -p hlsl2spirv
spirvkit="${CARGO_TARGET_DIR:-target}/release/spirvkit"
hlsl2spirv="${CARGO_TARGET_DIR:-target}/release/hlsl2spirv"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The main job: HLSL -> Vulkan SPIR-V, checked by the current SPIRV-Tools that
# install-deps.sh put in .venv (SPIRV_VAL picks another).
spirv_val="${SPIRV_VAL:-.venv/bin/spirv-val}"
echo "==> hlsl2spirv -T cs_6_0 -E main examples/hlsl/sum.hlsl -Fo sum.spv"
"$hlsl2spirv" -T cs_6_0 -E main examples/hlsl/sum.hlsl -Fo "$work/sum.spv"
echo "==> spirv-val --target-env vulkan1.0 sum.spv"
"$spirv_val" --target-env vulkan1.0 "$work/sum.spv"
echo "    ($(stat -c %s "$work/sum.spv") bytes, valid according to $("$spirv_val" --version | head -n 1))"

# And run it: on the CPU (JIT through LLVM 22), then on lavapipe, and compare. The register
# shifts give the cbuffer binding 0, the input 1, the partial sums 2 and the total 3.
echo "==> hlsl2spirv -spirv -fvk-b-shift 0 0 -fvk-t-shift 1 0 -fvk-u-shift 2 0 ... -Fo sum_bound.spv"
"$hlsl2spirv" -spirv -T cs_6_0 -E main -fvk-b-shift 0 0 -fvk-t-shift 1 0 -fvk-u-shift 2 0 \
    examples/hlsl/sum.hlsl -Fo "$work/sum_bound.spv"
run_sum() {
    "$spirvkit" run "$work/sum_bound.spv" --groups 16,1,1 --ubo 0:u32=1000 --buf 1:f32:1024:ramp \
        --buf 2:f32:16 --buf 3:u32:1 --dump 2:"$work/partial-$1.bin" --dump 3:"$work/total-$1.bin" \
        --repeat 3 --fresh --device "$1"
}
echo "==> spirvkit run sum_bound.spv --groups 16,1,1 --ubo 0:u32=1000 --buf 1:f32:1024:ramp --buf 2:f32:16 --buf 3:u32:1 --device cpu"
run_sum cpu
echo "    total of 0..999: $(od -An -tu4 "$work/total-cpu.bin" | tr -d ' ')"
lavapipe=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
if [ -f "$lavapipe" ]; then
    echo "==> the same run on lavapipe (--device vulkan), then spirvkit run --diff"
    VK_DRIVER_FILES="$lavapipe" run_sum vulkan
    "$spirvkit" run --diff "$work/partial-cpu.bin" "$work/partial-vulkan.bin" --type f32
    "$spirvkit" run --diff "$work/total-cpu.bin" "$work/total-vulkan.bin" --type u32
fi
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
