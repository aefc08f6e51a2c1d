// Matrices read from a structured buffer: the default column_major packing stores each
// column contiguously, row_major each row, and m[row][col] indexes the same element in both.
struct Mats {
    float4x4 c;
    row_major float4x4 r;
};
StructuredBuffer<Mats> M : register(t1);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(4, 4, 1)]
void main(uint3 t : SV_GroupThreadID) {
    Out[t.y * 4 + t.x] = M[0].c[t.y][t.x];
    Out[16 + t.y * 4 + t.x] = M[0].r[t.y][t.x];
    Out[32 + t.y * 4 + t.x] = mul(M[0].c, M[0].r)[t.y][t.x];
}
