//! The source a `spirv.module` was compiled from (SPIR-V's `OpSource`), which MLIR's
//! dialect does not model: a discardable attribute of the module,
//!
//! ```text
//! spirv.module Logical GLSL450 requires #spirv.vce<...> attributes {
//!     spirvkit.source = {file = "a.hlsl", language = "HLSL", version = 600 : i32}} { ... }
//! ```
//!
//! `language` is a `SourceLanguage` enumerant of the grammar, `version` the
//! language's version number (HLSL 6.0 is 600, GLSL 4.50 is 450), `file` and `text`
//! (the source itself, as debug output embeds it) optional. A module compiled from
//! several files (includes) has an array of such dictionaries, the main file first:
//! one `OpSource` each.
//! MLIR's verifier checks the discardable attributes of the dialects it knows only:
//! this one reads back with `mlir-opt`, and the serializer writes it as `OpSource`
//! (with an `OpString` for the file).

use crate::attr::{Attribute, NamedAttribute};
use crate::ir::{Ir, OpId};
use crate::types::Signedness;

/// The name of the discardable attribute holding a module's source.
pub const SOURCE_ATTR: &str = "spirvkit.source";

/// A module's source language, version and file (`OpSource`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleSource {
    /// A `SourceLanguage` enumerant of the grammar (`HLSL`, `GLSL`, `Slang`, ...).
    pub language: String,
    pub version: u32,
    /// The source file's name (`OpSource`'s `File`, an `OpString`).
    pub file: Option<String>,
    /// The source text (`OpSource`'s `Source`, continued by `OpSourceContinued`).
    pub text: Option<String>,
}

/// Records `source` on `module` (replacing sources recorded before), as the
/// [`SOURCE_ATTR`] attribute.
pub fn set_module_source(ir: &mut Ir, module: OpId, source: &ModuleSource) {
    set_module_sources(ir, module, std::slice::from_ref(source));
}

/// Records the sources of `module`, the main file first (replacing sources recorded
/// before): one dictionary, or an array of them when there are several. None
/// removes the attribute.
pub fn set_module_sources(ir: &mut Ir, module: OpId, sources: &[ModuleSource]) {
    let mut values: Vec<Attribute> = sources.iter().map(|s| source_dictionary(ir, s)).collect();
    let value = match values.len() {
        0 => {
            ir.op_mut(module).attributes.retain(|a| a.name != SOURCE_ATTR);
            return;
        }
        1 => values.remove(0),
        _ => Attribute::Array(values),
    };
    let attributes = &mut ir.op_mut(module).attributes;
    match attributes.iter_mut().find(|a| a.name == SOURCE_ATTR) {
        Some(existing) => existing.value = value,
        None => {
            let at =
                attributes.iter().position(|a| a.name.as_str() > SOURCE_ATTR).unwrap_or(attributes.len());
            attributes.insert(at, NamedAttribute::new(SOURCE_ATTR, value));
        }
    }
}

fn source_dictionary(ir: &mut Ir, source: &ModuleSource) -> Attribute {
    let i32_type = ir.types.integer(32, Signedness::Signless);
    // As MLIR's dictionaries, sorted by name; the version as `i32` holds it (bits kept).
    let version = ir.types.normalize_integer(i128::from(source.version), i32_type);
    let mut fields = Vec::with_capacity(4);
    if let Some(file) = &source.file {
        fields.push(NamedAttribute::new("file", Attribute::String(file.clone())));
    }
    fields.push(NamedAttribute::new("language", Attribute::String(source.language.clone())));
    if let Some(text) = &source.text {
        fields.push(NamedAttribute::new("text", Attribute::String(text.clone())));
    }
    fields.push(NamedAttribute::new("version", Attribute::Integer { value: version, ty: i32_type }));
    Attribute::Dictionary(fields)
}

/// The (main) source recorded on `module`; `None` when there is none. A
/// [`SOURCE_ATTR`] attribute of another shape is an error, naming what is wrong.
pub fn module_source(ir: &Ir, module: OpId) -> Result<Option<ModuleSource>, String> {
    Ok(module_sources(ir, module)?.into_iter().next())
}

/// Every source recorded on `module`, the main file first.
pub fn module_sources(ir: &Ir, module: OpId) -> Result<Vec<ModuleSource>, String> {
    let Some(attr) = crate::attr::find(&ir.op(module).attributes, SOURCE_ATTR) else { return Ok(Vec::new()) };
    match attr {
        Attribute::Array(items) if !items.is_empty() => items.iter().map(read_source).collect(),
        other => Ok(vec![read_source(other)?]),
    }
}

