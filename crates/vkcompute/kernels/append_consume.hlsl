// AppendStructuredBuffer and ConsumeStructuredBuffer with counter buffers at explicit
// bindings ([[vk::counter_binding]]): every thread consumes one value and appends ten times
// the even ones; both counters end where they must.
[[vk::binding(0)]] [[vk::counter_binding(1)]] AppendStructuredBuffer<uint> Evens;
[[vk::binding(2)]] [[vk::counter_binding(3)]] ConsumeStructuredBuffer<uint> Source;

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint v = Source.Consume();
    if (v % 2 == 0)
        Evens.Append(v * 10);
}
