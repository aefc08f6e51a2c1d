//! Assembler for SPIRV-Tools' assembly syntax, producing exactly what `spirv-as`
//! (2023.1) produces: same id numbering, header, literal encodings.

use crate::idmap::IdMap;
use crate::numfmt::FloatLayout;
use crate::write::encode_string;
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_grammar::{self as grammar, opcode, Availability, Category, OperandKind, Quantifier, Version};

/// An assembly error with its 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: error: {message}")]
pub struct AsmError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// The target environments `spirv-as --target-env` accepts, in its matching order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetEnv {
    pub name: &'static str,
    pub version: Version,
}

const TARGET_ENVS: &[(&str, (u8, u8))] = &[
    ("vulkan1.1spv1.4", (1, 4)),
    ("vulkan1.0", (1, 0)),
    ("vulkan1.1", (1, 3)),
    ("vulkan1.2", (1, 5)),
    ("vulkan1.3", (1, 6)),
    ("spv1.0", (1, 0)),
    ("spv1.1", (1, 1)),
    ("spv1.2", (1, 2)),
    ("spv1.3", (1, 3)),
    ("spv1.4", (1, 4)),
    ("spv1.5", (1, 5)),
    ("spv1.6", (1, 6)),
    ("opencl1.2embedded", (1, 0)),
    ("opencl1.2", (1, 0)),
    ("opencl2.0embedded", (1, 0)),
    ("opencl2.0", (1, 0)),
    ("opencl2.1embedded", (1, 0)),
    ("opencl2.1", (1, 0)),
    ("opencl2.2embedded", (1, 2)),
    ("opencl2.2", (1, 2)),
    ("opengl4.0", (1, 0)),
    ("opengl4.1", (1, 0)),
    ("opengl4.2", (1, 0)),
    ("opengl4.3", (1, 0)),
    ("opengl4.5", (1, 0)),
];

impl TargetEnv {
    /// Looks up an environment the way `spirv-as` does: the first known name that
    /// is a prefix of `name`.
    pub fn parse(name: &str) -> Option<TargetEnv> {
        TARGET_ENVS
            .iter()
            .find(|(known, _)| name.starts_with(known))
            .map(|&(known, (major, minor))| TargetEnv { name: known, version: Version::new(major, minor) })
    }

    pub fn names() -> impl Iterator<Item = &'static str> {
        TARGET_ENVS.iter().map(|(name, _)| *name)
    }
}

impl Default for TargetEnv {
    fn default() -> Self {
        TargetEnv { name: "spv1.6", version: Version::new(1, 6) }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AsmOptions {
    pub target_env: TargetEnv,
    /// Keep numeric ids (`%12`) as those numbers (`--preserve-numeric-ids`).
    pub preserve_numeric_ids: bool,
}

/// The generator word `spirv-as` writes: Khronos SPIR-V Tools Assembler, version 0.
pub const GENERATOR_WORD: u32 = 7 << 16;

/// Assembles text to a module's words (header included, host order).
pub fn assemble(text: &str, options: &AsmOptions) -> std::result::Result<Vec<u32>, AsmError> {
    let mut asm = Assembler::new(text, options);
    asm.run()?;
    let bound = asm.ids.bound;
    let mut words = asm.words;
    words[0] = grammar::MAGIC_NUMBER;
    words[1] = options.target_env.version.word();
    words[2] = GENERATOR_WORD;
    words[3] = bound;
    words[4] = 0;
    Ok(words)
}

#[derive(Clone, Copy, Debug)]
struct Token<'t> {
    text: &'t str,
    line: usize,
    column: usize,
}

/// Splits text into words on demand: whitespace separates, `;` comments to end of
/// line, quotes and backslash escapes keep separators inside a word. A NUL ends the text.
#[derive(Clone)]
struct Lexer<'t> {
    text: &'t str,
    end: usize,
    i: usize,
    line: usize,
    column: usize,
}

impl<'t> Lexer<'t> {
    fn new(text: &'t str) -> Self {
        let end = text.as_bytes().iter().position(|&b| b == 0).unwrap_or(text.len());
        Lexer { text, end, i: 0, line: 0, column: 0 }
    }

    fn next_token(&mut self) -> Option<Token<'t>> {
        let bytes = self.text.as_bytes();
        while self.i < self.end {
            match bytes[self.i] {
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    self.column = 0;
                }
                b' ' | b'\t' | b'\r' => {
                    self.i += 1;
                    self.column += 1;
                }
                b';' => {
                    while self.i < self.end && bytes[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                _ => {
                    let start = self.i;
                    let (line, column) = (self.line, self.column);
                    let mut quoted = false;
                    let mut escaped = false;
                    while self.i < self.end {
                        let b = bytes[self.i];
                        if escaped {
                            escaped = false;
                        } else if b == b'\\' {
                            escaped = true;
                        } else if b == b'"' {
                            quoted = !quoted;
                        } else if !quoted && matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b';') {
                            break;
                        }
                        // A raw newline inside quotes advances the column, as in SPIRV-Tools.
                        self.i += 1;
                        self.column += 1;
                    }
                    // Token boundaries are ASCII bytes, so slicing stays on char boundaries.
                    return Some(Token { text: &self.text[start..self.i], line, column });
                }
            }
        }
        None
    }
}

