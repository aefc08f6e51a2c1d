//! Buffer layouts checked against dxc: each case declares a struct with the member types
//! of a dxc test (named in its comment) or of SPIR-V.rst's layout table, lowers it under
//! the rule that test runs with, and asserts the `Offset`, `ArrayStride` and
//! `MatrixStride`/majorness decorations dxc's CHECK lines show.

use spirvkit_codegen::layout::explicit_offsets;
use spirvkit_codegen::{LayoutRule, LowerOptions, TypeLowering};
use spirvkit_hlsl::frontend::{analyze_source, FrontendOptions};
use spirvkit_hlsl::preprocessor::MemoryLoader;
use spirvkit_hlsl::sema::types::{StructId, TypeData};
use spirvkit_ir::types::{StructBody, TypeKind, TypeStore};

/// The IR body of struct `name` from `source` lowered under `rule`, and the store.
fn lower(source: &str, name: &str, rule: LayoutRule, options: LowerOptions) -> (StructBody, TypeStore) {
    let mut fe_options = FrontendOptions::default();
    fe_options.sema.enable_16bit_types = options.sixteen_bit_types;
    let fe = analyze_source("t.hlsl", None, source.to_string(), &fe_options, &MemoryLoader::default());
    assert!(!fe.diags.has_errors(), "{}", fe.render_diagnostics());
    let tree = fe.typed.expect("typed tree");
    let explicit = explicit_offsets(&tree);
    let mut table = tree.types;
    let index = table.structs.iter().position(|s| s.name == name).expect("struct declared");
    let ty = table.intern(TypeData::Struct(StructId(index as u32)));
    let mut store = TypeStore::new();
    let lowered = TypeLowering::new(&table, &mut store, options)
        .with_explicit_offsets(explicit)
        .lower(ty, Some(rule))
        .expect("lowers");
    let TypeKind::IdentifiedStruct { name } = store.kind(lowered).clone() else { panic!("not a struct") };
    let body = store.struct_body(&name).expect("body set").clone();
    (body, store)
}

fn offsets(body: &StructBody) -> Vec<u32> {
    body.members.iter().map(|m| m.offset.expect("every member has an offset")).collect()
}

/// `(member, MatrixStride, "RowMajor"/"ColMajor")` for each matrix member.
fn matrices(body: &StructBody) -> Vec<(usize, u32, String)> {
    body.members
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            let stride = m.decorations.iter().find(|d| d.0 == "MatrixStride")?.1.as_ref()?.parse().ok()?;
            let major = m.decorations.iter().find(|d| d.0.ends_with("Major"))?.0.clone();
            Some((i, stride, major))
        })
        .collect()
}

/// The `ArrayStride` of member `index` (an array or runtime array).
fn array_stride(body: &StructBody, store: &TypeStore, index: usize) -> Option<u32> {
    match store.kind(body.members[index].ty) {
        TypeKind::Array { stride, .. } | TypeKind::RuntimeArray { stride, .. } => *stride,
        _ => None,
    }
}

const DEFAULT: LowerOptions = LowerOptions { sixteen_bit_types: false, default_row_major: false };

/// SPIR-V.rst, "Memory layout rules": the struct T of its example and the offsets of its
/// table for all four rule sets, uniform and storage buffers.
#[test]
fn spirv_rst_layout_table() {
    let source = "struct S { float3 f; };
        struct T { float a_float; float3 b_float3; S c_S_float3; float2x3 d_float2x3;
                   row_major float2x3 e_float2x3; int f_int_3[3]; float2 g_float2_2[2]; };";
    let cases: [(LayoutRule, [u32; 7]); 7] = [
        (LayoutRule::RelaxedStd140, [0, 4, 16, 32, 80, 112, 160]),
        (LayoutRule::FxcCBuffer, [0, 4, 16, 32, 80, 112, 160]),
        (LayoutRule::Std140, [0, 16, 32, 48, 96, 128, 176]),
        (LayoutRule::Scalar, [0, 4, 16, 28, 52, 76, 88]),
        (LayoutRule::RelaxedStd430, [0, 4, 16, 32, 64, 96, 112]),
        (LayoutRule::FxcStructuredBuffer, [0, 4, 16, 28, 52, 76, 88]),
        (LayoutRule::Std430, [0, 16, 32, 48, 80, 112, 128]),
    ];
    for (rule, expected) in cases {
        let (body, _) = lower(source, "T", rule, DEFAULT);
        assert_eq!(offsets(&body), expected, "{rule:?}");
    }
}

