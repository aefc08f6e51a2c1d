// Texture2D.Load (OpImageFetch with Lod) at level 1 and 0, GetDimensions of level 1 with
// the level count, into a RWBuffer.
Texture2D<float4> tex : register(t0);
RWBuffer<float4> o : register(u1);

[numthreads(4, 2, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint w, h, n;
    tex.GetDimensions(1, w, h, n);
    o[id.y * 4 + id.x] = tex.Load(int3(id.xy, 1)) + tex[id.xy] * 1000 + float4(w, h, n, 0) * 100000;
}
