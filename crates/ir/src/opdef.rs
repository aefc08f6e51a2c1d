//! Static descriptions of the ops of MLIR 22's SPIR-V and LLVM dialects, generated from
//! MLIR's operation definitions (ODS) by `cargo xtask gen-dialect` into `generated/ops.rs`.

/// How many values an operand or result slot takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arity {
    Single,
    Optional,
    Variadic,
}

/// A type or attribute constraint predicate, as ODS composes them. Leaves are the
/// C++ predicate texts of ODS (`CPred`); the verifier maps the ones it knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pred {
    /// A C++ expression over `$_self`.
    Leaf(&'static str),
    And(&'static [Pred]),
    Or(&'static [Pred]),
    Not(&'static Pred),
    /// `prefix` + child + `suffix` (ODS `Concat`).
    Concat {
        prefix: &'static str,
        child: &'static Pred,
        suffix: &'static str,
    },
    /// Replace `pattern` with `replacement` in the child's leaves (ODS `SubstLeaves`).
    SubstLeaves {
        pattern: &'static str,
        replacement: &'static str,
        child: &'static Pred,
    },
}

/// A named type constraint (`SPIRV_Integer`, `anonymous_1588`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeConstraint {
    /// The ODS record name.
    pub record: &'static str,
    /// The text MLIR uses in "must be …" diagnostics.
    pub summary: &'static str,
    pub pred: Pred,
    /// For `AnyTypeOf`-style constraints: the alternatives, as indices into `TYPE_CONSTRAINTS`.
    pub allowed: &'static [u16],
}

/// A named attribute constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttrConstraint {
    pub record: &'static str,
    pub summary: &'static str,
    pub pred: Pred,
    /// The C++ storage class (`::mlir::IntegerAttr`, `::mlir::spirv::MemoryAccessAttr`).
    pub storage_type: &'static str,
    /// `OptionalAttr<…>`.
    pub optional: bool,
    /// `DefaultValuedAttr<…>`'s default, as C++ text.
    pub default_value: Option<&'static str>,
    /// For enum attributes: index into `ENUM_ATTRS`.
    pub enum_attr: Option<u16>,
    /// An ODS property (`LLVM_IntegerOverflowFlagsProp`) rather than an attribute: MLIR
    /// always holds a value (its default when none is given).
    pub property: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandDef {
    pub name: &'static str,
    pub arity: Arity,
    /// Index into `TYPE_CONSTRAINTS`.
    pub constraint: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttrDef {
    pub name: &'static str,
    /// Index into `ATTR_CONSTRAINTS`.
    pub constraint: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegionDef {
    pub name: &'static str,
    /// `SizedRegion<1>` and the like: the block count limit, if any.
    pub max_blocks: Option<u32>,
    pub variadic: bool,
}

/// A block successor (`AnySuccessor:$target`); `VariadicSuccessor` takes any number of blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SuccessorDef {
    pub name: &'static str,
    pub variadic: bool,
}

/// An ODS `PredOpTrait` (`AllTypesMatch`, `TypesMatchWith`, `InFunctionScope`, …): a check
/// over the whole op that MLIR's generated verifier reports as "failed to verify that {summary}".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PredTraitDef {
    /// The trait's name, as listed in [`OpDef::traits`].
    pub name: &'static str,
    pub summary: &'static str,
    /// Leaves are C++ expressions over `$_op` (ODS `CPred`).
    pub pred: Pred,
}

/// One ODS argument, in declaration order (operands and attributes interleave).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Argument {
    Operand(u16),
    Attribute(u16),
}

/// Version/extension/capability requirements of an op (ODS `availability`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpAvailability {
    /// `(major, minor)`.
    pub min_version: Option<(u8, u8)>,
    pub max_version: Option<(u8, u8)>,
    /// All of these groups, each satisfied by any one member.
    pub extensions: &'static [&'static [&'static str]],
    pub capabilities: &'static [&'static [&'static str]],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpDef {
    /// Full MLIR name: `spirv.IAdd`, `spirv.GL.Sqrt`, `spirv.mlir.loop`.
    pub name: &'static str,
    /// The SPIR-V instruction it serializes to (`OpIAdd`), if any.
    pub spirv_name: Option<&'static str>,
    /// ODS `summary`, whitespace collapsed to one line.
    pub summary: &'static str,
    pub arguments: &'static [Argument],
    pub operands: &'static [OperandDef],
    pub attributes: &'static [AttrDef],
    pub results: &'static [OperandDef],
    pub regions: &'static [RegionDef],
    pub successors: &'static [SuccessorDef],
    /// The declarative assembly format, whitespace-normalized (runs of blanks outside
    /// backquoted literals become one space); `None` when the op has a custom
    /// parser/printer. Where ODS sets both, the declarative format is the one MLIR uses.
    pub assembly_format: Option<&'static str>,
    /// Trait names in ODS order (`Pure`, `Commutative`, `SameOperandsAndResultType`,
    /// `Terminator`, `AllTypesMatch<operand1, operand2, result>`,
    /// `HasParent<spirv.mlir.selection, spirv.mlir.loop>`, `QueryCapabilityInterface`, …).
    /// Named ODS records keep their record name; see `xtask/src/gen_dialect.rs` for how
    /// anonymous ones (template instantiations) are named.
    pub traits: &'static [&'static str],
    /// The `PredOpTrait`s among `traits`, with their predicates.
    pub pred_traits: &'static [PredTraitDef],
    /// Whether the op has a hand-written verifier (`hasVerifier`), beyond the constraints.
    pub has_verifier: bool,
    /// One entry, from ODS `availability`; empty for the ops whose availability MLIR
    /// computes in hand-written code (`autogenAvailability = 0`).
    pub availability: &'static [OpAvailability],
}

/// An MLIR enum attribute of the dialect (`#spirv.storage_class<Function>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnumAttrDef {
    /// ODS record name (`SPIRV_StorageClassAttr`).
    pub record: &'static str,
    /// The attribute mnemonic (`storage_class`), if it has one.
    pub mnemonic: Option<&'static str>,
    /// The C++ enum name (`StorageClass`).
    pub enum_name: &'static str,
    /// Bit enum (`|`-combined) rather than value enum.
    pub bit_enum: bool,
    /// In declaration order.
    pub cases: &'static [EnumCaseDef],
}

