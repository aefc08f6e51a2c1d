//! Generated tables. Regenerate with the `cargo xtask` command named in each file's header.

pub mod ops;
