//! The interface of a compute entry point, read from the SPIR-V IR before it is
//! converted to the LLVM dialect: what the CPU kernel pass and the runtime must supply
//! for each global the shader reads or writes, by the global's symbol name (which the
//! conversion keeps).

use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{Ir, OpId};
use spirvkit_ir::types::{StructBody, Type, TypeKind};

use super::{module_ops, symbol, KernelError};

/// The built-in inputs of a compute shader the CPU runner computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltIn {
    GlobalInvocationId,
    LocalInvocationId,
    LocalInvocationIndex,
    WorkgroupId,
    NumWorkgroups,
    WorkgroupSize,
    SubgroupSize,
    SubgroupLocalInvocationId,
    NumSubgroups,
    SubgroupId,
}

impl BuiltIn {
    /// Whether every invocation of a workgroup reads the same value (on the CPU, with
    /// subgroups of one invocation).
    pub fn is_workgroup_uniform(self) -> bool {
        matches!(
            self,
            BuiltIn::WorkgroupId
                | BuiltIn::NumWorkgroups
                | BuiltIn::WorkgroupSize
                | BuiltIn::SubgroupSize
                | BuiltIn::SubgroupLocalInvocationId
                | BuiltIn::NumSubgroups
        )
    }

    pub fn from_name(name: &str) -> Option<BuiltIn> {
        Some(match name {
            "GlobalInvocationId" => BuiltIn::GlobalInvocationId,
            "LocalInvocationId" => BuiltIn::LocalInvocationId,
            "LocalInvocationIndex" => BuiltIn::LocalInvocationIndex,
            "WorkgroupId" => BuiltIn::WorkgroupId,
            "NumWorkgroups" => BuiltIn::NumWorkgroups,
            "WorkgroupSize" => BuiltIn::WorkgroupSize,
            "SubgroupSize" => BuiltIn::SubgroupSize,
            "SubgroupLocalInvocationId" => BuiltIn::SubgroupLocalInvocationId,
            "NumSubgroups" => BuiltIn::NumSubgroups,
            "SubgroupId" => BuiltIn::SubgroupId,
            _ => return None,
        })
    }

    /// Whether the built-in is a `vector<3xi32>` (the others are one `i32`).
    pub fn is_vector(self) -> bool {
        matches!(
            self,
            BuiltIn::GlobalInvocationId
                | BuiltIn::LocalInvocationId
                | BuiltIn::WorkgroupId
                | BuiltIn::NumWorkgroups
                | BuiltIn::WorkgroupSize
        )
    }
}

/// How a buffer block is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// `Block`: a uniform buffer in `Uniform`, a storage buffer in `StorageBuffer`.
    Block,
    /// `BufferBlock`: a storage buffer in `Uniform` (SPIR-V 1.0-1.2 style).
    BufferBlock,
}

/// A buffer bound by (set, binding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Descriptor {
    pub set: u32,
    pub binding: u32,
    /// `StorageBuffer` or `Uniform`.
    pub storage_class: String,
    pub block: BlockKind,
    /// Bytes of the block up to its runtime array (the whole block without one).
    pub fixed_size: u64,
    /// The runtime array's stride, when the block ends in one.
    pub runtime_stride: Option<u64>,
    /// A storage image (`UniformConstant`): its memory is the conversion's 16-byte
    /// header and the texels (`fixed_size` is the header, `runtime_stride` the texel).
    pub image: Option<ImageDescriptor>,
    /// A sampler (`UniformConstant` `!spirv.sampler`): its memory is the run's sampler
    /// state (`convert_spirv_to_llvm::images`).
    pub sampler: bool,
}

/// A storage image's type, as `!spirv.image` names its parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageDescriptor {
    /// `Dim1D`, `Dim2D`, `Dim3D`, `Buffer` (a texel buffer).
    pub dim: String,
    pub arrayed: bool,
    /// The SPIR-V format name (`Rgba8`; `Unknown`: the run's).
    pub format: String,
    /// Read without a sampler (`ImageFetch`): a sampled image, not a storage one.
    pub sampled: bool,
    /// A combined image sampler (`!spirv.sampled_image`; GLSL `sampler2D`,
    /// `samplerBuffer`): its descriptor holds the sampler too.
    pub combined: bool,
}

