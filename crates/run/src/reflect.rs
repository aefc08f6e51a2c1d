//! What a compute shader's binary declares, as `spirvkit run` needs it before any device
//! runs: entry points, descriptors (set, binding, kind, the size of a block's fixed part, a
//! runtime array's stride), specialization constants (id, type, default), the push-constant
//! block's size and the workgroup size. Read straight from the words (a module that does
//! not deserialize into the IR can still be described and refused with a clear message);
//! every read is bounds-checked and type recursion is depth-limited, so a hostile binary
//! gives an error, never a panic.

use crate::image::{ImageDim, ImageFormat};
use std::collections::HashMap;
use std::fmt;

const OP_ENTRY_POINT: u16 = 15;
const OP_EXECUTION_MODE: u16 = 16;
const OP_TYPE_BOOL: u16 = 20;
const OP_TYPE_INT: u16 = 21;
const OP_TYPE_FLOAT: u16 = 22;
const OP_TYPE_VECTOR: u16 = 23;
const OP_TYPE_MATRIX: u16 = 24;
const OP_TYPE_IMAGE: u16 = 25;
const OP_TYPE_SAMPLER: u16 = 26;
const OP_TYPE_SAMPLED_IMAGE: u16 = 27;
const OP_TYPE_ARRAY: u16 = 28;
const OP_TYPE_RUNTIME_ARRAY: u16 = 29;
const OP_TYPE_STRUCT: u16 = 30;
const OP_TYPE_POINTER: u16 = 32;
const OP_CONSTANT_TRUE: u16 = 41;
const OP_CONSTANT_FALSE: u16 = 42;
const OP_CONSTANT: u16 = 43;
const OP_CONSTANT_COMPOSITE: u16 = 44;
const OP_SPEC_CONSTANT_TRUE: u16 = 48;
const OP_SPEC_CONSTANT_FALSE: u16 = 49;
const OP_SPEC_CONSTANT: u16 = 50;
const OP_SPEC_CONSTANT_COMPOSITE: u16 = 51;
const OP_VARIABLE: u16 = 59;
const OP_DECORATE: u16 = 71;
const OP_MEMBER_DECORATE: u16 = 72;
const OP_EXECUTION_MODE_ID: u16 = 331;
const OP_TYPE_ACCELERATION_STRUCTURE: u16 = 5341;

const DECORATION_SPEC_ID: u32 = 1;
const DECORATION_BLOCK: u32 = 2;
const DECORATION_BUFFER_BLOCK: u32 = 3;
const DECORATION_ROW_MAJOR: u32 = 4;
const DECORATION_ARRAY_STRIDE: u32 = 6;
const DECORATION_MATRIX_STRIDE: u32 = 7;
const DECORATION_BUILT_IN: u32 = 11;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;
const DECORATION_OFFSET: u32 = 35;

const BUILT_IN_WORKGROUP_SIZE: u32 = 25;
const EXECUTION_MODE_LOCAL_SIZE: u32 = 17;
const EXECUTION_MODE_LOCAL_SIZE_ID: u32 = 38;
const EXECUTION_MODEL_GL_COMPUTE: u32 = 5;

const STORAGE_UNIFORM_CONSTANT: u32 = 0;
const STORAGE_UNIFORM: u32 = 2;
const STORAGE_PUSH_CONSTANT: u32 = 9;
const STORAGE_STORAGE_BUFFER: u32 = 12;

const DIM_BUFFER: u32 = 5;

/// Type nesting deeper than this is refused (a hostile module could nest, or loop, ids).
const MAX_TYPE_DEPTH: u32 = 64;

/// Why a binary could not be described.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("SPIR-V binary, word {word}: {reason}")]
pub struct ReflectError {
    /// The word offset of the instruction at fault (0: the header).
    pub word: usize,
    pub reason: String,
}

/// An `OpEntryPoint`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    pub name: String,
    /// The execution model (5: GLCompute).
    pub model: u32,
    pub function: u32,
    /// The interface ids `OpEntryPoint` lists (from SPIR-V 1.4 on, every global the entry
    /// point uses; before, only its inputs and outputs).
    pub interface: Vec<u32>,
}

impl EntryPoint {
    pub fn is_compute(&self) -> bool {
        self.model == EXECUTION_MODEL_GL_COMPUTE
    }
}

/// What a descriptor is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescriptorKind {
    StorageBuffer,
    UniformBuffer,
    StorageImage,
    SampledImage,
    Sampler,
    CombinedImageSampler,
    UniformTexelBuffer,
    StorageTexelBuffer,
    AccelerationStructure,
    /// An array of descriptors (of any kind): `spirvkit run` binds single descriptors.
    Array,
    /// Something else bound at a set and binding (named in the description).
    Other,
}

