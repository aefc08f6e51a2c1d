//! What MLIR 22's LLVM dialect needs beyond its generated op tables: the values its
//! default-valued attributes and properties take when an op does not set them, and the
//! spellings of its integer-stored enums (comparison predicates, atomic orderings), which
//! the custom forms print as keywords and the generic form as integers.

use crate::attr::Attribute;
use crate::ir::Operation;
use crate::opdef::{AttrConstraint, EnumAttrDef, OpDef};

/// The generic-form text of the value MLIR gives a default-valued attribute or a
/// property of an LLVM dialect op that was not set (`populateDefaultProperties`: MLIR
/// materializes these on every op it creates, so its generic form always shows them).
/// `None` for attributes without a default, and for defaults MLIR leaves unset (a unit
/// attribute's `false`).
pub fn default_text(c: &AttrConstraint) -> Option<&'static str> {
    let default = c.default_value?;
    let storage = c.storage_type.rsplit("::").next().unwrap_or(c.storage_type);
    Some(match storage {
        "FastmathFlagsAttr" => "#llvm.fastmath<none>",
        "CConvAttr" => "#llvm.cconv<ccc>",
        "TailCallKindAttr" => "#llvm.tailcallkind<none>",
        "LinkageAttr" => "#llvm.linkage<external>",
        // Integer-stored (`I64EnumAttr`) enums whose default is their first case.
        "AtomicOrderingAttr" | "VisibilityAttr" | "UnnamedAddrAttr" => "0 : i64",
        // Properties, shown as their attribute form (`IntegerAttr` of 32 bits).
        "IntegerOverflowFlags" | "GEPNoWrapFlags" => "0 : i32",
        "IntegerAttr" if default == "0" && c.summary.starts_with("32-bit") => "0 : i32",
        "IntegerAttr" if default == "0" && c.summary.starts_with("64-bit") => "0 : i64",
        _ => return None,
    })
}

/// Whether `def` (an op of the tables) has attributes MLIR fills in by default.
pub fn has_defaults(def: &OpDef) -> bool {
    def.name.starts_with("llvm.") && def.attributes.iter().any(|a| default_text(a.constraint()).is_some())
}

/// The defaults `o` does not set, as `(name, text)`, for the generic form.
pub fn missing_defaults(def: &'static OpDef, o: &Operation) -> Vec<(&'static str, &'static str)> {
    if !has_defaults(def) {
        return Vec::new();
    }
    let mut missing: Vec<_> = def
        .attributes
        .iter()
        .filter(|a| o.attr(a.name).is_none())
        .filter_map(|a| default_text(a.constraint()).map(|text| (a.name, text)))
        .collect();
    // The generic form lists properties sorted by name.
    missing.sort_unstable_by_key(|(name, _)| *name);
    missing
}

/// The canonical body of an LLVM dialect enum attribute, as MLIR prints it: bit flags
/// in the enum's order with their groups folded (`#llvm.fastmath<ninf, nnan>` prints
/// `nnan, ninf`, all flags `fast`). `None` for attributes other than these;
/// `Some(Err(message))` for a flag the enum lacks.
pub fn canonical_attr_body(name: &str, body: &str) -> Option<Result<String, String>> {
    let enum_name = match name {
        "llvm.fastmath" => "FastmathFlags",
        "llvm.overflow" => "IntegerOverflowFlags",
        _ => return None,
    };
    let cases = crate::opdef::ENUM_ATTRS.iter().find(|e| e.enum_name == enum_name && e.mnemonic.is_none())?;
    let mut value = 0u64;
    for word in body.split(',').map(str::trim) {
        match cases.case_by_str(word) {
            Some(case) => value |= case.value,
            None => return Some(Err(format!("expected {enum_name} to be one of its flags, got '{word}'"))),
        }
    }
    Some(
        crate::text::format::bit_enum_text(enum_name, value, ", ")
            .ok_or_else(|| format!("invalid {enum_name}")),
    )
}

