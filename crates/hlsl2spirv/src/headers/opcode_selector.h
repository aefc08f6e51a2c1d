// vk/opcode_selector.h: conversions between numeric types with the SPIR-V
// instruction their kinds call for (built into hlsl2spirv).
//
// `vk::util::ConversionSelector<Source, Target>::Convert<Result>(value)` converts a
// scalar or vector of component type Source to Result (components of Target) with
// one SPIR-V instruction applied to the value itself (inline SPIR-V): integer to
// float OpConvertSToF/OpConvertUToF, float to integer OpConvertFToS/OpConvertFToU,
// between floats OpFConvert, between integers of one width OpBitcast, and between
// integers of different widths OpSConvert/OpUConvert chosen by the *target's*
// signedness (an HLSL cast extends by the source's signedness instead). A type to
// itself (and, without -enable-16bit-types, half to float) is the value unchanged.
#ifndef SPIRVKIT_VK_OPCODE_SELECTOR_H
#define SPIRVKIT_VK_OPCODE_SELECTOR_H

namespace vk {
namespace util {
namespace detail {

// A component type's kind (0 floating point, 1 signed, 2 unsigned integer) and width.
template <typename T> struct SelectorNumber {
  static const uint kind = 0;
  static const uint bits = 32;
};
template <> struct SelectorNumber<double> {
  static const uint kind = 0;
  static const uint bits = 64;
};
template <> struct SelectorNumber<int> {
  static const uint kind = 1;
  static const uint bits = 32;
};
template <> struct SelectorNumber<uint> {
  static const uint kind = 2;
  static const uint bits = 32;
};
template <> struct SelectorNumber<int64_t> {
  static const uint kind = 1;
  static const uint bits = 64;
};
template <> struct SelectorNumber<uint64_t> {
  static const uint kind = 2;
  static const uint bits = 64;
};
#ifdef __HLSL_ENABLE_16_BIT
template <> struct SelectorNumber<half> {
  static const uint kind = 0;
  static const uint bits = 16;
};
template <> struct SelectorNumber<int16_t> {
  static const uint kind = 1;
  static const uint bits = 16;
};
template <> struct SelectorNumber<uint16_t> {
  static const uint kind = 2;
  static const uint bits = 16;
};
#endif

// The opcode converting Source components to Target components; 0: no instruction.
template <typename Source, typename Target> struct SelectorOpcode {
  static const uint from = SelectorNumber<Source>::kind;
  static const uint to = SelectorNumber<Target>::kind;
  static const bool same_width = SelectorNumber<Source>::bits == SelectorNumber<Target>::bits;
  static const uint opcode =
      from == to && same_width ? 0
      : from == 0 && to == 0   ? /* OpFConvert */ 115
      : from == 0              ? (to == 1 ? /* OpConvertFToS */ 110 : /* OpConvertFToU */ 109)
      : to == 0                ? (from == 1 ? /* OpConvertSToF */ 111 : /* OpConvertUToF */ 112)
      : same_width             ? /* OpBitcast */ 124
      : to == 1                ? /* OpSConvert */ 114
                               : /* OpUConvert */ 113;
};

template <typename R, typename A> [[vk::ext_instruction(109)]] R SelectorConvertFToU(A a);
template <typename R, typename A> [[vk::ext_instruction(110)]] R SelectorConvertFToS(A a);
template <typename R, typename A> [[vk::ext_instruction(111)]] R SelectorConvertSToF(A a);
template <typename R, typename A> [[vk::ext_instruction(112)]] R SelectorConvertUToF(A a);
template <typename R, typename A> [[vk::ext_instruction(113)]] R SelectorUConvert(A a);
template <typename R, typename A> [[vk::ext_instruction(114)]] R SelectorSConvert(A a);
template <typename R, typename A> [[vk::ext_instruction(115)]] R SelectorFConvert(A a);
template <typename R, typename A> [[vk::ext_instruction(124)]] R SelectorBitcast(A a);

// The conversion of each opcode.
template <uint opcode> struct SelectorApply {
  template <typename R, typename A> static R Apply(A a) { return (R)a; }
};
template <> struct SelectorApply<109> {
  template <typename R, typename A> static R Apply(A a) { return SelectorConvertFToU<R>(a); }
};
template <> struct SelectorApply<110> {
  template <typename R, typename A> static R Apply(A a) { return SelectorConvertFToS<R>(a); }
};
template <> struct SelectorApply<111> {
  template <typename R, typename A> static R Apply(A a) { return SelectorConvertSToF<R>(a); }
};
template <> struct SelectorApply<112> {
  template <typename R, typename A> static R Apply(A a) { return SelectorConvertUToF<R>(a); }
};
template <> struct SelectorApply<113> {
  template <typename R, typename A> static R Apply(A a) { return SelectorUConvert<R>(a); }
};
template <> struct SelectorApply<114> {
  template <typename R, typename A> static R Apply(A a) { return SelectorSConvert<R>(a); }
};
template <> struct SelectorApply<115> {
  template <typename R, typename A> static R Apply(A a) { return SelectorFConvert<R>(a); }
};
template <> struct SelectorApply<124> {
  template <typename R, typename A> static R Apply(A a) { return SelectorBitcast<R>(a); }
};

} // namespace detail

template <typename SourceType, typename TargetType> struct ConversionSelector {
  template <typename ResultType, typename InputType> static ResultType Convert(InputType value) {
    return detail::SelectorApply<detail::SelectorOpcode<SourceType, TargetType>::opcode>::Apply<ResultType>(
        value);
  }
};

} // namespace util
} // namespace vk

#endif // SPIRVKIT_VK_OPCODE_SELECTOR_H
