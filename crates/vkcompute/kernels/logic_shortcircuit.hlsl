// Logical operators on scalars short-circuit (HLSL 2021): the right operand of && and ||
// runs only when needed, observed through a side effect; ?: evaluates one side only;
// also the comma operator and a for loop with two counters.
StructuredBuffer<int> In : register(t1);
RWStructuredBuffer<int> Out : register(u0);

static int g_effects = 0;

bool note(bool value) {
    g_effects += 1;
    return value;
}

int side(int v) {
    g_effects += 100;
    return v;
}

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    int x = In[id.x];
    int r = 0;
    if (x > 2 && note(x < 6))
        r += 1;
    if (x < 0 || note(x % 2 == 0))
        r += 10;
    int t = (x > 4) ? side(x * 2) : -x;
    int a = 0;
    int b = 0;
    for (int i = 0, j = 10; i < j; i++, j--)
        a += i * j;
    b = (a += 1, a * 2);
    Out[id.x * 5 + 0] = r;
    Out[id.x * 5 + 1] = g_effects;
    Out[id.x * 5 + 2] = t;
    Out[id.x * 5 + 3] = a;
    Out[id.x * 5 + 4] = b;
}