impl Descriptor {
    /// Whether the shader may write it (a storage buffer or image rather than a uniform
    /// buffer).
    pub fn is_storage(&self) -> bool {
        self.storage_class == "StorageBuffer" || self.block == BlockKind::BufferBlock || self.image.is_some()
    }
}

/// What one interface global is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GlobalKind {
    BuiltIn(BuiltIn),
    Descriptor(Descriptor),
    /// Shared by the workgroup; `size` and `align` in bytes by SPIR-V's natural layout
    /// (the kernel pass sizes the converted LLVM type again, which is authoritative).
    Workgroup {
        size: u64,
        align: u64,
    },
    /// The push-constant block: `size` bytes of its explicit layout.
    PushConstant {
        size: u64,
    },
    /// Per invocation.
    Private,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterfaceGlobal {
    /// The symbol name, kept by the conversion.
    pub name: String,
    pub kind: GlobalKind,
}

/// The interface of one compute entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInterface {
    /// The entry point's name (`OpEntryPoint`'s).
    pub entry: String,
    /// The entry function's symbol name.
    pub function: String,
    /// Invocations per workgroup in x, y, z.
    pub workgroup_size: [u32; 3],
    /// Every global of the module the kernel may reference, in module order.
    pub globals: Vec<InterfaceGlobal>,
}

impl KernelInterface {
    pub fn global(&self, name: &str) -> Option<&InterfaceGlobal> {
        self.globals.iter().find(|g| g.name == name)
    }

    pub fn invocations(&self) -> u64 {
        self.workgroup_size.iter().map(|&d| u64::from(d)).product()
    }

    pub fn descriptors(&self) -> impl Iterator<Item = (&str, &Descriptor)> {
        self.globals.iter().filter_map(|g| match &g.kind {
            GlobalKind::Descriptor(d) => Some((g.name.as_str(), d)),
            _ => None,
        })
    }

    /// A human-readable summary, one line per item (what `--spirv-cpu-kernel-interface`
    /// prints).
    pub fn describe(&self) -> String {
        let [x, y, z] = self.workgroup_size;
        let mut out =
            format!("entry {} (function @{}), workgroup size {x}x{y}x{z}\n", self.entry, self.function);
        for g in &self.globals {
            let what = match &g.kind {
                GlobalKind::BuiltIn(b) => format!("built-in {b:?}"),
                GlobalKind::Descriptor(d) => format!(
                    "descriptor set {} binding {}: {} {:?}, {} fixed bytes{}",
                    d.set,
                    d.binding,
                    d.storage_class,
                    d.block,
                    d.fixed_size,
                    d.runtime_stride.map(|s| format!(", runtime array stride {s}")).unwrap_or_default()
                ),
                GlobalKind::Workgroup { size, align } => {
                    format!("workgroup memory: {size} bytes, align {align}")
                }
                GlobalKind::PushConstant { size } => format!("push constants: {size} bytes"),
                GlobalKind::Private => "private (per invocation)".to_string(),
            };
            out.push_str(&format!("  @{}: {what}\n", g.name));
        }
        out
    }
}

