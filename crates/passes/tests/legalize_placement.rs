//! Where legalization leaves access chains and handle loads: near their uses, as
//! SPIRV-Tools' legalization leaves dxc's raw form (the entry-block hoisting mem2reg
//! does to unify handle copies is undone once they are unified), and chains over
//! chains combined into one. Each result must verify and serialize to a binary the
//! current spirv-val accepts (`SPIRV_VAL`, `<repo>/.venv/bin/spirv-val` or
//! `spirv-val` on PATH; skipped with a message without one).

use std::process::Command;

use spirvkit_ir::ir::{Ir, OpId};
use spirvkit_ir::{parse, print, PrintOptions};
use spirvkit_passes::legalize::legalize;
use spirvkit_translate::{serialize, SerializeOptions};

const BUF: &str = "!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>";
const HEADER: &str =
    "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]> {";

#[path = "common/validator.rs"]
mod validator;
use validator::spirv_val;

fn module_of(ir: &Ir, top: OpId) -> OpId {
    ir.ops_under(top)
        .into_iter()
        .map(|(_, op)| op)
        .find(|&op| ir.op(op).name == "spirv.module")
        .expect("module")
}

/// Legalizes `src`, checks it verifies and validates, and returns its text.
fn legalized(name: &str, src: &str) -> String {
    let src = src.replace("BUF", BUF);
    let (mut ir, top) = parse(&src, &format!("{name}.mlir")).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let module = module_of(&ir, top);
    legalize(&mut ir, module).unwrap_or_else(|e| panic!("{name}: {e}"));
    let text = print(&ir, top, PrintOptions::default());
    let errors = spirvkit_ir::verify::verify(&ir, module, &text);
    assert!(errors.is_empty(), "{name}: does not verify: {errors:?}\n{text}");
    let words = serialize(&ir, module, &SerializeOptions::default())
        .unwrap_or_else(|e| panic!("{name}: does not serialize: {e}\n{text}"));
    let Some(val) = spirv_val() else {
        eprintln!("spirv-val not found (set SPIRV_VAL): {name} not validated");
        return text;
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let file = std::env::temp_dir().join(format!("spirvkit-placement-{}-{name}.spv", std::process::id()));
    std::fs::write(&file, bytes).expect("write");
    let out = Command::new(&val).args(["--target-env", "vulkan1.0"]).arg(&file).output().expect("spirv-val");
    let _ = std::fs::remove_file(&file);
    assert!(out.status.success(), "{name}: invalid: {}\n{text}", String::from_utf8_lossy(&out.stderr));
    text
}

/// The line index of the first line containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no '{needle}' in\n{text}"))
}

#[test]
fn access_chains_stay_next_to_their_uses() {
    // A buffer pointer copied through a local (so mem2reg hoists and unifies its
    // sources), written before and inside a selection.
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @buf bind(0, 0) : !spirv.ptr<BUF, StorageBuffer>
  spirv.GlobalVariable @flag bind(0, 1) : !spirv.ptr<BUF, StorageBuffer>
  spirv.func @main() "None" {{
    %local = spirv.Variable : !spirv.ptr<!spirv.ptr<BUF, StorageBuffer>, Function>
    %g = spirv.mlir.addressof @buf : !spirv.ptr<BUF, StorageBuffer>
    spirv.Store "Function" %local, %g : !spirv.ptr<BUF, StorageBuffer>
    %f = spirv.mlir.addressof @flag : !spirv.ptr<BUF, StorageBuffer>
    %c0 = spirv.Constant 0 : i32
    %fp = spirv.AccessChain %f[%c0, %c0] : !spirv.ptr<BUF, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %fv = spirv.Load "StorageBuffer" %fp : f32
    %zero = spirv.Constant 0.0 : f32
    %cond = spirv.FOrdGreaterThan %fv, %zero : f32
    %b = spirv.Load "Function" %local : !spirv.ptr<BUF, StorageBuffer>
    %c1 = spirv.Constant 1 : i32
    %p1 = spirv.AccessChain %b[%c0, %c1] : !spirv.ptr<BUF, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.Store "StorageBuffer" %p1, %fv : f32
    spirv.mlir.selection {{
      spirv.BranchConditional %cond, ^then, ^merge
    ^then:
      %b2 = spirv.Load "Function" %local : !spirv.ptr<BUF, StorageBuffer>
      %c2 = spirv.Constant 2 : i32
      %p2 = spirv.AccessChain %b2[%c0, %c2] : !spirv.ptr<BUF, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      spirv.Store "StorageBuffer" %p2, %fv : f32
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }}
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}}"#
    );
    let text = legalized("chains_near_uses", &src);
    let load = line_of(&text, "spirv.Load \"StorageBuffer\"");
    let first_store = line_of(&text, "spirv.Store \"StorageBuffer\"");
    let selection = line_of(&text, "spirv.mlir.selection");
    let chains: Vec<usize> =
        text.lines().enumerate().filter(|(_, l)| l.contains("spirv.AccessChain")).map(|(i, _)| i).collect();
    assert_eq!(chains.len(), 3, "{text}");
    // The flag's chain right before its load, the first element's before its store
    // (after the comparison), the second's inside the selection.
    assert_eq!(chains[0] + 1, load, "{text}");
    assert_eq!(chains[1] + 1, first_store, "{text}");
    assert!(chains[1] > line_of(&text, "spirv.FOrdGreaterThan"), "{text}");
    assert!(chains[2] > selection, "{text}");
}

