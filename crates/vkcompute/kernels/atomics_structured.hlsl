// Interlocked* on RWStructuredBuffer elements from 128 threads: Add (with the original
// value returned), Min/Max on uint and int, Or/And/Xor, a CompareExchange loop acting as an
// increment, and Exchange (the values seen plus the last one left are all values once).
RWStructuredBuffer<uint> Counters : register(u0);
RWStructuredBuffer<int> Signed : register(u1);
RWStructuredBuffer<uint> Originals : register(u2);
RWStructuredBuffer<uint> Exchanged : register(u3);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    uint original;
    InterlockedAdd(Counters[0], 1, original);
    Originals[i] = original;
    InterlockedMin(Counters[1], (i * 37 + 11) % 101 + 5);
    InterlockedMax(Counters[2], (i * 37 + 11) % 101);
    InterlockedOr(Counters[3], 1u << (i % 32));
    InterlockedAnd(Counters[4], ~(1u << (i % 16)));
    InterlockedXor(Counters[5], i * 0x01010101u);
    uint expected = 0;
    [allow_uav_condition] for (uint attempt = 0; attempt < 1000; attempt++) {
        uint actual;
        InterlockedCompareExchange(Counters[6], expected, expected + 1, actual);
        if (actual == expected)
            break;
        expected = actual;
    }
    InterlockedMin(Signed[0], (int)i - 50);
    InterlockedMax(Signed[1], 40 - (int)i * 3);
    uint previous;
    InterlockedExchange(Exchanged[128], i, previous);
    Exchanged[i] = previous;
}
