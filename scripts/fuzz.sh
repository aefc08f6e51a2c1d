#!/usr/bin/env bash
# Runs one cargo-fuzz target for a while:  scripts/fuzz.sh TARGET SECONDS [LIBFUZZER_OPTION...]
#
# Extra options go to libFuzzer, e.g. `-fork=1 -ignore_crashes=1` to keep going after
# a crash (each one still lands in fuzz/artifacts/TARGET/).
#
# TARGET is read, assemble, dis_roundtrip, mlir_text, serialize_text, hlsl_front, hlsl_options, codegen_types, hlsl_codegen or deserialize (see fuzz/fuzz_targets/). The corpus
# directory fuzz/corpus/TARGET (gitignored) is seeded first from the SPIR-V corpus
# (../shared/corpus/spv, or $SPIRVKIT_SPV_CORPUS): the .spv files for read and
# dis_roundtrip; for assemble, the disassembly (target/release/spirvkit dis) of a
# few dozen of them; for hlsl_front, the .hlsl/.hlsli files of the DXC SPIR-V tests
# (../shared/corpus/dxc-codegen-spirv, or $SPIRVKIT_HLSL_CORPUS); for deserialize, a few
# small modules assembled by spirv-as from the texts below plus the corpus's .spv
# files under 64 KiB; for hlsl_codegen, the DXC tests as they are (the target reads
# its arguments from their RUN lines) and the engine's preprocessed shaders with a
# RUN line of their job's arguments; it validates every binary with spirv-val
# (SPIRV_VAL, else the project's .venv; SPIRVKIT_FUZZ_VALIDATE_EVERY=N for one in N).
# Crashes land in
# fuzz/artifacts/TARGET/.
#
# Needs cargo-fuzz (installed here if missing) and a nightly compiler: the nightly
# toolchain when rustup has one, else the stable one with RUSTC_BOOTSTRAP=1.
# FUZZ_SANITIZER picks cargo-fuzz's sanitizer (default none: the fuzzed crates
# forbid unsafe code, but for spirvkit-threads' three CPU-mask calls, which take no
# input, and AddressSanitizer would about halve the exec rate).
set -euo pipefail

usage="usage: scripts/fuzz.sh TARGET SECONDS   (TARGET: read | assemble | dis_roundtrip | mlir_text | serialize_text | hlsl_front | hlsl_options | codegen_types | hlsl_codegen | deserialize)"
target="${1:?$usage}"
seconds="${2:?$usage}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
spv_corpus="${SPIRVKIT_SPV_CORPUS:-$root/../shared/corpus/spv}"
seeds="$root/fuzz/corpus/$target"

case "$target" in
    read | dis_roundtrip | assemble | mlir_text | serialize_text | hlsl_front | hlsl_options | codegen_types | hlsl_codegen | deserialize) ;;
    *) echo "$usage" >&2; exit 2 ;;
esac
case "$seconds" in
    '' | *[!0-9]*) echo "$usage" >&2; exit 2 ;;
esac

cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
if [ -d "$cargo_bin" ]; then
    export PATH="$cargo_bin:$PATH"
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: installing cargo-fuzz" >&2
    cargo install --locked cargo-fuzz
fi
toolchain=()
if rustup run nightly rustc --version >/dev/null 2>&1; then
    toolchain=(+nightly)
else
    export RUSTC_BOOTSTRAP=1
fi

