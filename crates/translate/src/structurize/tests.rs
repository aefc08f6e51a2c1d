//! Inputs are plain-CFG functions as `mlir-translate-22 --deserialize-spirv
//! --spirv-structurize-control-flow=false` prints them for small SPIR-V programs
//! written for these tests; the merge instructions are given by block index (blocks
//! in the printed order). Expected texts are what `mlir-translate-22
//! --deserialize-spirv` prints for the same binary where it succeeds, or checked by
//! hand where MLIR fails to structurize.

use super::*;
use spirvkit_ir::PrintOptions;

/// A merge instruction: header block, merge block, continue target (loops), control.
type Merge = (usize, usize, Option<usize>, u32);

/// `OpSelectionMerge`: header block, merge block, control mask.
fn sel(header: usize, merge: usize, control: u32) -> Merge {
    (header, merge, None, control)
}

/// `OpLoopMerge`: header block, merge block, continue target, control mask.
fn lp(header: usize, merge: usize, continue_target: usize, control: u32) -> Merge {
    (header, merge, Some(continue_target), control)
}

/// Parses `input` (a `spirv.module` with one function), structurizes the function
/// with the given merges, checks it verifies and prints the `spirv.module`.
/// With `STRUCT_DUMP=dir` set, each result is also written to `dir/<test>.mlir` (to
/// check new cases with `mlir-opt-22`).
fn structurized(input: &str, merges: &[Merge]) -> String {
    let out = structurized_inner(input, merges);
    if let Ok(dir) = std::env::var("STRUCT_DUMP") {
        let n = std::thread::current().name().unwrap_or("x").replace("::", "_");
        let _ = std::fs::write(format!("{dir}/{n}.mlir"), &out);
    }
    out
}

fn structurized_inner(input: &str, merges: &[Merge]) -> String {
    match try_structurize(input, merges) {
        Ok(text) => text,
        Err(e) => format!("error: {e}"),
    }
}

fn try_structurize(input: &str, merges: &[Merge]) -> Result<String, String> {
    let (mut ir, top) = spirvkit_ir::parse(input, "t.mlir").map_err(|e| format!("{e:?}"))?;
    let module = crate::test_support::first_op(&ir, top, "spirv.module").ok_or("no spirv.module")?;
    let func = crate::test_support::first_op(&ir, module, "spirv.func").ok_or("no spirv.func")?;
    let body = ir.op(func).regions[0];
    let blocks = ir.region(body).blocks.clone();
    let mut headers = FxHashMap::default();
    for &(h, m, ct, control) in merges {
        let info = match ct {
            None => MergeInfo::Selection { merge: blocks[m], control },
            Some(ct) => MergeInfo::Loop {
                merge: blocks[m],
                continue_target: blocks[ct],
                control,
                parameters: Vec::new(),
            },
        };
        headers.insert(blocks[h], info);
    }
    structurize(&mut ir, func, &headers).map_err(|e| e.to_string())?;
    let diags = spirvkit_ir::verify::verify(&ir, top, input);
    if let Some(d) = diags.first() {
        return Err(format!("does not verify: {}", d.message));
    }
    Ok(spirvkit_ir::print(&ir, module, PrintOptions::default()).trim_end().to_string())
}

#[test]
fn selection_then_loop_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %true = spirv.Constant true
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.BranchConditional %true, ^bb2, ^bb1(%cst0_si32 : si32)
  ^bb1(%0: si32):  // 2 preds: ^bb0, ^bb2
    %cst0_si32_0 = spirv.Constant 0 : si32
    spirv.Branch ^bb3(%cst0_si32_0 : si32)
  ^bb2:  // pred: ^bb0
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Branch ^bb1(%cst1_si32 : si32)
  ^bb3(%1: si32):  // 2 preds: ^bb1, ^bb4
    %cst10_si32 = spirv.Constant 10 : si32
    %2 = spirv.SLessThan %1, %cst10_si32 : si32
    spirv.BranchConditional %2, ^bb6, ^bb5
  ^bb4:  // pred: ^bb6
    %cst1_si32_1 = spirv.Constant 1 : si32
    %3 = spirv.IAdd %1, %cst1_si32_1 : si32
    spirv.Branch ^bb3(%3 : si32)
  ^bb5:  // pred: ^bb3
    %4 = spirv.IAdd %1, %0 : si32
    spirv.Return
  ^bb6:  // pred: ^bb3
    spirv.Branch ^bb4
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %true = spirv.Constant true
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    %0 = spirv.mlir.selection -> si32 {
      spirv.BranchConditional %true, ^bb1, ^bb2(%cst0_si32 : si32)
    ^bb1:  // pred: ^bb0
      %cst1_si32 = spirv.Constant 1 : si32
      spirv.Branch ^bb2(%cst1_si32 : si32)
    ^bb2(%4: si32):  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge %4 : si32
    }
    %cst0_si32_0 = spirv.Constant 0 : si32
    spirv.Branch ^bb2(%cst0_si32_0 : si32)
  ^bb2(%1: si32):  // pred: ^bb1
    %2 = spirv.mlir.loop control(Unroll) -> si32 {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%4: si32):  // 2 preds: ^bb0, ^bb3
      %cst10_si32 = spirv.Constant 10 : si32
      %5 = spirv.SLessThan %4, %cst10_si32 : si32
      spirv.BranchConditional %5, ^bb2, ^bb4
    ^bb2:  // pred: ^bb1
      spirv.Branch ^bb3
    ^bb3:  // pred: ^bb2
      %cst1_si32 = spirv.Constant 1 : si32
      %6 = spirv.IAdd %4, %cst1_si32 : si32
      spirv.Branch ^bb1(%6 : si32)
    ^bb4:  // pred: ^bb1
      spirv.mlir.merge %4 : si32
    }
    %3 = spirv.IAdd %2, %0 : si32
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[sel(0, 1, 0), lp(3, 5, 4, 1)]), expected);
}

#[test]
fn nested_selections_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    %true = spirv.Constant true
    spirv.BranchConditional %true, ^bb3, ^bb4
  ^bb2:  // 2 preds: ^bb4, ^bb5
    spirv.Return
  ^bb3:  // pred: ^bb1
    %false = spirv.Constant false
    spirv.BranchConditional %false, ^bb6, ^bb7
  ^bb4:  // pred: ^bb1
    %cst10_si32 = spirv.Constant 10 : si32
    spirv.Store "Function" %0, %cst10_si32 : si32
    spirv.Branch ^bb2
  ^bb5:  // 2 preds: ^bb6, ^bb7
    %cst3_si32 = spirv.Constant 3 : si32
    spirv.Store "Function" %0, %cst3_si32 : si32
    spirv.Branch ^bb2
  ^bb6:  // pred: ^bb3
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Store "Function" %0, %cst1_si32 : si32
    spirv.Branch ^bb5
  ^bb7:  // pred: ^bb3
    %cst2_si32 = spirv.Constant 2 : si32
    spirv.Store "Function" %0, %cst2_si32 : si32
    spirv.Branch ^bb5
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    %true = spirv.Constant true
    spirv.Branch ^bb2
  ^bb2:  // pred: ^bb1
    spirv.mlir.selection {
      spirv.BranchConditional %true, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      %false = spirv.Constant false
      spirv.Branch ^bb3
    ^bb2:  // pred: ^bb0
      %cst10_si32 = spirv.Constant 10 : si32
      spirv.Store "Function" %0, %cst10_si32 : si32
      spirv.Branch ^bb4
    ^bb3:  // pred: ^bb1
      spirv.mlir.selection {
        spirv.BranchConditional %false, ^bb1, ^bb2
      ^bb1:  // pred: ^bb0
        %cst1_si32 = spirv.Constant 1 : si32
        spirv.Store "Function" %0, %cst1_si32 : si32
        spirv.Branch ^bb3
      ^bb2:  // pred: ^bb0
        %cst2_si32 = spirv.Constant 2 : si32
        spirv.Store "Function" %0, %cst2_si32 : si32
        spirv.Branch ^bb3
      ^bb3:  // 2 preds: ^bb1, ^bb2
        spirv.mlir.merge
      }
      %cst3_si32 = spirv.Constant 3 : si32
      spirv.Store "Function" %0, %cst3_si32 : si32
      spirv.Branch ^bb4
    ^bb4:  // 2 preds: ^bb2, ^bb3
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[sel(1, 2, 0), sel(3, 5, 0)]), expected);
}

#[test]
fn merge_phis_and_escaping_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    %cst1_si32 = spirv.Constant 1 : si32
    %cst2_si32 = spirv.Constant 2 : si32
    %1 = spirv.IAdd %cst1_si32, %cst2_si32 : si32
    %true = spirv.Constant true
    spirv.BranchConditional %true, ^bb3, ^bb4
  ^bb2(%2: si32, %3: si32):  // 2 preds: ^bb3, ^bb4
    %4 = spirv.IAdd %2, %1 : si32
    %5 = spirv.IAdd %3, %4 : si32
    spirv.Return
  ^bb3:  // pred: ^bb1
    %cst2_si32_0 = spirv.Constant 2 : si32
    %6 = spirv.IAdd %1, %cst2_si32_0 : si32
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb2(%6, %cst0_si32 : si32, si32)
  ^bb4:  // pred: ^bb1
    %cst3_si32 = spirv.Constant 3 : si32
    %7 = spirv.IAdd %1, %cst3_si32 : si32
    %cst1_si32_1 = spirv.Constant 1 : si32
    spirv.Branch ^bb2(%7, %cst1_si32_1 : si32, si32)
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    %cst1_si32 = spirv.Constant 1 : si32
    %cst2_si32 = spirv.Constant 2 : si32
    %1 = spirv.IAdd %cst1_si32, %cst2_si32 : si32
    %true = spirv.Constant true
    spirv.Branch ^bb2
  ^bb2:  // pred: ^bb1
    %2:2 = spirv.mlir.selection -> si32, si32 {
      spirv.BranchConditional %true, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      %cst2_si32_0 = spirv.Constant 2 : si32
      %5 = spirv.IAdd %1, %cst2_si32_0 : si32
      %cst0_si32 = spirv.Constant 0 : si32
      spirv.Branch ^bb3(%5, %cst0_si32 : si32, si32)
    ^bb2:  // pred: ^bb0
      %cst3_si32 = spirv.Constant 3 : si32
      %6 = spirv.IAdd %1, %cst3_si32 : si32
      %cst1_si32_1 = spirv.Constant 1 : si32
      spirv.Branch ^bb3(%6, %cst1_si32_1 : si32, si32)
    ^bb3(%7: si32, %8: si32):  // 2 preds: ^bb1, ^bb2
      spirv.mlir.merge %7, %8 : si32, si32
    }
    %3 = spirv.IAdd %2#0, %1 : si32
    %4 = spirv.IAdd %2#1, %3 : si32
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[sel(1, 2, 0)]), expected);
}

#[test]
fn loop_yields_values_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Branch ^bb1(%cst0_si32, %cst1_si32 : si32, si32)
  ^bb1(%1: si32, %2: si32):  // 2 preds: ^bb0, ^bb2
    spirv.Branch ^bb4
  ^bb2:  // 2 preds: ^bb4, ^bb5
    %cst1_si32_0 = spirv.Constant 1 : si32
    %3 = spirv.IAdd %1, %cst1_si32_0 : si32
    %4 = spirv.IAdd %2, %8 : si32
    %cst10_si32 = spirv.Constant 10 : si32
    %5 = spirv.SLessThan %1, %cst10_si32 : si32
    spirv.BranchConditional %5, ^bb1(%3, %4 : si32, si32), ^bb3
  ^bb3:  // 2 preds: ^bb2, ^bb5
    %6 = spirv.IAdd %8, %2 : si32
    %7 = spirv.IAdd %6, %1 : si32
    spirv.Return
  ^bb4:  // pred: ^bb1
    %8 = spirv.IAdd %1, %2 : si32
    %true = spirv.Constant true
    spirv.BranchConditional %true, ^bb5, ^bb2
  ^bb5:  // pred: ^bb4
    %false = spirv.Constant false
    spirv.BranchConditional %false, ^bb3, ^bb2
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Branch ^bb1(%cst0_si32, %cst1_si32 : si32, si32)
  ^bb1(%1: si32, %2: si32):  // pred: ^bb0
    %3:3 = spirv.mlir.loop -> si32, si32, si32 {
      spirv.Branch ^bb1(%1, %2 : si32, si32)
    ^bb1(%6: si32, %7: si32):  // 2 preds: ^bb0, ^bb4
      spirv.Branch ^bb2
    ^bb2:  // pred: ^bb1
      %8 = spirv.IAdd %6, %7 : si32
      %true = spirv.Constant true
      spirv.BranchConditional %true, ^bb3, ^bb4
    ^bb3:  // pred: ^bb2
      %false = spirv.Constant false
      spirv.BranchConditional %false, ^bb5, ^bb4
    ^bb4:  // 2 preds: ^bb2, ^bb3
      %cst1_si32_0 = spirv.Constant 1 : si32
      %9 = spirv.IAdd %6, %cst1_si32_0 : si32
      %10 = spirv.IAdd %7, %8 : si32
      %cst10_si32 = spirv.Constant 10 : si32
      %11 = spirv.SLessThan %6, %cst10_si32 : si32
      spirv.BranchConditional %11, ^bb1(%9, %10 : si32, si32), ^bb5
    ^bb5:  // 2 preds: ^bb3, ^bb4
      spirv.mlir.merge %6, %7, %8 : si32, si32, si32
    }
    %4 = spirv.IAdd %3#2, %3#1 : si32
    %5 = spirv.IAdd %4, %3#0 : si32
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 3, 2, 0)]), expected);
}

