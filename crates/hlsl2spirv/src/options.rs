//! dxc's command line: every option the SPIR-V tests use, in the spellings dxc
//! accepts (`-T ps_6_0`, `-Tps_6_0`, `-fspv-target-env=vulkan1.1`, ...).

use thiserror::Error;

#[derive(Debug, Error, PartialEq)]
pub enum OptionError {
    #[error("Unknown argument: '{0}'")]
    Unknown(String),
    #[error("Argument to '{0}' is missing.")]
    MissingValue(String),
    #[error("expected positive integer for {0}, got: {1}")]
    NotPositive(String, String),
    #[error("Unsupported value '{0}' for denorm option.")]
    BadDenorm(String),
    #[error("invalid profile '{0}'")]
    BadProfile(String),
    #[error("invalid -HV version '{0}': expected 2016, 2018, 2021 or 202x")]
    BadVersion(String),
    #[error("{0} is not supported with -spirv")]
    NotWithSpirv(&'static str),
    #[error("-Oconfig should not be used together with -O")]
    OconfigWithO,
    #[error("unknown Vulkan stage I/O location assignment order: {0}")]
    BadStageIoOrder(String),
}

/// The shader stages a profile can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Pixel,
    Vertex,
    Geometry,
    Hull,
    Domain,
    Compute,
    Library,
    Mesh,
    Amplification,
}

impl Stage {
    /// The value of `__SHADER_TARGET_STAGE` (dxc's shader-kind numbering).
    pub fn target_stage_value(self) -> u32 {
        match self {
            Stage::Pixel => 0,
            Stage::Vertex => 1,
            Stage::Geometry => 2,
            Stage::Hull => 3,
            Stage::Domain => 4,
            Stage::Compute => 5,
            Stage::Library => 6,
            Stage::Mesh => 13,
            Stage::Amplification => 14,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    pub stage: Stage,
    pub major: u32,
    pub minor: u32,
}

impl Profile {
    /// `ps_6_0`, `vs_6_6`, `lib_6_8`, `cs_6_x`, ...
    pub fn parse(text: &str) -> Option<Profile> {
        let mut parts = text.split('_');
        let stage = match parts.next()? {
            "ps" => Stage::Pixel,
            "vs" => Stage::Vertex,
            "gs" => Stage::Geometry,
            "hs" => Stage::Hull,
            "ds" => Stage::Domain,
            "cs" => Stage::Compute,
            "lib" => Stage::Library,
            "ms" => Stage::Mesh,
            "as" => Stage::Amplification,
            _ => return None,
        };
        let major: u32 = parts.next()?.parse().ok()?;
        let minor = match parts.next()? {
            "x" => 9,
            m => m.parse().ok()?,
        };
        if parts.next().is_some() || !(4..=6).contains(&major) {
            return None;
        }
        Some(Profile { stage, major, minor })
    }
}

/// What the driver should produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// SPIR-V (the default; not implemented yet).
    Compile,
    SyntaxOnly,
    AstDump,
    /// `-P`: the preprocessed text.
    Preprocess,
}

#[derive(Clone, Debug)]
pub struct Options {
    pub input: Option<String>,
    pub profile: Option<Profile>,
    pub entry: Option<String>,
    pub mode: Mode,
    pub spirv: bool,
    pub output: Option<String>,
    pub preprocess_output: Option<String>,
    pub defines: Vec<(String, Option<String>)>,
    pub include_dirs: Vec<String>,
    pub hlsl_version: u32,
    pub enable_16bit_types: bool,
    pub target_env: Option<String>,
    pub extensions: Vec<String>,
    pub warnings_as_errors: bool,
    pub no_warnings: bool,
    pub disabled_warnings: Vec<String>,
    /// `-verify`: compare the diagnostics with the `expected-*` comments of the input.
    pub verify: bool,
    /// `-fvk-stage-io-order=alpha` (`decl`, the default, is `false`).
    pub stage_io_alpha: bool,
    /// Every other accepted option with its values, for later stages (codegen).
    pub other: Vec<(String, Vec<String>)>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            input: None,
            profile: None,
            entry: None,
            mode: Mode::Compile,
            spirv: false,
            output: None,
            preprocess_output: None,
            defines: Vec::new(),
            include_dirs: Vec::new(),
            hlsl_version: 2021,
            enable_16bit_types: false,
            target_env: None,
            extensions: Vec::new(),
            warnings_as_errors: false,
            no_warnings: false,
            disabled_warnings: Vec::new(),
            verify: false,
            stage_io_alpha: false,
            other: Vec::new(),
        }
    }
}

