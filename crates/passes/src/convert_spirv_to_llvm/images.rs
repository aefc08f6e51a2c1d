//! Storage images, sampled images read without a sampler and texel buffers for the CPU
//! kernel (`ConvertOptions::storage_images`; MLIR has no lowering of images). An image
//! (or texel buffer) is a descriptor whose memory is a header of
//! [`IMAGE_HEADER_BYTES`] (level 0's extent, the mip levels, a combined sampler's state,
//! the levels' offsets) followed by its texels, tightly packed (x fastest, then y, then z
//! or the layer; level 0, then level 1, ...). The image value is a pointer to that
//! memory: loading the `UniformConstant` image variable is its address, so every texel
//! access is a GEP from the bound global, which the kernel pass bounds-checks against the
//! descriptor like any buffer access.
//!
//! `spirv.ImageRead`/`spirv.ImageWrite` compare every coordinate with the extent
//! (unsigned, so negative ones are out of range); an access outside the image is pointed
//! past the descriptor's end, where the kernel pass's check makes a read zero and drops a
//! write (robust image access). Texels convert as Vulkan's fixed-point and float rules
//! say: unorm `c * (1 / (2^b - 1))` and snorm `max(c * (1 / (2^(b-1) - 1)), -1)` on read
//! (the reciprocal product Mesa's lavapipe computes, within Vulkan's precision for the
//! division), clamping and round-to-nearest-even on write, floats narrowed to half
//! rounding toward zero (as lavapipe; Vulkan allows either rounding), integers
//! truncated on write and zero- or sign-extended on read. Components the format lacks
//! read as 0 (green, blue) and 1 (alpha).

use super::{ConvertError, Converter};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{OpId, Value};
use spirvkit_ir::types::{FloatKind, Type, TypeKind};

/// Bytes of the header before an image's texels: words 0-2 level 0's extent, word 3 the
/// mip levels, words 4-11 a combined image sampler's sampler, words 12-28 each level's
/// byte offset from level 0's texels.
pub const IMAGE_HEADER_BYTES: u64 = 128;

/// Where a combined image sampler's sampler state starts in the header.
pub const SAMPLER_BYTE: u64 = 16;

/// Bytes of a sampler descriptor: its state words (filter, address mode: Vulkan's
/// `VkFilter` and `VkSamplerAddressMode` values), as at [`SAMPLER_BYTE`] of a combined
/// image sampler's header.
pub const SAMPLER_BYTES: u64 = 16;

/// Where the level offsets start in the header.
pub const LEVEL_OFFSETS_BYTE: u64 = 48;

/// The most mip levels an image has (`spirvkit_run::image::MAX_LEVELS`).
pub const MAX_LEVELS: u32 = 17;

/// How a format's components are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numeric {
    Unorm,
    Snorm,
    Float,
    Uint,
    Sint,
}

/// A storage image format: components, bits per component, numeric kind. `None`: a
/// format without a lowering yet (packed formats, 64-bit, `Unknown`).
pub fn image_format(name: &str) -> Option<(u32, u32, Numeric)> {
    use Numeric::*;
    Some(match name {
        "Rgba32f" => (4, 32, Float),
        "Rgba16f" => (4, 16, Float),
        "R32f" => (1, 32, Float),
        "Rgba8" => (4, 8, Unorm),
        "Rgba8Snorm" => (4, 8, Snorm),
        "Rg32f" => (2, 32, Float),
        "Rg16f" => (2, 16, Float),
        "R16f" => (1, 16, Float),
        "Rgba16" => (4, 16, Unorm),
        "Rg16" => (2, 16, Unorm),
        "Rg8" => (2, 8, Unorm),
        "R16" => (1, 16, Unorm),
        "R8" => (1, 8, Unorm),
        "Rgba16Snorm" => (4, 16, Snorm),
        "Rg16Snorm" => (2, 16, Snorm),
        "Rg8Snorm" => (2, 8, Snorm),
        "R16Snorm" => (1, 16, Snorm),
        "R8Snorm" => (1, 8, Snorm),
        "Rgba32i" => (4, 32, Sint),
        "Rgba16i" => (4, 16, Sint),
        "Rgba8i" => (4, 8, Sint),
        "R32i" => (1, 32, Sint),
        "Rg32i" => (2, 32, Sint),
        "Rg16i" => (2, 16, Sint),
        "Rg8i" => (2, 8, Sint),
        "R16i" => (1, 16, Sint),
        "R8i" => (1, 8, Sint),
        "Rgba32ui" => (4, 32, Uint),
        "Rgba16ui" => (4, 16, Uint),
        "Rgba8ui" => (4, 8, Uint),
        "R32ui" => (1, 32, Uint),
        "Rg32ui" => (2, 32, Uint),
        "Rg16ui" => (2, 16, Uint),
        "Rg8ui" => (2, 8, Uint),
        "R16ui" => (1, 16, Uint),
        "R8ui" => (1, 8, Uint),
        _ => return None,
    })
}

/// What a storage image type is, from its `!spirv.image` parameters (Dim, Depth,
/// Arrayed, MS, Sampled, Format).
#[derive(Clone, Copy, Debug)]
pub struct StorageImage {
    /// Coordinates (and extent values) the image takes: 1, 2 or 3.
    pub dims: u32,
    /// The last coordinate is an array layer (it keeps its extent at every level).
    pub arrayed: bool,
    pub components: u32,
    pub bits: u32,
    pub numeric: Numeric,
}

