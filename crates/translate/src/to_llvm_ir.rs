//! LLVM dialect -> LLVM IR text: the writer behind `spirvkit translate --mlir-to-llvmir`
//! (mlir-translate's option).
//!
//! It reads the LLVM dialect ops by name and properties, in MLIR 22's generic form
//! (`"llvm.add"(%a, %b) <{overflowFlags = 0 : i32}>`), so it does not depend on the ops
//! being registered, and writes the text LLVM 22's parser (`llvm-as-22`) reads:
//!
//! - the module: identified struct types, globals (linkage, visibility, address space,
//!   constant flag, alignment, section; an initializer from `value` or folded from the
//!   initializer region), then functions (declarations and definitions, calling
//!   convention, linkage, function/parameter/result attributes).
//! - the nested module form the SPIR-V -> LLVM conversion produces (`module { module @x
//!   {...} }`): every nested `builtin.module`'s contents go into the one LLVM module
//!   (mlir-translate-22 writes an empty module there).
//! - function bodies: block arguments become phis (one entry per incoming edge), constant
//!   ops (`llvm.mlir.constant`, `undef`, `poison`, `zero`, `addressof`) are written inline
//!   at their uses, values are numbered as LLVM numbers unnamed values.
//! - `llvm.intr.NAME` becomes a call of `@llvm.NAME` without the overload suffix: LLVM 22's
//!   parser derives the mangled name and the declaration from the call's types.
//!
//! An op, type, attribute or property without a translation is a [`ToLlvmIrError`]
//! "not supported yet: ..." at the op's location. Optimization hints without a meaning
//! of their own (TBAA, alias scopes, access groups, branch weights) are dropped.

mod constants;
mod function;
mod types;

use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::Location;
use spirvkit_ir::types::TypeKind;
use spirvkit_ir::{Ir, OpId};
use std::collections::HashMap;
use types::{global_name, quoted, TypePrinter};

/// Why a module could not be written as LLVM IR, and where.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ToLlvmIrError {
    pub message: String,
    pub location: Location,
}

/// An error before its op's location is known.
#[derive(Debug, Clone)]
pub(crate) struct Fail {
    message: String,
    location: Option<Location>,
}

impl Fail {
    fn new(message: impl Into<String>) -> Fail {
        Fail { message: message.into(), location: None }
    }

    fn unsupported(what: impl std::fmt::Display) -> Fail {
        Fail::new(format!("not supported yet: {what}"))
    }

    /// The same error at `location` unless it already has one.
    fn at(mut self, location: &Location) -> Fail {
        if self.location.is_none() {
            self.location = Some(location.clone());
        }
        self
    }
}

/// Writes the LLVM dialect module `module` (a `builtin.module`, whose nested modules are
/// written too) as LLVM IR text.
pub fn to_llvm_ir(ir: &Ir, module: OpId) -> Result<String, ToLlvmIrError> {
    let writer = ModuleWriter { ir, types: TypePrinter::new(&ir.types) };
    writer.module(module).map_err(|fail| ToLlvmIrError {
        message: fail.message,
        location: fail.location.unwrap_or_else(|| ir.op(module).location.clone()),
    })
}

pub(crate) struct ModuleWriter<'a> {
    ir: &'a Ir,
    types: TypePrinter<'a>,
}

/// Nested modules deeper than this are refused (the parser bounds nesting anyway).
const MAX_MODULE_DEPTH: usize = 64;

impl<'a> ModuleWriter<'a> {
    fn module(&self, module: OpId) -> Result<String, Fail> {
        if self.ir.op(module).name.as_str() != "builtin.module" {
            return Err(Fail::new(format!(
                "expected a 'builtin.module', got '{}'",
                self.ir.op(module).name.as_str()
            ))
            .at(&self.ir.op(module).location));
        }
        let mut items = Vec::new();
        self.collect_items(module, 0, &mut items)?;
        // Nested modules may each declare the same external function (a runtime helper):
        // one declaration serves all. Any other repeated symbol is an error.
        let mut seen: HashMap<&str, OpId> = HashMap::new();
        let mut unique = Vec::with_capacity(items.len());
        for &op in &items {
            let name = self.symbol_name(op)?;
            match seen.get(name) {
                None => {
                    seen.insert(name, op);
                    unique.push(op);
                }
                Some(&first) if self.same_declaration(first, op) => {}
                Some(_) => {
                    return Err(Fail::new(format!("symbol @{name} is defined twice (in nested modules)"))
                        .at(&self.ir.op(op).location))
                }
            }
        }
        let items = unique;
        let mut globals = String::new();
        let mut functions = String::new();
        let mut metadata = function::Metadata::default();
        for &op in &items {
            let location = &self.ir.op(op).location;
            match self.ir.op(op).name.as_str() {
                "llvm.mlir.global" => globals.push_str(&self.global(op).map_err(|f| f.at(location))?),
                _ => {
                    functions.push('\n');
                    functions.push_str(&self.function(op, &mut metadata).map_err(|f| f.at(location))?);
                }
            }
        }
        let mut out = String::new();
        let definitions = self.types.definitions();
        if !definitions.is_empty() {
            out.push_str(&definitions);
            out.push('\n');
        }
        out.push_str(&globals);
        out.push_str(&functions);
        out.push_str(&metadata.definitions());
        Ok(out)
    }

