//! `--inline`: MLIR's inliner, with the SPIR-V dialect's rules (and the func
//! dialect's, for `func.call`s to `func.func`s).
//!
//! The pass runs on an op that defines a symbol table. As MLIR does, it builds the call
//! graph of the callables under it (`spirv.func` with a body, `func.func`) and visits
//! its strongly connected components callees first; for each component it runs the
//! simplification pipeline (`default-pipeline`, `canonicalize` unless given) on the
//! component's callables, then inlines the calls in them, again while something was
//! inlined, at most `max-iterations` times. A call is inlined when
//!
//! - its callee has no call edge back to itself or to the caller (no recursion), does
//!   not contain the call, and is not bigger than `inlining-threshold` percent of the
//!   caller;
//! - it did not come from inlining that same callee into the caller in this round
//!   (MLIR's inline history, which keeps call cycles finite);
//! - the call sits in a `spirv.func`, `spirv.mlir.selection` or `spirv.mlir.loop`
//!   region, and a multi-block callee goes to a region that may have several blocks;
//! - the callee holds no `spirv.Kill` and no selection or loop returning from inside
//!   (MLIR does not handle early returns out of structured control flow yet), nor ops
//!   of dialects without inlining support. `DontInline` is not consulted (nor is it by
//!   MLIR).
//!
//! The call's block is split after the call and the callee's body cloned in between
//! (moved, when this is the last use of a private callee). A single block is merged
//! into the call's block, the `spirv.ReturnValue` operand replacing the call's result;
//! with several blocks, returns become `spirv.Branch`es to the continuation block,
//! whose arguments replace the results.
//!
//! Private callables are erased once dead: unused when their component is visited, or
//! inlined in place. Callables referenced outside callables (`spirv.EntryPoint`) stay.

use crate::pipeline::InlineOptions;
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::diag::{current_operation_note, Diagnostic, LineIndex};
use spirvkit_ir::ir::{BlockId, Ir, OpId, RegionId, Value};
use spirvkit_ir::opdef::op_has_trait;
use spirvkit_ir::types::{Type, TypeKind};

/// Runs the inliner on `root`. `optimize(ir, callable)` runs the simplification
/// pipeline on a callable and reports whether it succeeded. Errors: diagnostics with
/// offsets into `text` (none when `optimize` failed and already reported).
pub fn run(
    ir: &mut Ir,
    root: OpId,
    options: &InlineOptions,
    text: &str,
    optimize: &mut dyn FnMut(&mut Ir, OpId) -> bool,
) -> Result<(), Vec<Diagnostic>> {
    if !is_symbol_table(ir, root) {
        let offset = LineIndex::new(text).location_offset(&ir.op(root).location);
        let message = format!(
            "'{}' op  was scheduled to run under the inliner, but does not define a symbol table",
            ir.op(root).name
        );
        return Err(vec![
            Diagnostic::error(offset, message).with_note(offset, current_operation_note(ir, root))
        ]);
    }
    let mut symbols = Symbols::default();
    let graph = CallGraph::build(ir, root, &mut symbols);
    let uses = UseList::new(ir, root, &graph, &mut symbols);
    let mut inliner = Inliner { graph, symbols, uses, options, to_erase: Vec::new() };
    for mut component in inliner.graph.components() {
        let mut iteration = 0;
        loop {
            if !inliner.optimize_component(ir, &component, optimize) {
                return Err(Vec::new());
            }
            if !inliner.inline_calls_in(ir, &mut component) {
                break;
            }
            iteration += 1;
            if iteration >= options.max_iterations {
                break;
            }
        }
    }
    for node in inliner.to_erase {
        ir.erase_op(inliner.graph.nodes[node].op);
    }
    Ok(())
}

// ---- ops and symbols ------------------------------------------------------------------

fn is_symbol_table(ir: &Ir, op: OpId) -> bool {
    op_has_trait(&ir.op(op).name, "SymbolTable")
}

fn is_call(ir: &Ir, op: OpId) -> bool {
    op_has_trait(&ir.op(op).name, "CallOpInterface")
}

fn is_callable(ir: &Ir, op: OpId) -> bool {
    let name = &ir.op(op).name;
    op_has_trait(name, "CallableOpInterface") || op_has_trait(name, "FunctionOpInterface")
}

/// A callable's body, if it has one.
fn callable_region(ir: &Ir, op: OpId) -> Option<RegionId> {
    let region = *ir.op(op).regions.first()?;
    (is_callable(ir, op) && !ir.region(region).blocks.is_empty()).then_some(region)
}

fn is_private(ir: &Ir, op: OpId) -> bool {
    matches!(ir.op(op).attr("sym_visibility"), Some(Attribute::String(v)) if v == "private")
}

fn callee_path(ir: &Ir, call: OpId) -> Option<&[String]> {
    match ir.op(call).attr("callee") {
        Some(Attribute::SymbolRef(path)) if !path.is_empty() => Some(path),
        _ => None,
    }
}

fn result_types(ir: &Ir, callable: OpId) -> Option<Vec<Type>> {
    let Some(Attribute::Type(ty)) = ir.op(callable).attr("function_type") else { return None };
    match ir.types.kind(*ty) {
        TypeKind::Function { results, .. } => Some(results.clone()),
        _ => None,
    }
}

fn is_return(ir: &Ir, op: OpId) -> bool {
    matches!(ir.op(op).name.as_str(), "spirv.Return" | "spirv.ReturnValue" | "func.return")
}

/// The op's symbol references (`@f`, `@m::@f`) in its attributes, nested ones included.
fn symbol_refs(ir: &Ir, op: OpId, out: &mut Vec<(OpId, Vec<String>)>) {
    let o = ir.op(op);
    let mut stack: Vec<&Attribute> =
        o.properties.iter().chain(&o.attributes).map(|a| &a.value).rev().collect();
    while let Some(a) = stack.pop() {
        match a {
            Attribute::SymbolRef(path) => out.push((op, path.clone())),
            Attribute::Array(items) => stack.extend(items.iter().rev()),
            Attribute::Dictionary(items) => stack.extend(items.iter().map(|a| &a.value).rev()),
            _ => {}
        }
    }
}

