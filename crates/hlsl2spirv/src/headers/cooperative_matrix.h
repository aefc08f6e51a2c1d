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

// Memory operands.
static const uint MemoryAccessMakePointerAvailableMask = 0x8;
static const uint MemoryAccessMakePointerVisibleMask = 0x10;
static const uint MemoryAccessNonPrivatePointerMask = 0x20;

namespace khr {

namespace detail {

template <typename ResultType, typename PointerType>
[[vk::ext_extension("SPV_KHR_cooperative_matrix")]]
[[vk::ext_capability(/* CooperativeMatrixKHR */ 6022)]]
[[vk::ext_instruction(/* OpCooperativeMatrixLoadKHR */ 4457)]]
ResultType Load([[vk::ext_reference]] PointerType pointer, uint layout, uint stride,
                [[vk::ext_literal]] uint memoryOperand);

template <typename ResultType, typename PointerType>
[[vk::ext_instruction(/* OpCooperativeMatrixLoadKHR */ 4457)]]
ResultType LoadFromPointer(PointerType pointer, uint layout, uint stride,
                           [[vk::ext_literal]] uint memoryOperand);

template <typename PointerType, typename MatrixType>
[[vk::ext_instruction(/* OpCooperativeMatrixStoreKHR */ 4458)]]
void Store([[vk::ext_reference]] PointerType pointer, MatrixType object, uint layout,
           uint stride, [[vk::ext_literal]] uint memoryOperand);

template <typename PointerType, typename MatrixType>
[[vk::ext_instruction(/* OpCooperativeMatrixStoreKHR */ 4458)]]
void StoreToPointer(PointerType pointer, MatrixType object, uint layout, uint stride,
                    [[vk::ext_literal]] uint memoryOperand);

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

template <typename MatrixType>
[[vk::ext_instruction(/* OpFAdd */ 129)]] MatrixType Add(MatrixType a, MatrixType b);
template <typename MatrixType>
[[vk::ext_instruction(/* OpFSub */ 131)]] MatrixType Sub(MatrixType a, MatrixType b);
template <typename MatrixType>
[[vk::ext_instruction(/* OpFMul */ 133)]] MatrixType Mul(MatrixType a, MatrixType b);
template <typename MatrixType>
[[vk::ext_instruction(/* OpFDiv */ 136)]] MatrixType Div(MatrixType a, MatrixType b);
template <typename MatrixType>
[[vk::ext_instruction(/* OpFNegate */ 127)]] MatrixType Negate(MatrixType a);
template <typename MatrixType, typename ComponentType>
[[vk::ext_instruction(/* OpMatrixTimesScalar */ 143)]]
MatrixType Scale(MatrixType a, ComponentType b);

} // namespace detail

template <typename ComponentType, uint scope, uint rows, uint columns, uint use>
class CooperativeMatrix {
  using SpirvMatrixType = vk::SpirvOpaqueType</* OpTypeCooperativeMatrixKHR */ 4456,
                                              ComponentType, vk::integral_constant<uint, scope>,
                                              vk::integral_constant<uint, rows>,
                                              vk::integral_constant<uint, columns>,
                                              vk::integral_constant<uint, use> >;

  [[vk::ext_extension("SPV_KHR_cooperative_matrix")]]
  [[vk::ext_capability(/* CooperativeMatrixKHR */ 6022)]]
  SpirvMatrixType _matrix;

  static CooperativeMatrix wrap(SpirvMatrixType m) {
    CooperativeMatrix result;
    result._matrix = m;
    return result;
  }

  CooperativeMatrix negate() { return wrap(detail::Negate(_matrix)); }

  CooperativeMatrix operator+(CooperativeMatrix other) {
    return wrap(detail::Add(_matrix, other._matrix));
  }
  CooperativeMatrix operator-(CooperativeMatrix other) {
    return wrap(detail::Sub(_matrix, other._matrix));
  }
  CooperativeMatrix operator*(CooperativeMatrix other) {
    return wrap(detail::Mul(_matrix, other._matrix));
  }
  CooperativeMatrix operator/(CooperativeMatrix other) {
    return wrap(detail::Div(_matrix, other._matrix));
  }
  CooperativeMatrix operator*(ComponentType scalar) {
    return wrap(detail::Scale(_matrix, scalar));
  }

  static CooperativeMatrix Splat(ComponentType value) {
    return wrap(detail::Splat<SpirvMatrixType>(value));
  }

  static uint GetLength() { return detail::Length(SpirvMatrixType()); }

  ComponentType Get(uint index) { return detail::Extract<ComponentType>(_matrix, index); }

  void Set(ComponentType value, uint index) {
    _matrix = detail::Insert<SpirvMatrixType>(value, _matrix, index);
  }

  template <uint layout, typename BufferType>
  static CooperativeMatrix Load(BufferType buffer, uint index, uint stride) {
    return wrap(detail::Load<SpirvMatrixType>(buffer[index], layout, stride, 0));
  }

  template <uint layout, typename BufferType>
  static CooperativeMatrix CoherentLoad(BufferType buffer, uint index, uint stride) {
    return wrap(detail::Load<SpirvMatrixType>(
        buffer[index], layout, stride,
        MemoryAccessMakePointerVisibleMask | MemoryAccessNonPrivatePointerMask));
  }

  template <uint layout, typename PointerType>
  static CooperativeMatrix Load(PointerType pointer, uint stride) {
    return wrap(detail::LoadFromPointer<SpirvMatrixType>(pointer, layout, stride, 0));
  }

  template <uint layout, typename BufferType>
  void Store(BufferType buffer, uint index, uint stride) {
    detail::Store(buffer[index], _matrix, layout, stride, 0);
  }

  template <uint layout, typename BufferType>
  void CoherentStore(BufferType buffer, uint index, uint stride) {
    detail::Store(buffer[index], _matrix, layout, stride,
                  MemoryAccessMakePointerAvailableMask | MemoryAccessNonPrivatePointerMask);
  }

  template <uint layout, typename PointerType>
  void Store(PointerType pointer, uint stride) {
    detail::StoreToPointer(pointer, _matrix, layout, stride, 0);
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
