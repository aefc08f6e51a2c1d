//! SPIR-V grammar tables, generated from the Khronos machine-readable grammar.
//!
//! Everything in `generated.rs` is produced by `cargo xtask gen-grammar` from
//! `spirv.core.grammar.json` and every `extinst.*.grammar.json`; this file holds
//! the hand-written types those tables are made of and O(1)/O(log n) lookups.
//! Never edit `generated.rs` by hand: change the generator in `xtask/`.

#![forbid(unsafe_code)]

pub mod fxhash;
mod generated;

pub use generated::{
    capability, opcode, OperandKind, EXT_INST_SETS, GRAMMAR_MAJOR_VERSION, GRAMMAR_MINOR_VERSION,
    GRAMMAR_REVISION, INSTRUCTIONS, MAGIC_NUMBER,
};

/// A SPIR-V version number as it appears in the grammar (`"1.3"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u8,
    pub minor: u8,
}

impl Version {
    pub const fn new(major: u8, minor: u8) -> Self {
        Version { major, minor }
    }

    /// The version word of a module header (`0x00MMmm00`).
    pub const fn word(self) -> u32 {
        ((self.major as u32) << 16) | ((self.minor as u32) << 8)
    }

    /// Decodes a header version word; `None` if the reserved bytes are set.
    pub const fn from_word(word: u32) -> Option<Self> {
        if word & 0xff00_00ff != 0 {
            return None;
        }
        Some(Version { major: ((word >> 16) & 0xff) as u8, minor: ((word >> 8) & 0xff) as u8 })
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// When an instruction or enumerant may be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Availability {
    /// First core version that has it; `None` when only an extension provides it
    /// (the grammar's `"version": "None"`).
    pub min_version: Option<Version>,
    /// Last core version that has it, if it was removed.
    pub last_version: Option<Version>,
    /// Any one of these capabilities enables it (values of the `Capability` kind).
    pub capabilities: &'static [u32],
    /// Any one of these extensions enables it.
    pub extensions: &'static [&'static str],
    /// Marked provisional in the grammar.
    pub provisional: bool,
}

/// How many times an operand may appear.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantifier {
    /// Exactly once.
    One,
    /// Zero or one time (`?`).
    Optional,
    /// Zero or more times (`*`).
    Variadic,
}

/// One operand slot of an instruction or enumerant parameter list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    pub kind: OperandKind,
    pub quantifier: Quantifier,
    /// The grammar's descriptive name (`'Sampled Type'`), empty if none.
    pub name: &'static str,
}

/// Category of an operand kind, as in the grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    Id,
    Literal,
    ValueEnum,
    BitEnum,
    Composite,
}

/// A named value of a `ValueEnum` or `BitEnum` kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enumerant {
    pub name: &'static str,
    pub value: u32,
    pub aliases: &'static [&'static str],
    /// Operands that follow when this enumerant is used (`Lod` takes an id).
    pub parameters: &'static [Operand],
    pub availability: Availability,
}

/// How an operand kind's enumerants are found by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueIndex {
    /// `table[value]` is the enumerant index, or `u16::MAX`.
    Dense(&'static [u16]),
    /// Sorted `(value, index)` pairs, for kinds whose values are too sparse.
    Sorted(&'static [(u32, u16)]),
    /// No enumerants (ids, literals, composites).
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandKindInfo {
    pub name: &'static str,
    pub category: Category,
    pub enumerants: &'static [Enumerant],
    /// For `Composite` kinds: the kinds of its parts.
    pub bases: &'static [OperandKind],
    by_value: ValueIndex,
    /// Sorted `(name, index)` pairs over names and aliases.
    by_name: &'static [(&'static str, u16)],
    /// Sorted `(value, name)` where SPIRV-Tools 2023.1 prints another name than the grammar's.
    legacy_names: &'static [(u32, &'static str)],
}

impl OperandKindInfo {
    /// The name SPIRV-Tools 2023.1 (`spirv-dis`) prints for this value, if it differs
    /// from the current grammar's canonical name.
    pub fn legacy_name(&self, value: u32) -> Option<&'static str> {
        let at = self.legacy_names.binary_search_by_key(&value, |&(v, _)| v).ok()?;
        Some(self.legacy_names[at].1)
    }

    /// The enumerant with exactly this value (for bit enums: a single bit or 0).
    pub fn enumerant(&self, value: u32) -> Option<&'static Enumerant> {
        let index = match self.by_value {
            ValueIndex::Dense(table) => *table.get(value as usize)?,
            ValueIndex::Sorted(pairs) => {
                let at = pairs.binary_search_by_key(&value, |&(v, _)| v).ok()?;
                pairs[at].1
            }
            ValueIndex::None => return None,
        };
        self.enumerants.get(index as usize)
    }

    /// The enumerant with this name or alias.
    pub fn enumerant_by_name(&self, name: &str) -> Option<&'static Enumerant> {
        let at = self.by_name.binary_search_by(|&(n, _)| n.cmp(name)).ok()?;
        self.enumerants.get(self.by_name[at].1 as usize)
    }
}