/// One enumerant of an [`EnumAttrDef`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnumCaseDef {
    /// The C++ enumerator (`V_1_0`).
    pub symbol: &'static str,
    /// The spelling in MLIR's text form (`v1.0`); for most cases the same as `symbol`.
    pub str: &'static str,
    pub value: u64,
    /// MLIR's availability of this value (empty for non-SPIR-V enums).
    pub availability: OpAvailability,
}

pub use crate::generated::ops::{ATTR_CONSTRAINTS, DIALECTS, ENUM_ATTRS, OP_DEFS, TYPE_CONSTRAINTS};

/// The op named `name` (`spirv.IAdd`, `spirv.GL.Sqrt`). O(1) through a hash index
/// built on first use.
pub fn op_def(name: &str) -> Option<&'static OpDef> {
    known_op_index(name).and_then(|i| OP_DEFS.get(i))
}

/// The position in `OP_DEFS` of the op named `name`.
pub fn op_def_index_by_name(name: &str) -> Option<usize> {
    known_op_index(name).filter(|&i| i < OP_DEFS.len())
}

/// Ops outside the generated tables that the IR names often enough to intern: the
/// builtin and `func` ops the tests wrap around SPIR-V code, and the parser's
/// placeholders. Their indices follow `OP_DEFS`'.
const OTHER_KNOWN_OPS: &[&str] = &[
    "arith.constant",
    "builtin.module",
    "builtin.unrealized_conversion_cast",
    "builtin.unrealized_forward_ref",
    "func.call",
    "func.func",
    "func.return",
    "ub.poison",
];

