//! dxc's command line. [`crate::option_table`] splits it as dxc does (every dxc
//! option, in every spelling dxc accepts: `-T ps_6_0`, `-Tps_6_0`, `/T ps_6_0`,
//! `-fspv-target-env=vulkan1.1`, `-Oconfig=a,b`, `-fvk-b-shift 1 0`); the checks
//! here follow dxc's `ReadDxcOpts` in its order, then what dxc's SPIR-V back end
//! checks before generating code, each with dxc's message.

use crate::option_table::{self, OptionSpec, Parsed, WithSpirv};
use crate::spirv_values::{self, PassFlagProblem};
use thiserror::Error;

/// A command line dxc refuses, with dxc's message (the option is named in it).
#[derive(Debug, Error, PartialEq)]
pub enum OptionError {
    #[error("Unknown argument: '{0}'")]
    Unknown(String),
    #[error("Argument to '{0}' is missing.")]
    MissingValue(String),
    #[error("Required input file argument is missing. use -help to get more information.")]
    MissingInput,
    #[error("Target profile argument is missing")]
    MissingProfile,
    #[error("expected positive integer for {0}, got: {1}")]
    NotPositive(String, String),
    /// A value of a fixed binding (`-fvk-bind-*-heap`) that is no number.
    #[error("invalid {option} argument: '{value}'")]
    InvalidBinding { option: String, value: String },
    /// A value of `-fvk-{b,t,s,u}-shift` that is neither a number nor `all`.
    #[error("invalid {option} argument: {value}")]
    InvalidShift { option: String, value: String },
    #[error("negative {option} argument: {value}")]
    NegativeShift { option: String, value: String },
    #[error("setting all sets via {0} argument should be used alone")]
    ShiftForAllNotAlone(String),
    #[error("{0} cannot be used together with -fvk-bind-register")]
    ShiftWithBindRegister(String),
    #[error("{0} requires -spirv")]
    RequiresSpirv(String),
    /// `-fvk-bind-register`: which number (space, binding or set) is bad.
    #[error("invalid -fvk-bind-register {what} number: {value}")]
    InvalidBindRegister { what: &'static str, value: String },
    /// `-fvk-bind-globals`: which number (binding or set) is bad.
    #[error("invalid -fvk-bind-globals {what} number: {value}")]
    InvalidBindGlobals { what: &'static str, value: String },
    #[error("Unsupported value '{0}' for denorm option.")]
    BadDenorm(String),
    #[error("denorm option is only allowed for shader model 6.2 and above.")]
    DenormNeedsSm62,
    #[error("enable-16bit-types is only allowed for shader model >= 6.2 and HLSL Language >= 2018.")]
    SixteenBitTypesNeedSm62,
    #[error("Unsupported value '{0}' for auto binding space.")]
    BadAutoBindingSpace(String),
    #[error("Unsupported value '{0}for -default-linkage option.")]
    BadDefaultLinkage(String),
    #[error("Unsupported value '{0}' for root signature profile.")]
    BadRootSignatureVersion(String),
    #[error("library profile required when using {0} option")]
    NeedsLibraryProfile(&'static str),
    #[error("External function cannot be specified without an external library name.")]
    ExternalFunctionWithoutLibrary,
    #[error("External library name requires specifying an external function name.")]
    ExternalLibraryWithoutFunction,
    #[error("invalid profile '{0}'")]
    BadProfile(String),
    #[error("Must disable validation for unsupported lib_6_1 or lib_6_2 targets.")]
    OldLibraryNeedsVd,
    #[error("Invalid target for payload access qualifiers. Only lib_6_6 and beyond are supported.")]
    PayloadQualifiersNeedSm66,
    #[error("Unknown HLSL version: {0}. Valid versions: 2016, 2017, 2018, 2021, 202x")]
    BadVersion(String),
    #[error("HLSL Version 2015 is only supported for language services")]
    Version2015,
    #[error("/Gec is not supported with HLSLVersion {0}")]
    GecWithVersion(u32),
    /// Two options dxc refuses together (`/Zpr` and `/Zpc`, ...).
    #[error("Cannot specify {0} and {1} together, use /? to get usage information")]
    Exclusive(&'static str, &'static str),
    #[error("Cannot specify a header variable name when not writing a header.")]
    VariableNameWithoutHeader,
    #[error("Must enable debug info with /Zi for /Qembed_debug")]
    EmbedDebugWithoutDebugInfo,
    #[error("Cannot specify both /Zi and /Zs")]
    DebugInfoAndSourceOnly,
    #[error("Cannot specify both /Zss and /Zsb")]
    DebugNameBothWays,
    #[error("/Zss requires debug info (/Zi or /Zs)")]
    DebugNameForSourceWithoutDebugInfo,
    #[error("{0} is not supported with -spirv")]
    NotWithSpirv(String),
    #[error("-Oconfig should not be used together with -O")]
    OconfigWithO,
    #[error("unknown Vulkan stage I/O location assignment order: {0}")]
    BadStageIoOrder(String),
    #[error("-Oconfig should not be specified more than once")]
    OconfigTwice,
    #[error("unknown SPIR-V debug info control parameter: {0}")]
    UnknownDebugInfo(String),
    #[error("-fspv-max-id must be an integer in hexadecimal format")]
    MaxIdNotHex,
    // The checks below are made by dxc's SPIR-V back end, which reports them as
    // compiler errors (see [`OptionError::is_compiler_error`]).
    #[error("unknown SPIR-V target environment '{0}'")]
    UnknownTargetEnv(String),
    #[error("unknown SPIR-V extension '{0}'")]
    UnknownExtension(String),
    #[error(
        "failed to optimize SPIR-V: {0} is not a valid flag.  Flag passes should have the form \
         '--pass_name[=pass_args]'. Special flag names also accepted: -O and -Os."
    )]
    OconfigNotAFlag(String),
    #[error("failed to optimize SPIR-V: Unknown flag '--{0}'. Use --help for a list of valid flags")]
    OconfigUnknownPass(String),
}

impl OptionError {
    /// dxc reports these from its SPIR-V back end (`error: ...`) rather than from
    /// its command-line reader (`dxc failed : ...`).
    pub fn is_compiler_error(&self) -> bool {
        matches!(
            self,
            OptionError::UnknownTargetEnv(_)
                | OptionError::UnknownExtension(_)
                | OptionError::InvalidBindRegister { .. }
                | OptionError::InvalidBindGlobals { .. }
                | OptionError::OconfigNotAFlag(_)
                | OptionError::OconfigUnknownPass(_)
        )
    }

