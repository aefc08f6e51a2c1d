//! Whether a module declares what its instructions and enumerants need, by the
//! Khronos grammar's availability (the rules `spirv-val` applies): every capability
//! requirement met by a declared capability (or one it implies), every instruction or
//! enumerant that only an extension provides covered by a declared `OpExtension`,
//! and none used before the module's version has it (unless an extension brings it).
//!
//! The serializer runs this on what it wrote, so a module whose `#spirv.vce` misses
//! a capability or extension is refused instead of written as a broken binary.

use crate::module::{Inst, InstRecord, Module};
use crate::read::ReadError;
use spirvkit_grammar::fxhash::FxHashSet;
use spirvkit_grammar::opcode as op;
use spirvkit_grammar::{Availability, Category, OperandKind, Version};
use std::collections::BTreeSet;

/// One unmet requirement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    /// Word offset of the instruction that needs it.
    pub offset: usize,
    /// What needs it: `OpGroupNonUniformBallot`, `StorageClass PhysicalStorageBuffer`.
    pub user: String,
    /// What is missing: `capability GroupNonUniformBallot`, `extension SPV_KHR_...`,
    /// `version 1.3`.
    pub requirement: String,
}

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} needs {} (word {})", self.user, self.requirement, self.offset)
    }
}

/// Every unmet requirement of `module`, in instruction order (one per user and
/// requirement).
pub fn missing_requirements(module: &Module) -> Vec<Missing> {
    missing_requirements_split(module, MIN_SPLIT_INSTRUCTIONS)
}

/// Modules with fewer instructions are checked on one thread: a thread costs tens
/// of microseconds to start.
const MIN_SPLIT_INSTRUCTIONS: usize = 32 * 1024;

/// [`missing_requirements`], on two threads (each checking half of the instructions)
/// when there are `min_split` instructions or more and two cores.
fn missing_requirements_split(module: &Module, min_split: usize) -> Vec<Missing> {
    let version = Version::from_word(module.header.version).unwrap_or(Version::new(1, 0));
    let mut capabilities = BTreeSet::new();
    let mut extensions = BTreeSet::new();
    // Most instructions need only their opcode, from their first word.
    let opcode_of = |r: &InstRecord| module.words.get(r.offset as usize).map_or(0, |w| (w & 0xffff) as u16);
    let records = &module.table.instructions;
    for r in records {
        let opcode = opcode_of(r);
        if opcode == op::OpCapability {
            if let Some(cap) = module.inst(r).word_of(0) {
                declare_capability(cap, &mut capabilities);
            }
        } else if opcode == op::OpExtension {
            let inst = module.inst(r);
            if let Some(operand) = inst.operands.first() {
                extensions.insert(String::from_utf8_lossy(&inst.string_bytes(operand)).into_owned());
            }
        }
    }
    // What the instructions of `records` miss, in order (a verdict depends on the
    // declarations alone, so the halves' results follow each other).
    let check = |records: &[InstRecord]| {
        let mut context = Context::new(version, capabilities.clone(), extensions.clone());
        let mut missing = Vec::new();
        for r in records {
            let first = module.words.get(r.offset as usize).copied().unwrap_or(0);
            if !context.skips(first) {
                context.check_instruction(&module.inst(r), &mut missing);
            }
        }
        missing
    };
    let mut missing = if records.len() >= min_split && crate::read::two_cores() {
        let (first, second) = records.split_at(records.len() / 2);
        std::thread::scope(|scope| {
            let handle = spirvkit_threads::spawn_scoped(scope, || check(second));
            let mut missing = check(first);
            missing.extend(handle.ok().and_then(|h| h.join().ok()).unwrap_or_else(|| check(second)));
            missing
        })
    } else {
        check(records)
    };
    missing.dedup();
    missing
}

/// [`missing_requirements`] of the module host-order `words` (the header included)
/// make, read as [`crate::read::visit_words`] reads them (with [`read_words`]'
/// errors), without making the module's tables.
///
/// [`read_words`]: crate::read::read_words
pub fn read_missing_requirements(words: &[u32]) -> Result<Vec<Missing>, ReadError> {
    read_missing_requirements_split(words, crate::read::Split::Auto)
}

/// [`read_missing_requirements`] with the function section cut at its middle
/// function whatever its size (the fuzz target `read` compares it with
/// [`missing_requirements`] of `read_words`).
#[doc(hidden)]
pub fn read_missing_requirements_cut_at_middle(words: &[u32]) -> Result<Vec<Missing>, ReadError> {
    read_missing_requirements_split(words, crate::read::Split::Middle)
}

