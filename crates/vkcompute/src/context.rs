//! The Vulkan side: instance and device on a compute queue, and one dispatch per
//! [`Context::run`], every object it creates owned by a guard that destroys it.

mod repeated;

use crate::{AddressMode, Binding, Dispatch, Error, Filter, Image2d, Outputs, Resource, SamplerDesc};
use ash::vk;
use std::ffi::CString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long a dispatch may take before [`Error::Timeout`] unless the caller sets another
/// (lavapipe runs on the CPU, and an endless loop in a shader must not hang the harness).
const DEFAULT_DISPATCH_TIMEOUT: Duration = Duration::from_secs(60);

/// Which physical device [`Context::new`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DevicePreference {
    /// A CPU device (lavapipe) only: results that do not depend on a GPU.
    Cpu,
    /// A CPU device when there is one, else the first device.
    Any,
}

/// The subgroup (wave) properties of the device's compute stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubgroupFeatures {
    /// Invocations per subgroup (`WaveGetLaneCount()`).
    pub size: u32,
    /// Whether subgroup operations are supported in compute shaders at all.
    pub in_compute: bool,
    pub basic: bool,
    pub vote: bool,
    pub arithmetic: bool,
    pub ballot: bool,
    pub shuffle: bool,
    pub quad: bool,
}

/// What the chosen device is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub name: String,
    /// Driver name and version text (Vulkan 1.2 drivers), else empty.
    pub driver: String,
    /// (major, minor, patch) of the device's Vulkan version.
    pub api_version: (u32, u32, u32),
    pub is_cpu: bool,
    pub subgroup: SubgroupFeatures,
    pub max_workgroup_count: [u32; 3],
}

/// Mesa's lavapipe ICD manifest in the usual places, for `VK_DRIVER_FILES` /
/// `VK_ICD_FILENAMES` (set them before [`Context::new`] to hide every other driver).
pub fn lavapipe_icd_path() -> Option<PathBuf> {
    let dirs = ["/usr/share/vulkan/icd.d", "/usr/local/share/vulkan/icd.d", "/etc/vulkan/icd.d"];
    let mut found: Vec<PathBuf> = dirs
        .iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("lvp_icd") && name.ends_with(".json")
        })
        .collect();
    found.sort();
    // A multi-arch system has one manifest per architecture: take this process's.
    let arch = std::env::consts::ARCH;
    let own = found.iter().position(|p| p.to_string_lossy().contains(arch));
    match own {
        Some(i) => Some(found.swap_remove(i)),
        None => found.into_iter().next(),
    }
}

/// A Vulkan instance and device with a compute queue.
pub struct Context {
    // Field order is drop order: nothing here is destroyed by Drop of a field; `Drop for
    // Context` destroys the device then the instance, and `entry` (the loaded library)
    // must outlive both, so it is dropped last.
    instance: ash::Instance,
    physical_device: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    queue_family: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    limits: vk::PhysicalDeviceLimits,
    info: DeviceInfo,
    dispatch_timeout: Duration,
    /// Set when a dispatch timed out: the queue may still be busy with it.
    stuck: AtomicBool,
    _entry: ash::Entry,
}

fn vk_error(call: &'static str) -> impl Fn(vk::Result) -> Error {
    move |result| Error::Vulkan { call, result }
}

fn version_triple(version: u32) -> (u32, u32, u32) {
    (vk::api_version_major(version), vk::api_version_minor(version), vk::api_version_patch(version))
}