impl fmt::Display for DescriptorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DescriptorKind::StorageBuffer => "storage buffer",
            DescriptorKind::UniformBuffer => "uniform buffer",
            DescriptorKind::StorageImage => "storage image",
            DescriptorKind::SampledImage => "sampled image",
            DescriptorKind::Sampler => "sampler",
            DescriptorKind::CombinedImageSampler => "combined image sampler",
            DescriptorKind::UniformTexelBuffer => "uniform texel buffer",
            DescriptorKind::StorageTexelBuffer => "storage texel buffer",
            DescriptorKind::AccelerationStructure => "acceleration structure",
            DescriptorKind::Array => "array of descriptors",
            DescriptorKind::Other => "resource of an unknown kind",
        })
    }
}

/// A resource variable with a descriptor set and binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Descriptor {
    pub set: u32,
    pub binding: u32,
    pub kind: DescriptorKind,
    /// Buffers: the bytes of the block before its runtime array (the whole block when it
    /// has none): the least a bound buffer must hold.
    pub fixed_size: u64,
    /// Buffers whose block ends in a runtime array: that array's stride.
    pub runtime_stride: Option<u64>,
    /// The variable's result id.
    pub variable: u32,
    /// Storage and sampled images: the declared dimensionality and format.
    pub image: Option<ImageDecl>,
}

/// What a storage image's `OpTypeImage` declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDecl {
    /// `None`: a Dim `spirvkit run` cannot bind (cube, rect, a multisampled image).
    pub dim: Option<ImageDim>,
    /// The format's enumerant (0: `Unknown`).
    pub format_code: u32,
    /// The format, when it is one `spirvkit run` binds.
    pub format: Option<ImageFormat>,
}

impl Descriptor {
    /// `block of N bytes` / `block of N bytes + runtime array of stride S`.
    pub fn describe_size(&self) -> String {
        match self.runtime_stride {
            Some(stride) => format!("{} bytes + a runtime array of stride {stride}", self.fixed_size),
            None => format!("{} bytes", self.fixed_size),
        }
    }
}

/// A specialization constant's scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecType {
    Bool,
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

impl SpecType {
    /// Bytes Vulkan's specialization data gives it (a bool is a 4-byte VkBool32).
    pub fn size(self) -> u32 {
        match self {
            SpecType::Bool => 4,
            SpecType::Int { width, .. } | SpecType::Float { width } => width.div_ceil(8),
        }
    }
}

impl fmt::Display for SpecType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecType::Bool => f.write_str("bool"),
            SpecType::Int { width, signed: true } => write!(f, "i{width}"),
            SpecType::Int { width, signed: false } => write!(f, "u{width}"),
            SpecType::Float { width } => write!(f, "f{width}"),
        }
    }
}

/// An `OpSpecConstant*` decorated with a `SpecId`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecConstant {
    pub id: u32,
    pub ty: SpecType,
    /// The default value's bits.
    pub default: u64,
    pub result: u32,
}

/// One dimension of the workgroup size: its value, and the spec constant that sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkgroupDim {
    pub value: u32,
    pub spec_id: Option<u32>,
}

/// Everything `spirvkit run` checks a run against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reflection {
    pub entry_points: Vec<EntryPoint>,
    pub descriptors: Vec<Descriptor>,
    pub spec_constants: Vec<SpecConstant>,
    /// The push-constant block's size in bytes (`None`: the module declares none).
    pub push_constant_size: Option<u64>,
    /// The push-constant variable's id.
    pub push_constant_variable: Option<u32>,
    /// The module's SPIR-V version word (`0x00010400` is 1.4).
    pub version: u32,
    /// Workgroup size per entry point function id.
    workgroup_sizes: HashMap<u32, [WorkgroupDim; 3]>,
    /// The `WorkgroupSize` built-in constant, which overrides every entry's size.
    workgroup_size_builtin: Option<[WorkgroupDim; 3]>,
}

impl Reflection {
    /// The entry point named `name`, or an error listing those there are.
    pub fn entry_point(&self, name: &str) -> Result<&EntryPoint, String> {
        self.entry_points.iter().find(|e| e.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.entry_points.iter().map(|e| e.name.as_str()).collect();
            if names.is_empty() {
                "the module has no entry point".to_string()
            } else {
                format!("no entry point `{name}` (the module has: {})", names.join(", "))
            }
        })
    }

    /// The workgroup size of `entry` (the `WorkgroupSize` built-in when the module has one).
    pub fn workgroup_size(&self, entry: &EntryPoint) -> Option<[WorkgroupDim; 3]> {
        self.workgroup_size_builtin.or_else(|| self.workgroup_sizes.get(&entry.function).copied())
    }

    /// Whether `entry` may use the global `variable`: from SPIR-V 1.4 on, exactly the
    /// globals its interface lists; before, any (the interface lists only inputs and
    /// outputs, so every resource of the module counts).
    pub fn uses(&self, entry: &EntryPoint, variable: u32) -> bool {
        self.version < 0x0001_0400 || entry.interface.contains(&variable)
    }

    /// The descriptors `entry` may use (see [`Reflection::uses`]).
    pub fn descriptors_of<'a>(&'a self, entry: &'a EntryPoint) -> impl Iterator<Item = &'a Descriptor> + 'a {
        self.descriptors.iter().filter(move |d| self.uses(entry, d.variable))
    }

    /// The push-constant block's size when `entry` may use it.
    pub fn push_constant_size_of(&self, entry: &EntryPoint) -> Option<u64> {
        match self.push_constant_variable {
            Some(variable) if self.uses(entry, variable) => self.push_constant_size,
            _ => None,
        }
    }

    /// The descriptor at `(set, binding)`.
    pub fn descriptor(&self, set: u32, binding: u32) -> Option<&Descriptor> {
        self.descriptors.iter().find(|d| (d.set, d.binding) == (set, binding))
    }

    pub fn spec_constant(&self, id: u32) -> Option<&SpecConstant> {
        self.spec_constants.iter().find(|s| s.id == id)
    }
}