const SIXTY_FOUR_BIT: &str = "struct S { float f1; uint64_t f2; double f3[3]; float f4; int64_t3 f5;
    double3x2 f6; double2x1 f7; float f8; row_major double2x3 f9[2]; int64_t2 f10[1]; };";

/// vk.layout.64bit-types.std140.hlsl (the cbuffer's members as a struct).
#[test]
fn sixty_four_bit_types_std140() {
    let (body, store) = lower(SIXTY_FOUR_BIT, "S", LayoutRule::RelaxedStd140, DEFAULT);
    assert_eq!(offsets(&body), [0, 8, 16, 64, 96, 128, 192, 208, 224, 352]);
    assert_eq!(matrices(&body), [(5, 32, "RowMajor".into()), (8, 32, "ColMajor".into())]);
    assert_eq!(array_stride(&body, &store, 2), Some(16));
    assert_eq!(array_stride(&body, &store, 8), Some(64));
    assert_eq!(array_stride(&body, &store, 9), Some(16));
}

/// vk.layout.64bit-types.std430.hlsl, including the runtime array's stride (352).
#[test]
fn sixty_four_bit_types_std430() {
    let (body, store) = lower(SIXTY_FOUR_BIT, "S", LayoutRule::RelaxedStd430, DEFAULT);
    assert_eq!(offsets(&body), [0, 8, 16, 40, 64, 96, 160, 176, 192, 320]);
    assert_eq!(matrices(&body), [(5, 32, "RowMajor".into()), (8, 32, "ColMajor".into())]);
    assert_eq!(array_stride(&body, &store, 2), Some(8));
    assert_eq!(array_stride(&body, &store, 8), Some(64));
    let source = format!("{SIXTY_FOUR_BIT} struct W {{ S s[]; }};");
    let (wrapper, store) = lower(&source, "W", LayoutRule::RelaxedStd430, DEFAULT);
    assert_eq!(array_stride(&wrapper, &store, 0), Some(352));
}

const FXC_STRUCT: &str = "struct S { float scalar1; double scalar2; float3 vector1; float3 vector2;
    double3 vector3; double3 vector4; float2x3 matrix1; row_major float2x3 matrix2;
    float3x2 matrix3; row_major float3x2 matrix4; float scalarArray1[1]; double scalarArray2[2];
    float3 vectorArray1[1]; float3 vectorArray2[2]; double3 vectorArray3[3]; double3 vectorArray4[4];
    float2x3 matrixArray1[1]; row_major float2x3 matrixArray2[2]; float3x2 matrixArray3[3];
    row_major float3x2 matrixArray4[4]; };
    struct W { S s[2]; };";

