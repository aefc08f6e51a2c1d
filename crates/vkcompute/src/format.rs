//! The texel formats images and texel buffers may have.

use ash::vk;

/// A texel format (the subset HLSL's typed resources map to).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    R32Float,
    R32Uint,
    R32Sint,
    Rg32Float,
    Rgba32Float,
    Rgba32Uint,
    Rgba32Sint,
    Rgba8Unorm,
}

impl Format {
    /// Bytes per texel.
    pub fn texel_size(self) -> usize {
        match self {
            Format::R32Float | Format::R32Uint | Format::R32Sint | Format::Rgba8Unorm => 4,
            Format::Rg32Float => 8,
            Format::Rgba32Float | Format::Rgba32Uint | Format::Rgba32Sint => 16,
        }
    }

    pub(crate) fn vk(self) -> vk::Format {
        match self {
            Format::R32Float => vk::Format::R32_SFLOAT,
            Format::R32Uint => vk::Format::R32_UINT,
            Format::R32Sint => vk::Format::R32_SINT,
            Format::Rg32Float => vk::Format::R32G32_SFLOAT,
            Format::Rgba32Float => vk::Format::R32G32B32A32_SFLOAT,
            Format::Rgba32Uint => vk::Format::R32G32B32A32_UINT,
            Format::Rgba32Sint => vk::Format::R32G32B32A32_SINT,
            Format::Rgba8Unorm => vk::Format::R8G8B8A8_UNORM,
        }
    }
}
