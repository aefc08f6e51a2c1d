//! An interpreter for MLIR's declarative assembly formats (ODS `assemblyFormat`),
//! so every op whose format is declarative is parsed and printed from its
//! definition in `generated/ops.rs`, with MLIR's spacing rules and type inference.

use crate::attr::{Attribute, NamedAttribute};
use crate::ir::{Location, OpId, Value};
use crate::opdef::{Arity, OpDef, OP_DEFS};
use crate::text::lexer::Tok;
use crate::text::parser::{OperandRef, PResult, ParseError, Parser};
use crate::text::printer::Printer;
use crate::types::{Signedness, Type, TypeKind};
use std::ops::Range;
use std::sync::OnceLock;

/// What a `type(...)` directive or a `$name` refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Var {
    Operand(usize),
    Result(usize),
    Attr(usize),
    Region(usize),
    Successor(usize),
    AllOperands,
    AllResults,
}

/// A literal of a format, with the spacing decisions that depend only on its text
/// worked out when the format is compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Literal {
    text: String,
    /// Printed after a space whatever came before (not a one-character punctuation).
    spaced: bool,
    /// For one-character punctuation: whether a space goes before it after
    /// punctuation, and otherwise.
    space_after_punctuation: bool,
    space_otherwise: bool,
    /// What printing it leaves: whether the next element gets a space, and whether it
    /// was punctuation.
    then_space: bool,
    is_punctuation: bool,
}

impl Literal {
    fn new(text: String) -> Literal {
        let first = text.chars().next().unwrap_or(' ');
        let one_char = text.chars().count() == 1;
        Literal {
            spaced: !one_char && text != "->",
            space_after_punctuation: !">)}],".contains(first),
            space_otherwise: !"<>(){}[],".contains(first),
            then_space: !one_char || !"<({[".contains(first),
            is_punctuation: first != '_' && !first.is_alphabetic(),
            text,
        }
    }

