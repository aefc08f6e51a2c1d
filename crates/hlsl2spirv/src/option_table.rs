//! dxc's option table (the facts of its `HLSLOptions.td`): every option dxc knows,
//! how it takes its value, which prefixes it answers to and whether dxc refuses it
//! together with `-spirv`. [`parse_one`] splits a command line the way LLVM's
//! option parser does for dxc: the longest option name that accepts the argument
//! wins, flags must match whole, `/` spellings that match nothing are input paths.

/// How an option takes its value (LLVM's option kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `-X` alone.
    Flag,
    /// `-Xvalue` (the value may be empty).
    Joined,
    /// `-X value`.
    Separate,
    /// `-Xvalue` or `-X value`.
    JoinedOrSeparate,
    /// `-Xa,b,c`: a comma-separated list.
    CommaJoined,
    /// `-X v1 .. vN`: the next N arguments, whatever they look like.
    MultiArg(usize),
}

/// The prefixes an option answers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefixes {
    /// `-` only.
    Dash,
    /// `-` and `/` (fxc's spellings).
    DashSlash,
    /// `--` only.
    DoubleDash,
    /// `-`, `--` and `/`.
    All,
}

impl Prefixes {
    fn allows(self, prefix: &str) -> bool {
        matches!(
            (self, prefix),
            (Prefixes::Dash, "-")
                | (Prefixes::DashSlash, "-" | "/")
                | (Prefixes::DoubleDash, "--")
                | (Prefixes::All, "-" | "--" | "/")
        )
    }
}

/// Whether dxc compiles with the option and `-spirv` together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WithSpirv {
    Allowed,
    /// DXIL-only: dxc stops with "-X is not supported with -spirv".
    Refused,
}

/// One row of the table.
#[derive(Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The name without its prefix (`T`, `fspv-target-env=`, `Oconfig=`).
    pub name: &'static str,
    pub form: Form,
    pub prefixes: Prefixes,
    pub with_spirv: WithSpirv,
}

const fn spec(name: &'static str, form: Form, prefixes: Prefixes) -> OptionSpec {
    OptionSpec { name, form, prefixes, with_spirv: WithSpirv::Allowed }
}

const fn dxil_only(name: &'static str, form: Form, prefixes: Prefixes) -> OptionSpec {
    OptionSpec { name, form, prefixes, with_spirv: WithSpirv::Refused }
}

use Form::{CommaJoined, Flag, Joined, JoinedOrSeparate, MultiArg, Separate};
use Prefixes::{All, Dash, DashSlash, DoubleDash};