impl StorageImage {
    pub fn texel_bytes(&self) -> u64 {
        u64::from(self.components * self.bits / 8)
    }
}

/// The storage image (or sampled image read without a sampler, by `ImageFetch`) of
/// `!spirv.image` parameters `params`, in format `bound` when the type's is `Unknown`;
/// or why it is not supported yet.
pub fn storage_image(params: &[String; 6], bound: Option<&str>) -> Result<StorageImage, String> {
    let [_, _, _, _, _, format] = params;
    let dims = image_dims(params)?;
    let format = match (format.as_str(), bound) {
        ("Unknown", Some(bound)) => bound,
        (format, _) => format,
    };
    let (components, bits, numeric) =
        image_format(format).ok_or_else(|| format!("storage images of format {format}"))?;
    Ok(StorageImage { dims, arrayed: params[2] == "Arrayed", components, bits, numeric })
}

/// The coordinates a storage or sampled image, or a texel buffer, of `params` takes (1 to
/// 3), or why it is not supported yet.
pub fn image_dims(params: &[String; 6]) -> Result<u32, String> {
    let [dim, _depth, arrayed, ms, sampled, _format] = params;
    if sampled != "NoSampler" && sampled != "NeedSampler" {
        return Err("images whose use (sampled or storage) is known only at run time".into());
    }
    if ms != "SingleSampled" {
        return Err("multisampled storage images".into());
    }
    let arrayed = arrayed == "Arrayed";
    let dims = match (dim.as_str(), arrayed) {
        // A texel buffer (`Buffer`/`RWBuffer`) is a 1D image: its header's width is the
        // element count.
        ("Dim1D", false) | ("Buffer", false) => 1,
        ("Dim2D", false) | ("Dim1D", true) => 2,
        ("Dim3D", false) | ("Dim2D", true) => 3,
        _ => return Err(format!("{dim}{} storage images", if arrayed { " arrayed" } else { "" })),
    };
    Ok(dims)
}