    /// The globals and functions of `module` and its nested modules, in order.
    fn collect_items(&self, module: OpId, depth: usize, items: &mut Vec<OpId>) -> Result<(), Fail> {
        if depth > MAX_MODULE_DEPTH {
            return Err(
                Fail::unsupported("modules nested deeper than 64 levels").at(&self.ir.op(module).location)
            );
        }
        for &region in &self.ir.op(module).regions {
            for &block in &self.ir.region(region).blocks {
                for &op in &self.ir.block(block).ops {
                    match self.ir.op(op).name.as_str() {
                        "builtin.module" => self.collect_items(op, depth + 1, items)?,
                        "llvm.mlir.global" | "llvm.func" => items.push(op),
                        other => {
                            return Err(Fail::unsupported(format!("{other} (no LLVM IR translation)"))
                                .at(&self.ir.op(op).location))
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether two `llvm.func`s are both declarations of the same function type.
    fn same_declaration(&self, a: OpId, b: OpId) -> bool {
        let declaration = |op: OpId| {
            let operation = self.ir.op(op);
            operation.name.as_str() == "llvm.func"
                && operation.regions.iter().all(|&r| self.ir.region(r).blocks.is_empty())
        };
        declaration(a)
            && declaration(b)
            && self.property(a, "function_type") == self.property(b, "function_type")
            && self.property(a, "linkage") == self.property(b, "linkage")
    }

    fn symbol_name(&self, op: OpId) -> Result<&'a str, Fail> {
        match self.ir.op(op).attr("sym_name") {
            Some(Attribute::String(name)) => Ok(name),
            _ => Err(Fail::new("missing 'sym_name'").at(&self.ir.op(op).location)),
        }
    }

    fn property(&self, op: OpId, name: &str) -> Option<&'a Attribute> {
        spirvkit_ir::attr::find(&self.ir.op(op).properties, name)
            .or_else(|| spirvkit_ir::attr::find(&self.ir.op(op).attributes, name))
    }

    /// Properties no translation rule reads must not carry meaning we would drop.
    fn check_properties(&self, op: OpId, known: &[&str]) -> Result<(), Fail> {
        for property in &self.ir.op(op).properties {
            if !known.contains(&property.name.as_str()) {
                return Err(Fail::unsupported(format!(
                    "property '{}' of {}",
                    property.name,
                    self.ir.op(op).name.as_str()
                )));
            }
        }
        Ok(())
    }

    fn global(&self, op: OpId) -> Result<String, Fail> {
        self.check_properties(
            op,
            &[
                "addr_space",
                "alignment",
                "constant",
                "dso_local",
                "global_type",
                "linkage",
                "sym_name",
                "unnamed_addr",
                "value",
                "visibility_",
                "section",
                "thread_local_",
                "externally_initialized",
                "sym_visibility",
                "dbg_exprs",
            ],
        )?;
        if matches!(self.property(op, "dbg_exprs"), Some(Attribute::Array(items)) if !items.is_empty()) {
            return Err(Fail::unsupported("debug information of a global"));
        }
        let name = self.symbol_name(op)?;
        let Some(Attribute::Type(global_type)) = self.property(op, "global_type") else {
            return Err(Fail::new("llvm.mlir.global without 'global_type'"));
        };
        let linkage = linkage(self.property(op, "linkage"))?;
        let ty = self.types.print(*global_type)?;
        let initializer = match self.property(op, "value") {
            Some(value) => {
                let constant = self.types.attribute_const(value, *global_type)?;
                Some(self.types.const_text(&constant, *global_type)?)
            }
            None => match self.initializer_block(op) {
                Some(block) => {
                    let constant = function::fold_initializer(self, block)?;
                    Some(self.types.const_text(&constant, *global_type)?)
                }
                // mlir-translate: a definition without a value holds undef.
                None if linkage != "external" && linkage != "extern_weak" => Some("undef".to_string()),
                None => None,
            },
        };
        let mut out = format!("{} = ", global_name(name));
        match (&initializer, linkage) {
            (None, "external") => out.push_str("external "),
            (_, "external") => {}
            (_, other) => {
                out.push_str(other);
                out.push(' ');
            }
        }
        if self.property(op, "dso_local").is_some() {
            out.push_str("dso_local ");
        }
        out.push_str(visibility(self.property(op, "visibility_"))?);
        if self.property(op, "thread_local_").is_some() {
            out.push_str("thread_local ");
        }
        out.push_str(unnamed_addr(self.property(op, "unnamed_addr"))?);
        match self.property(op, "addr_space") {
            Some(Attribute::Integer { value: 0, .. }) | None => {}
            Some(Attribute::Integer { value, .. }) => out.push_str(&format!("addrspace({value}) ")),
            Some(_) => return Err(Fail::new("'addr_space' is not an integer")),
        }
        if self.property(op, "externally_initialized").is_some() {
            out.push_str("externally_initialized ");
        }
        out.push_str(if self.property(op, "constant").is_some() { "constant " } else { "global " });
        out.push_str(&ty);
        if let Some(initializer) = initializer {
            out.push(' ');
            out.push_str(&initializer);
        }
        if let Some(Attribute::String(section)) = self.property(op, "section") {
            out.push_str(&format!(", section {}", quoted(section)));
        }
        match self.property(op, "alignment") {
            Some(Attribute::Integer { value, .. }) if *value > 0 => out.push_str(&format!(", align {value}")),
            _ => {}
        }
        out.push('\n');
        Ok(out)
    }

    /// The single block of a global's initializer region, if it has one.
    fn initializer_block(&self, op: OpId) -> Option<spirvkit_ir::ir::BlockId> {
        let region = *self.ir.op(op).regions.first()?;
        let blocks = &self.ir.region(region).blocks;
        blocks.first().copied().filter(|&b| !self.ir.block(b).ops.is_empty())
    }

    fn function(&self, op: OpId, metadata: &mut function::Metadata) -> Result<String, Fail> {
        self.check_properties(
            op,
            &[
                "CConv",
                "function_type",
                "linkage",
                "sym_name",
                "sym_visibility",
                "visibility_",
                "unnamed_addr",
                "dso_local",
                "arg_attrs",
                "res_attrs",
                "passthrough",
                "no_inline",
                "always_inline",
                "no_unwind",
                "will_return",
                "convergent",
                "optimize_none",
                "target_cpu",
                "target_features",
                "frame_pointer",
                "memory_effects",
                "section",
                "alignment",
                "function_entry_count",
            ],
        )?;
        let name = self.symbol_name(op)?;
        let Some(Attribute::Type(function_type)) = self.property(op, "function_type") else {
            return Err(Fail::new("llvm.func without 'function_type'"));
        };
        let TypeKind::LlvmFunction { result, params, variadic } = self.types.kind(*function_type) else {
            return Err(Fail::new("'function_type' is not an !llvm.func type"));
        };
        let body = self.ir.op(op).regions.first().and_then(|&r| {
            let blocks = &self.ir.region(r).blocks;
            (!blocks.is_empty()).then(|| blocks.clone())
        });
        let linkage = linkage(self.property(op, "linkage"))?;
        let arg_attrs = self.attribute_lists(self.property(op, "arg_attrs"), params.len())?;
        let res_attrs = self.attribute_lists(self.property(op, "res_attrs"), 1)?;
        let mut out = String::from(if body.is_some() { "define " } else { "declare " });
        if linkage != "external" {
            out.push_str(linkage);
            out.push(' ');
        }
        if self.property(op, "dso_local").is_some() {
            out.push_str("dso_local ");
        }
        out.push_str(visibility(self.property(op, "visibility_"))?);
        out.push_str(&calling_convention(self.property(op, "CConv"))?);
        out.push_str(unnamed_addr(self.property(op, "unnamed_addr"))?);
        out.push_str(&res_attrs[0]);
        out.push_str(&self.types.print(*result)?);
        out.push(' ');
        out.push_str(&global_name(name));
        out.push('(');
        for (i, param) in params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&self.types.print(*param)?);
            if !arg_attrs[i].is_empty() {
                out.push(' ');
                out.push_str(arg_attrs[i].trim_end());
            }
            if body.is_some() {
                out.push_str(&format!(" %{i}"));
            }
        }
        if *variadic {
            out.push_str(if params.is_empty() { "..." } else { ", ..." });
        }
        out.push(')');
        let attributes = self.function_attributes(op)?;
        if !attributes.is_empty() {
            out.push(' ');
            out.push_str(&attributes);
        }
        if let Some(Attribute::String(section)) = self.property(op, "section") {
            out.push_str(&format!(" section {}", quoted(section)));
        }
        if let Some(Attribute::Integer { value, .. }) = self.property(op, "alignment") {
            out.push_str(&format!(" align {value}"));
        }
        match body {
            None => out.push('\n'),
            Some(blocks) => {
                out.push_str(" {\n");
                let mut writer = function::FunctionWriter::new(self, params.len(), metadata);
                out.push_str(&writer.body(&blocks, *result)?);
                out.push_str("}\n");
            }
        }
        Ok(out)
    }

    /// Function attributes from the op's properties, space separated.
    fn function_attributes(&self, op: OpId) -> Result<String, Fail> {
        let mut words: Vec<String> = Vec::new();
        for (property, word) in [
            ("no_inline", "noinline"),
            ("always_inline", "alwaysinline"),
            ("no_unwind", "nounwind"),
            ("will_return", "willreturn"),
            ("convergent", "convergent"),
            ("optimize_none", "optnone"),
        ] {
            if self.property(op, property).is_some() {
                words.push(word.to_string());
            }
        }
        if let Some(effects) = self.property(op, "memory_effects") {
            words.push(memory_effects(effects)?);
        }
        if let Some(Attribute::String(cpu)) = self.property(op, "target_cpu") {
            words.push(format!("\"target-cpu\"={}", quoted(cpu)));
        }
        if let Some(features) = self.property(op, "target_features") {
            words.push(format!("\"target-features\"={}", quoted(&target_features(features)?)));
        }
        if let Some(Attribute::Dialect { body: Some(kind), .. }) = self.property(op, "frame_pointer") {
            words.push(format!("\"frame-pointer\"={}", quoted(kind.trim())));
        }
        if let Some(passthrough) = self.property(op, "passthrough") {
            let Attribute::Array(items) = passthrough else {
                return Err(Fail::new("'passthrough' is not an array"));
            };
            for item in items {
                words.push(passthrough_attribute(item)?);
            }
        }
        Ok(words.join(" "))
    }

    /// Per-parameter (or result) attribute text, each ending with a space when not
    /// empty, from an array of dictionaries.
    fn attribute_lists(&self, attr: Option<&Attribute>, count: usize) -> Result<Vec<String>, Fail> {
        let mut lists = vec![String::new(); count];
        let Some(attr) = attr else { return Ok(lists) };
        let Attribute::Array(dictionaries) = attr else {
            return Err(Fail::new("argument/result attributes are not an array"));
        };
        for (i, dictionary) in dictionaries.iter().enumerate().take(count) {
            let Attribute::Dictionary(entries) = dictionary else {
                return Err(Fail::new("argument/result attributes are not dictionaries"));
            };
            for entry in entries {
                lists[i].push_str(&parameter_attribute(&self.types, &entry.name, &entry.value)?);
                lists[i].push(' ');
            }
        }
        Ok(lists)
    }
}

fn integer_value(attr: Option<&Attribute>) -> Option<i128> {
    match attr {
        Some(Attribute::Integer { value, .. }) => Some(*value),
        _ => None,
    }
}

fn dialect_body<'a>(attr: Option<&'a Attribute>, name: &str) -> Option<&'a str> {
    match attr {
        Some(Attribute::Dialect { name: n, body: Some(body) }) if n == name => Some(body.trim()),
        _ => None,
    }
}