    fn caret() -> Literal {
        Literal::new("^".into())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Elem {
    Literal(Literal),
    /// `` ` ` `` (a space), `` `` `` (suppress the next space), or `` `\n` ``.
    Space,
    NoSpace,
    Newline,
    Var(Var),
    AttrDict {
        with_keyword: bool,
    },
    Type(Var),
    FunctionalType(Var, Var),
    Optional {
        then: Vec<Elem>,
        anchor: usize,
        otherwise: Vec<Elem>,
    },
    /// `custom<ImageOperands>($attr)`: ` ["Lod|Bias"]` when the attribute is set.
    ImageOperands(usize),
    /// Any other `custom<Name>(...)`: not interpreted; such ops use the generic form.
    Custom(String),
}

/// A compiled format.
#[derive(Debug)]
pub struct Format {
    elems: Vec<Elem>,
    /// Attribute names the format prints itself (so `attr-dict` elides them).
    used_attrs: Vec<&'static str>,
    /// Every operand group of the op takes exactly one value.
    single_operand_groups: bool,
    /// The op records its operand group sizes (`operandSegmentSizes`).
    attr_sized_operands: bool,
    /// How to read the op without the interpreter, when its format is simple enough.
    fast: Option<FastPlan>,
}

/// The compiled format of the op definition at `index` in `OP_DEFS`, if it has a
/// declarative one; compiled on first use.
fn format_at(index: usize) -> Option<&'static Format> {
    static FORMATS: OnceLock<Vec<OnceLock<Option<Format>>>> = OnceLock::new();
    let formats = FORMATS.get_or_init(|| OP_DEFS.iter().map(|_| OnceLock::new()).collect());
    let def = OP_DEFS.get(index)?;
    formats[index].get_or_init(|| def.assembly_format.and_then(|f| compile(def, f).ok())).as_ref()
}

fn format_of(def: &'static OpDef) -> Option<&'static Format> {
    format_at(crate::opdef::op_def_index(def)?)
}

/// The op definition with this full name.
pub fn def_of(name: &str) -> Option<&'static OpDef> {
    crate::opdef::op_def(name)
}

// ---- compiling format strings -------------------------------------------------

fn compile(def: &'static OpDef, text: &str) -> Result<Format, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut pos = 0;
    let elems = compile_seq(def, &chars, &mut pos, None)?;
    if elems.iter().any(contains_custom) {
        return Err("custom directive".into());
    }
    let used_attrs = used_attrs(&elems, def);
    let single_operand_groups = def.operands.iter().all(|d| d.arity == Arity::Single);
    let attr_sized_operands = def.has_trait("AttrSizedOperandSegments");
    let fast = if attr_sized_operands { None } else { FastPlan::new(def, &elems) };
    Ok(Format { elems, used_attrs, single_operand_groups, attr_sized_operands, fast })
}

fn contains_custom(e: &Elem) -> bool {
    match e {
        Elem::Custom(_) => true,
        Elem::Optional { then, otherwise, .. } => then.iter().chain(otherwise).any(contains_custom),
        _ => false,
    }
}

fn skip_ws(chars: &[char], pos: &mut usize) {
    while *pos < chars.len() && chars[*pos].is_whitespace() {
        *pos += 1;
    }
}

fn ident(chars: &[char], pos: &mut usize) -> String {
    let start = *pos;
    while *pos < chars.len() && (chars[*pos].is_alphanumeric() || chars[*pos] == '_' || chars[*pos] == '-') {
        *pos += 1;
    }
    chars[start..*pos].iter().collect()
}

fn resolve_var(def: &OpDef, name: &str) -> Result<Var, String> {
    if let Some(i) = def.operands.iter().position(|o| o.name == name) {
        return Ok(Var::Operand(i));
    }
    if let Some(i) = def.results.iter().position(|o| o.name == name) {
        return Ok(Var::Result(i));
    }
    if let Some(i) = def.attributes.iter().position(|a| a.name == name) {
        return Ok(Var::Attr(i));
    }
    if let Some(i) = def.regions.iter().position(|r| r.name == name) {
        return Ok(Var::Region(i));
    }
    if let Some(i) = def.successors.iter().position(|s| s.name == name) {
        return Ok(Var::Successor(i));
    }
    Err(format!("unknown variable ${name}"))
}

fn compile_type_arg(def: &OpDef, chars: &[char], pos: &mut usize) -> Result<Var, String> {
    skip_ws(chars, pos);
    if chars.get(*pos) == Some(&'$') {
        *pos += 1;
        let name = ident(chars, pos);
        return resolve_var(def, &name);
    }
    match ident(chars, pos).as_str() {
        "operands" => Ok(Var::AllOperands),
        "results" => Ok(Var::AllResults),
        other => Err(format!("unsupported type argument {other}")),
    }
}

fn expect_char(chars: &[char], pos: &mut usize, c: char) -> Result<(), String> {
    skip_ws(chars, pos);
    if chars.get(*pos) == Some(&c) {
        *pos += 1;
        Ok(())
    } else {
        Err(format!("expected {c}"))
    }
}

/// Compiles elements until `close` (`)` of an optional group) or the end.
fn compile_seq(
    def: &OpDef,
    chars: &[char],
    pos: &mut usize,
    close: Option<char>,
) -> Result<Vec<Elem>, String> {
    let mut out = Vec::new();
    loop {
        skip_ws(chars, pos);
        let Some(&c) = chars.get(*pos) else {
            return if close.is_none() { Ok(out) } else { Err("unterminated group".into()) };
        };
        if Some(c) == close {
            return Ok(out);
        }
        match c {
            '`' => {
                *pos += 1;
                let start = *pos;
                while *pos < chars.len() && chars[*pos] != '`' {
                    *pos += 1;
                }
                let lit: String = chars[start..*pos].iter().collect();
                *pos += 1;
                out.push(match lit.as_str() {
                    " " => Elem::Space,
                    "" => Elem::NoSpace,
                    "\\n" => Elem::Newline,
                    _ => Elem::Literal(Literal::new(lit)),
                });
            }
            '$' => {
                *pos += 1;
                let name = ident(chars, pos);
                out.push(Elem::Var(resolve_var(def, &name)?));
                if chars.get(*pos) == Some(&'^') {
                    *pos += 1;
                    out.push(Elem::Literal(Literal::caret()));
                }
            }
            '^' => {
                *pos += 1;
                out.push(Elem::Literal(Literal::caret()));
            }
            '(' => {
                *pos += 1;
                let mut group = compile_seq(def, chars, pos, Some(')'))?;
                *pos += 1; // ')'
                let mut otherwise = Vec::new();
                skip_ws(chars, pos);
                if chars.get(*pos) == Some(&':') {
                    *pos += 1;
                    expect_char(chars, pos, '(')?;
                    otherwise = compile_seq(def, chars, pos, Some(')'))?;
                    *pos += 1;
                    skip_ws(chars, pos);
                }
                if chars.get(*pos) != Some(&'?') {
                    return Err("expected '?' after optional group".into());
                }
                *pos += 1;
                // The anchor is marked by a `^` literal after the anchored element.
                let caret = group.iter().position(|e| *e == Elem::Literal(Literal::caret()));
                let anchor = match caret {
                    Some(i) => {
                        group.remove(i);
                        i.saturating_sub(1)
                    }
                    None => return Err("optional group without anchor".into()),
                };
                out.push(Elem::Optional { then: group, anchor, otherwise });
            }
            _ if c.is_alphabetic() => {
                let word = ident(chars, pos);
                match word.as_str() {
                    "attr-dict" => out.push(Elem::AttrDict { with_keyword: false }),
                    "attr-dict-with-keyword" => out.push(Elem::AttrDict { with_keyword: true }),
                    "operands" => out.push(Elem::Var(Var::AllOperands)),
                    "results" => out.push(Elem::Var(Var::AllResults)),
                    "type" => {
                        expect_char(chars, pos, '(')?;
                        let v = compile_type_arg(def, chars, pos)?;
                        expect_char(chars, pos, ')')?;
                        out.push(Elem::Type(v));
                    }
                    "qualified" => {
                        expect_char(chars, pos, '(')?;
                        skip_ws(chars, pos);
                        let inner = ident(chars, pos);
                        if inner != "type" {
                            return Err("unsupported qualified()".into());
                        }
                        expect_char(chars, pos, '(')?;
                        let v = compile_type_arg(def, chars, pos)?;
                        expect_char(chars, pos, ')')?;
                        expect_char(chars, pos, ')')?;
                        out.push(Elem::Type(v));
                    }
                    "functional-type" => {
                        expect_char(chars, pos, '(')?;
                        let a = compile_type_arg(def, chars, pos)?;
                        expect_char(chars, pos, ',')?;
                        let b = compile_type_arg(def, chars, pos)?;
                        expect_char(chars, pos, ')')?;
                        out.push(Elem::FunctionalType(a, b));
                    }
                    "custom" => {
                        // custom<Name>(args): skip to the matching ')'.
                        let mut depth = 0;
                        let start = *pos;
                        while *pos < chars.len() {
                            match chars[*pos] {
                                '(' => depth += 1,
                                ')' => {
                                    depth -= 1;
                                    if depth == 0 {
                                        *pos += 1;
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            *pos += 1;
                        }
                        let text: String = chars[start..*pos].iter().collect();
                        let image_operands = text
                            .strip_prefix("<ImageOperands>($")
                            .and_then(|r| r.strip_suffix(')'))
                            .and_then(|name| def.attributes.iter().position(|a| a.name == name));
                        match image_operands {
                            Some(i) => out.push(Elem::ImageOperands(i)),
                            None => out.push(Elem::Custom(text)),
                        }
                    }
                    "regions" | "successors" => return Err(format!("unsupported directive {word}")),
                    other => return Err(format!("unknown directive {other}")),
                }
            }
            _ => return Err(format!("unexpected '{c}' in format")),
        }
    }
}

// ---- printing -------------------------------------------------------------------

struct PrintState {
    should_emit_space: bool,
    last_was_punctuation: bool,
}

/// Prints `op` with its declarative format; false if it has none we can interpret.
pub fn print(p: &mut Printer, op: OpId) -> bool {
    let ir = p.ir;
    let o = ir.op(op);
    let Some(index) = o.name.def_index() else { return false };
    let Some(format) = format_at(index) else { return false };
    let def = &OP_DEFS[index];
    // Operand groups must be recoverable (segment sizes for several variadic groups).
    // Most ops have a few single-value groups: group i is then operand i.
    static IDENTITY: [Range<usize>; 8] = [0..1, 1..2, 2..3, 3..4, 4..5, 5..6, 6..7, 7..8];
    let single = o.operands.len() == def.operands.len()
        && o.operands.len() <= IDENTITY.len()
        && format.single_operand_groups
        && ((o.properties.is_empty() && o.attributes.is_empty()) || o.attr("operandSegmentSizes").is_none());
    // The printer's buffer, taken while in use (an op printed in a region of this one
    // takes a new one).
    let mut split = std::mem::take(&mut p.group_scratch);
    let groups: &[Range<usize>] = if single {
        &IDENTITY[..o.operands.len()]
    } else {
        let arities = def.operands.iter().map(|d| d.arity);
        if !group_ranges_into(o.operands.len(), arities, o.attr("operandSegmentSizes"), &mut split) {
            p.group_scratch = split;
            return false;
        }
        &split
    };
    let printed = types_read_back(ir, o, InferPlan::of(def), def, groups);
    if printed {
        p.out.push_str(def.name);
        let mut st = PrintState { should_emit_space: true, last_was_punctuation: false };
        print_elems(p, op, def, &format.elems, groups, &format.used_attrs, &mut st);
    }
    p.group_scratch = split;
    printed
}

/// Whether the op's types agree with the equalities its format relies on to leave
/// types out (`SameOperandsAndResultType`, `SameTypeOperands`, `AllTypesMatch`). When
/// they do not (a deserialized `OpIAdd` of an `int` and a `uint`,
/// which the dialect's verifier rejects), the custom form would read back with other
/// types, so the op prints in the generic form, as MLIR prints an op that fails
/// verification.
fn types_read_back(
    ir: &crate::Ir,
    o: &crate::ir::Operation,
    plan: &InferPlan,
    def: &OpDef,
    groups: &[Range<usize>],
) -> bool {
    let n_ops = def.operands.len();
    let one_result = def.results.len() == o.results.len();
    let values = |i: usize| -> &[crate::ir::Value] {
        if i < n_ops {
            groups.get(i).and_then(|r| o.operands.get(r.clone())).unwrap_or(&[])
        } else if one_result {
            o.results.get(i - n_ops..i - n_ops + 1).unwrap_or(&[])
        } else {
            &[]
        }
    };
    for group in &plan.same_type {
        let mut types = group.iter().flat_map(|&i| values(i).iter().map(|&v| ir.value_type(v)));
        if let Some(first) = types.next() {
            if types.any(|t| t != first) {
                return false;
            }
        }
    }
    true
}

/// Attribute names a format prints itself (so `attr-dict` elides them).
fn used_attrs(elems: &[Elem], def: &'static OpDef) -> Vec<&'static str> {
    let mut out = vec!["operandSegmentSizes", "resultSegmentSizes"];
    fn walk(elems: &[Elem], def: &'static OpDef, out: &mut Vec<&'static str>) {
        for e in elems {
            match e {
                Elem::Var(Var::Attr(i)) | Elem::ImageOperands(i) => out.push(def.attributes[*i].name),
                Elem::Optional { then, otherwise, .. } => {
                    walk(then, def, out);
                    walk(otherwise, def, out);
                }
                _ => {}
            }
        }
    }
    walk(elems, def, &mut out);
    out
}

/// Where each ODS operand (or result) group lies among `count` values: by the
/// `operandSegmentSizes`-style attribute when there is one, else with the single
/// variadic group (if any) taking the values the fixed ones leave. `None` when the
/// values cannot be split that way. Every range returned is within `0..count`.
pub(crate) fn group_ranges(
    count: usize,
    arities: impl Iterator<Item = Arity> + Clone,
    segments: Option<&Attribute>,
) -> Option<Vec<Range<usize>>> {
    let mut out = Vec::new();
    group_ranges_into(count, arities, segments, &mut out).then_some(out)
}

/// [`group_ranges`] into `out` (cleared first; the printer reuses one buffer);
/// false when the values cannot be split.
fn group_ranges_into(
    count: usize,
    arities: impl Iterator<Item = Arity> + Clone,
    segments: Option<&Attribute>,
    out: &mut Vec<Range<usize>>,
) -> bool {
    out.clear();
    if let Some(Attribute::DenseArray { values: sizes, .. }) = segments {
        out.reserve(sizes.len());
        let mut at = 0usize;
        for s in sizes {
            let Attribute::Integer { value, .. } = s else { return false };
            let Some(end) = usize::try_from(*value).ok().and_then(|n| at.checked_add(n)) else {
                return false;
            };
            if end > count {
                return false;
            }
            out.push(at..end);
            at = end;
        }
        return out.len() == arities.count();
    }
    let (groups, variable) = arities
        .clone()
        .fold((0, 0), |(all, variable), a| (all + 1, variable + usize::from(a != Arity::Single)));
    let fixed = groups - variable;
    if variable > 1 || count < fixed {
        return false;
    }
    let extra = count - fixed;
    if variable == 0 && extra > 0 {
        return false;
    }
    let mut at = 0;
    out.extend(arities.map(|a| {
        let n = if a == Arity::Single { 1 } else { extra };
        at += n;
        at - n..at
    }));
    true
}

fn is_present(p: &Printer, op: OpId, def: &OpDef, groups: &[Range<usize>], e: &Elem) -> bool {
    let o = p.ir.op(op);
    match e {
        Elem::Var(Var::Operand(i)) | Elem::Type(Var::Operand(i)) => !groups[*i].is_empty(),
        Elem::Var(Var::Attr(i)) => {
            let ad = &def.attributes[*i];
            let attr = o.attr(ad.name);
            if matches!(attr, None | Some(Attribute::Bool(false))) {
                return false;
            }
            // An attribute holding its default (no overflow flags) is not shown, as in MLIR.
            match (attr, crate::llvm::default_text(ad.constraint())) {
                (Some(a), Some(default)) => crate::text::printer::attribute_to_string(p.ir, a) != default,
                _ => true,
            }
        }
        Elem::Var(Var::Result(i)) | Elem::Type(Var::Result(i)) => o.results.len() > *i,
        Elem::Var(Var::Region(i)) => o.regions.get(*i).is_some_and(|&r| !p.ir.region(r).blocks.is_empty()),
        Elem::Var(Var::Successor(i)) => o.successors.len() > *i,
        Elem::Var(Var::AllOperands) | Elem::Type(Var::AllOperands) => !o.operands.is_empty(),
        Elem::Var(Var::AllResults) | Elem::Type(Var::AllResults) => !o.results.is_empty(),
        _ => true,
    }
}

fn emit_space(p: &mut Printer, st: &mut PrintState) {
    if st.should_emit_space {
        p.out.push(' ');
    }
    st.should_emit_space = true;
    st.last_was_punctuation = false;
}

fn print_elems(
    p: &mut Printer,
    op: OpId,
    def: &OpDef,
    elems: &[Elem],
    groups: &[Range<usize>],
    used: &[&str],
    st: &mut PrintState,
) {
    for e in elems {
        match e {
            Elem::Literal(lit) => {
                let space_before = lit.spaced
                    || if st.last_was_punctuation {
                        lit.space_after_punctuation
                    } else {
                        lit.space_otherwise
                    };
                if st.should_emit_space && space_before {
                    p.out.push(' ');
                }
                // Most literals are one ASCII character: pushed as one, not copied.
                match lit.text.as_bytes() {
                    &[c] => p.out.push(char::from(c)),
                    _ => p.out.push_str(&lit.text),
                }
                st.should_emit_space = lit.then_space;
                st.last_was_punctuation = lit.is_punctuation;
            }
            Elem::Space => {
                p.out.push(' ');
                st.should_emit_space = false;
                st.last_was_punctuation = false;
            }
            Elem::NoSpace => {
                st.should_emit_space = false;
                st.last_was_punctuation = false;
            }
            Elem::Newline => {
                p.newline();
                st.should_emit_space = false;
                st.last_was_punctuation = false;
            }
            Elem::AttrDict { with_keyword } => {
                let ir = p.ir;
                p.format_attr_dict(ir.op(op), def, used, *with_keyword, print_format_attr);
                st.should_emit_space = true;
                st.last_was_punctuation = false;
            }
            // A unit attribute anchoring an optional group prints nothing, not even a space.
            Elem::Var(Var::Attr(i))
                if matches!(p.ir.op(op).attr(def.attributes[*i].name), Some(Attribute::Unit)) => {}
            Elem::Var(v) => {
                emit_space(p, st);
                print_var(p, op, def, v, groups);
            }
            Elem::Type(v) => {
                emit_space(p, st);
                let values = var_values(p, op, v, groups);
                p.value_types(values);
            }
            Elem::FunctionalType(a, b) => {
                emit_space(p, st);
                let ins = var_values(p, op, a, groups);
                let outs = var_values(p, op, b, groups);
                p.out.push('(');
                p.value_types(ins);
                p.out.push_str(") -> ");
                let wrap = outs.len() != 1
                    || matches!(p.ir.types.kind(p.ir.value_type(outs[0])), TypeKind::Function { .. });
                if wrap {
                    p.out.push('(');
                }
                p.value_types(outs);
                if wrap {
                    p.out.push(')');
                }
            }
            Elem::Optional { then, anchor, otherwise } => {
                if is_present(p, op, def, groups, &then[*anchor]) {
                    print_elems(p, op, def, then, groups, used, st);
                } else {
                    print_elems(p, op, def, otherwise, groups, used, st);
                }
            }
            Elem::ImageOperands(i) => {
                // ODS puts a space before a custom directive even when it prints nothing.
                emit_space(p, st);
                let ir = p.ir;
                if let Some(Attribute::Dialect { body: Some(b), .. }) =
                    ir.op(op).attr(def.attributes[*i].name)
                {
                    p.out.push('[');
                    p.string(b);
                    p.out.push(']');
                }
            }
            Elem::Custom(_) => {}
        }
    }
}

/// The values a variable of a `type(...)` directive stands for.
fn var_values<'a>(p: &Printer<'a>, op: OpId, v: &Var, groups: &[Range<usize>]) -> &'a [Value] {
    let o = p.ir.op(op);
    match v {
        Var::Operand(i) => &o.operands[groups[*i].clone()],
        Var::Result(i) => o.results.get(*i..*i + 1).unwrap_or(&[]),
        Var::AllOperands => &o.operands,
        Var::AllResults => &o.results,
        _ => &[],
    }
}

fn print_var(p: &mut Printer, op: OpId, def: &OpDef, v: &Var, groups: &[Range<usize>]) {
    let ir = p.ir;
    let o = ir.op(op);
    match v {
        Var::Operand(i) => p.values(&o.operands[groups[*i].clone()]),
        Var::AllOperands => p.values(&o.operands),
        Var::Result(i) => {
            if let Some(&r) = o.results.get(*i) {
                p.value(r);
            }
        }
        Var::AllResults => p.values(&o.results),
        Var::Attr(i) => {
            let ad = &def.attributes[*i];
            if let Some(a) = o.attr(ad.name) {
                print_format_attr(p, ad.constraint(), a);
            }
        }
        Var::Region(i) => {
            if let Some(&r) = o.regions.get(*i) {
                p.region(r, true, false);
            }
        }
        Var::Successor(i) => {
            if let Some(&s) = o.successors.get(*i) {
                p.names.write_block(s, &mut p.out);
            }
        }
    }
}

/// An attribute inside a format: enum attributes print stripped (`<Workgroup>`),
/// integer attributes of a fixed type (`I32Attr`) without it; others in full.
fn print_format_attr(p: &mut Printer, c: &crate::opdef::AttrConstraint, a: &Attribute) {
    match (llvm_attr_form(c), a) {
        // A unit attribute anchoring an optional group is its keyword alone.
        (_, Attribute::Unit) => return,
        (LlvmAttrForm::IntEnum(e), Attribute::Integer { value, .. }) => {
            if let Some(case) = u64::try_from(*value).ok().and_then(|v| e.case_by_value(v)) {
                p.out.push_str(case.str);
                return;
            }
        }
        (LlvmAttrForm::OverflowFlags, Attribute::Integer { value, .. }) => {
            if let Some(text) =
                u64::try_from(*value).ok().and_then(|v| bit_enum_text("IntegerOverflowFlags", v, ", "))
            {
                p.out.push_str("overflow<");
                p.out.push_str(&text);
                p.out.push('>');
                return;
            }
        }
        (LlvmAttrForm::DenseArray(_), Attribute::DenseArray { values, .. }) => {
            p.out.push('[');
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    p.out.push_str(", ");
                }
                match v {
                    Attribute::Integer { value, .. } => crate::text::printer::push_i128(&mut p.out, *value),
                    other => p.attr(other),
                }
            }
            p.out.push(']');
            return;
        }
        _ => {}
    }
    match a {
        Attribute::Dialect { body: Some(b), .. } if c.enum_attr.is_some() => {
            p.out.push('<');
            p.out.push_str(b);
            p.out.push('>');
        }
        Attribute::Integer { value, .. } if c.storage_type.contains("IntegerAttr") => {
            crate::text::printer::push_i128(&mut p.out, *value);
        }
        other => p.attr(other),
    }
}

/// How the LLVM dialect's attribute kinds read and print inside a declarative format.
#[derive(Clone, Copy)]
enum LlvmAttrForm {
    /// An integer-stored enum (`AtomicOrdering`): its keyword (`seq_cst`).
    IntEnum(&'static crate::opdef::EnumAttrDef),
    /// The `IntegerOverflowFlags` property: `overflow<nsw, nuw>`.
    OverflowFlags,
    /// `DenseI32ArrayAttr`/`DenseI64ArrayAttr` (element width): `[1, 2]`.
    DenseArray(u32),
    Other,
}

fn llvm_attr_form(c: &crate::opdef::AttrConstraint) -> LlvmAttrForm {
    match c.storage_type {
        "::mlir::DenseI32ArrayAttr" => return LlvmAttrForm::DenseArray(32),
        "::mlir::DenseI64ArrayAttr" => return LlvmAttrForm::DenseArray(64),
        "::mlir::LLVM::IntegerOverflowFlags" => return LlvmAttrForm::OverflowFlags,
        _ => {}
    }
    match c.enum_attr() {
        Some(e) if e.mnemonic.is_none() && c.storage_type.starts_with("::mlir::LLVM::") => {
            LlvmAttrForm::IntEnum(e)
        }
        _ => LlvmAttrForm::Other,
    }
}

/// A bit enum value of the LLVM dialect as MLIR spells it: multi-bit groups first, then
/// single flags, joined by `separator`; the zero case's name for 0; `None` for bits no
/// case names.
pub(crate) fn bit_enum_text(enum_name: &str, value: u64, separator: &str) -> Option<String> {
    let e = crate::opdef::ENUM_ATTRS.iter().find(|e| e.enum_name == enum_name && e.mnemonic.is_none())?;
    if value == 0 {
        return e.case_by_value(0).map(|c| c.str.to_string());
    }
    let mut rest = value;
    let mut words = Vec::new();
    let groups = e.cases.iter().filter(|c| c.value.count_ones() > 1);
    let singles = e.cases.iter().filter(|c| c.value.count_ones() == 1);
    for case in groups.chain(singles) {
        if rest & case.value == case.value && rest & case.value != 0 {
            words.push(case.str);
            rest &= !case.value;
        }
    }
    (rest == 0).then(|| words.join(separator))
}

// ---- parsing --------------------------------------------------------------------

/// What a declarative format has read of an op so far. Values are kept flat (group
/// `i`'s references are `refs[operand_refs[i]]`), and the parser keeps one state per
/// nesting level to reuse from op to op, so reading an op allocates only what the op
/// keeps.
#[derive(Default)]
pub(crate) struct ParseState<'s> {
    refs: Vec<OperandRef<'s>>,
    types: Vec<Type>,
    /// By operand group: its references, its types once known.
    operand_refs: Vec<Range<usize>>,
    operand_types: Vec<Option<Range<usize>>>,
    result_types: Vec<Option<Type>>,
    /// `operands` / `type(operands)` / `type(results)` directives.
    all_operand_refs: Option<Range<usize>>,
    all_operand_types: Option<Range<usize>>,
    all_result_types: Option<Range<usize>>,
    properties: Vec<NamedAttribute>,
    attributes: Vec<NamedAttribute>,
    successors: Vec<crate::ir::BlockId>,
    /// The result types handed to the op.
    result_list: Vec<Type>,
}

impl ParseState<'_> {
    fn reset(&mut self, def: &OpDef) {
        self.refs.clear();
        self.types.clear();
        self.operand_refs.clear();
        self.operand_refs.resize(def.operands.len(), 0..0);
        self.operand_types.clear();
        self.operand_types.resize(def.operands.len(), None);
        self.result_types.clear();
        self.result_types.resize(def.results.len(), None);
        self.all_operand_refs = None;
        self.all_operand_types = None;
        self.all_result_types = None;
        self.properties.clear();
        self.attributes.clear();
        self.successors.clear();
        self.result_list.clear();
    }

