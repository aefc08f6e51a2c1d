//! Generates `crates/ir/src/generated/ops.rs` from MLIR's SPIR-V and LLVM dialect definitions.
//!
//! The input is MLIR's ODS (TableGen) sources for the dialects, as Debian's `libmlir-22-dev`
//! ships them. `mlir-tblgen-22 --print-records` resolves every record of `SPIRVOps.td`,
//! `LLVMOps.td` and `LLVMIntrinsicOps.td`, read as one input (all class arguments
//! substituted, all `let`s applied); this module parses that dump and reads the ops, their
//! constraints (properties read as attributes) and the dialects' enums out of it.

use anyhow::{anyhow, bail, Context, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------
// The `--print-records` dump format.
// ---------------------------------------------------------------------------------------

/// A resolved TableGen value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// `?`
    Unset,
    Int(i64),
    /// A string or a `[{ … }]` code block (the dump prints both raw, without escapes).
    Str(String),
    /// `{ 1, 0, ? }`
    Bits(Vec<Val>),
    List(Vec<Val>),
    Dag(Dag),
    /// A record reference (`anonymous_1588`, `SPIRV_Dialect`) or any other expression the
    /// dump leaves unresolved (`Foo<0: …>`, `!op(…)`), as its text.
    Ref(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Dag {
    pub op: Box<Val>,
    /// `(value, $name)` pairs; an argument without a value prints as `?`.
    pub args: Vec<(Val, Option<String>)>,
}

/// One `def NAME { // classes… fields… }` block.
#[derive(Debug)]
pub struct Record {
    pub name: String,
    /// Every superclass, most general first (the dump's trailing comment).
    pub classes: Vec<String>,
    fields: HashMap<String, Val>,
}

impl Record {
    pub fn get(&self, field: &str) -> Option<&Val> {
        self.fields.get(field).filter(|v| **v != Val::Unset)
    }

    pub fn is_a(&self, class: &str) -> bool {
        self.classes.iter().any(|c| c == class)
    }

    pub fn str(&self, field: &str) -> Option<&str> {
        match self.get(field) {
            Some(Val::Str(s)) => Some(s),
            _ => None,
        }
    }

    pub fn int(&self, field: &str) -> Option<i64> {
        match self.get(field) {
            Some(Val::Int(i)) => Some(*i),
            _ => None,
        }
    }

    /// A `bit` field; TableGen prints bits as ints.
    pub fn bit(&self, field: &str) -> bool {
        self.int(field).is_some_and(|i| i != 0)
    }

    pub fn reference(&self, field: &str) -> Option<&str> {
        match self.get(field) {
            Some(Val::Ref(s)) => Some(s),
            _ => None,
        }
    }

    pub fn list(&self, field: &str) -> &[Val] {
        match self.get(field) {
            Some(Val::List(items)) => items,
            _ => &[],
        }
    }

    pub fn dag(&self, field: &str) -> Option<&Dag> {
        match self.get(field) {
            Some(Val::Dag(d)) => Some(d),
            _ => None,
        }
    }
}

/// All records of a dump, by name.
pub struct Records {
    pub by_name: HashMap<String, Record>,
}

impl Records {
    pub fn get(&self, name: &str) -> Result<&Record> {
        self.by_name.get(name).ok_or_else(|| anyhow!("no record named `{name}`"))
    }
}

/// Where a value ends: the characters that may follow it in its context.
#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    /// A field value: followed by `;` and the end of the line.
    Field,
    /// A list element: `, ` or `]`.
    List,
    /// A bits element: `, ` or ` }`.
    Bits,
    /// A dag operator: ` `, `)` or `:$name`.
    DagOp,
    /// A dag argument: `, `, `)` or `:$name`.
    DagArg,
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn line(&self) -> usize {
        self.text[..self.pos].matches('\n').count() + 1
    }

    fn error(&self, what: &str) -> anyhow::Error {
        let snippet: String = self.rest().chars().take(60).collect();
        anyhow!("record dump line {}: {what} at {snippet:?}", self.line())
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> Result<()> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.error(&format!("expected {s:?}")))
        }
    }

    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let rest = self.rest();
        let len = rest.find(|c: char| !f(c)).unwrap_or(rest.len());
        self.pos += len;
        &rest[..len]
    }

    fn ident(&mut self) -> Result<&'a str> {
        let s = self.take_while(|c| c.is_ascii_alphanumeric() || c == '_');
        if s.is_empty() {
            return Err(self.error("expected an identifier"));
        }
        Ok(s)
    }

    /// `def NAME {\t// classes` … `}`
    fn record(&mut self) -> Result<Record> {
        self.expect("def ")?;
        let header_end = self.rest().find('\n').ok_or_else(|| self.error("unterminated record header"))?;
        let header = &self.rest()[..header_end];
        let (name, classes) = match header.split_once(" {") {
            Some((name, tail)) => {
                let classes = tail.trim_start().strip_prefix("//").unwrap_or("");
                (name.to_string(), classes.split_whitespace().map(String::from).collect())
            }
            None => return Err(self.error("expected `{` after the record name")),
        };
        self.pos += header_end + 1;
        let mut fields = HashMap::new();
        loop {
            if self.eat("}") {
                // Either the end of the line or of the text.
                self.eat("\n");
                break;
            }
            self.expect("  ")?;
            self.eat("field ");
            // The type: `string`, `list<Trait>`, `bits<32>`, `Dialect`, …
            self.ident()?;
            if self.rest().starts_with('<') {
                self.balanced()?;
            }
            self.expect(" ")?;
            let field = self.ident()?.to_string();
            self.expect(" = ")?;
            let value = self.value(Ctx::Field)?;
            self.expect(";\n")?;
            fields.insert(field, value);
        }
        Ok(Record { name, classes, fields })
    }

    fn value(&mut self, ctx: Ctx) -> Result<Val> {
        let rest = self.rest();
        if self.eat("?") {
            Ok(Val::Unset)
        } else if self.eat("[{") {
            let end = self.rest().find("}]").ok_or_else(|| self.error("unterminated code block"))?;
            let code = self.rest()[..end].to_string();
            self.pos += end + 2;
            Ok(Val::Str(code))
        } else if rest.starts_with('"') {
            self.string(ctx)
        } else if self.eat("[") {
            let mut items = Vec::new();
            if !self.eat("]") {
                loop {
                    items.push(self.value(Ctx::List)?);
                    if self.eat("]") {
                        break;
                    }
                    self.expect(", ")?;
                }
            }
            Ok(Val::List(items))
        } else if self.eat("{ ") {
            let mut bits = Vec::new();
            loop {
                bits.push(self.value(Ctx::Bits)?);
                if self.eat(" }") {
                    break;
                }
                self.expect(", ")?;
            }
            Ok(Val::Bits(bits))
        } else if self.eat("{}") {
            Ok(Val::Bits(Vec::new()))
        } else if self.eat("(") {
            let op = Box::new(self.value(Ctx::DagOp)?);
            // An operator name (`(ins:$x …)`) is possible but meaningless here.
            if self.eat(":$") {
                self.ident()?;
            }
            let mut args = Vec::new();
            if !self.eat(")") {
                self.expect(" ")?;
                loop {
                    let value =
                        if self.rest().starts_with('$') { Val::Unset } else { self.value(Ctx::DagArg)? };
                    let name =
                        if self.eat(":$") || self.eat("$") { Some(self.ident()?.to_string()) } else { None };
                    args.push((value, name));
                    if self.eat(")") {
                        break;
                    }
                    self.expect(", ")?;
                }
            }
            Ok(Val::Dag(Dag { op, args }))
        } else if rest.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            let start = self.pos;
            self.eat("-");
            self.take_while(|c| c.is_ascii_digit());
            let text = &self.text[start..self.pos];
            Ok(Val::Int(text.parse().map_err(|_| self.error("bad integer"))?))
        } else if rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '!') {
            // A record name, possibly with template arguments or field accesses.
            let start = self.pos;
            loop {
                self.take_while(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '!');
                if self.rest().starts_with('<') || self.rest().starts_with('(') {
                    self.balanced()?;
                } else {
                    break;
                }
            }
            Ok(Val::Ref(self.text[start..self.pos].to_string()))
        } else {
            Err(self.error("unexpected value"))
        }
    }

    /// A quoted string. The dump prints string contents raw (no escapes; newlines and
    /// quotes appear as themselves), so the closing quote is the first one followed by
    /// what may follow a value in this context.
    fn string(&mut self, ctx: Ctx) -> Result<Val> {
        self.expect("\"")?;
        let rest = self.rest();
        let mut search = 0;
        loop {
            let at = search + rest[search..].find('"').ok_or_else(|| self.error("unterminated string"))?;
            let after = &rest[at + 1..];
            let closes = match ctx {
                Ctx::Field => after.starts_with(";\n"),
                Ctx::List => after.starts_with(", ") || after.starts_with(']'),
                Ctx::Bits => after.starts_with(", ") || after.starts_with(" }"),
                Ctx::DagOp => after.starts_with(' ') || after.starts_with(')') || after.starts_with(":$"),
                Ctx::DagArg => after.starts_with(", ") || after.starts_with(')') || after.starts_with(":$"),
            };
            if closes {
                self.pos += at + 1;
                return Ok(Val::Str(rest[..at].to_string()));
            }
            search = at + 1;
        }
    }

    /// Skips a bracketed group starting at `<`, `(`, `[` or `{`, nesting included.
    fn balanced(&mut self) -> Result<()> {
        let mut depth = 0usize;
        let mut in_string = false;
        for (i, c) in self.rest().char_indices() {
            match c {
                '"' => in_string = !in_string,
                _ if in_string => {}
                '<' | '(' | '[' | '{' => depth += 1,
                '>' | ')' | ']' | '}' => {
                    depth = depth.checked_sub(1).ok_or_else(|| self.error("unbalanced brackets"))?;
                    if depth == 0 {
                        self.pos += i + 1;
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
        Err(self.error("unbalanced brackets"))
    }
}

/// Parses the `Defs` section of a `--print-records` dump.
pub fn parse_records(dump: &str) -> Result<Records> {
    const DEFS: &str = "------------- Defs -----------------\n";
    let start = dump.find(DEFS).ok_or_else(|| anyhow!("not a record dump: no `Defs` section"))? + DEFS.len();
    let mut parser = Parser { text: dump, pos: start };
    let mut by_name = HashMap::new();
    while parser.pos < dump.len() {
        if parser.eat("\n") {
            continue;
        }
        let record = parser.record()?;
        if let Some(old) = by_name.insert(record.name.clone(), record) {
            bail!("record `{}` defined twice", old.name);
        }
    }
    Ok(Records { by_name })
}

// ---------------------------------------------------------------------------------------
// Obtaining the input.
// ---------------------------------------------------------------------------------------

/// The ODS files of the dialects, relative to an LLVM include directory: MLIR 22's SPIR-V
/// dialect and its LLVM dialect (ops and intrinsic ops). They are read as one TableGen
/// input, so every record (shared constraints, traits) has one name in one dump. The
/// SPIR-V file comes first, which keeps its anonymous records' numbers as they were when
/// it was read alone.
const ODS_FILES: &[&str] = &[
    "mlir/Dialect/SPIRV/IR/SPIRVOps.td",
    "mlir/Dialect/LLVMIR/LLVMOps.td",
    "mlir/Dialect/LLVMIR/LLVMIntrinsicOps.td",
];
/// The file whose presence says an include directory holds MLIR's ODS sources.
const OPS_TD: &str = ODS_FILES[0];
const SYSTEM_INCLUDE: &str = "/usr/lib/llvm-22/include";
const TBLGEN: &str = "mlir-tblgen-22";
const DEV_PACKAGE: &str = "libmlir-22-dev";

/// Where `gen-dialect` unpacks Debian's `libmlir-22-dev` when it is not installed.
fn download_dir() -> PathBuf {
    crate::target_dir().join("mlir-dev")
}

/// An include directory holding the dialect's ODS files, without downloading anything:
/// the installed package, or an earlier download under `target/mlir-dev`.
pub fn existing_include() -> Option<PathBuf> {
    [PathBuf::from(SYSTEM_INCLUDE), download_dir().join("usr/lib/llvm-22/include")]
        .into_iter()
        .find(|dir| ODS_FILES.iter().all(|file| dir.join(file).exists()))
}

/// The installed package's include directory, or Debian's `libmlir-22-dev` downloaded and
/// unpacked under `target/mlir-dev` (the package is large; it is only unpacked, never installed).
fn obtain_include() -> Result<PathBuf> {
    if let Some(dir) = existing_include() {
        return Ok(dir);
    }
    let dir = download_dir();
    std::fs::create_dir_all(&dir)?;
    let deb = match find_deb(&dir)? {
        Some(deb) => deb,
        None => {
            println!("downloading {DEV_PACKAGE} into {}", dir.display());
            run_command(
                std::process::Command::new("apt-get").args(["download", DEV_PACKAGE]).current_dir(&dir),
            )?;
            find_deb(&dir)?.ok_or_else(|| anyhow!("apt-get download left no {DEV_PACKAGE} .deb"))?
        }
    };
    println!("unpacking {}", deb.display());
    run_command(std::process::Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&dir))?;
    let include = dir.join("usr/lib/llvm-22/include");
    if !include.join(OPS_TD).exists() {
        bail!("{} does not contain {OPS_TD}", deb.display());
    }
    Ok(include)
}

fn find_deb(dir: &Path) -> Result<Option<PathBuf>> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with(&format!("{DEV_PACKAGE}_")) && name.ends_with(".deb") {
            return Ok(Some(path));
        }
    }
    Ok(None)
}

