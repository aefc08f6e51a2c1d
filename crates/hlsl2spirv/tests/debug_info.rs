//! dxc's non-rich debug output: `-Zi` and `-fspv-debug=file|source|line|tool` give
//! the file's `OpString`, `OpSource` with the source text (continued past one
//! instruction, one per included file), `OpLine`/`OpNoLine` where dxc places them,
//! and `OpModuleProcessed` with the command line.

mod common;

use common::{assert_valid_binary, disassemble, run};

const SHADER: &str = "static int a, b, c;

float4 helper(float2 uv, inout int n) {
  n += 1;
  return float4(uv, 0, 1);
}

float4 main(float2 uv : TEXCOORD0) : SV_Target {
  int d = a + b;
  if (d > 3) {
    c = d;
  } else {
    c = 2;
  }
  for (int i = 0; i < 4; ++i) {
    d += i;
  }
  while (d > 0) {
    --d;
  }
  do {
    d++;
  } while (d < 5);
  switch (d) {
  case 1:
    c = 1;
    break;
  default:
    c = 3;
  }
  return helper(uv, d);
}
";

/// The lines of `text` from the first one containing `from`, `count` of them.
fn lines_from<'a>(text: &'a str, from: &str, count: usize) -> Vec<&'a str> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let at = lines.iter().position(|l| l.contains(from)).unwrap_or_else(|| panic!("no `{from}` in:\n{text}"));
    lines[at..(at + count).min(lines.len())].to_vec()
}

#[test]
fn zi_names_the_file_embeds_the_source_and_places_lines_as_dxc() {
    let out = disassemble(&["-T", "ps_6_0", "-E", "main", "-Zi", "-fcgl"], SHADER);
    assert!(out.contains("%1 = OpString \"<stdin>\""), "{out}");
    assert!(out.contains("OpSource HLSL 600 %1 \"static int a, b, c;"), "{out}");
    // A function at its start, its parameters at their names, no line on the label.
    let header = lines_from(&out, "OpLine %1 3 1", 9);
    assert!(header[1].starts_with("%helper = OpFunction %v4float None"), "{header:?}");
    assert_eq!(header[2], "OpLine %1 3 22");
    assert!(header[3].ends_with("OpFunctionParameter %_ptr_Function_v2float"), "{header:?}");
    assert_eq!(header[4], "OpLine %1 3 36");
    assert!(header[5].ends_with("OpFunctionParameter %_ptr_Function_int"), "{header:?}");
    assert_eq!(header[6], "OpNoLine");
    assert!(header[7].ends_with("= OpLabel"), "{header:?}");
    assert_eq!(header[8], "OpLine %1 4 3");
    // Loads at their names, an operator at its token, the initialization at the
    // variable's name.
    let body = lines_from(&out, "OpLine %1 9 11", 8);
    assert_eq!(
        [body[0], body[2], body[4], body[6]],
        ["OpLine %1 9 11", "OpLine %1 9 15", "OpLine %1 9 13", "OpLine %1 9 7"]
    );
    assert!(body[5].contains("OpIAdd %int"), "{body:?}");
    assert!(body[7].starts_with("OpStore %d"), "{body:?}");
    // Variables have no line.
    let all: Vec<&str> = out.lines().map(str::trim).collect();
    for pair in all.windows(2) {
        assert!(!(pair[0].starts_with("OpLine") && pair[1].contains("OpVariable")), "{pair:?}");
    }
    // A merge and its branch share the merge's line (the `then` statement's start).
    assert_eq!(lines_from(&out, "OpLine %1 10 14", 3)[1], "OpSelectionMerge %if_merge None");
    // The tool is recorded for Vulkan 1.1 and later only.
    assert!(!out.contains("OpModuleProcessed"), "{out}");
    for args in [
        &["-T", "ps_6_0", "-E", "main", "-Zi", "-fcgl"][..],
        &["-T", "ps_6_0", "-E", "main", "-Zi"],
        &["-T", "ps_6_0", "-E", "main", "-Zi", "-O0"],
        &["-T", "ps_6_0", "-E", "main", "-Zi", "-fspv-target-env=vulkan1.1"],
    ] {
        assert_valid_binary(args, SHADER, &["--target-env", "vulkan1.1"]);
    }
}