fn read_missing_requirements_split(
    words: &[u32],
    split: crate::read::Split,
) -> Result<Vec<Missing>, ReadError> {
    let (capabilities, extensions, declarations_end) = leading_declarations(words);
    let version = words.get(1).and_then(|&v| Version::from_word(v)).unwrap_or(Version::new(1, 0));
    let checker = Checker {
        context: Context::new(version, capabilities, extensions),
        missing: Vec::new(),
        declarations_end,
        late_declaration: false,
    };
    let (first, second) = crate::read::visit_words_split(words, split, checker, Checker::fork)?;
    if first.late_declaration || second.as_ref().is_some_and(|s| s.late_declaration) {
        // The checks need every declaration first: read it whole.
        let module = crate::read::read_words(words.to_vec(), crate::module::Endian::Little)?;
        return Ok(missing_requirements(&module));
    }
    let mut missing = first.missing;
    missing.extend(second.into_iter().flat_map(|s| s.missing));
    missing.dedup();
    Ok(missing)
}

/// The capabilities and extensions the instructions a module's words start with
/// declare (a module's layout has them all first), and the word where those end.
/// The words are not read yet: a malformed instruction ends the declarations (the
/// read reports it).
fn leading_declarations(words: &[u32]) -> (BTreeSet<u32>, BTreeSet<String>, usize) {
    let mut capabilities = BTreeSet::new();
    let mut extensions = BTreeSet::new();
    let mut pos = crate::module::Header::WORDS;
    while let Some(&first) = words.get(pos) {
        let count = (first >> 16) as usize;
        let Some(inst) = words.get(pos..pos + count).filter(|_| count > 0) else { break };
        match (first & 0xffff) as u16 {
            op::OpCapability => {
                if let Some(&cap) = inst.get(1) {
                    declare_capability(cap, &mut capabilities);
                }
            }
            op::OpExtension => {
                let name = crate::module::string_bytes(&inst[1..]);
                extensions.insert(String::from_utf8_lossy(&name).into_owned());
            }
            _ => break,
        }
        pos += count;
    }
    (capabilities, extensions, pos)
}

/// The visitor of [`read_missing_requirements`].
struct Checker {
    context: Context,
    missing: Vec<Missing>,
    /// Where the leading declarations end.
    declarations_end: usize,
    /// A declaration came later: the checks so far lacked it.
    late_declaration: bool,
}

impl Checker {
    /// The second half's checker: the same declarations, no verdicts yet.
    fn fork(&self) -> Checker {
        let context = &self.context;
        Checker {
            context: Context::new(context.version, context.capabilities.clone(), context.extensions.clone()),
            missing: Vec::new(),
            declarations_end: self.declarations_end,
            late_declaration: false,
        }
    }
}

impl crate::read::Visit for Checker {
    #[inline]
    fn visit(&mut self, inst: &Inst<'_>) {
        let declaration = inst.opcode == op::OpCapability || inst.opcode == op::OpExtension;
        self.late_declaration |= declaration && inst.offset >= self.declarations_end;
        if !self.context.skips(inst.words.first().copied().unwrap_or(0)) {
            self.context.check_instruction(inst, &mut self.missing);
        }
    }
}

/// What is left to check for an opcode's instructions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Not met yet.
    Unseen,
    /// Nothing: no grammar, a declaration, or needs met and no enumerant operands.
    Skip,
    /// The opcode's needs are met; its enumerant operands remain, in instructions
    /// with more operand words than this many (the one-word ids and literals its
    /// grammar's operands start with).
    Operands(u8),
    /// The opcode needs what the module lacks: everything, every time.
    All,
}

/// Whether an instruction of `grammar` can have enumerant operands: through its
/// grammar's operands (an enumerant's parameters come after one), or the operands an
/// extended instruction or a spec-constant op brings.
fn may_have_enumerants(grammar: &spirvkit_grammar::Instruction) -> bool {
    let enumerant = |kind: OperandKind| matches!(kind.category(), Category::ValueEnum | Category::BitEnum);
    grammar.operands.iter().any(|o| {
        let kind = o.kind;
        enumerant(kind)
            || kind.info().bases.iter().any(|&k| enumerant(k))
            || matches!(kind, OperandKind::LiteralExtInstInteger | OperandKind::LiteralSpecConstantOpInteger)
    })
}

/// How many of `grammar`'s operands come first, each one word that is never an
/// enumerant: an instruction with no more operand words has none.
fn plain_prefix(grammar: &spirvkit_grammar::Instruction) -> u8 {
    let plain = grammar
        .operands
        .iter()
        .take_while(|o| {
            o.quantifier == spirvkit_grammar::Quantifier::One
                && matches!(
                    o.kind,
                    OperandKind::IdResultType
                        | OperandKind::IdResult
                        | OperandKind::IdRef
                        | OperandKind::IdScope
                        | OperandKind::IdMemorySemantics
                        | OperandKind::LiteralInteger
                )
        })
        .count();
    u8::try_from(plain).unwrap_or(0)
}