impl OperandKind {
    /// The core operand kind with this grammar name (`StorageClass`).
    pub fn from_name(name: &str) -> Option<OperandKind> {
        generated::ALL_OPERAND_KINDS.iter().copied().find(|k| k.name() == name && k.info().name == name)
    }

    pub fn info(self) -> &'static OperandKindInfo {
        &generated::OPERAND_KINDS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn category(self) -> Category {
        self.info().category
    }
}

/// A core instruction's grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instruction {
    pub name: &'static str,
    pub opcode: u16,
    pub class: &'static str,
    pub aliases: &'static [&'static str],
    pub operands: &'static [Operand],
    pub availability: Availability,
}

impl Instruction {
    pub fn has_result_type(&self) -> bool {
        self.operands.first().is_some_and(|o| o.kind == OperandKind::IdResultType)
    }

    pub fn has_result(&self) -> bool {
        self.operands.iter().take(2).any(|o| o.kind == OperandKind::IdResult)
    }
}

/// The capabilities a capability implicitly declares (the grammar's `depends`), e.g.
/// `Shader` implies `Matrix`. Direct dependencies only; apply repeatedly for the closure.
pub fn implied_capabilities(capability: u32) -> &'static [u32] {
    OperandKind::Capability.info().enumerant(capability).map_or(&[], |e| e.availability.capabilities)
}

/// The opcode name SPIRV-Tools 2023.1 prints, where it differs from the grammar's.
pub fn legacy_opcode_name(opcode: u16) -> Option<&'static str> {
    let names = &generated::LEGACY_OPCODE_NAMES;
    let at = names.binary_search_by_key(&opcode, |&(o, _)| o).ok()?;
    Some(names[at].1)
}

/// The registered name of a generator tool id (the high 16 bits of the header's
/// generator word), as `"vendor tool"`.
pub fn generator_name(tool: u16) -> Option<&'static str> {
    let names = &generated::GENERATORS;
    let at = names.binary_search_by_key(&tool, |&(t, _)| t).ok()?;
    Some(names[at].1)
}

/// The core instruction with this opcode. O(1).
pub fn instruction(opcode: u16) -> Option<&'static Instruction> {
    let index = *generated::OPCODE_INDEX.get(opcode as usize)?;
    INSTRUCTIONS.get(index as usize)
}

/// The core instruction with this name or alias (`"OpDecorateStringGOOGLE"`). O(1):
/// a hash index over the generated name table, built on first use.
pub fn instruction_by_name(name: &str) -> Option<&'static Instruction> {
    static INDEX: std::sync::OnceLock<fxhash::FxHashMap<&'static str, u16>> = std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| generated::INSTRUCTION_NAMES.iter().copied().collect());
    INSTRUCTIONS.get(*index.get(name)? as usize)
}

/// One instruction of an extended instruction set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtInstruction {
    pub name: &'static str,
    pub opcode: u32,
    pub operands: &'static [Operand],
    pub capabilities: &'static [u32],
    pub extensions: &'static [&'static str],
}

/// An extended instruction set (`OpExtInstImport "GLSL.std.450"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtInstSet {
    /// The name used in `OpExtInstImport`.
    pub name: &'static str,
    /// True when any import name starting with `name` selects this set
    /// (versioned sets like `NonSemantic.ClspvReflection.6`).
    pub prefix_match: bool,
    pub version: Option<u32>,
    pub revision: u32,
    pub instructions: &'static [ExtInstruction],
    /// `index[opcode]` is the instruction index, or `u16::MAX`.
    index: &'static [u16],
    by_name: &'static [(&'static str, u16)],
}

impl ExtInstSet {
    pub fn instruction(&self, opcode: u32) -> Option<&'static ExtInstruction> {
        let index = *self.index.get(opcode as usize)?;
        self.instructions.get(index as usize)
    }

    pub fn instruction_by_name(&self, name: &str) -> Option<&'static ExtInstruction> {
        let at = self.by_name.binary_search_by(|&(n, _)| n.cmp(name)).ok()?;
        self.instructions.get(self.by_name[at].1 as usize)
    }
}

