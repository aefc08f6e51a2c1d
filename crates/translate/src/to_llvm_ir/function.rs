//! Function bodies: blocks, phis from block arguments, and every op of the LLVM dialect
//! the SPIR-V conversion and the kernel pass produce; and the folding of a global's
//! initializer region into a constant.

use super::constants::{signed_in_width, Const};
use super::types::{global_name, quoted};
use super::{Fail, ModuleWriter};
use spirvkit_ir::attr::{dense_counts, Attribute};
use spirvkit_ir::ir::{BlockId, Value};
use spirvkit_ir::types::{Type, TypeKind};
use spirvkit_ir::OpId;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Module-level metadata nodes the bodies refer to, numbered in order of first use.
#[derive(Default)]
pub(super) struct Metadata {
    nodes: Vec<String>,
    /// `#llvm.access_group<BODY>` by body: its distinct node's index.
    access_groups: HashMap<String, usize>,
}

impl Metadata {
    /// `!N`, the distinct node of the access group with this body, made once.
    fn access_group(&mut self, body: &str) -> String {
        let index = match self.access_groups.get(body) {
            Some(&index) => index,
            None => {
                self.nodes.push("distinct !{}".into());
                self.access_groups.insert(body.to_string(), self.nodes.len() - 1);
                self.nodes.len() - 1
            }
        };
        format!("!{index}")
    }

    /// A new loop ID (`distinct !{!L, !{!"llvm.loop.parallel_accesses", groups...}}`):
    /// one per annotated branch, as LLVM wants one per loop.
    fn parallel_loop(&mut self, groups: &[String]) -> String {
        let index = self.nodes.len();
        self.nodes.push(String::new());
        let property = self.node(format!("!{{!\"llvm.loop.parallel_accesses\", {}}}", groups.join(", ")));
        self.nodes[index] = format!("distinct !{{!{index}, {property}}}");
        format!("!{index}")
    }

    /// `!N` for a node with this body (`!{i32 1}`), made once.
    fn node(&mut self, body: String) -> String {
        let index = match self.nodes.iter().position(|n| *n == body) {
            Some(index) => index,
            None => {
                self.nodes.push(body);
                self.nodes.len() - 1
            }
        };
        format!("!{index}")
    }

    pub fn definitions(&self) -> String {
        let mut out = String::new();
        for (index, body) in self.nodes.iter().enumerate() {
            if index == 0 {
                out.push('\n');
            }
            let _ = writeln!(out, "!{index} = {body}");
        }
        out
    }
}

pub(super) struct FunctionWriter<'w, 'a> {
    module: &'w ModuleWriter<'a>,
    metadata: &'w mut Metadata,
    /// Operand text of each value: `%N` or a constant's text.
    values: HashMap<Value, String>,
    /// Results of casts to their operand's own type: the operand itself (LLVM has no
    /// same-type `addrspacecast`; MLIR's translation folds them all the same way).
    aliases: HashMap<Value, Value>,
    labels: HashMap<BlockId, usize>,
    next_number: usize,
}

/// Ops whose value is a constant written at each use, not an instruction.
fn is_constant_op(name: &str) -> bool {
    matches!(
        name,
        "llvm.mlir.constant"
            | "llvm.mlir.undef"
            | "llvm.mlir.poison"
            | "llvm.mlir.zero"
            | "llvm.mlir.addressof"
    )
}

impl<'w, 'a> FunctionWriter<'w, 'a> {
    pub fn new(module: &'w ModuleWriter<'a>, params: usize, metadata: &'w mut Metadata) -> Self {
        FunctionWriter {
            module,
            metadata,
            values: HashMap::new(),
            aliases: HashMap::new(),
            labels: HashMap::new(),
            next_number: params,
        }
    }

