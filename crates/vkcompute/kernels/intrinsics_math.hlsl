// Math intrinsics: sin, cos, tan, exp, exp2, log, log2, pow, atan2, asin, acos (compared
// with tolerances), and clamp, saturate, lerp, smoothstep, step, sign, abs, min/max on
// vectors (compared almost exactly).
StructuredBuffer<float2> In : register(t1);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float x = In[id.x].x;
    float y = In[id.x].y;
    uint o = id.x * 20;
    Out[o + 0] = sin(x);
    Out[o + 1] = cos(x);
    Out[o + 2] = tan(x * 0.25);
    Out[o + 3] = exp(x);
    Out[o + 4] = exp2(y);
    Out[o + 5] = log(x);
    Out[o + 6] = log2(x);
    Out[o + 7] = pow(x, y);
    Out[o + 8] = atan2(y, x);
    Out[o + 9] = asin(clamp(y * 0.25, -1.0, 1.0));
    Out[o + 10] = acos(clamp(y * 0.25, -1.0, 1.0));
    Out[o + 11] = clamp(y, -1.0, 2.0);
    Out[o + 12] = saturate(y);
    Out[o + 13] = lerp(x, y, 0.25);
    Out[o + 14] = smoothstep(0.0, 4.0, x);
    Out[o + 15] = step(1.0, y);
    Out[o + 16] = sign(y);
    Out[o + 17] = abs(y);
    float2 m = max(float2(x, y), float2(y, 1.0));
    Out[o + 18] = m.x + m.y;
    Out[o + 19] = sqrt(x) * rcp(x + 1.0);
}