/// Little-endian bytes as words; a big-endian module (byte-swapped magic) is swapped.
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, ReflectError> {
    if bytes.len() < 20 || !bytes.len().is_multiple_of(4) {
        return Err(ReflectError {
            word: 0,
            reason: format!("{} bytes is not a SPIR-V module (a 5-word header, whole words)", bytes.len()),
        });
    }
    let mut words: Vec<u32> =
        bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    match words[0] {
        0x0723_0203 => {}
        0x0302_2307 => words.iter_mut().for_each(|w| *w = w.swap_bytes()),
        _ => return Err(ReflectError { word: 0, reason: "no SPIR-V magic number".into() }),
    }
    Ok(words)
}

struct Instruction<'a> {
    at: usize,
    opcode: u16,
    operands: &'a [u32],
}

fn instructions(words: &[u32]) -> Result<Vec<Instruction<'_>>, ReflectError> {
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err(ReflectError { word: 0, reason: "not a SPIR-V module (header or magic number)".into() });
    }
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return Err(ReflectError { word: at, reason: "malformed instruction (its word count)".into() });
        }
        out.push(Instruction {
            at,
            opcode: (words[at] & 0xffff) as u16,
            operands: &words[at + 1..at + count],
        });
        at += count;
    }
    Ok(out)
}

/// A nul-terminated literal string from `words`.
fn literal_string(words: &[u32]) -> (String, usize) {
    let mut bytes = Vec::new();
    for (i, word) in words.iter().enumerate() {
        for byte in word.to_le_bytes() {
            if byte == 0 {
                return (String::from_utf8_lossy(&bytes).into_owned(), i + 1);
            }
            bytes.push(byte);
        }
    }
    (String::from_utf8_lossy(&bytes).into_owned(), words.len())
}

#[derive(Default)]
struct Decorations {
    /// (id, decoration) -> first literal (or 0).
    plain: HashMap<(u32, u32), u32>,
    /// (struct, member, decoration) -> first literal (or 0).
    member: HashMap<(u32, u32, u32), u32>,
}

impl Decorations {
    fn get(&self, id: u32, decoration: u32) -> Option<u32> {
        self.plain.get(&(id, decoration)).copied()
    }
    fn member(&self, id: u32, member: u32, decoration: u32) -> Option<u32> {
        self.member.get(&(id, member, decoration)).copied()
    }
}