#[test]
fn back_to_back_selections_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %true = spirv.Constant true
    spirv.BranchConditional %true, ^bb2, ^bb1
  ^bb1:  // 2 preds: ^bb0, ^bb2
    %false = spirv.Constant false
    spirv.BranchConditional %false, ^bb4, ^bb3
  ^bb2:  // pred: ^bb0
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Store "Function" %0, %cst1_si32 : si32
    spirv.Branch ^bb1
  ^bb3:  // 2 preds: ^bb1, ^bb4
    spirv.Return
  ^bb4:  // pred: ^bb1
    %cst2_si32 = spirv.Constant 2 : si32
    spirv.Store "Function" %0, %cst2_si32 : si32
    spirv.Branch ^bb3
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %true = spirv.Constant true
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    spirv.mlir.selection {
      spirv.BranchConditional %true, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      %cst1_si32 = spirv.Constant 1 : si32
      spirv.Store "Function" %0, %cst1_si32 : si32
      spirv.Branch ^bb2
    ^bb2:  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge
    }
    %false = spirv.Constant false
    spirv.Branch ^bb2
  ^bb2:  // pred: ^bb1
    spirv.mlir.selection {
      spirv.BranchConditional %false, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      %cst2_si32 = spirv.Constant 2 : si32
      spirv.Store "Function" %0, %cst2_si32 : si32
      spirv.Branch ^bb2
    ^bb2:  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[sel(0, 1, 0), sel(1, 3, 0)]), expected);
}

#[test]
fn switch_fallthrough_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %1 = spirv.Load "Function" %0 : si32
    spirv.Switch %1 : si32, [
      default: ^bb2,
      1: ^bb3,
      2: ^bb4,
      3: ^bb4
    ]
  ^bb1:  // 2 preds: ^bb2, ^bb4
    spirv.Return
  ^bb2:  // pred: ^bb0
    spirv.Branch ^bb1
  ^bb3:  // pred: ^bb0
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Store "Function" %0, %cst1_si32 : si32
    spirv.Branch ^bb4
  ^bb4:  // 3 preds: ^bb0, ^bb0, ^bb3
    %cst2_si32 = spirv.Constant 2 : si32
    spirv.Store "Function" %0, %cst2_si32 : si32
    spirv.Branch ^bb1
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %1 = spirv.Load "Function" %0 : si32
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    spirv.mlir.selection {
      spirv.Switch %1 : si32, [
        default: ^bb1,
        1: ^bb2,
        2: ^bb3,
        3: ^bb3
      ]
    ^bb1:  // pred: ^bb0
      spirv.Branch ^bb4
    ^bb2:  // pred: ^bb0
      %cst1_si32 = spirv.Constant 1 : si32
      spirv.Store "Function" %0, %cst1_si32 : si32
      spirv.Branch ^bb3
    ^bb3:  // 3 preds: ^bb0, ^bb0, ^bb2
      %cst2_si32 = spirv.Constant 2 : si32
      spirv.Store "Function" %0, %cst2_si32 : si32
      spirv.Branch ^bb4
    ^bb4:  // 2 preds: ^bb1, ^bb3
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[sel(0, 1, 0)]), expected);
}

#[test]
fn loop_in_selection_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    %true = spirv.Constant true
    spirv.BranchConditional %true, ^bb3, ^bb4
  ^bb2:  // 2 preds: ^bb4, ^bb5
    spirv.Return
  ^bb3:  // 2 preds: ^bb1, ^bb6
    spirv.Branch ^bb7
  ^bb4:  // pred: ^bb1
    %cst2_si32 = spirv.Constant 2 : si32
    spirv.Store "Function" %0, %cst2_si32 : si32
    spirv.Branch ^bb2
  ^bb5:  // pred: ^bb7
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Store "Function" %0, %cst1_si32 : si32
    spirv.Branch ^bb2
  ^bb6:  // pred: ^bb7
    spirv.Branch ^bb3
  ^bb7:  // pred: ^bb3
    %false = spirv.Constant false
    spirv.BranchConditional %false, ^bb6, ^bb5
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    %true = spirv.Constant true
    spirv.Branch ^bb2
  ^bb2:  // pred: ^bb1
    spirv.mlir.selection {
      spirv.BranchConditional %true, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      spirv.mlir.loop {
        spirv.Branch ^bb1
      ^bb1:  // 2 preds: ^bb0, ^bb3
        spirv.Branch ^bb2
      ^bb2:  // pred: ^bb1
        %false = spirv.Constant false
        spirv.BranchConditional %false, ^bb3, ^bb4
      ^bb3:  // pred: ^bb2
        spirv.Branch ^bb1
      ^bb4:  // pred: ^bb2
        spirv.mlir.merge
      }
      %cst1_si32 = spirv.Constant 1 : si32
      spirv.Store "Function" %0, %cst1_si32 : si32
      spirv.Branch ^bb3
    ^bb2:  // pred: ^bb0
      %cst2_si32 = spirv.Constant 2 : si32
      spirv.Store "Function" %0, %cst2_si32 : si32
      spirv.Branch ^bb3
    ^bb3:  // 2 preds: ^bb1, ^bb2
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[sel(1, 2, 0), lp(3, 5, 6, 0)]), expected);
}

#[test]
fn selection_in_continue_block_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // 2 preds: ^bb0, ^bb2
    spirv.Branch ^bb4
  ^bb2:  // 2 preds: ^bb6, ^bb7
    %cst1_si32 = spirv.Constant 1 : si32
    %2 = spirv.IAdd %1, %cst1_si32 : si32
    spirv.Branch ^bb1(%2 : si32)
  ^bb3:  // pred: ^bb4
    spirv.Return
  ^bb4:  // pred: ^bb1
    %cst10_si32 = spirv.Constant 10 : si32
    %3 = spirv.SLessThan %1, %cst10_si32 : si32
    spirv.BranchConditional %3, ^bb5, ^bb3
  ^bb5:  // pred: ^bb4
    %false = spirv.Constant false
    spirv.BranchConditional %false, ^bb6, ^bb7
  ^bb6:  // pred: ^bb5
    spirv.Branch ^bb2
  ^bb7:  // pred: ^bb5
    %cst1_si32_0 = spirv.Constant 1 : si32
    spirv.Store "Function" %0, %cst1_si32_0 : si32
    spirv.Branch ^bb2
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // pred: ^bb0
    spirv.mlir.loop {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%2: si32):  // 2 preds: ^bb0, ^bb4
      spirv.Branch ^bb2
    ^bb2:  // pred: ^bb1
      %cst10_si32 = spirv.Constant 10 : si32
      %3 = spirv.SLessThan %2, %cst10_si32 : si32
      spirv.BranchConditional %3, ^bb3, ^bb5
    ^bb3:  // pred: ^bb2
      %false = spirv.Constant false
      spirv.Branch ^bb4
    ^bb4:  // pred: ^bb3
      spirv.mlir.selection {
        spirv.BranchConditional %false, ^bb1, ^bb2
      ^bb1:  // pred: ^bb0
        spirv.Branch ^bb3
      ^bb2:  // pred: ^bb0
        %cst1_si32_0 = spirv.Constant 1 : si32
        spirv.Store "Function" %0, %cst1_si32_0 : si32
        spirv.Branch ^bb3
      ^bb3:  // 2 preds: ^bb1, ^bb2
        spirv.mlir.merge
      }
      %cst1_si32 = spirv.Constant 1 : si32
      %4 = spirv.IAdd %2, %cst1_si32 : si32
      spirv.Branch ^bb1(%4 : si32)
    ^bb5:  // pred: ^bb2
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 3, 2, 0), sel(5, 2, 0)]), expected);
}
#[test]
fn break_from_selection_in_loop() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // 2 preds: ^bb0, ^bb2
    spirv.Branch ^bb4
  ^bb2:  // pred: ^bb5
    %cst1_si32 = spirv.Constant 1 : si32
    %2 = spirv.IAdd %1, %cst1_si32 : si32
    spirv.Branch ^bb1(%2 : si32)
  ^bb3:  // pred: ^bb6
    spirv.Return
  ^bb4:  // pred: ^bb1
    %cst10_si32 = spirv.Constant 10 : si32
    %3 = spirv.SLessThan %1, %cst10_si32 : si32
    spirv.BranchConditional %3, ^bb6, ^bb5
  ^bb5:  // pred: ^bb4
    %cst1_si32_0 = spirv.Constant 1 : si32
    spirv.Store "Function" %0, %cst1_si32_0 : si32
    spirv.Branch ^bb2
  ^bb6:  // pred: ^bb4
    spirv.Store "Function" %0, %1 : si32
    spirv.Branch ^bb3
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    // mlir-translate-22: <unknown>:0: error: 'spirv.mlir.selection' op should not have 'spirv.mlir.merge' op outside the merge block
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // pred: ^bb0
    spirv.mlir.loop {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%2: si32):  // 2 preds: ^bb0, ^bb5
      spirv.Branch ^bb2
    ^bb2:  // pred: ^bb1
      %cst10_si32 = spirv.Constant 10 : si32
      %3 = spirv.SLessThan %2, %cst10_si32 : si32
      %false = spirv.Constant false
      spirv.Branch ^bb3
    ^bb3:  // pred: ^bb2
      %4 = spirv.mlir.selection -> i1 {
        spirv.BranchConditional %3, ^bb1, ^bb2(%false : i1)
      ^bb1:  // pred: ^bb0
        spirv.Store "Function" %0, %2 : si32
        %true = spirv.Constant true
        spirv.Branch ^bb2(%true : i1)
      ^bb2(%6: i1):  // 2 preds: ^bb0, ^bb1
        spirv.mlir.merge %6 : i1
      }
      spirv.BranchConditional %4, ^bb6, ^bb4
    ^bb4:  // pred: ^bb3
      %cst1_si32 = spirv.Constant 1 : si32
      spirv.Store "Function" %0, %cst1_si32 : si32
      spirv.Branch ^bb5
    ^bb5:  // pred: ^bb4
      %cst1_si32_0 = spirv.Constant 1 : si32
      %5 = spirv.IAdd %2, %cst1_si32_0 : si32
      spirv.Branch ^bb1(%5 : si32)
    ^bb6:  // pred: ^bb3
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 3, 2, 0), sel(4, 5, 0)]), expected);
}

#[test]
fn continue_and_return_in_selection() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // 2 preds: ^bb0, ^bb2
    %cst10_si32 = spirv.Constant 10 : si32
    %2 = spirv.SLessThan %1, %cst10_si32 : si32
    spirv.BranchConditional %2, ^bb4, ^bb3
  ^bb2:  // 2 preds: ^bb5, ^bb6
    %cst1_si32 = spirv.Constant 1 : si32
    %3 = spirv.IAdd %1, %cst1_si32 : si32
    spirv.Branch ^bb1(%3 : si32)
  ^bb3:  // 2 preds: ^bb1, ^bb8
    spirv.Return
  ^bb4:  // pred: ^bb1
    %4 = spirv.Load "Function" %0 : si32
    spirv.Switch %4 : si32, [
      default: ^bb5,
      1: ^bb6,
      2: ^bb7,
      3: ^bb8
    ]
  ^bb5:  // pred: ^bb4
    %cst1_si32_0 = spirv.Constant 1 : si32
    spirv.Store "Function" %0, %cst1_si32_0 : si32
    spirv.Branch ^bb2
  ^bb6:  // pred: ^bb4
    spirv.Branch ^bb2
  ^bb7:  // pred: ^bb4
    spirv.Return
  ^bb8:  // pred: ^bb4
    spirv.Branch ^bb3
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    // mlir-translate-22: <unknown>:0: error: failed control flow structurization: block has uses outside of the enclosing selection/loop construct
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // pred: ^bb0
    spirv.mlir.loop {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%2: si32):  // 2 preds: ^bb0, ^bb6
      %cst10_si32 = spirv.Constant 10 : si32
      %3 = spirv.SLessThan %2, %cst10_si32 : si32
      spirv.BranchConditional %3, ^bb2, ^bb7
    ^bb2:  // pred: ^bb1
      %4 = spirv.Load "Function" %0 : si32
      %false = spirv.Constant false
      %false_0 = spirv.Constant false
      spirv.Branch ^bb3
    ^bb3:  // pred: ^bb2
      %5:2 = spirv.mlir.selection -> i1, i1 {
        spirv.Switch %4 : si32, [
          default: ^bb4(%false, %false_0 : i1, i1),
          1: ^bb1,
          2: ^bb2,
          3: ^bb3
        ]
      ^bb1:  // pred: ^bb0
        %true = spirv.Constant true
        %false_2 = spirv.Constant false
        spirv.Branch ^bb4(%true, %false_2 : i1, i1)
      ^bb2:  // pred: ^bb0
        spirv.Return
      ^bb3:  // pred: ^bb0
        %false_3 = spirv.Constant false
        %true_4 = spirv.Constant true
        spirv.Branch ^bb4(%false_3, %true_4 : i1, i1)
      ^bb4(%7: i1, %8: i1):  // 3 preds: ^bb0, ^bb1, ^bb3
        spirv.mlir.merge %7, %8 : i1, i1
      }
      spirv.BranchConditional %5#0, ^bb6, ^bb4
    ^bb4:  // pred: ^bb3
      spirv.BranchConditional %5#1, ^bb7, ^bb5
    ^bb5:  // pred: ^bb4
      %cst1_si32 = spirv.Constant 1 : si32
      spirv.Store "Function" %0, %cst1_si32 : si32
      spirv.Branch ^bb6
    ^bb6:  // 2 preds: ^bb3, ^bb5
      %cst1_si32_1 = spirv.Constant 1 : si32
      %6 = spirv.IAdd %2, %cst1_si32_1 : si32
      spirv.Branch ^bb1(%6 : si32)
    ^bb7:  // 2 preds: ^bb1, ^bb4
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 3, 2, 0), sel(4, 5, 0)]), expected);
}