/// The index of a known op name: its position in `OP_DEFS`, or past it for
/// `OTHER_KNOWN_OPS`. Every parsed op is looked up, so the table is open addressing
/// on a hash of a few bytes (the names differ in their length and tail) rather than
/// a hash of the whole name.
fn known_op_index(name: &str) -> Option<usize> {
    const SLOTS: usize = 4096;
    static TABLE: std::sync::OnceLock<Vec<u16>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        // Slot values are index + 1; 0 is empty.
        let mut table = vec![0u16; SLOTS];
        let names = OP_DEFS.iter().map(|d| d.name).chain(OTHER_KNOWN_OPS.iter().copied());
        for (i, known) in names.enumerate() {
            let mut slot = name_hash(known) % SLOTS;
            while table[slot] != 0 {
                slot = (slot + 1) % SLOTS;
            }
            table[slot] = (i + 1) as u16;
        }
        table
    });
    let mut slot = name_hash(name) % SLOTS;
    loop {
        let entry = usize::from(*table.get(slot)?);
        if entry == 0 {
            return None;
        }
        if known_op_name((entry - 1) as u16) == name {
            return Some(entry - 1);
        }
        slot = (slot + 1) % SLOTS;
    }
}

/// A hash of an op name's length and a few of its bytes.
fn name_hash(name: &str) -> usize {
    let b = name.as_bytes();
    let n = b.len();
    let at = |i: usize| usize::from(b.get(i).copied().unwrap_or(0));
    let mut h = n;
    for byte in [at(6), at(7), at(n / 2), at(n.wrapping_sub(3)), at(n.wrapping_sub(2)), at(n.wrapping_sub(1))]
    {
        h = h.wrapping_mul(131).wrapping_add(byte);
    }
    h ^ (h >> 13)
}

fn known_op_name(index: u16) -> &'static str {
    let index = usize::from(index);
    match OP_DEFS.get(index) {
        Some(def) => def.name,
        None => OTHER_KNOWN_OPS.get(index - OP_DEFS.len()).copied().unwrap_or(""),
    }
}

/// An operation's full name (`spirv.IAdd`, `func.func`), interned: the ops of the
/// tables are a small index (so their definition is one array access away), any
/// other name is kept as text. Compares, hashes and prints like the text; derefs
/// to it.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct OpName(OpNameRepr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum OpNameRepr {
    /// Index into `OP_DEFS` followed by `OTHER_KNOWN_OPS`.
    Known(u16),
    /// A name no table knows (unregistered ops); never one of the known names, so
    /// equality of the representation is equality of the text.
    Other(Box<str>),
}

impl OpName {
    pub fn new(name: &str) -> OpName {
        match known_op_index(name) {
            Some(i) => OpName(OpNameRepr::Known(i as u16)),
            None => OpName(OpNameRepr::Other(name.into())),
        }
    }

    /// The name of a generated op definition.
    pub fn of_def(def: &'static OpDef) -> OpName {
        match op_def_index(def) {
            Some(i) => OpName(OpNameRepr::Known(i as u16)),
            None => OpName::new(def.name),
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            OpNameRepr::Known(i) => known_op_name(*i),
            OpNameRepr::Other(name) => name,
        }
    }

    /// The op's generated definition (the SPIR-V and LLVM dialects' ops).
    pub fn def(&self) -> Option<&'static OpDef> {
        match self.0 {
            OpNameRepr::Known(i) => OP_DEFS.get(usize::from(i)),
            OpNameRepr::Other(_) => None,
        }
    }

    /// The position of the op's definition in `OP_DEFS`, for per-op side tables.
    pub fn def_index(&self) -> Option<usize> {
        match self.0 {
            OpNameRepr::Known(i) if usize::from(i) < OP_DEFS.len() => Some(usize::from(i)),
            _ => None,
        }
    }

    /// Whether the name is one of the tables' (registered with a known dialect).
    pub fn is_known(&self) -> bool {
        matches!(self.0, OpNameRepr::Known(_))
    }
}

