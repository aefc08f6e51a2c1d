//! The reader on malformed input: every case is an error naming the word offset
//! and the problem, never a panic.

use spirvkit_binary::{assemble, read, AsmOptions, ReadErrorKind};

fn module(text: &str) -> Vec<u32> {
    assemble(text, &AsmOptions::default()).expect("test module assembles")
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

const BASE: &str =
    "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%int = OpTypeInt 32 1\n%c = OpConstant %int 7\n";

#[test]
fn valid_module_reads_in_both_byte_orders() {
    let words = module(BASE);
    let little = read(&bytes(&words)).unwrap();
    assert_eq!(little.instruction_count(), 4);
    let big: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    let m = read(&big).unwrap();
    assert_eq!(m.words(), little.words());
    assert_eq!(spirvkit_binary::write(&m), big);
}

#[test]
fn truncated_header() {
    let e = read(&[3, 2, 0x23, 7]).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::TruncatedHeader { bytes: 4 }), "{e}");
}

#[test]
fn partial_word() {
    let mut b = bytes(&module(BASE));
    b.push(0);
    let e = read(&b).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::PartialWord { .. }), "{e}");
}

#[test]
fn bad_magic() {
    let mut w = module(BASE);
    w[0] = 0xdead_beef;
    let e = read(&bytes(&w)).unwrap_err();
    assert_eq!(e.word_offset, 0);
    assert!(matches!(e.kind, ReadErrorKind::BadMagic(0xdead_beef)), "{e}");
}

#[test]
fn zero_word_count() {
    let mut w = module(BASE);
    w[5] &= 0xffff;
    let e = read(&bytes(&w)).unwrap_err();
    assert_eq!(e.word_offset, 5);
    assert_eq!(e.kind, ReadErrorKind::ZeroWordCount);
}

#[test]
fn word_count_past_end() {
    let mut w = module(BASE);
    let last = w.len() - 4; // the OpConstant
    w[last] = (60 << 16) | (w[last] & 0xffff);
    let e = read(&bytes(&w)).unwrap_err();
    assert_eq!(e.word_offset, last);
    assert!(matches!(e.kind, ReadErrorKind::PastEnd { word_count: 60, remaining: 4, .. }), "{e}");
}

#[test]
fn unknown_opcode() {
    let mut w = module(BASE);
    w[5] = (2 << 16) | 9999;
    let e = read(&bytes(&w)).unwrap_err();
    assert_eq!(e.kind, ReadErrorKind::UnknownOpcode(9999));
}

#[test]
fn missing_and_extra_operands() {
    // OpMemoryModel with one operand instead of two.
    let mut w = module("OpMemoryModel Logical GLSL450\n");
    w[5] = (2 << 16) | 14;
    w.pop();
    let e = read(&bytes(&w)).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::MissingOperand { expected: "MemoryModel", .. }), "{e}");
    // OpCapability with a stray extra word.
    let mut w = module("OpCapability Shader\n");
    w[5] = (3 << 16) | 17;
    w.push(0);
    let e = read(&bytes(&w)).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::ExtraOperands { words: 2, word_count: 3, .. }), "{e}");
}

#[test]
fn unknown_enumerants_and_mask_bits() {
    let mut w = module("OpCapability Shader\n");
    w[6] = 99_999;
    let e = read(&bytes(&w)).unwrap_err();
    assert!(
        matches!(e.kind, ReadErrorKind::UnknownEnumerant { kind: "Capability", value: 99_999, .. }),
        "{e}"
    );
    let mut w =
        module("%v = OpTypeVoid\n%f = OpTypeFunction %v\n%m = OpFunction %v None %f\nOpFunctionEnd\n");
    let at = w.iter().rposition(|&x| x == 0).unwrap(); // the FunctionControl word
    w[at] = 1 << 30;
    let e = read(&bytes(&w)).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::UnknownEnumerant { kind: "FunctionControl", .. }), "{e}");
}