fn run_command(command: &mut std::process::Command) -> Result<()> {
    let status = command.status().with_context(|| format!("running {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed ({status})");
    }
    Ok(())
}

/// `mlir-tblgen-22 --print-records` over the dialects' ODS files, included from one input
/// given on standard input.
pub fn dump_records(include: &Path) -> Result<String> {
    use std::io::Write;
    let input: String = ODS_FILES.iter().map(|file| format!("include \"{file}\"\n")).collect();
    let mut child = std::process::Command::new(TBLGEN)
        .arg("--print-records")
        .arg("-I")
        .arg(include)
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .with_context(|| format!("running {TBLGEN} (install Debian's mlir-22-tools)"))?;
    child.stdin.take().ok_or_else(|| anyhow!("no stdin"))?.write_all(input.as_bytes())?;
    let output = child.wait_with_output()?;
    if !output.status.success() {
        bail!("{TBLGEN} failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    Ok(String::from_utf8(output.stdout)?)
}

// ---------------------------------------------------------------------------------------
// `cargo xtask gen-dialect`
// ---------------------------------------------------------------------------------------

const GENERATED_PATH: &str = "crates/ir/src/generated/ops.rs";

pub fn run(args: &[String]) -> Result<()> {
    let check = args.iter().any(|a| a == "--check");
    let include = match crate::option_value(args, "--mlir-include") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if !dir.join(OPS_TD).exists() {
                bail!("{} not found", dir.join(OPS_TD).display());
            }
            dir
        }
        None => obtain_include()?,
    };
    let generated = generate(&dump_records(&include)?)?;
    let text = crate::rustfmt(&generated.text)?;
    let target = crate::workspace_root().join(GENERATED_PATH);
    if check {
        let committed = std::fs::read_to_string(&target).context("reading committed tables")?;
        if committed != text {
            bail!("{GENERATED_PATH} is stale: run `cargo xtask gen-dialect`");
        }
        println!("{GENERATED_PATH} is up to date");
    } else {
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&target, text)?;
        println!("wrote {GENERATED_PATH}");
    }
    let s = &generated.summary;
    println!(
        "{} ops: {} with a declarative assembly format ({} of them also set hasCustomAssemblyFormat, \
         which the declarative format overrides), {} with a custom parser/printer, {} in the generic \
         form only; {} type constraints, {} attribute constraints, {} enum attributes",
        s.ops,
        s.declarative,
        s.declarative_and_custom,
        s.custom.len(),
        s.generic_only,
        s.type_constraints,
        s.attr_constraints,
        s.enum_attrs
    );
    println!("custom-format ops: {}", s.custom.join(" "));
    println!("ops derived from the Khronos grammar: {}", s.derived.join(" "));
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Reading the dialect out of the records.
// ---------------------------------------------------------------------------------------

