//! Instructions and types that MLIR's SPIR-V dialect has no op or type for
//! (`OpInBoundsAccessChain`, `OpFwidth`, `OpImageQuerySizeLod`, ray-tracing
//! instructions, `OpTypeAccelerationStructureKHR`, ...), so that every module of the
//! grammar survives a round trip instead of being refused.
//!
//! Such an instruction becomes an op named `spirv.<instruction name without "Op">`
//! (`"spirv.InBoundsAccessChain"`), printed in the generic form: its result type
//! and result as the op's, its id operands as the op's operands in order, and its
//! other operands (literals, enumerants, strings) in the discardable attribute
//! `literals` — one entry per operand: a string attribute for a literal string, `N :
//! i32` for a one-word operand, `array<i32: ...>` for a wider one. When literals are
//! present, `operand_layout` records the interleaving (`i` = next op operand, `l` =
//! next literal), so the words are written back in grammar order without
//! re-deriving the grammar's optional and enumerant-dependent operands.
//!
//! Extended instructions of GLSL.std.450 and OpenCL.std that the dialect lacks
//! (`MatrixInverse`, ...) become `spirv.GL.<name>`/`spirv.CL.<name>` ops the same way.
//!
//! Extended instructions of every other set — the grammar's (`NonSemantic.DebugPrintf`,
//! `NonSemantic.Shader.DebugInfo.100`, `SPV_AMD_*`, `DebugInfo`, ...) and `NonSemantic.*`
//! sets it does not know, whose operands are all ids — become one generic op,
//! `spirv.ExtInst`, with the import name in `set` and the instruction in `instruction`
//! (its grammar name, or its number when the grammar does not know it). One op for
//! all of them: a set's name is not a valid op-name segment (`...DebugInfo.100`), and
//! unknown sets have no instruction names. A void result is a `none` value, so later
//! instructions can name it. Non-semantic instructions may also sit at module level
//! (debug information); there the op has no results and is a symbol (`sym_name`).
//!
//! Ids that are no SSA value where the op is — an `OpString`, a type, a function, a
//! module-level extended instruction, and at module level constants, variables and
//! spec constants — are kept in `literals` as what they name, with the layout letter
//! `r`: a string attribute for an `OpString`'s text, a type attribute (`none` for
//! `OpTypeVoid`), a symbol reference, or a constant's typed value.
//!
//! Types whose operands are enumerants and literal numbers become opaque
//! `!spirv.<type name without "OpType">` types, their operands by grammar name
//! (`!spirv.AccelerationStructureKHR`, `!spirv.UntypedPointerKHR<StorageBuffer>`).
//! An id operand of a fallback instruction that names a type
//! (`OpUntypedAccessChainKHR`'s base type) is such a reference: a type attribute.

use spirvkit_binary::module::Inst;
use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_grammar::{Category, OperandKind, Quantifier};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::Operation;
use spirvkit_ir::types::{Signedness, Type, TypeStore};

/// The attribute holding a fallback op's non-id operands.
pub const LITERALS_ATTR: &str = "literals";
/// The attribute recording how ids and literals interleave.
pub const LAYOUT_ATTR: &str = "operand_layout";
/// The generic op of an extended instruction of a set without a dialect prefix.
pub const EXT_INST_OP: &str = "spirv.ExtInst";
/// `spirv.ExtInst`'s import name (`NonSemantic.DebugPrintf`).
pub const EXT_SET_ATTR: &str = "set";
/// `spirv.ExtInst`'s instruction: its grammar name, or its number.
pub const EXT_INSTRUCTION_ATTR: &str = "instruction";
/// A module-level `spirv.ExtInst`'s result type, when it is not void.
pub const EXT_RESULT_TYPE_ATTR: &str = "result_type";
/// `spirv.ExtInst` of an `OpExtInstWithForwardRefsKHR` (`forward_refs`, a unit
/// attribute): the instruction that may name later ones (DXC's debug types name
/// their members before them), which a plain OpExtInst may not.
pub const EXT_FORWARD_REFS_ATTR: &str = "forward_refs";
/// The attributes of `spirv.ExtInst` that are not decorations.
pub const EXT_INST_ATTRS: &[&str] = &[
    LITERALS_ATTR,
    LAYOUT_ATTR,
    EXT_SET_ATTR,
    EXT_INSTRUCTION_ATTR,
    EXT_RESULT_TYPE_ATTR,
    EXT_FORWARD_REFS_ATTR,
    "sym_name",
];