impl Context {
    /// Opens libvulkan, creates an instance and a device on the preferred physical device
    /// (Vulkan 1.1 or newer, with every core feature it supports enabled).
    pub fn new(preference: DevicePreference) -> Result<Context, Error> {
        // SAFETY: loading the system's Vulkan loader runs its initializers, as any Vulkan
        // program does.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| Error::Unavailable(format!("cannot load the Vulkan loader (libvulkan): {e}")))?;
        // SAFETY: a global command with no arguments.
        let loader_version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(vk_error("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader_version < vk::API_VERSION_1_1 {
            return Err(Error::Unavailable("the Vulkan loader is older than 1.1".into()));
        }
        let app = vk::ApplicationInfo::default()
            .application_name(c"spirvkit-vkcompute")
            .api_version(loader_version.min(vk::API_VERSION_1_3));
        let create_info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: the create info and what it points to live through the call.
        let instance =
            unsafe { entry.create_instance(&create_info, None) }.map_err(|result| match result {
                vk::Result::ERROR_INCOMPATIBLE_DRIVER => {
                    Error::Unavailable("no Vulkan driver installed".into())
                }
                result => Error::Vulkan { call: "vkCreateInstance", result },
            })?;
        match Self::with_instance(entry, instance, preference) {
            Ok(context) => Ok(context),
            Err((instance, error)) => {
                // SAFETY: nothing created from the instance is alive.
                unsafe { instance.destroy_instance(None) };
                Err(error)
            }
        }
    }

    #[allow(clippy::result_large_err)]
    fn with_instance(
        entry: ash::Entry,
        instance: ash::Instance,
        preference: DevicePreference,
    ) -> Result<Context, (ash::Instance, Error)> {
        macro_rules! fail {
            ($e:expr) => {
                return Err((instance, $e))
            };
        }
        // SAFETY: the instance is valid.
        let devices = match unsafe { instance.enumerate_physical_devices() } {
            Ok(d) => d,
            Err(result) => fail!(Error::Vulkan { call: "vkEnumeratePhysicalDevices", result }),
        };
        // SAFETY: handles from the enumeration above.
        let properties: Vec<vk::PhysicalDeviceProperties> =
            devices.iter().map(|&d| unsafe { instance.get_physical_device_properties(d) }).collect();
        let cpu = properties.iter().position(|p| p.device_type == vk::PhysicalDeviceType::CPU);
        let chosen = match (cpu, preference) {
            (Some(i), _) => i,
            (None, DevicePreference::Any) if !devices.is_empty() => 0,
            (None, DevicePreference::Any) => fail!(Error::Unavailable("no Vulkan device".into())),
            (None, DevicePreference::Cpu) => fail!(Error::Unavailable(
                "no CPU Vulkan device (Mesa's lavapipe, Debian package mesa-vulkan-drivers)".into()
            )),
        };
        let physical_device = devices[chosen];
        let api_version = properties[chosen].api_version;
        if api_version < vk::API_VERSION_1_1 {
            fail!(Error::Unavailable("the Vulkan device is older than 1.1".into()));
        }

        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut properties2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
        if api_version >= vk::API_VERSION_1_2 {
            properties2 = properties2.push_next(&mut driver);
        }
        // SAFETY: a 1.1 device; the chain only holds structures its version knows.
        unsafe { instance.get_physical_device_properties2(physical_device, &mut properties2) };
        let base = properties2.properties;
        let name = base.device_name_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let driver_text = if api_version >= vk::API_VERSION_1_2 {
            let name =
                driver.driver_name_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let info =
                driver.driver_info_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            format!("{name} {info}").trim().to_string()
        } else {
            String::new()
        };
        let ops = subgroup.supported_operations;
        let info = DeviceInfo {
            name,
            driver: driver_text,
            api_version: version_triple(api_version),
            is_cpu: base.device_type == vk::PhysicalDeviceType::CPU,
            subgroup: SubgroupFeatures {
                size: subgroup.subgroup_size,
                in_compute: subgroup.supported_stages.contains(vk::ShaderStageFlags::COMPUTE),
                basic: ops.contains(vk::SubgroupFeatureFlags::BASIC),
                vote: ops.contains(vk::SubgroupFeatureFlags::VOTE),
                arithmetic: ops.contains(vk::SubgroupFeatureFlags::ARITHMETIC),
                ballot: ops.contains(vk::SubgroupFeatureFlags::BALLOT),
                shuffle: ops.contains(vk::SubgroupFeatureFlags::SHUFFLE),
                quad: ops.contains(vk::SubgroupFeatureFlags::QUAD),
            },
            max_workgroup_count: base.limits.max_compute_work_group_count,
        };

        // SAFETY: a valid physical device.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical_device) };
        let Some(queue_family) =
            families.iter().position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        else {
            fail!(Error::Unavailable(format!("the Vulkan device {} has no compute queue", info.name)));
        };
        let queue_family = queue_family as u32;

        // Every feature the device has, so shaders are limited by the driver, not by us.
        let mut features11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut features12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut features13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut features = vk::PhysicalDeviceFeatures2::default();
        if api_version >= vk::API_VERSION_1_2 {
            features = features.push_next(&mut features11).push_next(&mut features12);
        }
        if api_version >= vk::API_VERSION_1_3 {
            features = features.push_next(&mut features13);
        }
        // SAFETY: the chain only holds structures the device's version knows.
        unsafe { instance.get_physical_device_features2(physical_device, &mut features) };
        let priorities = [1.0f32];
        let queue_info = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(queue_family)
            .queue_priorities(&priorities)];
        let device_info =
            vk::DeviceCreateInfo::default().queue_create_infos(&queue_info).push_next(&mut features);
        // SAFETY: the create info and its chain live through the call.
        let device = match unsafe { instance.create_device(physical_device, &device_info, None) } {
            Ok(device) => device,
            Err(result) => fail!(Error::Vulkan { call: "vkCreateDevice", result }),
        };
        // SAFETY: the family was requested with one queue.
        let queue = unsafe { device.get_device_queue(queue_family, 0) };
        // SAFETY: a valid physical device.
        let memory = unsafe { instance.get_physical_device_memory_properties(physical_device) };
        Ok(Context {
            instance,
            physical_device,
            device,
            queue,
            queue_family,
            memory,
            limits: base.limits,
            info,
            dispatch_timeout: DEFAULT_DISPATCH_TIMEOUT,
            stuck: AtomicBool::new(false),
            _entry: entry,
        })
    }

    /// The chosen device.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// How long [`Context::run`] waits for a dispatch (60 seconds unless set). After a
    /// timeout the context refuses further runs: the device may still be executing.
    pub fn set_dispatch_timeout(&mut self, timeout: Duration) {
        self.dispatch_timeout = timeout;
    }

    /// Runs one dispatch and returns the contents of the writable bindings.
    pub fn run(&self, job: &Dispatch<'_>) -> Result<Outputs, Error> {
        if self.stuck.load(Ordering::SeqCst) {
            return Err(Error::Dispatch("the device is still busy with a dispatch that timed out".into()));
        }
        let words = spirv_words(job.spirv)?;
        let entry_point =
            CString::new(job.entry_point).map_err(|_| Error::EntryPoint(job.entry_point.to_string()))?;
        self.check_job(job)?;
        // A binding the shader reads but the job lacks (or binds as another type) is
        // undefined behaviour a driver may crash on: refuse it here.
        crate::interface::check(&words, job.bindings)?;
        let mut objects = Objects::default_for(&self.device);
        let result = self.record_and_submit(job, &words, &entry_point, &mut objects);
        if matches!(result, Err(Error::Timeout(_))) {
            // The device may still use them: leaking is the only safe choice.
            self.stuck.store(true, Ordering::SeqCst);
            std::mem::forget(objects);
        }
        result
    }

