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

use crate::layout::{fold, struct_storage, unsupported, Folded, LayoutCalculator, LayoutRule};
use spirvkit_hlsl::ast::DeclId;
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
    /// A construct dxc rejects too, in dxc's words.
    #[error("{message}")]
    Rejected { message: String },
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
    explicit_offsets: HashMap<DeclId, u32>,
    /// The front end's string table, for struct member names (`OpMemberName`).
    interner: Option<&'a spirvkit_hlsl::lexer::Interner>,
    /// HLSL name of each IR struct whose identifier differs from it (a laid-out copy,
    /// `S.std430`, or a second struct of the same name): dxc names them all `S`.
    source_names: HashMap<String, String>,
    /// The field declaration of each member of each IR struct (by identifier), for
    /// what depends on how a field was declared (`precise`).
    member_decls: HashMap<String, Vec<Option<DeclId>>>,
}

impl<'a> TypeLowering<'a> {
    /// The field declaration of member `index` of the IR struct `name`.
    pub fn member_decl(&self, name: &str, index: usize) -> Option<DeclId> {
        self.member_decls.get(name).and_then(|m| m.get(index).copied().flatten())
    }

    /// The field declarations of every lowered struct's members.
    pub fn member_decls(&self) -> impl Iterator<Item = DeclId> + '_ {
        self.member_decls.values().flatten().filter_map(|d| *d)
    }

    pub fn new(table: &'a TypeTable, store: &'a mut TypeStore, options: LowerOptions) -> Self {
        TypeLowering {
            table,
            store,
            options,
            lowered: HashMap::new(),
            calculators: HashMap::new(),
            explicit_offsets: HashMap::new(),
            interner: None,
            source_names: HashMap::new(),
            member_decls: HashMap::new(),
        }
    }

    /// The HLSL name of every IR struct whose identifier is not that name (see
    /// `source_names`), for the serializer's `OpName`.
    pub fn struct_source_names(&self) -> &HashMap<String, String> {
        &self.source_names
    }

    /// Honours `[[vk::offset]]` (the map from [`crate::layout::explicit_offsets`]).
    /// Call before lowering anything with a layout.
    pub fn with_explicit_offsets(mut self, offsets: HashMap<DeclId, u32>) -> Self {
        self.explicit_offsets = offsets;
        self.calculators.clear();
        self
    }

    /// Names struct members (`OpMemberName`) from the front end's string table.
    pub fn with_interner(mut self, interner: &'a spirvkit_hlsl::lexer::Interner) -> Self {
        self.interner = Some(interner);
        self
    }

    fn table_name(&self, sym: spirvkit_hlsl::lexer::Symbol) -> String {
        self.interner.map_or_else(String::new, |i| i.get(sym).to_string())
    }

    /// The IR type store being filled.
    pub fn store(&self) -> &TypeStore {
        self.store
    }

    /// The IR type store, for the types codegen makes beyond HLSL's (pointers,
    /// functions, images).
    pub fn store_mut(&mut self) -> &mut TypeStore {
        self.store
    }

    /// The HLSL type table types are lowered from.
    pub fn table(&self) -> &'a TypeTable {
        self.table
    }

    /// The options types are lowered with.
    pub fn options(&self) -> LowerOptions {
        self.options
    }

    /// The layout calculator for `rule` (alignment, size and strides of HLSL types).
    pub fn calculator(&mut self, rule: LayoutRule) -> &LayoutCalculator<'a> {
        let (table, options, explicit) = (self.table, self.options, &self.explicit_offsets);
        self.calculators.entry(rule).or_insert_with(|| {
            LayoutCalculator::new(table, options, rule).with_explicit_offsets(explicit.clone())
        })
    }

    /// Whether `ty` was lowered (or provided) for `rule` already.
    pub fn is_lowered(&self, ty: Ty, rule: Option<LayoutRule>) -> bool {
        self.lowered.contains_key(&(ty, rule))
    }

    /// Records the lowering of `ty` made elsewhere (a resource object's type, which
    /// codegen makes), so that structs and arrays holding it lower through it.
    pub fn provide(&mut self, ty: Ty, rule: Option<LayoutRule>, lowered: Type) {
        self.lowered.insert((ty, rule), lowered);
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
                let storage = struct_storage(self.table, id, &self.options)?;
                let members: Vec<Ty> = storage.members.iter().map(|&(ty, _)| ty).collect();
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
                    name = format!("{base_name}.{}", id.0);
                    if self.store.set_struct_body(&name, body).is_err() {
                        return Err(CodegenError::NotSupported {
                            what: format!("two different layouts of struct '{}'", info.name),
                        });
                    }
                }
                // A merged bit-field member takes its first field's name.
                let field_names: HashMap<DeclId, spirvkit_hlsl::lexer::Symbol> =
                    info.fields.iter().map(|f| (f.decl, f.name)).collect();
                let member_names: Vec<String> = storage
                    .members
                    .iter()
                    .map(|(_, decl)| {
                        decl.and_then(|d| field_names.get(&d))
                            .map_or_else(String::new, |&n| self.table_name(n))
                    })
                    .collect();
                self.store.set_struct_member_names(&name, member_names);
                self.member_decls.insert(name.clone(), storage.members.iter().map(|&(_, d)| d).collect());
                if name != info.name {
                    self.source_names.insert(name.clone(), info.name.clone());
                }
                self.store.intern(TypeKind::IdentifiedStruct { name })
            }
        };
        self.lowered.insert((ty, rule), lowered);
        Ok(lowered)
    }

    /// `MatrixStride` and the (swapped) majorness decoration of a float matrix member or
    /// array-of-matrices member; nothing for other members.
    pub fn matrix_decorations(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::struct_type;

    /// The member types of struct `S` in `source`, lowered without a layout (the front
    /// end runs with the same `-enable-16bit-types`).
    fn member_kinds(source: &str, options: LowerOptions) -> (Vec<TypeKind>, TypeStore) {
        let (table, ty, _) = struct_type(source, "S", options.sixteen_bit_types);
        let mut store = TypeStore::new();
        let lowered = TypeLowering::new(&table, &mut store, options).lower(ty, None).unwrap();
        let TypeKind::IdentifiedStruct { name } = store.kind(lowered).clone() else { panic!("struct") };
        let body = store.struct_body(&name).unwrap().clone();
        assert!(body.members.iter().all(|m| m.offset.is_none() && m.decorations.is_empty()));
        (body.members.iter().map(|m| store.kind(m.ty).clone()).collect(), store)
    }

    fn int(width: u32, signedness: Signedness) -> TypeKind {
        TypeKind::Integer { width, signedness }
    }

    #[test]
    fn scalars_take_dxc_widths() {
        let source = "enum E { A }; struct S { bool b; int i; uint u; min16uint s; uint64_t l; half h;
            float f; double d; min16float m; min12int n; E e; float1 one; };";
        let (kinds, _) = member_kinds(source, LowerOptions::default());
        use Signedness::*;
        let expected = [
            int(1, Signless),
            int(32, Signed),
            int(32, Signless),
            int(32, Signless),
            int(64, Signless),
            TypeKind::Float(FloatKind::F32),
            TypeKind::Float(FloatKind::F32),
            TypeKind::Float(FloatKind::F64),
            TypeKind::Float(FloatKind::F32),
            int(32, Signed),
            int(32, Signed),
            TypeKind::Float(FloatKind::F32),
        ];
        assert_eq!(kinds, expected);
        let (kinds, _) =
            member_kinds(source, LowerOptions { sixteen_bit_types: true, ..LowerOptions::default() });
        assert_eq!(kinds[5], TypeKind::Float(FloatKind::F16));
        assert_eq!(kinds[8], TypeKind::Float(FloatKind::F16));
        assert_eq!(kinds[9], int(16, Signed));
    }

    #[test]
    fn min_precision_is_relaxed_only_at_32_bits() {
        let off = LowerOptions::default();
        let on = LowerOptions { sixteen_bit_types: true, ..off };
        assert!(is_relaxed_precision(Scalar::Min16Float, &off));
        assert!(is_relaxed_precision(Scalar::Min16UInt, &off));
        assert!(!is_relaxed_precision(Scalar::Min16Float, &on));
        assert!(!is_relaxed_precision(Scalar::Half, &off));
    }

    #[test]
    fn matrices_are_hlsl_rows_of_vectors() {
        let source = "struct S { float3x4 m; float1x3 row; float2x1 column; int2x3 im; float a[2]; };";
        let (kinds, store) = member_kinds(source, LowerOptions::default());
        let TypeKind::Matrix { column, columns: 3 } = &kinds[0] else { panic!("{:?}", kinds[0]) };
        assert!(matches!(store.kind(*column), TypeKind::Vector { shape, .. } if shape == &[4]));
        assert!(matches!(&kinds[1], TypeKind::Vector { shape, .. } if shape == &[3]));
        assert!(matches!(&kinds[2], TypeKind::Vector { shape, .. } if shape == &[2]));
        let TypeKind::Array { element, count: 2, stride: None, .. } = &kinds[3] else {
            panic!("{:?}", kinds[3])
        };
        assert!(matches!(store.kind(*element), TypeKind::Vector { shape, .. } if shape == &[3]));
        assert!(matches!(&kinds[4], TypeKind::Array { count: 2, stride: None, .. }));
    }

    #[test]
    fn bases_become_the_first_member() {
        let (kinds, store) =
            member_kinds("struct B { float x; }; struct S : B { int y; };", LowerOptions::default());
        let TypeKind::IdentifiedStruct { name } = &kinds[0] else { panic!("{:?}", kinds[0]) };
        assert_eq!(name, "B");
        assert_eq!(store.struct_body("B").unwrap().members.len(), 1);
        assert_eq!(kinds[1], int(32, Signedness::Signed));
    }

    #[test]
    fn one_struct_under_two_rules_gets_two_ir_structs() {
        let (table, ty, _) = struct_type("struct S { float a; float3 b; };", "S", false);
        let mut store = TypeStore::new();
        let mut lowering = TypeLowering::new(&table, &mut store, LowerOptions::default());
        let plain = lowering.lower(ty, None).unwrap();
        let std140 = lowering.lower(ty, Some(LayoutRule::Std140)).unwrap();
        let relaxed = lowering.lower(ty, Some(LayoutRule::RelaxedStd140)).unwrap();
        assert_ne!(plain, std140);
        assert_ne!(std140, relaxed);
        let offsets = |name: &str| -> Vec<Option<u32>> {
            lowering.store().struct_body(name).unwrap().members.iter().map(|m| m.offset).collect()
        };
        assert_eq!(offsets("S.gl140"), [Some(0), Some(16)]);
        assert_eq!(offsets("S.std140"), [Some(0), Some(4)]);
    }

    #[test]
    fn objects_are_not_supported_yet() {
        let (table, ty, _) = struct_type("struct S { float a; Texture2D t; };", "S", false);
        let mut store = TypeStore::new();
        let err = TypeLowering::new(&table, &mut store, LowerOptions::default()).lower(ty, None).unwrap_err();
        assert!(matches!(&err, CodegenError::NotSupported { .. }), "{err:?}");
        assert_eq!(err.to_string(), "not supported yet: type 'Texture2D<float4>'");
        assert!(!is_lowerable(&table, ty));
    }

    #[test]
    fn column_major_integer_matrices_in_buffers_are_not_supported_yet() {
        let (table, ty, _) = struct_type("struct S { int2x3 m; };", "S", false);
        let mut store = TypeStore::new();
        let err = TypeLowering::new(&table, &mut store, LowerOptions::default())
            .lower(ty, Some(LayoutRule::RelaxedStd430))
            .unwrap_err();
        assert!(err.to_string().starts_with("not supported yet: column_major non-float matrix"), "{err}");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let mut source = String::from("struct S0 { float x; };\n");
        for i in 1..100 {
            source.push_str(&format!("struct S{i} {{ S{} inner[2]; }};\n", i - 1));
        }
        source.push_str("struct S { S99 deep; };");
        let (table, ty, _) = struct_type(&source, "S", false);
        let mut store = TypeStore::new();
        let err = TypeLowering::new(&table, &mut store, LowerOptions::default()).lower(ty, None).unwrap_err();
        assert_eq!(err, CodegenError::TooDeep { limit: MAX_NESTING });
    }
}
