// switch: several labels on one case, default in the middle, a case after default,
// break, nested switch, and continue/break of an enclosing loop from inside a switch.
StructuredBuffer<int> In : register(t1);
RWStructuredBuffer<int> Out : register(u0);

int pick(int x) {
    int r = 0;
    switch (x) {
    case 0:
        r = 10;
        break;
    case 1:
    case 2:
        r = 20 + x;
        break;
    default:
        r = -1;
        break;
    case 5:
        switch (x * 2) {
        case 10:
            r = 55;
            break;
        default:
            r = 66;
            break;
        }
        break;
    case -3:
        r = 300;
        break;
    }
    return r;
}

int loop_with_switch(int n) {
    int r = 0;
    for (int i = 0; i < 8; i++) {
        switch ((i + n) % 4) {
        case 1:
            continue;
        case 2:
            r += 1000;
            break;
        case 3:
            if (i > 5)
                return r + 7;
            r += 10;
            break;
        default:
            r += 1;
            break;
        }
        r += 2;
    }
    return r;
}

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    int x = In[id.x];
    Out[id.x * 2 + 0] = pick(x);
    Out[id.x * 2 + 1] = loop_with_switch(x);
}