    /// The first known type of operand group `i`.
    fn first_operand_type(&self, i: usize) -> Option<Type> {
        self.operand_types[i].as_ref().filter(|r| !r.is_empty()).map(|r| self.types[r.start])
    }
}

/// Parses the custom form of `name` if it has a declarative format.
pub fn parse(p: &mut Parser, name: &str, start: usize) -> Option<PResult<OpId>> {
    let def = def_of(name)?;
    let format = format_of(def)?;
    Some(parse_with(p, def, format, start))
}

/// [`parse`] for the op definition at `index` in `OP_DEFS`.
pub(crate) fn parse_at(p: &mut Parser, index: usize, start: usize) -> Option<PResult<OpId>> {
    let format = format_at(index)?;
    Some(parse_with(p, &OP_DEFS[index], format, start))
}

fn parse_with(p: &mut Parser, def: &'static OpDef, format: &Format, start: usize) -> PResult<OpId> {
    if let Some(fast) = &format.fast {
        if let Some(result) = parse_fast(p, def, fast) {
            return result;
        }
    }
    let op = p.ir.create_op(crate::ir::OpName::of_def(def), vec![], &[], Location::Unknown);
    let mut st = p.format_states.pop().unwrap_or_default();
    st.reset(def);
    parse_elems(p, def, op, &format.elems, &mut st)?;
    finish(p, def, format, op, &mut st, start)?;
    p.format_states.push(st);
    Ok(op)
}

