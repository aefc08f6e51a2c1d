// Interlocked* on RWTexture2D<uint> texels (image atomics through a texel pointer): a
// histogram with InterlockedAdd returning the original value, and InterlockedMax.
[[vk::image_format("r32ui")]] RWTexture2D<uint> Hist : register(u0);
[[vk::image_format("r32ui")]] RWTexture2D<uint> Largest : register(u1);
StructuredBuffer<uint> In : register(t2);
RWStructuredBuffer<uint> Originals : register(u3);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint v = In[id.x];
    uint original;
    InterlockedAdd(Hist[uint2(v % 4, (v / 4) % 2)], 1, original);
    Originals[id.x] = original;
    InterlockedMax(Largest[uint2(v % 4, 0)], v);
}
