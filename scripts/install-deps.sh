#!/usr/bin/env bash
# Installs what spirvkit needs on Debian (12 "bookworm" ships SPIRV-Tools 2023.1,
# the reference the disassembler and assembler match). Idempotent: `apt-get update`
# runs only when a package is missing, and installed packages are skipped.
# Run as root (or with sudo available).
set -euo pipefail

# llvm-22-tools brings FileCheck-22 for the MLIR conformance run; mlir-22-tools brings
# mlir-opt-22, the oracle the `spirvkit opt` tests compare against (they skip without it).
apt_packages=(spirv-tools spirv-headers glslang-tools hyperfine llvm-22-tools mlir-22-tools)
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

if [ "${#missing[@]}" -gt 0 ]; then
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "install-deps: need root to install: ${missing[*]}" >&2
            exit 1
        fi
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
echo "install-deps: done"