/// Adds a capability and, transitively, the ones it implies.
fn declare_capability(cap: u32, declared: &mut BTreeSet<u32>) {
    let mut work = vec![cap];
    while let Some(cap) = work.pop() {
        if declared.insert(cap) {
            work.extend_from_slice(spirvkit_grammar::implied_capabilities(cap));
        }
    }
}

struct Context {
    version: Version,
    capabilities: BTreeSet<u32>,
    extensions: BTreeSet<String>,
    /// Per opcode, by value, what its instructions still need checked: a verdict on
    /// an opcode or enumerant depends on it alone, so each is judged once.
    verdicts: Vec<Verdict>,
    /// Enumerants (operand kind, value) found to need nothing more than the module
    /// declares.
    fine_enumerants: FxHashSet<(OperandKind, u32)>,
}

impl Context {
    fn new(version: Version, capabilities: BTreeSet<u32>, extensions: BTreeSet<String>) -> Self {
        Context {
            version,
            capabilities,
            extensions,
            verdicts: vec![Verdict::Unseen; usize::from(u16::MAX) + 1],
            fine_enumerants: FxHashSet::default(),
        }
    }

    /// Whether the instruction whose first word is `first` needs no checking, by
    /// its opcode's verdict.
    #[inline]
    fn skips(&self, first: u32) -> bool {
        match self.verdicts[(first & 0xffff) as usize] {
            Verdict::Skip => true,
            Verdict::Operands(plain) => (first >> 16).saturating_sub(1) <= u32::from(plain),
            Verdict::Unseen | Verdict::All => false,
        }
    }

    fn check_instruction(&mut self, inst: &Inst, missing: &mut Vec<Missing>) {
        let opcode = usize::from(inst.opcode);
        let verdict = self.verdicts[opcode];
        if verdict == Verdict::Skip {
            return;
        }
        if !matches!(verdict, Verdict::Operands(_)) {
            let Some(grammar) = inst.grammar() else {
                self.verdicts[opcode] = Verdict::Skip;
                return;
            };
            // The declarations themselves need nothing here.
            if inst.opcode == op::OpCapability || inst.opcode == op::OpExtension {
                self.verdicts[opcode] = Verdict::Skip;
                return;
            }
            let before = missing.len();
            self.check(&grammar.availability, inst.offset, || grammar.name.to_string(), missing);
            self.verdicts[opcode] = if missing.len() != before {
                Verdict::All
            } else if may_have_enumerants(grammar) {
                Verdict::Operands(plain_prefix(grammar))
            } else {
                Verdict::Skip
            };
        }
        for operand in inst.operands {
            let info = operand.kind.info();
            match info.category {
                // spirv-val asks for a built-in's capability only where the built-in
                // is used in ways it checks separately (a `gl_PerVertex` block may
                // declare ClipDistance without the capability), so neither do we.
                Category::ValueEnum if operand.kind == OperandKind::BuiltIn => {}
                Category::ValueEnum => {
                    let value = inst.words[operand.offset as usize];
                    self.check_enumerant(inst, operand.kind, value, missing);
                }
                Category::BitEnum => {
                    // Each set bit, lowest first.
                    let mut mask = inst.words[operand.offset as usize];
                    while mask != 0 {
                        let bit = mask & mask.wrapping_neg();
                        mask &= !bit;
                        self.check_enumerant(inst, operand.kind, bit, missing);
                    }
                }
                _ => {}
            }
        }
    }

    fn check_enumerant(&mut self, inst: &Inst, kind: OperandKind, value: u32, missing: &mut Vec<Missing>) {
        if self.fine_enumerants.contains(&(kind, value)) {
            return;
        }
        let info = kind.info();
        if let Some(e) = info.enumerant(value) {
            let before = missing.len();
            let user = || format!("{} {}", info.name, e.name);
            self.check(&e.availability, inst.offset, user, missing);
            if missing.len() == before {
                self.fine_enumerants.insert((kind, value));
            }
        }
    }

