//! Buffer memory layout as dxc computes it: the layout rules, which rule a buffer kind
//! takes under each layout option, and the alignment, size and stride of every HLSL
//! type under a rule (the facts behind the `Offset`, `ArrayStride` and `MatrixStride`
//! decorations).
//!
//! The rules modify OpenGL's std140 rules (numbered as in the GLSL spec):
//! - std430 does not round array and struct alignments up to 16 bytes;
//! - the "relaxed" variants place a vector at its element's alignment unless that makes
//!   it straddle a 16-byte boundary improperly, in which case it goes to the next 16;
//! - fxc's cbuffer rule (`-fvk-use-dx-layout` for uniform buffers) is relaxed std140
//!   whose vectors align as their elements and whose arrays and structs leave no tail
//!   padding (the next member may sit inside their last 16-byte register);
//! - fxc's structured-buffer rule packs everything at its scalar alignment; arrays have
//!   no tail padding, structs round their size up to their alignment;
//! - the scalar rule (`-fvk-use-scalar-layout`) aligns everything as its scalars.

use crate::types::{CodegenError, LowerOptions, MAX_NESTING};
use spirvkit_hlsl::ast::{DeclId, ExprKind};
use spirvkit_hlsl::sema::tree::TypedTree;
use spirvkit_hlsl::sema::types::{Majorness, Scalar, StructId, Ty, TypeData, TypeTable};
use std::cell::RefCell;
use std::collections::HashMap;

/// A memory layout rule (dxc's `SpirvLayoutRule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayoutRule {
    /// dxc's default for uniform buffers: std140 with relaxed vector alignment.
    RelaxedStd140,
    /// dxc's default for storage buffers: std430 with relaxed vector alignment.
    RelaxedStd430,
    /// Strict std140 (`-fvk-use-gl-layout`, uniform buffers).
    Std140,
    /// Strict std430 (`-fvk-use-gl-layout`, storage buffers).
    Std430,
    /// fxc's cbuffer/tbuffer packing (`-fvk-use-dx-layout`).
    FxcCBuffer,
    /// fxc's structured buffer packing (`-fvk-use-dx-layout`).
    FxcStructuredBuffer,
    /// `VK_EXT_scalar_block_layout` (`-fvk-use-scalar-layout`).
    Scalar,
}

impl LayoutRule {
    /// Every rule, for callers that try them all (tests, the fuzzer).
    pub const ALL: [LayoutRule; 7] = [
        LayoutRule::RelaxedStd140,
        LayoutRule::RelaxedStd430,
        LayoutRule::Std140,
        LayoutRule::Std430,
        LayoutRule::FxcCBuffer,
        LayoutRule::FxcStructuredBuffer,
        LayoutRule::Scalar,
    ];
}

/// The layout command-line option in effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LayoutOption {
    /// dxc's default: the relaxed rules.
    #[default]
    Default,
    /// `-fvk-use-gl-layout`.
    Gl,
    /// `-fvk-use-dx-layout`.
    Dx,
    /// `-fvk-use-scalar-layout`.
    Scalar,
}

/// What kind of buffer a type is laid out for (SPIR-V.rst, "Memory layout rules" and the
/// buffer table before it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferKind {
    /// `cbuffer`, `ConstantBuffer<T>` and `$Globals`: uniform buffers.
    ConstantBuffer,
    /// `tbuffer` and `TextureBuffer<T>`: storage buffers laid out with the std430 rules,
    /// but with fxc's cbuffer packing under `-fvk-use-dx-layout`.
    TextureBuffer,
    /// Structured and byte-address buffers.
    StructuredBuffer,
    /// `[[vk::push_constant]]` blocks.
    PushConstant,
}

impl LayoutRule {
    /// The rule dxc uses for `kind` under `option`.
    pub fn for_buffer(kind: BufferKind, option: LayoutOption) -> LayoutRule {
        let uniform = kind == BufferKind::ConstantBuffer;
        match option {
            LayoutOption::Scalar => LayoutRule::Scalar,
            LayoutOption::Default if uniform => LayoutRule::RelaxedStd140,
            LayoutOption::Default => LayoutRule::RelaxedStd430,
            LayoutOption::Gl if uniform => LayoutRule::Std140,
            LayoutOption::Gl => LayoutRule::Std430,
            LayoutOption::Dx if uniform || kind == BufferKind::TextureBuffer => LayoutRule::FxcCBuffer,
            LayoutOption::Dx => LayoutRule::FxcStructuredBuffer,
        }
    }