/// The token stream with the two tokens of lookahead the grammar needs.
struct Tokens<'t> {
    lexer: Lexer<'t>,
    current: Option<Token<'t>>,
    next: Option<Token<'t>>,
    /// Where the last consumed token ended (0-based line, column).
    last_end: (usize, usize),
}

impl<'t> Tokens<'t> {
    fn new(text: &'t str) -> Self {
        let mut lexer = Lexer::new(text);
        let current = lexer.next_token();
        let next = lexer.next_token();
        Tokens { lexer, current, next, last_end: (0, 0) }
    }

    fn bump(&mut self) {
        if let Some(t) = self.current {
            self.last_end = (t.line, t.column + t.text.len());
        }
        self.current = self.next.take();
        self.next = self.lexer.next_token();
    }
}

/// Where the end of the text is, for "found the end of the stream" errors.
fn end_position(text: &str) -> (usize, usize) {
    let text = &text[..text.find('\0').unwrap_or(text.len())];
    let mut line = 0;
    let mut column = 0;
    for b in text.bytes() {
        if b == b'\n' {
            line += 1;
            column = 0;
        } else {
            column += 1;
        }
    }
    (line, column)
}

struct Ids<'t> {
    named: FxHashMap<&'t str, u32>,
    /// Ids spelled as canonical decimals, by that number (0 = not seen).
    numeric: IdMap<u32>,
    preserved: FxHashSet<u32>,
    next: u32,
    bound: u32,
}

impl<'t> Ids<'t> {
    fn get(&mut self, name: &'t str) -> u32 {
        if !self.preserved.is_empty() {
            if let Some(value) = parse_c_unsigned(name).and_then(|v| u32::try_from(v).ok()) {
                if self.preserved.contains(&value) {
                    self.bound = self.bound.max(value.wrapping_add(1));
                    return value;
                }
            }
        }
        // Most ids in disassembled text are plain numbers: index those by value
        // instead of hashing the text (`%7` and `%007` stay distinct names).
        let numeric = canonical_decimal(name);
        let known = match numeric {
            Some(n) => *self.numeric.get(n),
            None => self.named.get(name).copied().unwrap_or(0),
        };
        if known != 0 {
            return known;
        }
        let mut id = self.next;
        self.next += 1;
        while self.preserved.contains(&id) {
            id = self.next;
            self.next += 1;
        }
        match numeric {
            Some(n) => self.numeric.set(n, id),
            None => {
                self.named.insert(name, id);
            }
        }
        self.bound = self.bound.max(id + 1);
        id
    }
}

