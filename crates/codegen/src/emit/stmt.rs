//! Statements and control flow, built as dxc builds them: blocks named `if.true`,
//! `for.check`, ..., each header with its merge instruction recorded for the
//! structurizer.

use super::{BreakTargets, Emitter, Local, R};
use crate::builder::prop;
use spirvkit_hlsl::ast::{DeclId, DeclKind, ExprKind, Modifiers, StmtId, StmtKind};
use spirvkit_hlsl::sema::tree::ConstValue;
use spirvkit_hlsl::source::Span;
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::BlockId;
use spirvkit_translate::structurize::MergeInfo;

/// A case label of a switch.
#[derive(Clone, Copy)]
enum CaseLabel {
    Constant(i64),
    /// A label that is not an integer constant (an if series compares it).
    Expr(spirvkit_hlsl::ast::ExprId),
    Default,
}

/// A label or a statement of a flattened switch body.
enum SwitchItem {
    /// A label with where it is (a fall-through into its case is located there).
    Label(CaseLabel, Span),
    Stmt(StmtId),
}

/// SPIR-V selection control bits.
const FLATTEN: u32 = 0x1;
const DONT_FLATTEN: u32 = 0x2;
/// SPIR-V loop control bits.
const UNROLL: u32 = 0x1;
const DONT_UNROLL: u32 = 0x2;

impl<'t> Emitter<'t> {
    /// Records the current block as a selection header merging at `merge`.
    pub fn selection_header(&mut self, merge: BlockId, control: u32) {
        if let Some(b) = self.current() {
            self.fs().headers.insert(b, MergeInfo::Selection { merge, control });
        }
    }

    fn loop_header(&mut self, merge: BlockId, continue_target: BlockId, control: u32) {
        if let Some(b) = self.current() {
            self.fs()
                .headers
                .insert(b, MergeInfo::Loop { merge, continue_target, control, parameters: Vec::new() });
        }
    }

    /// A loop's body: `break` goes to `merge`, `continue` to `cont`; falling off the
    /// end enters the continue block, where emission goes on.
    fn loop_body(&mut self, body: StmtId, merge: BlockId, cont: BlockId) -> R<()> {
        self.fs().targets.push(BreakTargets { break_to: merge, continue_to: Some(cont) });
        let emitted = self.stmt(body);
        self.fs().targets.pop();
        emitted?;
        self.locate_body_end(body);
        self.branch(cont);
        self.start_block(cont);
        Ok(())
    }

    /// Enters a for/while loop at its condition block `check`. When the condition
    /// branches (short-circuit), the loop header is a separate block before it, as
    /// dxc makes it, since a header's merge instruction must be its block's only one.
    fn enter_loop(
        &mut self,
        header: Option<BlockId>,
        check: BlockId,
        merge: BlockId,
        cont: BlockId,
        control: u32,
    ) {
        match header {
            Some(h) => {
                self.branch(h);
                self.start_block(h);
                self.loop_header(merge, cont, control);
                self.branch(check);
                self.start_block(check);
            }
            None => {
                self.branch(check);
                self.start_block(check);
                self.loop_header(merge, cont, control);
            }
        }
    }

    /// The value of an `if` condition that is a constant without side effects.
    fn constant_condition(&self, condition: spirvkit_hlsl::ast::ExprId) -> Option<bool> {
        if matches!(self.ast.expr(condition).kind, ExprKind::DeclCondition(_))
            || self.has_side_effects(condition)
        {
            return None;
        }
        let info = self.tree.expr(condition)?;
        let ty = info.conversion.map_or(info.ty, |c| c.to);
        self.scalar_shape(ty).filter(|&(_, n)| n == 1)?;
        info.constant.map(ConstValue::as_bool)
    }

    fn selection_control(&self, s: StmtId) -> u32 {
        let mut control = 0;
        for a in &self.ast.stmt(s).attrs {
            match self.name(a.name.name).to_ascii_lowercase().as_str() {
                "flatten" => control |= FLATTEN,
                "branch" | "call" | "forcecase" => control |= DONT_FLATTEN,
                _ => {}
            }
        }
        control
    }

