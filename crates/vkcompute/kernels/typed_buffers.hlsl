// Typed buffers: Buffer<float4> (a uniform texel buffer) read with operator[] and Load,
// RWBuffer<uint> and RWBuffer<float4> (storage texel buffers) written, GetDimensions.
Buffer<float4> Input : register(t1);
[[vk::image_format("r32ui")]] RWBuffer<uint> Output : register(u0);
[[vk::image_format("rgba32f")]] RWBuffer<float4> Output4 : register(u2);

[numthreads(16, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    float4 v = Input[i];
    Output[i] = (uint)(v.x + v.y * 2.0);
    Output4[i] = Input.Load(15 - i) * v.w + Output4[i];
    if (i == 0) {
        uint count;
        Input.GetDimensions(count);
        Output[16] = count;
    }
}
