// Integer arithmetic with HLSL's semantics: signed division and modulo truncate toward zero
// (the remainder takes the dividend's sign), unsigned division and modulo, wrapping
// add/sub/mul, arithmetic right shift of signed values and logical shift of unsigned ones,
// left shift, bitwise operators, unary minus, abs/min/max on int and uint, and modulo by a
// constant power of two (drivers lower it apart from a variable divisor).
StructuredBuffer<int> A : register(t1);
StructuredBuffer<int> B : register(t2);
RWStructuredBuffer<int> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    int a = A[i];
    int b = B[i];
    uint ua = (uint)a;
    uint ub = (uint)b;
    uint o = i * 17;
    Out[o + 0] = a / b;
    Out[o + 1] = a % b;
    Out[o + 2] = (int)(ua / ub);
    Out[o + 3] = (int)(ua % ub);
    Out[o + 4] = a * b;
    Out[o + 5] = a + b;
    Out[o + 6] = a - b;
    Out[o + 7] = a >> (i + 1);
    Out[o + 8] = (int)(ua >> (i + 1));
    Out[o + 9] = a << (i + 1);
    Out[o + 10] = a & b;
    Out[o + 11] = a | b;
    Out[o + 12] = a ^ ~b;
    Out[o + 13] = -a;
    Out[o + 14] = abs(a) + min(a, b);
    Out[o + 15] = max(a, b) ^ (int)min(ua, ub);
    Out[o + 16] = a % 4 + (a / 4) * 100;
}