/// `spirv.ExtInst`'s `instruction`: the grammar's name when the set is known.
pub fn ext_instruction_attr(import_name: &str, number: u32, i32_type: spirvkit_ir::types::Type) -> Attribute {
    match spirvkit_grammar::ext_inst_set(import_name).and_then(|set| set.instruction(number)) {
        Some(inst) => Attribute::String(inst.name.to_string()),
        None => Attribute::Integer { value: i128::from(number as i32), ty: i32_type },
    }
}

/// The instruction number `spirv.ExtInst`'s `instruction` names in set `import_name`.
pub fn ext_instruction_number(import_name: &str, attr: &Attribute) -> Option<u32> {
    match attr {
        Attribute::String(name) => {
            spirvkit_grammar::ext_inst_set(import_name)?.instruction_by_name(name).map(|i| i.opcode)
        }
        // Kept as `i32`, as literals are: the word's bits.
        Attribute::Integer { value, .. } => Some(*value as u32),
        _ => None,
    }
}

/// The op name for an instruction the dialect does not model.
pub fn fallback_op_name(opcode: u16) -> Option<String> {
    let name = spirvkit_grammar::instruction(opcode)?.name;
    Some(format!("spirv.{}", name.strip_prefix("Op").unwrap_or(name)))
}

/// The opcode of a fallback op: `spirv.X` names grammar instruction `OpX`, and the
/// dialect has no op definition of that name.
pub fn fallback_opcode(op_name: &str) -> Option<u16> {
    if spirvkit_ir::opdef::op_def(op_name).is_some() {
        return None;
    }
    let short = op_name.strip_prefix("spirv.")?;
    if short.contains('.') {
        return None;
    }
    spirvkit_grammar::instruction_by_name(&format!("Op{short}")).map(|i| i.opcode)
}

/// The dialect's op-name prefix of each extended instruction set it models, with the
/// set's import name (shared by the serializer and the fallback encoding).
pub const EXT_SET_PREFIXES: &[(&str, &str)] = &[("spirv.GL.", "GLSL.std.450"), ("spirv.CL.", "OpenCL.std")];

/// The op name for an extended instruction the dialect does not model (`None` for
/// sets without a dialect prefix, or an instruction the dialect has).
pub fn fallback_ext_op_name(import_name: &str, ext_opcode: u32) -> Option<String> {
    let (prefix, _) = EXT_SET_PREFIXES.iter().find(|(_, set)| *set == import_name)?;
    let inst = spirvkit_grammar::ext_inst_set(import_name)?.instruction(ext_opcode)?;
    let name = format!("{prefix}{}", inst.name);
    spirvkit_ir::opdef::op_def(&name).is_none().then_some(name)
}

/// The import name and instruction number of a fallback extended-instruction op.
pub fn fallback_ext_inst(op_name: &str) -> Option<(&'static str, u32)> {
    if spirvkit_ir::opdef::op_def(op_name).is_some() {
        return None;
    }
    EXT_SET_PREFIXES.iter().find_map(|&(prefix, import)| {
        let name = op_name.strip_prefix(prefix)?;
        let inst = spirvkit_grammar::ext_inst_set(import)?.instruction_by_name(name)?;
        Some((import, inst.opcode))
    })
}