#[test]
fn debug_categories_give_what_each_asks_for() {
    let base = ["-T", "ps_6_1", "-E", "main", "-fspv-target-env=vulkan1.1", "-fcgl"];
    let with = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        disassemble(&args, SHADER)
    };
    let file = with(&["-fspv-debug=file"]);
    assert!(file.contains("OpSource HLSL 610 %1\n"), "{file}");
    assert!(
        !file.contains("OpLine") && !file.contains("static int a") && !file.contains("OpModuleProcessed")
    );
    let source = with(&["-fspv-debug=source"]);
    assert!(source.contains("OpSource HLSL 610 %1 \"static int a"), "{source}");
    assert!(!source.contains("OpLine"), "{source}");
    let tool = with(&["-fspv-debug=tool"]);
    assert!(!tool.contains("OpString") && !tool.contains("OpLine"), "{tool}");
    assert!(tool.contains("OpModuleProcessed \"dxc-cl-option: - -T ps_6_1 -E main"), "{tool}");
    let line = with(&["-fspv-debug=line"]);
    assert!(line.contains("OpLine %1 9 13"), "{line}");
    assert!(!line.contains("OpModuleProcessed"), "{line}");
    // Without debug output: no strings, no lines, the source without its text.
    let plain = disassemble(&base, SHADER);
    assert!(!plain.contains("OpString") && !plain.contains("OpLine") && !plain.contains("OpNoLine"));
    assert!(plain.contains("OpSource HLSL 610\n"), "{plain}");
}

#[test]
fn a_long_source_continues_in_op_source_continued() {
    // Past the 65530 characters of the first instruction: one OpSourceContinued.
    let filler = "// padding padding padding padding padding padding padding padding\n".repeat(1100);
    let source = format!("{filler}float4 main() : SV_Target {{ return 1; }}\n");
    assert!(source.len() > 0xFFFA && source.len() < 0xFFFA + 0xFFFD);
    let out = disassemble(&["-T", "ps_6_0", "-E", "main", "-Zi", "-fcgl"], &source);
    assert_eq!(out.matches("OpSourceContinued").count(), 1, "one continuation");
    assert!(out.contains("return 1; }"), "the end of the text is kept");
    assert_valid_binary(&["-T", "ps_6_0", "-E", "main", "-Zi", "-fcgl"], &source, &[]);
}

#[test]
fn an_included_file_gets_its_string_and_source() {
    let dir = std::env::temp_dir().join(format!("hlsl2spirv-debug-include-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let main = dir.join("main.hlsl");
    std::fs::write(dir.join("inc.hlsli"), "#define COLOR float4(1, 0, 0, 1)\n").expect("writes");
    std::fs::write(&main, "#include \"inc.hlsli\"\nfloat4 main() : SV_Target {\n  return COLOR;\n}\n")
        .expect("writes");
    let main_path = main.to_string_lossy().into_owned();
    let out = run(&["-T", "ps_6_0", "-E", "main", "-Zi", &main_path], "");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let strings: Vec<&str> = text.lines().filter(|l| l.contains("OpString")).collect();
    assert_eq!(strings.len(), 2, "{text}");
    assert!(strings[0].ends_with("main.hlsl\"") && strings[1].ends_with("inc.hlsli\""), "{strings:?}");
    assert!(text.contains("OpSource HLSL 600 %1 \"#include"), "{text}");
    assert!(text.contains("OpSource HLSL 600 %2 \"#define COLOR"), "{text}");
    // Legalized (inlined): the entry point keeps the line of its declaration.
    assert_eq!(lines_from(&text, "OpLine %1 2 1", 2)[1].split_whitespace().next(), Some("%main"));
}