    /// Short name, used to tell apart the IR structs of one HLSL struct under two rules.
    pub fn suffix(self) -> &'static str {
        match self {
            LayoutRule::RelaxedStd140 => "std140",
            LayoutRule::RelaxedStd430 => "std430",
            LayoutRule::Std140 => "gl140",
            LayoutRule::Std430 => "gl430",
            LayoutRule::FxcCBuffer => "fxc_cb",
            LayoutRule::FxcStructuredBuffer => "fxc_sb",
            LayoutRule::Scalar => "scalar",
        }
    }

    /// Whether arrays, matrices and structs round their alignment up to 16 bytes.
    fn rounds_to_vec4(self) -> bool {
        matches!(self, LayoutRule::Std140 | LayoutRule::RelaxedStd140 | LayoutRule::FxcCBuffer)
    }

    /// Whether vectors are placed by the relaxed (improper straddle) rule.
    fn relaxed_vectors(self) -> bool {
        matches!(self, LayoutRule::RelaxedStd140 | LayoutRule::RelaxedStd430 | LayoutRule::FxcCBuffer)
    }

    /// Whether aggregates align as their scalars and have no tail padding rounding.
    fn packs_as_scalars(self) -> bool {
        matches!(self, LayoutRule::FxcStructuredBuffer | LayoutRule::Scalar)
    }

    fn is_fxc(self) -> bool {
        matches!(self, LayoutRule::FxcCBuffer | LayoutRule::FxcStructuredBuffer)
    }
}

/// Where a block member was asked to go (`cbuffer` members and `$Globals`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Placement {
    /// Where the layout rule puts it.
    #[default]
    Auto,
    /// `packoffset(cN.c)`: at byte `N * 16 + c * 4`.
    PackOffset(u32),
    /// `register(cN)` on a `$Globals` member: at byte `N * 16`.
    Register(u32),
}

/// Alignment and size of a type under a rule, with the stride its decorations need:
/// `ArrayStride` for arrays, `MatrixStride` for matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub align: u32,
    pub size: u32,
    pub stride: Option<u32>,
}

/// The 16-byte register/vec4 alignment.
const VEC4_ALIGN: u64 = 16;

fn round_up(value: u64, align: u64) -> u64 {
    // Alignments here are powers of two of at least 1.
    value.div_ceil(align.max(1)) * align.max(1)
}

fn too_large(what: &str) -> CodegenError {
    CodegenError::TooLarge { what: what.to_string() }
}

fn to_u32(value: u64, what: &str) -> Result<u32, CodegenError> {
    u32::try_from(value).map_err(|_| too_large(what))
}

/// A matrix as laid out: HLSL rows and columns, and whether rows are contiguous.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MatrixShape {
    pub elem: Scalar,
    pub rows: u32,
    pub cols: u32,
    pub row_major: bool,
}

/// What a type is for layout and lowering once dxc's degenerate forms are folded:
/// `float1` is a scalar, `float1xN` and `floatNx1` are vectors, enums are their
/// underlying integer.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Folded {
    Scalar(Scalar),
    Vector(Scalar, u32),
    Matrix(MatrixShape),
    Array { elem: Ty, len: Option<u32> },
    Struct(StructId),
}

