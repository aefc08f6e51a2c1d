//! The library half of the `hlsl2spirv` driver (the binary is `main.rs`): dxc's command
//! line (`option_table`, `options`, `spirv_values`) and the built-in `vk/` headers. A
//! library so that the fuzz target `hlsl_options` and tests reach the option parser.

pub mod builtin_headers;
pub mod compile;
pub mod frontend_options;
pub mod option_table;
pub mod options;
pub mod spirv_values;
