// RWTexture2D<float4> and RWTexture2D<uint> (storage images with explicit formats): read,
// modify and write through operator[], GetDimensions.
[[vk::image_format("rgba32f")]] RWTexture2D<float4> Color : register(u0);
[[vk::image_format("r32ui")]] RWTexture2D<uint> Counts : register(u1);

[numthreads(4, 4, 1)]
void main(uint3 t : SV_DispatchThreadID) {
    float4 c = Color[t.xy];
    Color[t.xy] = float4(t.x, t.y, c.x + c.y, 1.0) * 0.25 + c * 0.5;
    uint width;
    uint height;
    Counts.GetDimensions(width, height);
    Counts[t.xy] = Counts[t.xy] * 2 + t.x * 10 + t.y + (width << 16) + (height << 24);
}