/// MLIR's `SymbolTable::getSymbolUses(op)`: references in `op` and the ops nested in
/// it, not looking inside nested symbol tables.
fn symbol_uses(ir: &Ir, op: OpId) -> Vec<(OpId, Vec<String>)> {
    let mut out = Vec::new();
    symbol_refs(ir, op, &mut out);
    let mut regions: Vec<RegionId> = ir.op(op).regions.to_vec();
    while let Some(region) = regions.pop() {
        for &block in &ir.region(region).blocks {
            for &inner in &ir.block(block).ops {
                symbol_refs(ir, inner, &mut out);
                if !is_symbol_table(ir, inner) {
                    regions.extend(ir.op(inner).regions.iter().copied());
                }
            }
        }
    }
    out
}

/// Symbol tables, indexed on first use.
#[derive(Default)]
struct Symbols {
    tables: FxHashMap<OpId, FxHashMap<String, OpId>>,
}

impl Symbols {
    fn lookup_in(&mut self, ir: &Ir, table: OpId, name: &str) -> Option<OpId> {
        let symbols = self.tables.entry(table).or_insert_with(|| {
            let mut symbols = FxHashMap::default();
            if let Some(&region) = ir.op(table).regions.first() {
                for &block in &ir.region(region).blocks {
                    for &op in &ir.block(block).ops {
                        if let Some(Attribute::String(name)) = ir.op(op).attr("sym_name") {
                            symbols.entry(name.clone()).or_insert(op);
                        }
                    }
                }
            }
            symbols
        });
        symbols.get(name).copied()
    }

    /// MLIR's `lookupNearestSymbolFrom`: resolved in the nearest symbol table at or
    /// above `from`.
    fn lookup_nearest(&mut self, ir: &Ir, from: OpId, path: &[String]) -> Option<OpId> {
        let mut table = from;
        while !is_symbol_table(ir, table) {
            table = ir.parent_op(table)?;
        }
        let (first, rest) = path.split_first()?;
        let mut found = self.lookup_in(ir, table, first)?;
        for name in rest {
            if !is_symbol_table(ir, found) {
                return None;
            }
            found = self.lookup_in(ir, found, name)?;
        }
        Some(found)
    }
}

// ---- the call graph -----------------------------------------------------------------

type NodeId = usize;

struct Node {
    /// The callable op.
    op: OpId,
    /// Targets of calls and nested callables, each once, in discovery order.
    edges: Vec<NodeId>,
    /// The callables nested in this one.
    children: Vec<NodeId>,
}

struct CallGraph {
    nodes: Vec<Node>,
    node_of: FxHashMap<OpId, NodeId>,
    /// Callables not nested in a callable, in walk order (the external node's edges).
    roots: Vec<NodeId>,
}

impl CallGraph {
    /// MLIR's `CallGraph`: callables in pre-order, then the call edges.
    fn build(ir: &Ir, root: OpId, symbols: &mut Symbols) -> Self {
        let mut graph = CallGraph { nodes: Vec::new(), node_of: FxHashMap::default(), roots: Vec::new() };
        let mut calls = Vec::new();
        let mut stack: Vec<(OpId, Option<NodeId>)> = vec![(root, None)];
        while let Some((op, mut parent)) = stack.pop() {
            if is_call(ir, op) {
                if let Some(caller) = parent {
                    calls.push((caller, op));
                }
                continue;
            }
            if is_callable(ir, op) {
                if callable_region(ir, op).is_none() {
                    continue;
                }
                let id = graph.nodes.len();
                graph.nodes.push(Node { op, edges: Vec::new(), children: Vec::new() });
                graph.node_of.insert(op, id);
                match parent {
                    Some(p) => {
                        graph.add_edge(p, id);
                        graph.nodes[p].children.push(id);
                    }
                    None => graph.roots.push(id),
                }
                parent = Some(id);
            }
            for &region in ir.op(op).regions.iter().rev() {
                for &block in ir.region(region).blocks.iter().rev() {
                    stack.extend(ir.block(block).ops.iter().rev().map(|&o| (o, parent)));
                }
            }
        }
        for (caller, call) in calls {
            if let Some(target) = graph.resolve(ir, call, symbols) {
                graph.add_edge(caller, target);
            }
        }
        graph
    }

    fn add_edge(&mut self, from: NodeId, to: NodeId) {
        if !self.nodes[from].edges.contains(&to) {
            self.nodes[from].edges.push(to);
        }
    }

    /// The node of the callable a call resolves to (none: not a callable with a body).
    fn resolve(&self, ir: &Ir, call: OpId, symbols: &mut Symbols) -> Option<NodeId> {
        let target = symbols.lookup_nearest(ir, call, callee_path(ir, call)?)?;
        self.node_of_callable(ir, target)
    }

    fn node_of_callable(&self, ir: &Ir, op: OpId) -> Option<NodeId> {
        callable_region(ir, op)?;
        self.node_of.get(&op).copied()
    }

    /// The node whose body holds `region` (directly or not).
    fn enclosing_node(&self, ir: &Ir, mut region: RegionId) -> Option<NodeId> {
        loop {
            let op = ir.region(region).parent?;
            if let Some(node) = self.node_of_callable(ir, op) {
                if callable_region(ir, op) == Some(region) {
                    return Some(node);
                }
            }
            region = ir.block(ir.op(op).parent?).parent?;
        }
    }

