//! Samplers as `spirvkit run` binds them (`--sampler BINDING[:SET]:FILTER[:ADDRESS]`): a
//! filter for magnification and minification, one address mode for every coordinate,
//! nearest mip level selection, a transparent black border, normalized coordinates and
//! no level clamp — the one Vulkan sampler each description stands for.

use std::fmt;

/// `VkFilter`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    Nearest = 0,
    Linear = 1,
}

/// `VkSamplerAddressMode`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressMode {
    Repeat = 0,
    MirroredRepeat = 1,
    ClampToEdge = 2,
    /// The border is transparent black (0, 0, 0, 0).
    ClampToBorder = 3,
}

/// A sampler's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerDesc {
    pub filter: Filter,
    pub address: AddressMode,
}

impl SamplerDesc {
    /// The words a CPU kernel reads: filter, address mode (Vulkan's enumerant values).
    pub fn words(&self) -> [u32; 2] {
        [self.filter as u32, self.address as u32]
    }

    /// `linear, clamp-to-edge`.
    pub fn describe(&self) -> String {
        format!("{}, {}", self.filter.name(), self.address.name())
    }

    /// `FILTER[:ADDRESS]` (ADDRESS defaults to clamp-to-edge).
    pub fn parse(text: &str) -> Result<SamplerDesc, String> {
        let (filter, address) = text.split_once(':').unwrap_or((text, "clamp-to-edge"));
        let filter = match filter {
            "nearest" => Filter::Nearest,
            "linear" => Filter::Linear,
            other => return Err(format!("unknown filter `{other}` (nearest, linear)")),
        };
        let address = match address {
            "repeat" => AddressMode::Repeat,
            "mirrored-repeat" => AddressMode::MirroredRepeat,
            "clamp-to-edge" => AddressMode::ClampToEdge,
            "clamp-to-border" => AddressMode::ClampToBorder,
            other => {
                return Err(format!(
                    "unknown address mode `{other}` (repeat, mirrored-repeat, clamp-to-edge, clamp-to-border)"
                ))
            }
        };
        Ok(SamplerDesc { filter, address })
    }
}

impl Filter {
    pub fn name(self) -> &'static str {
        match self {
            Filter::Nearest => "nearest",
            Filter::Linear => "linear",
        }
    }
}

impl AddressMode {
    pub fn name(self) -> &'static str {
        match self {
            AddressMode::Repeat => "repeat",
            AddressMode::MirroredRepeat => "mirrored-repeat",
            AddressMode::ClampToEdge => "clamp-to-edge",
            AddressMode::ClampToBorder => "clamp-to-border",
        }
    }
}

impl fmt::Display for SamplerDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_and_address_modes_by_name() {
        let s = SamplerDesc::parse("linear:mirrored-repeat").unwrap();
        assert_eq!((s.filter, s.address, s.words()), (Filter::Linear, AddressMode::MirroredRepeat, [1, 1]));
        assert_eq!(SamplerDesc::parse("nearest").unwrap().address, AddressMode::ClampToEdge);
        assert_eq!(SamplerDesc::parse("nearest:clamp-to-border").unwrap().words(), [0, 3]);
        assert!(SamplerDesc::parse("cubic").unwrap_err().contains("unknown filter"));
        assert!(SamplerDesc::parse("linear:wrap").unwrap_err().contains("unknown address mode"));
    }
}
