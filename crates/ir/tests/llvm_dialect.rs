//! MLIR 22's LLVM dialect in the IR: texts of `tests/llvm/` print exactly as
//! `mlir-opt-22` printed them (the `.expected` files are its output, custom and generic
//! form), the generic form reads back, and ops built by name in the generic form (as
//! the SPIR-V to LLVM conversion builds them) print in their custom form.

use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::Location;
use spirvkit_ir::types::Signedness;
use spirvkit_ir::{parse, print, Ir, PrintOptions};
use spirvkit_passes::opt::{run, OptOptions};
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/llvm")
}

fn opt(text: &str, generic: bool) -> String {
    let options = OptOptions { generic, ..Default::default() };
    let r = run(text, "t.mlir", &options);
    assert!(r.success, "{}", r.diagnostics_text);
    r.output
}

#[test]
fn texts_print_as_mlir_opt_22_prints_them() {
    let mut checked = 0;
    let mut files: Vec<PathBuf> = std::fs::read_dir(data_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let custom = std::fs::read_to_string(file.with_extension("mlir.expected")).unwrap();
        let generic = std::fs::read_to_string(file.with_extension("generic.expected")).unwrap();
        assert_eq!(opt(&text, false), custom, "{}: custom form", file.display());
        assert_eq!(opt(&text, true), generic, "{}: generic form", file.display());
        // The generic form reads back to itself, and to the same custom form.
        assert_eq!(opt(&generic, true), generic, "{}: generic read back", file.display());
        assert_eq!(opt(&generic, false), custom, "{}: generic to custom", file.display());
        assert_eq!(opt(&custom, false), custom, "{}: custom read back", file.display());
        checked += 1;
    }
    assert!(checked >= 2, "the LLVM dialect texts are missing from {}", data_dir().display());
}

/// What the conversion does: ops created by name with only the properties it sets.
#[test]
fn ops_built_by_name_print_in_custom_form_with_mlirs_defaults() {
    let mut ir = Ir::new();
    let module = ir.create_op("builtin.module", vec![], &[], Location::Unknown);
    let module_region = ir.add_region(module);
    let module_block = ir.create_block();
    ir.append_block(module_region, module_block);

    let i32t = ir.types.integer(32, Signedness::Signless);
    let void = ir.types.llvm_void();
    let fn_ty = ir.types.llvm_function(void, vec![i32t], false);
    let func = ir.create_op("llvm.func", vec![], &[], Location::Unknown);
    ir.set_property(func, "function_type", Attribute::Type(fn_ty));
    ir.set_property(func, "sym_name", Attribute::String("kernel".into()));
    ir.append_op(module_block, func);
    let region = ir.add_region(func);
    let entry = ir.create_block();
    ir.append_block(region, entry);
    let arg = ir.add_block_argument(entry, i32t, Location::Unknown);
    let add = ir.create_op("llvm.add", vec![arg, arg], &[i32t], Location::Unknown);
    ir.append_op(entry, add);
    let cmp = {
        let i1 = ir.types.integer(1, Signedness::Signless);
        let op = ir.create_op("llvm.icmp", vec![arg, arg], &[i1], Location::Unknown);
        let i64t = ir.types.integer(64, Signedness::Signless);
        ir.op_mut(op).properties =
            vec![NamedAttribute::new("predicate", Attribute::Integer { value: 2, ty: i64t })];
        op
    };
    ir.append_op(entry, cmp);
    let ret = ir.create_op("llvm.return", vec![], &[], Location::Unknown);
    ir.append_op(entry, ret);

    let custom = print(&ir, module, PrintOptions::default());
    assert_eq!(
        custom.trim_end(),
        "module {\n  llvm.func @kernel(%arg0: i32) {\n    %0 = llvm.add %arg0, %arg0 : i32\n    \
         %1 = llvm.icmp \"slt\" %arg0, %arg0 : i32\n    llvm.return\n  }\n}"
    );
    let generic = print(&ir, module, PrintOptions { generic: true, ..Default::default() });
    assert!(
        generic.contains(
            "\"llvm.func\"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void (i32)>, \
             linkage = #llvm.linkage<external>, sym_name = \"kernel\", visibility_ = 0 : i64}>"
        ),
        "{generic}"
    );
    assert!(generic.contains("\"llvm.add\"(%arg0, %arg0) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32"));
    // The verifier accepts what was built.
    let (again, top) = parse(&generic, "t.mlir").unwrap();
    assert_eq!(print(&again, top, PrintOptions::default()), custom);
}