/// dxc's options. Order does not matter: the parser picks the longest name that
/// accepts an argument.
pub const OPTIONS: &[OptionSpec] = &[
    // Preprocessor, language and diagnostics.
    spec("D", JoinedOrSeparate, DashSlash),
    spec("I", JoinedOrSeparate, DashSlash),
    spec("H", Flag, Dash),
    spec("Vi", Flag, DashSlash),
    spec("HV", Separate, DashSlash),
    spec("T", JoinedOrSeparate, DashSlash),
    spec("E", JoinedOrSeparate, DashSlash),
    spec("P", Flag, DashSlash),
    spec("Fi", JoinedOrSeparate, DashSlash),
    spec("enable-16bit-types", Flag, DashSlash),
    spec("ignore-line-directives", Flag, DashSlash),
    spec("flegacy-macro-expansion", Flag, DashSlash),
    spec("flegacy-resource-reservation", Flag, DashSlash),
    spec("no-warnings", Flag, DashSlash),
    spec("Wall", Flag, Dash),
    spec("Wdeprecated", Flag, Dash),
    spec("W", Joined, Dash),
    spec("WX", Flag, DashSlash),
    spec("Wno-vk-ignored-features", Joined, Dash),
    spec("Wno-vk-emulated-features", Joined, Dash),
    spec("all-warnings", Flag, DoubleDash),
    spec("Qunused-arguments", Flag, Dash),
    spec("d", Flag, Dash),
    spec("d", Joined, Dash),
    spec("fdiagnostics-color", Flag, Dash),
    spec("fdiagnostics-color=", Joined, Dash),
    spec("fdiagnostics-show-option", Flag, Dash),
    spec("fno-diagnostics-show-option", Flag, Dash),
    spec("fdiagnostics-show-category=", Joined, Dash),
    spec("fdiagnostics-format=", Joined, Dash),
    spec("ferror-limit=", Joined, Dash),
    spec("fconstexpr-depth=", Joined, Dash),
    spec("fconstexpr-steps=", Joined, Dash),
    spec("fconstexpr-backtrace-limit=", Joined, Dash),
    spec("verify", Flag, DashSlash),
    // Not dxc's: the front-end-only mode this driver offers (clang's spelling).
    spec("fsyntax-only", Flag, Dash),
    // Floating point.
    spec("funsafe-math-optimizations", Flag, Dash),
    spec("fno-unsafe-math-optimizations", Flag, Dash),
    spec("fassociative-math", Flag, Dash),
    spec("fno-associative-math", Flag, Dash),
    spec("fno-reciprocal-math", Flag, Dash),
    spec("ffinite-math-only", Flag, Dash),
    spec("fno-finite-math-only", Flag, Dash),
    spec("fsigned-zeros", Flag, Dash),
    spec("fhonor-nans", Flag, Dash),
    spec("fno-honor-nans", Flag, Dash),
    spec("fhonor-infinities", Flag, Dash),
    spec("fno-honor-infinities", Flag, Dash),
    spec("flimited-precision=", Joined, Dash),
    spec("denorm", JoinedOrSeparate, DashSlash),
    spec("Gis", Flag, DashSlash),
    // Optimization.
    spec("O0", Flag, DashSlash),
    spec("O1", Flag, DashSlash),
    spec("O2", Flag, DashSlash),
    spec("O3", Flag, DashSlash),
    spec("Od", Flag, DashSlash),
    spec("Odump", Flag, DashSlash),
    spec("memdep-block-scan-limit", Separate, DashSlash),
    spec("opt-disable", Separate, DashSlash),
    spec("opt-enable", Separate, DashSlash),
    spec("opt-select", MultiArg(2), DashSlash),
    spec("Gfa", Flag, DashSlash),
    spec("Gfp", Flag, DashSlash),
    spec("Ges", Flag, DashSlash),
    dxil_only("Gec", Flag, DashSlash),
    // Help and driver.
    spec("help", Flag, All),
    spec("?", Flag, DashSlash),
    spec("help-hidden", Flag, DoubleDash),
    spec("version", Flag, DoubleDash),
    spec("nologo", Flag, DashSlash),
    spec("external", Separate, DashSlash),
    spec("external-fn", Separate, DashSlash),
    spec("encoding", Separate, DashSlash),
    spec("ast-dump", Flag, DashSlash),
    spec("ast-dump-implicit", Flag, DashSlash),
    spec("fcgl", Flag, DashSlash),
    // spirvkit's own: print the IR before serialization (MLIR syntax).
    spec("emit-mlir", Flag, Dash),
    spec("preserve-intermediate-values", Flag, DashSlash),
    spec("dumpbin", Flag, DashSlash),
    spec("link", Flag, DashSlash),
    spec("recompile", Flag, DashSlash),
    spec("M", Flag, DashSlash),
    spec("MD", Flag, DashSlash),
    spec("MF", Separate, DashSlash),
    // Code generation (DXIL-oriented; accepted and ignored for SPIR-V).
    spec("structurize-returns", Flag, DashSlash),
    spec("no-legacy-cbuf-layout", Flag, DashSlash),
    spec("not_use_legacy_cbuf_load", Flag, DashSlash),
    spec("pack-prefix-stable", Flag, DashSlash),
    spec("pack_prefix_stable", Flag, DashSlash),
    spec("pack-optimized", Flag, DashSlash),
    spec("pack_optimized", Flag, DashSlash),
    spec("rootsig-define", Separate, DashSlash),
    spec("auto-binding-space", Separate, DashSlash),
    spec("exports", Separate, DashSlash),
    spec("export-shaders-only", Flag, DashSlash),
    spec("default-linkage", Separate, DashSlash),
    spec("precise-output", Separate, DashSlash),
    spec("validator-version", Separate, DashSlash),
    spec("select-validator", Separate, DashSlash),
    spec("print-before-all", Flag, DashSlash),
    spec("print-after-all", Flag, DashSlash),
    spec("print-before", Separate, DashSlash),
    spec("print-after", Separate, DashSlash),
    spec("skip-serialization", Flag, DashSlash),
    spec("res-may-alias", Flag, DashSlash),
    spec("res_may_alias", Flag, DashSlash),
    spec("all-resources-bound", Flag, DashSlash),
    spec("all_resources_bound", Flag, DashSlash),
    spec("ignore-opt-semdefs", Flag, DashSlash),
    spec("ignore-semdef", Separate, DashSlash),
    spec("override-semdef", Separate, DashSlash),
    spec("import-binding-table", Separate, DashSlash),
    spec("binding-table-define", Separate, DashSlash),
    spec("force-zero-store-lifetimes", Flag, DashSlash),
    spec("enable-lifetime-markers", Flag, DashSlash),
    spec("disable-lifetime-markers", Flag, DashSlash),
    spec("enable-payload-qualifiers", Flag, DashSlash),
    spec("disable-payload-qualifiers", Flag, DashSlash),
    spec("disable-exception-handling", Flag, DashSlash),
    spec("fdisable-loc-tracking", Flag, DashSlash),
    spec("fnew-inlining-behavior", Flag, DashSlash),
    spec("ftime-report", Flag, Dash),
    spec("ftime-trace", Flag, Dash),
    spec("ftime-trace=", Joined, Dash),
    spec("ftime-trace-granularity=", Joined, Dash),
    spec("metal", Flag, DashSlash),
    spec("Vd", Flag, DashSlash),
    spec("Zi", Flag, DashSlash),
    spec("Zs", Flag, DashSlash),
    spec("Zss", Flag, DashSlash),
    spec("Zsb", Flag, DashSlash),
    spec("Zpr", Flag, DashSlash),
    spec("Zpc", Flag, DashSlash),
    // Outputs.
    spec("Fo", JoinedOrSeparate, DashSlash),
    spec("Fc", JoinedOrSeparate, DashSlash),
    spec("Fh", JoinedOrSeparate, DashSlash),
    spec("Fe", JoinedOrSeparate, DashSlash),
    dxil_only("Fd", JoinedOrSeparate, DashSlash),
    dxil_only("Fre", Separate, DashSlash),
    spec("Frs", Separate, DashSlash),
    spec("Fsh", Separate, DashSlash),
    spec("Vn", JoinedOrSeparate, DashSlash),
    spec("Cc", Flag, DashSlash),
    spec("Ni", Flag, DashSlash),
    spec("No", Flag, DashSlash),
    spec("Lx", Flag, DashSlash),
    // Container parts.
    dxil_only("Qstrip_reflect", Flag, DashSlash),
    spec("Qstrip_debug", Flag, DashSlash),
    spec("Qembed_debug", Flag, DashSlash),
    spec("Qsource_in_debug_module", Flag, DashSlash),
    spec("Qpdb_in_private", Flag, DashSlash),
    spec("Qstrip_priv", Flag, DashSlash),
    spec("Qstrip_rootsignature", Flag, DashSlash),
    spec("Qkeep_reflect_in_dxil", Flag, DashSlash),
    spec("Qstrip_reflect_from_dxil", Flag, DashSlash),
    spec("setrootsignature", JoinedOrSeparate, DashSlash),
    spec("extractrootsignature", Flag, DashSlash),
    spec("verifyrootsignature", JoinedOrSeparate, DashSlash),
    spec("force-rootsig-ver", JoinedOrSeparate, DashSlash),
    spec("force_rootsig_ver", JoinedOrSeparate, DashSlash),
    spec("setprivate", JoinedOrSeparate, DashSlash),
    spec("getprivate", JoinedOrSeparate, DashSlash),
    // SPIR-V code generation.
    spec("spirv", Flag, Dash),
    spec("fvk-stage-io-order=", Joined, Dash),
    spec("fvk-b-shift", MultiArg(2), Dash),
    spec("fvk-t-shift", MultiArg(2), Dash),
    spec("fvk-s-shift", MultiArg(2), Dash),
    spec("fvk-u-shift", MultiArg(2), Dash),
    spec("fvk-bind-globals", MultiArg(2), Dash),
    spec("fvk-bind-register", MultiArg(4), Dash),
    spec("vkbr", MultiArg(4), Dash),
    spec("fvk-bind-resource-heap", MultiArg(2), Dash),
    spec("fvk-bind-sampler-heap", MultiArg(2), Dash),
    spec("fvk-bind-counter-heap", MultiArg(2), Dash),
    spec("fvk-invert-y", Flag, Dash),
    spec("fvk-use-dx-position-w", Flag, Dash),
    spec("fvk-support-nonzero-base-instance", Flag, Dash),
    spec("fvk-support-nonzero-base-vertex", Flag, Dash),
    spec("fvk-use-gl-layout", Flag, Dash),
    spec("fvk-use-dx-layout", Flag, Dash),
    spec("fvk-use-scalar-layout", Flag, Dash),
    spec("fvk-auto-shift-bindings", Flag, Dash),
    spec("fvk-allow-rwstructuredbuffer-arrays", Flag, Dash),
    spec("fspv-reflect", Flag, Dash),
    spec("fspv-debug=", Joined, Dash),
    spec("fspv-extension=", Joined, Dash),
    spec("fspv-target-env=", Joined, Dash),
    spec("fspv-entrypoint-name=", Joined, Dash),
    spec("fspv-max-id", Separate, Dash),
    spec("fspv-flatten-resource-arrays", Flag, Dash),
    spec("fspv-reduce-load-size", Flag, Dash),
    spec("fspv-fix-func-call-arguments", Flag, Dash),
    spec("fspv-print-all", Flag, Dash),
    spec("fspv-preserve-bindings", Flag, Dash),
    spec("fspv-preserve-interface", Flag, Dash),
    spec("fspv-enable-maximal-reconvergence", Flag, Dash),
    spec("fspv-use-vulkan-memory-model", Flag, Dash),
    spec("fspv-use-legacy-buffer-matrix-order", Flag, Dash),
    spec("fspv-use-unknown-image-format", Flag, Dash),
    spec("fspv-use-descriptor-heap", Flag, Dash),
    spec("Oconfig=", CommaJoined, Dash),
];

