// vk/khr/cooperative_matrix.h: SPV_KHR_cooperative_matrix for HLSL (built into
// hlsl2spirv).
//
// vk::khr::CooperativeMatrix<ComponentType, scope, rows, columns, use> wraps
// OpTypeCooperativeMatrixKHR (4456). Loads and stores are
// OpCooperativeMatrixLoadKHR (4457) / OpCooperativeMatrixStoreKHR (4458) through a
// pointer to a buffer element or a groupshared variable; the length is
// OpCooperativeMatrixLengthKHR (4460); multiply-add is
// OpCooperativeMatrixMulAddKHR (4459). Arithmetic uses the ordinary SPIR-V
// instructions on the matrix type.
#ifndef SPIRVKIT_VK_KHR_COOPERATIVE_MATRIX_H
#define SPIRVKIT_VK_KHR_COOPERATIVE_MATRIX_H

#include "vk/spirv.h"

namespace vk {

// SPIR-V Scope values.
static const uint ScopeCrossDevice = 0;
static const uint ScopeDevice = 1;
static const uint ScopeWorkgroup = 2;
static const uint ScopeSubgroup = 3;
static const uint ScopeInvocation = 4;
static const uint ScopeQueueFamily = 5;

// Cooperative matrix layouts and uses.
static const uint CooperativeMatrixLayoutRowMajorKHR = 0;
static const uint CooperativeMatrixLayoutColumnMajorKHR = 1;
static const uint CooperativeMatrixUseMatrixAKHR = 0;
static const uint CooperativeMatrixUseMatrixBKHR = 1;
static const uint CooperativeMatrixUseMatrixAccumulatorKHR = 2;

// Memory operands (SPIR-V MemoryAccess bits).
static const uint MemoryAccessMaskNone = 0x0;
static const uint MemoryAccessVolatileMask = 0x1;
static const uint MemoryAccessAlignedMask = 0x2;
static const uint MemoryAccessNontemporalMask = 0x4;
static const uint MemoryAccessMakePointerAvailableMask = 0x8;
static const uint MemoryAccessMakePointerVisibleMask = 0x10;
static const uint MemoryAccessNonPrivatePointerMask = 0x20;

namespace khr {

namespace detail {

// How a component type converts and computes: kind 0 floating point, 1 signed
// integer, 2 unsigned integer; its width in bits. Other types count as float.
template <typename T> struct NumberKind {
  static const uint kind = 0;
  static const uint bits = 32;
};
template <> struct NumberKind<double> {
  static const uint kind = 0;
  static const uint bits = 64;
};
template <> struct NumberKind<int> {
  static const uint kind = 1;
  static const uint bits = 32;
};
template <> struct NumberKind<uint> {
  static const uint kind = 2;
  static const uint bits = 32;
};
template <> struct NumberKind<int64_t> {
  static const uint kind = 1;
  static const uint bits = 64;
};
template <> struct NumberKind<uint64_t> {
  static const uint kind = 2;
  static const uint bits = 64;
};
#ifdef __HLSL_ENABLE_16_BIT
template <> struct NumberKind<half> {
  static const uint kind = 0;
  static const uint bits = 16;
};
template <> struct NumberKind<int16_t> {
  static const uint kind = 1;
  static const uint bits = 16;
};
template <> struct NumberKind<uint16_t> {
  static const uint kind = 2;
  static const uint bits = 16;
};
#endif

// The instruction of each element-wise operation for a component type.
template <typename T> struct Opcodes {
  static const uint kind = NumberKind<T>::kind;
  static const uint negate = kind == 0 ? /* OpFNegate */ 127 : /* OpSNegate */ 126;
  static const uint add = kind == 0 ? /* OpFAdd */ 129 : /* OpIAdd */ 128;
  static const uint sub = kind == 0 ? /* OpFSub */ 131 : /* OpISub */ 130;
  static const uint mul = kind == 0 ? /* OpFMul */ 133 : /* OpIMul */ 132;
  static const uint div = kind == 0 ? /* OpFDiv */ 136 : kind == 1 ? /* OpSDiv */ 135 : /* OpUDiv */ 134;
};

// The conversion instruction from one component type to another: between floats
// OpFConvert, float and integer OpConvert{F,S,U}To{S,U,F}, between integers of one
// width OpBitcast, else OpSConvert/OpUConvert by the source's signedness (HLSL's
// sign or zero extension); a type to itself is a copy.
template <typename From, typename To> struct Conversion {
  static const uint from = NumberKind<From>::kind;
  static const uint to = NumberKind<To>::kind;
  static const bool same_width = NumberKind<From>::bits == NumberKind<To>::bits;
  static const uint opcode =
      from == to && same_width ? /* OpCopyObject */ 83
      : from == 0 && to == 0   ? /* OpFConvert */ 115
      : from == 0              ? (to == 1 ? /* OpConvertFToS */ 110 : /* OpConvertFToU */ 109)
      : to == 0                ? (from == 1 ? /* OpConvertSToF */ 111 : /* OpConvertUToF */ 112)
      : same_width             ? /* OpBitcast */ 124
      : from == 1              ? /* OpSConvert */ 114
                               : /* OpUConvert */ 113;
};

template <uint opcode, typename ResultType, typename OperandType>
[[vk::ext_instruction(opcode)]] ResultType Unary(OperandType a);

template <uint opcode, typename ResultType, typename LeftType, typename RightType>
[[vk::ext_instruction(opcode)]] ResultType Binary(LeftType a, RightType b);

// OpCooperativeMatrixLoadKHR / OpCooperativeMatrixStoreKHR through a reference to a
// buffer element or through a SPIR-V pointer, with memory operands, and with the
// scope operand that MakePointerVisible / MakePointerAvailable take.
template <typename ResultType, typename ElementType>
[[vk::ext_extension("SPV_KHR_cooperative_matrix")]]
[[vk::ext_capability(/* CooperativeMatrixKHR */ 6022)]]
[[vk::ext_instruction(/* OpCooperativeMatrixLoadKHR */ 4457)]]
ResultType Load([[vk::ext_reference]] ElementType element, uint layout, uint stride,
                [[vk::ext_literal]] uint memoryOperands);

template <typename ResultType, typename ElementType>
[[vk::ext_instruction(/* OpCooperativeMatrixLoadKHR */ 4457)]]
ResultType ScopedLoad([[vk::ext_reference]] ElementType element, uint layout, uint stride,
                      [[vk::ext_literal]] uint memoryOperands, int scope);

template <typename ResultType, typename PointerType>
[[vk::ext_instruction(/* OpCooperativeMatrixLoadKHR */ 4457)]]
ResultType ScopedLoadFromPointer(PointerType pointer, uint layout, uint stride,
                                 [[vk::ext_literal]] uint memoryOperands, int scope);

template <typename ElementType, typename MatrixType>
[[vk::ext_instruction(/* OpCooperativeMatrixStoreKHR */ 4458)]]
void Store([[vk::ext_reference]] ElementType element, MatrixType object, uint layout,
           uint stride, [[vk::ext_literal]] uint memoryOperands);

template <typename ElementType, typename MatrixType>
[[vk::ext_instruction(/* OpCooperativeMatrixStoreKHR */ 4458)]]
void ScopedStore([[vk::ext_reference]] ElementType element, MatrixType object, uint layout,
                 uint stride, [[vk::ext_literal]] uint memoryOperands, int scope);

template <typename PointerType, typename MatrixType>
[[vk::ext_instruction(/* OpCooperativeMatrixStoreKHR */ 4458)]]
void ScopedStoreToPointer(PointerType pointer, MatrixType object, uint layout, uint stride,
                          [[vk::ext_literal]] uint memoryOperands, int scope);

template <typename MatrixType>
[[vk::ext_instruction(/* OpCooperativeMatrixLengthKHR */ 4460)]]
uint Length([[vk::ext_literal]] MatrixType type);

template <typename MatrixType, typename ComponentType>
[[vk::ext_instruction(/* OpCompositeConstruct */ 80)]]
MatrixType Splat(ComponentType value);

template <typename ComponentType, typename MatrixType>
[[vk::ext_instruction(/* OpCompositeExtract */ 81)]]
ComponentType Extract(MatrixType matrix, uint index);

template <typename MatrixType, typename ComponentType>
[[vk::ext_instruction(/* OpCompositeInsert */ 82)]]
MatrixType Insert(ComponentType value, MatrixType matrix, uint index);

template <typename ResultType, typename AType, typename BType>
[[vk::ext_instruction(/* OpCooperativeMatrixMulAddKHR */ 4459)]]
ResultType MulAdd(AType a, BType b, ResultType c, [[vk::ext_literal]] uint operands);

// Memory operands a coherent access adds, and the scopes they are made visible or
// available at: the queue family for globallycoherent buffers, the workgroup for
// groupshared memory.
static const uint CoherentLoadBits = MemoryAccessMakePointerVisibleMask | MemoryAccessNonPrivatePointerMask;
static const uint CoherentStoreBits = MemoryAccessMakePointerAvailableMask | MemoryAccessNonPrivatePointerMask;
static const int QueueFamilyScope = 5;
static const int WorkgroupScope = 2;

} // namespace detail

// Loads and stores take their layout as a template argument, optionally preceded by
// extra memory operands (`Load<vk::CooperativeMatrixLayoutRowMajorKHR>(...)`,
// `Load<vk::MemoryAccessNontemporalMask, vk::CooperativeMatrixLayoutRowMajorKHR>(...)`);
// three arguments name a buffer, an element index and a stride, two a pointer from
// vk::GetGroupSharedAddress and a stride.
template <typename ComponentType, uint scope, uint rows, uint columns, uint use>
class CooperativeMatrix {
  using SpirvMatrixType = vk::SpirvOpaqueType</* OpTypeCooperativeMatrixKHR */ 4456,
                                              ComponentType, vk::integral_constant<uint, scope>,
                                              vk::integral_constant<uint, rows>,
                                              vk::integral_constant<uint, columns>,
                                              vk::integral_constant<uint, use> >;
  using Ops = detail::Opcodes<ComponentType>;

