// Wave (subgroup) reductions and scans in uniform control flow: WaveGetLaneIndex,
// WaveGetLaneCount, WaveActiveSum/Min/Max/BitOr on uint, WaveActiveSum on float,
// WavePrefixSum and WavePrefixProduct.
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint v = (id.x * 7 + 3) % 50;
    uint o = id.x * 9;
    Out[o + 0] = WaveGetLaneIndex();
    Out[o + 1] = WaveGetLaneCount();
    Out[o + 2] = WaveActiveSum(v);
    Out[o + 3] = WavePrefixSum(v);
    Out[o + 4] = WaveActiveMin(v);
    Out[o + 5] = WaveActiveMax(v);
    Out[o + 6] = WaveActiveBitOr(1u << (v % 32));
    Out[o + 7] = asuint(WaveActiveSum((float)v * 0.5));
    Out[o + 8] = WavePrefixProduct((v % 3) + 1);
}
