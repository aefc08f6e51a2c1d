//! Disassembler producing exactly the text of SPIRV-Tools' `spirv-dis` (2023.1).

use crate::idmap::IdMap;
use crate::module::{Inst, Module, NumberKind, ParsedOperand};
use crate::numfmt;
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_grammar::{self as grammar, opcode, Category, OperandKind};
use std::io::Write;

/// Which spelling to use where the grammar has renamed an opcode or enumerant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Naming {
    /// The names SPIRV-Tools 2023.1 prints (e.g. `RayGenerationNV`), so the text is
    /// byte-identical to Debian's `spirv-dis`.
    #[default]
    SpirvTools2023,
    /// The current grammar's canonical names (e.g. `RayGenerationKHR`).
    Canonical,
}

/// `spirv-dis` options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DisOptions {
    /// Align result ids in a column (`--no-indent` turns it off).
    pub indent: bool,
    /// Print the `; SPIR-V` header comment (`--no-header` turns it off).
    pub header: bool,
    /// Print ids as numbers instead of friendly names (`--raw-id`).
    pub raw_ids: bool,
    /// Append each instruction's byte offset (`--offsets`).
    pub offsets: bool,
    /// Add section comments (`--comment`).
    pub comment: bool,
    pub naming: Naming,
}

impl Default for DisOptions {
    fn default() -> Self {
        DisOptions {
            indent: true,
            header: true,
            raw_ids: false,
            offsets: false,
            comment: false,
            naming: Naming::default(),
        }
    }
}

const INDENT: usize = 15;

/// Disassembles a module to text.
pub fn disassemble(module: &Module, options: &DisOptions) -> Vec<u8> {
    let names = if options.raw_ids { None } else { Some(FriendlyNames::new(module, options.naming)) };
    let mut d = Disassembler {
        // Friendly-named text runs about 2.7 bytes per binary byte.
        out: Vec::with_capacity(module.words().len() * 12),
        scratch: String::new(),
        options: *options,
        names: names.as_ref(),
    };
    if options.header {
        d.header(module);
    }
    let mut sections = Sections::default();
    for inst in module.instructions() {
        if options.comment {
            d.section_comment(&inst, &mut sections);
        }
        d.instruction(&inst);
    }
    d.out
}

#[derive(Default)]
struct Sections {
    decorations: bool,
    debug: bool,
    types: bool,
}

struct Disassembler<'a> {
    out: Vec<u8>,
    scratch: String,
    options: DisOptions,
    names: Option<&'a FriendlyNames>,
}