#[test]
fn break_out_of_two_selections() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // 2 preds: ^bb0, ^bb2
    spirv.Branch ^bb4
  ^bb2:  // pred: ^bb5
    %cst1_si32 = spirv.Constant 1 : si32
    %2 = spirv.IAdd %1, %cst1_si32 : si32
    spirv.Branch ^bb1(%2 : si32)
  ^bb3(%3: si32):  // pred: ^bb8
    spirv.Store "Function" %0, %3 : si32
    spirv.Return
  ^bb4:  // pred: ^bb1
    %cst10_si32 = spirv.Constant 10 : si32
    %4 = spirv.SLessThan %1, %cst10_si32 : si32
    spirv.BranchConditional %4, ^bb6, ^bb5
  ^bb5:  // 2 preds: ^bb4, ^bb7
    spirv.Branch ^bb2
  ^bb6:  // pred: ^bb4
    %cst2_si32 = spirv.Constant 2 : si32
    %5 = spirv.IAdd %1, %cst2_si32 : si32
    %false = spirv.Constant false
    spirv.BranchConditional %false, ^bb8, ^bb7
  ^bb7:  // pred: ^bb6
    spirv.Store "Function" %0, %5 : si32
    spirv.Branch ^bb5
  ^bb8:  // pred: ^bb6
    spirv.Branch ^bb3(%5 : si32)
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    // mlir-translate-22: <unknown>:0: error: OpPhi in loop merge block unimplemented
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // pred: ^bb0
    %2 = spirv.mlir.loop -> si32 {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%3: si32):  // 2 preds: ^bb0, ^bb5
      spirv.Branch ^bb2
    ^bb2:  // pred: ^bb1
      %cst10_si32 = spirv.Constant 10 : si32
      %4 = spirv.SLessThan %3, %cst10_si32 : si32
      %false = spirv.Constant false
      %5 = spirv.Undef : si32
      spirv.Branch ^bb3
    ^bb3:  // pred: ^bb2
      %6:2 = spirv.mlir.selection -> i1, si32 {
        spirv.BranchConditional %4, ^bb1, ^bb4(%false, %5 : i1, si32)
      ^bb1:  // pred: ^bb0
        %cst2_si32 = spirv.Constant 2 : si32
        %9 = spirv.IAdd %3, %cst2_si32 : si32
        %false_0 = spirv.Constant false
        %false_1 = spirv.Constant false
        %10 = spirv.Undef : si32
        spirv.Branch ^bb2
      ^bb2:  // pred: ^bb1
        %11:2 = spirv.mlir.selection -> i1, si32 {
          spirv.BranchConditional %false_0, ^bb1, ^bb2(%false_1, %10 : i1, si32)
        ^bb1:  // pred: ^bb0
          %true_3 = spirv.Constant true
          spirv.Branch ^bb2(%true_3, %9 : i1, si32)
        ^bb2(%15: i1, %16: si32):  // 2 preds: ^bb0, ^bb1
          spirv.mlir.merge %15, %16 : i1, si32
        }
        %true = spirv.Constant true
        spirv.BranchConditional %11#0, ^bb4(%true, %11#1 : i1, si32), ^bb3
      ^bb3:  // pred: ^bb2
        spirv.Store "Function" %0, %9 : si32
        %false_2 = spirv.Constant false
        %12 = spirv.Undef : si32
        spirv.Branch ^bb4(%false_2, %12 : i1, si32)
      ^bb4(%13: i1, %14: si32):  // 3 preds: ^bb0, ^bb2, ^bb3
        spirv.mlir.merge %13, %14 : i1, si32
      }
      spirv.BranchConditional %6#0, ^bb6(%6#1 : si32), ^bb4
    ^bb4:  // pred: ^bb3
      spirv.Branch ^bb5
    ^bb5:  // pred: ^bb4
      %cst1_si32 = spirv.Constant 1 : si32
      %7 = spirv.IAdd %3, %cst1_si32 : si32
      spirv.Branch ^bb1(%7 : si32)
    ^bb6(%8: si32):  // pred: ^bb3
      spirv.mlir.merge %8 : si32
    }
    spirv.Store "Function" %0, %2 : si32
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 3, 2, 0), sel(4, 5, 0), sel(6, 7, 0)]), expected);
}

#[test]
fn continue_construct_with_selection_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // 2 preds: ^bb0, ^bb2
    spirv.Branch ^bb5
  ^bb2:  // 2 preds: ^bb4, ^bb6
    %cst1_si32 = spirv.Constant 1 : si32
    %2 = spirv.IAdd %1, %cst1_si32 : si32
    %cst10_si32 = spirv.Constant 10 : si32
    %3 = spirv.SLessThan %2, %cst10_si32 : si32
    spirv.BranchConditional %3, ^bb1(%2 : si32), ^bb3
  ^bb3:  // pred: ^bb2
    spirv.Return
  ^bb4:  // pred: ^bb5
    %cst10_si32_0 = spirv.Constant 10 : si32
    %4 = spirv.SLessThan %1, %cst10_si32_0 : si32
    spirv.BranchConditional %4, ^bb6, ^bb2
  ^bb5:  // pred: ^bb1
    spirv.Store "Function" %0, %1 : si32
    spirv.Branch ^bb4
  ^bb6:  // pred: ^bb4
    %cst3_si32 = spirv.Constant 3 : si32
    spirv.Store "Function" %0, %cst3_si32 : si32
    spirv.Branch ^bb2
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // pred: ^bb0
    spirv.mlir.loop {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%2: si32):  // 2 preds: ^bb0, ^bb4
      spirv.Branch ^bb2
    ^bb2:  // pred: ^bb1
      spirv.Store "Function" %0, %2 : si32
      spirv.Branch ^bb3
    ^bb3:  // pred: ^bb2
      %cst10_si32 = spirv.Constant 10 : si32
      %3 = spirv.SLessThan %2, %cst10_si32 : si32
      spirv.Branch ^bb4
    ^bb4:  // pred: ^bb3
      spirv.mlir.selection {
        spirv.BranchConditional %3, ^bb1, ^bb2
      ^bb1:  // pred: ^bb0
        %cst3_si32 = spirv.Constant 3 : si32
        spirv.Store "Function" %0, %cst3_si32 : si32
        spirv.Branch ^bb2
      ^bb2:  // 2 preds: ^bb0, ^bb1
        spirv.mlir.merge
      }
      %cst1_si32 = spirv.Constant 1 : si32
      %4 = spirv.IAdd %2, %cst1_si32 : si32
      %cst10_si32_0 = spirv.Constant 10 : si32
      %5 = spirv.SLessThan %4, %cst10_si32_0 : si32
      spirv.BranchConditional %5, ^bb1(%4 : si32), ^bb5
    ^bb5:  // pred: ^bb4
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 3, 4, 0), sel(4, 2, 0)]), expected);
}

#[test]
fn single_block_loop() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // 2 preds: ^bb0, ^bb1
    %cst1_si32 = spirv.Constant 1 : si32
    %2 = spirv.IAdd %1, %cst1_si32 : si32
    %cst10_si32 = spirv.Constant 10 : si32
    %3 = spirv.SLessThan %2, %cst10_si32 : si32
    spirv.BranchConditional %3, ^bb1(%2 : si32), ^bb2
  ^bb2:  // pred: ^bb1
    spirv.Store "Function" %0, %2 : si32
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    // mlir-translate-22: <unknown>:0: error: 'spirv.mlir.loop' op requires a loop continue block branching to the loop header block
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // pred: ^bb0
    %2 = spirv.mlir.loop -> si32 {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%3: si32):  // 2 preds: ^bb0, ^bb2
      %cst1_si32 = spirv.Constant 1 : si32
      %4 = spirv.IAdd %3, %cst1_si32 : si32
      %cst10_si32 = spirv.Constant 10 : si32
      %5 = spirv.SLessThan %4, %cst10_si32 : si32
      spirv.BranchConditional %5, ^bb2(%4 : si32), ^bb3
    ^bb2(%6: si32):  // pred: ^bb1
      spirv.Branch ^bb1(%6 : si32)
    ^bb3:  // pred: ^bb1
      spirv.mlir.merge %4 : si32
    }
    spirv.Store "Function" %0, %2 : si32
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 2, 1, 0)]), expected);
}

#[test]
fn unreachable_continue_target() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    spirv.Branch ^bb1
  ^bb1:  // 2 preds: ^bb0, ^bb3
    spirv.Branch ^bb4
  ^bb2:  // pred: ^bb7
    spirv.Return
  ^bb3:  // no predecessors
    spirv.Branch ^bb1
  ^bb4:  // pred: ^bb1
    %true = spirv.Constant true
    spirv.BranchConditional %true, ^bb6, ^bb7
  ^bb5:  // no predecessors
    spirv.Unreachable
  ^bb6:  // pred: ^bb4
    spirv.Return
  ^bb7:  // pred: ^bb4
    spirv.Branch ^bb2
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    // mlir-translate-22: <unknown>:0: error: reference to block defined in another region
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    spirv.mlir.loop {
      spirv.Branch ^bb1
    ^bb1:  // 2 preds: ^bb0, ^bb5
      spirv.Branch ^bb2
    ^bb2:  // pred: ^bb1
      %true = spirv.Constant true
      spirv.Branch ^bb3
    ^bb3:  // pred: ^bb2
      %1 = spirv.mlir.selection -> i1 {
        spirv.BranchConditional %true, ^bb1, ^bb2
      ^bb1:  // pred: ^bb0
        spirv.Return
      ^bb2:  // pred: ^bb0
        %true_0 = spirv.Constant true
        spirv.Branch ^bb3(%true_0 : i1)
      ^bb3(%2: i1):  // pred: ^bb2
        spirv.mlir.merge %2 : i1
      }
      spirv.BranchConditional %1, ^bb6, ^bb4
    ^bb4:  // pred: ^bb3
      spirv.Unreachable
    ^bb5:  // no predecessors
      spirv.Branch ^bb1
    ^bb6:  // pred: ^bb3
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 2, 3, 0), sel(4, 5, 0)]), expected);
}

#[test]
fn selection_merge_is_loop_header() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %true = spirv.Constant true
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.BranchConditional %true, ^bb2, ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // 3 preds: ^bb0, ^bb2, ^bb3
    %cst10_si32 = spirv.Constant 10 : si32
    %2 = spirv.SLessThan %1, %cst10_si32 : si32
    spirv.BranchConditional %2, ^bb3, ^bb4
  ^bb2:  // pred: ^bb0
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Store "Function" %0, %cst1_si32 : si32
    %cst1_si32_0 = spirv.Constant 1 : si32
    spirv.Branch ^bb1(%cst1_si32_0 : si32)
  ^bb3:  // pred: ^bb1
    %cst1_si32_1 = spirv.Constant 1 : si32
    %3 = spirv.IAdd %1, %cst1_si32_1 : si32
    spirv.Branch ^bb1(%3 : si32)
  ^bb4:  // pred: ^bb1
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    // mlir-translate-22 crashes (stack dump) on this input.
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %true = spirv.Constant true
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    %1 = spirv.mlir.selection -> si32 {
      spirv.BranchConditional %true, ^bb1, ^bb2(%cst0_si32 : si32)
    ^bb1:  // pred: ^bb0
      %cst1_si32 = spirv.Constant 1 : si32
      spirv.Store "Function" %0, %cst1_si32 : si32
      %cst1_si32_0 = spirv.Constant 1 : si32
      spirv.Branch ^bb2(%cst1_si32_0 : si32)
    ^bb2(%2: si32):  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge %2 : si32
    }
    spirv.mlir.loop {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%2: si32):  // 2 preds: ^bb0, ^bb2
      %cst10_si32 = spirv.Constant 10 : si32
      %3 = spirv.SLessThan %2, %cst10_si32 : si32
      spirv.BranchConditional %3, ^bb2, ^bb3
    ^bb2:  // pred: ^bb1
      %cst1_si32 = spirv.Constant 1 : si32
      %4 = spirv.IAdd %2, %cst1_si32 : si32
      spirv.Branch ^bb1(%4 : si32)
    ^bb3:  // pred: ^bb1
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[sel(0, 1, 0), lp(1, 4, 3, 0)]), expected);
}