/// Options taking one value, written `-X value`, `-Xvalue` (or `-X=value` where noted).
const WITH_VALUE: &[&str] = &[
    "-T",
    "-E",
    "-D",
    "-I",
    "-Fo",
    "-Fi",
    "-Fd",
    "-Fe",
    "-Fc",
    "-Fh",
    "-HV",
    "-auto-binding-space",
    "-denorm",
    "-Fre",
    "-Frs",
    "-Fsh",
    "-Qembed_debug",
    "-external",
];
/// Options taking several separate values.
const MULTI_VALUE: &[(&str, usize)] = &[
    ("-fvk-b-shift", 2),
    ("-fvk-t-shift", 2),
    ("-fvk-s-shift", 2),
    ("-fvk-u-shift", 2),
    ("-fvk-bind-register", 4),
    ("-vkbr", 4),
    ("-fvk-bind-globals", 2),
    ("-fvk-bind-sampler-heap", 2),
    ("-fvk-bind-resource-heap", 2),
    ("-fvk-bind-counter-heap", 2),
];
/// Options written `-name=value`.
const JOINED: &[&str] = &[
    "-fspv-target-env=",
    "-fspv-extension=",
    "-fspv-debug=",
    "-Oconfig=",
    "-fspv-entrypoint-name=",
    "-fspv-max-id=",
    "-fvk-stage-io-order=",
];
/// Flags without values.
const FLAGS: &[&str] = &[
    "-spirv",
    "-fcgl",
    "-fsyntax-only",
    "-ast-dump",
    "-P",
    "-enable-16bit-types",
    "-Od",
    "-O0",
    "-O1",
    "-O2",
    "-O3",
    "-O4",
    "-Vd",
    "-Zi",
    "-Zpr",
    "-Zpc",
    "-Zss",
    "-Zsb",
    "-Qstrip_reflect",
    "-Qstrip_debug",
    "-WX",
    "-Werror",
    "-no-warnings",
    "-verify",
    "-ffinite-math-only",
    "-fno-finite-math-only",
    "-pack-optimized",
    "-pack-prefix-stable",
    "-fspv-reflect",
    "-fspv-flatten-resource-arrays",
    "-fspv-use-unknown-image-format",
    "-fspv-use-vulkan-memory-model",
    "-fspv-fix-func-call-arguments",
    "-fspv-reduce-load-size",
    "-fspv-print-all",
    "-fspv-preserve-interface",
    "-fspv-preserve-bindings",
    "-fspv-enable-maximal-reconvergence",
    "-fspv-use-descriptor-heap",
    "-fspv-use-legacy-buffer-matrix-order",
    "-fspv-allow-id-aliasing",
    "-fspv-use-dx-position-w",
    "-fvk-use-dx-layout",
    "-fvk-use-gl-layout",
    "-fvk-use-scalar-layout",
    "-fvk-use-dx-position-w",
    "-fvk-invert-y",
    "-fvk-support-nonzero-base-instance",
    "-fvk-support-nonzero-base-vertex",
    "-fvk-auto-shift-bindings",
    "-fvk-allow-rwstructuredbuffer-arrays",
    "-Gis",
    "-Gec",
    "-Ges",
    "-Gfa",
    "-Gfp",
    "-Ni",
    "-No",
    "-Lx",
    "-nologo",
    "-HV2016",
    "-HV2018",
    "-HV2021",
    "-HV202x",
    "-Wall",
];