/// vk.layout.cbuffer.fxc.hlsl (`-fvk-use-dx-layout`, ConstantBuffer<S>).
#[test]
fn fxc_cbuffer_packing() {
    let (body, store) = lower(FXC_STRUCT, "S", LayoutRule::FxcCBuffer, DEFAULT);
    assert_eq!(
        offsets(&body),
        [0, 8, 16, 32, 48, 80, 112, 160, 192, 224, 272, 288, 320, 336, 368, 464, 592, 640, 704, 800]
    );
    let strides: Vec<_> = (10..20).map(|i| array_stride(&body, &store, i).unwrap()).collect();
    assert_eq!(strides, [16, 16, 16, 16, 32, 32, 48, 32, 32, 48]);
    let majors: Vec<_> = matrices(&body).into_iter().map(|(i, s, m)| (i, s, m.starts_with("Row"))).collect();
    assert_eq!(
        majors,
        [
            (6, 16, true),
            (7, 16, false),
            (8, 16, true),
            (9, 16, false),
            (16, 16, true),
            (17, 16, false),
            (18, 16, true),
            (19, 16, false)
        ]
    );
    let (wrapper, store) = lower(FXC_STRUCT, "W", LayoutRule::FxcCBuffer, DEFAULT);
    assert_eq!(array_stride(&wrapper, &store, 0), Some(992));
}

/// vk.layout.sbuffer.fxc.hlsl (`-fvk-use-dx-layout`, StructuredBuffer<S>).
#[test]
fn fxc_structured_buffer_packing() {
    let (body, store) = lower(FXC_STRUCT, "S", LayoutRule::FxcStructuredBuffer, DEFAULT);
    assert_eq!(
        offsets(&body),
        [0, 8, 16, 28, 40, 64, 88, 112, 136, 160, 184, 192, 208, 220, 248, 320, 416, 440, 488, 560]
    );
    let strides: Vec<_> = (10..20).map(|i| array_stride(&body, &store, i).unwrap()).collect();
    assert_eq!(strides, [4, 8, 12, 12, 24, 24, 24, 24, 24, 24]);
    let matrix_strides: Vec<_> = matrices(&body).into_iter().map(|(i, s, _)| (i, s)).collect();
    assert_eq!(matrix_strides, [(6, 8), (7, 12), (8, 12), (9, 8), (16, 8), (17, 12), (18, 12), (19, 8)]);
    let source = format!("{FXC_STRUCT} struct R {{ S s[]; }};");
    let (wrapper, store) = lower(&source, "R", LayoutRule::FxcStructuredBuffer, DEFAULT);
    assert_eq!(array_stride(&wrapper, &store, 0), Some(656));
}

/// vk.layout.cbuffer.scalar.hlsl (`-fvk-use-scalar-layout -enable-16bit-types`).
#[test]
fn scalar_layout() {
    let source = "struct R { double rf; };
        struct S { R sf1; float sf2; float3 sf3; float sf4; };
        struct T { int tf1; R tf2[3]; float3x2 tf3; S tf4; float16_t tf5; float tf6; };
        struct B { bool a; uint1 b; float3 c; row_major float2x3 d; column_major float2x3 e;
                   float2x1 f; row_major float2x3 g[3]; column_major float2x2 h[4]; T t; float z; };";
    let options = LowerOptions { sixteen_bit_types: true, ..DEFAULT };
    let (s, _) = lower(source, "S", LayoutRule::Scalar, options);
    assert_eq!(offsets(&s), [0, 8, 12, 24]);
    let (t, store) = lower(source, "T", LayoutRule::Scalar, options);
    assert_eq!(offsets(&t), [0, 8, 32, 56, 88, 92]);
    assert_eq!(matrices(&t), [(2, 12, "RowMajor".into())]);
    assert_eq!(array_stride(&t, &store, 1), Some(8));
    let (b, store) = lower(source, "B", LayoutRule::Scalar, options);
    assert_eq!(offsets(&b), [0, 4, 8, 20, 44, 68, 76, 148, 216, 312]);
    assert_eq!(
        matrices(&b),
        [
            (3, 12, "ColMajor".into()),
            (4, 8, "RowMajor".into()),
            (6, 12, "ColMajor".into()),
            (7, 8, "RowMajor".into())
        ]
    );
    assert_eq!(array_stride(&b, &store, 6), Some(24));
    assert_eq!(array_stride(&b, &store, 7), Some(16));
}

