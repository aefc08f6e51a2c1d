// Texture2D.SampleLevel with a SamplerState (OpSampledImage of a texture and a sampler,
// OpImageSampleExplicitLod with Lod) at points inside and outside the texture.
Texture2D<float4> tex : register(t0);
SamplerState samp : register(s1);
RWBuffer<float4> o : register(u2);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float2 uv = float2(id.xy) * 0.19 - 0.5 + float2(0.01, 0.02);
    o[id.y * 8 + id.x] = tex.SampleLevel(samp, uv, 0.0);
}