    fn ir(&self) -> &'a spirvkit_ir::Ir {
        self.module.ir
    }

    fn ty(&self, ty: Type) -> Result<String, Fail> {
        self.module.types.print(ty)
    }

    /// The text of a body whose entry block's arguments are the function's parameters.
    pub fn body(&mut self, blocks: &[BlockId], result: Type) -> Result<String, Fail> {
        let ir = self.ir();
        // 1. The incoming edges of each block: predecessor and forwarded operands.
        let mut incoming: HashMap<BlockId, Vec<(BlockId, Vec<Value>)>> = HashMap::new();
        for &block in blocks {
            let Some(&terminator) = ir.block(block).ops.last() else {
                return Err(Fail::new("a block without a terminator"));
            };
            let ranges = self.successor_ranges(terminator).map_err(|f| f.at(&ir.op(terminator).location))?;
            for (successor, range) in ir.op(terminator).successors.iter().zip(ranges) {
                let operands = ir.op(terminator).operands[range].to_vec();
                incoming.entry(*successor).or_default().push((block, operands));
            }
        }
        // 2. Number the parameters, blocks, phis and instruction results in the order
        // LLVM numbers unnamed values, and give each constant its text. The arguments of
        // a block nothing branches to (unreachable) are poison: LLVM's text has no phi
        // without entries.
        for (i, argument) in ir.block(blocks[0]).arguments.iter().enumerate() {
            self.values.insert(*argument, format!("%{i}"));
        }
        for (index, &block) in blocks.iter().enumerate() {
            let label = self.take_number();
            self.labels.insert(block, label);
            if index > 0 {
                let reachable = incoming.contains_key(&block);
                for &argument in &ir.block(block).arguments {
                    let text =
                        if reachable { format!("%{}", self.take_number()) } else { "poison".to_string() };
                    self.values.insert(argument, text);
                }
            }
            for &op in &ir.block(block).ops {
                let operation = ir.op(op);
                if is_constant_op(operation.name.as_str()) {
                    let text = self.constant_op(op).map_err(|f| f.at(&operation.location))?;
                    self.values.insert(operation.results[0], text);
                } else if let Some(source) = self.identity_cast(op) {
                    self.aliases.insert(operation.results[0], source);
                } else if let Some(&value) = operation.results.first() {
                    let number = self.take_number();
                    self.values.insert(value, format!("%{number}"));
                }
            }
        }
        // 3. The text.
        let mut out = String::new();
        for (index, &block) in blocks.iter().enumerate() {
            if index > 0 {
                let _ = writeln!(out, "\n{}:", self.labels[&block]);
            } else if incoming.contains_key(&block) {
                return Err(Fail::new("the entry block of a function is a branch target"));
            }
            if index > 0 {
                let edges: Vec<(usize, &Vec<Value>)> = incoming
                    .get(&block)
                    .map(|edges| edges.iter().map(|(pred, operands)| (self.labels[pred], operands)).collect())
                    .unwrap_or_default();
                // An unreachable block's arguments are poison: it has no phis.
                let arguments: &[Value] = if edges.is_empty() { &[] } else { &ir.block(block).arguments };
                for (position, &argument) in arguments.iter().enumerate() {
                    let ty = ir.value_type(argument);
                    let mut line = format!("  {} = phi {} ", self.values[&argument], self.ty(ty)?);
                    for (i, (label, operands)) in edges.iter().enumerate() {
                        let Some(&value) = operands.get(position) else {
                            return Err(Fail::new(
                                "a branch passes fewer operands than its target has arguments",
                            ));
                        };
                        // LLVM's phi has one value per predecessor block, whatever the edge.
                        let conflicting = edges[..i]
                            .iter()
                            .any(|(other, earlier)| other == label && earlier.get(position) != Some(&value));
                        if conflicting {
                            return Err(Fail::unsupported(
                                "a block branching twice to the same block with different arguments",
                            ));
                        }
                        if i > 0 {
                            line.push_str(", ");
                        }
                        let _ = write!(line, "[ {}, %{label} ]", self.operand(value)?);
                    }
                    out.push_str(&line);
                    out.push('\n');
                }
            }
            for &op in &ir.block(block).ops {
                let operation = ir.op(op);
                if is_constant_op(operation.name.as_str()) || self.identity_cast(op).is_some() {
                    continue;
                }
                let line = self.instruction(op, result).map_err(|f| f.at(&operation.location))?;
                out.push_str("  ");
                out.push_str(&line);
                out.push('\n');
            }
        }
        Ok(out)
    }

    fn take_number(&mut self) -> usize {
        let number = self.next_number;
        self.next_number += 1;
        number
    }

    /// The operand range each successor of a terminator receives.
    fn successor_ranges(&self, op: OpId) -> Result<Vec<std::ops::Range<usize>>, Fail> {
        let operation = self.ir().op(op);
        let n = operation.operands.len();
        let ranges = match operation.name.as_str() {
            "llvm.br" => std::iter::once(0..n).collect(),
            "llvm.cond_br" => {
                let sizes = dense_counts(operation.attr("operandSegmentSizes"));
                let Some([1, t, f]) = sizes.as_deref() else {
                    return Err(Fail::new("llvm.cond_br without valid 'operandSegmentSizes'"));
                };
                vec![1..1 + t, 1 + t..1 + t + f]
            }
            "llvm.switch" => {
                let sizes = dense_counts(operation.attr("operandSegmentSizes"));
                let Some([1, d, _]) = sizes.as_deref() else {
                    return Err(Fail::new("llvm.switch without valid 'operandSegmentSizes'"));
                };
                let cases = dense_counts(operation.attr("case_operand_segments")).unwrap_or_default();
                let mut ranges: Vec<std::ops::Range<usize>> = std::iter::once(1..1 + d).collect();
                let mut start = 1 + d;
                for count in cases {
                    ranges.push(start..start + count);
                    start += count;
                }
                ranges
            }
            _ if operation.successors.is_empty() => Vec::new(),
            other => return Err(Fail::unsupported(format!("terminator {other}"))),
        };
        if ranges.len() != operation.successors.len() || ranges.iter().any(|r| r.end > n) {
            return Err(Fail::new("successor operands do not match the successors"));
        }
        Ok(ranges)
    }

    /// The operand of a cast whose result has the operand's type.
    fn identity_cast(&self, op: OpId) -> Option<Value> {
        let operation = self.ir().op(op);
        let cast = matches!(
            operation.name.as_str(),
            "llvm.bitcast"
                | "llvm.addrspacecast"
                | "llvm.zext"
                | "llvm.sext"
                | "llvm.trunc"
                | "llvm.fpext"
                | "llvm.fptrunc"
        );
        match (&operation.operands[..], &operation.results[..]) {
            (&[source], &[result])
                if cast && self.ir().value_type(source) == self.ir().value_type(result) =>
            {
                Some(source)
            }
            _ => None,
        }
    }

    fn operand(&self, mut value: Value) -> Result<String, Fail> {
        // Chains of identity casts are as long as the function (bounded by its ops).
        for _ in 0..=self.aliases.len() {
            match self.aliases.get(&value) {
                Some(&source) => value = source,
                None => break,
            }
        }
        self.values.get(&value).cloned().ok_or_else(|| Fail::new("an operand defined outside the function"))
    }

    /// `TYPE TEXT` of an operand.
    fn typed(&self, value: Value) -> Result<String, Fail> {
        Ok(format!("{} {}", self.ty(self.ir().value_type(value))?, self.operand(value)?))
    }

    fn label(&self, block: BlockId) -> Result<String, Fail> {
        self.labels
            .get(&block)
            .map(|n| format!("%{n}"))
            .ok_or_else(|| Fail::new("a branch to a block of another region"))
    }

    fn constant_op(&self, op: OpId) -> Result<String, Fail> {
        let constant = constant_value(self.module, op)?;
        let ty = self.ir().value_type(self.ir().op(op).results[0]);
        self.module.types.const_text(&constant, ty)
    }

    fn property(&self, op: OpId, name: &str) -> Option<&'a Attribute> {
        self.module.property(op, name)
    }

    fn flag(&self, op: OpId, name: &str) -> bool {
        self.property(op, name).is_some()
    }

    fn integer(&self, op: OpId, name: &str) -> Option<i128> {
        super::integer_value(self.property(op, name))
    }

    /// One instruction (without indentation or newline).
    fn instruction(&mut self, op: OpId, function_result: Type) -> Result<String, Fail> {
        let ir = self.ir();
        let operation = ir.op(op);
        let name = operation.name.as_str();
        let operands = &operation.operands;
        let assign = match operation.results.first() {
            Some(result) => format!("{} = ", self.values[result]),
            None => String::new(),
        };
        let result_type = || -> Result<Type, Fail> {
            operation
                .results
                .first()
                .map(|&r| ir.value_type(r))
                .ok_or_else(|| Fail::new(format!("{name} without a result")))
        };
        let need = |count: usize| -> Result<(), Fail> {
            if operands.len() == count {
                Ok(())
            } else {
                Err(Fail::new(format!("{name} expects {count} operands, got {}", operands.len())))
            }
        };
        let Some(short) = name.strip_prefix("llvm.") else {
            return Err(Fail::unsupported(name));
        };
        let text = match short {
            "add" | "sub" | "mul" | "shl" => {
                need(2)?;
                format!(
                    "{short} {}{}, {}",
                    overflow_flags(self.integer(op, "overflowFlags")),
                    self.typed(operands[0])?,
                    self.operand(operands[1])?
                )
            }
            "udiv" | "sdiv" | "lshr" | "ashr" => {
                need(2)?;
                let exact = if self.flag(op, "isExact") { "exact " } else { "" };
                format!("{short} {exact}{}, {}", self.typed(operands[0])?, self.operand(operands[1])?)
            }
            "or" => {
                need(2)?;
                let disjoint = if self.flag(op, "isDisjoint") { "disjoint " } else { "" };
                format!("or {disjoint}{}, {}", self.typed(operands[0])?, self.operand(operands[1])?)
            }
            "urem" | "srem" | "and" | "xor" => {
                need(2)?;
                format!("{short} {}, {}", self.typed(operands[0])?, self.operand(operands[1])?)
            }
            "fadd" | "fsub" | "fmul" | "fdiv" | "frem" => {
                need(2)?;
                format!(
                    "{short} {}{}, {}",
                    self.fastmath(op)?,
                    self.typed(operands[0])?,
                    self.operand(operands[1])?
                )
            }
            "fneg" => {
                need(1)?;
                format!("fneg {}{}", self.fastmath(op)?, self.typed(operands[0])?)
            }
            "icmp" => {
                need(2)?;
                let predicate = icmp_predicate(self.integer(op, "predicate"))?;
                format!("icmp {predicate} {}, {}", self.typed(operands[0])?, self.operand(operands[1])?)
            }
            "fcmp" => {
                need(2)?;
                let predicate = fcmp_predicate(self.integer(op, "predicate"))?;
                format!(
                    "fcmp {}{predicate} {}, {}",
                    self.fastmath(op)?,
                    self.typed(operands[0])?,
                    self.operand(operands[1])?
                )
            }
            "select" => {
                need(3)?;
                format!(
                    "select {}{}, {}, {}",
                    self.fastmath(op)?,
                    self.typed(operands[0])?,
                    self.typed(operands[1])?,
                    self.typed(operands[2])?
                )
            }
            "trunc" | "zext" | "sext" | "fptrunc" | "fpext" | "fptoui" | "fptosi" | "uitofp" | "sitofp"
            | "ptrtoint" | "inttoptr" | "bitcast" | "addrspacecast" => {
                need(1)?;
                let mut flags = String::new();
                if short == "trunc" {
                    flags.push_str(&overflow_flags(self.integer(op, "overflowFlags")));
                }
                if self.flag(op, "nonNeg") {
                    flags.push_str("nneg ");
                }
                if matches!(short, "fptrunc" | "fpext") {
                    flags.push_str(&self.fastmath(op)?);
                }
                format!("{short} {flags}{} to {}", self.typed(operands[0])?, self.ty(result_type()?)?)
            }
            "freeze" => {
                need(1)?;
                format!("freeze {}", self.typed(operands[0])?)
            }
            "extractvalue" => {
                need(1)?;
                format!("extractvalue {}, {}", self.typed(operands[0])?, self.position(op)?)
            }
            "insertvalue" => {
                need(2)?;
                format!(
                    "insertvalue {}, {}, {}",
                    self.typed(operands[0])?,
                    self.typed(operands[1])?,
                    self.position(op)?
                )
            }
            "extractelement" => {
                need(2)?;
                format!("extractelement {}, {}", self.typed(operands[0])?, self.typed(operands[1])?)
            }
            "insertelement" => {
                need(3)?;
                format!(
                    "insertelement {}, {}, {}",
                    self.typed(operands[0])?,
                    self.typed(operands[1])?,
                    self.typed(operands[2])?
                )
            }
            "shufflevector" => {
                need(2)?;
                let Some(Attribute::DenseArray { values, .. }) = self.property(op, "mask") else {
                    return Err(Fail::new("llvm.shufflevector without 'mask'"));
                };
                let mut mask = String::new();
                for (i, value) in values.iter().enumerate() {
                    let Attribute::Integer { value, .. } = value else {
                        return Err(Fail::new("a shufflevector mask element is not an integer"));
                    };
                    if i > 0 {
                        mask.push_str(", ");
                    }
                    if *value < 0 {
                        mask.push_str("i32 poison");
                    } else {
                        let _ = write!(mask, "i32 {value}");
                    }
                }
                format!(
                    "shufflevector {}, {}, <{} x i32> <{mask}>",
                    self.typed(operands[0])?,
                    self.typed(operands[1])?,
                    values.len()
                )
            }
            "alloca" => {
                need(1)?;
                let Some(Attribute::Type(element)) = self.property(op, "elem_type") else {
                    return Err(Fail::new("llvm.alloca without 'elem_type'"));
                };
                let inalloca = if self.flag(op, "inalloca") { "inalloca " } else { "" };
                format!(
                    "alloca {inalloca}{}, {}{}",
                    self.ty(*element)?,
                    self.typed(operands[0])?,
                    self.align(op)
                )
            }
            "load" => {
                need(1)?;
                let ordering = atomic_ordering(self.integer(op, "ordering"))?;
                let volatile = if self.flag(op, "volatile_") { "volatile " } else { "" };
                let ty = self.ty(result_type()?)?;
                let mut text = match ordering {
                    None => format!("load {volatile}{ty}, {}", self.typed(operands[0])?),
                    Some(ordering) => format!(
                        "load atomic {volatile}{ty}, {}{} {ordering}",
                        self.typed(operands[0])?,
                        self.syncscope(op)
                    ),
                };
                text.push_str(&self.align(op));
                text.push_str(&self.memory_metadata(op));
                text.push_str(&self.access_groups(op)?);
                text
            }
            "store" => {
                need(2)?;
                let ordering = atomic_ordering(self.integer(op, "ordering"))?;
                let volatile = if self.flag(op, "volatile_") { "volatile " } else { "" };
                let mut text = match ordering {
                    None => {
                        format!("store {volatile}{}, {}", self.typed(operands[0])?, self.typed(operands[1])?)
                    }
                    Some(ordering) => format!(
                        "store atomic {volatile}{}, {}{} {ordering}",
                        self.typed(operands[0])?,
                        self.typed(operands[1])?,
                        self.syncscope(op)
                    ),
                };
                text.push_str(&self.align(op));
                text.push_str(&self.memory_metadata(op));
                text.push_str(&self.access_groups(op)?);
                text
            }
            "getelementptr" => self.getelementptr(op)?,
            "atomicrmw" => {
                need(2)?;
                let operation_name = atomic_bin_op(self.integer(op, "bin_op"))?;
                let ordering = atomic_ordering(self.integer(op, "ordering"))?
                    .ok_or_else(|| Fail::new("llvm.atomicrmw with a non-atomic ordering"))?;
                let volatile = if self.flag(op, "volatile_") { "volatile " } else { "" };
                format!(
                    "atomicrmw {volatile}{operation_name} {}, {}{} {ordering}{}",
                    self.typed(operands[0])?,
                    self.typed(operands[1])?,
                    self.syncscope(op),
                    self.align(op)
                )
            }
            "cmpxchg" => {
                need(3)?;
                let success = atomic_ordering(self.integer(op, "success_ordering"))?
                    .ok_or_else(|| Fail::new("llvm.cmpxchg with a non-atomic success ordering"))?;
                let failure = atomic_ordering(self.integer(op, "failure_ordering"))?
                    .ok_or_else(|| Fail::new("llvm.cmpxchg with a non-atomic failure ordering"))?;
                let weak = if self.flag(op, "weak") { "weak " } else { "" };
                let volatile = if self.flag(op, "volatile_") { "volatile " } else { "" };
                format!(
                    "cmpxchg {weak}{volatile}{}, {}, {}{} {success} {failure}{}",
                    self.typed(operands[0])?,
                    self.typed(operands[1])?,
                    self.typed(operands[2])?,
                    self.syncscope(op),
                    self.align(op)
                )
            }
            "fence" => {
                need(0)?;
                let ordering = atomic_ordering(self.integer(op, "ordering"))?
                    .ok_or_else(|| Fail::new("llvm.fence with a non-atomic ordering"))?;
                format!("fence{} {ordering}", self.syncscope(op))
            }
            "call" => self.call(op)? + &self.access_groups(op)?,
            "br" => match &operation.successors[..] {
                [target] => format!("br label {}", self.label(*target)?) + &self.loop_annotation(op)?,
                _ => return Err(Fail::new("llvm.br needs one successor")),
            },
            "cond_br" => {
                let branch = match (&operands[..], &operation.successors[..]) {
                    ([condition, ..], [on_true, on_false]) => format!(
                        "br {}, label {}, label {}",
                        self.typed(*condition)?,
                        self.label(*on_true)?,
                        self.label(*on_false)?
                    ),
                    _ => return Err(Fail::new("llvm.cond_br needs a condition and two successors")),
                };
                branch + &self.branch_weights(op)? + &self.loop_annotation(op)?
            }
            "switch" => self.switch(op)? + &self.branch_weights(op)?,
            "return" => match operands.len() {
                0 if self.module.types.is_void(function_result) => "ret void".to_string(),
                1 => format!("ret {}", self.typed(operands[0])?),
                _ => return Err(Fail::new("llvm.return operands do not match the function's result")),
            },
            "unreachable" => "unreachable".to_string(),
            _ if short.starts_with("intr.") => self.intrinsic(op, &short["intr.".len()..])?,
            _ => return Err(Fail::unsupported(name)),
        };
        Ok(format!("{assign}{text}"))
    }

    fn fastmath(&self, op: OpId) -> Result<String, Fail> {
        let Some(attr) = self.property(op, "fastmathFlags") else { return Ok(String::new()) };
        let Some(body) = super::dialect_body(Some(attr), "llvm.fastmath") else {
            return Err(Fail::new("'fastmathFlags' is not an #llvm.fastmath"));
        };
        let mut out = String::new();
        for flag in body.split(',').map(str::trim) {
            match flag {
                "none" | "" => {}
                "nnan" | "ninf" | "nsz" | "arcp" | "contract" | "afn" | "reassoc" | "fast" => {
                    out.push_str(flag);
                    out.push(' ');
                }
                other => return Err(Fail::unsupported(format!("fast-math flag {other}"))),
            }
        }
        Ok(out)
    }

    fn align(&self, op: OpId) -> String {
        match self.integer(op, "alignment") {
            Some(value) if value > 0 => format!(", align {value}"),
            _ => String::new(),
        }
    }

    fn syncscope(&self, op: OpId) -> String {
        match self.property(op, "syncscope") {
            Some(Attribute::String(scope)) if !scope.is_empty() => format!(" syncscope({})", quoted(scope)),
            _ => String::new(),
        }
    }

    /// `!nontemporal`, `!invariant.load` and `!dereferenceable`/`!dereferenceable_or_null`
    /// (the other memory hints are dropped).
    fn memory_metadata(&mut self, op: OpId) -> String {
        let mut out = String::new();
        if self.flag(op, "nontemporal") {
            let node = self.metadata.node("!{i32 1}".into());
            let _ = write!(out, ", !nontemporal {node}");
        }
        if self.flag(op, "invariant") {
            let node = self.metadata.node("!{}".into());
            let _ = write!(out, ", !invariant.load {node}");
        }
        if let Some((bytes, may_be_null)) = self.property(op, "dereferenceable").and_then(dereferenceable) {
            let kind = if may_be_null { "dereferenceable_or_null" } else { "dereferenceable" };
            let node = self.metadata.node(format!("!{{i64 {bytes}}}"));
            let _ = write!(out, ", !{kind} {node}");
        }
        out
    }

    /// `, !llvm.access.group !N` for an op's `access_groups` (a list node for several).
    fn access_groups(&mut self, op: OpId) -> Result<String, Fail> {
        let Some(groups) = self.property(op, "access_groups") else { return Ok(String::new()) };
        let Attribute::Array(items) = groups else {
            return Err(Fail::new("'access_groups' is not an array"));
        };
        let mut nodes = Vec::new();
        for item in items {
            let Some(body) = super::dialect_body(Some(item), "llvm.access_group") else {
                return Err(Fail::new("an 'access_groups' entry is not an #llvm.access_group"));
            };
            nodes.push(self.metadata.access_group(body));
        }
        Ok(match nodes.len() {
            0 => String::new(),
            1 => format!(", !llvm.access.group {}", nodes[0]),
            _ => format!(", !llvm.access.group {}", self.metadata.node(format!("!{{{}}}", nodes.join(", ")))),
        })
    }

    /// `, !llvm.loop !L` for a branch's `loop_annotation` (only `parallelAccesses` is
    /// written; any other loop property is refused rather than dropped).
    fn loop_annotation(&mut self, op: OpId) -> Result<String, Fail> {
        let Some(annotation) = self.property(op, "loop_annotation") else { return Ok(String::new()) };
        let Some(body) = super::dialect_body(Some(annotation), "llvm.loop_annotation") else {
            return Err(Fail::new("'loop_annotation' is not an #llvm.loop_annotation"));
        };
        let groups = parallel_access_groups(body)
            .ok_or_else(|| Fail::unsupported(format!("the loop annotation <{body}>")))?;
        let nodes: Vec<String> = groups.iter().map(|g| self.metadata.access_group(g)).collect();
        Ok(format!(", !llvm.loop {}", self.metadata.parallel_loop(&nodes)))
    }

    /// `, !prof !N` for a branch's `branch_weights`, if it has them.
    fn branch_weights(&mut self, op: OpId) -> Result<String, Fail> {
        let Some(weights) = self.property(op, "branch_weights") else { return Ok(String::new()) };
        let Attribute::DenseArray { values, .. } = weights else {
            return Err(Fail::new("'branch_weights' is not a dense array"));
        };
        let mut body = String::from("!{!\"branch_weights\"");
        for value in values {
            let Attribute::Integer { value, .. } = value else {
                return Err(Fail::new("a branch weight is not an integer"));
            };
            let _ = write!(body, ", i32 {value}");
        }
        body.push('}');
        Ok(format!(", !prof {}", self.metadata.node(body)))
    }

    /// `0, 1` from a `position` dense array.
    fn position(&self, op: OpId) -> Result<String, Fail> {
        let Some(Attribute::DenseArray { values, .. }) = self.property(op, "position") else {
            return Err(Fail::new("missing 'position'"));
        };
        let mut out = Vec::with_capacity(values.len());
        for value in values {
            match value {
                Attribute::Integer { value, .. } if *value >= 0 => out.push(value.to_string()),
                _ => return Err(Fail::new("a 'position' index is not a non-negative integer")),
            }
        }
        Ok(out.join(", "))
    }

    fn getelementptr(&self, op: OpId) -> Result<String, Fail> {
        let operation = self.ir().op(op);
        let Some(Attribute::Type(element)) = self.property(op, "elem_type") else {
            return Err(Fail::new("llvm.getelementptr without 'elem_type'"));
        };
        let Some(Attribute::DenseArray { values: indices, .. }) = self.property(op, "rawConstantIndices")
        else {
            return Err(Fail::new("llvm.getelementptr without 'rawConstantIndices'"));
        };
        let flags = self.integer(op, "noWrapFlags").unwrap_or(0);
        let mut text = String::from("getelementptr ");
        if flags & 1 != 0 {
            text.push_str("inbounds ");
        } else if flags & 2 != 0 {
            text.push_str("nusw ");
        }
        if flags & 4 != 0 {
            text.push_str("nuw ");
        }
        let Some((&base, dynamic)) = operation.operands.split_first() else {
            return Err(Fail::new("llvm.getelementptr without a base"));
        };
        let _ = write!(text, "{}, {}", self.ty(*element)?, self.typed(base)?);
        let mut dynamic = dynamic.iter();
        for index in indices {
            let Attribute::Integer { value, .. } = index else {
                return Err(Fail::new("a GEP index is not an integer"));
            };
            if *value == i128::from(i32::MIN) {
                let value = dynamic.next().ok_or_else(|| Fail::new("too few dynamic GEP indices"))?;
                let _ = write!(text, ", {}", self.typed(*value)?);
            } else {
                let _ = write!(text, ", i32 {value}");
            }
        }
        if dynamic.next().is_some() {
            return Err(Fail::new("too many dynamic GEP indices"));
        }
        Ok(text)
    }

    fn call(&self, op: OpId) -> Result<String, Fail> {
        let ir = self.ir();
        let operation = ir.op(op);
        if let Some(sizes) = dense_counts(self.property(op, "op_bundle_sizes")) {
            if !sizes.is_empty() {
                return Err(Fail::unsupported("operand bundles on llvm.call"));
            }
        }
        let argument_count = match dense_counts(self.property(op, "operandSegmentSizes")).as_deref() {
            Some([arguments, bundles]) if *bundles == 0 => *arguments,
            Some(_) => return Err(Fail::unsupported("operand bundles on llvm.call")),
            None => operation.operands.len(),
        };
        let operands = &operation.operands[..argument_count.min(operation.operands.len())];
        let (callee, arguments) = match self.property(op, "callee") {
            Some(Attribute::SymbolRef(path)) => {
                let name = path.last().ok_or_else(|| Fail::new("an empty callee"))?;
                (global_name(name), operands)
            }
            Some(_) => return Err(Fail::new("'callee' is not a symbol")),
            None => {
                let (&pointer, rest) =
                    operands.split_first().ok_or_else(|| Fail::new("an indirect call without a callee"))?;
                (self.operand(pointer)?, rest)
            }
        };
        let mut text = match dialect_word(self.property(op, "TailCallKind"), "llvm.tailcallkind")? {
            None | Some("none") => String::new(),
            Some(kind @ ("tail" | "musttail" | "notail")) => format!("{kind} "),
            Some(other) => return Err(Fail::unsupported(format!("tail call kind {other}"))),
        };
        text.push_str("call ");
        text.push_str(&self.fastmath(op)?);
        text.push_str(&super::calling_convention(self.property(op, "CConv"))?);
        let result = match operation.results.first() {
            Some(&r) => self.ty(ir.value_type(r))?,
            None => "void".to_string(),
        };
        // A variadic callee is called through its function type.
        match self.property(op, "var_callee_type") {
            Some(Attribute::Type(function_type)) => {
                let TypeKind::LlvmFunction { params, variadic, .. } = self.module.types.kind(*function_type)
                else {
                    return Err(Fail::new("'var_callee_type' is not a function type"));
                };
                let mut params_text = params.iter().map(|p| self.ty(*p)).collect::<Result<Vec<_>, _>>()?;
                if *variadic {
                    params_text.push("...".into());
                }
                let _ = write!(text, "{result} ({})", params_text.join(", "));
            }
            _ => text.push_str(&result),
        }
        let arguments = arguments.iter().map(|&a| self.typed(a)).collect::<Result<Vec<_>, _>>()?;
        let _ = write!(text, " {callee}({})", arguments.join(", "));
        let mut attributes = Vec::new();
        for (property, word) in [
            ("no_inline", "noinline"),
            ("always_inline", "alwaysinline"),
            ("no_unwind", "nounwind"),
            ("will_return", "willreturn"),
            ("convergent", "convergent"),
        ] {
            if self.flag(op, property) {
                attributes.push(word.to_string());
            }
        }
        if let Some(effects) = self.property(op, "memory_effects") {
            attributes.push(super::memory_effects(effects)?);
        }
        for unsupported in ["arg_attrs", "res_attrs", "inline_hint"] {
            if matches!(self.property(op, unsupported), Some(Attribute::Array(items)) if !items.is_empty()) {
                return Err(Fail::unsupported(format!("'{unsupported}' on llvm.call")));
            }
        }
        if !attributes.is_empty() {
            text.push(' ');
            text.push_str(&attributes.join(" "));
        }
        Ok(text)
    }

    fn switch(&self, op: OpId) -> Result<String, Fail> {
        let operation = self.ir().op(op);
        let Some(&value) = operation.operands.first() else {
            return Err(Fail::new("llvm.switch without a value"));
        };
        let Some((&default, case_successors)) = operation.successors.split_first() else {
            return Err(Fail::new("llvm.switch without a default successor"));
        };
        let ty = self.ty(self.ir().value_type(value))?;
        let mut text = format!("switch {}, label {} [", self.typed(value)?, self.label(default)?);
        let cases: &[Attribute] = match self.property(op, "case_values") {
            Some(Attribute::Dense { elements, .. }) => elements,
            None => &[],
            Some(_) => return Err(Fail::new("'case_values' is not a dense attribute")),
        };
        if cases.len() != case_successors.len() {
            return Err(Fail::new("llvm.switch case values do not match its successors"));
        }
        let width = match self.module.types.kind(self.ir().value_type(value)) {
            TypeKind::Integer { width, .. } => *width,
            _ => return Err(Fail::new("llvm.switch on a non-integer")),
        };
        for (case, successor) in cases.iter().zip(case_successors) {
            let Attribute::Integer { value, .. } = case else {
                return Err(Fail::new("a switch case value is not an integer"));
            };
            let _ = write!(
                text,
                "\n    {ty} {}, label {}",
                signed_in_width(*value, width),
                self.label(*successor)?
            );
        }
        text.push_str("\n  ]");
        Ok(text)
    }

    /// `llvm.intr.NAME` as a call of `@llvm.NAME`, its immediate properties appended as
    /// the trailing arguments LLVM's intrinsic takes.
    fn intrinsic(&self, op: OpId, name: &str) -> Result<String, Fail> {
        let ir = self.ir();
        let operation = ir.op(op);
        // The properties that are immediate arguments, in LLVM's argument order.
        let immediates: &[(&str, &str)] = match name {
            "ctlz" | "cttz" => &[("is_zero_poison", "i1")],
            "abs" => &[("is_int_min_poison", "i1")],
            "is.fpclass" => &[("bit", "i32")],
            "memcpy" | "memmove" | "memset" | "memcpy.inline" | "memset.inline" => &[("isVolatile", "i1")],
            "prefetch" => &[("rw", "i32"), ("hint", "i32"), ("cache", "i32")],
            _ => &[],
        };
        // Masked memory intrinsics: the alignment is an `align` attribute of the pointer
        // argument in LLVM 22 (it was an immediate before).
        let aligned_pointer = match name {
            "masked.gather" | "masked.load" => Some(0),
            "masked.scatter" | "masked.store" => Some(1),
            _ => None,
        };
        let known: Vec<&str> = immediates
            .iter()
            .map(|(p, _)| *p)
            .chain(aligned_pointer.map(|_| "alignment"))
            .chain([
                "fastmathFlags",
                "access_groups",
                "alias_scopes",
                "noalias_scopes",
                "tbaa",
                "arg_attrs",
                "res_attrs",
            ])
            .collect();
        for property in &operation.properties {
            if !known.contains(&property.name.as_str()) {
                return Err(Fail::unsupported(format!("property '{}' of llvm.intr.{name}", property.name)));
            }
        }
        let mut arguments =
            operation.operands.iter().map(|&a| self.typed(a)).collect::<Result<Vec<_>, _>>()?;
        if let (Some(index), Some(Attribute::Integer { value, .. })) =
            (aligned_pointer, self.property(op, "alignment"))
        {
            if let (Some(argument), Some(&pointer)) =
                (arguments.get_mut(index), operation.operands.get(index))
            {
                if *value > 0 {
                    *argument = format!(
                        "{} align {value} {}",
                        self.ty(ir.value_type(pointer))?,
                        self.operand(pointer)?
                    );
                }
            }
        }
        for (property, ty) in immediates {
            let value = match self.property(op, property) {
                Some(Attribute::Integer { value, .. }) => *value,
                Some(Attribute::Bool(b)) => i128::from(*b),
                Some(Attribute::Unit) => 1,
                None if *ty == "i1" => 0,
                _ => return Err(Fail::new(format!("llvm.intr.{name} without '{property}'"))),
            };
            arguments.push(if *ty == "i1" {
                format!("i1 {}", if value != 0 { "true" } else { "false" })
            } else {
                format!("{ty} {value}")
            });
        }
        let result = match operation.results.first() {
            Some(&r) => self.ty(ir.value_type(r))?,
            None => "void".to_string(),
        };
        let flags =
            if self.property(op, "fastmathFlags").is_some() { self.fastmath(op)? } else { String::new() };
        Ok(format!("call {flags}{result} @llvm.{name}({})", arguments.join(", ")))
    }
}