fn linkage(attr: Option<&Attribute>) -> Result<&'static str, Fail> {
    let Some(body) = dialect_body(attr, "llvm.linkage") else {
        return match attr {
            None => Ok("external"),
            Some(_) => Err(Fail::new("'linkage' is not an #llvm.linkage")),
        };
    };
    Ok(match body {
        "external" => "external",
        "private" => "private",
        "internal" => "internal",
        "available_externally" => "available_externally",
        "linkonce" => "linkonce",
        "linkonce_odr" => "linkonce_odr",
        "weak" => "weak",
        "weak_odr" => "weak_odr",
        "appending" => "appending",
        "extern_weak" => "extern_weak",
        "common" => "common",
        other => return Err(Fail::unsupported(format!("linkage {other}"))),
    })
}

fn visibility(attr: Option<&Attribute>) -> Result<&'static str, Fail> {
    Ok(match integer_value(attr) {
        None | Some(0) => "",
        Some(1) => "hidden ",
        Some(2) => "protected ",
        Some(other) => return Err(Fail::unsupported(format!("visibility {other}"))),
    })
}

fn unnamed_addr(attr: Option<&Attribute>) -> Result<&'static str, Fail> {
    Ok(match integer_value(attr) {
        None | Some(0) => "",
        Some(1) => "local_unnamed_addr ",
        Some(2) => "unnamed_addr ",
        Some(other) => return Err(Fail::unsupported(format!("unnamed_addr {other}"))),
    })
}

