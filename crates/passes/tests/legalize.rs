//! Legalization (`spirvkit_passes::legalize::legalize`) on modules written as DXC's
//! raw `-fcgl` output would be: every local, parameter and temporary a Function
//! variable, functions taking pointers, resources in locals and parameters. Each
//! result must verify, hold no call and no Function variable of an opaque type, and
//! serialize to a binary the current spirv-val accepts as a Vulkan 1.0 module
//! (`SPIRV_VAL`, or `<repo>/.venv/bin/spirv-val`, or `spirv-val` on PATH; skipped
//! with a message without one).

#[path = "common/interp.rs"]
mod interp;

use std::collections::HashMap;
use std::process::Command;

use spirvkit_ir::ir::{Ir, OpId};
use spirvkit_ir::{parse, print, PrintOptions};
use spirvkit_passes::legalize::{legalize, LegalizeError};
use spirvkit_translate::{serialize, SerializeOptions};

const IMG: &str = "!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>";
const SIMG: &str =
    "!spirv.sampled_image<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>>";
const BUF: &str = "!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>";

fn expand(src: &str) -> String {
    src.replace("SIMG", SIMG).replace("IMG", IMG).replace("BUF", BUF)
}

#[path = "common/validator.rs"]
mod validator;
use validator::spirv_val;

fn validate(words: &[u32], name: &str) -> Result<(), String> {
    let Some(val) = spirv_val() else {
        eprintln!("spirv-val not found (set SPIRV_VAL): {name} not validated");
        return Ok(());
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let file = std::env::temp_dir().join(format!("spirvkit-legalize-{}-{name}.spv", std::process::id()));
    std::fs::write(&file, bytes).map_err(|e| e.to_string())?;
    let out = Command::new(&val)
        .args(["--target-env", "vulkan1.0"])
        .arg(&file)
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&file);
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}

fn spirv_module(ir: &Ir, top: OpId) -> OpId {
    if ir.op(top).name == "spirv.module" {
        return top;
    }
    ir.ops_under(top)
        .into_iter()
        .map(|(_, op)| op)
        .find(|&op| ir.op(op).name == "spirv.module")
        .expect("a module")
}

/// Parses and legalizes `src`; the error, if legalization refused.
fn try_legalize(name: &str, src: &str) -> Result<(Ir, OpId, String), LegalizeError> {
    let src = expand(src);
    let (mut ir, top) = parse(&src, &format!("{name}.mlir")).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let module = spirv_module(&ir, top);
    legalize(&mut ir, module)?;
    let text = print(&ir, top, PrintOptions::default());
    Ok((ir, module, text))
}

/// Legalizes `src` and checks everything the module documentation says.
fn legalized(name: &str, src: &str) -> String {
    let (ir, module, text) = try_legalize(name, src).unwrap_or_else(|e| panic!("{name}: {e}"));
    let errors = spirvkit_ir::verify::verify(&ir, module, &text);
    assert!(errors.is_empty(), "{name}: does not verify: {errors:?}\n{text}");
    assert!(!text.contains("spirv.FunctionCall"), "{name}: calls left\n{text}");
    for line in text.lines().filter(|l| l.contains("spirv.Variable")) {
        let opaque = ["!spirv.image", "!spirv.sampler", "!spirv.sampled_image", "StorageBuffer>", "Uniform>"];
        assert!(!opaque.iter().any(|o| line.contains(o)), "{name}: opaque variable left: {line}\n{text}");
    }
    let words = serialize(&ir, module, &SerializeOptions::default())
        .unwrap_or_else(|e| panic!("{name}: does not serialize: {e}\n{text}"));
    validate(&words, name).unwrap_or_else(|e| panic!("{name}: invalid: {e}\n{text}"));
    text
}

/// Runs `src`'s entry point before and after legalization (globals preset from
/// `inputs`), checks both wrote the same globals, and returns them.
fn same_semantics(name: &str, src: &str, inputs: &[(&str, interp::Val)]) -> HashMap<String, interp::Val> {
    let run = |legalize_first: bool| {
        let text = expand(src);
        let (mut ir, top) = parse(&text, "t.mlir").unwrap();
        let module = spirv_module(&ir, top);
        if legalize_first {
            legalize(&mut ir, module).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let mut machine = interp::Machine::new(&ir, module);
        for (global, value) in inputs {
            machine.globals.insert(global.to_string(), value.clone());
        }
        machine.run_entry_point().unwrap_or_else(|e| panic!("{name} (legalized: {legalize_first}): {e}"));
        machine.globals
    };
    let before = run(false);
    let after = run(true);
    assert_eq!(before, after, "{name}: legalization changed what the shader computes");
    after
}

/// The first float of `@buf` (a struct holding a runtime array).
fn buf0(globals: &HashMap<String, interp::Val>) -> interp::Val {
    use interp::Val;
    match globals.get("buf") {
        Some(Val::Composite(members)) => match members.first() {
            Some(Val::Composite(items)) => items.first().cloned().unwrap_or(Val::Undef),
            _ => Val::Undef,
        },
        _ => Val::Undef,
    }
}

const HEADER: &str =
    "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]> {";

#[test]
fn out_parameter_and_loop_accumulating_into_a_local() {
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @buf bind(0, 0) : !spirv.ptr<BUF, StorageBuffer>
  spirv.func @set(%x: !spirv.ptr<f32, Function>) "None" {{
    %c = spirv.Constant 2.0 : f32
    spirv.Store "Function" %x, %c : f32
    spirv.Return
  }}
  spirv.func @main() "None" {{
    %param = spirv.Variable : !spirv.ptr<f32, Function>
    %acc = spirv.Variable : !spirv.ptr<f32, Function>
    %i = spirv.Variable : !spirv.ptr<i32, Function>
    spirv.FunctionCall @set(%param) : (!spirv.ptr<f32, Function>) -> ()
    %zf = spirv.Constant 0.0 : f32
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    %c4 = spirv.Constant 4 : i32
    spirv.Store "Function" %acc, %zf : f32
    spirv.Store "Function" %i, %c0 : i32
    spirv.mlir.loop {{
      spirv.Branch ^header
    ^header:
      %iv = spirv.Load "Function" %i : i32
      %lt = spirv.SLessThan %iv, %c4 : i32
      spirv.BranchConditional %lt, ^body, ^merge
    ^body:
      %a = spirv.Load "Function" %acc : f32
      %p = spirv.Load "Function" %param : f32
      %s = spirv.FAdd %a, %p : f32
      spirv.Store "Function" %acc, %s : f32
      spirv.Branch ^continue
    ^continue:
      %iv2 = spirv.Load "Function" %i : i32
      %n = spirv.IAdd %iv2, %c1 : i32
      spirv.Store "Function" %i, %n : i32
      spirv.Branch ^header
    ^merge:
      spirv.mlir.merge
    }}
    %r = spirv.Load "Function" %acc : f32
    %b = spirv.mlir.addressof @buf : !spirv.ptr<BUF, StorageBuffer>
    %e = spirv.AccessChain %b[%c0, %c0] : !spirv.ptr<BUF, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.Store "StorageBuffer" %e, %r : f32
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}}"#
    );
    let text = legalized("out_param_loop", &src);
    assert_eq!(buf0(&same_semantics("out_param_loop", &src, &[])), interp::Val::Float(8.0));
    // The accumulator and the counter are loop-carried values; no variable is left.
    assert!(text.contains("spirv.mlir.loop -> "), "{text}");
    assert!(!text.contains("spirv.Variable"), "{text}");
    assert!(!text.contains("spirv.func @set"), "{text}");
}

