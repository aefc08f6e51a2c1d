#version 450
layout(local_size_x_id = 3, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 7) const uint SCALE = 2;
layout(constant_id = 8) const bool FLAG = false;
layout(set=0, binding=0) buffer B { uint n; uint data[]; } b;
layout(push_constant) uniform P { uint add; } pc;
shared uint tile[64];
void main() {
  uint i = gl_GlobalInvocationID.x;
  tile[gl_LocalInvocationIndex % 64] = i;
  barrier();
  uint k = SCALE * 3 + 1;
  if (FLAG) k = 0;
  if (i < b.n) b.data[i] = b.data[i] * k + pc.add + gl_WorkGroupSize.x + tile[0];
}