/// `cc N ` (LLVM's numbers, which every calling convention has), or nothing for C's.
fn calling_convention(attr: Option<&Attribute>) -> Result<String, Fail> {
    let Some(body) = dialect_body(attr, "llvm.cconv") else {
        return match attr {
            None => Ok(String::new()),
            Some(_) => Err(Fail::new("'CConv' is not an #llvm.cconv")),
        };
    };
    const NUMBERS: &[(&str, u32)] = &[
        ("ccc", 0),
        ("fastcc", 8),
        ("coldcc", 9),
        ("cc_10", 10),
        ("cc_11", 11),
        ("anyregcc", 13),
        ("preserve_mostcc", 14),
        ("preserve_allcc", 15),
        ("swiftcc", 16),
        ("cxx_fast_tlscc", 17),
        ("tailcc", 18),
        ("cfguard_checkcc", 19),
        ("swifttailcc", 20),
        ("x86_stdcallcc", 64),
        ("x86_fastcallcc", 65),
        ("arm_apcscc", 66),
        ("arm_aapcscc", 67),
        ("arm_aapcs_vfpcc", 68),
        ("msp430_intrcc", 69),
        ("x86_thiscallcc", 70),
        ("ptx_kernelcc", 71),
        ("ptx_devicecc", 72),
        ("spir_funccc", 75),
        ("spir_kernelcc", 76),
        ("intel_ocl_bicc", 77),
        ("x86_64_sysvcc", 78),
        ("win64cc", 79),
        ("x86_vectorcallcc", 80),
        ("x86_intrcc", 83),
        ("x86_regcallcc", 92),
        ("aarch64_vectorcallcc", 97),
        ("aarch64_sve_vectorcallcc", 98),
    ];
    match NUMBERS.iter().find(|(name, _)| *name == body) {
        Some((_, 0)) => Ok(String::new()),
        Some((_, number)) => Ok(format!("cc {number} ")),
        None => Err(Fail::unsupported(format!("calling convention {body}"))),
    }
}

