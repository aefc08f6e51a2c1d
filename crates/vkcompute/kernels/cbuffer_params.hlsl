// Constant buffers: a cbuffer with scalars, a float4 and a (default column_major) float4x4,
// and a ConstantBuffer<T> with an array (16-byte element stride) and a row_major matrix.
cbuffer Params : register(b1) {
    uint count;
    float scale;
    int offset;
    uint flags;
    float4 bias;
    float4x4 xform;
};

struct Extra {
    float4 weights[3];
    row_major float2x4 rows;
};
ConstantBuffer<Extra> extra : register(b2);

RWStructuredBuffer<float4> Out : register(u0);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    if (id.x >= count)
        return;
    float4 p = float4((float)id.x, 1.0, (float)offset, (float)flags);
    Out[id.x * 4 + 0] = mul(xform, p) * scale + bias;
    Out[id.x * 4 + 1] = xform[id.x];
    Out[id.x * 4 + 2] = extra.weights[id.x % 3] + extra.rows[id.x % 2];
    Out[id.x * 4 + 3] = float4(extra.rows[0][id.x], extra.rows[1][3 - id.x], xform[0][id.x], xform[id.x][3]);
}
