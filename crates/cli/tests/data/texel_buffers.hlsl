// Texel buffers: HLSL Buffer<T> (uniform texel buffer, OpImageFetch) and RWBuffer<T>
// (storage texel buffer, OpImageRead/OpImageWrite), GetDimensions, and a write past the end.
Buffer<float4> src : register(t0);
RWBuffer<float> dst : register(u1);
RWBuffer<uint> counts : register(u2);
Buffer<int2> pairs : register(t3);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint n;
    dst.GetDimensions(n);
    float4 v = src[id.x];
    int2 p = pairs.Load(id.x);
    dst[id.x] = v.x + 2 * v.y + 3 * v.z + 4 * v.w + p.x - p.y;
    counts[id.x] = counts[id.x] * 3 + n;
    dst[id.x + 100] = 5.0;
}
