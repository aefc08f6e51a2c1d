// Bit intrinsics: countbits, reversebits, firstbithigh on uint and on int (for negative
// values the highest clear bit), firstbitlow (all ones for zero), f32tof16 and f16tof32.
StructuredBuffer<uint> In : register(t1);
StructuredBuffer<float> Halves : register(t2);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint x = In[id.x];
    int s = (int)x;
    uint o = id.x * 8;
    Out[o + 0] = countbits(x);
    Out[o + 1] = reversebits(x);
    Out[o + 2] = firstbithigh(x);
    Out[o + 3] = (uint)firstbithigh(s);
    Out[o + 4] = firstbitlow(x);
    Out[o + 5] = f32tof16(Halves[id.x]);
    Out[o + 6] = asuint(f16tof32(x & 0xFFFF));
    Out[o + 7] = (x >> 4) & 0xFF;
}