/// vk.layout.cbuffer.boolean.hlsl: booleans are 32-bit unsigned in buffers, and a
/// row_major bool2x3 is an array of two uint3 rows with stride 16.
#[test]
fn booleans_in_a_cbuffer() {
    let source = "struct T { bool boolArray[1]; };
        struct FrameConstants { bool boolScalar; bool3 boolVec; row_major bool2x3 boolMat; T t; };";
    let (body, store) = lower(source, "FrameConstants", LayoutRule::RelaxedStd140, DEFAULT);
    assert_eq!(offsets(&body)[..3], [0, 4, 16]);
    assert_eq!(array_stride(&body, &store, 2), Some(16));
    let TypeKind::Array { element, count: 2, .. } = store.kind(body.members[2].ty) else { panic!("array") };
    let TypeKind::Vector { element: scalar, shape, .. } = store.kind(*element) else { panic!("vector") };
    assert_eq!(shape, &[3]);
    assert_eq!(
        store.kind(*scalar),
        &TypeKind::Integer { width: 32, signedness: spirvkit_ir::types::Signedness::Signless }
    );
}

/// vk.layout.sbuffer.vector-and-matrix.with.fxc.rule.hlsl (`-fvk-use-dx-layout
/// -enable-16bit-types`, structured buffers): structs round their size to their
/// alignment, which shows in the runtime array strides.
#[test]
fn fxc_structured_buffer_vectors_and_matrices() {
    let source = "struct TestStruct0 { half first; double3 second; float last; };
        struct TestStruct1 { half first; double3x2 second; float last; };
        struct InnerTestStruct2 { float a; double2x3 b[2]; double3 c; half last; };
        struct TestStruct2 { float first; InnerTestStruct2 second; float last; };
        struct B0 { TestStruct0 s[]; }; struct B1 { TestStruct1 s[]; }; struct B2 { TestStruct2 s[]; };";
    let options = LowerOptions { sixteen_bit_types: true, ..DEFAULT };
    let rule = LayoutRule::FxcStructuredBuffer;
    let (s0, _) = lower(source, "TestStruct0", rule, options);
    assert_eq!(offsets(&s0), [0, 8, 32]);
    let (s1, _) = lower(source, "TestStruct1", rule, options);
    assert_eq!(offsets(&s1), [0, 8, 56]);
    assert_eq!(matrices(&s1), [(1, 24, "RowMajor".into())]);
    let (inner, store) = lower(source, "InnerTestStruct2", rule, options);
    assert_eq!(offsets(&inner), [0, 8, 104, 128]);
    assert_eq!(matrices(&inner), [(1, 16, "RowMajor".into())]);
    assert_eq!(array_stride(&inner, &store, 1), Some(48));
    let (s2, _) = lower(source, "TestStruct2", rule, options);
    assert_eq!(offsets(&s2), [0, 8, 144]);
    for (wrapper, stride) in [("B0", 40), ("B1", 64), ("B2", 152)] {
        let (body, store) = lower(source, wrapper, rule, options);
        assert_eq!(array_stride(&body, &store, 0), Some(stride), "{wrapper}");
    }
}

/// vk.layout.cbuffer.fxc.1.hlsl: under fxc's cbuffer packing a struct starts a new
/// 16-byte register but the next member may use its tail.
#[test]
fn fxc_cbuffer_struct_tail_is_reused() {
    let source = "struct S { float a; }; struct T { float a; S b; float c; S d; };";
    let (body, _) = lower(source, "T", LayoutRule::FxcCBuffer, DEFAULT);
    assert_eq!(offsets(&body), [0, 16, 20, 32]);
}

/// vk.layout.16bit-types.cbuffer.hlsl (the cbuffer's members as a struct).
#[test]
fn sixteen_bit_types_std140() {
    let source = "struct S { uint16_t2 gVal1; int16_t gVal2; half3x2 gVal3; };";
    let options = LowerOptions { sixteen_bit_types: true, ..DEFAULT };
    let (body, _) = lower(source, "S", LayoutRule::RelaxedStd140, options);
    assert_eq!(offsets(&body), [0, 4, 16]);
    assert_eq!(matrices(&body), [(2, 16, "RowMajor".into())]);
}