#[test]
fn if_else_assigning_a_local_yields_a_selection_result() {
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @buf bind(0, 0) : !spirv.ptr<BUF, StorageBuffer>
  spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.func @main() "None" {{
    %x = spirv.Variable : !spirv.ptr<f32, Function>
    %g = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi32>, Input>
    %id = spirv.Load "Input" %g : vector<3xi32>
    %id0 = spirv.CompositeExtract %id[0 : i32] : vector<3xi32>
    %c0 = spirv.Constant 0 : i32
    %one = spirv.Constant 1.0 : f32
    %two = spirv.Constant 2.0 : f32
    %cond = spirv.IEqual %id0, %c0 : i32
    spirv.mlir.selection {{
      spirv.BranchConditional %cond, ^then, ^else
    ^then:
      spirv.Store "Function" %x, %one : f32
      spirv.Branch ^merge
    ^else:
      spirv.Store "Function" %x, %two : f32
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }}
    %v = spirv.Load "Function" %x : f32
    %b = spirv.mlir.addressof @buf : !spirv.ptr<BUF, StorageBuffer>
    %e = spirv.AccessChain %b[%c0, %id0] : !spirv.ptr<BUF, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.Store "StorageBuffer" %e, %v : f32
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main, @gid
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}}"#
    );
    let text = legalized("if_else", &src);
    use interp::Val;
    for (id, expected) in [(0, 1.0), (1, 2.0)] {
        let gid = Val::Composite(vec![Val::Int(id), Val::Int(0), Val::Int(0)]);
        let globals = same_semantics("if_else", &src, &[("gid", gid)]);
        let Some(Val::Composite(members)) = globals.get("buf") else { panic!("no buffer written") };
        let Val::Composite(items) = &members[0] else { panic!("no array written") };
        assert_eq!(items[id as usize], Val::Float(expected));
    }
    assert!(text.contains("= spirv.mlir.selection -> f32"), "{text}");
    assert!(text.contains("spirv.mlir.merge %"), "{text}");
    assert!(!text.contains("spirv.Variable"), "{text}");
}

/// A fragment shader: a texture copied into a local, passed to a function (by
/// pointer, DXC's convention) that samples it with a global sampler and also writes
/// an out parameter.
const TEXTURE_IN_LOCAL: &str = r#"
  spirv.GlobalVariable @tex bind(0, 0) : !spirv.ptr<IMG, UniformConstant>
  spirv.GlobalVariable @samp bind(0, 1) : !spirv.ptr<!spirv.sampler, UniformConstant>
  spirv.GlobalVariable @in_var_UV {location = 0 : i32} : !spirv.ptr<vector<2xf32>, Input>
  spirv.GlobalVariable @out_var_SV_Target {location = 0 : i32} : !spirv.ptr<vector<4xf32>, Output>
  spirv.func @sample(%t: !spirv.ptr<IMG, Function>, %uv: !spirv.ptr<vector<2xf32>, Function>, %out: !spirv.ptr<f32, Function>) -> vector<4xf32> "None" {
    %ti = spirv.Load "Function" %t : IMG
    %sp = spirv.mlir.addressof @samp : !spirv.ptr<!spirv.sampler, UniformConstant>
    %s = spirv.Load "UniformConstant" %sp : !spirv.sampler
    %si = "spirv.SampledImage"(%ti, %s) : (IMG, !spirv.sampler) -> SIMG
    %c = spirv.Load "Function" %uv : vector<2xf32>
    %r = spirv.ImageSampleImplicitLod %si, %c : SIMG, vector<2xf32> -> vector<4xf32>
    %x = spirv.CompositeExtract %r[0 : i32] : vector<4xf32>
    spirv.Store "Function" %out, %x : f32
    spirv.ReturnValue %r : vector<4xf32>
  }
  spirv.func @main() "None" {
    %local_tex = spirv.Variable : !spirv.ptr<IMG, Function>
    %param_t = spirv.Variable : !spirv.ptr<IMG, Function>
    %param_uv = spirv.Variable : !spirv.ptr<vector<2xf32>, Function>
    %param_out = spirv.Variable : !spirv.ptr<f32, Function>
    %tp = spirv.mlir.addressof @tex : !spirv.ptr<IMG, UniformConstant>
    %tv = spirv.Load "UniformConstant" %tp : IMG
    spirv.Store "Function" %local_tex, %tv : IMG
    %uvp = spirv.mlir.addressof @in_var_UV : !spirv.ptr<vector<2xf32>, Input>
    %uv = spirv.Load "Input" %uvp : vector<2xf32>
    %lt = spirv.Load "Function" %local_tex : IMG
    spirv.Store "Function" %param_t, %lt : IMG
    spirv.Store "Function" %param_uv, %uv : vector<2xf32>
    %color = spirv.FunctionCall @sample(%param_t, %param_uv, %param_out) : (!spirv.ptr<IMG, Function>, !spirv.ptr<vector<2xf32>, Function>, !spirv.ptr<f32, Function>) -> vector<4xf32>
    %o = spirv.Load "Function" %param_out : f32
    %res = spirv.VectorTimesScalar %color, %o : (vector<4xf32>, f32) -> vector<4xf32>
    %outp = spirv.mlir.addressof @out_var_SV_Target : !spirv.ptr<vector<4xf32>, Output>
    spirv.Store "Output" %outp, %res : vector<4xf32>
    spirv.Return
  }
  spirv.EntryPoint "Fragment" @main, @in_var_UV, @out_var_SV_Target
  spirv.ExecutionMode @main "OriginUpperLeft"
}"#;

