use super::interface::{BlockKind, BuiltIn, Descriptor, GlobalKind};
use super::*;

/// A glslang-built shader: LocalSizeId, a WorkgroupSize constant, spec constants used
/// in arithmetic, a BufferBlock with a runtime array, push constants, workgroup memory.
const SPEC: &str = include_str!("../../tests/data/cpu_kernel/spec.spirv.mlir");

fn module_of(source: &str) -> (Ir, OpId) {
    let (ir, top) = spirvkit_ir::parse(source, "t.mlir").expect("parses");
    let body = ir.region(ir.op(top).regions[0]).blocks[0];
    let module = ir.block(body).ops[0];
    (ir, module)
}

fn printed(ir: &Ir, op: OpId) -> String {
    spirvkit_ir::print(ir, op, spirvkit_ir::PrintOptions::default())
}

#[test]
fn interface_of_a_glslang_shader() {
    let (mut ir, module) = module_of(SPEC);
    let iface = prepare_spirv(&mut ir, module, None, &[]).expect("prepares");
    assert_eq!(iface.function, "main");
    // local_size_x_id = 3 defaults to 1.
    assert_eq!(iface.workgroup_size, [1, 1, 1]);
    let kind = |name: &str| iface.global(name).map(|g| g.kind.clone());
    assert_eq!(kind("gl_GlobalInvocationID"), Some(GlobalKind::BuiltIn(BuiltIn::GlobalInvocationId)));
    assert_eq!(kind("gl_LocalInvocationIndex"), Some(GlobalKind::BuiltIn(BuiltIn::LocalInvocationIndex)));
    assert_eq!(kind("tile"), Some(GlobalKind::Workgroup { size: 256, align: 4 }));
    assert_eq!(kind("pc"), Some(GlobalKind::PushConstant { size: 4 }));
    assert_eq!(
        kind("b"),
        Some(GlobalKind::Descriptor(Descriptor {
            set: 0,
            binding: 0,
            storage_class: "Uniform".into(),
            block: BlockKind::BufferBlock,
            fixed_size: 4,
            runtime_stride: Some(4),
            image: None,
            sampler: false,
        }))
    );
    assert!(iface.descriptors().all(|(_, d)| d.is_storage()));
    assert!(iface.describe().contains("workgroup size 1x1x1"), "{}", iface.describe());
}

#[test]
fn spec_values_set_the_workgroup_size_and_fold_into_constants() {
    let (mut ir, module) = module_of(SPEC);
    // SpecId 3: local_size_x; 7: SCALE (u32); 8: FLAG (bool).
    let iface = prepare_spirv(&mut ir, module, None, &[(3, 64), (7, 5), (8, 1)]).expect("prepares");
    assert_eq!(iface.workgroup_size, [64, 1, 1]);
    let text = printed(&ir, module);
    // Every use is a constant; only the scalar declarations stay (an array type may be
    // sized by one), holding the given values.
    assert!(!text.contains("referenceof") && !text.contains("SpecConstantComposite"), "{text}");
    assert!(!text.contains("SpecConstantOperation"), "{text}");
    let scale = text.lines().find(|l| l.contains("spirv.SpecConstant") && l.contains("spec_id(7)"));
    assert!(scale.is_some_and(|l| l.contains("= 5 : i32")), "{text}");
    // SCALE * 3 + 1 over the constant 5, and FLAG true.
    assert!(text.contains("spirv.Constant 5 : i32"), "{text}");
    assert!(text.contains("spirv.Constant true"), "{text}");
    assert!(text.contains("spirv.IMul"), "{text}");
    // The WorkgroupSize composite became a composite of constants with x = 64.
    assert!(text.contains("spirv.Constant 64 : i32"), "{text}");
    assert!(text.contains("spirv.CompositeConstruct"), "{text}");
}

/// The reader's bridge of an `OpSpecConstantOp` operand of mixed signedness (glslang's
/// `OpSpecConstantOp %uint IAdd %int_spec %uint_0`): a spec constant operation wrapping
/// a marked bitcast, which folds into a plain bitcast of the given value.
#[test]
fn spec_constant_operations_of_mixed_signedness_fold() {
    let source = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n\
        spirv.SpecConstant @lod spec_id(0) = 5 : si32\n\
        spirv.func @main() \"None\" {\n\
        %0 = spirv.Variable : !spirv.ptr<i32, Function>\n\
        %1 = spirv.mlir.referenceof @lod : si32\n\
        %cst0_i32 = spirv.Constant 0 : i32\n\
        %2 = spirv.SpecConstantOperation wraps \"spirv.Bitcast\"(%1) {spirvkit.mixed_signedness} : (si32) -> i32\n\
        %3 = spirv.SpecConstantOperation wraps \"spirv.IAdd\"(%2, %cst0_i32) : (i32, i32) -> i32\n\
        spirv.Store \"Function\" %0, %3 : i32\n\
        spirv.Return\n\
        }\n\
        spirv.EntryPoint \"GLCompute\" @main\n\
        spirv.ExecutionMode @main \"LocalSize\", 1, 1, 1\n\
        }\n";
    let (mut ir, module) = module_of(source);
    prepare_spirv(&mut ir, module, None, &[(0, 9)]).expect("prepares");
    let text = printed(&ir, module);
    assert!(!text.contains("SpecConstantOperation") && !text.contains("referenceof"), "{text}");
    assert!(text.contains("spirv.Constant 9 : si32"), "{text}");
    assert!(text.contains("{spirvkit.mixed_signedness} : si32 to i32"), "{text}");
    assert!(text.contains("spirv.IAdd"), "{text}");
}

