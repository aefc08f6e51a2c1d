// Conversions: float to int and uint truncate toward zero, int and uint to float round to
// nearest, bool conversions (zero is false), int to uint wraps, asuint/asint/asfloat
// reinterpret bits.
StructuredBuffer<float> F : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float f = F[id.x];
    uint o = id.x * 8;
    Out[o + 0] = (uint)(int)f;
    Out[o + 1] = (uint)abs(f);
    Out[o + 2] = asuint(f);
    Out[o + 3] = asuint((float)(int)f);
    Out[o + 4] = asuint((float)(id.x * 0x01000001u + 0x7FFFFFu));
    Out[o + 5] = (uint)(bool)f + ((uint)(f > 0.5) << 1) + ((uint)!(bool)id.x << 2);
    int n = -(int)id.x - 1;
    Out[o + 6] = (uint)n;
    Out[o + 7] = asuint(asfloat(0x3F800000u + id.x) * 2.0) ^ (uint)asint(-f);
}
