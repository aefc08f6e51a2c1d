//! The descriptor interface a SPIR-V module declares, checked against a job's bindings
//! before anything reaches the driver: a shader reading a binding the job does not provide,
//! or of another descriptor type, is undefined behaviour a driver may crash on. This is
//! that check only, not a reflection library: the job's list stays the source of layouts.

use crate::{Binding, Error, Resource};

const OP_TYPE_IMAGE: u16 = 25;
const OP_TYPE_SAMPLER: u16 = 26;
const OP_TYPE_SAMPLED_IMAGE: u16 = 27;
const OP_TYPE_ARRAY: u16 = 28;
const OP_TYPE_RUNTIME_ARRAY: u16 = 29;
const OP_TYPE_POINTER: u16 = 32;
const OP_VARIABLE: u16 = 59;
const OP_DECORATE: u16 = 71;

const DECORATION_BLOCK: u32 = 2;
const DECORATION_BUFFER_BLOCK: u32 = 3;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;

const STORAGE_UNIFORM_CONSTANT: u32 = 0;
const STORAGE_UNIFORM: u32 = 2;
const STORAGE_PUSH_CONSTANT: u32 = 9;
const STORAGE_STORAGE_BUFFER: u32 = 12;

const DIM_2D: u32 = 1;
const DIM_BUFFER: u32 = 5;

/// The descriptor types the runner binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DescriptorKind {
    StorageBuffer,
    UniformBuffer,
    UniformTexelBuffer,
    StorageTexelBuffer,
    SampledImage,
    StorageImage,
    Sampler,
    CombinedImageSampler,
}

impl DescriptorKind {
    fn of(resource: &Resource) -> DescriptorKind {
        match resource {
            Resource::StorageBuffer(_) => DescriptorKind::StorageBuffer,
            Resource::UniformBuffer(_) => DescriptorKind::UniformBuffer,
            Resource::UniformTexelBuffer { .. } => DescriptorKind::UniformTexelBuffer,
            Resource::StorageTexelBuffer { .. } => DescriptorKind::StorageTexelBuffer,
            Resource::SampledImage(_) => DescriptorKind::SampledImage,
            Resource::StorageImage(_) => DescriptorKind::StorageImage,
            Resource::Sampler(_) => DescriptorKind::Sampler,
            Resource::CombinedImageSampler(..) => DescriptorKind::CombinedImageSampler,
        }
    }
}

/// A resource variable of the module: where it is bound and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Declared {
    pub set: u32,
    pub binding: u32,
    /// The kind, or why the runner cannot bind it.
    pub kind: Result<DescriptorKind, String>,
}

/// Instructions as (opcode, operands after the opcode word), or why the stream is broken.
fn instructions(words: &[u32]) -> Result<Vec<(u16, &[u32])>, Error> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return Err(Error::Binary(format!("malformed instruction at word {at}")));
        }
        out.push(((words[at] & 0xFFFF) as u16, &words[at + 1..at + count]));
        at += count;
    }
    Ok(out)
}