impl std::ops::Deref for OpName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for OpName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Display for OpName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for OpName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for OpName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for OpName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for OpName {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<OpName> for &str {
    fn eq(&self, other: &OpName) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<OpName> for String {
    fn eq(&self, other: &OpName) -> bool {
        self == other.as_str()
    }
}

impl PartialOrd for OpName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OpName {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl From<&str> for OpName {
    fn from(name: &str) -> OpName {
        OpName::new(name)
    }
}

impl From<&String> for OpName {
    fn from(name: &String) -> OpName {
        OpName::new(name)
    }
}

impl From<String> for OpName {
    fn from(name: String) -> OpName {
        OpName::new(&name)
    }
}

impl From<&OpName> for OpName {
    fn from(name: &OpName) -> OpName {
        name.clone()
    }
}

impl From<OpName> for String {
    fn from(name: OpName) -> String {
        name.as_str().to_string()
    }
}

/// The position of a definition in `OP_DEFS`, for per-op side tables.
pub fn op_def_index(def: &OpDef) -> Option<usize> {
    let offset = (def as *const OpDef as usize).checked_sub(OP_DEFS.as_ptr() as usize)?;
    let index = offset / std::mem::size_of::<OpDef>();
    (index < OP_DEFS.len() && std::ptr::eq(&OP_DEFS[index], def)).then_some(index)
}

/// Traits of the ops from other dialects that the tests wrap around SPIR-V code
/// (what the rewrite passes need to know about them).
const OTHER_OP_TRAITS: &[(&str, &[&str])] = &[
    ("arith.constant", &["ConstantLike", "Pure"]),
    ("builtin.module", &["IsolatedFromAbove", "NoTerminator", "SingleBlock", "Symbol", "SymbolTable"]),
    ("func.call", &["CallOpInterface", "SymbolUserOpInterface"]),
    (
        "func.func",
        &[
            "AutomaticAllocationScope",
            "CallableOpInterface",
            "FunctionOpInterface",
            "IsolatedFromAbove",
            "Symbol",
        ],
    ),
    ("func.return", &["Pure", "ReturnLike", "Terminator"]),
    ("ub.poison", &["ConstantLike", "Pure"]),
];

/// The traits of op `name`, for the SPIR-V ops and the few others the IR knows;
/// `None` for any other op (MLIR then assumes it might have any trait).
pub fn op_traits(name: &str) -> Option<&'static [&'static str]> {
    if let Some(def) = op_def(name) {
        return Some(def.traits);
    }
    OTHER_OP_TRAITS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Whether the op named `op` has trait or interface `name` (see `op_traits`).
pub fn op_has_trait(op: &str, name: &str) -> bool {
    op_traits(op).is_some_and(|traits| traits.contains(&name))
}

/// The enum attribute with this mnemonic (`storage_class` for `#spirv.storage_class<…>`).
pub fn enum_attr_by_mnemonic(mnemonic: &str) -> Option<&'static EnumAttrDef> {
    ENUM_ATTRS.iter().find(|e| e.mnemonic == Some(mnemonic))
}

/// The enum attribute of the C++ enum `name` (`StorageClass`).
pub fn enum_attr_by_enum_name(name: &str) -> Option<&'static EnumAttrDef> {
    ENUM_ATTRS.iter().find(|e| e.enum_name == name)
}

/// A type constraint by ODS record name (`SPIRV_Integer`).
pub fn type_constraint(record: &str) -> Option<&'static TypeConstraint> {
    TYPE_CONSTRAINTS.binary_search_by(|c| c.record.cmp(record)).ok().map(|i| &TYPE_CONSTRAINTS[i])
}

/// An attribute constraint by ODS record name (`SPIRV_ScopeAttr`).
pub fn attr_constraint(record: &str) -> Option<&'static AttrConstraint> {
    ATTR_CONSTRAINTS.binary_search_by(|c| c.record.cmp(record)).ok().map(|i| &ATTR_CONSTRAINTS[i])
}