  [[vk::ext_extension("SPV_KHR_cooperative_matrix")]]
  [[vk::ext_capability(/* CooperativeMatrixKHR */ 6022)]]
  SpirvMatrixType _matrix;

  static const bool hasSignedIntegerComponentType = detail::NumberKind<ComponentType>::kind == 1;

  static CooperativeMatrix wrap(SpirvMatrixType m) {
    CooperativeMatrix result;
    result._matrix = m;
    return result;
  }

  // The same matrix with its components converted to NewComponentType.
  template <class NewComponentType>
  CooperativeMatrix<NewComponentType, scope, rows, columns, use> cast() {
    CooperativeMatrix<NewComponentType, scope, rows, columns, use> result;
    result._matrix = detail::Unary<detail::Conversion<ComponentType, NewComponentType>::opcode,
                                   vk::SpirvOpaqueType<4456, NewComponentType,
                                                       vk::integral_constant<uint, scope>,
                                                       vk::integral_constant<uint, rows>,
                                                       vk::integral_constant<uint, columns>,
                                                       vk::integral_constant<uint, use> > >(_matrix);
    return result;
  }

  CooperativeMatrix negate() {
    return wrap(detail::Unary<Ops::negate, SpirvMatrixType>(_matrix));
  }

  CooperativeMatrix operator+(CooperativeMatrix other) {
    return wrap(detail::Binary<Ops::add, SpirvMatrixType>(_matrix, other._matrix));
  }
  CooperativeMatrix operator-(CooperativeMatrix other) {
    return wrap(detail::Binary<Ops::sub, SpirvMatrixType>(_matrix, other._matrix));
  }
  CooperativeMatrix operator*(CooperativeMatrix other) {
    return wrap(detail::Binary<Ops::mul, SpirvMatrixType>(_matrix, other._matrix));
  }
  CooperativeMatrix operator/(CooperativeMatrix other) {
    return wrap(detail::Binary<Ops::div, SpirvMatrixType>(_matrix, other._matrix));
  }
  CooperativeMatrix operator*(ComponentType scalar) {
    return wrap(detail::Binary</* OpMatrixTimesScalar */ 143, SpirvMatrixType>(_matrix, scalar));
  }

