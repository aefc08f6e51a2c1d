//! Attribute values as words, and decorations (`OpDecorate`/`OpMemberDecorate`).

use super::{encode, Result, Serializer};
use spirvkit_grammar::{opcode, OperandKind};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::opdef::{enum_attr_by_enum_name, enum_attr_by_mnemonic};
use spirvkit_ir::OpId;

/// The value of a grammar enumerant (`Capability`, `Decoration`, ...) by name.
pub(super) fn enumerant(kind: &str, name: &str) -> Option<u32> {
    // MLIR's spelling first (it differs from the grammar's in places, e.g.
    // `Bfloat16ConversionINTEL`), then the grammar's.
    if let Some(v) = enum_case_value(kind, name) {
        return Some(v);
    }
    let kind = OperandKind::from_name(kind)?;
    kind.info().enumerant_by_name(name).map(|e| e.value)
}

/// The value of an MLIR enum attribute (`#spirv.storage_class<Function>`), or the
/// mask of a bit enum (`#spirv.memory_access<Volatile|Aligned>`).
pub(super) fn enum_value(attr: &Attribute) -> Option<u32> {
    let Attribute::Dialect { name, body: Some(body) } = attr else { return None };
    let def = enum_attr_by_mnemonic(name.strip_prefix("spirv.")?)?;
    enum_text_value(def, body)
}

/// The value of an enum case spelled `text` (bit enums: `A|B`).
pub(super) fn enum_text_value(def: &spirvkit_ir::opdef::EnumAttrDef, text: &str) -> Option<u32> {
    let mut value = 0u64;
    for case in text.split('|').map(str::trim) {
        value |= def.case_by_str(case)?.value;
    }
    u32::try_from(value).ok()
}

/// The value of case `text` of the MLIR enum named `enum_name` (`Dim`, `ImageFormat`).
pub(super) fn enum_case_value(enum_name: &str, text: &str) -> Option<u32> {
    enum_text_value(enum_attr_by_enum_name(enum_name)?, text)
}

/// The field `key = value` of a dialect attribute body (`cache_level = 0, ...`).
pub(super) fn field<'b>(body: &'b str, key: &str) -> Option<&'b str> {
    let mut depth = 0i32;
    let mut start = 0usize;
    let mut parts = Vec::new();
    let mut in_string = false;
    for (i, c) in body.char_indices() {
        match c {
            '"' => in_string = !in_string,
            '<' | '[' | '(' if !in_string => depth += 1,
            '>' | ']' | ')' if !in_string => depth -= 1,
            ',' if !in_string && depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[start..]);
    parts.iter().find_map(|part| {
        let (k, v) = part.split_once('=')?;
        (k.trim() == key).then(|| v.trim())
    })
}

/// MLIR's snake_case attribute name to the decoration it names (`built_in` ->
/// `BuiltIn`, `fp_fast_math_mode` -> `FPFastMathMode`).
fn decoration_by_attr_name(attr_name: &str) -> Option<(&'static str, u32)> {
    let camel: String = attr_name
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        })
        .collect();
    let info = OperandKind::Decoration.info();
    if let Some(e) = info.enumerant_by_name(&camel) {
        return Some((e.name, e.value));
    }
    info.enumerants.iter().find(|e| e.name.eq_ignore_ascii_case(&camel)).map(|e| (e.name, e.value))
}

