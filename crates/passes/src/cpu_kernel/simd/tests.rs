use super::*;

/// An invocation-shaped function: (ctx, lx, ly, lz, gx, gy, gz, frame, state) -> i32.
/// Lane x loops `lx` times (a divergent trip count), then stores to buffer[lx].
const LOOP: &str = r#"module {
  llvm.func @k(%ctx: !llvm.ptr, %lx: i32, %ly: i32, %lz: i32, %gx: i32, %gy: i32, %gz: i32, %frame: !llvm.ptr, %state: i32) -> i32 {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %done = llvm.mlir.constant(-1 : i32) : i32
    %buf = llvm.load %ctx : !llvm.ptr -> !llvm.ptr
    llvm.br ^head(%c0, %c0 : i32, i32)
  ^head(%i: i32, %acc: i32):
    %more = llvm.icmp "ult" %i, %lx : i32
    llvm.cond_br %more, ^body, ^exit
  ^body:
    %a = llvm.add %acc, %i : i32
    %n = llvm.add %i, %c1 : i32
    llvm.br ^head(%n, %a : i32, i32)
  ^exit:
    %p = llvm.getelementptr %buf[%lx] : (!llvm.ptr, i32) -> !llvm.ptr, i32
    llvm.store %acc, %p : i32, !llvm.ptr
    %q = llvm.getelementptr %buf[%gx] : (!llvm.ptr, i32) -> !llvm.ptr, i32
    %old = llvm.load %q : !llvm.ptr -> i32
    llvm.store %old, %buf : i32, !llvm.ptr
    llvm.return %done : i32
  }
}
"#;

fn parsed(source: &str) -> (Ir, BlockId, OpId) {
    let (ir, top) = spirvkit_ir::parse(source, "t.mlir").expect("parses");
    let body = ir.region(ir.op(top).regions[0]).blocks[0];
    let func = ir.block(body).ops[0];
    (ir, body, func)
}

fn printed(ir: &Ir, op: OpId) -> String {
    spirvkit_ir::print(ir, op, spirvkit_ir::PrintOptions::default())
}

#[test]
fn loops_stay_contiguous_in_the_linear_order() {
    let (ir, _, func) = parsed(LOOP);
    let region = ir.op(func).regions[0];
    let cfg = Cfg::new(&ir, region);
    let loops = find_loops(&ir, &cfg).expect("loops");
    assert_eq!(loops.len(), 1);
    assert_eq!(loops[0].header, 1);
    assert_eq!(loops[0].exits, vec![Some(3)]);
    // %acc is used after the loop: captured per lane when it leaves.
    assert_eq!(loops[0].live_out.len(), 1);
    let inner = innermost_loops(&loops, cfg.blocks.len());
    let order = schedule(&cfg, &loops, &inner).expect("schedule");
    assert_eq!(
        order,
        vec![
            Item::Block(0),
            Item::LoopStart(0),
            Item::Block(1),
            Item::Block(2),
            Item::LoopEnd(0),
            Item::Block(3)
        ]
    );
}

#[test]
fn a_divergent_loop_runs_while_any_lane_continues() {
    let (mut ir, module_block, func) = parsed(LOOP);
    let simd = build_simd_function(&mut ir, module_block, func, [16, 1, 1], SimdMode::Auto).expect("applies");
    assert!(simd.uniform_yz, "x size 16 is a multiple of the lanes");
    let text = printed(&ir, simd.func);
    // The loop's back edge is taken while any lane continues.
    assert!(text.contains("llvm.intr.vector.reduce.or"), "{text}");
    // The varying store (address from lx) is a scatter under the exit block's mask.
    assert!(text.contains("llvm.intr.masked.scatter"), "{text}");
    // The uniform pointer load from the context stays scalar; the uniform store keeps
    // a scalar store (to the sink page when no lane runs).
    assert!(text.contains("llvm.load %arg0 : !llvm.ptr -> !llvm.ptr"), "{text}");
    assert!(!text.contains("llvm.intr.masked.gather"), "{text}");
    assert!(text.contains("vector<8xi1>"), "{text}");
}