    /// The line dxc prints for this error (with its note, if it gives one).
    pub fn render(&self) -> String {
        match self {
            OptionError::UnknownTargetEnv(_) => {
                let envs: Vec<&str> = spirv_values::TARGET_ENVS.iter().map(|(name, _)| *name).collect();
                format!("error: {self}\nnote: allowed options are:\n {}", envs.join("\n "))
            }
            OptionError::UnknownExtension(_) => {
                format!(
                    "error: {self}\nnote: known extensions are\n* {}",
                    spirv_values::EXTENSIONS.join("\n* ")
                )
            }
            OptionError::OconfigNotAFlag(_) | OptionError::OconfigUnknownPass(_) => {
                format!("fatal error: {self}")
            }
            e if e.is_compiler_error() => format!("error: {self}"),
            _ => format!("dxc failed : {self}"),
        }
    }
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
    /// `-help`, `-?`: the option list.
    Help,
    /// `--version`.
    Version,
}

/// One value of `-fvk-{b,t,s,u}-shift`: a number or `all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftValue {
    All,
    Number(u32),
}

/// `-fvk-{b,t,s,u}-shift N SPACE`: shift the bindings of register type `register`
/// in `space` (or every space) by `shift`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindingShift {
    pub register: char,
    pub shift: ShiftValue,
    pub space: ShiftValue,
}

/// `-fvk-bind-register TYPE-NUMBER SPACE BINDING SET` (alias `-vkbr`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterBinding {
    /// The register as written in `register(...)`: `t5`, `s3`, ...
    pub register: String,
    pub space: u32,
    pub binding: u32,
    pub set: u32,
}

/// A binding and descriptor set given on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedBinding {
    pub binding: u32,
    pub set: u32,
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
    /// `-enable-payload-qualifiers` / `-disable-payload-qualifiers`; `None`: the profile's default.
    pub payload_qualifiers: Option<bool>,
    pub target_env: Option<String>,
    pub extensions: Vec<String>,
    pub warnings_as_errors: bool,
    pub no_warnings: bool,
    pub disabled_warnings: Vec<String>,
    /// `-verify`: compare the diagnostics with the `expected-*` comments of the input.
    pub verify: bool,
    /// `-fvk-stage-io-order=alpha` (`decl`, the default, is `false`).
    pub stage_io_alpha: bool,
    /// Every accepted option (as `-name`, without a joined `=`) with its values,
    /// in command-line order, for later stages (codegen).
    pub other: Vec<(String, Vec<String>)>,
    /// `-O0`..`-O3` (3 when none is given; `-Od` gives 0).
    pub optimization_level: u32,
    /// `-Od`.
    pub disable_optimizations: bool,
    /// `-Oconfig=`: the optimizer passes to run instead of the default ones.
    pub optimizer_passes: Vec<String>,
    /// `-fvk-{b,t,s,u}-shift`, in command-line order.
    pub binding_shifts: Vec<BindingShift>,
    pub register_bindings: Vec<RegisterBinding>,
    /// `-fvk-bind-globals BINDING SET`.
    pub globals_binding: Option<FixedBinding>,
    pub resource_heap_binding: Option<FixedBinding>,
    pub sampler_heap_binding: Option<FixedBinding>,
    pub counter_heap_binding: Option<FixedBinding>,
    /// `-fspv-debug=` categories, in order.
    pub spirv_debug: Vec<String>,
    /// `-fspv-max-id` (dxc's default is 0x3FFFFF).
    pub max_id: u32,
    /// The command line's words as given (dxc records them with `-fspv-debug=tool`).
    pub arguments: Vec<String>,
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
            payload_qualifiers: None,
            target_env: None,
            extensions: Vec::new(),
            warnings_as_errors: false,
            no_warnings: false,
            disabled_warnings: Vec::new(),
            verify: false,
            stage_io_alpha: false,
            other: Vec::new(),
            optimization_level: 3,
            disable_optimizations: false,
            optimizer_passes: Vec::new(),
            binding_shifts: Vec::new(),
            register_bindings: Vec::new(),
            globals_binding: None,
            resource_heap_binding: None,
            sampler_heap_binding: None,
            counter_heap_binding: None,
            spirv_debug: Vec::new(),
            max_id: DEFAULT_MAX_ID,
            arguments: Vec::new(),
        }
    }
}

/// The largest id every Vulkan implementation must allow (dxc's default `-fspv-max-id`).
pub const DEFAULT_MAX_ID: u32 = 0x3F_FFFF;

/// The accepted options in command-line order, with lookups by name.
struct Args {
    options: Vec<(&'static OptionSpec, Vec<String>)>,
    /// The inputs with the position of the argument each came from.
    inputs: Vec<(usize, String)>,
    /// The position of the last `-P`.
    last_preprocess: Option<usize>,
    /// The option whose values ran past the end (parsing stopped there).
    missing: Option<String>,
    /// The first option dxc does not know.
    unknown: Option<String>,
}

impl Args {
    fn has(&self, name: &str) -> bool {
        self.options.iter().any(|(o, _)| o.name == name)
    }

    fn all_values(&self, name: &str) -> Vec<&str> {
        self.all_values_of(&[name])
    }

    /// The values of an option and its aliases, in command-line order.
    fn all_values_of(&self, names: &[&str]) -> Vec<&str> {
        self.options
            .iter()
            .filter(|(o, _)| names.contains(&o.name))
            .flat_map(|(_, v)| v.iter().map(String::as_str))
            .collect()
    }

    fn last_value(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(o, _)| o.name == name)
            .and_then(|(_, v)| v.last())
            .map(String::as_str)
    }

    /// The last of several options (`-O0`..`-O3`, `-Od`).
    fn last_of(&self, names: &[&str]) -> Option<&'static str> {
        self.options.iter().rev().find(|(o, _)| names.contains(&o.name)).map(|(o, _)| o.name)
    }
}