/// The option list `-help` prints, one spelling per line with its value form.
pub fn usage() -> String {
    let mut text = String::from("OVERVIEW: HLSL to SPIR-V compiler with dxc's command line\n\n");
    text.push_str("USAGE: hlsl2spirv [options] <input>\n\nOPTIONS:\n");
    for spec in OPTIONS {
        let prefix = if spec.prefixes == Prefixes::DoubleDash { "--" } else { "-" };
        let values = match spec.form {
            Form::Flag => String::new(),
            Form::Joined => "<value>".to_string(),
            Form::CommaJoined => "<value>,...".to_string(),
            Form::Separate | Form::JoinedOrSeparate => " <value>".to_string(),
            Form::MultiArg(count) => " <value>".repeat(count),
        };
        let note = if spec.with_spirv == WithSpirv::Refused { "  (not with -spirv)" } else { "" };
        text.push_str(&format!("  {prefix}{}{values}{note}\n", spec.name));
    }
    text
}

/// One parsed argument.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed {
    /// An input file (or `-` for standard input).
    Input(String),
    /// A known option with the spelling it was given and its values.
    Option { spec: &'static OptionSpec, spelling: String, values: Vec<String> },
    /// An option dxc does not know.
    Unknown(String),
    /// A known option whose values ran past the end of the command line.
    Missing(String),
}

