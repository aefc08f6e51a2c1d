// Vectors and matrices held in locals: mul in its shapes (matrix * vector, vector * matrix,
// matrix * matrix, non-square), transpose, dot, cross, length, normalize, swizzles read and
// written, element access, component-wise comparisons with any/all.
StructuredBuffer<float4> V : register(t1);
RWStructuredBuffer<float4> Out : register(u0);

[numthreads(1, 1, 1)]
void main() {
    float4x4 m = float4x4(V[0], V[1], V[2], V[3]);
    float4 v = V[4];
    Out[0] = mul(m, v);
    Out[1] = mul(v, m);
    float4x4 p = mul(m, transpose(m));
    Out[2] = p[1];
    Out[3] = p[3];
    float3 a = V[5].xyz;
    float3 b = V[6].xyz;
    Out[4] = float4(cross(a, b), dot(a, b));
    Out[5] = float4(normalize(a), length(b));
    Out[6] = V[7].wzyx * 2 + V[7].xxyy;
    float4 s = V[7];
    s.zx = V[5].xy;
    Out[7] = s;
    bool4 gt = V[5] > V[6];
    Out[8] = (float4)gt * 3.0 + (float4)(V[5] == V[5]);
    Out[9] = float4(any(gt), all(gt), dot((float4)gt, 1.0), 0);
    float2x3 q = float2x3(V[0].xyz, V[1].xyz);
    float3 w = V[4].xyz;
    Out[10] = float4(mul(q, w), mul(V[4].xy, q).xy);
    Out[11] = float4(m[2][1], m._m03, m._m30, m[1].z);
}