#[test]
fn ods_constraints_are_verified() {
    let text =
        "llvm.func @f(%a: f32) {\n  %0 = \"llvm.fadd\"(%a, %a) : (f32, f32) -> i32\n  llvm.return\n}\n";
    let r = run(text, "t.mlir", &OptOptions::default());
    assert!(!r.success);
    assert!(
        r.diagnostics_text
            .contains("'llvm.fadd' op failed to verify that all of {lhs, rhs, res} have same type")
            || r.diagnostics_text.contains("'llvm.fadd' op"),
        "{}",
        r.diagnostics_text
    );
    let text = "llvm.func @f(%a: f32) {\n  %0 = \"llvm.add\"(%a, %a) : (f32, f32) -> f32\n  llvm.return\n}\n";
    let r = run(text, "t.mlir", &OptOptions::default());
    assert!(
        r.diagnostics_text.contains(
            "'llvm.add' op operand #0 must be signless integer or LLVM dialect-compatible vector of \
             signless integer, but got 'f32'"
        ),
        "{}",
        r.diagnostics_text
    );
}

/// mlir-opt-22's messages for the LLVM dialect's trait predicates and block rule.
#[test]
fn trait_predicates_and_terminators_are_verified() {
    for (body, message) in [
        (
            "%0 = \"llvm.atomicrmw\"(%p, %i) <{bin_op = 1 : i64, ordering = 7 : i64}> : (!llvm.ptr, i32) -> i64\n  \
             llvm.return",
            "'llvm.atomicrmw' op failed to verify that result #0 and operand #1 have the same type",
        ),
        (
            "%0 = \"llvm.icmp\"(%i, %i) <{predicate = 2 : i64}> : (i32, i32) -> i32\n  llvm.return",
            "'llvm.icmp' op result #0 must be 1-bit signless integer or LLVM dialect-compatible vector of \
             1-bit signless integer, but got 'i32'",
        ),
        (
            "%0 = \"llvm.load\"(%i) <{ordering = 0 : i64}> : (i32) -> f32\n  llvm.return",
            "'llvm.load' op operand #0 must be LLVM pointer type, but got 'i32'",
        ),
        ("%0 = \"llvm.icmp\"(%i, %i) : (i32, i32) -> i1\n  llvm.return", "'llvm.icmp' op requires attribute 'predicate'"),
        (
            "%0 = llvm.mlir.constant(1 : i32) : i32",
            "block with no terminator, has %0 = \"llvm.mlir.constant\"() <{value = 1 : i32}> : () -> i32",
        ),
    ] {
        let text = format!("llvm.func @f(%p: !llvm.ptr, %i: i32) {{\n  {body}\n}}\n");
        let r = run(&text, "t.mlir", &OptOptions::default());
        assert!(!r.success && r.diagnostics_text.contains(message), "{body}\n{}", r.diagnostics_text);
    }
}