/// A format read without the interpreter: every operand and result group takes one
/// value, the elements come in a fixed order, and which written type each group
/// gets follows from the format and the op's traits alone (worked out once here by
/// running [`infer_types`]'s steps on the written types' positions).
#[derive(Debug)]
struct FastPlan {
    steps: Vec<FastStep>,
    /// The types worked out after the written ones, in [`infer_types`]'s order.
    derived: Vec<FastType>,
    /// The register of each operand group's type, then each result group's: the
    /// written types first, then the derived ones. `None` for a group the format
    /// only reads in an optional group (empty when the plan is followed).
    sources: Vec<Option<usize>>,
    operands: usize,
}

#[derive(Debug)]
enum FastStep {
    Operand(usize),
    /// Between the references of `operands`.
    ListComma,
    /// After `operands`: a further comma would continue the list.
    ListEnd,
    Literal(String),
    AttrDict {
        with_keyword: bool,
    },
    /// A written type, into the next register.
    Type,
    Successor,
    /// An optional group that must be absent (starting with this element): when it
    /// is there, the interpreter reads the op.
    Absent(Elem),
}

#[derive(Clone, Copy, Debug)]
enum FastType {
    Integer(u32, Signedness),
    /// The `i1` equivalent of the type in a register.
    BoolOf(usize),
}

/// Registers of a fast plan's types (written and derived).
const FAST_REGS: usize = 8;

impl FastPlan {
    fn new(def: &OpDef, elems: &[Elem]) -> Option<FastPlan> {
        // (The fixed arrays of `parse_fast` bound the counts.)
        let single_results = def.results.iter().all(|d| d.arity == Arity::Single);
        if !single_results || def.operands.len() > 4 || def.results.len() > 2 {
            return None;
        }
        let single = |i: usize| def.operands.get(i).is_some_and(|d| d.arity == Arity::Single);
        let n_ops = def.operands.len();
        let mut steps = Vec::new();
        // By group (operands, then results): the register of its type, if known.
        let mut known: Vec<Option<usize>> = vec![None; n_ops + def.results.len()];
        let mut seen = vec![false; n_ops];
        let mut regs = 0;
        for e in elems {
            match e {
                Elem::Literal(lit) => steps.push(FastStep::Literal(lit.text.clone())),
                Elem::Space | Elem::NoSpace | Elem::Newline => {}
                Elem::AttrDict { with_keyword } => {
                    steps.push(FastStep::AttrDict { with_keyword: *with_keyword })
                }
                Elem::Var(Var::Operand(i)) => {
                    if !single(*i) || std::mem::replace(&mut seen[*i], true) {
                        return None;
                    }
                    steps.push(FastStep::Operand(*i));
                }
                Elem::Var(Var::AllOperands) => {
                    if n_ops == 0 || seen.iter().any(|&s| s) || !(0..n_ops).all(single) {
                        return None;
                    }
                    for (i, seen) in seen.iter_mut().enumerate() {
                        if i > 0 {
                            steps.push(FastStep::ListComma);
                        }
                        steps.push(FastStep::Operand(i));
                        *seen = true;
                    }
                    steps.push(FastStep::ListEnd);
                }
                Elem::Type(Var::Operand(i)) if single(*i) => {
                    known[*i] = Some(regs);
                    regs += 1;
                    steps.push(FastStep::Type);
                }
                Elem::Type(Var::Result(i)) => {
                    known[n_ops + *i] = Some(regs);
                    regs += 1;
                    steps.push(FastStep::Type);
                }
                Elem::Var(Var::Successor(_)) => steps.push(FastStep::Successor),
                // Optional groups are taken absent; what they read stays empty.
                Elem::Optional { then, otherwise, .. } if otherwise.is_empty() => {
                    steps.push(FastStep::Absent(then.first()?.clone()));
                }
                _ => return None,
            }
        }
        // Single groups are read; the others are empty (unless the format reads them
        // other than in optional groups, which the interpreter then does).
        if seen.iter().enumerate().any(|(i, &s)| s != single(i)) {
            return None;
        }
        // `infer_types` on registers rather than types.
        let plan = InferPlan::of(def);
        let mut derived = Vec::new();
        for &(i, width, signedness) in &plan.buildable {
            if known[i].is_none() {
                derived.push(FastType::Integer(width, signedness));
                known[i] = Some(regs);
                regs += 1;
            }
        }
        let mut derived_once = 0u64;
        let rounds = if plan.derived.is_empty() && plan.same_type.len() <= 1 { 1 } else { 4 };
        for _ in 0..rounds {
            let mut changed = false;
            for g in &plan.same_type {
                if let Some(t) = g.iter().find_map(|&i| known[i]) {
                    for &i in g {
                        if known[i].is_none() {
                            known[i] = Some(t);
                            changed = true;
                        }
                    }
                }
            }
            for (rule, &(si, di, derive)) in plan.derived.iter().enumerate() {
                let Some(src) = known[si] else { continue };
                let bit = 1u64.checked_shl(rule as u32).unwrap_or(0);
                if derived_once & bit != 0 && known[di].is_some() {
                    continue;
                }
                derived_once |= bit;
                // The other derivations may find no type; those ops take the interpreter.
                let InferDerive::BoolEquivalent = derive else { return None };
                derived.push(FastType::BoolOf(src));
                if known[di].is_none() {
                    known[di] = Some(regs);
                    changed = true;
                }
                regs += 1;
            }
            if !changed {
                break;
            }
        }
        // Read groups have a type; an empty group that gets one is the interpreter's
        // count mismatch.
        let mut sources = Vec::with_capacity(known.len());
        for (group, reg) in known.into_iter().enumerate() {
            let read = group >= n_ops || seen[group];
            if read != reg.is_some() {
                return None;
            }
            sources.push(reg);
        }
        (regs <= FAST_REGS).then_some(FastPlan { steps, derived, sources, operands: n_ops })
    }
}