#[test]
fn unterminated_string() {
    let mut w = module("OpSourceExtension \"abcd\"\n");
    w.pop(); // drop the NUL word
    w[5] = ((w.len() - 5) as u32) << 16 | 4;
    let e = read(&bytes(&w)).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::UnterminatedString { .. }), "{e}");
}

#[test]
fn ids_at_or_above_bound_and_zero() {
    let mut w = module(BASE);
    w[3] = 2; // bound too small for %c (id 2)
    let e = read(&bytes(&w)).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::IdOutOfBound { id: 2, bound: 2, .. }), "{e}");
    let mut w = module(BASE);
    let n = w.len();
    w[n - 2] = 0; // the constant's result id
    let e = read(&bytes(&w)).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::ZeroId { .. }), "{e}");
}

#[test]
fn huge_bound_does_not_allocate() {
    let mut w = module(BASE);
    w[3] = u32::MAX;
    let n = w.len();
    w[n - 2] = u32::MAX - 1; // a huge but in-bound id
    let m = read(&bytes(&w)).unwrap();
    let text = spirvkit_binary::disassemble(&m, &Default::default());
    assert!(String::from_utf8(text).unwrap().contains("%int_7 = OpConstant %int 7"));
}

#[test]
fn constant_of_non_numeric_type() {
    let mut w = module(BASE);
    let n = w.len();
    w[n - 3] = 2; // result type = %c itself, not a type
    let e = read(&bytes(&w)).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::NotNumericType { .. }), "{e}");
}

#[test]
fn ext_inst_with_unknown_set_or_number() {
    let text = "%glsl = OpExtInstImport \"GLSL.std.450\"\n%f = OpTypeFloat 32\n%one = OpConstant %f 1\n%r = OpExtInst %f %glsl Sqrt %one\n";
    let mut w = module(text);
    let n = w.len();
    w[n - 2] = 9999; // instruction number
    let e = read(&bytes(&w)).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::UnknownExtInst { number: 9999, .. }), "{e}");
    let mut w = module(text);
    w[n - 3] = 2; // set id = %f, not an import
    let e = read(&bytes(&w)).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::NotAnExtInstImport(_)), "{e}");
    let e = read(&bytes(&module("%x = OpExtInstImport \"NonSemantic.Whatever\"\n"))).map(|_| ());
    assert!(e.is_ok(), "unknown NonSemantic sets are allowed");
    let mut w = module("%x = OpExtInstImport \"GLSL.std.450\"\n");
    w[7] = u32::from_le_bytes(*b"Bogu");
    let e = read(&bytes(&w)).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::UnknownExtInstSet(_)), "{e}");
}

#[test]
fn error_messages_name_the_offset() {
    let mut w = module(BASE);
    w[5] = (2 << 16) | 9999;
    let e = read(&bytes(&w)).unwrap_err();
    assert_eq!(e.to_string(), "word 5: unknown opcode 9999");
}

#[test]
fn duplicate_definitions() {
    let e = read(&bytes(&module("%t = OpTypeBool\n%a = OpUndef %t\n%a = OpUndef %t\n"))).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::DuplicateId { id: 2, .. }), "{e}");
}

#[test]
fn switch_on_a_selector_wider_than_64_bits() {
    let text = "%i = OpTypeInt 74 1\n%u = OpUndef %i\n%v = OpTypeVoid\n%fn = OpTypeFunction %v\n\
                %f = OpFunction %v None %fn\n%l = OpLabel\nOpSwitch %u %l\nOpFunctionEnd\n";
    let mut w = module(text);
    // Append one case: a 3-word literal and a label, as a 74-bit selector would need.
    let at = w.iter().position(|&x| x & 0xffff == 251).unwrap(); // OpSwitch
    w[at] += 4 << 16;
    w.splice(at + 3..at + 3, [5, 0, 0, 6]);
    let e = read(&bytes(&w)).unwrap_err();
    assert!(matches!(e.kind, ReadErrorKind::UnsupportedWidth { width: 74, .. }), "{e}");
}