/// Parses the arguments (without the program name).
pub fn parse_args(args: &[String]) -> Result<Options, OptionError> {
    let mut o = Options::default();
    let mut optimization_level = false;
    let mut oconfig = false;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if !arg.starts_with('-') || arg == "-" {
            // dxc takes the last input given (extra words in a few RUN lines are ignored).
            o.input = Some(arg.to_string());
            continue;
        }
        if FLAGS.contains(&arg) {
            match arg {
                "-spirv" => o.spirv = true,
                "-fsyntax-only" => o.mode = Mode::SyntaxOnly,
                "-ast-dump" => o.mode = Mode::AstDump,
                "-P" => o.mode = Mode::Preprocess,
                "-enable-16bit-types" => o.enable_16bit_types = true,
                "-WX" | "-Werror" => o.warnings_as_errors = true,
                "-no-warnings" => o.no_warnings = true,
                "-verify" => o.verify = true,
                "-O0" | "-O1" | "-O2" | "-O3" | "-O4" => optimization_level = true,
                "-HV2016" | "-HV2018" | "-HV2021" | "-HV202x" => o.hlsl_version = parse_version(&arg[3..])?,
                _ => {}
            }
            o.other.push((arg.to_string(), Vec::new()));
            continue;
        }
        if let Some(name) = arg.strip_prefix("-Wno-") {
            o.disabled_warnings.push(name.to_string());
            continue;
        }
        if let Some(prefix) = JOINED.iter().find(|p| arg.starts_with(**p)) {
            let value = &arg[prefix.len()..];
            match *prefix {
                "-fspv-target-env=" => o.target_env = Some(value.to_string()),
                "-fspv-extension=" => o.extensions.push(value.to_string()),
                "-Oconfig=" => oconfig = true,
                "-fvk-stage-io-order=" => match value {
                    "alpha" => o.stage_io_alpha = true,
                    "decl" => o.stage_io_alpha = false,
                    _ => return Err(OptionError::BadStageIoOrder(value.to_string())),
                },
                _ => {}
            }
            o.other.push((prefix.trim_end_matches('=').to_string(), vec![value.to_string()]));
            continue;
        }
        if let Some(&(name, count)) = MULTI_VALUE.iter().find(|(n, _)| *n == arg) {
            let mut values = Vec::new();
            for _ in 0..count {
                // A value that looks like an option is a missing value, as in dxc
                // (`-fvk-bind-sampler-heap -1 2`): except negative numbers are reported
                // by the range check below for the heap options.
                let Some(v) = args.get(i) else { return Err(OptionError::MissingValue(name.to_string())) };
                let is_number = v.parse::<i64>().is_ok();
                if v.starts_with('-') && !is_number {
                    return Err(OptionError::MissingValue(name.to_string()));
                }
                values.push(v.clone());
                i += 1;
            }
            if name.ends_with("-heap") {
                if let Some(bad) = values.iter().find(|v| v.parse::<u32>().is_err()) {
                    return Err(OptionError::NotPositive(name.to_string(), bad.clone()));
                }
            }
            o.other.push((name.to_string(), values));
            continue;
        }
        // `-X value`, `-Xvalue`, `-X=value`.
        let Some(name) = WITH_VALUE.iter().copied().filter(|n| arg.starts_with(n)).max_by_key(|n| n.len())
        else {
            return Err(OptionError::Unknown(arg.to_string()));
        };
        let value = if arg.len() > name.len() {
            let rest = &arg[name.len()..];
            rest.strip_prefix('=').unwrap_or(rest).to_string()
        } else {
            let Some(v) = args.get(i) else { return Err(OptionError::MissingValue(name.to_string())) };
            i += 1;
            v.clone()
        };
        match name {
            "-T" => o.profile = Some(Profile::parse(&value).ok_or(OptionError::BadProfile(value.clone()))?),
            "-E" => o.entry = Some(value.clone()),
            "-D" => {
                let (n, v) = match value.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (value.clone(), None),
                };
                o.defines.push((n, v));
            }
            "-I" => o.include_dirs.push(value.clone()),
            "-Fo" => o.output = Some(value.clone()),
            "-Fi" => o.preprocess_output = Some(value.clone()),
            "-HV" => o.hlsl_version = parse_version(&value)?,
            "-denorm" if !matches!(value.as_str(), "any" | "preserve" | "ftz") => {
                return Err(OptionError::BadDenorm(value));
            }
            _ => {}
        }
        o.other.push((name.to_string(), vec![value]));
    }
    if o.spirv {
        if o.other.iter().any(|(n, _)| n == "-Qstrip_reflect") {
            return Err(OptionError::NotWithSpirv("-Qstrip_reflect"));
        }
        if o.other.iter().any(|(n, _)| n == "-Fd") {
            return Err(OptionError::NotWithSpirv("-Fd"));
        }
    }
    if oconfig && optimization_level {
        return Err(OptionError::OconfigWithO);
    }
    Ok(o)
}