    fn check_job(&self, job: &Dispatch<'_>) -> Result<(), Error> {
        for (axis, (&count, &max)) in
            job.groups.iter().zip(&self.limits.max_compute_work_group_count).enumerate()
        {
            if count > max {
                return Err(Error::Dispatch(format!(
                    "{count} workgroups in {} exceed the device's limit {max}",
                    ["x", "y", "z"][axis]
                )));
            }
        }
        let max_sets = self.limits.max_bound_descriptor_sets;
        for (i, b) in job.bindings.iter().enumerate() {
            let fail = |reason: String| Err(Error::Binding { set: b.set, binding: b.binding, reason });
            if job.bindings[..i].iter().any(|other| (other.set, other.binding) == (b.set, b.binding)) {
                return fail("given twice".into());
            }
            if b.set >= max_sets {
                return fail(format!("the device binds at most {max_sets} descriptor sets"));
            }
            match &b.resource {
                Resource::StorageBuffer(data) | Resource::UniformBuffer(data) => {
                    if data.is_empty() {
                        return fail("a buffer needs at least one byte".into());
                    }
                    let max = match b.resource {
                        Resource::UniformBuffer(_) => self.limits.max_uniform_buffer_range,
                        _ => self.limits.max_storage_buffer_range,
                    };
                    if data.len() as u64 > u64::from(max) {
                        return fail(format!("{} bytes exceed the device's range {max}", data.len()));
                    }
                }
                Resource::UniformTexelBuffer { format, data }
                | Resource::StorageTexelBuffer { format, data } => {
                    let texels = data.len() / format.texel_size();
                    if data.is_empty() || !data.len().is_multiple_of(format.texel_size()) {
                        return fail(format!(
                            "{} bytes are not a whole, non-zero number of {format:?} texels",
                            data.len()
                        ));
                    }
                    if texels as u64 > u64::from(self.limits.max_texel_buffer_elements) {
                        return fail(format!("{texels} texels exceed the device's limit"));
                    }
                    let needed = match b.resource {
                        Resource::StorageTexelBuffer { .. } => vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER,
                        _ => vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER,
                    };
                    self.check_format(*format, needed, false, b)?;
                }
                Resource::SampledImage(image)
                | Resource::StorageImage(image)
                | Resource::CombinedImageSampler(image, _) => {
                    let expected = image.width as usize * image.height as usize * image.format.texel_size();
                    if image.width == 0 || image.height == 0 {
                        return fail("an image needs a non-zero size".into());
                    }
                    if image.width > self.limits.max_image_dimension2_d
                        || image.height > self.limits.max_image_dimension2_d
                    {
                        return fail(format!("{}x{} exceeds the device's limit", image.width, image.height));
                    }
                    if image.data.len() != expected {
                        return fail(format!(
                            "{}x{} {:?} needs {expected} bytes, not {}",
                            image.width,
                            image.height,
                            image.format,
                            image.data.len()
                        ));
                    }
                    let mut needed = match b.resource {
                        Resource::StorageImage(_) => vk::FormatFeatureFlags::STORAGE_IMAGE,
                        _ => vk::FormatFeatureFlags::SAMPLED_IMAGE,
                    };
                    if let Resource::CombinedImageSampler(_, SamplerDesc { filter: Filter::Linear, .. }) =
                        b.resource
                    {
                        needed |= vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR;
                    }
                    self.check_format(image.format, needed, true, b)?;
                }
                Resource::Sampler(_) => {}
            }
        }
        Ok(())
    }

    fn check_format(
        &self,
        format: crate::Format,
        needed: vk::FormatFeatureFlags,
        optimal_tiling: bool,
        binding: &Binding,
    ) -> Result<(), Error> {
        // SAFETY: a valid physical device.
        let properties =
            unsafe { self.instance.get_physical_device_format_properties(self.physical_device, format.vk()) };
        let have =
            if optimal_tiling { properties.optimal_tiling_features } else { properties.buffer_features };
        if have.contains(needed) {
            Ok(())
        } else {
            Err(Error::Binding {
                set: binding.set,
                binding: binding.binding,
                reason: format!("the device does not support {format:?} with {needed:?}"),
            })
        }
    }

    fn memory_type(&self, allowed: u32, wanted: vk::MemoryPropertyFlags) -> Option<u32> {
        (0..self.memory.memory_type_count).find(|&i| {
            allowed & (1 << i) != 0 && self.memory.memory_types[i as usize].property_flags.contains(wanted)
        })
    }

    /// A buffer in host-visible, coherent memory holding `data` (zeros past it up to `size`).
    fn host_buffer(
        &self,
        objects: &mut Objects<'_>,
        size: usize,
        data: &[u8],
        usage: vk::BufferUsageFlags,
    ) -> Result<(vk::Buffer, vk::DeviceMemory), Error> {
        let info = vk::BufferCreateInfo::default()
            .size(size.max(1) as u64)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info; the buffer is owned by `objects`.
        let buffer = unsafe { self.device.create_buffer(&info, None) }.map_err(vk_error("vkCreateBuffer"))?;
        objects.buffers.push(buffer);
        // SAFETY: a valid buffer.
        let requirements = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let memory_type = self
            .memory_type(requirements.memory_type_bits, host)
            .ok_or(Error::Unavailable("the device has no host-visible coherent memory for buffers".into()))?;
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(requirements.size)
            .memory_type_index(memory_type);
        // SAFETY: valid allocate info; the memory is owned by `objects`.
        let memory =
            unsafe { self.device.allocate_memory(&alloc, None) }.map_err(vk_error("vkAllocateMemory"))?;
        objects.memories.push(memory);
        // SAFETY: fresh buffer and memory of the required size and type.
        unsafe { self.device.bind_buffer_memory(buffer, memory, 0) }
            .map_err(vk_error("vkBindBufferMemory"))?;
        self.write_memory(memory, size, data)?;
        Ok((buffer, memory))
    }