/// Reads the interface of the compute entry point `entry` (the only one when `None`)
/// of `module` (a `spirv.module`). Spec constants count with their current default
/// values: call [`super::spec::set_spec_values`] first to apply `--spec` values.
pub fn kernel_interface(ir: &Ir, module: OpId, entry: Option<&str>) -> Result<KernelInterface, KernelError> {
    let ops = module_ops(ir, module);
    let entry_points: Vec<OpId> = ops
        .iter()
        .copied()
        .filter(|&op| ir.op(op).name == "spirv.EntryPoint")
        .filter(|&op| dialect_body(ir.op(op).attr("execution_model")) == Some("GLCompute"))
        .collect();
    let entry_name = |op: OpId| symbol(ir, op, "fn").unwrap_or_default();
    let chosen = match entry {
        Some(name) => entry_points.iter().copied().find(|&op| entry_name(op) == name),
        None if entry_points.len() == 1 => entry_points.first().copied(),
        None if entry_points.is_empty() => None,
        None => {
            let names: Vec<String> = entry_points.iter().map(|&op| entry_name(op)).collect();
            return Err(KernelError::new(
                &ir.op(module).location,
                format!("the module has several compute entry points ({}): name one", names.join(", ")),
            ));
        }
    };
    let Some(entry_op) = chosen else {
        let what = entry
            .map(|e| format!("no compute entry point named '{e}'"))
            .unwrap_or("no compute entry point".into());
        return Err(KernelError::new(&ir.op(module).location, what));
    };
    let function = entry_name(entry_op);

    let mut workgroup_size = None;
    for &op in &ops {
        let o = ir.op(op);
        if o.name != "spirv.ExecutionMode" || symbol(ir, op, "fn").as_deref() != Some(function.as_str()) {
            continue;
        }
        let mode = dialect_body(o.attr("execution_mode"));
        if matches!(mode, Some("LocalSize") | Some("LocalSizeId")) {
            let Some(Attribute::Array(values)) = o.attr("values") else { continue };
            let mut size = [1u32; 3];
            for (slot, v) in size.iter_mut().zip(values) {
                if let Attribute::Integer { value, .. } = v {
                    *slot = u32::try_from(*value).unwrap_or(0);
                }
            }
            workgroup_size = Some(size);
        }
    }
    // A constant decorated WorkgroupSize overrides the execution mode (SPIR-V's rule).
    let constants = spec_constant_values(ir, &ops);
    for &op in &ops {
        let o = ir.op(op);
        let is_workgroup_size =
            matches!(o.attr("built_in"), Some(Attribute::String(b)) if b == "WorkgroupSize");
        if !is_workgroup_size || o.name == "spirv.GlobalVariable" {
            continue;
        }
        let Some(Attribute::Array(constituents)) = o.attr("constituents") else { continue };
        let mut size = [1u32; 3];
        for (slot, c) in size.iter_mut().zip(constituents) {
            let value = match c {
                Attribute::Integer { value, .. } => Some(*value),
                Attribute::SymbolRef(path) if path.len() == 1 => constants.get(&path[0]).copied(),
                _ => None,
            };
            *slot = value.and_then(|v| u32::try_from(v).ok()).unwrap_or(0);
        }
        workgroup_size = Some(size);
    }
    let Some(workgroup_size) = workgroup_size else {
        return Err(KernelError::new(
            &ir.op(entry_op).location,
            format!("entry point '{function}' has no workgroup size"),
        ));
    };
    if workgroup_size.contains(&0)
        || workgroup_size.iter().map(|&d| u64::from(d)).product::<u64>() > 1024 * 1024
    {
        return Err(KernelError::new(
            &ir.op(entry_op).location,
            format!("workgroup size {workgroup_size:?} is out of range (each dimension at least 1, at most 1M invocations)"),
        ));
    }

    let mut globals = Vec::new();
    for &op in &ops {
        if ir.op(op).name != "spirv.GlobalVariable" {
            continue;
        }
        let name = symbol(ir, op, "sym_name").unwrap_or_default();
        let kind = global_kind(ir, op)
            .map_err(|m| KernelError::new(&ir.op(op).location, format!("@{name}: {m}")))?;
        if let Some(kind) = kind {
            globals.push(InterfaceGlobal { name, kind });
        }
    }
    Ok(KernelInterface { entry: entry.unwrap_or(&function).to_string(), function, workgroup_size, globals })
}

/// The integer default values of the module's scalar spec constants, by symbol.
fn spec_constant_values(ir: &Ir, ops: &[OpId]) -> std::collections::HashMap<String, i128> {
    let mut out = std::collections::HashMap::new();
    for &op in ops {
        let o = ir.op(op);
        if o.name != "spirv.SpecConstant" {
            continue;
        }
        let value = match o.attr("default_value") {
            Some(Attribute::Integer { value, .. }) => *value,
            Some(Attribute::Bool(b)) => i128::from(*b),
            _ => continue,
        };
        out.insert(symbol(ir, op, "sym_name").unwrap_or_default(), value);
    }
    out
}

fn dialect_body(attr: Option<&Attribute>) -> Option<&str> {
    match attr {
        Some(Attribute::Dialect { body: Some(body), .. }) => Some(body.as_str()),
        Some(Attribute::String(s)) => Some(s.as_str()),
        _ => None,
    }
}