    fn check(
        &self,
        availability: &Availability,
        offset: usize,
        user: impl Fn() -> String,
        missing: &mut Vec<Missing>,
    ) {
        let caps = availability.capabilities;
        if !caps.is_empty() && !caps.iter().any(|c| self.capabilities.contains(c)) {
            let names: Vec<&str> = caps.iter().map(|&c| capability_name(c)).collect();
            let requirement = format!("capability {}", names.join(" or "));
            missing.push(Missing { offset, user: user(), requirement });
        }
        let by_extension = availability.extensions.iter().any(|e| self.extensions.contains(*e));
        // As spirv-val: an instruction's version is met by a declared capability it
        // takes (OpDemoteToHelperInvocation below 1.6: the capability's own version or
        // extension is checked where it is declared).
        let by_capability =
            caps.iter().any(|&c| self.capabilities.contains(&c) && self.capability_available(c));
        match availability.min_version {
            Some(min) if min <= self.version || by_extension || by_capability => {}
            Some(min) if availability.extensions.is_empty() => {
                missing.push(Missing { offset, user: user(), requirement: format!("version {min}") });
            }
            _ if by_extension => {}
            Some(_) | None => {
                if availability.extensions.is_empty() {
                    // Reserved and not provided by anything: nothing a module can declare.
                    return;
                }
                let requirement = format!("extension {}", availability.extensions.join(" or "));
                missing.push(Missing { offset, user: user(), requirement });
            }
        }
    }
}

impl Context {
    /// Whether capability `cap` itself is in the version or brought by a declared
    /// extension.
    fn capability_available(&self, cap: u32) -> bool {
        let Some(e) = OperandKind::Capability.info().enumerant(cap) else { return false };
        let a = &e.availability;
        a.min_version.is_some_and(|min| min <= self.version)
            || a.extensions.iter().any(|x| self.extensions.contains(*x))
    }
}