    /// Strongly connected components in the order LLVM's `scc_iterator` yields them
    /// from the external node: callees before callers; within a component, the node
    /// visited last first.
    fn components(&self) -> Vec<Vec<NodeId>> {
        let n = self.nodes.len();
        let mut index: Vec<Option<usize>> = vec![None; n];
        let mut low = vec![0usize; n];
        let mut on_stack = vec![false; n];
        let mut stack = Vec::new();
        let mut out = Vec::new();
        let mut counter = 0;
        for &start in &self.roots {
            if index[start].is_some() {
                continue;
            }
            // (node, next edge to visit)
            let mut dfs: Vec<(NodeId, usize)> = vec![(start, 0)];
            index[start] = Some(counter);
            low[start] = counter;
            counter += 1;
            stack.push(start);
            on_stack[start] = true;
            while let Some(top) = dfs.last_mut() {
                let (node, next) = *top;
                if let Some(&child) = self.nodes[node].edges.get(next) {
                    top.1 += 1;
                    match index[child] {
                        None => {
                            index[child] = Some(counter);
                            low[child] = counter;
                            counter += 1;
                            stack.push(child);
                            on_stack[child] = true;
                            dfs.push((child, 0));
                        }
                        Some(i) if on_stack[child] => low[node] = low[node].min(i),
                        Some(_) => {}
                    }
                    continue;
                }
                dfs.pop();
                if let Some(&(parent, _)) = dfs.last() {
                    low[parent] = low[parent].min(low[node]);
                }
                if Some(low[node]) == index[node] {
                    let mut component = Vec::new();
                    while let Some(top) = stack.pop() {
                        on_stack[top] = false;
                        component.push(top);
                        if top == node {
                            break;
                        }
                    }
                    out.push(component);
                }
            }
        }
        out
    }
}

// ---- symbol uses of discardable callables ---------------------------------------------

#[derive(Default)]
struct NodeUses {
    /// Discardable callables the node's op itself references.
    top_level: Vec<NodeId>,
    /// Discardable callables referenced inside the node's body, with counts.
    inner: FxHashMap<NodeId, i64>,
}

/// MLIR's `CGUseList`: how many references each discardable (private, only referenced
/// from callables) callable has left.
struct UseList {
    discardable: FxHashMap<NodeId, i64>,
    node_uses: FxHashMap<NodeId, NodeUses>,
}

/// Resolves each symbol use in `op` to a call graph node, as MLIR's
/// `walkReferencedSymbolNodes` does: relative to `op`'s parent, each reference
/// resolved once (`cache`).
fn referenced_nodes(
    ir: &Ir,
    op: OpId,
    graph: &CallGraph,
    symbols: &mut Symbols,
    cache: &mut FxHashMap<Vec<String>, Option<NodeId>>,
) -> Vec<(NodeId, OpId)> {
    let Some(scope) = ir.parent_op(op) else { return Vec::new() };
    let mut out = Vec::new();
    for (user, path) in symbol_uses(ir, op) {
        let node = match cache.get(&path) {
            Some(&node) => node,
            None => {
                let node = symbols
                    .lookup_nearest(ir, scope, &path)
                    .and_then(|target| graph.node_of_callable(ir, target));
                cache.insert(path, node);
                node
            }
        };
        if let Some(node) = node {
            out.push((node, user));
        }
    }
    out
}

impl UseList {
    fn new(ir: &Ir, root: OpId, graph: &CallGraph, symbols: &mut Symbols) -> Self {
        let mut list = UseList { discardable: FxHashMap::default(), node_uses: FxHashMap::default() };
        let mut always_live = Vec::new();
        let mut cache = FxHashMap::default();
        for table in symbol_tables_post_order(ir, root) {
            let Some(&region) = ir.op(table).regions.first() else { continue };
            for &block in &ir.region(region).blocks {
                for &op in &ir.block(block).ops {
                    if let Some(node) = graph.node_of_callable(ir, op) {
                        // Only private symbols may be dropped once unused (even where
                        // all uses are visible, as under a top-level module).
                        if is_private(ir, op) {
                            list.discardable.entry(node).or_insert(0);
                        }
                        continue;
                    }
                    always_live.extend(
                        referenced_nodes(ir, op, graph, symbols, &mut cache).into_iter().map(|(n, _)| n),
                    );
                }
            }
        }
        for node in always_live {
            list.discardable.remove(&node);
        }
        for node in 0..graph.nodes.len() {
            list.recompute(ir, node, graph, symbols);
        }
        list
    }

    fn recompute(&mut self, ir: &Ir, node: NodeId, graph: &CallGraph, symbols: &mut Symbols) {
        let op = graph.nodes[node].op;
        if let Some(old) = self.node_uses.remove(&node) {
            self.decrement(&old);
        }
        let mut uses = NodeUses::default();
        let mut cache = FxHashMap::default();
        for (target, user) in referenced_nodes(ir, op, graph, symbols, &mut cache) {
            let Some(count) = self.discardable.get_mut(&target) else { continue };
            if user != op {
                *uses.inner.entry(target).or_default() += 1;
            } else if uses.top_level.contains(&target) {
                continue;
            } else {
                uses.top_level.push(target);
            }
            *count += 1;
        }
        self.node_uses.insert(node, uses);
    }

    fn decrement(&mut self, uses: &NodeUses) {
        for &n in &uses.top_level {
            *self.discardable.entry(n).or_default() -= 1;
        }
        for (&n, &count) in &uses.inner {
            *self.discardable.entry(n).or_default() -= count;
        }
    }

    fn is_dead(&self, node: NodeId) -> bool {
        self.discardable.get(&node) == Some(&0)
    }

    fn has_one_use_and_discardable(&self, node: NodeId) -> bool {
        self.discardable.get(&node) == Some(&1)
    }