pub(crate) fn fold(table: &TypeTable, ty: Ty, options: &LowerOptions) -> Result<Folded, CodegenError> {
    Ok(match table.get(ty) {
        TypeData::Scalar(s) => Folded::Scalar(s.concrete()),
        TypeData::Vector(s, 1) => Folded::Scalar(s.concrete()),
        TypeData::Vector(s, n) => Folded::Vector(s.concrete(), u32::from(*n)),
        TypeData::Matrix { elem, rows, cols, major } => match (*rows, *cols) {
            (1, 1) => Folded::Scalar(*elem),
            (1, n) | (n, 1) => Folded::Vector(*elem, u32::from(n)),
            (rows, cols) => Folded::Matrix(MatrixShape {
                elem: *elem,
                rows: u32::from(rows),
                cols: u32::from(cols),
                row_major: match major {
                    Majorness::RowMajor => true,
                    Majorness::ColumnMajor => false,
                    Majorness::Default => options.default_row_major,
                },
            }),
        },
        TypeData::Array { elem, len } => Folded::Array { elem: *elem, len: *len },
        TypeData::Struct(id) => Folded::Struct(*id),
        TypeData::Enum(id) => {
            let info = table.enums.get(id.0 as usize).ok_or_else(|| unsupported(table, ty))?;
            Folded::Scalar(info.underlying)
        }
        _ => return Err(unsupported(table, ty)),
    })
}

pub(crate) fn unsupported(table: &TypeTable, ty: Ty) -> CodegenError {
    CodegenError::NotSupported { what: format!("type '{}'", table.display(ty)) }
}

/// Where a bit-field's bits sit inside the integer member that stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitField {
    /// The lowest bit.
    pub offset: u32,
    /// How many bits.
    pub width: u32,
}

/// Where one HLSL member (a base or a field) of a struct is stored: the index of the
/// IR struct member, and the bits inside it when the field is a bit-field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberSlot {
    pub member: u32,
    pub bit_field: Option<BitField>,
}

/// A struct as dxc stores it: consecutive bit-fields of one integer type share a
/// member while their bits fit (LowerTypeVisitor's `populateLayoutInformation`), so
/// the IR members are fewer than the HLSL ones when bit-fields merge.
#[derive(Clone, Debug, Default)]
pub(crate) struct StructStorage {
    /// The IR members: their HLSL types (a merged bit-field member has its first
    /// field's type) and the declaration of the first field stored there.
    pub members: Vec<(Ty, Option<DeclId>)>,
    /// Per HLSL member (bases first, then the fields): where it is stored.
    pub slots: Vec<MemberSlot>,
}

/// The storage of struct `id` (see [`StructStorage`]).
pub(crate) fn struct_storage(
    table: &TypeTable,
    id: StructId,
    options: &LowerOptions,
) -> Result<StructStorage, CodegenError> {
    let info = table
        .struct_info(id)
        .ok_or_else(|| CodegenError::NotSupported { what: format!("struct #{}", id.0) })?;
    if !info.complete {
        return Err(CodegenError::NotSupported { what: format!("incomplete struct '{}'", info.name) });
    }
    let mut storage = StructStorage::default();
    for &base in &info.bases {
        storage.slots.push(MemberSlot { member: storage.members.len() as u32, bit_field: None });
        storage.members.push((base, None));
    }
    // The bits taken so far in the last member, when that member holds bit-fields.
    let mut open: Option<(BitFieldKey, u32)> = None;
    for field in &info.fields {
        let Some(width) = field.bit_width else {
            open = None;
            storage.slots.push(MemberSlot { member: storage.members.len() as u32, bit_field: None });
            storage.members.push((field.ty, Some(field.decl)));
            continue;
        };
        let key = bit_field_key(table, field.ty, options)?;
        match open {
            // Merged only with a bit-field of the same lowered type that has room.
            Some((open_key, used)) if open_key == key && used + width <= key.bits => {
                let member = storage.members.len().saturating_sub(1) as u32;
                storage.slots.push(MemberSlot { member, bit_field: Some(BitField { offset: used, width }) });
                open = Some((key, used + width));
            }
            _ => {
                storage.slots.push(MemberSlot {
                    member: storage.members.len() as u32,
                    bit_field: Some(BitField { offset: 0, width }),
                });
                storage.members.push((field.ty, Some(field.decl)));
                open = Some((key, width));
            }
        }
    }
    Ok(storage)
}

/// What decides whether two bit-fields may share a member: their lowered integer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BitFieldKey {
    bits: u32,
    signed: bool,
}