/// vk.layout.cbuffer.zpr.hlsl (`-Zpr`): unannotated matrices are row-major, so they take
/// `ColMajor` and the row-major array strides; integer matrices are arrays of rows.
#[test]
fn zpr_makes_matrices_row_major() {
    let source = "struct S { row_major float2x3 matrices1[5]; column_major float2x3 matrices2[5];
        float2x3 matrices3[5]; row_major int2x3 matrices4[5]; int2x3 matrices5[5]; };";
    let options = LowerOptions { default_row_major: true, ..DEFAULT };
    let (body, store) = lower(source, "S", LayoutRule::RelaxedStd140, options);
    let majors: Vec<_> = matrices(&body).into_iter().map(|(i, _, m)| (i, m)).collect();
    assert_eq!(majors, [(0, "ColMajor".into()), (1, "RowMajor".into()), (2, "ColMajor".into())]);
    let strides: Vec<_> = (0..5).map(|i| array_stride(&body, &store, i).unwrap()).collect();
    assert_eq!(strides, [32, 48, 32, 32, 32]);
    let TypeKind::Array { element, .. } = store.kind(body.members[3].ty) else { panic!("array") };
    assert!(matches!(store.kind(*element), TypeKind::Array { count: 2, stride: Some(16), .. }));
}

/// vk.push-constant.offset.hlsl: `[[vk::offset]]` overrides the computed offsets (push
/// constants take the std430 rules).
#[test]
fn vk_offset_overrides_the_rule() {
    let source = "struct S { float a; [[vk::offset(8)]] float2 b; [[vk::offset(32)]] float4 f; };";
    let rule = LayoutRule::for_buffer(spirvkit_codegen::BufferKind::PushConstant, Default::default());
    let (body, _) = lower(source, "S", rule, DEFAULT);
    assert_eq!(offsets(&body), [0, 8, 32]);
    // Without the attributes the relaxed rule packs the float2 right after the float.
    let (body, _) = lower("struct S { float a; float2 b; float4 f; };", "S", rule, DEFAULT);
    assert_eq!(offsets(&body), [0, 4, 16]);
}

/// The lowered types print in the IR's MLIR syntax with their layout decorations.
#[test]
fn lowered_types_print_as_mlir_spirv_types() {
    let source = "struct S { float a; float3 b; row_major float2x3 m; int c[2]; };";
    let (body, store) = lower(source, "S", LayoutRule::RelaxedStd140, DEFAULT);
    let mut ir = spirvkit_ir::ir::Ir::new();
    ir.types = store;
    let members: Vec<String> =
        body.members.iter().map(|m| spirvkit_ir::text::printer::type_to_string(&ir, m.ty)).collect();
    assert_eq!(
        members,
        ["f32", "vector<3xf32>", "!spirv.matrix<2 x vector<3xf32>>", "!spirv.array<2 x si32, stride=16>"]
    );
    let lowered = ir.types.find(&TypeKind::IdentifiedStruct { name: "S.std140".into() }).expect("interned");
    let text = spirvkit_ir::text::printer::type_to_string(&ir, lowered);
    assert!(text.contains("[16, MatrixStride=16, ColMajor]"), "{text}");
}