/// What `generate` produced, besides the text.
#[derive(Debug, Default)]
pub struct Summary {
    pub ops: usize,
    pub declarative: usize,
    pub declarative_and_custom: usize,
    /// Full names of the ops with a custom parser/printer.
    pub custom: Vec<String>,
    /// Ops with neither (generic form only, as `llvm.intr.abs`).
    pub generic_only: usize,
    pub type_constraints: usize,
    pub attr_constraints: usize,
    pub enum_attrs: usize,
    /// Full names of the ops derived from the Khronos grammar (not in MLIR 22's ODS).
    pub derived: Vec<String>,
}

pub struct Generated {
    pub text: String,
    pub summary: Summary,
}

/// The dialects' ODS records, in the order of `ODS_FILES`.
const DIALECT_RECORDS: &[&str] = &["SPIRV_Dialect", "LLVM_Dialect"];

pub fn generate(dump: &str) -> Result<Generated> {
    let records = parse_records(dump)?;
    // Dialect record -> the name MLIR gives the dialect (`spirv`, `llvm`).
    let mut dialects: HashMap<&str, &str> = HashMap::new();
    for record in DIALECT_RECORDS {
        let name = records.get(record)?.str("name").ok_or_else(|| anyhow!("{record} has no name"))?;
        dialects.insert(record, name);
    }
    let mut g = Gen {
        records: &records,
        op_classes: HashMap::new(),
        enum_index: HashMap::new(),
        type_constraints: HashMap::new(),
        attr_constraints: HashMap::new(),
        preds: HashMap::new(),
        preds_src: String::new(),
        summary: Summary::default(),
    };

    // Ops, by full name.
    let mut ops: Vec<(String, &Record, Option<Derived>)> = records
        .by_name
        .values()
        .filter_map(|r| {
            let dialect = dialects.get(r.reference("opDialect")?)?;
            Some((format!("{dialect}.{}", r.str("opName")?), r, None))
        })
        .collect();
    ops.sort_by(|a, b| a.0.cmp(&b.0));
    // Instructions of the Khronos grammar newer than MLIR 22's ODS, shaped like an ODS op.
    let derived = derived_ops(&records, &ops)?;
    g.summary.derived = derived.iter().map(|(name, _, _)| name.clone()).collect();
    ops.extend(derived);
    ops.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some(w) = ops.windows(2).find(|w| w[0].0 == w[1].0) {
        bail!("two ops named {}", w[0].0);
    }
    // C++ op class names (`SelectionOp`) to op names, for traits like `HasParent<…>`.
    for (name, r, derived) in &ops {
        if derived.is_none() {
            g.op_classes.insert(cpp_class_name(&r.name).to_string(), name.clone());
        }
    }
    // Enum attributes of the dialect, by record name.
    let mut enum_attrs: Vec<&Record> = records
        .by_name
        .values()
        .filter(|r| {
            // Dialect enum attributes (`#spirv.storage_class<…>`, `#llvm.fastmath<…>`), and the
            // LLVM dialect's other enums (stored as plain integers, `I64EnumAttr`: `llvm.icmp`'s
            // predicate, atomic orderings; or as properties: GEP and overflow flags), whose
            // records are their own enum info.
            (r.is_a("EnumAttr") && r.reference("dialect").is_some_and(|d| dialects.contains_key(d)))
                || (r.is_a("EnumInfo")
                    && !r.is_a("EnumAttr")
                    && r.str("cppNamespace").is_some_and(|ns| ns.starts_with("::mlir::LLVM"))
                    && r.get("enumerants").is_some())
        })
        .collect();
    enum_attrs.sort_by(|a, b| a.name.cmp(&b.name));
    g.enum_index = enum_attrs.iter().enumerate().map(|(i, r)| (r.name.clone(), i)).collect();

    let mut ops_src = String::new();
    for (name, op, derived) in &ops {
        ops_src
            .push_str(&g.op(name, op, derived.as_ref()).with_context(|| format!("op {name} ({})", op.name))?);
    }

    let mut out = String::new();
    out.push_str(
        "// @generated by `cargo xtask gen-dialect` from MLIR 22's SPIR-V and LLVM dialect definitions\n",
    );
    out.push_str("// (ODS records of SPIRVOps.td, LLVMOps.td and LLVMIntrinsicOps.td, as\n");
    out.push_str("// `mlir-tblgen-22 --print-records` resolves them).\n");
    out.push_str("// Do not edit by hand.\n");
    out.push_str("#![allow(clippy::all)]\n");
    out.push_str("use crate::opdef::*;\n\n");
    let names: Vec<String> = DIALECT_RECORDS.iter().map(|r| format!("{:?}", dialects[r])).collect();
    out.push_str(&format!(
        "/// The dialects of the tables, the prefixes of their op names.\npub const DIALECTS: [&str; {}] = [{}];\n\n",
        names.len(),
        names.join(", ")
    ));

    // Enum attributes.
    out.push_str(&format!("pub static ENUM_ATTRS: [EnumAttrDef; {}] = [\n", enum_attrs.len()));
    for r in &enum_attrs {
        out.push_str(&g.enum_attr(r).with_context(|| format!("enum attribute {}", r.name))?);
    }
    out.push_str("];\n\n");

    // Constraints: the ones ops use, closed over `AnyTypeOf` alternatives. Each table is
    // sorted by record name.
    let mut pending: Vec<String> = g.type_constraints.keys().cloned().collect();
    while let Some(name) = pending.pop() {
        let r = records.get(&name)?;
        if r.is_a("AnyTypeOf") {
            for alt in r.list("allowedTypes") {
                let alt = ref_name(alt)?;
                if g.type_constraints.insert(alt.to_string(), 0).is_none() {
                    pending.push(alt.to_string());
                }
            }
        }
    }
    let mut type_names: Vec<String> = g.type_constraints.keys().cloned().collect();
    type_names.sort();
    for (i, n) in type_names.iter().enumerate() {
        g.type_constraints.insert(n.clone(), i);
    }
    let mut attr_names: Vec<String> = g.attr_constraints.keys().cloned().collect();
    attr_names.sort();
    for (i, n) in attr_names.iter().enumerate() {
        g.attr_constraints.insert(n.clone(), i);
    }
    let ops_src = g.patch_indices(&ops_src);

    out.push_str(&format!("pub static TYPE_CONSTRAINTS: [TypeConstraint; {}] = [\n", type_names.len()));
    for n in &type_names {
        out.push_str(&g.type_constraint(records.get(n)?).with_context(|| format!("type constraint {n}"))?);
    }
    out.push_str("];\n\n");
    out.push_str(&format!("pub static ATTR_CONSTRAINTS: [AttrConstraint; {}] = [\n", attr_names.len()));
    for n in &attr_names {
        out.push_str(
            &g.attr_constraint(records.get(n)?).with_context(|| format!("attribute constraint {n}"))?,
        );
    }
    out.push_str("];\n\n");

    out.push_str(&format!("/// Sorted by name.\npub static OP_DEFS: [OpDef; {}] = [\n", ops.len()));
    out.push_str(&ops_src);
    out.push_str("];\n\n");

    // Predicates, shared as constants.
    out.push_str("// Constraint and trait predicates, one constant per ODS `Pred` record.\n");
    out.push_str(&g.preds_src);

    g.summary.ops = ops.len();
    g.summary.type_constraints = type_names.len();
    g.summary.attr_constraints = attr_names.len();
    g.summary.enum_attrs = enum_attrs.len();
    Ok(Generated { text: out, summary: g.summary })
}

