//! [`VulkanDevice`]: `spirvkit run --device vulkan`, the [`spirvkit_run::Device`] on the
//! system's Vulkan driver.

use crate::{Context, DevicePreference, Error};
use spirvkit_run::{Binding, Device, Dispatch, Refill, RunError, Timings};

/// Runs compute shaders on a Vulkan driver (a CPU driver such as lavapipe when there is
/// one, else the first device).
pub struct VulkanDevice {
    context: Context,
}

impl VulkanDevice {
    /// Opens the system's Vulkan driver. No loader or driver is [`RunError::Device`].
    pub fn new() -> Result<VulkanDevice, RunError> {
        Context::new(DevicePreference::Any).map(VulkanDevice::with_context).map_err(run_error)
    }

    /// A device on an existing context.
    pub fn with_context(context: Context) -> VulkanDevice {
        VulkanDevice { context }
    }

    pub fn context(&self) -> &Context {
        &self.context
    }
}

/// The run's view of a Vulkan failure: a job the shader does not fit is an argument
/// error, a pipeline the driver refuses a compile error, a timeout the time limit.
fn run_error(error: Error) -> RunError {
    match error {
        Error::Binding { .. } | Error::Dispatch(_) | Error::EntryPoint(_) => {
            let message = error.to_string();
            match message.split_once("not supported yet: ") {
                Some((_, what)) => RunError::NotSupported(what.to_string()),
                None => RunError::Arguments(message),
            }
        }
        Error::Binary(_) => RunError::Compile(error.to_string()),
        Error::Vulkan { call: "vkCreateShaderModule" | "vkCreateComputePipelines", .. } => {
            RunError::Compile(error.to_string())
        }
        Error::Timeout(limit) => RunError::TimeLimit { seconds: limit.as_secs_f64() },
        Error::Unavailable(_) | Error::Vulkan { .. } => RunError::Device(error.to_string()),
    }
}

impl Device for VulkanDevice {
    fn name(&self) -> &'static str {
        "vulkan"
    }

    fn run(
        &mut self,
        dispatch: &Dispatch<'_>,
        bindings: &mut [Binding],
        before_each: Option<Refill<'_>>,
    ) -> Result<Timings, RunError> {
        self.context.run_repeated(dispatch, bindings, before_each).map_err(run_error)
    }
}