#[test]
fn spec_errors_name_the_id() {
    let (mut ir, module) = module_of(SPEC);
    let err = prepare_spirv(&mut ir, module, None, &[(99, 1)]).unwrap_err();
    assert!(err.message.contains("SpecId 99"), "{err}");
    let (mut ir, module) = module_of(SPEC);
    let err = prepare_spirv(&mut ir, module, None, &[(8, 2)]).unwrap_err();
    assert!(err.message.contains("boolean"), "{err}");
    let (mut ir, module) = module_of(SPEC);
    let err = prepare_spirv(&mut ir, module, None, &[(3, 0)]).unwrap_err();
    assert!(err.message.contains("out of range"), "{err}");
}

#[test]
fn an_unknown_entry_point_is_an_error() {
    let (mut ir, module) = module_of(SPEC);
    let err = prepare_spirv(&mut ir, module, Some("other"), &[]).unwrap_err();
    assert!(err.message.contains("no compute entry point named 'other'"), "{err}");
}

#[test]
fn llvm_layouts_follow_the_x86_64_data_layout() {
    let mut ir = Ir::new();
    let i32 = ir.types.integer(32, spirvkit_ir::types::Signedness::Signless);
    let v3 = ir.types.vector(3, i32);
    let i8 = ir.types.integer(8, spirvkit_ir::types::Signedness::Signless);
    let s = ir.types.llvm_struct(false, vec![i8, i32]);
    let p = ir.types.llvm_struct(true, vec![i8, i32]);
    assert_eq!(workgroup::llvm_type_layout(&ir, v3), Some((12, 16, 16)));
    assert_eq!(workgroup::llvm_type_layout(&ir, s), Some((8, 8, 4)));
    assert_eq!(workgroup::llvm_type_layout(&ir, p), Some((5, 5, 1)));
}

#[test]
fn the_opt_pass_prints_the_interface_and_keeps_the_module() {
    let options =
        crate::opt::OptOptions { passes: vec!["--spirv-cpu-kernel-interface".into()], ..Default::default() };
    let r = crate::opt::run(SPEC, "spec.mlir", &options);
    assert!(r.success, "{}", r.diagnostics_text);
    assert!(r.output.starts_with("entry main (function @main), workgroup size 1x1x1\n"), "{}", r.output);
    assert!(r.output.contains("@pc: push constants: 4 bytes"), "{}", r.output);
    assert!(r.output.contains("spirv.SpecConstant @SCALE"), "the module is unchanged: {}", r.output);
}

/// A module declaring a bindless sampler array (as engines' shared headers do): unused, it
/// is removed from the module and its entry point's interface; used, it is still refused;
/// an unused storage buffer stays (a run may bind what the binary declares).
#[test]
fn unused_globals_the_cpu_cannot_bind_are_removed() {
    let module_text = |use_sampler: bool| {
        format!(
            r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.5, [Shader], []> {{
  spirv.GlobalVariable @gl_GlobalInvocationID built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @smp bind(0, 3) : !spirv.ptr<!spirv.rtarray<!spirv.sampler>, UniformConstant>
  spirv.GlobalVariable @unused_buf bind(0, 1) : !spirv.ptr<!spirv.struct<U, (!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>
  spirv.func @main() "None" {{
    %id = spirv.mlir.addressof @gl_GlobalInvocationID : !spirv.ptr<vector<3xi32>, Input>
    {}
    spirv.Return
  }}
  spirv.EntryPoint "GLCompute" @main, @gl_GlobalInvocationID, @smp, @unused_buf
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}}
"#,
            if use_sampler {
                "%s = spirv.mlir.addressof @smp : !spirv.ptr<!spirv.rtarray<!spirv.sampler>, UniformConstant>"
            } else {
                ""
            }
        )
    };
    let (mut ir, module) = module_of(&module_text(false));
    let iface = prepare_spirv(&mut ir, module, None, &[]).expect("the unused sampler array is dropped");
    assert!(iface.global("smp").is_none());
    assert!(iface.global("unused_buf").is_some());
    let text = printed(&ir, module);
    assert!(!text.contains("@smp"), "{text}");
    assert!(
        text.contains("spirv.EntryPoint \"GLCompute\" @main, @gl_GlobalInvocationID, @unused_buf"),
        "{text}"
    );

    let (mut ir, module) = module_of(&module_text(true));
    let err = prepare_spirv(&mut ir, module, None, &[]).expect_err("a used sampler array is refused");
    assert!(err.message.contains("@smp") && err.message.contains("not supported yet"), "{}", err.message);
}
