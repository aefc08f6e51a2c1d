//! Extended instructions of sets without a dialect prefix (`crate::fallback`'s
//! `spirv.ExtInst`): what their ids name, and the module-level (non-semantic) ones.

use super::{error, not_supported, set_attributes, word, Deserializer, ModuleValue, Result};
use crate::fallback::{
    ext_instruction_attr, EXT_INSTRUCTION_ATTR, EXT_INST_OP, EXT_RESULT_TYPE_ATTR, EXT_SET_ATTR,
};
use spirvkit_binary::module::Inst;
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::types::{Type, TypeKind};

impl Deserializer<'_, '_> {
    /// The attribute an extended instruction's id operand is kept as, when the id is no
    /// SSA value there (`None`: an operand). In a function, constants, variables and
    /// spec constants are materialized values; at module level they are referenced too.
    pub(super) fn ext_id_reference(&self, id: u32, none: Type, module_level: bool) -> Option<Attribute> {
        if let Some(text) = self.strings.get(&id) {
            return Some(Attribute::String(text.clone()));
        }
        if let Some(&ty) = self.types.get(&id) {
            return Some(Attribute::Type(ty));
        }
        if self.void_types.contains(&id) {
            return Some(Attribute::Type(none));
        }
        if let Some(symbol) = self.function_symbols.get(&id).or_else(|| self.ext_inst_symbols.get(&id)) {
            return Some(Attribute::SymbolRef(vec![symbol.clone()]));
        }
        if !module_level {
            return None;
        }
        match self.module_values.get(&id)? {
            ModuleValue::Constant(c) if !c.replicate => match &c.value {
                value @ (Attribute::Integer { .. } | Attribute::Float { .. } | Attribute::Dense { .. }) => {
                    Some(value.clone())
                }
                _ => None,
            },
            ModuleValue::Global { symbol, .. } | ModuleValue::SpecConstant { symbol, .. } => {
                Some(Attribute::SymbolRef(vec![symbol.clone()]))
            }
            _ => None,
        }
    }

    /// The import name of an OpExtInst's set, and its `set`/`instruction` attributes.
    pub(super) fn ext_inst_attrs(&mut self, inst: &Inst) -> Result<Vec<NamedAttribute>> {
        let set = word(inst, 3)?;
        let number = word(inst, 4)?;
        let Some(import) = self.ext_import_names.get(&set).cloned() else {
            return error(inst.offset, format!("OpExtInst set <id> {set} is not an OpExtInstImport"));
        };
        let i32_type = self.i32_type();
        let mut attrs = vec![
            NamedAttribute::new(EXT_INSTRUCTION_ATTR, ext_instruction_attr(&import, number, i32_type)),
            NamedAttribute::new(EXT_SET_ATTR, Attribute::String(import)),
        ];
        if inst.opcode == spirvkit_grammar::opcode::OpExtInstWithForwardRefsKHR {
            attrs.push(NamedAttribute::new(crate::fallback::EXT_FORWARD_REFS_ATTR, Attribute::Unit));
        }
        Ok(attrs)
    }

    /// A non-semantic or debug-information OpExtInst between the types and constants: a
    /// `spirv.ExtInst` in the module body, named by a symbol for the instructions that
    /// refer to it.
    pub(super) fn module_ext_inst(&mut self, inst: &Inst) -> Result<()> {
        let mut attrs = self.ext_inst_attrs(inst)?;
        let set = word(inst, 3)?;
        if !self.ext_import_names.get(&set).is_some_and(|name| may_be_global(name)) {
            return error(
                inst.offset,
                "OpExtInst outside a function must be of a NonSemantic.* or debug information set",
            );
        }
        // Debug information may name a later module-level instruction (a member its
        // parent type): its symbol is chosen here.
        for operand in inst.operands.iter().skip(3) {
            if let [id] = inst.operand_words(operand) {
                let forward = self.module_ext_inst_ids.contains(id)
                    && *id != inst.result_id
                    && !self.ext_inst_symbols.contains_key(id);
                if forward {
                    let symbol = self.symbol_for(*id, "spirv_ext_inst_");
                    self.ext_inst_symbols.insert(*id, symbol);
                }
            }
        }
        let none = self.ir.types.intern(TypeKind::None);
        let i32_type = self.i32_type();
        let (ids, literals) =
            crate::fallback::split_operands_with(inst, i32_type, |id| self.ext_id_reference(id, none, true));
        if let Some(id) = ids.first() {
            // Forward references and module-level undefs have no form here.
            return not_supported(inst, &format!("OpExtInst outside a function naming <id> {id}"));
        }
        attrs.extend(literals);
        if !self.void_types.contains(&inst.result_type) {
            let ty = self.type_of(inst, inst.result_type)?;
            attrs.push(NamedAttribute::new(EXT_RESULT_TYPE_ATTR, Attribute::Type(ty)));
        }
        let symbol = match self.ext_inst_symbols.get(&inst.result_id) {
            Some(reserved) => reserved.clone(),
            None => self.symbol_for(inst.result_id, "spirv_ext_inst_"),
        };
        attrs.push(NamedAttribute::new("sym_name", Attribute::String(symbol.clone())));
        attrs.extend(self.decoration_attrs(inst.result_id)?);
        let op = self.ir.create_op(EXT_INST_OP, vec![], &[], self.line.clone());
        set_attributes(self.ir, op, Vec::new(), attrs);
        self.ir.append_op(self.module_block, op);
        self.ext_inst_symbols.insert(inst.result_id, symbol);
        Ok(())
    }
}

/// Whether instructions of set `import_name` may sit among the types and constants:
/// the non-semantic sets, and the debug-information sets that predate them.
fn may_be_global(import_name: &str) -> bool {
    import_name.starts_with("NonSemantic.") || matches!(import_name, "DebugInfo" | "OpenCL.DebugInfo.100")
}
