//! `spirvkit run --device vulkan`'s dispatches: storage and uniform buffers, storage and
//! sampled images (uploaded from and read back to a host buffer inside every dispatch's
//! command buffer, so that each dispatch starts from what the previous one left), texel
//! buffers (host buffers with a buffer view), push constants and
//! specialization constants, one pipeline compiled once and dispatched `repeat` times,
//! each dispatch timed around its submit and wait.

use super::{vk_error, Context, ImageObjects, Objects, COLOR_RANGE};
use crate::Error;
use ash::vk;
use spirvkit_run::reflect::{DescriptorKind, Reflection};
use spirvkit_run::{
    AddressMode, Binding, BufferKind, Dispatch, Filter, ImageDim, ImageFormat, ImageShape, Refill,
    SamplerDesc, Timings,
};
use std::ffi::CString;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn milliseconds(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

impl Context {
    /// Runs `dispatch` over `bindings` (see [`spirvkit_run::Device::run`]): compiles the
    /// pipeline once (timed as `compile_ms`: shader module and pipeline creation), then
    /// submits the recorded dispatch `repeat` times, each timed from submit to the end of
    /// its wait. Every binding's `data` then holds what the last dispatch left.
    pub fn run_repeated(
        &self,
        dispatch: &Dispatch<'_>,
        bindings: &mut [Binding],
        mut before_each: Option<Refill<'_>>,
    ) -> Result<Timings, Error> {
        if self.stuck.load(Ordering::SeqCst) {
            return Err(Error::Dispatch("the device is still busy with a dispatch that timed out".into()));
        }
        let entry_point =
            CString::new(dispatch.entry).map_err(|_| Error::EntryPoint(dispatch.entry.to_string()))?;
        let reflection = spirvkit_run::reflect(dispatch.spirv).map_err(|e| Error::Binary(e.to_string()))?;
        self.check_repeated(dispatch, bindings, &reflection)?;
        let mut objects = Objects::default_for(&self.device);
        let result = self.submit_repeated(
            dispatch,
            bindings,
            &reflection,
            &entry_point,
            &mut objects,
            &mut before_each,
        );
        if matches!(result, Err(Error::Timeout(_))) {
            // The device may still use them: leaking is the only safe choice.
            self.stuck.store(true, Ordering::SeqCst);
            std::mem::forget(objects);
        }
        result
    }

    /// What would be undefined behaviour on the driver, refused: a descriptor the shader
    /// declares and the run does not bind (or binds as another kind), a push-constant
    /// block larger than the bytes given, buffers over the device's limits.
    fn check_repeated(
        &self,
        dispatch: &Dispatch<'_>,
        bindings: &[Binding],
        reflection: &Reflection,
    ) -> Result<(), Error> {
        let entry = reflection.entry_point(dispatch.entry).map_err(Error::Dispatch)?;
        if !entry.is_compute() {
            return Err(Error::Dispatch(format!("entry point `{}` is not a compute shader", entry.name)));
        }
        self.check_job(&crate::Dispatch {
            spirv: &[],
            entry_point: dispatch.entry,
            bindings: &[],
            groups: dispatch.groups,
        })?;
        for (i, b) in bindings.iter().enumerate() {
            let fail = |reason: String| Err(Error::Binding { set: b.set, binding: b.binding, reason });
            if bindings[..i].iter().any(|o| (o.set, o.binding) == (b.set, b.binding)) {
                return fail("given twice".into());
            }
            if b.set >= self.limits.max_bound_descriptor_sets {
                return fail(format!(
                    "the device binds at most {} descriptor sets",
                    self.limits.max_bound_descriptor_sets
                ));
            }
            if b.data.is_empty() && !matches!(b.kind, BufferKind::Sampler(_)) {
                return fail("a buffer needs at least one byte".into());
            }
            let max = match b.kind {
                BufferKind::Sampler(_) => continue,
                BufferKind::CombinedImageSampler(shape, _) => {
                    self.check_storage_image(b, &shape)?;
                    continue;
                }
                BufferKind::Uniform => self.limits.max_uniform_buffer_range,
                BufferKind::Storage => self.limits.max_storage_buffer_range,
                BufferKind::StorageImage(shape) | BufferKind::SampledImage(shape) => {
                    self.check_storage_image(b, &shape)?;
                    continue;
                }
            };
            if b.data.len() as u64 > u64::from(max) {
                return fail(format!("{} bytes exceed the device's range {max}", b.data.len()));
            }
        }
        for declared in reflection.descriptors_of(entry) {
            let fail =
                |reason: String| Err(Error::Binding { set: declared.set, binding: declared.binding, reason });
            let kind = match declared.kind {
                DescriptorKind::StorageBuffer => BufferKind::Storage,
                DescriptorKind::UniformBuffer => BufferKind::Uniform,
                DescriptorKind::StorageImage
                | DescriptorKind::SampledImage
                | DescriptorKind::StorageTexelBuffer
                | DescriptorKind::UniformTexelBuffer => {
                    let bound =
                        bindings.iter().find(|b| (b.set, b.binding) == (declared.set, declared.binding));
                    let shape = match bound.map(|b| b.kind) {
                        Some(BufferKind::StorageImage(shape))
                            if matches!(
                                declared.kind,
                                DescriptorKind::StorageImage | DescriptorKind::StorageTexelBuffer
                            ) =>
                        {
                            shape
                        }
                        Some(BufferKind::SampledImage(shape))
                            if matches!(
                                declared.kind,
                                DescriptorKind::SampledImage | DescriptorKind::UniformTexelBuffer
                            ) =>
                        {
                            shape
                        }
                        _ => {
                            return fail(format!(
                                "the shader declares a {} here, and the run binds none",
                                declared.kind
                            ))
                        }
                    };
                    let decl = declared.image;
                    if decl.and_then(|d| d.dim) != Some(shape.dim) {
                        return fail(format!("the shader's {} is not {}", declared.kind, shape.dim));
                    }
                    if decl.is_some_and(|d| d.format_code != 0 && d.format != Some(shape.format)) {
                        return fail(format!("the shader's {} is not {}", declared.kind, shape.format));
                    }
                    continue;
                }
                DescriptorKind::Sampler | DescriptorKind::CombinedImageSampler => {
                    let bound =
                        bindings.iter().find(|b| (b.set, b.binding) == (declared.set, declared.binding));
                    match (declared.kind, bound.map(|b| b.kind)) {
                        (DescriptorKind::Sampler, Some(BufferKind::Sampler(_))) => {}
                        (
                            DescriptorKind::CombinedImageSampler,
                            Some(BufferKind::CombinedImageSampler(shape, _)),
                        ) => {
                            let decl = declared.image;
                            if decl.and_then(|d| d.dim) != Some(shape.dim) {
                                return fail(format!("the shader's {} is not {}", declared.kind, shape.dim));
                            }
                            if decl.is_some_and(|d| d.format_code != 0 && d.format != Some(shape.format)) {
                                return fail(format!(
                                    "the shader's {} is not {}",
                                    declared.kind, shape.format
                                ));
                            }
                        }
                        _ => {
                            return fail(format!(
                                "the shader declares a {} here, and the run binds none",
                                declared.kind
                            ))
                        }
                    }
                    continue;
                }
                other => return fail(format!("not supported yet: binding a {other}")),
            };
            match bindings.iter().find(|b| (b.set, b.binding) == (declared.set, declared.binding)) {
                None => {
                    return fail(format!(
                        "the shader declares a {} here, and the run binds nothing",
                        declared.kind
                    ))
                }
                Some(b) if b.kind != kind => {
                    return fail(format!(
                        "the shader declares a {} here, and the run binds a {:?} buffer",
                        declared.kind, b.kind
                    ))
                }
                Some(b) if (b.data.len() as u64) < declared.fixed_size => {
                    return fail(format!(
                        "{} bytes, and the shader's block needs at least {}",
                        b.data.len(),
                        declared.fixed_size
                    ))
                }
                Some(_) => {}
            }
        }
        let push_size = reflection.push_constant_size_of(entry).unwrap_or(0);
        if (dispatch.push.len() as u64) < push_size {
            return Err(Error::Dispatch(format!(
                "{} bytes of push constants, and the shader's block is {push_size} bytes",
                dispatch.push.len()
            )));
        }
        if dispatch.push.len() as u64 > u64::from(self.limits.max_push_constants_size) {
            return Err(Error::Dispatch(format!(
                "{} bytes of push constants exceed the device's limit {}",
                dispatch.push.len(),
                self.limits.max_push_constants_size
            )));
        }
        for spec in dispatch.spec {
            if reflection.spec_constant(spec.id).is_none() {
                return Err(Error::Dispatch(format!("the shader has no spec constant {}", spec.id)));
            }
        }
        if dispatch.repeat == 0 {
            return Err(Error::Dispatch("at least one dispatch".into()));
        }
        Ok(())
    }

    fn submit_repeated(
        &self,
        dispatch: &Dispatch<'_>,
        bindings: &mut [Binding],
        reflection: &Reflection,
        entry_point: &CString,
        objects: &mut Objects<'_>,
        before_each: &mut Option<Refill<'_>>,
    ) -> Result<Timings, Error> {
        // Per binding: its host buffer (an image's staging buffer), that buffer's memory and
        // the descriptor type; and the image itself for storage images.
        let mut created = Vec::with_capacity(bindings.len());
        let mut images: Vec<Option<ImageObjects>> = Vec::with_capacity(bindings.len());
        let mut texel_views: Vec<Option<vk::BufferView>> = Vec::with_capacity(bindings.len());
        let mut samplers: Vec<Option<vk::Sampler>> = Vec::with_capacity(bindings.len());
        for b in bindings.iter() {
            let (usage, kind) = match b.kind {
                BufferKind::Sampler(desc) => {
                    samplers.push(Some(self.run_sampler(objects, desc)?));
                    created.push((vk::Buffer::null(), vk::DeviceMemory::null(), vk::DescriptorType::SAMPLER));
                    images.push(None);
                    texel_views.push(None);
                    continue;
                }
                BufferKind::CombinedImageSampler(shape, desc) => {
                    samplers.push(Some(self.run_sampler(objects, desc)?));
                    let image = self.storage_image(objects, &shape, &b.data, false)?;
                    created.push((
                        image.staging,
                        image.staging_memory,
                        vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                    ));
                    images.push(Some(image));
                    texel_views.push(None);
                    continue;
                }
                BufferKind::Storage => {
                    (vk::BufferUsageFlags::STORAGE_BUFFER, vk::DescriptorType::STORAGE_BUFFER)
                }
                BufferKind::Uniform => {
                    (vk::BufferUsageFlags::UNIFORM_BUFFER, vk::DescriptorType::UNIFORM_BUFFER)
                }
                BufferKind::StorageImage(shape) | BufferKind::SampledImage(shape)
                    if shape.dim == ImageDim::Buffer =>
                {
                    let storage = matches!(b.kind, BufferKind::StorageImage(_));
                    let (usage, kind) = if storage {
                        (vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER, vk::DescriptorType::STORAGE_TEXEL_BUFFER)
                    } else {
                        (vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER, vk::DescriptorType::UNIFORM_TEXEL_BUFFER)
                    };
                    let (buffer, memory) = self.host_buffer(objects, b.data.len(), &b.data, usage)?;
                    let view_info = vk::BufferViewCreateInfo::default()
                        .buffer(buffer)
                        .format(vk_image_format(shape.format))
                        .offset(0)
                        .range(vk::WHOLE_SIZE);
                    // SAFETY: a view of a whole texel buffer; owned by `objects`.
                    let view = unsafe { self.device.create_buffer_view(&view_info, None) }
                        .map_err(vk_error("vkCreateBufferView"))?;
                    objects.buffer_views.push(view);
                    created.push((buffer, memory, kind));
                    texel_views.push(Some(view));
                    images.push(None);
                    samplers.push(None);
                    continue;
                }
                BufferKind::StorageImage(shape) | BufferKind::SampledImage(shape) => {
                    let storage = matches!(b.kind, BufferKind::StorageImage(_));
                    let image = self.storage_image(objects, &shape, &b.data, storage)?;
                    let kind = if storage {
                        vk::DescriptorType::STORAGE_IMAGE
                    } else {
                        vk::DescriptorType::SAMPLED_IMAGE
                    };
                    created.push((image.staging, image.staging_memory, kind));
                    images.push(Some(image));
                    texel_views.push(None);
                    samplers.push(None);
                    continue;
                }
            };
            let (buffer, memory) = self.host_buffer(objects, b.data.len(), &b.data, usage)?;
            created.push((buffer, memory, kind));
            images.push(None);
            texel_views.push(None);
            samplers.push(None);
        }

        // Set layouts for sets 0..=max (sets the shader skips stay empty).
        let set_count = bindings.iter().map(|b| b.set + 1).max().unwrap_or(0);
        let mut layouts = Vec::with_capacity(set_count as usize);
        for set in 0..set_count {
            let entries: Vec<vk::DescriptorSetLayoutBinding> = bindings
                .iter()
                .zip(&created)
                .filter(|(b, _)| b.set == set)
                .map(|(b, (_, _, kind))| {
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b.binding)
                        .descriptor_type(*kind)
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
        // Push constants: the bytes given, rounded up to whole words as Vulkan requires.
        let mut push = dispatch.push.to_vec();
        push.resize(push.len().next_multiple_of(4), 0);
        let push_ranges = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: push.len() as u32,
        }];
        let mut layout_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts);
        if !push.is_empty() {
            layout_info = layout_info.push_constant_ranges(&push_ranges);
        }
        // SAFETY: valid create info; owned by `objects`.
        let pipeline_layout = unsafe { self.device.create_pipeline_layout(&layout_info, None) }
            .map_err(vk_error("vkCreatePipelineLayout"))?;
        objects.pipeline_layout = pipeline_layout;

        let mut sets = Vec::new();
        if set_count > 0 {
            let mut pool_sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
            for (_, _, ty) in &created {
                match pool_sizes.iter_mut().find(|s| s.ty == *ty) {
                    Some(size) => size.descriptor_count += 1,
                    None => pool_sizes.push(vk::DescriptorPoolSize { ty: *ty, descriptor_count: 1 }),
                }
            }
            let pool_info =
                vk::DescriptorPoolCreateInfo::default().max_sets(set_count).pool_sizes(&pool_sizes);
            // SAFETY: valid create info; owned by `objects`.
            let pool = unsafe { self.device.create_descriptor_pool(&pool_info, None) }
                .map_err(vk_error("vkCreateDescriptorPool"))?;
            objects.descriptor_pool = pool;
            let alloc = vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts);
            // SAFETY: the pool was sized for exactly these sets.
            sets = unsafe { self.device.allocate_descriptor_sets(&alloc) }
                .map_err(vk_error("vkAllocateDescriptorSets"))?;
        }
        let buffer_infos: Vec<vk::DescriptorBufferInfo> = created
            .iter()
            .map(|(buffer, _, _)| vk::DescriptorBufferInfo {
                buffer: *buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            })
            .collect();
        let image_infos: Vec<vk::DescriptorImageInfo> = images
            .iter()
            .zip(&samplers)
            .map(|(image, sampler)| match image {
                Some(image) => vk::DescriptorImageInfo {
                    sampler: sampler.unwrap_or_default(),
                    image_view: image.view,
                    image_layout: image.shader_layout(),
                },
                None => {
                    vk::DescriptorImageInfo { sampler: sampler.unwrap_or_default(), ..Default::default() }
                }
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = bindings
            .iter()
            .zip(&created)
            .enumerate()
            .map(|(i, (b, (_, _, kind)))| {
                let write = vk::WriteDescriptorSet::default()
                    .dst_set(sets[b.set as usize])
                    .dst_binding(b.binding)
                    .descriptor_type(*kind);
                if images[i].is_some() || samplers[i].is_some() {
                    write.image_info(std::slice::from_ref(&image_infos[i]))
                } else if let Some(view) = &texel_views[i] {
                    write.texel_buffer_view(std::slice::from_ref(view))
                } else {
                    write.buffer_info(std::slice::from_ref(&buffer_infos[i]))
                }
            })
            .collect();
        // SAFETY: every write names a live set, a matching type and a live buffer.
        unsafe { self.device.update_descriptor_sets(&writes, &[]) };

        // Specialization: each constant's bits in the size its type has (a bool is a
        // 4-byte VkBool32).
        let mut spec_data = Vec::new();
        let mut spec_entries = Vec::new();
        for value in dispatch.spec {
            let Some(constant) = reflection.spec_constant(value.id) else { continue };
            let size = constant.ty.size().clamp(1, 8) as usize;
            spec_entries.push(vk::SpecializationMapEntry {
                constant_id: value.id,
                offset: spec_data.len() as u32,
                size,
            });
            spec_data.extend_from_slice(&value.bits.to_le_bytes()[..size]);
        }
        let specialization = vk::SpecializationInfo::default().map_entries(&spec_entries).data(&spec_data);

        let compile_start = Instant::now();
        let module_info = vk::ShaderModuleCreateInfo::default().code(dispatch.spirv);
        // SAFETY: a module of whole words with the SPIR-V magic (checked by `reflect`).
        let module = unsafe { self.device.create_shader_module(&module_info, None) }
            .map_err(vk_error("vkCreateShaderModule"))?;
        objects.shader_module = module;
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(entry_point.as_c_str());
        if !spec_entries.is_empty() {
            stage = stage.specialization_info(&specialization);
        }
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
        let compile_ms = milliseconds(compile_start.elapsed());

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
        // SAFETY: recording a reusable command buffer whose objects live until the last
        // fence signals; the barrier makes the shader's writes visible to the host.
        unsafe {
            self.device
                .begin_command_buffer(command_buffer, &vk::CommandBufferBeginInfo::default())
                .map_err(vk_error("vkBeginCommandBuffer"))?;
            // Images start each dispatch from their staging buffer (what the binding holds).
            for image in images.iter().flatten() {
                self.record_image_upload(command_buffer, image);
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
            if !push.is_empty() {
                self.device.cmd_push_constants(
                    command_buffer,
                    pipeline_layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    &push,
                );
            }
            let [x, y, z] = dispatch.groups;
            self.device.cmd_dispatch(command_buffer, x, y, z);
            let to_host = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ);
            self.device.cmd_pipeline_barrier(
                command_buffer,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[to_host],
                &[],
                &[],
            );
            // Storage images back to their staging buffer, then visible to the host.
            for image in images.iter().flatten().filter(|i| i.storage) {
                self.record_image_readback(command_buffer, image);
            }
            if images.iter().flatten().any(|i| i.storage) {
                self.record_transfer_to_host(command_buffer);
            }
            self.device.end_command_buffer(command_buffer).map_err(vk_error("vkEndCommandBuffer"))?;
            objects.fence = self
                .device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(vk_error("vkCreateFence"))?;
        }

        let timeout = dispatch.time_limit.unwrap_or(self.dispatch_timeout);
        let nanoseconds = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        let mut dispatch_ms = Vec::with_capacity(dispatch.repeat as usize);
        for index in 0..dispatch.repeat {
            if index > 0 {
                if let Some(refill) = before_each.as_mut() {
                    refill(bindings);
                    for (b, (_, memory, _)) in
                        bindings.iter().zip(&created).filter(|(b, _)| !b.data.is_empty())
                    {
                        self.write_memory(*memory, b.data.len(), &b.data)?;
                    }
                }
            }
            let submit = vk::SubmitInfo::default().command_buffers(std::slice::from_ref(&command_buffer));
            let start = Instant::now();
            // SAFETY: the command buffer is complete and not pending (the previous
            // submission's fence was waited for); host writes before a submit are visible
            // to it.
            unsafe {
                self.device
                    .queue_submit(self.queue, &[submit], objects.fence)
                    .map_err(vk_error("vkQueueSubmit"))?;
                match self.device.wait_for_fences(&[objects.fence], true, nanoseconds) {
                    Ok(()) => {}
                    Err(vk::Result::TIMEOUT) => return Err(Error::Timeout(timeout)),
                    Err(result) => return Err(Error::Vulkan { call: "vkWaitForFences", result }),
                }
            }
            dispatch_ms.push(milliseconds(start.elapsed()));
            // SAFETY: the fence has signalled and nothing waits on it.
            unsafe { self.device.reset_fences(&[objects.fence]) }.map_err(vk_error("vkResetFences"))?;
        }
        for (b, (_, memory, kind)) in bindings.iter_mut().zip(&created) {
            if matches!(
                *kind,
                vk::DescriptorType::STORAGE_BUFFER
                    | vk::DescriptorType::STORAGE_IMAGE
                    | vk::DescriptorType::STORAGE_TEXEL_BUFFER
            ) {
                b.data = self.read_memory(*memory, b.data.len())?;
            }
        }
        Ok(Timings { compile_ms, dispatch_ms })
    }
}

impl Context {
    /// The Vulkan sampler of a run's sampler: one filter for magnification and
    /// minification, nearest mip level, no level clamp, a transparent black border.
    fn run_sampler(&self, objects: &mut Objects<'_>, desc: SamplerDesc) -> Result<vk::Sampler, Error> {
        let filter = match desc.filter {
            Filter::Nearest => vk::Filter::NEAREST,
            Filter::Linear => vk::Filter::LINEAR,
        };
        let address = match desc.address {
            AddressMode::Repeat => vk::SamplerAddressMode::REPEAT,
            AddressMode::MirroredRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
            AddressMode::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
            AddressMode::ClampToBorder => vk::SamplerAddressMode::CLAMP_TO_BORDER,
        };
        self.create_sampler(objects, filter, address, vk::LOD_CLAMP_NONE)
    }

    /// An image's (or texel buffer's) extent, layers and format against the device's
    /// limits and format features.
    fn check_storage_image(&self, b: &Binding, shape: &ImageShape) -> Result<(), Error> {
        let fail = |reason: String| Err(Error::Binding { set: b.set, binding: b.binding, reason });
        if b.data.len() as u64 != shape.byte_size() {
            return fail(format!(
                "{} needs {} bytes, not {}",
                shape.describe(),
                shape.byte_size(),
                b.data.len()
            ));
        }
        // SAFETY: a valid physical device.
        let properties = unsafe {
            self.instance
                .get_physical_device_format_properties(self.physical_device, vk_image_format(shape.format))
        };
        if shape.dim == ImageDim::Buffer {
            let max = self.limits.max_texel_buffer_elements;
            if shape.extent[0] > max {
                return fail(format!("{} exceeds the device's limit {max} elements", shape.describe()));
            }
            let (needed, what) = match b.kind {
                BufferKind::SampledImage(_) => (vk::FormatFeatureFlags::UNIFORM_TEXEL_BUFFER, "uniform"),
                _ => (vk::FormatFeatureFlags::STORAGE_TEXEL_BUFFER, "storage"),
            };
            if !properties.buffer_features.contains(needed) {
                return fail(format!(
                    "not supported yet: {} {what} texel buffers on this device",
                    shape.format
                ));
            }
            return Ok(());
        }
        let (extent, layers) = image_extent(shape);
        let max = match shape.dim {
            ImageDim::D1 | ImageDim::D1Array => self.limits.max_image_dimension1_d,
            ImageDim::D2 | ImageDim::D2Array => self.limits.max_image_dimension2_d,
            ImageDim::D3 => self.limits.max_image_dimension3_d,
            ImageDim::Buffer => self.limits.max_texel_buffer_elements,
        };
        if extent.width > max || extent.height > max || extent.depth > max {
            return fail(format!("{} exceeds the device's limit {max}", shape.describe()));
        }
        if layers > self.limits.max_image_array_layers {
            return fail(format!(
                "{layers} layers exceed the device's limit {}",
                self.limits.max_image_array_layers
            ));
        }
        let (needed, what) = match b.kind {
            BufferKind::SampledImage(_) => (vk::FormatFeatureFlags::SAMPLED_IMAGE, "sampled"),
            BufferKind::CombinedImageSampler(_, SamplerDesc { filter: Filter::Linear, .. }) => (
                vk::FormatFeatureFlags::SAMPLED_IMAGE | vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR,
                "linearly filtered",
            ),
            BufferKind::CombinedImageSampler(..) => (vk::FormatFeatureFlags::SAMPLED_IMAGE, "sampled"),
            _ => (vk::FormatFeatureFlags::STORAGE_IMAGE, "storage"),
        };
        if !properties.optimal_tiling_features.contains(needed) {
            return fail(format!("not supported yet: {} {what} images on this device", shape.format));
        }
        Ok(())
    }

    /// An optimal-tiling storage image of `shape`, its view, and a host staging buffer
    /// holding `data` (the upload source and the read-back target).
    fn storage_image(
        &self,
        objects: &mut Objects<'_>,
        shape: &ImageShape,
        data: &[u8],
        storage: bool,
    ) -> Result<ImageObjects, Error> {
        let (extent, layers) = image_extent(shape);
        let (image_type, view_type) = match shape.dim {
            // Texel buffers are buffer views, never images (`submit_repeated`).
            ImageDim::D1 | ImageDim::Buffer => (vk::ImageType::TYPE_1D, vk::ImageViewType::TYPE_1D),
            ImageDim::D1Array => (vk::ImageType::TYPE_1D, vk::ImageViewType::TYPE_1D_ARRAY),
            ImageDim::D2 => (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D),
            ImageDim::D2Array => (vk::ImageType::TYPE_2D, vk::ImageViewType::TYPE_2D_ARRAY),
            ImageDim::D3 => (vk::ImageType::TYPE_3D, vk::ImageViewType::TYPE_3D),
        };
        let format = vk_image_format(shape.format);
        let info = vk::ImageCreateInfo::default()
            .image_type(image_type)
            .format(format)
            .extent(extent)
            .mip_levels(shape.levels)
            .array_layers(layers)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(
                vk::ImageUsageFlags::TRANSFER_DST
                    | vk::ImageUsageFlags::TRANSFER_SRC
                    | if storage { vk::ImageUsageFlags::STORAGE } else { vk::ImageUsageFlags::SAMPLED },
            )
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let handle = self.create_bound_image(objects, &info)?;
        let view_info = vk::ImageViewCreateInfo::default()
            .image(handle)
            .view_type(view_type)
            .format(format)
            .subresource_range(COLOR_RANGE);
        // SAFETY: a view of the whole image; owned by `objects`.
        let view = unsafe { self.device.create_image_view(&view_info, None) }
            .map_err(vk_error("vkCreateImageView"))?;
        objects.image_views.push(view);
        let (staging, staging_memory) = self.host_buffer(
            objects,
            data.len(),
            data,
            vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        Ok(ImageObjects {
            image: handle,
            view,
            staging,
            staging_memory,
            extent,
            layers,
            levels: shape.levels,
            texel_size: shape.format.texel_size() as u64,
            storage,
        })
    }
}

/// Vulkan's extent and layer count of `shape` (an array's layers are the dimension after
/// its last one).
fn image_extent(shape: &ImageShape) -> (vk::Extent3D, u32) {
    let [w, h, d] = shape.extent;
    match shape.dim {
        ImageDim::D1 | ImageDim::Buffer => (vk::Extent3D { width: w, height: 1, depth: 1 }, 1),
        ImageDim::D1Array => (vk::Extent3D { width: w, height: 1, depth: 1 }, h),
        ImageDim::D2 => (vk::Extent3D { width: w, height: h, depth: 1 }, 1),
        ImageDim::D2Array => (vk::Extent3D { width: w, height: h, depth: 1 }, d),
        ImageDim::D3 => (vk::Extent3D { width: w, height: h, depth: d }, 1),
    }
}

/// The Vulkan format of a SPIR-V image format (the one Vulkan's "compatibility between
/// SPIR-V image formats and Vulkan formats" table pairs it with).
pub(crate) fn vk_image_format(format: ImageFormat) -> vk::Format {
    use ImageFormat as F;
    match format {
        F::Rgba32f => vk::Format::R32G32B32A32_SFLOAT,
        F::Rgba16f => vk::Format::R16G16B16A16_SFLOAT,
        F::R32f => vk::Format::R32_SFLOAT,
        F::Rgba8 => vk::Format::R8G8B8A8_UNORM,
        F::Rgba8Snorm => vk::Format::R8G8B8A8_SNORM,
        F::Rg32f => vk::Format::R32G32_SFLOAT,
        F::Rg16f => vk::Format::R16G16_SFLOAT,
        F::R16f => vk::Format::R16_SFLOAT,
        F::Rgba16 => vk::Format::R16G16B16A16_UNORM,
        F::Rg16 => vk::Format::R16G16_UNORM,
        F::Rg8 => vk::Format::R8G8_UNORM,
        F::R16 => vk::Format::R16_UNORM,
        F::R8 => vk::Format::R8_UNORM,
        F::Rgba16Snorm => vk::Format::R16G16B16A16_SNORM,
        F::Rg16Snorm => vk::Format::R16G16_SNORM,
        F::Rg8Snorm => vk::Format::R8G8_SNORM,
        F::R16Snorm => vk::Format::R16_SNORM,
        F::R8Snorm => vk::Format::R8_SNORM,
        F::Rgba32i => vk::Format::R32G32B32A32_SINT,
        F::Rgba16i => vk::Format::R16G16B16A16_SINT,
        F::Rgba8i => vk::Format::R8G8B8A8_SINT,
        F::R32i => vk::Format::R32_SINT,
        F::Rg32i => vk::Format::R32G32_SINT,
        F::Rg16i => vk::Format::R16G16_SINT,
        F::Rg8i => vk::Format::R8G8_SINT,
        F::R16i => vk::Format::R16_SINT,
        F::R8i => vk::Format::R8_SINT,
        F::Rgba32ui => vk::Format::R32G32B32A32_UINT,
        F::Rgba16ui => vk::Format::R16G16B16A16_UINT,
        F::Rgba8ui => vk::Format::R8G8B8A8_UINT,
        F::R32ui => vk::Format::R32_UINT,
        F::Rg32ui => vk::Format::R32G32_UINT,
        F::Rg16ui => vk::Format::R16G16_UINT,
        F::Rg8ui => vk::Format::R8G8_UINT,
        F::R16ui => vk::Format::R16_UINT,
        F::R8ui => vk::Format::R8_UINT,
    }
}