fn bit_field_key(table: &TypeTable, ty: Ty, options: &LowerOptions) -> Result<BitFieldKey, CodegenError> {
    match fold(table, ty, options)? {
        // A bool bit-field lowers to `bool` outside buffers and to `uint` inside, so
        // dxc merges it differently per layout; it has no use worth that ambiguity.
        Folded::Scalar(s) if s.is_integer() => {
            Ok(BitFieldKey { bits: s.bits(options.sixteen_bit_types), signed: s.is_signed() })
        }
        _ => Err(CodegenError::NotSupported { what: format!("a bit-field of type '{}'", table.display(ty)) }),
    }
}

/// The IR member types of a struct as dxc lays it out: each base first, then the
/// fields (merged bit-fields are one member).
pub(crate) fn struct_members(
    table: &TypeTable,
    id: StructId,
    options: &LowerOptions,
) -> Result<Vec<Ty>, CodegenError> {
    Ok(struct_storage(table, id, options)?.members.into_iter().map(|(ty, _)| ty).collect())
}

/// The `[[vk::offset(N)]]` of every struct field that has one, by the field's
/// declaration. dxc lets it override the computed offset under every rule.
pub fn explicit_offsets(tree: &TypedTree) -> HashMap<DeclId, u32> {
    let mut offsets = HashMap::new();
    for info in &tree.types.structs {
        for field in &info.fields {
            let Some(decl) = tree.ast.decls.get(field.decl.index()) else { continue };
            let attr = decl.attrs.iter().find(|a| {
                a.namespace.is_some_and(|n| tree.ast.name(n.name) == "vk")
                    && tree.ast.name(a.name.name) == "offset"
            });
            let Some(&arg) = attr.and_then(|a| a.args.first()) else { continue };
            let value = match tree.exprs.get(arg.index()).and_then(|e| e.constant) {
                Some(constant) => constant.as_int(),
                None => match tree.ast.exprs.get(arg.index()).map(|e| &e.kind) {
                    Some(ExprKind::IntLiteral { value, .. }) => i64::try_from(*value).ok(),
                    _ => None,
                },
            };
            if let Some(value) = value.and_then(|v| u32::try_from(v).ok()) {
                offsets.insert(field.decl, value);
            }
        }
    }
    offsets
}

/// Computes layouts of HLSL types under one rule.
pub struct LayoutCalculator<'a> {
    table: &'a TypeTable,
    options: LowerOptions,
    rule: LayoutRule,
    /// Alignment and size per struct: without it a struct holding two copies of a struct
    /// holding two copies of ... would take time exponential in its depth.
    struct_cache: RefCell<HashMap<StructId, (u64, u64)>>,
    /// `[[vk::offset]]` values by field declaration (see [`explicit_offsets`]).
    explicit: HashMap<DeclId, u32>,
}

impl<'a> LayoutCalculator<'a> {
    pub fn new(table: &'a TypeTable, options: LowerOptions, rule: LayoutRule) -> Self {
        LayoutCalculator { table, options, rule, struct_cache: RefCell::default(), explicit: HashMap::new() }
    }

    /// Places the fields in `offsets` (from [`explicit_offsets`]) where they say.
    pub fn with_explicit_offsets(mut self, offsets: HashMap<DeclId, u32>) -> Self {
        self.explicit = offsets;
        self
    }

    pub fn rule(&self) -> LayoutRule {
        self.rule
    }

    fn scalar_bytes(&self, s: Scalar) -> u64 {
        // Booleans are 32-bit in buffers (dxc stores them as uint).
        if s == Scalar::Bool {
            4
        } else {
            u64::from(s.bits(self.options.sixteen_bit_types) / 8)
        }
    }

    /// Alignment and size of `ty`.
    pub fn layout(&self, ty: Ty) -> Result<Layout, CodegenError> {
        let (align, size, stride) = self.layout_at(ty, 0)?;
        Ok(Layout {
            align: to_u32(align, "alignment")?,
            size: to_u32(size, "type size")?,
            stride: stride.map(|s| to_u32(s, "stride")).transpose()?,
        })
    }

