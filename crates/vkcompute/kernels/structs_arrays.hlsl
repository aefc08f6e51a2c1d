// Structs and arrays in locals: a struct returned by value, arrays of structs, struct copies
// with value semantics, arrays inside structs, a static const table, dynamic indexing of
// local arrays for reading and writing.
StructuredBuffer<int> In : register(t1);
RWStructuredBuffer<int> Out : register(u0);

struct Item {
    int key;
    float weight;
    int tags[3];
};

static const int PRIMES[8] = { 2, 3, 5, 7, 11, 13, 17, 19 };

Item make(int k) {
    Item it;
    it.key = k;
    it.weight = (float)k * 0.5;
    for (int i = 0; i < 3; i++)
        it.tags[i] = k + i;
    return it;
}

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    int base = In[id.x];
    Item items[4];
    for (int j = 0; j < 4; j++)
        items[j] = make(base + j * 10);
    Item copy = items[id.x % 4];
    copy.key = -1;
    copy.tags[1] = -2;
    int sum = 0;
    for (int k = 0; k < 4; k++)
        sum += items[k].key * PRIMES[(id.x + k) % 8] + items[k].tags[k % 3];
    int hist[8];
    for (int h = 0; h < 8; h++)
        hist[h] = h;
    hist[(id.x * 3) % 8] += 50;
    hist[(base & 7)] *= 2;
    uint o = id.x * 8;
    Out[o + 0] = sum;
    Out[o + 1] = items[id.x % 4].key;
    Out[o + 2] = items[id.x % 4].tags[1];
    Out[o + 3] = copy.key + copy.tags[1] * 1000;
    Out[o + 4] = asint(items[2].weight);
    Out[o + 5] = hist[(id.x * 3) % 8];
    Out[o + 6] = hist[(base & 7)];
    Out[o + 7] = hist[id.x];
}