/// An instruction's operands after its result type and result, split as a fallback
/// op holds them: the id words in order, and the `literals`/`operand_layout`
/// attributes (none when every operand is an id). Ids of the types in `type_ids` are
/// references (layout letter `r`, type attributes). For `OpExtInst`, the set and the instruction number are
/// left out (the op's name carries them).
pub fn split_operands(
    inst: &Inst,
    types: &mut TypeStore,
    type_ids: &FxHashMap<u32, Type>,
) -> (Vec<u32>, Vec<NamedAttribute>) {
    let i32_type = types.integer(32, Signedness::Signless);
    split_operands_with(inst, i32_type, |id| type_ids.get(&id).map(|&ty| Attribute::Type(ty)))
}

/// [`split_operands`], with `reference` giving the attribute that stands for an id
/// (layout letter `r`) where the id is no SSA value.
pub fn split_operands_with(
    inst: &Inst,
    i32_type: spirvkit_ir::types::Type,
    mut reference: impl FnMut(u32) -> Option<Attribute>,
) -> (Vec<u32>, Vec<NamedAttribute>) {
    let mut ids = Vec::new();
    let mut literals = Vec::new();
    let mut layout = String::new();
    let is_ext_inst = matches!(
        inst.opcode,
        spirvkit_grammar::opcode::OpExtInst | spirvkit_grammar::opcode::OpExtInstWithForwardRefsKHR
    );
    let skip = if is_ext_inst { 2 } else { 0 };
    let operands = inst
        .operands
        .iter()
        .filter(|o| !matches!(o.kind, OperandKind::IdResultType | OperandKind::IdResult))
        .skip(skip);
    for operand in operands {
        let words = inst.operand_words(operand);
        if operand.kind.category() == Category::Id {
            for &word in words {
                match reference(word) {
                    Some(attr) => {
                        literals.push(attr);
                        layout.push('r');
                    }
                    None => {
                        ids.push(word);
                        layout.push('i');
                    }
                }
            }
            continue;
        }
        layout.push('l');
        let literal = if operand.kind == OperandKind::LiteralString {
            Attribute::String(String::from_utf8_lossy(&inst.string_bytes(operand)).into_owned())
        } else if let [word] = words {
            Attribute::Integer { value: *word as i32 as i128, ty: i32_type }
        } else {
            Attribute::DenseArray {
                element: i32_type,
                values: words
                    .iter()
                    .map(|&w| Attribute::Integer { value: w as i32 as i128, ty: i32_type })
                    .collect(),
            }
        };
        literals.push(literal);
    }
    if literals.is_empty() {
        return (ids, Vec::new());
    }
    let attrs = vec![
        NamedAttribute::new(LITERALS_ATTR, Attribute::Array(literals)),
        NamedAttribute::new(LAYOUT_ATTR, Attribute::String(layout)),
    ];
    (ids, attrs)
}

/// The operand words (after result type and result) of a fallback op whose operands
/// have the ids `operand_ids`, in grammar order; `reference` gives the id an `r` entry
/// of `literals` stands for.
pub fn join_operands(
    op: &Operation,
    operand_ids: &[u32],
    reference: &mut dyn FnMut(&Attribute) -> Result<u32, String>,
) -> Result<Vec<u32>, String> {
    let literals: &[Attribute] = match op.attr(LITERALS_ATTR) {
        None => &[],
        Some(Attribute::Array(items)) => items,
        Some(_) => return Err(format!("'{}': `{LITERALS_ATTR}` must be an array", op.name)),
    };
    let layout = match op.attr(LAYOUT_ATTR) {
        None if literals.is_empty() => "i".repeat(operand_ids.len()),
        Some(Attribute::String(layout)) => layout.clone(),
        _ => return Err(format!("'{}': `{LAYOUT_ATTR}` must be a string naming each operand", op.name)),
    };
    let mut words = Vec::with_capacity(operand_ids.len() + literals.len());
    let mut ids = operand_ids.iter();
    let mut literal_items = literals.iter();
    for slot in layout.chars() {
        match slot {
            'i' => words.push(*ids.next().ok_or_else(|| mismatch(op))?),
            'r' => words.push(reference(literal_items.next().ok_or_else(|| mismatch(op))?)?),
            'l' => match literal_items.next().ok_or_else(|| mismatch(op))? {
                Attribute::String(text) => spirvkit_binary::write::encode_string(text.as_bytes(), &mut words),
                Attribute::Integer { value, .. } => words.push(*value as u32),
                Attribute::DenseArray { values, .. } => {
                    for value in values {
                        match value {
                            Attribute::Integer { value, .. } => words.push(*value as u32),
                            _ => return Err(mismatch(op)),
                        }
                    }
                }
                _ => return Err(mismatch(op)),
            },
            _ => return Err(mismatch(op)),
        }
    }
    if ids.next().is_some() || literal_items.next().is_some() {
        return Err(mismatch(op));
    }
    Ok(words)
}

