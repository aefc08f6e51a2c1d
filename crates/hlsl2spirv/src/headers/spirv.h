// vk/spirv.h: helpers for using SPIR-V pointers from HLSL (built into hlsl2spirv).
//
// A Workgroup-storage pointer is spelled as an inline SPIR-V type: OpTypePointer (32)
// with storage class Workgroup (4) and the pointee type. OpCopyObject (83) of a
// groupshared variable passed by reference yields its address.
#ifndef SPIRVKIT_VK_SPIRV_H
#define SPIRVKIT_VK_SPIRV_H

namespace vk {

template <typename T>
using WorkgroupSpirvPointer =
    const vk::SpirvType</* OpTypePointer */ 32, /* size */ 8, /* alignment */ 8,
                        vk::Literal<vk::integral_constant<uint, /* Workgroup */ 4> >, T>;

template <typename T>
[[vk::ext_instruction(/* OpCopyObject */ 83)]] WorkgroupSpirvPointer<T>
GetGroupSharedAddress([[vk::ext_reference]] T value);

} // namespace vk

#endif // SPIRVKIT_VK_SPIRV_H
