//! `precise`: dxc's NoContraction rule. What a `precise` variable, field, parameter or
//! function result is computed from is precise too: one walk over each function's
//! instructions in reverse order (the functions last to first) carries the mark from
//! a store to its stored value, from a load to its pointer, from a result to its
//! operands, from a call's precise parameter to its argument and from a precise
//! function to its returned value. Arithmetic results left marked get
//! `NoContraction` (SPIR-V's arithmetic instructions only). The walk is dxc's
//! PreciseVisitor: a result that is not precise clears the mark of the operands it
//! reads (they were met last), and a mark found after its producer was walked is
//! not carried further.

use super::Emitter;
use crate::builder::prop;
use spirvkit_hlsl::ast::{DeclId, Modifiers};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{OpId, Value, ValueDef};
use spirvkit_ir::types::TypeKind;
use std::collections::HashSet;

/// What was declared `precise`, recorded while emitting.
#[derive(Default)]
pub(crate) struct PreciseSeeds {
    /// Function variables and parameters.
    pub values: HashSet<Value>,
    /// Global variables.
    pub globals: HashSet<String>,
    /// Functions whose result is precise.
    pub functions: HashSet<String>,
}

/// The current marks: values, and global variables by symbol.
#[derive(Default)]
struct Marks {
    values: HashSet<Value>,
    globals: HashSet<String>,
}

/// SPIR-V's arithmetic instructions (the section dxc's `isArithmeticInstruction` lists).
const ARITHMETIC: &[&str] = &[
    "spirv.SNegate",
    "spirv.FNegate",
    "spirv.IAdd",
    "spirv.FAdd",
    "spirv.ISub",
    "spirv.FSub",
    "spirv.IMul",
    "spirv.FMul",
    "spirv.UDiv",
    "spirv.SDiv",
    "spirv.FDiv",
    "spirv.UMod",
    "spirv.SRem",
    "spirv.SMod",
    "spirv.FRem",
    "spirv.FMod",
    "spirv.VectorTimesScalar",
    "spirv.MatrixTimesScalar",
    "spirv.VectorTimesMatrix",
    "spirv.MatrixTimesVector",
    "spirv.MatrixTimesMatrix",
    "spirv.OuterProduct",
    "spirv.Dot",
    "spirv.IAddCarry",
    "spirv.ISubBorrow",
    "spirv.UMulExtended",
    "spirv.SMulExtended",
];

/// Ops whose operands take the result's mark (dxc's unary and binary ops).
fn passes_mark_to_operands(name: &str) -> bool {
    if ARITHMETIC.contains(&name) {
        return true;
    }
    let Some(short) = name.strip_prefix("spirv.") else { return false };
    short.starts_with("FOrd")
        || short.starts_with("FUnord")
        || short.starts_with("Logical")
        || short.starts_with("Bitwise")
        || short.starts_with("ShiftLeft")
        || short.starts_with("ShiftRight")
        || short.starts_with("Convert")
        || short.starts_with("DPd")
        || short.starts_with("Fwidth")
        || matches!(
            short,
            "IEqual"
                | "INotEqual"
                | "SGreaterThan"
                | "SGreaterThanEqual"
                | "SLessThan"
                | "SLessThanEqual"
                | "UGreaterThan"
                | "UGreaterThanEqual"
                | "ULessThan"
                | "ULessThanEqual"
                | "Not"
                | "UConvert"
                | "SConvert"
                | "FConvert"
                | "Bitcast"
                | "Transpose"
                | "Any"
                | "All"
                | "IsNan"
                | "IsInf"
                | "BitCount"
                | "BitReverse"
        )
}