    fn loop_control(&self, s: StmtId) -> u32 {
        let mut control = 0;
        for a in &self.ast.stmt(s).attrs {
            match self.name(a.name.name).to_ascii_lowercase().as_str() {
                "unroll" => control |= UNROLL,
                "loop" | "fastopt" => control |= DONT_UNROLL,
                _ => {}
            }
        }
        control
    }

    pub fn stmt(&mut self, s: StmtId) -> R<()> {
        let saved = self.span;
        let span = self.ast.stmt(s).span;
        self.span = Some(span);
        // `return`, `break`, `continue`, `discard`: at the statement.
        let saved_loc = self.has_lines().then(|| self.locate_at_start(span));
        let attrs = &self.ast.stmt(s).attrs;
        let r = if attrs.is_empty() {
            Ok(())
        } else {
            let attrs = attrs.clone();
            self.inline_requirements(&attrs)
        };
        let r = r.and_then(|()| self.stmt_inner(s));
        self.span = saved;
        if let Some(loc) = saved_loc {
            self.loc = loc;
        }
        r
    }

    /// The location of a construct's end: its body's last character (a block's `}`).
    fn locate_body_end(&mut self, body: StmtId) {
        if self.has_lines() {
            let span = self.ast.stmt(body).span;
            self.locate_at_last_char(span);
        }
    }

