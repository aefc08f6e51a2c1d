// Float arithmetic: the four operators, % and fmod (truncating, sign of the dividend),
// frac/floor/ceil/trunc, sqrt and rsqrt, min/max, mad and negation.
StructuredBuffer<float> A : register(t1);
StructuredBuffer<float> B : register(t2);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float a = A[id.x];
    float b = B[id.x];
    uint o = id.x * 16;
    Out[o + 0] = a + b;
    Out[o + 1] = a - b;
    Out[o + 2] = a * b;
    Out[o + 3] = a / b;
    Out[o + 4] = a % b;
    Out[o + 5] = fmod(a, b);
    Out[o + 6] = frac(a);
    Out[o + 7] = floor(a);
    Out[o + 8] = ceil(a);
    Out[o + 9] = trunc(a);
    Out[o + 10] = sqrt(abs(a));
    Out[o + 11] = rsqrt(abs(a) + 1.0);
    Out[o + 12] = min(a, b);
    Out[o + 13] = max(a, b);
    Out[o + 14] = mad(a, b, 1.5);
    Out[o + 15] = -a;
}