#[test]
fn texture_in_a_local_passed_to_a_function_reaches_its_global() {
    let text = legalized("texture_in_local", &format!("{HEADER}{TEXTURE_IN_LOCAL}"));
    // The sampled image is built from the loads of the globals themselves.
    assert_eq!(text.matches("spirv.Load \"UniformConstant\"").count(), 2, "{text}");
    assert!(!text.contains("spirv.Variable"), "{text}");
}

#[test]
fn early_return_from_a_loop() {
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @buf bind(0, 0) : !spirv.ptr<BUF, StorageBuffer>
  spirv.func @find(%limit: !spirv.ptr<i32, Function>) -> i32 "None" {{
    %i = spirv.Variable : !spirv.ptr<i32, Function>
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    %c5 = spirv.Constant 5 : i32
    spirv.Store "Function" %i, %c0 : i32
    spirv.mlir.loop {{
      spirv.Branch ^header
    ^header:
      %iv = spirv.Load "Function" %i : i32
      %lim = spirv.Load "Function" %limit : i32
      %lt = spirv.SLessThan %iv, %lim : i32
      spirv.BranchConditional %lt, ^body, ^merge
    ^body:
      %iv2 = spirv.Load "Function" %i : i32
      %eq = spirv.IEqual %iv2, %c5 : i32
      spirv.mlir.selection {{
        spirv.BranchConditional %eq, ^then, ^smerge
      ^then:
        spirv.ReturnValue %iv2 : i32
      ^smerge:
        spirv.mlir.merge
      }}
      spirv.Branch ^continue
    ^continue:
      %iv3 = spirv.Load "Function" %i : i32
      %next = spirv.IAdd %iv3, %c1 : i32
      spirv.Store "Function" %i, %next : i32
      spirv.Branch ^header
    ^merge:
      spirv.mlir.merge
    }}
    %m1 = spirv.Constant -1 : i32
    spirv.ReturnValue %m1 : i32
  }}
  spirv.func @main() "None" {{
    %param = spirv.Variable : !spirv.ptr<i32, Function>
    %c8 = spirv.Constant 8 : i32
    %c0 = spirv.Constant 0 : i32
    spirv.Store "Function" %param, %c8 : i32
    %r = spirv.FunctionCall @find(%param) : (!spirv.ptr<i32, Function>) -> i32
    %f = spirv.ConvertSToF %r : i32 to f32
    %b = spirv.mlir.addressof @buf : !spirv.ptr<BUF, StorageBuffer>
    %e = spirv.AccessChain %b[%c0, %c0] : !spirv.ptr<BUF, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.Store "StorageBuffer" %e, %f : f32
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}}"#
    );
    let text = legalized("early_return_loop", &src);
    assert_eq!(buf0(&same_semantics("early_return_loop", &src, &[])), interp::Val::Float(5.0));
    // The return flag leaves the loop through its merge; the value reaches the
    // caller as the result of the guard selection.
    assert!(text.contains("spirv.Constant true"), "{text}");
    assert!(text.contains("spirv.LogicalNot"), "{text}");
    assert!(!text.contains("spirv.Variable"), "{text}");
}

#[test]
fn buffer_pointer_in_a_local_passed_to_a_function() {
    // `RWStructuredBuffer<float> b = gBuf; write(b, 3.0);` in DXC's raw form: the
    // local holds the global's pointer.
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @buf bind(0, 0) : !spirv.ptr<BUF, StorageBuffer>
  spirv.func @write(%b: !spirv.ptr<!spirv.ptr<BUF, StorageBuffer>, Function>, %v: !spirv.ptr<f32, Function>) "None" {{
    %bp = spirv.Load "Function" %b : !spirv.ptr<BUF, StorageBuffer>
    %c0 = spirv.Constant 0 : i32
    %e = spirv.AccessChain %bp[%c0, %c0] : !spirv.ptr<BUF, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %val = spirv.Load "Function" %v : f32
    spirv.Store "StorageBuffer" %e, %val : f32
    spirv.Return
  }}
  spirv.func @main() "None" {{
    %local = spirv.Variable : !spirv.ptr<!spirv.ptr<BUF, StorageBuffer>, Function>
    %param_b = spirv.Variable : !spirv.ptr<!spirv.ptr<BUF, StorageBuffer>, Function>
    %param_v = spirv.Variable : !spirv.ptr<f32, Function>
    %g = spirv.mlir.addressof @buf : !spirv.ptr<BUF, StorageBuffer>
    spirv.Store "Function" %local, %g : !spirv.ptr<BUF, StorageBuffer>
    %l = spirv.Load "Function" %local : !spirv.ptr<BUF, StorageBuffer>
    spirv.Store "Function" %param_b, %l : !spirv.ptr<BUF, StorageBuffer>
    %three = spirv.Constant 3.0 : f32
    spirv.Store "Function" %param_v, %three : f32
    spirv.FunctionCall @write(%param_b, %param_v) : (!spirv.ptr<!spirv.ptr<BUF, StorageBuffer>, Function>, !spirv.ptr<f32, Function>) -> ()
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}}"#
    );
    let text = legalized("buffer_pointer_in_local", &src);
    assert_eq!(buf0(&same_semantics("buffer_pointer_in_local", &src, &[])), interp::Val::Float(3.0));
    assert!(text.contains("spirv.AccessChain %buf_addr["), "{text}");
    assert!(!text.contains("spirv.Variable"), "{text}");
}