/// Describes `words` (a SPIR-V module, native word order).
pub fn reflect(words: &[u32]) -> Result<Reflection, ReflectError> {
    let instructions = instructions(words)?;
    let mut decorations = Decorations::default();
    let mut types: HashMap<u32, (u16, &[u32])> = HashMap::new();
    // Scalar constants (value bits) and spec constants' results (spec id).
    let mut constants: HashMap<u32, u64> = HashMap::new();
    let mut composites: HashMap<u32, &[u32]> = HashMap::new();
    let mut reflection = Reflection { version: words[1], ..Reflection::default() };
    let mut local_size_ids = Vec::new();
    for inst in &instructions {
        let ops = inst.operands;
        match inst.opcode {
            OP_DECORATE if ops.len() >= 2 => {
                decorations.plain.insert((ops[0], ops[1]), ops.get(2).copied().unwrap_or(0));
            }
            OP_MEMBER_DECORATE if ops.len() >= 3 => {
                decorations.member.insert((ops[0], ops[1], ops[2]), ops.get(3).copied().unwrap_or(0));
            }
            _ => {}
        }
    }
    for inst in &instructions {
        let ops = inst.operands;
        let bad = |reason: &str| ReflectError { word: inst.at, reason: reason.to_string() };
        match inst.opcode {
            OP_ENTRY_POINT => {
                let [model, function, name @ ..] = ops else { return Err(bad("OpEntryPoint is too short")) };
                let (name, used) = literal_string(name);
                let interface = ops[2 + used..].to_vec();
                reflection.entry_points.push(EntryPoint {
                    name,
                    model: *model,
                    function: *function,
                    interface,
                });
            }
            OP_EXECUTION_MODE | OP_EXECUTION_MODE_ID => {
                if let [entry, mode, x, y, z, ..] = ops {
                    let dims = match (inst.opcode, *mode) {
                        (OP_EXECUTION_MODE, EXECUTION_MODE_LOCAL_SIZE) => {
                            [*x, *y, *z].map(|value| WorkgroupDim { value, spec_id: None })
                        }
                        (OP_EXECUTION_MODE_ID, EXECUTION_MODE_LOCAL_SIZE_ID) => {
                            // Its constants come later in the module: resolved below.
                            local_size_ids.push((*entry, [*x, *y, *z]));
                            continue;
                        }
                        _ => continue,
                    };
                    reflection.workgroup_sizes.insert(*entry, dims);
                }
            }
            OP_TYPE_BOOL
            | OP_TYPE_INT
            | OP_TYPE_FLOAT
            | OP_TYPE_VECTOR
            | OP_TYPE_MATRIX
            | OP_TYPE_IMAGE
            | OP_TYPE_SAMPLER
            | OP_TYPE_SAMPLED_IMAGE
            | OP_TYPE_ARRAY
            | OP_TYPE_RUNTIME_ARRAY
            | OP_TYPE_STRUCT
            | OP_TYPE_POINTER
            | OP_TYPE_ACCELERATION_STRUCTURE => {
                let [result, rest @ ..] = ops else { return Err(bad("a type without a result id")) };
                types.insert(*result, (inst.opcode, rest));
            }
            OP_CONSTANT | OP_SPEC_CONSTANT => {
                let [ty, result, value @ ..] = ops else { return Err(bad("a constant without a result id")) };
                let bits = match value {
                    [low] => u64::from(*low),
                    [low, high, ..] => u64::from(*low) | (u64::from(*high) << 32),
                    [] => return Err(bad("a constant without a value")),
                };
                constants.insert(*result, bits);
                if inst.opcode == OP_SPEC_CONSTANT {
                    spec_constant(&mut reflection, &types, &decorations, *ty, *result, bits)
                        .map_err(|reason| bad(&reason))?;
                }
            }
            OP_CONSTANT_TRUE | OP_CONSTANT_FALSE | OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE => {
                let [ty, result, ..] = ops else { return Err(bad("a constant without a result id")) };
                let bits = u64::from(matches!(inst.opcode, OP_CONSTANT_TRUE | OP_SPEC_CONSTANT_TRUE));
                constants.insert(*result, bits);
                if matches!(inst.opcode, OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE) {
                    spec_constant(&mut reflection, &types, &decorations, *ty, *result, bits)
                        .map_err(|reason| bad(&reason))?;
                }
            }
            OP_CONSTANT_COMPOSITE | OP_SPEC_CONSTANT_COMPOSITE => {
                let [_, result, parts @ ..] = ops else { return Err(bad("a constant without a result id")) };
                composites.insert(*result, parts);
                if decorations.get(*result, DECORATION_BUILT_IN) == Some(BUILT_IN_WORKGROUP_SIZE) {
                    if let [x, y, z] = parts {
                        reflection.workgroup_size_builtin =
                            Some([*x, *y, *z].map(|id| constant_dim(id, &constants, &decorations)));
                    }
                }
            }
            OP_VARIABLE => {
                let [pointer_type, result, storage, ..] = ops else {
                    return Err(bad("OpVariable is too short"));
                };
                let layout = Layout { types: &types, decorations: &decorations, constants: &constants };
                let pointee = match types.get(pointer_type) {
                    Some((OP_TYPE_POINTER, [_, pointee, ..])) => *pointee,
                    _ => return Err(bad("a variable whose type is not a pointer")),
                };
                if *storage == STORAGE_PUSH_CONSTANT {
                    let (size, _) = layout.block_size(pointee).map_err(|reason| bad(&reason))?;
                    reflection.push_constant_size = Some(size);
                    reflection.push_constant_variable = Some(*result);
                    continue;
                }
                let Some(binding) = decorations.get(*result, DECORATION_BINDING) else { continue };
                let set = decorations.get(*result, DECORATION_DESCRIPTOR_SET).unwrap_or(0);
                let kind = match *storage {
                    STORAGE_STORAGE_BUFFER | STORAGE_UNIFORM => match types.get(&pointee) {
                        Some((OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY, _)) => DescriptorKind::Array,
                        _ if *storage == STORAGE_STORAGE_BUFFER => DescriptorKind::StorageBuffer,
                        _ if decorations.get(pointee, DECORATION_BUFFER_BLOCK).is_some() => {
                            DescriptorKind::StorageBuffer
                        }
                        _ if decorations.get(pointee, DECORATION_BLOCK).is_some() => {
                            DescriptorKind::UniformBuffer
                        }
                        _ => DescriptorKind::Other,
                    },
                    STORAGE_UNIFORM_CONSTANT => opaque_kind(&types, pointee),
                    _ => DescriptorKind::Other,
                };
                let (fixed_size, runtime_stride) =
                    if matches!(kind, DescriptorKind::StorageBuffer | DescriptorKind::UniformBuffer) {
                        layout.block_size(pointee).map_err(|reason| bad(&reason))?
                    } else {
                        (0, None)
                    };
                // A combined image sampler's image (GLSL `samplerBuffer` is one).
                let image_type = match types.get(&pointee) {
                    Some((OP_TYPE_SAMPLED_IMAGE, [image, ..])) => *image,
                    _ => pointee,
                };
                let image = match (kind, types.get(&image_type)) {
                    // Operands after the result: sampled type, dim, depth, arrayed, ms, sampled, format.
                    (
                        DescriptorKind::StorageImage
                        | DescriptorKind::SampledImage
                        | DescriptorKind::StorageTexelBuffer
                        | DescriptorKind::UniformTexelBuffer
                        | DescriptorKind::CombinedImageSampler,
                        Some((OP_TYPE_IMAGE, [_, dim, _, arrayed, ms, _, format, ..])),
                    ) => Some(ImageDecl {
                        dim: if *ms == 0 { ImageDim::from_spirv(*dim, *arrayed != 0) } else { None },
                        format_code: *format,
                        format: ImageFormat::from_spirv(*format),
                    }),
                    _ => None,
                };
                reflection.descriptors.push(Descriptor {
                    set,
                    binding,
                    kind,
                    fixed_size,
                    runtime_stride,
                    variable: *result,
                    image,
                });
            }
            _ => {}
        }
    }
    for (entry, ids) in local_size_ids {
        reflection.workgroup_sizes.insert(entry, ids.map(|id| constant_dim(id, &constants, &decorations)));
    }
    Ok(reflection)
}