    /// The call from `user` is gone.
    fn drop_call_uses(
        &mut self,
        ir: &Ir,
        user: NodeId,
        call: OpId,
        graph: &CallGraph,
        symbols: &mut Symbols,
    ) {
        let mut cache = FxHashMap::default();
        for (target, _) in referenced_nodes(ir, call, graph, symbols, &mut cache) {
            let Some(uses) = self.node_uses.get_mut(&user) else { return };
            let Some(count) = uses.inner.get_mut(&target) else { continue };
            *count -= 1;
            *self.discardable.entry(target).or_default() -= 1;
        }
    }

    /// `callee`'s body was copied into `caller`: so were its references.
    fn merge_after_inlining(&mut self, callee: NodeId, caller: NodeId) {
        let inner: Vec<(NodeId, i64)> = self
            .node_uses
            .get(&callee)
            .map(|u| u.inner.iter().map(|(&n, &c)| (n, c)).collect())
            .unwrap_or_default();
        for (n, c) in inner {
            *self.node_uses.entry(caller).or_default().inner.entry(n).or_default() += c;
            *self.discardable.entry(n).or_default() += c;
        }
    }

    fn erase_node(&mut self, node: NodeId, graph: &CallGraph) {
        let mut work = vec![node];
        while let Some(n) = work.pop() {
            work.extend(graph.nodes[n].children.iter().copied());
            if let Some(uses) = self.node_uses.remove(&n) {
                self.decrement(&uses);
            }
            self.discardable.remove(&n);
        }
    }
}

/// The symbol tables under `root` (itself included), nested ones first (MLIR's
/// `walkSymbolTables`).
fn symbol_tables_post_order(ir: &Ir, root: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    // (op, children already pushed)
    let mut stack = vec![(root, false)];
    while let Some((op, expanded)) = stack.pop() {
        if expanded {
            out.push(op);
            continue;
        }
        if is_symbol_table(ir, op) {
            stack.push((op, true));
        }
        for &region in ir.op(op).regions.iter().rev() {
            for &block in ir.region(region).blocks.iter().rev() {
                stack.extend(ir.block(block).ops.iter().rev().map(|&o| (o, false)));
            }
        }
    }
    out
}

// ---- inlining -------------------------------------------------------------------------

#[derive(Clone, Copy)]
struct ResolvedCall {
    call: OpId,
    source: NodeId,
    target: NodeId,
    /// The inlining that produced this call, in the round's history.
    history: Option<usize>,
}

struct Inliner<'o> {
    graph: CallGraph,
    symbols: Symbols,
    uses: UseList,
    options: &'o InlineOptions,
    to_erase: Vec<NodeId>,
}