fn read_source(attr: &Attribute) -> Result<ModuleSource, String> {
    let shape = || {
        format!("'{SOURCE_ATTR}' must be {{language = \"NAME\", version = N : i32[, file = \"F\"][, text = \"T\"]}} or an array of them")
    };
    let Attribute::Dictionary(fields) = attr else { return Err(shape()) };
    let (mut language, mut version, mut file, mut text) = (None, None, None, None);
    for field in fields {
        match (field.name.as_str(), &field.value) {
            ("language", Attribute::String(name)) => language = Some(name.clone()),
            // The low 32 bits, as `i32` holds the version.
            ("version", Attribute::Integer { value, .. }) => version = Some(*value as u32),
            ("file", Attribute::String(name)) => file = Some(name.clone()),
            ("text", Attribute::String(source)) => text = Some(source.clone()),
            _ => return Err(shape()),
        }
    }
    let (Some(language), Some(version)) = (language, version) else { return Err(shape()) };
    Ok(ModuleSource { language, version, file, text })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Location;
    use crate::text::printer::print_op;
    use crate::PrintOptions;

    #[test]
    fn a_source_is_set_read_and_printed_as_mlir_opt_prints_it() {
        let mut ir = Ir::new();
        let module = ir.create_op("spirv.module", vec![], &[], Location::Unknown);
        assert_eq!(module_source(&ir, module), Ok(None));
        let hlsl = ModuleSource { language: "HLSL".into(), version: 600, file: None, text: None };
        set_module_source(&mut ir, module, &hlsl);
        assert_eq!(module_source(&ir, module), Ok(Some(hlsl)));
        let glsl = ModuleSource {
            language: "GLSL".into(),
            version: u32::MAX,
            file: Some("a.glsl".into()),
            text: None,
        };
        set_module_source(&mut ir, module, &glsl);
        assert_eq!(ir.op(module).attributes.len(), 1);
        assert_eq!(module_source(&ir, module), Ok(Some(glsl)));
        // mlir-opt-22 reads this form back unchanged.
        let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> attributes \
                    {spirvkit.source = {file = \"a.hlsl\", language = \"HLSL\", version = 600 : i32}} {\n}\n";
        let (ir, top) = crate::parse(text, "s.mlir").expect("parses");
        let module = crate::parallel::spirv_module(&ir, top).expect("a spirv.module");
        let source =
            ModuleSource { language: "HLSL".into(), version: 600, file: Some("a.hlsl".into()), text: None };
        assert_eq!(module_source(&ir, module), Ok(Some(source)));
        assert!(crate::verify::first_failure(&ir, top, text).is_none(), "verifies, as with mlir-opt");
        let printed = print_op(&ir, top, PrintOptions::default());
        assert!(printed.contains("attributes {spirvkit.source = {file = \"a.hlsl\", language = \"HLSL\", version = 600 : i32}} {"), "{printed}");
    }

    #[test]
    fn a_source_of_another_shape_is_an_error() {
        for value in ["\"HLSL 600\"", "{language = \"HLSL\"}", "{language = 1 : i32, version = 600 : i32}"] {
            let text = format!(
                "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> attributes {{spirvkit.source = {value}}} {{\n}}\n"
            );
            let (ir, top) = crate::parse(&text, "s.mlir").expect("parses");
            let module = crate::parallel::spirv_module(&ir, top).expect("a spirv.module");
            assert!(module_source(&ir, module).is_err(), "{value}");
        }
    }

    #[test]
    fn several_sources_with_text_are_an_array_kept_in_order() {
        let mut ir = Ir::new();
        let module = ir.create_op("spirv.module", vec![], &[], Location::Unknown);
        let main = ModuleSource {
            language: "HLSL".into(),
            version: 600,
            file: Some("a.hlsl".into()),
            text: Some("#include \"b.hlsli\"\nvoid main() {}\n".into()),
        };
        let include =
            ModuleSource { file: Some("b.hlsli".into()), text: Some("// b\n".into()), ..main.clone() };
        set_module_sources(&mut ir, module, &[main.clone(), include.clone()]);
        assert_eq!(module_sources(&ir, module), Ok(vec![main.clone(), include]));
        assert_eq!(module_source(&ir, module), Ok(Some(main.clone())));
        // Printed as an array of dictionaries, the main file first.
        let printed = print_op(&ir, module, PrintOptions::default());
        assert!(printed.contains("spirvkit.source = [{file = \"a.hlsl\""), "{printed}");
        set_module_sources(&mut ir, module, &[]);
        assert_eq!(module_sources(&ir, module), Ok(vec![]));
    }
}