mkdir -p "$seeds"
hlsl_corpus="${SPIRVKIT_HLSL_CORPUS:-$root/../shared/corpus/dxc-codegen-spirv}"
wicked_corpus="${SPIRVKIT_WICKED_CORPUS:-$root/../shared/corpus/wicked-engine}"
target_dir="$(cd "$root" && cargo metadata --format-version 1 --no-deps --offline 2>/dev/null |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])' 2>/dev/null || echo "$root/target")"
# Seeds for the deserializer: small modules of our own covering types, constants,
# decorations, structured selections, loops, switches, phis, calls and ext insts.
seed_deserialize() {
    local name
    local text
    local -A seeds
    seeds[compute_loop]='OpCapability Shader
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid
OpExecutionMode %main LocalSize 8 1 1
OpName %main "main"
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %Buf BufferBlock
OpMemberDecorate %Buf 0 Offset 0
OpDecorate %rta ArrayStride 4
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%bool = OpTypeBool
%v3uint = OpTypeVector %uint 3
%pin = OpTypePointer Input %v3uint
%gid = OpVariable %pin Input
%rta = OpTypeRuntimeArray %float
%Buf = OpTypeStruct %rta
%pbuf = OpTypePointer Uniform %Buf
%buf = OpVariable %pbuf Uniform
%pf = OpTypePointer Uniform %float
%u0 = OpConstant %uint 0
%u1 = OpConstant %uint 1
%u4 = OpConstant %uint 4
%main = OpFunction %void None %fn
%entry = OpLabel
%id3 = OpLoad %v3uint %gid
%id = OpCompositeExtract %uint %id3 0
OpBranch %header
%header = OpLabel
%i = OpPhi %uint %u0 %entry %next %continue
%cond = OpULessThan %bool %i %u4
OpLoopMerge %exit %continue None
OpBranchConditional %cond %body %exit
%body = OpLabel
%p = OpAccessChain %pf %buf %u0 %id
%v = OpLoad %float %p
%s = OpExtInst %float %glsl Sqrt %v
%odd = OpBitwiseAnd %uint %i %u1
%isodd = OpIEqual %bool %odd %u1
OpSelectionMerge %join None
OpBranchConditional %isodd %then %join
%then = OpLabel
OpStore %p %s
OpBranch %join
%join = OpLabel
OpBranch %continue
%continue = OpLabel
%next = OpIAdd %uint %i %u1
OpBranch %header
%exit = OpLabel
OpReturn
OpFunctionEnd
'
    seeds[fragment_sampling]='OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %uv %color
OpExecutionMode %main OriginUpperLeft
OpDecorate %uv Location 0
OpDecorate %color Location 0
OpDecorate %tex DescriptorSet 0
OpDecorate %tex Binding 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v2 = OpTypeVector %float 2
%v4 = OpTypeVector %float 4
%img = OpTypeImage %float 2D 0 0 0 1 Unknown
%simg = OpTypeSampledImage %img
%ptex = OpTypePointer UniformConstant %simg
%tex = OpVariable %ptex UniformConstant
%pin = OpTypePointer Input %v2
%uv = OpVariable %pin Input
%pout = OpTypePointer Output %v4
%color = OpVariable %pout Output
%half = OpConstant %float 0.5
%halves = OpConstantComposite %v4 %half %half %half %half
%main = OpFunction %void None %fn
%entry = OpLabel
%t = OpLoad %simg %tex
%c = OpLoad %v2 %uv
%s = OpImageSampleImplicitLod %v4 %t %c
%m = OpFMul %v4 %s %halves
OpStore %color %m
OpReturn
OpFunctionEnd
'
    seeds[switch_call_spec]='OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Vertex %main "main" %out
OpDecorate %out Location 0
OpDecorate %spec SpecId 3
%void = OpTypeVoid
%fn = OpTypeFunction %void
%int = OpTypeInt 32 1
%fii = OpTypeFunction %int %int
%pout = OpTypePointer Output %int
%out = OpVariable %pout Output
%pfn = OpTypePointer Function %int
%i0 = OpConstant %int 0
%i1 = OpConstant %int 1
%i7 = OpConstant %int 7
%spec = OpSpecConstant %int 2
%arr = OpTypeArray %int %i7
%null = OpConstantNull %arr
%pick = OpFunction %int None %fii
%x = OpFunctionParameter %int
%pe = OpLabel
%var = OpVariable %pfn Function %i0
OpSelectionMerge %sm None
OpSwitch %x %default 1 %one 2 %two
%one = OpLabel
OpStore %var %i1
OpBranch %sm
%two = OpLabel
OpStore %var %spec
OpBranch %sm
%default = OpLabel
OpBranch %sm
%sm = OpLabel
%r = OpLoad %int %var
OpReturnValue %r
OpFunctionEnd
%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpFunctionCall %int %pick %i7
%w = OpCompositeExtract %int %null 3
%sum = OpIAdd %int %v %w
OpStore %out %sum
OpReturn
OpFunctionEnd
'
    seeds[empty_kernel]='OpCapability Addresses
OpCapability Kernel
OpCapability Int64
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %k "k"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%k = OpFunction %void None %fn
%l = OpLabel
OpReturn
OpFunctionEnd
'
    if ! command -v spirv-as >/dev/null 2>&1; then
        echo "fuzz.sh: spirv-as not found; no deserialize seeds" >&2
        return
    fi
    local tmp
    tmp="$(mktemp)"
    for name in "${!seeds[@]}"; do
        printf '%s' "${seeds[$name]}" >"$tmp"
        spirv-as --target-env spv1.0 "$tmp" -o "$seeds_dir/$name.spv" ||
            echo "fuzz.sh: spirv-as rejected seed $name" >&2
    done
    rm -f "$tmp"
}

if [ "$target" = deserialize ]; then
    seeds_dir="$seeds" seed_deserialize
    # Real shaders too (the small ones: inputs are capped at 64 KiB): the control
    # flow compilers emit is what the structurizer must survive.
    if [ -d "$spv_corpus" ]; then
        find "$spv_corpus" -name '*.spv' -size -64k | while IFS= read -r file; do
            name="${file#"$spv_corpus"/}"
            out="$seeds/${name//\//__}"
            [ -e "$out" ] || cp "$file" "$out"
        done
    fi