#[test]
fn struct_of_texture_and_sampler_in_a_local_is_split_then_promoted() {
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @tex bind(0, 0) : !spirv.ptr<IMG, UniformConstant>
  spirv.GlobalVariable @samp bind(0, 1) : !spirv.ptr<!spirv.sampler, UniformConstant>
  spirv.GlobalVariable @out_var_SV_Target {{location = 0 : i32}} : !spirv.ptr<vector<4xf32>, Output>
  spirv.func @sample(%m: !spirv.ptr<!spirv.struct<(IMG, !spirv.sampler)>, Function>) -> vector<4xf32> "None" {{
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    %pt = spirv.AccessChain %m[%c0] : !spirv.ptr<!spirv.struct<(IMG, !spirv.sampler)>, Function>, i32 -> !spirv.ptr<IMG, Function>
    %ps = spirv.AccessChain %m[%c1] : !spirv.ptr<!spirv.struct<(IMG, !spirv.sampler)>, Function>, i32 -> !spirv.ptr<!spirv.sampler, Function>
    %t = spirv.Load "Function" %pt : IMG
    %s = spirv.Load "Function" %ps : !spirv.sampler
    %si = "spirv.SampledImage"(%t, %s) : (IMG, !spirv.sampler) -> SIMG
    %half = spirv.Constant dense<0.5> : vector<2xf32>
    %r = spirv.ImageSampleImplicitLod %si, %half : SIMG, vector<2xf32> -> vector<4xf32>
    spirv.ReturnValue %r : vector<4xf32>
  }}
  spirv.func @main() "None" {{
    %mat = spirv.Variable : !spirv.ptr<!spirv.struct<(IMG, !spirv.sampler)>, Function>
    %param = spirv.Variable : !spirv.ptr<!spirv.struct<(IMG, !spirv.sampler)>, Function>
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    %pt = spirv.AccessChain %mat[%c0] : !spirv.ptr<!spirv.struct<(IMG, !spirv.sampler)>, Function>, i32 -> !spirv.ptr<IMG, Function>
    %tp = spirv.mlir.addressof @tex : !spirv.ptr<IMG, UniformConstant>
    %tv = spirv.Load "UniformConstant" %tp : IMG
    spirv.Store "Function" %pt, %tv : IMG
    %ps = spirv.AccessChain %mat[%c1] : !spirv.ptr<!spirv.struct<(IMG, !spirv.sampler)>, Function>, i32 -> !spirv.ptr<!spirv.sampler, Function>
    %sp = spirv.mlir.addressof @samp : !spirv.ptr<!spirv.sampler, UniformConstant>
    %sv = spirv.Load "UniformConstant" %sp : !spirv.sampler
    spirv.Store "Function" %ps, %sv : !spirv.sampler
    %whole = spirv.Load "Function" %mat : !spirv.struct<(IMG, !spirv.sampler)>
    spirv.Store "Function" %param, %whole : !spirv.struct<(IMG, !spirv.sampler)>
    %r = spirv.FunctionCall @sample(%param) : (!spirv.ptr<!spirv.struct<(IMG, !spirv.sampler)>, Function>) -> vector<4xf32>
    %o = spirv.mlir.addressof @out_var_SV_Target : !spirv.ptr<vector<4xf32>, Output>
    spirv.Store "Output" %o, %r : vector<4xf32>
    spirv.Return
  }}
  spirv.EntryPoint "Fragment" @main, @out_var_SV_Target
  spirv.ExecutionMode @main "OriginUpperLeft"
}}"#
    );
    let text = legalized("struct_of_handles", &src);
    assert!(!text.contains("spirv.Variable"), "{text}");
    assert!(!text.contains("spirv.CompositeConstruct"), "{text}");
}

#[test]
fn nested_loops_and_several_early_returns() {
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @buf bind(0, 0) : !spirv.ptr<BUF, StorageBuffer>
  spirv.func @search(%n: !spirv.ptr<i32, Function>) -> i32 "None" {{
    %i = spirv.Variable : !spirv.ptr<i32, Function>
    %j = spirv.Variable : !spirv.ptr<i32, Function>
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    %c3 = spirv.Constant 3 : i32
    %c7 = spirv.Constant 7 : i32
    %nv = spirv.Load "Function" %n : i32
    %neg = spirv.SLessThan %nv, %c0 : i32
    spirv.mlir.selection {{
      spirv.BranchConditional %neg, ^then, ^merge
    ^then:
      spirv.ReturnValue %c0 : i32
    ^merge:
      spirv.mlir.merge
    }}
    spirv.Store "Function" %i, %c0 : i32
    spirv.mlir.loop {{
      spirv.Branch ^header
    ^header:
      %iv = spirv.Load "Function" %i : i32
      %lt = spirv.SLessThan %iv, %nv : i32
      spirv.BranchConditional %lt, ^body, ^merge
    ^body:
      spirv.Store "Function" %j, %c0 : i32
      spirv.mlir.loop {{
        spirv.Branch ^h2
      ^h2:
        %jv = spirv.Load "Function" %j : i32
        %lt2 = spirv.SLessThan %jv, %c3 : i32
        spirv.BranchConditional %lt2, ^b2, ^m2
      ^b2:
        %iv2 = spirv.Load "Function" %i : i32
        %jv2 = spirv.Load "Function" %j : i32
        %p = spirv.IMul %iv2, %jv2 : i32
        %hit = spirv.IEqual %p, %c7 : i32
        spirv.mlir.selection {{
          spirv.BranchConditional %hit, ^t, ^sm
        ^t:
          %c100 = spirv.Constant 100 : i32
          %found = spirv.IAdd %p, %c100 : i32
          spirv.ReturnValue %found : i32
        ^sm:
          spirv.mlir.merge
        }}
        spirv.Branch ^k2
      ^k2:
        %jv3 = spirv.Load "Function" %j : i32
        %jn = spirv.IAdd %jv3, %c1 : i32
        spirv.Store "Function" %j, %jn : i32
        spirv.Branch ^h2
      ^m2:
        spirv.mlir.merge
      }}
      spirv.Branch ^continue
    ^continue:
      %iv3 = spirv.Load "Function" %i : i32
      %in = spirv.IAdd %iv3, %c1 : i32
      spirv.Store "Function" %i, %in : i32
      spirv.Branch ^header
    ^merge:
      spirv.mlir.merge
    }}
    %last = spirv.Load "Function" %i : i32
    spirv.ReturnValue %last : i32
  }}
  spirv.func @main() "None" {{
    %param = spirv.Variable : !spirv.ptr<i32, Function>
    %c9 = spirv.Constant 9 : i32
    %c0 = spirv.Constant 0 : i32
    spirv.Store "Function" %param, %c9 : i32
    %r = spirv.FunctionCall @search(%param) : (!spirv.ptr<i32, Function>) -> i32
    %f = spirv.ConvertSToF %r : i32 to f32
    %b = spirv.mlir.addressof @buf : !spirv.ptr<BUF, StorageBuffer>
    %e = spirv.AccessChain %b[%c0, %c0] : !spirv.ptr<BUF, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.Store "StorageBuffer" %e, %f : f32
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}}"#
    );
    let text = legalized("nested_returns", &src);
    // 7 = 7 * 1 is found in the inner loop, which returns 107 (not the 7 left in `i`).
    assert_eq!(buf0(&same_semantics("nested_returns", &src, &[])), interp::Val::Float(107.0));
    assert!(!text.contains("spirv.Variable"), "{text}");
}