#[test]
fn y_and_z_are_lane_vectors_when_x_is_not_a_multiple_of_the_lanes() {
    let (mut ir, module_block, func) = parsed(LOOP);
    let simd = build_simd_function(&mut ir, module_block, func, [12, 1, 1], SimdMode::Auto).expect("applies");
    assert!(!simd.uniform_yz);
}

#[test]
fn a_kernel_without_a_loop_keeps_the_scalar_path_unless_asked() {
    let source = LOOP.replace("llvm.br ^head(%n, %a : i32, i32)", "llvm.br ^exit");
    let (mut ir, module_block, func) = parsed(&source);
    let refused = build_simd_function(&mut ir, module_block, func, [16, 1, 1], SimdMode::Auto);
    assert!(refused.is_err_and(|e| e.0.contains("no loop")));
    assert!(build_simd_function(&mut ir, module_block, func, [16, 1, 1], SimdMode::Always).is_ok());
    let off = build_simd_function(&mut ir, module_block, func, [16, 1, 1], SimdMode::Off);
    assert!(off.is_err());
}

#[test]
fn atomics_keep_the_scalar_path() {
    let source = LOOP.replace(
        "    llvm.store %acc, %p : i32, !llvm.ptr\n",
        "    %r = llvm.atomicrmw add %p, %acc monotonic : !llvm.ptr, i32\n",
    );
    let (mut ir, module_block, func) = parsed(&source);
    let before = ir.block(module_block).ops.len();
    let refused = build_simd_function(&mut ir, module_block, func, [16, 1, 1], SimdMode::Auto);
    assert!(refused.is_err_and(|e| e.0.contains("atomicrmw")));
    // Nothing is left behind.
    assert_eq!(ir.block(module_block).ops.len(), before);
}

#[test]
fn a_workgroup_smaller_than_the_lanes_keeps_the_scalar_path_unless_asked() {
    let (mut ir, module_block, func) = parsed(LOOP);
    let refused = build_simd_function(&mut ir, module_block, func, [1, 1, 1], SimdMode::Auto);
    assert!(refused.is_err_and(|e| e.0.contains("fewer invocations")));
    assert!(build_simd_function(&mut ir, module_block, func, [1, 1, 1], SimdMode::Always).is_ok());
}

#[test]
fn irreducible_flow_and_unreached_blocks_keep_the_scalar_path() {
    let irreducible = r#"module {
  llvm.func @k(%ctx: !llvm.ptr, %lx: i32, %ly: i32, %lz: i32, %gx: i32, %gy: i32, %gz: i32, %frame: !llvm.ptr, %state: i32) -> i32 {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %done = llvm.mlir.constant(-1 : i32) : i32
    %odd = llvm.icmp "ult" %lx, %gx : i32
    llvm.cond_br %odd, ^a, ^b
  ^a:
    %more = llvm.icmp "ult" %lx, %gy : i32
    llvm.cond_br %more, ^b, ^exit
  ^b:
    llvm.br ^a
  ^exit:
    llvm.return %done : i32
  }
}
"#;
    let (mut ir, module_block, func) = parsed(irreducible);
    let refused = build_simd_function(&mut ir, module_block, func, [16, 1, 1], SimdMode::Always)
        .err()
        .expect("refused");
    assert!(refused.0.contains("irreducible"), "{}", refused.0);

    let unreached = LOOP.replace(
        "    llvm.return %done : i32\n  }",
        "    llvm.return %done : i32\n  ^dead:\n    llvm.return %done : i32\n  }",
    );
    let (mut ir, module_block, func) = parsed(&unreached);
    let refused = build_simd_function(&mut ir, module_block, func, [16, 1, 1], SimdMode::Always)
        .err()
        .expect("refused");
    assert!(refused.0.contains("not reached"), "{}", refused.0);
}