impl Inliner<'_> {
    fn optimize_component(
        &mut self,
        ir: &mut Ir,
        component: &[NodeId],
        optimize: &mut dyn FnMut(&mut Ir, OpId) -> bool,
    ) -> bool {
        // As MLIR, callables with nested callables are left alone.
        let visit: Vec<NodeId> =
            component.iter().copied().filter(|&n| self.graph.nodes[n].children.is_empty()).collect();
        for &node in &visit {
            if !optimize(ir, self.graph.nodes[node].op) {
                return false;
            }
        }
        for node in visit {
            self.uses.recompute(ir, node, &self.graph, &mut self.symbols);
        }
        true
    }

    /// The calls in `blocks` (of `source`'s body) that resolve to callables.
    fn collect_calls(
        &mut self,
        ir: &Ir,
        blocks: &[BlockId],
        source: NodeId,
        into_nested_callables: bool,
        history: Option<usize>,
        out: &mut Vec<ResolvedCall>,
    ) {
        let mut work: Vec<(BlockId, NodeId)> = blocks.iter().map(|&b| (b, source)).collect();
        while let Some((block, source)) = work.pop() {
            for &op in &ir.block(block).ops {
                if is_call(ir, op) {
                    // Nested references (`@m::@f`) are not inlined.
                    if callee_path(ir, op).is_some_and(|p| p.len() == 1) {
                        if let Some(target) = self.graph.resolve(ir, op, &mut self.symbols) {
                            out.push(ResolvedCall { call: op, source, target, history });
                        }
                    }
                    continue;
                }
                for &region in &ir.op(op).regions {
                    let nested = self
                        .graph
                        .node_of_callable(ir, op)
                        .filter(|_| callable_region(ir, op) == Some(region));
                    if into_nested_callables || nested.is_none() {
                        let node = nested.unwrap_or(source);
                        work.extend(ir.region(region).blocks.iter().map(|&b| (b, node)));
                    }
                }
            }
        }
    }

    /// One round over a component; true when something was inlined.
    fn inline_calls_in(&mut self, ir: &mut Ir, component: &mut Vec<NodeId>) -> bool {
        let mut dead: FxHashSet<NodeId> = FxHashSet::default();
        let mut calls = Vec::new();
        for &node in component.iter() {
            if self.uses.is_dead(node) {
                dead.insert(node);
            } else if let Some(region) = callable_region(ir, self.graph.nodes[node].op) {
                let blocks = ir.region(region).blocks.clone();
                self.collect_calls(ir, &blocks, node, false, None, &mut calls);
            }
        }
        // (callee, the inlining that produced the call inlined)
        let mut history: Vec<(NodeId, Option<usize>)> = Vec::new();
        let mut inlined_any = false;
        let mut i = 0;
        while i < calls.len() {
            let call = calls[i];
            i += 1;
            if dead.contains(&call.source)
                || dead.contains(&call.target)
                || in_history(&history, call.target, call.history)
                || !self.should_inline(ir, &call)
            {
                continue;
            }
            let in_place = self.uses.has_one_use_and_discardable(call.target);
            let mut new_calls = Vec::new();
            if !self.inline_call(ir, &call, in_place, &mut new_calls) {
                continue;
            }
            inlined_any = true;
            history.push((call.target, call.history));
            let id = Some(history.len() - 1);
            calls.extend(new_calls.into_iter().map(|c| ResolvedCall { history: id, ..c }));
            self.uses.drop_call_uses(ir, call.source, call.call, &self.graph, &mut self.symbols);
            self.uses.merge_after_inlining(call.target, call.source);
            ir.erase_op(call.call);
            if in_place {
                self.uses.erase_node(call.target, &self.graph);
                dead.insert(call.target);
            }
        }
        component.retain(|n| !dead.contains(n));
        let mut dead: Vec<NodeId> = dead.into_iter().collect();
        dead.sort_unstable();
        self.to_erase.extend(dead);
        inlined_any
    }

    fn should_inline(&self, ir: &Ir, call: &ResolvedCall) -> bool {
        let call_op = ir.op(call.call);
        if op_has_trait(&call_op.name, "Terminator") {
            return false;
        }
        let target = &self.graph.nodes[call.target];
        // Recursive: the callee calls itself or its caller.
        if target.edges.iter().any(|&e| e == call.target || e == call.source) {
            return false;
        }
        let Some(callee_region) = callable_region(ir, target.op) else { return false };
        let Some(call_region) = call_op.parent.and_then(|b| ir.block(b).parent) else { return false };
        if region_contains(ir, callee_region, call_region) {
            return false;
        }
        let Some(call_parent) = ir.parent_op(call.call) else { return false };
        let multi_block = ir.region(callee_region).blocks.len() > 1;
        if multi_block
            && ir.op(target.op).name != ir.op(call_parent).name
            && op_has_trait(&ir.op(call_parent).name, "SingleBlock")
        {
            return false;
        }
        self.is_profitable(ir, call)
    }

    fn is_profitable(&self, ir: &Ir, call: &ResolvedCall) -> bool {
        if self.options.inlining_threshold == u32::MAX {
            return true;
        }
        let count = |node: NodeId| {
            let op = self.graph.nodes[node].op;
            callable_region(ir, op).map_or(0, |r| count_ops(ir, r))
        };
        let caller_ops = count(call.source) as u64;
        if caller_ops == 0 {
            return true;
        }
        count(call.target) as u64 * 100 / caller_ops <= self.options.inlining_threshold as u64
    }

    /// Inlines one call (the call op itself stays, for the caller to erase); false when
    /// it cannot be, with nothing changed. The calls the body brings are `new_calls`.
    fn inline_call(
        &mut self,
        ir: &mut Ir,
        call: &ResolvedCall,
        in_place: bool,
        new_calls: &mut Vec<ResolvedCall>,
    ) -> bool {
        let callee = self.graph.nodes[call.target].op;
        let Some(body) = callable_region(ir, callee) else { return false };
        let body_blocks = ir.region(body).blocks.clone();
        let entry = body_blocks[0];
        let operands = ir.op(call.call).operands.clone();
        let results = ir.op(call.call).results.clone();
        let entry_args = ir.block(entry).arguments.clone();
        let Some(result_types) = result_types(ir, callee) else { return false };
        if operands.len() != entry_args.len()
            || results.len() != result_types.len()
            || operands.iter().zip(&entry_args).any(|(&o, &a)| ir.value_type(o) != ir.value_type(a))
            || results.iter().zip(&result_types).any(|(&r, &t)| ir.value_type(r) != t)
        {
            return false;
        }
        let Some(call_block) = ir.op(call.call).parent else { return false };
        let Some(dest) = ir.block(call_block).parent else { return false };
        let Some(dest_op) = ir.region(dest).parent else { return false };
        if !may_receive_body(ir, dest_op) || !body_is_inlinable(ir, body) {
            return false;
        }
        if body_blocks.len() == 1 && !results.is_empty() {
            // The single block's return provides the results.
            let returned = ir.block(entry).ops.last().filter(|&&t| is_return(ir, t));
            if returned.is_none_or(|&t| ir.op(t).operands.len() != results.len()) {
                return false;
            }
        }
        let Some(scope) = isolated_ancestor(ir, call.call) else { return false };

        let mut map: FxHashMap<Value, Value> =
            entry_args.iter().copied().zip(operands.iter().copied()).collect();
        let new_blocks = if in_place {
            ir.region_mut(body).blocks.clear();
            remap_operands(ir, &body_blocks, &map);
            body_blocks
        } else {
            clone_blocks(ir, &body_blocks, &mut map)
        };

        // Split the call's block after the call; the body goes in between.
        let continuation = ir.create_block();
        let call_at = ir.block(call_block).ops.iter().position(|&o| o == call.call).unwrap_or(0);
        let tail = ir.block_mut(call_block).ops.split_off(call_at + 1);
        for op in tail {
            ir.append_op(continuation, op);
        }
        let block_at = ir.region(dest).blocks.iter().position(|&b| b == call_block).unwrap_or(0);
        for (offset, &block) in new_blocks.iter().chain([&continuation]).enumerate() {
            ir.block_mut(block).parent = Some(dest);
            ir.region_mut(dest).blocks.insert(block_at + 1 + offset, block);
        }
        if let Some(source) = self.graph.enclosing_node(ir, dest) {
            self.collect_calls(ir, &new_blocks, source, true, None, new_calls);
        }

        if new_blocks.len() == 1 {
            let block = new_blocks[0];
            if let Some(terminator) = ir.block(block).ops.last().copied() {
                if is_return(ir, terminator) {
                    let returned = ir.op(terminator).operands.clone();
                    for (&result, &value) in results.iter().zip(&returned) {
                        crate::canonicalize::replace_all_uses(ir, scope, result, value);
                    }
                }
                ir.erase_op(terminator);
            }
            move_ops(ir, continuation, block);
            remove_block(ir, dest, continuation);
        } else {
            let location = ir.op(call.call).location.clone();
            for (&result, &ty) in results.iter().zip(&result_types) {
                let argument = ir.add_block_argument(continuation, ty, location.clone());
                crate::canonicalize::replace_all_uses(ir, scope, result, argument);
            }
            for &block in &new_blocks {
                if let Some(terminator) = ir.block(block).ops.last().copied() {
                    branch_instead_of_return(ir, block, terminator, continuation);
                }
            }
        }
        move_ops(ir, new_blocks[0], call_block);
        remove_block(ir, dest, new_blocks[0]);
        true
    }
}