    fn write_memory(&self, memory: vk::DeviceMemory, size: usize, data: &[u8]) -> Result<(), Error> {
        // SAFETY: host-visible memory of at least `size` bytes, not in use by the device.
        unsafe {
            let pointer = self
                .device
                .map_memory(memory, 0, size.max(1) as u64, vk::MemoryMapFlags::empty())
                .map_err(vk_error("vkMapMemory"))? as *mut u8;
            std::ptr::write_bytes(pointer, 0, size);
            std::ptr::copy_nonoverlapping(data.as_ptr(), pointer, data.len().min(size));
            self.device.unmap_memory(memory);
        }
        Ok(())
    }

    fn read_memory(&self, memory: vk::DeviceMemory, size: usize) -> Result<Vec<u8>, Error> {
        let mut bytes = vec![0u8; size];
        // SAFETY: host-visible coherent memory of at least `size` bytes; the device is done.
        unsafe {
            let pointer = self
                .device
                .map_memory(memory, 0, size.max(1) as u64, vk::MemoryMapFlags::empty())
                .map_err(vk_error("vkMapMemory"))? as *const u8;
            std::ptr::copy_nonoverlapping(pointer, bytes.as_mut_ptr(), size);
            self.device.unmap_memory(memory);
        }
        Ok(bytes)
    }

    fn sampler(&self, objects: &mut Objects<'_>, desc: SamplerDesc) -> Result<vk::Sampler, Error> {
        let filter = match desc.filter {
            Filter::Nearest => vk::Filter::NEAREST,
            Filter::Linear => vk::Filter::LINEAR,
        };
        let address = match desc.address_mode {
            AddressMode::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
            AddressMode::Repeat => vk::SamplerAddressMode::REPEAT,
            AddressMode::MirroredRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
        };
        // The suite's kernels sample a single mip level.
        self.create_sampler(objects, filter, address, 0.0)
    }

    /// A sampler with one filter for magnification and minification, nearest mip level
    /// selection, one address mode for every coordinate, a transparent black border and
    /// levels up to `max_lod`: the shape both the suite's and `spirvkit run`'s samplers take.
    fn create_sampler(
        &self,
        objects: &mut Objects<'_>,
        filter: vk::Filter,
        address: vk::SamplerAddressMode,
        max_lod: f32,
    ) -> Result<vk::Sampler, Error> {
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(filter)
            .min_filter(filter)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(address)
            .address_mode_v(address)
            .address_mode_w(address)
            .border_color(vk::BorderColor::FLOAT_TRANSPARENT_BLACK)
            .min_lod(0.0)
            .max_lod(max_lod);
        // SAFETY: valid create info; the sampler is owned by `objects`.
        let sampler =
            unsafe { self.device.create_sampler(&info, None) }.map_err(vk_error("vkCreateSampler"))?;
        objects.samplers.push(sampler);
        Ok(sampler)
    }

