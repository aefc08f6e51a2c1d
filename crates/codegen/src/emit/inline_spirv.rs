//! Inline SPIR-V attributes and intrinsics (SPIR-V.rst, "Inline SPIR-V"): the
//! capabilities and extensions `[[vk::ext_capability]]`/`[[vk::ext_extension]]` ask
//! for wherever they are written, `vk::ext_execution_mode(_id)` and
//! `[[vk::spvexecutionmode]]`. Bodiless `[[vk::ext_instruction]]` functions are in
//! `call.rs`.

use super::{Emitter, R};
use spirvkit_grammar::OperandKind;
use spirvkit_hlsl::ast::{Attribute as AstAttribute, DeclId, ExprId, ExprKind};
use spirvkit_hlsl::sema::tree::CallInfo;
use spirvkit_hlsl::sema::types::{Ty, TypeData};
use spirvkit_ir::ir::Value;

/// How deep struct fields are searched for attributes (types nest; inputs are untrusted).
const MAX_FIELD_DEPTH: u32 = 32;

impl Emitter<'_> {
    /// Whether `a` is `[[vk::NAME(...)]]`.
    pub(super) fn is_vk_attribute(&self, a: &AstAttribute, name: &str) -> bool {
        a.namespace.is_some_and(|n| self.name(n.name) == "vk") && self.name(a.name.name) == name
    }

    /// The capabilities and extensions `[[vk::ext_capability(N)]]` and
    /// `[[vk::ext_extension("name")]]` among `attrs` ask for: dxc adds them to the
    /// module when the construct they are written on is emitted.
    pub(super) fn inline_requirements(&mut self, attrs: &[AstAttribute]) -> R<()> {
        for a in attrs {
            if self.is_vk_attribute(a, "ext_capability") {
                let &[arg] = a.args.as_slice() else {
                    return self.unsupported("an 'ext_capability' attribute without one capability");
                };
                let value = self.attribute_int(arg).and_then(|v| u32::try_from(v).ok());
                let Some(capability) = value.and_then(|v| OperandKind::Capability.info().enumerant(v)) else {
                    return self.unsupported(format!(
                        "the capability {} of an 'ext_capability' attribute, which the grammar does not know",
                        value.map_or_else(|| "(not a constant)".to_string(), |v| v.to_string())
                    ));
                };
                self.require(capability.name, None);
            } else if self.is_vk_attribute(a, "ext_extension") {
                let &[arg] = a.args.as_slice() else {
                    return self.unsupported("an 'ext_extension' attribute without one extension name");
                };
                let Some(extension) = self.string_literal(arg) else {
                    return self.unsupported("an 'ext_extension' attribute whose argument is not a string");
                };
                self.require_extension(&extension);
            }
        }
        Ok(())
    }

    /// The inline requirements of declaration `d` and, for a variable, those written on
    /// the fields of its (struct) type.
    pub(super) fn decl_inline_requirements(&mut self, d: DeclId) -> R<()> {
        let attrs = &self.ast.decl(d).attrs;
        if !attrs.is_empty() {
            let attrs = attrs.clone();
            self.inline_requirements(&attrs)?;
        }
        if let Some(ty) = self.tree.decl(d).map(|i| i.ty) {
            self.type_inline_requirements(ty, 0)?;
        }
        Ok(())
    }

    /// The inline requirements written on the fields of struct type `ty` (and of
    /// structs and arrays within it).
    fn type_inline_requirements(&mut self, ty: Ty, depth: u32) -> R<()> {
        if depth > MAX_FIELD_DEPTH {
            return Ok(());
        }
        match self.data(ty).clone() {
            TypeData::Array { elem, .. } => self.type_inline_requirements(elem, depth + 1),
            TypeData::Struct(id) => {
                let Some(info) = self.table.struct_info(id) else { return Ok(()) };
                let fields: Vec<(DeclId, Ty)> = info.fields.iter().map(|f| (f.decl, f.ty)).collect();
                for (decl, fty) in fields {
                    let attrs = &self.ast.decl(decl).attrs;
                    if !attrs.is_empty() {
                        let attrs = attrs.clone();
                        self.inline_requirements(&attrs)?;
                    }
                    self.type_inline_requirements(fty, depth + 1)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The text of a string literal argument.
    pub(super) fn string_literal(&self, e: ExprId) -> Option<String> {
        let ExprKind::StringLiteral(parts) = &self.ast.expr(e).kind else { return None };
        Some(parts.iter().map(|p| self.name(*p).trim_matches('"').to_string()).collect())
    }

    /// The execution mode numbered `value`, by the grammar.
    fn execution_mode_named(&self, value: Option<i64>) -> R<&'static spirvkit_grammar::Enumerant> {
        let number = value.and_then(|v| u32::try_from(v).ok());
        match number.and_then(|v| OperandKind::ExecutionMode.info().enumerant(v)) {
            Some(e) => Ok(e),
            None => self.unsupported(format!(
                "the execution mode {}, which the grammar does not know",
                number.map_or_else(|| "(not a constant)".to_string(), |v| v.to_string())
            )),
        }
    }

    /// `[[vk::spvexecutionmode(N)]]` on entry function `f`: execution mode N. dxc
    /// (clang) keeps a declaration's attributes last written first, and writes the
    /// modes in that order.
    pub(super) fn spv_execution_mode_attributes(&mut self, f: DeclId) -> R<()> {
        let attrs = self.ast.decl(f).attrs.clone();
        for a in attrs.iter().rev() {
            if !self.is_vk_attribute(a, "spvexecutionmode") {
                continue;
            }
            let value = a.args.first().and_then(|&e| self.attribute_int(e));
            let mode = self.execution_mode_named(value)?;
            if !mode.parameters.is_empty() {
                return self.unsupported(format!(
                    "'spvexecutionmode' with the execution mode {}, which takes operands",
                    mode.name
                ));
            }
            self.add_execution_mode(mode.name, Vec::new());
        }
        Ok(())
    }

    /// `vk::ext_execution_mode(mode, literals...)` and `vk::ext_execution_mode_id(mode,
    /// constants...)`: an execution mode of the entry point being emitted, its operands
    /// the (constant) arguments; the statement's `ext_capability`/`ext_extension` were
    /// added with the statement.
    pub(super) fn ext_execution_mode(&mut self, args: &[ExprId], call: &CallInfo, ids: bool) -> R<Value> {
        let first = self.arg(args, 0)?;
        let mode = self.execution_mode_named(self.attribute_int(first))?;
        let mut values = Vec::new();
        for &a in args.iter().skip(1) {
            let constant = self.tree.expr(a).and_then(|i| i.constant).and_then(|c| c.as_int());
            let Some(value) = constant
                .and_then(|v| u32::try_from(v).ok().or_else(|| i32::try_from(v).ok().map(|v| v as u32)))
            else {
                return self.unsupported("an execution mode operand that is not a 32-bit integer constant");
            };
            let signed = if ids {
                let ty = self.tree.converted_type(a);
                match self.scalar_shape(ty) {
                    Some((s, 1)) if s.is_integer() => s.is_signed(),
                    _ => {
                        return self
                            .unsupported("an 'ext_execution_mode_id' operand that is not an integer scalar")
                    }
                }
            } else {
                false
            };
            values.push((value, signed));
        }
        // Modes of OpenCL kernels only (`LocalSizeHintId`): Vulkan has no Kernel capability.
        let kernel = spirvkit_ir::target_env::capability_value("Kernel");
        let caps = mode.availability.capabilities;
        if !caps.is_empty() && caps.iter().all(|&c| Some(c) == kernel) {
            return self.unsupported(format!(
                "the execution mode {}, which needs the Kernel capability (not in Vulkan)",
                mode.name
            ));
        }
        let takes_ids = mode.parameters.iter().any(|p| p.kind.category() == spirvkit_grammar::Category::Id);
        if takes_ids != ids {
            return self.unsupported(format!(
                "the execution mode {} in '{}' (its operands are {})",
                mode.name,
                if ids { "ext_execution_mode_id" } else { "ext_execution_mode" },
                if takes_ids { "ids" } else { "literals" }
            ));
        }
        if ids {
            self.add_execution_mode_ids(mode.name, values);
        } else {
            self.add_execution_mode(mode.name, values.into_iter().map(|(v, _)| v).collect());
        }
        let _ = call;
        let vt = self.void_type();
        Ok(self.undef(vt))
    }
}

impl Emitter<'_> {
    /// `[[vk::ext_builtin_input(N)]]`/`[[vk::ext_builtin_output(N)]]` on a static
    /// global: the storage class (`Input`/`Output`) and the built-in (by the grammar)
    /// of the stage variable the global stands for.
    pub(super) fn ext_builtin(&self, d: DeclId) -> R<Option<(&'static str, &'static str)>> {
        for (attribute, class) in [("ext_builtin_input", "Input"), ("ext_builtin_output", "Output")] {
            let Some(a) = self.vk_attribute(d, attribute) else { continue };
            let value =
                a.args.first().and_then(|&e| self.attribute_int(e)).and_then(|v| u32::try_from(v).ok());
            let Some(builtin) = value.and_then(|v| OperandKind::BuiltIn.info().enumerant(v)) else {
                return self.unsupported(format!(
                    "the built-in {} of '{attribute}', which the grammar does not know",
                    value.map_or_else(|| "(not a constant)".to_string(), |v| v.to_string())
                ));
            };
            return Ok(Some((class, builtin.name)));
        }
        Ok(None)
    }
}

impl Emitter<'_> {
    /// `[[vk::ext_decorate(D, literals...)]]`, `[[vk::ext_decorate_id(D, constants...)]]`
    /// and `[[vk::ext_decorate_string(D, "text")]]` on declaration `d`: the decorations
    /// as the serializer takes them (attributes named after the decoration, their value
    /// by its grammar).
    pub(super) fn ext_decorations(&mut self, d: DeclId) -> R<Vec<spirvkit_ir::attr::NamedAttribute>> {
        use spirvkit_grammar::Category;
        use spirvkit_ir::attr::Attribute;
        let attrs = self.ast.decl(d).attrs.clone();
        let mut out: Vec<spirvkit_ir::attr::NamedAttribute> = Vec::new();
        for a in &attrs {
            let kind = ["ext_decorate", "ext_decorate_id", "ext_decorate_string"]
                .into_iter()
                .find(|k| self.is_vk_attribute(a, k));
            let Some(kind) = kind else { continue };
            let number =
                a.args.first().and_then(|&e| self.attribute_int(e)).and_then(|v| u32::try_from(v).ok());
            let Some(decoration) = number.and_then(|v| OperandKind::Decoration.info().enumerant(v)) else {
                return self.unsupported(format!(
                    "the decoration {} of '{kind}', which the grammar does not know",
                    number.map_or_else(|| "(not a constant)".to_string(), |v| v.to_string())
                ));
            };
            // These decorate the results of arithmetic and conversions, never a
            // variable or a function (spirv-val refuses them there).
            if matches!(
                decoration.name,
                "FPRoundingMode" | "FPFastMathMode" | "NoContraction" | "NoSignedWrap" | "NoUnsignedWrap"
            ) {
                return self.unsupported(format!(
                    "'{kind}' with the decoration {} on a declaration",
                    decoration.name
                ));
            }
            let rest = a.args.get(1..).unwrap_or_default();
            let unsupported = |e: &Self| {
                e.unsupported::<Vec<spirvkit_ir::attr::NamedAttribute>>(format!(
                    "'{kind}' with the decoration {} and these operands",
                    decoration.name
                ))
            };
            let value = match (decoration.parameters, rest) {
                ([], []) => Attribute::Unit,
                ([param], [arg]) => match (kind, param.kind.category()) {
                    ("ext_decorate_string", _) if param.kind == OperandKind::LiteralString => {
                        match self.string_literal(*arg) {
                            Some(text) => Attribute::String(text),
                            None => return unsupported(self),
                        }
                    }
                    ("ext_decorate", Category::Literal) if param.kind != OperandKind::LiteralString => {
                        match self.attribute_int(*arg).and_then(|v| u32::try_from(v).ok()) {
                            Some(v) => {
                                let ty = self.store().integer(32, spirvkit_ir::types::Signedness::Signless);
                                Attribute::Integer { value: i128::from(v as i32), ty }
                            }
                            None => return unsupported(self),
                        }
                    }
                    ("ext_decorate", Category::ValueEnum) => {
                        let value = self.attribute_int(*arg).and_then(|v| u32::try_from(v).ok());
                        let Some(e) = value.and_then(|v| param.kind.info().enumerant(v)) else {
                            return unsupported(self);
                        };
                        match decoration.name {
                            "FPRoundingMode" => crate::builder::enum_attr("fp_rounding_mode", e.name),
                            _ => Attribute::String(e.name.to_string()),
                        }
                    }
                    _ => return unsupported(self),
                },
                _ => return unsupported(self),
            };
            let name = snake_case(decoration.name);
            if out.iter().any(|n| n.name == name) {
                return self.unsupported(format!("the decoration {} given twice", decoration.name));
            }
            out.push(spirvkit_ir::attr::NamedAttribute::new(&name, value));
        }
        Ok(out)
    }
}

/// A decoration's attribute name: its grammar name in snake case (`BuiltIn` ->
/// `built_in`; the serializer matches it back ignoring case).
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() && previous_lower {
            out.push('_');
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn decoration_names_become_snake_case() {
        assert_eq!(snake_case("BuiltIn"), "built_in");
        assert_eq!(snake_case("RelaxedPrecision"), "relaxed_precision");
        assert_eq!(snake_case("FPRoundingMode"), "fprounding_mode");
        assert_eq!(snake_case("UserSemantic"), "user_semantic");
    }
}