#[test]
fn loop_merge_phi() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // 2 preds: ^bb0, ^bb2
    spirv.Branch ^bb4
  ^bb2:  // pred: ^bb4
    %cst1_si32 = spirv.Constant 1 : si32
    %2 = spirv.IAdd %1, %cst1_si32 : si32
    spirv.Branch ^bb1(%2 : si32)
  ^bb3(%3: si32):  // pred: ^bb4
    spirv.Store "Function" %0, %3 : si32
    spirv.Return
  ^bb4:  // pred: ^bb1
    %cst10_si32 = spirv.Constant 10 : si32
    %4 = spirv.SLessThan %1, %cst10_si32 : si32
    spirv.BranchConditional %4, ^bb2, ^bb3(%1 : si32)
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    // mlir-translate-22: <unknown>:0: error: OpPhi in loop merge block unimplemented
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // pred: ^bb0
    %2 = spirv.mlir.loop -> si32 {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%3: si32):  // 2 preds: ^bb0, ^bb3
      spirv.Branch ^bb2
    ^bb2:  // pred: ^bb1
      %cst10_si32 = spirv.Constant 10 : si32
      %4 = spirv.SLessThan %3, %cst10_si32 : si32
      spirv.BranchConditional %4, ^bb3, ^bb4(%3 : si32)
    ^bb3:  // pred: ^bb2
      %cst1_si32 = spirv.Constant 1 : si32
      %5 = spirv.IAdd %3, %cst1_si32 : si32
      spirv.Branch ^bb1(%5 : si32)
    ^bb4(%6: si32):  // pred: ^bb2
      spirv.mlir.merge %6 : si32
    }
    spirv.Store "Function" %0, %2 : si32
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 3, 2, 0)]), expected);
}

#[test]
fn nested_loops_with_break_and_continue() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // 2 preds: ^bb0, ^bb2
    %cst10_si32 = spirv.Constant 10 : si32
    %2 = spirv.SLessThan %1, %cst10_si32 : si32
    %cst0_si32_0 = spirv.Constant 0 : si32
    spirv.BranchConditional %2, ^bb4(%cst0_si32_0 : si32), ^bb3
  ^bb2:  // pred: ^bb6
    %cst1_si32 = spirv.Constant 1 : si32
    %3 = spirv.IAdd %1, %cst1_si32 : si32
    spirv.Branch ^bb1(%3 : si32)
  ^bb3:  // pred: ^bb1
    spirv.Return
  ^bb4(%4: si32):  // 2 preds: ^bb1, ^bb5
    %5 = spirv.SLessThan %4, %1 : si32
    spirv.BranchConditional %5, ^bb7, ^bb6
  ^bb5:  // 2 preds: ^bb10, ^bb11
    %cst1_si32_1 = spirv.Constant 1 : si32
    %6 = spirv.IAdd %4, %cst1_si32_1 : si32
    spirv.Branch ^bb4(%6 : si32)
  ^bb6:  // 2 preds: ^bb4, ^bb9
    spirv.Branch ^bb2
  ^bb7:  // pred: ^bb4
    %cst3_si32 = spirv.Constant 3 : si32
    %7 = spirv.IEqual %4, %cst3_si32 : si32
    spirv.BranchConditional %7, ^bb9, ^bb8
  ^bb8:  // pred: ^bb7
    %cst2_si32 = spirv.Constant 2 : si32
    %8 = spirv.IEqual %4, %cst2_si32 : si32
    spirv.BranchConditional %8, ^bb11, ^bb10
  ^bb9:  // pred: ^bb7
    spirv.Branch ^bb6
  ^bb10:  // pred: ^bb8
    spirv.Store "Function" %0, %4 : si32
    spirv.Branch ^bb5
  ^bb11:  // pred: ^bb8
    spirv.Branch ^bb5
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    // mlir-translate-22: <unknown>:0: error: failed control flow structurization: block has uses outside of the enclosing selection/loop construct
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // pred: ^bb0
    spirv.mlir.loop {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%2: si32):  // 2 preds: ^bb0, ^bb3
      %cst10_si32 = spirv.Constant 10 : si32
      %3 = spirv.SLessThan %2, %cst10_si32 : si32
      %cst0_si32_0 = spirv.Constant 0 : si32
      spirv.BranchConditional %3, ^bb2(%cst0_si32_0 : si32), ^bb4
    ^bb2(%4: si32):  // pred: ^bb1
      spirv.mlir.loop {
        spirv.Branch ^bb1(%4 : si32)
      ^bb1(%6: si32):  // 2 preds: ^bb0, ^bb7
        %7 = spirv.SLessThan %6, %2 : si32
        spirv.BranchConditional %7, ^bb2, ^bb8
      ^bb2:  // pred: ^bb1
        %cst3_si32 = spirv.Constant 3 : si32
        %8 = spirv.IEqual %6, %cst3_si32 : si32
        %false = spirv.Constant false
        spirv.Branch ^bb3
      ^bb3:  // pred: ^bb2
        %9 = spirv.mlir.selection -> i1 {
          spirv.BranchConditional %8, ^bb1, ^bb2(%false : i1)
        ^bb1:  // pred: ^bb0
          %true = spirv.Constant true
          spirv.Branch ^bb2(%true : i1)
        ^bb2(%13: i1):  // 2 preds: ^bb0, ^bb1
          spirv.mlir.merge %13 : i1
        }
        spirv.BranchConditional %9, ^bb8, ^bb4
      ^bb4:  // pred: ^bb3
        %cst2_si32 = spirv.Constant 2 : si32
        %10 = spirv.IEqual %6, %cst2_si32 : si32
        %false_1 = spirv.Constant false
        spirv.Branch ^bb5
      ^bb5:  // pred: ^bb4
        %11 = spirv.mlir.selection -> i1 {
          spirv.BranchConditional %10, ^bb1, ^bb2(%false_1 : i1)
        ^bb1:  // pred: ^bb0
          %true = spirv.Constant true
          spirv.Branch ^bb2(%true : i1)
        ^bb2(%13: i1):  // 2 preds: ^bb0, ^bb1
          spirv.mlir.merge %13 : i1
        }
        spirv.BranchConditional %11, ^bb7, ^bb6
      ^bb6:  // pred: ^bb5
        spirv.Store "Function" %0, %6 : si32
        spirv.Branch ^bb7
      ^bb7:  // 2 preds: ^bb5, ^bb6
        %cst1_si32_2 = spirv.Constant 1 : si32
        %12 = spirv.IAdd %6, %cst1_si32_2 : si32
        spirv.Branch ^bb1(%12 : si32)
      ^bb8:  // 2 preds: ^bb1, ^bb3
        spirv.mlir.merge
      }
      spirv.Branch ^bb3
    ^bb3:  // pred: ^bb2
      %cst1_si32 = spirv.Constant 1 : si32
      %5 = spirv.IAdd %2, %cst1_si32 : si32
      spirv.Branch ^bb1(%5 : si32)
    ^bb4:  // pred: ^bb1
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 3, 2, 0), lp(4, 6, 5, 0), sel(7, 8, 0), sel(8, 10, 0)]), expected);
}

#[test]
fn dead_blocks() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %true = spirv.Constant true
    spirv.BranchConditional %true, ^bb2, ^bb1
  ^bb1:  // 3 preds: ^bb0, ^bb2, ^bb3
    spirv.Return
  ^bb2:  // 2 preds: ^bb0, ^bb4
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Store "Function" %0, %cst1_si32 : si32
    spirv.Branch ^bb1
  ^bb3:  // no predecessors
    %cst2_si32 = spirv.Constant 2 : si32
    spirv.Store "Function" %0, %cst2_si32 : si32
    spirv.Branch ^bb1
  ^bb4:  // no predecessors
    spirv.Branch ^bb2
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    // mlir-translate-22: <unknown>:0: error: failed control flow structurization: block has uses outside of the enclosing selection/loop construct
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %true = spirv.Constant true
    spirv.Branch ^bb1
  ^bb1:  // 2 preds: ^bb0, ^bb2
    spirv.mlir.selection {
      spirv.BranchConditional %true, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      %cst1_si32 = spirv.Constant 1 : si32
      spirv.Store "Function" %0, %cst1_si32 : si32
      spirv.Branch ^bb2
    ^bb2:  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge
    }
    spirv.Return
  ^bb2:  // no predecessors
    %cst2_si32 = spirv.Constant 2 : si32
    spirv.Store "Function" %0, %cst2_si32 : si32
    spirv.Branch ^bb1
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[sel(0, 1, 0)]), expected);
}

#[test]
fn phi_and_escaping_value_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %1 = spirv.Load "Function" %0 : si32
    spirv.Switch %1 : si32, [
      default: ^bb2]
  ^bb1(%2: si32):  // pred: ^bb3
    %3 = spirv.IAdd %5, %2 : si32
    %4 = spirv.IAdd %3, %6 : si32
    spirv.Return
  ^bb2:  // pred: ^bb0
    %cst2_si32 = spirv.Constant 2 : si32
    %5 = spirv.IAdd %1, %cst2_si32 : si32
    %true = spirv.Constant true
    spirv.BranchConditional %true, ^bb4, ^bb3
  ^bb3:  // 2 preds: ^bb2, ^bb4
    %cst3_si32 = spirv.Constant 3 : si32
    %6 = spirv.IMul %5, %cst3_si32 : si32
    spirv.Branch ^bb1(%6 : si32)
  ^bb4:  // pred: ^bb2
    spirv.Branch ^bb3
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %1 = spirv.Load "Function" %0 : si32
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    %2:3 = spirv.mlir.selection -> si32, si32, si32 {
      spirv.Switch %1 : si32, [
        default: ^bb1]
    ^bb1:  // pred: ^bb0
      %cst2_si32 = spirv.Constant 2 : si32
      %5 = spirv.IAdd %1, %cst2_si32 : si32
      %true = spirv.Constant true
      spirv.Branch ^bb2
    ^bb2:  // pred: ^bb1
      spirv.mlir.selection {
        spirv.BranchConditional %true, ^bb1, ^bb2
      ^bb1:  // pred: ^bb0
        spirv.Branch ^bb2
      ^bb2:  // 2 preds: ^bb0, ^bb1
        spirv.mlir.merge
      }
      %cst3_si32 = spirv.Constant 3 : si32
      %6 = spirv.IMul %5, %cst3_si32 : si32
      spirv.Branch ^bb3(%6 : si32)
    ^bb3(%7: si32):  // pred: ^bb2
      spirv.mlir.merge %7, %5, %6 : si32, si32, si32
    }
    %3 = spirv.IAdd %2#1, %2#0 : si32
    %4 = spirv.IAdd %3, %2#2 : si32
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[sel(0, 1, 0), sel(2, 3, 0)]), expected);
}

#[test]
fn unreachable_merge_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    %true = spirv.Constant true
    spirv.BranchConditional %true, ^bb3, ^bb4
  ^bb2:  // no predecessors
    spirv.Unreachable
  ^bb3:  // pred: ^bb1
    spirv.Return
  ^bb4:  // pred: ^bb1
    spirv.Unreachable
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    %true = spirv.Constant true
    spirv.Branch ^bb2
  ^bb2:  // pred: ^bb1
    spirv.mlir.selection {
      spirv.BranchConditional %true, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      spirv.Return
    ^bb2:  // pred: ^bb0
      spirv.Unreachable
    ^bb3:  // no predecessors
      spirv.mlir.merge
    }
    spirv.Unreachable
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[sel(1, 2, 0)]), expected);
}

#[test]
fn loop_then_loop() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // 2 preds: ^bb0, ^bb2
    %cst10_si32 = spirv.Constant 10 : si32
    %2 = spirv.SLessThan %1, %cst10_si32 : si32
    spirv.BranchConditional %2, ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
    %cst1_si32 = spirv.Constant 1 : si32
    %3 = spirv.IAdd %1, %cst1_si32 : si32
    spirv.Branch ^bb1(%3 : si32)
  ^bb3:  // 2 preds: ^bb1, ^bb5
    %4 = spirv.Load "Function" %0 : si32
    %cst3_si32 = spirv.Constant 3 : si32
    %5 = spirv.SLessThan %4, %cst3_si32 : si32
    spirv.BranchConditional %5, ^bb5, ^bb4
  ^bb4:  // pred: ^bb3
    spirv.Return
  ^bb5:  // pred: ^bb3
    %6 = spirv.IAdd %4, %1 : si32
    spirv.Store "Function" %0, %6 : si32
    spirv.Branch ^bb3
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    // mlir-translate-22: <unknown>:0: error: branch has 0 operands for successor #0, but target block has 1
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // pred: ^bb0
    %2 = spirv.mlir.loop -> si32 {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%3: si32):  // 2 preds: ^bb0, ^bb2
      %cst10_si32 = spirv.Constant 10 : si32
      %4 = spirv.SLessThan %3, %cst10_si32 : si32
      spirv.BranchConditional %4, ^bb2, ^bb3
    ^bb2:  // pred: ^bb1
      %cst1_si32 = spirv.Constant 1 : si32
      %5 = spirv.IAdd %3, %cst1_si32 : si32
      spirv.Branch ^bb1(%5 : si32)
    ^bb3:  // pred: ^bb1
      spirv.mlir.merge %3 : si32
    }
    spirv.mlir.loop {
      spirv.Branch ^bb1
    ^bb1:  // 2 preds: ^bb0, ^bb2
      %3 = spirv.Load "Function" %0 : si32
      %cst3_si32 = spirv.Constant 3 : si32
      %4 = spirv.SLessThan %3, %cst3_si32 : si32
      spirv.BranchConditional %4, ^bb2, ^bb3
    ^bb2:  // pred: ^bb1
      %5 = spirv.IAdd %3, %2 : si32
      spirv.Store "Function" %0, %5 : si32
      spirv.Branch ^bb1
    ^bb3:  // pred: ^bb1
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 3, 2, 0), lp(3, 4, 5, 0)]), expected);
}