impl Disassembler<'_> {
    fn header(&mut self, module: &Module) {
        let h = &module.header;
        let tool = (h.generator >> 16) as u16;
        let _ = writeln!(self.out, "; SPIR-V");
        let _ = writeln!(self.out, "; Version: {}.{}", (h.version >> 16) & 0xff, (h.version >> 8) & 0xff);
        match grammar::generator_name(tool) {
            Some(name) => {
                let _ = write!(self.out, "; Generator: {name}");
            }
            None => {
                let _ = write!(self.out, "; Generator: Unknown({tool})");
            }
        }
        let _ = writeln!(self.out, "; {}", h.generator & 0xffff);
        let _ = writeln!(self.out, "; Bound: {}", h.bound);
        let _ = writeln!(self.out, "; Schema: {}", h.schema);
    }

    fn indent(&mut self) {
        if self.options.indent {
            self.out.extend_from_slice(&[b' '; INDENT]);
        }
    }

    fn section_comment(&mut self, inst: &Inst, sections: &mut Sections) {
        let class = inst.grammar().map_or("", |g| g.class);
        let heading = |this: &mut Self, text: &str| {
            this.out.push(b'\n');
            this.indent();
            this.out.extend_from_slice(text.as_bytes());
            this.out.push(b'\n');
        };
        if inst.opcode == opcode::OpFunction {
            self.out.push(b'\n');
            self.indent();
            self.out.extend_from_slice(b"; Function ");
            self.id_name(inst.result_id);
            self.out.push(b'\n');
        }
        if !sections.decorations && is_decoration(inst.opcode) {
            sections.decorations = true;
            heading(self, "; Annotations");
        }
        if !sections.debug && class == "Debug" {
            sections.debug = true;
            heading(self, "; Debug Information");
        }
        if !sections.types && generates_type(inst.opcode, class) {
            sections.types = true;
            heading(self, "; Types, variables and constants");
        }
    }

    fn id_name(&mut self, id: u32) {
        match self.names {
            Some(names) => names.write(&mut self.out, id),
            None => {
                let _ = write!(self.out, "{id}");
            }
        }
    }

    fn name_len(&self, id: u32) -> usize {
        match self.names {
            Some(names) => names.len(id),
            None => decimal_len(id),
        }
    }

    fn instruction(&mut self, inst: &Inst) {
        if inst.result_id != 0 {
            if self.options.indent {
                let width = INDENT - 3;
                let len = self.name_len(inst.result_id) + 1;
                if len < width {
                    self.out.extend(std::iter::repeat_n(b' ', width - len));
                }
            }
            self.out.push(b'%');
            self.id_name(inst.result_id);
            self.out.extend_from_slice(b" = ");
        } else {
            self.indent();
        }
        self.out.extend_from_slice(opcode_name(inst.opcode, self.options.naming).as_bytes());
        for operand in inst.operands {
            if operand.kind == OperandKind::IdResult {
                continue;
            }
            self.out.push(b' ');
            self.operand(inst, operand);
        }
        if self.options.comment && inst.opcode == opcode::OpName {
            let _ = write!(self.out, "  ; id %{}", inst.words[1]);
        }
        if self.options.offsets {
            let _ = write!(self.out, " ; 0x{:08x}", inst.offset * 4);
        }
        self.out.push(b'\n');
    }

    fn operand(&mut self, inst: &Inst, operand: &ParsedOperand) {
        let word = inst.words[operand.offset as usize];
        match operand.kind {
            OperandKind::IdResultType
            | OperandKind::IdRef
            | OperandKind::IdScope
            | OperandKind::IdMemorySemantics
            | OperandKind::IdResult => {
                self.out.push(b'%');
                self.id_name(word);
            }
            OperandKind::LiteralExtInstInteger => {
                let set = inst.ext_set.set().filter(|set| {
                    self.options.naming == Naming::Canonical
                        || !set.name.starts_with("NonSemantic.")
                        || NON_SEMANTIC_SETS_2023.contains(&set.name)
                });
                match set.and_then(|set| set.instruction(word)) {
                    Some(ext) => self.out.extend_from_slice(ext.name.as_bytes()),
                    None => {
                        let _ = write!(self.out, "{word}");
                    }
                }
            }
            OperandKind::LiteralSpecConstantOpInteger => {
                let name = opcode_name(word as u16, self.options.naming);
                self.out.extend_from_slice(name.strip_prefix("Op").unwrap_or(name).as_bytes());
            }
            OperandKind::LiteralString => {
                self.out.push(b'"');
                for b in inst.string_bytes(operand) {
                    if b == b'"' || b == b'\\' {
                        self.out.push(b'\\');
                    }
                    self.out.push(b);
                }
                self.out.push(b'"');
            }
            OperandKind::LiteralInteger
            | OperandKind::LiteralFloat
            | OperandKind::LiteralContextDependentNumber => {
                self.scratch.clear();
                write_number(&mut self.scratch, inst.operand_words(operand), operand.number);
                self.out.extend_from_slice(self.scratch.as_bytes());
            }
            kind => match kind.category() {
                Category::BitEnum => self.mask(kind, word),
                _ => {
                    let name = enumerant_name(kind, word, self.options.naming);
                    self.out.extend_from_slice(name.as_bytes());
                }
            },
        }
    }

    fn mask(&mut self, kind: OperandKind, word: u32) {
        let naming = self.options.naming;
        if word == 0 {
            if kind.info().enumerant(0).is_some() {
                self.out.extend_from_slice(enumerant_name(kind, 0, naming).as_bytes());
            }
            return;
        }
        let mut first = true;
        for bit in 0..32 {
            let mask = 1u32 << bit;
            if word & mask != 0 {
                if !first {
                    self.out.push(b'|');
                }
                first = false;
                self.out.extend_from_slice(enumerant_name(kind, mask, naming).as_bytes());
            }
        }
    }
}