/// Splits the command line with dxc's option table; a missing value stops it.
fn read_args(args: &[String]) -> Args {
    let mut out =
        Args { options: Vec::new(), inputs: Vec::new(), last_preprocess: None, missing: None, unknown: None };
    let mut index = 0;
    while index < args.len() {
        let position = index;
        match option_table::parse_one(args, &mut index) {
            Parsed::Input(input) => out.inputs.push((position, input)),
            Parsed::Option { spec, values, .. } => {
                if spec.name == "P" {
                    out.last_preprocess = Some(position);
                }
                out.options.push((spec, values));
            }
            Parsed::Unknown(arg) => {
                out.unknown.get_or_insert(arg);
            }
            Parsed::Missing(arg) => {
                out.missing = Some(arg);
                break;
            }
        }
    }
    out
}

/// Parses the arguments (without the program name) and checks them as dxc does,
/// in dxc's order, so the first problem reported is dxc's.
pub fn parse_args(args: &[String]) -> Result<Options, OptionError> {
    let arguments = args.to_vec();
    let args = read_args(args);
    let mut o = Options { arguments, ..Options::default() };
    for (spec, values) in &args.options {
        record(&mut o, spec, values);
    }
    // dxc takes the last input given (extra words in a few RUN lines are ignored).
    o.input = args.inputs.last().map(|(_, input)| input.clone());
    o.spirv = args.has("spirv");
    take_legacy_preprocess_output(&args, &mut o);

    check_external_library(&args)?;
    // Help and version come before any other complaint, as in dxc.
    if ["help", "?", "help-hidden"].iter().any(|name| args.has(name)) {
        o.mode = Mode::Help;
        return Ok(o);
    }
    if args.has("version") {
        o.mode = Mode::Version;
        return Ok(o);
    }
    if let Some(arg) = &args.missing {
        return Err(OptionError::MissingValue(arg.clone()));
    }
    if let Some(arg) = args.unknown.as_ref().filter(|_| !args.has("Qunused-arguments")) {
        return Err(OptionError::Unknown(arg.clone()));
    }
    check_library_options(&args)?;
    check_language(&args, &mut o)?;
    check_profile_dependent(&args, &mut o)?;
    check_exclusive(&args)?;
    if o.input.is_none() {
        return Err(OptionError::MissingInput);
    }
    if args.has("Vn") && !args.has("Fh") {
        return Err(OptionError::VariableNameWithoutHeader);
    }
    let preprocess = args.has("P");
    if o.profile.is_none() && !preprocess && !args.has("dumpbin") && !args.has("recompile") {
        return Err(OptionError::MissingProfile);
    }
    check_spirv_options(&args, &mut o)?;
    check_debug_info(&args)?;
    if o.spirv {
        check_spirv_codegen(&args, &mut o)?;
    }
    Ok(o)
}

/// fxc's `-P file` (deprecated in dxc, still honoured): without `-Fi` and with
/// several inputs, the input right after `-P` is the preprocessed output and the
/// input file is the last of the others.
fn take_legacy_preprocess_output(args: &Args, o: &mut Options) {
    let Some(p) = args.last_preprocess else { return };
    if args.has("Fi") || args.inputs.len() < 2 {
        return;
    }
    let Some(at) = args.inputs.iter().position(|(position, _)| *position == p + 1) else { return };
    o.preprocess_output = Some(args.inputs[at].1.clone());
    if at + 1 == args.inputs.len() && at > 0 {
        o.input = Some(args.inputs[at - 1].1.clone());
    }
}

/// Fills the plain fields (the checks come after, in dxc's order).
fn record(o: &mut Options, spec: &OptionSpec, values: &[String]) {
    let value = values.first().cloned().unwrap_or_default();
    match spec.name {
        "E" => o.entry = Some(value.clone()),
        "D" => {
            let (name, v) = match value.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (value.clone(), None),
            };
            o.defines.push((name, v));
        }
        "I" => o.include_dirs.push(value.clone()),
        "Fo" => o.output = Some(value.clone()),
        "Fi" => o.preprocess_output = Some(value.clone()),
        "fsyntax-only" => o.mode = Mode::SyntaxOnly,
        "ast-dump" | "ast-dump-implicit" => o.mode = Mode::AstDump,
        "P" => o.mode = Mode::Preprocess,
        "enable-16bit-types" => o.enable_16bit_types = true,
        "WX" => o.warnings_as_errors = true,
        "W" => match value.strip_prefix("no-") {
            Some(name) => o.disabled_warnings.push(name.to_string()),
            None if value == "error" => o.warnings_as_errors = true,
            None => {}
        },
        "no-warnings" => o.no_warnings = true,
        "verify" => o.verify = true,
        "fspv-target-env=" => o.target_env = Some(value.clone()),
        "fspv-extension=" => o.extensions.push(value.clone()),
        _ => {}
    }
    let name = format!("-{}", spec.name.trim_end_matches('='));
    o.other.push((name, values.to_vec()));
}

fn check_external_library(args: &Args) -> Result<(), OptionError> {
    match (args.last_value("external"), args.last_value("external-fn")) {
        (None, Some(_)) => Err(OptionError::ExternalFunctionWithoutLibrary),
        (Some(_), None) => Err(OptionError::ExternalLibraryWithoutFunction),
        _ => Ok(()),
    }
}

fn check_library_options(args: &Args) -> Result<(), OptionError> {
    let library = args.last_value("T").is_some_and(|t| t.starts_with("lib_"));
    if !library {
        for (name, spelling) in [
            ("exports", "-exports"),
            ("export-shaders-only", "-export-shaders-only"),
            ("default-linkage", "-default-linkage"),
        ] {
            if args.has(name) {
                return Err(OptionError::NeedsLibraryProfile(spelling));
            }
        }
    }
    Ok(())
}

