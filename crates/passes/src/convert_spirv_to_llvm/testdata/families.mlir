// Pattern families; families.generic is mlir-opt-22 -convert-spirv-to-llvm
// -split-input-file --mlir-print-op-generic of this file.
spirv.func @arith(%a: i32, %b: i32, %f: f32, %v: vector<2xf32>) "None" {
  %0 = spirv.IAdd %a, %b : i32
  %1 = spirv.FMul %f, %f : f32
  %2 = spirv.SDiv %a, %b : i32
  %3 = spirv.FNegate %v : vector<2xf32>
  spirv.Return
}
// -----
spirv.func @bitwise(%a: i32, %b: i32, %o: i32, %c: i32) "None" {
  %0 = spirv.BitwiseAnd %a, %b : i32
  %1 = spirv.Not %a : i32
  %2 = spirv.BitCount %a : i32
  %3 = spirv.BitFieldUExtract %a, %o, %c : i32, i32, i32
  %4 = spirv.BitFieldSExtract %a, %o, %c : i32, i32, i32
  %5 = spirv.BitFieldInsert %a, %b, %o, %c : i32, i32, i32
  spirv.Return
}
// -----
spirv.func @casts(%a: i32, %f: f32, %h: i64, %d: f64) "None" {
  %0 = spirv.ConvertFToS %f : f32 to i32
  %1 = spirv.SConvert %a : i32 to i64
  %2 = spirv.UConvert %h : i64 to i32
  %3 = spirv.FConvert %d : f64 to f32
  %4 = spirv.Bitcast %a : i32 to f32
  spirv.Return
}
// -----
spirv.func @cmp(%a: i32, %b: i32, %f: f32) "None" {
  %0 = spirv.SLessThan %a, %b : i32
  %1 = spirv.FOrdGreaterThan %f, %f : f32
  %2 = spirv.LogicalNot %0 : i1
  spirv.Return
}
// -----
spirv.func @gl(%f: f32, %i: i32) "None" {
  %0 = spirv.GL.InverseSqrt %f : f32
  %1 = spirv.GL.SMax %i, %i : i32
  %2 = spirv.GL.Floor %f : f32
  spirv.Return
}