impl EnumAttrDef {
    /// The case spelled `text` in MLIR's text form.
    pub fn case_by_str(&self, text: &str) -> Option<&'static EnumCaseDef> {
        self.cases.iter().find(|c| c.str == text)
    }

    /// The first case with this value (bit enums: the case for exactly these bits).
    pub fn case_by_value(&self, value: u64) -> Option<&'static EnumCaseDef> {
        self.cases.iter().find(|c| c.value == value)
    }
}

impl OpDef {
    /// The name without the dialect prefix (`IAdd`, `GL.Sqrt`, `mlir.loop`, `intr.fma`).
    pub fn short_name(&self) -> &'static str {
        self.name.split_once('.').map_or(self.name, |(_, rest)| rest)
    }

    /// The dialect the op belongs to (`spirv`, `llvm`).
    pub fn dialect(&self) -> &'static str {
        self.name.split_once('.').map_or(self.name, |(dialect, _)| dialect)
    }

    pub fn operand(&self, name: &str) -> Option<&'static OperandDef> {
        self.operands.iter().find(|o| o.name == name)
    }

    pub fn attribute(&self, name: &str) -> Option<&'static AttrDef> {
        self.attributes.iter().find(|a| a.name == name)
    }

    pub fn has_trait(&self, name: &str) -> bool {
        self.traits.contains(&name)
    }
}

impl OperandDef {
    pub fn constraint(&self) -> &'static TypeConstraint {
        &TYPE_CONSTRAINTS[self.constraint as usize]
    }
}

impl AttrDef {
    pub fn constraint(&self) -> &'static AttrConstraint {
        &ATTR_CONSTRAINTS[self.constraint as usize]
    }
}

impl AttrConstraint {
    pub fn enum_attr(&self) -> Option<&'static EnumAttrDef> {
        self.enum_attr.map(|i| &ENUM_ATTRS[i as usize])
    }
}

impl TypeConstraint {
    /// The `AnyTypeOf` alternatives.
    pub fn alternatives(&self) -> impl Iterator<Item = &'static TypeConstraint> {
        self.allowed.iter().map(|&i| &TYPE_CONSTRAINTS[i as usize])
    }
}