/// Reads an op with its [`FastPlan`]. `None` (with nothing consumed) when the text
/// strays from the plan before anything but tokens was read: the interpreter then
/// reads it, with its messages. Errors of the parts read as the interpreter reads
/// them (types, attribute dictionaries, operands) are its errors.
fn parse_fast(p: &mut Parser, def: &'static OpDef, fast: &FastPlan) -> Option<PResult<OpId>> {
    let mark = p.checkpoint();
    let mut refs = [None; 4];
    let mut regs = [None; FAST_REGS];
    let mut written = 0;
    let mut properties = Vec::new();
    let mut attributes = Vec::new();
    let mut successors = [None; 2];
    let mut n_successors = 0;
    for step in &fast.steps {
        let on_plan = match step {
            FastStep::Operand(i) => match p.tok.kind {
                Tok::ValueId => match (refs.get_mut(*i), p.parse_operand_ref()) {
                    (Some(slot), Ok(r)) => {
                        *slot = Some(r);
                        true
                    }
                    _ => false,
                },
                _ => false,
            },
            FastStep::ListComma => p.eat(","),
            FastStep::ListEnd => !p.at(","),
            FastStep::Literal(text) => {
                let here = p.tok.text == text && matches!(p.tok.kind, Tok::Punct | Tok::Ident);
                if here {
                    p.bump();
                }
                here
            }
            // A property list (newer MLIR's syntax) is the interpreter's to read.
            FastStep::AttrDict { .. } if p.at("<") => false,
            FastStep::AttrDict { with_keyword } => {
                if (!*with_keyword || p.eat_keyword("attributes")) && p.at("{") {
                    match p.parse_attribute_dict() {
                        Ok(list) => {
                            for a in list {
                                if def.attributes.iter().any(|d| d.name == a.name) {
                                    properties.push(a);
                                } else {
                                    attributes.push(a);
                                }
                            }
                        }
                        Err(e) => return Some(Err(e)),
                    }
                }
                true
            }
            FastStep::Type => {
                let ty = match p.parse_type() {
                    Ok(ty) => ty,
                    Err(e) => return Some(Err(e)),
                };
                let slot = regs.get_mut(written);
                written += 1;
                slot.map(|slot| *slot = Some(ty)).is_some()
            }
            FastStep::Successor => match (p.tok.kind, successors.get_mut(n_successors)) {
                (Tok::CaretId, Some(slot)) => {
                    n_successors += 1;
                    p.parse_successor().map(|b| *slot = Some(b)).is_ok()
                }
                _ => false,
            },
            FastStep::Absent(first) => !can_start(p, def, first),
        };
        if !on_plan {
            p.restore(mark);
            return None;
        }
    }
    for (k, d) in fast.derived.iter().enumerate() {
        let ty = match *d {
            FastType::Integer(width, signedness) => Some(p.integer_type(width, signedness)),
            FastType::BoolOf(src) => regs.get(src).copied().flatten().map(|src| bool_equivalent(p, src)),
        };
        if let Some(slot) = regs.get_mut(written + k) {
            *slot = ty;
        }
    }
    // Each group's type (all known, by the plan's making; checked all the same).
    let mut types = [None; 6];
    for (slot, source) in types.iter_mut().zip(&fast.sources) {
        *slot = source.and_then(|reg| regs.get(reg).copied().flatten());
        if source.is_some() && slot.is_none() {
            p.restore(mark);
            return None;
        }
    }
    let op = p.ir.create_op(crate::ir::OpName::of_def(def), vec![], &[], Location::Unknown);
    let built =
        finish_fast(p, fast.operands, op, &refs, &types[..fast.sources.len()], properties, attributes);
    if built.is_ok() && n_successors > 0 {
        p.ir.op_mut(op).successors = successors.iter().take(n_successors).flatten().copied().collect();
    }
    Some(built.map(|()| op))
}

/// Resolves the operands of an op read by [`parse_fast`] (whose groups' types are
/// `types`: operands, then results) and builds it.
fn finish_fast<'s>(
    p: &mut Parser<'s, '_>,
    n_operands: usize,
    op: OpId,
    refs: &[Option<OperandRef<'s>>],
    types: &[Option<Type>],
    mut properties: Vec<NamedAttribute>,
    attributes: Vec<NamedAttribute>,
) -> PResult<()> {
    let (operand_types, result_types) = types.split_at(n_operands.min(types.len()));
    let mut operands = Vec::with_capacity(n_operands);
    for (r, ty) in refs.iter().zip(operand_types) {
        if let (Some(r), Some(ty)) = (r, ty) {
            operands.push(p.resolve_operand(r, *ty)?);
        }
    }
    // (The result types as a slice, without a vector for them.)
    match *result_types {
        [] => p.finish_op(op, operands, &[]),
        [Some(a)] => p.finish_op(op, operands, &[a]),
        [Some(a), Some(b)] => p.finish_op(op, operands, &[a, b]),
        _ => {
            let results: Vec<Type> = result_types.iter().flatten().copied().collect();
            p.finish_op(op, operands, &results);
        }
    }
    properties.sort_by(|a, b| a.name.cmp(&b.name));
    let o = p.ir.op_mut(op);
    o.properties = properties;
    if !attributes.is_empty() {
        o.attributes = attributes.into();
    }
    Ok(())
}

/// Whether the next token can start the element (used for optional groups).
fn can_start(p: &Parser, def: &OpDef, e: &Elem) -> bool {
    match e {
        Elem::Literal(lit) => match p.tok.kind {
            Tok::Punct => p.tok.text == lit.text,
            Tok::Ident => p.tok.text == lit.text,
            _ => false,
        },
        Elem::Var(Var::Operand(_)) | Elem::Var(Var::AllOperands) => p.tok.kind == Tok::ValueId,
        Elem::Var(Var::Attr(i)) => {
            let ad = &def.attributes[*i];
            match llvm_attr_form(ad.constraint()) {
                LlvmAttrForm::IntEnum(e) => {
                    return p.tok.kind == Tok::Ident && e.case_by_str(p.tok.text).is_some()
                }
                LlvmAttrForm::OverflowFlags => return p.at_keyword("overflow"),
                LlvmAttrForm::DenseArray(_) => return p.at("["),
                LlvmAttrForm::Other => {}
            }
            if ad.constraint().enum_attr.is_some() {
                p.at("<")
            } else {
                !matches!(p.tok.kind, Tok::Eof) && !p.at(":") && !p.at("{")
            }
        }
        Elem::Var(Var::Region(_)) => p.at("{"),
        Elem::Var(Var::Successor(_)) => p.tok.kind == Tok::CaretId,
        Elem::Type(_) | Elem::FunctionalType(..) => true,
        _ => false,
    }
}

/// A comma-separated operand list, appended to `refs`; as in MLIR, a comma after an
/// operand always continues the list.
fn parse_value_list<'s>(p: &mut Parser<'s, '_>, refs: &mut Vec<OperandRef<'s>>) -> PResult<Range<usize>> {
    let start = refs.len();
    if p.tok.kind == Tok::ValueId {
        loop {
            refs.push(p.parse_operand_ref()?);
            if !p.eat(",") {
                break;
            }
        }
    }
    Ok(start..refs.len())
}

/// One type, or several for a variadic group; appended to `types`.
fn parse_type_list(p: &mut Parser, variadic: bool, types: &mut Vec<Type>) -> PResult<Range<usize>> {
    let start = types.len();
    types.push(p.parse_type()?);
    if variadic {
        while p.at(",") && peek_is_type(p) {
            p.bump();
            types.push(p.parse_type()?);
        }
    }
    Ok(start..types.len())
}

fn peek_is_type(p: &Parser) -> bool {
    let mut look = p.lexer_clone();
    let t = look.next_token();
    match t.kind {
        Tok::BangId => true,
        Tok::Ident => {
            let w = t.text;
            crate::types::FloatKind::from_keyword(w).is_some()
                || ["index", "none", "vector", "tensor", "memref", "complex", "tuple"].contains(&w)
                || (w.starts_with('i') || w.starts_with("si") || w.starts_with("ui"))
                    && w.trim_start_matches(|c: char| c.is_alphabetic()).chars().all(|c| c.is_ascii_digit())
                    && w.len() > 1
        }
        Tok::Punct => t.text == "(",
        _ => false,
    }
}