elif [ "$target" = hlsl_front ] || [ "$target" = codegen_types ] || [ "$target" = hlsl_codegen ]; then
    if [ -d "$hlsl_corpus" ]; then
        find "$hlsl_corpus" \( -name '*.hlsl' -o -name '*.hlsli' \) | while IFS= read -r file; do
            name="${file#"$hlsl_corpus"/}"
            out="$seeds/${name//\//__}"
            [ -e "$out" ] || cp "$file" "$out"
        done
    else
        echo "fuzz.sh: no HLSL corpus at $hlsl_corpus; starting from an empty corpus" >&2
    fi
    # A real engine's shaders, preprocessed (the fuzz target resolves no includes):
    # one job in eight of the manifest, with the job's own arguments.
    if [ -f "$wicked_corpus/manifest.json" ]; then
        (cd "$root" && cargo build --release --quiet --package hlsl2spirv)
        (cd "$wicked_corpus" && python3 - "$target_dir/release/hlsl2spirv" "$seeds" "$target" <<'PY'
import json, os, subprocess, sys
binary, seeds = sys.argv[1], sys.argv[2]
target = sys.argv[3]
for job in json.load(open("manifest.json"))[::8]:
    out = os.path.join(seeds, "wicked__" + job["id"] + ".hlsl")
    if not os.path.exists(out):
        subprocess.run([binary, *job["args"], "-P", "-Fi", out, job["file"]], capture_output=True)
        if target == "hlsl_codegen" and os.path.exists(out):
            # hlsl_codegen reads its arguments from a DXC-style RUN line: the job's own
            # (its defines are already applied).
            args, rest = [], iter(job["args"])
            for arg in rest:
                if arg in ("-D", "-I"):
                    next(rest, None)
                else:
                    args.append(arg)
            text = open(out, errors="replace").read()
            with open(out, "w") as f:
                f.write("// RUN: %dxc " + " ".join(args) + " %s\n" + text)
PY
        )
    fi
elif [ "$target" = hlsl_options ]; then
    # Real command lines, NUL-separated: the engine's (manifest.json) and DXC's tests'.
    python3 - "$wicked_corpus/manifest.json" "$hlsl_corpus" "$seeds" <<'PY'
import json, os, re, shlex, sys
manifest, tests, seeds = sys.argv[1:4]
lines = []
if os.path.isfile(manifest):
    lines += [job["args"] + [job["file"]] for job in json.load(open(manifest))]
for folder, _, files in os.walk(tests) if os.path.isdir(tests) else []:
    for name in files:
        if name.endswith(".hlsl"):
            for run in re.findall(r"RUN: (?:not )?%dxc (.*)", open(os.path.join(folder, name), errors="replace").read()):
                try:
                    lines.append([a for a in shlex.split(run.split("|")[0]) if a not in ("%s", "%t")] + ["f.hlsl"])
                except ValueError:
                    pass
for i, args in enumerate(lines):
    with open(os.path.join(seeds, f"args-{i:04}"), "wb") as out:
        out.write(b"\0".join(a.encode() for a in args))
PY
elif [ -d "$spv_corpus" ]; then
    # Seed names are flattened corpus paths, so re-seeding does not duplicate.
    if [ "$target" = mlir_text ] || [ "$target" = serialize_text ]; then
        mlir_corpus="${SPIRVKIT_MLIR_CORPUS:-$root/../shared/corpus/mlir-spirv}"
        # serialize_text starts from the serialization tests (Target/SPIRV).
        mlir_tests="$mlir_corpus/test"
        [ "$target" = serialize_text ] && mlir_tests="$mlir_corpus/test/Target/SPIRV"
        if [ -d "$mlir_tests" ]; then
            find "$mlir_tests" -name '*.mlir' | while IFS= read -r file; do
                name="${file#"$mlir_corpus"/}"
                out="$seeds/${name//\//__}"
                [ -e "$out" ] || cp "$file" "$out"
            done
        fi
    elif [ "$target" = assemble ]; then
        (cd "$root" && cargo build --release --quiet --package spirvkit-cli)
        find "$spv_corpus" -name '*.spv' -size -64k | LC_ALL=C sort | awk 'NR % 12 == 1' | head -n 48 |
            while IFS= read -r file; do
                name="${file#"$spv_corpus"/}"
                out="$seeds/${name//\//__}asm"
                [ -e "$out" ] || "$target_dir/release/spirvkit" dis "$file" -o "$out" 2>/dev/null || rm -f "$out"
            done
    else
        find "$spv_corpus" -name '*.spv' | while IFS= read -r file; do
            name="${file#"$spv_corpus"/}"
            out="$seeds/${name//\//__}"
            [ -e "$out" ] || cp "$file" "$out"
        done
    fi
else
    echo "fuzz.sh: no SPIR-V corpus at $spv_corpus; starting from an empty corpus" >&2
fi
echo "fuzz.sh: $(find "$seeds" -type f | wc -l) inputs in $seeds" >&2

cd "$root"
exec cargo "${toolchain[@]}" fuzz run --sanitizer "${FUZZ_SANITIZER:-none}" "$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 "${@:3}"