/// Dialects `mlir-opt-22 --show-dialects` lists; ops of any other dialect need
/// `--allow-unregistered-dialect`.
pub const REGISTERED_DIALECTS: &[&str] = &[
    "acc",
    "affine",
    "amdgpu",
    "amx",
    "arith",
    "arm_neon",
    "arm_sme",
    "arm_sve",
    "async",
    "bufferization",
    "builtin",
    "cf",
    "complex",
    "dlti",
    "emitc",
    "func",
    "gpu",
    "index",
    "irdl",
    "linalg",
    "llvm",
    "math",
    "memref",
    "ml_program",
    "mpi",
    "nvgpu",
    "nvvm",
    "omp",
    "pdl",
    "pdl_interp",
    "ptr",
    "quant",
    "rocdl",
    "scf",
    "shape",
    "shard",
    "smt",
    "sparse_tensor",
    "spirv",
    "tensor",
    "test",
    "test_dyn",
    "test_irdl_to_cpp",
    "tosa",
    "transform",
    "ub",
    "vector",
    "wasmssa",
    "x86vector",
    "xegpu",
    "xevm",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_and_indices_valid() {
        assert!(OP_DEFS.windows(2).all(|w| w[0].name < w[1].name));
        assert!(TYPE_CONSTRAINTS.windows(2).all(|w| w[0].record < w[1].record));
        assert!(ATTR_CONSTRAINTS.windows(2).all(|w| w[0].record < w[1].record));
        for op in &OP_DEFS {
            assert!(DIALECTS.contains(&op.dialect()), "{}", op.name);
            for arg in op.arguments {
                match *arg {
                    Argument::Operand(i) => assert!((i as usize) < op.operands.len()),
                    Argument::Attribute(i) => assert!((i as usize) < op.attributes.len()),
                }
            }
            assert_eq!(op.arguments.len(), op.operands.len() + op.attributes.len(), "{}", op.name);
            for o in op.operands.iter().chain(op.results) {
                assert!((o.constraint as usize) < TYPE_CONSTRAINTS.len());
            }
            for a in op.attributes {
                assert!((a.constraint as usize) < ATTR_CONSTRAINTS.len());
            }
            for t in op.pred_traits {
                assert!(op.has_trait(t.name), "{}: {}", op.name, t.name);
            }
        }
        for c in &TYPE_CONSTRAINTS {
            assert!(c.allowed.iter().all(|&i| (i as usize) < TYPE_CONSTRAINTS.len()));
        }
        for c in &ATTR_CONSTRAINTS {
            assert!(c.enum_attr.is_none_or(|i| (i as usize) < ENUM_ATTRS.len()));
        }
    }

    #[test]
    fn op_names_compare_and_print_as_text() {
        let iadd = OpName::new("spirv.IAdd");
        assert!(iadd.is_known() && iadd == "spirv.IAdd" && iadd.as_str() == "spirv.IAdd");
        assert_eq!(iadd.def().map(|d| d.name), Some("spirv.IAdd"));
        assert_eq!(iadd, OpName::of_def(op_def("spirv.IAdd").unwrap()));
        let func = OpName::new("func.func");
        assert!(func.is_known() && func.def().is_none() && format!("{func}") == "func.func");
        let other = OpName::new("test.op");
        assert!(!other.is_known() && other == "test.op" && other.starts_with("test."));
        assert!(OpName::new("a.b") < OpName::new("spirv.IAdd") && iadd < other);
        assert_eq!(format!("{other:?}"), "\"test.op\"");
    }

    #[test]
    fn every_known_name_is_found() {
        for (i, def) in OP_DEFS.iter().enumerate() {
            assert_eq!(known_op_index(def.name), Some(i), "{}", def.name);
        }
        for (i, name) in OTHER_KNOWN_OPS.iter().enumerate() {
            assert_eq!(known_op_index(name), Some(OP_DEFS.len() + i), "{name}");
        }
        for other in ["", "spirv.", "spirv.IAddd", "x.y", "spirv.iadd"] {
            assert_eq!(known_op_index(other), None, "{other}");
        }
    }

    #[test]
    fn iadd() {
        let op = op_def("spirv.IAdd").unwrap();
        assert_eq!(op.spirv_name, Some("OpIAdd"));
        assert_eq!(op.short_name(), "IAdd");
        let names: Vec<_> = op.operands.iter().map(|o| o.name).collect();
        assert_eq!(names, ["operand1", "operand2"]);
        assert!(op.operands.iter().all(|o| o.arity == Arity::Single));
        assert_eq!(op.results.len(), 1);
        assert_eq!(op.assembly_format, Some("operands attr-dict `:` type($result)"));
        assert!(op.has_trait("Pure") && op.has_trait("Commutative"));
        assert!(op.has_trait("AllTypesMatch<operand1, operand2, result>"));
        let constraint = op.operands[0].constraint();
        assert!(constraint.summary.starts_with("8/16/32/64-bit integer or"));
        assert!(constraint.alternatives().any(|c| c.record == "SPIRV_Integer"));
        let avail = &op.availability[0];
        assert_eq!((avail.min_version, avail.max_version), (Some((1, 0)), Some((1, 6))));
        assert!(avail.extensions.is_empty() && avail.capabilities.is_empty());
    }

    #[test]
    fn load_has_a_custom_format_and_two_attributes() {
        let op = op_def("spirv.Load").unwrap();
        assert_eq!(op.assembly_format, None);
        let names: Vec<_> = op.attributes.iter().map(|a| a.name).collect();
        assert_eq!(names, ["memory_access", "alignment"]);
        assert_eq!(op.arguments, [Argument::Operand(0), Argument::Attribute(0), Argument::Attribute(1)]);
        let access = op.attribute("memory_access").unwrap().constraint();
        assert!(access.optional);
        assert_eq!(access.storage_type, "::mlir::spirv::MemoryAccessAttr");
        assert_eq!(access.enum_attr().unwrap().mnemonic, Some("memory_access"));
        assert!(op.has_verifier);
    }

    #[test]
    fn sub_namespaces_regions_and_successors() {
        assert!(op_def("spirv.GL.Sqrt").is_some());
        assert!(op_def("spirv.Sqrt").is_none());
        let lp = op_def("spirv.mlir.loop").unwrap();
        assert_eq!(lp.regions.len(), 1);
        assert_eq!(lp.spirv_name, None);
        let branch = op_def("spirv.Branch").unwrap();
        assert_eq!(branch.successors, [SuccessorDef { name: "target", variadic: false }]);
        assert!(branch.has_trait("Terminator"));
        let switch = op_def("spirv.Switch").unwrap();
        assert!(switch.successors.iter().any(|s| s.variadic));
        let merge = op_def("spirv.mlir.merge").unwrap();
        assert!(merge.has_trait("HasParent<spirv.mlir.selection, spirv.mlir.loop>"));
    }

    #[test]
    fn enums() {
        let storage = enum_attr_by_mnemonic("storage_class").unwrap();
        assert_eq!(storage.enum_name, "StorageClass");
        assert!(!storage.bit_enum);
        assert_eq!(storage.case_by_str("Function").unwrap().value, 7);
        assert_eq!(storage.case_by_value(7).unwrap().symbol, "Function");
        assert!(enum_attr_by_mnemonic("memory_access").unwrap().bit_enum);
        let version = enum_attr_by_enum_name("Version").unwrap();
        assert_eq!(version.case_by_str("v1.3").unwrap().symbol, "V_1_3");
    }

    #[test]
    fn llvm_dialect_ops_come_from_ods() {
        assert_eq!(DIALECTS, ["spirv", "llvm"]);
        let load = op_def("llvm.load").unwrap();
        assert_eq!(load.dialect(), "llvm");
        assert_eq!(load.short_name(), "load");
        assert!(load.assembly_format.unwrap().starts_with("(`volatile` $volatile_^)? $addr"));
        let ordering = load.attribute("ordering").unwrap().constraint();
        assert_eq!(ordering.enum_attr().unwrap().enum_name, "AtomicOrdering");
        assert!(ordering.default_value.is_some());
        // A property reads as an attribute of the op.
        let overflow = op_def("llvm.add").unwrap().attribute("overflowFlags").unwrap().constraint();
        assert!(overflow.property && !overflow.optional);
        // C++ forms, and the ops MLIR prints in the generic form only.
        assert_eq!(op_def("llvm.func").unwrap().assembly_format, None);
        assert!(op_def("llvm.func").unwrap().has_trait("IsolatedFromAbove"));
        assert_eq!(op_def("llvm.intr.abs").unwrap().assembly_format, None);
        let cond_br = op_def("llvm.cond_br").unwrap();
        assert_eq!(cond_br.successors.len(), 2);
        assert!(cond_br.has_trait("Terminator") && cond_br.has_trait("AttrSizedOperandSegments"));
        assert!(op_def("llvm.intr.fma").is_some() && op_def("llvm.mlir.global").unwrap().regions.len() == 1);
        let icmp = enum_attr_by_enum_name("ICmpPredicate").unwrap();
        assert_eq!(icmp.case_by_value(2).unwrap().str, "slt");
    }

    #[test]
    fn availability_and_predicates() {
        let op = op_def("spirv.KHR.CooperativeMatrixLength").unwrap();
        let avail = &op.availability[0];
        assert_eq!(avail.min_version, Some((1, 6)));
        assert_eq!(avail.extensions, [&["SPV_KHR_cooperative_matrix"][..]]);
        assert_eq!(avail.capabilities, [&["CooperativeMatrixKHR"][..]]);
        // Availability MLIR computes by hand.
        assert!(op_def("spirv.SDot").unwrap().availability.is_empty());
        let bool_type = type_constraint("SPIRV_Bool").unwrap();
        assert!(matches!(bool_type.pred, Pred::Leaf(_)));
        assert!(attr_constraint("SPIRV_ScopeAttr").unwrap().enum_attr().is_some());
    }
}