/// The resource variables the module declares (decorated with a descriptor set and a binding).
pub(crate) fn declared(words: &[u32]) -> Result<Vec<Declared>, Error> {
    use std::collections::HashMap;
    let instructions = instructions(words)?;
    let mut sets = HashMap::new();
    let mut bindings = HashMap::new();
    let mut blocks = HashMap::new();
    let mut types: HashMap<u32, (u16, &[u32])> = HashMap::new();
    let mut variables = Vec::new();
    let mut push_constants = false;
    for &(opcode, operands) in &instructions {
        match (opcode, operands) {
            (OP_DECORATE, [target, DECORATION_DESCRIPTOR_SET, set, ..]) => {
                sets.insert(*target, *set);
            }
            (OP_DECORATE, [target, DECORATION_BINDING, binding, ..]) => {
                bindings.insert(*target, *binding);
            }
            (OP_DECORATE, [target, decoration @ (DECORATION_BLOCK | DECORATION_BUFFER_BLOCK), ..]) => {
                blocks.insert(*target, *decoration);
            }
            (
                OP_TYPE_IMAGE
                | OP_TYPE_SAMPLER
                | OP_TYPE_SAMPLED_IMAGE
                | OP_TYPE_ARRAY
                | OP_TYPE_RUNTIME_ARRAY
                | OP_TYPE_POINTER,
                [result, ..],
            ) => {
                types.insert(*result, (opcode, &operands[1..]));
            }
            (OP_VARIABLE, [pointer_type, result, storage, ..]) => {
                if *storage == STORAGE_PUSH_CONSTANT {
                    push_constants = true;
                }
                variables.push((*pointer_type, *result, *storage));
            }
            _ => {}
        }
    }
    if push_constants {
        return Err(Error::Binding {
            set: 0,
            binding: 0,
            reason: "not supported yet by the runner: push constants".into(),
        });
    }
    let mut out = Vec::new();
    for (pointer_type, variable, storage) in variables {
        let (Some(&set), Some(&binding)) = (sets.get(&variable), bindings.get(&variable)) else {
            continue;
        };
        let pointee = match types.get(&pointer_type) {
            Some((OP_TYPE_POINTER, [_, pointee, ..])) => *pointee,
            _ => return Err(Error::Binary(format!("variable %{variable} does not have a pointer type"))),
        };
        let kind = match storage {
            STORAGE_STORAGE_BUFFER => Ok(DescriptorKind::StorageBuffer),
            STORAGE_UNIFORM => match blocks.get(&pointee) {
                Some(&DECORATION_BUFFER_BLOCK) => Ok(DescriptorKind::StorageBuffer),
                Some(_) => Ok(DescriptorKind::UniformBuffer),
                None if matches!(types.get(&pointee), Some((OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY, _))) => {
                    Err("not supported yet by the runner: arrays of descriptors".to_string())
                }
                None => Err("a Uniform variable whose type is not a Block".to_string()),
            },
            STORAGE_UNIFORM_CONSTANT => opaque_kind(&types, pointee),
            other => Err(format!("a variable in storage class {other}")),
        };
        out.push(Declared { set, binding, kind });
    }
    Ok(out)
}

fn opaque_kind(
    types: &std::collections::HashMap<u32, (u16, &[u32])>,
    type_id: u32,
) -> Result<DescriptorKind, String> {
    match types.get(&type_id) {
        Some((OP_TYPE_SAMPLER, _)) => Ok(DescriptorKind::Sampler),
        Some((OP_TYPE_SAMPLED_IMAGE, [image, ..])) => match opaque_kind(types, *image)? {
            DescriptorKind::SampledImage => Ok(DescriptorKind::CombinedImageSampler),
            _ => Err("a sampled image of a non-2D or buffer image".into()),
        },
        // Operands after the result: sampled type, dim, depth, arrayed, ms, sampled, format.
        Some((OP_TYPE_IMAGE, [_, dim, _, arrayed, ms, sampled, ..])) => match (*dim, *arrayed, *ms, *sampled) {
            (DIM_BUFFER, _, _, 1) => Ok(DescriptorKind::UniformTexelBuffer),
            (DIM_BUFFER, _, _, 2) => Ok(DescriptorKind::StorageTexelBuffer),
            (DIM_2D, 0, 0, 1) => Ok(DescriptorKind::SampledImage),
            (DIM_2D, 0, 0, 2) => Ok(DescriptorKind::StorageImage),
            (dim, arrayed, ms, _) => Err(format!(
                "not supported yet by the runner: an image of dimension {dim} (arrayed {arrayed}, multisampled {ms}); it binds single-layer 2D images"
            )),
        },
        Some((OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY, _)) => {
            Err("not supported yet by the runner: arrays of descriptors".into())
        }
        _ => Err("a UniformConstant variable of a type that is not an image or sampler".into()),
    }
}