impl Converter<'_> {
    fn image_of(&mut self, op: OpId) -> Result<StorageImage, ConvertError> {
        let image = self.ir.op(op).operands[0];
        let ty = self.ir.value_type(image);
        let ty = match self.ir.types.kind(ty) {
            TypeKind::SampledImage(image) => *image,
            _ => ty,
        };
        let TypeKind::Image { params, .. } = self.ir.types.kind(ty).clone() else {
            return Err(self.illegal(op));
        };
        // An `Unknown` format is the run's: found through the variable the image was loaded
        // from (through `spirv.Image` of a combined image sampler).
        let mut image = image;
        while let Some(def) = super::defining_op(self.ir, image) {
            if !matches!(self.ir.op(def).name.as_str(), "spirv.Image" | "spirv.SampledImage") {
                break;
            }
            image = self.ir.op(def).operands[0];
        }
        let bound = match super::defining_op(self.ir, image) {
            Some(load) if self.ir.op(load).name == "spirv.Load" => {
                match super::defining_op(self.ir, self.ir.op(load).operands[0]) {
                    Some(address) => match self.ir.op(address).attr("variable") {
                        Some(Attribute::SymbolRef(path)) => path
                            .last()
                            .and_then(|name| self.image_formats_by_symbol.get(name.as_str()))
                            .cloned(),
                        _ => None,
                    },
                    None => None,
                }
            }
            _ => None,
        };
        storage_image(&params, bound.as_deref())
            .map_err(|what| self.error(op, format!("not supported yet: {what}")))
    }

    fn fm_props() -> Vec<(&'static str, Attribute)> {
        vec![("fastmathFlags", Converter::fastmath_none())]
    }

    fn raw_gep(&mut self, base: Value, offset: Value) -> Value {
        let i8t = self.int_type(8);
        let i32t = self.int_type(32);
        let ptr = self.ir.value_type(base);
        let props = vec![
            ("elem_type", Attribute::Type(i8t)),
            ("noWrapFlags", self.int_attr(0, 32)),
            (
                "rawConstantIndices",
                Attribute::DenseArray {
                    element: i32t,
                    values: vec![Attribute::Integer { value: i128::from(i32::MIN), ty: i32t }],
                },
            ),
        ];
        self.emit_value("llvm.getelementptr", vec![base, offset], ptr, props)
    }

    /// Component `i` of an integer coordinate scalar or vector, as i64 (negative values
    /// become huge: out of range).
    fn coordinate(&mut self, coords: Value, i: u32) -> Value {
        let ty = self.ir.value_type(coords);
        let i32t = self.int_type(32);
        let i64t = self.int_type(64);
        let c = match self.ir.types.kind(ty) {
            TypeKind::Vector { .. } => {
                let element = self.ir.types.scalar_of(ty);
                let index = self.const_int(i128::from(i), 32);
                let v = self.emit_value("llvm.extractelement", vec![coords, index], element, vec![]);
                self.adapt_int(v, i32t)
            }
            _ => self.adapt_int(coords, i32t),
        };
        self.emit_value("llvm.zext", vec![c], i64t, vec![])
    }

    fn adapt_int(&mut self, v: Value, to: Type) -> Value {
        let from = self.ir.value_type(v);
        let (fw, tw) = (self.int_bits(from), self.int_bits(to));
        match fw.cmp(&tw) {
            std::cmp::Ordering::Equal => v,
            std::cmp::Ordering::Less => self.emit_value("llvm.zext", vec![v], to, vec![]),
            std::cmp::Ordering::Greater => {
                let props = vec![("overflowFlags", self.int_attr(0, 32))];
                self.emit_value("llvm.trunc", vec![v], to, props)
            }
        }
    }

    fn int_bits(&self, ty: Type) -> u32 {
        match self.ir.types.kind(ty) {
            TypeKind::Integer { width, .. } => *width,
            _ => 32,
        }
    }

    fn arith(&mut self, name: &str, a: Value, b: Value) -> Value {
        let ty = self.ir.value_type(a);
        let props = vec![("overflowFlags", self.int_attr(0, 32))];
        self.emit_value(name, vec![a, b], ty, props)
    }

    /// The extent value `i` of the image at `base` (header word i), as i32.
    fn extent(&mut self, base: Value, i: u32) -> Value {
        let i32t = self.int_type(32);
        let offset = self.const_int(i128::from(i) * 4, 64);
        let at = self.raw_gep(base, offset);
        let props = vec![("alignment", self.int_attr(4, 64)), ("ordering", self.int_attr(0, 64))];
        self.emit_value("llvm.load", vec![at], i32t, props)
    }

    /// The address of the texel at `coords` of level `lod` (level 0 when `None`), or past
    /// any descriptor's end when a coordinate or the level is out of range.
    fn texel_address(
        &mut self,
        base: Value,
        coords: Value,
        image: StorageImage,
        lod: Option<Value>,
    ) -> Value {
        let i32t = self.int_type(32);
        let i64t = self.int_type(64);
        let i1 = self.int_type(1);
        let ult = self.int_attr(6, 64);
        let mut index = self.const_int(0, 64);
        let mut in_range: Option<Value> = None;
        // The level's place: its number checked against the image's levels, its offset
        // from the header's table (at a clamped index, so the load stays in the header).
        let level = lod.map(|lod| {
            let lod = self.adapt_int(lod, i32t);
            let levels = self.extent(base, 3);
            let ok = self.emit_value("llvm.icmp", vec![lod, levels], i1, vec![("predicate", ult.clone())]);
            in_range = Some(ok);
            let last = self.const_int(i128::from(MAX_LEVELS - 1), 32);
            let clamped = self.emit_value("llvm.intr.umin", vec![lod, last], i32t, vec![]);
            let wide = self.emit_value("llvm.zext", vec![clamped], i64t, vec![]);
            let four = self.const_int(4, 64);
            let table = self.const_int(i128::from(LEVEL_OFFSETS_BYTE), 64);
            let at = self.arith("llvm.mul", wide, four);
            let at = self.arith("llvm.add", at, table);
            let at = self.raw_gep(base, at);
            let props = vec![("alignment", self.int_attr(4, 64)), ("ordering", self.int_attr(0, 64))];
            let offset = self.emit_value("llvm.load", vec![at], i32t, props);
            (clamped, self.emit_value("llvm.zext", vec![offset], i64t, vec![]))
        });
        // index = x + w * (y + h * z), built from the last dimension down.
        for i in (0..image.dims).rev() {
            let c = self.coordinate(coords, i);
            let e = self.extent(base, i);
            let is_layer = image.arrayed && i + 1 == image.dims;
            let e = match level {
                // Level l is max(1, e >> l) wide (the clamped level is below 32).
                Some((level, _)) if !is_layer => {
                    let shifted = self.emit_value("llvm.lshr", vec![e, level], i32t, vec![]);
                    let one = self.const_int(1, 32);
                    self.emit_value("llvm.intr.umax", vec![shifted, one], i32t, vec![])
                }
                _ => e,
            };
            let e = self.emit_value("llvm.zext", vec![e], i64t, vec![]);
            let ult = self.emit_value("llvm.icmp", vec![c, e], i1, vec![("predicate", ult.clone())]);
            in_range = Some(match in_range {
                Some(ok) => self.emit_value("llvm.and", vec![ok, ult], i1, vec![]),
                None => ult,
            });
            let scaled = self.arith("llvm.mul", index, e);
            index = self.arith("llvm.add", scaled, c);
        }
        let texel = self.const_int(i128::from(image.texel_bytes()), 64);
        let bytes = self.arith("llvm.mul", index, texel);
        let bytes = match level {
            Some((_, level_offset)) => self.arith("llvm.add", bytes, level_offset),
            None => bytes,
        };
        let header = self.const_int(i128::from(IMAGE_HEADER_BYTES), 64);
        let offset = self.arith("llvm.add", bytes, header);
        // Out of range: an offset no descriptor reaches (the kernel pass then reads zero
        // and drops the write).
        let outside = self.const_int(i128::from(i64::MAX / 2), 64);
        let ok = in_range.expect("at least one dimension");
        let offset = self.emit_value("llvm.select", vec![ok, offset, outside], i64t, Converter::fm_props());
        self.raw_gep(base, offset)
    }

    fn stored_type(&mut self, image: StorageImage) -> (Type, Type) {
        let element = match image.numeric {
            Numeric::Float if image.bits == 16 => self.ir.types.intern(TypeKind::Float(FloatKind::F16)),
            Numeric::Float => self.ir.types.intern(TypeKind::Float(FloatKind::F32)),
            _ => self.int_type(image.bits),
        };
        let ty = if image.components == 1 {
            element
        } else {
            self.ir.types.intern(TypeKind::Vector {
                shape: vec![u64::from(image.components)],
                scalable: vec![false],
                element,
            })
        };
        (ty, element)
    }

    pub(crate) fn lower_image_read(&mut self, op: OpId) -> Result<(), ConvertError> {
        let image = self.image_of(op)?;
        let operands = self.operands(op)?;
        let (&[base, coords], rest) = operands.split_at(2.min(operands.len())) else {
            return Err(self.illegal(op));
        };
        // `Lod` (ImageFetch of a sampled image): the level read; no other operand yet.
        let names = image_operand_names(self.ir, op);
        let lod = match (names.as_slice(), rest) {
            ([], []) => None,
            ([lod], &[value]) if lod == "Lod" && self.ir.op(op).name == "spirv.ImageFetch" => Some(value),
            _ => {
                return Err(self.error(
                    op,
                    format!(
                        "not supported yet: image operands {} on {}",
                        names.join("|"),
                        self.ir.op(op).name
                    ),
                ))
            }
        };
        let result = self.result_type(op, 0)?;
        let v = self.fetch_texel(base, coords, image, lod, result);
        self.replace(op, v);
        Ok(())
    }

    /// The texel at integer `coords` of level `lod` (0 when `None`) as a `result` value:
    /// converted from the format, components it lacks 0 (alpha 1), zero out of range.
    fn fetch_texel(
        &mut self,
        base: Value,
        coords: Value,
        image: StorageImage,
        lod: Option<Value>,
        result: Type,
    ) -> Value {
        let out_element = self.ir.types.scalar_of(result);
        let out_count = match self.ir.types.kind(result) {
            TypeKind::Vector { shape, .. } => shape.iter().product::<u64>() as u32,
            _ => 1,
        };
        let address = self.texel_address(base, coords, image, lod);
        let (stored, element) = self.stored_type(image);
        let props = vec![("alignment", self.int_attr(1, 64)), ("ordering", self.int_attr(0, 64))];
        let texel = self.emit_value("llvm.load", vec![address], stored, props);
        let out_is_float = matches!(self.ir.types.kind(out_element), TypeKind::Float(_));
        let mut value = if out_count == 1 { None } else { Some(self.const_of_type(result, 0, 0.0)) };
        let mut scalar_result = None;
        for i in 0..out_count {
            let component = if i < image.components {
                let c = if image.components == 1 {
                    texel
                } else {
                    let index = self.const_int(i128::from(i), 32);
                    self.emit_value("llvm.extractelement", vec![texel, index], element, vec![])
                };
                self.texel_to_value(c, image, out_element)
            } else if i == 3 {
                self.const_of_type(out_element, 1, 1.0)
            } else {
                self.const_of_type(out_element, 0, 0.0)
            };
            let _ = out_is_float;
            match value {
                Some(v) => {
                    let index = self.const_int(i128::from(i), 32);
                    value = Some(self.emit_value(
                        "llvm.insertelement",
                        vec![v, component, index],
                        result,
                        vec![],
                    ));
                }
                None => scalar_result = Some(component),
            }
        }
        value.or(scalar_result).expect("one component at least")
    }

    /// A stored component as the shader sees it (`to`: f32, f16 or an integer type).
    fn texel_to_value(&mut self, c: Value, image: StorageImage, to: Type) -> Value {
        let f32t = self.ir.types.intern(TypeKind::Float(FloatKind::F32));
        let as_float = match image.numeric {
            Numeric::Unorm | Numeric::Snorm => {
                let signed = image.numeric == Numeric::Snorm;
                let max = if signed { (1i64 << (image.bits - 1)) - 1 } else { (1i64 << image.bits) - 1 };
                let name = if signed { "llvm.sitofp" } else { "llvm.uitofp" };
                let f = self.emit_value(name, vec![c], f32t, vec![]);
                let reciprocal = self.const_of_type(f32t, 0, f64::from(1.0f32 / max as f32));
                let scaled = self.emit_value("llvm.fmul", vec![f, reciprocal], f32t, Converter::fm_props());
                if signed {
                    let minus_one = self.const_of_type(f32t, 0, -1.0);
                    self.emit_value("llvm.intr.maxnum", vec![scaled, minus_one], f32t, Converter::fm_props())
                } else {
                    scaled
                }
            }
            Numeric::Float => c,
            Numeric::Uint | Numeric::Sint => {
                let to_bits = self.int_bits(to);
                let from_bits = self.int_bits(self.ir.value_type(c));
                if !matches!(self.ir.types.kind(to), TypeKind::Integer { .. }) {
                    return c;
                }
                return match from_bits.cmp(&to_bits) {
                    std::cmp::Ordering::Equal => c,
                    std::cmp::Ordering::Less => {
                        let name = if image.numeric == Numeric::Sint { "llvm.sext" } else { "llvm.zext" };
                        self.emit_value(name, vec![c], to, vec![])
                    }
                    std::cmp::Ordering::Greater => {
                        let props = vec![("overflowFlags", self.int_attr(0, 32))];
                        self.emit_value("llvm.trunc", vec![c], to, props)
                    }
                };
            }
        };
        self.float_to(as_float, to)
    }

    fn float_bits(&self, ty: Type) -> Option<u32> {
        match self.ir.types.kind(ty) {
            TypeKind::Float(FloatKind::F16) => Some(16),
            TypeKind::Float(FloatKind::F32) => Some(32),
            TypeKind::Float(FloatKind::F64) => Some(64),
            _ => None,
        }
    }

    fn float_to(&mut self, v: Value, to: Type) -> Value {
        let from = self.ir.value_type(v);
        match (self.float_bits(from), self.float_bits(to)) {
            (Some(a), Some(b)) if a < b => self.emit_value("llvm.fpext", vec![v], to, vec![]),
            (Some(a), Some(b)) if a > b => self.emit_value("llvm.fptrunc", vec![v], to, vec![]),
            _ => v,
        }
    }

    pub(crate) fn lower_image_write(&mut self, op: OpId) -> Result<(), ConvertError> {
        let image = self.image_of(op)?;
        if self.ir.op(op).operands.len() != 3 {
            return Err(self.error(op, "not supported yet: image operands on spirv.ImageWrite"));
        }
        let operands = self.operands(op)?;
        let [base, coords, texel] = operands[..] else { return Err(self.illegal(op)) };
        let texel_ty = self.ir.value_type(texel);
        let in_element = self.ir.types.scalar_of(texel_ty);
        let in_count = match self.ir.types.kind(texel_ty) {
            TypeKind::Vector { shape, .. } => shape.iter().product::<u64>() as u32,
            _ => 1,
        };
        let (stored, element) = self.stored_type(image);
        let mut packed = if image.components == 1 { None } else { Some(self.const_of_type(stored, 0, 0.0)) };
        let mut scalar = None;
        for i in 0..image.components {
            let c = if i < in_count {
                if in_count == 1 {
                    texel
                } else {
                    let index = self.const_int(i128::from(i), 32);
                    self.emit_value("llvm.extractelement", vec![texel, index], in_element, vec![])
                }
            } else {
                self.const_of_type(in_element, 0, 0.0)
            };
            let c = self.value_to_texel(c, image, element);
            match packed {
                Some(p) => {
                    let index = self.const_int(i128::from(i), 32);
                    packed = Some(self.emit_value("llvm.insertelement", vec![p, c, index], stored, vec![]));
                }
                None => scalar = Some(c),
            }
        }
        let value = packed.or(scalar).expect("one component at least");
        let address = self.texel_address(base, coords, image, None);
        let props = vec![("alignment", self.int_attr(1, 64)), ("ordering", self.int_attr(0, 64))];
        self.emit("llvm.store", vec![value, address], &[], props);
        Ok(())
    }

    /// A shader value as a stored component (`element`: the format's component type).
    fn value_to_texel(&mut self, c: Value, image: StorageImage, element: Type) -> Value {
        let f32t = self.ir.types.intern(TypeKind::Float(FloatKind::F32));
        match image.numeric {
            Numeric::Unorm | Numeric::Snorm => {
                let signed = image.numeric == Numeric::Snorm;
                let c = self.float_to(c, f32t);
                let max = if signed { (1i64 << (image.bits - 1)) - 1 } else { (1i64 << image.bits) - 1 };
                let low = self.const_of_type(f32t, 0, if signed { -1.0 } else { 0.0 });
                let one = self.const_of_type(f32t, 0, 1.0);
                // maxnum(NaN, low) is low: NaN stores as 0 (unorm) or -max (snorm)... Vulkan
                // leaves NaN undefined; lavapipe stores 0 for unorm.
                let clamped = self.emit_value("llvm.intr.maxnum", vec![c, low], f32t, Converter::fm_props());
                let clamped =
                    self.emit_value("llvm.intr.minnum", vec![clamped, one], f32t, Converter::fm_props());
                let scale = self.const_of_type(f32t, 0, max as f64);
                let scaled = self.emit_value("llvm.fmul", vec![clamped, scale], f32t, Converter::fm_props());
                let rounded =
                    self.emit_value("llvm.intr.roundeven", vec![scaled], f32t, Converter::fm_props());
                let name = if signed { "llvm.fptosi" } else { "llvm.fptoui" };
                self.emit_value(name, vec![rounded], element, vec![])
            }
            Numeric::Float => {
                let c = self.float_to(c, f32t);
                if image.bits == 16 {
                    // Rounded toward zero (so finite values beyond half's range become its
                    // largest finite value), as lavapipe: the nearest half, stepped one unit
                    // toward zero when it lies farther from zero than the value.
                    let nearest = self.emit_value("llvm.fptrunc", vec![c], element, vec![]);
                    let back = self.emit_value("llvm.fpext", vec![nearest], f32t, vec![]);
                    let back_abs = self.emit_value("llvm.intr.fabs", vec![back], f32t, Converter::fm_props());
                    let abs = self.emit_value("llvm.intr.fabs", vec![c], f32t, Converter::fm_props());
                    let i1 = self.int_type(1);
                    let farther = self.emit_value(
                        "llvm.fcmp",
                        vec![back_abs, abs],
                        i1,
                        vec![
                            ("fastmathFlags", Converter::fastmath_none()),
                            ("predicate", self.int_attr(2, 64)),
                        ],
                    );
                    let i16t = self.int_type(16);
                    let bits = self.emit_value("llvm.bitcast", vec![nearest], i16t, vec![]);
                    let one = self.const_int(1, 16);
                    let smaller = self.arith("llvm.sub", bits, one);
                    let smaller = self.emit_value("llvm.bitcast", vec![smaller], element, vec![]);
                    self.emit_value(
                        "llvm.select",
                        vec![farther, smaller, nearest],
                        element,
                        Converter::fm_props(),
                    )
                } else {
                    c
                }
            }
            Numeric::Uint | Numeric::Sint => {
                if !matches!(self.ir.types.kind(self.ir.value_type(c)), TypeKind::Integer { .. }) {
                    let name = if image.numeric == Numeric::Sint { "llvm.fptosi" } else { "llvm.fptoui" };
                    return self.emit_value(name, vec![c], element, vec![]);
                }
                self.adapt_int(c, element)
            }
        }
    }

    /// `ImageQueryLevels`: the header's level count.
    pub(crate) fn lower_image_query_levels(&mut self, op: OpId) -> Result<(), ConvertError> {
        self.image_of(op)?;
        let operands = self.operands(op)?;
        let result = self.result_type(op, 0)?;
        let levels = self.extent(operands[0], 3);
        let levels = self.adapt_int(levels, result);
        self.replace(op, levels);
        Ok(())
    }

    /// `ImageQuerySize`, and `ImageQuerySizeLod` (operand 1 the level): level 0's extent
    /// is the header's; level `lod` is `max(1, extent >> lod)` in each dimension but the
    /// array layers, as Vulkan's mip chain is defined (a level the image lacks is
    /// undefined in SPIR-V).
    pub(crate) fn lower_image_query_size(&mut self, op: OpId) -> Result<(), ConvertError> {
        let image = self.image_of(op)?;
        let arrayed = match self.ir.types.kind(self.ir.value_type(self.ir.op(op).operands[0])) {
            TypeKind::Image { params, .. } => params[2] == "Arrayed",
            _ => false,
        };
        let operands = self.operands(op)?;
        let base = operands[0];
        let lod = if self.ir.op(op).name == "spirv.ImageQuerySizeLod" {
            let Some(&lod) = operands.get(1) else { return Err(self.illegal(op)) };
            Some(lod)
        } else {
            None
        };
        let result = self.result_type(op, 0)?;
        let element = self.ir.types.scalar_of(result);
        let mut value = if image.dims == 1 { None } else { Some(self.const_of_type(result, 0, 0.0)) };
        let mut scalar = None;
        for i in 0..image.dims {
            let e = self.extent(base, i);
            let e = self.adapt_int(e, element);
            let is_layer = arrayed && i + 1 == image.dims;
            let e = match lod {
                Some(lod) if !is_layer => {
                    // A shift by the width or more is poison: levels past 31 are 1 wide.
                    let lod = self.adapt_int(lod, element);
                    let last = self.const_of_type(element, i128::from(self.int_bits(element)) - 1, 0.0);
                    let lod = self.emit_value("llvm.intr.umin", vec![lod, last], element, vec![]);
                    let shifted = self.emit_value("llvm.lshr", vec![e, lod], element, vec![]);
                    let one = self.const_of_type(element, 1, 0.0);
                    self.emit_value("llvm.intr.umax", vec![shifted, one], element, vec![])
                }
                _ => e,
            };
            match value {
                Some(v) => {
                    let index = self.const_int(i128::from(i), 32);
                    value = Some(self.emit_value("llvm.insertelement", vec![v, e, index], result, vec![]));
                }
                None => scalar = Some(e),
            }
        }
        let v = value.or(scalar).expect("one dimension at least");
        self.replace(op, v);
        Ok(())
    }
}