impl Serializer<'_> {
    /// `OpDecorate target decoration args...`.
    pub(super) fn emit_decoration(&mut self, target: u32, decoration: u32, args: &[u32]) {
        let mut operands = vec![target, decoration];
        operands.extend_from_slice(args);
        encode(&mut self.decorations, opcode::OpDecorate, &operands);
    }

    /// A discardable attribute of an op as a decoration of its result; anything
    /// that names no decoration is an error, as in MLIR.
    pub(super) fn process_decoration(&mut self, at: OpId, target: u32, attr: &NamedAttribute) -> Result<()> {
        let Some((name, value)) = decoration_by_attr_name(&attr.name) else {
            return Err(self.error(
                at,
                format!(
                    "non-argument attributes expected to have snake-case-ified decoration name, unhandled attribute with name : {}",
                    attr.name
                ),
            ));
        };
        self.process_decoration_values(at, target, name, value, &attr.value)
    }

    /// A decoration with its value or, for one given more than once (`UserSemantic`),
    /// the array of its values: one decoration per value.
    fn process_decoration_values(
        &mut self,
        at: OpId,
        target: u32,
        name: &str,
        decoration: u32,
        value: &Attribute,
    ) -> Result<()> {
        match value {
            Attribute::Array(values)
                if !matches!(name, "CacheControlLoadINTEL" | "CacheControlStoreINTEL") =>
            {
                for v in values {
                    self.process_decoration_value(at, target, name, decoration, v)?;
                }
                Ok(())
            }
            single => self.process_decoration_value(at, target, name, decoration, single),
        }
    }

    /// A decoration with its value given as an attribute.
    pub(super) fn process_decoration_value(
        &mut self,
        at: OpId,
        target: u32,
        name: &str,
        decoration: u32,
        value: &Attribute,
    ) -> Result<()> {
        let mut args = Vec::new();
        match name {
            "LinkageAttributes" => {
                let Attribute::Dialect { body: Some(body), .. } = value else {
                    return Err(self.error(at, "expected LinkageAttributes attribute for LinkageAttributes"));
                };
                let linkage_name = field(body, "linkage_name").unwrap_or("").trim_matches('"');
                let linkage_type = field(body, "linkage_type")
                    .map(|t| t.trim_start_matches('<').trim_end_matches('>').trim())
                    .and_then(|t| enumerant("LinkageType", t))
                    .ok_or_else(|| self.error(at, "invalid linkage_type in LinkageAttributes"))?;
                spirvkit_binary::write::encode_string(linkage_name.as_bytes(), &mut args);
                args.push(linkage_type);
            }
            "FPFastMathMode" | "FPRoundingMode" => match enum_value(value) {
                Some(v) => args.push(v),
                None => return Err(self.error(at, format!("expected {name}Attr attribute for {name}"))),
            },
            "Binding"
            | "DescriptorSet"
            | "Location"
            | "Index"
            | "Offset"
            | "SpecId"
            | "ArrayStride"
            | "MatrixStride"
            | "Component"
            | "XfbBuffer"
            | "XfbStride"
            | "Stream"
            | "InputAttachmentIndex"
            | "Alignment"
            | "MaxByteOffset" => match value {
                Attribute::Integer { value, .. } => args.push(*value as u32),
                _ => return Err(self.error(at, format!("expected integer attribute for {name}"))),
            },
            "BuiltIn" => match value {
                Attribute::String(s) => match enumerant("BuiltIn", s) {
                    Some(v) => args.push(v),
                    None => return Err(self.error(at, format!("invalid {name} decoration attribute {s}"))),
                },
                _ => return Err(self.error(at, format!("expected string attribute for {name}"))),
            },
            "Aliased" | "AliasedPointer" | "Flat" | "NonReadable" | "NonWritable" | "NoPerspective"
            | "NoSignedWrap" | "NoUnsignedWrap" | "RelaxedPrecision" | "Restrict" | "RestrictPointer"
            | "NoContraction" | "Constant" | "Block" | "BufferBlock" | "Invariant" | "Patch" | "Coherent"
            | "Centroid" | "Sample" | "Volatile" | "Uniform" => match value {
                Attribute::Unit => {}
                Attribute::Dialect { name: d, .. } if d == "spirv.decoration" => {}
                _ => {
                    return Err(
                        self.error(at, format!("expected unit attribute or decoration attribute for {name}"))
                    )
                }
            },
            "CacheControlLoadINTEL" | "CacheControlStoreINTEL" => {
                return self.process_cache_controls(at, target, name, decoration, value);
            }
            // Any other decoration, by its grammar (the deserializer's `decoration_value`):
            // no parameters (a unit attribute), one literal number, a literal string or
            // an enumerant (a string), or the <id> of an integer constant (its value).
            _ => {
                use spirvkit_grammar::{Category, OperandKind};
                let grammar = OperandKind::Decoration.info().enumerant_by_name(name);
                let params = grammar.map(|g| g.parameters);
                let mut instruction = opcode::OpDecorate;
                match (params, value) {
                    (Some([]), Attribute::Unit) => {}
                    (Some([]), Attribute::Dialect { name: d, .. }) if d == "spirv.decoration" => {}
                    (Some([param]), Attribute::Integer { value, .. })
                        if param.kind.category() == Category::Literal =>
                    {
                        args.push(*value as u32)
                    }
                    (Some([param]), Attribute::Integer { ty, .. })
                        if param.kind.category() == Category::Id =>
                    {
                        args.push(self.constant(at, *ty, value)?);
                        instruction = opcode::OpDecorateId;
                    }
                    (Some([param]), Attribute::SymbolRef(path)) if param.kind.category() == Category::Id => {
                        // A global variable defined before (`CounterBuffer`).
                        let variable = match path.as_slice() {
                            [name] => self.variable_ids.get(name).copied(),
                            _ => None,
                        };
                        let Some(variable) = variable else {
                            return Err(self.error(
                                at,
                                format!("not supported yet: decoration {name} naming a symbol that is not a global variable defined before"),
                            ));
                        };
                        args.push(variable);
                        instruction = opcode::OpDecorateId;
                    }
                    (Some([param]), Attribute::String(text)) if param.kind == OperandKind::LiteralString => {
                        spirvkit_binary::write::encode_string(text.as_bytes(), &mut args);
                        instruction = opcode::OpDecorateString;
                    }
                    (Some([param]), Attribute::String(text))
                        if param.kind.category() == Category::ValueEnum =>
                    {
                        match param.kind.info().enumerant_by_name(text) {
                            Some(e) => args.push(e.value),
                            None => return Err(self.error(at, format!("invalid {name} value {text}"))),
                        }
                    }
                    _ => {
                        return Err(
                            self.error(at, format!("not supported yet: decoration {name} with this value"))
                        )
                    }
                }
                let mut operands = vec![target, decoration];
                operands.extend_from_slice(&args);
                encode(&mut self.decorations, instruction, &operands);
                return Ok(());
            }
        }
        self.emit_decoration(target, decoration, &args);
        Ok(())
    }

    /// A `spirv.func` argument attribute as decorations of its parameter: MLIR's
    /// `spirv.decoration = #spirv.decoration<X>`, or `spirv.<decoration in snake case>`
    /// with the decoration's value (an array for a decoration given more than once).
    pub(super) fn process_argument_attr(
        &mut self,
        at: OpId,
        target: u32,
        attr: &NamedAttribute,
    ) -> Result<()> {
        if attr.name == "spirv.decoration" {
            let Attribute::Dialect { body: Some(body), .. } = &attr.value else {
                return Err(self.error(at, "expected #spirv.decoration<X> for spirv.decoration"));
            };
            let name = body.trim();
            let Some(decoration) = enumerant("Decoration", name) else {
                return Err(self.error(at, format!("unknown decoration {name}")));
            };
            return self.process_decoration_value(at, target, name, decoration, &attr.value);
        }
        // Other argument attributes (`spirv.interface_var_abi`, other dialects') are not
        // decorations: MLIR's serializer passes over them too.
        let Some((name, decoration)) = attr.name.strip_prefix("spirv.").and_then(decoration_by_attr_name)
        else {
            return Ok(());
        };
        self.process_decoration_values(at, target, name, decoration, &attr.value)
    }

    /// One decoration per element of a cache-control list.
    fn process_cache_controls(
        &mut self,
        at: OpId,
        target: u32,
        name: &str,
        decoration: u32,
        value: &Attribute,
    ) -> Result<()> {
        let (mnemonic, control_field, control_kind) = if name == "CacheControlLoadINTEL" {
            ("spirv.cache_control_load_intel", "load_cache_control", "LoadCacheControl")
        } else {
            ("spirv.cache_control_store_intel", "store_cache_control", "StoreCacheControl")
        };
        let Attribute::Array(items) = value else {
            return Err(self.error(at, format!("expecting array attribute of {name} for {name}")));
        };
        if items.is_empty() {
            return Err(self.error(at, format!("expecting non-empty array attribute of {name} for {name}")));
        }
        let mut decorations = Vec::new();
        for item in items {
            let parsed = match item {
                Attribute::Dialect { name: n, body: Some(body) } if n == mnemonic => {
                    let level = field(body, "cache_level").and_then(|l| l.parse::<u32>().ok());
                    let control = field(body, control_field).and_then(|c| enum_case_value(control_kind, c));
                    level.zip(control)
                }
                _ => None,
            };
            match parsed {
                Some(pair) => decorations.push(pair),
                None => return Err(self.error(at, format!("expecting array attribute of {name} for {name}"))),
            }
        }
        for (level, control) in decorations {
            self.emit_decoration(target, decoration, &[level, control]);
        }
        Ok(())
    }
}