    fn layout_at(&self, ty: Ty, depth: u32) -> Result<(u64, u64, Option<u64>), CodegenError> {
        if depth > MAX_NESTING {
            return Err(CodegenError::TooDeep { limit: MAX_NESTING });
        }
        let rule = self.rule;
        if rule == LayoutRule::FxcCBuffer {
            self.check_fxc_degenerate_matrix(ty)?;
        }
        let (align, size, stride) = match fold(self.table, ty, &self.options)? {
            Folded::Scalar(s) => {
                let n = self.scalar_bytes(s);
                (n, n, None)
            }
            Folded::Vector(s, count) => {
                let n = self.scalar_bytes(s);
                let count = u64::from(count);
                let align = if rule.is_fxc() || rule.packs_as_scalars() {
                    n
                } else {
                    n * if count == 3 { 4 } else { count }
                };
                (align, n * count, None)
            }
            Folded::Matrix(m) => {
                let n = self.scalar_bytes(m.elem);
                // Each stored vector holds a row (row_major) or a column.
                let (vector_len, vectors) = if m.row_major { (m.cols, m.rows) } else { (m.rows, m.cols) };
                let (vector_len, vectors) = (u64::from(vector_len), u64::from(vectors));
                if rule.packs_as_scalars() {
                    (n, n * vector_len * vectors, Some(n * vector_len))
                } else if rule == LayoutRule::FxcCBuffer {
                    // fxc: each stored vector starts a 16-byte register, and the last
                    // one leaves the rest of its register to the next member.
                    let align = round_up(n * if vector_len == 3 { 4 } else { vector_len }, VEC4_ALIGN);
                    (align, VEC4_ALIGN * (vectors - 1) + vector_len * n, Some(align))
                } else {
                    let mut align = n * if vector_len == 3 { 4 } else { vector_len };
                    if rule.rounds_to_vec4() {
                        align = round_up(align, VEC4_ALIGN);
                    }
                    (align, vectors * align, Some(align))
                }
            }
            Folded::Array { elem, len } => {
                let (elem_align, elem_size, _) = self.layout_at(elem, depth + 1)?;
                // An unsized array contributes its stride; its size is that of one element.
                let count = u64::from(len.unwrap_or(1));
                if rule.packs_as_scalars() {
                    (elem_align, elem_size * count, Some(elem_size))
                } else {
                    let align =
                        if rule.rounds_to_vec4() { round_up(elem_align, VEC4_ALIGN) } else { elem_align };
                    let stride = round_up(elem_size, align);
                    let size = if rule == LayoutRule::FxcCBuffer {
                        // No tail padding after the last element.
                        elem_size + stride * count.saturating_sub(1)
                    } else {
                        round_up(stride * count, align)
                    };
                    (align, size, Some(stride))
                }
            }
            Folded::Struct(id) => {
                if let Some(&(align, size)) = self.struct_cache.borrow().get(&id) {
                    return Ok((align, size, None));
                }
                let (align, size, _) = self.struct_offsets_at(id, depth + 1)?;
                self.struct_cache.borrow_mut().insert(id, (align, size));
                (align, size, None)
            }
        };
        // Every level stays within 32 bits, so the products above cannot overflow u64.
        if size > u64::from(u32::MAX) {
            return Err(too_large("type size"));
        }
        Ok((align, size, stride))
    }

    /// fxc stores a `float1xN` (column-major) or row-major `floatNx1` as N registers
    /// of one element, which dxc declares as an array and copies into a private clone
    /// of the cbuffer; a vector in its place would move every later member.
    fn check_fxc_degenerate_matrix(&self, ty: Ty) -> Result<(), CodegenError> {
        let TypeData::Matrix { rows, cols, major, .. } = self.table.get(ty) else { return Ok(()) };
        let row_major = match major {
            Majorness::RowMajor => true,
            Majorness::ColumnMajor => false,
            Majorness::Default => self.options.default_row_major,
        };
        let stored_vectors = if row_major { *rows } else { *cols };
        if (*rows == 1 || *cols == 1) && stored_vectors > 1 {
            return Err(CodegenError::NotSupported {
                what: format!(
                    "matrix '{}' under -fvk-use-dx-layout in a cbuffer (fxc stores it one element per register)",
                    self.table.display(ty)
                ),
            });
        }
        Ok(())
    }

