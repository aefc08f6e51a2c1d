//! Storage images as `spirvkit run` binds them: SPIR-V's image formats (the enumerant,
//! its name, the texel's layout and how its components convert), and an image's shape
//! (dimensionality, extent). Texel data is tightly packed: x fastest, then y, then z or the
//! array layer.

use crate::elem::ElemType;
use std::fmt;

/// How a format's components are stored and what a shader reads from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Numeric {
    /// Unsigned normalized: stored integers read as [0, 1] floats.
    Unorm,
    /// Signed normalized: stored integers read as [-1, 1] floats.
    Snorm,
    /// IEEE floats (16 or 32 bits).
    Float,
    Uint,
    Sint,
}

macro_rules! image_formats {
    ($($variant:ident = $code:literal, $name:literal, $components:literal, $bits:literal, $numeric:ident;)*) => {
        /// A SPIR-V image format (`ImageFormat` enumerant) `spirvkit run` can bind: every
        /// format of one to four components of 8, 16 or 32 bits (the packed ones, such as
        /// `R11fG11fB10f` or `Rgb10A2`, and the 64-bit ones are not supported yet).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ImageFormat {
            $($variant,)*
        }

        impl ImageFormat {
            pub const ALL: &'static [ImageFormat] = &[$(ImageFormat::$variant,)*];

            /// The SPIR-V enumerant's value.
            pub fn spirv(self) -> u32 {
                match self { $(ImageFormat::$variant => $code,)* }
            }

            /// The SPIR-V enumerant's name (`Rgba8`, `R32f`).
            pub fn name(self) -> &'static str {
                match self { $(ImageFormat::$variant => $name,)* }
            }

            /// Components per texel (1 to 4).
            pub fn components(self) -> u32 {
                match self { $(ImageFormat::$variant => $components,)* }
            }

            /// Bits per component (8, 16 or 32).
            pub fn component_bits(self) -> u32 {
                match self { $(ImageFormat::$variant => $bits,)* }
            }

            pub fn numeric(self) -> Numeric {
                match self { $(ImageFormat::$variant => Numeric::$numeric,)* }
            }
        }
    };
}

image_formats! {
    Rgba32f = 1, "Rgba32f", 4, 32, Float;
    Rgba16f = 2, "Rgba16f", 4, 16, Float;
    R32f = 3, "R32f", 1, 32, Float;
    Rgba8 = 4, "Rgba8", 4, 8, Unorm;
    Rgba8Snorm = 5, "Rgba8Snorm", 4, 8, Snorm;
    Rg32f = 6, "Rg32f", 2, 32, Float;
    Rg16f = 7, "Rg16f", 2, 16, Float;
    R16f = 9, "R16f", 1, 16, Float;
    Rgba16 = 10, "Rgba16", 4, 16, Unorm;
    Rg16 = 12, "Rg16", 2, 16, Unorm;
    Rg8 = 13, "Rg8", 2, 8, Unorm;
    R16 = 14, "R16", 1, 16, Unorm;
    R8 = 15, "R8", 1, 8, Unorm;
    Rgba16Snorm = 16, "Rgba16Snorm", 4, 16, Snorm;
    Rg16Snorm = 17, "Rg16Snorm", 2, 16, Snorm;
    Rg8Snorm = 18, "Rg8Snorm", 2, 8, Snorm;
    R16Snorm = 19, "R16Snorm", 1, 16, Snorm;
    R8Snorm = 20, "R8Snorm", 1, 8, Snorm;
    Rgba32i = 21, "Rgba32i", 4, 32, Sint;
    Rgba16i = 22, "Rgba16i", 4, 16, Sint;
    Rgba8i = 23, "Rgba8i", 4, 8, Sint;
    R32i = 24, "R32i", 1, 32, Sint;
    Rg32i = 25, "Rg32i", 2, 32, Sint;
    Rg16i = 26, "Rg16i", 2, 16, Sint;
    Rg8i = 27, "Rg8i", 2, 8, Sint;
    R16i = 28, "R16i", 1, 16, Sint;
    R8i = 29, "R8i", 1, 8, Sint;
    Rgba32ui = 30, "Rgba32ui", 4, 32, Uint;
    Rgba16ui = 31, "Rgba16ui", 4, 16, Uint;
    Rgba8ui = 32, "Rgba8ui", 4, 8, Uint;
    R32ui = 33, "R32ui", 1, 32, Uint;
    Rg32ui = 35, "Rg32ui", 2, 32, Uint;
    Rg16ui = 36, "Rg16ui", 2, 16, Uint;
    Rg8ui = 37, "Rg8ui", 2, 8, Uint;
    R16ui = 38, "R16ui", 1, 16, Uint;
    R8ui = 39, "R8ui", 1, 8, Uint;
}

impl ImageFormat {
    /// The format of SPIR-V enumerant `code` (`None`: `Unknown` or not supported yet).
    pub fn from_spirv(code: u32) -> Option<ImageFormat> {
        ImageFormat::ALL.iter().copied().find(|f| f.spirv() == code)
    }

