//! Lowering of HLSL types to IR types, as dxc does it.
//!
//! - `int`/`uint` are 32-bit signed/unsigned integers, 16- and 64-bit types keep their
//!   width; `half` is 32-bit unless `-enable-16bit-types`; min-precision types are
//!   32-bit (their values carry `RelaxedPrecision`, see [`is_relaxed_precision`]) or
//!   16-bit under `-enable-16bit-types`.
//! - `bool` is `i1`, but a 32-bit unsigned integer in an explicitly laid out (buffer)
//!   type, where SPIR-V has no boolean.
//! - `float1` is a scalar, `float1xN`/`floatNx1` are vectors (dxc folds them).
//! - An HLSL `floatRxC` is a SPIR-V matrix of R vectors of C floats (SPIR-V.rst: HLSL
//!   matrices are represented by their transposes), so HLSL `row_major` becomes the
//!   `ColMajor` decoration and `column_major` (the default) `RowMajor`. Non-float
//!   matrices are arrays of R vectors.
//! - A struct's bases become its first members; enums are their underlying integer.

use crate::layout::{fold, struct_members, unsupported, Folded, LayoutCalculator, LayoutRule};
use spirvkit_hlsl::sema::types::{Scalar, Ty, TypeData, TypeTable};
use spirvkit_ir::types::{FloatKind, Signedness, StructBody, StructMember, Type, TypeKind, TypeStore};
use std::collections::HashMap;

/// How deep types may nest (arrays of structs of arrays ...) before lowering gives up,
/// so that hostile input cannot overflow the stack.
pub const MAX_NESTING: u32 = 64;

/// Why a type could not be lowered. The caller attaches the source location of the
/// declaration that needed the type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodegenError {
    #[error("not supported yet: {what}")]
    NotSupported { what: String },
    #[error("type nested deeper than {limit} levels")]
    TooDeep { limit: u32 },
    #[error("{what} does not fit in 32 bits")]
    TooLarge { what: String },
}

/// The command-line options that change how types lower.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LowerOptions {
    /// `-enable-16bit-types`: `half` and min-precision types are 16-bit.
    pub sixteen_bit_types: bool,
    /// `-Zpr`: matrices without `row_major`/`column_major` are row-major.
    pub default_row_major: bool,
}

/// Whether values of scalar type `s` carry `RelaxedPrecision` (min-precision types that
/// are 32-bit because 16-bit types are off).
pub fn is_relaxed_precision(s: Scalar, options: &LowerOptions) -> bool {
    !options.sixteen_bit_types
        && matches!(
            s,
            Scalar::Min16Float | Scalar::Min10Float | Scalar::Min16Int | Scalar::Min12Int | Scalar::Min16UInt
        )
}

/// Lowers HLSL types from one front-end run into one IR type store.
pub struct TypeLowering<'a> {
    table: &'a TypeTable,
    store: &'a mut TypeStore,
    options: LowerOptions,
    lowered: HashMap<(Ty, Option<LayoutRule>), Type>,
    calculators: HashMap<LayoutRule, LayoutCalculator<'a>>,
}

impl<'a> TypeLowering<'a> {
    pub fn new(table: &'a TypeTable, store: &'a mut TypeStore, options: LowerOptions) -> Self {
        TypeLowering { table, store, options, lowered: HashMap::new(), calculators: HashMap::new() }
    }

    /// The IR type store being filled.
    pub fn store(&self) -> &TypeStore {
        self.store
    }

