use super::*;

fn translate(text: &str) -> Result<String, ToLlvmIrError> {
    let (ir, top) = spirvkit_ir::parse(text, "test.mlir").expect("parses");
    to_llvm_ir(&ir, top)
}