struct Gen<'a> {
    records: &'a Records,
    /// C++ op class name → full op name.
    op_classes: HashMap<String, String>,
    /// Enum attribute record → index into `ENUM_ATTRS`.
    enum_index: HashMap<String, usize>,
    /// Constraint record → index (assigned once all are known; op sources hold
    /// placeholders until then).
    type_constraints: HashMap<String, usize>,
    attr_constraints: HashMap<String, usize>,
    /// Pred record → constant name, and the constants' source.
    preds: HashMap<String, String>,
    preds_src: String,
    summary: Summary,
}

/// Placeholders for constraint indices in op sources: `@T<record>@` and `@A<record>@`.
const PLACEHOLDER: char = '@';

impl<'a> Gen<'a> {
    /// One op's table entry; a `derived` op takes `op`'s shape with its own name and
    /// summary.
    fn op(&mut self, name: &str, op: &Record, derived: Option<&Derived>) -> Result<String> {
        let spirv_name = if op.bit("hasOpcode") { op.str("spirvOpName") } else { None };
        // Some op summaries are code blocks over several lines; they are collapsed to one.
        // (Constraint summaries, which diagnostics quote, are kept verbatim.)
        let summary = match derived {
            Some(d) => d.summary.clone(),
            None => op.str("summary").unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" "),
        };

        // Arguments: operands and attributes interleaved.
        let mut arguments = Vec::new();
        let mut operands = Vec::new();
        let mut attributes = Vec::new();
        let args = op.dag("arguments").ok_or_else(|| anyhow!("no arguments dag"))?;
        for (value, arg_name) in &args.args {
            let constraint = self.unwrap_variable(self.records.get(ref_name(value)?)?)?;
            let arg_name = arg_name.as_deref().unwrap_or("");
            if constraint.is_a("TypeConstraint") {
                arguments.push(format!("Argument::Operand({})", operands.len()));
                operands.push(self.operand(arg_name, constraint));
            } else if constraint.is_a("Attr") || constraint.is_a("Property") {
                // A property (`LLVM_IntegerOverflowFlagsProp`) is stored natively by MLIR but
                // reads and prints as an attribute of the op's property dictionary.
                arguments.push(format!("Argument::Attribute({})", attributes.len()));
                self.attr_constraints.entry(constraint.name.clone()).or_insert(0);
                attributes.push(format!(
                    "AttrDef {{ name: {arg_name:?}, constraint: {PLACEHOLDER}A{}{PLACEHOLDER} }}",
                    constraint.name
                ));
            } else {
                bail!(
                    "argument `{arg_name}` is neither a type nor an attribute constraint ({})",
                    constraint.name
                );
            }
        }
        let mut results = Vec::new();
        if let Some(dag) = op.dag("results") {
            for (value, result_name) in &dag.args {
                let constraint = self.unwrap_variable(self.records.get(ref_name(value)?)?)?;
                if !constraint.is_a("TypeConstraint") {
                    bail!("result {result_name:?} is not a type constraint");
                }
                results.push(self.operand(result_name.as_deref().unwrap_or(""), constraint));
            }
        }

        let mut regions = Vec::new();
        if let Some(dag) = op.dag("regions") {
            for (value, region_name) in &dag.args {
                let mut constraint = self.records.get(ref_name(value)?)?;
                let variadic = constraint.is_a("VariadicRegion");
                if variadic {
                    constraint = self.records.get(
                        constraint
                            .reference("region")
                            .ok_or_else(|| anyhow!("VariadicRegion without region"))?,
                    )?;
                }
                if !constraint.is_a("Region") {
                    bail!("region {region_name:?} is not a region constraint");
                }
                let max_blocks = match constraint.int("blocks") {
                    Some(n) if constraint.is_a("SizedRegion") => format!("Some({n})"),
                    _ => "None".into(),
                };
                regions.push(format!(
                    "RegionDef {{ name: {:?}, max_blocks: {max_blocks}, variadic: {variadic} }}",
                    region_name.as_deref().unwrap_or("")
                ));
            }
        }
        let mut successors = Vec::new();
        if let Some(dag) = op.dag("successors") {
            for (value, successor_name) in &dag.args {
                let constraint = self.records.get(ref_name(value)?)?;
                if !constraint.is_a("Successor") {
                    bail!("successor {successor_name:?} is not a successor constraint");
                }
                successors.push(format!(
                    "SuccessorDef {{ name: {:?}, variadic: {} }}",
                    successor_name.as_deref().unwrap_or(""),
                    constraint.is_a("VariadicSuccessor")
                ));
            }
        }

