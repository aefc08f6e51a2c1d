// Wave votes, ballots and broadcasts: WaveActiveBallot, WaveActiveCountBits,
// WavePrefixCountBits, WaveActiveAnyTrue/AllTrue, WaveIsFirstLane, WaveReadLaneFirst in
// uniform and in divergent control flow, WaveReadLaneAt, WaveActiveAllEqual.
StructuredBuffer<uint> In : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint v = In[id.x];
    bool pred = (v % 3) == 0;
    uint4 ballot = WaveActiveBallot(pred);
    uint o = id.x * 12;
    Out[o + 0] = ballot.x;
    Out[o + 1] = ballot.y;
    Out[o + 2] = WaveActiveCountBits(pred);
    Out[o + 3] = WavePrefixCountBits(pred);
    Out[o + 4] = (WaveActiveAnyTrue(pred) ? 1u : 0u) | (WaveActiveAllTrue(v < 1000) ? 2u : 0u) | (WaveActiveAllTrue(pred) ? 4u : 0u);
    Out[o + 5] = WaveIsFirstLane() ? 1u : 0u;
    Out[o + 6] = WaveReadLaneFirst(v);
    uint first_in_branch;
    if (pred)
        first_in_branch = WaveReadLaneFirst(v);
    else
        first_in_branch = WaveReadLaneFirst(v + 1000);
    Out[o + 7] = first_in_branch;
    Out[o + 8] = WaveReadLaneAt(v, (WaveGetLaneIndex() + 1) % WaveGetLaneCount());
    Out[o + 9] = WaveActiveAllEqual(v / 1000) ? 1u : 0u;
    Out[o + 10] = WaveActiveAllEqual(v) ? 1u : 0u;
    Out[o + 11] = ballot.z | ballot.w;
}