  static CooperativeMatrix Splat(ComponentType value) {
    return wrap(detail::Splat<SpirvMatrixType>(value));
  }

  static uint GetLength() { return detail::Length(SpirvMatrixType()); }

  ComponentType Get(uint index) { return detail::Extract<ComponentType>(_matrix, index); }

  void Set(ComponentType value, uint index) {
    _matrix = detail::Insert<SpirvMatrixType>(value, _matrix, index);
  }

  // From buffer[index].
  template <uint memoryOperands, uint layout, class BufferType>
  static CooperativeMatrix Load(BufferType buffer, uint index, uint stride) {
    return wrap(detail::Load<SpirvMatrixType>(buffer[index], layout, stride, memoryOperands));
  }
  template <uint layout, class BufferType>
  static CooperativeMatrix Load(BufferType buffer, uint index, uint stride) {
    return Load<MemoryAccessMaskNone, layout>(buffer, index, stride);
  }

  // From a globallycoherent buffer, made visible at the queue family scope.
  template <uint memoryOperands, uint layout, class BufferType>
  static CooperativeMatrix CoherentLoad(BufferType buffer, uint index, uint stride) {
    return wrap(detail::ScopedLoad<SpirvMatrixType>(buffer[index], layout, stride,
                                                    memoryOperands | detail::CoherentLoadBits,
                                                    detail::QueueFamilyScope));
  }
  template <uint layout, class BufferType>
  static CooperativeMatrix CoherentLoad(BufferType buffer, uint index, uint stride) {
    return CoherentLoad<MemoryAccessMaskNone, layout>(buffer, index, stride);
  }