fn dialect_word<'a>(attr: Option<&'a Attribute>, name: &str) -> Result<Option<&'a str>, Fail> {
    match attr {
        None => Ok(None),
        Some(_) => {
            super::dialect_body(attr, name).map(Some).ok_or_else(|| Fail::new(format!("expected #{name}")))
        }
    }
}

fn overflow_flags(value: Option<i128>) -> String {
    let value = value.unwrap_or(0);
    let mut out = String::new();
    if value & 2 != 0 {
        out.push_str("nuw ");
    }
    if value & 1 != 0 {
        out.push_str("nsw ");
    }
    out
}

fn icmp_predicate(value: Option<i128>) -> Result<&'static str, Fail> {
    const NAMES: [&str; 10] = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"];
    value
        .and_then(|v| usize::try_from(v).ok())
        .and_then(|v| NAMES.get(v).copied())
        .ok_or_else(|| Fail::new("llvm.icmp without a valid 'predicate'"))
}

fn fcmp_predicate(value: Option<i128>) -> Result<&'static str, Fail> {
    const NAMES: [&str; 16] = [
        "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une",
        "uno", "true",
    ];
    value
        .and_then(|v| usize::try_from(v).ok())
        .and_then(|v| NAMES.get(v).copied())
        .ok_or_else(|| Fail::new("llvm.fcmp without a valid 'predicate'"))
}