    fn stmt_inner(&mut self, s: StmtId) -> R<()> {
        if self.current().is_none() {
            // Unreachable code (after return/break/continue/discard) is not emitted,
            // except that declarations must still be known to later code... which is
            // also unreachable.
            return Ok(());
        }
        let kind = self.ast.stmt(s).kind.clone();
        match kind {
            StmtKind::Expr(e) => self.discard_value(e),
            StmtKind::Decl(decls) => {
                for d in decls {
                    self.local_declaration(d)?;
                }
                Ok(())
            }
            StmtKind::Block(stmts) => {
                for st in stmts {
                    self.stmt(st)?;
                }
                Ok(())
            }
            StmtKind::Empty | StmtKind::Error => Ok(()),
            StmtKind::If { condition, then_branch, else_branch } => {
                // dxc folds a constant condition: only the branch taken is emitted.
                if let Some(taken) = self.constant_condition(condition) {
                    return match (taken, else_branch) {
                        (true, _) => self.stmt(then_branch),
                        (false, Some(e)) => self.stmt(e),
                        (false, None) => Ok(()),
                    };
                }
                let control = self.selection_control(s);
                let cty = self.tree.converted_type(condition);
                let c = self.rvalue(condition)?;
                let c = self.truth_value(c, cty)?;
                let then_block = self.new_block("if.true");
                let else_block = else_branch.map(|_| self.new_block("if.false"));
                let merge = self.new_block("if.merge");
                self.selection_header(merge, control);
                // dxc: the merge (and its branch) at the `then` statement's start.
                if self.has_lines() {
                    self.locate_at_start(self.ast.stmt(then_branch).span);
                }
                self.branch_conditional(c, then_block, else_block.unwrap_or(merge));
                self.start_block(then_block);
                self.stmt(then_branch)?;
                self.locate_body_end(then_branch);
                self.branch(merge);
                if let (Some(eb), Some(es)) = (else_block, else_branch) {
                    self.start_block(eb);
                    self.stmt(es)?;
                    self.locate_body_end(es);
                    self.branch(merge);
                }
                self.start_block(merge);
                Ok(())
            }
            StmtKind::For { init, condition, step, body } => {
                if let Some(init) = init {
                    self.stmt(init)?;
                }
                let control = self.loop_control(s);
                let header =
                    condition.filter(|&c| self.condition_branches(c)).map(|_| self.new_block("for.header"));
                let check = self.new_block("for.check");
                let body_block = self.new_block("for.body");
                let cont = self.new_block("for.continue");
                let merge = self.new_block("for.merge");
                // dxc: entering at the condition's start, the merge at its last token.
                let condition_span = condition.map(|c| self.ast.expr(c).span);
                if let Some(span) = condition_span.filter(|_| self.has_lines()) {
                    self.locate_at_start(span);
                }
                self.enter_loop(header, check, merge, cont, control);
                let v = match condition {
                    Some(c) => {
                        let cty = self.tree.converted_type(c);
                        let v = self.rvalue(c)?;
                        self.truth_value(v, cty)?
                    }
                    // dxc branches on `true` when there is no condition.
                    None => self.bool_constant(true),
                };
                if let Some(span) = condition_span.filter(|_| self.has_lines()) {
                    self.locate_at_last_token(span);
                }
                self.branch_conditional(v, body_block, merge);
                self.start_block(body_block);
                self.loop_body(body, merge, cont)?;
                if let Some(step) = step {
                    self.discard_value(step)?;
                }
                self.locate_body_end(body);
                self.branch(header.unwrap_or(check));
                self.start_block(merge);
                Ok(())
            }
            StmtKind::While { condition, body } => {
                let control = self.loop_control(s);
                let header = self.condition_branches(condition).then(|| self.new_block("while.header"));
                let check = self.new_block("while.check");
                let body_block = self.new_block("while.body");
                let cont = self.new_block("while.continue");
                let merge = self.new_block("while.merge");
                self.enter_loop(header, check, merge, cont, control);
                let cty = self.tree.converted_type(condition);
                let v = self.rvalue(condition)?;
                let v = self.truth_value(v, cty)?;
                if self.has_lines() {
                    self.locate_at_start(self.ast.stmt(s).span);
                }
                self.branch_conditional(v, body_block, merge);
                self.start_block(body_block);
                self.loop_body(body, merge, cont)?;
                self.locate_body_end(body);
                self.branch(header.unwrap_or(check));
                self.start_block(merge);
                Ok(())
            }
            StmtKind::DoWhile { body, condition } => {
                let control = self.loop_control(s);
                let header = self.new_block("do_while.header");
                let body_block = self.new_block("do_while.body");
                let cont = self.new_block("do_while.continue");
                let merge = self.new_block("do_while.merge");
                self.branch(header);
                self.start_block(header);
                self.loop_header(merge, cont, control);
                // dxc: the merge at the body's start, the back edge at the `)`.
                if self.has_lines() {
                    self.locate_at_start(self.ast.stmt(body).span);
                }
                self.branch(body_block);
                self.start_block(body_block);
                self.loop_body(body, merge, cont)?;
                let cty = self.tree.converted_type(condition);
                let v = self.rvalue(condition)?;
                let v = self.truth_value(v, cty)?;
                if self.has_lines() {
                    self.locate_after(self.ast.expr(condition).span);
                }
                self.branch_conditional(v, header, merge);
                self.start_block(merge);
                Ok(())
            }
            StmtKind::Switch { condition, body } => self.switch(s, condition, body),
            StmtKind::Case { body, .. } | StmtKind::Default { body } => self.stmt(body),
            StmtKind::Break => {
                let Some(t) = self.f.as_ref().and_then(|f| f.targets.last().copied()) else {
                    return self.unsupported("'break' outside a loop or switch");
                };
                self.branch(t.break_to);
                Ok(())
            }
            StmtKind::Continue => {
                let target = self.f.as_ref().and_then(|f| f.targets.iter().rev().find_map(|t| t.continue_to));
                let Some(c) = target else {
                    return self.unsupported("'continue' outside a loop");
                };
                self.branch(c);
                Ok(())
            }
            StmtKind::Return(value) => {
                let ret = self.fs().return_type;
                match value {
                    Some(v) if !self.table.is_void(ret) => {
                        let x = self.init_value(v, ret)?;
                        self.terminate("spirv.ReturnValue", vec![x], &[], Vec::new());
                    }
                    Some(v) => {
                        self.discard_value(v)?;
                        self.terminate("spirv.Return", vec![], &[], Vec::new());
                    }
                    None => self.terminate("spirv.Return", vec![], &[], Vec::new()),
                }
                Ok(())
            }
            StmtKind::Discard => {
                self.terminate("spirv.Kill", vec![], &[], Vec::new());
                Ok(())
            }
        }
    }