/// vk.layout.cbuffer.nested.std140.hlsl (`-fvk-use-gl-layout`): arrays of matrices of
/// both majornesses, integer matrices, and arrays of nested structs.
#[test]
fn gl_std140_nested_arrays_and_matrices() {
    let source = "struct R { row_major float2x3 rf1[3]; column_major float2x3 rf2[4]; float2x3 rf3[2];
            row_major int2x3 rf4[2]; int rf5; };
        struct S { float3 sf1[3]; float sf2[3]; R sf3[4]; row_major float3x2 sf4[2];
            column_major float3x2 sf5[3]; float3x2 sf6[4]; float sf7; };
        struct T { R tf1[2]; S tf2[3]; uint tf3; };
        struct B { T t[2]; bool z; };";
    let rule = LayoutRule::Std140;
    let (r, store) = lower(source, "R", rule, DEFAULT);
    assert_eq!(offsets(&r), [0, 96, 288, 384, 448]);
    assert_eq!(
        matrices(&r),
        [(0, 16, "ColMajor".into()), (1, 16, "RowMajor".into()), (2, 16, "RowMajor".into())]
    );
    let strides: Vec<_> = (0..4).map(|i| array_stride(&r, &store, i).unwrap()).collect();
    assert_eq!(strides, [32, 48, 48, 32]);
    let (s, store) = lower(source, "S", rule, DEFAULT);
    assert_eq!(offsets(&s), [0, 48, 96, 1952, 2048, 2144, 2272]);
    let strides: Vec<_> = (0..6).map(|i| array_stride(&s, &store, i).unwrap()).collect();
    assert_eq!(strides, [16, 16, 464, 48, 32, 32]);
    let (t, store) = lower(source, "T", rule, DEFAULT);
    assert_eq!(offsets(&t), [0, 928, 7792]);
    assert_eq!(array_stride(&t, &store, 1), Some(2288));
    let (b, store) = lower(source, "B", rule, DEFAULT);
    assert_eq!(offsets(&b), [0, 15616]);
    assert_eq!(array_stride(&b, &store, 0), Some(7808));
}

/// vk.layout.sbuffer.struct-size.with.fxc.rule.hlsl (`-fvk-use-dx-layout
/// -enable-16bit-types`): structured-buffer element strides.
#[test]
fn fxc_structured_buffer_struct_sizes() {
    let source = "struct TestStruct0 { double Double; float3 Float; };
        struct TestStruct1 { double Double; float Float; };
        struct TestStruct2 { double Double[2]; float Float; };
        struct TestStruct3 { double Double[2]; float3 Float; };
        struct TestStruct4 { float a; half b; };
        struct TestStruct5 { float a; half3 b; };
        struct TestStruct6 { float2 a; half3 b; };";
    let options = LowerOptions { sixteen_bit_types: true, ..DEFAULT };
    let expected = [(8, 24), (8, 16), (16, 24), (16, 32), (4, 8), (4, 12), (8, 16)];
    for (index, (second, stride)) in expected.into_iter().enumerate() {
        let source = format!("{source} struct B {{ TestStruct{index} s[]; }};");
        let (element, _) =
            lower(&source, &format!("TestStruct{index}"), LayoutRule::FxcStructuredBuffer, options);
        assert_eq!(offsets(&element), [0, second], "TestStruct{index}");
        let (buffer, store) = lower(&source, "B", LayoutRule::FxcStructuredBuffer, options);
        assert_eq!(array_stride(&buffer, &store, 0), Some(stride), "TestStruct{index}");
    }
}

/// vk.layout.16bit-types.sbuffer.hlsl: 16-bit members nested in a std430 struct.
#[test]
fn sixteen_bit_types_std430() {
    let source = "struct S { float16_t3x2 val1; uint16_t2 val2; int16_t val3; };
        struct T { S nested; float4 val; };
        struct B { T t[]; };";
    let options = LowerOptions { sixteen_bit_types: true, ..DEFAULT };
    let (s, _) = lower(source, "S", LayoutRule::RelaxedStd430, options);
    assert_eq!(offsets(&s), [0, 16, 20]);
    assert_eq!(matrices(&s), [(0, 8, "RowMajor".into())]);
    let (t, _) = lower(source, "T", LayoutRule::RelaxedStd430, options);
    assert_eq!(offsets(&t), [0, 32]);
    let (b, store) = lower(source, "B", LayoutRule::RelaxedStd430, options);
    assert_eq!(array_stride(&b, &store, 0), Some(48));
}