/// `None` for not_atomic.
fn atomic_ordering(value: Option<i128>) -> Result<Option<&'static str>, Fail> {
    Ok(match value.unwrap_or(0) {
        0 => None,
        1 => Some("unordered"),
        2 => Some("monotonic"),
        4 => Some("acquire"),
        5 => Some("release"),
        6 => Some("acq_rel"),
        7 => Some("seq_cst"),
        other => return Err(Fail::new(format!("atomic ordering {other}"))),
    })
}

fn atomic_bin_op(value: Option<i128>) -> Result<&'static str, Fail> {
    const NAMES: [&str; 21] = [
        "xchg",
        "add",
        "sub",
        "and",
        "nand",
        "or",
        "xor",
        "max",
        "min",
        "umax",
        "umin",
        "fadd",
        "fsub",
        "fmax",
        "fmin",
        "uinc_wrap",
        "udec_wrap",
        "usub_cond",
        "usub_sat",
        "fmaximum",
        "fminimum",
    ];
    value
        .and_then(|v| usize::try_from(v).ok())
        .and_then(|v| NAMES.get(v).copied())
        .ok_or_else(|| Fail::new("llvm.atomicrmw without a valid 'bin_op'"))
}

/// The constant a constant op denotes.
fn constant_value(module: &ModuleWriter<'_>, op: OpId) -> Result<Const, Fail> {
    let operation = module.ir.op(op);
    let Some(&result) = operation.results.first() else {
        return Err(Fail::new(format!("{} without a result", operation.name.as_str())));
    };
    let ty = module.ir.value_type(result);
    Ok(match operation.name.as_str() {
        "llvm.mlir.constant" => {
            let value = module
                .property(op, "value")
                .ok_or_else(|| Fail::new("llvm.mlir.constant without 'value'"))?;
            module.types.attribute_const(value, ty)?
        }
        "llvm.mlir.undef" => Const::Undef,
        "llvm.mlir.poison" => Const::Poison,
        "llvm.mlir.zero" => Const::Zero,
        "llvm.mlir.addressof" => match module.property(op, "global_name") {
            Some(Attribute::SymbolRef(path)) => {
                Const::Literal(global_name(path.last().ok_or_else(|| Fail::new("an empty symbol"))?))
            }
            _ => return Err(Fail::new("llvm.mlir.addressof without 'global_name'")),
        },
        other => return Err(Fail::unsupported(format!("{other} in a constant"))),
    })
}