        // The declarative format wins over `hasCustomAssemblyFormat`, as in mlir-tblgen.
        let format = op.str("assemblyFormat").map(normalize_format).filter(|f| !f.is_empty());
        let custom = op.bit("hasCustomAssemblyFormat");
        match (&format, custom) {
            (Some(_), true) => {
                self.summary.declarative += 1;
                self.summary.declarative_and_custom += 1;
            }
            (Some(_), false) => self.summary.declarative += 1,
            (None, true) => self.summary.custom.push(name.to_string()),
            // MLIR prints and parses such an op in the generic form only.
            (None, false) => self.summary.generic_only += 1,
        }

        let mut traits = Vec::new();
        let mut pred_traits = Vec::new();
        for t in op.list("traits") {
            let record = self.records.get(ref_name(t)?)?;
            let trait_name = self.trait_name(record)?;
            if record.is_a("PredOpTrait") {
                let pred = self.pred_field(record)?;
                pred_traits.push(format!(
                    "PredTraitDef {{ name: {trait_name:?}, summary: {:?}, pred: {pred} }}",
                    record.str("summary").unwrap_or("")
                ));
            }
            traits.push(format!("{trait_name:?}"));
        }

        let availability = if op.bit("autogenAvailability") { self.availability(op)? } else { String::new() };