/// The value of a decimal without leading zeros that fits in a u32.
fn canonical_decimal(name: &str) -> Option<u32> {
    let b = name.as_bytes();
    if b.is_empty() || b.len() > 10 || (b[0] == b'0' && b.len() > 1) {
        return None;
    }
    let mut value: u64 = 0;
    for &d in b {
        if !d.is_ascii_digit() {
            return None;
        }
        value = value * 10 + (d - b'0') as u64;
    }
    u32::try_from(value).ok()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NumberType {
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

#[derive(Clone, Copy)]
enum ExtSet {
    Known(&'static grammar::ExtInstSet),
    UnknownNonSemantic,
}

#[derive(Clone, Copy)]
struct Expected {
    kind: OperandKind,
    quantifier: Quantifier,
}

struct Assembler<'t> {
    tokens: Tokens<'t>,
    text: &'t str,
    env: Version,
    words: Vec<u32>,
    ids: Ids<'t>,
    number_types: FxHashMap<u32, NumberType>,
    value_types: IdMap<u32>,
    type_ids: IdMap<bool>,
    ext_sets: FxHashMap<u32, ExtSet>,
}

type Result<T> = std::result::Result<T, AsmError>;

fn is_start_of_op(word: &str) -> bool {
    let b = word.as_bytes();
    b.len() >= 3 && b[0] == b'O' && b[1] == b'p' && b[2].is_ascii_uppercase()
}

fn available(a: &Availability, env: Version) -> bool {
    let in_version =
        a.min_version.is_some_and(|min| min <= env) && a.last_version.is_none_or(|last| env <= last);
    in_version || !a.extensions.is_empty() || !a.capabilities.is_empty()
}

/// Opcodes `OpSpecConstantOp` may compute (SPIR-V spec, OpSpecConstantOp).
const SPEC_CONSTANT_OPS: &[u16] = &[
    opcode::OpSConvert,
    opcode::OpUConvert,
    opcode::OpFConvert,
    opcode::OpSNegate,
    opcode::OpNot,
    opcode::OpIAdd,
    opcode::OpISub,
    opcode::OpIMul,
    opcode::OpUDiv,
    opcode::OpSDiv,
    opcode::OpUMod,
    opcode::OpSRem,
    opcode::OpSMod,
    opcode::OpShiftRightLogical,
    opcode::OpShiftRightArithmetic,
    opcode::OpShiftLeftLogical,
    opcode::OpBitwiseOr,
    opcode::OpBitwiseXor,
    opcode::OpBitwiseAnd,
    opcode::OpVectorShuffle,
    opcode::OpCompositeExtract,
    opcode::OpCompositeInsert,
    opcode::OpLogicalOr,
    opcode::OpLogicalAnd,
    opcode::OpLogicalNot,
    opcode::OpLogicalEqual,
    opcode::OpLogicalNotEqual,
    opcode::OpSelect,
    opcode::OpIEqual,
    opcode::OpINotEqual,
    opcode::OpULessThan,
    opcode::OpSLessThan,
    opcode::OpUGreaterThan,
    opcode::OpSGreaterThan,
    opcode::OpULessThanEqual,
    opcode::OpSLessThanEqual,
    opcode::OpUGreaterThanEqual,
    opcode::OpSGreaterThanEqual,
    opcode::OpQuantizeToF16,
    opcode::OpConvertFToS,
    opcode::OpConvertSToF,
    opcode::OpConvertFToU,
    opcode::OpConvertUToF,
    opcode::OpConvertPtrToU,
    opcode::OpConvertUToPtr,
    opcode::OpGenericCastToPtr,
    opcode::OpPtrCastToGeneric,
    opcode::OpBitcast,
    opcode::OpFNegate,
    opcode::OpFAdd,
    opcode::OpFSub,
    opcode::OpFMul,
    opcode::OpFDiv,
    opcode::OpFRem,
    opcode::OpFMod,
    opcode::OpAccessChain,
    opcode::OpInBoundsAccessChain,
    opcode::OpPtrAccessChain,
    opcode::OpInBoundsPtrAccessChain,
    opcode::OpCooperativeMatrixLengthNV,
    opcode::OpCooperativeMatrixLengthKHR,
];

impl<'t> Assembler<'t> {
    fn new(text: &'t str, options: &AsmOptions) -> Self {
        let mut preserved = FxHashSet::default();
        if options.preserve_numeric_ids {
            // The dry run: every id spelled as a number keeps that number.
            let mut lexer = Lexer::new(text);
            while let Some(t) = lexer.next_token() {
                if let Some(name) = t.text.strip_prefix('%') {
                    if let Some(v) = parse_c_unsigned(name).and_then(|v| u32::try_from(v).ok()) {
                        preserved.insert(v);
                    }
                }
            }
        }
        Assembler {
            tokens: Tokens::new(text),
            text,
            env: options.target_env.version,
            words: {
                let mut words = Vec::with_capacity(text.len() / 6 + 5);
                words.resize(5, 0);
                words
            },
            ids: Ids {
                named: named_with_capacity(text.len() / 256),
                numeric: IdMap::new(u32::MAX, text.len() / 4),
                preserved,
                next: 1,
                bound: 1,
            },
            number_types: FxHashMap::default(),
            // Ids come from the text, so per-id tables are sized by the text, not the ids.
            value_types: IdMap::new(u32::MAX, text.len() / 4),
            type_ids: IdMap::new(u32::MAX, text.len() / 4),
            ext_sets: FxHashMap::default(),
        }
    }

    fn error_at(&self, token: Option<&Token>, message: impl Into<String>) -> AsmError {
        let (line, column) = match token {
            Some(t) => (t.line, t.column),
            None => end_position(self.text),
        };
        AsmError { line: line + 1, column: column + 1, message: message.into() }
    }

    /// An error placed just after the last consumed token, where SPIRV-Tools reports
    /// problems found after reading a word (result ids, type redefinitions).
    fn error_after_last(&self, message: impl Into<String>) -> AsmError {
        let (line, column) = self.tokens.last_end;
        AsmError { line: line + 1, column: column + 1, message: message.into() }
    }

    fn peek(&self) -> Option<Token<'t>> {
        self.tokens.current
    }

    fn bump(&mut self) {
        self.tokens.bump();
    }

    /// SPIRV-Tools' `isStartOfNewInst`: `Op[A-Z]…`, or `%id` followed by `=`.
    fn at_new_instruction(&self) -> bool {
        match self.tokens.current {
            Some(t) if is_start_of_op(t.text) => true,
            Some(t) if t.text.starts_with('%') => self.tokens.next.is_some_and(|n| n.text.starts_with('=')),
            _ => false,
        }
    }

    fn run(&mut self) -> Result<()> {
        if self.text.is_empty() {
            return Err(AsmError { line: 1, column: 1, message: "Missing assembly text.".into() });
        }
        while let Some(first) = self.peek() {
            self.instruction(first)?;
        }
        Ok(())
    }

    fn instruction(&mut self, first: Token<'t>) -> Result<()> {
        if first.text.starts_with('!') {
            return self.raw_instruction(first);
        }
        let mut result: Option<Token<'t>> = None;
        let op_token = if first.text.starts_with('%') {
            result = Some(first);
            self.bump();
            let eq = self.peek().ok_or_else(|| self.error_at(None, "Expected '=', found end of stream."))?;
            if eq.text != "=" {
                return Err(self.error_at(Some(&eq), "'=' expected after result id."));
            }
            self.bump();
            let op =
                self.peek().ok_or_else(|| self.error_at(None, "Expected opcode, found end of stream."))?;
            if !op.text.starts_with("Op") {
                return Err(self.error_at(Some(&op), format!("Invalid Opcode prefix '{}'.", op.text)));
            }
            op
        } else if first.text.starts_with("Op") {
            first
        } else {
            return Err(self.error_at(
                Some(&first),
                format!(
                    "Expected <opcode> or <result-id> at the beginning of an instruction, found '{}'.",
                    first.text
                ),
            ));
        };
        self.bump();
        let inst = grammar::instruction_by_name(op_token.text)
            .filter(|i| available(&i.availability, self.env))
            .ok_or_else(|| {
                self.error_at(Some(&op_token), format!("Invalid Opcode name '{}'", op_token.text))
            })?;
        let has_result = inst.operands.iter().any(|o| o.kind == OperandKind::IdResult);
        match (result, has_result) {
            (Some(r), false) => {
                return Err(self.error_at(
                    Some(&op_token),
                    format!(
                        "Cannot set ID {} because {} does not produce a result ID.",
                        r.text, op_token.text
                    ),
                ))
            }
            (None, true) => {
                return Err(self.error_at(
                    Some(&op_token),
                    format!(
                        "Expected <result-id> at the beginning of an instruction, found '{}'.",
                        op_token.text
                    ),
                ))
            }
            _ => {}
        }
        let start = self.words.len();
        self.words.push(inst.opcode as u32);
        let mut stack: Vec<Expected> = Vec::with_capacity(8);
        push_operands(&mut stack, inst.operands);
        let mut state = InstState { opcode: inst.opcode, result_type: 0, result_id: 0, ext_set: None, start };
        while let Some(expected) = stack.pop() {
            if expected.kind == OperandKind::IdResult {
                let r = result.expect("checked above");
                let id = self.id_of(&r).map_err(|e| self.error_after_last(e.message))?;
                state.result_id = id;
                self.words.push(id);
                continue;
            }
            let exhausted = self.peek().is_none() || self.at_new_instruction();
            if exhausted {
                if expected.quantifier == Quantifier::One {
                    let found = if self.peek().is_none() {
                        "the end of the stream"
                    } else {
                        "the next instruction instead"
                    };
                    return Err(self.error_at(
                        self.peek().as_ref(),
                        format!("Expected operand for {} instruction, but found {found}.", op_token.text),
                    ));
                }
                continue;
            }
            if expected.quantifier == Quantifier::Variadic {
                stack.push(expected);
            }
            let token = self.peek().expect("not exhausted");
            if token.text.starts_with('!') {
                // A raw word: it and everything after it are taken verbatim.
                stack.clear();
                self.free_form_operands()?;
                break;
            }
            self.bump();
            self.operand(&token, expected.kind, &mut stack, &mut state)?;
        }
        let count = self.words.len() - start;
        if count > 0xffff {
            return Err(self.error_at(Some(&op_token), format!("Instruction too long: {count} words")));
        }
        self.words[start] |= (count as u32) << 16;
        self.record(&state)?;
        Ok(())
    }

    /// `!<word>` at the start of a line: a raw first word and free-form operands.
    fn raw_instruction(&mut self, token: Token<'t>) -> Result<()> {
        let word = parse_immediate(token.text).ok_or_else(|| {
            self.error_at(Some(&token), format!("Invalid immediate integer: {}", token.text))
        })?;
        self.bump();
        self.words.push(word);
        self.free_form_operands()
    }

    fn free_form_operands(&mut self) -> Result<()> {
        while let Some(token) = self.peek().filter(|_| !self.at_new_instruction()) {
            self.bump();
            let t = token.text;
            if t.starts_with('!') {
                let word = parse_immediate(t)
                    .ok_or_else(|| self.error_at(Some(&token), format!("Invalid immediate integer: {t}")))?;
                self.words.push(word);
            } else if t.starts_with('%') {
                let id = self.id_of(&token)?;
                self.words.push(id);
            } else if t.starts_with('"') {
                let bytes = self.string(&token)?;
                encode_string(&bytes, &mut self.words);
            } else {
                let number = if t.contains('.') {
                    NumberType::Float { width: 32 }
                } else if t.starts_with('-') {
                    NumberType::Int { width: 32, signed: true }
                } else {
                    NumberType::Int { width: 32, signed: false }
                };
                self.number(&token, number)?;
            }
        }
        Ok(())
    }

    fn id_of(&mut self, token: &Token<'t>) -> Result<u32> {
        let name = token
            .text
            .strip_prefix('%')
            .ok_or_else(|| self.error_at(Some(token), "Expected id to start with %."))?;
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(self.error_at(Some(token), format!("Invalid ID {name}")));
        }
        Ok(self.ids.get(name))
    }

    fn string(&self, token: &Token) -> Result<Vec<u8>> {
        let t = token.text.as_bytes();
        let invalid = || self.error_at(Some(token), format!("Invalid literal string '{}'.", token.text));
        if t.len() < 2 || t[0] != b'"' {
            return Err(invalid());
        }
        let mut out = Vec::with_capacity(t.len());
        let mut i = 1;
        let mut closed = false;
        while i < t.len() {
            match t[i] {
                b'\\' if i + 1 < t.len() => {
                    out.push(t[i + 1]);
                    i += 2;
                }
                b'"' => {
                    if i == t.len() - 1 {
                        closed = true;
                        break;
                    }
                    out.push(b'"');
                    i += 1;
                }
                b => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        if !closed {
            return Err(invalid());
        }
        Ok(out)
    }

    fn operand(
        &mut self,
        token: &Token<'t>,
        kind: OperandKind,
        stack: &mut Vec<Expected>,
        state: &mut InstState,
    ) -> Result<()> {
        let t = token.text;
        match kind {
            OperandKind::IdResultType => {
                let id = self.id_of(token)?;
                state.result_type = id;
                self.words.push(id);
            }
            OperandKind::IdRef | OperandKind::IdScope | OperandKind::IdMemorySemantics => {
                let id = self.id_of(token)?;
                if is_ext_inst(state.opcode) && state.ext_set.is_none() {
                    let set = self.ext_sets.get(&id).copied().ok_or_else(|| {
                        self.error_at(Some(token), format!("Invalid extended instruction import Id {id}"))
                    })?;
                    state.ext_set = Some(set);
                }
                self.words.push(id);
            }
            OperandKind::LiteralInteger => {
                self.number(token, NumberType::Int { width: 32, signed: false })?;
            }
            OperandKind::LiteralFloat => self.number(token, NumberType::Float { width: 32 })?,
            OperandKind::LiteralString => {
                if !t.starts_with('"') && parse_c_unsigned(t).is_some() {
                    return Err(self.error_at(
                        Some(token),
                        format!("Expected literal string, found literal number '{t}'."),
                    ));
                }
                let bytes = self.string(token)?;
                if state.opcode == opcode::OpExtInstImport {
                    let name = String::from_utf8_lossy(&bytes);
                    let set = match grammar::ext_inst_set(&name) {
                        Some(set) => ExtSet::Known(set),
                        None if name.starts_with("NonSemantic.") => ExtSet::UnknownNonSemantic,
                        None => {
                            return Err(self.error_at(
                                Some(token),
                                format!("Invalid extended instruction import '{name}'"),
                            ))
                        }
                    };
                    let id = self.words[state.start + 1];
                    self.ext_sets.insert(id, set);
                }
                encode_string(&bytes, &mut self.words);
            }
            OperandKind::LiteralContextDependentNumber => {
                let what = if state.opcode == opcode::OpSpecConstant { "SpecConstant" } else { "Constant" };
                let number = self.number_types.get(&state.result_type).copied().ok_or_else(|| {
                    self.error_at(
                        Some(token),
                        format!("Type for {what} must be a scalar floating point or integer type"),
                    )
                })?;
                self.number(token, number)?;
            }
            OperandKind::LiteralExtInstInteger => {
                let set = state
                    .ext_set
                    .ok_or_else(|| self.error_at(Some(token), "Missing extended instruction set"))?;
                match set {
                    ExtSet::Known(set) => {
                        if let Some(ext) = set.instruction_by_name(t) {
                            self.words.push(ext.opcode);
                            push_operands(stack, ext.operands);
                        } else if let Some(number) = set
                            .name
                            .starts_with("NonSemantic.")
                            .then(|| parse_c_unsigned(t).and_then(|n| u32::try_from(n).ok()))
                            .flatten()
                        {
                            // Non-semantic sets also take instruction numbers; numbers the
                            // grammar does not describe take ids, as in an unknown set.
                            self.words.push(number);
                            match set.instruction(number) {
                                Some(ext) => push_operands(stack, ext.operands),
                                None => stack.push(Expected {
                                    kind: OperandKind::IdRef,
                                    quantifier: Quantifier::Variadic,
                                }),
                            }
                        } else {
                            return Err(self
                                .error_at(Some(token), format!("Invalid extended instruction name '{t}'.")));
                        }
                    }
                    ExtSet::UnknownNonSemantic => {
                        let number = parse_c_unsigned(t).and_then(|n| u32::try_from(n).ok()).ok_or_else(|| {
                            self.error_at(
                                Some(token),
                                format!("Couldn't translate unknown extended instruction name '{t}' to unsigned integer."),
                            )
                        })?;
                        self.words.push(number);
                        stack.push(Expected { kind: OperandKind::IdRef, quantifier: Quantifier::Variadic });
                    }
                }
            }
            OperandKind::LiteralSpecConstantOpInteger => {
                let inner = grammar::instruction_by_name(&format!("Op{t}"))
                    .filter(|i| SPEC_CONSTANT_OPS.contains(&i.opcode))
                    .ok_or_else(|| {
                        self.error_at(Some(token), format!("Invalid OpSpecConstantOp opcode '{t}'."))
                    })?;
                self.words.push(inner.opcode as u32);
                let skip = inner
                    .operands
                    .iter()
                    .take_while(|o| matches!(o.kind, OperandKind::IdResultType | OperandKind::IdResult))
                    .count();
                push_operands(stack, &inner.operands[skip..]);
            }
            OperandKind::PairLiteralIntegerIdRef if state.opcode == opcode::OpSwitch => {
                let selector = self.words.get(state.start + 1).copied().unwrap_or(0);
                let number = self
                    .number_types
                    .get(self.value_types.get(selector))
                    .copied()
                    .filter(|n| matches!(n, NumberType::Int { .. }))
                    .ok_or_else(|| {
                        self.error_at(
                            Some(token),
                            "The selector operand for OpSwitch must be the result of an instruction that generates an integer scalar",
                        )
                    })?;
                self.number(token, number)?;
                stack.push(Expected { kind: OperandKind::IdRef, quantifier: Quantifier::One });
            }
            _ => match kind.category() {
                Category::ValueEnum => {
                    let info = kind.info();
                    let e = info
                        .enumerant_by_name(t)
                        .filter(|e| available(&e.availability, self.env))
                        .ok_or_else(|| {
                            self.error_at(Some(token), format!("Invalid {} '{t}'.", kind_label(kind)))
                        })?;
                    self.words.push(e.value);
                    push_operands(stack, e.parameters);
                }
                Category::BitEnum => {
                    let info = kind.info();
                    let mut value = 0u32;
                    for part in t.split('|') {
                        let e = info
                            .enumerant_by_name(part)
                            .filter(|e| available(&e.availability, self.env))
                            .ok_or_else(|| {
                                self.error_at(
                                    Some(token),
                                    format!("Invalid {} operand '{t}'.", kind_label(kind)),
                                )
                            })?;
                        value |= e.value;
                    }
                    self.words.push(value);
                    // Parameters follow in bit order.
                    let mut params: Vec<&'static [grammar::Operand]> = Vec::new();
                    for bit in 0..32 {
                        if value & (1 << bit) != 0 {
                            if let Some(e) = info.enumerant(1 << bit) {
                                params.push(e.parameters);
                            }
                        }
                    }
                    for p in params.iter().rev() {
                        push_operands(stack, p);
                    }
                }
                Category::Composite => {
                    // Pairs: push the parts, the first one consumes this token.
                    let bases = kind.info().bases;
                    for &b in bases[1..].iter().rev() {
                        stack.push(Expected { kind: b, quantifier: Quantifier::One });
                    }
                    return self.operand(token, bases[0], stack, state);
                }
                _ => {
                    return Err(self
                        .error_at(Some(token), format!("not supported yet: operand kind {}", kind.name())))
                }
            },
        }
        Ok(())
    }

    fn number(&mut self, token: &Token, number: NumberType) -> Result<()> {
        let t = token.text;
        if let Some(raw) = t.strip_prefix('!') {
            let word = parse_c_unsigned(raw)
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| self.error_at(Some(token), format!("Invalid immediate integer: {t}")))?;
            self.words.push(word);
            return Ok(());
        }
        match number {
            NumberType::Int { width, signed } => {
                if width > 64 {
                    return Err(
                        self.error_at(Some(token), format!("Unsupported {width}-bit integer literals"))
                    );
                }
                let bits = parse_integer(t, width, signed).map_err(|m| self.error_at(Some(token), m))?;
                self.words.push(bits as u32);
                if width > 32 {
                    self.words.push((bits >> 32) as u32);
                }
            }
            NumberType::Float { width } => {
                let layout = match width {
                    16 => FloatLayout::HALF,
                    32 => FloatLayout::SINGLE,
                    64 => FloatLayout::DOUBLE,
                    _ => {
                        return Err(
                            self.error_at(Some(token), format!("Unsupported {width}-bit float literals"))
                        )
                    }
                };
                let bits = parse_float(t, layout).ok_or_else(|| {
                    self.error_at(Some(token), format!("Invalid {width}-bit float literal: {t}"))
                })?;
                self.words.push(bits as u32);
                if width == 64 {
                    self.words.push((bits >> 32) as u32);
                }
            }
        }
        Ok(())
    }

    /// Remembers types, value types and redefinitions after an instruction is encoded.
    fn record(&mut self, state: &InstState) -> Result<()> {
        let id = state.result_id;
        if id == 0 {
            return Ok(());
        }
        let inst = grammar::instruction(state.opcode);
        if inst.is_some_and(|i| i.class == "Type-Declaration") {
            if std::mem::replace(self.type_ids.get_mut(id), true) {
                return Err(
                    self.error_after_last(format!("Value {id} has already been used to generate a type"))
                );
            }
            let w = &self.words[state.start..];
            match state.opcode {
                opcode::OpTypeInt if w.len() >= 4 => {
                    self.number_types.insert(id, NumberType::Int { width: w[2], signed: w[3] != 0 });
                }
                opcode::OpTypeFloat if w.len() >= 3 => {
                    self.number_types.insert(id, NumberType::Float { width: w[2] });
                }
                _ => {}
            }
        }
        if state.result_type != 0 {
            self.value_types.set(id, state.result_type);
        }
        Ok(())
    }
}

fn named_with_capacity<'t>(capacity: usize) -> FxHashMap<&'t str, u32> {
    let mut map = FxHashMap::default();
    map.reserve(capacity);
    map
}

struct InstState {
    opcode: u16,
    result_type: u32,
    result_id: u32,
    ext_set: Option<ExtSet>,
    start: usize,
}

fn push_operands(stack: &mut Vec<Expected>, operands: &[grammar::Operand]) {
    for o in operands.iter().rev() {
        stack.push(Expected { kind: o.kind, quantifier: o.quantifier });
    }
}

fn is_ext_inst(op: u16) -> bool {
    op == opcode::OpExtInst || op == opcode::OpExtInstWithForwardRefsKHR
}

/// The words SPIRV-Tools uses for an operand kind in "Invalid …" messages.
fn kind_label(kind: OperandKind) -> String {
    let name = kind.name();
    let mut out = String::new();
    for (i, ch) in name.chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            out.push(' ');
        }
        out.push(ch.to_ascii_lowercase());
    }
    out
}