#[test]
fn loop_merge_is_loop_header() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // 2 preds: ^bb0, ^bb2
    %cst10_si32 = spirv.Constant 10 : si32
    %2 = spirv.SLessThan %1, %cst10_si32 : si32
    spirv.BranchConditional %2, ^bb2, ^bb3(%1 : si32)
  ^bb2:  // pred: ^bb1
    %cst1_si32 = spirv.Constant 1 : si32
    %3 = spirv.IAdd %1, %cst1_si32 : si32
    spirv.Branch ^bb1(%3 : si32)
  ^bb3(%4: si32):  // 2 preds: ^bb1, ^bb4
    %cst3_si32 = spirv.Constant 3 : si32
    %5 = spirv.SLessThan %4, %cst3_si32 : si32
    spirv.BranchConditional %5, ^bb4, ^bb5
  ^bb4:  // pred: ^bb3
    %cst2_si32 = spirv.Constant 2 : si32
    %6 = spirv.IAdd %4, %cst2_si32 : si32
    spirv.Branch ^bb3(%6 : si32)
  ^bb5:  // pred: ^bb3
    spirv.Store "Function" %0, %4 : si32
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    // mlir-translate-22: <unknown>:0: error: OpPhi in loop merge block unimplemented
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // pred: ^bb0
    %2 = spirv.mlir.loop -> si32 {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%4: si32):  // 2 preds: ^bb0, ^bb2
      %cst10_si32 = spirv.Constant 10 : si32
      %5 = spirv.SLessThan %4, %cst10_si32 : si32
      spirv.BranchConditional %5, ^bb2, ^bb3(%4 : si32)
    ^bb2:  // pred: ^bb1
      %cst1_si32 = spirv.Constant 1 : si32
      %6 = spirv.IAdd %4, %cst1_si32 : si32
      spirv.Branch ^bb1(%6 : si32)
    ^bb3(%7: si32):  // pred: ^bb1
      spirv.mlir.merge %7 : si32
    }
    %3 = spirv.mlir.loop -> si32 {
      spirv.Branch ^bb1(%2 : si32)
    ^bb1(%4: si32):  // 2 preds: ^bb0, ^bb2
      %cst3_si32 = spirv.Constant 3 : si32
      %5 = spirv.SLessThan %4, %cst3_si32 : si32
      spirv.BranchConditional %5, ^bb2, ^bb3
    ^bb2:  // pred: ^bb1
      %cst2_si32 = spirv.Constant 2 : si32
      %6 = spirv.IAdd %4, %cst2_si32 : si32
      spirv.Branch ^bb1(%6 : si32)
    ^bb3:  // pred: ^bb1
      spirv.mlir.merge %4 : si32
    }
    spirv.Store "Function" %0, %3 : si32
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 3, 2, 0), lp(3, 5, 4, 0)]), expected);
}

/// Invalid since SPIR-V 1.3's rules, but older compilers made an `if`'s merge block
/// the loop's continue target.
#[test]
fn selection_merge_is_continue_target() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // 2 preds: ^bb0, ^bb2
    spirv.Branch ^bb4
  ^bb2:  // 3 preds: ^bb5, ^bb7, ^bb8
    %cst1_si32 = spirv.Constant 1 : si32
    %2 = spirv.IAdd %1, %cst1_si32 : si32
    spirv.Branch ^bb1(%2 : si32)
  ^bb3:  // pred: ^bb4
    spirv.Return
  ^bb4:  // pred: ^bb1
    %cst10_si32 = spirv.Constant 10 : si32
    %3 = spirv.SLessThan %1, %cst10_si32 : si32
    spirv.BranchConditional %3, ^bb5, ^bb3
  ^bb5:  // pred: ^bb4
    %false = spirv.Constant false
    spirv.BranchConditional %false, ^bb2, ^bb6
  ^bb6:  // pred: ^bb5
    %false_0 = spirv.Constant false
    spirv.BranchConditional %false_0, ^bb7, ^bb8
  ^bb7:  // pred: ^bb6
    spirv.Branch ^bb2
  ^bb8:  // pred: ^bb6
    %cst1_si32_1 = spirv.Constant 1 : si32
    spirv.Store "Function" %0, %cst1_si32_1 : si32
    spirv.Branch ^bb2
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    // mlir-translate-22: <unknown>:0: error: failed control flow structurization: block has uses outside of the enclosing selection/loop construct
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1(%cst0_si32 : si32)
  ^bb1(%1: si32):  // pred: ^bb0
    spirv.mlir.loop {
      spirv.Branch ^bb1(%1 : si32)
    ^bb1(%2: si32):  // 2 preds: ^bb0, ^bb7
      spirv.Branch ^bb2
    ^bb2:  // pred: ^bb1
      %cst10_si32 = spirv.Constant 10 : si32
      %3 = spirv.SLessThan %2, %cst10_si32 : si32
      spirv.BranchConditional %3, ^bb3, ^bb8
    ^bb3:  // pred: ^bb2
      %false = spirv.Constant false
      %true = spirv.Constant true
      spirv.Branch ^bb4
    ^bb4:  // pred: ^bb3
      %4 = spirv.mlir.selection -> i1 {
        spirv.BranchConditional %false, ^bb2(%true : i1), ^bb1
      ^bb1:  // pred: ^bb0
        %false_1 = spirv.Constant false
        spirv.Branch ^bb2(%false_1 : i1)
      ^bb2(%6: i1):  // 2 preds: ^bb0, ^bb1
        spirv.mlir.merge %6 : i1
      }
      spirv.BranchConditional %4, ^bb7, ^bb5
    ^bb5:  // pred: ^bb4
      %false_0 = spirv.Constant false
      spirv.Branch ^bb6
    ^bb6:  // pred: ^bb5
      spirv.mlir.selection {
        spirv.BranchConditional %false_0, ^bb1, ^bb2
      ^bb1:  // pred: ^bb0
        spirv.Branch ^bb3
      ^bb2:  // pred: ^bb0
        %cst1_si32_1 = spirv.Constant 1 : si32
        spirv.Store "Function" %0, %cst1_si32_1 : si32
        spirv.Branch ^bb3
      ^bb3:  // 2 preds: ^bb1, ^bb2
        spirv.mlir.merge
      }
      spirv.Branch ^bb7
    ^bb7:  // 2 preds: ^bb4, ^bb6
      %cst1_si32 = spirv.Constant 1 : si32
      %5 = spirv.IAdd %2, %cst1_si32 : si32
      spirv.Branch ^bb1(%5 : si32)
    ^bb8:  // pred: ^bb2
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[lp(1, 3, 2, 0), sel(5, 6, 0), sel(6, 2, 0)]), expected);
}

#[test]
fn header_without_ops_moves_into_region_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %1 = spirv.Load "Function" %0 : si32
    %cst2_si32 = spirv.Constant 2 : si32
    %2 = spirv.SLessThan %1, %cst2_si32 : si32
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    spirv.BranchConditional %2, ^bb3, ^bb2
  ^bb2:  // 2 preds: ^bb1, ^bb3
    spirv.Return
  ^bb3:  // pred: ^bb1
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Store "Function" %0, %cst1_si32 : si32
    spirv.Branch ^bb2
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %1 = spirv.Load "Function" %0 : si32
    %cst2_si32 = spirv.Constant 2 : si32
    %2 = spirv.SLessThan %1, %cst2_si32 : si32
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    spirv.mlir.selection {
      spirv.BranchConditional %2, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      %cst1_si32 = spirv.Constant 1 : si32
      spirv.Store "Function" %0, %cst1_si32 : si32
      spirv.Branch ^bb2
    ^bb2:  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[sel(1, 2, 0)]), expected);
}

#[test]
fn header_with_phi_is_split_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %1 = spirv.Load "Function" %0 : si32
    %cst2_si32 = spirv.Constant 2 : si32
    %2 = spirv.SLessThan %1, %cst2_si32 : si32
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.BranchConditional %2, ^bb2, ^bb1(%cst0_si32 : si32)
  ^bb1(%3: si32):  // 2 preds: ^bb0, ^bb2
    spirv.BranchConditional %2, ^bb4, ^bb3
  ^bb2:  // pred: ^bb0
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Branch ^bb1(%cst1_si32 : si32)
  ^bb3:  // 2 preds: ^bb1, ^bb4
    spirv.Return
  ^bb4:  // pred: ^bb1
    spirv.Store "Function" %0, %3 : si32
    spirv.Branch ^bb3
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %1 = spirv.Load "Function" %0 : si32
    %cst2_si32 = spirv.Constant 2 : si32
    %2 = spirv.SLessThan %1, %cst2_si32 : si32
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    %3 = spirv.mlir.selection -> si32 {
      spirv.BranchConditional %2, ^bb1, ^bb2(%cst0_si32 : si32)
    ^bb1:  // pred: ^bb0
      %cst1_si32 = spirv.Constant 1 : si32
      spirv.Branch ^bb2(%cst1_si32 : si32)
    ^bb2(%4: si32):  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge %4 : si32
    }
    spirv.Branch ^bb2
  ^bb2:  // pred: ^bb1
    spirv.mlir.selection {
      spirv.BranchConditional %2, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      spirv.Store "Function" %0, %3 : si32
      spirv.Branch ^bb2
    ^bb2:  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}"#;
    assert_eq!(structurized(input, &[sel(0, 1, 0), sel(1, 3, 0)]), expected);
}

