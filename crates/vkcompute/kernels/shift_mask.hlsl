// Shift amounts of 32 or more: HLSL uses only the low five bits of the amount
// (x << 33 == x << 1), as dxc does by masking it, where a bare SPIR-V shift is undefined.
StructuredBuffer<uint> Amount : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint s = Amount[id.x];
    uint u = 0x80000F0Fu;
    int n = -0x10000;
    Out[id.x * 3 + 0] = u << s;
    Out[id.x * 3 + 1] = u >> s;
    Out[id.x * 3 + 2] = (uint)(n >> (int)s);
}