/// Whether the call came from inlining `callee` along the chain of inlinings `from`.
fn in_history(history: &[(NodeId, Option<usize>)], callee: NodeId, mut from: Option<usize>) -> bool {
    while let Some(i) = from {
        let Some(&(node, parent)) = history.get(i) else { return false };
        if node == callee {
            return true;
        }
        from = parent;
    }
    false
}

/// Whether `inner` is `outer` or nested in it.
fn region_contains(ir: &Ir, outer: RegionId, mut inner: RegionId) -> bool {
    loop {
        if inner == outer {
            return true;
        }
        let Some(block) = ir.region(inner).parent.and_then(|op| ir.op(op).parent) else { return false };
        let Some(region) = ir.block(block).parent else { return false };
        inner = region;
    }
}

fn count_ops(ir: &Ir, region: RegionId) -> usize {
    let mut count = 0;
    let mut regions = vec![region];
    while let Some(r) = regions.pop() {
        for &block in &ir.region(r).blocks {
            for &op in &ir.block(block).ops {
                count += 1;
                regions.extend(ir.op(op).regions.iter().copied());
            }
        }
    }
    count
}

/// The nearest op at or above `op`'s parent that values cannot cross.
fn isolated_ancestor(ir: &Ir, op: OpId) -> Option<OpId> {
    let mut at = ir.parent_op(op)?;
    while !op_has_trait(&ir.op(at).name, "IsolatedFromAbove") {
        at = ir.parent_op(at)?;
    }
    Some(at)
}

fn dialect(name: &str) -> &str {
    name.split_once('.').map_or("", |(d, _)| d)
}

/// Whether a dialect has inlining support (the dialects mlir-opt registers, less
/// `builtin`).
fn dialect_inlines(dialect: &str) -> bool {
    dialect != "builtin" && spirvkit_ir::opdef::REGISTERED_DIALECTS.contains(&dialect)
}

/// The region of `op` may receive an inlined body (SPIR-V: functions and structured
/// control flow only).
fn may_receive_body(ir: &Ir, op: OpId) -> bool {
    let name = ir.op(op).name.as_str();
    match dialect(name) {
        "spirv" => matches!(name, "spirv.func" | "spirv.mlir.selection" | "spirv.mlir.loop"),
        d => dialect_inlines(d),
    }
}

/// Every op of the body may be inlined.
fn body_is_inlinable(ir: &Ir, body: RegionId) -> bool {
    let mut regions = vec![body];
    while let Some(region) = regions.pop() {
        for &block in &ir.region(region).blocks {
            for &op in &ir.block(block).ops {
                let name = ir.op(op).name.as_str();
                if name == "builtin.unrealized_conversion_cast" {
                    continue;
                }
                let legal = match dialect(name) {
                    "spirv" => match name {
                        "spirv.Kill" => false,
                        "spirv.mlir.selection" | "spirv.mlir.loop" => !returns_from_inside(ir, op),
                        _ => true,
                    },
                    d => dialect_inlines(d),
                };
                if !legal {
                    return false;
                }
                regions.extend(ir.op(op).regions.iter().copied());
            }
        }
    }
    true
}

/// A block of the op's first region ends in a return.
fn returns_from_inside(ir: &Ir, op: OpId) -> bool {
    let Some(&region) = ir.op(op).regions.first() else { return false };
    ir.region(region).blocks.iter().any(|&b| {
        ir.block(b)
            .ops
            .last()
            .is_some_and(|&t| matches!(ir.op(t).name.as_str(), "spirv.Return" | "spirv.ReturnValue"))
    })
}

/// Replaces a return ending an inlined block by a branch to `continuation`.
fn branch_instead_of_return(ir: &mut Ir, block: BlockId, terminator: OpId, continuation: BlockId) {
    let branch = match ir.op(terminator).name.as_str() {
        "spirv.Return" | "spirv.ReturnValue" => "spirv.Branch",
        "func.return" => "cf.br",
        _ => return,
    };
    let operands = ir.op(terminator).operands.clone();
    let location = ir.op(terminator).location.clone();
    let op = ir.create_op(branch, operands, &[], location);
    ir.op_mut(op).successors = spirvkit_ir::ir::thin_vec![continuation];
    ir.insert_op_before(block, terminator, op);
    ir.erase_op(terminator);
}

/// Appends `from`'s ops to `to`, leaving `from` empty.
fn move_ops(ir: &mut Ir, from: BlockId, to: BlockId) {
    let ops = std::mem::take(&mut ir.block_mut(from).ops);
    for op in ops {
        ir.append_op(to, op);
    }
}

fn remove_block(ir: &mut Ir, region: RegionId, block: BlockId) {
    ir.region_mut(region).blocks.retain(|&b| b != block);
    ir.block_mut(block).parent = None;
}

/// Every op under `blocks`.
fn ops_in(ir: &Ir, blocks: &[BlockId]) -> Vec<OpId> {
    let mut out = Vec::new();
    let mut work: Vec<BlockId> = blocks.to_vec();
    while let Some(block) = work.pop() {
        for &op in &ir.block(block).ops {
            out.push(op);
            for &r in &ir.op(op).regions {
                work.extend(ir.region(r).blocks.iter().copied());
            }
        }
    }
    out
}

fn remap_operands(ir: &mut Ir, blocks: &[BlockId], map: &FxHashMap<Value, Value>) {
    for op in ops_in(ir, blocks) {
        for v in ir.op_mut(op).operands.iter_mut() {
            if let Some(&to) = map.get(v) {
                *v = to;
            }
        }
    }
}