#[test]
fn kill_in_a_callee_is_inlined() {
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @in_var_A {{location = 0 : i32}} : !spirv.ptr<f32, Input>
  spirv.GlobalVariable @out_var_SV_Target {{location = 0 : i32}} : !spirv.ptr<vector<4xf32>, Output>
  spirv.func @clip(%a: !spirv.ptr<f32, Function>) "None" {{
    %v = spirv.Load "Function" %a : f32
    %z = spirv.Constant 0.0 : f32
    %lt = spirv.FOrdLessThan %v, %z : f32
    spirv.mlir.selection {{
      spirv.BranchConditional %lt, ^then, ^merge
    ^then:
      spirv.Kill
    ^merge:
      spirv.mlir.merge
    }}
    spirv.Return
  }}
  spirv.func @die() "None" {{
    spirv.Kill
  }}
  spirv.func @main() "None" {{
    %param = spirv.Variable : !spirv.ptr<f32, Function>
    %ap = spirv.mlir.addressof @in_var_A : !spirv.ptr<f32, Input>
    %a = spirv.Load "Input" %ap : f32
    spirv.Store "Function" %param, %a : f32
    spirv.FunctionCall @clip(%param) : (!spirv.ptr<f32, Function>) -> ()
    %big = spirv.Constant 100.0 : f32
    %gt = spirv.FOrdGreaterThan %a, %big : f32
    spirv.mlir.selection {{
      spirv.BranchConditional %gt, ^then, ^merge
    ^then:
      spirv.FunctionCall @die() : () -> ()
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }}
    %one = spirv.Constant dense<1.0> : vector<4xf32>
    %o = spirv.mlir.addressof @out_var_SV_Target : !spirv.ptr<vector<4xf32>, Output>
    spirv.Store "Output" %o, %one : vector<4xf32>
    spirv.Return
  }}
  spirv.EntryPoint "Fragment" @main, @in_var_A, @out_var_SV_Target
  spirv.ExecutionMode @main "OriginUpperLeft"
}}"#
    );
    let text = legalized("kill_in_callee", &src);
    assert_eq!(text.matches("spirv.Kill").count(), 2, "{text}");
}

/// `Texture2D t = cond ? texA : texB;` as an if/else storing into a local.
fn chosen_resource(condition: &str) -> String {
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @texA bind(0, 0) : !spirv.ptr<IMG, UniformConstant>
  spirv.GlobalVariable @texB bind(0, 1) : !spirv.ptr<IMG, UniformConstant>
  spirv.GlobalVariable @samp bind(0, 2) : !spirv.ptr<!spirv.sampler, UniformConstant>
  spirv.GlobalVariable @in_var_A {{location = 0 : i32}} : !spirv.ptr<f32, Input>
  spirv.GlobalVariable @out_var_SV_Target {{location = 0 : i32}} : !spirv.ptr<vector<4xf32>, Output>
  spirv.func @main() "None" {{
    %t = spirv.Variable : !spirv.ptr<IMG, Function>
    %ap = spirv.mlir.addressof @in_var_A : !spirv.ptr<f32, Input>
    %a = spirv.Load "Input" %ap : f32
    %z = spirv.Constant 0.0 : f32
    %c = {condition}
    spirv.mlir.selection {{
      spirv.BranchConditional %c, ^then, ^else
    ^then:
      %pa = spirv.mlir.addressof @texA : !spirv.ptr<IMG, UniformConstant>
      %va = spirv.Load "UniformConstant" %pa : IMG
      spirv.Store "Function" %t, %va : IMG
      spirv.Branch ^merge
    ^else:
      %pb = spirv.mlir.addressof @texB : !spirv.ptr<IMG, UniformConstant>
      %vb = spirv.Load "UniformConstant" %pb : IMG
      spirv.Store "Function" %t, %vb : IMG
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }}
    %tv = spirv.Load "Function" %t : IMG
    %sp = spirv.mlir.addressof @samp : !spirv.ptr<!spirv.sampler, UniformConstant>
    %s = spirv.Load "UniformConstant" %sp : !spirv.sampler
    %si = "spirv.SampledImage"(%tv, %s) : (IMG, !spirv.sampler) -> SIMG
    %half = spirv.Constant dense<0.5> : vector<2xf32>
    %r = spirv.ImageSampleImplicitLod %si, %half : SIMG, vector<2xf32> -> vector<4xf32>
    %o = spirv.mlir.addressof @out_var_SV_Target : !spirv.ptr<vector<4xf32>, Output>
    spirv.Store "Output" %o, %r : vector<4xf32>
    spirv.Return
  }}
  spirv.EntryPoint "Fragment" @main, @in_var_A, @out_var_SV_Target
  spirv.ExecutionMode @main "OriginUpperLeft"
}}"#
    );
    src
}