fn parse_immediate(t: &str) -> Option<u32> {
    parse_c_unsigned(t.strip_prefix('!')?).and_then(|v| u32::try_from(v).ok())
}

/// Parses an unsigned integer with C `setbase(0)` rules: `0x` hex, leading-0 octal, decimal.
pub fn parse_c_unsigned(t: &str) -> Option<u64> {
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() {
        return None;
    }
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t, 10)
    };
    if digits.is_empty() || !digits.bytes().all(|b| (b as char).is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// Parses an integer literal for a `width`-bit type, returning its bits (sign-extended
/// to 64 bits for signed types, so the low word is what `spirv-as` writes).
fn parse_integer(t: &str, width: u32, signed: bool) -> std::result::Result<u64, String> {
    let negative = t.starts_with('-');
    if negative && !signed {
        return Err("Cannot put a negative number in an unsigned literal".into());
    }
    let body = if negative { &t[1..] } else { t };
    let is_hex = body.starts_with("0x") || body.starts_with("0X");
    let invalid = || {
        if negative {
            format!("Invalid signed integer literal: {t}")
        } else {
            format!("Invalid unsigned integer literal: {t}")
        }
    };
    if body.starts_with('+') && negative {
        return Err(invalid());
    }
    let magnitude = parse_c_unsigned(body).ok_or_else(invalid)?;
    let does_not_fit = || {
        let shown = if is_hex && !negative { format!("0x{magnitude:x}") } else { t.to_string() };
        format!(
            "Integer {shown} does not fit in a {width}-bit {} integer",
            if signed { "signed" } else { "unsigned" }
        )
    };
    let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
    if !signed {
        if magnitude > mask {
            return Err(does_not_fit());
        }
        return Ok(magnitude);
    }
    if negative {
        let limit = 1u128 << (width - 1);
        if magnitude as u128 > limit {
            return Err(does_not_fit());
        }
        return Ok((magnitude as i128).wrapping_neg() as u64);
    }
    if is_hex {
        // Hex gives the bit pattern; sign-extend it from `width` bits.
        if magnitude > mask {
            return Err(does_not_fit());
        }
        let shift = 64 - width;
        return Ok((((magnitude << shift) as i64) >> shift) as u64);
    }
    if magnitude > (mask >> 1) {
        return Err(does_not_fit());
    }
    Ok(magnitude)
}

/// Parses a float literal (decimal or hex float) to the bits of the given layout.
fn parse_float(t: &str, layout: FloatLayout) -> Option<u64> {
    let body = t.strip_prefix('-').unwrap_or(t);
    if body.starts_with("0x") || body.starts_with("0X") {
        return parse_hex_float(t, layout);
    }
    let valid = |s: &str| {
        let s = s.strip_prefix('+').unwrap_or(s);
        !s.is_empty()
            && s.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
            && s.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'.')
    };
    if !valid(body) || (t.starts_with('-') && body.starts_with('+')) {
        return None;
    }
    let text = t.strip_prefix('+').unwrap_or(t);
    match layout.fraction_bits {
        52 => {
            let v: f64 = text.parse().ok()?;
            v.is_finite().then(|| v.to_bits())
        }
        23 => {
            let v: f32 = text.parse().ok()?;
            v.is_finite().then(|| v.to_bits() as u64)
        }
        _ => {
            let v: f32 = text.parse().ok()?;
            if !v.is_finite() {
                return None;
            }
            f32_to_half_toward_zero(v).map(|h| h as u64)
        }
    }
}