/// Random structured programs where MLIR rewrites outer constructs before inner ones
/// (the order of its work list), which shows in the order of the region's blocks.
#[test]
fn mlir_rewrite_order_outer_first_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Switch %cst1_si32 : si32, [
      default: ^bb2,
      0: ^bb3,
      1: ^bb2,
      2: ^bb4
    ]
  ^bb1:  // 3 preds: ^bb4, ^bb5, ^bb7
    spirv.Return
  ^bb2:  // 2 preds: ^bb0, ^bb0
    %cst5_si32 = spirv.Constant 5 : si32
    %cst2_si32 = spirv.Constant 2 : si32
    %1 = spirv.SLessThan %cst5_si32, %cst2_si32 : si32
    spirv.BranchConditional %1, ^bb8, ^bb9
  ^bb3:  // pred: ^bb0
    %cst3_si32 = spirv.Constant 3 : si32
    %cst2_si32_0 = spirv.Constant 2 : si32
    %2 = spirv.SLessThan %cst3_si32, %cst2_si32_0 : si32
    spirv.BranchConditional %2, ^bb6, ^bb5
  ^bb4:  // pred: ^bb0
    spirv.Branch ^bb1
  ^bb5:  // pred: ^bb3
    spirv.Branch ^bb1
  ^bb6:  // pred: ^bb3
    spirv.Kill
  ^bb7(%3: si32):  // 2 preds: ^bb9, ^bb10
    spirv.Branch ^bb1
  ^bb8:  // pred: ^bb2
    %cst0_si32 = spirv.Constant 0 : si32
    %cst3_si32_1 = spirv.Constant 3 : si32
    %4 = spirv.SLessThan %cst0_si32, %cst3_si32_1 : si32
    spirv.BranchConditional %4, ^bb11, ^bb12
  ^bb9:  // pred: ^bb2
    %cst4_si32 = spirv.Constant 4 : si32
    spirv.Branch ^bb7(%cst4_si32 : si32)
  ^bb10(%5: si32):  // 2 preds: ^bb12, ^bb19
    spirv.Branch ^bb7(%5 : si32)
  ^bb11:  // pred: ^bb8
    %cst0_si32_2 = spirv.Constant 0 : si32
    %cst5_si32_3 = spirv.Constant 5 : si32
    %6 = spirv.SLessThan %cst0_si32_2, %cst5_si32_3 : si32
    spirv.BranchConditional %6, ^bb14, ^bb15
  ^bb12:  // pred: ^bb8
    %cst5_si32_4 = spirv.Constant 5 : si32
    %cst4_si32_5 = spirv.Constant 4 : si32
    %7 = spirv.IAdd %cst5_si32_4, %cst4_si32_5 : si32
    spirv.Store "Function" %0, %7 : si32
    spirv.Branch ^bb10(%7 : si32)
  ^bb13(%8: si32):  // 2 preds: ^bb14, ^bb15
    spirv.Switch %8 : si32, [
      default: ^bb17,
      0: ^bb17,
      1: ^bb18
    ]
  ^bb14:  // pred: ^bb11
    %cst3_si32_6 = spirv.Constant 3 : si32
    %cst1_si32_7 = spirv.Constant 1 : si32
    %9 = spirv.IAdd %cst3_si32_6, %cst1_si32_7 : si32
    spirv.Store "Function" %0, %9 : si32
    %cst2_si32_8 = spirv.Constant 2 : si32
    %10 = spirv.IAdd %cst2_si32_8, %9 : si32
    spirv.Store "Function" %0, %10 : si32
    spirv.Branch ^bb13(%10 : si32)
  ^bb15:  // pred: ^bb11
    %cst3_si32_9 = spirv.Constant 3 : si32
    %cst4_si32_10 = spirv.Constant 4 : si32
    %11 = spirv.IAdd %cst3_si32_9, %cst4_si32_10 : si32
    spirv.Store "Function" %0, %11 : si32
    spirv.Branch ^bb13(%11 : si32)
  ^bb16:  // pred: ^bb18
    %cst0_si32_11 = spirv.Constant 0 : si32
    %12 = spirv.SLessThan %8, %cst0_si32_11 : si32
    spirv.BranchConditional %12, ^bb20, ^bb19
  ^bb17:  // 2 preds: ^bb13, ^bb13
    %13 = spirv.IAdd %8, %8 : si32
    spirv.Store "Function" %0, %13 : si32
    %14 = spirv.IAdd %8, %8 : si32
    spirv.Store "Function" %0, %14 : si32
    %15 = spirv.IAdd %14, %14 : si32
    spirv.Store "Function" %0, %15 : si32
    %16 = spirv.IAdd %14, %14 : si32
    spirv.Store "Function" %0, %16 : si32
    spirv.Branch ^bb18
  ^bb18:  // 2 preds: ^bb13, ^bb17
    %cst4_si32_12 = spirv.Constant 4 : si32
    %cst4_si32_13 = spirv.Constant 4 : si32
    %17 = spirv.IAdd %cst4_si32_12, %cst4_si32_13 : si32
    spirv.Store "Function" %0, %17 : si32
    spirv.Branch ^bb16
  ^bb19:  // pred: ^bb16
    %cst5_si32_14 = spirv.Constant 5 : si32
    %cst5_si32_15 = spirv.Constant 5 : si32
    %18 = spirv.IAdd %cst5_si32_14, %cst5_si32_15 : si32
    spirv.Store "Function" %0, %18 : si32
    spirv.Branch ^bb10(%18 : si32)
  ^bb20:  // pred: ^bb16
    spirv.Return
  }
  spirv.EntryPoint "Fragment" @main
  spirv.ExecutionMode @main "OriginUpperLeft"
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    spirv.mlir.selection {
      spirv.Switch %cst1_si32 : si32, [
        default: ^bb1,
        0: ^bb2,
        1: ^bb1,
        2: ^bb3
      ]
    ^bb1:  // 2 preds: ^bb0, ^bb0
      %cst5_si32 = spirv.Constant 5 : si32
      %cst2_si32 = spirv.Constant 2 : si32
      %1 = spirv.SLessThan %cst5_si32, %cst2_si32 : si32
      spirv.Branch ^bb5
    ^bb2:  // pred: ^bb0
      %cst3_si32 = spirv.Constant 3 : si32
      %cst2_si32_0 = spirv.Constant 2 : si32
      %2 = spirv.SLessThan %cst3_si32, %cst2_si32_0 : si32
      spirv.Branch ^bb4
    ^bb3:  // pred: ^bb0
      spirv.Branch ^bb6
    ^bb4:  // pred: ^bb2
      spirv.mlir.selection {
        spirv.BranchConditional %2, ^bb1, ^bb2
      ^bb1:  // pred: ^bb0
        spirv.Kill
      ^bb2:  // pred: ^bb0
        spirv.mlir.merge
      }
      spirv.Branch ^bb6
    ^bb5:  // pred: ^bb1
      %3 = spirv.mlir.selection -> si32 {
        spirv.BranchConditional %1, ^bb1, ^bb2
      ^bb1:  // pred: ^bb0
        %cst0_si32 = spirv.Constant 0 : si32
        %cst3_si32_1 = spirv.Constant 3 : si32
        %4 = spirv.SLessThan %cst0_si32, %cst3_si32_1 : si32
        spirv.Branch ^bb3
      ^bb2:  // pred: ^bb0
        %cst4_si32 = spirv.Constant 4 : si32
        spirv.Branch ^bb4(%cst4_si32 : si32)
      ^bb3:  // pred: ^bb1
        %5 = spirv.mlir.selection -> si32 {
          spirv.BranchConditional %4, ^bb1, ^bb2
        ^bb1:  // pred: ^bb0
          %cst0_si32_2 = spirv.Constant 0 : si32
          %cst5_si32_3 = spirv.Constant 5 : si32
          %7 = spirv.SLessThan %cst0_si32_2, %cst5_si32_3 : si32
          spirv.Branch ^bb3
        ^bb2:  // pred: ^bb0
          %cst5_si32_4 = spirv.Constant 5 : si32
          %cst4_si32_5 = spirv.Constant 4 : si32
          %8 = spirv.IAdd %cst5_si32_4, %cst4_si32_5 : si32
          spirv.Store "Function" %0, %8 : si32
          spirv.Branch ^bb6(%8 : si32)
        ^bb3:  // pred: ^bb1
          %9 = spirv.mlir.selection -> si32 {
            spirv.BranchConditional %7, ^bb1, ^bb2
          ^bb1:  // pred: ^bb0
            %cst3_si32_9 = spirv.Constant 3 : si32
            %cst1_si32_10 = spirv.Constant 1 : si32
            %13 = spirv.IAdd %cst3_si32_9, %cst1_si32_10 : si32
            spirv.Store "Function" %0, %13 : si32
            %cst2_si32_11 = spirv.Constant 2 : si32
            %14 = spirv.IAdd %cst2_si32_11, %13 : si32
            spirv.Store "Function" %0, %14 : si32
            spirv.Branch ^bb3(%14 : si32)
          ^bb2:  // pred: ^bb0
            %cst3_si32_12 = spirv.Constant 3 : si32
            %cst4_si32_13 = spirv.Constant 4 : si32
            %15 = spirv.IAdd %cst3_si32_12, %cst4_si32_13 : si32
            spirv.Store "Function" %0, %15 : si32
            spirv.Branch ^bb3(%15 : si32)
          ^bb3(%16: si32):  // 2 preds: ^bb1, ^bb2
            spirv.mlir.merge %16 : si32
          }
          spirv.Branch ^bb4
        ^bb4:  // pred: ^bb3
          spirv.mlir.selection {
            spirv.Switch %9 : si32, [
              default: ^bb1,
              0: ^bb1,
              1: ^bb2
            ]
          ^bb1:  // 2 preds: ^bb0, ^bb0
            %13 = spirv.IAdd %9, %9 : si32
            spirv.Store "Function" %0, %13 : si32
            %14 = spirv.IAdd %9, %9 : si32
            spirv.Store "Function" %0, %14 : si32
            %15 = spirv.IAdd %14, %14 : si32
            spirv.Store "Function" %0, %15 : si32
            %16 = spirv.IAdd %14, %14 : si32
            spirv.Store "Function" %0, %16 : si32
            spirv.Branch ^bb2
          ^bb2:  // 2 preds: ^bb0, ^bb1
            %cst4_si32_9 = spirv.Constant 4 : si32
            %cst4_si32_10 = spirv.Constant 4 : si32
            %17 = spirv.IAdd %cst4_si32_9, %cst4_si32_10 : si32
            spirv.Store "Function" %0, %17 : si32
            spirv.Branch ^bb3
          ^bb3:  // pred: ^bb2
            spirv.mlir.merge
          }
          %cst0_si32_6 = spirv.Constant 0 : si32
          %10 = spirv.SLessThan %9, %cst0_si32_6 : si32
          spirv.Branch ^bb5
        ^bb5:  // pred: ^bb4
          spirv.mlir.selection {
            spirv.BranchConditional %10, ^bb1, ^bb2
          ^bb1:  // pred: ^bb0
            spirv.Return
          ^bb2:  // pred: ^bb0
            spirv.mlir.merge
          }
          %cst5_si32_7 = spirv.Constant 5 : si32
          %cst5_si32_8 = spirv.Constant 5 : si32
          %11 = spirv.IAdd %cst5_si32_7, %cst5_si32_8 : si32
          spirv.Store "Function" %0, %11 : si32
          spirv.Branch ^bb6(%11 : si32)
        ^bb6(%12: si32):  // 2 preds: ^bb2, ^bb5
          spirv.mlir.merge %12 : si32
        }
        spirv.Branch ^bb4(%5 : si32)
      ^bb4(%6: si32):  // 2 preds: ^bb2, ^bb3
        spirv.mlir.merge %6 : si32
      }
      spirv.Branch ^bb6
    ^bb6:  // 3 preds: ^bb3, ^bb4, ^bb5
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "Fragment" @main
  spirv.ExecutionMode @main "OriginUpperLeft"
}"#;
    assert_eq!(
        structurized(
            input,
            &[
                sel(0, 1, 0),
                sel(3, 5, 0),
                sel(2, 7, 0),
                sel(8, 10, 0),
                sel(11, 13, 0),
                sel(13, 16, 0),
                sel(16, 19, 0)
            ]
        ),
        expected
    );
}

