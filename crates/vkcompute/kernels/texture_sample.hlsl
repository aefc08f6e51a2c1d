// Texture2D.SampleLevel with two SamplerStates: nearest filtering with repeat addressing
// (coordinates outside [0, 1] wrap) and linear filtering with clamp-to-edge.
Texture2D<float4> Tex : register(t1);
SamplerState PointRepeat : register(s2);
SamplerState LinearClamp : register(s3);
StructuredBuffer<float2> Coords : register(t4);
RWStructuredBuffer<float4> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float2 uv = Coords[id.x];
    Out[id.x * 2 + 0] = Tex.SampleLevel(PointRepeat, uv, 0);
    Out[id.x * 2 + 1] = Tex.SampleLevel(LinearClamp, uv, 0.0);
}
