// groupshared memory with GroupMemoryBarrierWithGroupSync: a tree reduction of 64 values
// per group (sum and max), four groups.
StructuredBuffer<uint> In : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint g_sum[64];
groupshared uint g_max[64];

[numthreads(64, 1, 1)]
void main(uint3 group : SV_GroupID, uint index : SV_GroupIndex, uint3 id : SV_DispatchThreadID) {
    g_sum[index] = In[id.x];
    g_max[index] = In[id.x];
    GroupMemoryBarrierWithGroupSync();
    for (uint stride = 32; stride > 0; stride >>= 1) {
        if (index < stride) {
            g_sum[index] += g_sum[index + stride];
            g_max[index] = max(g_max[index], g_max[index + stride]);
        }
        GroupMemoryBarrierWithGroupSync();
    }
    if (index == 0) {
        Out[group.x * 2 + 0] = g_sum[0];
        Out[group.x * 2 + 1] = g_max[0];
    }
}