/// `llvm.call` and `llvm.mlir.addressof` name existing symbols of the right kind and
/// signature (MLIR's `verifySymbolUses`), in mlir-opt-22's words.
#[test]
fn symbol_uses_are_verified() {
    for (module, message) in [
        ("%0 = llvm.call @nope(%a) : (i32) -> f32", "'llvm.call' op 'nope' does not reference a symbol in the current scope"),
        ("%0 = llvm.call @g(%a, %a) : (i32, i32) -> f32", "'llvm.call' op incorrect number of operands (2) for callee (expecting: 1)"),
        ("%0 = llvm.call @g(%b) : (f32) -> f32", "'llvm.call' op operand type mismatch for operand 0: 'f32' != 'i32'"),
        ("%0 = llvm.call @g(%a) : (i32) -> i32", "'llvm.call' op result type mismatch: 'i32' != 'f32'"),
        ("%0 = llvm.call @v(%a) : (i32) -> i32", "'llvm.call' op calling function with void result must not produce values"),
        ("%0 = llvm.call @x(%a) : (i32) -> i32", "'llvm.call' op 'x' does not reference a valid LLVM function or IFunc"),
        (
            "%0 = llvm.mlir.addressof @nope : !llvm.ptr",
            "'llvm.mlir.addressof' op must reference a global defined by 'llvm.mlir.global', 'llvm.mlir.alias' or \
             'llvm.func' or 'llvm.mlir.ifunc'",
        ),
    ] {
        let text = format!(
            "llvm.func @g(i32) -> f32\nllvm.func @v(i32)\nllvm.mlir.global internal @x() {{addr_space = 0 : i32}} : i32\n\
             llvm.func @f(%a: i32, %b: f32) {{\n  {module}\n  llvm.return\n}}\n"
        );
        let r = run(&text, "t.mlir", &OptOptions::default());
        assert!(!r.success && r.diagnostics_text.contains(message), "{module}\n{}", r.diagnostics_text);
    }
    let fine = "llvm.func @g(i32) -> f32\nllvm.mlir.global internal @x() {addr_space = 0 : i32} : i32\n\
                llvm.func @f(%a: i32) -> f32 {\n  %0 = llvm.mlir.addressof @x : !llvm.ptr\n  \
                %1 = llvm.mlir.addressof @g : !llvm.ptr\n  %2 = llvm.call @g(%a) : (i32) -> f32\n  llvm.return %2 : f32\n}\n";
    let r = run(fine, "t.mlir", &OptOptions::default());
    assert!(r.success, "{}", r.diagnostics_text);
}

#[test]
fn malformed_custom_forms_are_errors_not_panics() {
    for text in [
        "llvm.func @f(",
        "llvm.func @f() -> (i32, i32)",
        "llvm.mlir.global internal @g()",
        "llvm.func @f(%p: !llvm.ptr) {\n  %0 = llvm.getelementptr %p[ : (!llvm.ptr) -> !llvm.ptr, i8\n}",
        "llvm.func @f(%s: !llvm.struct<(i32)>) {\n  %0 = llvm.extractvalue %s[3] : !llvm.struct<(i32)>\n}",
        "llvm.func @f(%a: i32) {\n  %0 = llvm.icmp \"bogus\" %a, %a : i32\n}",
        "llvm.func @f(%a: i32) {\n  llvm.switch %a : i32, ^bb1 [\n  1: \n]\n^bb1:\n  llvm.return\n}",
        "llvm.func @f(%a: i32) {\n  %0 = llvm.call @g(%a) vararg( : (i32) -> i32\n}",
    ] {
        let r = run(text, "t.mlir", &OptOptions::default());
        assert!(!r.success, "{text}");
        assert!(r.diagnostics_text.contains("error"), "{text}: {}", r.diagnostics_text);
    }
}

fn opt_with(text: &str, options: &OptOptions) -> Result<String, String> {
    let r = run(text, "t.mlir", options);
    if r.success {
        Ok(r.output)
    } else {
        Err(r.diagnostics_text)
    }
}

