// Control flow: if/else chains, while with break, for with continue and break, nested
// loops, do-while, early return from inside a loop and from the entry point.
StructuredBuffer<int> In : register(t1);
RWStructuredBuffer<int> Out : register(u0);

int classify(int x) {
    if (x < 0)
        return -1;
    else if (x == 0)
        return 0;
    else if (x < 10)
        return 1;
    return 2;
}

int collatz_steps(int x) {
    int steps = 0;
    while (x != 1) {
        if (steps >= 100)
            break;
        if ((x & 1) != 0)
            x = 3 * x + 1;
        else
            x = x / 2;
        steps++;
    }
    return steps;
}

int loops(int n) {
    int acc = 0;
    for (int i = 0; i < n; ++i) {
        if (i % 3 == 0)
            continue;
        if (i > 20)
            break;
        for (int j = 0; j < i; j++) {
            if (j == 4)
                break;
            acc += j * i;
        }
    }
    do {
        acc += 100;
        n--;
    } while (n > 8);
    return acc;
}

int lowest_set_bit(int x) {
    for (int i = 0; i < 32; i++) {
        if (((x >> i) & 1) != 0)
            return i;
    }
    return -1;
}

[numthreads(16, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    if (id.x >= 14)
        return;
    int x = In[id.x];
    Out[id.x * 4 + 0] = classify(x);
    Out[id.x * 4 + 1] = collatz_steps(max(x, 1));
    Out[id.x * 4 + 2] = loops(x);
    Out[id.x * 4 + 3] = lowest_set_bit(x);
}