/// A new block with `block`'s arguments, less those `map` already replaces.
fn clone_block_shell(ir: &mut Ir, block: BlockId, map: &mut FxHashMap<Value, Value>) -> BlockId {
    let new = ir.create_block();
    let arguments = ir.block(block).arguments.clone();
    for (i, argument) in arguments.into_iter().enumerate() {
        if map.contains_key(&argument) {
            continue;
        }
        let location = ir.block(block).argument_locations.get(i).cloned().unwrap_or_default();
        let ty = ir.value_type(argument);
        let copy = ir.add_block_argument(new, ty, location);
        map.insert(argument, copy);
    }
    new
}

/// Deep copies of `blocks` (detached), values mapped through `map` (which also
/// receives every cloned value).
pub(crate) fn clone_blocks(
    ir: &mut Ir,
    blocks: &[BlockId],
    map: &mut FxHashMap<Value, Value>,
) -> Vec<BlockId> {
    clone_blocks_marking(ir, blocks, map, &mut FxHashSet::default())
}

/// [`clone_blocks`], the copy of each op of `marked` marked too.
pub(crate) fn clone_blocks_marking(
    ir: &mut Ir,
    blocks: &[BlockId],
    map: &mut FxHashMap<Value, Value>,
    marked: &mut FxHashSet<OpId>,
) -> Vec<BlockId> {
    let mut block_map: FxHashMap<BlockId, BlockId> = FxHashMap::default();
    let mut work = Vec::new();
    let mut created = Vec::new();
    let copies: Vec<BlockId> = blocks
        .iter()
        .map(|&b| {
            let copy = clone_block_shell(ir, b, map);
            block_map.insert(b, copy);
            work.push((b, copy));
            copy
        })
        .collect();
    while let Some((from, to)) = work.pop() {
        for op in ir.block(from).ops.clone() {
            let original = ir.op(op).clone();
            let types: Vec<Type> = original.results.iter().map(|&r| ir.value_type(r)).collect();
            let copy = ir.create_op(original.name, original.operands, &types, original.location);
            let copied_results = ir.op(copy).results.clone();
            map.extend(original.results.iter().copied().zip(copied_results));
            let c = ir.op_mut(copy);
            c.properties = original.properties;
            c.attributes = original.attributes;
            c.successors = original.successors;
            for region in original.regions {
                let new_region = ir.add_region(copy);
                for b in ir.region(region).blocks.clone() {
                    let block_copy = clone_block_shell(ir, b, map);
                    ir.append_block(new_region, block_copy);
                    block_map.insert(b, block_copy);
                    work.push((b, block_copy));
                }
            }
            ir.append_op(to, copy);
            if marked.contains(&op) {
                marked.insert(copy);
            }
            created.push(copy);
        }
    }
    for op in created {
        let o = ir.op_mut(op);
        for v in o.operands.iter_mut() {
            if let Some(&to) = map.get(v) {
                *v = to;
            }
        }
        for b in o.successors.iter_mut() {
            if let Some(&to) = block_map.get(b) {
                *b = to;
            }
        }
    }
    copies
}

#[cfg(test)]
mod tests {
    use crate::opt::{run, OptOptions};

    /// Runs `builtin.module(spirv.module(inline{default-pipeline=''}))`.
    fn inline(source: &str) -> String {
        let options = OptOptions {
            pass_pipeline: Some("builtin.module(spirv.module(inline{default-pipeline=''}))".into()),
            ..Default::default()
        };
        let r = run(source, "t.mlir", &options);
        assert!(r.success, "{}", r.diagnostics_text);
        r.output
    }

    // Expected texts are mlir-opt-22's output for the same input and pipeline.

    #[test]
    fn single_block_callee_merges_into_the_caller() {
        let source = r#"spirv.module Logical GLSL450 {
  spirv.func @callee(%a: i32) -> i32 "None" attributes {sym_visibility = "private"} {
    %0 = spirv.IAdd %a, %a : i32
    spirv.ReturnValue %0 : i32
  }
  spirv.func @caller(%x: i32) -> i32 "None" {
    %0 = spirv.FunctionCall @callee(%x) : (i32) -> i32
    %1 = spirv.FunctionCall @callee(%0) : (i32) -> i32
    spirv.ReturnValue %1 : i32
  }
}"#;
        assert_eq!(
            inline(source),
            r#"module {
  spirv.module Logical GLSL450 {
    spirv.func @caller(%arg0: i32) -> i32 "None" {
      %0 = spirv.IAdd %arg0, %arg0 : i32
      %1 = spirv.IAdd %0, %0 : i32
      spirv.ReturnValue %1 : i32
    }
  }
}

"#
        );
    }

    #[test]
    fn multi_block_callee_branches_to_the_continuation() {
        let source = r#"spirv.module Logical GLSL450 {
  spirv.func @mb(%a: i1) -> i32 "None" {
    %c1 = spirv.Constant 1 : i32
    %c2 = spirv.Constant 2 : i32
    spirv.BranchConditional %a, ^t, ^f
  ^t:
    spirv.ReturnValue %c1 : i32
  ^f:
    spirv.ReturnValue %c2 : i32
  }
  spirv.func @c(%x: i1) -> i32 "None" {
    %v = spirv.Variable : !spirv.ptr<i32, Function>
    spirv.mlir.selection {
      spirv.BranchConditional %x, ^t, ^m
    ^t:
      %0 = spirv.FunctionCall @mb(%x) : (i1) -> i32
      spirv.Store "Function" %v, %0 : i32
      spirv.Branch ^m
    ^m:
      spirv.mlir.merge
    }
    %r = spirv.Load "Function" %v : i32
    %1 = spirv.FunctionCall @mb(%x) : (i1) -> i32
    %2 = spirv.IAdd %1, %r : i32
    spirv.ReturnValue %2 : i32
  }
}"#;
        let expected = r#"    spirv.func @c(%arg0: i1) -> i32 "None" {
      %0 = spirv.Variable : !spirv.ptr<i32, Function>
      spirv.mlir.selection {
        spirv.BranchConditional %arg0, ^bb1, ^bb5
      ^bb1:  // pred: ^bb0
        %cst1_i32_0 = spirv.Constant 1 : i32
        %cst2_i32_1 = spirv.Constant 2 : i32
        spirv.BranchConditional %arg0, ^bb2, ^bb3
      ^bb2:  // pred: ^bb1
        spirv.Branch ^bb4(%cst1_i32_0 : i32)
      ^bb3:  // pred: ^bb1
        spirv.Branch ^bb4(%cst2_i32_1 : i32)
      ^bb4(%4: i32):  // 2 preds: ^bb2, ^bb3
        spirv.Store "Function" %0, %4 : i32
        spirv.Branch ^bb5
      ^bb5:  // 2 preds: ^bb0, ^bb4
        spirv.mlir.merge
      }
      %1 = spirv.Load "Function" %0 : i32
      %cst1_i32 = spirv.Constant 1 : i32
      %cst2_i32 = spirv.Constant 2 : i32
      spirv.BranchConditional %arg0, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      spirv.Branch ^bb3(%cst1_i32 : i32)
    ^bb2:  // pred: ^bb0
      spirv.Branch ^bb3(%cst2_i32 : i32)
    ^bb3(%2: i32):  // 2 preds: ^bb1, ^bb2
      %3 = spirv.IAdd %2, %1 : i32
      spirv.ReturnValue %3 : i32
    }