/// LLVM function attributes written as bare words (others are string attributes).
const ENUM_FUNCTION_ATTRIBUTES: &[&str] = &[
    "alwaysinline",
    "builtin",
    "cold",
    "convergent",
    "hot",
    "inlinehint",
    "minsize",
    "mustprogress",
    "naked",
    "nobuiltin",
    "nocallback",
    "nocf_check",
    "noduplicate",
    "nofree",
    "noimplicitfloat",
    "noinline",
    "nomerge",
    "norecurse",
    "noredzone",
    "noreturn",
    "nosync",
    "nounwind",
    "optforfuzzing",
    "optnone",
    "optsize",
    "readnone",
    "readonly",
    "returns_twice",
    "safestack",
    "speculatable",
    "speculative_load_hardening",
    "ssp",
    "sspreq",
    "sspstrong",
    "willreturn",
    "writeonly",
];

/// One `passthrough` entry: `"name"` or `["name", "value"]`.
fn passthrough_attribute(item: &Attribute) -> Result<String, Fail> {
    match item {
        Attribute::String(name) if name == "readnone" => Ok("memory(none)".into()),
        Attribute::String(name) if name == "readonly" => Ok("memory(read)".into()),
        Attribute::String(name) if name == "writeonly" => Ok("memory(write)".into()),
        Attribute::String(name) if ENUM_FUNCTION_ATTRIBUTES.contains(&name.as_str()) => Ok(name.clone()),
        Attribute::String(name) => Ok(quoted(name)),
        Attribute::Array(pair) => match &pair[..] {
            [Attribute::String(key), Attribute::String(value)] => {
                Ok(format!("{}={}", quoted(key), quoted(value)))
            }
            _ => Err(Fail::new("a 'passthrough' pair is not two strings")),
        },
        _ => Err(Fail::new("a 'passthrough' entry is neither a string nor a pair")),
    }
}