    /// `switch`: an OpSwitch over the case labels, each case a block falling through
    /// to the next, `break` to the merge block.
    fn switch(&mut self, s: StmtId, condition: spirvkit_hlsl::ast::ExprId, body: StmtId) -> R<()> {
        let control = self.selection_control(s);
        let cty = self.tree.converted_type(condition);
        // The case statements in order: their labels and bodies.
        let mut cases: Vec<(Option<i64>, StmtId)> = Vec::new();
        // The body flattened as dxc flattens it: blocks (a case's statements, `{ ... }`)
        // opened, labels nested in them included, in source order.
        let mut items: Vec<SwitchItem> = Vec::new();
        self.flatten_switch_body(body, &mut items, 0);
        // Each label its own case (dxc's block per label; an empty one falls through).
        let mut groups: Vec<(Vec<CaseLabel>, Vec<StmtId>)> = Vec::new();
        // Where each group's first label is (a fall-through into it is there).
        let mut group_starts: Vec<Span> = Vec::new();
        for item in items {
            match item {
                SwitchItem::Label(label, span) => {
                    groups.push((vec![label], Vec::new()));
                    group_starts.push(span);
                }
                SwitchItem::Stmt(st) => {
                    // Statements before the first label never run.
                    if let Some(g) = groups.last_mut() {
                        g.1.push(st);
                    }
                }
            }
        }
        // SPIR-V.rst: OpSwitch when every case value is an integer constant and there
        // is no attribute but `forcecase`; a series of if statements otherwise.
        let constant_labels = groups.iter().flat_map(|(l, _)| l).all(|l| !matches!(l, CaseLabel::Expr(_)));
        let if_attribute = self.ast.stmt(s).attrs.iter().any(|a| {
            matches!(self.name(a.name.name).to_ascii_lowercase().as_str(), "flatten" | "branch" | "call")
        });
        if !constant_labels || if_attribute {
            // A `break` nested in a case's statements would leave an if, which the
            // if series cannot express; such a switch keeps OpSwitch when it can.
            let nested_break =
                groups.iter().flat_map(|(_, stmts)| stmts).any(|&st| self.has_nested_break(st, 0));
            if !nested_break {
                return self.switch_as_ifs(condition, &groups);
            }
            if !constant_labels {
                return self.unsupported("a case label that is not an integer constant, with a nested break");
            }
        }
        let groups: Vec<(Vec<Option<i64>>, Vec<StmtId>)> = groups
            .into_iter()
            .map(|(labels, stmts)| {
                let labels = labels
                    .into_iter()
                    .map(|l| match l {
                        CaseLabel::Constant(v) => Some(v),
                        _ => None,
                    })
                    .collect();
                (labels, stmts)
            })
            .collect();
        let selector = self.rvalue(condition)?;
        let int_ty = spirvkit_hlsl::sema::types::TypeTable::INT;
        let selector = match self.scalar_shape(cty) {
            Some((s, 1)) if s.is_integer() => selector,
            _ => self.convert(selector, cty, int_ty)?,
        };
        let merge = self.new_block("switch.merge");
        let mut blocks = Vec::new();
        let mut default_block = None;
        let mut targets: Vec<(i64, BlockId)> = Vec::new();
        for (labels, _) in &groups {
            // dxc names a case block by its first label: `switch.1`, `switch.n2` (for
            // -2), `switch.default`.
            let name = match labels.first() {
                _ if labels.contains(&None) => "switch.default".to_string(),
                Some(Some(v)) if *v < 0 => format!("switch.n{}", v.unsigned_abs()),
                Some(Some(v)) => format!("switch.{v}"),
                _ => "switch.default".to_string(),
            };
            let b = self.new_block(&name);
            for l in labels {
                match l {
                    Some(v) => targets.push((*v, b)),
                    None => default_block = Some(b),
                }
            }
            blocks.push(b);
        }
        for (g, _) in groups.iter().enumerate() {
            let _ = g;
            cases.push((None, body));
        }
        let default = default_block.unwrap_or(merge);
        self.selection_header(merge, control);
        // spirv.Switch: selector, default, then (value, target) pairs.
        let literal_ty = self.ir.value_type(selector);
        let values: Vec<spirvkit_ir::attr::Attribute> = targets
            .iter()
            .map(|(v, _)| spirvkit_ir::attr::Attribute::Integer {
                value: self.lower.store().normalize_integer(i128::from(*v), literal_ty),
                ty: literal_ty,
            })
            .collect();
        let mut successors = vec![default];
        successors.extend(targets.iter().map(|(_, b)| *b));
        let n = targets.len() as i32;
        let mut sizes = vec![0i32; 1 + targets.len()];
        let _ = n;
        sizes.insert(0, 1);
        // operandSegmentSizes: selector, default operands, then one group of all case
        // operands; the dialect uses case_operand_segments for the split.
        let seg = self.segment_sizes(&[1, 0, 0]);
        let case_segments = {
            let i32t = self.store().integer(32, spirvkit_ir::types::Signedness::Signless);
            spirvkit_ir::attr::Attribute::DenseArray {
                element: i32t,
                values: targets
                    .iter()
                    .map(|_| spirvkit_ir::attr::Attribute::Integer { value: 0, ty: i32t })
                    .collect(),
            }
        };
        let literals = spirvkit_ir::attr::Attribute::Dense {
            elements: values,
            ty: {
                let n = targets.len() as u64;
                self.store().intern(spirvkit_ir::types::TypeKind::Vector {
                    shape: vec![n],
                    scalable: vec![false],
                    element: literal_ty,
                })
            },
        };
        let mut props = vec![seg, crate::builder::prop("case_operand_segments", case_segments)];
        if !targets.is_empty() {
            props.insert(0, crate::builder::prop("literals", literals));
        }
        self.terminate("spirv.Switch", vec![selector], &successors, props);
        self.fs().targets.push(BreakTargets { break_to: merge, continue_to: None });
        for (i, (_, stmts)) in groups.iter().enumerate() {
            self.start_block(blocks[i]);
            for &st in stmts {
                self.stmt(st)?;
            }
            // Fall through to the next case, or leave.
            let next = blocks.get(i + 1).copied().unwrap_or(merge);
            if self.has_lines() {
                match group_starts.get(i + 1) {
                    Some(&label) => self.locate_at_start(label),
                    None => self.locate_at_last_char(self.ast.stmt(body).span),
                };
            }
            self.branch(next);
        }
        self.fs().targets.pop();
        self.start_block(merge);
        let _ = cases;
        Ok(())
    }