/// Checks that every resource the module declares is bound by the job with the same kind.
pub(crate) fn check(words: &[u32], bindings: &[Binding]) -> Result<(), Error> {
    for declared in declared(words)? {
        let fail =
            |reason: String| Err(Error::Binding { set: declared.set, binding: declared.binding, reason });
        let kind = match declared.kind {
            Ok(kind) => kind,
            Err(reason) => return fail(format!("the shader declares {reason}")),
        };
        match bindings.iter().find(|b| (b.set, b.binding) == (declared.set, declared.binding)) {
            None => return fail(format!("the shader declares a {kind:?} here, and the job binds nothing")),
            Some(b) if DescriptorKind::of(&b.resource) != kind => {
                return fail(format!(
                    "the shader declares a {kind:?} here, and the job binds a {:?}",
                    DescriptorKind::of(&b.resource)
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module with a storage buffer at (0, 1), a Uniform block at (0, 2), a storage image
    /// at (1, 0) and a sampler at (1, 3).
    fn module() -> Vec<u32> {
        let op = |opcode: u16, operands: &[u32]| {
            let mut words = vec![((operands.len() as u32 + 1) << 16) | opcode as u32];
            words.extend_from_slice(operands);
            words
        };
        let mut words = vec![0x0723_0203, 0x0001_0300, 0, 100, 0];
        for (target, set, binding) in [(10, 0, 1), (11, 0, 2), (12, 1, 0), (13, 1, 3)] {
            words.extend(op(OP_DECORATE, &[target, DECORATION_DESCRIPTOR_SET, set]));
            words.extend(op(OP_DECORATE, &[target, DECORATION_BINDING, binding]));
        }
        words.extend(op(OP_DECORATE, &[21, DECORATION_BLOCK]));
        words.extend(op(OP_TYPE_IMAGE, &[30, 2, DIM_2D, 0, 0, 0, 2, 1]));
        words.extend(op(OP_TYPE_SAMPLER, &[31]));
        words.extend(op(OP_TYPE_POINTER, &[40, STORAGE_STORAGE_BUFFER, 20]));
        words.extend(op(OP_TYPE_POINTER, &[41, STORAGE_UNIFORM, 21]));
        words.extend(op(OP_TYPE_POINTER, &[42, STORAGE_UNIFORM_CONSTANT, 30]));
        words.extend(op(OP_TYPE_POINTER, &[43, STORAGE_UNIFORM_CONSTANT, 31]));
        words.extend(op(OP_VARIABLE, &[40, 10, STORAGE_STORAGE_BUFFER]));
        words.extend(op(OP_VARIABLE, &[41, 11, STORAGE_UNIFORM]));
        words.extend(op(OP_VARIABLE, &[42, 12, STORAGE_UNIFORM_CONSTANT]));
        words.extend(op(OP_VARIABLE, &[43, 13, STORAGE_UNIFORM_CONSTANT]));
        words
    }

    fn binding(set: u32, binding: u32, resource: Resource) -> Binding {
        Binding { set, binding, resource }
    }

    #[test]
    fn declared_resources_with_their_kinds() {
        let declared = declared(&module()).unwrap();
        let kinds: Vec<(u32, u32, DescriptorKind)> =
            declared.iter().map(|d| (d.set, d.binding, d.kind.clone().unwrap())).collect();
        assert_eq!(
            kinds,
            [
                (0, 1, DescriptorKind::StorageBuffer),
                (0, 2, DescriptorKind::UniformBuffer),
                (1, 0, DescriptorKind::StorageImage),
                (1, 3, DescriptorKind::Sampler),
            ]
        );
    }

    #[test]
    fn a_missing_or_mistyped_binding_is_an_error() {
        use crate::{AddressMode, Filter, Format, Image2d, SamplerDesc};
        let image = Image2d { format: Format::R32Uint, width: 1, height: 1, data: vec![0; 4] };
        let sampler = SamplerDesc { filter: Filter::Nearest, address_mode: AddressMode::Repeat };
        let mut all = vec![
            binding(0, 1, Resource::StorageBuffer(vec![0; 4])),
            binding(0, 2, Resource::UniformBuffer(vec![0; 16])),
            binding(1, 0, Resource::StorageImage(image.clone())),
            binding(1, 3, Resource::Sampler(sampler)),
            binding(3, 3, Resource::StorageBuffer(vec![0; 4])),
        ];
        assert!(check(&module(), &all).is_ok(), "extra bindings are fine");
        all[2] = binding(1, 0, Resource::SampledImage(image));
        let error = check(&module(), &all).unwrap_err().to_string();
        assert!(error.contains("(set 1, binding 0)") && error.contains("StorageImage"), "{error}");
        all.remove(0);
        assert!(matches!(check(&module(), &all), Err(Error::Binding { set: 0, binding: 1, .. })));
    }

    #[test]
    fn a_truncated_module_is_a_binary_error() {
        let mut words = module();
        words.truncate(words.len() - 1);
        assert!(matches!(check(&words, &[]), Err(Error::Binary(_))));
        let mut zero = module();
        zero.push(0);
        assert!(matches!(check(&zero, &[]), Err(Error::Binary(_))));
    }
}