fn parse_elems<'s>(
    p: &mut Parser<'s, '_>,
    def: &'static OpDef,
    op: OpId,
    elems: &[Elem],
    st: &mut ParseState<'s>,
) -> PResult<()> {
    // Whether the last element read (spacing aside) was an attribute variable.
    let mut after_attr = false;
    for e in elems {
        let is_attr = matches!(e, Elem::Var(Var::Attr(_)));
        // Compatibility reading: between two attribute variables with no literal
        // between them, a `,` is accepted (never printed). The split-barrier ops
        // (`spirv.INTEL.ControlBarrierArrive/Wait`) had `$execution_scope `,`
        // $memory_scope `,` $memory_semantics` upstream for a while, the order
        // `spirv.ControlBarrier` prints with commas, and tests of that time still
        // write it; no attribute value starts with `,`, so nothing else changes.
        if is_attr && after_attr {
            p.eat(",");
        }
        if !matches!(e, Elem::Space | Elem::NoSpace | Elem::Newline) {
            after_attr = is_attr;
        }
        match e {
            Elem::Literal(lit) => {
                if p.tok.text == lit.text && matches!(p.tok.kind, Tok::Punct | Tok::Ident) {
                    p.bump();
                } else {
                    return p.error(format!("expected '{}'", lit.text));
                }
            }
            Elem::Space | Elem::NoSpace | Elem::Newline => {}
            Elem::AttrDict { with_keyword } => {
                if p.at("<") && !def.attributes.is_empty() {
                    parse_property_list(p, def, &mut st.properties)?;
                }
                if *with_keyword && !p.eat_keyword("attributes") {
                    continue;
                }
                if p.at("{") {
                    for a in p.parse_attribute_dict()? {
                        if def.attributes.iter().any(|d| d.name == a.name) {
                            st.properties.push(a);
                        } else {
                            st.attributes.push(a);
                        }
                    }
                }
            }
            Elem::Var(Var::Operand(i)) => {
                let start = st.refs.len();
                match def.operands[*i].arity {
                    Arity::Single => st.refs.push(p.parse_operand_ref()?),
                    Arity::Optional => {
                        if p.tok.kind == Tok::ValueId {
                            st.refs.push(p.parse_operand_ref()?);
                        }
                    }
                    Arity::Variadic => {
                        parse_value_list(p, &mut st.refs)?;
                    }
                }
                st.operand_refs[*i] = start..st.refs.len();
            }
            Elem::Var(Var::AllOperands) => st.all_operand_refs = Some(parse_value_list(p, &mut st.refs)?),
            Elem::Var(Var::Attr(i)) => {
                let ad = &def.attributes[*i];
                let value = parse_format_attr(p, ad)?;
                st.properties.push(NamedAttribute::new(ad.name, value));
            }
            Elem::Var(Var::Region(_)) => {
                p.parse_region_into(op, &[])?;
            }
            Elem::Var(Var::Successor(_)) => {
                let b = p.parse_successor()?;
                st.successors.push(b);
            }
            Elem::Var(Var::Result(_)) | Elem::Var(Var::AllResults) => {
                return p.error("not supported yet: result variables in formats")
            }
            Elem::Type(v) => match v {
                Var::Operand(i) => {
                    let variadic = def.operands[*i].arity == Arity::Variadic;
                    st.operand_types[*i] = Some(parse_type_list(p, variadic, &mut st.types)?);
                }
                Var::Result(i) => st.result_types[*i] = Some(p.parse_type()?),
                Var::AllOperands => st.all_operand_types = Some(parse_type_list(p, true, &mut st.types)?),
                Var::AllResults => st.all_result_types = Some(parse_type_list(p, true, &mut st.types)?),
                _ => return p.error("not supported yet: type of a non-value"),
            },
            Elem::FunctionalType(a, b) => {
                let fn_ty = p.parse_type()?;
                let TypeKind::Function { inputs, results } = p.ir.types.kind(fn_ty) else {
                    return p.error("expected function type");
                };
                let start = st.types.len();
                st.types.extend_from_slice(inputs);
                let middle = st.types.len();
                st.types.extend_from_slice(results);
                let end = st.types.len();
                assign_types(st, a, start..middle);
                assign_types(st, b, middle..end);
            }
            Elem::Optional { then, anchor, otherwise } => {
                // The group is present when its first element can start here.
                let first = then.first().map(|f| can_start(p, def, f)).unwrap_or(false);
                let _ = anchor;
                if first {
                    parse_elems(p, def, op, then, st)?;
                } else if !otherwise.is_empty() {
                    parse_elems(p, def, op, otherwise, st)?;
                }
            }
            Elem::ImageOperands(i) => {
                if p.eat("[") {
                    if p.tok.kind != Tok::String {
                        return p.error("expected image operands string");
                    }
                    let text =
                        String::from_utf8_lossy(&crate::text::lexer::unescape(p.bump().text)).into_owned();
                    p.expect("]")?;
                    st.properties.push(NamedAttribute::new(
                        def.attributes[*i].name,
                        Attribute::Dialect { name: "spirv.image_operands".into(), body: Some(text) },
                    ));
                }
            }
            Elem::Custom(name) => return p.error(format!("not supported yet: {name}")),
        }
    }
    Ok(())
}

/// Records that the types in `types` (a range of `st.types`) are those of `v`.
fn assign_types(st: &mut ParseState, v: &Var, types: Range<usize>) {
    match v {
        Var::AllOperands => st.all_operand_types = Some(types),
        Var::AllResults => st.all_result_types = Some(types),
        Var::Operand(i) => st.operand_types[*i] = Some(types),
        Var::Result(i) => st.result_types[*i] = st.types.get(types).and_then(|t| t.first().copied()),
        _ => {}
    }
}

/// The properties a declarative format leaves to its `attr-dict`, in newer MLIR's syntax
/// (see [`crate::PrintOptions::strict_properties`]): `<name = value, name, ...>`, each
/// value as the format variable of that name reads it, a name alone a unit attribute;
/// or the generic form's `<{name = value, ...}>`, which newer MLIR also reads.
fn parse_property_list(p: &mut Parser, def: &OpDef, properties: &mut Vec<NamedAttribute>) -> PResult<()> {
    p.expect("<")?;
    if p.at("{") {
        properties.extend(p.parse_attribute_dict()?);
        return p.expect(">");
    }
    loop {
        let name = p.tok.text;
        let Some(ad) = (matches!(p.tok.kind, Tok::Ident | Tok::String) && !name.is_empty())
            .then(|| def.attributes.iter().find(|ad| ad.name == name.trim_matches('"')))
            .flatten()
        else {
            return p.error(format!("expected a property of '{}'", def.name));
        };
        if properties.iter().any(|a| a.name == ad.name) {
            return p.error(format!("duplicate property '{}'", ad.name));
        }
        p.bump();
        let value = if p.eat("=") { parse_format_attr(p, ad)? } else { Attribute::Unit };
        properties.push(NamedAttribute::new(ad.name, value));
        if !p.eat(",") {
            break;
        }
    }
    p.expect(">")
}

fn parse_format_attr(p: &mut Parser, ad: &crate::opdef::AttrDef) -> PResult<Attribute> {
    let c = ad.constraint();
    match llvm_attr_form(c) {
        LlvmAttrForm::IntEnum(e) => {
            let Some(case) = (p.tok.kind == Tok::Ident).then(|| e.case_by_str(p.tok.text)).flatten() else {
                let cases: Vec<&str> = e.cases.iter().map(|c| c.str).collect();
                return p.error(format!("expected {} to be one of: {}", e.enum_name, cases.join(", ")));
            };
            p.bump();
            let ty = p.integer_type(64, Signedness::Signless);
            return Ok(Attribute::Integer { value: i128::from(case.value), ty });
        }
        LlvmAttrForm::OverflowFlags => {
            p.expect_keyword("overflow")?;
            p.expect("<")?;
            let mut value = 0u64;
            let flags = crate::opdef::ENUM_ATTRS
                .iter()
                .find(|e| e.enum_name == "IntegerOverflowFlags" && e.mnemonic.is_none());
            loop {
                let case = flags.and_then(|f| f.case_by_str(p.tok.text)).filter(|_| p.tok.kind == Tok::Ident);
                let Some(case) = case else { return p.error("expected ::mlir::LLVM::IntegerOverflowFlags") };
                p.bump();
                value |= case.value;
                if !p.eat(",") {
                    break;
                }
            }
            p.expect(">")?;
            let ty = p.integer_type(32, Signedness::Signless);
            return Ok(Attribute::Integer { value: i128::from(value), ty });
        }
        LlvmAttrForm::DenseArray(width) => {
            let element = p.integer_type(width, Signedness::Signless);
            p.expect("[")?;
            let mut values = Vec::new();
            if !p.at("]") {
                loop {
                    let negative = p.eat("-");
                    values.push(p.parse_typed_number(negative, element)?);
                    if !p.eat(",") {
                        break;
                    }
                }
            }
            p.expect("]")?;
            return Ok(Attribute::DenseArray { element, values });
        }
        LlvmAttrForm::Other => {}
    }
    if let Some(e) = c.enum_attr {
        let enum_def = &crate::opdef::ENUM_ATTRS[e as usize];
        let start = p.tok.offset;
        p.expect("<")?;
        let mut body = String::new();
        while !p.at(">") {
            if p.tok.kind == Tok::Eof {
                return Err(Box::new(ParseError {
                    notes: Vec::new(),
                    offset: start,
                    message: "expected '>'".into(),
                }));
            }
            body.push_str(p.bump().text);
        }
        p.bump();
        let mnemonic = enum_def.mnemonic.unwrap_or(enum_def.enum_name);
        return Ok(Attribute::Dialect { name: format!("spirv.{mnemonic}"), body: Some(body) });
    }
    // A bare integer for an integer attribute of fixed type (`I32Attr`); any other
    // attribute (`llvm.mlir.constant(-1 : i32)`) is read in full, its type included.
    if (matches!(p.tok.kind, Tok::Integer) || p.at("-")) && c.storage_type.contains("IntegerAttr") {
        let negative = p.eat("-");
        let width = if c.summary.contains("64-bit") {
            64
        } else if c.summary.contains("8-bit") {
            8
        } else {
            32
        };
        let ty = p.integer_type(width, Signedness::Signless);
        return p.parse_typed_number(negative, ty);
    }
    if c.storage_type.contains("UnitAttr") {
        return Ok(Attribute::Unit);
    }
    p.parse_attribute()
}