fn decimal_len(mut n: u32) -> usize {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

/// SPIRV-Tools' `spvOpcodeIsDecoration`.
fn is_decoration(op: u16) -> bool {
    matches!(
        op,
        opcode::OpDecorate
            | opcode::OpDecorateId
            | opcode::OpMemberDecorate
            | opcode::OpGroupDecorate
            | opcode::OpGroupMemberDecorate
            | opcode::OpDecorateString
            | opcode::OpMemberDecorateString
    )
}

/// SPIRV-Tools' `spvOpcodeGeneratesType`: type declarations that define a result.
fn generates_type(op: u16, class: &str) -> bool {
    class == "Type-Declaration" && op != opcode::OpTypeForwardPointer
}

/// The opcode's name in the requested spelling.
pub fn opcode_name(op: u16, naming: Naming) -> &'static str {
    if naming == Naming::SpirvTools2023 {
        if let Some(name) = grammar::legacy_opcode_name(op) {
            return name;
        }
    }
    grammar::instruction(op).map_or("OpUnknown", |i| i.name)
}

/// The enumerant's name in the requested spelling (the reader guarantees it exists).
pub fn enumerant_name(kind: OperandKind, value: u32, naming: Naming) -> &'static str {
    let info = kind.info();
    if naming == Naming::SpirvTools2023 {
        if let Some(name) = info.legacy_name(value) {
            return name;
        }
    }
    info.enumerant(value).map_or("?", |e| e.name)
}

/// Writes a literal number the way `spirv-dis` does.
pub fn write_number(out: &mut String, words: &[u32], number: NumberKind) {
    use std::fmt::Write as _;
    match (words, number) {
        ([w], NumberKind::Int { signed: true, .. }) => {
            let _ = write!(out, "{}", *w as i32);
        }
        ([w], NumberKind::Float { width: 16 }) => numfmt::write_f16(out, *w as u16),
        ([w], NumberKind::Float { .. }) => numfmt::write_f32(out, *w),
        ([w], _) => {
            let _ = write!(out, "{w}");
        }
        ([lo, hi], number) => {
            let bits = (*lo as u64) | ((*hi as u64) << 32);
            match number {
                NumberKind::Int { signed: true, .. } => {
                    let _ = write!(out, "{}", bits as i64);
                }
                NumberKind::Float { .. } => numfmt::write_f64(out, bits),
                _ => {
                    let _ = write!(out, "{bits}");
                }
            }
        }
        _ => {}
    }
}

/// SPIRV-Tools' FriendlyNameMapper: names from OpName, builtins, types and
/// constants, made unique with `_0`, `_1`… suffixes; other results are named by
/// their number (which reserves that number as a name).
pub struct FriendlyNames {
    names: IdMap<NameEntry>,
}

/// One id's name. Most ids are named by their number, which is kept implicit so
/// naming a large module does not allocate a string per id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum NameEntry {
    #[default]
    Unset,
    Numeric,
    Named(Box<str>),
}

impl FriendlyNames {
    pub fn new(module: &Module, naming: Naming) -> Self {
        let mut builder = NameBuilder {
            names: IdMap::new(module.header.bound, module.words().len()),
            used: FxHashSet::default(),
            next_suffix: FxHashMap::default(),
        };
        for inst in module.instructions() {
            builder.instruction(&inst, naming);
        }
        FriendlyNames { names: builder.names }
    }

    /// Writes the id's name (without `%`).
    pub fn write(&self, out: &mut Vec<u8>, id: u32) {
        match self.names.get(id) {
            NameEntry::Named(name) => out.extend_from_slice(name.as_bytes()),
            _ => {
                let _ = write!(out, "{id}");
            }
        }
    }

    pub fn len(&self, id: u32) -> usize {
        match self.names.get(id) {
            NameEntry::Named(name) => name.len(),
            _ => decimal_len(id),
        }
    }

    /// The name of an id, as printed after `%`.
    pub fn name(&self, id: u32) -> String {
        let mut out = Vec::new();
        self.write(&mut out, id);
        String::from_utf8(out).unwrap_or_default()
    }
}

struct NameBuilder {
    names: IdMap<NameEntry>,
    /// Every explicit (non-numeric) name handed out.
    used: FxHashSet<Box<str>>,
    /// For a base name that needed a suffix: the next suffix to try.
    next_suffix: FxHashMap<Box<str>, u32>,
}

impl NameBuilder {
    fn name_for(&self, id: u32) -> String {
        match self.names.get(id) {
            NameEntry::Named(name) => name.to_string(),
            _ => id.to_string(),
        }
    }