    /// The layout calculator for `rule` (alignment, size and strides of HLSL types).
    pub fn calculator(&mut self, rule: LayoutRule) -> &LayoutCalculator<'a> {
        let (table, options) = (self.table, self.options);
        self.calculators.entry(rule).or_insert_with(|| LayoutCalculator::new(table, options, rule))
    }

    /// Lowers `ty`; with a `rule`, as an explicitly laid out type (member offsets, array
    /// and matrix strides, majorness decorations).
    pub fn lower(&mut self, ty: Ty, rule: Option<LayoutRule>) -> Result<Type, CodegenError> {
        self.lower_at(ty, rule, 0)
    }

    fn lower_at(&mut self, ty: Ty, rule: Option<LayoutRule>, depth: u32) -> Result<Type, CodegenError> {
        if depth > MAX_NESTING {
            return Err(CodegenError::TooDeep { limit: MAX_NESTING });
        }
        if let Some(&done) = self.lowered.get(&(ty, rule)) {
            return Ok(done);
        }
        let lowered = match fold(self.table, ty, &self.options)? {
            Folded::Scalar(s) => self.scalar(s, rule.is_some()),
            Folded::Vector(s, n) => {
                let element = self.scalar(s, rule.is_some());
                self.store.vector(u64::from(n), element)
            }
            Folded::Matrix(m) => {
                let element = self.scalar(m.elem, rule.is_some());
                let row = self.store.vector(u64::from(m.cols), element);
                if m.elem.is_float() {
                    self.store.intern(TypeKind::Matrix { column: row, columns: m.rows })
                } else {
                    // Non-float matrices are arrays of row vectors, which matches the
                    // storage only when rows are contiguous.
                    let stride = match rule {
                        Some(_) if !m.row_major => {
                            return Err(CodegenError::NotSupported {
                                what: format!(
                                    "column_major non-float matrix '{}' in a buffer",
                                    self.table.display(ty)
                                ),
                            })
                        }
                        Some(rule) => self.calculator(rule).layout(ty)?.stride,
                        None => None,
                    };
                    self.store.array(row, m.rows, stride)
                }
            }
            Folded::Array { elem, len } => {
                let element = self.lower_at(elem, rule, depth + 1)?;
                let stride = match rule {
                    Some(rule) => self.calculator(rule).layout(ty)?.stride,
                    None => None,
                };
                match len {
                    Some(count) => self.store.array(element, count, stride),
                    None => self.store.intern(TypeKind::RuntimeArray { element, stride, stride_id: None }),
                }
            }
            Folded::Struct(id) => {
                let members = struct_members(self.table, id)?;
                let offsets = match rule {
                    Some(rule) => Some(self.calculator(rule).member_offsets(id)?),
                    None => None,
                };
                let mut body = StructBody::default();
                for (index, &member) in members.iter().enumerate() {
                    let member_type = self.lower_at(member, rule, depth + 1)?;
                    let decorations = match rule {
                        Some(rule) => self.matrix_decorations(member, rule)?,
                        None => Vec::new(),
                    };
                    body.members.push(StructMember {
                        ty: member_type,
                        offset: offsets.as_ref().and_then(|o| o.get(index).copied()),
                        decorations,
                    });
                }
                let info = self.table.struct_info(id).ok_or_else(|| unsupported(self.table, ty))?;
                let base_name = match rule {
                    Some(rule) => format!("{}.{}", info.name, rule.suffix()),
                    None => info.name.clone(),
                };
                // Two HLSL structs may share a name (namespaces, templates): the second
                // gets its struct id appended.
                let mut name = base_name.clone();
                if self.store.set_struct_body(&name, body.clone()).is_err() {
                    name = format!("{base_name}#{}", id.0);
                    if self.store.set_struct_body(&name, body).is_err() {
                        return Err(CodegenError::NotSupported {
                            what: format!("two different layouts of struct '{}'", info.name),
                        });
                    }
                }
                self.store.intern(TypeKind::IdentifiedStruct { name })
            }
        };
        self.lowered.insert((ty, rule), lowered);
        Ok(lowered)
    }

    /// `MatrixStride` and the (swapped) majorness decoration of a float matrix member or
    /// array-of-matrices member; nothing for other members.
    fn matrix_decorations(
        &mut self,
        mut member: Ty,
        rule: LayoutRule,
    ) -> Result<Vec<(String, Option<String>)>, CodegenError> {
        for _ in 0..=MAX_NESTING {
            match fold(self.table, member, &self.options)? {
                Folded::Array { elem, .. } => member = elem,
                Folded::Matrix(m) if m.elem.is_float() => {
                    let stride = self.calculator(rule).layout(member)?.stride.unwrap_or(0);
                    let major = if m.row_major { "ColMajor" } else { "RowMajor" };
                    return Ok(vec![
                        ("MatrixStride".to_string(), Some(stride.to_string())),
                        (major.to_string(), None),
                    ]);
                }
                _ => return Ok(Vec::new()),
            }
        }
        Err(CodegenError::TooDeep { limit: MAX_NESTING })
    }

    fn scalar(&mut self, s: Scalar, in_buffer: bool) -> Type {
        let bits = s.bits(self.options.sixteen_bit_types);
        match s {
            Scalar::Bool if in_buffer => self.store.integer(32, Signedness::Signless),
            Scalar::Bool => self.store.integer(1, Signedness::Signless),
            _ if s.is_float() => self.store.float(match bits {
                16 => FloatKind::F16,
                64 => FloatKind::F64,
                _ => FloatKind::F32,
            }),
            // dxc's OpTypeInt signedness 1 is `si`/`i` signed, 0 is signless in the IR.
            _ if s.is_signed() => self.store.integer(bits, Signedness::Signed),
            _ => self.store.integer(bits, Signedness::Signless),
        }
    }
}

/// Whether `ty` can be lowered at all (no objects, strings or opaque types inside).
pub fn is_lowerable(table: &TypeTable, ty: Ty) -> bool {
    !matches!(
        table.get(ty),
        TypeData::Object { .. } | TypeData::String | TypeData::Opaque(_) | TypeData::Error
    ) && !table.contains_object(ty)
}