    /// A format by its SPIR-V name, in any case (`rgba8`, `R32f`, `rgba8_snorm` too).
    pub fn parse(text: &str) -> Option<ImageFormat> {
        let wanted: String = text.chars().filter(|c| *c != '_').collect();
        ImageFormat::ALL.iter().copied().find(|f| f.name().eq_ignore_ascii_case(&wanted))
    }

    /// Every name, for messages.
    pub fn names() -> String {
        let names: Vec<&str> = ImageFormat::ALL.iter().map(|f| f.name()).collect();
        names.join(", ")
    }

    /// Bytes per texel.
    pub fn texel_size(self) -> usize {
        (self.components() * self.component_bits() / 8) as usize
    }

    /// The element type of one stored component: what `INIT` fills the texels with
    /// (`Rgba8`: u8, `Rgba8Snorm`: i8, `Rgba16f`: f16, `R32f`: f32, `R32ui`: u32).
    pub fn component_type(self) -> ElemType {
        match (self.numeric(), self.component_bits()) {
            (Numeric::Unorm | Numeric::Uint, 8) => ElemType::U8,
            (Numeric::Snorm | Numeric::Sint, 8) => ElemType::I8,
            (Numeric::Unorm | Numeric::Uint, 16) => ElemType::U16,
            (Numeric::Snorm | Numeric::Sint, 16) => ElemType::I16,
            (Numeric::Float, 16) => ElemType::F16,
            (Numeric::Float, _) => ElemType::F32,
            (Numeric::Sint | Numeric::Snorm, _) => ElemType::I32,
            (Numeric::Uint | Numeric::Unorm, _) => ElemType::U32,
        }
    }
}

impl fmt::Display for ImageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An image's dimensionality (SPIR-V's `Dim` with the `Arrayed` flag).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageDim {
    D1,
    D2,
    D3,
    D1Array,
    D2Array,
    /// A texel buffer (`Dim Buffer`: HLSL `Buffer<T>`/`RWBuffer<T>`, GLSL
    /// `samplerBuffer`/`imageBuffer`): one dimension, its width the element count.
    Buffer,
}

impl ImageDim {
    /// From `OpTypeImage`'s Dim and Arrayed operands (`None`: cube, rect, subpass, a 3D
    /// array, an arrayed buffer).
    pub fn from_spirv(dim: u32, arrayed: bool) -> Option<ImageDim> {
        Some(match (dim, arrayed) {
            (0, false) => ImageDim::D1,
            (1, false) => ImageDim::D2,
            (2, false) => ImageDim::D3,
            (0, true) => ImageDim::D1Array,
            (1, true) => ImageDim::D2Array,
            (5, false) => ImageDim::Buffer,
            _ => return None,
        })
    }

    /// How many of width, height, depth the extent uses (an array's layers count: a 1D
    /// array is width x layers, a 2D array width x height x layers).
    pub fn extent_dims(self) -> usize {
        match self {
            ImageDim::D1 | ImageDim::Buffer => 1,
            ImageDim::D2 | ImageDim::D1Array => 2,
            ImageDim::D3 | ImageDim::D2Array => 3,
        }
    }

    pub fn is_arrayed(self) -> bool {
        matches!(self, ImageDim::D1Array | ImageDim::D2Array)
    }
}

impl fmt::Display for ImageDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ImageDim::D1 => "1D",
            ImageDim::D2 => "2D",
            ImageDim::D3 => "3D",
            ImageDim::D1Array => "1D array",
            ImageDim::D2Array => "2D array",
            ImageDim::Buffer => "texel buffer",
        })
    }
}

/// The most mip levels an image may have: a full chain of a 65536-wide image.
pub const MAX_LEVELS: u32 = 17;

/// An image's format, extent and mip levels. `extent` is width, height, depth (of level
/// 0); an array's layers take the place of the next dimension (1D array: `[width, layers,
/// 1]`, 2D array: `[width, height, layers]`); unused dimensions are 1. Level `l` is
/// `max(1, e >> l)` in each dimension but the layers, as Vulkan's mip chain; the texels
/// hold level 0, then level 1, ..., each tightly packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageShape {
    pub format: ImageFormat,
    pub dim: ImageDim,
    pub extent: [u32; 3],
    /// Mip levels, at least 1.
    pub levels: u32,
}

impl ImageShape {
    /// A one-level image.
    pub fn new(format: ImageFormat, dim: ImageDim, extent: [u32; 3]) -> ImageShape {
        ImageShape { format, dim, extent, levels: 1 }
    }

    /// The extent of level `level` (layers keep their count).
    pub fn level_extent(&self, level: u32) -> [u32; 3] {
        let layer = if self.dim.is_arrayed() { self.dim.extent_dims() - 1 } else { usize::MAX };
        let mut extent = self.extent;
        for (i, e) in extent.iter_mut().enumerate() {
            if i != layer {
                *e = e.checked_shr(level).unwrap_or(0).max(1);
            }
        }
        extent
    }