/// Resolves every operand and result type from the directives and the op's type
/// traits, then builds the op.
fn finish<'s>(
    p: &mut Parser<'s, '_>,
    def: &'static OpDef,
    format: &Format,
    op: OpId,
    st: &mut ParseState<'s>,
    start: usize,
) -> PResult<()> {
    // `operands` distributes over the groups like the printer's split.
    if let Some(all) = st.all_operand_refs.take() {
        let fixed = def.operands.iter().filter(|d| d.arity == Arity::Single).count();
        let extra = all.len().saturating_sub(fixed);
        let mut at = 0;
        for (i, d) in def.operands.iter().enumerate() {
            let n = if d.arity == Arity::Single { 1 } else { extra };
            let end = (at + n).min(all.len());
            st.operand_refs[i] = if at <= end { all.start + at..all.start + end } else { 0..0 };
            at += n;
        }
    }
    if let Some(all) = st.all_operand_types.take() {
        let mut at = 0;
        for i in 0..def.operands.len() {
            let n = st.operand_refs[i].len();
            st.operand_types[i] =
                Some(if at + n <= all.len() { all.start + at..all.start + at + n } else { 0..0 });
            at += n;
        }
    }
    if let Some(all) = st.all_result_types.take() {
        for (i, at) in all.enumerate() {
            if i < st.result_types.len() {
                st.result_types[i] = Some(st.types[at]);
            }
        }
    }
    infer_types(p, def, st);
    let mut operands = Vec::with_capacity(st.refs.len());
    for i in 0..def.operands.len() {
        let refs = st.operand_refs[i].clone();
        if refs.is_empty() {
            // Types written for a group with no operands is MLIR's count mismatch.
            if let Some(types) = st.operand_types[i].as_ref().filter(|t| !t.is_empty()) {
                return Err(Box::new(ParseError {
                    notes: Vec::new(),
                    offset: start,
                    message: format!(
                        "custom op '{}' number of operands and types do not match: got 0 operands and {} types",
                        def.name,
                        types.len()
                    ),
                }));
            }
            continue;
        }
        let types = st.operand_types[i].clone().ok_or_else(|| ParseError {
            notes: Vec::new(),
            offset: start,
            message: format!(
                "not supported yet: inferring the type of operand '{}' of {}",
                def.operands[i].name, def.name
            ),
        })?;
        // One type written for a single group stands for all its references.
        let repeated = types.len() == 1 && refs.len() > 1 && def.operands[i].arity == Arity::Single;
        if !repeated && refs.len() != types.len() {
            return Err(Box::new(ParseError {
                notes: Vec::new(),
                offset: start,
                message: format!(
                    "custom op '{}' number of operands and types do not match: got {} operands and {} types",
                    def.name,
                    refs.len(),
                    types.len()
                ),
            }));
        }
        for (j, r) in refs.enumerate() {
            let ty = st.types[if repeated { types.start } else { types.start + j }];
            operands.push(p.resolve_operand(&st.refs[r], ty)?);
        }
    }
    for (i, r) in def.results.iter().enumerate() {
        match st.result_types[i] {
            Some(t) => st.result_list.push(t),
            None if r.arity != Arity::Single => {}
            None => {
                return Err(Box::new(ParseError {
                    notes: Vec::new(),
                    offset: start,
                    message: format!(
                        "not supported yet: inferring the type of result '{}' of {}",
                        r.name, def.name
                    ),
                }))
            }
        }
    }
    let segments = if format.attr_sized_operands {
        let i32t = p.integer_type(32, Signedness::Signless);
        let sizes = (0..def.operands.len())
            .map(|i| {
                let count = st.operand_types[i].as_ref().map_or(0, |t| t.len());
                Attribute::Integer { value: count as i128, ty: i32t }
            })
            .collect();
        Some(NamedAttribute::new(
            "operandSegmentSizes",
            Attribute::DenseArray { element: i32t, values: sizes },
        ))
    } else {
        None
    };
    p.finish_op(op, operands, &st.result_list);
    // The op's lists are allocated at their size; the state keeps its room for reuse.
    let mut properties = Vec::with_capacity(st.properties.len() + usize::from(segments.is_some()));
    properties.append(&mut st.properties);
    properties.extend(segments);
    properties.sort_by(|a, b| a.name.cmp(&b.name));
    let o = p.ir.op_mut(op);
    o.properties = properties;
    if !st.attributes.is_empty() {
        o.attributes = st.attributes.drain(..).collect();
    }
    if !st.successors.is_empty() {
        o.successors = st.successors.drain(..).collect();
    }
    Ok(())
}

/// Applies the type-equality and type-derivation traits until nothing changes.
fn infer_types(p: &mut Parser, def: &OpDef, st: &mut ParseState) {
    let plan = InferPlan::of(def);
    let n_ops = def.operands.len();
    let get = |st: &ParseState, i: usize| -> Option<Type> {
        if i < n_ops {
            st.first_operand_type(i)
        } else {
            st.result_types[i - n_ops]
        }
    };
    // Returns whether it set something.
    let set = |st: &mut ParseState, i: usize, t: Type| {
        if i < n_ops {
            if st.operand_types[i].is_none() {
                st.types.push(t);
                st.operand_types[i] = Some(st.types.len() - 1..st.types.len());
                return true;
            }
        } else if st.result_types[i - n_ops].is_none() {
            st.result_types[i - n_ops] = Some(t);
            return true;
        }
        false
    };
    for &(i, width, signedness) in &plan.buildable {
        if get(st, i).is_none() {
            let t = p.integer_type(width, signedness);
            set(st, i, t);
        }
    }
    // The derivations already made from a known source: made again, they would find
    // the same types (a derived type is interned the first time only).
    let mut derived_once = 0u64;
    // Each rule can enable another; a few rounds reach the fixpoint (one, when a
    // single equality is all there is).
    let rounds = if plan.derived.is_empty() && plan.same_type.len() <= 1 { 1 } else { 4 };
    for _ in 0..rounds {
        let mut changed = false;
        for g in &plan.same_type {
            if let Some(t) = g.iter().find_map(|&i| get(st, i)) {
                for &i in g {
                    changed |= set(st, i, t);
                }
            }
        }
        for (rule, &(si, di, derive)) in plan.derived.iter().enumerate() {
            let Some(src_ty) = get(st, si) else { continue };
            let bit = 1u64.checked_shl(rule as u32).unwrap_or(0);
            if derived_once & bit != 0 && get(st, di).is_some() {
                continue;
            }
            derived_once |= bit;
            let derived = match derive {
                InferDerive::Pointee => match p.ir.types.kind(src_ty) {
                    TypeKind::Pointer { pointee, .. } => Some(*pointee),
                    _ => None,
                },
                InferDerive::BoolEquivalent => Some(bool_equivalent(p, src_ty)),
                InferDerive::ImageOfSampledImage => match p.ir.types.kind(src_ty) {
                    TypeKind::SampledImage(image) => Some(*image),
                    _ => None,
                },
                InferDerive::ElementType => match p.ir.types.kind(src_ty) {
                    TypeKind::Vector { element, .. } => Some(*element),
                    TypeKind::CooperativeMatrix { element, .. } => Some(*element),
                    _ => Some(src_ty),
                },
                InferDerive::ValueAndFlag => {
                    let i1 = p.integer_type(1, Signedness::Signless);
                    Some(p.ir.types.llvm_struct(false, vec![src_ty, i1]))
                }
            };
            if let Some(t) = derived {
                changed |= set(st, di, t);
            }
        }
        if !changed {
            break;
        }
    }
}

/// `i1`, or `src_ty`'s shape of `i1`.
fn bool_equivalent(p: &mut Parser, src_ty: Type) -> Type {
    let i1 = p.integer_type(1, Signedness::Signless);
    let shaped = match p.ir.types.kind(src_ty) {
        TypeKind::Vector { shape, scalable, .. } => {
            Some(TypeKind::Vector { shape: shape.clone(), scalable: scalable.clone(), element: i1 })
        }
        TypeKind::CooperativeMatrix { rows, columns, scope, usage, .. } => {
            Some(TypeKind::CooperativeMatrix {
                rows: *rows,
                columns: *columns,
                element: i1,
                scope: scope.clone(),
                usage: usage.clone(),
            })
        }
        _ => None,
    };
    shaped.map_or(i1, |kind| p.ir.types.intern(kind))
}

/// How the declarative-format parser infers the types a format leaves out, from an
/// op's ODS traits; made once per op definition. Indices count the operand groups,
/// then the result groups.
#[derive(Default)]
struct InferPlan {
    /// Groups whose constraint admits one type: (index, width, signedness).
    buildable: Vec<(usize, u32, Signedness)>,
    /// Groups that all have one type (`SameOperandsAndResultType`, `AllTypesMatch`…).
    same_type: Vec<Vec<usize>>,
    /// (source, destination, how): the destination's type follows from the source's.
    derived: Vec<(usize, usize, InferDerive)>,
}

