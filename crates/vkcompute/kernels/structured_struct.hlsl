// Structured buffers of structs: a struct with float3/float/float4/uint/int/float2 members
// read, updated member by member and written whole; GetDimensions (count and stride).
struct Particle {
    float3 position;
    float mass;
    float4 velocity;
    uint id;
    int flags;
    float2 uv;
};

StructuredBuffer<Particle> In : register(t1);
RWStructuredBuffer<Particle> Out : register(u0);
RWStructuredBuffer<uint> Info : register(u2);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    Particle p = In[i];
    p.position += p.velocity.xyz * 0.5;
    p.mass *= 2.0;
    p.id = p.id * 10 + i;
    p.flags = -p.flags;
    p.uv = p.uv.yx;
    Out[i] = p;
    Out[i].velocity.w = In[7 - i].mass;
    if (i == 0) {
        uint count;
        uint stride;
        In.GetDimensions(count, stride);
        Info[0] = count;
        Info[1] = stride;
    }
}
