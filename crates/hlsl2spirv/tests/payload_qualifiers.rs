//! `-enable-payload-qualifiers` / `-disable-payload-qualifiers` and the profile's default
//! for ray payload access qualifiers (`: read(...) : write(...)`), as dxc applies them.

mod common;

use common::run;

const SHADER: &str = "struct [raypayload] Payload { int a : read(caller) : write(caller, miss); };\n\
                      [shader(\"miss\")] void main(inout Payload payload) { payload.a = 0; }\n";

fn syntax_only(profile: &str, extra: &[&str]) -> (bool, String) {
    let mut args = vec!["-spirv", "-T", profile, "-fsyntax-only"];
    args.extend_from_slice(extra);
    args.push("-");
    let out = run(&args, SHADER);
    (out.status.success(), String::from_utf8_lossy(&out.stderr).to_string())
}

const IGNORED: &str = "payload access qualifiers ignored";

#[test]
fn payload_qualifiers_follow_the_profile_and_the_flags() {
    let (ok, err) = syntax_only("lib_6_7", &[]);
    assert!(ok && !err.contains(IGNORED), "{err}");
    let (ok, err) = syntax_only("lib_6_6", &[]);
    assert!(ok && err.contains(IGNORED), "{err}");
    let (ok, err) = syntax_only("lib_6_6", &["-enable-payload-qualifiers"]);
    assert!(ok && !err.contains(IGNORED), "{err}");
    let (ok, err) = syntax_only("lib_6_8", &["-disable-payload-qualifiers"]);
    assert!(ok && err.contains(IGNORED), "{err}");
    let (ok, err) = syntax_only("lib_6_5", &["-enable-payload-qualifiers"]);
    assert!(
        !ok && err
            .contains("Invalid target for payload access qualifiers. Only lib_6_6 and beyond are supported."),
        "{err}"
    );
}