#[test]
fn mlir_rewrite_order_nested_matches_mlir() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst1_si32 = spirv.Constant 1 : si32
    %cst1_si32_0 = spirv.Constant 1 : si32
    %1 = spirv.IAdd %cst1_si32, %cst1_si32_0 : si32
    spirv.Store "Function" %0, %1 : si32
    %cst5_si32 = spirv.Constant 5 : si32
    %cst4_si32 = spirv.Constant 4 : si32
    %2 = spirv.SLessThan %cst5_si32, %cst4_si32 : si32
    spirv.BranchConditional %2, ^bb2, ^bb1
  ^bb1:  // pred: ^bb0
    spirv.Switch %1 : si32, [
      default: ^bb3,
      0: ^bb4,
      1: ^bb5,
      2: ^bb6
    ]
  ^bb2:  // pred: ^bb0
    spirv.Kill
  ^bb3:  // 2 preds: ^bb1, ^bb6
    spirv.Return
  ^bb4:  // pred: ^bb1
    %cst2_si32 = spirv.Constant 2 : si32
    %3 = spirv.SLessThan %1, %cst2_si32 : si32
    spirv.BranchConditional %3, ^bb8, ^bb9
  ^bb5:  // 2 preds: ^bb1, ^bb7
    spirv.Branch ^bb6
  ^bb6:  // 2 preds: ^bb1, ^bb5
    spirv.Branch ^bb3
  ^bb7(%4: si32):  // 2 preds: ^bb9, ^bb12
    spirv.Branch ^bb5
  ^bb8:  // pred: ^bb4
    %cst1_si32_1 = spirv.Constant 1 : si32
    %cst5_si32_2 = spirv.Constant 5 : si32
    %5 = spirv.SLessThan %cst1_si32_1, %cst5_si32_2 : si32
    spirv.BranchConditional %5, ^bb11, ^bb10
  ^bb9:  // pred: ^bb4
    spirv.Branch ^bb7(%1 : si32)
  ^bb10:  // pred: ^bb8
    %cst4_si32_3 = spirv.Constant 4 : si32
    %6 = spirv.IAdd %cst4_si32_3, %1 : si32
    spirv.Store "Function" %0, %6 : si32
    %cst2_si32_4 = spirv.Constant 2 : si32
    %7 = spirv.SLessThan %1, %cst2_si32_4 : si32
    spirv.BranchConditional %7, ^bb13, ^bb14
  ^bb11:  // pred: ^bb8
    spirv.Return
  ^bb12(%8: si32):  // 2 preds: ^bb15, ^bb18
    spirv.Branch ^bb7(%8 : si32)
  ^bb13:  // pred: ^bb10
    %cst2_si32_5 = spirv.Constant 2 : si32
    %cst0_si32 = spirv.Constant 0 : si32
    %9 = spirv.SLessThan %cst2_si32_5, %cst0_si32 : si32
    spirv.BranchConditional %9, ^bb16, ^bb17
  ^bb14:  // pred: ^bb10
    %cst5_si32_6 = spirv.Constant 5 : si32
    %cst4_si32_7 = spirv.Constant 4 : si32
    %10 = spirv.SLessThan %cst5_si32_6, %cst4_si32_7 : si32
    spirv.BranchConditional %10, ^bb19, ^bb18
  ^bb15(%11: si32):  // 2 preds: ^bb16, ^bb17
    spirv.Branch ^bb12(%11 : si32)
  ^bb16:  // pred: ^bb13
    %cst1_si32_8 = spirv.Constant 1 : si32
    %12 = spirv.IAdd %cst1_si32_8, %1 : si32
    spirv.Store "Function" %0, %12 : si32
    %cst5_si32_9 = spirv.Constant 5 : si32
    %13 = spirv.IAdd %6, %cst5_si32_9 : si32
    spirv.Store "Function" %0, %13 : si32
    %cst1_si32_10 = spirv.Constant 1 : si32
    %14 = spirv.IAdd %cst1_si32_10, %6 : si32
    spirv.Store "Function" %0, %14 : si32
    %cst3_si32 = spirv.Constant 3 : si32
    %15 = spirv.IAdd %6, %cst3_si32 : si32
    spirv.Store "Function" %0, %15 : si32
    spirv.Branch ^bb15(%15 : si32)
  ^bb17:  // pred: ^bb13
    %cst3_si32_11 = spirv.Constant 3 : si32
    %16 = spirv.IAdd %cst3_si32_11, %1 : si32
    spirv.Store "Function" %0, %16 : si32
    %cst0_si32_12 = spirv.Constant 0 : si32
    %17 = spirv.IAdd %cst0_si32_12, %6 : si32
    spirv.Store "Function" %0, %17 : si32
    %18 = spirv.IAdd %1, %6 : si32
    spirv.Store "Function" %0, %18 : si32
    %19 = spirv.IAdd %17, %16 : si32
    spirv.Store "Function" %0, %19 : si32
    spirv.Branch ^bb15(%19 : si32)
  ^bb18:  // pred: ^bb14
    spirv.Branch ^bb12(%1 : si32)
  ^bb19:  // pred: ^bb14
    spirv.Return
  }
  spirv.EntryPoint "Fragment" @main
  spirv.ExecutionMode @main "OriginUpperLeft"
}"#;
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function>
    %cst1_si32 = spirv.Constant 1 : si32
    %cst1_si32_0 = spirv.Constant 1 : si32
    %1 = spirv.IAdd %cst1_si32, %cst1_si32_0 : si32
    spirv.Store "Function" %0, %1 : si32
    %cst5_si32 = spirv.Constant 5 : si32
    %cst4_si32 = spirv.Constant 4 : si32
    %2 = spirv.SLessThan %cst5_si32, %cst4_si32 : si32
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    spirv.mlir.selection {
      spirv.BranchConditional %2, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      spirv.Kill
    ^bb2:  // pred: ^bb0
      spirv.mlir.merge
    }
    spirv.Branch ^bb2
  ^bb2:  // pred: ^bb1
    spirv.mlir.selection {
      spirv.Switch %1 : si32, [
        default: ^bb5,
        0: ^bb1,
        1: ^bb2,
        2: ^bb3
      ]
    ^bb1:  // pred: ^bb0
      %cst2_si32 = spirv.Constant 2 : si32
      %3 = spirv.SLessThan %1, %cst2_si32 : si32
      spirv.Branch ^bb4
    ^bb2:  // 2 preds: ^bb0, ^bb4
      spirv.Branch ^bb3
    ^bb3:  // 2 preds: ^bb0, ^bb2
      spirv.Branch ^bb5
    ^bb4:  // pred: ^bb1
      %4 = spirv.mlir.selection -> si32 {
        spirv.BranchConditional %3, ^bb1, ^bb2
      ^bb1:  // pred: ^bb0
        %cst1_si32_1 = spirv.Constant 1 : si32
        %cst5_si32_2 = spirv.Constant 5 : si32
        %5 = spirv.SLessThan %cst1_si32_1, %cst5_si32_2 : si32
        spirv.Branch ^bb3
      ^bb2:  // pred: ^bb0
        spirv.Branch ^bb5(%1 : si32)
      ^bb3:  // pred: ^bb1
        spirv.mlir.selection {
          spirv.BranchConditional %5, ^bb1, ^bb2
        ^bb1:  // pred: ^bb0
          spirv.Return
        ^bb2:  // pred: ^bb0
          spirv.mlir.merge
        }
        %cst4_si32_3 = spirv.Constant 4 : si32
        %6 = spirv.IAdd %cst4_si32_3, %1 : si32
        spirv.Store "Function" %0, %6 : si32
        %cst2_si32_4 = spirv.Constant 2 : si32
        %7 = spirv.SLessThan %1, %cst2_si32_4 : si32
        spirv.Branch ^bb4
      ^bb4:  // pred: ^bb3
        %8 = spirv.mlir.selection -> si32 {
          spirv.BranchConditional %7, ^bb1, ^bb2
        ^bb1:  // pred: ^bb0
          %cst2_si32_5 = spirv.Constant 2 : si32
          %cst0_si32 = spirv.Constant 0 : si32
          %10 = spirv.SLessThan %cst2_si32_5, %cst0_si32 : si32
          spirv.Branch ^bb4
        ^bb2:  // pred: ^bb0
          %cst5_si32_6 = spirv.Constant 5 : si32
          %cst4_si32_7 = spirv.Constant 4 : si32
          %11 = spirv.SLessThan %cst5_si32_6, %cst4_si32_7 : si32
          spirv.Branch ^bb3
        ^bb3:  // pred: ^bb2
          spirv.mlir.selection {
            spirv.BranchConditional %11, ^bb1, ^bb2
          ^bb1:  // pred: ^bb0
            spirv.Return
          ^bb2:  // pred: ^bb0
            spirv.mlir.merge
          }
          spirv.Branch ^bb5(%1 : si32)
        ^bb4:  // pred: ^bb1
          %12 = spirv.mlir.selection -> si32 {
            spirv.BranchConditional %10, ^bb1, ^bb2
          ^bb1:  // pred: ^bb0
            %cst1_si32_8 = spirv.Constant 1 : si32
            %14 = spirv.IAdd %cst1_si32_8, %1 : si32
            spirv.Store "Function" %0, %14 : si32
            %cst5_si32_9 = spirv.Constant 5 : si32
            %15 = spirv.IAdd %6, %cst5_si32_9 : si32
            spirv.Store "Function" %0, %15 : si32
            %cst1_si32_10 = spirv.Constant 1 : si32
            %16 = spirv.IAdd %cst1_si32_10, %6 : si32
            spirv.Store "Function" %0, %16 : si32
            %cst3_si32 = spirv.Constant 3 : si32
            %17 = spirv.IAdd %6, %cst3_si32 : si32
            spirv.Store "Function" %0, %17 : si32
            spirv.Branch ^bb3(%17 : si32)
          ^bb2:  // pred: ^bb0
            %cst3_si32_11 = spirv.Constant 3 : si32
            %18 = spirv.IAdd %cst3_si32_11, %1 : si32
            spirv.Store "Function" %0, %18 : si32
            %cst0_si32_12 = spirv.Constant 0 : si32
            %19 = spirv.IAdd %cst0_si32_12, %6 : si32
            spirv.Store "Function" %0, %19 : si32
            %20 = spirv.IAdd %1, %6 : si32
            spirv.Store "Function" %0, %20 : si32
            %21 = spirv.IAdd %19, %18 : si32
            spirv.Store "Function" %0, %21 : si32
            spirv.Branch ^bb3(%21 : si32)
          ^bb3(%22: si32):  // 2 preds: ^bb1, ^bb2
            spirv.mlir.merge %22 : si32
          }
          spirv.Branch ^bb5(%12 : si32)
        ^bb5(%13: si32):  // 2 preds: ^bb3, ^bb4
          spirv.mlir.merge %13 : si32
        }
        spirv.Branch ^bb5(%8 : si32)
      ^bb5(%9: si32):  // 2 preds: ^bb2, ^bb4
        spirv.mlir.merge %9 : si32
      }
      spirv.Branch ^bb2
    ^bb5:  // 2 preds: ^bb0, ^bb3
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "Fragment" @main
  spirv.ExecutionMode @main "OriginUpperLeft"
}"#;
    assert_eq!(
        structurized(
            input,
            &[
                sel(0, 1, 0),
                sel(1, 3, 0),
                sel(4, 7, 0),
                sel(8, 10, 0),
                sel(10, 12, 0),
                sel(13, 15, 0),
                sel(14, 18, 0)
            ]
        ),
        expected
    );
}

/// Structurizes prepared real shaders: `STRUCT_CORPUS=dir` holding `N.mlir` (MLIR's
/// plain CFG of a binary) and `N.merges` (lines `function header merge
/// continue-or-dash control`, blocks by index); writes `N.out` (or `N.err`). Run by
/// hand: `cargo test -p spirvkit-translate corpus -- --ignored`.
#[test]
#[ignore]
fn corpus() {
    let Ok(dir) = std::env::var("STRUCT_CORPUS") else { return };
    let Ok(entries) = std::fs::read_dir(&dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "mlir") {
            continue;
        }
        let input = std::fs::read_to_string(&path).unwrap_or_default();
        let merges = std::fs::read_to_string(path.with_extension("merges")).unwrap_or_default();
        let result = std::panic::catch_unwind(|| structurize_module(&input, &merges));
        let (ext, text) = match result {
            Ok(Ok(text)) => ("out", text + "\n"),
            Ok(Err(e)) => ("err", e),
            Err(_) => ("err", "panic".to_string()),
        };
        let _ = std::fs::write(path.with_extension(ext), text);
    }
}

fn structurize_module(input: &str, merges: &str) -> Result<String, String> {
    let (mut ir, top) = spirvkit_ir::parse(input, "t.mlir").map_err(|e| format!("parse: {e:?}"))?;
    let module = crate::test_support::first_op(&ir, top, "spirv.module").ok_or("no spirv.module")?;
    let module_body = ir.op(module).regions[0];
    let module_block = ir.region(module_body).blocks[0];
    let funcs: Vec<OpId> =
        ir.block(module_block).ops.iter().copied().filter(|&op| ir.op(op).name == "spirv.func").collect();
    let mut per_func: Vec<FxHashMap<BlockId, MergeInfo>> = vec![FxHashMap::default(); funcs.len()];
    for line in merges.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let [func, header, merge, cont, control] = f[..] else { continue };
        let func: usize = func.parse().map_err(|_| "bad merges")?;
        let blocks = ir.region(ir.op(funcs[func]).regions[0]).blocks.clone();
        let block = |s: &str| -> Result<BlockId, String> {
            let i: usize = s.parse().map_err(|_| "bad merges")?;
            blocks.get(i).copied().ok_or_else(|| "block index out of range".to_string())
        };
        let control: u32 = control.parse().map_err(|_| "bad merges")?;
        let info = if cont == "-" {
            MergeInfo::Selection { merge: block(merge)?, control }
        } else {
            MergeInfo::Loop {
                merge: block(merge)?,
                continue_target: block(cont)?,
                control,
                parameters: Vec::new(),
            }
        };
        per_func[func].insert(block(header)?, info);
    }
    for (func, headers) in funcs.iter().zip(&per_func) {
        structurize(&mut ir, *func, headers).map_err(|e| format!("structurize: {e} at {:?}", e.block))?;
    }
    if let Some(d) = spirvkit_ir::verify::verify(&ir, top, input).first() {
        return Err(format!("does not verify: {}", d.message));
    }
    Ok(spirvkit_ir::print(&ir, module, PrintOptions::default()).trim_end().to_string())
}

/// A function of `depth` selections nested in one another, then `count` loops in
/// sequence, each with a break out of a nested selection.
fn big_function(depth: usize, count: usize) -> (String, Vec<Merge>) {
    let mut text = String::from(
        "spirv.module Logical GLSL450 {\n spirv.func @f(%c: i1, %n: i32) \"None\" {\n  spirv.Branch ^bb1\n",
    );
    let mut merges = Vec::new();
    // Blocks 1..=depth are headers, depth+1 the innermost body, then the merges from
    // the innermost out.
    for i in 1..=depth {
        let merge = 2 * depth + 2 - i;
        text.push_str(&format!("^bb{i}:\n  spirv.BranchConditional %c, ^bb{}, ^bb{merge}\n", i + 1));
        merges.push(sel(i, merge, 0));
    }
    let mut next = 2 * depth + 2;
    text.push_str(&format!("^bb{}:\n  spirv.Branch ^bb{}\n", depth + 1, depth + 2));
    for i in depth + 2..next {
        text.push_str(&format!("^bb{i}:\n  spirv.Branch ^bb{}\n", i + 1));
    }
    for _ in 0..count {
        // header, body (selection header), break, selection merge, continue, merge.
        let (h, b, brk, sm, ct, m) = (next, next + 1, next + 2, next + 3, next + 4, next + 5);
        text.push_str(&format!(
            "^bb{h}:\n  spirv.Branch ^bb{b}\n^bb{b}:\n  spirv.BranchConditional %c, ^bb{brk}, ^bb{sm}\n\
             ^bb{brk}:\n  spirv.Branch ^bb{m}\n^bb{sm}:\n  spirv.Branch ^bb{ct}\n\
             ^bb{ct}:\n  %x{h} = spirv.IAdd %n, %n : i32\n  spirv.Branch ^bb{h}\n^bb{m}:\n"
        ));
        merges.push(lp(h, m, ct, 0));
        merges.push(sel(b, sm, 0));
        next = m + 1;
        text.push_str(&format!("  spirv.Branch ^bb{next}\n"));
    }
    text.push_str(&format!("^bb{next}:\n  spirv.Return\n }}\n}}\n"));
    (text, merges)
}

#[test]
fn deep_nesting_and_long_functions() {
    let (text, merges) = big_function(400, 1500);
    let out = try_structurize(&text, &merges);
    assert!(out.is_ok(), "{:?}", out.err());
}

/// Random CFGs with random (mostly invalid) merge instructions: structurize never
/// panics, and what it accepts verifies (its own final check).
#[test]
fn random_cfgs_never_panic() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |bound: usize| -> usize {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % bound.max(1) as u64) as usize
    };
    let mut accepted = 0;
    for _ in 0..2000 {
        let n = 2 + next(10);
        let mut text =
            String::from("spirv.module Logical GLSL450 {\n spirv.func @f(%c: i1, %x: i32) \"None\" {\n");
        for b in 0..n {
            if b > 0 {
                text.push_str(&format!("^bb{b}:\n"));
            }
            match next(5) {
                0 => text.push_str("  spirv.Return\n"),
                1 | 2 => text.push_str(&format!("  spirv.Branch ^bb{}\n", 1 + next(n - 1))),
                3 => text.push_str(&format!(
                    "  spirv.BranchConditional %c, ^bb{}, ^bb{}\n",
                    1 + next(n - 1),
                    1 + next(n - 1)
                )),
                _ => text.push_str(&format!(
                    "  spirv.Switch %x : i32, [\n default: ^bb{},\n 1: ^bb{}\n ]\n",
                    1 + next(n - 1),
                    1 + next(n - 1)
                )),
            }
        }
        text.push_str(" }\n}\n");
        let mut merges = Vec::new();
        for h in 0..n {
            match next(4) {
                0 => merges.push(sel(h, next(n), 0)),
                1 => merges.push(lp(h, next(n), next(n), 0)),
                _ => {}
            }
        }
        match try_structurize(&text, &merges) {
            Ok(out) => {
                accepted += 1;
                if let Ok(dir) = std::env::var("STRUCT_DUMP") {
                    let _ = std::fs::write(format!("{dir}/random{accepted}.mlir"), out);
                }
            }
            Err(e) => assert!(!e.starts_with("does not verify"), "{e}\n{text}\n{merges:?}"),
        }
    }
    assert!(accepted > 0);
}