/// The extended instruction set an `OpExtInstImport` name selects, if known.
pub fn ext_inst_set(import_name: &str) -> Option<&'static ExtInstSet> {
    EXT_INST_SETS.iter().find(|set| {
        if set.prefix_match {
            import_name.starts_with(set.name)
        } else {
            import_name == set.name
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcode_lookup_is_consistent() {
        for inst in INSTRUCTIONS {
            assert_eq!(instruction(inst.opcode).map(|i| i.opcode), Some(inst.opcode));
            assert_eq!(instruction_by_name(inst.name).map(|i| i.opcode), Some(inst.opcode));
            for alias in inst.aliases {
                assert_eq!(instruction_by_name(alias).map(|i| i.opcode), Some(inst.opcode));
            }
        }
        assert_eq!(instruction(opcode::OpTypeImage).unwrap().name, "OpTypeImage");
        assert!(instruction(0xffff).is_none());
        assert!(instruction_by_name("OpBogus").is_none());
    }

    #[test]
    fn enumerant_lookup_is_consistent() {
        for kind_info in generated::OPERAND_KINDS {
            for e in kind_info.enumerants {
                let found = kind_info.enumerant(e.value).expect(e.name);
                assert_eq!(found.value, e.value);
                assert_eq!(kind_info.enumerant_by_name(e.name).unwrap().value, e.value);
            }
        }
        let storage = OperandKind::StorageClass.info();
        assert_eq!(storage.enumerant(12).unwrap().name, "StorageBuffer");
        assert_eq!(storage.enumerant_by_name("Function").unwrap().value, 7);
        let image_operands = OperandKind::ImageOperands.info();
        assert_eq!(image_operands.enumerant(2).unwrap().name, "Lod");
        assert_eq!(image_operands.enumerant(2).unwrap().parameters.len(), 1);
        assert_eq!(
            OperandKind::Capability.info().enumerant(1).unwrap().availability.capabilities,
            &[capability::Matrix]
        );
    }

    #[test]
    fn operand_kinds_by_name() {
        assert_eq!(OperandKind::from_name("StorageClass"), Some(OperandKind::StorageClass));
        assert_eq!(OperandKind::from_name("NoSuchKind"), None);
    }

    #[test]
    fn availability_comes_from_grammar() {
        let inst = instruction_by_name("OpGroupNonUniformElect").unwrap();
        assert_eq!(inst.availability.min_version, Some(Version::new(1, 3)));
        assert_eq!(inst.availability.capabilities, &[capability::GroupNonUniform]);
        let decorate_string = instruction_by_name("OpDecorateStringGOOGLE").unwrap();
        assert_eq!(decorate_string.name, "OpDecorateString");
        assert!(decorate_string.availability.extensions.contains(&"SPV_GOOGLE_decorate_string"));
    }

    #[test]
    fn capabilities_imply_their_dependencies() {
        assert_eq!(implied_capabilities(capability::Shader), &[capability::Matrix]);
        assert_eq!(implied_capabilities(capability::Matrix), &[] as &[u32]);
        assert!(implied_capabilities(capability::Geometry).contains(&capability::Shader));
    }

    #[test]
    fn legacy_names_and_generators() {
        let models = OperandKind::ExecutionModel.info();
        assert_eq!(models.enumerant(5313).unwrap().name, "RayGenerationKHR");
        assert_eq!(models.legacy_name(5313), Some("RayGenerationNV"));
        assert_eq!(models.legacy_name(0), None);
        assert_eq!(generator_name(8), Some("Khronos Glslang Reference Front End"));
        assert_eq!(generator_name(0), Some("Khronos"));
    }

    #[test]
    fn ext_inst_sets_resolve() {
        let glsl = ext_inst_set("GLSL.std.450").unwrap();
        assert_eq!(glsl.instruction(31).unwrap().name, "Sqrt");
        assert_eq!(glsl.instruction_by_name("FMix").unwrap().opcode, 46);
        assert!(ext_inst_set("NonSemantic.ClspvReflection.6").is_some());
        assert!(ext_inst_set("NoSuchSet").is_none());
        let opencl = ext_inst_set("OpenCL.std").unwrap();
        assert!(opencl.instruction_by_name("printf").is_some());
    }
}
