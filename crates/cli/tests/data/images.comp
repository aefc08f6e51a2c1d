#version 450
// Storage images of several formats and dimensionalities, read, written and queried,
// with reads and writes outside the image (robust access: zero, dropped).
layout(local_size_x = 4, local_size_y = 4) in;
layout(binding = 0, rgba8) uniform readonly image2D src;
layout(binding = 1, rgba8_snorm) uniform image2D snorm;
layout(binding = 2, rgba16f) uniform image2D half_img;
layout(binding = 3, r32ui) uniform uimage2D counts;
layout(binding = 4, rg32f) uniform image3D vol;
layout(binding = 5, r32i) uniform iimage2DArray layers;
layout(binding = 6, r32f) uniform image1D line;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec4 c = imageLoad(src, p + ivec2(-1, 1));
    imageStore(snorm, p, c * 2.0 - 1.0);
    imageStore(half_img, p, vec4(c.x * 70000.0, c.y / 3.0, -c.z, float(imageSize(src).x)));
    uint n = imageLoad(counts, p).x;
    imageStore(counts, p, uvec4(n * 3u + uint(p.x)));
    imageStore(counts, p + ivec2(100, 0), uvec4(7u));
    vec4 v = imageLoad(vol, ivec3(p, p.x & 1));
    imageStore(vol, ivec3(p, 2), vec4(v.x + v.y, v.x * v.y, 0.0, 0.0));
    ivec3 s = imageSize(layers);
    int l = imageLoad(layers, ivec3(p, 1)).x;
    imageStore(layers, ivec3(p, 0), ivec4(l - s.z * 1000 + s.y));
    if (p.y == 0) {
        imageStore(line, p.x, vec4(imageLoad(line, p.x + 8).x * 0.5 + float(imageSize(line))));
    }
}
