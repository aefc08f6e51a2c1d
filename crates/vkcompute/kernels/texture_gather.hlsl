// Texture2D.Gather, GatherGreen and GatherAlpha (the four texels around a coordinate in
// the order (-,+), (+,+), (+,-), (-,-)) with a clamping sampler, and Load with a constant
// texel offset.
Texture2D<float4> Tex : register(t1);
SamplerState Clamp : register(s2);
StructuredBuffer<float2> Coords : register(t3);
RWStructuredBuffer<float4> Out : register(u0);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float2 uv = Coords[id.x];
    Out[id.x * 4 + 0] = Tex.Gather(Clamp, uv);
    Out[id.x * 4 + 1] = Tex.GatherGreen(Clamp, uv);
    Out[id.x * 4 + 2] = Tex.GatherAlpha(Clamp, uv);
    Out[id.x * 4 + 3] = Tex.Load(int3(id.x, 1, 0), int2(0, 1));
}