/// The constant a global's initializer region returns, folded from its ops.
pub(super) fn fold_initializer(module: &ModuleWriter<'_>, block: BlockId) -> Result<Const, Fail> {
    let ir = module.ir;
    let mut values: HashMap<Value, Const> = HashMap::new();
    // A value used once is moved, not copied, into its user: a long chain of
    // insertvalues building a large aggregate stays linear.
    let mut uses: HashMap<Value, usize> = HashMap::new();
    for &op in &ir.block(block).ops {
        for &operand in &ir.op(op).operands {
            *uses.entry(operand).or_default() += 1;
        }
    }
    let get = |values: &mut HashMap<Value, Const>, v: Value| {
        let last_use = uses.get(&v).is_some_and(|&n| n <= 1);
        let found = if last_use { values.remove(&v) } else { values.get(&v).cloned() };
        found.ok_or_else(|| Fail::new("an initializer operand defined outside the region"))
    };
    for &op in &ir.block(block).ops {
        let operation = ir.op(op);
        let located = |f: Fail| f.at(&operation.location);
        let name = operation.name.as_str();
        let constant = match name {
            _ if is_constant_op(name) => constant_value(module, op).map_err(located)?,
            "llvm.return" => {
                let &[value] = &operation.operands[..] else {
                    return Err(located(Fail::new("an initializer must return one value")));
                };
                return get(&mut values, value).map_err(located);
            }
            "llvm.insertvalue" => {
                let &[base, value] = &operation.operands[..] else {
                    return Err(located(Fail::new("llvm.insertvalue expects 2 operands")));
                };
                let Some(Attribute::DenseArray { values: position, .. }) = module.property(op, "position")
                else {
                    return Err(located(Fail::new("missing 'position'")));
                };
                let position = position
                    .iter()
                    .map(|p| match p {
                        Attribute::Integer { value, .. } => {
                            i64::try_from(*value).map_err(|_| Fail::new("bad position"))
                        }
                        _ => Err(Fail::new("bad position")),
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(located)?;
                let ty = ir.value_type(base);
                module
                    .types
                    .insert_value(get(&mut values, base)?, ty, &position, get(&mut values, value)?)
                    .map_err(located)?
            }
            "llvm.bitcast" | "llvm.addrspacecast" | "llvm.ptrtoint" | "llvm.inttoptr" => {
                let &[source] = &operation.operands[..] else {
                    return Err(located(Fail::new(format!("{name} expects 1 operand"))));
                };
                let source_ty = ir.value_type(source);
                let text = module.types.const_text(&get(&mut values, source)?, source_ty).map_err(located)?;
                let to = module.types.print(ir.value_type(operation.results[0])).map_err(located)?;
                Const::Literal(format!(
                    "{} ({} {text} to {to})",
                    &name["llvm.".len()..],
                    module.types.print(source_ty).map_err(located)?
                ))
            }
            "llvm.getelementptr" => {
                let Some((&base, dynamic)) = operation.operands.split_first() else {
                    return Err(located(Fail::new("llvm.getelementptr without a base")));
                };
                let Some(Attribute::Type(element)) = module.property(op, "elem_type") else {
                    return Err(located(Fail::new("llvm.getelementptr without 'elem_type'")));
                };
                let Some(Attribute::DenseArray { values: indices, .. }) =
                    module.property(op, "rawConstantIndices")
                else {
                    return Err(located(Fail::new("llvm.getelementptr without 'rawConstantIndices'")));
                };
                let flags = super::integer_value(module.property(op, "noWrapFlags")).unwrap_or(0);
                let base_ty = ir.value_type(base);
                let mut text = format!(
                    "getelementptr {}({}, {} {}",
                    if flags & 1 != 0 { "inbounds " } else { "" },
                    module.types.print(*element).map_err(located)?,
                    module.types.print(base_ty).map_err(located)?,
                    module.types.const_text(&get(&mut values, base)?, base_ty).map_err(located)?
                );
                let mut dynamic = dynamic.iter();
                for index in indices {
                    let Attribute::Integer { value, .. } = index else {
                        return Err(located(Fail::new("a GEP index is not an integer")));
                    };
                    if *value == i128::from(i32::MIN) {
                        let value =
                            *dynamic.next().ok_or_else(|| located(Fail::new("too few GEP indices")))?;
                        let ty = ir.value_type(value);
                        let _ = write!(
                            text,
                            ", {} {}",
                            module.types.print(ty).map_err(located)?,
                            module.types.const_text(&get(&mut values, value)?, ty).map_err(located)?
                        );
                    } else {
                        let _ = write!(text, ", i32 {value}");
                    }
                }
                text.push(')');
                Const::Literal(text)
            }
            other => return Err(located(Fail::unsupported(format!("{other} in a global initializer")))),
        };
        if let Some(&result) = operation.results.first() {
            values.insert(result, constant);
        }
    }
    Err(Fail::new("a global initializer region without llvm.return"))
}

/// The access groups' bodies of a loop annotation `parallelAccesses = #llvm.access_group<B>,
/// ...`; `None` for any other form.
fn parallel_access_groups(body: &str) -> Option<Vec<String>> {
    const OPEN: &str = "#llvm.access_group<";
    let mut rest = body.trim().strip_prefix("parallelAccesses")?.trim_start().strip_prefix('=')?.trim_start();
    let mut groups = Vec::new();
    loop {
        rest = rest.strip_prefix(OPEN)?;
        // The body ends at the '>' that closes the group's '<'.
        let mut depth = 1usize;
        let end = rest.char_indices().find_map(|(i, c)| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        })?;
        groups.push(rest[..end].trim().to_string());
        rest = rest[end + 1..].trim_start();
        if rest.is_empty() {
            return Some(groups);
        }
        rest = rest.strip_prefix(',')?.trim_start();
    }
}

/// `#llvm.dereferenceable<bytes = N[, mayBeNull = true]>`: (N, may be null).
fn dereferenceable(attr: &Attribute) -> Option<(u64, bool)> {
    let Attribute::Dialect { name, body: Some(body) } = attr else { return None };
    if name != "llvm.dereferenceable" {
        return None;
    }
    let mut bytes = None;
    let mut may_be_null = false;
    for field in body.split(',') {
        let (key, value) = field.split_once('=')?;
        match (key.trim(), value.trim()) {
            ("bytes", v) => bytes = v.split(':').next()?.trim().parse().ok(),
            ("mayBeNull", v) => may_be_null = v == "true",
            _ => return None,
        }
    }
    Some((bytes?, may_be_null))
}
