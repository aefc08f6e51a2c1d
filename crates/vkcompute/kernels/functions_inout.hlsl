// Functions: out and inout parameters (copy-in/copy-out, including array elements as
// arguments), a by-value parameter whose change stays local, and a mutable static global.
StructuredBuffer<float> In : register(t1);
RWStructuredBuffer<int> Out : register(u0);

static int g_calls = 0;

void split(float x, out int whole, out float part) {
    whole = (int)x;
    part = x - (float)whole;
}

void accumulate(inout int total, int value) {
    total += value;
    value = 0;
}

int twice(inout int a) {
    a *= 2;
    return a + 1;
}

void swap(inout int a, inout int b) {
    int t = a;
    a = b;
    b = t;
}

int bump() {
    g_calls += 1;
    return g_calls;
}

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    int arr[4] = { 1, 2, 3, 4 };
    int whole;
    float part;
    split(In[id.x], whole, part);
    int total = 5;
    int value = 9;
    accumulate(total, whole);
    accumulate(total, arr[id.x % 4]);
    accumulate(total, value);
    int r = twice(arr[1]);
    swap(arr[0], arr[3]);
    int first = bump();
    int second = bump();
    uint o = id.x * 10;
    Out[o + 0] = whole;
    Out[o + 1] = asint(part);
    Out[o + 2] = total;
    Out[o + 3] = value;
    Out[o + 4] = r;
    Out[o + 5] = arr[0];
    Out[o + 6] = arr[1];
    Out[o + 7] = arr[3];
    Out[o + 8] = first * 10 + second;
    Out[o + 9] = g_calls;
}