fn mismatch(op: &Operation) -> String {
    format!("'{}': operands, `{LITERALS_ATTR}` and `{LAYOUT_ATTR}` do not agree", op.name)
}

/// The opaque type text (without `!`) for a type instruction the dialect does not
/// model, when its operands are all enumerants (without parameters) and literal
/// numbers: `spirv.RayQueryKHR`, `spirv.UntypedPointerKHR<StorageBuffer>`.
pub fn opaque_type_text(inst: &Inst) -> Option<String> {
    let name = inst.grammar()?.name.strip_prefix("OpType")?;
    let mut params = Vec::new();
    for operand in inst.operands.iter().filter(|o| o.kind != OperandKind::IdResult) {
        let [word] = inst.operand_words(operand) else { return None };
        let info = operand.kind.info();
        params.push(match info.category {
            Category::ValueEnum => {
                info.enumerant(*word).filter(|e| e.parameters.is_empty())?.name.to_string()
            }
            Category::Literal if operand.kind == OperandKind::LiteralInteger => word.to_string(),
            _ => return None,
        });
    }
    Some(if params.is_empty() {
        format!("spirv.{name}")
    } else {
        format!("spirv.{name}<{}>", params.join(", "))
    })
}

/// The type instruction of an opaque type made by [`opaque_type_text`] and its operand
/// words after the result id.
pub fn opaque_type_instruction(text: &str) -> Option<(u16, Vec<u32>)> {
    let rest = text.strip_prefix("spirv.")?;
    let (name, params) = match rest.split_once('<') {
        Some((name, params)) => (name, params.strip_suffix('>')?.split(',').map(str::trim).collect()),
        None => (rest, Vec::new()),
    };
    let inst = spirvkit_grammar::instruction_by_name(&format!("OpType{name}"))?;
    let kinds: Vec<_> = inst.operands.iter().filter(|o| o.kind != OperandKind::IdResult).collect();
    let mut words = Vec::with_capacity(params.len());
    for (index, param) in params.iter().enumerate() {
        // A variadic operand takes the remaining parameters.
        let operand =
            kinds.get(index).or_else(|| kinds.last().filter(|o| o.quantifier == Quantifier::Variadic))?;
        let info = operand.kind.info();
        words.push(match info.category {
            Category::ValueEnum => info.enumerant_by_name(param)?.value,
            Category::Literal if operand.kind == OperandKind::LiteralInteger => param.parse().ok()?,
            _ => return None,
        });
    }
    // Every operand the grammar requires is there.
    let required = kinds.iter().filter(|o| o.quantifier == Quantifier::One).count();
    (words.len() >= required).then_some((inst.opcode, words))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spirvkit_binary::AsmOptions;

    fn first_function_inst(text: &str, opcode_name: &str) -> (spirvkit_binary::Module, usize) {
        let words = spirvkit_binary::assemble(text, &AsmOptions::default()).expect("assembles");
        let bytes = spirvkit_binary::words_to_bytes(&words, spirvkit_binary::Endian::Little);
        let module = spirvkit_binary::read(&bytes).expect("reads");
        let opcode = spirvkit_grammar::instruction_by_name(opcode_name).expect("known").opcode;
        let index = module.instructions().position(|i| i.opcode == opcode).expect("present");
        (module, index)
    }

    #[test]
    fn names_follow_the_grammar_and_skip_modelled_ops() {
        let in_bounds = spirvkit_grammar::instruction_by_name("OpInBoundsAccessChain").unwrap().opcode;
        assert_eq!(fallback_op_name(in_bounds).as_deref(), Some("spirv.InBoundsAccessChain"));
        assert_eq!(fallback_opcode("spirv.InBoundsAccessChain"), Some(in_bounds));
        // Modelled by the dialect: not a fallback.
        assert_eq!(fallback_opcode("spirv.IAdd"), None);
        assert_eq!(fallback_opcode("spirv.GL.Sqrt"), None);
        assert_eq!(fallback_opcode("spirv.NoSuchInstruction"), None);
        let accel = spirvkit_grammar::instruction_by_name("OpTypeAccelerationStructureKHR").unwrap().opcode;
        assert_eq!(opaque_type_instruction("spirv.AccelerationStructureKHR"), Some((accel, vec![])));
        let matrix_inverse = spirvkit_grammar::ext_inst_set("GLSL.std.450")
            .and_then(|set| set.instruction_by_name("MatrixInverse"))
            .unwrap()
            .opcode;
        let name = fallback_ext_op_name("GLSL.std.450", matrix_inverse);
        assert_eq!(name.as_deref(), Some("spirv.GL.MatrixInverse"));
        assert_eq!(fallback_ext_inst("spirv.GL.MatrixInverse"), Some(("GLSL.std.450", matrix_inverse)));
        let sqrt =
            spirvkit_grammar::ext_inst_set("GLSL.std.450").unwrap().instruction_by_name("Sqrt").unwrap();
        assert_eq!(fallback_ext_op_name("GLSL.std.450", sqrt.opcode), None);
        assert_eq!(fallback_ext_inst("spirv.GL.Sqrt"), None);
    }

    #[test]
    fn opaque_types_keep_enumerant_operands_by_name() {
        let text = "OpCapability Shader\nOpCapability UntypedPointersKHR\nOpExtension \"SPV_KHR_untyped_pointers\"\n\
                    OpMemoryModel Logical GLSL450\n%p = OpTypeUntypedPointerKHR StorageBuffer\n%i = OpTypeInt 32 0\n\
                    %s = OpTypeStruct %i\n";
        let (module, index) = first_function_inst(text, "OpTypeUntypedPointerKHR");
        let inst = module.instruction(index).unwrap();
        let opaque = opaque_type_text(&inst).expect("an opaque type");
        assert_eq!(opaque, "spirv.UntypedPointerKHR<StorageBuffer>");
        assert_eq!(opaque_type_instruction(&opaque), Some((inst.opcode, inst.words[2..].to_vec())));
        // Id operands (other types) have no opaque form.
        let (module, index) = first_function_inst(text, "OpTypeStruct");
        assert_eq!(opaque_type_text(&module.instruction(index).unwrap()), None);
        assert_eq!(opaque_type_instruction("spirv.UntypedPointerKHR<NoSuchClass>"), None);
        assert_eq!(opaque_type_instruction("spirv.UntypedPointerKHR"), None);
    }

    #[test]
    fn ext_instructions_are_named_by_the_grammar_or_numbered() {
        let mut types = TypeStore::new();
        let i32_type = types.integer(32, Signedness::Signless);
        let printf = ext_instruction_attr("NonSemantic.DebugPrintf", 1, i32_type);
        assert_eq!(printf, Attribute::String("DebugPrintf".into()));
        assert_eq!(ext_instruction_number("NonSemantic.DebugPrintf", &printf), Some(1));
        // Versioned import names select their set by prefix.
        let clspv = ext_instruction_attr("NonSemantic.ClspvReflection.6", 1, i32_type);
        assert_eq!(clspv, Attribute::String("Kernel".into()));
        let unknown = ext_instruction_attr("NonSemantic.Unknown", 0xffff_fff0, i32_type);
        assert_eq!(ext_instruction_number("NonSemantic.Unknown", &unknown), Some(0xffff_fff0));
        assert_eq!(
            ext_instruction_number("NonSemantic.DebugPrintf", &Attribute::String("Nope".into())),
            None
        );
    }

    #[test]
    fn references_take_their_place_among_ids_and_literals() {
        let text = "OpCapability Shader\nOpExtension \"SPV_KHR_non_semantic_info\"\n\
                    %set = OpExtInstImport \"NonSemantic.DebugPrintf\"\nOpMemoryModel Logical GLSL450\n\
                    %fmt = OpString \"%d\"\n%void = OpTypeVoid\n%int = OpTypeInt 32 0\n%c = OpConstant %int 7\n\
                    %fn = OpTypeFunction %void\n%f = OpFunction %void None %fn\n%l = OpLabel\n\
                    %r = OpExtInst %void %set DebugPrintf %fmt %c\nOpReturn\nOpFunctionEnd\n";
        let (module, index) = first_function_inst(text, "OpExtInst");
        let inst = module.instruction(index).unwrap();
        let mut types = TypeStore::new();
        let i32_type = types.integer(32, Signedness::Signless);
        let fmt = inst.words[5];
        let string = |id: u32| (id == fmt).then(|| Attribute::String("%d".into()));
        let (ids, attrs) = split_operands_with(&inst, i32_type, string);
        assert_eq!(ids, [inst.words[6]]);
        let mut ir = spirvkit_ir::Ir::new();
        let op = ir.create_op(EXT_INST_OP, vec![], &[], Default::default());
        ir.op_mut(op).attributes = attrs.into();
        assert_eq!(ir.op(op).attr(LAYOUT_ATTR), Some(&Attribute::String("ri".into())));
        let words = join_operands(ir.op(op), &ids, &mut |attr| match attr {
            Attribute::String(_) => Ok(fmt),
            _ => Err("unexpected".into()),
        });
        assert_eq!(words.unwrap(), inst.words[5..]);
        let refused = join_operands(ir.op(op), &ids, &mut |_| Err("no such string".into()));
        assert_eq!(refused, Err("no such string".to_string()));
    }

    #[test]
    fn literals_and_ids_round_trip_in_grammar_order() {
        // OpSpecConstantOp interleaves a literal (the opcode) before its ids.
        let text = "OpCapability Shader\nOpCapability Kernel\nOpMemoryModel Logical GLSL450\n\
                    %void = OpTypeVoid\n%int = OpTypeInt 32 0\n%c = OpConstant %int 7\n\
                    %fn = OpTypeFunction %void\n%f = OpFunction %void None %fn\n%l = OpLabel\n\
                    %r = OpSpecConstantOp %int IAdd %c %c\nOpReturn\nOpFunctionEnd\n";
        let (module, index) = first_function_inst(text, "OpSpecConstantOp");
        let inst = module.instruction(index).unwrap();
        let mut types = TypeStore::new();
        let (ids, attrs) = split_operands(&inst, &mut types, &FxHashMap::default());
        assert_eq!(ids.len(), 2);
        assert_eq!(attrs.len(), 2);
        let mut ir = spirvkit_ir::Ir::new();
        let op = ir.create_op("spirv.SpecConstantOpFallbackTest", vec![], &[], Default::default());
        ir.op_mut(op).attributes = attrs.into();
        let no_references = &mut |_: &Attribute| Err("no references".to_string());
        let words = join_operands(ir.op(op), &ids, no_references).unwrap();
        assert_eq!(words, inst.words[3..]);
        // A disagreement is an error, not a panic.
        assert!(join_operands(ir.op(op), &ids[..1], no_references).is_err());
    }
}