impl Emitter<'_> {
    /// Whether a declaration is written `precise`.
    pub(crate) fn declared_precise(&self, d: DeclId) -> bool {
        let decl = self.ast.decl(d);
        if decl.modifiers.contains(Modifiers::PRECISE) {
            return true;
        }
        match &decl.kind {
            spirvkit_hlsl::ast::DeclKind::Var(v) => self.ast.ty(v.ty).modifiers.contains(Modifiers::PRECISE),
            spirvkit_hlsl::ast::DeclKind::Function(f) => {
                self.ast.ty(f.ret).modifiers.contains(Modifiers::PRECISE)
            }
            _ => false,
        }
    }

    /// Marks what `precise` reaches and decorates its arithmetic `NoContraction`.
    pub(crate) fn apply_precise(&mut self) {
        let precise_fields = self.lower.member_decls().any(|d| self.declared_precise(d));
        if self.precise.values.is_empty()
            && self.precise.globals.is_empty()
            && self.precise.functions.is_empty()
            && !precise_fields
        {
            return;
        }
        let functions: Vec<OpId> = self
            .ir
            .block(self.module_block)
            .ops
            .iter()
            .copied()
            .filter(|&o| self.ir.op(o).name == "spirv.func")
            .collect();
        let mut marks = Marks { values: self.precise.values.clone(), globals: self.precise.globals.clone() };
        for &func in functions.iter().rev() {
            let symbol = match self.ir.op(func).attr("sym_name") {
                Some(Attribute::String(s)) => s.clone(),
                _ => String::new(),
            };
            let returns_precise = self.precise.functions.contains(&symbol);
            let mut ops = Vec::new();
            self.ops_in_order(func, &mut ops);
            for &op in ops.iter().rev() {
                self.precise_visit(op, returns_precise, &mut marks);
            }
        }
        let mut decorate = Vec::new();
        for &func in &functions {
            let mut ops = Vec::new();
            self.ops_in_order(func, &mut ops);
            for op in ops {
                let o = self.ir.op(op);
                if ARITHMETIC.contains(&o.name.as_str())
                    && o.results.first().is_some_and(|r| marks.values.contains(r))
                    && o.attr("no_contraction").is_none()
                {
                    decorate.push(op);
                }
            }
        }
        for op in decorate {
            self.ir.op_mut(op).attributes.push(prop("no_contraction", Attribute::Unit));
        }
    }

    /// The ops of `op`'s regions in the order they are written: each op, then what its
    /// own regions hold.
    fn ops_in_order(&self, op: OpId, out: &mut Vec<OpId>) {
        let mut stack: Vec<(OpId, usize, usize, usize)> = vec![(op, 0, 0, 0)];
        // (op, region index, block index, op index) cursors: no recursion on nesting.
        while let Some(top) = stack.last_mut() {
            let (o, r, b, i) = *top;
            let regions = &self.ir.op(o).regions;
            let Some(&region) = regions.get(r) else {
                stack.pop();
                continue;
            };
            let blocks = &self.ir.region(region).blocks;
            let Some(&block) = blocks.get(b) else {
                *top = (o, r + 1, 0, 0);
                continue;
            };
            let block_ops = &self.ir.block(block).ops;
            let Some(&inner) = block_ops.get(i) else {
                *top = (o, r, b + 1, 0);
                continue;
            };
            *top = (o, r, b, i + 1);
            out.push(inner);
            if !self.ir.op(inner).regions.is_empty() {
                stack.push((inner, 0, 0, 0));
            }
        }
    }

    /// The global variable a pointer is the address of.
    fn global_of(&self, v: Value) -> Option<String> {
        let ValueDef::Result { op, .. } = self.ir.value(v).def else { return None };
        let o = self.ir.op(op);
        if o.name != "spirv.mlir.addressof" {
            return None;
        }
        match o.attr("variable") {
            Some(Attribute::SymbolRef(path)) => path.last().cloned(),
            _ => None,
        }
    }

    fn is_marked(&self, marks: &Marks, v: Value) -> bool {
        match self.global_of(v) {
            Some(g) => marks.globals.contains(&g),
            None => marks.values.contains(&v),
        }
    }

    fn set_mark(&self, marks: &mut Marks, v: Value, on: bool) {
        match (self.global_of(v), on) {
            (Some(g), true) => {
                marks.globals.insert(g);
            }
            (Some(g), false) => {
                marks.globals.remove(&g);
            }
            (None, true) => {
                marks.values.insert(v);
            }
            (None, false) => {
                marks.values.remove(&v);
            }
        }
    }

    fn precise_visit(&self, op: OpId, returns_precise: bool, marks: &mut Marks) {
        let o = self.ir.op(op);
        let name = o.name.as_str();
        let operands = o.operands.clone();
        let result_marked = o.results.first().is_some_and(|r| marks.values.contains(r));
        match name {
            "spirv.ReturnValue" => {
                if let Some(&v) = operands.first() {
                    self.set_mark(marks, v, returns_precise);
                }
            }
            "spirv.Variable" => {
                if let (Some(&init), Some(&var)) = (operands.first(), o.results.first()) {
                    let on = marks.values.contains(&var);
                    self.set_mark(marks, init, on);
                }
            }
            "spirv.Select" => {
                for &v in operands.iter().skip(1) {
                    self.set_mark(marks, v, result_marked);
                }
            }
            "spirv.CompositeExtract" | "spirv.BitFieldSExtract" | "spirv.BitFieldUExtract" => {
                if let Some(&v) = operands.first() {
                    self.set_mark(marks, v, result_marked);
                }
            }
            "spirv.CompositeInsert" | "spirv.BitFieldInsert" => {
                for &v in operands.iter().take(2) {
                    self.set_mark(marks, v, result_marked);
                }
            }
            "spirv.CompositeConstruct" if result_marked => {
                for &v in &operands {
                    self.set_mark(marks, v, true);
                }
            }
            "spirv.VectorShuffle" if result_marked => self.mark_shuffled(op, &operands, marks),
            "spirv.Load" => {
                if let (true, Some(&p)) = (result_marked, operands.first()) {
                    self.set_mark(marks, p, true);
                }
            }
            "spirv.Store" => {
                if let [p, v, ..] = operands[..] {
                    if self.is_marked(marks, p) || self.accesses_precise(p, marks) {
                        self.set_mark(marks, v, true);
                    }
                }
            }
            "spirv.FunctionCall" => {
                let callee = match o.attr("callee") {
                    Some(Attribute::SymbolRef(path)) => path.last().cloned(),
                    _ => None,
                };
                let params = callee.and_then(|c| self.function_params(&c)).unwrap_or_default();
                for (&arg, &param) in operands.iter().zip(params.iter()) {
                    if marks.values.contains(&param) {
                        self.set_mark(marks, arg, true);
                    }
                }
            }
            _ if name.starts_with("spirv.GL.") && result_marked => {
                for &v in &operands {
                    self.set_mark(marks, v, true);
                }
            }
            _ if name.starts_with("spirv.Atomic") && result_marked => {
                // The value operand (after the pointer), which every atomic with one has.
                if let Some(&v) = operands.get(1) {
                    self.set_mark(marks, v, true);
                }
            }
            _ if passes_mark_to_operands(name) => {
                for &v in &operands {
                    self.set_mark(marks, v, result_marked);
                }
            }
            _ => {}
        }
    }

    /// A precise shuffle marks the vectors it takes components from.
    fn mark_shuffled(&self, op: OpId, operands: &[Value], marks: &mut Marks) {
        let [a, b, ..] = operands[..] else { return };
        let size = match self.lower.store().kind(self.ir.value_type(a)) {
            TypeKind::Vector { shape, .. } => shape.first().copied().unwrap_or(0),
            _ => 0,
        };
        let components: Vec<u64> = match self.ir.op(op).attr("components") {
            Some(Attribute::Array(items)) => items
                .iter()
                .filter_map(|i| match i {
                    Attribute::Integer { value, .. } => u64::try_from(*value).ok(),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        if components.iter().any(|&c| c < size) {
            self.set_mark(marks, a, true);
        }
        if components.iter().any(|&c| c >= size) {
            self.set_mark(marks, b, true);
        }
    }

    /// The parameters of the function `symbol` (its entry block's arguments).
    fn function_params(&self, symbol: &str) -> Option<Vec<Value>> {
        let func = self.ir.block(self.module_block).ops.iter().copied().find(|&o| {
            let op = self.ir.op(o);
            op.name == "spirv.func"
                && matches!(op.attr("sym_name"), Some(Attribute::String(n)) if n == symbol)
        })?;
        let entry = self.ir.entry_block(func)?;
        Some(self.ir.block(entry).arguments.clone())
    }

    /// Whether an access chain reaches a precise variable or a precise struct field
    /// (dxc's `isAccessingPrecise`: chains of chains are followed to their base).
    fn accesses_precise(&self, pointer: Value, marks: &Marks) -> bool {
        let mut indices: Vec<Value> = Vec::new();
        let mut base = pointer;
        let mut depth = 0;
        while let ValueDef::Result { op, .. } = self.ir.value(base).def {
            let o = self.ir.op(op);
            if o.name != "spirv.AccessChain" || depth > 1000 {
                break;
            }
            depth += 1;
            // Indices of the outer chains come after the inner chain's.
            let mut own: Vec<Value> = o.operands.iter().skip(1).copied().collect();
            own.extend(indices);
            indices = own;
            base = o.operands[0];
            if self.is_marked(marks, base) {
                return true;
            }
        }
        if depth == 0 {
            return false;
        }
        let store = self.lower.store();
        let mut ty = match store.kind(self.ir.value_type(base)) {
            TypeKind::Pointer { pointee, .. } => *pointee,
            _ => return false,
        };
        for index in indices {
            ty = match store.kind(ty) {
                TypeKind::Vector { element, .. } => *element,
                TypeKind::Matrix { column, .. } => *column,
                TypeKind::Array { element, .. } | TypeKind::RuntimeArray { element, .. } => *element,
                TypeKind::IdentifiedStruct { name } => {
                    let Some(member) = self.constant_index(index) else { return false };
                    if self.lower.member_decl(name, member).is_some_and(|d| self.declared_precise(d)) {
                        return true;
                    }
                    match store.struct_body(name).and_then(|b| b.members.get(member)) {
                        Some(m) => m.ty,
                        None => return false,
                    }
                }
                _ => return false,
            };
        }
        false
    }

    /// The value of an integer constant index.
    fn constant_index(&self, v: Value) -> Option<usize> {
        let ValueDef::Result { op, .. } = self.ir.value(v).def else { return None };
        let o = self.ir.op(op);
        if o.name != "spirv.Constant" {
            return None;
        }
        match o.attr("value") {
            Some(Attribute::Integer { value, .. }) => usize::try_from(*value).ok(),
            _ => None,
        }
    }
}