fn constant_dim(id: u32, constants: &HashMap<u32, u64>, decorations: &Decorations) -> WorkgroupDim {
    WorkgroupDim {
        value: constants.get(&id).copied().unwrap_or(1) as u32,
        spec_id: decorations.get(id, DECORATION_SPEC_ID),
    }
}

fn spec_constant(
    reflection: &mut Reflection,
    types: &HashMap<u32, (u16, &[u32])>,
    decorations: &Decorations,
    ty: u32,
    result: u32,
    default: u64,
) -> Result<(), String> {
    let Some(id) = decorations.get(result, DECORATION_SPEC_ID) else { return Ok(()) };
    let ty = match types.get(&ty) {
        Some((OP_TYPE_BOOL, _)) => SpecType::Bool,
        Some((OP_TYPE_INT, [width, signed, ..])) => SpecType::Int { width: *width, signed: *signed != 0 },
        Some((OP_TYPE_FLOAT, [width, ..])) => SpecType::Float { width: *width },
        _ => return Err(format!("spec constant {id} is not of a scalar type")),
    };
    reflection.spec_constants.push(SpecConstant { id, ty, default, result });
    Ok(())
}

fn opaque_kind(types: &HashMap<u32, (u16, &[u32])>, pointee: u32) -> DescriptorKind {
    match types.get(&pointee) {
        Some((OP_TYPE_SAMPLER, _)) => DescriptorKind::Sampler,
        // GLSL's `samplerBuffer` is a sampled image of a texel buffer: Vulkan binds a
        // uniform texel buffer there.
        Some((OP_TYPE_SAMPLED_IMAGE, [image, ..]))
            if matches!(types.get(image), Some((OP_TYPE_IMAGE, [_, DIM_BUFFER, ..]))) =>
        {
            DescriptorKind::UniformTexelBuffer
        }
        Some((OP_TYPE_SAMPLED_IMAGE, _)) => DescriptorKind::CombinedImageSampler,
        // Operands after the result: sampled type, dim, depth, arrayed, ms, sampled, format.
        Some((OP_TYPE_IMAGE, [_, dim, _, _, _, sampled, ..])) => match (*dim, *sampled) {
            (DIM_BUFFER, 2) => DescriptorKind::StorageTexelBuffer,
            (DIM_BUFFER, _) => DescriptorKind::UniformTexelBuffer,
            (_, 2) => DescriptorKind::StorageImage,
            _ => DescriptorKind::SampledImage,
        },
        Some((OP_TYPE_ACCELERATION_STRUCTURE, _)) => DescriptorKind::AccelerationStructure,
        Some((OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY, _)) => DescriptorKind::Array,
        _ => DescriptorKind::Other,
    }
}

