// Interlocked* methods of RWByteAddressBuffer at byte offsets from 96 threads: Add with the
// original value, Min/Max, Or, a CompareExchange loop summing the thread ids, and Exchange.
RWByteAddressBuffer Buf : register(u0);

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    uint original;
    Buf.InterlockedAdd(0, 2u, original);
    Buf.Store(64 + i * 4, original);
    Buf.InterlockedMin(4, (i * 13 + 7) % 97 + 3);
    Buf.InterlockedMax(8, (i * 13 + 7) % 97);
    uint expected = Buf.Load(12);
    [allow_uav_condition] for (uint attempt = 0; attempt < 1000; attempt++) {
        uint actual;
        Buf.InterlockedCompareExchange(12, expected, expected + i, actual);
        if (actual == expected)
            break;
        expected = actual;
    }
    Buf.InterlockedOr(16, 1u << (i % 31));
    uint previous;
    Buf.InterlockedExchange(508, i + 1, previous);
    Buf.Store(512 + i * 4, previous);
}