    /// An optimal-tiling image, its view, and a host buffer holding its texels (the
    /// upload source, and the read-back target for storage images).
    fn image(
        &self,
        objects: &mut Objects<'_>,
        image: &Image2d,
        storage: bool,
    ) -> Result<ImageObjects, Error> {
        let usage = vk::ImageUsageFlags::TRANSFER_DST
            | vk::ImageUsageFlags::TRANSFER_SRC
            | if storage { vk::ImageUsageFlags::STORAGE } else { vk::ImageUsageFlags::SAMPLED };
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(image.format.vk())
            .extent(vk::Extent3D { width: image.width, height: image.height, depth: 1 })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let handle = self.create_bound_image(objects, &info)?;
        let view_info = vk::ImageViewCreateInfo::default()
            .image(handle)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(image.format.vk())
            .subresource_range(COLOR_RANGE);
        // SAFETY: a view of the whole image; owned by `objects`.
        let view = unsafe { self.device.create_image_view(&view_info, None) }
            .map_err(vk_error("vkCreateImageView"))?;
        objects.image_views.push(view);
        let (staging, staging_memory) = self.host_buffer(
            objects,
            image.data.len(),
            &image.data,
            vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        Ok(ImageObjects {
            image: handle,
            view,
            staging,
            staging_memory,
            extent: vk::Extent3D { width: image.width, height: image.height, depth: 1 },
            layers: 1,
            levels: 1,
            texel_size: image.format.texel_size() as u64,
            storage,
        })
    }

    fn record_and_submit(
        &self,
        job: &Dispatch<'_>,
        words: &[u32],
        entry_point: &CString,
        objects: &mut Objects<'_>,
    ) -> Result<Outputs, Error> {
        // Resources, one per binding, in the binding list's order.
        let mut created = Vec::with_capacity(job.bindings.len());
        for b in job.bindings {
            let made = match &b.resource {
                Resource::StorageBuffer(data) => {
                    let (buffer, memory) =
                        self.host_buffer(objects, data.len(), data, vk::BufferUsageFlags::STORAGE_BUFFER)?;
                    Created::Buffer {
                        buffer,
                        memory,
                        size: data.len(),
                        kind: vk::DescriptorType::STORAGE_BUFFER,
                    }
                }
                Resource::UniformBuffer(data) => {
                    let (buffer, memory) =
                        self.host_buffer(objects, data.len(), data, vk::BufferUsageFlags::UNIFORM_BUFFER)?;
                    Created::Buffer {
                        buffer,
                        memory,
                        size: data.len(),
                        kind: vk::DescriptorType::UNIFORM_BUFFER,
                    }
                }
                Resource::UniformTexelBuffer { format, data }
                | Resource::StorageTexelBuffer { format, data } => {
                    let storage = matches!(b.resource, Resource::StorageTexelBuffer { .. });
                    let usage = if storage {
                        vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER
                    } else {
                        vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER
                    };
                    let (buffer, memory) = self.host_buffer(objects, data.len(), data, usage)?;
                    let view_info = vk::BufferViewCreateInfo::default()
                        .buffer(buffer)
                        .format(format.vk())
                        .offset(0)
                        .range(vk::WHOLE_SIZE);
                    // SAFETY: a view of a whole texel buffer; owned by `objects`.
                    let view = unsafe { self.device.create_buffer_view(&view_info, None) }
                        .map_err(vk_error("vkCreateBufferView"))?;
                    objects.buffer_views.push(view);
                    let kind = if storage {
                        vk::DescriptorType::STORAGE_TEXEL_BUFFER
                    } else {
                        vk::DescriptorType::UNIFORM_TEXEL_BUFFER
                    };
                    Created::TexelBuffer { view, memory, size: data.len(), kind }
                }
                Resource::SampledImage(image) => Created::Image(self.image(objects, image, false)?, None),
                Resource::StorageImage(image) => Created::Image(self.image(objects, image, true)?, None),
                Resource::CombinedImageSampler(image, desc) => {
                    let sampler = self.sampler(objects, *desc)?;
                    Created::Image(self.image(objects, image, false)?, Some(sampler))
                }
                Resource::Sampler(desc) => Created::Sampler(self.sampler(objects, *desc)?),
            };
            created.push(made);
        }

        // Descriptor set layouts for sets 0..=max (sets the shader skips stay empty).
        let set_count = job.bindings.iter().map(|b| b.set + 1).max().unwrap_or(0);
        let mut layouts = Vec::with_capacity(set_count as usize);
        for set in 0..set_count {
            let entries: Vec<vk::DescriptorSetLayoutBinding> = job
                .bindings
                .iter()
                .zip(&created)
                .filter(|(b, _)| b.set == set)
                .map(|(b, made)| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b.binding)
                        .descriptor_type(made.descriptor_type())
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE)
                })
                .collect();
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&entries);
            // SAFETY: valid create info; the layout is owned by `objects`.
            let layout = unsafe { self.device.create_descriptor_set_layout(&info, None) }
                .map_err(vk_error("vkCreateDescriptorSetLayout"))?;
            objects.set_layouts.push(layout);
            layouts.push(layout);
        }
        let layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts);
        // SAFETY: valid create info; owned by `objects`.
        let pipeline_layout = unsafe { self.device.create_pipeline_layout(&layout_info, None) }
            .map_err(vk_error("vkCreatePipelineLayout"))?;
        objects.pipeline_layout = pipeline_layout;

        let mut sets = Vec::new();
        if set_count > 0 {
            let mut pool_sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
            for made in &created {
                let ty = made.descriptor_type();
                match pool_sizes.iter_mut().find(|s| s.ty == ty) {
                    Some(size) => size.descriptor_count += 1,
                    None => pool_sizes.push(vk::DescriptorPoolSize { ty, descriptor_count: 1 }),
                }
            }
            let pool_info =
                vk::DescriptorPoolCreateInfo::default().max_sets(set_count).pool_sizes(&pool_sizes);
            // SAFETY: valid create info; owned by `objects`. A pool with no sizes is valid
            // when every set is empty.
            let pool = unsafe { self.device.create_descriptor_pool(&pool_info, None) }
                .map_err(vk_error("vkCreateDescriptorPool"))?;
            objects.descriptor_pool = pool;
            let alloc = vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts);
            // SAFETY: the pool was sized for exactly these sets.
            sets = unsafe { self.device.allocate_descriptor_sets(&alloc) }
                .map_err(vk_error("vkAllocateDescriptorSets"))?;
        }

        // The infos first (the writes point into them), then the writes.
        let buffer_infos: Vec<vk::DescriptorBufferInfo> = created
            .iter()
            .map(|made| match made {
                Created::Buffer { buffer, .. } => {
                    vk::DescriptorBufferInfo { buffer: *buffer, offset: 0, range: vk::WHOLE_SIZE }
                }
                _ => vk::DescriptorBufferInfo::default(),
            })
            .collect();
        let image_infos: Vec<vk::DescriptorImageInfo> = created
            .iter()
            .map(|made| match made {
                Created::Image(image, sampler) => vk::DescriptorImageInfo {
                    sampler: sampler.unwrap_or_default(),
                    image_view: image.view,
                    image_layout: image.shader_layout(),
                },
                Created::Sampler(sampler) => {
                    vk::DescriptorImageInfo { sampler: *sampler, ..Default::default() }
                }
                _ => vk::DescriptorImageInfo::default(),
            })
            .collect();
        let texel_views: Vec<vk::BufferView> = created
            .iter()
            .map(|made| match made {
                Created::TexelBuffer { view, .. } => *view,
                _ => vk::BufferView::null(),
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = job
            .bindings
            .iter()
            .zip(&created)
            .enumerate()
            .map(|(i, (b, made))| {
                let write = vk::WriteDescriptorSet::default()
                    .dst_set(sets[b.set as usize])
                    .dst_binding(b.binding)
                    .descriptor_type(made.descriptor_type());
                match made {
                    Created::Buffer { .. } => write.buffer_info(std::slice::from_ref(&buffer_infos[i])),
                    Created::TexelBuffer { .. } => {
                        write.texel_buffer_view(std::slice::from_ref(&texel_views[i]))
                    }
                    Created::Image(..) | Created::Sampler(_) => {
                        write.image_info(std::slice::from_ref(&image_infos[i]))
                    }
                }
            })
            .collect();
        // SAFETY: every write names a live set, a matching type and live resources.
        unsafe { self.device.update_descriptor_sets(&writes, &[]) };

        let module_info = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: the caller validated the binary (the harness runs spirv-val first).
        let module = unsafe { self.device.create_shader_module(&module_info, None) }
            .map_err(vk_error("vkCreateShaderModule"))?;
        objects.shader_module = module;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(entry_point.as_c_str());
        let pipeline_info = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(pipeline_layout)];
        // SAFETY: valid create info.
        let pipelines =
            unsafe { self.device.create_compute_pipelines(vk::PipelineCache::null(), &pipeline_info, None) }
                .map_err(|(pipelines, result)| {
                    objects.pipelines.extend(pipelines.into_iter().filter(|p| *p != vk::Pipeline::null()));
                    Error::Vulkan { call: "vkCreateComputePipelines", result }
                })?;
        objects.pipelines.extend(pipelines.iter().copied());
        let pipeline = pipelines[0];

        let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(self.queue_family);
        // SAFETY: valid create info; owned by `objects`.
        let command_pool = unsafe { self.device.create_command_pool(&pool_info, None) }
            .map_err(vk_error("vkCreateCommandPool"))?;
        objects.command_pool = command_pool;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: a valid pool.
        let command_buffer = unsafe { self.device.allocate_command_buffers(&alloc) }
            .map_err(vk_error("vkAllocateCommandBuffers"))?[0];

        // SAFETY: recording into a fresh command buffer with objects alive until the
        // fence signals; barriers order the upload, the dispatch and the read-back.
        unsafe {
            let begin =
                vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            self.device
                .begin_command_buffer(command_buffer, &begin)
                .map_err(vk_error("vkBeginCommandBuffer"))?;
            for made in &created {
                if let Created::Image(image, _) = made {
                    self.record_image_upload(command_buffer, image);
                }
            }
            self.device.cmd_bind_pipeline(command_buffer, vk::PipelineBindPoint::COMPUTE, pipeline);
            if !sets.is_empty() {
                self.device.cmd_bind_descriptor_sets(
                    command_buffer,
                    vk::PipelineBindPoint::COMPUTE,
                    pipeline_layout,
                    0,
                    &sets,
                    &[],
                );
            }
            let [x, y, z] = job.groups;
            self.device.cmd_dispatch(command_buffer, x, y, z);
            let to_host = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ | vk::AccessFlags::TRANSFER_READ);
            self.device.cmd_pipeline_barrier(
                command_buffer,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[to_host],
                &[],
                &[],
            );
            for made in &created {
                if let Created::Image(image, _) = made {
                    if !image.storage {
                        continue;
                    }
                    self.record_image_readback(command_buffer, image);
                }
            }
            self.record_transfer_to_host(command_buffer);
            self.device.end_command_buffer(command_buffer).map_err(vk_error("vkEndCommandBuffer"))?;

            let fence = self
                .device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(vk_error("vkCreateFence"))?;
            objects.fence = fence;
            let submit = vk::SubmitInfo::default().command_buffers(std::slice::from_ref(&command_buffer));
            self.device.queue_submit(self.queue, &[submit], fence).map_err(vk_error("vkQueueSubmit"))?;
            let nanoseconds = u64::try_from(self.dispatch_timeout.as_nanos()).unwrap_or(u64::MAX);
            match self.device.wait_for_fences(&[fence], true, nanoseconds) {
                Ok(()) => {}
                Err(vk::Result::TIMEOUT) => return Err(Error::Timeout(self.dispatch_timeout)),
                Err(result) => return Err(Error::Vulkan { call: "vkWaitForFences", result }),
            }
        }

        let mut outputs = Outputs::default();
        for (b, made) in job.bindings.iter().zip(&created) {
            let bytes = match made {
                Created::Buffer { memory, size, kind: vk::DescriptorType::STORAGE_BUFFER, .. }
                | Created::TexelBuffer {
                    memory, size, kind: vk::DescriptorType::STORAGE_TEXEL_BUFFER, ..
                } => self.read_memory(*memory, *size)?,
                Created::Image(image, _) if image.storage => {
                    let size = image.extent.width as usize
                        * image.extent.height as usize
                        * match &b.resource {
                            Resource::StorageImage(i) => i.format.texel_size(),
                            _ => 0,
                        };
                    self.read_memory(image.staging_memory, size)?
                }
                _ => continue,
            };
            outputs.contents.push(((b.set, b.binding), bytes));
        }
        Ok(outputs)
    }

    /// Creates an image, owned by `objects`, bound to device memory of its own
    /// (device-local when the device has it).
    fn create_bound_image(
        &self,
        objects: &mut Objects,
        info: &vk::ImageCreateInfo<'_>,
    ) -> Result<vk::Image, Error> {
        // SAFETY: valid create info; the image is owned by `objects`.
        let handle = unsafe { self.device.create_image(info, None) }.map_err(vk_error("vkCreateImage"))?;
        objects.images.push(handle);
        // SAFETY: a valid image.
        let requirements = unsafe { self.device.get_image_memory_requirements(handle) };
        let memory_type = self
            .memory_type(requirements.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL)
            .or_else(|| self.memory_type(requirements.memory_type_bits, vk::MemoryPropertyFlags::empty()))
            .ok_or(Error::Unavailable("the device has no memory type for images".into()))?;
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(requirements.size)
            .memory_type_index(memory_type);
        // SAFETY: valid allocate info; the memory is owned by `objects`.
        let memory =
            unsafe { self.device.allocate_memory(&alloc, None) }.map_err(vk_error("vkAllocateMemory"))?;
        objects.memories.push(memory);
        // SAFETY: fresh image and memory of the required size and type.
        unsafe { self.device.bind_image_memory(handle, memory, 0) }.map_err(vk_error("vkBindImageMemory"))?;
        Ok(handle)
    }

    /// Records the upload of an image from its staging buffer and its transition to the
    /// layout the shader uses.
    ///
    /// # Safety
    /// `command_buffer` is recording and `image`'s objects are alive.
    unsafe fn record_image_upload(&self, command_buffer: vk::CommandBuffer, image: &ImageObjects) {
        self.image_barrier(
            command_buffer,
            image.image,
            (vk::ImageLayout::UNDEFINED, vk::ImageLayout::TRANSFER_DST_OPTIMAL),
            (vk::AccessFlags::empty(), vk::AccessFlags::TRANSFER_WRITE),
            (vk::PipelineStageFlags::TOP_OF_PIPE, vk::PipelineStageFlags::TRANSFER),
        );
        self.device.cmd_copy_buffer_to_image(
            command_buffer,
            image.staging,
            image.image,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            &image.copy_regions(),
        );
        self.image_barrier(
            command_buffer,
            image.image,
            (vk::ImageLayout::TRANSFER_DST_OPTIMAL, image.shader_layout()),
            (vk::AccessFlags::TRANSFER_WRITE, vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE),
            (vk::PipelineStageFlags::TRANSFER, vk::PipelineStageFlags::COMPUTE_SHADER),
        );
    }

    /// Records the copy of a storage image the shader wrote back to its staging buffer.
    ///
    /// # Safety
    /// `command_buffer` is recording and `image`'s objects are alive.
    unsafe fn record_image_readback(&self, command_buffer: vk::CommandBuffer, image: &ImageObjects) {
        self.image_barrier(
            command_buffer,
            image.image,
            (vk::ImageLayout::GENERAL, vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
            (vk::AccessFlags::SHADER_WRITE, vk::AccessFlags::TRANSFER_READ),
            (vk::PipelineStageFlags::COMPUTE_SHADER, vk::PipelineStageFlags::TRANSFER),
        );
        self.device.cmd_copy_image_to_buffer(
            command_buffer,
            image.image,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            image.staging,
            &image.copy_regions(),
        );
    }

    /// Records a barrier making transfer writes (image read-backs) visible to the host.
    ///
    /// # Safety
    /// `command_buffer` is recording.
    unsafe fn record_transfer_to_host(&self, command_buffer: vk::CommandBuffer) {
        let transfer_to_host = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ);
        self.device.cmd_pipeline_barrier(
            command_buffer,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[transfer_to_host],
            &[],
            &[],
        );
    }

    /// Records a layout transition of a whole color image.
    ///
    /// # Safety
    /// `command_buffer` is recording and `image` is alive.
    unsafe fn image_barrier(
        &self,
        command_buffer: vk::CommandBuffer,
        image: vk::Image,
        (old_layout, new_layout): (vk::ImageLayout, vk::ImageLayout),
        (src_access, dst_access): (vk::AccessFlags, vk::AccessFlags),
        (src_stage, dst_stage): (vk::PipelineStageFlags, vk::PipelineStageFlags),
    ) {
        let barrier = vk::ImageMemoryBarrier::default()
            .old_layout(old_layout)
            .new_layout(new_layout)
            .src_access_mask(src_access)
            .dst_access_mask(dst_access)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(COLOR_RANGE);
        self.device.cmd_pipeline_barrier(
            command_buffer,
            src_stage,
            dst_stage,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[barrier],
        );
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if self.stuck.load(Ordering::SeqCst) {
            // The device may still run a dispatch that timed out: destroying it could
            // crash the driver, so it (and the instance) are left to process exit.
            return;
        }
        // SAFETY: every `run` waited for its work and destroyed its objects.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

const COLOR_RANGE: vk::ImageSubresourceRange = vk::ImageSubresourceRange {
    aspect_mask: vk::ImageAspectFlags::COLOR,
    base_mip_level: 0,
    // Every level: sampled images may have mip levels (`--img .../LEVELS`).
    level_count: vk::REMAINING_MIP_LEVELS,
    base_array_layer: 0,
    // Every layer: image arrays (`spirvkit run --img` of a 1D or 2D array) are transitioned whole.
    layer_count: vk::REMAINING_ARRAY_LAYERS,
};

/// The words of a SPIR-V binary (either byte order), checked for the magic number.
fn spirv_words(bytes: &[u8]) -> Result<Vec<u32>, Error> {
    if bytes.len() < 20 || !bytes.len().is_multiple_of(4) {
        return Err(Error::Binary(format!(
            "{} bytes is not a SPIR-V module (a header of 5 words, whole words)",
            bytes.len()
        )));
    }
    let words =
        ash::util::read_spv(&mut std::io::Cursor::new(bytes)).map_err(|e| Error::Binary(e.to_string()))?;
    if words.first() != Some(&0x0723_0203) {
        return Err(Error::Binary("no SPIR-V magic number".into()));
    }
    Ok(words)
}

/// What was created for one binding.
enum Created {
    Buffer { buffer: vk::Buffer, memory: vk::DeviceMemory, size: usize, kind: vk::DescriptorType },
    TexelBuffer { view: vk::BufferView, memory: vk::DeviceMemory, size: usize, kind: vk::DescriptorType },
    Image(ImageObjects, Option<vk::Sampler>),
    Sampler(vk::Sampler),
}

impl Created {
    fn descriptor_type(&self) -> vk::DescriptorType {
        match self {
            Created::Buffer { kind, .. } | Created::TexelBuffer { kind, .. } => *kind,
            Created::Image(image, Some(_)) if !image.storage => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            Created::Image(image, _) if image.storage => vk::DescriptorType::STORAGE_IMAGE,
            Created::Image(..) => vk::DescriptorType::SAMPLED_IMAGE,
            Created::Sampler(_) => vk::DescriptorType::SAMPLER,
        }
    }
}

struct ImageObjects {
    image: vk::Image,
    view: vk::ImageView,
    staging: vk::Buffer,
    staging_memory: vk::DeviceMemory,
    extent: vk::Extent3D,
    /// Array layers (1 for an image that is not an array).
    layers: u32,
    /// Mip levels: level l is `max(1, extent >> l)` (layers kept), its texels in the
    /// staging buffer after level l - 1's.
    levels: u32,
    texel_size: u64,
    storage: bool,
}

impl ImageObjects {
    fn shader_layout(&self) -> vk::ImageLayout {
        if self.storage {
            vk::ImageLayout::GENERAL
        } else {
            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
        }
    }

    /// One copy per level between the staging buffer and the image.
    fn copy_regions(&self) -> Vec<vk::BufferImageCopy> {
        let mut offset = 0u64;
        (0..self.levels)
            .map(|level| {
                let half = |e: u32| e.checked_shr(level).unwrap_or(0).max(1);
                let extent = vk::Extent3D {
                    width: half(self.extent.width),
                    height: half(self.extent.height),
                    depth: half(self.extent.depth),
                };
                let region = vk::BufferImageCopy {
                    buffer_offset: offset,
                    buffer_row_length: 0,
                    buffer_image_height: 0,
                    image_subresource: vk::ImageSubresourceLayers {
                        aspect_mask: vk::ImageAspectFlags::COLOR,
                        mip_level: level,
                        base_array_layer: 0,
                        layer_count: self.layers,
                    },
                    image_offset: vk::Offset3D::default(),
                    image_extent: extent,
                };
                offset += u64::from(extent.width)
                    * u64::from(extent.height)
                    * u64::from(extent.depth)
                    * u64::from(self.layers)
                    * self.texel_size;
                region
            })
            .collect()
    }
}

/// Every object one run creates, destroyed when the run ends however it ends.
struct Objects<'a> {
    device: &'a ash::Device,
    buffers: Vec<vk::Buffer>,
    buffer_views: Vec<vk::BufferView>,
    images: Vec<vk::Image>,
    image_views: Vec<vk::ImageView>,
    memories: Vec<vk::DeviceMemory>,
    samplers: Vec<vk::Sampler>,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    descriptor_pool: vk::DescriptorPool,
    pipeline_layout: vk::PipelineLayout,
    shader_module: vk::ShaderModule,
    pipelines: Vec<vk::Pipeline>,
    command_pool: vk::CommandPool,
    fence: vk::Fence,
}