/// Sizes of types laid out by their `Offset`, `ArrayStride` and `MatrixStride` decorations.
struct Layout<'a> {
    types: &'a HashMap<u32, (u16, &'a [u32])>,
    decorations: &'a Decorations,
    constants: &'a HashMap<u32, u64>,
}

/// How a matrix member is laid out (its `MatrixStride` and `RowMajor` decorations).
#[derive(Clone, Copy)]
struct MatrixLayout {
    stride: u64,
    row_major: bool,
}

impl Layout<'_> {
    /// A block's size before its trailing runtime array, and that array's stride.
    fn block_size(&self, block: u32) -> Result<(u64, Option<u64>), String> {
        let Some((OP_TYPE_STRUCT, members)) = self.types.get(&block) else {
            return Ok((self.size(block, None, 0)?, None));
        };
        let mut end = 0u64;
        let mut runtime = None;
        for (index, &member) in members.iter().enumerate() {
            let offset = self.member_offset(block, index, end);
            if let Some((OP_TYPE_RUNTIME_ARRAY, [element, ..])) = self.types.get(&member) {
                let stride = match self.decorations.get(member, DECORATION_ARRAY_STRIDE) {
                    Some(stride) => u64::from(stride),
                    None => self.size(*element, None, 1)?,
                };
                runtime = Some((offset, stride));
                continue;
            }
            let size = self.size(member, self.matrix_layout(block, index), 1)?;
            end = end.max(offset.saturating_add(size));
        }
        Ok(match runtime {
            Some((offset, stride)) => (offset, Some(stride)),
            None => (end, None),
        })
    }

    fn member_offset(&self, structure: u32, index: usize, running: u64) -> u64 {
        self.decorations.member(structure, index as u32, DECORATION_OFFSET).map_or(running, u64::from)
    }

    fn matrix_layout(&self, structure: u32, index: usize) -> Option<MatrixLayout> {
        let index = index as u32;
        self.decorations.member(structure, index, DECORATION_MATRIX_STRIDE).map(|stride| MatrixLayout {
            stride: u64::from(stride),
            row_major: self.decorations.member(structure, index, DECORATION_ROW_MAJOR).is_some(),
        })
    }

    /// The bytes a value of `ty` occupies in a block.
    fn size(&self, ty: u32, matrix: Option<MatrixLayout>, depth: u32) -> Result<u64, String> {
        if depth > MAX_TYPE_DEPTH {
            return Err("types nest too deeply".into());
        }
        let Some(&(opcode, operands)) = self.types.get(&ty) else {
            return Err(format!("type %{ty} is not defined"));
        };
        let size = match (opcode, operands) {
            (OP_TYPE_BOOL, _) => 4,
            (OP_TYPE_INT | OP_TYPE_FLOAT, [width, ..]) => u64::from(width.div_ceil(8)),
            (OP_TYPE_VECTOR, [component, count, ..]) => {
                self.size(*component, None, depth + 1)?.saturating_mul(u64::from(*count))
            }
            (OP_TYPE_MATRIX, [column, columns, ..]) => {
                let column_size = self.size(*column, None, depth + 1)?;
                match (matrix, self.types.get(column)) {
                    (Some(MatrixLayout { stride, row_major: false }), _) => {
                        stride.saturating_mul(u64::from(*columns))
                    }
                    (
                        Some(MatrixLayout { stride, row_major: true }),
                        Some((OP_TYPE_VECTOR, [_, rows, ..])),
                    ) => stride.saturating_mul(u64::from(*rows)),
                    _ => column_size.saturating_mul(u64::from(*columns)),
                }
            }
            (OP_TYPE_ARRAY, [element, length, ..]) => {
                let count = self.constants.get(length).copied().unwrap_or(0);
                let stride = match self.decorations.get(ty, DECORATION_ARRAY_STRIDE) {
                    Some(stride) => u64::from(stride),
                    None => self.size(*element, matrix, depth + 1)?,
                };
                stride.saturating_mul(count)
            }
            (OP_TYPE_STRUCT, members) => {
                let mut end = 0u64;
                for (index, &member) in members.iter().enumerate() {
                    let offset = self.member_offset(ty, index, end);
                    let size = self.size(member, self.matrix_layout(ty, index), depth + 1)?;
                    end = end.max(offset.saturating_add(size));
                }
                end
            }
            (OP_TYPE_RUNTIME_ARRAY, _) => 0,
            (OP_TYPE_POINTER, _) => 8,
            _ => return Err(format!("type %{ty} has no size in a block")),
        };
        Ok(size)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Assembles instructions: (opcode, operands).
    pub(crate) fn module(instructions: &[(u16, Vec<u32>)]) -> Vec<u32> {
        let mut words = vec![0x0723_0203, 0x0001_0300, 0, 200, 0];
        for (opcode, operands) in instructions {
            words.push(((operands.len() as u32 + 1) << 16) | u32::from(*opcode));
            words.extend_from_slice(operands);
        }
        words
    }

    pub(crate) fn string(text: &str) -> Vec<u32> {
        let mut bytes = text.as_bytes().to_vec();
        bytes.resize((bytes.len() / 4 + 1) * 4, 0);
        bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    /// A compute shader `main` with LocalSize 64 1 1 and:
    /// set 0 binding 0: uniform block { u32 @0; f32 @4 } (8 bytes);
    /// set 0 binding 1: storage block { u32 count @0; vec4 items[] @16 stride 16 };
    /// set 1 binding 2: storage image; push constants { mat2 @0 stride 16 } (32 bytes);
    /// spec constant id 7: i32 default -1; spec id 3: bool true.
    pub(crate) fn sample() -> Vec<u32> {
        let mut entry = vec![EXECUTION_MODEL_GL_COMPUTE, 1];
        entry.extend(string("main"));
        module(&[
            (OP_ENTRY_POINT, entry),
            (OP_EXECUTION_MODE, vec![1, EXECUTION_MODE_LOCAL_SIZE, 64, 1, 1]),
            (OP_DECORATE, vec![50, DECORATION_DESCRIPTOR_SET, 0]),
            (OP_DECORATE, vec![50, DECORATION_BINDING, 0]),
            (OP_DECORATE, vec![51, DECORATION_DESCRIPTOR_SET, 0]),
            (OP_DECORATE, vec![51, DECORATION_BINDING, 1]),
            (OP_DECORATE, vec![52, DECORATION_DESCRIPTOR_SET, 1]),
            (OP_DECORATE, vec![52, DECORATION_BINDING, 2]),
            (OP_DECORATE, vec![20, DECORATION_BLOCK]),
            (OP_MEMBER_DECORATE, vec![20, 0, DECORATION_OFFSET, 0]),
            (OP_MEMBER_DECORATE, vec![20, 1, DECORATION_OFFSET, 4]),
            (OP_DECORATE, vec![21, DECORATION_BLOCK]),
            (OP_MEMBER_DECORATE, vec![21, 0, DECORATION_OFFSET, 0]),
            (OP_MEMBER_DECORATE, vec![21, 1, DECORATION_OFFSET, 16]),
            (OP_DECORATE, vec![15, DECORATION_ARRAY_STRIDE, 16]),
            (OP_DECORATE, vec![22, DECORATION_BLOCK]),
            (OP_MEMBER_DECORATE, vec![22, 0, DECORATION_OFFSET, 0]),
            (OP_MEMBER_DECORATE, vec![22, 0, DECORATION_MATRIX_STRIDE, 16]),
            (OP_DECORATE, vec![60, DECORATION_SPEC_ID, 7]),
            (OP_DECORATE, vec![61, DECORATION_SPEC_ID, 3]),
            (OP_TYPE_BOOL, vec![9]),
            (OP_TYPE_INT, vec![10, 32, 0]),
            (OP_TYPE_FLOAT, vec![11, 32]),
            (OP_TYPE_INT, vec![12, 32, 1]),
            (OP_TYPE_VECTOR, vec![13, 11, 4]),
            (OP_TYPE_VECTOR, vec![14, 11, 2]),
            (OP_TYPE_RUNTIME_ARRAY, vec![15, 13]),
            (OP_TYPE_MATRIX, vec![16, 14, 2]),
            (OP_TYPE_IMAGE, vec![17, 11, 1, 0, 0, 0, 2, 1]),
            (OP_TYPE_STRUCT, vec![20, 10, 11]),
            (OP_TYPE_STRUCT, vec![21, 10, 15]),
            (OP_TYPE_STRUCT, vec![22, 16]),
            (OP_TYPE_POINTER, vec![30, STORAGE_UNIFORM, 20]),
            (OP_TYPE_POINTER, vec![31, STORAGE_STORAGE_BUFFER, 21]),
            (OP_TYPE_POINTER, vec![32, STORAGE_UNIFORM_CONSTANT, 17]),
            (OP_TYPE_POINTER, vec![33, STORAGE_PUSH_CONSTANT, 22]),
            (OP_SPEC_CONSTANT, vec![12, 60, 0xffff_ffff]),
            (OP_SPEC_CONSTANT_TRUE, vec![9, 61]),
            (OP_VARIABLE, vec![30, 50, STORAGE_UNIFORM]),
            (OP_VARIABLE, vec![31, 51, STORAGE_STORAGE_BUFFER]),
            (OP_VARIABLE, vec![32, 52, STORAGE_UNIFORM_CONSTANT]),
            (OP_VARIABLE, vec![33, 53, STORAGE_PUSH_CONSTANT]),
        ])
    }

    #[test]
    fn descriptors_with_their_sizes() {
        let r = reflect(&sample()).unwrap();
        let d: Vec<(u32, u32, DescriptorKind, u64, Option<u64>)> = r
            .descriptors
            .iter()
            .map(|d| (d.set, d.binding, d.kind, d.fixed_size, d.runtime_stride))
            .collect();
        assert_eq!(
            d,
            [
                (0, 0, DescriptorKind::UniformBuffer, 8, None),
                (0, 1, DescriptorKind::StorageBuffer, 16, Some(16)),
                (1, 2, DescriptorKind::StorageImage, 0, None),
            ]
        );
        assert_eq!(r.push_constant_size, Some(32));
    }

    #[test]
    fn entry_points_spec_constants_and_workgroup_size() {
        let r = reflect(&sample()).unwrap();
        let main = r.entry_point("main").unwrap();
        assert!(main.is_compute());
        assert_eq!(r.entry_point("other").unwrap_err(), "no entry point `other` (the module has: main)");
        let size = r.workgroup_size(main).unwrap();
        assert_eq!(size.map(|d| d.value), [64, 1, 1]);
        assert_eq!(
            r.spec_constants.iter().map(|s| (s.id, s.ty, s.default)).collect::<Vec<_>>(),
            [(7, SpecType::Int { width: 32, signed: true }, 0xffff_ffff), (3, SpecType::Bool, 1)]
        );
    }

    #[test]
    fn hostile_binaries_are_errors_not_panics() {
        let mut words = sample();
        words.truncate(words.len() - 1);
        assert!(reflect(&words).is_err());
        assert!(reflect(&[0x0723_0203, 0, 0]).is_err());
        // A struct containing itself: the depth limit stops the recursion.
        let cyclic = module(&[
            (OP_DECORATE, vec![50, DECORATION_BINDING, 0]),
            (OP_TYPE_STRUCT, vec![20, 21]),
            (OP_TYPE_STRUCT, vec![21, 20]),
            (OP_TYPE_POINTER, vec![30, STORAGE_STORAGE_BUFFER, 20]),
            (OP_VARIABLE, vec![30, 50, STORAGE_STORAGE_BUFFER]),
        ]);
        assert!(reflect(&cyclic).unwrap_err().reason.contains("nest too deeply"));
        for cut in 0..sample().len() {
            let _ = reflect(&sample()[..cut]);
        }
    }

    /// Thousands of corrupted variants of the sample (words replaced by seeded random
    /// values, small ones included so ids and opcodes collide): errors, never panics.
    #[test]
    fn corrupted_modules_never_panic() {
        let words = sample();
        let mut state = 17;
        for _ in 0..5000 {
            let mut corrupt = words.clone();
            for _ in 0..1 + crate::init::splitmix64(&mut state) % 4 {
                let r = crate::init::splitmix64(&mut state);
                let at = 5 + (r as usize % (corrupt.len() - 5));
                corrupt[at] = match r >> 60 {
                    0..=5 => (r >> 32) as u32 % 64,
                    6..=9 => (corrupt[at] & 0xffff) | (((r >> 32) as u32 % 8) << 16),
                    _ => (r >> 32) as u32,
                };
            }
            if let Ok(r) = reflect(&corrupt) {
                for e in &r.entry_points {
                    let _ = r.workgroup_size(e);
                }
            }
        }
    }

    #[test]
    fn from_spirv_1_4_an_entry_point_uses_the_globals_it_lists() {
        let mut words = sample();
        let r = reflect(&words).unwrap();
        let main = r.entry_point("main").unwrap();
        assert_eq!(r.descriptors_of(main).count(), 3, "1.3: every resource of the module");
        assert_eq!(r.push_constant_size_of(main), Some(32));
        words[1] = 0x0001_0400;
        let r = reflect(&words).unwrap();
        let main = r.entry_point("main").unwrap();
        assert_eq!(r.descriptors_of(main).count(), 0, "1.4: its interface lists none");
        assert_eq!(r.push_constant_size_of(main), None);
        // An interface listing the storage buffer (%51) and the push constants (%53).
        let mut entry = vec![EXECUTION_MODEL_GL_COMPUTE, 1];
        entry.extend(string("main"));
        entry.extend([51, 53]);
        let mut with_interface = module(&[(OP_ENTRY_POINT, entry)]);
        // The sample's own OpEntryPoint is 5 words (its name takes two).
        with_interface.extend_from_slice(&words[5 + 5..]);
        with_interface[1] = 0x0001_0400;
        let r = reflect(&with_interface).unwrap();
        let main = r.entry_point("main").unwrap();
        assert_eq!(main.interface, [51, 53]);
        let used: Vec<u32> = r.descriptors_of(main).map(|d| d.binding).collect();
        assert_eq!(used, [1]);
        assert_eq!(r.push_constant_size_of(main), Some(32));
    }

    #[test]
    fn bytes_in_either_order() {
        let words = sample();
        let little: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let big: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        assert_eq!(words_from_bytes(&little).unwrap(), words);
        assert_eq!(words_from_bytes(&big).unwrap(), words);
        assert!(words_from_bytes(&little[..19]).is_err());
    }
}