    fn is_used(&self, name: &str) -> bool {
        if self.used.contains(name) {
            return true;
        }
        // A canonical decimal is also taken when that id is named by its number.
        let canonical = !name.is_empty() && (name == "0" || !name.starts_with('0'));
        canonical
            && name.bytes().all(|b| b.is_ascii_digit())
            && name.parse::<u32>().is_ok_and(|n| *self.names.get(n) == NameEntry::Numeric)
    }

    fn save(&mut self, id: u32, suggested: &[u8]) {
        if *self.names.get(id) != NameEntry::Unset {
            return;
        }
        let base = sanitize(suggested);
        let mut name = base.clone();
        if self.is_used(&name) {
            // Names are never released, so every suffix below the last one handed out
            // for this base is still taken: resume there instead of rescanning from 0.
            let mut index = self.next_suffix.get(base.as_str()).copied().unwrap_or(0);
            loop {
                name = format!("{base}_{index}");
                index += 1;
                if !self.is_used(&name) {
                    break;
                }
            }
            self.next_suffix.insert(base.into_boxed_str(), index);
        }
        self.used.insert(name.clone().into_boxed_str());
        self.names.set(id, NameEntry::Named(name.into_boxed_str()));
    }

    /// Names an id by its own number, unless an explicit name already took it.
    fn save_numeric(&mut self, id: u32) {
        if *self.names.get(id) != NameEntry::Unset {
            return;
        }
        let text = id.to_string();
        if self.used.contains(text.as_str()) {
            self.save(id, text.as_bytes());
        } else {
            self.names.set(id, NameEntry::Numeric);
        }
    }

    fn instruction(&mut self, inst: &Inst, naming: Naming) {
        let id = inst.result_id;
        let w = inst.words;
        let word = |i: usize| w.get(i).copied().unwrap_or(0);
        match inst.opcode {
            opcode::OpName => {
                let bytes = inst.operands.get(1).map(|o| inst.string_bytes(o)).unwrap_or_default();
                self.save(word(1), &bytes);
            }
            opcode::OpDecorate if word(2) == BUILTIN_DECORATION => {
                if let Ok(at) = BUILTIN_NAMES.binary_search_by_key(&word(3), |&(v, _)| v) {
                    self.save(word(1), BUILTIN_NAMES[at].1.as_bytes());
                }
            }
            opcode::OpTypeVoid => self.save(id, b"void"),
            opcode::OpTypeBool => self.save(id, b"bool"),
            opcode::OpTypeInt => {
                let width = word(2);
                let (mut sign, root) = match width {
                    8 => ("", "char".to_string()),
                    16 => ("", "short".to_string()),
                    32 => ("", "int".to_string()),
                    64 => ("", "long".to_string()),
                    other => ("i", other.to_string()),
                };
                if word(3) == 0 {
                    sign = "u";
                }
                self.save(id, format!("{sign}{root}").as_bytes());
            }
            opcode::OpTypeFloat => {
                let name = match word(2) {
                    16 => "half".to_string(),
                    32 => "float".to_string(),
                    64 => "double".to_string(),
                    other => format!("fp{other}"),
                };
                self.save(id, name.as_bytes());
            }
            opcode::OpTypeVector => {
                let name = format!("v{}{}", word(3), self.name_for(word(2)));
                self.save(id, name.as_bytes());
            }
            opcode::OpTypeMatrix => {
                let name = format!("mat{}{}", word(3), self.name_for(word(2)));
                self.save(id, name.as_bytes());
            }
            opcode::OpTypeArray => {
                let name = format!("_arr_{}_{}", self.name_for(word(2)), self.name_for(word(3)));
                self.save(id, name.as_bytes());
            }
            opcode::OpTypeRuntimeArray => {
                let name = format!("_runtimearr_{}", self.name_for(word(2)));
                self.save(id, name.as_bytes());
            }
            opcode::OpTypePointer => {
                let class = enumerant_name(OperandKind::StorageClass, word(2), naming);
                let name = format!("_ptr_{}_{}", class, self.name_for(word(3)));
                self.save(id, name.as_bytes());
            }
            opcode::OpTypePipe => {
                let access = enumerant_name(OperandKind::AccessQualifier, word(2), naming);
                self.save(id, format!("Pipe{access}").as_bytes());
            }
            opcode::OpTypeEvent => self.save(id, b"Event"),
            opcode::OpTypeDeviceEvent => self.save(id, b"DeviceEvent"),
            opcode::OpTypeReserveId => self.save(id, b"ReserveId"),
            opcode::OpTypeQueue => self.save(id, b"Queue"),
            opcode::OpTypeOpaque => {
                let bytes = inst.operands.get(1).map(|o| inst.string_bytes(o)).unwrap_or_default();
                self.save(id, format!("Opaque_{}", sanitize(&bytes)).as_bytes());
            }
            opcode::OpTypePipeStorage => self.save(id, b"PipeStorage"),
            opcode::OpTypeNamedBarrier => self.save(id, b"NamedBarrier"),
            opcode::OpTypeStruct => self.save(id, format!("_struct_{id}").as_bytes()),
            opcode::OpConstantTrue => self.save(id, b"true"),
            opcode::OpConstantFalse => self.save(id, b"false"),
            opcode::OpConstant => {
                let mut value = String::new();
                if let Some(operand) = inst.operands.get(2) {
                    write_number(&mut value, inst.operand_words(operand), operand.number);
                }
                let value = value.replace('-', "n");
                let name = format!("{}_{}", self.name_for(inst.result_type), value);
                self.save(id, name.as_bytes());
            }
            // Every other result is reserved under its number, so that an OpName spelled
            // like a number cannot collide with it.
            _ if id != 0 => self.save_numeric(id),
            _ => {}
        }
    }
}