        let fields = [
            format!("name: {name:?}"),
            format!("spirv_name: {}", opt_str(spirv_name)),
            format!("summary: {summary:?}"),
            format!("arguments: &[{}]", arguments.join(", ")),
            format!("operands: &[{}]", operands.join(", ")),
            format!("attributes: &[{}]", attributes.join(", ")),
            format!("results: &[{}]", results.join(", ")),
            format!("regions: &[{}]", regions.join(", ")),
            format!("successors: &[{}]", successors.join(", ")),
            format!("assembly_format: {}", opt_str(format.as_deref())),
            format!("traits: &[{}]", traits.join(", ")),
            format!("pred_traits: &[{}]", pred_traits.join(", ")),
            format!("has_verifier: {}", op.bit("hasVerifier")),
            format!("availability: &[{availability}]"),
        ];
        Ok(format!("    OpDef {{\n        {},\n    }},\n", fields.join(",\n        ")))
    }

    /// `Arg<…>`/`Res<…>` (ODS `OpVariable`s carrying decorators such as memory effects)
    /// stand for the constraint they wrap.
    fn unwrap_variable(&self, r: &'a Record) -> Result<&'a Record> {
        if r.is_a("OpVariable") {
            let inner = r.reference("constraint").ok_or_else(|| anyhow!("{}: no constraint", r.name))?;
            return self.records.get(inner);
        }
        Ok(r)
    }

    fn operand(&mut self, name: &str, constraint: &Record) -> String {
        // `Variadic<…>`/`Optional<…>` records are constraints of their own (with the
        // "variadic of …" summary MLIR's diagnostics quote); the arity comes from the class.
        let arity = if constraint.is_a("Variadic") {
            "Variadic"
        } else if constraint.is_a("Optional") {
            "Optional"
        } else {
            "Single"
        };
        self.type_constraints.entry(constraint.name.clone()).or_insert(0);
        format!(
            "OperandDef {{ name: {name:?}, arity: Arity::{arity}, constraint: {PLACEHOLDER}T{}{PLACEHOLDER} }}",
            constraint.name
        )
    }

    /// Replaces `@T<record>@`/`@A<record>@` with table indices.
    fn patch_indices(&self, src: &str) -> String {
        let mut out = String::with_capacity(src.len());
        let mut parts = src.split(PLACEHOLDER);
        out.push_str(parts.next().unwrap_or(""));
        while let (Some(key), Some(text)) = (parts.next(), parts.next()) {
            let index = match key.split_at(1) {
                ("T", name) => self.type_constraints[name],
                (_, name) => self.attr_constraints[name],
            };
            out.push_str(&index.to_string());
            out.push_str(text);
        }
        out
    }

    /// A readable name for a trait record.
    ///
    /// - Named records keep their ODS name (`Pure`, `Commutative`, `InFunctionScope`).
    /// - Anonymous ones are template instantiations: an interface is named by its C++
    ///   interface (`QueryMinVersionInterface`); a native trait by its C++ trait without
    ///   namespaces and `::Impl`, op classes in its arguments replaced by op names
    ///   (`HasParent<spirv.mlir.selection, spirv.mlir.loop>`); a `PredOpTrait` by its
    ///   most specific class, with the operand names it relates where ODS records them
    ///   (`AllTypesMatch<operand1, result>`, `TypesMatchWith<vector, result>`); a trait
    ///   list by the member that carries its parameters
    ///   (`SingleBlockImplicitTerminator<spirv.mlir.merge>`), else by its class.
    fn trait_name(&self, t: &Record) -> Result<String> {
        if !t.name.starts_with("anonymous_") {
            return Ok(t.name.clone());
        }
        let most_specific = t.classes.last().cloned().unwrap_or_default();
        if let Some(interface) = t.str("cppInterfaceName") {
            return Ok(interface.to_string());
        }
        if let Some(native) = t.str("trait") {
            return Ok(self.native_trait_name(native));
        }
        if t.is_a("PredOpTrait") {
            let values: Vec<&str> = t
                .list("values")
                .iter()
                .filter_map(|v| if let Val::Str(s) = v { Some(s.as_str()) } else { None })
                .collect();
            if !values.is_empty() {
                return Ok(format!("{most_specific}<{}>", values.join(", ")));
            }
            if let (Some(lhs), Some(rhs)) = (t.str("lhs"), t.str("rhs")) {
                return Ok(format!("{most_specific}<{lhs}, {rhs}>"));
            }
            return Ok(most_specific);
        }
        if t.is_a("TraitList") {
            for member in t.list("traits") {
                let member = self.records.get(ref_name(member)?)?;
                let name = self.trait_name(member)?;
                if name.starts_with(&format!("{most_specific}<")) {
                    return Ok(name);
                }
            }
        }
        Ok(most_specific)
    }

    /// `::mlir::OpTrait::HasParent<SelectionOp, LoopOp>::Impl` → `HasParent<spirv.mlir.selection, spirv.mlir.loop>`.
    fn native_trait_name(&self, text: &str) -> String {
        let text = text.trim();
        let text = text.strip_suffix("::Impl").or_else(|| text.strip_suffix("::Trait")).unwrap_or(text);
        let (head, args) = match text.find('<') {
            Some(i) if text.ends_with('>') => (&text[..i], Some(&text[i + 1..text.len() - 1])),
            _ => (text, None),
        };
        let head = head.rsplit("::").next().unwrap_or(head);
        match args {
            None => head.to_string(),
            Some(args) => {
                let args: Vec<String> = args
                    .split(',')
                    .map(|a| {
                        let a = a.trim();
                        let short = a.rsplit("::").next().unwrap_or(a);
                        self.op_classes.get(short).cloned().unwrap_or_else(|| a.to_string())
                    })
                    .collect();
                format!("{head}<{}>", args.join(", "))
            }
        }
    }

    /// `(min, max, extensions, capabilities)` from the op's availability records.
    ///
    /// The records are instances of `MinVersion<case>`, `MaxVersion<case>`, `Extension<[…]>`
    /// and `Capability<[…]>`. The class arguments are not fields, so they are read back from
    /// the C++ the classes build of them: `instance` (`::mlir::spirv::Version::V_1_3`) for
    /// versions, the static array in `instancePreparation` for extensions and capabilities.
    /// Each `Extension`/`Capability` record is one group (any member satisfies it).
    fn availability(&self, op: &Record) -> Result<String> {
        let mut min = "None".to_string();
        let mut max = "None".to_string();
        let mut extensions = Vec::new();
        let mut capabilities = Vec::new();
        for a in op.list("availability") {
            let a = self.records.get(ref_name(a)?)?;
            if a.is_a("MinVersionBase") || a.is_a("MaxVersionBase") {
                let instance = a.str("instance").ok_or_else(|| anyhow!("{}: no instance", a.name))?;
                let version = parse_version(instance)?;
                if a.is_a("MinVersionBase") {
                    min = version;
                } else {
                    max = version;
                }
            } else if a.is_a("Extension") || a.is_a("Capability") {
                let group = static_array(a.str("instancePreparation").unwrap_or(""))?;
                if !group.is_empty() {
                    let target = if a.is_a("Extension") { &mut extensions } else { &mut capabilities };
                    target.push(format!("&{group:?}"));
                }
            } else {
                bail!("unknown availability record {} ({})", a.name, a.classes.join(" "));
            }
        }
        Ok(format!(
            "OpAvailability {{ min_version: {min}, max_version: {max}, extensions: &[{}], capabilities: &[{}] }}",
            extensions.join(", "),
            capabilities.join(", ")
        ))
    }

    fn type_constraint(&mut self, r: &Record) -> Result<String> {
        let pred = self.pred_field(r)?;
        let mut allowed = Vec::new();
        if r.is_a("AnyTypeOf") {
            for alt in r.list("allowedTypes") {
                allowed.push(self.type_constraints[ref_name(alt)?].to_string());
            }
        }
        Ok(format!(
            "    TypeConstraint {{ record: {:?}, summary: {:?}, pred: {pred}, allowed: &[{}] }},\n",
            r.name,
            r.str("summary").unwrap_or(""),
            allowed.join(", ")
        ))
    }

    fn attr_constraint(&mut self, r: &Record) -> Result<String> {
        let pred = self.pred_field(r)?;
        // `OptionalAttr<…>`/`DefaultValuedAttr<…>` wrap their attribute in `baseAttr`.
        let mut enum_attr = None;
        let mut base = Some(r);
        while let Some(b) = base {
            if let Some(&i) = self.enum_index.get(&b.name) {
                enum_attr = Some(i);
                break;
            }
            base = match b.reference("baseAttr") {
                Some(name) => Some(self.records.get(name)?),
                None => None,
            };
        }
        Ok(format!(
            "    AttrConstraint {{ record: {:?}, summary: {:?}, pred: {pred}, storage_type: {:?}, optional: {}, \
             default_value: {}, enum_attr: {}, property: {} }},\n",
            r.name,
            r.str("summary").unwrap_or(""),
            r.str("storageType").unwrap_or("").trim(),
            r.bit("isOptional"),
            opt_str(r.str("defaultValue").filter(|d| !d.trim().is_empty())),
            enum_attr.map_or("None".to_string(), |i| format!("Some({i})")),
            r.is_a("Property")
        ))
    }

    fn enum_attr(&self, r: &Record) -> Result<String> {
        // Each case carries MLIR's own availability (which differs from the Khronos
        // grammar for some values), as `OpAvailability`.
        let info = match r.reference("enum") {
            Some(name) => self.records.get(name)?,
            None if r.is_a("EnumInfo") => r,
            None => bail!("no enum"),
        };
        let mut cases = Vec::new();
        for case in info.list("enumerants") {
            let case = self.records.get(ref_name(case)?)?;
            let symbol = case.str("symbol").ok_or_else(|| anyhow!("{}: no symbol", case.name))?;
            let value = case.int("value").ok_or_else(|| anyhow!("{}: no value", case.name))?;
            cases.push(format!(
                "EnumCaseDef {{ symbol: {symbol:?}, str: {:?}, value: {}, availability: {} }}",
                case.str("str").unwrap_or(symbol),
                // A negative case (`RoundInvalid = -1`) is its 64-bit two's complement.
                value as u64,
                self.availability(case)?
            ));
        }
        Ok(format!(
            "    EnumAttrDef {{ record: {:?}, mnemonic: {}, enum_name: {:?}, bit_enum: {}, cases: &[{}] }},\n",
            r.name,
            opt_str(r.str("mnemonic")),
            info.str("className").ok_or_else(|| anyhow!("no className"))?,
            info.is_a("BitEnumBase") || info.is_a("BitEnumAttr"),
            cases.join(", ")
        ))
    }

    /// The constant for a record's `predicate` field.
    fn pred_field(&mut self, r: &Record) -> Result<String> {
        let name = r.reference("predicate").ok_or_else(|| anyhow!("{} has no predicate", r.name))?;
        self.pred(name)
    }

    /// The constant (`P12`) for a `Pred` record, emitting it and its children on first use.
    fn pred(&mut self, name: &str) -> Result<String> {
        if let Some(c) = self.preds.get(name) {
            return Ok(c.clone());
        }
        let r = self.records.get(name)?;
        let value = if r.is_a("CPred") {
            format!("Pred::Leaf({:?})", r.str("predExpr").ok_or_else(|| anyhow!("{name}: no predExpr"))?)
        } else if r.is_a("CombinedPred") {
            let mut children = Vec::new();
            for c in r.list("children") {
                children.push(self.pred(ref_name(c)?)?);
            }
            let only = |children: &[String]| -> Result<String> {
                match children {
                    [c] => Ok(c.clone()),
                    _ => bail!("{name}: expected one child"),
                }
            };
            match r.reference("kind").unwrap_or("") {
                "PredCombinerAnd" => format!("Pred::And(&[{}])", children.join(", ")),
                "PredCombinerOr" => format!("Pred::Or(&[{}])", children.join(", ")),
                "PredCombinerNot" => format!("Pred::Not(&{})", only(&children)?),
                "PredCombinerConcat" => format!(
                    "Pred::Concat {{ prefix: {:?}, child: &{}, suffix: {:?} }}",
                    r.str("prefix").unwrap_or(""),
                    only(&children)?,
                    r.str("suffix").unwrap_or("")
                ),
                "PredCombinerSubstLeaves" => format!(
                    "Pred::SubstLeaves {{ pattern: {:?}, replacement: {:?}, child: &{} }}",
                    r.str("pattern").unwrap_or(""),
                    r.str("replacement").unwrap_or(""),
                    only(&children)?
                ),
                other => bail!("{name}: unknown predicate combiner {other:?}"),
            }
        } else {
            bail!("{name} is not a predicate ({})", r.classes.join(" "));
        };
        let constant = format!("P{}", self.preds.len());
        self.preds.insert(name.to_string(), constant.clone());
        self.preds_src.push_str(&format!("const {constant}: Pred = {value};\n"));
        Ok(constant)
    }
}