/// Parses the argument at `*index`, advancing past it and any values it takes.
pub fn parse_one(args: &[String], index: &mut usize) -> Parsed {
    let arg = args[*index].as_str();
    *index += 1;
    let prefix = ["--", "-", "/"].into_iter().find(|p| arg.starts_with(p) && arg.len() > p.len());
    let Some(prefix) = prefix else { return Parsed::Input(arg.to_string()) };
    let rest = &arg[prefix.len()..];
    let mut candidates: Vec<&'static OptionSpec> =
        OPTIONS.iter().filter(|o| o.prefixes.allows(prefix) && rest.starts_with(o.name)).collect();
    candidates.sort_by_key(|o| std::cmp::Reverse(o.name.len()));
    for spec in candidates {
        let tail = &rest[spec.name.len()..];
        let values = match spec.form {
            Form::Flag if tail.is_empty() => Vec::new(),
            Form::Joined => vec![tail.to_string()],
            // Empty pieces are dropped, as LLVM's parser does (`-Oconfig=` is no list).
            Form::CommaJoined => tail.split(',').filter(|v| !v.is_empty()).map(str::to_string).collect(),
            Form::JoinedOrSeparate if !tail.is_empty() => vec![tail.to_string()],
            Form::Separate | Form::JoinedOrSeparate if tail.is_empty() => {
                let Some(value) = args.get(*index) else { return Parsed::Missing(arg.to_string()) };
                *index += 1;
                vec![value.clone()]
            }
            Form::MultiArg(count) if tail.is_empty() => {
                if args.len() - *index < count {
                    *index = args.len();
                    return Parsed::Missing(arg.to_string());
                }
                let values = args[*index..*index + count].to_vec();
                *index += count;
                values
            }
            _ => continue,
        };
        return Parsed::Option { spec, spelling: arg.to_string(), values };
    }
    // An unmatched `/...` is a path, as in dxc on every platform.
    if prefix == "/" {
        return Parsed::Input(arg.to_string());
    }
    Parsed::Unknown(arg.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    fn all(text: &str) -> Vec<Parsed> {
        let args = args(text);
        let mut index = 0;
        let mut out = Vec::new();
        while index < args.len() {
            out.push(parse_one(&args, &mut index));
        }
        out
    }

    fn option_values(parsed: &Parsed) -> (&str, Vec<&str>) {
        match parsed {
            Parsed::Option { spec, values, .. } => (spec.name, values.iter().map(String::as_str).collect()),
            other => panic!("not an option: {other:?}"),
        }
    }

    #[test]
    fn every_form_takes_its_values() {
        let parsed = all("-Tps_6_0 -E main -fvk-b-shift 1 all -Oconfig=--a,--b -Fd x.pdb -fspv-debug= -WX");
        let got: Vec<_> = parsed.iter().map(option_values).collect();
        assert_eq!(
            got,
            vec![
                ("T", vec!["ps_6_0"]),
                ("E", vec!["main"]),
                ("fvk-b-shift", vec!["1", "all"]),
                ("Oconfig=", vec!["--a", "--b"]),
                ("Fd", vec!["x.pdb"]),
                ("fspv-debug=", vec![""]),
                ("WX", vec![]),
            ]
        );
    }

    #[test]
    fn longest_accepting_name_wins() {
        // `-Wno-vk-ignored-features` is its own option, `-Wno-x` is `-W` with `no-x`.
        assert_eq!(option_values(&all("-Wno-vk-ignored-features")[0]).0, "Wno-vk-ignored-features");
        assert_eq!(option_values(&all("-Wno-x")[0]), ("W", vec!["no-x"]));
        // `-denorm` is not `-d` with `enorm`; `-Odump` is not `-O`.
        assert_eq!(option_values(&all("-denorm ftz")[0]), ("denorm", vec!["ftz"]));
        assert_eq!(option_values(&all("-Odump")[0]).0, "Odump");
        // A flag matches whole: `-Zix` is nothing, `-Fresult` is not `-Fre`.
        assert_eq!(all("-Zix"), vec![Parsed::Unknown("-Zix".into())]);
        assert_eq!(all("-Fresult"), vec![Parsed::Unknown("-Fresult".into())]);
    }

    #[test]
    fn multi_arg_values_are_taken_as_they_are() {
        assert_eq!(
            option_values(&all("-fvk-bind-sampler-heap -1 2")[0]),
            ("fvk-bind-sampler-heap", vec!["-1", "2"])
        );
        assert_eq!(all("-fvk-bind-sampler-heap 1"), vec![Parsed::Missing("-fvk-bind-sampler-heap".into())]);
        assert_eq!(all("-T"), vec![Parsed::Missing("-T".into())]);
    }

    #[test]
    fn prefixes_and_inputs() {
        assert_eq!(option_values(&all("/Zi")[0]).0, "Zi");
        assert_eq!(all("/work/a.hlsl"), vec![Parsed::Input("/work/a.hlsl".into())]);
        assert_eq!(all("-"), vec![Parsed::Input("-".into())]);
        assert_eq!(all("a.hlsl"), vec![Parsed::Input("a.hlsl".into())]);
        // `-spirv` has no `/` spelling.
        assert_eq!(all("/spirv"), vec![Parsed::Input("/spirv".into())]);
        assert_eq!(option_values(&all("--help")[0]).0, "help");
        assert_eq!(all("--spirv"), vec![Parsed::Unknown("--spirv".into())]);
    }

    #[test]
    fn usage_lists_every_option() {
        let text = usage();
        assert!(text.contains("\n  -fvk-bind-register <value> <value> <value> <value>\n"));
        assert!(text.contains("\n  -Oconfig=<value>,...\n"));
        assert!(text.contains("\n  -Fre <value>  (not with -spirv)\n"));
        assert_eq!(text.lines().filter(|l| l.starts_with("  -")).count(), OPTIONS.len());
    }

    #[test]
    fn names_are_unique_per_form() {
        for (i, a) in OPTIONS.iter().enumerate() {
            for b in &OPTIONS[i + 1..] {
                assert!(a.name != b.name || a.form != b.form, "duplicate row {}", a.name);
            }
        }
        let refused: Vec<&str> =
            OPTIONS.iter().filter(|o| o.with_spirv == WithSpirv::Refused).map(|o| o.name).collect();
        assert_eq!(refused, ["Gec", "Fd", "Fre", "Qstrip_reflect"]);
    }
}