/// Converts to binary16 rounding toward zero; `None` on overflow.
fn f32_to_half_toward_zero(v: f32) -> Option<u16> {
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32;
    let fraction = bits & 0x7f_ffff;
    if exponent == 0 && fraction == 0 {
        return Some(sign);
    }
    let unbiased = exponent - 127;
    if unbiased > 15 {
        return None;
    }
    if unbiased >= -14 {
        let half_exp = (unbiased + 15) as u16;
        return Some(sign | (half_exp << 10) | (fraction >> 13) as u16);
    }
    // Subnormal half: value = m * 2^-24.
    let mantissa = if exponent == 0 { fraction } else { fraction | 0x80_0000 };
    let shift = (-14 - unbiased) as u32 + 13;
    let m = if shift >= 32 { 0 } else { mantissa >> shift };
    Some(sign | m as u16)
}

/// Parses `[-]0x<hex>[.<hex>]p[+|-]<dec>`, truncating extra bits like SPIRV-Tools.
fn parse_hex_float(t: &str, layout: FloatLayout) -> Option<u64> {
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let body = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X"))?;
    let (mantissa_text, exponent_text) = body.split_once('p')?;
    let (int_part, frac_part) = match mantissa_text.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mantissa_text, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let exp_digits =
        exponent_text.strip_prefix('+').or_else(|| exponent_text.strip_prefix('-')).unwrap_or(exponent_text);
    if exp_digits.is_empty() || !exp_digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let exponent: i64 = exponent_text.parse::<i64>().unwrap_or(if exponent_text.starts_with('-') {
        i64::MIN / 4
    } else {
        i64::MAX / 4
    });
    // Accumulate significant bits (at most 128), tracking the binary point.
    let mut mantissa: u128 = 0;
    let mut scale: i64 = 0; // value = mantissa * 2^scale
    let mut full = false;
    for (digits, is_fraction) in [(int_part, false), (frac_part, true)] {
        for ch in digits.chars() {
            let d = ch.to_digit(16)? as u128;
            if !full && mantissa >> 120 == 0 {
                mantissa = (mantissa << 4) | d;
                if is_fraction {
                    scale -= 4;
                }
            } else {
                full = true;
                if !is_fraction {
                    scale += 4;
                }
            }
        }
    }
    let sign_bit = (negative as u64) << (layout.exponent_bits + layout.fraction_bits);
    if mantissa == 0 {
        return Some(sign_bit);
    }
    let top = 127 - mantissa.leading_zeros() as i64;
    let e = exponent.saturating_add(scale).saturating_add(top);
    let bias = (1i64 << (layout.exponent_bits - 1)) - 1;
    let f = layout.fraction_bits as i64;
    let max_biased = (1u64 << layout.exponent_bits) - 1;
    // The fraction bits below the leading one, truncated to `f` bits.
    let fraction_of = |m: u128, top: i64, bits: i64| -> u64 {
        let below = m & ((1u128 << top) - 1);
        if top >= bits {
            (below >> (top - bits)) as u64
        } else {
            (below << (bits - top)) as u64
        }
    };
    if e > bias + 1 {
        return Some(sign_bit | (max_biased << layout.fraction_bits));
    }
    if e == bias + 1 {
        return Some(sign_bit | (max_biased << layout.fraction_bits) | fraction_of(mantissa, top, f));
    }
    if e >= 1 - bias {
        let biased = (e + bias) as u64;
        return Some(sign_bit | (biased << layout.fraction_bits) | fraction_of(mantissa, top, f));
    }
    // Subnormal: value / 2^(1-bias-f) as an integer, truncated.
    let shift = (1 - bias - f) - (e - top); // how far the mantissa's lsb is below the subnormal lsb
    let bits = if shift >= 128 {
        0
    } else if shift >= 0 {
        (mantissa >> shift) as u64
    } else {
        (mantissa << (-shift)) as u64
    };
    Some(sign_bit | bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asm(text: &str) -> Vec<u32> {
        assemble(text, &AsmOptions::default()).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn header_and_ids() {
        let w = asm("OpCapability Shader\nOpMemoryModel Logical GLSL450\n%x = OpTypeVoid\n");
        assert_eq!(&w[..5], &[0x0723_0203, 0x0001_0600, 0x0007_0000, 2, 0]);
        assert_eq!(w[5], (2 << 16) | 17);
        assert_eq!(w.last(), Some(&1));
    }

    #[test]
    fn type_id_is_numbered_before_result() {
        let w = asm("%x = OpUndef %t\n%t = OpTypeVoid\n");
        assert_eq!(&w[5..8], &[(3 << 16) | 1, 1, 2]);
    }

    #[test]
    fn integers_follow_spirv_as() {
        assert_eq!(parse_integer("0xffffffff", 32, true), Ok(u64::MAX));
        assert_eq!(parse_integer("-5", 16, true).map(|b| b as u32), Ok(0xffff_fffb));
        assert_eq!(parse_integer("010", 32, false), Ok(8));
        assert!(parse_integer("65536", 16, false).is_err());
        assert!(parse_integer("-1", 32, false).is_err());
        assert_eq!(parse_integer("-9223372036854775808", 64, true), Ok(0x8000_0000_0000_0000));
    }

    #[test]
    fn floats_follow_spirv_as() {
        assert_eq!(parse_float("0.1", FloatLayout::HALF), Some(0x2e66));
        assert_eq!(parse_float("1e5", FloatLayout::HALF), None);
        assert_eq!(parse_float("1e40", FloatLayout::SINGLE), None);
        assert_eq!(parse_float("inf", FloatLayout::SINGLE), None);
        assert_eq!(parse_float("0x1p+128", FloatLayout::SINGLE), Some(0x7f80_0000));
        assert_eq!(parse_float("0x1.8p+128", FloatLayout::SINGLE), Some(0x7fc0_0000));
        assert_eq!(parse_float("-0x1p-149", FloatLayout::SINGLE), Some(0x8000_0001));
        assert_eq!(parse_float("0x1.998p-4", FloatLayout::HALF), Some(0x2e66));
        assert_eq!(parse_float("0x1p+200", FloatLayout::SINGLE), Some(0x7f80_0000));
        assert_eq!(parse_float("0x1.fffffffp0", FloatLayout::SINGLE), Some(0x3fff_ffff));
        assert_eq!(parse_float("1.5", FloatLayout::DOUBLE), Some(1.5f64.to_bits()));
    }

    #[test]
    fn errors_have_positions() {
        let e = assemble("OpCapability Shader\n  OpBogus\n", &AsmOptions::default()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 3));
        assert!(e.message.contains("Invalid Opcode name"));
        let e = assemble("OpCapability\n", &AsmOptions::default()).unwrap_err();
        assert!(e.message.contains("found the end of the stream"), "{e}");
    }

    #[test]
    fn target_env_prefix_matching() {
        assert_eq!(TargetEnv::parse("vulkan1.0spv1.4").unwrap().name, "vulkan1.0");
        assert_eq!(TargetEnv::parse("vulkan1.1spv1.4").unwrap().version, Version::new(1, 4));
        assert!(TargetEnv::parse("bogus").is_none());
    }
}