/// `#llvm.memory_effects<other = none, argMem = read, inaccessibleMem = none>` as
/// `memory(...)`.
fn memory_effects(attr: &Attribute) -> Result<String, Fail> {
    let Some(body) = dialect_body(Some(attr), "llvm.memory_effects") else {
        return Err(Fail::new("'memory_effects' is not an #llvm.memory_effects"));
    };
    let mut default = "readwrite";
    let mut locations = Vec::new();
    for part in body.split(',') {
        let Some((key, value)) = part.split_once('=') else {
            return Err(Fail::unsupported(format!("memory effects {body}")));
        };
        let (key, value) = (key.trim(), value.trim());
        let value = match value {
            "none" | "NoModRef" => "none",
            "read" | "Ref" => "read",
            "write" | "Mod" => "write",
            "readwrite" | "ModRef" => "readwrite",
            other => return Err(Fail::unsupported(format!("memory effect {other}"))),
        };
        match key {
            "other" => default = value,
            "argMem" => locations.push(("argmem", value)),
            "inaccessibleMem" => locations.push(("inaccessiblemem", value)),
            "errnoMem" => locations.push(("errnomem", value)),
            other => return Err(Fail::unsupported(format!("memory effect location {other}"))),
        }
    }
    let mut out = format!("memory({default}");
    for (location, value) in locations {
        if value != default {
            out.push_str(&format!(", {location}: {value}"));
        }
    }
    out.push(')');
    Ok(out)
}

/// `#llvm.target_features<["+avx", "+fma"]>` as `+avx,+fma`.
fn target_features(attr: &Attribute) -> Result<String, Fail> {
    let Some(body) = dialect_body(Some(attr), "llvm.target_features") else {
        return Err(Fail::new("'target_features' is not an #llvm.target_features"));
    };
    let inner = body.trim_start_matches('[').trim_end_matches(']');
    Ok(inner
        .split(',')
        .map(|f| f.trim().trim_matches('"'))
        .filter(|f| !f.is_empty())
        .collect::<Vec<_>>()
        .join(","))
}

/// One parameter or result attribute (`llvm.noalias`, `llvm.align = 16 : i64`, ...).
fn parameter_attribute(types: &TypePrinter<'_>, name: &str, value: &Attribute) -> Result<String, Fail> {
    let bare = |word: &str| Ok(word.to_string());
    let number = |word: &str| match value {
        Attribute::Integer { value, .. } => Ok(format!("{word}({value})")),
        _ => Err(Fail::new(format!("'{name}' is not an integer"))),
    };
    let typed = |word: &str| match value {
        Attribute::Type(ty) => Ok(format!("{word}({})", types.print(*ty)?)),
        _ => Err(Fail::new(format!("'{name}' is not a type"))),
    };
    match name {
        "llvm.noalias" => bare("noalias"),
        "llvm.nonnull" => bare("nonnull"),
        "llvm.noundef" => bare("noundef"),
        "llvm.readonly" => bare("readonly"),
        "llvm.writeonly" => bare("writeonly"),
        "llvm.readnone" => bare("readnone"),
        "llvm.nocapture" => bare("captures(none)"),
        "llvm.nofree" => bare("nofree"),
        "llvm.inreg" => bare("inreg"),
        "llvm.returned" => bare("returned"),
        "llvm.zeroext" => bare("zeroext"),
        "llvm.signext" => bare("signext"),
        "llvm.nest" => bare("nest"),
        "llvm.immarg" => bare("immarg"),
        "llvm.align" => match value {
            Attribute::Integer { value, .. } => Ok(format!("align {value}")),
            _ => Err(Fail::new("'llvm.align' is not an integer")),
        },
        "llvm.dereferenceable" => number("dereferenceable"),
        "llvm.dereferenceable_or_null" => number("dereferenceable_or_null"),
        "llvm.byval" => typed("byval"),
        "llvm.byref" => typed("byref"),
        "llvm.sret" => typed("sret"),
        "llvm.inalloca" => typed("inalloca"),
        "llvm.elementtype" => typed("elementtype"),
        other => Err(Fail::unsupported(format!("parameter attribute {other}"))),
    }
}

#[cfg(test)]
mod tests;