pub(super) fn global_kind(ir: &Ir, op: OpId) -> Result<Option<GlobalKind>, String> {
    let o = ir.op(op);
    let Some(Attribute::Type(ptr)) = o.attr("type") else { return Err("no pointer type".into()) };
    let TypeKind::Pointer { pointee, storage_class, .. } = ir.types.kind(*ptr) else {
        return Err("the global's type is not a SPIR-V pointer".into());
    };
    let pointee = *pointee;
    if let Some(Attribute::String(b)) = o.attr("built_in") {
        return match BuiltIn::from_name(b) {
            Some(b) => Ok(Some(GlobalKind::BuiltIn(b))),
            None => Err(format!("not supported yet: the built-in {b} in a compute shader")),
        };
    }
    let binding = int_attr(o.attr("binding"));
    let set = int_attr(o.attr("descriptor_set"));
    match storage_class.as_str() {
        "StorageBuffer" | "Uniform" => {
            let (Some(set), Some(binding)) = (set, binding) else {
                return Err(format!("a {storage_class} global without a descriptor set and binding"));
            };
            let (block, fixed_size, runtime_stride) = block_layout(ir, pointee)?;
            Ok(Some(GlobalKind::Descriptor(Descriptor {
                set,
                binding,
                storage_class: storage_class.clone(),
                block,
                fixed_size,
                runtime_stride,
                image: None,
                sampler: false,
            })))
        }
        "PushConstant" => {
            let (_, size, _) = block_layout(ir, pointee)?;
            Ok(Some(GlobalKind::PushConstant { size }))
        }
        "Workgroup" => {
            let (size, align) = natural_layout(ir, pointee)?;
            Ok(Some(GlobalKind::Workgroup { size, align }))
        }
        "Private" => Ok(Some(GlobalKind::Private)),
        // Images, samplers and the like: not buffers; the conversion refuses what it
        // cannot lower.
        "UniformConstant" => {
            // A combined image sampler is a sampled image whose descriptor holds its sampler.
            let (image, combined) = match ir.types.kind(pointee) {
                TypeKind::SampledImage(image) => (*image, true),
                TypeKind::Sampler => {
                    let (Some(set), Some(binding)) = (set, binding) else {
                        return Err("a sampler without a descriptor set and binding".into());
                    };
                    return Ok(Some(GlobalKind::Descriptor(Descriptor {
                        set,
                        binding,
                        storage_class: storage_class.clone(),
                        block: BlockKind::Block,
                        fixed_size: crate::convert_spirv_to_llvm::images::SAMPLER_BYTES,
                        runtime_stride: None,
                        image: None,
                        sampler: true,
                    })));
                }
                _ => (pointee, false),
            };
            let TypeKind::Image { params, .. } = ir.types.kind(image) else {
                return Err("not supported yet: UniformConstant globals other than images on the CPU".into());
            };
            crate::convert_spirv_to_llvm::images::image_dims(params)
                .map_err(|what| format!("not supported yet: {what} on the CPU"))?;
            // `Unknown`: the run's format (the conversion is told it).
            let texel = crate::convert_spirv_to_llvm::images::storage_image(params, None)
                .ok()
                .map(|i| i.texel_bytes());
            let (Some(set), Some(binding)) = (set, binding) else {
                return Err("a storage image without a descriptor set and binding".into());
            };
            Ok(Some(GlobalKind::Descriptor(Descriptor {
                set,
                binding,
                storage_class: storage_class.clone(),
                block: BlockKind::Block,
                fixed_size: crate::convert_spirv_to_llvm::images::IMAGE_HEADER_BYTES,
                runtime_stride: texel,
                image: Some(ImageDescriptor {
                    dim: params[0].clone(),
                    arrayed: params[2] == "Arrayed",
                    format: params[5].clone(),
                    sampled: params[4] == "NeedSampler",
                    combined,
                }),
                sampler: false,
            })))
        }
        other => Err(format!("not supported yet: {other} globals in a compute shader")),
    }
}

fn int_attr(a: Option<&Attribute>) -> Option<u32> {
    match a {
        Some(Attribute::Integer { value, .. }) => u32::try_from(*value).ok(),
        _ => None,
    }
}

fn struct_body(ir: &Ir, ty: Type) -> Option<StructBody> {
    match ir.types.kind(ty) {
        TypeKind::LiteralStruct(body) => Some(body.clone()),
        TypeKind::IdentifiedStruct { name } => ir.types.struct_body(name).cloned(),
        _ => None,
    }
}