const BUILTIN_DECORATION: u32 = 11;

/// The non-semantic instruction sets SPIRV-Tools 2023.1 knows by name; it prints the
/// instructions of any other `NonSemantic.*` set by number.
const NON_SEMANTIC_SETS_2023: &[&str] = &["NonSemantic.Shader.DebugInfo.100", "NonSemantic.ClspvReflection."];

/// Names `spirv-dis` 2023.1 gives ids decorated `BuiltIn X` (and not named by
/// OpName), by BuiltIn value. Observed from the tool: only these builtins are named.
const BUILTIN_NAMES: &[(u32, &str)] = &[
    (0, "gl_Position"),
    (1, "gl_PointSize"),
    (3, "gl_ClipDistance"),
    (4, "gl_CullDistance"),
    (5, "gl_VertexID"),
    (6, "gl_InstanceID"),
    (7, "gl_PrimitiveID"),
    (8, "gl_InvocationID"),
    (9, "gl_Layer"),
    (10, "gl_ViewportIndex"),
    (11, "gl_TessLevelOuter"),
    (12, "gl_TessLevelInner"),
    (13, "gl_TessCoord"),
    (14, "gl_PatchVertices"),
    (15, "gl_FragCoord"),
    (16, "gl_PointCoord"),
    (17, "gl_FrontFacing"),
    (18, "gl_SampleID"),
    (19, "gl_SamplePosition"),
    (20, "gl_SampleMask"),
    (22, "gl_FragDepth"),
    (23, "gl_HelperInvocation"),
    (24, "gl_NumWorkGroups"),
    (25, "gl_WorkGroupSize"),
    (26, "gl_WorkGroupID"),
    (27, "gl_LocalInvocationID"),
    (28, "gl_GlobalInvocationID"),
    (29, "gl_LocalInvocationIndex"),
    (30, "WorkDim"),
    (31, "GlobalSize"),
    (32, "EnqueuedWorkgroupSize"),
    (33, "GlobalOffset"),
    (34, "GlobalLinearId"),
    (36, "SubgroupSize"),
    (37, "SubgroupMaxSize"),
    (38, "NumSubgroups"),
    (39, "NumEnqueuedSubgroups"),
    (40, "SubgroupId"),
    (41, "SubgroupLocalInvocationId"),
    (42, "gl_VertexIndex"),
    (43, "gl_InstanceIndex"),
    (4416, "SubgroupEqMaskKHR"),
    (4417, "SubgroupGeMaskKHR"),
    (4418, "SubgroupGtMaskKHR"),
    (4419, "SubgroupLeMaskKHR"),
    (4420, "SubgroupLtMaskKHR"),
    (4425, "gl_BaseInstance"),
];

/// Replaces every byte other than `[A-Za-z0-9_]` with `_`; the empty name becomes `_`.
fn sanitize(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "_".to_string();
    }
    bytes.iter().map(|&b| if b.is_ascii_alphanumeric() || b == b'_' { b as char } else { '_' }).collect()
}
