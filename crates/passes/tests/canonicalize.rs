//! `--canonicalize` on parsed text, through the crates' public API.

use spirvkit_ir::{parse, print, PrintOptions};

#[test]
fn canonicalize_folds_bitwise_identities_and_drops_dead_constants() {
    let src = "func.func @f(%a: i32) -> i32 {\n  %zero = spirv.Constant 0 : i32\n  %0 = spirv.BitwiseOr %a, %zero : i32\n  return %0 : i32\n}\n";
    let (mut ir, top) = parse(src, "t.mlir").unwrap();
    spirvkit_passes::canonicalize::run(&mut ir, top);
    let text = print(&ir, top, PrintOptions::default());
    assert!(text.contains("return %arg0 : i32"), "{text}");
    assert!(!text.contains("spirv.Constant") && !text.contains("BitwiseOr"), "{text}");
}