/// The value of an integer-stored enum attribute (`predicate = 5 : i64`).
pub fn enum_value(a: Option<&Attribute>) -> Option<usize> {
    match a? {
        Attribute::Integer { value, .. } => usize::try_from(*value).ok(),
        _ => None,
    }
}

/// The spelling of an integer-stored enum value (`5 : i64` of `ICmpPredicate` is `sge`),
/// from the generated enum tables (`enum_name` is the C++ enum: `ICmpPredicate`,
/// `FCmpPredicate`, `AtomicOrdering`, `AtomicBinOp`, `CConv`, `Linkage`, ...).
pub fn enum_keyword(enum_name: &str, a: Option<&Attribute>) -> Option<&'static str> {
    let value = u64::try_from(enum_value(a)?).ok()?;
    enum_by_name(enum_name)?.case_by_value(value).map(|c| c.str)
}

/// The value of the case spelled `keyword` of an integer-stored enum.
pub fn enum_value_of(enum_name: &str, keyword: &str) -> Option<u64> {
    enum_by_name(enum_name)?.case_by_str(keyword).map(|c| c.value)
}

fn enum_by_name(enum_name: &str) -> Option<&'static EnumAttrDef> {
    crate::opdef::ENUM_ATTRS.iter().find(|e| e.enum_name == enum_name && e.mnemonic.is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opdef::op_def;

    #[test]
    fn defaults_come_from_the_tables() {
        let fadd = op_def("llvm.fadd").unwrap();
        let fastmath = fadd.attribute("fastmathFlags").unwrap().constraint();
        assert_eq!(default_text(fastmath), Some("#llvm.fastmath<none>"));
        let add = op_def("llvm.add").unwrap();
        let overflow = add.attribute("overflowFlags").unwrap().constraint();
        assert!(overflow.property);
        assert_eq!(default_text(overflow), Some("0 : i32"));
        let global = op_def("llvm.mlir.global").unwrap();
        assert_eq!(default_text(global.attribute("addr_space").unwrap().constraint()), Some("0 : i32"));
        assert!(has_defaults(op_def("llvm.func").unwrap()));
        assert!(!has_defaults(op_def("llvm.return").unwrap()));
        assert!(!has_defaults(op_def("spirv.IAdd").unwrap()));
    }

    #[test]
    fn bit_enum_attributes_are_canonical() {
        let canonical = |n, b| canonical_attr_body(n, b).map(|r| r.unwrap());
        assert_eq!(canonical("llvm.fastmath", "ninf,nnan").as_deref(), Some("nnan, ninf"));
        assert_eq!(
            canonical("llvm.fastmath", "nnan, ninf, nsz, arcp, contract, afn, reassoc").as_deref(),
            Some("fast")
        );
        assert_eq!(canonical("llvm.fastmath", "none").as_deref(), Some("none"));
        assert!(canonical_attr_body("llvm.fastmath", "bogus").unwrap().is_err());
        assert!(canonical_attr_body("llvm.linkage", "internal").is_none());
    }

    #[test]
    fn enum_spellings_come_from_the_tables() {
        let ty = crate::types::TypeStore::new().integer(64, crate::types::Signedness::Signless);
        let int = |value| Attribute::Integer { value, ty };
        assert_eq!(enum_keyword("ICmpPredicate", Some(&int(5))), Some("sge"));
        assert_eq!(enum_keyword("FCmpPredicate", Some(&int(13))), Some("une"));
        assert_eq!(enum_keyword("AtomicOrdering", Some(&int(7))), Some("seq_cst"));
        assert_eq!(enum_keyword("AtomicOrdering", Some(&int(3))), None);
        assert_eq!(enum_keyword("CConv", Some(&int(0))), Some("ccc"));
        assert_eq!(enum_value_of("AtomicBinOp", "umin"), Some(10));
        assert_eq!(enum_value_of("Linkage", "internal"), Some(7));
    }
}