    /// Appends the labels and statements of a switch body in order, opening blocks
    /// and the bodies of labels.
    fn flatten_switch_body(&self, s: StmtId, out: &mut Vec<SwitchItem>, depth: u32) {
        if depth > 64 {
            out.push(SwitchItem::Stmt(s));
            return;
        }
        match &self.ast.stmt(s).kind {
            StmtKind::Block(stmts) => {
                for &st in stmts {
                    self.flatten_switch_body(st, out, depth + 1);
                }
            }
            StmtKind::Case { value, body } => {
                let v = self.tree.expr(*value).and_then(|i| i.constant).and_then(ConstValue::as_int);
                let label = match v {
                    Some(v) => CaseLabel::Constant(v),
                    None => CaseLabel::Expr(*value),
                };
                out.push(SwitchItem::Label(label, self.ast.stmt(s).span));
                self.flatten_switch_body(*body, out, depth + 1);
            }
            StmtKind::Default { body } => {
                out.push(SwitchItem::Label(CaseLabel::Default, self.ast.stmt(s).span));
                self.flatten_switch_body(*body, out, depth + 1);
            }
            _ => out.push(SwitchItem::Stmt(s)),
        }
    }

    /// Whether `s` holds a `break` of the enclosing switch below its top level
    /// (inside an if or a block; not one of a nested loop or switch).
    fn has_nested_break(&self, s: StmtId, depth: u32) -> bool {
        if depth > 64 {
            return true;
        }
        match &self.ast.stmt(s).kind {
            StmtKind::Break => depth > 0,
            StmtKind::Block(stmts) => stmts.iter().any(|&st| self.has_nested_break(st, depth + 1)),
            StmtKind::If { then_branch, else_branch, .. } => {
                self.has_nested_break(*then_branch, depth + 1)
                    || else_branch.is_some_and(|e| self.has_nested_break(e, depth + 1))
            }
            StmtKind::Case { body, .. } | StmtKind::Default { body } => {
                self.has_nested_break(*body, depth + 1)
            }
            _ => false,
        }
    }