/// The names in an image instruction's `image_operands` property (`["Lod"]`), none for
/// `None` or no property.
fn image_operand_names(ir: &spirvkit_ir::ir::Ir, op: OpId) -> Vec<String> {
    let Some(property) = ir.op(op).properties.iter().find(|p| p.name == "image_operands") else {
        return Vec::new();
    };
    match &property.value {
        Attribute::Dialect { body: Some(body), .. } => body
            .split('|')
            .map(str::trim)
            .filter(|n| !n.is_empty() && *n != "None")
            .map(String::from)
            .collect(),
        _ => vec!["(unreadable)".into()],
    }
}

/// `VkSamplerAddressMode` values in a sampler's state.
const ADDRESS_REPEAT: i128 = 0;
const ADDRESS_MIRRORED_REPEAT: i128 = 1;
const ADDRESS_CLAMP_TO_EDGE: i128 = 2;

/// `icmp` predicates.
const EQ: i128 = 0;
const SLT: i128 = 2;

impl Converter<'_> {
    /// `spirv.SampledImage`: the sampled image is its image's memory; the sampler is
    /// found again from this op by the sampling instruction.
    pub(crate) fn lower_sampled_image(&mut self, op: OpId) -> Result<(), ConvertError> {
        let operands = self.operands(op)?;
        let [image, _sampler] = operands[..] else { return Err(self.illegal(op)) };
        self.replace(op, image);
        Ok(())
    }

    /// The address of the sampler state of the sampled image operand of `op`: the
    /// sampler given to `spirv.SampledImage`, or a combined image sampler's own.
    fn sampler_state(&mut self, op: OpId, image_base: Value) -> Result<Value, ConvertError> {
        let sampled = self.ir.op(op).operands[0];
        match super::defining_op(self.ir, sampled) {
            Some(def)
                if self.ir.op(def).name == "spirv.SampledImage" && self.ir.op(def).operands.len() == 2 =>
            {
                let sampler = self.ir.op(def).operands[1];
                self.value(sampler)
            }
            Some(def) if self.ir.op(def).name == "spirv.Load" => {
                let offset = self.const_int(i128::from(SAMPLER_BYTE), 64);
                Ok(self.raw_gep(image_base, offset))
            }
            _ => Err(self.error(op, "not supported yet: sampling an image whose sampler cannot be found")),
        }
    }

    fn int_compare(&mut self, predicate: i128, a: Value, b: Value) -> Value {
        let i1 = self.int_type(1);
        self.emit_value("llvm.icmp", vec![a, b], i1, vec![("predicate", self.int_attr(predicate, 64))])
    }

    fn select(&mut self, condition: Value, a: Value, b: Value) -> Value {
        let ty = self.ir.value_type(a);
        self.emit_value("llvm.select", vec![condition, a, b], ty, Converter::fm_props())
    }

    fn float_op(&mut self, name: &str, args: Vec<Value>) -> Value {
        let ty = self.ir.value_type(args[0]);
        self.emit_value(name, args, ty, Converter::fm_props())
    }

    /// A float as an i32 after clamping it to +-2^30 (NaN to the low end), so the
    /// conversion is never poison.
    fn float_to_index(&mut self, f: Value) -> Value {
        let f32t = self.ir.types.intern(TypeKind::Float(FloatKind::F32));
        let i32t = self.int_type(32);
        let low = self.const_of_type(f32t, 0, -1_073_741_824.0);
        let high = self.const_of_type(f32t, 0, 1_073_741_824.0);
        let f = self.float_op("llvm.intr.maxnum", vec![f, low]);
        let f = self.float_op("llvm.intr.minnum", vec![f, high]);
        self.emit_value("llvm.fptosi", vec![f], i32t, vec![])
    }

    /// Integer coordinate `i` of a level `n` texels wide under address mode `mode`.
    /// Clamp to border keeps `i`: outside `[0, n)` it reads as out of range, zero in the
    /// format's components (those it lacks 0, alpha 1), as lavapipe's transparent black
    /// border reads.
    fn wrap(&mut self, i: Value, n: Value, mode: Value) -> Value {
        let zero = self.const_int(0, 32);
        let one = self.const_int(1, 32);
        // Repeat: i mod n, in [0, n).
        let r = self.emit_value("llvm.srem", vec![i, n], self.ir.value_type(i), vec![]);
        let negative = self.int_compare(SLT, r, zero);
        let shifted = self.arith("llvm.add", r, n);
        let repeat = self.select(negative, shifted, r);
        // Mirrored repeat: i mod 2n folded back from n.
        let n2 = self.arith("llvm.add", n, n);
        let m = self.emit_value("llvm.srem", vec![i, n2], self.ir.value_type(i), vec![]);
        let negative = self.int_compare(SLT, m, zero);
        let shifted = self.arith("llvm.add", m, n2);
        let m = self.select(negative, shifted, m);
        let below = self.int_compare(SLT, m, n);
        let last = self.arith("llvm.sub", n2, one);
        let folded = self.arith("llvm.sub", last, m);
        let mirrored = self.select(below, m, folded);
        // Clamp to edge.
        let i32t = self.int_type(32);
        let n1 = self.arith("llvm.sub", n, one);
        let edge = self.emit_value("llvm.intr.smax", vec![i, zero], i32t, vec![]);
        let edge = self.emit_value("llvm.intr.smin", vec![edge, n1], i32t, vec![]);
        let modes =
            [(ADDRESS_REPEAT, repeat), (ADDRESS_MIRRORED_REPEAT, mirrored), (ADDRESS_CLAMP_TO_EDGE, edge)];
        let mut out = i;
        for (code, v) in modes.into_iter().rev() {
            let code = self.const_int(code, 32);
            let is = self.int_compare(EQ, mode, code);
            out = self.select(is, v, out);
        }
        out
    }

    /// `spirv.ImageSampleExplicitLod` with `Lod` on a 1D, 2D or 3D image: Vulkan's
    /// nearest or linear filtering (the sampler's filter for magnification and
    /// minification), nearest mip level `clamp(ceil(lod + 0.5) - 1, 0, levels - 1)`,
    /// the sampler's address mode on every coordinate, a transparent black border. Linear
    /// filtering sums in float32 in corner order; lavapipe may differ in the last bits
    /// (and quantizes the weights of 8-bit formats to 8 bits).
    pub(crate) fn lower_image_sample_lod(&mut self, op: OpId) -> Result<(), ConvertError> {
        let image = self.image_of(op)?;
        if image.arrayed {
            return Err(self.error(op, "not supported yet: sampling image arrays"));
        }
        let names = image_operand_names(self.ir, op);
        let operands = self.operands(op)?;
        let [base, coords, lod] = operands[..] else {
            return Err(self.error(
                op,
                format!(
                    "not supported yet: image operands {} on spirv.ImageSampleExplicitLod",
                    names.join("|")
                ),
            ));
        };
        if names != ["Lod"] {
            return Err(self.error(
                op,
                format!(
                    "not supported yet: image operands {} on spirv.ImageSampleExplicitLod",
                    names.join("|")
                ),
            ));
        }
        let result = self.result_type(op, 0)?;
        let f32t = self.ir.types.intern(TypeKind::Float(FloatKind::F32));
        if self.ir.types.scalar_of(result) != f32t
            || self.ir.types.scalar_of(self.ir.value_type(coords)) != f32t
        {
            return Err(
                self.error(op, "not supported yet: sampling other than 32-bit float coordinates and texels")
            );
        }
        let state = self.sampler_state(op, base)?;
        let i32t = self.int_type(32);
        let load_word = |this: &mut Self, at: u64| {
            let offset = this.const_int(i128::from(at), 64);
            let p = this.raw_gep(state, offset);
            let props = vec![("alignment", this.int_attr(4, 64)), ("ordering", this.int_attr(0, 64))];
            this.emit_value("llvm.load", vec![p], i32t, props)
        };
        let filter = load_word(self, 0);
        let mode = load_word(self, 4);
        // The level: nearest, clamped to the image's.
        let zero_f = self.const_of_type(f32t, 0, 0.0);
        let half = self.const_of_type(f32t, 0, 0.5);
        let lod = self.float_to(lod, f32t);
        let l = self.float_op("llvm.intr.maxnum", vec![lod, zero_f]);
        let l = self.float_op("llvm.fadd", vec![l, half]);
        let l = self.float_op("llvm.intr.ceil", vec![l]);
        let level = self.float_to_index(l);
        let one = self.const_int(1, 32);
        let level = self.arith("llvm.sub", level, one);
        let levels = self.extent(base, 3);
        let last = self.arith("llvm.sub", levels, one);
        let level = self.emit_value("llvm.intr.smin", vec![level, last], i32t, vec![]);
        let zero = self.const_int(0, 32);
        let level = self.emit_value("llvm.intr.smax", vec![level, zero], i32t, vec![]);
        // Per dimension: the level's extent, the nearest texel, the two linear ones and
        // the weight of the second.
        let thirty_one = self.const_int(31, 32);
        let shift = self.emit_value("llvm.intr.umin", vec![level, thirty_one], i32t, vec![]);
        let mut nearest = Vec::new();
        let mut linear = Vec::new();
        for d in 0..image.dims {
            let u = if image.dims == 1
                && !matches!(self.ir.types.kind(self.ir.value_type(coords)), TypeKind::Vector { .. })
            {
                coords
            } else {
                let index = self.const_int(i128::from(d), 32);
                self.emit_value("llvm.extractelement", vec![coords, index], f32t, vec![])
            };
            let e = self.extent(base, d);
            let e = self.emit_value("llvm.lshr", vec![e, shift], i32t, vec![]);
            let n = self.emit_value("llvm.intr.umax", vec![e, one], i32t, vec![]);
            let nf = self.emit_value("llvm.uitofp", vec![n], f32t, vec![]);
            let scaled = self.float_op("llvm.fmul", vec![u, nf]);
            let floor = self.float_op("llvm.intr.floor", vec![scaled]);
            let i = self.float_to_index(floor);
            nearest.push(self.wrap(i, n, mode));
            let t = self.float_op("llvm.fsub", vec![scaled, half]);
            let floor = self.float_op("llvm.intr.floor", vec![t]);
            let alpha = self.float_op("llvm.fsub", vec![t, floor]);
            let i0 = self.float_to_index(floor);
            let i1 = self.arith("llvm.add", i0, one);
            let w0 = self.wrap(i0, n, mode);
            let w1 = self.wrap(i1, n, mode);
            linear.push((w0, w1, alpha));
        }
        let fetch = |this: &mut Self, taps: &[Value]| -> Value {
            let coords = if taps.len() == 1 {
                taps[0]
            } else {
                let ty = this.ir.types.intern(TypeKind::Vector {
                    shape: vec![taps.len() as u64],
                    scalable: vec![false],
                    element: i32t,
                });
                let mut v = this.const_of_type(ty, 0, 0.0);
                for (k, c) in taps.iter().enumerate() {
                    let index = this.const_int(k as i128, 32);
                    v = this.emit_value("llvm.insertelement", vec![v, *c, index], ty, vec![]);
                }
                v
            };
            this.fetch_texel(base, coords, image, Some(level), result)
        };
        let nearest_texel = fetch(self, &nearest);
        // Linear: the weighted sum of the 2^dims texels around the point.
        let one_f = self.const_of_type(f32t, 0, 1.0);
        let mut sum: Option<Value> = None;
        for corner in 0..(1u32 << image.dims) {
            let mut taps = Vec::new();
            let mut weight: Option<Value> = None;
            for (d, &(w0, w1, alpha)) in linear.iter().enumerate() {
                let high = corner >> d & 1 == 1;
                taps.push(if high { w1 } else { w0 });
                let w = if high { alpha } else { self.float_op("llvm.fsub", vec![one_f, alpha]) };
                weight = Some(match weight {
                    Some(acc) => self.float_op("llvm.fmul", vec![acc, w]),
                    None => w,
                });
            }
            let texel = fetch(self, &taps);
            let weight = weight.expect("one dimension at least");
            let splat = self.splat(weight, result);
            let term = self.float_op("llvm.fmul", vec![splat, texel]);
            sum = Some(match sum {
                Some(acc) => self.float_op("llvm.fadd", vec![acc, term]),
                None => term,
            });
        }
        let linear_texel = sum.expect("one corner at least");
        let linear_code = self.const_int(1, 32);
        let is_linear = self.int_compare(EQ, filter, linear_code);
        let v = self.select(is_linear, linear_texel, nearest_texel);
        self.replace(op, v);
        Ok(())
    }
}