/// Newer MLIR's property list (strict property assembly formats): read always, printed
/// with `--mlir-print-strict-properties`; MLIR 22's attribute-dictionary form otherwise.
#[test]
fn properties_read_in_both_syntaxes_and_print_in_the_chosen_one() {
    let mlir22 = "llvm.func @f(%arg0: !llvm.ptr, %arg1: f32) -> f32 {\n\
                  \x20 %0 = llvm.load %arg0 {alignment = 4 : i64} : !llvm.ptr -> f32\n\
                  \x20 %1 = llvm.load volatile %arg0 {nontemporal} : !llvm.ptr -> f32\n\
                  \x20 llvm.store %arg1, %arg0 {alignment = 8 : i64, nontemporal} : f32, !llvm.ptr\n\
                  \x20 %2 = llvm.load %arg0 atomic acquire {alignment = 4 : i64, foo = 1 : i32} : !llvm.ptr -> f32\n\
                  \x20 llvm.return %0 : f32\n}\n";
    let newer = "llvm.func @f(%arg0: !llvm.ptr, %arg1: f32) -> f32 {\n\
                 \x20 %0 = llvm.load %arg0 <alignment = 4> : !llvm.ptr -> f32\n\
                 \x20 %1 = llvm.load volatile %arg0 <nontemporal> : !llvm.ptr -> f32\n\
                 \x20 llvm.store %arg1, %arg0 <alignment = 8, nontemporal> : f32, !llvm.ptr\n\
                 \x20 %2 = llvm.load %arg0 atomic acquire <alignment = 4> {foo = 1 : i32} : !llvm.ptr -> f32\n\
                 \x20 llvm.return %0 : f32\n}\n";
    // The generic form's `<{...}>` is newer MLIR's legacy input in that position.
    let legacy = newer.replace("<alignment = 4> :", "<{alignment = 4 : i64}> :");
    let default = OptOptions::default();
    let strict = OptOptions { strict_properties: true, ..Default::default() };
    let printed_22 = opt_with(mlir22, &default).unwrap();
    assert!(printed_22.contains("llvm.load %arg0 {alignment = 4 : i64} : !llvm.ptr -> f32"), "{printed_22}");
    let printed_newer = opt_with(mlir22, &strict).unwrap();
    for expected in [
        "llvm.load %arg0 <alignment = 4> : !llvm.ptr -> f32",
        "llvm.load volatile %arg0 <nontemporal> : !llvm.ptr -> f32",
        "llvm.store %arg1, %arg0 <alignment = 8, nontemporal> : f32, !llvm.ptr",
        "llvm.load %arg0 atomic acquire <alignment = 4> {foo = 1 : i32} : !llvm.ptr -> f32",
    ] {
        assert!(printed_newer.contains(expected), "missing `{expected}` in\n{printed_newer}");
    }
    for text in [newer, legacy.as_str()] {
        assert_eq!(opt_with(text, &default).unwrap(), printed_22, "{text}");
        assert_eq!(opt_with(text, &strict).unwrap(), printed_newer, "{text}");
    }
    // The generic form is the same in both modes.
    let generic = OptOptions { generic: true, ..Default::default() };
    let generic_strict = OptOptions { generic: true, strict_properties: true, ..Default::default() };
    assert_eq!(opt_with(newer, &generic).unwrap(), opt_with(mlir22, &generic_strict).unwrap());
}

#[test]
fn malformed_property_lists_are_errors() {
    for (list, message) in [
        ("<bogus = 4>", "expected a property of 'llvm.load'"),
        ("<alignment = 4, alignment = 8>", "duplicate property 'alignment'"),
        ("<alignment = 4", "expected '>'"),
        ("<>", "expected a property of 'llvm.load'"),
    ] {
        let text = format!(
            "llvm.func @f(%arg0: !llvm.ptr) -> f32 {{\n  %0 = llvm.load %arg0 {list} : !llvm.ptr -> f32\n  llvm.return %0 : f32\n}}\n"
        );
        let error = opt_with(&text, &OptOptions::default()).unwrap_err();
        assert!(error.contains(message), "{list}: {error}");
    }
}
