// ByteAddressBuffer Load/Load2/Load3/Load4 at 4-byte (not 16-byte) aligned offsets,
// RWByteAddressBuffer Store/Store2/Store3/Store4, asfloat on loaded words, GetDimensions.
ByteAddressBuffer Src : register(t1);
RWByteAddressBuffer Dst : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    uint a = Src.Load(i * 4);
    uint2 b = Src.Load2(32 + i * 8);
    uint3 c = Src.Load3(100 + i * 12);
    uint4 d = Src.Load4(4 + i * 16);
    Dst.Store(i * 4, a * 3);
    Dst.Store2(32 + i * 8, b.yx);
    Dst.Store3(100 + i * 12, c + uint3(1, 2, 3));
    Dst.Store4(196 + i * 16, d ^ 0xFFFF0000u);
    float f = asfloat(Src.Load(i * 4 + 160));
    Dst.Store(324 + i * 4, asuint(f * 2.0 + 1.0));
    if (i == 0) {
        uint size;
        Src.GetDimensions(size);
        Dst.Store(356, size);
    }
}