impl<'a> Objects<'a> {
    fn default_for(device: &'a ash::Device) -> Objects<'a> {
        Objects {
            device,
            buffers: Vec::new(),
            buffer_views: Vec::new(),
            images: Vec::new(),
            image_views: Vec::new(),
            memories: Vec::new(),
            samplers: Vec::new(),
            set_layouts: Vec::new(),
            descriptor_pool: vk::DescriptorPool::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            shader_module: vk::ShaderModule::null(),
            pipelines: Vec::new(),
            command_pool: vk::CommandPool::null(),
            fence: vk::Fence::null(),
        }
    }
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        let d = self.device;
        // SAFETY: the run waited for its fence (a timed-out run forgets its objects
        // instead), so the device no longer uses any of them. Destroying a null handle
        // is a no-op in Vulkan.
        unsafe {
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.command_pool, None);
            for &p in &self.pipelines {
                d.destroy_pipeline(p, None);
            }
            d.destroy_shader_module(self.shader_module, None);
            d.destroy_pipeline_layout(self.pipeline_layout, None);
            d.destroy_descriptor_pool(self.descriptor_pool, None);
            for &l in &self.set_layouts {
                d.destroy_descriptor_set_layout(l, None);
            }
            for &s in &self.samplers {
                d.destroy_sampler(s, None);
            }
            for &v in &self.image_views {
                d.destroy_image_view(v, None);
            }
            for &v in &self.buffer_views {
                d.destroy_buffer_view(v, None);
            }
            for &i in &self.images {
                d.destroy_image(i, None);
            }
            for &b in &self.buffers {
                d.destroy_buffer(b, None);
            }
            for &m in &self.memories {
                d.free_memory(m, None);
            }
        }
    }
}