/// ODS derives an op's C++ class from its record name minus the dialect prefix
/// (`SPIRV_SelectionOp` → `SelectionOp`).
fn cpp_class_name(record: &str) -> &str {
    match record.split_once('_') {
        Some((_, rest)) if !rest.is_empty() => rest,
        _ => record,
    }
}

fn ref_name(v: &Val) -> Result<&str> {
    match v {
        Val::Ref(name) => Ok(name),
        other => bail!("expected a record reference, got {other:?}"),
    }
}

fn opt_str(s: Option<&str>) -> String {
    s.map_or("None".to_string(), |s| format!("Some({s:?})"))
}

/// `::mlir::spirv::Version::V_1_3` → `Some((1, 3))`.
fn parse_version(instance: &str) -> Result<String> {
    let symbol = instance.rsplit("::").next().unwrap_or(instance);
    let parts: Vec<&str> = symbol.trim_start_matches("V_").split('_').collect();
    match parts[..] {
        [major, minor] => Ok(format!("Some(({}, {}))", major.parse::<u8>()?, minor.parse::<u8>()?)),
        _ => bail!("unexpected version {instance:?}"),
    }
}

/// The enumerators of `static const T name[] = {T::A, T::B}; …` → `["A", "B"]`.
fn static_array(code: &str) -> Result<Vec<String>> {
    if code.trim().is_empty() {
        return Ok(Vec::new());
    }
    let start = code.find("= {").ok_or_else(|| anyhow!("unexpected availability code {code:?}"))? + 3;
    let len = code[start..].find('}').ok_or_else(|| anyhow!("unexpected availability code {code:?}"))?;
    Ok(code[start..start + len]
        .split(',')
        .map(|item| {
            let item = item.trim();
            item.rsplit("::").next().unwrap_or(item).to_string()
        })
        .filter(|s| !s.is_empty())
        .collect())
}

/// Collapses whitespace outside backquoted literals (where it is insignificant) to one space.
fn normalize_format(format: &str) -> String {
    let mut out = String::new();
    let mut in_literal = false;
    let mut pending_space = false;
    for c in format.trim().chars() {
        if !in_literal && c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        if c == '`' {
            in_literal = !in_literal;
        }
        out.push(c);
    }
    out
}

// ---------------------------------------------------------------------------------------
// Ops derived from the Khronos grammar.
// ---------------------------------------------------------------------------------------

/// An op MLIR 22's ODS lacks, derived from a grammar instruction: it takes an ODS op's
/// shape (operands, attributes, results, format, traits, availability) with its own name
/// and summary. The (de)serializer finds its instruction by name in the grammar, as for
/// every `spirv.CL.*` op.
#[derive(Debug, Clone)]
pub struct Derived {
    summary: String,
}

/// The last opcode of OpenCL.std's math group (section 2.1 of the OpenCL extended
/// instruction set specification).
const OPENCL_MATH_LAST: u32 = 94;
/// The grammar's operand names for operands of the instruction's float gentype (`x`, `y`;
/// `a`, `b`, `c` of fma and mad). Others name a pointer or an integer (`ptr`, `exp`, `k`,
/// `nancode`, `quo`, ...).
const OPENCL_FLOAT_OPERAND_NAMES: &[&str] = &["x", "y", "a", "b", "c"];
/// Math instructions whose operands are named like float operands but whose types the
/// specification makes integers (the grammar records no types): `pown(x, int y)`,
/// `rootn(x, int y)`, `int ilogb(x)`.
const OPENCL_INTEGER_TYPED: &[&str] = &["ilogb", "pown", "rootn"];
/// Math instructions defined for `float` only, not for every float gentype as the
/// dialect's float constraints are: no ODS op has their shape.
const OPENCL_FLOAT32_ONLY_PREFIXES: &[&str] = &["half_", "native_"];

