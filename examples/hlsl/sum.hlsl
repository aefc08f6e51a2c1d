// A compute shader the set-up script compiles and validates:
//   hlsl2spirv -T cs_6_0 -E main examples/hlsl/sum.hlsl -Fo sum.spv
//
// Each group of 64 threads sums 64 consecutive values of `input` in groupshared memory
// (a tree reduction with barriers) and writes the group's sum to `partialSums`; one
// thread per group also adds it to the grand total with an atomic.

cbuffer Params : register(b0) {
    uint count; // how many values `input` holds
};

StructuredBuffer<float> input : register(t0);
RWStructuredBuffer<float> partialSums : register(u0);
RWByteAddressBuffer total : register(u1); // the grand total, rounded to an integer

groupshared float scratch[64];

[numthreads(64, 1, 1)]
void main(uint3 threadId : SV_DispatchThreadID, uint3 groupId : SV_GroupID, uint local : SV_GroupIndex) {
    scratch[local] = threadId.x < count ? input[threadId.x] : 0.0f;
    GroupMemoryBarrierWithGroupSync();

    for (uint stride = 32; stride > 0; stride >>= 1) {
        if (local < stride) {
            scratch[local] += scratch[local + stride];
        }
        GroupMemoryBarrierWithGroupSync();
    }

    if (local == 0) {
        float sum = scratch[0];
        partialSums[groupId.x] = sum;
        uint previous;
        total.InterlockedAdd(0, (uint)round(sum), previous);
    }
}
