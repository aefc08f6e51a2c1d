//! LLVM dialect and builtin types as LLVM IR type text.

use super::Fail;
use spirvkit_ir::types::{FloatKind, Type, TypeKind, TypeStore};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Prints types, remembering the identified structs it met (their definitions go at
/// the top of the module).
pub(super) struct TypePrinter<'a> {
    pub types: &'a TypeStore,
    /// Identified struct name -> body text, in name order.
    named: RefCell<BTreeMap<String, String>>,
}

impl<'a> TypePrinter<'a> {
    pub fn new(types: &'a TypeStore) -> Self {
        TypePrinter { types, named: RefCell::new(BTreeMap::new()) }
    }

    pub fn kind(&self, ty: Type) -> &'a TypeKind {
        self.types.kind(ty)
    }

    /// `%"name" = type {...}` lines for every identified struct printed so far.
    pub fn definitions(&self) -> String {
        let mut out = String::new();
        for (name, body) in self.named.borrow().iter() {
            out.push_str(&format!("{} = type {body}\n", local_name(name)));
        }
        out
    }

    /// The LLVM IR spelling of `ty`.
    pub fn print(&self, ty: Type) -> Result<String, Fail> {
        let mut out = String::new();
        self.write(ty, &mut out, 0)?;
        Ok(out)
    }

    fn write(&self, ty: Type, out: &mut String, depth: usize) -> Result<(), Fail> {
        // Types are interned and acyclic (identified structs are printed by name), but a
        // hostile input may still nest deeply.
        if depth > 256 {
            return Err(Fail::new("type nesting deeper than 256 levels"));
        }
        match self.kind(ty) {
            TypeKind::Integer { width, .. } => out.push_str(&format!("i{width}")),
            TypeKind::Float(kind) => out.push_str(match kind {
                FloatKind::F16 => "half",
                FloatKind::BF16 => "bfloat",
                FloatKind::F32 => "float",
                FloatKind::F64 => "double",
                FloatKind::F8E4M3FN | FloatKind::F8E5M2 => {
                    return Err(Fail::unsupported(format!("type {}", kind.keyword())))
                }
            }),
            TypeKind::Vector { shape, scalable, element } => {
                let ([count], [is_scalable]) = (&shape[..], &scalable[..]) else {
                    return Err(Fail::unsupported("multi-dimensional vector type"));
                };
                out.push('<');
                if *is_scalable {
                    out.push_str("vscale x ");
                }
                out.push_str(&format!("{count} x "));
                self.write(*element, out, depth + 1)?;
                out.push('>');
            }
            TypeKind::LlvmPointer { address_space: 0 } => out.push_str("ptr"),
            TypeKind::LlvmPointer { address_space } => {
                out.push_str(&format!("ptr addrspace({address_space})"))
            }
            TypeKind::LlvmArray { count, element } => {
                out.push_str(&format!("[{count} x "));
                self.write(*element, out, depth + 1)?;
                out.push(']');
            }
            TypeKind::LlvmStruct { name: Some(name), packed, members } => {
                out.push_str(&local_name(name));
                if !self.named.borrow().contains_key(name) {
                    // Reserve the name first: a member naming this struct again stops here.
                    self.named.borrow_mut().insert(name.clone(), "opaque".into());
                    let mut body = String::new();
                    self.write_struct_body(*packed, members, &mut body, depth)?;
                    self.named.borrow_mut().insert(name.clone(), body);
                }
            }
            TypeKind::LlvmStruct { name: None, packed, members } => {
                self.write_struct_body(*packed, members, out, depth)?
            }
            TypeKind::LlvmVoid => out.push_str("void"),
            TypeKind::LlvmFunction { result, params, variadic } => {
                self.write(*result, out, depth + 1)?;
                out.push_str(" (");
                for (i, param) in params.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write(*param, out, depth + 1)?;
                }
                if *variadic {
                    out.push_str(if params.is_empty() { "..." } else { ", ..." });
                }
                out.push(')');
            }
            TypeKind::Opaque(text) if text == "!llvm.token" => out.push_str("token"),
            TypeKind::Opaque(text) if text == "!llvm.metadata" => out.push_str("metadata"),
            TypeKind::Opaque(text) if text == "!llvm.label" => out.push_str("label"),
            other => return Err(Fail::unsupported(format!("type {}", type_description(other)))),
        }
        Ok(())
    }

    fn write_struct_body(
        &self,
        packed: bool,
        members: &[Type],
        out: &mut String,
        depth: usize,
    ) -> Result<(), Fail> {
        out.push_str(if packed { "<{" } else { "{" });
        for (i, member) in members.iter().enumerate() {
            out.push_str(if i > 0 { ", " } else { " " });
            self.write(*member, out, depth + 1)?;
        }
        out.push_str(if members.is_empty() { "" } else { " " });
        out.push_str(if packed { "}>" } else { "}" });
        Ok(())
    }

    /// The element type and lane count of a vector type.
    pub fn vector(&self, ty: Type) -> Option<(Type, u64)> {
        match self.kind(ty) {
            TypeKind::Vector { shape, element, .. } if shape.len() == 1 => Some((*element, shape[0])),
            _ => None,
        }
    }

    pub fn is_pointer(&self, ty: Type) -> bool {
        matches!(self.kind(ty), TypeKind::LlvmPointer { .. })
    }

    pub fn is_void(&self, ty: Type) -> bool {
        matches!(self.kind(ty), TypeKind::LlvmVoid)
    }
}

fn type_description(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Index => "index".into(),
        TypeKind::None => "none".into(),
        TypeKind::Opaque(text) => text.clone(),
        TypeKind::Pointer { .. } => "!spirv.ptr (a SPIR-V type left by the conversion)".into(),
        TypeKind::Array { .. } | TypeKind::RuntimeArray { .. } => "!spirv.array".into(),
        TypeKind::LiteralStruct(_) | TypeKind::IdentifiedStruct { .. } => "!spirv.struct".into(),
        TypeKind::Matrix { .. } => "!spirv.matrix".into(),
        TypeKind::Image { .. } | TypeKind::SampledImage(_) | TypeKind::Sampler => {
            "!spirv image/sampler".into()
        }
        TypeKind::Tensor { .. } => "tensor".into(),
        TypeKind::MemRef { .. } => "memref".into(),
        TypeKind::Complex(_) => "complex".into(),
        TypeKind::Tuple(_) => "tuple".into(),
        TypeKind::Function { .. } => "builtin function type".into(),
        _ => format!("{kind:?}"),
    }
}

/// Whether `name` is an LLVM identifier that needs no quotes.
fn plain_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok =
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '-' | '$' | '.' | '_'));
    first_ok && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '$' | '.' | '_'))
}

/// `"text"` with LLVM's escapes (`\XX` for quotes, backslashes and non-printables).
pub(super) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for byte in text.bytes() {
        if byte == b'"' || byte == b'\\' || !(0x20..0x7f).contains(&byte) {
            out.push_str(&format!("\\{byte:02X}"));
        } else {
            out.push(byte as char);
        }
    }
    out.push('"');
    out
}

/// `@name`, quoted when it is not a plain identifier.
pub(super) fn global_name(name: &str) -> String {
    if plain_identifier(name) {
        format!("@{name}")
    } else {
        format!("@{}", quoted(name))
    }
}

/// `%name` for a type name, quoted when needed.
fn local_name(name: &str) -> String {
    if plain_identifier(name) {
        format!("%{name}")
    } else {
        format!("%{}", quoted(name))
    }
}