/// OpenCL.std instructions absent from the ODS, each with the ODS op whose shape it takes
/// (as newer MLIR defines them: `spirv.CL.exp2` is shaped like `spirv.CL.exp`).
///
/// A math instruction whose operands and result are all of one float gentype (judged by
/// the grammar's operand names and the specification's integer-typed exceptions above)
/// takes the shape of an ODS `spirv.CL` op with as many operands, all operands and the
/// result of one float-only type constraint (judged by the constraint's summary): the
/// op whose name its name extends (`exp` for `exp2` and `exp10`, `log` for `log2`), else
/// the one of the nearest lower opcode (`tanh` for `trunc`).
fn derived_ops<'r>(
    records: &'r Records,
    ods: &[(String, &'r Record, Option<Derived>)],
) -> Result<Vec<(String, &'r Record, Option<Derived>)>> {
    let by_name: HashMap<&str, &Record> = ods.iter().map(|(n, r, _)| (n.as_str(), *r)).collect();
    let set =
        spirvkit_grammar::ext_inst_set("OpenCL.std").ok_or_else(|| anyhow!("grammar lacks OpenCL.std"))?;
    let one_float_gentype = |i: &spirvkit_grammar::ExtInstruction| {
        i.opcode <= OPENCL_MATH_LAST
            && !OPENCL_INTEGER_TYPED.contains(&i.name)
            && !OPENCL_FLOAT32_ONLY_PREFIXES.iter().any(|p| i.name.starts_with(p))
            && !i.operands.is_empty()
            && i.operands.iter().all(|o| {
                o.kind == spirvkit_grammar::OperandKind::IdRef
                    && OPENCL_FLOAT_OPERAND_NAMES.contains(&o.name.trim_matches('\''))
            })
    };
    let mut templates = Vec::new();
    for inst in set.instructions.iter().filter(|i| one_float_gentype(i)) {
        let Some(record) = by_name.get(format!("spirv.CL.{}", inst.name).as_str()) else { continue };
        if let Some(arity) = float_only_shape(records, record)? {
            templates.push((inst, *record, arity));
        }
    }
    let mut out = Vec::new();
    for inst in set.instructions.iter().filter(|i| one_float_gentype(i)) {
        let name = format!("spirv.CL.{}", inst.name);
        if by_name.contains_key(name.as_str()) {
            continue;
        }
        let same_arity = templates.iter().filter(|(_, _, n)| *n == inst.operands.len());
        let template = same_arity
            .clone()
            .filter(|(t, _, _)| inst.name.starts_with(t.name))
            .max_by_key(|(t, _, _)| t.name.len())
            .or_else(|| {
                same_arity.filter(|(t, _, _)| t.opcode < inst.opcode).max_by_key(|(t, _, _)| t.opcode)
            });
        let Some((t, record, _)) = template else { continue };
        let summary = format!(
            "OpenCL.std {} (extended instruction {} of the Khronos grammar; shaped like spirv.CL.{})",
            inst.name, inst.opcode, t.name
        );
        out.push((name, *record, Some(Derived { summary })));
    }
    Ok(out)
}

/// The operand count of an op whose operands and single result all have one type
/// constraint of float values only (`16/32/64-bit float or fixed-length vector of
/// 16/32/64-bit float values ...`), without attributes.
fn float_only_shape(records: &Records, op: &Record) -> Result<Option<usize>> {
    let (Some(args), Some(results)) = (op.dag("arguments"), op.dag("results")) else { return Ok(None) };
    if args.args.is_empty() || results.args.len() != 1 {
        return Ok(None);
    }
    let mut constraints = Vec::new();
    for (value, _) in args.args.iter().chain(&results.args) {
        let mut constraint = records.get(ref_name(value)?)?;
        if constraint.is_a("OpVariable") {
            let inner = constraint.reference("constraint").ok_or_else(|| anyhow!("no constraint"))?;
            constraint = records.get(inner)?;
        }
        if !constraint.is_a("TypeConstraint") {
            return Ok(None);
        }
        constraints.push(constraint);
    }
    let first = constraints[0];
    let summary = first.str("summary").unwrap_or("");
    let float_only = summary.contains("float")
        && !["integer", "bool", "Cooperative", "pointer"].iter().any(|other| summary.contains(other));
    Ok((float_only && constraints.iter().all(|c| c.name == first.name)).then_some(args.args.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed tables are exactly what the generator produces from MLIR's definitions.
    /// Uses the installed `libmlir-22-dev` or an earlier download under `target/mlir-dev`;
    /// it does not download the package itself (`cargo xtask gen-dialect` does).
    #[test]
    fn committed_dialect_tables_are_current() {
        let Some(include) = existing_include() else {
            eprintln!(
                "skipping: MLIR's SPIR-V ODS files not found ({DEV_PACKAGE} is neither installed nor \
                 unpacked under target/mlir-dev; `cargo xtask gen-dialect` fetches it)"
            );
            return;
        };
        let dump = match dump_records(&include) {
            Ok(dump) => dump,
            Err(e) => {
                eprintln!("skipping: {e:#}");
                return;
            }
        };
        let text = crate::rustfmt(&generate(&dump).unwrap().text).unwrap();
        let committed = std::fs::read_to_string(crate::workspace_root().join(GENERATED_PATH)).unwrap();
        assert!(text == committed, "run `cargo xtask gen-dialect`");
    }

    /// The OpenCL.std math instructions newer MLIR has and MLIR 22's ODS lacks are derived
    /// from the grammar in an ODS op's shape; those whose types are not one float gentype,
    /// and the float-only `half_`/`native_` ones, are not.
    #[test]
    fn opencl_math_instructions_missing_from_the_ods_are_derived_from_the_grammar() {
        let Some(include) = existing_include() else {
            eprintln!("skipping: MLIR's ODS files not found ({DEV_PACKAGE})");
            return;
        };
        let dump = match dump_records(&include) {
            Ok(dump) => dump,
            Err(e) => {
                eprintln!("skipping: {e:#}");
                return;
            }
        };
        let generated = generate(&dump).unwrap();
        let derived = &generated.summary.derived;
        for name in ["exp2", "exp10", "log2", "log10", "trunc", "mad", "atan2pi"] {
            assert!(derived.contains(&format!("spirv.CL.{name}")), "{name} not derived: {derived:?}");
        }
        for name in
            ["pown", "rootn", "ilogb", "ldexp", "frexp", "sincos", "nan", "half_exp2", "native_log2", "exp"]
        {
            assert!(!derived.contains(&format!("spirv.CL.{name}")), "{name} derived: {derived:?}");
        }
        // Shaped like the op their name extends, with the grammar's instruction number.
        let exp10 = generated.text.split("OpDef {").find(|d| d.contains("\"spirv.CL.exp10\"")).unwrap();
        assert!(exp10.contains("extended instruction 21 of the Khronos grammar; shaped like spirv.CL.exp)"));
        assert!(exp10.contains("assembly_format: Some(\"$operand `:` type($operand) attr-dict\")"));
    }

    const DUMP: &str = "------------- Classes -----------------
class C<string C:s = ?> {
  string s = C:s;
}
------------- Defs -----------------
def A {\t// Base C
  string s = \"raw \"quotes\" and \\n
spanning lines\";
  code c = [{ x \"y\" ]
  }];
  bits<3> b = { 1, 0, ? };
  list<string> l = [\"a, b\", \"c]\"];
  int neg = -5;
  dag d = (ins B:$x, \"foo\":$y, 3, ?:$z);
  dag e = (outs);
  list<Trait> t = [];
  Dialect u = ?;
  Foo f = Bar<0: \"x\", 1: [B]>;
}
def B {
}
";

    #[test]
    fn parses_the_record_dump_format() {
        let records = parse_records(DUMP).unwrap();
        assert_eq!(records.by_name.len(), 2);
        let a = records.get("A").unwrap();
        assert_eq!(a.classes, ["Base", "C"]);
        assert!(a.is_a("C"));
        assert_eq!(a.str("s"), Some("raw \"quotes\" and \\n\nspanning lines"));
        assert_eq!(a.str("c"), Some(" x \"y\" ]\n  "));
        assert_eq!(a.get("b"), Some(&Val::Bits(vec![Val::Int(1), Val::Int(0), Val::Unset])));
        assert_eq!(a.list("l"), [Val::Str("a, b".into()), Val::Str("c]".into())]);
        assert_eq!(a.int("neg"), Some(-5));
        let d = a.dag("d").unwrap();
        assert_eq!(*d.op, Val::Ref("ins".into()));
        assert_eq!(
            d.args,
            [
                (Val::Ref("B".into()), Some("x".into())),
                (Val::Str("foo".into()), Some("y".into())),
                (Val::Int(3), None),
                (Val::Unset, Some("z".into())),
            ]
        );
        assert!(a.dag("e").unwrap().args.is_empty());
        assert!(a.list("t").is_empty());
        assert_eq!(a.get("u"), None);
        assert_eq!(a.reference("f"), Some("Bar<0: \"x\", 1: [B]>"));
        assert!(records.get("B").unwrap().classes.is_empty());
    }

    #[test]
    fn malformed_dumps_are_errors() {
        assert!(parse_records("no sections").is_err());
        let unterminated = "------------- Defs -----------------\ndef A {\n  string s = \"x;\n}\n";
        assert!(parse_records(unterminated).is_err());
    }

    #[test]
    fn helpers() {
        assert_eq!(normalize_format("\n  $a `,`\n    $b `  ` attr-dict\n"), "$a `,` $b `  ` attr-dict");
        assert_eq!(parse_version("::mlir::spirv::Version::V_1_3").unwrap(), "Some((1, 3))");
        assert_eq!(
            static_array(
                "static const ::mlir::spirv::Extension exts[] = {::mlir::spirv::Extension::SPV_A, \
                 ::mlir::spirv::Extension::SPV_B}; ArrayRef<::mlir::spirv::Extension> ref(exts, std::size(exts));"
            )
            .unwrap(),
            ["SPV_A", "SPV_B"]
        );
        assert!(static_array("").unwrap().is_empty());
        assert_eq!(cpp_class_name("SPIRV_SelectionOp"), "SelectionOp");
    }
}