/// `-HV` (with `/Gec`'s default and limit), root signature versions, `-denorm`,
/// `-auto-binding-space`, `-default-linkage`.
fn check_language(args: &Args, o: &mut Options) -> Result<(), OptionError> {
    let dx9_compat = args.has("Gec");
    o.hlsl_version = match args.last_value("HV") {
        None if dx9_compat => 2016,
        None => 2021,
        Some(text) => parse_version(text)?,
    };
    if o.hlsl_version == 2015 {
        return Err(OptionError::Version2015);
    }
    if dx9_compat && o.hlsl_version > 2016 {
        return Err(OptionError::GecWithVersion(o.hlsl_version));
    }
    let root_signature =
        args.last_value("force-rootsig-ver").or_else(|| args.last_value("force_rootsig_ver"));
    if let Some(v) = root_signature.filter(|v| !v.is_empty() && !matches!(*v, "rootsig_1_0" | "rootsig_1_1"))
    {
        return Err(OptionError::BadRootSignatureVersion(v.to_string()));
    }
    if let Some(mode) = args.last_value("denorm").filter(|m| !m.is_empty()) {
        if !["preserve", "ftz", "any"].iter().any(|known| mode.eq_ignore_ascii_case(known)) {
            return Err(OptionError::BadDenorm(mode.to_string()));
        }
    }
    if let Some(space) = args.last_value("auto-binding-space").filter(|s| !s.is_empty()) {
        if space.parse::<u32>().is_err() {
            return Err(OptionError::BadAutoBindingSpace(space.to_string()));
        }
    }
    if let Some(linkage) = args.last_value("default-linkage").filter(|l| !l.is_empty()) {
        if !linkage.eq_ignore_ascii_case("internal") && !linkage.eq_ignore_ascii_case("external") {
            return Err(OptionError::BadDefaultLinkage(linkage.to_string()));
        }
    }
    Ok(())
}

/// The profile and what needs shader model 6.2, the optimization level, old
/// library targets.
fn check_profile_dependent(args: &Args, o: &mut Options) -> Result<(), OptionError> {
    if let Some(text) = args.last_value("T") {
        o.profile = Some(Profile::parse(text).ok_or_else(|| OptionError::BadProfile(text.to_string()))?);
    }
    let at_least = |major: u32, minor: u32| o.profile.is_some_and(|p| (p.major, p.minor) >= (major, minor));
    if args.last_value("denorm").is_some_and(|m| !m.is_empty()) && !at_least(6, 2) {
        return Err(OptionError::DenormNeedsSm62);
    }
    if o.enable_16bit_types && (!at_least(6, 2) || o.hlsl_version < 2018) {
        return Err(OptionError::SixteenBitTypesNeedSm62);
    }
    match args.last_of(&["O0", "O1", "O2", "O3", "Od"]) {
        Some("Od") => {
            o.disable_optimizations = true;
            o.optimization_level = 0;
        }
        Some(level) => o.optimization_level = level[1..].parse().unwrap_or(3),
        None => o.optimization_level = 3,
    }
    // Payload access qualifiers: on by default from 6.7; `-enable-payload-qualifiers`
    // needs 6.6, `-disable-payload-qualifiers` turns them off.
    if args.has("enable-payload-qualifiers") {
        if !at_least(6, 6) {
            return Err(OptionError::PayloadQualifiersNeedSm66);
        }
        o.payload_qualifiers = Some(true);
    }
    if args.has("disable-payload-qualifiers") {
        o.payload_qualifiers = Some(false);
    }
    let old_library = o.profile.is_some_and(|p| p.stage == Stage::Library && (p.major, p.minor) < (6, 3));
    if old_library && !args.has("Vd") {
        return Err(OptionError::OldLibraryNeedsVd);
    }
    Ok(())
}

/// Options dxc refuses together.
fn check_exclusive(args: &Args) -> Result<(), OptionError> {
    const PAIRS: &[(&[&str], &[&str], &str, &str)] = &[
        (&["Zpr"], &["Zpc"], "/Zpr", "/Zpc"),
        (&["Gfa"], &["Gfp"], "/Gfa", "/Gfp"),
        (
            &["pack-prefix-stable", "pack_prefix_stable"],
            &["pack-optimized", "pack_optimized"],
            "/pack_prefix_stable",
            "/pack_optimized",
        ),
    ];
    for (first, second, first_name, second_name) in PAIRS {
        if first.iter().any(|n| args.has(n)) && second.iter().any(|n| args.has(n)) {
            return Err(OptionError::Exclusive(first_name, second_name));
        }
    }
    Ok(())
}