#[test]
fn a_chain_over_a_chain_becomes_one_chain() {
    // An element of an array of buffers, then an element of that buffer.
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @bufs bind(0, 0) : !spirv.ptr<!spirv.array<4 x BUF>, StorageBuffer>
  spirv.func @main() "None" {{
    %a = spirv.mlir.addressof @bufs : !spirv.ptr<!spirv.array<4 x BUF>, StorageBuffer>
    %c0 = spirv.Constant 0 : i32
    %c3 = spirv.Constant 3 : i32
    %b = spirv.AccessChain %a[%c3] : !spirv.ptr<!spirv.array<4 x BUF>, StorageBuffer>, i32 -> !spirv.ptr<BUF, StorageBuffer>
    %c1 = spirv.Constant 1 : i32
    %e = spirv.AccessChain %b[%c0, %c1] : !spirv.ptr<BUF, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %one = spirv.Constant 1.0 : f32
    spirv.Store "StorageBuffer" %e, %one : f32
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}}"#
    );
    let text = legalized("chain_over_chain", &src);
    let chains: Vec<&str> = text.lines().filter(|l| l.contains("spirv.AccessChain")).collect();
    assert_eq!(chains.len(), 1, "{text}");
    assert!(chains[0].contains("_addr[%") && chains[0].matches('%').count() == 5, "{text}");
}

const STORAGE_IMG: &str = "!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba32f>";

#[test]
fn a_handle_copied_through_a_local_is_loaded_where_it_is_used() {
    // `RWTexture2D<float4> t = gTex; if (flag > 0) buf[0] = size of t;`: the image
    // load mem2reg hoists to unify its copies goes back into the branch using it.
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @tex bind(0, 0) : !spirv.ptr<IMG, UniformConstant>
  spirv.GlobalVariable @buf bind(0, 1) : !spirv.ptr<BUF, StorageBuffer>
  spirv.func @main() "None" {{
    %local = spirv.Variable : !spirv.ptr<IMG, Function>
    %t = spirv.mlir.addressof @tex : !spirv.ptr<IMG, UniformConstant>
    %img = spirv.Load "UniformConstant" %t : IMG
    spirv.Store "Function" %local, %img : IMG
    %b = spirv.mlir.addressof @buf : !spirv.ptr<BUF, StorageBuffer>
    %c0 = spirv.Constant 0 : i32
    %fp = spirv.AccessChain %b[%c0, %c0] : !spirv.ptr<BUF, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %fv = spirv.Load "StorageBuffer" %fp : f32
    %zero = spirv.Constant 0.0 : f32
    %cond = spirv.FOrdGreaterThan %fv, %zero : f32
    spirv.mlir.selection {{
      spirv.BranchConditional %cond, ^then, ^merge
    ^then:
      %i = spirv.Load "Function" %local : IMG
      %size = spirv.ImageQuerySize %i : IMG -> vector<2xi32>
      %w = spirv.CompositeExtract %size[0 : i32] : vector<2xi32>
      %wf = spirv.ConvertSToF %w : i32 to f32
      spirv.Store "StorageBuffer" %fp, %wf : f32
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }}
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}}"#
    )
    .replace("IMG", STORAGE_IMG)
    .replace("[Shader]", "[Shader, ImageQuery]");
    let text = legalized("handle_near_use", &src);
    let load = line_of(&text, "spirv.Load \"UniformConstant\"");
    assert!(load > line_of(&text, "spirv.mlir.selection"), "{text}");
    assert_eq!(load + 1, line_of(&text, "spirv.ImageQuerySize"), "{text}");
}