fn capability_name(cap: u32) -> &'static str {
    OperandKind::Capability.info().enumerant(cap).map_or("<unknown>", |e| e.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{assemble, read, words_to_bytes, AsmOptions, Endian, TargetEnv};

    fn module(text: &str, env: &str) -> Module {
        let options = AsmOptions { target_env: TargetEnv::parse(env).unwrap(), ..AsmOptions::default() };
        let words = assemble(text, &options).expect("assembles");
        read(&words_to_bytes(&words, Endian::Little)).expect("reads")
    }

    const HEAD: &str = "OpMemoryModel Logical GLSL450\n%void = OpTypeVoid\n%uint = OpTypeInt 32 0\n";

    #[test]
    fn a_complete_module_needs_nothing_more() {
        let m = module(&format!("OpCapability Shader\n{HEAD}"), "spv1.0");
        assert_eq!(missing_requirements(&m), []);
        // Implied capabilities count: Shader implies Matrix.
        let m = module(
            &format!("OpCapability Shader\n{HEAD}%v = OpTypeVector %uint 4\n%m = OpTypeMatrix %v 4\n"),
            "spv1.0",
        );
        assert_eq!(missing_requirements(&m), []);
    }

    #[test]
    fn missing_capability_extension_and_version_are_reported() {
        // OpTypeMatrix needs Matrix (Shader, which implies it, not declared).
        let text = "OpCapability Kernel\nOpCapability Linkage\nOpMemoryModel Logical OpenCL\n\
                    %uint = OpTypeInt 32 0\n%v = OpTypeVector %uint 4\n%m = OpTypeMatrix %v 4\n";
        let m = module(text, "spv1.0");
        let missing = missing_requirements(&m);
        assert_eq!(missing.len(), 1, "{missing:?}");
        assert_eq!(missing[0].requirement, "capability Matrix");
        assert_eq!(missing[0].user, "OpTypeMatrix");
        // The storage class PhysicalStorageBuffer needs its capability, and below 1.5
        // its extension.
        let text = String::from(
            "OpCapability Shader\nOpCapability PhysicalStorageBufferAddresses\n\
             OpMemoryModel PhysicalStorageBuffer64 GLSL450\n%uint = OpTypeInt 32 0\n\
             %p = OpTypePointer PhysicalStorageBuffer %uint\n",
        );
        let m = module(&text, "spv1.3");
        let missing = missing_requirements(&m);
        assert!(
            missing.iter().any(|m| m.requirement.contains("SPV_KHR_physical_storage_buffer")),
            "{missing:?}"
        );
        let m = module(&text, "spv1.5");
        assert_eq!(missing_requirements(&m), []);
        // OpGroupNonUniformElect: capability and version 1.3.
        let text = format!(
            "OpCapability Shader\nOpCapability GroupNonUniform\n{HEAD}%bool = OpTypeBool\n\
             %scope = OpConstant %uint 3\n%fn = OpTypeFunction %void\n%f = OpFunction %void None %fn\n\
             %l = OpLabel\n%e = OpGroupNonUniformElect %bool %scope\nOpReturn\nOpFunctionEnd\n"
        );
        assert_eq!(missing_requirements(&module(&text, "spv1.3")), []);
        // OpDemoteToHelperInvocation (1.6) below 1.6: its capability, by the extension.
        let text = format!(
            "OpCapability Shader\nOpCapability DemoteToHelperInvocation\n\
             OpExtension \"SPV_EXT_demote_to_helper_invocation\"\n{HEAD}%fn = OpTypeFunction %void\n\
             %f = OpFunction %void None %fn\n%l = OpLabel\nOpDemoteToHelperInvocation\nOpReturn\nOpFunctionEnd\n"
        );
        assert_eq!(missing_requirements(&module(&text, "spv1.0")), []);
    }

    /// The requirements by the plain rule, every instruction and enumerant judged
    /// afresh (what the cached verdicts must reproduce).
    fn uncached(module: &Module) -> Vec<Missing> {
        let mut missing = Vec::new();
        let mut reference = Context {
            version: Version::from_word(module.header.version).unwrap_or(Version::new(1, 0)),
            capabilities: BTreeSet::new(),
            extensions: BTreeSet::new(),
            verdicts: Vec::new(),
            fine_enumerants: FxHashSet::default(),
        };
        for inst in module.instructions() {
            if inst.opcode == op::OpCapability {
                declare_capability(inst.word_of(0).unwrap_or(0), &mut reference.capabilities);
            } else if inst.opcode == op::OpExtension {
                let name = inst.string_bytes(&inst.operands[0]);
                reference.extensions.insert(String::from_utf8_lossy(&name).into_owned());
            }
        }
        for inst in module.instructions() {
            let Some(grammar) = inst.grammar() else { continue };
            if inst.opcode == op::OpCapability || inst.opcode == op::OpExtension {
                continue;
            }
            reference.check(&grammar.availability, inst.offset, || grammar.name.to_string(), &mut missing);
            for operand in inst.operands {
                let info = operand.kind.info();
                let word = inst.words[operand.offset as usize];
                let values: Vec<u32> = match info.category {
                    Category::ValueEnum if operand.kind != OperandKind::BuiltIn => vec![word],
                    Category::BitEnum => (0..32).map(|b| 1u32 << b).filter(|b| word & b != 0).collect(),
                    _ => Vec::new(),
                };
                for e in values.into_iter().filter_map(|v| info.enumerant(v)) {
                    let user = || format!("{} {}", info.name, e.name);
                    reference.check(&e.availability, inst.offset, user, &mut missing);
                }
            }
        }
        missing.dedup();
        missing
    }

    /// Every corpus module, as it is, at version 1.0, and without its capability and
    /// extension declarations: the cached verdicts find what the plain rule finds.
    #[test]
    fn cached_verdicts_find_what_the_plain_rule_finds() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/spv");
        let mut stack = vec![dir];
        let mut modules = 0;
        let mut found = 0;
        let mut lates = 0;
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for path in entries.flatten().map(|e| e.path()) {
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let Ok(module) = read(&std::fs::read(&path).unwrap_or_default()) else { continue };
                let mut words = module.words()[..5].to_vec();
                for inst in module.instructions() {
                    if inst.opcode != op::OpCapability && inst.opcode != op::OpExtension {
                        words.extend_from_slice(inst.words);
                    }
                }
                let mut old = module.words().to_vec();
                old[1] = 0x0001_0000;
                // The declarations after everything else: checked on a read of the
                // whole module.
                let mut late = words.clone();
                for inst in module.instructions() {
                    if inst.opcode == op::OpCapability || inst.opcode == op::OpExtension {
                        late.extend_from_slice(inst.words);
                    }
                }
                for (i, words) in [module.words().to_vec(), old, words, late].into_iter().enumerate() {
                    let Ok(variant) = crate::read_words(words.clone(), Endian::Little) else { continue };
                    lates += usize::from(i == 3);
                    let expected = uncached(&variant);
                    found += expected.len();
                    assert_eq!(missing_requirements(&variant), expected, "{}", path.display());
                    assert_eq!(missing_requirements_split(&variant, 0), expected, "{}", path.display());
                    // Read without the tables, on one thread and on two.
                    for split in [crate::read::Split::Auto, crate::read::Split::Middle] {
                        let read = read_missing_requirements_split(&words, split);
                        assert_eq!(read.as_ref(), Ok(&expected), "{}", path.display());
                    }
                }
                modules += 1;
            }
        }
        if modules == 0 {
            eprintln!("skipping: SPIR-V corpus not found");
        } else {
            assert!(found > 0 && lates > 0, "{found} found, {lates} modules with late declarations");
        }
    }
}
