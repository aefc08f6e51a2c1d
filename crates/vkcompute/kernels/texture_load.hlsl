// Texture2D<float4> and Texture2D<uint>: Load(int3) with mip level, operator[] with uint2,
// GetDimensions.
Texture2D<float4> Tex : register(t1);
Texture2D<uint> Ids : register(t2);
RWStructuredBuffer<float4> Out : register(u0);
RWStructuredBuffer<uint> OutIds : register(u3);

[numthreads(4, 4, 1)]
void main(uint3 t : SV_DispatchThreadID) {
    uint index = t.y * 4 + t.x;
    Out[index] = Tex.Load(int3(t.x, t.y, 0)) * 2.0 + Tex[uint2(3 - t.x, t.y)];
    OutIds[index] = Ids.Load(int3(t.xy, 0)) + Ids[uint2(t.y, t.x)] * 1000;
    if (index == 0) {
        uint width;
        uint height;
        Tex.GetDimensions(width, height);
        OutIds[16] = width;
        OutIds[17] = height;
    }
}