#[derive(Clone, Copy)]
enum InferDerive {
    Pointee,
    /// `i1`, or the same shape of `i1`.
    BoolEquivalent,
    ImageOfSampledImage,
    ElementType,
    /// `!llvm.struct<(T, i1)>`: `llvm.cmpxchg`'s result, which MLIR infers in C++
    /// (`inferReturnTypes`) from the value's type.
    ValueAndFlag,
}

impl InferPlan {
    fn of(def: &OpDef) -> &'static InferPlan {
        static PLANS: OnceLock<Vec<OnceLock<InferPlan>>> = OnceLock::new();
        static NONE: OnceLock<InferPlan> = OnceLock::new();
        let plans = PLANS.get_or_init(|| OP_DEFS.iter().map(|_| OnceLock::new()).collect());
        match crate::opdef::op_def_index(def) {
            Some(i) => plans[i].get_or_init(|| InferPlan::new(def)),
            // Only the generated definitions have formats; keep a safe answer anyway.
            None => NONE.get_or_init(InferPlan::default),
        }
    }

    fn new(def: &OpDef) -> InferPlan {
        let names: Vec<&str> =
            def.operands.iter().map(|o| o.name).chain(def.results.iter().map(|r| r.name)).collect();
        let n_ops = def.operands.len();
        let index = |name: &str| names.iter().position(|n| *n == name);
        let mut plan = InferPlan::default();
        for i in 0..names.len() {
            let c =
                if i < n_ops { def.operands[i].constraint() } else { def.results[i - n_ops].constraint() };
            match c.summary {
                "bool" | "1-bit signless integer" => plan.buildable.push((i, 1, Signedness::Signless)),
                "32-bit signless integer" | "Int32" => plan.buildable.push((i, 32, Signedness::Signless)),
                _ => {}
            }
        }
        if def.traits.contains(&"SameOperandsAndResultType") {
            plan.same_type.push((0..names.len()).collect());
        }
        if def.traits.contains(&"SameTypeOperands") {
            plan.same_type.push((0..n_ops).collect());
        }
        for t in def.traits {
            if let Some(list) = t.strip_prefix("AllTypesMatch<").and_then(|r| r.strip_suffix('>')) {
                plan.same_type.push(list.split(", ").filter_map(index).collect());
            }
        }
        if def.name == "llvm.cmpxchg" {
            if let (Some(val), Some(res)) = (index("val"), index("res")) {
                plan.derived.push((val, res, InferDerive::ValueAndFlag));
            }
        }
        for pt in def.pred_traits {
            let Some((src, dst)) = pt
                .name
                .split_once('<')
                .and_then(|(_, r)| r.strip_suffix('>'))
                .and_then(|r| r.split_once(", "))
            else {
                continue;
            };
            let (Some(si), Some(di)) = (index(src), index(dst)) else { continue };
            // `TypesMatchWith` without a transform (`llvm.atomicrmw`'s value and result).
            if pt.summary.ends_with("have the same type") {
                plan.same_type.push(vec![si, di]);
                continue;
            }
            let derive = if pt.name.starts_with("PointeeTypeMatchTrait") {
                InferDerive::Pointee
            } else if pt.summary.contains("`i1` equivalent") {
                InferDerive::BoolEquivalent
            } else if pt.summary.contains("image type of") {
                InferDerive::ImageOfSampledImage
            } else if pt.summary.contains("element type") {
                InferDerive::ElementType
            } else {
                continue;
            };
            plan.derived.push((si, di, derive));
        }
        plan
    }
}

impl Parser<'_, '_> {
    /// A copy of the lexer positioned after the current token, for lookahead.
    pub(crate) fn lexer_clone(&self) -> crate::text::lexer::Lexer<'_> {
        self.lexer_after_current()
    }
}

#[cfg(test)]
mod tests {
    use crate::{parse, print, PrintOptions};

    #[test]
    fn ops_whose_types_break_their_format_print_generic_and_read_back() {
        // A deserialized `OpIAdd` of an `int` and a `uint`: the custom form would give
        // both operands the result's type.
        let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n  \
                    spirv.func @f(%a: i32, %b: si32) -> i32 \"None\" {\n    \
                    %0 = \"spirv.IAdd\"(%a, %b) : (i32, si32) -> i32\n    \
                    %1 = spirv.IAdd %a, %a : i32\n    \
                    spirv.ReturnValue %0 : i32\n  }\n}\n";
        let (ir, top) = parse(text, "t.mlir").expect("parses");
        let printed = print(&ir, top, PrintOptions::default());
        assert!(printed.contains("%0 = \"spirv.IAdd\"(%arg0, %arg1) : (i32, si32) -> i32\n"), "{printed}");
        assert!(printed.contains("%1 = spirv.IAdd %arg0, %arg0 : i32\n"), "{printed}");
        let (again, top) = parse(&printed, "t.mlir").expect("reads its own output");
        assert_eq!(print(&again, top, PrintOptions::default()), printed);
    }

    /// Between two attribute variables with no literal between them, a `,` is read
    /// (the split barriers' earlier upstream syntax) and never printed; the rule is the
    /// format's, so it holds for other such formats too, and only a single `,` there.
    #[test]
    fn a_comma_between_adjacent_attribute_variables_is_read_not_printed() {
        let body = |ops: &str| {
            format!(
                "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {{\n  \
                 spirv.func @f(%p: !spirv.ptr<i32, Workgroup>, %v: i32) \"None\" {{\n{ops}    spirv.Return\n  }}\n}}\n"
            )
        };
        let printed = |ops: &str| {
            let (ir, top) = parse(&body(ops), "t.mlir").expect("parses");
            print(&ir, top, PrintOptions::default())
        };
        let barriers = |sep: &str| {
            format!(
                "    spirv.INTEL.ControlBarrierArrive <Workgroup>{sep} <Workgroup>{sep} <CrossWorkgroupMemory|WorkgroupMemory>\n    \
                 spirv.INTEL.ControlBarrierWait <Workgroup>{sep} <Device>{sep} <WorkgroupMemory>\n    \
                 %0 = spirv.AtomicIAdd <Device>{sep} <Acquire> %p, %v : !spirv.ptr<i32, Workgroup>\n"
            )
        };
        let without = printed(&barriers(""));
        assert_eq!(printed(&barriers(",")), without);
        assert!(
            without.contains(
                "spirv.INTEL.ControlBarrierArrive <Workgroup> <Workgroup> <CrossWorkgroupMemory|WorkgroupMemory>\n"
            ),
            "{without}"
        );
        assert!(
            without.contains("spirv.INTEL.ControlBarrierWait <Workgroup> <Device> <WorkgroupMemory>\n"),
            "{without}"
        );
        assert!(without.contains("%0 = spirv.AtomicIAdd <Device> <Acquire> %arg0, %arg1 : "), "{without}");
        // Only one comma, only between the two attributes.
        for ops in [
            "    spirv.INTEL.ControlBarrierArrive <Workgroup>,, <Workgroup> <WorkgroupMemory>\n",
            "    spirv.INTEL.ControlBarrierArrive <Workgroup> <Workgroup> <WorkgroupMemory>,\n",
            "    %0 = spirv.AtomicIAdd <Device> <Acquire>, %p, %v : !spirv.ptr<i32, Workgroup>\n",
        ] {
            assert!(parse(&body(ops), "t.mlir").is_err(), "{ops}");
        }
    }

    /// Ops of simple formats are read by their fast plan; text that strays from it is
    /// read (or refused) by the interpreter, as before.
    #[test]
    fn fast_plans_read_as_the_interpreter_does() {
        let body = |ops: &str| {
            format!(
                "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {{\n  \
                 spirv.func @f(%a: f32, %b: i32, %c: vector<2xi32>) \"None\" {{\n{ops}    spirv.Return\n  }}\n}}\n"
            )
        };
        let printed = |ops: &str| {
            let (ir, top) = parse(&body(ops), "t.mlir").expect("parses");
            print(&ir, top, PrintOptions::default())
        };
        let out = printed(
            "    %0 = spirv.FAdd %a, %a {x = 1 : i32} : f32\n    \
             %1 = spirv.SLessThan %c, %c : vector<2xi32>\n    \
             %2 = spirv.ConvertSToF %b : i32 to f32\n    \
             %3 = spirv.IAdd %4, %b : i32\n    \
             %4 = spirv.IAdd %b, %b : i32\n",
        );
        assert!(out.contains("%0 = spirv.FAdd %arg0, %arg0 {x = 1 : i32} : f32\n"), "{out}");
        assert!(out.contains("%1 = spirv.SLessThan %arg2, %arg2 : vector<2xi32>\n"), "{out}");
        assert!(out.contains("%2 = spirv.ConvertSToF %arg1 : i32 to f32\n"), "{out}");
        assert!(out.contains("%3 = spirv.IAdd %4, %arg1 : i32\n"), "{out}");
        // Strays: a missing `to`, a type that contradicts a prior use, a list too short.
        for (ops, message) in [
            ("    %0 = spirv.ConvertSToF %b : i32 f32\n", "expected 'to'"),
            ("    %0 = spirv.FAdd %b, %b : f32\n", "expects different type than prior uses"),
            ("    %0 = spirv.FAdd %a : f32\n", "number of operands and types do not match"),
        ] {
            let err = parse(&body(ops), "t.mlir").err().map(|e| e.to_string()).unwrap_or_default();
            assert!(err.contains(message), "{ops}: {err}");
        }
    }
}