/// dxc's command-line checks of the SPIR-V options, then its list of options it
/// does not support with `-spirv`.
fn check_spirv_options(args: &Args, o: &mut Options) -> Result<(), OptionError> {
    for register in ['b', 't', 's', 'u'] {
        let name = format!("fvk-{register}-shift");
        let shifts = read_shifts(args, &name, register, o.spirv)?;
        o.binding_shifts.extend(shifts);
    }
    // As dxc, between the shifts and the heaps; the last one given counts.
    match args.last_value("fvk-stage-io-order=") {
        None | Some("decl") => o.stage_io_alpha = false,
        Some("alpha") => o.stage_io_alpha = true,
        Some(other) => return Err(OptionError::BadStageIoOrder(other.to_string())),
    }
    for (name, slot) in [
        ("fvk-bind-resource-heap", &mut o.resource_heap_binding),
        ("fvk-bind-sampler-heap", &mut o.sampler_heap_binding),
        ("fvk-bind-counter-heap", &mut o.counter_heap_binding),
    ] {
        *slot = read_fixed_binding(args, name, o.spirv)?;
    }
    for category in args.all_values("fspv-debug=") {
        if !spirv_values::DEBUG_INFO.contains(&category) {
            return Err(OptionError::UnknownDebugInfo(category.to_string()));
        }
        o.spirv_debug.push(category.to_string());
    }
    if let Some(text) = args.last_value("fspv-max-id") {
        o.max_id = parse_hex(text).ok_or(OptionError::MaxIdNotHex)?;
    }
    let oconfigs: Vec<&(&'static OptionSpec, Vec<String>)> =
        args.options.iter().filter(|(spec, _)| spec.name == "Oconfig=").collect();
    if oconfigs.len() > 1 {
        return Err(OptionError::OconfigTwice);
    }
    if let Some((_, passes)) = oconfigs.first() {
        if args.last_of(&["O0", "O1", "O2", "O3"]).is_some() {
            return Err(OptionError::OconfigWithO);
        }
        o.optimizer_passes = passes.clone();
    }
    if o.spirv {
        // dxc reports the first of its list, in the list's order.
        for spec in option_table::OPTIONS.iter().filter(|s| s.with_spirv == WithSpirv::Refused) {
            if args.has(spec.name) {
                return Err(OptionError::NotWithSpirv(format!("-{}", spec.name)));
            }
        }
    }
    Ok(())
}

/// `-fvk-X-shift SHIFT SPACE`, any number of times: numbers or `all`.
fn read_shifts(
    args: &Args,
    name: &str,
    register: char,
    spirv: bool,
) -> Result<Vec<BindingShift>, OptionError> {
    let values = args.all_values(name);
    if values.is_empty() {
        return Ok(Vec::new());
    }
    let option = format!("-{name}");
    if !spirv {
        return Err(OptionError::RequiresSpirv(option));
    }
    if args.has("fvk-bind-register") || args.has("vkbr") {
        return Err(OptionError::ShiftWithBindRegister(option));
    }
    let mut parsed = Vec::with_capacity(values.len());
    for value in &values {
        if *value == "all" {
            parsed.push(ShiftValue::All);
            continue;
        }
        let number = parse_decimal(value)
            .ok_or_else(|| OptionError::InvalidShift { option: option.clone(), value: value.to_string() })?;
        let number = u32::try_from(number)
            .map_err(|_| OptionError::NegativeShift { option: option.clone(), value: value.to_string() })?;
        parsed.push(ShiftValue::Number(number));
    }
    if parsed.contains(&ShiftValue::All) && parsed.len() > 2 {
        return Err(OptionError::ShiftForAllNotAlone(option));
    }
    Ok(parsed.chunks_exact(2).map(|pair| BindingShift { register, shift: pair[0], space: pair[1] }).collect())
}

/// `-fvk-bind-X-heap BINDING SET`. Given twice, dxc reads the first pair.
fn read_fixed_binding(args: &Args, name: &str, spirv: bool) -> Result<Option<FixedBinding>, OptionError> {
    let values = args.all_values(name);
    if values.is_empty() {
        return Ok(None);
    }
    let option = format!("-{name}");
    if !spirv {
        return Err(OptionError::RequiresSpirv(option));
    }
    let mut numbers = [0u32; 2];
    for (slot, value) in numbers.iter_mut().zip(&values) {
        let number = parse_decimal(value).ok_or_else(|| OptionError::InvalidBinding {
            option: option.clone(),
            value: value.to_string(),
        })?;
        *slot =
            u32::try_from(number).map_err(|_| OptionError::NotPositive(option.clone(), value.to_string()))?;
    }
    Ok(Some(FixedBinding { binding: numbers[0], set: numbers[1] }))
}

/// What SPIR-V debug output `-Zi` and `-fspv-debug=` ask for (dxc's categories).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DebugCategories {
    /// `OpString` with the main file's name, in `OpSource`.
    pub file: bool,
    /// The source text in `OpSource` (and one per included file).
    pub source: bool,
    /// `OpLine`/`OpNoLine`.
    pub line: bool,
    /// `OpModuleProcessed` with the command line (Vulkan 1.1 and later).
    pub tool: bool,
}

impl Options {
    /// dxc's reading: `-fspv-debug=file` is the file, `source` adds the text, `line`
    /// adds lines, `tool` is the tool's record alone; `-Zi` alone is all four. The
    /// rich categories (`rich`, `vulkan*`) are not these (not supported here).
    pub fn debug_categories(&self) -> DebugCategories {
        let mut c = DebugCategories::default();
        if self.spirv_debug.is_empty() {
            if self.other.iter().any(|(n, _)| n == "-Zi") {
                c = DebugCategories { file: true, source: true, line: true, tool: true };
            }
            return c;
        }
        for category in &self.spirv_debug {
            match category.as_str() {
                "file" => c.file = true,
                "source" => (c.file, c.source) = (true, true),
                "line" => (c.file, c.source, c.line) = (true, true, true),
                "tool" => c.tool = true,
                _ => {}
            }
        }
        c
    }
}

/// dxc's checks after the SPIR-V options: debug info with `/Zi`, `/Zs`, `/Zss`.
fn check_debug_info(args: &Args) -> Result<(), OptionError> {
    // `-fspv-debug=` turns debug info on, like `/Zi`.
    let debug_info = args.has("Zi") || args.has("fspv-debug=");
    let source_only = args.has("Zs");
    if args.has("Qembed_debug") && !debug_info {
        return Err(OptionError::EmbedDebugWithoutDebugInfo);
    }
    if debug_info && source_only {
        return Err(OptionError::DebugInfoAndSourceOnly);
    }
    let (for_source, for_binary) = (args.has("Zss"), args.has("Zsb"));
    if for_source && for_binary {
        return Err(OptionError::DebugNameBothWays);
    }
    if for_source && !debug_info && !source_only {
        return Err(OptionError::DebugNameForSourceWithoutDebugInfo);
    }
    Ok(())
}

/// What dxc's SPIR-V back end checks before it generates code: the target
/// environment, the extensions, the `-fvk-bind-globals` and `-fvk-bind-register`
/// numbers and the `-Oconfig=` passes (the optimizer runs them at `-O1` and up).
fn check_spirv_codegen(args: &Args, o: &mut Options) -> Result<(), OptionError> {
    let env = o.target_env.as_deref().unwrap_or("vulkan1.0");
    if spirv_values::target_env_spirv_version(env).is_none() {
        return Err(OptionError::UnknownTargetEnv(env.to_string()));
    }
    if let Some(name) = o.extensions.iter().find(|e| !spirv_values::is_known_extension(e)) {
        return Err(OptionError::UnknownExtension(name.clone()));
    }
    let globals = args.all_values("fvk-bind-globals");
    if !globals.is_empty() {
        let binding = non_negative(globals[0]).ok_or_else(|| OptionError::InvalidBindGlobals {
            what: "binding",
            value: globals[0].to_string(),
        })?;
        let set = non_negative(globals[1])
            .ok_or_else(|| OptionError::InvalidBindGlobals { what: "set", value: globals[1].to_string() })?;
        o.globals_binding = Some(FixedBinding { binding, set });
    }
    let registers = args.all_values_of(&["fvk-bind-register", "vkbr"]);
    for relation in registers.chunks_exact(4) {
        let number = |index: usize, what: &'static str| {
            non_negative(relation[index])
                .ok_or_else(|| OptionError::InvalidBindRegister { what, value: relation[index].to_string() })
        };
        let (space, binding, set) = (number(1, "space")?, number(2, "binding")?, number(3, "set")?);
        o.register_bindings.push(RegisterBinding { register: relation[0].to_string(), space, binding, set });
    }
    if o.optimization_level > 0 {
        for flag in &o.optimizer_passes {
            match spirv_values::check_pass_flag(flag) {
                Ok(()) => {}
                Err(PassFlagProblem::NotAFlag) => return Err(OptionError::OconfigNotAFlag(flag.clone())),
                Err(PassFlagProblem::UnknownPass(name)) => return Err(OptionError::OconfigUnknownPass(name)),
            }
        }
    }
    Ok(())
}