#[test]
fn a_resource_chosen_by_control_flow_is_an_error() {
    let src = chosen_resource("spirv.FOrdLessThan %a, %z : f32");
    let Err(error) = try_legalize("chosen_resource", &src) else { panic!("accepted") };
    assert!(error.message.contains("chosen by control flow"), "{error}");
    assert!(error.to_string().starts_with("chosen_resource.mlir:"), "{error}");
}

#[test]
fn a_resource_chosen_by_a_constant_condition_folds_to_its_global() {
    let text = legalized("constant_choice", &chosen_resource("spirv.Constant false"));
    assert!(text.contains("spirv.mlir.addressof @texB"), "{text}");
    assert!(!text.contains("spirv.mlir.addressof @texA") && !text.contains("spirv.mlir.selection"), "{text}");
}

#[test]
fn recursion_is_an_error_at_the_call() {
    let src = format!(
        r#"{HEADER}
  spirv.func @f(%x: !spirv.ptr<i32, Function>) "None" {{
    spirv.FunctionCall @g(%x) : (!spirv.ptr<i32, Function>) -> ()
    spirv.Return
  }}
  spirv.func @g(%x: !spirv.ptr<i32, Function>) "None" {{
    spirv.FunctionCall @f(%x) : (!spirv.ptr<i32, Function>) -> ()
    spirv.Return
  }}
  spirv.func @main() "None" {{
    %v = spirv.Variable : !spirv.ptr<i32, Function>
    spirv.FunctionCall @f(%v) : (!spirv.ptr<i32, Function>) -> ()
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}}"#
    );
    let Err(error) = try_legalize("recursion", &src) else { panic!("accepted") };
    assert!(error.message.contains("recursive call to '@f'"), "{error}");
    assert!(error.to_string().starts_with("recursion.mlir:7:5:"), "{error}");
}

#[test]
fn spirvkit_opt_runs_each_step_and_reports_errors_at_the_op() {
    use spirvkit_passes::opt::{run, OptOptions};
    let recursion = format!(
        r#"{HEADER}
  spirv.func @f() "None" {{
    spirv.FunctionCall @f() : () -> ()
    spirv.Return
  }}
  spirv.func @main() "None" {{
    spirv.FunctionCall @f() : () -> ()
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main
}}"#
    );
    let options = OptOptions { passes: vec!["--spirv-inline-all".into()], ..Default::default() };
    let r = run(&recursion, "t.mlir", &options);
    assert!(!r.success);
    assert!(
        r.diagnostics_text.starts_with("t.mlir:3:5: error: recursive call to '@f': recursion is not allowed"),
        "{}",
        r.diagnostics_text
    );
    // Each step by name, in a pipeline text too.
    for pipeline in [
        "builtin.module(spirv.module(spirv-merge-return,spirv-inline-all,spirv-sroa,spirv-mem2reg,spirv-dce))",
        "builtin.module(spirv.module(spirv-legalize))",
    ] {
        let options = OptOptions { pass_pipeline: Some(pipeline.into()), ..Default::default() };
        let r = run(&expand(&format!("{HEADER}{TEXTURE_IN_LOCAL}")), "t.mlir", &options);
        assert!(r.success, "{pipeline}: {}", r.diagnostics_text);
        assert!(!r.output.contains("spirv.Variable") && !r.output.contains("FunctionCall"), "{}", r.output);
    }
}

#[test]
fn malformed_ops_are_refused_not_panicked_on() {
    let src = format!(
        r#"{HEADER}
  spirv.func @main() "None" {{
    "spirv.Load"() : () -> ()
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main
}}"#
    );
    let Err(error) = try_legalize("malformed", &src) else { panic!("accepted") };
    assert!(error.message.contains("malformed 'spirv.Load' op"), "{error}");
}

#[test]
fn static_resources_and_statics_become_locals_then_values() {
    // `static Texture2D s_tex; static float s_scale;` set in the entry point: Private
    // globals, which Vulkan forbids for images.
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @tex bind(0, 0) : !spirv.ptr<IMG, UniformConstant>
  spirv.GlobalVariable @samp bind(0, 1) : !spirv.ptr<!spirv.sampler, UniformConstant>
  spirv.GlobalVariable @s_tex : !spirv.ptr<IMG, Private>
  spirv.GlobalVariable @s_scale : !spirv.ptr<f32, Private>
  spirv.GlobalVariable @out_var_SV_Target {{location = 0 : i32}} : !spirv.ptr<vector<4xf32>, Output>
  spirv.func @shade() -> vector<4xf32> "None" {{
    %st = spirv.mlir.addressof @s_tex : !spirv.ptr<IMG, Private>
    %t = spirv.Load "Private" %st : IMG
    %sp = spirv.mlir.addressof @samp : !spirv.ptr<!spirv.sampler, UniformConstant>
    %s = spirv.Load "UniformConstant" %sp : !spirv.sampler
    %si = "spirv.SampledImage"(%t, %s) : (IMG, !spirv.sampler) -> SIMG
    %half = spirv.Constant dense<0.5> : vector<2xf32>
    %r = spirv.ImageSampleImplicitLod %si, %half : SIMG, vector<2xf32> -> vector<4xf32>
    %kp = spirv.mlir.addressof @s_scale : !spirv.ptr<f32, Private>
    %k = spirv.Load "Private" %kp : f32
    %scaled = spirv.VectorTimesScalar %r, %k : (vector<4xf32>, f32) -> vector<4xf32>
    spirv.ReturnValue %scaled : vector<4xf32>
  }}
  spirv.func @main() "None" {{
    %tp = spirv.mlir.addressof @tex : !spirv.ptr<IMG, UniformConstant>
    %tv = spirv.Load "UniformConstant" %tp : IMG
    %st = spirv.mlir.addressof @s_tex : !spirv.ptr<IMG, Private>
    spirv.Store "Private" %st, %tv : IMG
    %two = spirv.Constant 2.0 : f32
    %kp = spirv.mlir.addressof @s_scale : !spirv.ptr<f32, Private>
    spirv.Store "Private" %kp, %two : f32
    %r = spirv.FunctionCall @shade() : () -> vector<4xf32>
    %o = spirv.mlir.addressof @out_var_SV_Target : !spirv.ptr<vector<4xf32>, Output>
    spirv.Store "Output" %o, %r : vector<4xf32>
    spirv.Return
  }}
  spirv.EntryPoint "Fragment" @main, @out_var_SV_Target
  spirv.ExecutionMode @main "OriginUpperLeft"
}}"#
    );
    let text = legalized("statics", &src);
    assert!(!text.contains("Private"), "{text}");
    assert!(!text.contains("spirv.Variable"), "{text}");
}