/// A buffer block's kind, the bytes of its fixed part and its runtime array's stride.
fn block_layout(ir: &Ir, ty: Type) -> Result<(BlockKind, u64, Option<u64>), String> {
    let Some(body) = struct_body(ir, ty) else { return Err("a buffer whose type is not a struct".into()) };
    let block = if body.decorations.iter().any(|(d, _)| d == "BufferBlock") {
        BlockKind::BufferBlock
    } else {
        BlockKind::Block
    };
    let mut fixed = 0u64;
    let mut stride = None;
    for m in &body.members {
        let offset = u64::from(m.offset.unwrap_or(0));
        if let TypeKind::RuntimeArray { element, stride: s, .. } = ir.types.kind(m.ty) {
            let s = match s {
                Some(s) => u64::from(*s),
                None => explicit_size(ir, *element, 0)?,
            };
            fixed = fixed.max(offset);
            stride = Some(s);
        } else {
            fixed = fixed.max(offset + explicit_size(ir, m.ty, 0)?);
        }
    }
    Ok((block, fixed, stride))
}

/// The byte size of a type in an explicitly laid-out block (offsets and strides given).
fn explicit_size(ir: &Ir, ty: Type, depth: u32) -> Result<u64, String> {
    if depth > 64 {
        return Err("types nested too deeply".into());
    }
    Ok(match ir.types.kind(ty) {
        TypeKind::Integer { width, .. } => u64::from(width.div_ceil(8)),
        TypeKind::Float(k) => u64::from(k.width() / 8),
        TypeKind::Vector { shape, element, .. } => {
            shape.iter().product::<u64>() * explicit_size(ir, *element, depth + 1)?
        }
        TypeKind::Array { element, count, stride, .. } => {
            let step = match stride {
                Some(s) => u64::from(*s),
                None => explicit_size(ir, *element, depth + 1)?,
            };
            u64::from(*count) * step
        }
        TypeKind::Matrix { column, columns } => u64::from(*columns) * explicit_size(ir, *column, depth + 1)?,
        TypeKind::LiteralStruct(_) | TypeKind::IdentifiedStruct { .. } => {
            let body = struct_body(ir, ty).ok_or("a struct without a body")?;
            let mut end = 0;
            for m in &body.members {
                let stride = m
                    .decorations
                    .iter()
                    .find(|(d, _)| d == "MatrixStride")
                    .and_then(|(_, v)| v.as_ref()?.parse::<u64>().ok());
                let size = match (ir.types.kind(m.ty), stride) {
                    (TypeKind::Matrix { columns, .. }, Some(s)) => u64::from(*columns) * s,
                    _ => explicit_size(ir, m.ty, depth + 1)?,
                };
                end = end.max(u64::from(m.offset.unwrap_or(0)) + size);
            }
            end
        }
        TypeKind::RuntimeArray { .. } => return Err("a runtime array inside a block's member".into()),
        _ => return Err("a type without a size in buffer memory".into()),
    })
}

/// Size and alignment by the natural (C-like) layout LLVM gives the converted type.
fn natural_layout(ir: &Ir, ty: Type) -> Result<(u64, u64), String> {
    natural(ir, ty, 0)
}

fn natural(ir: &Ir, ty: Type, depth: u32) -> Result<(u64, u64), String> {
    if depth > 64 {
        return Err("types nested too deeply".into());
    }
    Ok(match ir.types.kind(ty) {
        TypeKind::Integer { width, .. } => {
            let b = u64::from(width.div_ceil(8)).next_power_of_two();
            (b, b)
        }
        TypeKind::Float(k) => {
            let b = u64::from(k.width() / 8);
            (b, b)
        }
        TypeKind::Vector { shape, element, .. } => {
            let (e, _) = natural(ir, *element, depth + 1)?;
            let size = (shape.iter().product::<u64>() * e).next_power_of_two();
            (size, size)
        }
        TypeKind::Array { element, count, .. } => {
            let (e, a) = natural(ir, *element, depth + 1)?;
            (u64::from(*count) * e.next_multiple_of(a), a)
        }
        TypeKind::Matrix { column, columns } => {
            let (e, a) = natural(ir, *column, depth + 1)?;
            (u64::from(*columns) * e, a)
        }
        TypeKind::LiteralStruct(_) | TypeKind::IdentifiedStruct { .. } => {
            let body = struct_body(ir, ty).ok_or("a struct without a body")?;
            let (mut size, mut align) = (0u64, 1u64);
            for m in &body.members {
                let (s, a) = natural(ir, m.ty, depth + 1)?;
                size = size.next_multiple_of(a) + s;
                align = align.max(a);
            }
            (size.next_multiple_of(align), align)
        }
        _ => return Err("a type without a size in workgroup memory".into()),
    })
}