/// A loop around a switch of `cases` cases, every other one breaking out of the loop.
fn big_switch(cases: usize) -> (String, Vec<Merge>) {
    // ^bb1 loop header, ^bb2 switch header, ^bb3.. cases, then switch merge,
    // continue target, loop merge.
    let (header, switch, first) = (1, 2, 3);
    let (switch_merge, cont, loop_merge) = (first + cases, first + cases + 1, first + cases + 2);
    let mut text = String::from(
        "spirv.module Logical GLSL450 {\n spirv.func @f(%c: i1, %x: i32) \"None\" {\n  spirv.Branch ^bb1\n",
    );
    text.push_str(&format!(
        "^bb{header}:\n  spirv.Branch ^bb{switch}\n^bb{switch}:\n  spirv.Switch %x : i32, [\n"
    ));
    text.push_str(&format!("  default: ^bb{switch_merge}"));
    for i in 0..cases {
        text.push_str(&format!(",\n  {i}: ^bb{}", first + i));
    }
    text.push_str("\n  ]\n");
    for i in 0..cases {
        let target = if i % 2 == 0 { switch_merge } else { loop_merge };
        text.push_str(&format!("^bb{}:\n  spirv.Branch ^bb{target}\n", first + i));
    }
    text.push_str(&format!(
        "^bb{switch_merge}:\n  spirv.Branch ^bb{cont}\n^bb{cont}:\n  spirv.BranchConditional %c, ^bb{header}, ^bb{loop_merge}\n\
         ^bb{loop_merge}:\n  spirv.Return\n }}\n}}\n"
    ));
    (text, vec![lp(header, loop_merge, cont, 0), sel(switch, switch_merge, 0)])
}

#[test]
fn big_switch_with_breaks() {
    let (text, merges) = big_switch(3000);
    let out = try_structurize(&text, &merges);
    assert!(out.is_ok(), "{:?}", out.err());
}

#[test]
fn conditional_back_edge_of_a_do_while_loop() {
    // The continue block branches back to the header or out to the merge block, as a
    // do-while loop's does: a region may hold that as it is.
    let input = r#"spirv.module Logical GLSL450 {
  spirv.func @f(%arg0: i32) "None" {
    spirv.Branch ^bb1
  ^bb1:
    spirv.Branch ^bb2
  ^bb2:
    %0 = spirv.SLessThan %arg0, %arg0 : i32
    spirv.BranchConditional %0, ^bb1, ^bb3
  ^bb3:
    spirv.Return
  }
}"#;
    let out = structurized(input, &[lp(1, 3, 2, 0)]);
    assert!(
        out.contains(
            "      spirv.BranchConditional %0, ^bb1, ^bb3\n    ^bb3:  // pred: ^bb2\n      spirv.mlir.merge"
        ),
        "{out}"
    );
}

#[test]
fn back_edge_and_break_from_a_selection_in_the_continue_construct() {
    // The selection's arms leave it for the loop header and for the loop's merge: the
    // selection yields which, and the continue block dispatches on it.
    let input = r#"spirv.module Logical GLSL450 {
  spirv.func @f(%arg0: i32) "None" {
    spirv.Branch ^bb1
  ^bb1:
    spirv.Branch ^bb2
  ^bb2:
    %0 = spirv.SLessThan %arg0, %arg0 : i32
    spirv.BranchConditional %0, ^bb3, ^bb4
  ^bb3:
    spirv.Branch ^bb1
  ^bb4:
    spirv.Branch ^bb5
  ^bb5:
    spirv.Return
  }
}"#;
    let out = structurized(input, &[lp(1, 5, 2, 0), sel(2, 4, 0)]);
    assert!(out.contains("%1 = spirv.mlir.selection -> i1 {"), "{out}");
    assert!(out.contains("      spirv.BranchConditional %1, ^bb1, ^bb3\n"), "{out}");
}

/// A split header's construct op and merge take the location of its
/// OpSelectionMerge (the OpLine before it), the function's entry block or not.
#[test]
fn split_headers_locate_their_construct_at_the_merge_instruction() {
    let asm = r#"OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%file = OpString "a.comp"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%int = OpTypeInt 32 1
%int_1 = OpConstant %int 1
%int_10 = OpConstant %int 10
%ptr = OpTypePointer Function %int
%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr Function
OpLine %file 3 5
%x = OpLoad %int %v
%c = OpSLessThan %bool %x %int_10
OpLine %file 4 7
OpSelectionMerge %m None
OpBranchConditional %c %t %m
%t = OpLabel
OpLine %file 5 9
OpStore %v %int_1
OpBranch %m
%m = OpLabel
OpLine %file 6 3
%y = OpLoad %int %v
%d = OpSLessThan %bool %y %int_1
OpLine %file 7 4
OpSelectionMerge %m2 None
OpBranchConditional %d %t2 %m2
%t2 = OpLabel
OpStore %v %int_10
OpBranch %m2
%m2 = OpLabel
OpNoLine
OpReturn
OpFunctionEnd
"#;
    let target_env = spirvkit_binary::TargetEnv::parse("spv1.0").expect("known target");
    let options = spirvkit_binary::AsmOptions { target_env, preserve_numeric_ids: false };
    let words = spirvkit_binary::assemble(asm, &options).expect("valid assembly");
    let bytes = spirvkit_binary::words_to_bytes(&words, spirvkit_binary::Endian::Little);
    let options = crate::driver::TranslateOptions {
        mode: crate::driver::Mode::Deserialize,
        debug_info: true,
        ..crate::driver::TranslateOptions::default()
    };
    let result = crate::driver::run(&bytes, "loc.spv", &options);
    assert!(result.success, "{}", result.diagnostics_text);
    // mlir-translate-22 --deserialize-spirv --mlir-print-debuginfo --mlir-print-local-scope
    let expected = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<si32, Function> loc(unknown)
    %1 = spirv.Load "Function" %0 : si32 loc("a.comp":3:5)
    %cst10_si32 = spirv.Constant 10 : si32 loc(unknown)
    %2 = spirv.SLessThan %1, %cst10_si32 : si32 loc("a.comp":3:5)
    spirv.Branch ^bb1 loc(unknown)
  ^bb1:  // pred: ^bb0
    spirv.mlir.selection {
      spirv.BranchConditional %2, ^bb1, ^bb2 loc("a.comp":4:7)
    ^bb1:  // pred: ^bb0
      %cst1_si32_0 = spirv.Constant 1 : si32 loc(unknown)
      spirv.Store "Function" %0, %cst1_si32_0 : si32 loc("a.comp":5:9)
      spirv.Branch ^bb2 loc("a.comp":5:9)
    ^bb2:  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge loc("a.comp":4:7)
    } loc("a.comp":4:7)
    %3 = spirv.Load "Function" %0 : si32 loc("a.comp":6:3)
    %cst1_si32 = spirv.Constant 1 : si32 loc(unknown)
    %4 = spirv.SLessThan %3, %cst1_si32 : si32 loc("a.comp":6:3)
    spirv.Branch ^bb2 loc(unknown)
  ^bb2:  // pred: ^bb1
    spirv.mlir.selection {
      spirv.BranchConditional %4, ^bb1, ^bb2 loc("a.comp":7:4)
    ^bb1:  // pred: ^bb0
      %cst10_si32_0 = spirv.Constant 10 : si32 loc(unknown)
      spirv.Store "Function" %0, %cst10_si32_0 : si32 loc(unknown)
      spirv.Branch ^bb2 loc(unknown)
    ^bb2:  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge loc("a.comp":7:4)
    } loc("a.comp":7:4)
    spirv.Return loc(unknown)
  } loc(unknown)
  spirv.EntryPoint "GLCompute" @main loc(unknown)
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1 loc(unknown)
} loc(unknown)"#;
    assert_eq!(String::from_utf8_lossy(&result.output.bytes()), expected);
}

/// The containers kept from one function to the next (also after a function that
/// failed half way) give the same result as fresh ones.
#[test]
fn reused_scratch_gives_the_same_result() {
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %true = spirv.Constant true
    %cst0_si32 = spirv.Constant 0 : si32
    spirv.BranchConditional %true, ^bb2, ^bb1(%cst0_si32 : si32)
  ^bb1(%0: si32):  // 2 preds: ^bb0, ^bb2
    %cst0_si32_0 = spirv.Constant 0 : si32
    spirv.Branch ^bb3(%cst0_si32_0 : si32)
  ^bb2:  // pred: ^bb0
    %cst1_si32 = spirv.Constant 1 : si32
    spirv.Branch ^bb1(%cst1_si32 : si32)
  ^bb3(%1: si32):  // 2 preds: ^bb1, ^bb4
    %cst10_si32 = spirv.Constant 10 : si32
    %2 = spirv.SLessThan %1, %cst10_si32 : si32
    spirv.BranchConditional %2, ^bb6, ^bb5
  ^bb4:  // pred: ^bb6
    %cst1_si32_1 = spirv.Constant 1 : si32
    %3 = spirv.IAdd %1, %cst1_si32_1 : si32
    spirv.Branch ^bb3(%3 : si32)
  ^bb5:  // pred: ^bb3
    %4 = spirv.IAdd %1, %0 : si32
    spirv.Return
  ^bb6:  // pred: ^bb3
    spirv.Branch ^bb4
  }
}"#;
    let merges = [sel(0, 1, 0), lp(3, 5, 4, 1)];
    let first = structurized(input, &merges);
    assert!(first.contains("spirv.mlir.loop"), "{first}");
    // The loop header taken for a selection header: rejected inside the rewrite.
    let failed = structurized(input, &[sel(0, 1, 0), sel(3, 5, 0)]);
    assert!(failed.starts_with("error:"), "{failed}");
    for _ in 0..2 {
        assert_eq!(structurized(input, &merges), first);
    }
}

#[test]
fn region_merge_blocks_take_the_merge_blocks_names() {
    // An if (merging into a block that heads a loop's way in), a loop, and a break
    // out of the loop from a nested if (a guard flag and dispatch blocks).
    let input = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader], []> {
  spirv.func @main() "None" {
    %true = spirv.Constant true
    spirv.BranchConditional %true, ^bb1, ^bb2
  ^bb1:
    spirv.Branch ^bb2
  ^bb2:
    spirv.Branch ^bb3
  ^bb3:
    spirv.BranchConditional %true, ^bb4, ^bb7
  ^bb4:
    spirv.BranchConditional %true, ^bb5, ^bb6
  ^bb5:
    spirv.Branch ^bb7
  ^bb6:
    spirv.Branch ^bb3
  ^bb7:
    spirv.Return
  }
}"#;
    let names = [
        "bb.entry",
        "if.true",
        "if.merge",
        "for.check",
        "for.body",
        "if.true.break",
        "for.continue",
        "for.merge",
    ];
    let (mut ir, top) = spirvkit_ir::parse(input, "t.mlir").expect("parses");
    let func = crate::test_support::first_op(&ir, top, "spirv.func").expect("a function");
    let blocks = ir.region(ir.op(func).regions[0]).blocks.clone();
    for (&block, name) in blocks.iter().zip(names) {
        ir.set_block_name(block, name);
    }
    let mut headers = FxHashMap::default();
    headers.insert(blocks[0], MergeInfo::Selection { merge: blocks[2], control: 0 });
    headers.insert(
        blocks[3],
        MergeInfo::Loop { merge: blocks[7], continue_target: blocks[6], control: 0, parameters: Vec::new() },
    );
    headers.insert(blocks[4], MergeInfo::Selection { merge: blocks[6], control: 0 });
    structurize(&mut ir, func, &headers).expect("structurizes");
    assert!(spirvkit_ir::verify::verify(&ir, top, input).is_empty());
    let name = |b: BlockId| ir.block(b).name.as_deref();
    let constructs: Vec<OpId> = ir
        .ops_under(func)
        .into_iter()
        .map(|(_, op)| op)
        .filter(|&op| matches!(ir.op(op).name.as_str(), "spirv.mlir.selection" | "spirv.mlir.loop"))
        .collect();
    let merged: Vec<(&str, Option<&str>)> = constructs
        .iter()
        .map(|&op| {
            let region = ir.region(ir.op(op).regions[0]);
            (ir.op(op).name.as_str(), region.blocks.last().and_then(|&b| name(b)))
        })
        .collect();
    assert!(merged.contains(&("spirv.mlir.selection", Some("if.merge"))), "{merged:?}");
    assert!(merged.contains(&("spirv.mlir.loop", Some("for.merge"))), "{merged:?}");
    // The loop's continue target, also the inner selection's merge block, keeps its
    // own label in the binary, and its name.
    assert!(merged.contains(&("spirv.mlir.selection", None)), "{merged:?}");
    // The other old merge blocks gave their names away; every other block kept its
    // own, and the blocks made here (split headers, the loop's entry, dispatch) have none.
    for (&block, expected) in blocks.iter().zip(names) {
        let moved = matches!(expected, "if.merge" | "for.merge");
        assert_eq!(name(block), if moved { None } else { Some(expected) }, "{expected}");
    }
    let mut all = Vec::new();
    ir.for_each_op_under(func, |b, _| all.push(b));
    all.extend(blocks.iter().copied());
    all.sort_unstable();
    all.dedup();
    let named: Vec<&str> = all.iter().filter_map(|&b| name(b)).collect();
    assert_eq!(named.len(), names.len(), "each name once: {named:?}");
}