    /// The byte offset of each IR member (bases first, merged bit-fields once) of
    /// struct `id`.
    pub fn member_offsets(&self, id: StructId) -> Result<Vec<u32>, CodegenError> {
        let (_, _, offsets) = self.struct_offsets_at(id, 0)?;
        offsets.into_iter().map(|o| to_u32(o, "member offset")).collect()
    }

    fn struct_offsets_at(&self, id: StructId, depth: u32) -> Result<(u64, u64, Vec<u64>), CodegenError> {
        if depth > MAX_NESTING {
            return Err(CodegenError::TooDeep { limit: MAX_NESTING });
        }
        let members = struct_storage(self.table, id, &self.options)?.members;
        self.list_offsets_at(members, depth)
    }

    /// The byte offset of each of a block's members (a `cbuffer`'s declarations), laid
    /// out as a struct of them would be, except where `placements` (one per member, or
    /// none) say otherwise. As dxc: members at `register(c#)` are placed first in
    /// register order, the others after them in declaration order; `[[vk::offset]]` wins
    /// over `packoffset`, which wins over `register(c#)`, and the next member follows
    /// the end of the one placed before it.
    pub fn block_offsets(
        &self,
        members: Vec<(Ty, Option<DeclId>)>,
        placements: &[Placement],
    ) -> Result<Vec<u32>, CodegenError> {
        let placement = |i: usize| placements.get(i).copied().unwrap_or_default();
        let mut order: Vec<usize> =
            (0..members.len()).filter(|&i| matches!(placement(i), Placement::Register(_))).collect();
        order.sort_by_key(|&i| match placement(i) {
            Placement::Register(n) => n,
            _ => 0,
        });
        if let Some(w) = order.windows(2).find(|w| placement(w[0]) == placement(w[1])) {
            let Placement::Register(n) = placement(w[1]) else { unreachable!("register placements only") };
            return Err(CodegenError::Rejected {
                message: format!("field at register(c{n}) overlaps with previous members"),
            });
        }
        order.extend((0..members.len()).filter(|&i| !matches!(placement(i), Placement::Register(_))));
        let mut offsets = vec![0u32; members.len()];
        let mut end = 0u64;
        for i in order {
            let Some(&(ty, decl)) = members.get(i) else { continue };
            let (_, size, _) = self.layout_at(ty, 1)?;
            let default = self.place_member(end, ty, None, 1)?;
            let explicit = decl.and_then(|d| self.explicit.get(&d).copied());
            let offset = match (explicit, placement(i)) {
                (Some(offset), _) => u64::from(offset),
                (None, Placement::PackOffset(offset)) => {
                    if u64::from(offset) < end {
                        return Err(CodegenError::Rejected {
                            message: "packoffset caused overlap with previous members".to_string(),
                        });
                    }
                    u64::from(offset)
                }
                (None, Placement::Register(n)) => {
                    let offset = u64::from(n) * VEC4_ALIGN;
                    if offset < end {
                        return Err(CodegenError::Rejected {
                            message: format!(
                                "found offset overlap when processing register(c{n}) assignment"
                            ),
                        });
                    }
                    offset
                }
                (None, Placement::Auto) => default,
            };
            offsets[i] = to_u32(offset, "member offset")?;
            end = offset.checked_add(size).ok_or_else(|| too_large("struct size"))?;
        }
        Ok(offsets)
    }