    /// Texels of level `level`.
    pub fn level_texels(&self, level: u32) -> u64 {
        self.level_extent(level).iter().map(|&e| u64::from(e)).product()
    }

    /// The byte offset of level `level`'s texels from level 0's.
    pub fn level_offset(&self, level: u32) -> u64 {
        (0..level).map(|l| self.level_texels(l)).sum::<u64>() * self.format.texel_size() as u64
    }

    /// Texels of every level.
    pub fn texels(&self) -> u64 {
        (0..self.levels).map(|l| self.level_texels(l)).sum()
    }

    /// The most levels an extent allows: until every dimension but the layers is 1.
    pub fn max_levels(&self) -> u32 {
        let layer = if self.dim.is_arrayed() { self.dim.extent_dims() - 1 } else { usize::MAX };
        let largest = (0..self.dim.extent_dims()).filter(|&i| i != layer).map(|i| self.extent[i]).max();
        32 - largest.unwrap_or(1).max(1).leading_zeros()
    }

    /// The bytes of its tightly packed texels (every level).
    pub fn byte_size(&self) -> u64 {
        self.texels() * self.format.texel_size() as u64
    }

    /// `Rgba8 2D 64x64`, `Rgba8 2D 64x64, 7 levels`.
    pub fn describe(&self) -> String {
        let dims: Vec<String> = self.extent[..self.dim.extent_dims()].iter().map(|e| e.to_string()).collect();
        let levels = if self.levels > 1 { format!(", {} levels", self.levels) } else { String::new() };
        format!("{} {} {}{levels}", self.format, self.dim, dims.join("x"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_name_and_enumerant() {
        assert_eq!(ImageFormat::parse("rgba8"), Some(ImageFormat::Rgba8));
        assert_eq!(ImageFormat::parse("rgba8_snorm"), Some(ImageFormat::Rgba8Snorm));
        assert_eq!(ImageFormat::parse("R32UI"), Some(ImageFormat::R32ui));
        assert_eq!(ImageFormat::parse("r11fg11fb10f"), None);
        assert_eq!(ImageFormat::from_spirv(4), Some(ImageFormat::Rgba8));
        assert_eq!(ImageFormat::from_spirv(0), None);
        assert_eq!(ImageFormat::Rgba16f.texel_size(), 8);
        assert_eq!(ImageFormat::Rg32f.texel_size(), 8);
        assert_eq!(ImageFormat::Rgba8Snorm.component_type(), ElemType::I8);
        for f in ImageFormat::ALL {
            assert_eq!(ImageFormat::from_spirv(f.spirv()), Some(*f));
            assert_eq!(ImageFormat::parse(f.name()), Some(*f));
        }
    }

    #[test]
    fn shapes_count_their_bytes() {
        let shape = ImageShape::new(ImageFormat::Rgba8, ImageDim::D2Array, [4, 3, 2]);
        assert_eq!(shape.byte_size(), 4 * 3 * 2 * 4);
        assert_eq!(shape.describe(), "Rgba8 2D array 4x3x2");
        assert_eq!(ImageDim::from_spirv(1, true), Some(ImageDim::D2Array));
        assert_eq!(ImageDim::from_spirv(3, false), None);
        assert_eq!(ImageDim::from_spirv(5, false), Some(ImageDim::Buffer));
        assert_eq!(ImageDim::from_spirv(5, true), None);
        let texels = ImageShape::new(ImageFormat::R32f, ImageDim::Buffer, [100, 1, 1]);
        assert_eq!((texels.byte_size(), texels.describe().as_str()), (400, "R32f texel buffer 100"));
        assert_eq!(texels.max_levels(), 7);
    }

    #[test]
    fn mip_levels_halve_every_dimension_but_the_layers() {
        let shape =
            ImageShape { levels: 4, ..ImageShape::new(ImageFormat::R32f, ImageDim::D2Array, [8, 3, 5]) };
        assert_eq!(shape.level_extent(1), [4, 1, 5]);
        assert_eq!(shape.level_extent(3), [1, 1, 5]);
        assert_eq!(shape.texels(), 8 * 3 * 5 + 4 * 5 + 2 * 5 + 5);
        assert_eq!(shape.level_offset(2), (8 * 3 * 5 + 4 * 5) * 4);
        assert_eq!(shape.max_levels(), 4);
        let d3 = ImageShape::new(ImageFormat::Rgba8, ImageDim::D3, [2, 16, 4]);
        assert_eq!((d3.max_levels(), d3.level_extent(2)), (5, [1, 4, 1]));
        assert_eq!(d3.describe(), "Rgba8 3D 2x16x4");
        assert_eq!(ImageShape { levels: 5, ..d3 }.describe(), "Rgba8 3D 2x16x4, 5 levels");
    }
}
