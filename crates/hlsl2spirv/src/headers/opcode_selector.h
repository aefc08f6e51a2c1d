// vk/opcode_selector.h: conversions between numeric types with the SPIR-V
// instruction their kinds call for (built into hlsl2spirv).
//
// `vk::util::ConversionSelector<Source, Target>::Convert<Result>(value)` converts a
// scalar or vector of component type Source to Result (components of Target): an
// integer to float conversion is OpConvertSToF/OpConvertUToF, float to integer
// OpConvertFToS/OpConvertFToU, between floats OpFConvert, between integers of one
// signedness OpSConvert/OpUConvert, and between equally wide types of different
// signedness OpBitcast. HLSL's own conversion rules pick the same instructions, so
// the selector is a cast.
#ifndef SPIRVKIT_VK_OPCODE_SELECTOR_H
#define SPIRVKIT_VK_OPCODE_SELECTOR_H

namespace vk {
namespace util {

template <typename SourceType, typename TargetType>
struct ConversionSelector {
  template <typename ResultType, typename InputType>
  static ResultType Convert(InputType value) {
    return (ResultType)value;
  }
};

} // namespace util
} // namespace vk

#endif // SPIRVKIT_VK_OPCODE_SELECTOR_H