    /// A switch as dxc makes it with if statements: for each case label in order,
    /// `if (selector == label) { statements }` else the next, the default's
    /// statements in the last else. A case's statements run from its label through
    /// the following cases (fall-through) up to the first `break`. The selector is
    /// evaluated for each comparison, as dxc does, unless that would repeat a side
    /// effect.
    fn switch_as_ifs(
        &mut self,
        condition: spirvkit_hlsl::ast::ExprId,
        groups: &[(Vec<CaseLabel>, Vec<StmtId>)],
    ) -> R<()> {
        let statements_from = |group: usize| -> Vec<StmtId> {
            let mut out = Vec::new();
            for (_, stmts) in &groups[group..] {
                for &st in stmts {
                    if matches!(self.ast.stmt(st).kind, StmtKind::Break) {
                        return out;
                    }
                    out.push(st);
                }
            }
            out
        };
        let mut cases: Vec<(CaseLabel, Vec<StmtId>)> = Vec::new();
        let mut default = None;
        for (i, (labels, _)) in groups.iter().enumerate() {
            for &label in labels {
                match label {
                    CaseLabel::Default => default = Some(statements_from(i)),
                    other => cases.push((other, statements_from(i))),
                }
            }
        }
        // `switch (int d = x)`: d is declared once and read for each comparison.
        let declared = matches!(self.ast.expr(condition).kind, ExprKind::DeclCondition(_));
        if let ExprKind::DeclCondition(d) = self.ast.expr(condition).kind {
            self.local_declaration(d)?;
        }
        let once = if !declared && self.has_side_effects(condition) {
            Some(self.switch_selector(condition, None)?)
        } else {
            None
        };
        let mut merges = Vec::new();
        for (k, (label, stmts)) in cases.iter().enumerate() {
            let selector = self.switch_selector(condition, once)?;
            let selector_t = self.ir.value_type(selector);
            let value = match *label {
                CaseLabel::Constant(v) => self.scalar_constant(ConstValue::Int(v), selector_t),
                CaseLabel::Expr(e) => {
                    let v = self.rvalue(e)?;
                    let from = self.tree.converted_type(e);
                    let to = self.switch_selector_type(condition);
                    self.convert(v, from, to)?
                }
                CaseLabel::Default => continue,
            };
            let bool_t = self.bool_type();
            let cond = self.val("spirv.IEqual", vec![selector, value], bool_t);
            let then_block = self.new_block("if.true");
            let has_else = k + 1 < cases.len() || default.is_some();
            let else_block = has_else.then(|| self.new_block("if.false"));
            let merge = self.new_block("if.merge");
            self.selection_header(merge, 0);
            self.branch_conditional(cond, then_block, else_block.unwrap_or(merge));
            self.start_block(then_block);
            for &st in stmts {
                self.stmt(st)?;
            }
            self.branch(merge);
            merges.push(merge);
            match else_block {
                Some(eb) => self.start_block(eb),
                None => break,
            }
        }
        if let Some(stmts) = &default {
            for &st in stmts {
                self.stmt(st)?;
            }
        }
        // Close the ifs innermost first: each merge falls into the enclosing one's.
        for merge in merges.into_iter().rev() {
            self.branch(merge);
            self.start_block(merge);
        }
        Ok(())
    }

    /// The HLSL type the switch compares in (its integer condition type, else int).
    fn switch_selector_type(&self, condition: spirvkit_hlsl::ast::ExprId) -> spirvkit_hlsl::sema::types::Ty {
        let cty = self.tree.converted_type(condition);
        match self.scalar_shape(cty) {
            Some((s, 1)) if s.is_integer() => cty,
            _ => spirvkit_hlsl::sema::types::TypeTable::INT,
        }
    }

    /// The switch's selector value: `once` when given, else the condition evaluated.
    fn switch_selector(
        &mut self,
        condition: spirvkit_hlsl::ast::ExprId,
        once: Option<spirvkit_ir::ir::Value>,
    ) -> R<spirvkit_ir::ir::Value> {
        if let Some(v) = once {
            return Ok(v);
        }
        let to = self.switch_selector_type(condition);
        if let ExprKind::DeclCondition(d) = self.ast.expr(condition).kind {
            let Some(local) = self.f.as_ref().and_then(|f| f.locals.get(&d).copied()) else {
                return self.unsupported("this switch condition declaration");
            };
            let v = self.load(local.ptr);
            return self.convert(v, local.ty, to);
        }
        let cty = self.tree.converted_type(condition);
        let v = self.rvalue(condition)?;
        self.convert(v, cty, to)
    }

