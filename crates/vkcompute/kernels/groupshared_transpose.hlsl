// A 16x16 matrix transposed through an 8x8 groupshared tile per group (2D thread and
// group ids, a 2D groupshared array, one barrier between the write and the read).
StructuredBuffer<uint> In : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint tile[8][8];

[numthreads(8, 8, 1)]
void main(uint3 group : SV_GroupID, uint3 t : SV_GroupThreadID) {
    uint2 src = group.xy * 8 + t.xy;
    tile[t.y][t.x] = In[src.y * 16 + src.x];
    GroupMemoryBarrierWithGroupSync();
    uint2 dst = group.yx * 8 + t.xy;
    Out[dst.y * 16 + dst.x] = tile[t.x][t.y];
}