  // From groupshared memory, made visible at the workgroup scope.
  template <uint memoryOperands, uint layout, class PointerType>
  static CooperativeMatrix Load(PointerType pointer, uint stride) {
    return wrap(detail::ScopedLoadFromPointer<SpirvMatrixType>(
        pointer, layout, stride, memoryOperands | detail::CoherentLoadBits, detail::WorkgroupScope));
  }
  template <uint layout, class PointerType>
  static CooperativeMatrix Load(PointerType pointer, uint stride) {
    return Load<MemoryAccessMaskNone, layout>(pointer, stride);
  }

  template <uint memoryOperands, uint layout, class BufferType>
  void Store(BufferType buffer, uint index, uint stride) {
    detail::Store(buffer[index], _matrix, layout, stride, memoryOperands);
  }
  template <uint layout, class BufferType>
  void Store(BufferType buffer, uint index, uint stride) {
    Store<MemoryAccessMaskNone, layout>(buffer, index, stride);
  }

  template <uint memoryOperands, uint layout, class BufferType>
  void CoherentStore(BufferType buffer, uint index, uint stride) {
    detail::ScopedStore(buffer[index], _matrix, layout, stride,
                        memoryOperands | detail::CoherentStoreBits, detail::QueueFamilyScope);
  }
  template <uint layout, class BufferType>
  void CoherentStore(BufferType buffer, uint index, uint stride) {
    CoherentStore<MemoryAccessMaskNone, layout>(buffer, index, stride);
  }

  template <uint memoryOperands, uint layout, class PointerType>
  void Store(PointerType pointer, uint stride) {
    detail::ScopedStoreToPointer(pointer, _matrix, layout, stride,
                                 memoryOperands | detail::CoherentStoreBits, detail::WorkgroupScope);
  }
  template <uint layout, class PointerType>
  void Store(PointerType pointer, uint stride) {
    Store<MemoryAccessMaskNone, layout>(pointer, stride);
  }
};

template <typename ComponentType, uint scope, uint rows, uint columns>
using CooperativeMatrixA =
    CooperativeMatrix<ComponentType, scope, rows, columns, CooperativeMatrixUseMatrixAKHR>;

template <typename ComponentType, uint scope, uint rows, uint columns>
using CooperativeMatrixB =
    CooperativeMatrix<ComponentType, scope, rows, columns, CooperativeMatrixUseMatrixBKHR>;

template <typename ComponentType, uint scope, uint rows, uint columns>
using CooperativeMatrixAccumulator =
    CooperativeMatrix<ComponentType, scope, rows, columns, CooperativeMatrixUseMatrixAccumulatorKHR>;

} // namespace khr
} // namespace vk

// Multiply-add of A (MxK) and B (KxN) into an accumulator (MxN); the saturating form
// sets the SaturatingAccumulation operand (0x10).
template <typename T, uint scope, uint m, uint k, uint n>
vk::khr::CooperativeMatrixAccumulator<T, scope, m, n>
cooperativeMatrixMultiplyAdd(vk::khr::CooperativeMatrixA<T, scope, m, k> a,
                             vk::khr::CooperativeMatrixB<T, scope, k, n> b,
                             vk::khr::CooperativeMatrixAccumulator<T, scope, m, n> c) {
  c._matrix = vk::khr::detail::MulAdd(a._matrix, b._matrix, c._matrix, 0);
  return c;
}

template <typename T, uint scope, uint m, uint k, uint n>
vk::khr::CooperativeMatrixAccumulator<T, scope, m, n>
cooperativeMatrixSaturatingMultiplyAdd(vk::khr::CooperativeMatrixA<T, scope, m, k> a,
                                       vk::khr::CooperativeMatrixB<T, scope, k, n> b,
                                       vk::khr::CooperativeMatrixAccumulator<T, scope, m, n> c) {
  c._matrix = vk::khr::detail::MulAdd(a._matrix, b._matrix, c._matrix, 0x10);
  return c;
}

#endif // SPIRVKIT_VK_KHR_COOPERATIVE_MATRIX_H
