#!/usr/bin/env bash
# Runs one cargo-fuzz target for a while:  scripts/fuzz.sh TARGET SECONDS
#
# TARGET is read, assemble, dis_roundtrip, mlir_text or hlsl_front (see fuzz/fuzz_targets/). The corpus
# directory fuzz/corpus/TARGET (gitignored) is seeded first from the SPIR-V corpus
# (../shared/corpus/spv, or $SPIRVKIT_SPV_CORPUS): the .spv files for read and
# dis_roundtrip; for assemble, the disassembly (target/release/spirvkit dis) of a
# few dozen of them; for hlsl_front, the .hlsl/.hlsli files of the DXC SPIR-V tests
# (../shared/corpus/dxc-codegen-spirv, or $SPIRVKIT_HLSL_CORPUS). Crashes land in
# fuzz/artifacts/TARGET/.
#
# Needs cargo-fuzz (installed here if missing) and a nightly compiler: the nightly
# toolchain when rustup has one, else the stable one with RUSTC_BOOTSTRAP=1.
# FUZZ_SANITIZER picks cargo-fuzz's sanitizer (default none: the fuzzed crates
# forbid unsafe code, and AddressSanitizer would about halve the exec rate).
set -euo pipefail

usage="usage: scripts/fuzz.sh TARGET SECONDS   (TARGET: read | assemble | dis_roundtrip | mlir_text | hlsl_front)"
target="${1:?$usage}"
seconds="${2:?$usage}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
spv_corpus="${SPIRVKIT_SPV_CORPUS:-$root/../shared/corpus/spv}"
seeds="$root/fuzz/corpus/$target"

case "$target" in
    read | dis_roundtrip | assemble | mlir_text | hlsl_front) ;;
    *) echo "$usage" >&2; exit 2 ;;
esac
case "$seconds" in
    '' | *[!0-9]*) echo "$usage" >&2; exit 2 ;;
esac

cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
if [ -d "$cargo_bin" ]; then
    export PATH="$cargo_bin:$PATH"
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: installing cargo-fuzz" >&2
    cargo install --locked cargo-fuzz
fi
toolchain=()
if rustup run nightly rustc --version >/dev/null 2>&1; then
    toolchain=(+nightly)
else
    export RUSTC_BOOTSTRAP=1
fi

mkdir -p "$seeds"
hlsl_corpus="${SPIRVKIT_HLSL_CORPUS:-$root/../shared/corpus/dxc-codegen-spirv}"
if [ "$target" = hlsl_front ]; then
    if [ -d "$hlsl_corpus" ]; then
        find "$hlsl_corpus" \( -name '*.hlsl' -o -name '*.hlsli' \) | while IFS= read -r file; do
            name="${file#"$hlsl_corpus"/}"
            out="$seeds/${name//\//__}"
            [ -e "$out" ] || cp "$file" "$out"
        done
    else
        echo "fuzz.sh: no HLSL corpus at $hlsl_corpus; starting from an empty corpus" >&2
    fi
elif [ -d "$spv_corpus" ]; then
    # Seed names are flattened corpus paths, so re-seeding does not duplicate.
    if [ "$target" = mlir_text ]; then
        mlir_corpus="${SPIRVKIT_MLIR_CORPUS:-$root/../shared/corpus/mlir-spirv}"
        if [ -d "$mlir_corpus/test" ]; then
            find "$mlir_corpus/test" -name '*.mlir' | while IFS= read -r file; do
                name="${file#"$mlir_corpus"/}"
                out="$seeds/${name//\//__}"
                [ -e "$out" ] || cp "$file" "$out"
            done
        fi
    elif [ "$target" = assemble ]; then
        (cd "$root" && cargo build --release --quiet --package spirvkit-cli)
        find "$spv_corpus" -name '*.spv' -size -64k | LC_ALL=C sort | awk 'NR % 12 == 1' | head -n 48 |
            while IFS= read -r file; do
                name="${file#"$spv_corpus"/}"
                out="$seeds/${name//\//__}asm"
                [ -e "$out" ] || "$root/target/release/spirvkit" dis "$file" -o "$out" 2>/dev/null || rm -f "$out"
            done
    else
        find "$spv_corpus" -name '*.spv' | while IFS= read -r file; do
            name="${file#"$spv_corpus"/}"
            out="$seeds/${name//\//__}"
            [ -e "$out" ] || cp "$file" "$out"
        done
    fi
else
    echo "fuzz.sh: no SPIR-V corpus at $spv_corpus; starting from an empty corpus" >&2
fi
echo "fuzz.sh: $(find "$seeds" -type f | wc -l) inputs in $seeds" >&2

cd "$root"
exec cargo "${toolchain[@]}" fuzz run --sanitizer "${FUZZ_SANITIZER:-none}" "$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536