/// A decimal integer as LLVM's `getAsInteger(10, int)` reads it: an optional
/// sign and digits, nothing else, within `i32`.
fn parse_decimal(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<i32>().ok().map(i64::from)
}

fn non_negative(text: &str) -> Option<u32> {
    parse_decimal(text).and_then(|n| u32::try_from(n).ok())
}

/// `-fspv-max-id`: hexadecimal, an optional `0x`; larger values are clamped as in dxc.
fn parse_hex(text: &str) -> Option<u32> {
    let digits = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > 8 {
        return Some(u32::MAX);
    }
    Some(u32::from_str_radix(if significant.is_empty() { "0" } else { significant }, 16).unwrap_or(u32::MAX))
}

/// `-HV` values; 2015 parses (and is refused later, as in dxc).
fn parse_version(text: &str) -> Result<u32, OptionError> {
    match text {
        "2015" => Ok(2015),
        "2016" => Ok(2016),
        "2017" => Ok(2017),
        "2018" => Ok(2018),
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

    /// Parses `text` after `-T ps_6_2 -spirv` with an input file.
    fn spirv(text: &str) -> Result<Options, OptionError> {
        parse_args(&args(&format!("-T ps_6_2 -spirv {text} f.hlsl")))
    }

    fn spirv_error(text: &str) -> String {
        spirv(text).unwrap_err().to_string()
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
        let o = parse_args(&args("/Tcs_6_6 /E main /Zi x")).unwrap();
        assert_eq!(o.profile.map(|p| p.stage), Some(Stage::Compute));
        assert!(o.other.iter().any(|(n, _)| n == "-Zi"));
        // Separate only: `-HV2021` is not `-HV 2021`.
        assert_eq!(
            parse_args(&args("-T ps_6_0 -HV2021 x")).unwrap_err(),
            OptionError::Unknown("-HV2021".into())
        );
        let o = parse_args(&args("-T ps_6_0 -Wno-x -Werror x")).unwrap();
        assert!(o.warnings_as_errors);
        assert_eq!(o.disabled_warnings, ["x"]);
    }

    #[test]
    fn unknown_and_missing_arguments() {
        assert_eq!(parse_args(&args("-bogus x")).unwrap_err().to_string(), "Unknown argument: '-bogus'");
        assert_eq!(parse_args(&args("-T ps_6_0 -O4 x")).unwrap_err().to_string(), "Unknown argument: '-O4'");
        assert!(parse_args(&args("-T ps_6_0 -bogus -Qunused-arguments x")).is_ok());
        // A missing value is reported before an unknown option.
        assert_eq!(
            parse_args(&args("-bogus -T ps_6_0 x -E")).unwrap_err().to_string(),
            "Argument to '-E' is missing."
        );
        assert_eq!(parse_args(&args("-T ps_6_0")).unwrap_err(), OptionError::MissingInput);
        assert_eq!(
            parse_args(&args("-E main x")).unwrap_err().to_string(),
            "Target profile argument is missing"
        );
        assert!(parse_args(&args("-P -Fi out.i x")).is_ok());
        // Help comes first: no input, a missing value and an unknown option are fine.
        assert_eq!(parse_args(&args("-bogus -help -T")).unwrap().mode, Mode::Help);
        assert_eq!(parse_args(&args("/?")).unwrap().mode, Mode::Help);
        assert_eq!(parse_args(&args("--version")).unwrap().mode, Mode::Version);
    }

    #[test]
    fn legacy_preprocess_output() {
        let o = parse_args(&args("in.hlsl -P out.i")).unwrap();
        assert_eq!((o.input.as_deref(), o.preprocess_output.as_deref()), (Some("in.hlsl"), Some("out.i")));
        let o = parse_args(&args("-P out.i in.hlsl")).unwrap();
        assert_eq!((o.input.as_deref(), o.preprocess_output.as_deref()), (Some("in.hlsl"), Some("out.i")));
        let o = parse_args(&args("-P -Fi f.i in.hlsl")).unwrap();
        assert_eq!((o.input.as_deref(), o.preprocess_output.as_deref()), (Some("in.hlsl"), Some("f.i")));
        assert_eq!(parse_args(&args("-P in.hlsl")).unwrap().preprocess_output, None);
    }

    #[test]
    fn language_checks() {
        let error = |text: &str| parse_args(&args(text)).unwrap_err().to_string();
        assert_eq!(error("-T ps_6_2 -denorm bad x"), "Unsupported value 'bad' for denorm option.");
        assert_eq!(
            error("-T ps_6_0 -denorm ftz x"),
            "denorm option is only allowed for shader model 6.2 and above."
        );
        assert!(parse_args(&args("-T ps_6_2 -denorm FTZ x")).is_ok());
        assert_eq!(
            error("-T ps_6_2 -HV 2016 -enable-16bit-types x"),
            "enable-16bit-types is only allowed for shader model >= 6.2 and HLSL Language >= 2018."
        );
        assert_eq!(
            error("-T ps_6_0 -HV 2019 x"),
            "Unknown HLSL version: 2019. Valid versions: 2016, 2017, 2018, 2021, 202x"
        );
        assert_eq!(
            error("-T ps_6_0 -HV 2015 x"),
            "HLSL Version 2015 is only supported for language services"
        );
        assert_eq!(error("-T ps_6_0 -Gec -HV 2021 x"), "/Gec is not supported with HLSLVersion 2021");
        assert_eq!(parse_args(&args("-T ps_6_0 -Gec x")).unwrap().hlsl_version, 2016);
        assert_eq!(
            error("-T ps_6_0 -auto-binding-space a x"),
            "Unsupported value 'a' for auto binding space."
        );
        assert_eq!(error("-T ps_6_0 -exports f x"), "library profile required when using -exports option");
        assert_eq!(
            error("-T lib_6_2 x"),
            "Must disable validation for unsupported lib_6_1 or lib_6_2 targets."
        );
        assert!(parse_args(&args("-T lib_6_2 -Vd x")).is_ok());
        assert_eq!(
            error("-T ps_6_0 -Zpr -Zpc x"),
            "Cannot specify /Zpr and /Zpc together, use /? to get usage information"
        );
        assert_eq!(error("-T ps_6_0 -Qembed_debug x"), "Must enable debug info with /Zi for /Qembed_debug");
        assert_eq!(error("-T ps_6_0 -Zss x"), "/Zss requires debug info (/Zi or /Zs)");
        assert_eq!(error("-T ps_6_0 -Zi -Zss -Zsb x"), "Cannot specify both /Zss and /Zsb");
        assert!(parse_args(&args("-T xs_6_0 x")).is_err());
    }

    #[test]
    fn options_refused_with_spirv() {
        for (option, name) in [
            ("-Fd file.ext", "-Fd"),
            ("-Fre r.bin", "-Fre"),
            ("-Gec -HV 2016", "-Gec"),
            ("-Qstrip_reflect", "-Qstrip_reflect"),
        ] {
            assert_eq!(spirv_error(option), format!("{name} is not supported with -spirv"));
            // Without -spirv they are DXIL options like any other.
            assert!(parse_args(&args(&format!("-T ps_6_2 {option} f.hlsl"))).is_ok(), "{option}");
        }
        // dxc names the first of its list, whatever the command-line order.
        assert_eq!(spirv_error("-Qstrip_reflect -Fd x"), "-Fd is not supported with -spirv");
    }

    #[test]
    fn optimization_levels_and_oconfig() {
        assert_eq!(spirv("-O1").unwrap().optimization_level, 1);
        let o = spirv("-Od").unwrap();
        assert!(o.disable_optimizations && o.optimization_level == 0);
        let o = spirv("-Oconfig=--loop-unroll,--scalar-replacement=100,-O").unwrap();
        assert_eq!(o.optimizer_passes, ["--loop-unroll", "--scalar-replacement=100", "-O"]);
        assert_eq!(spirv("-O0 -Oconfig=--loop-unroll").unwrap_err(), OptionError::OconfigWithO);
        assert_eq!(spirv_error("-Oconfig=--loop-unroll -O2"), "-Oconfig should not be used together with -O");
        assert_eq!(
            spirv_error("-Oconfig=--ccp -Oconfig=--ccp"),
            "-Oconfig should not be specified more than once"
        );
        assert_eq!(
            spirv_error("-Oconfig=--loop-unroll,--no-such-pass"),
            "failed to optimize SPIR-V: Unknown flag '--no-such-pass'. Use --help for a list of valid flags"
        );
        assert!(spirv_error("-Oconfig=-loop-unroll").contains("-loop-unroll is not a valid flag."));
        // `-Od` runs no optimizer, so dxc never looks at the passes.
        assert!(spirv("-Od -Oconfig=--no-such-pass").is_ok());
        // An empty list is no list.
        assert!(spirv("-Oconfig=").unwrap().optimizer_passes.is_empty());
    }

    #[test]
    fn binding_shifts() {
        let o = spirv("-fvk-b-shift 10 all -fvk-t-shift 1 2 -fvk-t-shift 3 4").unwrap();
        assert_eq!(
            o.binding_shifts,
            [
                BindingShift { register: 'b', shift: ShiftValue::Number(10), space: ShiftValue::All },
                BindingShift { register: 't', shift: ShiftValue::Number(1), space: ShiftValue::Number(2) },
                BindingShift { register: 't', shift: ShiftValue::Number(3), space: ShiftValue::Number(4) },
            ]
        );
        assert_eq!(spirv_error("-fvk-s-shift x 0"), "invalid -fvk-s-shift argument: x");
        assert_eq!(spirv_error("-fvk-u-shift 1 -2"), "negative -fvk-u-shift argument: -2");
        assert_eq!(
            spirv_error("-fvk-b-shift 1 all -fvk-b-shift 2 3"),
            "setting all sets via -fvk-b-shift argument should be used alone"
        );
        assert_eq!(
            spirv_error("-fvk-t-shift 1 0 -fvk-bind-register t0 0 0 0"),
            "-fvk-t-shift cannot be used together with -fvk-bind-register"
        );
        assert_eq!(
            parse_args(&args("-T ps_6_0 -spirv f -fvk-b-shift 1")).unwrap_err().to_string(),
            "Argument to '-fvk-b-shift' is missing."
        );
        assert_eq!(
            parse_args(&args("-T ps_6_0 -fvk-b-shift 1 0 f")).unwrap_err().to_string(),
            "-fvk-b-shift requires -spirv"
        );
    }

    #[test]
    fn fixed_bindings() {
        let o = spirv("-fvk-bind-sampler-heap 3 4 -fvk-bind-resource-heap 0 1").unwrap();
        assert_eq!(o.sampler_heap_binding, Some(FixedBinding { binding: 3, set: 4 }));
        assert_eq!(o.resource_heap_binding, Some(FixedBinding { binding: 0, set: 1 }));
        assert_eq!(o.counter_heap_binding, None);
        assert_eq!(
            spirv_error("-fvk-bind-sampler-heap -1 2"),
            "expected positive integer for -fvk-bind-sampler-heap, got: -1"
        );
        assert_eq!(
            spirv_error("-fvk-bind-counter-heap 1 -1"),
            "expected positive integer for -fvk-bind-counter-heap, got: -1"
        );
        assert_eq!(
            spirv_error("-fvk-bind-resource-heap a 2"),
            "invalid -fvk-bind-resource-heap argument: 'a'"
        );
        assert_eq!(spirv_error("-fvk-bind-sampler-heap 1 b"), "invalid -fvk-bind-sampler-heap argument: 'b'");
        assert_eq!(
            parse_args(&args("-T ps_6_6 -spirv f -fvk-bind-resource-heap 1")).unwrap_err().to_string(),
            "Argument to '-fvk-bind-resource-heap' is missing."
        );
        // The values are taken as they are: `-spirv` here is a bad number.
        assert_eq!(
            parse_args(&args("-T ps_6_6 -spirv -fvk-bind-counter-heap 1 -spirv f")).unwrap_err().to_string(),
            "invalid -fvk-bind-counter-heap argument: '-spirv'"
        );
        assert_eq!(
            parse_args(&args("-T ps_6_6 -fvk-bind-counter-heap 1 2 f")).unwrap_err().to_string(),
            "-fvk-bind-counter-heap requires -spirv"
        );
    }

    #[test]
    fn register_and_globals_bindings() {
        // `-vkbr` is an alias: one list, in command-line order.
        let o = spirv("-vkbr s3 1 3 4 -fvk-bind-register t5 0 1 2 -fvk-bind-globals 5 6").unwrap();
        assert_eq!(
            o.register_bindings,
            [
                RegisterBinding { register: "s3".into(), space: 1, binding: 3, set: 4 },
                RegisterBinding { register: "t5".into(), space: 0, binding: 1, set: 2 },
            ]
        );
        assert_eq!(
            spirv_error("-vkbr s3 1 3 4 -fvk-s-shift 1 0"),
            "-fvk-s-shift cannot be used together with -fvk-bind-register"
        );
        assert_eq!(o.globals_binding, Some(FixedBinding { binding: 5, set: 6 }));
        assert_eq!(
            spirv_error("-fvk-bind-register s10 5t 10 1"),
            "invalid -fvk-bind-register space number: 5t"
        );
        assert_eq!(
            spirv_error("-fvk-bind-register s10 0 -1 1"),
            "invalid -fvk-bind-register binding number: -1"
        );
        assert_eq!(spirv_error("-vkbr s10 0 10 ff"), "invalid -fvk-bind-register set number: ff");
        assert_eq!(spirv_error("-fvk-bind-globals x 0"), "invalid -fvk-bind-globals binding number: x");
        assert_eq!(spirv_error("-fvk-bind-globals 0 -3"), "invalid -fvk-bind-globals set number: -3");
        assert!(spirv("-fvk-bind-globals 0 -3").unwrap_err().is_compiler_error());
    }

    #[test]
    fn target_envs_extensions_and_debug_info() {
        for env in [
            "vulkan1.0",
            "vulkan1.1",
            "vulkan1.1spirv1.4",
            "vulkan1.2",
            "vulkan1.3",
            "vulkan1.4",
            "universal1.5",
        ] {
            assert!(spirv(&format!("-fspv-target-env={env}")).is_ok(), "{env}");
        }
        let error = spirv("-fspv-target-env=vulkan1.1spirv1.3").unwrap_err();
        assert_eq!(error.to_string(), "unknown SPIR-V target environment 'vulkan1.1spirv1.3'");
        assert!(error
            .render()
            .starts_with("error: unknown SPIR-V target environment 'vulkan1.1spirv1.3'\nnote:"));
        // Without -spirv there is no SPIR-V back end to refuse it.
        assert!(parse_args(&args("-T ps_6_0 -fspv-target-env=vulkan9 f")).is_ok());
        let o = spirv("-fspv-extension=KHR -fspv-extension=SPV_NV_ray_tracing").unwrap();
        assert_eq!(o.extensions, ["KHR", "SPV_NV_ray_tracing"]);
        assert_eq!(spirv_error("-fspv-extension=SPV_KHR_bogus"), "unknown SPIR-V extension 'SPV_KHR_bogus'");
        let o = spirv("-fspv-debug=file -fspv-debug=vulkan-with-source").unwrap();
        assert_eq!(o.spirv_debug, ["file", "vulkan-with-source"]);
        assert_eq!(spirv_error("-fspv-debug=t"), "unknown SPIR-V debug info control parameter: t");
        assert_eq!(spirv("-fspv-max-id 0x10").unwrap().max_id, 16);
        assert_eq!(spirv("-fspv-max-id FFFFFFFFFF").unwrap().max_id, u32::MAX);
        assert_eq!(spirv("").unwrap().max_id, DEFAULT_MAX_ID);
        assert_eq!(spirv_error("-fspv-max-id 12g"), "-fspv-max-id must be an integer in hexadecimal format");
    }

    #[test]
    fn errors_are_reported_like_dxc() {
        assert_eq!(
            OptionError::OconfigWithO.render(),
            "dxc failed : -Oconfig should not be used together with -O"
        );
        assert_eq!(
            OptionError::UnknownExtension("X".into()).render().lines().next(),
            Some("error: unknown SPIR-V extension 'X'")
        );
        assert!(OptionError::OconfigUnknownPass("x".into())
            .render()
            .starts_with("fatal error: failed to optimize"));
    }

    /// Untrusted command lines: every option in every spelling, followed by values
    /// of every shape, is accepted or refused, never a panic.
    #[test]
    fn any_command_line_is_answered() {
        const VALUES: &[&str] =
            &["", "0", "-1", "all", "x", "4294967296", "0x10", "--ccp", "-spirv", "/", "="];
        for spec in option_table::OPTIONS {
            for prefix in ["-", "--", "/"] {
                for count in 0..5 {
                    for value in VALUES {
                        let mut line = vec!["-T".to_string(), "lib_6_3".to_string(), "-spirv".to_string()];
                        line.push(format!("{prefix}{}", spec.name));
                        line.extend(std::iter::repeat_n(value.to_string(), count));
                        let _ = parse_args(&line);
                        line.push(format!("{prefix}{}{value}", spec.name));
                        let _ = parse_args(&line);
                    }
                }
            }
        }
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
        let parse = |line: &str| parse_args(&line.split_whitespace().map(String::from).collect::<Vec<_>>());
        assert!(!parse("-spirv -T ps_6_0 f.hlsl").unwrap().stage_io_alpha);
        assert!(parse("-spirv -T ps_6_0 -fvk-stage-io-order=alpha f.hlsl").unwrap().stage_io_alpha);
        assert!(
            !parse("-spirv -T ps_6_0 -fvk-stage-io-order=alpha -fvk-stage-io-order=decl f.hlsl")
                .unwrap()
                .stage_io_alpha
        );
        assert_eq!(
            parse("-spirv -T ps_6_0 -fvk-stage-io-order=reverse f.hlsl").unwrap_err().to_string(),
            "unknown Vulkan stage I/O location assignment order: reverse"
        );
    }
}
