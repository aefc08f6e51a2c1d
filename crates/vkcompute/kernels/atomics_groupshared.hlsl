// InterlockedAdd and InterlockedMax on groupshared variables (a histogram per group),
// initialized and read back around barriers.
StructuredBuffer<uint> In : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint bins[8];
groupshared uint largest;

[numthreads(64, 1, 1)]
void main(uint3 group : SV_GroupID, uint index : SV_GroupIndex, uint3 id : SV_DispatchThreadID) {
    if (index < 8)
        bins[index] = 0;
    if (index == 0)
        largest = 0;
    GroupMemoryBarrierWithGroupSync();
    uint v = In[id.x];
    InterlockedAdd(bins[v % 8], 1);
    InterlockedMax(largest, v);
    GroupMemoryBarrierWithGroupSync();
    if (index < 8)
        Out[group.x * 9 + index] = bins[index];
    if (index == 0)
        Out[group.x * 9 + 8] = largest;
}