fn parse_version(text: &str) -> Result<u32, OptionError> {
    match text {
        "2015" | "2016" => Ok(2016),
        "2017" | "2018" => Ok(2018),
        "2021" => Ok(2021),
        "202x" => Ok(2022),
        _ => Err(OptionError::BadVersion(text.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn separate_and_joined_values() {
        let o = parse_args(&args(
            "-T ps_6_0 -Emain -DA=1 -D B -I inc -HV 2018 -fspv-target-env=vulkan1.1 f.hlsl",
        ))
        .unwrap();
        assert_eq!(o.profile, Some(Profile { stage: Stage::Pixel, major: 6, minor: 0 }));
        assert_eq!(o.entry.as_deref(), Some("main"));
        assert_eq!(o.defines, vec![("A".into(), Some("1".into())), ("B".into(), None)]);
        assert_eq!(o.include_dirs, vec!["inc".to_string()]);
        assert_eq!(o.hlsl_version, 2018);
        assert_eq!(o.target_env.as_deref(), Some("vulkan1.1"));
        assert_eq!(o.input.as_deref(), Some("f.hlsl"));
        let o = parse_args(&args("-Tcs_6_6 -HV2021 x")).unwrap();
        assert_eq!(o.profile.map(|p| p.stage), Some(Stage::Compute));
    }

    #[test]
    fn multi_value_options() {
        let o =
            parse_args(&args("-fvk-b-shift 1000 all -fvk-bind-register t5 0 1 2 -vkbr s3 1 3 4 f")).unwrap();
        assert!(o.other.iter().any(|(n, v)| n == "-fvk-bind-register" && v.len() == 4));
        assert_eq!(
            parse_args(&args("-fvk-bind-sampler-heap -1 2")).unwrap_err().to_string(),
            "expected positive integer for -fvk-bind-sampler-heap, got: -1"
        );
        assert_eq!(
            parse_args(&args("-fvk-bind-resource-heap 1")).unwrap_err(),
            OptionError::MissingValue("-fvk-bind-resource-heap".into())
        );
    }

    #[test]
    fn errors_with_dxc_wording() {
        assert_eq!(parse_args(&args("-bogus")).unwrap_err().to_string(), "Unknown argument: '-bogus'");
        assert_eq!(
            parse_args(&args("-denorm bad")).unwrap_err().to_string(),
            "Unsupported value 'bad' for denorm option."
        );
        assert!(parse_args(&args("-T xs_6_0")).is_err());
        assert_eq!(
            parse_args(&args("-spirv -Fd file.ext x")).unwrap_err().to_string(),
            "-Fd is not supported with -spirv"
        );
        assert_eq!(parse_args(&args("-O0 -Oconfig=--x f")).unwrap_err(), OptionError::OconfigWithO);
    }

    #[test]
    fn profiles() {
        assert_eq!(Profile::parse("lib_6_8").map(|p| (p.stage, p.minor)), Some((Stage::Library, 8)));
        assert_eq!(Profile::parse("ms_6_5").map(|p| p.stage.target_stage_value()), Some(13));
        assert!(Profile::parse("ps_6").is_none());
        assert!(Profile::parse("ps_9_0").is_none());
    }

    #[test]
    fn stage_io_order_is_decl_or_alpha() {
        assert!(!parse_args(&args("f.hlsl")).unwrap().stage_io_alpha);
        assert!(parse_args(&args("-fvk-stage-io-order=alpha f.hlsl")).unwrap().stage_io_alpha);
        assert!(
            !parse_args(&args("-fvk-stage-io-order=alpha -fvk-stage-io-order=decl f"))
                .unwrap()
                .stage_io_alpha
        );
        assert_eq!(
            parse_args(&args("-fvk-stage-io-order=reverse f")).unwrap_err().to_string(),
            "unknown Vulkan stage I/O location assignment order: reverse"
        );
    }
}