    /// Where a member goes after `end` under the rule (its `[[vk::offset]]` if `decl`
    /// has one).
    fn place_member(&self, end: u64, ty: Ty, decl: Option<DeclId>, depth: u32) -> Result<u64, CodegenError> {
        let (align, size, _) = self.layout_at(ty, depth + 1)?;
        let place = |at: u64| -> Result<u64, CodegenError> {
            Ok(match fold(self.table, ty, &self.options)? {
                Folded::Vector(s, _) if self.rule.relaxed_vectors() => {
                    self.place_relaxed_vector(at, self.scalar_bytes(s), align, size)
                }
                _ => round_up(at, align),
            })
        };
        if let Some(&offset) = decl.and_then(|d| self.explicit.get(&d)) {
            // A misplaced member would make the block break the layout rule Vulkan
            // checks: dxc warns in these words and its validator then fails the
            // compile; we refuse rather than write that binary.
            let offset = u64::from(offset);
            if place(offset)? != offset {
                return Err(CodegenError::Rejected {
                    message: format!("The offset provided in the attribute should be {align}-byte aligned."),
                });
            }
            return Ok(offset);
        }
        place(end)
    }

    fn list_offsets_at(
        &self,
        members: Vec<(Ty, Option<DeclId>)>,
        depth: u32,
    ) -> Result<(u64, u64, Vec<u64>), CodegenError> {
        if members.is_empty() {
            return Ok((1, 0, Vec::new()));
        }
        let rule = self.rule;
        let mut offset = 0u64;
        let mut max_align = 1u64;
        let mut offsets = Vec::with_capacity(members.len());
        for (member, decl) in members {
            let (align, size, _) = self.layout_at(member, depth + 1)?;
            offset = self.place_member(offset, member, decl, depth)?;
            offsets.push(offset);
            max_align = max_align.max(align);
            offset = offset.checked_add(size).ok_or_else(|| too_large("struct size"))?;
        }
        if rule.rounds_to_vec4() {
            max_align = round_up(max_align, VEC4_ALIGN);
        }
        // Only fxc's cbuffer packing lets the next member use a struct's tail padding
        // (dxc rounds structured-buffer structs too: vk.layout.sbuffer.vector-and-
        // matrix.with.fxc.rule.hlsl has a 36-byte struct with stride 40).
        if rule != LayoutRule::FxcCBuffer {
            offset = round_up(offset, max_align);
        }
        if offset > u64::from(u32::MAX) {
            return Err(too_large("struct size"));
        }
        Ok((max_align, offset, offsets))
    }