    /// A local variable declaration (with its initializer); `static` locals are
    /// Private globals initialized once.
    pub fn local_declaration(&mut self, d: DeclId) -> R<()> {
        let decl = self.ast.decl(d);
        let DeclKind::Var(var) = &decl.kind else { return Ok(()) };
        let var = var.clone();
        let modifiers = decl.modifiers;
        self.decl_inline_requirements(d)?;
        let ty = self.tree.decl(d).map_or(spirvkit_hlsl::sema::types::TypeTable::ERROR, |i| i.ty);
        let name = var.name.map_or_else(String::new, |n| self.name(n.name).to_string());
        if modifiers.contains(Modifiers::STATIC) {
            return self.static_local(d, ty, &name, var.init);
        }
        if modifiers.contains(Modifiers::CONST)
            && self.tree.decl(d).and_then(|i| i.constant).is_some()
            && self.scalar_shape(ty).is_some()
        {
            // A constant: its uses read the value; keep a variable too for its address.
        }
        let t = self.value_type_of(ty)?;
        let ptr = self.function_variable(t, &name);
        let decorations = self.ext_decorations(d)?;
        if let spirvkit_ir::ir::ValueDef::Result { op, .. } = self.ir.value(ptr).def {
            self.ir.op_mut(op).attributes.extend(decorations);
        }
        if self.declared_precise(d) {
            self.precise.values.insert(ptr);
        }
        self.fs().locals.insert(d, Local { ptr, ty });
        // `RayQuery<0> q = RayQuery<0>();` creates the query the variable already is.
        let init = var.init.filter(|&i| !(self.is_ray_query(ty) && self.is_default_construction(i)));
        if let Some(init) = init {
            let v = self.init_value(init, ty)?;
            // dxc: the initialization at the variable's name.
            let at = var.name.filter(|_| self.has_lines());
            let saved = at.map(|n| self.locate_at_start(n.span));
            self.store_to(ptr, v);
            if let Some(loc) = saved {
                self.loc = loc;
            }
            self.note_heap_buffer(d, init);
        }
        Ok(())
    }

    /// A `static` local: a Private variable of its own name, initialized the first
    /// time control passes its declaration, as dxc does: an `init.done.<name>` flag
    /// (a Private `false`) guards the initializer, or the zero value when it has
    /// none.
    fn static_local(
        &mut self,
        d: DeclId,
        ty: spirvkit_hlsl::sema::types::Ty,
        name: &str,
        init: Option<spirvkit_hlsl::ast::ExprId>,
    ) -> R<()> {
        let t = self.value_type_of(ty)?;
        let ptr_t = self.pointer(t, "Private");
        // dxc names it as the source does (`unique_symbol` tells same-named ones apart).
        let symbol = self.unique_symbol(name);
        self.global_variable(&symbol, ptr_t, Vec::new());
        self.globals.insert(
            d,
            super::Global { symbol: symbol.clone(), ptr_type: ptr_t, ty, rule: None, member_of: None },
        );
        // Zero-initializing needs a null constant, which opaque handles have none of.
        if init.is_none() && self.table.contains_object(ty) {
            return Ok(());
        }
        let bool_t = self.bool_type();
        let flag_ptr_t = self.pointer(bool_t, "Private");
        let flag = self.unique_symbol(&format!("init.done.{name}"));
        let starts_false = prop(
            spirvkit_translate::deserialize::CONSTANT_INITIALIZER_ATTR,
            Attribute::Integer { value: 0, ty: bool_t },
        );
        self.global_variable(&flag, flag_ptr_t, vec![starts_false]);
        // dxc: the first-time check at the initializer.
        if let Some(init) = init {
            if self.has_lines() {
                self.locate_at_start(self.ast.expr(init).span);
            }
        }
        let flag_ptr = self.addressof(&flag, flag_ptr_t);
        let done = self.load(flag_ptr);
        let init_block = self.new_block("if.init.todo");
        let merge = self.new_block("if.init.done");
        self.selection_header(merge, 0);
        self.branch_conditional(done, merge, init_block);
        self.start_block(init_block);
        let v = match init {
            Some(init) => self.init_value(init, ty)?,
            None => self.constant_attr(Attribute::null_constant(), t),
        };
        let p = self.addressof(&symbol, ptr_t);
        self.store_to(p, v);
        let yes = self.bool_constant(true);
        let fp = self.addressof(&flag, flag_ptr_t);
        self.store_to(fp, yes);
        self.branch(merge);
        self.start_block(merge);
        Ok(())
    }
}
