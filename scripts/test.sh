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
step cargo test --workspace
step cargo xtask gen-grammar --check
step cargo build --release -p spirvkit-cli
step cargo xtask conformance
echo "==> all checks passed"