    /// dxc's relaxed vector placement: at the element's alignment (when at most 4 bytes),
    /// moved to the next 16 bytes if the vector would then straddle improperly.
    fn place_relaxed_vector(&self, offset: u64, scalar_align: u64, align: u64, size: u64) -> u64 {
        let align = if scalar_align <= 4 { scalar_align } else { align };
        let offset = round_up(offset, align);
        let improper = if size <= VEC4_ALIGN {
            offset / VEC4_ALIGN != (offset + size - 1) / VEC4_ALIGN
        } else {
            !offset.is_multiple_of(VEC4_ALIGN)
        };
        if improper {
            round_up(offset, VEC4_ALIGN)
        } else {
            offset
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::struct_type;

    fn offsets(source: &str, rule: LayoutRule, options: LowerOptions) -> Vec<u32> {
        let (table, _, id) = struct_type(source, "S", options.sixteen_bit_types);
        LayoutCalculator::new(&table, options, rule).member_offsets(id).unwrap()
    }

    fn size(source: &str, rule: LayoutRule) -> Layout {
        let (table, ty, _) = struct_type(source, "S", false);
        LayoutCalculator::new(&table, LowerOptions::default(), rule).layout(ty).unwrap()
    }

    #[test]
    fn buffer_kinds_take_dxc_rules() {
        use BufferKind::*;
        assert_eq!(LayoutRule::for_buffer(ConstantBuffer, LayoutOption::Default), LayoutRule::RelaxedStd140);
        assert_eq!(
            LayoutRule::for_buffer(StructuredBuffer, LayoutOption::Default),
            LayoutRule::RelaxedStd430
        );
        assert_eq!(LayoutRule::for_buffer(TextureBuffer, LayoutOption::Default), LayoutRule::RelaxedStd430);
        assert_eq!(LayoutRule::for_buffer(ConstantBuffer, LayoutOption::Gl), LayoutRule::Std140);
        assert_eq!(LayoutRule::for_buffer(PushConstant, LayoutOption::Gl), LayoutRule::Std430);
        assert_eq!(LayoutRule::for_buffer(TextureBuffer, LayoutOption::Dx), LayoutRule::FxcCBuffer);
        assert_eq!(
            LayoutRule::for_buffer(StructuredBuffer, LayoutOption::Dx),
            LayoutRule::FxcStructuredBuffer
        );
        assert_eq!(LayoutRule::for_buffer(ConstantBuffer, LayoutOption::Scalar), LayoutRule::Scalar);
    }

    #[test]
    fn relaxed_vectors_pack_after_a_scalar_unless_they_straddle() {
        let s = "struct S { float a; float3 b; float2 c; float3 d; };";
        // b fits in 4..16; c at 16; d at 24 would straddle 32, so it moves there.
        assert_eq!(offsets(s, LayoutRule::RelaxedStd140, LowerOptions::default()), [0, 4, 16, 32]);
        assert_eq!(offsets(s, LayoutRule::Std140, LowerOptions::default()), [0, 16, 32, 48]);
        assert_eq!(offsets(s, LayoutRule::Scalar, LowerOptions::default()), [0, 4, 16, 24]);
    }

    #[test]
    fn std140_arrays_and_structs_round_to_16_and_std430_does_not() {
        let s = "struct S { float a[2]; float b; };";
        assert_eq!(offsets(s, LayoutRule::RelaxedStd140, LowerOptions::default()), [0, 32]);
        assert_eq!(offsets(s, LayoutRule::RelaxedStd430, LowerOptions::default()), [0, 8]);
        // fxc's cbuffer packing leaves no tail padding after the last element.
        assert_eq!(offsets(s, LayoutRule::FxcCBuffer, LowerOptions::default()), [0, 20]);
        assert_eq!(size(s, LayoutRule::RelaxedStd140), Layout { align: 16, size: 48, stride: None });
        assert_eq!(size(s, LayoutRule::RelaxedStd430), Layout { align: 4, size: 12, stride: None });
    }

    #[test]
    fn matrices_store_rows_or_columns_by_majorness() {
        let s = "struct S { float2x3 a; row_major float2x3 b; float c; };";
        assert_eq!(offsets(s, LayoutRule::RelaxedStd430, LowerOptions::default()), [0, 32, 64]);
        // -Zpr makes the first matrix row-major too.
        let zpr = LowerOptions { default_row_major: true, ..LowerOptions::default() };
        assert_eq!(offsets(s, LayoutRule::RelaxedStd430, zpr), [0, 32, 64]);
        assert_eq!(offsets(s, LayoutRule::FxcStructuredBuffer, LowerOptions::default()), [0, 24, 48]);
        let s = "struct S { float3x2 a; float c; };";
        // column_major float3x2: 2 columns of 3 floats, each 16-aligned.
        assert_eq!(offsets(s, LayoutRule::RelaxedStd430, LowerOptions::default()), [0, 32]);
        assert_eq!(offsets(s, LayoutRule::Scalar, LowerOptions::default()), [0, 24]);
    }

    #[test]
    fn sixteen_bit_types_halve_half_and_min_precision() {
        let s = "struct S { half a; min16float b; float c; };";
        assert_eq!(offsets(s, LayoutRule::RelaxedStd430, LowerOptions::default()), [0, 4, 8]);
        let on = LowerOptions { sixteen_bit_types: true, ..LowerOptions::default() };
        assert_eq!(offsets(s, LayoutRule::RelaxedStd430, on), [0, 2, 4]);
    }

    #[test]
    fn bases_come_first_and_empty_structs_take_no_space() {
        let s = "struct B { float x; }; struct E {}; struct S : B { E e; float3 y; };";
        assert_eq!(offsets(s, LayoutRule::RelaxedStd430, LowerOptions::default()), [0, 4, 4]);
    }

    #[test]
    fn oversized_arrays_are_an_error_not_an_overflow() {
        let (table, ty, _) = struct_type("struct S { float4 a[300000000]; };", "S", false);
        let err = LayoutCalculator::new(&table, LowerOptions::default(), LayoutRule::Std430).layout(ty);
        assert!(matches!(err, Err(CodegenError::TooLarge { .. })), "{err:?}");
    }
}