const SBUF: &str = "!spirv.struct<(!spirv.rtarray<vector<4xf32>, stride=16> [0]), Block>";

/// DXC's legal-examples/20-multi-func-ret-const-ok.hlsl: `StructuredBuffer<S>
/// foo(int l) { if (l == 0) return gSBuffer1; else return gSBuffer2; }` called with
/// constants: the comparisons fold, the branches go, each call yields its buffer.
/// With `l` read from a cbuffer (`select` = true) it is 19-multi-func-ret-fail.hlsl.
fn buffer_returned_by_a_function(select: bool) -> String {
    let argument = if select {
        "%ib = spirv.mlir.addressof @i : !spirv.ptr<!spirv.struct<(i32 [0]), Block>, StorageBuffer>\n    \
         %ip = spirv.AccessChain %ib[%c0] : !spirv.ptr<!spirv.struct<(i32 [0]), Block>, StorageBuffer>, i32 -> \
         !spirv.ptr<i32, StorageBuffer>\n    %arg = spirv.Load \"StorageBuffer\" %ip : i32"
    } else {
        "%arg = spirv.Constant 0 : i32"
    };
    format!(
        r#"{HEADER}
  spirv.GlobalVariable @i bind(0, 4) : !spirv.ptr<!spirv.struct<(i32 [0]), Block>, StorageBuffer>
  spirv.GlobalVariable @sbuf1 bind(0, 0) : !spirv.ptr<SBUF, StorageBuffer>
  spirv.GlobalVariable @sbuf2 bind(0, 1) : !spirv.ptr<SBUF, StorageBuffer>
  spirv.GlobalVariable @out1 bind(0, 2) : !spirv.ptr<SBUF, StorageBuffer>
  spirv.GlobalVariable @out2 bind(0, 3) : !spirv.ptr<SBUF, StorageBuffer>
  spirv.func @foo(%l: !spirv.ptr<i32, Function>) -> !spirv.ptr<SBUF, StorageBuffer> "None" {{
    %lv = spirv.Load "Function" %l : i32
    %c0 = spirv.Constant 0 : i32
    %eq = spirv.IEqual %lv, %c0 : i32
    spirv.mlir.selection {{
      spirv.BranchConditional %eq, ^then, ^else
    ^then:
      %a = spirv.mlir.addressof @sbuf1 : !spirv.ptr<SBUF, StorageBuffer>
      spirv.ReturnValue %a : !spirv.ptr<SBUF, StorageBuffer>
    ^else:
      %b = spirv.mlir.addressof @sbuf2 : !spirv.ptr<SBUF, StorageBuffer>
      spirv.ReturnValue %b : !spirv.ptr<SBUF, StorageBuffer>
    ^merge:
      spirv.mlir.merge
    }}
    spirv.Unreachable
  }}
  spirv.func @main() "None" {{
    %p1 = spirv.Variable : !spirv.ptr<i32, Function>
    %p2 = spirv.Variable : !spirv.ptr<i32, Function>
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    {argument}
    spirv.Store "Function" %p1, %arg : i32
    %b1 = spirv.FunctionCall @foo(%p1) : (!spirv.ptr<i32, Function>) -> !spirv.ptr<SBUF, StorageBuffer>
    %e1 = spirv.AccessChain %b1[%c0, %c0] : !spirv.ptr<SBUF, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xf32>, StorageBuffer>
    %v1 = spirv.Load "StorageBuffer" %e1 : vector<4xf32>
    %o1 = spirv.mlir.addressof @out1 : !spirv.ptr<SBUF, StorageBuffer>
    %f1 = spirv.AccessChain %o1[%c0, %c0] : !spirv.ptr<SBUF, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xf32>, StorageBuffer>
    spirv.Store "StorageBuffer" %f1, %v1 : vector<4xf32>
    spirv.Store "Function" %p2, %c1 : i32
    %b2 = spirv.FunctionCall @foo(%p2) : (!spirv.ptr<i32, Function>) -> !spirv.ptr<SBUF, StorageBuffer>
    %e2 = spirv.AccessChain %b2[%c0, %c0] : !spirv.ptr<SBUF, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xf32>, StorageBuffer>
    %v2 = spirv.Load "StorageBuffer" %e2 : vector<4xf32>
    %o2 = spirv.mlir.addressof @out2 : !spirv.ptr<SBUF, StorageBuffer>
    %f2 = spirv.AccessChain %o2[%c0, %c0] : !spirv.ptr<SBUF, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xf32>, StorageBuffer>
    spirv.Store "StorageBuffer" %f2, %v2 : vector<4xf32>
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}}"#
    )
    .replace("SBUF", SBUF)
}

#[test]
fn a_buffer_returned_by_a_function_called_with_constants_reaches_its_global() {
    let src = buffer_returned_by_a_function(false);
    let text = legalized("multi_func_ret_const", &src);
    let main = &text[text.find("@main").unwrap()..];
    assert!(!main.contains("spirv.mlir.selection") && !main.contains("spirv.Variable"), "{text}");
    let first = main.find("@sbuf1").expect("sbuf1 read");
    let second = main.find("@sbuf2").expect("sbuf2 read");
    assert!(first < second, "{text}");
}

#[test]
fn a_buffer_chosen_at_run_time_is_an_error_in_spirv_vals_words() {
    let Err(error) = try_legalize("multi_func_ret", &buffer_returned_by_a_function(true)) else {
        panic!("accepted")
    };
    assert!(
        error.message.contains("Using pointers with OpPhi requires capability VariablePointers"),
        "{error}"
    );
}