"#;
        let out = inline(source);
        assert!(out.contains(expected), "{out}");
    }

    #[test]
    fn recursion_kill_and_early_returns_stay_calls() {
        let source = r#"spirv.module Logical GLSL450 {
  spirv.func @rec(%a: i32) -> i32 "None" {
    %0 = spirv.FunctionCall @rec(%a) : (i32) -> i32
    spirv.ReturnValue %0 : i32
  }
  spirv.func @k() "None" attributes {sym_visibility = "private"} {
    spirv.Kill
  }
  spirv.func @early(%cond : i1) -> () "None" {
    spirv.mlir.selection {
      spirv.BranchConditional %cond, ^then, ^merge
    ^then:
      spirv.Return
    ^merge:
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.func @caller(%x: i32, %c: i1) -> i32 "None" {
    spirv.FunctionCall @k() : () -> ()
    spirv.FunctionCall @early(%c) : (i1) -> ()
    %0 = spirv.FunctionCall @rec(%x) : (i32) -> i32
    spirv.ReturnValue %0 : i32
  }
}"#;
        let out = inline(source);
        assert_eq!(out.matches("spirv.FunctionCall").count(), 4, "{out}");
    }

    #[test]
    fn call_cycles_unroll_per_round() {
        // `a` and `b` call each other: each round inlines `a` then `b` into the caller
        // and stops at the call to `a` the history forbids, four rounds in all.
        let source = r#"spirv.module Logical GLSL450 {
  spirv.func @a(%a: i32) -> i32 "None" {
    %0 = spirv.FunctionCall @b(%a) : (i32) -> i32
    spirv.ReturnValue %0 : i32
  }
  spirv.func @b(%a: i32) -> i32 "None" {
    %c = spirv.Constant 1 : i32
    %1 = spirv.IAdd %a, %c : i32
    %0 = spirv.FunctionCall @a(%1) : (i32) -> i32
    spirv.ReturnValue %0 : i32
  }
  spirv.func @caller(%x: i32) -> i32 "None" {
    %0 = spirv.FunctionCall @a(%x) : (i32) -> i32
    spirv.ReturnValue %0 : i32
  }
}"#;
        let out = inline(source);
        let caller = &out[out.find("@caller").unwrap()..];
        assert_eq!(caller.matches("spirv.IAdd").count(), 4, "{out}");
        assert!(caller.contains("%4 = spirv.FunctionCall @a(%3) : (i32) -> i32"), "{out}");
    }

    #[test]
    fn dead_private_callables_go_live_ones_stay() {
        let source = r#"spirv.module Logical GLSL450 {
  spirv.func @p(%a: i32) -> i32 "None" attributes {sym_visibility = "private"} {
    %0 = spirv.IAdd %a, %a : i32
    spirv.ReturnValue %0 : i32
  }
  spirv.func @q(%a: i32) -> i32 "None" attributes {sym_visibility = "private"} {
    %0 = spirv.FunctionCall @p(%a) : (i32) -> i32
    spirv.ReturnValue %0 : i32
  }
  spirv.func @ep() "None" attributes {sym_visibility = "private"} {
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @ep
}"#;
        // `p` is visited before its only caller `q` dies, so it stays; `ep` is an
        // entry point.
        let out = inline(source);
        assert!(out.contains("spirv.func @p("), "{out}");
        assert!(!out.contains("spirv.func @q("), "{out}");
        assert!(out.contains("spirv.func @ep("), "{out}");
    }

    #[test]
    fn inliner_needs_a_symbol_table() {
        let options = OptOptions {
            pass_pipeline: Some("builtin.module(spirv.module(spirv.func(inline)))".into()),
            ..Default::default()
        };
        let source =
            "spirv.module Logical GLSL450 {\n  spirv.func @f() \"None\" {\n    spirv.Return\n  }\n}\n";
        let r = run(source, "t.mlir", &options);
        assert!(!r.success);
        assert_eq!(
            r.diagnostics_text,
            "t.mlir:2:3: error: 'spirv.func' op  was scheduled to run under the inliner, but does not define a \
             symbol table\n  spirv.func @f() \"None\" {\n  ^\nt.mlir:2:3: note: see current operation: \n\
             \"spirv.func\"() <{function_control = #spirv.function_control<None>, function_type = () -> (), \
             sym_name = \"f\"}> ({\n  \"spirv.Return\"() : () -> ()\n}) : () -> ()\n"
        );
    }
}