/// DXC's legal-examples/13-switch-stmt-const-ok.hlsl: `static const int constant =
/// 0;` (a Private global set at entry) picks the buffer through a switch.
#[test]
fn a_buffer_picked_by_a_switch_on_a_static_constant_reaches_its_global() {
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @constant : !spirv.ptr<i32, Private>
  spirv.GlobalVariable @sbuf1 bind(0, 0) : !spirv.ptr<SBUF, StorageBuffer>
  spirv.GlobalVariable @sbuf2 bind(0, 1) : !spirv.ptr<SBUF, StorageBuffer>
  spirv.GlobalVariable @out bind(0, 2) : !spirv.ptr<SBUF, StorageBuffer>
  spirv.func @main() "None" {{
    %local = spirv.Variable : !spirv.ptr<!spirv.ptr<SBUF, StorageBuffer>, Function>
    %c0 = spirv.Constant 0 : i32
    %kp = spirv.mlir.addressof @constant : !spirv.ptr<i32, Private>
    spirv.Store "Private" %kp, %c0 : i32
    %k = spirv.Load "Private" %kp : i32
    spirv.mlir.selection {{
      spirv.Switch %k : i32, [
        default: ^default,
        0: ^case0
      ]
    ^case0:
      %a = spirv.mlir.addressof @sbuf1 : !spirv.ptr<SBUF, StorageBuffer>
      spirv.Store "Function" %local, %a : !spirv.ptr<SBUF, StorageBuffer>
      spirv.Branch ^merge
    ^default:
      %b = spirv.mlir.addressof @sbuf2 : !spirv.ptr<SBUF, StorageBuffer>
      spirv.Store "Function" %local, %b : !spirv.ptr<SBUF, StorageBuffer>
      spirv.Branch ^merge
    ^merge:
      spirv.mlir.merge
    }}
    %l = spirv.Load "Function" %local : !spirv.ptr<SBUF, StorageBuffer>
    %e = spirv.AccessChain %l[%c0, %c0] : !spirv.ptr<SBUF, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xf32>, StorageBuffer>
    %v = spirv.Load "StorageBuffer" %e : vector<4xf32>
    %o = spirv.mlir.addressof @out : !spirv.ptr<SBUF, StorageBuffer>
    %f = spirv.AccessChain %o[%c0, %c0] : !spirv.ptr<SBUF, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xf32>, StorageBuffer>
    spirv.Store "StorageBuffer" %f, %v : vector<4xf32>
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}}"#
    )
    .replace("SBUF", SBUF);
    let text = legalized("switch_const", &src);
    assert!(text.contains("spirv.AccessChain %sbuf1_addr["), "{text}");
    assert!(!text.contains("spirv.Switch") && !text.contains("@constant"), "{text}");
}

#[test]
fn a_texture_reassigned_in_a_loop_from_its_global_needs_no_phi() {
    // `Texture2D t = tex; for (...) { t = tex; c += t.Sample(...); }`: every store
    // is the same global, so the loop-carried value is trivial.
    let src = format!(
        r#"{HEADER}
  spirv.GlobalVariable @tex bind(0, 0) : !spirv.ptr<IMG, UniformConstant>
  spirv.GlobalVariable @samp bind(0, 1) : !spirv.ptr<!spirv.sampler, UniformConstant>
  spirv.GlobalVariable @out_var_SV_Target {{location = 0 : i32}} : !spirv.ptr<vector<4xf32>, Output>
  spirv.func @main() "None" {{
    %t = spirv.Variable : !spirv.ptr<IMG, Function>
    %i = spirv.Variable : !spirv.ptr<i32, Function>
    %c = spirv.Variable : !spirv.ptr<vector<4xf32>, Function>
    %c0 = spirv.Constant 0 : i32
    %c1 = spirv.Constant 1 : i32
    %c3 = spirv.Constant 3 : i32
    %zero = spirv.Constant dense<0.0> : vector<4xf32>
    %half = spirv.Constant dense<0.5> : vector<2xf32>
    %tp = spirv.mlir.addressof @tex : !spirv.ptr<IMG, UniformConstant>
    %tv = spirv.Load "UniformConstant" %tp : IMG
    spirv.Store "Function" %t, %tv : IMG
    spirv.Store "Function" %c, %zero : vector<4xf32>
    spirv.Store "Function" %i, %c0 : i32
    spirv.mlir.loop {{
      spirv.Branch ^header
    ^header:
      %iv = spirv.Load "Function" %i : i32
      %lt = spirv.SLessThan %iv, %c3 : i32
      spirv.BranchConditional %lt, ^body, ^merge
    ^body:
      %tp2 = spirv.mlir.addressof @tex : !spirv.ptr<IMG, UniformConstant>
      %tv2 = spirv.Load "UniformConstant" %tp2 : IMG
      spirv.Store "Function" %t, %tv2 : IMG
      %img = spirv.Load "Function" %t : IMG
      %sp = spirv.mlir.addressof @samp : !spirv.ptr<!spirv.sampler, UniformConstant>
      %s = spirv.Load "UniformConstant" %sp : !spirv.sampler
      %si = "spirv.SampledImage"(%img, %s) : (IMG, !spirv.sampler) -> SIMG
      %r = spirv.ImageSampleImplicitLod %si, %half : SIMG, vector<2xf32> -> vector<4xf32>
      %cv = spirv.Load "Function" %c : vector<4xf32>
      %sum = spirv.FAdd %cv, %r : vector<4xf32>
      spirv.Store "Function" %c, %sum : vector<4xf32>
      spirv.Branch ^continue
    ^continue:
      %iv2 = spirv.Load "Function" %i : i32
      %in = spirv.IAdd %iv2, %c1 : i32
      spirv.Store "Function" %i, %in : i32
      spirv.Branch ^header
    ^merge:
      spirv.mlir.merge
    }}
    %final = spirv.Load "Function" %c : vector<4xf32>
    %o = spirv.mlir.addressof @out_var_SV_Target : !spirv.ptr<vector<4xf32>, Output>
    spirv.Store "Output" %o, %final : vector<4xf32>
    spirv.Return
  }}
  spirv.EntryPoint "Fragment" @main, @out_var_SV_Target
  spirv.ExecutionMode @main "OriginUpperLeft"
}}"#
    );
    let text = legalized("texture_in_loop", &src);
    assert!(!text.contains("spirv.Variable"), "{text}");
    assert_eq!(text.matches("spirv.Load \"UniformConstant\"").count(), 2, "{text}");
}
